//! ORDER BY: the input rows are read with their sort keys evaluated (the build phase), sorted
//! once (stably, so equal keys keep their input order), then returned one per pull.

use crate::error::PgResult;
use crate::sql::exec::EvalCx;
use crate::sql::plan::Plan;
use crate::sql::types::Value;

use super::bounds::{row_bytes, values_bytes, Held};
use super::explain::NodeInstr;
use super::keys::cmp_sort_keys;
use super::{Budget, Operator, Row, Step};

pub(super) struct Sort {
    input: Box<dyn Operator>,
    keyed: Vec<(Vec<Value>, Row)>,
    held: Held,
    /// Set once sorted: the rows still to return.
    out: Option<std::vec::IntoIter<(Vec<Value>, Row)>>,
    /// Under EXPLAIN ANALYZE: where the memory held is reported.
    instr: Option<NodeInstr>,
}

impl Sort {
    pub fn new(input: Box<dyn Operator>, instr: Option<NodeInstr>) -> Self {
        Sort {
            input,
            keyed: Vec::new(),
            held: Held::default(),
            out: None,
            instr,
        }
    }
}

impl Operator for Sort {
    fn next(&mut self, plan: &Plan, cx: &mut EvalCx, b: &mut Budget) -> PgResult<Step> {
        opened_from!(plan, Sort, input, keys);
        while self.out.is_none() {
            match self.input.next(input, cx, b)? {
                Step::Row(r) => {
                    let mut k = Vec::with_capacity(keys.len());
                    for key in keys {
                        k.push(key.expr.eval(&r, cx)?);
                    }
                    self.held
                        .add(row_bytes(&r) + values_bytes(&k) + 24, b.work_mem, "Sort")?;
                    self.keyed.push((k, r));
                }
                Step::Done => {
                    cx.session.check_interrupts()?;
                    if let Some(i) = &self.instr {
                        i.stat.note_memory(self.held.bytes());
                    }
                    let mut keyed = std::mem::take(&mut self.keyed);
                    keyed.sort_by(|(a, _), (b, _)| cmp_sort_keys(a, b, keys));
                    self.out = Some(keyed.into_iter());
                }
                other => return Ok(other),
            }
        }
        let out = self.out.as_mut().expect("set above");
        if out.as_slice().is_empty() {
            return Ok(Step::Done);
        }
        if b.tick() {
            return Ok(Step::Yield);
        }
        Ok(Step::Row(out.next().expect("not empty").1))
    }
}
