//! Common table expressions and WITH RECURSIVE.
//!
//! A CTE read once in a tree runs in place, as if it were a subquery (PostgreSQL inlines such
//! CTEs). A CTE read more than once runs once, lazily: its rows go into a store that all of its
//! readers share, each reader with its own position, and whichever reader gets past the end
//! pulls the CTE's plan for one more row (PostgreSQL's CTE scan over a shared tuplestore). The
//! stores of a tree are made when the tree is opened ([`open_tree`]): by the executor for the
//! whole plan, and again for each subtree that is opened anew during the run (a lateral join's
//! right side per left row, a recursive CTE's recursive term per iteration), so that a CTE
//! defined inside such a subtree, which may refer to the current outer row, is run again with
//! it, while one defined outside is shared.
//!
//! A recursive CTE (`RecursiveUnion`) returns the rows of its non-recursive term, then runs its
//! recursive term over the rows the previous run produced (its work table), again and again,
//! until a run produces no row; each run starts only when the reader pulls past the rows
//! before it. The work table's rows live in the executor (in the [`Env`] the recursive term is
//! opened with), not in the plan, so that two runs of one plan never meet.

use std::collections::HashSet;
use std::sync::{Arc, Weak};

use parking_lot::Mutex;

use crate::error::{PgError, PgResult};
use crate::sql::exec::EvalCx;
use crate::sql::plan::{Node, Plan, WorkTable};

use super::bounds::{row_bytes, Held};
use super::keys::Key;
use super::{build, Budget, Operator, Row, Step};

/// What the operators of a tree share, handed down while it is built.
#[derive(Clone, Default)]
pub(super) struct Env {
    /// The work table of each recursive term being run, by [`WorkTable::id`].
    work: Vec<(usize, Arc<Vec<Row>>)>,
    /// The stores of CTEs read more than once, by the address of the CTE's plan. Weak: the
    /// readers own their store (an operator that keeps an `Env` to open subtrees later may sit
    /// inside a store's own plan).
    shared: Vec<(usize, Weak<Mutex<Store>>)>,
    /// EXPLAIN ANALYZE: where every operator built with this environment counts its rows.
    pub(super) instr: Option<Arc<super::explain::Instr>>,
}

impl Env {
    pub fn work_table(&self, w: &WorkTable) -> Option<Arc<Vec<Row>>> {
        let id = w.id();
        self.work
            .iter()
            .find(|(i, _)| *i == id)
            .map(|(_, r)| r.clone())
    }

    fn store(&self, id: usize) -> Option<Arc<Mutex<Store>>> {
        self.shared
            .iter()
            .find(|(i, _)| *i == id)
            .and_then(|(_, s)| s.upgrade())
    }
}

fn cte_id(cte: &Arc<Plan>) -> usize {
    Arc::as_ptr(cte) as usize
}

/// Builds the operator tree of `plan`, first making a store for each CTE that the tree reads
/// more than once and `env` does not already share.
pub(super) fn open_tree(plan: &Plan, env: &Env) -> Box<dyn Operator> {
    let mut counts: Vec<(usize, u32, &Arc<Plan>)> = Vec::new();
    count_reads(plan, &mut counts);
    if !counts
        .iter()
        .any(|&(id, n, _)| n > 1 && env.store(id).is_none())
    {
        return build(plan, env);
    }
    let mut env = env.clone();
    // Held until the tree is built: from then on its readers own the stores.
    let mut made = Vec::new();
    for &(id, n, cte) in &counts {
        if n > 1 && env.store(id).is_none() {
            let store = Arc::new(Mutex::new(Store::default()));
            env.shared.push((id, Arc::downgrade(&store)));
            made.push((store, cte));
        }
    }
    for (store, cte) in &made {
        // A store's plan may read earlier CTEs' stores, never its own.
        let producer = build(cte, &env);
        store.lock().producer = Some(producer);
    }
    build(plan, &env)
}

