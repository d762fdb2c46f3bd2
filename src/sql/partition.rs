//! Declarative partitioning in the SQL layer: a partitioned table's partitions and their bounds
//! as values, which partition a row belongs to, which partitions a query's constants can
//! reach, and bounds printed as PostgreSQL prints them.
//!
//! # Where things live
//!
//! The catalog keeps a partitioned table's key and each partition's parent and bound in the
//! relation versions themselves (`catalog::partition`): the key with the parent, the bound with
//! the partition. A parent does not list its partitions. [`Descriptor::of`] builds PostgreSQL's
//! "partition descriptor" when it is needed, from the relation versions the statement's
//! snapshot sees: the partitions are the versions whose parent is the table, their bounds are
//! read back from text into values of the key's types, and they are put in bound order (range
//! by lower bound, list by smallest value, hash by modulus then remainder, the default last),
//! the order PostgreSQL's Append lists them in. A plan holds the partitions it was made with;
//! creating, attaching or dropping a partition bumps the catalog epoch, so plans are made again.
//!
//! # Routing
//!
//! A row written to a partitioned table goes to the partition whose bound holds its key
//! ([`Descriptor::find`]): a list partition when one of its values equals the key (NULL keys
//! go to the partition that lists NULL), a range partition when lower <= key < upper compared
//! as tuples (MINVALUE below and MAXVALUE above every value), a hash partition when the key's
//! hash modulo its modulus is its remainder; else the default partition. A partition that is
//! itself partitioned routes again, down to a leaf. A row no partition takes fails with 23514,
//! as PostgreSQL's does. A row written straight to a partition is checked against the bounds
//! of the partition and of each ancestor (PostgreSQL's partition constraint).
//!
//! # Bounds
//!
//! A table has at most [`MAX_PARTITIONS`] partitions, and partitions nest at most
//! [`MAX_DEPTH`] levels deep; CREATE TABLE ... PARTITION OF past either fails with 54000
//! (PostgreSQL has no such limits, but every routing and every scan of the parent walks the
//! tree, so it is kept finite and shallow).

use std::cmp::Ordering;
use std::sync::Arc;

use crate::catalog::partition::{BoundSpec, PartitionKey, RangeDatum};
use crate::catalog::IndexItem;
use crate::error::{code, PgError, PgResult};
use crate::sql::engine::{Rel, SqlCatalog};
use crate::sql::types::{self, FormatCtx, Type, Value};
use crate::txn::Snapshot;

/// The most partitions one partitioned table may have.
pub const MAX_PARTITIONS: usize = 8192;
/// The deepest a partition may be below its root (a partition of a partition of ... ).
pub const MAX_DEPTH: usize = 32;

/// One datum of a range bound, as a value.
#[derive(Debug, Clone, PartialEq)]
pub enum Datum {
    Min,
    Max,
    Val(Value),
}

/// A partition's bound as values of the key's types.
#[derive(Debug, Clone, PartialEq)]
pub enum Bound {
    Default,
    List(Vec<Value>),
    Range { from: Vec<Datum>, to: Vec<Datum> },
    Hash { modulus: u32, remainder: u32 },
}

/// The partitions of one partitioned table, in bound order.
pub struct Descriptor {
    pub parts: Vec<(Arc<Rel>, Bound)>,
    /// The key's item types.
    pub types: Vec<(u32, i32)>,
}

/// The text of a value as the catalog keeps it (its type's output form, a fixed format).
pub fn datum_text(v: &Value, ty: Type) -> String {
    types::io::to_text(v, ty, &FormatCtx::default())
}

fn datum_value(s: &str, ty: (u32, i32)) -> PgResult<Value> {
    types::io::from_text(s, Type(ty.0), ty.1, &FormatCtx::default())
}

