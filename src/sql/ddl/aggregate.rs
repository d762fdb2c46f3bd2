//! CREATE [OR REPLACE] AGGREGATE, in both syntaxes (`name (types) (...)` and the old
//! `name (BASETYPE = t, ...)`). The aggregate is kept as a function of kind 'a' whose body
//! is its `AggSpec`; DROP AGGREGATE is `function.rs`'s drop. The clauses for partial
//! aggregation (COMBINEFUNC, SERIALFUNC, DESERIALFUNC) and moving aggregation (MSTYPE,
//! MSFUNC, MINVFUNC, ...) are checked as PostgreSQL checks them and kept for pg_aggregate;
//! they are never called (there is no partial aggregation, and a window frame whose start
//! moves is computed afresh, as PostgreSQL does for an aggregate without them).

use pg_query::protobuf::{self, node::Node as N};

use super::creation_schema;
use super::function::{bad_definition, split_name, with_planner};
use crate::catalog::functions::{AggSpec, FuncArg, FunctionDef, MAX_ARGS};
use crate::catalog::{CatalogError, Oid};
use crate::error::{code, PgError, PgResult};
use crate::sql::context::SessionCtx;
use crate::sql::parser::names_of;
use crate::sql::types::Type;

/// A definition's argument as a (qualified) name: `SFUNC = s.f`.
fn name_arg(arg: Option<&N>) -> Option<Vec<String>> {
    match arg? {
        N::TypeName(tn) => Some(names_of(&tn.names)),
        N::String(s) => Some(vec![s.sval.clone()]),
        _ => None,
    }
}

/// A definition's argument as text: `INITCOND = '{}'` or `INITCOND = 0`.
fn text_arg(arg: Option<&N>) -> Option<String> {
    match arg? {
        N::String(s) => Some(s.sval.clone()),
        N::Integer(i) => Some(i.ival.to_string()),
        N::Float(f) => Some(f.fval.clone()),
        N::TypeName(tn) => Some(names_of(&tn.names).join(".")),
        _ => None,
    }
}

fn type_arg(cx: &mut dyn SessionCtx, arg: Option<&N>, what: &str) -> PgResult<Type> {
    match arg {
        Some(N::TypeName(tn)) => Ok(with_planner(cx, None, |pl| pl.resolve_type_name(tn))?.0),
        Some(N::String(s)) => {
            let tn = protobuf::TypeName {
                names: vec![protobuf::Node {
                    node: Some(N::String(s.clone())),
                }],
                typemod: -1,
                location: -1,
                ..Default::default()
            };
            Ok(with_planner(cx, None, |pl| pl.resolve_type_name(&tn))?.0)
        }
        _ => Err(PgError::syntax(format!("{what} requires a type name"))),
    }
}

/// FINALFUNC_MODIFY / MFINALFUNC_MODIFY's value as pg_aggregate's letter (PostgreSQL's
/// extractModify).
fn modify_arg(name: &str, arg: Option<&N>) -> PgResult<char> {
    match text_arg(arg).as_deref() {
        Some("read_only") => Ok('r'),
        Some("shareable") => Ok('s'),
        Some("read_write") => Ok('w'),
        _ => Err(PgError::syntax(format!(
            "parameter \"{name}\" must be READ_ONLY, SHAREABLE, or READ_WRITE"
        ))),
    }
}

/// The definition's clauses (PostgreSQL's DefineAggregate), names compared as written: a
/// quoted `"Sfunc"` is not `sfunc`.
#[derive(Default)]
struct Clauses {
    sfunc: Option<Vec<String>>,
    stype: Option<Type>,
    initcond: Option<String>,
    finalfunc: Option<Vec<String>>,
    final_extra: bool,
    final_modify: Option<char>,
    combinefunc: Option<Vec<String>>,
    serialfunc: Option<Vec<String>>,
    deserialfunc: Option<Vec<String>>,
    msfunc: Option<Vec<String>>,
    minvfunc: Option<Vec<String>>,
    mstype: Option<Type>,
    mfinalfunc: Option<Vec<String>>,
    mfinal_extra: bool,
    mfinal_modify: Option<char>,
    minitcond: Option<String>,
    msspace: bool,
    parallel: Option<String>,
    basetype: Option<Option<N>>,
}

