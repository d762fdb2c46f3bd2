//! Foreign keys in DDL: REFERENCES and FOREIGN KEY in CREATE TABLE, ALTER TABLE ... ADD
//! FOREIGN KEY (which checks the rows already there), and what DROP TABLE and TRUNCATE do
//! about tables other constraints reference.
//!
//! A foreign key is a pg_constraint row of the referencing table only (contype 'f', with the
//! referenced table's OID and columns), as in PostgreSQL; the referenced table does not
//! change. Writers find the constraints that reference their table in the catalog
//! (`exec::foreign_key`). What is checked when, and with which snapshot, is described there.
//!
//! DEFERRABLE / INITIALLY DEFERRED are kept on the constraint (its checks may wait for the
//! commit: `exec::deferred`). Refused with 0A000: MATCH PARTIAL (PostgreSQL refuses it too)
//! and ON DELETE SET NULL / SET DEFAULT with a column list.

use std::sync::Arc;

use pg_query::protobuf;

use super::{find_locked, names_of, rel_name, replace};
use crate::catalog::{ColumnDef, ConstraintDef, ConstraintKind, IndexDef, Oid, RelKind};
use crate::error::{code, PgError, PgResult};
use crate::sql::context::SessionCtx;
use crate::sql::engine::Rel;
use crate::sql::types::{cast, Type};
use crate::txn::lock::LockMode;

/// PostgreSQL's ERRCODE_INVALID_FOREIGN_KEY.
const INVALID_FOREIGN_KEY: &str = "42830";

/// A foreign key as written: names not yet resolved.
#[derive(Debug, Clone)]
pub struct FkSpec {
    pub name: Option<String>,
    /// The referencing columns.
    pub columns: Vec<String>,
    pub ref_table: (String, String),
    /// The referenced columns; empty: the referenced table's primary key.
    pub ref_columns: Vec<String>,
    pub on_update: char,
    pub on_delete: char,
    pub match_full: bool,
    /// NOT VALID: the rows already there are not checked.
    pub not_valid: bool,
    /// DEFERRABLE; INITIALLY DEFERRED (which the grammar makes imply DEFERRABLE).
    pub deferrable: bool,
    pub deferred: bool,
}

fn action(a: &str) -> char {
    a.chars()
        .next()
        .filter(|c| "arcnd".contains(*c))
        .unwrap_or('a')
}

/// The foreign key of a constraint node, on `column` (REFERENCES) or on the table.
pub fn spec(c: &protobuf::Constraint, column: Option<&str>) -> PgResult<FkSpec> {
    if c.fk_matchtype == "p" {
        return Err(PgError::feature_not_supported(
            "MATCH PARTIAL not yet implemented",
        ));
    }
    if !c.fk_del_set_cols.is_empty() {
        return Err(PgError::feature_not_supported(
            "ON DELETE SET NULL / SET DEFAULT with a column list is not supported yet",
        ));
    }
    let pk = c
        .pktable
        .as_ref()
        .ok_or_else(|| PgError::syntax("REFERENCES without a table"))?;
    Ok(FkSpec {
        name: (!c.conname.is_empty()).then(|| c.conname.clone()),
        columns: match column {
            Some(col) => vec![col.to_string()],
            None => names_of(&c.fk_attrs),
        },
        ref_table: rel_name(pk),
        ref_columns: names_of(&c.pk_attrs),
        on_update: action(&c.fk_upd_action),
        on_delete: action(&c.fk_del_action),
        match_full: c.fk_matchtype == "f",
        not_valid: c.skip_validation,
        deferrable: c.deferrable || c.initdeferred,
        deferred: c.initdeferred,
    })
}

/// The table a foreign key is declared on, as far as resolving it needs: for CREATE TABLE,
/// the table being made (which may reference itself).
pub struct Owner<'a> {
    pub oid: Option<Oid>,
    /// CREATE TABLE: the owner is not in the catalog yet.
    pub creating: bool,
    pub schema: &'a str,
    pub name: &'a str,
    pub columns: &'a [ColumnDef],
    pub indexes: &'a [IndexDef],
    pub constraints: &'a [ConstraintDef],
}

