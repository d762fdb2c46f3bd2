//! Operators over tables: sequential and index scans, and the one operator that writes
//! (INSERT, UPDATE, DELETE).
//!
//! Scans read through the snapshot they take at their first pull (a portal keeps its snapshot
//! for its whole life, as in PostgreSQL) and copy a batch of visible rows out of storage per
//! budget tick, so no storage lock is held between pulls. The writer calls the engine for each
//! input row; when the engine answers that another transaction in progress holds the row or key,
//! the writer keeps that row and returns `Step::Wait` with the transaction to wait for: the
//! session awaits its end and pulls again, and the same row is tried again (READ COMMITTED then
//! follows the row to its newest version and re-checks it, as PostgreSQL's EvalPlanQual does).

use std::collections::VecDeque;

use crate::error::{code, PgError, PgResult};
use crate::sql::engine::{self, Changed, Key, Rel, WriteError, Writer};
use crate::sql::exec::{text_of, EvalCx};
use crate::sql::plan::modify::{Modify, ModifyKind};
use crate::sql::plan::{Expr, Node, Plan};
use crate::sql::types::{Type, Value};
use crate::storage::{Entry, RowId};
use crate::txn::ssi::Xact;
use crate::txn::Isolation;
use crate::txn::Snapshot;

use super::trigger::{Before, Firing};
use super::upsert::Upserted;
use super::{Budget, Operator, Row, Step};
use crate::catalog::triggers;
use crate::storage::LockMode;

/// Slots (or index entries) examined per budget tick.
pub(super) const BATCH: usize = 64;

/// The version `packed` as a scan's row, decoded once: the columns `want` marks (every
/// column when None; the others NULL, never read above the scan), then the row id. Without a
/// row id the row ends at the last column read, since nothing above reads past it: a
/// `count(*)` row is empty and allocates nothing.
pub(super) fn scan_row(
    packed: &engine::PackedRow,
    want: Option<&[bool]>,
    ncols: usize,
    id: RowId,
    rowid: bool,
) -> Row {
    let row = match want {
        None => packed.decode_with_spare(usize::from(rowid)),
        Some(w) => {
            let len = if rowid {
                ncols
            } else {
                w[..ncols]
                    .iter()
                    .rposition(|&x| x)
                    .map_or(0, |last| last + 1)
            };
            let mut row = Vec::with_capacity(len + usize::from(rowid));
            // Not `resize`: that clones a NULL into each place, a call per column.
            row.extend((0..len).map(|_| Value::Null));
            packed.decode_marked(&w[..len], &mut row);
            row
        }
    };
    owned_row(row, id, rowid)
}

/// The columns of a scan's row (the table's, then its row id) that the operators above it read,
/// when they are only `exprs` and these are plain expressions (no subquery, which could read
/// the row from inside, and no call of a user's function): None when every column is needed.
pub(super) fn columns_read<'a>(
    exprs: impl IntoIterator<Item = &'a Expr>,
    width: usize,
) -> Option<Vec<bool>> {
    let mut want = vec![false; width];
    let mut plain = true;
    for e in exprs {
        e.any(&mut |x| {
            match x {
                Expr::Column(c) if *c < width => want[*c] = true,
                Expr::Column(_) | Expr::Subquery(..) | Expr::UserCall(_) | Expr::Session { .. } => {
                    plain = false
                }
                _ => {}
            }
            !plain
        });
        if !plain {
            return None;
        }
    }
    Some(want)
}

/// A row the engine decoded for this scan (with room for the row id), the row id appended.
fn owned_row(mut row: Row, id: RowId, rowid: bool) -> Row {
    if rowid {
        row.push(Value::Int8(id as i64));
    }
    row
}

/// Rows copied out of storage a batch at a time, read through the snapshot taken at the first
/// pull.
#[derive(Default)]
pub(super) struct Batches {
    snap: Option<Snapshot>,
    /// A SERIALIZABLE transaction's SSI state, taken with the snapshot: the scan records its
    /// reads there (`txn::ssi`).
    ssi: Option<std::sync::Arc<Xact>>,
    buf: VecDeque<Row>,
    pub(super) done: bool,
}

impl Batches {
    /// The next buffered row; when none is left, one budget tick and the next batch from
    /// `fill`, which returns false once there is no more.
    pub(super) fn next(
        &mut self,
        cx: &mut EvalCx,
        b: &mut Budget,
        mut fill: impl FnMut(
            &Snapshot,
            Option<&std::sync::Arc<Xact>>,
            &mut VecDeque<Row>,
        ) -> PgResult<bool>,
    ) -> PgResult<Step> {
        self.next_with(cx, b, |snap, ssi, buf, _| fill(snap, ssi, buf))
    }

