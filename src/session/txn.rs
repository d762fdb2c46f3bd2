//! Transaction state: whether a transaction is open and of which kind ([`TxState`]), what an
//! open one has queued until it ends ([`Txn`]: NOTIFYs, LISTEN/UNLISTEN actions, savepoints,
//! SET LOCAL values to restore), and the operations on it: open ([`Core::ensure_transaction`]),
//! savepoints, commit ([`Core::commit`]) and abort ([`Core::abort`]).
//!
//! The statements that drive these (BEGIN, COMMIT, SAVEPOINT, LISTEN, ...) are in `utility.rs`,
//! the implicit transactions of simple Query and of the extended protocol up to Sync in
//! `protocol.rs`. Everything that happens when a transaction ends happens in `commit` and
//! `abort`, in the order `commit` documents: that is where storage hooks in.

use std::sync::Arc;

use super::conn::YIELD_MAX_NOTES;
use super::settings::Settings;
use super::Core;
use crate::error::{code, PgError, PgResult};
use crate::notify::{self, Listener, Outbox};
use crate::sql::context::SessionCtx;
use crate::sql::{self, Statement, TxOptions};
use crate::txn::lock::{Acquired, LockMode};
use crate::txn::{ssi, Cid, Csn, Snapshot, TxnCell};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum TxState {
    /// No transaction.
    Idle,
    /// An implicit transaction: the statements of one simple Query, or of the extended messages
    /// up to Sync.
    Implicit,
    /// Inside BEGIN ... COMMIT.
    Block,
    /// Inside a block after an error: everything but ROLLBACK/COMMIT fails.
    Failed,
}

#[derive(Clone, Debug)]
pub(super) enum ListenAction {
    Listen(Arc<str>),
    Unlisten(Arc<str>),
    UnlistenAll,
}

struct SavepointState {
    name: String,
    /// This level's storage sub-transaction, made at its first write.
    cell: Option<Arc<TxnCell>>,
    notifies: usize,
    listens: usize,
    settings: Settings,
    /// The deferred constraint events kept, and SET CONSTRAINTS, when it was set.
    deferred: usize,
    timing: super::deferred::Timing,
}

/// Transaction-private state; created at BEGIN (or at the first statement of an implicit
/// transaction) and consumed at its end.
pub(super) struct Txn {
    pub(super) start: i64,
    /// NOTIFYs queued so far, already resolved against the listener registry.
    pub(super) outbox: Outbox,
    pub(super) listens: Vec<ListenAction>,
    savepoints: Vec<SavepointState>,
    settings_at_start: Settings,
    /// Settings changed by SET LOCAL, with the session-level value to restore at commit.
    pub(super) local_restore: Vec<(String, String)>,
    pub(super) read_only: bool,
    /// DEFERRABLE: a SERIALIZABLE READ ONLY transaction waits for a safe snapshot.
    pub(super) deferrable: bool,
    pub(super) isolation: sql::Isolation,
    /// A query ran in this transaction: its isolation level can no longer change.
    pub(super) snapshot_taken: bool,
    /// Assigned by the first txid_current() of the transaction.
    pub(super) xid: Option<u64>,
    /// Storage: the transaction's cell, given at its first write.
    pub(super) cell: Option<Arc<TxnCell>>,
    /// The command being run (its writes are invisible to itself; the next command's are not).
    pub(super) cid: Cid,
    /// A write was stamped with `cid`: the next command takes the next id. A command that
    /// wrote nothing leaves it to the next one, as PostgreSQL's command counter does, so the
    /// ids cmin and cmax show are PostgreSQL's (visibility is the same either way: no version
    /// carries an id that was not used).
    pub(super) cid_used: bool,
    /// The snapshot's commit sequence number: the statement's (READ COMMITTED, cleared at each
    /// command) or the transaction's (REPEATABLE READ).
    pub(super) snapshot: Option<Csn>,
    /// Deferred constraint checks, run at commit (`deferred.rs`).
    pub(super) deferred: super::deferred::Deferred,
    /// The transaction changed the schema: plans made before it ends are stale.
    pub(super) ddl: bool,
    /// A snapshot was published in the session's slot (cleared when the transaction ends).
    pub(super) published: bool,
    /// The relation locks held (released when the transaction ends; the cell is their owner).
    pub(super) locks: Vec<(u32, LockMode)>,
    /// The transaction wrote (its cell was given for a write): it commits with a CSN. A cell
    /// made only to own relation locks ends without one.
    pub(super) wrote: bool,
    /// A cursor or portal that reads as it is fetched was opened: the snapshot published for
    /// vacuum stays the oldest one taken (the cursor's), until the transaction ends.
    pub(super) pinned: bool,
    /// SERIALIZABLE: the transaction's SSI state (`txn::ssi`), made with its snapshot.
    pub(super) ssi: Option<Arc<ssi::Xact>>,
}

/// How often a SERIALIZABLE READ ONLY DEFERRABLE transaction looks again whether the
/// transactions its snapshot waits for have ended (`Core::safe_snapshot`).
const SAFE_SNAPSHOT_POLL: std::time::Duration = std::time::Duration::from_millis(5);

