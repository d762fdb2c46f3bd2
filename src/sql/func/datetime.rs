//! Date/time functions (PostgreSQL's timestamp.c, date.c): EXTRACT / date_part, date_trunc,
//! age, make_date / make_time / make_timestamp / make_timestamptz / make_interval,
//! to_timestamp(double), isfinite, justify_*, timezone() (AT TIME ZONE), timeofday() and
//! OVERLAPS.

use super::args::{bad_arg, flt, int, invalid_param, ivl, numeric, text, ts, txt};
use crate::error::{code, PgError, PgResult};
use crate::sql::types::datetime as dt;
use crate::sql::types::{io, FormatCtx, Interval, Numeric, TimeZone, Type, Value};

pub(super) fn f_timeofday(_: &[Value], ctx: &FormatCtx) -> PgResult<Value> {
    let now = dt::now_timestamptz();
    let local = dt::tstz_to_local(now, &ctx.time_zone);
    let tm = dt::ts_to_tm(local);
    Ok(text(format!(
        "{} {} {:02} {:02}:{:02}:{:02}.{:06} {} {}",
        &dt::DAY_NAMES[tm.dow() as usize][..3],
        &dt::MONTH_NAMES[tm.month as usize - 1][..3],
        tm.day,
        tm.hour,
        tm.minute,
        tm.second,
        tm.usec,
        tm.year,
        dt::tz_abbrev_at(&ctx.time_zone, now)
    )))
}

/// (s1, e1) OVERLAPS (s2, e2) for timestamps (ends may be intervals).
pub(super) fn f_overlaps(a: &[Value], ctx: &FormatCtx) -> PgResult<Value> {
    let point = |v: &Value| -> PgResult<i64> {
        match v {
            Value::Time(t) => Ok(*t),
            other => ts(other),
        }
    };
    let end = |start: i64, v: &Value| -> PgResult<i64> {
        match v {
            Value::Interval(iv) => match &a[0] {
                Value::TimestampTz(_) => dt::timestamptz_add_interval(start, iv, &ctx.time_zone),
                Value::Time(_) => Ok((start + iv.micros).rem_euclid(dt::USECS_PER_DAY)),
                _ => dt::timestamp_add_interval(start, iv),
            },
            other => point(other),
        }
    };
    let s1 = point(&a[0])?;
    let e1 = end(s1, &a[1])?;
    let s2 = point(&a[2])?;
    let e2 = end(s2, &a[3])?;
    let (s1, e1) = if e1 < s1 { (e1, s1) } else { (s1, e1) };
    let (s2, e2) = if e2 < s2 { (e2, s2) } else { (s2, e2) };
    Ok(Value::Bool(if s1 > s2 {
        s1 < e2
    } else if s1 < s2 {
        s2 < e1
    } else {
        true
    }))
}

/// Canonical unit name of a date/time field as EXTRACT and date_trunc accept it.
fn canonical_unit(u: &str) -> Option<&'static str> {
    Some(match u {
        "microsecond" | "microseconds" | "us" | "usec" | "usecs" | "microsecon" => "microseconds",
        "millisecond" | "milliseconds" | "ms" | "msec" | "msecs" | "millisecon" => "milliseconds",
        "second" | "seconds" | "s" | "sec" | "secs" => "second",
        "minute" | "minutes" | "m" | "min" | "mins" => "minute",
        "hour" | "hours" | "h" | "hr" | "hrs" => "hour",
        "day" | "days" | "d" => "day",
        "week" | "weeks" | "w" => "week",
        "month" | "months" | "mon" | "mons" => "month",
        "quarter" | "qtr" => "quarter",
        "year" | "years" | "y" | "yr" | "yrs" => "year",
        "decade" | "decades" | "dec" | "decs" => "decade",
        "century" | "centuries" | "c" | "cent" => "century",
        "millennium" | "millennia" | "mil" | "mils" | "millenniums" => "millennium",
        "epoch" => "epoch",
        "dow" => "dow",
        "isodow" => "isodow",
        "doy" => "doy",
        "julian" | "j" => "julian",
        "isoyear" => "isoyear",
        "timezone" => "timezone",
        "timezone_h" | "timezone_hour" => "timezone_hour",
        "timezone_m" | "timezone_minute" => "timezone_minute",
        _ => return None,
    })
}

