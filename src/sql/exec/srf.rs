//! Set-returning functions, generated one value per pull: in FROM (`Function`) and in the select
//! list (`ProjectSet`). A series is never materialized, so `generate_series(1, 1000000000)`
//! under a LIMIT costs only the rows taken.

use std::cmp::Ordering;

use crate::error::{code, PgError, PgResult};
use crate::sql::exec::EvalCx;
use crate::sql::plan::Expr;
use crate::sql::plan::{ListFn, Plan, Srf};
use crate::sql::types::ops::BinFn;
use crate::sql::types::{self, cast, FormatCtx, Numeric, Type, Value};

use super::{Budget, Operator, Row, Step};

mod list;

/// The values still to come from one call of a set-returning function.
pub(super) enum Series {
    Int {
        next: i64,
        stop: i64,
        step: i64,
        int8: bool,
        done: bool,
    },
    Numeric {
        next: Box<Numeric>,
        stop: Box<Numeric>,
        step: Numeric,
        up: bool,
    },
    Timestamp {
        next: Value,
        stop: Value,
        step: Value,
        forward: bool,
        add: BinFn,
    },
    Subscripts {
        next: i32,
        end: i32,
    },
    Items(std::vec::IntoIter<Value>),
    /// Whole rows (aclexplode's records).
    Rows(std::vec::IntoIter<Vec<Value>>),
    /// A user function's rows: whole in FROM; in the select list its one column, or the row
    /// as a record when it has several (`composite`).
    User {
        rows: std::vec::IntoIter<Vec<Value>>,
        composite: bool,
    },
}

impl Series {
    fn empty() -> Series {
        Series::Items(Vec::new().into_iter())
    }

