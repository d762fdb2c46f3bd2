//! The executor: one pull-based operator tree per run of a [`Plan`].
//!
//! # Design
//!
//! [`Executor::open`] builds a tree of operators that mirrors the plan, one operator per node,
//! and the caller pulls rows from its root with [`Executor::next`]. Each operator pulls from its
//! children only as many rows as it needs: a Project or Filter passes rows through one at a time,
//! LIMIT stops pulling once it has its rows (so `SELECT * FROM generate_series(1, 1000000000)
//! LIMIT 3` returns at once), set-returning functions generate their values one per pull, and a
//! recursive CTE runs its recursive term only when its reader wants more rows (PostgreSQL's
//! semantics: `WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t) SELECT * FROM t
//! LIMIT 10` ends). Operators that must see all of their input before they can answer (Sort,
//! Aggregate, Window, Distinct, INTERSECT/EXCEPT/UNION, a join's inner rows, a recursive CTE's
//! work tables, a CTE read more than once) hold their build phase as explicit state in the
//! operator, not on the call stack.
//!
//! Operators hold no reference into the plan: [`Operator::next`] is handed, on every call, the
//! plan node the operator was opened from. The executor owns (or borrows) the plan and passes it
//! down, so an open executor is an ordinary owned value (`Executor<Arc<..>>` is `'static` and
//! `Send`) that a portal can keep between Execute messages, and sessions may move between shards
//! with it.
//!
//! # The Step protocol
//!
//! `next` returns a [`Step`]: `Row` (one row), `Done` (no more rows; later calls say `Done`
//! again), or `Yield`: the run has spent its budget of work and stops where it is, every
//! operator keeping its position; the next call continues exactly there. An error ends the run
//! (later calls say `Done`). Rows returned before an error are the rows PostgreSQL would have
//! sent before its ErrorResponse, and [`run_plan_streaming`] hands them over in that order.
//!
//! `Step::Wait(cell)` fits the same protocol: an operator that finds a row locked by another
//! transaction returns `Wait` with the transaction to wait for, after putting itself in a state
//! where the same call can be repeated; every operator above passes it up as it passes `Yield`
//! (`other => return Ok(other)`). The session (`session/running.rs`) keeps the open executor,
//! awaits the transaction's end on its shard's event loop, then calls `next` again; on `Yield` it
//! lets the shard's other sessions run first.
//!
//! # Budget and yield
//!
//! Every unit of work that produces a row from outside the operator tree (a VALUES row, a
//! generated series value, a virtual table row, a stored row replayed by a sort, aggregate,
//! join, CTE or work table) first takes a tick from the run's [`Budget`]. After
//! [`BUDGET_ROWS`] ticks, or [`BUDGET_TIME`] (the clock is read every 64 ticks), the tick is
//! refused and that operator returns `Yield` before doing the work. Every other operator passes
//! `Yield` up unchanged, so it reaches the caller with the whole tree in a resumable state. The
//! executor checks for cancel and statement_timeout (`check_interrupts`) at every yield, then
//! gives the next call a fresh budget. Work that is one indivisible step (sorting the rows of a
//! Sort, one window function over its rows) does not yield in the middle; long ones check
//! interrupts themselves.
//!
//! Expression subqueries (`Expr::Subquery`) cannot yield (expression evaluation has no place to
//! stop): they open an executor of their own and pull it to the end, or to the row that decides
//! them (EXISTS stops at the first row, a scalar subquery at the second).
//!
//! # Bounds
//!
//! * Each operator that holds rows (sort, aggregate groups and their DISTINCT sets and
//!   collected values, window input, DISTINCT, set operations, a join's inner rows, a recursive
//!   CTE's work tables and seen rows, a CTE shared by several readers) holds at most
//!   [`WORK_MEM`] bytes, estimated from the values it holds; past that the statement fails with
//!   54000. PostgreSQL spills to disk past `work_mem`; there is no disk here, so the bound is an
//!   error, set well above PostgreSQL's default `work_mem`.
//! * The result [`run_plan`] and [`run_plan_streaming`] materialize for the session is bounded by
//!   [`MAX_RESULT_BYTES`] the same way (until the session streams from an open executor).

/// Binds the named fields of the plan node an operator was opened from
/// (`opened_from!(plan, Sort, input, keys)`): `build_op` hands each operator only the node it
/// was built for, so any other node is a bug. One spelling for the two dozen operators that
/// each wrote it out; defined before the operator modules so that they see it.
macro_rules! opened_from {
    ($plan:expr, $variant:ident $(, $field:ident)*) => {
        let $crate::sql::plan::Node::$variant { $($field,)* .. } = &$plan.node else {
            unreachable!(concat!(stringify!($variant), " opened from another node"))
        };
    };
}

