//! In-process micro-benchmarks of the paths every session shares, with 1 … N threads and no
//! network (issue 19: "scaling past 2 cores"): how many operations per second the whole
//! process does as threads are added. Run it on a machine with many cores:
//!
//! ```text
//! cargo run --release --example shared_paths -- [max_threads] [seconds_per_point]
//! ```
//!
//! Prints one CSV line per (workload, threads): `workload,threads,ops_per_s,per_thread`.
//! Workloads:
//!
//! * `snapshot` — take a snapshot (one watermark read and a store into the session's slot).
//! * `commit` — begin a transaction and commit it (a CSN `fetch_add`, the ring, the watermark).
//! * `index_lookup` — find a key in a 1,000,000-entry ordered index (scc TreeIndex).
//! * `index_insert` — insert distinct keys into one shared index.
//! * `heap_fetch` — read the visible version of a random row of a 1,000,000-row heap.
//! * `row_share_lock` — FOR KEY SHARE on one hot row and release (every thread on the same
//!   row: the shared-locker list under contention), through a transaction's begin and abort.
//! * `row_update_lock` — FOR UPDATE on a row of the thread's own, then release.
//! * `relation_lock` — ACCESS SHARE on one table and release (what every statement takes:
//!   seed 004's "cheap shared locks"; all threads on one relation).
//!
//! The figures show where a shared cache line or lock limits scaling; the network benchmarks
//! (bench/run.sh) measure what a client sees.

use std::ops::Bound;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

use threadgres::storage::{Heap, Index, LockMode};
use threadgres::txn::lock::{LockMode as RelMode, LockTable};
use threadgres::txn::TxnManager;

const ROWS: u64 = 1_000_000;

/// A small xorshift generator per thread (no shared state, no allocation).
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }
}

struct Shared {
    txns: TxnManager,
    index: Index<u64>,
    heap: Heap<u64>,
    locks: LockTable,
    insert_key: AtomicU64,
}

fn setup() -> Arc<Shared> {
    let txns = TxnManager::new(4096);
    let index = Index::new();
    let heap = Heap::default();
    let loader = txns.begin(0);
    for k in 0..ROWS {
        let row = heap.insert(k, &loader, 0);
        index.insert(k, row);
    }
    txns.commit(&loader);
    Arc::new(Shared {
        txns,
        index,
        heap,
        locks: LockTable::default(),
        insert_key: AtomicU64::new(ROWS),
    })
}

/// One workload's operation: (shared state, the thread's generator, thread number) -> ops done.
type Op = fn(&Shared, &mut Rng, usize) -> u64;

/// Runs `op` on `threads` threads for `secs`; returns total operations.
fn run(shared: &Arc<Shared>, threads: usize, secs: f64, op: Op) -> u64 {
    let stop = Arc::new(AtomicBool::new(false));
    let start = Arc::new(Barrier::new(threads + 1));
    let handles: Vec<_> = (0..threads)
        .map(|t| {
            let (shared, stop, start) = (shared.clone(), stop.clone(), start.clone());
            std::thread::spawn(move || {
                let mut rng = Rng(0x9E37_79B9_7F4A_7C15 ^ ((t as u64 + 1) * 0x1234_5678));
                start.wait();
                let mut n = 0;
                while !stop.load(Ordering::Relaxed) {
                    for _ in 0..64 {
                        n += op(&shared, &mut rng, t);
                    }
                }
                n
            })
        })
        .collect();
    start.wait();
    std::thread::sleep(Duration::from_secs_f64(secs));
    stop.store(true, Ordering::Relaxed);
    handles.into_iter().map(|h| h.join().unwrap_or(0)).sum()
}

fn snapshot(s: &Shared, _: &mut Rng, _: usize) -> u64 {
    thread_local! {
        static SLOT: std::cell::OnceCell<Arc<threadgres::txn::SnapshotSlot>> = const { std::cell::OnceCell::new() };
    }
    SLOT.with(|slot| {
        let slot = slot.get_or_init(|| s.txns.register());
        std::hint::black_box(s.txns.snapshot(slot, 0, 0));
    });
    1
}

