//! Durability: the data directory, the write-ahead log's use, checkpoint images, recovery.
//!
//! # Design
//!
//! threadgres keeps its tables in memory. What survives the process is in the data directory
//! ([`datadir`]): a *checkpoint image* ([`image`], [`checkpoint`]) holding everything a
//! snapshot sees — roles, schemas, relations with their rows, sequences' counters, views,
//! comments, databases and the counters that number new objects — and the write-ahead log
//! (`pg_wal/`, [`crate::wal`]) of what was committed after it: row changes (`sql::engine::log`),
//! sequence counters (`sql::sequence`), transaction ends (`txn::log`) and, with each
//! schema-changing commit, what it changed in the catalog ([`Durable::catalog_commit`]). A
//! start locks the directory, initializes it if it is new, or reads the last image back and
//! replays the log after it ([`restore`]) before the server accepts connections.
//!
//! An image is read at one registered snapshot while writers go on (the heaps are versioned,
//! so a read at a snapshot needs no lock), written to a temporary file, synced and renamed
//! over the previous one; the log before its redo point is then recycled.
//!
//! # Claims (`docs/wal-commit-path.md`), and where they are checked
//!
//! * C1: no snapshot sees a commit, and no cell reads as committed, before the commit's record
//!   is flushed (`TxnManager::commit_logged`; shuttle model `txn::model`).
//! * C3: a commit that read another's rows, or waited for it, has its commit record after that
//!   one's (the other was published after its append; commit records are in CSN order).
//! * R1: every record of a transaction an image's snapshot does not see lies at or after the
//!   image's redo point ([`Durable::checkpoint`]: the insert position, then the transactions'
//!   first positions, then the snapshot; shuttle model `txn::model`).
//! * R2: replay from (image at S, redo) gives exactly the committed transactions, each whole:
//!   it applies the transactions whose commit record holds a CSN at or above S, and nothing of
//!   the others (`tests/py/test_crash_points.py`, `test_crash_torture.py`).
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
//! 4. Temporary tables and sessions' temporary schemas are never written or logged; UNLOGGED
//!    tables are not logged, and their rows are read back only from a shutdown image with no
//!    log after it.
//! 5. Catalog records follow each other in the log as the catalogs they describe do: a
//!    schema-changing commit holds `schema_commits` from its catalog image to its publication.
//!
//! # Lock order
//!
//! `Durable::checkpointing` (a whole checkpoint, alone) → `Durable::schema_commits` (while the
//! cut and snapshot are read) → the catalog's and heap's own short locks. A schema-changing
//! commit holds `schema_commits` → `TxnManager::commit_order` (two `fetch_add`s) and waits for
//! its flush under the first. Nothing here is held while a session waits for a row.
//!
//! # Bounds
//!
//! A checkpoint holds one batch of rows (at most `image::ROWS_BATCH_BYTES`, or one row if
//! larger) and the list of visible relations in memory; recovery one batch or record at a time,
//! plus its maps (see [`restore`]). The log between checkpoints is bounded by `max_wal_size`
//! (half of it starts a checkpoint).

pub mod checkpoint;
pub mod datadir;
pub mod image;
pub mod restore;
pub mod scan;

use std::path::Path;
use std::sync::Arc;

use parking_lot::Mutex;

pub use checkpoint::{Counters, Written};
pub use datadir::DataDir;
pub use image::Kind;
pub use restore::Restored;

use crate::error::PgResult;
use crate::sql::engine::SqlCatalog;
use crate::txn::{Csn, TxnCell, TxnManager};
use crate::wal::{Lsn, Wal, WalOptions};

/// The log's directory inside the data directory (PostgreSQL's name).
pub const WAL_DIR: &str = "pg_wal";

