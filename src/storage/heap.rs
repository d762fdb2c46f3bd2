//! The heap: a table's row versions, one per slot, with PostgreSQL's version chains.
//!
//! Slots live in an append-only concurrent vector (`boxcar`): a slot's index is its [`RowId`]
//! and never moves, so indexes and version links can hold it. Each slot has its own small mutex;
//! no operation holds two slot locks at once.
//!
//! An UPDATE writes the new version into another slot and links the old one to it (`next`, the
//! `t_ctid` of PostgreSQL). When the update changed no indexed column, the link is a *HOT* link:
//! the indexes keep pointing at the chain's first slot (its root) and a lookup walks the chain,
//! so such an update touches no index. Vacuum turns a root whose versions are all dead but whose
//! chain goes on into a redirect, and frees dead slots; a freed slot keeps its forward link, so
//! a reader that was walking through it still reaches the live version, and it is reused only
//! once every snapshot older than its release is gone (see `Heap::vacuum`).
//!
//! The system columns read a version's header (`Heap::header`): the writer's and deleter's
//! transaction ids come from their cells; freezing drops the writer's cell but keeps its id in
//! `cmin` (flag FROZEN), so a frozen row still shows its xmin and the header stays 48 bytes.
//!
//! # Invariants
//!
//! 1. A chain is what a reader walks from one index entry: a root, then HOT links only. A freed
//!    or redirect slot's link is a HOT link or NONE, never the link of a non-HOT update: that
//!    successor has index entries of its own, so a reader holding an entry for the freed slot
//!    (taken before vacuum removed it) that went on to it would see the row twice.

use super::lock::{self, LockMode, Lockers};
use super::RowId;
use crate::sync::{Arc, AtomicBool, AtomicU64, Mutex, Ordering};
use crate::txn::{Cid, Csn, Snapshot, Status, TxnCell, Xid};

/// No next version.
const NONE: RowId = RowId::MAX;

const LOCK_ONLY: u8 = 1;
const HOT_UPDATED: u8 = 2;
const HEAP_ONLY: u8 = 4;
/// The slot holds no version: a root whose leading versions were reclaimed, the chain going
/// on at `next` (PostgreSQL's redirect line pointer).
const REDIRECT: u8 = 8;
/// The slot holds no version: reclaimed, the forward link kept for readers still walking
/// (`next`, NONE: end).
const FREE: u8 = 16;
/// `xmax` holds its row at UPDATE strength (a delete, a key-changing update, FOR UPDATE);
/// without it, at NO KEY UPDATE strength.
const KEY_UPDATE: u8 = 32;

/// `xmin` was frozen: `cmin` holds the writer's transaction id (its low 32 bits, what the
/// system column shows), the command id being of no use once every snapshot sees the version.
const FROZEN: u8 = 64;

/// `link`'s low bits hold `next`, its top byte the flags. A heap never has 2^56 slots (that
/// would be far beyond any memory), so a slot number always fits.
const NEXT_BITS: u32 = 56;
const NEXT_MASK: u64 = (1 << NEXT_BITS) - 1;

/// One slot: a row version (`data` is Some), or a redirect or free slot (flags say which;
/// only `next` matters then). One struct rather than an enum, and flags packed with the next
/// link, so that a slot is 40 bytes when `R` is a thin pointer: this header is paid per row
/// version, and it is most of a row's cost besides its values.
struct Slot<R> {
    /// The writer; `None` once frozen (committed before every snapshot in use).
    xmin: Option<Arc<TxnCell>>,
    /// The transaction that deleted, updated or (with `LOCK_ONLY`) locked this version.
    xmax: Option<Arc<TxnCell>>,
    data: Option<R>,
    /// Shared (KEY SHARE, SHARE) lockers, besides `xmax` (see `storage::lock`); None when
    /// there are none, so a version pays one pointer for them.
    lockers: Option<Box<Lockers>>,
    link: u64,
    cmin: Cid,
    cmax: Cid,
}

/// A row version: a slot whose `data` is Some (the functions below read only its header).
type Tuple<R> = Slot<R>;

/// What a slot holds.
enum State {
    Tuple,
    Redirect(RowId),
    Free(RowId),
}

impl<R> Slot<R> {
    fn tuple(
        data: R,
        cell: &Arc<TxnCell>,
        cid: Cid,
        flags: u8,
        lockers: Option<Box<Lockers>>,
    ) -> Slot<R> {
        let mut s = Slot {
            xmin: Some(cell.clone()),
            xmax: None,
            data: Some(data),
            lockers,
            link: 0,
            cmin: cid,
            cmax: 0,
        };
        s.set_next(NONE);
        s.set_flags(flags);
        s
    }

