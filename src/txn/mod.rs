//! Transactions over storage: identities, commit order, snapshots, visibility and waits.
//!
//! # The design, and what is different from PostgreSQL
//!
//! PostgreSQL decides what a snapshot sees from the set of transactions that were running when it
//! was taken: `GetSnapshotData` walks every backend's `PGPROC` under `ProcArrayLock`, so taking a
//! snapshot costs O(sessions) and commits serialize on the same lock (seed 004). threadgres orders
//! commits by a *commit sequence number* (CSN) instead, and a snapshot is one number:
//!
//! * **Cells.** Every transaction (and every subtransaction, one per savepoint level) has a
//!   [`TxnCell`]: its id (from the one counter txid_current() also draws from, so a row's
//!   xmin is what its writer's txid_current() answered; kept across restarts by the checkpoint
//!   image and the log), its top-level transaction's id and one atomic `state` word: in
//!   progress, sub-committed (look at the parent), aborted, or committed with its CSN. Row
//!   versions point at the cell of the transaction that wrote them, so finding out whether a
//!   writer committed, and when, is one atomic load, never a lookup in a shared table.
//! * **Commit.** A commit takes its CSN with one `fetch_add` on `next_csn`, stores it in its cell,
//!   marks its slot in a ring done and advances the *visible watermark* (the first CSN whose commit
//!   has not finished) over finished slots by compare-and-swap, as the notification hub does for
//!   its own sequence. No lock is held, and a WAL flush can sit before [`TxnManager::commit`]
//!   without ordering anything else.
//! * **Snapshots cost O(1).** A snapshot is the watermark read once: every CSN below it is
//!   complete, so a version is visible when its writer's CSN is below the snapshot's. A writer
//!   still in progress, or committed at or above the watermark, is invisible; there is no list of
//!   running transactions to copy.
//! * **Waits are futures.** A session that meets a row changed by a transaction still running
//!   awaits [`TxnCell::wait_end`], a future woken when that transaction ends: the session's shard
//!   goes on serving other sessions meanwhile. Before and while it waits, the waiter records whom
//!   it waits for, and [`TxnManager::find_deadlock`] follows that chain (each transaction waits for
//!   at most one other at a time) looking for itself.
//! * **Horizon.** Dead row versions may be reclaimed once no snapshot can see them. Each session
//!   publishes the snapshot it uses in a [`SnapshotSlot`]; [`TxnManager::horizon`] is the smallest
//!   of them (and of the watermark). Taking a snapshot stays O(1): the session stores its number
//!   in its own slot and checks it against the last horizon vacuum announced (invariant 5).
//!
//! # Invariants
//!
//! 1. `visible <= next_csn`; every CSN below `visible` is complete: its cell holds the CSN (stored
//!    before its ring slot was marked, which is before the watermark passed it).
//! 2. A cell's state leaves `IN_PROGRESS` exactly once (to a CSN, `ABORTED` or `SUBCOMMITTED`);
//!    a sub-committed cell may still become aborted when an enclosing savepoint is rolled back,
//!    and then resolves as aborted whatever its parent does.
//! 3. A snapshot `s` sees the commit of a cell exactly when the cell resolves to a CSN below `s`:
//!    a cell that reads as in progress through a snapshot taken from the watermark cannot commit
//!    below it (by 1), so no reader can see half a commit.
//! 4. [`TxnManager::commit`] returns only after the watermark passed the commit's CSN, so the next
//!    snapshot of the committing session (and of anyone it told) sees the commit.
//! 5. A version deleted by a commit with CSN `d` is reclaimed only if `d < h` for a horizon `h`
//!    computed as: announce `h0 = visible` in `announced`, then `h = min(h0, every slot)`. A
//!    session storing snapshot `w` in its slot re-reads `announced` afterwards and takes a new
//!    snapshot if `announced > w`; with SeqCst accesses either vacuum's scan sees `w`, or the
//!    session sees the announcement and moves past it.
//! 6. A waiter registers its waker under the cell's waiter lock and re-checks the state there;
//!    [`TxnCell::finish`] stores the state before taking that lock: no wake-up is lost.
//! 7. Writers decide by [`TxnCell::settled_status`]: a commit the watermark has not passed is
//!    still in progress to them (they wait, then settle). So whatever commit a writer acted on,
//!    its next snapshot sees (invariant 4 for those who learn of a commit from a row instead of
//!    from the committer); without it, an update that followed a newer version would be
//!    overwritten by the same session's next statement reading the older one.
//! 8. **Following a commit before it is durable.** A commit stores `COMMITTING | csn` in its
//!    cell under `commit_order` together with taking its CSN (a logged one right after its
//!    record's reservation, `log.rs`; one with nothing in the log in [`TxnManager::take_csn`]);
//!    from then on nothing aborts it (a failed copy of the record stops the process, as a
//!    failed flush does). Snapshots from the watermark never see it: the watermark passes a
//!    CSN only after [`TxnManager::publish`] replaced the committing word. A writer outside
//!    SERIALIZABLE that meets its write on a row it must change or lock acts on it as committed
//!    ([`TxnCell::writer_status`]) and records the CSN in its top cell (`follows`), and then:
//!    (a) its later snapshots are at least `follows + 1`; every CSN below reads as committing
//!    or committed already (stored under the same lock before the followed one's was) and
//!    will commit, so the view is a prefix of the commit order that does not change under the
//!    snapshot (invariant 3 for these snapshots); (b) its own commit takes a larger CSN and,
//!    when logged, a later record, so it is durable after the followed one, and it returns
//!    (invariant 4) only once the watermark passed the followed one too. No commit is
//!    acknowledged before every commit it acted on is durable. What a follower saw inside its
//!    own transaction is lost with it in a crash, as that transaction never committed; readers,
//!    unique and foreign-key checks and the catalog wait for publication as before
//!    ([`TxnCell::settled_status`]). So a hot row passes from one committer to the next without
//!    waiting for each one's flush, and their flushes group (PostgreSQL holds a row lock until
//!    its holder's flush is done).
//!
//! # Who touches what, and lock order
//!
//! `next_csn`, `visible` and the ring: committers. A cell's `state`: its own session writes it,
//! anyone reads it. A cell's `waiters`: waiters push, the owner drains at its end. A top-level
//! cell's `waiting_for`: its own session writes, deadlock checks read. The slot registry: sessions
//! at connect and exit, vacuum when it computes the horizon. Locks are never nested: each
//! `Mutex` here is taken alone for a few instructions.
//!
//! # Bounds
//!
//! The ring has one slot per possible in-flight commit (a power of two at least twice the
//! connection limit); a commit holds its slot only between its `fetch_add` and the watermark
//! passing it, so it cannot wrap. A deadlock check follows at most [`MAX_WAIT_CHAIN`] edges.
//! Transaction ids and CSNs are 64-bit and never wrap in practice (10^9 per second for 500
//! years).
//!
//! # Model checks
//!
//! `cargo test --features shuttle --lib txn::model` runs commit visibility, the horizon protocol,
//! wake-ups and advisory-lock exclusion (`advisory.rs`) under shuttle's schedulers, on the real code through the `sync` facade.