fn unit_not_recognized(u: &str, ty: Type) -> PgError {
    invalid_param(format!(
        "unit \"{u}\" not recognized for type {}",
        ty.name()
    ))
}

fn unit_not_supported(u: &str, ty: Type) -> PgError {
    PgError::new(
        code::FEATURE_NOT_SUPPORTED,
        format!("unit \"{u}\" not supported for type {}", ty.name()),
    )
}

/// ISO 8601 year and week of a date given as a Julian day.
fn iso_week(j: i64) -> (i64, i64) {
    let isodow = (dt::j2day(j) + 6) % 7 + 1; // Monday = 1
    let thursday = j + (4 - isodow as i64);
    let (y, _, _) = dt::j2date(thursday);
    let week = (thursday - dt::date2j(y, 1, 1)) / 7 + 1;
    (y, week)
}

fn num_frac(v: i64, scale: u32) -> Numeric {
    Numeric::from_parts(v.into(), scale)
}

/// Field of a broken-down timestamp as numeric (EXTRACT semantics).
fn tm_field(u: &str, tm: &dt::Tm, epoch_usecs: Option<i64>) -> Option<Numeric> {
    let usec_in_min = tm.second as i64 * 1_000_000 + tm.usec as i64;
    let year = if tm.year > 0 { tm.year } else { tm.year - 1 };
    Some(match u {
        "microseconds" => Numeric::from_i64(usec_in_min),
        "milliseconds" => num_frac(usec_in_min, 3),
        "second" => num_frac(usec_in_min, 6),
        "minute" => Numeric::from_i64(tm.minute as i64),
        "hour" => Numeric::from_i64(tm.hour as i64),
        "day" => Numeric::from_i64(tm.day as i64),
        "month" => Numeric::from_i64(tm.month as i64),
        "quarter" => Numeric::from_i64((tm.month as i64 - 1) / 3 + 1),
        "week" => Numeric::from_i64(iso_week(tm.julian()).1),
        "year" => Numeric::from_i64(year),
        "decade" => Numeric::from_i64(if tm.year >= 0 {
            tm.year / 10
        } else {
            -((8 - (tm.year - 1)) / 10)
        }),
        "century" => Numeric::from_i64(if tm.year > 0 {
            (tm.year + 99) / 100
        } else {
            -((99 - (tm.year - 1)) / 100)
        }),
        "millennium" => Numeric::from_i64(if tm.year > 0 {
            (tm.year + 999) / 1000
        } else {
            -((999 - (tm.year - 1)) / 1000)
        }),
        "dow" => Numeric::from_i64(tm.dow() as i64),
        "isodow" => Numeric::from_i64(if tm.dow() == 0 { 7 } else { tm.dow() as i64 }),
        "doy" => Numeric::from_i64(tm.doy() as i64),
        "isoyear" => {
            let y = iso_week(tm.julian()).0;
            Numeric::from_i64(if y > 0 { y } else { y - 1 })
        }
        "julian" => {
            let day = Numeric::from_i64(tm.julian());
            let t = tm.time_usecs();
            if t == 0 {
                day
            } else {
                let frac = Numeric::from_i64(t)
                    .div(&Numeric::from_i64(dt::USECS_PER_DAY))
                    .ok()?;
                day.add(&frac).ok()?
            }
        }
        "epoch" => num_frac(epoch_usecs?, 6),
        _ => return None,
    })
}