impl Txn {
    /// Whether a savepoint or sub-transaction level is open.
    pub(super) fn in_savepoint(&self) -> bool {
        !self.savepoints.is_empty()
    }

    /// Keeps `csn` as the command's (or the transaction's) snapshot and returns it. A
    /// transaction that followed a commit not yet durable sees it (`txn` invariant 8): every
    /// CSN up to that one reads as committing or committed.
    fn settle_snapshot(&mut self, csn: Csn) -> Csn {
        let follows = self.cell.as_ref().map_or(0, |c| c.follows());
        let csn = csn.max(follows.saturating_add(1));
        self.snapshot = Some(csn);
        self.published = true;
        csn
    }
}

/// A commit between its start and its end (`Core::commit_deferred`): the transaction, its cell
/// and CSN, and while its record is not yet known durable, the position to await.
pub(super) struct Committing {
    txn: Box<Txn>,
    cell: Arc<TxnCell>,
    csn: Csn,
    end: Option<crate::wal::Lsn>,
    /// SERIALIZABLE: the SSI state to mark committed once the commit is visible, and the
    /// transaction's cell if it wrote.
    ssi: Option<(Arc<ssi::Xact>, Option<Arc<TxnCell>>)>,
}

/// The CSN a writing transaction's cell committed with (None: it wrote nothing).
fn committed_csn(cell: Option<&TxnCell>) -> Option<Csn> {
    match cell?.status() {
        crate::txn::Status::Committed(csn) => Some(csn),
        _ => None,
    }
}

impl Txn {
    /// The deferred events became whole-constraint checks: every event kept from now on is
    /// newer than each savepoint.
    pub(super) fn forget_deferred_marks(&mut self) {
        for sp in &mut self.savepoints {
            sp.deferred = 0;
        }
    }

    /// The innermost savepoint named `name` (3B001 if there is none).
    fn savepoint_index(&self, name: &str) -> PgResult<usize> {
        self.savepoints
            .iter()
            .rposition(|s| s.name == name)
            .ok_or_else(|| {
                PgError::new(
                    code::INVALID_SAVEPOINT_SPECIFICATION,
                    format!("savepoint \"{name}\" does not exist"),
                )
            })
    }
}

impl Core {
    fn require_block(&self, what: &str) -> PgResult<()> {
        match self.tx {
            TxState::Block => Ok(()),
            TxState::Failed => Err(PgError::in_failed_transaction()),
            _ => Err(PgError::new(
                code::NO_ACTIVE_SQL_TRANSACTION,
                format!("{what} can only be used in transaction blocks"),
            )),
        }
    }

    pub(super) fn check_failed(&self, stmt: &Statement) -> PgResult<()> {
        if self.tx == TxState::Failed
            && !matches!(
                stmt,
                Statement::Commit { .. }
                    | Statement::Rollback { .. }
                    | Statement::RollbackTo(_)
                    | Statement::PrepareTransaction
            )
        {
            return Err(PgError::in_failed_transaction());
        }
        Ok(())
    }

    /// Starts an implicit transaction if none is open.
    pub(super) fn ensure_transaction(&mut self, _stmt: &Statement) {
        if self.tx == TxState::Idle {
            self.tx = TxState::Implicit;
        }
        if self.txn.is_none() {
            let isolation = self
                .session_tx
                .isolation
                .unwrap_or(self.settings.default_isolation);
            let txn = Txn {
                start: self.statement_start,
                outbox: Outbox::new(self.db_oid),
                listens: Vec::new(),
                savepoints: Vec::new(),
                settings_at_start: self.settings.clone(),
                local_restore: Vec::new(),
                read_only: self.settings.default_read_only,
                deferrable: self.settings.default_deferrable,
                isolation,
                snapshot_taken: false,
                xid: None,
                cell: None,
                cid: 0,
                cid_used: false,
                snapshot: None,
                deferred: Default::default(),
                ddl: false,
                published: false,
                locks: Vec::new(),
                wrote: false,
                pinned: false,
                ssi: None,
            };
            self.txn = Some(match self.spare_txn.take() {
                Some(mut spare) => {
                    // Keeps the box and the capacity of `listens`: an autocommitted statement
                    // then allocates nothing for its transaction.
                    let listens = std::mem::take(&mut spare.listens);
                    let locks = std::mem::take(&mut spare.locks);
                    *spare = Txn {
                        listens,
                        locks,
                        ..txn
                    };
                    debug_assert!(spare.listens.is_empty() && spare.locks.is_empty());
                    spare
                }
                None => Box::new(txn),
            });
        }
    }

    /// Keeps a finished transaction's allocation for the next one.
    fn recycle_txn(&mut self, mut txn: Box<Txn>) {
        txn.listens.clear();
        self.spare_txn = Some(txn);
    }

    pub(super) fn txn_mut(&mut self) -> &mut Txn {
        self.ensure_transaction(&Statement::NoOp(""));
        self.txn.as_mut().expect("transaction")
    }

    pub(super) fn txn_has_listens(&self) -> bool {
        self.txn.as_ref().is_some_and(|t| !t.listens.is_empty())
    }

