//! The executor: runs a [`Plan`] to completion and returns its rows.
//!
//! Execution is materializing: every node produces all of its rows before its parent runs.
//! Results of the statements threadgres serves today are small (or generated on purpose, like
//! `generate_series`), and a portal that is fetched in pieces (Execute with a row limit) keeps its
//! materialized rows and hands them out in slices. Interrupts (cancel, statement_timeout) are
//! checked once per [`CHECK_EVERY`] rows produced, so a long series or sort stops promptly.
//!
//! Bound: a single node may hold at most [`MAX_ROWS`] rows; beyond that the statement fails with
//! 54000 rather than exhausting memory.

use std::cmp::Ordering;
use std::collections::HashSet;

use crate::error::{code, PgError, PgResult};
use crate::sql::catalog;
use crate::sql::expr::EvalCx;
use crate::sql::plan::{
    AggCall, AggFunc, FrameBound, JoinKind, Node, Plan, SetOpKind, SortKey, Srf, VirtualTable,
    WinFunc, WindowCall,
};
use crate::sql::types::{self, cast, io, Array, Interval, Numeric, Type, Value};

pub type Row = Vec<Value>;

/// How often (in rows) long-running loops look for cancel and timeout requests.
pub const CHECK_EVERY: usize = 1024;

/// Largest number of rows one plan node materializes.
pub const MAX_ROWS: usize = 50_000_000;

fn too_many_rows() -> PgError {
    PgError::new(
        code::PROGRAM_LIMIT_EXCEEDED,
        format!("query result exceeds {MAX_ROWS} rows"),
    )
}

/// A hashable, totally ordered form of a row for DISTINCT, GROUP BY and set operations.
#[derive(Clone)]
struct Key(Vec<Value>);

impl PartialEq for Key {
    fn eq(&self, o: &Self) -> bool {
        cmp_rows(&self.0, &o.0) == Ordering::Equal
    }
}
impl Eq for Key {}
impl std::hash::Hash for Key {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        // Values that compare equal across representations (1::int4 vs 1::int8, 1.0 vs 1.00)
        // must hash equally: hash a normalized text form of numbers.
        for v in &self.0 {
            match v {
                Value::Null => 0u8.hash(h),
                Value::Int2(_) | Value::Int4(_) | Value::Int8(_) => v.as_i64().hash(h),
                Value::Float4(_) | Value::Float8(_) | Value::Numeric(_) => 1u8.hash(h),
                Value::Text(s) => s.hash(h),
                Value::Bool(b) => b.hash(h),
                other => format!("{other:?}").hash(h),
            }
        }
    }
}

fn cmp_nullable(a: &Value, b: &Value) -> Ordering {
    match (a.is_null(), b.is_null()) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Greater,
        (false, true) => Ordering::Less,
        _ => types::compare(a, b),
    }
}

fn cmp_rows(a: &[Value], b: &[Value]) -> Ordering {
    for (x, y) in a.iter().zip(b) {
        let o = cmp_nullable(x, y);
        if o != Ordering::Equal {
            return o;
        }
    }
    a.len().cmp(&b.len())
}

