//! The scalar function library: PostgreSQL's built-in functions with their signatures, results
//! and errors.
//!
//! [`lookup`] returns every candidate signature of a (lower-case, unqualified) name; the planner
//! resolves overloads over them. Arguments arrive already cast to the chosen signature's types
//! (polymorphic `anyelement`/`anyarray`/`"any"` arguments as they are). Strict functions are
//! never called with a NULL argument.
//!
//! Functions that need session state (now(), current_user, ...) and the ones whose behavior
//! depends on argument types the signature cannot express (concat, format, pg_typeof) live in
//! the planner / [`session`]; EXTRACT is available both as `extract(text, x)` here and as
//! [`extract_field`] for callers that know the type.

pub mod catalog;
pub mod privs;
pub mod session;
pub mod ssl;

use crate::error::{code, PgError, PgResult};
use crate::sql::types::datetime as dt;
use crate::sql::types::format as fmt;
use crate::sql::types::json;
use crate::sql::types::network;
use crate::sql::types::ops::cmath;
use crate::sql::types::{
    cast, io, ops, Array, FormatCtx, Interval, Numeric, TimeZone, Type, Value,
};
use std::collections::HashMap;
use std::sync::OnceLock;

pub type ScalarFn = fn(&[Value], &FormatCtx) -> PgResult<Value>;

#[derive(Clone, Copy)]
pub struct FuncSig {
    pub name: &'static str,
    pub args: &'static [Type],
    /// The last argument repeats.
    pub variadic: bool,
    pub ret: Type,
    /// NULL in → NULL out without calling `f`.
    pub strict: bool,
    pub f: ScalarFn,
}

/// Every candidate signature for function `name` (lower case, no schema).
pub fn lookup(name: &str) -> &'static [FuncSig] {
    static INDEX: OnceLock<HashMap<&'static str, Vec<FuncSig>>> = OnceLock::new();
    let idx = INDEX.get_or_init(|| {
        let mut m: HashMap<&'static str, Vec<FuncSig>> = HashMap::new();
        for s in FUNCS {
            m.entry(s.name).or_default().push(*s);
        }
        m
    });
    idx.get(name).map(|v| v.as_slice()).unwrap_or(&[])
}

/// The names of the functions in this library (pg_proc lists them).
pub fn names() -> impl Iterator<Item = &'static str> {
    FUNCS.iter().map(|s| s.name)
}

/// Whether a function's result can differ between calls with the same arguments, or is
/// otherwise not folded while planning: the conversions between encodings are stable in
/// PostgreSQL (they depend on the conversions installed), so their errors come at run time,
/// after the RowDescription.
pub fn is_volatile(name: &str) -> bool {
    matches!(
        name,
        "random"
            | "gen_random_uuid"
            | "uuid_generate_v4"
            | "clock_timestamp"
            | "timeofday"
            | "convert"
            | "convert_to"
            | "convert_from"
    )
}

// ---------------------------------------------------------------------------------------------
// Argument helpers
// ---------------------------------------------------------------------------------------------

fn bad_arg(v: &Value) -> PgError {
    PgError::internal(format!("unexpected function argument {v:?}"))
}

fn txt(v: &Value) -> PgResult<&str> {
    v.as_str().ok_or_else(|| bad_arg(v))
}

fn int(v: &Value) -> PgResult<i64> {
    match v {
        Value::Float8(f) => Ok(*f as i64),
        Value::Numeric(n) => n.to_i64(),
        _ => v.as_i64().ok_or_else(|| bad_arg(v)),
    }
}

fn flt(v: &Value) -> PgResult<f64> {
    match v {
        Value::Float8(f) => Ok(*f),
        Value::Float4(f) => Ok(*f as f64),
        Value::Numeric(n) => Ok(n.to_f64()),
        _ => v.as_i64().map(|i| i as f64).ok_or_else(|| bad_arg(v)),
    }
}

fn num(v: &Value) -> PgResult<Numeric> {
    match v {
        Value::Numeric(n) => Ok((**n).clone()),
        Value::Float8(f) => Ok(Numeric::from_f64(*f)),
        Value::Float4(f) => Ok(Numeric::from_f32(*f)),
        _ => v.as_i64().map(Numeric::from_i64).ok_or_else(|| bad_arg(v)),
    }
}

fn bytes(v: &Value) -> PgResult<&[u8]> {
    match v {
        Value::Bytea(b) => Ok(b),
        Value::Text(s) => Ok(s.as_bytes()),
        _ => Err(bad_arg(v)),
    }
}

fn arr(v: &Value) -> PgResult<&Array> {
    match v {
        Value::Array(a) => Ok(a),
        _ => Err(bad_arg(v)),
    }
}

fn ts(v: &Value) -> PgResult<i64> {
    match v {
        Value::Timestamp(t) | Value::TimestampTz(t) => Ok(*t),
        Value::Date(d) => dt::date_to_ts(*d),
        _ => Err(bad_arg(v)),
    }
}

fn ivl(v: &Value) -> PgResult<Interval> {
    match v {
        Value::Interval(i) => Ok(*i),
        _ => Err(bad_arg(v)),
    }
}

fn text(s: impl Into<String>) -> Value {
    Value::Text(s.into())
}

fn numeric(n: Numeric) -> Value {
    Value::Numeric(Box::new(n))
}

fn i4(v: i64) -> PgResult<Value> {
    i32::try_from(v)
        .map(Value::Int4)
        .map_err(|_| PgError::out_of_range("integer"))
}

fn invalid_param(msg: impl Into<String>) -> PgError {
    PgError::new(code::INVALID_PARAMETER_VALUE, msg)
}

fn float_overflow() -> PgError {
    PgError::new(
        code::NUMERIC_VALUE_OUT_OF_RANGE,
        "value out of range: overflow",
    )
}

fn float_underflow() -> PgError {
    PgError::new(
        code::NUMERIC_VALUE_OUT_OF_RANGE,
        "value out of range: underflow",
    )
}

// ---------------------------------------------------------------------------------------------
// Strings
// ---------------------------------------------------------------------------------------------

fn f_length(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    match &a[0] {
        Value::Bytea(b) => i4(b.len() as i64),
        v => i4(txt(v)?.chars().count() as i64),
    }
}

fn f_bpchar_length(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    i4(txt(&a[0])?.trim_end_matches(' ').chars().count() as i64)
}

fn byte_index(b: &[u8], n: i64) -> PgResult<usize> {
    if n < 0 || n as usize >= b.len() {
        return Err(PgError::new(
            code::ARRAY_SUBSCRIPT_ERROR,
            format!("index {n} out of valid range, 0..{}", b.len() as i64 - 1),
        ));
    }
    Ok(n as usize)
}

fn f_get_byte(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    let b = bytes(&a[0])?;
    let i = byte_index(b, int(&a[1])?)?;
    Ok(Value::Int4(b[i] as i32))
}

fn f_set_byte(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    let mut b = bytes(&a[0])?.to_vec();
    let i = byte_index(&b, int(&a[1])?)?;
    b[i] = int(&a[2])? as u8;
    Ok(Value::Bytea(b))
}

fn f_get_bit(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    let b = bytes(&a[0])?;
    let n = int(&a[1])?;
    if n < 0 || n as usize >= b.len() * 8 {
        return Err(PgError::new(
            code::ARRAY_SUBSCRIPT_ERROR,
            format!(
                "index {n} out of valid range, 0..{}",
                b.len() as i64 * 8 - 1
            ),
        ));
    }
    Ok(Value::Int4(((b[n as usize / 8] >> (n % 8)) & 1) as i32))
}

fn f_octet_length(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    i4(bytes(&a[0])?.len() as i64)
}

fn f_bit_length(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    i4(bytes(&a[0])?.len() as i64 * 8)
}

fn f_lower(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    Ok(text(txt(&a[0])?.to_lowercase()))
}

fn f_upper(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    Ok(text(txt(&a[0])?.to_uppercase()))
}

fn f_initcap(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    let mut out = String::new();
    let mut in_word = false;
    for c in txt(&a[0])?.chars() {
        if c.is_alphanumeric() {
            if in_word {
                out.extend(c.to_lowercase());
            } else {
                out.extend(c.to_uppercase());
            }
            in_word = true;
        } else {
            out.push(c);
            in_word = false;
        }
    }
    Ok(text(out))
}

/// Character-based substring with PostgreSQL's handling of start < 1.
fn substr_chars(s: &str, start: i64, count: Option<i64>) -> PgResult<String> {
    if let Some(c) = count {
        if c < 0 {
            return Err(PgError::new(
                code::SUBSTRING_ERROR,
                "negative substring length not allowed",
            ));
        }
    }
    let begin = start.max(1);
    let end = match count {
        Some(c) => start.saturating_add(c),
        None => i64::MAX,
    };
    if end <= begin {
        return Ok(String::new());
    }
    let skip = (begin - 1) as usize;
    let take = usize::try_from(end - begin).unwrap_or(usize::MAX);
    Ok(s.chars().skip(skip).take(take).collect())
}

fn f_substr(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    let count = if a.len() > 2 { Some(int(&a[2])?) } else { None };
    if let Value::Bytea(b) = &a[0] {
        let start = int(&a[1])?;
        if let Some(c) = count {
            if c < 0 {
                return Err(PgError::new(
                    code::SUBSTRING_ERROR,
                    "negative substring length not allowed",
                ));
            }
        }
        let begin = start.max(1);
        let end = count.map(|c| start.saturating_add(c)).unwrap_or(i64::MAX);
        if end <= begin || begin as usize > b.len() {
            return Ok(Value::Bytea(Vec::new()));
        }
        let e = (end - 1).min(b.len() as i64) as usize;
        return Ok(Value::Bytea(b[(begin - 1) as usize..e].to_vec()));
    }
    Ok(text(substr_chars(txt(&a[0])?, int(&a[1])?, count)?))
}

/// substring(text, pattern): the first parenthesized group of the first match, or the whole
/// match; NULL without a match.
fn f_substring_regex(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    let re = ops::compile_regex(txt(&a[1])?, false)?;
    let s = txt(&a[0])?;
    match re.captures(s) {
        None => Ok(Value::Null),
        Some(c) => {
            let m = if c.len() > 1 { c.get(1) } else { c.get(0) };
            Ok(m.map(|m| text(m.as_str())).unwrap_or(Value::Null))
        }
    }
}

/// substring(text SIMILAR pattern ESCAPE esc).
fn f_substring_similar(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    let esc = txt(&a[2])?.chars().next();
    let re = similar_to_regex(txt(&a[1])?, esc)?;
    let re = ops::compile_regex(&re, false)?;
    let s = txt(&a[0])?;
    match re.captures(s) {
        None => Ok(Value::Null),
        Some(c) => {
            let m = if c.len() > 1 { c.get(1) } else { c.get(0) };
            Ok(m.map(|m| text(m.as_str())).unwrap_or(Value::Null))
        }
    }
}

/// similar_to_escape(pattern [, escape]): the regular expression `x SIMILAR TO pattern` tests
/// with `~`.
fn f_similar_to_escape(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    let esc = if a.len() > 1 {
        let e = txt(&a[1])?;
        let mut it = e.chars();
        match (it.next(), it.next()) {
            (None, _) => None,
            (Some(c), None) => Some(c),
            _ => {
                return Err(
                    PgError::new(code::INVALID_ESCAPE_SEQUENCE, "invalid escape string")
                        .with_hint("Escape string must be empty or one character."),
                )
            }
        }
    } else {
        Some('\\')
    };
    Ok(text(similar_to_regex(txt(&a[0])?, esc)?))
}

/// similar_escape(pattern, escape): the pre-13 name; NULL escape means the default.
fn f_similar_escape(a: &[Value], ctx: &FormatCtx) -> PgResult<Value> {
    if a[0].is_null() {
        return Ok(Value::Null);
    }
    if a[1].is_null() {
        return f_similar_to_escape(&a[..1], ctx);
    }
    f_similar_to_escape(a, ctx)
}

/// Translates a SQL SIMILAR TO pattern into a regular expression anchored at both ends, in
/// the same form as PostgreSQL's similar_to_escape().
pub fn similar_to_regex(pat: &str, esc: Option<char>) -> PgResult<String> {
    let mut out = String::from("^(?:");
    let mut chars = pat.chars().peekable();
    let mut in_bracket = false;
    let mut nquotes = 0;
    while let Some(c) = chars.next() {
        if Some(c) == esc && !in_bracket {
            match chars.next() {
                Some('"') => {
                    // Escaped double quotes delimit the part substring() returns.
                    match nquotes {
                        0 => out.push_str("){1,1}?("),
                        1 => out.push_str("){1,1}(?:"),
                        _ => {
                            return Err(PgError::new(
                                code::INVALID_USE_OF_ESCAPE_CHARACTER,
                                "SQL regular expression may not contain more than two escape-double-quote separators",
                            ))
                        }
                    }
                    nquotes += 1;
                }
                Some(d) => {
                    out.push('\\');
                    out.push(d);
                }
                None => {
                    return Err(PgError::new(
                        code::INVALID_ESCAPE_SEQUENCE,
                        "invalid escape string",
                    )
                    .with_hint("Escape string must be empty or one character."))
                }
            }
            continue;
        }
        if in_bracket {
            if c == ']' {
                in_bracket = false;
            }
            if c == '\\' {
                out.push('\\');
            }
            out.push(c);
            continue;
        }
        match c {
            '%' => out.push_str(".*"),
            '_' => out.push('.'),
            '[' => {
                in_bracket = true;
                out.push('[');
            }
            '(' => out.push_str("(?:"),
            '.' | '^' | '$' => {
                out.push('\\');
                out.push(c);
            }
            '\\' => out.push_str("\\\\"),
            _ => out.push(c),
        }
    }
    out.push_str(")$");
    Ok(out)
}

fn f_position(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    if let (Value::Bytea(h), Value::Bytea(n)) = (&a[0], &a[1]) {
        if n.is_empty() {
            return Ok(Value::Int4(1));
        }
        let pos = h.windows(n.len()).position(|w| w == n.as_slice());
        return Ok(Value::Int4(pos.map(|p| p as i32 + 1).unwrap_or(0)));
    }
    let h = txt(&a[0])?;
    let n = txt(&a[1])?;
    Ok(Value::Int4(match h.find(n) {
        Some(b) => h[..b].chars().count() as i32 + 1,
        None => 0,
    }))
}

fn f_replace(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    let s = txt(&a[0])?;
    let from = txt(&a[1])?;
    if from.is_empty() {
        return Ok(text(s));
    }
    Ok(text(s.replace(from, txt(&a[2])?)))
}

