//! Aggregates in a query (PostgreSQL's parse_agg.c and the GROUP BY part of parse_clause.c):
//! GROUP BY and grouping sets make the aggregation context (`AggCtx`) that a grouped query's
//! target list, HAVING and ORDER BY are bound in; within it a group key's expression becomes the
//! key's column, an aggregate call (`bind_aggregate`) becomes a column of the Aggregate node
//! computed over the input rows, and any other column reference is a grouping error, unless
//! the GROUP BY holds its table's whole primary key (PostgreSQL's functional dependency:
//! `AggCtx::dependent_column` reads it through a hidden `Dependent` aggregate). The
//! signatures of the built-in aggregates (`agg_signature`) are here; those of the others are in
//! plan/aggregates.rs. `plan_aggregate` makes the Aggregate node, with HAVING over it.

use std::cell::Cell;

use pg_query::protobuf::{self, node::Node as N};

use super::clause::sort_key;
use super::expr::same_expr;
use super::func_call::{not_unique, undefined_function};
use super::names::node_location;
use super::nodes::{AggCall, AggFunc, Column, Node, Plan, SortKey};
use super::scope::{GroupedOuter, Scope, ScopeCol};
use super::{aggregates, grouping_sets, loc, names_of, str_of, PlanState, Planner};
use crate::error::{code, PgError, PgResult};
use crate::sql::plan::Expr;
use crate::sql::types::cast::CoercionContext;
use crate::sql::types::{Type, Value};

/// Aggregation context while binding a grouped query's target list, HAVING and ORDER BY.
pub(super) struct AggCtx {
    pub(super) input: Scope,
    pub(super) group: Vec<Expr>,
    pub(super) group_types: Vec<(Type, i32)>,
    pub(super) aggs: Vec<AggCall>,
    /// GROUP BY ROLLUP / CUBE / GROUPING SETS (plan/grouping_sets.rs).
    pub(super) gsets: Option<grouping_sets::Sets>,
}

impl AggCtx {
    /// The input column that output column `p` of the Aggregate node is: a group key that is
    /// a plain column, or a column read through its functional dependency.
    pub(super) fn source_column(&self, p: usize) -> Option<usize> {
        let e = match p.checked_sub(self.group.len()) {
            None => self.group.get(p)?,
            Some(a) => {
                let call = self.aggs.get(a).filter(|c| c.func == AggFunc::Dependent)?;
                call.args.first()?
            }
        };
        match e {
            Expr::Column(ci) => Some(*ci),
            _ => None,
        }
    }

    /// PostgreSQL's functional dependency (check_functional_grouping): a column of a table
    /// named in FROM at this level whose primary key columns are all plain GROUP BY keys (of
    /// every grouping set) has one value per group, so it may be used ungrouped: it is read
    /// through a hidden aggregate that keeps the group's value. Only primary keys count, not
    /// unique constraints (their columns may be NULL); `ci` is a column of the input.
    pub(super) fn dependent_column(&mut self, ci: usize) -> Option<Expr> {
        if !self.functionally_dependent(ci) {
            return None;
        }
        let i = match self.dependent_at(ci) {
            Some(i) => i,
            None => {
                self.push_dependent(ci);
                self.aggs.len() - 1
            }
        };
        Some(Expr::Column(self.group.len() + i))
    }

    /// A whole row of the input (`SELECT t, count(*) FROM t GROUP BY t.id`) read after the
    /// Aggregate node: each column a GROUP BY key or functionally dependent on one, else
    /// PostgreSQL's error naming `rel.*`. Rows of enclosing queries are left as they are.
    pub(super) fn grouped_row(
        &mut self,
        items: &[Expr],
        rel: &str,
        location: i32,
    ) -> PgResult<Vec<Expr>> {
        let mut out = Vec::with_capacity(items.len());
        for e in items {
            let Expr::Column(ci) = e else {
                out.push(e.clone());
                continue;
            };
            let key = self.group.iter().position(|g| same_expr(g, e));
            match key.map(Expr::Column).or_else(|| self.dependent_column(*ci)) {
                Some(g) => out.push(g),
                None => {
                    return Err(PgError::new(
                        code::GROUPING_ERROR,
                        format!("column \"{rel}.*\" must appear in the GROUP BY clause or be used in an aggregate function"),
                    )
                    .at(loc(location)))
                }
            }
        }
        Ok(out)
    }

