//! DISTINCT and DISTINCT ON: the first row of each key, in input order. Like PostgreSQL's hashed
//! DISTINCT it reads all of its input before it returns a row (an error in a later row comes
//! before any row).

use std::collections::HashSet;

use crate::error::PgResult;
use crate::sql::exec::EvalCx;
use crate::sql::plan::Plan;

use super::bounds::{row_bytes, Held};
use super::keys::Key;
use super::{emit, Budget, Operator, Row, Step};

pub(super) struct Distinct {
    input: Box<dyn Operator>,
    seen: HashSet<Key>,
    rows: Vec<Row>,
    held: Held,
    out: Option<std::vec::IntoIter<Row>>,
}

impl Distinct {
    pub fn new(input: Box<dyn Operator>) -> Self {
        Distinct {
            input,
            seen: HashSet::new(),
            rows: Vec::new(),
            held: Held::default(),
            out: None,
        }
    }
}

impl Operator for Distinct {
    fn next(&mut self, plan: &Plan, cx: &mut EvalCx, b: &mut Budget) -> PgResult<Step> {
        opened_from!(plan, Distinct, input, on, width);
        while self.out.is_none() {
            match self.input.next(input, cx, b)? {
                Step::Row(r) => {
                    let key = match on {
                        Some(keys) => {
                            let mut k = Vec::with_capacity(keys.len());
                            for e in keys {
                                k.push(e.eval(&r, cx)?);
                            }
                            Key(k)
                        }
                        None => Key(r[..*width].to_vec()),
                    };
                    if !self.seen.contains(&key) {
                        self.held
                            .add(row_bytes(&key.0) + row_bytes(&r), b.work_mem, "Unique")?;
                        self.seen.insert(key);
                        self.rows.push(r);
                    }
                }
                Step::Done => {
                    self.seen = HashSet::new();
                    self.out = Some(std::mem::take(&mut self.rows).into_iter());
                }
                other => return Ok(other),
            }
        }
        Ok(emit(self.out.as_mut().expect("set above"), b))
    }
}