    /// [`Batches::next`] for a `fill` that evaluates expressions (it is handed the `EvalCx`)
    /// and so may fail.
    pub(super) fn next_with(
        &mut self,
        cx: &mut EvalCx,
        b: &mut Budget,
        mut fill: impl FnMut(
            &Snapshot,
            Option<&std::sync::Arc<Xact>>,
            &mut VecDeque<Row>,
            &mut EvalCx,
        ) -> PgResult<bool>,
    ) -> PgResult<Step> {
        loop {
            if let Some(r) = self.buf.pop_front() {
                return Ok(Step::Row(r));
            }
            if self.done {
                return Ok(Step::Done);
            }
            if b.tick() {
                return Ok(Step::Yield);
            }
            let snap = match self.snap {
                Some(s) => s,
                None => {
                    let s = *self.snap.insert(cx.session.snapshot()?);
                    self.ssi = cx.session.ssi();
                    s
                }
            };
            if !fill(&snap, self.ssi.as_ref(), &mut self.buf, cx)? {
                self.done = true;
            }
            if let (Some(x), false) = (&self.ssi, self.buf.is_empty()) {
                // A doomed transaction fails at the rows it reads, as PostgreSQL's checks
                // each tuple.
                x.manager().check_read(x)?;
            }
        }
    }
}

/// A table's visible rows in slot order.
#[derive(Default)]
pub(super) struct SeqScan {
    rows: Batches,
    pos: RowId,
    /// The columns decoded (see `scan_row`; None: all).
    want: Option<Vec<bool>>,
}

impl SeqScan {
    pub fn new(want: Option<Vec<bool>>) -> Self {
        SeqScan {
            want,
            ..Default::default()
        }
    }
}

impl Operator for SeqScan {
    fn next(&mut self, plan: &Plan, cx: &mut EvalCx, b: &mut Budget) -> PgResult<Step> {
        opened_from!(plan, SeqScan, rel, rowid);
        let (pos, want) = (&mut self.pos, self.want.as_deref());
        let ncols = rel.columns.len();
        self.rows.next(cx, b, |snap, ssi, buf| {
            if let Some(x) = ssi {
                engine::predicate_relation(rel, x)?;
            }
            let next = match want {
                None => engine::scan_owned(rel, *pos, BATCH, snap, 1, |id, data| {
                    buf.push_back(owned_row(data, id, *rowid));
                    true
                }),
                Some(_) => engine::scan_packed(rel, *pos, BATCH, snap, |id, packed| {
                    buf.push_back(scan_row(packed, want, ncols, id, *rowid));
                    true
                }),
            };
            Ok(match next {
                Some(p) => {
                    *pos = p;
                    true
                }
                None => false,
            })
        })
    }
}

/// `Filter(SeqScan)` as one operator (not under EXPLAIN ANALYZE, which counts the two nodes
/// apart), for a predicate that `filter_in_scan` accepts: each visible version's predicate
/// columns are decoded alone into a reused row and tested there, and only the versions that
/// pass are decoded whole. Decoding and allocating the rows a filter drops is most of what a
/// selective scan costs otherwise. The test runs under the version's slot lock, so the
/// predicate may hold only operators over its values (no calls, no subqueries: nothing that
/// reaches storage or takes long).
#[derive(Default)]
pub(super) struct FilteredSeqScan {
    rows: Batches,
    pos: RowId,
    /// The columns the predicate reads (by position in the scan's row), and the reused row.
    want: Vec<bool>,
    scratch: Vec<Value>,
    /// The columns decoded for the rows that pass (see `scan_row`; None: all).
    out: Option<Vec<bool>>,
}

impl FilteredSeqScan {
    pub fn new(out: Option<Vec<bool>>) -> Self {
        FilteredSeqScan {
            out,
            ..Default::default()
        }
    }
}

/// Whether `pred` can be tested by `FilteredSeqScan` under a slot lock: columns, constants,
/// parameters and the built-in operators, casts and tests over them.
pub(super) fn filter_in_scan(pred: &Expr) -> bool {
    !pred.any(&mut |x| {
        !matches!(
            x,
            Expr::Const(_)
                | Expr::Param(_)
                | Expr::Column(_)
                | Expr::Outer(..)
                | Expr::Bin(..)
                | Expr::Un(..)
                | Expr::Cast { .. }
                | Expr::And(_)
                | Expr::Or(_)
                | Expr::Not(_)
                | Expr::IsNull(..)
                | Expr::BoolTest(..)
                | Expr::Distinct(..)
                | Expr::InList { .. }
        )
    })
}

