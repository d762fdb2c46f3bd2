//! LISTEN/NOTIFY: the notification hub shared by all sessions.
//!
//! # What PostgreSQL does, and what is different here
//!
//! PostgreSQL appends every committed notification to one shared queue (an SLRU); every listener
//! reads the whole queue and skips what it does not listen to. Notifying transactions serialize on
//! a heavyweight lock held until the end of the transaction so that entries are in commit order.
//! threadgres keeps PostgreSQL's visible behaviour (see `shared/spec/notify.md`) with a design
//! whose costs do not grow with channels, listeners or idle sessions:
//!
//! * **Registry.** A map from (database, channel) to the listeners of that channel, split into
//!   [`PARTITIONS`] independently locked partitions. A partition's value is an immutable
//!   `Arc<[Arc<Listener>]>`: LISTEN/UNLISTEN replace it (copy on write, under the partition lock),
//!   a notifier clones the `Arc` and iterates without any lock. LISTEN/UNLISTEN on channels in
//!   different partitions never contend.
//! * **Resolved when queued, published at commit.** A NOTIFY looks its channel up when it runs
//!   and files the note in the transaction's [`Outbox`] under each listener of the channel. The
//!   commit then has little left to do: the registry version check of invariant 6 and one inbox
//!   entry per listener reached, however many notes the transaction holds (a wide NOTIFY of
//!   10,000 channels commits in microseconds). If the registry changed in between, the commit
//!   resolves everything again, which costs what resolving at NOTIFY time would have.
//! * **Inboxes, not a shared queue.** Each listening session has a [`Listener`] with its own inbox.
//!   A committing transaction pushes one [`Delivery`] `(seq, Arc<Batch>, which notes)` into the
//!   inbox of each listener it reaches: cost O(listeners reached) at commit, O(notes +
//!   deliveries) in all; the transaction's notes are stored once, in one buffer, shared by every
//!   inbox. Sessions that listen to other channels, and idle sessions, are never touched.
//! * **Commit order without a commit lock.** A notifying commit takes a sequence number with one
//!   atomic add on `next_seq`; that number is its position in the commit order. Pushing to
//!   inboxes then happens in parallel with other committers. A listener may only deliver entries
//!   below the *watermark*, the first sequence number whose publication has not finished; it sorts
//!   what it takes by sequence number. Every committer marks its slot in a ring when it is done
//!   and advances the watermark over finished slots with a compare-and-swap; whoever advances it
//!   over a slot performs that slot's deferred wake-ups. No lock is held across a commit, and a
//!   flush to durable storage can sit before [`Hub::publish`] without ordering anything.
//! * **Wake-ups.** A listener is woken at most once however many entries are pending for it:
//!   `wakeup_pending` is set by the first waker and cleared by the listener when it starts
//!   reading.
//!
//! # Invariants
//!
//! 1. `watermark <= next_seq`; every sequence number below the watermark is fully published: all
//!    its inbox pushes happened before the watermark passed it.
//! 2. An inbox entry with `seq < watermark` (read after the listener cleared `wakeup_pending`) can
//!    be delivered: no entry with a smaller sequence number can arrive in that inbox later.
//! 3. After a listener's entry with sequence `s` is pushed, the listener is woken after the
//!    watermark passes `s` (the wake is deferred to whoever advances the watermark over `s`).
//! 4. A listener registered for a channel before the notifier reserved its sequence number gets
//!    the entry; a registration records `listen_seq = next_seq` *after* inserting itself, and the
//!    session ignores entries for that channel below `listen_seq`, so each listener receives
//!    exactly the notifications committed after an instant inside its LISTEN's commit.
//! 5. `queued_bytes` is the size of all batches still referenced by some inbox or session (or
//!    being published), plus 16 bytes per note still in an inbox; a note is counted once however
//!    many inboxes hold it.
//! 6. A publisher uses the listener sets its outbox resolved before the commit only if no
//!    partition it read changed version by the time it has reserved its sequence number (the
//!    version is bumped under the partition lock by every registration change; both the bump
//!    and the check are SeqCst, as are `listen`'s and `publish`'s accesses to `next_seq`).
//!    So a registration either is in the resolved sets, or read `next_seq` after the
//!    reservation and ignores this commit by invariant 4. The same argument lets a session skip
//!    the per-note channel check for entries at or above the sequence number it read after its
//!    own last registration change.
//!
//! # Who touches what, and lock order
//!
//! Registry partitions: written by LISTEN/UNLISTEN commits and session exit, read by NOTIFY and
//! publishers. Outboxes: private to their transaction.
//! Inboxes: pushed by publishers, drained by their own session only. Ring slots: written by the
//! committer that owns the sequence number, taken by the thread that advances the watermark.
//! Locks are never nested: a partition lock, an inbox lock and a slot lock are each taken alone and
//! held for a few instructions (a copy of a listener array at most).
//!
//! # Bounds
//!
//! `max_notify_queue_size` bytes of pending notifications (PostgreSQL's default, 8 GiB). Each is
//! counted as 16 bytes of header plus channel and payload plus 16 bytes per inbox holding it. An
//! outbox is bounded by the same limit (checked at commit) and by the transaction's own
//! statements; a session sends a long run of notifications in 64 KiB chunks. When
//! a commit would pass the bound it fails with ERROR 54000 `too many notifications in the NOTIFY
//! queue` and is rolled back; at 50% full it warns (at most once per 5 s for the whole server),
//! naming a session that holds back the oldest pending event. The ring has one slot per possible
//! in-flight commit (a power of two above `max_connections`), so it cannot wrap.

