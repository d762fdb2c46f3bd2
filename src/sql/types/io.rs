//! Text and binary input/output of every type, as PostgreSQL's typinput/typoutput and
//! typreceive/typsend functions.
//!
//! Text output depends on session settings (DateStyle, TimeZone, IntervalStyle,
//! extra_float_digits) carried by [`FormatCtx`]. Binary formats follow PostgreSQL's send
//! functions byte for byte (big-endian; numeric in base 10000; timestamps as microseconds since
//! 2000-01-01; arrays with their header).
//!
//! This file holds the text output and input of the scalar types and the dispatch over every
//! type ([`write_text`], [`from_text`]); the rest is in `io/` by concern, re-exported here:
//! - `binary.rs`: binary input and output (typreceive / typsend);
//! - `float.rs`: float4 / float8 text output (shortest round trip) and input;
//! - `array.rs`: array and record text output, array input;
//! - `reg.rs`: the reg* types' input and output (names ↔ OIDs);
//! - `tests.rs`: unit tests.

use super::datetime as dt;
use super::{Array, FormatCtx, Interval, Numeric, Type, Value};
use crate::error::{code, PgError, PgResult};
use bytes::{BufMut, BytesMut};
use std::fmt::Write;

/// The most dimensions an array has (PostgreSQL's MAXDIM).
pub const MAX_DIMS: usize = 6;

mod array;
mod binary;
mod float;
mod multirange;
mod range;
mod record;
mod reg;
#[cfg(test)]
mod tests;

pub use array::{parse_array, write_array};
pub use binary::{from_binary, write_binary};
pub use float::{parse_float4, parse_float8, write_float4, write_float8};
pub use multirange::{
    parse_multirange, read_multirange_binary, write_multirange, write_multirange_binary,
};
pub use range::{parse_range, read_range_binary, write_range, write_range_binary};
pub use record::{parse_record, write_record};
use reg::{parse_regprocedure, regnamespace_in, regproc_in, regrole_in, write_oid};
pub use reg::{parse_regtype, regclass_oid, regtype_name};

// ---------------------------------------------------------------------------------------------
// Text output
// ---------------------------------------------------------------------------------------------

/// Appends the text form of `v` (of type `ty`) to `out`. NULL appends nothing (callers send
/// NULL as such).
pub fn write_text(v: &Value, ty: Type, ctx: &FormatCtx, out: &mut String) {
    if crate::stack::exceeded() {
        // Only values nested deeper than any input or expression builds them reach here
        // (see `crate::stack`); their deepest parts print as `...` rather than end the process.
        out.push_str("...");
        return;
    }
    match v {
        Value::Null | Value::Void => {}
        Value::Bool(b) => out.push(if *b { 't' } else { 'f' }),
        Value::Int2(i) => {
            let _ = write!(out, "{i}");
        }
        Value::Int4(i) => {
            let _ = write!(out, "{i}");
        }
        Value::Int8(_) if ty == Type::PG_LSN => {
            super::lsn::format(super::lsn::of(v).unwrap_or(0), out)
        }
        Value::Int8(_) if ty == Type::TID => super::tid::format(v, out),
        Value::Int8(i) if ty == Type::XID8 => {
            let _ = write!(out, "{}", *i as u64);
        }
        Value::Int8(i) => {
            let _ = write!(out, "{i}");
        }
        Value::Float4(f) => write_float4(*f, ctx.extra_float_digits, out),
        Value::Float8(f) => write_float8(*f, ctx.extra_float_digits, out),
        Value::Numeric(n) => {
            let _ = write!(out, "{n}");
        }
        Value::Text(s) | Value::CiText(s) => out.push_str(s),
        Value::Bytea(_) if ty == Type::POINT => super::geo::format_point(v, ctx, out),
        Value::Bytea(_) if ty == Type::BOX => super::geo::format_box(v, ctx, out),
        Value::Bytea(_) if ty == Type::LSEG => super::geo::format_lseg(v, ctx, out),
        Value::Bytea(_) if ty == Type::CIRCLE => super::geo::format_circle(v, ctx, out),
        Value::Bytea(b) => write_bytea_hex(b, out),
        Value::Date(d) => dt::format_date(*d, ctx.date_style, out),
        Value::Time(t) => dt::format_time(*t, out),
        Value::TimeTz(t, z) => dt::format_timetz(*t, *z, out),
        Value::Inet(v) => super::network::format(v, ty == Type::CIDR, out),
        Value::Timestamp(t) => dt::format_timestamp(*t, ctx.date_style, out),
        Value::TimestampTz(t) => dt::format_timestamptz(*t, ctx, out),
        Value::Interval(iv) => dt::format_interval(iv, ctx.interval_style, out),
        Value::Oid(o) => write_oid(*o, ty, out),
        Value::Uuid(u) => write_uuid(u, out),
        // int2vector and oidvector print their elements separated by spaces (`701 701 23`).
        Value::Array(a) if matches!(ty, Type::INT2VECTOR | Type::OIDVECTOR) => {
            for (i, v) in a.items.iter().enumerate() {
                if i > 0 {
                    out.push(' ');
                }
                write_text(v, a.elem, ctx, out);
            }
        }
        Value::Array(a) => write_array(a, ctx, out),
        Value::Record(fields) => write_record(fields, ty, ctx, out),
        Value::Enum(o) => write_enum(*o, out),
        Value::Range(r) => write_range(r, ty, ctx, out),
        Value::Multirange(m) => write_multirange(m, ty, ctx, out),
    }
}

