//! `'name'::regclass` of a user relation. PostgreSQL's regclass input looks the name up when
//! the literal is read (through search_path unless qualified); the built-in catalogs are
//! known by name (`sql::catalog::regclass_oid`), user relations are looked up here in the
//! statement's catalog view. A user relation's regclass value is held by name (see
//! `types::cast`): the literal becomes that name as regclassout prints it (qualified only
//! where search_path would not find it), which the sequence functions look up as before, and
//! a cast of it to oid is folded to the relation's OID here. `'f'::regproc` of a user
//! function is its OID (`regproc_literal`).

use super::{loc, Expr, Planner};
use crate::error::{code, PgError, PgResult};
use crate::sql::engine::{self, Rel};
use crate::sql::func::session_fn::CatalogFn;
use crate::sql::func::SessionFn;
use crate::sql::quote::quote_ident;
use crate::sql::types::{Type, Value};
use crate::sync::Arc;

impl Planner<'_> {
    /// The user relation literal `text` names: None where the literal is read as before (a
    /// built-in catalog, an OID, no catalog at hand, bad name syntax), 42P01 (at `at`) where
    /// it names no relation.
    fn regclass_rel(&self, text: &str, at: i32) -> PgResult<Option<Arc<Rel>>> {
        let Some(cx) = self.tables.as_ref() else {
            return Ok(None);
        };
        // "-" is InvalidOid, as regclass input reads it.
        if text == "-"
            || crate::sql::catalog::regclass_oid(text).is_some()
            || text.trim().parse::<u32>().is_ok()
        {
            return Ok(None);
        }
        let Ok(parts) = crate::sql::quote::parse_qualified(text) else {
            return Ok(None);
        };
        let (schema, name) = match parts.as_slice() {
            [n] => ("", n.as_str()),
            [s, n] => (s.as_str(), n.as_str()),
            _ => return Ok(None),
        };
        let path = || engine::search_schemas(&cx.search_path);
        let found = engine::find_rel(cx.catalog, &cx.snap, cx.database, path(), schema, name);
        // The plan depends on the schema either way.
        cx.used.set(true);
        match found {
            Some(rel) => Ok(Some(rel)),
            None => Err(PgError::new(
                code::UNDEFINED_TABLE,
                format!("relation \"{}\" does not exist", parts.join(".")),
            )
            .at(loc(at))),
        }
    }

    /// The regclass constant of literal `text` when it names a user relation (see
    /// [`Planner::regclass_rel`]).
    pub(super) fn regclass_literal(&self, text: &str, at: i32) -> PgResult<Option<Expr>> {
        let Some(rel) = self.regclass_rel(text, at)? else {
            return Ok(None);
        };
        let cx = self.tables.as_ref().expect("looked up above");
        let visible = engine::find_rel(
            cx.catalog,
            &cx.snap,
            cx.database,
            engine::search_schemas(&cx.search_path),
            "",
            &rel.name.name,
        )
        .is_some_and(|r| r.oid == rel.oid);
        let name = quote_ident(&rel.name.name);
        Ok(Some(Expr::Const(Value::Text(if visible {
            name
        } else {
            format!("{}.{name}", quote_ident(&rel.name.schema))
        }))))
    }

    /// The OID of a user relation's regclass constant (`'t'::regclass::oid`, or compared with
    /// an oid column).
    pub(super) fn regclass_const_oid(&self, text: &str) -> PgResult<Option<Expr>> {
        Ok(self
            .regclass_rel(text, -1)?
            .map(|rel| Expr::Const(Value::Oid(rel.oid))))
    }
}

impl Planner<'_> {
    /// `'name'::regproc` of a user function: its OID (regproc output prints its name), None
    /// where no user function has the name (the built-ins are read as before), 42725 where
    /// several do.
    pub(super) fn regproc_literal(&self, text: &str, at: i32) -> PgResult<Option<Expr>> {
        if self.tables.is_none() || text == "-" || text.trim().parse::<u32>().is_ok() {
            return Ok(None);
        }
        let Ok(names) = crate::sql::quote::parse_qualified(text.trim()) else {
            return Ok(None);
        };
        let mut found = self.user_routines(&names, false);
        found.extend(self.user_routines(&names, true));
        match found.as_slice() {
            [] => Ok(None),
            [f] => Ok(Some(Expr::Const(Value::Oid(f.oid)))),
            _ => Err(PgError::new(
                code::AMBIGUOUS_FUNCTION,
                format!("more than one function named \"{}\"", text.trim()),
            )
            .at(loc(at))),
        }
    }
}

/// The expression an explicit cast of `e` (an OID or integer) to regclass is planned as.
pub(super) fn regclass_of_oid_expr(e: Expr, from: Type) -> Expr {
    Expr::Session {
        f: SessionFn::Catalog(CatalogFn::RegclassOfOid),
        args: vec![e],
        arg_types: vec![from],
    }
}

/// The expression a cast of a regclass `e` that is not a constant to oid (or an integer) is
/// planned as (the integer cast applied to its result by the caller).
pub(super) fn oid_of_regclass_expr(e: Expr) -> Expr {
    Expr::Session {
        f: SessionFn::Catalog(CatalogFn::OidOfRegclass),
        args: vec![e],
        arg_types: vec![Type::REGCLASS],
    }
}