/// Counts the reads of each CTE in the part of `plan` that is built with it: not lateral right
/// sides or recursive terms (opened, and counted, anew during the run), and a CTE's own plan
/// only once, as its store runs it once.
fn count_reads<'p>(plan: &'p Plan, counts: &mut Vec<(usize, u32, &'p Arc<Plan>)>) {
    match &plan.node {
        Node::Cte(_, cte) => {
            // A data-modifying WITH query has a store of its own (see `modify_cte`).
            if matches!(cte.node, Node::WorkTable(_) | Node::Modify(_)) {
                return;
            }
            let id = cte_id(cte);
            match counts.iter_mut().find(|c| c.0 == id) {
                Some(c) => c.1 += 1,
                None => {
                    counts.push((id, 1, cte));
                    count_reads(cte, counts);
                }
            }
        }
        Node::Result
        | Node::SeqScan { .. }
        | Node::IndexScan { .. }
        | Node::IndexRange { .. }
        | Node::TidScan { .. }
        | Node::BitmapHeapScan { .. }
        | Node::BitmapIndexScan { .. }
        | Node::Values(_)
        | Node::Feed(_)
        | Node::Function { .. }
        | Node::Virtual(_)
        | Node::Transition(_)
        | Node::WorkTable(_) => {}
        Node::Join {
            left,
            right,
            lateral,
            ..
        } => {
            count_reads(left, counts);
            if !lateral {
                count_reads(right, counts);
            }
        }
        Node::SetOp { left, right, .. } => {
            count_reads(left, counts);
            count_reads(right, counts);
        }
        Node::Explain(_) => {}
        Node::HashJoin(j) => {
            count_reads(&j.left, counts);
            count_reads(&j.right, counts);
        }
        Node::Modify(m) => count_reads(&m.input, counts),
        // Each step is a statement of its own, with its own CTEs.
        Node::Rules(_) => {}
        Node::ModifyingCtes { ctes, input } => {
            for c in ctes {
                count_reads(c, counts);
            }
            count_reads(input, counts);
        }
        Node::RecursiveUnion { init, .. } => count_reads(init, counts),
        Node::ProjectSet { input, .. }
        | Node::Project { input, .. }
        | Node::Filter { input, .. }
        | Node::LockRows { input, .. }
        | Node::Aggregate { input, .. }
        | Node::Window { input, .. }
        | Node::Sort { input, .. }
        | Node::Distinct { input, .. }
        | Node::Limit { input, .. } => count_reads(input, counts),
    }
}

/// The operator for a `Cte` node.
pub(super) fn open_reader(cte: &Arc<Plan>, env: &Env) -> Box<dyn Operator> {
    match &cte.node {
        Node::WorkTable(w) => return Box::new(WorkTableScan::new(env.work_table(w))),
        Node::Modify(_) => return Box::<super::modify_cte::Reader>::default(),
        _ => {}
    }
    match env.store(cte_id(cte)) {
        Some(store) => Box::new(SharedReader { store, pos: 0 }),
        None => Box::new(Inline(build(cte, env))),
    }
}

/// A CTE read once: its plan runs in place.
struct Inline(Box<dyn Operator>);

impl Operator for Inline {
    fn next(&mut self, plan: &Plan, cx: &mut EvalCx, b: &mut Budget) -> PgResult<Step> {
        let Node::Cte(_, cte) = &plan.node else {
            unreachable!("CTE reader opened from another node")
        };
        self.0.next(cte, cx, b)
    }
}

/// The rows of a CTE read more than once (or of a data-modifying WITH query, `modify_cte`),
/// and the operator producing them (None once done).
#[derive(Default)]
pub(super) struct Store {
    pub(super) producer: Option<Box<dyn Operator>>,
    rows: Vec<Row>,
    held: Held,
}

impl Store {
    pub(super) fn new(producer: Box<dyn Operator>) -> Store {
        Store {
            producer: Some(producer),
            ..Store::default()
        }
    }

    /// The row at a reader's position `pos`: one stored already, or the producer's next (run
    /// by whichever reader is ahead, and kept for the others). The caller holds the store's
    /// lock, so no other reader runs the producer meanwhile.
    pub(super) fn read(
        &mut self,
        pos: &mut usize,
        cte: &Plan,
        cx: &mut EvalCx,
        b: &mut Budget,
    ) -> PgResult<Step> {
        if let Some(r) = self.rows.get(*pos) {
            if b.tick() {
                return Ok(Step::Yield);
            }
            *pos += 1;
            return Ok(Step::Row(r.clone()));
        }
        let Some(producer) = &mut self.producer else {
            return Ok(Step::Done);
        };
        match producer.next(cte, cx, b)? {
            Step::Row(r) => {
                self.held.add(row_bytes(&r), b.work_mem, "CTE Scan")?;
                self.rows.push(r.clone());
                *pos += 1;
                Ok(Step::Row(r))
            }
            Step::Done => {
                self.producer = None;
                Ok(Step::Done)
            }
            other => Ok(other),
        }
    }
}

