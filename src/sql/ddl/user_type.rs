//! CREATE TYPE ... AS ENUM, ALTER TYPE (ADD VALUE, RENAME VALUE, RENAME TO, OWNER TO) and DROP
//! TYPE, kept in the catalog's versioned type map (`catalog::types`, which also says how enum
//! values are held and bounded).
//!
//! Errors are PostgreSQL's: a taken name 42710 `type "x" already exists` (a table's row type
//! takes its name too), a label over 63 bytes 22023, a repeated or existing label 42710, an
//! unknown type 42704, DROP of a type a column uses 2BP01 (CASCADE drops those columns, with
//! a NOTICE each, as PostgreSQL does).

use pg_query::protobuf::{self, node::Node as N, ObjectType};

use super::alter::{self, Alter, Cmd};
use super::notice;
use super::role::Spec;
use crate::catalog::types::{EnumLabel, TypeDef, UserType, MAX_LABELS, MAX_LABEL_LEN};
use crate::catalog::{CatalogError, Oid};
use crate::error::{code, PgError, PgResult};
use crate::sql::context::SessionCtx;
use crate::sql::parser::{names_of, sval};
use crate::sync::Arc;

#[derive(Debug, Clone)]
pub enum TypeDdl {
    CreateEnum {
        name: Vec<String>,
        labels: Vec<String>,
    },
    Drop {
        names: Vec<Vec<String>>,
        if_exists: bool,
        cascade: bool,
    },
    AddValue {
        name: Vec<String>,
        value: String,
        /// BEFORE (false) or AFTER (true) this label.
        neighbor: Option<(String, bool)>,
        if_not_exists: bool,
    },
    RenameValue {
        name: Vec<String>,
        old: String,
        new: String,
    },
    Rename {
        name: Vec<String>,
        new: String,
    },
    Owner {
        name: Vec<String>,
        owner: Spec,
    },
}

impl TypeDdl {
    pub fn tag(&self) -> &'static str {
        match self {
            TypeDdl::CreateEnum { .. } => "CREATE TYPE",
            TypeDdl::Drop { .. } => "DROP TYPE",
            _ => "ALTER TYPE",
        }
    }
}

fn object_names(n: Option<&protobuf::Node>) -> Vec<String> {
    match n.and_then(|n| n.node.as_ref()) {
        Some(N::List(l)) => names_of(&l.items),
        Some(N::TypeName(t)) => names_of(&t.names),
        Some(N::String(s)) => vec![s.sval.clone()],
        _ => Vec::new(),
    }
}

/// The type statements among parse trees.
pub fn analyze(node: &N) -> Option<PgResult<TypeDdl>> {
    let is_type = |t: i32| t == ObjectType::ObjectType as i32;
    Some(Ok(match node {
        N::CreateEnumStmt(c) => TypeDdl::CreateEnum {
            name: names_of(&c.type_name),
            labels: c.vals.iter().filter_map(sval).collect(),
        },
        N::DropStmt(d) if is_type(d.remove_type) => TypeDdl::Drop {
            names: d.objects.iter().map(|o| object_names(Some(o))).collect(),
            if_exists: d.missing_ok,
            cascade: d.behavior == protobuf::DropBehavior::DropCascade as i32,
        },
        N::AlterEnumStmt(a) if !a.old_val.is_empty() => TypeDdl::RenameValue {
            name: names_of(&a.type_name),
            old: a.old_val.clone(),
            new: a.new_val.clone(),
        },
        N::AlterEnumStmt(a) => TypeDdl::AddValue {
            name: names_of(&a.type_name),
            value: a.new_val.clone(),
            neighbor: (!a.new_val_neighbor.is_empty())
                .then(|| (a.new_val_neighbor.clone(), a.new_val_is_after)),
            if_not_exists: a.skip_if_new_val_exists,
        },
        N::RenameStmt(r) if is_type(r.rename_type) => TypeDdl::Rename {
            name: object_names(r.object.as_deref()),
            new: r.newname.clone(),
        },
        N::AlterOwnerStmt(o) if is_type(o.object_type) => TypeDdl::Owner {
            name: object_names(o.object.as_deref()),
            owner: o.newowner.as_ref().map_or(Spec::CurrentUser, Spec::of),
        },
        _ => return None,
    }))
}

