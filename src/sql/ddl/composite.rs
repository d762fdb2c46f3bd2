//! Composite types: CREATE TYPE name AS (attr type, ...), ALTER TYPE ... ADD / DROP / ALTER
//! ATTRIBUTE, RENAME ATTRIBUTE, and ALTER TYPE ... SET SCHEMA (any type). DROP, RENAME TO and
//! OWNER TO are TYPE's (`user_type.rs`).
//!
//! A composite type lives in the type store (`catalog::types::CompositeDef`) with the OID of
//! the pg_class row (relkind 'c') its attributes hang from, as PostgreSQL has it; the catalog
//! views show that row and its pg_attribute rows from the type. Stored values hold the live
//! attributes in order, so an attribute is dropped or retyped only while no column uses the
//! type (PostgreSQL rewrites nothing either: it refuses, 0A000); an added attribute reads as
//! NULL in values stored before it.

use pg_query::protobuf::{self, node::Node as N, AlterTableType as At, ObjectType};

use super::user_type::{self, TypeDdl};
use crate::catalog::types::{CompositeAttr, CompositeDef, TypeDef, UserType, MAX_ATTRIBUTES};
use crate::catalog::Oid;
use crate::error::{code, PgError, PgResult};
use crate::sql::context::SessionCtx;
use crate::sql::parser::names_of;
use crate::sync::Arc;

#[derive(Debug, Clone)]
pub enum CompositeDdl {
    Create {
        name: Vec<String>,
        attrs: Vec<protobuf::ColumnDef>,
    },
    Alter {
        name: Vec<String>,
        cmds: Vec<AttrCmd>,
    },
    RenameAttr {
        name: Vec<String>,
        old: String,
        new: String,
    },
    /// ALTER TYPE ... SET SCHEMA, of any type.
    SetSchema { name: Vec<String>, schema: String },
}

#[derive(Debug, Clone)]
pub enum AttrCmd {
    Add(Box<protobuf::ColumnDef>),
    Drop {
        name: String,
        if_exists: bool,
    },
    AlterType {
        name: String,
        tn: Box<protobuf::TypeName>,
    },
}

fn range_names(rv: Option<&protobuf::RangeVar>) -> Vec<String> {
    match rv {
        Some(r) if !r.schemaname.is_empty() => vec![r.schemaname.clone(), r.relname.clone()],
        Some(r) => vec![r.relname.clone()],
        None => Vec::new(),
    }
}

/// The composite type statements among parse trees.
pub fn analyze(node: &N) -> Option<PgResult<TypeDdl>> {
    let is_type = |t: i32| t == ObjectType::ObjectType as i32;
    let d = match node {
        N::CompositeTypeStmt(c) => CompositeDdl::Create {
            name: range_names(c.typevar.as_ref()),
            attrs: c
                .coldeflist
                .iter()
                .filter_map(|n| match &n.node {
                    Some(N::ColumnDef(cd)) => Some((**cd).clone()),
                    _ => None,
                })
                .collect(),
        },
        N::AlterTableStmt(a) if is_type(a.objtype) => {
            let mut cmds = Vec::new();
            for c in &a.cmds {
                let Some(N::AlterTableCmd(c)) = &c.node else {
                    continue;
                };
                let def = match c.def.as_ref().and_then(|d| d.node.as_ref()) {
                    Some(N::ColumnDef(cd)) => Some((**cd).clone()),
                    _ => None,
                };
                let cmd = match (At::try_from(c.subtype), def) {
                    (Ok(At::AtAddColumn), Some(cd)) => AttrCmd::Add(Box::new(cd)),
                    (Ok(At::AtDropColumn), _) => AttrCmd::Drop {
                        name: c.name.clone(),
                        if_exists: c.missing_ok,
                    },
                    (Ok(At::AtAlterColumnType), Some(cd)) => AttrCmd::AlterType {
                        name: c.name.clone(),
                        tn: Box::new(cd.type_name.clone().unwrap_or_default()),
                    },
                    _ => {
                        return Some(Err(PgError::feature_not_supported(
                            "this form of ALTER TYPE is not supported yet",
                        )))
                    }
                };
                cmds.push(cmd);
            }
            CompositeDdl::Alter {
                name: range_names(a.relation.as_ref()),
                cmds,
            }
        }
        N::RenameStmt(r)
            if r.rename_type == ObjectType::ObjectAttribute as i32 && is_type(r.relation_type) =>
        {
            CompositeDdl::RenameAttr {
                name: range_names(r.relation.as_ref()),
                old: r.subname.clone(),
                new: r.newname.clone(),
            }
        }
        N::AlterObjectSchemaStmt(a) if is_type(a.object_type) => CompositeDdl::SetSchema {
            name: match a.object.as_deref().and_then(|o| o.node.as_ref()) {
                Some(N::List(l)) => names_of(&l.items),
                Some(N::TypeName(t)) => names_of(&t.names),
                _ => Vec::new(),
            },
            schema: a.newschema.clone(),
        },
        _ => return None,
    };
    Some(Ok(TypeDdl::Composite(Box::new(d))))
}