    /// The hidden aggregate that already reads input column `ci` through its dependency.
    fn dependent_at(&self, ci: usize) -> Option<usize> {
        let arg = Expr::Column(ci);
        self.aggs
            .iter()
            .position(|a| a.func == AggFunc::Dependent && same_expr(&a.args[0], &arg))
    }

    fn push_dependent(&mut self, ci: usize) {
        let ty = self.input.cols[ci].ty;
        self.aggs.push(AggCall {
            func: AggFunc::Dependent,
            args: vec![Expr::Column(ci)],
            arg_type: ty,
            result: ty,
            distinct: false,
            filter: None,
            order: Vec::new(),
            user: None,
        });
    }

    /// Whether input column `ci` has one value per group: its table's primary key columns
    /// are all plain GROUP BY keys (of every grouping set).
    fn functionally_dependent(&self, ci: usize) -> bool {
        let cols = &self.input.cols;
        let Some(t) = cols.get(ci).and_then(|c| c.table.as_ref()) else {
            return false;
        };
        let of_item = |k: usize| cols.get(k)?.table.as_ref().filter(|c| c.same_item(t));
        let pk: Vec<usize> = (0..cols.len())
            .filter_map(of_item)
            .filter(|c| c.in_pk)
            .map(|c| c.pos)
            .collect();
        if pk.is_empty() {
            return false;
        }
        // With grouping sets, only the keys common to all of them.
        let common: Vec<usize> = match &self.gsets {
            None => (0..self.group.len()).collect(),
            Some(gs) => (0..self.group.len())
                .filter(|g| gs.sets.iter().all(|s| s.contains(g)))
                .collect(),
        };
        let grouped: Vec<usize> = common
            .iter()
            .filter_map(|&g| match self.group.get(g) {
                Some(Expr::Column(k)) => of_item(*k).map(|c| c.pos),
                _ => None,
            })
            .collect();
        pk.iter().all(|p| grouped.contains(p))
    }

    /// The scope that a subquery of this grouped query sees it by (`GroupedOuter`): the
    /// Aggregate node's output row, then the input columns readable through a functional
    /// dependency (their hidden aggregates are added by `add_read_dependents` if read), then
    /// the ungrouped ones.
    pub(super) fn outer_scope(&self) -> Scope {
        let unnamed = |ty: Type| ScopeCol {
            rel: String::new(),
            name: String::new(),
            ty,
            typmod: -1,
            origin: None,
            hidden: true,
            qualified_only: true,
            table: None,
        };
        let mut placed = vec![false; self.input.cols.len()];
        let mut cols = Vec::new();
        let mut take = |e: Option<&Expr>, ty: Type| match e {
            Some(Expr::Column(ci)) if placed.get(*ci) == Some(&false) => {
                placed[*ci] = true;
                self.input.cols[*ci].clone()
            }
            _ => unnamed(ty),
        };
        for (g, (ty, _)) in self.group.iter().zip(&self.group_types) {
            cols.push(take(Some(g), *ty));
        }
        for a in &self.aggs {
            let dep = (a.func == AggFunc::Dependent).then(|| &a.args[0]);
            cols.push(take(dep, a.result));
        }
        let start = cols.len();
        let (dependent, ungrouped): (Vec<usize>, Vec<usize>) = (0..self.input.cols.len())
            .filter(|&ci| !placed[ci])
            .partition(|&ci| self.functionally_dependent(ci));
        cols.extend(dependent.iter().map(|&ci| self.input.cols[ci].clone()));
        let end = cols.len();
        cols.extend(ungrouped.iter().map(|&ci| self.input.cols[ci].clone()));
        Scope {
            cols,
            grouped: Some(GroupedOuter {
                dependent: start..end,
                inputs: dependent,
                used: Cell::new(false),
            }),
        }
    }