    pub(super) fn apply_tx_options(&mut self, opts: &TxOptions) -> PgResult<()> {
        let txn = self.txn_mut();
        if let Some(i) = opts.isolation {
            if txn.snapshot_taken && i != txn.isolation {
                return Err(PgError::new(
                    code::ACTIVE_SQL_TRANSACTION,
                    "SET TRANSACTION ISOLATION LEVEL must be called before any query",
                ));
            }
            txn.isolation = i;
        }
        if let Some(r) = opts.read_only {
            txn.read_only = r;
        }
        if let Some(d) = opts.deferrable {
            // PostgreSQL refuses the setting itself, whatever its value, once it is too late.
            let too_late = if !txn.savepoints.is_empty() {
                Some("SET TRANSACTION [NOT] DEFERRABLE cannot be called within a subtransaction")
            } else if txn.snapshot_taken {
                Some("SET TRANSACTION [NOT] DEFERRABLE must be called before any query")
            } else {
                None
            };
            if let Some(msg) = too_late {
                return Err(PgError::new(code::ACTIVE_SQL_TRANSACTION, msg));
            }
            txn.deferrable = d;
        }
        Ok(())
    }

    /// SAVEPOINT: remembers how far the transaction's NOTIFYs, LISTEN actions and settings
    /// went, for ROLLBACK TO.
    pub(super) fn savepoint(&mut self, name: &str) -> PgResult<()> {
        self.require_block("SAVEPOINT")?;
        self.push_savepoint(name.to_string());
        Ok(())
    }

    /// Opens a savepoint level named `name`; returns its index.
    fn push_savepoint(&mut self, name: String) -> usize {
        let settings = self.settings.clone();
        let txn = self.txn_mut();
        txn.savepoints.push(SavepointState {
            name,
            cell: None,
            notifies: txn.outbox.len(),
            listens: txn.listens.len(),
            settings,
            deferred: txn.deferred.events.len(),
            timing: txn.deferred.timing.clone(),
        });
        txn.savepoints.len() - 1
    }

    /// Closes savepoint level `i` and those after it: their writes now commit or abort with
    /// the enclosing level.
    fn release_from(&mut self, i: usize) {
        let txn = self.txn.as_mut().expect("transaction");
        for sp in txn.savepoints.drain(i..).rev() {
            if let Some(c) = sp.cell {
                self.instance.txns.subcommit(&c);
            }
        }
    }

    /// Undoes what savepoint level `i` and those after it did: the later levels go, every
    /// one's writes abort (level `i` stays, and its next write gets a new sub-transaction),
    /// and the transaction's NOTIFYs, LISTEN actions, deferred checks and settings return to
    /// where level `i` began.
    fn undo_to(&mut self, i: usize) {
        let txn = self.txn.as_mut().expect("transaction");
        for sp in txn.savepoints.drain(i + 1..).rev() {
            if let Some(c) = sp.cell {
                self.instance.txns.abort(&c, &[]);
            }
        }
        if let Some(c) = txn.savepoints[i].cell.take() {
            self.instance.txns.abort(&c, &[]);
        }
        txn.snapshot = None;
        let sp = &txn.savepoints[i];
        let (notifies, listens, settings) = (sp.notifies, sp.listens, sp.settings.clone());
        txn.deferred.rollback_to(sp.deferred, sp.timing.clone());
        txn.outbox.truncate(notifies);
        txn.listens.truncate(listens);
        self.settings = settings;
        self.settings_dirty = true;
    }

    /// A sub-transaction of a PL/pgSQL block with an EXCEPTION section: an unnamed savepoint,
    /// in any kind of transaction. Returns its level for [`Core::sub_end`].
    pub(super) fn sub_begin(&mut self) -> usize {
        self.push_savepoint(String::new())
    }

    /// Ends the sub-transaction at `level` and those above it: kept (their writes go with the
    /// enclosing level) or undone (as ROLLBACK TO, without leaving a failed block).
    pub(super) fn sub_end(&mut self, level: usize, commit: bool) {
        if self
            .txn
            .as_ref()
            .is_none_or(|t| level >= t.savepoints.len())
        {
            return;
        }
        if !commit {
            self.undo_to(level);
            self.txn_mut().savepoints.truncate(level);
            return;
        }
        self.release_from(level);
    }

    /// RELEASE SAVEPOINT: forgets the savepoint and those set after it.
    pub(super) fn release_savepoint(&mut self, name: &str) -> PgResult<()> {
        self.require_block("RELEASE SAVEPOINT")?;
        let i = self
            .txn
            .as_ref()
            .expect("transaction")
            .savepoint_index(name)?;
        self.release_from(i);
        Ok(())
    }

    /// ROLLBACK TO SAVEPOINT: drops what was queued after the savepoint, restores its settings
    /// and leaves a failed block.
    pub(super) fn rollback_to_savepoint(&mut self, name: &str) -> PgResult<()> {
        if !matches!(self.tx, TxState::Block | TxState::Failed) {
            return Err(PgError::new(
                code::NO_ACTIVE_SQL_TRANSACTION,
                "ROLLBACK TO SAVEPOINT can only be used in transaction blocks",
            ));
        }
        let i = self
            .txn
            .as_ref()
            .expect("transaction")
            .savepoint_index(name)?;
        self.undo_to(i);
        self.tx = TxState::Block;
        Ok(())
    }

