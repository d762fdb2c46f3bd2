//! Recovery's first pass over the log, run beside the second: the scan.
//!
//! Replay applies a record only when its transaction committed, which the log says later (at
//! the commit record). The scan reads ahead on its own thread — checking every record's CRC,
//! finding the end of the log — and hands what it learned to the applying pass in batches:
//! the sub-transactions' parents, the aborted (sub)transactions and the top-level commits with
//! whether replay applies them (their CSN is at or above the image's snapshot). The applying
//! pass reads only what the scan has passed (so it never meets a torn tail, and skips CRCs the
//! scan checked) and, for a record whose transaction's fate is not known yet, waits for more
//! batches; a transaction still without a fate when the scan has ended never committed.
//!
//! So the two reads of the log overlap instead of following each other. A transaction open for
//! a long stretch of log makes the applying pass wait at its first record until the scan
//! reaches its end: correctness never depends on how far ahead the scan is.
//!
//! # Invariants
//!
//! 1. A batch whose `upto` is P carries what every record that ends at or before P says, and
//!    every such record was read and checked; batches arrive in log order.
//! 2. The fate of a transaction is final once known: a commit or abort record is the last of
//!    its transaction's records (a sub-transaction's parent is logged before its commit).
//!
//! # Bounds
//!
//! At most [`SCAN_AHEAD`] batches wait in the channel (the scan blocks beyond them); a batch
//! covers at most [`BATCH_LOG_BYTES`] of log or [`BATCH_FACTS`] facts. The maps hold one entry
//! per transaction since the redo point, as the two passes held before.

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::path::Path;
use std::sync::mpsc::{Receiver, SyncSender};

use crate::txn::log::{self as xlog, CommitRecord};
use crate::txn::Xid;
use crate::wal::{Lsn, WalReader};

/// Batches the scan may be ahead by.
pub const SCAN_AHEAD: usize = 64;
/// Log covered by one batch at most.
pub const BATCH_LOG_BYTES: u64 = 1 << 20;
/// Facts (parents, aborts, commits) in one batch at most.
pub const BATCH_FACTS: usize = 16 * 1024;

/// What the scan learned from the records before `upto`.
#[derive(Default)]
pub struct Batch {
    pub upto: u64,
    parents: Vec<(Xid, Xid)>,
    aborted: Vec<Xid>,
    /// Top-level commits, and whether replay applies each.
    commits: Vec<(Xid, bool)>,
    /// On the last batch: where the log ends.
    pub end: Option<ScanEnd>,
}

/// The scan's totals, sent with its last batch.
#[derive(Debug, Clone, Copy, Default)]
pub struct ScanEnd {
    pub end: u64,
    pub max_xid: Xid,
    pub max_csn: u64,
}

type Message = Result<Batch, String>;

/// Scans the log in `wal_dir` from `from` to its end, sending batches to `tx`; a damaged
/// record in the middle of the log is sent as the error. Returns when the log ends, on an
/// error, or when the receiver is gone.
pub fn scan(wal_dir: &Path, seg: u64, from: Lsn, image_csn: u64, tx: SyncSender<Message>) {
    let err = |e: crate::error::PgError| e.message.clone();
    let mut reader = match WalReader::open(wal_dir, seg, from) {
        Ok(r) => r,
        Err(e) => {
            let _ = tx.send(Err(err(e)));
            return;
        }
    };
    let mut batch = Batch::default();
    let mut started = from.0;
    let mut total = ScanEnd::default();
    loop {
        let r = match reader.next_ref() {
            Ok(Some(r)) => r,
            Ok(None) => break,
            Err(e) => {
                let _ = tx.send(Err(err(e)));
                return;
            }
        };
        total.max_xid = total.max_xid.max(r.xid);
        if r.kind == xlog::KIND {
            match r.info {
                xlog::info::ASSIGN => {
                    let Some(p) = r
                        .payload
                        .get(..8)
                        .and_then(|b| b.try_into().ok())
                        .map(u64::from_le_bytes)
                    else {
                        let _ = tx.send(Err(format!("malformed assignment at {}", Lsn(r.lsn))));
                        return;
                    };
                    batch.parents.push((r.xid, p));
                }
                xlog::info::ABORT => batch.aborted.push(r.xid),
                xlog::info::COMMIT if r.xid != 0 => {
                    let Some(c) = CommitRecord::decode(r.payload) else {
                        let _ = tx.send(Err(format!("malformed commit record at {}", Lsn(r.lsn))));
                        return;
                    };
                    total.max_csn = total.max_csn.max(c.csn);
                    batch.commits.push((r.xid, c.csn >= image_csn));
                }
                _ => {}
            }
        }
        let at = r.end;
        let facts = batch.parents.len() + batch.aborted.len() + batch.commits.len();
        if at - started >= BATCH_LOG_BYTES || facts >= BATCH_FACTS {
            batch.upto = at;
            started = at;
            if tx.send(Ok(std::mem::take(&mut batch))).is_err() {
                return;
            }
        }
    }
    total.end = reader.position().0;
    batch.upto = total.end;
    batch.end = Some(total);
    let _ = tx.send(Ok(batch));
}

