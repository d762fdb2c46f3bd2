//! Durability: the data directory, checkpoint images, and what a start reads back.
//!
//! # Design
//!
//! threadgres keeps its tables in memory. What survives the process is written to the data
//! directory ([`datadir`]): a *checkpoint image* ([`image`], [`checkpoint`]) holding everything a
//! snapshot sees — roles, schemas, relations with their rows, sequences' counters, views,
//! comments, databases and the counters that number new objects — and, as the write-ahead log
//! is wired in (issue 29, `wal`), the log of what was committed after it. A start locks the
//! directory, initializes it if it is new (an initial image, then the version file) and reads
//! the last image back ([`restore`]) before the server accepts connections.
//!
//! An image is read at one registered snapshot while writers go on (the heaps are versioned,
//! so a read at a snapshot needs no lock), written to a temporary file, synced and renamed
//! over the previous one.
//!
//! # Invariants
//!
//! 1. The image file is always whole: it is replaced only by a rename of a synced file, then
//!    the directory is synced; a reader refuses a file whose frames do not all check or that
//!    lacks its end item.
//! 2. An image holds exactly what its snapshot sees: a transaction's writes are all in it or
//!    none (the snapshot sees a commit whole or not at all, `txn` invariant 3), and vacuum
//!    cannot reclaim a version it still has to read (its snapshot is registered).
//! 3. A directory is opened by one server at a time (`flock` on the lock file, released by
//!    the kernel however the process ends); it is marked initialized only after its first
//!    image is in place.
//! 4. Temporary tables and sessions' temporary schemas are never written; UNLOGGED tables'
//!    rows are read back only from an image written at a clean shutdown.
//!
//! # Lock order
//!
//! `Durable::checkpointing` is held for the whole of a checkpoint, alone: two checkpoints never
//! run at once. The image is read through the catalog's and heap's own short locks, one at a
//! time, never while holding anything of this module but that mutex.
//!
//! # Bounds
//!
//! A checkpoint holds one batch of rows (at most `image::ROWS_BATCH_BYTES`, or one row if
//! larger) and the list of visible relations in memory; a restore the same, plus one entry per
//! relation. What a commit made after the last image is lost by a crash until the
//! write-ahead log is wired in; a clean shutdown and CHECKPOINT write an image.

pub mod checkpoint;
pub mod datadir;
pub mod image;
pub mod restore;

use std::path::Path;

use parking_lot::Mutex;

pub use checkpoint::{Counters, Written};
pub use datadir::DataDir;
pub use image::Kind;
pub use restore::Restored;

use crate::error::PgResult;
use crate::sql::engine::SqlCatalog;
use crate::txn::TxnManager;

/// The instance's durable side: its locked data directory, and checkpoints one at a time.
pub struct Durable {
    dir: Mutex<DataDir>,
    checkpointing: Mutex<()>,
}

impl Durable {
    /// Opens (locks, checks) the data directory at `path` and reads its image into `catalog`.
    pub fn open(
        path: &Path,
        port: u16,
        catalog: &SqlCatalog,
        txns: &TxnManager,
    ) -> Result<(Durable, Option<Restored>), String> {
        let dir = DataDir::open(path, port)?;
        let restored = if dir.fresh {
            None
        } else {
            let r = restore::restore(path, catalog, txns)?;
            if r.is_none() {
                return Err(format!(
                    "could not find the checkpoint image in data directory \"{}\"",
                    path.display()
                ));
            }
            r
        };
        Ok((
            Durable {
                dir: Mutex::new(dir),
                checkpointing: Mutex::new(()),
            },
            restored,
        ))
    }

    /// Whether this start initialized the directory (it still has to be marked so, after its
    /// first image: [`Durable::checkpoint`] with [`Kind::Initial`]).
    pub fn fresh(&self) -> bool {
        self.dir.lock().fresh
    }

    /// Writes an image of what the newest snapshot sees; an initial one also marks the
    /// directory initialized.
    pub fn checkpoint(
        &self,
        catalog: &SqlCatalog,
        txns: &TxnManager,
        counters: Counters,
        kind: Kind,
    ) -> PgResult<Written> {
        let _one = self.checkpointing.lock();
        let path = self.dir.lock().path().to_path_buf();
        let w = checkpoint::write(&path, catalog, txns, counters, kind)?;
        if kind == Kind::Initial {
            self.dir.lock().mark_initialized()?;
        }
        Ok(w)
    }

    /// Releases the data directory (the end of a clean shutdown).
    pub fn close(&self) {
        self.dir.lock().close();
    }
}
