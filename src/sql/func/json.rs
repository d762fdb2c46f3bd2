//! JSON functions (PostgreSQL's json.c, jsonb.c, jsonfuncs.c): to_json / to_jsonb,
//! json[b]_build_object, json[b]_build_array, json[b]_typeof, json[b]_array_length,
//! jsonb_pretty, json[b]_extract_path[_text] and jsonb_strip_nulls. jsonb_set and jsonb_insert
//! are in `jsonb_set.rs`.

use super::args::{any_to_text, i4, invalid_param, text, txt};
use crate::error::{code, PgError, PgResult};
use crate::sql::types::json;
use crate::sql::types::{io, FormatCtx, Type, Value};

/// to_json / to_jsonb. T is the declared argument type (JSON, JSONB, TEXT or ANYELEMENT).
pub(super) fn f_to_json<const JB: bool, const T: u32>(
    a: &[Value],
    ctx: &FormatCtx,
) -> PgResult<Value> {
    let ty = if Type(T) == Type::ANYELEMENT {
        io::value_type(&a[0])
    } else {
        Type(T)
    };
    let mut s = String::new();
    json::value_to_json(&a[0], ty, ctx, JB, &mut s);
    if JB {
        s = json::jsonb_in(&s)?;
    }
    Ok(text(s))
}

pub(super) fn f_json_build_object<const JB: bool>(a: &[Value], ctx: &FormatCtx) -> PgResult<Value> {
    build_object::<JB>(a, None, ctx)
}

pub(super) fn f_json_build_array<const JB: bool>(a: &[Value], ctx: &FormatCtx) -> PgResult<Value> {
    build_array::<JB>(a, None, ctx)
}

/// json[b]_build_object / json[b]_build_array as the planner binds them when an argument's
/// type is not told by its value (json and jsonb are text values, a whole row is a record
/// already converted to JSON): the last argument is the arguments' type OIDs.
pub fn f_json_build_typed<const JB: bool, const OBJECT: bool>(
    a: &[Value],
    ctx: &FormatCtx,
) -> PgResult<Value> {
    let Some((Value::Array(types), args)) = a.split_last() else {
        return Err(PgError::internal(
            "json build call without its argument types",
        ));
    };
    let types: Vec<Type> = types
        .items
        .iter()
        .map(|t| match t {
            Value::Oid(o) => Type(*o),
            _ => Type::UNKNOWN,
        })
        .collect();
    if OBJECT {
        build_object::<JB>(args, Some(&types), ctx)
    } else {
        build_array::<JB>(args, Some(&types), ctx)
    }
}

/// The type a value is converted by: the planner's where it told it, else the value's own.
fn arg_type(v: &Value, types: Option<&[Type]>, i: usize) -> Type {
    match types.and_then(|t| t.get(i)) {
        Some(&t) if t != Type::UNKNOWN => t,
        _ => io::value_type(v),
    }
}

fn build_object<const JB: bool>(
    a: &[Value],
    types: Option<&[Type]>,
    ctx: &FormatCtx,
) -> PgResult<Value> {
    if !a.len().is_multiple_of(2) {
        return Err(
            invalid_param("argument list must have even number of elements").with_hint(if JB {
                "The arguments of jsonb_build_object() must consist of alternating keys and values."
            } else {
                "The arguments of json_build_object() must consist of alternating keys and values."
            }),
        );
    }
    let mut s = String::from("{");
    for (i, pair) in a.chunks(2).enumerate() {
        if pair[0].is_null() {
            return Err(PgError::new(
                code::NULL_VALUE_NOT_ALLOWED,
                format!("argument {} cannot be null", i * 2 + 1),
            )
            .with_hint("Object keys should be text."));
        }
        let kt = arg_type(&pair[0], types, i * 2);
        if kt == Type::JSON
            || kt == Type::JSONB
            || kt == Type::RECORD
            || kt.is_array()
            || kt.is_composite()
        {
            return Err(invalid_param(
                "key value must be scalar, not array, composite, or json",
            ));
        }
        if i > 0 {
            s.push_str(", ");
        }
        json::write_string(&any_to_text(&pair[0], ctx), &mut s);
        s.push_str(" : ");
        json::value_to_json(
            &pair[1],
            arg_type(&pair[1], types, i * 2 + 1),
            ctx,
            JB,
            &mut s,
        );
    }
    s.push('}');
    if JB {
        s = json::jsonb_in(&s)?;
    }
    Ok(text(s))
}

fn build_array<const JB: bool>(
    a: &[Value],
    types: Option<&[Type]>,
    ctx: &FormatCtx,
) -> PgResult<Value> {
    let mut s = String::from("[");
    for (i, v) in a.iter().enumerate() {
        if i > 0 {
            s.push_str(", ");
        }
        json::value_to_json(v, arg_type(v, types, i), ctx, JB, &mut s);
    }
    s.push(']');
    if JB {
        s = json::jsonb_in(&s)?;
    }
    Ok(text(s))
}

pub(super) fn f_json_typeof<const JB: bool>(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    let n = json::parse(txt(&a[0])?, JB)?;
    Ok(text(json::type_name(&n.v)))
}

pub(super) fn f_json_array_length<const JB: bool>(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    let n = json::parse(txt(&a[0])?, JB)?;
    match &n.v {
        json::Json::Array(items) => i4(items.len() as i64),
        json::Json::Object(_) => Err(invalid_param("cannot get array length of a non-array")),
        _ => Err(invalid_param("cannot get array length of a scalar")),
    }
}

pub(super) fn f_jsonb_pretty(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    let n = json::parse(txt(&a[0])?, true)?;
    let mut s = String::new();
    json::write_pretty(&n.v, 0, &mut s);
    Ok(text(s))
}

pub(super) fn f_json_extract_path<const JB: bool, const AS_TEXT: bool>(
    a: &[Value],
    _: &FormatCtx,
) -> PgResult<Value> {
    if a[0].is_null() || a[1..].iter().any(Value::is_null) {
        return Ok(Value::Null);
    }
    let src = txt(&a[0])?;
    let n = json::parse(src, JB)?;
    Ok(match json::get_path(&n, &a[1..]) {
        None => Value::Null,
        Some(m) => {
            if AS_TEXT {
                json::node_as_text(src, m, JB)
            } else {
                text(json::node_text(src, m, JB))
            }
        }
    })
}

fn strip_nulls(v: json::Json) -> json::Json {
    match v {
        json::Json::Object(f) => json::Json::Object(
            f.into_iter()
                .filter(|(_, n)| n.v != json::Json::Null)
                .map(|(k, n)| {
                    (
                        k,
                        json::Node {
                            v: strip_nulls(n.v),
                            span: n.span,
                        },
                    )
                })
                .collect(),
        ),
        json::Json::Array(items) => json::Json::Array(
            items
                .into_iter()
                .map(|n| json::Node {
                    v: strip_nulls(n.v),
                    span: n.span,
                })
                .collect(),
        ),
        other => other,
    }
}

pub(super) fn f_jsonb_strip_nulls(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    let n = json::parse(txt(&a[0])?, true)?;
    let mut s = String::new();
    json::write_jsonb(&strip_nulls(n.v), &mut s);
    Ok(text(s))
}
