//! CREATE TYPE name AS RANGE (SUBTYPE = t [, SUBTYPE_DIFF = f] [, MULTIRANGE_TYPE_NAME = m]
//! [, SUBTYPE_OPCLASS = ...] [, COLLATION = ...]).
//!
//! A range type lives in the type store (`catalog::types::RangeDef`) like the other user types,
//! so it commits, rolls back and survives restarts with them, and DROP TYPE (with its 2BP01
//! for a column that uses it, or CASCADE) is TYPE's (`user_type.rs`). Its values are the
//! built-in ranges' (`types/range.rs`), compared by the subtype's order; its constructor
//! function, named as the type, is bound by the planner (`plan/range.rs`).
//!
//! The subtype is any type but a pseudo-type; a range over a user type (a domain, an enum, a
//! composite) is one of that type's dependents, dropped with it by DROP ... CASCADE.
//! CANONICAL needs a shell type and a C function, so it is refused as PostgreSQL refuses it
//! without a shell type (42P17). SUBTYPE_DIFF is recorded (pg_range.rngsubdiff); threadgres
//! has no GiST index, its only user. The multirange type's name is kept for pg_range and
//! reserved against nothing else yet (threadgres has no multirange values).

use pg_query::protobuf::{self, node::Node as N};

use super::user_type::{self, TypeDdl};
use crate::catalog::types::{RangeDef, TypeDef, MAX_LABEL_LEN};
use crate::error::{code, PgError, PgResult};
use crate::sql::context::SessionCtx;
use crate::sql::parser::names_of;
use crate::sql::types::Type;

#[derive(Debug, Clone)]
pub struct CreateRange {
    name: Vec<String>,
    /// (parameter name, its argument, its position), in the order written.
    params: Vec<(String, Option<protobuf::Node>, i32)>,
}

/// CREATE TYPE ... AS RANGE among parse trees.
pub fn analyze(node: &N) -> Option<TypeDdl> {
    let N::CreateRangeStmt(c) = node else {
        return None;
    };
    let params = c
        .params
        .iter()
        .filter_map(|p| match p.node.as_ref() {
            Some(N::DefElem(d)) => Some((d.defname.clone(), d.arg.as_deref().cloned(), d.location)),
            _ => None,
        })
        .collect();
    Some(TypeDdl::Range(Box::new(CreateRange {
        name: names_of(&c.type_name),
        params,
    })))
}

fn syntax(msg: impl Into<String>) -> PgError {
    PgError::new(code::SYNTAX_ERROR, msg)
}

/// PostgreSQL's makeMultirangeTypeName: "range" in the name becomes "multirange", else
/// "_multirange" is appended; cut to 63 bytes.
fn multirange_name(range: &str) -> String {
    let mut n = match range.find("range") {
        Some(i) => format!("{}multirange{}", &range[..i], &range[i + 5..]),
        None => format!("{range}_multirange"),
    };
    while n.len() > MAX_LABEL_LEN {
        n.pop();
    }
    n
}

