//! SQL: from statement text to something the session can run.
//!
//! ```text
//!   text ──parser──▶ PostgreSQL parse tree ──analyze──▶ Statement
//!                                                     ├─ Query(Plan)   → exec (rows)
//!                                                     └─ utility       → session (transactions,
//!                                                                          settings, LISTEN, ...)
//! ```
//!
//! [`analyze`] decides what a statement is; queries are planned by [`plan`] and run by [`exec`].
//! Utility statements only carry their arguments here: they change session state, which the
//! session owns, so the session executes them.

pub mod catalog;
pub mod context;
pub mod ddl;
pub mod engine;
pub mod exec;
pub mod func;
pub mod guc;
pub mod parser;
pub mod partition;
pub mod partition_hash;
pub mod pl;
pub mod plan;
pub mod privs;
pub mod quote;
pub mod ruleutils;
pub mod sequence;
pub mod types;

#[cfg(test)]
mod fuzz_tests;

use std::sync::Arc;

use pg_query::protobuf::{self, node::Node as N};

use crate::error::{code, PgError, PgResult};
use parser::{sval, ChannelStmt};
use plan::modify::TableCx;
use plan::{Plan, Planner};
use types::{FormatCtx, Type, Value};

pub use crate::txn::Isolation;

/// Transaction characteristics from BEGIN / SET TRANSACTION / SET SESSION CHARACTERISTICS.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TxOptions {
    pub isolation: Option<Isolation>,
    pub read_only: Option<bool>,
    pub deferrable: Option<bool>,
}

/// Output format of COPY TO.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CopyFormat {
    #[default]
    Text,
    Csv,
    Binary,
}

/// The options of COPY ... TO STDOUT, with PostgreSQL's defaults filled in.
#[derive(Debug, Clone, Default)]
pub struct CopyOptions {
    pub format: CopyFormat,
    pub header: bool,
    pub delimiter: String,
    pub null: String,
    pub quote: char,
    pub escape: char,
    /// FORCE_QUOTE: every column (`*`) or the named ones.
    pub force_quote_all: bool,
    pub force_quote: Vec<String>,
}

#[derive(Debug, Clone)]
pub enum SetValue {
    Values(Vec<String>),
    Default,
}

