//! Partitioned tables as pg_get_partkeydef and pg_get_partition_constraintdef print them, and
//! the key items' names that routing errors quote.

use crate::catalog::partition::PartitionKey;
use crate::catalog::{ColumnDef, IndexItem};
use crate::sql::engine::Rel;
use crate::sql::partition::{self as part, bound_values, Bound, Datum};
use crate::sql::types::{Type, Value};

/// The name of key item `i` as errors and pg_get_partkeydef print it.
pub fn key_names(key: &PartitionKey, columns: &[ColumnDef]) -> Vec<String> {
    let cols: Vec<super::ColInfo<'_>> = columns
        .iter()
        .filter(|c| !c.dropped)
        .map(|c| (c.name.as_str(), Type(c.type_oid), c.typmod))
        .collect();
    key.items
        .iter()
        .map(|it| match it {
            IndexItem::Column(c) => {
                crate::sql::quote::quote_ident(columns.get(*c).map_or("", |c| c.name.as_str()))
            }
            IndexItem::Expr(t) => super::index_expr_in(t, &cols, false),
        })
        .collect()
}

/// pg_get_partkeydef: `RANGE (a, b)`.
pub fn keydef(rel: &Rel) -> Option<String> {
    let key = rel.partition_key()?;
    Some(format!(
        "{} ({})",
        key.strategy.name(),
        key_names(key, &rel.columns).join(", ")
    ))
}

/// A bound constant as a partition constraint prints it: with its type named where the
/// literal alone would read as another type.
fn labeled(v: &Value, ty: Type, fmt: &crate::sql::types::FormatCtx) -> String {
    let shown = part::show_value(v, ty, fmt);
    let bare = (ty == Type::INT4 && !shown.starts_with('\''))
        || ty == Type::BOOL
        || (ty == Type::NUMERIC && !shown.starts_with('\''));
    if bare {
        shown
    } else {
        format!("{shown}::{}", ty.name())
    }
}

/// pg_get_partition_constraintdef for a partition of a one-item key bounded by a list or a
/// range: what the bound implies of each row (None for the other cases).
pub fn constraintdef(rel: &Rel, parent: &Rel) -> Option<String> {
    let key = parent.partition_key()?;
    let of = rel.partition_of()?;
    if key.items.len() != 1 || parent.partition_of().is_some() {
        return None;
    }
    let name = key_names(key, &parent.columns).remove(0);
    let ty = Type(key.types[0].0);
    let fmt = crate::sql::types::FormatCtx::default();
    match bound_values(key, &of.bound).ok()? {
        Bound::Range { from, to } => {
            let mut parts = vec![format!("({name} IS NOT NULL)")];
            if let Some(Datum::Val(v)) = from.first() {
                parts.push(format!("({name} >= {})", labeled(v, ty, &fmt)));
            }
            if let Some(Datum::Val(v)) = to.first() {
                parts.push(format!("({name} < {})", labeled(v, ty, &fmt)));
            }
            Some(format!("({})", parts.join(" AND ")))
        }
        Bound::List(vals) => {
            let has_null = vals.iter().any(Value::is_null);
            let vals: Vec<String> = vals
                .iter()
                .filter(|v| !v.is_null())
                .map(|v| labeled(v, ty, &fmt))
                .collect();
            let test = match vals.len() {
                0 => None,
                1 => Some(format!("({name} = {})", vals[0])),
                _ => Some(format!("({name} = ANY (ARRAY[{}]))", vals.join(", "))),
            };
            Some(match (has_null, test) {
                (false, Some(t)) => format!("(({name} IS NOT NULL) AND {t})"),
                (true, Some(t)) => format!("(({name} IS NULL) OR {t})"),
                (true, None) => format!("({name} IS NULL)"),
                (false, None) => return None,
            })
        }
        _ => None,
    }
}