pub fn execute(c: &CreateRange, cx: &mut dyn SessionCtx) -> PgResult<()> {
    let (schema, name) = user_type::split_name(&c.name)?;
    let schema = super::creation_schema(cx, &schema, -1)?;
    if user_type::name_taken(cx, &schema, &name)? {
        return Err(user_type::already_exists(&name));
    }
    let mut subtype: Option<Type> = None;
    let mut diff: Option<String> = None;
    let mut multi: Option<String> = None;
    let mut canonical = false;
    let mut collation = false;
    let mut seen: Vec<&str> = Vec::new();
    for (pname, arg, location) in &c.params {
        let pname = pname.as_str();
        if !matches!(
            pname,
            "subtype"
                | "subtype_opclass"
                | "collation"
                | "canonical"
                | "subtype_diff"
                | "multirange_type_name"
        ) {
            return Err(syntax(format!("type attribute \"{pname}\" not recognized")));
        }
        if seen.contains(&pname) {
            return Err(
                syntax("conflicting or redundant options").at(crate::sql::plan::loc(*location))
            );
        }
        seen.push(pname);
        let names = user_type::object_names(arg.as_ref());
        match pname {
            "subtype" => {
                let Some(N::TypeName(tn)) = arg.as_ref().and_then(|a| a.node.as_ref()) else {
                    return Err(syntax("subtype requires a type name"));
                };
                let (t, _) =
                    super::function::with_planner(cx, None, |pl| pl.resolve_type_name(tn))?;
                subtype = Some(t);
            }
            "subtype_diff" => diff = names.last().cloned(),
            "multirange_type_name" => {
                // A built-in type's name (`int` is pg_catalog.int4) is taken.
                if let [s, n] = names.as_slice() {
                    if s == "pg_catalog" && crate::sql::types::Type::from_name(n).is_some() {
                        return Err(user_type::already_exists(n));
                    }
                }
                multi = names.last().cloned()
            }
            "canonical" => canonical = true,
            "collation" => collation = true,
            _ => {}
        }
    }
    let sub = subtype.ok_or_else(|| syntax("type attribute \"subtype\" is required"))?;
    if sub.category() == 'P' {
        return Err(PgError::new(
            code::DATATYPE_MISMATCH,
            format!("range subtype cannot be {}", sub.name()),
        ));
    }
    if collation && sub.category() != 'S' {
        return Err(PgError::new(
            code::WRONG_OBJECT_TYPE,
            "range collation specified but subtype does not support collation",
        ));
    }
    if canonical {
        return Err(PgError::new(
            code::INVALID_OBJECT_DEFINITION,
            "cannot specify a canonical function without a pre-created shell type",
        )
        .with_hint(
            "Create the type as a shell type, then create its canonicalization function, then do a full CREATE TYPE.",
        ));
    }
    if let Some(f) = &diff {
        check_subtype_diff(f, sub)?;
    }
    let multirange_name = multi.unwrap_or_else(|| multirange_name(&name));
    if user_type::name_taken(cx, &schema, &multirange_name)? {
        return Err(user_type::already_exists(&multirange_name)
            .with_detail(format!(
                "Failed while creating a multirange type for type \"{name}\"."
            ))
            .with_hint(
                "You can manually specify a multirange type name using the \"multirange_type_name\" attribute.",
            ));
    }
    // PostgreSQL numbers the array type, the multirange and its array, then the range type.
    let array_oid = user_type::new_oid(cx)?;
    let multirange_oid = user_type::new_oid(cx)?;
    let multirange_array_oid = user_type::new_oid(cx)?;
    let oid = user_type::new_oid(cx)?;
    let def = TypeDef {
        database: cx.database().to_string(),
        schema,
        name,
        owner: cx.role_oid(),
        array_oid,
        labels: Vec::new(),
        domain: None,
        composite: None,
        range: Some(RangeDef {
            subtype: sub.0,
            multirange_oid,
            multirange_array_oid,
            multirange_name,
            subtype_diff: diff,
        }),
        builtin: None,
        base: None,
    };
    user_type::write(cx, oid, def, false, "CREATE TYPE")
}

/// SUBTYPE_DIFF must name a function of (subtype, subtype) returning double precision. The
/// built-in candidates are the functions of the subtraction operators (float8mi, ...), which
/// pg_operator lists with their argument types; another name (a user function) is taken as
/// given.
fn check_subtype_diff(f: &str, sub: Type) -> PgResult<()> {
    let ops = crate::sql::catalog::operators::operators();
    let mut named = ops.iter().filter(|o| o.funcs[0].1 == f).peekable();
    if named.peek().is_none() {
        return Ok(());
    }
    let signature = format!("{f}({0}, {0})", sub.name());
    let base = sub.base_type().0;
    match named.find(|o| o.left == base && o.right == base) {
        None => Err(PgError::new(
            code::UNDEFINED_FUNCTION,
            format!("function {signature} does not exist"),
        )),
        Some(o) if o.result != Type::FLOAT8.0 => Err(PgError::new(
            code::INVALID_OBJECT_DEFINITION,
            format!("range subtype diff function {signature} must return type double precision"),
        )),
        Some(_) => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn multirange_names() {
        assert_eq!(super::multirange_name("floatrange"), "floatmultirange");
        assert_eq!(super::multirange_name("textrange1"), "textmultirange1");
        assert_eq!(super::multirange_name("mytype"), "mytype_multirange");
    }
}