    /// A slot holding no version: `kind` is REDIRECT or FREE.
    fn empty(kind: u8, next: RowId) -> Slot<R> {
        let mut s = Slot {
            xmin: None,
            xmax: None,
            data: None,
            lockers: None,
            link: 0,
            cmin: 0,
            cmax: 0,
        };
        s.set_next(next);
        s.set_flags(kind);
        s
    }

    fn state(&self) -> State {
        let f = self.flags();
        if f & REDIRECT != 0 {
            State::Redirect(self.next())
        } else if f & FREE != 0 || self.data.is_none() {
            State::Free(self.next())
        } else {
            State::Tuple
        }
    }

    fn is_tuple(&self) -> bool {
        matches!(self.state(), State::Tuple)
    }

    fn flags(&self) -> u8 {
        (self.link >> NEXT_BITS) as u8
    }

    fn set_flags(&mut self, f: u8) {
        self.link = (self.link & NEXT_MASK) | ((f as u64) << NEXT_BITS);
    }

    fn next(&self) -> RowId {
        match self.link & NEXT_MASK {
            NEXT_MASK => NONE,
            n => n,
        }
    }

    fn set_next(&mut self, n: RowId) {
        let n = if n == NONE { NEXT_MASK } else { n & NEXT_MASK };
        self.link = (self.link & !NEXT_MASK) | n;
    }

    /// The version's values (a tuple's are always present).
    fn data(&self) -> &R {
        self.data.as_ref().expect("a tuple slot holds its data")
    }
}

/// A version's header as the system columns show it: the writer's and the deleter's (or
/// locker's) transaction ids (0: none), and their command ids.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Header {
    pub xmin: Xid,
    pub xmax: Xid,
    pub cmin: Cid,
    pub cmax: Cid,
}

/// What became of a request to change (delete, update or lock) a row version.
#[derive(Debug)]
pub enum Change {
    /// Changed; for an update, the new version's slot.
    Done(RowId),
    /// The slot holds no version the caller may change (never visible, or reclaimed).
    Invisible,
    /// Another transaction still running changed or locked it: wait for its end, then retry.
    Wait(Arc<TxnCell>),
    /// A transaction that committed after the caller's snapshot updated (`Some(newer)`) or
    /// deleted (`None`) it. READ COMMITTED goes on with the newer version, REPEATABLE READ fails.
    Concurrent(Option<RowId>),
    /// This very command already changed it (PostgreSQL skips such a row).
    SelfChanged,
}

/// What a unique check found in a chain.
#[derive(Debug)]
pub enum Probe {
    /// No version with the key is live or about to be.
    Dead,
    /// A live version with the key (committed, or written by the prober itself).
    Live(RowId),
    /// A transaction in progress is inserting or deleting a version with the key: wait for it.
    Wait(Arc<TxnCell>),
}

/// What a vacuum pass did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct VacuumStats {
    pub removed: u64,
    pub redirected: u64,
    pub frozen: u64,
}

/// A table's row versions.
pub struct Heap<R> {
    slots: boxcar::Vec<Mutex<Slot<R>>>,
    /// Freed slots with the watermark at their release; reusable once the horizon passes it.
    free: Mutex<std::collections::VecDeque<(Csn, RowId)>>,
    /// Whether `free` holds anything (set and cleared under its lock): a bulk insert into a
    /// table never vacuumed takes no lock to find that no slot can be reused. A stale false
    /// only makes one insert append a slot instead of reusing one.
    has_free: AtomicBool,
    /// The last horizon a vacuum used: slots released below it may be reused.
    reusable_below: AtomicU64,
}

impl<R> Default for Heap<R> {
    fn default() -> Self {
        Heap {
            slots: boxcar::Vec::new(),
            free: Mutex::new(std::collections::VecDeque::new()),
            has_free: AtomicBool::new(false),
            reusable_below: AtomicU64::new(0),
        }
    }
}

fn created_visible<R>(t: &Tuple<R>, snap: &Snapshot) -> bool {
    snap.sees_write(t.xmin.as_deref(), t.cmin)
}

