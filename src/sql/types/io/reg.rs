//! Text input and output of the reg* types (regtype, regclass, regproc, regprocedure,
//! regnamespace, regrole): OIDs that print as the name of the object they stand for and read
//! a name back to its OID, resolved against the built-in catalog (`sql::catalog`).
//!
//! As in PostgreSQL: InvalidOid prints as `-` and `-` reads as InvalidOid; a text of digits
//! alone is an OID (handled in `from_text`); an OID naming no object prints as the number; a
//! regproc name that its input would not find uniquely prints qualified (`pg_catalog.max`);
//! regrole input without a catalog holds roles made by CREATE ROLE by name (the planner, which
//! has the session's catalog, resolves them: `plan/regrole.rs`).

use crate::error::{code, PgError, PgResult};
use crate::sql::types::{Type, Value};
use std::fmt::Write;

/// The name regtype output prints for a type OID (the OID itself when unknown).
pub fn regtype_name(oid: u32) -> String {
    let t = Type(oid);
    let n = t.name();
    if n.starts_with("type ") {
        oid.to_string()
    } else {
        n
    }
}

/// OIDs of the catalog relations clients name in `'x'::regclass`.
pub fn regclass_oid(name: &str) -> Option<u32> {
    crate::sql::catalog::regclass_oid(name)
}

/// A type name as `regtype` input accepts it (`integer`, `int4`, `varchar(10)`, `text[]`).
pub fn parse_regtype(s: &str) -> PgResult<Type> {
    let t = s.trim();
    if !t.is_empty() && t.bytes().all(|c| c.is_ascii_digit()) {
        return Ok(Type(
            t.parse().map_err(|_| PgError::invalid_text("oid", s))?,
        ));
    }
    let mut name = t.to_lowercase();
    let quoted = name.starts_with('"') && name.ends_with('"') && name.len() >= 2;
    if quoted {
        name = t[1..t.len() - 1].to_string();
    }
    // Drop a typmod: varchar(10), numeric(10,2), timestamp(3) with time zone.
    let mut array = false;
    if let Some(n) = name.strip_suffix("[]") {
        array = true;
        name = n.trim().to_string();
    }
    if let (Some(a), Some(b)) = (name.find('('), name.find(')')) {
        if a < b {
            name = format!("{}{}", name[..a].trim_end(), &name[b + 1..]);
        }
    }
    let name = name.split_whitespace().collect::<Vec<_>>().join(" ");
    let found = Type::from_name(&name).or_else(|| {
        Some(match name.as_str() {
            "double" => return None,
            "char" if !quoted => Type::BPCHAR,
            "character varying" => Type::VARCHAR,
            "int8" => Type::INT8,
            // The pseudo-types of trigger functions, which psql's \df compares results with.
            "trigger" | "pg_catalog.trigger" => Type(2279),
            "event_trigger" | "pg_catalog.event_trigger" => Type(3838),
            // A user-defined type, by its name or schema.name (search_path is not known
            // here: any schema's type of that name).
            _ => {
                let (schema, n) = match name.split_once('.') {
                    Some((s, n)) => (Some(s), n),
                    None => (None, name.as_str()),
                };
                return crate::catalog::types::find_by_name(schema, n).map(Type);
            }
        })
    });
    let found = found.map(|t| {
        if name == "char" && !quoted {
            Type::BPCHAR
        } else {
            t
        }
    });
    match found.and_then(|t| if array { t.array() } else { Some(t) }) {
        Some(t) => Ok(t),
        None => Err(PgError::new(
            code::UNDEFINED_OBJECT,
            format!("type \"{t}\" does not exist"),
        )),
    }
}

/// regprocedure input: `name(type, ...)` names one pg_proc row.
pub(super) fn parse_regprocedure(s: &str) -> PgResult<u32> {
    let t = s.trim();
    let missing = || PgError::new("42883", format!("function \"{t}\" does not exist"));
    let (name, args) = t
        .strip_suffix(')')
        .and_then(|x| x.split_once('('))
        .ok_or_else(|| PgError::invalid_text("regprocedure", t))?;
    let name = name.trim().trim_matches('"');
    let name = name.strip_prefix("pg_catalog.").unwrap_or(name);
    let mut types = Vec::new();
    for a in args.split(',').map(str::trim).filter(|a| !a.is_empty()) {
        types.push(parse_regtype(a)?.0);
    }
    crate::sql::catalog::procs::named(name)
        .find(|p| p.argtypes == types)
        .map(|p| p.oid)
        .ok_or_else(missing)
}

