//! json and jsonb: parsing with PostgreSQL's error details, jsonb normalization (the text form
//! jsonb prints), conversion of SQL values to JSON, and the operator/function helpers.
//!
//! Both types are stored as `Value::Text`: json keeps the input text exactly, jsonb keeps its
//! normalized text (keys sorted by length then bytes, duplicates removed keeping the last, numbers
//! as numeric prints them, `", "` and `": "` separators).

use super::datetime as dt;
use super::{io, FormatCtx, Numeric, Type, Value};
use crate::error::{code, PgError, PgResult};
use std::fmt::Write;

/// A parsed JSON value; `span` is its byte range in the source (used by json operators, which
/// return sub-values as written).
#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    pub v: Json,
    pub span: (usize, usize),
}

#[derive(Clone, Debug, PartialEq)]
pub enum Json {
    Null,
    Bool(bool),
    /// The number as written.
    Number(String),
    String(String),
    Array(Vec<Node>),
    Object(Vec<(String, Node)>),
}

fn syntax(detail: String) -> PgError {
    PgError::new(
        code::INVALID_TEXT_REPRESENTATION,
        "invalid input syntax for type json",
    )
    .with_detail(detail)
}

struct Parser<'a> {
    s: &'a str,
    b: &'a [u8],
    i: usize,
    /// jsonb rejects \u0000.
    jsonb: bool,
}

impl<'a> Parser<'a> {
    fn ws(&mut self) {
        while self.i < self.b.len() && matches!(self.b[self.i], b' ' | b'\t' | b'\n' | b'\r') {
            self.i += 1;
        }
    }

    /// The token at the current position, for error messages.
    fn token(&self) -> String {
        let rest = &self.s[self.i..];
        let c = rest.chars().next().unwrap_or(' ');
        if c.is_alphanumeric() || c == '-' || c == '_' {
            rest.chars()
                .take_while(|c| {
                    c.is_alphanumeric() || *c == '_' || *c == '-' || *c == '.' || *c == '+'
                })
                .collect()
        } else {
            c.to_string()
        }
    }

    fn eof(&self) -> PgError {
        syntax("The input string ended unexpectedly.".into())
    }

    fn value(&mut self) -> PgResult<Node> {
        crate::stack::check()?;
        self.ws();
        if self.i >= self.b.len() {
            return Err(self.eof());
        }
        let start = self.i;
        let v = match self.b[self.i] {
            b'{' => {
                self.i += 1;
                let mut fields = Vec::new();
                self.ws();
                if self.i < self.b.len() && self.b[self.i] == b'}' {
                    self.i += 1;
                } else {
                    loop {
                        self.ws();
                        if self.i >= self.b.len() {
                            return Err(self.eof());
                        }
                        if self.b[self.i] != b'"' {
                            return Err(self.expected("string"));
                        }
                        let k = self.string()?;
                        self.ws();
                        if self.i >= self.b.len() {
                            return Err(self.eof());
                        }
                        if self.b[self.i] != b':' {
                            return Err(self.expected("\":\""));
                        }
                        self.i += 1;
                        let v = self.value()?;
                        fields.push((k, v));
                        self.ws();
                        if self.i >= self.b.len() {
                            return Err(self.eof());
                        }
                        match self.b[self.i] {
                            b',' => self.i += 1,
                            b'}' => {
                                self.i += 1;
                                break;
                            }
                            _ => return Err(self.expected("\",\" or \"}\"")),
                        }
                    }
                }
                Json::Object(fields)
            }
            b'[' => {
                self.i += 1;
                let mut items = Vec::new();
                self.ws();
                if self.i < self.b.len() && self.b[self.i] == b']' {
                    self.i += 1;
                } else {
                    loop {
                        items.push(self.value()?);
                        self.ws();
                        if self.i >= self.b.len() {
                            return Err(self.eof());
                        }
                        match self.b[self.i] {
                            b',' => self.i += 1,
                            b']' => {
                                self.i += 1;
                                break;
                            }
                            _ => return Err(self.expected("\",\" or \"]\"")),
                        }
                    }
                }
                Json::Array(items)
            }
            b'"' => Json::String(self.string()?),
            b'-' | b'0'..=b'9' => Json::Number(self.number()?),
            b't' | b'f' | b'n' => {
                let tok = self.token();
                let v = match tok.as_str() {
                    "true" => Json::Bool(true),
                    "false" => Json::Bool(false),
                    "null" => Json::Null,
                    _ => return Err(syntax(format!("Token \"{tok}\" is invalid."))),
                };
                self.i += tok.len();
                v
            }
            b']' | b'}' | b',' | b':' => {
                return Err(syntax(format!(
                    "Expected JSON value, but found \"{}\".",
                    self.b[self.i] as char
                )))
            }
            _ => return Err(syntax(format!("Token \"{}\" is invalid.", self.token()))),
        };
        Ok(Node {
            v,
            span: (start, self.i),
        })
    }

