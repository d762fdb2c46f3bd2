//! The WAL writer thread: writes and syncs the complete prefix of the ring, keeps a segment
//! ahead of the insert position, and releases flush waiters (group commit).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use super::insert::{Sink, WalBuffer};
use super::segment::Segments;

pub struct WriterConfig {
    pub wal_writer_delay: Duration,
    pub commit_delay: Duration,
    pub fsync: bool,
}

/// The writer's loop; returns when `stop` is set and everything inserted is flushed, or when
/// the log fails.
pub fn run(
    buf: Arc<WalBuffer>,
    segs: Arc<Segments>,
    sink: &mut dyn Sink,
    cfg: WriterConfig,
    stop: Arc<AtomicBool>,
) {
    let mut disk_full = false;
    loop {
        let stopping = stop.load(Ordering::SeqCst);
        // Keep the next segment ready, so that inserters do not create it themselves. A full
        // disk is not fatal here: the inserter that needs the segment gets the error.
        let want = buf.insert_lsn().0 + segs.seg_size;
        if buf.allocated_end() < want {
            match segs.extend(want) {
                Ok(end) => {
                    buf.note_allocated(end);
                    disk_full = false;
                }
                Err(e) => {
                    if !disk_full {
                        tracing::warn!("could not pre-allocate WAL: {}", e.message);
                    }
                    disk_full = true;
                }
            }
        }
        // commit_delay: a flush was asked for; give other committers a moment to join it.
        if !cfg.commit_delay.is_zero() && buf.writer_wanted() {
            std::thread::sleep(cfg.commit_delay);
        }
        match buf.write_step(sink, cfg.fsync) {
            Ok(true) => continue,
            Ok(false) => {}
            Err(e) => {
                tracing::error!("WAL writer: {}", e.message);
                buf.fail(e);
                return;
            }
        }
        if stopping && (buf.write_lsn() >= buf.insert_lsn() || disk_full) {
            return;
        }
        // Woken by a flush request, a full ring, or an insertion that a requested flush waits
        // behind (unpark tokens are never lost); otherwise every wal_writer_delay for
        // asynchronous commits, and while the disk is full.
        let delay = if (stopping || buf.writer_wanted()) && !disk_full {
            Duration::from_millis(1)
        } else {
            cfg.wal_writer_delay
        };
        std::thread::park_timeout(delay);
    }
}
