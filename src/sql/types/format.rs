//! Template formatting: `to_char` for timestamps, intervals and numbers, and the parsing
//! counterparts `to_timestamp(text, text)`, `to_date` and `to_number`, following PostgreSQL's
//! template patterns (formatting.c semantics, written independently).

use super::datetime as dt;
use super::{FormatCtx, Interval, Numeric};
use crate::error::{code, PgError, PgResult};
use std::fmt::Write;

// ---------------------------------------------------------------------------------------------
// Date/time templates
// ---------------------------------------------------------------------------------------------

/// Template keywords, longest first within each prefix so greedy matching works.
const KEYWORDS: &[&str] = &[
    "A.D.", "A.M.", "AD", "AM", "B.C.", "BC", "CC", "DAY", "DDD", "DD", "DY", "Day", "Dy", "D",
    "FF1", "FF2", "FF3", "FF4", "FF5", "FF6", "HH24", "HH12", "HH", "IDDD", "ID", "IW", "IYYY",
    "IYY", "IY", "I", "J", "MI", "MM", "MONTH", "MON", "MS", "Month", "Mon", "OF", "P.M.", "PM",
    "Q", "RM", "SSSSS", "SSSS", "SS", "TZH", "TZM", "TZ", "US", "WW", "W", "Y,YYY", "YYYY", "YYY",
    "YY", "Y", "a.d.", "a.m.", "ad", "am", "b.c.", "bc", "cc", "day", "ddd", "dd", "dy", "d",
    "ff1", "ff2", "ff3", "ff4", "ff5", "ff6", "hh24", "hh12", "hh", "iddd", "id", "iw", "iyyy",
    "iyy", "iy", "i", "j", "mi", "mm", "month", "mon", "ms", "of", "p.m.", "pm", "q", "rm",
    "sssss", "ssss", "ss", "tzh", "tzm", "tz", "us", "ww", "w", "y,yyy", "yyyy", "yyy", "yy", "y",
];

#[derive(Debug, Clone, PartialEq)]
enum Item {
    Lit(String),
    Key {
        key: &'static str,
        fm: bool,
        th: Option<bool>, // Some(upper)
    },
}

fn parse_template(pat: &str) -> Vec<Item> {
    let mut items = Vec::new();
    let mut i = 0;
    let b = pat;
    let mut lit = String::new();
    let flush = |lit: &mut String, items: &mut Vec<Item>| {
        if !lit.is_empty() {
            items.push(Item::Lit(std::mem::take(lit)));
        }
    };
    while i < b.len() {
        let rest = &b[i..];
        // Modifiers.
        let mut fm = false;
        let mut j = i;
        loop {
            let r = &b[j..];
            if r.starts_with("FM") || r.starts_with("fm") {
                fm = true;
                j += 2;
            } else if r.starts_with("FX")
                || r.starts_with("fx")
                || r.starts_with("TM")
                || r.starts_with("tm")
            {
                j += 2;
            } else {
                break;
            }
        }
        let r = &b[j..];
        if let Some(k) = KEYWORDS.iter().find(|k| r.starts_with(**k)) {
            flush(&mut lit, &mut items);
            let mut end = j + k.len();
            let mut th = None;
            let after = &b[end..];
            if after.starts_with("TH") {
                th = Some(true);
                end += 2;
            } else if after.starts_with("th") {
                th = Some(false);
                end += 2;
            }
            if b[end..].starts_with("SP") || b[end..].starts_with("sp") {
                end += 2;
            }
            items.push(Item::Key { key: k, fm, th });
            i = end;
            continue;
        }
        if j > i {
            // Lone modifier: ignored.
            i = j;
            continue;
        }
        let c = rest.chars().next().unwrap();
        if c == '"' {
            // Quoted literal; \" inside is a quote.
            let mut k = i + 1;
            let chars: Vec<char> = b[k..].chars().collect();
            let mut idx = 0;
            while idx < chars.len() {
                let ch = chars[idx];
                if ch == '\\' && idx + 1 < chars.len() && chars[idx + 1] == '"' {
                    lit.push('"');
                    idx += 2;
                    continue;
                }
                if ch == '"' {
                    idx += 1;
                    break;
                }
                lit.push(ch);
                idx += 1;
            }
            k += chars[..idx].iter().map(|c| c.len_utf8()).sum::<usize>();
            i = k;
            continue;
        }
        if c == '\\' && rest[1..].starts_with('"') {
            lit.push('"');
            i += 2;
            continue;
        }
        lit.push(c);
        i += c.len_utf8();
    }
    flush(&mut lit, &mut items);
    items
}

fn ordinal(n: i64, upper: bool) -> &'static str {
    let s = if (n % 100) / 10 == 1 {
        "th"
    } else {
        match n % 10 {
            1 => "st",
            2 => "nd",
            3 => "rd",
            _ => "th",
        }
    };
    if upper {
        match s {
            "st" => "ST",
            "nd" => "ND",
            "rd" => "RD",
            _ => "TH",
        }
    } else {
        s
    }
}

const ROMAN: [&str; 12] = [
    "I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX", "X", "XI", "XII",
];

/// Fields used by the date/time template engine (interval values may exceed calendar ranges).
struct Fields {
    year: i64, // astronomical
    month: i64,
    day: i64,
    hour: i64,
    minute: i64,
    second: i64,
    usec: i64,
    julian: Option<i64>,
    tz: Option<(i32, String)>,
    interval: bool,
}

fn case_text(s: &str, key: &str) -> String {
    if key.chars().all(|c| !c.is_alphabetic() || c.is_uppercase()) {
        s.to_uppercase()
    } else if key.chars().next().is_some_and(|c| c.is_uppercase()) {
        s.to_string()
    } else {
        s.to_lowercase()
    }
}

