//! ALTER TABLE (columns, defaults, NOT NULL, CHECK / key constraints, column types), the
//! RENAME forms of ALTER TABLE / INDEX / VIEW, and ALTER TABLE ... SET SCHEMA.
//!
//! An ALTER TABLE works on a copy of the table's definition: its subcommands are applied in
//! PostgreSQL's order (its "passes": drops, type changes, added columns, CHECK constraints,
//! NOT NULL, keys, defaults), whatever order the statement lists them in; then the existing
//! rows are checked against what became stricter, or, where a column was added or changed
//! type, rewritten into a new heap (as PostgreSQL rewrites the table); last, the new
//! definition is written as a new catalog version. Everything is a write of the session's
//! transaction, so a rolled-back ALTER leaves no trace: the old version, with its old heap,
//! is what every snapshot sees again.
//!
//! Dropped columns keep their place (PostgreSQL's attisdropped), so stored rows never move
//! their values; a rewrite keeps the dropped places too, holding NULL.
//!
//! Rows are read with the catalog snapshot (the newest commits and this transaction's own
//! changes); rows a concurrent transaction writes into the old heap while it runs are not
//! carried over (PostgreSQL holds an exclusive lock here; threadgres has no table locks yet,
//! as for TRUNCATE). A rewrite holds the table's rows in memory once more while it runs.

use std::sync::Arc;

use pg_query::protobuf::{self, node::Node as N, AlterTableType as At, ConstrType, ObjectType};

use super::{
    build_index, catalog_error, find, key_or_check, notice, replace_with_data, Check, KeySpec,
    NewColumn,
};
use crate::catalog::{ColumnDef, ConstraintDef, ConstraintKind, RelKind, MAX_COLUMNS};
use crate::error::{code, PgError, PgResult};
use crate::sql::context::SessionCtx;
use crate::sql::engine::{self, Rel, Row, TableData};
use crate::sql::exec::EvalCx;
use crate::sql::parser::deparse_expr;
use crate::sql::plan::modify::parse_expr;
use crate::sql::plan::table_expr::default_type_error;
use crate::sql::plan::Expr;
use crate::sql::plan::Planner;
use crate::sql::types::cast::format_type_with_typmod;
use crate::sql::types::{FormatCtx, Type, Value};

mod rename;
pub(super) use rename::rename_in_query;
use rename::{rename_column, rename_constraint, rename_relation, set_schema};

/// One subcommand of ALTER TABLE.
#[derive(Debug, Clone)]
pub enum Cmd {
    AddColumn {
        col: NewColumn,
        if_not_exists: bool,
    },
    DropColumn {
        name: String,
        if_exists: bool,
        cascade: bool,
    },
    AlterType {
        name: String,
        ty: Type,
        typmod: i32,
        using: Option<String>,
        /// A type name resolved when the statement runs (a user-defined type).
        pending: Option<Box<protobuf::TypeName>>,
    },
    /// SET DEFAULT (Some) / DROP DEFAULT (None).
    Default {
        name: String,
        default: Option<String>,
    },
    NotNull {
        name: String,
        set: bool,
    },
    /// A CHECK; with `column`, one written on a column that ADD COLUMN adds (skipped when that
    /// column is skipped by IF NOT EXISTS).
    AddCheck {
        check: Check,
        column: Option<String>,
    },
    AddKey {
        key: KeySpec,
        column: Option<String>,
    },
    DropConstraint {
        name: String,
        if_exists: bool,
        cascade: bool,
    },
    /// ALTER COLUMN ... DROP EXPRESSION [IF EXISTS]: a generated column becomes a plain one,
    /// keeping its values.
    DropExpression {
        name: String,
        if_exists: bool,
    },
    /// ALTER COLUMN ... ADD GENERATED { ALWAYS | BY DEFAULT } AS IDENTITY [(options)]: the
    /// form pg_dump writes for identity columns.
    AddIdentity {
        name: String,
        always: bool,
        spec: Box<super::sequence::SeqSpec>,
    },
}

impl Cmd {
    /// PostgreSQL's pass (AlterTablePass) the subcommand runs in.
    fn pass(&self) -> u8 {
        match self {
            Cmd::DropColumn { .. } | Cmd::DropConstraint { .. } | Cmd::DropExpression { .. } => 0,
            Cmd::NotNull { set: false, .. } | Cmd::Default { default: None, .. } => 0,
            Cmd::AlterType { .. } => 1,
            Cmd::AddColumn { .. } => 2,
            Cmd::NotNull { set: true, .. } => 3,
            // Keys before CHECKs, as PostgreSQL 15 (which matters to the names they get).
            Cmd::AddKey { .. } => 4,
            Cmd::AddCheck { .. } => 5,
            Cmd::Default {
                default: Some(_), ..
            }
            | Cmd::AddIdentity { .. } => 6,
        }
    }
}

/// What a RENAME renames.
#[derive(Debug, Clone)]
pub enum RenameWhat {
    /// The relation itself (table, index or view).
    Relation,
    Column(String),
    Constraint(String),
}

/// An analyzed ALTER statement.
#[derive(Debug, Clone)]
pub enum Alter {
    Table {
        table: (String, String),
        if_exists: bool,
        cmds: Vec<Cmd>,
    },
    Rename {
        rel: (String, String),
        what: RenameWhat,
        new_name: String,
        if_exists: bool,
        tag: &'static str,
    },
    SetSchema {
        rel: (String, String),
        schema: String,
        if_exists: bool,
        tag: &'static str,
    },
    /// ATTACH / DETACH PARTITION (partition_attach.rs).
    Partition(super::partition_attach::Attach),
    /// ALTER INDEX ... ALTER COLUMN n SET STATISTICS (index.rs), by column numbers.
    IndexStatistics {
        rel: (String, String),
        columns: Vec<i32>,
        if_exists: bool,
    },
}