pub mod advisory;
mod isolation;
pub mod lock;
pub mod log;
#[cfg(all(test, feature = "shuttle"))]
mod model;
pub mod ssi;
mod wait;

pub use isolation::Isolation;
pub use wait::WaitEnd;

use crate::error::PgResult;
use crate::sync::{Arc, AtomicU64, Mutex, Ordering};

/// A transaction id (top-level or sub-transaction), from one counter that txid_current() and
/// the rows' `xmin` / `xmax` share. 0, 1 and 2 are never assigned (PostgreSQL's invalid,
/// bootstrap and frozen ids); [`FROZEN_XID`] marks rows read back at start.
pub type Xid = u64;
/// The writer of every row a start read back (the image's base transaction): the per-row ids
/// of the servers before are not stored, so those rows answer PostgreSQL's FrozenTransactionId
/// for `xmin`, the same after every restart.
pub const FROZEN_XID: Xid = 2;
/// The first id handed out (PostgreSQL's FirstNormalTransactionId).
pub const FIRST_NORMAL_XID: Xid = 3;
/// A commit sequence number.
pub type Csn = u64;
/// A command id: the statements of one transaction, in order.
pub type Cid = u32;

const IN_PROGRESS: u64 = 0;
const ABORTED: u64 = u64::MAX;
const SUBCOMMITTED: u64 = u64::MAX - 1;
/// Set with a CSN: the commit record is appended, not yet durable (invariant 8). CSNs stay far
/// below this bit; `ABORTED` and `SUBCOMMITTED` have it too and are tested first.
const COMMITTING: u64 = 1 << 62;

/// The CSN of a committing state word, if it is one.
fn committing_csn(state: u64) -> Option<Csn> {
    (state != ABORTED && state != SUBCOMMITTED && state & COMMITTING != 0)
        .then_some(state & !COMMITTING)
}

/// The longest chain of waits a deadlock check follows.
pub const MAX_WAIT_CHAIN: usize = 100_000;

/// What a transaction has become, as seen now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    InProgress,
    Committed(Csn),
    Aborted,
}

/// The shared state of one transaction or sub-transaction.
pub struct TxnCell {
    xid: Xid,
    top: Xid,
    /// The session's process id (for deadlock reports and pg_locks).
    pid: i32,
    parent: Option<Arc<TxnCell>>,
    state: AtomicU64,
    waiters: Mutex<Vec<std::task::Waker>>,
    /// The top-level cell this transaction waits for, if it waits (top-level cells only).
    waiting_for: Mutex<Option<Arc<TxnCell>>>,
    /// The log its records go to (`log.rs`); None for an instance in memory and for replay.
    log: Option<std::sync::Arc<log::TxnLog>>,
    /// This cell wrote a record (a sub-transaction's assignment included).
    announced: crate::sync::AtomicBool,
    /// The manager's visible watermark, for [`TxnCell::settled_status`] (invariant 7).
    watermark: Arc<AtomicU64>,
    /// A top-level cell of a SERIALIZABLE transaction: its SSI state (`ssi`), which its
    /// writes check and register in.
    ssi: std::sync::OnceLock<Arc<ssi::Xact>>,
    /// A top-level cell: the largest CSN of a committing transaction whose row this one
    /// changed or locked before that commit was durable (0: none; invariant 8).
    follows: AtomicU64,
}

