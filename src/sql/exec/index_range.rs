//! Index range scans (`plan::index_path`): ranges, IN lists, row-value IN, an equality prefix
//! with a range on the next column, and reads in index order, forwards or backwards.
//!
//! At the first pull the path's values are evaluated into a list of ranges, one per
//! combination of the fixed columns' values (sorted and without duplicates, so rows come out in
//! index order and each once), each with the tightest lower and upper bound on the next column
//! (or, for an OR of ranges on it, one range per alternative, sorted and merged where they
//! overlap or touch; past `MAX_PROBES` ranges in all, the span they cover, re-checked).
//! Before a batch's rows are fetched their slots are prefetched (`Heap::prefetch`): an index
//! range reaches rows scattered over the heap, and overlapping their memory loads was a tenth
//! of sysbench oltp_read_write's CPU.
//! Each range is read a batch at a time like the equality scan: the entries in key order,
//! resuming after (or, backwards, before) the last one seen, and each entry's version is
//! checked against the entry's key, so a row is reached only through the entry of its visible
//! version's key.

use std::cmp::Ordering;
use std::ops::Bound;

use crate::error::PgResult;
use crate::sql::engine::{self, Key, KeyRef};
use crate::sql::exec::EvalCx;
use crate::sql::plan::index_path::{Fixed, IndexPath, RangeBound, MAX_PROBES};
use crate::sql::plan::Plan;
use crate::sql::types::{self, Value};
use crate::storage::{Entry, RowId};

use super::table::{scan_row, Batches, BATCH};
use super::{Budget, Operator, Step};

fn cmp(a: &Value, b: &Value) -> Ordering {
    match (a.is_null(), b.is_null()) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Greater,
        (false, true) => Ordering::Less,
        _ => types::compare(a, b),
    }
}

/// One range of the index: a fixed prefix, and bounds on the column after it.
struct Range {
    prefix: Vec<Value>,
    lo: Option<(Value, bool)>,
    hi: Option<(Value, bool)>,
    /// Where the tree is read (whole keys: the prefix and the bound, padded with NULLs, which
    /// sort after every value, for an upper bound that takes in the later columns).
    start: Option<Key>,
    end: Option<Key>,
}

#[derive(Default)]
pub(super) struct IndexRange {
    rows: Batches,
    /// The ranges in the order they are read (None until the first pull).
    ranges: Option<Vec<Range>>,
    cur: usize,
    resume: Option<Entry<Key>>,
    /// The covered conditions are evaluated on each row (the keys could not be used exactly).
    recheck: bool,
    /// The columns decoded (see `table::scan_row`; None: all).
    want: Option<Vec<bool>>,
}

impl IndexRange {
    pub fn new(want: Option<Vec<bool>>) -> Self {
        IndexRange {
            want,
            ..Default::default()
        }
    }
}

/// The tightest of several bounds: the greatest lower (`lower`) or least upper one; an
/// exclusive bound wins a tie. None when there are none; Err(()) when one is NULL (nothing
/// compares with NULL, so nothing qualifies).
fn tightest<'a>(
    bounds: impl IntoIterator<Item = &'a RangeBound>,
    lower: bool,
    cx: &mut EvalCx,
) -> PgResult<Result<Option<(Value, bool)>, ()>> {
    let mut best: Option<(Value, bool)> = None;
    for b in bounds {
        let v = b.value.eval(&[], cx)?;
        if v.is_null() {
            return Ok(Err(()));
        }
        let better = match &best {
            None => true,
            Some((bv, bincl)) => match cmp(&v, bv) {
                Ordering::Greater => lower,
                Ordering::Less => !lower,
                Ordering::Equal => *bincl && !b.inclusive,
            },
        };
        if better {
            best = Some((v, b.inclusive));
        }
    }
    Ok(Ok(best))
}

/// A range of the column after the fixed ones: lower and upper bound (None: open), each with
/// whether it is included.
type Interval = (Option<(Value, bool)>, Option<(Value, bool)>);

/// Whether no value lies between `lo` and `hi`.
fn empty((lo, hi): &Interval) -> bool {
    match (lo, hi) {
        (Some((l, li)), Some((h, hi))) => match cmp(l, h) {
            Ordering::Greater => true,
            Ordering::Equal => !(*li && *hi),
            Ordering::Less => false,
        },
        _ => false,
    }
}