impl Alter {
    pub fn tag(&self) -> &'static str {
        match self {
            Alter::Table { .. } | Alter::Partition(_) => "ALTER TABLE",
            Alter::Rename { tag, .. } | Alter::SetSchema { tag, .. } => tag,
            Alter::IndexStatistics { .. } => "ALTER INDEX",
        }
    }
}

fn tag_of(objtype: i32) -> &'static str {
    match ObjectType::try_from(objtype) {
        Ok(ObjectType::ObjectIndex) => "ALTER INDEX",
        Ok(ObjectType::ObjectView) => "ALTER VIEW",
        Ok(ObjectType::ObjectMatview) => "ALTER MATERIALIZED VIEW",
        _ => "ALTER TABLE",
    }
}

fn rel_of(rv: Option<&protobuf::RangeVar>) -> (String, String) {
    rv.map(super::rel_name).unwrap_or_default()
}

/// Analyzes ALTER TABLE, RENAME and SET SCHEMA statements over relations; None for other
/// statements, and for ALTER TABLE forms this module leaves to others (foreign keys).
pub fn analyze(node: &N) -> Option<PgResult<Alter>> {
    match node {
        N::AlterTableStmt(a) => {
            let objtype = ObjectType::try_from(a.objtype).ok()?;
            if objtype == ObjectType::ObjectIndex {
                return Some(Ok(Alter::IndexStatistics {
                    rel: rel_of(a.relation.as_ref()),
                    columns: super::index::statistics_columns(a)?,
                    if_exists: a.missing_ok,
                }));
            }
            if objtype != ObjectType::ObjectTable {
                return None;
            }
            // Foreign keys are handled with the ALTER TABLE forms of ddl.rs.
            let has_fk = a.cmds.iter().any(|c| match c.node.as_ref() {
                Some(N::AlterTableCmd(c)) => match c.def.as_ref().and_then(|d| d.node.as_ref()) {
                    Some(N::Constraint(k)) => k.contype == ConstrType::ConstrForeign as i32,
                    Some(N::ColumnDef(cd)) => cd.constraints.iter().any(|k| {
                        matches!(&k.node, Some(N::Constraint(k)) if k.contype == ConstrType::ConstrForeign as i32)
                    }),
                    _ => false,
                },
                _ => false,
            });
            if has_fk {
                return None;
            }
            if let Some(p) = super::partition_attach::analyze(a) {
                return Some(p.map(Alter::Partition));
            }
            Some(analyze_alter_table(a))
        }
        N::RenameStmt(r) => {
            let what = match ObjectType::try_from(r.rename_type).ok()? {
                ObjectType::ObjectTable
                | ObjectType::ObjectIndex
                | ObjectType::ObjectView
                | ObjectType::ObjectMatview => RenameWhat::Relation,
                ObjectType::ObjectColumn => RenameWhat::Column(r.subname.clone()),
                ObjectType::ObjectTabconstraint => RenameWhat::Constraint(r.subname.clone()),
                _ => return None,
            };
            let tag = match what {
                RenameWhat::Relation => tag_of(r.rename_type),
                _ => tag_of(r.relation_type),
            };
            Some(Ok(Alter::Rename {
                rel: rel_of(r.relation.as_ref()),
                what,
                new_name: r.newname.clone(),
                if_exists: r.missing_ok,
                tag,
            }))
        }
        N::AlterObjectSchemaStmt(s) => {
            match ObjectType::try_from(s.object_type).ok()? {
                ObjectType::ObjectTable | ObjectType::ObjectView | ObjectType::ObjectMatview => {}
                _ => return None,
            }
            Some(Ok(Alter::SetSchema {
                rel: rel_of(s.relation.as_ref()),
                schema: s.newschema.clone(),
                if_exists: s.missing_ok,
                tag: tag_of(s.object_type),
            }))
        }
        _ => None,
    }
}

