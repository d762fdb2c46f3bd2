//! Idle spinning: keeping a shard's worker polling for a moment after notification traffic.
//!
//! A round trip between two clients through the server (ping-pong over LISTEN/NOTIFY, or any
//! exchange where one client answers what another's notification said) is bounded by how fast
//! a sleeping thread wakes up, not by the work done: when a shard's worker finds nothing to do
//! it blocks in `epoll_wait`, and on a virtual machine waking it again costs tens of
//! microseconds, several times per round trip. Go's scheduler and seastar-style servers answer
//! this by spinning briefly before sleeping.
//!
//! Each shard (see `server`) has one spinner task. For [`Config::idle_spin_us`] after the last
//! touch it keeps yielding. A yielding task keeps its worker awake, and tokio polls the I/O
//! driver without blocking whenever a worker has only yielded tasks, so a client message
//! arriving in that window is picked up at once. Unlike spinning in tokio's `on_thread_park`
//! hook, the worker keeps polling I/O and running other tasks meanwhile, so nothing waits
//! behind the spin.
//!
//! Sessions touch the spinner after writing another session's notifications or committing a
//! NOTIFY that woke listeners. After a plain answer they touch it only while the machine has
//! cores to spare: [`ActiveSessions`] counts the sessions that answered a client in the last
//! millisecond, and each of them has a busy client too, so spinning pays only while twice that
//! count fits in the cores. A single pgbench client gets 2-3 times the round trips with the
//! spin; two or more on two cores lose up to half their throughput to it, because the spin
//! takes the core that a client process on the same machine needs.
//!
//! Cost and bound: at most one worker's worth of CPU per shard, only within the window after
//! notification traffic; a server without it sleeps. `--idle-spin-us 0` turns it off.
//!
//! # Invariants
//!
//! 1. No lost wake-up: the spinner creates its `Notified` future, then sets `sleeping`, then
//!    reads `active` before it waits (`run`); `touch` sets `active`, then reads and clears
//!    `sleeping` and notifies. All four accesses are SeqCst, so either the spinner sees the
//!    activity and does not wait, or `touch` sees it sleeping and wakes it (a notification
//!    that comes before the wait is kept by `Notify` as a permit).
//! 2. At most one `notify_one` per sleep: `touch` notifies only when its `swap` of `sleeping`
//!    from true to false succeeds.
//! 3. A spin window ends only after [`Config::idle_spin_us`] without a touch: the spinner resets
//!    its clock whenever it finds `active` set, and clears the flag as it does.
//! 4. [`ActiveSessions`] counts a session at most once per epoch (the session's own `last`
//!    record), and the epoch and its count change together in one compare-and-swap of one
//!    packed word; `previous` is the count of the epoch just before the current one, or 0 after
//!    a gap.
//!
//! # Concurrency
//!
//! No locks: two flags and a `Notify` per spinner, one packed counter per `ActiveSessions`.
//! Sessions of any shard may touch a spinner; one task per shard runs it.
//!
//! # Bounds
//!
//! One spinner task per shard, spinning at most one window after the last touch and yielding
//! to the OS on every turn. Epochs wrap after 2^32 of them (49 days of milliseconds); a wrap
//! can only make one epoch's count look current for one epoch.
//!
//! [`Config::idle_spin_us`]: crate::config::Config

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use tokio::sync::Notify;

pub struct IdleSpinner {
    window: Duration,
    /// Set by sessions on activity, cleared by the spinner when it notices.
    active: AtomicBool,
    /// The spinner waits on `wake`; set while it does.
    sleeping: AtomicBool,
    wake: Notify,
}

impl IdleSpinner {
    pub fn new(window: Duration) -> IdleSpinner {
        IdleSpinner {
            window,
            active: AtomicBool::new(false),
            sleeping: AtomicBool::new(false),
            wake: Notify::new(),
        }
    }

    pub fn enabled(&self) -> bool {
        !self.window.is_zero()
    }

    /// A session did something: (re)open the spin window. Loads before stores, so that busy
    /// sessions share the flags' cache line instead of bouncing it.
    pub fn touch(&self) {
        if !self.enabled() {
            return;
        }
        if !self.active.load(Ordering::Relaxed) {
            self.active.store(true, Ordering::SeqCst);
        }
        if self.sleeping.load(Ordering::SeqCst) && self.sleeping.swap(false, Ordering::SeqCst) {
            self.wake.notify_one();
        }
    }

    /// The spinner task: runs until the runtime shuts down.
    pub async fn run(&self) {
        if !self.enabled() {
            return;
        }
        loop {
            let notified = self.wake.notified();
            self.sleeping.store(true, Ordering::SeqCst);
            // Activity between the last check and `sleeping` being visible must not be missed.
            if !self.active.load(Ordering::SeqCst) {
                notified.await;
            }
            self.sleeping.store(false, Ordering::Release);
            let mut last = Instant::now();
            loop {
                tokio::task::yield_now().await;
                // Let the OS run whatever else waits for this core (a client on the same
                // machine, say): the spin must only use time nobody else wants.
                std::thread::yield_now();
                if self.active.load(Ordering::Relaxed) {
                    self.active.store(false, Ordering::Relaxed);
                    last = Instant::now();
                } else if last.elapsed() >= self.window {
                    break;
                }
            }
        }
    }
}

