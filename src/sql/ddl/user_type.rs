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
use crate::catalog::types::{
    EnumLabel, TypeDef, UserType, MAX_DOMAIN_DEPTH, MAX_LABELS, MAX_LABEL_LEN,
};
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
    /// CREATE / ALTER DOMAIN (`ddl::domain`).
    Domain(Box<super::domain::DomainDdl>),
    /// CREATE TYPE ... AS (...), ALTER TYPE's attribute forms and SET SCHEMA
    /// (`ddl::composite`).
    Composite(Box<super::composite::CompositeDdl>),
    /// CREATE TYPE ... AS RANGE (`ddl::range_type`).
    Range(Box<super::range_type::CreateRange>),
    /// CREATE TYPE name; and CREATE TYPE name (INPUT = ..., ...) (`ddl::base_type`).
    Base(Box<protobuf::DefineStmt>),
    /// A TYPE statement written with DOMAIN (DROP DOMAIN, ALTER DOMAIN RENAME / OWNER TO),
    /// under that tag.
    Tagged(Box<TypeDdl>, &'static str),
}

impl TypeDdl {
    pub fn tag(&self) -> &'static str {
        match self {
            TypeDdl::CreateEnum { .. } | TypeDdl::Range(_) | TypeDdl::Base(_) => "CREATE TYPE",
            TypeDdl::Domain(d) => d.tag(),
            TypeDdl::Composite(c) => match **c {
                super::composite::CompositeDdl::Create { .. } => "CREATE TYPE",
                _ => "ALTER TYPE",
            },
            TypeDdl::Tagged(_, tag) => tag,
            TypeDdl::Drop { .. } => "DROP TYPE",
            _ => "ALTER TYPE",
        }
    }
}

/// The qualified name a type statement names (a list, a type name or a bare string).
pub(super) fn object_names(n: Option<&protobuf::Node>) -> Vec<String> {
    match n.and_then(|n| n.node.as_ref()) {
        Some(N::List(l)) => names_of(&l.items),
        Some(N::TypeName(t)) => names_of(&t.names),
        Some(N::String(s)) => vec![s.sval.clone()],
        _ => Vec::new(),
    }
}

/// The type statements among parse trees.
pub fn analyze(node: &N) -> Option<PgResult<TypeDdl>> {
    if let Some(d) = super::domain::analyze(node) {
        return Some(d.map(|d| TypeDdl::Domain(Box::new(d))));
    }
    if let Some((d, tag)) = super::domain::as_type_ddl(node) {
        return Some(Ok(TypeDdl::Tagged(Box::new(d), tag)));
    }
    if let Some(c) = super::composite::analyze(node) {
        return Some(c);
    }
    if let Some(r) = super::range_type::analyze(node) {
        return Some(Ok(r));
    }
    if let N::DefineStmt(d) = node {
        if d.kind == ObjectType::ObjectType as i32 {
            return Some(Ok(TypeDdl::Base(Box::new(d.clone()))));
        }
    }
    analyze_type(node, ObjectType::ObjectType).map(Ok)
}

/// A TYPE statement (DROP, RENAME TO, OWNER TO) on a domain, read as TYPE's.
pub(super) fn analyze_as_type(node: &N) -> Option<TypeDdl> {
    analyze_type(node, ObjectType::ObjectDomain)
}

fn analyze_type(node: &N, kind: ObjectType) -> Option<TypeDdl> {
    let is_type = |t: i32| t == kind as i32;
    analyze_inner(node, &is_type)
}

fn analyze_inner(node: &N, is_type: &dyn Fn(i32) -> bool) -> Option<TypeDdl> {
    Some(match node {
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
    })
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
        TypeDdl::Domain(d) => super::domain::execute(d, cx),
        TypeDdl::Composite(c) => super::composite::execute(c, cx),
        TypeDdl::Range(r) => super::range_type::execute(r, cx),
        TypeDdl::Base(d) => super::base_type::execute(d, cx),
        TypeDdl::Tagged(t, _) => execute(t, cx),
    }
}

/// (schema, name) of a possibly qualified name (a database name in front is ignored).
pub(super) fn split_name(names: &[String]) -> PgResult<(String, String)> {
    split(names)
}

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

