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
//!
//! An index built over many rows (CREATE INDEX, ADD PRIMARY KEY) is cut into key ranges, one
//! tree each ([`Index::build`]), so that several threads can fill it at once, each its own
//! tree in key order. Several threads filling one tree came out worse: scc splits a full leaf
//! in two halves unless the key goes to the rightmost leaf of its parent, so the thread that
//! fills the lower keys left half-full leaves behind it, and `pgbench -S` read 6-7 % fewer rows
//! a second from that tree than from one filled by one thread. A tree filled in key order by
//! its own thread has full leaves, like one filled by a single thread. The ranges are fixed at
//! the build; later entries go to the range of their key, a lookup to one range (one compare
//! per range boundary first), and a scan goes on from one range into the next.
//!
//! Every tree holds a sentinel below all entries ([`Slot::Low`]), never removed, and a scan
//! down from above a tree's largest entry starts from its end instead: scc's search for the
//! start of a range (`approximate`) looks for an entry on the far side of the bound, and when
//! there is none it visits every leaf, each visit walking the leaf list: a lookup of a key
//! below all of a tree's keys took 1.1 s on 500,000 entries, growing with the square of the
//! size. A range boundary's key is below its tree's entries for the probe `(key, row 0)`, so a
//! ranged index met it on every lookup of that key. The sentinel costs no memory (it lives in
//! the niche of the key's enum tag, checked by a test) and sits at the left end, so a tree
//! filled in key order stays ordered; a high sentinel would sit where ascending inserts go.
//!
//! # Invariants
//!
//! 1. Every range's tree holds exactly one [`Slot::Low`]: `Part::new` inserts it, `remove`
//!    only ever removes a `Slot::Key`, and `len` / `is_empty` leave one entry per tree out.
//! 2. The ranges are fixed when the index is made: the first starts at the lowest key
//!    (asserted in `with_parts`), the others at ascending entries (`build` takes them from the
//!    sorted input's chunk starts); `insert` and `remove` route an entry to the last range
//!    whose start is at or below it (`part_of`), so range `i` holds only entries from its start
//!    up to range `i + 1`'s, and a scan visits the ranges in order (`first_part`..`last_part`).
//! 3. An entry is the pair (key, row), the tree's own key: it is present once at most, and
//!    inserting it again changes nothing.
//! 4. Keys that compare equal take the same key lock: `lock_key` hashes the key, and callers
//!    of `lock_hash` must hash equal keys equally (the engine hashes its `Key` of values for
//!    packed keys: `sql/engine/store.rs`, `KeyTree::lock_key`).
//!
//! # Who touches what, and locks
//!
//! Reads (`scan`, `scan_back`, `rows_of`, `len`) and writes (`insert`, `remove`) take no lock of
//! this module: scc's trees are read under an epoch guard and change leaf by leaf, so a scan
//! sees each entry present or absent, and returns where it stopped for the caller to resume. The
//! key locks are taken only by callers, one stripe per key, and this module never holds one:
//! the engine's unique check takes them in index order and holds them while it looks and
//! inserts (`sql/engine.rs`, `check_unique`), ON CONFLICT's check one at a time while it looks
//! (`sql/engine/conflict.rs`); neither waits for another transaction while holding one, they
//! return the transaction to wait for and drop the lock.
//! Two keys of one index may share a stripe; they then serialize, which is all it costs.
//!
//! # Bounds
//!
//! At most [`MAX_PARTS`] ranges (an index built with more threads gets that many; a build over
//! fewer than `min_per_thread` entries per thread gets fewer), and [`STRIPES`] key locks per
//! index whatever its size. A scan visits at most `max` entries per call. The trees grow
//! without bound; dead entries go when vacuum removes them (`engine::vacuum`).

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

/// Key ranges an index is cut into at most (one build thread each).
pub const MAX_PARTS: usize = 8;

/// An ordered index over keys of type `K`.
pub struct Index<K: Ord + Clone + 'static> {
    /// The key ranges in order: part `i` holds the entries from `parts[i].from` (the first
    /// part: from the lowest) up to the next part's `from`, excluded.
    parts: Box<[Part<K>]>,
    stripes: Box<[Mutex<()>]>,
}

struct Part<K: Ord + Clone + 'static> {
    /// The first entry of the range (None for the first part).
    from: Option<Entry<K>>,
    /// The entries, after a [`Slot::Low`] sentinel.
    tree: scc::TreeIndex<Slot<K>, ()>,
}

