//! The conflict check of INSERT ... ON CONFLICT: which live row, if any, holds a proposed
//! row's key in one of the arbiter indexes (PostgreSQL's `ExecCheckIndexConstraints` with its
//! dirty snapshot). It only looks: the insert that follows checks every unique index again under
//! the key locks, so a row committed in between is found there (and the caller looks again).

use crate::storage::{Probe, RowId};
use crate::sync::Arc;
use crate::txn::TxnCell;

use super::{Rel, Value};

/// What the conflict check found.
#[derive(Debug)]
pub enum Conflict {
    /// No arbiter index holds the key of a live row (or of one about to be).
    None,
    /// The live version (slot) of the first row found holding a key, in arbiter order.
    Row(RowId),
    /// A transaction in progress is inserting or deleting a row with the key: wait for it to
    /// end, then check again.
    Wait(Arc<TxnCell>),
}

/// Looks for a row that conflicts with `row` in the indexes at `arbiters` (positions in
/// `rel.indexes`), as `me` sees them: its own changes, and every commit.
pub fn find_conflict(rel: &Rel, arbiters: &[usize], row: &[Value], me: &TxnCell) -> Conflict {
    for &i in arbiters {
        let Some(def) = rel.indexes.get(i) else {
            continue;
        };
        let key = match super::key_of(rel, def, row) {
            Ok(Some(k)) => k,
            // Not in this partial index; or the expression fails on the row, which the insert
            // that follows reports.
            Ok(None) | Err(_) => continue,
        };
        if key.has_null() {
            continue; // NULLs never conflict
        }
        let tree = rel.data.tree(def.oid);
        // Held while looking, as the inserters' checks hold it: a row is either fully in (heap
        // and index) or not yet, for this look.
        let _guard = tree.lock_key(&key);
        for root in tree.rows_of(&key) {
            match super::probe_key(rel, def, root, me, &key) {
                Probe::Dead => {}
                Probe::Live(id) => return Conflict::Row(id),
                Probe::Wait(c) => return Conflict::Wait(c),
            }
        }
    }
    Conflict::None
}
