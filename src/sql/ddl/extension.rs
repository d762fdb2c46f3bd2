//! CREATE EXTENSION and DROP EXTENSION for the extensions threadgres has built in
//! (`sql::func::extension` lists them and says how their functions are made).
//!
//! CREATE EXTENSION makes the extension's functions in its schema (WITH SCHEMA, else the first
//! schema of search_path, which the role needs CREATE on) as `LANGUAGE internal` catalog
//! functions owned by the current role, and records the extension with their OIDs as its
//! members (`catalog::extensions`), all in the statement's transaction. DROP EXTENSION ends
//! the members and the extension; DROP FUNCTION of a member is refused (`member_of`).
//!
//! Errors are PostgreSQL's: an unknown extension 0A000 `extension "x" is not available`, an
//! installed one 42710 (a NOTICE with IF NOT EXISTS), another version than the built-in one
//! 22023, a function of the same signature already in the schema 42723, DROP of an extension
//! not installed 42704.
//!
//! DROP EXTENSION of one whose type a column uses is 2BP01; with CASCADE the columns (and
//! domains over the type) are dropped first, with PostgreSQL's notice.
//!
//! Not done: CASCADE's install of required extensions (none of these requires another),
//! ALTER EXTENSION, and DROP EXTENSION's check for objects that use a member function (a
//! column default calling uuid_generate_v4() is left calling a function that is gone; its
//! next use fails with 42883), which threadgres does not track for functions yet.

use pg_query::protobuf::{node::Node as N, ObjectType};

use super::notice;
use crate::catalog::extensions::{Extension, ExtensionDef};
use crate::catalog::functions::{FuncArg, FunctionDef};
use crate::catalog::types::TypeDef;
use crate::catalog::CatalogError;
use crate::error::{code, PgError, PgResult};
use crate::sql::context::SessionCtx;
use crate::sql::func::extension::{self, ExtSpec, SELF_ARRAY, SELF_TYPE};
use crate::sql::types::Type;
use crate::sync::Arc;

#[derive(Debug, Clone)]
pub enum ExtensionDdl {
    Create {
        name: String,
        if_not_exists: bool,
        schema: Option<String>,
        version: Option<String>,
    },
    Drop {
        names: Vec<String>,
        if_exists: bool,
        cascade: bool,
    },
}

impl ExtensionDdl {
    pub fn tag(&self) -> &'static str {
        match self {
            ExtensionDdl::Create { .. } => "CREATE EXTENSION",
            ExtensionDdl::Drop { .. } => "DROP EXTENSION",
        }
    }
}

/// The extension statements among parse trees.
pub fn analyze(node: &N) -> Option<PgResult<ExtensionDdl>> {
    Some(Ok(match node {
        N::CreateExtensionStmt(c) => {
            let mut schema = None;
            let mut version = None;
            for o in &c.options {
                let Some(N::DefElem(d)) = o.node.as_ref() else {
                    continue;
                };
                let value = d.arg.as_ref().and_then(|a| match a.node.as_ref() {
                    Some(N::String(s)) => Some(s.sval.clone()),
                    _ => None,
                });
                match d.defname.as_str() {
                    "schema" => schema = value,
                    "new_version" => version = value,
                    // Nothing here requires another extension: CASCADE has nothing to add.
                    "cascade" => {}
                    other => {
                        return Some(Err(PgError::syntax(format!(
                            "unrecognized option \"{other}\""
                        ))))
                    }
                }
            }
            ExtensionDdl::Create {
                name: c.extname.clone(),
                if_not_exists: c.if_not_exists,
                schema,
                version,
            }
        }
        N::DropStmt(d) if d.remove_type == ObjectType::ObjectExtension as i32 => {
            ExtensionDdl::Drop {
                names: d
                    .objects
                    .iter()
                    .filter_map(|o| match o.node.as_ref() {
                        Some(N::String(s)) => Some(s.sval.clone()),
                        _ => None,
                    })
                    .collect(),
                if_exists: d.missing_ok,
                cascade: d.behavior == pg_query::protobuf::DropBehavior::DropCascade as i32,
            }
        }
        _ => return None,
    }))
}

