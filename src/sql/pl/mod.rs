//! PL/pgSQL: DO blocks and functions written in PostgreSQL's procedural language.
//!
//! ```text
//!   body text ──compile.rs──▶ Body (statements, variables, scopes)
//!                                │  (once per session and function version, `PlCache`)
//!   call / DO ──run.rs──▶ Frame: variables as values, statements interpreted in order
//!                                │  each expression or SQL statement: planned at its first
//!                                │  run with the variables in scope as `$1` .. `$n`
//!                                ▼
//!                         Spi (the session): the catalog to plan with, locks and privileges,
//!                         sub-transactions for exception blocks
//! ```
//!
//! The grammar is PostgreSQL's own (pg_query's `parse_plpgsql`); `compile.rs` turns its JSON
//! into [`compile::Body`]. `run.rs` interprets it as PostgreSQL's pl_exec.c does: every
//! expression is a `SELECT <expr>` planned with the variables as parameters, which names reach
//! where no column of that name is in scope (columns win; PostgreSQL raises an ambiguity error
//! by default), and every SQL statement is planned the same way. A plan is kept per statement
//! for the session's later calls and planned again when the catalog changed (its epoch) or a
//! record variable it reads changed shape.
//!
//! # Where it sits
//!
//! Expressions call PL/pgSQL functions from inside the executor, which knows only
//! `SessionCtx`; the session implements `SessionCtx::call_procedural` by calling [`call`] with
//! itself as the [`Spi`]. The interpreter needs from the session what a statement needs before
//! it runs (the catalog as the statement sees it, relation locks, privilege checks) and
//! sub-transactions; [`Spi`] is that edge.
//!
//! # Invariants
//!
//! 1. A statement of the body runs as its own command: its own earlier writes are visible to
//!    it, and under READ COMMITTED it takes a new snapshot, as in a VOLATILE PostgreSQL function.
//! 2. A FOR loop over a query reads with one snapshot, taken when the loop starts; what its body
//!    writes is not seen by the loop's query.
//! 3. A block with an EXCEPTION section runs its body in a sub-transaction: an error caught by
//!    a handler undoes exactly what the body wrote (variables keep their values).
//! 4. A plan is used only with the catalog epoch, the variable types and the search_path it
//!    was planned for.
//!
//! # Transaction control
//!
//! A procedure or DO block may COMMIT and ROLLBACK when PostgreSQL's would: called by a
//! top-level CALL or DO outside a transaction block (and not one of several statements of a
//! simple Query), or by a CALL of such a procedure, and not from inside an exception block.
//! The permission travels as a flag of the session (`SessionCtx::set_nonatomic`), set only
//! while a CALL or DO dispatches and cleared by every body that starts (a frame keeps its
//! own copy), so a function, trigger or SQL-language body never sees it. Before the
//! transaction ends, the running FOR loops over queries (kept by the session,
//! [`Spi::pl_loops`], so that a COMMIT in a nested procedure reaches its callers' loops) read
//! their remaining rows with their own snapshots, as PostgreSQL turns them into holdable
//! cursors; the call's other cursors close.
//!
//! # Bounds
//!
//! A body has at most [`compile::MAX_DATUMS`] variables. A session keeps at most
//! [`MAX_CACHED_FUNCTIONS`] compiled functions; past it the cache is emptied and refilled as
//! functions run. A set-returning call's rows (`sets.rs`) and a cursor's rows (`cursor.rs`) are
//! materialized, each within [`crate::sql::exec::WORK_MEM`]: past it the call fails with 54000
//! (PostgreSQL's tuplestore would spill to disk). Recursion is bounded by the stack check (54001) at each call; a loop that
//! does not end is stopped by statement_timeout or a cancel request, checked at each iteration.

pub mod compile;
mod conditions;
mod cursor;
mod loops;
mod raise;
mod run;
mod sets;
mod trigger;

use std::collections::HashMap;
use std::sync::Arc;

use crate::catalog::functions::Function;
use crate::error::{PgError, PgResult};
use crate::sql::context::SessionCtx;
use crate::sql::plan::modify::TableCx;
use crate::sql::types::{Type, Value};