    /// Commits the current transaction: LISTEN/UNLISTEN take effect, then notifications are
    /// published in commit order, then SET LOCAL values revert. Waits in place for the
    /// commit's flush (under `block_in_place`); the protocol's commits use
    /// [`Core::commit_deferred`] instead, whose wait the socket loop awaits.
    pub(super) fn commit(&mut self) -> PgResult<()> {
        self.commit_deferred()?;
        self.finish_commit_blocking();
        Ok(())
    }

    /// Ends a deferred commit in place, if one is pending: awaits its flush and its
    /// publication out of the shard's turn (an earlier commit the watermark waits for may be a
    /// session of this shard, awaiting its own flush).
    pub(super) fn finish_commit_blocking(&mut self) {
        let Some(c) = self.committing.as_mut() else {
            return;
        };
        let txns = &self.instance.txns;
        if c.end.is_some() {
            self.shared
                .activity
                .lock()
                .set_wait(Some(("IO", "WALSync")));
        }
        tokio::task::block_in_place(|| {
            if let Some(end) = c.end.take() {
                let wal = c.cell.wal().expect("a logging transaction");
                if let Err(e) = wal.wait_flushed_blocking(end) {
                    crate::wal::panic_on_flush_failure(&e);
                }
                txns.publish(&c.cell, c.csn);
            }
            txns.settle(&c.cell);
        });
        self.shared.activity.lock().set_wait(self.wait_shown);
        self.finish_commit();
    }

    /// Commits the current transaction as far as it goes without waiting: a durable commit
    /// appends its record and stops there (`committing` holds it, with the position to await);
    /// any other is published, and stops if the watermark has not reached it yet. The caller
    /// stops taking input; the socket loop awaits the flush, calls [`Core::publish_committing`],
    /// awaits [`Core::committing_settled`] and calls [`Core::finish_commit`] (`conn.rs`). The
    /// session's state is already the one after the commit (idle), and nothing is sent before
    /// the commit is visible.
    pub(super) fn commit_deferred(&mut self) -> PgResult<()> {
        debug_assert!(self.committing.is_none());
        // Deferred constraint checks first, as PostgreSQL fires them; one that fails aborts.
        if self.tx != TxState::Failed {
            if let Err(e) = self.fire_deferred(None) {
                self.abort();
                return Err(e);
            }
        }
        // Temporary tables' ON COMMIT actions run inside the committing transaction.
        if let Err(e) = self.on_commit_actions() {
            self.abort();
            return Err(e);
        }
        let Some(mut txn) = self.txn.take() else {
            self.tx = TxState::Idle;
            return Ok(());
        };
        if self.tx == TxState::Failed {
            self.txn = Some(txn);
            self.abort();
            return Ok(());
        }
        // The hub is reached through `self.instance` at each use rather than through a clone of
        // the `Arc`: every session of every shard shares that count of references.
        if !txn.outbox.is_empty() {
            match self.instance.notify.check_capacity(&txn.outbox) {
                Ok(Some(warning)) => self.notices.push(warning),
                Ok(None) => {}
                Err(e) => {
                    self.txn = Some(txn);
                    self.abort();
                    return Err(e);
                }
            }
        }
        // SERIALIZABLE: the last check for a dangerous structure (40001 rolls back).
        let ssi = txn
            .ssi
            .take()
            .map(|x| (x, txn.wrote.then(|| txn.cell.clone()).flatten()));
        if let Some((x, _)) = &ssi {
            if let Err(e) = x.manager().precommit(x) {
                x.manager().aborted(x);
                self.txn = Some(txn);
                self.abort();
                return Err(e);
            }
        }
        // Storage first: once the commit is visible, its notifications may be delivered.
        match self.end_storage_start(&mut txn, true) {
            Err(e) => {
                if let Some((x, _)) = &ssi {
                    x.manager().aborted(x);
                }
                // The commit record could not be appended: the transaction aborted.
                self.settings = txn.settings_at_start.clone();
                self.settings_dirty = true;
                self.recycle_txn(txn);
                self.tx = TxState::Idle;
                self.after_transaction_temp();
                Err(e)
            }
            Ok(None) => {
                if let Some((x, cell)) = &ssi {
                    x.manager().committed(x, committed_csn(cell.as_deref()));
                }
                self.after_commit(txn);
                Ok(())
            }
            Ok(Some((cell, csn, end))) => {
                self.tx = TxState::Idle;
                self.committing = Some(Committing {
                    txn,
                    cell,
                    csn,
                    end,
                    ssi,
                });
                Ok(())
            }
        }
    }

    /// The position a deferred commit waits to be durable, and its log (None: no wait).
    pub(super) fn committing_flush(&self) -> Option<(Arc<crate::wal::WalBuffer>, crate::wal::Lsn)> {
        let c = self.committing.as_ref()?;
        Some((c.cell.wal()?.clone(), c.end?))
    }

