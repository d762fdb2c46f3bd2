//! The total order of values (`compare_values`), which sorting, grouping, DISTINCT, index keys
//! and the comparison operators share, and the comparison operators themselves (`=`, `<>`, `<`,
//! ... over every type, bpchar's blank-insensitive form, regtype's, and timestamp against
//! timestamptz, which compares in the session's time zone).
//!
//! Values of different variants compare by a fixed rank of variants, so a sort over mixed
//! values (record fields, polymorphic input) is still total; numbers of different widths
//! compare by value, as PostgreSQL's cross-type operators do.

use super::{mismatch, text_of, EQ, GT, LE, LT, NE};
use crate::error::PgResult;
use crate::sql::types::datetime as dt;
use crate::sql::types::{io, Array, FormatCtx, Numeric, Value};
use std::cmp::Ordering;

// ---------------------------------------------------------------------------------------------
// Ordering
// ---------------------------------------------------------------------------------------------

fn variant_rank(v: &Value) -> u8 {
    match v {
        Value::Bool(_) => 1,
        Value::Int2(_) | Value::Int4(_) | Value::Int8(_) | Value::Oid(_) => 2,
        Value::Float4(_) | Value::Float8(_) => 2,
        Value::Numeric(_) => 2,
        Value::Text(_) | Value::CiText(_) => 3,
        Value::Bytea(_) => 4,
        Value::Date(_) | Value::Timestamp(_) | Value::TimestampTz(_) => 5,
        Value::Time(_) | Value::TimeTz(..) => 6,
        Value::Inet(_) => 8,
        Value::Interval(_) => 7,
        Value::Uuid(_) => 8,
        Value::Array(_) => 9,
        Value::Record(_) => 10,
        Value::Void => 11,
        Value::Enum(_) => 12,
        Value::Range(_) => 13,
        Value::Multirange(_) => 14,
        Value::Null => 255,
    }
}

/// Float order as PostgreSQL's: NaN equals NaN and sorts above everything; -0 equals 0.
pub fn cmp_f64(a: f64, b: f64) -> Ordering {
    match (a.is_nan(), b.is_nan()) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Greater,
        (false, true) => Ordering::Less,
        _ => a.partial_cmp(&b).unwrap_or(Ordering::Equal),
    }
}

pub(super) fn as_f64(v: &Value) -> Option<f64> {
    match v {
        Value::Float4(f) => Some(*f as f64),
        Value::Float8(f) => Some(*f),
        Value::Numeric(n) => Some(n.to_f64()),
        _ => v.as_i64().map(|i| i as f64),
    }
}

pub(super) fn as_numeric(v: &Value) -> Option<Numeric> {
    match v {
        Value::Numeric(n) => Some((**n).clone()),
        Value::Float4(f) => Some(Numeric::from_f32(*f)),
        Value::Float8(f) => Some(Numeric::from_f64(*f)),
        _ => v.as_i64().map(Numeric::from_i64),
    }
}

/// Timestamp-like value as microseconds (dates at midnight, infinities at the ends).
pub(super) fn as_ts(v: &Value) -> Option<i64> {
    match v {
        Value::Date(d) => Some(match *d {
            dt::DATE_NEG_INFINITY => i64::MIN,
            dt::DATE_POS_INFINITY => i64::MAX,
            d => d as i64 * dt::USECS_PER_DAY,
        }),
        Value::Timestamp(t) | Value::TimestampTz(t) => Some(*t),
        _ => None,
    }
}

/// Total order of two non-NULL values of the same (or comparable) type. Integers of any width,
/// numeric and floats compare by value; text compares bytewise (C collation); arrays and
/// records element by element with NULL last. NULL sorts after everything.
pub fn compare_values(a: &Value, b: &Value) -> Ordering {
    use Value::*;
    match (a, b) {
        (Null, Null) => Ordering::Equal,
        (Null, _) => Ordering::Greater,
        (_, Null) => Ordering::Less,
        (Bool(x), Bool(y)) => x.cmp(y),
        (Int2(x), Int2(y)) => x.cmp(y),
        (Int4(x), Int4(y)) => x.cmp(y),
        (Int8(x), Int8(y)) => x.cmp(y),
        (Float8(x), Float8(y)) => cmp_f64(*x, *y),
        (Float4(x), Float4(y)) => cmp_f64(*x as f64, *y as f64),
        (Numeric(x), Numeric(y)) => x.as_ref().cmp(y.as_ref()),
        (Text(x), Text(y)) => x.as_bytes().cmp(y.as_bytes()),
        // citext by its lower-case form; against text too (only a value of polymorphic input
        // meets one: the planner casts citext to text where an operator mixes them).
        (CiText(x), CiText(y) | Text(y)) | (Text(x), CiText(y)) => {
            crate::sql::types::citext::cmp(x, y)
        }
        (Bytea(x), Bytea(y)) => x.cmp(y),
        (Date(x), Date(y)) => x.cmp(y),
        (Time(x), Time(y)) => x.cmp(y),
        (TimeTz(a, za), TimeTz(b, zb)) => dt::timetz_cmp((*a, *za), (*b, *zb)),
        (Inet(x), Inet(y)) => crate::sql::types::network::compare(x, y),
        (Timestamp(x), Timestamp(y)) => x.cmp(y),
        (TimestampTz(x), TimestampTz(y)) => x.cmp(y),
        (Interval(x), Interval(y)) => x.sort_key().cmp(&y.sort_key()),
        (Oid(x), Oid(y)) => x.cmp(y),
        (Uuid(x), Uuid(y)) => x.cmp(y),
        (Array(x), Array(y)) => compare_arrays(x, y),
        (Record(x), Record(y)) => compare_records(x, y),
        (Void, Void) => Ordering::Equal,
        (Range(x), Range(y)) => crate::sql::types::range::cmp(x, y),
        (Multirange(x), Multirange(y)) => crate::sql::types::multirange::cmp(x, y),
        // Enum values by their labels' sort positions (equal labels: equal OIDs).
        (Enum(x), Enum(y)) if x == y => Ordering::Equal,
        (Enum(x), Enum(y)) => {
            use crate::catalog::types::label_sort;
            cmp_f64(label_sort(*x) as f64, label_sort(*y) as f64).then(x.cmp(y))
        }
        // Cross-type comparisons.
        (Float4(_) | Float8(_), _) | (_, Float4(_) | Float8(_))
            if as_f64(a).is_some() && as_f64(b).is_some() =>
        {
            cmp_f64(as_f64(a).unwrap(), as_f64(b).unwrap())
        }
        (Numeric(_), _) | (_, Numeric(_)) if as_numeric(a).is_some() && as_numeric(b).is_some() => {
            as_numeric(a).unwrap().cmp(&as_numeric(b).unwrap())
        }
        _ if a.as_i64().is_some() && b.as_i64().is_some() => {
            a.as_i64().unwrap().cmp(&b.as_i64().unwrap())
        }
        _ if as_ts(a).is_some() && as_ts(b).is_some() => as_ts(a).unwrap().cmp(&as_ts(b).unwrap()),
        _ => variant_rank(a).cmp(&variant_rank(b)),
    }
}

