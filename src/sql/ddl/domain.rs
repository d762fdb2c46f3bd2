//! CREATE DOMAIN and ALTER DOMAIN (DROP DOMAIN, RENAME TO and OWNER TO are DROP / ALTER TYPE's,
//! `ddl::user_type`, as in PostgreSQL). A domain is a user type (`catalog::types`, its
//! [`DomainDef`] beside the enums' labels): versioned, transactional and in the checkpoint
//! images as enums are. How values are converted to a domain and checked: `plan/domain.rs`.
//!
//! Errors are PostgreSQL 15's: a base type that cannot carry a domain 42804, conflicting or
//! repeated NULL / NOT NULL / DEFAULT 42601, keys and foreign keys 42P16 / 42601, a new
//! constraint that existing column data violate 23514 / 23502 naming the column and table.

use pg_query::protobuf::{self, node::Node as N, ConstrType};

use super::function::with_planner;
use super::user_type::{self, TypeDdl};
use crate::catalog::types::{DomainCheck, DomainDef, TypeDef, UserType, MAX_DOMAIN_DEPTH};
use crate::catalog::{Oid, RelKind};
use crate::error::{code, PgError, PgResult};
use crate::sql::context::SessionCtx;
use crate::sql::exec::EvalCx;
use crate::sql::parser::{deparse_expr, names_of};
use crate::sql::plan::Expr;
use crate::sql::types::{Type, Value};
use crate::sync::Arc;

#[derive(Debug, Clone)]
pub enum DomainDdl {
    Create {
        name: Vec<String>,
        base: Box<protobuf::TypeName>,
        collate: Option<String>,
        constraints: Vec<protobuf::Constraint>,
    },
    /// ALTER DOMAIN: PostgreSQL's subtype letter (T default, N drop not null, O set not null,
    /// C add constraint, X drop constraint, V validate constraint).
    Alter {
        name: Vec<String>,
        subtype: char,
        constraint_name: String,
        def: Option<Box<protobuf::Node>>,
        missing_ok: bool,
    },
    RenameConstraint {
        name: Vec<String>,
        old: String,
        new: String,
    },
    SetSchema {
        name: Vec<String>,
        schema: String,
    },
}

/// The domain statements among parse trees (those that are ALTER / DROP TYPE's come back as
/// [`TypeDdl`] with their DOMAIN tag).
pub fn analyze(node: &N) -> Option<PgResult<DomainDdl>> {
    let is_domain = |t: i32| t == protobuf::ObjectType::ObjectDomain as i32;
    // PostgreSQL 15's grammar has no ALTER DOMAIN ... ADD [CONSTRAINT c] NOT NULL (SET NOT
    // NULL is its form); the parser here is a later one's.
    if let N::AlterDomainStmt(a) = node {
        if let Some(N::Constraint(k)) = a.def.as_ref().and_then(|d| d.node.as_ref()) {
            if a.subtype == "C" && constr_type(k) == ConstrType::ConstrNotnull {
                let e = PgError::syntax("syntax error at or near \"not\"");
                return Some(Err(if k.conname.is_empty() {
                    e.at(crate::sql::plan::loc(k.location))
                } else {
                    e
                }));
            }
        }
    }
    Some(Ok(match node {
        N::CreateDomainStmt(c) => DomainDdl::Create {
            name: names_of(&c.domainname),
            base: Box::new(c.type_name.clone().unwrap_or_default()),
            collate: c
                .coll_clause
                .as_ref()
                .map(|cc| names_of(&cc.collname).join(".")),
            constraints: c
                .constraints
                .iter()
                .filter_map(|n| match &n.node {
                    Some(N::Constraint(k)) => Some((**k).clone()),
                    _ => None,
                })
                .collect(),
        },
        N::AlterDomainStmt(a) => DomainDdl::Alter {
            name: names_of(&a.type_name),
            subtype: a.subtype.chars().next().unwrap_or('T'),
            constraint_name: a.name.clone(),
            def: a.def.clone(),
            missing_ok: a.missing_ok,
        },
        N::RenameStmt(r) if r.rename_type == protobuf::ObjectType::ObjectDomconstraint as i32 => {
            DomainDdl::RenameConstraint {
                name: user_type::object_names(r.object.as_deref()),
                old: r.subname.clone(),
                new: r.newname.clone(),
            }
        }
        N::AlterObjectSchemaStmt(a) if is_domain(a.object_type) => DomainDdl::SetSchema {
            name: user_type::object_names(a.object.as_deref()),
            schema: a.newschema.clone(),
        },
        _ => return None,
    }))
}