/// What a tree holds: the entries, above one sentinel (see the module's header).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Slot<K> {
    Low,
    Key(Entry<K>),
}

impl<K: Ord + Clone + 'static> Part<K> {
    fn new(from: Option<Entry<K>>) -> Part<K> {
        let tree = scc::TreeIndex::new();
        let _ = tree.insert_sync(Slot::Low, ());
        Part { from, tree }
    }

    /// The forward range between `lower` and `upper`, the sentinel left out.
    fn range<'g>(
        &'g self,
        lower: Bound<Entry<K>>,
        upper: Bound<Entry<K>>,
        guard: &'g scc::Guard,
    ) -> impl DoubleEndedIterator<Item = &'g Entry<K>> + 'g {
        let lower = match lower {
            Bound::Unbounded => Bound::Excluded(Slot::Low),
            b => b.map(Slot::Key),
        };
        self.tree
            .range((lower, upper.map(Slot::Key)), guard)
            .filter_map(|(s, _)| match s {
                Slot::Key(e) => Some(e),
                Slot::Low => None,
            })
    }

    /// [`range`](Self::range) for a scan down: an upper bound above the largest entry is
    /// left out (scc would search the whole tree for an entry above it).
    fn range_back<'g>(
        &'g self,
        lower: Bound<Entry<K>>,
        upper: Bound<Entry<K>>,
        guard: &'g scc::Guard,
    ) -> impl Iterator<Item = &'g Entry<K>> + 'g {
        let above_all = match (&upper, self.tree.iter(guard).next_back()) {
            (Bound::Included(e) | Bound::Excluded(e), Some((Slot::Key(max), _))) => e > max,
            _ => true,
        };
        let upper = if above_all { Bound::Unbounded } else { upper };
        self.range(lower, upper, guard).rev()
    }
}

impl<K: Ord + Clone + Send + Sync + 'static> Default for Index<K> {
    fn default() -> Self {
        Index::new()
    }
}