pub fn execute(d: &ExtensionDdl, cx: &mut dyn SessionCtx) -> PgResult<()> {
    match d {
        ExtensionDdl::Create {
            name,
            if_not_exists,
            schema,
            version,
        } => create(
            cx,
            name,
            *if_not_exists,
            schema.as_deref(),
            version.as_deref(),
        ),
        ExtensionDdl::Drop {
            names,
            if_exists,
            cascade,
        } => {
            // Every name is checked before anything is dropped, as PostgreSQL does.
            let mut found = Vec::new();
            for n in names {
                match installed(cx, n)? {
                    Some(e) => found.push(e),
                    None if n == extension::PLPGSQL.name => {
                        return Err(PgError::feature_not_supported(
                            "dropping extension \"plpgsql\" is not supported",
                        ))
                    }
                    None if *if_exists => cx.notice(notice(
                        format!("extension \"{n}\" does not exist, skipping"),
                        code::SUCCESSFUL_COMPLETION,
                    )),
                    None => return Err(not_found(n)),
                }
            }
            for e in found {
                drop_one(cx, &e, *cascade)?;
            }
            Ok(())
        }
    }
}

fn not_found(name: &str) -> PgError {
    PgError::new(
        code::UNDEFINED_OBJECT,
        format!("extension \"{name}\" does not exist"),
    )
}

fn busy() -> PgError {
    PgError::new(code::OBJECT_IN_USE, "tuple concurrently updated")
}

/// Extension `name` as installed in the session's database (plpgsql, always there, is not
/// in the catalog: None).
fn installed(cx: &mut dyn SessionCtx, name: &str) -> PgResult<Option<Arc<Extension>>> {
    let snap = cx.catalog_snapshot()?;
    Ok(cx
        .instance()
        .catalog
        .extensions
        .get(cx.database(), name, &snap))
}

/// The extension that function `oid` of the session's database belongs to, if any.
pub fn member_of(cx: &mut dyn SessionCtx, oid: u32) -> PgResult<Option<Arc<Extension>>> {
    let snap = cx.catalog_snapshot()?;
    Ok(cx
        .instance()
        .catalog
        .extensions
        .owning(cx.database(), oid, &snap))
}

