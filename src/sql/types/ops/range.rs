//! The range and multirange operators (`=` ... `>=`, `@>`, `<@`, `&&`, `<<`, `>>`, `&<`, `&>`,
//! `-|-`, `+`, `*`, `-`) over any range type: their signatures name `anyrange`,
//! `anymultirange` (and `anyelement` for the element forms of `@>` and `<@`), which
//! `plan/range.rs` binds to the operands' range type, its multirange type and its subtype;
//! the work is done by `types/range.rs` and `types/multirange.rs`.
//!
//! The boolean operators that mix a range with a multirange take the range as the multirange
//! of it alone (`multirange::single`), so one function serves the three forms of each.

// The comparisons are the generic ones (`compare_values` orders ranges as `range::cmp`), so
// that index paths, merge and hash joins know them as the comparisons they are.
use super::order::cmp_op as cmp;
use super::{mismatch, BinOp, EQ, GE, GT, LE, LT, NE};
use crate::error::PgResult;
use crate::sql::types::multirange::{self, Multirange};
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

/// A range or multirange operand as the ranges of a multirange.
fn ranges_of(v: &Value) -> PgResult<&[Range]> {
    match v {
        Value::Range(r) => Ok(multirange::single(r)),
        Value::Multirange(m) => Ok(&m.ranges),
        _ => Err(mismatch(v)),
    }
}

/// A boolean operator over two operands, each a range or a multirange.
macro_rules! mpred {
    ($name:ident, $f:expr) => {
        fn $name(a: &Value, b: &Value, _: &FormatCtx) -> PgResult<Value> {
            let f: fn(&[Range], &[Range]) -> bool = $f;
            Ok(Value::Bool(f(ranges_of(a)?, ranges_of(b)?)))
        }
    };
}

mpred!(m_contains, multirange::contains);
mpred!(m_contained, |a, b| multirange::contains(b, a));
mpred!(m_overlaps, multirange::overlaps);
mpred!(m_before, multirange::before);
mpred!(m_after, |a, b| multirange::before(b, a));
mpred!(m_overleft, multirange::overleft);
mpred!(m_overright, multirange::overright);
mpred!(m_adjacent, multirange::adjacent);

fn m_contains_elem(a: &Value, b: &Value, _: &FormatCtx) -> PgResult<Value> {
    Ok(Value::Bool(multirange::contains_elem(ranges_of(a)?, b)))
}

fn m_elem_contained(a: &Value, b: &Value, _: &FormatCtx) -> PgResult<Value> {
    Ok(Value::Bool(multirange::contains_elem(ranges_of(b)?, a)))
}

fn mboxed(m: Multirange) -> Value {
    Value::Multirange(Box::new(m))
}

fn m_union(a: &Value, b: &Value, _: &FormatCtx) -> PgResult<Value> {
    multirange::union(ranges_of(a)?, ranges_of(b)?).map(mboxed)
}

fn m_intersect(a: &Value, b: &Value, _: &FormatCtx) -> PgResult<Value> {
    multirange::intersect(ranges_of(a)?, ranges_of(b)?).map(mboxed)
}

fn m_minus(a: &Value, b: &Value, _: &FormatCtx) -> PgResult<Value> {
    multirange::minus(ranges_of(a)?, ranges_of(b)?).map(mboxed)
}

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

static EQ_OPS: &[BinOp] = &[
    b!(ANYRANGE, ANYRANGE, BOOL, cmp::<EQ>),
    b!(ANYMULTIRANGE, ANYMULTIRANGE, BOOL, cmp::<EQ>),
];
static NE_OPS: &[BinOp] = &[
    b!(ANYRANGE, ANYRANGE, BOOL, cmp::<NE>),
    b!(ANYMULTIRANGE, ANYMULTIRANGE, BOOL, cmp::<NE>),
];
static LT_OPS: &[BinOp] = &[
    b!(ANYRANGE, ANYRANGE, BOOL, cmp::<LT>),
    b!(ANYMULTIRANGE, ANYMULTIRANGE, BOOL, cmp::<LT>),
];
static LE_OPS: &[BinOp] = &[
    b!(ANYRANGE, ANYRANGE, BOOL, cmp::<LE>),
    b!(ANYMULTIRANGE, ANYMULTIRANGE, BOOL, cmp::<LE>),
];
static GT_OPS: &[BinOp] = &[
    b!(ANYRANGE, ANYRANGE, BOOL, cmp::<GT>),
    b!(ANYMULTIRANGE, ANYMULTIRANGE, BOOL, cmp::<GT>),
];
static GE_OPS: &[BinOp] = &[
    b!(ANYRANGE, ANYRANGE, BOOL, cmp::<GE>),
    b!(ANYMULTIRANGE, ANYMULTIRANGE, BOOL, cmp::<GE>),
];
static CONTAINS: &[BinOp] = &[
    b!(ANYRANGE, ANYRANGE, BOOL, contains),
    b!(ANYRANGE, ANYELEMENT, BOOL, contains_elem),
    b!(ANYMULTIRANGE, ANYMULTIRANGE, BOOL, m_contains),
    b!(ANYMULTIRANGE, ANYRANGE, BOOL, m_contains),
    b!(ANYRANGE, ANYMULTIRANGE, BOOL, m_contains),
    b!(ANYMULTIRANGE, ANYELEMENT, BOOL, m_contains_elem),
];
static CONTAINED: &[BinOp] = &[
    b!(ANYRANGE, ANYRANGE, BOOL, contained),
    b!(ANYELEMENT, ANYRANGE, BOOL, elem_contained),
    b!(ANYMULTIRANGE, ANYMULTIRANGE, BOOL, m_contained),
    b!(ANYMULTIRANGE, ANYRANGE, BOOL, m_contained),
    b!(ANYRANGE, ANYMULTIRANGE, BOOL, m_contained),
    b!(ANYELEMENT, ANYMULTIRANGE, BOOL, m_elem_contained),
];
/// The forms of a boolean operator with a multirange operand.
macro_rules! mixed {
    ($r:expr, $m:ident) => {
        &[
            b!(ANYRANGE, ANYRANGE, BOOL, $r),
            b!(ANYMULTIRANGE, ANYMULTIRANGE, BOOL, $m),
            b!(ANYMULTIRANGE, ANYRANGE, BOOL, $m),
            b!(ANYRANGE, ANYMULTIRANGE, BOOL, $m),
        ]
    };
}
static OVERLAPS: &[BinOp] = mixed!(overlaps, m_overlaps);
static BEFORE: &[BinOp] = mixed!(before, m_before);
static AFTER: &[BinOp] = mixed!(after, m_after);
static OVERLEFT: &[BinOp] = mixed!(overleft, m_overleft);
static OVERRIGHT: &[BinOp] = mixed!(overright, m_overright);
static ADJACENT: &[BinOp] = mixed!(adjacent, m_adjacent);
static UNION: &[BinOp] = &[
    b!(ANYRANGE, ANYRANGE, ANYRANGE, union),
    b!(ANYMULTIRANGE, ANYMULTIRANGE, ANYMULTIRANGE, m_union),
];
static INTERSECT: &[BinOp] = &[
    b!(ANYRANGE, ANYRANGE, ANYRANGE, intersect),
    b!(ANYMULTIRANGE, ANYMULTIRANGE, ANYMULTIRANGE, m_intersect),
];
static MINUS: &[BinOp] = &[
    b!(ANYRANGE, ANYRANGE, ANYRANGE, minus),
    b!(ANYMULTIRANGE, ANYMULTIRANGE, ANYMULTIRANGE, m_minus),
];

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
