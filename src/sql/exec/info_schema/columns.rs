//! information_schema.columns, and the type facts the other views share with it.
//!
//! The view is what ORMs and schema tools read first: one row per live column of each table
//! and view whose user owns the relation or holds a SELECT, INSERT, UPDATE or REFERENCES
//! privilege on the column (or the table). Types are described the SQL standard's way:
//! `data_type` is format_type's spelling for a built-in type, `ARRAY` for an array and
//! `USER-DEFINED` for an enum, with the pg_type name in `udt_name`; lengths, precisions and
//! scales are read out of the type modifier as PostgreSQL's `_pg_*` helper functions do.
//! A generated column shows its expression as `generation_expression` (and no
//! `column_default`); column_column_usage lists the columns each one reads.

use crate::catalog::{acl, RelKind};
use crate::sql::exec::EvalCx;
use crate::sql::func::session_fn::CatalogFn;
use crate::sql::func::system::catalog::default_node;
use crate::sql::types::{Type, Value};

use super::super::catalog_rows::{build, has_default};
use super::super::Row;
use super::{cardinal, catalog_text, text, with_viewer, yes_no, Scope};

/// information_schema.columns' OID in a fresh PostgreSQL 15 cluster.
pub(super) const COLUMNS: u32 = 13295;
/// information_schema.column_column_usage's.
pub(super) const COLUMN_COLUMN_USAGE: u32 = 13275;

/// column_column_usage: (table, column read, generated column reading it) for the tables the
/// user's roles own, as PostgreSQL lists pg_depend's column-to-column dependencies.
pub(super) fn column_column_usage(cx: &mut EvalCx) -> Vec<Row> {
    let scope = Scope::new(cx);
    let Some(shown) = with_viewer(cx, |v| {
        scope
            .rels
            .iter()
            .filter(|r| r.kind == RelKind::Table && v.owns(r.owner))
            .cloned()
            .collect::<Vec<_>>()
    }) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for r in &shown {
        for (_, g) in r.live_columns().filter(|(_, c)| c.generated) {
            for (_, c) in r.live_columns().filter(|(_, c)| !c.generated) {
                let reads = g.default.as_deref().is_some_and(|t| {
                    crate::sql::parser::identifiers(t)
                        .iter()
                        .any(|(_, _, n)| *n == c.name)
                });
                if !reads {
                    continue;
                }
                out.push(build(COLUMN_COLUMN_USAGE, |k| match k {
                    "table_catalog" => text(&scope.db),
                    "table_schema" => text(&r.name.schema),
                    "table_name" => text(&r.name.name),
                    "column_name" => text(&c.name),
                    "dependent_column" => text(&g.name),
                    _ => Value::Null,
                }));
            }
        }
    }
    out
}

/// How the views name a type: `data_type`, and the schema and name of its pg_type row
/// (`udt_schema`, `udt_name`).
pub(super) struct TypeNames {
    pub data_type: String,
    pub udt_schema: String,
    pub udt_name: String,
}

pub(super) fn type_names(oid: u32) -> TypeNames {
    let ty = Type(oid);
    let user = |o: u32| crate::catalog::types::type_info(o).map(|t| t.def.clone());
    if let Some(elem) = ty.elem() {
        let schema = user(elem.0).map_or_else(|| "pg_catalog".to_string(), |t| t.schema);
        return TypeNames {
            data_type: "ARRAY".into(),
            udt_schema: schema,
            udt_name: ty.typname(),
        };
    }
    match user(oid) {
        Some(t) => TypeNames {
            data_type: "USER-DEFINED".into(),
            udt_schema: t.schema,
            udt_name: t.name,
        },
        None => TypeNames {
            data_type: ty.name(),
            udt_schema: "pg_catalog".into(),
            udt_name: ty.typname(),
        },
    }
}

/// _pg_char_max_length: the declared length of a character or bit string type.
pub(super) fn char_max_length(oid: u32, typmod: i32) -> Option<i64> {
    if typmod == -1 {
        return None;
    }
    match Type(oid) {
        Type::BPCHAR | Type::VARCHAR => Some(i64::from(typmod) - 4),
        // bit, varbit
        Type(1560) | Type(1562) => Some(i64::from(typmod)),
        _ => None,
    }
}

