//! pg_type's rows for the row types of the live schema's tables and views: each has a
//! composite type (typtype 'c', typrelid = the relation, named as it) and an array of it
//! (named with a leading underscore), as PostgreSQL makes them at CREATE TABLE / VIEW. Their
//! OIDs come from the catalog (`Catalog::row_type`). Also the rows of user-defined enum types
//! and their arrays, and pg_enum's rows (`catalog::types`).

use crate::sql::exec::EvalCx;
use crate::sql::types::Value;

use super::catalog_rows::{created_namespaces, schema_oid, visible_relations};
use super::Row;

/// pg_type's OID (the rows are built by its column names).
const PG_TYPE: u32 = 1247;
/// pg_enum's OID.
const PG_ENUM: u32 = 3501;

fn ch(c: char) -> Value {
    Value::Text(c.to_string())
}

pub(super) fn rows(cx: &mut EvalCx) -> Vec<Row> {
    let mut out = enum_type_rows(cx);
    out.extend(row_type_rows(cx));
    out
}

/// The user-defined types of the session's database that its snapshot sees.
fn user_types(cx: &mut EvalCx) -> Vec<crate::sync::Arc<crate::catalog::types::UserType>> {
    let Ok(snap) = cx.session.catalog_snapshot() else {
        return Vec::new();
    };
    let db = cx.session.database().to_string();
    cx.session
        .instance()
        .catalog
        .types
        .visible(Some(&db), &snap)
}

/// pg_type's rows of enums (typtype 'e', category 'E') and their array types.
fn enum_type_rows(cx: &mut EvalCx) -> Vec<Row> {
    let types = user_types(cx);
    if types.is_empty() {
        return Vec::new();
    }
    let created = created_namespaces(cx);
    let mut out = Vec::new();
    for t in &types {
        let schema = schema_oid(&created, &t.def.schema);
        let array = t.def.array_oid;
        let domain = t.def.domain.as_ref();
        let base = domain.map(|d| crate::sql::types::Type(d.base));
        // A domain takes its storage from its base type (typtype 'd').
        let (len, byval, category) = match base {
            Some(b) => {
                let len = b.typlen();
                (len, (1..=8).contains(&len), b.category())
            }
            None => (4, true, 'E'),
        };
        // (oid, name, typtype, category, typlen, byval, elem, typarray, align, storage,
        // procs: typsubscript, typinput, typoutput, typreceive, typsend, typanalyze)
        let kinds = [
            (
                t.oid,
                t.def.name.clone(),
                if domain.is_some() { 'd' } else { 'e' },
                category,
                len,
                byval,
                0,
                array,
                'i',
                'p',
                // domain_in, domain_recv; enum_in, enum_out, enum_recv, enum_send
                if domain.is_some() {
                    [0, 2597, 0, 2598, 0, 0]
                } else {
                    [0, 3504, 3505, 3532, 3533, 0]
                },
            ),
            (
                array,
                t.def.array_name(),
                'b',
                'A',
                -1,
                false,
                t.oid,
                0,
                'i',
                'x',
                [6179, 750, 751, 2400, 2401, 3816],
            ),
        ];
        for (oid, name, typtype, category, len, byval, elem, arr, align, storage, procs) in kinds {
            let proc = Value::Oid;
            out.push(super::catalog_rows::build(PG_TYPE, |c| match c {
                "oid" => Value::Oid(oid),
                "typname" => Value::Text(name.clone()),
                "typnamespace" => Value::Oid(schema),
                "typowner" => Value::Oid(t.def.owner),
                "typlen" => Value::Int2(len),
                "typbyval" => Value::Bool(byval),
                "typispreferred" => Value::Bool(false),
                "typnotnull" => Value::Bool(oid == t.oid && domain.is_some_and(|d| d.not_null)),
                "typbasetype" if oid == t.oid && domain.is_some() => {
                    Value::Oid(domain.map_or(0, |d| d.base))
                }
                "typtypmod" if oid == t.oid && domain.is_some() => {
                    Value::Int4(domain.map_or(-1, |d| d.typmod))
                }
                "typndims" if oid == t.oid && domain.is_some() => {
                    Value::Int4(domain.map_or(0, |d| d.ndims))
                }
                "typdefault" if oid == t.oid => domain
                    .and_then(domain_default_text)
                    .map_or(Value::Null, Value::Text),
                // pg_dump prints it with pg_get_expr(typdefaultbin, 'pg_type'::regclass).
                "typdefaultbin" if oid == t.oid => domain
                    .and_then(domain_default_text)
                    .map_or(Value::Null, |d| {
                        Value::Text(crate::sql::func::system::catalog::domain_default_node(&d))
                    }),
                "typcollation" if oid == t.oid => {
                    Value::Oid(if base.is_some_and(|b| b.base_type().category() == 'S') {
                        100
                    } else {
                        0
                    })
                }
                "typtype" => ch(typtype),
                "typcategory" => ch(category),
                "typisdefined" => Value::Bool(true),
                "typdelim" => ch(','),
                "typrelid" => Value::Oid(0),
                "typsubscript" => proc(procs[0]),
                "typelem" => Value::Oid(elem),
                "typarray" => Value::Oid(arr),
                "typinput" => proc(procs[1]),
                "typoutput" => proc(procs[2]),
                "typreceive" => proc(procs[3]),
                "typsend" => proc(procs[4]),
                "typmodin" | "typmodout" | "typbasetype" | "typcollation" => Value::Oid(0),
                "typanalyze" => proc(procs[5]),
                "typalign" => ch(align),
                "typstorage" => ch(storage),
                "typtypmod" => Value::Int4(-1),
                "typndims" => Value::Int4(0),
                _ => Value::Null,
            }));
        }
    }
    out
}

