//! Calls of aggregates made by CREATE AGGREGATE: the candidate for the argument types (its
//! polymorphic types resolved for the call), and the transition and final functions bound as
//! ordinary calls over a row of the state and the arguments, which the executor evaluates
//! per input row (`exec/aggregate.rs`).

use std::sync::Arc;

use pg_query::protobuf::{self, node::Node as N};

use super::aggregates::Signature;
use super::func_call::undefined_function;
use super::nodes::{AggFunc, Column, Node, Plan, UserAgg};
use super::{polymorphic, Planner};
use crate::catalog::functions::{AggSpec, Function};
use crate::error::{code, PgError, PgResult};
use crate::sql::plan::Expr;
use crate::sql::types::cast::{self, CoercionContext};
use crate::sql::types::{Type, Value};

/// A function's name as the nodes of a qualified name.
fn name_nodes(names: &[String]) -> Vec<protobuf::Node> {
    names
        .iter()
        .map(|n| protobuf::Node {
            node: Some(N::String(protobuf::String { sval: n.clone() })),
        })
        .collect()
}

/// The transition function's return type is not the state's (PostgreSQL's
/// AggregateCreate).
fn wrong_transition(names: &[String], stype: Type) -> PgError {
    PgError::new(
        code::DATATYPE_MISMATCH,
        format!(
            "return type of transition function {} is not {}",
            names.join("."),
            stype.name()
        ),
    )
}

/// Whether a bound call is of a strict function.
fn strict_call(e: &Expr) -> bool {
    match e {
        Expr::Func { strict, .. } => *strict,
        Expr::UserCall(u) => u.strict,
        Expr::Bin(..) | Expr::MinMax(..) => true,
        _ => false,
    }
}

/// The built-in functions behind operators that aggregates are written with (PostgreSQL's
/// `int4pl`, `float8mul`, `int4larger`, `textcat`, ...): the operator (None for larger /
/// smaller: true for larger) and its operand type.
fn operator_function(name: &str) -> Option<(Result<&'static str, bool>, Type)> {
    if name == "textcat" {
        return Some((Ok("||"), Type::TEXT));
    }
    let types = [
        ("int2", Type::INT2),
        ("int4", Type::INT4),
        ("int8", Type::INT8),
        ("float4", Type::FLOAT4),
        ("float8", Type::FLOAT8),
        ("numeric_", Type::NUMERIC),
        ("interval_", Type::INTERVAL),
    ];
    let (prefix, ty) = types.iter().find(|(p, _)| name.starts_with(p))?;
    let op = match &name[prefix.len()..] {
        "pl" | "add" => Ok("+"),
        "mi" | "sub" => Ok("-"),
        "mul" => Ok("*"),
        "div" => Ok("/"),
        "larger" => Err(true),
        "smaller" => Err(false),
        _ => return None,
    };
    Some((op, *ty))
}

