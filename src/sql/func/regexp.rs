//! Regular expressions (PostgreSQL's regexp.c): substring(text FROM pattern), SIMILAR TO and
//! its translation into a regular expression (similar_to_escape), and regexp_replace,
//! regexp_match, regexp_split_to_array, regexp_count and regexp_like.

use super::args::{i4, invalid_param, text, txt};
use crate::error::{code, PgError, PgResult};
use crate::sql::types::{ops, Array, FormatCtx, Type, Value};

/// substring(text, pattern): the first parenthesized group of the first match, or the whole
/// match; NULL without a match.
pub(super) fn f_substring_regex(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
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
pub(super) fn f_substring_similar(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
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
pub(super) fn f_similar_to_escape(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
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
pub(super) fn f_similar_escape(a: &[Value], ctx: &FormatCtx) -> PgResult<Value> {
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

pub(super) fn f_regexp_replace(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
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

pub(super) fn f_regexp_match(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
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

pub(super) fn f_regexp_split_to_array(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
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

pub(super) fn f_regexp_count(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    let re = ops::compile_regex(txt(&a[1])?, false)?;
    i4(re.find_iter(txt(&a[0])?).count() as i64)
}

pub(super) fn f_regexp_like(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    let flags = if a.len() > 2 { txt(&a[2])? } else { "" };
    let (_, ci) = regex_flags(flags)?;
    let re = ops::compile_regex(txt(&a[1])?, ci)?;
    Ok(Value::Bool(re.is_match(txt(&a[0])?)))
}
