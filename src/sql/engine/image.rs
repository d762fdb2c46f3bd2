//! A table's rows as a checkpoint writes and reads them: the packed bodies of the versions a
//! snapshot sees (`durable::checkpoint`), and rows put back with the restoring transaction's
//! cell (`durable::restore`). Rows cross this door as bytes in the packed format, which is
//! self-describing and so stays readable whatever the table's columns are.

use std::sync::Arc;

use super::packed::PackedRow;
use super::store::{KeyTree, RowHeap};
use super::IKey;
use super::TableData;
use crate::catalog::{ColumnDef, IndexDef};
use crate::error::PgResult;
use crate::storage::RowId;
use crate::txn::{Snapshot, TxnCell};

/// Slots read per visit of the heap while imaging it: the slot locks are taken one at a time,
/// and writers go on between visits.
const SCAN_CHUNK: usize = 4096;

impl RowHeap {
    /// Calls `f` with the slot and packed body of every version `snap` sees, in slot order.
    pub fn image_rows(&self, snap: &Snapshot, mut f: impl FnMut(RowId, &[u8])) {
        let mut from: RowId = 0;
        while let Some(next) = self.0.scan(from, SCAN_CHUNK, snap, |id, p| {
            f(id, p.body());
            true
        }) {
            from = next;
        }
    }

    /// Puts back a row whose packed body a checkpoint wrote, as a write of `cell`; returns
    /// the slot it got.
    pub fn restore_row(&self, body: &[u8], cell: &Arc<TxnCell>) -> RowId {
        self.0.insert(PackedRow::from_body(body), cell, 0)
    }
}

impl TableData {
    /// Builds the tree of every index in `indexes` over the rows the heap holds (after a
    /// restore: every row there is live, so no uniqueness check is needed). `columns` are the
    /// table's, over which expression indexes are evaluated; one that cannot be compiled fails.
    pub fn rebuild_indexes(&self, columns: &[ColumnDef], indexes: &[IndexDef]) -> PgResult<()> {
        for def in indexes {
            let mut entries = self.root_keys_in(columns, def)?;
            entries.sort_unstable();
            self.install_tree(def.oid, KeyTree::build(entries));
        }
        Ok(())
    }

    /// Every chain root's key in index `def` (of a table of `columns`) in the stored form, in
    /// slot order (see `read::root_keys`).
    pub(super) fn root_keys_in(
        &self,
        columns: &[ColumnDef],
        def: &IndexDef,
    ) -> PgResult<Vec<(IKey, RowId)>> {
        if def.exprs.is_none() && def.gin.is_none() {
            return Ok(self.heap.root_ikeys(&def.columns));
        }
        let mut out = Vec::new();
        let mut failed = None;
        if def.gin.is_some() {
            // An entry per key of each row (`gin`).
            self.heap
                .for_each_root_row(|root, row| match super::gin::keys_of(def, row) {
                    Ok(keys) => {
                        out.extend(keys.into_iter().map(|k| (k, root)));
                        true
                    }
                    Err(e) => {
                        failed = Some(e);
                        false
                    }
                });
            return match failed {
                Some(e) => Err(e),
                None => Ok(out),
            };
        }
        self.heap
            .for_each_root_row(|root, row| match self.key_in(columns, def, row) {
                Ok(Some(k)) => {
                    out.push((IKey::from_key(k), root));
                    true
                }
                Ok(None) => true,
                Err(e) => {
                    failed = Some(e);
                    false
                }
            });
        match failed {
            Some(e) => Err(e),
            None => Ok(out),
        }
    }
}
