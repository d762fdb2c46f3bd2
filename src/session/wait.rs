//! Waiting for another transaction that holds a row or key this session's statement needs, or
//! for another session's advisory lock (its token, `txn::advisory`).
//!
//! The executor returns `Step::Wait(cell)`. A query run from the protocol stops there
//! (`running.rs`) and the socket loop awaits [`Session::await_running`]: the session's task
//! sleeps and its shard serves the others. The wait ends when the other transaction ends, on
//! cancel, terminate or statement_timeout (57014 / 57P01), after lock_timeout (55P03: each
//! wait for a relation or row lock gets that long, as in PostgreSQL), or with 40P01 when the
//! waits form a
//! cycle: the chain of waits is checked when the wait starts and again every
//! `deadlock_timeout` (1 s), as PostgreSQL checks after deadlock_timeout. A client that closes
//! its connection while its session waits is noticed at those checks.
//!
//! Paths that cannot stop in the middle of a statement (a subquery inside an expression, FETCH,
//! COPY) wait in place instead ([`Core::wait_for_transaction`]), under `block_in_place`: the
//! shard's other sessions move to a fresh worker thread while this one waits, as for
//! `pg_sleep`.

use std::future::Future;
use std::pin::pin;
use std::sync::Arc;
use std::task::{Context, Wake, Waker};
use std::time::{Duration, Instant};

use tokio::net::TcpStream;

use super::{Core, Session};
use crate::error::{code, PgError, PgResult};
use crate::sql::context::SessionCtx;
use crate::txn::TxnCell;

/// PostgreSQL's default deadlock_timeout.
const DEADLOCK_TIMEOUT: Duration = Duration::from_secs(1);
/// How often a waiter looks at cancel, terminate and the statement deadline.
const CHECK_EVERY: Duration = Duration::from_millis(50);

struct ThreadWaker(std::thread::Thread);

impl Wake for ThreadWaker {
    fn wake(self: Arc<Self>) {
        self.0.unpark();
    }
}

fn lock_timeout() -> PgError {
    PgError::new(
        code::LOCK_NOT_AVAILABLE,
        "canceling statement due to lock timeout",
    )
}

/// When a lock wait starting now must give up (lock_timeout; None: never).
fn lock_deadline(timeout_ms: u64) -> Option<Instant> {
    (timeout_ms > 0).then(|| Instant::now() + Duration::from_millis(timeout_ms))
}

fn deadlock(cycle: &[Arc<TxnCell>]) -> PgError {
    let mut detail = Vec::new();
    for (i, c) in cycle.iter().enumerate() {
        let next = &cycle[(i + 1) % cycle.len()];
        detail.push(format!(
            "Process {} waits for ShareLock on transaction {}; blocked by process {}.",
            c.pid(),
            next.xid(),
            next.pid()
        ));
    }
    PgError::new(code::T_R_DEADLOCK_DETECTED, "deadlock detected")
        .with_detail(detail.join("\n"))
        .with_hint("See server log for query details.")
}

impl Core {
    pub(super) fn wait_for_transaction(&mut self, holder: &Arc<TxnCell>) -> PgResult<()> {
        self.wait_for_transaction_as(holder, ("Lock", "transactionid"))
    }

    /// Waits in place for `holder` to end, shown in pg_stat_activity as wait event `event`.
    pub(super) fn wait_for_transaction_as(
        &mut self,
        holder: &Arc<TxnCell>,
        event: crate::instance::WaitEvent,
    ) -> PgResult<()> {
        let me = match self.txn.as_ref().and_then(|t| t.cell.clone()) {
            Some(c) => c,
            None => return Ok(()),
        };
        // The advisory locks this session holds wait with it (deadlock detection).
        let also = self.advisory_tokens();
        let txns = &self.instance.txns;
        if let Some(cycle) = txns.start_waiting_as(&me, &also, holder) {
            txns.stop_waiting_as(&me, &also);
            return Err(deadlock(&cycle));
        }
        self.shared.activity.lock().set_wait(Some(event));
        let give_up = lock_deadline(self.settings.lock_timeout_ms);
        let result = tokio::task::block_in_place(|| {
            let waker = Waker::from(Arc::new(ThreadWaker(std::thread::current())));
            let mut cx = Context::from_waker(&waker);
            let mut wait = pin!(holder.wait_end());
            let mut next_check = Instant::now() + DEADLOCK_TIMEOUT;
            loop {
                if wait.as_mut().poll(&mut cx).is_ready() {
                    self.instance.txns.settle(holder);
                    return Ok(());
                }
                self.check_interrupts()?;
                let now = Instant::now();
                if give_up.is_some_and(|g| now >= g) {
                    return Err(lock_timeout());
                }
                if now >= next_check {
                    if let Some(cycle) = self.instance.txns.find_deadlock_as(&me, &also) {
                        return Err(deadlock(&cycle));
                    }
                    next_check = now + DEADLOCK_TIMEOUT;
                }
                let nap = give_up.map_or(CHECK_EVERY, |g| {
                    CHECK_EVERY.min(g.saturating_duration_since(now) + Duration::from_millis(1))
                });
                std::thread::park_timeout(nap);
            }
        });
        self.instance.txns.stop_waiting_as(&me, &also);
        self.shared.activity.lock().set_wait(None);
        result
    }
}

