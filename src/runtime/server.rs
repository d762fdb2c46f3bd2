//! The listener: accepts connections and hands each to a shard, where it runs as a session task.
//!
//! Sessions are tasks, not threads, so an idle connection costs a task and a socket
//! registration, not a stack. They run on *shards*: one single-worker tokio runtime per core
//! (`--worker-threads`), each with its own thread and its own socket driver (epoll set). A
//! session runs on the shard it was given, unless it follows its client to the shard on the
//! client's CPU (see `client_affinity`). Each shard's threads are bound to one CPU
//! (`--pin-shards`, also in `client_affinity`), so that every core has a shard to follow to.
//!
//! Why shards rather than one work-stealing runtime over all cores: a request/answer client
//! (pgbench, one statement per round trip) costs two context switches per round trip when the
//! thread that sleeps in epoll is the thread that runs the session. A work-stealing runtime
//! adds a third party: an event wakes the driver thread, which wakes a parked sibling worker to
//! share the work, and on a 2-core machine running its clients too, those extra futex
//! wake-ups cost a third of the throughput of small statements. A shard has no sibling to wake.
//! What it gives up is stealing: a busy shard cannot hand sessions to an idle one, so
//! connections are placed on the shard with the fewest sessions when they arrive, and a
//! session that moves later moves only to a shard with no more sessions than its own.
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
//!
//! A shard whose runtime stops while the server runs (its thread died outside any session task,
//! whose panics are caught) takes its sessions with it and would leave the port open with
//! connections placed on a shard that never runs them. The watchdog (`watch_shards`) pings
//! every shard once a second from the caller's runtime; a ping that comes back cancelled means
//! the shard's runtime is gone, and the server then stops as it does on SIGTERM and `run`
//! reports `Stopped::ShardLost` (the binary exits with status 1, for a supervisor to restart
//! it). A ping that is not answered for `STALL_WARNING` is logged once per stall: a statement on
//! that shard is not giving way, which stalls the shard's other sessions (a bug to fix, not a
//! reason to stop). At most one ping per shard is outstanding.

use std::sync::atomic::Ordering;
use std::sync::Arc;

use tokio::net::TcpListener;

use crate::config::Config;
use crate::instance::Instance;
use crate::runtime::shards::{OnShard, Runtime, ShardOptions, Shards};

/// A running server: its instance and the addresses it listens on.
pub struct Server {
    pub instance: Arc<Instance>,
    listeners: Vec<TcpListener>,
    shards: Arc<Shards>,
    /// The shards' runtimes, stopped when the server is dropped.
    runtimes: Vec<Runtime>,
}

impl Server {
    /// A server whose instance lives in memory only (tests that start one in-process).
    pub async fn bind(config: Config) -> std::io::Result<Server> {
        Server::bind_instance(Instance::new(config)).await
    }

    /// A server for `instance` (made by `Instance::open` on its data directory, or `new`).
    pub async fn bind_instance(instance: Arc<Instance>) -> std::io::Result<Server> {
        crate::sql::exec::index_keys::register();
        let config = &instance.config;
        // The process's CPUs, recorded before any shard thread is bound (see `cpus`).
        crate::cpus::process_cpus();
        let mut listeners = Vec::new();
        for addr in &config.listen {
            listeners.push(TcpListener::bind((*addr, config.port)).await?);
        }
        let (shards, runtimes) = Shards::start(&ShardOptions {
            count: config.worker_threads,
            pin: config.pin_shards,
            idle_spin: std::time::Duration::from_micros(config.idle_spin_us),
            weight: config.shard_weight,
            affinity: config.client_affinity,
        })?;
        crate::runtime::autovacuum::start(&instance);
        crate::memory::start_monitor(&instance.memory);
        Ok(Server {
            instance,
            listeners,
            shards,
            runtimes,
        })
    }

    pub fn local_addrs(&self) -> Vec<std::net::SocketAddr> {
        self.listeners
            .iter()
            .filter_map(|l| l.local_addr().ok())
            .collect()
    }

