//! Relation locks: PostgreSQL's eight table lock modes, held until the transaction ends.
//!
//! # Why
//!
//! Row versions and catalog versions are multi-versioned, so readers never need a lock to see a
//! consistent table. What MVCC cannot order is DDL against concurrent use of the same table: a
//! TRUNCATE or ALTER TABLE that swaps a table's data for a new version must not commit while
//! another transaction still writes into the old one (its rows would be lost), and DROP TABLE
//! waits for the transactions using the table, as in PostgreSQL. So every statement takes a lock
//! on each table it uses (SELECT: ACCESS SHARE, SELECT FOR UPDATE: ROW SHARE, INSERT / UPDATE /
//! DELETE: ROW EXCLUSIVE), DDL takes the strong modes (CREATE INDEX: SHARE, DROP / TRUNCATE /
//! ALTER TABLE: ACCESS EXCLUSIVE), and LOCK TABLE any of them. PostgreSQL's conflict table
//! decides who waits.
//!
//! # Design
//!
//! A [`LockTable`] is [`STRIPES`] mutex-protected maps from relation id to an [`Entry`]: the
//! holders (by top-level transaction id, with the modes each holds), a count of holders per mode
//! (so a request checks conflicts in O(1) when nothing strong is held: the common case, weak
//! modes never conflict with each other), and the queue of waiting requests in arrival order.
//!
//! * A request is granted when no other live holder holds a conflicting mode and, unless the
//!   requester already holds a lock on the relation, no earlier waiter wants a conflicting mode
//!   (PostgreSQL's queue: a waiting ACCESS EXCLUSIVE keeps later readers out, so DDL is not
//!   starved).
//! * Otherwise the request joins the queue and [`LockTable::acquire`] returns the cell of a
//!   transaction to wait for: a conflicting holder, or the conflicting waiter ahead. Holders keep
//!   their locks until they end, so waiting for that transaction's end and asking again is exact;
//!   the session awaits the cell as it awaits a row lock's holder (`TxnCell::wait_end`, with the
//!   same deadlock check over the chain of waits).
//! * A transaction releases all its locks at its end ([`LockTable::release`], after its cell
//!   finished, so a waiter that wakes and finds the lock free sees the commit). A holder whose
//!   cell has ended is dead: requests ignore it and drop it, so a wake-up between the end and
//!   the release costs one retry, never a lost lock.
//!
//! # Invariants
//!
//! 1. `counts[m]` is the number of holders in `holders` whose modes include `m`.
//! 2. A live holder's modes never conflict with another live holder's (a grant checks all
//!    conflicting holders under the stripe's mutex).
//! 3. A transaction is in a relation's queue only while its session is between a refused
//!    `acquire` and the grant, [`LockTable::abandon`] or [`LockTable::release`] of that relation.
//!
//! # Lock order and bounds
//!
//! One stripe mutex at a time, held for a map lookup and a few counters; never while waiting.
//! Entries exist only while some transaction holds or waits for a lock on the relation, so the
//! maps hold at most (sessions × tables locked per transaction) entries; a transaction's own
//! list of locks (kept by the session) is bounded by the tables its statements name.
//!
//! # Not yet
//!
//! Every grant takes its stripe's mutex: all sessions reading one table meet on one cache line.
//! PostgreSQL's fast path (weak locks recorded per backend, strong lockers transfer them) is the
//! way to make shared locks cost no shared write; it fits behind this same interface.

use rustc_hash::FxHashMap;

use super::{TxnCell, Xid};
use crate::sync::{Arc, Mutex};

/// Stripes of the lock table (a power of two).
pub const STRIPES: usize = 64;

/// PostgreSQL's table lock modes, weakest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum LockMode {
    AccessShare = 0,
    RowShare = 1,
    RowExclusive = 2,
    ShareUpdateExclusive = 3,
    Share = 4,
    ShareRowExclusive = 5,
    Exclusive = 6,
    AccessExclusive = 7,
}

