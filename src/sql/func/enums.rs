//! The enum support functions (PostgreSQL's enum.c). enum_first, enum_last and enum_range of
//! one argument depend only on the argument's type: the planner passes that type's OID as
//! their argument instead of the value. enum_range of two arguments gets the type as a third.

use crate::catalog::types::{enum_labels, label};
use crate::error::{code, PgError, PgResult};
use crate::sql::types::{Array, FormatCtx, Type, Value};

/// The labels of enum `ty`, as values, in sort order.
pub fn labels(ty: Type) -> Vec<Value> {
    enum_labels(ty.0)
        .unwrap_or_default()
        .iter()
        .map(|l| Value::Enum(l.oid))
        .collect()
}

fn type_arg(a: &[Value], i: usize) -> PgResult<Type> {
    match a.get(i) {
        Some(Value::Oid(t)) => Ok(Type(*t)),
        _ => Err(PgError::internal("an enum function without its type")),
    }
}

fn no_values(ty: Type) -> PgError {
    PgError::new(
        code::OBJECT_NOT_IN_PREREQUISITE_STATE,
        format!("enum {} contains no values", ty.name()),
    )
}

/// enum_first(type OID): the first label (55000 for an enum without labels).
pub fn f_enum_first(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    let ty = type_arg(a, 0)?;
    labels(ty).into_iter().next().ok_or_else(|| no_values(ty))
}

/// enum_last(type OID): the last label.
pub fn f_enum_last(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    let ty = type_arg(a, 0)?;
    labels(ty).pop().ok_or_else(|| no_values(ty))
}

/// enum_range(type OID): every label in sort order.
pub fn f_enum_range(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    let ty = type_arg(a, 0)?;
    Ok(Value::Array(Box::new(Array::one_dim(ty, labels(ty)))))
}

/// enum_range(lower, upper, type OID): the labels from `lower` to `upper` inclusive in sort
/// order; a NULL bound is open.
pub fn f_enum_range2(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    let ty = type_arg(a, 2)?;
    let sort = |v: &Value| match v {
        Value::Enum(o) => label(*o).map(|l| l.1),
        _ => None,
    };
    let (lo, hi) = (sort(&a[0]), sort(&a[1]));
    let items = enum_labels(ty.0)
        .unwrap_or_default()
        .iter()
        .filter(|l| lo.is_none_or(|s| l.sort >= s) && hi.is_none_or(|s| l.sort <= s))
        .map(|l| Value::Enum(l.oid))
        .collect();
    Ok(Value::Array(Box::new(Array::one_dim(ty, items))))
}
