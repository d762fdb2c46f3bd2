//! Function calls (PostgreSQL's parse_func.c): a call is an aggregate or window call (agg.rs,
//! window.rs), a function the planner handles itself (pg_typeof), a session function, or a
//! built-in function chosen among its overloads by argument types (`resolve_function`: exact,
//! polymorphic and implicitly cast arguments, scored); named arguments are put in positional
//! order. Calls of immutable functions on constants are folded. The errors for undefined and
//! ambiguous functions are PostgreSQL's.

use pg_query::protobuf::{self, node::Node as N};

use super::agg::{aggregate_func, AggCtx};
use super::scope::Scope;
use super::{aggregates, loc, names_of, Planner};
use crate::error::{code, PgError, PgResult};
use crate::sql::func::session_fn;
use crate::sql::func::SessionFn;
use crate::sql::func::{self, FuncSig};
use crate::sql::plan::{AggFunc, Expr};
use crate::sql::types::cast::{self, CoercionContext};
use crate::sql::types::{Type, Value};

/// `name(type, type)` as PostgreSQL prints a call's signature in errors.
pub(super) fn signature(name: &str, types: &[Type]) -> String {
    let args: Vec<String> = types.iter().map(|t| t.name()).collect();
    format!("{}({})", name, args.join(", "))
}

pub(super) fn undefined_function(name: &str, types: &[Type], location: i32) -> PgError {
    PgError::new(
        code::UNDEFINED_FUNCTION,
        format!("function {} does not exist", signature(name, types)),
    )
    .with_hint(
        "No function matches the given name and argument types. You might need to add explicit type casts.",
    )
    .at(loc(location))
}

/// PostgreSQL's error when several candidates fit equally well.
pub(super) fn not_unique(name: &str, types: &[Type], location: i32) -> PgError {
    PgError::new(
        code::AMBIGUOUS_FUNCTION,
        format!("function {} is not unique", signature(name, types)),
    )
    .with_hint(
        "Could not choose a best candidate function. You might need to add explicit type casts.",
    )
    .at(loc(location))
}

