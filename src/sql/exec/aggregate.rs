//! GROUP BY and aggregates: the input is read into groups (the build phase, which yields like
//! any other pull), then each group is finished and returned as it is pulled.

use std::cmp::Ordering;
use std::collections::{HashMap, HashSet};

use crate::error::{PgError, PgResult};
use crate::sql::exec::EvalCx;
use crate::sql::plan::{AggCall, AggFunc, Plan};
use crate::sql::types::{self, Array, Interval, Numeric, Type, Value};

use super::bounds::{row_bytes, values_bytes, Held};
use super::keys::Key;
use super::{Budget, Operator, Row, Step};

mod extra;
mod user;

/// Running state of one aggregate in one group.
#[derive(Clone)]
pub(super) enum Acc {
    Count(i64),
    Sum(Option<Value>, i64),
    MinMax(Option<Value>),
    Bool(Option<bool>),
    Collect(Vec<(Vec<Value>, Value, Option<String>)>),
    /// The aggregates of `extra.rs`.
    Extra(Box<extra::State>),
    /// A user aggregate (`user.rs`).
    User(Box<user::UserState>),
}

pub(super) fn initial(a: &AggCall) -> Acc {
    if a.func == AggFunc::User {
        return Acc::User(Box::default());
    }
    if let Some(s) = extra::initial(a) {
        return Acc::Extra(Box::new(s));
    }
    match a.func {
        AggFunc::CountStar | AggFunc::Count => Acc::Count(0),
        AggFunc::Sum | AggFunc::Avg => Acc::Sum(None, 0),
        AggFunc::Min | AggFunc::Max | AggFunc::Dependent => Acc::MinMax(None),
        AggFunc::BoolAnd | AggFunc::BoolOr => Acc::Bool(None),
        AggFunc::ArrayAgg | AggFunc::StringAgg => Acc::Collect(Vec::new()),
        // Every other aggregate has its state in extra.rs.
        _ => Acc::Count(0),
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

/// Adds one input row (its arguments and ORDER BY keys) to an aggregate's state: the one
/// entry for the Aggregate and Window nodes, whatever the aggregate.
pub(super) fn update(
    acc: &mut Acc,
    a: &AggCall,
    args: Vec<Value>,
    order: Vec<Value>,
    cx: &mut EvalCx,
) -> PgResult<()> {
    match acc {
        Acc::User(s) => user::update(s, a, args, order, cx),
        acc => update_builtin(acc, a, args, order, cx.session.fmt()),
    }
}

/// An aggregate's value from its state (the Aggregate and Window nodes' one entry).
pub(super) fn finish(acc: Acc, a: &AggCall, cx: &mut EvalCx) -> PgResult<Value> {
    match acc {
        Acc::User(s) => user::finish(*s, a, cx),
        acc => finish_builtin(acc, a, cx.session.fmt()),
    }
}

fn update_builtin(
    acc: &mut Acc,
    a: &AggCall,
    args: Vec<Value>,
    order: Vec<Value>,
    fmt: &types::FormatCtx,
) -> PgResult<()> {
    if let Acc::Extra(s) = acc {
        return extra::update(s, a, args, order, fmt);
    }
    let mut args = args.into_iter();
    let v = args.next().unwrap_or(Value::Null);
    match acc {
        Acc::Extra(_) => {}
        Acc::User(_) => return Err(PgError::internal("a user aggregate's state")),
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
                // The same value in every row of the group: the first is kept.
                Some(_) if a.func == AggFunc::Dependent => false,
                // A value equal to the best so far replaces it, as PostgreSQL's transition
                // functions (text_smaller, numeric_larger, citext_smaller ...) return their
                // second argument unless the first is strictly smaller (larger): min('a',
                // 'A') over citext is the later one, max(1.0, 1.00) is 1.00.
                Some(b) => {
                    let o = types::compare(&v, b);
                    if a.func == AggFunc::Min {
                        o != Ordering::Greater
                    } else {
                        o != Ordering::Less
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
                let sep = args.next().and_then(|s| s.as_str().map(str::to_string));
                items.push((order, v, sep));
            } else {
                items.push((order, v, None));
            }
        }
    }
    Ok(())
}

fn finish_builtin(acc: Acc, a: &AggCall, fmt: &types::FormatCtx) -> PgResult<Value> {
    Ok(match acc {
        Acc::Extra(s) => extra::finish(*s, a, fmt)?,
        Acc::User(_) => return Err(PgError::internal("a user aggregate's state")),
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
                        let o = extra::sort_cmp(&x.0[i], &y.0[i], k.desc, k.nulls_first);
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

/// One group: its key values, an accumulator per aggregate, and the argument values each
/// DISTINCT aggregate has seen.
type Group = (Vec<Value>, Vec<Acc>, Vec<HashSet<Key>>);

pub(super) struct Aggregate {
    input: Box<dyn Operator>,
    /// Groups in the order their first row came (the order they are returned in).
    groups: Vec<Group>,
    index: HashMap<Key, usize>,
    held: Held,
    /// Set when the input is done: the groups still to return.
    out: Option<std::vec::IntoIter<Group>>,
    started: bool,
}

impl Aggregate {
    pub fn new(input: Box<dyn Operator>) -> Self {
        Aggregate {
            input,
            groups: Vec::new(),
            index: HashMap::new(),
            held: Held::default(),
            out: None,
            started: false,
        }
    }

    fn new_group(&mut self, key: Vec<Value>, aggs: &[AggCall], b: &Budget) -> PgResult<usize> {
        self.held.add(
            row_bytes(&key) + aggs.len() * std::mem::size_of::<(Acc, HashSet<Key>)>(),
            b.work_mem,
            "HashAggregate",
        )?;
        self.groups.push((
            key,
            aggs.iter().map(initial).collect(),
            vec![HashSet::new(); aggs.len()],
        ));
        Ok(self.groups.len() - 1)
    }

    /// Adds one input row to its group.
    fn add(
        &mut self,
        r: &Row,
        group: &[crate::sql::plan::Expr],
        aggs: &[AggCall],
        cx: &mut EvalCx,
        b: &Budget,
    ) -> PgResult<()> {
        let gi = if group.is_empty() {
            0
        } else {
            let mut k = Vec::with_capacity(group.len());
            for g in group {
                k.push(g.eval(r, cx)?);
            }
            let key = Key(k);
            match self.index.get(&key) {
                Some(&gi) => gi,
                None => {
                    let gi = self.new_group(key.0.clone(), aggs, b)?;
                    self.index.insert(key, gi);
                    gi
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
                // A NULL is one more distinct value: array_agg(DISTINCT x) keeps one, and the
                // strict aggregates skip it themselves.
                let key = Key(args.clone());
                if self.groups[gi].2[ai].contains(&key) {
                    continue;
                }
                self.held
                    .add(row_bytes(&key.0), b.work_mem, "HashAggregate")?;
                self.groups[gi].2[ai].insert(key);
            }
            let mut order = Vec::with_capacity(a.order.len());
            for k in &a.order {
                order.push(k.expr.eval(r, cx)?);
            }
            let buffered = a.func == AggFunc::User && !a.order.is_empty();
            if matches!(a.func, AggFunc::ArrayAgg | AggFunc::StringAgg)
                || extra::collects(a)
                || buffered
            {
                self.held.add(
                    values_bytes(&args) + values_bytes(&order) + 64,
                    b.work_mem,
                    "HashAggregate",
                )?;
            }
            update(&mut self.groups[gi].1[ai], a, args, order, cx)?;
        }
        Ok(())
    }
}

impl Operator for Aggregate {
    fn next(&mut self, plan: &Plan, cx: &mut EvalCx, b: &mut Budget) -> PgResult<Step> {
        opened_from!(plan, Aggregate, input, group, aggs, empty_sets);
        if !self.started {
            self.started = true;
            // Without GROUP BY there is one group even when there are no rows.
            if group.is_empty() {
                self.new_group(Vec::new(), aggs, b)?;
            }
        }
        while self.out.is_none() {
            match self.input.next(input, cx, b)? {
                Step::Row(r) => self.add(&r, group, aggs, cx, b)?,
                Step::Done => {
                    if self.groups.is_empty() {
                        // No input rows: the empty grouping sets still give their row.
                        for key in empty_sets {
                            self.new_group(key.clone(), aggs, b)?;
                        }
                    }
                    self.index = HashMap::new();
                    self.out = Some(std::mem::take(&mut self.groups).into_iter());
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
        let (keys, accs, _) = out.next().expect("not empty");
        let mut row = keys;
        for (acc, a) in accs.into_iter().zip(aggs) {
            row.push(finish(acc, a, cx)?);
        }
        Ok(Step::Row(row))
    }
}