fn render(items: &[Item], f: &Fields) -> String {
    let mut out = String::new();
    let (dyear, bc) = if f.year <= 0 && !f.interval {
        (1 - f.year, true)
    } else {
        (f.year, false)
    };
    for it in items {
        match it {
            Item::Lit(s) => out.push_str(s),
            Item::Key { key, fm, th } => {
                let upper_key = key.to_uppercase();
                let num = |out: &mut String, v: i64, width: usize| {
                    if *fm {
                        let _ = write!(out, "{v}");
                    } else if v < 0 {
                        let _ = write!(out, "-{:0width$}", -v, width = width.saturating_sub(1));
                    } else {
                        let _ = write!(out, "{v:0width$}");
                    }
                    if let Some(u) = th {
                        out.push_str(ordinal(v, *u));
                    }
                };
                let j = f
                    .julian
                    .unwrap_or_else(|| dt::date2j(f.year, f.month.max(1), f.day.max(1)));
                match upper_key.as_str() {
                    "HH24" => num(&mut out, f.hour, 2),
                    "HH12" | "HH" => {
                        let h = f.hour % 12;
                        num(&mut out, if h == 0 && !f.interval { 12 } else { h }, 2)
                    }
                    "MI" => num(&mut out, f.minute, 2),
                    "SS" => num(&mut out, f.second, 2),
                    "MS" => num(&mut out, f.usec / 1000, 3),
                    "US" => num(&mut out, f.usec, 6),
                    "FF1" | "FF2" | "FF3" | "FF4" | "FF5" | "FF6" => {
                        let d = (upper_key.as_bytes()[2] - b'0') as u32;
                        num(&mut out, f.usec / 10i64.pow(6 - d), d as usize)
                    }
                    "SSSS" | "SSSSS" => num(&mut out, f.hour * 3600 + f.minute * 60 + f.second, 1),
                    "AM" | "PM" => {
                        out.push_str(&case_text(if f.hour >= 12 { "PM" } else { "AM" }, key))
                    }
                    "A.M." | "P.M." => {
                        out.push_str(&case_text(if f.hour >= 12 { "P.M." } else { "A.M." }, key))
                    }
                    "BC" | "AD" => out.push_str(&case_text(if bc { "BC" } else { "AD" }, key)),
                    "B.C." | "A.D." => {
                        out.push_str(&case_text(if bc { "B.C." } else { "A.D." }, key))
                    }
                    "Y,YYY" => {
                        let _ = write!(out, "{},{:03}", dyear / 1000, dyear % 1000);
                    }
                    "YYYY" => num(&mut out, dyear, 4),
                    "YYY" => num(&mut out, dyear % 1000, 3),
                    "YY" => num(&mut out, dyear % 100, 2),
                    "Y" => num(&mut out, dyear % 10, 1),
                    "IYYY" | "IYY" | "IY" | "I" => {
                        let (iy, _) = iso_week(j);
                        let w = upper_key.len();
                        let m = 10i64.pow(w as u32);
                        num(&mut out, if w == 4 { iy } else { iy % m }, w)
                    }
                    "MONTH" | "MON" => {
                        if f.month < 1 || f.month > 12 {
                            continue;
                        }
                        let full = dt::MONTH_NAMES[(f.month - 1) as usize];
                        let s = if upper_key == "MON" { &full[..3] } else { full };
                        let s = case_text(s, key);
                        if upper_key == "MONTH" && !*fm {
                            let _ = write!(out, "{s:<9}");
                        } else {
                            out.push_str(&s);
                        }
                    }
                    "MM" => num(&mut out, f.month, 2),
                    "DAY" | "DY" => {
                        if f.interval {
                            continue;
                        }
                        let full = dt::DAY_NAMES[dt::j2day(j) as usize];
                        let s = if upper_key == "DY" { &full[..3] } else { full };
                        let s = case_text(s, key);
                        if upper_key == "DAY" && !*fm {
                            let _ = write!(out, "{s:<9}");
                        } else {
                            out.push_str(&s);
                        }
                    }
                    "DDD" => num(&mut out, j - dt::date2j(f.year, 1, 1) + 1, 3),
                    "IDDD" => {
                        let (iy, _) = iso_week(j);
                        let start = iso_year_start(iy);
                        num(&mut out, j - start + 1, 3)
                    }
                    "DD" => num(&mut out, f.day, 2),
                    "D" => num(&mut out, dt::j2day(j) as i64 + 1, 1),
                    "ID" => num(&mut out, (dt::j2day(j) as i64 + 6) % 7 + 1, 1),
                    "W" => num(&mut out, (f.day - 1) / 7 + 1, 1),
                    "WW" => num(&mut out, (j - dt::date2j(f.year, 1, 1)) / 7 + 1, 2),
                    "IW" => num(&mut out, iso_week(j).1, 2),
                    "CC" => {
                        let cc = if f.interval {
                            f.year / 100
                        } else if f.year > 0 {
                            (f.year + 99) / 100
                        } else {
                            -((99 - (f.year - 1)) / 100)
                        };
                        num(&mut out, cc, 2)
                    }
                    "J" => num(&mut out, j, 1),
                    "Q" => num(&mut out, (f.month - 1) / 3 + 1, 1),
                    "RM" => {
                        if f.month < 1 || f.month > 12 {
                            continue;
                        }
                        let r = ROMAN[(f.month - 1) as usize];
                        let r = if key.starts_with('r') {
                            r.to_lowercase()
                        } else {
                            r.to_string()
                        };
                        if *fm {
                            out.push_str(&r);
                        } else {
                            let _ = write!(out, "{r:<4}");
                        }
                    }
                    "TZ" => {
                        if let Some((_, a)) = &f.tz {
                            out.push_str(&case_text(a, key));
                        }
                    }
                    "TZH" => {
                        if let Some((o, _)) = &f.tz {
                            let _ = write!(
                                out,
                                "{}{:02}",
                                if *o < 0 { '-' } else { '+' },
                                o.abs() / 3600
                            );
                        }
                    }
                    "TZM" => {
                        if let Some((o, _)) = &f.tz {
                            let _ = write!(out, "{:02}", o.abs() / 60 % 60);
                        }
                    }
                    "OF" => {
                        if let Some((o, _)) = &f.tz {
                            dt::write_offset(&mut out, *o);
                        }
                    }
                    _ => {}
                }
            }
        }
    }
    out
}

