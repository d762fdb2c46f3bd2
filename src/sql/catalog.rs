//! The system catalog rows threadgres exposes: which catalog relations exist (with PostgreSQL
//! 15's OIDs, column names, column types and attribute numbers, so that RowDescription and
//! introspection queries match), the pg_type rows of the built-in types threadgres implements,
//! and the names of the I/O functions those rows refer to (regproc output).
//!
//! The data is PostgreSQL 15's catalog contents for these objects, written out as tables; the
//! rows themselves are produced in `exec.rs` (virtual tables) from these tables and the
//! instance's state.
//!
//! One file per group: `relations.rs` the relation definitions (columns), `types.rs` pg_type's
//! rows and the I/O functions they name.

pub mod aggregates;
pub mod fixed;
mod info_schema;
pub mod operators;
pub mod procs;
mod relations;
mod relations_empty;
mod types;
mod types_extra;
mod types_range;

use info_schema::INFORMATION_SCHEMA;
use relations::RELATIONS;
use relations_empty::RELATIONS_EMPTY;
pub use types::{
    align_and_storage, io_proc_type, proc_name, proc_oid, type_exists, type_oids, type_rows,
};
pub use types_range::RANGES;

/// A catalog relation (table or view) as PostgreSQL 15 defines it.
#[derive(Debug)]
pub struct Relation {
    pub name: &'static str,
    pub oid: u32,
    /// (name, type OID) in attribute-number order (attnum = index + 1).
    pub columns: &'static [(&'static str, u32)],
}

/// The catalog relations of schema pg_catalog.
fn all_relations() -> impl Iterator<Item = &'static Relation> {
    RELATIONS.iter().chain(RELATIONS_EMPTY)
}

/// Looks a catalog relation up by name (without schema).
pub fn relation(name: &str) -> Option<&'static Relation> {
    all_relations().find(|r| r.name == name)
}

/// Looks a catalog relation up by OID (information_schema's views included).
pub fn relation_by_oid(oid: u32) -> Option<&'static Relation> {
    all_relations()
        .chain(INFORMATION_SCHEMA)
        .find(|r| r.oid == oid)
}

/// Looks a view of schema information_schema up by name.
pub fn information_schema_relation(name: &str) -> Option<&'static Relation> {
    INFORMATION_SCHEMA.iter().find(|r| r.name == name)
}

/// The OID of a catalog relation named as in `'pg_type'::regclass`.
pub fn regclass_oid(name: &str) -> Option<u32> {
    let n = name.trim();
    let n = n.strip_prefix("pg_catalog.").unwrap_or(n);
    relation(n).map(|r| r.oid)
}

/// The name of a catalog relation by OID (regclass output).
pub fn regclass_name(oid: u32) -> Option<&'static str> {
    all_relations().find(|r| r.oid == oid).map(|r| r.name)
}

/// The namespaces every database has: (oid, name, owner).
pub const NAMESPACES: &[(u32, &str, u32)] = &[
    (99, "pg_toast", 10),
    (11, "pg_catalog", 10),
    // owned by pg_database_owner, as in PostgreSQL 15
    (2200, "public", 6171),
    (13207, "information_schema", 10),
];

/// A namespace's name by OID (regnamespace output).
pub fn namespace_name(oid: u32) -> Option<&'static str> {
    NAMESPACES.iter().find(|n| n.0 == oid).map(|n| n.1)
}

/// A namespace's OID by name (regnamespace input).
pub fn namespace_oid(name: &str) -> Option<u32> {
    let n = name.trim_matches('"');
    NAMESPACES.iter().find(|x| x.1 == n).map(|x| x.0)
}
