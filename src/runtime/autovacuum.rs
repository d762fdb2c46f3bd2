//! The background vacuum: reclaims dead row versions and dead catalog versions without anyone
//! running VACUUM, as PostgreSQL's autovacuum does.
//!
//! One thread (`--autovacuum on`, the default) wakes every `--autovacuum-naptime-ms` (50 ms:
//! see `Config`'s default for why so often; a round that finds nothing to do costs a few
//! microseconds),
//! computes the vacuum horizon once (`TxnManager::horizon`: the oldest snapshot in use), and
//!
//! * vacuums each table whose rows changed enough since its last round: more than PostgreSQL's
//!   default threshold, 50 rows plus 20 % of the table's row versions (`TableData::changes`,
//!   added once per INSERT / UPDATE / DELETE statement);
//! * analyzes each table whose rows changed enough since its last ANALYZE: more than
//!   PostgreSQL's default threshold, 50 rows plus 10 % of the rows it had then
//!   (`TableData::mod_since_analyze`), so that the planner's statistics follow the data, and
//!   at most once a minute per table (`ANALYZE_SPACING_US`);
//! * vacuums the catalog: relation versions ended before the horizon go, and with the last of
//!   them the data of a dropped or truncated table.
//!
//! The work is the same as VACUUM's (`engine::vacuum`): it runs beside sessions, taking each
//! row slot's mutex briefly, and takes no relation lock (a vacuum changes no row a snapshot in
//! use can see). It runs on its own thread, never on a shard's, so sessions are not held up by
//! it beyond the slots it touches.
//!
//! # Invariants
//!
//! 1. No change is forgotten: a round subtracts from a table's `changes` exactly the count it
//!    read (`fetch_sub`, in `round`), so changes counted while it vacuums carry to the next round.
//! 2. One horizon per round, computed before any table is visited (`txns.horizon()`): nothing
//!    a snapshot that was in use at the start of the round can see is removed.
//! 3. Only tables and materialized views are vacuumed (`RelKind::has_rows`); views and
//!    sequences have no row versions.
//! 4. The allocator is asked to give memory back only after a round that removed something
//!    (row versions or catalog versions).
//!
//! # Concurrency and lock order
//!
//! The thread takes no lock of its own and no relation lock, and waits for no transaction:
//! `engine::vacuum` takes a table's row slot mutexes one at a time (then the heap's free list
//! lock, alone), and the catalog's vacuum takes the catalog's own locks (see `catalog`). Between
//! rounds it holds only a `Weak` to the instance.
//!
//! # Bounds
//!
//! One thread; a round visits every table once at most. Shutdown: the thread is detached; it
//! ends at its first wake-up after the instance is gone, or with the process (it holds nothing
//! that needs to be written out).

use std::sync::atomic::Ordering;
use std::sync::{Arc, Weak};
use std::time::Duration;

use crate::instance::Instance;
use crate::sql::engine;
use crate::txn::Snapshot;

/// PostgreSQL's autovacuum_vacuum_threshold and autovacuum_vacuum_scale_factor.
const THRESHOLD: u64 = 50;
const SCALE_PERCENT: u64 = 20;
/// PostgreSQL's autovacuum_analyze_threshold and autovacuum_analyze_scale_factor.
const ANALYZE_THRESHOLD: u64 = 50;
const ANALYZE_SCALE_PERCENT: u64 = 10;
/// The least time between two automatic analyzes of one table (PostgreSQL's
/// autovacuum_naptime, which spaces them so): a table updated all the time (TPC-C's stock) is
/// not read again and again beside the sessions writing it.
const ANALYZE_SPACING_US: i64 = 60_000_000;

/// Starts the background vacuum of `instance` (it ends when the instance is gone).
pub fn start(instance: &Arc<Instance>) {
    if !instance.config.autovacuum {
        return;
    }
    let weak = Arc::downgrade(instance);
    let nap = Duration::from_millis(instance.config.autovacuum_naptime_ms);
    let spawned = std::thread::Builder::new()
        .name("autovacuum".into())
        .spawn(move || run(weak, nap));
    if let Err(e) = spawned {
        tracing::warn!("background vacuum not started: {e}");
    }
}

