//! Benchmark 3: multicast ping-pong.
//!
//! G groups; in group g one ping session runs `SELECT pg_notify('mc_<g>_ping', NULL)`, P pong
//! sessions listen on `mc_<g>_ping` and each answer with `SELECT pg_notify('mc_<g>_pong', NULL)`;
//! the ping session (listening on `mc_<g>_pong`) ends a round trip when all P answers arrived.
//! The result is the total of round trips per second over all groups.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::conn::{self, BoxError, ConnOpts, Res, Session};
use crate::stats;

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub conn: ConnOpts,
    /// Number of channel groups (G).
    #[arg(long)]
    pub groups: usize,
    /// Pong sessions per group (P).
    #[arg(long)]
    pub pongs: usize,
    #[arg(long, default_value_t = 5.0)]
    pub duration_s: f64,
    #[arg(long, default_value_t = 1.0)]
    pub warmup_s: f64,
    #[arg(long, default_value_t = 10.0)]
    pub reply_timeout_s: f64,
    #[arg(long, default_value_t = 32)]
    pub connect_concurrency: usize,
    /// Safety bound on round trips per group.
    #[arg(long, default_value_t = 100_000_000)]
    pub max_round_trips: u64,
}

struct GroupResult {
    counted: u64,
    first_start: Option<Instant>,
    last_end: Option<Instant>,
    rtts_ms: Vec<f64>,
}

pub async fn run(a: Args) -> Res<Value> {
    if a.groups == 0 || a.pongs == 0 {
        return Err("--groups and --pongs must be at least 1".into());
    }
    let setup_start = Instant::now();
    let pongs = conn::open_many(
        &a.conn,
        a.groups * a.pongs,
        a.connect_concurrency,
        true,
        |i| Some(format!("LISTEN mc_{}_ping", i / a.pongs)),
    )
    .await?;
    let pings = conn::open_many(&a.conn, a.groups, a.connect_concurrency, true, |g| {
        Some(format!("LISTEN mc_{g}_pong"))
    })
    .await?;
    let setup_s = conn::secs(setup_start.elapsed());

    let stop = Arc::new(AtomicBool::new(false));
    let reply_timeout = Duration::from_secs_f64(a.reply_timeout_s);

    let mut pong_tasks = Vec::new();
    for (i, mut s) in pongs.into_iter().enumerate() {
        let g = i / a.pongs;
        let stop = stop.clone();
        let mut rx = s.take_notes();
        pong_tasks.push(tokio::spawn(async move {
            let reply = format!("SELECT pg_notify('mc_{g}_pong', NULL)");
            while !stop.load(Ordering::Relaxed) {
                match tokio::time::timeout(Duration::from_millis(100), rx.recv()).await {
                    Ok(Some(_)) => {
                        s.client.simple_query(&reply).await?;
                    }
                    Ok(None) => return Err::<Session, BoxError>("pong session closed".into()),
                    Err(_) => {}
                }
            }
            Ok(s)
        }));
    }

    let start = Instant::now();
    let warm_end = start + Duration::from_secs_f64(a.warmup_s);
    let end = warm_end + Duration::from_secs_f64(a.duration_s);
    let mut ping_tasks = Vec::new();
    for (g, mut s) in pings.into_iter().enumerate() {
        let pongs = a.pongs;
        let max_rt = a.max_round_trips;
        let mut rx = s.take_notes();
        ping_tasks.push(tokio::spawn(async move {
            let ping = format!("SELECT pg_notify('mc_{g}_ping', NULL)");
            let mut r = GroupResult {
                counted: 0,
                first_start: None,
                last_end: None,
                rtts_ms: Vec::new(),
            };
            let mut total = 0u64;
            while total < max_rt {
                let t = Instant::now();
                if t >= end {
                    break;
                }
                s.client.simple_query(&ping).await?;
                for _ in 0..pongs {
                    conn::recv_within(&mut rx, reply_timeout).await?;
                }
                total += 1;
                if t >= warm_end {
                    let done = Instant::now();
                    r.counted += 1;
                    r.first_start.get_or_insert(t);
                    r.last_end = Some(done);
                    r.rtts_ms.push(conn::ms(done - t));
                }
            }
            Ok::<(GroupResult, Session), BoxError>((r, s))
        }));
    }

    let mut first_error: Option<BoxError> = None;
    let mut results = Vec::new();
    let mut sessions = Vec::new();
    for t in ping_tasks {
        match t.await {
            Ok(Ok((r, s))) => {
                results.push(r);
                sessions.push(s);
            }
            Ok(Err(e)) => {
                first_error.get_or_insert(e);
            }
            Err(e) => {
                first_error.get_or_insert(e.into());
            }
        }
    }
    stop.store(true, Ordering::Relaxed);
    for t in pong_tasks {
        match tokio::time::timeout(Duration::from_secs(5), t).await {
            Ok(Ok(Ok(s))) => sessions.push(s),
            Ok(Ok(Err(e))) => {
                first_error.get_or_insert(e);
            }
            Ok(Err(e)) => {
                first_error.get_or_insert(e.into());
            }
            Err(_) => {
                first_error.get_or_insert("a pong session did not stop".into());
            }
        }
    }
    if let Some(e) = first_error {
        return Err(e);
    }

    let counted: u64 = results.iter().map(|r| r.counted).sum();
    let first = results.iter().filter_map(|r| r.first_start).min();
    let last = results.iter().filter_map(|r| r.last_end).max();
    let window = match (first, last) {
        (Some(f), Some(l)) => conn::secs(l - f),
        _ => 0.0,
    };
    let mut rtts: Vec<f64> = results.into_iter().flat_map(|r| r.rtts_ms).collect();
    let mut out = json!({
        "groups": a.groups,
        "pongs": a.pongs,
        "sessions": a.groups * (a.pongs + 1),
        "round_trips": counted,
        "measured_s": window,
        "rt_per_s": if window > 0.0 { counted as f64 / window } else { 0.0 },
        "setup_s": setup_s,
    });
    out.as_object_mut()
        .expect("object")
        .extend(stats::summary("rtt_ms", &mut rtts));
    conn::close_all(sessions).await;
    Ok(out)
}
