//! Advisory locks: PostgreSQL's `pg_advisory_*` family, locks on numbers that mean what the
//! application says they mean.
//!
//! # Design
//!
//! A lock is named by an [`AdvisoryKey`]: the database and the key as PostgreSQL encodes it in
//! pg_locks (one bigint: its high and low halves as classid / objid, objsubid 1; two int4s:
//! classid / objid, objsubid 2). It is held in [`AdvisoryMode::Exclusive`] or
//! [`AdvisoryMode::Share`] by sessions, identified by their pid: a session never conflicts with
//! itself, whatever mode and level it holds. How often, and at which level (session or
//! transaction), a session holds a lock is the session's own business (it keeps the counts);
//! this table only knows which modes each session holds now.
//!
//! Waiting reuses the transactions' machinery. Each holding has a *token*: a [`TxnCell`] that
//! never writes, made when the holding starts and ended (aborted) by its owner whenever the set
//! of modes it holds shrinks. A refused request gets a conflicting holder's token back, awaits
//! its end as a row-lock waiter awaits a writer (`TxnCell::wait_end`: a future, woken at the
//! end; the shard goes on serving other sessions) and asks again. The owner replaces a token it
//! ended by a new one when it keeps some modes. For deadlock detection, a session that waits
//! records whom it waits for on its transaction's cell *and* on its tokens
//! (`TxnManager::start_waiting_as`), so a chain of waits that reaches one of its tokens comes
//! back to it.
//!
//! # Invariants
//!
//! 1. Only the owning session changes its holding of a key (modes and token); it does so with
//!    the stripe's mutex held.
//! 2. The modes of live holdings of one key never conflict across sessions: a grant checks
//!    every other holder under the stripe's mutex.
//! 3. A token is in progress exactly while it stands for the modes recorded beside it: an owner
//!    that drops a mode records the new modes (and token) before it ends the old token, so a
//!    waiter woken by that end finds the mode gone when it asks again.
//! 4. `held` counts the holdings in every stripe (one per session and key).
//!
//! # Lock order and bounds
//!
//! One stripe mutex at a time, for a lookup and a few comparisons; a token is ended after the
//! mutex is released. Holdings are bounded by [`MAX_HOLDINGS`] across the instance (PostgreSQL:
//! its shared lock table, `max_locks_per_transaction` × connections, 64 × 10,000 here): past it a
//! request fails with 53200 `out of shared memory` and PostgreSQL's hint. Waiters are listed
//! (for pg_locks) one per waiting session.
//!
//! # Not yet
//!
//! No queue: a waiter asks again when a holder drops a mode, and the first to ask wins, so a
//! steady stream of shared holders can keep an exclusive request waiting (PostgreSQL queues it
//! ahead of later shared requests).

use rustc_hash::FxHashMap;

use super::TxnCell;
use crate::sync::{Arc, AtomicUsize, Mutex, Ordering};

/// Stripes of the table (a power of two).
const STRIPES: usize = 64;

/// The most holdings (session × key) the instance keeps at once.
pub const MAX_HOLDINGS: usize = 64 * 10_000;

/// A lock's name: pg_locks' database, classid, objid and objsubid.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct AdvisoryKey {
    pub database: u32,
    pub classid: u32,
    pub objid: u32,
    /// 1: one bigint key; 2: two int4 keys.
    pub objsubid: u16,
}

impl AdvisoryKey {
    /// A one-key lock (bigint).
    pub fn one(database: u32, key: i64) -> AdvisoryKey {
        AdvisoryKey {
            database,
            classid: ((key as u64) >> 32) as u32,
            objid: key as u64 as u32,
            objsubid: 1,
        }
    }

    /// A two-key lock (int4, int4).
    pub fn two(database: u32, k1: i32, k2: i32) -> AdvisoryKey {
        AdvisoryKey {
            database,
            classid: k1 as u32,
            objid: k2 as u32,
            objsubid: 2,
        }
    }
}

/// The two modes advisory locks are taken in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AdvisoryMode {
    Share = 0,
    Exclusive = 1,
}

impl AdvisoryMode {
    pub fn bit(self) -> u8 {
        1 << self as u8
    }

    /// The modes this one conflicts with (exclusive with both, share with exclusive).
    fn conflicts(self) -> u8 {
        match self {
            AdvisoryMode::Share => AdvisoryMode::Exclusive.bit(),
            AdvisoryMode::Exclusive => AdvisoryMode::Share.bit() | AdvisoryMode::Exclusive.bit(),
        }
    }

    /// PostgreSQL's name of the mode (pg_locks.mode, the unlock warning).
    pub fn name(self) -> &'static str {
        match self {
            AdvisoryMode::Share => "ShareLock",
            AdvisoryMode::Exclusive => "ExclusiveLock",
        }
    }
}

