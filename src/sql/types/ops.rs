//! Operators: the candidate signatures for each operator name (as in pg_operator), their
//! implementations, and the total order used for sorting and comparisons.
//!
//! The planner resolves an operator call PostgreSQL-style over [`binary_operators`] /
//! [`unary_operators`], casts the arguments to the chosen signature, and calls `f` with non-NULL
//! values (every operator here is strict). The functions are lenient about the exact variant
//! (an `int2` where `int4` is declared is fine), so resolution without every cast still works.
//!
//! This file holds the signature types and the operand readers every family shares; the
//! operators are in `ops/` by family:
//! - `tables.rs`: the operator tables (name → signatures → function), [`binary_operators`],
//!   [`unary_operators`], [`find_binary`], [`is_equality`];
//! - `order.rs`: the total order of values ([`compare_values`]) and the comparison operators;
//! - `arith.rs`: arithmetic over integers, floats, numeric and intervals, unary operators, power;
//! - `text.rs`: `||`, LIKE / ILIKE, regular expressions, `^@`;
//! - `datetime.rs`: date, time and timestamp arithmetic operators;
//! - `inet.rs`: inet / cidr containment and overlap;
//! - `geo.rs`: the operators of point, lseg and box;
//! - `array.rs`: array concatenation, containment and overlap;
//! - `json.rs`: json / jsonb access, containment, existence, concatenation and deletion;
//! - `range.rs`: the range operators (over `anyrange`, bound by the planner);
//! - `cmath.rs`: the C library's math functions (`ops::cmath`), shared with the function library;
//! - `tests.rs`: unit tests.

use super::{FormatCtx, Interval, Numeric, Type, Value};
use crate::error::{PgError, PgResult};

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

/// One row of an operator table (`tables.rs`, `range.rs`): left and right operand types,
/// result type, function. Defined before the submodules so that each of them sees it.
macro_rules! b {
    ($l:ident, $r:ident, $res:ident, $f:expr) => {
        BinOp {
            left: Type::$l,
            right: Type::$r,
            result: Type::$res,
            f: $f,
        }
    };
}

mod arith;
mod array;
pub mod cmath;
mod datetime;
mod geo;
mod inet;
mod json;
mod lsn;
mod order;
mod range;
mod tables;
#[cfg(test)]
mod tests;
mod text;

pub use arith::{f8_cbrt, f8_pow, f8_sqrt};
pub use array::{array_append, array_cat, array_prepend};
pub use geo::hypot;
use order::{as_f64, as_numeric};
pub use order::{cmp_f64, compare_values};
pub use range::{range_op_name, range_operators};
pub use tables::{binary_operators, find_binary, is_equality, unary_operators};
pub use text::{compile_regex, like, like_escape};

// ---------------------------------------------------------------------------------------------
// Operation codes and operand readers, shared by the families
// ---------------------------------------------------------------------------------------------

const ADD: u8 = 0;
const SUB: u8 = 1;
const MUL: u8 = 2;
const DIV: u8 = 3;
const MOD: u8 = 4;
const AND: u8 = 5;
const OR: u8 = 6;
const XOR: u8 = 7;
const SHL: u8 = 8;
const SHR: u8 = 9;

const EQ: u8 = 0;
const NE: u8 = 1;
const LT: u8 = 2;
const LE: u8 = 3;
const GT: u8 = 4;
const GE: u8 = 5;

fn mismatch(a: &Value) -> PgError {
    PgError::internal(format!("unexpected operand {a:?}"))
}

fn int_of(v: &Value) -> PgResult<i128> {
    v.as_i64().map(|i| i as i128).ok_or_else(|| mismatch(v))
}

fn f64_of(v: &Value) -> PgResult<f64> {
    as_f64(v).ok_or_else(|| mismatch(v))
}

fn num_of(v: &Value) -> PgResult<Numeric> {
    as_numeric(v).ok_or_else(|| mismatch(v))
}

fn text_of(v: &Value) -> PgResult<&str> {
    v.as_str().ok_or_else(|| mismatch(v))
}

fn iv_of(v: &Value) -> PgResult<Interval> {
    match v {
        Value::Interval(i) => Ok(*i),
        Value::Time(t) => Ok(Interval {
            months: 0,
            days: 0,
            micros: *t,
        }),
        _ => Err(mismatch(v)),
    }
}
