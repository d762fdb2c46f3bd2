//! The maintenance commands: VACUUM, ANALYZE and REINDEX.
//!
//! VACUUM reclaims the dead row versions of the named tables (or of every table of the
//! database) and ANALYZE gathers their statistics (`engine::analyze_table`, logged so that a
//! restart keeps them).
//!
//! REINDEX { INDEX | TABLE | SCHEMA | DATABASE | SYSTEM } [CONCURRENTLY] builds each index
//! anew from its table's rows and puts the new tree in place of the old one; a unique index
//! that would hold a key twice fails with 23505 and keeps its old tree, as PostgreSQL keeps the
//! old index. Indexes live in memory and are rebuilt from the rows at every start, so REINDEX
//! writes nothing to the log. Locks as PostgreSQL's plain REINDEX: SHARE on the table (writers
//! wait, readers go on) while its indexes are built. CONCURRENTLY takes the same lock: a build
//! in memory is short, and a second copy of the index beside the first (PostgreSQL's way of
//! letting writers go on) would double its memory. Everything else about CONCURRENTLY is as
//! PostgreSQL has it: refused in a transaction block and for the system catalogs, which
//! threadgres computes and never needs to reindex (REINDEX SYSTEM does nothing).
//!
//! A partitioned table's indexes are its partitions'; REINDEX of a partitioned table or index
//! reindexes the leaves, and (as PostgreSQL, which commits per partition) is refused inside a
//! transaction block.

use std::sync::Arc;

use pg_query::protobuf::{self, node::Node as N};

use super::{find, find_locked, grant, index, notice, rel_name};
use crate::catalog::RelKind;
use crate::error::{code, PgError, PgResult};
use crate::sql::context::SessionCtx;
use crate::sql::engine::{self, Rel};
use crate::txn::lock::LockMode;

/// A maintenance statement as parsed.
#[derive(Debug, Clone)]
pub enum Maintenance {
    /// VACUUM (`vacuum`) and / or ANALYZE (`analyze`) of the named tables, or of every table.
    Vacuum {
        tables: Vec<(String, String)>,
        vacuum: bool,
        analyze: bool,
    },
    Reindex(Reindex),
}

/// What REINDEX names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    Index,
    Table,
    Schema,
    Database,
    System,
}

#[derive(Debug, Clone)]
pub struct Reindex {
    pub target: Target,
    /// The relation (INDEX, TABLE) as (schema, name), or the schema's or database's name.
    pub name: (String, String),
    pub concurrently: bool,
    pub verbose: bool,
    /// A bad option: PostgreSQL reports it when the statement runs, not when it is parsed.
    pub bad_option: Option<PgError>,
}

impl Maintenance {
    pub fn tag(&self) -> &'static str {
        match self {
            Maintenance::Vacuum { vacuum: true, .. } => "VACUUM",
            Maintenance::Vacuum { vacuum: false, .. } => "ANALYZE",
            Maintenance::Reindex(_) => "REINDEX",
        }
    }

    /// Whether the statement refuses to run inside a transaction block whatever it names.
    pub fn outside_blocks_only(&self) -> Option<&'static str> {
        match self {
            Maintenance::Vacuum { vacuum: true, .. } => Some("VACUUM"),
            Maintenance::Reindex(r) if r.concurrently => Some("REINDEX CONCURRENTLY"),
            _ => None,
        }
    }
}

pub fn parse_vacuum(v: &protobuf::VacuumStmt) -> Maintenance {
    Maintenance::Vacuum {
        tables: v
            .rels
            .iter()
            .filter_map(|r| match r.node.as_ref()? {
                N::VacuumRelation(vr) => vr.relation.as_ref().map(rel_name),
                _ => None,
            })
            .collect(),
        vacuum: v.is_vacuumcmd,
        analyze: !v.is_vacuumcmd
            || v.options
                .iter()
                .any(|o| matches!(o.node.as_ref(), Some(N::DefElem(d)) if d.defname == "analyze")),
    }
}