/// The instance's durable side: its locked data directory, its log, and checkpoints one at a
/// time.
pub struct Durable {
    dir: Mutex<DataDir>,
    checkpointing: Mutex<()>,
    /// Held by a schema-changing commit from its catalog image to its publication, and by a
    /// checkpoint while it reads its cut and snapshot: catalog records are in the log in the
    /// order their catalogs follow each other, and each is either in an image or after its
    /// `catalog_lsn`.
    schema_commits: Mutex<()>,
    wal: Arc<Wal>,
    /// The redo point of the last image written (the checkpointer measures WAL from it).
    last_redo: std::sync::atomic::AtomicU64,
    /// The header of the last image written or read back (pg_control_checkpoint).
    last_image: Mutex<Option<image::Header>>,
}

/// What pg_control_system and pg_control_checkpoint report (PostgreSQL's control file).
#[derive(Debug, Clone, Copy)]
pub struct Control {
    pub system_identifier: u64,
    /// The last checkpoint image's header (None before the first is written).
    pub last_image: Option<image::Header>,
    pub wal_segment_size: u64,
}

impl Durable {
    /// Opens (locks, checks) the data directory at `path`, reads its image and replays the
    /// log after it into `catalog`, then opens the log for writing and connects it to `txns`.
    pub fn open(
        path: &Path,
        port: u16,
        catalog: &SqlCatalog,
        txns: &TxnManager,
        wal_options: impl FnOnce(&Path) -> WalOptions,
    ) -> Result<(Durable, Option<Restored>), String> {
        let dir = DataDir::open(path, port)?;
        let mut opts = wal_options(&path.join(WAL_DIR));
        // The segment size is fixed when the log is made (initdb's --wal-segsize): an
        // existing log's files say what it is.
        if let Some(len) = std::fs::read_dir(&opts.dir).ok().and_then(|d| {
            d.flatten()
                .filter(|e| e.file_name().len() == 24)
                .find_map(|e| e.metadata().ok().map(|m| m.len()))
        }) {
            if len.is_power_of_two() && len != opts.wal_segment_size {
                opts.wal_segment_size = len;
                opts.wal_buffers = opts.wal_buffers.min(len as usize);
                opts.min_wal_size = opts.min_wal_size.max(2 * len);
                opts.max_wal_size = opts.max_wal_size.max(2 * len);
            }
        }
        let mut last_image = None;
        let (restored, resume) = if dir.fresh {
            // A directory initialized halfway (no image yet) may hold a log of that attempt.
            let _ = std::fs::remove_dir_all(&opts.dir);
            (None, None)
        } else {
            let Some(mut rec) = restore::load_image(path, txns)? else {
                return Err(format!(
                    "could not find the checkpoint image in data directory \"{}\"",
                    path.display()
                ));
            };
            last_image = Some(*rec.header());
            restore::replay(&mut rec, &opts.dir, opts.wal_segment_size, txns)?;
            let r = restore::install(rec, catalog, txns)?;
            txns.advance_xid(r.replayed.max_xid + 1);
            let end = Lsn(r
                .replayed
                .end
                .max(crate::wal::first_lsn(opts.wal_segment_size).0));
            let resume = if opts.dir.exists() { Some(end) } else { None };
            (Some(r), resume)
        };
        let wal = Arc::new(Wal::open(opts, resume).map_err(|e| e.message.clone())?);
        txns.set_wal(wal.clone());
        Ok((
            Durable {
                dir: Mutex::new(dir),
                checkpointing: Mutex::new(()),
                schema_commits: Mutex::new(()),
                last_redo: std::sync::atomic::AtomicU64::new(wal.insert_lsn().0),
                last_image: Mutex::new(last_image),
                wal,
            },
            restored,
        ))
    }

    /// Whether this start initialized the directory (it still has to be marked so, after its
    /// first image: [`Durable::checkpoint`] with [`Kind::Initial`]).
    pub fn fresh(&self) -> bool {
        self.dir.lock().fresh
    }

    pub fn wal(&self) -> &Arc<Wal> {
        &self.wal
    }