struct SharedReader {
    store: Arc<Mutex<Store>>,
    pos: usize,
}

impl Operator for SharedReader {
    fn next(&mut self, plan: &Plan, cx: &mut EvalCx, b: &mut Budget) -> PgResult<Step> {
        let Node::Cte(_, cte) = &plan.node else {
            unreachable!("CTE reader opened from another node")
        };
        // Locked while the producer runs: no other reader of this store can run meanwhile (the
        // tree is pulled by one thread, and a CTE's plan cannot read the CTE itself).
        self.store.lock().read(&mut self.pos, cte, cx, b)
    }
}

/// A recursive term's view of its CTE: the rows of the previous run.
pub(super) struct WorkTableScan {
    rows: Option<Arc<Vec<Row>>>,
    pos: usize,
}

impl WorkTableScan {
    pub fn new(rows: Option<Arc<Vec<Row>>>) -> Self {
        WorkTableScan { rows, pos: 0 }
    }
}

impl Operator for WorkTableScan {
    fn next(&mut self, _: &Plan, _: &mut EvalCx, b: &mut Budget) -> PgResult<Step> {
        let Some(rows) = &self.rows else {
            // The planner only lets the recursive term itself read its CTE.
            return Err(PgError::internal(
                "recursive CTE reference outside its recursive term",
            ));
        };
        let Some(r) = rows.get(self.pos) else {
            return Ok(Step::Done);
        };
        if b.tick() {
            return Ok(Step::Yield);
        }
        self.pos += 1;
        Ok(Step::Row(r.clone()))
    }
}

pub(super) struct RecursiveUnion {
    /// The non-recursive term, until it is done.
    init: Option<Box<dyn Operator>>,
    /// The current run of the recursive term.
    step: Option<Box<dyn Operator>>,
    /// What the recursive term is opened with (plus its work table).
    env: Env,
    /// The rows of the current run: the next run's work table.
    next_work: Vec<Row>,
    next_bytes: usize,
    /// Bytes of the work table the current run reads.
    work_bytes: usize,
    /// Without ALL: every row returned so far.
    seen: HashSet<Key>,
    held: Held,
}

impl RecursiveUnion {
    pub fn new(init: Box<dyn Operator>, env: &Env) -> Self {
        RecursiveUnion {
            init: Some(init),
            step: None,
            env: env.clone(),
            next_work: Vec::new(),
            next_bytes: 0,
            work_bytes: 0,
            seen: HashSet::new(),
            held: Held::default(),
        }
    }
}

impl Operator for RecursiveUnion {
    fn next(&mut self, plan: &Plan, cx: &mut EvalCx, b: &mut Budget) -> PgResult<Step> {
        opened_from!(plan, RecursiveUnion, init, step, all, work);
        loop {
            let pulled = if let Some(op) = &mut self.init {
                op.next(init, cx, b)?
            } else if let Some(op) = &mut self.step {
                op.next(step, cx, b)?
            } else {
                return Ok(Step::Done);
            };
            match pulled {
                Step::Row(r) => {
                    let bytes = row_bytes(&r);
                    if !all {
                        let key = Key(r.clone());
                        if self.seen.contains(&key) {
                            continue;
                        }
                        self.held.add(bytes, b.work_mem, "Recursive Union")?;
                        self.seen.insert(key);
                    }
                    self.held.add(bytes, b.work_mem, "Recursive Union")?;
                    self.next_bytes += bytes;
                    self.next_work.push(r.clone());
                    return Ok(Step::Row(r));
                }
                Step::Done => {
                    // This run is over: its rows are the next run's work table.
                    self.init = None;
                    self.step = None;
                    self.held.sub(self.work_bytes);
                    self.work_bytes = std::mem::take(&mut self.next_bytes);
                    let rows = std::mem::take(&mut self.next_work);
                    if rows.is_empty() {
                        return Ok(Step::Done);
                    }
                    let mut env = self.env.clone();
                    env.work.push((work.id(), Arc::new(rows)));
                    self.step = Some(open_tree(step, &env));
                }
                other => return Ok(other),
            }
        }
    }
}
