//! A table's heap and index trees as SQL sees them: rows as values, keys as [`Key`]s.
//!
//! The reads are `pub(super)`: outside `engine` they are reached through `read.rs`, the read
//! side of the door.
//!
//! Storage holds rows packed ([`PackedRow`]) and keys compact ([`IKey`]); these wrappers decode
//! them at the door, so the executor and DDL keep reading `&[Value]` rows and `Key`s. A row is
//! decoded while its slot is locked (as the closures ran under the lock before), into a buffer
//! the closure borrows; a closure that keeps values clones them, as it did.

use std::hash::{Hash, Hasher};
use std::ops::Bound;

use super::ikey::IKey;
use super::packed::PackedRow;
use super::{Key, Row};
use crate::sql::types::Value;
use crate::storage::{Entry, Heap, Index, Probe, RowId};
use crate::sync::MutexGuard;
use crate::txn::{Snapshot, TxnCell};

/// A table's row versions (storage's [`Heap`] of packed rows). The closures get a decoded
/// `&Row`, as they got the stored row before rows were packed.
#[derive(Default)]
pub struct RowHeap(pub(super) Heap<PackedRow>);

/// Decodes `p` into `buf`'s allocation and runs `f` on it; `buf` keeps the allocation for the
/// next row (a table's rows have one length, so after the first row nothing is allocated for
/// the slice itself).
fn with_row<T>(p: &PackedRow, buf: &mut Vec<Value>, f: impl FnOnce(&Row) -> T) -> T {
    buf.clear();
    p.decode_into(buf);
    let row: Row = std::mem::take(buf).into_boxed_slice();
    let out = f(&row);
    *buf = row.into_vec();
    out
}

impl RowHeap {
    /// The header of the version in slot `id` (the system columns), None if it holds none.
    pub fn header(&self, id: RowId) -> Option<crate::storage::Header> {
        self.0.header(id)
    }

    /// The memory the row versions take: slots, headers and packed bodies.
    pub(super) fn bytes(&self) -> u64 {
        self.0.bytes(PackedRow::allocated)
    }

    /// Slots ever used (a scan's end).
    pub(super) fn len(&self) -> RowId {
        self.0.len()
    }

    pub(super) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Visits, in slot order from `from`, the versions `snap` sees among at most `max` slots;
    /// `f` returns false to stop early. Returns where to go on, or None at the end.
    pub(super) fn scan(
        &self,
        from: RowId,
        max: usize,
        snap: &Snapshot,
        mut f: impl FnMut(RowId, &Row) -> bool,
    ) -> Option<RowId> {
        let mut buf = Vec::new();
        self.0
            .scan(from, max, snap, |id, p| with_row(p, &mut buf, |r| f(id, r)))
    }

    /// Like [`RowHeap::scan`], each version handed over still packed: `f` decodes what it
    /// needs of it (see `read::scan_packed`).
    pub(super) fn scan_packed(
        &self,
        from: RowId,
        max: usize,
        snap: &Snapshot,
        f: impl FnMut(RowId, &PackedRow) -> bool,
    ) -> Option<RowId> {
        self.0.scan(from, max, snap, f)
    }

    /// Like [`RowHeap::scan`], each row given as an owned vector decoded once (no copy), with
    /// room for `spare` more values (a scan appends its row id there).
    pub(super) fn scan_owned(
        &self,
        from: RowId,
        max: usize,
        snap: &Snapshot,
        spare: usize,
        mut f: impl FnMut(RowId, Vec<Value>) -> bool,
    ) -> Option<RowId> {
        self.0
            .scan(from, max, snap, |id, p| f(id, p.decode_with_spare(spare)))
    }

    /// See `Heap::prefetch`.
    pub(super) fn prefetch(&self, roots: &[RowId]) {
        self.0.prefetch(roots, PackedRow::as_ptr)
    }

