//! Serializable snapshot isolation (SSI): SERIALIZABLE as PostgreSQL builds it.
//!
//! # The design, and what is different from PostgreSQL
//!
//! A serializable transaction reads through one snapshot, as REPEATABLE READ does, and in
//! addition records what it read and what it wrote, so that every *rw-antidependency* between
//! two concurrent serializable transactions (T1 read something that T2, whose writes T1 does
//! not see, wrote) becomes an edge T1 -> T2 of a conflict graph. A *dangerous structure*
//! T0 -> T1 -> T2 where T2 committed first is the shape every serialization anomaly under
//! snapshot isolation contains (Fekete et al.); when one can form, one transaction fails with
//! 40001. The rules deciding that, with PostgreSQL's commit-ordering refinements and its
//! read-only optimisation, are in `graph.rs` (after `predicate.c`'s
//! `OnConflict_CheckForSerializationFailure` and `PreCommit_CheckForSerializationFailure`).
//!
//! An edge is found in either order of the two events:
//!
//! * **Read, then write.** A read leaves a SIREAD lock in `readers` (a tuple, a virtual page,
//!   a relation for a sequential scan, an index for an index scan). A serializable write looks
//!   up the targets it touches there (the tuple, its page and its relation for an update or a
//!   delete; the relation and each index it enters for an insert) and adds an edge from each
//!   concurrent holder to itself.
//! * **Write, then read.** PostgreSQL finds these in tuple headers (a version the reader cannot
//!   see, written by a concurrent serializable transaction). Here a serializable write also
//!   registers itself in `writers`, by tuple (the versions it changed and made) and by relation;
//!   a read looks there: a sequential scan by relation (it walks every version, so any write to
//!   the relation by a concurrent transaction is one it meets, as in PostgreSQL), an index scan
//!   by the chain root of each entry it visits in its range and by the version it returns, a
//!   tuple read by its slot. Both sides insert their own entry before they look at the other
//!   map, with a SeqCst fence between (invariant 3), so at least one of two racing sides sees
//!   the other.
//!
//! Granularity follows PostgreSQL's hierarchy: tuple, page, relation. There are no pages, so a
//! *virtual page* is [`PAGE_SLOTS`] consecutive slots of a heap; more than
//! [`MAX_TUPLES_PER_PAGE`] tuple locks of one transaction on one page become a page lock, more
//! than [`MAX_LOCKS_PER_RELATION`] tuple and page locks on one relation become a relation lock
//! (PostgreSQL's `max_pred_locks_per_page` and `max_pred_locks_per_relation` defaults). An index
//! scan locks the whole index, which is what PostgreSQL's leaf-page lock amounts to while an
//! index has one leaf page, and coarser beyond (more false positives, never fewer detections).
//!
//! Transactions that are not serializable never reach this module: their reads do not look here
//! and their writes only test whether their cell has an [`Xact`].
//!
//! # Invariants
//!
//! 1. An edge R -> W is only added between two transactions that both have not aborted, where
//!    W's writes are invisible to R's snapshot and R had not committed before W's snapshot
//!    (commit sequence below W's snapshot).
//! 2. Every decision that reads the graph (adding an edge, the pre-commit check, marking a
//!    transaction that has edges committed) holds `graph`; a transaction with no edges prepares
//!    and commits without it. Adding an edge sets `EDGES` on both ends (one `fetch_or` on their
//!    flags) before reading their states, and a prepare sets `PREPARED` before reading `EDGES`:
//!    both are read-modify-writes of one atomic word, so either the preparer sees the edge
//!    (and checks under the lock) or the adder sees it prepared (and dooms the other side).
//! 3. A read inserts its SIREAD lock, then fences, then looks at `writers`; a write registers
//!    in `writers`, fences, then looks at `readers`.
//! 4. Once prepared, a transaction is never doomed by others: a check that would doom it fails
//!    the other side instead (PostgreSQL's rule for prepared transactions).
//! 5. A committed transaction's locks and edges are kept until every active serializable
//!    transaction's snapshot sees its commit (its commit sequence is below every active
//!    snapshot): after that it cannot be concurrent with any transaction still able to commit.
//!
//! # Sequence numbers
//!
//! PostgreSQL's commit sequence numbers are this server's CSNs: a snapshot `s` sees commits
//! below `s`, so its "last commit before the snapshot" is `s - 1`. A prepare takes the
//! watermark (a lower bound of the commit's CSN) and an end the watermark after the commit is
//! visible (an upper bound); every comparison the rules make errs towards failing with these.
//!
//! # Lock order
//!
//! `graph` -> an `Xact`'s `edges` (one at a time). A map's bucket lock and an `Xact`'s `local`
//! are taken alone, never across another lock; matches are copied out of the maps first.
//!
//! # Bounds
//!
//! Per transaction and relation at most [`MAX_LOCKS_PER_RELATION`] tuple and page locks before
//! one relation lock replaces them. At most [`MAX_RETAINED`] committed transactions are kept for
//! overlapping ones; past that, the active serializable transaction with the oldest snapshot is
//! doomed (it fails with 40001 at its next check), which lets the committed ones go: PostgreSQL
//! summarizes them instead, this errs on the side of aborting.
//!
//! # Model checks
//!
//! `cargo test --features shuttle --lib txn::ssi` checks invariant 2 under shuttle (`model.rs`).

