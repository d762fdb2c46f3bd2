//! Text output and input of arrays and records (composite values).
//!
//! Output writes `{a,b,...}` per dimension with a `[lo:hi]=` prefix when a lower bound is not
//! 1, and double-quotes an element (or record field) whose text would not read back bare
//! (empty, an array element spelt `NULL`, delimiters, quotes, backslashes, blanks). Input is
//! PostgreSQL's array_in: optional dimension decoration, nested braces whose shape must be
//! rectangular, quoting and backslash escapes, unquoted NULL, each element read with the
//! element type's own input; malformed literals fail with 22P02 and PostgreSQL's detail text, and arrays
//! deeper than `MAX_DIMS` with 54000.

use super::{from_text, to_text, MAX_DIMS};
use crate::error::{code, PgError, PgResult};
use crate::sql::types::{Array, FormatCtx, Type, Value};
use std::fmt::Write;

/// Whether an array element's text must be double-quoted in array output (`delim`: the
/// element type's delimiter).
fn array_elem_needs_quotes(s: &str, delim: u8) -> bool {
    s.is_empty()
        || s.eq_ignore_ascii_case("null")
        || s.bytes().any(|c| {
            c == delim
                || matches!(
                    c,
                    b'"' | b'\\' | b'{' | b'}' | b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c
                )
        })
}

/// pg_type.typdelim of an element type: `;` for box, whose text has commas, `,` for the rest.
fn delimiter(elem: Type) -> u8 {
    if elem == Type::BOX {
        b';'
    } else {
        b','
    }
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
    let delim = delimiter(a.elem);
    for i in 0..len {
        if i > 0 {
            out.push(delim as char);
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
                if array_elem_needs_quotes(&s, delim) {
                    push_quoted(&s, out);
                } else {
                    out.push_str(&s);
                }
            }
        }
    }
    out.push('}');
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
        /// The element type's delimiter.
        delim: char,
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
                    if ch == '}' || ch == self.delim {
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
                    c if c == self.delim => {
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
                    c if c == self.delim || c == '}' => break,
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
        delim: delimiter(elem) as char,
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
