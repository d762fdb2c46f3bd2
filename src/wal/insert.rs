//! The insertion half of the log: reservation, copy into the ring, and the waits.
//!
//! [`WalBuffer`] holds everything the inserters and the writer share: the insert position, the
//! insertion slots, the ring of `wal_buffers` bytes, the written and flushed positions and the
//! wait lists. It does no I/O: the writer hands it a [`Sink`] in [`WalBuffer::write_step`]. That
//! keeps it usable alone by the shuttle models (`wal::model`) and the micro-benchmark.

use std::cell::{Cell, UnsafeCell};
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, Waker};

use super::record::{self, HEADER_LEN};
use super::Lsn;
use crate::error::{PgError, PgResult};
use crate::sync::{AtomicBool, AtomicU64, Mutex, Ordering::*};

/// Insertion slots: the most insertions in progress at once (see the module header, bound 2).
pub const INSERT_SLOTS: usize = 128;
/// A slot that holds no insertion.
const FREE: u64 = u64::MAX;

/// One cache line per hot word: the insert position, each slot and the writer's positions are
/// written by different cores.
#[repr(align(128))]
#[derive(Default)]
struct Padded<T>(T);

impl<T> std::ops::Deref for Padded<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

/// An insertion slot.
struct Slot {
    /// `FREE`, or a position at or below every byte of its insertion not copied yet.
    pos: AtomicU64,
    /// Records inserted through this slot (pg_stat_wal's wal_records, summed over slots).
    records: AtomicU64,
}

impl std::ops::Deref for Slot {
    type Target = AtomicU64;
    fn deref(&self) -> &AtomicU64 {
        &self.pos
    }
}

/// Where the bytes go (segment files, or nothing in the benchmark and the models).
pub trait Sink {
    /// Writes `bytes` at log position `lsn` (the writer calls this in increasing order).
    fn write(&mut self, lsn: u64, bytes: &[u8]) -> PgResult<()>;
    /// Makes everything written so far durable.
    fn sync(&mut self) -> PgResult<()>;
}

/// Counters for a future pg_stat_wal (all monotonic; times in microseconds).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WalStats {
    pub records: u64,
    pub void_records: u64,
    pub bytes: u64,
    /// Times an inserter found the ring full and waited for the writer (wal_buffers_full).
    pub buffers_full: u64,
    pub writes: u64,
    pub syncs: u64,
    pub write_time_us: u64,
    pub sync_time_us: u64,
}

/// The rare counters; records are counted per slot and bytes are the insert position's
/// distance from the start, so that an insertion touches no shared counter.
#[derive(Default)]
struct Counters {
    void_records: AtomicU64,
    buffers_full: AtomicU64,
    writes: AtomicU64,
    syncs: AtomicU64,
    write_time_us: AtomicU64,
    sync_time_us: AtomicU64,
}

/// Creates segment files so that the log may extend to (at least) the given end; returns the
/// new end. Called by an inserter whose range lies past the allocated segments.
pub type Extend = Box<dyn Fn(u64) -> PgResult<u64> + Send + Sync>;

/// The shared state of the log's insertion path (see the module header of `wal`).
pub struct WalBuffer {
    /// The next byte to reserve (invariant 1).
    insert_pos: Padded<AtomicU64>,
    slots: Box<[Padded<Slot>]>,
    /// Where this log started in this run (for the byte count).
    start: u64,
    ring: Box<[UnsafeCell<u8>]>,
    mask: u64,
    /// Bytes below this were handed to the sink; their ring space is free (written by the
    /// writer alone).
    written: Padded<AtomicU64>,
    /// Bytes below this are durable.
    flushed: Padded<AtomicU64>,
    /// The highest position a flush waiter asked for.
    requested: AtomicU64,
    /// Segment files exist up to here: the writer never writes past it.
    allocated_end: AtomicU64,
    failed: AtomicBool,
    failure: Mutex<Option<PgError>>,
    space_waiters: Mutex<Vec<Waker>>,
    flush_waiters: Mutex<Vec<(u64, Waker)>>,
    stats: Counters,
    /// Wakes the writer thread (none in the models and the benchmark: their writer polls).
    writer: std::sync::OnceLock<std::thread::Thread>,
    extend: Option<Extend>,
    /// The benchmark's baseline: reservation under a lock, as PostgreSQL's `insertpos_lck`.
    locked_reservation: Option<Mutex<()>>,
}