    /// Evaluates the arguments (against `row`) and checks them, as the function's first call
    /// does in PostgreSQL; `scalar` is the call of [`Srf::Scalar`].
    pub fn start(
        srf: Srf,
        args: &[Expr],
        arg_types: &[Type],
        scalar: Option<&Expr>,
        row: &[Value],
        cx: &mut EvalCx,
    ) -> PgResult<Series> {
        if srf == Srf::User {
            return start_user(args, arg_types, row, cx);
        }
        let mut vals = Vec::with_capacity(args.len());
        for a in args {
            vals.push(a.eval(row, cx)?);
        }
        if srf != Srf::Scalar && srf != Srf::ListeningChannels && vals.iter().any(Value::is_null) {
            return Ok(Series::empty());
        }
        let zero_step =
            || PgError::new(code::INVALID_PARAMETER_VALUE, "step size cannot equal zero");
        Ok(match srf {
            Srf::List(f) => Series::Items(list::rows(f, &vals, cx.session.fmt())?.into_iter()),
            Srf::Scalar => {
                let v = scalar.expect("scalar function").eval(&[], cx)?;
                Series::Items(vec![v].into_iter())
            }
            Srf::GenerateSeriesInt => {
                let start = vals[0].as_i64().unwrap_or(0);
                let stop = vals[1].as_i64().unwrap_or(0);
                let step = vals.get(2).and_then(Value::as_i64).unwrap_or(1);
                if step == 0 {
                    return Err(zero_step());
                }
                Series::Int {
                    next: start,
                    stop,
                    step,
                    int8: arg_types.first() == Some(&Type::INT8),
                    done: false,
                }
            }
            Srf::GenerateSeriesNumeric => {
                let start = cast::cast(
                    vals[0].clone(),
                    Type::NUMERIC,
                    Type::NUMERIC,
                    -1,
                    cx.session.fmt(),
                )?;
                let (Value::Numeric(next), Value::Numeric(stop)) = (start, vals[1].clone()) else {
                    return Ok(Series::empty());
                };
                let step = match vals.get(2) {
                    Some(Value::Numeric(s)) => (**s).clone(),
                    _ => Numeric::from_i64(1),
                };
                // PostgreSQL's checks, in its order: a series that would never end is refused.
                for (what, v) in [
                    ("start value", &*next),
                    ("stop value", &*stop),
                    ("step size", &step),
                ] {
                    let bad = if v.is_nan() {
                        "NaN"
                    } else if v.is_infinite() {
                        "infinity"
                    } else {
                        continue;
                    };
                    return Err(PgError::new(
                        code::INVALID_PARAMETER_VALUE,
                        format!("{what} cannot be {bad}"),
                    ));
                }
                let up = match step.cmp(&Numeric::from_i64(0)) {
                    Ordering::Equal => return Err(zero_step()),
                    o => o == Ordering::Greater,
                };
                Series::Numeric {
                    next,
                    stop,
                    step,
                    up,
                }
            }
            Srf::GenerateSeriesTimestamp => {
                let ts_t = arg_types[0];
                let add = types::ops::binary_operators("+")
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
                        return Err(zero_step());
                    }
                }
                let forward = matches!(&step, Value::Interval(iv) if iv.sort_key() > 0);
                let mut vals = vals.into_iter();
                Series::Timestamp {
                    next: vals.next().unwrap_or(Value::Null),
                    stop: vals.next().unwrap_or(Value::Null),
                    step,
                    forward,
                    add: add.f,
                }
            }
            Srf::Unnest => match vals.into_iter().next() {
                Some(Value::Array(a)) => Series::Items(a.items.into_iter()),
                Some(Value::Multirange(m)) => Series::Items(
                    m.ranges
                        .into_iter()
                        .map(|r| Value::Range(Box::new(r)))
                        .collect::<Vec<_>>()
                        .into_iter(),
                ),
                _ => Series::empty(),
            },
            Srf::GenerateSubscripts => match (&vals[0], vals[1].as_i64()) {
                (Value::Array(a), Some(dim)) => {
                    match usize::try_from(dim - 1).ok().and_then(|d| a.dims.get(d)) {
                        Some(&(len, lower)) => Series::Subscripts {
                            next: lower,
                            end: lower + len,
                        },
                        None => Series::empty(),
                    }
                }
                _ => Series::empty(),
            },
            Srf::PartitionAncestors => {
                // The relation itself, then its ancestors, nearest first; nothing for a
                // table that is neither a partition nor partitioned.
                let oid = regclass_arg(cx, &vals)?;
                let rel = match oid {
                    Some(o) => crate::sql::context::database_relation(cx.session, o)?,
                    None => None,
                };
                let mut items = Vec::new();
                if let Some(r) =
                    rel.filter(|r| r.partition_of().is_some() || r.partition_key().is_some())
                {
                    let show = |cx: &mut EvalCx, o| {
                        crate::sql::func::system::catalog::regclass_of_oid(
                            cx.session,
                            &[Value::Oid(o)],
                        )
                    };
                    items.push(show(cx, r.oid));
                    for a in crate::sql::partition::ancestors(cx.session, &r)? {
                        items.push(show(cx, a.oid));
                    }
                }
                Series::Items(items.into_iter())
            }
            Srf::User => Series::empty(),
            Srf::PartitionTree => {
                let oid = regclass_arg(cx, &vals)?;
                Series::Rows(super::partition_route::tree_rows(cx.session, oid)?.into_iter())
            }
            Srf::Control(f) => Series::Rows(
                vec![crate::sql::func::system::control::row(f, cx.session)?].into_iter(),
            ),
            Srf::AclExplode => {
                let rows = crate::sql::func::system::privs::explode(cx.session, &vals[0])?;
                Series::Rows(rows.into_iter())
            }
            Srf::ListeningChannels => {
                let channels: Vec<Value> = cx
                    .session
                    .listening_channels()
                    .into_iter()
                    .map(Value::Text)
                    .collect();
                Series::Items(channels.into_iter())
            }
        })
    }

    /// The next value, or None at the end (and at every call after it). The value after the
    /// one returned is computed first, as PostgreSQL does, so an overflow there fails this call.
    pub fn next(&mut self, fmt: &FormatCtx) -> PgResult<Option<Value>> {
        Ok(match self {
            Series::Int {
                next,
                stop,
                step,
                int8,
                done,
            } => {
                let i = *next;
                if *done || (*step > 0 && i > *stop) || (*step < 0 && i < *stop) {
                    *done = true;
                    return Ok(None);
                }
                match i.checked_add(*step) {
                    Some(n) => *next = n,
                    None => *done = true,
                }
                Some(if *int8 {
                    Value::Int8(i)
                } else {
                    Value::Int4(i as i32)
                })
            }
            Series::Numeric {
                next,
                stop,
                step,
                up,
            } => {
                let o = (**next).cmp(&**stop);
                if (*up && o == Ordering::Greater) || (!*up && o == Ordering::Less) {
                    return Ok(None);
                }
                let following = Box::new(next.add(step)?);
                Some(Value::Numeric(std::mem::replace(next, following)))
            }
            Series::Timestamp {
                next,
                stop,
                step,
                forward,
                add,
            } => {
                let o = types::compare(next, stop);
                if (*forward && o == Ordering::Greater) || (!*forward && o == Ordering::Less) {
                    return Ok(None);
                }
                let following = add(next, step, fmt)?;
                Some(std::mem::replace(next, following))
            }
            Series::Subscripts { next, end } => {
                if *next >= *end {
                    return Ok(None);
                }
                *next += 1;
                Some(Value::Int4(*next - 1))
            }
            Series::Items(items) => items.next(),
            Series::Rows(rows) => rows.next().and_then(|r| r.into_iter().next()),
            Series::User { rows, composite } => rows.next().map(|r| {
                if *composite {
                    Value::Record(r)
                } else {
                    r.into_iter().next().unwrap_or(Value::Null)
                }
            }),
        })
    }
}

