//! `array_ops`, the default GIN operator class of every array type: `&&`, `@>`, `<@`, `=`.
//!
//! A row's keys are its array's elements (a NULL element is the key `[NULL]`), and an empty
//! array has the one key `[NULL, NULL]`, which no element makes (PostgreSQL's "empty item"),
//! so that `<@` can find the empty arrays every array contains. Elements compare as the index
//! compares values (`engine::cmp_value`), which is the element type's equality.
//!
//! Queries: `&&` needs any of the query's non-NULL elements (none: no row); `@>` all of them
//! (none: every row; a NULL in the query: no row, as no array contains a NULL);
//! `<@` any of them or the empty array; `=` all of the query's elements, NULLs included (an
//! empty query: the empty arrays).

use super::{GinOpclass, Key, Match};
use crate::catalog::Oid;
use crate::error::PgResult;
use crate::sql::types::{Type, Value};

pub(super) struct ArrayOps;

pub(super) static ARRAY_OPS: ArrayOps = ArrayOps;

fn elem_key(v: &Value) -> Key {
    Key(vec![v.clone()].into_boxed_slice())
}

fn empty_key() -> Key {
    Key(vec![Value::Null, Value::Null].into_boxed_slice())
}

fn items(v: &Value) -> &[Value] {
    match v {
        Value::Array(a) => &a.items,
        _ => &[],
    }
}

impl GinOpclass for ArrayOps {
    fn name(&self) -> &'static str {
        "array_ops"
    }
    fn oid(&self) -> Oid {
        10064
    }
    fn family(&self) -> Oid {
        2745
    }
    fn is_default(&self) -> bool {
        true
    }
    fn input_type(&self) -> Type {
        Type::ANYARRAY
    }
    fn key_type(&self) -> Type {
        // anyelement
        Type(2283)
    }
    fn accepts(&self, ty: Type) -> bool {
        ty.is_array()
    }
    fn operators(&self) -> &'static [(&'static str, Type)] {
        &[
            ("&&", Type::ANYARRAY),
            ("@>", Type::ANYARRAY),
            ("<@", Type::ANYARRAY),
            ("=", Type::ANYARRAY),
        ]
    }
    fn extract_value(&self, value: &Value, out: &mut Vec<Key>) -> PgResult<()> {
        let items = items(value);
        if items.is_empty() {
            out.push(empty_key());
        }
        out.extend(items.iter().map(elem_key));
        Ok(())
    }
    fn extract_query(&self, op: &str, query: &Value) -> PgResult<Match> {
        let items = items(query);
        let non_null = || -> Vec<Key> {
            let mut k: Vec<Key> = items
                .iter()
                .filter(|v| !v.is_null())
                .map(elem_key)
                .collect();
            k.sort_unstable();
            k.dedup();
            k
        };
        Ok(match op {
            "&&" => {
                let k = non_null();
                if k.is_empty() {
                    Match::Nothing
                } else {
                    Match::Any(k)
                }
            }
            "@>" => {
                let k = non_null();
                if items.iter().any(Value::is_null) {
                    // A NULL element is contained in no array.
                    Match::Nothing
                } else if k.is_empty() {
                    Match::Everything
                } else {
                    Match::All(k)
                }
            }
            "<@" => {
                let mut k = non_null();
                k.push(empty_key());
                Match::Any(k)
            }
            "=" => {
                let mut k = Vec::new();
                self.extract_value(query, &mut k)?;
                k.sort_unstable();
                k.dedup();
                Match::All(k)
            }
            _ => Match::Everything,
        })
    }
}
