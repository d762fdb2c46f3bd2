//! Tid Scan: the versions in the slots that a condition on `ctid` names (`WHERE ctid = $1`,
//! `ctid = ANY (...)`, `ctid IN (...)`), read directly instead of scanning the table.
//!
//! At the first pull the tid expressions are evaluated (they do not depend on the row) and
//! mapped to slots (`types::tid`: a tid that names no slot, such as offset 0, finds nothing);
//! the slots are sorted and made unique, as PostgreSQL's TidListEval does. Each slot's version
//! is then read if the scan's snapshot sees it: a ctid names one version, so no update chain is
//! followed. The list is as long as the tids given (an array already in memory); rows are read
//! [`super::table::BATCH`] per budget tick.

use crate::error::PgResult;
use crate::sql::engine;
use crate::sql::plan::Plan;
use crate::sql::types::{tid, Value};

use super::table::{scan_row, Batches, BATCH};
use super::{Budget, EvalCx, Operator, Step};

#[derive(Default)]
pub(super) struct TidScan {
    rows: Batches,
    /// The slots to read, in order (None until the first pull), and how many were read.
    slots: Option<Vec<u64>>,
    pos: usize,
}

impl Operator for TidScan {
    fn next(&mut self, plan: &Plan, cx: &mut EvalCx, b: &mut Budget) -> PgResult<Step> {
        opened_from!(plan, TidScan, rel, rowid, tids, array);
        if self.slots.is_none() {
            let mut slots = Vec::new();
            for e in tids {
                let v = e.eval(&[], cx)?;
                match (&v, *array) {
                    (Value::Array(a), true) => {
                        slots.extend(a.items.iter().filter_map(tid::slot_of));
                    }
                    (v, false) => slots.extend(tid::slot_of(v)),
                    _ => {}
                }
            }
            slots.sort_unstable();
            slots.dedup();
            self.slots = Some(slots);
        }
        let slots = self.slots.as_deref().unwrap_or_default();
        let pos = &mut self.pos;
        let ncols = rel.columns.len();
        self.rows.next(cx, b, |snap, ssi, buf| {
            if let Some(x) = ssi {
                engine::predicate_relation(rel, x)?;
            }
            let end = (*pos + BATCH).min(slots.len());
            for &id in &slots[*pos..end] {
                if let Some(row) =
                    engine::read_packed(rel, id, snap, |p| scan_row(p, None, ncols, id, *rowid))
                {
                    buf.push_back(row);
                }
            }
            *pos = end;
            Ok(end < slots.len())
        })
    }
}
