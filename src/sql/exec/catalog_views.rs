//! The rows of the system views over user relations that psql users and drivers read:
//! pg_tables, pg_indexes, pg_views and pg_matviews, built from the same catalog snapshot as pg_class (so a
//! table created in the transaction shows up, and a dropped one does not).
//!
//! PostgreSQL's views also list the catalogs' own tables, indexes and views (schemas
//! pg_catalog and information_schema); threadgres' catalogs are not relations in its catalog,
//! so these views list the user's relations only.

use crate::catalog::{ConstraintKind, RelKind};
use crate::sql::exec::EvalCx;
use crate::sql::func::system::catalog::index_definition;
use crate::sql::types::Value;

use super::catalog_rows::{build, role_names, visible_relations};
use super::Row;

const PG_VIEWS: u32 = 12028;
const PG_TABLES: u32 = 12033;
const PG_INDEXES: u32 = 12043;
const PG_MATVIEWS: u32 = 12038;
const PG_RULES: u32 = 12023;

/// Rows of view `oid`; None for the catalogs this file does not build.
pub(super) fn rows(oid: u32, cx: &mut EvalCx) -> Option<Vec<Row>> {
    if !matches!(
        oid,
        PG_VIEWS | PG_TABLES | PG_INDEXES | PG_MATVIEWS | PG_RULES
    ) {
        return None;
    }
    let rels = visible_relations(cx);
    let names = role_names(cx);
    // pg_get_userbyid prints an unknown owner as `unknown (OID=n)`.
    let owner = |o: u32| {
        Value::Text(
            names
                .get(&o)
                .cloned()
                .unwrap_or_else(|| format!("unknown (OID={o})")),
        )
    };
    Some(match oid {
        PG_RULES => {
            let quote = crate::sql::quote::quote_ident;
            let mut out = Vec::new();
            for r in &rels {
                let table = format!("{}.{}", quote(&r.name.schema), quote(&r.name.name));
                for rule in &r.rules {
                    let def = crate::sql::ruleutils::rule::ruledef(rule, &table, false);
                    out.push(build(PG_RULES, |c| match c {
                        "schemaname" => Value::Text(r.name.schema.clone()),
                        "tablename" => Value::Text(r.name.name.clone()),
                        "rulename" => Value::Text(rule.name.clone()),
                        "definition" => Value::Text(def.clone()),
                        _ => Value::Null,
                    }));
                }
            }
            out
        }
        PG_TABLES => {
            // As pg_class.relhastriggers: a foreign key's triggers sit on both of its tables.
            let fk_tables: std::collections::HashSet<u32> = rels
                .iter()
                .flat_map(|r| {
                    r.constraints.iter().filter_map(move |k| match &k.kind {
                        ConstraintKind::ForeignKey { ref_table, .. } => Some([r.oid, *ref_table]),
                        _ => None,
                    })
                })
                .flatten()
                .collect();
            rels.iter()
                .filter(|r| r.kind == RelKind::Table)
                .map(|r| {
                    build(PG_TABLES, |c| match c {
                        "schemaname" => Value::Text(r.name.schema.clone()),
                        "tablename" => Value::Text(r.name.name.clone()),
                        "tableowner" => owner(r.owner),
                        "hasindexes" => Value::Bool(!r.indexes.is_empty()),
                        "hastriggers" => Value::Bool(fk_tables.contains(&r.oid)),
                        "hasrules" => Value::Bool(!r.rules.is_empty()),
                        "rowsecurity" => Value::Bool(false),
                        _ => Value::Null,
                    })
                })
                .collect()
        }
        PG_INDEXES => rels
            .iter()
            .filter(|r| r.kind == RelKind::Index)
            .filter_map(|idx| {
                let def = idx.indexes.first()?;
                let table = rels.iter().find(|t| Some(t.oid) == idx.table)?;
                let text = index_definition(idx, def, table);
                Some(build(PG_INDEXES, |c| match c {
                    "schemaname" => Value::Text(table.name.schema.clone()),
                    "tablename" => Value::Text(table.name.name.clone()),
                    "indexname" => Value::Text(idx.name.name.clone()),
                    "indexdef" => Value::Text(text.clone()),
                    _ => Value::Null,
                }))
            })
            .collect(),
        PG_MATVIEWS => {
            let views: Vec<_> = rels.iter().filter(|r| r.kind == RelKind::MatView).collect();
            let mut out = Vec::with_capacity(views.len());
            for v in views {
                let def = crate::sql::ruleutils::viewdef::view_definition(cx.session, v);
                out.push(build(PG_MATVIEWS, |c| match c {
                    "schemaname" => Value::Text(v.name.schema.clone()),
                    "matviewname" => Value::Text(v.name.name.clone()),
                    "matviewowner" => owner(v.owner),
                    "hasindexes" => Value::Bool(!v.indexes.is_empty()),
                    "ispopulated" => Value::Bool(v.matview.as_ref().is_some_and(|m| m.populated)),
                    "definition" => def.clone().map_or(Value::Null, Value::Text),
                    _ => Value::Null,
                }));
            }
            out
        }
        _ => {
            let views: Vec<_> = rels.iter().filter(|r| r.kind == RelKind::View).collect();
            let mut out = Vec::with_capacity(views.len());
            for v in views {
                let def = crate::sql::ruleutils::viewdef::view_definition(cx.session, v);
                out.push(build(PG_VIEWS, |c| match c {
                    "schemaname" => Value::Text(v.name.schema.clone()),
                    "viewname" => Value::Text(v.name.name.clone()),
                    "viewowner" => owner(v.owner),
                    "definition" => def.clone().map_or(Value::Null, Value::Text),
                    _ => Value::Null,
                }));
            }
            out
        }
    })
}
