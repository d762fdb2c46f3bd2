//! LIMIT and OFFSET: stop pulling the input once the rows are there.

use crate::error::{code, PgError, PgResult};
use crate::sql::exec::EvalCx;
use crate::sql::plan::Expr;
use crate::sql::plan::Plan;
use crate::sql::types::Value;

use super::{Budget, Operator, Step};

pub(super) struct Limit {
    input: Box<dyn Operator>,
    /// Rows still to skip, and still to return (None: no LIMIT); evaluated at the first pull.
    bounds: Option<(u64, Option<u64>)>,
}

impl Limit {
    pub fn new(input: Box<dyn Operator>) -> Self {
        Limit {
            input,
            bounds: None,
        }
    }
}

impl Operator for Limit {
    fn next(&mut self, plan: &Plan, cx: &mut EvalCx, b: &mut Budget) -> PgResult<Step> {
        opened_from!(plan, Limit, input, offset, count);
        // PostgreSQL evaluates (and checks) the bounds before it fetches any row, and LIMIT 0
        // never runs its input.
        let (skip, left) = match &mut self.bounds {
            Some(bounds) => bounds,
            None => self
                .bounds
                .insert(bounds(offset.as_ref(), count.as_ref(), cx)?),
        };
        loop {
            if *left == Some(0) {
                return Ok(Step::Done);
            }
            match self.input.next(input, cx, b)? {
                Step::Row(_) if *skip > 0 => *skip -= 1,
                Step::Row(r) => {
                    if let Some(n) = left {
                        *n -= 1;
                    }
                    return Ok(Step::Row(r));
                }
                other => return Ok(other),
            }
        }
    }
}

fn bounds(
    offset: Option<&Expr>,
    count: Option<&Expr>,
    cx: &mut EvalCx,
) -> PgResult<(u64, Option<u64>)> {
    let off = match offset {
        Some(e) => match e.eval(&[], cx)? {
            Value::Null => 0,
            v => {
                let n = v.as_i64().unwrap_or(0);
                if n < 0 {
                    return Err(PgError::new(
                        code::INVALID_ROW_COUNT_IN_RESULT_OFFSET_CLAUSE,
                        "OFFSET must not be negative",
                    ));
                }
                n as u64
            }
        },
        None => 0,
    };
    let cnt = match count {
        Some(e) => match e.eval(&[], cx)? {
            Value::Null => None,
            v => {
                let n = v.as_i64().unwrap_or(0);
                if n < 0 {
                    return Err(PgError::new(
                        code::INVALID_ROW_COUNT_IN_LIMIT_CLAUSE,
                        "LIMIT must not be negative",
                    ));
                }
                Some(n as u64)
            }
        },
        None => None,
    };
    Ok((off, cnt))
}
