//! CREATE [OR REPLACE] FUNCTION / PROCEDURE and DROP FUNCTION / PROCEDURE / ROUTINE, kept in
//! the catalog's versioned function map (`catalog::functions`) as PostgreSQL keeps pg_proc.
//!
//! A definition is checked as PostgreSQL's CREATE FUNCTION checks it: argument modes and
//! defaults, the return type against OUT parameters, the language. With
//! `check_function_bodies` on (the default; pg_dump turns it off), a SQL function's body is
//! planned as its calls will plan it (`plan::user_func`), so that a missing table, a wrong
//! column or a result of the wrong type fails at CREATE. A PL/pgSQL body is parsed with
//! the PL/pgSQL grammar (pg_query's) and kept; calling it is not supported yet.

use pg_query::protobuf::{self, node::Node as N};

use super::{creation_schema, notice};
use crate::catalog::functions::{FuncArg, FunctionDef, MAX_ARGS};
use crate::catalog::{CatalogError, Oid};
use crate::error::{code, PgError, PgResult};
use crate::sql::context::SessionCtx;
use crate::sql::parser::{names_of, sval};
use crate::sql::plan::modify::TableCx;
use crate::sql::plan::Planner;
use crate::sql::types::Type;

/// pg_type.oid of the pseudo-type trigger.
const TRIGGER: u32 = 2279;

#[derive(Debug, Clone)]
pub enum FunctionDdl {
    Create(Box<protobuf::CreateFunctionStmt>),
    Drop {
        /// FUNCTION, PROCEDURE or ROUTINE, for messages.
        what: &'static str,
        items: Vec<protobuf::ObjectWithArgs>,
        if_exists: bool,
        /// CASCADE: the triggers that call a dropped function go too.
        cascade: bool,
    },
    /// CREATE AGGREGATE (`ddl/aggregate.rs`).
    CreateAggregate(Box<protobuf::DefineStmt>),
    /// ALTER FUNCTION / PROCEDURE / ROUTINE ... OWNER TO (pg_dump writes one per function).
    Owner {
        what: &'static str,
        item: Box<protobuf::ObjectWithArgs>,
        owner: super::role::Spec,
    },
}

impl FunctionDdl {
    pub fn tag(&self) -> &'static str {
        match self {
            FunctionDdl::Create(c) if c.is_procedure => "CREATE PROCEDURE",
            FunctionDdl::Create(_) => "CREATE FUNCTION",
            FunctionDdl::CreateAggregate(_) => "CREATE AGGREGATE",
            FunctionDdl::Drop {
                what: "AGGREGATE", ..
            } => "DROP AGGREGATE",
            FunctionDdl::Drop {
                what: "PROCEDURE", ..
            } => "DROP PROCEDURE",
            FunctionDdl::Drop {
                what: "ROUTINE", ..
            } => "DROP ROUTINE",
            FunctionDdl::Drop { .. } => "DROP FUNCTION",
            FunctionDdl::Owner {
                what: "PROCEDURE", ..
            } => "ALTER PROCEDURE",
            FunctionDdl::Owner {
                what: "ROUTINE", ..
            } => "ALTER ROUTINE",
            FunctionDdl::Owner { .. } => "ALTER FUNCTION",
        }
    }
}

/// The function statements among parse trees.
pub fn analyze(node: &N) -> Option<PgResult<FunctionDdl>> {
    use protobuf::ObjectType as O;
    let routine_word = |t: i32| match t {
        x if x == O::ObjectFunction as i32 => Some("FUNCTION"),
        x if x == O::ObjectProcedure as i32 => Some("PROCEDURE"),
        x if x == O::ObjectRoutine as i32 => Some("ROUTINE"),
        x if x == O::ObjectAggregate as i32 => Some("AGGREGATE"),
        _ => None,
    };
    match node {
        N::CreateFunctionStmt(c) => Some(Ok(FunctionDdl::Create(c.clone()))),
        N::DefineStmt(d) if d.kind == O::ObjectAggregate as i32 => {
            Some(Ok(FunctionDdl::CreateAggregate(Box::new(d.clone()))))
        }
        N::AlterOwnerStmt(o) => {
            let what = routine_word(o.object_type)?;
            let Some(N::ObjectWithArgs(item)) = o.object.as_ref()?.node.as_ref() else {
                return None;
            };
            Some(Ok(FunctionDdl::Owner {
                what,
                item: Box::new(item.clone()),
                owner: o
                    .newowner
                    .as_ref()
                    .map_or(super::role::Spec::CurrentUser, super::role::Spec::of),
            }))
        }
        N::DropStmt(d) => {
            let what = routine_word(d.remove_type)?;
            let items = d
                .objects
                .iter()
                .filter_map(|o| match o.node.as_ref()? {
                    N::ObjectWithArgs(owa) => Some(owa.clone()),
                    _ => None,
                })
                .collect();
            Some(Ok(FunctionDdl::Drop {
                what,
                items,
                if_exists: d.missing_ok,
                cascade: d.behavior == protobuf::DropBehavior::DropCascade as i32,
            }))
        }
        _ => None,
    }
}

pub fn execute(d: &FunctionDdl, cx: &mut dyn SessionCtx) -> PgResult<()> {
    match d {
        FunctionDdl::Create(c) => create(c, cx),
        FunctionDdl::CreateAggregate(d) => super::aggregate::create(d, cx),
        FunctionDdl::Drop {
            what,
            items,
            if_exists,
            cascade,
        } => {
            for item in items {
                drop_one(cx, what, item, *if_exists, *cascade)?;
            }
            Ok(())
        }
        FunctionDdl::Owner { what, item, owner } => change_owner(cx, what, item, owner),
    }
}