fn iso_week(j: i64) -> (i64, i64) {
    let isodow = (dt::j2day(j) + 6) % 7 + 1;
    let thursday = j + (4 - isodow as i64);
    let (y, _, _) = dt::j2date(thursday);
    (y, (thursday - dt::date2j(y, 1, 1)) / 7 + 1)
}

fn iso_year_start(iy: i64) -> i64 {
    // Monday of the week containing January 4th.
    let jan4 = dt::date2j(iy, 1, 4);
    jan4 - ((dt::j2day(jan4) as i64 + 6) % 7)
}

/// to_char for a (local) timestamp; `tz` is (offset, abbreviation) for timestamptz.
pub fn format_timestamp(
    local: i64,
    tz: Option<(i32, String)>,
    pat: &str,
    _ctx: &FormatCtx,
) -> String {
    let tm = dt::ts_to_tm(local);
    let f = Fields {
        year: tm.year,
        month: tm.month as i64,
        day: tm.day as i64,
        hour: tm.hour as i64,
        minute: tm.minute as i64,
        second: tm.second as i64,
        usec: tm.usec as i64,
        julian: Some(tm.julian()),
        tz,
        interval: false,
    };
    render(&parse_template(pat), &f)
}

/// to_char for an interval.
pub fn format_interval(iv: &Interval, pat: &str) -> String {
    let t = iv.micros;
    let f = Fields {
        year: iv.months as i64 / 12,
        month: iv.months as i64 % 12,
        day: iv.days as i64,
        hour: t / dt::USECS_PER_HOUR,
        minute: t / dt::USECS_PER_MINUTE % 60,
        second: t / dt::USECS_PER_SEC % 60,
        usec: t % dt::USECS_PER_SEC,
        julian: Some(0),
        tz: None,
        interval: true,
    };
    render(&parse_template(pat), &f)
}

fn invalid_value(val: &str, key: &str) -> PgError {
    PgError::new(
        code::INVALID_DATETIME_FORMAT,
        format!("invalid value \"{val}\" for \"{key}\""),
    )
}

