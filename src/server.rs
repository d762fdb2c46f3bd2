//! The listener: accepts connections and hands each to a shard, where it runs as a session task.
//!
//! Sessions are tasks, not threads, so an idle connection costs a task and a socket
//! registration, not a stack. They run on *shards*: one single-worker tokio runtime per core
//! (`--worker-threads`), each with its own thread and its own socket driver (epoll set). A
//! session stays on the shard it was given for its whole life.
//!
//! Why shards rather than one work-stealing runtime over all cores: a request/answer client
//! (pgbench, one statement per round trip) costs two context switches per round trip when the
//! thread that sleeps in epoll is the thread that runs the session. A work-stealing runtime
//! adds a third party: an event wakes the driver thread, which wakes a parked sibling worker to
//! share the work, and on a 2-core machine running its clients too, those extra futex
//! wake-ups cost a third of the throughput of small statements. A shard has no sibling to wake.
//! What it gives up is stealing: a busy shard cannot hand sessions to an idle one, so
//! connections are placed on the shard with the fewest sessions when they arrive.
//!
//! Cross-shard traffic is only wake-ups: a NOTIFY committed on one shard wakes listeners on
//! others through their task wakers, which write the other driver's eventfd.
//!
//! A shard is tokio's multi-threaded runtime with one worker, not the current-thread runtime,
//! because `pg_sleep` blocks under `block_in_place`, which moves the shard's scheduler to a
//! fresh thread for the duration instead of stalling every session on it.
//!
//! The accept loop runs on the caller's runtime and never blocks on a session: admission
//! control (max_connections) happens inside the session task, which answers a refused client
//! with PostgreSQL's FATAL 53300.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use tokio::net::TcpListener;

use crate::config::Config;
use crate::idle_spin::IdleSpinner;
use crate::instance::Instance;
use crate::shard_weight::ShardWeight;

/// One session runtime: a single worker thread with its own socket driver.
struct Shard {
    /// Always `Some` until the shard is dropped.
    runtime: Option<tokio::runtime::Runtime>,
    /// Sessions placed here and not yet ended; placement picks the smallest.
    sessions: Arc<AtomicUsize>,
    /// Keeps this shard's worker polling for a moment after its sessions answered.
    spinner: Arc<IdleSpinner>,
    /// Sets the worker thread's CPU weight from how many sessions here are active.
    weight: Arc<ShardWeight>,
}

/// A running server: its instance and the addresses it listens on.
pub struct Server {
    pub instance: Arc<Instance>,
    listeners: Vec<TcpListener>,
    shards: Arc<Vec<Shard>>,
}

impl Server {
    pub async fn bind(config: Config) -> std::io::Result<Server> {
        let mut listeners = Vec::new();
        for addr in &config.listen {
            listeners.push(TcpListener::bind((*addr, config.port)).await?);
        }
        let mut shards = Vec::with_capacity(config.worker_threads);
        for i in 0..config.worker_threads.max(1) {
            // The name fits Linux's 15-character thread names, so `top -H` and perf show it.
            let runtime = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(1)
                .thread_name(format!("tg-shard-{i}"))
                .enable_all()
                .build()?;
            shards.push(Shard {
                runtime: Some(runtime),
                sessions: Arc::new(AtomicUsize::new(0)),
                spinner: Arc::new(IdleSpinner::new(std::time::Duration::from_micros(
                    config.idle_spin_us,
                ))),
                weight: Arc::new(ShardWeight::new(config.shard_weight)),
            });
        }
        Ok(Server {
            instance: Instance::new(config),
            listeners,
            shards: Arc::new(shards),
        })
    }

    pub fn local_addrs(&self) -> Vec<std::net::SocketAddr> {
        self.listeners
            .iter()
            .filter_map(|l| l.local_addr().ok())
            .collect()
    }

    /// Accepts connections until `shutdown` resolves, then tells every session to terminate
    /// and waits (bounded) for them to finish.
    pub async fn run(self, shutdown: impl std::future::Future<Output = ()>) {
        let instance = self.instance.clone();
        let spinners: Vec<_> = self
            .shards
            .iter()
            .map(|shard| {
                let spinner = shard.spinner.clone();
                shard.handle().spawn(async move { spinner.run().await })
            })
            .collect();
        let mut accept_tasks = Vec::new();
        for listener in self.listeners {
            let instance = instance.clone();
            let shards = self.shards.clone();
            accept_tasks.push(tokio::spawn(async move {
                loop {
                    match listener.accept().await {
                        Ok((stream, addr)) => {
                            if instance.shutting_down.load(Ordering::SeqCst) {
                                continue;
                            }
                            place(&instance, &shards, stream, addr);
                        }
                        Err(e) => {
                            // Out of file descriptors and similar: back off briefly, keep serving.
                            tracing::warn!("accept failed: {e}");
                            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
                        }
                    }
                }
            }));
        }
        shutdown.await;
        tracing::info!("shutting down");
        instance.begin_shutdown();
        for t in spinners.iter() {
            t.abort();
        }
        for t in &accept_tasks {
            t.abort();
        }
        // Sessions send FATAL 57P01 and close; give them a moment.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
        while instance.connection_count() > 0 && std::time::Instant::now() < deadline {
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
    }
}

impl Shard {
    fn handle(&self) -> &tokio::runtime::Handle {
        self.runtime.as_ref().expect("shard runtime").handle()
    }
}

impl Drop for Shard {
    /// Stops the shard without waiting for its tasks, which is allowed anywhere; a plain drop
    /// of a runtime panics inside another runtime, where the server may well be dropped.
    fn drop(&mut self) {
        if let Some(rt) = self.runtime.take() {
            rt.shutdown_background();
        }
    }
}

static NEXT_SHARD: AtomicUsize = AtomicUsize::new(0);

/// Moves an accepted connection to the shard with the fewest sessions and starts its session
/// there. The socket is re-registered with that shard's driver, so its readiness events wake
/// that shard's thread alone.
fn place(
    instance: &Arc<Instance>,
    shards: &[Shard],
    stream: tokio::net::TcpStream,
    addr: std::net::SocketAddr,
) {
    let std_stream = match stream.into_std() {
        Ok(s) => s,
        Err(e) => {
            tracing::warn!("could not hand over a connection: {e}");
            return;
        }
    };
    // The fewest sessions wins; ties go round-robin, so that connections opened together
    // spread even when sessions of an earlier client are still ending.
    let start = NEXT_SHARD.fetch_add(1, Ordering::Relaxed);
    let index = (0..shards.len())
        .map(|i| (start + i) % shards.len())
        .min_by_key(|&i| shards[i].sessions.load(Ordering::Relaxed))
        .expect("at least one shard");
    let shard = &shards[index];
    let count = shard.sessions.fetch_add(1, Ordering::Relaxed) + 1;
    tracing::debug!(%addr, shard = index, sessions = count, "connection placed");
    let instance = instance.clone();
    let placed = Placed(shard.sessions.clone());
    let sched = crate::session::ShardSched {
        spinner: shard.spinner.clone(),
        weight: shard.weight.clone(),
    };
    shard.handle().spawn(async move {
        match tokio::net::TcpStream::from_std(std_stream) {
            Ok(stream) => crate::session::serve(instance, stream, addr, sched).await,
            Err(e) => tracing::warn!("could not register a connection: {e}"),
        }
        drop(placed);
    });
}

/// Counts a session off its shard however its task ends, a panic included.
struct Placed(Arc<AtomicUsize>);

impl Drop for Placed {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}
