//! Multirange input and output, text and binary (PostgreSQL's multirange_in / multirange_out /
//! multirange_recv / multirange_send).
//!
//! The text form is `{` zero or more ranges separated by commas `}`, whitespace allowed around
//! the braces and the commas. A range is the `empty` key word (any case) or range text from
//! its opening `[` or `(` to the closing `]` or `)` outside quotes; quotes and backslashes are
//! only followed here to find that end, and the range text is read by the range type's own
//! input (`io/range.rs`). The result is canonical (`multirange::make`): empty ranges dropped,
//! the rest sorted and merged. Output is each range's own text between braces, separated by
//! commas without spaces. Errors are PostgreSQL's: 22P02 "malformed multirange literal" with
//! a DETAIL.
//!
//! The binary form is a 4-byte count, then each range as a 4-byte length and range_send's
//! bytes. A count is only trusted as far as the bytes that follow can hold ranges, so a bad
//! count cannot make a large allocation.

use bytes::{BufMut, BytesMut};

use super::{parse_range, read_range_binary, write_range, write_range_binary};
use crate::error::{code, PgError, PgResult};
use crate::sql::types::multirange::{self, Multirange};
use crate::sql::types::{FormatCtx, Type, Value};

fn range_type(ty: Type) -> PgResult<Type> {
    ty.multirange_range()
        .ok_or_else(|| PgError::internal(format!("type {} is not a multirange type", ty.0)))
}

fn malformed(s: &str, detail: &str) -> PgError {
    PgError::new(
        code::INVALID_TEXT_REPRESENTATION,
        format!("malformed multirange literal: \"{s}\""),
    )
    .with_detail(detail)
}

/// Where we are in the text (PostgreSQL's MultirangeParseState).
#[derive(Clone, Copy, PartialEq)]
enum State {
    BeforeRange,
    InRange,
    Escaped,
    Quoted,
    QuotedEscaped,
    AfterRange,
}

/// Text input of multirange type `ty`.
pub fn parse_multirange(s: &str, ty: Type, ctx: &FormatCtx) -> PgResult<Value> {
    let rty = range_type(ty)?;
    let b = s.as_bytes();
    let mut i = 0;
    while b.get(i).is_some_and(u8::is_ascii_whitespace) {
        i += 1;
    }
    if b.get(i) != Some(&b'{') {
        return Err(malformed(s, "Missing left brace."));
    }
    i += 1;
    let mut ranges = Vec::new();
    let mut seen = 0usize;
    let mut start = 0;
    let mut state = State::BeforeRange;
    loop {
        let Some(&c) = b.get(i) else {
            return Err(malformed(s, "Unexpected end of input."));
        };
        i += 1;
        if c.is_ascii_whitespace() {
            continue;
        }
        match state {
            State::BeforeRange => {
                if c == b'[' || c == b'(' {
                    start = i - 1;
                    state = State::InRange;
                } else if c == b'}' && seen == 0 {
                    break;
                } else if b.len() >= i + 4 && b[i - 1..i + 4].eq_ignore_ascii_case(b"empty") {
                    seen += 1;
                    i += 4;
                    state = State::AfterRange;
                } else {
                    return Err(malformed(s, "Expected range start."));
                }
            }
            State::InRange => match c {
                b']' | b')' => {
                    seen += 1;
                    // The brackets and quotes that end a range are ASCII: a char boundary.
                    let Value::Range(r) = parse_range(&s[start..i], rty, ctx)? else {
                        return Err(PgError::internal("range input gave no range"));
                    };
                    if !r.is_empty() {
                        ranges.push(*r);
                    }
                    state = State::AfterRange;
                }
                b'"' => state = State::Quoted,
                b'\\' => state = State::Escaped,
                _ => {}
            },
            State::Escaped => state = State::InRange,
            State::Quoted => match c {
                b'"' if b.get(i) == Some(&b'"') => i += 1,
                b'"' => state = State::InRange,
                b'\\' => state = State::QuotedEscaped,
                _ => {}
            },
            State::QuotedEscaped => state = State::Quoted,
            State::AfterRange => match c {
                b',' => state = State::BeforeRange,
                b'}' => break,
                _ => return Err(malformed(s, "Expected comma or end of multirange.")),
            },
        }
    }
    while b.get(i).is_some_and(u8::is_ascii_whitespace) {
        i += 1;
    }
    if i != b.len() {
        return Err(malformed(s, "Junk after closing right brace."));
    }
    Ok(Value::Multirange(Box::new(multirange::make(ranges)?)))
}

