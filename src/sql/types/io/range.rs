//! Range input and output, text and binary (PostgreSQL's range_in / range_out / range_recv /
//! range_send).
//!
//! The text form is `empty` (any case, whitespace around) or a bracket or parenthesis, the
//! lower bound, a comma, the upper bound and a closing bracket or parenthesis. A bound is
//! taken verbatim up to the next unquoted `,` `)` or `]`; double quotes protect special
//! characters (a doubled quote or a backslash-escaped one inside quotes is a quote), a
//! backslash escapes any one character, and an empty bound (not `""`) is infinite. Each bound
//! is then read by the subtype's own input function. Output quotes a bound that is empty or
//! holds a quote, backslash, parenthesis, bracket, comma or whitespace, doubling quotes and
//! backslashes, as range_bound_escape does. Errors are PostgreSQL's: 22P02 "malformed range
//! literal" with the DETAIL naming what is wrong.
//!
//! The binary form is the flags byte (`range.rs` keeps PostgreSQL's bits) followed by each
//! bound that has a value as a 4-byte length and the subtype's binary form.
//!
//! Bounds: the input is read once, left to right, into two strings no longer than it; a bound
//! is one value of the subtype, so nesting is bounded by the subtype's own input.

use bytes::{BufMut, BytesMut};

use super::{from_binary, from_text, write_text};
use crate::error::{code, PgError, PgResult};
use crate::sql::types::range::{self, Bound, Range, EMPTY, LB_INC, LB_INF, UB_INC, UB_INF};
use crate::sql::types::{FormatCtx, Type, Value};

/// The type a range type's bounds are read and written as: its subtype, a domain's base type
/// for a range over a domain (its constraints are not checked on input here).
fn subtype(ty: Type) -> PgResult<Type> {
    ty.range_subtype()
        .map(Type::base_type)
        .ok_or_else(|| PgError::internal(format!("type {} is not a range type", ty.0)))
}

fn malformed(s: &str, detail: &str) -> PgError {
    PgError::new(
        code::INVALID_TEXT_REPRESENTATION,
        format!("malformed range literal: \"{s}\""),
    )
    .with_detail(detail)
}

/// Reads one bound starting at byte `i` of `s`: its text (None when infinite) and where the
/// scan stopped (at the `,` `)` or `]` after it).
fn parse_bound(s: &str, mut i: usize) -> PgResult<(Option<String>, usize)> {
    let b = s.as_bytes();
    let stop = |c: Option<&u8>| matches!(c, Some(b',' | b')' | b']'));
    if stop(b.get(i)) {
        return Ok((None, i));
    }
    let mut out: Vec<u8> = Vec::new();
    let mut quoted = false;
    while quoted || !stop(b.get(i)) {
        let Some(&c) = b.get(i) else {
            return Err(malformed(s, "Unexpected end of input."));
        };
        i += 1;
        match c {
            b'\\' => {
                let Some(&n) = b.get(i) else {
                    return Err(malformed(s, "Unexpected end of input."));
                };
                out.push(n);
                i += 1;
            }
            b'"' if !quoted => quoted = true,
            b'"' if b.get(i) == Some(&b'"') => {
                out.push(b'"');
                i += 1;
            }
            b'"' => quoted = false,
            c => out.push(c),
        }
    }
    // Only ASCII bytes were dropped or split at, so the rest is still UTF-8.
    let text = String::from_utf8(out).map_err(|_| malformed(s, "Unexpected end of input."))?;
    Ok((Some(text), i))
}

