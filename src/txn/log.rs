//! Transactions in the write-ahead log: which (sub)transaction a record belongs to, and the
//! records that end them.
//!
//! A cell made by [`super::TxnManager::begin_logged`] carries a [`TxnLog`]: the log, and the
//! session's [`super::SnapshotSlot`] where the transaction publishes the insert position it read
//! before its first record (`first_lsn`, the checkpointer's redo point, `durable` claim R1).
//! Every record a cell writes ([`super::TxnCell::log`]) carries the cell's own xid in its
//! header. A sub-transaction announces itself with an [`info::ASSIGN`] record naming its parent
//! before its first record of its own (its parent first, if that one has not), so replay
//! rebuilds the same tree of cells and resolves each record as the server did: RELEASE
//! ([`info::SUBCOMMIT`]), ROLLBACK TO and errors ([`info::ABORT`] of the sub's xid), the
//! top-level [`info::COMMIT`] or [`info::ABORT`]. A cell that wrote no record writes no end.
//!
//! # Invariants
//!
//! 1. A transaction's `first_lsn` is stored (SeqCst) before its first reservation and cleared
//!    only after its commit is published or its abort recorded: a checkpointer that reads the
//!    insert position, then the slots, finds every unfinished transaction's records at or after
//!    the smaller of the two.
//! 2. A commit record is appended only for a transaction that logged something, after every
//!    record of it (they were appended by the same session, earlier), and its CSN is the one the
//!    transaction publishes: the record is what replay compares with an image's snapshot.
//! 3. Commit records lie in the log in CSN order: the CSN is taken together with the record's
//!    reservation, under `TxnManager::commit_order` (two `fetch_add`s; the copy runs outside
//!    it). So a flush that covers a commit covers every commit with a smaller CSN, and a
//!    committer waiting for the watermark to pass its CSN waits only for earlier committers to
//!    be scheduled, never for another flush.
//!
//! # Bounds
//!
//! A record is built and appended at once: a transaction buffers nothing, however much it
//! writes (a COPY of millions of rows streams into the log as it goes).

use super::{Csn, SnapshotSlot, TxnCell};
use crate::error::PgResult;
use crate::sync::{AtomicBool, Ordering};
use crate::wal::{Appended, Lsn, WalBuffer};

/// The resource manager of transaction records (`wal::kind::FIRST_USER` and up belong to the
/// layers above the log).
pub const KIND: u8 = crate::wal::record::kind::FIRST_USER;

/// The `info` byte of transaction records.
pub mod info {
    /// A top-level commit: payload [`super::CommitRecord`].
    pub const COMMIT: u8 = 1;
    /// The (sub)transaction in the header aborted: its records and its sub-committed
    /// children's are void.
    pub const ABORT: u8 = 2;
    /// RELEASE SAVEPOINT: the sub-transaction's records now go with its parent.
    pub const SUBCOMMIT: u8 = 3;
    /// A sub-transaction's first record: payload the parent's xid (8 bytes, little-endian).
    pub const ASSIGN: u8 = 4;
}

/// What a commit record holds: `[csn u64][catalog bytes]`, the CSN at a fixed size so that
/// the record's length is known before the CSN is taken (invariant 3).
#[derive(Debug)]
pub struct CommitRecord {
    pub csn: Csn,
    /// What the transaction changed in the catalog, when it changed the schema (`durable`'s
    /// catalog record).
    pub catalog: Option<Vec<u8>>,
}

impl CommitRecord {
    pub fn encode(&self) -> Vec<u8> {
        let mut p = Vec::with_capacity(8 + self.catalog.as_ref().map_or(0, Vec::len));
        p.extend_from_slice(&self.csn.to_le_bytes());
        if let Some(c) = &self.catalog {
            p.extend_from_slice(c);
        }
        p
    }

    pub fn decode(p: &[u8]) -> Option<CommitRecord> {
        let csn = u64::from_le_bytes(p.get(..8)?.try_into().ok()?);
        let catalog = (p.len() > 8).then(|| p[8..].to_vec());
        Some(CommitRecord { csn, catalog })
    }
}

/// A logging transaction's link to the log (shared by its sub-transactions' cells).
pub struct TxnLog {
    pub(super) wal: std::sync::Arc<WalBuffer>,
    pub(super) slot: crate::sync::Arc<SnapshotSlot>,
    /// Some cell of the transaction wrote a record: its commit must be logged and awaited.
    pub(super) logged: AtomicBool,
}

