//! pg_type's rows for the row types of the live schema's tables and views: each has a
//! composite type (typtype 'c', typrelid = the relation, named as it) and an array of it
//! (named with a leading underscore), as PostgreSQL makes them at CREATE TABLE / VIEW. Their
//! OIDs come from the catalog (`Catalog::row_type`).

use crate::sql::exec::EvalCx;
use crate::sql::types::Value;

use super::catalog_rows::{created_namespaces, visible_relations};
use super::Row;

/// pg_type's OID (the rows are built by its column names).
const PG_TYPE: u32 = 1247;
/// pg_namespace's OID of `public`.
const PUBLIC_OID: u32 = 2200;

fn ch(c: char) -> Value {
    Value::Text(c.to_string())
}

pub(super) fn rows(cx: &mut EvalCx) -> Vec<Row> {
    let rels = visible_relations(cx);
    if rels.is_empty() {
        return Vec::new();
    }
    let created = created_namespaces(cx);
    let nsp = |schema: &str| {
        created
            .iter()
            .find(|(_, n, _)| n == schema)
            .map_or(PUBLIC_OID, |(o, _, _)| *o)
    };
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