    /// Like [`RowHeap::fetch`], the version handed over still packed (see
    /// `read::fetch_packed`).
    /// The version in slot `id` if `snap` sees it, no chain followed (a TID scan: a ctid
    /// names one version).
    pub(super) fn read_packed<T>(
        &self,
        id: RowId,
        snap: &Snapshot,
        f: impl FnOnce(&PackedRow) -> T,
    ) -> Option<T> {
        self.0.read(id, snap, f)
    }

    pub(super) fn fetch_packed<T>(
        &self,
        root: RowId,
        snap: &Snapshot,
        f: impl FnOnce(RowId, &PackedRow) -> T,
    ) -> Option<(RowId, T)> {
        self.0.fetch(root, snap, f)
    }

    /// The version of the chain rooted at `root` that `snap` sees (see `Heap::fetch`).
    pub(super) fn fetch<T>(
        &self,
        root: RowId,
        snap: &Snapshot,
        f: impl FnOnce(RowId, &Row) -> T,
    ) -> Option<(RowId, T)> {
        self.0.fetch(root, snap, |id, p| {
            with_row(p, &mut Vec::new(), |r| f(id, r))
        })
    }

    /// For a unique check: whether the chain rooted at `root` holds a version whose `columns`
    /// equal `key` (as an index compares them) that is live or may become live, whoever's
    /// snapshot (see `Heap::probe`). Only the key columns of each version are decoded.
    pub fn probe_key(&self, root: RowId, me: &TxnCell, columns: &[usize], key: &Key) -> Probe {
        self.0.probe(root, me, |p| {
            super::cmp_slices(&p.columns(columns), &key.0).is_eq()
        })
    }

    /// [`RowHeap::probe_key`] for a key computed from the whole row (an expression index):
    /// whether a version for which `same` holds is live or may become live.
    pub(super) fn probe_row(
        &self,
        root: RowId,
        me: &TxnCell,
        same: impl Fn(&Row) -> bool,
    ) -> Probe {
        self.0
            .probe(root, me, |p| with_row(p, &mut Vec::new(), &same))
    }

    /// Visits every chain root's newest version not rolled back (as [`RowHeap::root_ikeys`]
    /// reads them), decoded, in slot order; `f` returns false to stop.
    pub(super) fn for_each_root_row(&self, mut f: impl FnMut(RowId, &Row) -> bool) {
        let mut buf = Vec::new();
        let mut go = true;
        self.0.for_each_root(|root, p| {
            if go {
                go = with_row(p, &mut buf, |r| f(root, r));
            }
        });
    }

    /// Whether `snap` sees a version of the chain rooted at `root` (`fetch` without decoding
    /// the row).
    pub(super) fn sees(&self, root: RowId, snap: &Snapshot) -> bool {
        self.0.fetch(root, snap, |_, _| ()).is_some()
    }

    /// The version in slot `id` if `snap` sees it (no chain is followed).
    pub(super) fn read<T>(
        &self,
        id: RowId,
        snap: &Snapshot,
        f: impl FnOnce(&Row) -> T,
    ) -> Option<T> {
        self.0.read(id, snap, |p| with_row(p, &mut Vec::new(), f))
    }

    /// The slot of the version that replaced the one at `id` (its update link), if any.
    pub(super) fn next_version(&self, id: RowId) -> Option<RowId> {
        self.0.next_version(id)
    }

    /// The newest committed-or-own version at `id` (see `Heap::read_latest`).
    pub(super) fn read_latest<T>(&self, id: RowId, f: impl FnOnce(&Row) -> T) -> Option<T> {
        self.0.read_latest(id, |p| with_row(p, &mut Vec::new(), f))
    }

