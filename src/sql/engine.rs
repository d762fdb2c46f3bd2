//! The engine: the one door from SQL to the catalog, transactions and storage.
//!
//! The executor and DDL reach tables only through this module. It fixes what storage's type
//! parameters are for SQL — a stored row is a boxed slice of [`Value`]s, an index key is a
//! [`Key`] of values ordered as SQL orders them — and implements the writes that need more than
//! one storage call: an insert checks every unique index and then adds every index entry; an
//! update decides whether it can be HOT. Each write to a table passes through [`insert`],
//! [`update`] or [`delete`] here, which is where the write-ahead log will record it.
//!
//! Nothing here waits: a write that meets another transaction's uncommitted change returns
//! [`WriteError::Wait`] with that transaction's cell, and the caller (the executor, through its
//! session) awaits its end and tries again.
//!
//! Reads go through the door too: outside `engine`, rows and index entries are read with the
//! functions of `read.rs` ([`scan`], [`fetch`], [`index_scan`], ...), never through a table's
//! heap or trees.
//!
//! The files of `engine/`: `read.rs` (the reads), `store.rs` (the heap and index trees as SQL
//! sees them: rows decoded to values, keys as [`Key`]s), `packed.rs` (the packed row format), `ikey.rs` (the compact
//! index key), `conflict.rs` (INSERT ... ON CONFLICT's check), `gin.rs` (GIN indexes: a row's
//! several keys, and the operator classes that make them).
//!
//! # Invariants
//!
//! 1. Every change to a table's heap goes through this module: the storage heap inside
//!    [`RowHeap`] is `pub(super)` (`engine/store.rs`), so outside `engine` a heap can only be
//!    read, and only through `read.rs` (the heap's and trees' own reads are `pub(super)` too);
//!    [`insert`], [`update`], [`delete`], [`lock`], [`load`], [`insert_packed`] and [`vacuum`]
//!    are the writes.
//! 2. A row is in every index of the relation version its writer planned with: [`insert`]
//!    adds an entry to each of `rel.indexes`' trees once the row is in the heap, and [`update`]
//!    does so for the new version unless no indexed column changed (a HOT update, whose new
//!    version the old entries reach through the chain). [`vacuum`] removes a version's
//!    entries in the same pass that reclaims the version.
//! 3. A unique key is checked and its entry added under the key's lock: `check_unique` takes
//!    the key locks of the unique indexes whose key the write sets, in index order, and the
//!    guards are dropped only after the new entries are in. A key with a NULL, or one an update
//!    leaves unchanged, is not checked (NULLs are distinct; the old version holds the key).
//! 4. An update that changes a unique index's column takes the key-update row lock
//!    (`LockMode::Update`); any other update `LockMode::NoKeyUpdate`, which KEY SHARE lockers
//!    (foreign key checks) do not conflict with.
//! 5. A table has at most one tree per index OID: [`TableData::tree`] creates a missing tree
//!    under the write lock of `trees` after looking again.
//!
//! # Lock order
//!
//! Key locks (index order, one stripe each) → the heap's slot locks (taken inside storage while
//! the key locks are held: `probe_key`, the insert or update itself) → nothing. The `trees`
//! lock of [`TableData`] is held only to find, add or replace a tree, never across another
//! lock or call. No lock is held when a write returns, and none while anyone waits for a
//! transaction: [`WriteError::Wait`] drops them all.
//!
//! # Bounds
//!
//! A write holds at most one key lock per unique index of its table. Statistics and the
//! background vacuum's change count are atomic counters added once per statement. The parallel
//! index build (`KeyTree::build`) starts at `PARALLEL_BUILD_MIN` entries with at most
//! `MAX_BUILD_WORKERS` threads (`engine/store.rs`).

use std::cmp::Ordering;
use std::hash::{Hash, Hasher};

use parking_lot::RwLock;

use crate::catalog::{self, Oid, Relation};
use crate::storage::{Change, LockMode, Probe, RowId};
use crate::sync::{Arc, MutexGuard};
use crate::txn::{Cid, Snapshot, TxnCell};

use super::types::{self, Value};

pub mod analyze;
mod conflict;
pub mod gin;
mod ikey;
mod image;
mod index_keys;
pub mod log;
mod packed;
mod read;
mod store;

pub use conflict::{find_conflict, Conflict};
pub use ikey::IKey;
pub use index_keys::{key_of, register_compiler, Compiler, KeyExprs};
pub use packed::{PackedRow, RowPacker};
pub use read::{
    fetch, fetch_packed, heap_bytes, index_bytes, index_scan, index_scan_back, is_empty,
    next_version, predicate_index, predicate_relation, predicate_root, predicate_tuple, prefetch,
    read, read_latest, read_packed, root_keys, scan, scan_owned, scan_packed, sees, versions,
};
pub use store::{KeyRef, KeyTree, RowHeap};

/// A stored row: one value per column (dropped columns hold NULL).
pub type Row = Box<[Value]>;

/// A table as the catalog knows it.
pub type Rel = Relation<TableData>;
/// The instance's catalog of tables.
pub type SqlCatalog = catalog::Catalog<TableData>;

/// The schemas a search_path setting names, in order, without `"$user"` (the caller puts the
/// user's name in its place) and the implicit ones (pg_catalog, pg_temp): whether each exists
/// is [`schema_exists`]'s question, asked where it matters (a name looked up in a schema that
/// does not exist is simply not found there).
pub fn search_schemas(search_path: &str) -> impl Iterator<Item = &str> {
    search_path
        .split(',')
        .map(|p| p.trim().trim_matches('"'))
        .filter(|p| !p.is_empty() && !matches!(*p, "$user" | "pg_catalog" | "pg_temp"))
}

