//! CREATE TABLE ... AS query [WITH [NO] DATA] and SELECT ... INTO new_table.
//!
//! The query is planned when the statement is analyzed (as PostgreSQL's parse analysis does);
//! execution creates the table, with the query's column names (or the names given) and types
//! (an unknown-typed output, such as a bare literal, becomes text), then inserts the query's
//! rows through the same `Modify` operator as INSERT, in the same command. The command tag is
//! `SELECT n`, as PostgreSQL's; `CREATE TABLE AS` when no query ran (WITH NO DATA, or IF NOT
//! EXISTS with the table there).
//!
//! CREATE MATERIALIZED VIEW is the same statement made a relation of kind MatView that keeps
//! its query as its definition (`matview.rs`): its rows go in through the same door.

use std::borrow::Cow;

use pg_query::protobuf::{self, node::Node as N};

use super::{already_exists, find, notice, CreateTable, NewColumn};
use crate::catalog::{MatView, Persistence};
use crate::error::{code, PgError, PgResult};
use crate::sql::context::SessionCtx;
use crate::sql::exec;
use crate::sql::exec::EvalCx;
use crate::sql::plan::modify::{Modify, ModifyKind};
use crate::sql::plan::{Node, Plan, Planner};
use crate::sql::types::Type;

/// An analyzed CREATE TABLE AS / SELECT INTO.
#[derive(Debug, Clone)]
pub struct CreateTableAs {
    pub schema: String,
    pub name: String,
    pub if_not_exists: bool,
    pub persistence: Persistence,
    pub on_commit: super::OnCommit,
    /// Column names given after the table name (at most as many as the query has columns).
    pub names: Vec<String>,
    pub query: Plan,
    /// False for WITH NO DATA: the table is created empty.
    pub with_data: bool,
    /// An error planning the query raises (a constant that does not fold): PostgreSQL plans
    /// the query of a utility statement when it runs, after the table's existence is checked.
    pub deferred: Option<PgError>,
    /// Where the table's name stands in the statement, for error positions.
    pub location: i32,
    /// CREATE MATERIALIZED VIEW: its query as written, kept as the definition REFRESH runs.
    pub matview: Option<Box<N>>,
}

impl CreateTableAs {
    /// The command tag when no rows were counted (WITH NO DATA, IF NOT EXISTS skipped).
    pub fn tag(&self) -> &'static str {
        match self.matview {
            Some(_) => "CREATE MATERIALIZED VIEW",
            None => "CREATE TABLE AS",
        }
    }
}

/// The SELECT INTO clause of a query, if it has one: on the statement, or on the leftmost
/// branch of a set operation (where the grammar puts it).
fn into_clause_mut(s: &mut protobuf::SelectStmt) -> Option<&mut Option<Box<protobuf::IntoClause>>> {
    if s.into_clause.is_some() {
        return Some(&mut s.into_clause);
    }
    match s.larg.as_deref_mut() {
        Some(l) => into_clause_mut(l),
        None => None,
    }
}

/// Whether a SELECT has an INTO clause (it is then SELECT INTO, not a query).
pub fn is_select_into(s: &protobuf::SelectStmt) -> bool {
    let mut s = s;
    loop {
        if s.into_clause.is_some() {
            return true;
        }
        match s.larg.as_deref() {
            Some(l) => s = l,
            None => return false,
        }
    }
}

/// Analyzes SELECT ... INTO: the query without its INTO clause, planned.
pub fn analyze_select_into(
    s: &protobuf::SelectStmt,
    planner: &mut Planner<'_>,
) -> PgResult<CreateTableAs> {
    let mut query = s.clone();
    let into = into_clause_mut(&mut query)
        .and_then(Option::take)
        .ok_or_else(|| PgError::internal("SELECT INTO without INTO"))?;
    planner.defer_fold_errors = true;
    let plan = planner.plan_select(&query)?;
    let mut c = from_into(&into, false, plan, true)?;
    c.deferred = planner.deferred.take();
    Ok(c)
}

/// Analyzes CREATE TABLE ... AS query.
pub fn analyze(
    c: &protobuf::CreateTableAsStmt,
    planner: &mut Planner<'_>,
) -> PgResult<CreateTableAs> {
    let matview = c.objtype == protobuf::ObjectType::ObjectMatview as i32;
    let into = c
        .into
        .as_deref()
        .ok_or_else(|| PgError::syntax("CREATE TABLE AS without a table"))?;
    if matview && into.rel.as_ref().is_some_and(|r| r.relpersistence == "u") {
        return Err(PgError::feature_not_supported(
            "materialized views cannot be unlogged",
        ));
    }
    let q = c
        .query
        .as_ref()
        .and_then(|q| q.node.as_ref())
        .ok_or_else(|| PgError::syntax("CREATE TABLE AS without a query"))?;
    let plan = match q {
        N::ExecuteStmt(_) => {
            return Err(PgError::feature_not_supported(
                "CREATE TABLE AS EXECUTE is not supported yet",
            ))
        }
        other => {
            planner.defer_fold_errors = true;
            // A materialized view made WITH NO DATA does not run its query (PostgreSQL does
            // not plan it), so what it reads may be unpopulated too.
            planner.scan_unpopulated = matview && into.skip_data;
            planner.plan_query(other)?
        }
    };
    if matview && reads_temporary(planner) {
        return Err(PgError::feature_not_supported(
            "materialized views must not use temporary tables or views",
        ));
    }
    if matview && crate::sql::plan::has_modifying_ctes(&plan) {
        return Err(PgError::feature_not_supported(
            "materialized views must not use data-modifying statements in WITH",
        ));
    }
    let mut out = from_into(into, c.if_not_exists, plan, !into.skip_data)?;
    out.deferred = planner.deferred.take();
    if matview {
        out.matview = Some(Box::new(q.clone()));
    }
    Ok(out)
}

