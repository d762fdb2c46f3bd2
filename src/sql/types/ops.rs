//! Operators (stub, being completed).
use super::{FormatCtx, Type, Value};
use crate::error::{PgError, PgResult};
use std::cmp::Ordering;

pub type BinFn = fn(&Value, &Value, &FormatCtx) -> PgResult<Value>;
pub type UnFn = fn(&Value, &FormatCtx) -> PgResult<Value>;

pub struct BinOp {
    pub left: Type,
    pub right: Type,
    pub result: Type,
    pub f: BinFn,
}

pub struct UnOp {
    pub arg: Type,
    pub result: Type,
    pub f: UnFn,
}

pub fn compare_values(a: &Value, b: &Value) -> Ordering {
    match (a, b) {
        (Value::Bool(x), Value::Bool(y)) => x.cmp(y),
        (Value::Float8(x), Value::Float8(y)) => x.partial_cmp(y).unwrap_or(Ordering::Equal),
        (Value::Text(x), Value::Text(y)) => x.as_bytes().cmp(y.as_bytes()),
        (Value::Numeric(x), Value::Numeric(y)) => x.cmp(y),
        _ => match (a.as_i64(), b.as_i64()) {
            (Some(x), Some(y)) => x.cmp(&y),
            _ => Ordering::Equal,
        },
    }
}

fn i4_add(a: &Value, b: &Value, _: &FormatCtx) -> PgResult<Value> {
    match (a, b) {
        (Value::Int4(x), Value::Int4(y)) => x
            .checked_add(*y)
            .map(Value::Int4)
            .ok_or_else(|| PgError::out_of_range("integer")),
        _ => Ok(Value::Null),
    }
}

fn eq(a: &Value, b: &Value, _: &FormatCtx) -> PgResult<Value> {
    Ok(Value::Bool(compare_values(a, b) == Ordering::Equal))
}

static PLUS: &[BinOp] = &[BinOp {
    left: Type::INT4,
    right: Type::INT4,
    result: Type::INT4,
    f: i4_add,
}];
static EQ: &[BinOp] = &[
    BinOp {
        left: Type::INT4,
        right: Type::INT4,
        result: Type::BOOL,
        f: eq,
    },
    BinOp {
        left: Type::TEXT,
        right: Type::TEXT,
        result: Type::BOOL,
        f: eq,
    },
];

pub fn binary_operators(name: &str) -> &'static [BinOp] {
    match name {
        "+" => PLUS,
        "=" => EQ,
        _ => &[],
    }
}

pub fn unary_operators(_name: &str) -> &'static [UnOp] {
    &[]
}