/// An enum value's label (a label no enum has any more prints as its OID in brackets, which
/// only a value in flight across a concurrent DROP TYPE can meet).
fn write_enum(label: u32, out: &mut String) {
    match crate::catalog::types::label(label) {
        Some((_, _, name)) => out.push_str(&name),
        None => {
            let _ = write!(out, "<enum {label}>");
        }
    }
}

/// Enum input: the label named exactly `s` (enum_in).
pub fn enum_in(s: &str, ty: Type) -> PgResult<Value> {
    let found = crate::catalog::types::type_info(ty.0).and_then(|t| t.def.label(s).map(|l| l.oid));
    match found {
        Some(o) => Ok(Value::Enum(o)),
        // PostgreSQL refuses a label added by a transaction that has not committed.
        None if crate::catalog::types::label_in_progress(ty.0, s) => Err(PgError::new(
            crate::error::code::UNSAFE_NEW_ENUM_VALUE_USAGE,
            format!("unsafe use of new value \"{s}\" of enum type {}", ty.name()),
        )
        .with_hint("New enum values must be committed before they can be used.")),
        None => Err(PgError::new(
            crate::error::code::INVALID_TEXT_REPRESENTATION,
            format!("invalid input value for enum {}: \"{s}\"", ty.name()),
        )),
    }
}

/// The text form of `v` as a new string.
pub fn to_text(v: &Value, ty: Type, ctx: &FormatCtx) -> String {
    let mut s = String::new();
    write_text(v, ty, ctx, &mut s);
    s
}

/// The type a value has when nothing else says (record fields, polymorphic output).
pub fn value_type(v: &Value) -> Type {
    match v {
        Value::Null => Type::UNKNOWN,
        Value::Bool(_) => Type::BOOL,
        Value::Int2(_) => Type::INT2,
        Value::Int4(_) => Type::INT4,
        Value::Int8(_) => Type::INT8,
        Value::Float4(_) => Type::FLOAT4,
        Value::Float8(_) => Type::FLOAT8,
        Value::Numeric(_) => Type::NUMERIC,
        Value::Text(_) => Type::TEXT,
        // Its OID is one per database (CREATE EXTENSION): where nothing says which, its
        // value is text (which it casts to implicitly).
        Value::CiText(_) => Type::TEXT,
        Value::Bytea(_) => Type::BYTEA,
        Value::Date(_) => Type::DATE,
        Value::Time(_) => Type::TIME,
        Value::TimeTz(..) => Type::TIMETZ,
        Value::Inet(_) => Type::INET,
        Value::Timestamp(_) => Type::TIMESTAMP,
        Value::TimestampTz(_) => Type::TIMESTAMPTZ,
        Value::Interval(_) => Type::INTERVAL,
        Value::Oid(_) => Type::OID,
        Value::Uuid(_) => Type::UUID,
        Value::Array(a) => a.elem.array().unwrap_or(Type::ANYARRAY),
        Value::Record(_) => Type::RECORD,
        Value::Void => Type::VOID,
        Value::Enum(o) => crate::catalog::types::label(*o).map_or(Type::UNKNOWN, |l| Type(l.0)),
        Value::Range(_) => Type::ANYRANGE,
        Value::Multirange(_) => Type::ANYMULTIRANGE,
    }
}

