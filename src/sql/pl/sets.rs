//! Set-returning functions and OUT parameters: RETURN NEXT and RETURN QUERY append rows to
//! the call's result, which is materialized (PostgreSQL's tuplestore) and bounded by
//! [`WORK_MEM`]: past it the call fails with 54000 rather than growing without end (there is
//! no disk to spill to).

use super::compile::{Datum, Site};
use super::run::{Flow, Frame};
use crate::error::{code, PgError, PgResult};
use crate::sql::exec::{row_bytes, EvalCx, Held, SET_RESULT, WORK_MEM};
use crate::sql::plan::{Expr, Node, Plan, UserBody};
use crate::sql::types::{Type, Value};

/// The rows a set-returning call has returned so far, and the columns each must have.
pub(super) struct SetResult {
    pub(super) cols: Vec<Type>,
    pub(super) rows: Vec<Vec<Value>>,
    held: Held,
}

impl SetResult {
    pub(super) fn new(cols: &[Type]) -> SetResult {
        SetResult {
            cols: cols.to_vec(),
            rows: Vec::new(),
            held: Held::default(),
        }
    }

    fn push(&mut self, row: Vec<Value>) -> PgResult<()> {
        self.held.add(row_bytes(&row), WORK_MEM, SET_RESULT)?;
        self.rows.push(row);
        Ok(())
    }
}

/// PostgreSQL's error for a row of the wrong shape (`what`: "returned record type does not
/// match expected record type" or "structure of query does not match function result type").
fn mismatch(what: &str, detail: String) -> PgError {
    PgError::new(code::DATATYPE_MISMATCH, what).with_detail(detail)
}

fn count_detail(got: usize, want: usize) -> String {
    format!("Number of returned columns ({got}) does not match expected column count ({want}).")
}

