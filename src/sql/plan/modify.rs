//! Planning over tables: table references in FROM, index choice, INSERT, UPDATE and DELETE.
//!
//! A table reference becomes a `SeqScan`; a WHERE clause over one table whose conjuncts fix
//! the leading columns of an index with values that do not depend on the row (constants,
//! parameters, outer references) becomes an `IndexScan` with the rest as a filter. A data-changing
//! statement is a plan like a query's: its input produces the rows to change (with each target
//! row's slot in a hidden last column of the target's scan), and a `Modify` node on top writes
//! them and yields the RETURNING rows, so every result path runs it like a SELECT.

use std::sync::Arc;

pub mod on_conflict;

use pg_query::protobuf::{self, node::Node as N};

use super::{loc, CoercionContext, Column, Expr, Node, Plan, Planner, Scope, ScopeCol};
use crate::catalog::acl;
use crate::catalog::{ConstraintKind, RelKind};
use crate::error::{code, PgError, PgResult};
use crate::sql::engine::{self, Rel, SqlCatalog};
use crate::sql::privs::ColUse;
use crate::sql::types::{Type, Value};
use crate::txn::lock::LockMode;
use crate::txn::Snapshot;

/// What the planner needs to resolve table names: the catalog as the statement sees it.
#[derive(Clone)]
pub struct TableCx<'a> {
    pub catalog: &'a SqlCatalog,
    pub snap: Snapshot,
    pub database: &'a str,
    /// The search_path setting as written (parsed only when a table name is looked up), with
    /// the session's temporary schema where it has one.
    pub search_path: std::borrow::Cow<'a, str>,
    /// Set when a table name resolved (the plan then depends on the schema).
    pub used: &'a std::cell::Cell<bool>,
    /// The relation locks the statement needs (taken by the session before it runs).
    pub locks: &'a std::cell::RefCell<Vec<(u32, LockMode)>>,
    /// Whether the current role is a superuser.
    pub superuser: bool,
    /// The current role.
    pub role: u32,
    /// The privileges the statement needs (`sql::privs`), checked by the session before it
    /// runs and again at each execution of a prepared statement.
    pub perms: &'a crate::sql::privs::Collector,
    /// The role a view's tables are checked as (its owner) while its query is planned; None:
    /// the current user.
    pub check_as: Option<u32>,
    /// The session's enable_seqscan / enable_indexscan.
    pub methods: super::cost::Methods,
    /// The transition tables of the trigger function whose statement this is, found by name
    /// before tables (`from.rs`); none elsewhere, views and SQL functions included.
    pub transitions: &'a [crate::sql::context::TransitionTable],
}

impl TableCx<'_> {
    pub(crate) fn find(&self, schema: &str, name: &str) -> Option<Arc<Rel>> {
        // PostgreSQL's search path leaves out the schemas the role may not use.
        let filter = schema.is_empty() && !self.superuser && self.check_as.is_none();
        let r = engine::find_rel(
            self.catalog,
            &self.snap,
            self.database,
            engine::search_schemas(&self.search_path)
                .filter(|s| !filter || self.check_schema_usage(s).is_ok()),
            schema,
            name,
        );
        if let Some(rel) = &r {
            self.used.set(true);
            self.note_lock(rel.oid, LockMode::AccessShare);
        }
        r
    }

    /// User-defined type `schema.name` (unqualified: the first on the search path that has
    /// it), as the statement's snapshot sees it.
    pub fn find_type(
        &self,
        schema: &str,
        name: &str,
    ) -> Option<Arc<crate::catalog::types::UserType>> {
        let types = &self.catalog.types;
        let found = if schema.is_empty() {
            engine::search_schemas(&self.search_path)
                .find_map(|s| types.named(self.database, s, name, &self.snap))
        } else {
            types.named(self.database, schema, name, &self.snap)
        };
        // A plan that names a type depends on the schema (it is made again after DDL).
        self.used.set(true);
        found
    }

    /// The multirange type named `name` (in `schema`, or on the search path) that a CREATE
    /// TYPE ... AS RANGE made with its range type.
    pub fn find_multirange_type(&self, schema: &str, name: &str) -> Option<Type> {
        let all = self.catalog.types.visible(Some(self.database), &self.snap);
        let in_schema = |s: &str| {
            all.iter().find_map(|t| {
                let r = t.def.range.as_ref()?;
                (t.def.schema == s && r.multirange_name == name).then_some(Type(r.multirange_oid))
            })
        };
        self.used.set(true);
        if schema.is_empty() {
            engine::search_schemas(&self.search_path).find_map(in_schema)
        } else {
            in_schema(schema)
        }
    }

    /// Whether schema `name` exists for this statement.
    pub fn schema_exists(&self, name: &str) -> bool {
        engine::schema_exists(self.catalog, &self.snap, self.database, name)
    }

    /// PostgreSQL's LookupExplicitNamespace: a name qualified with a schema needs USAGE on it.
    fn check_schema_usage(&self, schema: &str) -> PgResult<()> {
        let Some(info) =
            crate::sql::privs::schema_info(self.catalog, &self.snap, self.database, schema)
        else {
            return Ok(());
        };
        let who = crate::sql::privs::Who {
            role: self.role,
            superuser: self.superuser,
            roles: &self.catalog.roles,
            snap: &self.snap,
        };
        if crate::sql::privs::schema_mask(&who, self.role, &info, acl::USAGE) != 0 {
            return Ok(());
        }
        Err(crate::sql::privs::denied("schema", schema))
    }

    /// Records that the statement needs `bits` on `rel` (`sql::privs`).
    pub(super) fn require(&self, rel: &Arc<Rel>, bits: u32) {
        self.perms.require(
            crate::sql::privs::Target::Rel(rel.clone()),
            self.check_as,
            bits,
        );
    }

    /// Marks a column of relation `oid` as read, inserted or updated (`sql::privs`).
    pub(super) fn mark(&self, origin: Option<(u32, i16)>, what: crate::sql::privs::ColUse) {
        if let Some((oid, attnum)) = origin {
            self.perms.mark(oid, self.check_as, attnum, what);
        }
    }

    /// Records that the statement needs `mode` on relation `oid`.
    pub(super) fn note_lock(&self, oid: u32, mode: LockMode) {
        let mut locks = self.locks.borrow_mut();
        if !locks.contains(&(oid, mode)) {
            locks.push((oid, mode));
        }
    }
}

/// The name of the hidden column that carries a target row's slot. A scope strips one leading
/// NUL (marking the column hidden from `*`) and the second keeps the name from matching any
/// identifier.
pub const ROWID: &str = "\u{0}\u{0}rowid";

/// The trigger event of an INSERT target (`PlanState::target_event`).
const INSERT_EVENT: i16 = crate::catalog::triggers::INSERT;

