//! Foreign keys at run time: what PostgreSQL's RI triggers do, inside the writing operator.
//!
//! # What is checked, and when
//!
//! A write to a table queues *events* while its statement runs, and [`Queue::run`] handles them
//! once the statement's own rows are all written (PostgreSQL's AFTER ROW triggers fire at the
//! end of the statement, so a statement may insert a row and the row it references, in either
//! order, and a self-referencing row may reference itself):
//!
//! * an inserted row, or an updated row whose referencing columns changed, of a table with a
//!   foreign key: the referenced row must exist. It is looked up through the referenced
//!   table's unique index with an up-to-date snapshot and locked FOR KEY SHARE, so that a
//!   concurrent DELETE of it (or an update of its key) waits for this transaction, and this
//!   lookup waits for a concurrent delete in progress (`RI_FKey_check`).
//! * a deleted row, or an updated row whose referenced key changed, of a table referenced by a
//!   foreign key: NO ACTION fails if a referencing row still exists (unless a row with the same
//!   key exists again), RESTRICT fails if one exists; CASCADE, SET NULL and SET DEFAULT run a
//!   DELETE or UPDATE of the referencing rows as a nested statement whose own foreign keys are
//!   handled in turn (`RI_FKey_noaction_del`, `RI_FKey_cascade_del`, ...). Referencing rows are
//!   found through an index whose leading columns are the referencing columns, else by a scan.
//!
//! The snapshot of a check sees the statement's own writes and, in READ COMMITTED, every
//! commit up to now (PostgreSQL's RI queries take a new snapshot); in REPEATABLE READ it is the
//! transaction's, and a referenced row changed by a later commit fails with 40001.
//!
//! A DEFERRABLE constraint whose checks are deferred now (INITIALLY DEFERRED or SET
//! CONSTRAINTS) hands its events to the session instead of checking them: the referencing
//! side's checks and the referenced side's NO ACTION checks (PostgreSQL defers only those; the
//! RESTRICT and the action triggers always fire at the end of the statement). They run at
//! COMMIT or SET CONSTRAINTS ... IMMEDIATE through this same queue (`exec::deferred`).
//!
//! # Bounds
//!
//! * The queue of one statement holds its events' keys, at most [`WORK_MEM`] bytes estimated;
//!   past that the statement fails with 54000 (PostgreSQL's after-trigger queue spills to disk;
//!   there is no disk here).
//! * Nested actions (a cascade whose rows cascade further) run as deep as the stack guard
//!   allows (`crate::stack`, max_stack_depth); past that 54001 `stack depth limit exceeded`, as
//!   PostgreSQL ends a too deep trigger recursion.
//! * A lookup without a usable index scans the table in one step (no yield), as PostgreSQL's RI
//!   query would scan it.

use std::collections::VecDeque;
use std::sync::Arc;

use crate::catalog::{ConstraintDef, ConstraintKind, RelKind};
use crate::error::{code, PgError, PgResult};
use crate::sql::context::SessionCtx;
use crate::sql::engine::{self, Changed, Key, Rel, WriteError, Writer};
use crate::sql::exec::{text_of, EvalCx};
use crate::sql::plan::modify::{defaults_and_checks, table_columns, Modify, ModifyKind};
use crate::sql::plan::Expr;
use crate::sql::plan::{Node, Plan};
use crate::sql::types::{FormatCtx, Type, Value};
use crate::storage::{LockMode, RowId};
use crate::txn::lock::LockMode as RelLock;
use crate::txn::Isolation;
use crate::txn::{Cid, Snapshot, TxnCell};

use super::{Executor, Step, WORK_MEM};

/// One foreign key of the written table, as the referencing side.
pub(crate) struct Outgoing {
    pub name: String,
    /// The constraint's OID, DEFERRABLE, INITIALLY DEFERRED.
    pub oid: u32,
    pub deferrable: bool,
    pub deferred: bool,
    pub columns: Vec<usize>,
    pub parent: Arc<Rel>,
    /// The parent's unique index over the referenced columns, and for each of its columns the
    /// position in `columns` whose value goes there.
    pub index: usize,
    pub order: Vec<usize>,
    pub match_full: bool,
}

/// One foreign key that references the written table.
pub(crate) struct Incoming {
    pub name: String,
    pub oid: u32,
    pub deferrable: bool,
    pub deferred: bool,
    pub child: Arc<Rel>,
    pub child_columns: Vec<usize>,
    /// The referenced columns, in the written table.
    pub columns: Vec<usize>,
    pub on_update: char,
    pub on_delete: char,
}

/// The foreign keys that concern writes to one table.
#[derive(Default)]
pub(crate) struct Keys {
    pub outgoing: Vec<Outgoing>,
    pub incoming: Vec<Incoming>,
}

