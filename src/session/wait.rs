//! Waiting for another transaction that holds a row or key this session's statement needs.
//!
//! The executor returns `Step::Wait(cell)`; until statements can be suspended in the middle and
//! resumed by the session's event loop, the wait happens here, under `block_in_place`: the
//! shard's other sessions move to a fresh worker thread while this one waits, as for
//! `pg_sleep`. The wait ends when the other transaction ends, on cancel, terminate or
//! statement_timeout (57014 / 57P01), or with 40P01 when the waits form a cycle: the chain of
//! waits is checked when the wait starts and again every `deadlock_timeout` (1 s), as
//! PostgreSQL checks after deadlock_timeout.

use std::future::Future;
use std::pin::pin;
use std::sync::Arc;
use std::task::{Context, Wake, Waker};
use std::time::{Duration, Instant};

use super::Core;
use crate::error::{code, PgError, PgResult};
use crate::sql::expr::SessionCtx;
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
        let me = match self.txn.as_ref().and_then(|t| t.cell.clone()) {
            Some(c) => c,
            None => return Ok(()),
        };
        let txns = &self.instance.txns;
        if let Some(cycle) = txns.start_waiting(&me, holder) {
            txns.stop_waiting(&me);
            return Err(deadlock(&cycle));
        }
        self.shared
            .activity
            .lock()
            .set_wait(Some(("Lock", "transactionid")));
        let result = tokio::task::block_in_place(|| {
            let waker = Waker::from(Arc::new(ThreadWaker(std::thread::current())));
            let mut cx = Context::from_waker(&waker);
            let mut wait = pin!(holder.wait_end());
            let mut next_check = Instant::now() + DEADLOCK_TIMEOUT;
            loop {
                if wait.as_mut().poll(&mut cx).is_ready() {
                    return Ok(());
                }
                self.check_interrupts()?;
                let now = Instant::now();
                if now >= next_check {
                    if let Some(cycle) = self.instance.txns.find_deadlock(&me) {
                        return Err(deadlock(&cycle));
                    }
                    next_check = now + DEADLOCK_TIMEOUT;
                }
                std::thread::park_timeout(CHECK_EVERY);
            }
        });
        self.instance.txns.stop_waiting(&me);
        self.shared.activity.lock().set_wait(None);
        result
    }
}