    /// After a subquery was planned against `outer_scope()` (`seen`, as the subquery left it):
    /// the hidden aggregates of the dependent columns, at the positions that scope gave them,
    /// if the subquery read one.
    pub(super) fn add_read_dependents(&mut self, seen: &Scope) {
        let Some(g) = seen.grouped.as_ref().filter(|g| g.used.get()) else {
            return;
        };
        assert_eq!(
            self.group.len() + self.aggs.len(),
            g.dependent.start,
            "a grouped query's aggregates changed while its subquery was planned"
        );
        for &ci in &g.inputs {
            self.push_dependent(ci);
        }
    }
}

impl Planner<'_> {
    /// GROUP BY (grouping sets included): the aggregation context that a grouped query's
    /// target list, HAVING and ORDER BY are bound in.
    pub(super) fn group_by_context(
        &mut self,
        s: &protobuf::SelectStmt,
        targets: &[(String, &protobuf::Node, i32)],
        scope: &Scope,
        plan: &Plan,
    ) -> PgResult<AggCtx> {
        let mut group = Vec::new();
        let mut group_types = Vec::new();
        let expanded = grouping_sets::expand(&s.group_clause)?;
        let leaves: Vec<&protobuf::Node> = match &expanded {
            Some(x) => x.leaves.clone(),
            None => s.group_clause.iter().collect(),
        };
        // Each leaf's grouping key (one key per distinct expression with grouping sets).
        let mut leaf_pos = Vec::with_capacity(leaves.len());
        for g in leaves {
            let Some(gn) = g.node.as_ref() else { continue };
            // GROUP BY 1 / GROUP BY alias refer to the target list.
            let resolved: &protobuf::Node = match gn {
                N::AConst(c) => match &c.val {
                    Some(protobuf::a_const::Val::Ival(i)) => {
                        let i = i.ival as usize;
                        if i < 1 || i > targets.len() {
                            return Err(PgError::new(
                                code::INVALID_COLUMN_REFERENCE,
                                format!("GROUP BY position {i} is not in select list"),
                            )
                            .at(loc(c.location)));
                        }
                        targets[i - 1].1
                    }
                    _ => g,
                },
                N::ColumnRef(cr) if cr.fields.len() == 1 => {
                    let name = str_of(&cr.fields[0]).unwrap_or("");
                    if scope.cols.iter().any(|c| c.name == name) {
                        g
                    } else {
                        targets
                            .iter()
                            .find(|(n, _, _)| n == name)
                            .map(|(_, n, _)| *n)
                            .unwrap_or(g)
                    }
                }
                _ => g,
            };
            let rn = resolved.node.as_ref().expect("node");
            self.state.clause = Some("GROUP BY");
            let (e, t) = self.bind(rn, scope, None)?;
            self.state.clause = None;
            if expanded.is_some() {
                if let Some(p) = group.iter().position(|x| same_expr(x, &e)) {
                    leaf_pos.push(p);
                    continue;
                }
            }
            leaf_pos.push(group.len());
            group.push(e);
            group_types.push((t, -1));
        }
        let gsets = expanded.map(|x| {
            let sets: Vec<Vec<usize>> = x
                .sets
                .iter()
                .map(|s| s.iter().map(|l| leaf_pos[*l]).collect())
                .collect();
            // Several sets: the set number is one more grouping key.
            let set_pos = (sets.len() > 1).then_some(group.len());
            if set_pos.is_some() {
                group.push(Expr::Column(plan.columns.len()));
                group_types.push((Type::INT4, -1));
            }
            grouping_sets::Sets {
                sets,
                set_pos,
                set_col: plan.columns.len(),
            }
        });
        Ok(AggCtx {
            input: scope.clone(),
            group,
            group_types,
            aggs: Vec::new(),
            gsets,
        })
    }

    /// In a grouped query, an expression equal to a GROUP BY key is that key's column of the
    /// Aggregate node's output (Some); a bare column of the input that is not one is an error.
    pub(super) fn bind_group_key(
        &mut self,
        n: &N,
        ctx: &mut AggCtx,
    ) -> PgResult<Option<(Expr, Type)>> {
        if !ctx.group.is_empty() && !matches!(n, N::AConst(_)) && !self.contains_any_aggregate(n) {
            let mut probe = Planner {
                params: self.params,
                fmt: self.fmt,
                outer: self.outer.clone(),
                ctes: self.ctes.clone(),
                referenced: Vec::new(),
                allow_params: self.allow_params,
                defer_fold_errors: true,
                scan_unpopulated: self.scan_unpopulated,
                defer_exec_checks: self.defer_exec_checks,
                call_at: None,
                deferred: None,
                // The tables whose system columns the query reads, so that `GROUP BY ctid`
                // binds to the same key.
                state: PlanState {
                    sys_cols: self.state.sys_cols,
                    sys_rels: self.state.sys_rels.clone(),
                    tableoid: self.state.tableoid,
                    ..PlanState::default()
                },
                tables: self.tables.clone(),
                expanding: self.expanding.clone(),
                func_params: self.func_params.clone(),
                rule_events: self.rule_events.clone(),
                rules_skip: None,
            };
            if let Ok((e, t)) = probe.bind(n, &ctx.input, None) {
                if let Some(p) = ctx.group.iter().position(|g| same_expr(g, &e)) {
                    return Ok(Some((Expr::Column(p), t)));
                }
            }
        }
        if let N::ColumnRef(cr) = n {
            let fields = names_of(&cr.fields);
            let found = self.lookup_column(&ctx.input, &fields, cr.location);
            // A system column not grouped by: read from the input's row, which the Aggregate
            // node's output is not.
            if let Ok((Expr::System(row, _), _)) = &found {
                if let Expr::Column(ci) = **row {
                    let rel = ctx
                        .input
                        .cols
                        .get(ci)
                        .map(|c| c.rel.clone())
                        .unwrap_or_default();
                    let name = fields.last().cloned().unwrap_or_default();
                    return Err(PgError::new(
                        code::GROUPING_ERROR,
                        format!("column \"{rel}.{name}\" must appear in the GROUP BY clause or be used in an aggregate function"),
                    )
                    .at(loc(cr.location)));
                }
            }
            if let (Ok((Expr::Row(items), ty)), [rel]) = (&found, &fields[..]) {
                let items = ctx.grouped_row(items, rel, cr.location)?;
                return Ok(Some((Expr::Row(items), *ty)));
            }
            if let Ok((Expr::Column(ci), ty)) = found {
                if let Some(e) = ctx.dependent_column(ci) {
                    return Ok(Some((e, ty)));
                }
                // The column found; a merged USING column (no name of its own) is named by
                // the first side's, as PostgreSQL's flattened join variable is.
                let cols = &ctx.input.cols;
                let named = |c: &ScopeCol| Some(&c.name) == fields.last() && !c.rel.is_empty();
                let rel = cols
                    .get(ci)
                    .filter(|c| !c.rel.is_empty())
                    .or_else(|| cols.iter().find(|c| named(c)))
                    .map(|c| c.rel.clone())
                    .unwrap_or_default();
                let name = if rel.is_empty() {
                    fields.join(".")
                } else {
                    format!("{rel}.{}", fields.last().cloned().unwrap_or_default())
                };
                return Err(PgError::new(
                    code::GROUPING_ERROR,
                    format!("column \"{name}\" must appear in the GROUP BY clause or be used in an aggregate function"),
                )
                .at(loc(cr.location)));
            }
        }
        Ok(None)
    }

    /// Coerces an aggregate's arguments: the first to `first` (if given), the others (the
    /// string_agg delimiter) to text.
    pub(super) fn coerce_agg_args(
        &mut self,
        args: Vec<(Expr, Type)>,
        targets: &[Option<Type>],
        location: i32,
    ) -> PgResult<Vec<Expr>> {
        let mut bound = Vec::new();
        for (i, (e, t)) in args.into_iter().enumerate() {
            // Arguments past the typed ones: string_agg's delimiter.
            let target = targets.get(i).copied().unwrap_or(Some(Type::TEXT));
            let target = target.unwrap_or(t);
            let target = if target == Type::UNKNOWN {
                Type::TEXT
            } else {
                target
            };
            bound.push(self.coerce(e, t, target, -1, CoercionContext::Implicit, location)?);
        }
        Ok(bound)
    }

    pub(super) fn bind_aggregate(
        &mut self,
        af: AggFunc,
        fc: &protobuf::FuncCall,
        name: &str,
        agg: Option<&mut AggCtx>,
        user_cands: &[std::sync::Arc<crate::catalog::functions::Function>],
    ) -> PgResult<(Expr, Type)> {
        let Some(ctx) = agg else {
            let clause = self.state.clause.unwrap_or("this context");
            return Err(PgError::new(
                code::GROUPING_ERROR,
                format!("aggregate functions are not allowed in {clause}"),
            )
            .at(loc(fc.location)));
        };
        let input = ctx.input.clone();
        let mut args = Vec::new();
        for a in &fc.args {
            let an = a.node.as_ref().expect("arg");
            if self.contains_any_aggregate(an) {
                return Err(PgError::new(
                    code::GROUPING_ERROR,
                    "aggregate function calls cannot be nested",
                )
                .at(loc(node_location(an))));
            }
            args.push(self.bind(an, &input, None)?);
        }
        // An aggregate whose arguments read only an enclosing query's columns belongs to that
        // query in PostgreSQL (`SELECT (SELECT max(t.x)) FROM t` aggregates t); computed here,
        // per row of the subquery, its result would be wrong.
        let reads = |f: fn(&Expr) -> bool| args.iter().any(|(e, _)| e.any(&mut |x| f(x)));
        if reads(|x| matches!(x, Expr::Outer(..))) && !reads(|x| matches!(x, Expr::Column(_))) {
            return Err(PgError::feature_not_supported(
                "aggregate functions over only an outer query's columns are not supported yet",
            )
            .at(loc(fc.location)));
        }
        // json_agg of a whole row names its fields.
        let mut af = af;
        if let (AggFunc::JsonAgg(jb, _), [arg]) = (af, &fc.args[..]) {
            if let Some(row) = self.whole_row_arg(&input, arg)? {
                args[0] = (row.json(jb), if jb { Type::JSONB } else { Type::JSON });
                af = AggFunc::JsonAgg(jb, true);
            }
        }
        let mut order = Vec::new();
        let mut order_types = Vec::new();
        for o in &fc.agg_order {
            let Some(N::SortBy(sb)) = &o.node else {
                continue;
            };
            let on = sb
                .node
                .as_ref()
                .and_then(|n| n.node.as_ref())
                .expect("order");
            let (e, t) = self.bind(on, &input, None)?;
            order.push(sort_key(e, sb));
            order_types.push(t);
        }
        // Only an ordered-set aggregate's WITHIN GROUP keys are typed by the aggregate.
        let keys: &[Type] = if fc.agg_within_group {
            &order_types
        } else {
            &[]
        };
        let types: Vec<Type> = args.iter().map(|(_, t)| *t).collect();
        let mut user = None;
        let sig = if af == AggFunc::User {
            let (u, sig) = self.bind_user_aggregate(user_cands, &types, name, fc.location)?;
            user = Some(std::sync::Arc::new(u));
            sig
        } else {
            agg_types(af, &types, keys, name, fc.location)?
        };
        let (af, result, targets) = (sig.func, sig.result, sig.args);
        let (key_target, arg_type) = (sig.order, sig.arg_type);
        let bound = self.coerce_agg_args(args, &targets, fc.location)?;
        // PostgreSQL sorts a DISTINCT aggregate's input to find the duplicates, so without
        // ORDER BY the values still come in ascending order (string_agg(DISTINCT x, ',')).
        let order_matters = matches!(
            af,
            AggFunc::User
                | AggFunc::ArrayAgg
                | AggFunc::StringAgg
                | AggFunc::JsonAgg(..)
                | AggFunc::JsonObjectAgg(..)
        );
        if fc.agg_distinct && order.is_empty() && order_matters {
            if let Some(first) = bound.first() {
                order.push(SortKey {
                    expr: first.clone(),
                    desc: false,
                    nulls_first: false,
                });
            }
        }
        if let (Some(target), Some(k), Some(t)) = (key_target, order.first_mut(), keys.first()) {
            let e = std::mem::replace(&mut k.expr, Expr::Const(Value::Null));
            k.expr = self.coerce(e, *t, target, -1, CoercionContext::Implicit, fc.location)?;
        }
        let filter = match fc.agg_filter.as_ref().and_then(|n| n.node.as_ref()) {
            Some(f) => {
                let (e, t) = self.bind(f, &input, None)?;
                Some(self.coerce_bool(e, t, "FILTER", f)?)
            }
            None => None,
        };
        let call = AggCall {
            func: af,
            args: bound,
            arg_type,
            result,
            distinct: fc.agg_distinct,
            filter,
            order,
            user,
        };
        let idx = ctx.group.len() + ctx.aggs.len();
        ctx.aggs.push(call);
        Ok((Expr::Column(idx), result))
    }
}

