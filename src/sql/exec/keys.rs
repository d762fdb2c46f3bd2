//! Comparing and hashing rows: DISTINCT, GROUP BY, set operations and sorts.

use std::cmp::Ordering;

use crate::sql::plan::SortKey;
use crate::sql::types::{self, Value};

/// A hashable, totally ordered form of a row for DISTINCT, GROUP BY and set operations.
#[derive(Clone)]
pub(super) struct Key(pub Vec<Value>);

impl PartialEq for Key {
    fn eq(&self, o: &Self) -> bool {
        cmp_rows(&self.0, &o.0) == Ordering::Equal
    }
}
impl Eq for Key {}
impl std::hash::Hash for Key {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        for v in &self.0 {
            hash_value(v, h, true);
        }
    }
}

/// Hashes `v` so that values that compare equal hash equally across representations
/// (1::int4 and 1::int8, 1.0 and 1.00, citext in another case): integers by value, other
/// numbers not at all, citext by its lower-case form. An array's items and a record's fields
/// are hashed one level deep (`deep`), anything nested in them by its shape only.
fn hash_value<H: std::hash::Hasher>(v: &Value, h: &mut H, deep: bool) {
    use std::hash::Hash;
    match v {
        Value::Null => 0u8.hash(h),
        Value::Int2(_) | Value::Int4(_) | Value::Int8(_) => v.as_i64().hash(h),
        Value::Float4(_) | Value::Float8(_) | Value::Numeric(_) => 1u8.hash(h),
        Value::Text(s) => s.hash(h),
        Value::CiText(s) => types::citext::hash(s, h),
        Value::Bool(b) => b.hash(h),
        Value::Array(a) => {
            a.items.len().hash(h);
            if deep {
                a.items.iter().for_each(|i| hash_value(i, h, false));
            }
        }
        Value::Record(r) => {
            r.len().hash(h);
            if deep {
                r.iter().for_each(|f| hash_value(f, h, false));
            }
        }
        other => format!("{other:?}").hash(h),
    }
}

/// NULLs sort last, as in an ascending ORDER BY.
pub(super) fn cmp_nullable(a: &Value, b: &Value) -> Ordering {
    match (a.is_null(), b.is_null()) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Greater,
        (false, true) => Ordering::Less,
        _ => types::compare(a, b),
    }
}

pub(super) fn cmp_rows(a: &[Value], b: &[Value]) -> Ordering {
    for (x, y) in a.iter().zip(b) {
        let o = cmp_nullable(x, y);
        if o != Ordering::Equal {
            return o;
        }
    }
    a.len().cmp(&b.len())
}

/// Compares evaluated sort keys by the directions and NULL placement of `keys`.
pub(super) fn cmp_sort_keys(a: &[Value], b: &[Value], keys: &[SortKey]) -> Ordering {
    for (i, key) in keys.iter().enumerate() {
        let (x, y) = (&a[i], &b[i]);
        let o = match (x.is_null(), y.is_null()) {
            (true, true) => Ordering::Equal,
            (true, false) if key.nulls_first => Ordering::Less,
            (true, false) => Ordering::Greater,
            (false, true) if key.nulls_first => Ordering::Greater,
            (false, true) => Ordering::Less,
            _ => {
                let o = types::compare(x, y);
                if key.desc {
                    o.reverse()
                } else {
                    o
                }
            }
        };
        if o != Ordering::Equal {
            return o;
        }
    }
    Ordering::Equal
}