/// to_timestamp(text, template) / to_date: the local timestamp and an explicit zone offset
/// (seconds east) when the template has TZH/TZM/OF.
pub fn parse_datetime(s: &str, pat: &str, _ctx: &FormatCtx) -> PgResult<(i64, Option<i32>)> {
    let items = parse_template(pat);
    let chars: Vec<char> = s.chars().collect();
    let mut pos = 0usize;
    let mut year: Option<i64> = None;
    let mut year_digits = 4;
    let mut bc = false;
    let mut month: Option<i64> = None;
    let mut day: Option<i64> = None;
    let mut doy: Option<i64> = None;
    let mut julian: Option<i64> = None;
    let mut hour = 0i64;
    let mut hour12 = false;
    let mut pm: Option<bool> = None;
    let mut minute = 0i64;
    let mut second = 0i64;
    let mut usec = 0i64;
    let mut tzh: Option<i64> = None;
    let mut tzm = 0i64;
    let skip_ws = |pos: &mut usize| {
        while *pos < chars.len() && chars[*pos].is_whitespace() {
            *pos += 1;
        }
    };
    for (idx, it) in items.iter().enumerate() {
        match it {
            Item::Lit(l) => {
                for lc in l.chars() {
                    if lc.is_whitespace() {
                        skip_ws(&mut pos);
                        continue;
                    }
                    if pos < chars.len() && (!chars[pos].is_alphanumeric() || chars[pos] == lc) {
                        pos += 1;
                    }
                }
            }
            Item::Key { key, .. } => {
                let up = key.to_uppercase();
                // Fields followed directly by another field read a fixed width.
                let next_is_key = matches!(items.get(idx + 1), Some(Item::Key { .. }));
                let read_int = |pos: &mut usize,
                                width: usize,
                                signed: bool|
                 -> PgResult<(i64, usize)> {
                    skip_ws(pos);
                    let start = *pos;
                    let mut neg = false;
                    if signed && *pos < chars.len() && (chars[*pos] == '-' || chars[*pos] == '+') {
                        neg = chars[*pos] == '-';
                        *pos += 1;
                    }
                    let dstart = *pos;
                    let limit = if next_is_key || width < 4 {
                        width
                    } else {
                        usize::MAX
                    };
                    while *pos < chars.len()
                        && chars[*pos].is_ascii_digit()
                        && *pos - dstart < limit
                    {
                        *pos += 1;
                    }
                    if *pos == dstart {
                        let bad: String = chars[start..]
                            .iter()
                            .take_while(|c| !c.is_whitespace())
                            .take(width.max(2))
                            .collect();
                        return Err(
                            invalid_value(&bad, key).with_detail("Value must be an integer.")
                        );
                    }
                    let digits: String = chars[dstart..*pos].iter().collect();
                    let v: i64 = digits.parse().map_err(|_| invalid_value(&digits, key))?;
                    Ok((if neg { -v } else { v }, *pos - dstart))
                };
                match up.as_str() {
                    "YYYY" | "IYYY" => {
                        let (v, n) = read_int(&mut pos, 4, false)?;
                        year = Some(v);
                        year_digits = n;
                    }
                    "Y,YYY" => {
                        let (a, _) = read_int(&mut pos, 3, false)?;
                        if pos < chars.len() && chars[pos] == ',' {
                            pos += 1;
                        }
                        let (b, _) = read_int(&mut pos, 3, false)?;
                        year = Some(a * 1000 + b);
                    }
                    "YYY" | "IYY" => {
                        let (v, n) = read_int(&mut pos, 3, false)?;
                        year = Some(if n < 3 && v < 70 {
                            v + 2000
                        } else if n < 3 {
                            v + 1900
                        } else if v < 100 {
                            v + 2000
                        } else {
                            v + 1000
                        });
                        year_digits = 4;
                    }
                    "YY" | "IY" => {
                        let (v, n) = read_int(&mut pos, 2, false)?;
                        year = Some(v);
                        year_digits = n.min(2);
                    }
                    "Y" | "I" => {
                        let (v, _) = read_int(&mut pos, 1, false)?;
                        year = Some(2000 + v);
                    }
                    "MM" => month = Some(read_int(&mut pos, 2, false)?.0),
                    "DD" => day = Some(read_int(&mut pos, 2, false)?.0),
                    "DDD" | "IDDD" => doy = Some(read_int(&mut pos, 3, false)?.0),
                    "J" => julian = Some(read_int(&mut pos, 7, false)?.0),
                    "HH24" => hour = read_int(&mut pos, 2, false)?.0,
                    "HH" | "HH12" => {
                        hour = read_int(&mut pos, 2, false)?.0;
                        hour12 = true;
                    }
                    "MI" => minute = read_int(&mut pos, 2, false)?.0,
                    "SS" => second = read_int(&mut pos, 2, false)?.0,
                    "SSSS" | "SSSSS" => {
                        let v = read_int(&mut pos, 5, false)?.0;
                        hour = v / 3600;
                        minute = v / 60 % 60;
                        second = v % 60;
                    }
                    "MS" => {
                        let (v, n) = read_int(&mut pos, 3, false)?;
                        usec += v * [100_000, 10_000, 1000][n.clamp(1, 3) - 1];
                    }
                    "US" | "FF1" | "FF2" | "FF3" | "FF4" | "FF5" | "FF6" => {
                        let w = if up == "US" {
                            6
                        } else {
                            (up.as_bytes()[2] - b'0') as usize
                        };
                        let (v, n) = read_int(&mut pos, w, false)?;
                        usec += v * 10i64.pow((6 - n.min(6)) as u32);
                    }
                    "AM" | "PM" | "A.M." | "P.M." => {
                        skip_ws(&mut pos);
                        let rest: String = chars[pos..]
                            .iter()
                            .take(4)
                            .collect::<String>()
                            .to_uppercase();
                        if rest.starts_with("AM") || rest.starts_with("PM") {
                            pm = Some(rest.starts_with('P'));
                            pos += 2;
                        } else if rest.starts_with("A.M.") || rest.starts_with("P.M.") {
                            pm = Some(rest.starts_with('P'));
                            pos += 4;
                        } else {
                            return Err(invalid_value(&rest, key)
                                .with_detail("The given value did not match any of the allowed values for this field."));
                        }
                    }
                    "BC" | "AD" | "B.C." | "A.D." => {
                        skip_ws(&mut pos);
                        let rest: String = chars[pos..]
                            .iter()
                            .take(4)
                            .collect::<String>()
                            .to_uppercase();
                        if rest.starts_with("BC") || rest.starts_with("AD") {
                            bc = rest.starts_with('B');
                            pos += 2;
                        } else if rest.starts_with("B.C.") || rest.starts_with("A.D.") {
                            bc = rest.starts_with('B');
                            pos += 4;
                        }
                    }
                    "MONTH" | "MON" => {
                        skip_ws(&mut pos);
                        let rest: String = chars[pos..].iter().collect::<String>().to_lowercase();
                        let mut found = None;
                        for (i, name) in dt::MONTH_NAMES.iter().enumerate() {
                            let n = name.to_lowercase();
                            if up == "MONTH" && rest.starts_with(&n) {
                                found = Some((i, n.len()));
                                break;
                            }
                            if rest.starts_with(&n[..3]) {
                                found = Some((
                                    i,
                                    if up == "MONTH" && rest.starts_with(&n) {
                                        n.len()
                                    } else {
                                        3
                                    },
                                ));
                                if up == "MON" {
                                    break;
                                }
                            }
                        }
                        match found {
                            Some((i, len)) => {
                                month = Some(i as i64 + 1);
                                pos += len;
                            }
                            None => {
                                let bad: String = chars[pos..]
                                    .iter()
                                    .take_while(|c| c.is_alphabetic())
                                    .collect();
                                return Err(invalid_value(&bad, key).with_detail(
                                    "The given value did not match any of the allowed values for this field.",
                                ));
                            }
                        }
                    }
                    "DAY" | "DY" => {
                        skip_ws(&mut pos);
                        let rest: String = chars[pos..].iter().collect::<String>().to_lowercase();
                        let mut len = 0;
                        for name in dt::DAY_NAMES.iter() {
                            let n = name.to_lowercase();
                            if up == "DAY" && rest.starts_with(&n) {
                                len = n.len();
                                break;
                            }
                            if rest.starts_with(&n[..3]) {
                                len = 3;
                                break;
                            }
                        }
                        pos += len;
                    }
                    "D" | "ID" => {
                        read_int(&mut pos, 1, false)?;
                    }
                    "W" | "WW" | "IW" | "Q" | "CC" => {
                        read_int(&mut pos, 2, false)?;
                    }
                    "TZH" => {
                        skip_ws(&mut pos);
                        tzh = Some(read_int(&mut pos, 2, true)?.0);
                    }
                    "TZM" => tzm = read_int(&mut pos, 2, false)?.0,
                    "OF" => {
                        let (h, _) = read_int(&mut pos, 2, true)?;
                        tzh = Some(h);
                        if pos < chars.len() && chars[pos] == ':' {
                            pos += 1;
                            tzm = read_int(&mut pos, 2, false)?.0;
                        }
                    }
                    "TZ" => {
                        skip_ws(&mut pos);
                        while pos < chars.len() && chars[pos].is_alphabetic() {
                            pos += 1;
                        }
                    }
                    "RM" => {
                        skip_ws(&mut pos);
                        let rest: String = chars[pos..]
                            .iter()
                            .take(4)
                            .collect::<String>()
                            .to_uppercase();
                        let mut best = None;
                        for (i, r) in ROMAN.iter().enumerate() {
                            if rest.starts_with(r)
                                && best.is_none_or(|(_, l): (usize, usize)| r.len() > l)
                            {
                                best = Some((i, r.len()));
                            }
                        }
                        if let Some((i, l)) = best {
                            month = Some(i as i64 + 1);
                            pos += l;
                        }
                    }
                    _ => {}
                }
            }
        }
    }
    let field_err = || {
        PgError::new(
            code::DATETIME_FIELD_OVERFLOW,
            format!("date/time field value out of range: \"{s}\""),
        )
    };
    if let Some(p) = pm {
        if !(1..=12).contains(&hour) {
            return Err(PgError::new(
                code::INVALID_DATETIME_FORMAT,
                format!("hour \"{hour}\" is invalid for the 12-hour clock"),
            )
            .with_hint("Use the 24-hour clock, or give an hour between 1 and 12."));
        }
        if p && hour < 12 {
            hour += 12;
        } else if !p && hour == 12 {
            hour = 0;
        }
    } else if hour12 && !(1..=12).contains(&hour) {
        return Err(PgError::new(
            code::INVALID_DATETIME_FORMAT,
            format!("hour \"{hour}\" is invalid for the 12-hour clock"),
        )
        .with_hint("Use the 24-hour clock, or give an hour between 1 and 12."));
    }
    let mut y = year.unwrap_or(0);
    if year.is_some() && year_digits <= 2 {
        y = if y < 70 { y + 2000 } else { y + 1900 };
    }
    if bc {
        y = 1 - y;
    } else if year.is_none() {
        y = 0;
    }
    let j = if let Some(j) = julian {
        j
    } else {
        let (m, d) = match (month, day, doy) {
            (None, None, Some(dd)) => {
                let j0 = dt::date2j(y, 1, 1) + dd - 1;
                let (_, m, d) = dt::j2date(j0);
                (m as i64, d as i64)
            }
            _ => (month.unwrap_or(1), day.unwrap_or(1)),
        };
        if !(1..=12).contains(&m) || d < 1 || d > dt::days_in_month(y, m as u32) as i64 {
            return Err(field_err());
        }
        dt::date2j(y, m, d)
    };
    if hour > 24 || minute > 59 || second > 60 {
        return Err(field_err());
    }
    let local = (j - dt::POSTGRES_EPOCH_JDATE) * dt::USECS_PER_DAY
        + hour * dt::USECS_PER_HOUR
        + minute * dt::USECS_PER_MINUTE
        + second * dt::USECS_PER_SEC
        + usec;
    if !dt::ts_in_range(local) {
        return Err(dt::ts_out_of_range());
    }
    let zone = tzh.map(|h| {
        let m = if h < 0 { -tzm } else { tzm };
        (h * 3600 + m * 60) as i32
    });
    Ok((local, zone))
}

