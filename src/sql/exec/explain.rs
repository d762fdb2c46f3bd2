//! EXPLAIN and EXPLAIN ANALYZE (plan/explain.rs renders the lines).
//!
//! With ANALYZE the statement runs first, to its end, through an operator tree in which every
//! operator is wrapped in [`Counted`]: rows returned, loops (how many times an operator was
//! started: a lateral join's inner side is opened anew per outer row), and, unless TIMING is
//! off, the time spent inside the operator (its inputs included, as PostgreSQL's
//! instrumentation counts it) until its first row and in all. The counts are kept by plan
//! node (its address: the plan does not move while the executor runs it), so the renderer can
//! ask for them node by node. The rows the statement returns are dropped; the run yields and
//! waits like any other (a data-changing statement waits for row locks).
//!
//! Time is taken with two clock reads per call of an operator, only under ANALYZE with
//! TIMING on. A call that returns `Yield` stops the clock (the shard runs other sessions
//! until the next call; that is not this statement's time), one that returns `Wait` does not
//! (the node is blocked on a row lock, which PostgreSQL's clock counts too). A loop's
//! first-row time is its time up to the call that returned its first row or `Done`
//! (PostgreSQL's first call of a loop: our `Yield`s split that call).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

use parking_lot::Mutex;

use crate::error::PgResult;
use crate::sql::exec::EvalCx;
use crate::sql::plan::explain::{self, NodeStat};
use crate::sql::plan::{Node, Plan};
use crate::sql::types::Value;

use super::cte::{open_tree, Env};
use super::{Budget, Operator, Row, Step};

/// What an operator that reports more than rows and time gets under ANALYZE: its node's
/// [`Stat`] and whether to read the clock.
pub(super) struct NodeInstr {
    pub(super) stat: Arc<Stat>,
    pub(super) timing: bool,
}

/// One plan node's sums over its loops (times in nanoseconds).
#[derive(Default)]
pub(super) struct Stat {
    rows: AtomicU64,
    loops: AtomicU64,
    startup_ns: AtomicU64,
    total_ns: AtomicU64,
    /// What a Sort or hash join reports of itself: the most bytes it held, its hash table's
    /// buckets, and the time its hash build took.
    mem_bytes: AtomicU64,
    buckets: AtomicU64,
    build_ns: AtomicU64,
}

impl Stat {
    /// The operator holds `bytes` now (the largest figure is kept, PostgreSQL's peak).
    pub(super) fn note_memory(&self, bytes: usize) {
        self.mem_bytes.fetch_max(bytes as u64, Ordering::Relaxed);
    }

    pub(super) fn note_buckets(&self, n: usize) {
        self.buckets.fetch_max(n as u64, Ordering::Relaxed);
    }

    pub(super) fn add_build(&self, d: std::time::Duration) {
        self.build_ns.fetch_add(nanos(d), Ordering::Relaxed);
    }
}

/// The counts of one ANALYZE run, by plan node address (one entry per node of the plan, so
/// the map is bounded by the plan's size).
pub(super) struct Instr {
    map: Mutex<HashMap<usize, Arc<Stat>>>,
    /// Whether operators are timed (EXPLAIN's TIMING option).
    timing: bool,
}

impl Instr {
    fn new(timing: bool) -> Instr {
        Instr {
            map: Mutex::default(),
            timing,
        }
    }

    pub(super) fn stat(&self, plan: &Plan) -> Arc<Stat> {
        self.map
            .lock()
            .entry(plan as *const Plan as usize)
            .or_default()
            .clone()
    }

    pub(super) fn timing(&self) -> bool {
        self.timing
    }

    fn get(&self, plan: &Plan) -> Option<NodeStat> {
        self.map
            .lock()
            .get(&(plan as *const Plan as usize))
            .map(|s| NodeStat {
                rows: s.rows.load(Ordering::Relaxed),
                loops: s.loops.load(Ordering::Relaxed),
                startup_ns: s.startup_ns.load(Ordering::Relaxed),
                total_ns: s.total_ns.load(Ordering::Relaxed),
                mem_bytes: s.mem_bytes.load(Ordering::Relaxed),
                buckets: s.buckets.load(Ordering::Relaxed),
                build_ns: s.build_ns.load(Ordering::Relaxed),
            })
    }
}

/// An operator with its rows and loops counted and, when timing, its time measured. One
/// `Counted` is one loop: an operator opened again gets a new one over the same [`Stat`].
pub(super) struct Counted {
    op: Box<dyn Operator>,
    stat: Arc<Stat>,
    started: bool,
    timing: bool,
    /// This loop's time so far, until its first row is counted into `startup_ns`.
    first_ns: Option<u64>,
    /// When the last call returned `Wait`: the wait until the next call is the node's time.
    waiting_since: Option<Instant>,
}

impl Counted {
    pub(super) fn new(op: Box<dyn Operator>, stat: Arc<Stat>, timing: bool) -> Counted {
        Counted {
            op,
            stat,
            started: false,
            timing,
            first_ns: Some(0),
            waiting_since: None,
        }
    }