pub fn parse_reindex(r: &protobuf::ReindexStmt) -> PgResult<Maintenance> {
    use protobuf::ReindexObjectType as K;
    let target = match K::try_from(r.kind) {
        Ok(K::ReindexObjectIndex) => Target::Index,
        Ok(K::ReindexObjectTable) => Target::Table,
        Ok(K::ReindexObjectSchema) => Target::Schema,
        Ok(K::ReindexObjectDatabase) => Target::Database,
        Ok(K::ReindexObjectSystem) => Target::System,
        _ => return Err(PgError::syntax("unrecognized REINDEX object type")),
    };
    let (mut concurrently, mut verbose) = (false, false);
    let mut bad_option = None;
    for p in &r.params {
        let Some(N::DefElem(d)) = p.node.as_ref() else {
            continue;
        };
        let on = d
            .arg
            .as_ref()
            .and_then(|a| a.node.as_ref())
            .map_or(Ok(true), |a| match a {
                N::Boolean(b) => Ok(b.boolval),
                N::Integer(i) => Ok(i.ival != 0),
                N::String(s) => match s.sval.to_ascii_lowercase().as_str() {
                    "true" | "on" => Ok(true),
                    "false" | "off" => Ok(false),
                    _ => Err(()),
                },
                _ => Err(()),
            });
        let Ok(on) = on else {
            bad_option.get_or_insert(PgError::new(
                code::SYNTAX_ERROR,
                format!("{} requires a Boolean value", d.defname),
            ));
            continue;
        };
        match d.defname.as_str() {
            "concurrently" => concurrently = on,
            "verbose" => verbose = on,
            "tablespace" => {
                bad_option.get_or_insert(PgError::feature_not_supported(
                    "REINDEX ... TABLESPACE is not supported: threadgres has no tablespaces",
                ));
            }
            other => {
                bad_option.get_or_insert(
                    PgError::new(
                        code::SYNTAX_ERROR,
                        format!("unrecognized REINDEX option \"{other}\""),
                    )
                    .with_position((d.location + 1) as u32),
                );
            }
        }
    }
    let name = match &r.relation {
        Some(rv) => rel_name(rv),
        None => (String::new(), r.name.clone()),
    };
    Ok(Maintenance::Reindex(Reindex {
        target,
        name,
        concurrently,
        verbose,
        bad_option,
    }))
}

pub fn execute(m: &Maintenance, cx: &mut dyn SessionCtx) -> PgResult<()> {
    match m {
        Maintenance::Vacuum {
            tables,
            vacuum,
            analyze,
        } => vacuum_analyze(cx, tables, *vacuum, *analyze),
        Maintenance::Reindex(r) => reindex(cx, r),
    }
}

fn vacuum_analyze(
    cx: &mut dyn SessionCtx,
    tables: &[(String, String)],
    vacuum: bool,
    analyze: bool,
) -> PgResult<()> {
    let mut rels = Vec::new();
    if tables.is_empty() {
        rels = database_tables(cx)?;
    }
    for (schema, name) in tables {
        match find(cx, schema, name)? {
            Some(r) => rels.push(r),
            None => return Err(undefined(name)),
        }
    }
    if vacuum {
        let txns = &cx.instance().txns;
        let (horizon, now) = (txns.horizon(), txns.visible());
        for r in rels.iter().filter(|r| r.kind.has_rows()) {
            // As PostgreSQL's VACUUM resets the table's counts of changes: the background
            // vacuum has nothing left to do for them (after a bulk load it would otherwise
            // scan the table again, beside the next statement).
            r.data
                .changes
                .store(0, std::sync::atomic::Ordering::Relaxed);
            engine::vacuum(r, horizon, now);
            let s = &r.data.stats;
            s.vacuums.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            s.last_vacuum.store(
                crate::sql::types::datetime::now_timestamptz(),
                std::sync::atomic::Ordering::Relaxed,
            );
        }
    }
    if analyze {
        let snap = cx.snapshot()?;
        let wal = cx.instance().txns.wal().cloned();
        for r in rels.iter().filter(|r| r.kind.has_rows()) {
            engine::analyze_table(r, &snap, false, wal.as_deref())?;
        }
    }
    Ok(())
}

/// The tables of the current database that hold rows.
fn database_tables(cx: &mut dyn SessionCtx) -> PgResult<Vec<Arc<Rel>>> {
    let mut rels = crate::sql::context::database_relations(cx)?;
    rels.retain(|r| r.kind.has_rows());
    Ok(rels)
}

fn undefined(name: &str) -> PgError {
    PgError::new(
        code::UNDEFINED_TABLE,
        format!("relation \"{name}\" does not exist"),
    )
}

fn system_concurrently() -> PgError {
    PgError::feature_not_supported("cannot reindex system catalogs concurrently")
}

