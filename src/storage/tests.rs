//! Tests of the heap and indexes over the transaction manager. Each names the anomaly it rules
//! out; the property test compares visibility with a reference model built on sets of
//! transactions instead of commit sequence numbers.

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Bound;

use proptest::prelude::*;

use super::*;
use crate::sync::Arc;
use crate::txn::{Snapshot, Status, TxnCell, TxnManager};

struct Db {
    m: TxnManager,
    slot: Arc<crate::txn::SnapshotSlot>,
    heap: Heap<String>,
}

impl Db {
    fn new() -> Db {
        let m = TxnManager::new(8);
        let slot = m.register();
        Db {
            m,
            slot,
            heap: Heap::new(),
        }
    }

    fn snap(&self, t: Option<&Arc<TxnCell>>, cid: u32) -> Snapshot {
        self.m.snapshot(&self.slot, t.map_or(0, |t| t.top()), cid)
    }

    fn rows(&self, s: &Snapshot) -> Vec<String> {
        let mut out = Vec::new();
        let mut at = Some(0);
        while let Some(from) = at {
            at = self.heap.scan(from, 2, s, |_, r| {
                out.push(r.clone());
                true
            });
        }
        out
    }
}

#[test]
fn no_dirty_read_and_no_read_skew() {
    let db = Db::new();
    let t1 = db.m.begin(1);
    db.heap.insert("a".into(), &t1, 0);
    assert!(db.rows(&db.snap(None, 0)).is_empty(), "dirty read");
    assert_eq!(
        db.rows(&db.snap(Some(&t1), 1)),
        ["a"],
        "own write, next command"
    );
    assert!(
        db.rows(&db.snap(Some(&t1), 0)).is_empty(),
        "the inserting command does not see its own row (Halloween)"
    );
    let before = db.snap(None, 0);
    db.m.commit(&t1);
    assert!(db.rows(&before).is_empty(), "a snapshot does not move");
    assert_eq!(db.rows(&db.snap(None, 0)), ["a"]);
}

#[test]
fn no_lost_update_a_second_writer_waits_then_sees_the_newer_version() {
    let db = Db::new();
    let t0 = db.m.begin(1);
    let id = db.heap.insert("v0".into(), &t0, 0);
    db.m.commit(&t0);

    let t1 = db.m.begin(1);
    let t2 = db.m.begin(2);
    let s1 = db.snap(Some(&t1), 0);
    let s2 = db.snap(Some(&t2), 0);
    let new1 = db
        .heap
        .update(id, Some(&s1), &t1, 0, "v1".into(), true)
        .unwrap();
    let Err((Change::Wait(w), _)) = db.heap.update(id, Some(&s2), &t2, 0, "v2".into(), true) else {
        panic!("second writer must wait");
    };
    assert_eq!(w.xid(), t1.xid());
    db.m.commit(&t1);
    match db.heap.update(id, Some(&s2), &t2, 0, "v2".into(), true) {
        Err((Change::Concurrent(Some(n)), _)) => assert_eq!(n, new1),
        other => panic!("expected the newer version, got {:?}", other.map(|_| ())),
    }
    // READ COMMITTED re-reads the newest version and updates that one.
    assert_eq!(db.heap.read_latest(new1, |r| r.clone()).unwrap(), "v1");
    let s2b = db.snap(Some(&t2), 0);
    db.heap
        .update(new1, Some(&s2b), &t2, 0, "v2".into(), true)
        .unwrap();
    db.m.commit(&t2);
    assert_eq!(db.rows(&db.snap(None, 0)), ["v2"]);
}

#[test]
fn an_aborted_writer_releases_the_row() {
    let db = Db::new();
    let t0 = db.m.begin(1);
    let id = db.heap.insert("v0".into(), &t0, 0);
    db.m.commit(&t0);
    let t1 = db.m.begin(1);
    let s1 = db.snap(Some(&t1), 0);
    assert!(matches!(
        db.heap.delete(id, Some(&s1), &t1, 0, false),
        Change::Done(_)
    ));
    let t2 = db.m.begin(2);
    let s2 = db.snap(Some(&t2), 0);
    assert!(matches!(
        db.heap.delete(id, Some(&s2), &t2, 0, false),
        Change::Wait(_)
    ));
    db.m.abort(&t1, &[]);
    assert!(matches!(
        db.heap.delete(id, Some(&s2), &t2, 0, false),
        Change::Done(_)
    ));
    assert!(matches!(
        db.heap.delete(id, Some(&s2), &t2, 0, false),
        Change::SelfChanged
    ));
}