    fn expected(&self, what: &str) -> PgError {
        syntax(format!("Expected {what}, but found \"{}\".", self.token()))
    }

    fn number(&mut self) -> PgResult<String> {
        let start = self.i;
        let b = self.b;
        let mut i = self.i;
        if b[i] == b'-' {
            i += 1;
        }
        let int_start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        let mut ok = i > int_start && !(b[int_start] == b'0' && i - int_start > 1);
        if i < b.len() && b[i] == b'.' {
            i += 1;
            let f = i;
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
            ok &= i > f;
        }
        if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
            i += 1;
            if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
                i += 1;
            }
            let e = i;
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
            ok &= i > e;
        }
        // A number directly followed by letters is one invalid token.
        while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] == b'.') {
            i += 1;
            ok = false;
        }
        if !ok {
            return Err(syntax(format!(
                "Token \"{}\" is invalid.",
                &self.s[start..i]
            )));
        }
        self.i = i;
        Ok(self.s[start..i].to_string())
    }

    fn string(&mut self) -> PgResult<String> {
        // at '"'
        self.i += 1;
        let mut out = String::new();
        loop {
            if self.i >= self.b.len() {
                return Err(self.eof());
            }
            let c = self.b[self.i];
            match c {
                b'"' => {
                    self.i += 1;
                    return Ok(out);
                }
                b'\\' => {
                    self.i += 1;
                    if self.i >= self.b.len() {
                        return Err(self.eof());
                    }
                    let e = self.b[self.i];
                    self.i += 1;
                    match e {
                        b'"' => out.push('"'),
                        b'\\' => out.push('\\'),
                        b'/' => out.push('/'),
                        b'b' => out.push('\u{8}'),
                        b'f' => out.push('\u{c}'),
                        b'n' => out.push('\n'),
                        b'r' => out.push('\r'),
                        b't' => out.push('\t'),
                        b'u' => {
                            let cp = self.hex4()?;
                            if (0xD800..0xDC00).contains(&cp) {
                                // High surrogate: a low one must follow.
                                if self.b.get(self.i) == Some(&b'\\')
                                    && self.b.get(self.i + 1) == Some(&b'u')
                                {
                                    self.i += 2;
                                    let lo = self.hex4()?;
                                    if !(0xDC00..0xE000).contains(&lo) {
                                        return Err(unicode_err(
                                            "Unicode low surrogate must follow a high surrogate.",
                                        ));
                                    }
                                    let v = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                                    out.push(char::from_u32(v).unwrap_or('\u{fffd}'));
                                } else {
                                    return Err(unicode_err(
                                        "Unicode low surrogate must follow a high surrogate.",
                                    ));
                                }
                            } else if (0xDC00..0xE000).contains(&cp) {
                                return Err(unicode_err(
                                    "Unicode low surrogate must follow a high surrogate.",
                                ));
                            } else if cp == 0 {
                                if self.jsonb {
                                    return Err(PgError::new(
                                        code::UNTRANSLATABLE_CHARACTER,
                                        "unsupported Unicode escape sequence",
                                    )
                                    .with_detail("\\u0000 cannot be converted to text."));
                                }
                                out.push_str("\\u0000");
                            } else {
                                out.push(char::from_u32(cp).unwrap_or('\u{fffd}'));
                            }
                        }
                        _ => {
                            let ch = self.s[self.i - 1..].chars().next().unwrap_or('?');
                            return Err(syntax(format!("Escape sequence \"\\{ch}\" is invalid.")));
                        }
                    }
                }
                0..=0x1f => {
                    return Err(syntax(format!(
                        "Character with value 0x{c:02x} must be escaped."
                    )))
                }
                _ => {
                    let ch = self.s[self.i..].chars().next().unwrap();
                    out.push(ch);
                    self.i += ch.len_utf8();
                }
            }
        }
    }

    fn hex4(&mut self) -> PgResult<u32> {
        let h = self.s.get(self.i..self.i + 4).unwrap_or("");
        if h.len() != 4 || !h.bytes().all(|c| c.is_ascii_hexdigit()) {
            return Err(syntax(
                "\"\\u\" must be followed by four hexadecimal digits.".into(),
            ));
        }
        self.i += 4;
        Ok(u32::from_str_radix(h, 16).unwrap())
    }
}

