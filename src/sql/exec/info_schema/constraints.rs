//! information_schema's constraint views: table_constraints, key_column_usage,
//! referential_constraints, constraint_column_usage and check_constraints.
//!
//! They describe pg_constraint's rows the standard's way. Two things PostgreSQL does that a
//! reader would not guess are kept: NOT NULL columns count as CHECK constraints in
//! table_constraints and check_constraints, named `<schema oid>_<table oid>_<attnum>_not_null`
//! (the OIDs are threadgres', so the names differ from another server's as the OIDs do); and
//! each view has its own visibility rule, copied below from PostgreSQL 15's definitions
//! (table_constraints and referential_constraints want a privilege other than SELECT,
//! key_column_usage a privilege on the column, the other two the owner's privileges).
//!
//! Where PostgreSQL follows pg_depend (the columns a CHECK reads, the unique constraint a
//! foreign key rests on), threadgres finds the same facts from the constraint itself: the
//! identifiers of the CHECK's text that name columns, and the referenced table's unique index
//! (pg_constraint.conindid) and the constraint that owns it.

use crate::catalog::{acl, ConstraintDef, ConstraintKind, RelKind};
use crate::sql::engine::Rel;
use crate::sql::exec::EvalCx;
use crate::sql::func::session_fn::CatalogFn;
use crate::sql::types::Value;
use crate::sync::Arc;

use super::super::catalog_rows::{build, constraint_columns, fk_index};
use super::super::Row;
use super::{cardinal, catalog_text, text, with_viewer, yes_no, Scope};

/// The views' OIDs in a fresh PostgreSQL 15 cluster.
pub(super) const TABLE_CONSTRAINTS: u32 = 13411;
pub(super) const KEY_COLUMN_USAGE: u32 = 13329;
pub(super) const REFERENTIAL_CONSTRAINTS: u32 = 13339;
pub(super) const CONSTRAINT_COLUMN_USAGE: u32 = 13300;
pub(super) const CHECK_CONSTRAINTS: u32 = 13260;

/// The name information_schema gives a NOT NULL column's constraint.
fn not_null_name(scope: &Scope, r: &Rel, attnum: usize) -> String {
    format!(
        "{}_{}_{attnum}_not_null",
        scope.schema_oid(&r.name.schema),
        r.oid
    )
}

fn tables_of(scope: &Scope) -> impl Iterator<Item = &Arc<Rel>> {
    scope.rels.iter().filter(|r| r.kind == RelKind::Table)
}

pub(super) fn table_constraints(cx: &mut EvalCx) -> Vec<Row> {
    let scope = Scope::new(cx);
    let shown: Vec<Arc<Rel>> = with_viewer(cx, |v| {
        tables_of(&scope)
            .filter(|r| !v.other_temp(&r.name.schema) && v.sees_constraints(r))
            .cloned()
            .collect()
    })
    .unwrap_or_default();
    let mut out = Vec::new();
    for r in &shown {
        let row = |name: &str, kind: &str, deferrable: bool, deferred: bool, unique: bool| {
            build(TABLE_CONSTRAINTS, |c| match c {
                "constraint_catalog" | "table_catalog" => text(&scope.db),
                "constraint_schema" | "table_schema" => text(&r.name.schema),
                "constraint_name" => text(name),
                "table_name" => text(&r.name.name),
                "constraint_type" => text(kind),
                "is_deferrable" => yes_no(deferrable),
                "initially_deferred" => yes_no(deferred),
                "enforced" => yes_no(true),
                // NULLS NOT DISTINCT is not supported: every unique constraint's are distinct.
                "nulls_distinct" if unique => yes_no(true),
                _ => Value::Null,
            })
        };
        for k in &r.constraints {
            let kind = match k.kind {
                ConstraintKind::PrimaryKey { .. } => "PRIMARY KEY",
                ConstraintKind::Unique { .. } => "UNIQUE",
                ConstraintKind::Check { .. } => "CHECK",
                ConstraintKind::ForeignKey { .. } => "FOREIGN KEY",
            };
            let unique = matches!(k.kind, ConstraintKind::Unique { .. });
            out.push(row(&k.name, kind, k.deferrable, k.deferred, unique));
        }
        for (i, _) in r.live_columns().filter(|(_, c)| c.not_null) {
            out.push(row(
                &not_null_name(&scope, r, i + 1),
                "CHECK",
                false,
                false,
                false,
            ));
        }
    }
    out
}

