//! Dates, times, timestamps and intervals: calendar arithmetic, time zones, PostgreSQL's
//! input syntax and its output styles.
//!
//! Dates are days since 2000-01-01 and timestamps microseconds since 2000-01-01 00:00 (UTC for
//! timestamptz), as in PostgreSQL. The calendar is proleptic Gregorian with astronomical year
//! numbering internally (year 0 is 1 BC), converted through Julian day numbers so the whole
//! PostgreSQL range (4713 BC to 5874897 AD for dates) works.
//!
//! This file holds the constants and the calendar (Julian days, broken-down times, range
//! checks); the rest is in `datetime/` by concern, and re-exported here:
//! - `zone.rs`: time zone names, offsets and abbreviations, UTC ↔ local time;
//! - `input.rs`: text input of date, time, timetz, timestamp and timestamptz;
//! - `interval_input.rs`: text input of intervals (verbose, SQL standard, ISO 8601);
//! - `output.rs`: text output in every DateStyle and IntervalStyle;
//! - `arith.rs`: timestamp ± interval, interval arithmetic, justify_*, age, timetz order;
//! - `tests.rs`: unit tests.

use crate::error::{code, PgError, PgResult};

pub const USECS_PER_SEC: i64 = 1_000_000;
pub const USECS_PER_MINUTE: i64 = 60 * USECS_PER_SEC;
pub const USECS_PER_HOUR: i64 = 60 * USECS_PER_MINUTE;
pub const USECS_PER_DAY: i64 = 24 * USECS_PER_HOUR;
pub const SECS_PER_DAY: i64 = 86_400;
/// Julian day number of 2000-01-01.
pub const POSTGRES_EPOCH_JDATE: i64 = 2_451_545;
/// Julian day number of 1970-01-01.
pub const UNIX_EPOCH_JDATE: i64 = 2_440_588;
/// Seconds from 1970-01-01 to 2000-01-01.
pub const UNIX_TO_PG_SECS: i64 = 946_684_800;

pub const DATE_NEG_INFINITY: i32 = i32::MIN;
pub const DATE_POS_INFINITY: i32 = i32::MAX;
pub const TS_NEG_INFINITY: i64 = i64::MIN;
pub const TS_POS_INFINITY: i64 = i64::MAX;

/// First Julian day PostgreSQL accepts (4714-11-24 BC).
const JULIAN_MIN: i64 = 0;
/// Julian day of 5874898-01-01, the first date past the date range.
const DATE_END_JULIAN: i64 = 2_147_483_494;
/// Julian day of 294277-01-01, the first day past the timestamp range.
const TIMESTAMP_END_JULIAN: i64 = 109_203_489;

mod arith;
mod input;
mod interval_input;
mod output;
#[cfg(test)]
mod tests;
mod zone;

pub use arith::{
    age, interval_add, interval_div, interval_mul, interval_neg, interval_sub, justify_days,
    justify_hours, justify_interval, timestamp_add_interval, timestamp_diff,
    timestamptz_add_interval, timetz_cmp,
};
pub use input::{parse_date, parse_time, parse_timestamp, parse_timetz, tz_abbrev_offset, DtKind};
pub use interval_input::parse_interval;
pub use output::{
    day_abbrev, format_date, format_interval, format_time, format_timestamp, format_timestamptz,
    format_timetz, month_abbrev, write_offset, DAY_NAMES, MONTH_NAMES,
};
pub use zone::{
    local_offset, local_to_tstz, lookup_named_zone, now_timestamptz, parse_timezone, timezone_name,
    tstz_to_local, tz_abbrev_at, utc_offset_at,
};

// ---------------------------------------------------------------------------------------------
// Calendar
// ---------------------------------------------------------------------------------------------

/// Julian day number of a proleptic Gregorian date (astronomical year: 0 = 1 BC).
pub fn date2j(y: i64, m: i64, d: i64) -> i64 {
    let a = (14 - m).div_euclid(12);
    let yy = y + 4800 - a;
    let mm = m + 12 * a - 3;
    d + (153 * mm + 2) / 5 + 365 * yy + yy.div_euclid(4) - yy.div_euclid(100) + yy.div_euclid(400)
        - 32045
}

/// Proleptic Gregorian date of a Julian day number.
pub fn j2date(j: i64) -> (i64, u32, u32) {
    let a = j + 32044;
    let b = (4 * a + 3).div_euclid(146_097);
    let c = a - (146_097 * b).div_euclid(4);
    let d = (4 * c + 3) / 1461;
    let e = c - 1461 * d / 4;
    let m = (5 * e + 2) / 153;
    let day = e - (153 * m + 2) / 5 + 1;
    let month = m + 3 - 12 * (m / 10);
    let year = 100 * b + d - 4800 + m / 10;
    (year, month as u32, day as u32)
}

pub fn is_leap(y: i64) -> bool {
    (y % 4 == 0 && y % 100 != 0) || y % 400 == 0
}

pub fn days_in_month(y: i64, m: u32) -> u32 {
    match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        _ => {
            if is_leap(y) {
                29
            } else {
                28
            }
        }
    }
}

