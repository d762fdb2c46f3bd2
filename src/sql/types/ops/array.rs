//! Array operators: `||` (array with array, element with array, array with element, as
//! PostgreSQL's array_cat / array_append / array_prepend with their dimension rules), and
//! containment and overlap (`@>`, `<@`, `&&`), which compare elements by `compare_values`.

use super::mismatch;
use super::order::compare_values;
use crate::error::{code, PgError, PgResult};
use crate::sql::types::{Array, FormatCtx, Value};
use std::cmp::Ordering;

// ----- arrays -----

pub(super) fn arr_of(v: &Value) -> PgResult<&Array> {
    match v {
        Value::Array(a) => Ok(a),
        _ => Err(mismatch(v)),
    }
}

/// array || array, array || element, element || array (PostgreSQL's array_cat /
/// array_append / array_prepend).
pub(super) fn array_concat(a: &Value, b: &Value, _: &FormatCtx) -> PgResult<Value> {
    match (a, b) {
        (Value::Array(x), Value::Array(y)) => array_cat(x, y).map(|r| Value::Array(Box::new(r))),
        (Value::Array(x), e) => Ok(Value::Array(Box::new(array_append(x, e.clone())?))),
        (e, Value::Array(y)) => Ok(Value::Array(Box::new(array_prepend(e.clone(), y)?))),
        (Value::Null, Value::Null) => Ok(Value::Null),
        _ => Err(mismatch(a)),
    }
}

pub fn array_append(a: &Array, e: Value) -> PgResult<Array> {
    if a.dims.len() > 1 {
        return Err(PgError::new(
            code::DATA_EXCEPTION,
            "argument must be empty or one-dimensional array",
        ));
    }
    let mut r = a.clone();
    r.items.push(e);
    if r.dims.is_empty() {
        r.dims = vec![(1, 1)];
    } else {
        r.dims[0].0 += 1;
    }
    Ok(r)
}

pub fn array_prepend(e: Value, a: &Array) -> PgResult<Array> {
    if a.dims.len() > 1 {
        return Err(PgError::new(
            code::DATA_EXCEPTION,
            "argument must be empty or one-dimensional array",
        ));
    }
    let mut r = a.clone();
    r.items.insert(0, e);
    if r.dims.is_empty() {
        r.dims = vec![(1, 1)];
    } else {
        r.dims[0].0 += 1;
    }
    Ok(r)
}

pub fn array_cat(x: &Array, y: &Array) -> PgResult<Array> {
    if x.items.is_empty() {
        return Ok(Array {
            elem: if y.items.is_empty() { x.elem } else { y.elem },
            ..y.clone()
        });
    }
    if y.items.is_empty() {
        return Ok(x.clone());
    }
    let (nx, ny) = (x.dims.len(), y.dims.len());
    let incompatible = || {
        PgError::new(
            code::ARRAY_SUBSCRIPT_ERROR,
            "cannot concatenate incompatible arrays",
        )
    };
    if nx == ny {
        if x.dims[1..]
            .iter()
            .map(|d| d.0)
            .ne(y.dims[1..].iter().map(|d| d.0))
        {
            return Err(incompatible().with_detail(
                "Arrays with differing element dimensions are not compatible for concatenation.",
            ));
        }
        let mut r = x.clone();
        r.dims[0].0 += y.dims[0].0;
        r.items.extend(y.items.iter().cloned());
        return Ok(r);
    }
    if nx == ny + 1 {
        if x.dims[1..]
            .iter()
            .map(|d| d.0)
            .ne(y.dims.iter().map(|d| d.0))
        {
            return Err(incompatible().with_detail(
                "Arrays with differing dimensions are not compatible for concatenation.",
            ));
        }
        let mut r = x.clone();
        r.dims[0].0 += 1;
        r.items.extend(y.items.iter().cloned());
        return Ok(r);
    }
    if ny == nx + 1 {
        if y.dims[1..]
            .iter()
            .map(|d| d.0)
            .ne(x.dims.iter().map(|d| d.0))
        {
            return Err(incompatible().with_detail(
                "Arrays with differing dimensions are not compatible for concatenation.",
            ));
        }
        let mut r = y.clone();
        r.dims[0].0 += 1;
        let mut items = x.items.clone();
        items.extend(y.items.iter().cloned());
        r.items = items;
        return Ok(r);
    }
    Err(incompatible().with_detail(format!(
        "Arrays of {nx} and {ny} dimensions are not compatible for concatenation."
    )))
}

fn array_contains(a: &Array, b: &Array) -> bool {
    b.items.iter().all(|x| {
        !x.is_null()
            && a.items
                .iter()
                .any(|y| !y.is_null() && compare_values(x, y) == Ordering::Equal)
    })
}

pub(super) fn array_contains_op(a: &Value, b: &Value, _: &FormatCtx) -> PgResult<Value> {
    Ok(Value::Bool(array_contains(arr_of(a)?, arr_of(b)?)))
}

pub(super) fn array_contained_op(a: &Value, b: &Value, _: &FormatCtx) -> PgResult<Value> {
    Ok(Value::Bool(array_contains(arr_of(b)?, arr_of(a)?)))
}

pub(super) fn array_overlap_op(a: &Value, b: &Value, _: &FormatCtx) -> PgResult<Value> {
    let (x, y) = (arr_of(a)?, arr_of(b)?);
    Ok(Value::Bool(x.items.iter().any(|p| {
        !p.is_null()
            && y.items
                .iter()
                .any(|q| !q.is_null() && compare_values(p, q) == Ordering::Equal)
    })))
}
