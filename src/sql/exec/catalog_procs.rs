//! pg_proc's rows: the built-in functions' (`sql::catalog::procs`) and those of the functions
//! and procedures CREATE FUNCTION made that the statement's catalog snapshot sees.

use super::catalog_rows::{build, created_namespaces, schema_oid};
use super::{EvalCx, Row};
use std::sync::Arc;

use crate::catalog::functions::{Function, FunctionDef};
use crate::sql::catalog as builtin;
use crate::sql::types::{Array, Type, Value};

/// pg_language's OIDs of internal, c, sql and plpgsql in a fresh PostgreSQL 15 cluster.
const INTERNAL_LANGUAGE: u32 = 12;
const C_LANGUAGE: u32 = 13;
const SQL_LANGUAGE: u32 = 14;
const PLPGSQL_LANGUAGE: u32 = 13563;

fn text_array(items: impl Iterator<Item = String>) -> Value {
    Value::Array(Box::new(Array::one_dim(
        Type::TEXT,
        items.map(Value::Text).collect(),
    )))
}

/// Every pg_proc row the statement sees.
pub(super) fn rows(cx: &mut EvalCx) -> Vec<Row> {
    let mut out = builtin::procs::rows();
    let Ok(snap) = cx.session.catalog_snapshot() else {
        return out;
    };
    let db = cx.session.database().to_string();
    let funcs = cx
        .session
        .instance()
        .catalog
        .functions
        .visible(Some(&db), &snap);
    if funcs.is_empty() {
        return out;
    }
    let spaces = created_namespaces(cx);
    for f in funcs {
        let d: &FunctionDef = &f.def;
        let nsp = schema_oid(&spaces, &d.schema);
        let all_in = d.args.iter().all(|a| a.mode == 'i');
        let inputs = d.input_types();
        out.push(build(1255, |c| match c {
            "oid" => Value::Oid(f.oid),
            "proname" => Value::Text(d.name.clone()),
            "pronamespace" => Value::Oid(nsp),
            "proowner" => Value::Oid(d.owner),
            "prolang" => Value::Oid(match d.language.as_str() {
                "sql" => SQL_LANGUAGE,
                "internal" => INTERNAL_LANGUAGE,
                "c" => C_LANGUAGE,
                _ => PLPGSQL_LANGUAGE,
            }),
            "procost" => Value::Float4(d.cost),
            "prorows" => Value::Float4(d.rows),
            // The type of each argument a VARIADIC parameter gathers.
            "provariadic" => Value::Oid(d.args.iter().find(|a| a.mode == 'v').map_or(0, |a| {
                match Type(a.type_oid) {
                    Type::ANYARRAY => Type::ANYELEMENT.0,
                    Type::ANYCOMPATIBLEARRAY => Type::ANYCOMPATIBLE.0,
                    t => t.elem().map_or(0, |e| e.0),
                }
            })),
            "prosupport" => Value::Oid(0),
            "prokind" => Value::Text(d.kind.to_string()),
            "prosecdef" => Value::Bool(d.security_definer),
            "proleakproof" => Value::Bool(d.leakproof),
            "proisstrict" => Value::Bool(d.strict),
            "proretset" => Value::Bool(d.returns_set),
            "provolatile" => Value::Text(d.volatility.to_string()),
            "proparallel" => Value::Text(d.parallel.to_string()),
            "pronargs" => Value::Int2(inputs.len() as i16),
            "pronargdefaults" => {
                Value::Int2(d.args.iter().filter(|a| a.default.is_some()).count() as i16)
            }
            "prorettype" => Value::Oid(d.returns),
            "proargtypes" => Value::Array(Box::new(Array::vector(
                Type::OID,
                inputs.iter().map(|t| Value::Oid(*t)).collect(),
            ))),
            "proallargtypes" if !all_in => Value::Array(Box::new(Array::one_dim(
                Type::OID,
                d.args.iter().map(|a| Value::Oid(a.type_oid)).collect(),
            ))),
            "proargmodes" if !all_in => Value::Array(Box::new(Array::one_dim(
                Type::CHAR,
                d.args
                    .iter()
                    .map(|a| Value::Text(a.mode.to_string()))
                    .collect(),
            ))),
            "proargnames" if d.args.iter().any(|a| !a.name.is_empty()) => {
                text_array(d.args.iter().map(|a| a.name.clone()))
            }
            "prosrc" => Value::Text(if d.sql_body {
                String::new()
            } else if d.kind == 'a' {
                // PostgreSQL's placeholder for an aggregate's pg_proc row.
                "aggregate_dummy".to_string()
            } else {
                d.body.clone()
            }),
            "proconfig" if !d.config.is_empty() => text_array(d.config.iter().cloned()),
            _ => Value::Null,
        }));
    }
    out
}

