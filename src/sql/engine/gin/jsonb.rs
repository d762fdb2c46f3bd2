//! jsonb's GIN operator classes: `jsonb_ops` (the default: `@>`, `?`, `?|`, `?&`) and
//! `jsonb_path_ops` (`@>` only, smaller keys that also say where a value sits).
//!
//! `jsonb_ops` makes a key of every object key and of every scalar, flagged by what it is
//! (PostgreSQL's JGINFLAG_*: a key, null, boolean, number, string), a string element of an
//! array counting as a key (so that `?` finds it, as in PostgreSQL). `jsonb_path_ops` makes
//! one key per scalar: a hash of the object keys on the way to it and of the scalar. Keys are
//! 64-bit (`jsonb_ops`) and 32-bit (`jsonb_path_ops`, as PostgreSQL's) hashes, which the
//! recheck makes harmless when two collide. Numbers are hashed in one form per value (trailing
//! fractional zeros dropped), since `1.0` and `1` are equal in jsonb.
//!
//! A query's keys are the keys its operand would make: `@>` needs all of them (an empty
//! operand: every row), `?` its one key, `?|` any of its keys (none: no row), `?&` all of
//! them (none: every row).

use std::hash::{Hash, Hasher};

use super::{GinOpclass, Key, Match};
use crate::catalog::Oid;
use crate::error::PgResult;
use crate::sql::types::json::{self, Json, Node};
use crate::sql::types::{Type, Value};

pub(super) struct JsonbOps;
pub(super) struct JsonbPathOps;

pub(super) static JSONB_OPS: JsonbOps = JsonbOps;
pub(super) static JSONB_PATH_OPS: JsonbPathOps = JsonbPathOps;

/// PostgreSQL's flags of a jsonb_ops key.
const KEY: u8 = 1;
const NULL: u8 = 2;
const BOOL: u8 = 3;
const NUM: u8 = 4;
const STR: u8 = 5;

/// The parsed document of a jsonb value (stored as its normalized text).
fn parse(v: &Value) -> PgResult<Node> {
    match v {
        Value::Text(s) => json::parse(s, true),
        _ => Err(crate::error::PgError::internal("jsonb value expected")),
    }
}

/// A number in one text form per value: `1.50` and `1.5` alike.
fn number_form(n: &str) -> &str {
    if n.contains('.') && !n.contains(['e', 'E']) {
        let t = n.trim_end_matches('0');
        let t = t.strip_suffix('.').unwrap_or(t);
        if t == "-0" {
            return "0";
        }
        t
    } else {
        n
    }
}

fn hash64(flag: u8, s: &str) -> i64 {
    let mut h = rustc_hash::FxHasher::default();
    flag.hash(&mut h);
    s.hash(&mut h);
    h.finish() as i64
}

fn key(v: i64) -> Key {
    Key(vec![Value::Int8(v)].into_boxed_slice())
}

/// The flag and text of a scalar (None for a container).
fn scalar(v: &Json, as_key: bool) -> Option<(u8, &str)> {
    Some(match v {
        Json::Null => (NULL, ""),
        Json::Bool(b) => (BOOL, if *b { "t" } else { "f" }),
        Json::Number(n) => (NUM, number_form(n)),
        Json::String(s) => (if as_key { KEY } else { STR }, s.as_str()),
        _ => return None,
    })
}

/// jsonb_ops's keys of `n`; `elem`: `n` is an array element.
fn ops_keys(n: &Node, elem: bool, out: &mut Vec<Key>) -> PgResult<()> {
    crate::stack::check()?;
    match &n.v {
        Json::Object(fields) => {
            for (k, v) in fields {
                out.push(key(hash64(KEY, k)));
                ops_keys(v, false, out)?;
            }
        }
        Json::Array(items) => {
            for it in items {
                ops_keys(it, true, out)?;
            }
        }
        v => {
            if let Some((flag, text)) = scalar(v, elem) {
                out.push(key(hash64(flag, text)));
            }
        }
    }
    Ok(())
}