pub fn execute(d: &TypeDdl, cx: &mut dyn SessionCtx) -> PgResult<()> {
    match d {
        TypeDdl::CreateEnum { name, labels } => create_enum(cx, name, labels),
        TypeDdl::Drop {
            names,
            if_exists,
            cascade,
        } => {
            for n in names {
                drop_one(cx, n, *if_exists, *cascade)?;
            }
            Ok(())
        }
        TypeDdl::AddValue {
            name,
            value,
            neighbor,
            if_not_exists,
        } => add_value(cx, name, value, neighbor.as_ref(), *if_not_exists),
        TypeDdl::RenameValue { name, old, new } => rename_value(cx, name, old, new),
        TypeDdl::Rename { name, new } => rename(cx, name, new),
        TypeDdl::Owner { name, owner } => owner_to(cx, name, owner),
    }
}

/// (schema, name) of a possibly qualified name (a database name in front is ignored).
fn split(names: &[String]) -> PgResult<(String, String)> {
    match names {
        [n] => Ok((String::new(), n.clone())),
        [s, n] | [_, s, n] => Ok((s.clone(), n.clone())),
        _ => Err(PgError::syntax(format!(
            "improper qualified name (too many dotted names): {}",
            names.join(".")
        ))),
    }
}

fn check_label(label: &str) -> PgResult<()> {
    if label.len() > MAX_LABEL_LEN {
        return Err(PgError::new(
            code::INVALID_NAME,
            format!("invalid enum label \"{label}\""),
        )
        .with_detail(format!("Labels must be {MAX_LABEL_LEN} bytes or less.")));
    }
    Ok(())
}

fn too_many_labels() -> PgError {
    PgError::new(
        code::PROGRAM_LIMIT_EXCEEDED,
        format!("an enum can have at most {MAX_LABELS} labels"),
    )
}

fn busy() -> PgError {
    PgError::new(code::OBJECT_IN_USE, "tuple concurrently updated")
}

fn already_exists(name: &str) -> PgError {
    PgError::new(
        code::DUPLICATE_OBJECT,
        format!("type \"{name}\" already exists"),
    )
}

/// The type `names` resolves to (search_path when unqualified), or 42704.
fn lookup(cx: &mut dyn SessionCtx, names: &[String]) -> PgResult<Option<Arc<UserType>>> {
    let (schema, name) = split(names)?;
    let snap = cx.catalog_snapshot()?;
    let schemas = if schema.is_empty() {
        cx.search_path()
    } else {
        vec![schema]
    };
    let catalog = &cx.instance().catalog;
    Ok(schemas
        .iter()
        .find_map(|s| catalog.types.named(cx.database(), s, &name, &snap)))
}

fn not_found(names: &[String]) -> PgError {
    PgError::new(
        code::UNDEFINED_OBJECT,
        format!("type \"{}\" does not exist", names.join(".")),
    )
}

/// The type `names` resolves to, which the current role must own (COMMENT ON TYPE).
pub(super) fn find(cx: &mut dyn SessionCtx, names: &[String]) -> PgResult<Arc<UserType>> {
    must_find(cx, names)
}

fn must_find(cx: &mut dyn SessionCtx, names: &[String]) -> PgResult<Arc<UserType>> {
    let t = lookup(cx, names)?.ok_or_else(|| not_found(names))?;
    if !super::grant::owns(cx, t.def.owner)? {
        return Err(crate::sql::privs::not_owner(
            "type",
            &crate::sql::types::Type(t.oid).name(),
        ));
    }
    Ok(t)
}