/// _pg_char_octet_length: the most bytes a value takes (UTF8: four per character; 1 GB when
/// unbounded).
pub(super) fn char_octet_length(oid: u32, typmod: i32) -> Option<i64> {
    match Type(oid) {
        Type::TEXT | Type::BPCHAR | Type::VARCHAR if typmod == -1 => Some(1 << 30),
        Type::TEXT | Type::BPCHAR | Type::VARCHAR => char_max_length(oid, typmod).map(|n| n * 4),
        _ => None,
    }
}

/// _pg_numeric_precision: bits of an integer or float type, declared digits of a numeric.
pub(super) fn numeric_precision(oid: u32, typmod: i32) -> Option<i64> {
    Some(match Type(oid) {
        Type::INT2 => 16,
        Type::INT4 => 32,
        Type::INT8 => 64,
        Type::FLOAT4 => 24,
        Type::FLOAT8 => 53,
        Type::NUMERIC if typmod != -1 => i64::from(((typmod - 4) >> 16) & 0xffff),
        _ => return None,
    })
}

/// _pg_numeric_precision_radix: 2 for binary types, 10 for numeric.
pub(super) fn numeric_radix(oid: u32) -> Option<i64> {
    match Type(oid) {
        Type::INT2 | Type::INT4 | Type::INT8 | Type::FLOAT4 | Type::FLOAT8 => Some(2),
        Type::NUMERIC => Some(10),
        _ => None,
    }
}

/// _pg_numeric_scale: 0 for integers, the declared scale of a numeric.
pub(super) fn numeric_scale(oid: u32, typmod: i32) -> Option<i64> {
    match Type(oid) {
        Type::INT2 | Type::INT4 | Type::INT8 => Some(0),
        Type::NUMERIC if typmod != -1 => Some(i64::from((typmod - 4) & 0xffff)),
        _ => None,
    }
}

/// _pg_datetime_precision: fractional digits of seconds (6 when not declared), 0 for date.
pub(super) fn datetime_precision(oid: u32, typmod: i32) -> Option<i64> {
    match Type(oid) {
        Type::DATE => Some(0),
        Type::TIME | Type::TIMESTAMP | Type::TIMESTAMPTZ | Type::TIMETZ => {
            Some(if typmod < 0 { 6 } else { i64::from(typmod) })
        }
        Type::INTERVAL if typmod < 0 || typmod & 0xffff == 0xffff => Some(6),
        Type::INTERVAL => Some(i64::from(typmod & 0xffff)),
        _ => None,
    }
}

/// _pg_interval_type: the fields of an interval declared with them (`DAY TO SECOND`); NULL
/// for a plain interval.
pub(super) fn interval_type(oid: u32, typmod: i32) -> Option<&'static str> {
    if Type(oid) != Type::INTERVAL || typmod < 0 {
        return None;
    }
    // PostgreSQL's INTERVAL_MASK bits: MONTH 1<<1, YEAR 1<<2, DAY 1<<3, HOUR 1<<10,
    // MINUTE 1<<11, SECOND 1<<12.
    let (y, mo, d, h, mi, s) = (4, 2, 8, 1 << 10, 1 << 11, 1 << 12);
    Some(match (typmod >> 16) & 0x7fff {
        m if m == y => "YEAR",
        m if m == mo => "MONTH",
        m if m == d => "DAY",
        m if m == h => "HOUR",
        m if m == mi => "MINUTE",
        m if m == s => "SECOND",
        m if m == y | mo => "YEAR TO MONTH",
        m if m == d | h => "DAY TO HOUR",
        m if m == d | h | mi => "DAY TO MINUTE",
        m if m == d | h | mi | s => "DAY TO SECOND",
        m if m == h | mi => "HOUR TO MINUTE",
        m if m == h | mi | s => "HOUR TO SECOND",
        m if m == mi | s => "MINUTE TO SECOND",
        _ => return None,
    })
}