#[test]
fn row_locks_block_writers_not_readers() {
    let db = Db::new();
    let t0 = db.m.begin(1);
    let id = db.heap.insert("v0".into(), &t0, 0);
    db.m.commit(&t0);
    let t1 = db.m.begin(1);
    let s1 = db.snap(Some(&t1), 0);
    assert!(matches!(
        db.heap.delete(id, Some(&s1), &t1, 0, true),
        Change::Done(_)
    ));
    assert_eq!(
        db.rows(&db.snap(None, 0)),
        ["v0"],
        "a locked row is still visible"
    );
    let t2 = db.m.begin(2);
    let s2 = db.snap(Some(&t2), 0);
    assert!(matches!(
        db.heap.delete(id, Some(&s2), &t2, 0, true),
        Change::Wait(_)
    ));
    // The locker may go on to update its locked row.
    db.heap
        .update(id, Some(&s1), &t1, 1, "v1".into(), true)
        .unwrap();
    db.m.commit(&t1);
    assert!(matches!(
        db.heap.delete(id, Some(&s2), &t2, 0, false),
        Change::Concurrent(Some(_))
    ));
}

#[test]
fn rollback_to_savepoint_undoes_its_writes() {
    let db = Db::new();
    let t = db.m.begin(1);
    db.heap.insert("kept".into(), &t, 0);
    let sub = db.m.begin_sub(&t);
    db.heap.insert("undone".into(), &sub, 1);
    db.m.abort(&sub, &[]);
    db.m.commit(&t);
    assert_eq!(db.rows(&db.snap(None, 0)), ["kept"]);
}

#[test]
fn hot_chains_are_reached_from_the_root_and_vacuumed_to_a_redirect() {
    let db = Db::new();
    let t0 = db.m.begin(1);
    let root = db.heap.insert("v0".into(), &t0, 0);
    db.m.commit(&t0);
    let mut at = root;
    for i in 1..=3 {
        let t = db.m.begin(1);
        let s = db.snap(Some(&t), 0);
        at = db
            .heap
            .update(at, Some(&s), &t, 0, format!("v{i}"), true)
            .unwrap();
        db.m.commit(&t);
    }
    let s = db.snap(None, 0);
    assert_eq!(db.heap.fetch(root, &s, |_, r| r.clone()).unwrap().1, "v3");
    let stats = db.heap.vacuum(db.m.horizon(), db.m.visible(), |_, _| {
        panic!("a live chain's index entries stay")
    });
    assert_eq!(stats.removed, 3);
    assert_eq!(stats.redirected, 1);
    let s = db.snap(None, 0);
    assert_eq!(db.heap.fetch(root, &s, |_, r| r.clone()).unwrap().1, "v3");
    assert_eq!(db.rows(&s), ["v3"]);
}

#[test]
fn a_freed_version_does_not_lead_a_stale_index_entry_to_its_non_hot_successor() {
    // An index scan that took the entry of a version before vacuum removed it must not reach,
    // through the freed slot, the successor it is about to reach through its own entry.
    let db = Db::new();
    let t0 = db.m.begin(1);
    let old = db.heap.insert("v0".into(), &t0, 0);
    db.m.commit(&t0);
    let t1 = db.m.begin(1);
    let s1 = db.snap(Some(&t1), 0);
    let new = db
        .heap
        .update(old, Some(&s1), &t1, 0, "v1".into(), false)
        .unwrap();
    db.m.commit(&t1);
    // A HOT chain ending in a non-HOT update: its members are freed the same way.
    let t2 = db.m.begin(1);
    let s2 = db.snap(Some(&t2), 0);
    let hot = db
        .heap
        .update(new, Some(&s2), &t2, 0, "v2".into(), true)
        .unwrap();
    db.m.commit(&t2);
    let t3 = db.m.begin(1);
    let s3 = db.snap(Some(&t3), 0);
    let last = db
        .heap
        .update(hot, Some(&s3), &t3, 0, "v3".into(), false)
        .unwrap();
    db.m.commit(&t3);
    db.slot.clear();
    let mut gone = Vec::new();
    db.heap.vacuum(db.m.horizon(), db.m.visible(), |r, id| {
        gone.push((r.clone(), id))
    });
    assert_eq!(gone, [("v0".to_string(), old), ("v2".to_string(), new)]);
    let s = db.snap(None, 0);
    assert!(db.heap.fetch(old, &s, |_, r| r.clone()).is_none());
    assert!(db.heap.fetch(new, &s, |_, r| r.clone()).is_none());
    assert!(db.heap.fetch(hot, &s, |_, r| r.clone()).is_none());
    assert_eq!(db.heap.fetch(last, &s, |_, r| r.clone()).unwrap().1, "v3");
}

