//! information_schema's privilege views: table_privileges, column_privileges,
//! role_table_grants, role_column_grants, and the two one-column views they lean on,
//! enabled_roles and information_schema_catalog_name.
//!
//! The privilege views are aclexplode over pg_class.relacl (the owner's defaults when no GRANT
//! was made) and pg_attribute.attacl: one row per privilege of each ACL item. A row is shown to
//! a user who has the privileges of its grantor or of its grantee, and every row granted to
//! PUBLIC is shown to all, as in PostgreSQL. A table privilege covers each of the table's
//! columns, so column_privileges lists it once per column, merged with the column-level
//! grants (a privilege granted both ways is one row). The role_* views keep only the rows whose
//! grantor or grantee is one of the user's enabled roles (PUBLIC is not a role).

use std::collections::{BTreeSet, HashMap};

use crate::catalog::acl::{self, AclItem, ObjKind};
use crate::catalog::RelKind;
use crate::sql::engine::Rel;
use crate::sql::exec::EvalCx;
use crate::sql::func::system::privs::PRIVILEGE_NAMES;
use crate::sql::types::Value;
use crate::sync::Arc;

use super::super::catalog_rows::{build, role_names};
use super::super::Row;
use super::{text, with_viewer, yes_no, Scope, Viewer};

/// The views' OIDs in a fresh PostgreSQL 15 cluster.
pub(super) const CATALOG_NAME: u32 = 13227;
pub(super) const COLUMN_PRIVILEGES: u32 = 13285;
pub(super) const ENABLED_ROLES: u32 = 13325;
pub(super) const ROLE_COLUMN_GRANTS: u32 = 13344;
pub(super) const TABLE_PRIVILEGES: u32 = 13416;
pub(super) const ROLE_TABLE_GRANTS: u32 = 13421;

pub(super) fn catalog_name(cx: &mut EvalCx) -> Vec<Row> {
    let db = cx.session.database().to_string();
    vec![build(CATALOG_NAME, |_| text(&db))]
}

pub(super) fn enabled_roles(cx: &mut EvalCx) -> Vec<Row> {
    let Ok(snap) = cx.session.catalog_snapshot() else {
        return Vec::new();
    };
    let roles = cx.session.instance().catalog.roles.visible(&snap);
    let names: Vec<String> = with_viewer(cx, |v| {
        roles
            .iter()
            .filter(|r| v.owns(r.oid))
            .map(|r| r.def.name.clone())
            .collect()
    })
    .unwrap_or_default();
    names
        .iter()
        .map(|n| build(ENABLED_ROLES, |_| text(n)))
        .collect()
}

/// One exploded ACL privilege of a relation (or of one of its columns).
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Grant {
    grantor: u32,
    grantee: u32,
    /// Index into PRIVILEGE_NAMES.
    privilege: usize,
    /// The grant option, or the grantee has the owner's privileges.
    grantable: bool,
}

/// aclexplode of `items`, the privileges among the first `kinds` bits (INSERT, SELECT, UPDATE,
/// DELETE, TRUNCATE, REFERENCES, TRIGGER in bit order), with the view's row filter: `role`
/// keeps only rows whose grantor or grantee is an enabled role.
fn explode(v: &Viewer<'_>, r: &Rel, items: &[AclItem], kinds: &[u32], role: bool) -> Vec<Grant> {
    let mut out = Vec::new();
    for item in items {
        for &bit in kinds {
            if item.privs & bit == 0 {
                continue;
            }
            let grantee_enabled = item.grantee != acl::PUBLIC && v.owns(item.grantee);
            let shown =
                v.owns(item.grantor) || grantee_enabled || (!role && item.grantee == acl::PUBLIC);
            if !shown {
                continue;
            }
            // pg_has_role(grantee, owner, 'USAGE'): a superuser or a member of the owner.
            let of_owner = item.grantee != acl::PUBLIC
                && (v.who.has_privs_of(item.grantee, r.owner)
                    || v.who
                        .roles
                        .by_oid(item.grantee, v.who.snap)
                        .is_some_and(|g| g.def.superuser));
            out.push(Grant {
                grantor: item.grantor,
                grantee: item.grantee,
                privilege: bit.trailing_zeros() as usize,
                grantable: of_owner || item.goptions & bit != 0,
            });
        }
    }
    out
}