pub(super) fn columns(cx: &mut EvalCx) -> Vec<Row> {
    let scope = Scope::new(cx);
    let want = acl::SELECT | acl::INSERT | acl::UPDATE | acl::REFERENCES;
    // (relation, column positions shown)
    let Some(shown) = with_viewer(cx, |v| {
        scope
            .rels
            .iter()
            .filter(|r| matches!(r.kind, RelKind::Table | RelKind::View))
            .filter(|r| !v.other_temp(&r.name.schema))
            .map(|r| {
                let owner = v.owns(r.owner);
                let cols: Vec<usize> = r
                    .live_columns()
                    .filter(|(i, _)| owner || v.column_priv(r, *i as i16 + 1, want))
                    .map(|(i, _)| i)
                    .collect();
                (r.clone(), cols)
            })
            .collect::<Vec<_>>()
    }) else {
        return Vec::new();
    };
    // Identity columns' sequences (pg_depend 'i'), by (table, attnum).
    let identity: std::collections::HashMap<(u32, usize), _> = scope
        .rels
        .iter()
        .filter_map(|s| {
            let q = s.data.sequence.as_ref()?;
            let o = q.owned_by.filter(|o| o.identity)?;
            Some(((o.table, o.attnum as usize), q.options))
        })
        .collect();
    let mut out = Vec::new();
    for (r, cols) in shown {
        for i in cols {
            let col = &r.columns[i];
            let attnum = i + 1;
            let expr = match col.default.as_deref().filter(|_| has_default(col)) {
                Some(d) => catalog_text(
                    cx,
                    CatalogFn::GetExpr,
                    &[Value::Text(default_node(attnum, d)), Value::Oid(r.oid)],
                ),
                None => Value::Null,
            };
            // A generated column's expression is its generation_expression, not a default.
            let (default, generation) = match col.generated {
                true => (Value::Null, expr),
                false => (expr, Value::Null),
            };
            let seq = identity.get(&(r.oid, attnum));
            let (oid, typmod) = (col.type_oid, col.typmod);
            let names = type_names(oid);
            let int8_text = |n: i64| text(&n.to_string());
            out.push(build(COLUMNS, |c| match c {
                "table_catalog" | "udt_catalog" => text(&scope.db),
                "table_schema" => text(&r.name.schema),
                "table_name" => text(&r.name.name),
                "column_name" => text(&col.name),
                "ordinal_position" => Value::Int4(attnum as i32),
                "column_default" => default.clone(),
                "is_nullable" => yes_no(!col.not_null),
                "data_type" => text(&names.data_type),
                "character_maximum_length" => cardinal(char_max_length(oid, typmod)),
                "character_octet_length" => cardinal(char_octet_length(oid, typmod)),
                "numeric_precision" => cardinal(numeric_precision(oid, typmod)),
                "numeric_precision_radix" => cardinal(numeric_radix(oid)),
                "numeric_scale" => cardinal(numeric_scale(oid, typmod)),
                "datetime_precision" => cardinal(datetime_precision(oid, typmod)),
                "interval_type" => interval_type(oid, typmod).map_or(Value::Null, text),
                "udt_schema" => text(&names.udt_schema),
                "udt_name" => text(&names.udt_name),
                "dtd_identifier" => text(&attnum.to_string()),
                "is_self_referencing" => yes_no(false),
                "is_identity" => yes_no(col.identity.is_some()),
                "identity_generation" => match col.identity {
                    Some('a') => text("ALWAYS"),
                    Some('d') => text("BY DEFAULT"),
                    _ => Value::Null,
                },
                "identity_start" => seq.map_or(Value::Null, |s| int8_text(s.start)),
                "identity_increment" => seq.map_or(Value::Null, |s| int8_text(s.increment)),
                "identity_maximum" => seq.map_or(Value::Null, |s| int8_text(s.max)),
                "identity_minimum" => seq.map_or(Value::Null, |s| int8_text(s.min)),
                "identity_cycle" => yes_no(seq.is_some_and(|s| s.cycle)),
                "is_generated" => text(if col.generated { "ALWAYS" } else { "NEVER" }),
                "generation_expression" => generation.clone(),
                "is_updatable" => yes_no(r.kind == RelKind::Table),
                _ => Value::Null,
            }));
        }
    }
    out
}
