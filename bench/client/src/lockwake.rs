//! Benchmark 14: how promptly a session waiting for a row lock runs again once the lock is
//! released, alone and beside other work (issue 30, "fair shards").
//!
//! Session A (the holder) runs `BEGIN; UPDATE lockwake SET v = v + 1 WHERE id = 1`; session B
//! (the waiter) then sends the same UPDATE, which waits for A's row lock. After a pause long
//! enough for B to be waiting, A sends COMMIT. The figure is the time from COMMIT's reply to A
//! until B's UPDATE reply (`wake_ms`): the server's wake-up of the waiter, B's re-check and
//! update of the row, and one reply, with no client round trip in between (B's UPDATE runs in
//! a transaction that B commits afterwards, unmeasured). The two replies travel at the same
//! time, so B's may be read first: `wake_ms` is then 0. `commit_ms` is A's COMMIT itself and
//! `handover_ms` the time from sending COMMIT to B's reply.
//!
//! Beside: `--busy N` sessions run point SELECTs on the same table in a loop, and `--long N`
//! sessions run a statement that takes about `--long-rows` rows of work each (a sum over
//! generate_series) in a loop, so that the waiter's shard (threadgres) or CPU (PostgreSQL) has
//! other work when the lock is released.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::conn::{self, ConnOpts, Res, Session};
use crate::stats;

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub conn: ConnOpts,
    /// Lock hand-overs measured (after the warm-up ones).
    #[arg(long, default_value_t = 200)]
    pub rounds: usize,
    #[arg(long, default_value_t = 20)]
    pub warmup_rounds: usize,
    /// Pause between the waiter's UPDATE and the holder's COMMIT.
    #[arg(long, default_value_t = 5.0)]
    pub hold_ms: f64,
    /// Sessions running point SELECTs in a loop meanwhile.
    #[arg(long, default_value_t = 0)]
    pub busy: usize,
    /// Sessions running a long statement in a loop meanwhile.
    #[arg(long, default_value_t = 0)]
    pub long: usize,
    /// Rows of generate_series the long statement sums.
    #[arg(long, default_value_t = 2_000_000)]
    pub long_rows: u64,
    /// Rows in the table (point SELECTs pick among them).
    #[arg(long, default_value_t = 1000)]
    pub table_rows: u64,
    /// Give up when the waiter has not finished this long after the COMMIT.
    #[arg(long, default_value_t = 10.0)]
    pub wake_timeout_s: f64,
}

pub async fn run(a: Args) -> Res<Value> {
    let setup = Session::open(&a.conn, false).await?;
    setup
        .client
        .batch_execute(&format!(
            "DROP TABLE IF EXISTS lockwake; \
             CREATE TABLE lockwake (id int PRIMARY KEY, v bigint NOT NULL); \
             INSERT INTO lockwake SELECT g, 0 FROM generate_series(1, {}) g",
            a.table_rows.max(1)
        ))
        .await?;
    conn::close_all(vec![setup]).await;

    let stop = Arc::new(AtomicBool::new(false));
    let background_ops = Arc::new(AtomicU64::new(0));
    let mut background = Vec::new();
    for i in 0..a.busy {
        let s = Session::open(&a.conn, false).await?;
        let (stop, ops, rows) = (stop.clone(), background_ops.clone(), a.table_rows.max(1));
        background.push(tokio::spawn(async move {
            let st = s
                .client
                .prepare("SELECT v FROM lockwake WHERE id = $1")
                .await?;
            let mut k = i as u64;
            while !stop.load(Ordering::Relaxed) {
                k = (k * 7919 + 13) % rows;
                s.client.query(&st, &[&((k + 1) as i32)]).await?;
                ops.fetch_add(1, Ordering::Relaxed);
            }
            conn::close_all(vec![s]).await;
            Ok::<(), conn::BoxError>(())
        }));
    }
    for _ in 0..a.long {
        let s = Session::open(&a.conn, false).await?;
        let (stop, ops) = (stop.clone(), background_ops.clone());
        let sql = format!("SELECT sum(g) FROM generate_series(1, {}) g", a.long_rows);
        background.push(tokio::spawn(async move {
            while !stop.load(Ordering::Relaxed) {
                s.client.simple_query(&sql).await?;
                ops.fetch_add(1, Ordering::Relaxed);
            }
            conn::close_all(vec![s]).await;
            Ok::<(), conn::BoxError>(())
        }));
    }

    let holder = Session::open(&a.conn, false).await?;
    let waiter = Session::open(&a.conn, false).await?;
    let waiter_client = Arc::new(waiter.client);
    let hold = Duration::from_secs_f64(a.hold_ms / 1000.0);
    let wake_timeout = Duration::from_secs_f64(a.wake_timeout_s);
    let mut wake_ms = Vec::with_capacity(a.rounds);
    let mut commit_ms = Vec::with_capacity(a.rounds);
    let mut handover_ms = Vec::with_capacity(a.rounds);
    let mut early = 0u64;
    let started = Instant::now();
    let result: Res<()> = async {
        for round in 0..a.warmup_rounds + a.rounds {
            holder
                .client
                .batch_execute("BEGIN; UPDATE lockwake SET v = v + 1 WHERE id = 1")
                .await?;
            let w = waiter_client.clone();
            let wait = tokio::spawn(async move {
                let r = w
                    .batch_execute("BEGIN; UPDATE lockwake SET v = v + 1 WHERE id = 1")
                    .await;
                let done = Instant::now();
                // The waiter's own commit (a WAL flush on both servers) is not measured.
                let r = match r {
                    Ok(()) => w.batch_execute("COMMIT").await,
                    Err(e) => Err(e),
                };
                (done, r)
            });
            tokio::time::sleep(hold).await;
            if wait.is_finished() {
                // The waiter did not wait: the lock is not working as it should.
                early += 1;
            }
            let t0 = Instant::now();
            holder.client.batch_execute("COMMIT").await?;
            let committed = Instant::now();
            let (done, r) = tokio::time::timeout(wake_timeout, wait)
                .await
                .map_err(|_| "the waiter did not finish after the COMMIT")??;
            r?;
            if round >= a.warmup_rounds {
                commit_ms.push(conn::ms(committed - t0));
                handover_ms.push(conn::ms(done.saturating_duration_since(t0)));
                wake_ms.push(conn::ms(done.saturating_duration_since(committed)));
            }
        }
        Ok(())
    }
    .await;
    let measured_s = conn::secs(started.elapsed());
    stop.store(true, Ordering::Relaxed);
    for t in background {
        match tokio::time::timeout(Duration::from_secs(30), t).await {
            Ok(Ok(r)) => r?,
            Ok(Err(e)) => return Err(e.into()),
            Err(_) => return Err("a background session did not stop".into()),
        }
    }
    result?;
    if early > 0 {
        return Err(format!("the waiter's UPDATE finished before the COMMIT {early} times").into());
    }
    let mut out = json!({
        "rounds": wake_ms.len(),
        "busy": a.busy,
        "long": a.long,
        "hold_ms": a.hold_ms,
        "background_ops_per_s": background_ops.load(Ordering::Relaxed) as f64 / measured_s,
    });
    let obj = out.as_object_mut().expect("object");
    obj.extend(stats::summary("wake_ms", &mut wake_ms));
    obj.extend(stats::summary("commit_ms", &mut commit_ms));
    obj.extend(stats::summary("handover_ms", &mut handover_ms));
    conn::close_all(vec![holder]).await;
    Ok(out)
}