/// Whether `(schema, name)` names one of the system catalogs (which threadgres computes).
fn is_catalog(cx: &mut dyn SessionCtx, schema: &str, name: &str) -> PgResult<bool> {
    if matches!(schema, "pg_catalog" | "pg_toast") {
        return Ok(true);
    }
    // The catalogs' own indexes are named pg_<catalog>_..._index; threadgres lists only the
    // catalogs among its relations.
    let catalog_index = name.starts_with("pg_") && name.ends_with("_index");
    Ok(schema.is_empty()
        && (crate::sql::catalog::regclass_oid(name).is_some() || catalog_index)
        && find(cx, schema, name)?.is_none())
}

fn reindex(cx: &mut dyn SessionCtx, r: &Reindex) -> PgResult<()> {
    if let Some(e) = &r.bad_option {
        return Err(e.clone());
    }
    let (schema, name) = (&r.name.0, &r.name.1);
    match r.target {
        Target::Index | Target::Table => {
            if r.concurrently && is_catalog(cx, schema, name)? {
                return Err(system_concurrently());
            }
            if schema == "pg_catalog" || schema == "pg_toast" {
                // Nothing to rebuild: the catalogs are computed.
                return Ok(());
            }
            let Some(rel) = find_locked(cx, schema, name, LockMode::Share)? else {
                if is_catalog(cx, schema, name)? {
                    return Ok(());
                }
                return Err(undefined(name));
            };
            if r.target == Target::Index {
                reindex_index(cx, r, &rel)
            } else {
                reindex_named_table(cx, r, &rel)
            }
        }
        Target::Schema => {
            if r.concurrently && matches!(name.as_str(), "pg_catalog" | "pg_toast") {
                cx.notice(PgError::warning(
                    code::FEATURE_NOT_SUPPORTED,
                    "cannot reindex system catalogs concurrently, skipping all",
                ));
                return Ok(());
            }
            let snap = cx.catalog_snapshot()?;
            if !engine::schema_exists(&cx.instance().catalog, &snap, cx.database(), name) {
                return Err(PgError::new(
                    code::INVALID_SCHEMA_NAME,
                    format!("schema \"{name}\" does not exist"),
                ));
            }
            let tables: Vec<Arc<Rel>> = database_tables(cx)?
                .into_iter()
                .filter(|t| &t.name.schema == name)
                .collect();
            reindex_tables(cx, r, tables)
        }
        Target::Database | Target::System => {
            if r.target == Target::System && r.concurrently {
                return Err(system_concurrently());
            }
            if !name.is_empty() && name != cx.database() {
                return Err(PgError::feature_not_supported(
                    "can only reindex the currently open database",
                ));
            }
            if r.target == Target::System {
                return Ok(());
            }
            if r.concurrently {
                cx.notice(PgError::warning(
                    code::FEATURE_NOT_SUPPORTED,
                    "cannot reindex system catalogs concurrently, skipping all",
                ));
            }
            let tables = database_tables(cx)?;
            reindex_tables(cx, r, tables)
        }
    }
}

/// REINDEX INDEX: the index, or (a partitioned table's index) its partitions' indexes.
fn reindex_index(cx: &mut dyn SessionCtx, r: &Reindex, rel: &Arc<Rel>) -> PgResult<()> {
    if rel.kind != RelKind::Index {
        return Err(PgError::new(
            code::WRONG_OBJECT_TYPE,
            format!("\"{}\" is not an index", rel.name.name),
        ));
    }
    let Some(table_oid) = rel.table else {
        return Ok(());
    };
    let snap = cx.catalog_snapshot()?;
    let found = cx
        .instance()
        .catalog
        .visible(&snap)
        .into_iter()
        .find(|t| t.oid == table_oid);
    let Some(table) = found else {
        return Ok(());
    };
    grant::check_owner(cx, &table)?;
    if table.partition_key().is_some() {
        refuse_in_block(cx, "REINDEX INDEX", "index", rel)?;
        let leaves = leaves_of(cx, &table)?;
        return reindex_tables(cx, r, leaves);
    }
    // The table's lock: writers of its indexes wait while the tree is built.
    let Some(table) = find_locked(cx, &table.name.schema, &table.name.name, LockMode::Share)?
    else {
        return Ok(());
    };
    if let Some(def) = table.indexes.iter().find(|d| d.oid == rel.oid) {
        rebuild(cx, r, &table, def)?;
    }
    Ok(())
}