    fn add_time(&mut self, ns: u64, step: &Step) {
        self.stat.total_ns.fetch_add(ns, Ordering::Relaxed);
        if let Some(f) = self.first_ns.as_mut() {
            *f += ns;
            if matches!(step, Step::Row(_) | Step::Done) {
                self.stat.startup_ns.fetch_add(*f, Ordering::Relaxed);
                self.first_ns = None;
            }
        }
    }
}

fn nanos(d: std::time::Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}

impl Operator for Counted {
    fn next(&mut self, plan: &Plan, cx: &mut EvalCx, b: &mut Budget) -> PgResult<Step> {
        if !self.started {
            self.started = true;
            self.stat.loops.fetch_add(1, Ordering::Relaxed);
        }
        let step = if self.timing {
            let t0 = Instant::now();
            let waited = self.waiting_since.take().map_or(0, |w| nanos(t0 - w));
            let step = self.op.next(plan, cx, b)?;
            let t1 = Instant::now();
            self.add_time(waited + nanos(t1 - t0), &step);
            if let Step::Wait(_) = step {
                self.waiting_since = Some(t1);
            }
            step
        } else {
            self.op.next(plan, cx, b)?
        };
        if let Step::Row(_) = step {
            self.stat.rows.fetch_add(1, Ordering::Relaxed);
        }
        Ok(step)
    }

    fn affected(&self) -> Option<u64> {
        self.op.affected()
    }
}

thread_local! {
    /// The counts of the EXPLAIN ANALYZE whose statement is running on this thread (set only
    /// inside its operator's call, so a session interleaved on the shard at a yield never sees
    /// another's): the subqueries its expressions open count into them, as PostgreSQL's
    /// SubPlans are instrumented (loops: one per evaluation).
    static RUNNING: std::cell::RefCell<Option<Arc<Instr>>> = const { std::cell::RefCell::new(None) };
}

/// Sets [`RUNNING`] for the life of the guard; the previous value (an EXPLAIN ANALYZE run
/// from inside another's statement, by a function) comes back after.
struct Running(Option<Arc<Instr>>);

impl Running {
    fn set(instr: Arc<Instr>) -> Running {
        Running(RUNNING.with(|r| r.replace(Some(instr))))
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let prev = self.0.take();
        RUNNING.with(|r| *r.borrow_mut() = prev);
    }
}

/// An executor for an expression subquery, its operators counted when an EXPLAIN ANALYZE's
/// statement is running here (None otherwise: the caller opens a plain one).
pub(super) fn open_counted(plan: &Plan) -> Option<super::Executor<&Plan>> {
    let instr = RUNNING.with(|r| r.borrow().clone())?;
    let mut env = Env::default();
    env.instr = Some(instr);
    Some(super::Executor {
        plan,
        root: super::Root::Tree(open_tree(plan, &env)),
        budget: Budget::default(),
        finished: false,
    })
}

/// The EXPLAIN node's operator.
#[derive(Default)]
pub(super) struct ExplainOp {
    run: Option<(Box<dyn Operator>, Arc<Instr>, Instant)>,
    lines: Option<std::vec::IntoIter<Row>>,
}

impl Operator for ExplainOp {
    fn next(&mut self, plan: &Plan, cx: &mut EvalCx, b: &mut Budget) -> PgResult<Step> {
        let Node::Explain(e) = &plan.node else {
            unreachable!("Explain opened from another node")
        };
        if let Some(err) = &e.error {
            return Err(err.clone());
        }
        if self.lines.is_none() {
            let mut elapsed = None;
            if e.analyze {
                let (op, instr, started) = self.run.get_or_insert_with(|| {
                    let instr = Arc::new(Instr::new(e.timing));
                    let mut env = Env::default();
                    env.instr = Some(instr.clone());
                    (open_tree(&e.plan, &env), instr, Instant::now())
                });
                let _running = Running::set(instr.clone());
                loop {
                    match op.next(&e.plan, cx, b)? {
                        Step::Row(_) => {}
                        Step::Done => break,
                        other => return Ok(other),
                    }
                }
                elapsed = Some(started.elapsed());
            }
            let instr = self.run.as_ref().map(|(_, i, _)| i.clone());
            let get = |p: &Plan| instr.as_ref().and_then(|i| i.get(p));
            let stats: Option<explain::Stats> = instr.as_ref().map(|_| &get as explain::Stats);
            let mut lines = explain::render(e, cx.session.fmt(), stats);
            if e.summary {
                lines.push(format!(
                    "Planning Time: {:.3} ms",
                    e.planning.as_secs_f64() * 1000.0
                ));
                if let Some(t) = elapsed {
                    lines.push(format!(
                        "Execution Time: {:.3} ms",
                        t.as_secs_f64() * 1000.0
                    ));
                }
            }
            self.run = None;
            self.lines = Some(
                lines
                    .into_iter()
                    .map(|l| vec![Value::Text(l)])
                    .collect::<Vec<_>>()
                    .into_iter(),
            );
        }
        Ok(super::emit(self.lines.as_mut().expect("set above"), b))
    }
}