fn create(
    cx: &mut dyn SessionCtx,
    name: &str,
    if_not_exists: bool,
    schema: Option<&str>,
    version: Option<&str>,
) -> PgResult<()> {
    let exists = name == extension::PLPGSQL.name || installed(cx, name)?.is_some();
    if exists {
        if if_not_exists {
            cx.notice(notice(
                format!("extension \"{name}\" already exists, skipping"),
                code::DUPLICATE_OBJECT,
            ));
            return Ok(());
        }
        return Err(PgError::new(
            code::DUPLICATE_OBJECT,
            format!("extension \"{name}\" already exists"),
        ));
    }
    let Some(spec) = extension::available(name) else {
        let names: Vec<&str> = extension::EXTENSIONS.iter().map(|e| e.name).collect();
        return Err(PgError::feature_not_supported(format!(
            "extension \"{name}\" is not available"
        ))
        .with_detail(format!(
            "threadgres has these extensions built in: {}.",
            names.join(", ")
        )));
    };
    if let Some(v) = version.filter(|v| *v != spec.version) {
        return Err(PgError::new(
            code::INVALID_PARAMETER_VALUE,
            format!(
                "extension \"{name}\" has no installation script nor update path for version \"{v}\""
            ),
        ));
    }
    let schema = super::creation_schema(cx, schema.unwrap_or(""), -1)?;
    let (cell, cid) = cx.writer("CREATE EXTENSION")?;
    let snap = cx.catalog_snapshot()?;
    let owner = cx.role_oid();
    let database = cx.database().to_string();
    // Its types first: its functions' signatures name them.
    let mut types = Vec::with_capacity(spec.types.len());
    let mut made = (SELF_TYPE, SELF_ARRAY);
    for t in spec.types {
        if super::user_type::name_taken(cx, &schema, t.name)? {
            return Err(super::user_type::already_exists(t.name));
        }
        let catalog = &cx.instance().catalog;
        let new_oid = || {
            catalog.new_oid().map_err(|_| {
                PgError::new(code::PROGRAM_LIMIT_EXCEEDED, "object identifiers exhausted")
            })
        };
        let (oid, array_oid) = (new_oid()?, new_oid()?);
        let def = TypeDef {
            database: database.clone(),
            schema: schema.clone(),
            name: t.name.to_string(),
            owner,
            array_oid,
            labels: Vec::new(),
            domain: None,
            composite: None,
            range: None,
            builtin: Some(t.builtin.to_string()),
            base: None,
        };
        catalog
            .types
            .create(oid, def, false, &snap, &cell, cid)
            .map_err(|e| match e {
                CatalogError::Exists(_) => super::user_type::already_exists(t.name),
                _ => busy(),
            })?;
        types.push(oid);
        made = (Type(oid), Type(array_oid));
    }
    let catalog = &cx.instance().catalog;
    let new_oid = || {
        catalog
            .new_oid()
            .map_err(|_| PgError::new(code::PROGRAM_LIMIT_EXCEEDED, "object identifiers exhausted"))
    };
    let mut members = Vec::with_capacity(spec.functions.len());
    for f in spec.functions {
        let oid = new_oid()?;
        let def = function_def(spec, f, &database, &schema, owner, made);
        catalog
            .functions
            .create(oid, def, false, &snap, &cell, cid)
            .map_err(|e| match e {
                CatalogError::Exists(_) => PgError::new(
                    code::DUPLICATE_FUNCTION,
                    format!(
                        "function \"{}\" already exists with same argument types",
                        f.name
                    ),
                ),
                _ => busy(),
            })?;
        members.push(oid);
    }
    let def = ExtensionDef {
        database,
        name: spec.name.to_string(),
        schema,
        owner,
        version: spec.version.to_string(),
        relocatable: spec.relocatable,
        members,
        types,
    };
    catalog
        .extensions
        .create(new_oid()?, def, &snap, &cell, cid)
        .map_err(|e| match e {
            CatalogError::Exists(_) => PgError::new(
                code::DUPLICATE_OBJECT,
                format!("extension \"{name}\" already exists"),
            ),
            _ => busy(),
        })?;
    catalog.bump();
    Ok(())
}

/// The catalog function one entry of an extension's list becomes.
fn function_def(
    spec: &ExtSpec,
    f: &extension::ExtFunc,
    database: &str,
    schema: &str,
    owner: u32,
    made: (Type, Type),
) -> FunctionDef {
    debug_assert!(extension::internal(f.symbol).is_some(), "{}", spec.name);
    // The extension's own type stands in its signatures as SELF_TYPE / SELF_ARRAY.
    let real = |t: Type| match t {
        SELF_TYPE => made.0,
        SELF_ARRAY => made.1,
        t => t,
    };
    FunctionDef {
        database: database.to_string(),
        schema: schema.to_string(),
        name: f.name.to_string(),
        kind: 'f',
        args: f
            .args
            .iter()
            .map(|(name, ty)| FuncArg {
                name: name.to_string(),
                type_oid: real(*ty).0,
                mode: 'i',
                default: None,
            })
            .collect(),
        returns: real(f.returns).0,
        returns_set: false,
        // As PostgreSQL shows them (C functions of a shared library); the body is the symbol.
        language: "c".to_string(),
        body: f.symbol.to_string(),
        sql_body: false,
        volatility: f.volatility,
        strict: f.strict,
        security_definer: false,
        leakproof: false,
        parallel: 's',
        // PostgreSQL's default cost of a function in C or internal.
        cost: 1.0,
        rows: 0.0,
        config: Vec::new(),
        owner,
        acl: None,
    }
}