mod graph;
#[cfg(all(test, feature = "shuttle"))]
mod model;
#[cfg(all(test, not(feature = "shuttle")))]
mod tests;

use std::collections::{HashMap, HashSet};

use crate::error::PgResult;
use crate::sync::{Arc, AtomicBool, AtomicU32, AtomicU64, Mutex, Ordering};

pub use graph::serialization_failure;

/// Slots per virtual page (the unit between a tuple and a relation).
pub const PAGE_SLOTS: u64 = 128;
/// Tuple locks of one transaction on one page before they become a page lock.
pub const MAX_TUPLES_PER_PAGE: u32 = 2;
/// Tuple and page locks of one transaction on one relation before a relation lock.
pub const MAX_LOCKS_PER_RELATION: u32 = 32;
/// Committed serializable transactions kept for overlapping ones (see "Bounds").
pub const MAX_RETAINED: usize = 10_000;

const DOOMED: u32 = 1;
const PREPARED: u32 = 2;
const COMMITTED: u32 = 4;
const ABORTED: u32 = 8;
const READ_ONLY: u32 = 16;
/// Committed with an rw-conflict out to a transaction that committed before it.
const CONFLICT_OUT: u32 = 32;
/// Some edge touches it (invariant 2).
const EDGES: u32 = 64;

/// What a SIREAD lock or a write registration covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Target {
    Relation(u32),
    Page(u32, u64),
    Tuple(u32, u64),
    Index(u32),
}

#[derive(Default)]
struct Edges {
    /// Transactions that read what this one wrote (they -> this).
    ins: Vec<Arc<Xact>>,
    /// Transactions that wrote what this one read (this -> they).
    outs: Vec<Arc<Xact>>,
}

/// What the owning session alone records, for dedupe, promotion and release.
#[derive(Default)]
struct Local {
    held: HashSet<Target>,
    per_page: HashMap<(u32, u64), u32>,
    per_relation: HashMap<u32, u32>,
    written: HashSet<Target>,
}

/// One serializable transaction (PostgreSQL's SERIALIZABLEXACT).
pub struct Xact {
    id: u64,
    /// The instance's SSI state (a cycle through its maps while this transaction holds
    /// entries there; they go when it ends or is released).
    manager: Arc<Ssi>,
    /// The top-level transaction id, once it wrote (for messages); else `id`.
    xid: AtomicU64,
    /// Its snapshot's CSN (a lower bound until the snapshot is taken).
    snap: AtomicU64,
    flags: AtomicU32,
    prepare_seq: AtomicU64,
    commit_seq: AtomicU64,
    /// With CONFLICT_OUT: the earliest prepare of a transaction it has a conflict out to that
    /// committed before it.
    earliest_out: AtomicU64,
    edges: Mutex<Edges>,
    local: Mutex<Local>,
}