// The ring is written through raw pointers at ranges that the protocol keeps disjoint
// (invariants 2 and 3); every other field is an atomic or a lock.
unsafe impl Sync for WalBuffer {}
unsafe impl Send for WalBuffer {}

thread_local! {
    /// Where this thread starts looking for a free slot: threads (shards) spread over the slots.
    static SLOT_HINT: Cell<usize> = const { Cell::new(usize::MAX) };
}

impl WalBuffer {
    /// A log whose next record goes at `start`, with a ring of `ring_bytes` (a power of two).
    pub fn new(start: u64, ring_bytes: usize) -> WalBuffer {
        assert!(ring_bytes.is_power_of_two() && ring_bytes >= 4096);
        assert_eq!(start % record::ALIGN, 0);
        let ring = vec![0u8; ring_bytes].into_boxed_slice();
        // UnsafeCell<u8> has the layout of u8 (repr(transparent)).
        let ring = unsafe { Box::from_raw(Box::into_raw(ring) as *mut [UnsafeCell<u8>]) };
        WalBuffer {
            insert_pos: Padded(AtomicU64::new(start)),
            slots: (0..INSERT_SLOTS)
                .map(|_| {
                    Padded(Slot {
                        pos: AtomicU64::new(FREE),
                        records: AtomicU64::new(0),
                    })
                })
                .collect(),
            start,
            ring,
            mask: ring_bytes as u64 - 1,
            written: Padded(AtomicU64::new(start)),
            flushed: Padded(AtomicU64::new(start)),
            requested: AtomicU64::new(start),
            allocated_end: AtomicU64::new(u64::MAX),
            failed: AtomicBool::new(false),
            failure: Mutex::new(None),
            space_waiters: Mutex::new(Vec::new()),
            flush_waiters: Mutex::new(Vec::new()),
            stats: Counters::default(),
            writer: std::sync::OnceLock::new(),
            extend: None,
            locked_reservation: None,
        }
    }

    /// Segment files exist up to `allocated_end`; `extend` creates more.
    pub(crate) fn with_segments(mut self, allocated_end: u64, extend: Extend) -> WalBuffer {
        self.allocated_end = AtomicU64::new(allocated_end);
        self.extend = Some(extend);
        self
    }

    /// Makes reservation take a lock around the `fetch_add` (the benchmark's baseline).
    #[doc(hidden)]
    pub fn with_locked_reservation(mut self) -> WalBuffer {
        self.locked_reservation = Some(Mutex::new(()));
        self
    }

    pub(crate) fn set_writer(&self, t: std::thread::Thread) {
        let _ = self.writer.set(t);
    }

    pub(crate) fn wake_writer(&self) {
        if let Some(t) = self.writer.get() {
            t.unpark();
        }
    }

    pub fn capacity(&self) -> u64 {
        self.mask + 1
    }

    /// The next position to be reserved (pg_current_wal_insert_lsn).
    pub fn insert_lsn(&self) -> Lsn {
        Lsn(self.insert_pos.load(SeqCst))
    }

    /// Everything below this was handed to the operating system (pg_current_wal_lsn).
    pub fn write_lsn(&self) -> Lsn {
        Lsn(self.written.load(SeqCst))
    }

    /// Everything below this is durable (pg_current_wal_flush_lsn).
    pub fn flush_lsn(&self) -> Lsn {
        Lsn(self.flushed.load(SeqCst))
    }

    pub fn stats(&self) -> WalStats {
        let s = &self.stats;
        WalStats {
            records: self.slots.iter().map(|x| x.records.load(Relaxed)).sum(),
            void_records: s.void_records.load(Relaxed),
            bytes: self.insert_pos.load(Relaxed) - self.start,
            buffers_full: s.buffers_full.load(Relaxed),
            writes: s.writes.load(Relaxed),
            syncs: s.syncs.load(Relaxed),
            write_time_us: s.write_time_us.load(Relaxed),
            sync_time_us: s.sync_time_us.load(Relaxed),
        }
    }

    pub fn is_failed(&self) -> bool {
        self.failed.load(SeqCst)
    }

    /// The error that failed the log, for every later caller.
    pub fn failure(&self) -> Option<PgError> {
        if !self.is_failed() {
            return None;
        }
        self.failure.lock().clone()
    }