/// REINDEX TABLE: the table's indexes (PostgreSQL's notice when it has none).
fn reindex_named_table(cx: &mut dyn SessionCtx, r: &Reindex, rel: &Arc<Rel>) -> PgResult<()> {
    if !matches!(rel.kind, RelKind::Table | RelKind::MatView) {
        return Err(PgError::new(
            code::WRONG_OBJECT_TYPE,
            format!("\"{}\" is not a table or materialized view", rel.name.name),
        ));
    }
    grant::check_owner(cx, rel)?;
    if rel.partition_key().is_some() {
        refuse_in_block(cx, "REINDEX TABLE", "table", rel)?;
        let leaves = leaves_of(cx, rel)?;
        return reindex_tables(cx, r, leaves);
    }
    if rel.indexes.is_empty() {
        let what = if r.concurrently {
            "that can be reindexed concurrently"
        } else {
            "to reindex"
        };
        cx.notice(notice(
            format!("table \"{}\" has no indexes {what}", rel.name.name),
            code::SUCCESSFUL_COMPLETION,
        ));
        return Ok(());
    }
    reindex_table(cx, r, rel)
}

/// Each table's indexes, the table locked while they are built.
fn reindex_tables(cx: &mut dyn SessionCtx, r: &Reindex, tables: Vec<Arc<Rel>>) -> PgResult<()> {
    for t in tables {
        if t.partition_key().is_some() || t.indexes.is_empty() {
            continue;
        }
        if let Some(t) = find_locked(cx, &t.name.schema, &t.name.name, LockMode::Share)? {
            reindex_table(cx, r, &t)?;
        }
    }
    Ok(())
}

fn reindex_table(cx: &mut dyn SessionCtx, r: &Reindex, t: &Rel) -> PgResult<()> {
    for def in &t.indexes {
        rebuild(cx, r, t, def)?;
    }
    Ok(())
}

/// Rebuilds one index; VERBOSE reports it with the CPU and wall time the build took, as
/// PostgreSQL's INFO does.
fn rebuild(
    cx: &mut dyn SessionCtx,
    r: &Reindex,
    t: &Rel,
    def: &crate::catalog::IndexDef,
) -> PgResult<()> {
    let before = (r.verbose).then(|| (thread_cpu(), std::time::Instant::now()));
    index::rebuild_index(cx, t, def)?;
    if let Some(((user0, sys0), at)) = before {
        let (user, sys) = thread_cpu();
        cx.notice(
            PgError::info(
                code::SUCCESSFUL_COMPLETION,
                format!("index \"{}\" was reindexed", def.name),
            )
            .with_detail(format!(
                "CPU: user: {:.2} s, system: {:.2} s, elapsed: {:.2} s",
                user - user0,
                sys - sys0,
                at.elapsed().as_secs_f64()
            )),
        );
    }
    Ok(())
}

/// The user and system CPU seconds the calling thread has used (0 where the kernel does not
/// say).
fn thread_cpu() -> (f64, f64) {
    // SAFETY: getrusage writes only the struct it is given, which is plain data.
    let u = unsafe {
        let mut u: libc::rusage = std::mem::zeroed();
        if libc::getrusage(libc::RUSAGE_THREAD, &mut u) != 0 {
            return (0.0, 0.0);
        }
        u
    };
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    (secs(u.ru_utime), secs(u.ru_stime))
}

/// PostgreSQL reindexes a partitioned table's leaves in transactions of their own, so it
/// refuses to do so inside a transaction block.
fn refuse_in_block(cx: &dyn SessionCtx, what: &str, kind: &str, rel: &Rel) -> PgResult<()> {
    if !cx.in_transaction_block() {
        return Ok(());
    }
    Err(PgError::new(
        code::ACTIVE_SQL_TRANSACTION,
        format!("{what} cannot run inside a transaction block"),
    )
    .with_context(format!(
        "while reindexing partitioned {kind} \"{}.{}\"",
        rel.name.schema, rel.name.name
    )))
}

/// The leaf partitions under partitioned table `t`, at every level, in OID order.
fn leaves_of(cx: &mut dyn SessionCtx, t: &Arc<Rel>) -> PgResult<Vec<Arc<Rel>>> {
    let snap = cx.catalog_snapshot()?;
    let mut out = crate::sql::partition::leaves(&cx.instance().catalog, &snap, t);
    out.sort_by_key(|r| r.oid);
    Ok(out)
}