/// What a data-changing statement does with each input row.
#[derive(Debug, Clone)]
pub enum ModifyKind {
    /// Input rows are the new rows, already in the table's column order (defaults filled in).
    Insert,
    /// `sets`: (column, expression over the input row); the target's columns are the input's
    /// first ones and its slot follows them.
    Update {
        sets: Vec<(usize, Expr)>,
    },
    Delete,
    /// INSERT ... ON CONFLICT: input rows as for `Insert`.
    Upsert(Box<on_conflict::OnConflict>),
}

/// A data-changing statement over one table.
#[derive(Debug, Clone)]
pub struct Modify {
    pub rel: Arc<Rel>,
    pub kind: ModifyKind,
    pub input: Plan,
    /// CHECK constraints: name and predicate over the new row (table columns).
    pub checks: Vec<(String, Expr)>,
    /// The generated columns (position, expression over the new row), computed for each new
    /// row after its BEFORE triggers, before its constraints are checked.
    pub generated: Vec<(usize, Expr)>,
    /// RETURNING, over the new row (old row for DELETE) followed by the rest of the input.
    pub returning: Option<Vec<Expr>>,
    /// UPDATE / DELETE over the target alone: its WHERE, re-checked against the newest version
    /// of a row a concurrent transaction changed (READ COMMITTED). None when other FROM items
    /// take part (their rows are not fetched again).
    pub recheck: Option<Expr>,
    /// The triggers the statement fires (None: the table has none for its events).
    pub triggers: Option<Arc<super::trigger::Triggers>>,
}

/// COPY ... FROM STDIN into a table.
#[derive(Debug, Clone)]
pub struct CopyFrom {
    pub rel: Arc<Rel>,
    /// The table columns the data's fields go to, in order.
    pub columns: Vec<usize>,
    /// Defaults of the table's columns (for those the data does not give).
    pub defaults: Vec<Option<Expr>>,
    pub checks: Vec<(String, Expr)>,
    pub generated: Vec<(usize, Expr)>,
    /// The table's row-level INSERT triggers (each batch's INSERT fires them).
    pub triggers: Option<Arc<super::trigger::Triggers>>,
    /// The copied columns of a domain with constraints, and those constraints.
    pub domains: Vec<(usize, Arc<super::DomainCoercion>)>,
}

impl CopyFrom {
    /// The plan that inserts `rows` (full table rows; the columns the data leaves out get
    /// their defaults, evaluated per row). `handed` counts the rows the plan has read (see
    /// [`super::Feed::handed`]).
    pub fn insert_plan(
        &self,
        rows: Vec<Vec<Value>>,
        handed: Arc<std::sync::atomic::AtomicUsize>,
    ) -> Plan {
        let defaults = self
            .defaults
            .iter()
            .enumerate()
            .filter(|(col, _)| !self.columns.contains(col))
            .filter_map(|(col, d)| Some((col, d.clone()?)))
            .collect();
        let mut input = Plan {
            columns: table_columns(&self.rel),
            node: Node::Feed(super::Feed {
                handed,
                ..super::Feed::new(rows, defaults)
            }),
        };
        if !self.domains.is_empty() {
            let exprs = (0..input.columns.len())
                .map(|i| match self.domains.iter().find(|(c, _)| *c == i) {
                    Some((_, d)) => Expr::Domain(Box::new(Expr::Column(i)), d.clone()),
                    None => Expr::Column(i),
                })
                .collect();
            input = Plan {
                columns: input.columns.clone(),
                node: Node::Project {
                    input: Box::new(input),
                    exprs,
                },
            };
        }
        Plan {
            columns: Vec::new(),
            node: Node::Modify(Box::new(Modify {
                rel: self.rel.clone(),
                kind: ModifyKind::Insert,
                input,
                checks: self.checks.clone(),
                generated: self.generated.clone(),
                returning: None,
                recheck: None,
                triggers: self.triggers.clone(),
            })),
        }
    }
}

impl Modify {
    /// The command tag's verb.
    pub fn verb(&self) -> &'static str {
        match self.kind {
            ModifyKind::Insert | ModifyKind::Upsert(_) => "INSERT",
            ModifyKind::Update { .. } => "UPDATE",
            ModifyKind::Delete => "DELETE",
        }
    }
}

pub(super) fn undefined_table(rv: &protobuf::RangeVar) -> PgError {
    let full = if rv.schemaname.is_empty() {
        rv.relname.clone()
    } else {
        format!("{}.{}", rv.schemaname, rv.relname)
    };
    PgError::new(
        code::UNDEFINED_TABLE,
        format!("relation \"{full}\" does not exist"),
    )
    .at(loc(rv.location))
}

/// The type each column of a table was declared with (its domain, typmod -1, if any): what
/// values assigned to it are converted to.
pub(crate) fn declared_columns(rel: &Rel) -> Vec<(Type, i32)> {
    rel.columns.iter().map(declared_type).collect()
}

/// The type a column was declared with (its domain, if any) and the typmod to assign with.
pub(crate) fn declared_type(c: &crate::catalog::ColumnDef) -> (Type, i32) {
    match c.domain {
        Some(d) => (Type(d), -1),
        None => (Type(c.type_oid), c.typmod),
    }
}

/// The columns of a table as a plan sees them (dropped columns keep their place, unnamed).
pub(crate) fn table_columns(rel: &Rel) -> Vec<Column> {
    rel.columns
        .iter()
        .enumerate()
        .map(|(i, c)| Column {
            name: if c.dropped {
                format!("\u{0}\u{0}dropped{i}")
            } else {
                c.name.clone()
            },
            ty: Type(c.type_oid),
            typmod: c.typmod,
            origin: Some((rel.oid, i as i16 + 1)),
        })
        .collect()
}