#[test]
fn vacuum_waits_for_old_snapshots_and_reuses_slots_only_after_them() {
    let db = Db::new();
    let t0 = db.m.begin(1);
    let id = db.heap.insert("gone".into(), &t0, 0);
    db.m.commit(&t0);
    let reader_slot = db.m.register();
    let old = db.m.snapshot(&reader_slot, 0, 0);
    let t1 = db.m.begin(1);
    let s1 = db.snap(Some(&t1), 0);
    assert!(matches!(
        db.heap.delete(id, Some(&s1), &t1, 0, false),
        Change::Done(_)
    ));
    db.m.commit(&t1);
    let mut gone = Vec::new();
    let stats = db.heap.vacuum(db.m.horizon(), db.m.visible(), |r, id| {
        gone.push((r.clone(), id))
    });
    assert_eq!(stats.removed, 0, "an old snapshot still sees the row");
    assert_eq!(db.rows(&old), ["gone"]);
    reader_slot.clear();
    db.slot.clear();
    let stats = db.heap.vacuum(db.m.horizon(), db.m.visible(), |r, id| {
        gone.push((r.clone(), id))
    });
    assert_eq!(stats.removed, 1);
    assert_eq!(gone, [("gone".to_string(), id)]);
    // Released at the current watermark: not reused until a later horizon passes it.
    let t2 = db.m.begin(1);
    let fresh = db.heap.insert("new".into(), &t2, 0);
    assert_ne!(fresh, id);
    db.m.commit(&t2);
    db.heap.vacuum(db.m.horizon(), db.m.visible(), |_, _| {});
    let t3 = db.m.begin(1);
    assert_eq!(db.heap.insert("reused".into(), &t3, 0), id);
    db.m.commit(&t3);
    assert_eq!(db.rows(&db.snap(None, 0)), ["reused", "new"]);
}

#[test]
fn index_ranges_resume_and_find_equal_keys() {
    let ix: Index<i64> = Index::new();
    for (k, r) in [(5, 0), (1, 1), (3, 2), (3, 3), (9, 4)] {
        ix.insert(k, r);
    }
    assert_eq!(ix.rows_of(&3), [2, 3]);
    let mut seen = Vec::new();
    let mut after = None;
    loop {
        let mut batch = Vec::new();
        after = ix.scan(
            Bound::Excluded(&1),
            Bound::Included(&9),
            after.as_ref(),
            2,
            |k, r| {
                batch.push((*k, r));
                true
            },
        );
        seen.extend(batch);
        if after.is_none() {
            break;
        }
    }
    assert_eq!(seen, [(3, 2), (3, 3), (5, 0), (9, 4)]);
    assert!(ix.remove(&3, 2));
    assert_eq!(ix.rows_of(&3), [3]);
    let _held = ix.lock_key(&3);
}

fn bound(b: (u8, i64)) -> Bound<i64> {
    match b.0 % 3 {
        0 => Bound::Included(b.1),
        1 => Bound::Excluded(b.1),
        _ => Bound::Unbounded,
    }
}