/// ALTER FUNCTION ... OWNER TO: a new version of the function with the new owner (its ACL's
/// grants by the old owner become the new owner's, as PostgreSQL's aclnewowner does).
fn change_owner(
    cx: &mut dyn SessionCtx,
    what: &'static str,
    item: &protobuf::ObjectWithArgs,
    owner: &super::role::Spec,
) -> PgResult<()> {
    let Some(f) = find_routine(cx, what, item, false)? else {
        return Ok(());
    };
    let new = super::grant::spec_oid(cx, owner)?;
    if new == f.def.owner {
        return Ok(());
    }
    let (_, name) = split_name(&item.objname)?;
    if !super::grant::owns(cx, f.def.owner)? {
        return Err(crate::sql::privs::not_owner(kind_name(f.def.kind), &name));
    }
    super::grant::check_new_owner(cx, new, None)?;
    let mut def = f.def.clone();
    def.acl = def
        .acl
        .as_ref()
        .map(|a| crate::catalog::acl::new_owner(a, def.owner, new));
    def.owner = new;
    let (cell, cid) = cx.writer(&format!("ALTER {what}"))?;
    let snap = cx.catalog_snapshot()?;
    let catalog = &cx.instance().catalog;
    catalog
        .functions
        .create(f.oid, def, true, &snap, &cell, cid)
        .map_err(|_| PgError::new(code::OBJECT_IN_USE, "tuple concurrently updated"))?;
    catalog.bump();
    Ok(())
}

pub(super) fn split_name(nodes: &[protobuf::Node]) -> PgResult<(String, String)> {
    let names = names_of(nodes);
    match names.as_slice() {
        [n] => Ok((String::new(), n.clone())),
        [s, n] => Ok((s.clone(), n.clone())),
        [_, s, n] => Ok((s.clone(), n.clone())),
        _ => Err(PgError::syntax(format!(
            "improper qualified name (too many dotted names): {}",
            names.join(".")
        ))),
    }
}

/// A planner that resolves names as the session does (types, and a SQL body's tables).
pub(super) fn with_planner<T>(
    cx: &mut dyn SessionCtx,
    search_path: Option<&str>,
    f: impl FnOnce(&mut Planner) -> PgResult<T>,
) -> PgResult<T> {
    let snap = cx.catalog_snapshot()?;
    let fmt = cx.fmt().clone();
    let path = search_path
        .map(str::to_string)
        .unwrap_or_else(|| cx.search_path().join(","));
    let used = std::cell::Cell::new(false);
    let locks = Default::default();
    let perms = crate::sql::privs::Collector::default();
    let tables = TableCx {
        catalog: &cx.instance().catalog,
        snap,
        database: cx.database(),
        search_path: std::borrow::Cow::Borrowed(&path),
        used: &used,
        locks: &locks,
        superuser: true,
        role: crate::catalog::roles::BOOTSTRAP_SUPERUSER,
        perms: &perms,
        check_as: None,
        methods: Default::default(),
        transitions: &[],
    };
    let mut params = Vec::new();
    let mut planner = Planner::new(&mut params, &fmt);
    planner.tables = Some(tables);
    f(&mut planner)
}

/// "function" or "procedure", for a pg_proc.prokind.
fn kind_name(kind: char) -> &'static str {
    if kind == 'p' {
        "procedure"
    } else {
        "function"
    }
}

pub(super) fn bad_definition(msg: impl Into<String>) -> PgError {
    PgError::new(code::INVALID_FUNCTION_DEFINITION, msg)
}

/// A parameter's mode letter (pg_proc.proargmodes).
fn mode_of(m: i32) -> char {
    use protobuf::FunctionParameterMode as M;
    match m {
        x if x == M::FuncParamOut as i32 => 'o',
        x if x == M::FuncParamInout as i32 => 'b',
        x if x == M::FuncParamVariadic as i32 => 'v',
        x if x == M::FuncParamTable as i32 => 't',
        _ => 'i',
    }
}

/// What the options of CREATE FUNCTION say.
struct Options {
    body: Option<String>,
    language: Option<String>,
    volatility: char,
    strict: bool,
    security_definer: bool,
    leakproof: bool,
    parallel: char,
    cost: Option<f32>,
    rows: Option<f32>,
    config: Vec<String>,
}