impl Planner<'_> {
    /// A table named in FROM, or None if there is no such table.
    pub(super) fn plan_table_ref(
        &mut self,
        rv: &protobuf::RangeVar,
        rowid: bool,
    ) -> PgResult<Option<Plan>> {
        let Some(cx) = self.tables.as_ref() else {
            return Ok(None);
        };
        let Some(rel) = cx.find(&rv.schemaname, &rv.relname) else {
            return Ok(None);
        };
        // Another session's temporary table (named with its pg_temp_N schema).
        if rel.persistence == crate::catalog::Persistence::Temporary
            && engine::is_temp_schema(&rel.name.schema)
            && !engine::search_schemas(&cx.search_path).any(|s| s == rel.name.schema)
        {
            return Err(PgError::feature_not_supported(
                "cannot access temporary tables of other sessions",
            ));
        }
        if !rv.schemaname.is_empty() && !cx.superuser && cx.check_as.is_none() {
            cx.check_schema_usage(&rv.schemaname)
                .map_err(|e| e.at(loc(rv.location)))?;
        }
        // A DML target's privilege is added by its statement; FOR UPDATE adds UPDATE.
        cx.require(&rel, if rowid { 0 } else { acl::SELECT });
        if rel.kind == RelKind::Sequence && !rowid {
            return Ok(Some(super::sequence::scan_plan(&rel)));
        }
        if rel.kind == RelKind::View {
            let event = std::mem::take(&mut self.state.target_event);
            if rowid && super::trigger::has_instead(&rel, event) {
                return self.view_target(&rel).map(Some);
            }
            if rowid {
                return Err(PgError::feature_not_supported(format!(
                    "changing or locking rows of view \"{}\" is not supported yet",
                    rv.relname
                ))
                .at(loc(rv.location)));
            }
            return self.plan_view(&rel).map(Some);
        }
        if rel.kind == RelKind::MatView {
            self.check_matview_scan(&rel, rowid)?;
        } else if rel.kind != RelKind::Table {
            return Err(PgError::new(
                code::WRONG_OBJECT_TYPE,
                format!("\"{}\" is an index", rv.relname),
            )
            .at(loc(rv.location)));
        }
        // A partitioned table is an Append of its leaves. Its rows carry their slots and
        // leaves' OIDs as an UPDATE / DELETE target, under FOR UPDATE, and where the statement
        // names a system column; an INSERT target is the table itself (its rows are routed).
        if rel.partition_key().is_some() && !(rowid && self.state.target_event == INSERT_EVENT) {
            if rowid && self.state.target_event == 0 && self.state.lock.is_some() {
                return Err(PgError::feature_not_supported(format!(
                    "locking rows of partitioned table \"{}\" is not supported yet",
                    rv.relname
                ))
                .at(loc(rv.location)));
            }
            let sys = self.state.sys_cols || self.state.tableoid;
            let slots = rowid || sys;
            if sys {
                self.note_sys_rel(&rel);
            }
            let mut leaves = Vec::new();
            let Some(tables) = self.tables.as_ref() else {
                return Ok(None);
            };
            super::partitions::leaves(tables, &rel, 0, &mut leaves)?;
            if rowid {
                for l in &leaves {
                    tables.note_lock(l.oid, LockMode::RowExclusive);
                }
            }
            let refname = rv
                .alias
                .as_ref()
                .map_or(rv.relname.as_str(), |a| a.aliasname.as_str());
            return Ok(Some(super::partitions::append_plan(
                table_columns(&rel),
                leaves,
                refname,
                slots,
                rowid,
            )));
        }
        let mut columns = table_columns(&rel);
        // System columns are read through the row's slot: the scan carries it when the
        // statement names one (outside FOR UPDATE, whose locked tables' scans carry it anyway
        // and whose other tables' scans must not look locked).
        let sys = self.state.sys_cols && (rowid || self.state.lock.is_none());
        if sys {
            self.note_sys_rel(&rel);
        }
        let rowid = rowid || sys;
        if rowid {
            columns.push(Column {
                name: ROWID.to_string(),
                ty: Type::INT8,
                typmod: -1,
                origin: None,
            });
        }
        Ok(Some(Plan {
            columns,
            node: Node::SeqScan {
                rel: super::ScanRel {
                    rel,
                    alias: rv
                        .alias
                        .as_ref()
                        .filter(|a| a.aliasname != rv.relname)
                        .map(|a| a.aliasname.as_str().into()),
                },
                rowid,
            },
        }))
    }

    /// Keeps `rel` for its system columns (`scope.rs` reads its heap through it).
    pub(super) fn note_sys_rel(&mut self, rel: &Arc<Rel>) {
        if !self.state.sys_rels.iter().any(|r| Arc::ptr_eq(r, rel)) {
            self.state.sys_rels.retain(|r| r.oid != rel.oid);
            self.state.sys_rels.push(rel.clone());
        }
    }

    /// What PostgreSQL's executor start checks of a materialized view it scans: that it is
    /// populated (55000), and that no row of it is locked (FOR UPDATE / SHARE: 42809). Raised
    /// at Bind in the extended protocol, where PostgreSQL's portal starts its executor.
    fn check_matview_scan(&mut self, rel: &Rel, rowid: bool) -> PgResult<()> {
        let err = if rowid {
            PgError::new(
                code::WRONG_OBJECT_TYPE,
                format!(
                    "cannot lock rows in materialized view \"{}\"",
                    rel.name.name
                ),
            )
        } else if !self.scan_unpopulated && rel.matview.as_ref().is_some_and(|m| !m.populated) {
            PgError::new(
                code::OBJECT_NOT_IN_PREREQUISITE_STATE,
                format!(
                    "materialized view \"{}\" has not been populated",
                    rel.name.name
                ),
            )
            .with_hint("Use the REFRESH MATERIALIZED VIEW command.")
        } else {
            return Ok(());
        };
        if !self.defer_fold_errors && !self.defer_exec_checks {
            return Err(err);
        }
        self.deferred.get_or_insert(err);
        Ok(())
    }

    /// The target of an INSERT / UPDATE / DELETE of `event` (a tgtype bit): a table, or a view
    /// with an INSTEAD OF trigger for the event.
    fn target_table(
        &mut self,
        rv: Option<&protobuf::RangeVar>,
        event: i16,
    ) -> PgResult<(Arc<Rel>, Plan)> {
        let rv = rv.ok_or_else(|| PgError::syntax("missing target table"))?;
        // A transition table hides a table of its name, and is read-only.
        let transition = rv.schemaname.is_empty()
            && self
                .tables
                .as_ref()
                .is_some_and(|t| t.transitions.iter().any(|t| t.name == rv.relname));
        if transition {
            return Err(PgError::feature_not_supported(format!(
                "relation \"{}\" cannot be the target of a modifying statement",
                rv.relname
            )));
        }
        // PostgreSQL's CheckValidResultRel, at executor start.
        let found = self
            .tables
            .as_ref()
            .and_then(|cx| cx.find(&rv.schemaname, &rv.relname));
        if let Some(rel) = &found {
            if rel.kind == RelKind::MatView {
                let err = PgError::new(
                    code::WRONG_OBJECT_TYPE,
                    format!("cannot change materialized view \"{}\"", rel.name.name),
                );
                if !self.defer_fold_errors && !self.defer_exec_checks {
                    return Err(err);
                }
                self.deferred.get_or_insert(err);
            }
        }
        self.state.target_event = event;
        let planned = self.plan_table_ref(rv, true);
        self.state.target_event = 0;
        match planned? {
            Some(p) => {
                let rel = match &p.node {
                    Node::SeqScan { rel, .. } => rel.rel.clone(),
                    // A view with an INSTEAD OF trigger (`view_target`).
                    _ => found.ok_or_else(|| PgError::internal("a target that is no table"))?,
                };
                if let Some(cx) = &self.tables {
                    cx.note_lock(rel.oid, LockMode::RowExclusive);
                }
                Ok((rel, p))
            }
            None => Err(undefined_table(rv)),
        }
    }

    /// CHECK constraints bound over the table's columns.
    fn bind_checks(&mut self, rel: &Rel, scope: &Scope) -> PgResult<Vec<(String, Expr)>> {
        let mut out = Vec::new();
        for c in &rel.constraints {
            let ConstraintKind::Check { expr } = &c.kind else {
                continue;
            };
            let n = parse_expr(expr)?;
            // A constraint's reads need no privilege.
            if let Some(cx) = &self.tables {
                cx.perms.suspend(true);
            }
            let bound = self.bind(&n, scope, None);
            if let Some(cx) = &self.tables {
                cx.perms.suspend(false);
            }
            let (e, t) = bound?;
            let e = self.coerce_bool(e, t, "CHECK", &n)?;
            out.push((c.name.clone(), e));
        }
        Ok(out)
    }

    /// The generated columns' expressions bound over the table's columns (a row of the table),
    /// converted to each column's type.
    fn bind_generated(&mut self, rel: &Rel) -> PgResult<Vec<(usize, Expr)>> {
        let mut out = Vec::new();
        for (i, c) in rel.columns.iter().enumerate() {
            let (true, false, Some(text)) = (c.generated, c.dropped, &c.default) else {
                continue;
            };
            let n = parse_expr(text)?;
            // Like a constraint's, the expression's reads need no privilege.
            if let Some(cx) = &self.tables {
                cx.perms.suspend(true);
            }
            let bound = self.bind_generation(&rel.name.name, rel.oid, &rel.columns, i, &n);
            if let Some(cx) = &self.tables {
                cx.perms.suspend(false);
            }
            out.push((i, bound?));
        }
        Ok(out)
    }

    fn bind_returning(
        &mut self,
        r: Option<&protobuf::ReturningClause>,
        scope: &Scope,
    ) -> PgResult<(Option<Vec<Expr>>, Vec<Column>)> {
        let Some(r) = r else {
            return Ok((None, Vec::new()));
        };
        if r.exprs.is_empty() {
            return Ok((None, Vec::new()));
        }
        // Plan `SELECT <returning list>` over a scope of the new row: the select-list machinery
        // expands `*`, names columns and types them.
        let mut exprs = Vec::new();
        let mut columns = Vec::new();
        for t in &r.exprs {
            let Some(N::ResTarget(rt)) = &t.node else {
                continue;
            };
            let Some(val) = rt.val.as_ref().and_then(|v| v.node.as_ref()) else {
                continue;
            };
            if let N::ColumnRef(cr) = val {
                if cr
                    .fields
                    .last()
                    .is_some_and(|f| matches!(f.node, Some(N::AStar(_))))
                {
                    for (i, c) in scope.cols.iter().enumerate() {
                        if c.hidden || c.name.starts_with('\u{0}') {
                            continue;
                        }
                        if let Some(cx) = &self.tables {
                            cx.mark(c.origin, ColUse::Select);
                        }
                        exprs.push(Expr::Column(i));
                        columns.push(Column {
                            name: c.name.clone(),
                            ty: c.ty,
                            typmod: c.typmod,
                            origin: c.origin,
                        });
                    }
                    continue;
                }
            }
            let (e, ty) = self.bind(val, scope, None)?;
            let name = if rt.name.is_empty() {
                super::column_name_of(rt.val.as_ref().expect("checked"))
            } else {
                rt.name.clone()
            };
            let origin = match &e {
                Expr::Column(i) => scope.cols[*i].origin,
                Expr::System(_, s) => Some((s.rel.oid, s.kind.attnum())),
                _ => None,
            };
            let typmod = match &e {
                Expr::Column(i) => scope.cols[*i].typmod,
                _ => -1,
            };
            exprs.push(e);
            columns.push(Column {
                name,
                ty,
                typmod,
                origin,
            });
        }
        Ok((Some(exprs), columns))
    }

    pub(super) fn scope_of(&self, plan: &Plan, rel: &str) -> Scope {
        Scope {
            cols: plan
                .columns
                .iter()
                .map(|c| ScopeCol {
                    rel: rel.to_string(),
                    name: c.name.clone(),
                    ty: c.ty,
                    typmod: c.typmod,
                    origin: c.origin,
                    hidden: false,
                    qualified_only: false,
                    table: None,
                })
                .collect(),
            grouped: None,
        }
    }

    /// Each column's default, bound and converted to the column's type (None: NULL).
    fn bind_defaults(&mut self, rel: &Rel) -> PgResult<Vec<Option<Expr>>> {
        let tcols = table_columns(rel);
        let dcols = declared_columns(rel);
        let empty = Scope::default();
        let mut defaults = Vec::with_capacity(tcols.len());
        for (i, c) in rel.columns.iter().enumerate() {
            defaults.push(match (&c.default, c.dropped) {
                // A generated column's value is computed once the row is complete.
                _ if c.generated => None,
                (Some(text), false) => {
                    let n = parse_expr(text)?;
                    let (e, t) = self.bind(&n, &empty, None)?;
                    Some(self.coerce(
                        e,
                        t,
                        dcols[i].0,
                        dcols[i].1,
                        CoercionContext::Assignment,
                        -1,
                    )?)
                }
                // A domain's DEFAULT, or NULL checked against the domain.
                (None, false) => self.domain_default(dcols[i].0)?,
                _ => None,
            });
        }
        Ok(defaults)
    }

    /// COPY t [(cols)] FROM STDIN: the target, its columns in the data's order, and what the
    /// rows need (defaults of the other columns, CHECK constraints).
    pub fn plan_copy_from(
        &mut self,
        rv: &protobuf::RangeVar,
        attlist: &[protobuf::Node],
    ) -> PgResult<CopyFrom> {
        let (rel, _) = self.target_table(Some(rv), 0)?;
        let mut columns = Vec::new();
        if attlist.is_empty() {
            columns.extend(
                rel.live_columns()
                    .filter(|(_, c)| !c.generated)
                    .map(|(i, _)| i),
            );
        } else {
            for a in attlist {
                let Some(N::String(name)) = a.node.as_ref() else {
                    continue;
                };
                let pos = target_column(&rel, &name.sval, None)?;
                if rel.columns[pos].generated {
                    return Err(generated_in_copy(&name.sval));
                }
                if columns.contains(&pos) {
                    return Err(PgError::new(
                        code::DUPLICATE_COLUMN,
                        format!("column \"{}\" specified more than once", name.sval),
                    ));
                }
                columns.push(pos);
            }
        }
        // DoCopy: INSERT on the columns copied into.
        if let Some(cx) = &self.tables {
            cx.require(&rel, acl::INSERT);
            for c in &columns {
                cx.mark(Some((rel.oid, *c as i16 + 1)), ColUse::Insert);
            }
        }
        let defaults = self.bind_defaults(&rel)?;
        let scope = self.scope_of(
            &Plan {
                columns: table_columns(&rel),
                node: Node::Result,
            },
            &rel.name.name,
        );
        let checks = self.bind_checks(&rel, &scope)?;
        let generated = self.bind_generated(&rel)?;
        // Statement-level triggers would fire once per batch: only the row-level ones.
        let triggers = self.statement_triggers(&rel, crate::catalog::triggers::INSERT, true)?;
        // So would transition tables hold one batch's rows (and statement triggers not
        // fire at all): refused rather than wrong.
        let insert = crate::catalog::triggers::INSERT;
        if rel
            .triggers
            .iter()
            .any(|d| d.fires() && d.on(insert) && d.has_transitions())
        {
            return Err(PgError::feature_not_supported(format!(
                "COPY FROM into table \"{}\", whose triggers have transition tables, is not supported yet",
                rel.name.name
            )));
        }
        let mut domains = Vec::new();
        for &c in &columns {
            let Some(d) = rel.columns[c].domain.map(Type) else {
                continue;
            };
            let (domain, elements) = match d.elem() {
                Some(e) if e.is_domain() => (e, true),
                _ => (d, false),
            };
            if let Some(k) = self.domain_coercion(domain, elements)? {
                domains.push((c, k));
            }
        }
        Ok(CopyFrom {
            rel,
            columns,
            defaults,
            checks,
            generated,
            triggers,
            domains,
        })
    }

    /// INSERT INTO t [(cols)] VALUES ... | SELECT ... [RETURNING ...].
    pub fn plan_insert(&mut self, s: &protobuf::InsertStmt) -> PgResult<Plan> {
        self.note_system_columns(s);
        let (rel, _) = self.target_table(s.relation.as_ref(), crate::catalog::triggers::INSERT)?;
        let tcols = table_columns(&rel);
        let dcols = declared_columns(&rel);
        // Target columns: the named ones, or all in order.
        let mut targets: Vec<usize> = Vec::new();
        // The path of each target below its column (`c.x[2]`: `.x`, `[2]`), empty for a whole
        // column.
        let mut paths: Vec<(Vec<protobuf::Node>, i32)> = Vec::new();
        if s.cols.is_empty() {
            targets.extend(rel.live_columns().map(|(i, _)| i));
        } else {
            for c in &s.cols {
                let Some(N::ResTarget(rt)) = &c.node else {
                    continue;
                };
                let path = rt.indirection.clone();
                let pos = target_column(&rel, &rt.name, loc(rt.location))?;
                let fields_too = !path.is_empty()
                    && targets
                        .iter()
                        .zip(&paths)
                        .any(|(t, p)| *t == pos && !p.0.is_empty());
                paths.push((path, rt.location));
                if fields_too {
                    targets.push(pos);
                    continue;
                }
                if targets.contains(&pos) {
                    return Err(PgError::new(
                        code::DUPLICATE_COLUMN,
                        format!("column \"{}\" specified more than once", rt.name),
                    )
                    .at(loc(rt.location)));
                }
                targets.push(pos);
            }
        }
        // The columns the source gives values to (PostgreSQL's insertedCols): a VALUES row or
        // SELECT shorter than the table leaves the rest to their defaults.
        let mut given = targets.len();
        let defaults = self.bind_defaults(&rel)?;
        let empty = Scope::default();
        let null_of = |_: usize| Expr::Const(Value::Null);
        // The source: VALUES rows are bound expression by expression against the target
        // columns' types (so '1' goes straight into an int); a SELECT is planned and its
        // columns converted.
        let select = s.select_stmt.as_ref().and_then(|n| n.node.as_ref());
        let input = match select {
            None => {
                // DEFAULT VALUES
                given = 0;
                let row: Vec<Expr> = (0..tcols.len())
                    .map(|i| defaults[i].clone().unwrap_or_else(|| null_of(i)))
                    .collect();
                Plan {
                    columns: tcols.clone(),
                    node: Node::Values(vec![row]),
                }
            }
            Some(N::SelectStmt(sel))
                if !sel.values_lists.is_empty()
                    && sel.with_clause.is_none()
                    && sel.sort_clause.is_empty()
                    && sel.limit_count.is_none() =>
            {
                let mut rows = Vec::new();
                for l in &sel.values_lists {
                    let Some(N::List(items)) = &l.node else {
                        continue;
                    };
                    if items.items.len() > targets.len() {
                        return Err(PgError::syntax(
                            "INSERT has more expressions than target columns",
                        )
                        .at(loc(super::node_location(
                            items.items[targets.len()].node.as_ref().expect("item"),
                        ))));
                    }
                    if items.items.len() < targets.len() && !s.cols.is_empty() {
                        return Err(more_targets(&s.cols, items.items.len()));
                    }
                    given = given.min(items.items.len());
                    let mut row: Vec<Expr> = (0..tcols.len())
                        .map(|i| defaults[i].clone().unwrap_or_else(|| null_of(i)))
                        .collect();
                    for (k, item) in items.items.iter().enumerate() {
                        let Some(n) = item.node.as_ref() else {
                            continue;
                        };
                        let col = targets[k];
                        if matches!(n, N::SetToDefault(_)) {
                            if let Some((path, at)) = paths.get(k).filter(|p| !p.0.is_empty()) {
                                return Err(default_in_path(path, *at));
                            }
                            continue;
                        }
                        let (e, t) = self.bind(n, &empty, None)?;
                        if paths.get(k).is_some_and(|p| !p.0.is_empty()) {
                            row[col] = self.insert_path(
                                &row[col],
                                k,
                                &targets,
                                &paths,
                                dcols[col],
                                &rel.columns[col].name,
                                (e, t),
                            )?;
                            continue;
                        }
                        row[col] = self
                            .coerce(
                                e,
                                t,
                                dcols[col].0,
                                dcols[col].1,
                                CoercionContext::Assignment,
                                super::node_location(n),
                            )
                            .map_err(|e| {
                                assignment_error(e, &rel.columns[col].name, t, tcols[col].ty, n)
                            })?;
                    }
                    rows.push(row);
                }
                Plan {
                    columns: tcols.clone(),
                    node: Node::Values(rows),
                }
            }
            Some(q) => {
                // A plain SELECT keeps its unknown-typed outputs (`SELECT 1, NULL`, `'x'`):
                // PostgreSQL converts such literals straight to the target columns' types.
                if let N::SelectStmt(sel) = q {
                    let simple = sel.with_clause.is_none()
                        && sel.values_lists.is_empty()
                        && (sel.op == 0 || sel.op == protobuf::SetOperation::SetopNone as i32);
                    self.state.keep_unknown = simple;
                }
                let src = self.plan_query(q);
                self.state.keep_unknown = false;
                let locs = std::mem::take(&mut self.state.target_locs);
                let src = src?;
                if src.columns.len() > targets.len() {
                    return Err(
                        PgError::syntax("INSERT has more expressions than target columns")
                            .at(loc(locs.get(targets.len()).copied().unwrap_or(-1))),
                    );
                }
                if src.columns.len() < targets.len() && !s.cols.is_empty() {
                    return Err(more_targets(&s.cols, src.columns.len()));
                }
                given = src.columns.len();
                let mut exprs: Vec<Expr> = (0..tcols.len())
                    .map(|i| defaults[i].clone().unwrap_or_else(|| null_of(i)))
                    .collect();
                for (k, c) in src.columns.iter().enumerate() {
                    let col = targets[k];
                    let at = locs.get(k).copied().unwrap_or(-1);
                    // A constant output is converted as a constant (folded when planned, as
                    // PostgreSQL does once it pulls the SELECT up into the INSERT).
                    let (e, from) = match super::output_expr(&src, k) {
                        Some(Expr::Const(v)) => (Expr::Const(v.clone()), c.ty),
                        // Any other unknown-typed output is text by now.
                        _ if c.ty == Type::UNKNOWN => (Expr::Column(k), Type::TEXT),
                        _ => (Expr::Column(k), c.ty),
                    };
                    if paths.get(k).is_some_and(|p| !p.0.is_empty()) {
                        exprs[col] = self.insert_path(
                            &exprs[col],
                            k,
                            &targets,
                            &paths,
                            dcols[col],
                            &rel.columns[col].name,
                            (e, from),
                        )?;
                        continue;
                    }
                    exprs[col] = self
                        .coerce(
                            e,
                            from,
                            dcols[col].0,
                            dcols[col].1,
                            CoercionContext::Assignment,
                            at,
                        )
                        .map_err(|e| {
                            assignment_error_at(e, &rel.columns[col].name, from, tcols[col].ty, at)
                        })?;
                }
                Plan {
                    columns: tcols.clone(),
                    node: Node::Project {
                        input: Box::new(src),
                        exprs,
                    },
                }
            }
        };
        if let Some(cx) = &self.tables {
            cx.require(&rel, acl::INSERT);
            for t in &targets[..given.min(targets.len())] {
                cx.mark(Some((rel.oid, *t as i16 + 1)), ColUse::Insert);
            }
        }
        // Only the columns the source gives values to (a shorter SELECT leaves the rest to
        // their defaults, generated columns included).
        let given_targets = &targets[..given.min(targets.len())];
        let input = super::sequence::apply_identity(&rel, given_targets, s, input, &defaults)?;
        // The target's name in ON CONFLICT and RETURNING: its alias if it has one.
        let relname = s
            .relation
            .as_ref()
            .and_then(|r| r.alias.as_ref())
            .map_or(rel.name.name.as_str(), |a| a.aliasname.as_str());
        let scope = self.scope_of(
            &Plan {
                columns: tcols.clone(),
                node: Node::Result,
            },
            relname,
        );
        let (kind, arbiter_error) = match &s.on_conflict_clause {
            Some(oc) => {
                let (oc, err) = self.plan_on_conflict(&rel, oc, &scope)?;
                (ModifyKind::Upsert(Box::new(oc)), err)
            }
            None => (ModifyKind::Insert, None),
        };
        let checks = self.bind_checks(&rel, &scope)?;
        let generated = self.bind_generated(&rel)?;
        let events = match &kind {
            ModifyKind::Upsert(oc)
                if matches!(oc.action, on_conflict::ConflictAction::Update { .. }) =>
            {
                crate::catalog::triggers::INSERT | crate::catalog::triggers::UPDATE
            }
            _ => crate::catalog::triggers::INSERT,
        };
        let triggers = self.statement_triggers(&rel, events, false)?;
        // RETURNING of a plain INSERT reads system columns through the new row's slot, which
        // the writer appends to the row after the table's columns.
        let mut rscope = scope;
        let hidden = |name: &str, ty: Type| ScopeCol {
            rel: relname.to_string(),
            name: name.to_string(),
            ty,
            typmod: -1,
            origin: None,
            hidden: true,
            qualified_only: false,
            table: None,
        };
        let partitioned = rel.partition_key().is_some();
        if self.state.sys_cols && (partitioned || matches!(kind, ModifyKind::Insert)) {
            self.note_sys_rel(&rel);
        }
        // A partitioned table's new row is followed by its leaf's OID, for its tableoid (the
        // writer adds it, with the slot, NULL where ON CONFLICT wrote the row).
        if partitioned {
            rscope.cols.push(hidden(&ROWID[1..], Type::INT8));
            rscope
                .cols
                .push(hidden(super::partitions::LEAF_SCOPE, Type::OID));
        } else if self.state.sys_cols && matches!(kind, ModifyKind::Insert) {
            rscope.cols.push(hidden(&ROWID[1..], Type::INT8));
        }
        let (returning, columns) = self
            .bind_returning(s.returning_clause.as_ref(), &rscope)
            .map_err(|e| on_conflict::excluded_in_returning(e, &kind))?;
        if let Some(e) = arbiter_error {
            // PostgreSQL matches the arbiter indexes when it plans: at Bind in the extended
            // protocol.
            if !self.defer_fold_errors {
                return Err(e);
            }
            self.deferred.get_or_insert(e);
        }
        Ok(Plan {
            columns,
            node: Node::Modify(Box::new(Modify {
                rel,
                kind,
                input,
                checks,
                generated,
                returning,
                recheck: None,
                triggers,
            })),
        })
    }

    /// The input of UPDATE / DELETE: the target's scan (with its slot), joined with the other
    /// FROM / USING items, filtered by WHERE.
    fn plan_target_rows(
        &mut self,
        rv: Option<&protobuf::RangeVar>,
        event: i16,
        others: &[protobuf::Node],
        where_clause: Option<&N>,
    ) -> PgResult<(Arc<Rel>, Plan, Scope, Option<Expr>)> {
        let (rel, scan) = self.target_table(rv, event)?;
        let relname = rv
            .and_then(|r| r.alias.as_ref())
            .map(|a| a.aliasname.clone())
            .unwrap_or_else(|| rel.name.name.clone());
        let (mut plan, mut scope) = self.scope_for(scan, &relname, None)?;
        for item in others {
            let n = item
                .node
                .as_ref()
                .ok_or_else(|| PgError::syntax("empty FROM item"))?;
            let (p, sc) = self.plan_from_item(n, Some(&scope))?;
            scope.cols.extend(sc.cols);
            let columns = plan.columns.iter().chain(&p.columns).cloned().collect();
            plan = Plan {
                node: Node::Join {
                    left: Box::new(plan),
                    right: Box::new(p),
                    kind: super::JoinKind::Inner,
                    on: None,
                    lateral: std::mem::take(&mut self.state.lateral),
                },
                columns,
            };
        }
        let mut recheck = None;
        if let Some(w) = where_clause {
            self.state.clause = Some("WHERE");
            let (e, t) = self.bind(w, &scope, None)?;
            self.state.clause = None;
            let pred = self.coerce_bool(e, t, "WHERE", w)?;
            if others.is_empty() {
                recheck = Some(pred.clone());
            }
            plan = self.filtered_scan(plan, pred);
        }
        if rel.partition_key().is_some() {
            super::partitions::number_targets(&mut plan, &relname);
        }
        Ok((rel, plan, scope, recheck))
    }

    /// UPDATE t SET ... [FROM ...] [WHERE ...] [RETURNING ...].
    pub fn plan_update(&mut self, s: &protobuf::UpdateStmt) -> PgResult<Plan> {
        self.note_system_columns(s);
        let (rel, input, scope, recheck) = self.plan_target_rows(
            s.relation.as_ref(),
            crate::catalog::triggers::UPDATE,
            &s.from_clause,
            s.where_clause.as_ref().and_then(|w| w.node.as_ref()),
        )?;
        if let Some(cx) = &self.tables {
            cx.require(&rel, acl::UPDATE);
        }
        let sets = self.bind_sets(&rel, &s.target_list, &scope)?;
        let checks = self.bind_checks(&rel, &scope)?;
        let generated = self.bind_generated(&rel)?;
        let triggers = self.statement_triggers(&rel, crate::catalog::triggers::UPDATE, false)?;
        let (returning, columns) = self.bind_returning(s.returning_clause.as_ref(), &scope)?;
        Ok(Plan {
            columns,
            node: Node::Modify(Box::new(Modify {
                rel,
                kind: ModifyKind::Update { sets },
                input,
                checks,
                generated,
                returning,
                recheck,
                triggers,
            })),
        })
    }

    /// The SET list of UPDATE or of ON CONFLICT DO UPDATE: (column, expression over `scope`)
    /// per target, converted to the column's type.
    fn bind_sets(
        &mut self,
        rel: &Rel,
        target_list: &[protobuf::Node],
        scope: &Scope,
    ) -> PgResult<Vec<(usize, Expr)>> {
        let tcols = table_columns(rel);
        let dcols = declared_columns(rel);
        let mut sets: Vec<(usize, Expr)> = Vec::new();
        for t in target_list {
            let Some(N::ResTarget(rt)) = &t.node else {
                continue;
            };
            let path = &rt.indirection;
            let val = rt
                .val
                .as_ref()
                .and_then(|v| v.node.as_ref())
                .ok_or_else(|| PgError::syntax("SET without a value"))?;
            // SET (a, b) = (x, y): each target takes its item of the row.
            let val = match val {
                N::MultiAssignRef(m) => multi_assign_item(m)?,
                other => other,
            };
            if crate::catalog::SYSTEM_COLUMNS.contains(&rt.name.as_str()) {
                return Err(PgError::feature_not_supported(format!(
                    "cannot assign to system column \"{}\"",
                    rt.name
                ))
                .at(loc(rt.location)));
            }
            let col = target_column(rel, &rt.name, loc(rt.location))?;
            if let Some(cx) = &self.tables {
                cx.mark(Some((rel.oid, col as i16 + 1)), ColUse::Update);
            }
            if !path.is_empty() {
                // SET c.x = v: the column's value so far (the row's, or an earlier field's
                // assignment in this SET list) with that field replaced.
                let earlier = sets.iter().position(|(c, _)| *c == col);
                let base = match earlier {
                    Some(i) => sets.remove(i).1,
                    None => {
                        let at = scope
                            .cols
                            .iter()
                            .position(|c| c.origin == Some((rel.oid, col as i16 + 1)))
                            .ok_or_else(|| {
                                PgError::internal("UPDATE target column not in scope")
                            })?;
                        Expr::Column(at)
                    }
                };
                if matches!(val, N::SetToDefault(_)) {
                    return Err(default_in_path(path, rt.location));
                }
                let value = self.bind(val, scope, None)?;
                let e = self.assign_path(
                    base,
                    dcols[col].0,
                    dcols[col].1,
                    &rel.columns[col].name,
                    path,
                    value,
                    scope,
                    rt.location,
                )?;
                sets.push((col, e));
                continue;
            }
            if sets.iter().any(|(c, _)| *c == col) {
                return Err(PgError::new(
                    code::DUPLICATE_COLUMN,
                    format!("multiple assignments to same column \"{}\"", rt.name),
                )
                .at(loc(rt.location)));
            }
            if !matches!(val, N::SetToDefault(_)) {
                super::sequence::check_identity_update(rel, col)?;
            }
            let e = if matches!(val, N::SetToDefault(_)) {
                match &rel.columns[col].default {
                    // Computed from the new row once the other assignments are made.
                    Some(_) if rel.columns[col].generated => Expr::Const(Value::Null),
                    Some(text) => {
                        let n = parse_expr(text)?;
                        let (e, t) = self.bind(&n, &Scope::default(), None)?;
                        self.coerce(
                            e,
                            t,
                            dcols[col].0,
                            dcols[col].1,
                            CoercionContext::Assignment,
                            -1,
                        )?
                    }
                    None => self
                        .domain_default(dcols[col].0)?
                        .unwrap_or(Expr::Const(Value::Null)),
                }
            } else {
                let (e, t) = self.bind(val, scope, None)?;
                self.coerce(
                    e,
                    t,
                    dcols[col].0,
                    dcols[col].1,
                    CoercionContext::Assignment,
                    super::node_location(val),
                )
                .map_err(|e| assignment_error(e, &rel.columns[col].name, t, tcols[col].ty, val))?
            };
            sets.push((col, e));
        }
        Ok(sets)
    }

    /// DELETE FROM t [USING ...] [WHERE ...] [RETURNING ...].
    pub fn plan_delete(&mut self, s: &protobuf::DeleteStmt) -> PgResult<Plan> {
        self.note_system_columns(s);
        let (rel, input, scope, recheck) = self.plan_target_rows(
            s.relation.as_ref(),
            crate::catalog::triggers::DELETE,
            &s.using_clause,
            s.where_clause.as_ref().and_then(|w| w.node.as_ref()),
        )?;
        if let Some(cx) = &self.tables {
            cx.require(&rel, acl::DELETE);
        }
        let triggers = self.statement_triggers(&rel, crate::catalog::triggers::DELETE, false)?;
        let (returning, columns) = self.bind_returning(s.returning_clause.as_ref(), &scope)?;
        Ok(Plan {
            columns,
            node: Node::Modify(Box::new(Modify {
                rel,
                kind: ModifyKind::Delete,
                input,
                checks: Vec::new(),
                generated: Vec::new(),
                returning,
                recheck,
                triggers,
            })),
        })
    }
}

