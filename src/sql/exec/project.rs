//! Row-at-a-time operators: the select list (Project) and WHERE/HAVING (Filter).

use crate::error::PgResult;
use crate::sql::exec::EvalCx;
use crate::sql::plan::Expr;
use crate::sql::plan::Plan;
use crate::sql::types::Value;

use super::{Budget, Operator, Step};

pub(super) struct Project {
    /// None: the input is the one empty row of SELECT without FROM, produced here (saving an
    /// operator on the path of every `SELECT 1`).
    input: Option<Box<dyn Operator>>,
    done: bool,
}

impl Project {
    pub fn new(input: Option<Box<dyn Operator>>) -> Self {
        Project { input, done: false }
    }
}

impl Operator for Project {
    fn next(&mut self, plan: &Plan, cx: &mut EvalCx, b: &mut Budget) -> PgResult<Step> {
        opened_from!(plan, Project, input, exprs);
        let row = match &mut self.input {
            Some(op) => match op.next(input, cx, b)? {
                Step::Row(r) => r,
                other => return Ok(other),
            },
            None => {
                if self.done {
                    return Ok(Step::Done);
                }
                if b.tick() {
                    return Ok(Step::Yield);
                }
                self.done = true;
                Vec::new()
            }
        };
        let mut out = Vec::with_capacity(exprs.len());
        for e in exprs {
            out.push(match e {
                // Most projected expressions are plain columns: no call into eval's frame.
                Expr::Column(i) => row[*i].clone(),
                _ => e.eval(&row, cx)?,
            });
        }
        Ok(Step::Row(out))
    }
}

pub(super) struct Filter {
    input: Box<dyn Operator>,
}

impl Filter {
    pub fn new(input: Box<dyn Operator>) -> Self {
        Filter { input }
    }
}

impl Operator for Filter {
    fn next(&mut self, plan: &Plan, cx: &mut EvalCx, b: &mut Budget) -> PgResult<Step> {
        opened_from!(plan, Filter, input, pred);
        // A predicate that is constant false or NULL is PostgreSQL's One-Time Filter: the input
        // is never run, so volatile calls below it have no effects.
        if let Expr::Const(v) = pred {
            if *v != Value::Bool(true) {
                return Ok(Step::Done);
            }
        }
        // Rows that fail the predicate cost their producer's ticks, so this loop yields too.
        loop {
            match self.input.next(input, cx, b)? {
                Step::Row(r) => {
                    if pred.eval(&r, cx)? == Value::Bool(true) {
                        return Ok(Step::Row(r));
                    }
                }
                other => return Ok(other),
            }
        }
    }
}
