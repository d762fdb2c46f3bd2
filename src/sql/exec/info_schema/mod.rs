//! The rows of the information_schema views, built from the statement's catalog snapshot.
//!
//! PostgreSQL defines information_schema as SQL views over its catalogs. threadgres builds the
//! same rows in Rust from the same state that pg_class, pg_attribute and pg_constraint are built
//! from (exec/catalog_rows.rs), because the views lean on catalog machinery it does not have
//! (domains, pg_depend's full dependency graph, helper functions of the schema) and because
//! tools read these views often and in bulk: one pass over the relations is cheaper than the
//! joins of the SQL definitions.
//!
//! Each view lists what PostgreSQL 15's lists, with its visibility rule: an object appears when
//! the current user has the privileges of its owner (`pg_has_role(owner, 'USAGE')`) or holds
//! the privileges that view asks for (they differ from view to view, so each file states its
//! own). Another session's temporary objects are left out where PostgreSQL leaves them out.
//! threadgres' own catalogs are not relations of its catalog, so the views list user objects
//! only (PostgreSQL's also list pg_catalog's and information_schema's).
//!
//! One file per group: `tables` (tables, views, schemata), `columns`, `constraints` (the five
//! constraint views), `routines` (sequences, routines, parameters, triggers), `privileges`
//! (table_privileges, column_privileges, role_table_grants, role_column_grants, enabled_roles,
//! information_schema_catalog_name).

mod columns;
mod constraints;
mod privileges;
mod routines;
mod tables;

use crate::catalog::acl;
use crate::sql::catalog as builtin;
use crate::sql::engine::Rel;
use crate::sql::exec::EvalCx;
use crate::sql::func::session_fn::CatalogFn;
use crate::sql::privs::{self, Who};
use crate::sql::types::Value;
use crate::sync::Arc;

use super::catalog_rows::{created_namespaces, visible_relations};
use super::Row;

/// Rows of information_schema view `oid`; None for relations that are not such views.
pub(super) fn rows(oid: u32, cx: &mut EvalCx) -> Option<Vec<Row>> {
    let out = match oid {
        tables::TABLES => tables::tables(cx),
        tables::VIEWS => tables::views(cx),
        tables::SCHEMATA => tables::schemata(cx),
        columns::COLUMNS => columns::columns(cx),
        columns::COLUMN_COLUMN_USAGE => columns::column_column_usage(cx),
        constraints::TABLE_CONSTRAINTS => constraints::table_constraints(cx),
        constraints::KEY_COLUMN_USAGE => constraints::key_column_usage(cx),
        constraints::REFERENTIAL_CONSTRAINTS => constraints::referential_constraints(cx),
        constraints::CONSTRAINT_COLUMN_USAGE => constraints::constraint_column_usage(cx),
        constraints::CHECK_CONSTRAINTS => constraints::check_constraints(cx),
        routines::SEQUENCES => routines::sequences(cx),
        routines::ROUTINES => routines::routines(cx),
        routines::PARAMETERS => routines::parameters(cx),
        routines::TRIGGERS => routines::triggers(cx),
        privileges::CATALOG_NAME => privileges::catalog_name(cx),
        privileges::ENABLED_ROLES => privileges::enabled_roles(cx),
        privileges::TABLE_PRIVILEGES => privileges::table_privileges(cx, false),
        privileges::ROLE_TABLE_GRANTS => privileges::table_privileges(cx, true),
        privileges::COLUMN_PRIVILEGES => privileges::column_privileges(cx, false),
        privileges::ROLE_COLUMN_GRANTS => privileges::column_privileges(cx, true),
        _ => return None,
    };
    Some(out)
}

/// What one statement's views are built from: the session's database and the relations its
/// catalog snapshot sees.
struct Scope {
    db: String,
    rels: Vec<Arc<Rel>>,
    /// Schemas made by CREATE SCHEMA: OID, name, owner.
    schemas: Vec<(u32, String, u32)>,
}

impl Scope {
    fn new(cx: &mut EvalCx) -> Scope {
        Scope {
            db: cx.session.database().to_string(),
            rels: visible_relations(cx),
            schemas: created_namespaces(cx),
        }
    }