fn visible<R>(t: &Tuple<R>, snap: &Snapshot) -> bool {
    if !created_visible(t, snap) {
        return false;
    }
    match &t.xmax {
        None => true,
        Some(_) if t.flags() & LOCK_ONLY != 0 => true,
        Some(x) => !snap.sees_write(Some(x), t.cmax),
    }
}

/// Dead for every snapshot at or above `horizon`: never committed, or deleted below it.
fn dead<R>(t: &Tuple<R>, horizon: Csn) -> bool {
    if let Some(x) = &t.xmin {
        if x.status() == Status::Aborted {
            return true;
        }
    }
    match &t.xmax {
        Some(x) if t.flags() & LOCK_ONLY == 0 => {
            matches!(x.status(), Status::Committed(c) if c < horizon)
        }
        _ => false,
    }
}

impl<R> Heap<R> {
    pub fn new() -> Heap<R> {
        Heap::default()
    }

    /// Slots ever used (a scan's end).
    pub fn len(&self) -> RowId {
        self.slots.count() as RowId
    }

    pub fn is_empty(&self) -> bool {
        self.slots.count() == 0
    }

    fn slot(&self, id: RowId) -> Option<&Mutex<Slot<R>>> {
        self.slots.get(usize::try_from(id).ok()?)
    }

    /// Writes a new version (INSERT, or the second half of an update).
    pub fn insert(&self, data: R, cell: &Arc<TxnCell>, cid: Cid) -> RowId {
        self.put(data, cell, cid, 0, None)
    }

    fn put(
        &self,
        data: R,
        cell: &Arc<TxnCell>,
        cid: Cid,
        flags: u8,
        lockers: Option<Box<Lockers>>,
    ) -> RowId {
        let tuple = Slot::tuple(data, cell, cid, flags, lockers);
        let reuse = if self.has_free.load(Ordering::Relaxed) {
            let reusable = self.reusable_below.load(Ordering::SeqCst);
            let mut free = self.free.lock();
            match free.front() {
                Some(&(stamp, id)) if stamp < reusable => {
                    free.pop_front();
                    if free.is_empty() {
                        self.has_free.store(false, Ordering::Relaxed);
                    }
                    Some(id)
                }
                _ => None,
            }
        } else {
            None
        };
        if let Some(id) = reuse {
            if let Some(slot) = self.slot(id) {
                *slot.lock() = tuple;
                return id;
            }
        }
        self.slots.push(Mutex::new(tuple)) as RowId
    }

    /// Recovery: the version in slot `id` becomes `data`, written by `cell`, in place. Replay
    /// applies only committed transactions' changes, in log order, before any reader exists:
    /// the newest version is all it must leave, so an update keeps no old one. False if the
    /// slot holds no version.
    pub fn replace(&self, id: RowId, data: R, cell: &Arc<TxnCell>) -> bool {
        let Some(slot) = self.slot(id) else {
            return false;
        };
        let mut s = slot.lock();
        if !s.is_tuple() {
            return false;
        }
        *s = Slot::tuple(data, cell, 0, 0, None);
        true
    }

    /// Recovery: empties slot `id` (a replayed delete; see [`Heap::replace`]). The slot is
    /// reused once a vacuum has run. False if the slot holds no version.
    pub fn remove(&self, id: RowId) -> bool {
        let Some(slot) = self.slot(id) else {
            return false;
        };
        {
            let mut s = slot.lock();
            if !s.is_tuple() {
                return false;
            }
            *s = Slot::empty(FREE, NONE);
        }
        self.free.lock().push_back((0, id));
        self.has_free.store(true, Ordering::Relaxed);
        true
    }

    /// The memory the heap's slots take: each slot (live, dead or free) and what `data_bytes`
    /// says its version's data owns besides the slot. One pass over the slots, each locked
    /// briefly (pg_relation_size and its kin).
    pub fn bytes(&self, data_bytes: impl Fn(&R) -> usize) -> u64 {
        let mut total = 0u64;
        for id in 0..self.len() {
            let Some(slot) = self.slot(id) else { continue };
            let s = slot.lock();
            let mut n = std::mem::size_of::<Mutex<Slot<R>>>();
            if let Some(d) = &s.data {
                n += data_bytes(d);
            }
            if let Some(l) = &s.lockers {
                n += std::mem::size_of_val(&**l);
            }
            total += n as u64;
        }
        total
    }