    /// The control data: the directory's identifier and the last checkpoint image's header.
    pub fn control(&self) -> Control {
        Control {
            system_identifier: self.dir.lock().system_identifier,
            last_image: *self.last_image.lock(),
            wal_segment_size: self.wal.options().wal_segment_size,
        }
    }

    /// How much log was written since the last image's redo point.
    pub fn wal_since_redo(&self) -> u64 {
        let redo = self.last_redo.load(std::sync::atomic::Ordering::SeqCst);
        self.wal.insert_lsn().0.saturating_sub(redo)
    }

    /// Writes an image of what the newest snapshot sees; an initial one also marks the
    /// directory initialized. The log before the image's redo point is recycled after it.
    pub fn checkpoint(
        &self,
        catalog: &SqlCatalog,
        txns: &TxnManager,
        counters: impl FnOnce() -> Counters,
        kind: Kind,
    ) -> PgResult<Written> {
        let _one = self.checkpointing.lock();
        let path = self.dir.lock().path().to_path_buf();
        let slot = txns.register();
        // Claim R1: the insert position, then the first positions of the transactions in
        // progress, then the snapshot.
        let (snap, cut, counters) = {
            let _schema = self.schema_commits.lock();
            let insert = self.wal.insert_lsn().0;
            let first = txns.min_first_lsn().unwrap_or(u64::MAX);
            let snap = txns.snapshot(&slot, 0, 0);
            let cut = checkpoint::Cut {
                redo: insert.min(first),
                catalog_lsn: insert,
            };
            (snap, cut, counters())
        };
        let w = checkpoint::write(&path, catalog, &snap, cut, counters, kind);
        txns.unregister(&slot);
        let w = w?;
        if kind == Kind::Initial {
            self.dir.lock().mark_initialized()?;
        }
        self.last_redo
            .store(w.redo, std::sync::atomic::Ordering::SeqCst);
        *self.last_image.lock() = Some(w.header);
        self.wal.remove_before(Lsn(w.redo))?;
        Ok(w)
    }

    /// Commits a schema-changing transaction (`cell`; top-level id `top`, 0 for none, and
    /// `cid` after its last command) with the catalog it leaves in its commit record. A
    /// statement without a transaction (CREATE DATABASE) logs its catalog with transaction
    /// id 0 and no CSN.
    pub fn catalog_commit(
        &self,
        catalog: &SqlCatalog,
        txns: &TxnManager,
        cell: &TxnCell,
        top: u64,
        cid: u32,
        counters: impl FnOnce() -> Counters,
    ) -> PgResult<Csn> {
        let _schema = self.schema_commits.lock();
        let slot = txns.register();
        let snap = txns.snapshot(&slot, top, cid);
        let image = checkpoint::catalog_image(catalog, &snap, &counters());
        txns.unregister(&slot);
        let image = match image {
            Ok(i) => i,
            Err(e) => {
                // Nothing is logged: the transaction ends as aborted, as a failed append does.
                txns.abort(cell, &[]);
                return Err(e);
            }
        };
        if cell.has_log() {
            return txns.commit_logged(cell, Some(image), true);
        }
        let payload = crate::txn::log::CommitRecord {
            csn: 0,
            catalog: Some(image),
        }
        .encode();
        // The cell only stood for the statement: it ends whatever the append does.
        txns.abort(cell, &[]);
        let appended = self.wal.insert_blocking(
            crate::txn::log::KIND,
            crate::txn::log::info::COMMIT,
            0,
            &payload,
        )?;
        if let Err(e) = self.wal.wait_flushed_blocking(appended.end) {
            crate::wal::panic_on_flush_failure(&e);
        }
        Ok(0)
    }

    /// Releases the data directory (the end of a clean shutdown).
    pub fn close(&self) {
        let _ = self.wal.shutdown();
        self.dir.lock().close();
    }
}