/// Lower bounds in key order: an open one first, an inclusive one before an exclusive one.
fn lower_order(a: &Option<(Value, bool)>, b: &Option<(Value, bool)>) -> Ordering {
    match (a, b) {
        (None, None) => Ordering::Equal,
        (None, Some(_)) => Ordering::Less,
        (Some(_), None) => Ordering::Greater,
        (Some((x, xi)), Some((y, yi))) => cmp(x, y).then(yi.cmp(xi)),
    }
}

/// Upper bounds in key order: an open one last, an inclusive one after an exclusive one.
fn upper_order(a: &Option<(Value, bool)>, b: &Option<(Value, bool)>) -> Ordering {
    match (a, b) {
        (None, None) => Ordering::Equal,
        (None, Some(_)) => Ordering::Greater,
        (Some(_), None) => Ordering::Less,
        (Some((x, xi)), Some((y, yi))) => cmp(x, y).then(xi.cmp(yi)),
    }
}

/// The intervals in key order, those that overlap or touch merged: each key lies in one at
/// most, so an OR of ranges reads each row once.
fn merge(mut v: Vec<Interval>) -> Vec<Interval> {
    v.sort_by(|a, b| lower_order(&a.0, &b.0));
    let mut out: Vec<Interval> = Vec::with_capacity(v.len());
    for (lo, hi) in v {
        if let Some(last) = out.last_mut() {
            let joins = match (&last.1, &lo) {
                (None, _) | (_, None) => true,
                (Some((h, hi_incl)), Some((l, lo_incl))) => match cmp(l, h) {
                    Ordering::Less => true,
                    Ordering::Equal => *hi_incl || *lo_incl,
                    Ordering::Greater => false,
                },
            };
            if joins {
                if upper_order(&hi, &last.1).is_gt() {
                    last.1 = hi;
                }
                continue;
            }
        }
        out.push((lo, hi));
    }
    out
}

/// The alternatives of one fixed column (or run of columns), NULL-free.
fn alternatives(f: &Fixed, cx: &mut EvalCx) -> PgResult<Vec<Vec<Value>>> {
    let mut out = Vec::new();
    match f {
        Fixed::Eq(e) => out.push(vec![e.eval(&[], cx)?]),
        Fixed::In(list) => {
            for e in list {
                out.push(vec![e.eval(&[], cx)?]);
            }
        }
        Fixed::Any(e) => {
            if let Value::Array(a) = e.eval(&[], cx)? {
                out.extend(a.items.into_iter().map(|v| vec![v]));
            }
        }
        Fixed::Tuples(_, rows) => {
            for r in rows {
                out.push(r.iter().map(|e| e.eval(&[], cx)).collect::<PgResult<_>>()?);
            }
        }
    }
    // `col = NULL` is never true.
    out.retain(|t| !t.iter().any(Value::is_null));
    Ok(out)
}