fn drop_one(cx: &mut dyn SessionCtx, e: &Extension, cascade: bool) -> PgResult<()> {
    if !super::grant::owns(cx, e.def.owner)? {
        return Err(crate::sql::privs::not_owner("extension", &e.def.name));
    }
    // A column of one of its types keeps it (2BP01), unless CASCADE drops the columns (and
    // the domains over the types) first, as PostgreSQL's dependency walk does.
    let mut lines = Vec::new();
    let mut deps = Vec::new();
    {
        let snap = cx.catalog_snapshot()?;
        let owned: Vec<_> = e
            .def
            .types
            .iter()
            .filter_map(|&oid| cx.instance().catalog.types.by_oid(oid, &snap))
            .collect();
        for t in owned {
            let shown = Type(t.oid).name();
            for d in super::user_type::dependents(cx, &t)? {
                lines.push(format!("{} depends on type {shown}", d.what()));
                deps.push(d);
            }
        }
    }
    if !lines.is_empty() {
        if !cascade {
            return Err(super::dependents_exist(
                &format!("extension {}", e.def.name),
                &lines,
            ));
        }
        let all: Vec<String> = deps
            .iter()
            .map(|d| format!("drop cascades to {}", d.what()))
            .collect();
        cx.notice(super::cascade_notice(all.len(), &all));
        super::user_type::drop_dependents(cx, &deps)?;
    }
    let (cell, cid) = cx.writer("DROP EXTENSION")?;
    let snap = cx.catalog_snapshot()?;
    let catalog = &cx.instance().catalog;
    for &oid in &e.def.types {
        catalog
            .types
            .end(oid, &snap, &cell, cid)
            .map_err(|_| busy())?;
    }
    for &oid in &e.def.members {
        // A member dropped some other way (its schema's DROP ... CASCADE) is simply gone.
        catalog
            .functions
            .end(oid, &snap, &cell, cid)
            .map_err(|_| busy())?;
    }
    if !catalog
        .extensions
        .end(&e.def.database, &e.def.name, &snap, &cell, cid)
        .map_err(|_| busy())?
    {
        return Err(not_found(&e.def.name));
    }
    catalog.bump();
    Ok(())
}

/// The extension of the session's database that made type `oid` (hstore), if any.
pub fn type_member_of(cx: &mut dyn SessionCtx, oid: u32) -> PgResult<Option<Arc<Extension>>> {
    let snap = cx.catalog_snapshot()?;
    Ok(cx
        .instance()
        .catalog
        .extensions
        .visible(Some(cx.database()), &snap)
        .into_iter()
        .find(|e| e.def.types.contains(&oid)))
}

/// DROP TYPE of a type an extension made: refused, as PostgreSQL refuses it.
pub fn refuse_type_drop(ext: &Extension, shown: &str) -> PgError {
    PgError::new(
        code::DEPENDENT_OBJECTS_STILL_EXIST,
        format!(
            "cannot drop type {shown} because extension {} requires it",
            ext.def.name
        ),
    )
    .with_hint(format!("You can drop extension {} instead.", ext.def.name))
}

/// DROP FUNCTION of an extension's member: refused, as PostgreSQL refuses it.
pub fn refuse_member_drop(ext: &Extension, shown: &str) -> PgError {
    PgError::new(
        code::DEPENDENT_OBJECTS_STILL_EXIST,
        format!(
            "cannot drop function {shown} because extension {} requires it",
            ext.def.name
        ),
    )
    .with_hint(format!("You can drop extension {} instead.", ext.def.name))
}
