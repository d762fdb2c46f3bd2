//! A table's rows as a checkpoint writes and reads them: the packed bodies of the versions a
//! snapshot sees (`durable::checkpoint`), and rows put back with the restoring transaction's
//! cell (`durable::restore`). Rows cross this door as bytes in the packed format, which is
//! self-describing and so stays readable whatever the table's columns are.

use std::sync::Arc;

use super::packed::PackedRow;
use super::store::{KeyTree, RowHeap};
use super::TableData;
use crate::catalog::IndexDef;
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
    /// restore: every row there is live, so no uniqueness check is needed).
    pub fn rebuild_indexes(&self, indexes: &[IndexDef]) {
        for def in indexes {
            let mut entries = self.heap.root_ikeys(&def.columns);
            entries.sort_unstable();
            self.install_tree(def.oid, KeyTree::build(entries));
        }
    }
}
