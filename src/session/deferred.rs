//! The deferred constraint checks of a transaction (foreign keys, DEFERRABLE unique and
//! primary keys, and deferred constraint triggers' events): SET CONSTRAINTS (which DEFERRABLE
//! constraints wait for the commit now), the events kept until then, and running them at
//! COMMIT or at SET CONSTRAINTS ... IMMEDIATE (`sql::exec::deferred` runs the checks).
//!
//! A savepoint remembers how many events there were and the SET CONSTRAINTS state; ROLLBACK
//! TO drops the events made since and restores the state, as PostgreSQL does.
//!
//! # Bound
//!
//! The events kept hold at most [`DEFERRED_MEM`] bytes. Past that, every constraint with events
//! kept is checked whole at commit instead (a scan of its referencing table, as ALTER TABLE ...
//! ADD FOREIGN KEY validates, which reports a missing referenced row even for what was a
//! NO ACTION event), the events are dropped, and later events of those constraints are not
//! kept: memory then grows with the number of constraints only. Constraint triggers' events
//! cannot be replaced so: past the bound with those alone, the transaction fails (54000). PostgreSQL spills its event
//! queue to disk instead; the outcome differs only for rows that a NOT VALID constraint let in.

use crate::error::{code, PgError, PgResult};
use crate::sql::exec::deferred::{self, DeferredEvent};

use super::txn::TxState;
use super::Core;

/// The bytes of deferred events one transaction keeps before it falls back to whole checks.
pub const DEFERRED_MEM: usize = 64 << 20;

/// SET CONSTRAINTS of the transaction: ALL, then each named constraint set since.
#[derive(Clone, Debug, Default)]
pub(super) struct Timing {
    all: Option<bool>,
    named: Vec<(u32, bool)>,
}

/// What a transaction keeps for its deferred checks.
#[derive(Debug, Default)]
pub(super) struct Deferred {
    pub(super) timing: Timing,
    /// The events in order; None: run by SET CONSTRAINTS ... IMMEDIATE (the positions stay, for
    /// the savepoints' marks).
    pub(super) events: Vec<Option<DeferredEvent>>,
    bytes: usize,
    /// Constraints checked whole at commit (past the bound).
    full: Vec<u32>,
}

impl Deferred {
    fn is_deferred(&self, constraint: u32, initially: bool) -> bool {
        match self.timing.named.iter().find(|(o, _)| *o == constraint) {
            Some(&(_, d)) => d,
            None => self.timing.all.unwrap_or(initially),
        }
    }

    /// Keeps `e`; true when the bound was passed and the events became whole checks (the
    /// savepoints' marks must then go to 0: what is kept afterwards is all newer than them).
    fn push(&mut self, e: DeferredEvent) -> PgResult<bool> {
        if e.trigger.is_none() {
            if self.full.contains(&e.constraint) {
                return Ok(false);
            }
            // A unique key's whole check (its statement kept too many keys): one entry.
            if e.key.is_empty() {
                self.full.push(e.constraint);
                return Ok(false);
            }
        }
        self.bytes += crate::sql::exec::deferred::event_bytes(&e);
        self.events.push(Some(e));
        if self.bytes <= DEFERRED_MEM {
            return Ok(false);
        }
        if !self.events.iter().flatten().any(|e| e.trigger.is_some()) {
            for e in self.events.drain(..).flatten() {
                if !self.full.contains(&e.constraint) {
                    self.full.push(e.constraint);
                }
            }
            self.bytes = 0;
            return Ok(true);
        }
        // A constraint trigger's event cannot become a whole check: the key checks do, in
        // place (the positions, hence the savepoints' marks, stay), and the triggers' events
        // must fit the bound alone.
        for slot in self.events.iter_mut() {
            if slot.as_ref().is_some_and(|e| e.trigger.is_none()) {
                if let Some(e) = slot.take() {
                    self.bytes -= crate::sql::exec::deferred::event_bytes(&e);
                    if !self.full.contains(&e.constraint) {
                        self.full.push(e.constraint);
                    }
                }
            }
        }
        if self.bytes > DEFERRED_MEM {
            return Err(PgError::new(
                code::PROGRAM_LIMIT_EXCEEDED,
                format!(
                    "too many deferred trigger events in one transaction (at most {} MB)",
                    DEFERRED_MEM >> 20
                ),
            ));
        }
        Ok(false)
    }