/// Runs a plan as PostgreSQL's pipelined executor would be seen by a client: the rows it would
/// have sent before an error, and the error. Projections, filters, VALUES and LIMIT over them
/// yield rows one at a time in PostgreSQL, so an error at the third row comes after two
/// DataRows (and a LIMIT reached first means no error at all); other nodes produce all their
/// rows before their parent sees any, as here.
pub fn run_plan_streaming(plan: &Plan, cx: &mut EvalCx) -> (Vec<Row>, Option<PgError>) {
    match &plan.node {
        Node::Values(rows) => {
            let mut out = Vec::with_capacity(rows.len());
            for r in rows {
                let mut row = Vec::with_capacity(r.len());
                for e in r {
                    match e.eval(&[], cx) {
                        Ok(v) => row.push(v),
                        Err(err) => return (out, Some(err)),
                    }
                }
                out.push(row);
            }
            (out, None)
        }
        Node::Project { input, exprs } => {
            let (rows, input_err) = run_plan_streaming(input, cx);
            let mut out = Vec::with_capacity(rows.len());
            for (i, r) in rows.iter().enumerate() {
                if i % CHECK_EVERY == CHECK_EVERY - 1 {
                    if let Err(e) = cx.session.check_interrupts() {
                        return (out, Some(e));
                    }
                }
                let mut row = Vec::with_capacity(exprs.len());
                for e in exprs {
                    match e.eval(r, cx) {
                        Ok(v) => row.push(v),
                        Err(err) => return (out, Some(err)),
                    }
                }
                out.push(row);
            }
            (out, input_err)
        }
        Node::Filter { input, pred } => {
            let (rows, input_err) = run_plan_streaming(input, cx);
            let mut out = Vec::new();
            for r in rows {
                match pred.eval(&r, cx) {
                    Ok(Value::Bool(true)) => out.push(r),
                    Ok(_) => {}
                    Err(err) => return (out, Some(err)),
                }
            }
            (out, input_err)
        }
        Node::Limit {
            input,
            offset,
            count,
        } => {
            // The bounds are evaluated (and checked) before any row is fetched.
            let bounds = Plan {
                columns: plan.columns.clone(),
                node: Node::Limit {
                    input: Box::new(Plan {
                        columns: input.columns.clone(),
                        node: Node::Values(Vec::new()),
                    }),
                    offset: offset.clone(),
                    count: count.clone(),
                },
            };
            if let Err(e) = run_plan(&bounds, cx) {
                return (Vec::new(), Some(e));
            }
            let (rows, input_err) = run_plan_streaming(input, cx);
            let n = rows.len();
            // Apply the same bounds to the rows that were produced.
            let (off, cnt) = match limit_bounds(&bounds, cx) {
                Ok(b) => b,
                Err(e) => return (Vec::new(), Some(e)),
            };
            let out: Vec<Row> = rows.into_iter().skip(off).take(cnt).collect();
            // A limit reached before the failing row stops the scan: no error.
            let reached = cnt != usize::MAX && n >= off.saturating_add(cnt);
            (out, if reached { None } else { input_err })
        }
        _ => match run_plan(plan, cx) {
            Ok(rows) => (rows, None),
            Err(e) => (Vec::new(), Some(e)),
        },
    }
}

/// OFFSET and LIMIT of a Limit node (usize::MAX: no limit).
fn limit_bounds(plan: &Plan, cx: &mut EvalCx) -> PgResult<(usize, usize)> {
    let Node::Limit { offset, count, .. } = &plan.node else {
        return Ok((0, usize::MAX));
    };
    let off = match offset {
        Some(e) => match e.eval(&[], cx)? {
            Value::Null => 0,
            v => v.as_i64().unwrap_or(0).max(0) as usize,
        },
        None => 0,
    };
    let cnt = match count {
        Some(e) => match e.eval(&[], cx)? {
            Value::Null => usize::MAX,
            v => v.as_i64().unwrap_or(0).max(0) as usize,
        },
        None => usize::MAX,
    };
    Ok((off, cnt))
}