impl Keys {
    /// Finds them in the catalog as `snap` sees it (a new scan per statement: the catalog
    /// keeps no reverse map yet; nothing at all while no foreign key was ever made).
    pub fn of(rel: &Rel, cx: &mut dyn SessionCtx) -> PgResult<Keys> {
        let mut keys = Keys::default();
        let catalog = &cx.instance().catalog;
        if !catalog.may_have_foreign_keys() {
            return Ok(keys);
        }
        let snap = cx.catalog_snapshot()?;
        let catalog = &cx.instance().catalog;
        let visible = catalog.visible(&snap);
        let by_oid = |oid| {
            visible
                .iter()
                .find(|r| r.oid == oid && r.kind == RelKind::Table)
                .cloned()
        };
        for c in &rel.constraints {
            if let ConstraintKind::ForeignKey {
                columns,
                ref_table,
                ref_columns,
                match_full,
                ..
            } = &c.kind
            {
                let Some(parent) = by_oid(*ref_table) else {
                    continue;
                };
                let Some((index, order)) = unique_index_for(&parent, ref_columns) else {
                    continue;
                };
                keys.outgoing.push(Outgoing {
                    name: c.name.clone(),
                    oid: c.oid,
                    deferrable: c.deferrable,
                    deferred: c.deferred,
                    columns: columns.clone(),
                    parent,
                    index,
                    order,
                    match_full: *match_full,
                });
            }
        }
        for child in visible
            .iter()
            .filter(|r| r.kind == RelKind::Table && r.name.database == rel.name.database)
        {
            for c in &child.constraints {
                if let ConstraintKind::ForeignKey {
                    columns,
                    ref_table,
                    ref_columns,
                    on_update,
                    on_delete,
                    ..
                } = &c.kind
                {
                    if *ref_table == rel.oid {
                        keys.incoming.push(Incoming {
                            name: c.name.clone(),
                            oid: c.oid,
                            deferrable: c.deferrable,
                            deferred: c.deferred,
                            child: child.clone(),
                            child_columns: columns.clone(),
                            columns: ref_columns.clone(),
                            on_update: *on_update,
                            on_delete: *on_delete,
                        });
                    }
                }
            }
        }
        Ok(keys)
    }

    pub fn is_empty(&self) -> bool {
        self.outgoing.is_empty() && self.incoming.is_empty()
    }
}

/// The unique index of `rel` whose columns are exactly `columns` (in any order), and for each
/// index column the position in `columns` it takes its value from.
pub(crate) fn unique_index_for(rel: &Rel, columns: &[usize]) -> Option<(usize, Vec<usize>)> {
    rel.indexes.iter().enumerate().find_map(|(i, d)| {
        if !d.unique || !d.plain() || d.columns.len() != columns.len() {
            return None;
        }
        let order: Option<Vec<usize>> = d
            .columns
            .iter()
            .map(|c| columns.iter().position(|x| x == c))
            .collect();
        order.map(|o| (i, o))
    })
}

/// An index of `rel` whose leading columns are `columns` (in any order), with the order as in
/// [`unique_index_for`].
fn leading_index_for(rel: &Rel, columns: &[usize]) -> Option<(usize, Vec<usize>)> {
    rel.indexes.iter().enumerate().find_map(|(i, d)| {
        if !d.plain() || d.columns.len() < columns.len() {
            return None;
        }
        let order: Option<Vec<usize>> = d.columns[..columns.len()]
            .iter()
            .map(|c| columns.iter().position(|x| x == c))
            .collect();
        order.map(|o| (i, o))
    })
}

/// What a lookup found.
pub(crate) enum Found {
    Yes,
    No,
    /// A transaction in progress holds the row: wait for it, then look again.
    Wait(Arc<TxnCell>),
}

fn same_key(row: &[Value], columns: &[usize], key: &[Value]) -> bool {
    columns
        .iter()
        .zip(key)
        .all(|(&c, v)| engine::same_value(&row[c], v))
}