/// EXTRACT(field FROM v) for a value of type `ty` (date, time, timestamp, timestamptz,
/// interval); numeric result as in PostgreSQL 14+.
pub fn extract_field(field: &str, v: &Value, ty: Type, ctx: &FormatCtx) -> PgResult<Value> {
    let lower = field.to_lowercase();
    let f = lower.as_str();
    let Some(u) = canonical_unit(f) else {
        return Err(unit_not_recognized(field, ty));
    };
    match v {
        Value::Null => Ok(Value::Null),
        Value::Date(d) => {
            if !dt::is_finite_date(*d) {
                return Ok(match u {
                    "year" | "decade" | "century" | "millennium" | "julian" | "isoyear"
                    | "epoch" => numeric(if *d < 0 {
                        Numeric::neg_infinity()
                    } else {
                        Numeric::infinity()
                    }),
                    "day" | "month" | "quarter" | "week" | "dow" | "isodow" | "doy" => Value::Null,
                    _ => return Err(unit_not_supported(field, Type::DATE)),
                });
            }
            let (y, m, dd) = dt::date_to_ymd(*d);
            let tm = dt::Tm {
                year: y,
                month: m,
                day: dd,
                ..Default::default()
            };
            match u {
                "epoch" => Ok(numeric(Numeric::from_i64(
                    (*d as i64 + dt::POSTGRES_EPOCH_JDATE - dt::UNIX_EPOCH_JDATE) * 86_400,
                ))),
                "microseconds" | "milliseconds" | "second" | "minute" | "hour" | "timezone"
                | "timezone_hour" | "timezone_minute" => Err(unit_not_supported(field, Type::DATE)),
                _ => tm_field(u, &tm, None)
                    .map(numeric)
                    .ok_or_else(|| unit_not_supported(field, Type::DATE)),
            }
        }
        Value::Timestamp(t) | Value::TimestampTz(t) => {
            let is_tz = matches!(v, Value::TimestampTz(_));
            let tyn = if is_tz {
                Type::TIMESTAMPTZ
            } else {
                Type::TIMESTAMP
            };
            if !dt::is_finite_ts(*t) {
                return match u {
                    "year" | "decade" | "century" | "millennium" | "julian" | "isoyear"
                    | "epoch" => Ok(numeric(if *t < 0 {
                        Numeric::neg_infinity()
                    } else {
                        Numeric::infinity()
                    })),
                    "timezone" | "timezone_hour" | "timezone_minute" if !is_tz => {
                        Err(unit_not_supported(field, tyn))
                    }
                    _ => Ok(Value::Null),
                };
            }
            let (local, off) = if is_tz {
                let off = dt::utc_offset_at(&ctx.time_zone, *t);
                (*t + off as i64 * dt::USECS_PER_SEC, off)
            } else {
                (*t, 0)
            };
            let tm = dt::ts_to_tm(local);
            let epoch = *t + dt::UNIX_TO_PG_SECS * dt::USECS_PER_SEC;
            match u {
                "timezone" | "timezone_hour" | "timezone_minute" => {
                    if !is_tz {
                        return Err(unit_not_supported(field, tyn));
                    }
                    Ok(numeric(Numeric::from_i64(match u {
                        "timezone" => off as i64,
                        "timezone_hour" => off as i64 / 3600,
                        _ => (off as i64 / 60) % 60,
                    })))
                }
                _ => tm_field(u, &tm, Some(epoch))
                    .map(numeric)
                    .ok_or_else(|| unit_not_supported(field, tyn)),
            }
        }
        Value::Time(t) => {
            let tm = dt::ts_to_tm(*t);
            match u {
                "microseconds" | "milliseconds" | "second" | "minute" | "hour" => {
                    Ok(numeric(tm_field(u, &tm, None).unwrap()))
                }
                "epoch" => Ok(numeric(num_frac(*t, 6))),
                _ => Err(unit_not_supported(field, Type::TIME)),
            }
        }
        Value::TimeTz(t, zone) => {
            let tm = dt::ts_to_tm(*t);
            let east = -(*zone as i64);
            match u {
                "microseconds" | "milliseconds" | "second" | "minute" | "hour" => {
                    Ok(numeric(tm_field(u, &tm, None).unwrap()))
                }
                "timezone" => Ok(numeric(Numeric::from_i64(east))),
                "timezone_hour" => Ok(numeric(Numeric::from_i64(east / 3600))),
                "timezone_minute" => Ok(numeric(Numeric::from_i64(east / 60 % 60))),
                "epoch" => Ok(numeric(num_frac(*t + *zone as i64 * dt::USECS_PER_SEC, 6))),
                _ => Err(unit_not_supported(field, Type::TIMETZ)),
            }
        }
        Value::Interval(iv) => {
            let time = iv.micros;
            let r = match u {
                "microseconds" => Numeric::from_i64(time % dt::USECS_PER_MINUTE),
                "milliseconds" => num_frac(time % dt::USECS_PER_MINUTE, 3),
                "second" => num_frac(time % dt::USECS_PER_MINUTE, 6),
                "minute" => Numeric::from_i64(time / dt::USECS_PER_MINUTE % 60),
                "hour" => Numeric::from_i64(time / dt::USECS_PER_HOUR),
                "day" => Numeric::from_i64(iv.days as i64),
                "month" => Numeric::from_i64(iv.months as i64 % 12),
                "quarter" => Numeric::from_i64((iv.months as i64 % 12) / 3 + 1),
                "year" => Numeric::from_i64(iv.months as i64 / 12),
                "decade" => Numeric::from_i64(iv.months as i64 / 120),
                "century" => Numeric::from_i64(iv.months as i64 / 1200),
                "millennium" => Numeric::from_i64(iv.months as i64 / 12000),
                "epoch" => {
                    // years are 365.25 days, months 30 days
                    let years = iv.months as i64 / 12;
                    let months = iv.months as i64 % 12;
                    let secs_from_years = Numeric::from_i64(years * 36525 * 864);
                    let rest = (months * 30 + iv.days as i64) as i128 * dt::USECS_PER_DAY as i128
                        + time as i128;
                    secs_from_years
                        .add(&Numeric::from_parts(rest.into(), 6))?
                        .round(6)
                }
                _ => return Err(unit_not_supported(field, Type::INTERVAL)),
            };
            Ok(numeric(r))
        }
        other => Err(bad_arg(other)),
    }
}