/// A catalog bound read back as values of the key's types.
pub fn bound_values(key: &PartitionKey, b: &BoundSpec) -> PgResult<Bound> {
    let ty0 = key.types.first().copied().unwrap_or((25, -1));
    Ok(match b {
        BoundSpec::Default => Bound::Default,
        BoundSpec::List(vals) => Bound::List(
            vals.iter()
                .map(|v| match v {
                    None => Ok(Value::Null),
                    Some(s) => datum_value(s, ty0),
                })
                .collect::<PgResult<_>>()?,
        ),
        BoundSpec::Range { from, to } => {
            let conv = |ds: &[RangeDatum]| -> PgResult<Vec<Datum>> {
                ds.iter()
                    .zip(&key.types)
                    .map(|(d, ty)| {
                        Ok(match d {
                            RangeDatum::MinValue => Datum::Min,
                            RangeDatum::MaxValue => Datum::Max,
                            RangeDatum::Value(s) => Datum::Val(datum_value(s, *ty)?),
                        })
                    })
                    .collect()
            };
            Bound::Range {
                from: conv(from)?,
                to: conv(to)?,
            }
        }
        BoundSpec::Hash { modulus, remainder } => Bound::Hash {
            modulus: *modulus,
            remainder: *remainder,
        },
    })
}

/// The partitions of `parent` that `snap` sees (unordered), with their catalog bounds.
pub fn children(catalog: &SqlCatalog, snap: &Snapshot, parent: &Rel) -> Vec<Arc<Rel>> {
    catalog
        .visible(snap)
        .into_iter()
        .filter(|r| {
            r.name.database == parent.name.database
                && r.partition_of().is_some_and(|p| p.parent == parent.oid)
        })
        .collect()
}

/// The leaf tables under `rel` at every level, level by level (at most [`MAX_DEPTH`] levels
/// down: a damaged catalog cannot loop); `rel` itself when it is not partitioned.
pub fn leaves(catalog: &SqlCatalog, snap: &Snapshot, rel: &Arc<Rel>) -> Vec<Arc<Rel>> {
    let mut level = vec![rel.clone()];
    let mut out = Vec::new();
    for _ in 0..=MAX_DEPTH {
        let mut next = Vec::new();
        for t in level {
            if t.partition_key().is_some() {
                next.extend(children(catalog, snap, &t));
            } else {
                out.push(t);
            }
        }
        if next.is_empty() {
            break;
        }
        level = next;
    }
    out
}

/// 54000 when a partition would sit `depth` levels below its root ([`MAX_DEPTH`] at most).
pub fn check_depth(depth: usize) -> PgResult<()> {
    if depth >= MAX_DEPTH {
        return Err(PgError::new(
            code::PROGRAM_LIMIT_EXCEEDED,
            format!("partitions may nest at most {MAX_DEPTH} levels deep"),
        ));
    }
    Ok(())
}

/// Compares two range bound tuples (MINVALUE below and MAXVALUE above every value); also the
/// index of the first datum that differs (for error positions).
pub fn cmp_bounds(a: &[Datum], b: &[Datum]) -> (Ordering, usize) {
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        let o = match (x, y) {
            (Datum::Min, Datum::Min) | (Datum::Max, Datum::Max) => return (Ordering::Equal, i),
            (Datum::Min, _) | (_, Datum::Max) => Ordering::Less,
            (Datum::Max, _) | (_, Datum::Min) => Ordering::Greater,
            (Datum::Val(x), Datum::Val(y)) => types::compare(x, y),
        };
        if o != Ordering::Equal {
            return (o, i);
        }
    }
    (Ordering::Equal, 0)
}

/// Compares a key (no NULLs) with a range bound tuple.
fn cmp_key(key: &[Value], b: &[Datum]) -> Ordering {
    for (k, d) in key.iter().zip(b) {
        let o = match d {
            Datum::Min => return Ordering::Greater,
            Datum::Max => return Ordering::Less,
            Datum::Val(v) => types::compare(k, v),
        };
        if o != Ordering::Equal {
            return o;
        }
    }
    Ordering::Equal
}

/// The smallest thing a bound holds, for putting partitions in PostgreSQL's order.
fn order_key(a: &Bound, b: &Bound) -> Ordering {
    match (a, b) {
        (Bound::Default, Bound::Default) => Ordering::Equal,
        (Bound::Default, _) => Ordering::Greater,
        (_, Bound::Default) => Ordering::Less,
        (Bound::Range { from: x, .. }, Bound::Range { from: y, .. }) => cmp_bounds(x, y).0,
        (Bound::List(x), Bound::List(y)) => {
            let least = |v: &Vec<Value>| {
                v.iter()
                    .filter(|v| !v.is_null())
                    .min_by(|a, b| types::compare(a, b))
                    .cloned()
            };
            match (least(x), least(y)) {
                (Some(a), Some(b)) => types::compare(&a, &b),
                // A partition holding only NULL comes after those holding values.
                (None, Some(_)) => Ordering::Greater,
                (Some(_), None) => Ordering::Less,
                (None, None) => Ordering::Equal,
            }
        }
        (
            Bound::Hash {
                modulus: m1,
                remainder: r1,
            },
            Bound::Hash {
                modulus: m2,
                remainder: r2,
            },
        ) => (m1, r1).cmp(&(m2, r2)),
        _ => Ordering::Equal,
    }
}