    /// Accepts connections until `shutdown` resolves or a shard is lost, then tells every
    /// session to terminate and waits (bounded) for them to finish.
    pub async fn run(self, shutdown: impl std::future::Future<Output = ()>) -> Stopped {
        let instance = self.instance.clone();
        let spinners: Vec<_> = self
            .shards
            .list
            .iter()
            .map(|shard| {
                let spinner = shard.spinner.clone();
                shard.handle.spawn(async move { spinner.run().await })
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
                            place(&instance, shards.clone(), stream, addr);
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
        let stopped = tokio::select! {
            () = shutdown => Stopped::Requested,
            lost = watch_shards(self.shards.clone()) => {
                tracing::error!(
                    "shard {lost} stopped while the server was running; its sessions are gone: \
                     shutting down"
                );
                Stopped::ShardLost(lost)
            }
        };
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
        // The shards stop here, with whatever sessions did not finish in time.
        drop(self.runtimes);
        stopped
    }

    /// Takes shard `index`'s runtime out of the server, still running: dropping what this
    /// returns stops that shard as a dying thread would, while the server runs on (fault
    /// injection for the watchdog's test).
    #[doc(hidden)]
    pub fn detach_shard(&mut self, index: usize) -> Option<DetachedShard> {
        let rt = self.runtimes.get_mut(index)?.0.take()?;
        Some(DetachedShard(Runtime(Some(rt))))
    }
}

/// A shard's runtime held outside its server (see `Server::detach_shard`).
#[doc(hidden)]
pub struct DetachedShard(#[allow(dead_code)] Runtime);

/// Why `Server::run` returned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stopped {
    /// The shutdown future resolved (SIGTERM, Ctrl-C, a test).
    Requested,
    /// This shard's runtime stopped while the server ran.
    ShardLost(usize),
}

/// How often the watchdog pings each shard.
const PING_INTERVAL: std::time::Duration = std::time::Duration::from_secs(1);
/// How long a shard may leave a ping unanswered before the watchdog logs it.
const STALL_WARNING: std::time::Duration = std::time::Duration::from_secs(10);

/// Pings every shard until one is found stopped, and returns its index (see the module doc).
async fn watch_shards(shards: Arc<Shards>) -> usize {
    struct Ping {
        answer: tokio::task::JoinHandle<()>,
        sent: std::time::Instant,
        warned: bool,
    }
    let mut pings: Vec<Option<Ping>> = shards.list.iter().map(|_| None).collect();
    let mut tick = tokio::time::interval(PING_INTERVAL);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        let now = std::time::Instant::now();
        for (index, slot) in pings.iter_mut().enumerate() {
            if matches!(slot, Some(ping) if ping.answer.is_finished()) {
                // The task is `async {}`: it cannot fail, so an error is a cancellation by a
                // runtime that has shut down.
                if let Some(ping) = slot.take() {
                    if ping.answer.await.is_err() {
                        return index;
                    }
                }
            } else if let Some(ping) = slot {
                if !ping.warned && now.duration_since(ping.sent) >= STALL_WARNING {
                    ping.warned = true;
                    tracing::warn!(
                        shard = index,
                        sessions = shards.list[index].sessions.load(Ordering::Relaxed),
                        "shard {index} has not run a task for {} s: a statement there is not \
                         giving way",
                        STALL_WARNING.as_secs()
                    );
                }
                continue;
            }
            *slot = Some(Ping {
                answer: shards.list[index].handle.spawn(async {}),
                sent: now,
                warned: false,
            });
        }
    }
}

impl Server {
    /// The shards, to watch how sessions spread over them (tests, diagnostics).
    pub fn shards(&self) -> Arc<Shards> {
        self.shards.clone()
    }
}

/// Moves an accepted connection to the shard with the fewest sessions and starts its session
/// there. The socket is re-registered with that shard's driver, so its readiness events wake
/// that shard's thread alone.
fn place(
    instance: &Arc<Instance>,
    shards: Arc<Shards>,
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
    let on = OnShard::place(shards);
    let index = on.index();
    tracing::debug!(%addr, shard = index, sessions = on.shard().sessions.load(Ordering::Relaxed), "connection placed");
    let instance = instance.clone();
    on.shard().handle.clone().spawn(async move {
        match tokio::net::TcpStream::from_std(std_stream) {
            Ok(stream) => crate::session::serve(instance, stream, addr, on).await,
            Err(e) => tracing::warn!("could not register a connection: {e}"),
        }
    });
}
