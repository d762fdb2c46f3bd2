//! Window functions. The input rows are collected (the build phase), then each window call is
//! computed over all of them in turn, one call per step of the budget; each call sorts the rows
//! by its partition keys, then its order keys (stably), and the rows come out in the last call's
//! order, each with one value per call appended.

use std::cmp::Ordering;

use crate::error::{code, PgError, PgResult};
use crate::sql::exec::EvalCx;
use crate::sql::plan::{FrameBound, Plan, WinFunc, WindowCall};
use crate::sql::types::Value;

use super::aggregate::{finish, initial, update, Acc};
use super::bounds::{row_bytes, Held};
use super::keys::{cmp_rows, cmp_sort_keys};
use super::{emit, Budget, Operator, Row, Step};

enum Phase {
    Collect,
    /// Computing call `call`; `order` is the row order of the last call computed, `results`
    /// the values of the calls computed so far.
    Compute {
        call: usize,
        order: Vec<usize>,
        results: Vec<Vec<Value>>,
    },
    Emit(std::vec::IntoIter<Row>),
}

pub(super) struct Window {
    input: Box<dyn Operator>,
    rows: Vec<Row>,
    held: Held,
    phase: Phase,
}

impl Window {
    pub fn new(input: Box<dyn Operator>) -> Self {
        Window {
            input,
            rows: Vec::new(),
            held: Held::default(),
            phase: Phase::Collect,
        }
    }
}

impl Operator for Window {
    fn next(&mut self, plan: &Plan, cx: &mut EvalCx, b: &mut Budget) -> PgResult<Step> {
        opened_from!(plan, Window, input, calls);
        loop {
            match &mut self.phase {
                Phase::Collect => match self.input.next(input, cx, b)? {
                    Step::Row(r) => {
                        self.held.add(row_bytes(&r), b.work_mem, "WindowAgg")?;
                        self.rows.push(r);
                    }
                    Step::Done => {
                        self.phase = Phase::Compute {
                            call: 0,
                            order: (0..self.rows.len()).collect(),
                            results: Vec::with_capacity(calls.len()),
                        }
                    }
                    other => return Ok(other),
                },
                Phase::Compute {
                    call,
                    order,
                    results,
                } => {
                    let Some(c) = calls.get(*call) else {
                        // Every call is computed: append the values, put the rows in order.
                        let mut rows = std::mem::take(&mut self.rows);
                        for (i, r) in rows.iter_mut().enumerate() {
                            for res in results.iter_mut() {
                                r.push(std::mem::replace(&mut res[i], Value::Null));
                            }
                        }
                        let mut slots: Vec<Option<Row>> = rows.into_iter().map(Some).collect();
                        let sorted: Vec<Row> = order
                            .iter()
                            .map(|&i| slots[i].take().expect("each row once"))
                            .collect();
                        self.phase = Phase::Emit(sorted.into_iter());
                        continue;
                    };
                    if b.tick() {
                        return Ok(Step::Yield);
                    }
                    results.push(compute_call(c, &self.rows, order, cx)?);
                    *call += 1;
                }
                Phase::Emit(rows) => return Ok(emit(rows, b)),
            }
        }
    }
}

/// The values of one window call for every row (by row index); sorts `order` into the call's
/// window order.
fn compute_call(
    call: &WindowCall,
    rows: &[Row],
    order: &mut Vec<usize>,
    cx: &mut EvalCx,
) -> PgResult<Vec<Value>> {
    let n = rows.len();
    // Partition and order keys of every row.
    let mut pkeys = Vec::with_capacity(n);
    let mut okeys = Vec::with_capacity(n);
    for r in rows {
        let mut p = Vec::with_capacity(call.partition.len());
        for e in &call.partition {
            p.push(e.eval(r, cx)?);
        }
        pkeys.push(p);
        let mut o = Vec::with_capacity(call.order.len());
        for k in &call.order {
            o.push(k.expr.eval(r, cx)?);
        }
        okeys.push(o);
    }
    cx.session.check_interrupts()?;
    if !call.partition.is_empty() || !call.order.is_empty() {
        *order = (0..n).collect();
        order.sort_by(|&a, &b| {
            cmp_rows(&pkeys[a], &pkeys[b])
                .then_with(|| cmp_sort_keys(&okeys[a], &okeys[b], &call.order))
        });
    }
    let mut out = vec![Value::Null; n];
    let mut start = 0;
    while start < n {
        let mut end = start + 1;
        while end < n && cmp_rows(&pkeys[order[start]], &pkeys[order[end]]) == Ordering::Equal {
            end += 1;
        }
        let part = &order[start..end];
        window_partition(call, part, rows, &okeys, &mut out, cx)?;
        start = end;
    }
    Ok(out)
}

