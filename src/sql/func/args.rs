//! Helpers the function families share: reading an argument of the type the signature promises
//! (anything else is an internal error), building results, and errors several families raise.

use crate::error::{code, PgError, PgResult};
use crate::sql::types::datetime as dt;
use crate::sql::types::{io, Array, FormatCtx, Interval, Numeric, Value};

pub(super) fn bad_arg(v: &Value) -> PgError {
    PgError::internal(format!("unexpected function argument {v:?}"))
}

pub(super) fn txt(v: &Value) -> PgResult<&str> {
    v.as_str().ok_or_else(|| bad_arg(v))
}

pub(super) fn int(v: &Value) -> PgResult<i64> {
    match v {
        Value::Float8(f) => Ok(*f as i64),
        Value::Numeric(n) => n.to_i64(),
        _ => v.as_i64().ok_or_else(|| bad_arg(v)),
    }
}

pub(super) fn flt(v: &Value) -> PgResult<f64> {
    match v {
        Value::Float8(f) => Ok(*f),
        Value::Float4(f) => Ok(*f as f64),
        Value::Numeric(n) => Ok(n.to_f64()),
        _ => v.as_i64().map(|i| i as f64).ok_or_else(|| bad_arg(v)),
    }
}

pub(super) fn num(v: &Value) -> PgResult<Numeric> {
    match v {
        Value::Numeric(n) => Ok((**n).clone()),
        Value::Float8(f) => Ok(Numeric::from_f64(*f)),
        Value::Float4(f) => Ok(Numeric::from_f32(*f)),
        _ => v.as_i64().map(Numeric::from_i64).ok_or_else(|| bad_arg(v)),
    }
}

pub(super) fn bytes(v: &Value) -> PgResult<&[u8]> {
    match v {
        Value::Bytea(b) => Ok(b),
        Value::Text(s) => Ok(s.as_bytes()),
        _ => Err(bad_arg(v)),
    }
}

pub(super) fn arr(v: &Value) -> PgResult<&Array> {
    match v {
        Value::Array(a) => Ok(a),
        _ => Err(bad_arg(v)),
    }
}

pub(super) fn ts(v: &Value) -> PgResult<i64> {
    match v {
        Value::Timestamp(t) | Value::TimestampTz(t) => Ok(*t),
        Value::Date(d) => dt::date_to_ts(*d),
        _ => Err(bad_arg(v)),
    }
}

pub(super) fn ivl(v: &Value) -> PgResult<Interval> {
    match v {
        Value::Interval(i) => Ok(*i),
        _ => Err(bad_arg(v)),
    }
}

pub(super) fn text(s: impl Into<String>) -> Value {
    Value::Text(s.into())
}

pub(super) fn numeric(n: Numeric) -> Value {
    Value::Numeric(Box::new(n))
}

pub(super) fn i4(v: i64) -> PgResult<Value> {
    i32::try_from(v)
        .map(Value::Int4)
        .map_err(|_| PgError::out_of_range("integer"))
}

pub(super) fn invalid_param(msg: impl Into<String>) -> PgError {
    PgError::new(code::INVALID_PARAMETER_VALUE, msg)
}

pub(super) fn float_overflow() -> PgError {
    PgError::new(
        code::NUMERIC_VALUE_OUT_OF_RANGE,
        "value out of range: overflow",
    )
}

pub(super) fn float_underflow() -> PgError {
    PgError::new(
        code::NUMERIC_VALUE_OUT_OF_RANGE,
        "value out of range: underflow",
    )
}

pub(super) fn any_to_text(v: &Value, ctx: &FormatCtx) -> String {
    match v {
        Value::Text(s) => s.clone(),
        Value::Bool(b) => if *b { "true" } else { "false" }.into(),
        _ => io::to_text(v, io::value_type(v), ctx),
    }
}