// ---------------------------------------------------------------------------------------------
// Number templates
// ---------------------------------------------------------------------------------------------

#[derive(Default, Debug)]
struct NumFmt {
    /// Digit positions before the decimal point ('9' or '0'), in order.
    int_pos: Vec<char>,
    frac_pos: Vec<char>,
    fm: bool,
    sign: Option<&'static str>, // "S", "MI", "PL", "SG", "PR"
    sign_at_end: bool,
    eeee: bool,
    th: Option<bool>,
    roman: bool,
    roman_lower: bool,
    v_digits: usize,
    items: Vec<NItem>,
}

#[derive(Debug, Clone)]
enum NItem {
    Digit(char),
    Point,
    Group,
    Sign(&'static str),
    Lit(String),
    Currency,
}

fn parse_num_template(pat: &str) -> NumFmt {
    let mut f = NumFmt::default();
    let mut seen_point = false;
    let mut i = 0;
    let b = pat.as_bytes();
    while i < b.len() {
        let r = &pat[i..];
        let up = r.to_uppercase();
        if up.starts_with("FM") {
            f.fm = true;
            i += 2;
        } else if up.starts_with("EEEE") {
            f.eeee = true;
            i += 4;
        } else if up.starts_with("TH") {
            f.th = Some(r.starts_with("TH"));
            i += 2;
        } else if up.starts_with("RN") {
            f.roman = true;
            f.roman_lower = r.starts_with("rn");
            i += 2;
        } else if up.starts_with("MI")
            || up.starts_with("PL")
            || up.starts_with("SG")
            || up.starts_with("PR")
        {
            let s: &'static str = match &up[..2] {
                "MI" => "MI",
                "PL" => "PL",
                "SG" => "SG",
                _ => "PR",
            };
            f.sign = Some(s);
            f.sign_at_end = !f.int_pos.is_empty() || !f.frac_pos.is_empty();
            if s != "PR" {
                f.items.push(NItem::Sign(s));
            }
            i += 2;
        } else if b[i] == b'S' || b[i] == b's' {
            f.sign = Some("S");
            f.sign_at_end = !f.int_pos.is_empty() || !f.frac_pos.is_empty();
            f.items.push(NItem::Sign("S"));
            i += 1;
        } else if b[i] == b'9' || b[i] == b'0' {
            let c = b[i] as char;
            if seen_point {
                f.frac_pos.push(c);
            } else {
                f.int_pos.push(c);
            }
            f.items.push(NItem::Digit(c));
            i += 1;
        } else if b[i] == b'.' || b[i] == b'D' || b[i] == b'd' {
            if !seen_point {
                seen_point = true;
                f.items.push(NItem::Point);
            } else {
                f.items.push(NItem::Lit(".".into()));
            }
            i += 1;
        } else if b[i] == b',' || b[i] == b'G' || b[i] == b'g' {
            f.items.push(NItem::Group);
            i += 1;
        } else if b[i] == b'L' || b[i] == b'l' {
            f.items.push(NItem::Currency);
            i += 1;
        } else if b[i] == b'V' || b[i] == b'v' {
            i += 1;
            while i < b.len() && (b[i] == b'9' || b[i] == b'0') {
                f.v_digits += 1;
                f.int_pos.push(b[i] as char);
                f.items.push(NItem::Digit(b[i] as char));
                i += 1;
            }
        } else {
            let c = r.chars().next().unwrap();
            f.items.push(NItem::Lit(c.to_string()));
            i += c.len_utf8();
        }
    }
    f
}