/// Whether `name` is a session's schema of temporary tables (`pg_temp_N`, session/temp.rs).
pub fn is_temp_schema(name: &str) -> bool {
    name.strip_prefix("pg_temp_")
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// Whether schema `name` exists in `database` as `snap` sees it: `public`, or one made by
/// CREATE SCHEMA.
pub fn schema_exists(catalog: &SqlCatalog, snap: &Snapshot, database: &str, name: &str) -> bool {
    name == "public" || catalog.namespaces.lookup(database, name, snap).is_some()
}

/// The relation `schema.name` (or `name` through `schemas`, in order) in `database`, as `snap`
/// sees it: the one name resolution of tables, for the planner and for DDL.
pub fn find_rel<'s>(
    catalog: &SqlCatalog,
    snap: &Snapshot,
    database: &str,
    schemas: impl IntoIterator<Item = &'s str>,
    schema: &str,
    name: &str,
) -> Option<Arc<Rel>> {
    let q = |s: &str| catalog::QualName {
        database: database.to_string(),
        schema: s.to_string(),
        name: name.to_string(),
    };
    if schema == "pg_temp" {
        // The session's own temporary schema, which its search path names first.
        return schemas
            .into_iter()
            .find(|s| is_temp_schema(s))
            .and_then(|s| catalog.lookup(&q(s), snap));
    }
    if !schema.is_empty() {
        return catalog.lookup(&q(schema), snap);
    }
    schemas
        .into_iter()
        .find_map(|s| catalog.lookup(&q(s), snap))
}

/// An index key: the indexed columns' values, ordered as SQL orders them (NULLs last, as in a
/// default B-tree index).
#[derive(Debug, Clone)]
pub struct Key(pub Box<[Value]>);

fn cmp_value(a: &Value, b: &Value) -> Ordering {
    match (a.is_null(), b.is_null()) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Greater,
        (false, true) => Ordering::Less,
        _ => types::compare(a, b),
    }
}

/// Whether two values are equal as an index compares them (NULL equals NULL here).
pub fn same_value(a: &Value, b: &Value) -> bool {
    cmp_value(a, b) == Ordering::Equal
}

/// The order of index keys: column by column, then the shorter (a prefix) first.
fn cmp_slices(a: &[Value], b: &[Value]) -> Ordering {
    for (a, b) in a.iter().zip(b.iter()) {
        let c = cmp_value(a, b);
        if c != Ordering::Equal {
            return c;
        }
    }
    a.len().cmp(&b.len())
}

impl Ord for Key {
    fn cmp(&self, o: &Self) -> Ordering {
        cmp_slices(&self.0, &o.0)
    }
}

impl PartialOrd for Key {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}

impl PartialEq for Key {
    fn eq(&self, o: &Self) -> bool {
        self.cmp(o) == Ordering::Equal
    }
}

impl Eq for Key {}

impl Hash for Key {
    fn hash<H: Hasher>(&self, h: &mut H) {
        // Equal keys must hash equally across representations that compare equal (1 and 1.0):
        // integers by value, other numbers not at all (they only pick a key lock stripe).
        for v in self.0.iter() {
            match v {
                Value::Null => 0u8.hash(h),
                Value::Int2(_) | Value::Int4(_) | Value::Int8(_) => v.as_i64().hash(h),
                Value::Float4(_) | Value::Float8(_) | Value::Numeric(_) => 1u8.hash(h),
                Value::Text(s) => s.hash(h),
                // By its lower-case form: 'A@x' and 'a@X' are one key (one lock stripe).
                Value::CiText(s) => crate::sql::types::citext::hash(s, h),
                Value::Bool(b) => b.hash(h),
                Value::Date(d) => d.hash(h),
                Value::Timestamp(t) | Value::TimestampTz(t) => t.hash(h),
                Value::Uuid(u) => u.hash(h),
                Value::Enum(o) => o.hash(h),
                Value::Bytea(b) => b.hash(h),
                _ => 2u8.hash(h),
            }
        }
    }
}

impl Key {
    /// The key of `row` for an index over `columns`.
    pub fn of(row: &[Value], columns: &[usize]) -> Key {
        Key(columns.iter().map(|&c| row[c].clone()).collect())
    }

    pub fn has_null(&self) -> bool {
        self.0.iter().any(Value::is_null)
    }
}

pub use crate::catalog::ViewDef;

/// The definition of a view or materialized view (None for other relations): a view keeps
/// it in its data, a materialized view in its catalog version (`catalog::MatView`).
pub fn view_def(rel: &Rel) -> Option<&ViewDef> {
    match &rel.matview {
        Some(m) => Some(&m.def),
        None => rel.data.view.as_ref(),
    }
}

/// The data of one table, shared by every version of its catalog entry. Rows are stored
/// packed and keys compact (see `packed` and `ikey`); `heap` and `tree` decode them.
#[derive(Default)]
pub struct TableData {
    /// For a view: its definition (a view has no rows).
    pub view: Option<ViewDef>,
    pub heap: RowHeap,
    /// The index trees by index OID. Which of them a statement maintains is decided by the
    /// relation version it planned with (its `indexes`).
    trees: RwLock<Vec<(Oid, Arc<KeyTree>)>>,
    /// The compiled keys of expression and partial indexes by index OID (`index_keys.rs`).
    key_exprs: RwLock<Vec<(Oid, Arc<dyn KeyExprs>)>>,
    /// A sequence's options and counter (`sql::sequence`); None for tables and indexes.
    pub sequence: Option<catalog::sequence::Sequence>,
    /// Rows inserted, updated or deleted since the background vacuum last looked (added once
    /// per statement, not per row: one shared write per statement).
    pub changes: std::sync::atomic::AtomicU64,
    /// What pg_stat_user_tables shows (`TableStats`).
    pub stats: TableStats,
    /// Rows written since the last ANALYZE (pg_stat_user_tables.n_mod_since_analyze; the
    /// background vacuum analyzes a table when it passes PostgreSQL's threshold).
    pub mod_since_analyze: std::sync::atomic::AtomicU64,
    /// What the last ANALYZE found (`analyze.rs`): the planner's row estimates, pg_stats and
    /// pg_class.reltuples. None until the table is analyzed. Logged by each ANALYZE and kept
    /// in checkpoint images (`analyze::LOG_KIND`), so a restart keeps it.
    pub analyzed: RwLock<Option<Arc<analyze::TableStatistics>>>,
    /// The storage's number (PostgreSQL's relfilenode), an OID: 0 while it is the first
    /// storage of its relation, numbered as the relation; a TRUNCATE or a rewrite makes a new
    /// storage with a new number, which the write-ahead log names rows by.
    storage: std::sync::atomic::AtomicU32,
}

