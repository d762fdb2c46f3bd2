//! SELECT ... FOR UPDATE / NO KEY UPDATE / SHARE / KEY SHARE: locks the rows of the locked
//! tables that each input row was made from, before passing it on (plan/lock_rows.rs has the
//! plan's shape: this node is above the sort and below LIMIT).
//!
//! A row another transaction holds makes the operator keep the row and return `Step::Wait`
//! (NOWAIT: 55P03; SKIP LOCKED: the row is passed by). A row updated by a transaction that
//! committed after the snapshot fails REPEATABLE READ (40001); under READ COMMITTED its newest
//! version replaces the table's columns in the FROM row, the WHERE clause is re-checked, the
//! projected columns are computed again, and that version is locked (PostgreSQL's
//! EvalPlanQual, for the updated row's table).

use crate::error::{code, PgError, PgResult};
use crate::sql::engine::{self, Changed, WriteError};
use crate::sql::exec::EvalCx;
use crate::sql::plan::lock_rows::LockSpec;
use crate::sql::plan::{LockWait, Plan};
use crate::sql::types::Value;
use crate::storage::RowId;
use crate::txn::Isolation;

use super::table::{serialization_failure, Access};
use super::{Budget, Operator, Row, Step};

pub(super) struct LockRows {
    input: Box<dyn Operator>,
    access: Option<Access>,
    /// A row waiting for another transaction's lock: the row, the target it waits on, and
    /// whether that target's version is a newer one found by READ COMMITTED's re-check.
    pending: Option<(Row, usize, bool)>,
}

/// What locking one target of a row came to.
enum Locked {
    /// Locked: go on with the next target.
    Next,
    /// Pass the row by (deleted meanwhile, no longer matching, SKIP LOCKED).
    Skip,
    /// Updated meanwhile: the row now holds the newer version; lock that.
    Again,
    Wait(Step),
}

impl LockRows {
    pub(super) fn new(input: Box<dyn Operator>) -> LockRows {
        LockRows {
            input,
            access: None,
            pending: None,
        }
    }

    fn lock(
        &mut self,
        spec: &LockSpec,
        row: &mut Row,
        k: usize,
        newer: bool,
        cx: &mut EvalCx,
    ) -> PgResult<Locked> {
        let t = &spec.targets[k];
        let id = match row.get(spec.from + t.rowid) {
            Some(Value::Int8(id)) => *id as RowId,
            // No row of this table (cannot happen: the nullable side of an outer join is
            // refused), nothing to lock.
            Some(Value::Null) => return Ok(Locked::Next),
            _ => return Err(PgError::internal("locked row without its slot")),
        };
        let access = Access::get(&mut self.access, cx, "SELECT FOR UPDATE")?;
        let w = access.writer(newer);
        match engine::lock(&t.rel, id, &w, t.mode) {
            Ok(Changed::Done(_)) => Ok(Locked::Next),
            Ok(Changed::Skipped) => Ok(Locked::Skip),
            Ok(Changed::Concurrent(next)) => {
                if cx.session.isolation() >= Isolation::RepeatableRead {
                    return Err(serialization_failure());
                }
                let Some(next) = next else {
                    return Ok(Locked::Skip); // deleted meanwhile
                };
                let Some(latest) = engine::read_latest(&t.rel, next, |d| d.to_vec()) else {
                    return Ok(Locked::Skip);
                };
                let start = spec.from + t.base;
                let n = latest.len().min(t.rel.columns.len());
                row[start..start + n].clone_from_slice(&latest[..n]);
                row[spec.from + t.rowid] = Value::Int8(next as i64);
                let (head, from_row) = row.split_at_mut(spec.from);
                if let Some(pred) = &spec.recheck {
                    if !matches!(pred.eval(from_row, cx)?, Value::Bool(true)) {
                        return Ok(Locked::Skip);
                    }
                }
                for (slot, e) in head.iter_mut().zip(&spec.exprs) {
                    *slot = e.eval(from_row, cx)?;
                }
                Ok(Locked::Again)
            }
            Err(WriteError::Wait(c)) => match t.wait {
                LockWait::Block => Ok(Locked::Wait(Step::Wait(c))),
                LockWait::Skip => Ok(Locked::Skip),
                LockWait::Error => Err(PgError::new(
                    code::LOCK_NOT_AVAILABLE,
                    format!(
                        "could not obtain lock on row in relation \"{}\"",
                        t.rel.name.name
                    ),
                )),
            },
            Err(WriteError::Log(e)) => Err(e),
            Err(WriteError::Unique { .. }) => Err(PgError::internal("unique check while locking")),
        }
    }
}

impl Operator for LockRows {
    fn next(&mut self, plan: &Plan, cx: &mut EvalCx, b: &mut Budget) -> PgResult<Step> {
        opened_from!(plan, LockRows, input, spec);
        'rows: loop {
            let (mut row, mut k, mut newer) = match self.pending.take() {
                Some(p) => p,
                None => match self.input.next(input, cx, b)? {
                    Step::Row(r) => (r, 0, false),
                    other => return Ok(other),
                },
            };
            while k < spec.targets.len() {
                match self.lock(spec, &mut row, k, newer, cx)? {
                    Locked::Next => {
                        k += 1;
                        newer = false;
                    }
                    Locked::Again => newer = true,
                    Locked::Skip => continue 'rows,
                    Locked::Wait(step) => {
                        self.pending = Some((row, k, newer));
                        return Ok(step);
                    }
                }
            }
            return Ok(Step::Row(row));
        }
    }
}
