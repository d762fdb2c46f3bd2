//! The session's advisory locks: how often it holds each one, at which level, and the token
//! other sessions wait on (`txn::advisory` has the shared table and its design).
//!
//! A lock is held at session level (`pg_advisory_lock`: re-entrant, counted, kept across
//! transactions, even one rolled back, until unlocked or the session ends) or at transaction
//! level (`pg_advisory_xact_lock`: counted too, released when the transaction ends, by commit,
//! rollback, or an error outside any savepoint). The shared table only sees which modes the
//! session holds; the counts are kept here. When a mode's last count goes, the holding gets a
//! new token and the old one is ended, which wakes the sessions waiting for it.
//!
//! Bounds: one entry per key held, bounded by the shared table's bound
//! (`txn::advisory::MAX_HOLDINGS`): a holding is recorded here only once the table granted it.

use std::sync::Arc;

use rustc_hash::FxHashMap;

use super::Core;
use crate::error::{code, PgError, PgResult};
use crate::txn::advisory::{AdvisoryAcquired, AdvisoryKey, AdvisoryMode};
use crate::txn::TxnCell;

const SESSION: usize = 0;
const XACT: usize = 1;

struct Holding {
    /// Acquisitions per level and mode (`counts[level][mode]`).
    counts: [[u64; 2]; 2],
    /// The modes recorded in the shared table.
    modes: u8,
    token: Arc<TxnCell>,
}

impl Holding {
    fn modes_now(&self) -> u8 {
        let mut m = 0;
        for mode in [AdvisoryMode::Share, AdvisoryMode::Exclusive] {
            if self.counts[SESSION][mode as usize] + self.counts[XACT][mode as usize] > 0 {
                m |= mode.bit();
            }
        }
        m
    }
}

/// The advisory locks one session holds, and the one it waits for.
#[derive(Default)]
pub(super) struct AdvisoryHeld {
    held: FxHashMap<AdvisoryKey, Holding>,
    /// Listed as waiting in the shared table (pg_locks) until granted or given up.
    waiting: Option<AdvisoryKey>,
}

impl AdvisoryHeld {
    /// Whether the session waits for an advisory lock (its wait event).
    pub(super) fn is_waiting(&self) -> bool {
        self.waiting.is_some()
    }
}

fn out_of_locks() -> PgError {
    PgError::new(code::OUT_OF_MEMORY, "out of shared memory")
        .with_hint("You might need to increase max_locks_per_transaction.")
}

impl Core {
    /// The tokens of the locks this session holds: they wait with it (deadlock detection).
    pub(super) fn advisory_tokens(&self) -> Vec<Arc<TxnCell>> {
        self.advisory
            .held
            .values()
            .map(|h| h.token.clone())
            .collect()
    }

    /// Asks for `mode` on `key` at transaction level (`xact`) or session level. Granted: the
    /// count goes up. Refused: the token to await (with `wait`, the session is listed as
    /// waiting and its transaction has a cell to wait with).
    pub(super) fn acquire_advisory(
        &mut self,
        key: AdvisoryKey,
        mode: AdvisoryMode,
        xact: bool,
        wait: bool,
    ) -> PgResult<AdvisoryAcquired> {
        let pid = self.shared.pid;
        let instance = self.instance.clone();
        let token = match self.advisory.held.get(&key) {
            Some(h) => h.token.clone(),
            None => instance.txns.begin(pid),
        };
        let got = instance
            .locks
            .advisory
            .acquire(key, mode, pid, &token, wait)
            .map_err(|_| out_of_locks())?;
        match got {
            AdvisoryAcquired::Granted => {
                self.advisory.waiting = None;
                let h = self.advisory.held.entry(key).or_insert_with(|| Holding {
                    counts: [[0; 2]; 2],
                    modes: 0,
                    token,
                });
                h.counts[if xact { XACT } else { SESSION }][mode as usize] += 1;
                h.modes |= mode.bit();
            }
            AdvisoryAcquired::Wait(_) => {
                if wait {
                    self.advisory.waiting = Some(key);
                    let txn = self.txn_mut();
                    txn.cell.get_or_insert_with(|| instance.txns.begin(pid));
                }
            }
        }
        Ok(got)
    }

    /// `pg_advisory_lock` and its kin: waits in place while another session holds a
    /// conflicting mode (the executor suspends the statement instead where it can: a call at
    /// the top of a select list).
    pub(super) fn advisory_lock_waiting(
        &mut self,
        key: AdvisoryKey,
        mode: AdvisoryMode,
        xact: bool,
    ) -> PgResult<()> {
        loop {
            match self.acquire_advisory(key, mode, xact, true)? {
                AdvisoryAcquired::Granted => return Ok(()),
                AdvisoryAcquired::Wait(token) => {
                    if let Err(e) = self.wait_for_transaction_as(&token, ("Lock", "advisory")) {
                        self.advisory_stop_waiting();
                        return Err(e);
                    }
                }
            }
        }
    }

    /// A wait for an advisory lock was given up (error, cancel, timeout, deadlock).
    pub(super) fn advisory_stop_waiting(&mut self) {
        if let Some(key) = self.advisory.waiting.take() {
            self.instance
                .locks
                .advisory
                .stop_waiting(key, self.shared.pid);
        }
    }

    /// `pg_advisory_unlock[_shared]`: releases one session-level hold of `mode` on `key`;
    /// false with PostgreSQL's warning when there is none.
    pub(super) fn unlock_advisory(&mut self, key: AdvisoryKey, mode: AdvisoryMode) -> bool {
        match self.advisory.held.get_mut(&key) {
            Some(h) if h.counts[SESSION][mode as usize] > 0 => {
                h.counts[SESSION][mode as usize] -= 1;
                self.advisory_settle(key);
                true
            }
            _ => {
                self.notices.push(PgError::warning(
                    code::WARNING,
                    format!("you don't own a lock of type {}", mode.name()),
                ));
                false
            }
        }
    }

    /// Releases every hold at one level: session (`pg_advisory_unlock_all`, session end) or
    /// transaction (its end).
    pub(super) fn advisory_release_level(&mut self, xact: bool) {
        let level = if xact { XACT } else { SESSION };
        let keys: Vec<AdvisoryKey> = self
            .advisory
            .held
            .iter_mut()
            .filter(|(_, h)| h.counts[level] != [0, 0])
            .map(|(k, h)| {
                h.counts[level] = [0, 0];
                *k
            })
            .collect();
        for k in keys {
            self.advisory_settle(k);
        }
        if xact {
            // A wait given up with its transaction.
            self.advisory_stop_waiting();
        }
    }

    /// After counts of `key` went down: records the modes still held in the shared table and
    /// ends the old token if a mode went (invariant 3 of `txn::advisory`), waking its waiters.
    fn advisory_settle(&mut self, key: AdvisoryKey) {
        let Some(h) = self.advisory.held.get_mut(&key) else {
            return;
        };
        let modes = h.modes_now();
        if modes == h.modes {
            return;
        }
        let pid = self.shared.pid;
        let txns = &self.instance.txns;
        let table = &self.instance.locks.advisory;
        let old = h.token.clone();
        if modes == 0 {
            table.set_modes(key, pid, 0, &old);
            self.advisory.held.remove(&key);
        } else {
            h.token = txns.begin(pid);
            h.modes = modes;
            table.set_modes(key, pid, modes, &h.token);
        }
        txns.abort(&old, &[]);
    }
}