/// Whether the query just planned read a temporary relation (PostgreSQL refuses one in a
/// materialized view when it analyzes the statement: the view would outlive it). What it read
/// is what it locked.
fn reads_temporary(planner: &Planner<'_>) -> bool {
    let Some(t) = planner.tables.as_ref() else {
        return false;
    };
    let read: Vec<u32> = t.locks.borrow().iter().map(|(o, _)| *o).collect();
    !read.is_empty()
        && t.catalog.visible(&t.snap).iter().any(|r| {
            r.persistence == crate::catalog::Persistence::Temporary && read.contains(&r.oid)
        })
}

fn from_into(
    into: &protobuf::IntoClause,
    if_not_exists: bool,
    query: Plan,
    with_data: bool,
) -> PgResult<CreateTableAs> {
    let rv = into
        .rel
        .as_ref()
        .ok_or_else(|| PgError::syntax("CREATE TABLE AS without a table"))?;
    let persistence = match rv.relpersistence.as_str() {
        "t" => Persistence::Temporary,
        "u" => Persistence::Unlogged,
        _ => Persistence::Permanent,
    };
    let names = into
        .col_names
        .iter()
        .filter_map(|n| match n.node.as_ref() {
            Some(N::String(s)) => Some(s.sval.clone()),
            _ => None,
        })
        .collect();
    Ok(CreateTableAs {
        schema: rv.schemaname.clone(),
        name: rv.relname.clone(),
        if_not_exists,
        on_commit: super::on_commit(into.on_commit),
        persistence,
        names,
        query,
        with_data,
        deferred: None,
        location: rv.location,
        matview: None,
    })
}

/// Creates the table and fills it. Returns the command tag.
pub fn execute(c: &CreateTableAs, cx: &mut dyn SessionCtx) -> PgResult<Cow<'static, str>> {
    // A read-only transaction refuses the statement by its own name, before anything else.
    cx.writer(c.tag())?;
    let temp = c.persistence == Persistence::Temporary;
    let (schema, _) = super::creation_schema_for(cx, &c.schema, c.location, temp)?;
    if find(cx, &schema, &c.name)?.is_some() {
        if c.if_not_exists {
            cx.notice(notice(
                format!("relation \"{}\" already exists, skipping", c.name),
                code::DUPLICATE_TABLE,
            ));
            return Ok(c.tag().into());
        }
        return Err(already_exists(&c.name));
    }
    // A materialized view made WITH NO DATA never runs its query: its errors wait for REFRESH.
    if let Some(e) = c
        .deferred
        .as_ref()
        .filter(|_| c.with_data || c.matview.is_none())
    {
        return Err(e.clone());
    }
    if c.names.len() > c.query.columns.len() {
        return Err(PgError::syntax("too many column names were specified"));
    }
    let columns = c
        .query
        .columns
        .iter()
        .enumerate()
        .map(|(i, col)| {
            // A literal nothing gave a type to is text, as in PostgreSQL 10 and later.
            let unknown = col.ty == Type::UNKNOWN;
            NewColumn {
                name: c.names.get(i).unwrap_or(&col.name).clone(),
                ty: if unknown { Type::TEXT } else { col.ty },
                typmod: if unknown { -1 } else { col.typmod },
                not_null: false,
                default: None,
                identity: None,
                generated: false,
                written: None,
                error: None,
                pending_type: None,
            }
        })
        .collect();
    let matview = match &c.matview {
        Some(q) => Some(Box::new(MatView {
            def: super::matview::definition(cx, &schema, q)?,
            populated: c.with_data,
        })),
        None => None,
    };
    super::create_table::create_table(
        &CreateTable {
            schema: schema.clone(),
            name: c.name.clone(),
            if_not_exists: false,
            persistence: c.persistence,
            columns,
            keys: Vec::new(),
            checks: Vec::new(),
            foreign_keys: Vec::new(),
            sequences: Vec::new(),
            location: c.location,
            on_commit: c.on_commit,
            likes: Vec::new(),
            comments: Vec::new(),
            partition_by: None,
            partition_of: None,
            matview,
        },
        cx,
    )?;
    if !c.with_data {
        return Ok(c.tag().into());
    }
    let rel = find(cx, &schema, &c.name)?
        .ok_or_else(|| PgError::internal("table created by CREATE TABLE AS not found"))?;
    let affected = insert_query(cx, rel, c.query.clone())?;
    Ok(format!("SELECT {affected}").into())
}

/// Inserts the rows of `query` into the new relation `rel` (CREATE TABLE AS, REFRESH
/// MATERIALIZED VIEW): through the executor's insert, so through the engine's logged door.
/// Returns the number of rows inserted.
pub(super) fn insert_query(
    cx: &mut dyn SessionCtx,
    rel: std::sync::Arc<crate::sql::engine::Rel>,
    query: Plan,
) -> PgResult<u64> {
    let plan = Plan {
        columns: Vec::new(),
        node: Node::Modify(Box::new(Modify {
            rel,
            kind: ModifyKind::Insert,
            input: query,
            checks: Vec::new(),
            generated: Vec::new(),
            returning: None,
            recheck: None,
            triggers: None,
        })),
    };
    let mut ecx = EvalCx {
        params: &[],
        outer: Vec::new(),
        session: cx,
    };
    let (_, err, affected) = exec::run_plan_counted(&plan, &mut ecx);
    match err {
        Some(e) => Err(e),
        None => Ok(affected.unwrap_or(0)),
    }
}
