//! Evaluation of subscripted values ([`SubRef`]): the container and the subscripts are
//! evaluated, then the element, slice or jsonb member is read, or the container comes back
//! with it replaced (`sql::types::subscript` for arrays, `func::jsonb_set` for jsonb).
//!
//! NULLs as PostgreSQL treats them: reading with a NULL container or subscript is NULL;
//! assigning with a NULL subscript is an error (22004), and a NULL container is taken as an
//! empty one (an empty array, or an empty jsonb object / array).

use crate::error::{code, PgError, PgResult};
use crate::sql::plan::{SubKind, SubRef};
use crate::sql::types::{json, subscript, Array, Value};

use super::eval::EvalCx;

/// A subscript's value: None for an omitted slice bound; `Err(())` for NULL.
type Bound = Result<Option<i32>, ()>;

fn bound(e: &Option<crate::sql::plan::Expr>, row: &[Value], cx: &mut EvalCx) -> PgResult<Bound> {
    let Some(e) = e else {
        return Ok(Ok(None));
    };
    Ok(match e.eval(row, cx)? {
        Value::Null => Err(()),
        v => Ok(Some(v.as_i64().unwrap_or(0) as i32)),
    })
}

fn null_in_assignment(what: &str) -> PgError {
    PgError::new(
        code::NULL_VALUE_NOT_ALLOWED,
        format!("{what} subscript in assignment must not be null"),
    )
}

pub(super) fn eval(s: &SubRef, row: &[Value], cx: &mut EvalCx) -> PgResult<Value> {
    let base = s.base.eval(row, cx)?;
    if s.assign.is_none() && base.is_null() {
        return Ok(Value::Null);
    }
    match s.kind {
        SubKind::Element | SubKind::Slice => array(s, base, row, cx),
        SubKind::Jsonb { expect_array } => jsonb(s, base, expect_array, row, cx),
        SubKind::Fixed => fixed(s, base, row, cx),
        SubKind::NameChar => {
            let i = bound(&s.subs[0].1, row, cx)?;
            Ok(match (base, i) {
                // A name's bytes from 0; those past its end are NUL ("char" '').
                (Value::Text(t), Ok(Some(i))) if (0..64).contains(&i) => {
                    match t.as_bytes().get(i as usize) {
                        Some(&b) if b.is_ascii() => Value::Text(char::from(b).to_string()),
                        Some(&b) => Value::Text(format!("\\{b:03o}")),
                        None => Value::Text(String::new()),
                    }
                }
                _ => Value::Null,
            })
        }
    }
}

fn array(s: &SubRef, base: Value, row: &[Value], cx: &mut EvalCx) -> PgResult<Value> {
    let mut lower = Vec::with_capacity(s.subs.len());
    let mut upper = Vec::with_capacity(s.subs.len());
    for (l, u) in &s.subs {
        match (bound(l, row, cx)?, bound(u, row, cx)?) {
            (Ok(l), Ok(u)) => {
                lower.push(l);
                upper.push(u);
            }
            _ if s.assign.is_some() => return Err(null_in_assignment("array")),
            _ => return Ok(Value::Null),
        }
    }
    let Some(assign) = &s.assign else {
        let Value::Array(a) = base else {
            return Ok(Value::Null);
        };
        return Ok(match s.kind {
            SubKind::Slice => Value::Array(Box::new(subscript::slice(&a, &lower, &upper))),
            _ => {
                let idx: Vec<i32> = upper.iter().map(|u| u.unwrap_or(0)).collect();
                subscript::element(&a, &idx)
            }
        });
    };
    let new = assign.eval(row, cx)?;
    let a = match base {
        Value::Array(a) => *a,
        _ => Array {
            elem: s.elem,
            dims: Vec::new(),
            items: Vec::new(),
        },
    };
    Ok(match s.kind {
        SubKind::Slice => match new {
            // Assigning NULL to a slice leaves the array as it was.
            Value::Array(src) => {
                Value::Array(Box::new(subscript::set_slice(a, &lower, &upper, &src)?))
            }
            _ => Value::Array(Box::new(a)),
        },
        _ => {
            let idx: Vec<i32> = upper.iter().map(|u| u.unwrap_or(0)).collect();
            Value::Array(Box::new(subscript::set_element(a, &idx, new)?))
        }
    })
}