    fn check_failed(&self) -> PgResult<()> {
        match self.failure() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// Puts the log in the failed state for good (invariant 6) and releases every waiter.
    pub fn fail(&self, e: PgError) {
        {
            let mut f = self.failure.lock();
            if f.is_none() {
                *f = Some(e);
            }
        }
        self.failed.store(true, SeqCst);
        let flush: Vec<_> = std::mem::take(&mut *self.flush_waiters.lock());
        let space: Vec<_> = std::mem::take(&mut *self.space_waiters.lock());
        flush.into_iter().for_each(|(_, w)| w.wake());
        space.into_iter().for_each(Waker::wake);
        self.wake_writer();
    }

    // ---- reservation ----

    /// Reserves the space of a record with `payload_len` bytes. The guard must then be filled
    /// with [`Reservation::write`] (or its blocking form); dropped unfilled, it writes a void
    /// record over its range.
    pub fn reserve(&self, payload_len: usize) -> PgResult<Reservation<'_>> {
        record::check_len(payload_len)?;
        self.check_failed()?;
        let space = record::space_for(payload_len);
        let pos = self.insert_pos.load(SeqCst);
        // Bound 5: make sure the segment exists before anything is reserved, so that a full
        // disk fails this insertion alone and leaves no reserved range behind.
        if pos + space > self.allocated_end.load(SeqCst) {
            self.extend_to(pos + space)?;
        }
        let slot = self.acquire_slot(pos);
        let start = {
            let _g = self.locked_reservation.as_ref().map(Mutex::lock);
            self.insert_pos.fetch_add(space, SeqCst)
        };
        self.slots[slot].store(start, SeqCst);
        let res = Reservation {
            buf: self,
            slot,
            start,
            end: start + space,
            progress: start,
            record: None,
        };
        // Another inserter may have reserved past the segments between the check and the
        // fetch_add: this one needs the next segment too. If it cannot be made, the range
        // becomes a void record and the caller gets the error.
        if res.end > self.allocated_end.load(SeqCst) {
            if let Err(e) = self.extend_to(res.end) {
                drop(res);
                return Err(e);
            }
        }
        Ok(res)
    }

    fn extend_to(&self, end: u64) -> PgResult<()> {
        let Some(extend) = &self.extend else {
            return Ok(());
        };
        let new_end = extend(end)?;
        self.note_allocated(new_end);
        Ok(())
    }

    /// Segments now exist up to `end` (created, or recycled by `remove_before`).
    pub(crate) fn note_allocated(&self, end: u64) {
        self.allocated_end.fetch_max(end, SeqCst);
    }

    pub(crate) fn allocated_end(&self) -> u64 {
        self.allocated_end.load(SeqCst)
    }

    /// Takes a free slot, publishing `lower` (a position at or below the coming reservation)
    /// in it before the reservation is made (invariant 2).
    fn acquire_slot(&self, lower: u64) -> usize {
        let mut i = SLOT_HINT.with(|h| {
            if h.get() == usize::MAX {
                // Spread threads over the slots (a different stretch for each); any start is
                // correct.
                static THREADS: std::sync::atomic::AtomicUsize =
                    std::sync::atomic::AtomicUsize::new(0);
                let n = THREADS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                h.set(n.wrapping_mul(37) % INSERT_SLOTS);
            }
            h.get()
        });
        loop {
            for _ in 0..INSERT_SLOTS {
                let s = &self.slots[i];
                if s.load(Relaxed) == FREE
                    && s.compare_exchange(FREE, lower, SeqCst, Relaxed).is_ok()
                {
                    SLOT_HINT.with(|h| h.set(i));
                    return i;
                }
                i = (i + 1) % INSERT_SLOTS;
            }
            // Every slot is busy: more than INSERT_SLOTS insertions at once. Their copies are
            // short (or wait for the writer, which needs no slot), so this ends soon.
            crate::sync::yield_now();
        }
    }

    /// The end of the complete prefix: the lowest position any insertion has not copied yet,
    /// or the insert position when none is in progress (invariant 2).
    pub fn completed_upto(&self) -> u64 {
        let mut upto = self.insert_pos.load(SeqCst);
        for s in self.slots.iter() {
            upto = upto.min(s.load(SeqCst));
        }
        upto
    }