/// Whether a built-in type or a relation (whose row type has its name) takes `name` in
/// `schema`.
fn name_taken(cx: &mut dyn SessionCtx, schema: &str, name: &str) -> PgResult<bool> {
    if schema == "pg_catalog" && crate::sql::types::Type::from_name(name).is_some() {
        return Ok(true);
    }
    let snap = cx.catalog_snapshot()?;
    if cx
        .instance()
        .catalog
        .types
        .named(cx.database(), schema, name, &snap)
        .is_some()
    {
        return Ok(true);
    }
    Ok(super::find(cx, schema, name)?.is_some())
}

/// Writes `def` as the next version of type `oid` (`replace`) or as a new type.
fn write(
    cx: &mut dyn SessionCtx,
    oid: Oid,
    def: TypeDef,
    replace: bool,
    tag: &str,
) -> PgResult<()> {
    let (cell, cid) = cx.writer(tag)?;
    let snap = cx.catalog_snapshot()?;
    let catalog = &cx.instance().catalog;
    let name = def.name.clone();
    catalog
        .types
        .create(oid, def, replace, &snap, &cell, cid)
        .map_err(|e| match e {
            CatalogError::Exists(_) => already_exists(&name),
            _ => busy(),
        })?;
    catalog.bump();
    Ok(())
}

fn create_enum(cx: &mut dyn SessionCtx, names: &[String], labels: &[String]) -> PgResult<()> {
    let (schema, name) = split(names)?;
    let schema = super::creation_schema(cx, &schema, -1)?;
    if labels.len() > MAX_LABELS {
        return Err(too_many_labels());
    }
    for l in labels {
        check_label(l)?;
    }
    if name_taken(cx, &schema, &name)? {
        return Err(already_exists(&name));
    }
    let catalog = &cx.instance().catalog;
    let new_oid = || {
        catalog
            .new_oid()
            .map_err(|_| PgError::internal("OIDs exhausted"))
    };
    let oid = new_oid()?;
    // A repeated label breaks pg_enum's unique index in PostgreSQL, which reports it so.
    for (i, l) in labels.iter().enumerate() {
        if labels[..i].contains(l) {
            return Err(PgError::new(
                code::UNIQUE_VIOLATION,
                "duplicate key value violates unique constraint \"pg_enum_typid_label_index\"",
            )
            .with_detail(format!(
                "Key (enumtypid, enumlabel)=({oid}, {l}) already exists."
            )));
        }
    }
    let array_oid = new_oid()?;
    let mut list = Vec::with_capacity(labels.len());
    for (i, l) in labels.iter().enumerate() {
        list.push(EnumLabel {
            oid: new_oid()?,
            sort: (i + 1) as f32,
            name: l.clone(),
        });
    }
    let def = TypeDef {
        database: cx.database().to_string(),
        schema,
        name,
        owner: cx.role_oid(),
        array_oid,
        labels: list,
    };
    write(cx, oid, def, false, "CREATE TYPE")
}