fn clauses(d: &protobuf::DefineStmt, cx: &mut dyn SessionCtx) -> PgResult<Clauses> {
    let mut c = Clauses::default();
    for item in &d.definition {
        let Some(N::DefElem(de)) = item.node.as_ref() else {
            continue;
        };
        let arg = de.arg.as_ref().and_then(|a| a.node.as_ref());
        // A flag without a value is true, as defGetBoolean reads it.
        let flag = || !matches!(text_arg(arg).as_deref(), Some("false" | "off" | "0" | "no"));
        match de.defname.as_str() {
            "sfunc" | "sfunc1" => c.sfunc = name_arg(arg),
            "stype" | "stype1" => c.stype = Some(type_arg(cx, arg, "stype")?),
            "initcond" | "initcond1" => c.initcond = text_arg(arg),
            "finalfunc" => c.finalfunc = name_arg(arg),
            "finalfunc_extra" => c.final_extra = flag(),
            "finalfunc_modify" => c.final_modify = Some(modify_arg(&de.defname, arg)?),
            "combinefunc" => c.combinefunc = name_arg(arg),
            "serialfunc" => c.serialfunc = name_arg(arg),
            "deserialfunc" => c.deserialfunc = name_arg(arg),
            "msfunc" => c.msfunc = name_arg(arg),
            "minvfunc" => c.minvfunc = name_arg(arg),
            "mstype" => c.mstype = Some(type_arg(cx, arg, "mstype")?),
            "mfinalfunc" => c.mfinalfunc = name_arg(arg),
            "mfinalfunc_extra" => c.mfinal_extra = flag(),
            "mfinalfunc_modify" => c.mfinal_modify = Some(modify_arg(&de.defname, arg)?),
            "minitcond" => c.minitcond = text_arg(arg),
            "msspace" => c.msspace = text_arg(arg).is_some_and(|v| v != "0"),
            "parallel" => c.parallel = text_arg(arg),
            "basetype" => c.basetype = Some(arg.cloned()),
            // A planner hint, with no effect on the results here.
            "sspace" => {}
            "sortop" | "hypothetical" => {
                return Err(PgError::feature_not_supported(format!(
                    "aggregate attribute \"{}\" is not supported yet",
                    de.defname
                )))
            }
            other => cx.notice(PgError::warning(
                code::SYNTAX_ERROR,
                format!("aggregate attribute \"{other}\" not recognized"),
            )),
        }
    }
    Ok(c)
}

/// The moving-aggregate clauses: all or none, as PostgreSQL requires.
fn check_moving(c: &Clauses) -> PgResult<()> {
    if c.mstype.is_some() {
        if c.msfunc.is_none() {
            return Err(bad_definition(
                "aggregate msfunc must be specified when mstype is specified",
            ));
        }
        if c.minvfunc.is_none() {
            return Err(bad_definition(
                "aggregate minvfunc must be specified when mstype is specified",
            ));
        }
        return Ok(());
    }
    let given = [
        (c.msfunc.is_some(), "msfunc"),
        (c.minvfunc.is_some(), "minvfunc"),
        (c.mfinalfunc.is_some(), "mfinalfunc"),
        (c.msspace, "msspace"),
        (c.minitcond.is_some(), "minitcond"),
    ];
    match given.iter().find(|(g, _)| *g) {
        Some((_, what)) => Err(bad_definition(format!(
            "aggregate {what} must not be specified without mstype"
        ))),
        None => Ok(()),
    }
}

/// The moving-aggregate support's checks (PostgreSQL's AggregateCreate): the forward and
/// inverse functions take the moving state and the arguments and return the moving state,
/// and are both strict or both not.
fn check_moving_functions(
    cx: &mut dyn SessionCtx,
    m: &crate::catalog::functions::MovingSpec,
    inputs: &[Type],
) -> PgResult<()> {
    let spec_of = |sfunc: &[String], finalfunc: Option<Vec<String>>| AggSpec {
        sfunc: sfunc.to_vec(),
        stype: m.mstype,
        initcond: m.minitcond.clone(),
        finalfunc,
        final_extra: m.mfinal_extra,
        final_modify: None,
        combinefunc: None,
        serialfunc: None,
        deserialfunc: None,
        moving: None,
    };
    let forward = spec_of(&m.msfunc, m.mfinalfunc.clone());
    let (_, strict) = with_planner(cx, None, |pl| pl.check_aggregate(&forward, inputs))?;
    let inverse = spec_of(&m.minvfunc, None);
    let (_, inv_strict) = with_planner(cx, None, |pl| pl.check_aggregate(&inverse, inputs))
        .map_err(|mut e| {
            if let Some(rest) = e.message.strip_prefix("return type of transition function") {
                e.message = format!("return type of inverse transition function{rest}");
            }
            e
        })?;
    if strict != inv_strict {
        return Err(bad_definition(
            "strictness of aggregate's forward and inverse transition functions must match",
        ));
    }
    Ok(())
}

