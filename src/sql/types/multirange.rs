//! Multirange types: int4multirange, int8multirange, nummultirange, tsmultirange,
//! tstzmultirange, datemultirange and the one CREATE TYPE ... AS RANGE makes with each range
//! type.
//!
//! # Design
//!
//! A multirange value is [`Value::Multirange`] holding a boxed [`Multirange`]: its ranges in
//! PostgreSQL's canonical form, which every constructor here ([`make`]) establishes and every
//! operator relies on: no empty range, sorted by lower bound, and no two ranges that overlap
//! or touch (those are merged into one). Equal multiranges are then equal vectors, the span is
//! the first lower bound to the last upper bound, and the operators walk both operands once
//! in step (PostgreSQL's multirangetypes.c does the same walks).
//!
//! As a range value, a multirange does not carry its type: input and output are handed it,
//! and the multirange type of a range type (and back) comes from [`range_type`] / [`of_range`]
//! (the built-in pairs pg_range lists, and the catalog's for CREATE TYPE ... AS RANGE).
//!
//! The operators that also take a range (`mr @> r`, `r && mr`, `r << mr` ...) treat the range
//! as the multirange of it alone ([`single`]: none for the empty range), which gives
//! PostgreSQL's answers for each of them, empty operands included.
//!
//! Bounds: a multirange holds at most as many ranges as its input had (text, binary, the
//! constructor's arguments, an aggregate's rows); union, intersection and difference make at
//! most as many as their operands have together, so nothing grows beyond its inputs.

use std::cmp::Ordering;

use super::range::{self, Bound, Range, UB_INC};
use super::{Type, Value};
use crate::error::PgResult;

/// One multirange value: canonical ranges (see the module comment).
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Multirange {
    pub ranges: Vec<Range>,
}

/// The multirange type of a range type (None: not a range type).
pub fn of_range(ty: Type) -> Option<Type> {
    if let Some((_, _, m)) = range::BUILTIN.iter().find(|(r, _, _)| *r == ty) {
        return Some(Type(*m));
    }
    crate::catalog::types::range_multirange(ty.0).map(Type)
}

/// The range type of a multirange type (None: not a multirange type).
pub fn range_type(ty: Type) -> Option<Type> {
    if let Some((r, _, _)) = range::BUILTIN.iter().find(|(_, _, m)| *m == ty.0) {
        return Some(*r);
    }
    crate::catalog::types::multirange_range(ty.0).map(Type)
}

/// The multirange of the given ranges (PostgreSQL's make_multirange): empty ranges dropped,
/// sorted, overlapping and touching ones merged.
pub fn make(mut ranges: Vec<Range>) -> PgResult<Multirange> {
    ranges.retain(|r| !r.is_empty());
    ranges.sort_by(range::cmp);
    let mut out: Vec<Range> = Vec::with_capacity(ranges.len());
    for r in ranges {
        match out.last_mut() {
            Some(last) if !range::before(last, &r) || range::adjacent(last, &r) => {
                *last = range::union(last, &r, false)?;
            }
            _ => out.push(r),
        }
    }
    Ok(Multirange { ranges: out })
}

/// A range as a multirange operand: itself, or nothing for the empty range.
pub fn single(r: &Range) -> &[Range] {
    if r.is_empty() {
        &[]
    } else {
        std::slice::from_ref(r)
    }
}

impl Multirange {
    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }

    /// The smallest range holding every range (empty for the empty multirange): range_merge.
    pub fn span(&self) -> PgResult<Range> {
        span(&self.ranges)
    }
}

fn span(rs: &[Range]) -> PgResult<Range> {
    match (rs.first(), rs.last()) {
        (Some(first), Some(last)) => {
            range::make(first.lower_bound(), last.upper_bound(), false, None)
        }
        _ => Ok(Range::empty()),
    }
}

// ---------------------------------------------------------------------------------------------
// Comparisons
// ---------------------------------------------------------------------------------------------

/// The btree order (multirange_cmp): range by range, a multirange that runs out first (the
/// empty one included) sorting first.
pub fn cmp(a: &Multirange, b: &Multirange) -> Ordering {
    for (x, y) in a.ranges.iter().zip(&b.ranges) {
        let c = range::cmp(x, y);
        if c != Ordering::Equal {
            return c;
        }
    }
    a.ranges.len().cmp(&b.ranges.len())
}

