//! Calls of user-defined functions. A PL/pgSQL function goes to the session
//! (`SessionCtx::call_procedural`, which runs `sql::pl`). A SQL function: the body's statements run in order with the call's
//! arguments as their parameters, inside the calling statement (its transaction, snapshot
//! rules and session), as PostgreSQL's functions.c runs a non-inlined SQL function.
//!
//! A function that calls itself is planned once per level of its own planning
//! (`plan/user_func.rs`), so the recursion is bounded where the planner stops it; at run time
//! every level checks the stack (54001) as any expression does.

use super::eval::EvalCx;
use crate::error::PgResult;
use crate::sql::plan::{UserBody, UserCall};
use crate::sql::types::Value;

/// Runs `call`'s body (NULL for a function returning void) with the evaluated `args`; the caller has applied STRICT.
pub(super) fn call(call: &UserCall, args: &[Value], cx: &mut EvalCx) -> PgResult<Value> {
    crate::stack::check()?;
    let body = match &call.body {
        UserBody::Sql(b) => b,
        // PL/pgSQL plans and runs its statements through the session (`sql::pl`).
        UserBody::PlPgSql(f) => return cx.session.call_procedural(f, args),
    };
    let mut inner = EvalCx {
        params: args,
        outer: Vec::new(),
        session: &mut *cx.session,
    };
    let n = body.stmts.len();
    let mut result = Value::Null;
    for (i, plan) in body.stmts.iter().enumerate() {
        let context = || format!("SQL function \"{}\" statement {}", call.name, i + 1);
        let mut exec = super::open(plan);
        if i + 1 == n && !body.returns_void {
            // The first row gives the result; the statement still runs to its end (a
            // data-changing one writes every row, as PostgreSQL runs it to completion).
            let first = exec
                .next_row(&mut inner)
                .map_err(|e| e.with_context(context()))?;
            result = first
                .and_then(|r| r.into_iter().next())
                .unwrap_or(Value::Null);
        }
        while exec
            .next_row(&mut inner)
            .map_err(|e| e.with_context(context()))?
            .is_some()
        {}
        if i + 1 < n && body.writes[i] {
            // What it wrote is seen by the statements after it.
            inner.session.next_command();
        }
    }
    // A SQL function returning void gives a null datum, as PostgreSQL's does.
    Ok(result)
}