mod aggregate;
mod bitmap;
mod bounds;
mod catalog_depend;
mod catalog_procs;
mod catalog_ranges;
mod catalog_roles;
mod catalog_rows;
mod catalog_stats;
mod catalog_types;
mod catalog_views;
pub mod copy_load;
mod cte;
pub(crate) mod deferred;
mod distinct;
mod eval;
mod explain;
pub(crate) mod foreign_key;
mod hash_join;
mod hba_rules;
pub mod index_keys;
mod index_range;
mod info_schema;
mod join;
mod keys;
mod limit;
mod lock_rows;
mod modify_cte;
pub mod partition_route;
mod pg_locks;
mod project;
mod rules;
mod scan;
mod setop;
mod sort;
mod srf;
mod subscript;
mod table;
#[cfg(test)]
mod tests;
mod tid_scan;
mod trigger;
mod unique_recheck;
mod upsert;
mod user_func;
mod window;

use std::ops::Deref;

use crate::error::{PgError, PgResult};
use crate::sql::plan::{Column, Expr, Node, Plan};
use crate::sql::types::{io, Type, Value};

pub(crate) use bounds::{row_bytes, Held};
pub use bounds::{Budget, BUDGET_ROWS, BUDGET_TIME, MAX_RESULT_BYTES, WORK_MEM};
use cte::Env;
pub use eval::{check_domain, text_of, EvalCx};
pub(crate) use table::unique_violation;
pub use user_func::SET_RESULT;

pub type Row = Vec<Value>;

/// What one pull of an operator gives.
#[derive(Debug)]
pub enum Step {
    Row(Row),
    /// No more rows.
    Done,
    /// The budget is spent: call again to continue where the run stopped.
    Yield,
    /// A row or key this run must change is held by another transaction still in progress:
    /// wait for that transaction to end, then call again (the same row is tried again).
    Wait(crate::sync::Arc<crate::txn::TxnCell>),
}

/// One node of the running tree.
///
/// `plan` is the node the operator was opened from, handed in on every call so that operators
/// borrow nothing (see the module comment); an operator passes each child the child's node.
/// An operator returns `Yield` only from a state it can resume: on the next call it continues as
/// if `Yield` had not happened.
pub(crate) trait Operator: Send {
    fn next(&mut self, plan: &Plan, cx: &mut EvalCx, b: &mut Budget) -> PgResult<Step>;

    /// Rows written so far, for a data-changing statement's command tag.
    fn affected(&self) -> Option<u64> {
        None
    }
}

/// Builds the operator for `plan` and, recursively, for its inputs (each counted, under
/// EXPLAIN ANALYZE).
fn build(plan: &Plan, env: &Env) -> Box<dyn Operator> {
    counted(build_op(plan, env), plan, env)
}

/// `op`, counted for EXPLAIN ANALYZE as `plan`'s node when it runs under one.
fn counted(op: Box<dyn Operator>, plan: &Plan, env: &Env) -> Box<dyn Operator> {
    match &env.instr {
        Some(i) => Box::new(explain::Counted::new(op, i.stat(plan), i.timing())),
        None => op,
    }
}

