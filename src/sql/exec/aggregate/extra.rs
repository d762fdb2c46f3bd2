//! Accumulators of the aggregates that `plan/aggregates.rs` adds: JSON building, the spread
//! statistics (numeric and float8), bitwise aggregates, the two-argument regression
//! statistics and the ordered-set aggregates. Each follows its PostgreSQL 15 transition and
//! final function, so results carry the same digits and the same NULL cases.
//!
//! Memory: JSON text and the ordered-set values grow with the group's rows; the Aggregate
//! node counts them against work_mem like array_agg (`collects`). The others are fixed size.

use std::cmp::Ordering;

use crate::error::{code, PgError, PgResult};
use crate::sql::plan::Expr;
use crate::sql::plan::{AggCall, AggFunc, Regr, Spread};
use crate::sql::types::{self, json, Array, FormatCtx, Numeric, Type, Value};

#[derive(Clone)]
pub(crate) enum State {
    /// JSON text so far (without the closing bracket) and the number of items in it.
    Json(String, usize),
    /// N, sum(X), sum(X*X) in exact numeric, and whether a NaN or infinity was seen.
    NumSpread(i64, Numeric, Numeric, bool),
    /// PostgreSQL's float8_accum state: N, Sx, Sxx (Youngs-Cramer).
    FloatSpread([f64; 3]),
    Bits(Option<i64>),
    /// float8_regr_accum's state: N, Sx, Sxx, Sy, Syy, Sxy.
    Regr([f64; 6]),
    /// The non-null WITHIN GROUP values and the last fraction seen.
    Sorted(Vec<Value>, Option<Value>),
    /// range_agg: the ranges seen (a multirange's each; its empty one as an empty range) and
    /// whether any non-null value came.
    Ranges(Vec<types::Range>, bool),
    /// range_intersect_agg: the intersection so far (None before the first non-null value).
    Intersect(Option<Value>),
    /// An aggregate with ORDER BY (`json_agg(x ORDER BY y)`): each row's ORDER BY values and
    /// arguments, fed to the aggregate's own state in that order at the end.
    Buffered(Vec<(Vec<Value>, Vec<Value>)>),
}

/// Whether `a`'s state grows with its input (counted against work_mem by the caller).
pub(crate) fn collects(a: &AggCall) -> bool {
    // Any of them buffers its rows under ORDER BY.
    !a.order.is_empty()
        || matches!(
            a.func,
            AggFunc::JsonAgg(..)
                | AggFunc::JsonObjectAgg(..)
                | AggFunc::PercentileCont(_)
                | AggFunc::PercentileDisc(_)
                | AggFunc::Mode
                | AggFunc::RangeAgg
        )
}

/// The initial state of one of this file's aggregates; None for the others.
pub(crate) fn initial(a: &AggCall) -> Option<State> {
    if !a.order.is_empty() && !a.func.is_ordered_set() && plain_initial(a).is_some() {
        return Some(State::Buffered(Vec::new()));
    }
    plain_initial(a)
}

fn plain_initial(a: &AggCall) -> Option<State> {
    Some(match a.func {
        AggFunc::JsonAgg(..) | AggFunc::JsonObjectAgg(..) => State::Json(String::new(), 0),
        AggFunc::Spread(_) if a.result == Type::NUMERIC => {
            State::NumSpread(0, Numeric::zero(), Numeric::zero(), false)
        }
        AggFunc::Spread(_) => State::FloatSpread([0.0; 3]),
        AggFunc::BitAnd | AggFunc::BitOr | AggFunc::BitXor => State::Bits(None),
        AggFunc::Regr(_) => State::Regr([0.0; 6]),
        AggFunc::PercentileCont(_) | AggFunc::PercentileDisc(_) | AggFunc::Mode => {
            State::Sorted(Vec::new(), None)
        }
        AggFunc::RangeAgg => State::Ranges(Vec::new(), false),
        AggFunc::RangeIntersectAgg => State::Intersect(None),
        _ => return None,
    })
}

fn float_overflow() -> PgError {
    PgError::new(
        code::NUMERIC_VALUE_OUT_OF_RANGE,
        "value out of range: overflow",
    )
}

fn as_f64(v: &Value) -> f64 {
    match v {
        Value::Float8(f) => *f,
        Value::Float4(f) => *f as f64,
        Value::Numeric(n) => n.to_f64(),
        other => other.as_i64().unwrap_or(0) as f64,
    }
}