pub fn execute(d: &CompositeDdl, cx: &mut dyn SessionCtx) -> PgResult<()> {
    match d {
        CompositeDdl::Create { name, attrs } => create(cx, name, attrs),
        CompositeDdl::Alter { name, cmds } => alter(cx, name, cmds),
        CompositeDdl::RenameAttr { name, old, new } => rename_attr(cx, name, old, new),
        CompositeDdl::SetSchema { name, schema } => {
            let t = user_type::find(cx, name)?;
            user_type::set_schema(cx, &t, schema, "ALTER TYPE")
        }
    }
}

/// An attribute from its column definition: its type resolved (a composite type may not
/// contain itself, directly or through another).
fn attribute(
    cx: &mut dyn SessionCtx,
    cd: &protobuf::ColumnDef,
    owner: Option<Oid>,
) -> PgResult<CompositeAttr> {
    let tn = cd
        .type_name
        .as_ref()
        .ok_or_else(|| PgError::syntax("attribute type missing"))?;
    // PostgreSQL reports an unknown attribute type without a position.
    let (ty, typmod) = super::function::with_planner(cx, None, |pl| pl.resolve_type_name(tn))
        .map_err(|mut e| {
            e.position = None;
            e
        })?;
    if matches!(
        ty,
        crate::sql::types::Type::ANY
            | crate::sql::types::Type::ANYELEMENT
            | crate::sql::types::Type::ANYARRAY
            | crate::sql::types::Type::VOID
    ) || ty.is_polymorphic()
    {
        return Err(PgError::new(
            code::INVALID_TABLE_DEFINITION,
            format!("column \"{}\" has pseudo-type {}", cd.colname, ty.name()),
        ));
    }
    if let Some(me) = owner {
        if contains(ty.0, me, 0) {
            return Err(PgError::new(
                code::INVALID_TABLE_DEFINITION,
                format!(
                    "composite type {} cannot be made a member of itself",
                    crate::sql::types::Type(me).name()
                ),
            ));
        }
    }
    let collation = cd
        .coll_clause
        .as_ref()
        .map(|c| names_of(&c.collname).join("."));
    Ok(CompositeAttr {
        name: cd.colname.clone(),
        type_oid: ty.0,
        typmod,
        collation,
        dropped: false,
    })
}

/// Whether type `ty` is `me` or holds it (as an attribute, array element or domain base),
/// bounded by the nesting depth.
fn contains(ty: Oid, me: Oid, depth: usize) -> bool {
    if ty == me {
        return true;
    }
    if depth >= crate::catalog::types::MAX_COMPOSITE_DEPTH {
        return false;
    }
    let t = crate::sql::types::Type(ty);
    if let Some(e) = t.elem() {
        return contains(e.0, me, depth + 1);
    }
    if t.is_domain() {
        return contains(t.base_type().0, me, depth + 1);
    }
    crate::catalog::types::row_fields(ty)
        .is_some_and(|f| f.fields.iter().any(|a| contains(a.1, me, depth + 1)))
}

fn check_duplicates(attrs: &[CompositeAttr]) -> PgResult<()> {
    if attrs.len() > MAX_ATTRIBUTES {
        return Err(PgError::new(
            code::TOO_MANY_COLUMNS,
            format!("tables can have at most {MAX_ATTRIBUTES} columns"),
        ));
    }
    let live: Vec<&CompositeAttr> = attrs.iter().filter(|a| !a.dropped).collect();
    for (i, a) in live.iter().enumerate() {
        if live[..i].iter().any(|b| b.name == a.name) {
            return Err(PgError::new(
                code::DUPLICATE_COLUMN,
                format!("column \"{}\" specified more than once", a.name),
            ));
        }
    }
    Ok(())
}

fn create(cx: &mut dyn SessionCtx, names: &[String], defs: &[protobuf::ColumnDef]) -> PgResult<()> {
    let (schema, name) = user_type::split_name(names)?;
    let schema = super::creation_schema(cx, &schema, -1)?;
    if user_type::name_taken(cx, &schema, &name)? {
        return Err(user_type::already_exists(&name));
    }
    let mut attrs = Vec::with_capacity(defs.len().min(MAX_ATTRIBUTES + 1));
    for cd in defs {
        attrs.push(attribute(cx, cd, None)?);
        check_duplicates(&attrs)?;
    }
    // PostgreSQL numbers the relation first, then the type and its array type.
    let relid = user_type::new_oid(cx)?;
    let oid = user_type::new_oid(cx)?;
    let array_oid = user_type::new_oid(cx)?;
    let def = TypeDef {
        database: cx.database().to_string(),
        schema,
        name,
        owner: cx.role_oid(),
        array_oid,
        labels: Vec::new(),
        domain: None,
        composite: Some(CompositeDef { relid, attrs }),
        range: None,
        builtin: None,
        base: None,
    };
    user_type::write(cx, oid, def, false, "CREATE TYPE")
}