struct Holding {
    pid: i32,
    modes: u8,
    token: Arc<TxnCell>,
}

struct Waiting {
    pid: i32,
    mode: AdvisoryMode,
}

#[derive(Default)]
struct Entry {
    holders: Vec<Holding>,
    waiters: Vec<Waiting>,
}

/// What a request got.
#[derive(Debug)]
pub enum AdvisoryAcquired {
    Granted,
    /// Another session holds a conflicting mode: await the end of this token, then ask again.
    Wait(Arc<TxnCell>),
}

/// One row of pg_locks for an advisory lock.
#[derive(Debug, Clone)]
pub struct AdvisoryRow {
    pub key: AdvisoryKey,
    pub pid: i32,
    pub mode: AdvisoryMode,
    pub granted: bool,
}

/// The instance's advisory locks (see the module comment).
pub struct AdvisoryTable {
    stripes: Box<[Mutex<FxHashMap<AdvisoryKey, Entry>>]>,
    held: AtomicUsize,
    limit: usize,
}

impl Default for AdvisoryTable {
    fn default() -> Self {
        AdvisoryTable::with_limit(MAX_HOLDINGS)
    }
}

/// The table is full (PostgreSQL's shared lock table).
#[derive(Debug, PartialEq, Eq)]
pub struct TableFull;

impl AdvisoryTable {
    pub fn with_limit(limit: usize) -> AdvisoryTable {
        AdvisoryTable {
            stripes: (0..STRIPES)
                .map(|_| Mutex::new(FxHashMap::default()))
                .collect(),
            held: AtomicUsize::new(0),
            limit,
        }
    }

    fn stripe(&self, key: &AdvisoryKey) -> &Mutex<FxHashMap<AdvisoryKey, Entry>> {
        let h = (key.classid as usize)
            .wrapping_mul(0x9E37_79B9)
            .wrapping_add(key.objid as usize)
            .wrapping_mul(0x85EB_CA6B);
        &self.stripes[(h >> 11) & (STRIPES - 1)]
    }

    /// Asks for `mode` on `key` for session `pid`. `token` is the session's token for the key
    /// when it holds it already, else a fresh cell that becomes the token if the request is
    /// granted. `wait`: record the session as waiting when refused (pg_locks).
    pub fn acquire(
        &self,
        key: AdvisoryKey,
        mode: AdvisoryMode,
        pid: i32,
        token: &Arc<TxnCell>,
        wait: bool,
    ) -> Result<AdvisoryAcquired, TableFull> {
        let mut map = self.stripe(&key).lock();
        let entry = map.entry(key).or_default();
        let conflicts = mode.conflicts();
        if let Some(h) = entry
            .holders
            .iter()
            .find(|h| h.pid != pid && h.modes & conflicts != 0)
        {
            let blocker = h.token.clone();
            if wait && !entry.waiters.iter().any(|w| w.pid == pid) {
                entry.waiters.push(Waiting { pid, mode });
            }
            return Ok(AdvisoryAcquired::Wait(blocker));
        }
        entry.waiters.retain(|w| w.pid != pid);
        match entry.holders.iter_mut().find(|h| h.pid == pid) {
            Some(h) => {
                h.modes |= mode.bit();
                h.token = token.clone();
            }
            None => {
                if self.held.fetch_add(1, Ordering::SeqCst) >= self.limit {
                    self.held.fetch_sub(1, Ordering::SeqCst);
                    if entry.holders.is_empty() && entry.waiters.is_empty() {
                        map.remove(&key);
                    }
                    return Err(TableFull);
                }
                entry.holders.push(Holding {
                    pid,
                    modes: mode.bit(),
                    token: token.clone(),
                });
            }
        }
        Ok(AdvisoryAcquired::Granted)
    }

    /// Session `pid` no longer waits for `key` (granted elsewhere, or the wait failed).
    pub fn stop_waiting(&self, key: AdvisoryKey, pid: i32) {
        let mut map = self.stripe(&key).lock();
        if let Some(e) = map.get_mut(&key) {
            e.waiters.retain(|w| w.pid != pid);
            if e.holders.is_empty() && e.waiters.is_empty() {
                map.remove(&key);
            }
        }
    }

    /// Session `pid` now holds `modes` of `key` (a subset of what it held) under `token`
    /// (ignored when `modes` is empty: the holding goes). The caller ends its old token after
    /// this (invariant 3).
    pub fn set_modes(&self, key: AdvisoryKey, pid: i32, modes: u8, token: &Arc<TxnCell>) {
        let mut map = self.stripe(&key).lock();
        let Some(e) = map.get_mut(&key) else {
            return;
        };
        if let Some(i) = e.holders.iter().position(|h| h.pid == pid) {
            if modes == 0 {
                e.holders.swap_remove(i);
                self.held.fetch_sub(1, Ordering::SeqCst);
            } else {
                e.holders[i].modes = modes;
                e.holders[i].token = token.clone();
            }
        }
        if e.holders.is_empty() && e.waiters.is_empty() {
            map.remove(&key);
        }
    }

