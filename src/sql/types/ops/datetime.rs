//! Date and time operators: date +/- integer days, date - date, date/time/timestamp/timestamptz
//! +/- interval (timestamptz in the session's time zone, as PostgreSQL adds months and days in
//! local time), date + time, timestamp - timestamp, time - time and timetz +/- interval. The
//! calendar arithmetic itself is `types::datetime`'s; these unpack operands and map errors.

use super::order::as_ts;
use super::{int_of, iv_of, mismatch, SUB};
use crate::error::{code, PgError, PgResult};
use crate::sql::types::datetime as dt;
use crate::sql::types::{FormatCtx, Interval, Value};

// ----- date/time -----

fn date_of(v: &Value) -> PgResult<i32> {
    match v {
        Value::Date(d) => Ok(*d),
        _ => Err(mismatch(v)),
    }
}

pub(super) fn date_plus_int(a: &Value, b: &Value, _: &FormatCtx) -> PgResult<Value> {
    let (d, n) = match (a, b) {
        (Value::Date(d), n) | (n, Value::Date(d)) => (*d, int_of(n)?),
        _ => return Err(mismatch(a)),
    };
    date_add_days(d, n)
}

fn date_add_days(d: i32, n: i128) -> PgResult<Value> {
    if !dt::is_finite_date(d) {
        return Ok(Value::Date(d));
    }
    let r = d as i128 + n;
    if r < i32::MIN as i128 || r > i32::MAX as i128 || !dt::date_in_range(r as i64) {
        return Err(dt::date_out_of_range());
    }
    Ok(Value::Date(r as i32))
}

pub(super) fn date_minus_int(a: &Value, b: &Value, _: &FormatCtx) -> PgResult<Value> {
    date_add_days(date_of(a)?, -int_of(b)?)
}

pub(super) fn date_minus_date(a: &Value, b: &Value, _: &FormatCtx) -> PgResult<Value> {
    let (x, y) = (date_of(a)?, date_of(b)?);
    if !dt::is_finite_date(x) || !dt::is_finite_date(y) {
        return Err(PgError::new(
            code::DATETIME_FIELD_OVERFLOW,
            "cannot subtract infinite dates",
        ));
    }
    Ok(Value::Int4(x - y))
}

pub(super) fn date_plus_interval(a: &Value, b: &Value, _: &FormatCtx) -> PgResult<Value> {
    let (d, iv) = match (a, b) {
        (Value::Date(d), Value::Interval(i)) | (Value::Interval(i), Value::Date(d)) => (*d, *i),
        _ => return Err(mismatch(a)),
    };
    let ts = dt::date_to_ts(d)?;
    Ok(Value::Timestamp(dt::timestamp_add_interval(ts, &iv)?))
}

pub(super) fn date_minus_interval(a: &Value, b: &Value, _: &FormatCtx) -> PgResult<Value> {
    let ts = dt::date_to_ts(date_of(a)?)?;
    let iv = dt::interval_neg(&iv_of(b)?)?;
    Ok(Value::Timestamp(dt::timestamp_add_interval(ts, &iv)?))
}

pub(super) fn date_plus_time(a: &Value, b: &Value, _: &FormatCtx) -> PgResult<Value> {
    let (d, t) = match (a, b) {
        (Value::Date(d), Value::Time(t)) | (Value::Time(t), Value::Date(d)) => (*d, *t),
        _ => return Err(mismatch(a)),
    };
    let ts = dt::date_to_ts(d)?;
    if !dt::is_finite_ts(ts) {
        return Ok(Value::Timestamp(ts));
    }
    let r = ts + t;
    if !dt::ts_in_range(r) {
        return Err(dt::ts_out_of_range());
    }
    Ok(Value::Timestamp(r))
}

fn ts_of(v: &Value) -> PgResult<i64> {
    match v {
        Value::Timestamp(t) | Value::TimestampTz(t) => Ok(*t),
        Value::Date(_) => as_ts(v).ok_or_else(|| mismatch(v)),
        _ => Err(mismatch(v)),
    }
}

