//! pg_operator: PostgreSQL 15's rows for the operators threadgres implements.
//!
//! `pg_operator.tsv` (made by scripts/gen_pg_operator.py) holds PostgreSQL's rows for every
//! operator *name* in `types::ops`; a row is listed only when `binary_operators` /
//! `unary_operators` has its signature, so every listed operator can be called with the types
//! it names. PostgreSQL's polymorphic signatures (`anycompatiblearray || anycompatible`,
//! `text || anynonarray`) match threadgres' `anyarray` / `anyelement` candidates, which its
//! resolution treats the same way. threadgres' signatures PostgreSQL does not have are not
//! listed (they have no OID), and a commutator or negator that is not listed reads as 0.

use std::collections::HashSet;
use std::sync::OnceLock;

use crate::sql::types::ops::{binary_operators, range_operators, unary_operators};
use crate::sql::types::{Type, Value};

/// pg_operator's OID.
pub const PG_OPERATOR: u32 = 2617;

/// One pg_operator row.
#[derive(Debug)]
pub struct Operator {
    pub oid: u32,
    pub name: String,
    pub kind: char,
    pub canmerge: bool,
    pub canhash: bool,
    pub left: u32,
    pub right: u32,
    pub result: u32,
    pub com: u32,
    pub negate: u32,
    /// oprcode, oprrest, oprjoin: (function OID, name); (0, "-") for none.
    pub funcs: [(u32, String); 3],
}

fn parse(line: &str) -> Option<Operator> {
    let f: Vec<&str> = line.split('\t').collect();
    if f.len() != 16 {
        return None;
    }
    let func = |i: usize| -> Option<(u32, String)> { Some((f[i].parse().ok()?, f[i + 1].into())) };
    Some(Operator {
        oid: f[0].parse().ok()?,
        name: f[1].to_string(),
        kind: f[2].chars().next()?,
        canmerge: f[3] == "t",
        canhash: f[4] == "t",
        left: f[5].parse().ok()?,
        right: f[6].parse().ok()?,
        result: f[7].parse().ok()?,
        com: f[8].parse().ok()?,
        negate: f[9].parse().ok()?,
        funcs: [func(10)?, func(12)?, func(14)?],
    })
}

/// The type threadgres' operator tables use for one of PostgreSQL's argument types.
fn own_type(oid: u32) -> Type {
    match oid {
        // anycompatible, anynonarray, anycompatiblenonarray
        5077 | 2776 | 5079 => Type::ANYELEMENT,
        // anycompatiblearray
        5078 => Type::ANYARRAY,
        _ => Type(oid),
    }
}

/// Whether threadgres implements PostgreSQL's operator `o`.
fn implemented(o: &Operator) -> bool {
    // Every type the row names has a pg_type row (0: none, a prefix operator's left).
    if ![o.left, o.right, o.result]
        .iter()
        .all(|&t| t == 0 || super::type_exists(t))
    {
        return false;
    }
    let (l, r) = (own_type(o.left), own_type(o.right));
    match o.kind {
        // The range and multirange operators are in their own table (anyrange,
        // anymultirange and anyelement signatures, as PostgreSQL's rows name them).
        'b' => binary_operators(&o.name)
            .iter()
            .chain(range_operators(&o.name))
            .any(|b| b.left == l && b.right == r),
        'l' => unary_operators(&o.name).iter().any(|u| u.arg == r),
        _ => false,
    }
}

/// The listed operators, in OID order.
pub fn operators() -> &'static [Operator] {
    static OPS: OnceLock<Vec<Operator>> = OnceLock::new();
    OPS.get_or_init(|| {
        let mut ops: Vec<Operator> = include_str!("pg_operator.tsv")
            .lines()
            .filter(|l| !l.starts_with('#') && !l.is_empty())
            .filter_map(parse)
            .filter(implemented)
            .collect();
        let listed: HashSet<u32> = ops.iter().map(|o| o.oid).collect();
        for o in &mut ops {
            if !listed.contains(&o.com) {
                o.com = 0;
            }
            if !listed.contains(&o.negate) {
                o.negate = 0;
            }
        }
        ops
    })
}

/// The name of a function a listed operator refers to (regproc output).
pub fn func_name(oid: u32) -> Option<&'static str> {
    if oid == 0 {
        return None;
    }
    operators()
        .iter()
        .flat_map(|o| o.funcs.iter())
        .find(|f| f.0 == oid)
        .map(|f| f.1.as_str())
}

/// The OID of a function a listed operator refers to, by name (regproc input; operator
/// functions have one row per name).
pub fn func_oid(name: &str) -> Option<u32> {
    operators()
        .iter()
        .flat_map(|o| o.funcs.iter())
        .find(|f| f.0 != 0 && f.1 == name)
        .map(|f| f.0)
}

/// The rows of pg_operator, in the column order of its relation.
pub fn rows() -> Vec<Vec<Value>> {
    operators()
        .iter()
        .map(|o| {
            super::fixed::build_row(PG_OPERATOR, |c| {
                Some(match c {
                    "oid" => Value::Oid(o.oid),
                    "oprname" => Value::Text(o.name.clone()),
                    "oprnamespace" => Value::Oid(11),
                    "oprowner" => Value::Oid(super::fixed::BOOTSTRAP_SUPERUSER),
                    "oprkind" => Value::Text(o.kind.to_string()),
                    "oprcanmerge" => Value::Bool(o.canmerge),
                    "oprcanhash" => Value::Bool(o.canhash),
                    "oprleft" => Value::Oid(o.left),
                    "oprright" => Value::Oid(o.right),
                    "oprresult" => Value::Oid(o.result),
                    "oprcom" => Value::Oid(o.com),
                    "oprnegate" => Value::Oid(o.negate),
                    "oprcode" => Value::Oid(o.funcs[0].0),
                    "oprrest" => Value::Oid(o.funcs[1].0),
                    "oprjoin" => Value::Oid(o.funcs[2].0),
                    _ => return None,
                })
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn common_operators_are_listed() {
        let ops = operators();
        assert!(ops.len() > 200, "{} operators", ops.len());
        assert!(ops.windows(2).all(|w| w[0].oid < w[1].oid));
        // int4 = int4 (96) with its negator int4 <> int4 (518); text || text (654).
        let eq = ops.iter().find(|o| o.oid == 96).expect("int4 = int4");
        assert_eq!((eq.com, eq.negate), (96, 518));
        assert_eq!(eq.funcs[0].1, "int4eq");
        assert!(ops.iter().any(|o| o.oid == 654));
        assert_eq!(func_name(65), Some("int4eq"));
    }
}
