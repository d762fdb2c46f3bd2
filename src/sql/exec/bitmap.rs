//! Bitmap scans of GIN indexes (`plan/gin_path.rs`): `BitmapIndexScan` yields the chain roots
//! a GIN index gives for its conditions, `BitmapHeapScan` reads all of them first, sorts them
//! (slot order, each once), fetches the version of each chain its snapshot sees and rechecks
//! the conditions on it: a GIN index is lossy (hashed keys, keys that do not decide the
//! operator), and an entry may be stale (a chain that moved to other keys), so the recheck is
//! what makes a row qualify, the index only what rows are looked at.
//!
//! The index scan's operands are evaluated once, at its first pull; each condition's keys
//! (`GinOpclass::extract_query`) select a sorted list of roots (`gin::bitmap`), and the
//! conditions' lists are intersected. Where a condition cannot narrow the rows (an empty
//! `@>` query, more than `gin::MAX_BITMAP` rows), it passes the others' rows through; when no
//! condition narrows them, the index scan yields one NULL instead of roots, and the heap scan
//! reads the whole table in slot order, rechecking every row (PostgreSQL's lossy bitmap).
//!
//! Under SERIALIZABLE the heap scan locks the relation for SSI, as a sequential scan does
//! (coarser than PostgreSQL's GIN page locks, never missing a conflict).
//!
//! # Bounds
//!
//! The roots held are at most `gin::MAX_BITMAP` per condition (8 bytes each); the heap is
//! read `BATCH` roots or slots at a time, between which the session may yield.

use crate::error::PgResult;
use crate::sql::engine::{self, gin};
use crate::sql::exec::EvalCx;
use crate::sql::plan::{Expr, Plan};
use crate::sql::types::Value;
use crate::storage::RowId;

use super::table::{scan_row, Batches, BATCH};
use super::{Budget, Operator, Step};

/// The roots of a GIN index for its conditions (see the module comment).
#[derive(Default)]
pub(super) struct BitmapIndexScan {
    /// The roots still to yield (None before the first pull); a NULL row stands for every
    /// row of the table.
    roots: Option<std::vec::IntoIter<Option<RowId>>>,
}

/// The roots `conds` select in GIN index `index` of `rel`: None for every row.
fn roots_of(
    rel: &engine::Rel,
    index: usize,
    conds: &[Expr],
    cx: &mut EvalCx,
) -> PgResult<Option<Vec<RowId>>> {
    let def = &rel.indexes[index];
    let class = gin::class_of(def)
        .ok_or_else(|| crate::error::PgError::internal("gin index without an operator class"))?;
    let mut acc: Option<Vec<RowId>> = None;
    for c in conds {
        let (Expr::Bin(_, _, r), Some((_, op))) = (c, crate::sql::plan::gin_path::served(rel, c))
        else {
            continue;
        };
        let operand = r.eval(&[], cx)?;
        let m = if operand.is_null() {
            gin::Match::Nothing // the operators are strict
        } else {
            class.extract_query_in(op, &operand, cx.session.fmt())?
        };
        let Some(rows) = gin::bitmap(rel, def.oid, &m) else {
            continue; // every row: the other conditions decide
        };
        acc = Some(match acc {
            None => rows,
            Some(mut a) => {
                a.retain(|x| rows.binary_search(x).is_ok());
                a
            }
        });
        if acc.as_ref().is_some_and(Vec::is_empty) {
            break;
        }
    }
    Ok(acc)
}

impl Operator for BitmapIndexScan {
    fn next(&mut self, plan: &Plan, cx: &mut EvalCx, _b: &mut Budget) -> PgResult<Step> {
        opened_from!(plan, BitmapIndexScan, rel, index, conds);
        if self.roots.is_none() {
            let roots: Vec<Option<RowId>> = match roots_of(&rel.rel, *index, conds, cx)? {
                Some(r) => r.into_iter().map(Some).collect(),
                None => vec![None],
            };
            self.roots = Some(roots.into_iter());
        }
        Ok(match self.roots.as_mut().and_then(Iterator::next) {
            Some(Some(r)) => Step::Row(vec![Value::Int8(r as i64)]),
            Some(None) => Step::Row(vec![Value::Null]),
            None => Step::Done,
        })
    }
}

/// Where the heap scan is.
enum Phase {
    /// Reading the index scan's roots.
    Collect(Vec<RowId>),
    /// Fetching these roots (sorted), from the position given.
    Fetch(Vec<RowId>, usize),
    /// Reading every slot of the table from the position given.
    Whole(RowId),
}

/// The visible versions of the chains the bitmap names, rechecked (see the module comment).
pub(super) struct BitmapHeapScan {
    input: Box<dyn Operator>,
    phase: Phase,
    rows: Batches,
    /// The columns decoded (see `table::scan_row`; None: all).
    want: Option<Vec<bool>>,
}

impl BitmapHeapScan {
    pub fn new(input: Box<dyn Operator>, want: Option<Vec<bool>>) -> Self {
        BitmapHeapScan {
            input,
            phase: Phase::Collect(Vec::new()),
            rows: Batches::default(),
            want,
        }
    }
}

impl Operator for BitmapHeapScan {
    fn next(&mut self, plan: &Plan, cx: &mut EvalCx, b: &mut Budget) -> PgResult<Step> {
        opened_from!(plan, BitmapHeapScan, rel, rowid, bitmap, recheck);
        while let Phase::Collect(roots) = &mut self.phase {
            match self.input.next(bitmap, cx, b)? {
                Step::Row(r) => match r.first() {
                    Some(Value::Int8(id)) => roots.push(*id as RowId),
                    _ => self.phase = Phase::Whole(0),
                },
                Step::Done => {
                    let mut roots = std::mem::take(roots);
                    roots.sort_unstable();
                    roots.dedup();
                    self.phase = Phase::Fetch(roots, 0);
                }
                other => return Ok(other),
            }
        }
        let rel = &rel.rel;
        let ncols = rel.columns.len();
        loop {
            let (phase, want) = (&mut self.phase, self.want.as_deref());
            let step = self.rows.next(cx, b, |snap, ssi, buf| {
                if let Some(x) = ssi {
                    engine::predicate_relation(rel, x)?;
                }
                match phase {
                    Phase::Fetch(roots, pos) => {
                        let end = (*pos + BATCH).min(roots.len());
                        let batch = &roots[*pos..end];
                        engine::prefetch(rel, batch);
                        for &root in batch {
                            if let Some((_, row)) =
                                engine::fetch_packed(rel, root, snap, |id, packed| {
                                    scan_row(packed, want, ncols, id, *rowid)
                                })
                            {
                                buf.push_back(row);
                            }
                        }
                        *pos = end;
                        Ok(end < roots.len())
                    }
                    Phase::Whole(pos) => {
                        let next = engine::scan_packed(rel, *pos, BATCH, snap, |id, packed| {
                            buf.push_back(scan_row(packed, want, ncols, id, *rowid));
                            true
                        });
                        Ok(match next {
                            Some(p) => {
                                *pos = p;
                                true
                            }
                            None => false,
                        })
                    }
                    Phase::Collect(_) => Ok(false),
                }
            })?;
            match step {
                Step::Row(r) => {
                    let mut ok = true;
                    for c in recheck {
                        if c.eval(&r, cx)? != Value::Bool(true) {
                            ok = false;
                            break;
                        }
                    }
                    if ok {
                        return Ok(Step::Row(r));
                    }
                }
                other => return Ok(other),
            }
        }
    }
}
