//! Text and binary input/output of every type, as PostgreSQL's typinput/typoutput and
//! typreceive/typsend functions.
//!
//! Text output depends on session settings (DateStyle, TimeZone, IntervalStyle,
//! extra_float_digits) carried by [`FormatCtx`]. Binary formats follow PostgreSQL's send
//! functions byte for byte (big-endian; numeric in base 10000; timestamps as microseconds since
//! 2000-01-01; arrays with their header).

use super::datetime as dt;
use super::{Array, FormatCtx, Interval, Numeric, Type, Value};
use crate::error::{code, PgError, PgResult};
use bytes::{BufMut, BytesMut};
use std::fmt::Write;

/// The most dimensions an array has (PostgreSQL's MAXDIM).
pub const MAX_DIMS: usize = 6;

mod binary;
pub use binary::{from_binary, write_binary};

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
        Value::Int8(i) => {
            let _ = write!(out, "{i}");
        }
        Value::Float4(f) => write_float4(*f, ctx.extra_float_digits, out),
        Value::Float8(f) => write_float8(*f, ctx.extra_float_digits, out),
        Value::Numeric(n) => {
            let _ = write!(out, "{n}");
        }
        Value::Text(s) => out.push_str(s),
        Value::Bytea(b) => write_bytea_hex(b, out),
        Value::Date(d) => dt::format_date(*d, ctx.date_style, out),
        Value::Time(t) => dt::format_time(*t, out),
        Value::TimeTz(t, z) => dt::format_timetz(*t, *z, out),
        Value::Inet(v) => super::network::format(v, ty == Type::CIDR, out),
        Value::Timestamp(t) => dt::format_timestamp(*t, ctx.date_style, out),
        Value::TimestampTz(t) => dt::format_timestamptz(*t, ctx, out),
        Value::Interval(iv) => dt::format_interval(iv, ctx.interval_style, out),
        Value::Oid(o) => match ty {
            // The reg* types print "-" for no object, as PostgreSQL does.
            Type::REGTYPE
            | Type::REGPROC
            | Type::REGCLASS
            | Type::REGNAMESPACE
            | Type::REGROLE
            | Type::REGPROCEDURE
                if *o == 0 =>
            {
                out.push('-')
            }
            Type::REGNAMESPACE => match crate::sql::catalog::namespace_name(*o) {
                Some(n) => out.push_str(n),
                None => {
                    let _ = write!(out, "{o}");
                }
            },
            Type::REGTYPE => out.push_str(&regtype_name(*o)),
            // Roles made by CREATE ROLE are held by name (`plan/regrole.rs`).
            Type::REGROLE => match crate::sql::catalog::fixed::role_name(*o) {
                Some(n) => out.push_str(n),
                None => {
                    let _ = write!(out, "{o}");
                }
            },
            Type::REGCLASS => match crate::sql::catalog::regclass_name(*o) {
                Some(n) => out.push_str(n),
                None => {
                    let _ = write!(out, "{o}");
                }
            },
            Type::REGPROCEDURE => match crate::sql::catalog::procs::by_oid(*o) {
                Some(p) => out.push_str(&crate::sql::catalog::procs::signature(p)),
                None => {
                    let _ = write!(out, "{o}");
                }
            },
            Type::REGPROC => match crate::sql::catalog::proc_name(*o)
                .or_else(|| crate::sql::catalog::procs::by_oid(*o).map(|p| p.name.as_str()))
            {
                // A name regproc input would not find uniquely is qualified, as PostgreSQL's
                // regprocout does (`pg_catalog.max`).
                Some(n) if crate::sql::catalog::procs::named(n).nth(1).is_some() => {
                    let _ = write!(out, "pg_catalog.{n}");
                }
                Some(n) => out.push_str(n),
                None => {
                    let _ = write!(out, "{o}");
                }
            },
            _ => {
                let _ = write!(out, "{o}");
            }
        },
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
        Value::Record(fields) => write_record(fields, ctx, out),
    }
}

/// The text form of `v` as a new string.
pub fn to_text(v: &Value, ty: Type, ctx: &FormatCtx) -> String {
    let mut s = String::new();
    write_text(v, ty, ctx, &mut s);
    s
}

/// The name regtype output prints for a type OID (the OID itself when unknown).
pub fn regtype_name(oid: u32) -> String {
    let t = Type(oid);
    let n = t.name();
    if n.starts_with("type ") {
        oid.to_string()
    } else {
        n
    }
}

