//! Calls of user-defined functions. A PL/pgSQL function goes to the session
//! (`SessionCtx::call_procedural`, which runs `sql::pl`). A SQL function: the body's statements run in order with the call's
//! arguments as their parameters, inside the calling statement (its transaction, snapshot
//! rules and session), as PostgreSQL's functions.c runs a non-inlined SQL function.
//!
//! A function that calls itself is planned once per level of its own planning
//! (`plan/user_func.rs`), so the recursion is bounded where the planner stops it; at run time
//! every level checks the stack (54001) as any expression does.

use super::bounds::{row_bytes, Held};
use super::eval::EvalCx;
use crate::error::{code, PgError, PgResult};
use crate::sql::plan::{UserBody, UserCall};
use crate::sql::types::{Type, Value};

/// Runs `call`'s body (NULL for a function returning void) with the evaluated `args`; the caller has applied STRICT.
pub(super) fn call(call: &UserCall, args: &[Value], cx: &mut EvalCx) -> PgResult<Value> {
    crate::stack::check()?;
    let body = match &call.body {
        UserBody::Sql(b) => b,
        // PL/pgSQL plans and runs its statements through the session (`sql::pl`).
        UserBody::PlPgSql(f) => return cx.session.call_procedural(f, args),
    };
    // A SQL-language body runs atomically: a procedure it CALLs may not end transactions.
    let inherited = cx.session.set_nonatomic(false);
    let r = run_sql_body(call, body, args, cx);
    cx.session.set_nonatomic(inherited);
    r
}

fn run_sql_body(
    call: &UserCall,
    body: &crate::sql::plan::SqlBody,
    args: &[Value],
    cx: &mut EvalCx,
) -> PgResult<Value> {
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
            // Several columns (OUT parameters) make a record.
            result = match first {
                Some(r) if r.len() > 1 => Value::Record(r),
                Some(r) => r.into_iter().next().unwrap_or(Value::Null),
                None => Value::Null,
            };
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

/// The rows of a call of a user function where a set is accepted (FROM, the select list): a
/// set-returning function's rows, materialized within `WORK_MEM` as PostgreSQL's tuplestore
/// (which spills to disk; here the bound is an error, 54000); any other function's one row.
/// `cols`: the types of the result's columns.
pub(super) fn call_rows(
    call: &UserCall,
    args: &[Value],
    cols: &[Type],
    cx: &mut EvalCx,
) -> PgResult<Vec<Vec<Value>>> {
    crate::stack::check()?;
    if !call.returns_set {
        let v = match &call.body {
            UserBody::PlPgSql(f) => cx.session.call_procedural(f, args)?,
            UserBody::Sql(_) => self::call(call, args, cx)?,
        };
        return Ok(vec![spread(v, cols.len())]);
    }
    let body = match &call.body {
        UserBody::Sql(b) => b,
        UserBody::PlPgSql(f) => return cx.session.call_procedural_set(f, args, cols),
    };
    let mut inner = EvalCx {
        params: args,
        outer: Vec::new(),
        session: &mut *cx.session,
    };
    let n = body.stmts.len();
    let mut rows = Vec::new();
    let mut held = Held::default();
    for (i, plan) in body.stmts.iter().enumerate() {
        let context = || format!("SQL function \"{}\" statement {}", call.name, i + 1);
        let mut exec = super::open(plan);
        while let Some(r) = exec
            .next_row(&mut inner)
            .map_err(|e| e.with_context(context()))?
        {
            if i + 1 == n && !body.returns_void {
                held.add(row_bytes(&r), super::WORK_MEM, SET_RESULT)?;
                rows.push(if r.len() == 1 && cols.len() > 1 {
                    spread(r.into_iter().next().unwrap_or(Value::Null), cols.len())
                } else {
                    r
                });
            }
        }
        if i + 1 < n && body.writes[i] {
            inner.session.next_command();
        }
    }
    if let Some(r) = rows.first() {
        if r.len() != cols.len() {
            return Err(PgError::new(
                code::DATATYPE_MISMATCH,
                "function return row and query-specified return row do not match",
            )
            .with_detail(format!(
                "Returned row contains {} attributes, but query expects {}.",
                r.len(),
                cols.len()
            )));
        }
    }
    Ok(rows)
}

/// What holds a set-returning function's rows, as the bound's error names it.
pub const SET_RESULT: &str = "A set-returning function's result";

/// A function's value as the columns of a row: a record's fields, or the value itself.
fn spread(v: Value, n: usize) -> Vec<Value> {
    match v {
        Value::Record(fields) if n > 1 => fields,
        Value::Null if n > 1 => vec![Value::Null; n],
        v => vec![v],
    }
}