impl IndexRange {
    fn plan_ranges(&mut self, path: &IndexPath, ncols: usize, cx: &mut EvalCx) -> PgResult<()> {
        let mut tuples: Vec<Vec<Value>> = vec![Vec::new()];
        let mut complete = true;
        for f in &path.fixed {
            let alts = alternatives(f, cx)?;
            if tuples.len().saturating_mul(alts.len()) > MAX_PROBES {
                // Too many combinations: read what the columns so far span, and re-check.
                complete = false;
                self.recheck = true;
                break;
            }
            let mut next = Vec::with_capacity(tuples.len() * alts.len());
            for t in &tuples {
                for a in &alts {
                    let mut k = t.clone();
                    k.extend(a.iter().cloned());
                    next.push(k);
                }
            }
            tuples = next;
        }
        tuples.sort_by(|a, b| {
            a.iter()
                .zip(b.iter())
                .map(|(x, y)| cmp(x, y))
                .find(|o| o.is_ne())
                .unwrap_or(Ordering::Equal)
        });
        tuples.dedup_by(|a, b| a.iter().zip(b.iter()).all(|(x, y)| cmp(x, y).is_eq()));
        let mut intervals: Vec<Interval> = Vec::new();
        if !complete {
            intervals.push((None, None));
        } else if path.spans.is_empty() {
            if let (Ok(lo), Ok(hi)) = (
                tightest(&path.lower, true, cx)?,
                tightest(&path.upper, false, cx)?,
            ) {
                intervals.push((lo, hi));
            }
        } else {
            // Each alternative of the OR within the path's own bounds; one with a NULL bound
            // holds for no row.
            for sp in &path.spans {
                if let (Ok(lo), Ok(hi)) = (
                    tightest(sp.lower.iter().chain(&path.lower), true, cx)?,
                    tightest(sp.upper.iter().chain(&path.upper), false, cx)?,
                ) {
                    intervals.push((lo, hi));
                }
            }
        }
        intervals.retain(|i| !empty(i));
        let mut intervals = merge(intervals);
        if tuples.len().saturating_mul(intervals.len()) > MAX_PROBES {
            // Too many ranges: read from the first interval's start to the last one's end,
            // and re-check the conditions on each row.
            let first = intervals.first().and_then(|i| i.0.clone());
            let last = intervals.last().and_then(|i| i.1.clone());
            intervals = vec![(first, last)];
            self.recheck = true;
        }
        let mut ranges: Vec<Range> = Vec::with_capacity(tuples.len() * intervals.len());
        for prefix in tuples {
            for (lo, hi) in &intervals {
                ranges.push(range(&prefix, lo, hi, ncols));
            }
        }
        if path.backward {
            ranges.reverse();
        }
        self.ranges = Some(ranges);
        Ok(())
    }
}

/// The range of `prefix` followed by a key between `lo` and `hi`.
fn range(
    prefix: &[Value],
    lo: &Option<(Value, bool)>,
    hi: &Option<(Value, bool)>,
    ncols: usize,
) -> Range {
    let with = |v: &Value| {
        let mut k = prefix.to_vec();
        k.push(v.clone());
        k
    };
    let pad = |mut k: Vec<Value>| {
        k.resize(ncols, Value::Null);
        Key(k.into())
    };
    let start = match lo {
        Some((v, _)) => Some(Key(with(v).into())),
        None if prefix.is_empty() => None,
        None => Some(Key(prefix.to_vec().into())),
    };
    let end = match hi {
        Some((v, _)) => Some(pad(with(v))),
        None if prefix.is_empty() => None,
        None => Some(pad(prefix.to_vec())),
    };
    Range {
        prefix: prefix.to_vec(),
        lo: lo.clone(),
        hi: hi.clone(),
        start,
        end,
    }
}

/// Whether an entry's key is inside `r`: Some(true) to take it, Some(false) to pass over it
/// (before the range in reading order), None when the range is over.
fn judge(r: &Range, k: &[Value], backward: bool) -> Option<bool> {
    let p = r.prefix.len();
    if k.len() < p || !k[..p].iter().zip(&r.prefix).all(|(a, b)| cmp(a, b).is_eq()) {
        return None;
    }
    if r.lo.is_none() && r.hi.is_none() {
        return Some(true);
    }
    let v = k.get(p)?;
    // Below the range and above it, as seen in reading order.
    let (below, above) = if backward {
        (None, Some(false))
    } else {
        (Some(false), None)
    };
    if v.is_null() {
        // NULLs sort last and satisfy no bound.
        return above;
    }
    if let Some((lo, incl)) = &r.lo {
        match cmp(v, lo) {
            Ordering::Less => return below,
            Ordering::Equal if !incl => return below,
            _ => {}
        }
    }
    if let Some((hi, incl)) = &r.hi {
        match cmp(v, hi) {
            Ordering::Greater => return above,
            Ordering::Equal if !incl => return above,
            _ => {}
        }
    }
    Some(true)
}

