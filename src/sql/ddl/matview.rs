//! Materialized views: REFRESH MATERIALIZED VIEW [CONCURRENTLY] and DROP MATERIALIZED VIEW
//! (CREATE is CREATE TABLE AS's statement, `create_as.rs`; ALTER goes through `alter.rs`).
//!
//! A materialized view is a relation of kind MatView: its rows are stored as a table's (the
//! same heap, indexes, write-ahead log records and checkpoint images), and its catalog version
//! carries its definition (a view's, `engine::ViewDef`) and whether it is populated
//! (`catalog::MatView`). A query reading one that is not populated fails when it is planned
//! (`plan::modify`), as PostgreSQL's executor start does.
//!
//! REFRESH without CONCURRENTLY is TRUNCATE and INSERT ... SELECT in one: under ACCESS
//! EXCLUSIVE, a new version with new, empty storage (the old rows stay for the snapshots that
//! see the old version, and come back if the transaction aborts), filled by the definition's
//! query through the `Modify` operator, as CREATE TABLE AS fills its table. WITH NO DATA leaves
//! the new storage empty and the version unpopulated.
//!
//! REFRESH CONCURRENTLY keeps the storage and takes EXCLUSIVE, which lets readers through: it
//! runs the query, refuses new data with duplicate rows (21000, as PostgreSQL's check before
//! its diff), then compares the new rows with the visible ones by their whole value and
//! deletes the old rows that are not in the new data and inserts the new ones that are not in
//! the old, through the engine's doors, in the refreshing transaction. Readers see the old
//! rows until it commits and the new ones after: never a mix. Rows are compared by the text of
//! their values, which tells apart what PostgreSQL's record image equality (`*=`) tells apart
//! for the built-in types (numeric scale, float digits), and the new data is held in memory
//! under the executor's result bound.

use std::collections::HashMap;
use std::sync::Arc;

use pg_query::protobuf::{self, node::Node as N, ObjectType};

use super::{find_locked, notice, replace_with_data, view};
use crate::catalog::{MatView, RelKind};
use crate::error::{code, PgError, PgResult};
use crate::sql::context::SessionCtx;
use crate::sql::engine::{self, Rel, TableData, ViewDef, WriteError};
use crate::sql::exec::{self, EvalCx};
use crate::sql::plan::modify::TableCx;
use crate::sql::plan::{Plan, Planner};
use crate::sql::types::{FormatCtx, Type, Value};
use crate::txn::lock::LockMode;

#[derive(Debug, Clone)]
pub enum MatViewDdl {
    Refresh {
        schema: String,
        name: String,
        concurrent: bool,
        skip_data: bool,
    },
    Drop {
        names: Vec<(String, String)>,
        if_exists: bool,
        cascade: bool,
    },
}

impl MatViewDdl {
    pub fn tag(&self) -> &'static str {
        match self {
            MatViewDdl::Refresh { .. } => "REFRESH MATERIALIZED VIEW",
            MatViewDdl::Drop { .. } => "DROP MATERIALIZED VIEW",
        }
    }
}

pub fn analyze(node: &N) -> Option<PgResult<MatViewDdl>> {
    match node {
        N::RefreshMatViewStmt(r) => {
            let rv = r.relation.as_ref()?;
            Some(Ok(MatViewDdl::Refresh {
                schema: rv.schemaname.clone(),
                name: rv.relname.clone(),
                concurrent: r.concurrent,
                skip_data: r.skip_data,
            }))
        }
        N::DropStmt(d) if d.remove_type == ObjectType::ObjectMatview as i32 => {
            Some(Ok(MatViewDdl::Drop {
                names: super::drop_names(d),
                if_exists: d.missing_ok,
                cascade: d.behavior == protobuf::DropBehavior::DropCascade as i32,
            }))
        }
        _ => None,
    }
}

/// The definition a materialized view made now in `schema` keeps: its query's text, the
/// schemas its names resolve in, and what it reads.
pub(super) fn definition(cx: &mut dyn SessionCtx, schema: &str, query: &N) -> PgResult<ViewDef> {
    let search_path = view::stored_search_path(cx, schema);
    let text = query
        .deparse(Default::default())
        .map_err(|e| PgError::internal(format!("cannot deparse the view's query: {e}")))?;
    let deps = view::dependencies(cx, query, &search_path)?;
    Ok(ViewDef {
        query: text,
        deps,
        search_path,
    })
}