impl Descriptor {
    /// The partitions of `parent` (which must be partitioned) in bound order.
    pub fn of(catalog: &SqlCatalog, snap: &Snapshot, parent: &Rel) -> PgResult<Descriptor> {
        let key = parent
            .partition_key()
            .ok_or_else(|| PgError::internal("not a partitioned table"))?;
        let mut parts = Vec::new();
        for c in children(catalog, snap, parent) {
            let Some(of) = c.partition_of() else { continue };
            let b = bound_values(key, &of.bound)?;
            parts.push((c, b));
        }
        parts.sort_by(|a, b| order_key(&a.1, &b.1).then(a.0.oid.cmp(&b.0.oid)));
        Ok(Descriptor {
            parts,
            types: key.types.clone(),
        })
    }

    /// The partition (position in `parts`) whose bound holds `key`, else the default one.
    pub fn find(&self, key: &[Value]) -> Option<usize> {
        let hit = self
            .parts
            .iter()
            .position(|(_, b)| holds(b, key, &self.types));
        hit.or_else(|| {
            self.parts
                .iter()
                .position(|(_, b)| matches!(b, Bound::Default))
        })
    }
}

/// Whether bound `b` (not the default) holds `key`.
pub fn holds(b: &Bound, key: &[Value], types_: &[(u32, i32)]) -> bool {
    match b {
        Bound::Default => false,
        Bound::List(vals) => {
            let k = &key[0];
            vals.iter().any(|v| match (v.is_null(), k.is_null()) {
                (true, true) => true,
                (false, false) => types::compare(v, k) == Ordering::Equal,
                _ => false,
            })
        }
        Bound::Range { from, to } => {
            !key.iter().any(Value::is_null)
                && cmp_key(key, from) != Ordering::Less
                && cmp_key(key, to) == Ordering::Less
        }
        Bound::Hash { modulus, remainder } => {
            super::partition_hash::row_hash(key, types_) % u64::from(*modulus)
                == u64::from(*remainder)
        }
    }
}

/// The partitioned tables above `rel`, nearest first (at most [`MAX_DEPTH`]).
pub fn ancestors(
    cx: &mut dyn crate::sql::context::SessionCtx,
    rel: &Rel,
) -> PgResult<Vec<Arc<Rel>>> {
    let rels = crate::sql::context::database_relations(cx)?;
    let mut out: Vec<Arc<Rel>> = Vec::new();
    let mut cur = rel.partition_of().map(|p| p.parent);
    while let Some(oid) = cur {
        if out.len() > MAX_DEPTH {
            break;
        }
        let Some(r) = rels.iter().find(|r| r.oid == oid) else {
            break;
        };
        cur = r.partition_of().map(|p| p.parent);
        out.push(r.clone());
    }
    Ok(out)
}

/// A value as pg_get_expr prints a constant in a partition bound (no type label): int4
/// unquoted unless negative, numeric unquoted when it looks like a float, booleans as words,
/// everything else quoted.
pub fn show_value(v: &Value, ty: Type, fmt: &FormatCtx) -> String {
    if v.is_null() {
        return "NULL".into();
    }
    let s = types::io::to_text(v, ty, fmt);
    match ty {
        Type::INT4 if !s.starts_with('-') => s,
        Type::NUMERIC
            if s.starts_with(|c: char| c.is_ascii_digit()) && s.contains(['e', 'E', '.']) =>
        {
            s
        }
        Type::BOOL => if s == "t" { "true" } else { "false" }.into(),
        _ => format!("'{}'", s.replace('\'', "''")),
    }
}