//! # Observability
//!
//! `pg_stat_notify` shows notifications sent and delivered, notifying commits, queue bytes and
//! usage, and the number of channels. A listener whose entries are held back behind an earlier,
//! still-publishing commit shows wait event `IPC` / `NotifyCommitOrder` in pg_stat_activity;
//! nothing else in the notification path waits.

#[cfg(all(test, feature = "shuttle"))]
mod model;

use rustc_hash::FxHashMap;

use crate::error::{code, PgError, PgResult};
use crate::sync::{Arc, AtomicBool, AtomicU64, Mutex, Ordering};

/// Number of independently locked registry partitions.
pub const PARTITIONS: usize = 256;

/// Largest channel name in bytes (NAMEDATALEN - 1).
pub const MAX_CHANNEL_BYTES: usize = 63;
/// Largest payload in bytes (PostgreSQL's NOTIFY_PAYLOAD_MAX_LENGTH - 1).
pub const MAX_PAYLOAD_BYTES: usize = 7999;

const EVENT_OVERHEAD: u64 = 16;
const DELIVERY_OVERHEAD: u64 = 16;

/// How a hub wakes the session that owns a listener.
pub trait Wake: Send + Sync {
    fn wake(&self);
}

/// One notification: a channel and its payload.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Note<'a> {
    pub channel: &'a str,
    pub payload: &'a str,
}

/// Where a note's strings lie in its transaction's text: the channel at `start`, the payload
/// right after it. One buffer per transaction instead of two strings per note keeps queueing
/// free of per-note allocations and lets delivery read the notes sequentially.
#[derive(Debug, Clone, Copy)]
struct NoteRef {
    start: usize,
    channel_len: u16,
    payload_len: u16,
}

impl NoteRef {
    fn get(self, text: &str) -> Note<'_> {
        let mid = self.start + self.channel_len as usize;
        Note {
            channel: &text[self.start..mid],
            payload: &text[mid..mid + self.payload_len as usize],
        }
    }

    fn size(self) -> u64 {
        EVENT_OVERHEAD + self.channel_len as u64 + self.payload_len as u64
    }
}

/// The notifications of one committed transaction, stored once and shared by every inbox that
/// holds any of them. Its bytes stay counted in the queue until the last inbox lets go of it.
#[derive(Debug)]
pub struct Batch {
    pub db: u32,
    pub sender_pid: i32,
    text: String,
    notes: Vec<NoteRef>,
    size: u64,
    account: Arc<AtomicU64>,
}

impl Drop for Batch {
    fn drop(&mut self) {
        self.account.fetch_sub(self.size, Ordering::Relaxed);
    }
}

/// Which notes of a batch one listener receives, in issue order. A contiguous run (the common
/// shapes: a one-notification transaction, or a wide one whose listener hears every channel)
/// needs no allocation.
#[derive(Debug, Clone)]
enum Items {
    Range(u32, u32),
    List(Vec<u32>),
}

impl Items {
    fn push(&mut self, i: u32) {
        match self {
            Items::Range(_, end) if *end == i => *end += 1,
            Items::Range(start, end) => {
                let mut v: Vec<u32> = (*start..*end).collect();
                v.push(i);
                *self = Items::List(v);
            }
            Items::List(v) => v.push(i),
        }
    }

    fn len(&self) -> usize {
        match self {
            Items::Range(s, e) => (e - s) as usize,
            Items::List(v) => v.len(),
        }
    }

    /// Keeps only the notes below `len` (a rollback to a savepoint).
    fn truncate(&mut self, len: u32) {
        match self {
            Items::Range(s, e) => {
                *e = (*e).min(len);
                *s = (*s).min(*e);
            }
            Items::List(v) => {
                let keep = v.partition_point(|&i| i < len);
                v.truncate(keep);
            }
        }
    }

    fn get(&self, k: usize) -> u32 {
        match self {
            Items::Range(s, _) => s + k as u32,
            Items::List(v) => v[k],
        }
    }
}

/// An inbox entry: the notes of one committed transaction that this listener receives, and the
/// transaction's position in the commit order.
#[derive(Debug)]
pub struct Delivery {
    pub seq: u64,
    batch: Arc<Batch>,
    items: Items,
}

