//! Subscripts of array values: an element (`a[i][j]`), a slice (`a[1:2]`, `a[:3]`, `a[2:]`),
//! and the array with an element or a slice replaced (`UPDATE t SET a[i] = x`), with
//! PostgreSQL's rules (arrayfuncs.c):
//!
//! - Fetching is forgiving: a subscript outside the array, or the wrong number of them, reads
//!   NULL (an element) or narrows the slice; a slice with nothing in it is the empty array. A
//!   slice's result has lower bounds 1.
//! - Assigning is strict: a NULL subscript (checked by the caller), the wrong number of
//!   subscripts, or a multi-dimensional subscript outside the array is an error. A
//!   one-dimensional array grows to take an element or a slice past either end, the gap
//!   filled with NULLs. Assigning into an empty (or NULL) array makes one of as many
//!   dimensions as there are subscripts, its bounds the subscripts.
//!
//! # Bounds
//! An array made or grown here has at most [`MAX_ARRAY_ITEMS`] elements and [`MAX_DIMS`]
//! dimensions; past either the assignment fails with PostgreSQL's 54000 error and nothing is
//! allocated.

use crate::error::{code, PgError, PgResult};

use super::{Array, Value};

/// Dimensions an array may have (PostgreSQL's MAXDIM).
pub const MAX_DIMS: usize = 6;
/// Elements an array may have (PostgreSQL's MaxArraySize).
pub const MAX_ARRAY_ITEMS: i64 = 134_217_727;

fn subscript_error(msg: &str) -> PgError {
    PgError::new(code::ARRAY_SUBSCRIPT_ERROR, msg)
}

/// 54000 for an array past [`MAX_ARRAY_ITEMS`] elements.
pub fn too_large() -> PgError {
    PgError::new(
        code::PROGRAM_LIMIT_EXCEEDED,
        format!("array size exceeds the maximum allowed ({MAX_ARRAY_ITEMS})"),
    )
}

/// 54000 for more than [`MAX_DIMS`] subscripts or dimensions.
pub fn too_many_dims(n: usize) -> PgError {
    PgError::new(
        code::PROGRAM_LIMIT_EXCEEDED,
        format!("number of array dimensions ({n}) exceeds the maximum allowed ({MAX_DIMS})"),
    )
}

/// The number of elements of an array of `dims`, or the 54000 error past the bound.
fn count(dims: &[(i32, i32)]) -> PgResult<usize> {
    let mut n: i64 = 1;
    for &(len, lb) in dims {
        n = n.saturating_mul(i64::from(len.max(0)));
        // The upper bound must fit an int4, as PostgreSQL's ArrayCheckBounds demands.
        if i64::from(lb) + i64::from(len) - 1 > i64::from(i32::MAX) {
            return Err(too_large());
        }
    }
    if dims.is_empty() {
        n = 0;
    }
    if n > MAX_ARRAY_ITEMS {
        return Err(too_large());
    }
    Ok(n as usize)
}

/// The row-major offset of `idx` (one subscript per dimension, each inside it).
fn offset(dims: &[(i32, i32)], idx: &[i32]) -> usize {
    let mut off = 0usize;
    for (&(len, lb), &i) in dims.iter().zip(idx) {
        off = off * len as usize + (i - lb) as usize;
    }
    off
}

/// The element at `idx`: NULL with the wrong number of subscripts or one outside the array.
pub fn element(a: &Array, idx: &[i32]) -> Value {
    if a.dims.is_empty() || a.dims.len() != idx.len() {
        return Value::Null;
    }
    for (&(len, lb), &i) in a.dims.iter().zip(idx) {
        if i64::from(i) < i64::from(lb) || i64::from(i) >= i64::from(lb) + i64::from(len) {
            return Value::Null;
        }
    }
    a.items
        .get(offset(&a.dims, idx))
        .cloned()
        .unwrap_or(Value::Null)
}

