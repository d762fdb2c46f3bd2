//! Dates, times, timestamps and intervals: calendar arithmetic, time zones, PostgreSQL's
//! input syntax and its output styles.
//!
//! Dates are days since 2000-01-01 and timestamps microseconds since 2000-01-01 00:00 (UTC for
//! timestamptz), as in PostgreSQL. The calendar is proleptic Gregorian with astronomical year
//! numbering internally (year 0 is 1 BC), converted through Julian day numbers so the whole
//! PostgreSQL range (4713 BC to 5874897 AD for dates) works.

use super::{DateOrder, DateOutput, DateStyle, FormatCtx, Interval, IntervalStyle, TimeZone};
use crate::error::{code, PgError, PgResult};
use chrono::{NaiveDateTime, Offset, TimeZone as _};
use chrono_tz::OffsetName;
use std::fmt::Write;

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

// ---------------------------------------------------------------------------------------------
// Time zones
// ---------------------------------------------------------------------------------------------

/// Parses a time zone name as `SET TIME ZONE` accepts it: `UTC`, `GMT`, IANA names
/// (case-insensitively, canonical spelling kept), a bare number of hours east (`+05`, `-3`),
/// or a POSIX-style offset (`-3:30`, `UTC+5`: POSIX signs, positive = west of Greenwich).
pub fn parse_timezone(name: &str) -> Option<TimeZone> {
    let t = name.trim();
    if t.is_empty() {
        return None;
    }
    if t.eq_ignore_ascii_case("utc") {
        return Some(TimeZone::Utc);
    }
    // A plain number: hours east of Greenwich (SET TIME ZONE 5).
    if let Ok(h) = t.parse::<f64>() {
        if h.abs() < 24.0 * 7.0 && h.is_finite() {
            return Some(TimeZone::Fixed((h * 3600.0).round() as i32));
        }
        return None;
    }
    if let Some(tz) = lookup_named_zone(t) {
        return Some(TimeZone::Named(tz));
    }
    // POSIX: [name]offset, where a positive offset is west of Greenwich.
    let b = t.as_bytes();
    let mut i = 0;
    if b[0] == b'<' {
        let end = t.find('>')?;
        i = end + 1;
    } else {
        while i < b.len() && b[i].is_ascii_alphabetic() {
            i += 1;
        }
        if i > 0 && i < 3 {
            return None;
        }
    }
    let rest = &t[i..];
    if rest.is_empty() {
        return None;
    }
    let secs = parse_hms_offset(rest)?;
    if secs.abs() > 24 * 3600 * 7 {
        return None;
    }
    Some(TimeZone::Fixed(-secs))
}

/// `[+-]h[:mm[:ss]]` → signed seconds.
fn parse_hms_offset(s: &str) -> Option<i32> {
    let (neg, body) = match s.as_bytes().first()? {
        b'+' => (false, &s[1..]),
        b'-' => (true, &s[1..]),
        _ => (false, s),
    };
    let mut parts = body.split(':');
    let h: i32 = parts.next()?.parse().ok()?;
    let m: i32 = match parts.next() {
        Some(p) => p.parse().ok()?,
        None => 0,
    };
    let sec: i32 = match parts.next() {
        Some(p) => p.parse().ok()?,
        None => 0,
    };
    if parts.next().is_some() || !(0..60).contains(&m) || !(0..60).contains(&sec) {
        return None;
    }
    let v = h * 3600 + m * 60 + sec;
    Some(if neg { -v } else { v })
}

/// An IANA zone by name, case-insensitively.
pub fn lookup_named_zone(name: &str) -> Option<chrono_tz::Tz> {
    if let Ok(tz) = name.parse::<chrono_tz::Tz>() {
        return Some(tz);
    }
    chrono_tz::TZ_VARIANTS
        .iter()
        .find(|tz| tz.name().eq_ignore_ascii_case(name))
        .copied()
}

/// Current time as microseconds since 2000-01-01 UTC.
pub fn now_timestamptz() -> i64 {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    now.as_micros() as i64 - UNIX_TO_PG_SECS * USECS_PER_SEC
}

/// The name SHOW TimeZone prints.
pub fn timezone_name(tz: &TimeZone) -> String {
    match tz {
        TimeZone::Utc => "UTC".into(),
        TimeZone::Fixed(s) => {
            // PostgreSQL shows a numeric zone as a POSIX spec, e.g. <+05>-05.
            let east = format_offset_compact(*s);
            let posix = format_offset_compact(-*s);
            format!("<{east}>{posix}")
        }
        TimeZone::Named(t) => t.name().to_string(),
    }
}

/// `+05`, `-03:30`, `+05:30:15` as PostgreSQL prints offsets in zone names.
fn format_offset_compact(secs: i32) -> String {
    let sign = if secs < 0 { '-' } else { '+' };
    let a = secs.unsigned_abs();
    let (h, m, s) = (a / 3600, a / 60 % 60, a % 60);
    if s != 0 {
        format!("{sign}{h:02}:{m:02}:{s:02}")
    } else if m != 0 {
        format!("{sign}{h:02}:{m:02}")
    } else {
        format!("{sign}{h:02}")
    }
}

fn naive_from_pg_usecs(ts: i64) -> NaiveDateTime {
    // Clamp to chrono's range; PostgreSQL uses the last known rule far out anyway.
    const MIN_SECS: i64 = -8_000_000_000_000; // about year -251000
    const MAX_SECS: i64 = 8_000_000_000_000;
    let secs = ts.div_euclid(USECS_PER_SEC) + UNIX_TO_PG_SECS;
    let secs = secs.clamp(MIN_SECS, MAX_SECS);
    chrono::DateTime::from_timestamp(secs, 0)
        .map(|d| d.naive_utc())
        .unwrap_or_default()
}

/// Offset (seconds east of Greenwich) of `tz` at the UTC instant `ts`.
pub fn utc_offset_at(tz: &TimeZone, ts: i64) -> i32 {
    match tz {
        TimeZone::Utc => 0,
        TimeZone::Fixed(s) => *s,
        TimeZone::Named(z) => z
            .offset_from_utc_datetime(&naive_from_pg_usecs(ts))
            .fix()
            .local_minus_utc(),
    }
}

/// Abbreviation of `tz` at the UTC instant `ts` (`EST`, `CEST`, `+0530`, `UTC`).
pub fn tz_abbrev_at(tz: &TimeZone, ts: i64) -> String {
    match tz {
        TimeZone::Utc => "UTC".into(),
        TimeZone::Fixed(s) => format_offset_compact(*s),
        TimeZone::Named(z) => {
            let off = z.offset_from_utc_datetime(&naive_from_pg_usecs(ts));
            match off.abbreviation() {
                Some(a) => a.to_string(),
                None => format_offset_compact(off.fix().local_minus_utc()),
            }
        }
    }
}

/// Offset of `tz` for a local (wall clock) time. In a fall-back overlap the later
/// interpretation wins, in a spring-forward gap the offset before the transition, as in
/// PostgreSQL.
pub fn local_offset(tz: &TimeZone, local: i64) -> i32 {
    match tz {
        TimeZone::Utc => 0,
        TimeZone::Fixed(s) => *s,
        TimeZone::Named(z) => {
            let ndt = naive_from_pg_usecs(local);
            match z.offset_from_local_datetime(&ndt) {
                chrono::LocalResult::Single(o) => o.fix().local_minus_utc(),
                chrono::LocalResult::Ambiguous(_, _) => {
                    let later = naive_from_pg_usecs(local.saturating_add(USECS_PER_DAY));
                    z.offset_from_utc_datetime(&later).fix().local_minus_utc()
                }
                chrono::LocalResult::None => {
                    let before = naive_from_pg_usecs(local.saturating_sub(USECS_PER_DAY));
                    z.offset_from_utc_datetime(&before).fix().local_minus_utc()
                }
            }
        }
    }
}

/// timestamptz → local timestamp in `tz`.
pub fn tstz_to_local(ts: i64, tz: &TimeZone) -> i64 {
    if !is_finite_ts(ts) {
        return ts;
    }
    ts + utc_offset_at(tz, ts) as i64 * USECS_PER_SEC
}

/// Local timestamp in `tz` → timestamptz.
pub fn local_to_tstz(local: i64, tz: &TimeZone) -> i64 {
    if !is_finite_ts(local) {
        return local;
    }
    local - local_offset(tz, local) as i64 * USECS_PER_SEC
}

// ---------------------------------------------------------------------------------------------
// Output
// ---------------------------------------------------------------------------------------------

const MONTHS: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];
pub const MONTH_NAMES: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];
const DAYS: [&str; 7] = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
pub const DAY_NAMES: [&str; 7] = [
    "Sunday",
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
];

pub fn month_abbrev(m: u32) -> &'static str {
    MONTHS[(m as usize + 11) % 12]
}

