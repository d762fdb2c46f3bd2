//! Conversion to a domain (PostgreSQL's CoerceToDomain): a value is converted to the domain's
//! base type as any value is, then checked against the domain's NOT NULL and CHECK
//! constraints — those of the domains under it first, each domain's CHECKs in name order, as
//! PostgreSQL applies them. The result is typed as the base type (`Type::base`): a domain
//! value is its base type's value everywhere else.
//!
//! The constraints are read when the statement is planned, through its snapshot; a plan that
//! names a domain is made again after DDL (ALTER DOMAIN included), as for any type.

use std::sync::Arc;

use super::{CoercionContext, Column, Expr, Plan, Planner, Scope};
use crate::catalog::types::{UserType, MAX_DOMAIN_DEPTH};
use crate::error::{PgError, PgResult};
use crate::sql::plan::nodes::Node;
use crate::sql::plan::DomainCoercion;
use crate::sql::types::{Type, Value};

impl Planner<'_> {
    /// Domain `oid` as this statement sees it (the value functions' registry without a
    /// catalog).
    pub(super) fn domain_def(&self, oid: u32) -> Option<Arc<UserType>> {
        let t = match &self.tables {
            Some(cx) => {
                cx.used.set(true);
                cx.catalog.types.by_oid(oid, &cx.snap)
            }
            None => crate::catalog::types::domain_info(oid),
        };
        t.filter(|t| t.oid == oid && t.def.domain.is_some())
    }

    /// `e` of type `from` converted to `to`, a domain or an array of one: the conversion to
    /// the base type, then the constraints.
    pub(super) fn coerce_to_domain(
        &mut self,
        e: Expr,
        from: Type,
        to: Type,
        ctx: CoercionContext,
        location: i32,
    ) -> PgResult<Expr> {
        let (base, typmod) = to.base();
        let e = self.coerce(e, from, base, typmod, ctx, location)?;
        let (domain, elements) = match to.elem() {
            Some(el) if el.is_domain() => (el, true),
            _ => (to, false),
        };
        Ok(match self.domain_coercion(domain, elements)? {
            Some(d) => Expr::Domain(Box::new(e), d),
            None => e,
        })
    }

    /// The constraints of domain `oid` bound for checking (None: it has none).
    pub(super) fn domain_coercion(
        &mut self,
        oid: Type,
        elements: bool,
    ) -> PgResult<Option<Arc<DomainCoercion>>> {
        let Some(top) = self.domain_def(oid.0) else {
            return Ok(None);
        };
        let (base, typmod) = oid.base();
        // The chain from the domain down, then bound bottom first.
        let mut chain = vec![top.clone()];
        while chain.len() < MAX_DOMAIN_DEPTH {
            let under = chain
                .last()
                .and_then(|t| t.def.domain.as_ref())
                .map(|d| d.base)
                .and_then(|b| self.domain_def(b));
            match under {
                Some(u) => chain.push(u),
                None => break,
            }
        }
        let mut not_null = false;
        let mut checks = Vec::new();
        for t in chain.iter().rev() {
            let Some(d) = &t.def.domain else { continue };
            not_null |= d.not_null;
            let mut own: Vec<_> = d.checks.iter().collect();
            own.sort_by(|a, b| a.name.cmp(&b.name));
            for c in own {
                let pred = self.bind_domain_check(&c.expr, base, typmod)?;
                checks.push((c.name.clone(), pred));
            }
        }
        if !not_null && checks.is_empty() {
            return Ok(None);
        }
        Ok(Some(Arc::new(DomainCoercion {
            elements,
            schema: top.def.schema.clone(),
            name: oid.name(),
            typname: top.def.name.clone(),
            not_null,
            checks,
        })))
    }

    /// A domain CHECK expression bound over a row of one column, `VALUE`, of the base type.
    pub(crate) fn bind_domain_check(
        &mut self,
        text: &str,
        base: Type,
        typmod: i32,
    ) -> PgResult<Expr> {
        let n = super::modify::parse_expr(text)?;
        let scope = value_scope(self, base, typmod);
        let (e, t) = self.bind(&n, &scope, None)?;
        self.coerce_bool(e, t, "CHECK", &n)
    }

    /// Checks a domain's DEFAULT text as CREATE / ALTER DOMAIN do: it must convert to the
    /// base type (42804 naming the domain otherwise).
    pub(crate) fn check_domain_default(
        &mut self,
        domain: &str,
        text: &str,
        base: Type,
        typmod: i32,
    ) -> PgResult<()> {
        let n = super::modify::parse_expr(text)?;
        let (e, from) = self.bind(&n, &Scope::default(), None)?;
        self.coerce(e, from, base, typmod, CoercionContext::Assignment, -1)
            .map_err(|err| {
                if err.code == crate::error::code::CANNOT_COERCE {
                    default_type_error(domain, base.base_type(), from.base_type())
                } else {
                    err
                }
            })
            .map(|_| ())
    }

    /// The value a column of type `ty` gets when nothing is given for it: the domain's
    /// DEFAULT (the nearest domain with one), checked; or NULL, checked (a NOT NULL domain
    /// refuses it). None when `ty` is no domain.
    pub(crate) fn domain_default(&mut self, ty: Type) -> PgResult<Option<Expr>> {
        let Some(mut t) = self.domain_def(ty.0) else {
            return Ok(None);
        };
        let mut default = None;
        for _ in 0..MAX_DOMAIN_DEPTH {
            let Some(d) = &t.def.domain else { break };
            if let Some(text) = &d.default {
                default = Some(text.clone());
                break;
            }
            match self.domain_def(d.base) {
                Some(u) => t = u,
                None => break,
            }
        }
        let (e, from) = match default {
            Some(text) => {
                let n = super::modify::parse_expr(&text)?;
                self.bind(&n, &Scope::default(), None)?
            }
            None => (Expr::Const(Value::Null), Type::UNKNOWN),
        };
        Ok(Some(self.coerce(
            e,
            from,
            ty,
            -1,
            CoercionContext::Assignment,
            -1,
        )?))
    }
}

/// A scope of one column named `value` (how the parser reads `VALUE`).
fn value_scope(p: &Planner, base: Type, typmod: i32) -> Scope {
    let plan = Plan {
        columns: vec![Column {
            name: "value".into(),
            ty: base,
            typmod,
            origin: None,
        }],
        node: Node::Result,
    };
    p.scope_of(&plan, "")
}

/// A domain's DEFAULT that does not convert to its base type (PostgreSQL's cookDefault names
/// the domain as the column).
pub fn default_type_error(domain: &str, base: Type, from: Type) -> PgError {
    PgError::new(
        crate::error::code::DATATYPE_MISMATCH,
        format!(
            "column \"{domain}\" is of type {} but default expression is of type {}",
            base.name(),
            from.name()
        ),
    )
    .with_hint("You will need to rewrite or cast the expression.")
}
