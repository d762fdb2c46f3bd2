//! Nested-loop joins. The left side is pulled one row at a time. The right side is read once,
//! lazily, while the first left row is joined, and kept for the other left rows (PostgreSQL's
//! Materialize over a nested loop's inner side); a LATERAL right side is opened anew for each
//! left row, which it sees as its innermost outer row.

use crate::error::PgResult;
use crate::sql::exec::EvalCx;
use crate::sql::plan::{JoinKind, Plan};
use crate::sql::types::Value;

use super::bounds::{row_bytes, Held};
use super::cte::{open_tree, Env};
use super::{Budget, Operator, Row, Step};

enum Right {
    /// The right rows read so far, whether each matched any left row (RIGHT and FULL joins),
    /// and the operator still producing them (None once it is done).
    Kept {
        op: Option<Box<dyn Operator>>,
        rows: Vec<Row>,
        matched: Vec<bool>,
        /// The next kept row for the current left row.
        pos: usize,
        held: Held,
    },
    /// The right side of this left row, and what to open the next one with.
    Lateral {
        op: Option<Box<dyn Operator>>,
        env: Env,
    },
}

enum Phase {
    /// Pull the next left row.
    Left,
    /// Join the current left row with the right rows.
    Right,
    /// RIGHT and FULL joins, after the last left row: the right rows no left row matched.
    Unmatched(usize),
}

pub(super) struct Join {
    left: Box<dyn Operator>,
    right: Right,
    phase: Phase,
    /// The left row being joined, and whether a right row matched it.
    current: Row,
    matched: bool,
}

impl Join {
    /// `right` is None for a lateral join, whose right side is opened per left row.
    pub fn new(left: Box<dyn Operator>, right: Option<Box<dyn Operator>>, env: &Env) -> Self {
        let right = match right {
            Some(op) => Right::Kept {
                op: Some(op),
                rows: Vec::new(),
                matched: Vec::new(),
                pos: 0,
                held: Held::default(),
            },
            None => Right::Lateral {
                op: None,
                env: env.clone(),
            },
        };
        Join {
            left,
            right,
            phase: Phase::Left,
            current: Vec::new(),
            matched: false,
        }
    }
}

impl Operator for Join {
    fn next(&mut self, plan: &Plan, cx: &mut EvalCx, b: &mut Budget) -> PgResult<Step> {
        opened_from!(plan, Join, left, right, kind, on);
        loop {
            match self.phase {
                Phase::Left => match self.left.next(left, cx, b)? {
                    Step::Row(l) => {
                        self.current = l;
                        self.matched = false;
                        match &mut self.right {
                            Right::Kept { pos, .. } => *pos = 0,
                            Right::Lateral { op, env } => *op = Some(open_tree(right, env)),
                        }
                        self.phase = Phase::Right;
                    }
                    Step::Done => {
                        let rest = matches!(kind, JoinKind::Right | JoinKind::Full)
                            && matches!(self.right, Right::Kept { .. });
                        if !rest {
                            return Ok(Step::Done);
                        }
                        self.phase = Phase::Unmatched(0);
                    }
                    other => return Ok(other),
                },
                Phase::Right => {
                    // The next right row for the current left row, and its index among the
                    // kept rows (to mark it matched).
                    let (r, kept): (Option<Row>, Option<usize>) = match &mut self.right {
                        Right::Kept {
                            op,
                            rows,
                            matched,
                            pos,
                            held,
                        } => {
                            if *pos < rows.len() {
                                if b.tick() {
                                    return Ok(Step::Yield);
                                }
                                *pos += 1;
                                (None, Some(*pos - 1))
                            } else if let Some(o) = op {
                                match o.next(right, cx, b)? {
                                    Step::Row(r) => {
                                        held.add(row_bytes(&r), b.work_mem, "Nested Loop")?;
                                        rows.push(r);
                                        matched.push(false);
                                    }
                                    Step::Done => *op = None,
                                    other => return Ok(other),
                                }
                                continue;
                            } else {
                                (None, None)
                            }
                        }
                        Right::Lateral { op, .. } => {
                            let o = op.as_mut().expect("opened with the left row");
                            // The left row is the right side's innermost outer row while it
                            // runs; moved there and back, not copied.
                            cx.outer.push(std::mem::take(&mut self.current));
                            let step = o.next(right, cx, b);
                            self.current = cx.outer.pop().expect("pushed above");
                            match step? {
                                Step::Row(r) => (Some(r), None),
                                Step::Done => {
                                    *op = None;
                                    (None, None)
                                }
                                other => return Ok(other),
                            }
                        }
                    };
                    let rrow = match (&r, kept, &self.right) {
                        (Some(r), _, _) => r,
                        (None, Some(i), Right::Kept { rows, .. }) => &rows[i],
                        _ => {
                            // The right side is exhausted for this left row.
                            self.phase = Phase::Left;
                            if !self.matched && matches!(kind, JoinKind::Left | JoinKind::Full) {
                                let mut row = std::mem::take(&mut self.current);
                                row.extend(std::iter::repeat_n(Value::Null, right.columns.len()));
                                return Ok(Step::Row(row));
                            }
                            continue;
                        }
                    };
                    let mut row = Vec::with_capacity(self.current.len() + rrow.len());
                    row.extend_from_slice(&self.current);
                    row.extend_from_slice(rrow);
                    let ok = match on {
                        None => true,
                        Some(p) => p.eval(&row, cx)? == Value::Bool(true),
                    };
                    if ok {
                        self.matched = true;
                        if let (Some(i), Right::Kept { matched, .. }) = (kept, &mut self.right) {
                            matched[i] = true;
                        }
                        return Ok(Step::Row(row));
                    }
                }
                Phase::Unmatched(i) => {
                    let Right::Kept {
                        op,
                        rows,
                        matched,
                        held,
                        ..
                    } = &mut self.right
                    else {
                        return Ok(Step::Done);
                    };
                    // With no left rows the right side has not been read yet.
                    if let Some(o) = op {
                        match o.next(right, cx, b)? {
                            Step::Row(r) => {
                                held.add(row_bytes(&r), b.work_mem, "Nested Loop")?;
                                rows.push(r);
                                matched.push(false);
                            }
                            Step::Done => *op = None,
                            other => return Ok(other),
                        }
                        continue;
                    }
                    let Some(j) = (i..rows.len()).find(|&j| !matched[j]) else {
                        return Ok(Step::Done);
                    };
                    if b.tick() {
                        return Ok(Step::Yield);
                    }
                    self.phase = Phase::Unmatched(j + 1);
                    let mut row: Row =
                        std::iter::repeat_n(Value::Null, left.columns.len()).collect();
                    row.extend(std::mem::take(&mut rows[j]));
                    return Ok(Step::Row(row));
                }
            }
        }
    }
}
