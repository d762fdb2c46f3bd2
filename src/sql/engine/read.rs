//! Reads: the narrow interface through which the planner, the executor, DDL and the runtime
//! see a table's rows and index entries, as the writes of `engine.rs` are the only way to
//! change them.
//!
//! Why a door for reads too: code outside `engine` never holds a table's heap or an index
//! tree, so what stores them (the packed rows and compact keys of `store.rs` today, whatever
//! the write-ahead log's recovery or another storage needs tomorrow) can change behind these
//! functions without touching the SQL layer, and a test can see every way rows are read.
//!
//! Each function is one call into `store.rs` (inlined; no copy, no lock beyond what the store
//! takes): a visit decodes a row while its slot is locked and hands the closure a borrowed
//! `&Row`, except [`scan_owned`], which hands over the decoded row. Nothing here waits.

use std::ops::Bound;

use super::{IKey, Key, KeyRef, Rel, Row};
use crate::catalog::{IndexDef, Oid};
use crate::error::PgResult;
use crate::sql::types::Value;
use crate::storage::{Entry, RowId};
use crate::sync::Arc;
use crate::txn::ssi::Xact;
use crate::txn::Snapshot;

/// Slots the table's heap ever used: where a scan ends, and the planner's rough size.
#[inline]
pub fn versions(rel: &Rel) -> RowId {
    rel.data.heap.len()
}

/// Whether the table's heap never used a slot.
#[inline]
pub fn is_empty(rel: &Rel) -> bool {
    rel.data.heap.is_empty()
}

/// Visits, in slot order from `from`, the versions `snap` sees among at most `max` slots; `f`
/// returns false to stop early. Returns where to go on, or None at the end.
#[inline]
pub fn scan(
    rel: &Rel,
    from: RowId,
    max: usize,
    snap: &Snapshot,
    f: impl FnMut(RowId, &Row) -> bool,
) -> Option<RowId> {
    rel.data.heap.scan(from, max, snap, f)
}

/// [`scan`], each row an owned vector decoded once, with room for `spare` more values (a scan
/// appends its row id there).
#[inline]
pub fn scan_owned(
    rel: &Rel,
    from: RowId,
    max: usize,
    snap: &Snapshot,
    spare: usize,
    f: impl FnMut(RowId, Vec<Value>) -> bool,
) -> Option<RowId> {
    rel.data.heap.scan_owned(from, max, snap, spare, f)
}

/// [`scan`], each visible version handed to `f` packed, to decode as much of it as it needs
/// (`PackedRow::decode_marked` for a filter's columns, `decode_with_spare` for the whole row).
/// `f` runs under the version's slot lock: it must be quick and must not reach storage.
#[inline]
pub fn scan_packed(
    rel: &Rel,
    from: RowId,
    max: usize,
    snap: &Snapshot,
    f: impl FnMut(RowId, &super::packed::PackedRow) -> bool,
) -> Option<RowId> {
    rel.data.heap.scan_packed(from, max, snap, f)
}

/// The version of the chain rooted at `root` (an index entry's row) that `snap` sees, with
/// its slot.
#[inline]
pub fn fetch<T>(
    rel: &Rel,
    root: RowId,
    snap: &Snapshot,
    f: impl FnOnce(RowId, &Row) -> T,
) -> Option<(RowId, T)> {
    rel.data.heap.fetch(root, snap, f)
}

/// [`fetch`], the version handed to `f` packed, to decode as much of it as it needs (an index
/// scan decodes the columns its query reads). `f` runs under the version's slot lock.
#[inline]
pub fn fetch_packed<T>(
    rel: &Rel,
    root: RowId,
    snap: &Snapshot,
    f: impl FnOnce(RowId, &super::packed::PackedRow) -> T,
) -> Option<(RowId, T)> {
    rel.data.heap.fetch_packed(root, snap, f)
}

/// The version in slot `slot` if `snap` sees it (a TID scan; no chain is followed).
pub fn read_packed<T>(
    rel: &Rel,
    slot: RowId,
    snap: &Snapshot,
    f: impl FnOnce(&super::packed::PackedRow) -> T,
) -> Option<T> {
    rel.data.heap.read_packed(slot, snap, f)
}

/// Hints the CPU to load what fetching the chains rooted at `roots` reads (an index scan's
/// batch, before it fetches them one by one).
#[inline]
pub fn prefetch(rel: &Rel, roots: &[RowId]) {
    rel.data.heap.prefetch(roots)
}