impl Delivery {
    pub fn sender_pid(&self) -> i32 {
        self.batch.sender_pid
    }

    /// The notes, in the order the transaction issued them.
    pub fn notes(&self) -> impl Iterator<Item = Note<'_>> + '_ {
        let b = &*self.batch;
        (0..self.items.len()).map(move |k| b.notes[self.items.get(k) as usize].get(&b.text))
    }

    /// Number of notes.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    pub fn is_empty(&self) -> bool {
        self.items.len() == 0
    }

    /// The `k`-th note.
    pub fn note(&self, k: usize) -> Note<'_> {
        self.batch.notes[self.items.get(k) as usize].get(&self.batch.text)
    }
}

// A delivery's inbox slots are accounted when they leave the inbox (in bulk, by `drain` or
// when the listener goes away), not per entry on drop: with 1000 listeners on a channel, a
// per-entry atomic on the shared counter would be 1000 contended updates per notification.
impl Drop for Listener {
    fn drop(&mut self) {
        let inbox = self.inbox.lock();
        if let Some(first) = inbox.first() {
            let slots: u64 = inbox.iter().map(|d| d.len() as u64).sum();
            first
                .batch
                .account
                .fetch_sub(slots * DELIVERY_OVERHEAD, Ordering::Relaxed);
        }
    }
}

/// The hub-side state of one listening session.
pub struct Listener {
    pub pid: i32,
    inbox: Mutex<Vec<Delivery>>,
    wakeup_pending: AtomicBool,
    waker: Arc<dyn Wake>,
}

impl Listener {
    pub fn new(pid: i32, waker: Arc<dyn Wake>) -> Arc<Listener> {
        Arc::new(Listener {
            pid,
            inbox: Mutex::new(Vec::new()),
            wakeup_pending: AtomicBool::new(false),
            waker,
        })
    }

    /// Wakes the session unless a wake-up is already pending.
    fn wake(&self) {
        if !self.wakeup_pending.swap(true, Ordering::SeqCst) {
            self.waker.wake();
        }
    }

    /// Number of notifications waiting in the inbox (for tests and statistics).
    pub fn pending(&self) -> usize {
        self.inbox.lock().iter().map(|d| d.items.len()).sum()
    }

    /// Smallest sequence number waiting in this inbox.
    fn oldest(&self) -> Option<u64> {
        self.inbox.lock().iter().map(|d| d.seq).min()
    }
}

type ListenerSet = Arc<[Arc<Listener>]>;

/// Channel name → the listener set of each database using that name (almost always one).
/// Keyed by the name alone so that lookups borrow the `&str` without allocating; FxHash because
/// SipHash's cost shows on the NOTIFY path and a partition holds few names (a client choosing
/// colliding names only slows its own LISTENs).
type ChannelMap = FxHashMap<Box<str>, Vec<(u32, ListenerSet)>>;

/// One registry partition. `version` changes (under the lock) whenever a listener set in it
/// changes; a transaction that resolved its notifications earlier compares it at commit.
/// Aligned to a cache line so that LISTENs on different partitions do not share one.
#[repr(align(64))]
struct Partition {
    map: Mutex<ChannelMap>,
    version: AtomicU64,
}

struct Slot {
    /// `seq + 1` once the owner of `seq` finished publishing.
    done: AtomicU64,
    wakes: Mutex<Vec<Arc<Listener>>>,
}

/// Counters visible through SQL (`pg_stat_notify`).
#[derive(Debug, Clone, Copy, Default)]
pub struct Stats {
    pub sent: u64,
    pub delivered: u64,
    pub commits: u64,
    pub queue_bytes: u64,
    pub max_bytes: u64,
    pub channels: u64,
}

/// The notification hub: one per server instance.
pub struct Hub {
    partitions: Box<[Partition]>,
    next_seq: AtomicU64,
    watermark: AtomicU64,
    ring: Box<[Slot]>,
    queued_bytes: Arc<AtomicU64>,
    max_bytes: u64,
    sent: AtomicU64,
    delivered: AtomicU64,
    commits: AtomicU64,
    /// Milliseconds (since the hub started) of the last "queue is N% full" warning.
    last_warning_ms: AtomicU64,
    started: std::time::Instant,
}

/// A transaction's notifications before commit, with their listeners already resolved.
///
/// Each NOTIFY looks its channel up in the registry when it is queued ([`Hub::queue`]) and
/// files the note under every listener of the channel, so the commit only has to take a
/// sequence number and hand each listener one entry. The registry may change in between; the
/// outbox remembers the version of every partition it read, and [`Hub::publish`] resolves
/// everything again if one of them moved (invariant 6). Session-private: no locks.
#[derive(Default)]
pub struct Outbox {
    db: u32,
    /// Channels and payloads of all notes, back to back.
    text: String,
    notes: Vec<NoteRef>,
    /// Hash of a note → position of its first occurrence (de-duplication without copies).
    dedup: FxHashMap<u64, u32>,
    groups: Vec<(Arc<Listener>, Items)>,
    /// Listener address → position in `groups`.
    group_of: FxHashMap<usize, u32>,
    /// Per partition, 1 + the version read when resolving (0: not read). Allocated at the first
    /// note.
    seen: Vec<u64>,
    touched: Vec<u16>,
    /// Two reads of one partition saw different versions.
    stale: bool,
    /// Bytes of the notes (as the queue counts them).
    bytes: u64,
    /// Inbox slots the groups hold.
    slots: u64,
}

