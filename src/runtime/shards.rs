//! Shards: the single-worker runtimes that sessions run on, and a session's place on one.
//!
//! Design: one tokio runtime with one worker thread per shard (why shards and not one
//! work-stealing runtime: see `server.rs`). This module owns what the sessions share of them:
//! the runtime handles, the count of sessions on each shard (placement picks the smallest), the
//! CPU each shard was last seen on (for sessions following their clients, `client_affinity`),
//! and each shard's idle spinner and CPU-weight gauge. The listener (`server.rs`) builds them
//! and places connections; a session holds an [`OnShard`] for as long as it lives.
//!
//! Invariants:
//! 1. A shard's `sessions` counts exactly the live `OnShard`s naming it: `OnShard::join` adds
//!    one and its `Drop` takes it away, however the session's task ends (a panic included).
//! 2. `Shards` holds runtime handles, never runtimes: the sessions that hold it do not keep
//!    their runtimes alive; the runtimes ([`Runtime`]) belong to the server, which stops them.
//! 3. A shard's runtime stops without waiting for its tasks ([`Runtime`]'s `Drop`), which is
//!    allowed on any thread, inside another runtime too.
//!
//! Locks: none; the counts and CPU gauges are relaxed atomics (placement and following are
//! heuristics: a stale read places one session less well, never wrongly).
//! Bounds: the number of shards is fixed at start (`--worker-threads`, at least 1).

use std::sync::atomic::{AtomicI32, AtomicUsize, Ordering};
use std::sync::Arc;

use crate::runtime::client_affinity::{self, Follow, ShardView};
use crate::runtime::idle_spin::IdleSpinner;
use crate::runtime::shard_weight::ShardWeight;

/// Polls of local tasks between two reads of a shard's global queue (see `Shards::start`).
const GLOBAL_QUEUE_INTERVAL: u32 = 8;

/// How the shards are built (from the server's configuration).
pub struct ShardOptions {
    /// How many shards (one thread each; at least one is started).
    pub count: usize,
    /// Bind each shard's threads to one CPU (`--pin-shards`).
    pub pin: bool,
    /// How long a shard's worker keeps polling after its sessions answered.
    pub idle_spin: std::time::Duration,
    /// Whether shards set their thread's CPU weight (`shard_weight`).
    pub weight: bool,
    /// Whether sessions follow their clients' CPU (`--client-affinity`).
    pub affinity: bool,
}

/// Binds a shard thread to its CPU (see `client_affinity`); where the kernel refuses, the
/// thread runs unbound, and the server says so once.
fn pin_shard_thread(cpu: usize) {
    static WARNED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
    if let Err(e) = client_affinity::pin_current_thread(cpu) {
        if !WARNED.swap(true, Ordering::Relaxed) {
            tracing::warn!("cannot bind shard threads to CPUs ({e}); they run unbound");
        }
    }
}

/// What sessions see of one shard: its runtime handle (to move a session there), and the
/// counts and gauges that its sessions keep.
pub struct Shard {
    pub(crate) handle: tokio::runtime::Handle,
    /// Sessions on this shard and not yet ended; placement picks the smallest.
    pub(crate) sessions: AtomicUsize,
    /// The CPU this shard's thread was last seen on by a session checking its client's CPU
    /// (see `client_affinity`); -1 before that.
    cpu: AtomicI32,
    /// Keeps this shard's worker polling for a moment after its sessions answered.
    pub spinner: Arc<IdleSpinner>,
    /// Sets the worker thread's CPU weight from how many sessions here are active.
    pub weight: Arc<ShardWeight>,
}

/// Every shard, shared by the accept loop and the sessions. It holds runtime handles, not the
/// runtimes, so the sessions that hold it do not keep their own runtimes alive.
pub struct Shards {
    pub(crate) list: Vec<Shard>,
    /// Whether sessions follow their clients' CPU (`--client-affinity`).
    affinity: bool,
}

