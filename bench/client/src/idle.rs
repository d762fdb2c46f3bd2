//! Benchmark 7: idle connections.
//!
//! Opens K sessions (TCP connect, startup, authentication, ReadyForQuery) with bounded
//! concurrency and keeps them open and idle. When all attempts are done it prints a JSON line
//! `{"event":"ready",...}` and waits until a line arrives on stdin (or the hold limit passes),
//! so that the harness can measure the server's memory meanwhile. Then it closes them and
//! prints the result line.

use std::net::{IpAddr, Ipv4Addr};
use std::time::{Duration, Instant};

use futures_util::stream::{self, StreamExt};
use serde_json::{json, Value};
use tokio::io::AsyncBufReadExt;

use crate::conn::{self, ConnOpts, Res, Session};

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub conn: ConnOpts,
    /// Sessions to open (K).
    #[arg(long)]
    pub connections: usize,
    /// Connection attempts in flight at once.
    #[arg(long, default_value_t = 64)]
    pub concurrency: usize,
    /// Longest time to keep the sessions open waiting for the go-ahead on stdin.
    #[arg(long, default_value_t = 120.0)]
    pub hold_max_s: f64,
    /// Do not wait for stdin; hold for this many seconds instead.
    #[arg(long)]
    pub hold_s: Option<f64>,
    /// Spread the sessions over this many source addresses 127.0.0.1, .2, ...
    /// (0: one per 25,000 sessions, since one source address has about 28,000 ports).
    #[arg(long, default_value_t = 0)]
    pub source_addresses: usize,
}

pub async fn run(a: Args) -> Res<Value> {
    let addr = a.conn.addr()?;
    let cfg = a.conn.config();
    let sources = if a.source_addresses > 0 {
        a.source_addresses
    } else {
        a.connections.div_ceil(25_000).max(1)
    };
    if sources > 250 {
        return Err("too many source addresses needed".into());
    }
    let per_source = a.connections.div_ceil(sources).max(1);
    let start = Instant::now();
    let attempts = (0..a.connections).map(|i| {
        let cfg = &cfg;
        let conn_opts = &a.conn;
        let source = if sources > 1 {
            Some(IpAddr::V4(Ipv4Addr::new(
                127,
                0,
                0,
                1 + (i / per_source) as u8,
            )))
        } else {
            None
        };
        async move { Session::open_from(conn_opts, cfg, addr, source, false).await }
    });
    let mut open: Vec<Session> = Vec::with_capacity(a.connections);
    let mut failed = 0usize;
    let mut first_error: Option<String> = None;
    let mut pending = stream::iter(attempts).buffer_unordered(a.concurrency.max(1));
    while let Some(r) = pending.next().await {
        match r {
            Ok(s) => open.push(s),
            Err(e) => {
                failed += 1;
                first_error.get_or_insert(e.to_string());
            }
        }
    }
    drop(pending);
    let open_s = conn::secs(start.elapsed());
    let opened = open.len();

    // One query on one session shows the server still answers with all of them open.
    let probe_ms = match open.first() {
        Some(s) => {
            let t = Instant::now();
            s.client.simple_query("SELECT 1").await?;
            Some(conn::ms(t.elapsed()))
        }
        None => None,
    };

    let ready = json!({
        "event": "ready",
        "opened": opened,
        "failed": failed,
        "open_s": open_s,
    });
    println!("{ready}");

    match a.hold_s {
        Some(h) => tokio::time::sleep(Duration::from_secs_f64(h)).await,
        None => {
            let mut lines = tokio::io::BufReader::new(tokio::io::stdin()).lines();
            let _ = tokio::time::timeout(Duration::from_secs_f64(a.hold_max_s), lines.next_line())
                .await;
        }
    }
    let still_open = open.iter().filter(|s| !s.driver.is_finished()).count();
    let close_start = Instant::now();
    conn::close_all(open).await;
    let close_s = conn::secs(close_start.elapsed());
    if opened == 0 {
        return Err(first_error
            .unwrap_or_else(|| "no connection opened".into())
            .into());
    }
    Ok(json!({
        "connections": a.connections,
        "opened": opened,
        "failed": failed,
        "first_error": first_error,
        "still_open": still_open,
        "source_addresses": sources,
        "open_s": open_s,
        "open_per_s": opened as f64 / open_s.max(1e-9),
        "probe_select1_ms": probe_ms,
        "close_s": close_s,
    }))
}
