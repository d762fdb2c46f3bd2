//! COMMENT ON TABLE / VIEW / SEQUENCE / INDEX / COLUMN / SCHEMA / CONSTRAINT ... ON / ROLE /
//! TYPE / DOMAIN / FUNCTION / PROCEDURE / ROUTINE (the
//! descriptions the catalogs and obj_description / col_description / shobj_description read
//! back are in `func/system/comments.rs`).
//!
//! Descriptions are kept in the catalog's versioned store (`catalog::comments`), so a COMMENT
//! commits and rolls back with its transaction. A description is shown only while the snapshot
//! that reads it sees its object (and, for a column, while the column is not dropped): that is
//! how a description goes away with DROP and DROP COLUMN. The fixed descriptions PostgreSQL
//! ships (`catalog::fixed`) are the starting value of their objects' keys; a COMMENT on such an
//! object replaces it (an empty version hides it).
//!
//! Only an object's owner may comment on it (a role: those with CREATEROLE; a superuser role:
//! superusers), as PostgreSQL's check_object_ownership rules.

use pg_query::protobuf::{self, node::Node as N, ObjectType};

use crate::catalog::comments::CommentKey;
use crate::catalog::RelKind;
use crate::error::{code, PgError, PgResult};
use crate::sql::catalog as builtin;
use crate::sql::context::SessionCtx;
use crate::sql::engine::Rel;
use crate::sql::func::system::comments::{
    PG_AUTHID, PG_CLASS, PG_CONSTRAINT, PG_NAMESPACE, PG_PROC, PG_TYPE,
};
use crate::sync::Arc;
use crate::txn::lock::LockMode;

