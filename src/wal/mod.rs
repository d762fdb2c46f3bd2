//! The write-ahead log: the core that makes changes durable (issue 29).
//!
//! This module is the log itself: records, their positions, insertion, the writer with group
//! commit, segment files and the recovery scan. It knows nothing of what records mean: the
//! commit path, catalog logging, checkpoints and replay are built on it by the layers above.
//!
//! # What PostgreSQL does, and what is different here
//!
//! PostgreSQL reserves log space under a spinlock (`insertpos_lck`), then copies the record
//! into its WAL buffers while holding one of 8 insertion locks; the writer must wait for every
//! insertion lock's "inserting at" position to pass what it writes. On many cores the commit
//! path collapses first on those 8 locks, then on the spinlock (seed 004; the patches that
//! replace the spinlock with one atomic add are not merged). threadgres builds that end state:
//!
//! * **Reservation is one `fetch_add`** on the insert position ([`WalBuffer::reserve`]): records
//!   are laid end to end, each at the position the add returned, with no lock.
//! * **Copies run in parallel.** Each inserter copies its own record into the shared ring of
//!   `wal_buffers` bytes at its position. Nothing orders the copies.
//! * **Insertion slots replace insertion locks.** An inserter publishes, in one of
//!   [`INSERT_SLOTS`] slots, a position at or below the first byte it has not copied yet; the
//!   complete prefix of the log ends at the smallest published position (or at the insert
//!   position when no insertion is in progress). The writer writes only that prefix, so a
//!   reserved but unfilled range is never written as if complete. PostgreSQL's 8 locks become
//!   128 lock-free slots, and an inserter never waits for another inserter.
//! * **No holes.** A [`Reservation`] is a guard: dropped before its record is copied (an error,
//!   a panic, a dropped future), it fills its range with a valid *void* record, and a copy that
//!   was under way is finished. Without this, a range that never got its record would be read as
//!   the end of the log by recovery, and everything after it would be lost.
//! * **Waiting is a future.** An inserter that finds the ring full, and a committer waiting for
//!   its record to be durable, await futures ([`FlushWait`]; the ring wait inside
//!   [`WalBuffer::insert`]) woken by the writer: a shard thread runs other sessions meanwhile.
//!   Blocking forms (`*_blocking`) park the calling thread instead, for the writer's tests and
//!   tools. The one blocking wait on the async path is a reservation's `Drop` finishing its
//!   copy (a panic or a cancelled insertion): at most one writer cycle per ring's worth.
//! * **Group commit.** The writer thread ([`Wal::open`] starts it) writes the whole complete
//!   prefix with positioned writes, calls `fdatasync` once, advances the flushed position and
//!   wakes every waiter at or below it. Commits that arrive during a sync are covered by the
//!   next one. A waiter's request wakes the writer; so does an inserter finishing a copy that
//!   a requested flush waits behind, and a full ring. Otherwise the writer wakes every
//!   `wal_writer_delay` (asynchronous commits). `commit_delay` makes it pause before a
//!   requested flush so that more commits join it (PostgreSQL's `commit_siblings` is not
//!   modelled: the writer, not a backend, decides).
//!
//! # Records and positions
//!
//! An LSN ([`Lsn`]) is a byte position in one infinite log, cut into segment files of
//! `wal_segment_size` bytes (16 MiB by default, a power of two fixed when the log is created)
//! named like PostgreSQL's (`000000010000000000000001`: timeline, then the position). The first
//! record of a new log is at the start of segment 1, so `0/0` is never a record. A record
//! ([`record`]) is a 32-byte header (total length, CRC-32C over header and payload, its own LSN,
//! the transaction id, a resource-manager `kind` and an `info` byte) and an opaque payload,
//! padded to 8 bytes. Records run across segment boundaries; there are no page headers: the
//! own-LSN field is what tells a record of this log from stale bytes of a recycled file.
//!
//! *For a standby and logical decoding later:* the log is a plain byte stream with positions,
//! so streaming replication is "send the bytes between two LSNs" (the flushed position bounds
//! what may be sent) and a standby writes them at the same positions; its reader is
//! [`WalReader`]. Every record carries its transaction id and resource manager, so a decoder can
//! group records by transaction and skip the kinds it does not decode. A timeline is already in
//! the file names. What a standby will need on top: a record of the timeline switch, and a
//! system identifier in the control file to refuse a foreign log.
//!
//! # Segments
//!
//! Segment files are zero-filled under a temporary name, synced and renamed into place, at least
//! one segment ahead of the insert position (the writer keeps it so; an inserter whose range
//! still lacks its segment creates it itself, see "Faults"). [`Wal::remove_before`] (the
//! checkpointer's call, with its redo point) recycles the segments wholly before the redo point
//! by renaming them to future names while fewer future segments exist than the last cycle
//! consumed (always below `min_wal_size`), never beyond `max_wal_size` files, and deletes the
//! rest. A recycled file keeps its old bytes: their own-LSN fields name its old positions.
//!
//! # Faults
//!
//! * A failed `write` or `fdatasync` is fatal, as in PostgreSQL since 2018: after a failed
//!   fsync the kernel may have dropped the dirty pages and report success next time, so a retry
//!   proves nothing. The log enters the failed state ([`WalBuffer::fail`]): every waiter gets the
//!   error, every later insertion and flush fails, the flushed position never moves again. The
//!   caller stops the server; recovery replays from the files.
//! * A full disk when a segment is created: the inserter that needs the segment gets ERROR
//!   53100 (`could not extend file "...": No space left on device`), nothing is reserved for it
//!   (the check comes before the `fetch_add`; an inserter that raced past it turns its range
//!   into a void record), and nothing written is touched: the temporary file is removed. The
//!   writer writes up to the last existing segment and tries again each `wal_writer_delay`.
//!
//! # Reading back, and the end of the log
//!
//! [`WalReader`] reads records from a position, checking own-LSN, length and CRC. Where no valid
//! record starts, either the log ends there (a torn tail: a crash during a write, zeros of a
//! pre-allocated segment, or a recycled segment's old bytes) or a record in the middle of the
//! log is damaged. The writer syncs after every write batch, and a batch is at most
//! `wal_buffers <= wal_segment_size` bytes; a crash can therefore tear (or persist out of order)
//! only the bytes of the last batch. So: if a valid record of this log (its own LSN equal to its
//! position, CRC correct) starts at least one segment size past the bad position, that record
//! was written after the bad one was synced: the damage is mid-log, and the reader returns FATAL
//! XX001 naming the position (`%X/%X`). Otherwise the bad position is the end of the log.
//! Limits: damage within the last segment's worth of the log is taken for a torn tail (that
//! tail's commits are lost silently, as PostgreSQL would lose them); with `fsync = off` nothing
//! holds. When a log is reopened after recovery ([`Wal::open`] with the end found), the rest of
//! that segment is zeroed and later segment files are deleted, so old bytes with plausible
//! positions never follow the new records.
//!
//! # Invariants
//!
//! 1. Reservations tile the log: each `fetch_add` returns the end of the previous one, so
//!    `[start, end)` ranges are disjoint, contiguous and 8-aligned;
//!    `flushed <= written <= completed_upto() <= insert_pos`.
//! 2. *Lowest unfinished insertion.* A busy slot holds a position at or below the first byte its
//!    insertion has not copied. An inserter stores a lower bound (the insert position it read)
//!    in its slot before its `fetch_add`, then its start, then its progress when it must wait;
//!    it frees the slot only after its whole range is copied. [`WalBuffer::completed_upto`] reads
//!    the insert position first, then every slot (all SeqCst): a reservation made before that
//!    read published its slot before it, so the result never passes an uncopied byte, and every
//!    byte below it was copied before a slot release the writer synchronized with.
//! 3. *Ring ownership.* An inserter writes position `p` only when `p < written + wal_buffers`;
//!    the writer reads `[written, completed_upto)` and only then advances `written`. So no byte
//!    is overwritten before it was handed to the sink, and none is written while it is read.
//! 4. *No holes.* After its `fetch_add`, a range is filled with a whole record (its own, or a
//!    void one) before its slot is freed, whatever happens to its owner; only a failed log
//!    (6) leaves one unfilled, and then nothing is ever flushed past it.
//! 5. A flush waiter for `lsn` is released only when `flushed >= lsn` or the log has failed (with
//!    the error). `flushed` moves only after the sink's `sync` returned for every byte below it.
//!    A waiter checks again under the waiter lock, which the writer takes after storing
//!    `flushed` (and `fail` after setting `failed`): no wake-up is lost.
//! 6. Failure is permanent: once `failed` is set nothing is written or synced again.
//! 7. Every byte below `allocated_end` has a segment file; the writer never writes past it.
//!
//! # Who touches what, and lock order
//!
//! `insert_pos`: inserters (add). A slot: the inserter holding it. The ring: inserters at their
//! own ranges, the writer reading the complete prefix. `written`, `flushed`: the writer alone
//! writes them. `requested`: flush waiters (max). The waiter lists: waiters push, the writer
//! drains. Locks are never nested: the failure cell, the flush-waiter list and the space-waiter
//! list are each taken alone for a few instructions; the segment state lock is held while a
//! segment file is created (serializing creators) and taken with no other lock held.
//!
//! # Bounds
//!
//! 1. The ring: `wal_buffers` bytes (a power of two, 4 KiB to one segment; default 4 MiB). An
//!    inserter that reaches its end copies what fits, publishes its progress (so the writer can
//!    write up to it), wakes the writer and waits; the wait lasts one `write` of at most
//!    `wal_buffers` bytes (space is freed after the write, before the sync). Counted in
//!    `buffers_full`. Records larger than the ring are copied in pieces this way.
//! 2. [`INSERT_SLOTS`] insertions in progress at once (sessions run as tasks on a few shard
//!    threads, so this is far above what happens); another one yields until a slot is free.
//! 3. Flush waiters: one entry per waiting future (at most one per session; a blocking wait
//!    may leave a second, no-op entry from its first poll, dropped at the next flush); ring
//!    waiters at most two per insertion in progress, dropped at the writer's next write.
//! 4. A record is at most 1 GiB (PostgreSQL's limit); a transaction streams many records.
//! 5. Segment files: one pre-allocated ahead; after `remove_before`, at most `max_wal_size`
//!    worth of files are kept (the log grows past it only if checkpoints fall behind, which is
//!    the checkpointer's trigger).
//!
//! # Model checks
//!
//! `cargo test --features shuttle --lib wal::model` runs reservation, copy, void filling and
//! flush on [`WalBuffer`] (the real code, through the `sync` facade, with an in-memory sink)
//! under shuttle's schedulers.