fn unicode_err(detail: &str) -> PgError {
    syntax(detail.to_string())
}

/// Parses JSON text (`jsonb` selects jsonb's stricter string rules).
pub fn parse(s: &str, jsonb: bool) -> PgResult<Node> {
    let mut p = Parser {
        s,
        b: s.as_bytes(),
        i: 0,
        jsonb,
    };
    let v = p.value()?;
    p.ws();
    if p.i < p.b.len() {
        return Err(syntax(format!(
            "Expected end of input, but found \"{}\".",
            p.token()
        )));
    }
    Ok(v)
}

/// json input: validates and keeps the text.
pub fn json_in(s: &str) -> PgResult<String> {
    parse(s, false)?;
    Ok(s.to_string())
}

/// jsonb input: the normalized text.
pub fn jsonb_in(s: &str) -> PgResult<String> {
    let n = parse(s, true)?;
    let mut out = String::new();
    write_jsonb(&normalize(n.v)?, &mut out);
    Ok(out)
}

/// jsonb's canonical form: object keys sorted (shorter first, then bytewise), duplicates
/// removed keeping the last, numbers in numeric's text form.
pub fn normalize(v: Json) -> PgResult<Json> {
    Ok(match v {
        Json::Number(n) => Json::Number(Numeric::parse(&n).map(|x| x.to_string()).unwrap_or(n)),
        Json::Array(items) => Json::Array(
            items
                .into_iter()
                .map(|n| {
                    Ok(Node {
                        v: normalize(n.v)?,
                        span: n.span,
                    })
                })
                .collect::<PgResult<_>>()?,
        ),
        Json::Object(fields) => {
            let mut out: Vec<(String, Node)> = Vec::with_capacity(fields.len());
            for (k, n) in fields {
                let n = Node {
                    v: normalize(n.v)?,
                    span: n.span,
                };
                if let Some(e) = out.iter_mut().find(|(ek, _)| *ek == k) {
                    e.1 = n;
                } else {
                    out.push((k, n));
                }
            }
            out.sort_by(|a, b| {
                a.0.len()
                    .cmp(&b.0.len())
                    .then_with(|| a.0.as_bytes().cmp(b.0.as_bytes()))
            });
            Json::Object(out)
        }
        other => other,
    })
}