/// Counters of one table for pg_stat_user_tables: rows written (added once per statement),
/// vacuums and analyzes and their times (microseconds since 2000-01-01, 0: never).
#[derive(Default)]
pub struct TableStats {
    pub inserted: std::sync::atomic::AtomicU64,
    pub updated: std::sync::atomic::AtomicU64,
    pub deleted: std::sync::atomic::AtomicU64,
    pub vacuums: std::sync::atomic::AtomicU64,
    pub autovacuums: std::sync::atomic::AtomicU64,
    pub last_vacuum: std::sync::atomic::AtomicI64,
    pub last_autovacuum: std::sync::atomic::AtomicI64,
    pub analyzes: std::sync::atomic::AtomicU64,
    pub autoanalyzes: std::sync::atomic::AtomicU64,
    pub last_analyze: std::sync::atomic::AtomicI64,
    pub last_autoanalyze: std::sync::atomic::AtomicI64,
}

impl TableData {
    pub fn new() -> TableData {
        TableData::default()
    }

    /// The storage's number for relation `rel_oid` (pg_class.relfilenode of a table or
    /// sequence).
    pub fn storage_of(&self, rel_oid: Oid) -> Oid {
        match self.storage.load(std::sync::atomic::Ordering::Relaxed) {
            0 => rel_oid,
            n => n,
        }
    }

    /// Numbers a new storage (made to replace a relation's: TRUNCATE, a rewrite), or puts a
    /// number back (a restore); before the data is shared.
    pub fn set_storage(&self, number: Oid) {
        self.storage
            .store(number, std::sync::atomic::Ordering::Relaxed);
    }

    /// The data of a sequence relation: no rows, only its counter.
    pub fn of_sequence(seq: catalog::sequence::Sequence) -> TableData {
        TableData {
            sequence: Some(seq),
            ..TableData::default()
        }
    }

    /// The data of a view: its definition, no rows.
    pub fn of_view(def: ViewDef) -> TableData {
        TableData {
            view: Some(def),
            ..TableData::default()
        }
    }

    /// The tree of index `oid`, created empty on first use (reached from outside `engine`
    /// through `read.rs`'s index scans).
    fn tree(&self, oid: Oid) -> Arc<KeyTree> {
        if let Some((_, t)) = self.trees.read().iter().find(|(o, _)| *o == oid) {
            return t.clone();
        }
        let mut trees = self.trees.write();
        if let Some((_, t)) = trees.iter().find(|(o, _)| *o == oid) {
            return t.clone();
        }
        let t = Arc::new(KeyTree::new());
        trees.push((oid, t.clone()));
        t
    }

    /// Puts a built tree in place as index `oid`'s (replacing one created empty).
    pub fn install_tree(&self, oid: Oid, tree: KeyTree) {
        let tree = Arc::new(tree);
        let mut trees = self.trees.write();
        match trees.iter_mut().find(|(o, _)| *o == oid) {
            Some((_, t)) => *t = tree,
            None => trees.push((oid, tree)),
        }
    }

    /// Forgets an index's tree (DROP INDEX once no version refers to it).
    pub fn drop_tree(&self, oid: Oid) {
        self.trees.write().retain(|(o, _)| *o != oid);
        self.forget_key_exprs(oid);
    }
}

/// Why a write did not happen.
#[derive(Debug)]
pub enum WriteError {
    /// A unique index already holds the key (23505).
    Unique { index: Oid, key: Key },
    /// Another transaction in progress is writing the same row or key: wait for its end, then
    /// try again.
    Wait(Arc<TxnCell>),
    /// The change is made but its log record could not be appended (a full disk, a failed
    /// log), or an index expression failed on the row (before any change): the statement
    /// fails, and its (sub)transaction's abort undoes what was changed.
    Log(crate::error::PgError),
}

/// Who writes: the transaction's cell (a sub-transaction's inside a savepoint) and command.
pub struct Writer<'a> {
    pub cell: &'a Arc<TxnCell>,
    pub cid: Cid,
    pub snap: &'a Snapshot,
    /// The version to change is the newest, found by READ COMMITTED's re-check: it need not be
    /// visible to `snap`, only committed.
    pub latest: bool,
}

/// The error of a write that can only fail in its log record (a load, a packed insert).
pub fn write_failed(e: WriteError) -> crate::error::PgError {
    match e {
        WriteError::Log(e) => e,
        other => crate::error::PgError::internal(format!("unexpected write result: {other:?}")),
    }
}

impl Writer<'_> {
    fn target_snap(&self) -> Option<&Snapshot> {
        (!self.latest).then_some(self.snap)
    }
}