impl Planner<'_> {
    /// A call of function `names` over a row whose columns have `types` (column i is the
    /// i-th argument).
    fn bind_over_row(&mut self, names: &[String], types: &[Type]) -> PgResult<(Expr, Type)> {
        let builtin = matches!(names, [_]) || names.first().is_some_and(|s| s == "pg_catalog");
        let last = names.last().map_or("", String::as_str);
        if let (true, Some((op, ty)), &[a, b]) = (builtin, operator_function(last), types) {
            if a == ty && b == ty && self.user_functions(names).is_empty() {
                let (l, r) = (Expr::Column(0), Expr::Column(1));
                return match op {
                    Ok(op) => {
                        let f = crate::sql::types::ops::find_binary(op, ty, ty)
                            .ok_or_else(|| undefined_function(last, types, -1))?;
                        Ok((Expr::Bin(f.f, Box::new(l), Box::new(r)), f.result))
                    }
                    Err(larger) => Ok((Expr::MinMax(vec![l, r], larger), ty)),
                };
            }
        }
        let plan = Plan {
            columns: types
                .iter()
                .enumerate()
                .map(|(i, &ty)| Column {
                    name: format!("${i}"),
                    ty,
                    typmod: -1,
                    origin: None,
                })
                .collect(),
            node: Node::Result,
        };
        let scope = self.scope_of(&plan, "");
        let args = (0..types.len())
            .map(|i| protobuf::Node {
                node: Some(N::ColumnRef(protobuf::ColumnRef {
                    fields: name_nodes(&[format!("${i}")]),
                    location: -1,
                })),
            })
            .collect();
        let fc = protobuf::FuncCall {
            funcname: name_nodes(names),
            args,
            location: -1,
            ..Default::default()
        };
        // PostgreSQL names the missing function without a hint or position.
        self.bind_func(&fc, &scope, None).map_err(|mut e| {
            if e.code == code::UNDEFINED_FUNCTION {
                e = undefined_function(&names.join("."), types, -1);
                e.hint = None;
            }
            e
        })
    }

    /// The transition call (and its strictness), and the final call (and its result type)
    /// of aggregate `spec` over arguments of `args`, with the state of type `stype`.
    #[allow(clippy::type_complexity)]
    fn bind_support(
        &mut self,
        spec: &AggSpec,
        stype: Type,
        args: &[Type],
    ) -> PgResult<((Expr, bool), Option<(Expr, bool)>, Type)> {
        let mut trans_types = vec![stype];
        trans_types.extend_from_slice(args);
        let (trans, t) = self.bind_over_row(&spec.sfunc, &trans_types)?;
        if t != stype {
            return Err(wrong_transition(&spec.sfunc, stype));
        }
        let strict = strict_call(&trans);
        let Some(ff) = &spec.finalfunc else {
            return Ok(((trans, strict), None, stype));
        };
        let fin_types: Vec<Type> = if spec.final_extra {
            trans_types
        } else {
            vec![stype]
        };
        let (fin, ret) = self.bind_over_row(ff, &fin_types)?;
        let fs = strict_call(&fin);
        Ok(((trans, strict), Some((fin, fs)), ret))
    }

    /// CREATE AGGREGATE's check of its support functions for the declared argument types:
    /// the aggregate's result type. With polymorphic types, only that the functions exist
    /// (their types are known at a call).
    pub fn check_aggregate(&mut self, spec: &AggSpec, args: &[Type]) -> PgResult<(Type, bool)> {
        let stype = Type(spec.stype);
        if stype.is_polymorphic() || args.iter().any(|t| t.is_polymorphic()) {
            for f in std::iter::once(&spec.sfunc).chain(spec.finalfunc.as_ref()) {
                let name = f.last().cloned().unwrap_or_default();
                if self.user_functions(f).is_empty()
                    && crate::sql::func::lookup(&name).is_empty()
                    && operator_function(&name).is_none()
                {
                    return Err(undefined_function(&f.join("."), &[stype], -1));
                }
            }
            return Ok((stype, false));
        }
        let ((_, strict), _, ret) = self.bind_support(spec, stype, args)?;
        Ok((ret, strict))
    }

    /// The user aggregate among `cands` that a call with arguments of `types` runs, bound
    /// for those types.
    pub(super) fn bind_user_aggregate(
        &mut self,
        cands: &[Arc<Function>],
        types: &[Type],
        name: &str,
        location: i32,
    ) -> PgResult<(UserAgg, Signature)> {
        let mut best: Option<(&Arc<Function>, i32)> = None;
        for f in cands {
            let declared: Vec<Type> = f.def.input_types().into_iter().map(Type).collect();
            if declared.len() != types.len() {
                continue;
            }
            let mut score = 0;
            let mut ok = true;
            for (&d, &a) in declared.iter().zip(types) {
                if d == a {
                    score += 10;
                } else if a == Type::UNKNOWN {
                    score += 1;
                } else if d.is_polymorphic() {
                    ok &= polymorphic::shape_fits(d, a);
                } else if !cast::can_coerce(a, d, CoercionContext::Implicit) {
                    ok = false;
                }
            }
            if ok && best.is_none_or(|(_, s)| score > s) {
                best = Some((f, score));
            }
        }
        let Some((f, _)) = best else {
            return Err(undefined_function(name, types, location));
        };
        let spec = f
            .def
            .aggregate()
            .ok_or_else(|| PgError::internal("an aggregate without its definition"))?;
        let declared: Vec<Type> = f.def.input_types().into_iter().map(Type).collect();
        let decl_stype = Type(spec.stype);
        let (args, stype) = if declared.iter().any(|t| t.is_polymorphic()) {
            let r = polymorphic::resolve(&declared, types, decl_stype, true)?;
            let args: Vec<Type> = declared
                .iter()
                .map(|&d| r.concrete(d).unwrap_or(Type::TEXT))
                .collect();
            let stype = r.concrete(decl_stype).ok_or_else(|| {
                PgError::new(
                    code::DATATYPE_MISMATCH,
                    "could not determine actual type of the aggregate's state",
                )
            })?;
            (args, stype)
        } else {
            (declared, decl_stype)
        };
        let ((trans, strict), fin, result) = self.bind_support(&spec, stype, &args)?;
        let init = match &spec.initcond {
            Some(text) => Some(self.coerce(
                Expr::Const(Value::Text(text.clone())),
                Type::UNKNOWN,
                stype,
                -1,
                CoercionContext::Explicit,
                -1,
            )?),
            None => None,
        };
        let (fin, fin_strict) = match fin {
            Some((e, s)) => (Some(e), s),
            None => (None, false),
        };
        let u = UserAgg {
            name: name.to_string(),
            trans,
            strict,
            init,
            fin,
            fin_strict,
        };
        let sig = Signature {
            func: AggFunc::User,
            result,
            args: args.iter().map(|t| Some(*t)).collect(),
            order: None,
            arg_type: args.first().copied().unwrap_or(stype),
        };
        Ok((u, sig))
    }
}