    /// After the flush of a deferred commit: publishes it.
    pub(super) fn publish_committing(&mut self) {
        if let Some(c) = self.committing.as_mut() {
            if c.end.take().is_some() {
                self.instance.txns.publish(&c.cell, c.csn);
            }
        }
    }

    /// Whether the deferred commit is visible to every snapshot taken from now on.
    pub(super) fn committing_settled(&self) -> bool {
        self.committing
            .as_ref()
            .is_none_or(|c| c.end.is_none() && self.instance.txns.settled(&c.cell))
    }

    /// Ends a deferred commit once it is published and settled: its relation locks go, then
    /// its notifications.
    pub(super) fn finish_commit(&mut self) {
        let Some(Committing {
            mut txn, cell, ssi, ..
        }) = self.committing.take()
        else {
            return;
        };
        self.instance.txns.published(&cell);
        if let Some((x, cell)) = &ssi {
            x.manager().committed(x, committed_csn(cell.as_deref()));
        }
        self.release_locks(&mut txn, &cell);
        self.end_storage_tail(&mut txn);
        self.after_commit(txn);
    }

    /// What follows a commit's storage side: LISTEN/UNLISTEN, notifications, SET LOCAL.
    fn after_commit(&mut self, mut txn: Box<Txn>) {
        self.apply_listens(&txn.listens);
        if !txn.outbox.is_empty() {
            let notes = txn.outbox.len();
            let others = self
                .instance
                .notify
                .publish(std::mem::take(&mut txn.outbox), self.shared.pid);
            self.woke_others += others;
            self.woke_with_long_delivery |= others > 0 && notes > YIELD_MAX_NOTES;
        }
        // SET LOCAL lasts until the end of the transaction.
        for (name, value) in &txn.local_restore {
            let _ = self.settings.set(name, value);
            self.settings_dirty = true;
        }
        self.recycle_txn(txn);
        self.tx = TxState::Idle;
        self.after_transaction_temp();
    }

    pub(super) fn abort(&mut self) {
        if let Some(mut txn) = self.txn.take() {
            if let Some(x) = txn.ssi.take() {
                x.manager().aborted(&x);
            }
            self.end_storage_abort(&mut txn);
            self.settings = txn.settings_at_start;
            self.settings_dirty = true;
        }
        self.tx = TxState::Idle;
        self.after_transaction_temp();
    }

    /// Ends the storage side of an aborting transaction: aborts its cells, releases its locks
    /// and its snapshot (nothing to wait for).
    fn end_storage_abort(&mut self, txn: &mut Txn) {
        let ended = self.end_storage_start(txn, false);
        debug_assert!(matches!(ended, Ok(None)), "an abort waits for nothing");
    }

    /// Ends the storage side of a transaction up to a wait: commits (open savepoint levels
    /// first) or aborts its cells, releases its snapshot, and marks plans stale after DDL.
    /// Returns the committing cell, its CSN and, for a
    /// durable commit, the position whose flush comes before its publication (None: published,
    /// but not yet visible to every snapshot). The caller then waits, publishes, settles,
    /// releases the locks and runs [`Core::end_storage_tail`]; without a wait (None returned)
    /// everything is done.
    #[allow(clippy::type_complexity)]
    fn end_storage_start(
        &mut self,
        txn: &mut Txn,
        commit: bool,
    ) -> PgResult<Option<(Arc<TxnCell>, Csn, Option<crate::wal::Lsn>)>> {
        let instance = self.instance.clone();
        let txns = &instance.txns;
        let mut result = Ok(());
        for sp in txn.savepoints.iter_mut().rev() {
            if let Some(c) = sp.cell.take() {
                if commit {
                    txns.subcommit(&c);
                } else {
                    txns.abort(&c, &[]);
                }
            }
        }
        // A transaction that changed the schema logs the catalog it leaves with its commit,
        // one such commit at a time (`durable::Durable::catalog_commit`).
        let schema = commit && txn.ddl && txns.wal().is_some();
        let cell = txn.cell.take();
        if schema {
            let top = cell.as_ref().map_or(0, |c| c.top());
            let cid = txn.cid.saturating_add(1);
            // A statement without a transaction (CREATE DATABASE) commits a cell of its own.
            let cell = cell.unwrap_or_else(|| txns.begin(0));
            let durable = instance.durable.get().expect("a log has a data directory");
            result = tokio::task::block_in_place(|| {
                durable.catalog_commit(&instance.catalog, txns, &cell, top, cid, || {
                    instance.durable_counters()
                })
            })
            .map(|_| ());
            // Committed, or aborted by a failed append: either way it has ended.
            self.release_locks(txn, &cell);
        } else if let Some(cell) = cell {
            if commit && txn.wrote {
                // synchronous_commit = off: published once appended; the WAL writer flushes
                // within wal_writer_delay (a later durable commit's flush covers it too).
                let durable = self.settings.get_str("synchronous_commit") != Some("off");
                match txns.commit_append(&cell, None) {
                    Err(e) => {
                        // Aborted: nothing of it is in the log.
                        result = Err(e);
                        self.release_locks(txn, &cell);
                    }
                    Ok(Some((csn, end))) if durable => return Ok(Some((cell, csn, Some(end)))),
                    Ok(appended) => {
                        let csn = appended.map_or_else(|| txns.take_csn(&cell), |(csn, _)| csn);
                        txns.publish(&cell, csn);
                        if !txns.settled(&cell) {
                            return Ok(Some((cell, csn, None)));
                        }
                        txns.published(&cell);
                        // After the end, so that a waiter woken by it finds the commit visible.
                        self.release_locks(txn, &cell);
                    }
                }
            } else {
                // Aborted, or wrote nothing (the cell only owned relation locks): no CSN.
                txns.stop_waiting(&cell);
                txns.abort(&cell, &[]);
                self.release_locks(txn, &cell);
            }
        }
        self.end_storage_tail(txn);
        result.map(|()| None)
    }