#[derive(Debug, Clone)]
pub enum Statement {
    Query(Arc<Plan>),
    /// BEGIN or START TRANSACTION (the flag: which one, for the command tag).
    Begin(TxOptions, bool),
    Commit {
        chain: bool,
    },
    Rollback {
        chain: bool,
    },
    Savepoint(String),
    Release(String),
    RollbackTo(String),
    PrepareTransaction,
    /// COMMIT PREPARED / ROLLBACK PREPARED 'gid' (there are never prepared transactions:
    /// max_prepared_transactions is 0).
    FinishPrepared {
        commit: bool,
        gid: String,
    },
    Set {
        name: String,
        value: SetValue,
        local: bool,
    },
    SetTransaction(TxOptions),
    SetSessionCharacteristics(TxOptions),
    Reset(String),
    ResetAll,
    Show(String),
    /// The channel is shared with the transaction's pending LISTEN/UNLISTEN actions, which
    /// would otherwise copy it at every execution.
    /// LISTEN, UNLISTEN, NOTIFY (read by the parser: `parser::ChannelStmt`).
    Channel(ChannelStmt),
    /// PREPARE: the types and the statement are analyzed when PREPARE runs, as in PostgreSQL.
    Prepare {
        name: String,
        query: Box<N>,
        types: Vec<protobuf::TypeName>,
    },
    /// EXECUTE: each argument with its type and its location in the text.
    Execute {
        name: String,
        params: Vec<(plan::Expr, Type, i32)>,
    },
    Deallocate(Option<String>),
    DiscardAll,
    Discard(&'static str),
    Declare {
        name: String,
        plan: Arc<Plan>,
        hold: bool,
    },
    Fetch {
        name: String,
        count: Option<i64>,
        is_move: bool,
    },
    ClosePortal(Option<String>),
    CreateDatabase(String),
    DropDatabase {
        name: String,
        if_exists: bool,
    },
    CopyTo {
        plan: Arc<Plan>,
        options: CopyOptions,
    },
    /// COPY t FROM STDIN: the session reads CopyData and inserts the rows.
    CopyFrom {
        target: Box<plan::modify::CopyFrom>,
        options: CopyOptions,
    },
    /// DDL over tables, run by `ddl::execute` in the session's transaction.
    Ddl(Box<ddl::Ddl>),
    /// Accepted and ignored, with its command tag (e.g. ANALYZE with nothing to analyze).
    NoOp(&'static str),
    /// CHECKPOINT: an image of the instance written to the data directory (`durable`).
    Checkpoint,
    /// SET CONSTRAINTS { ALL | name [, ...] } { DEFERRED | IMMEDIATE }: the names (schema, may
    /// be empty; name), None for ALL.
    SetConstraints {
        names: Option<Vec<(String, String)>>,
        deferred: bool,
    },
    /// CALL: the procedure's call as a query, run for its effects.
    Call(Arc<Plan>),
    /// DO: a PL/pgSQL block's code, run by `pl::run_do`.
    Do(String),
    /// A utility statement that PostgreSQL analyzes only when it runs (COPY through the
    /// extended protocol): errors in it belong to Execute, not Parse or Bind.
    Deferred(Box<N>),
}

pub use plan::returns_rows;

/// Whether PostgreSQL runs a query to its end before it sends any of its rows: INSERT /
/// UPDATE / DELETE (with RETURNING), and a query with data-modifying WITH queries (its portal
/// strategies ONE_RETURNING and ONE_MOD_WITH). Such a query that fails sends no row, and in a
/// simple Query no RowDescription either.
pub fn runs_before_output(p: &Plan) -> bool {
    matches!(
        p.node,
        plan::Node::Modify(_) | plan::Node::ModifyingCtes { .. } | plan::Node::Rules(_)
    )
}

/// The command tag of a statement that returns no rows (used for CommandComplete).
pub fn tag_of(s: &Statement) -> &'static str {
    match s {
        Statement::Query(p) => match &p.node {
            plan::Node::Modify(m) => m.verb(),
            plan::Node::Rules(r) => r.verb,
            plan::Node::Explain(_) => "EXPLAIN",
            _ => "SELECT",
        },
        Statement::Ddl(d) => d.tag(),
        Statement::Begin(_, false) => "BEGIN",
        Statement::Begin(_, true) => "START TRANSACTION",
        Statement::Commit { .. } => "COMMIT",
        Statement::Rollback { .. } | Statement::RollbackTo(_) => "ROLLBACK",
        Statement::Savepoint(_) => "SAVEPOINT",
        Statement::Release(_) => "RELEASE",
        Statement::PrepareTransaction => "PREPARE TRANSACTION",
        Statement::FinishPrepared { commit: true, .. } => "COMMIT PREPARED",
        Statement::FinishPrepared { commit: false, .. } => "ROLLBACK PREPARED",
        Statement::Set { .. }
        | Statement::SetTransaction(_)
        | Statement::SetSessionCharacteristics(_) => "SET",
        Statement::Reset(_) | Statement::ResetAll => "RESET",
        Statement::Show(_) => "SHOW",
        Statement::Channel(ChannelStmt::Listen(_)) => "LISTEN",
        Statement::Channel(ChannelStmt::Unlisten(_)) => "UNLISTEN",
        Statement::Channel(ChannelStmt::Notify { .. }) => "NOTIFY",
        Statement::Prepare { .. } => "PREPARE",
        Statement::Execute { .. } => "EXECUTE",
        Statement::Deallocate(Some(_)) => "DEALLOCATE",
        Statement::Deallocate(None) => "DEALLOCATE ALL",
        Statement::DiscardAll => "DISCARD ALL",
        Statement::Discard(t) => t,
        Statement::Declare { .. } => "DECLARE CURSOR",
        Statement::Fetch { is_move: false, .. } => "FETCH",
        Statement::Fetch { is_move: true, .. } => "MOVE",
        Statement::ClosePortal(Some(_)) => "CLOSE CURSOR",
        Statement::ClosePortal(None) => "CLOSE CURSOR ALL",
        Statement::CreateDatabase(_) => "CREATE DATABASE",
        Statement::DropDatabase { .. } => "DROP DATABASE",
        Statement::CopyTo { .. } | Statement::CopyFrom { .. } => "COPY",
        Statement::NoOp(t) => t,
        Statement::Checkpoint => "CHECKPOINT",
        Statement::SetConstraints { .. } => "SET CONSTRAINTS",
        Statement::Do(_) => "DO",
        Statement::Call(_) => "CALL",
        Statement::Deferred(_) => "",
    }
}

/// The text of an `INTERVAL '...'` constant.
fn interval_literal(n: &protobuf::Node) -> Option<String> {
    let N::TypeCast(tc) = n.node.as_ref()? else {
        return None;
    };
    let last = tc.type_name.as_ref()?.names.last()?;
    match last.node.as_ref()? {
        N::String(s) if s.sval == "interval" => tc.arg.as_ref().and_then(|a| sval(a)),
        _ => None,
    }
}

fn def_elem_value(d: &protobuf::DefElem) -> Option<String> {
    d.arg.as_ref().and_then(|a| sval(a))
}

fn tx_options(options: &[protobuf::Node]) -> TxOptions {
    let mut o = TxOptions::default();
    for opt in options {
        let Some(N::DefElem(d)) = &opt.node else {
            continue;
        };
        let v = def_elem_value(d).unwrap_or_default();
        match d.defname.as_str() {
            "transaction_isolation" => o.isolation = Isolation::parse(&v),
            "transaction_read_only" => o.read_only = Some(v == "1" || v == "on" || v == "true"),
            "transaction_deferrable" => o.deferrable = Some(v == "1" || v == "on" || v == "true"),
            _ => {}
        }
    }
    o
}

/// Which protocol path a statement arrives by; it decides when planning errors surface.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Simple Query: no parameters; a constant expression that fails fails now, before any
    /// RowDescription (PostgreSQL plans right after parsing).
    Simple,
    /// Parse or SQL PREPARE: parameters allowed; PostgreSQL plans at Bind/EXECUTE, so
    /// constant-folding errors are returned separately, to be raised there.
    Extended,
}