/// Whether values of the two types compare with an equality operator (PostgreSQL looks one
/// up; the built-in types here compare within their category).
fn comparable(a: Oid, b: Oid) -> bool {
    const NUMBERS: [Oid; 6] = [20, 21, 23, 700, 701, 1700];
    const STRINGS: [Oid; 4] = [25, 1043, 1042, 19];
    a == b
        || (NUMBERS.contains(&a) && NUMBERS.contains(&b))
        || (STRINGS.contains(&a) && STRINGS.contains(&b))
}

fn column_positions(columns: &[ColumnDef], names: &[String]) -> PgResult<Vec<usize>> {
    names
        .iter()
        .map(|n| {
            columns
                .iter()
                .position(|c| !c.dropped && &c.name == n)
                .ok_or_else(|| {
                    PgError::new(
                        code::UNDEFINED_COLUMN,
                        format!(
                            "column \"{n}\" referenced in foreign key constraint does not exist"
                        ),
                    )
                })
        })
        .collect()
}

/// Resolves a foreign key into its pg_constraint row; `taken`: the constraint names of the
/// table so far (the chosen name is added). Returns the constraint and the referenced table
/// (None when the owner references itself).
pub fn resolve(
    cx: &mut dyn SessionCtx,
    owner: &Owner<'_>,
    spec: &FkSpec,
    taken: &mut Vec<String>,
) -> PgResult<(ConstraintDef, Option<Arc<Rel>>)> {
    let (schema, name) = &spec.ref_table;
    let self_ref = name == owner.name && (schema.is_empty() || schema == owner.schema);
    let parent = if self_ref && owner.creating {
        None
    } else {
        // PostgreSQL locks the referenced table ShareRowExclusive while it adds the key.
        match find_locked(cx, schema, name, LockMode::ShareRowExclusive)? {
            Some(r) if r.kind == RelKind::Table => Some(r),
            Some(_) => {
                return Err(PgError::new(
                    code::WRONG_OBJECT_TYPE,
                    format!("referenced relation \"{name}\" is not a table"),
                ))
            }
            None => {
                return Err(PgError::new(
                    code::UNDEFINED_TABLE,
                    format!("relation \"{name}\" does not exist"),
                ))
            }
        }
    };
    let (p_oid, p_columns, p_indexes, p_constraints) = match &parent {
        Some(p) if Some(p.oid) != owner.oid => {
            (p.oid, &p.columns[..], &p.indexes[..], &p.constraints[..])
        }
        _ => (
            owner.oid.unwrap_or(0),
            owner.columns,
            owner.indexes,
            owner.constraints,
        ),
    };
    // The SQL standard refuses a DEFERRABLE key as the referenced one (pg_index.indimmediate).
    let deferrable = |i: &IndexDef| {
        p_constraints.iter().any(|c| {
            c.deferrable
                && matches!(c.kind, ConstraintKind::PrimaryKey { index }
                    | ConstraintKind::Unique { index } if index == i.oid)
        })
    };
    let columns = column_positions(owner.columns, &spec.columns)?;
    let ref_columns = if spec.ref_columns.is_empty() {
        match p_indexes.iter().find(|i| i.primary) {
            Some(pk) if deferrable(pk) => {
                return Err(PgError::new(
                    code::OBJECT_NOT_IN_PREREQUISITE_STATE,
                    format!("cannot use a deferrable primary key for referenced table \"{name}\""),
                ))
            }
            Some(pk) => pk.columns.clone(),
            None => {
                return Err(PgError::new(
                    code::UNDEFINED_OBJECT,
                    format!("there is no primary key for referenced table \"{name}\""),
                ))
            }
        }
    } else {
        let cols = column_positions(p_columns, &spec.ref_columns)?;
        let matching = |d: &&IndexDef| {
            d.unique && d.columns.len() == cols.len() && d.columns.iter().all(|c| cols.contains(c))
        };
        if !p_indexes.iter().filter(matching).any(|d| !deferrable(d)) {
            if p_indexes.iter().any(|d| matching(&d)) {
                return Err(PgError::new(
                    code::OBJECT_NOT_IN_PREREQUISITE_STATE,
                    format!(
                        "cannot use a deferrable unique constraint for referenced table \"{name}\""
                    ),
                ));
            }
            return Err(PgError::new(
                INVALID_FOREIGN_KEY,
                format!(
                    "there is no unique constraint matching given keys for referenced table \"{name}\""
                ),
            ));
        }
        cols
    };
    if let Some(p) = &parent {
        // checkFkeyPermissions: REFERENCES on the table, or on each referenced column.
        super::grant::check_references(cx, p, &ref_columns)?;
    }
    // A generated referencing column cannot be set by an action (the SQL standard's rule).
    if columns.iter().any(|&c| owner.columns[c].generated) {
        let bad = |what: &str| {
            PgError::syntax(format!(
                "invalid {what} action for foreign key constraint containing generated column"
            ))
        };
        if matches!(spec.on_update, 'n' | 'd' | 'c') {
            return Err(bad("ON UPDATE"));
        }
        if matches!(spec.on_delete, 'n' | 'd') {
            return Err(bad("ON DELETE"));
        }
    }
    if columns.len() != ref_columns.len() {
        return Err(PgError::new(
            INVALID_FOREIGN_KEY,
            "number of referencing and referenced columns for foreign key disagree",
        ));
    }
    let cname = match &spec.name {
        Some(n) => {
            if taken.contains(n) {
                return Err(PgError::new(
                    code::DUPLICATE_OBJECT,
                    format!(
                        "constraint \"{n}\" for relation \"{}\" already exists",
                        owner.name
                    ),
                ));
            }
            n.clone()
        }
        None => super::names::Names::for_table(
            owner.schema,
            owner.oid.unwrap_or(0),
            taken.iter().map(String::as_str),
        )
        .foreign_key(cx, owner.name, &spec.columns)?,
    };
    for (&c, &p) in columns.iter().zip(&ref_columns) {
        let (a, b) = (owner.columns[c].type_oid, p_columns[p].type_oid);
        if !comparable(a, b) {
            return Err(PgError::new(
                code::DATATYPE_MISMATCH,
                format!("foreign key constraint \"{cname}\" cannot be implemented"),
            )
            .with_detail(format!(
                "Key columns \"{}\" and \"{}\" are of incompatible types: {} and {}.",
                owner.columns[c].name,
                p_columns[p].name,
                cast::format_type_with_typmod(Type(a), -1),
                cast::format_type_with_typmod(Type(b), -1)
            )));
        }
    }
    taken.push(cname.clone());
    let oid = cx
        .instance()
        .catalog
        .new_oid()
        .map_err(|e| super::catalog_error(e, &cname))?;
    Ok((
        ConstraintDef {
            oid,
            name: cname,
            kind: ConstraintKind::ForeignKey {
                columns,
                ref_table: p_oid,
                ref_columns,
                on_update: spec.on_update,
                on_delete: spec.on_delete,
                match_full: spec.match_full,
            },
            deferrable: spec.deferrable,
            deferred: spec.deferred,
        },
        parent.filter(|p| Some(p.oid) != owner.oid),
    ))
}