pub(super) fn extract_as<const T: u32>(a: &[Value], ctx: &FormatCtx) -> PgResult<Value> {
    extract_field(txt(&a[0])?, &a[1], Type(T), ctx)
}

pub(super) fn date_part_as<const T: u32>(a: &[Value], ctx: &FormatCtx) -> PgResult<Value> {
    // date_part on a date is computed on the timestamp, as PostgreSQL does.
    let (v, ty) = match &a[1] {
        Value::Date(d) => (Value::Timestamp(dt::date_to_ts(*d)?), Type::TIMESTAMP),
        v => (v.clone(), Type(T)),
    };
    match extract_field(txt(&a[0])?, &v, ty, ctx)? {
        Value::Numeric(n) => Ok(Value::Float8(n.to_f64())),
        other => Ok(other),
    }
}

/// Truncates a local timestamp to `unit`.
fn trunc_local(ts: i64, u: &str, field: &str, ty: Type) -> PgResult<i64> {
    let mut tm = dt::ts_to_tm(ts);
    match u {
        "millennium" => {
            tm.year = if tm.year > 0 {
                ((tm.year + 999) / 1000) * 1000 - 999
            } else {
                -((999 - (tm.year - 1)) / 1000) * 1000 + 1
            };
            tm.month = 1;
            tm.day = 1;
            tm.hour = 0;
            tm.minute = 0;
            tm.second = 0;
            tm.usec = 0;
        }
        "century" => {
            tm.year = if tm.year > 0 {
                ((tm.year + 99) / 100) * 100 - 99
            } else {
                -((99 - (tm.year - 1)) / 100) * 100 + 1
            };
            tm.month = 1;
            tm.day = 1;
            tm.hour = 0;
            tm.minute = 0;
            tm.second = 0;
            tm.usec = 0;
        }
        "decade" => {
            tm.year = if tm.year > 0 {
                (tm.year / 10) * 10
            } else {
                -((8 - (tm.year - 1)) / 10) * 10
            };
            tm.month = 1;
            tm.day = 1;
            tm.hour = 0;
            tm.minute = 0;
            tm.second = 0;
            tm.usec = 0;
        }
        "year" | "quarter" | "month" => {
            if u == "year" {
                tm.month = 1;
            } else if u == "quarter" {
                tm.month = 3 * ((tm.month - 1) / 3) + 1;
            }
            tm.day = 1;
            tm.hour = 0;
            tm.minute = 0;
            tm.second = 0;
            tm.usec = 0;
        }
        "week" => {
            let j = tm.julian();
            let isodow = (dt::j2day(j) + 6) % 7; // Monday = 0
            let (y, m, d) = dt::j2date(j - isodow as i64);
            tm = dt::Tm {
                year: y,
                month: m,
                day: d,
                ..Default::default()
            };
        }
        "day" => {
            tm.hour = 0;
            tm.minute = 0;
            tm.second = 0;
            tm.usec = 0;
        }
        "hour" => {
            tm.minute = 0;
            tm.second = 0;
            tm.usec = 0;
        }
        "minute" => {
            tm.second = 0;
            tm.usec = 0;
        }
        "second" => tm.usec = 0,
        "milliseconds" => tm.usec = (tm.usec / 1000) * 1000,
        "microseconds" => {}
        _ => return Err(unit_not_recognized(field, ty)),
    }
    dt::tm_to_ts(&tm).ok_or_else(dt::ts_out_of_range)
}

