//! String operators: `||` (text with anything cast to text, bytea), LIKE / ILIKE and their
//! negations (PostgreSQL's like_match.c over characters or bytes, with ESCAPE), the POSIX
//! regular expression operators `~ ~* !~ !~*` (patterns translated from PostgreSQL's Spencer
//! dialect to the `regex` crate, its error messages reworded as PostgreSQL words them), and
//! `^@` (starts_with).

use super::{mismatch, text_of};
use crate::error::{code, PgError, PgResult};
use crate::sql::types::{io, FormatCtx, Value};

// ----- strings -----

/// Text of a value for `||` with a non-text operand (the value cast to text).
fn any_text(v: &Value, ctx: &FormatCtx) -> String {
    match v {
        Value::Text(s) => s.clone(),
        Value::Bool(b) => if *b { "true" } else { "false" }.to_string(),
        // `anynonarray || text` casts to text, and inet's cast to text shows the mask.
        Value::Inet(i) => crate::sql::types::network::show(i),
        _ => io::to_text(v, io::value_type(v), ctx),
    }
}

pub(super) fn text_concat(a: &Value, b: &Value, ctx: &FormatCtx) -> PgResult<Value> {
    let mut s = any_text(a, ctx);
    s.push_str(&any_text(b, ctx));
    Ok(Value::Text(s))
}

pub(super) fn bytea_concat(a: &Value, b: &Value, _: &FormatCtx) -> PgResult<Value> {
    match (a, b) {
        (Value::Bytea(x), Value::Bytea(y)) => {
            let mut v = x.clone();
            v.extend_from_slice(y);
            Ok(Value::Bytea(v))
        }
        _ => Err(mismatch(a)),
    }
}

/// LIKE matching over any element type, with `\` as the escape character.
fn like_match<T: PartialEq + Copy>(text: &[T], pat: &[T], pct: T, us: T, esc: T) -> PgResult<bool> {
    // Iterative matcher with backtracking to the last '%'.
    let (mut t, mut p) = (0usize, 0usize);
    let mut star: Option<(usize, usize)> = None;
    loop {
        if p < pat.len() {
            let c = pat[p];
            if c == pct {
                // Collapse consecutive %.
                while p < pat.len() && pat[p] == pct {
                    p += 1;
                }
                if p == pat.len() {
                    return Ok(true);
                }
                star = Some((p, t));
                continue;
            }
            if t < text.len() {
                if c == us {
                    t += 1;
                    p += 1;
                    continue;
                }
                let (lit, adv) = if c == esc {
                    if p + 1 >= pat.len() {
                        return Err(PgError::new(
                            code::INVALID_ESCAPE_SEQUENCE,
                            "LIKE pattern must not end with escape character",
                        ));
                    }
                    (pat[p + 1], 2)
                } else {
                    (c, 1)
                };
                if text[t] == lit {
                    t += 1;
                    p += adv;
                    continue;
                }
            }
        } else if t == text.len() {
            return Ok(true);
        }
        // Mismatch: backtrack.
        match star {
            Some((sp, st)) if st < text.len() => {
                star = Some((sp, st + 1));
                p = sp;
                t = st + 1;
            }
            _ => return Ok(false),
        }
    }
}

/// `text LIKE pattern` (case-sensitive) / ILIKE.
pub fn like(text: &str, pat: &str, case_insensitive: bool) -> PgResult<bool> {
    if case_insensitive {
        let t: Vec<char> = text.to_lowercase().chars().collect();
        let p: Vec<char> = pat.to_lowercase().chars().collect();
        like_match(&t, &p, '%', '_', '\\')
    } else if text.is_ascii() && pat.is_ascii() {
        like_match(text.as_bytes(), pat.as_bytes(), b'%', b'_', b'\\')
    } else {
        let t: Vec<char> = text.chars().collect();
        let p: Vec<char> = pat.chars().collect();
        like_match(&t, &p, '%', '_', '\\')
    }
}

/// LIKE with an explicit ESCAPE character (None = no escape).
pub fn like_escape(text: &str, pat: &str, esc: Option<char>, ci: bool) -> PgResult<bool> {
    let (t, p): (Vec<char>, Vec<char>) = if ci {
        (
            text.to_lowercase().chars().collect(),
            pat.to_lowercase().chars().collect(),
        )
    } else {
        (text.chars().collect(), pat.chars().collect())
    };
    // '\u{0}' never occurs in text, so it disables escaping.
    like_match(&t, &p, '%', '_', esc.unwrap_or('\u{0}'))
}

pub(super) fn like_op<const NEG: bool, const CI: bool>(
    a: &Value,
    b: &Value,
    _: &FormatCtx,
) -> PgResult<Value> {
    let r = match (a, b) {
        (Value::Bytea(x), Value::Bytea(y)) => like_match(x, y, b'%', b'_', b'\\')?,
        _ => like(text_of(a)?.trim_end_matches(|_| false), text_of(b)?, CI)?,
    };
    Ok(Value::Bool(r != NEG))
}