    /// ROLLBACK TO a savepoint that saw `len` events and `timing`.
    pub(super) fn rollback_to(&mut self, len: usize, timing: Timing) {
        for e in self.events.drain(len.min(self.events.len())..).flatten() {
            self.bytes -= crate::sql::exec::deferred::event_bytes(&e);
        }
        self.timing = timing;
    }
}

impl Core {
    pub(super) fn constraint_deferred_now(&self, constraint: u32, initially: bool) -> bool {
        self.txn
            .as_ref()
            .map_or(initially, |t| t.deferred.is_deferred(constraint, initially))
    }

    /// Whether events of table `table` are kept (those checked whole past the bound are not
    /// counted: their table is no longer known here).
    pub(super) fn deferred_pending(&self, table: u32) -> bool {
        self.txn
            .as_ref()
            .is_some_and(|t| t.deferred.events.iter().flatten().any(|e| e.table == table))
    }

    pub(super) fn keep_deferred(&mut self, e: DeferredEvent) -> PgResult<()> {
        let txn = self.txn_mut();
        if txn.deferred.push(e)? {
            txn.forget_deferred_marks();
        }
        Ok(())
    }

    /// Runs the deferred checks kept, of the constraints in `only` (None: all); what ran
    /// without an error is dropped. A deferred trigger may queue more events of its own (its
    /// writes): they run in turn, until none is left, as PostgreSQL's loop over its event
    /// list does (a trigger that queues itself forever is stopped by statement_timeout or a
    /// cancel, as there).
    pub(super) fn fire_deferred(&mut self, only: Option<&[u32]>) -> PgResult<()> {
        loop {
            let Some(txn) = self.txn.as_ref() else {
                return Ok(());
            };
            let d = &txn.deferred;
            let picked = |c: u32| only.is_none_or(|o| o.contains(&c));
            // The events queued while these run come after this position.
            let upto = d.events.len();
            let events: Vec<DeferredEvent> = d
                .events
                .iter()
                .flatten()
                .filter(|e| picked(e.constraint))
                .cloned()
                .collect();
            let full: Vec<u32> = d.full.iter().copied().filter(|&c| picked(c)).collect();
            if events.is_empty() && full.is_empty() {
                return Ok(());
            }
            deferred::fire(self, events, &full)?;
            let d = &mut self.txn.as_mut().expect("transaction").deferred;
            let upto = upto.min(d.events.len());
            for slot in d.events[..upto].iter_mut() {
                if slot.as_ref().is_some_and(|e| picked(e.constraint)) {
                    if let Some(e) = slot.take() {
                        d.bytes -= crate::sql::exec::deferred::event_bytes(&e);
                    }
                }
            }
            d.full.retain(|c| !full.contains(c));
        }
    }

    /// SET CONSTRAINTS { ALL | name [, ...] } { DEFERRED | IMMEDIATE }: `names` None for ALL.
    pub(super) fn set_constraints(
        &mut self,
        names: Option<&[(String, String)]>,
        defer: bool,
    ) -> PgResult<()> {
        if !matches!(self.tx, TxState::Block | TxState::Failed) {
            self.notices.push(PgError::warning(
                code::NO_ACTIVE_SQL_TRANSACTION,
                "SET CONSTRAINTS can only be used in transaction blocks",
            ));
        }
        let Some(names) = names else {
            let t = &mut self.txn_mut().deferred.timing;
            t.all = Some(defer);
            t.named.clear();
            return if defer {
                Ok(())
            } else {
                self.fire_deferred(None)
            };
        };
        let oids = self.constraints_named(names, defer)?;
        let t = &mut self.txn_mut().deferred.timing;
        for &o in &oids {
            t.named.retain(|(x, _)| *x != o);
            t.named.push((o, defer));
        }
        if defer {
            Ok(())
        } else {
            self.fire_deferred(Some(&oids))
        }
    }