fn analyze_alter_table(a: &protobuf::AlterTableStmt) -> PgResult<Alter> {
    let mut params = Vec::new();
    let fmt = FormatCtx::default();
    let planner = Planner::new(&mut params, &fmt);
    let mut cmds = Vec::new();
    let cascade_of = |b: i32| b == protobuf::DropBehavior::DropCascade as i32;
    for cmd in &a.cmds {
        let Some(N::AlterTableCmd(c)) = cmd.node.as_ref() else {
            continue;
        };
        let def = c.def.as_ref().and_then(|d| d.node.as_ref());
        let sub = At::try_from(c.subtype).unwrap_or(At::Undefined);
        match (sub, def) {
            (At::AtAddColumn, Some(N::ColumnDef(cd))) => {
                let tn = cd
                    .type_name
                    .as_ref()
                    .ok_or_else(|| PgError::syntax("column without a type"))?;
                let tname = super::names_of(&tn.names)
                    .last()
                    .cloned()
                    .unwrap_or_default();
                if matches!(
                    tname.as_str(),
                    "serial" | "serial4" | "bigserial" | "serial8" | "smallserial" | "serial2"
                ) {
                    return Err(PgError::feature_not_supported(
                        "serial columns are not supported yet (sequences come later)",
                    ));
                }
                let (ty, typmod, pending) = super::column_type(&planner, tn)?;
                let mut col = NewColumn {
                    name: cd.colname.clone(),
                    pending_type: pending,
                    ty,
                    typmod,
                    not_null: cd.is_not_null,
                    default: None,
                    identity: None,
                    generated: false,
                    written: None,
                    error: None,
                };
                if let Some(d) = cd.raw_default.as_ref().and_then(|d| d.node.as_ref()) {
                    col.default = Some(deparse_expr(d)?);
                }
                let mut keys = Vec::new();
                let mut checks = Vec::new();
                let constraints = super::column_constraints(&cd.constraints)?;
                let mut seen = super::generated::Seen::default();
                let table_name = a.relation.as_ref().map_or("", |r| r.relname.as_str());
                for k in &constraints {
                    seen.note(k, &cd.colname, table_name);
                    match ConstrType::try_from(k.contype).unwrap_or(ConstrType::Undefined) {
                        ConstrType::ConstrNotnull => col.not_null = true,
                        ConstrType::ConstrNull => col.not_null = false,
                        ConstrType::ConstrDefault => {
                            if let Some(e) = k.raw_expr.as_ref().and_then(|e| e.node.as_ref()) {
                                col.default = Some(deparse_expr(e)?);
                            }
                        }
                        ConstrType::ConstrGenerated => super::generated::take(&mut col, k)?,
                        ConstrType::ConstrIdentity => {
                            return Err(PgError::feature_not_supported(
                                "ADD COLUMN of an identity column is not supported yet",
                            ))
                        }
                        _ => key_or_check(
                            k,
                            Some(&cd.colname),
                            &mut keys,
                            &mut checks,
                            &mut Vec::new(),
                        )?,
                    }
                }
                col.error = seen.finish(&cd.colname, table_name, constraints.last());
                let name = cd.colname.clone();
                cmds.push(Cmd::AddColumn {
                    col,
                    if_not_exists: c.missing_ok,
                });
                cmds.extend(checks.into_iter().map(|check| Cmd::AddCheck {
                    check,
                    column: Some(name.clone()),
                }));
                cmds.extend(keys.into_iter().map(|key| Cmd::AddKey {
                    key,
                    column: Some(name.clone()),
                }));
            }
            (At::AtDropColumn, _) => cmds.push(Cmd::DropColumn {
                name: c.name.clone(),
                if_exists: c.missing_ok,
                cascade: cascade_of(c.behavior),
            }),
            (At::AtAlterColumnType, Some(N::ColumnDef(cd))) => {
                let tn = cd
                    .type_name
                    .as_ref()
                    .ok_or_else(|| PgError::syntax("column without a type"))?;
                let (ty, typmod, pending) = super::column_type(&planner, tn)?;
                let using = match cd.raw_default.as_ref().and_then(|d| d.node.as_ref()) {
                    Some(e) => Some(deparse_expr(e)?),
                    None => None,
                };
                cmds.push(Cmd::AlterType {
                    name: c.name.clone(),
                    ty,
                    typmod,
                    using,
                    pending,
                });
            }
            (At::AtColumnDefault, d) => cmds.push(Cmd::Default {
                name: c.name.clone(),
                default: match d {
                    Some(e) => Some(deparse_expr(e)?),
                    None => None,
                },
            }),
            (At::AtAddIdentity, Some(N::Constraint(k))) => cmds.push(Cmd::AddIdentity {
                name: c.name.clone(),
                always: k.generated_when == "a",
                spec: Box::new(super::sequence::parse_options(&k.options, true)?),
            }),
            (At::AtDropExpression, _) => cmds.push(Cmd::DropExpression {
                name: c.name.clone(),
                if_exists: c.missing_ok,
            }),
            (At::AtSetNotNull, _) => cmds.push(Cmd::NotNull {
                name: c.name.clone(),
                set: true,
            }),
            (At::AtDropNotNull, _) => cmds.push(Cmd::NotNull {
                name: c.name.clone(),
                set: false,
            }),
            (At::AtAddConstraint, Some(N::Constraint(k))) => {
                let mut keys = Vec::new();
                let mut checks = Vec::new();
                match ConstrType::try_from(k.contype).unwrap_or(ConstrType::Undefined) {
                    ConstrType::ConstrPrimary
                    | ConstrType::ConstrUnique
                    | ConstrType::ConstrCheck => {
                        key_or_check(k, None, &mut keys, &mut checks, &mut Vec::new())?;
                    }
                    _ => {
                        return Err(PgError::feature_not_supported(
                            "this kind of constraint is not supported yet",
                        ))
                    }
                }
                cmds.extend(checks.into_iter().map(|check| Cmd::AddCheck {
                    check,
                    column: None,
                }));
                cmds.extend(
                    keys.into_iter()
                        .map(|key| Cmd::AddKey { key, column: None }),
                );
            }
            (At::AtDropConstraint, _) => cmds.push(Cmd::DropConstraint {
                name: c.name.clone(),
                if_exists: c.missing_ok,
                cascade: cascade_of(c.behavior),
            }),
            _ => {
                return Err(PgError::feature_not_supported(
                    "this form of ALTER TABLE is not supported yet",
                ))
            }
        }
    }
    Ok(Alter::Table {
        table: rel_of(a.relation.as_ref()),
        if_exists: a.missing_ok,
        cmds,
    })
}