pub(super) fn f_date_trunc(a: &[Value], ctx: &FormatCtx) -> PgResult<Value> {
    let field = txt(&a[0])?;
    let lower = field.to_lowercase();
    match &a[1] {
        Value::Timestamp(t) => {
            let u = canonical_unit(&lower)
                .ok_or_else(|| unit_not_recognized(field, Type::TIMESTAMP))?;
            if !dt::is_finite_ts(*t) {
                return Ok(Value::Timestamp(*t));
            }
            Ok(Value::Timestamp(trunc_local(
                *t,
                u,
                field,
                Type::TIMESTAMP,
            )?))
        }
        Value::TimestampTz(t) => {
            let u = canonical_unit(&lower)
                .ok_or_else(|| unit_not_recognized(field, Type::TIMESTAMPTZ))?;
            if !dt::is_finite_ts(*t) {
                return Ok(Value::TimestampTz(*t));
            }
            let tz = match a.get(2) {
                Some(Value::Text(z)) => zone_for_at_time_zone(z)?,
                _ => ctx.time_zone.clone(),
            };
            let local = dt::tstz_to_local(*t, &tz);
            let tr = trunc_local(local, u, field, Type::TIMESTAMPTZ)?;
            if u == "microseconds" || u == "milliseconds" || u == "second" || u == "minute" {
                // Sub-hour truncation does not move across offsets.
                return Ok(Value::TimestampTz(*t - (local - tr)));
            }
            Ok(Value::TimestampTz(dt::local_to_tstz(tr, &tz)))
        }
        Value::Interval(iv) => {
            let u =
                canonical_unit(&lower).ok_or_else(|| unit_not_recognized(field, Type::INTERVAL))?;
            let mut r = *iv;
            let t = iv.micros;
            // Units of a month or more keep only whole multiples of that many months.
            let months_per = match u {
                "millennium" => Some(12000),
                "century" => Some(1200),
                "decade" => Some(120),
                "year" => Some(12),
                "quarter" => Some(3),
                "month" => Some(1),
                _ => None,
            };
            if let Some(m) = months_per {
                return Ok(Value::Interval(Interval {
                    months: iv.months / m * m,
                    days: 0,
                    micros: 0,
                }));
            }
            match u {
                "day" => r.micros = 0,
                "hour" => r.micros = t / dt::USECS_PER_HOUR * dt::USECS_PER_HOUR,
                "minute" => r.micros = t / dt::USECS_PER_MINUTE * dt::USECS_PER_MINUTE,
                "second" => r.micros = t / dt::USECS_PER_SEC * dt::USECS_PER_SEC,
                "milliseconds" => r.micros = t / 1000 * 1000,
                "microseconds" => {}
                "week" => {
                    return Err(unit_not_supported(field, Type::INTERVAL)
                        .with_detail("Months usually have fractional weeks."))
                }
                _ => return Err(unit_not_recognized(field, Type::INTERVAL)),
            }
            Ok(Value::Interval(r))
        }
        v => Err(bad_arg(v)),
    }
}

pub(super) fn f_age(a: &[Value], ctx: &FormatCtx) -> PgResult<Value> {
    let is_tz = matches!(a[0], Value::TimestampTz(_));
    let local = |v: &Value| -> PgResult<i64> {
        Ok(match v {
            Value::TimestampTz(t) => dt::tstz_to_local(*t, &ctx.time_zone),
            other => ts(other)?,
        })
    };
    let x = local(&a[0])?;
    let y = if a.len() > 1 {
        local(&a[1])?
    } else {
        // age(ts): from midnight today (local).
        let now = dt::tstz_to_local(dt::now_timestamptz(), &ctx.time_zone);
        now.div_euclid(dt::USECS_PER_DAY) * dt::USECS_PER_DAY
    };
    let _ = is_tz;
    if a.len() > 1 {
        Ok(Value::Interval(dt::age(x, y)?))
    } else {
        Ok(Value::Interval(dt::age(y, x)?))
    }
}