pub fn run_plan(plan: &Plan, cx: &mut EvalCx) -> PgResult<Vec<Row>> {
    match &plan.node {
        Node::Result => Ok(vec![Vec::new()]),
        Node::SeqScan { .. } | Node::IndexScan { .. } | Node::Modify(_) => Err(
            PgError::feature_not_supported("tables are not supported by this executor"),
        ),
        Node::Values(rows) => {
            let mut out = Vec::with_capacity(rows.len());
            for r in rows {
                let mut row = Vec::with_capacity(r.len());
                for e in r {
                    row.push(e.eval(&[], cx)?);
                }
                out.push(row);
            }
            Ok(out)
        }
        Node::Function {
            srf,
            args,
            arg_types,
            scalar,
            ordinality,
        } => {
            let mut rows = run_srf(*srf, args, arg_types, scalar.as_ref(), &[], cx)?;
            if *ordinality {
                for (i, r) in rows.iter_mut().enumerate() {
                    r.push(Value::Int8(i as i64 + 1));
                }
            }
            Ok(rows)
        }
        Node::Virtual(vt) => Ok(virtual_rows(*vt, cx)),
        Node::ProjectSet { input, srfs } => {
            let rows = run_plan(input, cx)?;
            let mut out = Vec::new();
            for r in rows {
                let mut results = Vec::with_capacity(srfs.len());
                for c in srfs {
                    results.push(run_srf(c.srf, &c.args, &c.arg_types, None, &r, cx)?);
                }
                let n = results.iter().map(Vec::len).max().unwrap_or(0);
                for i in 0..n {
                    let mut row = r.clone();
                    for res in &results {
                        row.push(
                            res.get(i)
                                .and_then(|x| x.first().cloned())
                                .unwrap_or(Value::Null),
                        );
                    }
                    out.push(row);
                }
                if out.len() > MAX_ROWS {
                    return Err(too_many_rows());
                }
            }
            Ok(out)
        }
        Node::Cte(_, p) => run_plan(p, cx),
        Node::RecursiveUnion {
            init,
            step,
            all,
            work,
        } => {
            let mut seen: HashSet<Key> = HashSet::new();
            let mut fresh = run_plan(init, cx)?;
            if !all {
                fresh.retain(|r| seen.insert(Key(r.clone())));
            }
            let mut out = Vec::new();
            while !fresh.is_empty() {
                out.extend(fresh.iter().cloned());
                if out.len() > MAX_ROWS {
                    return Err(too_many_rows());
                }
                *work.lock() = fresh;
                let next = run_plan(step, cx);
                work.lock().clear();
                fresh = next?;
                if !all {
                    fresh.retain(|r| seen.insert(Key(r.clone())));
                }
                cx.session.check_interrupts()?;
            }
            Ok(out)
        }
        Node::WorkTable(work) => Ok(work.lock().clone()),
        Node::Project { input, exprs } => {
            let rows = run_plan(input, cx)?;
            let mut out = Vec::with_capacity(rows.len());
            for (i, r) in rows.iter().enumerate() {
                if i % CHECK_EVERY == CHECK_EVERY - 1 {
                    cx.session.check_interrupts()?;
                }
                let mut row = Vec::with_capacity(exprs.len());
                for e in exprs {
                    row.push(e.eval(r, cx)?);
                }
                out.push(row);
            }
            Ok(out)
        }
        Node::Filter { input, pred } => {
            let rows = run_plan(input, cx)?;
            let mut out = Vec::new();
            for (i, r) in rows.into_iter().enumerate() {
                if i % CHECK_EVERY == CHECK_EVERY - 1 {
                    cx.session.check_interrupts()?;
                }
                if pred.eval(&r, cx)? == Value::Bool(true) {
                    out.push(r);
                }
            }
            Ok(out)
        }
        Node::Join {
            left,
            right,
            kind,
            on,
            lateral,
        } => {
            let l = run_plan(left, cx)?;
            let mut r = if *lateral {
                Vec::new()
            } else {
                run_plan(right, cx)?
            };
            let lw = left.columns.len();
            let rw = right.columns.len();
            let mut out = Vec::new();
            let mut right_matched = vec![false; r.len()];
            for lrow in &l {
                if *lateral {
                    // The right side sees this left row as its innermost outer row.
                    cx.outer.push(lrow.clone());
                    let res = run_plan(right, cx);
                    cx.outer.pop();
                    r = res?;
                }
                let mut matched = false;
                for (ri, rrow) in r.iter().enumerate() {
                    let mut row = Vec::with_capacity(lw + rw);
                    row.extend_from_slice(lrow);
                    row.extend_from_slice(rrow);
                    let ok = match on {
                        None => true,
                        Some(p) => p.eval(&row, cx)? == Value::Bool(true),
                    };
                    if ok {
                        matched = true;
                        if let Some(m) = right_matched.get_mut(ri) {
                            *m = true;
                        }
                        out.push(row);
                        if out.len() > MAX_ROWS {
                            return Err(too_many_rows());
                        }
                    }
                }
                if !matched && matches!(kind, JoinKind::Left | JoinKind::Full) {
                    let mut row = lrow.clone();
                    row.extend(std::iter::repeat_n(Value::Null, rw));
                    out.push(row);
                }
                cx.session.check_interrupts()?;
            }
            if matches!(kind, JoinKind::Right | JoinKind::Full) {
                for (ri, rrow) in r.into_iter().enumerate() {
                    if !right_matched[ri] {
                        let mut row: Row = std::iter::repeat_n(Value::Null, lw).collect();
                        row.extend(rrow);
                        out.push(row);
                    }
                }
            }
            Ok(out)
        }
        Node::Aggregate { input, group, aggs } => {
            let rows = run_plan(input, cx)?;
            aggregate(rows, group, aggs, cx)
        }
        Node::Window { input, calls } => {
            let rows = run_plan(input, cx)?;
            window(rows, calls, cx)
        }
        Node::Sort { input, keys } => {
            let rows = run_plan(input, cx)?;
            sort_rows(rows, keys, cx)
        }
        Node::Distinct { input, on, width } => {
            let rows = run_plan(input, cx)?;
            let mut seen = HashSet::new();
            let mut out = Vec::new();
            for r in rows {
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
                if seen.insert(key) {
                    out.push(r);
                }
            }
            Ok(out)
        }
        Node::Limit {
            input,
            offset,
            count,
        } => {
            let rows = run_plan(input, cx)?;
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
                        n as usize
                    }
                },
                None => 0,
            };
            let cnt = match count {
                Some(e) => match e.eval(&[], cx)? {
                    Value::Null => usize::MAX,
                    v => {
                        let n = v.as_i64().unwrap_or(0);
                        if n < 0 {
                            return Err(PgError::new(
                                code::INVALID_ROW_COUNT_IN_LIMIT_CLAUSE,
                                "LIMIT must not be negative",
                            ));
                        }
                        n as usize
                    }
                },
                None => usize::MAX,
            };
            Ok(rows.into_iter().skip(off).take(cnt).collect())
        }
        Node::SetOp {
            op,
            all,
            left,
            right,
        } => {
            let l = run_plan(left, cx)?;
            let r = run_plan(right, cx)?;
            Ok(set_op(*op, *all, l, r))
        }
    }
}