impl GinOpclass for JsonbOps {
    fn name(&self) -> &'static str {
        "jsonb_ops"
    }
    fn oid(&self) -> Oid {
        10090
    }
    fn family(&self) -> Oid {
        4036
    }
    fn is_default(&self) -> bool {
        true
    }
    fn input_type(&self) -> Type {
        Type::JSONB
    }
    fn key_type(&self) -> Type {
        Type::TEXT
    }
    fn accepts(&self, ty: Type) -> bool {
        ty == Type::JSONB
    }
    fn operators(&self) -> &'static [(&'static str, Type)] {
        &[
            ("@>", Type::JSONB),
            ("?", Type::TEXT),
            ("?|", Type::TEXT_ARRAY),
            ("?&", Type::TEXT_ARRAY),
        ]
    }
    fn extract_value(&self, value: &Value, out: &mut Vec<Key>) -> PgResult<()> {
        // A top-level scalar is an array of one element, as in PostgreSQL.
        let n = parse(value)?;
        let top_scalar = !matches!(n.v, Json::Object(_) | Json::Array(_));
        ops_keys(&n, top_scalar, out)
    }
    fn extract_query(&self, op: &str, query: &Value) -> PgResult<Match> {
        let strings = |q: &Value| -> Vec<Key> {
            match q {
                Value::Array(a) => a
                    .items
                    .iter()
                    .filter_map(|v| match v {
                        Value::Text(s) => Some(key(hash64(KEY, s))),
                        _ => None,
                    })
                    .collect(),
                _ => Vec::new(),
            }
        };
        Ok(match op {
            "@>" => {
                let mut keys = Vec::new();
                self.extract_value(query, &mut keys)?;
                keys.sort_unstable();
                keys.dedup();
                if keys.is_empty() {
                    Match::Everything
                } else {
                    Match::All(keys)
                }
            }
            "?" => match query {
                Value::Text(s) => Match::All(vec![key(hash64(KEY, s))]),
                _ => Match::Everything,
            },
            "?|" => {
                let keys = strings(query);
                if keys.is_empty() {
                    Match::Nothing
                } else {
                    Match::Any(keys)
                }
            }
            "?&" => {
                let keys = strings(query);
                if keys.is_empty() {
                    Match::Everything
                } else {
                    Match::All(keys)
                }
            }
            _ => Match::Everything,
        })
    }
}

/// jsonb_path_ops's keys of `n`, reached through object keys hashed into `path`.
fn path_keys(n: &Node, path: u64, out: &mut Vec<Key>) -> PgResult<()> {
    crate::stack::check()?;
    match &n.v {
        Json::Object(fields) => {
            for (k, v) in fields {
                let mut h = rustc_hash::FxHasher::default();
                path.hash(&mut h);
                k.hash(&mut h);
                path_keys(v, h.finish(), out)?;
            }
        }
        // Array elements sit at the array's path (PostgreSQL's path hash ignores arrays).
        Json::Array(items) => {
            for it in items {
                path_keys(it, path, out)?;
            }
        }
        v => {
            if let Some((flag, text)) = scalar(v, false) {
                let mut h = rustc_hash::FxHasher::default();
                path.hash(&mut h);
                flag.hash(&mut h);
                text.hash(&mut h);
                let x = h.finish();
                out.push(Key(
                    vec![Value::Int4((x ^ (x >> 32)) as u32 as i32)].into_boxed_slice()
                ));
            }
        }
    }
    Ok(())
}

impl GinOpclass for JsonbPathOps {
    fn name(&self) -> &'static str {
        "jsonb_path_ops"
    }
    fn oid(&self) -> Oid {
        10091
    }
    fn family(&self) -> Oid {
        4037
    }
    fn is_default(&self) -> bool {
        false
    }
    fn input_type(&self) -> Type {
        Type::JSONB
    }
    fn key_type(&self) -> Type {
        Type::INT4
    }
    fn accepts(&self, ty: Type) -> bool {
        ty == Type::JSONB
    }
    fn operators(&self) -> &'static [(&'static str, Type)] {
        &[("@>", Type::JSONB)]
    }
    fn extract_value(&self, value: &Value, out: &mut Vec<Key>) -> PgResult<()> {
        path_keys(&parse(value)?, 0, out)
    }
    fn extract_query(&self, op: &str, query: &Value) -> PgResult<Match> {
        if op != "@>" {
            return Ok(Match::Everything);
        }
        let mut keys = Vec::new();
        self.extract_value(query, &mut keys)?;
        keys.sort_unstable();
        keys.dedup();
        Ok(if keys.is_empty() {
            Match::Everything
        } else {
            Match::All(keys)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::number_form;

    #[test]
    fn equal_numbers_have_one_form() {
        assert_eq!(number_form("1.500"), "1.5");
        assert_eq!(number_form("1.0"), "1");
        assert_eq!(number_form("10"), "10");
        assert_eq!(number_form("-0.00"), "0");
        assert_eq!(number_form("100"), "100");
    }
}