    /// Asks the CPU to bring in what fetching the chains rooted at `roots` will read: first
    /// every root's slot (their loads overlap instead of each waiting for memory in turn),
    /// then what those slots point at: the version's data (`data_at`) and its writers' cells.
    /// A hint only: nothing is read into the program's state, a stale id costs a wasted load.
    /// An index scan fetches its batch of rows after calling it; rows scattered over a large
    /// heap otherwise cost one memory round trip after another.
    pub fn prefetch(&self, roots: &[RowId], data_at: impl Fn(&R) -> *const u8) {
        for &id in roots {
            if let Some(slot) = self.slot(id) {
                prefetch_line(std::ptr::from_ref(slot).cast());
            }
        }
        for &id in roots {
            let Some(slot) = self.slot(id) else { continue };
            let s = slot.lock();
            if let Some(d) = &s.data {
                prefetch_line(data_at(d));
            }
            if let Some(c) = &s.xmin {
                prefetch_line(Arc::as_ptr(c).cast());
            }
            if let Some(c) = &s.xmax {
                prefetch_line(Arc::as_ptr(c).cast());
            }
        }
    }

    /// Reads the version in slot `id` if `snap` sees it (no chain is followed).
    pub fn read<T>(&self, id: RowId, snap: &Snapshot, f: impl FnOnce(&R) -> T) -> Option<T> {
        let slot = self.slot(id)?.lock();
        (slot.is_tuple() && visible(&slot, snap)).then(|| f(slot.data()))
    }

    /// Reads the version of the chain rooted at `root` that `snap` sees, walking redirects and
    /// HOT links (an index entry points at a root). Returns its slot and `f`'s result.
    pub fn fetch<T>(
        &self,
        root: RowId,
        snap: &Snapshot,
        f: impl FnOnce(RowId, &R) -> T,
    ) -> Option<(RowId, T)> {
        let mut id = root;
        // A chain is finite: each link points at a version written later; bound it anyway.
        for _ in 0..1_000_000 {
            let slot = self.slot(id)?.lock();
            match slot.state() {
                State::Redirect(n) | State::Free(n) => {
                    if n == NONE {
                        return None;
                    }
                    id = n;
                }
                State::Tuple => {
                    let t = &*slot;
                    if visible(t, snap) {
                        return Some((id, f(id, t.data())));
                    }
                    if t.flags() & HOT_UPDATED == 0 || t.next() == NONE {
                        return None;
                    }
                    id = t.next();
                }
            }
        }
        None
    }

    /// Visits, in slot order from `from`, the versions `snap` sees among at most `max` slots;
    /// `f` returns false to stop early. Returns where to go on, or None at the end.
    pub fn scan(
        &self,
        from: RowId,
        max: usize,
        snap: &Snapshot,
        mut f: impl FnMut(RowId, &R) -> bool,
    ) -> Option<RowId> {
        let end = self.len();
        let mut id = from;
        let stop = from.saturating_add(max as RowId).min(end);
        while id < stop {
            if let Some(slot) = self.slot(id) {
                let slot = slot.lock();
                if slot.is_tuple() && visible(&slot, snap) && !f(id, slot.data()) {
                    return Some(id + 1);
                }
            }
            id += 1;
        }
        (id < end).then_some(id)
    }

    /// For a unique check: whether the chain rooted at `root` holds a version that is live or
    /// may become live, whoever's snapshot. `same_key` tells whether a version has the key being
    /// inserted (a chain may have moved on to another key). PostgreSQL's "dirty" snapshot.
    pub fn probe(&self, root: RowId, me: &TxnCell, same_key: impl Fn(&R) -> bool) -> Probe {
        let mut id = root;
        for _ in 0..1_000_000 {
            let Some(slot) = self.slot(id) else {
                return Probe::Dead;
            };
            let slot = slot.lock();
            let t = match slot.state() {
                State::Redirect(n) | State::Free(n) if n != NONE => {
                    id = n;
                    continue;
                }
                State::Tuple => &*slot,
                _ => return Probe::Dead,
            };
            // A commit no snapshot sees yet is waited for (`txn` invariant 7).
            let creator = t
                .xmin
                .as_ref()
                .map(|x| (x.settled_status(), x.top() == me.top()));
            let alive_for_now = match creator {
                Some((Status::Aborted, _)) => false,
                Some((Status::InProgress, false)) => {
                    if !same_key(t.data()) {
                        false
                    } else {
                        return Probe::Wait(t.xmin.clone().expect("creator"));
                    }
                }
                _ => true,
            };
            if alive_for_now {
                let deleter = match &t.xmax {
                    Some(x) if t.flags() & LOCK_ONLY == 0 => {
                        Some((x.settled_status(), x.top() == me.top()))
                    }
                    _ => None,
                };
                match deleter {
                    None | Some((Status::Aborted, _)) => {
                        return if same_key(t.data()) {
                            Probe::Live(id)
                        } else {
                            Probe::Dead
                        };
                    }
                    Some((Status::InProgress, false)) if same_key(t.data()) => {
                        return Probe::Wait(t.xmax.clone().expect("deleter"));
                    }
                    // Deleted by a commit or by ourselves: look further along a HOT chain.
                    _ => {}
                }
            }
            if t.flags() & HOT_UPDATED == 0 || t.next() == NONE {
                return Probe::Dead;
            }
            id = t.next();
        }
        Probe::Dead
    }