/// JSON's value categories that json_agg separates with a line break.
fn structured(t: Type) -> bool {
    t.is_array() || t == Type::RECORD
}

pub(crate) fn update(
    st: &mut State,
    a: &AggCall,
    args: Vec<Value>,
    order: Vec<Value>,
    fmt: &FormatCtx,
) -> PgResult<()> {
    let v = args.first().cloned().unwrap_or(Value::Null);
    match st {
        State::Json(out, n) => match a.func {
            AggFunc::JsonAgg(jb, whole_row) => {
                // json_agg_transfn: ", " between items, and a line break before arrays and
                // records after the first.
                if *n > 0 {
                    out.push_str(", ");
                    if !jb && !v.is_null() && (whole_row || structured(a.arg_type)) {
                        out.push_str("\n ");
                    }
                }
                json::value_to_json(&v, a.arg_type, fmt, jb, out);
                *n += 1;
            }
            AggFunc::JsonObjectAgg(jb, val_type) => {
                if v.is_null() {
                    return Err(PgError::new(
                        code::INVALID_PARAMETER_VALUE,
                        "field name must not be null",
                    ));
                }
                let k = a.arg_type;
                if structured(k) || k == Type::JSON || k == Type::JSONB {
                    return Err(PgError::new(
                        code::INVALID_PARAMETER_VALUE,
                        "key value must be scalar, not array, composite, or json",
                    ));
                }
                if *n > 0 {
                    out.push_str(", ");
                }
                // Keys are always JSON strings.
                let mut key = String::new();
                json::value_to_json(&v, k, fmt, jb, &mut key);
                if key.starts_with('"') {
                    out.push_str(&key);
                } else {
                    json::write_string(&key, out);
                }
                out.push_str(if jb { ": " } else { " : " });
                let val = args.get(1).cloned().unwrap_or(Value::Null);
                json::value_to_json(&val, val_type, fmt, jb, out);
                *n += 1;
            }
            _ => {}
        },
        State::NumSpread(n, sum, sum2, special) => {
            let x = match &v {
                Value::Null => return Ok(()),
                Value::Numeric(x) => (**x).clone(),
                other => Numeric::from_i64(other.as_i64().unwrap_or(0)),
            };
            *n += 1;
            if !x.is_finite() {
                *special = true;
                return Ok(());
            }
            *sum = sum.add(&x)?;
            *sum2 = sum2.add(&x.mul(&x)?)?;
        }
        State::FloatSpread(t) => {
            if v.is_null() {
                return Ok(());
            }
            // float8_accum.
            let x = as_f64(&v);
            let (n0, sx0) = (t[0], t[1]);
            let n = n0 + 1.0;
            let sx = sx0 + x;
            let mut sxx = t[2];
            if n0 > 0.0 {
                let tmp = x * n - sx;
                sxx += tmp * tmp / (n * n0);
                if sx.is_infinite() || sxx.is_infinite() {
                    if !sx0.is_infinite() && !x.is_infinite() {
                        return Err(float_overflow());
                    }
                    sxx = f64::NAN;
                }
            } else if !x.is_finite() {
                sxx = f64::NAN;
            }
            *t = [n, sx, sxx];
        }
        State::Bits(acc) => {
            let Some(x) = v.as_i64() else {
                return Ok(());
            };
            *acc = Some(match (*acc, a.func) {
                (None, _) => x,
                (Some(s), AggFunc::BitAnd) => s & x,
                (Some(s), AggFunc::BitOr) => s | x,
                (Some(s), _) => s ^ x,
            });
        }
        State::Regr(t) => {
            let y = v;
            let x = args.get(1).cloned().unwrap_or(Value::Null);
            if y.is_null() || x.is_null() {
                return Ok(());
            }
            regr_accum(t, as_f64(&y), as_f64(&x))?;
        }
        State::Buffered(rows) => rows.push((order, args)),
        State::Ranges(rs, seen) => match v {
            Value::Range(r) => {
                rs.push(*r);
                *seen = true;
            }
            Value::Multirange(m) => {
                rs.extend(m.ranges);
                *seen = true;
            }
            _ => {}
        },
        State::Intersect(acc) => {
            if v.is_null() {
                return Ok(());
            }
            *acc = Some(match acc.take() {
                None => v,
                Some(Value::Range(x)) => match &v {
                    Value::Range(y) => Value::Range(Box::new(types::range::intersect(&x, y)?)),
                    _ => return Err(PgError::internal("range_intersect_agg over mixed values")),
                },
                Some(Value::Multirange(x)) => match &v {
                    Value::Multirange(y) => Value::Multirange(Box::new(
                        types::multirange::intersect(&x.ranges, &y.ranges)?,
                    )),
                    _ => return Err(PgError::internal("range_intersect_agg over mixed values")),
                },
                Some(other) => other,
            });
        }
        State::Sorted(vals, frac) => {
            *frac = Some(v);
            if let Some(k) = order.into_iter().next() {
                if !k.is_null() {
                    vals.push(k);
                }
            }
        }
    }
    Ok(())
}

