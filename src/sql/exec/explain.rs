//! EXPLAIN and EXPLAIN ANALYZE (plan/explain.rs renders the lines).
//!
//! With ANALYZE the statement runs first, to its end, through an operator tree in which every
//! operator is wrapped in [`Counted`]: rows returned, and loops (how many times an operator
//! was started: a lateral join's inner side is opened anew per outer row). The counts are kept
//! by plan node (its address: the plan does not move while the executor runs it), so the
//! renderer can ask for them node by node. The rows the statement returns are dropped; the
//! run yields and waits like any other (a data-changing statement waits for row locks).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

use parking_lot::Mutex;

use crate::error::PgResult;
use crate::sql::exec::EvalCx;
use crate::sql::plan::explain;
use crate::sql::plan::{Node, Plan};
use crate::sql::types::Value;

use super::cte::{open_tree, Env};
use super::{Budget, Operator, Row, Step};

#[derive(Default)]
pub(super) struct Stat {
    rows: AtomicU64,
    loops: AtomicU64,
}

/// The counts of one ANALYZE run, by plan node address (one entry per node of the plan).
#[derive(Default)]
pub(super) struct Instr {
    map: Mutex<HashMap<usize, Arc<Stat>>>,
}

impl Instr {
    pub(super) fn stat(&self, plan: &Plan) -> Arc<Stat> {
        self.map
            .lock()
            .entry(plan as *const Plan as usize)
            .or_default()
            .clone()
    }

    fn get(&self, plan: &Plan) -> Option<(u64, u64)> {
        self.map
            .lock()
            .get(&(plan as *const Plan as usize))
            .map(|s| {
                (
                    s.rows.load(Ordering::Relaxed),
                    s.loops.load(Ordering::Relaxed),
                )
            })
    }
}

/// An operator with its rows and loops counted.
pub(super) struct Counted {
    op: Box<dyn Operator>,
    stat: Arc<Stat>,
    started: bool,
}

impl Counted {
    pub(super) fn new(op: Box<dyn Operator>, stat: Arc<Stat>) -> Counted {
        Counted {
            op,
            stat,
            started: false,
        }
    }
}

impl Operator for Counted {
    fn next(&mut self, plan: &Plan, cx: &mut EvalCx, b: &mut Budget) -> PgResult<Step> {
        if !self.started {
            self.started = true;
            self.stat.loops.fetch_add(1, Ordering::Relaxed);
        }
        let step = self.op.next(plan, cx, b)?;
        if let Step::Row(_) = step {
            self.stat.rows.fetch_add(1, Ordering::Relaxed);
        }
        Ok(step)
    }

    fn affected(&self) -> Option<u64> {
        self.op.affected()
    }
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
                let (op, _, started) = self.run.get_or_insert_with(|| {
                    let instr = Arc::new(Instr::default());
                    let mut env = Env::default();
                    env.instr = Some(instr.clone());
                    (open_tree(&e.plan, &env), instr, Instant::now())
                });
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
                lines.push("Planning Time: 0.010 ms".into());
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
