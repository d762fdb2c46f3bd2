//! String functions (PostgreSQL's varlena.c, oracle_compat.c, encode.c and the conversions of
//! mbutils.c): length, lower / upper / initcap, substr, position, replace, trim, lpad / rpad,
//! left / right, repeat, reverse, split_part, starts_with, md5 / sha*, chr / ascii, to_hex,
//! quote_ident / quote_literal / quote_nullable, translate, overlay, encode / decode,
//! convert / convert_from / convert_to, concat / concat_ws, and get_byte / set_byte / get_bit
//! over bytea.

use super::args::{any_to_text, bytes, i4, int, invalid_param, text, txt};
use crate::error::{code, PgError, PgResult};
use crate::sql::quote::{quote_ident, quote_literal};
use crate::sql::types::{io, FormatCtx, Value};

pub(super) fn f_length(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    match &a[0] {
        Value::Bytea(b) => i4(b.len() as i64),
        v => i4(txt(v)?.chars().count() as i64),
    }
}

/// like_escape(pattern, escape): the pattern rewritten for the default escape, backslash
/// (PostgreSQL's do_like_escape): an empty escape doubles every backslash; another one becomes
/// a backslash, and a literal backslash is doubled unless it is the escaped character.
pub(super) fn f_like_escape(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    let p = txt(&a[0])?;
    let e = txt(&a[1])?;
    let mut chars = e.chars();
    let esc = match (chars.next(), chars.next()) {
        (None, _) => return Ok(text(p.replace('\\', "\\\\"))),
        (Some(c), None) => c,
        _ => {
            return Err(
                PgError::new(code::INVALID_ESCAPE_SEQUENCE, "invalid escape string")
                    .with_hint("Escape string must be empty or one character."),
            )
        }
    };
    if esc == '\\' {
        return Ok(text(p.to_string()));
    }
    let mut out = String::with_capacity(p.len() + 4);
    let mut after_escape = false;
    for c in p.chars() {
        if c == esc && !after_escape {
            out.push('\\');
            after_escape = true;
        } else if c == '\\' {
            out.push('\\');
            if !after_escape {
                out.push('\\');
            }
            after_escape = false;
        } else {
            out.push(c);
            after_escape = false;
        }
    }
    Ok(text(out))
}

pub(super) fn f_bpchar_length(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
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

pub(super) fn f_get_byte(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    let b = bytes(&a[0])?;
    let i = byte_index(b, int(&a[1])?)?;
    Ok(Value::Int4(b[i] as i32))
}

pub(super) fn f_set_byte(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    let mut b = bytes(&a[0])?.to_vec();
    let i = byte_index(&b, int(&a[1])?)?;
    b[i] = int(&a[2])? as u8;
    Ok(Value::Bytea(b))
}

pub(super) fn f_get_bit(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
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

pub(super) fn f_octet_length(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    i4(bytes(&a[0])?.len() as i64)
}

pub(super) fn f_bit_length(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    i4(bytes(&a[0])?.len() as i64 * 8)
}

pub(super) fn f_lower(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    Ok(text(txt(&a[0])?.to_lowercase()))
}

pub(super) fn f_upper(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    Ok(text(txt(&a[0])?.to_uppercase()))
}

pub(super) fn f_initcap(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
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

pub(super) fn f_substr(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
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

pub(super) fn f_position(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
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

pub(super) fn f_replace(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
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

pub(super) fn trim_args<const L: bool, const R: bool>(
    a: &[Value],
    _: &FormatCtx,
) -> PgResult<Value> {
    if let Value::Bytea(b) = &a[0] {
        let set = bytes(&a[1])?;
        return Ok(Value::Bytea(trim_bytes(b, set, L, R)));
    }
    let set = if a.len() > 1 { txt(&a[1])? } else { " " };
    Ok(text(trim_impl(txt(&a[0])?, set, L, R)))
}

pub(super) fn pad<const LEFT: bool>(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
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

pub(super) fn f_left(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
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

pub(super) fn f_right(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
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

pub(super) fn f_repeat(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
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

pub(super) fn f_reverse(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    Ok(text(txt(&a[0])?.chars().rev().collect::<String>()))
}

pub(super) fn f_split_part(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
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

pub(super) fn f_starts_with(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    Ok(Value::Bool(txt(&a[0])?.starts_with(txt(&a[1])?)))
}

fn hex_string(b: &[u8]) -> String {
    let mut s = String::with_capacity(b.len() * 2);
    for c in b {
        s.push_str(&format!("{c:02x}"));
    }
    s
}

pub(super) fn f_md5(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    use md5::Digest;
    let d = md5::Md5::digest(bytes(&a[0])?);
    Ok(text(hex_string(&d)))
}

pub(super) fn f_sha<const N: u16>(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
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

pub(super) fn f_chr(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
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

pub(super) fn f_ascii(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    Ok(Value::Int4(
        txt(&a[0])?.chars().next().map(|c| c as i32).unwrap_or(0),
    ))
}

pub(super) fn f_to_hex(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    Ok(text(match &a[0] {
        Value::Int8(v) => format!("{:x}", *v as u64),
        v => format!("{:x}", int(v)? as i32 as u32),
    }))
}

pub(super) fn f_quote_ident(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    Ok(text(quote_ident(txt(&a[0])?)))
}

pub(super) fn f_quote_literal(a: &[Value], ctx: &FormatCtx) -> PgResult<Value> {
    Ok(text(quote_literal(&any_to_text(&a[0], ctx))))
}

pub(super) fn f_quote_nullable(a: &[Value], ctx: &FormatCtx) -> PgResult<Value> {
    if a[0].is_null() {
        return Ok(text("NULL"));
    }
    f_quote_literal(a, ctx)
}

pub(super) fn f_translate(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
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

pub(super) fn f_overlay(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
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

pub(super) fn f_encode(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
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

pub(super) fn f_decode(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
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

pub(super) fn f_convert_from(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    use crate::encoding::{convert, Enc};
    let src = encoding_arg(&a[1], "source")?;
    let out = convert(bytes(&a[0])?, src, Enc::UTF8)?;
    // The result of a conversion to UTF8 is UTF-8; SQL_ASCII input was checked as UTF-8.
    String::from_utf8(out)
        .map(text)
        .map_err(|e| crate::encoding::invalid_utf8(e.as_bytes(), e.utf8_error().valid_up_to()))
}

pub(super) fn f_convert_to(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    use crate::encoding::{convert, Enc};
    let dst = encoding_arg(&a[1], "destination")?;
    Ok(Value::Bytea(convert(
        txt(&a[0])?.as_bytes(),
        Enc::UTF8,
        dst,
    )?))
}

/// length(bytea, name): characters in an encoding.
pub(super) fn f_length_in_encoding(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
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

pub(super) fn f_convert(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    let src = encoding_arg(&a[1], "source")?;
    let dst = encoding_arg(&a[2], "destination")?;
    Ok(Value::Bytea(crate::encoding::convert(
        bytes(&a[0])?,
        src,
        dst,
    )?))
}

pub(super) fn f_concat(a: &[Value], ctx: &FormatCtx) -> PgResult<Value> {
    let mut s = String::new();
    for v in a {
        if !v.is_null() {
            s.push_str(&io::to_text(v, io::value_type(v), ctx));
        }
    }
    Ok(text(s))
}

pub(super) fn f_concat_ws(a: &[Value], ctx: &FormatCtx) -> PgResult<Value> {
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