/// What the applying pass knows of transactions' fates: the batches received so far.
pub struct Fates {
    rx: Receiver<Message>,
    parents: HashMap<Xid, Xid>,
    applied: HashSet<Xid>,
    /// Committed, but in the image already (below its snapshot).
    not_applied: HashSet<Xid>,
    aborted: HashSet<Xid>,
    /// Every record ending at or before this position was scanned (invariant 1).
    pub upto: u64,
    pub end: Option<ScanEnd>,
}

impl Fates {
    pub fn new(rx: Receiver<Message>, from: Lsn) -> Fates {
        Fates {
            rx,
            parents: HashMap::default(),
            applied: HashSet::default(),
            not_applied: HashSet::default(),
            aborted: HashSet::default(),
            upto: from.0,
            end: None,
        }
    }

    /// Waits for the next batch and takes it in; false when the scan has ended already.
    pub fn receive(&mut self) -> Result<bool, String> {
        if self.end.is_some() {
            return Ok(false);
        }
        let b = self
            .rx
            .recv()
            .map_err(|_| "the log scan ended without its last batch".to_string())??;
        self.parents.extend(b.parents);
        self.aborted.extend(b.aborted);
        for (xid, applies) in b.commits {
            if applies {
                self.applied.insert(xid);
            } else {
                self.not_applied.insert(xid);
            }
        }
        self.upto = b.upto;
        self.end = b.end;
        Ok(true)
    }

    /// Whether the records of `xid` are applied: its top-level transaction is, and neither it
    /// nor a sub-transaction between them aborted (ROLLBACK TO, an error, or a sub-commit into
    /// a sub-transaction that then aborted). None while the scan has not reached its fate.
    fn known(&self, xid: Xid) -> Option<bool> {
        let mut x = xid;
        // The chain is at most the nesting depth of savepoints; a damaged map cannot loop.
        for _ in 0..self.parents.len() + 1 {
            if self.aborted.contains(&x) {
                return Some(false);
            }
            match self.parents.get(&x) {
                Some(&p) => x = p,
                None if self.applied.contains(&x) => return Some(true),
                None if self.not_applied.contains(&x) => return Some(false),
                None => return None,
            }
        }
        Some(false)
    }

    /// [`Fates::known`], waiting for the scan as long as it is not; a transaction the whole
    /// log gives no fate never committed.
    pub fn applies(&mut self, xid: Xid) -> Result<bool, String> {
        loop {
            if let Some(f) = self.known(xid) {
                return Ok(f);
            }
            if !self.receive()? {
                return Ok(false);
            }
        }
    }

    /// Whether the top-level commit of `xid` (already scanned) is applied.
    pub fn commit_applies(&self, xid: Xid) -> bool {
        self.applied.contains(&xid)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn batch(
        upto: u64,
        parents: &[(Xid, Xid)],
        aborted: &[Xid],
        commits: &[(Xid, bool)],
    ) -> Message {
        Ok(Batch {
            upto,
            parents: parents.to_vec(),
            aborted: aborted.to_vec(),
            commits: commits.to_vec(),
            end: None,
        })
    }

    #[test]
    fn fates_wait_for_the_batch_that_decides_them() {
        let (tx, rx) = std::sync::mpsc::sync_channel(SCAN_AHEAD);
        let mut f = Fates::new(rx, Lsn(0));
        // 11 is a sub-transaction of 10; 12 of 11 rolled back; 20 is in the image already;
        // 30 never ends.
        tx.send(batch(100, &[(11, 10), (12, 11)], &[12], &[(20, false)]))
            .unwrap();
        tx.send(batch(200, &[], &[], &[])).unwrap();
        tx.send(batch(300, &[], &[], &[(10, true)])).unwrap();
        tx.send(Ok(Batch {
            upto: 400,
            end: Some(ScanEnd {
                end: 400,
                max_xid: 30,
                max_csn: 9,
            }),
            ..Batch::default()
        }))
        .unwrap();
        assert!(f.receive().unwrap());
        assert_eq!(f.upto, 100);
        assert!(
            !f.applies(12).unwrap(),
            "an aborted level is decided at once"
        );
        assert_eq!(f.upto, 100);
        assert!(!f.applies(20).unwrap());
        // 11's top-level commit is two batches on: the call takes them in.
        assert!(f.applies(11).unwrap());
        assert_eq!(f.upto, 300);
        assert!(f.commit_applies(10) && !f.commit_applies(20));
        // 30 has no fate in the whole log: it never committed.
        assert!(!f.applies(30).unwrap());
        assert_eq!(f.end.map(|e| e.end), Some(400));
        assert!(!f.receive().unwrap());
    }

    #[test]
    fn a_scan_error_reaches_the_applying_pass() {
        let (tx, rx) = std::sync::mpsc::sync_channel(SCAN_AHEAD);
        let mut f = Fates::new(rx, Lsn(0));
        tx.send(Err("damaged".into())).unwrap();
        assert_eq!(f.applies(5).unwrap_err(), "damaged");
        drop(tx);
        let (tx, rx) = std::sync::mpsc::sync_channel::<Message>(1);
        drop(tx);
        assert!(Fates::new(rx, Lsn(0)).receive().is_err());
    }
}
