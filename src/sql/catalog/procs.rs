//! pg_proc: PostgreSQL 15's rows for the built-in functions threadgres implements, so that
//! psql's `\df` and `\sf` and drivers' function introspection see what PostgreSQL shows.
//!
//! The rows come from `pg_proc.tsv`, taken from a fresh PostgreSQL 15 cluster for every
//! function name threadgres implements (all of PostgreSQL's overloads of that name; a test
//! checks that every name in `sql::func` has rows). The file also holds PostgreSQL's printed
//! argument and result lists, so that pg_get_function_arguments and friends need not rebuild
//! them from argument names and defaults threadgres does not keep; functions written in SQL
//! carry their whole pg_get_functiondef text. The file is parsed once, on first use (about
//! 500 rows).

use std::sync::OnceLock;

use crate::sql::types::{Array, Type, Value};

/// One pg_proc row.
#[derive(Debug)]
pub struct Proc {
    pub oid: u32,
    pub name: String,
    pub kind: char,
    pub lang: u32,
    pub cost: f32,
    pub rows: f32,
    pub variadic: u32,
    pub strict: bool,
    pub retset: bool,
    pub volatile: char,
    pub parallel: char,
    pub nargs: i16,
    pub nargdefaults: i16,
    pub rettype: u32,
    pub argtypes: Vec<u32>,
    pub src: String,
    /// pg_get_function_arguments, pg_get_function_result, pg_get_function_identity_arguments.
    pub arguments: String,
    pub result: String,
    pub identity: String,
    pub leakproof: bool,
    /// prosupport's function name, `-` for none.
    pub support: String,
    /// pg_get_functiondef's text for functions not written in C.
    pub def: Option<String>,
}

const INTERNAL_LANGUAGE: u32 = 12;

fn unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut it = s.chars();
    while let Some(c) = it.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match it.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some(o) => out.push(o),
            None => out.push('\\'),
        }
    }
    out
}

fn parse(line: &str) -> Option<Proc> {
    let f: Vec<&str> = line.split('\t').collect();
    if f.len() != 22 {
        return None;
    }
    let ch = |s: &str| s.chars().next().unwrap_or(' ');
    Some(Proc {
        oid: f[0].parse().ok()?,
        name: f[1].to_string(),
        kind: ch(f[2]),
        lang: f[3].parse().ok()?,
        cost: f[4].parse().ok()?,
        rows: f[5].parse().ok()?,
        variadic: f[6].parse().ok()?,
        strict: f[7] == "t",
        retset: f[8] == "t",
        volatile: ch(f[9]),
        parallel: ch(f[10]),
        nargs: f[11].parse().ok()?,
        nargdefaults: f[12].parse().ok()?,
        rettype: f[13].parse().ok()?,
        argtypes: f[14]
            .split_whitespace()
            .filter_map(|t| t.parse().ok())
            .collect(),
        src: unescape(f[15]),
        arguments: f[16].to_string(),
        result: f[17].to_string(),
        identity: f[18].to_string(),
        leakproof: f[19] == "t",
        support: f[20].to_string(),
        def: (!f[21].is_empty()).then(|| unescape(f[21])),
    })
}

/// Every pg_proc row, in OID order.
///
/// The file has all of PostgreSQL's overloads of a name; those that take or return a type
/// threadgres does not have (`length(bit)`, `max(money)`, `lower(anyrange)`, ...) cannot be
/// called, so they are left out: every row names types pg_type lists.
pub fn procs() -> &'static [Proc] {
    static PROCS: OnceLock<Vec<Proc>> = OnceLock::new();
    PROCS.get_or_init(|| {
        include_str!("pg_proc.tsv")
            .lines()
            .filter(|l| !l.starts_with('#') && !l.is_empty())
            .filter_map(parse)
            .filter(|p| {
                std::iter::once(p.rettype)
                    .chain(p.argtypes.iter().copied())
                    .all(super::type_exists)
            })
            .collect()
    })
}

pub fn by_oid(oid: u32) -> Option<&'static Proc> {
    let p = procs();
    p.binary_search_by_key(&oid, |p| p.oid).ok().map(|i| &p[i])
}

