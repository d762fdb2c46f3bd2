//! INSERT ... ON CONFLICT, one proposed row at a time (PostgreSQL's ExecInsert with its
//! speculative insertion, and ExecOnConflictUpdate).
//!
//! For each row: look for a live row holding its key in an arbiter index. None: insert (the
//! insert checks every unique index again under the key locks; a conflict in an arbiter index
//! there means a row was committed meanwhile, and the row is looked at again). A transaction
//! in progress inserting or deleting the key: wait for its end (`Step::Wait`), then look again,
//! so that its row is updated if it committed and ours inserted if it aborted. A conflicting
//! row: DO NOTHING skips the proposed row; DO UPDATE locks the existing row as UPDATE would
//! (waiting for its holder), re-reads it, checks the WHERE and writes the new version.
//!
//! As in PostgreSQL: a row this very command inserted or updated cannot be updated again
//! (21000), and under REPEATABLE READ a conflicting row the transaction's snapshot does not
//! see is a serialization failure (40001), as is one updated or deleted concurrently.

use crate::error::{code, PgError, PgResult};
use crate::sql::engine::{self, Changed, Conflict, Rel, WriteError};
use crate::sql::exec::EvalCx;
use crate::sql::plan::modify::on_conflict::{ConflictAction, OnConflict};
use crate::sql::plan::modify::Modify;
use crate::sql::types::Value;
use crate::storage::RowId;
use crate::txn::Isolation;
use crate::txn::Snapshot;

use super::table::{complete_row, serialization_failure, unique_violation, Access};
use super::Row;

/// How many times one proposed row is looked at again after the rows it met changed between
/// the look and the write (each time another transaction committed a change to the key just
/// then). PostgreSQL retries without a bound; this one only keeps a bug from spinning forever.
const MAX_RETRIES: usize = 10_000;

/// What became of one proposed row.
pub(super) enum Upserted {
    /// Inserted (None), or the existing row (Some) updated: the new row (for RETURNING and
    /// the count).
    Written(Option<Row>, Row),
    /// Not written (DO NOTHING, or DO UPDATE whose WHERE is not true).
    Skipped,
    /// Another transaction in progress holds the key or the row: wait, then call again.
    Wait(crate::sync::Arc<crate::txn::TxnCell>),
}

fn cannot_affect_twice() -> PgError {
    PgError::new(
        code::CARDINALITY_VIOLATION,
        "ON CONFLICT DO UPDATE command cannot affect row a second time",
    )
    .with_hint(
        "Ensure that no rows proposed for insertion within the same command have duplicate constrained values.",
    )
}

/// Whether the version at `id` was written by this very command (visible to the command after
/// it, not to this one).
fn written_by_this_command(rel: &Rel, id: RowId, snap: &Snapshot) -> bool {
    let next = Snapshot {
        csn: 0, // no other transaction's commit: only our own writes
        top: snap.top,
        cid: snap.cid + 1,
    };
    snap.top != 0
        && engine::read(rel, id, &next, |_| ()).is_some()
        && engine::read(rel, id, snap, |_| ()).is_none()
}

/// Under REPEATABLE READ, a conflicting row must be visible to the transaction's snapshot
/// (PostgreSQL's ExecCheckTupleVisible); rows of this transaction always are for this purpose.
fn check_visible(
    rel: &Rel,
    id: RowId,
    access: &Access,
    own: bool,
    cx: &mut EvalCx,
) -> PgResult<()> {
    if cx.session.isolation() >= Isolation::RepeatableRead
        && !own
        && engine::read(rel, id, &access.snap, |_| ()).is_none()
    {
        return Err(serialization_failure());
    }
    Ok(())
}

