//! tgbench: the load generator of the threadgres benchmark suite.
//!
//! It talks to any PostgreSQL-protocol server (threadgres or PostgreSQL) through tokio-postgres
//! and prints one JSON line per run (`"ok": true` plus the measurements, or `"ok": false` and
//! an error). Progress and diagnostics go to stderr.

mod conn;
mod idle;
mod latency;
mod lockwake;
mod multicast;
mod pingpong;
mod stats;
mod wide;
mod writers;

// tokio-postgres allocates two strings for every notification it reads; in a burst of 10,000
// the system allocator's malloc/free were 8 % of the reading thread, mimalloc's half that. The
// client's own costs are part of every figure it reports, for both servers alike.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::time::Instant;

use clap::{Parser, Subcommand};
use serde_json::{json, Value};

#[derive(Parser, Debug)]
#[command(
    name = "tgbench",
    version,
    about = "LISTEN/NOTIFY and connection benchmarks"
)]
struct Cli {
    /// Tokio worker threads (0: one per core).
    #[arg(long, global = true, default_value_t = 0)]
    threads: usize,
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand, Debug)]
enum Cmd {
    /// Connect, run SELECT 1, disconnect.
    Check(CheckArgs),
    /// Benchmark 2: ping-pong between two sessions with K idle listeners.
    Pingpong(pingpong::Args),
    /// Benchmark 3: multicast ping-pong with G groups of P pong sessions.
    Multicast(multicast::Args),
    /// Benchmark 4: commit time of one transaction notifying N channels.
    WideNotify(wide::Args),
    /// Benchmark 5: latency distribution of notifications.
    Latency(latency::Args),
    /// Benchmark 6: C sessions committing transactions that NOTIFY.
    Writers(writers::Args),
    /// Benchmark 7: open K idle sessions and hold them.
    Idle(idle::Args),
    /// Benchmark 14: how promptly a row lock's waiter runs again after the holder's COMMIT.
    LockWake(lockwake::Args),
}

#[derive(clap::Args, Debug)]
struct CheckArgs {
    #[command(flatten)]
    conn: conn::ConnOpts,
}

async fn check(a: CheckArgs) -> conn::Res<Value> {
    let t = Instant::now();
    let s = conn::Session::open(&a.conn, false).await?;
    let connect_ms = conn::ms(t.elapsed());
    s.client.simple_query("SELECT 1").await?;
    let multi = conn::supports_multi_statement(&s.client).await;
    conn::close_all(vec![s]).await;
    Ok(json!({ "connect_ms": connect_ms, "multi_statement": multi }))
}

fn main() {
    let cli = Cli::parse();
    let name = match &cli.cmd {
        Cmd::Check(_) => "check",
        Cmd::Pingpong(_) => "pingpong",
        Cmd::Multicast(_) => "multicast",
        Cmd::WideNotify(_) => "wide-notify",
        Cmd::Latency(_) => "latency",
        Cmd::Writers(_) => "writers",
        Cmd::Idle(_) => "idle",
        Cmd::LockWake(_) => "lock-wake",
    };
    // One thread: a current-thread runtime, so that the benchmark task and the connection
    // tasks hand work to each other without waking another thread.
    let mut builder = if cli.threads == 1 {
        tokio::runtime::Builder::new_current_thread()
    } else {
        tokio::runtime::Builder::new_multi_thread()
    };
    builder.enable_all();
    if cli.threads > 1 {
        builder.worker_threads(cli.threads);
    }
    let rt = match builder.build() {
        Ok(rt) => rt,
        Err(e) => {
            println!(
                "{}",
                json!({ "ok": false, "cmd": name, "error": e.to_string() })
            );
            std::process::exit(1);
        }
    };
    let started = Instant::now();
    let result = rt.block_on(async move {
        match cli.cmd {
            Cmd::Check(a) => check(a).await,
            Cmd::Pingpong(a) => pingpong::run(a).await,
            Cmd::Multicast(a) => multicast::run(a).await,
            Cmd::WideNotify(a) => wide::run(a).await,
            Cmd::Latency(a) => latency::run(a).await,
            Cmd::Writers(a) => writers::run(a).await,
            Cmd::Idle(a) => idle::run(a).await,
            Cmd::LockWake(a) => lockwake::run(a).await,
        }
    });
    let wall_s = started.elapsed().as_secs_f64();
    // Do not wait for tasks that are still winding down.
    rt.shutdown_timeout(std::time::Duration::from_secs(2));
    match result {
        Ok(mut v) => {
            if let Some(obj) = v.as_object_mut() {
                obj.insert("ok".into(), json!(true));
                obj.insert("cmd".into(), json!(name));
                obj.insert("wall_s".into(), json!(wall_s));
            }
            println!("{v}");
        }
        Err(e) => {
            println!(
                "{}",
                json!({ "ok": false, "cmd": name, "error": e.to_string(), "wall_s": wall_s })
            );
            std::process::exit(1);
        }
    }
}