pub(super) fn f_make_date(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    let (y, m, d) = (int(&a[0])?, int(&a[1])?, int(&a[2])?);
    let bad = || {
        PgError::new(
            code::DATETIME_FIELD_OVERFLOW,
            format!("date field value out of range: {y}-{m:02}-{d:02}"),
        )
    };
    if y == 0 || !(1..=12).contains(&m) || d < 1 {
        return Err(bad());
    }
    let ay = if y < 0 { y + 1 } else { y };
    if d > dt::days_in_month(ay, m as u32) as i64 {
        return Err(bad());
    }
    dt::ymd_to_date(ay, m as u32, d as u32)
        .map(Value::Date)
        .ok_or_else(dt::date_out_of_range)
}

fn make_ts_local(a: &[Value]) -> PgResult<i64> {
    let d = match f_make_date(&a[..3], &FormatCtx::default())? {
        Value::Date(d) => d,
        _ => unreachable!(),
    };
    let (h, mi, s) = (int(&a[3])?, int(&a[4])?, flt(&a[5])?);
    let usec = (s * 1e6).round() as i64;
    if !(0..=24).contains(&h)
        || !(0..60).contains(&mi)
        || !(0..=60_000_000).contains(&usec)
        || (h == 24 && (mi > 0 || usec > 0))
    {
        return Err(PgError::new(
            code::DATETIME_FIELD_OVERFLOW,
            format!("time field value out of range: {h}:{mi:02}:{}", fmt_secs(s)),
        ));
    }
    let t = dt::date_to_ts(d)? + h * dt::USECS_PER_HOUR + mi * dt::USECS_PER_MINUTE + usec;
    if !dt::ts_in_range(t) {
        return Err(dt::ts_out_of_range());
    }
    Ok(t)
}

fn fmt_secs(s: f64) -> String {
    let mut o = String::new();
    io::write_float8(s, 1, &mut o);
    if (0.0..10.0).contains(&s) {
        format!("0{o}")
    } else {
        o
    }
}

pub(super) fn f_make_timestamp(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    Ok(Value::Timestamp(make_ts_local(a)?))
}

pub(super) fn f_make_timestamptz(a: &[Value], ctx: &FormatCtx) -> PgResult<Value> {
    let local = make_ts_local(a)?;
    let tz = match a.get(6) {
        Some(Value::Text(z)) => zone_for_at_time_zone(z)?,
        _ => ctx.time_zone.clone(),
    };
    Ok(Value::TimestampTz(dt::local_to_tstz(local, &tz)))
}

pub(super) fn f_make_time(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    let (h, mi, s) = (int(&a[0])?, int(&a[1])?, flt(&a[2])?);
    let usec = (s * 1e6).round() as i64;
    if !(0..=24).contains(&h)
        || !(0..60).contains(&mi)
        || !(0..=60_000_000).contains(&usec)
        || (h == 24 && (mi > 0 || usec > 0))
    {
        return Err(PgError::new(
            code::DATETIME_FIELD_OVERFLOW,
            format!("time field value out of range: {h}:{mi:02}:{}", fmt_secs(s)),
        ));
    }
    Ok(Value::Time(
        h * dt::USECS_PER_HOUR + mi * dt::USECS_PER_MINUTE + usec,
    ))
}

pub(super) fn f_make_interval(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    let g = |i: usize| -> PgResult<i64> { a.get(i).map(int).unwrap_or(Ok(0)) };
    let secs = a.get(6).map(flt).unwrap_or(Ok(0.0))?;
    let months = g(0)? * 12 + g(1)?;
    let days = g(2)? * 7 + g(3)?;
    let micros = g(4)? as f64 * dt::USECS_PER_HOUR as f64
        + g(5)? as f64 * dt::USECS_PER_MINUTE as f64
        + (secs * 1e6).round();
    if months.abs() > i32::MAX as i64
        || days.abs() > i32::MAX as i64
        || !micros.is_finite()
        || micros.abs() > 9.2e18
    {
        return Err(dt::interval_out_of_range());
    }
    Ok(Value::Interval(Interval {
        months: months as i32,
        days: days as i32,
        micros: micros as i64,
    }))
}

