//! Functions of no other family (PostgreSQL's misc.c, format_type.c, uuid.c): to_regtype,
//! num_nulls / num_nonnulls, gen_random_uuid, format_type, text(x) for any x, and
//! pg_is_in_recovery() (always false), pg_size_bytes.

use super::args::{any_to_text, int, text, txt};
use crate::error::{code, PgError, PgResult};
use crate::sql::types::{cast, io, FormatCtx, Numeric, Type, Value};

pub(super) fn f_to_regtype(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    Ok(match io::parse_regtype(txt(&a[0])?) {
        Ok(t) => Value::Oid(t.0),
        Err(_) => Value::Null,
    })
}

pub(super) fn f_num_nulls(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    Ok(Value::Int4(a.iter().filter(|v| v.is_null()).count() as i32))
}

pub(super) fn f_num_nonnulls(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    Ok(Value::Int4(a.iter().filter(|v| !v.is_null()).count() as i32))
}

pub(super) fn f_gen_random_uuid(_: &[Value], _: &FormatCtx) -> PgResult<Value> {
    let mut b: [u8; 16] = rand::random();
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    Ok(Value::Uuid(b))
}

pub(super) fn f_false(_: &[Value], _: &FormatCtx) -> PgResult<Value> {
    Ok(Value::Bool(false))
}

pub(super) fn f_bool_cast_text(a: &[Value], ctx: &FormatCtx) -> PgResult<Value> {
    // text(x): the explicit cast to text for any type.
    Ok(text(any_to_text(&a[0], ctx)))
}

pub(super) fn f_format_type(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    let oid = match &a[0] {
        Value::Null => return Ok(Value::Null),
        v => int(v)? as u32,
    };
    let typmod = match a.get(1) {
        Some(Value::Null) | None => -1,
        Some(v) => int(v)? as i32,
    };
    let t = Type(oid);
    if t.name().starts_with("type ") {
        return Ok(text("???"));
    }
    Ok(text(cast::format_type_with_typmod(t, typmod)))
}

/// pg_size_bytes: a size as pg_size_pretty prints it (`1.5 GB`, `-10e-1 MB`, `123bytes`) in
/// bytes. The number is what numeric input reads; an `e` that no digits follow is part of the
/// unit (which is matched case-insensitively), as PostgreSQL 15 reads it.
pub(super) fn f_pg_size_bytes(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    let s = txt(&a[0])?;
    let invalid = || {
        PgError::new(
            code::INVALID_PARAMETER_VALUE,
            format!("invalid size: \"{s}\""),
        )
    };
    let is_space = |c: char| matches!(c, ' ' | '\t' | '\n' | '\x0b' | '\x0c' | '\r');
    let t = s.trim_start_matches(is_space);
    let b = t.as_bytes();
    let digits_from = |mut i: usize| {
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        i
    };
    let mut end = usize::from(matches!(b.first(), Some(b'-' | b'+')));
    let mut have_digits = false;
    let after = digits_from(end);
    have_digits |= after > end;
    end = after;
    if b.get(end) == Some(&b'.') {
        let after = digits_from(end + 1);
        have_digits |= after > end + 1;
        end = after;
    }
    if !have_digits {
        return Err(invalid());
    }
    if matches!(b.get(end), Some(b'e' | b'E')) {
        // strtol's reading: optional white space and sign, then at least one digit.
        let mut i = end + 1;
        while i < b.len() && is_space(b[i] as char) {
            i += 1;
        }
        if matches!(b.get(i), Some(b'-' | b'+')) {
            i += 1;
        }
        let after = digits_from(i);
        if after > i {
            end = after;
        }
    }
    let mut num = Numeric::parse(&t[..end])?;
    let unit = t[end..].trim_matches(is_space);
    if !unit.is_empty() {
        let units = [
            ("bytes", 0),
            ("kB", 10),
            ("MB", 20),
            ("GB", 30),
            ("TB", 40),
            ("PB", 50),
        ];
        let Some(&(_, bits)) = units.iter().find(|(u, _)| u.eq_ignore_ascii_case(unit)) else {
            return Err(invalid()
                .with_detail(format!("Invalid size unit: \"{unit}\"."))
                .with_hint(
                    "Valid units are \"bytes\", \"kB\", \"MB\", \"GB\", \"TB\", and \"PB\".",
                ));
        };
        if bits > 0 {
            num = num.mul(&Numeric::from_i64(1i64 << bits))?;
        }
    }
    let n = num
        .round(0)
        .to_int_checked("bigint", i64::MIN as i128, i64::MAX as i128)?;
    Ok(Value::Int8(n as i64))
}