/// float8_regr_accum.
fn regr_accum(t: &mut [f64; 6], y: f64, x: f64) -> PgResult<()> {
    let [n0, sx0, mut sxx, sy0, mut syy, mut sxy] = *t;
    let n = n0 + 1.0;
    let sx = sx0 + x;
    let sy = sy0 + y;
    if n0 > 0.0 {
        let tx = x * n - sx;
        let ty = y * n - sy;
        let scale = 1.0 / (n * n0);
        sxx += tx * tx * scale;
        syy += ty * ty * scale;
        sxy += tx * ty * scale;
        if sx.is_infinite() || sxx.is_infinite() {
            if !sx0.is_infinite() && !x.is_infinite() {
                return Err(float_overflow());
            }
            sxx = f64::NAN;
        }
        if sy.is_infinite() || syy.is_infinite() {
            if !sy0.is_infinite() && !y.is_infinite() {
                return Err(float_overflow());
            }
            syy = f64::NAN;
        }
        if sxy.is_infinite() {
            if !sx0.is_infinite() && !x.is_infinite() && !sy0.is_infinite() && !y.is_infinite() {
                return Err(float_overflow());
            }
            sxy = f64::NAN;
        }
    } else {
        if !x.is_finite() {
            sxx = f64::NAN;
            sxy = f64::NAN;
        }
        if !y.is_finite() {
            syy = f64::NAN;
            sxy = f64::NAN;
        }
    }
    *t = [n, sx, sxx, sy, syy, sxy];
    Ok(())
}

pub(crate) fn finish(st: State, a: &AggCall, fmt: &FormatCtx) -> PgResult<Value> {
    Ok(match st {
        State::Buffered(mut rows) => {
            rows.sort_by(|x, y| {
                for (i, k) in a.order.iter().enumerate() {
                    let o = sort_cmp(&x.0[i], &y.0[i], k.desc, k.nulls_first);
                    if o != Ordering::Equal {
                        return o;
                    }
                }
                Ordering::Equal
            });
            let Some(mut inner) = plain_initial(a) else {
                return Ok(Value::Null);
            };
            for (_, args) in rows {
                update(&mut inner, a, args, Vec::new(), fmt)?;
            }
            finish(inner, a, fmt)?
        }
        State::Json(_, 0) => Value::Null,
        State::Json(mut out, _) => {
            let jb = match a.func {
                AggFunc::JsonAgg(jb, _) => {
                    out.insert(0, '[');
                    out.push(']');
                    jb
                }
                AggFunc::JsonObjectAgg(jb, _) => {
                    out.insert_str(0, if jb { "{" } else { "{ " });
                    out.push_str(if jb { "}" } else { " }" });
                    jb
                }
                _ => false,
            };
            if jb {
                // Normalized as jsonb keeps it: sorted keys, the last of duplicate keys.
                Value::Text(json::jsonb_in(&out)?)
            } else {
                Value::Text(out)
            }
        }
        State::NumSpread(n, sum, sum2, special) => {
            let AggFunc::Spread(s) = a.func else {
                return Ok(Value::Null);
            };
            num_spread(s, n, &sum, &sum2, special)?
                .map(|x| Value::Numeric(Box::new(x)))
                .unwrap_or(Value::Null)
        }
        State::FloatSpread([n, _, sxx]) => {
            let AggFunc::Spread(s) = a.func else {
                return Ok(Value::Null);
            };
            let sample = matches!(s, Spread::VarSamp | Spread::StddevSamp);
            if (sample && n <= 1.0) || n == 0.0 {
                return Ok(Value::Null);
            }
            let var = if sample { sxx / (n - 1.0) } else { sxx / n };
            Value::Float8(match s {
                Spread::StddevPop | Spread::StddevSamp => var.sqrt(),
                _ => var,
            })
        }
        State::Ranges(_, false) => Value::Null,
        State::Ranges(rs, true) => Value::Multirange(Box::new(types::multirange::make(rs)?)),
        State::Intersect(acc) => acc.unwrap_or(Value::Null),
        State::Bits(None) => Value::Null,
        State::Bits(Some(x)) => match a.result {
            Type::INT2 => Value::Int2(x as i16),
            Type::INT4 => Value::Int4(x as i32),
            _ => Value::Int8(x),
        },
        State::Regr(t) => {
            let AggFunc::Regr(r) = a.func else {
                return Ok(Value::Null);
            };
            regr_final(r, &t)
        }
        State::Sorted(mut vals, frac) => {
            // With no rows the fraction was never evaluated: a constant one is still checked,
            // as PostgreSQL checks it before looking at the rows.
            let frac = frac.or_else(|| match a.args.first() {
                Some(Expr::Const(v)) => Some(v.clone()),
                _ => None,
            });
            let desc = a.order.first().is_some_and(|k| k.desc);
            vals.sort_by(|x, y| {
                let o = types::compare(x, y);
                if desc {
                    o.reverse()
                } else {
                    o
                }
            });
            ordered_set(a, vals, frac)?
        }
    })
}