fn trim_impl(s: &str, set: &str, left: bool, right: bool) -> String {
    let f = |c: char| set.contains(c);
    let mut r = s;
    if left {
        r = r.trim_start_matches(f);
    }
    if right {
        r = r.trim_end_matches(f);
    }
    r.to_string()
}

fn trim_bytes(b: &[u8], set: &[u8], left: bool, right: bool) -> Vec<u8> {
    let mut s = 0;
    let mut e = b.len();
    if left {
        while s < e && set.contains(&b[s]) {
            s += 1;
        }
    }
    if right {
        while e > s && set.contains(&b[e - 1]) {
            e -= 1;
        }
    }
    b[s..e].to_vec()
}

fn trim_args<const L: bool, const R: bool>(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    if let Value::Bytea(b) = &a[0] {
        let set = bytes(&a[1])?;
        return Ok(Value::Bytea(trim_bytes(b, set, L, R)));
    }
    let set = if a.len() > 1 { txt(&a[1])? } else { " " };
    Ok(text(trim_impl(txt(&a[0])?, set, L, R)))
}

fn pad<const LEFT: bool>(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    let s = txt(&a[0])?;
    let len = int(&a[1])?;
    let fill = if a.len() > 2 { txt(&a[2])? } else { " " };
    if len <= 0 {
        return Ok(text(""));
    }
    let len = len as usize;
    if len > 256 * 1024 * 1024 {
        return Err(PgError::new(
            code::PROGRAM_LIMIT_EXCEEDED,
            "requested length too large",
        ));
    }
    let n = s.chars().count();
    if n >= len || fill.is_empty() {
        return Ok(text(s.chars().take(len).collect::<String>()));
    }
    let padding: String = fill.chars().cycle().take(len - n).collect();
    Ok(text(if LEFT {
        padding + s
    } else {
        format!("{s}{padding}")
    }))
}

fn f_left(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    let s = txt(&a[0])?;
    let n = int(&a[1])?;
    let count = s.chars().count() as i64;
    let take = if n >= 0 {
        n.min(count)
    } else {
        (count + n).max(0)
    };
    Ok(text(s.chars().take(take as usize).collect::<String>()))
}

fn f_right(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    let s = txt(&a[0])?;
    let n = int(&a[1])?;
    let count = s.chars().count() as i64;
    let skip = if n >= 0 {
        (count - n).max(0)
    } else {
        (-n).min(count)
    };
    Ok(text(s.chars().skip(skip as usize).collect::<String>()))
}

fn f_repeat(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    let s = txt(&a[0])?;
    let n = int(&a[1])?;
    if n <= 0 {
        return Ok(text(""));
    }
    if (s.len() as i64).saturating_mul(n) > 1_073_741_823 {
        return Err(PgError::new(
            code::PROGRAM_LIMIT_EXCEEDED,
            "requested length too large",
        ));
    }
    Ok(text(s.repeat(n as usize)))
}

fn f_reverse(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    Ok(text(txt(&a[0])?.chars().rev().collect::<String>()))
}

fn f_split_part(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    let s = txt(&a[0])?;
    let d = txt(&a[1])?;
    let n = int(&a[2])?;
    if n == 0 {
        return Err(invalid_param("field position must not be zero"));
    }
    let parts: Vec<&str> = if d.is_empty() {
        vec![s]
    } else {
        s.split(d).collect()
    };
    let idx = if n > 0 { n - 1 } else { parts.len() as i64 + n };
    Ok(text(if idx >= 0 && (idx as usize) < parts.len() {
        parts[idx as usize]
    } else {
        ""
    }))
}

fn f_starts_with(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    Ok(Value::Bool(txt(&a[0])?.starts_with(txt(&a[1])?)))
}

fn hex_string(b: &[u8]) -> String {
    let mut s = String::with_capacity(b.len() * 2);
    for c in b {
        s.push_str(&format!("{c:02x}"));
    }
    s
}

fn f_md5(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    use md5::Digest;
    let d = md5::Md5::digest(bytes(&a[0])?);
    Ok(text(hex_string(&d)))
}

fn f_sha<const N: u16>(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    use sha2::Digest;
    let b = bytes(&a[0])?;
    let d = match N {
        224 => sha2::Sha224::digest(b).to_vec(),
        256 => sha2::Sha256::digest(b).to_vec(),
        384 => sha2::Sha384::digest(b).to_vec(),
        _ => sha2::Sha512::digest(b).to_vec(),
    };
    Ok(Value::Bytea(d))
}

fn f_chr(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    let n = int(&a[0])?;
    if n == 0 {
        return Err(PgError::new(
            code::PROGRAM_LIMIT_EXCEEDED,
            "null character not permitted",
        ));
    }
    if n < 0 {
        return Err(PgError::new(
            code::PROGRAM_LIMIT_EXCEEDED,
            "character number must be positive",
        ));
    }
    match u32::try_from(n).ok().and_then(char::from_u32) {
        Some(c) => Ok(text(c.to_string())),
        None => Err(PgError::new(
            code::PROGRAM_LIMIT_EXCEEDED,
            format!("requested character too large for encoding: {n}"),
        )),
    }
}

fn f_ascii(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    Ok(Value::Int4(
        txt(&a[0])?.chars().next().map(|c| c as i32).unwrap_or(0),
    ))
}

fn f_to_hex(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    Ok(text(match &a[0] {
        Value::Int8(v) => format!("{:x}", *v as u64),
        v => format!("{:x}", int(v)? as i32 as u32),
    }))
}

/// PostgreSQL's reserved keywords (the ones quote_ident must quote).
const RESERVED: &[&str] = &[
    "all",
    "analyse",
    "analyze",
    "and",
    "any",
    "array",
    "as",
    "asc",
    "asymmetric",
    "authorization",
    "binary",
    "both",
    "case",
    "cast",
    "check",
    "collate",
    "collation",
    "column",
    "concurrently",
    "constraint",
    "create",
    "cross",
    "current_catalog",
    "current_date",
    "current_role",
    "current_schema",
    "current_time",
    "current_timestamp",
    "current_user",
    "default",
    "deferrable",
    "desc",
    "distinct",
    "do",
    "else",
    "end",
    "except",
    "false",
    "fetch",
    "for",
    "foreign",
    "freeze",
    "from",
    "full",
    "grant",
    "group",
    "having",
    "ilike",
    "in",
    "initially",
    "inner",
    "intersect",
    "into",
    "is",
    "isnull",
    "join",
    "lateral",
    "leading",
    "left",
    "like",
    "limit",
    "localtime",
    "localtimestamp",
    "natural",
    "not",
    "notnull",
    "null",
    "offset",
    "on",
    "only",
    "or",
    "order",
    "outer",
    "overlaps",
    "placing",
    "primary",
    "references",
    "returning",
    "right",
    "select",
    "session_user",
    "similar",
    "some",
    "symmetric",
    "system_user",
    "table",
    "tablesample",
    "then",
    "to",
    "trailing",
    "true",
    "union",
    "unique",
    "user",
    "using",
    "variadic",
    "verbose",
    "when",
    "where",
    "window",
    "with",
    "between",
    "bigint",
    "bit",
    "boolean",
    "char",
    "character",
    "coalesce",
    "dec",
    "decimal",
    "exists",
    "extract",
    "float",
    "greatest",
    "grouping",
    "inout",
    "int",
    "integer",
    "interval",
    "least",
    "national",
    "nchar",
    "none",
    "normalize",
    "nullif",
    "numeric",
    "out",
    "overlay",
    "position",
    "precision",
    "real",
    "row",
    "setof",
    "smallint",
    "substring",
    "time",
    "timestamp",
    "treat",
    "trim",
    "values",
    "varchar",
    "xmlattributes",
    "xmlconcat",
    "xmlelement",
    "xmlexists",
    "xmlforest",
    "xmlnamespaces",
    "xmlparse",
    "xmlpi",
    "xmlroot",
    "xmlserialize",
    "xmltable",
];

/// Quotes an identifier if PostgreSQL would need it quoted.
pub fn quote_ident(s: &str) -> String {
    let simple = !s.is_empty()
        && s.chars()
            .next()
            .is_some_and(|c| c.is_ascii_lowercase() || c == '_')
        && s.chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == '$')
        && !RESERVED.contains(&s);
    if simple {
        return s.to_string();
    }
    format!("\"{}\"", s.replace('"', "\"\""))
}

/// Quotes a string literal (E'' form when it contains backslashes).
pub fn quote_literal(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    if s.contains('\\') {
        out.push('E');
    }
    out.push('\'');
    for c in s.chars() {
        if c == '\'' || c == '\\' {
            out.push(c);
        }
        out.push(c);
    }
    out.push('\'');
    out
}

fn any_to_text(v: &Value, ctx: &FormatCtx) -> String {
    match v {
        Value::Text(s) => s.clone(),
        Value::Bool(b) => if *b { "true" } else { "false" }.into(),
        _ => io::to_text(v, io::value_type(v), ctx),
    }
}

fn f_quote_ident(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    Ok(text(quote_ident(txt(&a[0])?)))
}

fn f_quote_literal(a: &[Value], ctx: &FormatCtx) -> PgResult<Value> {
    Ok(text(quote_literal(&any_to_text(&a[0], ctx))))
}

fn f_quote_nullable(a: &[Value], ctx: &FormatCtx) -> PgResult<Value> {
    if a[0].is_null() {
        return Ok(text("NULL"));
    }
    f_quote_literal(a, ctx)
}

fn regex_flags(flags: &str) -> PgResult<(bool, bool)> {
    let mut global = false;
    let mut ci = false;
    for c in flags.chars() {
        match c {
            'g' => global = true,
            'i' => ci = true,
            'c' => ci = false,
            'n' | 'p' | 'w' | 's' | 'm' | 'x' | 't' | 'e' | 'q' | 'b' => {}
            _ => {
                return Err(invalid_param(format!(
                    "invalid regular expression option: \"{c}\""
                )))
            }
        }
    }
    Ok((global, ci))
}

/// Expands a PostgreSQL replacement string (`\1`..`\9`, `\&`, `\\`).
fn expand_replacement(repl: &str, caps: &regex::Captures, out: &mut String) {
    let mut chars = repl.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.peek().copied() {
                Some(d @ '1'..='9') => {
                    chars.next();
                    if let Some(m) = caps.get(d as usize - '0' as usize) {
                        out.push_str(m.as_str());
                    }
                }
                Some('&') => {
                    chars.next();
                    out.push_str(caps.get(0).map(|m| m.as_str()).unwrap_or(""));
                }
                Some('\\') => {
                    chars.next();
                    out.push('\\');
                }
                _ => out.push('\\'),
            }
        } else {
            out.push(c);
        }
    }
}

fn f_regexp_replace(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    let s = txt(&a[0])?;
    let flags = if a.len() > 3 { txt(&a[3])? } else { "" };
    let (global, ci) = regex_flags(flags)?;
    let re = ops::compile_regex(txt(&a[1])?, ci)?;
    let repl = txt(&a[2])?;
    let mut out = String::with_capacity(s.len());
    let mut last = 0;
    for caps in re.captures_iter(s) {
        let m = caps.get(0).unwrap();
        out.push_str(&s[last..m.start()]);
        expand_replacement(repl, &caps, &mut out);
        last = m.end();
        if !global {
            break;
        }
    }
    out.push_str(&s[last..]);
    Ok(text(out))
}

fn f_regexp_match(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    let flags = if a.len() > 2 { txt(&a[2])? } else { "" };
    let (global, ci) = regex_flags(flags)?;
    if global {
        return Err(
            invalid_param("regexp_match() does not support the \"global\" option")
                .with_hint("Use the regexp_matches function instead."),
        );
    }
    let re = ops::compile_regex(txt(&a[1])?, ci)?;
    match re.captures(txt(&a[0])?) {
        None => Ok(Value::Null),
        Some(c) => {
            let items: Vec<Value> = if c.len() > 1 {
                (1..c.len())
                    .map(|i| c.get(i).map(|m| text(m.as_str())).unwrap_or(Value::Null))
                    .collect()
            } else {
                vec![text(c.get(0).unwrap().as_str())]
            };
            Ok(Value::Array(Box::new(Array::one_dim(Type::TEXT, items))))
        }
    }
}

fn f_regexp_split_to_array(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    let flags = if a.len() > 2 { txt(&a[2])? } else { "" };
    let (_, ci) = regex_flags(flags)?;
    let re = ops::compile_regex(txt(&a[1])?, ci)?;
    let s = txt(&a[0])?;
    let mut items = Vec::new();
    let mut last = 0;
    for m in re.find_iter(s) {
        if m.start() == m.end() {
            // Empty matches split between characters.
            if m.start() == 0 || m.start() >= s.len() {
                continue;
            }
        }
        items.push(text(&s[last..m.start()]));
        last = m.end();
    }
    items.push(text(&s[last..]));
    Ok(Value::Array(Box::new(Array::one_dim(Type::TEXT, items))))
}

fn f_regexp_count(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    let re = ops::compile_regex(txt(&a[1])?, false)?;
    i4(re.find_iter(txt(&a[0])?).count() as i64)
}

fn f_regexp_like(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    let flags = if a.len() > 2 { txt(&a[2])? } else { "" };
    let (_, ci) = regex_flags(flags)?;
    let re = ops::compile_regex(txt(&a[1])?, ci)?;
    Ok(Value::Bool(re.is_match(txt(&a[0])?)))
}

fn f_translate(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    let s = txt(&a[0])?;
    let from: Vec<char> = txt(&a[1])?.chars().collect();
    let to: Vec<char> = txt(&a[2])?.chars().collect();
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match from.iter().position(|&f| f == c) {
            Some(i) => {
                if let Some(&t) = to.get(i) {
                    out.push(t);
                }
            }
            None => out.push(c),
        }
    }
    Ok(text(out))
}

fn f_overlay(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    let s = txt(&a[0])?;
    let repl = txt(&a[1])?;
    let start = int(&a[2])?;
    let count = if a.len() > 3 {
        int(&a[3])?
    } else {
        repl.chars().count() as i64
    };
    if start < 1 {
        return Err(PgError::new(
            code::SUBSTRING_ERROR,
            "negative substring length not allowed",
        ));
    }
    let head = substr_chars(s, 1, Some(start - 1))?;
    let tail = substr_chars(s, start + count, None)?;
    Ok(text(format!("{head}{repl}{tail}")))
}

