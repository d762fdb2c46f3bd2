//! Multirange functions: the constructors (`int4multirange()`, `int4multirange(r, ...)`, and
//! the one CREATE TYPE ... AS RANGE makes), `multirange(range)`, range_merge(multirange) and
//! the accessors lower / upper, isempty, lower_inc / upper_inc, lower_inf / upper_inf. As the
//! range functions, they are polymorphic and bound by the planner (`plan/range.rs`).
//!
//! The accessors answer for the multirange's span (its first lower and last upper bound),
//! which is what PostgreSQL's multirange_lower ... read; the empty multirange has NULL bounds
//! and false flags, as the empty range.

use super::range;
use crate::error::{code, PgError, PgResult};
use crate::sql::types::multirange;
use crate::sql::types::{FormatCtx, Range, Value};

fn span(args: &[Value]) -> PgResult<Value> {
    match args.first() {
        Some(Value::Multirange(m)) => Ok(Value::Range(Box::new(m.span()?))),
        v => Err(PgError::internal(format!("not a multirange: {v:?}"))),
    }
}

/// An accessor of a multirange: the range accessor over its span.
macro_rules! over_span {
    ($name:ident, $f:path) => {
        pub fn $name(args: &[Value], fmt: &FormatCtx) -> PgResult<Value> {
            $f(&[span(args)?], fmt)
        }
    };
}

over_span!(f_lower, range::f_lower);
over_span!(f_upper, range::f_upper);
over_span!(f_lower_inc, range::f_lower_inc);
over_span!(f_upper_inc, range::f_upper_inc);
over_span!(f_lower_inf, range::f_lower_inf);
over_span!(f_upper_inf, range::f_upper_inf);

pub fn f_isempty(args: &[Value], _: &FormatCtx) -> PgResult<Value> {
    match args.first() {
        Some(Value::Multirange(m)) => Ok(Value::Bool(m.is_empty())),
        v => Err(PgError::internal(format!("not a multirange: {v:?}"))),
    }
}

/// range_merge(multirange): the smallest range holding it.
pub fn f_range_merge(args: &[Value], _: &FormatCtx) -> PgResult<Value> {
    span(args)
}

/// A constructor's arguments as ranges: none may be NULL (a strict one-argument call never
/// gets here with NULL).
fn ranges(args: &[Value]) -> PgResult<Vec<Range>> {
    args.iter()
        .map(|v| match v {
            Value::Range(r) => Ok((**r).clone()),
            Value::Null => Err(PgError::new(
                code::NULL_VALUE_NOT_ALLOWED,
                "multirange values cannot contain null members",
            )),
            v => Err(PgError::internal(format!("not a range: {v:?}"))),
        })
        .collect()
}

/// The arguments of a constructor before its last, the multirange type's OID (which only
/// EXPLAIN reads, to name the call).
fn without_type(args: &[Value]) -> &[Value] {
    match args.split_last() {
        Some((Value::Oid(_), rest)) => rest,
        _ => args,
    }
}

/// A multirange constructor over any number of ranges (`multirange(r)` too).
pub fn f_multirange_ctor(args: &[Value], _: &FormatCtx) -> PgResult<Value> {
    let rs = ranges(without_type(args))?;
    Ok(Value::Multirange(Box::new(multirange::make(rs)?)))
}

/// A variadic constructor called with an array of ranges (`int4multirange(VARIADIC a)`).
pub fn f_multirange_ctor_array(args: &[Value], fmt: &FormatCtx) -> PgResult<Value> {
    match without_type(args).first() {
        Some(Value::Array(a)) if a.dims.len() > 1 => Err(PgError::new(
            code::CARDINALITY_VIOLATION,
            "multiranges cannot be constructed from multidimensional arrays",
        )),
        Some(Value::Array(a)) => f_multirange_ctor(&a.items, fmt),
        Some(Value::Null) => Ok(Value::Null),
        v => Err(PgError::internal(format!("not an array: {v:?}"))),
    }
}

/// The accessor functions by name: (function, result is the subtype (else boolean)).
pub fn accessor(name: &str) -> Option<(super::ScalarFn, bool)> {
    Some(match name {
        "lower" => (f_lower as super::ScalarFn, true),
        "upper" => (f_upper, true),
        "isempty" => (f_isempty, false),
        "lower_inc" => (f_lower_inc, false),
        "upper_inc" => (f_upper_inc, false),
        "lower_inf" => (f_lower_inf, false),
        "upper_inf" => (f_upper_inf, false),
        _ => return None,
    })
}

/// The name of multirange function `f` (EXPLAIN prints calls by it); None for a constructor
/// (named as its type) or another function.
pub fn name_of(f: super::ScalarFn) -> Option<&'static str> {
    if std::ptr::fn_addr_eq(f, f_range_merge as super::ScalarFn) {
        return Some("range_merge");
    }
    super::range::ACCESSORS
        .into_iter()
        .find(|n| accessor(n).is_some_and(|(g, _)| std::ptr::fn_addr_eq(f, g)))
}
