//! The renaming forms of ALTER: RENAME of a table, index, view, column or constraint, SET
//! SCHEMA, and the rewriting of stored expressions and view queries that name a renamed
//! column.

use super::*;

/// `text` with every reference to column `old` naming `new` instead.
fn rename_in_expr(text: &str, old: &str, new: &str) -> String {
    let mut out = text.to_string();
    for (s, e, name) in crate::sql::parser::identifiers(text).into_iter().rev() {
        if name == old {
            out.replace_range(s..e, &crate::sql::quote::quote_ident(new));
        }
    }
    out
}

/// A view's query text with every identifier `old` (qualified names' parts too) naming `new`:
/// how a view follows a rename of a table or column it reads, which PostgreSQL's stored parse
/// tree does by OID. Names that are equal but mean something else (an alias, a column called
/// like the table) are renamed too: an approximation.
pub(in crate::sql::ddl) fn rename_in_query(text: &str, old: &str, new: &str) -> String {
    let mut out = text.to_string();
    for (s, e, name) in crate::sql::parser::identifier_tokens(text, true)
        .into_iter()
        .rev()
    {
        if name == old {
            out.replace_range(s..e, &crate::sql::quote::quote_ident(new));
        }
    }
    out
}

pub(super) fn rename_relation(
    cx: &mut dyn SessionCtx,
    r: &Arc<Rel>,
    new_name: &str,
) -> PgResult<()> {
    if find(cx, &r.name.schema, new_name)?.is_some() {
        return Err(super::super::already_exists(new_name));
    }
    let mut name = r.name.clone();
    name.name = new_name.to_string();
    move_relation(cx, r, name)?;
    super::super::view::follow_rename(cx, r.oid, None, &r.name.name, new_name)?;
    if r.kind == RelKind::Index {
        // The table's definition names its indexes, and the constraint an index backs is
        // renamed with it (as PostgreSQL does).
        if let Some(t) = table_of(cx, r)? {
            let oid = r.oid;
            let new_name = new_name.to_string();
            replace_with_data(cx, &t, t.data.clone(), move |n| {
                for d in n.indexes.iter_mut().filter(|d| d.oid == oid) {
                    d.name = new_name.clone();
                }
                for k in n.constraints.iter_mut() {
                    if let ConstraintKind::PrimaryKey { index } | ConstraintKind::Unique { index } =
                        k.kind
                    {
                        if index == oid {
                            k.name = new_name.clone();
                        }
                    }
                }
            })?;
        }
    }
    Ok(())
}

/// The table an index relation indexes, as the catalog snapshot sees it.
fn table_of(cx: &mut dyn SessionCtx, index: &Rel) -> PgResult<Option<Arc<Rel>>> {
    let snap = cx.catalog_snapshot()?;
    Ok(cx
        .instance()
        .catalog
        .visible(&snap)
        .into_iter()
        .find(|t| Some(t.oid) == index.table))
}

/// Ends `r` and writes it again under `name` (same OID, data and definition).
fn move_relation(
    cx: &mut dyn SessionCtx,
    r: &Arc<Rel>,
    name: crate::catalog::QualName,
) -> PgResult<Arc<Rel>> {
    let (cell, cid) = cx.writer("ALTER TABLE")?;
    let shown = name.name.clone();
    let n = crate::catalog::NewRelation {
        name,
        kind: r.kind,
        persistence: r.persistence,
        columns: r.columns.clone(),
        indexes: r.indexes.clone(),
        constraints: r.constraints.clone(),
        owner: r.owner,
        acl: r.acl.clone(),
        column_acls: r.column_acls.clone(),
        triggers: r.triggers.clone(),
        rules: r.rules.clone(),
        table: r.table,
        matview: r.matview.clone(),
        partition: r.partition.clone(),
        data: r.data.clone(),
    };
    let catalog = &cx.instance().catalog;
    catalog
        .end(r, &cell, cid)
        .map_err(|e| catalog_error(e, &r.name.name))?;
    let snap = cx.catalog_snapshot()?;
    cx.instance()
        .catalog
        .create(Some(r.oid), n, &snap, &cell, cid)
        .map_err(|e| catalog_error(e, &shown))
}

