//! Date/time arithmetic: timestamp and timestamptz plus an interval (months first, clamped to
//! the end of the month, then days, then microseconds; timestamptz in the given zone's local
//! time), interval negation, sums, products and quotients (fractions spilt into days and
//! microseconds as PostgreSQL's interval_mul does), justify_hours / justify_days /
//! justify_interval, timestamp differences and age(), and timetz's order. Every result is
//! checked against its type's range (22008).

use super::zone::{local_to_tstz, tstz_to_local};
use super::{
    days_in_month, interval_out_of_range, is_finite_ts, tm_to_ts, ts_in_range, ts_out_of_range,
    ts_to_tm, SECS_PER_DAY, USECS_PER_DAY, USECS_PER_SEC,
};
use crate::error::{code, PgError, PgResult};
use crate::sql::types::{Interval, TimeZone};

/// PostgreSQL's timetz order: by the UTC instant, then by zone.
pub fn timetz_cmp(a: (i64, i32), b: (i64, i32)) -> std::cmp::Ordering {
    let ua = a.0 + a.1 as i64 * USECS_PER_SEC;
    let ub = b.0 + b.1 as i64 * USECS_PER_SEC;
    ua.cmp(&ub).then(a.1.cmp(&b.1))
}
// ---------------------------------------------------------------------------------------------
// Arithmetic
// ---------------------------------------------------------------------------------------------

/// Adds months to a local timestamp, clamping the day to the end of the month.
fn add_months_local(ts: i64, months: i32) -> PgResult<i64> {
    if months == 0 {
        return Ok(ts);
    }
    let mut tm = ts_to_tm(ts);
    let total = tm.year * 12 + (tm.month as i64 - 1) + months as i64;
    tm.year = total.div_euclid(12);
    tm.month = (total.rem_euclid(12) + 1) as u32;
    tm.day = tm.day.min(days_in_month(tm.year, tm.month));
    tm_to_ts(&tm).ok_or_else(ts_out_of_range)
}

/// timestamp + interval (months first, then days, then time).
pub fn timestamp_add_interval(ts: i64, iv: &Interval) -> PgResult<i64> {
    if !is_finite_ts(ts) {
        return Ok(ts);
    }
    let mut t = add_months_local(ts, iv.months)?;
    t = t
        .checked_add(iv.days as i64 * USECS_PER_DAY)
        .ok_or_else(ts_out_of_range)?;
    t = t.checked_add(iv.micros).ok_or_else(ts_out_of_range)?;
    if !ts_in_range(t) {
        return Err(ts_out_of_range());
    }
    Ok(t)
}

/// timestamptz + interval: months and days move the local time in `tz` (so a day is a calendar
/// day across DST changes), the time part moves the absolute time.
pub fn timestamptz_add_interval(ts: i64, iv: &Interval, tz: &TimeZone) -> PgResult<i64> {
    if !is_finite_ts(ts) {
        return Ok(ts);
    }
    let mut t = ts;
    if iv.months != 0 || iv.days != 0 {
        let local = tstz_to_local(ts, tz);
        let mut l = add_months_local(local, iv.months)?;
        l = l
            .checked_add(iv.days as i64 * USECS_PER_DAY)
            .ok_or_else(ts_out_of_range)?;
        t = local_to_tstz(l, tz);
    }
    t = t.checked_add(iv.micros).ok_or_else(ts_out_of_range)?;
    if !ts_in_range(t) {
        return Err(ts_out_of_range());
    }
    Ok(t)
}

pub fn interval_neg(iv: &Interval) -> PgResult<Interval> {
    Ok(Interval {
        months: iv.months.checked_neg().ok_or_else(interval_out_of_range)?,
        days: iv.days.checked_neg().ok_or_else(interval_out_of_range)?,
        micros: iv.micros.checked_neg().ok_or_else(interval_out_of_range)?,
    })
}

pub fn interval_add(a: &Interval, b: &Interval) -> PgResult<Interval> {
    Ok(Interval {
        months: a
            .months
            .checked_add(b.months)
            .ok_or_else(interval_out_of_range)?,
        days: a
            .days
            .checked_add(b.days)
            .ok_or_else(interval_out_of_range)?,
        micros: a
            .micros
            .checked_add(b.micros)
            .ok_or_else(interval_out_of_range)?,
    })
}

pub fn interval_sub(a: &Interval, b: &Interval) -> PgResult<Interval> {
    interval_add(a, &interval_neg(b)?)
}

/// Rounds to microsecond precision in seconds (PostgreSQL's TSROUND).
fn tsround(x: f64) -> f64 {
    (x * 1e6).round() / 1e6
}

/// interval * factor with PostgreSQL's cascading of fractional months and days.
pub fn interval_mul(iv: &Interval, factor: f64) -> PgResult<Interval> {
    if factor.is_nan() {
        return Err(interval_out_of_range());
    }
    interval_scale(iv, |x| x * factor)
}

/// interval / divisor.
pub fn interval_div(iv: &Interval, divisor: f64) -> PgResult<Interval> {
    if divisor == 0.0 {
        return Err(PgError::division_by_zero());
    }
    if divisor.is_nan() {
        return Err(interval_out_of_range());
    }
    interval_scale(iv, |x| x / divisor)
}