/// What a COMMENT names, names as written.
#[derive(Debug, Clone)]
pub enum Target {
    /// TABLE / VIEW / SEQUENCE / INDEX: the kind named, schema ("" if none), name.
    Relation(RelKind, String, String),
    /// COLUMN: schema, relation, column.
    Column(String, String, String),
    /// CONSTRAINT name ON table: schema, table, constraint.
    Constraint(String, String, String),
    Schema(String),
    Role(String),
    /// TYPE: a user-defined type's name as written (qualified or not).
    Type(Vec<String>),
    /// FUNCTION / PROCEDURE / ROUTINE (the word), and the name with its argument types.
    Routine(&'static str, Box<protobuf::ObjectWithArgs>),
}

#[derive(Debug, Clone)]
pub struct Comment {
    pub target: Target,
    /// None or empty: remove the description.
    pub text: Option<String>,
}

fn names(n: Option<&N>) -> Vec<String> {
    match n {
        Some(N::List(l)) => l
            .items
            .iter()
            .filter_map(|i| match i.node.as_ref()? {
                N::String(s) => Some(s.sval.clone()),
                _ => None,
            })
            .collect(),
        Some(N::String(s)) => vec![s.sval.clone()],
        Some(N::TypeName(t)) => crate::sql::parser::names_of(&t.names),
        _ => Vec::new(),
    }
}

/// (schema, name) of a qualified name list (a database part, if any, is ignored).
fn split(mut v: Vec<String>) -> (String, String) {
    let name = v.pop().unwrap_or_default();
    (v.pop().unwrap_or_default(), name)
}

pub fn analyze(node: &N) -> Option<PgResult<Comment>> {
    let N::CommentStmt(c) = node else {
        return None;
    };
    let object = c.object.as_deref().and_then(|o| o.node.as_ref());
    let mut list = names(object);
    let ty = ObjectType::try_from(c.objtype).ok();
    let rel = |k: RelKind, l: Vec<String>| {
        let (s, n) = split(l);
        Target::Relation(k, s, n)
    };
    let target = match ty {
        Some(ObjectType::ObjectTable) => rel(RelKind::Table, list),
        Some(ObjectType::ObjectView) => rel(RelKind::View, list),
        Some(ObjectType::ObjectMatview) => rel(RelKind::MatView, list),
        Some(ObjectType::ObjectSequence) => rel(RelKind::Sequence, list),
        Some(ObjectType::ObjectIndex) => rel(RelKind::Index, list),
        Some(ObjectType::ObjectColumn) | Some(ObjectType::ObjectTabconstraint) => {
            if list.len() < 2 {
                return Some(Err(PgError::new(
                    code::SYNTAX_ERROR,
                    "column name must be qualified",
                )));
            }
            let last = list.pop().unwrap_or_default();
            let (s, t) = split(list);
            if ty == Some(ObjectType::ObjectColumn) {
                Target::Column(s, t, last)
            } else {
                Target::Constraint(s, t, last)
            }
        }
        Some(ObjectType::ObjectSchema) => Target::Schema(list.pop().unwrap_or_default()),
        Some(ObjectType::ObjectRole) => Target::Role(list.pop().unwrap_or_default()),
        // A domain is a type (its comment is pg_type's).
        Some(ObjectType::ObjectType | ObjectType::ObjectDomain) => Target::Type(list),
        Some(
            t @ (ObjectType::ObjectFunction
            | ObjectType::ObjectProcedure
            | ObjectType::ObjectRoutine),
        ) => {
            let Some(N::ObjectWithArgs(item)) = object else {
                return Some(Err(PgError::internal(
                    "COMMENT ON FUNCTION without its name",
                )));
            };
            let what = match t {
                ObjectType::ObjectProcedure => "PROCEDURE",
                ObjectType::ObjectRoutine => "ROUTINE",
                _ => "FUNCTION",
            };
            Target::Routine(what, Box::new(item.clone()))
        }
        _ => {
            return Some(Err(PgError::feature_not_supported(
                "COMMENT on this kind of object is not supported yet",
            )))
        }
    };
    Some(Ok(Comment {
        target,
        text: (!c.comment.is_empty()).then(|| c.comment.clone()),
    }))
}

fn missing_relation(schema: &str, name: &str) -> PgError {
    let what = match schema {
        "" => format!("relation \"{name}\" does not exist"),
        s => format!("relation \"{s}.{name}\" does not exist"),
    };
    PgError::new(code::UNDEFINED_TABLE, what)
}

/// The relation a COMMENT names, locked as PostgreSQL locks it (ShareUpdateExclusive).
fn relation(cx: &mut dyn SessionCtx, schema: &str, name: &str) -> PgResult<Arc<Rel>> {
    super::find_locked(cx, schema, name, LockMode::ShareUpdateExclusive)?
        .ok_or_else(|| missing_relation(schema, name))
}

/// A column's or constraint's ownership error names a "relation", as PostgreSQL's does.
fn owner_of_relation(cx: &mut dyn SessionCtx, r: &Rel) -> PgResult<()> {
    if super::grant::owns(cx, r.owner)? {
        return Ok(());
    }
    Err(crate::sql::privs::not_owner("relation", &r.name.name))
}

fn not_a(name: &str, what: &str) -> PgError {
    PgError::new(code::WRONG_OBJECT_TYPE, format!("\"{name}\" is not {what}"))
}

fn key_of(cx: &mut dyn SessionCtx, target: &Target) -> PgResult<CommentKey> {
    Ok(match target {
        Target::Relation(kind, schema, name) => {
            let r = relation(cx, schema, name)?;
            if r.kind != *kind {
                let what = match kind {
                    RelKind::Table => "a table",
                    RelKind::View => "a view",
                    RelKind::Sequence => "a sequence",
                    RelKind::Index => "an index",
                    RelKind::MatView => "a materialized view",
                };
                return Err(not_a(&r.name.name, what));
            }
            super::grant::check_owner(cx, &r)?;
            (PG_CLASS, r.oid, 0)
        }
        Target::Column(schema, table, column) => {
            let r = relation(cx, schema, table)?;
            if matches!(r.kind, RelKind::Index | RelKind::Sequence) {
                let what = if r.kind == RelKind::Index {
                    "indexes"
                } else {
                    "sequences"
                };
                return Err(PgError::new(
                    code::WRONG_OBJECT_TYPE,
                    format!("cannot set comment on relation \"{}\"", r.name.name),
                )
                .with_detail(format!("This operation is not supported for {what}.")));
            }
            let Some((i, _)) = r.live_columns().find(|(_, c)| &c.name == column) else {
                return Err(PgError::new(
                    code::UNDEFINED_COLUMN,
                    format!("column \"{column}\" of relation \"{table}\" does not exist"),
                ));
            };
            owner_of_relation(cx, &r)?;
            (PG_CLASS, r.oid, i as i32 + 1)
        }
        Target::Constraint(schema, table, con) => {
            let r = relation(cx, schema, table)?;
            let Some(c) = r.constraints.iter().find(|c| &c.name == con) else {
                return Err(PgError::new(
                    code::UNDEFINED_OBJECT,
                    format!(
                        "constraint \"{con}\" for table \"{}\" does not exist",
                        r.name.name
                    ),
                ));
            };
            let oid = c.oid;
            owner_of_relation(cx, &r)?;
            (PG_CONSTRAINT, oid, 0)
        }
        Target::Schema(name) => {
            let found = builtin::NAMESPACES.iter().find(|n| n.1 == name);
            let (oid, owner) = match found {
                Some(n) => (n.0, n.2),
                None => {
                    let snap = cx.catalog_snapshot()?;
                    cx.instance()
                        .catalog
                        .namespaces
                        .lookup(cx.database(), name, &snap)
                        .map(|n| (n.oid, n.owner))
                        .ok_or_else(|| {
                            PgError::new(
                                code::INVALID_SCHEMA_NAME,
                                format!("schema \"{name}\" does not exist"),
                            )
                        })?
                }
            };
            if !super::grant::owns(cx, owner)? {
                return Err(crate::sql::privs::not_owner("schema", name));
            }
            (PG_NAMESPACE, oid, 0)
        }
        Target::Type(names) => {
            let t = super::user_type::find(cx, names)?;
            (PG_TYPE, t.oid, 0)
        }
        Target::Routine(what, item) => {
            (PG_PROC, super::function::owned_routine(cx, what, item)?, 0)
        }
        Target::Role(name) => {
            let role = crate::sql::privs::lookup(cx, name)?;
            let Some(role) = role else {
                return Err(PgError::new(
                    code::UNDEFINED_OBJECT,
                    format!("role \"{name}\" does not exist"),
                ));
            };
            // Roles are "owned" by those with CREATEROLE, superusers by superusers only.
            let snap = cx.catalog_snapshot()?;
            let me = cx.role_oid();
            let mine = cx.instance().catalog.roles.by_oid(me, &snap);
            let (su, createrole) =
                mine.map_or((false, false), |r| (r.def.superuser, r.def.createrole));
            if role.def.superuser && !su {
                return Err(PgError::new(
                    code::INSUFFICIENT_PRIVILEGE,
                    "must be superuser",
                ));
            }
            if !su && !createrole {
                return Err(PgError::new(
                    code::INSUFFICIENT_PRIVILEGE,
                    "must have CREATEROLE privilege",
                ));
            }
            (PG_AUTHID, role.oid, 0)
        }
    })
}

pub fn execute(c: &Comment, cx: &mut dyn SessionCtx) -> PgResult<()> {
    let key = key_of(cx, &c.target)?;
    let (cell, cid) = cx.writer("COMMENT")?;
    let snap = cx.catalog_snapshot()?;
    let catalog = &cx.instance().catalog;
    // An empty version also hides a fixed description (see the module comment).
    let text = c.text.as_deref().unwrap_or("");
    catalog
        .comments
        .set(key, text, &snap, &cell, cid)
        .map_err(|_| {
            PgError::new(
                code::OBJECT_IN_USE,
                "tuple concurrently updated".to_string(),
            )
        })?;
    catalog.bump();
    Ok(())
}