fn commit(s: &Shared, _: &mut Rng, t: usize) -> u64 {
    let cell = s.txns.begin(t as i32);
    s.txns.commit(&cell);
    1
}

fn index_lookup(s: &Shared, rng: &mut Rng, _: usize) -> u64 {
    let k = rng.next() % ROWS;
    let mut found = 0;
    s.index
        .scan(Bound::Included(&k), Bound::Included(&k), None, 1, |_, r| {
            found = r;
            false
        });
    std::hint::black_box(found);
    1
}

fn index_insert(s: &Shared, _: &mut Rng, _: usize) -> u64 {
    let k = s.insert_key.fetch_add(1, Ordering::Relaxed);
    s.index.insert(k, k);
    1
}

fn heap_fetch(s: &Shared, rng: &mut Rng, _: usize) -> u64 {
    thread_local! {
        static SNAP: std::cell::Cell<Option<threadgres::txn::Snapshot>> = const { std::cell::Cell::new(None) };
    }
    let snap = SNAP.with(|c| {
        c.get().unwrap_or_else(|| {
            let slot = s.txns.register();
            let snap = s.txns.snapshot(&slot, 0, 0);
            c.set(Some(snap));
            snap
        })
    });
    let id = rng.next() % ROWS;
    std::hint::black_box(s.heap.fetch(id, &snap, |_, v| *v));
    1
}

fn row_share_lock(s: &Shared, _: &mut Rng, t: usize) -> u64 {
    let cell = s.txns.begin(t as i32);
    std::hint::black_box(s.heap.lock(0, None, &cell, 0, LockMode::KeyShare));
    s.txns.abort(&cell, &[]);
    1
}

fn row_update_lock(s: &Shared, _: &mut Rng, t: usize) -> u64 {
    let cell = s.txns.begin(t as i32);
    std::hint::black_box(s.heap.lock(1 + t as u64, None, &cell, 0, LockMode::Update));
    s.txns.abort(&cell, &[]);
    1
}

fn relation_lock(s: &Shared, _: &mut Rng, t: usize) -> u64 {
    thread_local! {
        static CELL: std::cell::OnceCell<Arc<threadgres::txn::TxnCell>> = const { std::cell::OnceCell::new() };
    }
    CELL.with(|c| {
        let me = c.get_or_init(|| s.txns.begin(t as i32));
        std::hint::black_box(s.locks.acquire(16384, RelMode::AccessShare, me));
        s.locks.release(16384, me);
    });
    1
}

fn main() {
    let mut args = std::env::args().skip(1);
    let max: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or_else(|| {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(2)
    });
    let secs: f64 = args.next().and_then(|a| a.parse().ok()).unwrap_or(1.0);
    let mut counts = vec![1usize];
    while *counts.last().unwrap_or(&1) * 2 <= max {
        counts.push(counts.last().unwrap_or(&1) * 2);
    }
    if *counts.last().unwrap_or(&1) != max {
        counts.push(max);
    }
    let shared = setup();
    let workloads: [(&str, Op); 8] = [
        ("snapshot", snapshot),
        ("commit", commit),
        ("index_lookup", index_lookup),
        ("index_insert", index_insert),
        ("heap_fetch", heap_fetch),
        ("row_share_lock", row_share_lock),
        ("row_update_lock", row_update_lock),
        ("relation_lock", relation_lock),
    ];
    println!("workload,threads,ops_per_s,per_thread");
    for (name, op) in workloads {
        for &t in &counts {
            let begin = Instant::now();
            let n = run(&shared, t, secs, op);
            let rate = n as f64 / begin.elapsed().as_secs_f64();
            println!("{name},{t},{rate:.0},{:.0}", rate / t as f64);
        }
    }
}