mod insert;
mod lsn;
#[cfg(all(test, feature = "shuttle"))]
mod model;
mod reader;
pub mod record;
mod segment;
#[cfg(all(test, not(feature = "shuttle")))]
mod tests;
mod writer;

pub use insert::{
    block_on, Appended, FlushWait, Reservation, Sink, WalBuffer, WalStats, INSERT_SLOTS,
};
pub use lsn::Lsn;
pub use reader::{RecordRef, WalReader};
pub use record::Record;
pub use segment::{file_name, Faults};

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use crate::error::{PgError, PgResult};
use segment::{FileSink, Segments};

const INVALID_PARAMETER_VALUE: &str = "22023";

/// The log's settings, with PostgreSQL's names and meaning. `synchronous_commit` is not here:
/// it is each caller's choice whether to await [`WalBuffer::wait_flushed`].
#[derive(Clone, Debug)]
pub struct WalOptions {
    /// The directory of the segment files (pg_wal).
    pub dir: PathBuf,
    /// The ring's size in bytes: a power of two, 4 KiB up to `wal_segment_size`.
    pub wal_buffers: usize,
    /// How long the writer sleeps when no flush is asked for (asynchronous commits).
    pub wal_writer_delay: Duration,
    /// How long the writer waits before a requested flush, for more commits to join it.
    pub commit_delay: Duration,
    /// Off: no `fdatasync` (a crash may lose or damage anything, as in PostgreSQL).
    pub fsync: bool,
    /// A power of two, 4 KiB to 1 GiB (PostgreSQL allows 1 MiB up; the small sizes are for
    /// tests). Fixed when the log is created.
    pub wal_segment_size: u64,
    /// Below this much WAL, old segments are always recycled rather than removed.
    pub min_wal_size: u64,
    /// At most this much WAL is kept after a `remove_before`.
    pub max_wal_size: u64,
}