pub fn execute(m: &MatViewDdl, cx: &mut dyn SessionCtx) -> PgResult<()> {
    match m {
        MatViewDdl::Refresh {
            schema,
            name,
            concurrent,
            skip_data,
        } => refresh(cx, schema, name, *concurrent, *skip_data),
        MatViewDdl::Drop {
            names,
            if_exists,
            cascade,
        } => {
            let mut found = Vec::new();
            for (schema, name) in names {
                match find_locked(cx, schema, name, LockMode::AccessExclusive)? {
                    Some(r) if r.kind == RelKind::MatView => {
                        super::grant::check_owner(cx, &r)?;
                        found.push(r)
                    }
                    Some(r) => {
                        return Err(view::wrong_kind(
                            name,
                            r.kind,
                            "a materialized view",
                            "MATERIALIZED VIEW",
                        ))
                    }
                    None if *if_exists => cx.notice(notice(
                        format!("materialized view \"{name}\" does not exist, skipping"),
                        code::SUCCESSFUL_COMPLETION,
                    )),
                    None => {
                        return Err(PgError::new(
                            code::UNDEFINED_TABLE,
                            format!("materialized view \"{name}\" does not exist"),
                        ))
                    }
                }
            }
            view::drop_dependents(cx, &found, *cascade)?;
            for r in &found {
                view::drop_relation(cx, r)?;
            }
            Ok(())
        }
    }
}

fn refresh(
    cx: &mut dyn SessionCtx,
    schema: &str,
    name: &str,
    concurrent: bool,
    skip_data: bool,
) -> PgResult<()> {
    // PostgreSQL refuses the statement in a read-only transaction before anything else.
    cx.writer("REFRESH MATERIALIZED VIEW")?;
    if concurrent && skip_data {
        return Err(PgError::syntax(
            "CONCURRENTLY and WITH NO DATA options cannot be used together",
        ));
    }
    // CONCURRENTLY lets readers through (EXCLUSIVE); otherwise the storage is replaced, which
    // nobody may be reading (ACCESS EXCLUSIVE), as in PostgreSQL.
    let mode = if concurrent {
        LockMode::Exclusive
    } else {
        LockMode::AccessExclusive
    };
    let mv = match find_locked(cx, schema, name, mode)? {
        Some(r) if r.kind == RelKind::MatView => r,
        Some(_) => {
            return Err(PgError::feature_not_supported(format!(
                "\"{name}\" is not a materialized view"
            )))
        }
        None => {
            return Err(PgError::new(
                code::UNDEFINED_TABLE,
                format!("relation \"{name}\" does not exist"),
            ))
        }
    };
    super::grant::check_owner(cx, &mv)?;
    let Some(state) = mv.matview.clone() else {
        return Err(PgError::internal(format!(
            "materialized view \"{name}\" has no definition"
        )));
    };
    if concurrent {
        if !state.populated {
            return Err(PgError::feature_not_supported(
                "CONCURRENTLY cannot be used when the materialized view is not populated",
            ));
        }
        // PostgreSQL matches rows on a unique index over plain columns with no predicate.
        if !mv.indexes.iter().any(|i| i.unique && i.plain()) {
            return Err(PgError::new(
                code::OBJECT_NOT_IN_PREREQUISITE_STATE,
                format!(
                    "cannot refresh materialized view \"{}\" concurrently",
                    qualified(&mv)
                ),
            )
            .with_hint(
                "Create a unique index with no WHERE clause on one or more columns of the \
                 materialized view.",
            ));
        }
        let query = defining_query(cx, &mv, &state.def)?;
        return refresh_concurrently(cx, &mv, &query);
    }
    // Planned before the storage is replaced: a query that fails leaves the old version.
    let query = match skip_data {
        true => None,
        false => Some(defining_query(cx, &mv, &state.def)?),
    };
    let populated = MatView {
        def: state.def.clone(),
        populated: !skip_data,
    };
    let fresh = replace_with_data(cx, &mv, Arc::new(TableData::new()), move |n| {
        n.matview = Some(Box::new(populated))
    })?;
    if let Some(query) = query {
        super::create_as::insert_query(cx, fresh, query).map_err(|e| as_index_build(e, &mv))?;
    }
    Ok(())
}

