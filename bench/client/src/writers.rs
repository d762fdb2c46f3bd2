//! Benchmark 6: notifying writers.
//!
//! C sessions each run transactions `BEGIN; NOTIFY <channel>, '<i>'; [extra SQL;] COMMIT;`
//! (separate simple-protocol statements) for the duration, after setting
//! `synchronous_commit` for their session. Reports committed transactions per second. The
//! extra statement may name its session's number as `{i}` (e.g. each session updates a row of
//! its own); `--without-notify` leaves the NOTIFY out, the same run's baseline.

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tokio::sync::Barrier;

use crate::conn::{self, BoxError, ConnOpts, Res, Session};
use crate::stats;

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub conn: ConnOpts,
    /// Writer sessions (C).
    #[arg(long)]
    pub clients: usize,
    #[arg(long, default_value_t = 5.0)]
    pub duration_s: f64,
    #[arg(long, default_value_t = 1.0)]
    pub warmup_s: f64,
    /// Sessions listening on the channel (they only drain notifications).
    #[arg(long, default_value_t = 1)]
    pub listeners: usize,
    /// `per-client` (channel writers_<i>) or `common` (one channel `writers`).
    #[arg(long, default_value = "common")]
    pub channel: String,
    /// Value for `SET synchronous_commit` in every writer session; empty: leave it alone.
    #[arg(long, default_value = "on")]
    pub synchronous_commit: String,
    /// An extra statement run inside every transaction (e.g. a row update once tables exist);
    /// `{i}` in it becomes the session's number (0 .. C-1).
    #[arg(long)]
    pub extra_sql: Option<String>,
    /// Leave the NOTIFY out of the transactions (the baseline of the same workload).
    #[arg(long)]
    pub without_notify: bool,
    #[arg(long, default_value_t = 32)]
    pub connect_concurrency: usize,
    /// Safety bound on transactions per client.
    #[arg(long, default_value_t = 100_000_000)]
    pub max_transactions: u64,
}

struct WriterResult {
    counted: u64,
    lat_ms: Vec<f64>,
    last_end: Option<Instant>,
    session: Session,
}

pub async fn run(a: Args) -> Res<Value> {
    if a.clients == 0 {
        return Err("--clients must be at least 1".into());
    }
    let per_client = match a.channel.as_str() {
        "common" => false,
        "per-client" => true,
        other => return Err(format!("unknown --channel {other}").into()),
    };
    let setup_start = Instant::now();
    let channel_of = move |i: usize| {
        if per_client {
            format!("writers_{i}")
        } else {
            "writers".to_string()
        }
    };
    let mut listeners =
        conn::open_many(&a.conn, a.listeners, a.connect_concurrency, true, |_| None).await?;
    for l in &listeners {
        if per_client {
            let stmts: Vec<String> = (0..a.clients)
                .map(|i| format!("LISTEN {};", channel_of(i)))
                .collect();
            conn::run_statements(&l.client, &stmts, 1).await?;
        } else {
            l.client.simple_query("LISTEN writers").await?;
        }
    }
    // Listeners only drain what they receive.
    let drains: Vec<_> = listeners
        .iter_mut()
        .map(|l| {
            let mut rx = l.take_notes();
            tokio::spawn(async move {
                let mut n = 0u64;
                while rx.recv().await.is_some() {
                    n += 1;
                }
                n
            })
        })
        .collect();

    let writers =
        conn::open_many(&a.conn, a.clients, a.connect_concurrency, false, |_| None).await?;
    let mut sync_accepted = 0usize;
    let mut sync_error: Option<String> = None;
    if !a.synchronous_commit.is_empty() {
        for w in &writers {
            let stmt = format!("SET synchronous_commit = {}", a.synchronous_commit);
            match w.client.simple_query(&stmt).await {
                Ok(_) => sync_accepted += 1,
                Err(e) => {
                    sync_error.get_or_insert(e.to_string());
                }
            }
        }
    }
    let setup_s = conn::secs(setup_start.elapsed());

    let barrier = Arc::new(Barrier::new(a.clients));
    let mut tasks = Vec::new();
    for (i, s) in writers.into_iter().enumerate() {
        let barrier = barrier.clone();
        let extra = a
            .extra_sql
            .as_ref()
            .map(|x| x.replace("{i}", &i.to_string()));
        let notify = (!a.without_notify).then(|| format!("NOTIFY {}, '{i}'", channel_of(i)));
        let (warmup, duration, max_tx) = (a.warmup_s, a.duration_s, a.max_transactions);
        tasks.push(tokio::spawn(async move {
            barrier.wait().await;
            let start = Instant::now();
            let warm_end = start + Duration::from_secs_f64(warmup);
            let end = warm_end + Duration::from_secs_f64(duration);
            let mut r = WriterResult {
                counted: 0,
                lat_ms: Vec::new(),
                last_end: None,
                session: s,
            };
            let mut total = 0u64;
            while total < max_tx {
                let t = Instant::now();
                if t >= end {
                    break;
                }
                let c = &r.session.client;
                c.simple_query("BEGIN").await?;
                if let Some(n) = notify.as_ref() {
                    c.simple_query(n).await?;
                }
                if let Some(x) = extra.as_ref() {
                    c.simple_query(x).await?;
                }
                c.simple_query("COMMIT").await?;
                total += 1;
                if t >= warm_end {
                    let done = Instant::now();
                    r.counted += 1;
                    r.last_end = Some(done);
                    r.lat_ms.push(conn::ms(done - t));
                }
            }
            Ok::<(WriterResult, Instant), BoxError>((r, warm_end))
        }));
    }
    let mut counted = 0u64;
    let mut lat: Vec<f64> = Vec::new();
    let mut window_start: Option<Instant> = None;
    let mut window_end: Option<Instant> = None;
    let mut sessions = Vec::new();
    let mut first_error: Option<BoxError> = None;
    for t in tasks {
        match t.await {
            Ok(Ok((r, warm_end))) => {
                counted += r.counted;
                lat.extend(r.lat_ms);
                window_start = Some(window_start.map_or(warm_end, |w| w.min(warm_end)));
                if let Some(e) = r.last_end {
                    window_end = Some(window_end.map_or(e, |w| w.max(e)));
                }
                sessions.push(r.session);
            }
            Ok(Err(e)) => {
                first_error.get_or_insert(e);
            }
            Err(e) => {
                first_error.get_or_insert(e.into());
            }
        }
    }
    if let Some(e) = first_error {
        return Err(e);
    }
    let window = match (window_start, window_end) {
        (Some(s), Some(e)) if e > s => conn::secs(e - s),
        _ => 0.0,
    };
    conn::close_all(sessions).await;
    conn::close_all(listeners).await;
    let mut received = 0u64;
    for d in drains {
        if let Ok(Ok(n)) = tokio::time::timeout(Duration::from_secs(5), d).await {
            received += n;
        }
    }
    let mut out = json!({
        "clients": a.clients,
        "listeners": a.listeners,
        "channel": a.channel,
        "synchronous_commit": a.synchronous_commit,
        "synchronous_commit_accepted": sync_accepted,
        "synchronous_commit_error": sync_error,
        "extra_sql": a.extra_sql,
        "notify": !a.without_notify,
        "transactions": counted,
        "measured_s": window,
        "tps": if window > 0.0 { counted as f64 / window } else { 0.0 },
        "notifications_received": received,
        "setup_s": setup_s,
    });
    out.as_object_mut()
        .expect("object")
        .extend(stats::summary("tx_ms", &mut lat));
    Ok(out)
}
