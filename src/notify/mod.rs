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
//! * **Inboxes, not a shared queue.** Each listening session has a [`Listener`] with its own inbox.
//!   A committing transaction pushes `(seq, Arc<Event>)` into the inbox of each listener of each
//!   channel it notified: cost O(notifications + deliveries), payloads stored once (`Arc`).
//!   Sessions that listen to other channels, and idle sessions, are never touched.
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
//! 5. `queued_bytes` is the size of all events still referenced by some inbox (or being
//!    published); an event is counted once however many inboxes hold it.
//!
//! # Who touches what, and lock order
//!
//! Registry partitions: written by LISTEN/UNLISTEN commits and session exit, read by publishers.
//! Inboxes: pushed by publishers, drained by their own session only. Ring slots: written by the
//! committer that owns the sequence number, taken by the thread that advances the watermark.
//! Locks are never nested: a partition lock, an inbox lock and a slot lock are each taken alone and
//! held for a few instructions (a copy of a listener array at most).
//!
//! # Bounds
//!
//! `max_notify_queue_size` bytes of pending events (PostgreSQL's default, 8 GiB). Each event is
//! counted as 16 bytes of header plus channel and payload plus 16 bytes per inbox holding it. When
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

/// One committed notification, shared by every inbox that holds it.
#[derive(Debug)]
pub struct Event {
    pub db: u32,
    pub channel: String,
    pub payload: String,
    pub sender_pid: i32,
    size: u64,
    account: Arc<AtomicU64>,
}

impl Drop for Event {
    fn drop(&mut self) {
        self.account.fetch_sub(self.size, Ordering::Relaxed);
    }
}

/// An inbox entry: the event and its position in the commit order.
#[derive(Debug)]
pub struct Delivery {
    pub seq: u64,
    pub event: Arc<Event>,
}

