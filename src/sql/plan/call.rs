//! CALL (PostgreSQL's ExecuteCallStmt and the proc_call case of ParseFuncOrColumn): the
//! procedure's call, planned as the query `SELECT p(args)` that runs it, its OUT parameters
//! returned as one row (`user_srf::call_with_outputs`).
//!
//! A CALL's arguments are matched with every parameter of the procedure, its OUT ones
//! included (PostgreSQL 14's rule: `CALL p(NULL)` for `p(OUT a int)`); the arguments in OUT
//! places only choose the procedure and are not evaluated (`user_func.rs` drops them). A
//! CALL that finds no procedure fails as PostgreSQL fails it: `procedure f() does not exist`
//! when nothing of the name fits, `f() is not a procedure` when a function (built-in,
//! aggregate or user-defined) does. Both name the call by its arguments' types, as the
//! error for a procedure called with SELECT does.

use pg_query::protobuf::{self, node::Node as N};

use super::agg::aggregate_func;
use super::scope::Scope;
use super::{loc, Expr, Plan, Planner};
use crate::error::{code, PgError, PgResult};
use crate::sql::types::Type;

/// `name(t1, t2, n => t3)`: a call as PostgreSQL names it in errors (func_signature_string),
/// by the types of its arguments.
pub(super) fn call_signature(name: &str, positional: &[Type], named: &[(&str, Type)]) -> String {
    let shown: Vec<String> = positional
        .iter()
        .map(|t| t.name())
        .chain(named.iter().map(|(n, t)| format!("{n} => {}", t.name())))
        .collect();
    format!("{name}({})", shown.join(", "))
}

/// CALL of something that is a function.
pub(super) fn not_a_procedure(shown: &str, location: i32) -> PgError {
    PgError::new(
        code::WRONG_OBJECT_TYPE,
        format!("{shown} is not a procedure"),
    )
    .with_hint("To call a function, use SELECT.")
    .at(loc(location))
}

impl Planner<'_> {
    /// CALL: the procedure's call, planned as the query that runs it (a procedure is allowed
    /// at the call's place only).
    pub fn plan_call(&mut self, c: &protobuf::CallStmt) -> PgResult<Plan> {
        let (select, at) = call_as_select(c)?;
        self.call_at = Some(at);
        let plan = self.plan_query(&select)?;
        Ok(super::user_srf::call_with_outputs(plan))
    }

    /// The function call that is CALL's own: a user procedure, else PostgreSQL's error.
    pub(super) fn bind_call(
        &mut self,
        fc: &protobuf::FuncCall,
        names: &[String],
        scope: &Scope,
    ) -> PgResult<(Expr, Type)> {
        if let Some(call) = self.bind_user_call(fc, names, scope, None)? {
            return Ok(call);
        }
        // No user routine has the name: the arguments' types name the call in the error.
        let mut positional = Vec::with_capacity(fc.args.len());
        let mut named: Vec<(String, Type)> = Vec::new();
        for a in &fc.args {
            match a.node.as_ref() {
                Some(N::NamedArgExpr(na)) => {
                    let arg = na
                        .arg
                        .as_ref()
                        .and_then(|n| n.node.as_ref())
                        .ok_or_else(|| PgError::syntax("named argument without a value"))?;
                    named.push((na.name.clone(), self.bind(arg, scope, None)?.1));
                }
                Some(n) => positional.push(self.bind(n, scope, None)?.1),
                None => return Err(PgError::syntax("empty argument")),
            }
        }
        let named: Vec<(&str, Type)> = named.iter().map(|(n, t)| (n.as_str(), *t)).collect();
        Err(self.call_unmatched(&names.join("."), &positional, &named, fc))
    }

    /// The error for a CALL no user routine fits: a built-in function of the name that takes
    /// the arguments is not a procedure; else no procedure exists. (A user function that fits
    /// is refused where it is chosen, `bind_user_call`.)
    pub(super) fn call_unmatched(
        &mut self,
        name: &str,
        positional: &[Type],
        named: &[(&str, Type)],
        fc: &protobuf::FuncCall,
    ) -> PgError {
        let shown = call_signature(name, positional, named);
        let builtin = !name.contains('.')
            && named.is_empty()
            && (aggregate_func(name, fc.agg_star).is_some() || self.builtin_fits(name, positional));
        if builtin {
            return not_a_procedure(&shown, fc.location);
        }
        PgError::new(
            code::UNDEFINED_FUNCTION,
            format!("procedure {shown} does not exist"),
        )
        .with_hint(
            "No procedure matches the given name and argument types. You might need to add explicit type casts.",
        )
        .at(loc(fc.location))
    }
}

/// CALL p(args) as the query `SELECT p(args)` that runs it, and the call's location (for
/// [`Planner::call_at`]).
fn call_as_select(c: &protobuf::CallStmt) -> PgResult<(N, i32)> {
    let fc = c
        .funccall
        .as_ref()
        .ok_or_else(|| PgError::syntax("CALL without a procedure"))?;
    let target = protobuf::Node {
        node: Some(N::ResTarget(Box::new(protobuf::ResTarget {
            val: Some(Box::new(protobuf::Node {
                node: Some(N::FuncCall(fc.clone())),
            })),
            ..Default::default()
        }))),
    };
    let select = protobuf::SelectStmt {
        target_list: vec![target],
        ..Default::default()
    };
    Ok((N::SelectStmt(Box::new(select)), fc.location))
}