/// Writes a JSON string literal with JSON escaping.
pub fn write_string(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// jsonb's text output.
pub fn write_jsonb(v: &Json, out: &mut String) {
    match v {
        Json::Null => out.push_str("null"),
        Json::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Json::Number(n) => out.push_str(n),
        Json::String(s) => write_string(s, out),
        Json::Array(items) => {
            out.push('[');
            for (i, n) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_jsonb(&n.v, out);
            }
            out.push(']');
        }
        Json::Object(fields) => {
            out.push('{');
            for (i, (k, n)) in fields.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_string(k, out);
                out.push_str(": ");
                write_jsonb(&n.v, out);
            }
            out.push('}');
        }
    }
}

/// jsonb_pretty's layout.
pub fn write_pretty(v: &Json, indent: usize, out: &mut String) {
    let pad = |out: &mut String, n: usize| {
        for _ in 0..n {
            out.push_str("    ");
        }
    };
    match v {
        Json::Array(items) if !items.is_empty() => {
            out.push_str("[\n");
            for (i, n) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(",\n");
                }
                pad(out, indent + 1);
                write_pretty(&n.v, indent + 1, out);
            }
            out.push('\n');
            pad(out, indent);
            out.push(']');
        }
        Json::Object(fields) if !fields.is_empty() => {
            out.push_str("{\n");
            for (i, (k, n)) in fields.iter().enumerate() {
                if i > 0 {
                    out.push_str(",\n");
                }
                pad(out, indent + 1);
                write_string(k, out);
                out.push_str(": ");
                write_pretty(&n.v, indent + 1, out);
            }
            out.push('\n');
            pad(out, indent);
            out.push('}');
        }
        other => write_jsonb(other, out),
    }
}

/// The text of a sub-value: as written for json, canonical for jsonb.
pub fn node_text(src: &str, n: &Node, jsonb: bool) -> String {
    if jsonb {
        let mut s = String::new();
        write_jsonb(&n.v, &mut s);
        s
    } else {
        src[n.span.0..n.span.1].to_string()
    }
}

/// `->>` semantics: strings unquoted, null as SQL NULL, anything else as JSON text.
pub fn node_as_text(src: &str, n: &Node, jsonb: bool) -> Value {
    match &n.v {
        Json::Null => Value::Null,
        Json::String(s) => Value::Text(s.clone()),
        _ => Value::Text(node_text(src, n, jsonb)),
    }
}

/// Member lookup: object key or array index (negative counts from the end).
pub fn get<'n>(n: &'n Node, key: &Value) -> Option<&'n Node> {
    match (&n.v, key) {
        (Json::Object(fields), Value::Text(k)) => {
            fields.iter().rev().find(|(fk, _)| fk == k).map(|(_, v)| v)
        }
        (Json::Array(items), k) => {
            let i = k.as_i64()?;
            let idx = if i < 0 { items.len() as i64 + i } else { i };
            if idx < 0 {
                return None;
            }
            items.get(idx as usize)
        }
        _ => None,
    }
}

/// Path lookup (`#>`): each element is a key, or an index for arrays.
pub fn get_path<'n>(n: &'n Node, path: &[Value]) -> Option<&'n Node> {
    let mut cur = n;
    for p in path {
        let key = match (&cur.v, p) {
            (Json::Array(_), Value::Text(s)) => Value::Int8(s.trim().parse().ok()?),
            (_, v) => v.clone(),
        };
        if key.is_null() {
            return None;
        }
        cur = get(cur, &key)?;
    }
    Some(cur)
}

/// jsonb containment (`@>`). A top-level array contains a scalar it has as an element (the
/// one exception PostgreSQL makes to matching structure: `'{"a": [3]}' @> '{"a": 3}'` is false).
pub fn contains(a: &Json, b: &Json) -> bool {
    match (a, b) {
        (Json::Array(ia), s) if !matches!(s, Json::Object(_) | Json::Array(_)) => {
            ia.iter().any(|va| contains_within(&va.v, s))
        }
        _ => contains_within(a, b),
    }
}

