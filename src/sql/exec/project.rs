//! Row-at-a-time operators: the select list (Project) and WHERE/HAVING (Filter).

use crate::error::PgResult;
use crate::sql::exec::EvalCx;
use crate::sql::func::session_fn::AdvisoryOp;
use crate::sql::func::system;
use crate::sql::func::SessionFn;
use crate::sql::plan::Expr;
use crate::sql::plan::Plan;
use crate::sql::types::Value;
use crate::txn::advisory::AdvisoryAcquired;

use super::{Budget, Operator, Step};

pub(super) struct Project {
    /// None: the input is the one empty row of SELECT without FROM, produced here (saving an
    /// operator on the path of every `SELECT 1`).
    input: Option<Box<dyn Operator>>,
    done: bool,
    /// A row stopped at an advisory lock wait: the input row and the values made before it.
    waiting: Option<(Vec<Value>, Vec<Value>)>,
    /// Per select-list item: a column that no other item reads, whose value is moved out of
    /// the input row instead of cloned (a cloned text value is an allocation and a copy).
    movable: Vec<bool>,
}

impl Project {
    pub fn new(input: Option<Box<dyn Operator>>, exprs: &[Expr]) -> Self {
        let mut reads: Vec<u32> = Vec::new();
        // A subquery reads the input row from inside (a correlated column): nothing moves.
        let mut subquery = false;
        for e in exprs {
            e.any(&mut |x| {
                match x {
                    Expr::Column(c) => {
                        if reads.len() <= *c {
                            reads.resize(c + 1, 0);
                        }
                        reads[*c] += 1;
                    }
                    Expr::Subquery(..) => subquery = true,
                    _ => {}
                }
                false
            });
        }
        let movable = exprs
            .iter()
            .map(|e| !subquery && matches!(e, Expr::Column(c) if reads[*c] == 1))
            .collect();
        Project {
            input,
            done: false,
            waiting: None,
            movable,
        }
    }
}

/// A select-list item that is a call of pg_advisory_lock or one of its waiting kin: the
/// statement stops at its wait (the session awaits the holder, its shard serving others) and
/// the call is made again, with the values before it kept. Elsewhere the call waits in place.
fn advisory_wait(e: &Expr, row: &[Value], cx: &mut EvalCx) -> PgResult<Result<Value, Step>> {
    let Expr::Session {
        f: SessionFn::Advisory(a),
        args,
        ..
    } = e
    else {
        return Ok(Ok(e.eval(row, cx)?));
    };
    if a.op != AdvisoryOp::Lock {
        return Ok(Ok(e.eval(row, cx)?));
    }
    let mut vals = Vec::with_capacity(args.len());
    for a in args {
        vals.push(a.eval(row, cx)?);
    }
    let Some(key) = system::advisory_key(&vals, &*cx.session) else {
        return Ok(Ok(Value::Null));
    };
    Ok(
        match cx
            .session
            .advisory_acquire(key, system::advisory_mode(*a), a.xact, true)?
        {
            AdvisoryAcquired::Granted => Ok(Value::Void),
            AdvisoryAcquired::Wait(token) => Err(Step::Wait(token)),
        },
    )
}

impl Operator for Project {
    fn next(&mut self, plan: &Plan, cx: &mut EvalCx, b: &mut Budget) -> PgResult<Step> {
        opened_from!(plan, Project, input, exprs);
        let (mut row, mut out) = match self.waiting.take() {
            Some(w) => w,
            None => match self.input_row(input, cx, b)? {
                Ok(r) => (r, Vec::with_capacity(exprs.len())),
                Err(step) => return Ok(step),
            },
        };
        while out.len() < exprs.len() {
            let e = &exprs[out.len()];
            out.push(match e {
                // Most projected expressions are plain columns: no call into eval's frame.
                Expr::Column(i) if self.movable.get(out.len()) == Some(&true) => {
                    std::mem::replace(&mut row[*i], Value::Null)
                }
                Expr::Column(i) => row[*i].clone(),
                Expr::Session { .. } => match advisory_wait(e, &row, cx)? {
                    Ok(v) => v,
                    Err(step) => {
                        self.waiting = Some((row, out));
                        return Ok(step);
                    }
                },
                _ => e.eval(&row, cx)?,
            });
        }
        Ok(Step::Row(out))
    }
}

impl Project {
    /// The next input row, or the step to pass up instead.
    fn input_row(
        &mut self,
        input: &Plan,
        cx: &mut EvalCx,
        b: &mut Budget,
    ) -> PgResult<Result<Vec<Value>, Step>> {
        Ok(Ok(match &mut self.input {
            Some(op) => match op.next(input, cx, b)? {
                Step::Row(r) => r,
                other => return Ok(Err(other)),
            },
            None => {
                if self.done {
                    return Ok(Err(Step::Done));
                }
                if b.tick() {
                    return Ok(Err(Step::Yield));
                }
                self.done = true;
                Vec::new()
            }
        }))
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