impl std::fmt::Debug for TxnCell {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "TxnCell({}/{}: {:?})", self.xid, self.top, self.status())
    }
}

impl TxnCell {
    pub fn xid(&self) -> Xid {
        self.xid
    }

    /// The id of the top-level transaction this cell belongs to.
    pub fn top(&self) -> Xid {
        self.top
    }

    /// The transaction this one waits for, if it waits (pg_locks).
    pub fn waiting_for(&self) -> Option<Arc<TxnCell>> {
        self.waiting_for.lock().clone()
    }

    pub fn pid(&self) -> i32 {
        self.pid
    }

    /// Makes this top-level cell's writes serializable ones (`ssi`).
    pub fn set_ssi(&self, x: Arc<ssi::Xact>) {
        x.set_xid(self.xid);
        let _ = self.ssi.set(x);
    }

    /// The SSI state of the transaction this cell belongs to, if it is SERIALIZABLE.
    pub fn ssi(&self) -> Option<&Arc<ssi::Xact>> {
        self.top_ref().ssi.get()
    }

    /// The top-level cell (self for a top-level transaction).
    pub fn top_cell(self: &Arc<Self>) -> Arc<TxnCell> {
        let mut c = self.clone();
        while let Some(p) = c.parent.clone() {
            c = p;
        }
        c
    }

    /// The state word, resolved through sub-commits to the parents (`IN_PROGRESS` for a
    /// sub-committed cell without a parent).
    fn resolved(&self) -> u64 {
        let mut cell = self;
        loop {
            match cell.state.load(Ordering::SeqCst) {
                SUBCOMMITTED => match &cell.parent {
                    Some(p) => cell = p,
                    None => return IN_PROGRESS,
                },
                s => return s,
            }
        }
    }

    /// Resolves sub-commits through the parents. A commit whose record is not yet durable is
    /// still in progress here (invariant 8).
    pub fn status(&self) -> Status {
        match self.resolved() {
            IN_PROGRESS => Status::InProgress,
            ABORTED => Status::Aborted,
            s if s & COMMITTING != 0 => Status::InProgress,
            csn => Status::Committed(csn),
        }
    }

    /// The status a writer `me` acts on when it meets this transaction's write on a row it
    /// changes or locks (`storage::heap`'s claim): [`TxnCell::settled_status`], except that a
    /// commit whose record is appended but not yet durable counts as committed for a writer
    /// outside SERIALIZABLE, which then follows it (invariant 8): its later snapshots see that
    /// commit, and its own commit cannot be acknowledged before that one is durable.
    pub fn writer_status(&self, me: &TxnCell) -> Status {
        if let Some(csn) = committing_csn(self.resolved()) {
            let top = me.top_ref();
            if top.ssi.get().is_none() {
                top.follows.fetch_max(csn, Ordering::SeqCst);
                return Status::Committed(csn);
            }
            return Status::InProgress;
        }
        self.settled_status()
    }

    fn top_ref(&self) -> &TxnCell {
        let mut c = self;
        while let Some(p) = &c.parent {
            c = p;
        }
        c
    }

    /// The largest CSN of a commit not yet durable that this transaction followed (0: none).
    pub fn follows(&self) -> Csn {
        self.top_ref().follows.load(Ordering::SeqCst)
    }

    /// Wakes every waiter (after a state store: invariant 6). Also after the commit record is
    /// appended, so that writers may follow the commit before it is durable (invariant 8).
    fn wake_waiters(&self) {
        let waiters = std::mem::take(&mut *self.waiters.lock());
        for w in waiters {
            w.wake();
        }
    }

    /// The status a writer acts on (invariant 7): a commit counts once every snapshot taken
    /// from now on sees it, that is once the watermark passed its CSN; until then the
    /// transaction is still in progress to writers, who wait for it. A writer that followed an
    /// update made by a commit the watermark has not reached would change the newest version
    /// and then, in its next statement, take a snapshot that does not see that commit: it would
    /// read the older version as current and overwrite the newer one (a lost update).
    /// PostgreSQL's writers likewise treat a transaction as running until it has left the
    /// process array, which is when snapshots start to see it.
    pub fn settled_status(&self) -> Status {
        match self.status() {
            Status::Committed(csn) if self.watermark.load(Ordering::SeqCst) <= csn => {
                Status::InProgress
            }
            s => s,
        }
    }

    /// Whether this cell's own state has left "in progress" (a sub-committed cell has ended,
    /// though its writes still wait for the parent).
    fn own_state_ended(&self) -> bool {
        let s = self.state.load(Ordering::SeqCst);
        s != IN_PROGRESS && committing_csn(s).is_none()
    }

    /// Stores the final state and wakes every waiter (invariant 6: store, then take the lock).
    fn finish(&self, state: u64) {
        debug_assert!(state != IN_PROGRESS);
        self.state.store(state, Ordering::SeqCst);
        self.wake_waiters();
    }

    /// A future that completes when this transaction has committed or aborted (waiting through
    /// sub-commits for the enclosing transaction).
    pub fn wait_end(self: &Arc<Self>) -> WaitEnd {
        WaitEnd::new(self.clone())
    }
}