/// pg_constraint's rows of domain CHECK constraints (contypid set, conrelid 0).
pub(super) fn domain_constraint_rows(cx: &mut EvalCx) -> Vec<Row> {
    let types = user_types(cx);
    if types.iter().all(|t| t.def.domain.is_none()) {
        return Vec::new();
    }
    let created = created_namespaces(cx);
    let mut out = Vec::new();
    for t in &types {
        let Some(d) = &t.def.domain else { continue };
        let schema = schema_oid(&created, &t.def.schema);
        for k in &d.checks {
            out.push(super::catalog_rows::build(2606, |c| match c {
                "oid" => Value::Oid(k.oid),
                "conname" => Value::Text(k.name.clone()),
                "connamespace" => Value::Oid(schema),
                "contype" => ch('c'),
                "condeferrable" | "condeferred" | "connoinherit" => Value::Bool(false),
                "convalidated" => Value::Bool(k.validated),
                "conislocal" => Value::Bool(true),
                "conrelid" | "confrelid" | "conparentid" | "conindid" => Value::Oid(0),
                "contypid" => Value::Oid(t.oid),
                "confupdtype" | "confdeltype" | "confmatchtype" => ch(' '),
                "coninhcount" => Value::Int4(0),
                "conbin" => Value::Text(crate::sql::func::system::catalog::check_node(&k.expr)),
                _ => Value::Null,
            }));
        }
    }
    out
}

/// A domain's DEFAULT as pg_type.typdefault shows it (the expression converted to the base
/// type, as PostgreSQL stores it cooked).
fn domain_default_text(d: &crate::catalog::types::DomainDef) -> Option<String> {
    let text = d.default.as_ref()?;
    let base = crate::sql::types::Type(d.base);
    Some(crate::sql::ruleutils::default_expr(
        text,
        base.base_type(),
        &[],
    ))
}

/// pg_enum's rows: the labels of every enum the session sees, by type then sort order.
pub(super) fn enum_rows(cx: &mut EvalCx) -> Vec<Row> {
    let mut out = Vec::new();
    for t in user_types(cx) {
        for l in &t.def.labels {
            out.push(super::catalog_rows::build(PG_ENUM, |c| match c {
                "oid" => Value::Oid(l.oid),
                "enumtypid" => Value::Oid(t.oid),
                "enumsortorder" => Value::Float4(l.sort),
                "enumlabel" => Value::Text(l.name.clone()),
                _ => Value::Null,
            }));
        }
    }
    out
}

/// pg_type's rows of the tables' and views' row types.
fn row_type_rows(cx: &mut EvalCx) -> Vec<Row> {
    let rels = visible_relations(cx);
    if rels.is_empty() {
        return Vec::new();
    }
    let created = created_namespaces(cx);
    let nsp = |schema: &str| schema_oid(&created, schema);
    let catalog = &cx.session.instance().catalog;
    let mut out = Vec::new();
    for r in &rels {
        let Some(row_type) = catalog.row_type(r.oid) else {
            continue;
        };
        let array = row_type - 1;
        let schema = nsp(&r.name.schema);
        // (oid, name, typtype, category, typrelid, typelem, typarray, procs)
        let kinds = [
            (
                row_type,
                r.name.name.clone(),
                'c',
                'C',
                r.oid,
                0,
                array,
                // typsubscript, typinput, typoutput, typreceive, typsend, typanalyze
                // (record_in, record_out, record_recv, record_send)
                [0, 2290, 2291, 2402, 2403, 0],
            ),
            (
                array,
                format!("_{}", r.name.name),
                'b',
                'A',
                0,
                row_type,
                0,
                // (array_subscript_handler, array_in, array_out, array_recv, array_send,
                // array_typanalyze)
                [6179, 750, 751, 2400, 2401, 3816],
            ),
        ];
        for (oid, name, typtype, category, relid, elem, arr, procs) in kinds {
            let proc = Value::Oid;
            out.push(super::catalog_rows::build(PG_TYPE, |c| match c {
                "oid" => Value::Oid(oid),
                "typname" => Value::Text(name.clone()),
                "typnamespace" => Value::Oid(schema),
                "typowner" => Value::Oid(r.owner),
                "typlen" => Value::Int2(-1),
                "typbyval" | "typispreferred" | "typnotnull" => Value::Bool(false),
                "typtype" => ch(typtype),
                "typcategory" => ch(category),
                "typisdefined" => Value::Bool(true),
                "typdelim" => ch(','),
                "typrelid" => Value::Oid(relid),
                "typsubscript" => proc(procs[0]),
                "typelem" => Value::Oid(elem),
                "typarray" => Value::Oid(arr),
                "typinput" => proc(procs[1]),
                "typoutput" => proc(procs[2]),
                "typreceive" => proc(procs[3]),
                "typsend" => proc(procs[4]),
                "typmodin" | "typmodout" | "typbasetype" | "typcollation" => Value::Oid(0),
                "typanalyze" => proc(procs[5]),
                "typalign" => ch('d'),
                "typstorage" => ch('x'),
                "typtypmod" => Value::Int4(-1),
                "typndims" => Value::Int4(0),
                _ => Value::Null,
            }));
        }
    }
    out
}