    /// Copies `bytes` to ring position `pos` (which the caller owns: invariant 3).
    unsafe fn put(&self, pos: u64, bytes: &[u8]) {
        let base = self.ring.as_ptr() as *mut u8;
        let at = (pos & self.mask) as usize;
        let first = bytes.len().min(self.ring.len() - at);
        std::ptr::copy_nonoverlapping(bytes.as_ptr(), base.add(at), first);
        std::ptr::copy_nonoverlapping(bytes.as_ptr().add(first), base, bytes.len() - first);
    }

    unsafe fn put_zeros(&self, pos: u64, n: usize) {
        let base = self.ring.as_ptr() as *mut u8;
        let at = (pos & self.mask) as usize;
        let first = n.min(self.ring.len() - at);
        std::ptr::write_bytes(base.add(at), 0, first);
        std::ptr::write_bytes(base, 0, n - first);
    }

    // ---- waits ----

    /// Completes when ring position `pos` may be written (its previous lap was written out),
    /// or with the failure.
    fn space_for(&self, pos: u64) -> SpaceWait<'_> {
        SpaceWait { buf: self, pos }
    }

    fn has_space(&self, pos: u64) -> bool {
        pos < self.written.load(SeqCst) + self.capacity()
    }

    /// Completes when everything below `lsn` is durable, or with the log's failure.
    pub fn wait_flushed(&self, lsn: Lsn) -> FlushWait<'_> {
        FlushWait {
            buf: self,
            lsn: lsn.0,
        }
    }

    pub fn wait_flushed_blocking(&self, lsn: Lsn) -> PgResult<()> {
        block_on(self.wait_flushed(lsn))
    }

    // ---- the writer's side ----

    /// One writer cycle: hands the complete prefix past the written position to `sink`, frees
    /// its ring space, syncs (when `fsync`), advances the flushed position and wakes the
    /// waiters it covers. Returns whether there was anything to write. The caller fails the
    /// log on an error (invariant 6): nothing is retried.
    pub fn write_step(&self, sink: &mut dyn Sink, fsync: bool) -> PgResult<bool> {
        self.check_failed()?;
        let from = self.written.load(SeqCst);
        let upto = self.completed_upto().min(self.allocated_end.load(SeqCst));
        if upto <= from {
            return Ok(false);
        }
        let (a, b) = self.ring_slices(from, upto);
        let t = std::time::Instant::now();
        sink.write(from, a)?;
        if !b.is_empty() {
            sink.write(from + a.len() as u64, b)?;
        }
        self.stats.writes.fetch_add(1, Relaxed);
        self.stats
            .write_time_us
            .fetch_add(t.elapsed().as_micros() as u64, Relaxed);
        // The bytes are out of the ring: inserters may reuse the space (invariant 3).
        self.written.store(upto, SeqCst);
        let space: Vec<_> = std::mem::take(&mut *self.space_waiters.lock());
        space.into_iter().for_each(Waker::wake);
        if fsync {
            let t = std::time::Instant::now();
            sink.sync()?;
            self.stats.syncs.fetch_add(1, Relaxed);
            self.stats
                .sync_time_us
                .fetch_add(t.elapsed().as_micros() as u64, Relaxed);
        }
        self.advance_flushed(upto);
        Ok(true)
    }

    fn advance_flushed(&self, upto: u64) {
        self.flushed.store(upto, SeqCst);
        let mut woken = Vec::new();
        self.flush_waiters.lock().retain(|(lsn, w)| {
            if *lsn <= upto {
                woken.push(w.clone());
                false
            } else {
                true
            }
        });
        woken.into_iter().for_each(Waker::wake);
    }

    /// Whether a flush waiter waits for more than is flushed, or an inserter for ring space.
    pub(crate) fn writer_wanted(&self) -> bool {
        let requested = self
            .requested
            .load(SeqCst)
            .min(self.insert_pos.load(SeqCst));
        requested > self.flushed.load(SeqCst) || !self.space_waiters.lock().is_empty()
    }

    /// The ring bytes of `[from, to)`, in one or two pieces (the range wraps at most once:
    /// `to - from <= capacity`).
    pub(crate) fn ring_slices(&self, from: u64, to: u64) -> (&[u8], &[u8]) {
        debug_assert!(to - from <= self.capacity());
        let base = self.ring.as_ptr() as *const u8;
        let at = (from & self.mask) as usize;
        let n = (to - from) as usize;
        let first = n.min(self.ring.len() - at);
        // Complete bytes below `completed_upto`: no inserter writes them until `written` passes
        // them (invariant 3).
        unsafe {
            (
                std::slice::from_raw_parts(base.add(at), first),
                std::slice::from_raw_parts(base, n - first),
            )
        }
    }

    /// Reserves, copies and returns the record's position and end, waiting for ring space as a
    /// future (see the module header: a shard thread is never blocked by it).
    pub async fn insert(&self, kind: u8, info: u8, xid: u64, payload: &[u8]) -> PgResult<Appended> {
        self.reserve(payload.len())?
            .write(kind, info, xid, payload)
            .await
    }

    /// [`WalBuffer::insert`] for threads that may block (the writer's tests, tools).
    pub fn insert_blocking(
        &self,
        kind: u8,
        info: u8,
        xid: u64,
        payload: &[u8],
    ) -> PgResult<Appended> {
        block_on(self.insert(kind, info, xid, payload))
    }
}

