//! CREATE TYPE name; (a shell type) and CREATE TYPE name (INPUT = f, OUTPUT = g, ...) (a base
//! type), as PostgreSQL's DefineType makes them.
//!
//! A shell type is a name for the type's I/O functions to mention before the type exists
//! (pg_type typtype 'p', typisdefined false); the full CREATE TYPE then defines it in place,
//! keeping its OID, and makes its array type. threadgres runs no C code, so a base type's
//! values are those of the built-in type whose input function its input function is: with
//! `CREATE FUNCTION int42_in(cstring) RETURNS int42 AS 'int4in' LANGUAGE internal` the type
//! int42 holds int4 values, kept as a domain's over int4 are (`catalog::types::BaseTypeDef`),
//! its DEFAULT used by columns of the type as a domain's is.
//!
//! Errors are PostgreSQL's: `type "x" already exists` (42710) for a defined type, `type "x"
//! does not exist` with its HINT for a full CREATE TYPE without a shell, a WARNING (with the
//! attribute's position) for each attribute it does not know (names are case-sensitive, as
//! quoted ones keep their case), `type input function must be specified` and the checks of
//! each function's signature and result type.

use pg_query::protobuf::{self, node::Node as N};

use super::user_type::{already_exists, name_taken, new_oid, split_name, write};
use crate::catalog::types::{BaseTypeDef, DomainDef, TypeDef};
use crate::catalog::Oid;
use crate::error::{code, PgError, PgResult};
use crate::sql::context::SessionCtx;
use crate::sql::parser::names_of;
use crate::sql::types::Type;

/// PostgreSQL's error for a bad CREATE TYPE (42P17).
fn bad_definition(msg: impl Into<String>) -> PgError {
    PgError::new(code::INVALID_OBJECT_DEFINITION, msg)
}

/// pg_type OIDs the I/O functions' signatures use.
const CSTRING: Oid = 2275;
const CSTRING_ARRAY: Oid = 1263;
const INTERNAL: Oid = 2281;
const BYTEA: Oid = 17;
const INT4: Oid = 23;
const OID: Oid = 26;
const BOOL: Oid = 16;

/// CREATE TYPE's attributes PostgreSQL knows (DefineType).
const ATTRIBUTES: &[&str] = &[
    "like",
    "internallength",
    "input",
    "output",
    "receive",
    "send",
    "typmod_in",
    "typmod_out",
    "analyze",
    "subscript",
    "category",
    "preferred",
    "delimiter",
    "element",
    "default",
    "alignment",
    "storage",
    "collatable",
    "passedbyvalue",
];

/// An attribute's value as text: a name (qualified names joined by dots), a number, a string.
fn arg_text(d: &protobuf::DefElem) -> Option<String> {
    let arg = d.arg.as_deref()?;
    match arg.node.as_ref()? {
        N::TypeName(t) => Some(names_of(&t.names).join(".")),
        N::List(l) => Some(names_of(&l.items).join(".")),
        N::Integer(i) => Some(i.ival.to_string()),
        N::Float(f) => Some(f.fval.clone()),
        N::Boolean(b) => Some(if b.boolval { "true" } else { "false" }.to_string()),
        _ => crate::sql::parser::sval(arg),
    }
}

/// A boolean attribute (`passedbyvalue` alone is true).
fn arg_bool(d: &protobuf::DefElem) -> PgResult<bool> {
    match arg_text(d).map(|t| t.to_lowercase()) {
        None => Ok(true),
        Some(t) if matches!(t.as_str(), "true" | "on" | "t" | "1" | "yes") => Ok(true),
        Some(t) if matches!(t.as_str(), "false" | "off" | "f" | "0" | "no") => Ok(false),
        Some(_) => Err(PgError::new(
            code::SYNTAX_ERROR,
            format!("{} requires a Boolean value", d.defname),
        )),
    }
}

