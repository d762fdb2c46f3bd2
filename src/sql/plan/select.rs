//! The shape of a SELECT (PostgreSQL's analyze.c): a set operation (UNION / INTERSECT / EXCEPT,
//! its sides' columns brought to common types), VALUES, or a simple SELECT, whose clauses are
//! planned in the order of the pipeline in plan.rs's header: FROM, WHERE, the select list,
//! GROUP BY and aggregates, HAVING, window functions, ORDER BY, DISTINCT, FOR UPDATE, LIMIT and
//! OFFSET. Each clause's binding is in its own file (from.rs, clause.rs, target.rs, agg.rs,
//! window.rs); this file puts the nodes together.

use pg_query::protobuf::{self, node::Node as N};

use super::agg::plan_aggregate;
use super::clause::sort_key;
use super::coerce::common_type;
use super::nodes::{Column, Node, Plan, SetOpKind};
use super::scope::{Scope, ScopeCol};
use super::window::WinCtx;
use super::{index_path, join, loc, lock_rows, Planner};
use crate::error::{code, PgError, PgResult};
use crate::sql::plan::Expr;
use crate::sql::types::cast::CoercionContext;
use crate::sql::types::{io, Type, Value};

/// The rows to lock of a SELECT ... FOR UPDATE: the tables, where the FROM row starts among
/// the projection's columns, the visible expressions, and the conditions to re-check.
type LockPlan = (Vec<lock_rows::LockTarget>, usize, Vec<Expr>, Option<Expr>);