/// The slice from `lower` to `upper` (an omitted bound is the array's own), dimensions past
/// the subscripts taken whole; the empty array when nothing is in it.
pub fn slice(a: &Array, lower: &[Option<i32>], upper: &[Option<i32>]) -> Array {
    let empty = Array {
        elem: a.elem,
        dims: Vec::new(),
        items: Vec::new(),
    };
    if a.dims.is_empty() || lower.len() > a.dims.len() {
        return empty;
    }
    let mut range = Vec::with_capacity(a.dims.len());
    for (d, &(len, lb)) in a.dims.iter().enumerate() {
        let ub = lb + len - 1;
        let lo = lower.get(d).copied().flatten().unwrap_or(lb).max(lb);
        let hi = upper.get(d).copied().flatten().unwrap_or(ub).min(ub);
        if lo > hi {
            return empty;
        }
        range.push((lo, hi));
    }
    let dims: Vec<(i32, i32)> = range.iter().map(|&(lo, hi)| (hi - lo + 1, 1)).collect();
    let mut items = Vec::with_capacity(dims.iter().map(|d| d.0 as usize).product());
    let mut idx: Vec<i32> = range.iter().map(|r| r.0).collect();
    loop {
        items.push(a.items[offset(&a.dims, &idx)].clone());
        // The next subscript in row-major order.
        let mut d = idx.len();
        loop {
            if d == 0 {
                return Array {
                    elem: a.elem,
                    dims,
                    items,
                };
            }
            d -= 1;
            if idx[d] < range[d].1 {
                idx[d] += 1;
                break;
            }
            idx[d] = range[d].0;
        }
    }
}

/// `a` with the element at `idx` set to `v`.
pub fn set_element(mut a: Array, idx: &[i32], v: Value) -> PgResult<Array> {
    if idx.is_empty() || idx.len() > MAX_DIMS {
        return Err(subscript_error("wrong number of array subscripts"));
    }
    if a.dims.is_empty() {
        let dims: Vec<(i32, i32)> = idx.iter().map(|&i| (1, i)).collect();
        count(&dims)?;
        a.dims = dims;
        a.items = vec![v];
        return Ok(a);
    }
    if a.dims.len() != idx.len() {
        return Err(subscript_error("wrong number of array subscripts"));
    }
    if a.dims.len() == 1 {
        let (len, lb) = a.dims[0];
        let i = idx[0];
        let ub = i64::from(lb) + i64::from(len) - 1;
        if i64::from(i) < i64::from(lb) {
            let before = (i64::from(lb) - i64::from(i)) as usize;
            let new_len = i64::from(len) + before as i64;
            count(&[(i32::try_from(new_len).map_err(|_| too_large())?, i)])?;
            let mut items = Vec::with_capacity(new_len as usize);
            items.push(v);
            items.extend(std::iter::repeat_n(Value::Null, before - 1));
            items.append(&mut a.items);
            a.items = items;
            a.dims[0] = (new_len as i32, i);
        } else if i64::from(i) > ub {
            let new_len = i64::from(i) - i64::from(lb) + 1;
            count(&[(i32::try_from(new_len).map_err(|_| too_large())?, lb)])?;
            a.items.resize(new_len as usize - 1, Value::Null);
            a.items.push(v);
            a.dims[0].0 = new_len as i32;
        } else {
            a.items[(i - lb) as usize] = v;
        }
        return Ok(a);
    }
    for (&(len, lb), &i) in a.dims.iter().zip(idx) {
        if i64::from(i) < i64::from(lb) || i64::from(i) >= i64::from(lb) + i64::from(len) {
            return Err(subscript_error("array subscript out of range"));
        }
    }
    let at = offset(&a.dims, idx);
    a.items[at] = v;
    Ok(a)
}