    /// The constraints SET CONSTRAINTS names: for a name without a schema, those of the first
    /// schema on the search path that has any by that name; 42704 for a name with none, 42809
    /// for one that is not DEFERRABLE.
    fn constraints_named(&mut self, names: &[(String, String)], defer: bool) -> PgResult<Vec<u32>> {
        let snap = self.catalog_snapshot();
        let rels: Vec<_> = self
            .instance
            .catalog
            .visible(&snap)
            .into_iter()
            .filter(|r| r.name.database == self.database)
            .collect();
        // The session's temporary schema comes first, as on PostgreSQL's search path.
        let mut path: Vec<String> = self.temp.schema.iter().cloned().collect();
        path.extend(crate::sql::context::SessionCtx::search_path(self));
        let mut out = Vec::new();
        for (schema, name) in names {
            let schemas: Vec<&str> = if schema.is_empty() {
                path.iter().map(String::as_str).collect()
            } else if matches!(schema.as_str(), "pg_catalog" | "information_schema")
                || crate::sql::engine::is_temp_schema(schema)
                || crate::sql::engine::schema_exists(
                    &self.instance.catalog,
                    &snap,
                    &self.database,
                    schema,
                )
            {
                vec![schema.as_str()]
            } else {
                return Err(PgError::new(
                    code::INVALID_SCHEMA_NAME,
                    format!("schema \"{schema}\" does not exist"),
                ));
            };
            // (OID, DEFERRABLE) of each constraint of the name: tables' constraints and
            // constraint triggers' (one mechanism for both, as in PostgreSQL).
            let mut found: Vec<(u32, bool)> = Vec::new();
            for s in schemas {
                for r in rels.iter().filter(|r| r.name.schema == s) {
                    found.extend(
                        r.constraints
                            .iter()
                            .filter(|c| &c.name == name)
                            .map(|c| (c.oid, c.deferrable)),
                    );
                    found.extend(
                        r.triggers
                            .iter()
                            .filter(|t| &t.name == name)
                            .filter_map(|t| t.constraint.map(|k| (k.oid, k.deferrable))),
                    );
                }
                if !found.is_empty() {
                    break;
                }
            }
            if found.is_empty() {
                return Err(PgError::new(
                    code::UNDEFINED_OBJECT,
                    format!("constraint \"{name}\" does not exist"),
                ));
            }
            for (oid, deferrable) in found {
                // IMMEDIATE is what a constraint that is not DEFERRABLE is anyway.
                if !deferrable && defer {
                    return Err(PgError::new(
                        code::WRONG_OBJECT_TYPE,
                        format!("constraint \"{name}\" is not deferrable"),
                    ));
                }
                if !out.contains(&oid) {
                    out.push(oid);
                }
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sql::types::Value;

    fn event(constraint: u32, bytes: usize) -> DeferredEvent {
        DeferredEvent {
            table: 1,
            constraint,
            referenced: false,
            key: vec![Value::Text("x".repeat(bytes))].into_boxed_slice(),
            trigger: None,
        }
    }

    #[test]
    fn past_the_bound_events_become_whole_checks() {
        let mut d = Deferred::default();
        assert!(!d.push(event(7, 10)).unwrap());
        let big = DEFERRED_MEM / 4;
        let mut spilled = false;
        for _ in 0..5 {
            spilled |= d.push(event(8, big)).unwrap();
        }
        assert!(spilled);
        assert!(d.events.is_empty());
        assert_eq!(d.bytes, 0);
        assert_eq!(d.full, vec![7, 8]);
        // A constraint checked whole keeps no events; another one does.
        assert!(!d.push(event(7, 10)).unwrap());
        assert!(d.events.is_empty());
        assert!(!d.push(event(9, 10)).unwrap());
        assert_eq!(d.events.len(), 1);
        // ROLLBACK TO a savepoint made before the spill (its mark went to 0) drops what came
        // after it and keeps the whole checks.
        d.rollback_to(0, Timing::default());
        assert!(d.events.is_empty());
        assert_eq!(d.bytes, 0);
        assert_eq!(d.full, vec![7, 8]);
    }

    #[test]
    fn set_constraints_state_decides_deferral() {
        let mut d = Deferred::default();
        assert!(d.is_deferred(1, true));
        assert!(!d.is_deferred(1, false));
        d.timing.all = Some(true);
        assert!(d.is_deferred(1, false));
        d.timing.named.push((1, false));
        assert!(!d.is_deferred(1, true));
        assert!(d.is_deferred(2, false));
    }
}