/// One ORDER BY key's comparison, NULLs placed as NULLS FIRST / LAST says.
pub(crate) fn sort_cmp(x: &Value, y: &Value, desc: bool, nulls_first: bool) -> Ordering {
    match (x.is_null(), y.is_null()) {
        (true, true) => Ordering::Equal,
        (true, false) if nulls_first => Ordering::Less,
        (true, false) => Ordering::Greater,
        (false, true) if nulls_first => Ordering::Greater,
        (false, true) => Ordering::Less,
        _ if desc => types::compare(x, y).reverse(),
        _ => types::compare(x, y),
    }
}

/// numeric_stddev_internal: exact sums, then PostgreSQL's division and square-root scales.
fn num_spread(
    s: Spread,
    n: i64,
    sum: &Numeric,
    sum2: &Numeric,
    special: bool,
) -> PgResult<Option<Numeric>> {
    if n == 0 {
        return Ok(None);
    }
    if special {
        return Ok(Some(Numeric::nan()));
    }
    let sample = matches!(s, Spread::VarSamp | Spread::StddevSamp);
    if n <= i64::from(sample) {
        return Ok(None);
    }
    let nn = Numeric::from_i64(n);
    // N * sum(X*X) - sum(X)^2, exact (PostgreSQL's rscale for these products keeps every
    // digit).
    let numer = nn.mul(sum2)?.sub(&sum.mul(sum)?)?;
    if numer.signum() <= 0 {
        return Ok(Some(Numeric::zero()));
    }
    let denom = if sample {
        nn.mul(&Numeric::from_i64(n - 1))?
    } else {
        nn.mul(&nn)?
    };
    let rscale = Numeric::div_scale(&numer, &denom);
    let var = numer.div_rscale(&denom, rscale)?;
    Ok(Some(match s {
        Spread::StddevPop | Spread::StddevSamp => var.sqrt_rscale(rscale),
        _ => var,
    }))
}

/// The float8_regr_* / float8_covar_* / float8_corr final functions.
fn regr_final(r: Regr, t: &[f64; 6]) -> Value {
    let [n, sx, sxx, sy, syy, sxy] = *t;
    if r == Regr::Count {
        return Value::Int8(n as i64);
    }
    if n < 1.0 {
        return Value::Null;
    }
    let v = match r {
        Regr::Sxx => sxx,
        Regr::Syy => syy,
        Regr::Sxy => sxy,
        Regr::AvgX => sx / n,
        Regr::AvgY => sy / n,
        Regr::CovarPop => sxy / n,
        Regr::CovarSamp if n < 2.0 => return Value::Null,
        Regr::CovarSamp => sxy / (n - 1.0),
        Regr::Corr if sxx == 0.0 || syy == 0.0 => return Value::Null,
        Regr::Corr => sxy / (sxx * syy).sqrt(),
        Regr::R2 if sxx == 0.0 => return Value::Null,
        Regr::R2 if syy == 0.0 => 1.0,
        Regr::R2 => (sxy * sxy) / (sxx * syy),
        Regr::Slope if sxx == 0.0 => return Value::Null,
        Regr::Slope => sxy / sxx,
        Regr::Intercept if sxx == 0.0 => return Value::Null,
        Regr::Intercept => (sy - sx * sxy / sxx) / n,
        Regr::Count => n,
    };
    Value::Float8(v)
}