/// Every scan of `ix` in both directions, resumed `max` entries at a time, against `model`.
fn check_scans(ix: &Index<i64>, model: &BTreeSet<(i64, RowId)>, lo: Bound<i64>, hi: Bound<i64>) {
    let want: Vec<(i64, RowId)> = model
        .iter()
        .filter(|(k, _)| std::ops::RangeBounds::contains(&(lo, hi), k))
        .copied()
        .collect();
    for max in [1, 3, usize::MAX] {
        let (mut fwd, mut after) = (Vec::new(), None);
        loop {
            after = ix.scan(lo.as_ref(), hi.as_ref(), after.as_ref(), max, |k, r| {
                fwd.push((*k, r));
                true
            });
            if after.is_none() {
                break;
            }
        }
        assert_eq!(fwd, want, "forward, {max} at a time, {lo:?}..{hi:?}");
        let (mut back, mut before) = (Vec::new(), None);
        loop {
            before = ix.scan_back(lo.as_ref(), hi.as_ref(), before.as_ref(), max, |k, r| {
                back.push((*k, r));
                true
            });
            if before.is_none() {
                break;
            }
        }
        back.reverse();
        assert_eq!(back, want, "backward, {max} at a time, {lo:?}..{hi:?}");
    }
}

proptest! {
    /// An index cut into key ranges by a parallel build answers every scan, lookup, insert and
    /// removal as one tree holding the same entries would (rules out entries lost or seen
    /// twice at a range boundary, and scans that stop at one).
    #[test]
    fn ranged_index_is_one_ordered_index(
        keys in proptest::collection::vec(0..40i64, 0..120),
        threads in 1..5usize,
        scans in proptest::collection::vec(((0..3u8, -2..42i64), (0..3u8, -2..42i64)), 1..6),
        later in proptest::collection::vec((any::<bool>(), 0..40i64, 0..200u64), 0..20),
    ) {
        let mut model: BTreeSet<(i64, RowId)> =
            keys.iter().enumerate().map(|(r, &k)| (k, r as RowId)).collect();
        let entries: Vec<(i64, RowId)> = model.iter().copied().collect();
        let ix = Index::build(entries, threads, 5, || ());
        prop_assert!(ix.parts() <= threads.max(1));
        prop_assert_eq!(ix.len(), model.len());
        for (insert, k, r) in later {
            if insert {
                ix.insert(k, r);
                model.insert((k, r));
            } else {
                prop_assert_eq!(ix.remove(&k, r), model.remove(&(k, r)));
            }
        }
        prop_assert_eq!(ix.len(), model.len());
        for k in -1..41 {
            let want: Vec<RowId> = model.range((k, 0)..=(k, RowId::MAX)).map(|e| e.1).collect();
            prop_assert_eq!(ix.rows_of(&k), want);
        }
        for (lo, hi) in scans {
            check_scans(&ix, &model, bound(lo), bound(hi));
        }
    }
}

#[test]
fn parallel_build_fills_its_ranges_in_order() {
    let entries: Vec<(i64, RowId)> = (0..10_000).map(|k| (k / 3, k as RowId)).collect();
    let ix = Index::build(entries.clone(), 4, 1000, || ());
    assert_eq!(ix.parts(), 4);
    assert_eq!(ix.len(), entries.len());
    let model: BTreeSet<(i64, RowId)> = entries.into_iter().collect();
    check_scans(&ix, &model, Bound::Unbounded, Bound::Unbounded);
    check_scans(&ix, &model, Bound::Included(833), Bound::Excluded(2500));
    // Too few entries for more than one range per 1000.
    let small = Index::build((0..1500).map(|k| (k, k as RowId)).collect(), 4, 1000, || ());
    assert_eq!(small.parts(), 1);
}

/// Operations of the reference-model test.
#[derive(Debug, Clone)]
enum Op {
    Begin,
    Insert(u8),
    Update(u8, u8),
    Delete(u8),
    Commit,
    Abort,
    Read,
}

fn op() -> impl Strategy<Value = (usize, Op)> {
    (
        0..3usize,
        prop_oneof![
            Just(Op::Begin),
            (0..50u8).prop_map(Op::Insert),
            (0..8u8, 0..50u8).prop_map(|(a, b)| Op::Update(a, b)),
            (0..8u8).prop_map(Op::Delete),
            Just(Op::Commit),
            Just(Op::Abort),
            Just(Op::Read),
        ],
    )
}

/// A version in the reference model: who wrote it and who deleted it, by transaction number.
struct RefVersion {
    value: u8,
    creator: usize,
    deleter: Option<usize>,
    id: RowId,
}