impl WalOptions {
    /// PostgreSQL's defaults (wal_buffers as with shared_buffers = 128MB).
    pub fn new(dir: impl Into<PathBuf>) -> WalOptions {
        WalOptions {
            dir: dir.into(),
            wal_buffers: 4 << 20,
            wal_writer_delay: Duration::from_millis(200),
            commit_delay: Duration::ZERO,
            fsync: true,
            wal_segment_size: 16 << 20,
            min_wal_size: 80 << 20,
            max_wal_size: 1 << 30,
        }
    }

    fn validate(&self) -> PgResult<()> {
        let seg = self.wal_segment_size;
        let bad = |what: String| Err(PgError::new(INVALID_PARAMETER_VALUE, what));
        if !seg.is_power_of_two() || !(4096..=1 << 30).contains(&seg) {
            return bad(format!(
                "wal_segment_size must be a power of two between 4kB and 1GB, not {seg}"
            ));
        }
        let b = self.wal_buffers;
        if !b.is_power_of_two() || b < 4096 || b as u64 > seg {
            return bad(format!(
                "wal_buffers must be a power of two between 4kB and wal_segment_size, not {b}"
            ));
        }
        if self.max_wal_size < 2 * seg || self.min_wal_size < 2 * seg {
            return bad(
                "min_wal_size and max_wal_size must be at least twice wal_segment_size".into(),
            );
        }
        Ok(())
    }
}