/// A key a write entered into the index of a DEFERRABLE unique or primary key while another
/// entry held it, or might (PostgreSQL's UNIQUE_CHECK_PARTIAL): both entries stay, and the key
/// is checked again ([`recheck_unique`]) at the end of the statement or at the commit.
#[derive(Debug, Clone)]
pub struct Recheck {
    pub index: Oid,
    pub key: Key,
}

/// Checks the unique indexes whose key changes, holding their key locks in index order (the
/// same order for every writer of the table, so two writers never wait on each other's locks).
/// Returns the keys' locks, to be held until the new entries are in. With `defer`, a key
/// already held in the index of a DEFERRABLE constraint is no error: it goes to `defer`,
/// without waiting for a writer in progress (the recheck waits).
fn check_unique<'r>(
    rel: &'r Rel,
    trees: &'r [(usize, Arc<KeyTree>)],
    row: &[Value],
    old: Option<&[Value]>,
    w: &Writer<'_>,
    guards: &mut Vec<MutexGuard<'r, ()>>,
    mut defer: Option<&mut Vec<Recheck>>,
) -> Result<(), WriteError> {
    for &(i, ref tree) in trees {
        let def = &rel.indexes[i];
        if !def.unique || def.gin.is_some() {
            continue;
        }
        let Some(key) = key_of(rel, def, row).map_err(WriteError::Log)? else {
            continue; // not in a partial index
        };
        if key.has_null() {
            continue; // NULLs are distinct
        }
        if let Some(old) = old {
            if key_of(rel, def, old).map_err(WriteError::Log)?.as_ref() == Some(&key) {
                continue; // unchanged: the old version already holds it
            }
        }
        guards.push(tree.lock_key(&key));
        let deferrable = defer.is_some() && rel.deferrable_key(def.oid).is_some();
        for root in tree.rows_of(&key) {
            let found = match probe_key(rel, def, root, w.cell, &key) {
                Probe::Dead => continue,
                Probe::Live(_) if !deferrable => {
                    return Err(WriteError::Unique {
                        index: def.oid,
                        key,
                    })
                }
                Probe::Wait(c) if !deferrable => return Err(WriteError::Wait(c)),
                _ => Recheck {
                    index: def.oid,
                    key,
                },
            };
            if let Some(d) = defer.as_deref_mut() {
                d.push(found);
            }
            break;
        }
    }
    Ok(())
}

/// The recheck of a key of a DEFERRABLE unique index (PostgreSQL's unique_key_recheck):
/// fails when more than one version holding it is live, waits for a writer in progress. A key
/// whose other holders are gone by now (deleted, updated to another key, rolled back) passes.
pub fn recheck_unique(rel: &Rel, index: Oid, key: &Key, me: &TxnCell) -> Result<(), WriteError> {
    let Some(def) = rel.indexes.iter().find(|d| d.oid == index) else {
        return Ok(()); // dropped since
    };
    if key.has_null() {
        return Ok(());
    }
    let tree = rel.data.tree(index);
    let _guard = tree.lock_key(key);
    let mut live: Vec<RowId> = Vec::new();
    for root in tree.rows_of(key) {
        match probe_key(rel, def, root, me, key) {
            Probe::Dead => {}
            // Two entries of one chain (its key changed away and back) reach one version.
            Probe::Live(id) if live.contains(&id) => {}
            Probe::Live(id) => live.push(id),
            Probe::Wait(c) => return Err(WriteError::Wait(c)),
        }
        if live.len() > 1 {
            return Err(WriteError::Unique {
                index,
                key: key.clone(),
            });
        }
    }
    Ok(())
}

/// Entries a whole-index recheck visits per tree call.
const RECHECK_CHUNK: usize = 1024;

/// The whole recheck of DEFERRABLE unique index `index`, when too many keys were entered to
/// keep each: every key with more than one entry is rechecked, in key order (the first
/// duplicate found is the one reported).
pub fn recheck_unique_whole(rel: &Rel, index: Oid, me: &TxnCell) -> Result<(), WriteError> {
    if !rel.indexes.iter().any(|d| d.oid == index) {
        return Ok(());
    }
    let tree = rel.data.tree(index);
    let mut after = None;
    let mut prev: Option<Key> = None;
    loop {
        let mut repeated: Vec<Key> = Vec::new();
        after = tree.scan(
            std::ops::Bound::Unbounded,
            std::ops::Bound::Unbounded,
            after.as_ref(),
            RECHECK_CHUNK,
            |k, _| {
                let same = prev.as_ref().is_some_and(|p| {
                    p.0.len() == k.0.len()
                        && p.0
                            .iter()
                            .zip(k.0)
                            .all(|(a, b)| cmp_value(a, b) == Ordering::Equal)
                });
                if same {
                    if repeated.last() != prev.as_ref() {
                        repeated.extend(prev.clone());
                    }
                } else {
                    prev = Some(Key(k.0.to_vec().into_boxed_slice()));
                }
                true
            },
        );
        for key in &repeated {
            recheck_unique(rel, index, key, me)?;
        }
        if after.is_none() {
            return Ok(());
        }
    }
}

/// For a unique check: whether the chain rooted at `root` holds a version whose key in `def`
/// is `key` and that is live or may become live (see `RowHeap::probe_key`). A version whose
/// expression fails cannot have been entered under any key, so it holds none.
fn probe_key(rel: &Rel, def: &catalog::IndexDef, root: RowId, me: &TxnCell, key: &Key) -> Probe {
    match def.exprs {
        None => rel.data.heap.probe_key(root, me, &def.columns, key),
        Some(_) => rel.data.heap.probe_row(
            root,
            me,
            |row| matches!(key_of(rel, def, row), Ok(Some(k)) if k == *key),
        ),
    }
}

/// A row's entries in one index: one key (None: not in that partial index), or a GIN
/// index's keys (`gin::keys_of`).
enum Entries {
    One(Option<IKey>),
    Many(Vec<IKey>),
}