impl Frame<'_> {
    /// The OUT parameters' values as the function's result: the one value, or a record.
    pub(super) fn out_value(&self) -> Value {
        match self.state.outs.as_slice() {
            [one] => self.values[*one].clone(),
            outs => Value::Record(outs.iter().map(|&o| self.values[o].clone()).collect()),
        }
    }

    /// CALL of a procedure with INOUT parameters from a body: each output goes back to the
    /// variable passed for it, as in PostgreSQL.
    pub(super) fn call_outputs(
        &mut self,
        site: &Site,
        plan: &Plan,
        rows: Vec<Vec<Value>>,
    ) -> PgResult<()> {
        if !crate::sql::plan::call_returns_row(plan) {
            return Ok(());
        }
        let Node::Function { args, .. } = &plan.node else {
            return Ok(());
        };
        let Some(Expr::UserCall(call)) = args.first() else {
            return Ok(());
        };
        let UserBody::PlPgSql(f) = &call.body else {
            return Ok(());
        };
        let Some(row) = rows.into_iter().next() else {
            return Ok(());
        };
        // The slots `$1` .. `$n` the call's arguments may name: the scalar variables in scope.
        let vars: Vec<usize> = site
            .scope
            .entries
            .iter()
            .filter(|e| matches!(self.state.body.datums[e.dno], Datum::Var { .. }))
            .map(|e| e.dno)
            .collect();
        let (mut input, mut output) = (0, 0);
        for a in &f.def.args {
            let arg = a.is_input().then(|| call.args.get(input)).flatten();
            if a.is_output() {
                if a.mode == 'b' {
                    let dno = match arg {
                        Some(Expr::Param(i)) => vars.get(*i).copied(),
                        _ => None,
                    };
                    let Some(dno) = dno else {
                        return Err(PgError::new(
                            code::SYNTAX_ERROR,
                            format!(
                                "procedure parameter \"{}\" is an output parameter but corresponding argument is not writable",
                                a.name
                            ),
                        ));
                    };
                    let v = row.get(output).cloned().unwrap_or(Value::Null);
                    let t = plan.columns.get(output).map_or(Type::UNKNOWN, |c| c.ty);
                    self.assign(dno, v, t)?;
                }
                output += 1;
            }
            if a.is_input() {
                input += 1;
            }
        }
        Ok(())
    }

    fn set_result(&mut self, what: &str) -> PgResult<&mut SetResult> {
        self.set.as_mut().ok_or_else(|| {
            PgError::new(
                code::DATATYPE_MISMATCH,
                format!("cannot use {what} in a non-SETOF function"),
            )
        })
    }

    /// RETURN NEXT [expr].
    pub(super) fn return_next(&mut self, expr: Option<&Site>) -> PgResult<Flow> {
        let cols = self.set_result("RETURN NEXT")?.cols.clone();
        let row = match expr {
            None => self
                .state
                .outs
                .iter()
                .map(|&o| self.values[o].clone())
                .collect(),
            Some(site) => match self.record_named(site) {
                Some(dno) => {
                    let name = self.state.body.datums[dno].name().to_string();
                    let r = self.records[dno]
                        .clone()
                        .ok_or_else(|| super::run::not_assigned(&name))?;
                    let pairs = r.values.into_iter().zip(r.types).collect();
                    self.fit_row(pairs, &cols)?
                }
                None => {
                    let (v, t) = self.eval(site)?;
                    let row_value = matches!(v, Value::Record(_)) && cols != [Type::RECORD];
                    if cols.len() == 1 && !row_value {
                        vec![self.coerce(v, t, cols[0], -1)?]
                    } else {
                        match v {
                            Value::Record(fields) => self.fit_row(
                                fields.into_iter().map(|f| (f, Type::UNKNOWN)).collect(),
                                &cols,
                            )?,
                            Value::Null => vec![Value::Null; cols.len()],
                            _ => {
                                return Err(PgError::new(
                                    code::DATATYPE_MISMATCH,
                                    "wrong record type supplied in RETURN NEXT",
                                ))
                            }
                        }
                    }
                }
            },
        };
        self.set_result("RETURN NEXT")?.push(row)?;
        Ok(Flow::Next)
    }

    /// A record's fields as a result row of `cols`: the same number, converted.
    fn fit_row(&mut self, fields: Vec<(Value, Type)>, cols: &[Type]) -> PgResult<Vec<Value>> {
        if fields.len() != cols.len() {
            return Err(mismatch(
                "returned record type does not match expected record type",
                count_detail(fields.len(), cols.len()),
            ));
        }
        let mut row = Vec::with_capacity(cols.len());
        for ((v, t), want) in fields.into_iter().zip(cols) {
            row.push(self.coerce(v, t, *want, -1)?);
        }
        Ok(row)
    }

    /// The record variable `site` is, written alone (`RETURN NEXT r`), if it is one.
    fn record_named(&self, site: &Site) -> Option<usize> {
        let t = site.text.trim();
        let t = t.strip_prefix('(')?.strip_suffix(')')?.trim();
        let name = match t.strip_prefix('"').and_then(|q| q.strip_suffix('"')) {
            Some(q) => q.to_string(),
            None => t.to_lowercase(),
        };
        let e = site.scope.entries.iter().rev().find(|e| e.name == name)?;
        matches!(self.state.body.datums[e.dno], Datum::Rec { .. }).then_some(e.dno)
    }

    /// RETURN QUERY [EXECUTE ... USING]: the query's rows appended to the result; they must
    /// have the result's column types exactly, as in PostgreSQL.
    pub(super) fn return_query(
        &mut self,
        query: &Site,
        dynamic: Option<&[Site]>,
    ) -> PgResult<Flow> {
        let cols = self.set_result("RETURN QUERY")?.cols.clone();
        let (plan, params, _) = self.prepare_query(query, dynamic)?;
        if !crate::sql::plan::returns_rows(&plan) {
            return Err(PgError::new(
                code::SYNTAX_ERROR,
                "cannot open a query that returns no rows as a cursor",
            ));
        }
        let what = "structure of query does not match function result type";
        // PostgreSQL names a written query in the error's context, not an EXECUTE's.
        let placed = |e: PgError| match dynamic {
            None => e.with_context(format!("SQL statement \"{}\"", query.text)),
            Some(_) => e,
        };
        if plan.columns.len() != cols.len() {
            return Err(placed(mismatch(
                what,
                count_detail(plan.columns.len(), cols.len()),
            )));
        }
        for (i, (c, want)) in plan.columns.iter().zip(&cols).enumerate() {
            if c.ty != *want {
                return Err(placed(mismatch(
                    what,
                    format!(
                        "Returned type {} does not match expected type {} in column {}.",
                        c.ty.name(),
                        want.name(),
                        i + 1
                    ),
                )));
            }
        }
        // Row by row into the result, so that the bound stops a large query early.
        self.spi.next_command();
        let mut ex = crate::sql::exec::open(plan.clone());
        let mut n = 0u64;
        loop {
            let row = {
                let mut cx = EvalCx {
                    params: &params,
                    outer: Vec::new(),
                    session: self.spi.as_ctx(),
                };
                ex.next_row(&mut cx)?
            };
            let Some(row) = row else { break };
            n += 1;
            self.set_result("RETURN QUERY")?.push(row)?;
        }
        self.row_count = n;
        self.set_found(n > 0);
        Ok(Flow::Next)
    }
}
