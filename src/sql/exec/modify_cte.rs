//! Data-modifying WITH queries (`WITH d AS (DELETE ... RETURNING *) ...`): each runs exactly
//! once, to its end, as in PostgreSQL.
//!
//! The `ModifyingCtes` operator of the statement owns one store per such query: its writing
//! operator (a `ModifyOp`, the producer) and the RETURNING rows produced so far. Readers (`Cte`
//! nodes naming the query) pull the producer when they get past the rows already stored, so
//! the query runs as far as it is read, interleaved with the main query as PostgreSQL's CTE
//! scans do; once the main query is done, what is left of each runs to its end, the last one
//! first (PostgreSQL's ExecPostprocessPlan order: a later query may still read an earlier one's
//! rows). All of them write with the statement's command id and read with its snapshot, so
//! none sees another's changes, nor does the main query.
//!
//! Readers can sit where the operator tree cannot hand them the store when it is built: in an
//! expression's subquery, which opens an executor of its own (`(SELECT count(*) FROM d)`). So
//! the `ModifyingCtes` operator publishes its stores in a thread-local list for the duration of
//! each of its pulls, and a reader finds its store there by the query's plan. A pull never
//! leaves its thread (a statement is pulled synchronously; waits happen between pulls, or on
//! the same thread), and a guard takes the stores out again however the pull ends.
//!
//! Bounds: the RETURNING rows kept for readers count against `WORK_MEM` per query ("CTE
//! Scan", 54000 past it); rows produced after the main query is done are not kept.

use std::cell::RefCell;
use std::sync::Arc;

use parking_lot::Mutex;

use crate::error::{PgError, PgResult};
use crate::sql::exec::EvalCx;
use crate::sql::plan::{Node, Plan};

use super::cte::{Env, Store};
use super::{build, Budget, Operator, Step};

type Stores = Vec<(usize, Arc<Mutex<Store>>)>;

thread_local! {
    /// The stores of the `ModifyingCtes` operators being pulled on this thread, by the address
    /// of their query's plan (at most one operator per statement, but nested runs stack).
    static ACTIVE: RefCell<Stores> = const { RefCell::new(Vec::new()) };
}

/// Takes the stores published by [`publish`] out again when dropped.
struct Published(usize);

impl Drop for Published {
    fn drop(&mut self) {
        ACTIVE.with(|a| a.borrow_mut().truncate(self.0));
    }
}

fn publish(stores: &Stores) -> Published {
    ACTIVE.with(|a| {
        let mut a = a.borrow_mut();
        let n = a.len();
        a.extend(stores.iter().cloned());
        Published(n)
    })
}

fn plan_id(p: &Arc<Plan>) -> usize {
    Arc::as_ptr(p) as usize
}

/// Runs the main query with its data-modifying WITH queries.
pub(super) struct ModifyingCtes {
    stores: Stores,
    input: Box<dyn Operator>,
    input_done: bool,
    /// Once the main query is done: how many stores (from the first) are left to run to their
    /// end; the last of them runs next.
    left: usize,
}

impl ModifyingCtes {
    pub(super) fn new(ctes: &[Arc<Plan>], input: &Plan, env: &Env) -> ModifyingCtes {
        let stores = ctes
            .iter()
            .map(|c| {
                // One data-modifying WITH query's writer and the rows it returned so far.
                let store = Store::new(build(c, env));
                (plan_id(c), Arc::new(Mutex::new(store)))
            })
            .collect();
        ModifyingCtes {
            stores,
            input: build(input, env),
            input_done: false,
            left: ctes.len(),
        }
    }
}

impl Operator for ModifyingCtes {
    fn next(&mut self, plan: &Plan, cx: &mut EvalCx, b: &mut Budget) -> PgResult<Step> {
        opened_from!(plan, ModifyingCtes, ctes, input);
        let _published = publish(&self.stores);
        if !self.input_done {
            match self.input.next(input, cx, b)? {
                Step::Done => self.input_done = true,
                other => return Ok(other),
            }
        }
        while self.left > 0 {
            let k = self.left - 1;
            let mut store = self.stores[k].1.lock();
            let Some(producer) = store.producer.as_mut() else {
                self.left -= 1;
                continue;
            };
            match producer.next(&ctes[k], cx, b)? {
                // Nobody reads it any more: the main query and the later queries are done.
                Step::Row(_) => {}
                Step::Done => {
                    store.producer = None;
                    self.left -= 1;
                }
                other => return Ok(other),
            }
        }
        Ok(Step::Done)
    }

    fn affected(&self) -> Option<u64> {
        self.input.affected()
    }
}

/// A `Cte` node reading a data-modifying WITH query.
#[derive(Default)]
pub(super) struct Reader {
    store: Option<Arc<Mutex<Store>>>,
    pos: usize,
}

impl Operator for Reader {
    fn next(&mut self, plan: &Plan, cx: &mut EvalCx, b: &mut Budget) -> PgResult<Step> {
        let Node::Cte(_, cte) = &plan.node else {
            unreachable!("CTE reader opened from another node")
        };
        if self.store.is_none() {
            let id = plan_id(cte);
            let found = ACTIVE.with(|a| {
                a.borrow()
                    .iter()
                    .rev()
                    .find(|(i, _)| *i == id)
                    .map(|(_, s)| s.clone())
            });
            self.store = Some(found.ok_or_else(|| {
                PgError::internal("data-modifying WITH query read outside its statement")
            })?);
        }
        let store = self.store.as_ref().expect("set above");
        // Locked while the producer runs: a query never reads itself, and the tree is pulled
        // by one thread.
        store.lock().read(&mut self.pos, cte, cx, b)
    }
}