/// Containment below the top level: objects in objects, arrays in arrays, equal scalars.
fn contains_within(a: &Json, b: &Json) -> bool {
    match (a, b) {
        (Json::Object(fa), Json::Object(fb)) => fb.iter().all(|(k, vb)| {
            fa.iter()
                .any(|(ka, va)| ka == k && contains_within(&va.v, &vb.v))
        }),
        (Json::Array(ia), Json::Array(ib)) => ib
            .iter()
            .all(|vb| ia.iter().any(|va| contains_within(&va.v, &vb.v))),
        (Json::Number(x), Json::Number(y)) => match (Numeric::parse(x), Numeric::parse(y)) {
            (Ok(p), Ok(q)) => p == q,
            _ => x == y,
        },
        (x, y) => x == y,
    }
}

/// The JSON type name (json_typeof).
pub fn type_name(v: &Json) -> &'static str {
    match v {
        Json::Null => "null",
        Json::Bool(_) => "boolean",
        Json::Number(_) => "number",
        Json::String(_) => "string",
        Json::Array(_) => "array",
        Json::Object(_) => "object",
    }
}

/// A SQL value of type `ty` as JSON text (to_json / to_jsonb / json_build_*). `jsonb` selects
/// the jsonb spacing for nested arrays and records.
pub fn value_to_json(v: &Value, ty: Type, ctx: &FormatCtx, jsonb: bool, out: &mut String) {
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Int2(_) | Value::Int4(_) | Value::Int8(_) | Value::Oid(_) if ty != Type::REGTYPE => {
            io::write_text(v, ty, ctx, out)
        }
        Value::Float4(_) | Value::Float8(_) | Value::Numeric(_) => {
            let s = io::to_text(v, ty, ctx);
            if s.chars().any(|c| c.is_ascii_alphabetic() && c != 'e') {
                // NaN and infinities are strings in JSON.
                write_string(&s, out);
            } else {
                out.push_str(&s);
            }
        }
        // An hstore through its cast to json (to_json and the aggregates use a type's cast).
        Value::Text(s) if ty.is_hstore() => match super::hstore::cast_to_json(s, jsonb) {
            Ok(j) => out.push_str(&j),
            Err(_) => write_string(s, out),
        },
        Value::Text(s) if ty == Type::JSON || ty == Type::JSONB => {
            if jsonb {
                match jsonb_in(s) {
                    Ok(n) => out.push_str(&n),
                    Err(_) => out.push_str(s),
                }
            } else {
                out.push_str(s);
            }
        }
        Value::Date(d) => {
            if dt::is_finite_date(*d) {
                let mut s = String::new();
                dt::format_date(*d, Default::default(), &mut s);
                write_string(&s, out);
            } else {
                write_string(if *d < 0 { "-infinity" } else { "infinity" }, out);
            }
        }
        Value::Timestamp(t) => write_string(&iso_timestamp(*t, None), out),
        Value::TimestampTz(t) => {
            let off = dt::utc_offset_at(&ctx.time_zone, *t);
            write_string(
                &iso_timestamp(*t + off as i64 * dt::USECS_PER_SEC, Some(off)),
                out,
            )
        }
        Value::Array(a) => {
            out.push('[');
            write_json_array_dim(a, 0, &mut 0, ctx, jsonb, out);
            out.push(']');
        }
        Value::Record(fields) => {
            out.push('{');
            for (i, f) in fields.iter().enumerate() {
                if i > 0 {
                    out.push_str(if jsonb { ", " } else { "," });
                }
                let _ = write!(out, "\"f{}\"", i + 1);
                out.push_str(if jsonb { ": " } else { ":" });
                value_to_json(f, io::value_type(f), ctx, jsonb, out);
            }
            out.push('}');
        }
        other => write_string(&io::to_text(other, ty, ctx), out),
    }
}