fn f_encode(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    let b = bytes(&a[0])?;
    let f = txt(&a[1])?.to_ascii_lowercase();
    Ok(text(match f.as_str() {
        "hex" => hex_string(b),
        "base64" => {
            use base64::Engine;
            let s = base64::engine::general_purpose::STANDARD.encode(b);
            // PostgreSQL breaks base64 output into lines of 76 characters.
            let mut out = String::with_capacity(s.len() + s.len() / 76);
            for (i, c) in s.chars().enumerate() {
                if i > 0 && i % 76 == 0 {
                    out.push('\n');
                }
                out.push(c);
            }
            out
        }
        "escape" => {
            let mut s = String::new();
            for &c in b {
                if c == b'\\' {
                    s.push_str("\\\\");
                } else if c == 0 || c >= 0x80 {
                    s.push_str(&format!("\\{c:03o}"));
                } else {
                    s.push(c as char);
                }
            }
            s
        }
        _ => return Err(invalid_param(format!("unrecognized encoding: \"{f}\""))),
    }))
}

fn f_decode(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    let s = txt(&a[0])?;
    let f = txt(&a[1])?.to_ascii_lowercase();
    Ok(Value::Bytea(match f.as_str() {
        "hex" => {
            let digits: Vec<u8> = s.bytes().filter(|c| !c.is_ascii_whitespace()).collect();
            if !digits.len().is_multiple_of(2) {
                return Err(invalid_param(
                    "invalid hexadecimal data: odd number of digits",
                ));
            }
            let mut out = Vec::with_capacity(digits.len() / 2);
            for p in digits.chunks(2) {
                let hi = io::hex_val(p[0]).ok_or_else(|| {
                    invalid_param(format!("invalid hexadecimal digit: \"{}\"", p[0] as char))
                })?;
                let lo = io::hex_val(p[1]).ok_or_else(|| {
                    invalid_param(format!("invalid hexadecimal digit: \"{}\"", p[1] as char))
                })?;
                out.push(hi << 4 | lo);
            }
            out
        }
        "base64" => {
            use base64::Engine;
            let clean: String = s.chars().filter(|c| !c.is_whitespace()).collect();
            base64::engine::general_purpose::STANDARD
                .decode(clean.as_bytes())
                .map_err(|_| invalid_param("invalid base64 end sequence"))?
        }
        "escape" => io::parse_bytea(s)?,
        _ => return Err(invalid_param(format!("unrecognized encoding: \"{f}\""))),
    }))
}

/// An encoding named by convert's arguments (`which`: "source" or "destination").
fn encoding_arg(v: &Value, which: &str) -> PgResult<crate::encoding::Enc> {
    let name = txt(v)?;
    crate::encoding::Enc::lookup(name)
        .ok_or_else(|| invalid_param(format!("invalid {which} encoding name \"{name}\"")))
}

fn f_convert_from(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    use crate::encoding::{convert, Enc};
    let src = encoding_arg(&a[1], "source")?;
    let out = convert(bytes(&a[0])?, src, Enc::UTF8)?;
    // The result of a conversion to UTF8 is UTF-8; SQL_ASCII input was checked as UTF-8.
    String::from_utf8(out)
        .map(text)
        .map_err(|e| crate::encoding::invalid_utf8(e.as_bytes(), e.utf8_error().valid_up_to()))
}

fn f_convert_to(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    use crate::encoding::{convert, Enc};
    let dst = encoding_arg(&a[1], "destination")?;
    Ok(Value::Bytea(convert(
        txt(&a[0])?.as_bytes(),
        Enc::UTF8,
        dst,
    )?))
}

/// length(bytea, name): characters in an encoding.
fn f_length_in_encoding(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    let enc = crate::encoding::Enc::lookup(txt(&a[1])?).ok_or_else(|| {
        invalid_param(format!(
            "invalid encoding name \"{}\"",
            txt(&a[1]).unwrap_or("")
        ))
    })?;
    Ok(Value::Int4(
        crate::encoding::char_count(bytes(&a[0])?, enc)? as i32,
    ))
}

fn f_convert(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    let src = encoding_arg(&a[1], "source")?;
    let dst = encoding_arg(&a[2], "destination")?;
    Ok(Value::Bytea(crate::encoding::convert(
        bytes(&a[0])?,
        src,
        dst,
    )?))
}

fn f_concat(a: &[Value], ctx: &FormatCtx) -> PgResult<Value> {
    let mut s = String::new();
    for v in a {
        if !v.is_null() {
            s.push_str(&io::to_text(v, io::value_type(v), ctx));
        }
    }
    Ok(text(s))
}

fn f_concat_ws(a: &[Value], ctx: &FormatCtx) -> PgResult<Value> {
    let sep = match &a[0] {
        Value::Null => return Ok(Value::Null),
        v => txt(v)?.to_string(),
    };
    let parts: Vec<String> = a[1..]
        .iter()
        .filter(|v| !v.is_null())
        .map(|v| io::to_text(v, io::value_type(v), ctx))
        .collect();
    Ok(text(parts.join(&sep)))
}

fn f_string_to_array(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    let s = match &a[0] {
        Value::Null => return Ok(Value::Null),
        v => txt(v)?,
    };
    let null_str = match a.get(2) {
        Some(Value::Text(n)) => Some(n.as_str()),
        _ => None,
    };
    let conv = |p: &str| -> Value {
        if Some(p) == null_str {
            Value::Null
        } else {
            text(p)
        }
    };
    if s.is_empty() {
        return Ok(Value::Array(Box::new(Array::one_dim(Type::TEXT, vec![]))));
    }
    let items: Vec<Value> = match &a[1] {
        Value::Null => s.chars().map(|c| conv(&c.to_string())).collect(),
        v => {
            let d = txt(v)?;
            if d.is_empty() {
                vec![conv(s)]
            } else {
                s.split(d).map(conv).collect()
            }
        }
    };
    Ok(Value::Array(Box::new(Array::one_dim(Type::TEXT, items))))
}

fn f_array_to_string(a: &[Value], ctx: &FormatCtx) -> PgResult<Value> {
    let ar = arr(&a[0])?;
    let d = txt(&a[1])?;
    let null_str = match a.get(2) {
        Some(Value::Text(n)) => Some(n.as_str()),
        _ => None,
    };
    let mut parts = Vec::with_capacity(ar.items.len());
    for v in &ar.items {
        if v.is_null() {
            if let Some(n) = null_str {
                parts.push(n.to_string());
            }
        } else {
            parts.push(io::to_text(v, ar.elem, ctx));
        }
    }
    Ok(text(parts.join(d)))
}

// ---------------------------------------------------------------------------------------------
// Math
// ---------------------------------------------------------------------------------------------

fn f_abs(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    Ok(match &a[0] {
        Value::Int2(v) => Value::Int2(
            v.checked_abs()
                .ok_or_else(|| PgError::out_of_range("smallint"))?,
        ),
        Value::Int4(v) => Value::Int4(
            v.checked_abs()
                .ok_or_else(|| PgError::out_of_range("integer"))?,
        ),
        Value::Int8(v) => Value::Int8(
            v.checked_abs()
                .ok_or_else(|| PgError::out_of_range("bigint"))?,
        ),
        Value::Float4(f) => Value::Float4(f.abs()),
        Value::Float8(f) => Value::Float8(f.abs()),
        Value::Numeric(n) => numeric(n.abs()),
        v => return Err(bad_arg(v)),
    })
}

fn f_round(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    match &a[0] {
        Value::Float8(f) => Ok(Value::Float8(f.round_ties_even())),
        Value::Float4(f) => Ok(Value::Float8((*f as f64).round_ties_even())),
        v => {
            let s = if a.len() > 1 { int(&a[1])? } else { 0 };
            Ok(numeric(num(v)?.round(s)))
        }
    }
}

fn f_trunc(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    match &a[0] {
        Value::Float8(f) => Ok(Value::Float8(f.trunc())),
        v => {
            let s = if a.len() > 1 { int(&a[1])? } else { 0 };
            Ok(numeric(num(v)?.trunc(s)))
        }
    }
}

fn f_ceil(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    match &a[0] {
        Value::Float8(f) => Ok(Value::Float8(f.ceil())),
        v => Ok(numeric(num(v)?.ceil())),
    }
}

fn f_floor(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    match &a[0] {
        Value::Float8(f) => Ok(Value::Float8(f.floor())),
        v => Ok(numeric(num(v)?.floor())),
    }
}

fn f_sign(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    match &a[0] {
        Value::Float8(f) => Ok(Value::Float8(if f.is_nan() {
            f64::NAN
        } else if *f > 0.0 {
            1.0
        } else if *f < 0.0 {
            -1.0
        } else {
            0.0
        })),
        v => {
            let n = num(v)?;
            if n.is_nan() {
                return Ok(numeric(n));
            }
            Ok(numeric(Numeric::from_i64(n.signum() as i64)))
        }
    }
}

fn f_sqrt(a: &[Value], ctx: &FormatCtx) -> PgResult<Value> {
    match &a[0] {
        Value::Numeric(n) => Ok(numeric(n.sqrt()?)),
        v => ops::f8_sqrt(&Value::Float8(flt(v)?), ctx),
    }
}

fn f_cbrt(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    Ok(Value::Float8(cmath::cbrt(flt(&a[0])?)))
}

fn f_power(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    match (&a[0], &a[1]) {
        (Value::Numeric(_), _) | (_, Value::Numeric(_)) => {
            Ok(numeric(num(&a[0])?.power(&num(&a[1])?)?))
        }
        _ => Ok(Value::Float8(ops::f8_pow(flt(&a[0])?, flt(&a[1])?)?)),
    }
}

fn f_exp(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    match &a[0] {
        Value::Numeric(n) => Ok(numeric(n.exp()?)),
        v => {
            let x = flt(v)?;
            if x.is_nan() {
                return Ok(Value::Float8(x));
            }
            if x.is_infinite() {
                return Ok(Value::Float8(if x > 0.0 { x } else { 0.0 }));
            }
            let r = cmath::exp(x);
            if r.is_infinite() {
                return Err(float_overflow());
            }
            if r == 0.0 {
                return Err(float_underflow());
            }
            Ok(Value::Float8(r))
        }
    }
}

fn log_domain(x: f64) -> PgResult<()> {
    if x == 0.0 {
        return Err(PgError::new(
            code::INVALID_ARGUMENT_FOR_LOG,
            "cannot take logarithm of zero",
        ));
    }
    if x < 0.0 {
        return Err(PgError::new(
            code::INVALID_ARGUMENT_FOR_LOG,
            "cannot take logarithm of a negative number",
        ));
    }
    Ok(())
}

fn f_ln(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    match &a[0] {
        Value::Numeric(n) => Ok(numeric(n.ln()?)),
        v => {
            let x = flt(v)?;
            log_domain(x)?;
            Ok(Value::Float8(cmath::ln(x)))
        }
    }
}

fn f_log10(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    match &a[0] {
        Value::Numeric(n) => Ok(numeric(Numeric::log(&Numeric::from_i64(10), n)?)),
        v => {
            let x = flt(v)?;
            log_domain(x)?;
            Ok(Value::Float8(cmath::log10(x)))
        }
    }
}

fn f_log_base(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    Ok(numeric(Numeric::log(&num(&a[0])?, &num(&a[1])?)?))
}

fn f_mod(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    match (&a[0], &a[1]) {
        (Value::Numeric(_), _) | (_, Value::Numeric(_)) => {
            Ok(numeric(num(&a[0])?.rem(&num(&a[1])?)?))
        }
        (x, y) => {
            let (p, q) = (int(x)?, int(y)?);
            if q == 0 {
                return Err(PgError::division_by_zero());
            }
            let r = if q == -1 { 0 } else { p % q };
            Ok(match x {
                Value::Int2(_) => Value::Int2(r as i16),
                Value::Int4(_) => Value::Int4(r as i32),
                _ => Value::Int8(r),
            })
        }
    }
}

fn f_div(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    Ok(numeric(num(&a[0])?.div_trunc(&num(&a[1])?)?))
}

fn gcd_u128(mut a: u128, mut b: u128) -> u128 {
    while b != 0 {
        let t = a % b;
        a = b;
        b = t;
    }
    a
}

fn f_gcd(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    match (&a[0], &a[1]) {
        (Value::Int4(x), Value::Int4(y)) => {
            let g = gcd_u128(x.unsigned_abs() as u128, y.unsigned_abs() as u128);
            i32::try_from(g)
                .map(Value::Int4)
                .map_err(|_| PgError::out_of_range("integer"))
        }
        (Value::Int8(x), Value::Int8(y)) => {
            let g = gcd_u128(x.unsigned_abs() as u128, y.unsigned_abs() as u128);
            i64::try_from(g)
                .map(Value::Int8)
                .map_err(|_| PgError::out_of_range("bigint"))
        }
        _ => Ok(numeric(num(&a[0])?.gcd(&num(&a[1])?))),
    }
}

fn f_lcm(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    let lcm = |x: i128, y: i128| -> i128 {
        if x == 0 || y == 0 {
            return 0;
        }
        let g = gcd_u128(x.unsigned_abs(), y.unsigned_abs()) as i128;
        (x / g * y).abs()
    };
    match (&a[0], &a[1]) {
        (Value::Int4(x), Value::Int4(y)) => i32::try_from(lcm(*x as i128, *y as i128))
            .map(Value::Int4)
            .map_err(|_| PgError::out_of_range("integer")),
        (Value::Int8(x), Value::Int8(y)) => i64::try_from(lcm(*x as i128, *y as i128))
            .map(Value::Int8)
            .map_err(|_| PgError::out_of_range("bigint")),
        _ => {
            let (x, y) = (num(&a[0])?, num(&a[1])?);
            if x.is_zero() || y.is_zero() {
                return Ok(numeric(
                    Numeric::zero().round(x.scale().max(y.scale()) as i64),
                ));
            }
            let g = x.gcd(&y);
            Ok(numeric(
                x.div_trunc(&g)?
                    .mul(&y)?
                    .abs()
                    .round(x.scale().max(y.scale()) as i64),
            ))
        }
    }
}

fn f_pi(_: &[Value], _: &FormatCtx) -> PgResult<Value> {
    Ok(Value::Float8(std::f64::consts::PI))
}

fn f_degrees(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    Ok(Value::Float8(flt(&a[0])? / RADIANS_PER_DEGREE))
}

fn f_radians(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    Ok(Value::Float8(flt(&a[0])? * RADIANS_PER_DEGREE))
}

fn trig_out_of_range() -> PgError {
    PgError::new(code::NUMERIC_VALUE_OUT_OF_RANGE, "input is out of range")
}

