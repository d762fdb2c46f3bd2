//! Waiting for another transaction to end, as a future.
//!
//! A session that must wait for a row (a writer still running) awaits [`WaitEnd`]; its shard
//! runs other sessions meanwhile. The future registers its waker in the cell it waits on and is
//! woken by [`super::TxnCell::finish`]. A sub-transaction that sub-commits has not ended for a
//! waiter: its writes now belong to the parent, so the future moves on to wait for the parent.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use super::{committing_csn, Status, TxnCell, IN_PROGRESS, SUBCOMMITTED};
use crate::sync::{Arc, Ordering};

/// Completes with the transaction's final status (committed or aborted), or earlier with
/// `Committed` once its commit record is appended, when this wait saw it still running: the
/// waiter retries, and a writer may then follow the commit before it is durable (`txn`
/// invariant 8). A wait that starts on a commit already appended (its waiter could not follow
/// it) lasts until the commit is published, so a retry that must wait again never spins.
pub struct WaitEnd {
    cell: Arc<TxnCell>,
    saw_running: bool,
}

impl WaitEnd {
    pub(super) fn new(cell: Arc<TxnCell>) -> WaitEnd {
        WaitEnd {
            cell,
            saw_running: false,
        }
    }

    /// The transaction waited for now (the parent, once a sub-transaction sub-committed).
    pub fn cell(&self) -> &Arc<TxnCell> {
        &self.cell
    }
}

impl Future for WaitEnd {
    type Output = Status;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Status> {
        loop {
            let state = self.cell.state.load(Ordering::SeqCst);
            match state {
                IN_PROGRESS => self.saw_running = true,
                SUBCOMMITTED => {
                    if let Some(p) = self.cell.parent.clone() {
                        self.cell = p;
                        continue;
                    }
                    return Poll::Ready(Status::InProgress);
                }
                s => match committing_csn(s) {
                    Some(csn) if self.saw_running => return Poll::Ready(Status::Committed(csn)),
                    Some(_) => {}
                    None => return Poll::Ready(self.cell.status()),
                },
            }
            let mut waiters = self.cell.waiters.lock();
            // Invariant 6: checked again under the lock that finish() and the committing store's wake_waiters()
            // (wake_waiters) take after their stores.
            if self.cell.state.load(Ordering::SeqCst) != state {
                continue;
            }
            if !waiters.iter().any(|w| w.will_wake(cx.waker())) {
                waiters.push(cx.waker().clone());
            }
            return Poll::Pending;
        }
    }
}

#[cfg(all(test, not(feature = "shuttle")))]
mod tests {
    use super::super::TxnManager;
    use super::*;

    fn block_on<F: Future>(f: F) -> F::Output {
        tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap()
            .block_on(f)
    }

    #[test]
    fn a_waiter_wakes_when_the_writer_commits_or_aborts() {
        let m = std::sync::Arc::new(TxnManager::new(4));
        let t = m.begin(1);
        let w = t.wait_end();
        let m2 = m.clone();
        let t2 = t.clone();
        let h = std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(20));
            m2.commit(&t2)
        });
        let status = block_on(w);
        let csn = h.join().unwrap();
        assert_eq!(status, Status::Committed(csn));

        let u = m.begin(1);
        let s = m.begin_sub(&u);
        let w = s.wait_end();
        m.subcommit(&s);
        let u2 = u.clone();
        let m3 = m.clone();
        let h = std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(20));
            m3.abort(&u2, &[]);
        });
        assert_eq!(block_on(w), Status::Aborted, "waits through the sub-commit");
        h.join().unwrap();
    }
}
