//! Deferred foreign-key checks: the events of DEFERRABLE constraints whose checks wait for the
//! commit (`foreign_key::Queue` hands them to the session, which keeps them per transaction),
//! and how they run at COMMIT or SET CONSTRAINTS ... IMMEDIATE. Deferred constraint triggers'
//! events (`exec::trigger` queues them) are kept and run the same way: each calls its
//! trigger's function with the rows, before the key checks.
//!
//! An event keeps the key, not the row: when it runs, a referencing key is looked up in the
//! referenced table first; if it is missing, the check fails only while a row with that key is
//! still in the referencing table (a row deleted, or updated to another key, since needs no
//! check: PostgreSQL skips the event of a dead row version; the update queued its own). A
//! NO ACTION event fails if the referenced key is gone and a referencing row remains, as at
//! the end of a statement. Errors are those of the immediate checks (23503).
//!
//! The session bounds what it keeps (`session::deferred`): past [`super::WORK_MEM`] bytes of
//! keys, the constraints of the events kept are re-checked whole at commit instead, by a scan
//! of the referencing table as ALTER TABLE ... ADD FOREIGN KEY checks it.
//!
//! A DEFERRABLE unique or primary key's event is the recheck of a key its index held twice
//! (`exec::unique_recheck`); one without a key, or the constraint checked whole, rechecks
//! every key of the index held more than once. Errors are those of the immediate check
//! (23505).

use std::sync::Arc;

use crate::catalog::{ConstraintDef, ConstraintKind, RelKind};
use crate::error::PgResult;
use crate::sql::context::SessionCtx;
use crate::sql::engine::{Key, Rel};

use super::foreign_key::{Keys, Queue};
use super::{EvalCx, Step};

use crate::sql::context::TriggerCall;
pub use crate::sql::context::{DeferredEvent, DeferredTrigger};

/// An event's share of the session's bound.
pub fn event_bytes(e: &DeferredEvent) -> usize {
    let rows = e.trigger.as_ref().map_or(0, |t| {
        std::mem::size_of::<DeferredTrigger>()
            + t.old.as_deref().map_or(0, super::row_bytes)
            + t.new.as_deref().map_or(0, super::row_bytes)
    });
    super::row_bytes(&e.key) + std::mem::size_of::<DeferredEvent>() + rows
}

/// Fires a deferred constraint trigger's event (its function's result is ignored, as an
/// AFTER trigger's is).
fn fire_trigger(cx: &mut dyn SessionCtx, t: &DeferredTrigger) -> PgResult<()> {
    // A command of its own: it sees every write made before it (PostgreSQL increments the
    // command counter and takes a new snapshot before firing deferred triggers).
    cx.next_command();
    let call = TriggerCall {
        def: &t.def,
        table: &t.table,
        event: t.event,
        old: t.old.as_deref(),
        new: t.new.as_deref(),
        transitions: &[],
    };
    cx.call_trigger(&t.function, &call)?;
    Ok(())
}

/// The index of a unique or primary key constraint.
fn key_index(c: &ConstraintDef) -> Option<u32> {
    match c.kind {
        ConstraintKind::PrimaryKey { index } | ConstraintKind::Unique { index } => Some(index),
        _ => None,
    }
}

/// Rechecks `key` of unique index `index` of `rel` (None: every key held more than once),
/// waiting for writers in progress.
fn recheck(cx: &mut dyn SessionCtx, rel: &Rel, index: u32, key: Option<&Key>) -> PgResult<()> {
    let (cell, _) = cx.writer("COMMIT")?;
    loop {
        cx.check_interrupts()?;
        let r = match key {
            Some(k) => crate::sql::engine::recheck_unique(rel, index, k, &cell),
            None => crate::sql::engine::recheck_unique_whole(rel, index, &cell),
        };
        let ecx = EvalCx {
            params: &[],
            outer: Vec::new(),
            session: &mut *cx,
        };
        match super::unique_recheck::outcome(r, rel, &ecx)? {
            None => return Ok(()),
            Some(Step::Wait(c)) => cx.wait_for(&c)?,
            Some(_) => {}
        }
    }
}

/// A table whose deferred events run, and its queue.
type Firing = (Arc<Rel>, Queue);

fn table(cx: &mut dyn SessionCtx, oid: u32) -> PgResult<Option<Arc<Rel>>> {
    let snap = cx.catalog_snapshot()?;
    Ok(cx
        .instance()
        .catalog
        .visible(&snap)
        .into_iter()
        .find(|r| r.oid == oid && r.kind == RelKind::Table))
}