fn options(opts: &[protobuf::Node], procedure: bool) -> PgResult<Options> {
    let mut o = Options {
        body: None,
        language: None,
        volatility: 'v',
        strict: false,
        security_definer: false,
        leakproof: false,
        parallel: 'u',
        cost: None,
        rows: None,
        config: Vec::new(),
    };
    let conflicting = || PgError::new(code::SYNTAX_ERROR, "conflicting or redundant options");
    let mut seen: Vec<String> = Vec::new();
    for n in opts {
        let Some(N::DefElem(d)) = n.node.as_ref() else {
            continue;
        };
        if d.defname != "set" {
            if seen.contains(&d.defname) {
                return Err(conflicting().at((d.location >= 0).then(|| d.location as u32 + 1)));
            }
            seen.push(d.defname.clone());
        }
        let arg = d.arg.as_deref();
        let text = match arg.and_then(|a| a.node.as_ref()) {
            Some(N::Boolean(b)) => Some(if b.boolval { "on" } else { "off" }.to_string()),
            _ => arg.and_then(sval),
        };
        let flag = || matches!(text.as_deref(), Some("on" | "true" | "t"));
        // What only a function has (PostgreSQL's compute_common_attribute).
        let function_only = matches!(
            d.defname.as_str(),
            "volatility"
                | "strict"
                | "leakproof"
                | "cost"
                | "rows"
                | "support"
                | "parallel"
                | "window"
        );
        if procedure && function_only {
            return Err(bad_definition("invalid attribute in procedure definition")
                .at((d.location >= 0).then(|| d.location as u32 + 1)));
        }
        match d.defname.as_str() {
            "as" => {
                let parts: Vec<String> = match arg.and_then(|a| a.node.as_ref()) {
                    Some(N::List(l)) => l.items.iter().filter_map(sval).collect(),
                    _ => text.into_iter().collect(),
                };
                if parts.len() != 1 {
                    return Err(bad_definition(
                        "only one AS item needed for language \"sql\"",
                    ));
                }
                o.body = parts.into_iter().next();
            }
            "language" => o.language = text,
            "volatility" => {
                o.volatility = match text.as_deref() {
                    Some("immutable") => 'i',
                    Some("stable") => 's',
                    _ => 'v',
                }
            }
            "strict" => o.strict = flag(),
            "security" => o.security_definer = flag(),
            "leakproof" => o.leakproof = flag(),
            "parallel" => {
                o.parallel = match text.as_deref() {
                    Some("safe") => 's',
                    Some("restricted") => 'r',
                    Some("unsafe") => 'u',
                    Some(other) => {
                        return Err(PgError::new(
                            code::INVALID_PARAMETER_VALUE,
                            "parameter \"parallel\" must be SAFE, RESTRICTED, or UNSAFE",
                        )
                        .with_detail(format!("Got \"{other}\".")))
                    }
                    None => 'u',
                }
            }
            "cost" => o.cost = text.and_then(|t| t.parse().ok()),
            "rows" => o.rows = text.and_then(|t| t.parse().ok()),
            "set" => {
                if let Some(N::VariableSetStmt(v)) = arg.and_then(|a| a.node.as_ref()) {
                    let vals: Vec<String> = v.args.iter().filter_map(sval).collect();
                    if !vals.is_empty() {
                        o.config.retain(|c| !c.starts_with(&format!("{}=", v.name)));
                        o.config.push(format!("{}={}", v.name, vals.join(", ")));
                    }
                }
            }
            "window" => {
                return Err(PgError::feature_not_supported(
                    "window functions written by users are not supported yet",
                ))
            }
            "support" => {
                return Err(PgError::feature_not_supported(
                    "SUPPORT functions are not supported",
                ))
            }
            _ => {}
        }
    }
    Ok(o)
}

/// A function's argument or return type (`what`) that is a shell type (CREATE TYPE name;):
/// a NOTICE, as PostgreSQL gives one for the I/O functions written before the full CREATE
/// TYPE; a SQL function cannot take or return one.
fn shell_type_notice(
    cx: &mut dyn SessionCtx,
    ty: Type,
    what: &str,
    language: &str,
) -> PgResult<()> {
    if !crate::catalog::types::type_info(ty.0).is_some_and(|t| t.oid == ty.0 && t.def.is_shell()) {
        return Ok(());
    }
    if language == "sql" {
        let verb = if what == "return" { "return" } else { "accept" };
        return Err(bad_definition(format!(
            "SQL function cannot {verb} shell type {}",
            ty.name()
        )));
    }
    cx.notice(notice(
        format!("{what} type {} is only a shell", ty.name()),
        code::WRONG_OBJECT_TYPE,
    ));
    Ok(())
}

/// The body of a BEGIN ATOMIC block or a RETURN clause, as the statements it runs.
fn sql_body_text(body: &N) -> PgResult<String> {
    let deparse = |n: &N| {
        n.deparse(Default::default())
            .map_err(|e| PgError::internal(format!("cannot deparse a function body: {e}")))
    };
    match body {
        N::ReturnStmt(r) => {
            let e = r
                .returnval
                .as_ref()
                .and_then(|v| v.node.as_ref())
                .ok_or_else(|| PgError::syntax("RETURN without a value"))?;
            Ok(format!("SELECT {}", crate::sql::parser::deparse_expr(e)?))
        }
        N::List(l) => {
            let mut out = Vec::new();
            for item in &l.items {
                match item.node.as_ref() {
                    Some(N::List(inner)) => {
                        for s in &inner.items {
                            if let Some(n) = s.node.as_ref() {
                                out.push(match n {
                                    N::ReturnStmt(_) => sql_body_text(n)?,
                                    _ => deparse(n)?,
                                });
                            }
                        }
                    }
                    Some(N::ReturnStmt(_)) => {
                        out.push(sql_body_text(item.node.as_ref().expect("node"))?)
                    }
                    Some(n) => out.push(deparse(n)?),
                    None => {}
                }
            }
            Ok(out.join("; "))
        }
        other => deparse(other),
    }
}