/// The field names of a target's indirection (`c.x.y`); subscripts are refused (`what`).
/// PostgreSQL's error for DEFAULT assigned to part of a column.
fn default_in_path(path: &[protobuf::Node], at: i32) -> PgError {
    let what = match path.first().and_then(|n| n.node.as_ref()) {
        Some(N::AIndices(_)) => "cannot set an array element to DEFAULT",
        _ => "cannot set a subfield to DEFAULT",
    };
    PgError::feature_not_supported(what).at(loc(at))
}

/// INSERT's error for a column list longer than the source's rows, at the first column left over.
fn more_targets(cols: &[protobuf::Node], given: usize) -> PgError {
    let at = match cols.get(given).and_then(|c| c.node.as_ref()) {
        Some(N::ResTarget(rt)) => rt.location,
        _ => -1,
    };
    PgError::syntax("INSERT has more target columns than expressions").at(loc(at))
}

/// The item of `SET (a, b, ...) = source` that goes to target number `colno`.
fn multi_assign_item(m: &protobuf::MultiAssignRef) -> PgResult<&N> {
    let source = m
        .source
        .as_ref()
        .and_then(|n| n.node.as_ref())
        .ok_or_else(|| PgError::syntax("SET without a value"))?;
    match source {
        N::RowExpr(r) => {
            if r.args.len() != m.ncolumns.max(0) as usize {
                return Err(
                    PgError::syntax("number of columns does not match number of values")
                        .at(loc(r.location)),
                );
            }
            r.args
                .get((m.colno - 1).max(0) as usize)
                .and_then(|n| n.node.as_ref())
                .ok_or_else(|| PgError::syntax("SET without a value"))
        }
        N::SubLink(_) => Err(PgError::feature_not_supported(
            "UPDATE SET (...) = (SELECT ...) is not supported yet",
        )),
        other => Err(PgError::syntax(
            "source for a multiple-column UPDATE item must be a sub-SELECT or ROW() expression",
        )
        .at(loc(super::node_location(other)))),
    }
}