    /// The stored-form key of every chain root for an index over `columns` (the newest version
    /// not rolled back, as `Heap::for_each_root` reads it; the other columns are skipped, not
    /// decoded), in slot order. Past [`PARALLEL_BUILD_MIN`] slots the heap
    /// is cut into one range per core (at most [`MAX_BUILD_WORKERS`]) read by scoped threads
    /// at once; their parts are joined in order.
    pub(super) fn root_ikeys(&self, columns: &[usize]) -> Vec<(IKey, RowId)> {
        let len = self.0.len();
        let workers = crate::cpus::count().min(MAX_BUILD_WORKERS);
        let slots = usize::try_from(len).unwrap_or(usize::MAX);
        if slots < PARALLEL_BUILD_MIN || workers < 2 {
            let mut out = Vec::with_capacity(slots);
            self.root_ikeys_in(0..len, columns, &mut out);
            return out;
        }
        let per = len.div_ceil(workers as RowId);
        let parts: Vec<Vec<(IKey, RowId)>> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..workers as RowId)
                .map(|w| {
                    let range = (w * per).min(len)..((w + 1) * per).min(len);
                    s.spawn(move || {
                        crate::cpus::unbind_current_thread();
                        let mut out =
                            Vec::with_capacity(range.end.saturating_sub(range.start) as usize);
                        self.root_ikeys_in(range, columns, &mut out);
                        out
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
                .collect()
        });
        // The first part grows in place (a large vector is remapped, not copied).
        let total: usize = parts.iter().map(Vec::len).sum();
        let mut parts = parts.into_iter();
        let mut out = parts.next().unwrap_or_default();
        out.reserve_exact(total - out.len());
        for part in parts {
            out.extend(part);
        }
        out
    }

    fn root_ikeys_in(
        &self,
        slots: std::ops::Range<RowId>,
        columns: &[usize],
        out: &mut Vec<(IKey, RowId)>,
    ) {
        match *columns {
            [c] => self.0.for_each_root_in(slots, |root, p| {
                out.push((IKey::of(std::slice::from_ref(&p.column(c))), root))
            }),
            _ => self.0.for_each_root_in(slots, |root, p| {
                out.push((IKey::of(&p.columns(columns)), root))
            }),
        }
    }
}

/// A key as a tree visit shows it: the values of one entry (built on the stack for an inline
/// key, so a lookup allocates nothing per entry it passes).
pub struct KeyRef<'a>(pub &'a [Value]);

/// Below this many slots an index build's scan is made by the calling thread alone.
pub const PARALLEL_BUILD_MIN: usize = 100_000;
/// Most threads one index build's scan uses (PostgreSQL's max_parallel_maintenance_workers is
/// 2, plus the leader).
pub const MAX_BUILD_WORKERS: usize = 4;

/// An index's tree (storage's [`Index`] of compact keys).
#[derive(Default)]
pub struct KeyTree(Index<IKey>);

impl KeyTree {
    pub fn new() -> KeyTree {
        KeyTree(Index::new())
    }

    /// Adds an entry (already present: nothing happens).
    pub fn insert(&self, key: Key, row: RowId) {
        self.0.insert(IKey::from_key(key), row)
    }

    pub(super) fn insert_ikey(&self, key: IKey, row: RowId) {
        self.0.insert(key, row)
    }

    /// A tree holding `entries` (in key order), as CREATE INDEX builds it: past
    /// [`PARALLEL_BUILD_MIN`] entries, cut in key ranges that one thread each fills in key
    /// order, at most one per core and [`MAX_BUILD_WORKERS`] (see `storage::index` for why
    /// not several threads in one tree). The scan that collects the entries runs in parallel
    /// too ([`RowHeap::root_ikeys`]).
    pub fn build(entries: Vec<(IKey, RowId)>) -> KeyTree {
        let threads = crate::cpus::count().min(MAX_BUILD_WORKERS);
        KeyTree(Index::build(
            entries,
            threads,
            PARALLEL_BUILD_MIN,
            crate::cpus::unbind_current_thread,
        ))
    }

    /// Key ranges the tree is cut into.
    pub fn parts(&self) -> usize {
        self.0.parts()
    }

    pub fn remove(&self, key: &Key, row: RowId) -> bool {
        self.0.remove(&IKey::of(&key.0), row)
    }