impl Shards {
    /// Builds and starts the shards' runtimes; the runtimes are returned to the caller, which
    /// stops them by dropping them (invariant 2).
    pub fn start(opts: &ShardOptions) -> std::io::Result<(Arc<Shards>, Vec<Runtime>)> {
        let mut list = Vec::with_capacity(opts.count);
        let mut runtimes = Vec::with_capacity(opts.count);
        let cpus = if opts.pin {
            client_affinity::allowed_cpus()
        } else {
            Vec::new()
        };
        for i in 0..opts.count.max(1) {
            let mut builder = tokio::runtime::Builder::new_multi_thread();
            // The name fits Linux's 15-character thread names, so `top -H` and perf show it.
            builder
                .worker_threads(1)
                .thread_name(format!("tg-shard-{i}"))
                // Deep statements recurse on this stack; the guard keeps them within it.
                .thread_stack_size(crate::stack::SHARD_STACK_BYTES)
                // Wake-ups from other threads (a released row lock, a flushed commit) wait in
                // the runtime's global queue, which a worker whose own queue never empties
                // reads only every this many polls (tuned up to 127 by default): a waiter beside
                // busy sessions then waited up to tens of milliseconds (benchmark 14).
                .global_queue_interval(GLOBAL_QUEUE_INTERVAL)
                .enable_all();
            if let Some(cpu) = client_affinity::shard_cpu(i, &cpus) {
                // Every thread of the runtime: the worker, and the thread that takes the
                // worker over while a session blocks (`pg_sleep`'s block_in_place).
                builder.on_thread_start(move || pin_shard_thread(cpu));
            }
            let runtime = builder.build()?;
            list.push(Shard {
                handle: runtime.handle().clone(),
                sessions: AtomicUsize::new(0),
                cpu: AtomicI32::new(-1),
                spinner: Arc::new(IdleSpinner::new(opts.idle_spin)),
                weight: Arc::new(ShardWeight::new(opts.weight)),
            });
            runtimes.push(Runtime(Some(runtime)));
        }
        let shards = Arc::new(Shards {
            list,
            affinity: opts.affinity,
        });
        Ok((shards, runtimes))
    }

    /// How many sessions each shard runs now.
    pub fn sessions(&self) -> Vec<usize> {
        self.list
            .iter()
            .map(|s| s.sessions.load(Ordering::Relaxed))
            .collect()
    }
}

/// A shard's runtime; always `Some` until dropped.
pub struct Runtime(pub(crate) Option<tokio::runtime::Runtime>);

impl Drop for Runtime {
    /// Stops the shard without waiting for its tasks, which is allowed anywhere; a plain drop
    /// of a runtime panics inside another runtime, where the server may well be dropped.
    fn drop(&mut self) {
        if let Some(rt) = self.0.take() {
            rt.shutdown_background();
        }
    }
}

static NEXT_SHARD: AtomicUsize = AtomicUsize::new(0);

/// A session's place on a shard: counted in the shard's sessions for as long as it lives,
/// however its task ends (a panic included), and the way to the shard's gauges and to the
/// other shards when it follows its client (see `client_affinity`).
pub struct OnShard {
    shards: Arc<Shards>,
    index: usize,
}

impl OnShard {
    /// A place on the shard with the fewest sessions; ties go round-robin, so that
    /// connections opened together spread even when sessions of an earlier client are still
    /// ending.
    pub fn place(shards: Arc<Shards>) -> OnShard {
        let n = shards.list.len();
        let start = NEXT_SHARD.fetch_add(1, Ordering::Relaxed);
        let index = (0..n)
            .map(|i| (start + i) % n)
            .min_by_key(|&i| shards.list[i].sessions.load(Ordering::Relaxed))
            .expect("at least one shard");
        OnShard::join(shards, index)
    }

    /// The index of the shard this session runs on.
    pub fn index(&self) -> usize {
        self.index
    }

    fn join(shards: Arc<Shards>, index: usize) -> OnShard {
        shards.list[index].sessions.fetch_add(1, Ordering::Relaxed);
        OnShard { shards, index }
    }

    /// The shard this session runs on.
    pub fn shard(&self) -> &Shard {
        &self.shards.list[self.index]
    }

    /// The shard to follow the client to, when a check is due at `now` and the checks so far
    /// name one (see `client_affinity`). Runs on this shard's thread, after an answer.
    pub fn follow(
        &self,
        follow: &mut Follow,
        now: std::time::Instant,
        socket: &impl std::os::fd::AsRawFd,
    ) -> Option<usize> {
        if !self.shards.affinity || self.shards.list.len() < 2 || !follow.due(now) {
            return None;
        }
        let cpu = client_affinity::current_cpu();
        self.shard().cpu.store(cpu, Ordering::Relaxed);
        let client = client_affinity::incoming_cpu(socket);
        let views = self.shards.list.iter().map(|s| ShardView {
            cpu: s.cpu.load(Ordering::Relaxed),
            sessions: s.sessions.load(Ordering::Relaxed),
        });
        let choice = client_affinity::choose(self.index, client, views);
        follow.checked(now, choice)
    }

    /// This session's place on shard `index` instead, and that shard's runtime, where its
    /// task must continue.
    pub fn move_to(self, index: usize) -> (OnShard, tokio::runtime::Handle) {
        let to = OnShard::join(self.shards.clone(), index);
        let handle = to.shard().handle.clone();
        (to, handle)
    }
}

impl Drop for OnShard {
    fn drop(&mut self) {
        self.shard().sessions.fetch_sub(1, Ordering::Relaxed);
    }
}
