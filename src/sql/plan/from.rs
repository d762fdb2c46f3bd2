//! FROM items (PostgreSQL's transformFromClause and its helpers in parse_clause.c): tables,
//! views, WITH queries and virtual tables by name, subqueries (LATERAL or not), functions in FROM
//! (set-returning or scalar, WITH ORDINALITY) and joins — ON, USING and NATURAL, whose USING
//! columns merge as PostgreSQL's do. The FROM list is the cross join of its items; an item that
//! refers to the items before it makes a lateral join. Set-returning function calls are bound
//! here (`bind_srf`) for the select list too.

use pg_query::protobuf::{self, node::Node as N};

use super::coerce::common_type;
use super::func_call::{not_unique, undefined_function};
use super::names::node_name;
use super::nodes::{Column, JoinKind, ListFn, Node, Plan, Srf, SrfCall};
use super::scope::{Scope, ScopeCol, TableCol};
use super::virtual_table::{guarded_catalog, virtual_columns, virtual_table};
use super::{loc, modify, names_of, with_modify, Planner};
use crate::error::{code, PgError, PgResult};
use crate::sql::plan::Expr;
use crate::sql::privs;
use crate::sql::types::cast::CoercionContext;
use crate::sql::types::Type;

impl Planner<'_> {
    /// The FROM list: its items joined left to right (a cross join, lateral where an item
    /// refers to the items before it); without FROM, one row of no columns.
    pub(super) fn plan_from_list(&mut self, s: &protobuf::SelectStmt) -> PgResult<(Plan, Scope)> {
        Ok(if s.from_clause.is_empty() {
            (
                Plan {
                    node: Node::Result,
                    columns: Vec::new(),
                },
                Scope::default(),
            )
        } else {
            let mut acc: Option<(Plan, Scope)> = None;
            for item in &s.from_clause {
                let n = item
                    .node
                    .as_ref()
                    .ok_or_else(|| PgError::syntax("empty FROM item"))?;
                let left_scope = acc.as_ref().map(|(_, s)| s.clone());
                self.state.lateral = false;
                let (p, sc) = self.plan_from_item(n, left_scope.as_ref())?;
                let lateral = std::mem::take(&mut self.state.lateral);
                acc = Some(match acc {
                    None => (p, sc),
                    Some((lp, mut ls)) => {
                        ls.cols.extend(sc.cols);
                        let columns = lp.columns.iter().chain(&p.columns).cloned().collect();
                        (
                            Plan {
                                node: Node::Join {
                                    left: Box::new(lp),
                                    right: Box::new(p),
                                    kind: JoinKind::Inner,
                                    on: None,
                                    lateral,
                                },
                                columns,
                            },
                            ls,
                        )
                    }
                });
            }
            acc.expect("non-empty FROM")
        })
    }

    /// Plans one FROM item. `left` is the scope of the items before it, which a LATERAL
    /// subquery or a function may refer to; doing so sets `self.state.lateral`.
    pub(super) fn plan_from_item(
        &mut self,
        n: &N,
        left: Option<&Scope>,
    ) -> PgResult<(Plan, Scope)> {
        crate::stack::check()?;
        match n {
            N::RangeVar(rv) => self.plan_range_var(rv),
            N::RangeSubselect(rs) => self.plan_range_subselect(rs, left),
            N::RangeFunction(rf) => {
                if let (Some(l), Some(a)) = (self.state.lock.as_mut(), rf.alias.as_ref()) {
                    l.other(&a.aliasname, "a function");
                }
                self.plan_range_function(rf, left)
            }
            N::JoinExpr(j) => self.plan_join_expr(j, left),
            other => Err(PgError::feature_not_supported(format!(
                "FROM item not supported: {}",
                node_name(other)
            ))),
        }
    }

    /// A named FROM item: a WITH query, a table or view, or a virtual table.
    fn plan_range_var(&mut self, rv: &protobuf::RangeVar) -> PgResult<(Plan, Scope)> {
        let alias = rv.alias.as_ref();
        let relname = alias
            .map(|a| a.aliasname.clone())
            .unwrap_or_else(|| rv.relname.clone());
        // CTE?
        if rv.schemaname.is_empty() {
            if let Some((i, (_, p))) = self
                .ctes
                .iter()
                .enumerate()
                .rev()
                .find(|(_, (name, _))| *name == rv.relname)
            {
                if let Node::WorkTable(w) = &p.node {
                    // The executor runs an expression's subquery on its own, where the
                    // work table of the run it is part of is out of reach; PostgreSQL
                    // rejects the reference too.
                    let sublinks = self.state.sublinks;
                    let wt = self.state.worktables.iter_mut().find(|t| t.0 == w.id());
                    let misplaced = match wt {
                        Some(t) if t.1 < sublinks => Some("within a subquery"),
                        Some(t) if t.2 > 0 => Some("more than once"),
                        Some(t) => {
                            t.2 += 1;
                            None
                        }
                        None => None,
                    };
                    if let Some(how) = misplaced {
                        return Err(PgError::new(
                            code::INVALID_RECURSION,
                            format!(
                                "recursive reference to query \"{}\" must not appear {how}",
                                rv.relname
                            ),
                        )
                        .at(loc(rv.location)));
                    }
                    self.state.worktable_refs += 1;
                }
                with_modify::check_readable(p, rv)?;
                if let Some(l) = self.state.lock.as_mut() {
                    l.other(&relname, "a WITH query");
                }
                let plan = Plan {
                    columns: p.columns.clone(),
                    node: Node::Cte(i, p.clone()),
                };
                return self.scope_for(plan, &relname, alias);
            }
        }
        if let Some(plan) = self.transition_ref(rv) {
            if let Some(l) = self.state.lock.as_mut() {
                l.other(&relname, "a named tuplestore");
            }
            return self.scope_for(plan, &relname, alias);
        }
        let Some(vt) = virtual_table(&rv.schemaname, &rv.relname) else {
            let rowid = self.state.lock.as_mut().is_some_and(|l| l.table(&relname));
            if let Some(plan) = self.plan_table_ref(rv, rowid)? {
                let pk = match &plan.node {
                    Node::SeqScan { rel, .. } => Some((
                        rel.rel.oid,
                        rel.rel
                            .indexes
                            .iter()
                            // A DEFERRABLE key may hold a key twice for a while: no
                            // functional dependency (PostgreSQL's check_functional_grouping).
                            .find(|i| i.primary && rel.rel.deferrable_key(i.oid).is_none())
                            .map(|i| i.columns.clone())
                            .unwrap_or_default(),
                    )),
                    _ => None,
                };
                let (plan, mut scope) = self.scope_for(plan, &relname, alias)?;
                if let Some((oid, pk)) = pk {
                    for (pos, c) in scope.cols.iter_mut().enumerate() {
                        // The row id FOR UPDATE adds is no column of the table.
                        if c.origin.is_some() {
                            c.table = Some(TableCol {
                                rel: relname.clone(),
                                oid,
                                pos,
                                in_pk: pk.contains(&pos),
                            });
                        }
                    }
                }
                return Ok((plan, scope));
            }
            return Err(modify::undefined_table(rv));
        };
        if let Some(l) = self.state.lock.as_mut() {
            l.applying(&relname); // PostgreSQL would lock catalog rows: nothing to lock here
        }
        if let (Some(t), Some((oid, kind, name))) = (self.tables.as_ref(), guarded_catalog(vt)) {
            // Checked with the statement's other privileges, before it runs.
            t.used.set(true);
            t.perms
                .require(privs::Target::Catalog(oid, kind, name), t.check_as, 2);
        }
        let plan = Plan {
            columns: virtual_columns(vt),
            node: Node::Virtual(vt),
        };
        self.scope_for(plan, &relname, alias)
    }

    /// A transition table of the running trigger function named by an unqualified name (they
    /// come after WITH queries and before tables, as PostgreSQL's ephemeral named relations):
    /// the table's columns, from no table (a client sees no origin for them).
    fn transition_ref(&mut self, rv: &protobuf::RangeVar) -> Option<Plan> {
        if !rv.schemaname.is_empty() {
            return None;
        }
        let t = self
            .tables
            .as_ref()?
            .transitions
            .iter()
            .find(|t| t.name == rv.relname)?;
        let columns = modify::table_columns(&t.table)
            .into_iter()
            .map(|c| Column { origin: None, ..c })
            .collect();
        Some(Plan {
            columns,
            node: Node::Transition(rv.relname.clone()),
        })
    }

    /// A subquery in FROM, LATERAL or not.
    fn plan_range_subselect(
        &mut self,
        rs: &protobuf::RangeSubselect,
        left: Option<&Scope>,
    ) -> PgResult<(Plan, Scope)> {
        let q = rs
            .subquery
            .as_ref()
            .and_then(|n| n.node.as_ref())
            .ok_or_else(|| PgError::syntax("empty subquery"))?;
        let plan = match left {
            Some(ls) if rs.lateral => {
                self.outer.push(ls.clone());
                let plan = self.plan_query(q);
                self.outer.pop();
                self.state.lateral = true;
                plan?
            }
            _ => self.plan_query(q)?,
        };
        let name = rs
            .alias
            .as_ref()
            .map(|a| a.aliasname.clone())
            .unwrap_or_default();
        if let Some(l) = self.state.lock.as_mut() {
            l.subquery(&name);
        }
        let (plan, mut scope) = self.scope_for(plan, &name, rs.alias.as_ref())?;
        // A rule's NEW and OLD are read by name only, as in PostgreSQL (`rules.rs`).
        if !self.rule_events.is_empty() && matches!(name.as_str(), "old" | "new" | "*rule*") {
            scope.cols.iter_mut().for_each(|c| c.qualified_only = true);
        }
        Ok((plan, scope))
    }

    /// An explicit JOIN: its ON condition, or the equalities of USING / NATURAL.
    fn plan_join_expr(
        &mut self,
        j: &protobuf::JoinExpr,
        left: Option<&Scope>,
    ) -> PgResult<(Plan, Scope)> {
        let l = j
            .larg
            .as_ref()
            .and_then(|n| n.node.as_ref())
            .ok_or_else(|| PgError::syntax("bad join"))?;
        let r = j
            .rarg
            .as_ref()
            .and_then(|n| n.node.as_ref())
            .ok_or_else(|| PgError::syntax("bad join"))?;
        let (lp, ls) = self.plan_from_item(l, left)?;
        let left_lateral = std::mem::take(&mut self.state.lateral);
        // The right side may refer to the left one (LATERAL).
        let (rp, rs) = self.plan_from_item(r, Some(&ls))?;
        let lateral = std::mem::replace(&mut self.state.lateral, left_lateral);
        if lateral && matches!(kind_of(j.jointype), JoinKind::Right | JoinKind::Full) {
            return Err(PgError::new(
                code::INVALID_COLUMN_REFERENCE,
                "invalid reference to FROM-clause entry for table",
            ));
        }
        let left_width = ls.cols.len();
        let mut scope = ls.clone();
        scope.cols.extend(rs.cols.clone());
        let kind = kind_of(j.jointype);
        let mut conds = Vec::new();
        let mut using: Vec<String> = names_of(&j.using_clause);
        if j.is_natural {
            using = ls
                .cols
                .iter()
                .filter(|c| !c.qualified_only && !c.hidden && !c.name.starts_with('\0'))
                .filter(|c| {
                    rs.cols
                        .iter()
                        .any(|r| r.name == c.name && !r.qualified_only && !r.hidden)
                })
                .map(|c| c.name.clone())
                .collect();
        }
        let mut pairs = Vec::new();
        for name in &using {
            let li = ls.cols.iter().position(|c| &c.name == name && !c.qualified_only).ok_or_else(|| {
                PgError::new(
                    code::UNDEFINED_COLUMN,
                    format!("column \"{name}\" specified in USING clause does not exist in left table"),
                )
            })?;
            let ri = rs.cols.iter().position(|c| &c.name == name && !c.qualified_only).ok_or_else(|| {
                PgError::new(
                    code::UNDEFINED_COLUMN,
                    format!("column \"{name}\" specified in USING clause does not exist in right table"),
                )
            })?;
            let (e, _) = self.make_binop(
                "=",
                (Expr::Column(li), ls.cols[li].ty),
                (Expr::Column(left_width + ri), rs.cols[ri].ty),
                -1,
            )?;
            conds.push(e);
            pairs.push((li, ri));
            // The join condition reads both sides' columns.
            if let Some(cx) = &self.tables {
                cx.mark(ls.cols[li].origin, privs::ColUse::Select);
                cx.mark(rs.cols[ri].origin, privs::ColUse::Select);
            }
        }
        if let Some(q) = j.quals.as_ref().and_then(|n| n.node.as_ref()) {
            let (e, t) = self.bind(q, &scope, None)?;
            conds.push(self.coerce_bool(e, t, "JOIN/ON", q)?);
        }
        let on = match conds.len() {
            0 => None,
            1 => conds.pop(),
            _ => Some(Expr::And(conds)),
        };
        let columns = lp.columns.iter().chain(&rp.columns).cloned().collect();
        let mut plan = Plan {
            node: Node::Join {
                left: Box::new(lp),
                right: Box::new(rp),
                kind,
                on,
                lateral,
            },
            columns,
        };
        if !using.is_empty() {
            (plan, scope) = self.merge_using(plan, scope, &pairs, left_width, j)?;
        }
        if let Some(a) = &j.alias {
            if let Some(l) = self.state.lock.as_mut() {
                l.other(&a.aliasname, "a join");
            }
            return self.scope_for(plan, &a.aliasname, Some(a));
        }
        Ok((plan, scope))
    }

    /// A JOIN with USING (or NATURAL): as in PostgreSQL, its columns are the merged USING
    /// columns first (the left one's value for INNER and LEFT joins, the right one's for RIGHT,
    /// COALESCE of both for FULL, in their common type), then the left side's other columns,
    /// then the right side's. Each side's own USING columns stay reachable qualified (`a.id`,
    /// `a.*`) unless the join has an alias, which hides the sides' names.
    fn merge_using(
        &mut self,
        join: Plan,
        scope: Scope,
        pairs: &[(usize, usize)],
        left_width: usize,
        j: &protobuf::JoinExpr,
    ) -> PgResult<(Plan, Scope)> {
        let kind = kind_of(j.jointype);
        let aliased = j.alias.is_some();
        let using_alias = j.join_using_alias.as_ref().map(|a| a.aliasname.as_str());
        let mut exprs = Vec::new();
        let mut columns = Vec::new();
        let mut cols = Vec::new();
        let mut paired = vec![false; scope.cols.len()];
        for &(li, ri) in pairs {
            let (l, r) = (&scope.cols[li], &scope.cols[left_width + ri]);
            paired[li] = true;
            paired[left_width + ri] = true;
            let ty = if l.ty == r.ty {
                l.ty
            } else {
                common_type(&[l.ty, r.ty], "JOIN/USING", -1)?
            };
            let typmod = if l.typmod == r.typmod { l.typmod } else { -1 };
            let (lt, rt, name) = (l.ty, r.ty, l.name.clone());
            let rel = using_alias.map_or(String::new(), str::to_string);
            let (lo, ro) = (l.origin, r.origin);
            // The merged column is the left (right) table's own where PostgreSQL's join alias
            // variable is a plain variable of that side.
            let (lt_col, rt_col) = (
                l.table.clone().filter(|_| lt == ty),
                r.table.clone().filter(|_| rt == ty),
            );
            let le = self.coerce(Expr::Column(li), lt, ty, -1, CoercionContext::Implicit, -1)?;
            let re = self.coerce(
                Expr::Column(left_width + ri),
                rt,
                ty,
                -1,
                CoercionContext::Implicit,
                -1,
            )?;
            let (e, origin, table) = match kind {
                JoinKind::Inner | JoinKind::Left => (le, lo.filter(|_| lt == ty), lt_col),
                JoinKind::Right => (re, ro.filter(|_| rt == ty), rt_col),
                JoinKind::Full => (Expr::Coalesce(vec![le, re]), None, None),
            };
            exprs.push(e);
            columns.push(Column {
                name: name.clone(),
                ty,
                typmod,
                origin,
            });
            cols.push(ScopeCol {
                rel,
                name,
                ty,
                typmod,
                origin,
                hidden: false,
                qualified_only: false,
                table,
            });
        }
        for (i, c) in scope.cols.into_iter().enumerate() {
            if paired[i] && aliased {
                continue;
            }
            exprs.push(Expr::Column(i));
            columns.push(join.columns[i].clone());
            cols.push(ScopeCol {
                qualified_only: c.qualified_only || paired[i],
                ..c
            });
        }
        let plan = Plan {
            node: Node::Project {
                input: Box::new(join),
                exprs,
            },
            columns,
        };
        Ok((
            plan,
            Scope {
                cols,
                grouped: None,
            },
        ))
    }

    fn plan_range_function(
        &mut self,
        rf: &protobuf::RangeFunction,
        left: Option<&Scope>,
    ) -> PgResult<(Plan, Scope)> {
        // A function in FROM may always refer to the items before it (LATERAL is implied).
        if let Some(ls) = left {
            self.outer.push(ls.clone());
            let r = self.plan_range_function(rf, None);
            self.outer.pop();
            let (plan, scope) = r?;
            let outer_ref = |e: &Expr| matches!(e, Expr::Outer(..) | Expr::Subquery(..));
            if let Node::Function { args, scalar, .. } = &plan.node {
                if args
                    .iter()
                    .chain(scalar)
                    .any(|e| e.any(&mut |x| outer_ref(x)))
                {
                    self.state.lateral = true;
                }
            }
            return Ok((plan, scope));
        }
        if rf.is_rowsfrom || rf.functions.len() != 1 {
            return Err(PgError::feature_not_supported(
                "ROWS FROM and LATERAL functions are not supported yet",
            ));
        }
        // functions: [List [FuncCall, coldeflist]]
        let Some(N::List(pair)) = &rf.functions[0].node else {
            return Err(PgError::internal("unexpected function list"));
        };
        let Some(N::FuncCall(fc)) = pair.items.first().and_then(|n| n.node.as_ref()) else {
            return Err(PgError::feature_not_supported(
                "only function calls are supported in FROM",
            ));
        };
        if let Some(planned) = self.plan_aclexplode(fc, rf)? {
            return Ok(planned);
        }
        if let Some(planned) = self.plan_partition_tree(fc, rf)? {
            return Ok(planned);
        }
        if let Some(planned) = self.plan_control_fn(fc, rf)? {
            return Ok(planned);
        }
        let name = names_of(&fc.funcname).last().cloned().unwrap_or_default();
        let alias_name = rf
            .alias
            .as_ref()
            .map(|a| a.aliasname.clone())
            .unwrap_or_else(|| name.clone());
        let empty = Scope::default();
        let (node, ty) = match self.bind_srf(fc, &empty)? {
            Some(call) => (
                Node::Function {
                    srf: call.srf,
                    args: call.args,
                    arg_types: call.arg_types,
                    scalar: None,
                    ordinality: rf.ordinality,
                },
                call.out,
            ),
            None => {
                // A scalar function in FROM yields one row.
                let (e, t) = self.bind(&N::FuncCall(fc.clone()), &empty, None)?;
                (
                    Node::Function {
                        srf: Srf::Scalar,
                        args: Vec::new(),
                        arg_types: Vec::new(),
                        scalar: Some(e),
                        ordinality: rf.ordinality,
                    },
                    if t == Type::UNKNOWN { Type::TEXT } else { t },
                )
            }
        };
        if let Some(plan) = self.user_function_item(&node, ty, rf, &alias_name)? {
            return self.scope_for(plan, &alias_name, rf.alias.as_ref());
        }
        if let Some(N::ColumnDef(d)) = rf.coldeflist.first().and_then(|n| n.node.as_ref()) {
            return Err(PgError::new(
                code::SYNTAX_ERROR,
                "a column definition list is only allowed for functions returning \"record\"",
            )
            .at(loc(d.location)));
        }
        // jsonb_array_elements and the like name their column by their OUT parameter.
        let col_name = match &node {
            Node::Function {
                srf: Srf::List(ListFn::ArrayElements { .. }),
                ..
            } if rf.alias.is_none() => "value".to_string(),
            Node::Function {
                srf: Srf::PartitionAncestors,
                ..
            } if rf.alias.is_none() => "relid".to_string(),
            _ => alias_name.clone(),
        };
        let mut columns = match &node {
            // A function of several OUT parameters: one column each (exec spreads the record).
            Node::Function {
                srf: Srf::List(ListFn::Each { jsonb, text }),
                ..
            } => {
                let value = match (jsonb, text) {
                    (_, true) => Type::TEXT,
                    (true, false) => Type::JSONB,
                    (false, false) => Type::JSON,
                };
                [("key", Type::TEXT), ("value", value)]
                    .into_iter()
                    .map(|(n, ty)| Column {
                        name: n.into(),
                        ty,
                        typmod: -1,
                        origin: None,
                    })
                    .collect()
            }
            Node::Function {
                srf: Srf::List(ListFn::OptionsToTable),
                ..
            } => ["option_name", "option_value"]
                .into_iter()
                .map(|n| Column {
                    name: n.into(),
                    ty: Type::TEXT,
                    typmod: -1,
                    origin: None,
                })
                .collect(),
            _ => vec![Column {
                name: col_name,
                ty,
                typmod: -1,
                origin: None,
            }],
        };
        if rf.ordinality {
            columns.push(Column {
                name: "ordinality".into(),
                ty: Type::INT8,
                typmod: -1,
                origin: None,
            });
        }
        self.scope_for(Plan { node, columns }, &alias_name, rf.alias.as_ref())
    }

    /// Binds a call of a set-returning function; None if `fc` is not one.
    pub(super) fn bind_srf(
        &mut self,
        fc: &protobuf::FuncCall,
        scope: &Scope,
    ) -> PgResult<Option<SrfCall>> {
        let name = names_of(&fc.funcname).last().cloned().unwrap_or_default();
        let n = fc.args.len();
        let known = matches!(
            (name.as_str(), n),
            ("generate_series", 2 | 3)
                | ("unnest", 1)
                | ("generate_subscripts", 2)
                | ("pg_listening_channels", 0)
                | ("pg_partition_ancestors", 1)
        ) || ListFn::of(&name, n).is_some();
        if !known {
            return self.bind_user_srf(fc, scope);
        }
        let mut args = Vec::new();
        let mut types = Vec::new();
        for a in &fc.args {
            let (e, t) = self.bind(a.node.as_ref().expect("arg"), scope, None)?;
            args.push(e);
            types.push(t);
        }
        let coerce_all =
            |p: &mut Self, args: Vec<Expr>, types: &[Type], to: &[Type]| -> PgResult<Vec<Expr>> {
                let mut out = Vec::new();
                for (i, e) in args.into_iter().enumerate() {
                    out.push(p.coerce(
                        e,
                        types[i],
                        to[i],
                        -1,
                        CoercionContext::Implicit,
                        fc.location,
                    )?);
                }
                Ok(out)
            };
        let call = match name.as_str() {
            _ if ListFn::of(&name, n).is_some() => {
                let mut f = ListFn::of(&name, n).expect("checked");
                let (want, out) = f.signature(n);
                let citext = |t: &Type| t.base_type().is_citext();
                // An argument of another type: no such function (only unknown converts).
                if types.iter().zip(&want).any(|(t, w)| {
                    *t != *w
                        && *t != Type::UNKNOWN
                        && !(*w == Type::TEXT
                            && (matches!(*t, Type::VARCHAR | Type::BPCHAR | Type::NAME)
                                || citext(t)))
                }) {
                    return Err(undefined_function(&name, &types, fc.location));
                }
                // citext's regexp_matches / regexp_split_to_table (citext, citext [, text]):
                // the string and the pattern citext or untyped, at least one citext.
                let first_two = &types[..types.len().min(2)];
                if first_two.iter().any(citext)
                    && first_two.iter().all(|t| citext(t) || *t == Type::UNKNOWN)
                {
                    f = match f {
                        ListFn::RegexpSplit { .. } => ListFn::RegexpSplit { ci: true },
                        ListFn::RegexpMatches { .. } => ListFn::RegexpMatches { ci: true },
                        other => other,
                    };
                }
                SrfCall {
                    srf: Srf::List(f),
                    out,
                    args: coerce_all(self, args, &types, &want)?,
                    arg_types: want,
                }
            }
            "generate_series" => {
                let all_int = types
                    .iter()
                    .all(|t| matches!(*t, Type::INT2 | Type::INT4 | Type::INT8 | Type::UNKNOWN));
                let any_ts = types
                    .iter()
                    .any(|t| matches!(*t, Type::TIMESTAMP | Type::TIMESTAMPTZ | Type::DATE));
                if any_ts && n == 3 {
                    let ts = if types.contains(&Type::TIMESTAMP) {
                        Type::TIMESTAMP
                    } else {
                        Type::TIMESTAMPTZ
                    };
                    let want = [ts, ts, Type::INTERVAL];
                    SrfCall {
                        srf: Srf::GenerateSeriesTimestamp,
                        out: ts,
                        args: coerce_all(self, args, &types, &want)?,
                        arg_types: want.to_vec(),
                    }
                } else if all_int {
                    // Only smallint or unknown arguments fit the int4, int8 and numeric
                    // variants equally well.
                    if !types.iter().any(|t| matches!(*t, Type::INT4 | Type::INT8)) {
                        return Err(not_unique(&name, &types, fc.location));
                    }
                    let ty = if types.contains(&Type::INT8) {
                        Type::INT8
                    } else {
                        Type::INT4
                    };
                    let want = [ty; 3];
                    SrfCall {
                        srf: Srf::GenerateSeriesInt,
                        out: ty,
                        args: coerce_all(self, args, &types, &want)?,
                        arg_types: want[..n].to_vec(),
                    }
                } else if types
                    .iter()
                    .all(|t| t.is_numeric_like() || *t == Type::UNKNOWN)
                {
                    let want = [Type::NUMERIC; 3];
                    SrfCall {
                        srf: Srf::GenerateSeriesNumeric,
                        out: Type::NUMERIC,
                        args: coerce_all(self, args, &types, &want)?,
                        arg_types: want[..n].to_vec(),
                    }
                } else {
                    return Err(undefined_function(&name, &types, fc.location));
                }
            }
            "unnest" => {
                // int2vector and oidvector too, as PostgreSQL's unnest(anyarray) takes them;
                // unnest(anymultirange) gives the ranges.
                let elem = types[0]
                    .subscript_elem()
                    .or_else(|| types[0].base_type().multirange_range())
                    .ok_or_else(|| undefined_function(&name, &types, fc.location))?;
                SrfCall {
                    srf: Srf::Unnest,
                    out: elem,
                    args,
                    arg_types: types,
                }
            }
            "generate_subscripts" => {
                let want = [types[0], Type::INT4];
                SrfCall {
                    srf: Srf::GenerateSubscripts,
                    out: Type::INT4,
                    args: coerce_all(self, args, &types, &want)?,
                    arg_types: want.to_vec(),
                }
            }
            "pg_partition_ancestors" => SrfCall {
                srf: Srf::PartitionAncestors,
                out: Type::REGCLASS,
                args: coerce_all(self, args, &types, &[Type::REGCLASS])?,
                arg_types: vec![Type::REGCLASS],
            },
            _ => SrfCall {
                srf: Srf::ListeningChannels,
                out: Type::TEXT,
                args,
                arg_types: types,
            },
        };
        Ok(Some(call))
    }
}

fn kind_of(jointype: i32) -> JoinKind {
    match jointype {
        x if x == protobuf::JoinType::JoinLeft as i32 => JoinKind::Left,
        x if x == protobuf::JoinType::JoinRight as i32 => JoinKind::Right,
        x if x == protobuf::JoinType::JoinFull as i32 => JoinKind::Full,
        _ => JoinKind::Inner,
    }
}