impl Operator for FilteredSeqScan {
    fn next(&mut self, plan: &Plan, cx: &mut EvalCx, b: &mut Budget) -> PgResult<Step> {
        opened_from!(plan, Filter, input, pred);
        let Node::SeqScan { rel, rowid } = &input.node else {
            unreachable!("FilteredSeqScan opened over another node")
        };
        let width = rel.columns.len() + usize::from(*rowid);
        if self.want.len() != width {
            self.want = vec![false; width];
            pred.any(&mut |x| {
                if let Expr::Column(c) = x {
                    if *c < width {
                        self.want[*c] = true;
                    }
                }
                false
            });
            self.scratch = vec![Value::Null; width];
        }
        let (want, scratch, pos) = (&self.want, &mut self.scratch, &mut self.pos);
        let out = self.out.as_deref();
        let ncols = rel.columns.len();
        self.rows.next_with(cx, b, |snap, ssi, buf, cx| {
            if let Some(x) = ssi {
                engine::predicate_relation(rel, x)?;
            }
            let mut failed = None;
            let next = engine::scan_packed(rel, *pos, BATCH, snap, |id, packed| {
                packed.decode_marked(&want[..ncols], &mut scratch[..ncols]);
                if *rowid {
                    scratch[ncols] = Value::Int8(id as i64);
                }
                match pred.eval(scratch, cx) {
                    Ok(Value::Bool(true)) => {
                        buf.push_back(scan_row(packed, out, ncols, id, *rowid));
                        true
                    }
                    Ok(_) => true,
                    Err(e) => {
                        failed = Some(e);
                        false
                    }
                }
            });
            if let Some(e) = failed {
                return Err(e);
            }
            Ok(match next {
                Some(p) => {
                    *pos = p;
                    true
                }
                None => false,
            })
        })
    }
}

/// The visible rows whose leading index columns equal the scan's key.
#[derive(Default)]
pub(super) struct IndexScan {
    rows: Batches,
    key: Option<Key>,
    after: Option<Entry<Key>>,
    /// The columns decoded (see `scan_row`; None: all).
    want: Option<Vec<bool>>,
}

impl IndexScan {
    pub fn new(want: Option<Vec<bool>>) -> Self {
        IndexScan {
            want,
            ..Default::default()
        }
    }
}

impl Operator for IndexScan {
    fn next(&mut self, plan: &Plan, cx: &mut EvalCx, b: &mut Budget) -> PgResult<Step> {
        opened_from!(plan, IndexScan, rel, rowid, index, eq);
        let def = &rel.indexes[*index];
        if self.key.is_none() {
            let mut vals = Vec::with_capacity(eq.len());
            for e in eq {
                vals.push(e.eval(&[], cx)?);
            }
            let key = Key(vals.into_boxed_slice());
            // `col = NULL` is never true.
            self.rows.done = key.has_null();
            self.key = Some(key);
        }
        let key = self.key.as_ref().expect("set above");
        let after = &mut self.after;
        let want = self.want.as_deref();
        let ncols = rel.columns.len();
        self.rows.next(cx, b, |snap, ssi, buf| {
            if let Some(x) = ssi {
                engine::predicate_index(def.oid, x)?;
            }
            let prefix = key.0.len();
            let mut roots = Vec::with_capacity(BATCH);
            let mut ended = false;
            let next = engine::index_scan(
                rel,
                def.oid,
                std::ops::Bound::Included(key),
                std::ops::Bound::Unbounded,
                after.as_ref(),
                BATCH,
                |k, root| {
                    let same = k.0.len() >= prefix
                        && k.0[..prefix]
                            .iter()
                            .zip(key.0.iter())
                            .all(|(a, b)| engine::same_value(a, b));
                    if !same {
                        ended = true;
                        return false;
                    }
                    roots.push(root);
                    true
                },
            );
            let more = match next {
                Some(e) if !ended => {
                    *after = Some(e);
                    true
                }
                _ => false,
            };
            for root in roots {
                // The entry may be stale (the chain moved to another key): check the version.
                let found = engine::fetch_packed(rel, root, snap, |id, packed| {
                    scan_row(packed, want, ncols, id, *rowid)
                });
                if let Some(x) = ssi {
                    engine::predicate_root(rel, root, x)?;
                    if let Some((id, _)) = &found {
                        engine::predicate_tuple(rel, *id, x)?;
                    }
                }
                if let Some((_, row)) = found {
                    if super::index_keys::key_starts_with(rel, def, &row, &key.0) {
                        buf.push_back(row);
                    }
                }
            }
            Ok(more)
        })
    }
}

/// A row the writer could not finish because another transaction held it.
enum Pending {
    /// INSERT of this row.
    Insert(Row),
    /// UPDATE / DELETE of the version at this slot, with the input row that chose it; `true`
    /// when the version is a newer one found by READ COMMITTED's re-check, which the
    /// statement's snapshot does not see (it is then changed as seen now).
    Change(RowId, Row, bool),
}

