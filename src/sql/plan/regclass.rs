//! `'name'::regclass` of a user relation. PostgreSQL's regclass input looks the name up when
//! the literal is read (through search_path unless qualified); the built-in catalogs are
//! known by name (`sql::catalog::regclass_oid`), user relations are looked up here in the
//! statement's catalog view. The value is planned as the cast of the relation's OID, so it
//! prints as regclassout does and compares as an OID.

use super::{loc, Expr, Planner};
use crate::error::{code, PgError, PgResult};
use crate::sql::engine;
use crate::sql::types::{Type, Value};

impl Planner<'_> {
    /// The regclass of literal `text` (at `at`) when it names a user relation; 42P01 when it
    /// names no relation; None where the literal is read as before (a built-in catalog, an
    /// OID, no catalog at hand, bad name syntax).
    pub(super) fn regclass_literal(&self, text: &str, at: i32) -> PgResult<Option<Expr>> {
        let Some(cx) = self.tables.as_ref() else {
            return Ok(None);
        };
        if crate::sql::catalog::regclass_oid(text).is_some() || text.trim().parse::<u32>().is_ok() {
            return Ok(None);
        }
        let Ok(parts) = crate::sql::sequence::parse_qualified(text) else {
            return Ok(None);
        };
        let (schema, name) = match parts.as_slice() {
            [n] => ("", n.as_str()),
            [s, n] => (s.as_str(), n.as_str()),
            _ => return Ok(None),
        };
        let found = engine::find_rel(
            cx.catalog,
            &cx.snap,
            cx.database,
            engine::search_schemas(&cx.search_path),
            schema,
            name,
        );
        // The plan depends on the schema either way.
        cx.used.set(true);
        match found {
            Some(rel) => Ok(Some(crate::sql::catalog_fn::regclass_of_oid_expr(
                Expr::Const(Value::Oid(rel.oid)),
                Type::OID,
            ))),
            None => Err(PgError::new(
                code::UNDEFINED_TABLE,
                format!("relation \"{}\" does not exist", parts.join(".")),
            )
            .at(loc(at))),
        }
    }
}
