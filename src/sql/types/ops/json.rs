//! json / jsonb operators: field and element access (`->`, `->>`), path access (`#>`, `#>>`),
//! containment (`@>`, `<@`), key existence (`?`, `?|`, `?&`), concatenation (`||`) and
//! deletion (`-`), over `types::json`'s parsed documents.

use super::array::arr_of;
use super::text_of;
use crate::error::{code, PgError, PgResult};
use crate::sql::types::{json, FormatCtx, Value};

// ----- json / jsonb -----

fn json_text_value(s: String, jb: bool) -> Value {
    let _ = jb;
    Value::Text(s)
}

/// `->` (AS_TEXT = false) and `->>` for json (JB = false) and jsonb.
pub(super) fn json_get<const JB: bool, const AS_TEXT: bool>(
    a: &Value,
    b: &Value,
    _: &FormatCtx,
) -> PgResult<Value> {
    let src = text_of(a)?;
    let n = json::parse(src, JB)?;
    // A jsonb scalar behaves as a one-element array for integer subscripts.
    if JB
        && !matches!(n.v, json::Json::Array(_) | json::Json::Object(_))
        && matches!(b.as_i64(), Some(0) | Some(-1))
    {
        return Ok(if AS_TEXT {
            json::node_as_text(src, &n, JB)
        } else {
            Value::Text(json::node_text(src, &n, JB))
        });
    }
    Ok(match json::get(&n, b) {
        None => Value::Null,
        Some(m) => {
            if AS_TEXT {
                json::node_as_text(src, m, JB)
            } else {
                json_text_value(json::node_text(src, m, JB), JB)
            }
        }
    })
}

/// `#>` and `#>>`.
pub(super) fn json_get_path<const JB: bool, const AS_TEXT: bool>(
    a: &Value,
    b: &Value,
    _: &FormatCtx,
) -> PgResult<Value> {
    let src = text_of(a)?;
    let n = json::parse(src, JB)?;
    let path = arr_of(b)?;
    Ok(match json::get_path(&n, &path.items) {
        None => Value::Null,
        Some(m) => {
            if AS_TEXT {
                json::node_as_text(src, m, JB)
            } else {
                Value::Text(json::node_text(src, m, JB))
            }
        }
    })
}

pub(super) fn jsonb_contains_op<const REV: bool>(
    a: &Value,
    b: &Value,
    _: &FormatCtx,
) -> PgResult<Value> {
    let x = json::parse(text_of(a)?, true)?;
    let y = json::parse(text_of(b)?, true)?;
    Ok(Value::Bool(if REV {
        json::contains(&y.v, &x.v)
    } else {
        json::contains(&x.v, &y.v)
    }))
}

fn jsonb_has_key(n: &json::Node, k: &str) -> bool {
    match &n.v {
        json::Json::Object(f) => f.iter().any(|(fk, _)| fk == k),
        json::Json::Array(items) => items
            .iter()
            .any(|i| matches!(&i.v, json::Json::String(s) if s == k)),
        json::Json::String(s) => s == k,
        _ => false,
    }
}

/// `?` (K = 0), `?|` (K = 1), `?&` (K = 2).
pub(super) fn jsonb_exists<const K: u8>(a: &Value, b: &Value, _: &FormatCtx) -> PgResult<Value> {
    let n = json::parse(text_of(a)?, true)?;
    Ok(Value::Bool(match K {
        0 => jsonb_has_key(&n, text_of(b)?),
        1 => arr_of(b)?
            .items
            .iter()
            .any(|k| k.as_str().is_some_and(|k| jsonb_has_key(&n, k))),
        _ => arr_of(b)?
            .items
            .iter()
            .all(|k| k.as_str().is_some_and(|k| jsonb_has_key(&n, k))),
    }))
}

fn jsonb_out(v: json::Json) -> PgResult<Value> {
    let mut s = String::new();
    json::write_jsonb(&json::normalize(v)?, &mut s);
    Ok(Value::Text(s))
}

/// jsonb || jsonb: objects merge (right wins), arrays concatenate, scalars become arrays.
pub(super) fn jsonb_concat(a: &Value, b: &Value, _: &FormatCtx) -> PgResult<Value> {
    use json::{Json, Node};
    let x = json::parse(text_of(a)?, true)?;
    let y = json::parse(text_of(b)?, true)?;
    let as_items = |n: Node| -> Vec<Node> {
        match n.v {
            Json::Array(items) => items,
            other => vec![Node {
                v: other,
                span: (0, 0),
            }],
        }
    };
    let r = match (x.v, y.v) {
        (Json::Object(mut f1), Json::Object(f2)) => {
            f1.extend(f2);
            Json::Object(f1)
        }
        (xv, yv) => {
            let mut items = as_items(Node {
                v: xv,
                span: (0, 0),
            });
            items.extend(as_items(Node {
                v: yv,
                span: (0, 0),
            }));
            Json::Array(items)
        }
    };
    jsonb_out(r)
}

/// jsonb - text / jsonb - int / jsonb - text[].
pub(super) fn jsonb_delete(a: &Value, b: &Value, _: &FormatCtx) -> PgResult<Value> {
    use json::Json;
    let x = json::parse(text_of(a)?, true)?;
    let r = match (x.v, b) {
        (Json::Object(f), Value::Text(k)) => {
            Json::Object(f.into_iter().filter(|(fk, _)| fk != k).collect())
        }
        (Json::Object(f), Value::Array(keys)) => Json::Object(
            f.into_iter()
                .filter(|(fk, _)| !keys.items.iter().any(|k| k.as_str() == Some(fk)))
                .collect(),
        ),
        (Json::Array(items), Value::Text(k)) => Json::Array(
            items
                .into_iter()
                .filter(|i| !matches!(&i.v, Json::String(s) if s == k))
                .collect(),
        ),
        (Json::Array(mut items), k) if k.as_i64().is_some() => {
            let i = k.as_i64().unwrap();
            let idx = if i < 0 { items.len() as i64 + i } else { i };
            if idx >= 0 && (idx as usize) < items.len() {
                items.remove(idx as usize);
            }
            Json::Array(items)
        }
        (Json::Object(_), _) => {
            return Err(PgError::new(
                code::INVALID_PARAMETER_VALUE,
                "cannot delete from object using integer index",
            ))
        }
        _ => {
            return Err(PgError::new(
                code::INVALID_PARAMETER_VALUE,
                "cannot delete from scalar",
            ))
        }
    };
    jsonb_out(r)
}