/// Looks for a row of `rel` whose `columns` equal `key` as `snap` sees it, and locks the first
/// found FOR KEY SHARE (when `lock` is given: the locker's cell and command). A row changed by
/// a commit after `snap` is followed to its newest version (READ COMMITTED) or fails with
/// 40001 (`serializable`).
pub(crate) fn find_row(
    rel: &Rel,
    columns: &[usize],
    key: &[Value],
    snap: &Snapshot,
    lock: Option<(&Arc<TxnCell>, Cid)>,
    serializable: bool,
) -> PgResult<Found> {
    let mut candidates: Vec<RowId> = Vec::new();
    match leading_index_for(rel, columns) {
        Some((i, order)) => {
            let k = Key(order.iter().map(|&p| key[p].clone()).collect());
            let prefix = order.len();
            engine::index_scan(
                rel,
                rel.indexes[i].oid,
                std::ops::Bound::Included(&k),
                std::ops::Bound::Unbounded,
                None,
                usize::MAX,
                |e, root| {
                    let same = e.0.len() >= prefix
                        && e.0[..prefix]
                            .iter()
                            .zip(k.0.iter())
                            .all(|(a, b)| engine::same_value(a, b));
                    if same {
                        candidates.push(root);
                    }
                    same
                },
            );
            candidates.retain(|&root| {
                engine::fetch(rel, root, snap, |_, r| same_key(r, columns, key))
                    .is_some_and(|(_, same)| same)
            });
            // The visible version's slot, for the lock.
            candidates = candidates
                .into_iter()
                .filter_map(|root| engine::fetch(rel, root, snap, |id, _| id).map(|x| x.0))
                .collect();
        }
        None => {
            engine::scan(rel, 0, usize::MAX, snap, |id, r| {
                if same_key(r, columns, key) {
                    candidates.push(id);
                }
                true
            });
        }
    }
    let Some((cell, cid)) = lock else {
        return Ok(if candidates.is_empty() {
            Found::No
        } else {
            Found::Yes
        });
    };
    for id in candidates {
        let mut at = id;
        let mut latest = false;
        // A version chain is finite; bound the walk anyway.
        for _ in 0..1_000_000 {
            let w = Writer {
                cell,
                cid,
                snap,
                latest,
            };
            match engine::lock(rel, at, &w, LockMode::KeyShare) {
                Ok(Changed::Done(_)) => return Ok(Found::Yes),
                Ok(Changed::Skipped) => {
                    // This transaction updated the version since (the snapshot, taken from the
                    // watermark, may not show yet a commit this session already waited for):
                    // its own newer version is the one to lock.
                    let Some(next) = engine::next_version(rel, at) else {
                        break;
                    };
                    let still = engine::read_latest(rel, next, |r| same_key(r, columns, key))
                        .unwrap_or(false);
                    if !still || next == at {
                        break;
                    }
                    at = next;
                    latest = true;
                }
                Ok(Changed::Concurrent(None)) if !serializable => break,
                Ok(Changed::Concurrent(next)) => {
                    if serializable {
                        return Err(PgError::new(
                            code::T_R_SERIALIZATION_FAILURE,
                            "could not serialize access due to concurrent update",
                        ));
                    }
                    let Some(next) = next else { break };
                    let still = engine::read_latest(rel, next, |r| same_key(r, columns, key))
                        .unwrap_or(false);
                    if !still {
                        break;
                    }
                    at = next;
                    latest = true;
                }
                Err(WriteError::Wait(c)) => return Ok(Found::Wait(c)),
                Err(WriteError::Log(e)) => return Err(e),
                Err(WriteError::Unique { .. }) => {
                    return Err(PgError::internal("unique check while locking"))
                }
            }
        }
    }
    Ok(Found::No)
}

fn key_text(rel: &Rel, columns: &[usize], key: &[Value], fmt: &FormatCtx) -> (String, String) {
    let names: Vec<&str> = columns
        .iter()
        .map(|&c| rel.columns[c].name.as_str())
        .collect();
    let vals: Vec<String> = columns
        .iter()
        .zip(key)
        .map(|(&c, v)| {
            if v.is_null() {
                "null".to_string()
            } else {
                text_of(v, Type(rel.columns[c].type_oid), fmt)
            }
        })
        .collect();
    (names.join(", "), vals.join(", "))
}

/// 23503 for a referencing row whose referenced row is missing.
pub(crate) fn missing_parent(
    child: &Rel,
    name: &str,
    columns: &[usize],
    key: &[Value],
    parent: &Rel,
    fmt: &FormatCtx,
) -> PgError {
    let (names, vals) = key_text(child, columns, key, fmt);
    PgError::new(
        code::FOREIGN_KEY_VIOLATION,
        format!(
            "insert or update on table \"{}\" violates foreign key constraint \"{name}\"",
            child.name.name
        ),
    )
    .with_detail(format!(
        "Key ({names})=({vals}) is not present in table \"{}\".",
        parent.name.name
    ))
    .with_table(&child.name.schema, &child.name.name)
    .with_constraint(name)
}