/// An analyzed statement and, for [`Mode::Extended`], the error its planning will raise.
#[derive(Debug)]
pub struct Analyzed {
    pub stmt: Statement,
    pub deferred: Option<PgError>,
}

fn planner<'a>(
    params: &'a mut Vec<Type>,
    fmt: &'a FormatCtx,
    mode: Mode,
    tables: Option<&TableCx<'a>>,
) -> Planner<'a> {
    let mut p = Planner::new(params, fmt);
    p.tables = tables.cloned();
    p.allow_params = mode == Mode::Extended;
    p.defer_fold_errors = mode == Mode::Extended;
    p
}

/// Decides what a parsed statement is and plans it if it is a query. `params` holds the
/// parameter types the client declared (UNKNOWN for OID 0); the planner fills in the rest.
pub fn analyze(
    node: &N,
    params: &mut Vec<Type>,
    fmt: &FormatCtx,
    mode: Mode,
) -> PgResult<Analyzed> {
    analyze_in(node, params, fmt, mode, None)
}

/// [`analyze`] with the catalog, so that table names resolve.
pub fn analyze_in(
    node: &N,
    params: &mut Vec<Type>,
    fmt: &FormatCtx,
    mode: Mode,
    tables: Option<&TableCx<'_>>,
) -> PgResult<Analyzed> {
    let mut deferred = None;
    let stmt = analyze_inner(node, params, fmt, mode, &mut deferred, tables)?;
    Ok(Analyzed { stmt, deferred })
}