impl Outbox {
    pub fn new(db: u32) -> Outbox {
        Outbox {
            db,
            ..Outbox::default()
        }
    }

    pub fn len(&self) -> usize {
        self.notes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.notes.is_empty()
    }

    /// Forgets the notes queued after the first `len` (ROLLBACK TO SAVEPOINT).
    pub fn truncate(&mut self, len: usize) {
        if len >= self.notes.len() {
            return;
        }
        self.text.truncate(self.notes[len].start);
        self.notes.truncate(len);
        self.dedup.clear();
        for (i, n) in self.notes.iter().enumerate() {
            self.dedup
                .entry(note_hash(n.get(&self.text)))
                .or_insert(i as u32);
        }
        for (_, items) in self.groups.iter_mut() {
            items.truncate(len as u32);
        }
        self.groups.retain(|(_, items)| items.len() > 0);
        self.reindex_groups();
        self.bytes = self.notes.iter().map(|n| n.size()).sum();
    }

    fn reindex_groups(&mut self) {
        self.group_of.clear();
        self.slots = 0;
        for (g, (l, items)) in self.groups.iter().enumerate() {
            self.group_of.insert(listener_key(l), g as u32);
            self.slots += items.len() as u64;
        }
    }

    /// Files note `i` under every listener of `set`.
    fn file(&mut self, i: u32, set: &[Arc<Listener>]) {
        for l in set {
            match self.group_of.entry(listener_key(l)) {
                std::collections::hash_map::Entry::Occupied(g) => {
                    self.groups[*g.get() as usize].1.push(i)
                }
                std::collections::hash_map::Entry::Vacant(v) => {
                    v.insert(self.groups.len() as u32);
                    self.groups.push((l.clone(), Items::Range(i, i + 1)));
                }
            }
        }
        self.slots += set.len() as u64;
    }

    /// Records that partition `p` was read at `version`.
    fn saw(&mut self, p: usize, version: u64) {
        if self.seen.is_empty() {
            self.seen = vec![0; PARTITIONS];
        }
        match self.seen[p] {
            0 => {
                self.seen[p] = version + 1;
                self.touched.push(p as u16);
            }
            v if v != version + 1 => self.stale = true,
            _ => {}
        }
    }
}

fn note_hash(n: Note<'_>) -> u64 {
    use std::hash::BuildHasher;
    rustc_hash::FxBuildHasher.hash_one(n)
}

fn listener_key(l: &Arc<Listener>) -> usize {
    Arc::as_ptr(l) as *const u8 as usize
}

impl Hub {
    pub fn new(max_in_flight: usize, max_bytes: u64) -> Hub {
        let slots = (max_in_flight + 1).next_power_of_two().max(64) * 2;
        Hub {
            partitions: (0..PARTITIONS)
                .map(|_| Partition {
                    map: Mutex::new(ChannelMap::default()),
                    version: AtomicU64::new(0),
                })
                .collect(),
            next_seq: AtomicU64::new(0),
            watermark: AtomicU64::new(0),
            ring: (0..slots)
                .map(|_| Slot {
                    done: AtomicU64::new(0),
                    wakes: Mutex::new(Vec::new()),
                })
                .collect(),
            queued_bytes: Arc::new(AtomicU64::new(0)),
            max_bytes,
            sent: AtomicU64::new(0),
            delivered: AtomicU64::new(0),
            commits: AtomicU64::new(0),
            last_warning_ms: AtomicU64::new(0),
            started: std::time::Instant::now(),
        }
    }

    fn partition_of(channel: &str) -> usize {
        use std::hash::{BuildHasher, Hasher};
        let mut h = rustc_hash::FxBuildHasher.build_hasher();
        h.write(channel.as_bytes());
        (h.finish() as usize) % PARTITIONS
    }

    /// The listeners of a channel and the version of its partition when read (a clone of the
    /// `Arc`; no lock is held afterwards).
    fn lookup(&self, db: u32, channel: &str) -> (usize, u64, Option<ListenerSet>) {
        let p = Self::partition_of(channel);
        let part = &self.partitions[p];
        let map = part.map.lock();
        let version = part.version.load(Ordering::SeqCst);
        let set = map
            .get(channel)
            .and_then(|dbs| dbs.iter().find(|(d, _)| *d == db))
            .map(|(_, set)| set.clone());
        (p, version, set)
    }