/// OIDs of the catalog relations clients name in `'x'::regclass`.
pub fn regclass_oid(name: &str) -> Option<u32> {
    crate::sql::catalog::regclass_oid(name)
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

/// float8 output: shortest exact representation when extra_float_digits > 0 (PostgreSQL 12+
/// default), otherwise `%.{15+extra}g`.
pub fn write_float8(f: f64, extra: i32, out: &mut String) {
    write_float(
        f,
        extra,
        15,
        out,
        |p| format!("{:.*e}", p, f),
        || shortest_f64(f),
    )
}

/// float4 output (6 significant digits base).
pub fn write_float4(f: f32, extra: i32, out: &mut String) {
    write_float(
        f as f64,
        extra,
        6,
        out,
        |p| format!("{:.*e}", p, f),
        || shortest_f32(f),
    )
}

/// `m * 2^e` of a finite non-negative float given its bit layout.
fn float_parts(bits: u64, mant_bits: u32, exp_bits: u32, exp_bias: i32) -> (u64, i32) {
    let mant = bits & ((1u64 << mant_bits) - 1);
    let exp = ((bits >> mant_bits) & ((1u64 << exp_bits) - 1)) as i32;
    if exp == 0 {
        (mant, 1 - exp_bias - mant_bits as i32)
    } else {
        (
            mant | (1u64 << mant_bits),
            exp - exp_bias - mant_bits as i32,
        )
    }
}

/// Whether the decimal `sci` (as produced by `{:e}`) equals (a + b) / 2 exactly, where a and b
/// are `m * 2^e` values.
fn decimal_is_midpoint(sci: &str, a: (u64, i32), b: (u64, i32)) -> bool {
    use bigdecimal::num_bigint::BigInt;
    let (mant, exp) = sci.split_once('e').unwrap_or((sci, "0"));
    let mant = mant.trim_start_matches('-');
    let (ip, fp) = mant.split_once('.').unwrap_or((mant, ""));
    let digits: String = format!("{ip}{fp}");
    let Ok(d) = digits.parse::<BigInt>() else {
        return false;
    };
    let k = exp.parse::<i32>().unwrap_or(0) - fp.len() as i32;
    let e = a.1.min(b.1);
    let s = BigInt::from(a.0) * (BigInt::from(1) << (a.1 - e) as usize)
        + BigInt::from(b.0) * (BigInt::from(1) << (b.1 - e) as usize);
    let ten = BigInt::from(10);
    // 2 * d * 10^k == s * 2^e
    let mut lhs = d * 2;
    let mut rhs = s;
    if k >= 0 {
        lhs *= ten.pow(k as u32);
    } else {
        rhs *= ten.pow((-k) as u32);
    }
    if e >= 0 {
        rhs <<= e as usize;
    } else {
        lhs <<= (-e) as usize;
    }
    lhs == rhs
}

/// Shortest decimal that reads back as `f` under any tie-breaking (bounds excluded) and, among
/// those, the closest, ties to even: PostgreSQL's (Ryu) output.
fn shortest_f64(f: f64) -> String {
    let first = format!("{f:e}");
    let start = first
        .split('e')
        .next()
        .map(|m| m.chars().filter(|c| c.is_ascii_digit()).count())
        .unwrap_or(1)
        .max(1);
    let a = f.abs();
    let me = float_parts(a.to_bits(), 52, 11, 1023);
    let up = float_parts(a.next_up().to_bits(), 52, 11, 1023);
    let down = if a > 0.0 {
        Some(float_parts(a.next_down().to_bits(), 52, 11, 1023))
    } else {
        None
    };
    let ok = |c: &str| {
        c.parse::<f64>().ok() == Some(f)
            && !(a.next_up().is_finite() && decimal_is_midpoint(c, me, up))
            && !down.is_some_and(|d| decimal_is_midpoint(c, me, d))
    };
    for n in start..=17 {
        // The correctly rounded n-digit value (ties to even) is the closest candidate.
        let c = format!("{:.*e}", n - 1, f);
        if ok(&c) {
            return c;
        }
        if n == start && ok(&first) {
            return first;
        }
    }
    format!("{:.16e}", f)
}

fn shortest_f32(f: f32) -> String {
    let first = format!("{f:e}");
    let start = first
        .split('e')
        .next()
        .map(|m| m.chars().filter(|c| c.is_ascii_digit()).count())
        .unwrap_or(1)
        .max(1);
    let a = f.abs();
    let me = float_parts(a.to_bits() as u64, 23, 8, 127);
    let up = float_parts(a.next_up().to_bits() as u64, 23, 8, 127);
    let down = if a > 0.0 {
        Some(float_parts(a.next_down().to_bits() as u64, 23, 8, 127))
    } else {
        None
    };
    let ok = |c: &str| {
        c.parse::<f32>().ok() == Some(f)
            && !(a.next_up().is_finite() && decimal_is_midpoint(c, me, up))
            && !down.is_some_and(|d| decimal_is_midpoint(c, me, d))
    };
    for n in start..=9 {
        // The correctly rounded n-digit value (ties to even) is the closest candidate.
        let c = format!("{:.*e}", n - 1, f);
        if ok(&c) {
            return c;
        }
        if n == start && ok(&first) {
            return first;
        }
    }
    format!("{:.8e}", f)
}

fn write_float(
    f: f64,
    extra: i32,
    dig: i32,
    out: &mut String,
    fixed_prec: impl Fn(usize) -> String,
    shortest: impl Fn() -> String,
) {
    if f.is_nan() {
        return out.push_str("NaN");
    }
    if f.is_infinite() {
        return out.push_str(if f > 0.0 { "Infinity" } else { "-Infinity" });
    }
    if f == 0.0 {
        return out.push_str(if f.is_sign_negative() { "-0" } else { "0" });
    }
    let (sci, threshold, strip) = if extra > 0 {
        (shortest(), dig, false)
    } else {
        let p = (dig + extra).max(1);
        (fixed_prec((p - 1) as usize), p, true)
    };
    // sci is like "-1.2345e17" or "1e-5"
    let (mant, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let neg = mant.starts_with('-');
    let mant = mant.trim_start_matches('-');
    let mut digits: String = mant.chars().filter(|c| c.is_ascii_digit()).collect();
    if strip {
        while digits.len() > 1 && digits.ends_with('0') {
            digits.pop();
        }
    }
    if neg {
        out.push('-');
    }
    if exp < -4 || exp >= threshold {
        out.push_str(&digits[..1]);
        if digits.len() > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        let _ = write!(out, "e{}{:02}", if exp < 0 { '-' } else { '+' }, exp.abs());
    } else if exp < 0 {
        out.push_str("0.");
        for _ in 0..(-exp - 1) {
            out.push('0');
        }
        out.push_str(&digits);
    } else {
        let int_len = exp as usize + 1;
        if digits.len() <= int_len {
            out.push_str(&digits);
            for _ in digits.len()..int_len {
                out.push('0');
            }
        } else {
            out.push_str(&digits[..int_len]);
            out.push('.');
            out.push_str(&digits[int_len..]);
        }
    }
}

/// Whether an array element's text must be double-quoted in array output.
fn array_elem_needs_quotes(s: &str) -> bool {
    s.is_empty()
        || s.eq_ignore_ascii_case("null")
        || s.bytes().any(|c| {
            matches!(
                c,
                b'"' | b'\\' | b'{' | b'}' | b',' | b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c
            )
        })
}

fn push_quoted(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        if c == '"' || c == '\\' {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('"');
}

/// Array output: `{1,2,NULL,"a b"}`, nested braces for more dimensions and a `[lo:hi]=`
/// prefix when a lower bound is not 1.
pub fn write_array(a: &Array, ctx: &FormatCtx, out: &mut String) {
    if a.dims.is_empty() || a.items.is_empty() {
        out.push_str("{}");
        return;
    }
    if a.dims.iter().any(|&(_, lb)| lb != 1) {
        for &(len, lb) in &a.dims {
            let _ = write!(out, "[{}:{}]", lb, lb as i64 + len as i64 - 1);
        }
        out.push('=');
    }
    let mut idx = 0;
    write_array_dim(a, 0, &mut idx, ctx, out);
}

fn write_array_dim(a: &Array, dim: usize, idx: &mut usize, ctx: &FormatCtx, out: &mut String) {
    out.push('{');
    let len = a.dims[dim].0.max(0) as usize;
    for i in 0..len {
        if i > 0 {
            out.push(',');
        }
        if dim + 1 < a.dims.len() {
            write_array_dim(a, dim + 1, idx, ctx, out);
        } else {
            let v = a.items.get(*idx).unwrap_or(&Value::Null);
            *idx += 1;
            if v.is_null() {
                out.push_str("NULL");
            } else {
                let s = to_text(v, a.elem, ctx);
                if array_elem_needs_quotes(&s) {
                    push_quoted(&s, out);
                } else {
                    out.push_str(&s);
                }
            }
        }
    }
    out.push('}');
}

/// Record output: `(1,"a b",,"")`.
pub fn write_record(fields: &[Value], ctx: &FormatCtx, out: &mut String) {
    out.push('(');
    for (i, v) in fields.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        if v.is_null() {
            continue;
        }
        let s = to_text(v, value_type(v), ctx);
        let needs = s.is_empty()
            || s.bytes().any(|c| {
                matches!(
                    c,
                    b'"' | b'\\' | b'(' | b')' | b',' | b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c
                )
            });
        if needs {
            out.push('"');
            for c in s.chars() {
                if c == '"' || c == '\\' {
                    out.push(c);
                }
                out.push(c);
            }
            out.push('"');
        } else {
            out.push_str(&s);
        }
    }
    out.push(')');
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

/// PostgreSQL's float8 input.
pub fn parse_float8(s: &str) -> PgResult<f64> {
    parse_float(s, "double precision").map(|(v, _)| v)
}

/// PostgreSQL's float4 input.
pub fn parse_float4(s: &str) -> PgResult<f32> {
    let t = s.trim_matches(|c: char| c.is_ascii_whitespace());
    let (v, special) = parse_float(s, "real")?;
    if special {
        return Ok(v as f32);
    }
    let f: f32 = t.parse().map_err(|_| PgError::invalid_text("real", s))?;
    if f.is_infinite() || (f == 0.0 && has_nonzero_digit(t)) {
        return Err(PgError::new(
            code::NUMERIC_VALUE_OUT_OF_RANGE,
            format!("\"{s}\" is out of range for type real"),
        ));
    }
    Ok(f)
}

fn has_nonzero_digit(t: &str) -> bool {
    let mant = t.split(['e', 'E']).next().unwrap_or("");
    mant.bytes().any(|c| (b'1'..=b'9').contains(&c))
}

/// Returns (value, is_special_literal).
fn parse_float(s: &str, type_name: &str) -> PgResult<(f64, bool)> {
    let t = s.trim_matches(|c: char| c.is_ascii_whitespace());
    let lower = t.to_ascii_lowercase();
    match lower.as_str() {
        "nan" | "+nan" | "-nan" => return Ok((f64::NAN, true)),
        "infinity" | "+infinity" | "inf" | "+inf" => return Ok((f64::INFINITY, true)),
        "-infinity" | "-inf" => return Ok((f64::NEG_INFINITY, true)),
        _ => {}
    }
    let valid = !t.is_empty()
        && t.bytes()
            .all(|c| c.is_ascii_digit() || matches!(c, b'.' | b'e' | b'E' | b'+' | b'-'))
        && t.bytes().any(|c| c.is_ascii_digit());
    if !valid {
        return Err(PgError::invalid_text(type_name, s));
    }
    let v: f64 = t.parse().map_err(|_| PgError::invalid_text(type_name, s))?;
    if v.is_infinite() || (v == 0.0 && has_nonzero_digit(t)) {
        return Err(PgError::new(
            code::NUMERIC_VALUE_OUT_OF_RANGE,
            format!("\"{s}\" is out of range for type {type_name}"),
        ));
    }
    Ok((v, false))
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
        Type::REGTYPE => Value::Oid(parse_regtype(s)?.0),
        Type::REGNAMESPACE => match crate::sql::catalog::namespace_oid(s.trim()) {
            Some(o) => Value::Oid(o),
            None => {
                return Err(PgError::new(
                    "3F000",
                    format!("schema \"{}\" does not exist", s.trim()),
                ))
            }
        },
        Type::REGPROCEDURE => Value::Oid(parse_regprocedure(s)?),
        Type::REGROLE => regrole_in(s)?,
        Type::REGPROC => match crate::sql::catalog::proc_oid(s.trim()) {
            _ if s.trim() == "-" => Value::Oid(0),
            Some(o) => Value::Oid(o),
            None if crate::sql::catalog::procs::named(s.trim()).next().is_some() => {
                let mut it = crate::sql::catalog::procs::named(s.trim());
                let first = it.next().map_or(0, |p| p.oid);
                if it.next().is_some() {
                    return Err(PgError::new(
                        "42725",
                        format!("more than one function named \"{}\"", s.trim()),
                    ));
                }
                Value::Oid(first)
            }
            None => {
                return Err(PgError::new(
                    "42883",
                    format!("function \"{s}\" does not exist"),
                ))
            }
        },
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
        _ => Value::Text(s.to_string()),
    })
}

fn is_oid_literal(s: &str) -> bool {
    // a sign alone ("-" is the reg* types' name for no object) is not a number
    let digits = s.trim().trim_start_matches(['-', '+']);
    !digits.is_empty() && digits.bytes().all(|c| c.is_ascii_digit())
}

/// A type name as `regtype` input accepts it (`integer`, `int4`, `varchar(10)`, `text[]`).
pub fn parse_regtype(s: &str) -> PgResult<Type> {
    let t = s.trim();
    if !t.is_empty() && t.bytes().all(|c| c.is_ascii_digit()) {
        return Ok(Type(
            t.parse().map_err(|_| PgError::invalid_text("oid", s))?,
        ));
    }
    let mut name = t.to_lowercase();
    let quoted = name.starts_with('"') && name.ends_with('"') && name.len() >= 2;
    if quoted {
        name = t[1..t.len() - 1].to_string();
    }
    // Drop a typmod: varchar(10), numeric(10,2), timestamp(3) with time zone.
    let mut array = false;
    if let Some(n) = name.strip_suffix("[]") {
        array = true;
        name = n.trim().to_string();
    }
    if let (Some(a), Some(b)) = (name.find('('), name.find(')')) {
        if a < b {
            name = format!("{}{}", name[..a].trim_end(), &name[b + 1..]);
        }
    }
    let name = name.split_whitespace().collect::<Vec<_>>().join(" ");
    let found = Type::from_name(&name).or_else(|| {
        Some(match name.as_str() {
            "double" => return None,
            "char" if !quoted => Type::BPCHAR,
            "character varying" => Type::VARCHAR,
            "int8" => Type::INT8,
            _ => return None,
        })
    });
    let found = found.map(|t| {
        if name == "char" && !quoted {
            Type::BPCHAR
        } else {
            t
        }
    });
    match found.and_then(|t| if array { t.array() } else { Some(t) }) {
        Some(t) => Ok(t),
        None => Err(PgError::new(
            code::UNDEFINED_OBJECT,
            format!("type \"{t}\" does not exist"),
        )),
    }
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

fn malformed_array(s: &str, detail: &str) -> PgError {
    PgError::new(
        code::INVALID_TEXT_REPRESENTATION,
        format!("malformed array literal: \"{s}\""),
    )
    .with_detail(detail.to_string())
}

/// Array input: `{...}` with optional `[lo:hi]...=` dimension decoration.
pub fn parse_array(s: &str, elem: Type, typmod: i32, ctx: &FormatCtx) -> PgResult<Array> {
    let chars: Vec<char> = s.chars().collect();
    let n = chars.len();
    let mut i = 0;
    let skip_ws = |i: &mut usize| {
        while *i < n && chars[*i].is_whitespace() {
            *i += 1;
        }
    };
    skip_ws(&mut i);
    // Dimension decoration.
    let mut given_dims: Vec<(i32, i32)> = Vec::new();
    while i < n && chars[i] == '[' {
        i += 1;
        let start = i;
        while i < n && chars[i] != ']' {
            i += 1;
        }
        if i >= n {
            return Err(malformed_array(s, "Missing \"]\" in array dimensions."));
        }
        let spec: String = chars[start..i].iter().collect();
        i += 1;
        let (lo, hi) = match spec.split_once(':') {
            Some((a, b)) => (a.trim().parse::<i32>(), b.trim().parse::<i32>()),
            None => (Ok(1), spec.trim().parse::<i32>()),
        };
        let (Ok(lo), Ok(hi)) = (lo, hi) else {
            return Err(malformed_array(s, "Missing array dimension value."));
        };
        if hi < lo - 1 {
            return Err(PgError::new(
                code::ARRAY_SUBSCRIPT_ERROR,
                "upper bound cannot be less than lower bound",
            ));
        }
        given_dims.push((hi - lo + 1, lo));
    }
    if !given_dims.is_empty() {
        skip_ws(&mut i);
        if i >= n || chars[i] != '=' {
            return Err(malformed_array(s, "Missing \"=\" after array dimensions."));
        }
        i += 1;
        skip_ws(&mut i);
    }
    if i >= n || chars[i] != '{' {
        return Err(malformed_array(
            s,
            "Array value must start with \"{\" or dimension information.",
        ));
    }
    // Recursive descent collecting element strings and the shape.
    struct P<'a> {
        c: &'a [char],
        i: usize,
        s: &'a str,
        items: Vec<Option<String>>,
        // lengths per depth (None until first seen)
        lens: Vec<Option<i32>>,
        max_depth: Option<usize>,
    }
    impl P<'_> {
        fn ws(&mut self) {
            while self.i < self.c.len() && self.c[self.i].is_whitespace() {
                self.i += 1;
            }
        }
        fn level(&mut self, depth: usize) -> PgResult<()> {
            // at '{'
            if depth >= MAX_DIMS {
                return Err(PgError::new(
                    code::PROGRAM_LIMIT_EXCEEDED,
                    format!(
                        "number of array dimensions ({}) exceeds the maximum allowed ({MAX_DIMS})",
                        depth + 1
                    ),
                ));
            }
            self.i += 1;
            if self.lens.len() <= depth {
                self.lens.push(None);
            }
            let mut count = 0i32;
            self.ws();
            if self.i < self.c.len() && self.c[self.i] == '}' {
                self.i += 1;
                if depth > 0 || self.max_depth.is_some() {
                    return Err(malformed_array(self.s, "Unexpected \"}\" character."));
                }
                self.lens.clear();
                return Ok(());
            }
            loop {
                self.ws();
                if self.i >= self.c.len() {
                    return Err(malformed_array(self.s, "Unexpected end of input."));
                }
                let ch = self.c[self.i];
                if ch == '{' {
                    if self.max_depth.is_some_and(|d| d <= depth) {
                        return Err(malformed_array(self.s, "Unexpected \"{\" character."));
                    }
                    if count > 0 && self.max_depth.is_none() {
                        return Err(malformed_array(self.s, "Unexpected \"{\" character."));
                    }
                    self.level(depth + 1)?;
                } else {
                    if ch == '}' || ch == ',' {
                        return Err(malformed_array(
                            self.s,
                            &format!("Unexpected \"{ch}\" character."),
                        ));
                    }
                    match self.max_depth {
                        None => self.max_depth = Some(depth),
                        Some(d) if d != depth => {
                            return Err(malformed_array(
                                self.s,
                                if d > depth {
                                    "Unexpected array element."
                                } else {
                                    "Unexpected \"{\" character."
                                },
                            ))
                        }
                        _ => {}
                    }
                    self.element()?;
                }
                count += 1;
                self.ws();
                if self.i >= self.c.len() {
                    return Err(malformed_array(self.s, "Unexpected end of input."));
                }
                match self.c[self.i] {
                    ',' => {
                        self.i += 1;
                    }
                    '}' => {
                        self.i += 1;
                        break;
                    }
                    _ => return Err(malformed_array(self.s, "Unexpected array element.")),
                }
            }
            match self.lens[depth] {
                None => self.lens[depth] = Some(count),
                Some(l) if l != count => {
                    return Err(malformed_array(
                        self.s,
                        "Multidimensional arrays must have sub-arrays with matching dimensions.",
                    ))
                }
                _ => {}
            }
            Ok(())
        }
        fn element(&mut self) -> PgResult<()> {
            let mut buf = String::new();
            let mut quoted_any = false;
            let mut last_significant = 0usize; // length of buf up to last non-ws or quoted char
            loop {
                if self.i >= self.c.len() {
                    return Err(malformed_array(self.s, "Unexpected end of input."));
                }
                let ch = self.c[self.i];
                match ch {
                    '"' => {
                        if quoted_any && last_significant == buf.len() && !buf.is_empty() {
                            // "a"b or similar handled below
                        }
                        if !buf.is_empty() && !quoted_any && !buf.trim().is_empty() {
                            return Err(malformed_array(self.s, "Unexpected array element."));
                        }
                        if quoted_any {
                            return Err(malformed_array(self.s, "Unexpected array element."));
                        }
                        quoted_any = true;
                        buf.clear();
                        self.i += 1;
                        loop {
                            if self.i >= self.c.len() {
                                return Err(malformed_array(self.s, "Unexpected end of input."));
                            }
                            let c = self.c[self.i];
                            self.i += 1;
                            match c {
                                '\\' => {
                                    if self.i >= self.c.len() {
                                        return Err(malformed_array(
                                            self.s,
                                            "Unexpected end of input.",
                                        ));
                                    }
                                    buf.push(self.c[self.i]);
                                    self.i += 1;
                                }
                                '"' => break,
                                _ => buf.push(c),
                            }
                        }
                        last_significant = buf.len();
                    }
                    '\\' => {
                        if quoted_any {
                            return Err(malformed_array(self.s, "Unexpected array element."));
                        }
                        self.i += 1;
                        if self.i >= self.c.len() {
                            return Err(malformed_array(self.s, "Unexpected end of input."));
                        }
                        buf.push(self.c[self.i]);
                        self.i += 1;
                        last_significant = buf.len();
                    }
                    ',' | '}' => break,
                    '{' => return Err(malformed_array(self.s, "Unexpected \"{\" character.")),
                    c if c.is_whitespace() => {
                        buf.push(c);
                        self.i += 1;
                    }
                    c => {
                        if quoted_any {
                            return Err(malformed_array(self.s, "Unexpected array element."));
                        }
                        buf.push(c);
                        self.i += 1;
                        last_significant = buf.len();
                    }
                }
            }
            if quoted_any {
                buf.truncate(last_significant);
                self.items.push(Some(buf));
            } else {
                // Unquoted: leading whitespace was skipped by ws(); trim trailing.
                buf.truncate(last_significant);
                if buf.eq_ignore_ascii_case("null") {
                    self.items.push(None);
                } else {
                    self.items.push(Some(buf));
                }
            }
            Ok(())
        }
    }
    let mut p = P {
        c: &chars,
        i,
        s,
        items: Vec::new(),
        lens: Vec::new(),
        max_depth: None,
    };
    p.level(0)?;
    p.ws();
    if p.i < n {
        return Err(malformed_array(s, "Junk after closing right brace."));
    }
    let shape: Vec<i32> = match p.max_depth {
        None => Vec::new(),
        Some(d) => p.lens[..=d].iter().map(|l| l.unwrap_or(0)).collect(),
    };
    let dims: Vec<(i32, i32)> = if given_dims.is_empty() {
        shape.iter().map(|&l| (l, 1)).collect()
    } else {
        let lens: Vec<i32> = given_dims.iter().map(|d| d.0).collect();
        if lens != shape {
            return Err(malformed_array(
                s,
                "Specified array dimensions do not match array contents.",
            ));
        }
        given_dims
    };
    let mut items = Vec::with_capacity(p.items.len());
    for it in p.items {
        items.push(match it {
            None => Value::Null,
            Some(t) => from_text(&t, elem, typmod, ctx)?,
        });
    }
    Ok(Array { elem, dims, items })
}