/// C's `%g` (six significant digits), as PostgreSQL's percentile range error prints.
fn fmt_g(x: f64) -> String {
    if x.is_nan() {
        return "nan".into();
    }
    if x.is_infinite() {
        return if x < 0.0 { "-inf" } else { "inf" }.into();
    }
    if x == 0.0 {
        return if x.is_sign_negative() { "-0" } else { "0" }.into();
    }
    let e = format!("{x:.5e}");
    let (mant, exp) = e.split_once('e').unwrap_or((&e, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let trim = |s: &str| -> String {
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s.to_string()
        }
    };
    if !(-4..6).contains(&exp) {
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{}e{sign}{:02}", trim(mant), exp.abs())
    } else {
        let decimals = (5 - exp).max(0) as usize;
        trim(&format!("{x:.decimals$}"))
    }
}

fn check_fraction(p: f64) -> PgResult<f64> {
    if !(0.0..=1.0).contains(&p) {
        return Err(PgError::new(
            code::NUMERIC_VALUE_OUT_OF_RANGE,
            format!("percentile value {} is not between 0 and 1", fmt_g(p)),
        ));
    }
    Ok(p)
}

/// percentile_disc / percentile_cont / mode over the sorted non-null values.
fn ordered_set(a: &AggCall, vals: Vec<Value>, frac: Option<Value>) -> PgResult<Value> {
    let frac = frac.unwrap_or(Value::Null);
    let n = vals.len();
    let one = |p: f64, cont: bool| -> Value {
        if cont {
            let pos = p * (n as f64 - 1.0);
            let (lo, hi) = (pos.floor(), pos.ceil());
            let first = as_f64(&vals[lo as usize]);
            if lo == hi {
                return Value::Float8(first);
            }
            let second = as_f64(&vals[hi as usize]);
            Value::Float8(first + (second - first) * (pos - lo))
        } else {
            let row = (p * n as f64).ceil() as usize;
            vals[row.max(1) - 1].clone()
        }
    };
    match a.func {
        AggFunc::Mode => {
            // The most frequent value; of equally frequent ones, the first in sort order.
            let mut best: Option<(&Value, usize)> = None;
            let mut i = 0;
            while i < n {
                let mut j = i + 1;
                while j < n && types::compare(&vals[j], &vals[i]) == Ordering::Equal {
                    j += 1;
                }
                if best.is_none_or(|(_, f)| j - i > f) {
                    best = Some((&vals[i], j - i));
                }
                i = j;
            }
            Ok(best.map(|(v, _)| v.clone()).unwrap_or(Value::Null))
        }
        AggFunc::PercentileCont(false) | AggFunc::PercentileDisc(false) => {
            if frac.is_null() {
                return Ok(Value::Null);
            }
            let p = check_fraction(as_f64(&frac))?;
            if n == 0 {
                return Ok(Value::Null);
            }
            Ok(one(p, matches!(a.func, AggFunc::PercentileCont(_))))
        }
        AggFunc::PercentileCont(true) | AggFunc::PercentileDisc(true) => {
            // The multi-fraction forms return NULL for no rows before looking at fractions.
            if n == 0 {
                return Ok(Value::Null);
            }
            let Value::Array(fr) = frac else {
                return Ok(Value::Null);
            };
            let cont = matches!(a.func, AggFunc::PercentileCont(_));
            let mut items = Vec::with_capacity(fr.items.len());
            for f in &fr.items {
                if f.is_null() {
                    items.push(Value::Null);
                } else {
                    items.push(one(check_fraction(as_f64(f))?, cont));
                }
            }
            Ok(Value::Array(Box::new(Array {
                elem: a.arg_type,
                dims: fr.dims.clone(),
                items,
            })))
        }
        _ => Ok(Value::Null),
    }
}

#[cfg(test)]
mod tests {
    use super::fmt_g;

    #[test]
    fn percent_g() {
        assert_eq!(fmt_g(1.5), "1.5");
        assert_eq!(fmt_g(2.0), "2");
        assert_eq!(fmt_g(-0.25), "-0.25");
        assert_eq!(fmt_g(1e10), "1e+10");
        assert_eq!(fmt_g(123456789.0), "1.23457e+08");
        assert_eq!(fmt_g(0.0001), "0.0001");
        assert_eq!(fmt_g(0.00001), "1e-05");
    }
}