impl Planner<'_> {
    pub(super) fn resolve_function(
        &mut self,
        name: &str,
        types: &[Type],
        location: i32,
    ) -> PgResult<(&'static FuncSig, Vec<Type>, Type)> {
        let cands = func::lookup(name);
        if cands.is_empty() {
            return Err(undefined_function(name, types, location));
        }
        let fits = |sig: &FuncSig| -> Option<(Vec<Type>, i32)> {
            let n = types.len();
            if sig.variadic {
                if n + 1 < sig.args.len() {
                    return None;
                }
            } else if sig.args.len() != n {
                return None;
            }
            let mut want = Vec::with_capacity(n);
            let mut score = 0;
            let mut poly: Option<Type> = None;
            for (i, &t) in types.iter().enumerate() {
                let s = if i < sig.args.len() {
                    sig.args[i]
                } else {
                    *sig.args.last()?
                };
                let target = match s {
                    Type::ANY => {
                        if t == Type::UNKNOWN {
                            Type::TEXT
                        } else {
                            t
                        }
                    }
                    Type::ANYELEMENT => {
                        let e = if t == Type::UNKNOWN { Type::TEXT } else { t };
                        match poly {
                            Some(p) if p != e && t != Type::UNKNOWN => return None,
                            Some(p) => p,
                            None => {
                                poly = Some(e);
                                e
                            }
                        }
                    }
                    Type::ANYARRAY => {
                        // int2vector and oidvector are arrays of int2 / oid to polymorphic
                        // functions (array_length, array_lower, ...), as in PostgreSQL.
                        let t = match t {
                            Type::INT2VECTOR => Type::INT2_ARRAY,
                            Type::OIDVECTOR => Type::OID_ARRAY,
                            t => t,
                        };
                        if !t.is_array() {
                            return None;
                        }
                        if let Some(e) = t.elem() {
                            match poly {
                                Some(p) if p != e => return None,
                                _ => poly = Some(e),
                            }
                        }
                        t
                    }
                    other => other,
                };
                if t == target {
                    score += 10;
                } else if t == Type::UNKNOWN {
                    if target.category() == 'S' {
                        score += 2;
                    }
                } else if cast::can_coerce(t, target, CoercionContext::Implicit) {
                    if target.is_preferred() {
                        score += 1;
                    }
                } else {
                    return None;
                }
                want.push(target);
            }
            Some((want, score))
        };
        let mut best: Option<(&'static FuncSig, Vec<Type>, i32)> = None;
        for sig in cands {
            if let Some((want, score)) = fits(sig) {
                if best.as_ref().is_none_or(|(_, _, s)| score > *s) {
                    best = Some((sig, want, score));
                }
            }
        }
        let Some((sig, want, _)) = best else {
            return Err(undefined_function(name, types, location));
        };
        let ret = match sig.ret {
            Type::ANYELEMENT => want
                .iter()
                .zip(
                    sig.args
                        .iter()
                        .chain(std::iter::repeat(sig.args.last().unwrap_or(&Type::TEXT))),
                )
                .find_map(|(w, s)| match *s {
                    Type::ANYELEMENT => Some(*w),
                    Type::ANYARRAY => w.elem(),
                    _ => None,
                })
                .unwrap_or(Type::TEXT),
            Type::ANYARRAY => want
                .iter()
                .zip(
                    sig.args
                        .iter()
                        .chain(std::iter::repeat(sig.args.last().unwrap_or(&Type::TEXT))),
                )
                .find_map(|(w, s)| match *s {
                    Type::ANYARRAY => Some(*w),
                    Type::ANYELEMENT => w.array(),
                    _ => None,
                })
                .unwrap_or(Type::TEXT_ARRAY),
            other => other,
        };
        Ok((sig, want, ret))
    }

    pub(super) fn bind_func(
        &mut self,
        fc: &protobuf::FuncCall,
        scope: &Scope,
        mut agg: Option<&mut AggCtx>,
    ) -> PgResult<(Expr, Type)> {
        let names = names_of(&fc.funcname);
        let name = names.last().cloned().unwrap_or_default();
        if self.call_at == Some(fc.location) {
            return self.bind_call(fc, &names, scope);
        }
        if fc.over.is_none() {
            let user_aggs = self.user_routines(&names, true);
            if !user_aggs.is_empty() {
                return self.bind_aggregate(AggFunc::User, fc, &name, agg, &user_aggs);
            }
        }
        if names.len() > 1 && names[0] != "pg_catalog" && names[0] != "information_schema" {
            if let Some(call) = self.bind_user_call(fc, &names, scope, agg.as_deref_mut())? {
                return Ok(call);
            }
            // A range or multirange type's constructor named with its schema
            // (`s.floatrange(1, 2)`, `s.floatmultirange()`).
            if self.range_type_named(&names).is_none()
                && self.multirange_type_named(&names).is_none()
            {
                return Err(undefined_function(&names.join("."), &[], fc.location));
            }
        }
        if let Some(af) = aggregate_func(&name, fc.agg_star) {
            let (within, over) = (fc.agg_within_group, fc.over.is_some());
            aggregates::check_within_group(af, within, over, &name, fc.location)?;
        }
        if let Some(over) = &fc.over {
            return self.bind_window(fc, over, &name, scope, agg);
        }
        if let Some(af) = aggregate_func(&name, fc.agg_star) {
            return self.bind_aggregate(af, fc, &name, agg, &[]);
        }
        if fc.agg_distinct || fc.agg_star || !fc.agg_order.is_empty() {
            return Err(PgError::new(
                code::WRONG_OBJECT_TYPE,
                format!("{name} is not an aggregate function"),
            )
            .at(loc(fc.location)));
        }
        if let Some(call) = self.bind_user_call(fc, &names, scope, agg.as_deref_mut())? {
            return Ok(call);
        }
        if let ("row_to_json" | "to_json" | "to_jsonb", [arg]) = (name.as_str(), &fc.args[..]) {
            if let Some(mut row) = self.whole_row_arg(scope, arg)? {
                if let Some(ctx) = agg.as_deref_mut() {
                    let (rel, at) = whole_row_name(arg);
                    row.items = ctx.grouped_row(&row.items, &rel, at)?;
                }
                let jb = name == "to_jsonb";
                return Ok((row.json(jb), if jb { Type::JSONB } else { Type::JSON }));
            }
        }
        // json[b]_build_*: whole-row arguments become JSON objects with their column names.
        let json_build = json_build_fn(&name).filter(|_| !fc.func_variadic);
        let mut rows = Vec::new();
        if json_build.is_some() {
            for a in &fc.args {
                let mut row = self.whole_row_arg(scope, a)?;
                if let (Some(row), Some(ctx)) = (row.as_mut(), agg.as_deref_mut()) {
                    let (rel, at) = whole_row_name(a);
                    row.items = ctx.grouped_row(&row.items, &rel, at)?;
                }
                rows.push(row);
            }
        }
        let positional = positional_args(&name, &fc.args, fc.location)?;
        let mut args = Vec::new();
        for a in positional.as_ref().unwrap_or(&fc.args) {
            args.push(self.bind(a.node.as_ref().expect("arg"), scope, agg.as_deref_mut())?);
        }
        if let Some(f) = json_build {
            // Untyped literals and parameters are text, as the "any" signature resolves them.
            for (e, t) in args.iter_mut() {
                if *t == Type::UNKNOWN {
                    let v = std::mem::replace(e, Expr::Const(Value::Null));
                    *e = self.coerce(v, *t, Type::TEXT, -1, CoercionContext::Implicit, -1)?;
                    *t = Type::TEXT;
                }
            }
            return Ok(json_build_call(f, args, rows));
        }
        if let Some(call) =
            self.bind_range_call(&names, &mut args, fc.func_variadic, fc.location)?
        {
            return Ok(call);
        }
        // to_json of an hstore goes through hstore's cast to json, as PostgreSQL's to_json
        // uses a type's cast to json where it has one.
        if let ("to_json" | "to_jsonb", [a]) = (name.as_str(), &mut args[..]) {
            if a.1.base_type().is_hstore() {
                let e = std::mem::replace(&mut a.0, Expr::Const(Value::Null));
                a.0 = self.coerce(e, a.1, Type::JSON, -1, CoercionContext::Explicit, -1)?;
                a.1 = Type::JSON;
            }
        }
        let types: Vec<Type> = args.iter().map(|(_, t)| *t).collect();
        // Functions handled by the planner itself.
        match (name.as_str(), args.len()) {
            ("pg_typeof", 1) => {
                let name = Expr::Const(Value::Text(types[0].name()));
                let (arg, _) = args.pop().expect("one argument");
                if arg.is_const() {
                    return Ok((name, Type::REGTYPE));
                }
                // PostgreSQL folds pg_typeof only over a constant: otherwise its argument is
                // evaluated (once per call), and so are the side effects of volatile calls
                // inside it (pg_typeof(pg_notify(...)) notifies).
                let e = Expr::Case {
                    whens: vec![(Expr::IsNull(Box::new(arg), false), name.clone())],
                    default: Some(Box::new(name)),
                };
                return Ok((e, Type::REGTYPE));
            }
            ("enum_first" | "enum_last" | "enum_range", 1) => {
                if !types[0].is_enum() {
                    return Err(undefined_function(&name, &types, fc.location));
                }
                let (f, ty): (func::ScalarFn, Type) = match name.as_str() {
                    "enum_first" => (func::enums::f_enum_first, types[0]),
                    "enum_last" => (func::enums::f_enum_last, types[0]),
                    _ => (
                        func::enums::f_enum_range,
                        types[0].array().unwrap_or(Type::ANYARRAY),
                    ),
                };
                // Evaluated when the statement runs (an enum without labels is an error
                // then, after the row description, as in PostgreSQL).
                return Ok((
                    Expr::Func {
                        f,
                        args: vec![Expr::Const(Value::Oid(types[0].0))],
                        strict: false,
                    },
                    ty,
                ));
            }
            ("enum_range", 2) => {
                let ty = if types[0] == Type::UNKNOWN {
                    types[1]
                } else {
                    types[0]
                };
                if !ty.is_enum() || types.iter().any(|t| *t != ty && *t != Type::UNKNOWN) {
                    return Err(undefined_function(&name, &types, fc.location));
                }
                let mut out = Vec::new();
                for (e, t) in args {
                    out.push(self.coerce(e, t, ty, -1, CoercionContext::Implicit, fc.location)?);
                }
                out.push(Expr::Const(Value::Oid(ty.0)));
                return Ok((
                    Expr::Func {
                        f: func::enums::f_enum_range2,
                        args: out,
                        strict: false,
                    },
                    ty.array().unwrap_or(Type::ANYARRAY),
                ));
            }
            ("coalesce", _) | ("greatest", _) | ("least", _) | ("nullif", 2) => {}
            _ => {}
        }
        if let Some((sf, sig)) = session_fn::lookup(&name, args.len()) {
            if let Some(first) = positional.as_ref().unwrap_or(&fc.args).first() {
                super::sequence::check_regclass_literal(self.tables.as_ref(), sf, first)?;
            }
            let mut out = Vec::new();
            let mut arg_types = Vec::new();
            for (i, (e, t)) in args.into_iter().enumerate() {
                let target = match sig {
                    Some(s) => s[i],
                    None => {
                        if t == Type::UNKNOWN {
                            Type::TEXT
                        } else {
                            t
                        }
                    }
                };
                out.push(
                    self.coerce(e, t, target, -1, CoercionContext::Implicit, fc.location)
                        .map_err(|e| {
                            // A regclass literal naming no relation is that error.
                            if e.code == code::UNDEFINED_TABLE {
                                e
                            } else {
                                undefined_function(&name, &types, fc.location)
                            }
                        })?,
                );
                arg_types.push(target);
            }
            if sf == SessionFn::ListeningChannels {
                return Err(PgError::feature_not_supported(
                    "pg_listening_channels() is only supported in FROM",
                ));
            }
            let ret = session_fn::result_type(sf);
            return Ok((
                Expr::Session {
                    f: sf,
                    args: out,
                    arg_types,
                },
                ret,
            ));
        }
        if let Some(ty) = literal_cast_target(&names, &args) {
            // An input error points at the literal, as PostgreSQL's does.
            let at = positional
                .as_ref()
                .unwrap_or(&fc.args)
                .first()
                .and_then(|a| a.node.as_ref())
                .map_or(fc.location, super::names::node_location);
            let (e, t) = args.pop().expect("one argument");
            let e = self.coerce(e, t, ty, -1, CoercionContext::Explicit, at)?;
            return Ok((e, ty));
        }
        let (sig, want, ret) = self
            .resolve_function(&name, &types, fc.location)
            .map_err(|e| {
                // The message names the function as written, schema included.
                if names.len() > 1 && e.code == code::UNDEFINED_FUNCTION {
                    undefined_function(&names.join("."), &types, fc.location)
                } else {
                    e
                }
            })?;
        let mut out = Vec::new();
        for ((e, t), w) in args.into_iter().zip(want) {
            out.push(self.coerce(e, t, w, -1, CoercionContext::Implicit, fc.location)?);
        }
        if !func::is_volatile(&name) && out.iter().all(Expr::is_const) {
            let vals: Vec<Value> = out
                .iter()
                .map(|e| match e {
                    Expr::Const(v) => v.clone(),
                    _ => unreachable!(),
                })
                .collect();
            if sig.strict && vals.iter().any(Value::is_null) {
                return Ok((Expr::Const(Value::Null), ret));
            }
            if let Some(v) = self.fold((sig.f)(&vals, self.fmt))? {
                return Ok((Expr::Const(v), ret));
            }
        }
        Ok((
            Expr::Func {
                f: sig.f,
                args: out,
                strict: sig.strict,
            },
            ret,
        ))
    }
}