/// A snapshot: what one statement (READ COMMITTED) or transaction (REPEATABLE READ) sees.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Snapshot {
    /// Commits with a CSN below this are visible.
    pub csn: Csn,
    /// The reading transaction's top-level id (0: none yet; it has written nothing).
    pub top: Xid,
    /// The reader's own changes made by commands before this one are visible.
    pub cid: Cid,
}

impl Snapshot {
    /// Whether a write by `cell` at command `cid` is visible to this snapshot.
    pub fn sees_write(&self, cell: Option<&TxnCell>, cid: Cid) -> bool {
        let Some(cell) = cell else {
            return true; // frozen: committed before every snapshot still in use
        };
        if self.top != 0 && cell.top == self.top {
            return cid < self.cid && cell.status() != Status::Aborted;
        }
        // A committing CSN is below a snapshot only for a transaction that followed that
        // commit (invariant 8); everyone else's snapshot is at most the watermark.
        match cell.resolved() {
            IN_PROGRESS | ABORTED => false,
            s => (s & !COMMITTING) < self.csn,
        }
    }
}

/// A session's published snapshot, for the vacuum horizon.
#[derive(Debug)]
pub struct SnapshotSlot {
    csn: AtomicU64,
    /// The insert position read before the session's transaction wrote its first record
    /// (`log::NO_LSN`: none in progress; `log.rs` invariant 1).
    first_lsn: AtomicU64,
}

impl SnapshotSlot {
    /// No snapshot in use.
    const IDLE: u64 = u64::MAX;

    /// Marks the session as holding no snapshot.
    pub fn clear(&self) {
        self.csn.store(Self::IDLE, Ordering::SeqCst);
    }
}

/// The instance-wide transaction state: id and CSN counters, the watermark and the slots.
pub struct TxnManager {
    next_xid: AtomicU64,
    next_csn: AtomicU64,
    visible: Arc<AtomicU64>,
    /// Slot `csn & mask` holds `csn` once that commit finished (invariant 1).
    ring: Box<[AtomicU64]>,
    mask: u64,
    /// The last horizon a vacuum announced (invariant 5).
    announced: AtomicU64,
    /// The largest horizon [`TxnManager::horizon`] has returned: still a valid horizon later
    /// (every snapshot taken after it was computed is at least the announced value).
    last_horizon: AtomicU64,
    slots: Mutex<Vec<Arc<SnapshotSlot>>>,
    /// The write-ahead log, once the instance has one (`log.rs`).
    wal: std::sync::OnceLock<std::sync::Arc<crate::wal::Wal>>,
    /// Held while a logged commit takes its CSN and its record's reservation (`log.rs`
    /// invariant 3); nothing else is done under it.
    commit_order: Mutex<()>,
    /// Serializable snapshot isolation's locks and conflict graph (`ssi`).
    pub ssi: Arc<ssi::Ssi>,
}

impl TxnManager {
    /// `max_commits`: the most commits that can be in flight at once (one per session).
    pub fn new(max_commits: usize) -> TxnManager {
        let len = (max_commits.max(1) * 2).next_power_of_two();
        let visible = Arc::new(AtomicU64::new(1));
        TxnManager {
            ssi: Arc::new(ssi::Ssi::new(visible.clone())),
            next_xid: AtomicU64::new(FIRST_NORMAL_XID),
            next_csn: AtomicU64::new(1),
            visible,
            // Slot 0's `0` would read as "CSN 0 done"; CSNs start at 1, so every slot starts
            // with a value no CSN that maps to it can have.
            ring: (0..len).map(|_| AtomicU64::new(u64::MAX)).collect(),
            mask: len as u64 - 1,
            announced: AtomicU64::new(0),
            last_horizon: AtomicU64::new(0),
            slots: Mutex::new(Vec::new()),
            wal: std::sync::OnceLock::new(),
            commit_order: Mutex::new(()),
        }
    }

    /// Connects the write-ahead log: transactions begun from now on with
    /// [`TxnManager::begin_logged`] write their records to it.
    pub fn set_wal(&self, wal: std::sync::Arc<crate::wal::Wal>) {
        let _ = self.wal.set(wal);
    }

    /// The write-ahead log, if the instance has one.
    pub fn wal(&self) -> Option<&std::sync::Arc<crate::wal::Wal>> {
        self.wal.get()
    }

    /// Starts a top-level transaction whose writes are logged, its first position published
    /// in the session's `slot` (a plain [`TxnManager::begin`] without a log).
    /// `xid`: the id txid_current() already gave the transaction, if it did (else a new one).
    pub fn begin_logged(
        &self,
        pid: i32,
        slot: &Arc<SnapshotSlot>,
        xid: Option<Xid>,
    ) -> Arc<TxnCell> {
        match self.wal.get() {
            Some(w) => self.begin_logged_as(pid, slot, w.buffer().clone(), xid),
            None => self.make_cell(pid, None, None, xid),
        }
    }

    /// [`TxnManager::begin_logged`] into the log buffer `wal` (the model checks give their
    /// own, written by a writer thread of theirs).
    pub fn begin_logged_to(
        &self,
        pid: i32,
        slot: &Arc<SnapshotSlot>,
        wal: std::sync::Arc<crate::wal::WalBuffer>,
    ) -> Arc<TxnCell> {
        self.begin_logged_as(pid, slot, wal, None)
    }

