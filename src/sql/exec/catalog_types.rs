//! pg_type's rows for the row types of the live schema's tables and views: each has a
//! composite type (typtype 'c', typrelid = the relation, named as it) and an array of it
//! (named with a leading underscore), as PostgreSQL makes them at CREATE TABLE / VIEW. Their
//! OIDs come from the catalog (`Catalog::row_type`). Also the rows of user-defined types (enums,
//! domains, composite types) and their arrays, pg_enum's rows (`catalog::types`), and a
//! composite type's pg_class row (relkind 'c') and pg_attribute rows.

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
pub(super) fn user_types(
    cx: &mut EvalCx,
) -> Vec<crate::sync::Arc<crate::catalog::types::UserType>> {
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

/// pg_type's rows of enums (typtype 'e', category 'E'), domains ('d'), composite types
/// ('c'), range types ('r') and extensions' base types ('b'), and their array types.
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
        let composite = t.def.composite.as_ref();
        let (len, byval, category) = match base {
            Some(b) => {
                let len = b.typlen();
                (len, (1..=8).contains(&len), b.category())
            }
            None if composite.is_some() => (-1, false, 'C'),
            None if t.def.range.is_some() => (-1, false, 'R'),
            // An extension's base type: variable length; citext is of the string category,
            // hstore user-defined.
            None if t.def.builtin.as_deref() == Some("citext") => (-1, false, 'S'),
            None if t.def.builtin.is_some() => (-1, false, 'U'),
            None => (4, true, 'E'),
        };
        // A base or shell type made by CREATE TYPE: pg_type as its definition says.
        let made = t.def.base.as_ref();
        let (len, byval, category) = match made {
            Some(b) => (b.len, b.by_value, b.category),
            None => (len, byval, category),
        };
        let made_kind = made.map(|b| (if b.shell { 'p' } else { 'b' }, b.align, b.storage));
        let (typtype, align, storage) = match (domain, composite, &t.def.range) {
            _ if t.def.builtin.is_some() => ('b', 'i', 'x'),
            _ if made_kind.is_some() => made_kind.unwrap_or(('b', 'i', 'p')),
            (Some(_), _, _) => ('d', 'i', 'p'),
            (_, Some(_), _) => ('c', 'd', 'x'),
            // A range is aligned as its subtype needs, at least as an int.
            (_, _, Some(r)) => {
                let wide = crate::sql::catalog::align_and_storage(r.subtype)
                    .is_some_and(|(a, _)| a == 'd');
                ('r', if wide { 'd' } else { 'i' }, 'x')
            }
            _ => ('e', 'i', 'p'),
        };
        // (oid, name, typtype, category, typlen, byval, elem, typarray, align, storage,
        // procs: typsubscript, typinput, typoutput, typreceive, typsend, typanalyze)
        let mut kinds = vec![
            (
                t.oid,
                t.def.name.clone(),
                typtype,
                category,
                len,
                byval,
                0,
                array,
                align,
                storage,
                // domain_in, domain_recv; record_in, record_out, record_recv, record_send;
                // enum_in, enum_out, enum_recv, enum_send
                match typtype {
                    'd' => [0, 2597, 0, 2598, 0, 0],
                    'c' => [0, 2290, 2291, 2402, 2403, 0],
                    // range_in, range_out, range_recv, range_send, range_typanalyze
                    'r' => [0, 3834, 3835, 3836, 3837, 3916],
                    // Its C functions are not catalog functions here.
                    'b' if made.is_none() => [0; 6],
                    // shell_in, shell_out.
                    'p' => [0, 2398, 2399, 0, 0, 0],
                    'b' => made.map_or([0; 6], |b| {
                        [
                            b.procs[0], b.procs[1], b.procs[2], b.procs[3], b.procs[4], b.procs[7],
                        ]
                    }),
                    _ => [0, 3504, 3505, 3532, 3533, 0],
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
                align,
                'x',
                [6179, 750, 751, 2400, 2401, 3816],
            ),
        ];
        // A range type's multirange type and its array, which PostgreSQL makes with it.
        if let Some(r) = &t.def.range {
            let mut array_name = format!("_{}", r.multirange_name);
            while array_name.len() > crate::catalog::types::MAX_LABEL_LEN {
                array_name.pop();
            }
            kinds.push((
                r.multirange_oid,
                r.multirange_name.clone(),
                'm',
                'R',
                -1,
                false,
                0,
                r.multirange_array_oid,
                align,
                'x',
                // multirange_in, _out, _recv, _send, multirange_typanalyze
                [0, 4231, 4232, 4233, 4234, 4242],
            ));
            kinds.push((
                r.multirange_array_oid,
                array_name,
                'b',
                'A',
                -1,
                false,
                r.multirange_oid,
                0,
                align,
                'x',
                [6179, 750, 751, 2400, 2401, 3816],
            ));
        }
        // A shell type has no array type yet.
        kinds.retain(|k| k.0 != 0);
        for (oid, name, typtype, category, len, byval, elem, arr, align, storage, procs) in kinds {
            let proc = Value::Oid;
            out.push(super::catalog_rows::build(PG_TYPE, |c| match c {
                "oid" => Value::Oid(oid),
                "typname" => Value::Text(name.clone()),
                "typnamespace" => Value::Oid(schema),
                "typowner" => Value::Oid(t.def.owner),
                "typlen" => Value::Int2(len),
                "typbyval" => Value::Bool(byval),
                // A base type made by CREATE TYPE: its own definition, not a domain's.
                "typispreferred" => Value::Bool(oid == t.oid && made.is_some_and(|b| b.preferred)),
                "typdelim" if oid == t.oid && made.is_some() => {
                    ch(made.map_or(',', |b| b.delimiter))
                }
                "typisdefined" => Value::Bool(!(oid == t.oid && t.def.is_shell())),
                "typelem" if oid == t.oid && made.is_some() => {
                    Value::Oid(made.map_or(0, |b| b.element))
                }
                "typmodin" if oid == t.oid && made.is_some() => {
                    Value::Oid(made.map_or(0, |b| b.procs[5]))
                }
                "typmodout" if oid == t.oid && made.is_some() => {
                    Value::Oid(made.map_or(0, |b| b.procs[6]))
                }
                "typdefault" | "typdefaultbin" | "typbasetype" | "typtypmod" | "typndims"
                | "typcollation"
                    if oid == t.oid && made.is_some() =>
                {
                    match c {
                        "typdefault" => made
                            .and_then(|b| b.default.clone())
                            .map_or(Value::Null, Value::Text),
                        "typdefaultbin" => Value::Null,
                        "typtypmod" => Value::Int4(-1),
                        "typndims" => Value::Int4(0),
                        "typcollation" => Value::Oid(if made.is_some_and(|b| b.collatable) {
                            100
                        } else {
                            0
                        }),
                        _ => Value::Oid(0),
                    }
                }
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
                // Collatable: a domain over a string type, and citext (COLLATABLE = true); their
                // array types too, as PostgreSQL gives an array its element's collation.
                "typcollation" => {
                    let citext = t.def.builtin.as_deref() == Some("citext");
                    Value::Oid(
                        if citext || base.is_some_and(|b| b.base_type().category() == 'S') {
                            100
                        } else {
                            0
                        },
                    )
                }
                "typtype" => ch(typtype),
                "typcategory" => ch(category),
                "typdelim" => ch(','),
                "typrelid" if oid == t.oid => Value::Oid(composite.map_or(0, |c| c.relid)),
                "typrelid" => Value::Oid(0),
                "typsubscript" => proc(procs[0]),
                "typelem" => Value::Oid(elem),
                "typarray" => Value::Oid(arr),
                "typinput" => proc(procs[1]),
                "typoutput" => proc(procs[2]),
                "typreceive" => proc(procs[3]),
                "typsend" => proc(procs[4]),
                "typmodin" | "typmodout" | "typbasetype" => Value::Oid(0),
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

/// pg_class's (`1259`) or pg_attribute's (`1249`) rows of the composite types: a relation of
/// relkind 'c' per type (named as it, typed by it), and its attributes.
pub(super) fn composite_relation_rows(catalog_oid: u32, cx: &mut EvalCx) -> Vec<Row> {
    let types = user_types(cx);
    if types.iter().all(|t| t.def.composite.is_none()) {
        return Vec::new();
    }
    let created = created_namespaces(cx);
    let mut out = Vec::new();
    for t in &types {
        let Some(c) = &t.def.composite else { continue };
        if catalog_oid == 1259 {
            let schema = schema_oid(&created, &t.def.schema);
            out.push(super::catalog_rows::build(1259, |col| match col {
                "oid" => Value::Oid(c.relid),
                "relname" => Value::Text(t.def.name.clone()),
                "relnamespace" => Value::Oid(schema),
                "reltype" => Value::Oid(t.oid),
                "relowner" => Value::Oid(t.def.owner),
                "relfilenode" | "reloftype" | "reltablespace" | "reltoastrelid" | "relrewrite"
                | "relam" => Value::Oid(0),
                "relpages" | "relallvisible" => Value::Int4(0),
                "reltuples" => Value::Float4(-1.0),
                "relhasindex"
                | "relisshared"
                | "relhasrules"
                | "relhastriggers"
                | "relhassubclass"
                | "relrowsecurity"
                | "relforcerowsecurity"
                | "relispartition" => Value::Bool(false),
                "relispopulated" => Value::Bool(true),
                "relpersistence" => ch('p'),
                "relkind" => ch('c'),
                "relnatts" => Value::Int2(c.attrs.len() as i16),
                "relchecks" => Value::Int2(0),
                "relreplident" => ch('n'),
                _ => Value::Null,
            }));
            continue;
        }
        for (i, a) in c.attrs.iter().enumerate() {
            let ty = crate::sql::types::Type(a.type_oid);
            let len = if a.dropped {
                -1
            } else {
                ty.base_type().typlen()
            };
            out.push(super::catalog_rows::build(1249, |col| match col {
                "attrelid" => Value::Oid(c.relid),
                "attname" => Value::Text(if a.dropped {
                    format!("........pg.dropped.{}........", i + 1)
                } else {
                    a.name.clone()
                }),
                "atttypid" => Value::Oid(a.type_oid),
                "attstattarget" => Value::Int4(-1),
                "attlen" => Value::Int2(len),
                "attnum" => Value::Int2(i as i16 + 1),
                "attndims" | "attcacheoff" | "attinhcount" => Value::Int4(0),
                "atttypmod" => Value::Int4(a.typmod),
                "attbyval" => Value::Bool((1..=8).contains(&len)),
                "attalign" => ch(if len == 8 { 'd' } else { 'i' }),
                "attstorage" => ch(if len > 0 { 'p' } else { 'x' }),
                "attcompression" | "attgenerated" | "attidentity" => Value::Text(String::new()),
                "attnotnull" | "atthasdef" | "atthasmissing" => Value::Bool(false),
                "attisdropped" => Value::Bool(a.dropped),
                "attislocal" => Value::Bool(true),
                "attcollation" => Value::Oid(if ty.base_type().category() == 'S' {
                    100
                } else {
                    0
                }),
                _ => Value::Null,
            }));
        }
    }
    out
}