// ---------------------------------------------------------------------------------------------
// Boolean operators over two operands as range slices (canonical)
// ---------------------------------------------------------------------------------------------

/// `mr @> v`: some range holds the value.
pub fn contains_elem(mr: &[Range], v: &Value) -> bool {
    // The first range whose upper end is not below v is the only candidate.
    let below = |r: &Range| {
        r.has_upper()
            && match super::ops::compare_values(&r.upper, v) {
                Ordering::Less => true,
                Ordering::Equal => r.flags & UB_INC == 0,
                Ordering::Greater => false,
            }
    };
    let i = mr.partition_point(below);
    mr.get(i).is_some_and(|r| range::contains_elem(r, v))
}

/// `a @> b`: every range of b lies in one range of a (the empty multirange is in every one).
pub fn contains(a: &[Range], b: &[Range]) -> bool {
    if b.is_empty() {
        return true;
    }
    let mut i = 0;
    for r2 in b {
        while a
            .get(i)
            .is_some_and(|r1| range::cmp_bounds(&r1.upper_bound(), &r2.lower_bound()).is_lt())
        {
            i += 1;
        }
        match a.get(i) {
            Some(r1) if range::contains(r1, r2) => {}
            _ => return false,
        }
    }
    true
}

/// `a && b`: a point in common (never with an empty operand).
pub fn overlaps(a: &[Range], b: &[Range]) -> bool {
    let (mut i, mut j) = (0, 0);
    while let (Some(r1), Some(r2)) = (a.get(i), b.get(j)) {
        if range::overlaps(r1, r2) {
            return true;
        }
        // The one that ends first cannot meet anything after the other.
        if range::cmp_bounds(&r1.upper_bound(), &r2.upper_bound()).is_lt() {
            i += 1;
        } else {
            j += 1;
        }
    }
    false
}

fn ends(a: &[Range]) -> Option<(Bound, Bound)> {
    Some((a.first()?.lower_bound(), a.last()?.upper_bound()))
}

/// `a << b`: a ends before b starts.
pub fn before(a: &[Range], b: &[Range]) -> bool {
    match (ends(a), ends(b)) {
        (Some((_, au)), Some((bl, _))) => range::cmp_bounds(&au, &bl).is_lt(),
        _ => false,
    }
}

/// `a &< b`: a does not extend to the right of b.
pub fn overleft(a: &[Range], b: &[Range]) -> bool {
    match (ends(a), ends(b)) {
        (Some((_, au)), Some((_, bu))) => range::cmp_bounds(&au, &bu).is_le(),
        _ => false,
    }
}

/// `a &> b`: a does not extend to the left of b.
pub fn overright(a: &[Range], b: &[Range]) -> bool {
    match (ends(a), ends(b)) {
        (Some((al, _)), Some((bl, _))) => range::cmp_bounds(&al, &bl).is_ge(),
        _ => false,
    }
}

/// `a -|- b`: one ends where the other starts, with nothing between.
pub fn adjacent(a: &[Range], b: &[Range]) -> bool {
    match (ends(a), ends(b)) {
        (Some((al, au)), Some((bl, bu))) => {
            range::bounds_adjacent(&au, &bl) || range::bounds_adjacent(&bu, &al)
        }
        _ => false,
    }
}

// ---------------------------------------------------------------------------------------------
// Set operators
// ---------------------------------------------------------------------------------------------

/// `a + b`.
pub fn union(a: &[Range], b: &[Range]) -> PgResult<Multirange> {
    make(a.iter().chain(b).cloned().collect())
}

/// `a * b` (multirange_intersect_internal's walk).
pub fn intersect(a: &[Range], b: &[Range]) -> PgResult<Multirange> {
    let mut out = Vec::new();
    let mut j = 0;
    'outer: for r1 in a {
        while b.get(j).is_some_and(|r2| range::before(r2, r1)) {
            j += 1;
        }
        while let Some(r2) = b.get(j) {
            if !range::overlaps(r1, r2) {
                break;
            }
            out.push(range::intersect(r1, r2)?);
            // r2 used up: the next r2 may meet r1 too; else r2 reaches into the next r1.
            if range::overleft(r2, r1) {
                j += 1;
            } else {
                break;
            }
        }
        if j >= b.len() {
            break 'outer;
        }
    }
    make(out)
}

