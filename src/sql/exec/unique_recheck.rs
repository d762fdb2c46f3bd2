//! DEFERRABLE unique and primary keys at run time: the keys a statement entered while another
//! entry held them (`engine::Recheck`), checked again once its rows are written.
//!
//! PostgreSQL inserts such an entry and queues a recheck of its key (an AFTER ROW constraint
//! trigger, `unique_key_recheck`), so `UPDATE t SET id = id + 1` passes: at the end of the
//! statement each key is held once again. A constraint deferred now (INITIALLY DEFERRED, or
//! SET CONSTRAINTS) hands its keys to the session instead, which checks them at COMMIT or SET
//! CONSTRAINTS ... IMMEDIATE (`exec::deferred`). The index holds both entries meanwhile:
//! readers see every live version as always; vacuum removes a dead one's entry as always.
//!
//! # Bound
//!
//! The keys kept for one statement take at most [`WORK_MEM`] bytes; past that, the indexes of
//! the keys kept are checked whole instead (every key with more than one entry, in key order),
//! and later keys of those indexes are not kept. A whole check handed to the session is an
//! event without a key.

use crate::catalog::Oid;
use crate::error::PgResult;
use crate::sql::engine::{self, Recheck, Rel, WriteError};
use crate::sync::Arc;
use crate::txn::TxnCell;

use super::deferred::DeferredEvent;
use super::table::unique_violation;
use super::{EvalCx, Step, WORK_MEM};

/// The rechecks of one writing statement.
#[derive(Default)]
pub(super) struct Rechecks {
    /// The keys, in the order they were entered; the write adds to it (`sink`).
    keys: Vec<Recheck>,
    /// How many of `keys` are counted in `bytes`.
    counted: usize,
    bytes: usize,
    /// Indexes checked whole (past the bound), and how many of them are done.
    whole: Vec<Oid>,
    whole_done: usize,
    /// How many of `keys` are done (checked or handed to the session).
    done: usize,
}

fn bytes_of(r: &Recheck) -> usize {
    super::row_bytes(&r.key.0) + std::mem::size_of::<Recheck>()
}

impl Rechecks {
    /// Where a write puts its keys to check later.
    pub(super) fn sink(&mut self) -> &mut Vec<Recheck> {
        &mut self.keys
    }

    /// Counts the keys a write added; past the bound, their indexes are checked whole.
    pub(super) fn settle(&mut self) {
        if !self.whole.is_empty() {
            let new: Vec<Recheck> = self.keys.drain(self.counted..).collect();
            let whole = &self.whole;
            self.keys
                .extend(new.into_iter().filter(|r| !whole.contains(&r.index)));
        }
        for r in &self.keys[self.counted..] {
            self.bytes += bytes_of(r);
        }
        self.counted = self.keys.len();
        if self.bytes <= WORK_MEM {
            return;
        }
        for r in self.keys.drain(..) {
            if !self.whole.contains(&r.index) {
                self.whole.push(r.index);
            }
        }
        self.counted = 0;
        self.bytes = 0;
    }

    /// Runs the rechecks (the statement's rows are all written): `Ok(None)` once all are done,
    /// `Ok(Some(step))` to wait for a writer in progress (then called again).
    pub(super) fn run(
        &mut self,
        rel: &Rel,
        cell: &Arc<TxnCell>,
        cx: &mut EvalCx,
    ) -> PgResult<Option<Step>> {
        while let Some(r) = self.keys.get(self.done) {
            let Some(c) = rel.deferrable_key(r.index) else {
                self.done += 1;
                continue;
            };
            if cx.session.constraint_deferred(c.oid, c.deferred) {
                cx.session.queue_deferred(DeferredEvent {
                    table: rel.oid,
                    constraint: c.oid,
                    referenced: false,
                    key: r.key.0.clone(),
                    trigger: None,
                })?;
            } else if let Some(step) =
                outcome(engine::recheck_unique(rel, r.index, &r.key, cell), rel, cx)?
            {
                return Ok(Some(step));
            }
            self.done += 1;
        }
        while let Some(&index) = self.whole.get(self.whole_done) {
            if let Some(c) = rel.deferrable_key(index) {
                if cx.session.constraint_deferred(c.oid, c.deferred) {
                    cx.session.queue_deferred(DeferredEvent {
                        table: rel.oid,
                        constraint: c.oid,
                        referenced: false,
                        key: Box::new([]),
                        trigger: None,
                    })?;
                } else if let Some(step) =
                    outcome(engine::recheck_unique_whole(rel, index, cell), rel, cx)?
                {
                    return Ok(Some(step));
                }
            }
            self.whole_done += 1;
        }
        Ok(None)
    }
}

/// What a recheck's result means for the statement: an error (23505), a wait, or nothing.
pub(super) fn outcome(r: Result<(), WriteError>, rel: &Rel, cx: &EvalCx) -> PgResult<Option<Step>> {
    match r {
        Ok(()) => Ok(None),
        Err(WriteError::Unique { index, key }) => Err(unique_violation(rel, index, &key, cx)),
        Err(WriteError::Wait(c)) => Ok(Some(Step::Wait(c))),
        Err(WriteError::Log(e)) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sql::engine::Key;
    use crate::sql::types::Value;

    fn key(index: Oid, bytes: usize) -> Recheck {
        Recheck {
            index,
            key: Key(vec![Value::Text("x".repeat(bytes))].into_boxed_slice()),
        }
    }

    #[test]
    fn past_the_bound_keys_become_whole_checks() {
        let mut r = Rechecks::default();
        r.sink().push(key(1, 10));
        r.settle();
        assert_eq!((r.keys.len(), r.whole.len()), (1, 0));
        for _ in 0..5 {
            r.sink().push(key(2, WORK_MEM / 4));
            r.settle();
        }
        assert!(r.keys.is_empty());
        assert_eq!(r.whole, vec![1, 2]);
        // Later keys of an index checked whole are not kept; those of another index are.
        r.sink().push(key(2, 10));
        r.sink().push(key(3, 10));
        r.settle();
        assert_eq!(r.keys.len(), 1);
        assert_eq!(r.keys[0].index, 3);
    }
}