    /// Registers `listener` on a channel; returns the sequence number from which on it receives
    /// that channel's notifications (invariant 4).
    pub fn listen(&self, db: u32, channel: &str, listener: &Arc<Listener>) -> u64 {
        {
            let part = &self.partitions[Self::partition_of(channel)];
            let mut map = part.map.lock();
            // Looked up by `&str` first: the key is allocated only for a channel new to the map.
            let changed = match map.get_mut(channel) {
                Some(dbs) => match dbs.iter_mut().find(|(d, _)| *d == db) {
                    Some((_, set)) => {
                        let new = !set.iter().any(|l| Arc::ptr_eq(l, listener));
                        if new {
                            // An exact-size iterator: the new set is allocated once.
                            *set = set
                                .iter()
                                .cloned()
                                .chain(std::iter::once(listener.clone()))
                                .collect();
                        }
                        new
                    }
                    None => {
                        dbs.push((db, Arc::from([listener.clone()])));
                        true
                    }
                },
                None => {
                    map.insert(channel.into(), vec![(db, Arc::from([listener.clone()]))]);
                    true
                }
            };
            if changed {
                part.version.fetch_add(1, Ordering::SeqCst);
            }
        }
        self.next_seq.load(Ordering::SeqCst)
    }

    /// Removes `listener` from a channel.
    pub fn unlisten(&self, db: u32, channel: &str, listener: &Arc<Listener>) {
        let part = &self.partitions[Self::partition_of(channel)];
        let mut map = part.map.lock();
        let Some(dbs) = map.get_mut(channel) else {
            return;
        };
        if let Some(i) = dbs.iter().position(|(d, _)| *d == db) {
            let set = &dbs[i].1;
            if let Some(at) = set.iter().position(|l| Arc::ptr_eq(l, listener)) {
                if set.len() == 1 {
                    dbs.swap_remove(i);
                } else {
                    dbs[i].1 = set[..at].iter().chain(&set[at + 1..]).cloned().collect();
                }
                part.version.fetch_add(1, Ordering::SeqCst);
            }
        }
        if dbs.is_empty() {
            map.remove(channel);
        }
    }

    /// The next sequence number to be taken (read after a registration change, it bounds the
    /// commits that may have resolved their listeners before the change).
    pub fn current_seq(&self) -> u64 {
        self.next_seq.load(Ordering::SeqCst)
    }

    /// Number of listeners on a channel.
    pub fn listeners(&self, db: u32, channel: &str) -> usize {
        self.lookup(db, channel).2.map_or(0, |s| s.len())
    }

    /// Queues a notification in a transaction's outbox unless an identical (channel, payload)
    /// is already there (PostgreSQL's de-duplication; the first occurrence keeps its place), and
    /// files it under the channel's current listeners. Returns whether it was added. The
    /// caller has checked the lengths ([`check_notify_args`]).
    ///
    /// An outbox larger than the whole queue could never commit, so it fails here, with the
    /// error its commit would raise, instead of growing without bound.
    pub fn queue(&self, out: &mut Outbox, channel: &str, payload: &str) -> PgResult<bool> {
        assert!(channel.len() <= MAX_CHANNEL_BYTES && payload.len() <= MAX_PAYLOAD_BYTES);
        let note = Note { channel, payload };
        let h = note_hash(note);
        match out.dedup.get(&h) {
            Some(&i) if out.notes[i as usize].get(&out.text) == note => return Ok(false),
            // A hash collision between different notes: fall back to a scan.
            Some(_) if out.notes.iter().any(|n| n.get(&out.text) == note) => return Ok(false),
            _ => {}
        }
        let r = NoteRef {
            start: out.text.len(),
            channel_len: channel.len() as u16,
            payload_len: payload.len() as u16,
        };
        if out.bytes + r.size() > self.max_bytes {
            return Err(queue_full());
        }
        // The first note with this hash keeps the entry (a colliding one is found by the scan).
        out.dedup.entry(h).or_insert(out.notes.len() as u32);
        let (p, version, set) = self.lookup(out.db, channel);
        out.saw(p, version);
        if let Some(set) = set {
            out.file(out.notes.len() as u32, &set);
        }
        out.text.push_str(channel);
        out.text.push_str(payload);
        out.bytes += r.size();
        out.notes.push(r);
        Ok(true)
    }

    /// An outbox holding `notes` (for tests and tools that publish without a session).
    pub fn outbox(&self, db: u32, notes: &[(&str, &str)]) -> Outbox {
        let mut out = Outbox::new(db);
        for (channel, payload) in notes {
            self.queue(&mut out, channel, payload)
                .expect("notes fit into the queue");
        }
        out
    }