fn drop_one(
    cx: &mut dyn SessionCtx,
    names: &[String],
    if_exists: bool,
    cascade: bool,
) -> PgResult<()> {
    let Some(t) = lookup(cx, names)? else {
        if if_exists {
            cx.notice(notice(
                format!("type \"{}\" does not exist, skipping", names.join(".")),
                code::SUCCESSFUL_COMPLETION,
            ));
            return Ok(());
        }
        return Err(not_found(names));
    };
    let shown = crate::sql::types::Type(t.oid).name();
    if !super::grant::owns(cx, t.def.owner)? {
        return Err(crate::sql::privs::not_owner("type", &shown));
    }
    let deps = dependents(cx, &t)?;
    if !deps.is_empty() {
        let lines: Vec<String> = deps
            .iter()
            .map(|d| {
                let arr = if d.array { "[]" } else { "" };
                format!("{} depends on type {shown}{arr}", d.what)
            })
            .collect();
        if !cascade {
            return Err(super::dependents_exist(&format!("type {shown}"), &lines));
        }
        let drops: Vec<String> = deps
            .iter()
            .map(|d| format!("drop cascades to {}", d.what))
            .collect();
        cx.notice(super::cascade_notice(drops.len(), &drops));
        for d in &deps {
            let a = Alter::Table {
                table: d.table.clone(),
                if_exists: false,
                cmds: vec![Cmd::DropColumn {
                    name: d.column.clone(),
                    if_exists: false,
                    cascade: true,
                }],
            };
            alter::execute(&a, cx)?;
        }
    }
    let (cell, cid) = cx.writer("DROP TYPE")?;
    let snap = cx.catalog_snapshot()?;
    let catalog = &cx.instance().catalog;
    catalog
        .types
        .end(t.oid, &snap, &cell, cid)
        .map_err(|_| busy())?;
    catalog.bump();
    Ok(())
}

/// A column that uses a type (or its array type).
struct Dependent {
    /// `column c of table t`, as PostgreSQL's messages name it.
    what: String,
    /// Whether the column is of the array type.
    array: bool,
    table: (String, String),
    column: String,
}

/// Bound: one entry per column of the database's tables that uses the type.
fn dependents(cx: &mut dyn SessionCtx, t: &UserType) -> PgResult<Vec<Dependent>> {
    let snap = cx.catalog_snapshot()?;
    let catalog = &cx.instance().catalog;
    let mut out = Vec::new();
    let mut rels = catalog.visible(&snap);
    rels.retain(|r| r.name.database == cx.database());
    rels.sort_by_key(|r| r.oid);
    // PostgreSQL reaches the columns of the array type (which depends on the enum) first.
    for array in [true, false] {
        let want = if array { t.def.array_oid } else { t.oid };
        dependents_of(&rels, want, array, &mut out);
    }
    Ok(out)
}

fn dependents_of(
    rels: &[Arc<crate::sql::engine::Rel>],
    want: Oid,
    array: bool,
    out: &mut Vec<Dependent>,
) {
    for r in rels {
        if r.kind != crate::catalog::RelKind::Table {
            continue;
        }
        for (_, c) in r.live_columns() {
            if c.type_oid == want {
                let table = if r.name.schema == "public" {
                    r.name.name.clone()
                } else {
                    format!("{}.{}", r.name.schema, r.name.name)
                };
                out.push(Dependent {
                    what: format!("column {} of table {table}", c.name),
                    array,
                    table: (r.name.schema.clone(), r.name.name.clone()),
                    column: c.name.clone(),
                });
            }
        }
    }
}

fn not_a_label(l: &str) -> PgError {
    PgError::new(
        code::INVALID_PARAMETER_VALUE,
        format!("\"{l}\" is not an existing enum label"),
    )
}

fn add_value(
    cx: &mut dyn SessionCtx,
    names: &[String],
    value: &str,
    neighbor: Option<&(String, bool)>,
    if_not_exists: bool,
) -> PgResult<()> {
    let t = must_find(cx, names)?;
    let mut def = t.def.clone();
    if def.label(value).is_some() {
        if if_not_exists {
            cx.notice(notice(
                format!("enum label \"{value}\" already exists, skipping"),
                code::DUPLICATE_OBJECT,
            ));
            return Ok(());
        }
        return Err(PgError::new(
            code::DUPLICATE_OBJECT,
            format!("enum label \"{value}\" already exists"),
        ));
    }
    check_label(value)?;
    if def.labels.len() >= MAX_LABELS {
        return Err(too_many_labels());
    }
    // Where the new label goes (its index in sort order), and its sort position.
    let at = match neighbor {
        None => def.labels.len(),
        Some((n, after)) => {
            let i = def
                .labels
                .iter()
                .position(|l| &l.name == n)
                .ok_or_else(|| not_a_label(n))?;
            i + *after as usize
        }
    };
    let mut sort = position_between(&def.labels, at);
    if sort.is_none() {
        // No float4 between the neighbours: number every label again, keeping the order.
        for (i, l) in def.labels.iter_mut().enumerate() {
            l.sort = (i + 1) as f32;
        }
        sort = position_between(&def.labels, at);
    }
    let sort = sort.ok_or_else(|| PgError::internal("no sort position for a new enum label"))?;
    let oid = cx
        .instance()
        .catalog
        .new_oid()
        .map_err(|_| PgError::internal("OIDs exhausted"))?;
    def.labels.insert(
        at,
        EnumLabel {
            oid,
            sort,
            name: value.to_string(),
        },
    );
    write(cx, t.oid, def, true, "ALTER TYPE")
}