    /// Visits every chain root with the newest version of its HOT chain that was not rolled
    /// back (CREATE INDEX: an index entry points at the root and carries the key of the newest
    /// version). `f` runs with that version's slot locked: it must not call back into the heap.
    pub fn for_each_root(&self, f: impl FnMut(RowId, &R)) {
        self.for_each_root_in(0..self.len(), f)
    }

    /// [`Self::for_each_root`] over the roots in `slots` (a part of a parallel scan).
    pub fn for_each_root_in(&self, slots: std::ops::Range<RowId>, mut f: impl FnMut(RowId, &R)) {
        for root in slots {
            let Some(slot) = self.slot(root) else {
                continue;
            };
            let mut id = {
                let s = slot.lock();
                match s.state() {
                    State::Tuple if s.flags() & HEAP_ONLY != 0 => continue,
                    // Most roots have no newer version: read under the one lock taken.
                    State::Tuple if s.flags() & HOT_UPDATED == 0 || s.next() == NONE => {
                        if s.xmin
                            .as_ref()
                            .is_none_or(|x| x.status() != Status::Aborted)
                        {
                            f(root, s.data());
                        }
                        continue;
                    }
                    State::Tuple => root,
                    State::Redirect(n) => n,
                    State::Free(_) => continue,
                }
            };
            let mut newest = None;
            for _ in 0..1_000_000 {
                let Some(s) = self.slot(id) else { break };
                let s = s.lock();
                if !s.is_tuple() {
                    break;
                }
                let t = &*s;
                if t.xmin
                    .as_ref()
                    .is_none_or(|x| x.status() != Status::Aborted)
                {
                    newest = Some(id);
                }
                if t.flags() & HOT_UPDATED == 0 || t.next() == NONE {
                    break;
                }
                id = t.next();
            }
            if let Some(n) = newest.and_then(|n| self.slot(n)) {
                let t = n.lock();
                if t.is_tuple() {
                    f(root, t.data());
                }
            }
        }
    }

    /// Reads the newest committed-or-own version at `id` for a READ COMMITTED re-check,
    /// whatever the snapshot (PostgreSQL's EvalPlanQual reads it the same way).
    pub fn read_latest<T>(&self, id: RowId, f: impl FnOnce(&R) -> T) -> Option<T> {
        let slot = self.slot(id)?.lock();
        if !slot.is_tuple() {
            return None;
        }
        match slot.xmin.as_ref().map(|x| x.status()) {
            Some(Status::Aborted) => None,
            _ => Some(f(slot.data())),
        }
    }

    /// The header of the version in slot `id` (the system columns xmin, xmax, cmin, cmax),
    /// None if the slot holds no version. Read as it is now, as PostgreSQL reads a tuple's
    /// header: `xmax` is whoever last deleted, updated or locked the version (0: nobody, or
    /// an aborted one since cleared by vacuum).
    pub fn header(&self, id: RowId) -> Option<Header> {
        let slot = self.slot(id)?.lock();
        if !slot.is_tuple() {
            return None;
        }
        let frozen = slot.flags() & FROZEN != 0;
        let (xmin, cmin) = match &slot.xmin {
            Some(x) => (x.xid(), slot.cmin),
            None if frozen => (slot.cmin as u64, 0),
            None => (crate::txn::FROZEN_XID, 0),
        };
        Some(Header {
            xmin,
            xmax: slot.xmax.as_ref().map_or(0, |x| x.xid()),
            cmin,
            cmax: if slot.xmax.is_some() { slot.cmax } else { cmin },
        })
    }

    /// The slot of the version that replaced the one in slot `id` (its update link), if any.
    pub fn next_version(&self, id: RowId) -> Option<RowId> {
        let slot = self.slot(id)?.lock();
        (slot.is_tuple() && slot.next() != NONE).then(|| slot.next())
    }