/// CREATE TYPE's DefineStmt.
pub fn execute(d: &protobuf::DefineStmt, cx: &mut dyn SessionCtx) -> PgResult<()> {
    let names = names_of(&d.defnames);
    let (schema, name) = split_name(&names)?;
    let schema = super::creation_schema(cx, &schema, -1)?;
    let existing = existing(cx, &schema, &name)?;
    if let Some(t) = &existing {
        if !t.def.is_shell() {
            return Err(already_exists(&name));
        }
    }
    if d.definition.is_empty() {
        // CREATE TYPE name; a shell, unless the name is taken.
        if existing.is_some() || name_taken(cx, &schema, &name)? {
            return Err(already_exists(&name));
        }
        let oid = new_oid(cx)?;
        let def = TypeDef {
            database: cx.database().to_string(),
            schema,
            name,
            owner: cx.role_oid(),
            array_oid: 0,
            labels: Vec::new(),
            domain: None,
            composite: None,
            range: None,
            builtin: None,
            base: Some(shell()),
        };
        return write(cx, oid, def, false, "CREATE TYPE");
    }
    let Some(shell_type) = existing else {
        // PostgreSQL reports it as 42710.
        return Err(PgError::new(
            code::DUPLICATE_OBJECT,
            format!("type \"{name}\" does not exist"),
        )
        .with_hint(
            "Create the type as a shell type, then create its I/O functions, then do a full CREATE TYPE.",
        ));
    };
    if !super::grant::owns(cx, shell_type.def.owner)? {
        return Err(crate::sql::privs::not_owner("type", &name));
    }
    let typoid = shell_type.oid;
    let mut attrs: Vec<(&str, &protobuf::DefElem)> = Vec::new();
    for n in &d.definition {
        let Some(N::DefElem(e)) = n.node.as_ref() else {
            continue;
        };
        let Some(known) = ATTRIBUTES.iter().find(|a| **a == e.defname) else {
            cx.notice(
                PgError::warning(
                    code::SYNTAX_ERROR,
                    format!("type attribute \"{}\" not recognized", e.defname),
                )
                .at((e.location >= 0).then(|| e.location as u32 + 1)),
            );
            continue;
        };
        if attrs.iter().any(|(a, _)| a == known) {
            return Err(
                PgError::new(code::SYNTAX_ERROR, "conflicting or redundant options")
                    .at((e.location >= 0).then(|| e.location as u32 + 1)),
            );
        }
        attrs.push((known, e));
    }
    let get = |a: &str| attrs.iter().find(|(n, _)| *n == a).map(|(_, e)| *e);
    if get("like").is_some() {
        return Err(PgError::feature_not_supported(
            "CREATE TYPE ... (LIKE = ...) is not supported yet",
        ));
    }
    let func_name = |a: &str| get(a).and_then(arg_text);
    let Some(input) = func_name("input") else {
        return Err(bad_definition("type input function must be specified"));
    };
    let Some(output) = func_name("output") else {
        return Err(bad_definition("type output function must be specified"));
    };
    if func_name("typmod_in").is_none() && func_name("typmod_out").is_some() {
        return Err(bad_definition(
            "type modifier output function is useless without a type modifier input function",
        ));
    }
    let input_f = find_function(cx, &input, &[&[CSTRING], &[CSTRING, OID, INT4]])?;
    let output_f = find_function(cx, &output, &[&[typoid]])?;
    let mut procs = [0; 8];
    procs[1] = input_f.oid;
    procs[2] = output_f.oid;
    let optional: [(&str, usize, &[&[Oid]]); 5] = [
        ("receive", 3, &[&[INTERNAL], &[INTERNAL, OID, INT4]]),
        ("send", 4, &[&[typoid]]),
        ("typmod_in", 5, &[&[CSTRING_ARRAY]]),
        ("typmod_out", 6, &[&[INT4]]),
        ("analyze", 7, &[&[INTERNAL]]),
    ];
    let mut found = Vec::new();
    for (attr, slot, sigs) in optional {
        if let Some(n) = func_name(attr) {
            let f = find_function(cx, &n, sigs)?;
            procs[slot] = f.oid;
            found.push((attr, n, f));
        }
    }
    // The results PostgreSQL checks, in its order.
    let must_return = |what: &str, name: &str, f: &Found, want: Oid| {
        if f.returns == want {
            Ok(())
        } else {
            Err(bad_definition(format!(
                "type {what} function {name} must return type {}",
                type_name(want)
            )))
        }
    };
    must_return("input", &input, &input_f, typoid)?;
    must_return("output", &output, &output_f, CSTRING)?;
    for (attr, n, f) in &found {
        match *attr {
            "receive" => must_return("receive", n, f, typoid)?,
            "send" => must_return("send", n, f, BYTEA)?,
            "typmod_in" => must_return("modifier input", n, f, INT4)?,
            "typmod_out" => must_return("modifier output", n, f, CSTRING)?,
            _ => must_return("analyze", n, f, BOOL)?,
        }
    }
    // What the values are: those of the built-in type whose I/O function the input
    // function runs.
    let Some(held) = input_f
        .internal
        .as_deref()
        .and_then(crate::sql::catalog::io_proc_type)
    else {
        return Err(PgError::feature_not_supported(format!(
            "base types whose input function is not a built-in type's (as {input} is not) are not supported"
        )));
    };
    let text = |a: &str| get(a).and_then(arg_text);
    let len = match text("internallength").map(|t| t.to_lowercase()) {
        None => -1,
        Some(t) if t == "variable" => -1,
        Some(t) => t.parse::<i16>().map_err(|_| {
            PgError::new(
                code::SYNTAX_ERROR,
                format!("invalid value for internallength: \"{t}\""),
            )
        })?,
    };
    let align = match text("alignment").map(|t| t.to_lowercase()).as_deref() {
        None | Some("int4" | "integer" | "pg_catalog.int4") => 'i',
        Some("double" | "float8" | "pg_catalog.float8") => 'd',
        Some("char" | "pg_catalog.bpchar") => 'c',
        Some("int2" | "smallint" | "pg_catalog.int2") => 's',
        Some(other) => {
            return Err(bad_definition(format!(
                "alignment \"{other}\" not recognized"
            )))
        }
    };
    let storage = match text("storage").map(|t| t.to_lowercase()).as_deref() {
        None | Some("plain") => 'p',
        Some("external") => 'e',
        Some("extended") => 'x',
        Some("main") => 'm',
        Some(other) => {
            return Err(bad_definition(format!(
                "storage \"{other}\" not recognized"
            )))
        }
    };
    let category = match text("category") {
        None => 'U',
        Some(c) => {
            let b = c.as_bytes();
            if b.len() != 1 || !(32..127).contains(&b[0]) {
                return Err(PgError::new(
                    code::INVALID_PARAMETER_VALUE,
                    format!("invalid type category \"{c}\": must be simple ASCII"),
                ));
            }
            b[0] as char
        }
    };
    let delimiter = text("delimiter")
        .and_then(|t| t.chars().next())
        .unwrap_or(',');
    let element = match text("element") {
        None => 0,
        Some(e) => Type::from_name(&e).map(|t| t.0).ok_or_else(|| {
            PgError::new(
                code::UNDEFINED_OBJECT,
                format!("type \"{e}\" does not exist"),
            )
        })?,
    };
    let by_value = match get("passedbyvalue") {
        Some(e) => arg_bool(e)?,
        None => false,
    };
    let preferred = match get("preferred") {
        Some(e) => arg_bool(e)?,
        None => false,
    };
    let collatable = match get("collatable") {
        Some(e) => arg_bool(e)?,
        None => false,
    };
    let default = text("default");
    let base = BaseTypeDef {
        shell: false,
        procs,
        len,
        by_value,
        align,
        storage,
        category,
        preferred,
        delimiter,
        element,
        default: default.clone(),
        collatable,
    };
    let array_oid = new_oid(cx)?;
    let mut def = shell_type.def.clone();
    def.array_oid = array_oid;
    def.domain = Some(DomainDef {
        base: held,
        typmod: -1,
        ndims: 0,
        not_null: false,
        // The DEFAULT is a literal of the type, as PostgreSQL's typdefault.
        default: default.map(|v| crate::sql::quote::quote_literal(&v)),
        collation: None,
        checks: Vec::new(),
    });
    def.base = Some(base);
    write(cx, typoid, def, true, "CREATE TYPE")
}

