//! hstore values (the hstore extension's key/value type): reading PostgreSQL's text form,
//! normalizing, and writing it back.
//!
//! # Representation
//!
//! A value is held as `Value::Text` of its normal text form (`"a"=>"1", "b"=>NULL`), as jsonb
//! is held as its normal text: pairs sorted by key length then key bytes, one pair per key
//! (the first given wins), every key and value quoted with `"` and `\` escaped. Two equal
//! hstores therefore have equal text, so equality, hashing, GROUP BY, DISTINCT and the stored
//! rows need nothing of their own; the operators and functions parse the text back into
//! [`Pairs`] (`func::extension::hstore`). Ordering (ORDER BY, `#<#`) is PostgreSQL's
//! hstore_cmp on the parsed pairs where an operator asks for it ([`cmp`]); the plain sort of
//! values compares the text.
//!
//! # Input
//!
//! PostgreSQL 15's parser, state for state: keys and values are double-quoted or bare words
//! (ended by white space, `=` after a key, `,` after a value), a backslash takes the next
//! character literally, a bare `NULL` (any case) value is SQL NULL. Its errors are its
//! internal ones (XX000): `Syntax error near "c" at position n` (a byte offset) and
//! `Unexpected end of string`.
//!
//! # Bounds
//!
//! A key or value is at most 2^31 - 1 bytes here (PostgreSQL's HSTORE_MAX_KEY_LEN and
//! HSTORE_MAX_VALUE_LEN, 22001 beyond them); the number of pairs is bounded by the input's
//! length. Parsing is linear and never recursive.

use std::cmp::Ordering;

use crate::error::{code, PgError, PgResult};

/// The pairs of one hstore, in its normal order: (key, value or NULL).
pub type Pairs = Vec<(String, Option<String>)>;

/// PostgreSQL's HSTORE_MAX_KEY_LEN and HSTORE_MAX_VALUE_LEN.
const MAX_LEN: usize = 0x3FFF_FFFF;

fn syntax(c: u8, pos: usize) -> PgError {
    PgError::internal(format!(
        "Syntax error near \"{}\" at position {pos}",
        c as char
    ))
}

fn end_of_string() -> PgError {
    PgError::internal("Unexpected end of string")
}

/// Checks the length of a key or value.
pub fn check_len(s: &str, key: bool) -> PgResult<()> {
    if s.len() > MAX_LEN {
        return Err(PgError::new(
            code::STRING_DATA_RIGHT_TRUNCATION,
            if key {
                "string too long for hstore key"
            } else {
                "string too long for hstore value"
            },
        ));
    }
    Ok(())
}

/// The bytes of the input with a NUL after the end, as PostgreSQL's parser reads a C string.
struct Input<'a> {
    b: &'a [u8],
    pos: usize,
}

impl Input<'_> {
    fn at(&self) -> u8 {
        self.b.get(self.pos).copied().unwrap_or(0)
    }
}

/// One key or value (get_val): Ok(None) at the end of the input before any word; the bool
/// says whether it was quoted.
fn word(inp: &mut Input, ignore_eq: bool) -> PgResult<Option<(Vec<u8>, bool)>> {
    #[derive(PartialEq)]
    enum St {
        Wait,
        In,
        InQuoted,
        Escape,
        EscapeQuoted,
    }
    let mut st = St::Wait;
    let mut out = Vec::new();
    let mut quoted = false;
    loop {
        let c = inp.at();
        match st {
            St::Wait => {
                if c == b'"' {
                    quoted = true;
                    st = St::InQuoted;
                } else if c == 0 {
                    return Ok(None);
                } else if c == b'=' && !ignore_eq {
                    return Err(syntax(c, inp.pos));
                } else if c == b'\\' {
                    st = St::Escape;
                } else if !c.is_ascii_whitespace() && c != 0x0b {
                    out.push(c);
                    st = St::In;
                }
            }
            St::In => {
                if c == b'\\' {
                    st = St::Escape;
                } else if (c == b'=' && !ignore_eq) || (c == b',' && ignore_eq) || c == 0 {
                    // The caller reads this character next.
                    return Ok(Some((out, quoted)));
                } else if c.is_ascii_whitespace() || c == 0x0b {
                    inp.pos += 1;
                    return Ok(Some((out, quoted)));
                } else {
                    out.push(c);
                }
            }
            St::InQuoted => {
                if c == b'\\' {
                    st = St::EscapeQuoted;
                } else if c == b'"' {
                    inp.pos += 1;
                    return Ok(Some((out, quoted)));
                } else if c == 0 {
                    return Err(end_of_string());
                } else {
                    out.push(c);
                }
            }
            St::Escape | St::EscapeQuoted => {
                if c == 0 {
                    return Err(end_of_string());
                }
                out.push(c);
                st = if st == St::Escape {
                    St::In
                } else {
                    St::InQuoted
                };
            }
        }
        inp.pos += 1;
    }
}

