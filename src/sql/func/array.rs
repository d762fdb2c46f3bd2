//! Array functions (PostgreSQL's arrayfuncs.c, array_userfuncs.c): array_length / lower /
//! upper / ndims / dims, cardinality, array_position(s), array_append / prepend / cat / remove /
//! replace, trim_array, and string_to_array / array_to_string.

use super::args::{arr, i4, int, invalid_param, text, txt};
use crate::error::{code, PgError, PgResult};
use crate::sql::types::{io, ops, Array, FormatCtx, Type, Value};

pub(super) fn f_string_to_array(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    let s = match &a[0] {
        Value::Null => return Ok(Value::Null),
        v => txt(v)?,
    };
    let null_str = match a.get(2) {
        Some(Value::Text(n)) => Some(n.as_str()),
        _ => None,
    };
    let conv = |p: &str| -> Value {
        if Some(p) == null_str {
            Value::Null
        } else {
            text(p)
        }
    };
    if s.is_empty() {
        return Ok(Value::Array(Box::new(Array::one_dim(Type::TEXT, vec![]))));
    }
    let items: Vec<Value> = match &a[1] {
        Value::Null => s.chars().map(|c| conv(&c.to_string())).collect(),
        v => {
            let d = txt(v)?;
            if d.is_empty() {
                vec![conv(s)]
            } else {
                s.split(d).map(conv).collect()
            }
        }
    };
    Ok(Value::Array(Box::new(Array::one_dim(Type::TEXT, items))))
}

pub(super) fn f_array_to_string(a: &[Value], ctx: &FormatCtx) -> PgResult<Value> {
    let ar = arr(&a[0])?;
    let d = txt(&a[1])?;
    let null_str = match a.get(2) {
        Some(Value::Text(n)) => Some(n.as_str()),
        _ => None,
    };
    let mut parts = Vec::with_capacity(ar.items.len());
    for v in &ar.items {
        if v.is_null() {
            if let Some(n) = null_str {
                parts.push(n.to_string());
            }
        } else {
            parts.push(io::to_text(v, ar.elem, ctx));
        }
    }
    Ok(text(parts.join(d)))
}

fn dim_index(a: &[Value]) -> PgResult<Option<usize>> {
    let d = int(&a[1])?;
    let ar = arr(&a[0])?;
    if d < 1 || d as usize > ar.dims.len() || ar.items.is_empty() {
        return Ok(None);
    }
    Ok(Some(d as usize - 1))
}

pub(super) fn f_array_length(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    Ok(match dim_index(a)? {
        Some(i) => Value::Int4(arr(&a[0])?.dims[i].0),
        None => Value::Null,
    })
}

pub(super) fn f_array_lower(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    Ok(match dim_index(a)? {
        Some(i) => Value::Int4(arr(&a[0])?.dims[i].1),
        None => Value::Null,
    })
}

pub(super) fn f_array_upper(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    Ok(match dim_index(a)? {
        Some(i) => {
            let (len, lb) = arr(&a[0])?.dims[i];
            Value::Int4(lb + len - 1)
        }
        None => Value::Null,
    })
}

pub(super) fn f_cardinality(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    i4(arr(&a[0])?.items.len() as i64)
}

pub(super) fn f_array_ndims(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    let ar = arr(&a[0])?;
    if ar.items.is_empty() {
        return Ok(Value::Null);
    }
    Ok(Value::Int4(ar.dims.len() as i32))
}

pub(super) fn f_array_dims(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    let ar = arr(&a[0])?;
    if ar.items.is_empty() {
        return Ok(Value::Null);
    }
    let mut s = String::new();
    for (len, lb) in &ar.dims {
        s.push_str(&format!("[{}:{}]", lb, lb + len - 1));
    }
    Ok(text(s))
}

fn not_distinct(x: &Value, y: &Value) -> bool {
    match (x.is_null(), y.is_null()) {
        (true, true) => true,
        (false, false) => ops::compare_values(x, y) == std::cmp::Ordering::Equal,
        _ => false,
    }
}

fn one_dim_check(ar: &Array) -> PgResult<()> {
    if ar.dims.len() > 1 {
        return Err(PgError::feature_not_supported(
            "searching for elements in multidimensional arrays is not supported",
        ));
    }
    Ok(())
}