    /// Checks that an outbox fits into the queue; returns a warning to send when the queue is
    /// at least half full. Called before the commit point so that a full queue aborts the
    /// commit.
    pub fn check_capacity(&self, out: &Outbox) -> PgResult<Option<PgError>> {
        let need = out.bytes;
        let used = self.queued_bytes.load(Ordering::Relaxed);
        if used + need > self.max_bytes {
            return Err(queue_full());
        }
        if used * 2 >= self.max_bytes {
            let now = self.started.elapsed().as_millis() as u64 + 5000;
            let last = self.last_warning_ms.load(Ordering::Relaxed);
            if now - last >= 5000
                && self
                    .last_warning_ms
                    .compare_exchange(last, now, Ordering::Relaxed, Ordering::Relaxed)
                    .is_ok()
            {
                let pct = (used * 100 / self.max_bytes.max(1)).min(100);
                let mut w = PgError::warning(code::WARNING, format!("NOTIFY queue is {pct}% full"));
                if let Some(pid) = self.oldest_holder() {
                    w = w
                        .with_detail(format!(
                            "The server process with PID {pid} is among those with the oldest transactions."
                        ))
                        .with_hint(
                            "The NOTIFY queue cannot be emptied until that process ends its current transaction.",
                        );
                }
                return Ok(Some(w));
            }
        }
        Ok(None)
    }

    /// The listener holding the oldest undelivered entry (rare path: only when the queue is at
    /// least half full).
    fn oldest_holder(&self) -> Option<i32> {
        let mut best: Option<(u64, i32)> = None;
        for part in self.partitions.iter() {
            let sets: Vec<ListenerSet> = part
                .map
                .lock()
                .values()
                .flat_map(|dbs| dbs.iter().map(|(_, s)| s.clone()))
                .collect();
            for set in sets {
                for l in set.iter() {
                    if let Some(s) = l.oldest() {
                        if best.is_none_or(|(b, _)| s < b) {
                            best = Some((s, l.pid));
                        }
                    }
                }
            }
        }
        best.map(|(_, pid)| pid)
    }

    /// Publishes a committed transaction's notifications. This is the commit point of the
    /// notifications: the sequence number taken here orders them against every other
    /// transaction's. Costs O(listeners reached) when the registry did not change since the
    /// notes were queued, O(notes + deliveries) when it did. Returns the number of other
    /// sessions' listeners that received something.
    pub fn publish(&self, mut out: Outbox, sender_pid: i32) -> usize {
        if out.notes.is_empty() {
            return 0;
        }
        let count = out.notes.len() as u64;
        let seq = self.next_seq.fetch_add(1, Ordering::SeqCst);
        // The ring has a slot for every possible in-flight commit; this wait is a safety net.
        while seq - self.watermark.load(Ordering::SeqCst) >= self.ring.len() as u64 {
            crate::sync::yield_now();
        }
        // Invariant 6: read after the reservation, an unchanged version means every listener
        // registered before `seq` is in the groups already.
        let moved = out.stale
            || out.touched.iter().any(|&p| {
                self.partitions[p as usize].version.load(Ordering::SeqCst) + 1
                    != out.seen[p as usize]
            });
        if moved {
            out.groups.clear();
            out.group_of.clear();
            out.slots = 0;
            for i in 0..out.notes.len() {
                let (_, _, set) = self.lookup(out.db, out.notes[i].get(&out.text).channel);
                if let Some(set) = set {
                    out.file(i as u32, &set);
                }
            }
        }
        // Counted before any inbox holds it, so that consumers never release more than was
        // added.
        self.queued_bytes
            .fetch_add(out.bytes + out.slots * DELIVERY_OVERHEAD, Ordering::Relaxed);
        let batch = Arc::new(Batch {
            db: out.db,
            sender_pid,
            // The transaction's buffers move into the batch: no copy on the commit path.
            text: std::mem::take(&mut out.text),
            notes: std::mem::take(&mut out.notes),
            size: out.bytes,
            account: self.queued_bytes.clone(),
        });
        let mut wakes = Vec::with_capacity(out.groups.len());
        let mut others = 0;
        for (l, items) in out.groups.drain(..) {
            others += usize::from(l.pid != sender_pid);
            l.inbox.lock().push(Delivery {
                seq,
                batch: batch.clone(),
                items,
            });
            wakes.push(l);
        }
        self.sent.fetch_add(count, Ordering::Relaxed);
        self.commits.fetch_add(1, Ordering::Relaxed);
        self.finish(seq, wakes);
        others
    }

    /// Marks `seq` published and advances the watermark as far as finished slots allow.
    fn finish(&self, seq: u64, wakes: Vec<Arc<Listener>>) {
        let slot = &self.ring[(seq as usize) & (self.ring.len() - 1)];
        *slot.wakes.lock() = wakes;
        slot.done.store(seq + 1, Ordering::SeqCst);
        self.advance();
    }