fn set_op(op: SetOpKind, all: bool, l: Vec<Row>, r: Vec<Row>) -> Vec<Row> {
    use std::collections::HashMap;
    match op {
        SetOpKind::Union => {
            if all {
                let mut out = l;
                out.extend(r);
                out
            } else {
                let mut seen = HashSet::new();
                l.into_iter()
                    .chain(r)
                    .filter(|row| seen.insert(Key(row.clone())))
                    .collect()
            }
        }
        SetOpKind::Intersect | SetOpKind::Except => {
            let mut counts: HashMap<Key, usize> = HashMap::new();
            for row in r {
                *counts.entry(Key(row)).or_default() += 1;
            }
            let mut emitted: HashSet<Key> = HashSet::new();
            let mut out = Vec::new();
            for row in l {
                let key = Key(row.clone());
                let c = counts.get(&key).copied().unwrap_or(0);
                let keep = match (op, all) {
                    (SetOpKind::Intersect, true) => {
                        if c > 0 {
                            counts.insert(key.clone(), c - 1);
                            true
                        } else {
                            false
                        }
                    }
                    (SetOpKind::Intersect, false) => c > 0 && emitted.insert(key),
                    (_, true) => {
                        if c > 0 {
                            counts.insert(key, c - 1);
                            false
                        } else {
                            true
                        }
                    }
                    (_, false) => c == 0 && emitted.insert(key),
                };
                if keep {
                    out.push(row);
                }
            }
            out
        }
    }
}

fn sort_rows(rows: Vec<Row>, keys: &[SortKey], cx: &mut EvalCx) -> PgResult<Vec<Row>> {
    let mut keyed = Vec::with_capacity(rows.len());
    for r in rows {
        let mut k = Vec::with_capacity(keys.len());
        for key in keys {
            k.push(key.expr.eval(&r, cx)?);
        }
        keyed.push((k, r));
    }
    cx.session.check_interrupts()?;
    keyed.sort_by(|(a, _), (b, _)| cmp_sort_keys(a, b, keys));
    Ok(keyed.into_iter().map(|(_, r)| r).collect())
}

/// Running state of one aggregate in one group.
#[derive(Clone)]
enum Acc {
    Count(i64),
    Sum(Option<Value>, i64),
    MinMax(Option<Value>),
    Bool(Option<bool>),
    Collect(Vec<(Vec<Value>, Value, Option<String>)>),
}

fn initial(a: &AggCall) -> Acc {
    match a.func {
        AggFunc::CountStar | AggFunc::Count => Acc::Count(0),
        AggFunc::Sum | AggFunc::Avg => Acc::Sum(None, 0),
        AggFunc::Min | AggFunc::Max => Acc::MinMax(None),
        AggFunc::BoolAnd | AggFunc::BoolOr => Acc::Bool(None),
        AggFunc::ArrayAgg | AggFunc::StringAgg => Acc::Collect(Vec::new()),
    }
}

fn add_values(a: &Value, b: &Value, fmt: &types::FormatCtx) -> PgResult<Value> {
    Ok(match (a, b) {
        (Value::Int8(x), Value::Int8(y)) => Value::Int8(
            x.checked_add(*y)
                .ok_or_else(|| PgError::out_of_range("bigint"))?,
        ),
        (Value::Numeric(x), Value::Numeric(y)) => Value::Numeric(Box::new(x.add(y)?)),
        (Value::Float8(x), Value::Float8(y)) => Value::Float8(x + y),
        (Value::Float4(x), Value::Float4(y)) => Value::Float4(x + y),
        (Value::Interval(x), Value::Interval(y)) => Value::Interval(Interval {
            months: x.months + y.months,
            days: x.days + y.days,
            micros: x.micros + y.micros,
        }),
        _ => {
            let _ = fmt;
            return Err(PgError::internal("unexpected aggregate input"));
        }
    })
}