/// Inserts `row` (already checked against NOT NULL and CHECK) or takes the conflict action.
/// `target` is where: the statement's table, or for a partitioned one the leaf its row was
/// routed to, with the arbiters (positions in its indexes) that match the table's.
pub(super) fn upsert(
    m: &Modify,
    target: (&Rel, &[usize]),
    oc: &OnConflict,
    row: &[Value],
    access: &Access,
    cx: &mut EvalCx,
    defer: &mut Vec<engine::Recheck>,
) -> PgResult<Upserted> {
    let (rel, arbiters) = target;
    let width = rel.columns.len();
    // An arbiter must decide at once whether the key is taken (ExecCheckIndexConstraints).
    if let Some(d) = arbiters
        .iter()
        .map(|&i| &rel.indexes[i])
        .find(|d| rel.deferrable_key(d.oid).is_some())
    {
        return Err(PgError::new(
            code::OBJECT_NOT_IN_PREREQUISITE_STATE,
            "ON CONFLICT does not support deferrable unique constraints/exclusion constraints as arbiters",
        )
        .with_table(&rel.name.schema, &rel.name.name)
        .with_constraint(&d.name));
    }
    let rr = cx.session.isolation() >= Isolation::RepeatableRead;
    for _ in 0..MAX_RETRIES {
        let id = match engine::find_conflict(rel, arbiters, row, &access.cell) {
            Conflict::Wait(c) => return Ok(Upserted::Wait(c)),
            Conflict::None => {
                match engine::insert(rel, row, &access.writer(false), Some(&mut *defer)) {
                    Ok(_) => return Ok(Upserted::Written(None, row.to_vec())),
                    Err(WriteError::Unique { index, .. })
                        if arbiters.iter().any(|&i| rel.indexes[i].oid == index) =>
                    {
                        continue; // committed just now: look again
                    }
                    Err(WriteError::Unique { index, key }) => {
                        return Err(unique_violation(rel, index, &key, cx))
                    }
                    Err(WriteError::Wait(c)) => return Ok(Upserted::Wait(c)),
                    Err(WriteError::Log(e)) => return Err(e),
                }
            }
            Conflict::Row(id) => id,
        };
        let own = written_by_this_command(rel, id, &access.snap);
        let (sets, pred) = match &oc.action {
            ConflictAction::Nothing => {
                check_visible(rel, id, access, own, cx)?;
                return Ok(Upserted::Skipped);
            }
            ConflictAction::Update { sets, pred } => (sets, pred),
        };
        if own {
            return Err(cannot_affect_twice());
        }
        // Lock the row as UPDATE would, whatever the snapshot: under READ COMMITTED the newest
        // committed version is the one updated.
        let w = access.writer(true);
        match engine::delete(rel, id, &w, true) {
            Ok(Changed::Done(_)) => {}
            Ok(Changed::Concurrent(next)) => {
                if rr {
                    return Err(match next {
                        Some(_) => serialization_failure(),
                        None => PgError::new(
                            code::T_R_SERIALIZATION_FAILURE,
                            "could not serialize access due to concurrent delete",
                        ),
                    });
                }
                continue; // changed since it was found: look again
            }
            Ok(Changed::Skipped) => continue,
            Err(WriteError::Wait(c)) => return Ok(Upserted::Wait(c)),
            Err(WriteError::Log(e)) => return Err(e),
            Err(WriteError::Unique { .. }) => {
                return Err(PgError::internal("unique check while locking"))
            }
        }
        check_visible(rel, id, access, false, cx)?;
        let Some(existing) = engine::read_latest(rel, id, |d| d.to_vec()) else {
            continue;
        };
        // SET and WHERE see the existing row, then the proposed one (`excluded`).
        let mut both = Vec::with_capacity(2 * width);
        both.extend_from_slice(&existing);
        both.extend_from_slice(&row[..width]);
        if let Some(p) = pred {
            if !matches!(p.eval(&both, cx)?, Value::Bool(true)) {
                return Ok(Upserted::Skipped); // stays locked, as in PostgreSQL
            }
        }
        let mut new = existing.clone();
        for (col, e) in sets {
            new[*col] = e.eval(&both, cx)?;
        }
        if let Some(t) = &m.triggers {
            // The row is locked: its BEFORE UPDATE triggers may change or skip the update.
            let set: Vec<usize> = sets.iter().map(|(c, _)| *c).collect();
            let event = crate::catalog::triggers::UPDATE;
            match super::trigger::Firing::before_row(
                t,
                rel,
                event,
                &set,
                Some(&existing),
                Some(new),
                cx,
            )? {
                Some(r) => new = r,
                None => return Ok(Upserted::Skipped),
            }
        }
        complete_row(m, &mut new, cx)?;
        if m.rel.partition_key().is_some() {
            super::partition_route::upsert_stays(rel, &new, cx)?;
        }
        match engine::update(
            rel,
            id,
            &existing,
            new.clone().into_boxed_slice(),
            &w,
            Some(&mut *defer),
        ) {
            Ok(Changed::Done(_)) => return Ok(Upserted::Written(Some(existing), new)),
            Ok(_) => continue,
            Err(WriteError::Unique { index, key }) => {
                return Err(unique_violation(rel, index, &key, cx))
            }
            Err(WriteError::Wait(c)) => return Ok(Upserted::Wait(c)),
            Err(WriteError::Log(e)) => return Err(e),
        }
    }
    Err(PgError::internal(
        "ON CONFLICT: the conflicting row kept changing",
    ))
}