impl std::fmt::Debug for Xact {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Xact({}: {:#x})", self.id, self.flags())
    }
}

impl Xact {
    fn new(manager: Arc<Ssi>, id: u64, snap: u64, read_only: bool) -> Xact {
        Xact {
            manager,
            id,
            xid: AtomicU64::new(0),
            snap: AtomicU64::new(snap),
            flags: AtomicU32::new(if read_only { READ_ONLY } else { 0 }),
            prepare_seq: AtomicU64::new(0),
            commit_seq: AtomicU64::new(0),
            earliest_out: AtomicU64::new(u64::MAX),
            edges: Mutex::new(Edges::default()),
            local: Mutex::new(Local::default()),
        }
    }

    /// The SSI state this transaction belongs to.
    pub fn manager(&self) -> &Arc<Ssi> {
        &self.manager
    }

    fn flags(&self) -> u32 {
        self.flags.load(Ordering::SeqCst)
    }
    fn has(&self, f: u32) -> bool {
        self.flags() & f != 0
    }
    fn set(&self, f: u32) -> u32 {
        self.flags.fetch_or(f, Ordering::SeqCst)
    }
    pub fn doomed(&self) -> bool {
        self.has(DOOMED)
    }
    fn prepared(&self) -> bool {
        self.has(PREPARED)
    }
    fn committed(&self) -> bool {
        self.has(COMMITTED)
    }
    fn aborted(&self) -> bool {
        self.has(ABORTED)
    }
    fn read_only(&self) -> bool {
        self.has(READ_ONLY)
    }
    fn snap(&self) -> u64 {
        self.snap.load(Ordering::SeqCst)
    }
    fn commit_seq(&self) -> u64 {
        self.commit_seq.load(Ordering::SeqCst)
    }
    fn prepare_seq(&self) -> u64 {
        self.prepare_seq.load(Ordering::SeqCst)
    }
    /// The id messages name it by.
    fn shown_xid(&self) -> u64 {
        match self.xid.load(Ordering::SeqCst) {
            0 => self.id,
            x => x,
        }
    }
    /// Records the transaction id it got at its first write (for messages).
    pub fn set_xid(&self, xid: u64) {
        self.xid.store(xid, Ordering::SeqCst);
    }
    /// Whether the snapshot of `self` sees the commit of `other`.
    fn committed_before_snapshot_of(other: &Xact, me: &Xact) -> bool {
        other.committed() && other.commit_seq() < me.snap()
    }
    fn has_out_to(&self, w: &Arc<Xact>) -> bool {
        self.edges.lock().outs.iter().any(|x| Arc::ptr_eq(x, w))
    }
}

/// The instance's SSI state.
pub struct Ssi {
    next_id: AtomicU64,
    /// The commit watermark of the transaction manager.
    visible: Arc<AtomicU64>,
    active: scc::HashMap<u64, Arc<Xact>>,
    retained: scc::HashMap<u64, Arc<Xact>>,
    readers: scc::HashMap<Target, Vec<Arc<Xact>>>,
    writers: scc::HashMap<Target, Vec<Arc<Xact>>>,
    /// Held for decisions over the graph (invariant 2).
    graph: Mutex<()>,
    cleaning: AtomicBool,
}

impl Ssi {
    pub fn new(visible: Arc<AtomicU64>) -> Ssi {
        Ssi {
            next_id: AtomicU64::new(1),
            visible,
            active: scc::HashMap::new(),
            retained: scc::HashMap::new(),
            readers: scc::HashMap::new(),
            writers: scc::HashMap::new(),
            graph: Mutex::new(()),
            cleaning: AtomicBool::new(false),
        }
    }

    fn watermark(&self) -> u64 {
        self.visible.load(Ordering::SeqCst)
    }