/// Where an appended record lies: wait for `end` to be flushed to make it durable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Appended {
    pub lsn: Lsn,
    pub end: Lsn,
}

/// A reserved range of the log, owned until it is filled.
///
/// Invariant 4: whatever happens to the owner (an error, a panic, a dropped future), the range
/// ends up holding a whole record: `Drop` finishes copying the record it was given, or writes a
/// void record over a range that was never given one.
pub struct Reservation<'a> {
    buf: &'a WalBuffer,
    slot: usize,
    start: u64,
    end: u64,
    /// Bytes of the range below this are in the ring.
    progress: u64,
    /// The record being copied: its header and payload (`None` = zeros, a void record).
    record: Option<([u8; HEADER_LEN], Option<&'a [u8]>)>,
}

impl<'a> Reservation<'a> {
    pub fn lsn(&self) -> Lsn {
        Lsn(self.start)
    }

    /// Copies the record into the reserved range (its payload must have the length reserved).
    /// Cancel-safe: dropped before it completes, the copy is finished by `Drop`.
    pub async fn write(
        mut self,
        kind: u8,
        info: u8,
        xid: u64,
        payload: &'a [u8],
    ) -> PgResult<Appended> {
        assert_eq!(record::space_for(payload.len()), self.end - self.start);
        assert!(kind != 0, "kind 0 is never a record");
        self.record = Some((
            record::header(self.start, xid, kind, info, payload),
            Some(payload),
        ));
        while !self.copy_available() {
            self.buf.stats.buffers_full.fetch_add(1, Relaxed);
            self.wait_for_space().await?;
        }
        // The slot is this insertion's own: no other core touches its line.
        self.buf.slots[self.slot].records.fetch_add(1, Relaxed);
        Ok(self.finish())
    }

    pub fn write_blocking(
        self,
        kind: u8,
        info: u8,
        xid: u64,
        payload: &'a [u8],
    ) -> PgResult<Appended> {
        block_on(self.write(kind, info, xid, payload))
    }

    /// Publishes how far the copy got, so that the writer can write (and free) the ring up to
    /// there, then waits for space past it.
    fn wait_for_space(&self) -> SpaceWait<'a> {
        self.buf.slots[self.slot].store(self.progress, SeqCst);
        self.buf.wake_writer();
        self.buf.space_for(self.progress)
    }

    /// Copies as much of the record as the ring has room for; true when all of it is in.
    fn copy_available(&mut self) -> bool {
        let (header, payload) = self.record.expect("a record to copy");
        let limit = self
            .end
            .min(self.buf.written.load(SeqCst) + self.buf.capacity());
        let data_end = self.start + HEADER_LEN as u64 + payload.map_or(0, |p| p.len() as u64);
        let data_end = if payload.is_none() {
            self.end
        } else {
            data_end
        };
        while self.progress < limit {
            let off = (self.progress - self.start) as usize;
            let n = if off < HEADER_LEN {
                let n = (HEADER_LEN - off).min((limit - self.progress) as usize);
                unsafe { self.buf.put(self.progress, &header[off..off + n]) };
                n
            } else if self.progress < data_end {
                let n = (data_end.min(limit) - self.progress) as usize;
                let p = off - HEADER_LEN;
                match payload {
                    Some(bytes) => unsafe { self.buf.put(self.progress, &bytes[p..p + n]) },
                    None => unsafe { self.buf.put_zeros(self.progress, n) },
                }
                n
            } else {
                // Alignment padding: outside the CRC, never read; left as it is.
                (limit - self.progress) as usize
            };
            self.progress += n as u64;
        }
        self.progress == self.end
    }

    /// Frees the slot: the whole range is in the ring (invariant 2).
    fn finish(mut self) -> Appended {
        let a = Appended {
            lsn: Lsn(self.start),
            end: Lsn(self.end),
        };
        self.release();
        self.record = None;
        std::mem::forget(self);
        a
    }

    fn release(&mut self) {
        let buf = self.buf;
        buf.slots[self.slot].store(FREE, SeqCst);
        // The writer may be waiting behind this insertion for a flush someone asked for.
        if buf.requested.load(SeqCst) > self.start {
            buf.wake_writer();
        }
    }
}