fn utf8(b: Vec<u8>) -> String {
    // The input was UTF-8 and only ASCII bytes were taken out of it.
    String::from_utf8(b).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// Parses hstore input text into its pairs as given (not yet normalized).
pub fn parse(s: &str) -> PgResult<Pairs> {
    let mut inp = Input {
        b: s.as_bytes(),
        pos: 0,
    };
    let mut pairs = Vec::new();
    loop {
        // A key, or the end.
        let Some((key, _)) = word(&mut inp, false)? else {
            return Ok(pairs);
        };
        let key = utf8(key);
        check_len(&key, true)?;
        // `=`, after white space.
        loop {
            match inp.at() {
                b'=' => break,
                0 => return Err(end_of_string()),
                c if c.is_ascii_whitespace() || c == 0x0b => inp.pos += 1,
                c => return Err(syntax(c, inp.pos)),
            }
        }
        inp.pos += 1;
        match inp.at() {
            b'>' => inp.pos += 1,
            0 => return Err(end_of_string()),
            c => return Err(syntax(c, inp.pos)),
        }
        let Some((val, quoted)) = word(&mut inp, true)? else {
            return Err(end_of_string());
        };
        let val = utf8(val);
        check_len(&val, false)?;
        let val = if !quoted && val.eq_ignore_ascii_case("null") {
            None
        } else {
            Some(val)
        };
        pairs.push((key, val));
        // `,` or the end, after white space.
        loop {
            match inp.at() {
                b',' => {
                    inp.pos += 1;
                    break;
                }
                0 => return Ok(pairs),
                c if c.is_ascii_whitespace() || c == 0x0b => inp.pos += 1,
                c => return Err(syntax(c, inp.pos)),
            }
        }
    }
}

/// PostgreSQL's order of keys in an hstore: shorter first, then by bytes.
pub fn cmp_keys(a: &str, b: &str) -> Ordering {
    a.len()
        .cmp(&b.len())
        .then_with(|| a.as_bytes().cmp(b.as_bytes()))
}

/// Sorts pairs into the normal order and drops repeated keys (the first given stays).
pub fn normalize(mut pairs: Pairs) -> Pairs {
    pairs.sort_by(|a, b| cmp_keys(&a.0, &b.0));
    pairs.dedup_by(|later, first| later.0 == first.0);
    pairs
}

fn quote(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        if c == '"' || c == '\\' {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('"');
}

/// The normal text form of normalized pairs (hstore_out).
pub fn to_text(pairs: &[(String, Option<String>)]) -> String {
    let mut out = String::new();
    for (i, (k, v)) in pairs.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        quote(k, &mut out);
        out.push_str("=>");
        match v {
            Some(v) => quote(v, &mut out),
            None => out.push_str("NULL"),
        }
    }
    out
}

/// hstore_to_json (and the cast to json): `{"k": "v", "n": null}`, in the hstore's order.
pub fn to_json(p: &[(String, Option<String>)]) -> String {
    json_of(p, false)
}

/// hstore_to_json_loose: as [`to_json`], but `t` and `f` are booleans and a value that is a
/// JSON number is one.
pub fn to_json_loose(p: &[(String, Option<String>)]) -> String {
    json_of(p, true)
}

fn json_of(p: &[(String, Option<String>)], loose: bool) -> String {
    use super::json::write_string;
    let mut out = String::from("{");
    for (i, (k, v)) in p.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        write_string(k, &mut out);
        out.push_str(": ");
        match v.as_deref() {
            None => out.push_str("null"),
            Some("t") if loose => out.push_str("true"),
            Some("f") if loose => out.push_str("false"),
            Some(v) if loose && is_json_number(v) => out.push_str(v),
            Some(v) => write_string(v, &mut out),
        }
    }
    out.push('}');
    out
}

/// Whether `s` is a number by JSON's grammar: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]?
/// [0-9]+)?`.
fn is_json_number(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = usize::from(b.first() == Some(&b'-'));
    let digits = |i: &mut usize| {
        let start = *i;
        while b.get(*i).is_some_and(u8::is_ascii_digit) {
            *i += 1;
        }
        *i - start
    };
    match b.get(i) {
        Some(b'0') => i += 1,
        Some(c) if c.is_ascii_digit() => {
            digits(&mut i);
        }
        _ => return false,
    }
    if b.get(i) == Some(&b'.') {
        i += 1;
        if digits(&mut i) == 0 {
            return false;
        }
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        if digits(&mut i) == 0 {
            return false;
        }
    }
    i == b.len()
}

