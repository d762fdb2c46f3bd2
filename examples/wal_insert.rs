//! WAL insertion micro-benchmark (issue 29): reservation and copy only, no I/O, with 1 … N
//! threads, against an in-run baseline built like PostgreSQL's.
//!
//! ```text
//! cargo run --release --example wal_insert -- [max_threads] [seconds_per_point] [payload_bytes]
//! ```
//!
//! Each thread inserts records of `payload_bytes` (default 100) into one [`WalBuffer`] with a
//! 64 MiB ring; a consumer thread plays the writer with a sink that drops the bytes (so the
//! ring never fills unless the consumer falls behind). Two variants of the same code:
//!
//! * `atomic` — threadgres: reservation is one `fetch_add` on the insert position.
//! * `locked` — the baseline: the same `fetch_add` under a mutex, as PostgreSQL reserves under
//!   its `insertpos_lck` spinlock (its 8-insertion-lock limit is not modelled: both variants
//!   copy in parallel through the same slots).
//!
//! Prints CSV: `threads,atomic_records_per_s,locked_records_per_s,ratio`.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

use threadgres::error::PgResult;
use threadgres::wal::record::kind;
use threadgres::wal::{Sink, WalBuffer};

struct Discard;

impl Sink for Discard {
    fn write(&mut self, _: u64, _: &[u8]) -> PgResult<()> {
        Ok(())
    }
    fn sync(&mut self) -> PgResult<()> {
        Ok(())
    }
}

fn point(threads: usize, secs: f64, payload: usize, locked: bool) -> f64 {
    let mut buf = WalBuffer::new(4096, 64 << 20);
    if locked {
        buf = buf.with_locked_reservation();
    }
    let buf = Arc::new(buf);
    let stop = Arc::new(AtomicBool::new(false));
    // The consumer stops only after the inserters: one waiting for ring space (the consumer
    // falls behind when threads outnumber cores) needs it to finish.
    let consumer_stop = Arc::new(AtomicBool::new(false));
    let consumer = {
        let (buf, stop) = (buf.clone(), consumer_stop.clone());
        std::thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                if !buf.write_step(&mut Discard, false).unwrap() {
                    std::thread::yield_now();
                }
            }
        })
    };
    let total = Arc::new(AtomicU64::new(0));
    let start = Arc::new(Barrier::new(threads + 1));
    let workers: Vec<_> = (0..threads)
        .map(|t| {
            let (buf, stop, total, start) =
                (buf.clone(), stop.clone(), total.clone(), start.clone());
            std::thread::spawn(move || {
                let data = vec![t as u8; payload];
                let mut n = 0u64;
                start.wait();
                while !stop.load(Ordering::Relaxed) {
                    for _ in 0..64 {
                        buf.insert_blocking(kind::FIRST_USER, 0, n, &data).unwrap();
                        n += 1;
                    }
                }
                total.fetch_add(n, Ordering::Relaxed);
            })
        })
        .collect();
    start.wait();
    let t0 = Instant::now();
    std::thread::sleep(Duration::from_secs_f64(secs));
    stop.store(true, Ordering::Relaxed);
    for w in workers {
        w.join().unwrap();
    }
    let elapsed = t0.elapsed().as_secs_f64();
    consumer_stop.store(true, Ordering::Relaxed);
    consumer.join().unwrap();
    total.load(Ordering::Relaxed) as f64 / elapsed
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let max: usize = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(64);
    let secs: f64 = args.get(2).and_then(|a| a.parse().ok()).unwrap_or(1.0);
    let payload: usize = args.get(3).and_then(|a| a.parse().ok()).unwrap_or(100);
    println!("threads,atomic_records_per_s,locked_records_per_s,ratio");
    let mut threads = 1;
    while threads <= max {
        let atomic = point(threads, secs, payload, false);
        let locked = point(threads, secs, payload, true);
        println!(
            "{threads},{atomic:.0},{locked:.0},{:.2}",
            atomic / locked.max(1.0)
        );
        threads *= 2;
    }
}