/// Splits range text into its flags and bound strings (PostgreSQL's range_parse).
fn parse_parts(s: &str) -> PgResult<(u8, Option<String>, Option<String>)> {
    let b = s.as_bytes();
    let mut i = 0;
    let skip_space = |mut i: usize| {
        while b.get(i).is_some_and(u8::is_ascii_whitespace) {
            i += 1;
        }
        i
    };
    i = skip_space(i);
    if b.len() >= i + 5 && b[i..i + 5].eq_ignore_ascii_case(b"empty") {
        if skip_space(i + 5) != b.len() {
            return Err(malformed(s, "Junk after \"empty\" key word."));
        }
        return Ok((EMPTY, None, None));
    }
    let mut flags = 0;
    match b.get(i) {
        Some(b'[') => flags |= LB_INC,
        Some(b'(') => {}
        _ => return Err(malformed(s, "Missing left parenthesis or bracket.")),
    }
    let (lower, next) = parse_bound(s, i + 1)?;
    i = next;
    if lower.is_none() {
        flags |= LB_INF;
    }
    if b.get(i) != Some(&b',') {
        return Err(malformed(s, "Missing comma after lower bound."));
    }
    let (upper, next) = parse_bound(s, i + 1)?;
    i = next;
    if upper.is_none() {
        flags |= UB_INF;
    }
    match b.get(i) {
        Some(b']') => flags |= UB_INC,
        Some(b')') => {}
        _ => return Err(malformed(s, "Too many commas.")),
    }
    if skip_space(i + 1) != b.len() {
        return Err(malformed(s, "Junk after right parenthesis or bracket."));
    }
    Ok((flags, lower, upper))
}

/// Text input of range type `ty`.
pub fn parse_range(s: &str, ty: Type, ctx: &FormatCtx) -> PgResult<Value> {
    let sub = subtype(ty)?;
    let (flags, lower, upper) = parse_parts(s)?;
    let read = |t: Option<String>| -> PgResult<Value> {
        match t {
            Some(t) => from_text(&t, sub, -1, ctx),
            None => Ok(Value::Null),
        }
    };
    let lower = Bound::lower(read(lower)?, flags & LB_INC != 0);
    let upper = Bound::upper(read(upper)?, flags & UB_INC != 0);
    let r = range::make(lower, upper, flags & EMPTY != 0, Some(ty))?;
    Ok(Value::Range(Box::new(r)))
}

/// Appends a bound's text, quoted as range_bound_escape quotes it.
fn write_bound(text: &str, out: &mut String) {
    let quote = text.is_empty()
        || text.bytes().any(|c| {
            matches!(c, b'"' | b'\\' | b'(' | b')' | b'[' | b']' | b',') || c.is_ascii_whitespace()
        });
    if quote {
        out.push('"');
    }
    for c in text.chars() {
        if c == '"' || c == '\\' {
            out.push(c);
        }
        out.push(c);
    }
    if quote {
        out.push('"');
    }
}

/// Text output of a value of range type `ty`.
pub fn write_range(r: &Range, ty: Type, ctx: &FormatCtx, out: &mut String) {
    if r.is_empty() {
        out.push_str("empty");
        return;
    }
    let sub = subtype(ty).unwrap_or(Type::UNKNOWN);
    let bound = |v: &Value, out: &mut String| {
        let mut t = String::new();
        write_text(v, sub, ctx, &mut t);
        write_bound(&t, out);
    };
    out.push(if r.flags & LB_INC != 0 { '[' } else { '(' });
    if r.has_lower() {
        bound(&r.lower, out);
    }
    out.push(',');
    if r.has_upper() {
        bound(&r.upper, out);
    }
    out.push(if r.flags & UB_INC != 0 { ']' } else { ')' });
}

/// range_send: the flags byte, then each bound with a value, length-prefixed.
pub fn write_range_binary(r: &Range, ty: Type, out: &mut BytesMut) -> PgResult<()> {
    let sub = subtype(ty).unwrap_or(Type::UNKNOWN);
    out.put_u8(r.flags);
    for (has, v) in [(r.has_lower(), &r.lower), (r.has_upper(), &r.upper)] {
        if has {
            let at = out.len();
            out.put_i32(0);
            super::write_binary(v, sub, out)?;
            let len = (out.len() - at - 4) as i32;
            out[at..at + 4].copy_from_slice(&len.to_be_bytes());
        }
    }
    Ok(())
}