impl Entries {
    fn is_empty(&self) -> bool {
        match self {
            Entries::One(k) => k.is_none(),
            Entries::Many(v) => v.is_empty(),
        }
    }

    /// Adds the entries for row `id` to `tree`.
    fn enter(self, tree: &KeyTree, id: RowId) {
        match self {
            Entries::One(Some(k)) => tree.insert_ikey(k, id),
            Entries::One(None) => {}
            Entries::Many(keys) => {
                for k in keys {
                    tree.insert_ikey(k, id);
                }
            }
        }
    }
}

/// The stored keys of `row` for each of `trees`.
fn ikeys_of(
    rel: &Rel,
    trees: &[(usize, Arc<KeyTree>)],
    row: &[Value],
) -> Result<Vec<Entries>, WriteError> {
    trees
        .iter()
        .map(|(i, _)| {
            let def = &rel.indexes[*i];
            if def.gin.is_some() {
                return Ok(Entries::Many(
                    gin::keys_of(def, row).map_err(WriteError::Log)?,
                ));
            }
            match def.exprs {
                None => Ok(Entries::One(Some(IKey::of_columns(row, &def.columns)))),
                Some(_) => Ok(Entries::One(
                    key_of(rel, def, row)
                        .map_err(WriteError::Log)?
                        .map(IKey::from_key),
                )),
            }
        })
        .collect()
}

fn trees_of(rel: &Rel) -> Vec<(usize, Arc<KeyTree>)> {
    rel.indexes
        .iter()
        .enumerate()
        .map(|(i, d)| (i, rel.data.tree(d.oid)))
        .collect()
}

/// INSERT of one row (already checked against NOT NULL and CHECK constraints). `defer`: where
/// the keys of DEFERRABLE unique indexes to check later go (None: checked now).
pub fn insert(
    rel: &Rel,
    row: &[Value],
    w: &Writer<'_>,
    defer: Option<&mut Vec<Recheck>>,
) -> Result<RowId, WriteError> {
    let trees = trees_of(rel);
    let mut guards = Vec::new();
    check_unique(rel, &trees, row, None, w, &mut guards, defer)?;
    let keys = ikeys_of(rel, &trees, row)?;
    let packed = PackedRow::encode(row);
    let rec = log::Pending::insert(rel, w.cell, packed.body());
    let id = rel.data.heap.0.insert(packed, w.cell, w.cid);
    let entered = entered_indexes(rel, &trees, &keys, w.cell);
    for ((_, tree), key) in trees.iter().zip(keys) {
        key.enter(tree, id);
    }
    drop(guards);
    if let Some(r) = rec {
        r.append(w.cell, &[id])?;
    }
    serializable_write(rel, w.cell, &entered, None, Some(id))?;
    Ok(id)
}

/// The indexes a write enters, for a SERIALIZABLE writer's conflict check (empty for any
/// other: they pay nothing here).
fn entered_indexes(
    rel: &Rel,
    trees: &[(usize, Arc<KeyTree>)],
    keys: &[Entries],
    cell: &TxnCell,
) -> Vec<Oid> {
    if cell.ssi().is_none() {
        return Vec::new();
    }
    trees
        .iter()
        .zip(keys)
        .filter(|(_, k)| !k.is_empty())
        .map(|((i, _), _)| rel.indexes[*i].oid)
        .collect()
}

/// A SERIALIZABLE transaction's write (`txn::ssi`), after it is made: the SIREAD locks it
/// conflicts with (the changed version `old`, its page and the relation, the indexes
/// `entered`), and its registration for later readers (the relation, `old` and the new
/// version `new`). Fails with 40001 when the conflict completes a dangerous structure.
fn serializable_write(
    rel: &Rel,
    cell: &TxnCell,
    entered: &[Oid],
    old: Option<RowId>,
    new: Option<RowId>,
) -> Result<(), WriteError> {
    use crate::txn::ssi::{Target, PAGE_SLOTS};
    let Some(x) = cell.ssi() else {
        return Ok(());
    };
    let r = rel.oid;
    let mut checked = Vec::with_capacity(3 + entered.len());
    if let Some(o) = old {
        checked.push(Target::Tuple(r, o));
        checked.push(Target::Page(r, o / PAGE_SLOTS));
    }
    checked.push(Target::Relation(r));
    checked.extend(entered.iter().map(|&i| Target::Index(i)));
    let mut registered = vec![Target::Relation(r)];
    registered.extend(old.map(|o| Target::Tuple(r, o)));
    registered.extend(new.map(|n| Target::Tuple(r, n)));
    x.manager()
        .write(x, &checked, &registered)
        .map_err(WriteError::Log)
}

/// Puts a row into a table's new heap without touching its indexes (an ALTER TABLE that
/// rewrites a table fills the new heap, then builds every index over it).
/// `rel` is the new relation version the heap belongs to (for the log record).
pub fn load(rel: &Rel, row: Row, cell: &Arc<TxnCell>, cid: Cid) -> Result<RowId, WriteError> {
    insert_packed(rel, PackedRow::encode(&row), cell, cid)
}

/// Inserts a row packed by a [`RowPacker`] without touching the indexes: COPY FROM's direct
/// path into a table that has none (it checked the row's NOT NULL columns), and [`load`].
pub fn insert_packed(
    rel: &Rel,
    row: PackedRow,
    cell: &Arc<TxnCell>,
    cid: Cid,
) -> Result<RowId, WriteError> {
    let rec = log::Pending::insert(rel, cell, row.body());
    let id = rel.data.heap.0.insert(row, cell, cid);
    if let Some(r) = rec {
        r.append(cell, &[id])?;
    }
    Ok(id)
}