/// INSERT / UPDATE / DELETE.
pub(super) struct ModifyOp {
    input: Box<dyn Operator>,
    access: Option<Access>,
    pending: Option<Pending>,
    out: VecDeque<Row>,
    done: bool,
    pub(super) affected: u64,
    /// Foreign-key events of the statement, run once its rows are written (None until the
    /// first write looks up the table's foreign keys).
    fk: Option<super::foreign_key::Queue>,
    /// The foreign-key events have all run.
    fk_done: bool,
    /// Keys of DEFERRABLE unique indexes to check again once the rows are written.
    rechecks: super::unique_recheck::Rechecks,
    /// The statement's triggers: what has fired, the AFTER ROW events waiting.
    firing: Firing,
    /// The columns an UPDATE sets (for UPDATE OF triggers), known at the first pull.
    set: Option<Vec<usize>>,
    /// Where rows written to a partitioned table go (made at the first such row).
    router: Option<super::partition_route::Router>,
    /// A partitioned UPDATE / DELETE target's leaves, by OID (its rows name theirs).
    leaves: Option<std::collections::HashMap<u32, std::sync::Arc<Rel>>>,
}

/// The trigger events of a statement (tgtype bits).
fn events_of(m: &Modify) -> &'static [i16] {
    match &m.kind {
        ModifyKind::Insert => &[triggers::INSERT],
        ModifyKind::Upsert(oc) => match oc.action {
            crate::sql::plan::modify::on_conflict::ConflictAction::Update { .. } => {
                &[triggers::INSERT, triggers::UPDATE]
            }
            _ => &[triggers::INSERT],
        },
        ModifyKind::Update { .. } => &[triggers::UPDATE],
        ModifyKind::Delete => &[triggers::DELETE],
    }
}

/// The columns a statement sets, with the generated columns computed from them (an UPDATE OF
/// trigger on a generated column fires when a column it reads is set, as the standard says).
fn set_of(m: &Modify) -> Vec<usize> {
    let mut set = given_set(m);
    if set.is_empty() {
        return set;
    }
    for (g, e) in &m.generated {
        let reads_set = e.any(&mut |x| matches!(x, Expr::Column(c) if set.contains(c)));
        if reads_set && !set.contains(g) {
            set.push(*g);
        }
    }
    set
}

/// The columns a statement's SET list names.
fn given_set(m: &Modify) -> Vec<usize> {
    match &m.kind {
        ModifyKind::Update { sets } => sets.iter().map(|(c, _)| *c).collect(),
        ModifyKind::Upsert(oc) => match &oc.action {
            crate::sql::plan::modify::on_conflict::ConflictAction::Update { sets, .. } => {
                sets.iter().map(|(c, _)| *c).collect()
            }
            _ => Vec::new(),
        },
        _ => Vec::new(),
    }
}

impl ModifyOp {
    pub(super) fn new(input: Box<dyn Operator>) -> ModifyOp {
        ModifyOp {
            input,
            access: None,
            pending: None,
            out: VecDeque::new(),
            done: false,
            affected: 0,
            fk: None,
            fk_done: false,
            rechecks: Default::default(),
            firing: Firing::default(),
            set: None,
            router: None,
            leaves: None,
        }
    }

    /// The statement's foreign-key queue, when the table has foreign keys on either side.
    fn fk_queue(
        &mut self,
        m: &Modify,
        cx: &mut EvalCx,
    ) -> PgResult<Option<&mut super::foreign_key::Queue>> {
        if self.fk.is_none() {
            let keys = super::foreign_key::Keys::of(&m.rel, cx.session)?;
            self.fk = Some(super::foreign_key::Queue::new(keys));
        }
        Ok(self.fk.as_mut().filter(|q| !q.is_empty()))
    }
}

/// What a writing operator writes as: the transaction's (or savepoint's) cell and the command,
/// and the statement's snapshot. Fixed for the statement, so asked of the session once.
pub(super) struct Access {
    pub(super) cell: crate::sync::Arc<crate::txn::TxnCell>,
    cid: crate::txn::Cid,
    pub(super) snap: Snapshot,
}

impl Access {
    pub(super) fn get<'a>(
        slot: &'a mut Option<Access>,
        cx: &mut EvalCx,
        what: &str,
    ) -> PgResult<&'a Access> {
        if slot.is_none() {
            // The writer first: the first write gives the transaction its cell, which the
            // snapshot then names as its own.
            let (cell, cid) = cx.session.writer(what)?;
            let snap = cx.session.snapshot()?;
            *slot = Some(Access { cell, cid, snap });
        }
        Ok(slot.as_ref().expect("set above"))
    }

    pub(super) fn writer(&self, latest: bool) -> Writer<'_> {
        Writer {
            cell: &self.cell,
            cid: self.cid,
            snap: &self.snap,
            latest,
        }
    }
}

