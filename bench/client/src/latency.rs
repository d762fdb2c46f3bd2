//! Benchmark 5: notification latency distribution.
//!
//! L listener sessions each LISTEN on all C channels `lat_0 .. lat_<C-1>`. N notifier sessions
//! (each on its own OS thread with its own runtime) repeatedly run `SELECT pg_notify($1, $2)`
//! (extended protocol, prepared once) on a random channel with the send time as payload;
//! paced notifiers sleep between sends. Every delivery's latency is the time between taking the
//! send timestamp and the listener's connection task decoding the notification. Each
//! notification is expected once per listener; what has not arrived after the drain period is
//! counted as lost.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tokio::sync::Barrier;
use tokio_postgres::types::Type;

use crate::conn::{self, BoxError, ConnOpts, Res, Session};
use crate::stats;

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub conn: ConnOpts,
    /// Listener sessions (L), each listening on all channels.
    #[arg(long, default_value_t = 1)]
    pub listeners: usize,
    /// Notifier sessions (N).
    #[arg(long, default_value_t = 1)]
    pub notifiers: usize,
    /// Channels (C).
    #[arg(long, default_value_t = 1000)]
    pub channels: usize,
    /// Measured duration in seconds (after the warm-up).
    #[arg(long, default_value_t = 10.0)]
    pub duration_s: f64,
    #[arg(long, default_value_t = 1.0)]
    pub warmup_s: f64,
    /// Sleep between two sends of one notifier (std::thread::sleep; the OS rounds it up).
    #[arg(long)]
    pub paced: bool,
    #[arg(long, default_value_t = 10.0)]
    pub sleep_us: f64,
    /// How long to wait for outstanding notifications after the last send.
    #[arg(long, default_value_t = 5.0)]
    pub drain_s: f64,
    #[arg(long, default_value_t = 200)]
    pub batch: usize,
    /// Safety bound on sends per notifier.
    #[arg(long, default_value_t = 100_000_000)]
    pub max_sends: u64,
}

static BASE: OnceLock<Instant> = OnceLock::new();

fn base() -> Instant {
    *BASE.get_or_init(Instant::now)
}

struct NotifierResult {
    sent_all: u64,
    sent_window: u64,
    param_types: &'static str,
}

fn xorshift(state: &mut u64) -> u64 {
    let mut x = *state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    *state = x;
    x
}

/// The common schedule of a run, in ns since BASE: sending starts at `start_ns`, sends from
/// `warm_end_ns` on are measured, sending stops at `end_ns`.
#[derive(Default)]
struct Schedule {
    start_ns: AtomicU64,
    warm_end_ns: AtomicU64,
    end_ns: AtomicU64,
}

fn ns_now() -> u64 {
    base().elapsed().as_nanos() as u64
}

fn notifier_thread(
    idx: usize,
    a: Arc<Args>,
    barrier: Arc<Barrier>,
    schedule: Arc<Schedule>,
) -> std::thread::JoinHandle<Res<NotifierResult>> {
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        rt.block_on(async move {
            // Connect and prepare before the barrier; a failure still reaches the barrier so
            // that nobody waits forever.
            let setup = async {
                let s = Session::open(&a.conn, false).await?;
                let sql = "SELECT pg_notify($1, $2)";
                let (stmt, kind) = match s.client.prepare(sql).await {
                    Ok(st) => (st, "inferred"),
                    Err(_) => (
                        s.client
                            .prepare_typed(sql, &[Type::TEXT, Type::TEXT])
                            .await?,
                        "explicit text",
                    ),
                };
                Ok::<_, BoxError>((s, stmt, kind))
            }
            .await;
            barrier.wait().await;
            let (s, stmt, kind) = setup?;
            let start_ns = schedule.start_ns.load(Ordering::Acquire);
            let warm_end_ns = schedule.warm_end_ns.load(Ordering::Acquire);
            let end_ns = schedule.end_ns.load(Ordering::Acquire);
            let wait = start_ns.saturating_sub(ns_now());
            tokio::time::sleep(Duration::from_nanos(wait)).await;
            let names: Vec<String> = (0..a.channels).map(|c| format!("lat_{c}")).collect();
            let mut rng = 0x9E37_79B9_7F4A_7C15u64 ^ ((idx as u64 + 1) * 0x2545_F491_4F6C_DD1D);
            let pause = Duration::from_secs_f64(a.sleep_us.max(0.0) / 1e6);
            let mut r = NotifierResult {
                sent_all: 0,
                sent_window: 0,
                param_types: kind,
            };
            while r.sent_all < a.max_sends {
                let now_ns = ns_now();
                if now_ns >= end_ns {
                    break;
                }
                let ch = &names[(xorshift(&mut rng) % names.len() as u64) as usize];
                let payload = now_ns.to_string();
                s.client.execute(&stmt, &[ch, &payload]).await?;
                r.sent_all += 1;
                if now_ns >= warm_end_ns {
                    r.sent_window += 1;
                }
                if a.paced {
                    std::thread::sleep(pause);
                }
            }
            conn::close_all(vec![s]).await;
            Ok(r)
        })
    })
}

