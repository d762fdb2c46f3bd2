//! CREATE [OR REPLACE] VIEW, DROP VIEW, and what depends on what: the objects a DROP takes
//! with it (CASCADE) or that keep it from happening (2BP01), worded as PostgreSQL words them.
//!
//! A view is a catalog relation of kind View whose data holds its query as SQL text (see
//! `engine::ViewDef`); the planner analyzes the text again wherever the view is named, with the
//! view's column names, and no more columns than the view was created with (a `*` in it does
//! not grow when its table gains a column, as in PostgreSQL, which stores the expanded list).
//!
//! What a view reads is recorded when it is created: each relation named in its query, with
//! the positions of the columns whose names the query mentions (all of them for a `*`). This
//! over-approximates PostgreSQL's column dependencies (a name is taken as a reference to every
//! such column of every relation read) and never under-approximates them.
//!
//! A RENAME of a table or column a view reads rewrites the view's text to the new name
//! (`follow_rename`), where PostgreSQL's stored parse tree follows by OID; ALTER TABLE ... SET
//! SCHEMA of a table a view names without its schema is not followed.

use std::cell::Cell;
use std::sync::Arc;

use pg_query::protobuf::{self, node::Node as N, ObjectType};
use pg_query::NodeRef;

use super::{catalog_error, creation_schema, find, notice, qual, replace_with_data};
use crate::catalog::{ColumnDef, NewRelation, Oid, RelKind};
use crate::error::{code, PgError, PgResult};
use crate::sql::context::SessionCtx;
use crate::sql::engine::{self, Rel, TableData, ViewDef};
use crate::sql::plan::modify::TableCx;
use crate::sql::plan::Planner;
use crate::sql::types::cast::format_type_with_typmod;
use crate::sql::types::Type;
use crate::txn::lock::LockMode;

/// The privileges that allow LOCK in `mode` (PostgreSQL's LockTableAclCheck): UPDATE, DELETE
/// or TRUNCATE allow any mode, SELECT up to ACCESS SHARE, INSERT up to ROW EXCLUSIVE.
pub fn lock_privileges(mode: LockMode) -> u32 {
    use crate::catalog::acl::{DELETE, INSERT, SELECT, TRUNCATE, UPDATE};
    let mut bits = UPDATE | DELETE | TRUNCATE;
    if mode == LockMode::AccessShare {
        bits |= SELECT;
    }
    if matches!(
        mode,
        LockMode::AccessShare | LockMode::RowShare | LockMode::RowExclusive
    ) {
        bits |= INSERT;
    }
    bits
}

/// LOCK TABLE on a view (already locked itself): locks every relation its query reads, in
/// the same mode and with the view owner's privileges, and the relations under the views among
/// them, as PostgreSQL does. The walk enters each view at most once per path (a recursive
/// definition ends where it meets itself), so it is bounded by the catalog's views.
pub fn lock_view(
    cx: &mut dyn SessionCtx,
    view: &Rel,
    mode: LockMode,
    nowait: bool,
) -> PgResult<()> {
    let rels = crate::sql::context::database_relations(cx)?;
    let mut ancestors = vec![view.oid];
    lock_reads(cx, view, &rels, mode, nowait, &mut ancestors)
}

fn lock_reads(
    cx: &mut dyn SessionCtx,
    view: &Rel,
    rels: &[Arc<Rel>],
    mode: LockMode,
    nowait: bool,
    ancestors: &mut Vec<Oid>,
) -> PgResult<()> {
    crate::stack::check()?;
    let Some(def) = view
        .data
        .view
        .as_ref()
        .filter(|_| view.kind == RelKind::View)
    else {
        return Ok(());
    };
    for (oid, _) in &def.deps {
        let Some(r) = rels.iter().find(|r| r.oid == *oid) else {
            continue;
        };
        // A view met again below itself (a recursive definition) is locked already: PostgreSQL
        // stops there rather than failing; only tables and views are locked.
        if ancestors.contains(&r.oid) || !matches!(r.kind, RelKind::Table | RelKind::View) {
            continue;
        }
        super::grant::check_any_as(cx, r, lock_privileges(mode), view.owner)?;
        cx.lock_relation(r.oid, mode, nowait.then_some(r.name.name.as_str()))?;
        if r.kind == RelKind::View {
            ancestors.push(r.oid);
            lock_reads(cx, r, rels, mode, nowait, ancestors)?;
            ancestors.pop();
        }
    }
    Ok(())
}