pub use loops::ForLoop;
pub use run::Needs;

/// pg_type's OID of `trigger`, the result type of a trigger function.
const TRIGGER: u32 = 2279;

/// The most compiled functions one session keeps.
pub const MAX_CACHED_FUNCTIONS: usize = 1000;

/// What the interpreter asks of the session that runs it (PostgreSQL's SPI).
pub trait Spi: SessionCtx {
    /// The catalog as the next statement sees it; what planning with it asks for (relation
    /// locks, privileges) is collected and handed over by [`Spi::take_needs`].
    fn tables(&self) -> TableCx<'_>;
    /// The locks and privileges the statement just planned needs.
    fn take_needs(&mut self) -> Needs;
    /// Takes the locks and checks the privileges of a statement about to run.
    fn acquire(&mut self, needs: &Needs) -> PgResult<()>;
    /// Starts a sub-transaction; returns its level for [`Spi::sub_end`].
    fn sub_begin(&mut self) -> PgResult<usize>;
    /// Ends the sub-transaction at `level` (and any above it): kept or undone.
    fn sub_end(&mut self, level: usize, commit: bool) -> PgResult<()>;
    /// Sets the snapshot statements read with (a FOR loop's query), returning the previous one.
    fn swap_snapshot(&mut self, snap: Option<crate::txn::Snapshot>)
        -> Option<crate::txn::Snapshot>;
    /// Sets the transition tables the statements of the function about to run read (a
    /// trigger function's; none for any other), returning the caller's.
    fn swap_transitions(
        &mut self,
        env: Vec<crate::sql::context::TransitionTable>,
    ) -> Vec<crate::sql::context::TransitionTable>;
    /// The session's cache of compiled functions.
    fn pl_cache(&mut self) -> &mut PlCache;
    /// COMMIT or ROLLBACK [AND CHAIN] in a procedure: ends the transaction (a commit waits
    /// for its flush in place) and starts the next, with the same characteristics when
    /// chained. Refused while a sub-transaction (an exception block) is open.
    fn end_transaction(&mut self, commit: bool, chain: bool) -> PgResult<()>;
    /// SET TRANSACTION in a body: the current transaction's characteristics, before its first
    /// query (25001 after it, as PostgreSQL).
    fn set_transaction(&mut self, opts: &crate::sql::TxOptions) -> PgResult<()>;
    /// Whether a sub-transaction is open (an exception block's).
    fn in_subtransaction(&self) -> bool;
    /// The FOR loops over queries running in the session's calls, innermost last (`run.rs`
    /// reads their rows to the end before a transaction ends under them).
    fn pl_loops(&mut self) -> &mut Vec<loops::ForLoop>;
    fn as_ctx(&mut self) -> &mut dyn SessionCtx;
}

/// A function compiled for a session, with its statements' plans.
pub struct Compiled {
    function: Arc<Function>,
    state: run::State,
    /// `PL/pgSQL function f(integer)`: the start of its CONTEXT lines.
    context: String,
}

/// The compiled functions of one session, by OID and input types (a polymorphic function is
/// compiled once per set of actual argument types, as PostgreSQL caches it).
#[derive(Default)]
pub struct PlCache {
    functions: HashMap<(u32, Vec<u32>), Compiled>,
}

/// Runs PL/pgSQL function `f` with `args` (its input parameters, coerced to their types).
pub fn call(spi: &mut dyn Spi, f: &Arc<Function>, args: &[Value]) -> PgResult<Value> {
    crate::stack::check()?;
    let def = &f.def;
    if def.returns == TRIGGER {
        return Err(PgError::feature_not_supported(
            "trigger functions can only be called as triggers",
        ));
    }
    if def.returns_set {
        return Err(PgError::feature_not_supported(
            "set-valued function called in context that cannot accept a set",
        ));
    }
    // PostgreSQL runs a SECURITY DEFINER procedure, or one with SET clauses, atomically.
    let may_end = def.kind == 'p' && !def.security_definer && def.config.is_empty();
    with_compiled(
        spi,
        f,
        run::State::compile_function,
        Vec::new(),
        |spi, c| {
            run::execute(
                spi,
                &mut c.state,
                args,
                Type(def.returns),
                &c.context,
                may_end,
            )
        },
    )
}

