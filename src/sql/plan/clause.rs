//! The clauses of a simple SELECT that filter and order rows (PostgreSQL's parse_clause.c):
//! WHERE, HAVING, ORDER BY (an output column's name or position, or an expression over the
//! input added to the projection as a hidden column) and DISTINCT ON, and `sort_key`, a sort
//! key from a SortBy node's direction and NULLS placement.

use pg_query::protobuf::{self, node::Node as N};

use super::agg::AggCtx;
use super::expr::same_expr;
use super::nodes::{Column, Plan, SortKey};
use super::scope::Scope;
use super::{loc, str_of, Planner};
use crate::error::{code, PgError, PgResult};
use crate::sql::plan::Expr;

impl Planner<'_> {
    /// WHERE: a Filter over the FROM rows (an index scan where one applies); the condition is
    /// returned too, for FOR UPDATE's re-check.
    pub(super) fn plan_where(
        &mut self,
        s: &protobuf::SelectStmt,
        mut plan: Plan,
        scope: &Scope,
    ) -> PgResult<(Plan, Option<Expr>)> {
        let mut recheck = None;
        if let Some(w) = s.where_clause.as_ref().and_then(|n| n.node.as_ref()) {
            self.state.clause = Some("WHERE");
            let (e, t) = self.bind(w, scope, None)?;
            self.state.clause = None;
            let pred = self.coerce_bool(e, t, "WHERE", w)?;
            recheck = Some(pred.clone());
            plan = self.filtered_scan(plan, pred);
        }
        Ok((plan, recheck))
    }

    /// HAVING, over the groups (window calls are not allowed in it).
    pub(super) fn bind_having(
        &mut self,
        s: &protobuf::SelectStmt,
        scope: &Scope,
        agg_ctx: &mut Option<AggCtx>,
    ) -> PgResult<Option<Expr>> {
        let mut having = None;
        if let Some(h) = s.having_clause.as_ref().and_then(|n| n.node.as_ref()) {
            let win = self.state.win.take();
            self.state.clause = Some("HAVING");
            let r = self.bind(h, scope, agg_ctx.as_mut());
            self.state.clause = None;
            self.state.win = win;
            let (e, t) = r?;
            having = Some(self.coerce_bool(e, t, "HAVING", h)?);
        }
        Ok(having)
    }

    /// ORDER BY: output column names/positions first, then expressions over the input, which
    /// join the projection as hidden columns.
    pub(super) fn bind_order_by(
        &mut self,
        s: &protobuf::SelectStmt,
        scope: &Scope,
        agg_ctx: &mut Option<AggCtx>,
        exprs: &mut Vec<Expr>,
        columns: &mut Vec<Column>,
        visible: usize,
    ) -> PgResult<Vec<SortKey>> {
        let mut sort_keys = Vec::new();
        for sb in &s.sort_clause {
            let Some(N::SortBy(sb)) = &sb.node else {
                continue;
            };
            let Some(n) = sb.node.as_ref().and_then(|n| n.node.as_ref()) else {
                continue;
            };
            let idx = match n {
                N::AConst(c) => match &c.val {
                    Some(protobuf::a_const::Val::Ival(i)) => {
                        let i = i.ival;
                        if i < 1 || i as usize > visible {
                            return Err(PgError::new(
                                code::INVALID_COLUMN_REFERENCE,
                                format!("ORDER BY position {i} is not in select list"),
                            )
                            .at(loc(c.location)));
                        }
                        Some(i as usize - 1)
                    }
                    _ => None,
                },
                N::ColumnRef(cr) if cr.fields.len() == 1 => {
                    let name = str_of(&cr.fields[0]).unwrap_or("");
                    let matches: Vec<usize> = columns[..visible]
                        .iter()
                        .enumerate()
                        .filter(|(_, c)| c.name == name)
                        .map(|(i, _)| i)
                        .collect();
                    if matches.len() > 1
                        && !matches
                            .iter()
                            .all(|&m| same_expr(&exprs[m], &exprs[matches[0]]))
                    {
                        return Err(PgError::new(
                            code::AMBIGUOUS_COLUMN,
                            format!("ORDER BY \"{name}\" is ambiguous"),
                        )
                        .at(loc(cr.location)));
                    }
                    matches.first().copied()
                }
                _ => None,
            };
            let idx = match idx {
                Some(i) => i,
                None => {
                    let (e, t) = self.bind(n, scope, agg_ctx.as_mut())?;
                    match exprs.iter().position(|x| same_expr(x, &e)) {
                        Some(p) => p,
                        None => {
                            if !s.distinct_clause.is_empty() {
                                return Err(PgError::new(
                                    code::INVALID_COLUMN_REFERENCE,
                                    "for SELECT DISTINCT, ORDER BY expressions must appear in select list",
                                )
                                .at(loc(sb.location)));
                            }
                            exprs.push(e);
                            columns.push(Column {
                                name: "?sort?".into(),
                                ty: t,
                                typmod: -1,
                                origin: None,
                            });
                            exprs.len() - 1
                        }
                    }
                }
            };
            // The geometric types have no btree operator class: nothing orders them.
            let ty = columns[idx].ty.base_type();
            if ty.category() == 'G' && sb.use_op.is_empty() {
                return Err(PgError::new(
                    code::UNDEFINED_FUNCTION,
                    format!(
                        "could not identify an ordering operator for type {}",
                        ty.name()
                    ),
                )
                .with_hint("Use an explicit ordering operator or modify the query.")
                .at(loc(super::names::node_location(n))));
            }
            sort_keys.push(sort_key(Expr::Column(idx), sb));
        }
        Ok(sort_keys)
    }

    /// DISTINCT ON expressions: output columns, or hidden columns added to the projection.
    pub(super) fn bind_distinct_on(
        &mut self,
        s: &protobuf::SelectStmt,
        scope: &Scope,
        agg_ctx: &mut Option<AggCtx>,
        exprs: &mut Vec<Expr>,
        columns: &mut Vec<Column>,
        visible: usize,
    ) -> PgResult<Option<Vec<Expr>>> {
        let mut distinct_on = None;
        if !s.distinct_clause.is_empty() && s.distinct_clause.iter().any(|d| d.node.is_some()) {
            let mut keys = Vec::new();
            for d in &s.distinct_clause {
                let Some(n) = d.node.as_ref() else { continue };
                let idx = match n {
                    N::AConst(c) => match &c.val {
                        Some(protobuf::a_const::Val::Ival(i)) => Some(i.ival as usize - 1),
                        _ => None,
                    },
                    N::ColumnRef(cr) if cr.fields.len() == 1 => {
                        let name = str_of(&cr.fields[0]).unwrap_or("");
                        columns[..visible].iter().position(|c| c.name == name)
                    }
                    _ => None,
                };
                let idx = match idx {
                    Some(i) => i,
                    None => {
                        let (e, t) = self.bind(n, scope, agg_ctx.as_mut())?;
                        match exprs.iter().position(|x| same_expr(x, &e)) {
                            Some(p) => p,
                            None => {
                                exprs.push(e);
                                columns.push(Column {
                                    name: "?distinct?".into(),
                                    ty: t,
                                    typmod: -1,
                                    origin: None,
                                });
                                exprs.len() - 1
                            }
                        }
                    }
                };
                keys.push(Expr::Column(idx));
            }
            distinct_on = Some(keys);
        }
        Ok(distinct_on)
    }
}

pub(super) fn sort_key(expr: Expr, sb: &protobuf::SortBy) -> SortKey {
    let desc = sb.sortby_dir == protobuf::SortByDir::SortbyDesc as i32;
    let nulls_first = match sb.sortby_nulls {
        x if x == protobuf::SortByNulls::SortbyNullsFirst as i32 => true,
        x if x == protobuf::SortByNulls::SortbyNullsLast as i32 => false,
        // NULLs sort as larger than everything: last ascending, first descending.
        _ => desc,
    };
    SortKey {
        expr,
        desc,
        nulls_first,
    }
}