fn create(c: &protobuf::CreateFunctionStmt, cx: &mut dyn SessionCtx) -> PgResult<()> {
    let (schema, name) = split_name(&c.funcname)?;
    let schema = creation_schema(cx, &schema, -1)?;
    let kind_word = if c.is_procedure {
        "procedure"
    } else {
        "function"
    };
    let o = options(&c.options, c.is_procedure)?;
    let (body, sql_body) = match (&o.body, &c.sql_body) {
        (Some(_), Some(_)) => return Err(bad_definition("duplicate function body specified")),
        (Some(b), None) => (b.clone(), false),
        (None, Some(b)) => (
            sql_body_text(
                b.node
                    .as_ref()
                    .ok_or_else(|| PgError::syntax("empty function body"))?,
            )?,
            true,
        ),
        (None, None) => return Err(bad_definition("no function body specified")),
    };
    let language = match (&o.language, sql_body) {
        (Some(l), _) => l.to_lowercase(),
        (None, true) => "sql".to_string(),
        (None, false) => {
            return Err(PgError::new(
                code::INVALID_FUNCTION_DEFINITION,
                "no language specified",
            ))
        }
    };
    match language.as_str() {
        "sql" | "plpgsql" => {}
        "internal" => {
            // An untrusted language, as in PostgreSQL; its bodies are the symbols of
            // `sql::func::extension`.
            if !super::role::is_superuser(cx)? {
                return Err(PgError::new(
                    code::INSUFFICIENT_PRIVILEGE,
                    "permission denied for language internal",
                ));
            }
            // An extension's function, or a built-in one (a type's I/O function, which a
            // base type of CREATE TYPE names).
            if crate::sql::func::extension::internal(body.trim()).is_none()
                && crate::sql::catalog::procs::named(body.trim())
                    .next()
                    .is_none()
                && crate::sql::catalog::proc_oid(body.trim()).is_none()
            {
                return Err(PgError::new(
                    code::UNDEFINED_FUNCTION,
                    format!("there is no built-in function named \"{}\"", body.trim()),
                ));
            }
        }
        "c" => {
            return Err(PgError::feature_not_supported(format!(
                "functions in language \"{language}\" are not supported"
            )))
        }
        other => {
            return Err(PgError::new(
                code::UNDEFINED_OBJECT,
                format!("language \"{other}\" does not exist"),
            ))
        }
    }
    // Parameters.
    if c.parameters.len() > MAX_ARGS {
        return Err(PgError::new(
            code::TOO_MANY_ARGUMENTS,
            format!("functions cannot have more than {MAX_ARGS} arguments"),
        ));
    }
    let mut args = Vec::new();
    let mut defaults_started = false;
    let check = cx
        .get_setting("check_function_bodies", true)?
        .is_none_or(|v| v == "on");
    for p in &c.parameters {
        let Some(N::FunctionParameter(fp)) = p.node.as_ref() else {
            continue;
        };
        let mode = mode_of(fp.mode);
        let tn = fp
            .arg_type
            .as_ref()
            .ok_or_else(|| PgError::syntax("parameter without a type"))?;
        if tn.pct_type {
            return Err(PgError::feature_not_supported(
                "%TYPE in a parameter's type is not supported yet",
            ));
        }
        let (ty, _) = with_planner(cx, None, |pl| pl.resolve_type_name(tn))?;
        shell_type_notice(cx, ty, "argument", &language)?;
        if ty == Type::ANY || ty.0 == TRIGGER {
            return Err(PgError::feature_not_supported(format!(
                "parameters of type {} are not supported yet",
                ty.name()
            )));
        }
        if mode == 'v' {
            // "any" takes arguments of any types, which calls do not bind yet.
            if ty == Type::ANY {
                return Err(PgError::feature_not_supported(
                    "VARIADIC \"any\" parameters are not supported yet",
                ));
            }
            if !ty.is_array() && !matches!(ty, Type::ANYARRAY | Type::ANYCOMPATIBLEARRAY) {
                return Err(bad_definition("VARIADIC parameter must be an array"));
            }
        } else if matches!(mode, 'i' | 'b') && args.iter().any(|a: &FuncArg| a.mode == 'v') {
            return Err(bad_definition(
                "VARIADIC parameter must be the last input parameter",
            ));
        } else if c.is_procedure && mode == 'o' && args.iter().any(|a: &FuncArg| a.mode == 'v') {
            // A CALL passes a procedure's OUT arguments: after the VARIADIC one they could
            // not be told from it.
            return Err(bad_definition(
                "VARIADIC parameter must be the last parameter",
            ));
        }
        if ty == Type::VOID && mode != 'o' {
            return Err(bad_definition(
                "SQL functions cannot have arguments of type void",
            ));
        }
        let clash = |a: &FuncArg| {
            a.name == fp.name
                && !(matches!(mode, 'i' | 'v') && matches!(a.mode, 'o' | 't')
                    || matches!(mode, 'o' | 't') && matches!(a.mode, 'i' | 'v'))
        };
        if !fp.name.is_empty() && args.iter().any(clash) {
            return Err(bad_definition(format!(
                "parameter name \"{}\" used more than once",
                fp.name
            )));
        }
        let default = match fp.defexpr.as_ref().and_then(|d| d.node.as_ref()) {
            Some(d) => {
                if mode == 'o' || mode == 't' {
                    return Err(bad_definition(
                        "only input parameters can have default values",
                    ));
                }
                // The default must convert to the parameter's type, as at a call.
                with_planner(cx, None, |pl| pl.bind_default_for(d, ty))?;
                defaults_started = true;
                Some(default_text(d, ty)?)
            }
            None => {
                if defaults_started && matches!(mode, 'i' | 'b') {
                    return Err(bad_definition(
                        "input parameters after one with a default value must also have defaults",
                    ));
                }
                // A CALL passes a procedure's OUT arguments, which defaults would misplace.
                if defaults_started && c.is_procedure && mode == 'o' {
                    return Err(bad_definition(
                        "procedure OUT parameters cannot appear after one with a default value",
                    ));
                }
                None
            }
        };
        args.push(FuncArg {
            name: fp.name.clone(),
            type_oid: ty.0,
            mode,
            default,
        });
    }
    // The result.
    let outs: Vec<&FuncArg> = args.iter().filter(|a| a.is_output()).collect();
    let (returns, returns_set) = match &c.return_type {
        Some(tn) => {
            let tname = names_of(&tn.names).last().cloned().unwrap_or_default();
            let t = if tname == "trigger" && tn.names.len() <= 2 {
                Type(TRIGGER)
            } else if tname == "record" {
                Type::RECORD
            } else {
                let t = with_planner(cx, None, |pl| pl.resolve_type_name(tn))?.0;
                shell_type_notice(cx, t, "return", &language)?;
                t
            };
            (t, tn.setof)
        }
        None if c.is_procedure => match outs.as_slice() {
            [] => (Type::VOID, false),
            [one] => (Type(one.type_oid), false),
            _ => (Type::RECORD, false),
        },
        None => match outs.as_slice() {
            [] => return Err(bad_definition("function result type must be specified")),
            [one] => (Type(one.type_oid), false),
            _ => (Type::RECORD, false),
        },
    };
    if c.return_type.is_some() && !c.is_procedure {
        if let [one] = outs.as_slice() {
            if one.mode != 't' && returns != Type(one.type_oid) {
                return Err(bad_definition(format!(
                    "function result type must be {} because of OUT parameters",
                    Type(one.type_oid).name()
                )));
            }
        } else if outs.len() > 1 && returns != Type::RECORD {
            return Err(bad_definition(
                "function result type must be record because of OUT parameters",
            ));
        }
    }
    // A polymorphic result (or OUT parameter) needs an input to take its type from.
    let inputs: Vec<Type> = args
        .iter()
        .filter(|a| a.is_input())
        .map(|a| Type(a.type_oid))
        .collect();
    let results = std::iter::once(returns).chain(outs.iter().map(|a| Type(a.type_oid)));
    for r in results {
        if let Some(detail) = crate::sql::plan::polymorphic::unresolvable_result(r, &inputs) {
            return Err(bad_definition("cannot determine result data type").with_detail(detail));
        }
    }
    let polymorphic = inputs.iter().any(|t| t.is_polymorphic());
    if returns.0 == TRIGGER && language == "sql" {
        return Err(bad_definition("SQL functions cannot return type trigger"));
    }
    let def = FunctionDef {
        database: cx.database().to_string(),
        schema: schema.clone(),
        name: name.clone(),
        kind: if c.is_procedure { 'p' } else { 'f' },
        args,
        returns: returns.0,
        returns_set,
        language: language.clone(),
        body,
        sql_body,
        volatility: o.volatility,
        strict: o.strict,
        security_definer: o.security_definer,
        leakproof: o.leakproof,
        parallel: o.parallel,
        // PostgreSQL's default cost of a function not written in C.
        cost: o.cost.unwrap_or(100.0),
        rows: o.rows.unwrap_or(if returns_set { 1000.0 } else { 0.0 }),
        config: o.config,
        owner: cx.role_oid(),
        acl: None,
    };
    // An existing function of the same signature.
    let snap = cx.catalog_snapshot()?;
    let catalog = &cx.instance().catalog;
    let inputs = def.input_types();
    let old = catalog
        .functions
        .named(cx.database(), &schema, &name, &snap)
        .into_iter()
        .find(|f| f.def.input_types() == inputs);
    let oid: Oid = match &old {
        Some(f) => {
            if !c.replace {
                return Err(PgError::new(
                    code::DUPLICATE_FUNCTION,
                    format!("{kind_word} \"{name}\" already exists with same argument types"),
                ));
            }
            if !super::grant::owns(cx, f.def.owner)? {
                return Err(crate::sql::privs::not_owner(kind_name(f.def.kind), &name));
            }
            if f.def.kind != def.kind {
                return Err(
                    PgError::new(code::WRONG_OBJECT_TYPE, "cannot change routine kind")
                        .with_detail(format!("\"{name}\" is a {}.", kind_name(f.def.kind))),
                );
            }
            // The hint of the two refusals below: the existing signature, comma-separated.
            let drop_first = || {
                let types: Vec<String> = f
                    .def
                    .input_types()
                    .into_iter()
                    .map(|t| Type(t).name())
                    .collect();
                format!(
                    "Use DROP {} {name}({}) first.",
                    kind_word.to_uppercase(),
                    types.join(",")
                )
            };
            let defaults = |d: &FunctionDef| d.args.iter().filter(|a| a.default.is_some()).count();
            if defaults(&def) < defaults(&f.def) {
                return Err(bad_definition(
                    "cannot remove parameter defaults from existing function",
                )
                .with_hint(drop_first()));
            }
            // An input parameter keeps its name (named calls may use it).
            let old_inputs = f.def.args.iter().filter(|a| a.is_input());
            for (o, n) in old_inputs.zip(def.args.iter().filter(|a| a.is_input())) {
                if !o.name.is_empty() && o.name != n.name {
                    return Err(bad_definition(format!(
                        "cannot change name of input parameter \"{}\"",
                        o.name
                    ))
                    .with_hint(drop_first()));
                }
            }
            if f.def.returns != def.returns || f.def.returns_set != def.returns_set {
                return Err(
                    bad_definition("cannot change return type of existing function").with_hint(
                        format!(
                            "Use DROP {} {name}({}) first.",
                            kind_word.to_uppercase(),
                            crate::sql::plan::type_list(&f.def.args)
                        ),
                    ),
                );
            }
            f.oid
        }
        None => catalog.new_oid().map_err(|_| {
            PgError::new(code::PROGRAM_LIMIT_EXCEEDED, "object identifiers exhausted")
        })?,
    };
    if check && language == "sql" && polymorphic {
        // Its types are known at a call only: the body is parsed, as PostgreSQL does.
        crate::sql::parser::parse_tree(&def.body)?;
    } else if check && language == "sql" {
        let path = def
            .config
            .iter()
            .find_map(|c| c.strip_prefix("search_path="))
            .map(str::to_string);
        with_planner(cx, path.as_deref(), |pl| {
            pl.plan_sql_function(oid, &def).map(|_| ())
        })?;
    }
    if language == "plpgsql" && check {
        check_plpgsql(c, &def)?;
    }
    let (cell, cid) = cx.writer(if c.is_procedure {
        "CREATE PROCEDURE"
    } else {
        "CREATE FUNCTION"
    })?;
    let snap = cx.catalog_snapshot()?;
    let catalog = &cx.instance().catalog;
    catalog
        .functions
        .create(oid, def, old.is_some(), &snap, &cell, cid)
        .map_err(|e| match e {
            CatalogError::Exists(_) => PgError::new(
                code::DUPLICATE_FUNCTION,
                format!("{kind_word} \"{name}\" already exists with same argument types"),
            ),
            _ => PgError::new(code::OBJECT_IN_USE, "tuple concurrently updated"),
        })?;
    catalog.bump();
    Ok(())
}

