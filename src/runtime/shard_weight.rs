//! Shard weight: asking the kernel for the CPU share of the sessions a shard runs.
//!
//! Linux's fair scheduler shares a busy core among threads by weight, and a thread's weight
//! comes from its nice value. PostgreSQL runs a process per session, so under load its server
//! side holds one share per active session. A shard (see `server`) runs many sessions on one
//! thread and so, at the default nice value, holds one share for all of them.
//!
//! That matters most when the clients run on the same cores, as in a benchmark: a shard that
//! does the server work of eight pgbench clients needs about as much CPU as four of them, so
//! it is always over its one share. The scheduler then declines to let it preempt the client
//! that just sent it a query; the client goes on to sleep in `poll`, and the answer must wake
//! it. PostgreSQL's backend, within its share, preempts its client at once, answers before the
//! client sleeps, and so pays one wake-up per statement where the shard paid two. Measured with
//! pgbench's LISTEN-only scripts on 2 cores, pgbench started from threadgres' own shell: 16 and
//! 32 clients ran at 0.85-1.24 of PostgreSQL's rate at the default weight and at 0.98-1.18
//! with the shards weighted up.
//!
//! A nice value only counts among the threads of one scheduling group (an autogroup, which is
//! a session, or a cgroup). Where threadgres has a group of its own, the whole server is one
//! share beside its clients' group, as a PostgreSQL started by `pg_ctl` is, and this changes
//! nothing. Raising the group's own weight would take CPU from the clients rather than match
//! what PostgreSQL gets, so threadgres leaves it alone.
//!
//! So each shard counts the distinct sessions that answered a client in the last few
//! milliseconds ([`ActiveSessions`], one per shard, touched only by its own thread) and sets
//! its thread's nice value to weigh about as much as that many default threads: three nice
//! levels per doubling (each level is a factor of 1.25), down to [`MOST_NICE_LEVELS`]. One
//! active session keeps the default weight, so a lone client keeps its core to itself.
//!
//! Lowering a nice value needs `CAP_SYS_NICE` or a `RLIMIT_NICE` allowance. Without either,
//! a shard's first attempt fails and it keeps the default weight from then on; the server warns
//! once in its log, and nothing else changes. `--shard-weight off` never asks.
//!
//! The nice value belongs to a thread, and a shard's worker can move to another thread (tokio
//! hands the worker on when a session blocks in `block_in_place`), so what was applied is kept
//! per thread.
//!
//! While notifications stream to clients (a session sent other sessions' notifications in this
//! epoch or the one before), a shard keeps the default weight: there the shard is the sender
//! its listeners wait for, not a server its clients preempt.
//!
//! # Invariants
//!
//! 1. A thread asks the kernel only for a nice value other than the one it last set itself
//!    (`APPLIED`, thread-local, compared in `answered_at`), so a steady load makes no system
//!    calls.
//! 2. Once the kernel refuses, the shard never asks again (`asking` cleared, checked first in
//!    `answered`), and the warning is logged once for the whole server (`WARNED`).
//! 3. The nice value is between 0 and `-MOST_NICE_LEVELS` (`nice_for`); a shard never makes its
//!    thread weigh less than a default thread.
//! 4. Each session counts once per epoch towards the active count: the session keeps its own
//!    record of the epoch it last answered in (`ActiveSessions::record`).
//!
//! # Concurrency
//!
//! No locks. A shard's `ShardWeight` is touched only by its own thread (`answered` must run
//! there: the nice value it sets is the calling thread's); its atomics are Relaxed, as nothing
//! else is published through them. `WARNED` is one process-wide flag, swapped once.
//!
//! # Bounds
//!
//! Epochs of [`EPOCH`] (4 ms); at most [`MOST_NICE_LEVELS`] levels below the default; one
//! `setpriority` call per change of the target value; a refusal costs one failed call per shard.

use std::cell::Cell;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::time::{Duration, Instant};

use crate::runtime::idle_spin::ActiveSessions;

/// The most nice levels a shard goes below the default (a weight of about 28 threads).
pub const MOST_NICE_LEVELS: i32 = 15;

/// How long the active-session count of a shard is gathered before it sets the weight.
const EPOCH: Duration = Duration::from_millis(4);

/// `streamed` before any notification was streamed.
const NEVER: u32 = u32::MAX;

thread_local! {
    /// The nice value this thread last set for itself (threads start at the default, 0).
    static APPLIED: Cell<i32> = const { Cell::new(0) };
}

pub struct ShardWeight {
    active: ActiveSessions,
    /// False when off, or once the kernel refused.
    asking: AtomicBool,
    /// The last epoch in which a session here sent its client other sessions' notifications.
    streamed: AtomicU32,
}

impl ShardWeight {
    pub fn new(enabled: bool) -> ShardWeight {
        ShardWeight {
            active: ActiveSessions::with_epoch(1, EPOCH),
            asking: AtomicBool::new(enabled),
            streamed: AtomicU32::new(NEVER),
        }
    }

    /// Whether this epoch or the last saw notifications streamed to clients.
    fn streaming(&self, epoch: u32) -> bool {
        let last = self.streamed.load(Ordering::Relaxed);
        last != NEVER && (last == epoch || last.wrapping_add(1) == epoch)
    }

