//! Expressions over the rows of a table being altered (ALTER TABLE ... ALTER COLUMN TYPE
//! USING, the default of a column added to a table with rows, CHECK constraints validated
//! against existing rows), and the query of a view, planned where the view is used.
//!
//! DDL works on a table definition that is not (yet) a catalog version, so these bind against
//! a plain list of column definitions rather than a [`Rel`](crate::sql::engine::Rel).

use pg_query::protobuf::node::Node as N;

use super::modify::TableCx;
use super::scope::TableCol;
use super::{CoercionContext, Column, Expr, Plan, Planner, Scope, ScopeCol};
use crate::catalog::ColumnDef;
use crate::error::{code, PgError, PgResult};
use crate::sql::engine::Rel;
use crate::sql::types::Type;

pub(super) fn scope_of(rel: &str, columns: &[ColumnDef]) -> Scope {
    Scope {
        cols: columns
            .iter()
            .enumerate()
            .map(|(i, c)| ScopeCol {
                rel: rel.to_string(),
                // A dropped column keeps its place but no name can reach it.
                name: if c.dropped {
                    format!("\u{0}\u{0}dropped{i}")
                } else {
                    c.name.clone()
                },
                ty: Type(c.type_oid),
                typmod: c.typmod,
                origin: None,
                hidden: false,
                qualified_only: false,
                table: None,
            })
            .collect(),
        grouped: None,
    }
}

impl Planner<'_> {
    /// Binds `n` over a row of table `rel` with `columns`; returns the expression and its type.
    pub fn bind_over_columns(
        &mut self,
        rel: &str,
        columns: &[ColumnDef],
        n: &N,
    ) -> PgResult<(Expr, Type)> {
        let scope = scope_of(rel, columns);
        self.bind(n, &scope, None)
    }

    /// The generation expression `n` of column `pos` (GENERATED ALWAYS AS (expr) STORED) over
    /// a row of table `rel` (OID `oid`) with `columns`, converted to the column's type as an
    /// assignment converts. Aggregate and window calls are refused in PostgreSQL's words for
    /// the clause; `tableoid` is the table's OID (0 while CREATE TABLE checks the expression,
    /// when only whether it binds matters).
    pub fn bind_generation(
        &mut self,
        rel: &str,
        oid: u32,
        columns: &[ColumnDef],
        pos: usize,
        n: &N,
    ) -> PgResult<Expr> {
        let mut scope = scope_of(rel, columns);
        for (i, c) in scope.cols.iter_mut().enumerate() {
            c.table = Some(TableCol {
                rel: rel.to_string(),
                oid,
                pos: i,
                in_pk: false,
            });
        }
        let saved = self.state.clause.replace("column generation expressions");
        let bound = self.bind(n, &scope, None);
        self.state.clause = saved;
        let (e, from) = bound?;
        let (to, typmod) = super::modify::declared_type(&columns[pos]);
        self.assign_to(e, from, to, typmod)?
            .ok_or_else(|| default_type_error(&columns[pos].name, to, from))
    }

    /// A CHECK expression over a row of `columns`, as a boolean.
    pub fn bind_check(&mut self, rel: &str, columns: &[ColumnDef], n: &N) -> PgResult<Expr> {
        let (e, t) = self.bind_over_columns(rel, columns, n)?;
        self.coerce_bool(e, t, "CHECK", n)
    }

    /// A partial index's predicate over a row of `columns`, as a boolean.
    pub fn bind_predicate(&mut self, columns: &[ColumnDef], n: &N) -> PgResult<Expr> {
        let (e, t) = self.bind_over_columns("", columns, n)?;
        self.coerce_bool(e, t, "WHERE", n)
    }

    /// Converts `e` of type `from` to a column of type `to`, as an assignment does; None when
    /// no assignment cast exists (the caller words the error). Other errors (a literal that
    /// is no valid input for the type) are returned as they are.
    pub fn assign_to(
        &mut self,
        e: Expr,
        from: Type,
        to: Type,
        typmod: i32,
    ) -> PgResult<Option<Expr>> {
        match self.coerce(e, from, to, typmod, CoercionContext::Assignment, -1) {
            Ok(e) => Ok(Some(e)),
            Err(err) if matches!(err.code, code::DATATYPE_MISMATCH | code::CANNOT_COERCE) => {
                Ok(None)
            }
            Err(err) => Err(err),
        }
    }

    /// The plan of view `view` (its stored query planned again, with the view's column names
    /// and no more columns than it was created with: a `*` in it stays as it was expanded then,
    /// as PostgreSQL stores the expanded list).
    pub(super) fn plan_view(&mut self, view: &Rel) -> PgResult<Plan> {
        let def = view.data.view.as_ref().ok_or_else(|| {
            PgError::internal(format!("view \"{}\" has no definition", view.name.name))
        })?;
        // A view whose query reads itself, directly or through other views, is refused when a
        // query expands it, as PostgreSQL's rewriter refuses it.
        if self.expanding.contains(&view.oid) {
            return Err(PgError::new(
                code::INVALID_OBJECT_DEFINITION,
                format!(
                    "infinite recursion detected in rules for relation \"{}\"",
                    view.name.name
                ),
            ));
        }
        crate::stack::check()?;
        let node = crate::sql::parser::parse_node(&def.query)?;
        // The view's query sees none of the query around it (no outer columns, no CTEs).
        let mut inner = Planner::new(self.params, self.fmt);
        inner.scan_unpopulated = self.scan_unpopulated;
        inner.defer_exec_checks = self.defer_fold_errors || self.defer_exec_checks;
        inner.expanding = self.expanding.iter().copied().chain([view.oid]).collect();
        inner.tables = self.tables.as_ref().map(|t| TableCx {
            search_path: std::borrow::Cow::Borrowed(&def.search_path),
            // The view's tables are read with its owner's privileges.
            check_as: Some(view.owner),
            transitions: &[],
            ..t.clone()
        });
        let plan = inner.plan_query(&node)?;
        if let Some(e) = inner.deferred.take() {
            self.deferred.get_or_insert(e);
        }
        let live: Vec<(usize, &ColumnDef)> = view.live_columns().collect();
        if plan.columns.len() < live.len() {
            return Err(PgError::new(
                code::FEATURE_NOT_SUPPORTED,
                format!(
                    "view \"{}\" no longer matches the tables it reads",
                    view.name.name
                ),
            ));
        }
        let columns: Vec<Column> = live
            .iter()
            .zip(plan.columns.iter())
            .map(|((i, c), pc)| Column {
                name: c.name.clone(),
                ty: pc.ty,
                typmod: pc.typmod,
                origin: Some((view.oid, *i as i16 + 1)),
            })
            .collect();
        let exprs = (0..columns.len()).map(Expr::Column).collect();
        Ok(Plan {
            columns,
            node: super::Node::Project {
                input: Box::new(plan),
                exprs,
            },
        })
    }
}

/// PostgreSQL's error for a default or generation expression whose type no assignment cast
/// takes to the column's.
pub fn default_type_error(column: &str, to: Type, from: Type) -> PgError {
    use crate::sql::types::cast::format_type_with_typmod;
    PgError::new(
        code::DATATYPE_MISMATCH,
        format!(
            "column \"{column}\" is of type {} but default expression is of type {}",
            format_type_with_typmod(to, -1),
            format_type_with_typmod(from, -1)
        ),
    )
    .with_hint("You will need to rewrite or cast the expression.")
}
