//! Benchmark 2: ping-pong between two sessions with K idle listeners.
//!
//! Session A listens on `thread_1`, session B on `thread_2`. A runs
//! `SELECT pg_notify('thread_2', NULL)`; B, on receiving it, runs
//! `SELECT pg_notify('thread_1', NULL)`; a round trip ends when A receives that. K extra
//! sessions each LISTEN on a channel of their own and do nothing else.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::conn::{self, ConnOpts, Res, Session};
use crate::stats;

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub conn: ConnOpts,
    /// Extra idle sessions, each listening on a channel of its own.
    #[arg(long, default_value_t = 0)]
    pub extra: usize,
    /// Measured duration in seconds (after the warm-up).
    #[arg(long, default_value_t = 5.0)]
    pub duration_s: f64,
    #[arg(long, default_value_t = 1.0)]
    pub warmup_s: f64,
    /// Give up when a reply takes longer than this.
    #[arg(long, default_value_t = 10.0)]
    pub reply_timeout_s: f64,
    #[arg(long, default_value_t = 32)]
    pub connect_concurrency: usize,
    /// Upper bound on round trips (a safety bound; the duration normally ends the run).
    #[arg(long, default_value_t = 100_000_000)]
    pub max_round_trips: u64,
}

pub async fn run(a: Args) -> Res<Value> {
    let setup_start = Instant::now();
    let extras = conn::open_many(&a.conn, a.extra, a.connect_concurrency, false, |i| {
        Some(format!("LISTEN pingpong_idle_{i}"))
    })
    .await?;
    let mut sa = Session::open(&a.conn, true).await?;
    let mut sb = Session::open(&a.conn, true).await?;
    sa.client.simple_query("LISTEN thread_1").await?;
    sb.client.simple_query("LISTEN thread_2").await?;
    let setup_s = conn::secs(setup_start.elapsed());

    let reply_timeout = Duration::from_secs_f64(a.reply_timeout_s);
    let stop = Arc::new(AtomicBool::new(false));

    // B: answer every notification on thread_2 with one on thread_1.
    let mut b_rx = sb.take_notes();
    let b_client = sb.client;
    let b_stop = stop.clone();
    let b_task = tokio::spawn(async move {
        let mut answered = 0u64;
        while !b_stop.load(Ordering::Relaxed) {
            match tokio::time::timeout(Duration::from_millis(100), b_rx.recv()).await {
                Ok(Some(_)) => {
                    b_client
                        .simple_query("SELECT pg_notify('thread_1', NULL)")
                        .await?;
                    answered += 1;
                }
                Ok(None) => return Err::<u64, conn::BoxError>("session B closed".into()),
                Err(_) => {}
            }
        }
        drop(b_client);
        Ok(answered)
    });

    // A: ping, wait for the pong, repeat.
    let mut a_rx = sa.take_notes();
    let start = Instant::now();
    let warm_end = start + Duration::from_secs_f64(a.warmup_s);
    let end = warm_end + Duration::from_secs_f64(a.duration_s);
    let mut rtts_ms: Vec<f64> = Vec::new();
    let mut first_start: Option<Instant> = None;
    let mut last_end = warm_end;
    let mut total = 0u64;
    let result: Res<()> = async {
        while total < a.max_round_trips {
            let t = Instant::now();
            if t >= end {
                break;
            }
            sa.client
                .simple_query("SELECT pg_notify('thread_2', NULL)")
                .await?;
            conn::recv_within(&mut a_rx, reply_timeout).await?;
            total += 1;
            if t >= warm_end {
                let done = Instant::now();
                first_start.get_or_insert(t);
                last_end = done;
                rtts_ms.push(conn::ms(done - t));
            }
        }
        Ok(())
    }
    .await;
    stop.store(true, Ordering::Relaxed);
    let answered = match tokio::time::timeout(Duration::from_secs(5), b_task).await {
        Ok(Ok(r)) => r?,
        Ok(Err(e)) => return Err(e.into()),
        Err(_) => return Err("session B did not stop".into()),
    };
    result?;

    let counted = rtts_ms.len() as u64;
    let window = first_start.map(|f| conn::secs(last_end - f)).unwrap_or(0.0);
    let mut out = json!({
        "extra": a.extra,
        "round_trips": counted,
        "round_trips_total": total,
        "answered_by_b": answered,
        "measured_s": window,
        "rt_per_s": if window > 0.0 { counted as f64 / window } else { 0.0 },
        "setup_s": setup_s,
    });
    let obj = out.as_object_mut().expect("object");
    obj.extend(stats::summary("rtt_ms", &mut rtts_ms));
    drop(a_rx);
    let mut all = extras;
    all.push(sa);
    conn::close_all(all).await;
    Ok(out)
}