impl Operator for IndexRange {
    fn next(&mut self, plan: &Plan, cx: &mut EvalCx, b: &mut Budget) -> PgResult<Step> {
        opened_from!(plan, IndexRange, rel, rowid, path);
        let def = &rel.indexes[path.index];
        if self.ranges.is_none() {
            self.plan_ranges(path, def.width(), cx)?;
        }
        loop {
            let ranges = self.ranges.as_ref().expect("planned above");
            let cur = &mut self.cur;
            let resume = &mut self.resume;
            let want = self.want.as_deref();
            let ncols = rel.columns.len();
            let step = self.rows.next(cx, b, |snap, ssi, buf| {
                let Some(r) = ranges.get(*cur) else {
                    return Ok(false);
                };
                if let Some(x) = ssi {
                    engine::predicate_index(def.oid, x)?;
                }
                let mut found: Vec<(Vec<Value>, RowId)> = Vec::with_capacity(BATCH);
                let mut ended = false;
                let lo = r.start.as_ref().map_or(Bound::Unbounded, Bound::Included);
                let hi = r.end.as_ref().map_or(Bound::Unbounded, Bound::Included);
                let visit = |k: &KeyRef<'_>, root: RowId| match judge(r, k.0, path.backward) {
                    Some(true) => {
                        found.push((k.0.to_vec(), root));
                        true
                    }
                    Some(false) => true,
                    None => {
                        ended = true;
                        false
                    }
                };
                let next = if path.backward {
                    engine::index_scan_back(rel, def.oid, lo, hi, resume.as_ref(), BATCH, visit)
                } else {
                    engine::index_scan(rel, def.oid, lo, hi, resume.as_ref(), BATCH, visit)
                };
                match next {
                    Some(e) if !ended => *resume = Some(e),
                    _ => {
                        *resume = None;
                        *cur += 1;
                    }
                }
                let roots: Vec<RowId> = found.iter().map(|(_, r)| *r).collect();
                engine::prefetch(rel, &roots);
                for (key, root) in found {
                    // The entry may be stale (the chain moved to another key): check the
                    // version against the entry's whole key.
                    let fetched = engine::fetch_packed(rel, root, snap, |id, packed| {
                        scan_row(packed, want, ncols, id, *rowid)
                    });
                    if let Some(x) = ssi {
                        engine::predicate_root(rel, root, x)?;
                        if let Some((id, _)) = &fetched {
                            engine::predicate_tuple(rel, *id, x)?;
                        }
                    }
                    if let Some((_, row)) = fetched {
                        if super::index_keys::key_starts_with(rel, def, &row, &key) {
                            buf.push_back(row);
                        }
                    }
                }
                Ok(true)
            })?;
            match step {
                Step::Row(r) if self.recheck || !path.later.is_empty() => {
                    let mut ok = true;
                    let recheck: &[_] = if self.recheck { &path.conds } else { &[] };
                    for c in recheck.iter().chain(&path.later) {
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

#[cfg(test)]
mod tests {
    use super::{empty, merge, Interval};
    use crate::sql::types::Value;

    fn iv(lo: Option<(i32, bool)>, hi: Option<(i32, bool)>) -> Interval {
        (
            lo.map(|(v, i)| (Value::Int4(v), i)),
            hi.map(|(v, i)| (Value::Int4(v), i)),
        )
    }

    #[test]
    fn overlapping_and_touching_ranges_merge_and_gaps_stay() {
        let got = merge(vec![
            iv(Some((11, true)), Some((14, true))),
            iv(Some((10, true)), Some((12, true))),
            iv(Some((20, false)), Some((30, false))),
            iv(Some((30, false)), None),
            iv(Some((14, false)), Some((15, true))),
            iv(Some((1, true)), Some((2, false))),
            iv(Some((2, false)), Some((3, true))),
        ]);
        assert_eq!(
            got,
            vec![
                iv(Some((1, true)), Some((2, false))),
                iv(Some((2, false)), Some((3, true))),
                iv(Some((10, true)), Some((15, true))),
                iv(Some((20, false)), Some((30, false))),
                iv(Some((30, false)), None),
            ]
        );
        assert_eq!(
            merge(vec![iv(Some((5, true)), None), iv(None, Some((1, true)))]),
            vec![iv(None, Some((1, true))), iv(Some((5, true)), None)]
        );
        assert_eq!(
            merge(vec![
                iv(None, Some((7, true))),
                iv(Some((7, true)), Some((9, false)))
            ]),
            vec![iv(None, Some((9, false)))]
        );
    }

    #[test]
    fn an_interval_is_empty_only_when_no_value_fits() {
        assert!(empty(&iv(Some((5, true)), Some((4, true)))));
        assert!(empty(&iv(Some((5, true)), Some((5, false)))));
        assert!(!empty(&iv(Some((5, true)), Some((5, true)))));
        assert!(!empty(&iv(None, Some((5, false)))));
    }
}