/// `a - b` (multirange_minus_internal's walk: each range of a loses the parts b covers, and
/// may be cut in two).
pub fn minus(a: &[Range], b: &[Range]) -> PgResult<Multirange> {
    let mut out = Vec::new();
    let mut j = 0;
    for r1 in a {
        let mut cur = r1.clone();
        while b.get(j).is_some_and(|r2| range::before(r2, &cur)) {
            j += 1;
        }
        while let Some(r2) = b.get(j) {
            if cur.is_empty() || !range::overlaps(&cur, r2) {
                break;
            }
            let (l1, u1) = (cur.lower_bound(), cur.upper_bound());
            let (l2, u2) = (r2.lower_bound(), r2.upper_bound());
            if range::cmp_bounds(&l1, &l2).is_lt() && range::cmp_bounds(&u1, &u2).is_gt() {
                // r2 bites out of the middle: the part before it is done, the rest goes on.
                let cut_upper = Bound {
                    inc: !l2.inc,
                    lower: false,
                    ..l2
                };
                out.push(range::make(l1, cut_upper, false, None)?);
                let cut_lower = Bound {
                    inc: !u2.inc,
                    lower: true,
                    ..u2
                };
                cur = range::make(cut_lower, u1, false, None)?;
                j += 1;
                continue;
            }
            cur = range::minus(&cur, r2)?;
            // r2 reaching past what is left of r1 may still cut the next range of a.
            if cur.is_empty() || range::before(&cur, r2) {
                break;
            }
            j += 1;
        }
        out.push(cur);
    }
    make(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(lo: i32, hi: i32) -> Range {
        range::make(
            Bound::lower(Value::Int4(lo), true),
            Bound::upper(Value::Int4(hi), false),
            false,
            Some(Type::INT4RANGE),
        )
        .unwrap()
    }

    fn mr(v: &[(i32, i32)]) -> Multirange {
        make(v.iter().map(|&(a, b)| r(a, b)).collect()).unwrap()
    }

    #[test]
    fn canonical() {
        assert_eq!(mr(&[(5, 7), (1, 3), (3, 4), (6, 9)]), mr(&[(1, 4), (5, 9)]));
        assert_eq!(mr(&[(1, 3), (1, 1)]).ranges.len(), 1);
        assert!(mr(&[(2, 2)]).is_empty());
    }

    #[test]
    fn operators() {
        let a = mr(&[(1, 5), (10, 20)]);
        let b = mr(&[(3, 12), (15, 16)]);
        assert_eq!(
            intersect(&a.ranges, &b.ranges).unwrap(),
            mr(&[(3, 5), (10, 12), (15, 16)])
        );
        assert_eq!(
            minus(&a.ranges, &b.ranges).unwrap(),
            mr(&[(1, 3), (12, 15), (16, 20)])
        );
        assert_eq!(union(&a.ranges, &b.ranges).unwrap(), mr(&[(1, 20)]));
        assert!(overlaps(&a.ranges, &b.ranges));
        assert!(!overlaps(&a.ranges, &mr(&[(5, 10)]).ranges));
        // Only the outer ends count, as in PostgreSQL.
        assert!(adjacent(&mr(&[(20, 30)]).ranges, &a.ranges));
        assert!(!adjacent(&mr(&[(5, 10)]).ranges, &a.ranges));
        assert!(contains(&a.ranges, &mr(&[(2, 3), (11, 19)]).ranges));
        assert!(!contains(&a.ranges, &mr(&[(2, 3), (4, 11)]).ranges));
        assert!(contains_elem(&a.ranges, &Value::Int4(10)));
        assert!(!contains_elem(&a.ranges, &Value::Int4(5)));
        assert!(before(&mr(&[(1, 2)]).ranges, &a.ranges[1..]));
        assert_eq!(cmp(&Multirange::default(), &a), Ordering::Less);
        assert_eq!(cmp(&mr(&[(1, 5)]), &a), Ordering::Less);
    }
}
