//! CREATE SCHEMA and DROP SCHEMA.
//!
//! A created schema is a versioned catalog entry (`catalog::Namespaces`), so both commit and
//! roll back with the transaction. Tables and views live in a schema by their qualified name;
//! unqualified names go through search_path (`engine::search_schemas`, with the session
//! keeping only the schemas that exist). The built-in schemas (pg_catalog, public,
//! information_schema, pg_toast) cannot be created or dropped here.

use pg_query::protobuf::{self, node::Node as N, ObjectType};

use super::{catalog_error, notice};
use crate::catalog::RelKind;
use crate::error::{code, PgError, PgResult};
use crate::sql::context::SessionCtx;
use crate::sql::engine;

/// PostgreSQL's SQLSTATEs for schemas.
const DUPLICATE_SCHEMA: &str = "42P06";
const RESERVED_NAME: &str = "42939";
const INVALID_SCHEMA_DEFINITION: &str = "42P15";

const BUILT_IN: &[&str] = &["pg_catalog", "public", "information_schema", "pg_toast"];

#[derive(Debug, Clone)]
pub enum SchemaDdl {
    Create {
        name: String,
        owner: Option<String>,
        if_not_exists: bool,
        /// CREATE TABLE / CREATE VIEW ... inside the statement, created in the schema.
        elements: Vec<N>,
    },
    Drop {
        names: Vec<String>,
        if_exists: bool,
        cascade: bool,
    },
}

impl SchemaDdl {
    pub fn tag(&self) -> &'static str {
        match self {
            SchemaDdl::Create { .. } => "CREATE SCHEMA",
            SchemaDdl::Drop { .. } => "DROP SCHEMA",
        }
    }
}

pub fn analyze(node: &N) -> Option<PgResult<SchemaDdl>> {
    match node {
        N::CreateSchemaStmt(c) => {
            let owner = c.authrole.as_ref().map(|r| r.rolename.clone());
            Some(Ok(SchemaDdl::Create {
                name: if c.schemaname.is_empty() {
                    owner.clone().unwrap_or_default()
                } else {
                    c.schemaname.clone()
                },
                owner: owner.filter(|o| !o.is_empty()),
                if_not_exists: c.if_not_exists,
                elements: c
                    .schema_elts
                    .iter()
                    .filter_map(|e| e.node.clone())
                    .collect(),
            }))
        }
        N::DropStmt(d) if d.remove_type == ObjectType::ObjectSchema as i32 => {
            Some(Ok(SchemaDdl::Drop {
                names: d
                    .objects
                    .iter()
                    .filter_map(|o| match o.node.as_ref()? {
                        N::String(s) => Some(s.sval.clone()),
                        _ => None,
                    })
                    .collect(),
                if_exists: d.missing_ok,
                cascade: d.behavior == protobuf::DropBehavior::DropCascade as i32,
            }))
        }
        _ => None,
    }
}

pub(super) fn exists(cx: &mut dyn SessionCtx, name: &str) -> PgResult<bool> {
    let snap = cx.catalog_snapshot()?;
    Ok(BUILT_IN.contains(&name)
        || engine::schema_exists(&cx.instance().catalog, &snap, cx.database(), name))
}

