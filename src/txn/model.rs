//! Model-checked tests of commit visibility, the vacuum horizon and wake-ups, run with
//! `cargo test --features shuttle --lib txn::model`.
//!
//! Shuttle runs the real `TxnManager` code (through the `sync` facade) under randomized and PCT
//! schedules. Each test names the anomaly it rules out.

use super::*;
use shuttle::thread;

fn run(f: impl Fn() + Send + Sync + 'static) {
    run_n(300, f)
}

fn run_n(iterations: usize, f: impl Fn() + Send + Sync + 'static) {
    crate::sync::model_run(50_000, iterations, f)
}

/// No half-visible commit order: a snapshot that sees a later commit sees every earlier one,
/// and a committer's next snapshot sees its own commit (invariants 1, 3, 4).
#[test]
fn snapshots_see_a_prefix_of_the_commit_order() {
    run(|| {
        let m = Arc::new(TxnManager::new(4));
        let cells: Vec<_> = (0..3).map(|i| m.begin(i)).collect();
        let csns = Arc::new(Mutex::new(Vec::new()));
        let committers: Vec<_> = cells
            .iter()
            .cloned()
            .map(|c| {
                let m = m.clone();
                let csns = csns.clone();
                thread::spawn(move || {
                    let slot = m.register();
                    let csn = m.commit(&c);
                    csns.lock().push((csn, c.clone()));
                    let s = m.snapshot(&slot, 0, 0);
                    assert!(
                        s.sees_write(Some(&c), 0),
                        "a commit is visible to its own session"
                    );
                })
            })
            .collect();
        let reader = {
            let m = m.clone();
            let cells = cells.clone();
            thread::spawn(move || {
                let slot = m.register();
                for _ in 0..3 {
                    let s = m.snapshot(&slot, 0, 0);
                    let mut seen: Vec<Csn> = cells
                        .iter()
                        .filter(|c| s.sees_write(Some(c), 0))
                        .map(|c| match c.status() {
                            Status::Committed(csn) => csn,
                            other => panic!("visible but {other:?}"),
                        })
                        .collect();
                    seen.sort();
                    // Seen CSNs are exactly 1..=k for some k: no gap.
                    for (i, csn) in seen.iter().enumerate() {
                        assert_eq!(*csn, i as u64 + 1, "a gap in the commit order");
                    }
                    thread::yield_now();
                }
            })
        };
        for c in committers {
            c.join().unwrap();
        }
        reader.join().unwrap();
        assert_eq!(m.visible(), 4);
    });
}

/// No version reclaimed under a reader: whenever vacuum computes a horizon, no snapshot in use
/// (published or being taken) is below it (invariant 5).
#[test]
fn the_horizon_never_passes_a_snapshot_in_use() {
    // The window is narrow (a commit and a whole horizon computation between the reader's
    // load of the watermark and its publication): more schedules than the other tests.
    run_n(3000, || {
        let m = Arc::new(TxnManager::new(4));
        let taken = Arc::new(AtomicU64::new(u64::MAX));
        let reader = {
            let m = m.clone();
            let taken = taken.clone();
            thread::spawn(move || {
                let slot = m.register();
                let s = m.snapshot(&slot, 0, 0);
                taken.store(s.csn, Ordering::SeqCst);
                thread::yield_now();
                // Still in use here: any horizon computed now must not pass it.
                let h = m.horizon();
                assert!(h <= s.csn);
                taken.store(u64::MAX, Ordering::SeqCst);
                slot.clear();
            })
        };
        let writer = {
            let m = m.clone();
            thread::spawn(move || {
                for _ in 0..2 {
                    let t = m.begin(1);
                    m.commit(&t);
                }
            })
        };
        let vacuum = {
            let m = m.clone();
            let taken = taken.clone();
            thread::spawn(move || {
                for _ in 0..2 {
                    let h = m.horizon();
                    // A snapshot still held when the horizon is known was either seen by the
                    // scan or taken after the announcement, past it.
                    let s = taken.load(Ordering::SeqCst);
                    assert!(s == u64::MAX || h <= s, "horizon {h} passed snapshot {s}");
                    thread::yield_now();
                }
            })
        };
        reader.join().unwrap();
        writer.join().unwrap();
        vacuum.join().unwrap();
    });
}

/// No lost wake-up: a waiter registered in any interleaving with the writer's end is woken.
#[test]
fn a_wait_ends_whenever_the_writer_ends() {
    run(|| {
        let m = Arc::new(TxnManager::new(4));
        let t = m.begin(1);
        let s = m.begin_sub(&t);
        let waiter = {
            let s = s.clone();
            thread::spawn(move || shuttle::future::block_on(s.wait_end()))
        };
        m.subcommit(&s);
        thread::yield_now();
        let csn = m.commit(&t);
        assert_eq!(waiter.join().unwrap(), Status::Committed(csn));
    });
}

/// No undetected deadlock: two transactions that start waiting for each other at the same
/// time, at least one of them finds the cycle.
#[test]
fn crossing_waits_are_found() {
    run(|| {
        let m = Arc::new(TxnManager::new(4));
        let a = m.begin(1);
        let b = m.begin(2);
        let ha = {
            let (m, a, b) = (m.clone(), a.clone(), b.clone());
            thread::spawn(move || m.start_waiting(&a, &b).is_some())
        };
        let hb = {
            let (m, a, b) = (m.clone(), a.clone(), b.clone());
            thread::spawn(move || m.start_waiting(&b, &a).is_some())
        };
        let (fa, fb) = (ha.join().unwrap(), hb.join().unwrap());
        assert!(fa || fb, "a deadlock nobody saw");
    });
}

/// Advisory locks: two sessions that take one key exclusively, each awaiting the other's token
/// when refused, never hold it at once and never miss the wake-up of a release (advisory
/// invariants 2 and 3).
#[test]
fn advisory_exclusive_holders_exclude_each_other_and_waiters_wake() {
    use super::advisory::{AdvisoryAcquired, AdvisoryKey, AdvisoryMode, AdvisoryTable};
    run(|| {
        let m = Arc::new(TxnManager::new(4));
        let t = Arc::new(AdvisoryTable::default());
        let inside = Arc::new(AtomicU64::new(0));
        let key = AdvisoryKey::one(1, 42);
        let sessions: Vec<_> = (1..=2)
            .map(|pid| {
                let (m, t, inside) = (m.clone(), t.clone(), inside.clone());
                thread::spawn(move || {
                    for _ in 0..2 {
                        let token = m.begin(pid);
                        loop {
                            match t.acquire(key, AdvisoryMode::Exclusive, pid, &token, true) {
                                Ok(AdvisoryAcquired::Granted) => break,
                                Ok(AdvisoryAcquired::Wait(other)) => {
                                    shuttle::future::block_on(other.wait_end());
                                }
                                Err(_) => unreachable!("far below the bound"),
                            }
                        }
                        assert_eq!(inside.fetch_add(1, Ordering::SeqCst), 0, "two holders");
                        inside.fetch_sub(1, Ordering::SeqCst);
                        // Recorded first, then the token ends (invariant 3).
                        t.set_modes(key, pid, 0, &token);
                        m.abort(&token, &[]);
                    }
                })
            })
            .collect();
        for s in sessions {
            s.join().unwrap();
        }
        assert_eq!(t.held(), 0);
        assert!(t.rows().is_empty());
    });
}
