//! Range types: int4range, int8range, numrange, tsrange, tstzrange, daterange and the ones
//! CREATE TYPE ... AS RANGE makes.
//!
//! # Design
//!
//! A range value is [`Value::Range`] holding a boxed [`Range`]: its two bound values (the
//! subtype's own `Value`, `Value::Null` where the bound is infinite or the range is empty) and
//! one flags byte with PostgreSQL's bit layout (empty, lower/upper inclusive, lower/upper
//! infinite). Keeping PostgreSQL's flags makes the binary form (`range_send`: the flags byte,
//! then each present bound length-prefixed) a copy, and boxing keeps `Value` at its size.
//!
//! A range value does not carry its type, as no `Value` does: the planner types every
//! expression, and the few places that need the range type at run time get it from there —
//! input and output (text and binary) are handed the type, and the constructor functions
//! (`int4range(1, 5)`) are bound with the type as a constant argument. Only construction needs
//! the type, for canonicalization: the discrete built-in types (int4range, int8range,
//! daterange) are always stored in the `[)` form, as PostgreSQL's canonical functions make them.
//! The operators that build ranges from other ranges (union, intersection, difference) only
//! reuse bounds of canonical inputs, flipping an inclusive lower into an exclusive upper or the
//! reverse, so their results are canonical without knowing the type; they still go through
//! [`make`] for the emptiness and order checks.
//!
//! Bounds compare with the subtype's total order ([`compare_values`]); the comparison of two
//! bounds and the operators follow PostgreSQL's rangetypes.c: an infinite lower bound is below
//! everything, an exclusive lower bound is just above its value, an exclusive upper bound just
//! below it. Ranges sort as PostgreSQL's btree opclass does: empty first, then by lower bound,
//! then by upper bound.
//!
//! The text form (`[1,5)`, `(,"a b"]`, `empty`) is parsed and printed by `io/range.rs`; the
//! operators are in `ops/range.rs`, the functions in `func/range.rs`, the planner's
//! resolution of both (polymorphic over every range type) in `plan/range.rs`.

use std::cmp::Ordering;

use super::ops::compare_values;
use super::{Type, Value};
use crate::error::{code, PgError, PgResult};

/// PostgreSQL's flag bits (rangetypes.h).
pub const EMPTY: u8 = 0x01;
pub const LB_INC: u8 = 0x02;
pub const UB_INC: u8 = 0x04;
pub const LB_INF: u8 = 0x08;
pub const UB_INF: u8 = 0x10;

/// One range value.
#[derive(Clone, Debug, PartialEq)]
pub struct Range {
    /// The lower bound's value; `Value::Null` when infinite or empty.
    pub lower: Value,
    pub upper: Value,
    pub flags: u8,
}

/// One bound, as PostgreSQL's RangeBound: a value (ignored when infinite), whether it is
/// inclusive and infinite, and which end it is.
#[derive(Clone, Debug)]
pub struct Bound {
    pub val: Value,
    pub inf: bool,
    pub inc: bool,
    pub lower: bool,
}

impl Bound {
    pub fn lower(val: Value, inc: bool) -> Bound {
        let inf = val.is_null();
        Bound {
            val,
            inf,
            inc: inc && !inf,
            lower: true,
        }
    }

    pub fn upper(val: Value, inc: bool) -> Bound {
        let inf = val.is_null();
        Bound {
            val,
            inf,
            inc: inc && !inf,
            lower: false,
        }
    }
}