/// What an UPDATE or DELETE of one version found.
#[derive(Debug)]
pub enum Changed {
    /// Done: the new version's slot for an update, the old one for a delete.
    Done(RowId),
    /// Not changed: already changed by this command, or not visible.
    Skipped,
    /// Changed by a transaction that committed after the snapshot: READ COMMITTED re-checks
    /// the newer version (Some), or skips a deleted row (None); REPEATABLE READ fails (40001).
    Concurrent(Option<RowId>),
}

fn changed(c: Change) -> Result<Changed, WriteError> {
    match c {
        Change::Done(id) => Ok(Changed::Done(id)),
        Change::Invisible | Change::SelfChanged => Ok(Changed::Skipped),
        Change::Wait(cell) => Err(WriteError::Wait(cell)),
        Change::Concurrent(next) => Ok(Changed::Concurrent(next)),
    }
}

/// UPDATE of the version at `id` (whose values are `old`) to `new`; `defer` as for
/// [`insert`].
pub fn update(
    rel: &Rel,
    id: RowId,
    old: &[Value],
    new: Row,
    w: &Writer<'_>,
    defer: Option<&mut Vec<Recheck>>,
) -> Result<Changed, WriteError> {
    let changes = |d: &catalog::IndexDef| {
        d.columns
            .iter()
            .any(|&c| cmp_value(&old[c], &new[c]) != Ordering::Equal)
    };
    let indexed_changed = rel.indexes.iter().any(changes);
    // A change of a unique index's column is a key update (PostgreSQL's FOR UPDATE strength,
    // which KEY SHARE lockers block); any other update takes NO KEY UPDATE.
    let mode = if rel.indexes.iter().any(|d| d.unique && changes(d)) {
        LockMode::Update
    } else {
        LockMode::NoKeyUpdate
    };
    if !indexed_changed {
        let new = PackedRow::encode(&new);
        let rec = log::Pending::update(rel, w.cell, new.body());
        return match rel.data.heap.0.update_with(
            id,
            w.target_snap(),
            w.cell,
            w.cid,
            new,
            true,
            mode,
        ) {
            Ok(n) => {
                if let Some(r) = rec {
                    r.append(w.cell, &[id, n])?;
                }
                serializable_write(rel, w.cell, &[], Some(id), Some(n))?;
                Ok(Changed::Done(n))
            }
            Err((c, _)) => changed(c),
        };
    }
    let trees = trees_of(rel);
    let mut guards = Vec::new();
    check_unique(rel, &trees, &new, Some(old), w, &mut guards, defer)?;
    let keys = ikeys_of(rel, &trees, &new)?;
    let new = PackedRow::encode(&new);
    let rec = log::Pending::update(rel, w.cell, new.body());
    match rel
        .data
        .heap
        .0
        .update_with(id, w.target_snap(), w.cell, w.cid, new, false, mode)
    {
        Ok(n) => {
            let entered = entered_indexes(rel, &trees, &keys, w.cell);
            for ((_, tree), key) in trees.iter().zip(keys) {
                key.enter(tree, n);
            }
            drop(guards);
            if let Some(r) = rec {
                r.append(w.cell, &[id, n])?;
            }
            serializable_write(rel, w.cell, &entered, Some(id), Some(n))?;
            Ok(Changed::Done(n))
        }
        Err((c, _)) => changed(c),
    }
}

/// DELETE of the version at `id`, or with `lock_only` a row lock on it (SELECT FOR UPDATE).
pub fn delete(
    rel: &Rel,
    id: RowId,
    w: &Writer<'_>,
    lock_only: bool,
) -> Result<Changed, WriteError> {
    let c = changed(
        rel.data
            .heap
            .0
            .delete(id, w.target_snap(), w.cell, w.cid, lock_only),
    )?;
    if let (Changed::Done(slot), false) = (&c, lock_only) {
        if let Some(r) = log::Pending::delete(rel, w.cell) {
            r.append(w.cell, &[*slot])?;
        }
        serializable_write(rel, w.cell, &[], Some(*slot), None)?;
    }
    Ok(c)
}

/// A row lock of strength `mode` on the version at `id` (SELECT FOR KEY SHARE ... FOR UPDATE,
/// and the row checks of foreign keys).
pub fn lock(rel: &Rel, id: RowId, w: &Writer<'_>, mode: LockMode) -> Result<Changed, WriteError> {
    changed(
        rel.data
            .heap
            .0
            .lock(id, w.target_snap(), w.cell, w.cid, mode),
    )
}

/// Analyzes `rel` through `snap` and keeps what it found for the planner and pg_stats, and
/// in the log when `wal` is given and the table is permanent (`analyze::LOG_KIND`); `auto`:
/// the background vacuum's (its counters in pg_stat_user_tables). Fails only when the log
/// refuses the record (then the statistics are kept in memory all the same).
pub fn analyze_table(
    rel: &Rel,
    snap: &Snapshot,
    auto: bool,
    wal: Option<&crate::wal::Wal>,
) -> crate::error::PgResult<Arc<analyze::TableStatistics>> {
    use std::sync::atomic::Ordering::Relaxed;
    let before = rel.data.mod_since_analyze.load(Relaxed);
    let found = Arc::new(analyze::analyze(rel, snap));
    *rel.data.analyzed.write() = Some(found.clone());
    let logged = match wal {
        Some(wal) if rel.persistence == catalog::Persistence::Permanent => {
            let mut p = rel.data.storage_of(rel.oid).to_le_bytes().to_vec();
            p.extend_from_slice(&found.encode());
            if p.len() <= 4 + analyze::MAX_ENCODED {
                wal.insert_blocking(analyze::LOG_KIND, 0, 0, &p).map(|_| ())
            } else {
                Ok(())
            }
        }
        _ => Ok(()),
    };
    // Changes counted while it ran carry to the next one; a manual ANALYZE and the
    // background one may both have read the same count, so the subtraction stops at zero.
    let _ = rel
        .data
        .mod_since_analyze
        .fetch_update(Relaxed, Relaxed, |n| Some(n.saturating_sub(before)));
    let s = &rel.data.stats;
    let now = types::datetime::now_timestamptz();
    if auto {
        s.autoanalyzes.fetch_add(1, Relaxed);
        s.last_autoanalyze.store(now, Relaxed);
    } else {
        s.analyzes.fetch_add(1, Relaxed);
        s.last_analyze.store(now, Relaxed);
    }
    logged.map(|()| found)
}