pub(super) fn already_exists(name: &str) -> PgError {
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
pub(super) fn name_taken(cx: &mut dyn SessionCtx, schema: &str, name: &str) -> PgResult<bool> {
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
    // The multirange type of a range type has its own name.
    let multirange = |t: &std::sync::Arc<crate::catalog::types::UserType>| {
        t.def.schema == schema
            && t.def
                .range
                .as_ref()
                .is_some_and(|r| r.multirange_name == name)
    };
    if cx
        .instance()
        .catalog
        .types
        .visible(Some(cx.database()), &snap)
        .iter()
        .any(multirange)
    {
        return Ok(true);
    }
    Ok(super::find(cx, schema, name)?.is_some())
}

/// Writes `def` as the next version of type `oid` (`replace`) or as a new type.
pub(super) fn write(
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
        domain: None,
        composite: None,
        range: None,
        builtin: None,
        base: None,
    };
    write(cx, oid, def, false, "CREATE TYPE")
}

fn drop_one(
    cx: &mut dyn SessionCtx,
    names: &[String],
    if_exists: bool,
    cascade: bool,
) -> PgResult<()> {
    drop_inner(cx, names, if_exists, cascade, false)
}

/// DROP TYPE of one type; `quiet` for a domain dropped by a CASCADE that listed it already.
fn drop_inner(
    cx: &mut dyn SessionCtx,
    names: &[String],
    if_exists: bool,
    cascade: bool,
    quiet: bool,
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
    if let Some(ext) = super::extension::type_member_of(cx, t.oid)? {
        return Err(super::extension::refuse_type_drop(&ext, &shown));
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
        if !quiet {
            // What the domains over this type take with them is listed too.
            let mut all: Vec<String> = Vec::new();
            let mut stack: Vec<(String, Option<Vec<String>>, usize)> = deps
                .iter()
                .rev()
                .map(|d| (d.what.clone(), d.domain.clone(), 0))
                .collect();
            while let Some((what, domain, depth)) = stack.pop() {
                all.push(format!("drop cascades to {what}"));
                if let (Some(n), true) = (domain, depth < MAX_DOMAIN_DEPTH) {
                    if let Some(u) = lookup(cx, &n)? {
                        for d in dependents(cx, &u)?.into_iter().rev() {
                            stack.push((d.what, d.domain, depth + 1));
                        }
                    }
                }
            }
            cx.notice(super::cascade_notice(all.len(), &all));
        }
        drop_dependents(cx, &deps)?;
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

/// Drops what [`dependents`] found (DROP TYPE ... CASCADE, DROP EXTENSION ... CASCADE): the
/// domains and range types over the type whole, the columns and composite attributes of it.
pub(super) fn drop_dependents(cx: &mut dyn SessionCtx, deps: &[Dependent]) -> PgResult<()> {
    for d in deps {
        if let Some(names) = &d.domain {
            drop_inner(cx, names, true, true, true)?;
            continue;
        }
        if let Some(names) = &d.composite {
            super::composite::drop_attribute(cx, names, &d.column)?;
            continue;
        }
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
    Ok(())
}

/// A column that uses a type (or its array type).
pub(super) struct Dependent {
    /// `column c of table t`, as PostgreSQL's messages name it.
    what: String,
    /// Whether the column is of the array type.
    array: bool,
    table: (String, String),
    column: String,
    /// A domain over the type (dropped whole with CASCADE).
    pub domain: Option<Vec<String>>,
    /// An attribute of a composite type (dropped with CASCADE): the type's name.
    composite: Option<Vec<String>>,
    /// The OID of what holds the column (its table, the composite type's relation), the order
    /// PostgreSQL meets them in pg_depend.
    sort: Oid,
}

impl Dependent {
    /// The column as a dependency listing names it: `column c of table t`.
    pub fn what(&self) -> &str {
        &self.what
    }

    /// The column as ALTER TYPE's refusal names it: `column "t.c"`.
    pub fn used_as(&self) -> String {
        match &self.composite {
            Some(n) => format!(
                "column \"{}.{}\"",
                n.last().cloned().unwrap_or_default(),
                self.column
            ),
            None => format!("column \"{}.{}\"", self.table.1, self.column),
        }
    }
}

/// Bound: one entry per column of the database's tables (and attribute of its composite
/// types) that uses the type.
pub(super) fn dependents(cx: &mut dyn SessionCtx, t: &UserType) -> PgResult<Vec<Dependent>> {
    let snap = cx.catalog_snapshot()?;
    let catalog = &cx.instance().catalog;
    let mut out = Vec::new();
    let mut rels = catalog.visible(&snap);
    rels.retain(|r| r.name.database == cx.database());
    rels.sort_by_key(|r| r.oid);
    // PostgreSQL reaches the columns of the array type (which depends on the enum) first.
    let mut segments = [0, 0];
    for (k, array) in [true, false].into_iter().enumerate() {
        let want = if array { t.def.array_oid } else { t.oid };
        let from = out.len();
        dependents_of(&rels, want, array, &mut out);
        // A domain's columns come newest first (PostgreSQL meets them so in pg_depend).
        if t.def.domain.is_some() {
            out[from..].reverse();
        }
        segments[k] = out.len();
    }
    let mut attrs: Vec<Dependent> = Vec::new();
    for d in catalog.types.visible(Some(cx.database()), &snap) {
        // A range type over this type goes whole with CASCADE, as a domain over it does.
        if let Some(r) = d
            .def
            .range
            .as_ref()
            .filter(|r| r.subtype == t.oid || r.subtype == t.def.array_oid)
        {
            out.push(Dependent {
                what: format!("type {}", crate::sql::types::Type(d.oid).name()),
                array: r.subtype == t.def.array_oid,
                table: (String::new(), String::new()),
                column: String::new(),
                domain: Some(vec![d.def.schema.clone(), d.def.name.clone()]),
                composite: None,
                sort: d.oid,
            });
        }
        if let Some(dd) = d
            .def
            .domain
            .as_ref()
            .filter(|dd| dd.base == t.oid || dd.base == t.def.array_oid)
        {
            out.push(Dependent {
                what: format!("type {}", crate::sql::types::Type(d.oid).name()),
                array: dd.base == t.def.array_oid,
                table: (String::new(), String::new()),
                column: String::new(),
                domain: Some(vec![d.def.schema.clone(), d.def.name.clone()]),
                composite: None,
                sort: d.oid,
            });
        }
        if let Some(c) = &d.def.composite {
            for (_, a) in c.live() {
                if a.type_oid == t.oid || a.type_oid == t.def.array_oid {
                    attrs.push(Dependent {
                        what: format!(
                            "column {} of composite type {}",
                            a.name,
                            crate::sql::types::Type(d.oid).name()
                        ),
                        array: a.type_oid == t.def.array_oid,
                        table: (String::new(), String::new()),
                        column: a.name.clone(),
                        domain: None,
                        composite: Some(vec![d.def.schema.clone(), d.def.name.clone()]),
                        sort: c.relid,
                    });
                }
            }
        }
    }
    // A composite type's attribute goes among the table columns of its kind, by OID.
    for a in attrs {
        let array = a.array;
        let (lo, hi) = if array {
            (0, segments[0])
        } else {
            (segments[0], segments[1])
        };
        let at = lo + out[lo..hi].iter().take_while(|d| d.sort < a.sort).count();
        out.insert(at, a);
        segments[1] += 1;
        if array {
            segments[0] += 1;
        }
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
            let declared = c.domain.unwrap_or(c.type_oid);
            if declared == want {
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
                    domain: None,
                    composite: None,
                    sort: r.oid,
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
    let oid = new_oid(cx)?;
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
    replace_keyed(cx, t.oid, def, "ALTER TYPE")
}

/// Writes `def`, type `oid` under another name or schema: the old version ends, a new one
/// starts under the new key.
pub(super) fn replace_keyed(
    cx: &mut dyn SessionCtx,
    oid: Oid,
    def: TypeDef,
    tag: &str,
) -> PgResult<()> {
    let new = def.name.clone();
    let (cell, cid) = cx.writer(tag)?;
    let snap = cx.catalog_snapshot()?;
    let catalog = &cx.instance().catalog;
    catalog
        .types
        .end(oid, &snap, &cell, cid)
        .map_err(|_| busy())?;
    catalog
        .types
        .create(oid, def, false, &snap, &cell, cid)
        .map_err(|e| match e {
            CatalogError::Exists(_) => already_exists(&new),
            _ => busy(),
        })?;
    catalog.bump();
    Ok(())
}

/// ALTER TYPE / DOMAIN ... SET SCHEMA of type `t`.
pub(super) fn set_schema(
    cx: &mut dyn SessionCtx,
    t: &UserType,
    schema: &str,
    tag: &str,
) -> PgResult<()> {
    if t.def.schema == schema {
        return Ok(());
    }
    let schema = super::creation_schema(cx, schema, -1)?;
    if name_taken(cx, &schema, &t.def.name)? {
        return Err(PgError::new(
            code::DUPLICATE_OBJECT,
            format!(
                "type \"{}\" already exists in schema \"{schema}\"",
                t.def.name
            ),
        ));
    }
    let mut def = t.def.clone();
    def.schema = schema;
    replace_keyed(cx, t.oid, def, tag)
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

/// A new OID for a user type, its array type, an enum label or a composite's relation.
pub(super) fn new_oid(cx: &mut dyn SessionCtx) -> PgResult<Oid> {
    cx.instance()
        .catalog
        .new_oid()
        .map_err(|_| PgError::internal("OIDs exhausted"))
}
