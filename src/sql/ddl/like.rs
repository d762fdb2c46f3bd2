//! CREATE TABLE t (LIKE s [INCLUDING | EXCLUDING option ...]).
//!
//! Analysis cannot see the catalog, so a LIKE clause is kept as a [`Like`] with the place it
//! stands in the column list; when the statement runs, [`expand`] reads the source relation
//! with the statement's catalog snapshot and splices its columns in (type, typmod, NOT NULL,
//! and what the options ask for), as PostgreSQL's transformTableLikeClause does:
//!
//! - DEFAULTS: the columns' default expressions;
//! - GENERATED: the generation expressions of generated columns (without it they are copied
//!   as plain columns);
//! - CONSTRAINTS: the CHECK constraints, with their names;
//! - INDEXES: the primary key, the unique constraints and the plain indexes, named afresh for
//!   the new table after its own keys (`t_pkey`, `t_a_key`, `t_a_idx`: names.rs);
//! - COMMENTS: the columns' descriptions (applied once the table exists, [`copy_comments`]).
//!
//! Not done yet: INCLUDING IDENTITY of an identity column, and INCLUDING INDEXES of a unique
//! index made by CREATE UNIQUE INDEX (no constraint); both fail with 0A000 rather than make
//! something different from PostgreSQL's.

use crate::catalog::{ConstraintKind, RelKind};
use crate::error::{code, PgError, PgResult};
use crate::sql::context::SessionCtx;
use crate::sql::types::Type;
use crate::txn::lock::LockMode;

use super::{CreateTable, KeySpec, NewColumn};

/// PostgreSQL's CREATE_TABLE_LIKE_* bits (parsenodes.h).
const COMMENTS: u32 = 1 << 0;
const CONSTRAINTS: u32 = 1 << 2;
const DEFAULTS: u32 = 1 << 3;
const GENERATED: u32 = 1 << 4;
const IDENTITY: u32 = 1 << 5;
const INDEXES: u32 = 1 << 6;

/// One LIKE clause of CREATE TABLE.
#[derive(Debug, Clone)]
pub struct Like {
    /// How many columns of the statement come before it.
    pub at: usize,
    pub schema: String,
    pub name: String,
    /// The INCLUDING bits that remain after EXCLUDING.
    pub options: u32,
    /// Where the source's name stands, for error positions.
    pub location: i32,
}

/// The analyzed clause.
pub fn analyze(l: &pg_query::protobuf::TableLikeClause, at: usize) -> Like {
    let rv = l.relation.clone().unwrap_or_default();
    Like {
        at,
        schema: rv.schemaname,
        name: rv.relname,
        options: l.options,
        location: rv.location,
    }
}