impl Range {
    pub fn empty() -> Range {
        Range {
            lower: Value::Null,
            upper: Value::Null,
            flags: EMPTY,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.flags & EMPTY != 0
    }

    pub fn lower_bound(&self) -> Bound {
        Bound {
            val: self.lower.clone(),
            inf: self.flags & LB_INF != 0,
            inc: self.flags & LB_INC != 0,
            lower: true,
        }
    }

    pub fn upper_bound(&self) -> Bound {
        Bound {
            val: self.upper.clone(),
            inf: self.flags & UB_INF != 0,
            inc: self.flags & UB_INC != 0,
            lower: false,
        }
    }

    /// Whether the lower bound has a value (not empty, not infinite).
    pub fn has_lower(&self) -> bool {
        self.flags & (EMPTY | LB_INF) == 0
    }

    pub fn has_upper(&self) -> bool {
        self.flags & (EMPTY | UB_INF) == 0
    }
}

// ---------------------------------------------------------------------------------------------
// The range types
// ---------------------------------------------------------------------------------------------

/// (range type, its subtype, its multirange type) of the built-in range types.
pub const BUILTIN: &[(Type, Type, u32)] = &[
    (Type::INT4RANGE, Type::INT4, 4451),
    (Type::NUMRANGE, Type::NUMERIC, 4532),
    (Type::TSRANGE, Type::TIMESTAMP, 4533),
    (Type::TSTZRANGE, Type::TIMESTAMPTZ, 4534),
    (Type::DATERANGE, Type::DATE, 4535),
    (Type::INT8RANGE, Type::INT8, 4536),
];

/// The subtype of a range type (None: not a range type).
pub fn subtype(ty: Type) -> Option<Type> {
    if let Some((_, s, _)) = BUILTIN.iter().find(|(r, _, _)| *r == ty) {
        return Some(*s);
    }
    if ty.0 < crate::catalog::FIRST_USER_OID {
        return None;
    }
    crate::catalog::types::range_subtype(ty.0).map(Type)
}

/// Whether the type's values are kept in the canonical `[)` form (int4range, int8range,
/// daterange: PostgreSQL's built-in canonical functions).
fn discrete(ty: Type) -> bool {
    matches!(ty, Type::INT4RANGE | Type::INT8RANGE | Type::DATERANGE)
}

// ---------------------------------------------------------------------------------------------
// Construction
// ---------------------------------------------------------------------------------------------

/// A range from two bounds (PostgreSQL's make_range): checks the order (22000), makes
/// `[x,x)` and the like empty, and canonicalizes a discrete type's range (`ty`; None for the
/// operators, whose results from canonical inputs are canonical already).
pub fn make(lower: Bound, upper: Bound, empty: bool, ty: Option<Type>) -> PgResult<Range> {
    if empty {
        return Ok(Range::empty());
    }
    let r = serialize(lower, upper)?;
    match ty {
        Some(t) if discrete(t) && !r.is_empty() => canonicalize(r),
        _ => Ok(r),
    }
}

fn serialize(lower: Bound, upper: Bound) -> PgResult<Range> {
    let c = cmp_bound_values(&lower, &upper);
    if c == Ordering::Greater {
        return Err(PgError::new(
            code::DATA_EXCEPTION,
            "range lower bound must be less than or equal to range upper bound",
        ));
    }
    if c == Ordering::Equal && !(lower.inc && upper.inc) {
        return Ok(Range::empty());
    }
    let mut flags = 0;
    if lower.inf {
        flags |= LB_INF;
    } else if lower.inc {
        flags |= LB_INC;
    }
    if upper.inf {
        flags |= UB_INF;
    } else if upper.inc {
        flags |= UB_INC;
    }
    Ok(Range {
        lower: if lower.inf { Value::Null } else { lower.val },
        upper: if upper.inf { Value::Null } else { upper.val },
        flags,
    })
}

/// The next value of a discrete subtype (the canonical functions add one); None for a value
/// the canonical function leaves as it is, bound and inclusivity (an infinite date).
fn successor(v: &Value) -> PgResult<Option<Value>> {
    let out_of_range = |what: &str| PgError::new(code::NUMERIC_VALUE_OUT_OF_RANGE, what);
    Ok(Some(match v {
        Value::Int4(i) => Value::Int4(
            i.checked_add(1)
                .ok_or_else(|| out_of_range("integer out of range"))?,
        ),
        Value::Int8(i) => Value::Int8(
            i.checked_add(1)
                .ok_or_else(|| out_of_range("bigint out of range"))?,
        ),
        Value::Date(d) if *d == i32::MIN || *d == i32::MAX => return Ok(None),
        Value::Date(d) => {
            Value::Date(d.checked_add(1).ok_or_else(|| {
                PgError::new(code::DATETIME_VALUE_OUT_OF_RANGE, "date out of range")
            })?)
        }
        _ => return Ok(None),
    }))
}

fn canonicalize(r: Range) -> PgResult<Range> {
    let mut lower = r.lower_bound();
    let mut upper = r.upper_bound();
    if !lower.inf && !lower.inc {
        if let Some(next) = successor(&lower.val)? {
            lower.val = next;
            lower.inc = true;
        }
    }
    if !upper.inf && upper.inc {
        if let Some(next) = successor(&upper.val)? {
            upper.val = next;
            upper.inc = false;
        }
    }
    serialize(lower, upper)
}

// ---------------------------------------------------------------------------------------------
// Comparisons
// ---------------------------------------------------------------------------------------------

/// PostgreSQL's range_cmp_bounds: the order of two bounds, inclusivity and ends considered.
pub fn cmp_bounds(a: &Bound, b: &Bound) -> Ordering {
    let end = |lower: bool| {
        if lower {
            Ordering::Less
        } else {
            Ordering::Greater
        }
    };
    if a.inf && b.inf {
        return if a.lower == b.lower {
            Ordering::Equal
        } else {
            end(a.lower)
        };
    }
    if a.inf {
        return end(a.lower);
    }
    if b.inf {
        return end(b.lower).reverse();
    }
    let c = compare_values(&a.val, &b.val);
    if c != Ordering::Equal {
        return c;
    }
    match (a.inc, b.inc) {
        (true, true) => Ordering::Equal,
        (false, false) if a.lower == b.lower => Ordering::Equal,
        // An exclusive lower bound is just above its value, an exclusive upper just below.
        (false, false) => end(a.lower).reverse(),
        (false, true) => end(a.lower).reverse(),
        (true, false) => end(b.lower),
    }
}

/// PostgreSQL's range_cmp_bound_values: the values only (infinities at their ends).
pub fn cmp_bound_values(a: &Bound, b: &Bound) -> Ordering {
    if a.inf || b.inf {
        let pos = |x: &Bound| -> i8 {
            match (x.inf, x.lower) {
                (true, true) => -1,
                (true, false) => 1,
                _ => 0,
            }
        };
        if a.inf && b.inf {
            return pos(a).cmp(&pos(b));
        }
        return if a.inf {
            pos(a).cmp(&0)
        } else {
            0.cmp(&pos(b))
        };
    }
    compare_values(&a.val, &b.val)
}

/// The btree order of ranges: empty first, then by lower bound, then by upper bound.
pub fn cmp(a: &Range, b: &Range) -> Ordering {
    match (a.is_empty(), b.is_empty()) {
        (true, true) => return Ordering::Equal,
        (true, false) => return Ordering::Less,
        (false, true) => return Ordering::Greater,
        _ => {}
    }
    cmp_bounds(&a.lower_bound(), &b.lower_bound())
        .then_with(|| cmp_bounds(&a.upper_bound(), &b.upper_bound()))
}

// ---------------------------------------------------------------------------------------------
// Operators
// ---------------------------------------------------------------------------------------------

/// `a @> b`: every point of b is in a (the empty range is in every range).
pub fn contains(a: &Range, b: &Range) -> bool {
    if b.is_empty() {
        return true;
    }
    if a.is_empty() {
        return false;
    }
    cmp_bounds(&a.lower_bound(), &b.lower_bound()) != Ordering::Greater
        && cmp_bounds(&a.upper_bound(), &b.upper_bound()) != Ordering::Less
}

/// `r @> v`: the value is in the range.
pub fn contains_elem(r: &Range, v: &Value) -> bool {
    if r.is_empty() {
        return false;
    }
    if r.has_lower() {
        match compare_values(&r.lower, v) {
            Ordering::Greater => return false,
            Ordering::Equal if r.flags & LB_INC == 0 => return false,
            _ => {}
        }
    }
    if r.has_upper() {
        match compare_values(&r.upper, v) {
            Ordering::Less => return false,
            Ordering::Equal if r.flags & UB_INC == 0 => return false,
            _ => {}
        }
    }
    true
}

/// `a && b`: a point in common.
pub fn overlaps(a: &Range, b: &Range) -> bool {
    if a.is_empty() || b.is_empty() {
        return false;
    }
    let (l1, u1, l2, u2) = (
        a.lower_bound(),
        a.upper_bound(),
        b.lower_bound(),
        b.upper_bound(),
    );
    (cmp_bounds(&l1, &l2) != Ordering::Less && cmp_bounds(&l1, &u2) != Ordering::Greater)
        || (cmp_bounds(&l2, &l1) != Ordering::Less && cmp_bounds(&l2, &u1) != Ordering::Greater)
}

/// `a << b`: a ends before b starts.
pub fn before(a: &Range, b: &Range) -> bool {
    !a.is_empty()
        && !b.is_empty()
        && cmp_bounds(&a.upper_bound(), &b.lower_bound()) == Ordering::Less
}

/// `a &< b`: a does not extend to the right of b.
pub fn overleft(a: &Range, b: &Range) -> bool {
    !a.is_empty()
        && !b.is_empty()
        && cmp_bounds(&a.upper_bound(), &b.upper_bound()) != Ordering::Greater
}

/// `a &> b`: a does not extend to the left of b.
pub fn overright(a: &Range, b: &Range) -> bool {
    !a.is_empty()
        && !b.is_empty()
        && cmp_bounds(&a.lower_bound(), &b.lower_bound()) != Ordering::Less
}

/// Whether an upper bound and a lower bound touch with nothing between them. Without a
/// canonical function (continuous subtypes) points lie between any two distinct values; the
/// discrete built-in types are canonical (`[)`), so their touching bounds are equal values.
pub fn bounds_adjacent(upper: &Bound, lower: &Bound) -> bool {
    cmp_bound_values(upper, lower) == Ordering::Equal && upper.inc != lower.inc
}

/// `a -|- b`: the ranges touch without overlapping.
pub fn adjacent(a: &Range, b: &Range) -> bool {
    if a.is_empty() || b.is_empty() {
        return false;
    }
    bounds_adjacent(&a.upper_bound(), &b.lower_bound())
        || bounds_adjacent(&b.upper_bound(), &a.lower_bound())
}

/// `a + b` (strict: 22000 when the union has a gap) and range_merge (not strict: the smallest
/// range holding both).
pub fn union(a: &Range, b: &Range, strict: bool) -> PgResult<Range> {
    if a.is_empty() {
        return Ok(b.clone());
    }
    if b.is_empty() {
        return Ok(a.clone());
    }
    if strict && !overlaps(a, b) && !adjacent(a, b) {
        return Err(PgError::new(
            code::DATA_EXCEPTION,
            "result of range union would not be contiguous",
        ));
    }
    let (l1, l2) = (a.lower_bound(), b.lower_bound());
    let (u1, u2) = (a.upper_bound(), b.upper_bound());
    let lower = if cmp_bounds(&l1, &l2) == Ordering::Less {
        l1
    } else {
        l2
    };
    let upper = if cmp_bounds(&u1, &u2) == Ordering::Greater {
        u1
    } else {
        u2
    };
    make(lower, upper, false, None)
}

/// `a * b`.
pub fn intersect(a: &Range, b: &Range) -> PgResult<Range> {
    if !overlaps(a, b) {
        return Ok(Range::empty());
    }
    let (l1, l2) = (a.lower_bound(), b.lower_bound());
    let (u1, u2) = (a.upper_bound(), b.upper_bound());
    let lower = if cmp_bounds(&l1, &l2) != Ordering::Less {
        l1
    } else {
        l2
    };
    let upper = if cmp_bounds(&u1, &u2) != Ordering::Greater {
        u1
    } else {
        u2
    };
    make(lower, upper, false, None)
}

/// `a - b` (22000 when b splits a in two).
pub fn minus(a: &Range, b: &Range) -> PgResult<Range> {
    if a.is_empty() || b.is_empty() {
        return Ok(a.clone());
    }
    let (l1, u1, l2, u2) = (
        a.lower_bound(),
        a.upper_bound(),
        b.lower_bound(),
        b.upper_bound(),
    );
    let l1l2 = cmp_bounds(&l1, &l2);
    let l1u2 = cmp_bounds(&l1, &u2);
    let u1l2 = cmp_bounds(&u1, &l2);
    let u1u2 = cmp_bounds(&u1, &u2);
    use Ordering::*;
    if l1l2 == Less && u1u2 == Greater {
        return Err(PgError::new(
            code::DATA_EXCEPTION,
            "result of range difference would not be contiguous",
        ));
    }
    if l1u2 == Greater || u1l2 == Less {
        return Ok(a.clone());
    }
    if l1l2 != Less && u1u2 != Greater {
        return Ok(Range::empty());
    }
    if l1l2 != Greater && u1l2 != Less && u1u2 != Greater {
        let upper = Bound {
            inc: !l2.inc,
            lower: false,
            ..l2
        };
        return make(l1, upper, false, None);
    }
    if l1l2 != Less && u1u2 != Less && l1u2 != Greater {
        let lower = Bound {
            inc: !u2.inc,
            lower: true,
            ..u2
        };
        return make(lower, u1, false, None);
    }
    Err(PgError::internal("unexpected case in range_minus"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(lo: Option<i32>, lo_inc: bool, hi: Option<i32>, hi_inc: bool) -> Range {
        let v = |x: Option<i32>| x.map_or(Value::Null, Value::Int4);
        make(
            Bound::lower(v(lo), lo_inc),
            Bound::upper(v(hi), hi_inc),
            false,
            Some(Type::INT4RANGE),
        )
        .unwrap()
    }

    #[test]
    fn canonical_forms() {
        assert_eq!(
            r(Some(1), false, Some(5), true),
            r(Some(2), true, Some(6), false)
        );
        assert!(r(Some(1), false, Some(2), false).is_empty());
        assert!(!r(Some(1), true, Some(1), true).is_empty());
        assert!(make(
            Bound::lower(Value::Int4(3), true),
            Bound::upper(Value::Int4(2), true),
            false,
            None
        )
        .is_err());
        assert!(make(
            Bound::lower(Value::Int4(1), true),
            Bound::upper(Value::Int4(i32::MAX), true),
            false,
            Some(Type::INT4RANGE)
        )
        .is_err());
    }

    #[test]
    fn operators() {
        let a = r(Some(1), true, Some(10), false);
        let b = r(Some(5), true, Some(15), false);
        let c = r(Some(10), true, Some(20), false);
        assert!(overlaps(&a, &b) && !overlaps(&a, &c));
        assert!(adjacent(&a, &c) && !adjacent(&a, &b));
        assert!(before(&a, &c) && !before(&a, &b));
        assert_eq!(
            union(&a, &c, true).unwrap(),
            r(Some(1), true, Some(20), false)
        );
        assert_eq!(
            intersect(&a, &b).unwrap(),
            r(Some(5), true, Some(10), false)
        );
        assert_eq!(minus(&a, &b).unwrap(), r(Some(1), true, Some(5), false));
        assert!(minus(&a, &r(Some(3), true, Some(4), false)).is_err());
        assert!(union(&a, &r(Some(12), true, Some(13), false), true).is_err());
        assert!(contains_elem(&a, &Value::Int4(1)) && !contains_elem(&a, &Value::Int4(10)));
        let inf = r(None, false, None, false);
        assert!(contains(&inf, &a) && !contains(&a, &inf));
        assert_eq!(cmp(&Range::empty(), &a), Ordering::Less);
        assert_eq!(cmp(&inf, &a), Ordering::Less);
    }
}