/// The type a call `typename('literal')` casts to: PostgreSQL's func_get_detail makes a
/// one-argument call named after a type, of an untyped literal, a cast (no function takes
/// `unknown` exactly, so this comes before any other candidate). Pseudo-types are not cast to.
fn literal_cast_target(names: &[String], args: &[(Expr, Type)]) -> Option<Type> {
    let [(Expr::Const(_), Type::UNKNOWN)] = args else {
        return None;
    };
    let name = match names {
        [n] => n,
        [s, n] if s == "pg_catalog" => n,
        _ => return None,
    };
    // Only a type's own name (pg_type.typname): `int('1')` is not a cast in PostgreSQL.
    let ty = Type::from_name(name).filter(|t| t.typname() == *name)?;
    let pseudo =
        ty.is_polymorphic() || matches!(ty, Type::ANY | Type::VOID | Type::RECORD | Type::UNKNOWN);
    (!pseudo).then_some(ty)
}

/// Arguments in positional order for a call with named arguments (`make_interval(days =>
/// 10)`), omitted ones taking their defaults; None when all are positional.
fn positional_args(
    name: &str,
    args: &[protobuf::Node],
    location: i32,
) -> PgResult<Option<Vec<protobuf::Node>>> {
    if !args
        .iter()
        .any(|a| matches!(a.node, Some(N::NamedArgExpr(_))))
    {
        return Ok(None);
    }
    // Parameter names; every default is 0.
    let params: &[&str] = match name {
        "make_interval" => &["years", "months", "weeks", "days", "hours", "mins", "secs"],
        _ => &[],
    };
    let zero = || protobuf::Node {
        node: Some(N::AConst(protobuf::AConst {
            isnull: false,
            val: Some(protobuf::a_const::Val::Ival(protobuf::Integer { ival: 0 })),
            location: -1,
        })),
    };
    let mut out: Vec<Option<protobuf::Node>> = Vec::new();
    for (i, a) in args.iter().enumerate() {
        let (pos, node) = match &a.node {
            Some(N::NamedArgExpr(na)) => {
                let pos = params.iter().position(|p| *p == na.name).ok_or_else(|| {
                    PgError::new(
                        code::UNDEFINED_FUNCTION,
                        format!("function {name} does not exist"),
                    )
                    .with_hint("No function matches the given name and argument types. You might need to add explicit type casts.")
                    .at(loc(location))
                })?;
                let arg = na.arg.as_ref().map(|b| (**b).clone()).unwrap_or_else(zero);
                (pos, arg)
            }
            _ => (i, a.clone()),
        };
        if out.len() <= pos {
            out.resize(pos + 1, None);
        }
        out[pos] = Some(node);
    }
    Ok(Some(
        out.into_iter().map(|n| n.unwrap_or_else(zero)).collect(),
    ))
}