    /// Checks whether `cell` may change the version in slot `id` at strength `mode`, and if so
    /// marks it changed (`lock_only`: locked, as SELECT FOR UPDATE / SHARE does). Called with
    /// the slot locked. See `storage::lock` for the strengths and where holders are kept.
    fn claim(
        t: &mut Tuple<R>,
        snap: Option<&Snapshot>,
        cell: &Arc<TxnCell>,
        cid: Cid,
        mode: LockMode,
        lock_only: bool,
    ) -> Result<(), Change> {
        debug_assert!(lock_only || !mode.shared(), "a change is exclusive");
        let created = match snap {
            Some(snap) => created_visible(t, snap),
            // The newest version, whatever the snapshot: its writer committed, or is us. A
            // commit no snapshot sees yet is waited for (`txn` invariant 7).
            // A commit not yet durable counts for a writer that may follow it (`txn`
            // invariant 8).
            None => match &t.xmin {
                None => true,
                Some(x) => match (x.status(), x.writer_status(cell)) {
                    (_, Status::Committed(_)) => true,
                    (Status::Committed(_), _) => return Err(Change::Wait(x.clone())),
                    (Status::InProgress, _) => x.top() == cell.top(),
                    (Status::Aborted, _) => false,
                },
            },
        };
        if !created {
            return Err(Change::Invisible);
        }
        if let Some(x) = &t.xmax {
            let own = x.top() == cell.top();
            let held = if t.flags() & KEY_UPDATE != 0 {
                LockMode::Update
            } else {
                LockMode::NoKeyUpdate
            };
            match x.writer_status(cell) {
                Status::Aborted => {}
                Status::InProgress if own => {
                    if t.flags() & LOCK_ONLY == 0 {
                        // Deleted or updated by this transaction: by this command (skipped),
                        // or by an earlier one (then the snapshot would not have shown it).
                        return Err(if t.cmax >= cid {
                            Change::SelfChanged
                        } else {
                            Change::Invisible
                        });
                    }
                    if lock_only && held >= mode {
                        return Ok(()); // already locked by us, at least as strongly
                    }
                }
                // A lock-only holder that does not conflict (NO KEY UPDATE against KEY SHARE)
                // stays; an updater still running is waited for whatever is asked (PostgreSQL
                // would let KEY SHARE lock a version under a non-key update: a difference in
                // concurrency only).
                Status::InProgress if t.flags() & LOCK_ONLY != 0 && !mode.conflicts(held) => {}
                Status::InProgress => return Err(Change::Wait(x.clone())),
                Status::Committed(_) if t.flags() & LOCK_ONLY != 0 => {}
                Status::Committed(_) => {
                    return Err(Change::Concurrent((t.next() != NONE).then_some(t.next())));
                }
            }
        }
        if let Some(list) = &t.lockers {
            if let Some(holder) = lock::conflicting(list, cell, mode) {
                return Err(Change::Wait(holder));
            }
        }
        if mode.shared() {
            lock::add(t.lockers.get_or_insert_with(Box::default), cell, mode);
            return Ok(());
        }
        if let Some(list) = &mut t.lockers {
            lock::prune(list);
            if list.is_empty() {
                t.lockers = None;
            }
        }
        t.xmax = Some(cell.clone());
        t.cmax = cid;
        let mut f = t.flags() & !(LOCK_ONLY | KEY_UPDATE);
        if lock_only {
            f |= LOCK_ONLY;
        }
        if mode == LockMode::Update {
            f |= KEY_UPDATE;
        }
        t.set_flags(f);
        Ok(())
    }

    /// DELETE (or, with `lock_only`, SELECT FOR UPDATE) of the version in slot `id`. `snap`
    /// must see the version; None accepts any committed version (READ COMMITTED's re-check of
    /// a row updated since the snapshot, as PostgreSQL's EvalPlanQual does).
    pub fn delete(
        &self,
        id: RowId,
        snap: Option<&Snapshot>,
        cell: &Arc<TxnCell>,
        cid: Cid,
        lock_only: bool,
    ) -> Change {
        self.change(id, snap, cell, cid, LockMode::Update, lock_only)
    }

    /// A row lock of strength `mode` on the version in slot `id` (SELECT FOR ... and foreign
    /// key checks); `snap` as for [`Heap::delete`].
    pub fn lock(
        &self,
        id: RowId,
        snap: Option<&Snapshot>,
        cell: &Arc<TxnCell>,
        cid: Cid,
        mode: LockMode,
    ) -> Change {
        self.change(id, snap, cell, cid, mode, true)
    }