pub fn execute(s: &SchemaDdl, cx: &mut dyn SessionCtx) -> PgResult<()> {
    match s {
        SchemaDdl::Create {
            name,
            owner,
            if_not_exists,
            elements,
        } => {
            // PostgreSQL resolves the owner and checks the privileges first.
            let owner = match owner {
                Some(o) => crate::sql::privs::role_oid(cx, o)?,
                None => cx.role_oid(),
            };
            super::grant::check_create_schema(cx, owner)?;
            if exists(cx, name)? {
                if *if_not_exists {
                    cx.notice(notice(
                        format!("schema \"{name}\" already exists, skipping"),
                        DUPLICATE_SCHEMA,
                    ));
                    return Ok(());
                }
                return Err(PgError::new(
                    DUPLICATE_SCHEMA,
                    format!("schema \"{name}\" already exists"),
                ));
            }
            if name.starts_with("pg_") {
                return Err(PgError::new(
                    RESERVED_NAME,
                    format!("unacceptable schema name \"{name}\""),
                )
                .with_detail("The prefix \"pg_\" is reserved for system schemas."));
            }
            let (cell, cid) = cx.writer("CREATE SCHEMA")?;
            let snap = cx.catalog_snapshot()?;
            let catalog = &cx.instance().catalog;
            let oid = catalog.new_oid().map_err(|e| catalog_error(e, name))?;
            catalog
                .namespaces
                .create(oid, cx.database(), name, owner, &snap, &cell, cid)
                .map_err(|_| {
                    PgError::new(
                        DUPLICATE_SCHEMA,
                        format!("schema \"{name}\" already exists"),
                    )
                })?;
            catalog.bump();
            for e in elements {
                create_element(cx, name, e)?;
            }
            Ok(())
        }
        SchemaDdl::Drop {
            names,
            if_exists,
            cascade,
        } => {
            for name in names {
                if BUILT_IN.contains(&name.as_str()) {
                    return Err(PgError::feature_not_supported(format!(
                        "dropping schema \"{name}\" is not supported"
                    )));
                }
                let snap = cx.catalog_snapshot()?;
                let found = cx
                    .instance()
                    .catalog
                    .namespaces
                    .lookup(cx.database(), name, &snap);
                let Some(ns) = found else {
                    if *if_exists {
                        cx.notice(notice(
                            format!("schema \"{name}\" does not exist, skipping"),
                            code::SUCCESSFUL_COMPLETION,
                        ));
                        continue;
                    }
                    return Err(PgError::new(
                        code::INVALID_SCHEMA_NAME,
                        format!("schema \"{name}\" does not exist"),
                    ));
                };
                if !super::grant::owns(cx, ns.owner)? {
                    return Err(crate::sql::privs::not_owner("schema", name));
                }
                // Its tables and views (indexes go with their tables), then what reads them.
                let db = cx.database().to_string();
                let members: Vec<_> = cx
                    .instance()
                    .catalog
                    .visible(&snap)
                    .into_iter()
                    .filter(|r| {
                        r.name.database == db && &r.name.schema == name && r.kind != RelKind::Index
                    })
                    .collect();
                // A sequence owned by a column (serial, identity) goes with its table and is
                // not listed, as in PostgreSQL (an internal dependency).
                let tables: Vec<_> = members.iter().map(|r| r.oid).collect();
                let members: Vec<_> = members
                    .into_iter()
                    .filter(|r| {
                        !r.data
                            .sequence
                            .as_ref()
                            .and_then(|s| s.owned_by)
                            .is_some_and(|o| tables.contains(&o.table))
                    })
                    .collect();
                let why = format!("schema {name}");
                // Its enum types: RESTRICT refuses while there are any (listed alone, where
                // PostgreSQL would list them with the schema's other objects); CASCADE drops
                // them after the tables, whose columns may use them.
                let types = cx.instance().catalog.types.visible(Some(&db), &snap);
                let types: Vec<_> = types
                    .into_iter()
                    .filter(|t| &t.def.schema == name)
                    .collect();
                if !types.is_empty() && !*cascade && members.is_empty() {
                    let lines: Vec<String> = types
                        .iter()
                        .map(|t| format!("type {}.{} depends on {why}", name, t.def.name))
                        .collect();
                    return Err(super::dependents_exist(&format!("schema {name}"), &lines));
                }
                let list_is_empty = members.is_empty();
                let start = members.into_iter().map(|r| (r, why.clone())).collect();
                let list = super::view::cascade_list(cx, start, &[], true)?;
                super::view::report_and_drop(cx, &why, list, *cascade)?;
                if !types.is_empty() {
                    if list_is_empty {
                        let what: Vec<String> = types
                            .iter()
                            .map(|t| format!("drop cascades to type {}.{}", name, t.def.name))
                            .collect();
                        cx.notice(super::cascade_notice(what.len(), &what));
                    }
                    let (cell, cid) = cx.writer("DROP SCHEMA")?;
                    let snap = cx.catalog_snapshot()?;
                    let catalog = &cx.instance().catalog;
                    for t in &types {
                        catalog.types.end(t.oid, &snap, &cell, cid).map_err(|_| {
                            PgError::new(code::OBJECT_IN_USE, "tuple concurrently updated")
                        })?;
                    }
                }
                let (cell, cid) = cx.writer("DROP SCHEMA")?;
                let catalog = &cx.instance().catalog;
                catalog
                    .namespaces
                    .end(&ns, &cell, cid)
                    .map_err(|e| catalog_error(e, name))?;
                catalog.bump();
            }
            Ok(())
        }
    }
}

/// A CREATE TABLE / VIEW / INDEX inside CREATE SCHEMA, made in that schema.
fn create_element(cx: &mut dyn SessionCtx, schema: &str, e: &N) -> PgResult<()> {
    let mut e = e.clone();
    let rv = match &mut e {
        N::CreateStmt(c) => c.relation.as_mut(),
        N::ViewStmt(v) => v.view.as_mut(),
        _ => None,
    };
    match rv {
        Some(rv) => {
            if !rv.schemaname.is_empty() && rv.schemaname != schema {
                return Err(PgError::new(
                    INVALID_SCHEMA_DEFINITION,
                    format!(
                        "CREATE specifies a schema ({}) different from the one being created ({schema})",
                        rv.schemaname
                    ),
                ));
            }
            rv.schemaname = schema.to_string();
        }
        None => {
            return Err(PgError::feature_not_supported(
                "only CREATE TABLE and CREATE VIEW are supported inside CREATE SCHEMA",
            ))
        }
    }
    if matches!(e, N::ViewStmt(_)) {
        // Names in the view's query resolve in the new schema, as PostgreSQL resolves them
        // while it creates the schema's elements.
        let Some(super::view::ViewDdl::Create {
            name,
            aliases,
            query,
            replace,
            location,
            ..
        }) = super::view::analyze(&e).transpose()?
        else {
            return Ok(());
        };
        return super::view::create_view(
            cx,
            schema,
            &name,
            &aliases,
            &query,
            replace,
            location,
            Some(schema.to_string()),
        );
    }
    match super::analyze(&e) {
        Some(d) => super::execute(&d?, cx).map(|_| ()),
        None => Err(PgError::feature_not_supported(
            "this statement is not supported inside CREATE SCHEMA",
        )),
    }
}