/// PostgreSQL fills the new storage first and builds the indexes after, so a key the new data
/// holds twice is the index build's error (`could not create unique index`), where the rows
/// here go in with their index entries and meet the duplicate as an insert would.
fn as_index_build(mut e: PgError, mv: &Rel) -> PgError {
    if e.code != code::UNIQUE_VIOLATION {
        return e;
    }
    let Some(index) = mv
        .indexes
        .iter()
        .find(|i| e.message.ends_with(&format!("\"{}\"", i.name)))
    else {
        return e;
    };
    e.message = format!("could not create unique index \"{}\"", index.name);
    if let Some(d) = e.detail.take() {
        e.detail = Some(match d.strip_suffix(" already exists.") {
            Some(key) => format!("{key} is duplicated."),
            None => d,
        });
    }
    e
}

/// `schema.name`, quoted where needed, as PostgreSQL's refresh errors name the view.
fn qualified(r: &Rel) -> String {
    use crate::sql::quote::quote_ident;
    format!(
        "{}.{}",
        quote_ident(&r.name.schema),
        quote_ident(&r.name.name)
    )
}

/// The materialized view's query planned now, its names resolved where they were when it was
/// made, with the privileges of the view's owner (PostgreSQL runs REFRESH as the owner): what
/// it reads is checked for that role.
fn defining_query(cx: &mut dyn SessionCtx, mv: &Rel, def: &ViewDef) -> PgResult<Plan> {
    let node = crate::sql::parser::parse_node(&def.query)?;
    let snap = cx.catalog_snapshot()?;
    let owner_super = cx
        .instance()
        .catalog
        .roles
        .by_oid(mv.owner, &snap)
        .is_some_and(|r| r.def.superuser);
    let fmt = cx.fmt().clone();
    let used = std::cell::Cell::new(false);
    let locks = Default::default();
    let perms = crate::sql::privs::Collector::default();
    let plan = {
        let tables = TableCx {
            catalog: &cx.instance().catalog,
            snap,
            database: cx.database(),
            search_path: std::borrow::Cow::Borrowed(&def.search_path),
            used: &used,
            locks: &locks,
            superuser: owner_super,
            role: mv.owner,
            perms: &perms,
            check_as: None,
            methods: Default::default(),
            transitions: &[],
        };
        let mut params = Vec::new();
        let mut planner = Planner::new(&mut params, &fmt);
        planner.tables = Some(tables);
        planner.allow_params = false;
        planner.plan_query(&node)?
    };
    let who = crate::sql::privs::Who {
        role: mv.owner,
        superuser: owner_super,
        roles: &cx.instance().catalog.roles,
        snap: &snap,
    };
    crate::sql::privs::check(&perms.list(), &who)?;
    // What the query reads is locked as a query's reads are (ACCESS SHARE).
    for (oid, mode) in locks.take() {
        cx.lock_relation(oid, mode, None)?;
    }
    let live: Vec<&crate::catalog::ColumnDef> = mv.live_columns().map(|(_, c)| c).collect();
    if plan.columns.len() < live.len() {
        return Err(PgError::new(
            code::FEATURE_NOT_SUPPORTED,
            format!(
                "materialized view \"{}\" no longer matches the tables it reads",
                mv.name.name
            ),
        ));
    }
    Ok(plan)
}

/// A row's identity for the comparison of old and new data: the text of each value.
fn identity(row: &[Value], types: &[Type], fmt: &FormatCtx) -> Vec<Option<String>> {
    row.iter()
        .zip(types)
        .map(|(v, t)| (!v.is_null()).then(|| exec::text_of(v, *t, fmt)))
        .collect()
}