/// A commit whose record could not be made durable: as PostgreSQL since 2018, the process
/// stops (PANIC) rather than retry an fsync whose failure may have dropped dirty pages; the
/// next start recovers from what the files hold.
pub fn panic_on_flush_failure(e: &PgError) -> ! {
    tracing::error!("PANIC: could not flush the write-ahead log: {}", e.message);
    eprintln!("PANIC: could not flush the write-ahead log: {}", e.message);
    std::process::abort()
}

/// The position of the first record of a new log.
pub fn first_lsn(wal_segment_size: u64) -> Lsn {
    Lsn(wal_segment_size)
}

/// An open log: the shared buffer (insertion, waits; reached through `Deref`), its segment
/// files and its writer thread.
pub struct Wal {
    buf: Arc<WalBuffer>,
    segs: Arc<Segments>,
    opts: WalOptions,
    stop: Arc<AtomicBool>,
    writer: std::sync::Mutex<Option<std::thread::JoinHandle<()>>>,
}

impl std::ops::Deref for Wal {
    type Target = WalBuffer;
    fn deref(&self) -> &WalBuffer {
        &self.buf
    }
}

impl Wal {
    /// Opens the log in `opts.dir` and starts its writer. `resume`: `None` creates a new log
    /// (the directory must hold no segment); `Some(end)` continues an existing one at `end`,
    /// the end of the log as a [`WalReader`] found it (the rest of that segment is zeroed and
    /// later segment files are removed: see the module header).
    pub fn open(opts: WalOptions, resume: Option<Lsn>) -> PgResult<Wal> {
        opts.validate()?;
        let seg = opts.wal_segment_size;
        std::fs::create_dir_all(&opts.dir).map_err(|e| {
            crate::error::io_error(
                &e,
                format!("could not create directory \"{}\"", opts.dir.display()),
            )
        })?;
        let segs = Arc::new(Segments::new(
            &opts.dir,
            seg,
            opts.fsync,
            Arc::new(Faults::default()),
        ));
        let existing = segs.list()?;
        for &n in &existing {
            let len = std::fs::metadata(segs.path(n))
                .map(|m| m.len())
                .unwrap_or(0);
            if len != seg {
                return Err(PgError::fatal(
                    "XX001",
                    format!(
                        "WAL file \"{}\" has size {len}, expected {seg}",
                        segs.path(n).display()
                    ),
                ));
            }
        }
        let start = match resume {
            None => {
                if !existing.is_empty() {
                    return Err(PgError::fatal(
                        "55000",
                        format!(
                            "directory \"{}\" already holds WAL files",
                            opts.dir.display()
                        ),
                    ));
                }
                first_lsn(seg).0
            }
            Some(end) => end.0,
        };
        if start < seg || start % record::ALIGN != 0 {
            return Err(PgError::new(
                INVALID_PARAMETER_VALUE,
                format!("invalid WAL start position {}", Lsn(start)),
            ));
        }
        let segno = start / seg;
        if existing.contains(&segno) {
            zero_tail(&segs, segno, start % seg, opts.fsync)?;
        }
        for &n in existing.iter().filter(|&&n| n > segno) {
            let p = segs.path(n);
            std::fs::remove_file(&p).map_err(|e| {
                crate::error::io_error(&e, format!("could not remove file \"{}\"", p.display()))
            })?;
        }
        segs.set_next(
            if existing.contains(&segno) {
                segno + 1
            } else {
                segno
            },
            start,
        );
        let allocated = segs.extend(start + 1)?;
        let extend_segs = segs.clone();
        let buf = Arc::new(
            WalBuffer::new(start, opts.wal_buffers)
                .with_segments(allocated, Box::new(move |end| extend_segs.extend(end))),
        );
        let stop = Arc::new(AtomicBool::new(false));
        let handle = {
            let (buf, segs, stop) = (buf.clone(), segs.clone(), stop.clone());
            let cfg = writer::WriterConfig {
                wal_writer_delay: opts.wal_writer_delay,
                commit_delay: opts.commit_delay,
                fsync: opts.fsync,
            };
            std::thread::Builder::new()
                .name("wal writer".into())
                .spawn(move || {
                    let mut sink = FileSink::new(segs.clone());
                    writer::run(buf, segs, &mut sink, cfg, stop)
                })
                .map_err(|e| PgError::internal(format!("could not start the WAL writer: {e}")))?
        };
        buf.set_writer(handle.thread().clone());
        Ok(Wal {
            buf,
            segs,
            opts,
            stop,
            writer: std::sync::Mutex::new(Some(handle)),
        })
    }