impl DomainDdl {
    pub fn tag(&self) -> &'static str {
        match self {
            DomainDdl::Create { .. } => "CREATE DOMAIN",
            _ => "ALTER DOMAIN",
        }
    }
}

pub fn execute(d: &DomainDdl, cx: &mut dyn SessionCtx) -> PgResult<()> {
    // PostgreSQL reads a domain's expressions from the catalog's form of the statement:
    // their errors point nowhere.
    run(d, cx).map_err(|mut e| {
        e.position = None;
        e
    })
}

fn run(d: &DomainDdl, cx: &mut dyn SessionCtx) -> PgResult<()> {
    match d {
        DomainDdl::Create {
            name,
            base,
            collate,
            constraints,
        } => create(cx, name, base, collate.as_deref(), constraints),
        DomainDdl::Alter {
            name,
            subtype,
            constraint_name,
            def,
            missing_ok,
        } => alter(
            cx,
            name,
            *subtype,
            constraint_name,
            def.as_deref(),
            *missing_ok,
        ),
        DomainDdl::RenameConstraint { name, old, new } => rename_constraint(cx, name, old, new),
        DomainDdl::SetSchema { name, schema } => set_schema(cx, name, schema),
    }
}

fn syntax(msg: &str) -> PgError {
    PgError::new(code::SYNTAX_ERROR, msg.to_string())
}

fn constr_type(k: &protobuf::Constraint) -> ConstrType {
    ConstrType::try_from(k.contype).unwrap_or(ConstrType::Undefined)
}

/// What CREATE DOMAIN's constraint list says.
#[derive(Default)]
struct Spec {
    not_null: Option<bool>,
    default: Option<String>,
    checks: Vec<(Option<String>, String, bool)>,
}

fn read_constraints(constraints: &[protobuf::Constraint]) -> PgResult<Spec> {
    let mut s = Spec::default();
    for k in constraints {
        if k.deferrable || k.initdeferred {
            return Err(PgError::feature_not_supported(
                "specifying constraint deferrability not supported for domains",
            ));
        }
        match constr_type(k) {
            ConstrType::ConstrNotnull | ConstrType::ConstrNull => {
                let nn = constr_type(k) == ConstrType::ConstrNotnull;
                if s.not_null.is_some_and(|v| v != nn) {
                    return Err(syntax("conflicting NULL/NOT NULL constraints"));
                }
                s.not_null = Some(nn);
            }
            ConstrType::ConstrDefault => {
                if s.default.is_some() {
                    return Err(syntax("multiple default expressions"));
                }
                let e = k
                    .raw_expr
                    .as_ref()
                    .and_then(|e| e.node.as_ref())
                    .ok_or_else(|| syntax("DEFAULT without an expression"))?;
                s.default = Some(deparse_expr(e)?);
            }
            ConstrType::ConstrCheck => {
                if k.is_no_inherit {
                    return Err(PgError::new(
                        code::INVALID_OBJECT_DEFINITION,
                        "check constraints for domains cannot be marked NO INHERIT",
                    ));
                }
                let e = k
                    .raw_expr
                    .as_ref()
                    .and_then(|e| e.node.as_ref())
                    .ok_or_else(|| syntax("CHECK without an expression"))?;
                let name = (!k.conname.is_empty()).then(|| k.conname.clone());
                s.checks.push((name, deparse_expr(e)?, !k.skip_validation));
            }
            ConstrType::ConstrUnique => {
                return Err(syntax("unique constraints not possible for domains"))
            }
            ConstrType::ConstrPrimary => {
                return Err(syntax("primary key constraints not possible for domains"))
            }
            ConstrType::ConstrExclusion => {
                return Err(syntax("exclusion constraints not possible for domains"))
            }
            ConstrType::ConstrForeign => {
                return Err(syntax("foreign key constraints not possible for domains"))
            }
            ConstrType::ConstrIdentity | ConstrType::ConstrGenerated => {
                return Err(syntax("specifying GENERATED not supported for domains"))
            }
            _ => {
                return Err(syntax(
                    "specifying constraint deferrability not supported for domains",
                ))
            }
        }
    }
    Ok(s)
}