    /// Starts a serializable transaction: registers it, then runs `snapshot`, which takes the
    /// snapshot and returns its CSN (registered first, so that the cleanup's horizon never
    /// passes a snapshot it did not see: invariant 5).
    pub fn begin(self: &Arc<Self>, read_only: bool, snapshot: impl FnOnce() -> u64) -> Arc<Xact> {
        let id = self.next_id.fetch_add(1, Ordering::SeqCst);
        let x = Arc::new(Xact::new(self.clone(), id, self.watermark(), read_only));
        let _ = self.active.insert_sync(id, x.clone());
        let s = snapshot();
        x.snap.store(s, Ordering::SeqCst);
        x
    }

    /// SERIALIZABLE READ ONLY DEFERRABLE (PostgreSQL's safe snapshot): the serializable
    /// transactions that may write and were running when the read-only `x` took its
    /// snapshot. `x` waits until each has ended, then asks [`Ssi::snapshot_safety`].
    pub fn concurrent_writers(&self, x: &Arc<Xact>) -> Vec<Arc<Xact>> {
        let mut found = Vec::new();
        self.active.iter_sync(|_, o| {
            // A doomed transaction can never commit (and a read-only one writes nothing).
            if !Arc::ptr_eq(o, x) && !o.read_only() && !o.doomed() && !o.aborted() {
                found.push(o.clone());
            }
            true
        });
        found
    }

    /// Whether the snapshot of the read-only `x` is safe, given the transactions
    /// [`Ssi::concurrent_writers`] found: `None` while one of them may still commit;
    /// `Some(false)` when one committed with a conflict out to a transaction that committed
    /// before `x`'s snapshot (then `x` could be the reader of a dangerous structure: it takes
    /// a new snapshot); `Some(true)` when none did, and `x` can read without SSI at all.
    pub fn snapshot_safety(x: &Xact, writers: &[Arc<Xact>]) -> Option<bool> {
        let mut safe = true;
        for w in writers {
            if w.aborted() || w.doomed() || Xact::committed_before_snapshot_of(w, x) {
                continue;
            }
            if !w.committed() {
                return None;
            }
            // CONFLICT_OUT is set before COMMITTED (graph.rs); `earliest_out` is a prepare,
            // a lower bound of that commit: the test errs towards unsafe.
            if w.has(CONFLICT_OUT)
                && w.earliest_out.load(Ordering::SeqCst) <= x.snap().saturating_sub(1)
            {
                safe = false;
            }
        }
        Some(safe)
    }

    /// Serializable transactions in progress and committed ones kept (pg_locks-like counts,
    /// and tests).
    pub fn counts(&self) -> (usize, usize) {
        (self.active.len(), self.retained.len())
    }

    /// A sequential scan of relation `rel` is about to read it.
    pub fn read_relation(&self, x: &Arc<Xact>, rel: u32) -> PgResult<()> {
        let t = Target::Relation(rel);
        self.lock(x, t);
        self.check_writers(x, t)
    }

    /// An index scan of `index` is about to read a range of it.
    pub fn read_index(&self, x: &Arc<Xact>, index: u32) -> PgResult<()> {
        self.lock(x, Target::Index(index));
        Ok(())
    }

    /// An index scan visited an entry for the chain rooted at `root` of `rel` (its version may
    /// be invisible: a concurrent writer's insert is a conflict out all the same).
    pub fn read_root(&self, x: &Arc<Xact>, rel: u32, root: u64) -> PgResult<()> {
        std::sync::atomic::fence(Ordering::SeqCst);
        self.check_writers(x, Target::Tuple(rel, root))
    }

    /// The version at `slot` of `rel` was read.
    pub fn read_tuple(&self, x: &Arc<Xact>, rel: u32, slot: u64) -> PgResult<()> {
        if x.doomed() {
            return Err(graph::doomed_error(graph::DURING_OUT));
        }
        self.lock_tuple(x, rel, slot);
        self.check_writers(x, Target::Tuple(rel, slot))
    }

    /// Fails a doomed transaction that is reading (PostgreSQL checks it at each tuple).
    pub fn check_read(&self, x: &Xact) -> PgResult<()> {
        if x.doomed() {
            return Err(graph::doomed_error(graph::DURING_OUT));
        }
        Ok(())
    }