    fn advance(&self) {
        loop {
            let w = self.watermark.load(Ordering::SeqCst);
            let slot = &self.ring[(w as usize) & (self.ring.len() - 1)];
            if slot.done.load(Ordering::SeqCst) != w + 1 {
                return;
            }
            if self
                .watermark
                .compare_exchange(w, w + 1, Ordering::SeqCst, Ordering::SeqCst)
                .is_ok()
            {
                // This thread moved the watermark over `w`: it owns the slot's wake-ups.
                let wakes = std::mem::take(&mut *slot.wakes.lock());
                for l in wakes {
                    l.wake();
                }
            }
        }
    }

    /// Takes every deliverable entry from `listener`'s inbox, in commit order. Entries not yet
    /// below the watermark stay; their publisher's slot will wake the listener again.
    pub fn drain(&self, listener: &Listener, out: &mut Vec<Delivery>) {
        listener.wakeup_pending.store(false, Ordering::SeqCst);
        let w = self.watermark.load(Ordering::SeqCst);
        let mut inbox = listener.inbox.lock();
        if inbox.is_empty() {
            return;
        }
        if !inbox.windows(2).all(|p| p[0].seq <= p[1].seq) {
            // Concurrent publishers may push out of order.
            inbox.sort_by_key(|d| d.seq);
        }
        let ready = inbox.partition_point(|d| d.seq < w);
        if ready > 0 {
            let slots: u64 = inbox[..ready].iter().map(|d| d.len() as u64).sum();
            self.queued_bytes
                .fetch_sub(slots * DELIVERY_OVERHEAD, Ordering::Relaxed);
        }
        out.extend(inbox.drain(..ready));
    }

    /// Counts deliveries actually sent to clients.
    pub fn count_delivered(&self, n: u64) {
        self.delivered.fetch_add(n, Ordering::Relaxed);
    }

    /// Fraction of the queue bound in use (pg_notification_queue_usage()).
    pub fn usage(&self) -> f64 {
        self.queued_bytes.load(Ordering::Relaxed) as f64 / self.max_bytes as f64
    }

    pub fn stats(&self) -> Stats {
        Stats {
            sent: self.sent.load(Ordering::Relaxed),
            delivered: self.delivered.load(Ordering::Relaxed),
            commits: self.commits.load(Ordering::Relaxed),
            queue_bytes: self.queued_bytes.load(Ordering::Relaxed),
            max_bytes: self.max_bytes,
            channels: self
                .partitions
                .iter()
                .map(|p| {
                    p.map
                        .lock()
                        .values()
                        .map(|dbs| dbs.len() as u64)
                        .sum::<u64>()
                })
                .sum(),
        }
    }
}

fn queue_full() -> PgError {
    PgError::new(
        code::PROGRAM_LIMIT_EXCEEDED,
        "too many notifications in the NOTIFY queue",
    )
}

/// Validates a channel name and payload as pg_notify() and NOTIFY do.
pub fn check_notify_args(channel: &str, payload: &str) -> PgResult<()> {
    if channel.is_empty() {
        return Err(PgError::new(
            code::INVALID_PARAMETER_VALUE,
            "channel name cannot be empty",
        ));
    }
    if channel.len() > MAX_CHANNEL_BYTES {
        return Err(PgError::new(
            code::INVALID_PARAMETER_VALUE,
            "channel name too long",
        ));
    }
    if payload.len() > MAX_PAYLOAD_BYTES {
        return Err(PgError::new(
            code::INVALID_PARAMETER_VALUE,
            "payload string too long",
        ));
    }
    Ok(())
}