impl LockMode {
    pub const ALL: [LockMode; 8] = [
        LockMode::AccessShare,
        LockMode::RowShare,
        LockMode::RowExclusive,
        LockMode::ShareUpdateExclusive,
        LockMode::Share,
        LockMode::ShareRowExclusive,
        LockMode::Exclusive,
        LockMode::AccessExclusive,
    ];

    fn bit(self) -> u8 {
        1 << self as u8
    }

    /// The modes this one conflicts with, as a bit set (PostgreSQL's table, symmetric).
    fn conflicts(self) -> u8 {
        use LockMode::*;
        let set = |ms: &[LockMode]| ms.iter().fold(0u8, |a, m| a | m.bit());
        match self {
            AccessShare => set(&[AccessExclusive]),
            RowShare => set(&[Exclusive, AccessExclusive]),
            RowExclusive => set(&[Share, ShareRowExclusive, Exclusive, AccessExclusive]),
            ShareUpdateExclusive => set(&[
                ShareUpdateExclusive,
                Share,
                ShareRowExclusive,
                Exclusive,
                AccessExclusive,
            ]),
            Share => set(&[
                RowExclusive,
                ShareUpdateExclusive,
                ShareRowExclusive,
                Exclusive,
                AccessExclusive,
            ]),
            ShareRowExclusive => set(&[
                RowExclusive,
                ShareUpdateExclusive,
                Share,
                ShareRowExclusive,
                Exclusive,
                AccessExclusive,
            ]),
            Exclusive => set(&[
                RowShare,
                RowExclusive,
                ShareUpdateExclusive,
                Share,
                ShareRowExclusive,
                Exclusive,
                AccessExclusive,
            ]),
            AccessExclusive => 0xff,
        }
    }

    /// PostgreSQL's name of the mode (pg_locks.mode, error details).
    pub fn name(self) -> &'static str {
        use LockMode::*;
        match self {
            AccessShare => "AccessShareLock",
            RowShare => "RowShareLock",
            RowExclusive => "RowExclusiveLock",
            ShareUpdateExclusive => "ShareUpdateExclusiveLock",
            Share => "ShareLock",
            ShareRowExclusive => "ShareRowExclusiveLock",
            Exclusive => "ExclusiveLock",
            AccessExclusive => "AccessExclusiveLock",
        }
    }
}

struct Holder {
    cell: Arc<TxnCell>,
    modes: u8,
}

struct Waiter {
    cell: Arc<TxnCell>,
    mode: LockMode,
}

/// The locks on one relation.
#[derive(Default)]
struct Entry {
    holders: FxHashMap<Xid, Holder>,
    /// Holders per mode (invariant 1).
    counts: [u32; 8],
    queue: Vec<Waiter>,
}

impl Entry {
    fn held_modes(&self) -> u8 {
        let mut m = 0;
        for (i, c) in self.counts.iter().enumerate() {
            if *c > 0 {
                m |= 1 << i;
            }
        }
        m
    }

    fn remove_holder(&mut self, xid: Xid) {
        if let Some(h) = self.holders.remove(&xid) {
            for (i, c) in self.counts.iter_mut().enumerate() {
                if h.modes & (1 << i) != 0 {
                    *c -= 1;
                }
            }
        }
    }

    fn is_empty(&self) -> bool {
        self.holders.is_empty() && self.queue.is_empty()
    }
}

/// What a lock request got.
#[derive(Debug)]
pub enum Acquired {
    /// Granted now (or held already).
    Granted,
    /// Wait for this transaction to end, then ask again.
    Wait(Arc<TxnCell>),
}

/// One row of pg_locks for a relation lock.
#[derive(Debug, Clone)]
pub struct LockRow {
    pub relation: u32,
    pub pid: i32,
    pub xid: Xid,
    pub mode: LockMode,
    pub granted: bool,
    /// The holder's or waiter's transaction (pg_locks also shows what it waits for).
    pub cell: Arc<TxnCell>,
}

/// The relation locks of an instance (see the module comment).
pub struct LockTable {
    stripes: Box<[Mutex<FxHashMap<u32, Entry>>]>,
    /// The advisory locks (`txn::advisory`), kept beside the relation locks.
    pub advisory: super::advisory::AdvisoryTable,
}