fn compare_arrays(x: &Array, y: &Array) -> Ordering {
    for (a, b) in x.items.iter().zip(y.items.iter()) {
        let c = compare_values(a, b);
        if c != Ordering::Equal {
            return c;
        }
    }
    x.items
        .len()
        .cmp(&y.items.len())
        .then_with(|| x.dims.len().cmp(&y.dims.len()))
        .then_with(|| {
            for (a, b) in x.dims.iter().zip(y.dims.iter()) {
                let c = a.0.cmp(&b.0).then(a.1.cmp(&b.1));
                if c != Ordering::Equal {
                    return c;
                }
            }
            Ordering::Equal
        })
}

fn compare_records(x: &[Value], y: &[Value]) -> Ordering {
    for (a, b) in x.iter().zip(y.iter()) {
        let c = compare_values(a, b);
        if c != Ordering::Equal {
            return c;
        }
    }
    x.len().cmp(&y.len())
}

fn cmp_result<const OP: u8>(o: Ordering) -> Value {
    Value::Bool(match OP {
        EQ => o == Ordering::Equal,
        NE => o != Ordering::Equal,
        LT => o == Ordering::Less,
        LE => o != Ordering::Greater,
        GT => o == Ordering::Greater,
        _ => o != Ordering::Less,
    })
}

pub(super) fn cmp_op<const OP: u8>(a: &Value, b: &Value, _: &FormatCtx) -> PgResult<Value> {
    Ok(cmp_result::<OP>(compare_values(a, b)))
}

/// xid = int4 and xid <> int4 (PostgreSQL's xideqint4): the integer read as 32 unsigned bits.
pub(super) fn xid_int4_cmp<const OP: u8>(a: &Value, b: &Value, _: &FormatCtx) -> PgResult<Value> {
    let x = |v: &Value| match v {
        Value::Oid(o) => Ok(*o),
        Value::Int4(i) => Ok(*i as u32),
        other => Err(mismatch(other)),
    };
    Ok(cmp_result::<OP>(x(a)?.cmp(&x(b)?)))
}

/// xid8 comparisons: the ids are unsigned (held in an Int8's bits).
pub(super) fn xid8_cmp<const OP: u8>(a: &Value, b: &Value, _: &FormatCtx) -> PgResult<Value> {
    let x = |v: &Value| match v {
        Value::Int8(i) => Ok(*i as u64),
        other => Err(mismatch(other)),
    };
    Ok(cmp_result::<OP>(x(a)?.cmp(&x(b)?)))
}

/// char(n) comparison: trailing spaces are insignificant.
pub(super) fn bpchar_cmp<const OP: u8>(a: &Value, b: &Value, _: &FormatCtx) -> PgResult<Value> {
    let x = text_of(a)?.trim_end_matches(' ');
    let y = text_of(b)?.trim_end_matches(' ');
    Ok(cmp_result::<OP>(x.as_bytes().cmp(y.as_bytes())))
}

/// regtype comparison: values may be OIDs or type names.
pub(super) fn regtype_cmp<const OP: u8>(a: &Value, b: &Value, _: &FormatCtx) -> PgResult<Value> {
    let oid = |v: &Value| -> PgResult<u32> {
        match v {
            Value::Text(s) => Ok(io::parse_regtype(s)?.0),
            other => other
                .as_i64()
                .map(|i| i as u32)
                .ok_or_else(|| mismatch(other)),
        }
    };
    Ok(cmp_result::<OP>(oid(a)?.cmp(&oid(b)?)))
}

/// Comparisons that mix timestamp without time zone (or date) with timestamptz: the local
/// value is interpreted in the session time zone.
pub(super) fn tstz_cross_cmp<const OP: u8>(
    a: &Value,
    b: &Value,
    ctx: &FormatCtx,
) -> PgResult<Value> {
    let conv = |v: &Value| -> PgResult<i64> {
        match v {
            Value::TimestampTz(t) => Ok(*t),
            _ => {
                let local = as_ts(v).ok_or_else(|| mismatch(v))?;
                Ok(dt::local_to_tstz(local, &ctx.time_zone))
            }
        }
    };
    Ok(cmp_result::<OP>(conv(a)?.cmp(&conv(b)?)))
}