/// The composite type `names` names, owned by the current role; 42809 for another type.
fn must_find_composite(cx: &mut dyn SessionCtx, names: &[String]) -> PgResult<Arc<UserType>> {
    let t = user_type::find(cx, names)?;
    if t.def.composite.is_none() {
        return Err(PgError::new(
            code::WRONG_OBJECT_TYPE,
            format!(
                "\"{}\" is not a composite type",
                names.last().cloned().unwrap_or_default()
            ),
        ));
    }
    Ok(t)
}

/// Refuses a change of the stored layout while a column or another composite uses the type.
fn refuse_if_used(cx: &mut dyn SessionCtx, t: &UserType) -> PgResult<()> {
    let deps = user_type::dependents(cx, t)?;
    if let Some(d) = deps.iter().find(|d| d.domain.is_none()) {
        return Err(PgError::new(
            code::FEATURE_NOT_SUPPORTED,
            format!(
                "cannot alter type \"{}\" because {} uses it",
                t.def.name,
                d.used_as()
            ),
        ));
    }
    Ok(())
}

fn not_found_attr(name: &str, t: &UserType) -> PgError {
    PgError::new(
        code::UNDEFINED_COLUMN,
        format!(
            "column \"{name}\" of relation \"{}\" does not exist",
            t.def.name
        ),
    )
}

fn alter(cx: &mut dyn SessionCtx, names: &[String], cmds: &[AttrCmd]) -> PgResult<()> {
    let t = must_find_composite(cx, names)?;
    let mut def = t.def.clone();
    let mut attrs = def
        .composite
        .as_ref()
        .map(|c| c.attrs.clone())
        .unwrap_or_default();
    for cmd in cmds {
        match cmd {
            AttrCmd::Add(cd) => {
                if attrs.iter().any(|a| !a.dropped && a.name == cd.colname) {
                    return Err(PgError::new(
                        code::DUPLICATE_COLUMN,
                        format!(
                            "column \"{}\" of relation \"{}\" already exists",
                            cd.colname, t.def.name
                        ),
                    ));
                }
                attrs.push(attribute(cx, cd, Some(t.oid))?);
                check_duplicates(&attrs)?;
            }
            AttrCmd::Drop { name, if_exists } => {
                let Some(a) = attrs.iter_mut().find(|a| !a.dropped && &a.name == name) else {
                    if *if_exists {
                        cx.notice(super::notice(
                            format!(
                                "column \"{name}\" of relation \"{}\" does not exist, skipping",
                                t.def.name
                            ),
                            code::SUCCESSFUL_COMPLETION,
                        ));
                        continue;
                    }
                    return Err(not_found_attr(name, &t));
                };
                refuse_if_used(cx, &t)?;
                a.dropped = true;
                a.type_oid = 0;
            }
            AttrCmd::AlterType { name, tn } => {
                let cd = protobuf::ColumnDef {
                    colname: name.clone(),
                    type_name: Some((**tn).clone()),
                    ..Default::default()
                };
                let new = attribute(cx, &cd, Some(t.oid))?;
                let Some(a) = attrs.iter_mut().find(|a| !a.dropped && &a.name == name) else {
                    return Err(not_found_attr(name, &t));
                };
                if a.type_oid != new.type_oid || a.typmod != new.typmod {
                    refuse_if_used(cx, &t)?;
                }
                *a = new;
            }
        }
    }
    if let Some(c) = def.composite.as_mut() {
        c.attrs = attrs;
    }
    user_type::write(cx, t.oid, def, true, "ALTER TYPE")
}

fn rename_attr(cx: &mut dyn SessionCtx, names: &[String], old: &str, new: &str) -> PgResult<()> {
    let t = must_find_composite(cx, names)?;
    let mut def = t.def.clone();
    let Some(c) = def.composite.as_mut() else {
        return Err(not_found_attr(old, &t));
    };
    if c.attrs.iter().any(|a| !a.dropped && a.name == new) {
        return Err(PgError::new(
            code::DUPLICATE_COLUMN,
            format!(
                "column \"{new}\" of relation \"{}\" already exists",
                t.def.name
            ),
        ));
    }
    let Some(a) = c.attrs.iter_mut().find(|a| !a.dropped && a.name == old) else {
        return Err(PgError::new(
            code::UNDEFINED_COLUMN,
            format!("column \"{old}\" does not exist"),
        ));
    };
    a.name = new.to_string();
    user_type::write(cx, t.oid, def, true, "ALTER TYPE")
}

/// Drops attribute `attr` of composite type `names` (DROP TYPE ... CASCADE of its type).
pub(super) fn drop_attribute(
    cx: &mut dyn SessionCtx,
    names: &[String],
    attr: &str,
) -> PgResult<()> {
    let t = must_find_composite(cx, names)?;
    let mut def = t.def.clone();
    if let Some(c) = def.composite.as_mut() {
        for a in c.attrs.iter_mut().filter(|a| !a.dropped && a.name == attr) {
            a.dropped = true;
            a.type_oid = 0;
        }
    }
    user_type::write(cx, t.oid, def, true, "DROP TYPE")
}
