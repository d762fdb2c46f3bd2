//! `'name'::regrole`. PostgreSQL's regrole input looks the role up when the literal is read
//! (42704 `role "x" does not exist`). The bootstrap superuser and the predefined roles have
//! fixed OIDs, known without a catalog (`sql::catalog::fixed::ROLES`), and their regrole
//! values are held as OIDs; a role made by CREATE ROLE is held by its name as regroleout
//! prints it (quoted where needed), as a user relation's regclass is, since a value's text
//! output has no catalog at hand. A cast of such a value to oid is folded to the role's OID
//! here, or looked up when it runs (`func/system/catalog.rs`, `oid_of_regrole`).

use super::{loc, Expr, Planner};
use crate::error::{code, PgError, PgResult};
use crate::sql::catalog::fixed;
use crate::sql::func::session_fn::CatalogFn;
use crate::sql::func::SessionFn;
use crate::sql::quote::quote_ident;
use crate::sql::types::cast::CoercionContext;
use crate::sql::types::{Type, Value};

impl Planner<'_> {
    /// The regrole constant of literal `text`: None where the literal is read by the type's
    /// input function (an OID, no catalog at hand); 42602 for a name that is not one
    /// identifier, 42704 (at `at`) where no role has the name.
    pub(super) fn regrole_literal(&self, text: &str, at: i32) -> PgResult<Option<Expr>> {
        let Some(cx) = self.tables.as_ref() else {
            return Ok(None);
        };
        if text == "-" {
            return Ok(Some(Expr::Const(Value::Oid(0))));
        }
        if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) {
            return Ok(None);
        }
        let bad = || PgError::new(code::INVALID_NAME, "invalid name syntax").at(loc(at));
        let parts = crate::sql::quote::parse_qualified(text).map_err(|_| bad())?;
        let [name] = parts.as_slice() else {
            return Err(bad());
        };
        match cx.catalog.roles.by_name(name, &cx.snap) {
            Some(role) if fixed::role_name(role.oid).is_some() => {
                Ok(Some(Expr::Const(Value::Oid(role.oid))))
            }
            Some(_) => Ok(Some(Expr::Const(Value::Text(quote_ident(name))))),
            None => Err(PgError::new(
                code::UNDEFINED_OBJECT,
                format!("role \"{name}\" does not exist"),
            )
            .at(loc(at))),
        }
    }

    /// The OID of a regrole constant held by name (`'r'::regrole::oid`).
    pub(super) fn regrole_const_oid(&self, text: &str) -> Option<Expr> {
        let cx = self.tables.as_ref()?;
        let parts = crate::sql::quote::parse_qualified(text).ok()?;
        let [name] = parts.as_slice() else {
            return None;
        };
        let role = cx.catalog.roles.by_name(name, &cx.snap)?;
        Some(Expr::Const(Value::Oid(role.oid)))
    }
}

impl Planner<'_> {
    /// A cast into or out of regrole that needs the role catalog, as (expression, its type)
    /// for the caller to finish the cast from: an explicit cast of an oid or integer to
    /// regrole looks its role up when it runs (an OID no role has prints as a number); a regrole held
    /// by name cast to oid or an integer is its role's OID (folded for a constant). None: the
    /// cast needs no catalog.
    pub(super) fn regrole_cast(
        &self,
        e: &Expr,
        from: Type,
        to: Type,
        ctx: CoercionContext,
    ) -> PgResult<Option<(Expr, Type)>> {
        let ints = [Type::OID, Type::INT4, Type::INT8];
        if to == Type::REGROLE && ctx == CoercionContext::Explicit && ints.contains(&from) {
            let e = regrole_of_oid_expr(e.clone(), from);
            return Ok(Some((e, Type::REGROLE)));
        }
        if from != Type::REGROLE || !ints.contains(&to) {
            return Ok(None);
        }
        Ok(match e {
            Expr::Const(Value::Text(t)) => self.regrole_const_oid(t).map(|e| (e, Type::OID)),
            Expr::Const(_) => None,
            e => Some((oid_of_regrole_expr(e.clone()), Type::OID)),
        })
    }
}

/// The expression an explicit cast of an oid or integer `e` to regrole is planned as.
pub(super) fn regrole_of_oid_expr(e: Expr, from: Type) -> Expr {
    Expr::Session {
        f: SessionFn::Catalog(CatalogFn::RegroleOfOid),
        args: vec![e],
        arg_types: vec![from],
    }
}

/// The expression a cast of a regrole `e` that is not a constant to oid is planned as.
pub(super) fn oid_of_regrole_expr(e: Expr) -> Expr {
    Expr::Session {
        f: SessionFn::Catalog(CatalogFn::OidOfRegrole),
        args: vec![e],
        arg_types: vec![Type::REGROLE],
    }
}