    fn change(
        &self,
        id: RowId,
        snap: Option<&Snapshot>,
        cell: &Arc<TxnCell>,
        cid: Cid,
        mode: LockMode,
        lock_only: bool,
    ) -> Change {
        let Some(slot) = self.slot(id) else {
            return Change::Invisible;
        };
        let mut slot = slot.lock();
        if !slot.is_tuple() {
            return Change::Invisible;
        }
        let t = &mut *slot;
        match Self::claim(t, snap, cell, cid, mode, lock_only) {
            Ok(()) => Change::Done(id),
            Err(c) => c,
        }
    }

    /// UPDATE of the version in slot `id` to `data`, changing a key column (UPDATE strength).
    /// `hot`: no indexed column changed, so the new version is reached through the old one's
    /// chain and needs no index entries. On anything but `Done`, `data` is given back.
    pub fn update(
        &self,
        id: RowId,
        snap: Option<&Snapshot>,
        cell: &Arc<TxnCell>,
        cid: Cid,
        data: R,
        hot: bool,
    ) -> Result<RowId, (Change, R)> {
        self.update_with(id, snap, cell, cid, data, hot, LockMode::Update)
    }

    /// [`Heap::update`] at strength `mode`: NO KEY UPDATE when no key column changes, which
    /// KEY SHARE holders do not block; they then hold the new version too.
    #[allow(clippy::too_many_arguments)]
    pub fn update_with(
        &self,
        id: RowId,
        snap: Option<&Snapshot>,
        cell: &Arc<TxnCell>,
        cid: Cid,
        data: R,
        hot: bool,
        mode: LockMode,
    ) -> Result<RowId, (Change, R)> {
        debug_assert!(!mode.shared());
        let Some(slot) = self.slot(id) else {
            return Err((Change::Invisible, data));
        };
        let mut guard = slot.lock();
        if !guard.is_tuple() {
            return Err((Change::Invisible, data));
        }
        let t = &mut *guard;
        if let Err(c) = Self::claim(t, snap, cell, cid, mode, false) {
            return Err((c, data));
        }
        // Live KEY SHARE holders of others (claim pruned the ended ones) follow the row.
        let carried = t.lockers.as_ref().and_then(|l| {
            let kept: Lockers = l
                .iter()
                .filter(|(c, _)| c.top() != cell.top())
                .cloned()
                .collect();
            (!kept.is_empty()).then(|| Box::new(kept))
        });
        // The new version is written while the old slot is locked, so nobody sees the old
        // version updated without its link. The push takes no slot lock.
        let new = self.put(data, cell, cid, if hot { HEAP_ONLY } else { 0 }, carried);
        t.set_next(new);
        if hot {
            t.set_flags(t.flags() | HOT_UPDATED);
        }
        Ok(new)
    }