/// ALTER TABLE ... ADD [CONSTRAINT name] FOREIGN KEY.
pub fn add(cx: &mut dyn SessionCtx, table: &Arc<Rel>, spec: &FkSpec) -> PgResult<()> {
    let mut taken: Vec<String> = table.constraints.iter().map(|c| c.name.clone()).collect();
    let owner = Owner {
        oid: Some(table.oid),
        creating: false,
        schema: &table.name.schema,
        name: &table.name.name,
        columns: &table.columns,
        indexes: &table.indexes,
        constraints: &table.constraints,
    };
    let (def, parent) = resolve(cx, &owner, spec, &mut taken)?;
    if !spec.not_valid {
        crate::sql::exec::foreign_key::validate(cx, table, &def, parent.as_deref())?;
    }
    replace(cx, table, move |n| n.constraints.push(def))?;
    Ok(())
}

/// The foreign keys of other tables (not among `dropped`) that reference `rel`: (constraint
/// name, its table).
fn dependents(
    cx: &mut dyn SessionCtx,
    rel: &Rel,
    dropped: &[Arc<Rel>],
) -> PgResult<Vec<(String, Arc<Rel>)>> {
    let mut out = Vec::new();
    if !cx.instance().catalog.may_have_foreign_keys() {
        return Ok(out);
    }
    let snap = cx.catalog_snapshot()?;
    for t in cx.instance().catalog.visible(&snap) {
        if t.kind != RelKind::Table || dropped.iter().any(|d| d.oid == t.oid) {
            continue;
        }
        for c in &t.constraints {
            if matches!(c.kind, ConstraintKind::ForeignKey { ref_table, .. } if ref_table == rel.oid)
            {
                out.push((c.name.clone(), t.clone()));
            }
        }
    }
    Ok(out)
}

