//! Deferred foreign-key checks: the events of DEFERRABLE constraints whose checks wait for the
//! commit (`foreign_key::Queue` hands them to the session, which keeps them per transaction),
//! and how they run at COMMIT or SET CONSTRAINTS ... IMMEDIATE.
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

use std::sync::Arc;

use crate::catalog::{ConstraintKind, RelKind};
use crate::error::PgResult;
use crate::sql::context::SessionCtx;
use crate::sql::engine::{Key, Rel};
use crate::sql::types::Value;

use super::foreign_key::{Keys, Queue};
use super::{EvalCx, Step};

/// One deferred event: `table` is the table written, `referenced` tells a NO ACTION check of a
/// referenced key (the written table is the referenced one) from a referencing row's check.
#[derive(Debug, Clone)]
pub struct DeferredEvent {
    pub table: u32,
    pub constraint: u32,
    pub referenced: bool,
    pub key: Box<[Value]>,
}

impl DeferredEvent {
    /// Its share of the session's bound.
    pub fn bytes(&self) -> usize {
        super::row_bytes(&self.key) + std::mem::size_of::<DeferredEvent>()
    }
}

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
pub fn fire(cx: &mut dyn SessionCtx, mut events: Vec<DeferredEvent>, full: &[u32]) -> PgResult<()> {
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
        crate::sql::ddl::foreign_key::validate(cx, &child, &def, parent.as_deref())?;
    }
    // One run per table; a key queued by many rows is looked up once.
    events.sort_by(|a, b| {
        (a.table, a.constraint, a.referenced)
            .cmp(&(b.table, b.constraint, b.referenced))
            .then_with(|| Key(a.key.clone()).cmp(&Key(b.key.clone())))
    });
    events.dedup_by(|a, b| {
        (a.table, a.constraint, a.referenced) == (b.table, b.constraint, b.referenced)
            && a.key.len() == b.key.len()
            && a.key
                .iter()
                .zip(b.key.iter())
                .all(|(x, y)| crate::sql::engine::same_value(x, y))
    });
    let mut events = events.into_iter().peekable();
    while let Some(first) = events.next() {
        let oid = first.table;
        let Some(rel) = table(cx, oid)? else {
            while events.next_if(|e| e.table == oid).is_some() {}
            continue;
        };
        let mut queue = Queue::firing(Keys::of(&rel, cx)?);
        let mut pushed = queue.push_deferred(first.referenced, first.constraint, first.key)?;
        while let Some(e) = events.next_if(|e| e.table == oid) {
            pushed |= queue.push_deferred(e.referenced, e.constraint, e.key)?;
        }
        if !pushed {
            continue;
        }
        let (cell, cid) = cx.writer("COMMIT")?;
        loop {
            let mut ecx = EvalCx {
                params: &[],
                outer: Vec::new(),
                session: &mut *cx,
            };
            match queue.run(&rel, &cell, cid, &mut ecx)? {
                None => break,
                Some(Step::Wait(c)) => cx.wait_for(&c)?,
                Some(_) => cx.check_interrupts()?,
            }
        }
    }
    Ok(())
}