    /// pg_namespace's OID of schema `name` (0 if gone).
    fn schema_oid(&self, name: &str) -> u32 {
        builtin::namespace_oid(name)
            .or_else(|| {
                self.schemas
                    .iter()
                    .find(|(_, n, _)| n == name)
                    .map(|(o, _, _)| *o)
            })
            .unwrap_or(0)
    }

    fn rel(&self, oid: u32) -> Option<&Arc<Rel>> {
        self.rels.iter().find(|r| r.oid == oid)
    }
}

/// The current user as the views' privilege tests see it.
struct Viewer<'a> {
    who: Who<'a>,
    own_temp: Option<String>,
    catalog: &'a crate::sql::engine::SqlCatalog,
}

impl Viewer<'_> {
    /// pg_has_role(owner, 'USAGE'): a superuser, the owner, or a role inheriting the owner's.
    fn owns(&self, owner: u32) -> bool {
        self.who.superuser || self.who.has_privs_of(self.who.role, owner)
    }

    /// pg_is_other_temp_schema: another session's temporary schema.
    fn other_temp(&self, schema: &str) -> bool {
        crate::sql::engine::is_temp_schema(schema) && self.own_temp.as_deref() != Some(schema)
    }

    /// has_table_privilege(rel, <any of want>).
    fn table_priv(&self, r: &Rel, want: u32) -> bool {
        privs::rel_mask(&self.who, self.who.role, r, want) != 0
    }

    /// has_column_privilege(rel, attnum, <any of want>): on the table or on the column.
    fn column_priv(&self, r: &Rel, attnum: i16, want: u32) -> bool {
        self.table_priv(r, want)
            || privs::column_mask(&self.who, self.who.role, r, attnum, want) != 0
    }

    /// has_any_column_privilege(rel, <any of want>).
    fn any_column_priv(&self, r: &Rel, want: u32) -> bool {
        self.table_priv(r, want)
            || (1..=r.columns.len() as i16)
                .any(|c| privs::column_mask(&self.who, self.who.role, r, c, want) != 0)
    }

    /// The test table_constraints, referential_constraints and triggers put to a table: the
    /// owner's privileges, or a privilege other than SELECT on the table (or a column-level
    /// INSERT, UPDATE or REFERENCES).
    fn sees_constraints(&self, r: &Rel) -> bool {
        let table = acl::INSERT
            | acl::UPDATE
            | acl::DELETE
            | acl::TRUNCATE
            | acl::REFERENCES
            | acl::TRIGGER;
        self.owns(r.owner)
            || self.table_priv(r, table)
            || self.any_column_priv(r, acl::INSERT | acl::UPDATE | acl::REFERENCES)
    }
}

/// Runs `f` with the current user's [`Viewer`]; None when the snapshot cannot be taken.
fn with_viewer<R>(cx: &mut EvalCx, f: impl FnOnce(&Viewer<'_>) -> R) -> Option<R> {
    let snap = cx.session.catalog_snapshot().ok()?;
    let own_temp = cx.session.own_temp_schema();
    let user = cx.session.role_oid();
    let catalog = &cx.session.instance().catalog;
    let roles = &catalog.roles;
    let viewer = Viewer {
        who: Who {
            role: user,
            superuser: roles.by_oid(user, &snap).is_some_and(|r| r.def.superuser),
            roles,
            snap: &snap,
        },
        own_temp,
        catalog,
    };
    Some(f(&viewer))
}

/// A catalog function's text result (pg_get_viewdef, pg_get_constraintdef, ...), as the SQL
/// definitions of the views call them.
fn catalog_text(cx: &mut EvalCx, f: CatalogFn, args: &[Value]) -> Value {
    match crate::sql::func::system::catalog::call(f, args, cx.session) {
        Ok(v @ Value::Text(_)) => v,
        _ => Value::Null,
    }
}

fn text(s: &str) -> Value {
    Value::Text(s.to_string())
}

/// A yes_or_no value.
fn yes_no(b: bool) -> Value {
    text(if b { "YES" } else { "NO" })
}

/// A cardinal_number value (NULL for None).
fn cardinal(n: Option<i64>) -> Value {
    n.map_or(Value::Null, |n| Value::Int4(n as i32))
}