    fn begin_logged_as(
        &self,
        pid: i32,
        slot: &Arc<SnapshotSlot>,
        wal: std::sync::Arc<crate::wal::WalBuffer>,
        xid: Option<Xid>,
    ) -> Arc<TxnCell> {
        let log = std::sync::Arc::new(log::TxnLog {
            wal,
            slot: slot.clone(),
            logged: crate::sync::AtomicBool::new(false),
        });
        self.make_cell(pid, None, Some(log), xid)
    }

    /// A new transaction id, for a transaction that has no cell yet (txid_current()); its
    /// cell takes it later ([`TxnManager::begin_logged`]).
    pub fn assign_xid(&self) -> Xid {
        self.next_xid.fetch_add(1, Ordering::SeqCst)
    }

    /// The base transaction of a start, whose rows read as frozen ([`FROZEN_XID`]).
    pub fn begin_frozen(&self) -> Arc<TxnCell> {
        self.make_cell(0, None, None, Some(FROZEN_XID))
    }

    /// The smallest first position of the transactions in progress (`log.rs` invariant 1),
    /// None when none has written a record.
    pub fn min_first_lsn(&self) -> Option<u64> {
        let slots = self.slots.lock();
        slots
            .iter()
            .map(|s| s.first_lsn.load(Ordering::SeqCst))
            .filter(|&l| l != log::NO_LSN)
            .min()
    }

    /// Starts a top-level transaction (done lazily, at its first write).
    pub fn begin(&self, pid: i32) -> Arc<TxnCell> {
        self.new_cell(pid, None)
    }

    /// Starts a sub-transaction (a savepoint level) inside `parent`.
    pub fn begin_sub(&self, parent: &Arc<TxnCell>) -> Arc<TxnCell> {
        self.new_cell(parent.pid, Some(parent.clone()))
    }

    fn new_cell(&self, pid: i32, parent: Option<Arc<TxnCell>>) -> Arc<TxnCell> {
        let log = parent.as_ref().and_then(|p| p.log.clone());
        self.make_cell(pid, parent, log, None)
    }

    fn make_cell(
        &self,
        pid: i32,
        parent: Option<Arc<TxnCell>>,
        log: Option<std::sync::Arc<log::TxnLog>>,
        xid: Option<Xid>,
    ) -> Arc<TxnCell> {
        let xid = xid.unwrap_or_else(|| self.assign_xid());
        Arc::new(TxnCell {
            log,
            announced: crate::sync::AtomicBool::new(false),
            xid,
            top: parent.as_ref().map_or(xid, |p| p.top),
            pid,
            parent,
            state: AtomicU64::new(IN_PROGRESS),
            waiters: Mutex::new(Vec::new()),
            waiting_for: Mutex::new(None),
            watermark: self.visible.clone(),
            ssi: std::sync::OnceLock::new(),
            follows: AtomicU64::new(0),
        })
    }

    /// Makes every CSN from now on at least `csn` (at start, before any transaction: the log
    /// and the image hold CSNs of the servers before this one, which replay compares with
    /// this server's). Nothing may be committing: the watermark moves with the counter, over
    /// CSNs that no cell holds.
    pub fn advance_csn(&self, csn: Csn) {
        let next = self.next_csn.fetch_max(csn, Ordering::SeqCst).max(csn);
        self.visible.fetch_max(next, Ordering::SeqCst);
    }

    /// Makes the next transaction id at least `xid` (after recovery: ids the log names are
    /// not given again).
    pub fn advance_xid(&self, xid: Xid) {
        self.next_xid.fetch_max(xid, Ordering::SeqCst);
    }

    /// The next transaction id to be assigned (txid_current's upper bound, pg_current_snapshot).
    pub fn next_xid(&self) -> Xid {
        self.next_xid.load(Ordering::SeqCst)
    }

    /// The watermark: commits with a CSN below it are complete.
    pub fn visible(&self) -> Csn {
        self.visible.load(Ordering::SeqCst)
    }

    /// RELEASE SAVEPOINT: the sub-transaction's writes now commit or abort with its parent.
    pub fn subcommit(&self, cell: &TxnCell) {
        debug_assert!(cell.parent.is_some());
        cell.log_end(log::info::SUBCOMMIT);
        cell.finish(SUBCOMMITTED);
    }

    /// ROLLBACK (TO SAVEPOINT): the cell's writes are gone for everyone. `subs` are the
    /// sub-committed cells below it, which abort with it (invariant 2).
    pub fn abort(&self, cell: &TxnCell, subs: &[Arc<TxnCell>]) {
        for s in subs {
            s.state.store(ABORTED, Ordering::SeqCst);
        }
        if let Some(w) = cell.waiting_for.lock().take() {
            drop(w);
        }
        cell.log_end(log::info::ABORT);
        cell.finish(ABORTED);
        if cell.parent.is_none() {
            cell.clear_first_lsn();
        }
    }

    /// Commits a top-level transaction: returns its CSN once every snapshot taken from now on
    /// sees it (invariant 4).
    pub fn commit(&self, cell: &TxnCell) -> Csn {
        self.commit_logged(cell, None, true)
            .expect("a transaction without records commits without the log")
    }