/// The Aggregate node over the grouped query's input (grouping sets expanded), with HAVING
/// over it.
pub(super) fn plan_aggregate(mut plan: Plan, ctx: AggCtx, having: Option<Expr>) -> Plan {
    let mut agg_columns: Vec<Column> = ctx
        .group_types
        .iter()
        .map(|(t, m)| Column {
            name: "?group?".into(),
            ty: *t,
            typmod: *m,
            origin: None,
        })
        .collect();
    agg_columns.extend(ctx.aggs.iter().map(|a| Column {
        name: "?agg?".into(),
        ty: a.result,
        typmod: -1,
        origin: None,
    }));
    let (input, group) = match &ctx.gsets {
        Some(gs) => gs.apply(plan, ctx.group),
        None => (plan, ctx.group),
    };
    let empty_sets = ctx
        .gsets
        .as_ref()
        .map_or_else(Vec::new, |gs| gs.empty_set_keys(group.len()));
    plan = Plan {
        node: Node::Aggregate {
            input: Box::new(input),
            group,
            aggs: ctx.aggs,
            empty_sets,
        },
        columns: agg_columns,
    };
    if let Some(pred) = having {
        plan = Plan {
            columns: plan.columns.clone(),
            node: Node::Filter {
                input: Box::new(plan),
                pred,
            },
        };
    }
    plan
}