/// A shell type's pg_type description.
fn shell() -> BaseTypeDef {
    BaseTypeDef {
        shell: true,
        procs: [0; 8],
        len: 4,
        by_value: true,
        align: 'i',
        storage: 'p',
        category: 'P',
        preferred: false,
        delimiter: ',',
        element: 0,
        default: None,
        collatable: false,
    }
}

/// The user type of `name` in `schema`, if any.
fn existing(
    cx: &mut dyn SessionCtx,
    schema: &str,
    name: &str,
) -> PgResult<Option<crate::sync::Arc<crate::catalog::types::UserType>>> {
    let snap = cx.catalog_snapshot()?;
    Ok(cx
        .instance()
        .catalog
        .types
        .named(cx.database(), schema, name, &snap))
}

/// An I/O function CREATE TYPE names.
struct Found {
    oid: Oid,
    returns: Oid,
    /// A user function's LANGUAGE internal body (the built-in function it runs).
    internal: Option<String>,
}

fn type_name(oid: Oid) -> String {
    Type(oid).name()
}

/// The function `name` (qualified or along search_path, pg_catalog's first) taking one of the
/// argument lists `sigs`, tried in order; PostgreSQL's 42883 naming the first when none does.
fn find_function(cx: &mut dyn SessionCtx, name: &str, sigs: &[&[Oid]]) -> PgResult<Found> {
    let parts: Vec<String> = name.split('.').map(str::to_string).collect();
    let (schema, fname) = split_name(&parts)?;
    for sig in sigs {
        if schema.is_empty() || schema == "pg_catalog" {
            if let Some(p) =
                crate::sql::catalog::procs::named(&fname).find(|p| p.argtypes.as_slice() == *sig)
            {
                return Ok(Found {
                    oid: p.oid,
                    returns: p.rettype,
                    internal: Some(fname.clone()),
                });
            }
            // A built-in type's I/O function pg_type names (int4in, array_in): none of them
            // returns a type made by CREATE TYPE, whose input function it cannot be.
            if let Some(oid) = crate::sql::catalog::proc_oid(&fname) {
                return Ok(Found {
                    oid,
                    returns: 0,
                    internal: Some(fname.clone()),
                });
            }
        }
        let snap = cx.catalog_snapshot()?;
        let schemas = if schema.is_empty() {
            cx.search_path()
        } else {
            vec![schema.clone()]
        };
        let catalog = &cx.instance().catalog;
        for s in &schemas {
            let hit = catalog
                .functions
                .named(cx.database(), s, &fname, &snap)
                .into_iter()
                .find(|f| f.def.kind == 'f' && f.def.input_types().as_slice() == *sig);
            if let Some(f) = hit {
                return Ok(Found {
                    oid: f.oid,
                    returns: f.def.returns,
                    internal: (f.def.language == "internal").then(|| f.def.body.trim().to_string()),
                });
            }
        }
    }
    let shown: Vec<String> = sigs
        .first()
        .map(|s| s.iter().map(|t| type_name(*t)).collect())
        .unwrap_or_default();
    Err(PgError::new(
        code::UNDEFINED_FUNCTION,
        format!("function {name}({}) does not exist", shown.join(", ")),
    ))
}