/// `plan` built for a Project or an Aggregate that reads only `exprs` of its rows: a scan
/// (sequential or index), alone or under a Filter, then decodes only the columns these, the
/// filter and an index scan's own conditions read
/// (`SELECT c_discount, c_credit FROM customer WHERE ...` decodes 2 of 21 columns, not the
/// 500-byte c_data; `count(*)` decodes none). Any other plan is built whole.
fn build_reading<'e>(
    plan: &'e Plan,
    exprs: impl IntoIterator<Item = &'e Expr>,
    env: &Env,
) -> Box<dyn Operator> {
    let (scan, pred) = match &plan.node {
        Node::Filter { input, pred } => (&**input, Some(pred)),
        _ => (plan, None),
    };
    let op: Box<dyn Operator> = match &scan.node {
        Node::SeqScan { rel, rowid } => {
            let width = rel.columns.len() + usize::from(*rowid);
            // A filter fused into the scan tests the version before it is decoded for the
            // rows that leave: those need only what is read above.
            let fused = pred.is_some_and(|p| fuses_filter(p, env));
            let want = table::columns_read(exprs.into_iter().chain(pred.filter(|_| !fused)), width)
                .filter(|want| want.iter().any(|w| !w));
            if fused {
                return Box::new(table::FilteredSeqScan::new(want));
            }
            Box::new(table::SeqScan::new(want))
        }
        Node::IndexScan {
            rel, rowid, index, ..
        } => {
            let want = index_scan_reads(exprs, pred, rel, *rowid, *index, &[], &[]);
            Box::new(table::IndexScan::new(want))
        }
        Node::BitmapHeapScan {
            rel,
            rowid,
            bitmap,
            recheck,
        } => {
            // The recheck reads its columns of each row too.
            let width = rel.columns.len() + usize::from(*rowid);
            let want = table::columns_read(exprs.into_iter().chain(pred).chain(recheck), width)
                .filter(|want| want.iter().any(|w| !w));
            Box::new(bitmap::BitmapHeapScan::new(build(bitmap, env), want))
        }
        Node::IndexRange { rel, rowid, path } => {
            // An index range's own conditions are checked on the rows too.
            let want = index_scan_reads(
                exprs,
                pred,
                rel,
                *rowid,
                path.index,
                &path.conds,
                &path.later,
            );
            Box::new(index_range::IndexRange::new(want))
        }
        _ => return build(plan, env),
    };
    let op = counted(op, scan, env);
    match pred {
        Some(_) => counted(Box::new(project::Filter::new(op)), plan, env),
        None => op,
    }
}

/// The columns an index scan decodes for `build_reading` (None: all): what is read above, the
/// filter's and the scan's own conditions, and the index's columns (the stale-entry check
/// compares them).
fn index_scan_reads<'e>(
    exprs: impl IntoIterator<Item = &'e Expr>,
    pred: Option<&'e Expr>,
    rel: &crate::sql::engine::Rel,
    rowid: bool,
    index: usize,
    conds: &'e [Expr],
    later: &'e [Expr],
) -> Option<Vec<bool>> {
    let width = rel.columns.len() + usize::from(rowid);
    table::columns_read(
        exprs.into_iter().chain(pred).chain(conds).chain(later),
        width,
    )
    .map(|mut want| {
        for &c in &rel.indexes[index].columns {
            if let Some(w) = want.get_mut(c) {
                *w = true;
            }
        }
        want
    })
    .filter(|want| want.iter().any(|w| !w))
}

/// Whether a Filter over a sequential scan runs fused into it (`table::FilteredSeqScan`): not
/// under EXPLAIN ANALYZE, which counts the two nodes apart.
fn fuses_filter(pred: &Expr, env: &Env) -> bool {
    env.instr.is_none() && table::filter_in_scan(pred)
}

/// Under EXPLAIN ANALYZE, the measurements of `plan`'s node, for an operator that reports
/// more than rows and time (memory, a hash build).
fn node_stat(plan: &Plan, env: &Env) -> Option<explain::NodeInstr> {
    env.instr.as_ref().map(|i| explain::NodeInstr {
        stat: i.stat(plan),
        timing: i.timing(),
    })
}