/// A session's open transaction: cell, snapshot, the model's snapshot set, its number.
type Open = (Arc<TxnCell>, Snapshot, BTreeSet<usize>, usize);

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, .. ProptestConfig::default() })]

    /// Visibility matches a model where a snapshot is the set of transactions committed when it
    /// was taken (PostgreSQL's definition), for interleavings of three sessions in REPEATABLE
    /// READ (one snapshot per transaction). Writers that would conflict are skipped, as a
    /// session that waited and then failed would be.
    #[test]
    fn visibility_matches_the_set_model(ops in proptest::collection::vec(op(), 1..60)) {
        let db = Db::new();
        let slots: Vec<_> = (0..3).map(|_| db.m.register()).collect();
        let mut open: Vec<Option<Open>> = vec![None, None, None];
        let mut committed: BTreeSet<usize> = BTreeSet::new();
        let mut versions: Vec<RefVersion> = Vec::new();
        let mut next_txn = 0usize;
        let mut cid = [0u32; 3];
        for (s, op) in ops {
            if open[s].is_none() && !matches!(op, Op::Begin) {
                continue;
            }
            let model_visible = |v: &RefVersion, set: &BTreeSet<usize>, me: usize| {
                let created = v.creator == me || set.contains(&v.creator);
                let deleted = v.deleter.is_some_and(|d| d == me || set.contains(&d));
                created && !deleted
            };
            match op {
                Op::Begin => {
                    if open[s].is_some() { continue; }
                    let cell = db.m.begin(s as i32);
                    let snap = db.m.snapshot(&slots[s], cell.top(), 0);
                    open[s] = Some((cell, snap, committed.clone(), next_txn));
                    next_txn += 1;
                    cid[s] = 0;
                }
                Op::Insert(v) => {
                    let (cell, _, _, me) = open[s].as_ref().unwrap();
                    cid[s] += 1;
                    let id = db.heap.insert(v.to_string(), cell, cid[s]);
                    versions.push(RefVersion { value: v, creator: *me, deleter: None, id });
                }
                Op::Update(i, _) | Op::Delete(i) => {
                    let (cell, snap, set, me) = open[s].as_ref().unwrap();
                    cid[s] += 1;
                    let snap = Snapshot { cid: cid[s], ..*snap };
                    let vis: Vec<usize> = (0..versions.len())
                        .filter(|&k| model_visible(&versions[k], set, *me))
                        .collect();
                    let Some(&k) = vis.get(i as usize % vis.len().max(1)) else { continue };
                    // A changer still running or committed since: the real heap must say so.
                    if let Some(d) = versions[k].deleter {
                        let res = db.heap.delete(versions[k].id, Some(&snap), cell, cid[s], false);
                        if committed.contains(&d) {
                            prop_assert!(matches!(res, Change::Concurrent(_)), "{res:?}");
                        } else {
                            prop_assert!(matches!(res, Change::Wait(_)), "{res:?}");
                        }
                        continue;
                    }
                    let id = versions[k].id;
                    match op {
                        Op::Update(_, v) => {
                            let new_id = db.heap.update(id, Some(&snap), cell, cid[s], v.to_string(), false);
                            prop_assert!(new_id.is_ok());
                            versions[k].deleter = Some(*me);
                            versions.push(RefVersion { value: v, creator: *me, deleter: None, id: new_id.unwrap() });
                        }
                        _ => {
                            prop_assert!(matches!(db.heap.delete(id, Some(&snap), cell, cid[s], false), Change::Done(_)));
                            versions[k].deleter = Some(*me);
                        }
                    }
                }
                Op::Commit | Op::Abort => {
                    let (cell, _, _, me) = open[s].take().unwrap();
                    if matches!(op, Op::Commit) {
                        db.m.commit(&cell);
                        committed.insert(me);
                    } else {
                        db.m.abort(&cell, &[]);
                        // The model forgets what an aborted transaction did.
                        versions.retain(|v| v.creator != me);
                        for v in versions.iter_mut() {
                            if v.deleter == Some(me) { v.deleter = None; }
                        }
                    }
                    slots[s].clear();
                }
                Op::Read => {
                    let (_, snap, set, me) = open[s].as_ref().unwrap();
                    cid[s] += 1;
                    let snap = Snapshot { cid: cid[s], ..*snap };
                    let mut got: BTreeMap<RowId, String> = BTreeMap::new();
                    db.heap.scan(0, usize::MAX, &snap, |id, r| { got.insert(id, r.clone()); true });
                    let want: BTreeMap<RowId, String> = versions
                        .iter()
                        .filter(|v| model_visible(v, set, *me))
                        .map(|v| (v.id, v.value.to_string()))
                        .collect();
                    prop_assert_eq!(got, want);
                }
            }
        }
        for (cell, ..) in open.into_iter().flatten() {
            prop_assert_eq!(cell.status(), Status::InProgress);
        }
    }
}

