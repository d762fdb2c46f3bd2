//! Trigger functions: a PL/pgSQL function that RETURNS trigger, run for one firing.
//!
//! Its body is compiled inside a block that declares NEW, OLD and the TG_* variables
//! (`ddl::function::trigger_body`: pg_query cannot print the tree of a trigger function,
//! so the body is parsed as an ordinary function's). A call makes that block's
//! declarations, then gives the variables the firing's values, then runs the body.
//!
//! NEW and OLD are records of the table's columns (dropped ones left out, as in the table's
//! row type). The one that does not apply (OLD in an INSERT, NEW in a DELETE, both in a
//! statement-level trigger) is a NULL row of those fields: `NEW.x` reads NULL, `RETURN NEW`
//! returns NULL, as in PostgreSQL 11 and later.
//!
//! What RETURN gives back is the row the statement goes on with (BEFORE ROW) or nothing:
//! `RETURN NEW`, `RETURN OLD` (any record variable) or `RETURN NULL`.

use std::sync::Arc;

use super::compile::{self, Body, Datum, Site};
use super::run::{not_assigned, Flow, Frame, Record, State};
use super::Spi;
use crate::catalog::functions::FunctionDef;
use crate::catalog::triggers::event_word;
use crate::error::{code, PgError, PgResult};
use crate::sql::context::TriggerCall;
use crate::sql::ddl::function::{dollar_quoted, trigger_body};
use crate::sql::types::{Array, Type, Value};

/// The datums of the variables a trigger function is given.
#[derive(Debug, Clone)]
pub(super) struct Slots {
    new: usize,
    old: usize,
    /// TG_NAME, TG_WHEN, TG_LEVEL, TG_OP, TG_RELID, TG_RELNAME, TG_TABLE_NAME,
    /// TG_TABLE_SCHEMA, TG_NARGS, TG_ARGV.
    vars: [usize; 10],
}

const VAR_NAMES: [&str; 10] = [
    "tg_name",
    "tg_when",
    "tg_level",
    "tg_op",
    "tg_relid",
    "tg_relname",
    "tg_table_name",
    "tg_table_schema",
    "tg_nargs",
    "tg_argv",
];

impl Slots {
    /// The wrapper block's datums: the first of each name (the wrapper declares them before
    /// anything of the body).
    fn find(body: &Body) -> PgResult<Slots> {
        let first = |name: &str, rec: bool| {
            body.datums
                .iter()
                .position(|d| match d {
                    Datum::Rec { name: n } => rec && n == name,
                    Datum::Var { name: n, .. } => !rec && n == name,
                    _ => false,
                })
                .ok_or_else(|| PgError::internal(format!("trigger variable {name} not declared")))
        };
        let mut vars = [0; 10];
        for (i, n) in VAR_NAMES.iter().enumerate() {
            vars[i] = first(n, false)?;
        }
        Ok(Slots {
            new: first("new", true)?,
            old: first("old", true)?,
            vars,
        })
    }
}

impl State {
    pub fn compile_trigger(def: &FunctionDef) -> PgResult<State> {
        let body = compile::parenthesize_returns(&trigger_body(&def.body)?)?;
        let wrapped = format!(
            "CREATE FUNCTION f() RETURNS integer LANGUAGE plpgsql AS {}",
            dollar_quoted(&body)
        );
        let mut state = State::new(compile::compile(&wrapped, &body, 0, &def.name)?)?;
        state.trigger = Some(Slots::find(&state.body)?);
        Ok(state)
    }
}

/// A record of the table's live columns holding `row` (full width), or a NULL row.
fn record_of(call: &TriggerCall<'_>, row: Option<&[Value]>) -> Record {
    let live: Vec<(usize, &crate::catalog::ColumnDef)> = call.table.live_columns().collect();
    Record {
        names: live.iter().map(|(_, c)| c.name.clone()).collect(),
        types: live.iter().map(|(_, c)| Type(c.type_oid)).collect(),
        typmods: live.iter().map(|(_, c)| c.typmod).collect(),
        values: live
            .iter()
            .map(|(i, _)| row.map_or(Value::Null, |r| r[*i].clone()))
            .collect(),
        null: row.is_none(),
    }
}

/// Runs a compiled trigger function for one firing; the row it returned, full width.
pub fn execute_trigger(
    spi: &mut dyn Spi,
    state: &mut State,
    call: &TriggerCall<'_>,
    context: &str,
) -> PgResult<Option<Vec<Value>>> {
    let outer_snap = spi.swap_snapshot(None);
    let mut frame = Frame::new(spi, state, context);
    let result = frame.run_trigger(call);
    frame.spi.swap_snapshot(outer_snap);
    result
}