fn update(
    acc: &mut Acc,
    a: &AggCall,
    args: Vec<Value>,
    order: Vec<Value>,
    fmt: &types::FormatCtx,
) -> PgResult<()> {
    let v = args.first().cloned().unwrap_or(Value::Null);
    match acc {
        Acc::Count(n) => {
            if a.func == AggFunc::CountStar || !v.is_null() {
                *n += 1;
            }
        }
        Acc::Sum(sum, n) => {
            if v.is_null() {
                return Ok(());
            }
            // Widen inputs as PostgreSQL does: int2/int4 sum into int8, int8 into numeric.
            let v = match (a.func, a.arg_type) {
                (AggFunc::Sum, Type::INT2 | Type::INT4) => Value::Int8(v.as_i64().unwrap_or(0)),
                (_, Type::INT2 | Type::INT4 | Type::INT8) => {
                    Value::Numeric(Box::new(Numeric::from_i64(v.as_i64().unwrap_or(0))))
                }
                (AggFunc::Avg, Type::FLOAT4) => match v {
                    Value::Float4(f) => Value::Float8(f as f64),
                    other => other,
                },
                _ => v,
            };
            *sum = Some(match sum.take() {
                None => v,
                Some(s) => add_values(&s, &v, fmt)?,
            });
            *n += 1;
        }
        Acc::MinMax(best) => {
            if v.is_null() {
                return Ok(());
            }
            let replace = match best {
                None => true,
                Some(b) => {
                    let o = types::compare(&v, b);
                    if a.func == AggFunc::Min {
                        o == Ordering::Less
                    } else {
                        o == Ordering::Greater
                    }
                }
            };
            if replace {
                *best = Some(v);
            }
        }
        Acc::Bool(state) => {
            if let Value::Bool(b) = v {
                *state = Some(match (*state, a.func) {
                    (None, _) => b,
                    (Some(s), AggFunc::BoolAnd) => s && b,
                    (Some(s), _) => s || b,
                });
            }
        }
        Acc::Collect(items) => {
            if a.func == AggFunc::StringAgg {
                if v.is_null() {
                    return Ok(());
                }
                let sep = args.get(1).and_then(|s| s.as_str().map(str::to_string));
                items.push((order, v, sep));
            } else {
                items.push((order, v, None));
            }
        }
    }
    Ok(())
}

fn finish(acc: Acc, a: &AggCall, fmt: &types::FormatCtx) -> PgResult<Value> {
    Ok(match acc {
        Acc::Count(n) => Value::Int8(n),
        Acc::Sum(None, _) => Value::Null,
        Acc::Sum(Some(s), n) => {
            if a.func == AggFunc::Sum {
                s
            } else {
                match s {
                    Value::Numeric(sum) => Value::Numeric(Box::new(Numeric::avg_div(&sum, n))),
                    Value::Float8(f) => Value::Float8(f / n as f64),
                    Value::Interval(iv) => {
                        let total = iv.sort_key() / n as i128;
                        let _ = fmt;
                        Value::Interval(Interval {
                            months: 0,
                            days: (total / 86_400_000_000) as i32,
                            micros: (total % 86_400_000_000) as i64,
                        })
                    }
                    other => other,
                }
            }
        }
        Acc::MinMax(v) => v.unwrap_or(Value::Null),
        Acc::Bool(b) => b.map(Value::Bool).unwrap_or(Value::Null),
        Acc::Collect(mut items) => {
            if !a.order.is_empty() {
                items.sort_by(|x, y| {
                    for (i, k) in a.order.iter().enumerate() {
                        let o = cmp_nullable(&x.0[i], &y.0[i]);
                        let o = if k.desc { o.reverse() } else { o };
                        if o != Ordering::Equal {
                            return o;
                        }
                    }
                    Ordering::Equal
                });
            }
            if items.is_empty() {
                return Ok(Value::Null);
            }
            if a.func == AggFunc::StringAgg {
                let mut out = String::new();
                for (i, (_, v, sep)) in items.into_iter().enumerate() {
                    if i > 0 {
                        out.push_str(sep.as_deref().unwrap_or(""));
                    }
                    out.push_str(v.as_str().unwrap_or(""));
                }
                Value::Text(out)
            } else {
                Value::Array(Box::new(Array::one_dim(
                    a.arg_type,
                    items.into_iter().map(|(_, v, _)| v).collect(),
                )))
            }
        }
    })
}