impl Planner<'_> {
    pub(super) fn plan_select_body(&mut self, s: &protobuf::SelectStmt) -> PgResult<Plan> {
        if s.into_clause.is_some() {
            return Err(PgError::feature_not_supported(
                "SELECT INTO is not supported yet",
            ));
        }
        let op = s.op;
        // Only a plain top SELECT reports table row types (not a set operation's sides).
        let report_row_types = std::mem::take(&mut self.state.report_row_types);
        let mut plan = if op != protobuf::SetOperation::SetopNone as i32 && op != 0 {
            let l = s
                .larg
                .as_ref()
                .ok_or_else(|| PgError::internal("set operation without left side"))?;
            let r = s
                .rarg
                .as_ref()
                .ok_or_else(|| PgError::internal("set operation without right side"))?;
            self.state.keep_unknown = true;
            let left = self.plan_select(l);
            let left_locs = std::mem::take(&mut self.state.target_locs);
            let left = left?;
            self.state.keep_unknown = true;
            let right = self.plan_select(r);
            let right_locs = std::mem::take(&mut self.state.target_locs);
            let right = right?;
            lock_rows::check_set_operation(s)?;
            let kind = match op {
                x if x == protobuf::SetOperation::SetopUnion as i32 => SetOpKind::Union,
                x if x == protobuf::SetOperation::SetopIntersect as i32 => SetOpKind::Intersect,
                _ => SetOpKind::Except,
            };
            self.plan_setop(kind, s.all, (left, left_locs), (right, right_locs))?
        } else if !s.values_lists.is_empty() {
            self.plan_values(&s.values_lists)?
        } else {
            self.state.report_row_types = report_row_types;
            return self.plan_simple_select(s);
        };
        // ORDER BY / LIMIT on a set operation or VALUES refer to output columns.
        if !s.sort_clause.is_empty() {
            let scope = Scope {
                cols: plan
                    .columns
                    .iter()
                    .map(|c| ScopeCol {
                        rel: String::new(),
                        name: c.name.clone(),
                        ty: c.ty,
                        typmod: c.typmod,
                        origin: None,
                        hidden: false,
                        qualified_only: false,
                        table: None,
                    })
                    .collect(),
                grouped: None,
            };
            let mut keys = Vec::new();
            for sb in &s.sort_clause {
                let Some(N::SortBy(sb)) = &sb.node else {
                    continue;
                };
                let target = sb.node.as_ref().and_then(|n| n.node.as_ref());
                let expr = match target {
                    Some(N::AConst(c))
                        if matches!(c.val, Some(protobuf::a_const::Val::Ival(_))) =>
                    {
                        let Some(protobuf::a_const::Val::Ival(i)) = &c.val else {
                            unreachable!()
                        };
                        let i = i.ival;
                        if i < 1 || i as usize > plan.columns.len() {
                            return Err(PgError::new(
                                code::INVALID_COLUMN_REFERENCE,
                                format!("ORDER BY position {i} is not in select list"),
                            )
                            .at(loc(c.location)));
                        }
                        Expr::Column(i as usize - 1)
                    }
                    Some(n) => self.bind(n, &scope, None)?.0,
                    None => continue,
                };
                keys.push(sort_key(expr, sb));
            }
            plan = Plan {
                columns: plan.columns.clone(),
                node: Node::Sort {
                    input: Box::new(plan),
                    keys,
                },
            };
        }
        self.plan_limit(s, plan)
    }

    fn plan_limit(&mut self, s: &protobuf::SelectStmt, plan: Plan) -> PgResult<Plan> {
        if s.limit_count.is_none() && s.limit_offset.is_none() {
            return Ok(plan);
        }
        let empty = Scope::default();
        let mut bound = |n: &Option<Box<protobuf::Node>>| -> PgResult<Option<Expr>> {
            match n.as_ref().and_then(|n| n.node.as_ref()) {
                None => Ok(None),
                Some(N::AConst(c)) if c.isnull => Ok(None),
                Some(node) => {
                    let (e, t) = self.bind(node, &empty, None)?;
                    Ok(Some(self.coerce(
                        e,
                        t,
                        Type::INT8,
                        -1,
                        CoercionContext::Implicit,
                        -1,
                    )?))
                }
            }
        };
        let count = bound(&s.limit_count)?;
        let offset = bound(&s.limit_offset)?;
        Ok(Plan {
            columns: plan.columns.clone(),
            node: Node::Limit {
                input: Box::new(plan),
                offset,
                count,
            },
        })
    }

    fn plan_values(&mut self, lists: &[protobuf::Node]) -> PgResult<Plan> {
        let empty = Scope::default();
        let mut rows: Vec<Vec<(Expr, Type)>> = Vec::new();
        let mut width = None;
        for l in lists {
            let Some(N::List(items)) = &l.node else {
                continue;
            };
            let mut row = Vec::new();
            for item in &items.items {
                let n = item
                    .node
                    .as_ref()
                    .ok_or_else(|| PgError::syntax("empty VALUES item"))?;
                row.push(self.bind(n, &empty, None)?);
            }
            if let Some(w) = width {
                if w != row.len() {
                    return Err(PgError::syntax("VALUES lists must all be the same length"));
                }
            }
            width = Some(row.len());
            rows.push(row);
        }
        let width = width.unwrap_or(0);
        let mut columns = Vec::new();
        for c in 0..width {
            let types: Vec<Type> = rows.iter().map(|r| r[c].1).collect();
            let ty = common_type(&types, "VALUES", -1)?;
            columns.push(Column {
                name: format!("column{}", c + 1),
                ty,
                typmod: -1,
                origin: None,
            });
        }
        let mut out = Vec::new();
        for row in rows {
            let mut r = Vec::new();
            for (c, (e, t)) in row.into_iter().enumerate() {
                r.push(self.coerce(e, t, columns[c].ty, -1, CoercionContext::Implicit, -1)?);
            }
            out.push(r);
        }
        Ok(Plan {
            node: Node::Values(out),
            columns,
        })
    }

    fn plan_setop(
        &mut self,
        op: SetOpKind,
        all: bool,
        (left, left_locs): (Plan, Vec<i32>),
        (right, right_locs): (Plan, Vec<i32>),
    ) -> PgResult<Plan> {
        let word = match op {
            SetOpKind::Union => "UNION",
            SetOpKind::Intersect => "INTERSECT",
            SetOpKind::Except => "EXCEPT",
        };
        if left.columns.len() != right.columns.len() {
            return Err(PgError::syntax(format!(
                "each {word} query must have the same number of columns"
            ))
            .at(loc(right_locs.first().copied().unwrap_or(-1))));
        }
        let mut columns = Vec::new();
        let mut lexprs = Vec::new();
        let mut rexprs = Vec::new();
        let mut lcast = false;
        let mut rcast = false;
        for (i, (l, r)) in left.columns.iter().zip(&right.columns).enumerate() {
            let at = |locs: &Vec<i32>| locs.get(i).copied().unwrap_or(-1);
            let ty = common_type(&[l.ty, r.ty], word, at(&right_locs))?;
            // Unknown literals of a leaf are converted where they stand, so that bad input is
            // an error at plan time pointing at the literal.
            for (side, c, locs) in [(&left, l, &left_locs), (&right, r, &right_locs)] {
                if c.ty == Type::UNKNOWN {
                    if let Some(Expr::Const(Value::Text(s))) = output_expr(side, i) {
                        io::from_text(s, ty, -1, self.fmt).map_err(|e| e.at(loc(at(locs))))?;
                    }
                }
            }
            columns.push(Column {
                name: l.name.clone(),
                ty,
                typmod: if l.ty == r.ty && l.typmod == r.typmod {
                    l.typmod
                } else {
                    -1
                },
                origin: None,
            });
            lcast |= l.ty != ty;
            rcast |= r.ty != ty;
            lexprs.push(self.coerce(
                Expr::Column(i),
                l.ty,
                ty,
                -1,
                CoercionContext::Implicit,
                -1,
            )?);
            rexprs.push(self.coerce(
                Expr::Column(i),
                r.ty,
                ty,
                -1,
                CoercionContext::Implicit,
                -1,
            )?);
        }
        let wrap = |p: Plan, exprs: Vec<Expr>, needed: bool, columns: &Vec<Column>| {
            if needed {
                Plan {
                    node: Node::Project {
                        input: Box::new(p),
                        exprs,
                    },
                    columns: columns.clone(),
                }
            } else {
                p
            }
        };
        let left = wrap(left, lexprs, lcast, &columns);
        let right = wrap(right, rexprs, rcast, &columns);
        Ok(Plan {
            node: Node::SetOp {
                op,
                all,
                left: Box::new(left),
                right: Box::new(right),
            },
            columns,
        })
    }

    fn plan_simple_select(&mut self, s: &protobuf::SelectStmt) -> PgResult<Plan> {
        // A subquery has its own clauses and window calls.
        let win = self.state.win.take();
        let clause = self.state.clause.take();
        let in_window = std::mem::take(&mut self.state.in_window);
        let lock = self.state.lock.take();
        let r = self.plan_simple_select_inner(s);
        self.state.lock = lock;
        self.state.win = win;
        self.state.clause = clause;
        self.state.in_window = in_window;
        r
    }

    fn plan_simple_select_inner(&mut self, s: &protobuf::SelectStmt) -> PgResult<Plan> {
        let keep_unknown = std::mem::take(&mut self.state.keep_unknown);
        let report_row_types = std::mem::take(&mut self.state.report_row_types);
        // FOR UPDATE / SHARE: the scans of the locked tables carry each row's slot.
        self.state.lock = lock_rows::FromLocks::parse(s);
        // FROM
        let (mut plan, scope) = self.plan_from_list(s)?;
        let lock = self.state.lock.take().map(|l| l.found(&plan));
        let from_columns = plan.columns.clone();
        // WHERE
        let recheck;
        (plan, recheck) = self.plan_where(s, plan, &scope)?;
        plan = join::optimize(plan, self.methods());
        // Targets (with * expansion; `(row).*` first becomes one target per field)
        let expanded = self.expand_field_stars(s, &scope)?;
        let s = expanded.as_ref().unwrap_or(s);
        let mut targets = self.expand_targets(s, &scope)?;

        // Set-returning functions in the select list become a ProjectSet below the projection.
        let (mut plan, scope) = self.plan_target_srfs(&mut targets, plan, scope)?;

        // Aggregation?
        let has_aggs = !s.group_clause.is_empty()
            || s.having_clause.is_some()
            || targets.list.iter().any(|(_, n, _)| {
                n.node
                    .as_ref()
                    .is_some_and(|n| self.contains_any_aggregate(n))
            })
            || s.sort_clause.iter().any(|n| {
                n.node
                    .as_ref()
                    .is_some_and(|n| self.contains_any_aggregate(n))
            });
        if let Some(pending) = &lock {
            pending.check(&lock_rows::Shape {
                distinct: !s.distinct_clause.is_empty(),
                group: !s.group_clause.is_empty(),
                having: s.having_clause.is_some(),
                aggregates: has_aggs,
                srfs: !targets.srf.is_empty(),
                ..Default::default()
            })?;
        }
        let mut agg_ctx = if has_aggs {
            Some(self.group_by_context(s, &targets.list, &scope, &plan)?)
        } else {
            None
        };

        // Window calls may appear in the target list and ORDER BY.
        let named_windows = s
            .window_clause
            .iter()
            .filter_map(|w| match &w.node {
                Some(N::WindowDef(d)) => Some((**d).clone()),
                _ => None,
            })
            .collect();
        self.state.win = Some(WinCtx {
            named: named_windows,
            ..Default::default()
        });

        // Bind targets (against the input scope or the aggregation context).
        let (mut exprs, mut columns) = self.bind_targets(
            &targets,
            &scope,
            &mut agg_ctx,
            keep_unknown,
            report_row_types,
        )?;
        let visible = exprs.len();

        // HAVING
        let having = self.bind_having(s, &scope, &mut agg_ctx)?;

        // ORDER BY: output column names/positions first, then expressions over the input.
        let sort_keys =
            self.bind_order_by(s, &scope, &mut agg_ctx, &mut exprs, &mut columns, visible)?;

        // DISTINCT ON expressions.
        let distinct_on =
            self.bind_distinct_on(s, &scope, &mut agg_ctx, &mut exprs, &mut columns, visible)?;

        if let Some(ctx) = agg_ctx {
            plan = plan_aggregate(plan, ctx, having);
        }

        // Window functions run over the (grouped) rows, before DISTINCT, ORDER BY and LIMIT.
        let has_windows;
        (plan, has_windows) = self.plan_windows(plan, &mut exprs);

        // FOR UPDATE: the FROM row rides along, hidden, for LockRows's re-check.
        let lock = match lock {
            Some(pending) => Some(self.finish_lock(
                pending,
                has_windows,
                recheck,
                &mut exprs,
                &mut columns,
                &from_columns,
            )?),
            None => None,
        };
        let total = exprs.len();
        plan = Plan {
            node: Node::Project {
                input: Box::new(plan),
                exprs,
            },
            columns: columns.clone(),
        };

        if distinct_on.is_some() || !s.distinct_clause.is_empty() {
            // DISTINCT ON keeps the first row of each group in ORDER BY order: sort first.
            if distinct_on.is_some() && !sort_keys.is_empty() {
                plan = Plan {
                    columns: plan.columns.clone(),
                    node: Node::Sort {
                        input: Box::new(plan),
                        keys: sort_keys.clone(),
                    },
                };
            }
            plan = Plan {
                columns: plan.columns.clone(),
                node: Node::Distinct {
                    input: Box::new(plan),
                    on: distinct_on.clone(),
                    width: visible,
                },
            };
        }
        if !sort_keys.is_empty() {
            plan = index_path::use_index_order(Plan {
                columns: plan.columns.clone(),
                node: Node::Sort {
                    input: Box::new(plan),
                    keys: sort_keys,
                },
            });
        }
        if let Some((targets, from, kept, recheck)) = lock {
            plan = lock_rows::lock_rows(plan, targets, from, kept, recheck);
        }
        plan = self.plan_limit(s, plan)?;
        if total > visible {
            columns.truncate(visible);
            plan = Plan {
                node: Node::Project {
                    input: Box::new(plan),
                    exprs: (0..visible).map(Expr::Column).collect(),
                },
                columns,
            };
        }
        Ok(plan)
    }

    /// FOR UPDATE: the FROM row rides along, hidden, for LockRows's re-check; the locked
    /// tables are opened in ROW SHARE mode and need UPDATE privilege.
    fn finish_lock(
        &mut self,
        pending: lock_rows::Pending,
        has_windows: bool,
        recheck: Option<Expr>,
        exprs: &mut Vec<Expr>,
        columns: &mut Vec<Column>,
        from_columns: &[Column],
    ) -> PgResult<LockPlan> {
        pending.check(&lock_rows::Shape {
            windows: has_windows,
            ..Default::default()
        })?;
        let (targets, on, late) = pending.finish()?;
        if let Some(e) = late {
            self.fold(Err(e))?;
        }
        let from = exprs.len();
        let kept = exprs.clone();
        exprs.extend((0..from_columns.len()).map(Expr::Column));
        columns.extend(from_columns.iter().cloned());
        let mut conds: Vec<Expr> = recheck.into_iter().chain(on).collect();
        let recheck = match conds.len() {
            0 => None,
            1 => conds.pop(),
            _ => Some(Expr::And(conds)),
        };
        if let Some(cx) = &self.tables {
            // A locked table is opened in ROW SHARE mode instead of ACCESS SHARE.
            use crate::txn::lock::LockMode as M;
            for t in &targets {
                cx.locks
                    .borrow_mut()
                    .retain(|l| *l != (t.rel.oid, M::AccessShare));
                cx.note_lock(t.rel.oid, M::RowShare);
                // PostgreSQL 15's ACL_SELECT_FOR_UPDATE is UPDATE.
                cx.require(
                    &t.rel,
                    crate::catalog::acl::SELECT | crate::catalog::acl::UPDATE,
                );
            }
        }
        Ok((targets, from, kept, recheck))
    }
}

/// The expression that computes output column `i` of a plan, looking through the nodes that
/// pass columns on unchanged.
pub(super) fn output_expr(p: &Plan, i: usize) -> Option<&Expr> {
    match &p.node {
        Node::Project { input, exprs } => match exprs.get(i)? {
            Expr::Column(j) => output_expr(input, *j),
            e => Some(e),
        },
        Node::Sort { input, .. } | Node::Limit { input, .. } | Node::Distinct { input, .. } => {
            output_expr(input, i)
        }
        Node::Filter { input, .. } | Node::LockRows { input, .. } => output_expr(input, i),
        _ => None,
    }
}
