//! CREATE [OR REPLACE] AGGREGATE, in both syntaxes (`name (types) (...)` and the old
//! `name (BASETYPE = t, ...)`). The aggregate is kept as a function of kind 'a' whose body
//! is its `AggSpec`; DROP AGGREGATE is `function.rs`'s drop.

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

pub(super) fn create(d: &protobuf::DefineStmt, cx: &mut dyn SessionCtx) -> PgResult<()> {
    let (schema, name) = split_name(&d.defnames)?;
    let schema = creation_schema(cx, &schema, -1)?;
    let mut sfunc = None;
    let mut stype = None;
    let mut initcond = None;
    let mut finalfunc = None;
    let mut final_extra = false;
    let mut basetype = None;
    for item in &d.definition {
        let Some(N::DefElem(de)) = item.node.as_ref() else {
            continue;
        };
        let arg = de.arg.as_ref().and_then(|a| a.node.as_ref());
        match de.defname.to_lowercase().as_str() {
            "sfunc" | "sfunc1" => sfunc = name_arg(arg),
            "stype" | "stype1" => stype = Some(type_arg(cx, arg, "stype")?),
            "initcond" | "initcond1" => initcond = text_arg(arg),
            "finalfunc" => finalfunc = name_arg(arg),
            "finalfunc_extra" => final_extra = true,
            "basetype" => basetype = Some(arg.cloned()),
            // Planner hints, with no effect on the results here.
            "parallel" | "sspace" => {}
            "finalfunc_modify" | "combinefunc" | "serialfunc" | "deserialfunc" | "msfunc"
            | "minvfunc" | "mstype" | "msspace" | "mfinalfunc" | "mfinalfunc_extra"
            | "minitcond" | "sortop" | "hypothetical" => {
                return Err(PgError::feature_not_supported(format!(
                    "aggregate attribute \"{}\" is not supported yet",
                    de.defname
                )))
            }
            other => cx.notice(PgError::warning(
                code::WARNING,
                format!("aggregate attribute \"{other}\" not recognized"),
            )),
        }
    }
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
    let Some(sfunc) = sfunc else {
        return Err(bad_definition("aggregate sfunc must be specified"));
    };
    let Some(stype) = stype else {
        return Err(bad_definition("aggregate stype must be specified"));
    };
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
    let spec = AggSpec {
        sfunc,
        stype: stype.0,
        initcond,
        finalfunc,
        final_extra,
    };
    let (returns, strict) = with_planner(cx, None, |pl| pl.check_aggregate(&spec, &inputs))?;
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
        parallel: 'u',
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
                        .with_detail(format!("\"{name}\" is an ordinary function.")),
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