/// A default as PostgreSQL prints it back: a quoted literal with the parameter's type made
/// explicit (`'x'::text`), anything else deparsed.
fn default_text(d: &N, ty: Type) -> PgResult<String> {
    let text = crate::sql::parser::deparse_expr(d)?;
    if let N::AConst(c) = d {
        if matches!(c.val, Some(protobuf::a_const::Val::Sval(_))) {
            return Ok(format!(
                "{text}::{}",
                crate::sql::types::cast::format_type_with_typmod(ty, -1)
            ));
        }
    }
    Ok(text)
}

/// An error of PL/pgSQL's grammar with PostgreSQL's SQLSTATE for it.
pub fn plpgsql_grammar_error(m: &str) -> PgError {
    let m = m
        .strip_prefix("Invalid statement: ")
        .unwrap_or(m)
        .to_string();
    // pl_gram.y's checks of RETURN against the function's result are type errors.
    let result_mismatch = [
        "cannot use RETURN NEXT in a non-SETOF function",
        "cannot use RETURN QUERY in a non-SETOF function",
        "RETURN cannot have a parameter in function returning set",
        "RETURN cannot have a parameter in function with OUT parameters",
        "RETURN cannot have a parameter in function returning void",
        "RETURN NEXT cannot have a parameter in function with OUT parameters",
    ];
    if result_mismatch.iter().any(|r| m.starts_with(r)) {
        let e = PgError::new(code::DATATYPE_MISMATCH, m.clone());
        return if m.starts_with("RETURN cannot have a parameter in function returning set") {
            e.with_hint("Use RETURN NEXT or RETURN QUERY.")
        } else {
            e
        };
    }
    let c = if m.starts_with("FETCH statement cannot return multiple rows") {
        code::FEATURE_NOT_SUPPORTED
    } else if m.starts_with("unrecognized exception condition") {
        code::UNDEFINED_OBJECT
    } else if m.ends_with("is declared CONSTANT") {
        "22005"
    } else if m.contains("since it's declared NOT NULL") {
        code::NULL_VALUE_NOT_ALLOWED
    } else {
        code::SYNTAX_ERROR
    };
    PgError::new(c, m)
}

