//! UNION, INTERSECT and EXCEPT [ALL]. UNION ALL returns the left rows, then the right rows, as
//! they come (PostgreSQL's Append). The others read both sides first (left, then right), as
//! PostgreSQL's hashed set operations do, then return their rows in the left side's order.

use std::collections::{HashMap, HashSet};

use crate::error::PgResult;
use crate::sql::exec::EvalCx;
use crate::sql::plan::{Plan, SetOpKind};

use super::bounds::{row_bytes, Held};
use super::keys::Key;
use super::{Budget, Operator, Row, Step};

enum Phase {
    /// Reading the left side (`true`) or the right side.
    Read(bool),
    /// Returning the rows kept (UNION) or the left rows still to test (INTERSECT, EXCEPT).
    Emit(std::vec::IntoIter<Row>),
}

pub(super) struct SetOp {
    left: Box<dyn Operator>,
    right: Box<dyn Operator>,
    phase: Phase,
    /// UNION: the rows seen; INTERSECT and EXCEPT: the rows of each key still unmatched on the
    /// right side, then the keys already returned (without ALL).
    seen: HashSet<Key>,
    counts: HashMap<Key, usize>,
    /// UNION: the distinct rows; INTERSECT and EXCEPT: the left rows.
    rows: Vec<Row>,
    held: Held,
}

impl SetOp {
    pub fn new(left: Box<dyn Operator>, right: Box<dyn Operator>) -> Self {
        SetOp {
            left,
            right,
            phase: Phase::Read(true),
            seen: HashSet::new(),
            counts: HashMap::new(),
            rows: Vec::new(),
            held: Held::default(),
        }
    }
}

impl Operator for SetOp {
    fn next(&mut self, plan: &Plan, cx: &mut EvalCx, b: &mut Budget) -> PgResult<Step> {
        opened_from!(plan, SetOp, op, all, left, right);
        let (op, all) = (*op, *all);
        loop {
            match &mut self.phase {
                Phase::Read(is_left) => {
                    let is_left = *is_left;
                    let step = if is_left {
                        self.left.next(left, cx, b)?
                    } else {
                        self.right.next(right, cx, b)?
                    };
                    match step {
                        Step::Row(r) if op == SetOpKind::Union && all => return Ok(Step::Row(r)),
                        Step::Row(r) if op == SetOpKind::Union => {
                            let key = Key(r.clone());
                            if !self.seen.contains(&key) {
                                self.held.add(2 * row_bytes(&r), b.work_mem, "HashSetOp")?;
                                self.seen.insert(key);
                                self.rows.push(r);
                            }
                        }
                        Step::Row(r) if is_left => {
                            self.held.add(row_bytes(&r), b.work_mem, "HashSetOp")?;
                            self.rows.push(r);
                        }
                        Step::Row(r) => {
                            let n = self.counts.entry(Key(r)).or_default();
                            if *n == 0 {
                                self.held.add(64, b.work_mem, "HashSetOp")?;
                            }
                            *n += 1;
                        }
                        Step::Done if is_left => self.phase = Phase::Read(false),
                        Step::Done if op == SetOpKind::Union && all => return Ok(Step::Done),
                        Step::Done => {
                            self.seen = HashSet::new();
                            self.phase = Phase::Emit(std::mem::take(&mut self.rows).into_iter());
                        }
                        other => return Ok(other),
                    }
                }
                Phase::Emit(rows) => {
                    if rows.as_slice().is_empty() {
                        return Ok(Step::Done);
                    }
                    if b.tick() {
                        return Ok(Step::Yield);
                    }
                    let row = rows.next().expect("not empty");
                    if op == SetOpKind::Union {
                        return Ok(Step::Row(row));
                    }
                    let key = Key(row);
                    let c = self.counts.get(&key).copied().unwrap_or(0);
                    let keep = match (op, all) {
                        (SetOpKind::Intersect, true) => {
                            if c > 0 {
                                self.counts.insert(key.clone(), c - 1);
                            }
                            c > 0
                        }
                        (SetOpKind::Intersect, false) => c > 0 && self.seen.insert(key.clone()),
                        (_, true) => {
                            if c > 0 {
                                self.counts.insert(key.clone(), c - 1);
                            }
                            c == 0
                        }
                        (_, false) => c == 0 && self.seen.insert(key.clone()),
                    };
                    if keep {
                        return Ok(Step::Row(key.0));
                    }
                }
            }
        }
    }
}