/// Text output of a value of multirange type `ty`.
pub fn write_multirange(m: &Multirange, ty: Type, ctx: &FormatCtx, out: &mut String) {
    let rty = range_type(ty).unwrap_or(Type::UNKNOWN);
    out.push('{');
    for (i, r) in m.ranges.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        write_range(r, rty, ctx, out);
    }
    out.push('}');
}

/// multirange_send: the count, then each range length-prefixed.
pub fn write_multirange_binary(m: &Multirange, ty: Type, out: &mut BytesMut) -> PgResult<()> {
    let rty = range_type(ty)?;
    out.put_i32(m.ranges.len() as i32);
    for r in &m.ranges {
        let at = out.len();
        out.put_i32(0);
        write_range_binary(r, rty, out)?;
        let len = (out.len() - at - 4) as i32;
        out[at..at + 4].copy_from_slice(&len.to_be_bytes());
    }
    Ok(())
}

/// multirange_recv.
pub fn read_multirange_binary(b: &[u8], ty: Type) -> PgResult<Value> {
    let rty = range_type(ty)?;
    let insufficient = || {
        PgError::new(
            code::PROTOCOL_VIOLATION,
            "insufficient data left in message",
        )
    };
    let take4 = |rest: &mut &[u8]| -> PgResult<i32> {
        if rest.len() < 4 {
            return Err(insufficient());
        }
        let v = i32::from_be_bytes([rest[0], rest[1], rest[2], rest[3]]);
        *rest = &rest[4..];
        Ok(v)
    };
    let mut rest = b;
    let count = usize::try_from(take4(&mut rest)?).map_err(|_| insufficient())?;
    // Each range takes at least its 4-byte length and a flags byte.
    let mut ranges = Vec::with_capacity(count.min(rest.len() / 5));
    for _ in 0..count {
        let len = usize::try_from(take4(&mut rest)?).map_err(|_| insufficient())?;
        if rest.len() < len {
            return Err(insufficient());
        }
        let (data, tail) = rest.split_at(len);
        rest = tail;
        let Value::Range(r) = read_range_binary(data, rty)? else {
            return Err(PgError::internal("range input gave no range"));
        };
        ranges.push(*r);
    }
    if !rest.is_empty() {
        return Err(PgError::new(
            code::INVALID_BINARY_REPRESENTATION,
            "incorrect binary data format",
        ));
    }
    Ok(Value::Multirange(Box::new(multirange::make(ranges)?)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round(s: &str) -> PgResult<String> {
        let ctx = FormatCtx::default();
        let ty = Type::INT4MULTIRANGE;
        let Value::Multirange(m) = parse_multirange(s, ty, &ctx)? else {
            unreachable!()
        };
        let mut out = String::new();
        write_multirange(&m, ty, &ctx, &mut out);
        let mut bin = BytesMut::new();
        write_multirange_binary(&m, ty, &mut bin)?;
        assert_eq!(read_multirange_binary(&bin, ty)?, Value::Multirange(m));
        Ok(out)
    }

    #[test]
    fn text_forms() {
        assert_eq!(round(" { } ").unwrap(), "{}");
        assert_eq!(round("{[5,7), empty, (0,3]}").unwrap(), "{[1,4),[5,7)}");
        assert_eq!(round("{[1,3),[3,5)}").unwrap(), "{[1,5)}");
        assert_eq!(round("{EMPTY}").unwrap(), "{}");
        assert_eq!(round("{[\"1\",\"2\")}").unwrap(), "{[1,2)}");
        for (bad, detail) in [
            ("[1,2)", "Missing left brace."),
            ("{[1,2)", "Unexpected end of input."),
            ("{,}", "Expected range start."),
            ("{[1,2) [3,4)}", "Expected comma or end of multirange."),
            ("{[1,2)} x", "Junk after closing right brace."),
            ("{[1,2),}", "Expected range start."),
        ] {
            let e = round(bad).unwrap_err();
            assert_eq!(e.detail.as_deref(), Some(detail), "{bad}");
        }
    }
}