/// 23503 for MATCH FULL with some but not all key columns null.
pub(crate) fn mixed_nulls(child: &Rel, name: &str) -> PgError {
    PgError::new(
        code::FOREIGN_KEY_VIOLATION,
        format!(
            "insert or update on table \"{}\" violates foreign key constraint \"{name}\"",
            child.name.name
        ),
    )
    .with_detail("MATCH FULL does not allow mixing of null and nonnull key values.")
    .with_table(&child.name.schema, &child.name.name)
    .with_constraint(name)
}

/// 23503 for a referenced row still referenced.
fn still_referenced(parent: &Rel, fk: &Incoming, key: &[Value], fmt: &FormatCtx) -> PgError {
    let (names, vals) = key_text(parent, &fk.columns, key, fmt);
    PgError::new(
        code::FOREIGN_KEY_VIOLATION,
        format!(
            "update or delete on table \"{}\" violates foreign key constraint \"{}\" on table \"{}\"",
            parent.name.name, fk.name, fk.child.name.name
        ),
    )
    .with_detail(format!(
        "Key ({names})=({vals}) is still referenced from table \"{}\".",
        fk.child.name.name
    ))
    .with_table(&fk.child.name.schema, &fk.child.name.name)
    .with_constraint(&fk.name)
}

/// Whether a referencing key takes part in its constraint: MATCH SIMPLE skips a key with any
/// NULL; MATCH FULL skips an all-NULL key and refuses a partly NULL one.
pub(crate) fn key_applies(
    child: &Rel,
    name: &str,
    key: &[Value],
    match_full: bool,
) -> PgResult<bool> {
    let nulls = key.iter().filter(|v| v.is_null()).count();
    if nulls == 0 {
        return Ok(true);
    }
    if match_full && nulls < key.len() {
        return Err(mixed_nulls(child, name));
    }
    Ok(false)
}

/// Whether a referencing key of `fk` is checked ([`key_applies`]); a DEFERRABLE key's MATCH
/// FULL error for a partly NULL key is the check's, and waits with it (PostgreSQL raises it in
/// the deferrable trigger).
fn checked(rel: &Rel, fk: &Outgoing, key: &[Value]) -> PgResult<bool> {
    if fk.deferrable && fk.match_full && key.iter().any(Value::is_null) {
        return Ok(!key.iter().all(Value::is_null));
    }
    key_applies(rel, &fk.name, key, fk.match_full)
}

/// One queued event.
enum Event {
    /// A referencing row's key, to find in the referenced table (`Keys::outgoing[i]`).
    Check(usize, Box<[Value]>),
    /// A referenced key deleted (new None) or changed (`Keys::incoming[i]`).
    Referenced(usize, Box<[Value]>, Option<Box<[Value]>>),
}

/// A session that reads through a fixed snapshot: a nested action's statement sees what the
/// check sees (PostgreSQL runs RI queries with a new snapshot). Everything else is the session's:
/// every method of `SessionCtx` is passed on, those with a default too (a method added to the
/// trait must be added here).
struct AtSnapshot<'a> {
    inner: &'a mut dyn SessionCtx,
    snap: Snapshot,
}

