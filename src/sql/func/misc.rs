//! Functions of no other family (PostgreSQL's misc.c, format_type.c, uuid.c): to_regtype,
//! num_nulls / num_nonnulls, gen_random_uuid, format_type, text(x) for any x, and
//! pg_is_in_recovery() (always false).

use super::args::{any_to_text, int, text, txt};
use crate::error::PgResult;
use crate::sql::types::{cast, io, FormatCtx, Type, Value};

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
