//! Time zones: the names `SET TIME ZONE` accepts (UTC/GMT, IANA names through chrono-tz,
//! bare hour offsets, POSIX-style offsets with POSIX's inverted sign), the offset and
//! abbreviation of a zone at an instant, and the conversions between a UTC timestamp and the
//! local time of a zone (`tstz_to_local`, `local_to_tstz`; a local time that occurs twice
//! takes the offset in force a day later, one skipped by a daylight-saving change the offset
//! in force a day earlier).

use super::{is_finite_ts, UNIX_TO_PG_SECS, USECS_PER_DAY, USECS_PER_SEC};
use crate::sql::types::TimeZone;
use chrono::{NaiveDateTime, Offset, TimeZone as _};
use chrono_tz::OffsetName;

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
pub(super) fn parse_hms_offset(s: &str) -> Option<i32> {
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
