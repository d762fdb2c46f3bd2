//! Virtual tables: the catalogs and views computed from the instance's state
//! (pg_stat_activity, pg_settings, pg_type, ...) or empty until tables exist (pg_class,
//! pg_attribute, information_schema's relations, ...). A FROM item names one by schema and name
//! (`virtual_table`); its columns are the catalog relation's (`virtual_columns`); the executor
//! computes the rows (exec/scan.rs).

use super::nodes::Column;
use crate::sql::catalog;
use crate::sql::types::Type;

/// Relations computed from the instance's state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VirtualTable {
    StatActivity,
    StatNotify,
    /// pg_hba_file_rules: the host rules file as it is on disk (`hba`).
    HbaFileRules,
    Database,
    Settings,
    Type,
    Namespace,
    /// Catalogs that exist but are empty until tables do (pg_class, pg_attribute, ...), by
    /// relation OID.
    Empty(u32),
}

/// The catalogs that hold passwords, which PostgreSQL grants no PUBLIC SELECT on (other
/// catalogs are readable by everyone and need no check): pg_authid (a table) and pg_shadow (a
/// view).
pub(super) fn guarded_catalog(vt: VirtualTable) -> Option<(u32, &'static str, &'static str)> {
    match vt {
        VirtualTable::Empty(1260) => Some((1260, "table", "pg_authid")),
        VirtualTable::Empty(12005) => Some((12005, "view", "pg_shadow")),
        _ => None,
    }
}

pub(super) fn virtual_table(schema: &str, name: &str) -> Option<VirtualTable> {
    if schema == "information_schema" {
        return Some(VirtualTable::Empty(
            catalog::information_schema_relation(name)?.oid,
        ));
    }
    if !(schema.is_empty() || schema == "pg_catalog" || schema == "threadgres") {
        return None;
    }
    Some(match name {
        "pg_stat_activity" => VirtualTable::StatActivity,
        "pg_stat_notify" => VirtualTable::StatNotify,
        "pg_hba_file_rules" => VirtualTable::HbaFileRules,
        "pg_database" => VirtualTable::Database,
        "pg_settings" => VirtualTable::Settings,
        "pg_type" => VirtualTable::Type,
        "pg_namespace" => VirtualTable::Namespace,
        _ => VirtualTable::Empty(catalog::relation(name)?.oid),
    })
}

fn col(name: &str, ty: Type) -> Column {
    Column {
        name: name.to_string(),
        ty,
        typmod: -1,
        origin: None,
    }
}

/// The catalog relation a virtual table is (None for threadgres' own views).
pub fn virtual_relation(vt: VirtualTable) -> Option<&'static catalog::Relation> {
    let name = match vt {
        VirtualTable::StatActivity => "pg_stat_activity",
        VirtualTable::StatNotify => return None,
        VirtualTable::HbaFileRules => "pg_hba_file_rules",
        VirtualTable::Database => "pg_database",
        VirtualTable::Settings => "pg_settings",
        VirtualTable::Type => "pg_type",
        VirtualTable::Namespace => "pg_namespace",
        VirtualTable::Empty(oid) => return catalog::relation_by_oid(oid),
    };
    catalog::relation(name)
}

pub fn virtual_columns(vt: VirtualTable) -> Vec<Column> {
    if let Some(rel) = virtual_relation(vt) {
        return rel
            .columns
            .iter()
            .zip(1i16..)
            .map(|((n, t), attnum)| Column {
                origin: Some((rel.oid, attnum)),
                ..col(n, Type(*t))
            })
            .collect();
    }
    vec![
        col("notifications_sent", Type::INT8),
        col("notifications_delivered", Type::INT8),
        col("notifying_commits", Type::INT8),
        col("queue_bytes", Type::INT8),
        col("queue_max_bytes", Type::INT8),
        col("queue_usage", Type::FLOAT8),
        col("channels", Type::INT8),
    ]
}