fn null_violation(rel: &Rel, col: usize, row: &[Value], cx: &EvalCx) -> PgError {
    PgError::new(
        code::NOT_NULL_VIOLATION,
        format!(
            "null value in column \"{}\" of relation \"{}\" violates not-null constraint",
            rel.columns[col].name, rel.name.name
        ),
    )
    .with_detail(format!("Failing row contains {}.", show_row(rel, row, cx)))
    .with_table(&rel.name.schema, &rel.name.name)
    .with_column(&rel.columns[col].name)
}

fn show_row(rel: &Rel, row: &[Value], cx: &EvalCx) -> String {
    let vals: Vec<String> = rel
        .live_columns()
        .map(|(i, c)| {
            if row[i].is_null() {
                "null".to_string()
            } else {
                // PostgreSQL shows at most 64 bytes of a value (at a character boundary).
                let mut s = text_of(&row[i], Type(c.type_oid), cx.session.fmt());
                if s.len() > 64 {
                    let mut n = 64;
                    while !s.is_char_boundary(n) {
                        n -= 1;
                    }
                    s.truncate(n);
                    s.push_str("...");
                }
                s
            }
        })
        .collect();
    format!("({})", vals.join(", "))
}

pub(crate) fn unique_violation(rel: &Rel, index: u32, key: &Key, cx: &EvalCx) -> PgError {
    let def = rel.indexes.iter().find(|d| d.oid == index);
    let name = def.map_or("?", |d| d.name.as_str());
    let mut e = PgError::new(
        code::UNIQUE_VIOLATION,
        format!("duplicate key value violates unique constraint \"{name}\""),
    );
    if let Some(d) = def {
        e = e.with_detail(format!(
            "{} already exists.",
            super::index_keys::key_text(rel, d, key, cx.session.fmt())
        ));
    }
    e.with_table(&rel.name.schema, &rel.name.name)
        .with_constraint(name)
}

/// Completes a new row (after its BEFORE triggers): computes its generated columns from its
/// other values, then checks its NOT NULL and CHECK constraints.
pub(super) fn complete_row(m: &Modify, row: &mut [Value], cx: &mut EvalCx) -> PgResult<()> {
    for (i, e) in &m.generated {
        row[*i] = e.eval(row, cx)?;
    }
    for (i, c) in m.rel.columns.iter().enumerate() {
        if c.not_null && !c.dropped && row[i].is_null() {
            return Err(null_violation(&m.rel, i, row, cx));
        }
    }
    for (name, pred) in &m.checks {
        if let Value::Bool(false) = pred.eval(row, cx)? {
            return Err(PgError::new(
                code::CHECK_VIOLATION,
                format!(
                    "new row for relation \"{}\" violates check constraint \"{name}\"",
                    m.rel.name.name
                ),
            )
            .with_detail(format!(
                "Failing row contains {}.",
                show_row(&m.rel, row, cx)
            ))
            .with_table(&m.rel.name.schema, &m.rel.name.name)
            .with_constraint(name));
        }
    }
    Ok(())
}

pub(super) fn serialization_failure() -> PgError {
    PgError::new(
        code::T_R_SERIALIZATION_FAILURE,
        "could not serialize access due to concurrent update",
    )
}