pub(super) fn bpchar_like_op<const NEG: bool, const CI: bool>(
    a: &Value,
    b: &Value,
    _: &FormatCtx,
) -> PgResult<Value> {
    let r = like(text_of(a)?.trim_end_matches(' '), text_of(b)?, CI)?;
    Ok(Value::Bool(r != NEG))
}

thread_local! {
    static REGEX_CACHE: std::cell::RefCell<std::collections::HashMap<(String, bool), regex::Regex>> =
        std::cell::RefCell::new(std::collections::HashMap::new());
}

/// Compiles (with a per-thread cache) a PostgreSQL regular expression.
pub fn compile_regex(pat: &str, case_insensitive: bool) -> PgResult<regex::Regex> {
    let key = (pat.to_string(), case_insensitive);
    if let Some(r) = REGEX_CACHE.with(|c| c.borrow().get(&key).cloned()) {
        return Ok(r);
    }
    let translated = translate_regex(pat);
    let r = regex::RegexBuilder::new(&translated)
        .case_insensitive(case_insensitive)
        .build()
        .map_err(|e| {
            let msg = match e {
                regex::Error::Syntax(s) => {
                    let last = s
                        .lines()
                        .rev()
                        .find(|l| l.starts_with("error:"))
                        .unwrap_or("");
                    spencer_message(last.trim_start_matches("error: "))
                }
                regex::Error::CompiledTooBig(_) => "regular expression is too complex".into(),
                _ => "invalid regular expression".into(),
            };
            PgError::new(
                code::INVALID_REGULAR_EXPRESSION,
                format!("invalid regular expression: {msg}"),
            )
        })?;
    REGEX_CACHE.with(|c| {
        let mut c = c.borrow_mut();
        if c.len() > 256 {
            c.clear();
        }
        c.insert(key, r.clone());
    });
    Ok(r)
}

/// The regex crate's error in the wording of PostgreSQL's (Spencer) regex library.
fn spencer_message(m: &str) -> String {
    if m.contains("unclosed group") || m.contains("unopened group") {
        "parentheses () not balanced".to_string()
    } else if m.contains("unclosed character class") {
        "brackets [] not balanced".to_string()
    } else if m.contains("repetition operator missing expression") {
        "quantifier operand invalid".to_string()
    } else if m.contains("invalid character class range") {
        "invalid character range".to_string()
    } else if m.contains("escape sequence") || m.contains("unrecognized escape") {
        "invalid escape \\ sequence".to_string()
    } else if m.contains("repetition") || m.contains("decimal") {
        "invalid repetition count(s)".to_string()
    } else {
        m.to_string()
    }
}

/// Translates the PostgreSQL ARE features the regex crate spells differently.
fn translate_regex(p: &str) -> String {
    let mut out = String::with_capacity(p.len());
    let mut chars = p.chars().peekable();
    let mut in_bracket = false;
    while let Some(c) = chars.next() {
        if in_bracket {
            out.push(c);
            if c == ']' {
                in_bracket = false;
            } else if c == '[' && chars.peek() == Some(&':') {
                // POSIX class inside brackets: copy through to ":]"
                for d in chars.by_ref() {
                    out.push(d);
                    if d == ']' {
                        break;
                    }
                }
            } else if c == '\\' {
                if let Some(d) = chars.next() {
                    out.push(d);
                }
            }
            continue;
        }
        match c {
            '\\' => match chars.next() {
                Some('m') => out.push_str(r"\b(?=\w)"),
                Some('M') => out.push_str(r"\b(?<=\w)"),
                Some('y') => out.push_str(r"\b"),
                Some('Y') => out.push_str(r"\B"),
                Some('A') => out.push_str(r"\A"),
                Some('Z') => out.push_str(r"\z"),
                Some(d) => {
                    out.push('\\');
                    out.push(d);
                }
                None => out.push('\\'),
            },
            '[' => {
                in_bracket = true;
                out.push('[');
                if chars.peek() == Some(&'^') {
                    out.push(chars.next().unwrap());
                }
                if chars.peek() == Some(&']') {
                    chars.next();
                    out.push_str(r"\]");
                }
            }
            _ => out.push(c),
        }
    }
    // The regex crate has no look-around; replace the \m / \M approximations.
    out.replace(r"\b(?=\w)", r"\b").replace(r"\b(?<=\w)", r"\b")
}

pub(super) fn regex_op<const NEG: bool, const CI: bool>(
    a: &Value,
    b: &Value,
    _: &FormatCtx,
) -> PgResult<Value> {
    let re = compile_regex(text_of(b)?, CI)?;
    Ok(Value::Bool(re.is_match(text_of(a)?) != NEG))
}

pub(super) fn starts_with_op(a: &Value, b: &Value, _: &FormatCtx) -> PgResult<Value> {
    Ok(Value::Bool(text_of(a)?.starts_with(text_of(b)?)))
}