fn to_roman(mut n: i64) -> String {
    const T: [(i64, &str); 13] = [
        (1000, "M"),
        (900, "CM"),
        (500, "D"),
        (400, "CD"),
        (100, "C"),
        (90, "XC"),
        (50, "L"),
        (40, "XL"),
        (10, "X"),
        (9, "IX"),
        (5, "V"),
        (4, "IV"),
        (1, "I"),
    ];
    let mut s = String::new();
    for (v, r) in T {
        while n >= v {
            s.push_str(r);
            n -= v;
        }
    }
    s
}

/// to_char for numeric values.
pub fn format_number(n: &Numeric, pat: &str) -> PgResult<String> {
    let f = parse_num_template(pat);
    if n.is_nan() || n.is_infinite() {
        let width = f.int_pos.len() + f.frac_pos.len() + usize::from(!f.frac_pos.is_empty()) + 1;
        let s = if n.is_nan() {
            "NaN"
        } else if n.is_negative() {
            "-Infinity"
        } else {
            "Infinity"
        };
        if f.fm {
            return Ok(s.to_string());
        }
        return Ok(format!("{s:>width$}"));
    }
    if f.roman {
        let v = n.round(0).to_i64().unwrap_or(0);
        if !(1..=3999).contains(&v) {
            return Ok("#".repeat(15));
        }
        let r = to_roman(v);
        let r = if f.roman_lower { r.to_lowercase() } else { r };
        return Ok(if f.fm { r } else { format!("{r:>15}") });
    }
    let mut n = n.clone();
    if f.v_digits > 0 {
        n = n.mul(&Numeric::from_i64(10i64.pow(f.v_digits as u32)))?;
    }
    if f.eeee {
        return Ok(format_eeee(&n, &f));
    }
    let r = n.round(f.frac_pos.len() as i64);
    let neg = r.is_negative() && !r.is_zero();
    let abs = r.abs().to_string();
    let (ip, fp) = match abs.split_once('.') {
        Some((a, b)) => (a.to_string(), b.to_string()),
        None => (abs.clone(), String::new()),
    };
    let mut ip = if ip == "0" { String::new() } else { ip };
    let nint = f.int_pos.len();
    if ip.is_empty() && f.frac_pos.is_empty() && nint > 0 {
        ip.push('0');
    }
    let overflow = ip.len() > nint;
    let first_zero = f.int_pos.iter().position(|&c| c == '0');
    let pad = nint.saturating_sub(ip.len());
    // The sign written right before the first printed character of the number.
    let anchored: Option<(&str, &str)> = match f.sign {
        None | Some("PL") => Some(("-", if f.fm { "" } else { " " })),
        Some("S") | Some("SG") if !f.sign_at_end => Some(("-", "+")),
        Some("PR") => Some(("<", if f.fm { "" } else { " " })),
        _ => None,
    };
    let mut out = String::new();
    let mut sign_done = anchored.is_none();
    let put_sign = |out: &mut String, done: &mut bool| {
        if !*done {
            if let Some((n_s, p_s)) = anchored {
                out.push_str(if neg { n_s } else { p_s });
            }
            *done = true;
        }
    };
    let mut int_i = 0usize;
    let mut frac_i = 0usize;
    let mut in_frac = false;
    let mut printed = false;
    for it in &f.items {
        match it {
            NItem::Digit(_) if !in_frac => {
                let i = int_i;
                int_i += 1;
                if overflow {
                    put_sign(&mut out, &mut sign_done);
                    out.push('#');
                    continue;
                }
                if i >= pad {
                    put_sign(&mut out, &mut sign_done);
                    out.push(ip.as_bytes()[i - pad] as char);
                    printed = true;
                } else if first_zero.is_some_and(|z| z <= i) {
                    put_sign(&mut out, &mut sign_done);
                    out.push('0');
                    printed = true;
                } else if !f.fm {
                    out.push(' ');
                }
            }
            NItem::Digit(c) => {
                let i = frac_i;
                frac_i += 1;
                if overflow {
                    out.push('#');
                } else {
                    let d = fp.as_bytes().get(i).map(|b| *b as char).unwrap_or('0');
                    // FM drops trailing zeros of '9' positions (done below); keep '0' ones.
                    let _ = c;
                    out.push(d);
                }
            }
            NItem::Point => {
                put_sign(&mut out, &mut sign_done);
                in_frac = true;
                out.push('.');
            }
            NItem::Group => {
                if printed || overflow {
                    out.push(',');
                } else if !f.fm {
                    out.push(' ');
                }
            }
            NItem::Sign(k) => {
                if !matches!(*k, "S" | "SG") || f.sign_at_end {
                    match *k {
                        "MI" => {
                            if neg {
                                out.push('-');
                            } else if !f.fm {
                                out.push(' ');
                            }
                        }
                        "PL" => out.push(if neg { ' ' } else { '+' }),
                        _ => out.push(if neg { '-' } else { '+' }),
                    }
                }
            }
            NItem::Lit(s) => out.push_str(s),
            NItem::Currency => out.push(' '),
        }
    }
    put_sign(&mut out, &mut sign_done);
    if f.sign == Some("PR") {
        if neg {
            out.push('>');
        } else if !f.fm {
            out.push(' ');
        }
    }
    if f.fm && !overflow && !f.frac_pos.is_empty() {
        // Trailing zeros in '9' fraction positions disappear.
        let mut k = f.frac_pos.len();
        let mut s: Vec<char> = out.chars().collect();
        // Find the last fraction digit (before any trailing sign/literal).
        let mut end = s.len();
        while end > 0 && !s[end - 1].is_ascii_digit() && s[end - 1] != '.' {
            end -= 1;
        }
        let tail: Vec<char> = s.split_off(end);
        while k > 0 && f.frac_pos[k - 1] == '9' && s.last() == Some(&'0') {
            s.pop();
            k -= 1;
        }
        s.extend(tail);
        out = s.into_iter().collect();
    }
    if let Some(u) = f.th {
        if !overflow {
            let v = n.round(0).abs().to_i64().unwrap_or(0);
            out.push_str(ordinal(v, u));
        }
    }
    Ok(out)
}