/// regprocedure input: `name(type, ...)` names one pg_proc row.
fn parse_regprocedure(s: &str) -> PgResult<u32> {
    let t = s.trim();
    let missing = || PgError::new("42883", format!("function \"{t}\" does not exist"));
    let (name, args) = t
        .strip_suffix(')')
        .and_then(|x| x.split_once('('))
        .ok_or_else(|| PgError::invalid_text("regprocedure", t))?;
    let name = name.trim().trim_matches('"');
    let name = name.strip_prefix("pg_catalog.").unwrap_or(name);
    let mut types = Vec::new();
    for a in args.split(',').map(str::trim).filter(|a| !a.is_empty()) {
        types.push(parse_regtype(a)?.0);
    }
    crate::sql::catalog::procs::named(name)
        .find(|p| p.argtypes == types)
        .map(|p| p.oid)
        .ok_or_else(missing)
}

/// regrole input where no catalog is at hand (the planner reads literals with one,
/// `plan/regrole.rs`): `-` is no role, a predefined role is its OID, any other name is held
/// by name, unchecked.
fn regrole_in(s: &str) -> PgResult<Value> {
    if s == "-" {
        return Ok(Value::Oid(0));
    }
    let bad = || PgError::new(code::INVALID_NAME, "invalid name syntax");
    let parts = crate::sql::quote::parse_qualified(s).map_err(|_| bad())?;
    let [name] = parts.as_slice() else {
        return Err(bad());
    };
    Ok(match crate::sql::catalog::fixed::role_oid(name) {
        Some(oid) => Value::Oid(oid),
        None => Value::Text(crate::sql::quote::quote_ident(name)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sql::types::{DateOrder, DateOutput, DateStyle};

    fn ctx() -> FormatCtx {
        FormatCtx::default()
    }

    fn f8(f: f64) -> String {
        let mut s = String::new();
        write_float8(f, 1, &mut s);
        s
    }

    #[test]
    fn float_output() {
        assert_eq!(f8(1e15), "1e+15");
        assert_eq!(f8(1e14), "100000000000000");
        assert_eq!(f8(123456789012345678.0), "1.2345678901234568e+17");
        assert_eq!(f8(0.0001), "0.0001");
        assert_eq!(f8(0.00001), "1e-05");
        assert_eq!(f8(1.5e-300), "1.5e-300");
        assert_eq!(f8(-0.0), "-0");
        assert_eq!(f8(0.1 + 0.2), "0.30000000000000004");
        assert_eq!(f8(1e15 + 0.3), "1.0000000000000002e+15");
        assert_eq!(f8(1.23e22), "1.2300000000000001e+22");
        assert_eq!(f8(5e-324), "5e-324");
        assert_eq!(f8(f64::MAX), "1.7976931348623157e+308");
        assert_eq!(f8(4.35 * 100.0), "434.99999999999994");
        assert_eq!(f8(f64::INFINITY), "Infinity");
        assert_eq!(f8(f64::NAN), "NaN");
        assert_eq!(f8(1500.0), "1500");
        assert_eq!(f8(-2.5), "-2.5");
        let mut s = String::new();
        write_float8(0.1 + 0.2, 0, &mut s);
        assert_eq!(s, "0.3");
        s.clear();
        write_float8(1e16, 0, &mut s);
        assert_eq!(s, "1e+16");
        let f4 = |f: f32| {
            let mut s = String::new();
            write_float4(f, 1, &mut s);
            s
        };
        assert_eq!(f4(0.1), "0.1");
        assert_eq!(f4(1e6), "1e+06");
        assert_eq!(f4(2.7182817), "2.7182817");
        assert_eq!(f4(100000.0), "100000");
        assert_eq!(f4(16777217.0), "1.6777216e+07");
        assert_eq!(f4(1e30), "1e+30");
        assert_eq!(f4(f32::MAX), "3.4028235e+38");
        assert_eq!(f4(1e-45), "1e-45");
    }

    #[test]
    fn scalar_input() {
        let c = ctx();
        assert_eq!(
            from_text(" 42 ", Type::INT4, -1, &c).unwrap(),
            Value::Int4(42)
        );
        let e = from_text("99999999999", Type::INT4, -1, &c).unwrap_err();
        assert_eq!(e.code, "22003");
        assert_eq!(
            e.message,
            "value \"99999999999\" is out of range for type integer"
        );
        let e = from_text("x", Type::INT4, -1, &c).unwrap_err();
        assert_eq!(e.message, "invalid input syntax for type integer: \"x\"");
        for t in ["t", "TRUE", " yes ", "on", "1", "y"] {
            assert_eq!(
                from_text(t, Type::BOOL, -1, &c).unwrap(),
                Value::Bool(true),
                "{t}"
            );
        }
        for t in ["f", "False", "no", "off", "0", "of"] {
            assert_eq!(
                from_text(t, Type::BOOL, -1, &c).unwrap(),
                Value::Bool(false),
                "{t}"
            );
        }
        assert!(from_text("o", Type::BOOL, -1, &c).is_err());
        let e = from_text("1e400", Type::FLOAT8, -1, &c).unwrap_err();
        assert_eq!(
            e.message,
            "\"1e400\" is out of range for type double precision"
        );
        assert!(from_text("abc", Type::FLOAT8, -1, &c).is_err());
        assert_eq!(
            from_text("\\x0aFF", Type::BYTEA, -1, &c).unwrap(),
            Value::Bytea(vec![10, 255])
        );
        assert_eq!(
            from_text("a\\\\b\\001", Type::BYTEA, -1, &c).unwrap(),
            Value::Bytea(b"a\\b\x01".to_vec())
        );
        let u = from_text("{A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11}", Type::UUID, -1, &c).unwrap();
        assert_eq!(
            to_text(&u, Type::UUID, &c),
            "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"
        );
        assert_eq!(
            from_text("integer", Type::REGTYPE, -1, &c).unwrap(),
            Value::Oid(Type::INT4.0)
        );
        assert_eq!(
            from_text("nope", Type::REGTYPE, -1, &c)
                .unwrap_err()
                .message,
            "type \"nope\" does not exist"
        );
    }

    #[test]
    fn arrays() {
        let c = ctx();
        let rt = |s: &str, t: Type| {
            let v = from_text(s, t, -1, &c).unwrap();
            to_text(&v, t, &c)
        };
        assert_eq!(
            rt(
                "{\"a b\",NULL,\"\",\"null\",\"x\\\\y\",\"q\\\"\"}",
                Type::TEXT_ARRAY
            ),
            "{\"a b\",NULL,\"\",\"null\",\"x\\\\y\",\"q\\\"\"}"
        );
        assert_eq!(rt("{{1,2},{3,4}}", Type::INT4_ARRAY), "{{1,2},{3,4}}");
        assert_eq!(rt("[0:1]={5,6}", Type::INT4_ARRAY), "[0:1]={5,6}");
        assert_eq!(rt("{}", Type::INT4_ARRAY), "{}");
        assert_eq!(rt(" { 1 , 2 } ", Type::INT4_ARRAY), "{1,2}");
        assert_eq!(rt("{a b  c}", Type::TEXT_ARRAY), "{\"a b  c\"}");
        assert_eq!(rt("{\" a \"}", Type::TEXT_ARRAY), "{\" a \"}");
        let err = |s: &str| {
            from_text(s, Type::INT4_ARRAY, -1, &c)
                .unwrap_err()
                .detail
                .clone()
                .unwrap_or_default()
        };
        assert_eq!(err("{1,2"), "Unexpected end of input.");
        assert_eq!(err("{1,{2}}"), "Unexpected \"{\" character.");
        assert_eq!(
            err("1,2"),
            "Array value must start with \"{\" or dimension information."
        );
        assert_eq!(err("{1,2}x"), "Junk after closing right brace.");
        assert_eq!(
            err("{{1,2},{3}}"),
            "Multidimensional arrays must have sub-arrays with matching dimensions."
        );
        assert_eq!(err("{1,,2}"), "Unexpected \",\" character.");
        assert_eq!(err("{{}}"), "Unexpected \"}\" character.");
        assert_eq!(
            err("[1:2]={1}"),
            "Specified array dimensions do not match array contents."
        );
        let rec = Value::Record(vec![
            Value::Int4(1),
            Value::Text("a b".into()),
            Value::Null,
            Value::Text("".into()),
        ]);
        assert_eq!(to_text(&rec, Type::RECORD, &c), "(1,\"a b\",,\"\")");
    }

    #[test]
    fn date_styles() {
        let mut c = ctx();
        let ts = from_text("2020-01-02 03:04:05.5", Type::TIMESTAMPTZ, -1, &c).unwrap();
        assert_eq!(
            to_text(&ts, Type::TIMESTAMPTZ, &c),
            "2020-01-02 03:04:05.5+00"
        );
        c.date_style = DateStyle {
            output: DateOutput::Postgres,
            order: DateOrder::Mdy,
        };
        assert_eq!(
            to_text(&ts, Type::TIMESTAMPTZ, &c),
            "Thu Jan 02 03:04:05.5 2020 UTC"
        );
        c.date_style.output = DateOutput::Sql;
        assert_eq!(
            to_text(&ts, Type::TIMESTAMPTZ, &c),
            "01/02/2020 03:04:05.5 UTC"
        );
        c.date_style.output = DateOutput::German;
        assert_eq!(
            to_text(&ts, Type::TIMESTAMPTZ, &c),
            "02.01.2020 03:04:05.5 UTC"
        );
    }

    #[test]
    fn binary_round_trips() {
        let c = ctx();
        let cases: Vec<(&str, Type)> = vec![
            ("t", Type::BOOL),
            ("-12", Type::INT2),
            ("123456", Type::INT4),
            ("-9223372036854775808", Type::INT8),
            ("1.5", Type::FLOAT4),
            ("-2.25e100", Type::FLOAT8),
            ("0", Type::NUMERIC),
            ("1.50", Type::NUMERIC),
            ("-12345678.000123", Type::NUMERIC),
            ("0.0001", Type::NUMERIC),
            ("100000000", Type::NUMERIC),
            ("NaN", Type::NUMERIC),
            ("-Infinity", Type::NUMERIC),
            ("héllo", Type::TEXT),
            ("\\x00ff", Type::BYTEA),
            ("2020-01-02", Type::DATE),
            ("2020-01-02 03:04:05.123456", Type::TIMESTAMP),
            ("2020-01-02 03:04:05+02", Type::TIMESTAMPTZ),
            ("1 year 2 mons 3 days 04:05:06.7", Type::INTERVAL),
            ("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", Type::UUID),
            ("{1,NULL,3}", Type::INT4_ARRAY),
            ("{{a,b},{c,d}}", Type::TEXT_ARRAY),
            ("{}", Type::INT8_ARRAY),
            ("[0:1]={1.5,2}", Type::NUMERIC_ARRAY),
        ];
        for (s, t) in cases {
            let v = from_text(s, t, -1, &c).unwrap();
            let mut b = BytesMut::new();
            write_binary(&v, t, &mut b).unwrap();
            let back = from_binary(&b, t).unwrap();
            assert_eq!(to_text(&back, t, &c), to_text(&v, t, &c), "{s}");
        }
        // numeric wire format of 1.50: 1 digit group [1], then 5000 for .50
        let mut b = BytesMut::new();
        write_binary(
            &from_text("1.50", Type::NUMERIC, -1, &c).unwrap(),
            Type::NUMERIC,
            &mut b,
        )
        .unwrap();
        assert_eq!(&b[..], &[0, 2, 0, 0, 0, 0, 0, 2, 0, 1, 0x13, 0x88]);
        assert!(from_binary(&[0, 0, 1], Type::INT4).is_err());
        assert_eq!(
            from_binary(&[0, 0, 0, 1, 0], Type::INT4).unwrap_err().code,
            "22P03"
        );
    }
}