/// The variables PL/pgSQL gives a trigger function, declared in a block around its body.
/// pg_query cannot print the parse tree of a function that RETURNS trigger (its JSON is
/// malformed), so such a body is parsed as an ordinary function's inside this block, written
/// on the body's first line so that line numbers stay those of the body.
const TRIGGER_DECLS: &str = "DECLARE new record; old record; tg_name name; tg_when text; tg_level text; tg_op text; tg_relid oid; tg_relname name; tg_table_name name; tg_table_schema name; tg_nargs integer; tg_argv text[]; BEGIN ";

/// A trigger function's body inside the block that declares its variables (see
/// [`TRIGGER_DECLS`]).
pub fn trigger_body(body: &str) -> PgResult<String> {
    use pg_query::protobuf::Token;
    let scanned =
        pg_query::scan(body).map_err(|e| PgError::new(code::SYNTAX_ERROR, e.to_string()))?;
    // Up to the body's last token, without the optional ';' after its final END.
    let last = scanned
        .tokens
        .iter()
        .rev()
        .find(|t| t.token != Token::SqlComment as i32 && t.token != Token::CComment as i32);
    let cut = match last {
        Some(t) if body.get(t.start as usize..t.end as usize) == Some(";") => t.start as usize,
        Some(t) => t.end as usize,
        None => 0,
    };
    Ok(format!("{TRIGGER_DECLS}{}; END", &body[..cut]))
}

/// `body` dollar-quoted with a tag it does not contain.
pub fn dollar_quoted(body: &str) -> String {
    let mut tag = String::from("$plbody$");
    let mut n = 0;
    while body.contains(&tag) {
        n += 1;
        tag = format!("$plbody{n}$");
    }
    format!("{tag}{body}{tag}")
}