/// How many sessions answered a client recently: distinct sessions per epoch (a millisecond
/// unless made otherwise), counted by each session once per epoch in one packed atomic
/// (epoch << 32 | count).
pub struct ActiveSessions {
    start: Instant,
    epoch_us: u64,
    current: AtomicU64,
    /// The count of the epoch before `current`'s, when it was the one just before.
    previous: AtomicU64,
    cores: u64,
}

impl Default for ActiveSessions {
    fn default() -> Self {
        ActiveSessions::new(crate::cpus::count())
    }
}

impl ActiveSessions {
    pub fn new(cores: usize) -> ActiveSessions {
        ActiveSessions::with_epoch(cores, Duration::from_millis(1))
    }

    pub fn with_epoch(cores: usize, epoch: Duration) -> ActiveSessions {
        ActiveSessions {
            start: Instant::now(),
            epoch_us: (epoch.as_micros() as u64).max(1),
            current: AtomicU64::new(0),
            previous: AtomicU64::new(0),
            cores: cores as u64,
        }
    }

    /// A session answered at `now`; `last` is its own record of the epoch it last answered in
    /// (`u32::MAX` at first). Returns whether the machine has cores to spare for spinning.
    pub fn answered(&self, now: Instant, last: &mut u32) -> bool {
        self.record(self.epoch_at(now), last) * 2 <= self.cores
    }

    /// A session answered in `epoch` (`last` as for `answered`). Returns how many sessions are
    /// active: those that answered in this epoch, or in the one before if it saw more.
    pub fn record(&self, epoch: u32, last: &mut u32) -> u64 {
        let first = std::mem::replace(last, epoch) != epoch;
        self.record_in(epoch, first)
    }

    /// The epoch that `now` falls in.
    pub fn epoch_at(&self, now: Instant) -> u32 {
        // Epochs wrap after 2^32 of them (49 days of milliseconds), harmlessly.
        (now.saturating_duration_since(self.start).as_micros() as u64 / self.epoch_us) as u32
    }

    /// As `answered`, in a given epoch; `first` says the session had not yet in this epoch.
    #[cfg(test)]
    fn answered_in(&self, epoch: u32, first: bool) -> bool {
        self.record_in(epoch, first) * 2 <= self.cores
    }

    fn record_in(&self, epoch: u32, first: bool) -> u64 {
        let mut cur = self.current.load(Ordering::Relaxed);
        if first {
            loop {
                let (e, n) = ((cur >> 32) as u32, cur & 0xffff_ffff);
                let next = if e == epoch {
                    (u64::from(epoch) << 32) | (n + 1)
                } else {
                    (u64::from(epoch) << 32) | 1
                };
                match self.current.compare_exchange_weak(
                    cur,
                    next,
                    Ordering::Relaxed,
                    Ordering::Relaxed,
                ) {
                    Ok(_) => {
                        if e != epoch {
                            // Opened a new epoch: the old one's count is the last full one.
                            let prev = if e.wrapping_add(1) == epoch { n } else { 0 };
                            self.previous.store(prev, Ordering::Relaxed);
                        }
                        cur = next;
                        break;
                    }
                    Err(now) => cur = now,
                }
            }
        }
        let (e, n) = ((cur >> 32) as u32, cur & 0xffff_ffff);
        if e == epoch {
            n.max(self.previous.load(Ordering::Relaxed))
        } else {
            n
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    async fn wait_for(what: &str, cond: impl Fn() -> bool) {
        let deadline = Instant::now() + Duration::from_secs(5);
        while !cond() {
            assert!(Instant::now() < deadline, "timed out waiting until {what}");
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn spins_after_activity_and_sleeps_without_it() {
        let s = Arc::new(IdleSpinner::new(Duration::from_micros(500)));
        let task = tokio::spawn({
            let s = s.clone();
            async move { s.run().await }
        });
        wait_for("the idle spinner sleeps", || {
            s.sleeping.load(Ordering::SeqCst)
        })
        .await;
        for _ in 0..3 {
            s.touch();
            // The touch wakes it (it takes the activity), and without further activity it
            // goes back to sleep.
            wait_for("the spinner takes the activity", || {
                !s.active.load(Ordering::SeqCst)
            })
            .await;
            wait_for("the spinner sleeps again", || {
                s.sleeping.load(Ordering::SeqCst) && !s.active.load(Ordering::SeqCst)
            })
            .await;
        }
        task.abort();
    }

    #[test]
    fn counts_distinct_sessions_per_epoch() {
        let a = ActiveSessions::new(2);
        // One session answering over and over leaves a core for spinning.
        assert!(a.answered_in(5, true));
        assert!(a.answered_in(5, false));
        assert!(a.answered_in(6, true));
        // A second session in the same epoch: both cores are wanted.
        assert!(!a.answered_in(6, true));
        // The next epoch remembers the last one's two until it has seen as many itself.
        assert!(!a.answered_in(7, true));
        // After a gap, the old count no longer counts.
        assert!(a.answered_in(9, true));
        let wide = ActiveSessions::new(16);
        for _ in 0..8 {
            assert!(wide.answered_in(1, true));
        }
        assert!(!wide.answered_in(1, true));
    }

    #[test]
    fn disabled_spinner_does_nothing() {
        let s = IdleSpinner::new(Duration::ZERO);
        s.touch();
        assert!(!s.active.load(Ordering::SeqCst));
    }
}