/// The rows of pg_proc, in the column order of its relation.
pub fn rows() -> Vec<Vec<Value>> {
    procs()
        .iter()
        .map(|p| {
            super::fixed::build_row(1255, |c| {
                Some(match c {
                    "oid" => Value::Oid(p.oid),
                    "proname" => Value::Text(p.name.clone()),
                    "pronamespace" => Value::Oid(11),
                    "proowner" => Value::Oid(super::fixed::BOOTSTRAP_SUPERUSER),
                    "prolang" => Value::Oid(p.lang),
                    "procost" => Value::Float4(p.cost),
                    "prorows" => Value::Float4(p.rows),
                    "provariadic" => Value::Oid(p.variadic),
                    "prosupport" => Value::Oid(0),
                    "prokind" => Value::Text(p.kind.to_string()),
                    "prosecdef" => Value::Bool(false),
                    "proleakproof" => Value::Bool(p.leakproof),
                    "proisstrict" => Value::Bool(p.strict),
                    "proretset" => Value::Bool(p.retset),
                    "provolatile" => Value::Text(p.volatile.to_string()),
                    "proparallel" => Value::Text(p.parallel.to_string()),
                    "pronargs" => Value::Int2(p.nargs),
                    "pronargdefaults" => Value::Int2(p.nargdefaults),
                    "prorettype" => Value::Oid(p.rettype),
                    "proargtypes" => Value::Array(Box::new(Array::vector(
                        Type::OID,
                        p.argtypes.iter().map(|t| Value::Oid(*t)).collect(),
                    ))),
                    "prosrc" => Value::Text(p.src.clone()),
                    _ => return None,
                })
            })
        })
        .collect()
}

/// pg_get_functiondef; Err with the message PostgreSQL gives for an aggregate.
pub fn functiondef(p: &Proc) -> Result<String, String> {
    if p.kind == 'a' {
        return Err(format!("\"{}\" is an aggregate function", p.name));
    }
    if let Some(def) = &p.def {
        return Ok(def.clone());
    }
    let mut out = format!(
        "CREATE OR REPLACE FUNCTION pg_catalog.{}({})\n RETURNS {}\n LANGUAGE internal\n",
        crate::sql::quote::quote_ident(&p.name),
        p.arguments,
        p.result
    );
    let mut opts = String::new();
    if p.kind == 'w' {
        opts.push_str(" WINDOW");
    }
    match p.volatile {
        'i' => opts.push_str(" IMMUTABLE"),
        's' => opts.push_str(" STABLE"),
        _ => {}
    }
    match p.parallel {
        's' => opts.push_str(" PARALLEL SAFE"),
        'r' => opts.push_str(" PARALLEL RESTRICTED"),
        _ => {}
    }
    if p.strict {
        opts.push_str(" STRICT");
    }
    if p.leakproof {
        opts.push_str(" LEAKPROOF");
    }
    // The defaults CREATE FUNCTION would give an internal function: cost 1, 1000 rows.
    if p.lang == INTERNAL_LANGUAGE && p.cost != 1.0 {
        opts.push_str(&format!(" COST {}", p.cost));
    }
    if p.rows > 0.0 && p.rows != 1000.0 {
        opts.push_str(&format!(" ROWS {}", p.rows));
    }
    if p.support != "-" {
        opts.push_str(&format!(" SUPPORT {}", p.support));
    }
    if !opts.is_empty() {
        out.push_str(&opts);
        out.push('\n');
    }
    out.push_str(&format!("AS $function${}$function$\n", p.src));
    Ok(out)
}

/// regprocedure output: `name(argument types)`.
pub fn signature(p: &Proc) -> String {
    format!(
        "{}({})",
        crate::sql::quote::quote_ident(&p.name),
        p.argtypes
            .iter()
            .map(|t| crate::sql::types::io::regtype_name(*t))
            .collect::<Vec<_>>()
            .join(",")
    )
}

/// The functions named `name` (regproc input).
pub fn named(name: &str) -> impl Iterator<Item = &'static Proc> + '_ {
    procs().iter().filter(move |p| p.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_library_function_has_rows() {
        assert!(procs().len() > 400);
        assert!(procs().windows(2).all(|w| w[0].oid < w[1].oid));
        // Names threadgres has that PostgreSQL 15 does not.
        const OWN: &[&str] = &["uuid_generate_v4"];
        for name in crate::sql::func::names() {
            assert!(
                OWN.contains(&name) || named(name).next().is_some(),
                "pg_proc.tsv has no row for {name}"
            );
        }
    }

    #[test]
    fn functiondef_of_an_internal_function() {
        let abs = by_oid(1397).expect("abs(int4)");
        assert_eq!(
            functiondef(abs).unwrap(),
            "CREATE OR REPLACE FUNCTION pg_catalog.abs(integer)\n RETURNS integer\n LANGUAGE internal\n IMMUTABLE PARALLEL SAFE STRICT\nAS $function$int4abs$function$\n"
        );
        assert_eq!(signature(abs), "abs(integer)");
    }
}