/// The position of a target column named in INSERT, UPDATE SET or COPY (42703 if there is none).
pub(crate) fn target_column(rel: &Rel, name: &str, at: Option<u32>) -> PgResult<usize> {
    rel.live_columns()
        .find(|(_, c)| c.name == name)
        .map(|(i, _)| i)
        .ok_or_else(|| {
            PgError::new(
                code::UNDEFINED_COLUMN,
                format!(
                    "column \"{name}\" of relation \"{}\" does not exist",
                    rel.name.name
                ),
            )
            .at(at)
        })
}

/// PostgreSQL's message when an assigned value's type does not fit the column.
fn assignment_error(e: PgError, column: &str, from: Type, to: Type, n: &N) -> PgError {
    assignment_error_at(e, column, from, to, super::node_location(n))
}

fn assignment_error_at(e: PgError, column: &str, from: Type, to: Type, location: i32) -> PgError {
    if e.code != code::DATATYPE_MISMATCH && e.code != code::CANNOT_COERCE {
        return e;
    }
    PgError::new(
        code::DATATYPE_MISMATCH,
        format!(
            "column \"{column}\" is of type {} but expression is of type {}",
            to.name(),
            from.name()
        ),
    )
    .with_hint("You will need to rewrite or cast the expression.")
    .at(loc(location))
}