pub fn day_abbrev(dow: u32) -> &'static str {
    DAYS[dow as usize % 7]
}

/// Year as printed (BC years are 1 - astronomical year) and whether it is BC.
fn display_year(y: i64) -> (i64, bool) {
    if y <= 0 {
        (1 - y, true)
    } else {
        (y, false)
    }
}

/// `SS[.ffffff]` with trailing zeros of the fraction removed.
fn write_seconds(out: &mut String, sec: u32, usec: u32) {
    let _ = write!(out, "{sec:02}");
    write_fraction(out, usec);
}

fn write_fraction(out: &mut String, usec: u32) {
    if usec != 0 {
        let mut f = format!("{usec:06}");
        while f.ends_with('0') {
            f.pop();
        }
        out.push('.');
        out.push_str(&f);
    }
}

pub fn format_date(d: i32, style: DateStyle, out: &mut String) {
    match d {
        DATE_NEG_INFINITY => return out.push_str("-infinity"),
        DATE_POS_INFINITY => return out.push_str("infinity"),
        _ => {}
    }
    let (y, m, dd) = date_to_ymd(d);
    let (yy, bc) = display_year(y);
    match style.output {
        DateOutput::Iso => {
            let _ = write!(out, "{yy:04}-{m:02}-{dd:02}");
        }
        DateOutput::Sql => {
            if style.order == DateOrder::Dmy {
                let _ = write!(out, "{dd:02}/{m:02}/{yy:04}");
            } else {
                let _ = write!(out, "{m:02}/{dd:02}/{yy:04}");
            }
        }
        DateOutput::German => {
            let _ = write!(out, "{dd:02}.{m:02}.{yy:04}");
        }
        DateOutput::Postgres => {
            if style.order == DateOrder::Dmy {
                let _ = write!(out, "{dd:02}-{m:02}-{yy:04}");
            } else {
                let _ = write!(out, "{m:02}-{dd:02}-{yy:04}");
            }
        }
    }
    if bc {
        out.push_str(" BC");
    }
}

/// Time of day `HH:MM:SS[.ffffff]`.
pub fn format_time(t: i64, out: &mut String) {
    let h = t / USECS_PER_HOUR;
    let m = t / USECS_PER_MINUTE % 60;
    let s = (t / USECS_PER_SEC % 60) as u32;
    let _ = write!(out, "{h:02}:{m:02}:");
    write_seconds(out, s, (t % USECS_PER_SEC) as u32);
}

/// `+05`, `-04:30`, `+05:53:28` as appended to ISO timestamps.
pub fn write_offset(out: &mut String, off: i32) {
    let sign = if off < 0 { '-' } else { '+' };
    let a = off.unsigned_abs();
    let _ = write!(out, "{sign}{:02}", a / 3600);
    if !a.is_multiple_of(3600) {
        let _ = write!(out, ":{:02}", a / 60 % 60);
        if !a.is_multiple_of(60) {
            let _ = write!(out, ":{:02}", a % 60);
        }
    }
}

/// Timestamp without time zone in the session DateStyle.
pub fn format_timestamp(ts: i64, style: DateStyle, out: &mut String) {
    format_ts_impl(ts, style, None, out)
}

/// Timestamp with time zone, shown in the session time zone.
pub fn format_timestamptz(ts: i64, ctx: &FormatCtx, out: &mut String) {
    if !is_finite_ts(ts) {
        return format_ts_impl(ts, ctx.date_style, None, out);
    }
    let off = utc_offset_at(&ctx.time_zone, ts);
    let local = ts + off as i64 * USECS_PER_SEC;
    let abbrev = if ctx.date_style.output == DateOutput::Iso {
        String::new()
    } else {
        tz_abbrev_at(&ctx.time_zone, ts)
    };
    format_ts_impl(local, ctx.date_style, Some((off, abbrev)), out)
}

fn format_ts_impl(ts: i64, style: DateStyle, tz: Option<(i32, String)>, out: &mut String) {
    match ts {
        TS_NEG_INFINITY => return out.push_str("-infinity"),
        TS_POS_INFINITY => return out.push_str("infinity"),
        _ => {}
    }
    let tm = ts_to_tm(ts);
    let (yy, bc) = display_year(tm.year);
    let (mo, d) = (tm.month, tm.day);
    match style.output {
        DateOutput::Iso => {
            let _ = write!(
                out,
                "{yy:04}-{mo:02}-{d:02} {:02}:{:02}:",
                tm.hour, tm.minute
            );
            write_seconds(out, tm.second, tm.usec);
            if let Some((off, _)) = &tz {
                write_offset(out, *off);
            }
        }
        DateOutput::Sql => {
            if style.order == DateOrder::Dmy {
                let _ = write!(out, "{d:02}/{mo:02}/{yy:04}");
            } else {
                let _ = write!(out, "{mo:02}/{d:02}/{yy:04}");
            }
            let _ = write!(out, " {:02}:{:02}:", tm.hour, tm.minute);
            write_seconds(out, tm.second, tm.usec);
            if let Some((_, abbrev)) = &tz {
                out.push(' ');
                out.push_str(abbrev);
            }
        }
        DateOutput::German => {
            let _ = write!(
                out,
                "{d:02}.{mo:02}.{yy:04} {:02}:{:02}:",
                tm.hour, tm.minute
            );
            write_seconds(out, tm.second, tm.usec);
            if let Some((_, abbrev)) = &tz {
                out.push(' ');
                out.push_str(abbrev);
            }
        }
        DateOutput::Postgres => {
            out.push_str(day_abbrev(tm.dow()));
            out.push(' ');
            if style.order == DateOrder::Dmy {
                let _ = write!(out, "{d:02} {}", month_abbrev(mo));
            } else {
                let _ = write!(out, "{} {d:02}", month_abbrev(mo));
            }
            let _ = write!(out, " {:02}:{:02}:", tm.hour, tm.minute);
            write_seconds(out, tm.second, tm.usec);
            let _ = write!(out, " {yy:04}");
            if let Some((_, abbrev)) = &tz {
                out.push(' ');
                out.push_str(abbrev);
            }
        }
    }
    if bc {
        out.push_str(" BC");
    }
}