pub(super) fn f_to_timestamp_float(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    let x = flt(&a[0])?;
    if x.is_nan() {
        return Err(PgError::new(
            code::DATETIME_FIELD_OVERFLOW,
            "timestamp cannot be NaN",
        ));
    }
    if x.is_infinite() {
        return Ok(Value::TimestampTz(if x > 0.0 {
            dt::TS_POS_INFINITY
        } else {
            dt::TS_NEG_INFINITY
        }));
    }
    let us = (x - dt::UNIX_TO_PG_SECS as f64) * 1e6;
    let us = us.round();
    if !(-2.2e17..2.2e17).contains(&us) || !dt::ts_in_range(us as i64) {
        let mut s = String::new();
        io::write_float8(x, 1, &mut s);
        return Err(PgError::new(
            code::DATETIME_FIELD_OVERFLOW,
            format!("timestamp out of range: \"{s}\""),
        ));
    }
    Ok(Value::TimestampTz(us as i64))
}

pub(super) fn f_isfinite(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    Ok(Value::Bool(match &a[0] {
        Value::Date(d) => dt::is_finite_date(*d),
        Value::Timestamp(t) | Value::TimestampTz(t) => dt::is_finite_ts(*t),
        _ => true,
    }))
}

pub(super) fn f_justify<const K: u8>(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    let iv = ivl(&a[0])?;
    Ok(Value::Interval(match K {
        0 => dt::justify_days(&iv)?,
        1 => dt::justify_hours(&iv)?,
        _ => dt::justify_interval(&iv)?,
    }))
}

/// The zone named in AT TIME ZONE / timezone(): an abbreviation, an IANA name or a POSIX
/// offset (positive = west).
pub fn zone_for_at_time_zone(z: &str) -> PgResult<TimeZone> {
    let lower = z.trim().to_lowercase();
    if let Some(off) = dt::tz_abbrev_offset(&lower) {
        return Ok(if off == 0 && lower == "utc" {
            TimeZone::Utc
        } else {
            TimeZone::Fixed(off)
        });
    }
    if let Some(tz) = dt::lookup_named_zone(z.trim()) {
        return Ok(TimeZone::Named(tz));
    }
    // POSIX-style offsets: "+05" means 5 hours west.
    let t = z.trim();
    if t.starts_with(['+', '-']) || t.as_bytes().first().is_some_and(|c| c.is_ascii_digit()) {
        if let Some(TimeZone::Fixed(s)) = dt::parse_timezone(&format!("UTC{t}")) {
            return Ok(TimeZone::Fixed(s));
        }
    }
    if let Some(tz) = dt::parse_timezone(t) {
        if !matches!(tz, TimeZone::Fixed(_))
            || t.starts_with(|c: char| c.is_alphabetic() || c == '<')
        {
            return Ok(tz);
        }
    }
    Err(invalid_param(format!("time zone \"{z}\" not recognized")))
}

fn zone_arg(v: &Value) -> PgResult<TimeZone> {
    match v {
        Value::Interval(iv) => {
            if iv.months != 0 || iv.days != 0 {
                return Err(invalid_param(format!(
                    "interval time zone \"{}\" must not include months or days",
                    io::to_text(v, Type::INTERVAL, &FormatCtx::default())
                )));
            }
            Ok(TimeZone::Fixed((iv.micros / dt::USECS_PER_SEC) as i32))
        }
        v => zone_for_at_time_zone(txt(v)?),
    }
}

/// timezone(zone, timestamptz) → timestamp (AT TIME ZONE on a timestamptz).
pub(super) fn f_timezone_tstz(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    let tz = zone_arg(&a[0])?;
    let t = ts(&a[1])?;
    Ok(Value::Timestamp(dt::tstz_to_local(t, &tz)))
}

/// timezone(zone, timetz) → timetz: the same instant shown in another zone; a zone with
/// daylight-saving rules uses its offset now.
pub(super) fn f_timezone_timetz(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    let Value::TimeTz(t, zone) = a[1] else {
        return Err(bad_arg(&a[1]));
    };
    let west = match &a[0] {
        Value::Interval(iv) => {
            zone_arg(&a[0])?;
            -(iv.micros / dt::USECS_PER_SEC) as i32
        }
        v => -dt::utc_offset_at(&zone_arg(v)?, dt::now_timestamptz()),
    };
    let t = (t + (zone as i64 - west as i64) * dt::USECS_PER_SEC).rem_euclid(dt::USECS_PER_DAY);
    Ok(Value::TimeTz(t, west))
}

/// timezone(zone, timestamp) → timestamptz (AT TIME ZONE on a timestamp).
pub(super) fn f_timezone_ts(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    let tz = zone_arg(&a[0])?;
    let t = ts(&a[1])?;
    Ok(Value::TimestampTz(dt::local_to_tstz(t, &tz)))
}
