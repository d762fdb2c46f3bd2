//! The data directory: created and initialized on the first start, marked with the format
//! version of its files, and locked so that two servers never open it at once.
//!
//! The lock is `postmaster.pid` (the name PostgreSQL's tools look for), holding this server's
//! process id, the directory, the start time and the port, under an exclusive `flock`. The
//! kernel drops a `flock` when its process ends however it ends (kill -9 included), so a stale
//! file left by a crash never blocks a restart, while a running server always does.

use crate::error::{io_error, PgResult};
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};

/// The version of the data directory's file formats: a server refuses a directory written in
/// another. 2: constraints carry DEFERRABLE / INITIALLY DEFERRED. 3: index definitions carry
/// expressions, a predicate and the hash method. 4: tables carry their triggers. 5: types
/// carry domains, columns their domain, relations a materialized view's definition. 6: types
/// carry composite types' attributes. 7: types carry range types (their subtype), rows range
/// values. 8: columns carry whether they are generated. 9: indexes carry their GIN operator
/// class. 10: rows carry multirange values. 11: types carry an extension's base type
/// (hstore), extensions the types they made. 12: relations carry their rules. 13: relations carry a partitioned
/// table's key and a partition's parent and bound. 14: images and the log carry tables'
/// statistics. 15: triggers carry their transition tables' names (REFERENCING). 16: triggers
/// carry their constraint (CREATE CONSTRAINT TRIGGER). 17: rows carry citext values. 18: index
/// definitions carry INCLUDE columns, and types carry base and shell types (CREATE TYPE name
/// [(INPUT = ...)]).
pub const FORMAT_VERSION: u32 = 18;
/// The file that holds [`FORMAT_VERSION`]; written last when a directory is initialized, so a
/// directory without it was never initialized completely.
pub const VERSION_FILE: &str = "THREADGRES_VERSION";
/// The lock file.
pub const LOCK_FILE: &str = "postmaster.pid";

/// An open, locked data directory. Dropping it releases the lock; [`DataDir::close`] also
/// removes the lock file (a clean shutdown).
pub struct DataDir {
    path: PathBuf,
    lock: Option<File>,
    /// Whether this start initialized the directory.
    pub fresh: bool,
    /// The directory's unique identifier (pg_control_system's system_identifier): made when
    /// the directory is initialized, kept in the version file's second line.
    pub system_identifier: u64,
}

impl DataDir {
    /// Locks the directory `path` (which exists) and checks or writes its version. Errors are
    /// the FATAL lines the server prints before exiting.
    pub fn open(path: &Path, port: u16) -> Result<DataDir, String> {
        let lock_path = path.join(LOCK_FILE);
        let mut lock = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&lock_path)
            .map_err(|e| {
                format!(
                    "could not create lock file \"{}\": {e}",
                    lock_path.display()
                )
            })?;
        // SAFETY: flock on a file descriptor this function owns; no memory is involved.
        if unsafe { libc::flock(lock.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } != 0 {
            let other = std::fs::read_to_string(&lock_path).unwrap_or_default();
            let pid = other.lines().next().unwrap_or("?").trim().to_string();
            return Err(format!(
                "lock file \"{LOCK_FILE}\" already exists\nHINT:  Is another threadgres server \
                 (PID {pid}) running in data directory \"{}\"?",
                path.display()
            ));
        }
        let started = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0);
        lock.set_len(0)
            .and_then(|()| {
                write!(
                    lock,
                    "{}\n{}\n{started}\n{port}\n",
                    std::process::id(),
                    path.display()
                )
            })
            .and_then(|()| lock.sync_all())
            .map_err(|e| format!("could not write lock file \"{}\": {e}", lock_path.display()))?;
        let version_path = path.join(VERSION_FILE);
        let mut system_identifier = new_system_identifier();
        let fresh = match std::fs::read_to_string(&version_path) {
            Ok(v) => {
                let mut lines = v.lines();
                let found = lines.next().unwrap_or("").trim();
                // A directory initialized before the identifier was kept gets one from its
                // version file's time, which stays the same from start to start.
                system_identifier = match lines.next().and_then(|l| l.trim().parse().ok()) {
                    Some(id) => id,
                    None => std::fs::metadata(&version_path)
                        .and_then(|m| m.modified())
                        .map(system_identifier_at)
                        .unwrap_or(system_identifier),
                };
                if found != FORMAT_VERSION.to_string() {
                    return Err(format!(
                        "database files are incompatible with server\nDETAIL:  The data \
                         directory was initialized with format version {found}, which is not \
                         compatible with this version {FORMAT_VERSION}."
                    ));
                }
                false
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => true,
            Err(e) => {
                return Err(format!(
                    "could not read file \"{}\": {e}",
                    version_path.display()
                ))
            }
        };
        Ok(DataDir {
            path: path.to_path_buf(),
            lock: Some(lock),
            fresh,
            system_identifier,
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Marks the directory initialized (after its first checkpoint is written).
    pub fn mark_initialized(&mut self) -> PgResult<()> {
        write_atomically(
            &self.path,
            VERSION_FILE,
            format!("{FORMAT_VERSION}\n{}\n", self.system_identifier).as_bytes(),
        )?;
        self.fresh = false;
        Ok(())
    }

    /// Removes the lock file and releases the lock (the last step of a clean shutdown).
    pub fn close(&mut self) {
        if let Some(f) = self.lock.take() {
            let _ = std::fs::remove_file(self.path.join(LOCK_FILE));
            drop(f);
        }
    }
}

/// An identifier made as initdb makes one: the time in seconds in the high 32 bits, the
/// microseconds and the low bits of the process id below, so that two directories made
/// apart in time or by two processes differ.
fn new_system_identifier() -> u64 {
    let id = system_identifier_at(std::time::SystemTime::now());
    id | (std::process::id() as u64 & 0xFFF)
}

fn system_identifier_at(t: std::time::SystemTime) -> u64 {
    let d = t.duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    (d.as_secs() << 32) | ((d.subsec_micros() as u64) << 12)
}

/// Writes `name` in `dir` so that a crash leaves either the old file or the new one whole:
/// a temporary file, fsync, rename over the name, fsync of the directory.
pub fn write_atomically(dir: &Path, name: &str, bytes: &[u8]) -> PgResult<()> {
    let tmp = dir.join(format!("{name}.tmp"));
    let write = || -> std::io::Result<()> {
        let mut f = File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        Ok(())
    };
    write().map_err(|e| io_error(&e, format!("could not write file \"{}\"", tmp.display())))?;
    install(dir, name)
}

/// Renames `name.tmp` over `name` in `dir` and makes the rename durable.
pub fn install(dir: &Path, name: &str) -> PgResult<()> {
    let tmp = dir.join(format!("{name}.tmp"));
    let target = dir.join(name);
    std::fs::rename(&tmp, &target).map_err(|e| {
        let what = format!(
            "could not rename file \"{}\" to \"{}\"",
            tmp.display(),
            target.display()
        );
        io_error(&e, what)
    })?;
    File::open(dir).and_then(|d| d.sync_all()).map_err(|e| {
        io_error(
            &e,
            format!("could not fsync directory \"{}\"", dir.display()),
        )
    })
}