pub async fn run(a: Args) -> Res<Value> {
    if a.channels == 0 || a.notifiers == 0 || a.listeners == 0 {
        return Err("--channels, --notifiers and --listeners must be at least 1".into());
    }
    base();
    let a = Arc::new(a);
    let setup_start = Instant::now();
    let mut listeners = conn::open_many(&a.conn, a.listeners, 32, true, |_| None).await?;
    let multi = conn::supports_multi_statement(&listeners[0].client).await;
    let listen: Vec<String> = (0..a.channels)
        .map(|c| format!("LISTEN lat_{c};"))
        .collect();
    for l in &listeners {
        conn::run_statements(&l.client, &listen, if multi { a.batch } else { 1 }).await?;
    }
    let setup_s = conn::secs(setup_start.elapsed());

    let received = Arc::new(AtomicU64::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let mut consumers = Vec::new();
    for l in listeners.iter_mut() {
        let mut rx = l.take_notes();
        let received = received.clone();
        let stop = stop.clone();
        consumers.push(tokio::spawn(async move {
            // (send time, latency), both in ns since BASE.
            let mut samples: Vec<(u64, u64)> = Vec::new();
            let mut bad_payloads = 0u64;
            loop {
                match tokio::time::timeout(Duration::from_millis(20), rx.recv()).await {
                    Ok(Some(r)) => {
                        received.fetch_add(1, Ordering::Relaxed);
                        let arrived = (r.at - base()).as_nanos() as u64;
                        match r.note.payload().parse::<u64>() {
                            Ok(sent) => samples.push((sent, arrived.saturating_sub(sent))),
                            Err(_) => bad_payloads += 1,
                        }
                    }
                    Ok(None) => break,
                    Err(_) => {
                        if stop.load(Ordering::Relaxed) {
                            break;
                        }
                    }
                }
            }
            (samples, bad_payloads)
        }));
    }

    let barrier = Arc::new(Barrier::new(a.notifiers + 1));
    let schedule = Arc::new(Schedule::default());
    let threads: Vec<_> = (0..a.notifiers)
        .map(|i| notifier_thread(i, a.clone(), barrier.clone(), schedule.clone()))
        .collect();
    // Everybody starts at the same instant, shortly after the barrier, and classifies sends
    // (by their payload) with the same bounds.
    let start_ns = ns_now() + 20_000_000;
    let warm_end_ns = start_ns + (a.warmup_s * 1e9) as u64;
    let end_ns = warm_end_ns + (a.duration_s * 1e9) as u64;
    schedule.start_ns.store(start_ns, Ordering::Release);
    schedule.warm_end_ns.store(warm_end_ns, Ordering::Release);
    schedule.end_ns.store(end_ns, Ordering::Release);
    barrier.wait().await;

    // Wait for the notifier threads without blocking the runtime.
    let mut results = Vec::new();
    let mut first_error: Option<String> = None;
    for t in threads {
        let joined = tokio::task::spawn_blocking(move || t.join()).await;
        match joined {
            Ok(Ok(Ok(r))) => results.push(r),
            Ok(Ok(Err(e))) => {
                first_error.get_or_insert(e.to_string());
            }
            _ => {
                first_error.get_or_insert("notifier thread panicked".into());
            }
        }
    }
    let send_end = Instant::now();
    let sent_all: u64 = results.iter().map(|r| r.sent_all).sum();
    let sent_window: u64 = results.iter().map(|r| r.sent_window).sum();
    let expected = sent_all * a.listeners as u64;
    let drain_deadline = send_end + Duration::from_secs_f64(a.drain_s);
    while received.load(Ordering::Relaxed) < expected && Instant::now() < drain_deadline {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let drain_wait_s = conn::secs(send_end.elapsed());
    stop.store(true, Ordering::Relaxed);
    let mut lat_ms: Vec<f64> = Vec::new();
    let mut received_window = 0u64;
    let mut bad = 0u64;
    for c in consumers {
        let (samples, b) = c.await?;
        bad += b;
        for (sent, lat) in samples {
            if sent >= warm_end_ns {
                received_window += 1;
                lat_ms.push(lat as f64 / 1e6);
            }
        }
    }
    if let Some(e) = first_error {
        return Err(e.into());
    }
    let received_all = received.load(Ordering::Relaxed);
    let measured_s = a.duration_s;
    let hist = stats::latency_histogram(&lat_ms);
    let mut out = json!({
        "listeners": a.listeners,
        "notifiers": a.notifiers,
        "channels": a.channels,
        "paced": a.paced,
        "sleep_us": if a.paced { a.sleep_us } else { 0.0 },
        "param_types": results.first().map(|r| r.param_types).unwrap_or(""),
        "sent": sent_window,
        "received": received_window,
        "sent_per_s": sent_window as f64 / measured_s,
        "received_per_s": received_window as f64 / measured_s,
        "sent_all": sent_all,
        "received_all": received_all,
        "expected_all": expected,
        "lost": expected.saturating_sub(received_all),
        "unexpected_payloads": bad,
        "drain_wait_s": drain_wait_s,
        "setup_s": setup_s,
        "histogram": hist,
    });
    out.as_object_mut()
        .expect("object")
        .extend(stats::summary("latency_ms", &mut lat_ms));
    conn::close_all(listeners).await;
    Ok(out)
}