    /// Commits a top-level transaction that may have logged records: its CSN is taken, its
    /// commit record (with `catalog`, the schema it leaves, if it changed it) appended and
    /// awaited until durable, and only then published (claim C1 of `docs/wal-commit-path.md`:
    /// neither the cell nor the watermark shows a commit before its record is durable). This
    /// blocks the calling thread for the flush; sessions call it under `block_in_place`.
    ///
    /// An error before the record is appended aborts the transaction. A failed flush is fatal
    /// (see `wal`'s "Faults"): the process stops, and recovery decides from the log.
    ///
    /// `durable` false (synchronous_commit = off): published once appended, without waiting.
    pub fn commit_logged(
        &self,
        cell: &TxnCell,
        catalog: Option<Vec<u8>>,
        durable: bool,
    ) -> PgResult<Csn> {
        let csn = match self.commit_append(cell, catalog)? {
            Some((csn, end)) => {
                // Asynchronous: the writer's next round (wal_writer_delay) flushes it.
                if durable {
                    let wal = cell.wal().expect("a logging transaction");
                    if let Err(e) = wal.wait_flushed_blocking(end) {
                        crate::wal::panic_on_flush_failure(&e);
                    }
                }
                csn
            }
            None => self.take_csn(cell),
        };
        self.publish(cell, csn);
        // An earlier committer may be between its CSN and its publication.
        self.settle(cell);
        self.published(cell);
        Ok(csn)
    }

    /// The first step of a logged commit (the others: await the flush of the position
    /// returned, [`TxnManager::publish`], await [`TxnManager::settled`],
    /// [`TxnManager::published`]): appends the commit record of a transaction that logged
    /// something (or changed the schema: `catalog`), taking its CSN (`log.rs` invariant 3).
    /// Returns the CSN and the end of the record, or None for a transaction with nothing in
    /// the log (it takes its CSN at publication). An error aborts the transaction: nothing of
    /// it is in the log, and no CSN was taken.
    pub fn commit_append(
        &self,
        cell: &TxnCell,
        catalog: Option<Vec<u8>>,
    ) -> PgResult<Option<(Csn, crate::wal::Lsn)>> {
        debug_assert!(cell.parent.is_none());
        if !cell.logged() && catalog.is_none() {
            return Ok(None);
        }
        match cell.log_commit(&self.commit_order, &self.next_csn, catalog) {
            Ok((csn, appended)) => {
                cell.wake_waiters();
                Ok(Some((csn, appended.end)))
            }
            Err(e) => {
                self.abort(cell, &[]);
                Err(e)
            }
        }
    }

    /// A CSN for the commit of `cell`, which has nothing in the log (then
    /// [`TxnManager::publish`]); stored as committing under `commit_order`, as a logged
    /// commit's is (invariant 8).
    pub fn take_csn(&self, cell: &TxnCell) -> Csn {
        let _in_order = self.commit_order.lock();
        let csn = self.next_csn.fetch_add(1, Ordering::SeqCst);
        cell.state.store(COMMITTING | csn, Ordering::SeqCst);
        csn
    }

    /// Publishes the commit of `cell` with `csn` (for a logged one, once its record is
    /// durable): its state, then its ring slot, then the watermark as far as it goes. Snapshots
    /// see it once the watermark passes it ([`TxnManager::settled`]), which may wait for
    /// earlier committers still between their CSN and their publication.
    pub fn publish(&self, cell: &TxnCell, csn: Csn) {
        cell.finish(csn);
        self.ring[(csn & self.mask) as usize].store(csn, Ordering::SeqCst);
        self.advance();
    }

    /// The end of a commit, once [`TxnManager::settled`]: the transaction holds back no redo
    /// point any more (`log.rs` invariant 1).
    pub fn published(&self, cell: &TxnCell) {
        cell.clear_first_lsn();
    }

    /// Returns once a snapshot taken now sees the commit of `cell`: after a wait for it ended
    /// (its state is stored before the watermark passes it), or after publishing it (earlier
    /// committers between their CSN and their mark, a few instructions away unless the kernel
    /// preempted them). Spins, then gives the core away.
    pub fn settle(&self, cell: &TxnCell) {
        let mut spins = 0u32;
        while !self.settled(cell) {
            spins += 1;
            if spins > 64 {
                crate::sync::yield_now();
            } else {
                std::hint::spin_loop();
            }
        }
    }

    /// Whether a snapshot taken now sees the end of `cell` (its commit, if it committed):
    /// [`TxnManager::settle`] for async callers, who give way between looks instead of
    /// spinning.
    pub fn settled(&self, cell: &TxnCell) -> bool {
        match cell.status() {
            Status::Committed(csn) => {
                self.advance();
                self.visible.load(Ordering::SeqCst) > csn
            }
            _ => true,
        }
    }

    /// Moves the watermark over every finished slot (anyone may do it; invariant 1).
    fn advance(&self) {
        let mut w = self.visible.load(Ordering::SeqCst);
        while self.ring[(w & self.mask) as usize].load(Ordering::SeqCst) == w {
            match self
                .visible
                .compare_exchange(w, w + 1, Ordering::SeqCst, Ordering::SeqCst)
            {
                Ok(_) => w += 1,
                Err(now) => w = now,
            }
        }
    }