    pub fn options(&self) -> &WalOptions {
        &self.opts
    }

    /// The shared buffer, for callers that keep it apart from the writer's handle.
    pub fn buffer(&self) -> &Arc<WalBuffer> {
        &self.buf
    }

    /// Recycles or removes the segment files wholly before `redo` (see "Segments"). The
    /// checkpointer calls it with its redo point once the checkpoint is durable; positions past
    /// the flushed one are taken as the flushed one.
    pub fn remove_before(&self, redo: Lsn) -> PgResult<()> {
        let redo = redo.0.min(self.buf.flush_lsn().0);
        let seg = self.opts.wal_segment_size;
        let end = self.segs.remove_before(
            redo,
            self.buf.insert_lsn().0,
            self.opts.min_wal_size / seg,
            self.opts.max_wal_size / seg,
        )?;
        self.buf.note_allocated(end);
        Ok(())
    }

    /// Test hooks: make the next write, sync or segment creation fail.
    #[doc(hidden)]
    pub fn faults(&self) -> &Faults {
        &self.segs.faults
    }

    /// Flushes everything inserted and stops the writer. Insertions must have finished.
    /// Returns the log's failure, if it failed.
    pub fn shutdown(&self) -> PgResult<()> {
        let handle = self.writer.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some(h) = handle {
            self.stop.store(true, Ordering::SeqCst);
            h.thread().unpark();
            let _ = h.join();
        }
        match self.buf.failure() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}

impl Drop for Wal {
    fn drop(&mut self) {
        let _ = self.shutdown();
    }
}

/// Zeroes segment `segno` from `from` to its end, so that a log resumed there is never
/// followed by bytes of its previous run.
fn zero_tail(segs: &Segments, segno: u64, from: u64, fsync: bool) -> PgResult<()> {
    use std::os::unix::fs::FileExt;
    let path = segs.path(segno);
    let err = |e: std::io::Error| {
        crate::error::io_error(
            &e,
            format!("could not write to file \"{}\"", path.display()),
        )
    };
    let f = std::fs::OpenOptions::new()
        .write(true)
        .open(&path)
        .map_err(err)?;
    let zeros = vec![0u8; 1 << 16];
    let mut off = from;
    while off < segs.seg_size {
        let n = zeros.len().min((segs.seg_size - off) as usize);
        f.write_all_at(&zeros[..n], off).map_err(err)?;
        off += n as u64;
    }
    if fsync {
        f.sync_data().map_err(err)?;
    }
    Ok(())
}
