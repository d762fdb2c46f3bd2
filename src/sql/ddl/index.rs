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
        let position = |name: &String| {
            columns
                .iter()
                .position(|c| !c.dropped && &c.name == name)
                .ok_or_else(|| {
                    // CREATE INDEX words it as indexcmds.c does, a constraint as
                    // parse_utilcmd.c does.
                    let what = if as_constraint { " named in key" } else { "" };
                    PgError::new(
                        code::UNDEFINED_COLUMN,
                        format!("column \"{name}\"{what} does not exist"),
                    )
                })
        };
        let mut cols = Vec::new();
        for name in &k.columns {
            let pos = position(name)?;
            if k.gin.is_none() {
                check_opclass(&columns[pos], k.hash)?;
            }
            cols.push(pos);
        }
        let include = k
            .include
            .iter()
            .map(position)
            .collect::<PgResult<Vec<_>>>()?;
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
            include,
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
                // The INCLUDE columns are named too, after the key's (ChooseIndexColumnNames).
                let mut cols: Vec<Option<&str>> = match &k.exprs {
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
                cols.extend(k.include.iter().map(|c| Some(c.as_str())));
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

/// A key column must have a default operator class of the index's access method: the
/// geometric types have none for btree or hash, as in PostgreSQL (an INCLUDE column needs
/// none).
fn check_opclass(col: &ColumnDef, hash: bool) -> PgResult<()> {
    use crate::sql::types::Type;
    let ty = Type(col.type_oid).base_type();
    if ty.category() == 'G' {
        let am = if hash { "hash" } else { "btree" };
        return Err(PgError::new(
            code::UNDEFINED_OBJECT,
            format!(
                "data type {} has no default operator class for access method \"{am}\"",
                ty.name()
            ),
        )
        .with_hint(
            "You must specify an operator class for the index or define a default operator class for the data type.",
        ));
    }
    Ok(())
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
pub(super) fn index_columns(table: &Rel, d: &IndexDef) -> Vec<ColumnDef> {
    // Each attribute with the name PostgreSQL's ChooseIndexColumnNames starts from: a column's
    // own, an expression's figured name (None: `expr`); the INCLUDE columns come last.
    let items: Vec<(Option<usize>, Option<String>, Option<&str>)> = match d.exprs.as_deref() {
        None => d.columns.iter().map(|&c| (Some(c), None, None)).collect(),
        Some(x) => x
            .items
            .iter()
            .map(|it| match it {
                IndexItem::Column(c) => (Some(*c), None, None),
                IndexItem::Expr(t) => (
                    None,
                    crate::sql::plan::modify::parse_expr(t)
                        .ok()
                        .and_then(|n| super::index_column_name(&n)),
                    Some(t.as_str()),
                ),
            })
            .collect(),
    };
    let items: Vec<_> = items
        .into_iter()
        .chain(d.include.iter().map(|&c| (Some(c), None, None)))
        .collect();
    let figured: Vec<Option<&str>> = items
        .iter()
        .map(|(c, f, _)| match c {
            Some(c) => Some(table.columns[*c].name.as_str()),
            None => f.as_deref(),
        })
        .collect();
    let names = names::index_column_names(&figured);
    items
        .iter()
        .zip(names)
        .map(|((c, _, expr), name)| match (c, expr) {
            (Some(c), _) => ColumnDef {
                name,
                ..table.columns[*c].clone()
            },
            (None, t) => {
                let ty = index_keys::bind(&table.columns, t.unwrap_or(""), "index expression")
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

/// Only btree carries INCLUDE columns here (PostgreSQL's GiST and SP-GiST do too): CREATE INDEX
/// checks this before anything else of the index, as DefineIndex does.
pub(super) fn check_include(key: &KeySpec) -> PgResult<()> {
    if !key.include.is_empty() && (key.hash || key.gin.is_some()) {
        return Err(PgError::feature_not_supported(format!(
            "access method \"{}\" does not support included columns",
            if key.hash { "hash" } else { "gin" }
        )));
    }
    Ok(())
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

/// The column numbers of ALTER INDEX ... ALTER COLUMN n SET STATISTICS k when that is every
/// command of the statement; None for any other ALTER INDEX.
pub(super) fn statistics_columns(a: &protobuf::AlterTableStmt) -> Option<Vec<i32>> {
    a.cmds
        .iter()
        .map(|c| match c.node.as_ref() {
            Some(N::AlterTableCmd(c))
                if c.subtype == protobuf::AlterTableType::AtSetStatistics as i32 && c.num > 0 =>
            {
                Some(c.num)
            }
            _ => None,
        })
        .collect()
}

/// PostgreSQL takes a statistics target on an index's expression items only, with these
/// errors for the others; threadgres gathers statistics of tables, so an accepted target
/// changes nothing.
pub(super) fn check_statistics_columns(idx: &Rel, columns: &[i32]) -> PgResult<()> {
    let (Some(def), RelKind::Index) = (idx.indexes.first(), idx.kind) else {
        return Err(PgError::feature_not_supported(
            "ALTER INDEX of a relation that is not an index is not supported yet",
        ));
    };
    let rel = &idx.name.name;
    for &n in columns {
        let i = n as usize - 1;
        let Some(col) = idx.columns.get(i).filter(|_| i < def.natts()) else {
            return Err(PgError::new(
                code::UNDEFINED_COLUMN,
                format!("column number {n} of relation \"{rel}\" does not exist"),
            ));
        };
        let name = &col.name;
        if i >= def.width() {
            return Err(PgError::feature_not_supported(format!(
                "cannot alter statistics on included column \"{name}\" of index \"{rel}\""
            )));
        }
        let expr = def.exprs.as_deref().and_then(|x| x.items.get(i));
        if !matches!(expr, Some(IndexItem::Expr(_))) {
            return Err(PgError::feature_not_supported(format!(
                "cannot alter statistics on non-expression column \"{name}\" of index \"{rel}\""
            ))
            .with_hint("Alter statistics on table column instead."));
        }
    }
    Ok(())
}

/// ALTER TABLE ... ADD [CONSTRAINT name] UNIQUE | PRIMARY KEY USING INDEX index: the table's
/// unique index becomes the constraint's (a primary key's columns NOT NULL, checked against
/// the rows by the caller when this returns true), with PostgreSQL's errors.
pub(super) fn adopt(
    cx: &mut dyn SessionCtx,
    table: &str,
    key: &KeySpec,
    index: &str,
    columns: &mut [ColumnDef],
    indexes: &mut [IndexDef],
    constraints: &mut Vec<ConstraintDef>,
) -> PgResult<bool> {
    // The errors point at the constraint, as PostgreSQL's do.
    let at = (key.location >= 0).then(|| key.location as u32 + 1);
    let Some(d) = indexes.iter_mut().find(|d| d.name == index) else {
        return Err(PgError::new(
            code::UNDEFINED_OBJECT,
            format!("index \"{index}\" does not exist"),
        )
        .at(at));
    };
    let backed = |k: &ConstraintDef| {
        matches!(k.kind, ConstraintKind::PrimaryKey { index } | ConstraintKind::Unique { index }
            if index == d.oid)
    };
    if constraints.iter().any(backed) {
        return Err(PgError::new(
            code::OBJECT_NOT_IN_PREREQUISITE_STATE,
            format!("index \"{index}\" is already associated with a constraint"),
        )
        .at(at));
    }
    if !d.unique {
        return Err(PgError::new(
            code::WRONG_OBJECT_TYPE,
            format!("\"{index}\" is not a unique index"),
        )
        .with_detail("Cannot create a primary key or unique constraint using such an index.")
        .at(at));
    }
    if !d.plain() || d.hash {
        return Err(PgError::feature_not_supported(format!(
            "ADD CONSTRAINT ... USING INDEX of index \"{index}\" is not supported yet"
        )));
    }
    if key.name.as_deref().is_some_and(|n| n != index) {
        return Err(PgError::feature_not_supported(
            "ADD CONSTRAINT ... USING INDEX that renames the index is not supported yet",
        ));
    }
    if key.primary
        && constraints
            .iter()
            .any(|k| matches!(k.kind, ConstraintKind::PrimaryKey { .. }))
    {
        return Err(PgError::new(
            code::INVALID_TABLE_DEFINITION,
            format!("multiple primary keys for table \"{table}\" are not allowed"),
        ));
    }
    d.primary = key.primary;
    let mut stricter = false;
    if key.primary {
        for &c in &d.columns {
            stricter |= !columns[c].not_null;
            columns[c].not_null = true;
        }
    }
    let d = d.clone();
    constraints.push(key_constraint(cx, &d, key)?);
    Ok(stricter)
}