/// `a` with the slice from `lower` to `upper` replaced by the elements of `src` read in order
/// (its shape is ignored; extra elements are ignored, too few is an error).
pub fn set_slice(
    mut a: Array,
    lower: &[Option<i32>],
    upper: &[Option<i32>],
    src: &Array,
) -> PgResult<Array> {
    let n = lower.len();
    if n == 0 || n > MAX_DIMS {
        return Err(subscript_error("wrong number of array subscripts"));
    }
    if a.dims.is_empty() {
        let mut dims = Vec::with_capacity(n);
        for (lo, hi) in lower.iter().zip(upper) {
            let (Some(lo), Some(hi)) = (lo, hi) else {
                return Err(
                    subscript_error("array slice subscript must provide both boundaries")
                        .with_detail(
                            "When assigning to a slice of an empty array value, slice boundaries must be fully specified.",
                        ),
                );
            };
            let len = i64::from(*hi) - i64::from(*lo) + 1;
            let len = i32::try_from(len).map_err(|_| too_large())?;
            // An upper bound below the lower one makes no elements (PostgreSQL's
            // construct_md_array takes the negative length as an empty array).
            dims.push((len, *lo));
        }
        if dims.iter().any(|d| d.0 <= 0) {
            return Ok(Array {
                elem: a.elem,
                dims: Vec::new(),
                items: Vec::new(),
            });
        }
        let total = count(&dims)?;
        if src.items.len() < total {
            return Err(subscript_error("source array too small"));
        }
        a.dims = dims;
        a.items = src.items[..total].to_vec();
        return Ok(a);
    }
    if a.dims.len() < n {
        return Err(subscript_error("wrong number of array subscripts"));
    }
    let mut range = Vec::with_capacity(a.dims.len());
    for (d, &(len, lb)) in a.dims.iter().enumerate() {
        let ub = lb + len - 1;
        let lo = lower.get(d).copied().flatten().unwrap_or(lb);
        let hi = upper.get(d).copied().flatten().unwrap_or(ub);
        if lo > hi {
            return Err(subscript_error(
                "upper bound cannot be less than lower bound",
            ));
        }
        if a.dims.len() > 1 && (lo < lb || hi > ub) {
            return Err(subscript_error("array subscript out of range"));
        }
        range.push((lo, hi));
    }
    let wanted = count(
        &range
            .iter()
            .map(|&(lo, hi)| (hi - lo + 1, 1))
            .collect::<Vec<_>>(),
    )?;
    if a.dims.len() == 1 {
        let (len, lb) = a.dims[0];
        let (lo, hi) = range[0];
        let new_lb = lo.min(lb);
        let new_ub = i64::from(hi).max(i64::from(lb) + i64::from(len) - 1);
        let new_len = i32::try_from(new_ub - i64::from(new_lb) + 1).map_err(|_| too_large())?;
        count(&[(new_len, new_lb)])?;
        if src.items.len() < wanted {
            return Err(subscript_error("source array too small"));
        }
        let mut items = vec![Value::Null; new_len as usize];
        let shift = (lb - new_lb) as usize;
        for (k, v) in a.items.drain(..).enumerate() {
            items[shift + k] = v;
        }
        let from = (lo - new_lb) as usize;
        items[from..from + wanted].clone_from_slice(&src.items[..wanted]);
        a.items = items;
        a.dims[0] = (new_len, new_lb);
        return Ok(a);
    }
    if src.items.len() < wanted {
        return Err(subscript_error("source array too small"));
    }
    let mut idx: Vec<i32> = range.iter().map(|r| r.0).collect();
    for v in &src.items[..wanted] {
        let at = offset(&a.dims, &idx);
        a.items[at] = v.clone();
        let mut d = idx.len();
        while d > 0 {
            d -= 1;
            if idx[d] < range[d].1 {
                idx[d] += 1;
                break;
            }
            idx[d] = range[d].0;
        }
    }
    Ok(a)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sql::types::Type;

    fn ints(v: &[i32]) -> Array {
        Array::one_dim(Type::INT4, v.iter().map(|&i| Value::Int4(i)).collect())
    }

    fn grid() -> Array {
        // {{1,2,3},{4,5,6}}
        Array {
            elem: Type::INT4,
            dims: vec![(2, 1), (3, 1)],
            items: (1..=6).map(Value::Int4).collect(),
        }
    }

    #[test]
    fn elements_read_null_outside() {
        let g = grid();
        assert_eq!(element(&g, &[2, 1]), Value::Int4(4));
        assert_eq!(element(&g, &[1, 3]), Value::Int4(3));
        assert_eq!(element(&g, &[1]), Value::Null);
        assert_eq!(element(&g, &[3, 1]), Value::Null);
        assert_eq!(element(&ints(&[]), &[1]), Value::Null);
    }

    #[test]
    fn slices_narrow_to_the_array() {
        let g = grid();
        let s = slice(&g, &[Some(1), Some(2)], &[Some(2), Some(9)]);
        assert_eq!(s.dims, vec![(2, 1), (2, 1)]);
        assert_eq!(
            s.items,
            vec![2, 3, 5, 6]
                .into_iter()
                .map(Value::Int4)
                .collect::<Vec<_>>()
        );
        let s = slice(&ints(&[1, 2, 3]), &[None], &[Some(2)]);
        assert_eq!(s.items, vec![Value::Int4(1), Value::Int4(2)]);
        assert!(slice(&ints(&[1, 2, 3]), &[Some(5)], &[Some(9)])
            .dims
            .is_empty());
        assert!(slice(&ints(&[1]), &[Some(1), Some(1)], &[Some(1), Some(1)])
            .dims
            .is_empty());
    }

    #[test]
    fn one_dimension_grows_with_nulls() {
        let a = set_element(ints(&[1, 2]), &[5], Value::Int4(9)).unwrap();
        assert_eq!(a.dims, vec![(5, 1)]);
        assert_eq!(a.items[2], Value::Null);
        let a = set_element(ints(&[1]), &[-1], Value::Int4(0)).unwrap();
        assert_eq!(a.dims, vec![(3, -1)]);
        assert_eq!(a.items, vec![Value::Int4(0), Value::Null, Value::Int4(1)]);
        let a = set_element(ints(&[]), &[3, 4], Value::Int4(7)).unwrap();
        assert_eq!(a.dims, vec![(1, 3), (1, 4)]);
    }

    #[test]
    fn assignment_errors() {
        assert!(set_element(grid(), &[3, 1], Value::Null).is_err());
        assert!(set_element(grid(), &[1], Value::Null).is_err());
        assert!(set_element(ints(&[1]), &[i32::MAX], Value::Null).is_err());
        assert!(set_slice(ints(&[]), &[None], &[Some(2)], &ints(&[1, 2])).is_err());
        assert!(set_slice(ints(&[]), &[Some(1)], &[Some(3)], &ints(&[1, 2])).is_err());
        assert!(set_slice(ints(&[1, 2]), &[Some(2)], &[Some(1)], &ints(&[1])).is_err());
    }

    #[test]
    fn slices_assign() {
        let a = set_slice(
            ints(&[1, 2, 3]),
            &[Some(2)],
            &[Some(5)],
            &ints(&[7, 8, 9, 10, 11]),
        )
        .unwrap();
        assert_eq!(a.dims, vec![(5, 1)]);
        assert_eq!(a.items[4], Value::Int4(10));
        let g = set_slice(
            grid(),
            &[Some(1), Some(2)],
            &[Some(2), Some(2)],
            &ints(&[0, 0]),
        )
        .unwrap();
        assert_eq!(g.items[1], Value::Int4(0));
        assert_eq!(g.items[4], Value::Int4(0));
        let e = set_slice(ints(&[]), &[Some(2)], &[Some(3)], &ints(&[4, 5, 6])).unwrap();
        assert_eq!(e.dims, vec![(2, 2)]);
    }
}