    fn lock(&self, x: &Arc<Xact>, t: Target) {
        if !x.local.lock().held.insert(t) {
            return;
        }
        self.readers
            .entry_sync(t)
            .or_default()
            .get_mut()
            .push(x.clone());
    }

    fn lock_tuple(&self, x: &Arc<Xact>, rel: u32, slot: u64) {
        let page = slot / PAGE_SLOTS;
        let target = {
            let mut l = x.local.lock();
            if l.held.contains(&Target::Relation(rel))
                || l.held.contains(&Target::Page(rel, page))
                || l.held.contains(&Target::Tuple(rel, slot))
            {
                return;
            }
            let on_rel = l.per_relation.entry(rel).or_default();
            *on_rel += 1;
            if *on_rel > MAX_LOCKS_PER_RELATION {
                Target::Relation(rel)
            } else {
                let on_page = l.per_page.entry((rel, page)).or_default();
                *on_page += 1;
                if *on_page > MAX_TUPLES_PER_PAGE {
                    Target::Page(rel, page)
                } else {
                    Target::Tuple(rel, slot)
                }
            }
        };
        // The coarser lock is taken before the finer ones would go (they stay until the end:
        // a write checks every granularity, so nothing is missed meanwhile).
        self.lock(x, target);
    }

    /// Write-then-read: edges to the concurrent writers registered on `t` (invariant 3).
    fn check_writers(&self, x: &Arc<Xact>, t: Target) -> PgResult<()> {
        std::sync::atomic::fence(Ordering::SeqCst);
        let Some(ws) = self.writers.read_sync(&t, |_, v| v.clone()) else {
            return Ok(());
        };
        for w in ws {
            self.conflict_out(x, &w)?;
        }
        Ok(())
    }

    /// `me` read something `writer` wrote (CheckForSerializableConflictOut).
    fn conflict_out(&self, me: &Arc<Xact>, writer: &Arc<Xact>) -> PgResult<()> {
        if me.doomed() {
            return Err(graph::doomed_error(graph::DURING_OUT));
        }
        if Arc::ptr_eq(me, writer) || writer.aborted() {
            return Ok(());
        }
        if Xact::committed_before_snapshot_of(writer, me) {
            return Ok(()); // not concurrent: its writes are visible
        }
        // Read-only optimisation: a committed writer without a conflict out to a transaction
        // that committed before this snapshot lets a read-only reader appear to run first.
        if me.read_only()
            && writer.committed()
            && (!writer.has(CONFLICT_OUT)
                || me.snap().saturating_sub(1) < writer.earliest_out.load(Ordering::SeqCst))
        {
            return Ok(());
        }
        if me.has_out_to(writer) {
            return Ok(());
        }
        self.flag(me, writer, false)
    }

    /// A serializable write by `x` of the targets `checked` (whose SIREAD holders it conflicts
    /// with), registering it on `registered` for later readers (CheckForSerializableConflictIn).
    pub fn write(&self, x: &Arc<Xact>, checked: &[Target], registered: &[Target]) -> PgResult<()> {
        if x.doomed() {
            return Err(graph::doomed_error(graph::DURING_IN));
        }
        for &t in registered {
            if x.local.lock().written.insert(t) {
                self.writers
                    .entry_sync(t)
                    .or_default()
                    .get_mut()
                    .push(x.clone());
            }
        }
        std::sync::atomic::fence(Ordering::SeqCst);
        for t in checked {
            let Some(rs) = self.readers.read_sync(t, |_, v| v.clone()) else {
                continue;
            };
            for r in rs {
                self.conflict_in(&r, x)?;
            }
        }
        Ok(())
    }

    /// `reader` holds a SIREAD lock on what `me` writes.
    fn conflict_in(&self, reader: &Arc<Xact>, me: &Arc<Xact>) -> PgResult<()> {
        if Arc::ptr_eq(reader, me) || reader.doomed() || reader.aborted() {
            return Ok(());
        }
        if Xact::committed_before_snapshot_of(reader, me) {
            return Ok(()); // it ended before this snapshot: not concurrent
        }
        if reader.has_out_to(me) {
            return Ok(());
        }
        self.flag(reader, me, true)
    }