/// Interval output in the session IntervalStyle.
pub fn format_interval(iv: &Interval, style: IntervalStyle, out: &mut String) {
    let years = iv.months / 12;
    let mons = iv.months % 12;
    let days = iv.days;
    let time = iv.micros;
    let hour = time / USECS_PER_HOUR;
    let min = (time / USECS_PER_MINUTE) % 60;
    let sec = (time / USECS_PER_SEC) % 60;
    let frac = time % USECS_PER_SEC;
    match style {
        IntervalStyle::Postgres => {
            let mut is_zero = true;
            let mut is_before = false;
            let mut part = |out: &mut String, v: i64, unit: &str| {
                if v == 0 {
                    return;
                }
                if !is_zero {
                    out.push(' ');
                }
                if is_before && v > 0 {
                    out.push('+');
                }
                let _ = write!(out, "{v} {unit}{}", if v != 1 { "s" } else { "" });
                is_before = v < 0;
                is_zero = false;
            };
            part(out, years as i64, "year");
            part(out, mons as i64, "mon");
            part(out, days as i64, "day");
            if time != 0 || is_zero {
                if !is_zero {
                    out.push(' ');
                }
                if time < 0 {
                    out.push('-');
                } else if is_before {
                    out.push('+');
                }
                let _ = write!(out, "{:02}:{:02}:", hour.abs(), min.abs());
                write_seconds(out, sec.unsigned_abs() as u32, frac.unsigned_abs() as u32);
            }
        }
        IntervalStyle::PostgresVerbose => {
            out.push('@');
            let mut is_zero = true;
            let mut is_before = false;
            let mut part = |out: &mut String, v: i64, unit: &str| {
                if v == 0 {
                    return;
                }
                let mut v = v;
                if is_zero {
                    is_before = v < 0;
                    v = v.abs();
                } else if is_before {
                    v = -v;
                }
                let _ = write!(out, " {v} {unit}{}", if v != 1 { "s" } else { "" });
                is_zero = false;
            };
            part(out, years as i64, "year");
            part(out, mons as i64, "mon");
            part(out, days as i64, "day");
            part(out, hour, "hour");
            part(out, min, "min");
            if sec != 0 || frac != 0 {
                let mut s = sec * USECS_PER_SEC + frac;
                if is_zero {
                    is_before = s < 0;
                    s = s.abs();
                } else if is_before {
                    s = -s;
                }
                let neg = s < 0;
                let a = s.unsigned_abs();
                let _ = write!(out, " {}{}", if neg { "-" } else { "" }, a / 1_000_000);
                write_fraction(out, (a % 1_000_000) as u32);
                let plural = a != 1_000_000 || neg;
                out.push_str(if plural { " secs" } else { " sec" });
                is_zero = false;
            }
            if is_zero {
                out.push_str(" 0");
            }
            if is_before {
                out.push_str(" ago");
            }
        }
        IntervalStyle::SqlStandard => {
            let has_neg = iv.months < 0 || days < 0 || time < 0;
            let has_pos = iv.months > 0 || days > 0 || time > 0;
            let has_ym = iv.months != 0;
            let has_dt = days != 0 || time != 0;
            let standard = !(has_neg && has_pos || has_ym && has_dt);
            if !has_ym && !has_dt {
                out.push('0');
            } else if !standard {
                let ys = if iv.months < 0 { '-' } else { '+' };
                let ds = if days < 0 { '-' } else { '+' };
                let ts = if time < 0 { '-' } else { '+' };
                let _ = write!(
                    out,
                    "{ys}{}-{} {ds}{} {ts}{}:{:02}:",
                    years.abs(),
                    mons.abs(),
                    days.unsigned_abs(),
                    hour.abs(),
                    min.abs()
                );
                write_seconds(out, sec.unsigned_abs() as u32, frac.unsigned_abs() as u32);
            } else if has_ym {
                let sign = if has_neg { "-" } else { "" };
                let _ = write!(out, "{sign}{}-{}", years.abs(), mons.abs());
            } else if days != 0 {
                let _ = write!(out, "{days} ");
                if time < 0 && days > 0 {
                    out.push('-');
                }
                let _ = write!(out, "{}:{:02}:", hour.abs(), min.abs());
                write_seconds(out, sec.unsigned_abs() as u32, frac.unsigned_abs() as u32);
            } else {
                let sign = if time < 0 { "-" } else { "" };
                let _ = write!(out, "{sign}{}:{:02}:", hour.abs(), min.abs());
                write_seconds(out, sec.unsigned_abs() as u32, frac.unsigned_abs() as u32);
            }
        }
        IntervalStyle::Iso8601 => {
            if iv.months == 0 && days == 0 && time == 0 {
                out.push_str("PT0S");
                return;
            }
            out.push('P');
            if years != 0 {
                let _ = write!(out, "{years}Y");
            }
            if mons != 0 {
                let _ = write!(out, "{mons}M");
            }
            if days != 0 {
                let _ = write!(out, "{days}D");
            }
            if time != 0 {
                out.push('T');
                if hour != 0 {
                    let _ = write!(out, "{hour}H");
                }
                if min != 0 {
                    let _ = write!(out, "{min}M");
                }
                if sec != 0 || frac != 0 {
                    if sec < 0 || frac < 0 {
                        out.push('-');
                    }
                    let _ = write!(out, "{}", sec.abs());
                    write_fraction(out, frac.unsigned_abs() as u32);
                    out.push('S');
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Input
// ---------------------------------------------------------------------------------------------

/// What kind of value a datetime string is parsed for (selects error texts and the handling of
/// time zones).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DtKind {
    Date,
    Time,
    TimeTz,
    Timestamp,
    TimestampTz,
}

impl DtKind {
    fn type_name(self) -> &'static str {
        match self {
            DtKind::Date => "date",
            DtKind::Time => "time",
            DtKind::TimeTz => "time with time zone",
            DtKind::Timestamp => "timestamp",
            DtKind::TimestampTz => "timestamp with time zone",
        }
    }
}

fn dt_syntax(kind: DtKind, s: &str) -> PgError {
    PgError::new(
        code::INVALID_DATETIME_FORMAT,
        format!(
            "invalid input syntax for type {}: \"{s}\"",
            kind.type_name()
        ),
    )
}

fn dt_field_overflow(s: &str) -> PgError {
    PgError::new(
        code::DATETIME_FIELD_OVERFLOW,
        format!("date/time field value out of range: \"{s}\""),
    )
}

fn dt_md_overflow(s: &str) -> PgError {
    dt_field_overflow(s).with_hint("Perhaps you need a different \"datestyle\" setting.")
}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    /// Digits, possibly with one decimal point.
    Num(String),
    /// Digits and letters separated by `-`, `/` or `.` (a date).
    Date(String),
    /// `h:m[:s[.f]]`.
    Time(String),
    Word(String),
    /// A signed number or `+hh:mm` (a zone offset).
    Signed(String),
}

fn tokenize(s: &str) -> Option<Vec<Tok>> {
    let c: Vec<char> = s.to_lowercase().chars().collect();
    let mut toks = Vec::new();
    let mut i = 0;
    let n = c.len();
    while i < n {
        let ch = c[i];
        if ch.is_whitespace() || ch == ',' {
            i += 1;
            continue;
        }
        if ch.is_ascii_digit() {
            let start = i;
            while i < n && c[i].is_ascii_digit() {
                i += 1;
            }
            if i < n && c[i] == ':' {
                while i < n && (c[i].is_ascii_digit() || c[i] == ':' || c[i] == '.') {
                    i += 1;
                }
                toks.push(Tok::Time(c[start..i].iter().collect()));
            } else if i < n && (c[i] == '-' || c[i] == '/') {
                while i < n {
                    let x = c[i];
                    if x.is_ascii_digit() || x == '-' || x == '/' || x == '.' {
                        i += 1;
                    } else if x.is_alphabetic() {
                        // An ISO `T` between date and time ends the date.
                        if x == 't'
                            && i + 1 < n
                            && c[i + 1].is_ascii_digit()
                            && c[i - 1].is_ascii_digit()
                        {
                            break;
                        }
                        i += 1;
                    } else {
                        break;
                    }
                }
                toks.push(Tok::Date(c[start..i].iter().collect()));
            } else if i < n && c[i] == '.' {
                let mut dots = 0;
                while i < n && (c[i].is_ascii_digit() || c[i] == '.') {
                    if c[i] == '.' {
                        dots += 1;
                    }
                    i += 1;
                }
                let t: String = c[start..i].iter().collect();
                if dots >= 2 {
                    toks.push(Tok::Date(t));
                } else {
                    toks.push(Tok::Num(t));
                }
            } else {
                toks.push(Tok::Num(c[start..i].iter().collect()));
            }
            // `T` directly after digits (20200102T030405).
            if i + 1 < n && c[i] == 't' && c[i + 1].is_ascii_digit() {
                i += 1;
            }
            continue;
        }
        if ch.is_alphabetic() {
            let start = i;
            let mut slash = false;
            while i < n {
                let x = c[i];
                if x.is_alphanumeric() || x == '_' || x == '/' || x == '.' {
                    if x == '/' {
                        slash = true;
                    }
                    if x == '.' && !(i + 1 < n && c[i + 1].is_alphabetic()) {
                        break;
                    }
                    i += 1;
                } else if (x == '-' || x == '+') && slash {
                    i += 1;
                } else {
                    break;
                }
            }
            let w: String = c[start..i].iter().collect();
            toks.push(Tok::Word(w));
            continue;
        }
        if ch == '+' || ch == '-' {
            if i + 1 < n && c[i + 1].is_ascii_digit() {
                let start = i;
                i += 1;
                while i < n && (c[i].is_ascii_digit() || c[i] == ':' || c[i] == '.') {
                    i += 1;
                }
                toks.push(Tok::Signed(c[start..i].iter().collect()));
                continue;
            }
            if i + 1 < n && c[i + 1].is_alphabetic() {
                let start = i;
                i += 1;
                while i < n && c[i].is_alphabetic() {
                    i += 1;
                }
                toks.push(Tok::Word(c[start..i].iter().collect()));
                continue;
            }
            return None;
        }
        return None;
    }
    Some(toks)
}

fn month_from_word(w: &str) -> Option<u32> {
    let w = w.trim_end_matches('.');
    const M: [(&str, u32); 14] = [
        ("january", 1),
        ("february", 2),
        ("march", 3),
        ("april", 4),
        ("may", 5),
        ("june", 6),
        ("july", 7),
        ("august", 8),
        ("september", 9),
        ("october", 10),
        ("november", 11),
        ("december", 12),
        ("sept", 9),
        ("", 0),
    ];
    if w.len() < 3 {
        return None;
    }
    for (name, m) in M.iter() {
        if name.is_empty() {
            continue;
        }
        if *name == w || (w.len() == 3 && name.starts_with(w)) {
            return Some(*m);
        }
    }
    None
}

fn is_day_word(w: &str) -> bool {
    let w = w.trim_end_matches('.');
    const D: [&str; 7] = [
        "sunday",
        "monday",
        "tuesday",
        "wednesday",
        "thursday",
        "friday",
        "saturday",
    ];
    D.iter()
        .any(|d| *d == w || (w.len() == 3 && d.starts_with(w)))
        || matches!(w, "tues" | "wed" | "thur" | "thurs")
}

/// Time zone abbreviations accepted in input (PostgreSQL's Default set, the common ones):
/// offset in seconds east and whether it is a daylight-saving abbreviation.
pub fn tz_abbrev_offset(w: &str) -> Option<i32> {
    let h = |x: f64| (x * 3600.0) as i32;
    Some(match w {
        "utc" | "gmt" | "z" | "zulu" | "ut" | "wet" => 0,
        "est" => h(-5.0),
        "edt" => h(-4.0),
        "cst" => h(-6.0),
        "cdt" => h(-5.0),
        "mst" => h(-7.0),
        "mdt" => h(-6.0),
        "pst" => h(-8.0),
        "pdt" => h(-7.0),
        "akst" => h(-9.0),
        "akdt" => h(-8.0),
        "hst" => h(-10.0),
        "ast" => h(-4.0),
        "adt" => h(-3.0),
        "nst" => h(-3.5),
        "ndt" => h(-2.5),
        "bst" | "west" | "cet" | "met" | "wat" => h(1.0),
        "cest" | "mest" | "eet" | "sast" | "cat" | "ist" => h(2.0),
        "eest" | "msk" | "eat" | "idt" => h(3.0),
        "msd" => h(4.0),
        "pkt" => h(5.0),
        "ict" | "wib" => h(7.0),
        "hkt" | "sgt" | "awst" | "cct" | "pht" | "wita" => h(8.0),
        "jst" | "kst" | "wit" => h(9.0),
        "acst" => h(9.5),
        "acdt" => h(10.5),
        "aest" => h(10.0),
        "aedt" => h(11.0),
        "nzst" => h(12.0),
        "nzdt" => h(13.0),
        _ => return None,
    })
}

/// Special values of datetime input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Special {
    Epoch,
    Infinity,
    NegInfinity,
    Now,
    Today,
    Tomorrow,
    Yesterday,
    Allballs,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Zone {
    Offset(i32),
    Named(chrono_tz::Tz),
}

#[derive(Default, Debug)]
struct Parsed {
    year: Option<i64>,
    year_digits: usize,
    month: Option<u32>,
    day: Option<u32>,
    time: Option<i64>,
    zone: Option<Zone>,
    bc: bool,
    ampm: Option<bool>, // Some(true) = pm
    special: Option<Special>,
    julian: Option<i64>,
}

/// Parses `h:m[:s[.f]]` into microseconds; Err(true) for out-of-range fields.
fn parse_time_field(t: &str) -> Result<i64, bool> {
    let parts: Vec<&str> = t.split(':').collect();
    if parts.len() < 2 || parts.len() > 3 {
        return Err(false);
    }
    let h: i64 = parts[0].parse().map_err(|_| false)?;
    let (m, mut sec_str) = (parts[1], "0");
    let m_has_frac = m.contains('.');
    let (m, mfrac): (i64, f64) = if m_has_frac && parts.len() == 2 {
        // mm.ss fraction is minutes with fractional part? PostgreSQL reads "h:m.f" as m:s.f
        let (a, b) = m.split_once('.').unwrap();
        sec_str = "";
        (
            a.parse().map_err(|_| false)?,
            format!("0.{b}").parse::<f64>().map_err(|_| false)?,
        )
    } else {
        (m.parse().map_err(|_| false)?, 0.0)
    };
    if parts.len() == 3 {
        sec_str = parts[2];
    }
    let (s, us) = if sec_str.is_empty() {
        let total = (mfrac * 60.0 * 1e6).round() as i64;
        (total / 1_000_000, total % 1_000_000)
    } else {
        parse_seconds(sec_str).ok_or(false)?
    };
    if !(0..60).contains(&m) || !(0..=60).contains(&s) || !(0..=24).contains(&h) {
        return Err(true);
    }
    let total = h * USECS_PER_HOUR + m * USECS_PER_MINUTE + s * USECS_PER_SEC + us;
    if total > USECS_PER_DAY {
        return Err(true);
    }
    Ok(total)
}

/// `ss[.ffffff...]` → (seconds, microseconds rounded).
fn parse_seconds(s: &str) -> Option<(i64, i64)> {
    let (a, b) = match s.split_once('.') {
        Some((a, b)) => (a, b),
        None => (s, ""),
    };
    if a.is_empty() && b.is_empty() {
        return None;
    }
    if !a.bytes().all(|c| c.is_ascii_digit()) || !b.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let sec: i64 = if a.is_empty() { 0 } else { a.parse().ok()? };
    let mut us = 0i64;
    if !b.is_empty() {
        let frac: f64 = format!("0.{b}").parse().ok()?;
        us = (frac * 1e6).round() as i64;
    }
    Some((sec, us))
}

fn parse_offset_token(t: &str) -> Option<i32> {
    // +h, +hh, +hhmm, +hh:mm, +hh:mm:ss
    let neg = t.starts_with('-');
    let body = &t[1..];
    let secs = if body.contains(':') {
        parse_hms_offset(body)?
    } else if body.len() <= 2 {
        body.parse::<i32>().ok()? * 3600
    } else if body.len() == 4 {
        let h: i32 = body[..2].parse().ok()?;
        let m: i32 = body[2..].parse().ok()?;
        h * 3600 + m * 60
    } else if body.len() == 6 {
        let h: i32 = body[..2].parse().ok()?;
        let m: i32 = body[2..4].parse().ok()?;
        let s: i32 = body[4..].parse().ok()?;
        h * 3600 + m * 60 + s
    } else {
        return None;
    };
    Some(if neg { -secs } else { secs })
}

/// Parses any of PostgreSQL's date/time input forms into fields.
fn parse_fields(s: &str, kind: DtKind, ctx: &FormatCtx) -> PgResult<Parsed> {
    let syntax = || dt_syntax(kind, s);
    let toks = tokenize(s).ok_or_else(syntax)?;
    if toks.is_empty() {
        return Err(syntax());
    }
    let mut p = Parsed::default();
    // Bare numbers whose role is decided after all tokens are seen.
    let mut loose: Vec<String> = Vec::new();
    for tok in &toks {
        match tok {
            Tok::Date(d) => {
                if p.month.is_some() || p.year.is_some() {
                    return Err(syntax());
                }
                let parts: Vec<&str> = d.split(['-', '/', '.']).collect();
                if parts.len() != 3 || parts.iter().any(|x| x.is_empty()) {
                    return Err(syntax());
                }
                let alpha: Vec<usize> = (0..3)
                    .filter(|&i| parts[i].chars().any(|c| c.is_alphabetic()))
                    .collect();
                let (y, m, dd): (&str, u32, &str);
                if alpha.len() == 1 {
                    let mi = alpha[0];
                    m = month_from_word(parts[mi]).ok_or_else(syntax)?;
                    let nums: Vec<&str> = (0..3).filter(|&i| i != mi).map(|i| parts[i]).collect();
                    if nums[0].len() > 2 {
                        y = nums[0];
                        dd = nums[1];
                    } else if mi == 0 || nums[1].len() > 2 || ctx.date_style.order != DateOrder::Ymd
                    {
                        dd = nums[0];
                        y = nums[1];
                    } else {
                        y = nums[0];
                        dd = nums[1];
                    }
                } else if alpha.is_empty() {
                    let mm: &str;
                    if parts[0].len() > 2 {
                        y = parts[0];
                        mm = parts[1];
                        dd = parts[2];
                    } else {
                        match ctx.date_style.order {
                            DateOrder::Mdy => {
                                mm = parts[0];
                                dd = parts[1];
                                y = parts[2];
                            }
                            DateOrder::Dmy => {
                                dd = parts[0];
                                mm = parts[1];
                                y = parts[2];
                            }
                            DateOrder::Ymd => {
                                y = parts[0];
                                mm = parts[1];
                                dd = parts[2];
                            }
                        }
                    }
                    let mv: u32 = mm.parse().map_err(|_| syntax())?;
                    if mv == 0 || mv > 12 {
                        return Err(dt_md_overflow(s));
                    }
                    m = mv;
                } else {
                    return Err(syntax());
                }
                let yv: i64 = y.parse().map_err(|_| syntax())?;
                let dv: u32 = dd.parse().map_err(|_| syntax())?;
                p.year = Some(yv);
                p.year_digits = y.len();
                p.month = Some(m);
                p.day = Some(dv);
            }
            Tok::Time(t) => {
                if p.time.is_some() {
                    return Err(syntax());
                }
                p.time = Some(parse_time_field(t).map_err(|oor| {
                    if oor {
                        dt_field_overflow(s)
                    } else {
                        syntax()
                    }
                })?);
            }
            Tok::Num(n) => {
                if n.contains('.') {
                    // Seconds fraction after an hhmmss or a Julian day with fraction: rare.
                    return Err(syntax());
                }
                if p.year.is_none() && p.month.is_none() && n.len() == 8 && loose.is_empty() {
                    p.year = Some(n[..4].parse().unwrap());
                    p.year_digits = 4;
                    p.month = Some(n[4..6].parse().unwrap());
                    p.day = Some(n[6..].parse().unwrap());
                    if p.month == Some(0) || p.month.unwrap() > 12 {
                        return Err(dt_md_overflow(s));
                    }
                } else if (p.day.is_some() && p.year.is_some()
                    || matches!(kind, DtKind::Time | DtKind::TimeTz))
                    && p.time.is_none()
                    && (n.len() == 6 || n.len() == 4)
                {
                    let h: i64 = n[..2].parse().unwrap();
                    let m: i64 = n[2..4].parse().unwrap();
                    let sec: i64 = if n.len() == 6 {
                        n[4..].parse().unwrap()
                    } else {
                        0
                    };
                    // 24 is an hour only as 24:00:00 (PostgreSQL's rule for every time field).
                    if h > 24 || m > 59 || sec > 60 || (h == 24 && (m > 0 || sec > 0)) {
                        return Err(dt_field_overflow(s));
                    }
                    p.time = Some(h * USECS_PER_HOUR + m * USECS_PER_MINUTE + sec * USECS_PER_SEC);
                } else {
                    loose.push(n.clone());
                }
            }
            Tok::Word(w) => {
                let w = w.as_str();
                match w {
                    "epoch" => p.special = Some(Special::Epoch),
                    "infinity" | "+infinity" => p.special = Some(Special::Infinity),
                    "-infinity" => p.special = Some(Special::NegInfinity),
                    "now" => p.special = Some(Special::Now),
                    "today" => p.special = Some(Special::Today),
                    "tomorrow" => p.special = Some(Special::Tomorrow),
                    "yesterday" => p.special = Some(Special::Yesterday),
                    "allballs" => {
                        p.special = Some(Special::Allballs);
                        p.time = Some(0);
                        p.zone = Some(Zone::Offset(0));
                    }
                    "am" | "a.m." => p.ampm = Some(false),
                    "pm" | "p.m." => p.ampm = Some(true),
                    "bc" | "b.c." => p.bc = true,
                    "ad" | "a.d." => {}
                    "t" | "on" | "at" => {}
                    _ => {
                        if let Some(m) = month_from_word(w) {
                            if p.month.is_some() {
                                return Err(syntax());
                            }
                            p.month = Some(m);
                        } else if is_day_word(w) {
                        } else if let Some(off) = tz_abbrev_offset(w) {
                            if p.zone.is_some() {
                                return Err(syntax());
                            }
                            p.zone = Some(Zone::Offset(off));
                        } else if w.starts_with('j')
                            && w.len() > 1
                            && w[1..].bytes().all(|c| c.is_ascii_digit())
                        {
                            p.julian = Some(w[1..].parse().map_err(|_| syntax())?);
                        } else if let Some(tz) = lookup_named_zone(w) {
                            if p.zone.is_some() {
                                return Err(syntax());
                            }
                            p.zone = Some(Zone::Named(tz));
                        } else if w.contains('/') {
                            // A word with a slash can only be a zone name.
                            return Err(PgError::new(
                                code::INVALID_PARAMETER_VALUE,
                                format!("time zone \"{w}\" not recognized"),
                            ));
                        } else {
                            return Err(syntax());
                        }
                    }
                }
            }
            Tok::Signed(sv) => {
                if p.time.is_none() && p.day.is_none() && loose.is_empty() {
                    return Err(syntax());
                }
                let off = parse_offset_token(sv).ok_or_else(syntax)?;
                if off.abs() > 15 * 3600 + 59 * 60 + 59 {
                    return Err(PgError::new(
                        code::INVALID_TIME_ZONE_DISPLACEMENT_VALUE,
                        format!("time zone displacement out of range: \"{s}\""),
                    ));
                }
                if p.zone.is_some() {
                    return Err(syntax());
                }
                p.zone = Some(Zone::Offset(off));
            }
        }
    }
    // Assign loose numbers.
    for n in loose {
        let v: i64 = n.parse().map_err(|_| syntax())?;
        if p.month.is_some() && p.day.is_none() && n.len() <= 2 && p.year.is_none() {
            // "Jan 02 2020" / "January 2, 2020"; but "2020 Jan 02" takes the year first.
            p.day = Some(v as u32);
        } else if p.year.is_none() && (n.len() > 2 || p.day.is_some()) {
            p.year = Some(v);
            p.year_digits = n.len();
        } else if p.day.is_none() && n.len() <= 2 {
            p.day = Some(v as u32);
        } else {
            return Err(syntax());
        }
    }
    if let Some(j) = p.julian {
        if p.year.is_some() || p.month.is_some() {
            return Err(syntax());
        }
        let (y, m, d) = j2date(j);
        p.year = Some(y);
        p.year_digits = 4;
        p.month = Some(m);
        p.day = Some(d);
    }
    if let Some(pm) = p.ampm {
        let t = p.time.unwrap_or(0);
        let h = t / USECS_PER_HOUR;
        if h > 12 || h == 0 && p.time.is_none() {
            return Err(dt_field_overflow(s));
        }
        let rest = t % USECS_PER_HOUR;
        let h = match (pm, h) {
            (false, 12) => 0,
            (true, 12) => 12,
            (true, h) => h + 12,
            (false, h) => h,
        };
        p.time = Some(h * USECS_PER_HOUR + rest);
    }
    // Two-digit years are 1970..2069, as PostgreSQL reads them.
    if let Some(y) = p.year {
        if p.year_digits <= 2 && !p.bc && p.julian.is_none() {
            p.year = Some(if y < 70 { y + 2000 } else { y + 1900 });
        }
        if p.bc {
            if y <= 0 {
                return Err(dt_field_overflow(s));
            }
            p.year = Some(1 - p.year.unwrap());
        } else if y == 0 && p.year_digits > 2 {
            return Err(dt_field_overflow(s));
        }
    }
    if let (Some(y), Some(m), Some(d)) = (p.year, p.month, p.day) {
        if d == 0 || d > days_in_month(y, m) {
            return Err(dt_field_overflow(s));
        }
    }
    Ok(p)
}

fn current_local_date(ctx: &FormatCtx) -> i64 {
    let now = tstz_to_local(now_timestamptz(), &ctx.time_zone);
    now.div_euclid(USECS_PER_DAY)
}

/// Parses timestamp (`with_tz` false) or timestamptz input.
pub fn parse_timestamp(s: &str, with_tz: bool, ctx: &FormatCtx) -> PgResult<i64> {
    let kind = if with_tz {
        DtKind::TimestampTz
    } else {
        DtKind::Timestamp
    };
    let p = parse_fields(s, kind, ctx)?;
    if let Some(sp) = p.special {
        let day_start = |delta: i64| {
            let d = current_local_date(ctx) + delta;
            let local = d * USECS_PER_DAY + p.time.unwrap_or(0);
            if with_tz {
                local_to_tstz(local, &ctx.time_zone)
            } else {
                local
            }
        };
        return Ok(match sp {
            Special::Epoch => -UNIX_TO_PG_SECS * USECS_PER_SEC,
            Special::Infinity => TS_POS_INFINITY,
            Special::NegInfinity => TS_NEG_INFINITY,
            Special::Now => {
                let now = now_timestamptz();
                if with_tz {
                    now
                } else {
                    tstz_to_local(now, &ctx.time_zone)
                }
            }
            Special::Today => day_start(0),
            Special::Tomorrow => day_start(1),
            Special::Yesterday => day_start(-1),
            Special::Allballs => return Err(dt_syntax(kind, s)),
        });
    }
    let (Some(y), Some(m), Some(d)) = (p.year, p.month, p.day) else {
        return Err(dt_syntax(kind, s));
    };
    let time = p.time.unwrap_or(0);
    let j = date2j(y, m as i64, d as i64);
    let range_err = || {
        PgError::new(
            code::DATETIME_FIELD_OVERFLOW,
            format!("timestamp out of range: \"{s}\""),
        )
    };
    if !(JULIAN_MIN..=TIMESTAMP_END_JULIAN).contains(&j) {
        return Err(range_err());
    }
    let local = (j - POSTGRES_EPOCH_JDATE) * USECS_PER_DAY + time;
    let ts = if with_tz {
        match p.zone {
            Some(Zone::Offset(off)) => local - off as i64 * USECS_PER_SEC,
            Some(Zone::Named(tz)) => local_to_tstz(local, &TimeZone::Named(tz)),
            None => local_to_tstz(local, &ctx.time_zone),
        }
    } else {
        local
    };
    if !ts_in_range(ts) {
        return Err(range_err());
    }
    Ok(ts)
}

/// Parses date input.
pub fn parse_date(s: &str, ctx: &FormatCtx) -> PgResult<i32> {
    let p = parse_fields(s, DtKind::Date, ctx)?;
    if let Some(sp) = p.special {
        return Ok(match sp {
            Special::Epoch => (UNIX_EPOCH_JDATE - POSTGRES_EPOCH_JDATE) as i32,
            Special::Infinity => DATE_POS_INFINITY,
            Special::NegInfinity => DATE_NEG_INFINITY,
            Special::Now | Special::Today => current_local_date(ctx) as i32,
            Special::Tomorrow => (current_local_date(ctx) + 1) as i32,
            Special::Yesterday => (current_local_date(ctx) - 1) as i32,
            Special::Allballs => return Err(dt_syntax(DtKind::Date, s)),
        });
    }
    let (Some(y), Some(m), Some(d)) = (p.year, p.month, p.day) else {
        return Err(dt_syntax(DtKind::Date, s));
    };
    ymd_to_date(y, m, d).ok_or_else(|| {
        PgError::new(
            code::DATETIME_FIELD_OVERFLOW,
            format!("date out of range: \"{s}\""),
        )
    })
}

/// Parses `time` input (microseconds since midnight); dates and zones are ignored.
pub fn parse_time(s: &str, ctx: &FormatCtx) -> PgResult<i64> {
    let p = parse_fields(s, DtKind::Time, ctx)?;
    if let Some(sp) = p.special {
        return match sp {
            Special::Allballs => Ok(0),
            Special::Now => {
                Ok(tstz_to_local(now_timestamptz(), &ctx.time_zone).rem_euclid(USECS_PER_DAY))
            }
            _ => Err(dt_syntax(DtKind::Time, s)),
        };
    }
    p.time.ok_or_else(|| dt_syntax(DtKind::Time, s))
}

/// Whether a named zone has had one UTC offset all along (PostgreSQL then needs no date to
/// read a time with that zone). Sampled yearly since 1850, which finds every transition a real
/// zone has had in practice.
fn zone_is_fixed(tz: chrono_tz::Tz) -> bool {
    let z = TimeZone::Named(tz);
    let first = utc_offset_at(&z, 0);
    (1850..2040).flat_map(|y| [(y, 1), (y, 7)]).all(|(y, m)| {
        let d = date2j(y, m, 1) - POSTGRES_EPOCH_JDATE;
        utc_offset_at(&z, d * USECS_PER_DAY) == first
    })
}

/// Parses `time with time zone` input: (microseconds since midnight, zone in seconds west of
/// Greenwich, PostgreSQL's sign). Without a zone the session's offset on the given date (or
/// today) applies; a zone with daylight-saving rules needs a date.
pub fn parse_timetz(s: &str, ctx: &FormatCtx) -> PgResult<(i64, i32)> {
    let kind = DtKind::TimeTz;
    let p = parse_fields(s, kind, ctx)?;
    let time = match p.special {
        Some(Special::Allballs) => 0,
        Some(Special::Now) => {
            let now = now_timestamptz();
            let off = utc_offset_at(&ctx.time_zone, now);
            return Ok((
                (now + off as i64 * USECS_PER_SEC).rem_euclid(USECS_PER_DAY),
                -off,
            ));
        }
        Some(_) => return Err(dt_syntax(kind, s)),
        None => p.time.ok_or_else(|| dt_syntax(kind, s))?,
    };
    let has_date = p.year.is_some() || p.month.is_some() || p.day.is_some();
    let full_date = match (p.year, p.month, p.day) {
        (Some(y), Some(m), Some(d)) => Some(date2j(y, m as i64, d as i64) - POSTGRES_EPOCH_JDATE),
        _ => None,
    };
    // The local date the zone's offset is looked up for.
    let day = || -> PgResult<i64> {
        match full_date {
            Some(d) => Ok(d),
            None if has_date => Err(dt_syntax(kind, s)),
            None => Ok(current_local_date(ctx)),
        }
    };
    let east = match p.zone {
        Some(Zone::Offset(off)) => off,
        Some(Zone::Named(tz)) => {
            if zone_is_fixed(tz) {
                utc_offset_at(&TimeZone::Named(tz), 0)
            } else {
                let d = full_date.ok_or_else(|| dt_syntax(kind, s))?;
                local_offset(&TimeZone::Named(tz), d * USECS_PER_DAY + time)
            }
        }
        None => local_offset(&ctx.time_zone, day()? * USECS_PER_DAY + time),
    };
    Ok((time, -east))
}

/// `HH:MM:SS[.ffffff]` and the zone offset (`+05`, `-03:30`, `+05:45:30`); the same in every
/// DateStyle.
pub fn format_timetz(t: i64, zone: i32, out: &mut String) {
    format_time(t, out);
    write_offset(out, -zone);
}

/// PostgreSQL's timetz order: by the UTC instant, then by zone.
pub fn timetz_cmp(a: (i64, i32), b: (i64, i32)) -> std::cmp::Ordering {
    let ua = a.0 + a.1 as i64 * USECS_PER_SEC;
    let ub = b.0 + b.1 as i64 * USECS_PER_SEC;
    ua.cmp(&ub).then(a.1.cmp(&b.1))
}

// ---------------------------------------------------------------------------------------------
// Intervals
// ---------------------------------------------------------------------------------------------

fn interval_syntax(s: &str) -> PgError {
    PgError::new(
        code::INVALID_DATETIME_FORMAT,
        format!("invalid input syntax for type interval: \"{s}\""),
    )
}

fn interval_field_overflow(s: &str) -> PgError {
    PgError::new(
        code::DATETIME_FIELD_OVERFLOW,
        format!("interval field value out of range: \"{s}\""),
    )
}

/// Accumulates interval fields with fractional spill-over, as PostgreSQL does.
#[derive(Default)]
struct IvAcc {
    months: f64,
    days: f64,
    micros: f64,
}

impl IvAcc {
    fn add_months(&mut self, v: f64) {
        let whole = v.trunc();
        self.months += whole;
        self.add_days((v - whole) * 30.0);
    }
    fn add_days(&mut self, v: f64) {
        let whole = v.trunc();
        self.days += whole;
        self.micros += ((v - whole) * USECS_PER_DAY as f64).round();
    }
    fn add_micros(&mut self, v: f64) {
        self.micros += v.round();
    }
    fn finish(&self, s: &str) -> PgResult<Interval> {
        if self.months.abs() > i32::MAX as f64
            || self.days.abs() > i32::MAX as f64
            || self.micros.abs() > i64::MAX as f64
        {
            return Err(interval_field_overflow(s));
        }
        Ok(Interval {
            months: self.months as i32,
            days: self.days as i32,
            micros: self.micros as i64,
        })
    }
}

/// Unit of an interval field: (months multiplier, days multiplier, microseconds multiplier).
fn interval_unit(w: &str) -> Option<(f64, f64, f64)> {
    let us = |x: i64| Some((0.0, 0.0, x as f64));
    match w {
        "microsecond" | "microseconds" | "us" | "usec" | "usecs" | "microsecon" => us(1),
        "millisecond" | "milliseconds" | "ms" | "msec" | "msecs" | "millisecon" => us(1000),
        "second" | "seconds" | "s" | "sec" | "secs" => us(USECS_PER_SEC),
        "minute" | "minutes" | "m" | "min" | "mins" => us(USECS_PER_MINUTE),
        "hour" | "hours" | "h" | "hr" | "hrs" => us(USECS_PER_HOUR),
        "day" | "days" | "d" => Some((0.0, 1.0, 0.0)),
        "week" | "weeks" | "w" => Some((0.0, 7.0, 0.0)),
        "month" | "months" | "mon" | "mons" => Some((1.0, 0.0, 0.0)),
        "year" | "years" | "y" | "yr" | "yrs" => Some((12.0, 0.0, 0.0)),
        "decade" | "decades" | "dec" | "decs" => Some((120.0, 0.0, 0.0)),
        "century" | "centuries" | "c" | "cent" => Some((1200.0, 0.0, 0.0)),
        "millennium" | "millennia" | "mil" | "mils" => Some((12000.0, 0.0, 0.0)),
        _ => None,
    }
}

fn add_unit(acc: &mut IvAcc, v: f64, unit: (f64, f64, f64)) {
    let (mo, d, us) = unit;
    if mo != 0.0 {
        acc.add_months(v * mo);
    } else if d != 0.0 {
        acc.add_days(v * d);
    } else {
        acc.add_micros(v * us);
    }
}

/// Parses interval input: PostgreSQL's verbose form (`1 year 2 mons 3 days 04:05:06`, `@ 1 hour
/// ago`), SQL-standard forms (`1-2`, `3 4:05:06`) and ISO 8601 (`P1Y2M3DT4H5M6S`,
/// `P0001-02-03T04:05:06`).
pub fn parse_interval(s: &str, style: IntervalStyle) -> PgResult<Interval> {
    let t = s.trim();
    if t.is_empty() {
        return Err(interval_syntax(s));
    }
    if t.starts_with(['P', 'p']) {
        return parse_interval_iso(t, s);
    }
    let lower = t.to_lowercase();
    match lower.as_str() {
        "infinity" | "+infinity" | "-infinity" => {
            return Err(interval_syntax(s));
        }
        _ => {}
    }
    // Tokens: numbers (signed, fractional), times h:m[:s], y-m, words.
    let chars: Vec<char> = lower.chars().collect();
    let n = chars.len();
    let mut i = 0;
    let mut toks: Vec<(String, bool)> = Vec::new(); // (text, is_word)
    while i < n {
        let c = chars[i];
        if c.is_whitespace() || c == ',' {
            i += 1;
            continue;
        }
        if c == '@' {
            i += 1;
            continue;
        }
        if c.is_ascii_digit() || c == '.' || c == '+' || c == '-' {
            let start = i;
            i += 1;
            while i < n && (chars[i].is_ascii_digit() || matches!(chars[i], '.' | ':' | '-')) {
                i += 1;
            }
            toks.push((chars[start..i].iter().collect(), false));
            continue;
        }
        if c.is_alphabetic() {
            let start = i;
            while i < n && chars[i].is_alphabetic() {
                i += 1;
            }
            toks.push((chars[start..i].iter().collect(), true));
            continue;
        }
        return Err(interval_syntax(s));
    }
    let mut acc = IvAcc::default();
    let mut ago = false;
    let mut k = 0;
    let mut any = false;
    // SQL standard: a leading '-' applies to all fields when no other field has a sign.
    let sql_neg = style == IntervalStyle::SqlStandard
        && toks.first().is_some_and(|(t, w)| !*w && t.starts_with('-'))
        && toks
            .iter()
            .skip(1)
            .all(|(t, w)| *w || !(t.starts_with('-') || t.starts_with('+')));
    let mut seen_time = false;
    let mut seen_ym = false;
    let mut pending_day: Option<f64> = None;
    while k < toks.len() {
        let (tok, is_word) = &toks[k];
        if *is_word {
            if tok == "ago" {
                ago = true;
                k += 1;
                continue;
            }
            return Err(interval_syntax(s));
        }
        let mut tok = tok.clone();
        if sql_neg && k > 0 && !tok.starts_with(['-', '+']) {
            tok.insert(0, '-');
        }
        let neg = tok.starts_with('-');
        let body = tok.trim_start_matches(['+', '-']);
        if body.contains(':') {
            if seen_time {
                return Err(interval_syntax(s));
            }
            seen_time = true;
            if let Some(dv) = pending_day.take() {
                acc.add_days(dv);
            }
            let us = parse_interval_time(body).ok_or_else(|| interval_syntax(s))?;
            acc.add_micros(if neg { -us } else { us });
            any = true;
            k += 1;
            continue;
        }
        if body.contains('-') {
            // year-month
            if seen_ym {
                return Err(interval_syntax(s));
            }
            seen_ym = true;
            let (y, m) = body.split_once('-').unwrap();
            let y: f64 = y.parse().map_err(|_| interval_syntax(s))?;
            let m: f64 = m.parse().map_err(|_| interval_syntax(s))?;
            if m >= 12.0 {
                return Err(interval_field_overflow(s));
            }
            let v = y * 12.0 + m;
            acc.add_months(if neg { -v } else { v });
            any = true;
            k += 1;
            continue;
        }
        let v: f64 = body.parse().map_err(|_| interval_syntax(s))?;
        if !v.is_finite() {
            return Err(interval_syntax(s));
        }
        let v = if neg { -v } else { v };
        if let Some((w, true)) = toks.get(k + 1) {
            if let Some(unit) = interval_unit(w) {
                add_unit(&mut acc, v, unit);
                any = true;
                k += 2;
                continue;
            }
            if w != "ago" {
                return Err(interval_syntax(s));
            }
        }
        // A bare number: days if a time follows, else seconds (PostgreSQL's default unit).
        let next_is_time = toks.get(k + 1).is_some_and(|(t, w)| !*w && t.contains(':'));
        if next_is_time {
            if pending_day.is_some() {
                return Err(interval_syntax(s));
            }
            pending_day = Some(v);
        } else {
            if any && !seen_ym && k + 1 < toks.len() {
                return Err(interval_syntax(s));
            }
            if toks.iter().filter(|(_, w)| !*w).count() > 2 {
                return Err(interval_syntax(s));
            }
            if seen_ym && !seen_time && k > 0 {
                // "1-2 3" → days
                acc.add_days(v);
            } else {
                acc.add_micros(v * USECS_PER_SEC as f64);
            }
        }
        any = true;
        k += 1;
    }
    if let Some(dv) = pending_day {
        acc.add_days(dv);
    }
    if !any {
        return Err(interval_syntax(s));
    }
    let mut iv = acc.finish(s)?;
    if ago {
        iv = Interval {
            months: -iv.months,
            days: -iv.days,
            micros: -iv.micros,
        };
    }
    Ok(iv)
}

/// `h:m[:s[.f]]` (hours unbounded) → microseconds.
fn parse_interval_time(t: &str) -> Option<f64> {
    let parts: Vec<&str> = t.split(':').collect();
    if parts.len() < 2 || parts.len() > 3 {
        return None;
    }
    let h: f64 = parts[0].parse().ok()?;
    if parts.len() == 2 && parts[1].contains('.') {
        // h:m.f is minutes:seconds.fraction in PostgreSQL
        let (s, us) = parse_seconds(parts[1])?;
        return Some(h * USECS_PER_MINUTE as f64 + (s * USECS_PER_SEC + us) as f64);
    }
    let m: f64 = parts[1].parse().ok()?;
    if !(0.0..60.0).contains(&m) {
        return None;
    }
    let (s, us) = if parts.len() == 3 {
        parse_seconds(parts[2])?
    } else {
        (0, 0)
    };
    if s >= 60 {
        return None;
    }
    Some(h * USECS_PER_HOUR as f64 + m * USECS_PER_MINUTE as f64 + (s * USECS_PER_SEC + us) as f64)
}

fn parse_interval_iso(t: &str, s: &str) -> PgResult<Interval> {
    let body = &t[1..];
    let mut acc = IvAcc::default();
    if body.is_empty() {
        return Err(interval_syntax(s));
    }
    // Alternative format P0001-02-03T04:05:06
    if body.contains('-')
        && body.as_bytes()[0].is_ascii_digit()
        && !body.contains(['Y', 'y', 'D', 'd'])
    {
        let (date, time) = match body.split_once(['T', 't']) {
            Some((d, tt)) => (d, Some(tt)),
            None => (body, None),
        };
        let parts: Vec<&str> = date.split('-').collect();
        let get = |i: usize| -> PgResult<f64> {
            parts
                .get(i)
                .map(|p| p.parse::<f64>().map_err(|_| interval_syntax(s)))
                .unwrap_or(Ok(0.0))
        };
        acc.add_months(get(0)? * 12.0 + get(1)?);
        acc.add_days(get(2)?);
        if let Some(tt) = time {
            let us = parse_interval_time(tt).ok_or_else(|| interval_syntax(s))?;
            acc.add_micros(us);
        }
        return acc.finish(s);
    }
    let mut in_time = false;
    let b = body.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'T' || b[i] == b't' {
            if in_time {
                return Err(interval_syntax(s));
            }
            in_time = true;
            i += 1;
            continue;
        }
        let start = i;
        if b[i] == b'-' || b[i] == b'+' {
            i += 1;
        }
        while i < b.len() && (b[i].is_ascii_digit() || b[i] == b'.') {
            i += 1;
        }
        if i == start || i >= b.len() {
            return Err(interval_syntax(s));
        }
        let v: f64 = body[start..i].parse().map_err(|_| interval_syntax(s))?;
        let unit = b[i].to_ascii_uppercase();
        i += 1;
        match (in_time, unit) {
            (false, b'Y') => acc.add_months(v * 12.0),
            (false, b'M') => acc.add_months(v),
            (false, b'W') => acc.add_days(v * 7.0),
            (false, b'D') => acc.add_days(v),
            (true, b'H') => acc.add_micros(v * USECS_PER_HOUR as f64),
            (true, b'M') => acc.add_micros(v * USECS_PER_MINUTE as f64),
            (true, b'S') => acc.add_micros(v * USECS_PER_SEC as f64),
            _ => return Err(interval_syntax(s)),
        }
    }
    acc.finish(s)
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

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx() -> FormatCtx {
        FormatCtx::default()
    }

    fn ts(s: &str) -> String {
        let v = parse_timestamp(s, false, &ctx()).unwrap();
        let mut o = String::new();
        format_timestamp(v, DateStyle::default(), &mut o);
        o
    }

    fn tstz(s: &str, tz: &str) -> String {
        let mut c = ctx();
        c.time_zone = parse_timezone(tz).unwrap();
        let v = parse_timestamp(s, true, &c).unwrap();
        let mut o = String::new();
        format_timestamptz(v, &c, &mut o);
        o
    }

    fn iv(s: &str, style: IntervalStyle) -> String {
        let v = parse_interval(s, style).unwrap();
        let mut o = String::new();
        format_interval(&v, style, &mut o);
        o
    }

    #[test]
    fn julian() {
        assert_eq!(date2j(2000, 1, 1), POSTGRES_EPOCH_JDATE);
        assert_eq!(date2j(1970, 1, 1), UNIX_EPOCH_JDATE);
        assert_eq!(date2j(-4713, 11, 24), 0);
        for j in [0, 1, 100_000, 2_451_545, 2_451_604, 5_000_000, 109_203_488] {
            let (y, m, d) = j2date(j);
            assert_eq!(date2j(y, m as i64, d as i64), j);
        }
    }

    #[test]
    fn timestamps() {
        assert_eq!(ts("2020-01-02 03:04:05.120"), "2020-01-02 03:04:05.12");
        assert_eq!(ts("2020-01-02T03:04:05Z"), "2020-01-02 03:04:05");
        assert_eq!(ts("epoch"), "1970-01-01 00:00:00");
        assert_eq!(ts("2020-01-02 03:04:05 UTC"), "2020-01-02 03:04:05");
        assert_eq!(ts("2020-01-02 3:04 pm"), "2020-01-02 15:04:00");
        assert_eq!(ts("2020-01-02 12:00 am"), "2020-01-02 00:00:00");
        assert_eq!(ts("20200102T030405"), "2020-01-02 03:04:05");
        assert_eq!(ts("2020-01-02 24:00:00"), "2020-01-03 00:00:00");
        assert_eq!(ts("Jan 2, 2020"), "2020-01-02 00:00:00");
        assert_eq!(ts("01/02/2020"), "2020-01-02 00:00:00");
        assert_eq!(ts("2-Jan-2020"), "2020-01-02 00:00:00");
        assert_eq!(ts("0001-01-01 BC"), "0001-01-01 00:00:00 BC");
        assert_eq!(
            ts("2020-01-02 03:04:05.1234567"),
            "2020-01-02 03:04:05.123457"
        );
        assert_eq!(ts("infinity"), "infinity");
        assert!(parse_timestamp("2020-13-01", false, &ctx()).is_err());
        assert!(parse_timestamp("2020-02-30", false, &ctx()).is_err());
        assert!(parse_timestamp("garbage", false, &ctx()).is_err());
        assert!(parse_timestamp("2020-01-02 25:00", false, &ctx()).is_err());
        let e = parse_timestamp("2020-01-02 03:04:05 xyz", false, &ctx()).unwrap_err();
        assert_eq!(e.code, "22007");
        assert_eq!(
            e.message,
            "invalid input syntax for type timestamp: \"2020-01-02 03:04:05 xyz\""
        );
    }

    #[test]
    fn timestamptz() {
        assert_eq!(
            tstz("2020-01-02 03:04:05+05:30", "UTC"),
            "2020-01-01 21:34:05+00"
        );
        assert_eq!(
            tstz("2020-01-02 03:04:05+00", "Asia/Kolkata"),
            "2020-01-02 08:34:05+05:30"
        );
        assert_eq!(
            tstz("2020-01-02 03:04:05+00", "+05"),
            "2020-01-02 08:04:05+05"
        );
        assert_eq!(
            tstz("2020-01-02 03:04:05+00", "-3:30"),
            "2020-01-02 06:34:05+03:30"
        );
        assert_eq!(
            tstz("2020-07-02 03:04:05+00", "america/new_york"),
            "2020-07-01 23:04:05-04"
        );
        assert_eq!(
            tstz("2020-07-02 03:04:05+00", "UTC+5"),
            "2020-07-01 22:04:05-05"
        );
        assert_eq!(
            tstz("2020-11-01 01:30 America/New_York", "UTC"),
            "2020-11-01 06:30:00+00"
        );
        assert_eq!(
            tstz("2020-03-08 02:30 America/New_York", "UTC"),
            "2020-03-08 07:30:00+00"
        );
        assert_eq!(
            tstz("Thu Jan 02 03:04:05 2020 PST", "UTC"),
            "2020-01-02 11:04:05+00"
        );
        assert_eq!(
            tstz("2020-01-02 03:04:05-0800", "UTC"),
            "2020-01-02 11:04:05+00"
        );
        assert_eq!(timezone_name(&parse_timezone("+05").unwrap()), "<+05>-05");
        assert_eq!(timezone_name(&parse_timezone("utc").unwrap()), "UTC");
        assert_eq!(
            timezone_name(&parse_timezone("america/new_york").unwrap()),
            "America/New_York"
        );
        assert!(parse_timezone("nonexist").is_none());
    }

    #[test]
    fn intervals() {
        let p = IntervalStyle::Postgres;
        assert_eq!(
            iv("1 year 2 mons 3 days 04:05:06", p),
            "1 year 2 mons 3 days 04:05:06"
        );
        assert_eq!(iv("-1 days", p), "-1 days");
        assert_eq!(iv("1 day -01:00", p), "1 day -01:00:00");
        assert_eq!(iv("1.5 days", p), "1 day 12:00:00");
        assert_eq!(iv("01:02:03.456", p), "01:02:03.456");
        assert_eq!(iv("P1Y2M3DT4H5M6S", p), "1 year 2 mons 3 days 04:05:06");
        assert_eq!(iv("1 mon -1 day", p), "1 mon -1 days");
        assert_eq!(iv("1 week", p), "7 days");
        assert_eq!(iv("@ 1 hour ago", p), "-01:00:00");
        assert_eq!(iv("0", p), "00:00:00");
        assert_eq!(iv("1.5 months", p), "1 mon 15 days");
        assert_eq!(iv("1 h 30 m", p), "01:30:00");
        assert_eq!(iv("90 min", p), "01:30:00");
        assert_eq!(iv("2 days 48 hours", p), "2 days 48:00:00");
        assert_eq!(iv("1 day 2", p), "1 day 00:00:02");
        assert_eq!(iv("-1 day 1 hour", p), "-1 days +01:00:00");
        assert_eq!(iv("-1 year 2 mons", p), "-10 mons");
        assert!(parse_interval("xyz", p).is_err());
        assert!(parse_interval("1 2 3", p).is_err());
        let i = IntervalStyle::Iso8601;
        assert_eq!(iv("1 year 2 mons 3 days 04:05:06.5", i), "P1Y2M3DT4H5M6.5S");
        assert_eq!(iv("-1 day", i), "P-1D");
        assert_eq!(iv("0", i), "PT0S");
        assert_eq!(
            iv("1 year -2 mons 3 days -04:05:06.5", i),
            "P10M3DT-4H-5M-6.5S"
        );
        let s = IntervalStyle::SqlStandard;
        assert_eq!(
            iv("1 year 2 mons 3 days 04:05:06.5", s),
            "+1-2 +3 +4:05:06.5"
        );
        assert_eq!(iv("-1 day", s), "-1 0:00:00");
        assert_eq!(iv("1 year -2 mons", s), "0-10");
        assert_eq!(iv("0", s), "0");
        assert_eq!(iv("-1 year -2 mons", s), "-1-2");
        assert_eq!(iv("-1 day 1 hour", s), "-1 1:00:00");
        assert_eq!(iv("1 day -1 hour", s), "+0-0 +1 -1:00:00");
        let v = IntervalStyle::PostgresVerbose;
        assert_eq!(
            iv("1 year 2 mons 3 days 04:05:06.5", v),
            "@ 1 year 2 mons 3 days 4 hours 5 mins 6.5 secs"
        );
        assert_eq!(iv("-1 day -2 hours", v), "@ 1 day 2 hours ago");
        assert_eq!(iv("0", v), "@ 0");
        assert_eq!(iv("-1 day 1 hour", v), "@ 1 day -1 hours ago");
        assert_eq!(iv("1 sec", v), "@ 1 sec");
    }

    #[test]
    fn interval_arith() {
        let p = |s: &str| parse_interval(s, IntervalStyle::Postgres).unwrap();
        let f = |i: Interval| {
            let mut o = String::new();
            format_interval(&i, IntervalStyle::Postgres, &mut o);
            o
        };
        assert_eq!(f(interval_mul(&p("1 day"), 1.5).unwrap()), "1 day 12:00:00");
        assert_eq!(f(interval_div(&p("1 month"), 3.0).unwrap()), "10 days");
        assert_eq!(
            f(interval_div(&p("1 year"), 7.0).unwrap()),
            "1 mon 21 days 10:17:08.5344"
        );
        assert_eq!(
            f(interval_mul(&p("10 seconds"), 0.333).unwrap()),
            "00:00:03.33"
        );
        assert_eq!(
            f(interval_mul(&p("1 mon"), 0.3333).unwrap()),
            "9 days 23:58:33.6"
        );
    }
}
