//! Tests of shared row locks: PostgreSQL's conflict table between the four strengths, several
//! holders at once, and locks that end with their transactions. The property test compares
//! every request against a reference model: the set of (transaction, strength) held.

use proptest::prelude::*;

use super::*;
use crate::sync::Arc;
use crate::txn::{Snapshot, TxnCell, TxnManager};

const MODES: [LockMode; 4] = [
    LockMode::KeyShare,
    LockMode::Share,
    LockMode::NoKeyUpdate,
    LockMode::Update,
];

fn setup() -> (TxnManager, Heap<String>, RowId) {
    let m = TxnManager::new(8);
    let heap = Heap::new();
    let t0 = m.begin(1);
    let id = heap.insert("v0".into(), &t0, 0);
    m.commit(&t0);
    (m, heap, id)
}

fn snap(m: &TxnManager, t: &Arc<TxnCell>) -> Snapshot {
    let slot = m.register();
    let s = m.snapshot(&slot, t.top(), 1);
    m.unregister(&slot);
    s
}

#[test]
fn the_conflict_table_is_postgresqls() {
    use LockMode::*;
    let want = [
        (KeyShare, [false, false, false, true]),
        (Share, [false, false, true, true]),
        (NoKeyUpdate, [false, true, true, true]),
        (Update, [true, true, true, true]),
    ];
    for (held, row) in want {
        for (req, c) in MODES.iter().zip(row) {
            assert_eq!(held.conflicts(*req), c, "{held:?} against {req:?}");
            assert_eq!(req.conflicts(held), c, "symmetric");
        }
    }
}

#[test]
fn shared_lockers_coexist_and_a_writer_waits_for_each_in_turn() {
    let (m, heap, id) = setup();
    let a = m.begin(1);
    let b = m.begin(2);
    for t in [&a, &b] {
        let s = snap(&m, t);
        assert!(matches!(
            heap.lock(id, Some(&s), t, 1, LockMode::Share),
            Change::Done(_)
        ));
    }
    let w = m.begin(3);
    let s = snap(&m, &w);
    let Change::Wait(first) = heap.delete(id, Some(&s), &w, 1, false) else {
        panic!("a delete waits for the share lockers")
    };
    m.commit(&first);
    let Change::Wait(second) = heap.delete(id, Some(&s), &w, 1, false) else {
        panic!("and then for the other one")
    };
    assert_ne!(first.xid(), second.xid());
    m.abort(&second, &[]);
    assert!(matches!(
        heap.delete(id, Some(&s), &w, 1, false),
        Change::Done(_)
    ));
}

#[test]
fn key_share_lets_a_non_key_update_through_and_follows_the_new_version() {
    let (m, heap, id) = setup();
    let k = m.begin(1);
    let sk = snap(&m, &k);
    assert!(matches!(
        heap.lock(id, Some(&sk), &k, 1, LockMode::KeyShare),
        Change::Done(_)
    ));
    let u = m.begin(2);
    let su = snap(&m, &u);
    let new = heap
        .update_with(
            id,
            Some(&su),
            &u,
            1,
            "v1".into(),
            true,
            LockMode::NoKeyUpdate,
        )
        .expect("a non-key update does not wait for KEY SHARE");
    // The updater itself may not delete the new version while KEY SHARE is held on it.
    let su2 = Snapshot { cid: 2, ..su };
    assert!(matches!(
        heap.delete(new, Some(&su2), &u, 2, false),
        Change::Wait(c) if c.xid() == k.xid()
    ));
    m.commit(&k);
    assert!(matches!(
        heap.delete(new, Some(&su2), &u, 2, false),
        Change::Done(_)
    ));
}

#[derive(Debug, Clone)]
enum Op {
    Lock(usize, usize),
    End(usize, bool),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (0..3usize, 0..4usize).prop_map(|(t, m)| Op::Lock(t, m)),
        1 => (0..3usize, any::<bool>()).prop_map(|(t, c)| Op::End(t, c)),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, .. ProptestConfig::default() })]

    /// Three sessions take row locks on one row and end their transactions in any order: a
    /// request is granted exactly when no other running transaction holds a conflicting
    /// strength, and otherwise names one such holder to wait for.
    #[test]
    fn lock_requests_match_the_model(ops in proptest::collection::vec(op(), 1..50)) {
        let (m, heap, id) = setup();
        let mut cells: Vec<Arc<TxnCell>> = (0..3).map(|i| m.begin(i)).collect();
        let mut held: Vec<Vec<LockMode>> = vec![Vec::new(); 3];
        for op in ops {
            match op {
                Op::Lock(t, mi) => {
                    let mode = MODES[mi];
                    let s = snap(&m, &cells[t]);
                    let blockers: Vec<usize> = (0..3)
                        .filter(|&o| o != t && held[o].iter().any(|h| h.conflicts(mode)))
                        .collect();
                    match heap.lock(id, Some(&s), &cells[t], 1, mode) {
                        Change::Done(_) => {
                            prop_assert!(blockers.is_empty(), "granted {mode:?} past {blockers:?}");
                            held[t].push(mode);
                        }
                        Change::Wait(c) => {
                            let o = cells.iter().position(|x| x.xid() == c.xid());
                            prop_assert!(o.is_some_and(|o| blockers.contains(&o)),
                                "waits for {o:?}, blockers {blockers:?}");
                        }
                        other => prop_assert!(false, "{other:?}"),
                    }
                }
                Op::End(t, commit) => {
                    if commit {
                        m.commit(&cells[t]);
                    } else {
                        m.abort(&cells[t], &[]);
                    }
                    held[t].clear();
                    cells[t] = m.begin(t as i32);
                }
            }
        }
    }
}

#[test]
fn a_prefetch_of_any_ids_changes_nothing_a_fetch_returns() {
    let (m, heap, id) = setup();
    let w = m.begin(2);
    let s = snap(&m, &w);
    let gone = heap.insert("gone".into(), &w, 0);
    assert!(matches!(
        heap.delete(gone, Some(&s), &w, 2, false),
        Change::Done(_)
    ));
    m.commit(&w);
    let r = m.begin(3);
    let s = snap(&m, &r);
    let before: Vec<_> = [id, gone]
        .iter()
        .map(|&i| heap.fetch(i, &s, |_, v| v.clone()))
        .collect();
    // Live, deleted, never used and absurd ids alike: a hint, never a fault.
    heap.prefetch(&[id, gone, 999, RowId::MAX], |v| v.as_ptr());
    let after: Vec<_> = [id, gone]
        .iter()
        .map(|&i| heap.fetch(i, &s, |_, v| v.clone()))
        .collect();
    assert_eq!(before, after);
    assert_eq!(after[0].as_ref().map(|(_, v)| v.as_str()), Some("v0"));
    assert_eq!(after[1], None);
}
