//! Data-modifying statements in WITH (`WITH d AS (DELETE ... RETURNING *) INSERT INTO log
//! SELECT * FROM d`), and the WITH clause of INSERT / UPDATE / DELETE.
//!
//! A data-modifying WITH query is planned as the statement it is (a `Modify` whose output is
//! its RETURNING list) and read through `Cte` nodes like any WITH query. The statement that
//! owns the WITH clause gets a `ModifyingCtes` node that runs each of them exactly once, to its
//! end, as PostgreSQL does: while the main query reads their rows, and whatever is left when
//! the main query is done (`exec::modify_cte`). For an INSERT / UPDATE / DELETE main statement
//! the node goes around its input, so the statement's root stays its `Modify` (command tag,
//! RowDescription). As in PostgreSQL, such queries are allowed only in the WITH clause of the
//! top-level statement (0A000 elsewhere), and one without RETURNING cannot be read.

use std::sync::Arc;

use pg_query::protobuf::{self, node::Node as N};

use super::{loc, names_of, Node, Plan, Planner};
use crate::error::{code, PgError, PgResult};

/// `body` with the data-modifying WITH queries of its WITH clause to run (none: `body`).
pub(super) fn run_with(body: Plan, modifying: Vec<Arc<Plan>>) -> Plan {
    if modifying.is_empty() {
        return body;
    }
    let Plan { node, columns } = body;
    match node {
        Node::Modify(mut m) => {
            let input = std::mem::replace(
                &mut m.input,
                Plan {
                    columns: Vec::new(),
                    node: Node::Result,
                },
            );
            m.input = Plan {
                columns: input.columns.clone(),
                node: Node::ModifyingCtes {
                    ctes: modifying,
                    input: Box::new(input),
                },
            };
            Plan {
                columns,
                node: Node::Modify(m),
            }
        }
        node => Plan {
            columns: columns.clone(),
            node: Node::ModifyingCtes {
                ctes: modifying,
                input: Box::new(Plan { columns, node }),
            },
        },
    }
}

/// A reference to WITH query `p` by `rv`: one that modifies must have RETURNING.
pub(super) fn check_readable(p: &Plan, rv: &protobuf::RangeVar) -> PgResult<()> {
    match &p.node {
        Node::Modify(m) if m.returning.is_none() => Err(PgError::new(
            code::FEATURE_NOT_SUPPORTED,
            format!(
                "WITH query \"{}\" does not have a RETURNING clause",
                rv.relname
            ),
        )
        .at(loc(rv.location))),
        _ => Ok(()),
    }
}

/// Whether a plan runs data-modifying WITH queries (refused by DECLARE CURSOR).
pub fn has_modifying_ctes(p: &Plan) -> bool {
    matches!(p.node, Node::ModifyingCtes { .. })
}

impl Planner<'_> {
    /// INSERT, UPDATE or DELETE with its WITH clause: the statement, or a data-modifying WITH
    /// query.
    pub fn plan_dml(&mut self, node: &N) -> PgResult<Plan> {
        let saved_ctes = self.ctes.len();
        let top = self.state.query_depth == 0;
        self.state.query_depth += 1;
        let result = self.plan_dml_in(node, top);
        self.state.query_depth -= 1;
        self.ctes.truncate(saved_ctes);
        result
    }

    fn plan_dml_in(&mut self, node: &N, top: bool) -> PgResult<Plan> {
        crate::stack::check()?;
        let with = match node {
            N::InsertStmt(s) => s.with_clause.as_ref(),
            N::UpdateStmt(s) => s.with_clause.as_ref(),
            N::DeleteStmt(s) => s.with_clause.as_ref(),
            _ => return Err(PgError::internal("not an INSERT, UPDATE or DELETE")),
        };
        let modifying = match with {
            Some(w) => self.plan_with(w, top)?,
            None => Vec::new(),
        };
        if let Some(p) = self.plan_rules(node)? {
            return Ok(run_with(p, modifying));
        }
        let plan = match node {
            N::InsertStmt(s) => self.plan_insert(s)?,
            N::UpdateStmt(s) => self.plan_update(s)?,
            N::DeleteStmt(s) => self.plan_delete(s)?,
            _ => unreachable!("checked above"),
        };
        Ok(run_with(plan, modifying))
    }

    /// A WITH query that is an INSERT, UPDATE or DELETE (None for any other). `top`: the WITH
    /// clause belongs to the top-level statement.
    pub(super) fn plan_modifying_cte(
        &mut self,
        c: &protobuf::CommonTableExpr,
        q: &N,
        top: bool,
    ) -> PgResult<Option<Arc<Plan>>> {
        if !matches!(q, N::InsertStmt(_) | N::UpdateStmt(_) | N::DeleteStmt(_)) {
            return Ok(None);
        }
        if !top {
            return Err(PgError::new(
                code::FEATURE_NOT_SUPPORTED,
                "WITH clause containing a data-modifying statement must be at the top level",
            )
            .at(loc(c.location)));
        }
        let mut plan = self.plan_dml(q)?;
        for (i, a) in names_of(&c.aliascolnames).into_iter().enumerate() {
            if let Some(col) = plan.columns.get_mut(i) {
                col.name = a;
            }
        }
        Ok(Some(Arc::new(plan)))
    }
}