/// `ct` with its LIKE clauses replaced by what their sources hold.
pub fn expand(ct: &CreateTable, cx: &mut dyn SessionCtx) -> PgResult<CreateTable> {
    let mut out = ct.clone();
    out.likes.clear();
    // Later clauses first, so that each one's place is still where analysis saw it.
    for like in ct.likes.iter().rev() {
        let src = super::find_locked(cx, &like.schema, &like.name, LockMode::AccessShare)?
            .ok_or_else(|| {
                let what = match like.schema.as_str() {
                    "" => format!("relation \"{}\" does not exist", like.name),
                    s => format!("relation \"{s}.{}\" does not exist", like.name),
                };
                PgError::new(code::UNDEFINED_TABLE, what)
                    .at((like.location >= 0).then(|| like.location as u32 + 1))
            })?;
        if !matches!(src.kind, RelKind::Table | RelKind::View | RelKind::MatView) {
            let what = if src.kind == RelKind::Index {
                "indexes"
            } else {
                "sequences"
            };
            return Err(PgError::new(
                code::WRONG_OBJECT_TYPE,
                format!("relation \"{}\" is invalid in LIKE clause", src.name.name),
            )
            .with_detail(format!("This operation is not supported for {what}."))
            .at((like.location >= 0).then(|| like.location as u32 + 1)));
        }
        // PostgreSQL's transformTableLikeClause: SELECT on the source table (or view).
        super::grant::check_any(cx, &src, crate::catalog::acl::SELECT)?;
        let o = like.options;
        let mut cols = Vec::new();
        for (_, c) in src.live_columns() {
            if c.identity.is_some() && o & IDENTITY != 0 {
                return Err(PgError::feature_not_supported(
                    "CREATE TABLE ... LIKE INCLUDING IDENTITY is not supported yet",
                ));
            }
            cols.push(NewColumn {
                name: c.name.clone(),
                ty: Type(c.type_oid),
                typmod: c.typmod,
                pending_type: None,
                not_null: c.not_null,
                // A generated column's expression comes with INCLUDING GENERATED (the column
                // is a plain one without), a default with INCLUDING DEFAULTS.
                default: c.default.clone().filter(|_| match c.generated {
                    true => o & GENERATED != 0,
                    false => o & DEFAULTS != 0 && c.identity.is_none(),
                }),
                identity: None,
                generated: c.generated && o & GENERATED != 0,
                written: None,
                error: None,
            });
        }
        let n = cols.len();
        for s in &mut out.sequences {
            if s.column >= like.at {
                s.column += n;
            }
        }
        out.columns.splice(like.at..like.at, cols);
        if o & CONSTRAINTS != 0 {
            for c in &src.constraints {
                if let ConstraintKind::Check { expr } = &c.kind {
                    out.checks.push((Some(c.name.clone()), expr.clone(), None));
                }
            }
        }
        if o & INDEXES != 0 {
            for i in &src.indexes {
                let backed = src.constraints.iter().any(|c| {
                    matches!(c.kind, ConstraintKind::PrimaryKey { index }
                        | ConstraintKind::Unique { index } if index == i.oid)
                });
                // The copy keeps the constraint's timing, as PostgreSQL's cloned index does.
                let timing = src.deferrable_key(i.oid);
                if !i.plain() || i.hash {
                    return Err(PgError::feature_not_supported(
                        "CREATE TABLE ... LIKE INCLUDING INDEXES of an expression, partial, hash or gin index is not supported yet",
                    ));
                }
                if i.unique && !backed {
                    return Err(PgError::feature_not_supported(
                        "CREATE TABLE ... LIKE INCLUDING INDEXES of a unique index without a constraint is not supported yet",
                    ));
                }
                out.keys.push(KeySpec {
                    name: None,
                    columns: i
                        .columns
                        .iter()
                        .filter_map(|&c| src.columns.get(c).map(|c| c.name.clone()))
                        .collect(),
                    primary: i.primary,
                    unique: i.unique,
                    location: -1,
                    exprs: None,
                    hash: false,
                    gin: None,
                    deferrable: timing.is_some(),
                    deferred: timing.is_some_and(|c| c.deferred),
                    include: i
                        .include
                        .iter()
                        .filter_map(|&c| src.columns.get(c).map(|c| c.name.clone()))
                        .collect(),
                    using_index: None,
                });
            }
        }
        if o & COMMENTS != 0 {
            let snap = cx.catalog_snapshot()?;
            for (i, c) in src.live_columns() {
                let d = cx
                    .instance()
                    .catalog
                    .comments
                    .get((1259, src.oid, i as i32 + 1), &snap);
                if let Some(d) = d.filter(|d| !d.is_empty()) {
                    out.comments.push((c.name.clone(), d));
                }
            }
        }
    }
    Ok(out)
}

/// Sets the copied column descriptions (INCLUDING COMMENTS) on the table just created.
pub fn copy_comments(ct: &CreateTable, schema: &str, cx: &mut dyn SessionCtx) -> PgResult<()> {
    if ct.comments.is_empty() {
        return Ok(());
    }
    let Some(t) = super::find(cx, schema, &ct.name)? else {
        return Ok(());
    };
    let (cell, cid) = cx.writer("CREATE TABLE")?;
    let snap = cx.catalog_snapshot()?;
    for (col, d) in &ct.comments {
        if let Some((i, _)) = t.live_columns().find(|(_, c)| &c.name == col) {
            cx.instance()
                .catalog
                .comments
                .set((1259, t.oid, i as i32 + 1), d, &snap, &cell, cid)
                .map_err(|_| PgError::internal("comment of a new table is busy"))?;
        }
    }
    Ok(())
}