impl Drop for Reservation<'_> {
    fn drop(&mut self) {
        if self.record.is_none() {
            // Never given a record: the range becomes a void record.
            let space = self.end - self.start;
            self.record = Some((record::void_header(self.start, space), None));
            self.buf.stats.void_records.fetch_add(1, Relaxed);
        }
        // Blocks this thread for at most one writer cycle per ring's worth of the record; a
        // failed log frees no space, and nothing more needs to reach it.
        while !self.copy_available() {
            if block_on(self.wait_for_space()).is_err() {
                break;
            }
        }
        self.release();
    }
}

/// The future of [`WalBuffer::wait_flushed`].
pub struct FlushWait<'a> {
    buf: &'a WalBuffer,
    lsn: u64,
}

impl Future for FlushWait<'_> {
    type Output = PgResult<()>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<PgResult<()>> {
        let buf = self.buf;
        let ready = || -> Option<PgResult<()>> {
            if buf.flushed.load(SeqCst) >= self.lsn {
                Some(Ok(()))
            } else if buf.is_failed() {
                Some(Err(buf.failure().expect("a failed log has its error")))
            } else {
                None
            }
        };
        if let Some(r) = ready() {
            return Poll::Ready(r);
        }
        if buf.requested.fetch_max(self.lsn, SeqCst) < self.lsn {
            buf.wake_writer();
        }
        let mut waiters = buf.flush_waiters.lock();
        // Invariant 5: checked again under the lock the writer takes after advancing.
        if let Some(r) = ready() {
            return Poll::Ready(r);
        }
        match waiters.iter_mut().find(|(_, w)| w.will_wake(cx.waker())) {
            Some(e) => e.0 = e.0.max(self.lsn),
            None => waiters.push((self.lsn, cx.waker().clone())),
        }
        Poll::Pending
    }
}

/// Waits for ring space at a position (see [`WalBuffer::space_for`]).
struct SpaceWait<'a> {
    buf: &'a WalBuffer,
    pos: u64,
}

impl Future for SpaceWait<'_> {
    type Output = PgResult<()>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<PgResult<()>> {
        let buf = self.buf;
        let ready = || -> Option<PgResult<()>> {
            if buf.has_space(self.pos) {
                Some(Ok(()))
            } else {
                buf.failure().map(Err)
            }
        };
        if let Some(r) = ready() {
            return Poll::Ready(r);
        }
        let mut waiters = buf.space_waiters.lock();
        if let Some(r) = ready() {
            return Poll::Ready(r);
        }
        if !waiters.iter().any(|w| w.will_wake(cx.waker())) {
            waiters.push(cx.waker().clone());
        }
        Poll::Pending
    }
}

/// Runs a future to completion on this thread, parking between polls.
#[cfg(not(feature = "shuttle"))]
pub fn block_on<F: Future>(f: F) -> F::Output {
    struct Unpark(std::thread::Thread);
    impl std::task::Wake for Unpark {
        fn wake(self: std::sync::Arc<Self>) {
            self.0.unpark();
        }
    }
    let mut f = std::pin::pin!(f);
    // Most calls complete at once: try without making a waker (an allocation). A future left
    // pending with the no-op waker is polled again below with the real one, which it then
    // registers (the stale entry only costs a no-op wake).
    if let Poll::Ready(v) = f.as_mut().poll(&mut Context::from_waker(Waker::noop())) {
        return v;
    }
    let waker = Waker::from(std::sync::Arc::new(Unpark(std::thread::current())));
    let mut cx = Context::from_waker(&waker);
    loop {
        if let Poll::Ready(v) = f.as_mut().poll(&mut cx) {
            return v;
        }
        std::thread::park();
    }
}

#[cfg(feature = "shuttle")]
pub fn block_on<F: Future>(f: F) -> F::Output {
    shuttle::future::block_on(f)
}
