//! jsonb_set, jsonb_insert and assignment through a jsonb subscript (`SET j['a'][0] = v`): a
//! copy of a jsonb document with one value put at a path, as PostgreSQL's setPath
//! (jsonfuncs.c) does it. The work is bounded by the size of the input document and of the
//! path, and by the gap a subscript asks to fill with nulls (at most
//! [`MAX_ARRAY_ITEMS`](crate::sql::types::subscript::MAX_ARRAY_ITEMS) elements).

use crate::error::{code, PgError, PgResult};
use crate::sql::types::{json, FormatCtx, Value};

/// What to do at the path's last step.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Op {
    /// jsonb_set with create_missing false: replace only.
    Replace,
    /// jsonb_set: replace, or add a missing object key / array element at the end.
    Create,
    /// jsonb_insert: add before (or after) the array element; a new key only.
    Insert { after: bool },
    /// A subscript assignment: replace or add, creating the objects and arrays of a missing
    /// path and filling an array's gap with nulls; a scalar on the path is an error, and so is
    /// a negative index before the array's start.
    Assign,
}

fn invalid(msg: &str) -> PgError {
    PgError::new(code::INVALID_PARAMETER_VALUE, msg)
}

/// The path's text elements (NULL elements as None).
fn path_of(v: &Value) -> PgResult<Vec<Option<String>>> {
    match v {
        Value::Array(a) => Ok(a
            .items
            .iter()
            .map(|x| x.as_str().map(str::to_string))
            .collect()),
        _ => Err(PgError::internal("jsonb path is not an array")),
    }
}

fn set_path(
    node: &mut json::Node,
    path: &[Option<String>],
    level: usize,
    new: &json::Node,
    op: Op,
) -> PgResult<()> {
    let Some(step) = path.get(level) else {
        return Ok(());
    };
    let Some(step) = step else {
        return Err(PgError::new(
            code::NULL_VALUE_NOT_ALLOWED,
            format!("path element at position {} is null", level + 1),
        ));
    };
    let last = level + 1 == path.len();
    match &mut node.v {
        json::Json::Object(fields) => {
            if let Some((_, child)) = fields.iter_mut().find(|(k, _)| k == step) {
                if !last {
                    return set_path(child, path, level + 1, new, op);
                }
                if let Op::Insert { .. } = op {
                    return Err(invalid("cannot replace existing key")
                        .with_hint("Try using the function jsonb_set to replace key value."));
                }
                *child = new.clone();
            } else if last && op != Op::Replace {
                fields.push((step.clone(), new.clone()));
            } else if op == Op::Assign {
                fields.push((step.clone(), chain(&path[level + 1..], new)?));
            }
            Ok(())
        }
        json::Json::Array(items) => {
            // As strtol reads it: leading blanks, a sign, digits, nothing after.
            let idx: i64 = match step.trim_start().parse::<i32>() {
                Ok(i) => i64::from(i),
                Err(_) => {
                    return Err(PgError::new(
                        code::INVALID_TEXT_REPRESENTATION,
                        format!(
                            "path element at position {} is not an integer: \"{}\"",
                            level + 1,
                            step
                        ),
                    ))
                }
            };
            let n = items.len() as i64;
            if op == Op::Assign {
                let idx = if idx < 0 { n + idx } else { idx };
                if idx < 0 {
                    return Err(invalid(&format!(
                        "path element at position {} is out of range: {}",
                        level + 1,
                        idx - n
                    )));
                }
                if idx < n {
                    if last {
                        items[idx as usize] = new.clone();
                        return Ok(());
                    }
                    return set_path(&mut items[idx as usize], path, level + 1, new, op);
                }
                fill_nulls(items, idx)?;
                items.push(chain(&path[level + 1..], new)?);
                return Ok(());
            }
            // A negative index counts from the end; one before the start means "prepend".
            let idx = if idx < 0 {
                if -idx > n {
                    -1
                } else {
                    n + idx
                }
            } else {
                idx.min(n)
            };
            if !last {
                if (0..n).contains(&idx) {
                    return set_path(&mut items[idx as usize], path, level + 1, new, op);
                }
                return Ok(());
            }
            match op {
                Op::Replace => {
                    if (0..n).contains(&idx) {
                        items[idx as usize] = new.clone();
                    }
                }
                Op::Create | Op::Assign => {
                    if idx < 0 || n == 0 {
                        items.insert(0, new.clone());
                    } else if idx == n {
                        items.push(new.clone());
                    } else {
                        items[idx as usize] = new.clone();
                    }
                }
                Op::Insert { after } => {
                    let at = if idx < 0 || n == 0 {
                        0
                    } else if idx == n || !after {
                        idx
                    } else {
                        idx + 1
                    };
                    items.insert(at as usize, new.clone());
                }
            }
            Ok(())
        }
        _ if op == Op::Assign => Err(scalar_on_path()),
        _ => Ok(()),
    }
}