fn analyze_inner(
    node: &N,
    params: &mut Vec<Type>,
    fmt: &FormatCtx,
    mode: Mode,
    deferred: &mut Option<PgError>,
    tables: Option<&TableCx<'_>>,
) -> PgResult<Statement> {
    use protobuf::TransactionStmtKind as T;
    if let Some(d) = ddl::analyze(node) {
        return Ok(Statement::Ddl(Box::new(d?)));
    }
    Ok(match node {
        N::InsertStmt(_) | N::UpdateStmt(_) | N::DeleteStmt(_) => {
            let mut planner = planner(params, fmt, mode, tables);
            let plan = planner.plan_dml(node)?;
            planner.finish_params()?;
            *deferred = planner.deferred.take();
            Statement::Query(Arc::new(plan))
        }
        N::SelectStmt(s) if ddl::create_as::is_select_into(s) => {
            let mut planner = planner(params, fmt, mode, tables);
            planner.allow_params = false;
            let c = ddl::create_as::analyze_select_into(s, &mut planner)?;
            planner.finish_params()?;
            *deferred = planner.deferred.take();
            Statement::Ddl(Box::new(ddl::Ddl::CreateTableAs(Box::new(c))))
        }
        N::CreateTableAsStmt(c) => {
            let mut planner = planner(params, fmt, mode, tables);
            // The query runs when the statement does, with no parameters.
            planner.allow_params = false;
            let c = ddl::create_as::analyze(c, &mut planner)?;
            planner.finish_params()?;
            *deferred = planner.deferred.take();
            Statement::Ddl(Box::new(ddl::Ddl::CreateTableAs(Box::new(c))))
        }
        N::SelectStmt(_) => {
            let mut planner = planner(params, fmt, mode, tables);
            let plan = planner.plan_query(node)?;
            planner.finish_params()?;
            *deferred = planner.deferred.take();
            Statement::Query(Arc::new(plan))
        }
        N::ExplainStmt(e) => {
            let inner = e
                .query
                .as_ref()
                .and_then(|q| q.node.as_ref())
                .ok_or_else(|| PgError::syntax("EXPLAIN without a statement"))?;
            // PostgreSQL checks the options when the statement runs: in the extended protocol
            // after Describe has answered.
            let (opts, error) = match plan::explain::options(&e.options) {
                Ok(o) => (o, None),
                Err(err) if mode == Mode::Extended => {
                    ([false, false, false, false, false], Some(err))
                }
                Err(err) => return Err(err),
            };
            let [analyze, verbose, costs, timing, summary] = opts;
            let planning_started = std::time::Instant::now();
            let mut planner = planner(params, fmt, mode, tables);
            let plan = match inner {
                N::SelectStmt(_) => {
                    // Without ANALYZE nothing runs: an unpopulated materialized view may be
                    // read, as PostgreSQL's EXPLAIN-only executor start allows.
                    planner.scan_unpopulated = !analyze;
                    planner.plan_query(inner)?
                }
                N::InsertStmt(i) => planner.plan_insert(i)?,
                N::UpdateStmt(u) => planner.plan_update(u)?,
                N::DeleteStmt(d) => planner.plan_delete(d)?,
                // EXPLAIN of CREATE TABLE AS / MATERIALIZED VIEW shows its query's plan; nothing
                // runs, so an unpopulated materialized view may be read.
                N::CreateTableAsStmt(c) if !analyze => {
                    let q = c
                        .query
                        .as_ref()
                        .and_then(|q| q.node.as_ref())
                        .ok_or_else(|| PgError::syntax("CREATE TABLE AS without a query"))?;
                    planner.scan_unpopulated = true;
                    planner.plan_query(q)?
                }
                _ => {
                    return Err(PgError::feature_not_supported(
                        "EXPLAIN of this statement is not supported yet",
                    ))
                }
            };
            planner.finish_params()?;
            *deferred = planner.deferred.take();
            let planning = planning_started.elapsed();
            Statement::Query(Arc::new(Plan {
                columns: vec![plan::Column {
                    name: "QUERY PLAN".into(),
                    ty: Type::TEXT,
                    typmod: -1,
                    origin: None,
                }],
                node: plan::Node::Explain(Box::new(plan::explain::Explain {
                    plan,
                    analyze,
                    verbose,
                    costs,
                    timing,
                    summary,
                    planning,
                    error,
                })),
            }))
        }
        N::TransactionStmt(t) => match t.kind {
            x if x == T::TransStmtBegin as i32 || x == T::TransStmtStart as i32 => {
                Statement::Begin(tx_options(&t.options), x == T::TransStmtStart as i32)
            }
            x if x == T::TransStmtCommit as i32 => Statement::Commit { chain: t.chain },
            x if x == T::TransStmtRollback as i32 => Statement::Rollback { chain: t.chain },
            x if x == T::TransStmtSavepoint as i32 => {
                Statement::Savepoint(t.savepoint_name.clone())
            }
            x if x == T::TransStmtRelease as i32 => Statement::Release(t.savepoint_name.clone()),
            x if x == T::TransStmtRollbackTo as i32 => {
                Statement::RollbackTo(t.savepoint_name.clone())
            }
            x if x == T::TransStmtPrepare as i32 => Statement::PrepareTransaction,
            x if x == T::TransStmtCommitPrepared as i32
                || x == T::TransStmtRollbackPrepared as i32 =>
            {
                Statement::FinishPrepared {
                    commit: x == T::TransStmtCommitPrepared as i32,
                    gid: t.gid.clone(),
                }
            }
            _ => {
                return Err(PgError::new(
                    code::OBJECT_NOT_IN_PREREQUISITE_STATE,
                    "prepared transactions are disabled",
                )
                .with_hint("Set max_prepared_transactions to a nonzero value."))
            }
        },
        N::VariableSetStmt(v) => {
            use protobuf::VariableSetKind as K;
            let name = v.name.to_ascii_lowercase();
            match v.kind {
                x if x == K::VarSetValue as i32 => {
                    let values: Vec<String> = v
                        .args
                        .iter()
                        .filter_map(|a| match interval_literal(a) {
                            // The setting sees the type: SET TIME ZONE INTERVAL '+02:00'.
                            Some(text) => Some(format!("INTERVAL '{text}'")),
                            None => sval(a),
                        })
                        .collect();
                    // A list setting (GUC_LIST_QUOTE: search_path) takes each SET argument as
                    // one name, quoted where it needs it: SET search_path = 'a,b' is "a,b".
                    let values = if name == "search_path" {
                        values.iter().map(|v| quote::quote_ident(v)).collect()
                    } else {
                        values
                    };
                    Statement::Set {
                        name,
                        value: SetValue::Values(values),
                        local: v.is_local,
                    }
                }
                x if x == K::VarSetDefault as i32 => Statement::Set {
                    name,
                    value: SetValue::Default,
                    local: v.is_local,
                },
                x if x == K::VarSetMulti as i32 => {
                    let opts = tx_options(&v.args);
                    match name.as_str() {
                        "transaction" => Statement::SetTransaction(opts),
                        "session characteristics" => Statement::SetSessionCharacteristics(opts),
                        _ => {
                            return Err(PgError::feature_not_supported(format!(
                                "SET {name} is not supported"
                            )))
                        }
                    }
                }
                x if x == K::VarReset as i32 => Statement::Reset(name),
                x if x == K::VarResetAll as i32 => Statement::ResetAll,
                _ => {
                    return Err(PgError::feature_not_supported(
                        "SET FROM CURRENT is not supported",
                    ))
                }
            }
        }
        N::VariableShowStmt(s) => Statement::Show(s.name.to_ascii_lowercase()),
        N::CallStmt(c) => {
            let mut planner = planner(params, fmt, mode, tables);
            let plan = planner.plan_call(c)?;
            planner.finish_params()?;
            *deferred = planner.deferred.take();
            Statement::Call(Arc::new(plan))
        }
        N::DoStmt(d) => {
            let mut code = None;
            let mut language = "plpgsql".to_string();
            for a in &d.args {
                if let Some(N::DefElem(e)) = &a.node {
                    match e.defname.as_str() {
                        "as" => code = def_elem_value(e),
                        "language" => language = def_elem_value(e).unwrap_or_default(),
                        _ => {}
                    }
                }
            }
            let code = code.ok_or_else(|| PgError::syntax("no inline code specified"))?;
            if language != "plpgsql" {
                return Err(PgError::new(
                    code::UNDEFINED_OBJECT,
                    format!("language \"{language}\" does not exist"),
                ));
            }
            Statement::Do(code)
        }
        N::ListenStmt(_) | N::UnlistenStmt(_) | N::NotifyStmt(_) => {
            Statement::Channel(ChannelStmt::of(node).expect("a channel statement"))
        }
        N::PrepareStmt(p) => {
            let types = p
                .argtypes
                .iter()
                .filter_map(|a| match &a.node {
                    Some(N::TypeName(tn)) => Some(tn.clone()),
                    _ => None,
                })
                .collect();
            let query = p
                .query
                .as_ref()
                .and_then(|q| q.node.clone())
                .ok_or_else(|| PgError::syntax("PREPARE without a statement"))?;
            Statement::Prepare {
                name: p.name.clone(),
                query: Box::new(query),
                types,
            }
        }
        N::ExecuteStmt(e) => {
            let mut exprs = Vec::new();
            let mut no_params = Vec::new();
            for p in &e.params {
                let Some(n) = p.node.as_ref() else { continue };
                let mut planner = planner(&mut no_params, fmt, Mode::Simple, tables);
                let select = parser::select_of(n);
                let plan = planner.plan_select(&select)?;
                let ty = plan.columns[0].ty;
                let expr = match plan.node {
                    plan::Node::Project { exprs, .. } => exprs.into_iter().next(),
                    _ => None,
                }
                .unwrap_or(plan::Expr::Const(Value::Null));
                exprs.push((expr, ty, plan::node_location(n)));
            }
            Statement::Execute {
                name: e.name.clone(),
                params: exprs,
            }
        }
        N::DeallocateStmt(d) => Statement::Deallocate(if d.isall || d.name.is_empty() {
            None
        } else {
            Some(d.name.clone())
        }),
        N::DiscardStmt(d) => {
            use protobuf::DiscardMode as D;
            match d.target {
                x if x == D::DiscardAll as i32 => Statement::DiscardAll,
                x if x == D::DiscardPlans as i32 => Statement::Discard("DISCARD PLANS"),
                x if x == D::DiscardSequences as i32 => Statement::Discard("DISCARD SEQUENCES"),
                _ => Statement::Discard("DISCARD TEMP"),
            }
        }
        N::DeclareCursorStmt(d) => {
            let q = d
                .query
                .as_ref()
                .and_then(|q| q.node.as_ref())
                .ok_or_else(|| PgError::syntax("DECLARE without a query"))?;
            let mut planner = planner(params, fmt, mode, tables);
            let plan = planner.plan_query(q)?;
            if plan::has_modifying_ctes(&plan) {
                return Err(PgError::feature_not_supported(
                    "DECLARE CURSOR must not contain data-modifying statements in WITH",
                ));
            }
            planner.finish_params()?;
            *deferred = planner.deferred.take();
            // CURSOR_OPT_HOLD = 0x20
            Statement::Declare {
                name: d.portalname.clone(),
                plan: Arc::new(plan),
                hold: d.options & 0x20 != 0,
            }
        }
        N::FetchStmt(f) => {
            use protobuf::FetchDirection as F;
            let count = if f.how_many == i64::MAX {
                None
            } else {
                Some(f.how_many)
            };
            if f.direction != F::FetchForward as i32 {
                return Err(PgError::feature_not_supported(
                    "only FETCH FORWARD is supported",
                ));
            }
            Statement::Fetch {
                name: f.portalname.clone(),
                count,
                is_move: f.ismove,
            }
        }
        N::ClosePortalStmt(c) => Statement::ClosePortal(if c.portalname.is_empty() {
            None
        } else {
            Some(c.portalname.clone())
        }),
        N::CreatedbStmt(c) => Statement::CreateDatabase(c.dbname.clone()),
        N::DropdbStmt(d) => Statement::DropDatabase {
            name: d.dbname.clone(),
            if_exists: d.missing_ok,
        },
        N::CopyStmt(_) if mode == Mode::Extended => Statement::Deferred(Box::new(node.clone())),
        N::CopyStmt(c) => analyze_copy(c, params, fmt, mode, tables)?,
        N::VacuumStmt(v) if v.rels.is_empty() => {
            Statement::NoOp(if v.is_vacuumcmd { "VACUUM" } else { "ANALYZE" })
        }
        N::CheckPointStmt(_) => Statement::Checkpoint,
        N::ConstraintsSetStmt(c) => Statement::SetConstraints {
            names: (!c.constraints.is_empty()).then(|| {
                c.constraints
                    .iter()
                    .filter_map(|n| match n.node.as_ref() {
                        Some(N::RangeVar(r)) => Some((r.schemaname.clone(), r.relname.clone())),
                        _ => None,
                    })
                    .collect()
            }),
            deferred: c.deferred,
        },
        other => {
            return Err(PgError::feature_not_supported(format!(
                "{} is not supported yet",
                plan::node_name(other)
            )))
        }
    })
}