pub(super) fn key_column_usage(cx: &mut EvalCx) -> Vec<Row> {
    let scope = Scope::new(cx);
    let want = acl::SELECT | acl::INSERT | acl::UPDATE | acl::REFERENCES;
    // (table, constraint, its key columns, whether each is shown)
    type Keys = (Arc<Rel>, ConstraintDef, Vec<(usize, bool)>);
    let shown: Vec<Keys> = with_viewer(cx, |v| {
        let mut out = Vec::new();
        for r in tables_of(&scope).filter(|r| !v.other_temp(&r.name.schema)) {
            let owner = v.owns(r.owner);
            for k in r
                .constraints
                .iter()
                .filter(|k| !matches!(k.kind, ConstraintKind::Check { .. }))
            {
                let cols = constraint_columns(r, k)
                    .into_iter()
                    .map(|c| (c, owner || v.column_priv(r, c as i16 + 1, want)))
                    .collect();
                out.push((r.clone(), k.clone(), cols));
            }
        }
        out
    })
    .unwrap_or_default();
    let mut out = Vec::new();
    for (r, k, cols) in &shown {
        // A foreign key column's place in the referenced unique index (_pg_index_position).
        let unique_position = |n: usize| match &k.kind {
            ConstraintKind::ForeignKey {
                ref_table,
                ref_columns,
                ..
            } => {
                let index = fk_index(&scope.rels, *ref_table, ref_columns)?;
                let col = ref_columns.get(n)?;
                index
                    .columns
                    .iter()
                    .position(|c| c == col)
                    .map(|p| p as i64 + 1)
            }
            _ => None,
        };
        for (n, (col, visible)) in cols.iter().enumerate() {
            let Some(column) = r.columns.get(*col).filter(|c| *visible && !c.dropped) else {
                continue;
            };
            out.push(build(KEY_COLUMN_USAGE, |c| match c {
                "constraint_catalog" | "table_catalog" => text(&scope.db),
                "constraint_schema" | "table_schema" => text(&r.name.schema),
                "constraint_name" => text(&k.name),
                "table_name" => text(&r.name.name),
                "column_name" => text(&column.name),
                "ordinal_position" => Value::Int4(n as i32 + 1),
                "position_in_unique_constraint" => cardinal(unique_position(n)),
                _ => Value::Null,
            }));
        }
    }
    out
}

/// An ON UPDATE / ON DELETE action as the standard names it.
fn rule(action: char) -> Value {
    match action {
        'c' => text("CASCADE"),
        'n' => text("SET NULL"),
        'd' => text("SET DEFAULT"),
        'r' => text("RESTRICT"),
        'a' => text("NO ACTION"),
        _ => Value::Null,
    }
}

pub(super) fn referential_constraints(cx: &mut EvalCx) -> Vec<Row> {
    let scope = Scope::new(cx);
    // PostgreSQL's definition leaves other sessions' temporary tables in.
    let shown: Vec<Arc<Rel>> = with_viewer(cx, |v| {
        tables_of(&scope)
            .filter(|r| v.sees_constraints(r))
            .cloned()
            .collect()
    })
    .unwrap_or_default();
    let mut out = Vec::new();
    for r in &shown {
        for k in &r.constraints {
            let ConstraintKind::ForeignKey {
                ref_table,
                ref_columns,
                on_update,
                on_delete,
                match_full,
                ..
            } = &k.kind
            else {
                continue;
            };
            // The primary key or unique constraint whose index the foreign key rests on (none
            // when it is a unique index made by CREATE UNIQUE INDEX).
            let unique = fk_index(&scope.rels, *ref_table, ref_columns).and_then(|index| {
                let parent = scope.rel(*ref_table)?;
                let con = parent.constraints.iter().find(|p| match p.kind {
                    ConstraintKind::PrimaryKey { index: i }
                    | ConstraintKind::Unique { index: i } => i == index.oid,
                    _ => false,
                })?;
                Some((parent.name.schema.clone(), con.name.clone()))
            });
            out.push(build(REFERENTIAL_CONSTRAINTS, |c| match c {
                "constraint_catalog" => text(&scope.db),
                "constraint_schema" => text(&r.name.schema),
                "constraint_name" => text(&k.name),
                "unique_constraint_catalog" if unique.is_some() => text(&scope.db),
                "unique_constraint_schema" => unique.as_ref().map_or(Value::Null, |u| text(&u.0)),
                "unique_constraint_name" => unique.as_ref().map_or(Value::Null, |u| text(&u.1)),
                "match_option" => text(if *match_full { "FULL" } else { "NONE" }),
                "update_rule" => rule(*on_update),
                "delete_rule" => rule(*on_delete),
                _ => Value::Null,
            }));
        }
    }
    out
}

