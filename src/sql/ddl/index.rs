//! Indexes of tables: definitions made from key specs (names chosen, columns resolved), the
//! index relations pg_class lists, building a tree over the rows a table holds, and adding
//! indexes to a table as a new version (CREATE INDEX, ALTER TABLE ADD PRIMARY KEY / UNIQUE).

use std::sync::Arc;

use super::{catalog_error, names, replace, KeySpec};
use crate::catalog::{
    ColumnDef, ConstraintDef, ConstraintKind, IndexDef, NewRelation, QualName, RelKind,
};
use crate::error::{code, PgError, PgResult};
use crate::sql::context::SessionCtx;
use crate::sql::engine::{self, KeyTree, Rel};
use crate::sql::types::Type;

/// Turns key specs into index definitions (names chosen, columns resolved). `as_constraint`:
/// the unique keys are constraints (CREATE TABLE, ALTER TABLE ADD), not CREATE UNIQUE INDEX,
/// which names them as plain indexes.
pub(super) fn index_defs(
    cx: &mut dyn SessionCtx,
    names: &mut names::Names,
    table: &str,
    columns: &[ColumnDef],
    keys: &[KeySpec],
    existing: &[IndexDef],
    as_constraint: bool,
) -> PgResult<Vec<IndexDef>> {
    let mut out: Vec<IndexDef> = Vec::new();
    for k in keys {
        if k.primary && (existing.iter().chain(out.iter()).any(|i| i.primary)) {
            // A second key in the same statement is a parse-analysis error pointing at it; one
            // added to a table that has a key is found later, without a position.
            let at = out.iter().any(|i| i.primary) && k.location >= 0;
            return Err(PgError::new(
                code::INVALID_TABLE_DEFINITION,
                format!("multiple primary keys for table \"{table}\" are not allowed"),
            )
            .at(at.then(|| k.location as u32 + 1)));
        }
        let mut cols = Vec::new();
        for name in &k.columns {
            let pos = columns
                .iter()
                .position(|c| !c.dropped && &c.name == name)
                .ok_or_else(|| {
                    PgError::new(
                        code::UNDEFINED_COLUMN,
                        format!("column \"{name}\" named in key does not exist"),
                    )
                })?;
            cols.push(pos);
        }
        out.push(IndexDef {
            oid: 0,
            name: k.name.clone().unwrap_or_default(),
            columns: cols,
            unique: k.unique || k.primary,
            primary: k.primary,
        });
    }
    // PostgreSQL makes the primary key's index first, then the others in order: that is the
    // order in which each generated name must avoid the names before it.
    let order = (0..keys.len())
        .filter(|&i| keys[i].primary)
        .chain((0..keys.len()).filter(|&i| !keys[i].primary));
    for i in order {
        let k = &keys[i];
        let constraint = k.primary || (k.unique && as_constraint);
        match &k.name {
            Some(n) => {
                names.add_relation(n);
                if constraint {
                    names.add_constraint(n);
                }
            }
            None => {
                let kind = if k.primary {
                    names::IndexKind::Primary
                } else if constraint {
                    names::IndexKind::Unique
                } else {
                    names::IndexKind::Plain
                };
                let cols: Vec<Option<&str>> = k.columns.iter().map(|c| Some(c.as_str())).collect();
                out[i].name = names.index(cx, table, &cols, kind)?;
            }
        }
    }
    for d in &mut out {
        d.oid = cx
            .instance()
            .catalog
            .new_oid()
            .map_err(|e| catalog_error(e, &d.name))?;
    }
    Ok(out)
}

/// Registers each index as a relation of its own (pg_class lists indexes; their names share
/// the table namespace).
pub(super) fn create_index_relations(
    cx: &mut dyn SessionCtx,
    table: &Rel,
    defs: &[IndexDef],
) -> PgResult<()> {
    let (cell, cid) = cx.writer("CREATE INDEX")?;
    let snap = cx.catalog_snapshot()?;
    for d in defs {
        let rel = NewRelation {
            name: QualName {
                name: d.name.clone(),
                ..table.name.clone()
            },
            kind: RelKind::Index,
            persistence: table.persistence,
            columns: d
                .columns
                .iter()
                .map(|&c| table.columns[c].clone())
                .collect(),
            indexes: vec![d.clone()],
            constraints: vec![],
            owner: table.owner,
            acl: None,
            column_acls: vec![],
            table: Some(table.oid),
            data: table.data.clone(),
        };
        cx.instance()
            .catalog
            .create(Some(d.oid), rel, &snap, &cell, cid)
            .map_err(|e| catalog_error(e, &d.name))?;
    }
    Ok(())
}