/// PostgreSQL lists at most this many dependent objects in a message (MAX_REPORTED_DEPS).
const MAX_REPORTED: usize = 100;

#[derive(Debug, Clone)]
pub enum ViewDdl {
    Create {
        schema: String,
        name: String,
        /// Column names given after the view's name.
        aliases: Vec<String>,
        query: Box<N>,
        replace: bool,
        /// Where the view's name stands in the statement, for error positions.
        location: i32,
    },
    Drop {
        names: Vec<(String, String)>,
        if_exists: bool,
        cascade: bool,
    },
}

impl ViewDdl {
    pub fn tag(&self) -> &'static str {
        match self {
            ViewDdl::Create { .. } => "CREATE VIEW",
            ViewDdl::Drop { .. } => "DROP VIEW",
        }
    }
}

pub fn analyze(node: &N) -> Option<PgResult<ViewDdl>> {
    match node {
        N::ViewStmt(v) => {
            let rv = v.view.as_ref()?;
            let query = v.query.as_ref().and_then(|q| q.node.clone())?;
            if v.with_check_option != protobuf::ViewCheckOption::NoCheckOption as i32 {
                return Some(Err(PgError::feature_not_supported(
                    "WITH CHECK OPTION is not supported yet",
                )));
            }
            Some(Ok(ViewDdl::Create {
                // CREATE TEMP VIEW: in the session's temporary schema.
                schema: if rv.relpersistence == "t" && rv.schemaname.is_empty() {
                    "pg_temp".to_string()
                } else {
                    rv.schemaname.clone()
                },
                name: rv.relname.clone(),
                aliases: super::names_of(&v.aliases),
                query: Box::new(query),
                replace: v.replace,
                location: rv.location,
            }))
        }
        N::DropStmt(d) if d.remove_type == ObjectType::ObjectView as i32 => {
            Some(Ok(ViewDdl::Drop {
                names: super::drop_names(d),
                if_exists: d.missing_ok,
                cascade: d.behavior == protobuf::DropBehavior::DropCascade as i32,
            }))
        }
        _ => None,
    }
}

pub fn execute(v: &ViewDdl, cx: &mut dyn SessionCtx) -> PgResult<()> {
    match v {
        ViewDdl::Create {
            schema,
            name,
            aliases,
            query,
            replace,
            location,
        } => create_view(cx, schema, name, aliases, query, *replace, *location, None),
        ViewDdl::Drop {
            names,
            if_exists,
            cascade,
        } => {
            let mut found = Vec::new();
            for (schema, name) in names {
                match find(cx, schema, name)? {
                    Some(r) if r.kind == RelKind::View => {
                        super::grant::check_owner(cx, &r)?;
                        found.push(r)
                    }
                    Some(r) => return Err(wrong_kind(name, r.kind, "a view", "VIEW")),
                    None if *if_exists => cx.notice(notice(
                        format!("view \"{name}\" does not exist, skipping"),
                        code::SUCCESSFUL_COMPLETION,
                    )),
                    None => {
                        return Err(PgError::new(
                            code::UNDEFINED_TABLE,
                            format!("view \"{name}\" does not exist"),
                        ))
                    }
                }
            }
            drop_dependents(cx, &found, *cascade)?;
            for r in &found {
                drop_relation(cx, r)?;
            }
            Ok(())
        }
    }
}

/// 42809 for DROP <what> naming a relation of another kind, with PostgreSQL's hint.
pub fn wrong_kind(name: &str, kind: RelKind, expected: &str, _stmt: &str) -> PgError {
    let hint = match kind {
        RelKind::Table => "Use DROP TABLE to remove a table.",
        RelKind::Index => "Use DROP INDEX to remove an index.",
        RelKind::View => "Use DROP VIEW to remove a view.",
        RelKind::Sequence => "Use DROP SEQUENCE to remove a sequence.",
        RelKind::MatView => "Use DROP MATERIALIZED VIEW to remove a materialized view.",
    };
    PgError::new(
        code::WRONG_OBJECT_TYPE,
        format!("\"{name}\" is not {expected}"),
    )
    .with_hint(hint)
}