fn write_bytea_hex(b: &[u8], out: &mut String) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.reserve(2 + b.len() * 2);
    out.push_str("\\x");
    for &c in b {
        out.push(HEX[(c >> 4) as usize] as char);
        out.push(HEX[(c & 15) as usize] as char);
    }
}

/// bytea in the `escape` output format (`bytea_output = escape`, `encode(.., 'escape')`).
pub fn bytea_escape(b: &[u8]) -> String {
    let mut s = String::with_capacity(b.len());
    for &c in b {
        if c == b'\\' {
            s.push_str("\\\\");
        } else if !(0x20..0x7f).contains(&c) {
            let _ = write!(s, "\\{c:03o}");
        } else {
            s.push(c as char);
        }
    }
    s
}

fn write_uuid(u: &[u8; 16], out: &mut String) {
    for (i, b) in u.iter().enumerate() {
        if matches!(i, 4 | 6 | 8 | 10) {
            out.push('-');
        }
        let _ = write!(out, "{b:02x}");
    }
}

// ---------------------------------------------------------------------------------------------
// Text input
// ---------------------------------------------------------------------------------------------

fn out_of_range_for(s: &str, type_name: &str) -> PgError {
    PgError::new(
        code::NUMERIC_VALUE_OUT_OF_RANGE,
        format!("value \"{s}\" is out of range for type {type_name}"),
    )
}

/// PostgreSQL's integer input (whitespace around, optional sign, decimal digits).
pub fn parse_int(s: &str, min: i64, max: i64, type_name: &str) -> PgResult<i64> {
    let edge = |b: Option<&u8>| b.is_some_and(u8::is_ascii_whitespace);
    let t = if edge(s.as_bytes().first()) || edge(s.as_bytes().last()) {
        s.trim_matches(|c: char| c.is_ascii_whitespace())
    } else {
        s
    };
    let b = t.as_bytes();
    let (neg, digits) = match b.first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    if digits.is_empty() || !digits.bytes().all(|c| c.is_ascii_digit()) {
        return Err(PgError::invalid_text(type_name, s));
    }
    if digits.len() <= 18 {
        // At most 18 digits: no overflow of an i64 (bulk loads parse millions of these).
        let v = digits.bytes().fold(0i64, |v, c| v * 10 + (c - b'0') as i64);
        let v = if neg { -v } else { v };
        if v < min || v > max {
            return Err(out_of_range_for(s, type_name));
        }
        return Ok(v);
    }
    let mut v: i128 = 0;
    for c in digits.bytes() {
        v = v * 10 + (c - b'0') as i128;
        if v > (max as i128) + 1 {
            return Err(out_of_range_for(s, type_name));
        }
    }
    if neg {
        v = -v;
    }
    if v < min as i128 || v > max as i128 {
        return Err(out_of_range_for(s, type_name));
    }
    Ok(v as i64)
}

/// PostgreSQL's boolean input.
pub fn parse_bool(s: &str) -> Option<bool> {
    let t = s
        .trim_matches(|c: char| c.is_ascii_whitespace())
        .to_ascii_lowercase();
    let is_prefix = |full: &str, min: usize| t.len() >= min && full.starts_with(t.as_str());
    if t.is_empty() {
        return None;
    }
    if is_prefix("true", 1) || is_prefix("yes", 1) || t == "on" || t == "1" {
        return Some(true);
    }
    if is_prefix("false", 1) || is_prefix("no", 1) || is_prefix("off", 2) || t == "0" {
        return Some(false);
    }
    None
}

