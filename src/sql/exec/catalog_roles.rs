//! The rows of the role catalogs — pg_authid, pg_auth_members, pg_roles, pg_shadow, pg_group,
//! pg_user, pg_db_role_setting — from the instance's role catalog (`catalog::roles`), as the
//! statement's catalog snapshot sees it, with PostgreSQL 15's columns and values.
//!
//! pg_authid and pg_shadow hold the password verifiers: PostgreSQL lets only superusers read
//! them (42501 `permission denied for table pg_authid`): their ACLs have no PUBLIC SELECT
//! (`sql::privs::catalog_acl`), checked with the statement's other privileges before it runs.
//! pg_roles and pg_user show `********` in place of any password.

use crate::catalog::roles::Role;
use crate::sql::catalog as builtin;
use crate::sql::exec::EvalCx;
use crate::sql::types::{Array, Type, Value};
use std::sync::Arc;

use super::Row;

const PG_AUTHID: u32 = 1260;
const PG_AUTH_MEMBERS: u32 = 1261;
const PG_ROLES: u32 = 12000;
const PG_SHADOW: u32 = 12005;
const PG_GROUP: u32 = 12010;
const PG_USER: u32 = 12014;
const PG_DB_ROLE_SETTING: u32 = 2964;

fn build(oid: u32, mut f: impl FnMut(&str) -> Value) -> Row {
    let rel = builtin::relation_by_oid(oid).expect("catalog relation");
    rel.columns.iter().map(|(name, _)| f(name)).collect()
}

/// A text[] of `items`; NULL for none (as PostgreSQL's catalogs show an empty list).
pub(super) fn text_array(items: &[String]) -> Value {
    if items.is_empty() {
        return Value::Null;
    }
    Value::Array(Box::new(Array::one_dim(
        Type::TEXT,
        items.iter().map(|i| Value::Text(i.clone())).collect(),
    )))
}

fn opt_ts(t: Option<i64>) -> Value {
    t.map_or(Value::Null, Value::TimestampTz)
}

/// One row of pg_authid, pg_roles, pg_shadow or pg_user for `r`.
fn role_row(oid: u32, r: &Role) -> Row {
    let d = &r.def;
    build(oid, |c| match c {
        "oid" | "usesysid" => Value::Oid(r.oid),
        "rolname" | "usename" => Value::Text(d.name.clone()),
        "rolsuper" | "usesuper" => Value::Bool(d.superuser),
        "rolinherit" => Value::Bool(d.inherit),
        "rolcreaterole" => Value::Bool(d.createrole),
        "rolcreatedb" | "usecreatedb" => Value::Bool(d.createdb),
        "rolcanlogin" => Value::Bool(d.login),
        "rolreplication" | "userepl" => Value::Bool(d.replication),
        "rolbypassrls" | "usebypassrls" => Value::Bool(d.bypassrls),
        "rolconnlimit" => Value::Int4(d.conn_limit),
        "rolpassword" | "passwd" => match (&d.password, oid) {
            (Some(p), PG_AUTHID | PG_SHADOW) => Value::Text(p.clone()),
            (Some(_), _) => Value::Text("********".into()),
            // pg_roles and pg_user show the mask even for a role without a password.
            (None, PG_ROLES | PG_USER) => Value::Text("********".into()),
            (None, _) => Value::Null,
        },
        "rolvaliduntil" | "valuntil" => opt_ts(d.valid_until),
        "rolconfig" | "useconfig" => text_array(&d.config),
        _ => Value::Null,
    })
}

/// Rows of the role catalog `oid`; None for other catalogs.
pub(super) fn rows(oid: u32, cx: &mut EvalCx) -> Option<Vec<Row>> {
    if !matches!(
        oid,
        PG_AUTHID
            | PG_AUTH_MEMBERS
            | PG_ROLES
            | PG_SHADOW
            | PG_GROUP
            | PG_USER
            | PG_DB_ROLE_SETTING
    ) {
        return None;
    }
    let Ok(snap) = cx.session.catalog_snapshot() else {
        return Some(Vec::new());
    };
    let catalog = &cx.session.instance().catalog.roles;
    let roles: Vec<Arc<Role>> = catalog.visible(&snap);
    Some(match oid {
        PG_AUTHID | PG_ROLES => roles.iter().map(|r| role_row(oid, r)).collect(),
        PG_SHADOW | PG_USER => roles
            .iter()
            .filter(|r| r.def.login)
            .map(|r| role_row(oid, r))
            .collect(),
        PG_GROUP => {
            let members = catalog.members(&snap);
            roles
                .iter()
                .filter(|r| !r.def.login)
                .map(|r| {
                    let list: Vec<Value> = members
                        .iter()
                        .filter(|m| m.role == r.oid)
                        .map(|m| Value::Oid(m.member))
                        .collect();
                    build(oid, |c| match c {
                        "groname" => Value::Text(r.def.name.clone()),
                        "grosysid" => Value::Oid(r.oid),
                        "grolist" => {
                            Value::Array(Box::new(Array::one_dim(Type::OID, list.clone())))
                        }
                        _ => Value::Null,
                    })
                })
                .collect()
        }
        PG_AUTH_MEMBERS => catalog
            .members(&snap)
            .iter()
            .map(|m| {
                build(oid, |c| match c {
                    "roleid" => Value::Oid(m.role),
                    "member" => Value::Oid(m.member),
                    "grantor" => Value::Oid(m.grantor),
                    "admin_option" => Value::Bool(m.admin),
                    _ => Value::Null,
                })
            })
            .collect(),
        // pg_db_role_setting: ALTER ROLE ... SET for all databases (setdatabase 0).
        _ => roles
            .iter()
            .filter(|r| !r.def.config.is_empty())
            .map(|r| {
                build(oid, |c| match c {
                    "setdatabase" => Value::Oid(0),
                    "setrole" => Value::Oid(r.oid),
                    "setconfig" => text_array(&r.def.config),
                    _ => Value::Null,
                })
            })
            .collect(),
    })
}