impl Default for LockTable {
    fn default() -> Self {
        LockTable {
            stripes: (0..STRIPES)
                .map(|_| Mutex::new(FxHashMap::default()))
                .collect(),
            advisory: Default::default(),
        }
    }
}

fn ended(cell: &TxnCell) -> bool {
    cell.own_state_ended()
}

impl LockTable {
    fn stripe(&self, rel: u32) -> &Mutex<FxHashMap<u32, Entry>> {
        &self.stripes[(rel as usize).wrapping_mul(0x9E37_79B9) >> 7 & (STRIPES - 1)]
    }

    /// Asks for `mode` on relation `rel` for the top-level transaction `me`.
    pub fn acquire(&self, rel: u32, mode: LockMode, me: &Arc<TxnCell>) -> Acquired {
        debug_assert!(
            me.parent.is_none(),
            "locks belong to top-level transactions"
        );
        let mut map = self.stripe(rel).lock();
        let entry = map.entry(rel).or_default();
        let mine = entry.holders.get(&me.xid).map_or(0, |h| h.modes);
        if mine & mode.bit() != 0 {
            return Acquired::Granted;
        }
        let conflicts = mode.conflicts();
        // When a conflicting mode is held at all (by others, or by the requester, whose modes
        // other holders may share), look for a live holder other than the requester.
        let mut blocker = None;
        if entry.held_modes() & conflicts != 0 {
            let mut dead = Vec::new();
            for (xid, h) in &entry.holders {
                if *xid == me.xid || h.modes & conflicts == 0 {
                    continue;
                }
                if ended(&h.cell) {
                    dead.push(*xid);
                } else if blocker.is_none() {
                    blocker = Some(h.cell.clone());
                }
            }
            for x in dead {
                entry.remove_holder(x);
            }
        }
        if blocker.is_none() && mine == 0 {
            // The queue: an earlier waiter that wants a conflicting mode goes first.
            entry
                .queue
                .retain(|w| !ended(&w.cell) || Arc::ptr_eq(&w.cell, me));
            for w in &entry.queue {
                if Arc::ptr_eq(&w.cell, me) {
                    break;
                }
                if w.mode.conflicts() & mode.bit() != 0 {
                    blocker = Some(w.cell.clone());
                    break;
                }
            }
        }
        match blocker {
            Some(cell) => {
                if !entry.queue.iter().any(|w| Arc::ptr_eq(&w.cell, me)) {
                    entry.queue.push(Waiter {
                        cell: me.clone(),
                        mode,
                    });
                }
                Acquired::Wait(cell)
            }
            None => {
                entry.queue.retain(|w| !Arc::ptr_eq(&w.cell, me));
                let h = entry.holders.entry(me.xid).or_insert_with(|| Holder {
                    cell: me.clone(),
                    modes: 0,
                });
                h.modes |= mode.bit();
                entry.counts[mode as usize] += 1;
                Acquired::Granted
            }
        }
    }

    /// A refused request is given up (the wait failed: cancel, timeout, deadlock).
    pub fn abandon(&self, rel: u32, me: &TxnCell) {
        let mut map = self.stripe(rel).lock();
        if let Some(e) = map.get_mut(&rel) {
            e.queue.retain(|w| w.cell.xid != me.xid);
            if e.is_empty() {
                map.remove(&rel);
            }
        }
    }

    /// Releases every lock `me` holds on `rel` (at its transaction's end).
    pub fn release(&self, rel: u32, me: &TxnCell) {
        let mut map = self.stripe(rel).lock();
        if let Some(e) = map.get_mut(&rel) {
            e.remove_holder(me.xid);
            e.queue.retain(|w| w.cell.xid != me.xid);
            if e.is_empty() {
                map.remove(&rel);
            }
        }
    }