fn run(instance: Weak<Instance>, nap: Duration) {
    loop {
        std::thread::sleep(nap);
        let Some(instance) = instance.upgrade() else {
            return;
        };
        round(&instance);
    }
}

/// One round: the tables that changed enough, then the catalog. Returns the tables vacuumed.
pub fn round(instance: &Instance) -> usize {
    let txns = &instance.txns;
    let horizon = txns.horizon();
    let now = txns.visible();
    let snap = Snapshot {
        csn: now,
        top: 0,
        cid: 0,
    };
    let mut vacuumed = 0;
    let mut freed = false;
    for rel in instance.catalog.visible(&snap) {
        if !rel.kind.has_rows() {
            continue;
        }
        maybe_analyze(&rel, &snap, txns.wal().map(|w| &**w));
        let changes = rel.data.changes.load(Ordering::Relaxed);
        let versions = engine::versions(&rel);
        if changes <= THRESHOLD + versions * SCALE_PERCENT / 100 {
            continue;
        }
        rel.data.changes.fetch_sub(changes, Ordering::Relaxed);
        let stats = engine::vacuum(&rel, horizon, now);
        let s = &rel.data.stats;
        s.autovacuums.fetch_add(1, Ordering::Relaxed);
        s.last_autovacuum.store(
            crate::sql::types::datetime::now_timestamptz(),
            Ordering::Relaxed,
        );
        tracing::debug!(
            table = %rel.name.name,
            removed = stats.removed,
            redirected = stats.redirected,
            "autovacuum"
        );
        vacuumed += 1;
        freed |= stats.removed > 0;
    }
    freed |= !instance.catalog.vacuum(horizon).is_empty();
    if freed {
        give_back_memory();
    }
    vacuumed
}

/// Analyzes `rel` when more rows changed since its last ANALYZE than PostgreSQL's threshold
/// (50 plus 10 % of the rows it counted then, or of its row versions if never analyzed; a
/// table without statistics counts all its rows), and its last automatic analyze is a minute
/// old.
fn maybe_analyze(rel: &engine::Rel, snap: &Snapshot, wal: Option<&crate::wal::Wal>) {
    let stats = engine::statistics(rel);
    let mut changed = rel.data.mod_since_analyze.load(Ordering::Relaxed);
    if stats.is_none() {
        // A table restored at start has its rows but not its statistics (they are not kept on
        // disk, where PostgreSQL keeps pg_statistic): all of them count as changed, so that the
        // planner has statistics again soon after a restart.
        changed = changed.max(engine::versions(rel));
    }
    if changed <= ANALYZE_THRESHOLD {
        return;
    }
    let rows = stats.map_or(engine::versions(rel), |s| s.rows as u64);
    if changed <= ANALYZE_THRESHOLD + rows * ANALYZE_SCALE_PERCENT / 100 {
        return;
    }
    let last = rel.data.stats.last_autoanalyze.load(Ordering::Relaxed);
    if last != 0 && crate::sql::types::datetime::now_timestamptz() - last < ANALYZE_SPACING_US {
        return;
    }
    match engine::analyze_table(rel, snap, true, wal) {
        Ok(found) => tracing::debug!(table = %rel.name.name, rows = found.rows, "autoanalyze"),
        Err(e) => tracing::warn!(table = %rel.name.name, "autoanalyze: {}", e.message),
    }
}

/// Hands memory the allocator keeps after frees back to the system, so the resident size (what
/// `--max-memory` bounds) falls when rows are reclaimed.
fn give_back_memory() {
    // SAFETY: mi_collect only returns the free pages of the allocator's heaps to the system
    // (`force`: of every thread's heap, not only this thread's).
    unsafe {
        libmimalloc_sys::mi_collect(true);
    }
}