fn aggregate(
    rows: Vec<Row>,
    group: &[crate::sql::expr::Expr],
    aggs: &[AggCall],
    cx: &mut EvalCx,
) -> PgResult<Vec<Row>> {
    use std::collections::HashMap;
    let mut index: HashMap<Key, usize> = HashMap::new();
    // Per group: key values, accumulators, and the values seen by each DISTINCT aggregate.
    type Group = (Vec<Value>, Vec<Acc>, Vec<HashSet<Key>>);
    let mut groups: Vec<Group> = Vec::new();
    if group.is_empty() {
        groups.push((
            Vec::new(),
            aggs.iter().map(initial).collect(),
            vec![HashSet::new(); aggs.len()],
        ));
    }
    for (i, r) in rows.iter().enumerate() {
        if i % CHECK_EVERY == CHECK_EVERY - 1 {
            cx.session.check_interrupts()?;
        }
        let gi = if group.is_empty() {
            0
        } else {
            let mut k = Vec::with_capacity(group.len());
            for g in group {
                k.push(g.eval(r, cx)?);
            }
            let key = Key(k.clone());
            match index.get(&key) {
                Some(&gi) => gi,
                None => {
                    groups.push((
                        k,
                        aggs.iter().map(initial).collect(),
                        vec![HashSet::new(); aggs.len()],
                    ));
                    index.insert(key, groups.len() - 1);
                    groups.len() - 1
                }
            }
        };
        for (ai, a) in aggs.iter().enumerate() {
            if let Some(f) = &a.filter {
                if f.eval(r, cx)? != Value::Bool(true) {
                    continue;
                }
            }
            let mut args = Vec::with_capacity(a.args.len());
            for e in &a.args {
                args.push(e.eval(r, cx)?);
            }
            if a.distinct {
                if args.first().is_some_and(Value::is_null) {
                    continue;
                }
                if !groups[gi].2[ai].insert(Key(args.clone())) {
                    continue;
                }
            }
            let mut order = Vec::with_capacity(a.order.len());
            for k in &a.order {
                order.push(k.expr.eval(r, cx)?);
            }
            let fmt = cx.session.fmt().clone();
            update(&mut groups[gi].1[ai], a, args, order, &fmt)?;
        }
    }
    let fmt = cx.session.fmt().clone();
    let mut out = Vec::with_capacity(groups.len());
    for (keys, accs, _) in groups {
        let mut row = keys;
        for (acc, a) in accs.into_iter().zip(aggs) {
            row.push(finish(acc, a, &fmt)?);
        }
        out.push(row);
    }
    Ok(out)
}

/// Evaluates window calls over `rows`: each row gets one value per call appended. Each call
/// sorts the rows by its partition keys, then its order keys (stably); the rows come out in
/// the last call's order.
fn window(mut rows: Vec<Row>, calls: &[WindowCall], cx: &mut EvalCx) -> PgResult<Vec<Row>> {
    let n = rows.len();
    let mut order: Vec<usize> = (0..n).collect();
    let mut results: Vec<Vec<Value>> = Vec::with_capacity(calls.len());
    for call in calls {
        // Partition and order keys of every row.
        let mut pkeys = Vec::with_capacity(n);
        let mut okeys = Vec::with_capacity(n);
        for r in &rows {
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
            order = (0..n).collect();
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
            window_partition(call, part, &rows, &okeys, &mut out, cx)?;
            start = end;
        }
        results.push(out);
    }
    for (i, r) in rows.iter_mut().enumerate() {
        for res in &mut results {
            r.push(std::mem::replace(&mut res[i], Value::Null));
        }
    }
    let mut slots: Vec<Option<Row>> = rows.into_iter().map(Some).collect();
    Ok(order
        .into_iter()
        .map(|i| slots[i].take().expect("each row once"))
        .collect())
}

fn cmp_sort_keys(a: &[Value], b: &[Value], keys: &[SortKey]) -> Ordering {
    for (i, key) in keys.iter().enumerate() {
        let (x, y) = (&a[i], &b[i]);
        let o = match (x.is_null(), y.is_null()) {
            (true, true) => Ordering::Equal,
            (true, false) if key.nulls_first => Ordering::Less,
            (true, false) => Ordering::Greater,
            (false, true) if key.nulls_first => Ordering::Greater,
            (false, true) => Ordering::Less,
            _ => {
                let o = types::compare(x, y);
                if key.desc {
                    o.reverse()
                } else {
                    o
                }
            }
        };
        if o != Ordering::Equal {
            return o;
        }
    }
    Ordering::Equal
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
    let fmt = cx.session.fmt().clone();
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
                update(acc, a, args, Vec::new(), &fmt)
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
                    out[part[j]] = finish(acc.clone(), a, &fmt)?;
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
                    out[part[j]] = finish(acc, a, &fmt)?;
                }
            }
        }
    }
    cx.session.check_interrupts()
}

