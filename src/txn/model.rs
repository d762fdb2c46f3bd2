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

/// No lost update through a commit seen on a row before snapshots see it: a writer that
/// finds a commit settled (and so follows the version it made) takes, next, a snapshot that
/// sees it (invariant 7). With `status()` instead of `settled_status()` this fails: the later
/// committer is Committed while the earlier one has not marked its ring slot.
#[test]
fn a_commit_a_writer_acts_on_is_seen_by_its_next_snapshot() {
    run(|| {
        let m = Arc::new(TxnManager::new(4));
        let cells: Vec<_> = (0..2).map(|i| m.begin(i)).collect();
        let committers: Vec<_> = cells
            .iter()
            .cloned()
            .map(|c| {
                let m = m.clone();
                thread::spawn(move || {
                    m.commit(&c);
                })
            })
            .collect();
        let writer = {
            let m = m.clone();
            let cells = cells.clone();
            thread::spawn(move || {
                let slot = m.register();
                for _ in 0..3 {
                    for c in &cells {
                        if let Status::Committed(csn) = c.settled_status() {
                            let s = m.snapshot(&slot, 0, 0);
                            assert!(
                                s.csn > csn,
                                "acted on commit {csn}, then snapshot {}",
                                s.csn
                            );
                            assert!(s.sees_write(Some(c), 0));
                        }
                    }
                    thread::yield_now();
                }
            })
        };
        for c in committers {
            c.join().unwrap();
        }
        writer.join().unwrap();
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

/// The log as the models see it: a buffer, and a writer thread that hands the complete
/// prefix to memory and records how far a sync covered (`synced`).
struct ModelLog {
    buf: std::sync::Arc<crate::wal::WalBuffer>,
    synced: std::sync::Arc<AtomicU64>,
}

const LOG_START: u64 = 4096;

struct SyncedSink {
    at: u64,
    synced: std::sync::Arc<AtomicU64>,
}

impl crate::wal::Sink for SyncedSink {
    fn write(&mut self, lsn: u64, bytes: &[u8]) -> PgResult<()> {
        assert_eq!(lsn, self.at, "writes are in order");
        self.at += bytes.len() as u64;
        Ok(())
    }
    fn sync(&mut self) -> PgResult<()> {
        self.synced.store(self.at, Ordering::SeqCst);
        Ok(())
    }
}

impl ModelLog {
    /// Starts the writer; it stops once `stop` is set and everything inserted is written.
    fn start(stop: Arc<crate::sync::AtomicBool>) -> (ModelLog, thread::JoinHandle<()>) {
        let buf = std::sync::Arc::new(crate::wal::WalBuffer::new(LOG_START, 4096));
        let synced = std::sync::Arc::new(AtomicU64::new(LOG_START));
        let writer = {
            let (buf, synced) = (buf.clone(), synced.clone());
            thread::spawn(move || {
                let mut sink = SyncedSink {
                    at: LOG_START,
                    synced,
                };
                loop {
                    let done = stop.load(Ordering::SeqCst);
                    if !buf.write_step(&mut sink, true).unwrap() {
                        if done && buf.write_lsn() == buf.insert_lsn() {
                            return;
                        }
                        thread::yield_now();
                    }
                }
            })
        };
        (ModelLog { buf, synced }, writer)
    }
}

/// Claim C1 of `docs/wal-commit-path.md`: no snapshot sees a commit, and no cell reads as
/// committed, before the commit's record (and every record before it) is synced.
#[test]
fn no_commit_is_visible_before_its_record_is_durable() {
    run(|| {
        let stop = Arc::new(crate::sync::AtomicBool::new(false));
        let (log, writer) = ModelLog::start(stop.clone());
        let m = Arc::new(TxnManager::new(4));
        let slots: Vec<_> = (0..2).map(|_| m.register()).collect();
        let cells: Vec<_> = (0..2)
            .map(|i| m.begin_logged_to(i, &slots[i as usize], log.buf.clone()))
            .collect();
        // Each transaction wrote one record; the commit record follows it.
        let ends = Arc::new(Mutex::new(vec![0u64; 2]));
        let committers: Vec<_> = cells
            .iter()
            .cloned()
            .enumerate()
            .map(|(i, c)| {
                let (m, ends, buf) = (m.clone(), ends.clone(), log.buf.clone());
                thread::spawn(move || {
                    c.log(crate::wal::record::kind::FIRST_USER + 1, 1, &[i as u8; 40])
                        .unwrap();
                    ends.lock()[i] = buf.insert_lsn().0;
                    m.commit_logged(&c, None, true).unwrap();
                })
            })
            .collect();
        let reader = {
            let (m, cells, synced, ends) =
                (m.clone(), cells.clone(), log.synced.clone(), ends.clone());
            thread::spawn(move || {
                let slot = m.register();
                for _ in 0..3 {
                    let s = m.snapshot(&slot, 0, 0);
                    for (i, c) in cells.iter().enumerate() {
                        // What was seen first, then how far the log was synced by then.
                        let seen = s.sees_write(Some(c), 0) || c.status() != Status::InProgress;
                        let durable = synced.load(Ordering::SeqCst);
                        if seen {
                            let end = ends.lock()[i];
                            assert!(
                                end > 0 && durable > end,
                                "a commit seen before its record is synced"
                            );
                        }
                    }
                    thread::yield_now();
                }
            })
        };
        for h in committers {
            h.join().unwrap();
        }
        reader.join().unwrap();
        stop.store(true, Ordering::SeqCst);
        writer.join().unwrap();
    });
}

/// Claim R1: a checkpointer that reads the insert position, then the transactions' first
/// positions, then its snapshot, gets a redo point at or before every record of every
/// transaction its snapshot does not see.
#[test]
fn the_redo_point_precedes_every_record_the_snapshot_misses() {
    run(|| {
        let stop = Arc::new(crate::sync::AtomicBool::new(false));
        let (log, writer) = ModelLog::start(stop.clone());
        let m = Arc::new(TxnManager::new(4));
        let firsts = Arc::new(Mutex::new(Vec::new()));
        let committers: Vec<_> = (0..2)
            .map(|i| {
                let (m, buf, firsts) = (m.clone(), log.buf.clone(), firsts.clone());
                thread::spawn(move || {
                    let slot = m.register();
                    let c = m.begin_logged_to(i, &slot, buf.clone());
                    let at = c
                        .log(crate::wal::record::kind::FIRST_USER + 1, 1, &[1; 24])
                        .unwrap();
                    firsts.lock().push((c.clone(), at.0));
                    m.commit_logged(&c, None, true).unwrap();
                })
            })
            .collect();
        let checkpointer = {
            let (m, buf, firsts) = (m.clone(), log.buf.clone(), firsts.clone());
            thread::spawn(move || {
                let slot = m.register();
                let insert = buf.insert_lsn().0;
                let first = m.min_first_lsn().unwrap_or(u64::MAX);
                let snap = m.snapshot(&slot, 0, 0);
                let redo = insert.min(first);
                (redo, snap, firsts)
            })
        };
        for h in committers {
            h.join().unwrap();
        }
        let (redo, snap, firsts) = checkpointer.join().unwrap();
        for (c, at) in firsts.lock().iter() {
            if !snap.sees_write(Some(c), 0) {
                assert!(
                    redo <= *at,
                    "a record of a transaction the image misses lies before redo"
                );
            }
        }
        stop.store(true, Ordering::SeqCst);
        writer.join().unwrap();
    });
}

/// Following a commit before it is durable (invariant 8): a writer that acts on a committing
/// transaction's write sees, through its later snapshots, a prefix of the commit order that
/// does not change under it, and its own commit returns only once the one it followed is
/// published (so durable: the test above). A reader from the watermark never sees the
/// follower without the followed.
#[test]
fn a_follower_sees_a_stable_prefix_and_commits_after_what_it_followed() {
    run_n(1000, || {
        let stop = Arc::new(crate::sync::AtomicBool::new(false));
        let (log, writer) = ModelLog::start(stop.clone());
        let m = Arc::new(TxnManager::new(4));
        let slots: Vec<_> = (0..3).map(|_| m.register()).collect();
        let cells: Vec<_> = (0..3)
            .map(|i| m.begin_logged_to(i, &slots[i as usize], log.buf.clone()))
            .collect();
        let committers: Vec<_> = cells[..2]
            .iter()
            .cloned()
            .enumerate()
            .map(|(i, c)| {
                let m = m.clone();
                thread::spawn(move || {
                    c.log(crate::wal::record::kind::FIRST_USER + 1, 1, &[i as u8; 8])
                        .unwrap();
                    m.commit_logged(&c, None, true).unwrap();
                })
            })
            .collect();
        let follower = {
            let (m, cells, slot) = (m.clone(), cells.clone(), slots[2].clone());
            thread::spawn(move || {
                let me = &cells[2];
                me.log(crate::wal::record::kind::FIRST_USER + 1, 1, &[9; 8])
                    .unwrap();
                let mut followed = Vec::new();
                // Looks until it meets a commit (the committers' writes are on its rows).
                for _ in 0..20 {
                    for c in &cells[..2] {
                        if let Status::Committed(csn) = c.writer_status(me) {
                            followed.push(c.clone());
                            let w = m.snapshot(&slot, me.top(), 0);
                            let s = Snapshot {
                                csn: w.csn.max(me.follows() + 1),
                                ..w
                            };
                            assert!(s.csn > csn && s.sees_write(Some(c), 0));
                            let first: Vec<bool> = cells[..2]
                                .iter()
                                .map(|d| s.sees_write(Some(d), 0))
                                .collect();
                            // Until both committers have ended: the view stays.
                            while cells[..2].iter().any(|d| d.status() == Status::InProgress) {
                                thread::yield_now();
                                let now: Vec<bool> = cells[..2]
                                    .iter()
                                    .map(|d| s.sees_write(Some(d), 0))
                                    .collect();
                                assert_eq!(first, now, "a snapshot's view changed under it");
                            }
                        }
                    }
                    if !followed.is_empty() {
                        break;
                    }
                    thread::yield_now();
                }
                m.commit_logged(me, None, true).unwrap();
                for c in &followed {
                    assert!(
                        matches!(c.status(), Status::Committed(_)),
                        "a follower's commit returned before the followed one was published"
                    );
                }
            })
        };
        let reader = {
            let (m, cells) = (m.clone(), cells.clone());
            thread::spawn(move || {
                let slot = m.register();
                for _ in 0..3 {
                    let s = m.snapshot(&slot, 0, 0);
                    if s.sees_write(Some(&cells[2]), 0) {
                        for c in &cells[..2] {
                            if cells[2].follows() >= 1 && c.status() == Status::InProgress {
                                panic!("the follower is seen without what it followed");
                            }
                        }
                    }
                    thread::yield_now();
                }
            })
        };
        for h in committers {
            h.join().unwrap();
        }
        follower.join().unwrap();
        reader.join().unwrap();
        stop.store(true, Ordering::SeqCst);
        writer.join().unwrap();
    });
}
