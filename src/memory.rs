//! The memory bound (`--max-memory`): a statement that would grow the server past it fails with
//! 53200 `out of memory` instead of the process being killed by the kernel.
//!
//! # Design
//!
//! Tables live in memory, so the rows a session writes are what grows the server. Counting
//! every allocation (a global allocator with a shared counter) would put one contended atomic
//! on every malloc of every session; instead a monitor thread reads the process's resident size
//! (`/proc/self/statm`) every [`CHECK_EVERY`] and keeps it in [`MemoryLimit`]. A statement that
//! writes rows (INSERT, UPDATE, COPY FROM, CREATE TABLE AS, ...) asks [`MemoryLimit::check`]
//! before each row: one atomic load. Past the bound it fails with 53200 and its transaction
//! rolls back, which frees what it wrote (at the next vacuum) — reads, deletes, TRUNCATE and
//! DROP still work, so a user can make room.
//!
//! The bound is soft by what the server can allocate between two readings: rows written in the
//! last [`CHECK_EVERY`] by all sessions. A writer that has written [`RECHECK_ROWS`] rows since
//! the last reading reads the size itself, so one bulk load cannot outrun the monitor by more
//! than that.
//!
//! Default: 80 % of the machine's memory, or of the cgroup's limit when one is set.
//!
//! # Invariants
//!
//! 1. `used` only ever holds a reading of the resident size: it is written by `refresh` alone
//!    (the monitor every [`CHECK_EVERY`], a writer every [`RECHECK_ROWS`] rows, and `new`).
//! 2. `check` refuses only when the reading it uses is past the bound; it never refuses a
//!    caller for what another caller is about to write.
//! 3. Where the resident size cannot be read (no `/proc/self/statm`), the reading is 0 and no
//!    statement is refused: the bound is off rather than wrong.
//!
//! # Concurrency
//!
//! No locks: one `AtomicU64`, loaded and stored Relaxed (a reading a few milliseconds old is as
//! good as a fresh one for a soft bound). The monitor thread holds only a `Weak` to the limit
//! and ends at its first wake-up after the limit is dropped.
//!
//! # Bounds and behaviour at the bound
//!
//! Past the bound, each statement that writes a row fails with 53200 `out of memory`, with the
//! sizes in its detail, until a reading is under it again; reads and removals go on. The
//! overshoot is what all sessions write in one [`CHECK_EVERY`], and one writer's at most
//! [`RECHECK_ROWS`] rows between its own readings.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Weak};
use std::time::Duration;

use crate::error::{code, PgError, PgResult};

/// How often the monitor reads the resident size.
pub const CHECK_EVERY: Duration = Duration::from_millis(20);
/// Rows a writer may write between readings before it reads the size itself.
pub const RECHECK_ROWS: u64 = 4096;

/// The bound and the last reading of the resident size (bytes).
pub struct MemoryLimit {
    limit: u64,
    used: AtomicU64,
}

impl MemoryLimit {
    pub fn new(limit: u64) -> MemoryLimit {
        let m = MemoryLimit {
            limit,
            used: AtomicU64::new(0),
        };
        m.refresh();
        m
    }

    pub fn limit(&self) -> u64 {
        self.limit
    }

    /// Reads the resident size now.
    pub fn refresh(&self) -> u64 {
        let used = resident_bytes().unwrap_or(0);
        self.used.store(used, Ordering::Relaxed);
        used
    }

    /// Fails with 53200 when the last reading is past the bound. `written`: rows the caller
    /// wrote since it last asked with a fresh reading (see [`RECHECK_ROWS`]).
    pub fn check(&self, written: u64) -> PgResult<()> {
        let mut used = self.used.load(Ordering::Relaxed);
        if written > 0 && written.is_multiple_of(RECHECK_ROWS) {
            used = self.refresh();
        }
        if used > self.limit {
            return Err(
                PgError::new(code::OUT_OF_MEMORY, "out of memory").with_detail(format!(
                    "The server uses {} MB of its {} MB limit (--max-memory).",
                    used >> 20,
                    self.limit >> 20
                )),
            );
        }
        Ok(())
    }
}

/// The process's resident set size in bytes (Linux), or None where it cannot be read.
fn resident_bytes() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = text.split_whitespace().nth(1)?.parse().ok()?;
    // SAFETY: sysconf has no preconditions.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    Some(pages * u64::try_from(page).ok().filter(|p| *p > 0).unwrap_or(4096))
}

/// The default bound: 80 % of the machine's memory, or of the cgroup's memory limit if lower.
pub fn default_limit() -> u64 {
    let total = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|t| {
            t.lines()
                .find(|l| l.starts_with("MemTotal:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse::<u64>().ok())
        })
        .map(|kb| kb * 1024)
        .unwrap_or(8 << 30);
    let cgroup = std::fs::read_to_string("/sys/fs/cgroup/memory.max")
        .ok()
        .and_then(|t| t.trim().parse::<u64>().ok());
    let base = cgroup.map_or(total, |c| c.min(total));
    base / 10 * 8
}

/// Parses a size as PostgreSQL writes memory settings: a number of bytes, or with kB, MB, GB
/// or TB.
pub fn parse_size(s: &str) -> Option<u64> {
    let s = s.trim();
    let digits = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    let n: u64 = s[..digits].parse().ok()?;
    let unit = match s[digits..].trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "kb" => 1 << 10,
        "mb" => 1 << 20,
        "gb" => 1 << 30,
        "tb" => 1 << 40,
        _ => return None,
    };
    n.checked_mul(unit)
}

/// SHOW's form of a memory setting of `kb` kilobytes: the largest unit that divides it
/// (`16MB`, `1GB`, `64kB`).
pub fn format_kb(kb: i64) -> String {
    for (unit, f) in [("TB", 1i64 << 30), ("GB", 1 << 20), ("MB", 1 << 10)] {
        if kb % f == 0 {
            return format!("{}{}", kb / f, unit);
        }
    }
    format!("{kb}kB")
}

/// Starts the monitor thread (it ends when the limit's owner is gone).
pub fn start_monitor(limit: &Arc<MemoryLimit>) {
    let weak: Weak<MemoryLimit> = Arc::downgrade(limit);
    let spawned = std::thread::Builder::new()
        .name("memory".into())
        .spawn(move || loop {
            std::thread::sleep(CHECK_EVERY);
            match weak.upgrade() {
                Some(m) => {
                    m.refresh();
                }
                None => return,
            }
        });
    if let Err(e) = spawned {
        tracing::warn!("memory monitor not started: {e}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_as_postgresql_writes_them() {
        assert_eq!(parse_size("1024"), Some(1024));
        assert_eq!(parse_size("64MB"), Some(64 << 20));
        assert_eq!(parse_size("2 GB"), Some(2 << 30));
        assert_eq!(parse_size("8kB"), Some(8 << 10));
        assert_eq!(parse_size("lots"), None);
        assert_eq!(parse_size("1PB"), None);
    }

    #[test]
    fn a_limit_below_the_resident_size_refuses() {
        let m = MemoryLimit::new(1);
        let e = m.check(0).unwrap_err();
        assert_eq!(e.code, code::OUT_OF_MEMORY);
        assert!(MemoryLimit::new(u64::MAX).check(RECHECK_ROWS).is_ok());
    }
}