fn table_acl(r: &Rel) -> Vec<AclItem> {
    r.acl
        .clone()
        .unwrap_or_else(|| acl::default_acl(ObjKind::Table, r.owner))
}

fn tables_and_views(scope: &Scope) -> impl Iterator<Item = &Arc<Rel>> {
    scope
        .rels
        .iter()
        .filter(|r| matches!(r.kind, RelKind::Table | RelKind::View))
}

/// A role's name, PUBLIC for grants to everyone.
fn role_name(names: &HashMap<u32, String>, oid: u32) -> Option<String> {
    if oid == acl::PUBLIC {
        return Some("PUBLIC".into());
    }
    names.get(&oid).cloned()
}

/// table_privileges (`role`: role_table_grants).
pub(super) fn table_privileges(cx: &mut EvalCx, role: bool) -> Vec<Row> {
    let scope = Scope::new(cx);
    let names = role_names(cx);
    let kinds = [
        acl::INSERT,
        acl::SELECT,
        acl::UPDATE,
        acl::DELETE,
        acl::TRUNCATE,
        acl::REFERENCES,
        acl::TRIGGER,
    ];
    let grants: Vec<(&Arc<Rel>, Grant)> = with_viewer(cx, |v| {
        tables_and_views(&scope)
            .flat_map(|r| {
                explode(v, r, &table_acl(r), &kinds, role)
                    .into_iter()
                    .map(move |g| (r, g))
            })
            .collect()
    })
    .unwrap_or_default();
    let oid = if role {
        ROLE_TABLE_GRANTS
    } else {
        TABLE_PRIVILEGES
    };
    grants
        .iter()
        .filter_map(|(r, g)| {
            let grantor = role_name(&names, g.grantor)?;
            let grantee = role_name(&names, g.grantee)?;
            let privilege = PRIVILEGE_NAMES[g.privilege];
            Some(build(oid, |c| match c {
                "grantor" => text(&grantor),
                "grantee" => text(&grantee),
                "table_catalog" => text(&scope.db),
                "table_schema" => text(&r.name.schema),
                "table_name" => text(&r.name.name),
                "privilege_type" => text(privilege),
                "is_grantable" => yes_no(g.grantable),
                "with_hierarchy" => yes_no(privilege == "SELECT"),
                _ => Value::Null,
            }))
        })
        .collect()
}

/// column_privileges (`role`: role_column_grants).
pub(super) fn column_privileges(cx: &mut EvalCx, role: bool) -> Vec<Row> {
    let scope = Scope::new(cx);
    let names = role_names(cx);
    let kinds = [acl::INSERT, acl::SELECT, acl::UPDATE, acl::REFERENCES];
    // (relation's place in scope.rels, column, grant): a set, as PostgreSQL's UNION is.
    let grants: BTreeSet<(usize, usize, Grant)> = with_viewer(cx, |v| {
        let mut out = BTreeSet::new();
        for (n, r) in scope.rels.iter().enumerate() {
            if !matches!(r.kind, RelKind::Table | RelKind::View) {
                continue;
            }
            let table = explode(v, r, &table_acl(r), &kinds, role);
            for (i, _) in r.live_columns() {
                for g in &table {
                    out.insert((n, i, g.clone()));
                }
            }
            for (i, a) in &r.column_acls {
                if r.columns.get(*i).is_some_and(|c| !c.dropped) {
                    out.extend(
                        explode(v, r, a, &kinds, role)
                            .into_iter()
                            .map(|g| (n, *i, g)),
                    );
                }
            }
        }
        out
    })
    .unwrap_or_default();
    let oid = if role {
        ROLE_COLUMN_GRANTS
    } else {
        COLUMN_PRIVILEGES
    };
    grants
        .iter()
        .filter_map(|(n, i, g)| {
            let r = &scope.rels[*n];
            let grantor = role_name(&names, g.grantor)?;
            let grantee = role_name(&names, g.grantee)?;
            Some(build(oid, |c| match c {
                "grantor" => text(&grantor),
                "grantee" => text(&grantee),
                "table_catalog" => text(&scope.db),
                "table_schema" => text(&r.name.schema),
                "table_name" => text(&r.name.name),
                "column_name" => text(&r.columns[*i].name),
                "privilege_type" => text(PRIVILEGE_NAMES[g.privilege]),
                "is_grantable" => yes_no(g.grantable),
                _ => Value::Null,
            }))
        })
        .collect()
}