// A delivery's inbox slot is accounted when it leaves the inbox (in bulk, by `drain` or when
// the listener goes away), not per entry on drop: with 1000 listeners on a channel, a per-entry
// atomic on the shared counter would be 1000 contended updates per notification.
impl Drop for Listener {
    fn drop(&mut self) {
        let inbox = self.inbox.lock();
        if let Some(first) = inbox.first() {
            first
                .event
                .account
                .fetch_sub(inbox.len() as u64 * DELIVERY_OVERHEAD, Ordering::Relaxed);
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

    /// Number of entries waiting in the inbox (for tests and statistics).
    pub fn pending(&self) -> usize {
        self.inbox.lock().len()
    }

    /// Smallest sequence number waiting in this inbox.
    fn oldest(&self) -> Option<u64> {
        self.inbox.lock().iter().map(|d| d.seq).min()
    }
}

type ListenerSet = Arc<[Arc<Listener>]>;

/// One registry partition: channel name → the listener set of each database using that name
/// (almost always one). Keyed by the name alone so that lookups borrow the `&str` without
/// allocating; FxHash because SipHash's cost shows on the commit path and a partition holds
/// few names (a client choosing colliding names only slows its own LISTENs).
type Partition = FxHashMap<Box<str>, Vec<(u32, ListenerSet)>>;

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
    partitions: Box<[Mutex<Partition>]>,
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

/// A notification queued by a transaction, before commit.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Pending {
    pub channel: String,
    pub payload: String,
}

impl Hub {
    pub fn new(max_in_flight: usize, max_bytes: u64) -> Hub {
        let slots = (max_in_flight + 1).next_power_of_two().max(64) * 2;
        Hub {
            partitions: (0..PARTITIONS)
                .map(|_| Mutex::new(Partition::default()))
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

    fn partition(&self, channel: &str) -> &Mutex<Partition> {
        use std::hash::{BuildHasher, Hasher};
        let mut h = rustc_hash::FxBuildHasher.build_hasher();
        h.write(channel.as_bytes());
        &self.partitions[(h.finish() as usize) % PARTITIONS]
    }

    /// The listeners of a channel (a clone of the `Arc`; no lock is held afterwards).
    fn lookup(&self, db: u32, channel: &str) -> Option<ListenerSet> {
        let part = self.partition(channel).lock();
        part.get(channel)?
            .iter()
            .find(|(d, _)| *d == db)
            .map(|(_, set)| set.clone())
    }

    /// Registers `listener` on a channel; returns the sequence number from which on it receives
    /// that channel's notifications (invariant 4).
    pub fn listen(&self, db: u32, channel: &str, listener: &Arc<Listener>) -> u64 {
        {
            let mut part = self.partition(channel).lock();
            let dbs = part.entry(channel.into()).or_default();
            match dbs.iter_mut().find(|(d, _)| *d == db) {
                Some((_, set)) => {
                    if !set.iter().any(|l| Arc::ptr_eq(l, listener)) {
                        let mut v: Vec<Arc<Listener>> = set.iter().cloned().collect();
                        v.push(listener.clone());
                        *set = Arc::from(v);
                    }
                }
                None => dbs.push((db, Arc::from(vec![listener.clone()]))),
            }
        }
        self.next_seq.load(Ordering::SeqCst)
    }

    /// Removes `listener` from a channel.
    pub fn unlisten(&self, db: u32, channel: &str, listener: &Arc<Listener>) {
        let mut part = self.partition(channel).lock();
        let Some(dbs) = part.get_mut(channel) else {
            return;
        };
        if let Some(i) = dbs.iter().position(|(d, _)| *d == db) {
            let set = &dbs[i].1;
            if set.iter().any(|l| Arc::ptr_eq(l, listener)) {
                let v: Vec<Arc<Listener>> = set
                    .iter()
                    .filter(|l| !Arc::ptr_eq(l, listener))
                    .cloned()
                    .collect();
                if v.is_empty() {
                    dbs.swap_remove(i);
                } else {
                    dbs[i].1 = Arc::from(v);
                }
            }
        }
        if dbs.is_empty() {
            part.remove(channel);
        }
    }

    /// Number of listeners on a channel.
    pub fn listeners(&self, db: u32, channel: &str) -> usize {
        self.lookup(db, channel).map(|s| s.len()).unwrap_or(0)
    }

    /// Checks that `pending` fits into the queue; returns a warning to send when the queue is at
    /// least half full. Called before the commit point so that a full queue aborts the commit.
    pub fn check_capacity(&self, pending: &[Pending]) -> PgResult<Option<PgError>> {
        let need: u64 = pending
            .iter()
            .map(|p| EVENT_OVERHEAD + (p.channel.len() + p.payload.len()) as u64)
            .sum();
        let used = self.queued_bytes.load(Ordering::Relaxed);
        if used + need > self.max_bytes {
            return Err(PgError::new(
                code::PROGRAM_LIMIT_EXCEEDED,
                "too many notifications in the NOTIFY queue",
            ));
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

    /// Publishes a committed transaction's notifications, in order. This is the commit point of
    /// the notifications: the sequence number taken here orders them against every other
    /// transaction's.
    pub fn publish(&self, db: u32, sender_pid: i32, pending: Vec<Pending>) {
        if pending.is_empty() {
            return;
        }
        let count = pending.len() as u64;
        let seq = self.next_seq.fetch_add(1, Ordering::SeqCst);
        // The ring has a slot for every possible in-flight commit; this wait is a safety net.
        while seq - self.watermark.load(Ordering::SeqCst) >= self.ring.len() as u64 {
            crate::sync::yield_now();
        }
        // Deliveries are grouped per listener so that each inbox is locked once per commit,
        // however many of its channels the transaction notified.
        let mut groups: Vec<(Arc<Listener>, Vec<Delivery>)> = Vec::new();
        let mut index: FxHashMap<usize, usize> = FxHashMap::default();
        for p in pending {
            let set = self.lookup(db, &p.channel);
            let size = EVENT_OVERHEAD + (p.channel.len() + p.payload.len()) as u64;
            let fanout = set.as_ref().map_or(0, |s| s.len()) as u64;
            // Counted before any inbox holds it, so that consumers never release more than
            // was added.
            self.queued_bytes
                .fetch_add(size + fanout * DELIVERY_OVERHEAD, Ordering::Relaxed);
            let event = Arc::new(Event {
                db,
                // The transaction's strings move into the event: no copy on the commit path.
                channel: p.channel,
                payload: p.payload,
                sender_pid,
                size,
                account: self.queued_bytes.clone(),
            });
            let Some(set) = set else { continue };
            for l in set.iter() {
                let key = Arc::as_ptr(l) as *const u8 as usize;
                let g = *index.entry(key).or_insert_with(|| {
                    groups.push((l.clone(), Vec::new()));
                    groups.len() - 1
                });
                groups[g].1.push(Delivery {
                    seq,
                    event: event.clone(),
                });
            }
        }
        let mut wakes = Vec::with_capacity(groups.len());
        for (l, deliveries) in groups {
            l.inbox.lock().extend(deliveries);
            wakes.push(l);
        }
        self.sent.fetch_add(count, Ordering::Relaxed);
        self.commits.fetch_add(1, Ordering::Relaxed);
        self.finish(seq, wakes);
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
            // Concurrent publishers may push out of order; the sort is stable, keeping each
            // transaction's own order.
            inbox.sort_by_key(|d| d.seq);
        }
        let ready = inbox.partition_point(|d| d.seq < w);
        if ready > 0 {
            self.queued_bytes
                .fetch_sub(ready as u64 * DELIVERY_OVERHEAD, Ordering::Relaxed);
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
                .map(|p| p.lock().values().map(|dbs| dbs.len() as u64).sum::<u64>())
                .sum(),
        }
    }
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

    fn pending(ch: &str, p: &str) -> Pending {
        Pending {
            channel: ch.into(),
            payload: p.into(),
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
        hub.publish(0, 9, vec![pending("x", "1"), pending("x", "2")]);
        assert_eq!(wa.0.load(Ordering::SeqCst), 1, "one wake for two entries");
        assert_eq!(wb.0.load(Ordering::SeqCst), 0);
        let mut out = Vec::new();
        hub.drain(&a, &mut out);
        let got: Vec<_> = out.iter().map(|d| &*d.event.payload).collect();
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
        hub.publish(2, 9, vec![pending("x", "")]);
        assert_eq!(a.pending(), 0);
    }

    #[test]
    fn queue_bound() {
        let hub = Hub::new(10, 1000);
        let w = Arc::new(CountWake(AtomicUsize::new(0)));
        let a = Listener::new(1, w);
        hub.listen(0, "c", &a);
        let big = "p".repeat(480);
        assert!(hub.check_capacity(&[pending("c", &big)]).unwrap().is_none());
        hub.publish(0, 1, vec![pending("c", &big)]);
        // Over half full: a warning, once.
        let warn = hub.check_capacity(&[pending("c", "x")]).unwrap();
        assert!(warn.unwrap().message.contains("% full"));
        hub.publish(0, 1, vec![pending("c", &big)]);
        let err = hub.check_capacity(&[pending("c", &big)]).unwrap_err();
        assert_eq!(err.code, "54000");
        let mut out = Vec::new();
        hub.drain(&a, &mut out);
        drop(out);
        assert_eq!(hub.usage(), 0.0);
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