impl SessionCtx for AtSnapshot<'_> {
    fn pid(&self) -> i32 {
        self.inner.pid()
    }
    fn user(&self) -> &str {
        self.inner.user()
    }
    fn session_user(&self) -> &str {
        self.inner.session_user()
    }
    fn role_oid(&self) -> u32 {
        self.inner.role_oid()
    }
    fn validate_setting(&mut self, name: &str, value: &str) -> PgResult<String> {
        self.inner.validate_setting(name, value)
    }
    fn database(&self) -> &str {
        self.inner.database()
    }
    fn fmt(&self) -> &FormatCtx {
        self.inner.fmt()
    }
    fn instance(&self) -> &crate::instance::Instance {
        self.inner.instance()
    }
    fn notify(&mut self, channel: &str, payload: &str) -> PgResult<()> {
        self.inner.notify(channel, payload)
    }
    fn listening_channels(&self) -> Vec<String> {
        self.inner.listening_channels()
    }
    fn get_setting(&self, name: &str, missing_ok: bool) -> PgResult<Option<String>> {
        self.inner.get_setting(name, missing_ok)
    }
    fn set_setting(&mut self, name: &str, value: &str, is_local: bool) -> PgResult<String> {
        self.inner.set_setting(name, value, is_local)
    }
    fn check_interrupts(&self) -> PgResult<()> {
        self.inner.check_interrupts()
    }
    fn interrupt_pending(&self) -> bool {
        self.inner.interrupt_pending()
    }
    fn lock_relation(
        &mut self,
        rel: u32,
        mode: crate::txn::lock::LockMode,
        nowait: Option<&str>,
    ) -> PgResult<bool> {
        self.inner.lock_relation(rel, mode, nowait)
    }
    fn sequences(&mut self) -> Option<&mut crate::sql::sequence::SessionSequences> {
        self.inner.sequences()
    }
    fn sleep(&self, seconds: f64) -> PgResult<()> {
        self.inner.sleep(seconds)
    }
    fn transaction_timestamp(&self) -> i64 {
        self.inner.transaction_timestamp()
    }
    fn statement_timestamp(&self) -> i64 {
        self.inner.statement_timestamp()
    }
    fn notice(&mut self, notice: PgError) {
        self.inner.notice(notice)
    }
    fn client_addr(&self) -> Option<std::net::SocketAddr> {
        self.inner.client_addr()
    }
    fn server_addr(&self) -> Option<std::net::SocketAddr> {
        self.inner.server_addr()
    }
    fn current_xid(&mut self, func: &str) -> PgResult<u64> {
        self.inner.current_xid(func)
    }
    fn catalog_snapshot(&mut self) -> PgResult<Snapshot> {
        self.inner.catalog_snapshot()
    }
    fn snapshot(&mut self) -> PgResult<Snapshot> {
        Ok(self.snap)
    }
    fn writer(&mut self, what: &str) -> PgResult<(Arc<TxnCell>, Cid)> {
        self.inner.writer(what)
    }
    fn ssi(&mut self) -> Option<Arc<crate::txn::ssi::Xact>> {
        self.inner.ssi()
    }
    fn wait_for(&mut self, cell: &Arc<TxnCell>) -> PgResult<()> {
        self.inner.wait_for(cell)
    }
    fn isolation(&self) -> Isolation {
        self.inner.isolation()
    }
    fn search_path(&self) -> Vec<String> {
        self.inner.search_path()
    }
    fn constraint_deferred(&self, constraint: u32, initially: bool) -> bool {
        self.inner.constraint_deferred(constraint, initially)
    }
    fn queue_deferred(&mut self, event: super::deferred::DeferredEvent) -> PgResult<()> {
        self.inner.queue_deferred(event)
    }
    fn deferred_pending_on(&self, table: u32) -> bool {
        self.inner.deferred_pending_on(table)
    }
}

/// A nested action running: its plan's executor, its parameters (old key, then new key) and
/// the snapshot it reads with.
struct Nested {
    exec: Executor<Box<Plan>>,
    params: Vec<Value>,
    snap: Snapshot,
}

/// The foreign-key work of one writing statement: its keys, its queued events, and the action
/// running now.
pub(crate) struct Queue {
    keys: Keys,
    events: VecDeque<Event>,
    bytes: usize,
    nested: Option<Nested>,
    /// Relation locks taken for the events so far (one entry per table and mode; a statement
    /// names few tables).
    locked: Vec<(u32, RelLock)>,
    /// The front event's SET DEFAULT has run: what is left is its NO ACTION check (a row set
    /// to the default may reference the very key deleted; PostgreSQL checks again).
    defaulted: bool,
    /// The events are deferred ones run at commit (or SET CONSTRAINTS ... IMMEDIATE): none is
    /// deferred again.
    firing: bool,
}

fn bytes_of(key: &[Value]) -> usize {
    super::row_bytes(key) + 32
}

impl Queue {
    pub fn new(keys: Keys) -> Queue {
        Queue {
            keys,
            events: VecDeque::new(),
            bytes: 0,
            nested: None,
            locked: Vec::new(),
            defaulted: false,
            firing: false,
        }
    }

    /// A queue for deferred events of `keys`' table, to run now.
    pub fn firing(keys: Keys) -> Queue {
        Queue {
            firing: true,
            ..Queue::new(keys)
        }
    }

    /// Queues a deferred event again (`Keys` of its table): false when its constraint is gone.
    pub fn push_deferred(
        &mut self,
        referenced: bool,
        constraint: u32,
        key: Box<[Value]>,
    ) -> PgResult<bool> {
        let e = if referenced {
            match self.keys.incoming.iter().position(|f| f.oid == constraint) {
                Some(i) => Event::Referenced(i, key, None),
                None => return Ok(false),
            }
        } else {
            match self.keys.outgoing.iter().position(|f| f.oid == constraint) {
                Some(i) => Event::Check(i, key),
                None => return Ok(false),
            }
        };
        self.push(e)?;
        Ok(true)
    }

