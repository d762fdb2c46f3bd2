//! Indexes of tables: definitions made from key specs (names chosen, columns resolved), the
//! index relations pg_class lists, building a tree over the rows a table holds, and adding
//! indexes to a table as a new version (CREATE INDEX, ALTER TABLE ADD PRIMARY KEY / UNIQUE);
//! a GIN index's operator class.

use std::sync::Arc;

use pg_query::protobuf::{self, node::Node as N};

use super::{catalog_error, names, replace, IndexExprSpec, KeyItemSpec, KeySpec};
use crate::catalog::{
    ColumnDef, ConstraintDef, ConstraintKind, IndexDef, IndexExprs, IndexItem, NewRelation,
    QualName, RelKind,
};
use crate::error::{code, PgError, PgResult};
use crate::sql::context::SessionCtx;
use crate::sql::engine::{self, KeyTree, Rel};
use crate::sql::exec::index_keys;
use crate::sql::parser::names_of;
use crate::sql::plan::Expr;

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
        let exprs = match &k.exprs {
            Some(x) => Some(Box::new(index_exprs(columns, x, &mut cols)?)),
            None => None,
        };
        out.push(IndexDef {
            oid: 0,
            name: k.name.clone().unwrap_or_default(),
            columns: cols,
            unique: k.unique || k.primary,
            primary: k.primary,
            exprs,
            hash: k.hash,
            gin: k.gin.clone(),
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
                let cols: Vec<Option<&str>> = match &k.exprs {
                    None => k.columns.iter().map(|c| Some(c.as_str())).collect(),
                    Some(x) => x
                        .items
                        .iter()
                        .map(|it| match it {
                            KeyItemSpec::Column(c) => Some(c.as_str()),
                            KeyItemSpec::Expr(_, n) => n.as_deref(),
                        })
                        .collect(),
                };
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

/// The items and predicate of an expression or partial index, checked by binding them over
/// the table's `columns`; `read` gets the positions of every column they read, in table order.
fn index_exprs(
    columns: &[ColumnDef],
    spec: &IndexExprSpec,
    read: &mut Vec<usize>,
) -> PgResult<IndexExprs> {
    let mut note = |e: &Expr| {
        e.any(&mut |e| {
            if let Expr::Column(c) = e {
                read.push(*c);
            }
            false
        });
    };
    let mut nodes = spec.nodes.iter();
    let mut items = Vec::with_capacity(spec.items.len());
    for it in &spec.items {
        items.push(match it {
            KeyItemSpec::Column(name) => {
                let pos = columns
                    .iter()
                    .position(|c| !c.dropped && &c.name == name)
                    .ok_or_else(|| {
                        PgError::new(
                            code::UNDEFINED_COLUMN,
                            format!("column \"{name}\" does not exist"),
                        )
                    })?;
                note(&Expr::Column(pos));
                IndexItem::Column(pos)
            }
            KeyItemSpec::Expr(text, _) => {
                let n = nodes
                    .next()
                    .ok_or_else(|| PgError::internal("index expression node"))?;
                let (e, _) = index_keys::bind_node(columns, n, "index expression")?;
                note(&e);
                IndexItem::Expr(text.clone())
            }
        });
    }
    if spec.predicate.is_some() {
        let n = nodes
            .next()
            .ok_or_else(|| PgError::internal("index predicate node"))?;
        let (e, _) = index_keys::bind_node(columns, n, "index predicate")?;
        note(&e);
    }
    read.sort_unstable();
    read.dedup();
    Ok(IndexExprs {
        items,
        predicate: spec.predicate.clone(),
    })
}

/// The columns of index `d`'s relation (pg_attribute of the index): a key column as the
/// table's, an expression as PostgreSQL names it (`lower`, `expr`, made distinct) with its type.
fn index_columns(table: &Rel, d: &IndexDef) -> Vec<ColumnDef> {
    let Some(x) = d.exprs.as_deref() else {
        return d
            .columns
            .iter()
            .map(|&c| table.columns[c].clone())
            .collect();
    };
    let figured: Vec<Option<String>> = x
        .items
        .iter()
        .map(|it| match it {
            IndexItem::Column(c) => Some(table.columns[*c].name.clone()),
            IndexItem::Expr(t) => crate::sql::plan::modify::parse_expr(t)
                .ok()
                .and_then(|n| super::index_column_name(&n)),
        })
        .collect();
    let names =
        names::index_column_names(&figured.iter().map(Option::as_deref).collect::<Vec<_>>());
    x.items
        .iter()
        .zip(names)
        .map(|(it, name)| match it {
            IndexItem::Column(c) => table.columns[*c].clone(),
            IndexItem::Expr(t) => {
                let ty = index_keys::bind(&table.columns, t, "index expression")
                    .map_or(crate::sql::types::Type::TEXT, |(_, ty)| ty);
                ColumnDef {
                    name,
                    type_oid: ty.0,
                    typmod: -1,
                    not_null: false,
                    default: None,
                    identity: None,
                    generated: false,
                    dropped: false,
                    domain: None,
                }
            }
        })
        .collect()
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
            columns: index_columns(table, d),
            indexes: vec![d.clone()],
            constraints: vec![],
            owner: table.owner,
            acl: None,
            column_acls: vec![],
            triggers: vec![],
            rules: vec![],
            table: Some(table.oid),
            matview: None,
            partition: None,
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
    match new_tree(cx, table, def) {
        Ok(tree) => {
            table.data.install_tree(def.oid, tree);
            Ok(())
        }
        Err(e) => {
            table.data.drop_tree(def.oid);
            Err(e)
        }
    }
}

/// REINDEX: builds index `def` of `table` anew and puts it in place of its tree; on failure
/// (a duplicate key of a unique index) the old tree stays, as PostgreSQL keeps the old index.
pub(super) fn rebuild_index(cx: &mut dyn SessionCtx, table: &Rel, def: &IndexDef) -> PgResult<()> {
    let tree = new_tree(cx, table, def)?;
    table.data.install_tree(def.oid, tree);
    Ok(())
}

/// The tree of index `def` over the rows `table` holds now (23505 for a duplicate key of a
/// unique index among live rows).
fn new_tree(cx: &mut dyn SessionCtx, table: &Rel, def: &IndexDef) -> PgResult<KeyTree> {
    let snap = cx.catalog_snapshot()?;
    let mut entries = engine::root_keys(table, def)?;
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
    if let Some(key) = dup {
        return Err(PgError::new(
            code::UNIQUE_VIOLATION,
            format!("could not create unique index \"{}\"", def.name),
        )
        .with_detail(format!(
            "{} is duplicated.",
            index_keys::key_text(table, def, &key, cx.fmt())
        ))
        .with_table(&table.name.schema, &table.name.name)
        .with_constraint(&def.name));
    }
    Ok(KeyTree::build(entries))
}

/// Adds indexes to a table as a new version, building them. `as_constraint`: ALTER TABLE ADD
/// PRIMARY KEY / UNIQUE (a pg_constraint row each), not CREATE INDEX (a primary key always is).
pub(super) fn add_indexes(
    cx: &mut dyn SessionCtx,
    t: &Arc<Rel>,
    keys: &[KeySpec],
    as_constraint: bool,
) -> PgResult<()> {
    // In-process servers and tests may not have registered it at start.
    index_keys::register();
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
    for (d, k) in defs.iter().zip(keys) {
        if d.primary || as_constraint {
            constraints.push(key_constraint(cx, d, k)?);
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

/// The PRIMARY KEY or UNIQUE constraint that unique index `d` backs (made from `k`), with a
/// new OID.
pub(super) fn key_constraint(
    cx: &mut dyn SessionCtx,
    d: &IndexDef,
    k: &KeySpec,
) -> PgResult<ConstraintDef> {
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
        deferrable: k.deferrable,
        deferred: k.deferred,
    })
}

/// A GIN index's spec with its operator class resolved against the column's type (the
/// default class when it names none), with PostgreSQL's errors; other specs as they are.
pub(super) fn gin_key(cx: &mut dyn SessionCtx, t: &Rel, key: &KeySpec) -> PgResult<KeySpec> {
    let Some(named) = &key.gin else {
        return Ok(key.clone());
    };
    if key.unique {
        return Err(PgError::feature_not_supported(
            "access method \"gin\" does not support unique indexes",
        ));
    }
    if key.exprs.is_some() {
        return Err(PgError::feature_not_supported(
            "gin indexes over expressions or with a predicate are not supported yet",
        ));
    }
    let [col] = key.columns.as_slice() else {
        return Err(PgError::feature_not_supported(
            "multicolumn gin indexes are not supported yet",
        ));
    };
    let c = t
        .columns
        .iter()
        .find(|c| !c.dropped && &c.name == col)
        .ok_or_else(|| {
            PgError::new(
                code::UNDEFINED_COLUMN,
                format!("column \"{col}\" does not exist"),
            )
        })?;
    let ty = crate::sql::types::Type(c.type_oid);
    let ty_name = crate::sql::types::cast::format_type_with_typmod(ty, -1);
    let class = if named.is_empty() {
        engine::gin::default_class(ty, &ty_name)?
    } else {
        engine::gin::named_class(named, ty, &ty_name)?
    };
    // An extension's class exists in the databases that installed the extension.
    if let Some(ext) = class.extension() {
        let snap = cx.catalog_snapshot()?;
        let catalog = &cx.instance().catalog;
        if catalog.extensions.get(cx.database(), ext, &snap).is_none() {
            return Err(PgError::new(
                code::UNDEFINED_OBJECT,
                format!("operator class \"{named}\" does not exist for access method \"gin\""),
            ));
        }
    }
    Ok(KeySpec {
        gin: Some(class.name().to_string()),
        ..key.clone()
    })
}

/// The operator class a GIN index's first item names (its last name part: pg_catalog's
/// classes are the only ones), or "" when it names none.
pub(super) fn gin_opclass(params: &[protobuf::Node]) -> PgResult<String> {
    let Some(N::IndexElem(e)) = params.first().and_then(|p| p.node.as_ref()) else {
        return Ok(String::new());
    };
    Ok(names_of(&e.opclass).pop().unwrap_or_default())
}
