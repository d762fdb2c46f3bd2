//! WITH (PostgreSQL's parse_cte.c): the queries of a WITH clause, in scope by name for the rest
//! of the statement, and WITH RECURSIVE's self-referencing queries, planned as a recursive union
//! of their non-recursive term and a recursive term that reads the previous iteration's rows
//! through a work table (with SEARCH and CYCLE from plan/search_cycle.rs). Data-modifying WITH
//! queries are planned in plan/with_modify.rs.

use pg_query::protobuf::{self, node::Node as N};

use super::coerce::common_type;
use super::names::node_location;
use super::nodes::{Node, Plan, WorkTable};
use super::{loc, names_of, search_cycle, Planner};
use crate::error::{code, PgError, PgResult};
use crate::sql::plan::Expr;
use crate::sql::types::cast::CoercionContext;
use crate::sql::types::Type;

impl Planner<'_> {
    /// The queries of a WITH clause, in scope from here on (the caller takes them out of
    /// scope); returns its data-modifying ones, which only the top level may have.
    pub(super) fn plan_with(
        &mut self,
        with: &protobuf::WithClause,
        top: bool,
    ) -> PgResult<Vec<std::sync::Arc<Plan>>> {
        let mut modifying = Vec::new();
        for cte in &with.ctes {
            let Some(N::CommonTableExpr(c)) = &cte.node else {
                continue;
            };
            let q = c
                .ctequery
                .as_ref()
                .and_then(|n| n.node.as_ref())
                .ok_or_else(|| PgError::syntax("empty WITH query"))?;
            if with.recursive {
                if let Some(plan) = self.plan_recursive_cte(c, q)? {
                    self.ctes
                        .push((c.ctename.clone(), std::sync::Arc::new(plan)));
                    continue;
                }
            }
            if c.search_clause.is_some() || c.cycle_clause.is_some() {
                return Err(PgError::syntax("WITH query is not recursive").at(loc(c.location)));
            }
            if let Some(plan) = self.plan_modifying_cte(c, q, top)? {
                modifying.push(plan.clone());
                self.ctes.push((c.ctename.clone(), plan));
                continue;
            }
            let mut plan = self.plan_query(q)?;
            let aliases = names_of(&c.aliascolnames);
            for (i, a) in aliases.into_iter().enumerate() {
                if let Some(col) = plan.columns.get_mut(i) {
                    col.name = a;
                }
            }
            self.ctes
                .push((c.ctename.clone(), std::sync::Arc::new(plan)));
        }
        Ok(modifying)
    }

    /// A CTE of WITH RECURSIVE that refers to itself: `init UNION [ALL] step`, where `step`
    /// reads the previous iteration's rows under the CTE's name. None if the query does not
    /// refer to itself (it is then an ordinary CTE).
    fn plan_recursive_cte(
        &mut self,
        c: &protobuf::CommonTableExpr,
        q: &N,
    ) -> PgResult<Option<Plan>> {
        let N::SelectStmt(s) = q else {
            return Ok(None);
        };
        let (Some(l), Some(r)) = (s.larg.as_ref(), s.rarg.as_ref()) else {
            return Ok(None);
        };
        if s.op != protobuf::SetOperation::SetopUnion as i32 {
            return Ok(None);
        }
        // Clauses PostgreSQL does not run on a recursive union (they would not end it).
        let at = |n: Option<&protobuf::Node>| {
            n.and_then(|n| n.node.as_ref()).map_or(-1, |n| match n {
                N::SortBy(sb) => sb
                    .node
                    .as_ref()
                    .and_then(|n| n.node.as_ref())
                    .map_or(-1, node_location),
                n => node_location(n),
            })
        };
        let refuse = |what: &str, location: i32| {
            Err(PgError::new(
                code::FEATURE_NOT_SUPPORTED,
                format!("{what} in a recursive query is not implemented"),
            )
            .at(loc(location)))
        };
        if !s.sort_clause.is_empty() {
            return refuse("ORDER BY", at(s.sort_clause.first()));
        }
        if s.limit_offset.is_some() {
            return refuse("OFFSET", at(s.limit_offset.as_deref()));
        }
        if s.limit_count.is_some() {
            return refuse("LIMIT", at(s.limit_count.as_deref()));
        }
        if !s.locking_clause.is_empty() {
            return refuse("FOR UPDATE/SHARE", -1);
        }
        self.state.keep_unknown = true;
        let init = self.plan_select(l);
        let init_locs = std::mem::take(&mut self.state.target_locs);
        let mut init = init?;
        for col in &mut init.columns {
            if col.ty == Type::UNKNOWN {
                col.ty = Type::TEXT;
            }
        }
        let aliases = names_of(&c.aliascolnames);
        if !aliases.is_empty() && aliases.len() != init.columns.len() {
            return Err(PgError::new(
                code::INVALID_COLUMN_REFERENCE,
                format!(
                    "WITH query \"{}\" has {} columns available but {} columns specified",
                    c.ctename,
                    init.columns.len(),
                    aliases.len()
                ),
            )
            .at(loc(c.location)));
        }
        for (col, a) in init.columns.iter_mut().zip(aliases) {
            col.name = a;
        }
        let clauses = search_cycle::Clauses::bind(self, c, &init.columns)?;
        // With SEARCH or CYCLE, the work table has the previous run's extra columns too, and
        // the recursive term reads them.
        let mut work_columns = init.columns.clone();
        let mut rewritten = None;
        if let Some(cl) = &clauses {
            work_columns.extend(cl.columns(true));
            rewritten = cl.rewrite_step(r, &c.ctename);
        }
        let work: WorkTable = Default::default();
        self.ctes.push((
            c.ctename.clone(),
            std::sync::Arc::new(Plan {
                node: Node::WorkTable(work.clone()),
                columns: work_columns,
            }),
        ));
        let refs_before = self.state.worktable_refs;
        self.state
            .worktables
            .push((work.id(), self.state.sublinks, 0));
        let step = self.plan_select(rewritten.as_ref().unwrap_or(r));
        self.state.worktables.pop();
        self.ctes.pop();
        let step = step?;
        if self.state.worktable_refs == refs_before {
            return Ok(None);
        }
        if let Some(cl) = &clauses {
            cl.check_sides(s)?;
        }
        if clauses.is_some() && rewritten.is_none() {
            return Err(PgError::feature_not_supported(format!(
                "with a SEARCH or CYCLE clause, the recursive reference to WITH query \"{}\" must be at the top level of its right-hand SELECT",
                c.ctename
            )));
        }
        let extra = clauses.as_ref().map_or(0, |cl| cl.columns(true).len());
        if step.columns.len() != init.columns.len() + extra {
            return Err(PgError::syntax(
                "each UNION query must have the same number of columns",
            ));
        }
        // The step's rows must have the non-recursive term's types.
        let mut exprs = Vec::new();
        let mut cast = false;
        for (i, (ic, sc)) in init.columns.iter().zip(&step.columns).enumerate() {
            let ty = common_type(&[ic.ty, sc.ty], "UNION", -1)?;
            if ty != ic.ty {
                return Err(PgError::new(
                    code::DATATYPE_MISMATCH,
                    format!(
                        "recursive query \"{}\" column {} has type {} in non-recursive term but type {} overall",
                        c.ctename,
                        i + 1,
                        ic.ty.name(),
                        ty.name()
                    ),
                )
                .with_hint("Cast the output of the non-recursive term to the correct type.")
                .at(loc(init_locs.get(i).copied().unwrap_or(-1))));
            }
            cast |= sc.ty != ic.ty;
            exprs.push(self.coerce(
                Expr::Column(i),
                sc.ty,
                ic.ty,
                -1,
                CoercionContext::Implicit,
                -1,
            )?);
        }
        let (init, step) = match &clauses {
            Some(cl) => {
                let own = init.columns.clone();
                (cl.wrap_init(init), cl.wrap_step(step, exprs, own))
            }
            None if cast => {
                let columns = init.columns.clone();
                (
                    init,
                    Plan {
                        node: Node::Project {
                            input: Box::new(step),
                            exprs,
                        },
                        columns,
                    },
                )
            }
            None => (init, step),
        };
        Ok(Some(Plan {
            columns: init.columns.clone(),
            node: Node::RecursiveUnion {
                init: Box::new(init),
                step: Box::new(step),
                all: s.all,
                work,
            },
        }))
    }
}