/// Resolves PREPARE's parameter type names (with the planner's type-name rules).
pub fn resolve_type_names(
    names: &[protobuf::TypeName],
    tables: Option<TableCx<'_>>,
) -> PgResult<Vec<Type>> {
    let mut no_params = Vec::new();
    let fmt = FormatCtx::default();
    let mut planner = Planner::new(&mut no_params, &fmt);
    planner.tables = tables;
    names
        .iter()
        .map(|tn| planner.resolve_type_name(tn).map(|(t, _)| t))
        .collect()
}

fn analyze_copy(
    c: &protobuf::CopyStmt,
    params: &mut Vec<Type>,
    fmt: &FormatCtx,
    mode: Mode,
    tables: Option<&TableCx<'_>>,
) -> PgResult<Statement> {
    if !c.filename.is_empty() || c.is_program {
        return Err(PgError::new(
            code::INSUFFICIENT_PRIVILEGE,
            "COPY to or from a file or program is not supported; use COPY TO STDOUT or FROM STDIN",
        ));
    }
    if let Some(rv) = &c.relation {
        // A materialized view is copied neither to (its rows come from its query) nor from
        // (PostgreSQL's BeginCopyTo asks for the query form).
        let matview = tables
            .and_then(|t| t.find(&rv.schemaname, &rv.relname))
            .is_some_and(|r| r.kind == crate::catalog::RelKind::MatView);
        if matview && c.is_from {
            return Err(PgError::new(
                code::WRONG_OBJECT_TYPE,
                format!("cannot copy to materialized view \"{}\"", rv.relname),
            ));
        }
        if matview {
            return Err(PgError::new(
                code::WRONG_OBJECT_TYPE,
                format!("cannot copy from materialized view \"{}\"", rv.relname),
            )
            .with_hint("Try the COPY (SELECT ...) TO variant."));
        }
        let mut planner = planner(params, fmt, mode, tables);
        if c.is_from {
            let target = planner
                .plan_copy_from(rv, &c.attlist)
                .map_err(no_position)?;
            let options = copy_options(c)?;
            return Ok(Statement::CopyFrom {
                target: Box::new(target),
                options,
            });
        }
        // COPY t [(cols)] TO STDOUT is COPY (SELECT cols FROM t) TO STDOUT.
        let star = || protobuf::Node {
            node: Some(N::ColumnRef(protobuf::ColumnRef {
                fields: vec![protobuf::Node {
                    node: Some(N::AStar(protobuf::AStar {})),
                }],
                location: -1,
            })),
        };
        // PostgreSQL 15 copies no generated column out: left out of COPY t, refused by name.
        let rel = tables.and_then(|t| t.find(&rv.schemaname, &rv.relname));
        if let Some(r) = &rel {
            for a in &c.attlist {
                if let Some(N::String(name)) = a.node.as_ref() {
                    if r.live_columns()
                        .any(|(_, col)| col.generated && col.name == name.sval)
                    {
                        return Err(plan::modify::generated_in_copy(&name.sval));
                    }
                }
            }
        }
        let plain_columns = rel
            .as_ref()
            .filter(|r| r.columns.iter().any(|c| c.generated));
        let target_list: Vec<protobuf::Node> =
            if let (true, Some(r)) = (c.attlist.is_empty(), plain_columns) {
                r.live_columns()
                    .filter(|(_, col)| !col.generated)
                    .map(|(_, col)| protobuf::Node {
                        node: Some(N::ColumnRef(protobuf::ColumnRef {
                            fields: vec![protobuf::Node {
                                node: Some(N::String(protobuf::String {
                                    sval: col.name.clone(),
                                })),
                            }],
                            location: -1,
                        })),
                    })
                    .collect()
            } else if c.attlist.is_empty() {
                vec![star()]
            } else {
                c.attlist
                    .iter()
                    .cloned()
                    .map(|a| protobuf::Node {
                        node: Some(N::ColumnRef(protobuf::ColumnRef {
                            fields: vec![a],
                            location: -1,
                        })),
                    })
                    .collect()
            };
        let select = protobuf::SelectStmt {
            target_list: target_list
                .into_iter()
                .map(|v| protobuf::Node {
                    node: Some(N::ResTarget(Box::new(protobuf::ResTarget {
                        val: Some(Box::new(v)),
                        location: -1,
                        ..Default::default()
                    }))),
                })
                .collect(),
            from_clause: vec![protobuf::Node {
                node: Some(N::RangeVar(rv.clone())),
            }],
            limit_option: protobuf::LimitOption::Default as i32,
            op: protobuf::SetOperation::SetopNone as i32,
            ..Default::default()
        };
        let plan = planner.plan_select(&select).map_err(no_position)?;
        planner.finish_params()?;
        return Ok(Statement::CopyTo {
            plan: Arc::new(plan),
            options: copy_options(c)?,
        });
    }
    if c.is_from {
        return Err(PgError::feature_not_supported("COPY FROM needs a table"));
    }
    let q = c
        .query
        .as_ref()
        .and_then(|q| q.node.as_ref())
        .ok_or_else(|| PgError::syntax("COPY without a query"))?;
    let mut planner = planner(params, fmt, mode, tables);
    let plan = planner.plan_query(q)?;
    planner.finish_params()?;
    Ok(Statement::CopyTo {
        plan: Arc::new(plan),
        options: copy_options(c)?,
    })
}