    /// The deferred form of an event whose constraint is DEFERRABLE and deferred now; None
    /// for one checked now.
    fn deferral(
        &self,
        e: &Event,
        rel: &Rel,
        session: &dyn SessionCtx,
    ) -> Option<super::deferred::DeferredEvent> {
        let (constraint, referenced, key) = match e {
            Event::Check(i, key) => {
                let fk = &self.keys.outgoing[*i];
                if !fk.deferrable || !session.constraint_deferred(fk.oid, fk.deferred) {
                    return None;
                }
                (fk.oid, false, key)
            }
            Event::Referenced(i, key, new) => {
                let fk = &self.keys.incoming[*i];
                let action = if new.is_some() {
                    fk.on_update
                } else {
                    fk.on_delete
                };
                if action != 'a'
                    || !fk.deferrable
                    || !session.constraint_deferred(fk.oid, fk.deferred)
                {
                    return None;
                }
                (fk.oid, true, key)
            }
        };
        Some(super::deferred::DeferredEvent {
            table: rel.oid,
            constraint,
            referenced,
            key: key.clone(),
            trigger: None,
        })
    }

    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    fn push(&mut self, e: Event) -> PgResult<()> {
        let n = match &e {
            Event::Check(_, k) => bytes_of(k),
            Event::Referenced(_, k, n) => bytes_of(k) + n.as_deref().map_or(0, bytes_of),
        };
        self.bytes += n;
        if self.bytes > WORK_MEM {
            return Err(PgError::new(
                code::PROGRAM_LIMIT_EXCEEDED,
                format!(
                    "foreign key checks of one statement exceed the memory limit of {} MB",
                    WORK_MEM / 1_000_000
                ),
            ));
        }
        self.events.push_back(e);
        Ok(())
    }

    /// A row inserted into the table.
    pub fn inserted(&mut self, rel: &Rel, new: &[Value]) -> PgResult<()> {
        for i in 0..self.keys.outgoing.len() {
            let fk = &self.keys.outgoing[i];
            let key: Box<[Value]> = fk.columns.iter().map(|&c| new[c].clone()).collect();
            if checked(rel, fk, &key)? {
                self.push(Event::Check(i, key))?;
            }
        }
        Ok(())
    }

    /// A row of the table updated from `old` to `new`.
    pub fn updated(&mut self, rel: &Rel, old: &[Value], new: &[Value]) -> PgResult<()> {
        let changed = |cols: &[usize]| cols.iter().any(|&c| !engine::same_value(&old[c], &new[c]));
        for i in 0..self.keys.outgoing.len() {
            let fk = &self.keys.outgoing[i];
            if !changed(&fk.columns) {
                continue;
            }
            let key: Box<[Value]> = fk.columns.iter().map(|&c| new[c].clone()).collect();
            if checked(rel, fk, &key)? {
                self.push(Event::Check(i, key))?;
            }
        }
        for i in 0..self.keys.incoming.len() {
            let fk = &self.keys.incoming[i];
            if !changed(&fk.columns) {
                continue;
            }
            let key: Box<[Value]> = fk.columns.iter().map(|&c| old[c].clone()).collect();
            if key.iter().any(Value::is_null) {
                continue; // nothing references a key with a NULL
            }
            let new_key = fk.columns.iter().map(|&c| new[c].clone()).collect();
            self.push(Event::Referenced(i, key, Some(new_key)))?;
        }
        Ok(())
    }

    /// A row of the table deleted.
    pub fn deleted(&mut self, old: &[Value]) -> PgResult<()> {
        for i in 0..self.keys.incoming.len() {
            let fk = &self.keys.incoming[i];
            let key: Box<[Value]> = fk.columns.iter().map(|&c| old[c].clone()).collect();
            if key.iter().any(Value::is_null) {
                continue;
            }
            self.push(Event::Referenced(i, key, None))?;
        }
        Ok(())
    }