/// The rows of a user function's call (`Srf::User`: the call is `args[0]`, the result's
/// column types `cols`), evaluated against `row`.
fn start_user(args: &[Expr], cols: &[Type], row: &[Value], cx: &mut EvalCx) -> PgResult<Series> {
    let Some(Expr::UserCall(call)) = args.first() else {
        return Err(PgError::internal("a user function scan without its call"));
    };
    let mut vals = Vec::with_capacity(call.args.len());
    for a in &call.args {
        vals.push(a.eval(row, cx)?);
    }
    let rows = if call.strict && vals.iter().any(Value::is_null) {
        // A strict function called with a NULL: no rows from a set, one NULL otherwise.
        if call.returns_set {
            Vec::new()
        } else {
            vec![vec![Value::Null; cols.len()]]
        }
    } else {
        super::user_func::call_rows(call, &vals, cols, cx)?
    };
    Ok(Series::User {
        rows: rows.into_iter(),
        composite: cols.len() > 1,
    })
}

/// A set-returning function in FROM, WITH ORDINALITY adding the row number.
#[derive(Default)]
pub(super) struct Function {
    series: Option<Series>,
    ordinal: i64,
}

impl Operator for Function {
    fn next(&mut self, plan: &Plan, cx: &mut EvalCx, b: &mut Budget) -> PgResult<Step> {
        opened_from!(plan, Function, srf, args, arg_types, scalar, ordinality);
        if b.tick() {
            return Ok(Step::Yield);
        }
        let series = match &mut self.series {
            Some(s) => s,
            None => self.series.insert(Series::start(
                *srf,
                args,
                arg_types,
                scalar.as_ref(),
                &[],
                cx,
            )?),
        };
        let row = match series {
            Series::Rows(rows) | Series::User { rows, .. } => rows.next(),
            s => s.next(cx.session.fmt())?.map(|v| vec![v]),
        };
        let Some(mut row) = row else {
            return Ok(Step::Done);
        };
        // A function of several OUT parameters yields a record: one column per field.
        if let (Srf::List(ListFn::Each { .. } | ListFn::OptionsToTable), [Value::Record(_)]) =
            (srf, row.as_slice())
        {
            if let Some(Value::Record(fields)) = row.pop() {
                row = fields;
            }
        }
        if *ordinality {
            self.ordinal += 1;
            row.push(Value::Int8(self.ordinal));
        }
        Ok(Step::Row(row))
    }
}

/// Set-returning functions in the select list: each input row yields as many rows as its
/// longest function result, the input columns repeated, shorter results padded with NULL.
pub(super) struct ProjectSet {
    input: Box<dyn Operator>,
    /// The input row being expanded, and its functions' series.
    current: Option<Row>,
    series: Vec<Series>,
}

impl ProjectSet {
    pub fn new(input: Box<dyn Operator>) -> Self {
        ProjectSet {
            input,
            current: None,
            series: Vec::new(),
        }
    }
}

impl Operator for ProjectSet {
    fn next(&mut self, plan: &Plan, cx: &mut EvalCx, b: &mut Budget) -> PgResult<Step> {
        opened_from!(plan, ProjectSet, input, srfs);
        loop {
            if let Some(r) = &self.current {
                if b.tick() {
                    return Ok(Step::Yield);
                }
                let mut row = Vec::with_capacity(r.len() + self.series.len());
                row.extend_from_slice(r);
                let mut any = false;
                for s in &mut self.series {
                    match s.next(cx.session.fmt())? {
                        Some(v) => {
                            any = true;
                            row.push(v);
                        }
                        None => row.push(Value::Null),
                    }
                }
                if any {
                    return Ok(Step::Row(row));
                }
                self.current = None;
            }
            match self.input.next(input, cx, b)? {
                Step::Row(r) => {
                    // Every function starts (and checks its arguments) before the first row.
                    self.series.clear();
                    for c in srfs {
                        self.series.push(Series::start(
                            c.srf,
                            &c.args,
                            &c.arg_types,
                            None,
                            &r,
                            cx,
                        )?);
                    }
                    self.current = Some(r);
                }
                other => return Ok(other),
            }
        }
    }
}

/// The OID of a function's regclass argument (a user relation's regclass is held by name).
fn regclass_arg(cx: &mut EvalCx, vals: &[Value]) -> PgResult<Option<u32>> {
    let v =
        crate::sql::func::system::catalog::oid_of_regclass(cx.session, &vals[..vals.len().min(1)])?;
    Ok(match v {
        Value::Oid(o) => Some(o),
        v => v.as_i64().map(|o| o as u32),
    })
}