    pub(super) fn remove_ikey(&self, key: &IKey, row: RowId) -> bool {
        self.0.remove(key, row)
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// The memory the entries take: their slots, and the values of keys not stored inline.
    pub fn bytes(&self) -> u64 {
        self.0.bytes(|k| match k {
            IKey::Vals(v) => {
                std::mem::size_of::<usize>()
                    + std::mem::size_of_val(v.as_slice())
                    + v.as_slice().iter().map(value_heap_bytes).sum::<usize>()
            }
            _ => 0,
        })
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The key lock for `key` (unique checks hold it while looking and inserting). Hashed in
    /// the engine's form, whose hash is equal for keys that compare equal.
    pub fn lock_key(&self, key: &Key) -> MutexGuard<'_, ()> {
        let mut h = rustc_hash::FxHasher::default();
        key.hash(&mut h);
        self.0.lock_hash(h.finish())
    }

    /// Visits the entries between `lo` and `hi` in key order, at most `max` of them, starting
    /// after `after` if given; `f` returns false to stop. Returns the last entry visited if the
    /// range may go on (to resume after it), None when it is exhausted or `f` stopped.
    pub(super) fn scan(
        &self,
        lo: Bound<&Key>,
        hi: Bound<&Key>,
        after: Option<&Entry<Key>>,
        max: usize,
        mut f: impl FnMut(&KeyRef<'_>, RowId) -> bool,
    ) -> Option<Entry<Key>> {
        let (lo, hi, after) = (ikey_bound(lo), ikey_bound(hi), after.map(ikey_entry));
        let last = self
            .0
            .scan(lo.as_ref(), hi.as_ref(), after.as_ref(), max, |k, row| {
                k.with_values(|v| f(&KeyRef(v), row))
            });
        last.map(key_entry)
    }

    /// [`scan`](Self::scan) in descending key order, resuming before `before` (ORDER BY ...
    /// DESC read from an index).
    pub(super) fn scan_back(
        &self,
        lo: Bound<&Key>,
        hi: Bound<&Key>,
        before: Option<&Entry<Key>>,
        max: usize,
        mut f: impl FnMut(&KeyRef<'_>, RowId) -> bool,
    ) -> Option<Entry<Key>> {
        let (lo, hi, before) = (ikey_bound(lo), ikey_bound(hi), before.map(ikey_entry));
        let last = self
            .0
            .scan_back(lo.as_ref(), hi.as_ref(), before.as_ref(), max, |k, row| {
                k.with_values(|v| f(&KeyRef(v), row))
            });
        last.map(key_entry)
    }

    /// The rows of the entries whose key equals `key`.
    pub(super) fn rows_of(&self, key: &Key) -> Vec<RowId> {
        self.rows_of_ikey(&IKey::of(&key.0))
    }

    pub(super) fn rows_of_ikey(&self, key: &IKey) -> Vec<RowId> {
        self.0.rows_of(key)
    }
}

/// A scan bound in the stored key form.
fn ikey_bound(b: Bound<&Key>) -> Bound<IKey> {
    match b {
        Bound::Included(k) => Bound::Included(IKey::of(&k.0)),
        Bound::Excluded(k) => Bound::Excluded(IKey::of(&k.0)),
        Bound::Unbounded => Bound::Unbounded,
    }
}

/// A resume position in the stored key form, and back.
fn ikey_entry(e: &Entry<Key>) -> Entry<IKey> {
    Entry {
        key: IKey::of(&e.key.0),
        row: e.row,
    }
}

fn key_entry(e: Entry<IKey>) -> Entry<Key> {
    Entry {
        key: e.key.to_key(),
        row: e.row,
    }
}

/// What a value owns outside itself (a string's or byte string's bytes; others are counted
/// by their size alone).
fn value_heap_bytes(v: &Value) -> usize {
    match v {
        Value::Text(s) => s.capacity(),
        Value::Bytea(b) => b.capacity(),
        _ => 0,
    }
}