impl Frame<'_> {
    fn run_trigger(&mut self, call: &TriggerCall<'_>) -> PgResult<Option<Vec<Value>>> {
        let slots = self
            .state
            .trigger
            .clone()
            .ok_or_else(|| PgError::internal("not a trigger function"))?;
        self.init_found();
        let block = Arc::clone(&self.state.body.block);
        let flow = self
            .init_decls(&block)
            .and_then(|()| {
                self.set_trigger_vars(&slots, call);
                self.block_body(&block)
            })
            .map_err(|e| {
                if self.placed {
                    e
                } else {
                    e.with_context(self.context.to_string())
                }
            })?;
        if !matches!(flow, Flow::Return(_)) {
            return Err(PgError::new(
                code::FUNCTION_EXECUTED_NO_RETURN_STATEMENT,
                "control reached end of trigger procedure without RETURN",
            )
            .with_context(self.context.to_string()));
        }
        let Some(rec) = self.trigger_result.take().flatten().filter(|r| !r.null) else {
            return Ok(None);
        };
        // Back to the table's full width, dropped columns NULL.
        let live: Vec<usize> = call.table.live_columns().map(|(i, _)| i).collect();
        if rec.values.len() != live.len() {
            return Err(PgError::new(
                code::DATATYPE_MISMATCH,
                "returned row structure does not match the structure of the triggering table",
            )
            .with_detail(format!(
                "Number of returned columns ({}) does not match expected column count ({}).",
                rec.values.len(),
                live.len()
            ))
            .with_context(format!("{} during function exit", self.context)));
        }
        for (k, &i) in live.iter().enumerate() {
            let want = Type(call.table.columns[i].type_oid);
            if rec.types[k] != want {
                return Err(PgError::new(
                    code::DATATYPE_MISMATCH,
                    "returned row structure does not match the structure of the triggering table",
                )
                .with_detail(format!(
                    "Returned type {} does not match expected type {} in column {}.",
                    rec.types[k].name(),
                    want.name(),
                    k + 1
                ))
                .with_context(format!("{} during function exit", self.context)));
            }
        }
        let mut row = vec![Value::Null; call.table.columns.len()];
        for (v, i) in rec.values.into_iter().zip(live) {
            row[i] = v;
        }
        Ok(Some(row))
    }

    fn set_trigger_vars(&mut self, slots: &Slots, call: &TriggerCall<'_>) {
        let def = call.def;
        self.records[slots.new] = Some(record_of(call, call.new));
        self.records[slots.old] = Some(record_of(call, call.old));
        let t = call.table;
        let text = |s: &str| Value::Text(s.to_string());
        // TG_ARGV counts from 0; without arguments it is NULL.
        let argv = if def.args.is_empty() {
            Value::Null
        } else {
            Value::Array(Box::new(Array {
                elem: Type::TEXT,
                dims: vec![(def.args.len() as i32, 0)],
                items: def.args.iter().map(|a| text(a)).collect(),
            }))
        };
        let values = [
            text(&def.name),
            text(def.timing().word()),
            text(if def.row() { "ROW" } else { "STATEMENT" }),
            text(event_word(call.event)),
            Value::Oid(t.oid),
            text(&t.name.name),
            text(&t.name.name),
            text(&t.name.schema),
            Value::Int4(def.args.len() as i32),
            argv,
        ];
        for (slot, v) in slots.vars.iter().zip(values) {
            self.values[*slot] = v;
        }
    }

    /// RETURN in a trigger function: a record variable (NEW, OLD, another) or NULL.
    pub(super) fn trigger_return(&mut self, site: &Site) -> PgResult<Flow> {
        let name = site
            .text
            .trim()
            .trim_start_matches('(')
            .trim_end_matches(')')
            .trim()
            .to_lowercase();
        let rec = site
            .scope
            .entries
            .iter()
            .rev()
            .find(|e| e.name == name)
            .map(|e| e.dno)
            .filter(|&d| matches!(self.state.body.datums[d], Datum::Rec { .. }));
        if let Some(d) = rec {
            let Some(r) = self.records[d].clone() else {
                return Err(not_assigned(&name));
            };
            self.trigger_result = Some(Some(r));
            return Ok(Flow::Return(None));
        }
        let (v, _) = self.eval(site)?;
        if !v.is_null() {
            return Err(PgError::feature_not_supported(
                "a trigger function returning a row other than a record variable or NULL is not supported yet",
            ));
        }
        self.trigger_result = Some(None);
        Ok(Flow::Return(None))
    }
}