/// Runs an analyzed ALTER statement in the session's transaction.
pub fn execute(a: &Alter, cx: &mut dyn SessionCtx) -> PgResult<()> {
    match a {
        Alter::Table {
            table,
            if_exists,
            cmds,
        } => {
            let Some(t) = relation(cx, table, *if_exists)? else {
                return Ok(());
            };
            if t.kind != RelKind::Table {
                return Err(PgError::new(
                    code::WRONG_OBJECT_TYPE,
                    format!("\"{}\" is not a table", t.name.name),
                ));
            }
            super::check_not_pending(cx, &t, "ALTER TABLE")?;
            alter_table(cx, &t, cmds)
        }
        Alter::Rename {
            rel,
            what,
            new_name,
            if_exists,
            tag,
        } => {
            let Some(r) = relation(cx, rel, *if_exists)? else {
                return Ok(());
            };
            check_matview(&r, tag)?;
            match what {
                RenameWhat::Relation => rename_relation(cx, &r, new_name),
                RenameWhat::Column(old) => rename_column(cx, &r, old, new_name),
                RenameWhat::Constraint(old) => rename_constraint(cx, &r, old, new_name),
            }
        }
        Alter::SetSchema {
            rel,
            schema,
            if_exists,
            tag,
        } => {
            let Some(r) = relation(cx, rel, *if_exists)? else {
                return Ok(());
            };
            check_matview(&r, tag)?;
            set_schema(cx, &r, schema)
        }
        Alter::Partition(p) => super::partition_attach::execute(cx, p),
        Alter::IndexStatistics {
            rel,
            columns,
            if_exists,
        } => match relation(cx, rel, *if_exists)? {
            Some(r) => super::index::check_statistics_columns(&r, columns),
            None => Ok(()),
        },
    }
}

/// ALTER MATERIALIZED VIEW names a materialized view (the other ALTERs accept each other's
/// relations, as PostgreSQL's do).
fn check_matview(r: &Rel, tag: &str) -> PgResult<()> {
    if tag == "ALTER MATERIALIZED VIEW" && r.kind != RelKind::MatView {
        return Err(PgError::new(
            code::WRONG_OBJECT_TYPE,
            format!("\"{}\" is not a materialized view", r.name.name),
        ));
    }
    Ok(())
}

/// The relation an ALTER names, locked ACCESS EXCLUSIVE (as PostgreSQL locks for the forms
/// here: no one else reads or writes it until the ALTER's transaction ends); None (after a
/// NOTICE) when it is missing and IF EXISTS.
pub(super) fn relation(
    cx: &mut dyn SessionCtx,
    (schema, name): &(String, String),
    if_exists: bool,
) -> PgResult<Option<Arc<Rel>>> {
    match super::find_locked(
        cx,
        schema,
        name,
        crate::txn::lock::LockMode::AccessExclusive,
    )? {
        Some(r) => {
            super::grant::check_owner(cx, &r)?;
            Ok(Some(r))
        }
        None if if_exists => {
            cx.notice(notice(
                format!("relation \"{name}\" does not exist, skipping"),
                code::SUCCESSFUL_COMPLETION,
            ));
            Ok(None)
        }
        None => Err(PgError::new(
            code::UNDEFINED_TABLE,
            format!("relation \"{name}\" does not exist"),
        )),
    }
}

/// Where a column of the altered table gets its values from, for a rewrite.
enum Source {
    /// The old row's value at this position.
    Old(usize),
    /// An expression over the old row (a type change, or an added column's default).
    Expr(Expr),
    Null,
}

/// The table definition an ALTER TABLE is building.
struct Work {
    columns: Vec<ColumnDef>,
    indexes: Vec<crate::catalog::IndexDef>,
    constraints: Vec<ConstraintDef>,
    sources: Vec<Source>,
    /// The rows must be rewritten (a column added or changed type).
    rewrite: bool,
    /// NOT NULL got stricter: existing rows are checked.
    check_not_null: bool,
    /// Names of CHECK constraints to validate against existing rows.
    new_checks: Vec<String>,
    keys: Vec<KeySpec>,
    /// Columns ADD COLUMN IF NOT EXISTS skipped (their constraints are skipped too).
    skipped: Vec<String>,
}

fn live_position(columns: &[ColumnDef], name: &str) -> Option<usize> {
    columns.iter().position(|c| !c.dropped && c.name == name)
}

fn no_column(name: &str, table: &str) -> PgError {
    PgError::new(
        code::UNDEFINED_COLUMN,
        format!("column \"{name}\" of relation \"{table}\" does not exist"),
    )
}

fn constraint_exists(name: &str, table: &str) -> PgError {
    PgError::new(
        code::DUPLICATE_OBJECT,
        format!("constraint \"{name}\" for relation \"{table}\" already exists"),
    )
}