/// Pseudo-type names (not types a value can have).
const PSEUDO_NAMES: &[&str] = &[
    "any",
    "anyelement",
    "anyarray",
    "anynonarray",
    "anyenum",
    "anyrange",
    "anymultirange",
    "anycompatible",
    "anycompatiblearray",
    "anycompatiblenonarray",
    "anycompatiblerange",
    "record",
    "void",
    "trigger",
    "event_trigger",
    "internal",
    "cstring",
    "language_handler",
    "fdw_handler",
    "table_am_handler",
    "index_am_handler",
    "tsm_handler",
    "unknown",
];

/// Whether values of `t` cannot be a domain's (pseudo-types).
fn pseudo(t: Type) -> bool {
    matches!(
        t,
        Type::ANY | Type::ANYELEMENT | Type::ANYARRAY | Type::VOID | Type::RECORD | Type::UNKNOWN
    ) || t == Type::RECORD_ARRAY
}

/// Checks a domain's DEFAULT (it must convert to the base type) as CREATE / ALTER DOMAIN do.
fn check_default(
    cx: &mut dyn SessionCtx,
    domain: &str,
    text: &str,
    base: Type,
    typmod: i32,
) -> PgResult<()> {
    with_planner(cx, None, |pl| {
        pl.check_domain_default(domain, text, base, typmod)
    })
}

/// A check's name: the one given, or `<domain>_check`, `<domain>_check1` … as PostgreSQL's
/// ChooseConstraintName picks among the schema's constraint names.
fn check_name(
    cx: &mut dyn SessionCtx,
    schema: &str,
    domain: &str,
    taken: &[String],
) -> PgResult<String> {
    let snap = cx.catalog_snapshot()?;
    let catalog = &cx.instance().catalog;
    let mut used: Vec<String> = taken.to_vec();
    for t in catalog.types.visible(Some(cx.database()), &snap) {
        if t.def.schema == schema {
            if let Some(d) = &t.def.domain {
                used.extend(d.checks.iter().map(|c| c.name.clone()));
            }
        }
    }
    let mut base = format!("{domain}_check");
    while base.len() > 63 {
        base.pop();
    }
    if !used.contains(&base) {
        return Ok(base);
    }
    for i in 1..=10_000u32 {
        let n = format!("{base}{i}");
        if !used.contains(&n) {
            return Ok(n);
        }
    }
    Err(PgError::internal("could not choose a constraint name"))
}