/// range_recv: the flags byte (bits PostgreSQL does not accept are ignored, as it ignores
/// them), then the bounds the flags say are present.
pub fn read_range_binary(b: &[u8], ty: Type) -> PgResult<Value> {
    let sub = subtype(ty)?;
    let insufficient = || {
        PgError::new(
            code::PROTOCOL_VIOLATION,
            "insufficient data left in message",
        )
    };
    let (&flags, mut rest) = b.split_first().ok_or_else(insufficient)?;
    let flags = flags & (EMPTY | LB_INC | LB_INF | UB_INC | UB_INF);
    let mut read = |present: bool| -> PgResult<Value> {
        if !present {
            return Ok(Value::Null);
        }
        if rest.len() < 4 {
            return Err(insufficient());
        }
        let len = i32::from_be_bytes([rest[0], rest[1], rest[2], rest[3]]);
        rest = &rest[4..];
        let len = usize::try_from(len).map_err(|_| insufficient())?;
        if rest.len() < len {
            return Err(insufficient());
        }
        let (data, tail) = rest.split_at(len);
        rest = tail;
        from_binary(data, sub)
    };
    let lower = read(flags & (EMPTY | LB_INF) == 0)?;
    let upper = read(flags & (EMPTY | UB_INF) == 0)?;
    if !rest.is_empty() {
        return Err(PgError::new(
            code::INVALID_BINARY_REPRESENTATION,
            "incorrect binary data format",
        ));
    }
    let lower = Bound {
        inf: flags & LB_INF != 0,
        inc: flags & LB_INC != 0,
        ..Bound::lower(lower, true)
    };
    let upper = Bound {
        inf: flags & UB_INF != 0,
        inc: flags & UB_INC != 0,
        ..Bound::upper(upper, true)
    };
    let r = range::make(lower, upper, flags & EMPTY != 0, Some(ty))?;
    Ok(Value::Range(Box::new(r)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round(s: &str, ty: Type) -> PgResult<String> {
        let ctx = FormatCtx::default();
        let v = parse_range(s, ty, &ctx)?;
        let Value::Range(r) = v else { unreachable!() };
        let mut out = String::new();
        write_range(&r, ty, &ctx, &mut out);
        Ok(out)
    }

    #[test]
    fn text_forms() {
        assert_eq!(round(" EMPTY ", Type::INT4RANGE).unwrap(), "empty");
        assert_eq!(round("(1,5]", Type::INT4RANGE).unwrap(), "[2,6)");
        assert_eq!(round("[,5)", Type::INT4RANGE).unwrap(), "(,5)");
        assert_eq!(round("(1.5, 2]", Type::NUMRANGE).unwrap(), "(1.5,2]");
        assert_eq!(round("[\" 3\",\"4\")", Type::INT4RANGE).unwrap(), "[3,4)");
        assert_eq!(round("(3,3)", Type::INT4RANGE).unwrap(), "empty");
        for (bad, detail) in [
            ("x", "Missing left parenthesis or bracket."),
            ("[1,2", "Unexpected end of input."),
            ("[1 2)", "Missing comma after lower bound."),
            ("[1,2,3)", "Too many commas."),
            ("[1,2) x", "Junk after right parenthesis or bracket."),
            ("empty x", "Junk after \"empty\" key word."),
        ] {
            let e = round(bad, Type::INT4RANGE).unwrap_err();
            assert_eq!(e.detail.as_deref(), Some(detail), "{bad}");
        }
        assert!(round("[5,1)", Type::INT4RANGE).is_err());
    }

    #[test]
    fn binary_round_trip() {
        let ctx = FormatCtx::default();
        for s in ["empty", "[1,5)", "(,5)", "[3,)", "(,)"] {
            let Value::Range(r) = parse_range(s, Type::INT8RANGE, &ctx).unwrap() else {
                unreachable!()
            };
            let mut b = BytesMut::new();
            write_range_binary(&r, Type::INT8RANGE, &mut b).unwrap();
            let back = read_range_binary(&b, Type::INT8RANGE).unwrap();
            assert_eq!(back, Value::Range(r));
        }
    }

    #[test]
    fn quoting() {
        let mut out = String::new();
        write_bound("a b", &mut out);
        write_bound("", &mut out);
        write_bound("q\"", &mut out);
        assert_eq!(out, "\"a b\"\"\"\"q\"\"\"");
    }
}
