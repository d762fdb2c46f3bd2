//! Declarative partitioning as the catalog keeps it: a partitioned table's key
//! (pg_partitioned_table) and a partition's parent and bound (pg_inherits, pg_class.relpartbound).
//!
//! Both live in the relation version ([`super::Relation::partition`]), so they commit, roll back
//! and survive restarts with the rest of the table's definition. A partition names its parent
//! by OID; the parent does not list its partitions: the SQL layer finds them by looking for the
//! visible versions that name it (`sql::partition`), so creating or dropping a partition never
//! writes a new version of its parent. Bound values are kept as text (the key type's output
//! form) and read back as values by the SQL layer, which knows the types; the bound as
//! pg_get_expr prints it is made once, when the partition is made.

use serde::{Deserialize, Serialize};

use super::{IndexItem, Oid};

/// PARTITION BY RANGE / LIST / HASH (pg_partitioned_table.partstrat).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Strategy {
    Range,
    List,
    Hash,
}

impl Strategy {
    pub fn code(self) -> char {
        match self {
            Strategy::Range => 'r',
            Strategy::List => 'l',
            Strategy::Hash => 'h',
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Strategy::Range => "RANGE",
            Strategy::List => "LIST",
            Strategy::Hash => "HASH",
        }
    }
}

/// A partitioned table's key: its items (columns or expressions over the table's columns) and
/// the type of each.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PartitionKey {
    pub strategy: Strategy,
    pub items: Vec<IndexItem>,
    /// The type OID (and typmod) of each item.
    pub types: Vec<(Oid, i32)>,
}

/// One value of a range bound.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum RangeDatum {
    MinValue,
    MaxValue,
    /// The value as its type's output text.
    Value(String),
}

/// FOR VALUES ... of a partition.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum BoundSpec {
    Default,
    /// IN (...): each value as its type's output text, None for NULL.
    List(Vec<Option<String>>),
    Range {
        from: Vec<RangeDatum>,
        to: Vec<RangeDatum>,
    },
    Hash {
        modulus: u32,
        remainder: u32,
    },
}

/// A partition's place: its parent and bound.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PartitionOf {
    pub parent: Oid,
    pub bound: BoundSpec,
    /// The bound as pg_get_expr(relpartbound) prints it (`FOR VALUES IN (1, 2)`).
    pub shown: String,
    /// The parent's key, which the bound is in terms of (a copy: the planner reads a leaf's
    /// bound without its parent).
    pub key: PartitionKey,
}

/// What a relation version holds about partitioning: its key when it is partitioned, its
/// parent when it is a partition (a partition may be both).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct Partitioning {
    pub key: Option<PartitionKey>,
    pub of: Option<PartitionOf>,
}