pub(super) fn ts_plus_interval(a: &Value, b: &Value, _: &FormatCtx) -> PgResult<Value> {
    let (t, iv) = match (a, b) {
        (Value::Interval(i), t) => (ts_of(t)?, *i),
        (t, i) => (ts_of(t)?, iv_of(i)?),
    };
    Ok(Value::Timestamp(dt::timestamp_add_interval(t, &iv)?))
}

pub(super) fn ts_minus_interval(a: &Value, b: &Value, _: &FormatCtx) -> PgResult<Value> {
    let iv = dt::interval_neg(&iv_of(b)?)?;
    Ok(Value::Timestamp(dt::timestamp_add_interval(
        ts_of(a)?,
        &iv,
    )?))
}

pub(super) fn ts_minus_ts(a: &Value, b: &Value, _: &FormatCtx) -> PgResult<Value> {
    Ok(Value::Interval(dt::timestamp_diff(ts_of(a)?, ts_of(b)?)?))
}

pub(super) fn tstz_plus_interval(a: &Value, b: &Value, ctx: &FormatCtx) -> PgResult<Value> {
    let (t, iv) = match (a, b) {
        (Value::Interval(i), t) => (ts_of(t)?, *i),
        (t, i) => (ts_of(t)?, iv_of(i)?),
    };
    Ok(Value::TimestampTz(dt::timestamptz_add_interval(
        t,
        &iv,
        &ctx.time_zone,
    )?))
}

pub(super) fn tstz_minus_interval(a: &Value, b: &Value, ctx: &FormatCtx) -> PgResult<Value> {
    let iv = dt::interval_neg(&iv_of(b)?)?;
    Ok(Value::TimestampTz(dt::timestamptz_add_interval(
        ts_of(a)?,
        &iv,
        &ctx.time_zone,
    )?))
}

fn time_of(v: &Value) -> PgResult<i64> {
    match v {
        Value::Time(t) => Ok(*t),
        _ => Err(mismatch(v)),
    }
}

pub(super) fn time_plus_interval(a: &Value, b: &Value, _: &FormatCtx) -> PgResult<Value> {
    let (t, iv) = match (a, b) {
        (Value::Time(t), Value::Interval(i)) | (Value::Interval(i), Value::Time(t)) => (*t, *i),
        _ => return Err(mismatch(a)),
    };
    Ok(Value::Time((t + iv.micros).rem_euclid(dt::USECS_PER_DAY)))
}

pub(super) fn time_minus_interval(a: &Value, b: &Value, _: &FormatCtx) -> PgResult<Value> {
    let t = time_of(a)?;
    let iv = iv_of(b)?;
    Ok(Value::Time((t - iv.micros).rem_euclid(dt::USECS_PER_DAY)))
}

pub(super) fn time_minus_time(a: &Value, b: &Value, _: &FormatCtx) -> PgResult<Value> {
    Ok(Value::Interval(Interval {
        months: 0,
        days: 0,
        micros: time_of(a)? - time_of(b)?,
    }))
}

/// timetz ± interval: the time part wraps around midnight, the zone stays.
pub(super) fn timetz_interval<const OP: u8>(
    a: &Value,
    b: &Value,
    _: &FormatCtx,
) -> PgResult<Value> {
    let ((t, z), iv) = match (a, b) {
        (Value::TimeTz(t, z), Value::Interval(i)) | (Value::Interval(i), Value::TimeTz(t, z)) => {
            ((*t, *z), *i)
        }
        _ => return Err(mismatch(a)),
    };
    let d = if OP == SUB { -iv.micros } else { iv.micros };
    Ok(Value::TimeTz(
        (t as i128 + d as i128).rem_euclid(dt::USECS_PER_DAY as i128) as i64,
        z,
    ))
}