/// Parses a stored expression text (a default or a check) back into a node.
pub fn parse_expr(text: &str) -> PgResult<N> {
    let stmt = crate::sql::parser::parse_node(&format!("SELECT {text}"))?;
    let N::SelectStmt(sel) = stmt else {
        return Err(PgError::internal("stored expression is not an expression"));
    };
    sel.target_list
        .into_iter()
        .next()
        .and_then(|t| match t.node {
            Some(N::ResTarget(rt)) => rt.val.and_then(|v| v.node),
            _ => None,
        })
        .ok_or_else(|| PgError::internal("stored expression is empty"))
}

impl Planner<'_> {
    /// `plan` filtered by a WHERE's `pred`, read through an index where the costs (or, on a
    /// small table, the index's fit) say so (plan/index_path.rs); the conjuncts the index does
    /// not cover stay as a filter.
    pub(super) fn filtered_scan(&self, plan: Plan, pred: Expr) -> Plan {
        let filter = Plan {
            columns: plan.columns.clone(),
            node: Node::Filter {
                input: Box::new(plan),
                pred,
            },
        };
        super::index_path::choose(filter, self.methods())
    }
}

/// What a table's rows need besides their values, bound outside any statement: for the
/// statements foreign-key actions make at run time (`exec::foreign_key`).
pub(crate) struct RowRules {
    pub defaults: Vec<Option<Expr>>,
    pub checks: Vec<(String, Expr)>,
    pub generated: Vec<(usize, Expr)>,
}

/// A table's column defaults, CHECK predicates and generated columns ([`RowRules`]).
pub(crate) fn defaults_and_checks(
    rel: &Rel,
    fmt: &crate::sql::types::FormatCtx,
) -> PgResult<RowRules> {
    let mut params = Vec::new();
    let mut p = Planner::new(&mut params, fmt);
    let defaults = p.bind_defaults(rel)?;
    let scope = p.scope_of(
        &Plan {
            columns: table_columns(rel),
            node: Node::Result,
        },
        &rel.name.name,
    );
    let checks = p.bind_checks(rel, &scope)?;
    let generated = p.bind_generated(rel)?;
    Ok(RowRules {
        defaults,
        checks,
        generated,
    })
}

/// COPY naming a generated column (PostgreSQL 15's CopyGetAttnums), either way.
pub(crate) fn generated_in_copy(name: &str) -> PgError {
    PgError::new(
        code::INVALID_COLUMN_REFERENCE,
        format!("column \"{name}\" is a generated column"),
    )
    .with_detail("Generated columns cannot be used in COPY.")
}