/// PostgreSQL reports COPY's missing table without a position.
fn no_position(mut e: PgError) -> PgError {
    if e.code == code::UNDEFINED_TABLE {
        e.position = None;
    }
    e
}

/// The options of COPY, with PostgreSQL's defaults filled in.
fn copy_options(c: &protobuf::CopyStmt) -> PgResult<CopyOptions> {
    let mut o = CopyOptions::default();
    let mut delimiter = None;
    let mut null = None;
    let mut quote = None;
    let mut escape = None;
    let at = |d: &protobuf::DefElem| (d.location >= 0).then_some(d.location as u32 + 1);
    for opt in &c.options {
        let Some(N::DefElem(d)) = &opt.node else {
            continue;
        };
        let v = def_elem_value(d);
        match d.defname.as_str() {
            "format" => match v.as_deref().map(str::to_ascii_lowercase).as_deref() {
                Some("csv") => o.format = CopyFormat::Csv,
                Some("text") => o.format = CopyFormat::Text,
                Some("binary") => o.format = CopyFormat::Binary,
                Some(other) => {
                    return Err(PgError::new(
                        code::INVALID_PARAMETER_VALUE,
                        format!("COPY format \"{other}\" not recognized"),
                    )
                    .at(at(d)))
                }
                None => {}
            },
            "header" => {
                o.header = v
                    .as_deref()
                    .is_none_or(|v| !matches!(v, "off" | "false" | "0"))
            }
            "delimiter" => delimiter = v,
            "null" => null = v,
            "quote" => quote = v,
            "escape" => escape = v,
            "force_quote" => match d.arg.as_ref().and_then(|a| a.node.as_ref()) {
                Some(N::AStar(_)) => o.force_quote_all = true,
                Some(N::List(l)) => o.force_quote = l.items.iter().filter_map(sval).collect(),
                _ => {}
            },
            "freeze" | "encoding" | "force_not_null" | "force_null" | "default" => {}
            other => {
                return Err(PgError::syntax(format!("option \"{other}\" not recognized")).at(at(d)))
            }
        }
    }
    let csv = o.format == CopyFormat::Csv;
    o.delimiter = delimiter.unwrap_or_else(|| if csv { ",".into() } else { "\t".into() });
    o.null = null.unwrap_or_else(|| if csv { String::new() } else { "\\N".into() });
    o.quote = quote.and_then(|q| q.chars().next()).unwrap_or('"');
    o.escape = escape.and_then(|e| e.chars().next()).unwrap_or(o.quote);
    Ok(o)
}