/// A sort position for a label inserted at index `at` of `labels`, strictly between its
/// neighbours; None when float4 has no value between them.
fn position_between(labels: &[EnumLabel], at: usize) -> Option<f32> {
    let before = at
        .checked_sub(1)
        .and_then(|i| labels.get(i))
        .map(|l| l.sort);
    let after = labels.get(at).map(|l| l.sort);
    let s = match (before, after) {
        (None, None) => 1.0,
        (Some(b), None) => b + 1.0,
        (None, Some(a)) => a - 1.0,
        (Some(b), Some(a)) => (b + a) / 2.0,
    };
    let fits = before.is_none_or(|b| s > b) && after.is_none_or(|a| s < a) && s.is_finite();
    fits.then_some(s)
}

fn rename_value(cx: &mut dyn SessionCtx, names: &[String], old: &str, new: &str) -> PgResult<()> {
    let t = must_find(cx, names)?;
    let mut def = t.def.clone();
    check_label(new)?;
    if def.label(old).is_none() {
        return Err(not_a_label(old));
    }
    if def.label(new).is_some() {
        return Err(PgError::new(
            code::DUPLICATE_OBJECT,
            format!("enum label \"{new}\" already exists"),
        ));
    }
    for l in &mut def.labels {
        if l.name == old {
            l.name = new.to_string();
        }
    }
    write(cx, t.oid, def, true, "ALTER TYPE")
}

fn rename(cx: &mut dyn SessionCtx, names: &[String], new: &str) -> PgResult<()> {
    let t = must_find(cx, names)?;
    let schema = t.def.schema.clone();
    if name_taken(cx, &schema, new)? {
        return Err(already_exists(new));
    }
    let mut def = t.def.clone();
    def.name = new.to_string();
    let (cell, cid) = cx.writer("ALTER TYPE")?;
    let snap = cx.catalog_snapshot()?;
    let catalog = &cx.instance().catalog;
    catalog
        .types
        .end(t.oid, &snap, &cell, cid)
        .map_err(|_| busy())?;
    catalog
        .types
        .create(t.oid, def, false, &snap, &cell, cid)
        .map_err(|e| match e {
            CatalogError::Exists(_) => already_exists(new),
            _ => busy(),
        })?;
    catalog.bump();
    Ok(())
}

fn owner_to(cx: &mut dyn SessionCtx, names: &[String], owner: &Spec) -> PgResult<()> {
    let t = lookup(cx, names)?.ok_or_else(|| not_found(names))?;
    let new = super::grant::spec_oid(cx, owner)?;
    if new == t.def.owner {
        return Ok(());
    }
    if !super::grant::owns(cx, t.def.owner)? {
        return Err(crate::sql::privs::not_owner(
            "type",
            &crate::sql::types::Type(t.oid).name(),
        ));
    }
    super::grant::check_new_owner(cx, new, Some(&t.def.schema))?;
    let mut def = t.def.clone();
    def.owner = new;
    write(cx, t.oid, def, true, "ALTER TYPE")
}
