//! Text output of dates, times, timestamps and intervals in PostgreSQL's styles: DateStyle
//! (ISO, SQL, Postgres, German, with the DMY/MDY order) for dates and timestamps, the session's
//! time zone and its abbreviation for timestamptz, IntervalStyle (postgres, postgres_verbose,
//! sql_standard, iso_8601) for intervals; years before 1 AD print with ` BC`, fractions of a
//! second without trailing zeros.

use super::zone::{tz_abbrev_at, utc_offset_at};
use super::{
    date_to_ymd, is_finite_ts, ts_to_tm, DATE_NEG_INFINITY, DATE_POS_INFINITY, TS_NEG_INFINITY,
    TS_POS_INFINITY, USECS_PER_HOUR, USECS_PER_MINUTE, USECS_PER_SEC,
};
use crate::sql::types::{DateOrder, DateOutput, DateStyle, FormatCtx, Interval, IntervalStyle};
use std::fmt::Write;

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

/// `HH:MM:SS[.ffffff]` and the zone offset (`+05`, `-03:30`, `+05:45:30`); the same in every
/// DateStyle.
pub fn format_timetz(t: i64, zone: i32, out: &mut String) {
    format_time(t, out);
    write_offset(out, -zone);
}