/// What the last ANALYZE of `rel` found, if it was analyzed.
pub fn statistics(rel: &Rel) -> Option<Arc<analyze::TableStatistics>> {
    rel.data.analyzed.read().clone()
}

/// Reclaims dead versions of a table and their index entries (VACUUM, and the background
/// reclaimer). `horizon` and `now` come from the transaction manager.
pub fn vacuum(
    rel: &Rel,
    horizon: crate::txn::Csn,
    now: crate::txn::Csn,
) -> crate::storage::VacuumStats {
    let trees = trees_of(rel);
    rel.data.heap.0.vacuum(horizon, now, |row, root| {
        for (i, tree) in &trees {
            let def = &rel.indexes[*i];
            if def.gin.is_some() {
                // The keys the insert entered (invariant 2 of `gin`).
                for k in gin::keys_of(def, &row.decode()).unwrap_or_default() {
                    tree.remove_ikey(&k, root);
                }
            } else if def.exprs.is_none() {
                tree.remove_ikey(&IKey::of(&row.columns(&def.columns)), root);
            } else if let Ok(Some(key)) = key_of(rel, def, &row.decode()) {
                // The expression gave this key when the entry was made (it is immutable); a
                // row it fails on never had an entry.
                tree.remove_ikey(&IKey::from_key(key), root);
            }
        }
    })
}

#[cfg(all(test, not(feature = "shuttle")))]
mod tests {
    use super::*;
    use crate::catalog::{ColumnDef, IndexDef, NewRelation, Persistence, QualName, RelKind};
    use crate::txn::TxnManager;

    fn col(name: &str) -> ColumnDef {
        ColumnDef {
            name: name.into(),
            type_oid: 23,
            typmod: -1,
            not_null: false,
            default: None,
            identity: None,
            generated: false,
            dropped: false,
            domain: None,
        }
    }

    /// A table (id int PRIMARY KEY, v int) with an index on v.
    fn setup(m: &TxnManager, cat: &SqlCatalog) -> Arc<Rel> {
        setup_with(m, cat, vec![])
    }

    fn setup_with(
        m: &TxnManager,
        cat: &SqlCatalog,
        constraints: Vec<crate::catalog::ConstraintDef>,
    ) -> Arc<Rel> {
        let slot = m.register();
        let t = m.begin(1);
        let snap = m.snapshot(&slot, t.top(), 0);
        let rel = cat
            .create(
                None,
                NewRelation {
                    name: QualName {
                        database: "d".into(),
                        schema: "public".into(),
                        name: "t".into(),
                    },
                    kind: RelKind::Table,
                    persistence: Persistence::Permanent,
                    columns: vec![col("id"), col("v")],
                    indexes: vec![
                        IndexDef {
                            oid: 1,
                            name: "t_pkey".into(),
                            columns: vec![0],
                            unique: true,
                            primary: true,
                            exprs: None,
                            hash: false,
                            gin: None,
                            include: vec![],
                        },
                        IndexDef {
                            oid: 2,
                            name: "t_v".into(),
                            columns: vec![1],
                            unique: false,
                            primary: false,
                            exprs: None,
                            hash: false,
                            gin: None,
                            include: vec![],
                        },
                    ],
                    constraints,
                    owner: crate::catalog::roles::BOOTSTRAP_SUPERUSER,
                    acl: None,
                    column_acls: vec![],
                    triggers: vec![],
                    rules: vec![],
                    table: None,
                    matview: None,
                    partition: None,
                    data: Arc::new(TableData::new()),
                },
                &snap,
                &t,
                0,
            )
            .unwrap();
        m.commit(&t);
        m.unregister(&slot);
        rel
    }

    fn row(id: i32, v: i32) -> Row {
        vec![Value::Int4(id), Value::Int4(v)].into_boxed_slice()
    }

