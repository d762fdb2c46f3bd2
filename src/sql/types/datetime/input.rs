//! Text input of dates, times, timestamps and timetz, as PostgreSQL's datetime.c parses it:
//! the string is cut into tokens (numbers, words, signs, punctuation), the tokens are read as
//! fields under the session's DateStyle order (a field that is ambiguous there is read as
//! PostgreSQL reads it), and the fields become a value; special words (`epoch`, `infinity`,
//! `now`, `today`, `tomorrow`, `yesterday`, `allballs`), time zone names, abbreviations and
//! offsets, ISO 8601's `T`, Julian days and BC years are understood. Errors carry
//! PostgreSQL's SQLSTATEs and texts (22007 syntax, 22008 field out of range).

use super::zone::{
    local_offset, local_to_tstz, lookup_named_zone, now_timestamptz, parse_hms_offset,
    tstz_to_local, utc_offset_at,
};
use super::{
    date2j, days_in_month, j2date, ts_in_range, ymd_to_date, DATE_NEG_INFINITY, DATE_POS_INFINITY,
    JULIAN_MIN, POSTGRES_EPOCH_JDATE, TIMESTAMP_END_JULIAN, TS_NEG_INFINITY, TS_POS_INFINITY,
    UNIX_EPOCH_JDATE, UNIX_TO_PG_SECS, USECS_PER_DAY, USECS_PER_HOUR, USECS_PER_MINUTE,
    USECS_PER_SEC,
};
use crate::error::{code, PgError, PgResult};
use crate::sql::types::{DateOrder, FormatCtx, TimeZone};

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
pub(super) fn parse_seconds(s: &str) -> Option<(i64, i64)> {
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
