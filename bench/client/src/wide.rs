//! Benchmark 4: commit time of a wide NOTIFY.
//!
//! One transaction NOTIFYs N distinct channels while L listener sessions LISTEN on all N
//! (and I further sessions are connected but idle). Measured per iteration: the time the
//! sender's COMMIT takes, and the time from sending COMMIT until every listener has received
//! all N notifications of that transaction.

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::conn::{self, ConnOpts, Res, Session, Tally};
use crate::stats;

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub conn: ConnOpts,
    /// Distinct channels notified by the transaction (N).
    #[arg(long)]
    pub channels: usize,
    /// Sessions listening on all N channels (L).
    #[arg(long, default_value_t = 1)]
    pub listeners: usize,
    /// Connected sessions that do not listen (I).
    #[arg(long, default_value_t = 0)]
    pub idle: usize,
    /// Measured transactions.
    #[arg(long, default_value_t = 5)]
    pub iterations: usize,
    /// Transactions run before measuring.
    #[arg(long, default_value_t = 1)]
    pub warmup_iterations: usize,
    /// Statements per simple Query message when setting up (if the server accepts several).
    #[arg(long, default_value_t = 200)]
    pub batch: usize,
    /// Give up when the notifications of one transaction take longer than this to arrive.
    #[arg(long, default_value_t = 60.0)]
    pub deliver_timeout_s: f64,
    #[arg(long, default_value_t = 32)]
    pub connect_concurrency: usize,
}

pub async fn run(a: Args) -> Res<Value> {
    if a.channels == 0 || a.iterations == 0 {
        return Err("--channels and --iterations must be at least 1".into());
    }
    let setup_start = Instant::now();
    let idle = conn::open_many(&a.conn, a.idle, a.connect_concurrency, false, |_| None).await?;
    let sender = Session::open(&a.conn, false).await?;
    let multi = conn::supports_multi_statement(&sender.client).await;
    let batch = if multi { a.batch } else { 1 };
    let listen: Vec<String> = (0..a.channels)
        .map(|c| format!("LISTEN wide_{c};"))
        .collect();
    // Listeners are read on a thread of their own (see `conn::SideRuntime`), and count the
    // notifications in their connection tasks (see `conn::Tally`).
    let side = conn::SideRuntime::new("listeners")?;
    let tallies: Vec<Arc<Tally>> = (0..a.listeners).map(|_| Arc::default()).collect();
    let (opts, concurrency, sinks) = (a.conn.clone(), a.connect_concurrency, tallies.clone());
    let listeners = side
        .run(async move { conn::open_tallied(&opts, &sinks, concurrency).await })
        .await?;
    for l in &listeners {
        conn::run_statements(&l.client, &listen, batch).await?;
    }
    let setup_s = conn::secs(setup_start.elapsed());

    let deliver_timeout = Duration::from_secs_f64(a.deliver_timeout_s);
    let mut commit_ms = Vec::new();
    let mut deliver_ms = Vec::new();
    let mut notify_phase_ms = Vec::new();
    let mut first_ms = Vec::new();
    for it in 0..(a.warmup_iterations + a.iterations) {
        let notifies: Vec<String> = (0..a.channels)
            .map(|c| format!("NOTIFY wide_{c}, '{it}';"))
            .collect();
        let t_begin = Instant::now();
        sender.client.simple_query("BEGIN").await?;
        conn::run_statements(&sender.client, &notifies, batch).await?;
        // Every listener must see N notifications carrying this iteration's payload.
        for t in &tallies {
            t.expect(it as u64, a.channels);
        }
        let t0 = Instant::now();
        sender.client.simple_query("COMMIT").await?;
        let commit = t0.elapsed();

        let deadline = t0 + deliver_timeout;
        let mut slowest = Duration::ZERO;
        let mut first = Duration::MAX;
        for t in &tallies {
            let (f, l) = t.wait(deadline).await.map_err(|got| {
                format!(
                    "iteration {it}: listener has {got} of {} notifications after {:?}",
                    a.channels, deliver_timeout
                )
            })?;
            first = first.min(f.saturating_duration_since(t0));
            slowest = slowest.max(l.saturating_duration_since(t0));
        }
        if it >= a.warmup_iterations {
            commit_ms.push(conn::ms(commit));
            notify_phase_ms.push(conn::ms(t0 - t_begin));
            if a.listeners > 0 {
                deliver_ms.push(conn::ms(slowest));
                first_ms.push(conn::ms(first));
            }
        }
    }

    let commit_samples = commit_ms.clone();
    let deliver_samples = deliver_ms.clone();
    let first_samples = first_ms.clone();
    let mut out = json!({
        "channels": a.channels,
        "listeners": a.listeners,
        "idle": a.idle,
        "iterations": a.iterations,
        "multi_statement": multi,
        "setup_s": setup_s,
        "commit_ms_samples": commit_samples,
        "deliver_ms_samples": deliver_samples,
        "first_ms_samples": first_samples,
    });
    let obj = out.as_object_mut().expect("object");
    obj.extend(stats::summary("commit_ms", &mut commit_ms));
    obj.extend(stats::summary("notify_phase_ms", &mut notify_phase_ms));
    if a.listeners > 0 {
        obj.extend(stats::summary("deliver_ms", &mut deliver_ms));
        obj.extend(stats::summary("first_ms", &mut first_ms));
    }
    let mut all = idle;
    all.extend(listeners);
    all.push(sender);
    conn::close_all(all).await;
    drop(side);
    Ok(out)
}