    #[test]
    fn deferrable_keys_are_entered_twice_and_rechecked() {
        let m = TxnManager::new(4);
        let cat = SqlCatalog::new();
        let pk = crate::catalog::ConstraintDef {
            oid: 3,
            name: "t_pkey".into(),
            kind: crate::catalog::ConstraintKind::PrimaryKey { index: 1 },
            deferrable: true,
            deferred: false,
        };
        let rel = setup_with(&m, &cat, vec![pk]);
        let slot = m.register();
        let t = m.begin(1);
        let s = m.snapshot(&slot, t.top(), 0);
        let w = Writer {
            cell: &t,
            cid: 0,
            snap: &s,
            latest: false,
        };
        let mut defer = Vec::new();
        let a = insert(&rel, &row(1, 10), &w, Some(&mut defer)).unwrap();
        assert!(defer.is_empty(), "a free key needs no recheck");
        // Without a place for rechecks the key is checked at once, as for any unique key.
        assert!(matches!(
            insert(&rel, &row(1, 20), &w, None),
            Err(WriteError::Unique { index: 1, .. })
        ));
        let b = insert(&rel, &row(1, 20), &w, Some(&mut defer)).unwrap();
        assert_eq!(defer.len(), 1);
        let key = defer[0].key.clone();
        assert_eq!(rel.data.tree(1).rows_of(&key).len(), 2);
        assert!(matches!(
            recheck_unique(&rel, 1, &key, &t),
            Err(WriteError::Unique { index: 1, .. })
        ));
        assert!(matches!(
            recheck_unique_whole(&rel, 1, &t),
            Err(WriteError::Unique { index: 1, .. })
        ));
        // Moving the first row to another key (a later command) settles it.
        let s1 = m.snapshot(&slot, t.top(), 1);
        let w = Writer {
            cell: &t,
            cid: 1,
            snap: &s1,
            latest: false,
        };
        let moved = update(&rel, a, &row(1, 10), row(2, 10), &w, Some(&mut defer)).unwrap();
        assert!(matches!(moved, Changed::Done(_)));
        assert_eq!(defer.len(), 1);
        recheck_unique(&rel, 1, &key, &t).unwrap();
        recheck_unique_whole(&rel, 1, &t).unwrap();
        // Another transaction's recheck of the key waits for this one.
        let t2 = m.begin(2);
        let s2 = m.snapshot(&slot, t2.top(), 0);
        let w2 = Writer {
            cell: &t2,
            cid: 0,
            snap: &s2,
            latest: false,
        };
        let mut defer2 = Vec::new();
        insert(&rel, &row(1, 30), &w2, Some(&mut defer2)).unwrap();
        assert_eq!(
            defer2.len(),
            1,
            "a key written in progress is rechecked, not waited for"
        );
        assert!(matches!(
            recheck_unique(&rel, 1, &key, &t2),
            Err(WriteError::Wait(_))
        ));
        m.commit(&t);
        assert!(matches!(
            recheck_unique(&rel, 1, &key, &t2),
            Err(WriteError::Unique { .. })
        ));
        m.abort(&t2, &[]);
        let _ = b;
    }

    #[test]
    fn unique_keys_wait_for_an_inserter_and_then_conflict() {
        let m = TxnManager::new(4);
        let cat = SqlCatalog::new();
        let rel = setup(&m, &cat);
        let slot = m.register();
        let t1 = m.begin(1);
        let s1 = m.snapshot(&slot, t1.top(), 0);
        let w1 = Writer {
            cell: &t1,
            cid: 0,
            snap: &s1,
            latest: false,
        };
        insert(&rel, &row(1, 10), &w1, None).unwrap();
        let t2 = m.begin(2);
        let s2 = m.snapshot(&slot, t2.top(), 0);
        let w2 = Writer {
            cell: &t2,
            cid: 0,
            snap: &s2,
            latest: false,
        };
        assert!(matches!(
            insert(&rel, &row(1, 20), &w2, None),
            Err(WriteError::Wait(_))
        ));
        m.commit(&t1);
        assert!(matches!(
            insert(&rel, &row(1, 20), &w2, None),
            Err(WriteError::Unique { index: 1, .. })
        ));
        insert(&rel, &row(2, 20), &w2, None).unwrap();
        m.abort(&t2, &[]);
        // The aborted row's key is free again.
        let t3 = m.begin(3);
        let s3 = m.snapshot(&slot, t3.top(), 0);
        insert(
            &rel,
            &row(2, 30),
            &Writer {
                cell: &t3,
                cid: 0,
                snap: &s3,
                latest: false,
            },
            None,
        )
        .unwrap();
        m.commit(&t3);
    }

    #[test]
    fn updates_of_unindexed_columns_touch_no_index_and_vacuum_cleans_entries() {
        let m = TxnManager::new(4);
        let cat = SqlCatalog::new();
        let rel = setup(&m, &cat);
        let slot = m.register();
        let t = m.begin(1);
        let s = m.snapshot(&slot, t.top(), 0);
        let id = insert(
            &rel,
            &row(1, 10),
            &Writer {
                cell: &t,
                cid: 0,
                snap: &s,
                latest: false,
            },
            None,
        )
        .unwrap();
        m.commit(&t);
        let pk = rel.data.tree(1);
        let by_v = rel.data.tree(2);
        assert_eq!((pk.len(), by_v.len()), (1, 1));
        // A change of v moves the row to new index entries (not HOT)...
        let t = m.begin(1);
        let s = m.snapshot(&slot, t.top(), 0);
        let w = Writer {
            cell: &t,
            cid: 0,
            snap: &s,
            latest: false,
        };
        let Changed::Done(id2) = update(&rel, id, &row(1, 10), row(1, 11), &w, None).unwrap()
        else {
            panic!()
        };
        m.commit(&t);
        assert_eq!((pk.len(), by_v.len()), (2, 2));
        // ... and a change of nothing indexed (here: the same values) is HOT.
        let t = m.begin(1);
        let s = m.snapshot(&slot, t.top(), 0);
        let w = Writer {
            cell: &t,
            cid: 0,
            snap: &s,
            latest: false,
        };
        update(&rel, id2, &row(1, 11), row(1, 11), &w, None).unwrap();
        m.commit(&t);
        assert_eq!((pk.len(), by_v.len()), (2, 2));
        slot.clear();
        let stats = vacuum(&rel, m.horizon(), m.visible());
        assert_eq!(stats.removed, 2);
        assert_eq!(
            (pk.len(), by_v.len()),
            (1, 1),
            "the dead version's entries are gone"
        );
        let s = m.snapshot(&slot, 0, 0);
        let found = pk.rows_of(&Key(vec![Value::Int4(1)].into_boxed_slice()));
        assert_eq!(found.len(), 1);
        let (_, v) = rel
            .data
            .heap
            .fetch(found[0], &s, |_, r| r[1].clone())
            .unwrap();
        assert!(matches!(v, Value::Int4(11)));
    }
}