    /// The commit of `x` is about to be made: fails it (40001) if it must not commit. Once
    /// this returned Ok, [`Ssi::committed`] or [`Ssi::aborted`] must follow.
    pub fn precommit(&self, x: &Arc<Xact>) -> PgResult<()> {
        if !x.has(EDGES) {
            x.prepare_seq.store(self.watermark(), Ordering::SeqCst);
            if x.set(PREPARED) & (EDGES | DOOMED) == 0 {
                return Ok(());
            }
        }
        self.precommit_locked(x)
    }

    /// The commit of `x` is visible; `csn`: the CSN it committed with if it wrote (else it
    /// is read-only from now on, and its end is placed at the watermark: a snapshot above it
    /// was surely taken after this end).
    pub fn committed(&self, x: &Arc<Xact>, csn: Option<u64>) {
        let wrote = csn.is_some();
        let seq = csn.unwrap_or_else(|| self.watermark());
        if !wrote {
            x.set(READ_ONLY);
        }
        if x.has(EDGES) {
            self.mark_committed_locked(x, seq);
        } else {
            x.commit_seq.store(seq, Ordering::SeqCst);
            x.set(COMMITTED);
        }
        if self.active.remove_sync(&x.id).is_some() {
            let _ = self.retained.insert_sync(x.id, x.clone());
        }
        self.cleanup();
    }

    /// `x` rolled back (or failed): its locks and edges go now.
    pub fn aborted(&self, x: &Arc<Xact>) {
        x.set(ABORTED);
        self.active.remove_sync(&x.id);
        self.release(x);
        self.cleanup();
    }

    /// Drops the locks, registrations and edges of an ended transaction.
    fn release(&self, x: &Arc<Xact>) {
        let local = std::mem::take(&mut *x.local.lock());
        for t in local.held {
            Self::unlist(&self.readers, t, x);
        }
        for t in local.written {
            Self::unlist(&self.writers, t, x);
        }
        if x.has(EDGES) {
            self.unlink(x);
        }
    }

    fn unlist(map: &scc::HashMap<Target, Vec<Arc<Xact>>>, t: Target, x: &Arc<Xact>) {
        map.remove_if_sync(&t, |v| {
            v.retain(|o| !Arc::ptr_eq(o, x));
            v.is_empty()
        });
    }

    /// Lets committed transactions go once no active one overlaps them (invariant 5), and
    /// enforces [`MAX_RETAINED`].
    fn cleanup(&self) {
        if self
            .cleaning
            .compare_exchange(false, true, Ordering::SeqCst, Ordering::SeqCst)
            .is_err()
        {
            return; // another session is at it
        }
        loop {
            // Whoever registers after this scan takes its snapshot after every end marked so
            // far, so it overlaps none of them: only those found here count.
            let mut horizon = u64::MAX;
            let mut oldest: Option<Arc<Xact>> = None;
            self.active.iter_sync(|_, x| {
                // A doomed transaction can never commit: what it overlaps no longer matters.
                if !x.doomed() {
                    horizon = horizon.min(x.snap());
                    // A prepared one is past its checks (invariant 4): not a candidate.
                    if !x.prepared() && oldest.as_ref().is_none_or(|o| x.snap() < o.snap()) {
                        oldest = Some(x.clone());
                    }
                }
                true
            });
            let mut gone = Vec::new();
            self.retained.retain_sync(|_, x| {
                if x.commit_seq() < horizon {
                    gone.push(x.clone());
                    false
                } else {
                    true
                }
            });
            for x in &gone {
                self.release(x);
            }
            match oldest {
                Some(o) if self.retained.len() > MAX_RETAINED => {
                    o.set(DOOMED | EDGES);
                }
                _ => break,
            }
        }
        self.cleaning.store(false, Ordering::SeqCst);
    }
}