/// Lookups and scans that start beyond a tree's entries: below the lowest key, at a range
/// boundary's key (whose probe `(key, row 0)` is below the range's first entry) and, scanning
/// down, above the highest. scc's search for where a range starts visited the whole tree once
/// per leaf for such bounds (1.1 s a lookup at 500,000 entries); at this size that made this
/// test run for minutes instead of milliseconds. It asserts the answers.
#[test]
fn scans_from_beyond_the_entries_find_the_nearest_ones() {
    let n = 200_000i64;
    let entries: Vec<(i64, RowId)> = (1..=n).map(|k| (k, k as RowId)).collect();
    let ix = Index::build(entries, 2, 10_000, || ());
    assert_eq!(ix.parts(), 2);
    let boundary = n / 2 + 1;
    for _ in 0..50 {
        assert_eq!(ix.rows_of(&boundary), [boundary as RowId]);
        assert_eq!(ix.rows_of(&0), Vec::<RowId>::new());
        assert_eq!(ix.rows_of(&(n + 1)), Vec::<RowId>::new());
        let mut first = None;
        ix.scan(Bound::Included(&-5), Bound::Unbounded, None, 1, |k, _| {
            first = Some(*k);
            false
        });
        assert_eq!(first, Some(1));
        let mut last = None;
        ix.scan_back(
            Bound::Unbounded,
            Bound::Included(&(n + 7)),
            None,
            1,
            |k, _| {
                last = Some(*k);
                false
            },
        );
        assert_eq!(last, Some(n));
        let mut below = Vec::new();
        ix.scan_back(
            Bound::Unbounded,
            Bound::Excluded(&boundary),
            None,
            2,
            |k, _| {
                below.push(*k);
                true
            },
        );
        assert_eq!(below, [boundary - 1, boundary - 2]);
    }
    // An emptied range still answers (only its sentinel is left).
    let small = Index::build((0..20).map(|k| (k, k as RowId)).collect(), 2, 10, || ());
    for k in 10..20 {
        assert!(small.remove(&k, k as RowId));
    }
    assert_eq!(small.len(), 10);
    assert!(!small.is_empty());
    for k in 0..10 {
        assert!(small.remove(&k, k as RowId));
    }
    assert!(small.is_empty());
    assert_eq!(small.len(), 0);
    for k in 0..10 {
        small.insert(k, k as RowId);
    }
    assert_eq!(small.rows_of(&15), Vec::<RowId>::new());
    let mut last = None;
    small.scan_back(Bound::Unbounded, Bound::Included(&30), None, 1, |k, _| {
        last = Some(*k);
        false
    });
    assert_eq!(last, Some(9));
}

#[test]
fn headers_show_writers_lockers_and_keep_the_writer_once_frozen() {
    let db = Db::new();
    let t0 = db.m.begin(1);
    let id = db.heap.insert("v0".into(), &t0, 3);
    let h = db.heap.header(id).unwrap();
    assert_eq!((h.xmin, h.xmax, h.cmin, h.cmax), (t0.xid(), 0, 3, 3));
    db.m.commit(&t0);
    // A locker shows as xmax while it holds the row.
    let t1 = db.m.begin(1);
    let s = db.snap(Some(&t1), 0);
    assert!(matches!(
        db.heap.delete(id, Some(&s), &t1, 5, true),
        Change::Done(_)
    ));
    let h = db.heap.header(id).unwrap();
    assert_eq!((h.xmin, h.xmax, h.cmax), (t0.xid(), t1.xid(), 5));
    db.m.commit(&t1);
    // Vacuum freezes the version (its writer's cell is dropped, the locker's cleared): the
    // writer's id stays.
    let stats = db.heap.vacuum(db.m.horizon(), db.m.visible(), |_, _| {});
    assert_eq!(stats.frozen, 1);
    let h = db.heap.header(id).unwrap();
    assert_eq!((h.xmin, h.xmax, h.cmin), (t0.xid(), 0, 0));
    assert!(db.heap.header(id + 1).is_none());
}
