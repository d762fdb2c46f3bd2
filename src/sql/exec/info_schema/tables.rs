//! information_schema.tables, views and schemata: the relations and schemas a user may see.
//!
//! tables and views list a relation its user owns (or inherits the owner's privileges of) or
//! holds any privilege on, table- or column-level; schemata lists a schema its user owns or
//! may use or create in. Views are not automatically updatable in threadgres
//! (pg_relation_is_updatable finds nothing to update through), so they say NO where
//! PostgreSQL would say YES for a simple view.

use crate::catalog::{acl, RelKind};
use crate::sql::catalog as builtin;
use crate::sql::exec::EvalCx;
use crate::sql::func::session_fn::CatalogFn;
use crate::sql::types::Value;

use super::super::catalog_rows::{build, role_names};
use super::super::Row;
use super::{catalog_text, text, with_viewer, yes_no, Scope, Viewer};

/// The views' OIDs in a fresh PostgreSQL 15 cluster.
pub(super) const TABLES: u32 = 13425;
pub(super) const VIEWS: u32 = 13483;
pub(super) const SCHEMATA: u32 = 13382;

/// Whether the tables and views views list relation `r`: any privilege on it, or on one of
/// its columns, or its owner's.
fn sees_relation(v: &Viewer<'_>, r: &crate::sql::engine::Rel) -> bool {
    v.owns(r.owner)
        || v.table_priv(r, acl::ALL_RELATION)
        || v.any_column_priv(r, acl::SELECT | acl::INSERT | acl::UPDATE | acl::REFERENCES)
}

pub(super) fn tables(cx: &mut EvalCx) -> Vec<Row> {
    let scope = Scope::new(cx);
    let Some(shown) = with_viewer(cx, |v| {
        scope
            .rels
            .iter()
            .filter(|r| matches!(r.kind, RelKind::Table | RelKind::View))
            .filter(|r| !v.other_temp(&r.name.schema) && sees_relation(v, r))
            .cloned()
            .collect::<Vec<_>>()
    }) else {
        return Vec::new();
    };
    shown
        .iter()
        .map(|r| {
            let temp = crate::sql::engine::is_temp_schema(&r.name.schema);
            let table = r.kind == RelKind::Table;
            build(TABLES, |c| match c {
                "table_catalog" => text(&scope.db),
                "table_schema" => text(&r.name.schema),
                "table_name" => text(&r.name.name),
                "table_type" => text(match (temp, table) {
                    (true, _) => "LOCAL TEMPORARY",
                    (false, true) => "BASE TABLE",
                    (false, false) => "VIEW",
                }),
                "is_insertable_into" => yes_no(table),
                "is_typed" => yes_no(false),
                _ => Value::Null,
            })
        })
        .collect()
}

pub(super) fn views(cx: &mut EvalCx) -> Vec<Row> {
    let scope = Scope::new(cx);
    let Some(shown) = with_viewer(cx, |v| {
        scope
            .rels
            .iter()
            .filter(|r| r.kind == RelKind::View)
            .filter(|r| !v.other_temp(&r.name.schema) && sees_relation(v, r))
            .map(|r| (r.clone(), v.owns(r.owner)))
            .collect::<Vec<_>>()
    }) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (r, owner) in shown {
        // Only the owner's side sees the definition, as in PostgreSQL.
        let def = if owner {
            catalog_text(cx, CatalogFn::ViewDef, &[Value::Oid(r.oid)])
        } else {
            Value::Null
        };
        // INSTEAD OF ... FOR EACH ROW triggers for UPDATE (16), DELETE (8), INSERT (4).
        let instead = |event: i16| {
            let bits = 64 | 1 | event;
            yes_no(r.triggers.iter().any(|t| t.tgtype & bits == bits))
        };
        out.push(build(VIEWS, |c| match c {
            "table_catalog" => text(&scope.db),
            "table_schema" => text(&r.name.schema),
            "table_name" => text(&r.name.name),
            "view_definition" => def.clone(),
            // WITH CHECK OPTION is not supported: no view has one.
            "check_option" => text("NONE"),
            "is_updatable" | "is_insertable_into" => yes_no(false),
            "is_trigger_updatable" => instead(16),
            "is_trigger_deletable" => instead(8),
            "is_trigger_insertable_into" => instead(4),
            _ => Value::Null,
        }));
    }
    out
}

pub(super) fn schemata(cx: &mut EvalCx) -> Vec<Row> {
    let scope = Scope::new(cx);
    let names = role_names(cx);
    let all: Vec<(u32, String)> = builtin::NAMESPACES
        .iter()
        .map(|(o, n, _)| (*o, n.to_string()))
        .chain(scope.schemas.iter().map(|(o, n, _)| (*o, n.clone())))
        .collect();
    let shown = with_viewer(cx, |v| {
        all.iter()
            .filter_map(|(_, name)| {
                let info = crate::sql::privs::schema_info(v.catalog, v.who.snap, &scope.db, name)?;
                // Every right on a temporary schema is its own session's (schema_mask grants
                // them to any temporary schema: only that session can reach it).
                let usable = !v.other_temp(name)
                    && crate::sql::privs::schema_mask(
                        &v.who,
                        v.who.role,
                        &info,
                        acl::CREATE | acl::USAGE,
                    ) != 0;
                (v.owns(info.owner) || usable).then(|| (name.clone(), info.owner))
            })
            .collect::<Vec<_>>()
    })
    .unwrap_or_default();
    shown
        .iter()
        .map(|(name, owner)| {
            build(SCHEMATA, |c| match c {
                "catalog_name" => text(&scope.db),
                "schema_name" => text(name),
                "schema_owner" => names.get(owner).map_or(Value::Null, |n| text(n)),
                _ => Value::Null,
            })
        })
        .collect()
}
