//! Model-checked test of shared row locks, run with
//! `cargo test --features shuttle --lib storage::lock_model`.
//!
//! Two transactions take FOR SHARE on one row while a third deletes it, under shuttle's
//! schedulers, on the real heap and transaction manager (through the `sync` facade). A waiter
//! spins on the holder's state, then until its commit is settled, as the session awaits
//! `wait_end` and then `TxnManager::settled` (txn invariant 7: a writer acts on a commit only
//! once snapshots see it). Rules out: a delete that
//! succeeds while a granted share lock's transaction still runs, and a share lock granted on a
//! row a running transaction has deleted.

use shuttle::thread;

use super::*;
use crate::sync::{Arc, AtomicBool, Ordering};
use crate::txn::{Status, TxnCell, TxnManager};

fn run(f: impl Fn() + Send + Sync + 'static) {
    crate::sync::model_run(50_000, 300, f)
}

fn wait_end(m: &TxnManager, c: &Arc<TxnCell>) {
    while c.status() == Status::InProgress {
        thread::yield_now();
    }
    while !m.settled(c) {
        thread::yield_now();
    }
}

#[test]
fn a_delete_waits_for_every_share_holder() {
    run(|| {
        let m = Arc::new(TxnManager::new(8));
        let heap = Arc::new(Heap::<u32>::new());
        let t0 = m.begin(0);
        let id = heap.insert(1, &t0, 0);
        m.commit(&t0);
        // Set while a sharer holds its granted lock (cleared just before it commits).
        let holding: Arc<Vec<AtomicBool>> =
            Arc::new((0..2).map(|_| AtomicBool::new(false)).collect());
        let deleted = Arc::new(AtomicBool::new(false));
        let sharers: Vec<_> = (0..2)
            .map(|i| {
                let (m, heap, holding, deleted) =
                    (m.clone(), heap.clone(), holding.clone(), deleted.clone());
                thread::spawn(move || {
                    let slot = m.register();
                    let t = m.begin(i + 1);
                    loop {
                        let s = m.snapshot(&slot, t.top(), 1);
                        match heap.lock(id, Some(&s), &t, 1, LockMode::Share) {
                            Change::Done(_) => {
                                assert!(!deleted.load(Ordering::SeqCst), "locked a deleted row");
                                holding[i as usize].store(true, Ordering::SeqCst);
                                thread::yield_now();
                                holding[i as usize].store(false, Ordering::SeqCst);
                                break;
                            }
                            Change::Wait(c) => wait_end(&m, &c),
                            // Deleted meanwhile (READ COMMITTED would skip the row).
                            Change::Concurrent(_) | Change::Invisible => break,
                            Change::SelfChanged => unreachable!(),
                        }
                    }
                    m.commit(&t);
                })
            })
            .collect();
        let deleter = {
            let (m, heap, holding, deleted) =
                (m.clone(), heap.clone(), holding.clone(), deleted.clone());
            thread::spawn(move || {
                let slot = m.register();
                let t = m.begin(9);
                let s = m.snapshot(&slot, t.top(), 1);
                loop {
                    match heap.delete(id, Some(&s), &t, 1, false) {
                        Change::Done(_) => {
                            for h in holding.iter() {
                                assert!(!h.load(Ordering::SeqCst), "deleted under a share lock");
                            }
                            deleted.store(true, Ordering::SeqCst);
                            break;
                        }
                        Change::Wait(c) => wait_end(&m, &c),
                        other => panic!("{other:?}"),
                    }
                }
                m.commit(&t);
            })
        };
        for s in sharers {
            s.join().unwrap();
        }
        deleter.join().unwrap();
    });
}