fn create(
    cx: &mut dyn SessionCtx,
    names: &[String],
    tn: &protobuf::TypeName,
    collate: Option<&str>,
    constraints: &[protobuf::Constraint],
) -> PgResult<()> {
    let (schema, name) = user_type::split_name(names)?;
    let schema = super::creation_schema(cx, &schema, -1)?;
    if let [one] = names_of(&tn.names).as_slice() {
        if PSEUDO_NAMES.contains(&one.as_str()) {
            return Err(PgError::new(
                code::DATATYPE_MISMATCH,
                format!("\"{one}\" is not a valid base type for a domain"),
            ));
        }
    }
    let (base, typmod) = with_planner(cx, None, |pl| pl.resolve_type_name(tn))?;
    if collate.is_some() && base.base_type().category() != 'S' {
        return Err(PgError::new(
            code::DATATYPE_MISMATCH,
            format!(
                "collations are not supported by type {}",
                base.base_type().name()
            ),
        ));
    }
    if pseudo(base) {
        return Err(PgError::new(
            code::DATATYPE_MISMATCH,
            format!("\"{}\" is not a valid base type for a domain", base.name()),
        ));
    }
    let spec = read_constraints(constraints)?;
    if user_type::name_taken(cx, &schema, &name)? {
        return Err(user_type::already_exists(&name));
    }
    let (bottom, bottom_mod) = base.base();
    let bottom_mod = if typmod >= 0 { typmod } else { bottom_mod };
    if let Some(text) = &spec.default {
        check_default(cx, &name, text, base, typmod)?;
    }
    let mut checks = Vec::new();
    let mut taken = Vec::new();
    for (given, text, validated) in &spec.checks {
        with_planner(cx, None, |pl| {
            pl.bind_domain_check(text, bottom, bottom_mod)
        })?;
        let cname = match given {
            Some(n) => n.clone(),
            None => check_name(cx, &schema, &name, &taken)?,
        };
        taken.push(cname.clone());
        checks.push(DomainCheck {
            oid: user_type::new_oid(cx)?,
            name: cname,
            expr: text.clone(),
            validated: *validated,
        });
    }
    let oid = user_type::new_oid(cx)?;
    let array_oid = user_type::new_oid(cx)?;
    let def = TypeDef {
        database: cx.database().to_string(),
        schema,
        name,
        owner: cx.role_oid(),
        array_oid,
        labels: Vec::new(),
        domain: Some(DomainDef {
            base: base.0,
            typmod,
            ndims: tn.array_bounds.len() as i32,
            not_null: spec.not_null.unwrap_or(false),
            default: spec.default,
            collation: collate.map(str::to_string),
            checks,
        }),
        composite: None,
        range: None,
        builtin: None,
        base: None,
    };
    user_type::write(cx, oid, def, false, "CREATE DOMAIN")
}

/// The domain `names` resolves to, which the current role must own; 42809 for another type.
fn must_find_domain(cx: &mut dyn SessionCtx, names: &[String]) -> PgResult<Arc<UserType>> {
    let t = user_type::find(cx, names)?;
    if t.def.domain.is_none() {
        return Err(PgError::new(
            code::WRONG_OBJECT_TYPE,
            format!("{} is not a domain", Type(t.oid).name()),
        ));
    }
    Ok(t)
}