pub(super) fn rename_column(
    cx: &mut dyn SessionCtx,
    r: &Arc<Rel>,
    old: &str,
    new: &str,
) -> PgResult<()> {
    let table = r.name.name.clone();
    // A table's (not a view's) system columns exist, and cannot take or give a name.
    let system = r.kind.has_rows();
    if system && super::super::SYSTEM_COLUMNS.contains(&old) {
        return Err(PgError::feature_not_supported(format!(
            "cannot rename system column \"{old}\""
        )));
    }
    let Some(pos) = live_position(&r.columns, old) else {
        return Err(PgError::new(
            code::UNDEFINED_COLUMN,
            format!("column \"{old}\" does not exist"),
        ));
    };
    if system {
        super::super::check_system_column_name(new)?;
    }
    if live_position(&r.columns, new).is_some() {
        return Err(PgError::new(
            code::DUPLICATE_COLUMN,
            format!("column \"{new}\" of relation \"{table}\" already exists"),
        ));
    }
    // An index's expressions and predicate are kept as text naming the column.
    if r.indexes
        .iter()
        .any(|d| !d.plain() && d.columns.contains(&pos))
    {
        return Err(PgError::feature_not_supported(
            "renaming a column that an index expression or predicate reads is not supported yet",
        ));
    }
    let (old_s, new_s) = (old.to_string(), new.to_string());
    replace_with_data(cx, r, r.data.clone(), move |n| {
        n.columns[pos].name = new_s.clone();
        // Generation expressions, like CHECKs, are kept as text naming the column.
        for c in n.columns.iter_mut().filter(|c| c.generated) {
            if let Some(d) = &mut c.default {
                *d = rename_in_expr(d, &old_s, &new_s);
            }
        }
        for k in n.constraints.iter_mut() {
            if let ConstraintKind::Check { expr } = &mut k.kind {
                *expr = rename_in_expr(expr, &old_s, &new_s);
            }
        }
    })?;
    // An index's own column keeps the name it was created with (as in PostgreSQL); the
    // views that read the column follow it.
    super::super::view::follow_rename(cx, r.oid, Some(pos), old, new)
}

pub(super) fn rename_constraint(
    cx: &mut dyn SessionCtx,
    r: &Arc<Rel>,
    old: &str,
    new: &str,
) -> PgResult<()> {
    let table = r.name.name.clone();
    let Some(k) = r.constraints.iter().find(|c| c.name == old) else {
        return Err(PgError::new(
            code::UNDEFINED_OBJECT,
            format!("constraint \"{old}\" for table \"{table}\" does not exist"),
        ));
    };
    if r.constraints.iter().any(|c| c.name == new) {
        return Err(constraint_exists(new, &table));
    }
    match k.kind {
        // Renaming an index-backed constraint renames its index (which renames it).
        ConstraintKind::PrimaryKey { index } | ConstraintKind::Unique { index } => {
            let Some(d) = r.indexes.iter().find(|d| d.oid == index) else {
                return Ok(());
            };
            let Some(ir) = find(cx, &r.name.schema, &d.name)? else {
                return Ok(());
            };
            rename_relation(cx, &ir, new)
        }
        _ => {
            let (old, new) = (old.to_string(), new.to_string());
            replace_with_data(cx, r, r.data.clone(), move |n| {
                for k in n.constraints.iter_mut().filter(|k| k.name == old) {
                    k.name = new.clone();
                }
            })
            .map(|_| ())
        }
    }
}

pub(super) fn set_schema(cx: &mut dyn SessionCtx, r: &Arc<Rel>, schema: &str) -> PgResult<()> {
    let snap = cx.catalog_snapshot()?;
    if !engine::schema_exists(&cx.instance().catalog, &snap, cx.database(), schema) {
        return Err(PgError::new(
            code::INVALID_SCHEMA_NAME,
            format!("schema \"{schema}\" does not exist"),
        ));
    }
    if r.name.schema == schema {
        return Ok(());
    }
    if find(cx, schema, &r.name.name)?.is_some() {
        return Err(PgError::new(
            code::DUPLICATE_TABLE,
            format!(
                "relation \"{}\" already exists in schema \"{schema}\"",
                r.name.name
            ),
        ));
    }
    // Its indexes move with it.
    let mut moved = vec![r.clone()];
    for d in &r.indexes {
        if let Some(ir) = find(cx, &r.name.schema, &d.name)? {
            moved.push(ir);
        }
    }
    for m in moved {
        let mut name = m.name.clone();
        name.schema = schema.to_string();
        move_relation(cx, &m, name)?;
    }
    super::super::view::follow_set_schema(cx, r.oid, &r.name.name, schema)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renames_only_the_column_references() {
        assert_eq!(
            rename_in_expr("((a > 1) AND (abs(a) < t.a) AND (\"a\" <> b))", "a", "New"),
            "((\"New\" > 1) AND (abs(\"New\") < t.a) AND (\"New\" <> b))"
        );
        let names: Vec<String> = crate::sql::parser::identifiers("(x > length(y))")
            .into_iter()
            .map(|(_, _, n)| n)
            .collect();
        assert_eq!(names, vec!["x", "y"]);
    }
}
