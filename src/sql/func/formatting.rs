//! The formatting functions (PostgreSQL's formatting.c): to_char, to_number, to_date and
//! to_timestamp(text, text). The patterns themselves are read and written by `types::format`.

use super::args::{num, numeric, text, txt};
use crate::error::PgResult;
use crate::sql::types::datetime as dt;
use crate::sql::types::format as fmt;
use crate::sql::types::{FormatCtx, Value};

pub(super) fn f_to_timestamp_fmt(a: &[Value], ctx: &FormatCtx) -> PgResult<Value> {
    let (local, zone) = fmt::parse_datetime(txt(&a[0])?, txt(&a[1])?, ctx)?;
    Ok(Value::TimestampTz(match zone {
        Some(off) => local - off as i64 * dt::USECS_PER_SEC,
        None => dt::local_to_tstz(local, &ctx.time_zone),
    }))
}

pub(super) fn f_to_date(a: &[Value], ctx: &FormatCtx) -> PgResult<Value> {
    let (local, _) = fmt::parse_datetime(txt(&a[0])?, txt(&a[1])?, ctx)?;
    Ok(Value::Date(dt::ts_to_date(local)))
}

pub(super) fn f_to_number(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    Ok(numeric(fmt::parse_number(txt(&a[0])?, txt(&a[1])?)?))
}

pub(super) fn f_to_char(a: &[Value], ctx: &FormatCtx) -> PgResult<Value> {
    let pat = txt(&a[1])?;
    Ok(text(match &a[0] {
        Value::Timestamp(t) => {
            if !dt::is_finite_ts(*t) {
                return Ok(Value::Null);
            }
            fmt::format_timestamp(*t, None, pat, ctx)
        }
        Value::TimestampTz(t) => {
            if !dt::is_finite_ts(*t) {
                return Ok(Value::Null);
            }
            let off = dt::utc_offset_at(&ctx.time_zone, *t);
            let abbrev = dt::tz_abbrev_at(&ctx.time_zone, *t);
            fmt::format_timestamp(
                *t + off as i64 * dt::USECS_PER_SEC,
                Some((off, abbrev)),
                pat,
                ctx,
            )
        }
        Value::Date(d) => {
            if !dt::is_finite_date(*d) {
                return Ok(Value::Null);
            }
            fmt::format_timestamp(dt::date_to_ts(*d)?, None, pat, ctx)
        }
        Value::Interval(iv) => fmt::format_interval(iv, pat),
        Value::Float4(f) => fmt::format_number_f64(*f as f64, pat, 6)?,
        Value::Float8(f) => fmt::format_number_f64(*f, pat, 15)?,
        v => fmt::format_number(&num(v)?, pat)?,
    }))
}