fn alter(
    cx: &mut dyn SessionCtx,
    names: &[String],
    subtype: char,
    constraint: &str,
    def: Option<&protobuf::Node>,
    missing_ok: bool,
) -> PgResult<()> {
    let t = must_find_domain(cx, names)?;
    let mut new = t.def.clone();
    let d = new.domain.as_mut().expect("a domain");
    let shown = Type(t.oid).name();
    match subtype {
        'T' => match def.and_then(|n| n.node.as_ref()) {
            Some(e) => {
                let text = deparse_expr(e)?;
                check_default(cx, &t.def.name, &text, Type(d.base), d.typmod)?;
                d.default = Some(text);
            }
            None => d.default = None,
        },
        'N' => d.not_null = false,
        'O' => {
            if d.not_null {
                return Ok(());
            }
            check_existing(cx, &t, None)?;
            d.not_null = true;
        }
        'C' => {
            let Some(N::Constraint(k)) = def.and_then(|n| n.node.as_ref()) else {
                return Err(syntax("ALTER DOMAIN ADD without a constraint"));
            };
            let spec = read_constraints(std::slice::from_ref(k))?;
            if spec.not_null == Some(true) {
                if !d.not_null {
                    check_existing(cx, &t, None)?;
                    d.not_null = true;
                }
            } else if let Some((given, text, validated)) = spec.checks.into_iter().next() {
                let (bottom, bottom_mod) = Type(t.oid).base();
                with_planner(cx, None, |pl| {
                    pl.bind_domain_check(&text, bottom, bottom_mod)
                })?;
                let cname = match given {
                    Some(n) => {
                        if d.checks.iter().any(|c| c.name == n) {
                            return Err(PgError::new(
                                code::DUPLICATE_OBJECT,
                                format!(
                                    "constraint \"{n}\" for domain \"{}\" already exists",
                                    t.def.name
                                ),
                            ));
                        }
                        n
                    }
                    None => check_name(cx, &t.def.schema, &t.def.name, &[])?,
                };
                if validated {
                    check_existing(cx, &t, Some(&text))?;
                }
                d.checks.push(DomainCheck {
                    oid: user_type::new_oid(cx)?,
                    name: cname,
                    expr: text,
                    validated,
                });
            } else {
                return Err(syntax("unsupported constraint for ALTER DOMAIN"));
            }
        }
        'X' => {
            let before = d.checks.len();
            d.checks.retain(|c| c.name != constraint);
            if d.checks.len() == before {
                let msg = format!(
                    "constraint \"{constraint}\" of domain \"{}\" does not exist",
                    t.def.name
                );
                if missing_ok {
                    cx.notice(PgError::notice(
                        code::SUCCESSFUL_COMPLETION,
                        format!("{msg}, skipping"),
                    ));
                    return Ok(());
                }
                return Err(PgError::new(code::UNDEFINED_OBJECT, msg));
            }
        }
        'V' => {
            let Some(c) = d.checks.iter_mut().find(|c| c.name == constraint) else {
                return Err(PgError::new(
                    code::UNDEFINED_OBJECT,
                    format!(
                        "constraint \"{constraint}\" of domain \"{}\" does not exist",
                        t.def.name
                    ),
                ));
            };
            if !c.validated {
                let text = c.expr.clone();
                check_existing(cx, &t, Some(&text))?;
                c.validated = true;
            }
        }
        _ => {
            return Err(PgError::feature_not_supported(format!(
                "this form of ALTER DOMAIN on {shown} is not supported"
            )))
        }
    }
    user_type::write(cx, t.oid, new, true, "ALTER DOMAIN")
}

/// Whether `oid` is domain `target` or a domain over it, or an array of either.
fn uses_domain(oid: Option<Oid>, target: Oid) -> bool {
    let Some(mut o) = oid else { return false };
    if let Some(e) = Type(o).elem() {
        o = e.0;
    }
    for _ in 0..MAX_DOMAIN_DEPTH {
        if o == target {
            return true;
        }
        match crate::catalog::types::domain_info(o).and_then(|t| t.def.domain.clone()) {
            Some(d) => o = d.base,
            None => return false,
        }
    }
    false
}

