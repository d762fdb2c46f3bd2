//! Text input of intervals: PostgreSQL's verbose form (`1 year 2 mons -3 days 04:05:06`, units
//! in any of their spellings, `ago`), the SQL standard's (`1-2 3 4:05:06`; under IntervalStyle
//! sql_standard a leading `-` applies to every field when no other field has a sign) and
//! ISO 8601's (`P1Y2M3DT4H5M6S` and the alternative form `P0001-02-03T04:05:06`). Fractions of
//! a unit spill into the smaller units as PostgreSQL's do (months to days at 30 days, days to
//! microseconds at 24 hours).

use super::input::parse_seconds;
use super::{USECS_PER_DAY, USECS_PER_HOUR, USECS_PER_MINUTE, USECS_PER_SEC};
use crate::error::{code, PgError, PgResult};
use crate::sql::types::{Interval, IntervalStyle};

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