fn run_srf(
    srf: Srf,
    args: &[crate::sql::expr::Expr],
    arg_types: &[Type],
    scalar: Option<&crate::sql::expr::Expr>,
    row: &[Value],
    cx: &mut EvalCx,
) -> PgResult<Vec<Row>> {
    let mut vals = Vec::with_capacity(args.len());
    for a in args {
        vals.push(a.eval(row, cx)?);
    }
    if srf != Srf::Scalar && srf != Srf::ListeningChannels && vals.iter().any(Value::is_null) {
        return Ok(Vec::new());
    }
    let mut out = Vec::new();
    match srf {
        Srf::Scalar => {
            let v = scalar.expect("scalar function").eval(&[], cx)?;
            out.push(vec![v]);
        }
        Srf::GenerateSeriesInt => {
            let start = vals[0].as_i64().unwrap_or(0);
            let stop = vals[1].as_i64().unwrap_or(0);
            let step = vals.get(2).and_then(Value::as_i64).unwrap_or(1);
            if step == 0 {
                return Err(PgError::new(
                    code::INVALID_PARAMETER_VALUE,
                    "step size cannot equal zero",
                ));
            }
            let is8 = arg_types.first() == Some(&Type::INT8);
            let mut i = start;
            while (step > 0 && i <= stop) || (step < 0 && i >= stop) {
                out.push(vec![if is8 {
                    Value::Int8(i)
                } else {
                    Value::Int4(i as i32)
                }]);
                if out.len() % CHECK_EVERY == 0 {
                    cx.session.check_interrupts()?;
                    if out.len() > MAX_ROWS {
                        return Err(too_many_rows());
                    }
                }
                match i.checked_add(step) {
                    Some(n) => i = n,
                    None => break,
                }
            }
        }
        Srf::GenerateSeriesNumeric => {
            let fmt = cx.session.fmt().clone();
            let start = cast::cast(vals[0].clone(), Type::NUMERIC, Type::NUMERIC, -1, &fmt)?;
            let (Value::Numeric(mut i), Value::Numeric(stop)) = (start, vals[1].clone()) else {
                return Ok(out);
            };
            let step = match vals.get(2) {
                Some(Value::Numeric(s)) => (**s).clone(),
                _ => Numeric::from_i64(1),
            };
            let zero = Numeric::from_i64(0);
            let dir = step.cmp(&zero);
            if dir == Ordering::Equal {
                return Err(PgError::new(
                    code::INVALID_PARAMETER_VALUE,
                    "step size cannot equal zero",
                ));
            }
            while (dir == Ordering::Greater && i.cmp(&stop) != Ordering::Greater)
                || (dir == Ordering::Less && i.cmp(&stop) != Ordering::Less)
            {
                out.push(vec![Value::Numeric(i.clone())]);
                if out.len() % CHECK_EVERY == 0 {
                    cx.session.check_interrupts()?;
                    if out.len() > MAX_ROWS {
                        return Err(too_many_rows());
                    }
                }
                *i = i.add(&step)?;
            }
        }
        Srf::GenerateSeriesTimestamp => {
            let fmt = cx.session.fmt().clone();
            let ts_t = arg_types[0];
            let add = crate::sql::types::ops::binary_operators("+")
                .iter()
                .find(|o| o.left == ts_t && o.right == Type::INTERVAL)
                .ok_or_else(|| PgError::internal("timestamp + interval missing"))?;
            let Some(step) = vals.get(2).cloned() else {
                return Err(PgError::new(
                    code::UNDEFINED_FUNCTION,
                    "function generate_series(timestamp with time zone, timestamp with time zone) does not exist",
                ));
            };
            if let Value::Interval(iv) = &step {
                if iv.sort_key() == 0 {
                    return Err(PgError::new(
                        code::INVALID_PARAMETER_VALUE,
                        "step size cannot equal zero",
                    ));
                }
            }
            let forward = matches!(&step, Value::Interval(iv) if iv.sort_key() > 0);
            let mut cur = vals[0].clone();
            loop {
                let o = types::compare(&cur, &vals[1]);
                if (forward && o == Ordering::Greater) || (!forward && o == Ordering::Less) {
                    break;
                }
                out.push(vec![cur.clone()]);
                if out.len() % CHECK_EVERY == 0 {
                    cx.session.check_interrupts()?;
                    if out.len() > MAX_ROWS {
                        return Err(too_many_rows());
                    }
                }
                cur = (add.f)(&cur, &step, &fmt)?;
            }
        }
        Srf::Unnest => {
            if let Value::Array(a) = &vals[0] {
                for v in a.items.iter() {
                    out.push(vec![v.clone()]);
                }
            }
        }
        Srf::GenerateSubscripts => {
            if let (Value::Array(a), Some(dim)) = (&vals[0], vals[1].as_i64()) {
                if let Some((len, lower)) = a.dims.get(dim as usize - 1) {
                    for i in *lower..*lower + *len {
                        out.push(vec![Value::Int4(i)]);
                    }
                }
            }
        }
        Srf::ListeningChannels => {
            for c in cx.session.listening_channels() {
                out.push(vec![Value::Text(c)]);
            }
        }
    }
    Ok(out)
}