/// Checks the values stored in columns of domain `t` (or of a domain over it, or an array of
/// them): none NULL (`check` None), or each passing the CHECK `check`.
fn check_existing(cx: &mut dyn SessionCtx, t: &UserType, check: Option<&str>) -> PgResult<()> {
    let snap = cx.catalog_snapshot()?;
    let mut rels = cx.instance().catalog.visible(&snap);
    rels.retain(|r| r.name.database == cx.database() && r.kind == RelKind::Table);
    rels.sort_by_key(|r| r.oid);
    let (bottom, bottom_mod) = Type(t.oid).base();
    let pred: Option<Expr> = match check {
        Some(text) => Some(with_planner(cx, None, |pl| {
            pl.bind_domain_check(text, bottom, bottom_mod)
        })?),
        None => None,
    };
    for r in &rels {
        for (i, c) in r.live_columns() {
            if !uses_domain(c.domain, t.oid) {
                continue;
            }
            let elements = c.domain.is_some_and(|o| Type(o).elem().is_some());
            let mut values: Vec<Value> = Vec::new();
            crate::sql::engine::scan(r, 0, usize::MAX, &snap, |_, row| {
                values.push(row.get(i).cloned().unwrap_or(Value::Null));
                true
            });
            for v in values {
                cx.check_interrupts()?;
                let items: Vec<Value> = match (&v, elements) {
                    (Value::Array(a), true) => a.items.clone(),
                    (Value::Null, true) => Vec::new(),
                    _ => vec![v],
                };
                for item in items {
                    let bad = match &pred {
                        None => item.is_null(),
                        Some(p) => {
                            let mut ecx = EvalCx {
                                params: &[],
                                outer: Vec::new(),
                                session: cx,
                            };
                            matches!(p.eval(&[item], &mut ecx)?, Value::Bool(false))
                        }
                    };
                    if bad {
                        return Err(match pred {
                            None => PgError::new(
                                code::NOT_NULL_VIOLATION,
                                format!(
                                    "column \"{}\" of table \"{}\" contains null values",
                                    c.name, r.name.name
                                ),
                            )
                            .with_table(&r.name.schema, &r.name.name)
                            .with_column(&c.name),
                            Some(_) => PgError::new(
                                code::CHECK_VIOLATION,
                                format!(
                                    "column \"{}\" of table \"{}\" contains values that violate the new constraint",
                                    c.name, r.name.name
                                ),
                            )
                            .with_table(&r.name.schema, &r.name.name)
                            .with_column(&c.name),
                        });
                    }
                }
            }
        }
    }
    Ok(())
}

fn rename_constraint(
    cx: &mut dyn SessionCtx,
    names: &[String],
    old: &str,
    new: &str,
) -> PgResult<()> {
    let t = must_find_domain(cx, names)?;
    let mut def = t.def.clone();
    let d = def.domain.as_mut().expect("a domain");
    if d.checks.iter().any(|c| c.name == new) {
        return Err(PgError::new(
            code::DUPLICATE_OBJECT,
            format!(
                "constraint \"{new}\" for domain \"{}\" already exists",
                t.def.name
            ),
        ));
    }
    let Some(c) = d.checks.iter_mut().find(|c| c.name == old) else {
        return Err(PgError::new(
            code::UNDEFINED_OBJECT,
            format!(
                "constraint \"{old}\" for domain {} does not exist",
                Type(t.oid).name()
            ),
        ));
    };
    c.name = new.to_string();
    user_type::write(cx, t.oid, def, true, "ALTER DOMAIN")
}

fn set_schema(cx: &mut dyn SessionCtx, names: &[String], schema: &str) -> PgResult<()> {
    let t = must_find_domain(cx, names)?;
    user_type::set_schema(cx, &t, schema, "ALTER DOMAIN")
}

/// DROP DOMAIN / ALTER DOMAIN RENAME TO / OWNER TO: TYPE's statements under DOMAIN's tag.
pub fn as_type_ddl(node: &N) -> Option<(TypeDdl, &'static str)> {
    let is_domain = |t: i32| t == protobuf::ObjectType::ObjectDomain as i32;
    let t = match node {
        N::DropStmt(d) if is_domain(d.remove_type) => ("DROP DOMAIN", d.remove_type),
        N::RenameStmt(r) if is_domain(r.rename_type) => ("ALTER DOMAIN", r.rename_type),
        N::AlterOwnerStmt(o) if is_domain(o.object_type) => ("ALTER DOMAIN", o.object_type),
        _ => return None,
    };
    let _ = t.1;
    user_type::analyze_as_type(node).map(|d| (d, t.0))
}
