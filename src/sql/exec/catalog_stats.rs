//! pg_stats: what ANALYZE found (`engine::analyze`), one row per column of each analyzed table
//! whose values the current user may read (SELECT on the table or on the column, as
//! PostgreSQL's view tests with has_column_privilege: the view shows values of the column).

use super::catalog_rows::{build, visible_relations};
use super::{EvalCx, Row};
use crate::catalog::acl;
use crate::sql::engine;
use crate::sql::privs::{self, Who};
use crate::sql::types::{Array, Type, Value};

/// pg_stats's OID.
pub(super) const PG_STATS: u32 = 12053;

pub(super) fn rows(cx: &mut EvalCx) -> Vec<Row> {
    let rels = visible_relations(cx);
    let Ok(snap) = cx.session.catalog_snapshot() else {
        return Vec::new();
    };
    let user = cx.session.role_oid();
    let roles = &cx.session.instance().catalog.roles;
    let who = Who {
        role: user,
        superuser: roles.by_oid(user, &snap).is_some_and(|r| r.def.superuser),
        roles,
        snap: &snap,
    };
    let mut out = Vec::new();
    for r in rels.iter().filter(|r| r.kind.has_rows()) {
        let Some(stats) = engine::statistics(r) else {
            continue;
        };
        let table = privs::rel_mask(&who, who.role, r, acl::SELECT) != 0;
        for (c, (col, st)) in r.columns.iter().zip(&stats.columns).enumerate() {
            let Some(st) = st else { continue };
            if !table && privs::column_mask(&who, who.role, r, c as i16 + 1, acl::SELECT) == 0 {
                continue;
            }
            let ty = Type(col.type_oid);
            let values = |v: Vec<Value>| match v.is_empty() {
                true => Value::Null,
                false => Value::Array(Box::new(Array::one_dim(ty, v))),
            };
            let freqs = |v: Vec<f64>| match v.is_empty() {
                true => Value::Null,
                false => Value::Array(Box::new(Array::one_dim(
                    Type::FLOAT4,
                    v.into_iter().map(|f| Value::Float4(f as f32)).collect(),
                ))),
            };
            out.push(build(PG_STATS, |name| match name {
                "schemaname" => Value::Text(r.name.schema.clone()),
                "tablename" => Value::Text(r.name.name.clone()),
                "attname" => Value::Text(col.name.clone()),
                "inherited" => Value::Bool(false),
                "null_frac" => Value::Float4(st.null_frac as f32),
                "avg_width" => Value::Int4(st.avg_width),
                "n_distinct" => Value::Float4(st.n_distinct as f32),
                "most_common_vals" => values(st.mcv.iter().map(|(v, _)| v.clone()).collect()),
                "most_common_freqs" => freqs(st.mcv.iter().map(|(_, f)| *f).collect()),
                "histogram_bounds" => values(st.histogram.clone()),
                "correlation" => st
                    .correlation
                    .map_or(Value::Null, |c| Value::Float4(c as f32)),
                _ => Value::Null,
            }));
        }
    }
    out
}