/// No position published (`SnapshotSlot::first_lsn`).
pub(super) const NO_LSN: u64 = u64::MAX;

impl TxnCell {
    /// Appends a record of this (sub)transaction: resource manager `kind`, its `info`, the
    /// payload. A cell without a log (an instance in memory, replay) writes nothing.
    /// Returns the record's position (`Lsn::INVALID` when nothing was written).
    pub fn log(&self, kind: u8, info: u8, payload: &[u8]) -> PgResult<Lsn> {
        let Some(log) = &self.log else {
            return Ok(Lsn::INVALID);
        };
        self.announce(log)?;
        log.wal
            .insert_blocking(kind, info, self.xid, payload)
            .map(|a| a.lsn)
    }

    /// Whether this transaction has records in the log (its commit must be logged).
    pub fn logged(&self) -> bool {
        self.log
            .as_ref()
            .is_some_and(|l| l.logged.load(Ordering::SeqCst))
    }

    /// Before the first record of this cell: the transaction's first position is published
    /// (invariant 1), a sub-transaction is assigned to its parent.
    fn announce(&self, log: &TxnLog) -> PgResult<()> {
        if self.announced.load(Ordering::Relaxed) {
            return Ok(());
        }
        if !log.logged.load(Ordering::SeqCst) {
            if log.slot.first_lsn.load(Ordering::SeqCst) == NO_LSN {
                log.slot
                    .first_lsn
                    .store(log.wal.insert_lsn().0, Ordering::SeqCst);
            }
            log.logged.store(true, Ordering::SeqCst);
        }
        if let Some(p) = &self.parent {
            p.announce(log)?;
            log.wal
                .insert_blocking(KIND, info::ASSIGN, self.xid, &p.xid.to_le_bytes())?;
        }
        self.announced.store(true, Ordering::Relaxed);
        Ok(())
    }

    /// The end record of this cell (abort or sub-commit), when it wrote anything.
    pub(super) fn log_end(&self, info: u8) {
        if !self.announced.load(Ordering::Relaxed) {
            return;
        }
        if let Some(log) = &self.log {
            // An abort that cannot be logged is still an abort: replay ends every transaction
            // without a commit record as aborted.
            let _ = log.wal.insert_blocking(KIND, info, self.xid, &[]);
        }
    }

    /// Appends the commit record of this top-level transaction (with what it changed in the
    /// catalog, if it did), its CSN taken from `next_csn` together with the record's
    /// reservation under `order` (invariant 3); returns the CSN and where the record lies.
    pub(super) fn log_commit(
        &self,
        order: &crate::sync::Mutex<()>,
        next_csn: &crate::sync::AtomicU64,
        catalog: Option<Vec<u8>>,
    ) -> PgResult<(Csn, Appended)> {
        let log = self.log.as_ref().expect("a logging transaction");
        self.announce(log)?;
        let mut payload = CommitRecord { csn: 0, catalog }.encode();
        let (csn, reservation) = {
            let _in_order = order.lock();
            let r = log.wal.reserve(payload.len())?;
            let csn = next_csn.fetch_add(1, Ordering::SeqCst);
            // Under the lock, so that every smaller CSN reads as committing or committed once
            // this one does (`txn` invariant 8). Nothing can abort the transaction from here.
            self.state.store(super::COMMITTING | csn, Ordering::SeqCst);
            (csn, r)
        };
        payload[..8].copy_from_slice(&csn.to_le_bytes());
        // The copy fails only on a log that has failed for good (an I/O error of its writer):
        // the commit may already be followed (invariant 8 of `txn`), so it cannot turn into an
        // abort here; recovery decides from the log, as after any failed flush.
        match reservation.write_blocking(KIND, info::COMMIT, self.xid, &payload) {
            Ok(appended) => Ok((csn, appended)),
            Err(e) => crate::wal::panic_on_flush_failure(&e),
        }
    }

    /// Whether this cell's writes are logged.
    pub fn has_log(&self) -> bool {
        self.log.is_some()
    }

    /// The log this cell writes to, if any.
    pub fn wal(&self) -> Option<&std::sync::Arc<WalBuffer>> {
        self.log.as_ref().map(|l| &l.wal)
    }

    /// After the transaction's end is published or recorded: it holds back no redo point.
    pub(super) fn clear_first_lsn(&self) {
        if let Some(log) = &self.log {
            if log.logged.load(Ordering::SeqCst) {
                log.slot.first_lsn.store(NO_LSN, Ordering::SeqCst);
            }
        }
    }
}
