//! The SQL statements of a PL/pgSQL body: a query or data change with variables (INTO
//! targets, FOUND and ROW_COUNT), utility statements, and EXECUTE's dynamic SQL.

use super::*;

impl Frame<'_> {
    /// A SQL statement of the body: a query or data change with variables, or a utility
    /// statement.
    pub(in crate::sql::pl) fn sql(
        &mut self,
        site: &Site,
        into: Option<&Target>,
        strict: bool,
    ) -> PgResult<()> {
        // What the statement is, read from its text once.
        let kind = match self.state.kinds[site.id] {
            Some(k) => k,
            None => {
                let tree = crate::sql::parser::parse_tree(&site.text)?;
                let node = tree
                    .stmts
                    .first()
                    .and_then(|s| s.stmt.as_ref())
                    .and_then(|s| s.node.as_ref());
                let k = match node {
                    Some(N::SelectStmt(s)) if !crate::sql::ddl::create_as::is_select_into(s) => {
                        SiteKind::Select
                    }
                    Some(N::InsertStmt(_) | N::UpdateStmt(_) | N::DeleteStmt(_)) => SiteKind::Write,
                    Some(N::CallStmt(_)) => SiteKind::Call,
                    _ => SiteKind::Utility,
                };
                self.state.kinds[site.id] = Some(k);
                k
            }
        };
        if kind == SiteKind::Utility {
            if into.is_some() {
                return Err(PgError::new(
                    code::SYNTAX_ERROR,
                    "INTO used with a command that cannot return data",
                ));
            }
            let n = crate::sql::parser::parse_tree(&site.text)
                .map_err(|e| in_query(e, site, false))?
                .stmts
                .first()
                .and_then(|s| s.stmt.as_ref())
                .and_then(|s| s.node.clone())
                .ok_or_else(|| PgError::syntax("empty statement"))?;
            return self.utility(&n).map_err(|e| in_query(e, site, false));
        }
        let (plan, params) = self.prepare(site, false)?;
        let returns = crate::sql::plan::returns_rows(&plan) && kind != SiteKind::Call;
        let is_select = kind == SiteKind::Select;
        if is_select && into.is_none() {
            return Err(PgError::new(
                code::SYNTAX_ERROR,
                "query has no destination for result data",
            )
            .with_hint("If you want to discard the results of a SELECT, use PERFORM instead."));
        }
        if into.is_some() && !returns {
            return Err(PgError::new(
                code::SYNTAX_ERROR,
                "INTO used with a command that cannot return data",
            ));
        }
        let (rows, n) = (self.run_plan(&plan, &params)).map_err(|e| in_query(e, site, false))?;
        self.row_count = n;
        if kind == SiteKind::Call {
            self.set_found(n > 0);
            return self.call_outputs(site, &plan, rows);
        }
        match into {
            None => self.set_found(n > 0),
            Some(target) => {
                if rows.is_empty() && strict {
                    return Err(PgError::new(code::NO_DATA_FOUND, "query returned no rows"));
                }
                if rows.len() > 1 && (strict || !is_select) {
                    return Err(PgError::new(
                        code::TOO_MANY_ROWS,
                        "query returned more than one row",
                    )
                    .with_hint("Make sure the query returns a single row, or use LIMIT 1."));
                }
                self.set_found(!rows.is_empty());
                self.store_first(target, &plan, rows)?;
                // The rows it took: at most one (more is an error above).
                self.row_count = n.min(1);
            }
        }
        Ok(())
    }

    /// INTO: the first of `rows` into `target`, or NULLs without a row.
    pub(in crate::sql::pl) fn store_first(
        &mut self,
        target: &Target,
        plan: &Plan,
        rows: Vec<Vec<Value>>,
    ) -> PgResult<()> {
        let row = rows
            .into_iter()
            .next()
            .unwrap_or_else(|| vec![Value::Null; plan.columns.len()]);
        self.assign_row(target, plan, row)
    }

    /// A utility statement (DDL, NOTIFY, SET) as the body wrote it.
    pub(in crate::sql::pl) fn utility(&mut self, node: &N) -> PgResult<()> {
        use crate::sql::{ChannelStmt, Statement};
        let mut types = Vec::new();
        let fmt = self.spi.fmt().clone();
        let analyzed = {
            let tables = self.spi.tables();
            crate::sql::analyze_in(
                node,
                &mut types,
                &fmt,
                crate::sql::Mode::Simple,
                Some(&tables),
            )
        };
        let needs = self.spi.take_needs();
        let stmt = analyzed?.stmt;
        self.spi.acquire(&needs)?;
        self.spi.next_command();
        match stmt {
            Statement::Ddl(d) => {
                crate::sql::ddl::execute(&d, self.spi.as_ctx())?;
            }
            Statement::Channel(ChannelStmt::Notify { channel, payload }) => {
                self.spi.notify(&channel, &payload)?;
            }
            Statement::Set {
                name,
                value: crate::sql::SetValue::Values(v),
                local,
            } => {
                self.spi.set_setting(&name, &v.join(", "), local)?;
            }
            Statement::SetTransaction(opts) => self.spi.set_transaction(&opts)?,
            Statement::NoOp(_) => {}
            other => {
                return Err(PgError::feature_not_supported(format!(
                    "{} in PL/pgSQL is not supported yet",
                    crate::sql::tag_of(&other)
                )))
            }
        }
        self.row_count = 0;
        Ok(())
    }

    /// A query to read rows from (FOR, RETURN QUERY, OPEN): planned, or with `using` the text
    /// EXECUTE evaluates; a utility statement there is PostgreSQL's 42P11.
    pub(in crate::sql::pl) fn prepare_query(
        &mut self,
        query: &Site,
        using: Option<&[Site]>,
    ) -> PgResult<(Arc<Plan>, Vec<Value>, String)> {
        let Some(using) = using else {
            let (plan, params) = self.prepare(query, false)?;
            return Ok((plan, params, query.text.clone()));
        };
        match self.prepare_dynamic(query, using)? {
            Dynamic::Query(plan, params, text) => Ok((plan, params, text)),
            Dynamic::Utility(node, _) => Err(PgError::new(
                "42P11",
                format!(
                    "cannot open {} query as cursor",
                    crate::sql::plan::node_name(&node)
                ),
            )),
        }
    }

    /// EXECUTE: the query's text evaluated, then planned with the USING values as `$n`; a
    /// utility statement is handed back parsed.
    pub(in crate::sql::pl) fn prepare_dynamic(
        &mut self,
        query: &Site,
        using: &[Site],
    ) -> PgResult<Dynamic> {
        let (q, t) = self.eval(query)?;
        if q.is_null() {
            return Err(PgError::new(
                code::NULL_VALUE_NOT_ALLOWED,
                "query string argument of EXECUTE is null",
            ));
        }
        let text = io::to_text(&q, t, self.spi.fmt());
        let mut params = Vec::new();
        let mut types = Vec::new();
        for u in using {
            let (v, t) = self.eval(u)?;
            params.push(v);
            types.push(t);
        }
        let tree = crate::sql::parser::parse_tree(&text)
            .map_err(|e| query_error(e, "SQL statement", &text, 0))?;
        let node = match tree.stmts.as_slice() {
            [one] => one.stmt.as_ref().and_then(|s| s.node.clone()),
            [] => None,
            _ => {
                return Err(PgError::feature_not_supported(
                    "EXECUTE of several statements is not supported",
                ))
            }
        }
        .ok_or_else(|| PgError::syntax("empty query string in EXECUTE"))?;
        if !matches!(
            node,
            N::SelectStmt(_) | N::InsertStmt(_) | N::UpdateStmt(_) | N::DeleteStmt(_)
        ) || matches!(&node, N::SelectStmt(s) if crate::sql::ddl::create_as::is_select_into(s))
        {
            return Ok(Dynamic::Utility(Box::new(node), text));
        }
        let planned = self
            .plan_node(&node, &mut types, None)
            .and_then(|(plan, needs)| self.spi.acquire(&needs).map(|_| plan));
        let plan = planned.map_err(|e| query_error(e, "SQL statement", &text, 0))?;
        Ok(Dynamic::Query(Arc::new(plan), params, text))
    }

    pub(in crate::sql::pl) fn dynamic(
        &mut self,
        query: &Site,
        into: Option<&Target>,
        strict: bool,
        using: &[Site],
    ) -> PgResult<()> {
        let (plan, params, text) = match self.prepare_dynamic(query, using)? {
            Dynamic::Query(plan, params, text) => (plan, params, text),
            Dynamic::Utility(node, text) => {
                // A utility statement: run as the body would, without parameters.
                if into.is_some() {
                    return Err(PgError::new(
                        code::SYNTAX_ERROR,
                        "INTO used with a command that cannot return data",
                    ));
                }
                return (self.utility(&node))
                    .map_err(|e| query_error(e, "SQL statement", &text, 0));
            }
        };
        let (rows, n) = (self.run_plan(&plan, &params))
            .map_err(|e| query_error(e, "SQL statement", &text, 0))?;
        self.row_count = n;
        if let Some(target) = into {
            if rows.is_empty() && strict {
                return Err(PgError::new(code::NO_DATA_FOUND, "query returned no rows"));
            }
            if rows.len() > 1 && strict {
                return Err(PgError::new(
                    code::TOO_MANY_ROWS,
                    "query returned more than one row",
                ));
            }
            self.store_first(target, &plan, rows)?;
        }
        Ok(())
    }
}
