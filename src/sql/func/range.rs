//! Range functions: the constructors (`int4range(1, 5)`, `numrange(1, 5, '(]')`, and those of
//! CREATE TYPE ... AS RANGE), lower / upper, isempty, lower_inc / upper_inc, lower_inf /
//! upper_inf and range_merge. They are polymorphic over every range type, so the planner binds
//! them itself (`plan/range.rs`) rather than through the signature table; a constructor gets
//! its range type as a last constant argument, which canonicalization needs.

use crate::error::{code, PgError, PgResult};
use crate::sql::types::range::{self, Bound, Range, LB_INC, LB_INF, UB_INC, UB_INF};
use crate::sql::types::{FormatCtx, Type, Value};

fn range_of(v: &Value) -> PgResult<&Range> {
    match v {
        Value::Range(r) => Ok(r),
        _ => Err(PgError::internal(format!("not a range: {v:?}"))),
    }
}

fn arg(args: &[Value]) -> PgResult<&Range> {
    range_of(args.first().unwrap_or(&Value::Null))
}

pub fn f_lower(args: &[Value], _: &FormatCtx) -> PgResult<Value> {
    let r = arg(args)?;
    Ok(if r.has_lower() {
        r.lower.clone()
    } else {
        Value::Null
    })
}

pub fn f_upper(args: &[Value], _: &FormatCtx) -> PgResult<Value> {
    let r = arg(args)?;
    Ok(if r.has_upper() {
        r.upper.clone()
    } else {
        Value::Null
    })
}

pub fn f_isempty(args: &[Value], _: &FormatCtx) -> PgResult<Value> {
    Ok(Value::Bool(arg(args)?.is_empty()))
}

pub fn f_lower_inc(args: &[Value], _: &FormatCtx) -> PgResult<Value> {
    Ok(Value::Bool(arg(args)?.flags & LB_INC != 0))
}

pub fn f_upper_inc(args: &[Value], _: &FormatCtx) -> PgResult<Value> {
    Ok(Value::Bool(arg(args)?.flags & UB_INC != 0))
}

pub fn f_lower_inf(args: &[Value], _: &FormatCtx) -> PgResult<Value> {
    Ok(Value::Bool(arg(args)?.flags & LB_INF != 0))
}

pub fn f_upper_inf(args: &[Value], _: &FormatCtx) -> PgResult<Value> {
    Ok(Value::Bool(arg(args)?.flags & UB_INF != 0))
}

pub fn f_range_merge(args: &[Value], _: &FormatCtx) -> PgResult<Value> {
    let b = range_of(args.get(1).unwrap_or(&Value::Null))?;
    range::union(arg(args)?, b, false).map(|r| Value::Range(Box::new(r)))
}

/// PostgreSQL's range_parse_flags: `[]`, `[)`, `(]` or `()`.
fn parse_flags(s: &str) -> PgResult<(bool, bool)> {
    let bad = || {
        PgError::new(code::SYNTAX_ERROR, "invalid range bound flags")
            .with_hint("Valid values are \"[]\", \"[)\", \"(]\", and \"()\".")
    };
    let b = s.as_bytes();
    if b.len() != 2 {
        return Err(bad());
    }
    let lower = match b[0] {
        b'[' => true,
        b'(' => false,
        _ => return Err(bad()),
    };
    let upper = match b[1] {
        b']' => true,
        b')' => false,
        _ => return Err(bad()),
    };
    Ok((lower, upper))
}

/// A range constructor: (lower, upper[, flags], the range type's OID). Not strict: a NULL
/// bound is an infinite one; NULL flags are an error.
pub fn f_range_ctor(args: &[Value], _: &FormatCtx) -> PgResult<Value> {
    let (ty, bounds) = match args.split_last() {
        Some((Value::Oid(t), rest)) => (Type(*t), rest),
        _ => return Err(PgError::internal("range constructor without its type")),
    };
    let (lower_inc, upper_inc) = match bounds.get(2) {
        None => (true, false),
        Some(Value::Null) => {
            return Err(PgError::new(
                code::DATA_EXCEPTION,
                "range constructor flags argument must not be null",
            ))
        }
        Some(Value::Text(s)) => parse_flags(s)?,
        Some(v) => return Err(PgError::internal(format!("range flags {v:?}"))),
    };
    let lower = bounds.first().cloned().unwrap_or(Value::Null);
    let upper = bounds.get(1).cloned().unwrap_or(Value::Null);
    let r = range::make(
        Bound::lower(lower, lower_inc),
        Bound::upper(upper, upper_inc),
        false,
        Some(ty),
    )?;
    Ok(Value::Range(Box::new(r)))
}

/// The functions of a range's bounds and emptiness that [`accessor`] knows (multiranges have
/// the same, over their span).
pub const ACCESSORS: [&str; 7] = [
    "lower",
    "upper",
    "isempty",
    "lower_inc",
    "upper_inc",
    "lower_inf",
    "upper_inf",
];

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

/// The name of range function `f` (EXPLAIN prints calls by it); None for a constructor (named
/// as its type) or another function.
pub fn name_of(f: super::ScalarFn) -> Option<&'static str> {
    if std::ptr::fn_addr_eq(f, f_range_merge as super::ScalarFn) {
        return Some("range_merge");
    }
    ACCESSORS
        .into_iter()
        .find(|n| accessor(n).is_some_and(|(g, _)| std::ptr::fn_addr_eq(f, g)))
}