fn build_op(plan: &Plan, env: &Env) -> Box<dyn Operator> {
    match &plan.node {
        Node::Result => Box::new(scan::Once::default()),
        Node::SeqScan { .. } => Box::new(table::SeqScan::default()),
        Node::IndexScan { .. } => Box::new(table::IndexScan::default()),
        Node::IndexRange { .. } => Box::new(index_range::IndexRange::default()),
        Node::TidScan { .. } => Box::new(tid_scan::TidScan::default()),
        Node::BitmapHeapScan { bitmap, .. } => {
            Box::new(bitmap::BitmapHeapScan::new(build(bitmap, env), None))
        }
        Node::BitmapIndexScan { .. } => Box::new(bitmap::BitmapIndexScan::default()),
        Node::Modify(m) => Box::new(table::ModifyOp::new(build(&m.input, env))),
        Node::ModifyingCtes { ctes, input } => {
            Box::new(modify_cte::ModifyingCtes::new(ctes, input, env))
        }
        Node::Rules(_) => Box::new(rules::Rules::default()),
        Node::Values(_) => Box::new(scan::Values::default()),
        Node::Feed(_) => Box::new(scan::Feed::default()),
        Node::Function { .. } => Box::new(srf::Function::default()),
        Node::Virtual(_) => Box::new(scan::Virtual::default()),
        Node::Transition(_) => Box::new(scan::Transition::default()),
        Node::ProjectSet { input, .. } => Box::new(srf::ProjectSet::new(build(input, env))),
        Node::Cte(_, cte) => cte::open_reader(cte, env),
        Node::RecursiveUnion { init, .. } => {
            Box::new(cte::RecursiveUnion::new(build(init, env), env))
        }
        Node::WorkTable(w) => Box::new(cte::WorkTableScan::new(env.work_table(w))),
        Node::Project { input, exprs } => Box::new(project::Project::new(
            match input.node {
                // SELECT without FROM: the one empty row needs no operator of its own.
                Node::Result => None,
                _ => Some(build_reading(input, exprs, env)),
            },
            exprs,
        )),
        Node::Filter { input, pred }
            if matches!(input.node, Node::SeqScan { .. }) && fuses_filter(pred, env) =>
        {
            Box::new(table::FilteredSeqScan::default())
        }
        Node::Filter { input, .. } => Box::new(project::Filter::new(build(input, env))),
        Node::LockRows { input, .. } => Box::new(lock_rows::LockRows::new(build(input, env))),
        Node::Join {
            left,
            right,
            lateral,
            ..
        } => Box::new(join::Join::new(
            build(left, env),
            // A lateral right side is opened anew for each left row.
            (!lateral).then(|| build(right, env)),
            env,
        )),
        Node::HashJoin(j) => Box::new(hash_join::HashJoin::new(
            build(&j.left, env),
            build(&j.right, env),
            node_stat(plan, env),
        )),
        Node::Explain(_) => Box::new(explain::ExplainOp::default()),
        Node::Aggregate {
            input, group, aggs, ..
        } => {
            // What the aggregate reads of its input rows: keys, arguments, filters, orders.
            let reads = group.iter().chain(aggs.iter().flat_map(|a| {
                a.args
                    .iter()
                    .chain(&a.filter)
                    .chain(a.order.iter().map(|k| &k.expr))
            }));
            Box::new(aggregate::Aggregate::new(build_reading(input, reads, env)))
        }
        Node::Window { input, .. } => Box::new(window::Window::new(build(input, env))),
        Node::Sort { input, .. } => {
            Box::new(sort::Sort::new(build(input, env), node_stat(plan, env)))
        }
        Node::Distinct { input, .. } => Box::new(distinct::Distinct::new(build(input, env))),
        Node::Limit { input, .. } => Box::new(limit::Limit::new(build(input, env))),
        Node::SetOp { left, right, .. } => {
            Box::new(setop::SetOp::new(build(left, env), build(right, env)))
        }
    }
}

/// Rows an operator computed and now hands out, one per tick.
fn emit(rows: &mut std::vec::IntoIter<Row>, b: &mut Budget) -> Step {
    if rows.as_slice().is_empty() {
        return Step::Done;
    }
    if b.tick() {
        return Step::Yield;
    }
    Step::Row(rows.next().expect("not empty"))
}

/// An open run of a plan. `P` is how the executor holds the plan: `&Plan` for a run within one
/// call, or an owning pointer for an executor kept open between calls (a portal).
pub struct Executor<P> {
    plan: P,
    root: Root,
    budget: Budget,
    finished: bool,
}

/// The root operator. Plans of one node (`SELECT 1`, `VALUES ...`), the statements of a
/// benchmark's inner loop, keep theirs inline: no allocation and no dynamic call for it.
enum Root {
    Project(project::Project),
    Values(scan::Values),
    Tree(Box<dyn Operator>),
}

impl Root {
    fn open(plan: &Plan) -> Root {
        match &plan.node {
            Node::Project { input, .. } if matches!(input.node, Node::Result) => {
                Root::Project(project::Project::new(None, &[]))
            }
            Node::Values(_) => Root::Values(scan::Values::default()),
            _ => Root::Tree(cte::open_tree(plan, &Env::default())),
        }
    }

    #[inline]
    fn next(&mut self, plan: &Plan, cx: &mut EvalCx, b: &mut Budget) -> PgResult<Step> {
        match self {
            Root::Project(op) => op.next(plan, cx, b),
            Root::Values(op) => op.next(plan, cx, b),
            Root::Tree(op) => op.next(plan, cx, b),
        }
    }

    fn affected(&self) -> Option<u64> {
        match self {
            Root::Tree(op) => op.affected(),
            _ => None,
        }
    }
}

/// Opens `plan` for pulling (see [`Executor::open`]).
pub fn open<P: Deref<Target = Plan>>(plan: P) -> Executor<P> {
    Executor::open(plan)
}

impl<P: Deref<Target = Plan>> Executor<P> {
    /// Builds the operator tree of `plan`, with the default budget. Nothing runs until the first
    /// call of [`next`](Self::next).
    pub fn open(plan: P) -> Self {
        Self::with_budget(plan, Budget::default())
    }