fn jsonb(
    s: &SubRef,
    base: Value,
    expect_array: bool,
    row: &[Value],
    cx: &mut EvalCx,
) -> PgResult<Value> {
    let mut path = Vec::with_capacity(s.subs.len());
    for (_, u) in &s.subs {
        let v = match u {
            Some(e) => e.eval(row, cx)?,
            None => Value::Null,
        };
        match v {
            Value::Null if s.assign.is_some() => return Err(null_in_assignment("jsonb")),
            Value::Null => return Ok(Value::Null),
            Value::Text(t) => path.push(t),
            other => path.push(other.as_i64().unwrap_or(0).to_string()),
        }
    }
    if let Some(assign) = &s.assign {
        let new = assign.eval(row, cx)?;
        return crate::sql::func::jsonb_set::assign(&base, &path, expect_array, &new);
    }
    let Some(text) = base.as_str() else {
        return Ok(Value::Null);
    };
    let root = json::parse(text, true)?;
    let path: Vec<Value> = path.into_iter().map(Value::Text).collect();
    Ok(match json::get_path(&root, &path) {
        Some(n) => {
            let mut out = String::new();
            json::write_jsonb(&n.v, &mut out);
            Value::Text(out)
        }
        None => Value::Null,
    })
}

/// An element of a fixed-length array (a point's float8 coordinates, a box's or lseg's
/// points, in their binary layout), or the value with one replaced. As in PostgreSQL, an
/// assignment with a NULL value or into a NULL container leaves it as it was.
fn fixed(s: &SubRef, base: Value, row: &[Value], cx: &mut EvalCx) -> PgResult<Value> {
    let mut idx = Vec::with_capacity(s.subs.len());
    for (_, u) in &s.subs {
        match bound(u, row, cx)? {
            Ok(i) => idx.push(i.unwrap_or(0)),
            Err(()) if s.assign.is_some() => return Err(null_in_assignment("array")),
            Err(()) => return Ok(Value::Null),
        }
    }
    // A float8 is 8 bytes, a point 16.
    let size = if s.elem == crate::sql::types::Type::FLOAT8 {
        8
    } else {
        16
    };
    let Value::Bytea(bytes) = base else {
        return Ok(Value::Null);
    };
    let n = bytes.len() / size;
    let at = match idx.as_slice() {
        [i] if (0..n as i64).contains(&i64::from(*i)) => Some(*i as usize * size),
        _ => None,
    };
    let Some(assign) = &s.assign else {
        let Some(at) = at else {
            return Ok(Value::Null);
        };
        let part = &bytes[at..at + size];
        return Ok(if size == 8 {
            Value::Float8(f64::from_be_bytes(part.try_into().expect("8 bytes")))
        } else {
            Value::Bytea(part.to_vec())
        });
    };
    let new = assign.eval(row, cx)?;
    if idx.len() != 1 {
        return Err(PgError::new(
            code::ARRAY_SUBSCRIPT_ERROR,
            "wrong number of array subscripts",
        ));
    }
    let Some(at) = at else {
        return Err(PgError::new(
            code::ARRAY_SUBSCRIPT_ERROR,
            "array subscript out of range",
        ));
    };
    let mut bytes = bytes;
    match new {
        Value::Float8(f) if size == 8 => bytes[at..at + 8].copy_from_slice(&f.to_be_bytes()),
        Value::Bytea(p) if p.len() == size => bytes[at..at + size].copy_from_slice(&p),
        _ => {}
    }
    Ok(Value::Bytea(bytes))
}