pub(super) fn create(d: &protobuf::DefineStmt, cx: &mut dyn SessionCtx) -> PgResult<()> {
    let (schema, name) = split_name(&d.defnames)?;
    let schema = creation_schema(cx, &schema, -1)?;
    let c = clauses(d, cx)?;
    // PostgreSQL's order: the required clauses, then the argument types.
    let Some(stype) = c.stype else {
        return Err(bad_definition("aggregate stype must be specified"));
    };
    let Some(sfunc) = c.sfunc.clone() else {
        return Err(bad_definition("aggregate sfunc must be specified"));
    };
    check_moving(&c)?;
    // Serialization functions go with the internal state type, which there is none of here.
    if c.serialfunc.is_some() && c.deserialfunc.is_some() {
        return Err(bad_definition(
            "serialization functions may be specified only when the aggregate transition data type is internal",
        ));
    }
    if c.serialfunc.is_some() || c.deserialfunc.is_some() {
        return Err(bad_definition(
            "must specify both or neither of serialization and deserialization functions",
        ));
    }
    let basetype = c.basetype.clone();
    // The argument types: the new syntax's list, or the old syntax's BASETYPE.
    let mut args: Vec<FuncArg> = Vec::new();
    if d.oldstyle {
        let Some(base) = basetype else {
            return Err(bad_definition("aggregate input type must be specified"));
        };
        let is_any = match base.as_ref() {
            Some(N::TypeName(tn)) => names_of(&tn.names).last().is_some_and(|n| n == "any"),
            Some(N::String(s)) => s.sval.eq_ignore_ascii_case("any"),
            _ => false,
        };
        if !is_any {
            let t = type_arg(cx, base.as_ref(), "basetype")?;
            args.push(FuncArg {
                name: String::new(),
                type_oid: t.0,
                mode: 'i',
                default: None,
            });
        }
    } else {
        if basetype.is_some() {
            return Err(bad_definition(
                "basetype is redundant with aggregate input type specification",
            ));
        }
        if let Some(N::List(l)) = d.args.first().and_then(|a| a.node.as_ref()) {
            if l.items.len() > MAX_ARGS {
                return Err(PgError::new(
                    code::TOO_MANY_ARGUMENTS,
                    format!("functions cannot have more than {MAX_ARGS} arguments"),
                ));
            }
            for p in &l.items {
                let Some(N::FunctionParameter(fp)) = p.node.as_ref() else {
                    continue;
                };
                let tn = fp
                    .arg_type
                    .as_ref()
                    .ok_or_else(|| PgError::syntax("parameter without a type"))?;
                let (t, _) = with_planner(cx, None, |pl| pl.resolve_type_name(tn))?;
                if fp.mode == protobuf::FunctionParameterMode::FuncParamVariadic as i32 {
                    return Err(PgError::feature_not_supported(
                        "VARIADIC aggregates are not supported yet",
                    ));
                }
                args.push(FuncArg {
                    name: fp.name.clone(),
                    type_oid: t.0,
                    mode: 'i',
                    default: None,
                });
            }
        }
        if d.args.get(1).is_some_and(|n| match n.node.as_ref() {
            Some(N::Integer(i)) => i.ival >= 0,
            _ => false,
        }) {
            return Err(PgError::feature_not_supported(
                "ordered-set aggregates written by users are not supported yet",
            ));
        }
    }
    let inputs: Vec<Type> = args.iter().map(|a| Type(a.type_oid)).collect();
    if stype.category() == 'P' && !stype.is_polymorphic() {
        return Err(bad_definition(format!(
            "aggregate transition data type cannot be {}",
            stype.name()
        )));
    }
    if let Some(detail) = crate::sql::plan::polymorphic::unresolvable_result(stype, &inputs) {
        return Err(bad_definition("cannot determine transition data type").with_detail(detail));
    }
    let parallel = match c.parallel.as_deref() {
        None | Some("unsafe") => 'u',
        Some("safe") => 's',
        Some("restricted") => 'r',
        Some(_) => {
            return Err(PgError::syntax(
                "parameter \"parallel\" must be SAFE, RESTRICTED, or UNSAFE",
            ))
        }
    };
    let moving = c.mstype.map(|mstype| {
        Box::new(crate::catalog::functions::MovingSpec {
            msfunc: c.msfunc.clone().unwrap_or_default(),
            minvfunc: c.minvfunc.clone().unwrap_or_default(),
            mstype: mstype.0,
            mfinalfunc: c.mfinalfunc.clone(),
            mfinal_extra: c.mfinal_extra,
            mfinal_modify: c.mfinal_modify,
            minitcond: c.minitcond.clone(),
        })
    });
    let spec = AggSpec {
        sfunc,
        stype: stype.0,
        initcond: c.initcond.clone(),
        finalfunc: c.finalfunc.clone(),
        final_extra: c.final_extra,
        final_modify: c.final_modify,
        combinefunc: c.combinefunc.clone(),
        serialfunc: c.serialfunc.clone(),
        deserialfunc: c.deserialfunc.clone(),
        moving,
    };
    let (returns, strict) = with_planner(cx, None, |pl| pl.check_aggregate(&spec, &inputs))?;
    if let Some(m) = &spec.moving {
        check_moving_functions(cx, m, &inputs)?;
    }
    if strict
        && spec.initcond.is_none()
        && inputs
            .first()
            .is_none_or(|t| *t != stype && !t.is_polymorphic())
        && !stype.is_polymorphic()
    {
        return Err(bad_definition(
            "must not omit initial value when transition function is strict and transition type is not compatible with input type",
        ));
    }
    if let Some(detail) = crate::sql::plan::polymorphic::unresolvable_result(returns, &inputs) {
        return Err(PgError::new(
            code::INVALID_FUNCTION_DEFINITION,
            "cannot determine result data type",
        )
        .with_detail(detail));
    }
    let body = serde_json::to_string(&spec)
        .map_err(|e| PgError::internal(format!("cannot keep an aggregate: {e}")))?;
    let def = FunctionDef {
        database: cx.database().to_string(),
        schema: schema.clone(),
        name: name.clone(),
        kind: 'a',
        args,
        returns: returns.0,
        returns_set: false,
        language: "internal".into(),
        body,
        sql_body: false,
        volatility: 'i',
        strict: false,
        security_definer: false,
        leakproof: false,
        parallel,
        cost: 1.0,
        rows: 0.0,
        config: Vec::new(),
        owner: cx.role_oid(),
        acl: None,
    };
    let snap = cx.catalog_snapshot()?;
    let catalog = &cx.instance().catalog;
    let want = def.input_types();
    let old = catalog
        .functions
        .named(cx.database(), &schema, &name, &snap)
        .into_iter()
        .find(|f| f.def.input_types() == want);
    let exists = || {
        PgError::new(
            code::DUPLICATE_FUNCTION,
            format!("function \"{name}\" already exists with same argument types"),
        )
    };
    let oid: Oid = match &old {
        Some(f) => {
            if !d.replace {
                return Err(exists());
            }
            if !super::grant::owns(cx, f.def.owner)? {
                return Err(crate::sql::privs::not_owner("function", &name));
            }
            if f.def.kind != 'a' {
                return Err(
                    PgError::new(code::WRONG_OBJECT_TYPE, "cannot change routine kind")
                        .with_detail(format!(
                            "\"{name}\" is {}.",
                            match f.def.kind {
                                'p' => "a procedure",
                                'w' => "a window function",
                                _ => "a function",
                            }
                        )),
                );
            }
            if f.def.returns != def.returns {
                return Err(
                    bad_definition("cannot change return type of existing function").with_hint(
                        format!(
                            "Use DROP AGGREGATE {name}({}) first.",
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
    let (cell, cid) = cx.writer("CREATE AGGREGATE")?;
    let snap = cx.catalog_snapshot()?;
    let catalog = &cx.instance().catalog;
    catalog
        .functions
        .create(oid, def, old.is_some(), &snap, &cell, cid)
        .map_err(|e| match e {
            CatalogError::Exists(_) => exists(),
            _ => PgError::new(code::OBJECT_IN_USE, "tuple concurrently updated"),
        })?;
    catalog.bump();
    Ok(())
}