/// A range bound tuple as PostgreSQL prints it: `(1, MINVALUE)`.
pub fn show_range(ds: &[Datum], types_: &[(u32, i32)], fmt: &FormatCtx) -> String {
    let items: Vec<String> = ds
        .iter()
        .zip(types_)
        .map(|(d, ty)| match d {
            Datum::Min => "MINVALUE".into(),
            Datum::Max => "MAXVALUE".into(),
            Datum::Val(v) => show_value(v, Type(ty.0), fmt),
        })
        .collect();
    format!("({})", items.join(", "))
}

/// `FOR VALUES ...` of a bound, as pg_get_expr(relpartbound) prints it.
pub fn show_bound(b: &Bound, key: &PartitionKey, fmt: &FormatCtx) -> String {
    match b {
        Bound::Default => "DEFAULT".into(),
        Bound::List(vals) => {
            let ty = Type(key.types.first().map_or(25, |t| t.0));
            let items: Vec<String> = vals.iter().map(|v| show_value(v, ty, fmt)).collect();
            format!("FOR VALUES IN ({})", items.join(", "))
        }
        Bound::Range { from, to } => format!(
            "FOR VALUES FROM {} TO {}",
            show_range(from, &key.types, fmt),
            show_range(to, &key.types, fmt)
        ),
        Bound::Hash { modulus, remainder } => {
            format!("FOR VALUES WITH (modulus {modulus}, remainder {remainder})")
        }
    }
}

/// DETAIL of a row no partition takes: `Partition key of the failing row contains (a) = (5).`
/// (names as pg_get_partkeydef prints the items, values in their text forms, each cut at 64
/// bytes as PostgreSQL cuts them).
pub fn key_detail(
    names: &[String],
    key: &[Value],
    types_: &[(u32, i32)],
    fmt: &FormatCtx,
) -> String {
    let vals: Vec<String> = key
        .iter()
        .zip(types_)
        .map(|(v, ty)| {
            if v.is_null() {
                "null".into()
            } else {
                let s = types::io::to_text(v, Type(ty.0), fmt);
                match s.char_indices().nth(64) {
                    Some((i, _)) => format!("{}...", &s[..i]),
                    None => s,
                }
            }
        })
        .collect();
    format!(
        "Partition key of the failing row contains ({}) = ({}).",
        names.join(", "),
        vals.join(", ")
    )
}

/// The error of a row that no partition of `rel` takes.
pub fn no_partition(rel: &Rel, detail: String) -> PgError {
    PgError::new(
        code::CHECK_VIOLATION,
        format!(
            "no partition of relation \"{}\" found for row",
            rel.name.name
        ),
    )
    .with_detail(detail)
    .with_table(&rel.name.schema, &rel.name.name)
}

/// The default btree (hash for HASH partitioning) operator class of a key type, as
/// pg_partitioned_table.partclass names it (PostgreSQL 15's OIDs); 0 for a type without one
/// listed here.
pub fn opclass_of(ty: u32, strategy: crate::catalog::partition::Strategy) -> u32 {
    let hash = strategy == crate::catalog::partition::Strategy::Hash;
    let (btree, h) = match ty {
        20 => (3124, 10021),
        16 => (10003, 10048),
        17 => (10006, 10049),
        1042 => (10004, 10005),
        1082 => (3122, 10011),
        701 => (3123, 10014),
        23 => (1978, 10020),
        19 => (10028, 10029),
        1700 => (3125, 10030),
        26 => (1981, 10031),
        700 => (10012, 10013),
        21 => (1979, 10019),
        25 | 1043 => (3126, 10037),
        1083 => (10038, 10039),
        1184 => (3127, 10040),
        1114 => (3128, 10046),
        2950 => (10065, 10066),
        _ => (0, 0),
    };
    if hash {
        h
    } else {
        btree
    }
}

/// The key's expression items bound over the table's columns, in key order.
pub fn key_exprs(
    key: &PartitionKey,
    columns: &[crate::catalog::ColumnDef],
) -> PgResult<Vec<crate::sql::plan::Expr>> {
    let mut out = Vec::new();
    for it in &key.items {
        if let IndexItem::Expr(t) = it {
            let n = crate::sql::plan::modify::parse_expr(t)?;
            out.push(crate::sql::plan::partial::bind_index_text(columns, &n, false)?.0);
        }
    }
    Ok(out)
}