/// Whether `snap` sees a version of the chain rooted at `root` ([`fetch`] without decoding).
#[inline]
pub fn sees(rel: &Rel, root: RowId, snap: &Snapshot) -> bool {
    rel.data.heap.sees(root, snap)
}

/// The version in slot `id` if `snap` sees it (no chain is followed).
#[inline]
pub fn read<T>(rel: &Rel, id: RowId, snap: &Snapshot, f: impl FnOnce(&Row) -> T) -> Option<T> {
    rel.data.heap.read(id, snap, f)
}

/// The newest committed-or-own version at slot `id` (READ COMMITTED's re-check of a row
/// that changed under a write or a lock).
#[inline]
pub fn read_latest<T>(rel: &Rel, id: RowId, f: impl FnOnce(&Row) -> T) -> Option<T> {
    rel.data.heap.read_latest(id, f)
}

/// The slot of the version that replaced the one at `id` (its update link), if any.
#[inline]
pub fn next_version(rel: &Rel, id: RowId) -> Option<RowId> {
    rel.data.heap.next_version(id)
}

/// Visits the entries of index `index` between `lo` and `hi` in key order, at most `max` of
/// them, starting after `after` if given; `f` gets each entry's key and chain root and returns
/// false to stop. Returns the last entry visited if the range may go on (to resume after it).
/// An entry may be stale (its chain moved to another key): the caller checks the version it
/// fetches.
#[inline]
pub fn index_scan(
    rel: &Rel,
    index: Oid,
    lo: Bound<&Key>,
    hi: Bound<&Key>,
    after: Option<&Entry<Key>>,
    max: usize,
    f: impl FnMut(&KeyRef<'_>, RowId) -> bool,
) -> Option<Entry<Key>> {
    rel.data.tree(index).scan(lo, hi, after, max, f)
}

/// [`index_scan`] in descending key order, resuming before `before`.
#[inline]
pub fn index_scan_back(
    rel: &Rel,
    index: Oid,
    lo: Bound<&Key>,
    hi: Bound<&Key>,
    before: Option<&Entry<Key>>,
    max: usize,
    f: impl FnMut(&KeyRef<'_>, RowId) -> bool,
) -> Option<Entry<Key>> {
    rel.data.tree(index).scan_back(lo, hi, before, max, f)
}

/// Every chain root's key in index `def` in the stored form, in slot order: the entries a
/// new index over the table starts with (CREATE INDEX; see `RowHeap::root_ikeys`). A partial
/// index leaves out the rows its predicate does not accept; an expression that fails on a row
/// fails the build.
pub fn root_keys(rel: &Rel, def: &IndexDef) -> PgResult<Vec<(IKey, RowId)>> {
    rel.data.root_keys_in(&rel.columns, def)
}

/// The memory the table's row versions take (live and dead, until vacuum reclaims them):
/// pg_relation_size of a table.
pub fn heap_bytes(rel: &Rel) -> u64 {
    rel.data.heap.bytes()
}

/// The memory index `index` of the table takes: pg_relation_size of an index.
pub fn index_bytes(rel: &Rel, index: Oid) -> u64 {
    rel.data.tree(index).bytes()
}

/// SERIALIZABLE reads leave SIREAD locks and look for concurrent writers (`txn::ssi`): a
/// sequential scan of `rel` is about to start (it reads every version, so it locks the
/// relation).
pub fn predicate_relation(rel: &Rel, x: &Arc<Xact>) -> PgResult<()> {
    x.manager().read_relation(x, rel.oid)
}

/// An index scan of `index` is about to read a range of it (the whole index is locked, as
/// PostgreSQL's leaf-page lock covers a small index).
pub fn predicate_index(index: Oid, x: &Arc<Xact>) -> PgResult<()> {
    x.manager().read_index(x, index)
}

/// An index scan visited the entry of chain root `root` (its version may be invisible).
pub fn predicate_root(rel: &Rel, root: RowId, x: &Arc<Xact>) -> PgResult<()> {
    x.manager().read_root(x, rel.oid, root)
}

/// The version at `slot` was read.
pub fn predicate_tuple(rel: &Rel, slot: RowId, x: &Arc<Xact>) -> PgResult<()> {
    x.manager().read_tuple(x, rel.oid, slot)
}