/// Runs deferred checks: the constraints `full` over their whole referencing tables, then
/// `events` (those of a constraint or table dropped since have nothing to check).
pub fn fire(cx: &mut dyn SessionCtx, events: Vec<DeferredEvent>, full: &[u32]) -> PgResult<()> {
    // Constraint triggers first, in the order their events were queued.
    let (triggers, mut events): (Vec<_>, Vec<_>) =
        events.into_iter().partition(|e| e.trigger.is_some());
    for t in triggers.iter().filter_map(|e| e.trigger.as_deref()) {
        cx.check_interrupts()?;
        fire_trigger(cx, t)?;
    }
    for &constraint in full {
        cx.check_interrupts()?;
        let snap = cx.catalog_snapshot()?;
        let found = cx
            .instance()
            .catalog
            .visible(&snap)
            .into_iter()
            .find_map(|r| {
                let c = r.constraints.iter().find(|c| c.oid == constraint)?.clone();
                Some((r, c))
            });
        let Some((child, def)) = found else {
            continue;
        };
        if let Some(index) = key_index(&def) {
            recheck(cx, &child, index, None)?;
            continue;
        }
        let oid = child.oid;
        let ConstraintKind::ForeignKey { ref_table, .. } = &def.kind else {
            continue;
        };
        let parent = if *ref_table == oid {
            None
        } else {
            match table(cx, *ref_table)? {
                Some(p) => Some(p),
                None => continue,
            }
        };
        super::foreign_key::validate(cx, &child, &def, parent.as_deref())?;
    }
    // In the order they were queued (the first to fail is the one reported, as in PostgreSQL),
    // a key queued by many rows once.
    let mut order: Vec<usize> = (0..events.len()).collect();
    let same = |a: &DeferredEvent, b: &DeferredEvent| {
        (a.table, a.constraint, a.referenced) == (b.table, b.constraint, b.referenced)
            && a.key.len() == b.key.len()
            && a.key
                .iter()
                .zip(b.key.iter())
                .all(|(x, y)| crate::sql::engine::same_value(x, y))
    };
    order.sort_by(|&i, &j| {
        let (a, b) = (&events[i], &events[j]);
        (a.table, a.constraint, a.referenced)
            .cmp(&(b.table, b.constraint, b.referenced))
            .then_with(|| Key(a.key.clone()).cmp(&Key(b.key.clone())))
            .then(i.cmp(&j))
    });
    let mut repeated = vec![false; events.len()];
    for w in order.windows(2) {
        if same(&events[w[0]], &events[w[1]]) {
            repeated[w[1]] = true;
        }
    }
    // The tables met so far, with their foreign keys (None: dropped since).
    let mut tables: Vec<(u32, Option<Firing>)> = Vec::new();
    let mut writer = None;
    for (e, _) in events
        .drain(..)
        .zip(repeated)
        .filter(|(_, repeated)| !repeated)
    {
        cx.check_interrupts()?;
        let at = match tables.iter().position(|(oid, _)| *oid == e.table) {
            Some(at) => at,
            None => {
                let found = match table(cx, e.table)? {
                    Some(rel) => {
                        let keys = Keys::of(&rel, cx)?;
                        Some((rel, Queue::firing(keys)))
                    }
                    None => None,
                };
                tables.push((e.table, found));
                tables.len() - 1
            }
        };
        let Some((rel, queue)) = &mut tables[at].1 else {
            continue;
        };
        let unique = rel.constraints.iter().find(|c| c.oid == e.constraint);
        if let Some(index) = unique.and_then(key_index) {
            let key = (!e.key.is_empty()).then_some(Key(e.key));
            recheck(cx, rel, index, key.as_ref())?;
            continue;
        }
        if !queue.push_deferred(e.referenced, e.constraint, e.key)? {
            continue;
        }
        let (cell, cid) = match &writer {
            Some(w) => w,
            None => writer.insert(cx.writer("COMMIT")?),
        };
        loop {
            let mut ecx = EvalCx {
                params: &[],
                outer: Vec::new(),
                session: &mut *cx,
            };
            match queue.run(rel, cell, *cid, &mut ecx)? {
                None => break,
                Some(Step::Wait(c)) => cx.wait_for(&c)?,
                Some(_) => cx.check_interrupts()?,
            }
        }
    }
    Ok(())
}