    /// Every lock held or awaited, for pg_locks.
    pub fn rows(&self) -> Vec<LockRow> {
        let mut out = Vec::new();
        for s in self.stripes.iter() {
            let map = s.lock();
            for (rel, e) in map.iter() {
                for (xid, h) in &e.holders {
                    if ended(&h.cell) {
                        continue;
                    }
                    for m in LockMode::ALL {
                        if h.modes & m.bit() != 0 {
                            out.push(LockRow {
                                relation: *rel,
                                pid: h.cell.pid(),
                                xid: *xid,
                                mode: m,
                                granted: true,
                                cell: h.cell.clone(),
                            });
                        }
                    }
                }
                for w in &e.queue {
                    out.push(LockRow {
                        relation: *rel,
                        pid: w.cell.pid(),
                        xid: w.cell.xid(),
                        mode: w.mode,
                        granted: false,
                        cell: w.cell.clone(),
                    });
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::txn::TxnManager;

    #[test]
    fn weak_modes_share_and_strong_ones_wait() {
        let m = TxnManager::new(8);
        let locks = LockTable::default();
        let (a, b, c) = (m.begin(1), m.begin(2), m.begin(3));
        assert!(matches!(
            locks.acquire(7, LockMode::AccessShare, &a),
            Acquired::Granted
        ));
        assert!(matches!(
            locks.acquire(7, LockMode::RowExclusive, &b),
            Acquired::Granted
        ));
        // DROP waits for a reader and a writer.
        match locks.acquire(7, LockMode::AccessExclusive, &c) {
            Acquired::Wait(w) => assert!(w.xid() == a.xid() || w.xid() == b.xid()),
            other => panic!("{other:?}"),
        }
        // A new reader queues behind the waiting ACCESS EXCLUSIVE ...
        let d = m.begin(4);
        match locks.acquire(7, LockMode::AccessShare, &d) {
            Acquired::Wait(w) => assert_eq!(w.xid(), c.xid()),
            other => panic!("{other:?}"),
        }
        // ... but a holder asking again is granted at once.
        assert!(matches!(
            locks.acquire(7, LockMode::AccessShare, &a),
            Acquired::Granted
        ));
        m.abort(&a, &[]);
        locks.release(7, &a);
        assert!(matches!(
            locks.acquire(7, LockMode::AccessExclusive, &c),
            Acquired::Wait(_)
        ));
        // A holder that ended but has not released yet no longer blocks anyone.
        m.commit(&b);
        assert!(matches!(
            locks.acquire(7, LockMode::AccessExclusive, &c),
            Acquired::Granted
        ));
        assert_eq!(locks.rows().iter().filter(|r| r.granted).count(), 1);
        m.commit(&c);
        locks.release(7, &c);
        locks.release(7, &b);
        assert!(matches!(
            locks.acquire(7, LockMode::AccessShare, &d),
            Acquired::Granted
        ));
        locks.release(7, &d);
        assert!(
            locks.stripe(7).lock().is_empty(),
            "entries go when nobody holds or waits"
        );
    }

    #[test]
    fn own_weaker_lock_does_not_block_an_upgrade() {
        let m = TxnManager::new(8);
        let locks = LockTable::default();
        let a = m.begin(1);
        assert!(matches!(
            locks.acquire(3, LockMode::RowExclusive, &a),
            Acquired::Granted
        ));
        assert!(matches!(
            locks.acquire(3, LockMode::AccessExclusive, &a),
            Acquired::Granted
        ));
        let b = m.begin(2);
        assert!(matches!(
            locks.acquire(3, LockMode::AccessShare, &b),
            Acquired::Wait(_)
        ));
        locks.abandon(3, &b);
        m.abort(&a, &[]);
        locks.release(3, &a);
        assert!(matches!(
            locks.acquire(3, LockMode::AccessShare, &b),
            Acquired::Granted
        ));
    }

    #[test]
    fn conflict_table_is_symmetric() {
        for a in LockMode::ALL {
            for b in LockMode::ALL {
                assert_eq!(
                    a.conflicts() & b.bit() != 0,
                    b.conflicts() & a.bit() != 0,
                    "{a:?} / {b:?}"
                );
            }
        }
    }
}