#[cfg(all(test, not(feature = "shuttle")))]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;

    struct CountWake(AtomicUsize);
    impl Wake for CountWake {
        fn wake(&self) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    #[test]
    fn delivers_only_to_listeners_of_the_channel() {
        let hub = Hub::new(10, 1 << 20);
        let wa = Arc::new(CountWake(AtomicUsize::new(0)));
        let wb = Arc::new(CountWake(AtomicUsize::new(0)));
        let a = Listener::new(1, wa.clone());
        let b = Listener::new(2, wb.clone());
        hub.listen(0, "x", &a);
        hub.listen(0, "y", &b);
        hub.publish(hub.outbox(0, &[("x", "1"), ("x", "2")]), 9);
        assert_eq!(wa.0.load(Ordering::SeqCst), 1, "one wake for two entries");
        assert_eq!(wb.0.load(Ordering::SeqCst), 0);
        let mut out = Vec::new();
        hub.drain(&a, &mut out);
        let got: Vec<_> = out
            .iter()
            .flat_map(|d| d.notes())
            .map(|n| n.payload)
            .collect();
        assert_eq!(got, ["1", "2"]);
        drop(out);
        assert_eq!(hub.stats().queue_bytes, 0, "all bytes released");
    }

    #[test]
    fn database_local() {
        let hub = Hub::new(10, 1 << 20);
        let w = Arc::new(CountWake(AtomicUsize::new(0)));
        let a = Listener::new(1, w.clone());
        hub.listen(1, "x", &a);
        hub.publish(hub.outbox(2, &[("x", "")]), 9);
        assert_eq!(a.pending(), 0);
    }

    #[test]
    fn queue_bound() {
        let hub = Hub::new(10, 1000);
        let w = Arc::new(CountWake(AtomicUsize::new(0)));
        let a = Listener::new(1, w);
        hub.listen(0, "c", &a);
        let big = "p".repeat(480);
        assert!(hub
            .check_capacity(&hub.outbox(0, &[("c", &big)]))
            .unwrap()
            .is_none());
        hub.publish(hub.outbox(0, &[("c", &big)]), 1);
        // Over half full: a warning, once.
        let warn = hub.check_capacity(&hub.outbox(0, &[("c", "x")])).unwrap();
        assert!(warn.unwrap().message.contains("% full"));
        hub.publish(hub.outbox(0, &[("c", &big)]), 1);
        let err = hub
            .check_capacity(&hub.outbox(0, &[("c", &big)]))
            .unwrap_err();
        assert_eq!(err.code, "54000");
        let mut out = Vec::new();
        hub.drain(&a, &mut out);
        drop(out);
        assert_eq!(hub.usage(), 0.0);
    }

    #[test]
    fn outbox_deduplicates_and_rolls_back_to_a_savepoint() {
        let hub = Hub::new(10, 1 << 20);
        let w = Arc::new(CountWake(AtomicUsize::new(0)));
        let (a, b) = (Listener::new(1, w.clone()), Listener::new(2, w.clone()));
        hub.listen(0, "x", &a);
        hub.listen(0, "y", &a);
        hub.listen(0, "y", &b);
        let mut out = Outbox::new(0);
        assert!(hub.queue(&mut out, "x", "1").unwrap());
        assert!(!hub.queue(&mut out, "x", "1").unwrap(), "duplicate dropped");
        assert!(hub.queue(&mut out, "y", "2").unwrap());
        let savepoint = out.len();
        assert!(hub.queue(&mut out, "x", "3").unwrap());
        assert!(hub.queue(&mut out, "y", "4").unwrap());
        out.truncate(savepoint);
        // After the rollback, "3" may be queued again and "4" is gone.
        assert!(hub.queue(&mut out, "x", "3").unwrap());
        assert!(!hub.queue(&mut out, "x", "1").unwrap());
        hub.publish(out, 9);
        let payloads = |l: &Listener| {
            let mut got = Vec::new();
            hub.drain(l, &mut got);
            let v: Vec<String> = got
                .iter()
                .flat_map(|d| d.notes())
                .map(|n| n.payload.to_string())
                .collect();
            v
        };
        assert_eq!(payloads(&a), ["1", "2", "3"]);
        assert_eq!(payloads(&b), ["2"]);
        assert_eq!(hub.stats().queue_bytes, 0, "all bytes released");
    }

    #[test]
    fn outbox_larger_than_the_queue_fails_when_queued() {
        let hub = Hub::new(10, 100);
        let mut out = Outbox::new(0);
        let p = "p".repeat(60);
        assert!(hub.queue(&mut out, "c", &p).unwrap());
        let err = hub.queue(&mut out, "d", &p).unwrap_err();
        assert_eq!(err.code, "54000");
        assert_eq!(out.len(), 1);
    }

    #[test]
    fn commit_resolves_again_after_a_registration_change() {
        let hub = Hub::new(10, 1 << 20);
        let w = Arc::new(CountWake(AtomicUsize::new(0)));
        let (a, b) = (Listener::new(1, w.clone()), Listener::new(2, w.clone()));
        hub.listen(0, "x", &a);
        let out = hub.outbox(0, &[("x", "1")]);
        hub.unlisten(0, "x", &a);
        hub.listen(0, "x", &b);
        hub.publish(out, 9);
        assert_eq!(a.pending(), 0, "unlistened before the commit");
        assert_eq!(b.pending(), 1, "listened before the commit");
    }

    #[test]
    fn items_stay_compact_and_ordered() {
        let mut i = Items::Range(0, 1);
        i.push(1);
        assert!(matches!(i, Items::Range(0, 2)));
        i.push(5);
        assert_eq!(
            (0..i.len()).map(|k| i.get(k)).collect::<Vec<_>>(),
            [0, 1, 5]
        );
        i.truncate(2);
        assert_eq!(i.len(), 2);
        let mut r = Items::Range(3, 7);
        r.truncate(2);
        assert_eq!(r.len(), 0);
    }

    #[test]
    fn unlisten_removes_channel() {
        let hub = Hub::new(10, 1 << 20);
        let w = Arc::new(CountWake(AtomicUsize::new(0)));
        let a = Listener::new(1, w);
        hub.listen(0, "x", &a);
        assert_eq!(hub.listeners(0, "x"), 1);
        hub.unlisten(0, "x", &a);
        assert_eq!(hub.listeners(0, "x"), 0);
        assert_eq!(hub.stats().channels, 0);
    }
}