/// The casts to json and jsonb of a value held as `held`.
pub fn cast_to_json(held: &str, jsonb: bool) -> PgResult<String> {
    let j = to_json(&pairs_of(held)?);
    if jsonb {
        super::json::jsonb_in(&j)
    } else {
        Ok(j)
    }
}

/// hstore(text[]) and the cast from text[]: alternating keys and values, or a two-column
/// matrix of them; normalized pairs.
pub fn from_text_array(x: &super::Array) -> PgResult<Pairs> {
    let bad = |m: &str| PgError::new(code::ARRAY_SUBSCRIPT_ERROR, m);
    match x.dims.len() {
        0 => return Ok(Vec::new()),
        1 if x.dims[0].0 % 2 != 0 => return Err(bad("array must have even number of elements")),
        1 => {}
        2 if x.dims[1].0 != 2 => return Err(bad("array must have two columns")),
        2 => {}
        _ => return Err(bad("wrong number of array subscripts")),
    }
    let mut p = Vec::with_capacity(x.items.len() / 2);
    for kv in x.items.chunks(2) {
        let k = kv[0].as_str().map(str::to_string).ok_or_else(|| {
            PgError::new(
                code::NULL_VALUE_NOT_ALLOWED,
                "null value not allowed for hstore key",
            )
        })?;
        check_len(&k, true)?;
        let v = kv.get(1).and_then(|v| v.as_str()).map(str::to_string);
        if let Some(v) = &v {
            check_len(v, false)?;
        }
        p.push((k, v));
    }
    Ok(normalize(p))
}

/// hstore input: the value's normal text.
pub fn hstore_in(s: &str) -> PgResult<String> {
    Ok(to_text(&normalize(parse(s)?)))
}

/// The pairs of a value held in normal form (its own text always parses).
pub fn pairs_of(held: &str) -> PgResult<Pairs> {
    parse(held)
}

/// PostgreSQL's hstore_cmp: an empty hstore first; otherwise the concatenated bytes of keys
/// and values compared, then their total length, the pair count, and where the first key or
/// value ends (a NULL value after a non-NULL one of the same end).
pub fn cmp(a: &[(String, Option<String>)], b: &[(String, Option<String>)]) -> Ordering {
    if a.is_empty() || b.is_empty() {
        return a.len().cmp(&b.len());
    }
    let flat = |p: &[(String, Option<String>)]| {
        let mut bytes = Vec::new();
        let mut ends = Vec::new();
        for (k, v) in p {
            bytes.extend_from_slice(k.as_bytes());
            ends.push((bytes.len(), false));
            if let Some(v) = v {
                bytes.extend_from_slice(v.as_bytes());
            }
            ends.push((bytes.len(), v.is_none()));
        }
        (bytes, ends)
    };
    let (ba, ea) = flat(a);
    let (bb, eb) = flat(b);
    let n = ba.len().min(bb.len());
    match ba[..n].cmp(&bb[..n]) {
        Ordering::Equal => {}
        o => return o,
    }
    ba.len()
        .cmp(&bb.len())
        .then(a.len().cmp(&b.len()))
        .then_with(|| {
            for (x, y) in ea.iter().zip(&eb) {
                if x != y {
                    return x.0.cmp(&y.0).then(x.1.cmp(&y.1));
                }
            }
            Ordering::Equal
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normal_form() {
        assert_eq!(
            hstore_in(r#""a"=>"1", b=>NULL, aa=>x, a=>2, ""=>"""#).unwrap(),
            r#"""=>"", "a"=>"1", "b"=>NULL, "aa"=>"x""#
        );
        assert_eq!(hstore_in("").unwrap(), "");
        assert_eq!(hstore_in("  ").unwrap(), "");
        assert_eq!(
            hstore_in(r#"a\"b=>"q\\"#).unwrap_err().message,
            "Unexpected end of string"
        );
        assert_eq!(hstore_in(r#"a\"b=>"q\\""#).unwrap(), r#""a\"b"=>"q\\""#);
        assert_eq!(hstore_in("k => \"NULL\"").unwrap(), r#""k"=>"NULL""#);
    }

    #[test]
    fn errors_as_postgresql() {
        assert_eq!(
            hstore_in("a=>1,b").unwrap_err().message,
            "Unexpected end of string"
        );
        assert_eq!(
            hstore_in("a=>1,b=>").unwrap_err().message,
            "Unexpected end of string"
        );
        assert_eq!(
            hstore_in("a=>1 x").unwrap_err().message,
            "Syntax error near \"x\" at position 5"
        );
        assert_eq!(
            hstore_in("a=1").unwrap_err().message,
            "Syntax error near \"1\" at position 2"
        );
    }
}
