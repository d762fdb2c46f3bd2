//! The triggers a data-changing statement fires, chosen when it is planned: those of the
//! target table that are enabled and fire for the statement's events, in name order (the
//! order PostgreSQL fires them in), each with its function and its WHEN condition bound.
//!
//! A WHEN condition reads the old and the new row: it is bound over a row made of the
//! table's columns twice, OLD's then NEW's (`old.x` is column x, `new.x` column width + x),
//! which is how the executor hands the two rows to it. The function is the version the
//! statement's snapshot sees; a CREATE OR REPLACE FUNCTION changes the catalog's epoch, so a
//! kept plan is planned again and calls the new one.

use std::sync::Arc;

use pg_query::protobuf::node::Node as N;

use super::{Expr, Planner, Scope};
use crate::catalog::functions::Function;
use crate::catalog::triggers::{Timing, TriggerDef};
use crate::catalog::ColumnDef;
use crate::error::{code, PgError, PgResult};
use crate::sql::engine::Rel;

/// One trigger of a statement, ready to fire.
#[derive(Debug)]
pub struct Planned {
    pub def: TriggerDef,
    pub function: Arc<Function>,
    /// WHEN, over OLD's columns then NEW's.
    pub when: Option<Expr>,
}

/// The triggers a statement fires, in name order.
#[derive(Debug, Default)]
pub struct Triggers {
    pub items: Vec<Planned>,
}

impl Triggers {
    /// Those that fire at `timing`, per row or per statement, for `event`.
    pub fn at(&self, timing: Timing, row: bool, event: i16) -> impl Iterator<Item = &Planned> {
        self.items
            .iter()
            .filter(move |t| t.def.timing() == timing && t.def.row() == row && t.def.on(event))
    }

    pub fn any(&self, timing: Timing, row: bool, event: i16) -> bool {
        self.at(timing, row, event).next().is_some()
    }
}

/// The scope of a WHEN condition: OLD's columns, then NEW's (a bare column name is in both,
/// hence ambiguous, as in PostgreSQL).
fn when_scope(columns: &[ColumnDef]) -> Scope {
    let mut cols = super::table_expr::scope_of("old", columns).cols;
    cols.extend(super::table_expr::scope_of("new", columns).cols);
    Scope {
        cols,
        grouped: None,
    }
}

impl Planner<'_> {
    /// The triggers of `rel` that fire for any of `events` (tgtype event bits), only the
    /// row-level ones with `row_only`; None when there are none.
    pub(super) fn statement_triggers(
        &mut self,
        rel: &Rel,
        events: i16,
        row_only: bool,
    ) -> PgResult<Option<Arc<Triggers>>> {
        if rel.triggers.is_empty() {
            return Ok(None);
        }
        let mut items = Vec::new();
        for def in rel
            .triggers
            .iter()
            .filter(|t| t.fires() && t.tgtype & events != 0 && (!row_only || t.row()))
        {
            let function = self
                .tables
                .as_ref()
                .and_then(|t| t.catalog.functions.by_oid(def.function, &t.snap))
                .ok_or_else(|| {
                    PgError::new(
                        code::UNDEFINED_FUNCTION,
                        format!("function with OID {} does not exist", def.function),
                    )
                })?;
            let when = match &def.when {
                Some(text) => Some(self.bind_trigger_when(&rel.columns, text)?),
                None => None,
            };
            items.push(Planned {
                def: def.clone(),
                function,
                when,
            });
        }
        Ok((!items.is_empty()).then(|| Arc::new(Triggers { items })))
    }

    /// A trigger's WHEN condition over OLD's and NEW's columns, as a boolean.
    pub fn bind_trigger_when(&mut self, columns: &[ColumnDef], text: &str) -> PgResult<Expr> {
        let n = super::modify::parse_expr(text)?;
        self.bind_when_node(columns, &n)
    }

    /// As [`Planner::bind_trigger_when`], for a parsed condition.
    pub fn bind_when_node(&mut self, columns: &[ColumnDef], n: &N) -> PgResult<Expr> {
        let scope = when_scope(columns);
        // Reading OLD and NEW needs no privilege of its own.
        if let Some(cx) = &self.tables {
            cx.perms.suspend(true);
        }
        let bound = self.bind(n, &scope, None);
        if let Some(cx) = &self.tables {
            cx.perms.suspend(false);
        }
        let (e, t) = bound?;
        self.coerce_bool(e, t, "WHEN", n)
    }
}

/// Whether view `rel` has an INSTEAD OF trigger for `event` (a tgtype event bit): INSERT,
/// UPDATE or DELETE on it then runs the trigger for each row instead of writing (disabled
/// ones count, as in PostgreSQL, whose rewriter looks at the trigger list, not its state).
pub fn has_instead(rel: &Rel, event: i16) -> bool {
    event != 0
        && rel
            .triggers
            .iter()
            .any(|t| t.timing() == Timing::InsteadOf && t.on(event))
}

impl Planner<'_> {
    /// The rows of a view that is the target of UPDATE / DELETE through INSTEAD OF triggers:
    /// the view's query, with a NULL slot column after the view's columns where a table's
    /// scan has its rows' slots (the executor hands the view's row to the trigger as OLD).
    pub(super) fn view_target(&mut self, rel: &Rel) -> PgResult<super::Plan> {
        let plan = self.plan_view(rel)?;
        let mut columns = plan.columns.clone();
        let mut exprs: Vec<Expr> = (0..columns.len()).map(Expr::Column).collect();
        columns.push(super::nodes::Column {
            name: super::modify::ROWID.to_string(),
            ty: crate::sql::types::Type::INT8,
            typmod: -1,
            origin: None,
        });
        exprs.push(Expr::Const(crate::sql::types::Value::Null));
        Ok(super::Plan {
            columns,
            node: super::Node::Project {
                input: Box::new(plan),
                exprs,
            },
        })
    }
}