    /// Registers a session's snapshot slot (at connect).
    pub fn register(&self) -> Arc<SnapshotSlot> {
        let slot = Arc::new(SnapshotSlot {
            csn: AtomicU64::new(SnapshotSlot::IDLE),
            first_lsn: AtomicU64::new(log::NO_LSN),
        });
        self.slots.lock().push(slot.clone());
        slot
    }

    /// Removes a session's slot (at exit).
    pub fn unregister(&self, slot: &Arc<SnapshotSlot>) {
        let mut slots = self.slots.lock();
        if let Some(i) = slots.iter().position(|s| Arc::ptr_eq(s, slot)) {
            slots.swap_remove(i);
        }
    }

    /// Takes a snapshot for the owner of `slot` and publishes it there (invariant 5).
    pub fn snapshot(&self, slot: &SnapshotSlot, top: Xid, cid: Cid) -> Snapshot {
        loop {
            let w = self.visible.load(Ordering::SeqCst);
            slot.csn.store(w, Ordering::SeqCst);
            if self.announced.load(Ordering::SeqCst) <= w {
                return Snapshot { csn: w, top, cid };
            }
        }
    }

    /// A snapshot for the owner of `slot` that leaves an older published snapshot in place
    /// (the session still reads with that one: an open cursor). The slot's value is at most the
    /// new snapshot's, and it was published by [`TxnManager::snapshot`], so every horizon
    /// computed from now on is at most that value: whatever the new snapshot sees is kept too
    /// (invariant 5 holds for both). With nothing published, this is `snapshot`.
    pub fn snapshot_keeping(&self, slot: &SnapshotSlot, top: Xid, cid: Cid) -> Snapshot {
        if slot.csn.load(Ordering::SeqCst) == SnapshotSlot::IDLE {
            return self.snapshot(slot, top, cid);
        }
        Snapshot {
            csn: self.visible.load(Ordering::SeqCst),
            top,
            cid,
        }
    }

    /// The vacuum horizon: versions deleted by commits below it are invisible to every
    /// snapshot in use now and to every snapshot taken later (invariant 5).
    pub fn horizon(&self) -> Csn {
        let h0 = self.visible.load(Ordering::SeqCst);
        self.announced.fetch_max(h0, Ordering::SeqCst);
        let slots = self.slots.lock();
        let h = slots
            .iter()
            .map(|s| s.csn.load(Ordering::SeqCst))
            .fold(h0, u64::min);
        self.last_horizon.fetch_max(h, Ordering::SeqCst);
        h
    }

    /// The last horizon computed (without scanning the slots again): versions deleted below it
    /// may be pruned (see `last_horizon`).
    pub fn last_horizon(&self) -> Csn {
        self.last_horizon.load(Ordering::SeqCst)
    }

    /// Records that `me` (a top-level cell) is about to wait for `holder`'s transaction, and
    /// looks for a cycle of waits through it. Returns the cycle (starting with `me`) if there is
    /// one; the caller then reports a deadlock and must call [`TxnManager::stop_waiting`].
    pub fn start_waiting(
        &self,
        me: &Arc<TxnCell>,
        holder: &Arc<TxnCell>,
    ) -> Option<Vec<Arc<TxnCell>>> {
        self.start_waiting_as(me, &[], holder)
    }

    /// [`TxnManager::start_waiting`] for a session that also stands behind the cells `also`
    /// (the tokens of the advisory locks it holds, `txn::advisory`): they wait for `holder` too,
    /// so a chain of waits that reaches one of them comes back to `me`.
    pub fn start_waiting_as(
        &self,
        me: &Arc<TxnCell>,
        also: &[Arc<TxnCell>],
        holder: &Arc<TxnCell>,
    ) -> Option<Vec<Arc<TxnCell>>> {
        let target = holder.top_cell();
        for a in also {
            *a.waiting_for.lock() = Some(target.clone());
        }
        *me.waiting_for.lock() = Some(target);
        self.find_deadlock_as(me, also)
    }

    /// Clears what `me` waits for (the wait ended, or failed).
    pub fn stop_waiting(&self, me: &TxnCell) {
        me.waiting_for.lock().take();
    }

    /// [`TxnManager::stop_waiting`] for `me` and the cells that waited with it.
    pub fn stop_waiting_as(&self, me: &TxnCell, also: &[Arc<TxnCell>]) {
        for a in also {
            a.waiting_for.lock().take();
        }
        me.waiting_for.lock().take();
    }

    /// Follows the chain of waits from `me`; a chain that comes back to `me` is a deadlock.
    pub fn find_deadlock(&self, me: &Arc<TxnCell>) -> Option<Vec<Arc<TxnCell>>> {
        self.find_deadlock_as(me, &[])
    }

    /// [`TxnManager::find_deadlock`], where reaching one of `also` is coming back to `me`.
    pub fn find_deadlock_as(
        &self,
        me: &Arc<TxnCell>,
        also: &[Arc<TxnCell>],
    ) -> Option<Vec<Arc<TxnCell>>> {
        let mut chain = vec![me.clone()];
        let mut at = me.waiting_for.lock().clone()?;
        for _ in 0..MAX_WAIT_CHAIN {
            if Arc::ptr_eq(&at, me) || also.iter().any(|a| Arc::ptr_eq(&at, a)) {
                return Some(chain);
            }
            if at.status() != Status::InProgress {
                return None; // that one has ended: the wait is about to end too
            }
            chain.push(at.clone());
            let next = at.waiting_for.lock().clone()?;
            at = next;
        }
        None
    }
}