    /// The end of a transaction's storage side, after its cell ended and its locks went.
    fn end_storage_tail(&mut self, txn: &mut Txn) {
        // Transaction-level advisory locks go with it, after its end as the relation locks.
        self.advisory_release_level(true);
        txn.wrote = false;
        // READ COMMITTED drops its snapshot at each command, so whether one was published is
        // remembered apart: an idle session must not hold the vacuum horizon back.
        txn.snapshot = None;
        if std::mem::take(&mut txn.published) {
            self.snap_slot.clear();
        }
        txn.cid = 0;
        txn.cid_used = false;
        if std::mem::take(&mut txn.ddl) {
            self.instance.catalog.bump();
        }
    }

    /// An error in a transaction block: as in PostgreSQL, the failed (sub)transaction's rows and
    /// row locks are released now, not at the ROLLBACK that ends the block. Inside a savepoint
    /// only the innermost level is rolled back (ROLLBACK TO resumes the block); outside any, the
    /// whole transaction is.
    pub(super) fn release_at_error(&mut self) {
        let Some(txn) = self.txn.as_mut() else {
            return;
        };
        let txns = &self.instance.txns;
        match txn.savepoints.last_mut() {
            Some(sp) => {
                if let Some(c) = sp.cell.take() {
                    txns.abort(&c, &[]);
                }
            }
            None => {
                if let Some(cell) = txn.cell.take() {
                    txns.stop_waiting(&cell);
                    txns.abort(&cell, &[]);
                    let instance = self.instance.clone();
                    for (rel, _) in txn.locks.drain(..) {
                        instance.locks.release(rel, &cell);
                    }
                }
                if std::mem::take(&mut txn.published) {
                    self.snap_slot.clear();
                }
                // SERIALIZABLE: PostgreSQL releases the predicate locks of an aborted
                // transaction at the error, not at the ROLLBACK that ends the block.
                if let Some(x) = txn.ssi.take() {
                    x.manager().aborted(&x);
                }
                self.advisory_release_level(true);
            }
        }
    }

    /// Starts the next command of the transaction: its own earlier writes become visible, and
    /// READ COMMITTED takes a new snapshot.
    pub(super) fn next_command(&mut self) {
        let txn = self.txn_mut();
        if std::mem::take(&mut txn.cid_used) {
            txn.cid += 1;
        }
        if txn.isolation < sql::Isolation::RepeatableRead {
            txn.snapshot = None;
        }
    }

    /// The snapshot of the running command, taken at its first use (published for vacuum).
    /// Fails only while a SERIALIZABLE READ ONLY DEFERRABLE transaction waits for a safe
    /// snapshot (cancel, statement_timeout).
    pub(super) fn statement_snapshot(&mut self) -> PgResult<Snapshot> {
        if let Some(s) = self.portal_snap {
            // An open cursor is being read: its own snapshot.
            return Ok(s);
        }
        if self.txn.as_ref().is_some_and(|t| {
            t.snapshot.is_none()
                && t.isolation == sql::Isolation::Serializable
                && t.read_only
                && t.deferrable
                && t.ssi.is_none()
        }) {
            return self.safe_snapshot();
        }
        let instance = self.instance.clone();
        let slot = self.snap_slot.clone();
        let txn = self.txn_mut();
        let top = txn.cell.as_ref().map_or(0, |c| c.top());
        let csn = match txn.snapshot {
            Some(c) => c,
            None => {
                let (pinned, cid) = (txn.pinned, txn.cid);
                let take = || {
                    if pinned {
                        instance.txns.snapshot_keeping(&slot, top, cid)
                    } else {
                        instance.txns.snapshot(&slot, top, cid)
                    }
                };
                let s = if txn.isolation == sql::Isolation::Serializable && txn.ssi.is_none() {
                    // Registered before the snapshot is taken (`txn::ssi` invariant 5).
                    let mut taken = None;
                    let x = instance.txns.ssi.begin(txn.read_only, || {
                        let s = take();
                        taken = Some(s);
                        s.csn
                    });
                    if let Some(cell) = &txn.cell {
                        cell.set_ssi(x.clone());
                    }
                    txn.ssi = Some(x);
                    taken.expect("taken by begin")
                } else {
                    take()
                };
                txn.settle_snapshot(s.csn)
            }
        };
        Ok(Snapshot {
            csn,
            top,
            cid: txn.cid,
        })
    }