impl Session {
    /// Awaits what the suspended statement needs before it can go on: the end of the
    /// transaction it waits for (an error met meanwhile goes into the statement), or only a turn
    /// of the shard's other sessions when it gave way. False when the client has gone.
    pub(super) async fn await_running(&mut self, stream: &TcpStream) -> bool {
        let Some(holder) = self.running.as_ref().and_then(|r| r.wait.clone()) else {
            tokio::task::yield_now().await;
            return !client_gone(stream);
        };
        let me = match self.core.txn.as_ref().and_then(|t| t.cell.clone()) {
            Some(c) => c,
            None => return true,
        };
        let instance = self.core.instance.clone();
        let txns = &instance.txns;
        let also = self.core.advisory_tokens();
        let advisory = self.core.advisory.is_waiting();
        if let Some(cycle) = txns.start_waiting_as(&me, &also, &holder) {
            txns.stop_waiting_as(&me, &also);
            if advisory {
                self.core.advisory_stop_waiting();
            }
            if let Some(r) = self.running.as_mut() {
                r.failed = Some(deadlock(&cycle));
            }
            return true;
        }
        let before = self.core.wait_shown;
        self.set_wait(Some(if advisory {
            ("Lock", "advisory")
        } else {
            ("Lock", "transactionid")
        }));
        let shared = self.core.shared.clone();
        let mut wait = pin!(holder.wait_end());
        let mut next_check = Instant::now() + DEADLOCK_TIMEOUT;
        let give_up = lock_deadline(self.core.settings.lock_timeout_ms);
        let result = loop {
            let until = [self.core.deadline, give_up]
                .into_iter()
                .flatten()
                .fold(next_check, Instant::min);
            tokio::select! {
                _ = wait.as_mut() => {
                    // An earlier commit may still be between its flush and its publication:
                    // the shard serves others meanwhile.
                    while !txns.settled(&holder) {
                        tokio::task::yield_now().await;
                    }
                    break Ok(());
                }
                _ = shared.wake.notified() => {}
                _ = tokio::time::sleep_until(until.into()) => {}
            }
            if let Err(e) = self.core.check_interrupts() {
                break Err(e);
            }
            let now = Instant::now();
            if give_up.is_some_and(|g| now >= g) {
                break Err(lock_timeout());
            }
            if now >= next_check {
                if let Some(cycle) = txns.find_deadlock_as(&me, &also) {
                    break Err(deadlock(&cycle));
                }
                if client_gone(stream) {
                    txns.stop_waiting_as(&me, &also);
                    return false;
                }
                next_check = now + DEADLOCK_TIMEOUT;
            }
        };
        txns.stop_waiting_as(&me, &also);
        self.set_wait(before);
        if result.is_err() && advisory {
            self.core.advisory_stop_waiting();
        }
        if let (Err(e), Some(r)) = (result, self.running.as_mut()) {
            r.failed = Some(e);
        }
        true
    }
}

/// Whether the client closed its end of the connection (input it sent before, a Terminate
/// message included, may still wait in the socket).
fn client_gone(stream: &TcpStream) -> bool {
    use std::os::fd::AsRawFd;
    fd_client_gone(stream.as_raw_fd())
}

/// [`client_gone`] for the session's socket by its descriptor: the peer's FIN or a reset, as
/// PostgreSQL's client_connection_check_interval sees it (POLLRDHUP).
pub(super) fn fd_client_gone(fd: std::os::fd::RawFd) -> bool {
    let mut p = libc::pollfd {
        fd,
        events: libc::POLLRDHUP,
        revents: 0,
    };
    // SAFETY: one pollfd on the stack for a socket this session owns; no waiting.
    let n = unsafe { libc::poll(&mut p, 1, 0) };
    n > 0 && p.revents & (libc::POLLRDHUP | libc::POLLHUP | libc::POLLERR) != 0
}
