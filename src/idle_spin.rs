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
//! Sessions touch the spinner only after writing notifications or committing a NOTIFY that
//! woke listeners, not after every answer. A client that just sends statements and waits for
//! their results (pgbench) is answered fastest by a worker that sleeps as soon as it is done:
//! spinning there takes the core from the client process on the same machine, which cost up to
//! half the throughput of one-statement transactions on two cores.
//!
//! Cost and bound: at most one worker's worth of CPU per shard, only within the window after
//! notification traffic; a server without it sleeps. `--idle-spin-us 0` turns it off.
//!
//! [`Config::idle_spin_us`]: crate::config::Config

use std::sync::atomic::{AtomicBool, Ordering};
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
    fn disabled_spinner_does_nothing() {
        let s = IdleSpinner::new(Duration::ZERO);
        s.touch();
        assert!(!s.active.load(Ordering::SeqCst));
    }
}