    /// Every lock held or awaited, for pg_locks.
    pub fn rows(&self) -> Vec<AdvisoryRow> {
        let mut out = Vec::new();
        for s in self.stripes.iter() {
            let map = s.lock();
            for (key, e) in map.iter() {
                for h in &e.holders {
                    for mode in [AdvisoryMode::Share, AdvisoryMode::Exclusive] {
                        if h.modes & mode.bit() != 0 {
                            out.push(AdvisoryRow {
                                key: *key,
                                pid: h.pid,
                                mode,
                                granted: true,
                            });
                        }
                    }
                }
                for w in &e.waiters {
                    out.push(AdvisoryRow {
                        key: *key,
                        pid: w.pid,
                        mode: w.mode,
                        granted: false,
                    });
                }
            }
        }
        out
    }

    /// Holdings in the table (invariant 4).
    pub fn held(&self) -> usize {
        self.held.load(Ordering::SeqCst)
    }
}

#[cfg(all(test, not(feature = "shuttle")))]
mod tests {
    use super::*;
    use crate::txn::TxnManager;

    #[test]
    fn keys_are_encoded_as_postgresql_shows_them() {
        let k = AdvisoryKey::one(5, -1);
        assert_eq!((k.classid, k.objid, k.objsubid), (u32::MAX, u32::MAX, 1));
        let k = AdvisoryKey::one(5, (7i64 << 32) | 9);
        assert_eq!((k.classid, k.objid), (7, 9));
        let k = AdvisoryKey::two(5, -2, 3);
        assert_eq!((k.classid, k.objid, k.objsubid), (u32::MAX - 1, 3, 2));
        assert_ne!(AdvisoryKey::one(5, 1), AdvisoryKey::two(5, 0, 1));
    }

    #[test]
    fn shared_holders_coexist_and_exclusive_waits_for_their_tokens() {
        let m = TxnManager::new(4);
        let t = AdvisoryTable::default();
        let k = AdvisoryKey::one(1, 42);
        let (ta, tb, tc) = (m.begin(1), m.begin(2), m.begin(3));
        use AdvisoryAcquired::*;
        assert!(matches!(
            t.acquire(k, AdvisoryMode::Share, 1, &ta, true),
            Ok(Granted)
        ));
        assert!(matches!(
            t.acquire(k, AdvisoryMode::Share, 2, &tb, true),
            Ok(Granted)
        ));
        match t.acquire(k, AdvisoryMode::Exclusive, 3, &tc, true) {
            Ok(Wait(w)) => assert!(Arc::ptr_eq(&w, &ta) || Arc::ptr_eq(&w, &tb)),
            other => panic!("{other:?}"),
        }
        // An upgrade waits for the other session's share, and is listed as waiting.
        assert!(matches!(
            t.acquire(k, AdvisoryMode::Exclusive, 1, &ta, true),
            Ok(Wait(_))
        ));
        assert_eq!(t.rows().iter().filter(|r| !r.granted).count(), 2);
        t.stop_waiting(k, 1);
        t.set_modes(k, 1, 0, &ta);
        m.abort(&ta, &[]);
        t.set_modes(k, 2, 0, &tb);
        m.abort(&tb, &[]);
        assert!(matches!(
            t.acquire(k, AdvisoryMode::Exclusive, 3, &tc, true),
            Ok(Granted)
        ));
        assert!(matches!(
            t.acquire(k, AdvisoryMode::Share, 3, &tc, true),
            Ok(Granted)
        ));
        assert_eq!(
            t.rows().len(),
            2,
            "both modes of one holder, nobody waiting"
        );
        t.set_modes(k, 3, 0, &tc);
        assert_eq!(t.held(), 0);
        assert!(t.stripe(&k).lock().is_empty());
    }

    #[test]
    fn the_bound_refuses_new_holdings_only() {
        let m = TxnManager::new(4);
        let t = AdvisoryTable::with_limit(2);
        let tok = m.begin(1);
        for i in 0..2 {
            assert!(t
                .acquire(AdvisoryKey::one(1, i), AdvisoryMode::Share, 1, &tok, false)
                .is_ok());
        }
        assert_eq!(
            t.acquire(AdvisoryKey::one(1, 9), AdvisoryMode::Share, 1, &tok, false)
                .err(),
            Some(TableFull)
        );
        assert!(
            t.acquire(
                AdvisoryKey::one(1, 0),
                AdvisoryMode::Exclusive,
                1,
                &tok,
                false
            )
            .is_ok(),
            "another mode of a holding is not a new holding"
        );
        assert_eq!(t.held(), 2);
    }
}
