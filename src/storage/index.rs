//! Ordered indexes: (key, row) entries in a concurrent B+-tree.
//!
//! An entry points at the root of a row's version chain (see `heap`); several versions with
//! different keys may point at the same root, and a key's entry stays until vacuum finds its
//! chain dead, so a lookup re-checks the key against the version it reaches. The tree is scc's
//! `TreeIndex` (lock-free reads, fine-grained writes), chosen over a hand-written tree: index
//! lookups are the hot path of `pgbench -S` and must not contend.
//!
//! Uniqueness needs more than the tree: two sessions inserting the same key must not both find
//! it absent. A unique index therefore has [`STRIPES`] key locks, picked by the key's hash; the
//! check for existing live entries and the insertion of the new entry happen under one of them,
//! and nobody waits for another transaction while holding it.

use std::hash::{Hash, Hasher};
use std::ops::Bound;

use super::RowId;
use crate::sync::{Mutex, MutexGuard};

/// Key locks of a unique index.
pub const STRIPES: usize = 64;

/// One index entry.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Entry<K> {
    pub key: K,
    pub row: RowId,
}

/// An ordered index over keys of type `K`.
pub struct Index<K: Ord + Clone + 'static> {
    tree: scc::TreeIndex<Entry<K>, ()>,
    stripes: Box<[Mutex<()>]>,
}

impl<K: Ord + Clone + Send + Sync + 'static> Default for Index<K> {
    fn default() -> Self {
        Index::new()
    }
}

impl<K: Ord + Clone + Send + Sync + 'static> Index<K> {
    pub fn new() -> Index<K> {
        Index {
            tree: scc::TreeIndex::new(),
            stripes: (0..STRIPES).map(|_| Mutex::new(())).collect(),
        }
    }

    /// Adds an entry (already present: nothing happens).
    pub fn insert(&self, key: K, row: RowId) {
        let _ = self.tree.insert_sync(Entry { key, row }, ());
    }

    pub fn remove(&self, key: &K, row: RowId) -> bool {
        // The tree compares whole entries; build the probe once.
        self.tree.remove_sync(&Entry {
            key: key.clone(),
            row,
        })
    }

    pub fn len(&self) -> usize {
        self.tree.len()
    }

    pub fn is_empty(&self) -> bool {
        self.tree.is_empty()
    }

    /// The key lock for `key` (unique checks hold it while looking and inserting).
    pub fn lock_key(&self, key: &K) -> MutexGuard<'_, ()>
    where
        K: Hash,
    {
        let mut h = rustc_hash::FxHasher::default();
        key.hash(&mut h);
        self.lock_hash(h.finish())
    }

    /// The key lock for a key whose hash is `hash` (for keys hashed in another form than `K`:
    /// keys that compare equal must hash equally).
    pub fn lock_hash(&self, hash: u64) -> MutexGuard<'_, ()> {
        self.stripes[(hash as usize) % STRIPES].lock()
    }

    /// Visits the entries between `lo` and `hi` in key order, at most `max` of them; `f`
    /// returns false to stop. Returns the last entry visited if the range may go on (to resume
    /// after it), None when it is exhausted or `f` stopped.
    pub fn scan(
        &self,
        lo: Bound<&K>,
        hi: Bound<&K>,
        after: Option<&Entry<K>>,
        max: usize,
        f: impl FnMut(&K, RowId) -> bool,
    ) -> Option<Entry<K>> {
        let lower = match after {
            Some(e) => Bound::Excluded(e.clone()),
            None => lower_bound(lo),
        };
        let guard = scc::Guard::new();
        visit(self.tree.range((lower, upper_bound(hi)), &guard), max, f)
    }

    /// [`scan`](Self::scan) in descending key order (ORDER BY ... DESC served by an index):
    /// resumes before `before`; returns the last entry visited if the range may go on.
    pub fn scan_back(
        &self,
        lo: Bound<&K>,
        hi: Bound<&K>,
        before: Option<&Entry<K>>,
        max: usize,
        f: impl FnMut(&K, RowId) -> bool,
    ) -> Option<Entry<K>> {
        let upper = match before {
            Some(e) => Bound::Excluded(e.clone()),
            None => upper_bound(hi),
        };
        let guard = scc::Guard::new();
        visit(
            self.tree.range((lower_bound(lo), upper), &guard).rev(),
            max,
            f,
        )
    }

    /// The rows of the entries whose key equals `key`.
    pub fn rows_of(&self, key: &K) -> Vec<RowId> {
        let mut rows = Vec::new();
        self.scan(
            Bound::Included(key),
            Bound::Included(key),
            None,
            usize::MAX,
            |_, r| {
                rows.push(r);
                true
            },
        );
        rows
    }
}

/// The first entry a scan from key bound `lo` may visit (entries of one key are ordered by row).
fn lower_bound<K: Clone>(lo: Bound<&K>) -> Bound<Entry<K>> {
    match lo {
        Bound::Included(k) => Bound::Included(Entry {
            key: k.clone(),
            row: 0,
        }),
        Bound::Excluded(k) => Bound::Excluded(Entry {
            key: k.clone(),
            row: RowId::MAX,
        }),
        Bound::Unbounded => Bound::Unbounded,
    }
}

/// The last entry a scan up to key bound `hi` may visit.
fn upper_bound<K: Clone>(hi: Bound<&K>) -> Bound<Entry<K>> {
    match hi {
        Bound::Included(k) => Bound::Included(Entry {
            key: k.clone(),
            row: RowId::MAX,
        }),
        Bound::Excluded(k) => Bound::Excluded(Entry {
            key: k.clone(),
            row: 0,
        }),
        Bound::Unbounded => Bound::Unbounded,
    }
}

/// Hands at most `max` entries of `entries` to `f`; the last one visited when more may follow
/// (to resume after it), None when they ran out or `f` stopped.
fn visit<'g, K: Clone + 'g, V: 'g>(
    entries: impl Iterator<Item = (&'g Entry<K>, &'g V)>,
    max: usize,
    mut f: impl FnMut(&K, RowId) -> bool,
) -> Option<Entry<K>> {
    let mut last: Option<&Entry<K>> = None;
    for (n, (e, _)) in entries.enumerate() {
        if n == max {
            return last.cloned();
        }
        if !f(&e.key, e.row) {
            return None;
        }
        last = Some(e);
    }
    None
}