    /// SERIALIZABLE READ ONLY DEFERRABLE, as PostgreSQL's safe snapshot: takes a snapshot,
    /// then waits until every serializable transaction that may write and was running beside
    /// it has ended. If one of them committed with a conflict out to a transaction that
    /// committed before the snapshot, the snapshot could show a state no serial order has:
    /// take another and wait again. Otherwise it is safe, and the transaction reads with it
    /// and without SSI (no SIREAD locks, never 40001). The wait polls the transactions' states
    /// (at most every [`SAFE_SNAPSHOT_POLL`]) under `block_in_place`, as the other waits in
    /// place do, and ends with cancel or statement_timeout.
    fn safe_snapshot(&mut self) -> PgResult<Snapshot> {
        let instance = self.instance.clone();
        let ssi = &instance.txns.ssi;
        loop {
            let slot = self.snap_slot.clone();
            let txn = self.txn_mut();
            let (top, cid) = (txn.cell.as_ref().map_or(0, |c| c.top()), txn.cid);
            let mut taken = None;
            let x = ssi.begin(true, || {
                let s = instance.txns.snapshot(&slot, top, cid);
                taken = Some(s);
                s.csn
            });
            let taken = taken.expect("taken by begin");
            let writers = ssi.concurrent_writers(&x);
            let verdict = self.await_snapshot_safety(&x, &writers);
            // `x` only stood for the snapshot while it was judged: it read nothing and holds
            // no locks or edges.
            ssi.aborted(&x);
            if verdict? {
                let txn = self.txn_mut();
                let csn = txn.settle_snapshot(taken.csn);
                return Ok(Snapshot {
                    csn,
                    top,
                    cid: txn.cid,
                });
            }
        }
    }

    fn await_snapshot_safety(
        &mut self,
        x: &Arc<ssi::Xact>,
        writers: &[Arc<ssi::Xact>],
    ) -> PgResult<bool> {
        if let Some(safe) = ssi::Ssi::snapshot_safety(x, writers) {
            return Ok(safe);
        }
        self.shared
            .activity
            .lock()
            .set_wait(Some(("IPC", "SafeSnapshot")));
        let result = tokio::task::block_in_place(|| {
            let mut nap = std::time::Duration::from_micros(100);
            loop {
                if let Some(safe) = ssi::Ssi::snapshot_safety(x, writers) {
                    return Ok(safe);
                }
                self.check_interrupts()?;
                std::thread::park_timeout(nap);
                nap = (nap * 2).min(SAFE_SNAPSHOT_POLL);
            }
        });
        self.shared.activity.lock().set_wait(None);
        result
    }

    /// The snapshot to read the catalog with: every commit so far, and this transaction's own
    /// changes up to the command being planned or run.
    pub(super) fn catalog_snapshot(&self) -> Snapshot {
        let csn = self.instance.txns.visible();
        match self.txn.as_ref() {
            Some(t) => Snapshot {
                csn,
                top: t.cell.as_ref().map_or(0, |c| c.top()),
                cid: t.cid + 1,
            },
            None => Snapshot {
                csn,
                top: 0,
                cid: 0,
            },
        }
    }

    /// The cell writes of the running command are stamped with (the innermost savepoint's),
    /// and the command id; gives the transaction its cell at its first write.
    pub(super) fn writer(&mut self, what: &str) -> PgResult<(Arc<TxnCell>, Cid)> {
        let t = self.txn_mut();
        if t.isolation == sql::Isolation::Serializable && t.ssi.is_none() && !t.read_only {
            // A SERIALIZABLE write registers itself for readers (`txn::ssi`): with its
            // snapshot comes its SSI state.
            self.statement_snapshot()?;
        }
        let pid = self.shared.pid;
        let instance = self.instance.clone();
        let slot = self.snap_slot.clone();
        let txn = self.txn_mut();
        if txn.read_only {
            return Err(PgError::new(
                code::READ_ONLY_SQL_TRANSACTION,
                format!("cannot execute {what} in a read-only transaction"),
            ));
        }
        txn.wrote = true;
        let xid = txn.xid;
        let mut cell = txn
            .cell
            .get_or_insert_with(|| instance.txns.begin_logged(pid, &slot, xid))
            .clone();
        if let Some(x) = &txn.ssi {
            if cell.ssi().is_none() {
                cell.set_ssi(x.clone());
            }
        }
        for sp in txn.savepoints.iter_mut() {
            cell = sp
                .cell
                .get_or_insert_with(|| instance.txns.begin_sub(&cell))
                .clone();
        }
        txn.cid_used = true;
        Ok((cell, txn.cid))
    }