    /// Handles the queued events, in order: `Ok(None)` once all are done, `Ok(Some(step))` to
    /// return a wait or yield (the event is kept and handled again on the next call).
    pub fn run(
        &mut self,
        rel: &Rel,
        cell: &Arc<TxnCell>,
        cid: Cid,
        cx: &mut EvalCx,
    ) -> PgResult<Option<Step>> {
        loop {
            if let Some(n) = &mut self.nested {
                crate::stack::check()?;
                let mut session = AtSnapshot {
                    inner: &mut *cx.session,
                    snap: n.snap,
                };
                let mut ncx = EvalCx {
                    params: &n.params,
                    outer: Vec::new(),
                    session: &mut session,
                };
                let step = n.exec.next(&mut ncx);
                match step? {
                    Step::Row(_) => continue,
                    Step::Done => {
                        self.nested = None;
                        if self.defaulted {
                            continue; // on to its NO ACTION check
                        }
                        self.events.pop_front();
                        continue;
                    }
                    other => return Ok(Some(other)),
                }
            }
            let Some(e) = self.events.front() else {
                return Ok(None);
            };
            if !self.firing && !self.defaulted {
                if let Some(d) = self.deferral(e, rel, &*cx.session) {
                    cx.session.queue_deferred(d)?;
                    self.events.pop_front();
                    continue;
                }
            }
            let serializable = cx.session.isolation() >= Isolation::RepeatableRead;
            let snap = if serializable {
                Snapshot {
                    cid: cid + 1,
                    ..cx.session.snapshot()?
                }
            } else {
                cx.session.catalog_snapshot()?
            };
            let lock = Some((cell, cid));
            let fmt = cx.session.fmt().clone();
            // The relation lock PostgreSQL's RI query takes: ROW SHARE on the table searched
            // (SELECT ... FOR KEY SHARE), ROW EXCLUSIVE on the one an action changes.
            let (oid, mode) = match e {
                Event::Check(i, _) => (self.keys.outgoing[*i].parent.oid, RelLock::RowShare),
                Event::Referenced(i, _, new) => {
                    let fk = &self.keys.incoming[*i];
                    let action = if new.is_some() {
                        fk.on_update
                    } else {
                        fk.on_delete
                    };
                    let mode = if "cnd".contains(action) && !self.defaulted && !self.firing {
                        RelLock::RowExclusive
                    } else {
                        RelLock::RowShare
                    };
                    (fk.child.oid, mode)
                }
            };
            if !self.locked.contains(&(oid, mode)) {
                cx.session.lock_relation(oid, mode, None)?;
                self.locked.push((oid, mode));
            }
            match e {
                Event::Check(i, key) => {
                    let fk = &self.keys.outgoing[*i];
                    // Only a partly NULL MATCH FULL key of a DEFERRABLE constraint has one.
                    if key.iter().any(Value::is_null) {
                        return Err(mixed_nulls(rel, &fk.name));
                    }
                    let parent_cols = &fk.parent.indexes[fk.index].columns;
                    let pkey: Vec<Value> = fk.order.iter().map(|&p| key[p].clone()).collect();
                    match find_row(&fk.parent, parent_cols, &pkey, &snap, lock, serializable)? {
                        Found::Yes => {}
                        // A deferred check whose row is gone by now (deleted, or updated to
                        // another key, which queued its own check) has nothing to check: the
                        // key is looked for among the table's rows (PostgreSQL skips an event
                        // whose row version is dead).
                        Found::No
                            if self.firing
                                && matches!(
                                    find_row(rel, &fk.columns, key, &snap, None, false)?,
                                    Found::No
                                ) => {}
                        Found::No => {
                            return Err(missing_parent(
                                rel,
                                &fk.name,
                                &fk.columns,
                                key,
                                &fk.parent,
                                &fmt,
                            ))
                        }
                        Found::Wait(c) => return Ok(Some(Step::Wait(c))),
                    }
                }
                Event::Referenced(i, key, new) => {
                    let fk = &self.keys.incoming[*i];
                    let mut action = if new.is_some() {
                        fk.on_update
                    } else {
                        fk.on_delete
                    };
                    // A deferred event is a NO ACTION check (of an update or a delete: it keeps
                    // the old key only).
                    if self.defaulted || self.firing {
                        action = 'a';
                    }
                    match action {
                        'c' | 'n' | 'd' => {
                            self.defaulted = action == 'd';
                            let plan = action_plan(fk, action, new.is_some(), cx)?;
                            let mut params = key.to_vec();
                            if let Some(n) = new {
                                params.extend(n.iter().cloned());
                            }
                            self.nested = Some(Nested {
                                exec: Executor::open(Box::new(plan)),
                                params,
                                snap,
                            });
                            continue;
                        }
                        _ => {
                            // NO ACTION: fine if the key exists again (another row took it).
                            if action == 'a' {
                                match find_row(rel, &fk.columns, key, &snap, lock, serializable)? {
                                    Found::Yes => {
                                        self.events.pop_front();
                                        self.defaulted = false;
                                        continue;
                                    }
                                    Found::No => {}
                                    Found::Wait(c) => return Ok(Some(Step::Wait(c))),
                                }
                            }
                            match find_row(
                                &fk.child,
                                &fk.child_columns,
                                key,
                                &snap,
                                lock,
                                serializable,
                            )? {
                                Found::No => {}
                                Found::Yes => return Err(still_referenced(rel, fk, key, &fmt)),
                                Found::Wait(c) => return Ok(Some(Step::Wait(c))),
                            }
                        }
                    }
                }
            }
            self.events.pop_front();
            self.defaulted = false;
        }
    }
}

/// `a = $n`, with NULL for a NULL operand (an index key compares NULL equal, SQL does not).
fn key_eq(a: &Value, b: &Value, _: &FormatCtx) -> PgResult<Value> {
    if a.is_null() || b.is_null() {
        return Ok(Value::Null);
    }
    Ok(Value::Bool(engine::same_value(a, b)))
}