impl ModifyOp {
    /// Writes one row; `Ok(None)` when done with it, `Ok(Some(step))` to return `step` (a wait)
    /// with the row kept pending.
    fn write(&mut self, m: &Modify, p: Pending, cx: &mut EvalCx) -> PgResult<Option<Step>> {
        let width = m.rel.columns.len();
        // A newer version found by READ COMMITTED's re-check was committed after the
        // statement's snapshot; PostgreSQL changes it all the same.
        let latest = matches!(p, Pending::Change(_, _, true));
        if !matches!(m.kind, ModifyKind::Delete) {
            // New row versions take memory: not past the server's bound.
            cx.session.check_memory(self.affected)?;
        }
        let access = Access::get(&mut self.access, cx, m.verb())?;
        let w = access.writer(latest);
        match p {
            Pending::Insert(row) if matches!(m.kind, ModifyKind::Upsert(_)) => {
                let ModifyKind::Upsert(oc) = &m.kind else {
                    unreachable!("matched above")
                };
                // A partitioned table's row goes to its leaf, whose own unique indexes
                // decide the conflict (those matching the table's arbiters).
                let (target, arbiters) = if m.rel.partition_key().is_some() {
                    let leaf = self
                        .router
                        .get_or_insert_with(Default::default)
                        .route(&m.rel, &row, cx)?;
                    let arbiters =
                        super::partition_route::leaf_arbiters(&m.rel, &leaf, &oc.arbiters)?;
                    (leaf, arbiters)
                } else {
                    (m.rel.clone(), oc.arbiters.clone())
                };
                let upserted = super::upsert::upsert(
                    m,
                    (&target, &arbiters),
                    oc,
                    &row,
                    access,
                    cx,
                    self.rechecks.sink(),
                );
                self.rechecks.settle();
                match upserted? {
                    Upserted::Written(old, new) => {
                        self.affected += 1;
                        if let Some(t) = &m.triggers {
                            let event = match old {
                                Some(_) => triggers::UPDATE,
                                None => triggers::INSERT,
                            };
                            self.firing
                                .after_row(t, event, old.as_deref(), new.get(..width))?;
                        }
                        // The new row's references are checked whether it was inserted or
                        // updated (an unchanged key is checked again: one more KEY SHARE lock).
                        if let (Some(q), Some(r)) = (self.fk_queue(m, cx)?, new.get(..width)) {
                            q.inserted(&m.rel, r)?;
                        }
                        if let Some(ret) = &m.returning {
                            let mut new = new;
                            if m.rel.partition_key().is_some() {
                                // No slot; the leaf, for RETURNING's tableoid (`plan_insert`).
                                new.push(Value::Null);
                                new.push(Value::Oid(target.oid));
                            }
                            let out = ret
                                .iter()
                                .map(|e| e.eval(&new, cx))
                                .collect::<PgResult<_>>()?;
                            self.out.push_back(out);
                        }
                        Ok(None)
                    }
                    Upserted::Skipped => Ok(None),
                    Upserted::Wait(c) => {
                        self.pending = Some(Pending::Insert(row));
                        Ok(Some(Step::Wait(c)))
                    }
                }
            }
            Pending::Insert(mut row) => {
                // A partitioned table's row goes to its leaf; a row written straight to a
                // partition must belong there.
                let target = if m.rel.partition_key().is_some() {
                    self.router
                        .get_or_insert_with(Default::default)
                        .route(&m.rel, &row, cx)?
                } else {
                    if m.rel.partition_of().is_some() {
                        super::partition_route::check_partition(&m.rel, &row, cx, |cx| {
                            show_row(&m.rel, &row, cx)
                        })?;
                    }
                    m.rel.clone()
                };
                let r = engine::insert(&target, &row, &w, Some(self.rechecks.sink()));
                self.rechecks.settle();
                match r {
                    Ok(id) => {
                        self.affected += 1;
                        if let Some(t) = &m.triggers {
                            self.firing
                                .after_row(t, triggers::INSERT, None, Some(&row))?;
                        }
                        if let Some(q) = self.fk_queue(m, cx)? {
                            q.inserted(&m.rel, &row)?;
                        }
                        if let Some(ret) = &m.returning {
                            // The new version's slot, for RETURNING's system columns, and
                            // a partitioned table's leaf, for its tableoid (`plan_insert`).
                            row.push(Value::Int8(id as i64));
                            if m.rel.partition_key().is_some() {
                                row.push(Value::Oid(target.oid));
                            }
                            let out = ret
                                .iter()
                                .map(|e| e.eval(&row, cx))
                                .collect::<PgResult<_>>()?;
                            self.out.push_back(out);
                        }
                        Ok(None)
                    }
                    Err(WriteError::Unique { index, key }) => {
                        Err(unique_violation(&target, index, &key, cx))
                    }
                    Err(WriteError::Wait(c)) => {
                        self.pending = Some(Pending::Insert(row));
                        Ok(Some(Step::Wait(c)))
                    }
                    Err(WriteError::Log(e)) => Err(e),
                }
            }
            Pending::Change(id, input, newer) => {
                let old = &input[..width];
                // A partitioned table's row is changed in its leaf, whose OID follows its slot.
                let leaf = if m.rel.partition_key().is_some() {
                    let map = self
                        .leaves
                        .get_or_insert_with(|| super::partition_route::target_leaves(&m.input));
                    super::partition_route::leaf_of(map, &input, width)?
                } else {
                    m.rel.clone()
                };
                let mut moved_to = None;
                let set = self.set.as_deref().unwrap_or_default();
                let result = match &m.kind {
                    ModifyKind::Update { sets } => {
                        let mut new: Row = old.to_vec();
                        for (col, e) in sets {
                            new[*col] = e.eval(&input, cx)?;
                        }
                        let (t, mode) = (m.triggers.as_deref(), LockMode::NoKeyUpdate);
                        let event = triggers::UPDATE;
                        match Firing::before_locked(
                            t,
                            &leaf,
                            id,
                            &w,
                            mode,
                            event,
                            set,
                            old,
                            Some(new),
                            cx,
                        )? {
                            Before::Skip => return Ok(None),
                            Before::NotLocked(r) => r.map(|c| (c, None)),
                            Before::Go(new) => {
                                let mut new = new.expect("an update has a new row");
                                complete_row(m, &mut new, cx)?;
                                // A row whose key leaves its partition: moved to the one that
                                // takes it (PostgreSQL's row movement), or refused.
                                if !super::partition_route::still_fits(m, &leaf, &new, cx, |cx| {
                                    show_row(&m.rel, &new, cx)
                                })? {
                                    let router = self.router.get_or_insert_with(Default::default);
                                    let r = super::partition_route::move_row(
                                        m,
                                        router,
                                        &leaf,
                                        id,
                                        &new,
                                        &w,
                                        self.rechecks.sink(),
                                        cx,
                                    );
                                    self.rechecks.settle();
                                    let (r, to) = r?;
                                    moved_to = to;
                                    r.map(|c| (c, Some(new)))
                                } else {
                                    let r = engine::update(
                                        &leaf,
                                        id,
                                        old,
                                        new.clone().into_boxed_slice(),
                                        &w,
                                        Some(self.rechecks.sink()),
                                    );
                                    self.rechecks.settle();
                                    r.map(|c| (c, Some(new)))
                                }
                            }
                        }
                    }
                    ModifyKind::Delete => {
                        let (t, mode) = (m.triggers.as_deref(), LockMode::Update);
                        let event = triggers::DELETE;
                        match Firing::before_locked(
                            t, &leaf, id, &w, mode, event, set, old, None, cx,
                        )? {
                            Before::Skip => return Ok(None),
                            Before::NotLocked(r) => r.map(|c| (c, None)),
                            Before::Go(_) => {
                                engine::delete(&leaf, id, &w, false).map(|c| (c, None))
                            }
                        }
                    }
                    ModifyKind::Insert | ModifyKind::Upsert(_) => {
                        unreachable!("inserts are not changes")
                    }
                };
                match result {
                    Ok((Changed::Done(new_id), new)) => {
                        self.affected += 1;
                        if let Some(t) = &m.triggers {
                            let event = match new {
                                Some(_) => triggers::UPDATE,
                                None => triggers::DELETE,
                            };
                            self.firing.after_row(t, event, Some(old), new.as_deref())?;
                        }
                        if let Some(q) = self.fk_queue(m, cx)? {
                            match &new {
                                Some(new) => q.updated(&m.rel, old, new)?,
                                None => q.deleted(old)?,
                            }
                        }
                        if let Some(ret) = &m.returning {
                            // RETURNING sees the new row (the old one for DELETE) followed by
                            // the rest of the input (other FROM items).
                            let mut r = input.clone();
                            if let Some(new) = new {
                                r[..width].clone_from_slice(&new);
                                // The new version's slot, for its system columns.
                                if let Some(slot) = r.get_mut(width) {
                                    *slot = Value::Int8(new_id as i64);
                                }
                                if let (Some(to), Some(v)) = (moved_to, r.get_mut(width + 1)) {
                                    *v = Value::Oid(to);
                                }
                            }
                            let out = ret
                                .iter()
                                .map(|e| e.eval(&r, cx))
                                .collect::<PgResult<_>>()?;
                            self.out.push_back(out);
                        }
                        Ok(None)
                    }
                    Ok((Changed::Skipped, _)) | Ok((Changed::Concurrent(None), _)) => {
                        if matches!(result, Ok((Changed::Concurrent(None), _)))
                            && cx.session.isolation() >= Isolation::RepeatableRead
                        {
                            return Err(serialization_failure());
                        }
                        Ok(None)
                    }
                    Ok((Changed::Concurrent(Some(next)), _)) => {
                        if cx.session.isolation() >= Isolation::RepeatableRead {
                            return Err(serialization_failure());
                        }
                        // READ COMMITTED: the newest version, if it still qualifies.
                        let Some(latest) = engine::read_latest(&leaf, next, |d| d.to_vec()) else {
                            return Ok(None);
                        };
                        let mut again = input.clone();
                        again[..width].clone_from_slice(&latest);
                        again[width] = Value::Int8(next as i64);
                        if let Some(pred) = &m.recheck {
                            if !matches!(pred.eval(&again, cx)?, Value::Bool(true)) {
                                return Ok(None);
                            }
                        }
                        self.write(m, Pending::Change(next, again, true), cx)
                    }
                    Err(WriteError::Unique { index, key }) => {
                        Err(unique_violation(&leaf, index, &key, cx))
                    }
                    Err(WriteError::Wait(c)) => {
                        self.pending = Some(Pending::Change(id, input, newer));
                        Ok(Some(Step::Wait(c)))
                    }
                    Err(WriteError::Log(e)) => Err(e),
                }
            }
        }
    }
}

