//! The rows of information_schema.tables, built from the same catalog snapshot as pg_class.
//!
//! PostgreSQL's view lists every table, view and foreign table the current user owns (or is a
//! member of the owner of) or holds any privilege on, the catalogs' own relations included
//! (schemas pg_catalog and information_schema). threadgres' catalogs are not relations in its
//! catalog (pg_class and pg_attribute have no rows for them), so this lists the user's
//! relations only. Another session's temporary tables are left out, as PostgreSQL does.
//!
//! The columns are of PostgreSQL's domains `sql_identifier` (over name), `character_data` and
//! `yes_or_no` (over varchar); threadgres has no domains, so they are of the base types.

use crate::catalog::acl;
use crate::catalog::RelKind;
use crate::sql::exec::EvalCx;
use crate::sql::privs::{self, Who};
use crate::sql::types::Value;

use super::catalog_rows::{build, visible_relations};
use super::Row;

/// information_schema.tables' OID in a fresh PostgreSQL 15 cluster.
pub(super) const TABLES: u32 = 13425;

/// Rows of `oid`; None for the relations this file does not build.
pub(super) fn rows(oid: u32, cx: &mut EvalCx) -> Option<Vec<Row>> {
    if oid != TABLES {
        return None;
    }
    let rels = visible_relations(cx);
    let Ok(snap) = cx.session.catalog_snapshot() else {
        return Some(Vec::new());
    };
    let own_temp = cx.session.own_temp_schema();
    let db = cx.session.database().to_string();
    let user = cx.session.role_oid();
    let roles = &cx.session.instance().catalog.roles;
    let who = Who {
        role: user,
        superuser: roles.by_oid(user, &snap).is_some_and(|r| r.def.superuser),
        roles,
        snap: &snap,
    };
    let mut out = Vec::new();
    for r in &rels {
        let table_type = match r.kind {
            RelKind::Table => "BASE TABLE",
            RelKind::View => "VIEW",
            RelKind::Index | RelKind::Sequence => continue,
        };
        let temp = crate::sql::engine::is_temp_schema(&r.name.schema);
        if temp && own_temp.as_deref() != Some(r.name.schema.as_str()) {
            continue;
        }
        // pg_has_role(relowner, 'USAGE') or any table privilege or any column privilege.
        let column_privs = acl::SELECT | acl::INSERT | acl::UPDATE | acl::REFERENCES;
        let allowed = who.has_privs_of(user, r.owner)
            || privs::rel_mask(&who, user, r, acl::ALL_RELATION) != 0
            || (1..=r.columns.len() as i16)
                .any(|c| privs::column_mask(&who, user, r, c, column_privs) != 0);
        if !allowed {
            continue;
        }
        let text = |s: &str| Value::Text(s.to_string());
        out.push(build(TABLES, |c| match c {
            "table_catalog" => text(&db),
            "table_schema" => text(&r.name.schema),
            "table_name" => text(&r.name.name),
            "table_type" => text(if temp { "LOCAL TEMPORARY" } else { table_type }),
            // Views are not automatically updatable in threadgres (pg_relation_is_updatable).
            "is_insertable_into" => text(if r.kind == RelKind::Table {
                "YES"
            } else {
                "NO"
            }),
            "is_typed" => text("NO"),
            _ => Value::Null,
        }));
    }
    Some(out)
}