/// CREATE [OR REPLACE] VIEW; `path`: where unqualified names resolve (None: search_path).
#[allow(clippy::too_many_arguments)]
pub fn create_view(
    cx: &mut dyn SessionCtx,
    schema: &str,
    name: &str,
    aliases: &[String],
    query: &N,
    replace: bool,
    location: i32,
    path: Option<String>,
) -> PgResult<()> {
    let schema = creation_schema(cx, schema, location)?;
    let search_path = path.unwrap_or_else(|| stored_search_path(cx, &schema));
    let text = query
        .deparse(Default::default())
        .map_err(|e| PgError::internal(format!("cannot deparse the view's query: {e}")))?;
    // Plan the query as the view's users will, for its columns.
    let snap = cx.catalog_snapshot()?;
    let fmt = cx.fmt().clone();
    let used = Cell::new(false);
    let locks = Default::default();
    let perms = crate::sql::privs::Collector::default();
    let plan = {
        let tables = TableCx {
            catalog: &cx.instance().catalog,
            snap,
            database: cx.database(),
            search_path: std::borrow::Cow::Borrowed(&search_path),
            used: &used,
            locks: &locks,
            superuser: true,
            role: crate::catalog::roles::BOOTSTRAP_SUPERUSER,
            perms: &perms,
            check_as: None,
            methods: Default::default(),
            transitions: &[],
        };
        let mut params = Vec::new();
        let mut planner = Planner::new(&mut params, &fmt);
        planner.tables = Some(tables);
        // A view may read a materialized view not populated yet; its readers cannot.
        planner.scan_unpopulated = true;
        planner.plan_query(query)?
    };
    if crate::sql::plan::has_modifying_ctes(&plan) {
        return Err(PgError::feature_not_supported(
            "views must not contain data-modifying statements in WITH",
        ));
    }
    if aliases.len() > plan.columns.len() {
        return Err(PgError::new(
            code::SYNTAX_ERROR,
            "CREATE VIEW specifies more column names than columns",
        ));
    }
    let mut columns: Vec<ColumnDef> = Vec::with_capacity(plan.columns.len());
    for (i, c) in plan.columns.iter().enumerate() {
        let name = aliases.get(i).cloned().unwrap_or_else(|| c.name.clone());
        if columns.iter().any(|x| x.name == name) {
            return Err(PgError::new(
                code::DUPLICATE_COLUMN,
                format!("column \"{name}\" specified more than once"),
            ));
        }
        // An untyped literal is text in a view (PostgreSQL 10 and later).
        let ty = if c.ty == Type::UNKNOWN {
            Type::TEXT
        } else {
            c.ty
        };
        columns.push(ColumnDef {
            name,
            type_oid: ty.0,
            typmod: c.typmod,
            not_null: false,
            default: None,
            identity: None,
            generated: false,
            dropped: false,
            domain: None,
        });
    }
    let deps = dependencies(cx, query, &search_path)?;
    let data = Arc::new(TableData::of_view(ViewDef {
        query: text,
        deps,
        search_path,
    }));
    if let Some(old) = find(cx, &schema, name)? {
        if !replace {
            return Err(super::already_exists(name));
        }
        if old.kind != RelKind::View {
            return Err(PgError::new(
                code::WRONG_OBJECT_TYPE,
                format!("\"{name}\" is not a view"),
            ));
        }
        super::grant::check_owner(cx, &old)?;
        check_replacement(&old, &columns)?;
        replace_with_data(cx, &old, data, move |n| n.columns = columns)?;
        return Ok(());
    }
    let (cell, cid) = cx.writer("CREATE VIEW")?;
    let snap = cx.catalog_snapshot()?;
    let rel = NewRelation {
        name: qual(cx, &schema, name),
        kind: RelKind::View,
        persistence: if engine::is_temp_schema(&schema) {
            crate::catalog::Persistence::Temporary
        } else {
            crate::catalog::Persistence::Permanent
        },
        columns,
        indexes: Vec::new(),
        constraints: Vec::new(),
        owner: cx.role_oid(),
        acl: None,
        column_acls: vec![],
        triggers: vec![],
        rules: vec![],
        table: None,
        matview: None,
        partition: None,
        data,
    };
    cx.instance()
        .catalog
        .create(None, rel, &snap, &cell, cid)
        .map_err(|e| catalog_error(e, name))?;
    Ok(())
}

/// The search_path a view or materialized view made now in `schema` keeps for its names: the
/// session's, without the temporary schema unless the view is made there (other sessions use
/// the view).
pub(super) fn stored_search_path(cx: &mut dyn SessionCtx, schema: &str) -> String {
    cx.search_path()
        .into_iter()
        .filter(|s| !engine::is_temp_schema(s) || engine::is_temp_schema(schema))
        .collect::<Vec<_>>()
        .join(",")
}