/// DROP TABLE of `tables`: fails with 2BP01 if another table's foreign key references one of
/// them; with CASCADE drops those constraints instead (with PostgreSQL's NOTICE).
pub fn before_drop(cx: &mut dyn SessionCtx, tables: &[Arc<Rel>], cascade: bool) -> PgResult<()> {
    for t in tables {
        let deps = dependents(cx, t, tables)?;
        if deps.is_empty() {
            continue;
        }
        let lines: Vec<String> = deps
            .iter()
            .map(|(c, r)| format!("constraint {c} on table {}", r.name.name))
            .collect();
        super::refuse_or_cascade(cx, &format!("table {}", t.name.name), &lines, cascade)?;
        // Each referencing table loses its constraints (one new version per table).
        let mut done: Vec<Oid> = Vec::new();
        for (_, r) in &deps {
            if done.contains(&r.oid) {
                continue;
            }
            done.push(r.oid);
            // The referencing table changes too: lock it as DROP locks its own, and take the
            // version seen after the wait.
            let r = match find_locked(cx, &r.name.schema, &r.name.name, LockMode::AccessExclusive)?
            {
                Some(now) if now.oid == r.oid => now,
                _ => continue,
            };
            let gone = t.oid;
            replace(cx, &r, move |n| {
                n.constraints.retain(
                    |c| !matches!(c.kind, ConstraintKind::ForeignKey { ref_table, .. } if ref_table == gone),
                )
            })?;
        }
    }
    Ok(())
}

/// TRUNCATE ... CASCADE: adds to `tables`, locked, every table whose foreign key references
/// one of them (transitively), each with PostgreSQL's NOTICE.
pub fn cascade_truncate(cx: &mut dyn SessionCtx, tables: &mut Vec<Arc<Rel>>) -> PgResult<()> {
    let mut i = 0;
    while i < tables.len() {
        let t = tables[i].clone();
        for (_, r) in dependents(cx, &t, tables)? {
            if tables.iter().any(|x| x.oid == r.oid) {
                continue;
            }
            let Some(r) = find_locked(cx, &r.name.schema, &r.name.name, LockMode::AccessExclusive)?
            else {
                continue;
            };
            cx.notice(PgError::notice(
                code::SUCCESSFUL_COMPLETION,
                format!("truncate cascades to table \"{}\"", r.name.name),
            ));
            tables.push(r);
        }
        i += 1;
    }
    Ok(())
}

/// TRUNCATE of `tables`: 0A000 if another table's foreign key references one of them
/// (PostgreSQL's check).
pub fn before_truncate(cx: &mut dyn SessionCtx, tables: &[Arc<Rel>]) -> PgResult<()> {
    for t in tables {
        if let Some((_, r)) = dependents(cx, t, tables)?.into_iter().next() {
            return Err(PgError::new(
                code::FEATURE_NOT_SUPPORTED,
                "cannot truncate a table referenced in a foreign key constraint",
            )
            .with_detail(format!(
                "Table \"{}\" references \"{}\".",
                r.name.name, t.name.name
            ))
            .with_hint(format!(
                "Truncate table \"{}\" at the same time, or use TRUNCATE ... CASCADE.",
                r.name.name
            )));
        }
    }
    Ok(())
}