/// Parses a PL/pgSQL body with PL/pgSQL's grammar (pg_query's), for its syntax errors.
fn check_plpgsql(c: &protobuf::CreateFunctionStmt, def: &FunctionDef) -> PgResult<()> {
    let text = if def.returns == TRIGGER {
        // Returning integer in place of trigger (see [`TRIGGER_DECLS`]).
        format!(
            "CREATE FUNCTION f() RETURNS integer LANGUAGE plpgsql AS {}",
            dollar_quoted(&trigger_body(&def.body)?)
        )
    } else {
        // A VARIADIC parameter as a plain one: the grammar's check of its type does not
        // know array types by name (`int[]`), and the body sees the array either way.
        let mut c = c.clone();
        for p in &mut c.parameters {
            if let Some(N::FunctionParameter(fp)) = p.node.as_mut() {
                if fp.mode == protobuf::FunctionParameterMode::FuncParamVariadic as i32 {
                    fp.mode = protobuf::FunctionParameterMode::FuncParamIn as i32;
                }
            }
        }
        N::CreateFunctionStmt(Box::new(c))
            .deparse(Default::default())
            .map_err(|e| PgError::internal(format!("cannot deparse the function: {e}")))?
    };
    // As the compiler reads them (`rowtype_decls`): the header has no %ROWTYPE left.
    let (text, _) = rowtype_decls(&text);
    pg_query::parse_plpgsql(&text)
        .map(|_| ())
        .map_err(|e| plpgsql_grammar_error(&e.to_string()))
}

/// The `%ROWTYPE` declarations of `body`: PL/pgSQL's grammar, without a catalog, takes
/// `r t%ROWTYPE` for a scalar, and then `r.f` does not parse. Each such type is rewritten to
/// `record`, padded with spaces to its length so that every position and line stays; the
/// (variable, row type) pairs come back in the order written, and the variable gets the row
/// type's fields, all NULL, when its block starts (PostgreSQL's row variable).
pub fn rowtype_decls(body: &str) -> (String, Vec<(String, String)>) {
    static DECL: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(
            r#"(?i)\b([a-z_][a-z0-9_$]*|"[^"]+")(\s+(?:constant\s+)?)((?:"[^"]+"|[a-z_][a-z0-9_$]*)(?:\.(?:"[^"]+"|[a-z_][a-z0-9_$]*))?\s*%\s*rowtype)\b"#,
        )
        .expect("a valid pattern")
    });
    let mut found = Vec::new();
    let out = DECL.replace_all(body, |c: &regex::Captures<'_>| {
        let ty = &c[3];
        let name = c[1].trim_matches('"');
        let name = if c[1].starts_with('"') {
            name.to_string()
        } else {
            name.to_lowercase()
        };
        let typname = ty[..ty.to_lowercase().rfind('%').unwrap_or(ty.len())].trim_end();
        found.push((name, typname.to_string()));
        format!("{}{}{:<width$}", &c[1], &c[2], "record", width = ty.len())
    });
    (out.into_owned(), found)
}

fn drop_one(
    cx: &mut dyn SessionCtx,
    what: &str,
    item: &protobuf::ObjectWithArgs,
    if_exists: bool,
    cascade: bool,
) -> PgResult<()> {
    let Some(f) = find_routine(cx, what, item, if_exists)? else {
        return Ok(());
    };
    let (_, name) = split_name(&item.objname)?;
    if !super::grant::owns(cx, f.def.owner)? {
        return Err(crate::sql::privs::not_owner(kind_name(f.def.kind), &name));
    }
    if let Some(ext) = super::extension::member_of(cx, f.oid)? {
        // PostgreSQL's getObjectDescription: types joined by a bare comma.
        let types: Vec<String> = f
            .def
            .input_types()
            .into_iter()
            .map(|t| Type(t).name())
            .collect();
        let shown = format!("{name}({})", types.join(","));
        return Err(super::extension::refuse_member_drop(&ext, &shown));
    }
    if f.def.returns == TRIGGER {
        let shown = format!("{name}({})", crate::sql::plan::type_list(&f.def.args));
        super::trigger::drop_function_triggers(cx, f.oid, &shown, cascade)?;
    }
    let (cell, cid) = cx.writer(&format!("DROP {what}"))?;
    let snap = cx.catalog_snapshot()?;
    let catalog = &cx.instance().catalog;
    catalog
        .functions
        .end(f.oid, &snap, &cell, cid)
        .map_err(|_| PgError::new(code::OBJECT_IN_USE, "tuple concurrently updated"))?;
    catalog.bump();
    Ok(())
}

/// The OID of the routine COMMENT ON FUNCTION / PROCEDURE / ROUTINE names, which the session's
/// role must own (PostgreSQL's errors for a missing or ambiguous one).
pub(super) fn owned_routine(
    cx: &mut dyn SessionCtx,
    what: &str,
    item: &protobuf::ObjectWithArgs,
) -> PgResult<u32> {
    let f = find_routine(cx, what, item, false)?
        .ok_or_else(|| PgError::internal("a routine not found without IF EXISTS"))?;
    let (_, name) = split_name(&item.objname)?;
    if !super::grant::owns(cx, f.def.owner)? {
        return Err(crate::sql::privs::not_owner(kind_name(f.def.kind), &name));
    }
    Ok(f.oid)
}