/// Builds a new index over the rows a table holds now; fails with 23505 if a unique index
/// would hold a key twice among live rows.
pub(super) fn build_index(cx: &mut dyn SessionCtx, table: &Rel, def: &IndexDef) -> PgResult<()> {
    let snap = cx.catalog_snapshot()?;
    let mut entries = engine::root_keys(table, &def.columns);
    // In key order: the tree fills from left to right, and duplicates are neighbours.
    entries.sort_unstable();
    let mut dup = None;
    if def.unique {
        // Only equal neighbours can be duplicates: visibility is looked up for those alone.
        let mut i = 0;
        while i < entries.len() && dup.is_none() {
            let key = &entries[i].0;
            let same = entries[i..].iter().take_while(|(k, _)| k == key).count();
            if same > 1 && !key.with_values(|v| v.iter().any(|x| x.is_null())) {
                let live = entries[i..i + same]
                    .iter()
                    .filter(|(_, root)| engine::sees(table, *root, &snap))
                    .count();
                if live > 1 {
                    dup = Some(key.to_key());
                }
            }
            i += same;
        }
    }
    if dup.is_none() {
        table.data.install_tree(def.oid, KeyTree::build(entries));
    }
    if let Some(key) = dup {
        table.data.drop_tree(def.oid);
        let names: Vec<&str> = def
            .columns
            .iter()
            .map(|&c| table.columns[c].name.as_str())
            .collect();
        let vals: Vec<String> = key
            .0
            .iter()
            .zip(def.columns.iter())
            .map(|(v, &c)| crate::sql::exec::text_of(v, Type(table.columns[c].type_oid), cx.fmt()))
            .collect();
        return Err(PgError::new(
            code::UNIQUE_VIOLATION,
            format!("could not create unique index \"{}\"", def.name),
        )
        .with_detail(format!(
            "Key ({})=({}) is duplicated.",
            names.join(", "),
            vals.join(", ")
        ))
        .with_table(&table.name.schema, &table.name.name)
        .with_constraint(&def.name));
    }
    Ok(())
}

/// Adds indexes to a table as a new version, building them. `as_constraint`: ALTER TABLE ADD
/// PRIMARY KEY / UNIQUE (a pg_constraint row each), not CREATE INDEX (a primary key always is).
pub(super) fn add_indexes(
    cx: &mut dyn SessionCtx,
    t: &Arc<Rel>,
    keys: &[KeySpec],
    as_constraint: bool,
) -> PgResult<()> {
    let mut names = names::Names::for_table(
        &t.name.schema,
        t.oid,
        t.constraints.iter().map(|c| c.name.as_str()),
    );
    let defs = index_defs(
        cx,
        &mut names,
        &t.name.name,
        &t.columns,
        keys,
        &t.indexes,
        as_constraint,
    )?;
    for d in &defs {
        build_index(cx, t, d)?;
    }
    let mut constraints = Vec::new();
    for d in &defs {
        if d.primary || as_constraint {
            constraints.push(key_constraint(cx, d)?);
        }
    }
    let defs2 = defs.clone();
    let new = replace(cx, t, move |n| {
        for d in &defs2 {
            if d.primary {
                for &c in &d.columns {
                    n.columns[c].not_null = true;
                }
            }
        }
        n.indexes.extend(defs2.iter().cloned());
        n.constraints.extend(constraints.iter().cloned());
    })?;
    create_index_relations(cx, &new, &defs)
}

/// The PRIMARY KEY or UNIQUE constraint that unique index `d` backs, with a new OID.
pub(super) fn key_constraint(cx: &mut dyn SessionCtx, d: &IndexDef) -> PgResult<ConstraintDef> {
    Ok(ConstraintDef {
        oid: cx
            .instance()
            .catalog
            .new_oid()
            .map_err(|e| catalog_error(e, &d.name))?,
        name: d.name.clone(),
        kind: if d.primary {
            ConstraintKind::PrimaryKey { index: d.oid }
        } else {
            ConstraintKind::Unique { index: d.oid }
        },
        deferrable: false,
        deferred: false,
    })
}