/// The signature of aggregate `af` over arguments of `types` (and WITHIN GROUP keys of `keys`).
pub(super) fn agg_types(
    af: AggFunc,
    types: &[Type],
    keys: &[Type],
    name: &str,
    location: i32,
) -> PgResult<aggregates::Signature> {
    if let Some(s) = aggregates::signature(af, types, keys, name, location)? {
        return Ok(s);
    }
    let arg_type = types.first().copied().unwrap_or(Type::INT8);
    let (result, target) = agg_signature(af, arg_type, name, location)?;
    Ok(aggregates::Signature {
        func: af,
        result,
        args: vec![target],
        order: None,
        arg_type: target.unwrap_or(arg_type),
    })
}

/// An aggregate's result type and the type its (first) argument is coerced to (None: kept),
/// for an argument of type `arg_type`.
fn agg_signature(
    af: AggFunc,
    arg_type: Type,
    name: &str,
    location: i32,
) -> PgResult<(Type, Option<Type>)> {
    let fc_location = location;
    let (result, arg_target) = match af {
        AggFunc::CountStar | AggFunc::Count => (Type::INT8, None),
        AggFunc::Sum => match arg_type {
            Type::INT2 | Type::INT4 => (Type::INT8, None),
            Type::INT8 | Type::NUMERIC => (Type::NUMERIC, None),
            Type::FLOAT4 => (Type::FLOAT4, None),
            Type::FLOAT8 => (Type::FLOAT8, None),
            Type::INTERVAL => (Type::INTERVAL, None),
            Type::UNKNOWN => return Err(not_unique(name, &[arg_type], fc_location)),
            t => return Err(undefined_function(name, &[t], fc_location)),
        },
        AggFunc::Avg => match arg_type {
            Type::INT2 | Type::INT4 | Type::INT8 | Type::NUMERIC => (Type::NUMERIC, None),
            Type::FLOAT4 | Type::FLOAT8 => (Type::FLOAT8, None),
            Type::INTERVAL => (Type::INTERVAL, None),
            Type::UNKNOWN => return Err(not_unique(name, &[arg_type], fc_location)),
            t => return Err(undefined_function(name, &[t], fc_location)),
        },
        AggFunc::Min | AggFunc::Max => {
            let t = if arg_type == Type::UNKNOWN {
                Type::TEXT
            } else {
                arg_type
            };
            if t == Type::BOOL || t == Type::RECORD {
                return Err(undefined_function(name, &[t], fc_location));
            }
            // There is no max(varchar): the text version applies.
            let t = if t == Type::VARCHAR { Type::TEXT } else { t };
            (t, Some(t))
        }
        AggFunc::BoolAnd | AggFunc::BoolOr => (Type::BOOL, Some(Type::BOOL)),
        AggFunc::ArrayAgg => {
            let t = if arg_type == Type::UNKNOWN {
                Type::TEXT
            } else {
                arg_type
            };
            (t.array().unwrap_or(Type::TEXT_ARRAY), Some(t))
        }
        AggFunc::StringAgg => (Type::TEXT, Some(Type::TEXT)),
        _ => return Err(undefined_function(name, &[arg_type], fc_location)),
    };
    Ok((result, arg_target))
}