/// CREATE OR REPLACE VIEW keeps the old columns (names and types, in order) and may add more.
fn check_replacement(old: &Rel, new: &[ColumnDef]) -> PgResult<()> {
    let old_cols: Vec<&ColumnDef> = old.live_columns().map(|(_, c)| c).collect();
    if new.len() < old_cols.len() {
        return Err(PgError::new(
            code::INVALID_TABLE_DEFINITION,
            "cannot drop columns from view",
        ));
    }
    for (o, n) in old_cols.iter().zip(new) {
        if o.name != n.name {
            return Err(PgError::new(
                code::INVALID_TABLE_DEFINITION,
                format!(
                    "cannot change name of view column \"{}\" to \"{}\"",
                    o.name, n.name
                ),
            )
            .with_hint(
                "Use ALTER VIEW ... RENAME COLUMN ... to change name of view column instead.",
            ));
        }
        if o.type_oid != n.type_oid || o.typmod != n.typmod {
            return Err(PgError::new(
                code::INVALID_TABLE_DEFINITION,
                format!(
                    "cannot change data type of view column \"{}\" from {} to {}",
                    o.name,
                    format_type_with_typmod(Type(o.type_oid), o.typmod),
                    format_type_with_typmod(Type(n.type_oid), n.typmod)
                ),
            ));
        }
    }
    Ok(())
}

/// The relations a view's query names, each with the positions of its columns the query
/// mentions by name (all of them where the query has a `*`).
pub(super) fn dependencies(
    cx: &mut dyn SessionCtx,
    query: &N,
    path: &str,
) -> PgResult<Vec<(Oid, Vec<usize>)>> {
    let mut rels: Vec<Arc<Rel>> = Vec::new();
    let mut names: Vec<String> = Vec::new();
    let mut star = false;
    let mut ranges = Vec::new();
    for (n, _, _, _) in query.nodes() {
        match n {
            NodeRef::RangeVar(rv) => ranges.push((rv.schemaname.clone(), rv.relname.clone())),
            NodeRef::ColumnRef(cr) => match cr.fields.last().and_then(|f| f.node.as_ref()) {
                Some(N::AStar(_)) => star = true,
                Some(N::String(s)) => names.push(s.sval.clone()),
                _ => {}
            },
            _ => {}
        }
    }
    let snap = cx.catalog_snapshot()?;
    for (schema, name) in ranges {
        let found = engine::find_rel(
            &cx.instance().catalog,
            &snap,
            cx.database(),
            engine::search_schemas(path),
            &schema,
            &name,
        );
        if let Some(r) = found {
            if !rels.iter().any(|x| x.oid == r.oid) {
                rels.push(r);
            }
        }
    }
    Ok(rels
        .iter()
        .map(|r| {
            let cols = r
                .live_columns()
                .filter(|(_, c)| star || names.contains(&c.name))
                .map(|(i, _)| i)
                .collect();
            (r.oid, cols)
        })
        .collect())
}

/// Every view and materialized view of the session's database, as the catalog snapshot sees
/// it, in OID order.
fn all_views(cx: &mut dyn SessionCtx) -> PgResult<Vec<Arc<Rel>>> {
    let mut rels = crate::sql::context::database_relations(cx)?;
    rels.retain(|r| matches!(r.kind, RelKind::View | RelKind::MatView));
    Ok(rels)
}

fn reads(view: &Rel, oid: Oid) -> Option<&[usize]> {
    engine::view_def(view)?
        .deps
        .iter()
        .find(|(o, _)| *o == oid)
        .map(|(_, c)| c.as_slice())
}

fn kind_word(kind: RelKind) -> &'static str {
    match kind {
        RelKind::Table => "table",
        RelKind::Index => "index",
        RelKind::View => "view",
        RelKind::Sequence => "sequence",
        RelKind::MatView => "materialized view",
    }
}

/// How PostgreSQL names a relation in a message: qualified unless search_path finds it, each
/// part quoted where needed (getObjectDescription's quote_qualified_identifier).
pub fn describe(cx: &mut dyn SessionCtx, r: &Rel) -> PgResult<String> {
    use crate::sql::quote::quote_ident;
    let visible = find(cx, "", &r.name.name)?.is_some_and(|x| x.oid == r.oid);
    Ok(if visible {
        format!("{} {}", kind_word(r.kind), quote_ident(&r.name.name))
    } else {
        format!(
            "{} {}.{}",
            kind_word(r.kind),
            quote_ident(&r.name.schema),
            quote_ident(&r.name.name)
        )
    })
}