fn planner_run<T>(
    cx: &dyn SessionCtx,
    f: impl FnOnce(&mut Planner<'_>) -> PgResult<T>,
) -> PgResult<T> {
    let mut params = Vec::new();
    let fmt = cx.fmt().clone();
    let mut planner = Planner::new(&mut params, &fmt);
    // The expressions are parsed again from their stored text: positions in it would point
    // nowhere in the statement.
    f(&mut planner).map_err(|mut e| {
        e.position = None;
        e
    })
}

pub(super) fn alter_table(cx: &mut dyn SessionCtx, t: &Arc<Rel>, cmds: &[Cmd]) -> PgResult<()> {
    let table = t.name.name.clone();
    let mut w = Work {
        columns: t.columns.clone(),
        indexes: t.indexes.clone(),
        constraints: t.constraints.clone(),
        sources: (0..t.columns.len()).map(Source::Old).collect(),
        rewrite: false,
        check_not_null: false,
        new_checks: Vec::new(),
        keys: Vec::new(),
        skipped: Vec::new(),
    };
    for pass in 0..=6 {
        for cmd in cmds.iter().filter(|c| c.pass() == pass) {
            apply(cx, t, &mut w, cmd)?;
        }
    }
    if w.columns.len() > MAX_COLUMNS {
        return Err(PgError::new(
            code::TOO_MANY_COLUMNS,
            format!("tables can have at most {MAX_COLUMNS} columns"),
        ));
    }
    // What existing rows must satisfy: every CHECK after a rewrite (values changed), else the
    // new ones; NOT NULL likewise.
    let check_names: Vec<String> = w
        .constraints
        .iter()
        .filter(|c| matches!(c.kind, ConstraintKind::Check { .. }))
        .filter(|c| w.rewrite || w.new_checks.contains(&c.name))
        .map(|c| c.name.clone())
        .collect();
    let checks: Vec<(String, Expr)> = planner_run(cx, |p| {
        let mut out = Vec::new();
        for c in &w.constraints {
            if let ConstraintKind::Check { expr } = &c.kind {
                if check_names.contains(&c.name) {
                    let n = parse_expr(expr)?;
                    out.push((c.name.clone(), p.bind_check(&table, &w.columns, &n)?));
                }
            }
        }
        Ok(out)
    })?;
    let not_null: Vec<usize> = if w.rewrite || w.check_not_null {
        w.columns
            .iter()
            .enumerate()
            .filter(|(_, c)| c.not_null && !c.dropped)
            .map(|(i, _)| i)
            .collect()
    } else {
        Vec::new()
    };
    // A rewrite computes every generated column again from the new row (an added one has no
    // value yet; the others read columns whose values may have changed).
    let generated: Vec<(usize, Expr)> = if w.rewrite {
        // With the catalog: an expression may name a relation (`'t'::regclass`).
        super::function::with_planner(cx, None, |p| {
            let mut out = Vec::new();
            for (i, c) in w.columns.iter().enumerate() {
                if let (true, false, Some(text)) = (c.generated, c.dropped, &c.default) {
                    let n = parse_expr(text)?;
                    out.push((i, p.bind_generation(&table, t.oid, &w.columns, i, &n)?));
                }
            }
            Ok(out)
        })?
    } else {
        Vec::new()
    };
    let mut new_rows: Vec<Row> = Vec::new();
    if w.rewrite || !checks.is_empty() || !not_null.is_empty() {
        let snap = cx.catalog_snapshot()?;
        let mut old_rows: Vec<Row> = Vec::new();
        engine::scan(t, 0, usize::MAX, &snap, |_, r| {
            old_rows.push(r.clone());
            true
        });
        for old in old_rows {
            cx.check_interrupts()?;
            let row: Row = if w.rewrite {
                let mut ecx = EvalCx {
                    params: &[],
                    outer: Vec::new(),
                    session: cx,
                };
                let mut vals = Vec::with_capacity(w.sources.len());
                for s in &w.sources {
                    vals.push(match s {
                        Source::Old(i) => old.get(*i).cloned().unwrap_or(Value::Null),
                        Source::Expr(e) => e.eval(&old, &mut ecx)?,
                        Source::Null => Value::Null,
                    });
                }
                for (i, e) in &generated {
                    vals[*i] = e.eval(&vals, &mut ecx)?;
                }
                vals.into_boxed_slice()
            } else {
                old
            };
            for &i in &not_null {
                if row.get(i).is_none_or(Value::is_null) {
                    return Err(PgError::new(
                        code::NOT_NULL_VIOLATION,
                        format!(
                            "column \"{}\" of relation \"{table}\" contains null values",
                            w.columns[i].name
                        ),
                    )
                    .with_table(&t.name.schema, &table)
                    .with_column(&w.columns[i].name));
                }
            }
            let mut ecx = EvalCx {
                params: &[],
                outer: Vec::new(),
                session: cx,
            };
            for (name, e) in &checks {
                if matches!(e.eval(&row, &mut ecx)?, Value::Bool(false)) {
                    return Err(PgError::new(
                        code::CHECK_VIOLATION,
                        format!(
                            "check constraint \"{name}\" of relation \"{table}\" is violated by some row"
                        ),
                    )
                    .with_table(&t.name.schema, &table)
                    .with_constraint(name));
                }
            }
            if w.rewrite {
                new_rows.push(row);
            }
        }
    }
    // Index relations of indexes that went away (with a dropped column or constraint).
    let gone: Vec<String> = t
        .indexes
        .iter()
        .filter(|d| !w.indexes.iter().any(|x| x.oid == d.oid))
        .map(|d| d.name.clone())
        .collect();
    let data = if w.rewrite {
        Arc::new(TableData::new())
    } else {
        t.data.clone()
    };
    let (columns, indexes, constraints) = (w.columns, w.indexes, w.constraints);
    let new = replace_with_data(cx, t, data, move |n| {
        n.columns = columns;
        n.indexes = indexes;
        n.constraints = constraints;
    })?;
    if w.rewrite {
        let (cell, cid) = cx.writer("ALTER TABLE")?;
        for row in new_rows {
            engine::load(&new, row, &cell, cid).map_err(engine::write_failed)?;
        }
        for d in &new.indexes {
            build_index(cx, &new, d)?;
        }
    }
    for name in gone {
        end_relation(cx, &t.name.schema, &name)?;
    }
    refresh_index_relations(cx, &new)?;
    if !w.keys.is_empty() {
        super::add_indexes(cx, &new, &w.keys, true)?;
    }
    Ok(())
}

/// What a name this ALTER TABLE generates must avoid (names.rs), besides the schema's other
/// relations and constraints: the table's constraints as changed so far, the keys it is to
/// add; not the indexes it has dropped, though the catalog shows them until the end.
fn names_so_far(t: &Rel, w: &Work) -> super::names::Names {
    let mut names = super::names::Names::for_table(
        &t.name.schema,
        t.oid,
        w.constraints.iter().map(|c| c.name.as_str()),
    );
    for d in &t.indexes {
        if !w.indexes.iter().any(|x| x.oid == d.oid) {
            names.drop_relation(&d.name);
        }
    }
    for n in w.keys.iter().filter_map(|k| k.name.as_ref()) {
        names.add_relation(n);
        names.add_constraint(n);
    }
    names
}

fn apply(cx: &mut dyn SessionCtx, t: &Rel, w: &mut Work, cmd: &Cmd) -> PgResult<()> {
    let table = t.name.name.as_str();
    match cmd {
        Cmd::AddColumn { col, if_not_exists } => {
            if let Some(e) = &col.error {
                return Err(e.clone());
            }
            let mut resolved;
            let col = if col.pending_type.is_some() {
                resolved = col.clone();
                super::resolve_pending_type(&mut resolved, cx)?;
                &resolved
            } else {
                col
            };
            super::check_system_column_name(&col.name)?;
            super::check_not_pseudo(&col.name, col.ty)?;
            if live_position(&w.columns, &col.name).is_some() {
                if *if_not_exists {
                    cx.notice(notice(
                        format!(
                            "column \"{}\" of relation \"{table}\" already exists, skipping",
                            col.name
                        ),
                        code::DUPLICATE_COLUMN,
                    ));
                    w.skipped.push(col.name.clone());
                    return Ok(());
                }
                return Err(PgError::new(
                    code::DUPLICATE_COLUMN,
                    format!(
                        "column \"{}\" of relation \"{table}\" already exists",
                        col.name
                    ),
                ));
            }
            let source = match &col.default {
                // Computed from the rewritten row once its other values are there.
                Some(_) if col.generated => Source::Null,
                Some(text) => Source::Expr(planner_run(cx, |p| {
                    let n = parse_expr(text)?;
                    let (e, from) = p.bind_over_columns(table, &[], &n)?;
                    p.assign_to(e, from, col.ty, col.typmod)?
                        .ok_or_else(|| default_type_error(&col.name, col.ty, from))
                })?),
                // A domain's DEFAULT fills the existing rows, and its constraints check them.
                None if col.ty.base_type() != col.ty => {
                    match planner_run(cx, |p| p.domain_default(col.ty))? {
                        Some(e) => Source::Expr(e),
                        None => Source::Null,
                    }
                }
                None => Source::Null,
            };
            let (type_oid, typmod, domain) = super::stored_type(col.ty, col.typmod);
            w.columns.push(ColumnDef {
                name: col.name.clone(),
                type_oid,
                typmod,
                not_null: col.not_null,
                default: col.default.clone(),
                identity: col.identity,
                generated: col.generated,
                dropped: false,
                domain,
            });
            w.sources.push(source);
            w.rewrite = true;
            if col.generated {
                let pos = w.columns.len() - 1;
                super::generated::check(cx, table, &w.columns, pos, None)?;
            }
        }
        Cmd::DropColumn {
            name,
            if_exists,
            cascade,
        } => {
            let Some(pos) = live_position(&w.columns, name) else {
                if *if_exists {
                    cx.notice(notice(
                        format!(
                            "column \"{name}\" of relation \"{table}\" does not exist, skipping"
                        ),
                        code::SUCCESSFUL_COMPLETION,
                    ));
                    return Ok(());
                }
                return Err(no_column(name, table));
            };
            super::view::column_dependents(cx, t, pos, *cascade)?;
            // The generated columns computed from it depend on it: dropped with CASCADE.
            let readers: Vec<String> = super::generated::readers(&w.columns, name)
                .into_iter()
                .filter(|c| c.name != *name)
                .map(|c| c.name.clone())
                .collect();
            if !readers.is_empty() {
                let lines: Vec<String> = readers
                    .iter()
                    .map(|r| format!("column {r} of table {table}"))
                    .collect();
                let what = format!("column {name} of table {table}");
                super::refuse_or_cascade(cx, &what, &lines, *cascade)?;
            }
            for r in readers {
                apply(
                    cx,
                    t,
                    w,
                    &Cmd::DropColumn {
                        name: r,
                        if_exists: true,
                        cascade: *cascade,
                    },
                )?;
            }
            let c = &mut w.columns[pos];
            c.dropped = true;
            c.not_null = false;
            c.default = None;
            c.identity = None;
            c.generated = false;
            w.sources[pos] = Source::Null;
            // Indexes over the column go with it, and the constraints they back or that name
            // the column.
            let gone: Vec<u32> = w
                .indexes
                .iter()
                .filter(|d| d.columns.contains(&pos) || d.include.contains(&pos))
                .map(|d| d.oid)
                .collect();
            w.indexes.retain(|d| !gone.contains(&d.oid));
            w.constraints.retain(|k| match &k.kind {
                ConstraintKind::PrimaryKey { index } | ConstraintKind::Unique { index } => {
                    !gone.contains(index)
                }
                ConstraintKind::Check { expr } => !crate::sql::parser::identifiers(expr)
                    .iter()
                    .any(|(_, _, n)| n == name),
                ConstraintKind::ForeignKey { columns, .. } => !columns.contains(&pos),
            });
        }
        Cmd::AlterType {
            name,
            ty,
            typmod,
            using,
            pending,
        } => {
            let resolved = match pending {
                Some(tn) => super::function::with_planner(cx, None, |pl| pl.resolve_type_name(tn))?,
                None => (*ty, *typmod),
            };
            let (ty, typmod) = (&resolved.0, &resolved.1);
            let pos = live_position(&w.columns, name).ok_or_else(|| no_column(name, table))?;
            super::view::column_type_dependents(cx, t, pos)?;
            if w.columns[pos].generated && using.is_some() {
                return Err(PgError::new(
                    code::INVALID_COLUMN_DEFINITION,
                    "cannot specify USING when altering type of generated column",
                )
                .with_detail(format!("Column \"{name}\" is a generated column.")));
            }
            if let Some(g) = super::generated::readers(&w.columns, name).first() {
                return Err(PgError::feature_not_supported(
                    "cannot alter type of a column used by a generated column",
                )
                .with_detail(format!(
                    "Column \"{name}\" is used by generated column \"{}\".",
                    g.name
                )));
            }
            let old = &t.columns[pos];
            let target = format_type_with_typmod(*ty, -1);
            let e = planner_run(cx, |p| match using {
                Some(text) => {
                    let n = parse_expr(text)?;
                    let (e, from) = p.bind_over_columns(table, &t.columns, &n)?;
                    p.assign_to(e, from, *ty, *typmod)?.ok_or_else(|| {
                        PgError::new(
                            code::DATATYPE_MISMATCH,
                            format!("result of USING clause for column \"{name}\" cannot be cast automatically to type {target}"),
                        )
                        .with_hint("You might need to add an explicit cast.")
                    })
                }
                None => p
                    .assign_to(Expr::Column(pos), Type(old.type_oid), *ty, *typmod)?
                    .ok_or_else(|| {
                        PgError::new(
                            code::DATATYPE_MISMATCH,
                            format!(
                                "column \"{name}\" cannot be cast automatically to type {target}"
                            ),
                        )
                        .with_hint(format!(
                            "You might need to specify \"USING {}::{}\".",
                            crate::sql::quote::quote_ident(name),
                            format_type_with_typmod(*ty, *typmod)
                        ))
                    }),
            })?;
            // The default must convert to the new type too (a generation expression is
            // bound again, over the new row, when the rows are rewritten).
            if let (Some(text), false) = (&w.columns[pos].default, w.columns[pos].generated) {
                planner_run(cx, |p| {
                    let n = parse_expr(text)?;
                    let (d, from) = p.bind_over_columns(table, &[], &n)?;
                    p.assign_to(d, from, *ty, *typmod)?.map(|_| ()).ok_or_else(|| {
                        PgError::new(
                            code::DATATYPE_MISMATCH,
                            format!("default for column \"{name}\" cannot be cast automatically to type {target}"),
                        )
                    })
                })?;
            }
            let (type_oid, stored_mod, domain) = super::stored_type(*ty, *typmod);
            let c = &mut w.columns[pos];
            c.type_oid = type_oid;
            c.typmod = stored_mod;
            c.domain = domain;
            w.sources[pos] = Source::Expr(e);
            w.rewrite = true;
        }
        Cmd::Default { name, default } => {
            let pos = live_position(&w.columns, name).ok_or_else(|| no_column(name, table))?;
            if w.columns[pos].generated {
                let e = PgError::syntax(format!(
                    "column \"{name}\" of relation \"{table}\" is a generated column"
                ));
                return Err(match default {
                    Some(_) => e,
                    None => {
                        e.with_hint("Use ALTER TABLE ... ALTER COLUMN ... DROP EXPRESSION instead.")
                    }
                });
            }
            if let Some(text) = default {
                let (ty, typmod) = crate::sql::plan::modify::declared_type(&w.columns[pos]);
                planner_run(cx, |p| {
                    let n = parse_expr(text)?;
                    let (e, from) = p.bind_over_columns(table, &[], &n)?;
                    p.assign_to(e, from, ty, typmod)?
                        .map(|_| ())
                        .ok_or_else(|| default_type_error(name, ty, from))
                })?;
            }
            w.columns[pos].default = default.clone();
        }
        Cmd::DropExpression { name, if_exists } => {
            let pos = live_position(&w.columns, name).ok_or_else(|| no_column(name, table))?;
            let c = &mut w.columns[pos];
            if !c.generated {
                let what = format!(
                    "column \"{name}\" of relation \"{table}\" is not a stored generated column"
                );
                if *if_exists {
                    cx.notice(notice(
                        format!("{what}, skipping"),
                        code::SUCCESSFUL_COMPLETION,
                    ));
                    return Ok(());
                }
                return Err(PgError::new(code::OBJECT_NOT_IN_PREREQUISITE_STATE, what));
            }
            // The stored values stay; the column is a plain one from now on.
            c.generated = false;
            c.default = None;
        }
        Cmd::AddIdentity { name, always, spec } => {
            let pos = live_position(&w.columns, name).ok_or_else(|| no_column(name, table))?;
            let col = &w.columns[pos];
            let state = |what: &str| {
                PgError::new(
                    code::OBJECT_NOT_IN_PREREQUISITE_STATE,
                    format!("column \"{name}\" of relation \"{table}\" {what}"),
                )
            };
            if !col.not_null {
                return Err(state(
                    "must be declared NOT NULL before identity can be added",
                ));
            }
            if col.identity.is_some() {
                return Err(state("is already an identity column"));
            }
            if col.default.is_some() {
                return Err(state("already has a default value"));
            }
            let seq = super::sequence::ColumnSeq {
                column: pos,
                identity: true,
                spec: (**spec).clone(),
                conflict: None,
            };
            super::sequence::create_column_sequences(
                cx,
                &t.name.schema,
                table,
                t.oid,
                t.persistence,
                &[seq],
                &[None],
                &mut w.columns,
            )?;
            w.columns[pos].identity = Some(if *always { 'a' } else { 'd' });
        }
        Cmd::NotNull { name, set } => {
            let pos = live_position(&w.columns, name).ok_or_else(|| no_column(name, table))?;
            if *set {
                if !w.columns[pos].not_null {
                    w.columns[pos].not_null = true;
                    w.check_not_null = true;
                }
            } else {
                if w.indexes
                    .iter()
                    .any(|d| d.primary && d.columns.contains(&pos))
                {
                    return Err(PgError::new(
                        code::INVALID_TABLE_DEFINITION,
                        format!("column \"{name}\" is in a primary key"),
                    ));
                }
                w.columns[pos].not_null = false;
            }
        }
        Cmd::AddCheck { check, column } => {
            if column.as_ref().is_some_and(|c| w.skipped.contains(c)) {
                return Ok(());
            }
            let (name, expr, col) = check;
            let name = match name {
                Some(n) => {
                    let mut pending = w.keys.iter().filter_map(|k| k.name.as_ref());
                    if w.constraints.iter().any(|c| &c.name == n) || pending.any(|k| k == n) {
                        return Err(constraint_exists(n, table));
                    }
                    n.clone()
                }
                // After the one column the check refers to, else the table alone; free among
                // the schema's constraints (names.rs).
                None => names_so_far(t, w).check(cx, table, col.as_deref())?,
            };
            // Bound now, so that a bad expression fails here.
            planner_run(cx, |p| {
                let n = parse_expr(expr)?;
                p.bind_check(table, &w.columns, &n).map(|_| ())
            })?;
            w.constraints.push(ConstraintDef {
                oid: cx
                    .instance()
                    .catalog
                    .new_oid()
                    .map_err(|e| catalog_error(e, &name))?,
                name: name.clone(),
                kind: ConstraintKind::Check { expr: expr.clone() },
                deferrable: false,
                deferred: false,
            });
            w.new_checks.push(name);
        }
        Cmd::AddKey { key, column } => {
            if column.as_ref().is_some_and(|c| w.skipped.contains(c)) {
                return Ok(());
            }
            if let Some(index) = &key.using_index {
                let (cols, idx, cons) = (&mut w.columns, &mut w.indexes, &mut w.constraints);
                w.check_not_null |= super::index::adopt(cx, table, key, index, cols, idx, cons)?;
                return Ok(());
            }
            if let Some(n) = &key.name {
                if w.constraints.iter().any(|c| &c.name == n) {
                    return Err(constraint_exists(n, table));
                }
            }
            let mut key = key.clone();
            if key.name.is_none() {
                // Named now, in PostgreSQL's pass order (before the CHECKs), though the index
                // is built once the table's new version is written.
                let kind = match key.primary {
                    true => super::names::IndexKind::Primary,
                    false => super::names::IndexKind::Unique,
                };
                let cols: Vec<Option<&str>> = key
                    .columns
                    .iter()
                    .chain(&key.include)
                    .map(|c| Some(c.as_str()))
                    .collect();
                let name = names_so_far(t, w).index(cx, table, &cols, kind)?;
                key.name = Some(name);
            }
            w.keys.push(key);
        }
        Cmd::DropConstraint {
            name,
            if_exists,
            cascade: _,
        } => {
            let Some(i) = w.constraints.iter().position(|c| &c.name == name) else {
                // A constraint trigger's constraint goes only with its trigger.
                if t.triggers
                    .iter()
                    .any(|x| x.constraint.is_some() && &x.name == name)
                {
                    return Err(PgError::new(
                        code::DEPENDENT_OBJECTS_STILL_EXIST,
                        format!("cannot drop constraint {name} on table {table} because trigger {name} on table {table} requires it"),
                    )
                    .with_hint(format!("You can drop trigger {name} on table {table} instead.")));
                }
                if *if_exists {
                    cx.notice(notice(
                        format!(
                            "constraint \"{name}\" of relation \"{table}\" does not exist, skipping"
                        ),
                        code::SUCCESSFUL_COMPLETION,
                    ));
                    return Ok(());
                }
                return Err(PgError::new(
                    code::UNDEFINED_OBJECT,
                    format!("constraint \"{name}\" of relation \"{table}\" does not exist"),
                ));
            };
            let k = w.constraints.remove(i);
            if let ConstraintKind::PrimaryKey { index } | ConstraintKind::Unique { index } = k.kind
            {
                w.indexes.retain(|d| d.oid != index);
            }
        }
    }
    Ok(())
}

/// Ends the relation `schema.name` (an index that went away with its table's change).
fn end_relation(cx: &mut dyn SessionCtx, schema: &str, name: &str) -> PgResult<()> {
    if let Some(r) = find(cx, schema, name)? {
        let (cell, cid) = cx.writer("ALTER TABLE")?;
        cx.instance()
            .catalog
            .end(&r, &cell, cid)
            .map_err(|e| catalog_error(e, name))?;
    }
    Ok(())
}

/// Writes new versions of a table's index relations, so that they show its current column
/// names and types and share its (possibly new) heap.
fn refresh_index_relations(cx: &mut dyn SessionCtx, table: &Rel) -> PgResult<()> {
    for d in &table.indexes {
        let Some(ir) = find(cx, &table.name.schema, &d.name)? else {
            continue;
        };
        if ir.kind != RelKind::Index {
            continue;
        }
        let columns = super::index::index_columns(table, d);
        let def = d.clone();
        replace_with_data(cx, &ir, table.data.clone(), move |n| {
            n.columns = columns;
            n.indexes = vec![def];
        })?;
    }
    Ok(())
}