    pub fn with_budget(plan: P, budget: Budget) -> Self {
        let root = Root::open(&plan);
        Executor {
            plan,
            root,
            budget,
            finished: false,
        }
    }

    /// The plan this executor runs.
    pub fn plan(&self) -> &P {
        &self.plan
    }

    pub fn columns(&self) -> &[Column] {
        &self.plan.columns
    }

    /// For INSERT / UPDATE / DELETE: the rows written so far (the command tag's count).
    pub fn affected(&self) -> Option<u64> {
        self.root.affected()
    }

    /// The next row, `Done`, or `Yield` when this run's budget is spent (interrupts were checked;
    /// call again to continue). After `Done` or an error every call returns `Done`.
    pub fn next(&mut self, cx: &mut EvalCx) -> PgResult<Step> {
        if self.finished {
            return Ok(Step::Done);
        }
        if cx.session.interrupt_pending() {
            if let Err(e) = cx.session.check_interrupts() {
                self.finished = true;
                return Err(e);
            }
        }
        // Each arm rebuilds its result: passing the whole `PgResult` on copies an error's worth
        // of bytes for every row.
        match self.root.next(&self.plan, cx, &mut self.budget) {
            Ok(Step::Row(r)) => Ok(Step::Row(r)),
            Ok(Step::Yield) => {
                self.budget.reset();
                if let Err(e) = cx.session.check_interrupts() {
                    self.finished = true;
                    return Err(e);
                }
                Ok(Step::Yield)
            }
            Ok(Step::Done) => {
                self.finished = true;
                Ok(Step::Done)
            }
            Ok(Step::Wait(c)) => Ok(Step::Wait(c)),
            Err(e) => {
                self.finished = true;
                Err(e)
            }
        }
    }

    /// The next row, running through yields (for callers that cannot stop: expression
    /// subqueries, the materializing wrappers).
    pub fn next_row(&mut self, cx: &mut EvalCx) -> PgResult<Option<Row>> {
        loop {
            match self.next(cx)? {
                Step::Row(r) => return Ok(Some(r)),
                Step::Done => return Ok(None),
                Step::Yield => {}
                Step::Wait(c) => {
                    if let Err(e) = cx.session.wait_for(&c) {
                        self.finished = true;
                        return Err(e);
                    }
                }
            }
        }
    }
}

/// Runs a plan to its end and returns the rows it produced before any error, and the error: the
/// rows PostgreSQL's pipelined executor would have sent before the ErrorResponse (a LIMIT
/// reached before the failing row means no error at all).
pub fn run_plan_streaming(plan: &Plan, cx: &mut EvalCx) -> (Vec<Row>, Option<PgError>) {
    let (rows, err, _) = run_plan_counted(plan, cx);
    (rows, err)
}

/// [`run_plan_streaming`], with the count of rows a data-changing statement wrote.
pub fn run_plan_counted(plan: &Plan, cx: &mut EvalCx) -> (Vec<Row>, Option<PgError>, Option<u64>) {
    let mut exec = Executor::open(plan);
    let mut rows = Vec::new();
    let mut held = Held::default();
    loop {
        match exec.next(cx) {
            Ok(Step::Row(r)) => {
                // Past the bound the rows are dropped: they are what the bound is about.
                if let Err(e) = held.add(row_bytes(&r), MAX_RESULT_BYTES, "query result") {
                    return (Vec::new(), Some(e), exec.affected());
                }
                rows.push(r);
            }
            Ok(Step::Yield) => {}
            Ok(Step::Wait(c)) => {
                // Until the session suspends a statement at a wait, the wait happens here.
                if let Err(e) = cx.session.wait_for(&c) {
                    return (rows, Some(e), exec.affected());
                }
            }
            Ok(Step::Done) => return (rows, None, exec.affected()),
            Err(e) => return (rows, Some(e), exec.affected()),
        }
    }
}

/// Runs a plan to its end: all of its rows, or its error.
pub fn run_plan(plan: &Plan, cx: &mut EvalCx) -> PgResult<Vec<Row>> {
    let mut exec = Executor::open(plan);
    let mut rows = Vec::new();
    let mut held = Held::default();
    while let Some(r) = exec.next_row(cx)? {
        held.add(row_bytes(&r), MAX_RESULT_BYTES, "query result")?;
        rows.push(r);
    }
    Ok(rows)
}

/// Text of a value for COPY and the like.
pub fn text_value(v: &Value, ty: Type, cx: &EvalCx) -> Option<String> {
    if v.is_null() {
        None
    } else {
        Some(io::to_text(v, ty, cx.session.fmt()))
    }
}