/// Adds a statement's written rows to its table's counters (background vacuum, statistics).
fn count_changes(m: &crate::sql::plan::modify::Modify, n: u64) {
    use std::sync::atomic::Ordering::Relaxed;
    if n == 0 {
        return;
    }
    let data = &m.rel.data;
    data.changes.fetch_add(n, Relaxed);
    data.mod_since_analyze.fetch_add(n, Relaxed);
    match m.verb() {
        "INSERT" => &data.stats.inserted,
        "UPDATE" => &data.stats.updated,
        _ => &data.stats.deleted,
    }
    .fetch_add(n, Relaxed);
}

impl Operator for ModifyOp {
    fn next(&mut self, plan: &Plan, cx: &mut EvalCx, b: &mut Budget) -> PgResult<Step> {
        let Node::Modify(m) = &plan.node else {
            unreachable!("Modify opened from another node")
        };
        if self.set.is_none() {
            self.set = Some(set_of(m));
            if let Some(t) = &m.triggers {
                let set = self.set.as_deref().unwrap_or_default();
                self.firing.start(t, &m.rel, events_of(m), set, cx)?;
            }
        }
        let after = m
            .triggers
            .as_deref()
            .is_some_and(|t| super::trigger::has_after(t, events_of(m)))
            || m.rel
                .indexes
                .iter()
                .any(|d| m.rel.deferrable_key(d.oid).is_some());
        loop {
            // With foreign keys or AFTER triggers, RETURNING rows wait for the end of the
            // statement, as PostgreSQL runs such a statement to its end before it sends a row.
            // So do a DEFERRABLE unique key's rechecks (`after` counts them).
            let hold = !self.fk_done && (after || self.fk.as_ref().is_some_and(|q| !q.is_empty()));
            if !hold {
                if let Some(r) = self.out.pop_front() {
                    return Ok(Step::Row(r));
                }
            }
            if let Some(p) = self.pending.take() {
                if let Some(step) = self.write(m, p, cx)? {
                    return Ok(step);
                }
                continue;
            }
            if self.done {
                // The statement's rows are written: the rechecks of its DEFERRABLE unique
                // keys, its foreign-key checks and actions.
                if let Some(a) = self.access.as_ref() {
                    if let Some(step) = self.rechecks.run(&m.rel, &a.cell, cx)? {
                        return Ok(step);
                    }
                }
                if let (Some(q), Some(a)) = (self.fk.as_mut(), self.access.as_ref()) {
                    if let Some(step) = q.run(&m.rel, &a.cell, a.cid, cx)? {
                        return Ok(step);
                    }
                }
                if let Some(t) = &m.triggers {
                    let set = self.set.as_deref().unwrap_or_default();
                    self.firing.finish(t, &m.rel, events_of(m), set, cx)?;
                }
                if !self.fk_done {
                    self.fk_done = true;
                    continue; // the held RETURNING rows
                }
                return Ok(Step::Done);
            }
            let row = match self.input.next(&m.input, cx, b)? {
                Step::Row(r) => r,
                Step::Done => {
                    self.done = true;
                    if m.rel.kind != crate::catalog::RelKind::View {
                        count_changes(m, self.affected);
                    }
                    continue;
                }
                other => return Ok(other),
            };
            if m.rel.kind == crate::catalog::RelKind::View {
                // INSTEAD OF triggers do the write; the row counts when they return one.
                if let Some(r) = super::trigger::instead_row(m, row, cx)? {
                    self.affected += 1;
                    if let Some(ret) = &m.returning {
                        let out = ret
                            .iter()
                            .map(|e| e.eval(&r, cx))
                            .collect::<PgResult<_>>()?;
                        self.out.push_back(out);
                    }
                }
                continue;
            }
            let p = match m.kind {
                ModifyKind::Insert | ModifyKind::Upsert(_) => {
                    let row = match &m.triggers {
                        Some(t) => {
                            match Firing::before_row(
                                t,
                                &m.rel,
                                triggers::INSERT,
                                &[],
                                None,
                                Some(row),
                                cx,
                            )? {
                                Some(r) => r,
                                None => continue,
                            }
                        }
                        None => row,
                    };
                    let mut row = row;
                    complete_row(m, &mut row, cx)?;
                    Pending::Insert(row)
                }
                _ => {
                    let width = m.rel.columns.len();
                    let Some(Value::Int8(id)) = row.get(width) else {
                        return Err(PgError::internal("target row without its slot"));
                    };
                    Pending::Change(*id as RowId, row, false)
                }
            };
            if let Some(step) = self.write(m, p, cx)? {
                return Ok(step);
            }
        }
    }

    fn affected(&self) -> Option<u64> {
        Some(self.affected)
    }
}