fn write_json_array_dim(
    a: &super::Array,
    dim: usize,
    idx: &mut usize,
    ctx: &FormatCtx,
    jsonb: bool,
    out: &mut String,
) {
    if a.dims.is_empty() {
        return;
    }
    let len = a.dims[dim].0.max(0) as usize;
    let sep = if jsonb { ", " } else { "," };
    for i in 0..len {
        if i > 0 {
            out.push_str(sep);
        }
        if dim + 1 < a.dims.len() {
            out.push('[');
            write_json_array_dim(a, dim + 1, idx, ctx, jsonb, out);
            out.push(']');
        } else {
            let v = a.items.get(*idx).unwrap_or(&Value::Null);
            *idx += 1;
            value_to_json(v, a.elem, ctx, jsonb, out);
        }
    }
}

/// `2020-01-01T10:00:00[.ffffff][+00:00]` as JSON shows timestamps.
fn iso_timestamp(local: i64, off: Option<i32>) -> String {
    if !dt::is_finite_ts(local) {
        return if local < 0 { "-infinity" } else { "infinity" }.to_string();
    }
    let mut s = String::new();
    dt::format_timestamp(local, Default::default(), &mut s);
    let mut s = s.replacen(' ', "T", 1);
    // BC dates keep their suffix after the time in PostgreSQL's JSON output.
    if let Some(o) = off {
        let sign = if o < 0 { '-' } else { '+' };
        let a = o.unsigned_abs();
        let _ = write!(s, "{sign}{:02}:{:02}", a / 3600, a / 60 % 60);
        if a % 60 != 0 {
            let _ = write!(s, ":{:02}", a % 60);
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jsonb_normalization() {
        assert_eq!(
            jsonb_in(r#"{"b":1, "a" : [1,2.50,{"x":null}], "aa":true, "b":"dup"}"#).unwrap(),
            r#"{"a": [1, 2.50, {"x": null}], "b": "dup", "aa": true}"#
        );
        assert_eq!(jsonb_in(r#""\u0041\n""#).unwrap(), r#""A\n""#);
        assert_eq!(jsonb_in("1e2").unwrap(), "100");
        assert_eq!(jsonb_in("-0").unwrap(), "0");
        assert_eq!(jsonb_in("1.0").unwrap(), "1.0");
        assert_eq!(jsonb_in(" [] ").unwrap(), "[]");
    }

    #[test]
    fn errors() {
        let d = |s: &str| parse(s, false).unwrap_err().detail.clone().unwrap();
        assert_eq!(d(r#"{"a":}"#), "Expected JSON value, but found \"}\".");
        assert_eq!(d("x"), "Token \"x\" is invalid.");
        assert_eq!(d(r#"{"a":1,}"#), "Expected string, but found \"}\".");
        assert_eq!(d("[1,2"), "The input string ended unexpectedly.");
        assert_eq!(
            d(r#""\uZZZZ""#),
            "\"\\u\" must be followed by four hexadecimal digits."
        );
        assert_eq!(d("[1] x"), "Expected end of input, but found \"x\".");
        assert_eq!(d("tru"), "Token \"tru\" is invalid.");
    }

    #[test]
    fn access() {
        let src = r#"{"a": {"b": [1, 2]}, "s": "x"}"#;
        let n = parse(src, false).unwrap();
        let a = get(&n, &Value::Text("a".into())).unwrap();
        assert_eq!(node_text(src, a, false), r#"{"b": [1, 2]}"#);
        let p = get_path(
            &n,
            &[
                Value::Text("a".into()),
                Value::Text("b".into()),
                Value::Text("1".into()),
            ],
        )
        .unwrap();
        assert_eq!(node_text(src, p, false), "2");
        let s = get(&n, &Value::Text("s".into())).unwrap();
        assert_eq!(node_as_text(src, s, false), Value::Text("x".into()));
        let a = parse(r#"{"a":1,"b":2}"#, true).unwrap();
        let b = parse(r#"{"a":1}"#, true).unwrap();
        assert!(contains(&a.v, &b.v));
        assert!(!contains(&b.v, &a.v));
    }
}