fn ts_value(v: Option<i64>) -> Value {
    v.map(Value::TimestampTz).unwrap_or(Value::Null)
}

fn text_or_null(s: Option<&str>) -> Value {
    s.map(|s| Value::Text(s.to_string())).unwrap_or(Value::Null)
}

fn virtual_rows(vt: VirtualTable, cx: &mut EvalCx) -> Vec<Row> {
    let inst = cx.session.instance();
    match vt {
        VirtualTable::StatActivity => {
            let dbs = inst.database_names();
            inst.activity_snapshot()
                .into_iter()
                .map(|(pid, a)| {
                    let datid = dbs
                        .iter()
                        .find(|(n, _)| *n == a.datname)
                        .map(|(_, o)| Value::Oid(*o))
                        .unwrap_or(Value::Null);
                    vec![
                        datid,
                        Value::Text(a.datname.clone()),
                        Value::Int4(pid),
                        Value::Null,
                        Value::Oid(10),
                        Value::Text(a.usename.clone()),
                        Value::Text(a.application_name.clone()),
                        a.client_addr
                            .map(|c| Value::Inet(crate::sql::types::network::Inet::from_ip(c.ip())))
                            .unwrap_or(Value::Null),
                        Value::Null,
                        a.client_addr
                            .map(|c| Value::Int4(c.port() as i32))
                            .unwrap_or(Value::Int4(-1)),
                        Value::TimestampTz(a.backend_start),
                        ts_value(a.xact_start),
                        ts_value(a.query_start),
                        ts_value(a.state_change),
                        text_or_null(a.wait_event_type),
                        text_or_null(a.wait_event),
                        Value::Text(a.state.to_string()),
                        Value::Null,
                        Value::Null,
                        Value::Null,
                        Value::Text(a.query.to_string()),
                        Value::Text("client backend".into()),
                    ]
                })
                .collect()
        }
        VirtualTable::StatNotify => {
            let s = inst.notify.stats();
            vec![vec![
                Value::Int8(s.sent as i64),
                Value::Int8(s.delivered as i64),
                Value::Int8(s.commits as i64),
                Value::Int8(s.queue_bytes as i64),
                Value::Int8(s.max_bytes as i64),
                Value::Float8(inst.notify.usage()),
                Value::Int8(s.channels as i64),
            ]]
        }
        VirtualTable::Database => inst
            .database_names()
            .into_iter()
            .map(|(name, oid)| {
                vec![
                    Value::Oid(oid),
                    Value::Text(name.clone()),
                    Value::Oid(10),
                    Value::Int4(6),
                    Value::Text("c".into()),
                    Value::Bool(name.starts_with("template")),
                    Value::Bool(name != "template0"),
                    Value::Int4(-1),
                    // threadgres has no transaction IDs yet: the values of a fresh cluster
                    Value::Oid(716),
                    Value::Oid(1),
                    Value::Oid(1663),
                    Value::Text("C.UTF-8".into()),
                    Value::Text("C.UTF-8".into()),
                    Value::Null,
                    Value::Null,
                    Value::Null,
                ]
            })
            .collect(),
        VirtualTable::Settings => {
            let names = crate::session::settings::all_names();
            let mut rows = Vec::new();
            for (name, desc) in names {
                if let Ok(Some(v)) = cx.session.get_setting(name, true) {
                    rows.push(vec![
                        Value::Text(name.to_string()),
                        Value::Text(v),
                        Value::Null,
                        Value::Text("Client Connection Defaults".into()),
                        Value::Text(desc.to_string()),
                        Value::Null,
                        Value::Text("user".into()),
                        Value::Text("string".into()),
                        Value::Text("default".into()),
                        Value::Null,
                        Value::Null,
                        Value::Null,
                        Value::Null,
                        Value::Null,
                        Value::Null,
                        Value::Null,
                        Value::Bool(false),
                    ]);
                }
            }
            rows
        }
        VirtualTable::Type => catalog::type_rows(),
        VirtualTable::Namespace => catalog::NAMESPACES
            .iter()
            .map(|(oid, name, owner)| {
                vec![
                    Value::Oid(*oid),
                    Value::Text(name.to_string()),
                    Value::Oid(*owner),
                    Value::Null,
                ]
            })
            .collect(),
        VirtualTable::Empty(_) => Vec::new(),
    }
}

/// Text of a value for COPY and the like.
pub fn text_value(v: &Value, ty: Type, cx: &EvalCx) -> Option<String> {
    if v.is_null() {
        None
    } else {
        Some(io::to_text(v, ty, cx.session.fmt()))
    }
}