fn refresh_concurrently(cx: &mut dyn SessionCtx, mv: &Arc<Rel>, query: &Plan) -> PgResult<()> {
    let width = mv.columns.len();
    let positions: Vec<usize> = mv.live_columns().map(|(i, _)| i).collect();
    let types: Vec<Type> = mv.columns.iter().map(|c| Type(c.type_oid)).collect();
    let fmt = cx.fmt().clone();
    // The new data, each row laid out as the view's stored rows (dropped columns null).
    let new_rows: Vec<Vec<Value>> = {
        let mut ecx = EvalCx {
            params: &[],
            outer: Vec::new(),
            session: cx,
        };
        exec::run_plan(query, &mut ecx)?
            .into_iter()
            .map(|r| {
                let mut row = vec![Value::Null; width];
                for (v, &p) in r.into_iter().zip(&positions) {
                    row[p] = v;
                }
                row
            })
            .collect()
    };
    // How many times each row occurs in the new data; a row without NULLs twice is refused,
    // as PostgreSQL refuses it (its diff could not tell the copies apart).
    let mut wanted: HashMap<Vec<Option<String>>, (usize, usize)> = HashMap::new();
    for (i, row) in new_rows.iter().enumerate() {
        let id = identity(row, &types, &fmt);
        let no_nulls = id.iter().all(Option::is_some);
        let e = wanted.entry(id).or_insert((0, i));
        e.0 += 1;
        if e.0 == 2 && no_nulls {
            return Err(PgError::new(
                code::CARDINALITY_VIOLATION,
                format!(
                    "new data for materialized view \"{}\" contains duplicate rows without any null columns",
                    mv.name.name
                ),
            )
            .with_detail(format!("Row: {}", record_text(row, &positions, &types, &fmt))));
        }
    }
    let (cell, cid) = cx.writer("REFRESH MATERIALIZED VIEW")?;
    let snap = cx.snapshot()?;
    // The rows there now that the new data has too stay; the others go.
    let mut gone = Vec::new();
    let mut from = 0;
    loop {
        let next = engine::scan_owned(mv, from, 1024, &snap, 0, |slot, row| {
            let id = identity(&row, &types, &fmt);
            match wanted.get_mut(&id) {
                Some(e) if e.0 > 0 => e.0 -= 1,
                _ => gone.push(slot),
            }
            true
        });
        match next {
            Some(n) => from = n,
            None => break,
        }
    }
    let w = engine::Writer {
        cell: &cell,
        cid,
        snap: &snap,
        latest: false,
    };
    let fail = |e: WriteError, cx: &mut dyn SessionCtx| -> PgError {
        match e {
            WriteError::Unique { index, key } => {
                let ecx = EvalCx {
                    params: &[],
                    outer: Vec::new(),
                    session: cx,
                };
                exec::unique_violation(mv, index, &key, &ecx)
            }
            WriteError::Log(e) => e,
            // EXCLUSIVE keeps every other writer out: nothing to wait for.
            other => PgError::internal(format!("unexpected write result: {other:?}")),
        }
    };
    for slot in gone {
        match engine::delete(mv, slot, &w, false) {
            Ok(engine::Changed::Done(_)) => {}
            Ok(other) => {
                return Err(PgError::internal(format!(
                    "a row of the materialized view changed under REFRESH: {other:?}"
                )))
            }
            Err(e) => return Err(fail(e, cx)),
        }
    }
    for row in &new_rows {
        let id = identity(row, &types, &fmt);
        if let Some(e) = wanted.get_mut(&id) {
            // Rows kept from the old data use up their copies first.
            if e.0 == 0 {
                continue;
            }
            e.0 -= 1;
        }
        if let Err(e) = engine::insert(mv, row, &w, None) {
            return Err(fail(e, cx));
        }
    }
    mv.data
        .changes
        .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    Ok(())
}

/// A row as PostgreSQL's record output prints it in the duplicate-rows detail: `(1,10)`.
fn record_text(row: &[Value], positions: &[usize], types: &[Type], fmt: &FormatCtx) -> String {
    let vals: Vec<String> = positions
        .iter()
        .map(|&p| match &row[p] {
            v if v.is_null() => String::new(),
            v => exec::text_of(v, types[p], fmt),
        })
        .collect();
    format!("({})", vals.join(","))
}

/// Whether `r` is a materialized view that is not populated (for pg_class.relispopulated).
pub fn unpopulated(r: &Rel) -> bool {
    r.matview.as_ref().is_some_and(|m| !m.populated)
}