/// Runs set-returning PL/pgSQL function `f` with `args`: its rows (RETURN NEXT, RETURN
/// QUERY), each of the columns `cols`, materialized within [`crate::sql::exec::WORK_MEM`].
pub fn call_set(
    spi: &mut dyn Spi,
    f: &Arc<Function>,
    args: &[Value],
    cols: &[Type],
) -> PgResult<Vec<Vec<Value>>> {
    crate::stack::check()?;
    with_compiled(
        spi,
        f,
        run::State::compile_function,
        Vec::new(),
        |spi, c| run::execute_set(spi, &mut c.state, args, cols, &c.context),
    )
}

/// Runs trigger function `f` for one firing (`SessionCtx::call_trigger`).
pub fn call_trigger(
    spi: &mut dyn Spi,
    f: &Arc<Function>,
    call: &crate::sql::context::TriggerCall<'_>,
) -> PgResult<Option<Vec<Value>>> {
    crate::stack::check()?;
    if f.def.returns != TRIGGER || f.def.language != "plpgsql" {
        return Err(PgError::new(
            crate::error::code::OBJECT_NOT_IN_PREREQUISITE_STATE,
            format!("function {} is not a PL/pgSQL trigger function", f.def.name),
        ));
    }
    let env = call.transitions.to_vec();
    with_compiled(spi, f, run::State::compile_trigger, env, |spi, c| {
        trigger::execute_trigger(spi, &mut c.state, call, &c.context)
    })
}

/// Runs `body` with the session's compiled copy of `f` (compiled by `compile` unless the
/// function changed since, or is running already: a recursive call compiles its own), and
/// keeps the copy for the next call.
fn with_compiled<T>(
    spi: &mut dyn Spi,
    f: &Arc<Function>,
    compile: fn(&crate::catalog::functions::FunctionDef) -> PgResult<run::State>,
    env: Vec<crate::sql::context::TransitionTable>,
    body: impl FnOnce(&mut dyn Spi, &mut Compiled) -> PgResult<T>,
) -> PgResult<T> {
    let def = &f.def;
    let key = (f.oid, def.input_types());
    // The same catalog version of the function (an instance: of the same declaration).
    let same = |c: &Compiled| match (&c.function.generic, &f.generic) {
        (Some(a), Some(b)) => Arc::ptr_eq(a, b) && c.function.def == f.def,
        _ => Arc::ptr_eq(&c.function, f),
    };
    let cached = spi.pl_cache().functions.remove(&key).filter(same);
    let mut compiled = match cached {
        Some(c) => c,
        None => Compiled {
            function: f.clone(),
            state: compile(def)?,
            // PostgreSQL names the function with its declared types.
            context: format!(
                "PL/pgSQL function {}({})",
                def.name,
                f.declared()
                    .def
                    .args
                    .iter()
                    .filter(|a| a.is_input())
                    .map(|a| crate::sql::types::cast::format_type_with_typmod(Type(a.type_oid), -1))
                    .collect::<Vec<_>>()
                    .join(",")
            ),
        },
    };
    // The body's statements read the transition tables its call was given, and only those
    // (a function called from a trigger function sees none).
    let outer = spi.swap_transitions(env);
    let result = body(spi, &mut compiled);
    spi.swap_transitions(outer);
    let cache = spi.pl_cache();
    if cache.functions.len() >= MAX_CACHED_FUNCTIONS {
        cache.functions.clear();
    }
    cache.functions.insert(key, compiled);
    result
}

/// Runs a DO block's code.
pub fn run_do(spi: &mut dyn Spi, code: &str) -> PgResult<()> {
    let mut state = run::State::compile_do(code)?;
    run::execute(
        spi,
        &mut state,
        &[],
        Type::VOID,
        "PL/pgSQL function inline_code_block",
        true,
    )
    .map(|_| ())
}