    /// Reclaims versions dead for every snapshot at or above `horizon` (from
    /// `TxnManager::horizon`) and freezes old committed ones. `index_gone(data, root)` is called
    /// for each root whose chain died entirely, before its slot is freed, so that the caller
    /// removes the index entries that point at it; `released_at` (the watermark now) stamps the
    /// freed slots, which are reused once a later vacuum's horizon passes it.
    pub fn vacuum(
        &self,
        horizon: Csn,
        released_at: Csn,
        mut index_gone: impl FnMut(&R, RowId),
    ) -> VacuumStats {
        let mut stats = VacuumStats::default();
        // Slots released by earlier passes become reusable once the horizon passes their stamp.
        self.reusable_below.fetch_max(horizon, Ordering::SeqCst);
        let mut freed = Vec::new();
        for root in 0..self.len() {
            let Some(slot) = self.slot(root) else {
                continue;
            };
            // Only roots start chains: a redirect, or a version that is not heap-only.
            let start = {
                let mut s = slot.lock();
                match s.state() {
                    State::Tuple if s.flags() & HEAP_ONLY != 0 => continue,
                    State::Tuple => {
                        let t = &mut *s;
                        if !dead(t, horizon) {
                            stats.frozen += Self::freeze(t, horizon) as u64;
                            continue;
                        }
                        if t.flags() & HOT_UPDATED != 0 && t.next() != NONE {
                            t.next()
                        } else {
                            // Deleted, or updated with new index entries: the chain ends here,
                            // and the freed slot leads nowhere (invariant 1).
                            index_gone(t.data(), root);
                            *s = Slot::empty(FREE, NONE);
                            freed.push(root);
                            stats.removed += 1;
                            continue;
                        }
                    }
                    State::Redirect(n) => n,
                    State::Free(_) => continue,
                }
            };
            // Walk the HOT chain from `start` to the first version still needed.
            let mut members = Vec::new();
            let mut id = start;
            let mut live = None;
            while id != NONE {
                let Some(s) = self.slot(id) else { break };
                let s = s.lock();
                if !s.is_tuple() {
                    break;
                }
                let t = &*s;
                if !dead(t, horizon) {
                    live = Some(id);
                    break;
                }
                members.push(id);
                if t.flags() & HOT_UPDATED == 0 {
                    // The chain's last version died without a HOT successor: the root's index
                    // entries go with it.
                    index_gone(t.data(), root);
                    break;
                }
                id = t.next();
            }
            {
                let mut s = slot.lock();
                let was_tuple = s.is_tuple();
                match live {
                    Some(l) => {
                        let changed = !matches!(s.state(), State::Redirect(n) if n == l);
                        *s = Slot::empty(REDIRECT, l);
                        stats.redirected += changed as u64;
                    }
                    None => {
                        *s = Slot::empty(FREE, NONE);
                        freed.push(root);
                    }
                }
                stats.removed += was_tuple as u64;
            }
            for m in members {
                if let Some(s) = self.slot(m) {
                    let mut s = s.lock();
                    if s.is_tuple() {
                        // Invariant 1: only a HOT link is kept for readers walking through.
                        let next = if s.flags() & HOT_UPDATED != 0 {
                            s.next()
                        } else {
                            NONE
                        };
                        *s = Slot::empty(FREE, next);
                        freed.push(m);
                        stats.removed += 1;
                    }
                }
            }
        }
        if !freed.is_empty() {
            // Stamps only grow, so the queue stays ordered: `put` takes from the oldest end.
            let mut free = self.free.lock();
            free.extend(freed.into_iter().map(|id| (released_at, id)));
            self.has_free.store(true, Ordering::Relaxed);
        }
        stats
    }

    /// Drops references to transactions every snapshot agrees on. Returns whether it froze.
    fn freeze(t: &mut Tuple<R>, horizon: Csn) -> bool {
        let mut did = false;
        if let Some(x) = &t.xmin {
            if matches!(x.status(), Status::Committed(c) if c < horizon) {
                t.cmin = x.xid() as Cid;
                t.xmin = None;
                t.set_flags(t.flags() | FROZEN);
                did = true;
            }
        }
        if let Some(x) = &t.xmax {
            let clear = match x.status() {
                Status::Aborted => true,
                Status::Committed(_) => t.flags() & LOCK_ONLY != 0,
                Status::InProgress => false,
            };
            if clear {
                t.xmax = None;
                t.set_flags(t.flags() & !(LOCK_ONLY | KEY_UPDATE));
            }
        }
        if let Some(list) = &mut t.lockers {
            lock::prune(list);
            if list.is_empty() {
                t.lockers = None;
            }
        }
        did
    }
}

/// A prefetch of the cache line at `p` (a no-op off x86-64).
#[inline(always)]
fn prefetch_line(p: *const u8) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch is a hint: it never faults, whatever `p` is, and changes nothing the
    // program can observe.
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>(p.cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

#[cfg(test)]
mod layout {
    /// The header a row version pays: 48 bytes with a thin data pointer (see `Slot`; 8 of them
    /// for the pointer to shared row lockers).
    #[test]
    fn slot_is_small() {
        assert_eq!(std::mem::size_of::<super::Slot<Box<u64>>>(), 48);
    }

    #[test]
    fn link_packs_next_and_flags() {
        let mut s = super::Slot::<Box<u64>>::empty(super::FREE, super::NONE);
        assert_eq!(s.next(), super::NONE);
        assert_eq!(s.flags(), super::FREE);
        s.set_next(12345);
        s.set_flags(super::HOT_UPDATED | super::LOCK_ONLY);
        assert_eq!(
            (s.next(), s.flags()),
            (12345, super::HOT_UPDATED | super::LOCK_ONLY)
        );
        s.set_next(super::NONE);
        assert_eq!(
            (s.next(), s.flags()),
            (super::NONE, super::HOT_UPDATED | super::LOCK_ONLY)
        );
    }
}