fn scalar_on_path() -> PgError {
    invalid("cannot replace existing key")
        .with_detail("The path assumes key is a composite object, but it is a scalar value.")
}

/// Pads `items` with nulls up to index `upto` (exclusive), within the array bound.
fn fill_nulls(items: &mut Vec<json::Node>, upto: i64) -> PgResult<()> {
    if upto >= crate::sql::types::subscript::MAX_ARRAY_ITEMS {
        return Err(crate::sql::types::subscript::too_large());
    }
    items.resize(upto as usize, node(json::Json::Null));
    Ok(())
}

fn node(v: json::Json) -> json::Node {
    json::Node { v, span: (0, 0) }
}

/// The value a missing `path` leads to: an array (its element at the step's index, nulls
/// before it) for a step that reads as an integer, else an object with the step as its key.
fn chain(path: &[Option<String>], new: &json::Node) -> PgResult<json::Node> {
    crate::stack::check()?;
    let Some(step) = path.first() else {
        return Ok(new.clone());
    };
    let step = step.as_deref().unwrap_or("");
    let inner = chain(&path[1..], new)?;
    Ok(match step.trim_start().parse::<i32>() {
        Ok(i) => {
            let mut items = Vec::new();
            fill_nulls(&mut items, i64::from(i.max(0)))?;
            items.push(inner);
            node(json::Json::Array(items))
        }
        Err(_) => node(json::Json::Object(vec![(step.to_string(), inner)])),
    })
}

/// `source[path...] = new` (a jsonb subscript assignment): `source` NULL starts from an empty
/// array when the first step is an integer subscript (`expect_array`), else an empty object;
/// `new` NULL is the JSON null.
pub fn assign(source: &Value, path: &[String], expect_array: bool, new: &Value) -> PgResult<Value> {
    let mut root = match source.as_str() {
        Some(s) => json::parse(s, true)?,
        None if expect_array => node(json::Json::Array(Vec::new())),
        None => node(json::Json::Object(Vec::new())),
    };
    if !matches!(root.v, json::Json::Object(_) | json::Json::Array(_)) {
        return Err(scalar_on_path());
    }
    let new = match new.as_str() {
        Some(s) => json::parse(s, true)?,
        None => node(json::Json::Null),
    };
    let path: Vec<Option<String>> = path.iter().cloned().map(Some).collect();
    set_path(&mut root, &path, 0, &new, Op::Assign)?;
    let v = json::normalize(root.v)?;
    let mut s = String::new();
    json::write_jsonb(&v, &mut s);
    Ok(Value::Text(s))
}

fn apply(a: &[Value], op: Op) -> PgResult<Value> {
    let src = a[0].as_str().unwrap_or("");
    let mut root = json::parse(src, true)?;
    if !matches!(root.v, json::Json::Object(_) | json::Json::Array(_)) {
        return Err(invalid("cannot set path in scalar"));
    }
    let path = path_of(&a[1])?;
    if path.is_empty() {
        return Ok(a[0].clone());
    }
    let new = json::parse(a[2].as_str().unwrap_or(""), true)?;
    set_path(&mut root, &path, 0, &new, op)?;
    // New keys go where jsonb's canonical order puts them.
    let v = json::normalize(root.v)?;
    let mut s = String::new();
    json::write_jsonb(&v, &mut s);
    Ok(Value::Text(s))
}

/// jsonb_set(target, path, new_value [, create_missing = true]).
pub(super) fn f_jsonb_set(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    let create = a
        .get(3)
        .map(|v| matches!(v, Value::Bool(true)))
        .unwrap_or(true);
    apply(a, if create { Op::Create } else { Op::Replace })
}

/// jsonb_insert(target, path, new_value [, insert_after = false]).
pub(super) fn f_jsonb_insert(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    let after = matches!(a.get(3), Some(Value::Bool(true)));
    apply(a, Op::Insert { after })
}