/// The typed form of json_build_object / json_build_array (json, jsonb) by name, and its
/// result type.
fn json_build_fn(name: &str) -> Option<(func::ScalarFn, Type)> {
    Some(match name {
        "json_build_object" => (func::f_json_build_typed::<false, true>, Type::JSON),
        "jsonb_build_object" => (func::f_json_build_typed::<true, true>, Type::JSONB),
        "json_build_array" => (func::f_json_build_typed::<false, false>, Type::JSON),
        "jsonb_build_array" => (func::f_json_build_typed::<true, false>, Type::JSONB),
        _ => return None,
    })
}

/// A json[b]_build_* call with its arguments' types, which the values alone do not tell
/// (json and jsonb are text values; a whole row is converted to a JSON object first). Never
/// folded over constants: PostgreSQL's are stable and meet their errors when they run.
fn json_build_call(
    (f, result): (func::ScalarFn, Type),
    args: Vec<(Expr, Type)>,
    rows: Vec<Option<super::whole_row::WholeRow>>,
) -> (Expr, Type) {
    let types = type_oids(&args, &rows);
    let mut exprs = Vec::with_capacity(args.len() + 1);
    for ((e, _), row) in args.into_iter().zip(rows) {
        exprs.push(match row {
            Some(row) => row.json(result == Type::JSONB),
            None => e,
        });
    }
    exprs.push(types);
    (
        Expr::Func {
            f,
            args: exprs,
            strict: false,
        },
        result,
    )
}

/// The arguments' types as the constant OID array the typed json build functions take last
/// (a whole row's as json).
fn type_oids(args: &[(Expr, Type)], rows: &[Option<super::whole_row::WholeRow>]) -> Expr {
    let oid = |i: usize, t: Type| match rows.get(i) {
        Some(Some(_)) => Value::Oid(Type::JSON.0),
        _ => Value::Oid(t.0),
    };
    Expr::Const(Value::Array(Box::new(crate::sql::types::Array::one_dim(
        Type::OID,
        args.iter()
            .enumerate()
            .map(|(i, (_, t))| oid(i, *t))
            .collect(),
    ))))
}

/// The FROM item name of a whole-row argument (a one-name column reference) and where it is.
fn whole_row_name(arg: &protobuf::Node) -> (String, i32) {
    match &arg.node {
        Some(N::ColumnRef(cr)) => (names_of(&cr.fields).pop().unwrap_or_default(), cr.location),
        _ => (String::new(), -1),
    }
}