fn f_trig<const K: u8>(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    let x = flt(&a[0])?;
    if x.is_nan() {
        return Ok(Value::Float8(x));
    }
    let r = match K {
        0 => {
            if x.is_infinite() {
                return Err(trig_out_of_range());
            }
            cmath::sin(x)
        }
        1 => {
            if x.is_infinite() {
                return Err(trig_out_of_range());
            }
            cmath::cos(x)
        }
        2 => {
            if x.is_infinite() {
                return Err(trig_out_of_range());
            }
            cmath::tan(x)
        }
        3 => {
            if !(-1.0..=1.0).contains(&x) {
                return Err(trig_out_of_range());
            }
            cmath::asin(x)
        }
        4 => {
            if !(-1.0..=1.0).contains(&x) {
                return Err(trig_out_of_range());
            }
            cmath::acos(x)
        }
        5 => cmath::atan(x),
        6 => {
            if x.is_infinite() {
                return Err(trig_out_of_range());
            }
            1.0 / cmath::tan(x)
        }
        7 => cmath::sinh(x),
        8 => cmath::cosh(x),
        9 => cmath::tanh(x),
        10 => cmath::asinh(x),
        11 => {
            if x < 1.0 {
                return Err(trig_out_of_range());
            }
            cmath::acosh(x)
        }
        _ => {
            if !(-1.0..=1.0).contains(&x) {
                return Err(trig_out_of_range());
            }
            cmath::atanh(x)
        }
    };
    Ok(Value::Float8(r))
}

const RADIANS_PER_DEGREE: f64 = 0.017_453_292_519_943_295;

/// Degree-based trigonometry computed from exact anchor angles (30, 45, 60 degrees) so that
/// sind(30) = 0.5 etc. come out exact, as PostgreSQL's do.
mod jsonb_set;

mod degtrig {
    use super::cmath;
    use super::RADIANS_PER_DEGREE as RPD;

    fn sin_30() -> f64 {
        cmath::sin(30.0 * RPD)
    }
    fn one_minus_cos_60() -> f64 {
        1.0 - cmath::cos(60.0 * RPD)
    }
    fn sin_0_to_30(x: f64) -> f64 {
        (cmath::sin(x * RPD) / sin_30()) / 2.0
    }
    fn cos_0_to_60(x: f64) -> f64 {
        1.0 - ((1.0 - cmath::cos(x * RPD)) / one_minus_cos_60()) / 2.0
    }
    pub fn sind_q1(x: f64) -> f64 {
        if x <= 30.0 {
            sin_0_to_30(x)
        } else {
            cos_0_to_60(90.0 - x)
        }
    }
    pub fn cosd_q1(x: f64) -> f64 {
        if x <= 60.0 {
            cos_0_to_60(x)
        } else {
            sin_0_to_30(90.0 - x)
        }
    }
    pub fn asind_q1(x: f64) -> f64 {
        if x <= 0.5 {
            (cmath::asin(x) / cmath::asin(0.5)) * 30.0
        } else {
            90.0 - (cmath::acos(x) / cmath::acos(0.5)) * 60.0
        }
    }
    pub fn acosd_q1(x: f64) -> f64 {
        if x <= 0.5 {
            90.0 - (cmath::asin(x) / cmath::asin(0.5)) * 30.0
        } else {
            (cmath::acos(x) / cmath::acos(0.5)) * 60.0
        }
    }
    pub fn tan_45() -> f64 {
        sind_q1(45.0) / cosd_q1(45.0)
    }
}

/// Degree-based trig functions (sind, cosd, tand, cotd, asind, acosd, atand).
fn f_trigd<const K: u8>(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    use degtrig::*;
    let x = flt(&a[0])?;
    if x.is_nan() {
        return Ok(Value::Float8(x));
    }
    let r = match K {
        0 => {
            // sind
            if x.is_infinite() {
                return Err(trig_out_of_range());
            }
            let mut arg = x % 360.0;
            let mut sign = 1.0;
            if arg < 0.0 {
                arg = -arg;
                sign = -sign;
            }
            if arg > 180.0 {
                arg = 360.0 - arg;
                sign = -sign;
            }
            if arg > 90.0 {
                arg = 180.0 - arg;
            }
            sign * sind_q1(arg)
        }
        1 => {
            // cosd
            if x.is_infinite() {
                return Err(trig_out_of_range());
            }
            let mut arg = (x % 360.0).abs();
            let mut sign = 1.0;
            if arg > 180.0 {
                arg = 360.0 - arg;
            }
            if arg > 90.0 {
                arg = 180.0 - arg;
                sign = -sign;
            }
            sign * cosd_q1(arg)
        }
        2 | 6 => {
            // tand, cotd
            if x.is_infinite() {
                return Err(trig_out_of_range());
            }
            let mut arg = x % 360.0;
            let mut sign = 1.0;
            if arg < 0.0 {
                arg = -arg;
                sign = -sign;
            }
            if arg > 180.0 {
                arg = 360.0 - arg;
                sign = -sign;
            }
            if arg > 90.0 {
                arg = 180.0 - arg;
                sign = -sign;
            }
            let t = if K == 2 {
                sind_q1(arg) / cosd_q1(arg)
            } else {
                cosd_q1(arg) / sind_q1(arg)
            };
            let r = sign * (t / tan_45());
            if r == 0.0 {
                0.0
            } else {
                r
            }
        }
        3 => {
            if !(-1.0..=1.0).contains(&x) {
                return Err(trig_out_of_range());
            }
            if x >= 0.0 {
                asind_q1(x)
            } else {
                -asind_q1(-x)
            }
        }
        4 => {
            if !(-1.0..=1.0).contains(&x) {
                return Err(trig_out_of_range());
            }
            if x >= 0.0 {
                acosd_q1(x)
            } else {
                90.0 + asind_q1(-x)
            }
        }
        _ => (cmath::atan(x) / cmath::atan(1.0)) * 45.0,
    };
    Ok(Value::Float8(r))
}

fn f_atan2(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    Ok(Value::Float8(cmath::atan2(flt(&a[0])?, flt(&a[1])?)))
}

fn f_atan2d(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    let (y, x) = (flt(&a[0])?, flt(&a[1])?);
    if y.is_nan() || x.is_nan() {
        return Ok(Value::Float8(f64::NAN));
    }
    Ok(Value::Float8(
        (cmath::atan2(y, x) / cmath::atan(1.0)) * 45.0,
    ))
}

thread_local! {
    /// State of random(): xoroshiro128**, seeded like PostgreSQL's so setseed() reproduces
    /// PostgreSQL's sequences. Per worker thread (sessions do not own their generator).
    static PRNG: std::cell::Cell<Option<(u64, u64)>> = const { std::cell::Cell::new(None) };
}