/// The OID of support function `names` of a user aggregate, taking `types`: a user function
/// of the name and argument types (in the named schema when qualified), else a built-in
/// function of the name (the one taking `types`, else the only one), else 0.
fn support_oid(funcs: &[Arc<Function>], names: &[String], types: &[u32]) -> u32 {
    let (schema, name) = match names {
        [n] => (None, n.as_str()),
        [.., s, n] => (Some(s.as_str()), n.as_str()),
        [] => return 0,
    };
    let user = funcs.iter().find(|f| {
        f.def.name == name
            && schema.is_none_or(|s| s == f.def.schema)
            && f.def.input_types() == types
    });
    if let Some(f) = user {
        return f.oid;
    }
    if schema.is_some_and(|s| s != "pg_catalog") {
        return 0;
    }
    let mut named = builtin::procs::named(name);
    if let Some(p) = builtin::procs::named(name).find(|p| p.argtypes == types) {
        return p.oid;
    }
    match (named.next(), named.next()) {
        (Some(p), None) => p.oid,
        _ => builtin::proc_oid(name).unwrap_or(0),
    }
}

/// Every pg_aggregate row the statement sees: the built-in aggregates' and those CREATE
/// AGGREGATE made.
pub(super) fn aggregate_rows(cx: &mut EvalCx) -> Vec<Row> {
    let mut out = builtin::aggregates::rows();
    let Ok(snap) = cx.session.catalog_snapshot() else {
        return out;
    };
    let db = cx.session.database().to_string();
    let funcs = cx
        .session
        .instance()
        .catalog
        .functions
        .visible(Some(&db), &snap);
    for f in &funcs {
        let Some(spec) = f.def.aggregate() else {
            continue;
        };
        let mut trans_types = vec![spec.stype];
        trans_types.extend(f.def.input_types());
        let fin = spec.finalfunc.as_ref().map_or(0, |names| {
            let types = if spec.final_extra {
                trans_types.clone()
            } else {
                vec![spec.stype]
            };
            support_oid(&funcs, names, &types)
        });
        let st = spec.stype;
        let oid_of = |names: &Option<Vec<String>>, types: &[u32]| {
            names.as_ref().map_or(0, |n| support_oid(&funcs, n, types))
        };
        let m = spec.moving.as_deref();
        let mstype = m.map_or(0, |m| m.mstype);
        let mut m_types = vec![mstype];
        m_types.extend(f.def.input_types());
        let m_final_types = if m.is_some_and(|m| m.mfinal_extra) {
            m_types.clone()
        } else {
            vec![mstype]
        };
        let support = [
            support_oid(&funcs, &spec.sfunc, &trans_types),
            fin,
            oid_of(&spec.combinefunc, &[st, st]),
            oid_of(&spec.serialfunc, &[st]),
            oid_of(&spec.deserialfunc, &[Type::BYTEA.0, st]),
            oid_of(&m.map(|m| m.msfunc.clone()), &m_types),
            oid_of(&m.map(|m| m.minvfunc.clone()), &m_types),
            oid_of(&m.and_then(|m| m.mfinalfunc.clone()), &m_final_types),
        ];
        out.push(builtin::aggregates::row_of(
            &builtin::aggregates::Aggregate {
                fnoid: f.oid,
                kind: 'n',
                direct_args: 0,
                support: support.iter().map(|&o| (o, String::new())).collect(),
                final_extra: spec.final_extra,
                mfinal_extra: m.is_some_and(|m| m.mfinal_extra),
                // PostgreSQL's default for a normal aggregate: the final function leaves the
                // state as it was (READ_ONLY).
                final_modify: spec.final_modify.unwrap_or('r'),
                mfinal_modify: m.and_then(|m| m.mfinal_modify).unwrap_or('r'),
                sortop: 0,
                transtype: st,
                transspace: 0,
                mtranstype: mstype,
                mtransspace: 0,
                initval: spec.initcond.clone(),
                minitval: m.and_then(|m| m.minitcond.clone()),
            },
        ));
    }
    out
}