    /// A session on this shard answered its client at `now`; `last` is the session's own epoch
    /// record (`u32::MAX` at first), and `streamed` says the answer carried other sessions'
    /// notifications. Must run on the shard's thread.
    pub fn answered(&self, now: Instant, last: &mut u32, streamed: bool) {
        if !self.asking.load(Ordering::Relaxed) {
            return;
        }
        self.answered_at(self.active.epoch_at(now), last, streamed);
    }

    fn answered_at(&self, epoch: u32, last: &mut u32, streamed: bool) {
        if streamed {
            self.streamed.store(epoch, Ordering::Relaxed);
        }
        let target = if self.streaming(epoch) {
            0
        } else {
            nice_for(self.active.record(epoch, last))
        };
        if APPLIED.get() == target {
            return;
        }
        match set_thread_nice(target) {
            Ok(()) => APPLIED.set(target),
            Err(e) => {
                self.asking.store(false, Ordering::Relaxed);
                // Every shard meets the same refusal; one line says it for all.
                static WARNED: AtomicBool = AtomicBool::new(false);
                if !WARNED.swap(true, Ordering::Relaxed) {
                    tracing::warn!(
                        "shards keep the default CPU weight: the kernel refused nice {target} \
                         ({e}); CAP_SYS_NICE or RLIMIT_NICE allows it"
                    );
                }
            }
        }
    }
}

/// The nice value that weighs about as much as `active` default threads.
pub fn nice_for(active: u64) -> i32 {
    let doublings = 63 - active.max(1).leading_zeros() as i32;
    -(3 * doublings).min(MOST_NICE_LEVELS)
}

/// Sets the calling thread's nice value (on Linux, PRIO_PROCESS with 0 names the thread).
#[cfg(target_os = "linux")]
fn set_thread_nice(nice: i32) -> std::io::Result<()> {
    // SAFETY: setpriority reads only its integer arguments.
    let rc = unsafe { libc::setpriority(libc::PRIO_PROCESS, 0, nice) };
    if rc == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

#[cfg(not(target_os = "linux"))]
fn set_thread_nice(_nice: i32) -> std::io::Result<()> {
    Err(std::io::Error::new(
        std::io::ErrorKind::Unsupported,
        "per-thread nice values are Linux's",
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn three_levels_per_doubling_up_to_the_bound() {
        assert_eq!(nice_for(0), 0);
        assert_eq!(nice_for(1), 0);
        assert_eq!(nice_for(2), -3);
        assert_eq!(nice_for(3), -3);
        assert_eq!(nice_for(4), -6);
        assert_eq!(nice_for(16), -12);
        assert_eq!(nice_for(32), -MOST_NICE_LEVELS);
        assert_eq!(nice_for(100_000), -MOST_NICE_LEVELS);
    }

    #[cfg(target_os = "linux")]
    fn own_nice() -> i32 {
        // SAFETY: getpriority reads only its integer arguments.
        unsafe { libc::getpriority(libc::PRIO_PROCESS, 0) }
    }

    /// On a thread of its own, since the nice value it sets belongs to the thread.
    #[cfg(target_os = "linux")]
    #[test]
    fn the_thread_weighs_its_active_sessions_and_drops_back_while_streaming() {
        std::thread::spawn(|| {
            let w = ShardWeight::new(true);
            let (mut a, mut b, mut c) = (u32::MAX, u32::MAX, u32::MAX);
            w.answered_at(10, &mut a, false);
            assert_eq!(own_nice(), 0, "one active session keeps the default");
            w.answered_at(10, &mut b, false);
            if !w.asking.load(Ordering::Relaxed) {
                // No CAP_SYS_NICE here: the refusal leaves the thread as it was.
                assert_eq!(own_nice(), 0);
                return;
            }
            assert_eq!(own_nice(), -3);
            // The next epoch keeps the weight its predecessor earned, and adds to it.
            w.answered_at(11, &mut a, false);
            assert_eq!(own_nice(), -3);
            w.answered_at(11, &mut b, false);
            w.answered_at(11, &mut c, false);
            assert_eq!(own_nice(), -3);
            // Streaming others' notifications: back to the default (which needs no
            // privilege), for this epoch and the next.
            w.answered_at(11, &mut a, true);
            assert_eq!(own_nice(), 0);
            w.answered_at(12, &mut b, false);
            assert_eq!(own_nice(), 0);
            assert_eq!(APPLIED.get(), 0);
            // Then the sessions' answers count again.
            for last in [&mut a, &mut b, &mut c] {
                w.answered_at(13, last, false);
            }
            assert_eq!(own_nice(), -3);
            w.answered(Instant::now(), &mut a, true);
            assert_eq!(own_nice(), 0);
        })
        .join()
        .unwrap();
    }

    #[test]
    fn off_never_asks() {
        let w = ShardWeight::new(false);
        let mut last = u32::MAX;
        w.answered(Instant::now(), &mut last, false);
        assert_eq!(APPLIED.get(), 0);
        assert_eq!(last, u32::MAX, "the gauge is not touched when off");
    }
}