/// One partition of a window call: `part` holds row indexes in window order.
fn window_partition(
    call: &WindowCall,
    part: &[usize],
    rows: &[Row],
    okeys: &[Vec<Value>],
    out: &mut [Value],
    cx: &mut EvalCx,
) -> PgResult<()> {
    let len = part.len();
    // Peer groups: rows with equal order keys (all rows when there is no ORDER BY).
    let mut peer_start = vec![0usize; len];
    let mut peer_end = vec![0usize; len];
    let mut groups = 0usize;
    let mut group_of = vec![0usize; len];
    let mut i = 0;
    while i < len {
        let mut j = i + 1;
        while j < len && cmp_rows(&okeys[part[i]], &okeys[part[j]]) == Ordering::Equal {
            j += 1;
        }
        groups += 1;
        for k in i..j {
            peer_start[k] = i;
            peer_end[k] = j - 1;
            group_of[k] = groups;
        }
        i = j;
    }
    let arg = |k: usize, j: usize, cx: &mut EvalCx| -> PgResult<Value> {
        match call.args.get(k) {
            Some(e) => e.eval(&rows[part[j]], cx),
            None => Ok(Value::Null),
        }
    };
    let offset = |b: &FrameBound, cx: &mut EvalCx| -> PgResult<i64> {
        match b {
            FrameBound::Preceding(e) | FrameBound::Following(e) => match e.eval(&[], cx)? {
                Value::Null => Err(PgError::new(
                    code::NULL_VALUE_NOT_ALLOWED,
                    "frame starting offset must not be null",
                )),
                v => {
                    let n = v.as_i64().unwrap_or(0);
                    if n < 0 {
                        Err(PgError::new(
                            "22013",
                            "frame starting offset must not be negative",
                        ))
                    } else {
                        Ok(n)
                    }
                }
            },
            _ => Ok(0),
        }
    };
    let (so, eo) = (offset(&call.frame.start, cx)?, offset(&call.frame.end, cx)?);
    let last = len as i64 - 1;
    // The frame of row j as an inclusive index range (empty when start > end).
    let frame = |j: usize| -> (i64, i64) {
        let j64 = j as i64;
        let s = match call.frame.start {
            FrameBound::UnboundedPreceding => 0,
            FrameBound::CurrentRow if call.frame.rows => j64,
            FrameBound::CurrentRow => peer_start[j] as i64,
            FrameBound::Preceding(_) => j64 - so,
            FrameBound::Following(_) => j64 + so,
            FrameBound::UnboundedFollowing => len as i64,
        };
        let e = match call.frame.end {
            FrameBound::UnboundedFollowing => last,
            FrameBound::CurrentRow if call.frame.rows => j64,
            FrameBound::CurrentRow => peer_end[j] as i64,
            FrameBound::Preceding(_) => j64 - eo,
            FrameBound::Following(_) => j64 + eo,
            FrameBound::UnboundedPreceding => -1,
        };
        (s.max(0), e.min(last))
    };
    match &call.func {
        Ok(f) => {
            for j in 0..len {
                let v = match f {
                    WinFunc::RowNumber => Value::Int8(j as i64 + 1),
                    WinFunc::Rank => Value::Int8(peer_start[j] as i64 + 1),
                    WinFunc::DenseRank => Value::Int8(group_of[j] as i64),
                    WinFunc::PercentRank => Value::Float8(if len > 1 {
                        peer_start[j] as f64 / (len - 1) as f64
                    } else {
                        0.0
                    }),
                    WinFunc::CumeDist => Value::Float8((peer_end[j] + 1) as f64 / len as f64),
                    WinFunc::Ntile => {
                        let buckets = match arg(0, j, cx)? {
                            Value::Null => {
                                out[part[j]] = Value::Null;
                                continue;
                            }
                            v => v.as_i64().unwrap_or(0),
                        };
                        if buckets <= 0 {
                            return Err(PgError::new(
                                "22014",
                                "argument of ntile must be greater than zero",
                            ));
                        }
                        // The first len % buckets buckets get one row more.
                        let (l, b) = (len as i64, buckets);
                        let per = l / b;
                        let extra = l % b;
                        let j = j as i64;
                        let big = extra * (per + 1);
                        Value::Int4(if j < big {
                            j / (per + 1) + 1
                        } else {
                            extra + (j - big) / per.max(1) + 1
                        } as i32)
                    }
                    WinFunc::Lag | WinFunc::Lead => {
                        let off = if call.args.len() > 1 {
                            match arg(1, j, cx)? {
                                Value::Null => {
                                    out[part[j]] = Value::Null;
                                    continue;
                                }
                                v => v.as_i64().unwrap_or(0),
                            }
                        } else {
                            1
                        };
                        let target = if *f == WinFunc::Lag {
                            j as i64 - off
                        } else {
                            j as i64 + off
                        };
                        if target >= 0 && target < len as i64 {
                            arg(0, target as usize, cx)?
                        } else {
                            arg(2, j, cx)?
                        }
                    }
                    WinFunc::FirstValue | WinFunc::LastValue | WinFunc::NthValue => {
                        let (s, e) = frame(j);
                        let pos = match f {
                            WinFunc::FirstValue => s,
                            WinFunc::LastValue => e,
                            _ => match arg(1, j, cx)? {
                                Value::Null => {
                                    out[part[j]] = Value::Null;
                                    continue;
                                }
                                v => {
                                    let n = v.as_i64().unwrap_or(0);
                                    if n <= 0 {
                                        return Err(PgError::new(
                                            "22016",
                                            "argument of nth_value must be greater than zero",
                                        ));
                                    }
                                    s + n - 1
                                }
                            },
                        };
                        if s <= e && pos >= s && pos <= e {
                            arg(0, pos as usize, cx)?
                        } else {
                            Value::Null
                        }
                    }
                };
                out[part[j]] = v;
            }
        }
        Err(a) => {
            // An aggregate over the frame. Frames that start at the partition's start grow
            // monotonically: accumulate once and finish a copy at each row.
            let feed = |acc: &mut Acc, k: usize, cx: &mut EvalCx| -> PgResult<()> {
                let r = &rows[part[k]];
                if let Some(f) = &a.filter {
                    if f.eval(r, cx)? != Value::Bool(true) {
                        return Ok(());
                    }
                }
                let mut args = Vec::with_capacity(a.args.len());
                for e in &a.args {
                    args.push(e.eval(r, cx)?);
                }
                update(acc, a, args, Vec::new(), cx)
            };
            if matches!(call.frame.start, FrameBound::UnboundedPreceding) {
                let mut acc = initial(a);
                let mut fed: i64 = -1;
                for j in 0..len {
                    let (_, e) = frame(j);
                    while fed < e {
                        fed += 1;
                        feed(&mut acc, fed as usize, cx)?;
                    }
                    out[part[j]] = finish(acc.clone(), a, cx)?;
                }
            } else {
                for j in 0..len {
                    let (s, e) = frame(j);
                    let mut acc = initial(a);
                    let mut k = s;
                    while k <= e {
                        feed(&mut acc, k as usize, cx)?;
                        k += 1;
                    }
                    out[part[j]] = finish(acc, a, cx)?;
                }
            }
        }
    }
    cx.session.check_interrupts()
}