/// regrole input where no catalog is at hand (the planner reads literals with one,
/// `plan/regrole.rs`): `-` is no role, a predefined role is its OID, any other name is held
/// by name, unchecked.
pub(super) fn regrole_in(s: &str) -> PgResult<Value> {
    if s == "-" {
        return Ok(Value::Oid(0));
    }
    let bad = || PgError::new(code::INVALID_NAME, "invalid name syntax");
    let parts = crate::sql::quote::parse_qualified(s).map_err(|_| bad())?;
    let [name] = parts.as_slice() else {
        return Err(bad());
    };
    Ok(match crate::sql::catalog::fixed::role_oid(name) {
        Some(oid) => Value::Oid(oid),
        None => Value::Text(crate::sql::quote::quote_ident(name)),
    })
}

/// The text of an OID-valued type: oid itself, or the name a reg* type prints for its OID
/// (the OID when no such object exists, `-` for InvalidOid).
pub(super) fn write_oid(o: u32, ty: Type, out: &mut String) {
    match ty {
        // The reg* types print "-" for no object, as PostgreSQL does.
        Type::REGTYPE
        | Type::REGPROC
        | Type::REGCLASS
        | Type::REGNAMESPACE
        | Type::REGROLE
        | Type::REGPROCEDURE
            if o == 0 =>
        {
            out.push('-')
        }
        Type::REGNAMESPACE => match crate::sql::catalog::namespace_name(o) {
            Some(n) => out.push_str(n),
            None => {
                let _ = write!(out, "{o}");
            }
        },
        Type::REGTYPE => out.push_str(&regtype_name(o)),
        // Roles made by CREATE ROLE are held by name (`plan/regrole.rs`).
        Type::REGROLE => match crate::sql::catalog::fixed::role_name(o) {
            Some(n) => out.push_str(n),
            None => {
                let _ = write!(out, "{o}");
            }
        },
        Type::REGCLASS => match crate::sql::catalog::regclass_name(o) {
            Some(n) => out.push_str(n),
            None => {
                let _ = write!(out, "{o}");
            }
        },
        Type::REGPROCEDURE => match crate::sql::catalog::procs::by_oid(o) {
            Some(p) => out.push_str(&crate::sql::catalog::procs::signature(p)),
            None => {
                let _ = write!(out, "{o}");
            }
        },
        Type::REGPROC => match crate::sql::catalog::proc_name(o)
            .or_else(|| crate::sql::catalog::procs::by_oid(o).map(|p| p.name.as_str()))
        {
            // A name regproc input would not find uniquely is qualified, as PostgreSQL's
            // regprocout does (`pg_catalog.max`).
            Some(n) if crate::sql::catalog::procs::named(n).nth(1).is_some() => {
                let _ = write!(out, "pg_catalog.{n}");
            }
            Some(n) => out.push_str(n),
            // A user function: qualified outside the default search_path, as user types are.
            None => match crate::catalog::functions::output_name(o) {
                Some((schema, name)) => out.push_str(&super::super::qualified_name(&schema, &name)),
                None => {
                    let _ = write!(out, "{o}");
                }
            },
        },
        _ => {
            let _ = write!(out, "{o}");
        }
    }
}

/// regnamespace input: a schema name.
pub(super) fn regnamespace_in(s: &str) -> PgResult<Value> {
    Ok(match crate::sql::catalog::namespace_oid(s.trim()) {
        Some(o) => Value::Oid(o),
        None => {
            return Err(PgError::new(
                "3F000",
                format!("schema \"{}\" does not exist", s.trim()),
            ))
        }
    })
}

/// regproc input: a function name that names one function (`-` is InvalidOid).
pub(super) fn regproc_in(s: &str) -> PgResult<Value> {
    Ok(match crate::sql::catalog::proc_oid(s.trim()) {
        _ if s.trim() == "-" => Value::Oid(0),
        Some(o) => Value::Oid(o),
        None if crate::sql::catalog::procs::named(s.trim()).next().is_some() => {
            let mut it = crate::sql::catalog::procs::named(s.trim());
            let first = it.next().map_or(0, |p| p.oid);
            if it.next().is_some() {
                return Err(PgError::new(
                    "42725",
                    format!("more than one function named \"{}\"", s.trim()),
                ));
            }
            Value::Oid(first)
        }
        None => {
            return Err(PgError::new(
                "42883",
                format!("function \"{s}\" does not exist"),
            ))
        }
    })
}