impl<K: Ord + Clone + Send + Sync + 'static> Index<K> {
    /// Bytes a tree holds for one entry's key: the sentinel should add none (a test checks
    /// it for the server's key type).
    pub const SLOT_BYTES: usize = std::mem::size_of::<Slot<K>>();

    pub fn new() -> Index<K> {
        Self::with_parts(vec![None])
    }

    fn with_parts(froms: Vec<Option<Entry<K>>>) -> Index<K> {
        assert!(!froms.is_empty() && froms.len() <= MAX_PARTS);
        assert!(
            froms[0].is_none(),
            "the first range starts at the lowest key"
        );
        Index {
            parts: froms.into_iter().map(Part::new).collect(),
            stripes: (0..STRIPES).map(|_| Mutex::new(())).collect(),
        }
    }

    /// An index holding `entries` (in key order, no entry twice), filled by `threads` threads
    /// at most (at least `min_per_thread` entries each), every thread filling its own key
    /// range in order; `on_thread` runs first on each of them (to leave the caller's CPU
    /// binding, say).
    pub fn build(
        entries: Vec<(K, RowId)>,
        threads: usize,
        min_per_thread: usize,
        on_thread: fn(),
    ) -> Index<K> {
        let n = threads
            .min(MAX_PARTS)
            .min(entries.len() / min_per_thread.max(1))
            .max(1);
        let per = entries.len().div_ceil(n).max(1);
        let mut froms = vec![None];
        froms.extend(entries.chunks(per).skip(1).map(|c| {
            Some(Entry {
                key: c[0].0.clone(),
                row: c[0].1,
            })
        }));
        let index = Self::with_parts(froms);
        let fill = |part: &Part<K>, chunk: &[(K, RowId)]| {
            for (key, row) in chunk {
                let _ = part.tree.insert_sync(
                    Slot::Key(Entry {
                        key: key.clone(),
                        row: *row,
                    }),
                    (),
                );
            }
        };
        if index.parts.len() == 1 {
            fill(&index.parts[0], &entries);
            return index;
        }
        std::thread::scope(|s| {
            let mut chunks = entries.chunks(per).zip(index.parts.iter());
            let first = chunks.next();
            for (chunk, part) in chunks {
                s.spawn(move || {
                    on_thread();
                    fill(part, chunk);
                });
            }
            if let Some((chunk, part)) = first {
                fill(part, chunk);
            }
        });
        index
    }

    /// The range `e` belongs to.
    fn part_of(&self, e: &Entry<K>) -> &Part<K> {
        self.parts
            .iter()
            .rev()
            .find(|p| p.from.as_ref().is_none_or(|f| f <= e))
            .unwrap_or(&self.parts[0])
    }

    /// The index of the first range a scan from `lower` may find entries in.
    fn first_part(&self, lower: &Bound<Entry<K>>) -> usize {
        match lower {
            Bound::Included(e) | Bound::Excluded(e) => self
                .parts
                .iter()
                .rposition(|p| p.from.as_ref().is_none_or(|f| f <= e))
                .unwrap_or(0),
            Bound::Unbounded => 0,
        }
    }

    /// The index of the last range a scan down from `upper` may find entries in.
    fn last_part(&self, upper: &Bound<Entry<K>>) -> usize {
        match upper {
            Bound::Included(e) => self.first_part(&Bound::Included(e.clone())),
            // Entries below `e`: the range holding `e` unless `e` starts it.
            Bound::Excluded(e) => {
                let i = self.first_part(&Bound::Included(e.clone()));
                match &self.parts[i].from {
                    Some(f) if f == e && i > 0 => i - 1,
                    _ => i,
                }
            }
            Bound::Unbounded => self.parts.len() - 1,
        }
    }

    /// Adds an entry (already present: nothing happens).
    pub fn insert(&self, key: K, row: RowId) {
        let e = Entry { key, row };
        let _ = self.part_of(&e).tree.insert_sync(Slot::Key(e), ());
    }

    pub fn remove(&self, key: &K, row: RowId) -> bool {
        // The tree compares whole entries; build the probe once.
        let e = Entry {
            key: key.clone(),
            row,
        };
        self.part_of(&e).tree.remove_sync(&Slot::Key(e))
    }

    /// The memory the entries take: each entry's slot in its tree and what `key_bytes` says
    /// its key owns besides (the trees' node overhead is not counted). One pass over the
    /// entries.
    pub fn bytes(&self, key_bytes: impl Fn(&K) -> usize) -> u64 {
        let guard = scc::Guard::new();
        let mut total = 0u64;
        for p in self.parts.iter() {
            for (s, _) in p.tree.iter(&guard) {
                if let Slot::Key(e) = s {
                    total += (std::mem::size_of::<Slot<K>>() + key_bytes(&e.key)) as u64;
                }
            }
        }
        total
    }

    pub fn len(&self) -> usize {
        // Each tree's sentinel left out.
        self.parts.iter().map(|p| p.tree.len() - 1).sum()
    }

    pub fn is_empty(&self) -> bool {
        // Each tree's first entry is its sentinel: empty when nothing follows it (scc's len
        // counts every entry).
        let guard = scc::Guard::new();
        self.parts
            .iter()
            .all(|p| p.tree.iter(&guard).nth(1).is_none())
    }

    /// Key ranges the index is cut into.
    pub fn parts(&self) -> usize {
        self.parts.len()
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
        let upper = upper_bound(hi);
        let guard = scc::Guard::new();
        let (first, last) = (self.first_part(&lower), self.last_part(&upper));
        if first == last {
            return visit(self.parts[first].range(lower, upper, &guard), max, f);
        }
        // first > last: the bounds cross inside one range boundary (an empty range).
        let parts = self.parts.get(first..=last).unwrap_or_default();
        let range = parts
            .iter()
            .flat_map(|p| p.range(lower.clone(), upper.clone(), &guard));
        visit(range, max, f)
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
        let lower = lower_bound(lo);
        let guard = scc::Guard::new();
        let (first, last) = (self.first_part(&lower), self.last_part(&upper));
        if first == last {
            return visit(self.parts[last].range_back(lower, upper, &guard), max, f);
        }
        let parts = self.parts.get(first..=last).unwrap_or_default();
        let range = parts
            .iter()
            .rev()
            .flat_map(|p| p.range_back(lower.clone(), upper.clone(), &guard));
        visit(range, max, f)
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
fn visit<'g, K: Clone + 'g>(
    entries: impl Iterator<Item = &'g Entry<K>>,
    max: usize,
    mut f: impl FnMut(&K, RowId) -> bool,
) -> Option<Entry<K>> {
    let mut last: Option<&Entry<K>> = None;
    for (n, e) in entries.enumerate() {
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