/// The objects that go with `start` (each with the description of what it depends on), and
/// the views that read them, depth first as PostgreSQL lists them; `exclude`d OIDs are being
/// dropped anyway. With `start_first`, an object of `start` is listed for its own reason even
/// where it also reads another one (the members of a dropped schema).
pub fn cascade_list(
    cx: &mut dyn SessionCtx,
    start: Vec<(Arc<Rel>, String)>,
    exclude: &[Oid],
    start_first: bool,
) -> PgResult<Vec<(Arc<Rel>, String)>> {
    let views = all_views(cx)?;
    let members: Vec<Oid> = if start_first {
        start.iter().map(|(r, _)| r.oid).collect()
    } else {
        Vec::new()
    };
    let mut out: Vec<(Arc<Rel>, String)> = Vec::new();
    let mut stack: Vec<(Arc<Rel>, String)> = start.into_iter().rev().collect();
    while let Some((r, why)) = stack.pop() {
        if exclude.contains(&r.oid) || out.iter().any(|(x, _)| x.oid == r.oid) {
            continue;
        }
        let me = describe(cx, &r)?;
        // A view that is itself one of `start` is listed for its own reason, in its place.
        let next: Vec<(Arc<Rel>, String)> = views
            .iter()
            .filter(|v| reads(v, r.oid).is_some() && !members.contains(&v.oid))
            .map(|v| (v.clone(), me.clone()))
            .collect();
        out.push((r, why));
        stack.extend(next.into_iter().rev());
    }
    Ok(out)
}

/// Fails with 2BP01 naming `what` when `list` is not empty and there is no CASCADE; with
/// CASCADE, tells what goes too (NOTICE) and drops it.
pub fn report_and_drop(
    cx: &mut dyn SessionCtx,
    what: &str,
    list: Vec<(Arc<Rel>, String)>,
    cascade: bool,
) -> PgResult<()> {
    if list.is_empty() {
        return Ok(());
    }
    let mut lines = Vec::new();
    for (r, why) in list.iter().take(MAX_REPORTED) {
        let d = describe(cx, r)?;
        lines.push(if cascade {
            format!("drop cascades to {d}")
        } else {
            format!("{d} depends on {why}")
        });
    }
    if list.len() > MAX_REPORTED {
        lines.push(format!(
            "and {} other objects (see server log for list)",
            list.len() - MAX_REPORTED
        ));
    }
    if !cascade {
        return Err(super::dependents_exist(what, &lines));
    }
    cx.notice(super::cascade_notice(list.len(), &lines));
    for (r, _) in &list {
        drop_relation(cx, r)?;
    }
    Ok(())
}

/// What DROP TABLE / DROP VIEW of `rels` does to the views that read them.
pub fn drop_dependents(cx: &mut dyn SessionCtx, rels: &[Arc<Rel>], cascade: bool) -> PgResult<()> {
    let exclude: Vec<Oid> = rels.iter().map(|r| r.oid).collect();
    let mut start = Vec::new();
    for r in rels {
        let me = describe(cx, r)?;
        for v in all_views(cx)? {
            if reads(&v, r.oid).is_some() {
                start.push((v, me.clone()));
            }
        }
    }
    let list = cascade_list(cx, start, &exclude, false)?;
    let what = match rels {
        [one] => describe(cx, one)?,
        _ => "desired object(s)".to_string(),
    };
    if rels.len() > 1 && !list.is_empty() && !cascade {
        // PostgreSQL words several objects differently.
        return Err(PgError::new(
            code::DEPENDENT_OBJECTS_STILL_EXIST,
            "cannot drop desired object(s) because other objects depend on them",
        )
        .with_detail(
            list.iter()
                .take(MAX_REPORTED)
                .map(|(r, why)| Ok(format!("{} depends on {why}", describe(cx, r)?)))
                .collect::<PgResult<Vec<_>>>()?
                .join("\n"),
        )
        .with_hint("Use DROP ... CASCADE to drop the dependent objects too."));
    }
    report_and_drop(cx, &what, list, cascade)
}

/// DROP COLUMN of column `pos` of `t`: the views that read it block it, or go with CASCADE.
pub fn column_dependents(
    cx: &mut dyn SessionCtx,
    t: &Rel,
    pos: usize,
    cascade: bool,
) -> PgResult<()> {
    let col = t.columns[pos].name.clone();
    let what = format!("column {col} of {}", describe(cx, t)?);
    let start: Vec<(Arc<Rel>, String)> = all_views(cx)?
        .into_iter()
        .filter(|v| reads(v, t.oid).is_some_and(|c| c.contains(&pos)))
        .map(|v| (v, what.clone()))
        .collect();
    let list = cascade_list(cx, start, &[t.oid], false)?;
    report_and_drop(cx, &what, list, cascade)
}

