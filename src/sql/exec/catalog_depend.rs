//! pg_depend and pg_attrdef: the dependencies pg_dump orders its output by and psql reads.
//!
//! Listed: a sequence's on the column that owns it (serial 'a', identity 'i'), an extension's
//! functions on it ('e'), a view's or materialized view's on the tables and columns its query
//! reads ('n'; PostgreSQL records these for the view's `_RETURN` rule, which has no row here, so
//! they are the view's own), and a column default's on its column ('a') and on the sequence a
//! `nextval('...'::regclass)` in it names ('n'). Other dependencies PostgreSQL records are not
//! listed.

use crate::catalog::RelKind;
use crate::sql::engine::{self, Rel};
use crate::sql::exec::EvalCx;
use crate::sql::func::system::catalog::default_node;
use crate::sql::types::Value;
use crate::sync::Arc;

use super::catalog_rows::{build, char_value, extensions, has_default, visible_relations};
use super::Row;

const PG_CLASS: u32 = 1259;
const PG_ATTRDEF: u32 = 2604;
const PG_DEPEND: u32 = 2608;

/// The OID a column default shows in pg_attrdef: defaults have none of their own here, so one
/// is made from the table's OID and the column's number (distinct for every table OID below
/// 2^21, the attribute number taking the low 11 bits), stable for the default's life, which is
/// all pg_dump needs of it (it names objects by catalog and OID).
pub(super) fn attrdef_oid(table: u32, attnum: usize) -> u32 {
    table.wrapping_mul(2048).wrapping_add(attnum as u32)
}

/// The columns that have a default in pg_attrdef: (table, column position, default text).
fn defaults(rels: &[Arc<Rel>]) -> impl Iterator<Item = (&Rel, usize, &str)> {
    rels.iter()
        .filter(|r| matches!(r.kind, RelKind::Table))
        .flat_map(|r| {
            r.live_columns().filter_map(move |(i, col)| {
                let text = col.default.as_deref().filter(|_| has_default(col))?;
                Some((&**r, i, text))
            })
        })
}

/// pg_attrdef's rows.
pub(super) fn attrdef_rows(cx: &mut EvalCx) -> Vec<Row> {
    let rels = visible_relations(cx);
    defaults(&rels)
        .map(|(r, i, text)| {
            build(PG_ATTRDEF, |c| match c {
                "oid" => Value::Oid(attrdef_oid(r.oid, i + 1)),
                "adrelid" => Value::Oid(r.oid),
                "adnum" => Value::Int2(i as i16 + 1),
                "adbin" => Value::Text(default_node(i + 1, text)),
                _ => Value::Null,
            })
        })
        .collect()
}

/// The sequences a default's `nextval('name'::regclass)` calls name, resolved among `rels`
/// (a one-part name in schema public, as the stored text qualifies any other).
fn sequences_named<'a>(text: &'a str, rels: &'a [Arc<Rel>]) -> impl Iterator<Item = u32> + 'a {
    text.match_indices("nextval('")
        .filter_map(move |(at, pat)| {
            let rest = &text[at + pat.len()..];
            // The literal ends at a quote not doubled.
            let mut lit = String::new();
            let mut chars = rest.chars().peekable();
            loop {
                match chars.next()? {
                    '\'' if chars.peek() == Some(&'\'') => {
                        chars.next();
                        lit.push('\'');
                    }
                    '\'' => break,
                    c => lit.push(c),
                }
            }
            let parts = crate::sql::quote::parse_qualified(&lit).ok()?;
            let (schema, name) = match parts.as_slice() {
                [n] => ("public", n.as_str()),
                [s, n] => (s.as_str(), n.as_str()),
                _ => return None,
            };
            rels.iter()
                .find(|r| {
                    r.kind == RelKind::Sequence && r.name.schema == schema && r.name.name == name
                })
                .map(|r| r.oid)
        })
}

fn dep(classid: u32, objid: u32, refclassid: u32, refobjid: u32, sub: i32, t: char) -> Row {
    build(PG_DEPEND, |c| match c {
        "classid" => Value::Oid(classid),
        "objid" => Value::Oid(objid),
        "objsubid" => Value::Int4(0),
        "refclassid" => Value::Oid(refclassid),
        "refobjid" => Value::Oid(refobjid),
        "refobjsubid" => Value::Int4(sub),
        "deptype" => char_value(t),
        _ => Value::Null,
    })
}

/// pg_depend's rows.
pub(super) fn depend_rows(cx: &mut EvalCx) -> Vec<Row> {
    let rels = visible_relations(cx);
    let mut out = Vec::new();
    for r in &rels {
        if let Some(owner) = r.data.sequence.as_ref().and_then(|s| s.owned_by) {
            let t = if owner.identity { 'i' } else { 'a' };
            out.push(dep(
                PG_CLASS,
                r.oid,
                PG_CLASS,
                owner.table,
                owner.attnum.into(),
                t,
            ));
        }
        if let Some(view) = engine::view_def(r) {
            for (table, cols) in &view.deps {
                if cols.is_empty() {
                    out.push(dep(PG_CLASS, r.oid, PG_CLASS, *table, 0, 'n'));
                }
                for &c in cols {
                    out.push(dep(PG_CLASS, r.oid, PG_CLASS, *table, c as i32 + 1, 'n'));
                }
            }
        }
    }
    for (r, i, text) in defaults(&rels) {
        let oid = attrdef_oid(r.oid, i + 1);
        out.push(dep(PG_ATTRDEF, oid, PG_CLASS, r.oid, i as i32 + 1, 'a'));
        for seq in sequences_named(text, &rels) {
            out.push(dep(PG_ATTRDEF, oid, PG_CLASS, seq, 0, 'n'));
        }
    }
    for e in extensions(cx) {
        out.extend(
            e.def
                .members
                .iter()
                .map(|&f| dep(1255, f, 3079, e.oid, 0, 'e')),
        );
    }
    out
}