/// The live columns of `r` a CHECK expression's text names (pg_depend's column
/// dependencies of the constraint), in column order.
fn check_columns(r: &Rel, expr: &str) -> Vec<usize> {
    let names = crate::sql::parser::identifiers(expr);
    r.live_columns()
        .filter(|(_, c)| names.iter().any(|(_, _, n)| *n == c.name))
        .map(|(i, _)| i)
        .collect()
}

pub(super) fn constraint_column_usage(cx: &mut EvalCx) -> Vec<Row> {
    let scope = Scope::new(cx);
    // (table the column is of, column, the constraint's table, constraint name)
    let mut uses: Vec<(&Arc<Rel>, usize, &Arc<Rel>, &str)> = Vec::new();
    for r in tables_of(&scope) {
        for k in &r.constraints {
            match &k.kind {
                ConstraintKind::Check { expr } => uses.extend(
                    check_columns(r, expr)
                        .into_iter()
                        .map(|c| (r, c, r, &*k.name)),
                ),
                // A foreign key uses the referenced columns.
                ConstraintKind::ForeignKey {
                    ref_table,
                    ref_columns,
                    ..
                } => {
                    if let Some(p) = scope.rel(*ref_table) {
                        uses.extend(ref_columns.iter().map(|&c| (p, c, r, &*k.name)));
                    }
                }
                _ => uses.extend(
                    constraint_columns(r, k)
                        .into_iter()
                        .map(|c| (r, c, r, &*k.name)),
                ),
            }
        }
    }
    let uses: Vec<_> = with_viewer(cx, |v| {
        uses.into_iter().filter(|(t, ..)| v.owns(t.owner)).collect()
    })
    .unwrap_or_default();
    uses.iter()
        .filter_map(|(t, col, con_table, name)| {
            let column = t.columns.get(*col).filter(|c| !c.dropped)?;
            Some(build(CONSTRAINT_COLUMN_USAGE, |c| match c {
                "table_catalog" | "constraint_catalog" => text(&scope.db),
                "table_schema" => text(&t.name.schema),
                "table_name" => text(&t.name.name),
                "column_name" => text(&column.name),
                "constraint_schema" => text(&con_table.name.schema),
                "constraint_name" => text(name),
                _ => Value::Null,
            }))
        })
        .collect()
}

pub(super) fn check_constraints(cx: &mut EvalCx) -> Vec<Row> {
    let scope = Scope::new(cx);
    let shown: Vec<Arc<Rel>> = with_viewer(cx, |v| {
        tables_of(&scope)
            .filter(|r| v.owns(r.owner))
            .cloned()
            .collect()
    })
    .unwrap_or_default();
    let mut out = Vec::new();
    let row = |schema: &str, name: &str, clause: Value| {
        build(CHECK_CONSTRAINTS, |c| match c {
            "constraint_catalog" => text(&scope.db),
            "constraint_schema" => text(schema),
            "constraint_name" => text(name),
            "check_clause" => clause.clone(),
            _ => Value::Null,
        })
    };
    for r in &shown {
        for k in &r.constraints {
            if !matches!(k.kind, ConstraintKind::Check { .. }) {
                continue;
            }
            // pg_get_constraintdef's text without its leading "CHECK ".
            let clause = match catalog_text(cx, CatalogFn::GetConstraintDef, &[Value::Oid(k.oid)]) {
                Value::Text(t) => Value::Text(t.get(6..).unwrap_or_default().to_string()),
                v => v,
            };
            out.push(row(&r.name.schema, &k.name, clause));
        }
        for (i, col) in r.live_columns().filter(|(_, c)| c.not_null) {
            let clause = Value::Text(format!("{} IS NOT NULL", col.name));
            out.push(row(
                &r.name.schema,
                &not_null_name(&scope, r, i + 1),
                clause,
            ));
        }
    }
    out
}
