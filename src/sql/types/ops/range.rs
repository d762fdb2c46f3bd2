//! The range operators (`=` ... `>=`, `@>`, `<@`, `&&`, `<<`, `>>`, `&<`, `&>`, `-|-`, `+`,
//! `*`, `-`) over any range type: their signatures name `anyrange` (and `anyelement` for the
//! element forms of `@>` and `<@`), which `plan/range.rs` binds to the operands' range type
//! and its subtype; the work is done by `types/range.rs`.

// The comparisons are the generic ones (`compare_values` orders ranges as `range::cmp`), so
// that index paths, merge and hash joins know them as the comparisons they are.
use super::order::cmp_op as cmp;
use super::{mismatch, BinOp, EQ, GE, GT, LE, LT, NE};
use crate::error::PgResult;
use crate::sql::types::range::{self, Range};
use crate::sql::types::{FormatCtx, Type, Value};

fn range_of(v: &Value) -> PgResult<&Range> {
    match v {
        Value::Range(r) => Ok(r),
        _ => Err(mismatch(v)),
    }
}

/// A boolean operator over two ranges.
macro_rules! pred {
    ($name:ident, $f:expr) => {
        fn $name(a: &Value, b: &Value, _: &FormatCtx) -> PgResult<Value> {
            let f: fn(&Range, &Range) -> bool = $f;
            Ok(Value::Bool(f(range_of(a)?, range_of(b)?)))
        }
    };
}

pred!(contains, range::contains);
pred!(contained, |a, b| range::contains(b, a));
pred!(overlaps, range::overlaps);
pred!(before, range::before);
pred!(after, |a, b| range::before(b, a));
pred!(overleft, range::overleft);
pred!(overright, range::overright);
pred!(adjacent, range::adjacent);

fn contains_elem(a: &Value, b: &Value, _: &FormatCtx) -> PgResult<Value> {
    Ok(Value::Bool(range::contains_elem(range_of(a)?, b)))
}

fn elem_contained(a: &Value, b: &Value, _: &FormatCtx) -> PgResult<Value> {
    Ok(Value::Bool(range::contains_elem(range_of(b)?, a)))
}

fn boxed(r: Range) -> Value {
    Value::Range(Box::new(r))
}

fn union(a: &Value, b: &Value, _: &FormatCtx) -> PgResult<Value> {
    range::union(range_of(a)?, range_of(b)?, true).map(boxed)
}

fn intersect(a: &Value, b: &Value, _: &FormatCtx) -> PgResult<Value> {
    range::intersect(range_of(a)?, range_of(b)?).map(boxed)
}

fn minus(a: &Value, b: &Value, _: &FormatCtx) -> PgResult<Value> {
    range::minus(range_of(a)?, range_of(b)?).map(boxed)
}

static EQ_OPS: &[BinOp] = &[b!(ANYRANGE, ANYRANGE, BOOL, cmp::<EQ>)];
static NE_OPS: &[BinOp] = &[b!(ANYRANGE, ANYRANGE, BOOL, cmp::<NE>)];
static LT_OPS: &[BinOp] = &[b!(ANYRANGE, ANYRANGE, BOOL, cmp::<LT>)];
static LE_OPS: &[BinOp] = &[b!(ANYRANGE, ANYRANGE, BOOL, cmp::<LE>)];
static GT_OPS: &[BinOp] = &[b!(ANYRANGE, ANYRANGE, BOOL, cmp::<GT>)];
static GE_OPS: &[BinOp] = &[b!(ANYRANGE, ANYRANGE, BOOL, cmp::<GE>)];
static CONTAINS: &[BinOp] = &[
    b!(ANYRANGE, ANYRANGE, BOOL, contains),
    b!(ANYRANGE, ANYELEMENT, BOOL, contains_elem),
];
static CONTAINED: &[BinOp] = &[
    b!(ANYRANGE, ANYRANGE, BOOL, contained),
    b!(ANYELEMENT, ANYRANGE, BOOL, elem_contained),
];
static OVERLAPS: &[BinOp] = &[b!(ANYRANGE, ANYRANGE, BOOL, overlaps)];
static BEFORE: &[BinOp] = &[b!(ANYRANGE, ANYRANGE, BOOL, before)];
static AFTER: &[BinOp] = &[b!(ANYRANGE, ANYRANGE, BOOL, after)];
static OVERLEFT: &[BinOp] = &[b!(ANYRANGE, ANYRANGE, BOOL, overleft)];
static OVERRIGHT: &[BinOp] = &[b!(ANYRANGE, ANYRANGE, BOOL, overright)];
static ADJACENT: &[BinOp] = &[b!(ANYRANGE, ANYRANGE, BOOL, adjacent)];
static UNION: &[BinOp] = &[b!(ANYRANGE, ANYRANGE, ANYRANGE, union)];
static INTERSECT: &[BinOp] = &[b!(ANYRANGE, ANYRANGE, ANYRANGE, intersect)];
static MINUS: &[BinOp] = &[b!(ANYRANGE, ANYRANGE, ANYRANGE, minus)];

/// The range operators named `name` (empty when there are none).
pub fn range_operators(name: &str) -> &'static [BinOp] {
    match name {
        "=" => EQ_OPS,
        "<>" => NE_OPS,
        "<" => LT_OPS,
        "<=" => LE_OPS,
        ">" => GT_OPS,
        ">=" => GE_OPS,
        "@>" => CONTAINS,
        "<@" => CONTAINED,
        "&&" => OVERLAPS,
        "<<" => BEFORE,
        ">>" => AFTER,
        "&<" => OVERLEFT,
        "&>" => OVERRIGHT,
        "-|-" => ADJACENT,
        "+" => UNION,
        "*" => INTERSECT,
        "-" => MINUS,
        _ => &[],
    }
}

/// The operator name of a range operator function (EXPLAIN prints calls by it).
pub fn range_op_name(f: super::BinFn) -> Option<&'static str> {
    const NAMES: &[&str] = &[
        "=", "<>", "<", "<=", ">", ">=", "@>", "<@", "&&", "<<", ">>", "&<", "&>", "-|-", "+", "*",
        "-",
    ];
    NAMES.iter().copied().find(|n| {
        range_operators(n)
            .iter()
            .any(|o| std::ptr::fn_addr_eq(o.f, f))
    })
}