    fn apply_listens(&mut self, actions: &[ListenAction]) {
        if actions.is_empty() {
            return;
        }
        // The last action per channel wins; UNLISTEN * clears everything before it. One action
        // (an autocommitted LISTEN or UNLISTEN) needs no merging and no allocation.
        let mut unlisten_all = false;
        let mut merged: Vec<(&Arc<str>, bool)> = Vec::new();
        let one: [(&Arc<str>, bool); 1];
        let final_state: &[(&Arc<str>, bool)] = match actions {
            [ListenAction::Listen(c)] => {
                one = [(c, true)];
                &one
            }
            [ListenAction::Unlisten(c)] => {
                one = [(c, false)];
                &one
            }
            _ => {
                for a in actions {
                    match a {
                        ListenAction::Listen(c) => {
                            merged.retain(|(n, _)| n != &c);
                            merged.push((c, true));
                        }
                        ListenAction::Unlisten(c) => {
                            merged.retain(|(n, _)| n != &c);
                            merged.push((c, false));
                        }
                        ListenAction::UnlistenAll => {
                            merged.clear();
                            unlisten_all = true;
                        }
                    }
                }
                &merged
            }
        };
        // Borrowed, not cloned: every shard's sessions share the instance, and its count of
        // references would move between cores at every statement.
        let hub = &self.instance.notify;
        if unlisten_all {
            if let Some(l) = &self.listener {
                for ch in self.listening.keys() {
                    hub.unlisten(self.db_oid, ch, l);
                }
            }
            self.listening.clear();
        }
        for &(ch, listen) in final_state {
            if listen {
                if self.listening.contains_key(ch) {
                    continue;
                }
                let listener = self
                    .listener
                    .get_or_insert_with(|| {
                        let waker: Arc<dyn notify::Wake> = self.shared.clone();
                        Listener::new(self.shared.pid, waker)
                    })
                    .clone();
                let from = hub.listen(self.db_oid, ch, &listener);
                self.listening.insert(ch.clone(), from);
            } else if self.listening.remove(ch).is_some() {
                if let Some(l) = &self.listener {
                    hub.unlisten(self.db_oid, ch, l);
                }
            }
        }
        self.listen_changed_at = hub.current_seq();
        if self.listening.is_empty() {
            // Nothing listened to: drop the inbox (and whatever it still held).
            self.listener = None;
        }
    }

    /// Session end: UNLISTEN * and leave the instance.
    pub(super) fn end_session(&mut self) {
        // A transaction left open rolls back: its rows and row locks are released.
        self.abort();
        // Session-level advisory locks last until here.
        self.advisory_release_level(false);
        self.drop_temp_schema();
        self.apply_listens(&[ListenAction::UnlistenAll]);
        self.instance.txns.unregister(&self.snap_slot);
        self.instance.unregister_session(self.shared.pid);
    }
}

impl Core {
    /// The snapshot of a cursor or portal that opens now and is read later (as it is fetched):
    /// the command's snapshot, kept published for vacuum until the transaction ends.
    pub(super) fn cursor_snapshot(&mut self) -> PgResult<Snapshot> {
        let s = self.statement_snapshot()?;
        self.txn_mut().pinned = true;
        Ok(s)
    }

    fn release_locks(&self, txn: &mut Txn, cell: &TxnCell) {
        for (rel, _) in txn.locks.drain(..) {
            self.instance.locks.release(rel, cell);
        }
    }

    /// Takes the relation locks a statement needs (`txn::lock`), waiting where another
    /// transaction holds a conflicting one. True when it waited: the schema may have changed
    /// meanwhile, and a plan made before must be made again.
    pub(super) fn lock_relations(&mut self, locks: &[(u32, LockMode)]) -> PgResult<bool> {
        let mut waited = false;
        for &(rel, mode) in locks {
            waited |= self.lock_relation_as(rel, mode, None)?;
        }
        Ok(waited)
    }

    /// One relation lock; `nowait`: the relation's name, for the 55P03 error instead of a wait.
    pub(super) fn lock_relation_as(
        &mut self,
        rel: u32,
        mode: LockMode,
        nowait: Option<&str>,
    ) -> PgResult<bool> {
        if self.tx == TxState::Failed {
            return Ok(false);
        }
        let pid = self.shared.pid;
        let instance = self.instance.clone();
        let slot = self.snap_slot.clone();
        let txn = self.txn_mut();
        if txn.locks.contains(&(rel, mode)) {
            return Ok(false);
        }
        let xid = txn.xid;
        let me = txn
            .cell
            .get_or_insert_with(|| instance.txns.begin_logged(pid, &slot, xid))
            .clone();
        // Listed before it is granted, so that the transaction's end also clears a queued
        // request.
        txn.locks.push((rel, mode));
        let mut waited = false;
        loop {
            match instance.locks.acquire(rel, mode, &me) {
                Acquired::Granted => return Ok(waited),
                Acquired::Wait(holder) => {
                    if let Some(name) = nowait {
                        instance.locks.abandon(rel, &me);
                        return Err(PgError::new(
                            code::LOCK_NOT_AVAILABLE,
                            format!("could not obtain lock on relation \"{name}\""),
                        ));
                    }
                    waited = true;
                    if let Err(e) = self.wait_for_transaction_as(&holder, ("Lock", "relation")) {
                        instance.locks.abandon(rel, &me);
                        return Err(e);
                    }
                }
            }
        }
    }
}
