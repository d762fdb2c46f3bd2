//! The select list (PostgreSQL's parse_target.c): `*` and `t.*` expanded to the columns in
//! scope, set-returning functions in it planned as a ProjectSet below the projection, and each
//! target bound to an expression and an output column — its name, its type (unknown resolves to
//! text, except in a set operation's leaf), its typmod and the table column it comes from, as
//! RowDescription reports them.

use std::collections::HashMap;

use pg_query::protobuf::{self, node::Node as N};

use super::agg::AggCtx;
use super::expr::same_expr;
use super::names::{column_name_of, node_location};
use super::nodes::{Column, Node, Plan};
use super::scope::{Scope, ScopeCol};
use super::{loc, names_of, str_of, Planner};
use crate::error::{code, PgError, PgResult};
use crate::sql::plan::Expr;
use crate::sql::privs;
use crate::sql::types::Type;

/// The select list of a SELECT, `*` expanded.
pub(super) struct Targets<'s> {
    /// Output name, expression and location of each target.
    pub(super) list: Vec<(String, &'s protobuf::Node, i32)>,
    /// The targets a `*` expanded to: the scope column of each.
    pub(super) star: HashMap<usize, usize>,
    /// The targets that call set-returning functions: the ProjectSet column holding the
    /// call's value, and its type.
    pub(super) srf: HashMap<usize, (usize, Type)>,
}