/// bytea input: `\x` hex or the escape format.
pub fn parse_bytea(s: &str) -> PgResult<Vec<u8>> {
    let b = s.as_bytes();
    if b.len() >= 2 && b[0] == b'\\' && (b[1] == b'x' || b[1] == b'X') {
        let mut out = Vec::with_capacity((b.len() - 2) / 2);
        let mut i = 2;
        while i < b.len() {
            let c = b[i];
            if c.is_ascii_whitespace() {
                i += 1;
                continue;
            }
            let hi = hex_val(c).ok_or_else(|| invalid_hex_digit(s, i))?;
            if i + 1 >= b.len() {
                return Err(PgError::new(
                    code::INVALID_PARAMETER_VALUE,
                    "invalid hexadecimal data: odd number of digits",
                ));
            }
            let lo = hex_val(b[i + 1]).ok_or_else(|| invalid_hex_digit(s, i + 1))?;
            out.push(hi << 4 | lo);
            i += 2;
        }
        return Ok(out);
    }
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'\\' {
            out.push(b[i]);
            i += 1;
        } else if i + 1 < b.len() && b[i + 1] == b'\\' {
            out.push(b'\\');
            i += 2;
        } else if i + 3 < b.len()
            && (b'0'..=b'3').contains(&b[i + 1])
            && (b'0'..=b'7').contains(&b[i + 2])
            && (b'0'..=b'7').contains(&b[i + 3])
        {
            out.push((b[i + 1] - b'0') * 64 + (b[i + 2] - b'0') * 8 + (b[i + 3] - b'0'));
            i += 4;
        } else {
            return Err(PgError::new(
                code::INVALID_TEXT_REPRESENTATION,
                "invalid input syntax for type bytea",
            ));
        }
    }
    Ok(out)
}

fn invalid_hex_digit(s: &str, i: usize) -> PgError {
    let c = s[i..].chars().next().unwrap_or('?');
    PgError::new(
        code::INVALID_PARAMETER_VALUE,
        format!("invalid hexadecimal digit: \"{c}\""),
    )
}

pub fn hex_val(c: u8) -> Option<u8> {
    match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        b'A'..=b'F' => Some(c - b'A' + 10),
        _ => None,
    }
}

/// uuid input: 32 hex digits, optionally in braces, hyphens allowed between 4-digit groups.
pub fn parse_uuid(s: &str) -> PgResult<[u8; 16]> {
    let bad = || PgError::invalid_text("uuid", s);
    let mut t = s.as_bytes();
    let braces = t.first() == Some(&b'{');
    if braces {
        if t.last() != Some(&b'}') || t.len() < 2 {
            return Err(bad());
        }
        t = &t[1..t.len() - 1];
    }
    let mut out = [0u8; 16];
    let mut n = 0;
    let mut i = 0;
    while n < 32 {
        if i >= t.len() {
            return Err(bad());
        }
        let hi = hex_val(t[i]).ok_or_else(bad)?;
        let lo = hex_val(*t.get(i + 1).ok_or_else(bad)?).ok_or_else(bad)?;
        out[n / 2] = hi << 4 | lo;
        n += 2;
        i += 2;
        if n < 32 && n % 4 == 0 && i < t.len() && t[i] == b'-' {
            i += 1;
        }
    }
    if i != t.len() {
        return Err(bad());
    }
    Ok(out)
}

/// Parses text input of type `ty` (PostgreSQL's input function), then applies `typmod`.
pub fn from_text(s: &str, ty: Type, typmod: i32, ctx: &FormatCtx) -> PgResult<Value> {
    let v = from_text_inner(s, ty, typmod, ctx)?;
    if typmod >= 0 {
        return super::cast::apply_typmod(v, ty, typmod, false);
    }
    Ok(v)
}