#[cfg(all(test, not(feature = "shuttle")))]
mod tests {
    use super::*;

    #[test]
    fn a_commit_is_visible_to_snapshots_taken_after_it_only() {
        let m = TxnManager::new(4);
        let slot = m.register();
        let t = m.begin(1);
        let before = m.snapshot(&slot, 0, 0);
        assert!(!before.sees_write(Some(&t), 0));
        let csn = m.commit(&t);
        assert!(
            !before.sees_write(Some(&t), 0),
            "no read skew: old snapshot"
        );
        let after = m.snapshot(&slot, 0, 0);
        assert!(after.csn > csn);
        assert!(after.sees_write(Some(&t), 0));
    }

    #[test]
    fn own_writes_by_command_and_aborted_subtransactions() {
        let m = TxnManager::new(4);
        let slot = m.register();
        let t = m.begin(1);
        let s = m.begin_sub(&t);
        let snap = m.snapshot(&slot, t.top(), 2);
        assert!(snap.sees_write(Some(&t), 1));
        assert!(
            !snap.sees_write(Some(&t), 2),
            "not the current command's own writes"
        );
        assert!(snap.sees_write(Some(&s), 0));
        m.abort(&s, &[]);
        assert!(!snap.sees_write(Some(&s), 0), "rolled back to savepoint");
        let other = m.snapshot(&slot, 0, 0);
        assert!(!other.sees_write(Some(&t), 0), "no dirty read");
    }

    #[test]
    fn subcommitted_writes_follow_the_parent() {
        let m = TxnManager::new(4);
        let slot = m.register();
        let t = m.begin(1);
        let s = m.begin_sub(&t);
        m.subcommit(&s);
        assert_eq!(s.status(), Status::InProgress);
        m.commit(&t);
        let snap = m.snapshot(&slot, 0, 0);
        assert!(snap.sees_write(Some(&s), 0));
        let t2 = m.begin(1);
        let s2 = m.begin_sub(&t2);
        m.subcommit(&s2);
        m.abort(&t2, std::slice::from_ref(&s2));
        assert_eq!(s2.status(), Status::Aborted);
    }

    #[test]
    fn horizon_is_held_back_by_the_oldest_snapshot() {
        let m = TxnManager::new(4);
        let a = m.register();
        let b = m.register();
        let old = m.snapshot(&a, 0, 0);
        for _ in 0..3 {
            let t = m.begin(1);
            m.commit(&t);
        }
        assert_eq!(m.horizon(), old.csn);
        a.clear();
        assert_eq!(m.horizon(), m.visible());
        let s = m.snapshot(&b, 0, 0);
        assert!(s.csn >= m.horizon());
        m.unregister(&b);
        m.unregister(&a);
        assert_eq!(m.horizon(), m.visible());
    }

    #[test]
    fn a_cycle_of_waits_is_found_and_a_chain_is_not() {
        let m = TxnManager::new(4);
        let a = m.begin(10);
        let b = m.begin(11);
        let c = m.begin(12);
        assert!(m.start_waiting(&a, &b).is_none());
        assert!(m.start_waiting(&b, &c).is_none());
        let cycle = m.start_waiting(&c, &a).expect("deadlock");
        let pids: Vec<i32> = cycle.iter().map(|c| c.pid()).collect();
        assert_eq!(pids, vec![12, 10, 11]);
        m.stop_waiting(&c);
        m.abort(&c, &[]);
        assert!(m.find_deadlock(&a).is_none());
    }

    #[test]
    fn a_cycle_through_a_sessions_advisory_token_is_found() {
        // a holds an advisory lock (token ta) and waits for b's transaction; b waits for ta.
        let m = TxnManager::new(4);
        let (a, b) = (m.begin(10), m.begin(11));
        let ta = m.begin(10);
        let also = [ta.clone()];
        assert!(m.start_waiting_as(&a, &also, &b).is_none());
        let cycle = m.start_waiting(&b, &ta).expect("deadlock");
        assert_eq!(
            cycle.iter().map(|c| c.pid()).collect::<Vec<_>>(),
            vec![11, 10]
        );
        assert!(
            m.find_deadlock_as(&a, &also).is_some(),
            "seen from a's side too"
        );
        m.stop_waiting_as(&a, &also);
        assert!(ta.waiting_for().is_none());
        assert!(m.find_deadlock(&b).is_none());
    }

    #[test]
    fn concurrent_commits_advance_the_watermark_in_order() {
        let m = std::sync::Arc::new(TxnManager::new(8));
        let threads: Vec<_> = (0..4)
            .map(|_| {
                let m = m.clone();
                std::thread::spawn(move || {
                    let slot = m.register();
                    for _ in 0..1000 {
                        let t = m.begin(1);
                        let csn = m.commit(&t);
                        let s = m.snapshot(&slot, 0, 0);
                        assert!(s.csn > csn);
                        assert!(s.sees_write(Some(&t), 0));
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        assert_eq!(m.visible(), 4001);
    }
}