pub(super) fn f_array_position(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    let ar = match &a[0] {
        Value::Null => return Ok(Value::Null),
        v => arr(v)?,
    };
    one_dim_check(ar)?;
    let lb = ar.dims.first().map(|d| d.1).unwrap_or(1);
    let start = match a.get(2) {
        Some(Value::Null) => return Err(invalid_param("initial position must not be null")),
        Some(v) => (int(v)? - lb as i64).max(0) as usize,
        None => 0,
    };
    for (i, v) in ar.items.iter().enumerate().skip(start) {
        if not_distinct(v, &a[1]) {
            return Ok(Value::Int4(i as i32 + lb));
        }
    }
    Ok(Value::Null)
}

pub(super) fn f_array_positions(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    let ar = match &a[0] {
        Value::Null => return Ok(Value::Null),
        v => arr(v)?,
    };
    one_dim_check(ar)?;
    let lb = ar.dims.first().map(|d| d.1).unwrap_or(1);
    let items: Vec<Value> = ar
        .items
        .iter()
        .enumerate()
        .filter(|(_, v)| not_distinct(v, &a[1]))
        .map(|(i, _)| Value::Int4(i as i32 + lb))
        .collect();
    Ok(Value::Array(Box::new(Array::one_dim(Type::INT4, items))))
}

fn elem_type_of(v: &Value) -> Type {
    io::value_type(v)
}

pub(super) fn f_array_append(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    let base = match &a[0] {
        Value::Null => Array::one_dim(elem_type_of(&a[1]), vec![]),
        v => arr(v)?.clone(),
    };
    Ok(Value::Array(Box::new(ops::array_append(
        &base,
        a[1].clone(),
    )?)))
}

pub(super) fn f_array_prepend(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    let base = match &a[1] {
        Value::Null => Array::one_dim(elem_type_of(&a[0]), vec![]),
        v => arr(v)?.clone(),
    };
    Ok(Value::Array(Box::new(ops::array_prepend(
        a[0].clone(),
        &base,
    )?)))
}

pub(super) fn f_array_cat(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    match (&a[0], &a[1]) {
        (Value::Null, Value::Null) => Ok(Value::Null),
        (Value::Null, v) | (v, Value::Null) => Ok(v.clone()),
        (x, y) => Ok(Value::Array(Box::new(ops::array_cat(arr(x)?, arr(y)?)?))),
    }
}

pub(super) fn f_array_remove(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    let ar = match &a[0] {
        Value::Null => return Ok(Value::Null),
        v => arr(v)?,
    };
    if ar.dims.len() > 1 {
        return Err(PgError::feature_not_supported(
            "removing elements from multidimensional arrays is not supported",
        ));
    }
    let items: Vec<Value> = ar
        .items
        .iter()
        .filter(|v| !not_distinct(v, &a[1]))
        .cloned()
        .collect();
    let lb = ar.dims.first().map(|d| d.1).unwrap_or(1);
    let mut r = Array::one_dim(ar.elem, items);
    if let Some(d) = r.dims.first_mut() {
        d.1 = lb;
    }
    Ok(Value::Array(Box::new(r)))
}

pub(super) fn f_array_replace(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    let ar = match &a[0] {
        Value::Null => return Ok(Value::Null),
        v => arr(v)?,
    };
    let mut r = ar.clone();
    for v in r.items.iter_mut() {
        if not_distinct(v, &a[1]) {
            *v = a[2].clone();
        }
    }
    Ok(Value::Array(Box::new(r)))
}

pub(super) fn f_trim_array(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    let ar = arr(&a[0])?;
    let n = int(&a[1])?;
    let len = ar.dims.first().map(|d| d.0 as i64).unwrap_or(0);
    if n < 0 || n > len {
        return Err(PgError::new(
            code::ARRAY_SUBSCRIPT_ERROR,
            format!("number of elements to trim must be between 0 and {len}"),
        ));
    }
    let inner: usize = ar.dims.iter().skip(1).map(|d| d.0 as usize).product();
    let keep = (len - n) as usize;
    let mut r = ar.clone();
    r.items.truncate(keep * inner.max(1));
    if keep == 0 {
        r.dims.clear();
    } else {
        r.dims[0].0 = keep as i32;
    }
    Ok(Value::Array(Box::new(r)))
}

pub(super) fn f_array_to_string_ns(a: &[Value], ctx: &FormatCtx) -> PgResult<Value> {
    if a[0].is_null() || a[1].is_null() {
        return Ok(Value::Null);
    }
    f_array_to_string(a, ctx)
}
