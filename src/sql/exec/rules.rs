//! The statements of an INSERT / UPDATE / DELETE rewritten by rules (`plan/rules.rs`), run
//! one after another, each to its end, as PostgreSQL runs the queries the rewriter made of one
//! statement: each starts a new command, so it sees what those before it wrote. The statement
//! reports the count (and the RETURNING rows) of the one step that names its command tag.

use std::sync::Arc;

use crate::error::PgResult;
use crate::sql::exec::EvalCx;
use crate::sql::plan::{Node, Plan};

use super::{Budget, Executor, Operator, Step};

#[derive(Default)]
pub(super) struct Rules {
    pos: usize,
    cur: Option<Executor<Arc<Plan>>>,
    /// Rows the tag step returned, and its count once done.
    rows: u64,
    affected: u64,
}

impl Operator for Rules {
    fn next(&mut self, plan: &Plan, cx: &mut EvalCx, _: &mut Budget) -> PgResult<Step> {
        let Node::Rules(r) = &plan.node else {
            unreachable!("Rules opened from another node")
        };
        loop {
            let Some(step) = r.steps.get(self.pos) else {
                return Ok(Step::Done);
            };
            let tag = r.tag_step == Some(self.pos);
            let exec = self.cur.get_or_insert_with(|| Executor::open(step.clone()));
            match exec.next(cx)? {
                Step::Row(row) => {
                    if tag {
                        self.rows += 1;
                        if !plan.columns.is_empty() {
                            return Ok(Step::Row(row));
                        }
                    }
                }
                Step::Done => {
                    if tag {
                        self.affected = exec.affected().unwrap_or(self.rows);
                    }
                    self.cur = None;
                    self.pos += 1;
                    if self.pos < r.steps.len() {
                        // What this step wrote is seen by the next.
                        cx.session.next_command();
                    }
                }
                other => return Ok(other),
            }
        }
    }

    fn affected(&self) -> Option<u64> {
        Some(self.affected)
    }
}