/// The function, procedure or routine an ObjectWithArgs names (by argument types, or by name
/// alone where it is unique), with PostgreSQL's errors; None where IF EXISTS found none (after
/// its notice).
fn find_routine(
    cx: &mut dyn SessionCtx,
    what: &str,
    item: &protobuf::ObjectWithArgs,
    if_exists: bool,
) -> PgResult<Option<std::sync::Arc<crate::catalog::functions::Function>>> {
    let (schema, name) = split_name(&item.objname)?;
    let word = match what {
        "PROCEDURE" => "procedure",
        "ROUTINE" => "routine",
        "AGGREGATE" => "aggregate",
        _ => "function",
    };
    let types: Option<Vec<Type>> = if item.args_unspecified {
        None
    } else {
        let mut v = Vec::new();
        for a in &item.objargs {
            if let Some(N::TypeName(tn)) = a.node.as_ref() {
                match with_planner(cx, None, |pl| pl.resolve_type_name(tn)) {
                    Ok((t, _)) => v.push(t),
                    // IF EXISTS skips a function whose argument type does not exist either.
                    Err(e) if if_exists && e.code == code::UNDEFINED_OBJECT => {
                        cx.notice(notice(
                            format!("{}, skipping", e.message),
                            code::SUCCESSFUL_COMPLETION,
                        ));
                        return Ok(None);
                    }
                    Err(e) => return Err(e),
                }
            }
        }
        Some(v)
    };
    let snap = cx.catalog_snapshot()?;
    let schemas: Vec<String> = if schema.is_empty() {
        cx.search_path()
    } else {
        vec![schema.clone()]
    };
    // A PROCEDURE or ROUTINE whose argument list has no mode words may list a procedure's
    // OUT arguments too (the SQL standard's form): it also names the procedure whose
    // arguments, OUT ones included, have the types; two routines so named are ambiguous.
    let all_args = matches!(what, "PROCEDURE" | "ROUTINE")
        && !item.objfuncargs.is_empty()
        && item.objfuncargs.iter().all(|a| {
            matches!(a.node.as_ref(), Some(N::FunctionParameter(p))
                if p.mode == protobuf::FunctionParameterMode::FuncParamDefault as i32)
        });
    let catalog = &cx.instance().catalog;
    let mut found: Vec<std::sync::Arc<crate::catalog::functions::Function>> = Vec::new();
    for s in &schemas {
        let list = catalog.functions.named(cx.database(), s, &name, &snap);
        found = match &types {
            Some(t) => {
                let want: Vec<u32> = t.iter().map(|t| t.0).collect();
                let with_outs = |f: &crate::catalog::functions::Function| {
                    all_args
                        && (what == "ROUTINE" || f.def.kind == 'p')
                        && f.def
                            .args
                            .iter()
                            .filter(|a| a.is_input() || a.mode == 'o')
                            .map(|a| a.type_oid)
                            .eq(want.iter().copied())
                };
                list.into_iter()
                    .filter(|f| f.def.input_types() == want || with_outs(f))
                    .collect()
            }
            None => list,
        };
        if !found.is_empty() {
            break;
        }
    }
    let shown = match &types {
        Some(t) => format!(
            "{name}({})",
            t.iter().map(|t| t.name()).collect::<Vec<_>>().join(", ")
        ),
        None => name.clone(),
    };
    let f = match found.as_slice() {
        [] if if_exists => {
            // The types as written, as PostgreSQL's TypeNameListToString prints them.
            let written: Vec<String> = item
                .objargs
                .iter()
                .filter_map(|a| match a.node.as_ref() {
                    Some(N::TypeName(tn)) => {
                        Some(names_of(&tn.names).join(".") + &"[]".repeat(tn.array_bounds.len()))
                    }
                    _ => None,
                })
                .collect();
            cx.notice(notice(
                format!(
                    "{word} {name}({}) does not exist, skipping",
                    written.join(",")
                ),
                code::SUCCESSFUL_COMPLETION,
            ));
            return Ok(None);
        }
        [] => {
            return Err(match &types {
                Some(_) => PgError::new(
                    code::UNDEFINED_FUNCTION,
                    format!("{word} {shown} does not exist"),
                ),
                None => PgError::new(
                    code::UNDEFINED_FUNCTION,
                    format!("could not find a {word} named \"{name}\""),
                ),
            })
        }
        [one] => one.clone(),
        _ => {
            let e = PgError::new(
                code::AMBIGUOUS_FUNCTION,
                format!("{word} name \"{name}\" is not unique"),
            );
            // The hint only where no argument list was given.
            return Err(match &types {
                Some(_) => e,
                None => e.with_hint(format!(
                    "Specify the argument list to select the {word} unambiguously."
                )),
            });
        }
    };
    if what == "PROCEDURE" && f.def.kind != 'p' {
        return Err(PgError::new(
            code::WRONG_OBJECT_TYPE,
            format!(
                "{name}({}) is not a procedure",
                crate::sql::plan::type_list(&f.def.args)
            ),
        ));
    }
    if what == "AGGREGATE" && f.def.kind != 'a' {
        return Err(PgError::new(
            code::WRONG_OBJECT_TYPE,
            format!(
                "function {name}({}) is not an aggregate",
                crate::sql::plan::type_list(&f.def.args)
            ),
        ));
    }
    if what != "AGGREGATE" && f.def.kind == 'a' {
        return Err(PgError::new(
            code::WRONG_OBJECT_TYPE,
            format!("\"{name}\" is an aggregate function"),
        )
        .with_hint("Use DROP AGGREGATE to drop aggregate functions."));
    }
    if what == "FUNCTION" && f.def.kind == 'p' {
        return Err(PgError::new(
            code::WRONG_OBJECT_TYPE,
            format!(
                "{name}({}) is not a function",
                crate::sql::plan::type_list(&f.def.args)
            ),
        ));
    }
    Ok(Some(f))
}