fn format_eeee(n: &Numeric, f: &NumFmt) -> String {
    let digits = f.frac_pos.len();
    let v = n.to_f64();
    let s = format!("{:.*e}", digits, v.abs());
    let (mant, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let sign = if v < 0.0 {
        "-"
    } else if f.fm {
        ""
    } else {
        " "
    };
    format!(
        "{sign}{mant}e{}{:02}",
        if exp < 0 { '-' } else { '+' },
        exp.abs()
    )
}

/// to_char for floats: the value is first rounded to the float's precision, as PostgreSQL.
pub fn format_number_f64(v: f64, pat: &str, digits: usize) -> PgResult<String> {
    if v.is_nan() {
        return format_number(&Numeric::nan(), pat);
    }
    if v.is_infinite() {
        return format_number(
            &if v > 0.0 {
                Numeric::infinity()
            } else {
                Numeric::neg_infinity()
            },
            pat,
        );
    }
    let n = if digits <= 6 {
        Numeric::from_f32(v as f32)
    } else {
        Numeric::from_f64(v)
    };
    format_number(&n, pat)
}

/// to_number(text, template).
pub fn parse_number(s: &str, pat: &str) -> PgResult<Numeric> {
    let f = parse_num_template(pat);
    let mut digits = String::new();
    let mut neg = false;
    let mut seen_point = false;
    let mut frac = 0usize;
    let max_int = f.int_pos.len();
    let mut int_count = 0usize;
    for c in s.chars() {
        match c {
            '0'..='9' => {
                if seen_point {
                    if frac < f.frac_pos.len().max(1) || f.frac_pos.is_empty() {
                        digits.push(c);
                        frac += 1;
                    }
                } else if int_count < max_int || max_int == 0 {
                    digits.push(c);
                    int_count += 1;
                }
            }
            '.' if !f.frac_pos.is_empty() || pat.contains(['.', 'D', 'd']) => {
                seen_point = true;
            }
            '-' | '<' => neg = true,
            _ => {}
        }
    }
    if digits.is_empty() {
        return Err(PgError::new(
            code::INVALID_TEXT_REPRESENTATION,
            "invalid input syntax for type numeric: \" \"",
        ));
    }
    let mut text = String::new();
    if neg {
        text.push('-');
    }
    let split = digits.len() - frac;
    text.push_str(&digits[..split]);
    if frac > 0 {
        text.push('.');
        text.push_str(&digits[split..]);
    }
    Numeric::parse(&text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sql::types::{io, Type};

    fn ts(s: &str) -> i64 {
        match io::from_text(s, Type::TIMESTAMP, -1, &FormatCtx::default()).unwrap() {
            crate::sql::types::Value::Timestamp(t) => t,
            _ => unreachable!(),
        }
    }

    fn n(s: &str, p: &str) -> String {
        format_number(&Numeric::parse(s).unwrap(), p).unwrap()
    }

    #[test]
    fn datetime_templates() {
        let c = FormatCtx::default();
        assert_eq!(
            format_timestamp(
                ts("2020-01-02 15:04:05.123456"),
                None,
                "YYYY-MM-DD HH24:MI:SS.MS US HH12 AM am Mon Month Day Dy DD D DDD WW Q YY YYYY FMMonth FMDD TZ J",
                &c
            ),
            "2020-01-02 15:04:05.123 123456 03 PM pm Jan January   Thursday  Thu 02 5 002 01 1 20 2020 January 2  2458851"
        );
        assert_eq!(
            format_timestamp(ts("2020-03-04"), None, "Day, DDth Month YYYY", &c),
            "Wednesday, 04th March     2020"
        );
        assert_eq!(
            format_timestamp(ts("0044-03-15 BC"), None, "YYYY BC", &c),
            "0044 BC"
        );
        assert_eq!(
            format_timestamp(ts("2020-11-21 00:00"), None, "HH12 AM RM rm", &c),
            "12 AM XI   xi  "
        );
        assert_eq!(
            format_timestamp(
                ts("2020-01-02"),
                None,
                "DDth Dth CC IYYY IW ID W J SSSS SSSSS FF3 \"lit\"",
                &c
            ),
            "02nd 5th 21 2020 01 4 1 2458851 0 0 000 lit"
        );
        let iv = Interval {
            months: 0,
            days: 0,
            micros: 25 * 3_600_000_000 + 180_000_000,
        };
        assert_eq!(format_interval(&iv, "HH24:MI HH12 DD"), "25:03 01 00");
    }

    #[test]
    fn number_templates() {
        assert_eq!(n("123.456", "999.99"), " 123.46");
        assert_eq!(n("-123.456", "999.99"), "-123.46");
        assert_eq!(n("1234567.891", "9,999,999.99"), " 1,234,567.89");
        assert_eq!(n("5", "000"), " 005");
        assert_eq!(n("5", "FM999"), "5");
        assert_eq!(n("0.5", "0.99"), " 0.50");
        assert_eq!(n("0.5", "9.99"), "  .50");
        assert_eq!(n("12345", "999"), " ###");
        assert_eq!(n("-5", "S999"), "  -5");
        assert_eq!(n("5", "999PR"), "   5 ");
        assert_eq!(n("-5", "999PR"), "  <5>");
        assert_eq!(n("123", "9999MI"), " 123 ");
        assert_eq!(n("-123", "9999MI"), " 123-");
        assert_eq!(n("1234.5", "FM9999.00"), "1234.50");
        assert_eq!(n("1234.5", "FM9999.99"), "1234.5");
        assert_eq!(n("0", "9"), " 0");
        assert_eq!(n("0", "FM9"), "0");
        assert_eq!(n("0.1", "FM9.9"), ".1");
        assert_eq!(n("-12.5", "99.9"), "-12.5");
        assert_eq!(n("12.5", "S99.9"), "+12.5");
        assert_eq!(n("12.5", "99.9S"), "12.5+");
        assert_eq!(n("-1", "9990"), "   -1");
        assert_eq!(n("5", "0999"), " 0005");
        assert_eq!(n("1234", "9,999"), " 1,234");
        assert_eq!(n("123", "9,999"), "   123");
        assert_eq!(n("-123", "FM9,999"), "-123");
        assert_eq!(n("99.99", "99.9"), " ##.#");
        assert_eq!(n("100", "FM999th"), "100th");
        assert_eq!(n("3", "RN"), "            III");
        assert_eq!(n("-0.001", "FM990.999"), "-0.001");
        assert_eq!(n("12.3", "FM0000.000"), "0012.300");
        assert_eq!(n("1234.5", "9.99EEEE"), " 1.23e+03");
        assert_eq!(n("7", "9V99"), " 700");
    }

    #[test]
    fn parsing() {
        let c = FormatCtx::default();
        let show = |s: &str, p: &str| {
            let (t, z) = parse_datetime(s, p, &c).unwrap();
            let mut o = String::new();
            dt::format_timestamp(
                t - z.unwrap_or(0) as i64 * 1_000_000,
                Default::default(),
                &mut o,
            );
            o
        };
        assert_eq!(
            show("2020-1-2 3:4:5.5", "YYYY-MM-DD HH24:MI:SS.MS"),
            "2020-01-02 03:04:05.5"
        );
        assert_eq!(show("20200304", "YYYYMMDD"), "2020-03-04 00:00:00");
        assert_eq!(
            show("March 4, 2020 10 PM", "Month DD, YYYY HH PM"),
            "2020-03-04 22:00:00"
        );
        assert_eq!(
            show("2020-03-04 10:11:12.123456", "YYYY-MM-DD HH24:MI:SS.US"),
            "2020-03-04 10:11:12.123456"
        );
        assert_eq!(show("05/06/20", "MM/DD/YY"), "2020-05-06 00:00:00");
        assert_eq!(
            show("2020-03-04 10:11 +05:30", "YYYY-MM-DD HH24:MI TZH:TZM"),
            "2020-03-04 04:41:00"
        );
        assert_eq!(show("10:11", "HH24:MI"), "0001-01-01 10:11:00 BC");
        let e = parse_datetime("2020-ab-01", "YYYY-MM-DD", &c).unwrap_err();
        assert_eq!(e.message, "invalid value \"ab\" for \"MM\"");
        assert!(parse_datetime("2020-02-30", "YYYY-MM-DD", &c).is_err());
        let pn = |s: &str, p: &str| parse_number(s, p).unwrap().to_string();
        assert_eq!(pn("12,345.6", "99,999.9"), "12345.6");
        assert_eq!(pn("-12.5", "999.9"), "-12.5");
        assert_eq!(pn("1.5", "9.99"), "1.5");
        assert_eq!(pn("12345", "99"), "12");
        assert_eq!(pn("<12>", "99PR"), "-12");
        assert_eq!(pn("12-", "99MI"), "-12");
    }
}