/// The nested statement of a CASCADE / SET NULL / SET DEFAULT action: a DELETE or UPDATE of the
/// referencing rows whose key is `$1..$n` (the old referenced key; the new one follows as
/// `$n+1..` for ON UPDATE CASCADE).
fn action_plan(fk: &Incoming, action: char, update: bool, cx: &mut EvalCx) -> PgResult<Plan> {
    let child = &fk.child;
    let pred = Expr::And(
        fk.child_columns
            .iter()
            .enumerate()
            .map(|(i, &c)| Expr::Bin(key_eq, Box::new(Expr::Column(c)), Box::new(Expr::Param(i))))
            .collect(),
    );
    let mut columns = table_columns(child);
    columns.push(crate::sql::plan::Column {
        name: crate::sql::plan::modify::ROWID.to_string(),
        ty: Type::INT8,
        typmod: -1,
        origin: None,
    });
    let rules = defaults_and_checks(child, cx.session.fmt())?;
    let defaults = &rules.defaults;
    let scan = Plan {
        columns: columns.clone(),
        node: match leading_index_for(child, &fk.child_columns) {
            Some((i, order)) => Node::IndexScan {
                rel: child.clone().into(),
                rowid: true,
                index: i,
                eq: order.iter().map(|&p| Expr::Param(p)).collect(),
            },
            None => Node::SeqScan {
                rel: child.clone().into(),
                rowid: true,
            },
        },
    };
    let input = Plan {
        columns,
        node: Node::Filter {
            input: Box::new(scan),
            pred: pred.clone(),
        },
    };
    let n = fk.child_columns.len();
    let kind = match (action, update) {
        ('c', false) => ModifyKind::Delete,
        ('c', true) => ModifyKind::Update {
            sets: fk
                .child_columns
                .iter()
                .enumerate()
                .map(|(i, &c)| (c, Expr::Param(n + i)))
                .collect(),
        },
        ('n', _) => ModifyKind::Update {
            sets: fk
                .child_columns
                .iter()
                .map(|&c| (c, Expr::Const(Value::Null)))
                .collect(),
        },
        _ => ModifyKind::Update {
            sets: fk
                .child_columns
                .iter()
                .map(|&c| (c, defaults[c].clone().unwrap_or(Expr::Const(Value::Null))))
                .collect(),
        },
    };
    Ok(Plan {
        columns: Vec::new(),
        node: Node::Modify(Box::new(Modify {
            rel: child.clone(),
            kind,
            input,
            checks: rules.checks,
            generated: rules.generated,
            returning: None,
            recheck: Some(pred),
            triggers: None,
        })),
    })
}

/// Checks every row of `child` against a foreign key (ALTER TABLE ... ADD FOREIGN KEY, and a
/// deferred constraint checked whole at commit):
/// 23503 for the first whose referenced row is missing. `parent`: None when it references
/// itself.
pub(crate) fn validate(
    cx: &mut dyn SessionCtx,
    child: &Rel,
    def: &ConstraintDef,
    parent: Option<&Rel>,
) -> PgResult<()> {
    let ConstraintKind::ForeignKey {
        columns,
        ref_columns,
        match_full,
        ..
    } = &def.kind
    else {
        return Ok(());
    };
    let parent = parent.unwrap_or(child);
    let snap = cx.catalog_snapshot()?;
    let mut keys: Vec<Vec<Value>> = Vec::new();
    engine::scan(child, 0, usize::MAX, &snap, |_, r| {
        keys.push(columns.iter().map(|&c| r[c].clone()).collect());
        true
    });
    // Rows sharing a key need one lookup.
    keys.sort_by(|a, b| {
        crate::sql::engine::Key(a.clone().into_boxed_slice())
            .cmp(&crate::sql::engine::Key(b.clone().into_boxed_slice()))
    });
    keys.dedup_by(|a, b| {
        a.iter()
            .zip(b.iter())
            .all(|(x, y)| crate::sql::engine::same_value(x, y))
    });
    let index = unique_index_for(parent, ref_columns).map(|(i, _)| i);
    for key in keys {
        cx.check_interrupts()?;
        if !key_applies(child, &def.name, &key, *match_full)? {
            continue;
        }
        let found = match index {
            Some(_) => find_row(parent, ref_columns, &key, &snap, None, false)?,
            None => Found::No,
        };
        if !matches!(found, Found::Yes) {
            return Err(missing_parent(
                child,
                &def.name,
                columns,
                &key,
                parent,
                cx.fmt(),
            ));
        }
    }
    Ok(())
}