impl Planner<'_> {
    /// The select list, `*` expanded to the columns in scope.
    pub(super) fn expand_targets<'s>(
        &self,
        s: &'s protobuf::SelectStmt,
        scope: &Scope,
    ) -> PgResult<Targets<'s>> {
        let mut targets: Vec<(String, &protobuf::Node, i32)> = Vec::new();
        let mut star_cols: Vec<(usize, Option<usize>)> = Vec::new(); // (target idx, scope col)
        for t in &s.target_list {
            let Some(N::ResTarget(rt)) = &t.node else {
                continue;
            };
            let Some(val) = rt.val.as_ref() else { continue };
            if let Some(N::ColumnRef(cr)) = &val.node {
                let is_star = cr
                    .fields
                    .last()
                    .is_some_and(|f| matches!(f.node, Some(N::AStar(_))));
                if is_star {
                    let rel = if cr.fields.len() > 1 {
                        str_of(&cr.fields[0]).map(str::to_string)
                    } else {
                        None
                    };
                    let mut found = false;
                    for (i, c) in scope.cols.iter().enumerate() {
                        if c.hidden || (rel.is_none() && c.qualified_only) {
                            continue;
                        }
                        if rel.as_ref().is_none_or(|r| *r == c.rel) {
                            if let Some(cx) = &self.tables {
                                cx.mark(c.origin, privs::ColUse::Select);
                            }
                            star_cols.push((targets.len(), Some(i)));
                            targets.push((c.name.clone(), val, cr.location));
                            found = true;
                        }
                    }
                    if !found {
                        if let Some(r) = rel {
                            return Err(PgError::new(
                                code::UNDEFINED_TABLE,
                                format!("missing FROM-clause entry for table \"{r}\""),
                            )
                            .at(loc(cr.location)));
                        }
                        if s.from_clause.is_empty() {
                            return Err(PgError::syntax(
                                "SELECT * with no tables specified is not valid",
                            )
                            .at(loc(cr.location)));
                        }
                    }
                    continue;
                }
            }
            let name = if !rt.name.is_empty() {
                rt.name.clone()
            } else {
                column_name_of(val)
            };
            targets.push((name, val, rt.location));
        }
        let star_map: HashMap<usize, usize> = star_cols
            .into_iter()
            .filter_map(|(t, c)| c.map(|c| (t, c)))
            .collect();
        Ok(Targets {
            list: targets,
            star: star_map,
            srf: HashMap::new(),
        })
    }

    /// Set-returning functions in the select list become a ProjectSet below the projection;
    /// `targets.srf` records the column of each one's value.
    pub(super) fn plan_target_srfs(
        &mut self,
        targets: &mut Targets<'_>,
        mut plan: Plan,
        mut scope: Scope,
    ) -> PgResult<(Plan, Scope)> {
        let Targets {
            list: targets,
            star: star_map,
            srf: srf_targets,
        } = targets;
        let mut srfs = Vec::new();
        for (i, (_, node, _)) in targets.iter().enumerate() {
            if star_map.contains_key(&i) {
                continue;
            }
            if let Some(N::FuncCall(fc)) = &node.node {
                if let Some(call) = self.bind_srf(fc, &scope)? {
                    srf_targets.insert(i, (scope.cols.len() + srfs.len(), call.out));
                    srfs.push(call);
                }
            }
        }
        if !srfs.is_empty() {
            let mut columns = plan.columns.clone();
            for (k, c) in srfs.iter().enumerate() {
                columns.push(Column {
                    name: format!("?srf{k}?"),
                    ty: c.out,
                    typmod: -1,
                    origin: None,
                });
                scope.cols.push(ScopeCol {
                    rel: "?srf?".into(),
                    name: format!("?srf{k}?"),
                    ty: c.out,
                    typmod: -1,
                    origin: None,
                    hidden: false,
                    qualified_only: false,
                    table: None,
                });
            }
            plan = Plan {
                node: Node::ProjectSet {
                    input: Box::new(plan),
                    srfs,
                },
                columns,
            };
        }
        Ok((plan, scope))
    }

    /// Binds the select list (against the input scope or the aggregation context): the
    /// projection's expressions and output columns.
    pub(super) fn bind_targets(
        &mut self,
        targets: &Targets<'_>,
        scope: &Scope,
        agg_ctx: &mut Option<AggCtx>,
        keep_unknown: bool,
        report_row_types: bool,
    ) -> PgResult<(Vec<Expr>, Vec<Column>)> {
        let Targets {
            list: targets,
            star: star_map,
            srf: srf_targets,
        } = targets;
        let mut exprs = Vec::new();
        let mut columns = Vec::new();
        for (i, (name, node, location)) in targets.iter().enumerate() {
            let (e, t, typmod) = if let Some((ci, ty)) = srf_targets.get(&i) {
                if agg_ctx.is_some() {
                    return Err(PgError::feature_not_supported(
                        "set-returning functions together with aggregates are not supported yet",
                    ));
                }
                (Expr::Column(*ci), *ty, -1)
            } else if let Some(ci) = star_map.get(&i) {
                let c = &scope.cols[*ci];
                let e = match agg_ctx.as_mut() {
                    Some(ctx) => {
                        let col = Expr::Column(*ci);
                        let key = ctx.group.iter().position(|g| same_expr(g, &col));
                        match key.map(Expr::Column).or_else(|| ctx.dependent_column(*ci)) {
                            Some(e) => e,
                            None => {
                                return Err(PgError::new(
                                    code::GROUPING_ERROR,
                                    format!("column \"{}.{}\" must appear in the GROUP BY clause or be used in an aggregate function", c.rel, c.name),
                                )
                                .at(loc(*location)))
                            }
                        }
                    }
                    None => Expr::Column(*ci),
                };
                (e, c.ty, c.typmod)
            } else {
                let n = node.node.as_ref().expect("target");
                let (e, t) = self.bind(n, scope, agg_ctx.as_mut())?;
                let typmod = self.typmod_of_node(n);
                (e, t, typmod)
            };
            // `SELECT t FROM t`: the table's row type, as PostgreSQL reports it.
            // (its origin is the table, column 0, as PostgreSQL reports a whole-row Var).
            let mut whole_row_origin = None;
            let t = match (&e, &node.node) {
                (Expr::Row(_), Some(N::ColumnRef(cr))) if report_row_types => {
                    let fields = names_of(&cr.fields);
                    match self.table_row_type(scope, &fields) {
                        Some(rt) => {
                            whole_row_origin = scope
                                .cols
                                .iter()
                                .find(|c| !c.hidden && fields.first() == Some(&c.rel))
                                .and_then(|c| c.origin)
                                .map(|(rel, _)| (rel, 0));
                            rt
                        }
                        None => t,
                    }
                }
                _ => t,
            };
            // Unknown-typed targets resolve to text (a parameter in the target list too).
            if let Expr::Param(p) = &e {
                if self.params[*p] == Type::UNKNOWN {
                    self.params[*p] = Type::TEXT;
                }
            }
            let t = if t == Type::UNKNOWN && !keep_unknown {
                Type::TEXT
            } else {
                t
            };
            // A plain column reference reports where the column comes from (through grouping
            // too, as PostgreSQL does).
            let origin = match (&e, agg_ctx.as_ref()) {
                _ if whole_row_origin.is_some() => whole_row_origin,
                (Expr::Column(ci), None) => scope.cols.get(*ci).and_then(|c| c.origin),
                (Expr::Outer(depth, ci), _) => depth
                    .checked_sub(1)
                    .and_then(|d| self.outer.iter().rev().nth(d))
                    .and_then(|sc| sc.cols.get(*ci))
                    .and_then(|c| c.origin),
                // A system column grouped by is still the table's.
                (Expr::Column(p), Some(ctx)) => match ctx.group.get(*p) {
                    Some(Expr::System(_, s)) => Some((s.rel.oid, s.kind.attnum())),
                    _ => ctx
                        .source_column(*p)
                        .and_then(|ci| ctx.input.cols.get(ci))
                        .and_then(|c| c.origin),
                },
                (Expr::System(_, s), _) => Some((s.rel.oid, s.kind.attnum())),
                _ => super::scope::table_oid_origin(node, &e),
            };
            // A column reference has its column's typmod (char(5) is 9 in RowDescription).
            let column_ref = matches!(node.node, Some(N::ColumnRef(_)));
            let typmod = if typmod >= 0 || !column_ref {
                typmod
            } else {
                let col = match (&e, agg_ctx.as_ref()) {
                    (Expr::Column(ci), None) => scope.cols.get(*ci),
                    (Expr::Outer(depth, ci), _) => depth
                        .checked_sub(1)
                        .and_then(|d| self.outer.iter().rev().nth(d))
                        .and_then(|sc| sc.cols.get(*ci)),
                    (Expr::Column(p), Some(ctx)) => {
                        ctx.source_column(*p).and_then(|ci| ctx.input.cols.get(ci))
                    }
                    _ => None,
                };
                col.filter(|c| c.ty == t).map_or(-1, |c| c.typmod)
            };
            exprs.push(e);
            columns.push(Column {
                name: name.clone(),
                ty: t,
                typmod,
                origin,
            });
        }
        if keep_unknown {
            self.state.target_locs = targets
                .iter()
                .map(|(_, n, l)| match n.node.as_ref().map(node_location) {
                    Some(x) if x >= 0 => x,
                    _ => *l,
                })
                .collect();
        }
        Ok((exprs, columns))
    }

    fn typmod_of_node(&self, n: &N) -> i32 {
        match n {
            N::TypeCast(tc) => {
                if let Some(tn) = &tc.type_name {
                    if let Ok((t, m)) = self.resolve_type_name(tn) {
                        // A domain's value carries its base type's typmod.
                        return if t.base_type() != t { t.base().1 } else { m };
                    }
                }
                -1
            }
            // An array of elements that share a typmod has it too.
            N::AArrayExpr(a) => {
                let mods: Vec<i32> = a
                    .elements
                    .iter()
                    .map(|e| e.node.as_ref().map_or(-1, |n| self.typmod_of_node(n)))
                    .collect();
                match mods.first() {
                    Some(&m) if mods.iter().all(|x| *x == m) => m,
                    _ => -1,
                }
            }
            // CURRENT_TIME(p), CURRENT_TIMESTAMP(p), LOCALTIME(p), LOCALTIMESTAMP(p).
            N::SqlvalueFunction(f) if f.typmod >= 0 => f.typmod,
            // A field selection has its field's typmod (`plan/composite.rs`).
            N::AIndirection(ind) => {
                let fields = ind
                    .indirection
                    .iter()
                    .take_while(|i| matches!(i.node, Some(N::String(_))))
                    .count();
                if fields == ind.indirection.len() && fields > 0 {
                    self.state
                        .field_typmods
                        .get(&(ind.indirection[..fields].as_ptr() as usize))
                        .copied()
                        .unwrap_or(-1)
                } else {
                    -1
                }
            }
            _ => -1,
        }
    }
}