/// ALTER COLUMN TYPE of a column a view reads fails (PostgreSQL cannot rewrite the view).
pub fn column_type_dependents(cx: &mut dyn SessionCtx, t: &Rel, pos: usize) -> PgResult<()> {
    if let Some(v) = all_views(cx)?
        .into_iter()
        .find(|v| reads(v, t.oid).is_some_and(|c| c.contains(&pos)))
    {
        return Err(PgError::new(
            code::FEATURE_NOT_SUPPORTED,
            "cannot alter type of a column used by a view or rule",
        )
        .with_detail(format!(
            "rule _RETURN on {} depends on column \"{}\"",
            describe(cx, &v)?,
            t.columns[pos].name
        )));
    }
    Ok(())
}

/// Rewrites the views that read relation `oid` (its column `column`, if given) so that they
/// name `new` where they named `old` (a RENAME of the relation or column).
pub fn follow_rename(
    cx: &mut dyn SessionCtx,
    oid: Oid,
    column: Option<usize>,
    old: &str,
    new: &str,
) -> PgResult<()> {
    rewrite_readers(cx, oid, column, |q| {
        Ok(super::alter::rename_in_query(q, old, new))
    })
}

/// Rewrites the views that name relation `oid` (called `name`) without a schema so that they
/// name it in `schema`, where ALTER ... SET SCHEMA moves it (PostgreSQL's stored parse tree
/// follows the OID; the text must say where it went).
pub fn follow_set_schema(
    cx: &mut dyn SessionCtx,
    oid: Oid,
    name: &str,
    schema: &str,
) -> PgResult<()> {
    use crate::sql::quote::quote_ident;
    rewrite_readers(cx, oid, None, |q| {
        let tree = crate::sql::parser::parse_tree(q)?;
        let mut at: Vec<usize> = tree
            .nodes()
            .into_iter()
            .filter_map(|(n, _, _, _)| match n {
                pg_query::NodeRef::RangeVar(rv)
                    if rv.relname == name && rv.schemaname.is_empty() && rv.location >= 0 =>
                {
                    Some(rv.location as usize)
                }
                _ => None,
            })
            .collect();
        at.sort_unstable();
        let mut out = q.to_string();
        for p in at.into_iter().rev() {
            if out.is_char_boundary(p) {
                out.insert_str(p, &format!("{}.", quote_ident(schema)));
            }
        }
        Ok(out)
    })
}

/// Gives the views and materialized views that read relation `oid` (its column `column`, if
/// given) the query text `f` makes of theirs.
fn rewrite_readers(
    cx: &mut dyn SessionCtx,
    oid: Oid,
    column: Option<usize>,
    f: impl Fn(&str) -> PgResult<String>,
) -> PgResult<()> {
    for v in all_views(cx)? {
        let hit = reads(&v, oid).is_some_and(|c| column.is_none_or(|p| c.contains(&p)));
        let Some(def) = engine::view_def(&v).filter(|_| hit) else {
            continue;
        };
        let def = ViewDef {
            query: f(&def.query)?,
            ..def.clone()
        };
        match &v.matview {
            // A materialized view's definition is in its version: its rows stay.
            Some(m) => {
                let m = crate::catalog::MatView {
                    def,
                    populated: m.populated,
                };
                replace_with_data(cx, &v, v.data.clone(), |n| n.matview = Some(Box::new(m)))?;
            }
            None => {
                replace_with_data(cx, &v, Arc::new(TableData::of_view(def)), |_| {})?;
            }
        }
    }
    Ok(())
}

/// Ends a relation's version, and for a table its indexes' too.
pub fn drop_relation(cx: &mut dyn SessionCtx, r: &Rel) -> PgResult<()> {
    let (cell, cid) = cx.writer("DROP")?;
    cx.instance()
        .catalog
        .end(r, &cell, cid)
        .map_err(|e| catalog_error(e, &r.name.name))?;
    if r.kind.has_rows() {
        for i in &r.indexes {
            if let Some(ir) = find(cx, &r.name.schema, &i.name)? {
                cx.instance()
                    .catalog
                    .end(&ir, &cell, cid)
                    .map_err(|e| catalog_error(e, &i.name))?;
            }
        }
        super::sequence::drop_owned(cx, r)?;
    }
    Ok(())
}