fn splitmix64(x: &mut u64) -> u64 {
    *x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *x;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn prng_seed(seed: u64) -> (u64, u64) {
    let mut x = seed;
    let a = splitmix64(&mut x);
    let b = splitmix64(&mut x);
    if a == 0 && b == 0 {
        (1, 0)
    } else {
        (a, b)
    }
}

/// The next random double in [0, 1), as PostgreSQL's pg_prng_double.
pub fn random_double() -> f64 {
    PRNG.with(|cell| {
        let (s0, mut s1) = cell.get().unwrap_or_else(|| prng_seed(rand::random()));
        let val = s0.wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        s1 ^= s0;
        let n0 = s0.rotate_left(24) ^ s1 ^ (s1 << 16);
        let n1 = s1.rotate_left(37);
        cell.set(Some((n0, n1)));
        (val >> 12) as f64 * (2.0f64).powi(-52)
    })
}

fn f_random(_: &[Value], _: &FormatCtx) -> PgResult<Value> {
    Ok(Value::Float8(random_double()))
}

fn f_setseed(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    let seed = flt(&a[0])?;
    if !(-1.0..=1.0).contains(&seed) {
        let mut g = String::new();
        io::write_float8(seed, -9, &mut g);
        return Err(invalid_param(format!(
            "setseed parameter {g} is out of allowed range [-1,1]"
        )));
    }
    let iseed = (seed * ((1u64 << 52) - 1) as f64) as i64;
    PRNG.with(|cell| cell.set(Some(prng_seed(iseed as u64))));
    Ok(Value::Void)
}

fn f_timeofday(_: &[Value], ctx: &FormatCtx) -> PgResult<Value> {
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
fn f_overlaps(a: &[Value], ctx: &FormatCtx) -> PgResult<Value> {
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

fn f_scale(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    let n = num(&a[0])?;
    if !n.is_finite() {
        return Ok(Value::Null);
    }
    Ok(Value::Int4(n.scale() as i32))
}

fn f_min_scale(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    let n = num(&a[0])?;
    if !n.is_finite() {
        return Ok(Value::Null);
    }
    Ok(Value::Int4(n.min_scale() as i32))
}

fn f_trim_scale(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    Ok(numeric(num(&a[0])?.trim_scale()))
}

fn f_factorial(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    let n = int(&a[0])?;
    if n < 0 {
        return Err(PgError::new(
            code::INVALID_PARAMETER_VALUE,
            "factorial of a negative number is undefined",
        ));
    }
    if n > 32177 {
        return Err(crate::sql::types::numeric::overflow_error());
    }
    let mut r = Numeric::from_i64(1);
    for i in 2..=n {
        r = r.mul(&Numeric::from_i64(i))?;
    }
    Ok(numeric(r))
}

fn f_width_bucket(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    let count = int(&a[3])?;
    if count <= 0 {
        return Err(PgError::new(
            code::INVALID_ARGUMENT_FOR_WIDTH_BUCKET_FUNCTION,
            "count must be greater than zero",
        ));
    }
    let (op, lo, hi) = (flt(&a[0])?, flt(&a[1])?, flt(&a[2])?);
    if op.is_nan() || lo.is_nan() || hi.is_nan() {
        return Err(PgError::new(
            code::INVALID_ARGUMENT_FOR_WIDTH_BUCKET_FUNCTION,
            "operand, lower bound, and upper bound cannot be NaN",
        ));
    }
    if lo.is_infinite() || hi.is_infinite() {
        return Err(PgError::new(
            code::INVALID_ARGUMENT_FOR_WIDTH_BUCKET_FUNCTION,
            "lower and upper bounds must be finite",
        ));
    }
    if lo == hi {
        return Err(PgError::new(
            code::INVALID_ARGUMENT_FOR_WIDTH_BUCKET_FUNCTION,
            "lower bound cannot equal upper bound",
        ));
    }
    let r = if lo < hi {
        if op < lo {
            0
        } else if op >= hi {
            count + 1
        } else {
            ((op - lo) / (hi - lo) * count as f64) as i64 + 1
        }
    } else if op > lo {
        0
    } else if op <= hi {
        count + 1
    } else {
        ((lo - op) / (lo - hi) * count as f64) as i64 + 1
    };
    i4(r)
}

// ---------------------------------------------------------------------------------------------
// Date/time
// ---------------------------------------------------------------------------------------------

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

fn extract_as<const T: u32>(a: &[Value], ctx: &FormatCtx) -> PgResult<Value> {
    extract_field(txt(&a[0])?, &a[1], Type(T), ctx)
}

fn date_part_as<const T: u32>(a: &[Value], ctx: &FormatCtx) -> PgResult<Value> {
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

fn f_date_trunc(a: &[Value], ctx: &FormatCtx) -> PgResult<Value> {
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

fn f_age(a: &[Value], ctx: &FormatCtx) -> PgResult<Value> {
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

fn f_make_date(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
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

fn f_make_timestamp(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    Ok(Value::Timestamp(make_ts_local(a)?))
}

fn f_make_timestamptz(a: &[Value], ctx: &FormatCtx) -> PgResult<Value> {
    let local = make_ts_local(a)?;
    let tz = match a.get(6) {
        Some(Value::Text(z)) => zone_for_at_time_zone(z)?,
        _ => ctx.time_zone.clone(),
    };
    Ok(Value::TimestampTz(dt::local_to_tstz(local, &tz)))
}

fn f_make_time(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
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

fn f_make_interval(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
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

fn f_to_timestamp_float(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
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

fn f_to_timestamp_fmt(a: &[Value], ctx: &FormatCtx) -> PgResult<Value> {
    let (local, zone) = fmt::parse_datetime(txt(&a[0])?, txt(&a[1])?, ctx)?;
    Ok(Value::TimestampTz(match zone {
        Some(off) => local - off as i64 * dt::USECS_PER_SEC,
        None => dt::local_to_tstz(local, &ctx.time_zone),
    }))
}

fn f_to_date(a: &[Value], ctx: &FormatCtx) -> PgResult<Value> {
    let (local, _) = fmt::parse_datetime(txt(&a[0])?, txt(&a[1])?, ctx)?;
    Ok(Value::Date(dt::ts_to_date(local)))
}

fn f_to_number(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    Ok(numeric(fmt::parse_number(txt(&a[0])?, txt(&a[1])?)?))
}

fn f_to_char(a: &[Value], ctx: &FormatCtx) -> PgResult<Value> {
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

fn f_isfinite(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    Ok(Value::Bool(match &a[0] {
        Value::Date(d) => dt::is_finite_date(*d),
        Value::Timestamp(t) | Value::TimestampTz(t) => dt::is_finite_ts(*t),
        _ => true,
    }))
}

fn f_justify<const K: u8>(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
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
fn f_timezone_tstz(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    let tz = zone_arg(&a[0])?;
    let t = ts(&a[1])?;
    Ok(Value::Timestamp(dt::tstz_to_local(t, &tz)))
}

/// timezone(zone, timetz) → timetz: the same instant shown in another zone; a zone with
/// daylight-saving rules uses its offset now.
fn f_timezone_timetz(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
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
fn f_timezone_ts(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    let tz = zone_arg(&a[0])?;
    let t = ts(&a[1])?;
    Ok(Value::TimestampTz(dt::local_to_tstz(t, &tz)))
}

// ---------------------------------------------------------------------------------------------
// Arrays
// ---------------------------------------------------------------------------------------------

fn dim_index(a: &[Value]) -> PgResult<Option<usize>> {
    let d = int(&a[1])?;
    let ar = arr(&a[0])?;
    if d < 1 || d as usize > ar.dims.len() || ar.items.is_empty() {
        return Ok(None);
    }
    Ok(Some(d as usize - 1))
}

fn f_array_length(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    Ok(match dim_index(a)? {
        Some(i) => Value::Int4(arr(&a[0])?.dims[i].0),
        None => Value::Null,
    })
}

fn f_array_lower(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    Ok(match dim_index(a)? {
        Some(i) => Value::Int4(arr(&a[0])?.dims[i].1),
        None => Value::Null,
    })
}

fn f_array_upper(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    Ok(match dim_index(a)? {
        Some(i) => {
            let (len, lb) = arr(&a[0])?.dims[i];
            Value::Int4(lb + len - 1)
        }
        None => Value::Null,
    })
}

fn f_cardinality(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    i4(arr(&a[0])?.items.len() as i64)
}

fn f_array_ndims(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    let ar = arr(&a[0])?;
    if ar.items.is_empty() {
        return Ok(Value::Null);
    }
    Ok(Value::Int4(ar.dims.len() as i32))
}

fn f_array_dims(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    let ar = arr(&a[0])?;
    if ar.items.is_empty() {
        return Ok(Value::Null);
    }
    let mut s = String::new();
    for (len, lb) in &ar.dims {
        s.push_str(&format!("[{}:{}]", lb, lb + len - 1));
    }
    Ok(text(s))
}

fn not_distinct(x: &Value, y: &Value) -> bool {
    match (x.is_null(), y.is_null()) {
        (true, true) => true,
        (false, false) => ops::compare_values(x, y) == std::cmp::Ordering::Equal,
        _ => false,
    }
}

fn one_dim_check(ar: &Array) -> PgResult<()> {
    if ar.dims.len() > 1 {
        return Err(PgError::feature_not_supported(
            "searching for elements in multidimensional arrays is not supported",
        ));
    }
    Ok(())
}

fn f_array_position(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    let ar = match &a[0] {
        Value::Null => return Ok(Value::Null),
        v => arr(v)?,
    };
    one_dim_check(ar)?;
    let lb = ar.dims.first().map(|d| d.1).unwrap_or(1);
    let start = match a.get(2) {
        Some(Value::Null) => return Err(invalid_param("initial position must not be null")),
        Some(v) => (int(v)? - lb as i64).max(0) as usize,
        None => 0,
    };
    for (i, v) in ar.items.iter().enumerate().skip(start) {
        if not_distinct(v, &a[1]) {
            return Ok(Value::Int4(i as i32 + lb));
        }
    }
    Ok(Value::Null)
}

fn f_array_positions(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    let ar = match &a[0] {
        Value::Null => return Ok(Value::Null),
        v => arr(v)?,
    };
    one_dim_check(ar)?;
    let lb = ar.dims.first().map(|d| d.1).unwrap_or(1);
    let items: Vec<Value> = ar
        .items
        .iter()
        .enumerate()
        .filter(|(_, v)| not_distinct(v, &a[1]))
        .map(|(i, _)| Value::Int4(i as i32 + lb))
        .collect();
    Ok(Value::Array(Box::new(Array::one_dim(Type::INT4, items))))
}

fn elem_type_of(v: &Value) -> Type {
    io::value_type(v)
}

fn f_array_append(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    let base = match &a[0] {
        Value::Null => Array::one_dim(elem_type_of(&a[1]), vec![]),
        v => arr(v)?.clone(),
    };
    Ok(Value::Array(Box::new(ops::array_append(
        &base,
        a[1].clone(),
    )?)))
}

fn f_array_prepend(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    let base = match &a[1] {
        Value::Null => Array::one_dim(elem_type_of(&a[0]), vec![]),
        v => arr(v)?.clone(),
    };
    Ok(Value::Array(Box::new(ops::array_prepend(
        a[0].clone(),
        &base,
    )?)))
}

fn f_array_cat(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    match (&a[0], &a[1]) {
        (Value::Null, Value::Null) => Ok(Value::Null),
        (Value::Null, v) | (v, Value::Null) => Ok(v.clone()),
        (x, y) => Ok(Value::Array(Box::new(ops::array_cat(arr(x)?, arr(y)?)?))),
    }
}

fn f_array_remove(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    let ar = match &a[0] {
        Value::Null => return Ok(Value::Null),
        v => arr(v)?,
    };
    if ar.dims.len() > 1 {
        return Err(PgError::feature_not_supported(
            "removing elements from multidimensional arrays is not supported",
        ));
    }
    let items: Vec<Value> = ar
        .items
        .iter()
        .filter(|v| !not_distinct(v, &a[1]))
        .cloned()
        .collect();
    let lb = ar.dims.first().map(|d| d.1).unwrap_or(1);
    let mut r = Array::one_dim(ar.elem, items);
    if let Some(d) = r.dims.first_mut() {
        d.1 = lb;
    }
    Ok(Value::Array(Box::new(r)))
}

fn f_array_replace(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    let ar = match &a[0] {
        Value::Null => return Ok(Value::Null),
        v => arr(v)?,
    };
    let mut r = ar.clone();
    for v in r.items.iter_mut() {
        if not_distinct(v, &a[1]) {
            *v = a[2].clone();
        }
    }
    Ok(Value::Array(Box::new(r)))
}

fn f_trim_array(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    let ar = arr(&a[0])?;
    let n = int(&a[1])?;
    let len = ar.dims.first().map(|d| d.0 as i64).unwrap_or(0);
    if n < 0 || n > len {
        return Err(PgError::new(
            code::ARRAY_SUBSCRIPT_ERROR,
            format!("number of elements to trim must be between 0 and {len}"),
        ));
    }
    let inner: usize = ar.dims.iter().skip(1).map(|d| d.0 as usize).product();
    let keep = (len - n) as usize;
    let mut r = ar.clone();
    r.items.truncate(keep * inner.max(1));
    if keep == 0 {
        r.dims.clear();
    } else {
        r.dims[0].0 = keep as i32;
    }
    Ok(Value::Array(Box::new(r)))
}

// ---------------------------------------------------------------------------------------------
// Misc
// ---------------------------------------------------------------------------------------------

fn f_to_regtype(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    Ok(match io::parse_regtype(txt(&a[0])?) {
        Ok(t) => Value::Oid(t.0),
        Err(_) => Value::Null,
    })
}

fn f_num_nulls(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    Ok(Value::Int4(a.iter().filter(|v| v.is_null()).count() as i32))
}

fn f_num_nonnulls(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    Ok(Value::Int4(a.iter().filter(|v| !v.is_null()).count() as i32))
}

fn f_gen_random_uuid(_: &[Value], _: &FormatCtx) -> PgResult<Value> {
    let mut b: [u8; 16] = rand::random();
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    Ok(Value::Uuid(b))
}

fn f_false(_: &[Value], _: &FormatCtx) -> PgResult<Value> {
    Ok(Value::Bool(false))
}

fn inet_arg(v: &Value) -> PgResult<&crate::sql::types::network::Inet> {
    match v {
        Value::Inet(i) => Ok(i),
        _ => Err(bad_arg(v)),
    }
}

fn f_inet_text(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    Ok(text(network::show(inet_arg(&a[0])?)))
}

fn f_inet_host(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    Ok(text(network::host(inet_arg(&a[0])?)))
}

fn f_inet_masklen(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    Ok(Value::Int4(inet_arg(&a[0])?.bits as i32))
}

fn f_inet_family(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    Ok(Value::Int4(if inet_arg(&a[0])?.is_v6() { 6 } else { 4 }))
}

fn f_inet_abbrev(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    let mut s = String::new();
    network::format(inet_arg(&a[0])?, false, &mut s);
    Ok(text(s))
}

fn f_cidr_abbrev(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    Ok(text(network::abbrev_cidr(inet_arg(&a[0])?)))
}

fn f_inet_network(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    Ok(Value::Inet(inet_arg(&a[0])?.network()))
}

fn f_inet_broadcast(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    Ok(Value::Inet(inet_arg(&a[0])?.broadcast()))
}

fn f_inet_netmask<const HOST: bool>(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    Ok(Value::Inet(inet_arg(&a[0])?.mask(HOST)))
}

/// set_masklen(inet|cidr, n); -1 means the full length. A cidr loses the bits past the mask.
fn f_set_masklen<const CIDR: bool>(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    let mut v = *inet_arg(&a[0])?;
    let mut bits = int(&a[1])?;
    if bits == -1 {
        bits = v.max_bits() as i64;
    }
    if !(0..=v.max_bits() as i64).contains(&bits) {
        return Err(invalid_param(format!("invalid mask length: {bits}")));
    }
    v.bits = bits as u8;
    Ok(Value::Inet(if CIDR { v.network() } else { v }))
}

fn f_inet_same_family(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    Ok(Value::Bool(
        inet_arg(&a[0])?.family == inet_arg(&a[1])?.family,
    ))
}

fn f_bool_cast_text(a: &[Value], ctx: &FormatCtx) -> PgResult<Value> {
    // text(x): the explicit cast to text for any type.
    Ok(text(any_to_text(&a[0], ctx)))
}

fn f_format_type(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    let oid = match &a[0] {
        Value::Null => return Ok(Value::Null),
        v => int(v)? as u32,
    };
    let typmod = match a.get(1) {
        Some(Value::Null) | None => -1,
        Some(v) => int(v)? as i32,
    };
    let t = Type(oid);
    if t.name().starts_with("type ") {
        return Ok(text("???"));
    }
    Ok(text(cast::format_type_with_typmod(t, typmod)))
}

// ---------------------------------------------------------------------------------------------
// JSON
// ---------------------------------------------------------------------------------------------

/// to_json / to_jsonb. T is the declared argument type (JSON, JSONB, TEXT or ANYELEMENT).
fn f_to_json<const JB: bool, const T: u32>(a: &[Value], ctx: &FormatCtx) -> PgResult<Value> {
    let ty = if Type(T) == Type::ANYELEMENT {
        io::value_type(&a[0])
    } else {
        Type(T)
    };
    let mut s = String::new();
    json::value_to_json(&a[0], ty, ctx, JB, &mut s);
    if JB {
        s = json::jsonb_in(&s)?;
    }
    Ok(text(s))
}

fn f_json_build_object<const JB: bool>(a: &[Value], ctx: &FormatCtx) -> PgResult<Value> {
    if !a.len().is_multiple_of(2) {
        return Err(
            invalid_param("argument list must have even number of elements").with_hint(if JB {
                "The arguments of jsonb_build_object() must consist of alternating keys and values."
            } else {
                "The arguments of json_build_object() must consist of alternating keys and values."
            }),
        );
    }
    let mut s = String::from("{");
    for (i, pair) in a.chunks(2).enumerate() {
        if pair[0].is_null() {
            return Err(PgError::new(
                code::NULL_VALUE_NOT_ALLOWED,
                format!("argument {} cannot be null", i * 2 + 1),
            )
            .with_hint("Object keys should be text."));
        }
        if i > 0 {
            s.push_str(", ");
        }
        json::write_string(&any_to_text(&pair[0], ctx), &mut s);
        s.push_str(" : ");
        json::value_to_json(&pair[1], io::value_type(&pair[1]), ctx, JB, &mut s);
    }
    s.push('}');
    if JB {
        s = json::jsonb_in(&s)?;
    }
    Ok(text(s))
}

fn f_json_build_array<const JB: bool>(a: &[Value], ctx: &FormatCtx) -> PgResult<Value> {
    let mut s = String::from("[");
    for (i, v) in a.iter().enumerate() {
        if i > 0 {
            s.push_str(", ");
        }
        json::value_to_json(v, io::value_type(v), ctx, JB, &mut s);
    }
    s.push(']');
    if JB {
        s = json::jsonb_in(&s)?;
    }
    Ok(text(s))
}

fn f_json_typeof<const JB: bool>(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    let n = json::parse(txt(&a[0])?, JB)?;
    Ok(text(json::type_name(&n.v)))
}

fn f_json_array_length<const JB: bool>(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    let n = json::parse(txt(&a[0])?, JB)?;
    match &n.v {
        json::Json::Array(items) => i4(items.len() as i64),
        json::Json::Object(_) => Err(invalid_param("cannot get array length of a non-array")),
        _ => Err(invalid_param("cannot get array length of a scalar")),
    }
}

fn f_jsonb_pretty(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    let n = json::parse(txt(&a[0])?, true)?;
    let mut s = String::new();
    json::write_pretty(&n.v, 0, &mut s);
    Ok(text(s))
}

fn f_json_extract_path<const JB: bool, const AS_TEXT: bool>(
    a: &[Value],
    _: &FormatCtx,
) -> PgResult<Value> {
    if a[0].is_null() || a[1..].iter().any(Value::is_null) {
        return Ok(Value::Null);
    }
    let src = txt(&a[0])?;
    let n = json::parse(src, JB)?;
    Ok(match json::get_path(&n, &a[1..]) {
        None => Value::Null,
        Some(m) => {
            if AS_TEXT {
                json::node_as_text(src, m, JB)
            } else {
                text(json::node_text(src, m, JB))
            }
        }
    })
}

fn strip_nulls(v: json::Json) -> json::Json {
    match v {
        json::Json::Object(f) => json::Json::Object(
            f.into_iter()
                .filter(|(_, n)| n.v != json::Json::Null)
                .map(|(k, n)| {
                    (
                        k,
                        json::Node {
                            v: strip_nulls(n.v),
                            span: n.span,
                        },
                    )
                })
                .collect(),
        ),
        json::Json::Array(items) => json::Json::Array(
            items
                .into_iter()
                .map(|n| json::Node {
                    v: strip_nulls(n.v),
                    span: n.span,
                })
                .collect(),
        ),
        other => other,
    }
}

fn f_jsonb_strip_nulls(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    let n = json::parse(txt(&a[0])?, true)?;
    let mut s = String::new();
    json::write_jsonb(&strip_nulls(n.v), &mut s);
    Ok(text(s))
}

// ---------------------------------------------------------------------------------------------
// Registry
// ---------------------------------------------------------------------------------------------

macro_rules! sig {
    ($name:expr, [$($a:ident),*], $ret:ident, $f:expr) => {
        FuncSig { name: $name, args: &[$(Type::$a),*], variadic: false, ret: Type::$ret, strict: true, f: $f }
    };
}

/// Non-strict (called with NULL arguments).
macro_rules! sig_ns {
    ($name:expr, [$($a:ident),*], $ret:ident, $f:expr) => {
        FuncSig { name: $name, args: &[$(Type::$a),*], variadic: false, ret: Type::$ret, strict: false, f: $f }
    };
}

/// Variadic (last argument repeats), non-strict.
macro_rules! sig_var {
    ($name:expr, [$($a:ident),*], $ret:ident, $f:expr) => {
        FuncSig { name: $name, args: &[$(Type::$a),*], variadic: true, ret: Type::$ret, strict: false, f: $f }
    };
}

const TS: u32 = Type::TIMESTAMP.0;
const TSTZ: u32 = Type::TIMESTAMPTZ.0;
const DATE: u32 = Type::DATE.0;
const TIME: u32 = Type::TIME.0;
const TIMETZ_T: u32 = Type::TIMETZ.0;
const IVL: u32 = Type::INTERVAL.0;
const JSON_T: u32 = Type::JSON.0;
const JSONB_T: u32 = Type::JSONB.0;
const TEXT_T: u32 = Type::TEXT.0;
const ANYEL_T: u32 = Type::ANYELEMENT.0;

static FUNCS: &[FuncSig] = &[
    // ----- strings -----
    sig!("length", [TEXT], INT4, f_length),
    sig!("length", [BYTEA], INT4, f_length),
    sig!("length", [BYTEA, NAME], INT4, f_length_in_encoding),
    sig!("char_length", [TEXT], INT4, f_length),
    sig!("character_length", [TEXT], INT4, f_length),
    sig!("length", [BPCHAR], INT4, f_bpchar_length),
    sig!("char_length", [BPCHAR], INT4, f_bpchar_length),
    sig!("character_length", [BPCHAR], INT4, f_bpchar_length),
    sig!("octet_length", [BPCHAR], INT4, f_octet_length),
    sig!("octet_length", [TEXT], INT4, f_octet_length),
    sig!("octet_length", [BYTEA], INT4, f_octet_length),
    sig!("bit_length", [TEXT], INT4, f_bit_length),
    sig!("bit_length", [BYTEA], INT4, f_bit_length),
    sig!("get_byte", [BYTEA, INT4], INT4, f_get_byte),
    sig!("set_byte", [BYTEA, INT4, INT4], BYTEA, f_set_byte),
    sig!("get_bit", [BYTEA, INT8], INT4, f_get_bit),
    sig!("lower", [TEXT], TEXT, f_lower),
    sig!("upper", [TEXT], TEXT, f_upper),
    sig!("initcap", [TEXT], TEXT, f_initcap),
    sig!("substr", [TEXT, INT4], TEXT, f_substr),
    sig!("substr", [TEXT, INT4, INT4], TEXT, f_substr),
    sig!("substr", [BYTEA, INT4], BYTEA, f_substr),
    sig!("substr", [BYTEA, INT4, INT4], BYTEA, f_substr),
    sig!("substring", [TEXT, INT4], TEXT, f_substr),
    sig!("substring", [TEXT, INT4, INT4], TEXT, f_substr),
    sig!("substring", [BYTEA, INT4], BYTEA, f_substr),
    sig!("substring", [BYTEA, INT4, INT4], BYTEA, f_substr),
    sig!("substring", [TEXT, TEXT], TEXT, f_substring_regex),
    sig!("substring", [TEXT, TEXT, TEXT], TEXT, f_substring_similar),
    sig!("similar_to_escape", [TEXT], TEXT, f_similar_to_escape),
    sig!("similar_to_escape", [TEXT, TEXT], TEXT, f_similar_to_escape),
    sig_ns!("similar_escape", [TEXT, TEXT], TEXT, f_similar_escape),
    sig!("strpos", [TEXT, TEXT], INT4, f_position),
    sig!("position", [TEXT, TEXT], INT4, f_position),
    sig!("position", [BYTEA, BYTEA], INT4, f_position),
    sig!("replace", [TEXT, TEXT, TEXT], TEXT, f_replace),
    sig!("btrim", [TEXT], TEXT, trim_args::<true, true>),
    sig!("btrim", [TEXT, TEXT], TEXT, trim_args::<true, true>),
    sig!("btrim", [BYTEA, BYTEA], BYTEA, trim_args::<true, true>),
    sig!("ltrim", [TEXT], TEXT, trim_args::<true, false>),
    sig!("ltrim", [TEXT, TEXT], TEXT, trim_args::<true, false>),
    sig!("ltrim", [BYTEA, BYTEA], BYTEA, trim_args::<true, false>),
    sig!("rtrim", [TEXT], TEXT, trim_args::<false, true>),
    sig!("rtrim", [TEXT, TEXT], TEXT, trim_args::<false, true>),
    sig!("rtrim", [BYTEA, BYTEA], BYTEA, trim_args::<false, true>),
    sig!("lpad", [TEXT, INT4], TEXT, pad::<true>),
    sig!("lpad", [TEXT, INT4, TEXT], TEXT, pad::<true>),
    sig!("rpad", [TEXT, INT4], TEXT, pad::<false>),
    sig!("rpad", [TEXT, INT4, TEXT], TEXT, pad::<false>),
    sig_var!("concat", [ANY], TEXT, f_concat),
    sig_var!("concat_ws", [TEXT, ANY], TEXT, f_concat_ws),
    sig!("left", [TEXT, INT4], TEXT, f_left),
    sig!("right", [TEXT, INT4], TEXT, f_right),
    sig!("repeat", [TEXT, INT4], TEXT, f_repeat),
    sig!("reverse", [TEXT], TEXT, f_reverse),
    sig!("split_part", [TEXT, TEXT, INT4], TEXT, f_split_part),
    sig!("starts_with", [TEXT, TEXT], BOOL, f_starts_with),
    sig!("md5", [TEXT], TEXT, f_md5),
    sig!("md5", [BYTEA], TEXT, f_md5),
    sig!("sha224", [BYTEA], BYTEA, f_sha::<224>),
    sig!("sha256", [BYTEA], BYTEA, f_sha::<256>),
    sig!("sha384", [BYTEA], BYTEA, f_sha::<384>),
    sig!("sha512", [BYTEA], BYTEA, f_sha::<512>),
    sig!("chr", [INT4], TEXT, f_chr),
    sig!("ascii", [TEXT], INT4, f_ascii),
    sig!("to_hex", [INT4], TEXT, f_to_hex),
    sig!("to_hex", [INT8], TEXT, f_to_hex),
    sig!("quote_ident", [TEXT], TEXT, f_quote_ident),
    sig!("quote_literal", [TEXT], TEXT, f_quote_literal),
    sig!("quote_literal", [ANYELEMENT], TEXT, f_quote_literal),
    sig_ns!("quote_nullable", [TEXT], TEXT, f_quote_nullable),
    sig_ns!("quote_nullable", [ANYELEMENT], TEXT, f_quote_nullable),
    sig!("regexp_replace", [TEXT, TEXT, TEXT], TEXT, f_regexp_replace),
    sig!(
        "regexp_replace",
        [TEXT, TEXT, TEXT, TEXT],
        TEXT,
        f_regexp_replace
    ),
    sig!("regexp_match", [TEXT, TEXT], TEXT_ARRAY, f_regexp_match),
    sig!(
        "regexp_match",
        [TEXT, TEXT, TEXT],
        TEXT_ARRAY,
        f_regexp_match
    ),
    sig!(
        "regexp_split_to_array",
        [TEXT, TEXT],
        TEXT_ARRAY,
        f_regexp_split_to_array
    ),
    sig!(
        "regexp_split_to_array",
        [TEXT, TEXT, TEXT],
        TEXT_ARRAY,
        f_regexp_split_to_array
    ),
    sig!("regexp_count", [TEXT, TEXT], INT4, f_regexp_count),
    sig!("regexp_like", [TEXT, TEXT], BOOL, f_regexp_like),
    sig!("regexp_like", [TEXT, TEXT, TEXT], BOOL, f_regexp_like),
    sig!("translate", [TEXT, TEXT, TEXT], TEXT, f_translate),
    sig!("overlay", [TEXT, TEXT, INT4], TEXT, f_overlay),
    sig!("overlay", [TEXT, TEXT, INT4, INT4], TEXT, f_overlay),
    sig!("encode", [BYTEA, TEXT], TEXT, f_encode),
    sig!("decode", [TEXT, TEXT], BYTEA, f_decode),
    sig!("convert_from", [BYTEA, NAME], TEXT, f_convert_from),
    sig!("convert_to", [TEXT, NAME], BYTEA, f_convert_to),
    sig!("convert", [BYTEA, NAME, NAME], BYTEA, f_convert),
    sig!("text", [INET], TEXT, f_inet_text),
    sig!("text", [ANYELEMENT], TEXT, f_bool_cast_text),
    sig!("pg_is_in_recovery", [], BOOL, f_false),
    // ----- network addresses -----
    sig!("host", [INET], TEXT, f_inet_host),
    sig!("masklen", [INET], INT4, f_inet_masklen),
    sig!("family", [INET], INT4, f_inet_family),
    sig!("abbrev", [INET], TEXT, f_inet_abbrev),
    sig!("abbrev", [CIDR], TEXT, f_cidr_abbrev),
    sig!("network", [INET], CIDR, f_inet_network),
    sig!("broadcast", [INET], INET, f_inet_broadcast),
    sig!("netmask", [INET], INET, f_inet_netmask::<false>),
    sig!("hostmask", [INET], INET, f_inet_netmask::<true>),
    sig!("set_masklen", [INET, INT4], INET, f_set_masklen::<false>),
    sig!("set_masklen", [CIDR, INT4], CIDR, f_set_masklen::<true>),
    sig!("inet_same_family", [INET, INET], BOOL, f_inet_same_family),
    sig_ns!(
        "string_to_array",
        [TEXT, TEXT],
        TEXT_ARRAY,
        f_string_to_array
    ),
    sig_ns!(
        "string_to_array",
        [TEXT, TEXT, TEXT],
        TEXT_ARRAY,
        f_string_to_array
    ),
    sig!("array_to_string", [ANYARRAY, TEXT], TEXT, f_array_to_string),
    sig_ns!(
        "array_to_string",
        [ANYARRAY, TEXT, TEXT],
        TEXT,
        f_array_to_string_ns
    ),
    // ----- math -----
    sig!("abs", [INT2], INT2, f_abs),
    sig!("abs", [INT4], INT4, f_abs),
    sig!("abs", [INT8], INT8, f_abs),
    sig!("abs", [FLOAT4], FLOAT4, f_abs),
    sig!("abs", [FLOAT8], FLOAT8, f_abs),
    sig!("abs", [NUMERIC], NUMERIC, f_abs),
    sig!("round", [FLOAT8], FLOAT8, f_round),
    sig!("round", [NUMERIC], NUMERIC, f_round),
    sig!("round", [NUMERIC, INT4], NUMERIC, f_round),
    sig!("trunc", [FLOAT8], FLOAT8, f_trunc),
    sig!("trunc", [NUMERIC], NUMERIC, f_trunc),
    sig!("trunc", [NUMERIC, INT4], NUMERIC, f_trunc),
    sig!("ceil", [FLOAT8], FLOAT8, f_ceil),
    sig!("ceil", [NUMERIC], NUMERIC, f_ceil),
    sig!("ceiling", [FLOAT8], FLOAT8, f_ceil),
    sig!("ceiling", [NUMERIC], NUMERIC, f_ceil),
    sig!("floor", [FLOAT8], FLOAT8, f_floor),
    sig!("floor", [NUMERIC], NUMERIC, f_floor),
    sig!("sign", [FLOAT8], FLOAT8, f_sign),
    sig!("sign", [NUMERIC], NUMERIC, f_sign),
    sig!("sqrt", [FLOAT8], FLOAT8, f_sqrt),
    sig!("sqrt", [NUMERIC], NUMERIC, f_sqrt),
    sig!("cbrt", [FLOAT8], FLOAT8, f_cbrt),
    sig!("power", [FLOAT8, FLOAT8], FLOAT8, f_power),
    sig!("power", [NUMERIC, NUMERIC], NUMERIC, f_power),
    sig!("pow", [FLOAT8, FLOAT8], FLOAT8, f_power),
    sig!("pow", [NUMERIC, NUMERIC], NUMERIC, f_power),
    sig!("exp", [FLOAT8], FLOAT8, f_exp),
    sig!("exp", [NUMERIC], NUMERIC, f_exp),
    sig!("ln", [FLOAT8], FLOAT8, f_ln),
    sig!("ln", [NUMERIC], NUMERIC, f_ln),
    sig!("log", [FLOAT8], FLOAT8, f_log10),
    sig!("log", [NUMERIC], NUMERIC, f_log10),
    sig!("log", [NUMERIC, NUMERIC], NUMERIC, f_log_base),
    sig!("log10", [FLOAT8], FLOAT8, f_log10),
    sig!("log10", [NUMERIC], NUMERIC, f_log10),
    sig!("mod", [INT2, INT2], INT2, f_mod),
    sig!("mod", [INT4, INT4], INT4, f_mod),
    sig!("mod", [INT8, INT8], INT8, f_mod),
    sig!("mod", [NUMERIC, NUMERIC], NUMERIC, f_mod),
    sig!("div", [NUMERIC, NUMERIC], NUMERIC, f_div),
    sig!("gcd", [INT4, INT4], INT4, f_gcd),
    sig!("gcd", [INT8, INT8], INT8, f_gcd),
    sig!("gcd", [NUMERIC, NUMERIC], NUMERIC, f_gcd),
    sig!("lcm", [INT4, INT4], INT4, f_lcm),
    sig!("lcm", [INT8, INT8], INT8, f_lcm),
    sig!("lcm", [NUMERIC, NUMERIC], NUMERIC, f_lcm),
    sig!("pi", [], FLOAT8, f_pi),
    sig!("degrees", [FLOAT8], FLOAT8, f_degrees),
    sig!("radians", [FLOAT8], FLOAT8, f_radians),
    sig!("sin", [FLOAT8], FLOAT8, f_trig::<0>),
    sig!("cos", [FLOAT8], FLOAT8, f_trig::<1>),
    sig!("tan", [FLOAT8], FLOAT8, f_trig::<2>),
    sig!("asin", [FLOAT8], FLOAT8, f_trig::<3>),
    sig!("acos", [FLOAT8], FLOAT8, f_trig::<4>),
    sig!("atan", [FLOAT8], FLOAT8, f_trig::<5>),
    sig!("cot", [FLOAT8], FLOAT8, f_trig::<6>),
    sig!("sinh", [FLOAT8], FLOAT8, f_trig::<7>),
    sig!("cosh", [FLOAT8], FLOAT8, f_trig::<8>),
    sig!("tanh", [FLOAT8], FLOAT8, f_trig::<9>),
    sig!("asinh", [FLOAT8], FLOAT8, f_trig::<10>),
    sig!("acosh", [FLOAT8], FLOAT8, f_trig::<11>),
    sig!("atanh", [FLOAT8], FLOAT8, f_trig::<12>),
    sig!("sind", [FLOAT8], FLOAT8, f_trigd::<0>),
    sig!("cosd", [FLOAT8], FLOAT8, f_trigd::<1>),
    sig!("tand", [FLOAT8], FLOAT8, f_trigd::<2>),
    sig!("asind", [FLOAT8], FLOAT8, f_trigd::<3>),
    sig!("acosd", [FLOAT8], FLOAT8, f_trigd::<4>),
    sig!("atand", [FLOAT8], FLOAT8, f_trigd::<5>),
    sig!("cotd", [FLOAT8], FLOAT8, f_trigd::<6>),
    sig!("atan2", [FLOAT8, FLOAT8], FLOAT8, f_atan2),
    sig!("atan2d", [FLOAT8, FLOAT8], FLOAT8, f_atan2d),
    sig!("random", [], FLOAT8, f_random),
    sig!("setseed", [FLOAT8], VOID, f_setseed),
    sig!("timeofday", [], TEXT, f_timeofday),
    sig!(
        "overlaps",
        [TIMESTAMPTZ, TIMESTAMPTZ, TIMESTAMPTZ, TIMESTAMPTZ],
        BOOL,
        f_overlaps
    ),
    sig!(
        "overlaps",
        [TIMESTAMP, TIMESTAMP, TIMESTAMP, TIMESTAMP],
        BOOL,
        f_overlaps
    ),
    sig!(
        "overlaps",
        [TIMESTAMPTZ, INTERVAL, TIMESTAMPTZ, INTERVAL],
        BOOL,
        f_overlaps
    ),
    sig!(
        "overlaps",
        [TIMESTAMP, INTERVAL, TIMESTAMP, INTERVAL],
        BOOL,
        f_overlaps
    ),
    sig!("overlaps", [TIME, TIME, TIME, TIME], BOOL, f_overlaps),
    sig!(
        "overlaps",
        [TIME, INTERVAL, TIME, INTERVAL],
        BOOL,
        f_overlaps
    ),
    sig!("scale", [NUMERIC], INT4, f_scale),
    sig!("min_scale", [NUMERIC], INT4, f_min_scale),
    sig!("trim_scale", [NUMERIC], NUMERIC, f_trim_scale),
    sig!("factorial", [INT8], NUMERIC, f_factorial),
    sig!(
        "width_bucket",
        [FLOAT8, FLOAT8, FLOAT8, INT4],
        INT4,
        f_width_bucket
    ),
    sig!(
        "width_bucket",
        [NUMERIC, NUMERIC, NUMERIC, INT4],
        INT4,
        f_width_bucket
    ),
    // ----- date/time -----
    sig!("date_trunc", [TEXT, TIMESTAMP], TIMESTAMP, f_date_trunc),
    sig!("date_trunc", [TEXT, TIMESTAMPTZ], TIMESTAMPTZ, f_date_trunc),
    sig!(
        "date_trunc",
        [TEXT, TIMESTAMPTZ, TEXT],
        TIMESTAMPTZ,
        f_date_trunc
    ),
    sig!("date_trunc", [TEXT, INTERVAL], INTERVAL, f_date_trunc),
    sig!("date_part", [TEXT, TIMESTAMP], FLOAT8, date_part_as::<TS>),
    sig!(
        "date_part",
        [TEXT, TIMESTAMPTZ],
        FLOAT8,
        date_part_as::<TSTZ>
    ),
    sig!("date_part", [TEXT, DATE], FLOAT8, date_part_as::<DATE>),
    sig!("date_part", [TEXT, TIME], FLOAT8, date_part_as::<TIME>),
    sig!(
        "date_part",
        [TEXT, TIMETZ],
        FLOAT8,
        date_part_as::<TIMETZ_T>
    ),
    sig!("date_part", [TEXT, INTERVAL], FLOAT8, date_part_as::<IVL>),
    sig!("extract", [TEXT, TIMESTAMP], NUMERIC, extract_as::<TS>),
    sig!("extract", [TEXT, TIMESTAMPTZ], NUMERIC, extract_as::<TSTZ>),
    sig!("extract", [TEXT, DATE], NUMERIC, extract_as::<DATE>),
    sig!("extract", [TEXT, TIME], NUMERIC, extract_as::<TIME>),
    sig!("extract", [TEXT, TIMETZ], NUMERIC, extract_as::<TIMETZ_T>),
    sig!("extract", [TEXT, INTERVAL], NUMERIC, extract_as::<IVL>),
    sig!("age", [TIMESTAMP, TIMESTAMP], INTERVAL, f_age),
    sig!("age", [TIMESTAMPTZ, TIMESTAMPTZ], INTERVAL, f_age),
    sig!("age", [TIMESTAMP], INTERVAL, f_age),
    sig!("age", [TIMESTAMPTZ], INTERVAL, f_age),
    sig!("make_date", [INT4, INT4, INT4], DATE, f_make_date),
    sig!("make_time", [INT4, INT4, FLOAT8], TIME, f_make_time),
    sig!(
        "make_timestamp",
        [INT4, INT4, INT4, INT4, INT4, FLOAT8],
        TIMESTAMP,
        f_make_timestamp
    ),
    sig!(
        "make_timestamptz",
        [INT4, INT4, INT4, INT4, INT4, FLOAT8],
        TIMESTAMPTZ,
        f_make_timestamptz
    ),
    sig!(
        "make_timestamptz",
        [INT4, INT4, INT4, INT4, INT4, FLOAT8, TEXT],
        TIMESTAMPTZ,
        f_make_timestamptz
    ),
    sig!("make_interval", [], INTERVAL, f_make_interval),
    sig!("make_interval", [INT4], INTERVAL, f_make_interval),
    sig!("make_interval", [INT4, INT4], INTERVAL, f_make_interval),
    sig!(
        "make_interval",
        [INT4, INT4, INT4],
        INTERVAL,
        f_make_interval
    ),
    sig!(
        "make_interval",
        [INT4, INT4, INT4, INT4],
        INTERVAL,
        f_make_interval
    ),
    sig!(
        "make_interval",
        [INT4, INT4, INT4, INT4, INT4],
        INTERVAL,
        f_make_interval
    ),
    sig!(
        "make_interval",
        [INT4, INT4, INT4, INT4, INT4, INT4],
        INTERVAL,
        f_make_interval
    ),
    sig!(
        "make_interval",
        [INT4, INT4, INT4, INT4, INT4, INT4, FLOAT8],
        INTERVAL,
        f_make_interval
    ),
    sig!("to_timestamp", [FLOAT8], TIMESTAMPTZ, f_to_timestamp_float),
    sig!(
        "to_timestamp",
        [TEXT, TEXT],
        TIMESTAMPTZ,
        f_to_timestamp_fmt
    ),
    sig!("to_date", [TEXT, TEXT], DATE, f_to_date),
    sig!("to_number", [TEXT, TEXT], NUMERIC, f_to_number),
    sig!("to_char", [TIMESTAMP, TEXT], TEXT, f_to_char),
    sig!("to_char", [TIMESTAMPTZ, TEXT], TEXT, f_to_char),
    sig!("to_char", [INTERVAL, TEXT], TEXT, f_to_char),
    sig!("to_char", [INT4, TEXT], TEXT, f_to_char),
    sig!("to_char", [INT8, TEXT], TEXT, f_to_char),
    sig!("to_char", [FLOAT4, TEXT], TEXT, f_to_char),
    sig!("to_char", [FLOAT8, TEXT], TEXT, f_to_char),
    sig!("to_char", [NUMERIC, TEXT], TEXT, f_to_char),
    sig!("isfinite", [DATE], BOOL, f_isfinite),
    sig!("isfinite", [TIMESTAMP], BOOL, f_isfinite),
    sig!("isfinite", [TIMESTAMPTZ], BOOL, f_isfinite),
    sig!("isfinite", [INTERVAL], BOOL, f_isfinite),
    sig!("justify_days", [INTERVAL], INTERVAL, f_justify::<0>),
    sig!("justify_hours", [INTERVAL], INTERVAL, f_justify::<1>),
    sig!("justify_interval", [INTERVAL], INTERVAL, f_justify::<2>),
    sig!("timezone", [TEXT, TIMESTAMPTZ], TIMESTAMP, f_timezone_tstz),
    sig!("timezone", [TEXT, TIMETZ], TIMETZ, f_timezone_timetz),
    sig!("timezone", [INTERVAL, TIMETZ], TIMETZ, f_timezone_timetz),
    sig!("timezone", [TEXT, TIMESTAMP], TIMESTAMPTZ, f_timezone_ts),
    sig!(
        "timezone",
        [INTERVAL, TIMESTAMPTZ],
        TIMESTAMP,
        f_timezone_tstz
    ),
    sig!(
        "timezone",
        [INTERVAL, TIMESTAMP],
        TIMESTAMPTZ,
        f_timezone_ts
    ),
    // ----- arrays -----
    sig!("array_length", [ANYARRAY, INT4], INT4, f_array_length),
    sig!("array_lower", [ANYARRAY, INT4], INT4, f_array_lower),
    sig!("array_upper", [ANYARRAY, INT4], INT4, f_array_upper),
    sig!("cardinality", [ANYARRAY], INT4, f_cardinality),
    sig!("array_ndims", [ANYARRAY], INT4, f_array_ndims),
    sig!("array_dims", [ANYARRAY], TEXT, f_array_dims),
    sig_ns!(
        "array_position",
        [ANYARRAY, ANYELEMENT],
        INT4,
        f_array_position
    ),
    sig_ns!(
        "array_position",
        [ANYARRAY, ANYELEMENT, INT4],
        INT4,
        f_array_position
    ),
    sig_ns!(
        "array_positions",
        [ANYARRAY, ANYELEMENT],
        INT4_ARRAY,
        f_array_positions
    ),
    sig_ns!(
        "array_append",
        [ANYARRAY, ANYELEMENT],
        ANYARRAY,
        f_array_append
    ),
    sig_ns!(
        "array_prepend",
        [ANYELEMENT, ANYARRAY],
        ANYARRAY,
        f_array_prepend
    ),
    sig_ns!("array_cat", [ANYARRAY, ANYARRAY], ANYARRAY, f_array_cat),
    sig_ns!(
        "array_remove",
        [ANYARRAY, ANYELEMENT],
        ANYARRAY,
        f_array_remove
    ),
    sig_ns!(
        "array_replace",
        [ANYARRAY, ANYELEMENT, ANYELEMENT],
        ANYARRAY,
        f_array_replace
    ),
    sig!("trim_array", [ANYARRAY, INT4], ANYARRAY, f_trim_array),
    // ----- json -----
    sig!("to_json", [JSON], JSON, f_to_json::<false, JSON_T>),
    sig!("to_json", [JSONB], JSON, f_to_json::<false, JSONB_T>),
    sig!("to_json", [TEXT], JSON, f_to_json::<false, TEXT_T>),
    sig!("to_json", [ANYELEMENT], JSON, f_to_json::<false, ANYEL_T>),
    sig!("to_jsonb", [JSON], JSONB, f_to_json::<true, JSON_T>),
    sig!("to_jsonb", [JSONB], JSONB, f_to_json::<true, JSONB_T>),
    sig!("to_jsonb", [TEXT], JSONB, f_to_json::<true, TEXT_T>),
    sig!("to_jsonb", [ANYELEMENT], JSONB, f_to_json::<true, ANYEL_T>),
    sig!("row_to_json", [RECORD], JSON, f_to_json::<false, ANYEL_T>),
    sig!(
        "array_to_json",
        [ANYARRAY],
        JSON,
        f_to_json::<false, ANYEL_T>
    ),
    sig_var!(
        "json_build_object",
        [ANY],
        JSON,
        f_json_build_object::<false>
    ),
    sig_var!(
        "jsonb_build_object",
        [ANY],
        JSONB,
        f_json_build_object::<true>
    ),
    sig!("json_build_object", [], JSON, f_json_build_object::<false>),
    sig!("jsonb_build_object", [], JSONB, f_json_build_object::<true>),
    sig_var!("json_build_array", [ANY], JSON, f_json_build_array::<false>),
    sig_var!(
        "jsonb_build_array",
        [ANY],
        JSONB,
        f_json_build_array::<true>
    ),
    sig!("json_build_array", [], JSON, f_json_build_array::<false>),
    sig!("jsonb_build_array", [], JSONB, f_json_build_array::<true>),
    sig!("json_typeof", [JSON], TEXT, f_json_typeof::<false>),
    sig!("jsonb_typeof", [JSONB], TEXT, f_json_typeof::<true>),
    sig!(
        "json_array_length",
        [JSON],
        INT4,
        f_json_array_length::<false>
    ),
    sig!(
        "jsonb_array_length",
        [JSONB],
        INT4,
        f_json_array_length::<true>
    ),
    sig!("jsonb_pretty", [JSONB], TEXT, f_jsonb_pretty),
    sig!("jsonb_strip_nulls", [JSONB], JSONB, f_jsonb_strip_nulls),
    sig!(
        "jsonb_set",
        [JSONB, TEXT_ARRAY, JSONB],
        JSONB,
        jsonb_set::f_jsonb_set
    ),
    sig!(
        "jsonb_set",
        [JSONB, TEXT_ARRAY, JSONB, BOOL],
        JSONB,
        jsonb_set::f_jsonb_set
    ),
    sig!(
        "jsonb_insert",
        [JSONB, TEXT_ARRAY, JSONB],
        JSONB,
        jsonb_set::f_jsonb_insert
    ),
    sig!(
        "jsonb_insert",
        [JSONB, TEXT_ARRAY, JSONB, BOOL],
        JSONB,
        jsonb_set::f_jsonb_insert
    ),
    sig_var!(
        "json_extract_path",
        [JSON, TEXT],
        JSON,
        f_json_extract_path::<false, false>
    ),
    sig_var!(
        "json_extract_path_text",
        [JSON, TEXT],
        TEXT,
        f_json_extract_path::<false, true>
    ),
    sig_var!(
        "jsonb_extract_path",
        [JSONB, TEXT],
        JSONB,
        f_json_extract_path::<true, false>
    ),
    sig_var!(
        "jsonb_extract_path_text",
        [JSONB, TEXT],
        TEXT,
        f_json_extract_path::<true, true>
    ),
    // ----- misc -----
    sig!("to_regtype", [TEXT], REGTYPE, f_to_regtype),
    sig_var!("num_nulls", [ANY], INT4, f_num_nulls),
    sig_var!("num_nonnulls", [ANY], INT4, f_num_nonnulls),
    sig!("gen_random_uuid", [], UUID, f_gen_random_uuid),
    sig_ns!("format_type", [OID, INT4], TEXT, f_format_type),
];

fn f_array_to_string_ns(a: &[Value], ctx: &FormatCtx) -> PgResult<Value> {
    if a[0].is_null() || a[1].is_null() {
        return Ok(Value::Null);
    }
    f_array_to_string(a, ctx)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c() -> FormatCtx {
        FormatCtx::default()
    }

    /// Calls the first signature of `name` whose arity matches.
    fn call(name: &str, args: Vec<Value>) -> PgResult<Value> {
        let sig = lookup(name)
            .iter()
            .find(|s| s.args.len() == args.len() || s.variadic)
            .unwrap_or_else(|| panic!("no {name}/{}", args.len()));
        (sig.f)(&args, &c())
    }

    fn t(s: &str) -> Value {
        Value::Text(s.into())
    }

    fn show(v: PgResult<Value>, ty: Type) -> String {
        io::to_text(&v.unwrap(), ty, &c())
    }

    fn p(s: &str, ty: Type) -> Value {
        io::from_text(s, ty, -1, &c()).unwrap()
    }

    #[test]
    fn strings() {
        assert_eq!(
            call("split_part", vec![t("a,b,c"), t(","), Value::Int4(-1)]).unwrap(),
            t("c")
        );
        assert_eq!(
            call("split_part", vec![t("a,b,c"), t(","), Value::Int4(5)]).unwrap(),
            t("")
        );
        assert_eq!(
            call("initcap", vec![t("hello wORLD-foo bar_baz")]).unwrap(),
            t("Hello World-Foo Bar_Baz")
        );
        assert_eq!(
            call("lpad", vec![t("hi"), Value::Int4(5), t("xy")]).unwrap(),
            t("xyxhi")
        );
        assert_eq!(
            call("rpad", vec![t("hello"), Value::Int4(3)]).unwrap(),
            t("hel")
        );
        assert_eq!(
            call("translate", vec![t("12345"), t("143"), t("ax")]).unwrap(),
            t("a2x5")
        );
        assert_eq!(
            call("to_hex", vec![Value::Int4(-1)]).unwrap(),
            t("ffffffff")
        );
        assert_eq!(
            call("left", vec![t("hello"), Value::Int4(-2)]).unwrap(),
            t("hel")
        );
        assert_eq!(
            call("right", vec![t("hello"), Value::Int4(2)]).unwrap(),
            t("lo")
        );
        assert_eq!(
            call("strpos", vec![t("hello"), t("ll")]).unwrap(),
            Value::Int4(3)
        );
        assert_eq!(
            call("substr", vec![t("hello"), Value::Int4(0), Value::Int4(3)]).unwrap(),
            t("he")
        );
        let e = call("substr", vec![t("hello"), Value::Int4(1), Value::Int4(-1)]).unwrap_err();
        assert_eq!(
            (e.code, e.message.as_str()),
            ("22011", "negative substring length not allowed")
        );
        assert_eq!(call("btrim", vec![t("xxhixx"), t("x")]).unwrap(), t("hi"));
        assert_eq!(
            call("md5", vec![t("abc")]).unwrap(),
            t("900150983cd24fb0d6963f7d28e17f72")
        );
        assert_eq!(call("quote_ident", vec![t("Foo")]).unwrap(), t("\"Foo\""));
        assert_eq!(
            call("quote_ident", vec![t("select")]).unwrap(),
            t("\"select\"")
        );
        assert_eq!(call("quote_ident", vec![t("_x1")]).unwrap(), t("_x1"));
        assert_eq!(
            call("quote_literal", vec![t("it's")]).unwrap(),
            t("'it''s'")
        );
        assert_eq!(
            call("quote_literal", vec![t("a\\b")]).unwrap(),
            t("E'a\\\\b'")
        );
        assert_eq!(
            call(
                "regexp_replace",
                vec![t("foobarbaz"), t("b(..)"), t("X\\1Y"), t("g")]
            )
            .unwrap(),
            t("fooXarYXazY")
        );
        assert_eq!(
            call("regexp_replace", vec![t("Hello"), t("l"), t("L")]).unwrap(),
            t("HeLlo")
        );
        assert_eq!(
            show(
                call("regexp_split_to_array", vec![t("a1b2c"), t("[0-9]")]),
                Type::TEXT_ARRAY
            ),
            "{a,b,c}"
        );
        assert_eq!(
            f_substring_regex(&[t("foobar"), t("o(.)a")], &c()).unwrap(),
            t("b")
        );
        assert_eq!(
            call("encode", vec![Value::Bytea(vec![0, 255, 65]), t("escape")]).unwrap(),
            t("\\000\\377A")
        );
        assert_eq!(
            call("encode", vec![Value::Bytea(b"hello".to_vec()), t("base64")]).unwrap(),
            t("aGVsbG8=")
        );
        assert_eq!(
            call("decode", vec![t("41 42"), t("hex")]).unwrap(),
            Value::Bytea(vec![0x41, 0x42])
        );
        assert_eq!(call("chr", vec![Value::Int4(0)]).unwrap_err().code, "54000");
        assert_eq!(
            show(
                call("string_to_array", vec![t("a,b,,c"), t(",")]),
                Type::TEXT_ARRAY
            ),
            "{a,b,\"\",c}"
        );
        assert_eq!(
            show(
                call("string_to_array", vec![t("abc"), Value::Null]),
                Type::TEXT_ARRAY
            ),
            "{a,b,c}"
        );
        let a = p("{1,NULL,3}", Type::INT4_ARRAY);
        assert_eq!(
            call("array_to_string", vec![a, t(","), t("*")]).unwrap(),
            t("1,*,3")
        );
    }

    #[test]
    fn prng_matches_postgres() {
        call("setseed", vec![Value::Float8(0.5)]).unwrap();
        let r: Vec<f64> = (0..3).map(|_| random_double()).collect();
        assert_eq!(
            r,
            vec![0.9851677175347999, 0.825301858027981, 0.12974610012450416]
        );
        call("setseed", vec![Value::Float8(-1.0)]).unwrap();
        assert_eq!(random_double(), 0.725656831544149);
        assert!(call("setseed", vec![Value::Float8(2.0)]).is_err());
    }

    #[test]
    fn math() {
        assert_eq!(
            call("cbrt", vec![Value::Float8(27.0)]).unwrap(),
            Value::Float8(3.0000000000000004)
        );
        let n = |s: &str| Value::Numeric(Box::new(Numeric::parse(s).unwrap()));
        assert_eq!(show(call("round", vec![n("2.5")]), Type::NUMERIC), "3");
        assert_eq!(
            show(
                call("round", vec![n("1234.5678"), Value::Int4(-2)]),
                Type::NUMERIC
            ),
            "1200"
        );
        assert_eq!(
            call("round", vec![Value::Float8(2.5)]).unwrap(),
            Value::Float8(2.0)
        );
        assert_eq!(
            show(
                call("trunc", vec![n("1.99"), Value::Int4(1)]),
                Type::NUMERIC
            ),
            "1.9"
        );
        assert_eq!(
            show(call("sqrt", vec![n("2")]), Type::NUMERIC),
            "1.414213562373095"
        );
        let e = call("sqrt", vec![Value::Float8(-1.0)]).unwrap_err();
        assert_eq!(e.code, "2201F");
        let e = call("ln", vec![Value::Float8(0.0)]).unwrap_err();
        assert_eq!(
            (e.code, e.message.as_str()),
            ("2201E", "cannot take logarithm of zero")
        );
        assert_eq!(
            call("mod", vec![Value::Int4(-7), Value::Int4(3)]).unwrap(),
            Value::Int4(-1)
        );
        assert_eq!(
            call("gcd", vec![Value::Int4(12), Value::Int4(-18)]).unwrap(),
            Value::Int4(6)
        );
        assert_eq!(
            call("lcm", vec![Value::Int4(4), Value::Int4(6)]).unwrap(),
            Value::Int4(12)
        );
        assert_eq!(
            call(
                "width_bucket",
                vec![
                    Value::Float8(5.35),
                    Value::Float8(0.024),
                    Value::Float8(10.06),
                    Value::Int4(5)
                ]
            )
            .unwrap(),
            Value::Int4(3)
        );
        assert!(call("exp", vec![Value::Float8(1000.0)]).is_err());
    }

    #[test]
    fn extract() {
        let ts = p("2020-01-02 03:04:05.5", Type::TIMESTAMPTZ);
        let e = |f: &str, v: &Value, ty: Type| {
            io::to_text(&extract_field(f, v, ty, &c()).unwrap(), Type::NUMERIC, &c())
        };
        assert_eq!(e("epoch", &ts, Type::TIMESTAMPTZ), "1577934245.500000");
        assert_eq!(e("year", &p("2020-05-06", Type::DATE), Type::DATE), "2020");
        assert_eq!(
            e("second", &p("10:11:12.5", Type::TIME), Type::TIME),
            "12.500000"
        );
        assert_eq!(e("dow", &p("2020-01-05", Type::DATE), Type::DATE), "0");
        assert_eq!(e("isodow", &p("2020-01-05", Type::DATE), Type::DATE), "7");
        assert_eq!(e("doy", &p("2020-02-01", Type::DATE), Type::DATE), "32");
        assert_eq!(e("week", &p("2021-01-01", Type::DATE), Type::DATE), "53");
        assert_eq!(e("century", &p("2000-01-01", Type::DATE), Type::DATE), "20");
        assert_eq!(
            e("millennium", &p("2001-01-01", Type::DATE), Type::DATE),
            "3"
        );
        assert_eq!(e("decade", &p("2019-01-01", Type::DATE), Type::DATE), "201");
        assert_eq!(
            e("julian", &p("2020-01-01", Type::DATE), Type::DATE),
            "2458850"
        );
        assert_eq!(
            e("isoyear", &p("2021-01-01", Type::DATE), Type::DATE),
            "2020"
        );
        assert_eq!(
            e("milliseconds", &p("10:11:12.5", Type::TIME), Type::TIME),
            "12500.000"
        );
        assert_eq!(
            e(
                "microseconds",
                &p("2020-01-01 00:00:01.25", Type::TIMESTAMP),
                Type::TIMESTAMP
            ),
            "1250000"
        );
        assert_eq!(
            e("epoch", &p("1 day 2 hours", Type::INTERVAL), Type::INTERVAL),
            "93600.000000"
        );
        assert_eq!(
            e("epoch", &p("1 year", Type::INTERVAL), Type::INTERVAL),
            "31557600.000000"
        );
        assert_eq!(
            e("month", &p("14 months", Type::INTERVAL), Type::INTERVAL),
            "2"
        );
        assert_eq!(
            e("hour", &p("-25 hours", Type::INTERVAL), Type::INTERVAL),
            "-25"
        );
        assert_eq!(
            e("epoch", &p("2020-01-01", Type::DATE), Type::DATE),
            "1577836800"
        );
        assert_eq!(
            e("year", &p("infinity", Type::TIMESTAMP), Type::TIMESTAMP),
            "Infinity"
        );
        let err =
            extract_field("hour", &p("2020-01-01", Type::DATE), Type::DATE, &c()).unwrap_err();
        assert_eq!(
            (err.code, err.message.as_str()),
            ("0A000", "unit \"hour\" not supported for type date")
        );
        let err = extract_field("foo", &p("2020-01-01", Type::DATE), Type::DATE, &c()).unwrap_err();
        assert_eq!(err.message, "unit \"foo\" not recognized for type date");
    }

    #[test]
    fn datetime() {
        let ts = |s: &str| p(s, Type::TIMESTAMP);
        let tr = |u: &str, s: &str| show(call("date_trunc", vec![t(u), ts(s)]), Type::TIMESTAMP);
        assert_eq!(tr("week", "2020-01-02 10:00"), "2019-12-30 00:00:00");
        assert_eq!(tr("quarter", "2020-05-02"), "2020-04-01 00:00:00");
        assert_eq!(tr("decade", "2020-05-02"), "2020-01-01 00:00:00");
        assert_eq!(tr("century", "2020-05-02"), "2001-01-01 00:00:00");
        assert_eq!(
            tr("milliseconds", "2020-01-01 00:00:00.123456"),
            "2020-01-01 00:00:00.123"
        );
        let iv = p("1 day 2:03:04", Type::INTERVAL);
        assert_eq!(
            show(call("date_trunc", vec![t("hour"), iv]), Type::INTERVAL),
            "1 day 02:00:00"
        );
        let age = |a: &str, b: &str| show(call("age", vec![ts(a), ts(b)]), Type::INTERVAL);
        assert_eq!(age("2020-03-01", "2020-01-31"), "1 mon 1 day");
        assert_eq!(age("2020-01-31", "2020-03-01"), "-1 mons -1 days");
        assert_eq!(age("2021-02-28", "2020-02-29"), "11 mons 28 days");
        assert_eq!(
            age("2020-05-15 10:00", "2019-12-20 12:30"),
            "4 mons 25 days 21:30:00"
        );
        let e = call(
            "make_date",
            vec![Value::Int4(2020), Value::Int4(2), Value::Int4(30)],
        )
        .unwrap_err();
        assert_eq!(e.message, "date field value out of range: 2020-02-30");
        assert_eq!(
            show(
                call(
                    "make_date",
                    vec![Value::Int4(-1), Value::Int4(1), Value::Int4(1)]
                ),
                Type::DATE
            ),
            "0001-01-01 BC"
        );
        let mi = lookup("make_interval")
            .iter()
            .find(|s| s.args.len() == 7)
            .unwrap();
        let r = (mi.f)(
            &[1, 2, 3, 4, 5, 6]
                .map(Value::Int4)
                .into_iter()
                .chain([Value::Float8(7.5)])
                .collect::<Vec<_>>(),
            &c(),
        );
        assert_eq!(show(r, Type::INTERVAL), "1 year 2 mons 25 days 05:06:07.5");
        let tz = p("2020-01-01 00:00+00", Type::TIMESTAMPTZ);
        let r = f_timezone_tstz(&[t("+05"), tz.clone()], &c());
        assert_eq!(show(r, Type::TIMESTAMP), "2019-12-31 19:00:00");
        let r = f_timezone_tstz(&[t("EST"), tz.clone()], &c());
        assert_eq!(show(r, Type::TIMESTAMP), "2019-12-31 19:00:00");
        let r = f_timezone_ts(&[t("America/New_York"), ts("2020-01-01 00:00")], &c());
        assert_eq!(show(r, Type::TIMESTAMPTZ), "2020-01-01 05:00:00+00");
        assert!(f_timezone_tstz(&[t("nowhere"), tz], &c()).is_err());
    }

    #[test]
    fn arrays() {
        let a = |s: &str| p(s, Type::INT4_ARRAY);
        assert_eq!(
            call("array_dims", vec![a("{{1,2},{3,4}}")]).unwrap(),
            t("[1:2][1:2]")
        );
        assert_eq!(
            call("array_position", vec![a("{1,2,3,2}"), Value::Int4(2)]).unwrap(),
            Value::Int4(2)
        );
        assert_eq!(
            show(
                call("array_positions", vec![a("{1,2,3,2}"), Value::Int4(2)]),
                Type::INT4_ARRAY
            ),
            "{2,4}"
        );
        assert_eq!(
            show(
                call("array_remove", vec![a("{1,2,NULL,2}"), Value::Int4(2)]),
                Type::INT4_ARRAY
            ),
            "{1,NULL}"
        );
        assert_eq!(
            call("cardinality", vec![a("{{1,2},{3,4}}")]).unwrap(),
            Value::Int4(4)
        );
        assert_eq!(call("array_ndims", vec![a("{}")]).unwrap(), Value::Null);
        assert_eq!(
            call("array_length", vec![a("{}"), Value::Int4(1)]).unwrap(),
            Value::Null
        );
        assert_eq!(
            show(
                call("array_append", vec![Value::Null, Value::Int4(1)]),
                Type::INT4_ARRAY
            ),
            "{1}"
        );
    }
}