fn interval_scale(iv: &Interval, op: impl Fn(f64) -> f64) -> PgResult<Interval> {
    let m = op(iv.months as f64);
    let d = op(iv.days as f64);
    if !m.is_finite() || m.abs() > i32::MAX as f64 || !d.is_finite() || d.abs() > i32::MAX as f64 {
        return Err(interval_out_of_range());
    }
    let months = m.trunc();
    let days = d.trunc();
    let month_rem_days = tsround((m - months) * 30.0);
    let mut sec_rem =
        tsround((d - days + month_rem_days - month_rem_days.trunc()) * SECS_PER_DAY as f64);
    let mut days_i = days as i64;
    if sec_rem.abs() >= SECS_PER_DAY as f64 {
        let extra = (sec_rem / SECS_PER_DAY as f64).trunc();
        days_i += extra as i64;
        sec_rem -= extra * SECS_PER_DAY as f64;
    }
    days_i += month_rem_days.trunc() as i64;
    let time = (op(iv.micros as f64) + sec_rem * 1e6).round();
    if !time.is_finite() || time.abs() >= 9.2e18 || days_i.abs() > i32::MAX as i64 {
        return Err(interval_out_of_range());
    }
    Ok(Interval {
        months: months as i32,
        days: days_i as i32,
        micros: time as i64,
    })
}

/// justify_hours: 24-hour periods of the time part become days.
pub fn justify_hours(iv: &Interval) -> PgResult<Interval> {
    let mut days = iv.days as i64 + iv.micros / USECS_PER_DAY;
    let mut micros = iv.micros % USECS_PER_DAY;
    if days > 0 && micros < 0 {
        micros += USECS_PER_DAY;
        days -= 1;
    } else if days < 0 && micros > 0 {
        micros -= USECS_PER_DAY;
        days += 1;
    }
    Ok(Interval {
        months: iv.months,
        days: i32::try_from(days).map_err(|_| interval_out_of_range())?,
        micros,
    })
}

/// justify_days: 30-day periods become months.
pub fn justify_days(iv: &Interval) -> PgResult<Interval> {
    let mut months = iv.months as i64 + iv.days as i64 / 30;
    let mut days = iv.days as i64 % 30;
    if months > 0 && days < 0 {
        days += 30;
        months -= 1;
    } else if months < 0 && days > 0 {
        days -= 30;
        months += 1;
    }
    Ok(Interval {
        months: i32::try_from(months).map_err(|_| interval_out_of_range())?,
        days: days as i32,
        micros: iv.micros,
    })
}

/// justify_interval: both, with consistent signs.
pub fn justify_interval(iv: &Interval) -> PgResult<Interval> {
    let mut months = iv.months as i64;
    let mut days = iv.days as i64 + iv.micros / USECS_PER_DAY;
    let mut micros = iv.micros % USECS_PER_DAY;
    months += days / 30;
    days %= 30;
    if months > 0 && (days < 0 || (days == 0 && micros < 0)) {
        days += 30;
        months -= 1;
    } else if months < 0 && (days > 0 || (days == 0 && micros > 0)) {
        days -= 30;
        months += 1;
    }
    if days > 0 && micros < 0 {
        micros += USECS_PER_DAY;
        days -= 1;
    } else if days < 0 && micros > 0 {
        micros -= USECS_PER_DAY;
        days += 1;
    }
    Ok(Interval {
        months: i32::try_from(months).map_err(|_| interval_out_of_range())?,
        days: days as i32,
        micros,
    })
}

/// timestamp - timestamp: days and time (no months), as PostgreSQL's timestamp_mi
/// (which applies justify_hours).
pub fn timestamp_diff(a: i64, b: i64) -> PgResult<Interval> {
    if !is_finite_ts(a) || !is_finite_ts(b) {
        return Err(PgError::new(
            code::DATETIME_FIELD_OVERFLOW,
            "cannot subtract infinite timestamps",
        ));
    }
    let d = a.checked_sub(b).ok_or_else(interval_out_of_range)?;
    justify_hours(&Interval {
        months: 0,
        days: 0,
        micros: d,
    })
}

/// age(a, b): symbolic difference in years, months, days and time, computed on local fields.
pub fn age(a: i64, b: i64) -> PgResult<Interval> {
    if !is_finite_ts(a) || !is_finite_ts(b) {
        return Err(PgError::new(
            code::DATETIME_FIELD_OVERFLOW,
            "cannot subtract infinite timestamps",
        ));
    }
    let (t1, t2, neg) = if a >= b { (a, b, false) } else { (b, a, true) };
    let x = ts_to_tm(t1);
    let y = ts_to_tm(t2);
    let mut usec = x.time_usecs() - y.time_usecs();
    let mut day = x.day as i64 - y.day as i64;
    let mut mon = x.month as i64 - y.month as i64;
    let mut year = x.year - y.year;
    if usec < 0 {
        usec += USECS_PER_DAY;
        day -= 1;
    }
    if day < 0 {
        // Borrow the length of the month before x's month (PostgreSQL borrows from t2's month).
        let (py, pm) = (y.year, y.month);
        day += days_in_month(py, pm) as i64;
        mon -= 1;
    }
    if mon < 0 {
        mon += 12;
        year -= 1;
    }
    let mut iv = Interval {
        months: (year * 12 + mon) as i32,
        days: day as i32,
        micros: usec,
    };
    if neg {
        iv = interval_neg(&iv)?;
    }
    Ok(iv)
}