pub(super) fn aggregate_func(name: &str, star: bool) -> Option<AggFunc> {
    Some(match name {
        "count" if star => AggFunc::CountStar,
        "count" => AggFunc::Count,
        "sum" => AggFunc::Sum,
        "avg" => AggFunc::Avg,
        "min" => AggFunc::Min,
        "max" => AggFunc::Max,
        "bool_and" | "every" => AggFunc::BoolAnd,
        "bool_or" => AggFunc::BoolOr,
        "array_agg" => AggFunc::ArrayAgg,
        "string_agg" => AggFunc::StringAgg,
        _ => return aggregates::aggregate_func(name),
    })
}

impl Planner<'_> {
    /// Whether an expression contains an aggregate call at this query level, user
    /// aggregates (CREATE AGGREGATE) included.
    pub(super) fn contains_any_aggregate(&self, n: &N) -> bool {
        has_aggregate(n, &|names| !self.user_routines(names, true).is_empty())
    }
}

/// Whether an expression contains an aggregate call at this query level (not inside a
/// subquery): a built-in one or one that `user` says is a user aggregate.
fn has_aggregate(n: &N, user: &dyn Fn(&[String]) -> bool) -> bool {
    let walk = |b: &protobuf::Node| b.node.as_ref().is_some_and(|n| has_aggregate(n, user));
    let any = |v: &[protobuf::Node]| v.iter().any(walk);
    let opt = |o: &Option<Box<protobuf::Node>>| o.as_ref().is_some_and(|b| walk(b));
    match n {
        N::FuncCall(fc) => {
            let names = names_of(&fc.funcname);
            let name = names.last().cloned().unwrap_or_default();
            (fc.over.is_none() && (aggregate_func(&name, fc.agg_star).is_some() || user(&names)))
                || any(&fc.args)
        }
        N::ResTarget(rt) => opt(&rt.val),
        N::SortBy(sb) => opt(&sb.node),
        N::AExpr(a) => opt(&a.lexpr) || opt(&a.rexpr),
        N::BoolExpr(b) => any(&b.args),
        N::TypeCast(tc) => opt(&tc.arg),
        N::NullTest(t) => opt(&t.arg),
        N::BooleanTest(t) => opt(&t.arg),
        N::CaseExpr(c) => opt(&c.arg) || any(&c.args) || opt(&c.defresult),
        N::CaseWhen(w) => opt(&w.expr) || opt(&w.result),
        N::CoalesceExpr(c) => any(&c.args),
        N::MinMaxExpr(m) => any(&m.args),
        N::List(l) => any(&l.items),
        N::AArrayExpr(a) => any(&a.elements),
        N::RowExpr(r) => any(&r.args),
        N::AIndirection(i) => opt(&i.arg),
        N::CollateClause(c) => opt(&c.arg),
        _ => false,
    }
}