/// Day of week of a Julian day: 0 = Sunday.
pub fn j2day(j: i64) -> u32 {
    (j + 1).rem_euclid(7) as u32
}

/// A broken-down timestamp (astronomical year).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Tm {
    pub year: i64,
    pub month: u32,
    pub day: u32,
    pub hour: u32,
    pub minute: u32,
    pub second: u32,
    pub usec: u32,
}

impl Tm {
    pub fn julian(&self) -> i64 {
        date2j(self.year, self.month as i64, self.day as i64)
    }
    /// Day of week, 0 = Sunday.
    pub fn dow(&self) -> u32 {
        j2day(self.julian())
    }
    /// Day of year, 1-based.
    pub fn doy(&self) -> u32 {
        (self.julian() - date2j(self.year, 1, 1) + 1) as u32
    }
    pub fn time_usecs(&self) -> i64 {
        self.hour as i64 * USECS_PER_HOUR
            + self.minute as i64 * USECS_PER_MINUTE
            + self.second as i64 * USECS_PER_SEC
            + self.usec as i64
    }
}

/// Splits microseconds since 2000-01-01 into calendar fields.
pub fn ts_to_tm(ts: i64) -> Tm {
    let days = ts.div_euclid(USECS_PER_DAY);
    let t = ts.rem_euclid(USECS_PER_DAY);
    let (year, month, day) = j2date(days + POSTGRES_EPOCH_JDATE);
    Tm {
        year,
        month,
        day,
        hour: (t / USECS_PER_HOUR) as u32,
        minute: (t / USECS_PER_MINUTE % 60) as u32,
        second: (t / USECS_PER_SEC % 60) as u32,
        usec: (t % USECS_PER_SEC) as u32,
    }
}

/// Calendar fields to a timestamp, None when outside PostgreSQL's timestamp range.
pub fn tm_to_ts(tm: &Tm) -> Option<i64> {
    let j = tm.julian();
    if !(JULIAN_MIN..TIMESTAMP_END_JULIAN).contains(&j) {
        return None;
    }
    Some((j - POSTGRES_EPOCH_JDATE) * USECS_PER_DAY + tm.time_usecs())
}

/// Whether a finite timestamp lies in PostgreSQL's range.
pub fn ts_in_range(ts: i64) -> bool {
    let min = (JULIAN_MIN - POSTGRES_EPOCH_JDATE) * USECS_PER_DAY;
    let max = (TIMESTAMP_END_JULIAN - POSTGRES_EPOCH_JDATE) * USECS_PER_DAY;
    ts >= min && ts < max
}

/// Whether a finite date lies in PostgreSQL's date range.
pub fn date_in_range(d: i64) -> bool {
    let j = d + POSTGRES_EPOCH_JDATE;
    (JULIAN_MIN..DATE_END_JULIAN).contains(&j)
}

pub fn date_to_ymd(d: i32) -> (i64, u32, u32) {
    j2date(d as i64 + POSTGRES_EPOCH_JDATE)
}

pub fn ymd_to_date(y: i64, m: u32, d: u32) -> Option<i32> {
    let j = date2j(y, m as i64, d as i64);
    if !(JULIAN_MIN..DATE_END_JULIAN).contains(&j) {
        return None;
    }
    Some((j - POSTGRES_EPOCH_JDATE) as i32)
}

pub fn ts_out_of_range() -> PgError {
    PgError::new(code::DATETIME_FIELD_OVERFLOW, "timestamp out of range")
}

pub fn date_out_of_range() -> PgError {
    PgError::new(code::DATETIME_FIELD_OVERFLOW, "date out of range")
}

pub fn interval_out_of_range() -> PgError {
    PgError::new(code::DATETIME_FIELD_OVERFLOW, "interval out of range")
}

/// date → timestamp (midnight).
pub fn date_to_ts(d: i32) -> PgResult<i64> {
    match d {
        DATE_NEG_INFINITY => Ok(TS_NEG_INFINITY),
        DATE_POS_INFINITY => Ok(TS_POS_INFINITY),
        _ => {
            let j = d as i64 + POSTGRES_EPOCH_JDATE;
            if j >= TIMESTAMP_END_JULIAN {
                return Err(PgError::new(
                    code::DATETIME_FIELD_OVERFLOW,
                    "date out of range for timestamp",
                ));
            }
            Ok(d as i64 * USECS_PER_DAY)
        }
    }
}

/// timestamp → date (truncates the time).
pub fn ts_to_date(ts: i64) -> i32 {
    match ts {
        TS_NEG_INFINITY => DATE_NEG_INFINITY,
        TS_POS_INFINITY => DATE_POS_INFINITY,
        _ => ts.div_euclid(USECS_PER_DAY) as i32,
    }
}

pub fn is_finite_ts(ts: i64) -> bool {
    ts != TS_NEG_INFINITY && ts != TS_POS_INFINITY
}

pub fn is_finite_date(d: i32) -> bool {
    d != DATE_NEG_INFINITY && d != DATE_POS_INFINITY
}