fn from_text_inner(s: &str, ty: Type, typmod: i32, ctx: &FormatCtx) -> PgResult<Value> {
    if let Some(elem) = ty.elem() {
        return parse_array(s, elem, typmod, ctx).map(|a| Value::Array(Box::new(a)));
    }
    if matches!(ty, Type::INT2VECTOR | Type::OIDVECTOR) {
        // Elements separated by spaces, subscripts from 0.
        let elem = ty.subscript_elem().unwrap_or(Type::OID);
        let items = s
            .split_ascii_whitespace()
            .map(|e| from_text_inner(e, elem, -1, ctx))
            .collect::<PgResult<Vec<_>>>()?;
        return Ok(Value::Array(Box::new(Array::vector(elem, items))));
    }
    Ok(match ty {
        Type::BOOL => {
            Value::Bool(parse_bool(s).ok_or_else(|| PgError::invalid_text("boolean", s))?)
        }
        Type::INT2 => {
            Value::Int2(parse_int(s, i16::MIN as i64, i16::MAX as i64, "smallint")? as i16)
        }
        Type::INT4 => {
            Value::Int4(parse_int(s, i32::MIN as i64, i32::MAX as i64, "integer")? as i32)
        }
        Type::INT8 => Value::Int8(parse_int(s, i64::MIN, i64::MAX, "bigint")?),
        Type::OID if is_oid_literal(s) => {
            Value::Oid(parse_int(s, -(u32::MAX as i64), u32::MAX as i64, "oid")? as u32)
        }
        // The reg* types take a number only when the text is nothing but digits (" 63 " is a
        // name there, as in PostgreSQL).
        Type::REGCLASS
        | Type::REGPROC
        | Type::REGNAMESPACE
        | Type::REGROLE
        | Type::REGPROCEDURE
            if !s.is_empty() && s.bytes().all(|c| c.is_ascii_digit()) =>
        {
            Value::Oid(parse_int(s, 0, u32::MAX as i64, "oid")? as u32)
        }
        Type::OID => return Err(PgError::invalid_text("oid", s)),
        // The reg* types read "-" as InvalidOid, which is how they print it.
        Type::REGCLASS | Type::REGTYPE | Type::REGNAMESPACE | Type::REGPROCEDURE if s == "-" => {
            Value::Oid(0)
        }
        Type::FLOAT4 => Value::Float4(parse_float4(s)?),
        Type::FLOAT8 => Value::Float8(parse_float8(s)?),
        Type::NUMERIC => Value::Numeric(Box::new(Numeric::parse(s)?)),
        Type::BYTEA => Value::Bytea(parse_bytea(s)?),
        Type::DATE => Value::Date(dt::parse_date(s, ctx)?),
        Type::TIME => Value::Time(dt::parse_time(s, ctx)?),
        Type::TIMETZ => {
            let (t, z) = dt::parse_timetz(s, ctx)?;
            Value::TimeTz(t, z)
        }
        Type::INET | Type::CIDR => Value::Inet(super::network::parse(s, ty == Type::CIDR)?),
        Type::TIMESTAMP => Value::Timestamp(dt::parse_timestamp(s, false, ctx)?),
        Type::TIMESTAMPTZ => Value::TimestampTz(dt::parse_timestamp(s, true, ctx)?),
        Type::INTERVAL => Value::Interval(dt::parse_interval(s, ctx.interval_style)?),
        Type::UUID => Value::Uuid(parse_uuid(s)?),
        Type::PG_LSN => super::lsn::value(super::lsn::parse(s)?),
        Type::POINT => super::geo::parse_point(s)?,
        Type::BOX => super::geo::parse_box(s)?,
        Type::LSEG => super::geo::parse_lseg(s)?,
        Type::CIRCLE => super::geo::parse_circle(s)?,
        Type::TID => super::tid::parse(s)?,
        Type::XID | Type::CID => super::tid::parse_xid(s),
        Type::XID8 => super::tid::parse_xid8(s),
        Type::REGTYPE => Value::Oid(parse_regtype(s)?.0),
        Type::REGNAMESPACE => regnamespace_in(s)?,
        Type::REGPROCEDURE => Value::Oid(parse_regprocedure(s)?),
        Type::REGROLE => regrole_in(s)?,
        Type::REGPROC => regproc_in(s)?,
        Type::NAME => Value::Text(truncate_bytes(s, 63).to_string()),
        Type::CHAR => Value::Text(s.chars().next().map(String::from).unwrap_or_default()),
        Type::VOID => Value::Void,
        Type::JSON => Value::Text(super::json::json_in(s)?),
        Type::JSONB => Value::Text(super::json::jsonb_in(s)?),
        Type::RECORD => {
            return Err(PgError::feature_not_supported(
                "input of anonymous composite types is not implemented",
            ))
        }
        t if t.is_enum() => return enum_in(s, t),
        t if t.is_hstore() => Value::Text(super::hstore::hstore_in(s)?),
        t if t.is_citext() => Value::CiText(s.to_string()),
        t if t.is_composite() => return parse_record(s, t, ctx),
        t if t.is_range() => return parse_range(s, t, ctx),
        t if t.is_multirange() => return parse_multirange(s, t, ctx),
        _ => Value::Text(s.to_string()),
    })
}

fn is_oid_literal(s: &str) -> bool {
    // a sign alone ("-" is the reg* types' name for no object) is not a number
    let digits = s.trim().trim_start_matches(['-', '+']);
    !digits.is_empty() && digits.bytes().all(|c| c.is_ascii_digit())
}

/// Truncates to at most `max` bytes on a character boundary.
pub fn truncate_bytes(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}
