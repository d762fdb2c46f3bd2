//! The interpreter: a call's variables, its statements run in order, and the plans of its
//! expressions and SQL statements (see the module header in `mod.rs`).

mod element;
mod statements;

use std::sync::Arc;

use pg_query::protobuf::node::Node as N;

use super::compile::{self, Block, Body, Datum, Site, Stmt, StmtKind, Target};
use super::conditions;
use super::Spi;
use crate::catalog::functions::FunctionDef;
use crate::error::{code, PgError, PgResult, Severity};
use crate::sql::ddl::function::dollar_quoted;
use crate::sql::exec::{self, EvalCx};
use crate::sql::plan::{FuncParams, Plan, Planner};
use crate::sql::types::{cast, io, Type, Value};

/// What a statement needs before it runs: its relation locks and the privileges to check.
#[derive(Debug, Clone, Default)]
pub struct Needs {
    pub locks: Vec<(u32, crate::txn::lock::LockMode)>,
    pub perms: Vec<crate::sql::privs::RelPerm>,
}

/// A planned site, with what it was planned for.
struct Cached {
    plan: Arc<Plan>,
    needs: Needs,
    epoch: u64,
    /// The types of `$1` .. `$n` it was planned with.
    types: Vec<Type>,
    /// The search_path setting its names were resolved with.
    path: Option<String>,
    /// The transition tables in scope (names and tables) when it was planned: a function
    /// shared by triggers of several tables reads other rows under the same name.
    env: Vec<(String, u32)>,
}

/// What the transition tables in scope are, for a cached plan's key.
fn transition_key(spi: &dyn Spi) -> Vec<(String, u32)> {
    spi.transitions()
        .iter()
        .map(|t| (t.name.clone(), t.table.oid))
        .collect()
}

/// A body with the types of its variables and the plans of its sites, kept between calls.
pub struct State {
    pub(super) body: Body,
    /// Per datum, a variable's resolved type and typmod (None until resolved).
    types: Vec<Option<(Type, i32)>>,
    plans: Vec<Option<Cached>>,
    /// Per site, what kind of SQL statement it is (read at its first run).
    kinds: Vec<Option<SiteKind>>,
    /// A trigger function's NEW, OLD and TG_* variables.
    pub(super) trigger: Option<super::trigger::Slots>,
    /// The datums the call's arguments go to, in order (the input parameters; OUT parameters
    /// have datums too).
    inputs: Vec<usize>,
    /// The OUT / INOUT / TABLE parameters' datums: the row the function returns.
    pub(super) outs: Vec<usize>,
    /// Per variable of a domain type, the plan that checks a value against the domain.
    domain_checks: std::collections::HashMap<usize, Arc<Plan>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SiteKind {
    Select,
    /// INSERT / UPDATE / DELETE.
    Write,
    Call,
    Utility,
}

/// A record variable's value: its fields' names, types and values.
#[derive(Debug, Clone)]
pub(super) struct Record {
    pub(super) names: Vec<String>,
    pub(super) types: Vec<Type>,
    pub(super) typmods: Vec<i32>,
    pub(super) values: Vec<Value>,
    /// A NULL row of known fields (a trigger's NEW in a DELETE): its fields read as NULL.
    pub(super) null: bool,
}

/// What EXECUTE's text turned out to be.
pub(super) enum Dynamic {
    /// A query or data change, planned, with its USING values and its text.
    Query(Arc<Plan>, Vec<Value>, String),
    /// A utility statement, run without parameters, and its text.
    Utility(Box<N>, String),
}

/// How a statement ended.
pub(super) enum Flow {
    Next,
    Exit(Option<String>),
    Continue(Option<String>),
    Return(Option<(Value, Type)>),
}

impl State {
    pub(super) fn new(body: Body) -> PgResult<State> {
        check_conditions(&body.block)?;
        let n = body.datums.len();
        let sites = body.sites;
        let n_params = body.n_params;
        Ok(State {
            body,
            types: vec![None; n],
            plans: (0..sites).map(|_| None).collect(),
            kinds: vec![None; sites],
            trigger: None,
            inputs: (0..n_params).collect(),
            domain_checks: Default::default(),
            outs: Vec::new(),
        })
    }

    pub fn compile_function(def: &FunctionDef) -> PgResult<State> {
        let body = compile::parenthesize_returns(&def.body)?;
        let args: Vec<String> = def
            .args
            .iter()
            .map(|a| {
                let ty = crate::sql::types::cast::format_type_with_typmod(Type(a.type_oid), -1);
                // A TABLE column is an OUT parameter to PL/pgSQL.
                let mode = match a.mode {
                    'o' | 't' => "OUT ",
                    'b' => "INOUT ",
                    // A VARIADIC parameter is its array inside the body; the grammar's
                    // check of it would not know the (resolved) array type.
                    _ => "",
                };
                if a.name.is_empty() {
                    format!("{mode}{ty}")
                } else {
                    format!("{mode}\"{}\" {ty}", a.name.replace('"', "\"\""))
                }
            })
            .collect();
        let outs: Vec<usize> = (0..def.args.len())
            .filter(|&i| def.args[i].is_output())
            .collect();
        // One OUT parameter (a one-column RETURNS TABLE among them) makes the result its type.
        let ret = match outs.as_slice() {
            [one] => Type(def.args[*one].type_oid),
            _ => Type(def.returns),
        };
        let ret = crate::sql::types::cast::format_type_with_typmod(ret, -1);
        let (kind, returns) = if def.kind == 'p' {
            ("PROCEDURE", String::new())
        } else if def.returns_set {
            ("FUNCTION", format!("RETURNS SETOF {ret}"))
        } else {
            ("FUNCTION", format!("RETURNS {ret}"))
        };
        let wrapped = format!(
            "CREATE {kind} f({}) {returns} LANGUAGE plpgsql AS {}",
            args.join(", "),
            dollar_quoted(&body)
        );
        let mut state = State::new(compile::compile(
            &wrapped,
            &body,
            def.args.len(),
            &def.name,
        )?)?;
        // A parameter of an enum, domain, range or extension type is a record to PL/pgSQL's
        // grammar (it knows no such type): a scalar variable of that type here.
        for (i, a) in def.args.iter().enumerate() {
            let t = Type(a.type_oid);
            let scalar = t.is_enum()
                || t.is_range()
                || t.is_multirange()
                || t.is_hstore()
                || t.is_citext()
                || (t.is_domain() && !t.base_type().is_composite());
            if let (true, Some(Datum::Rec { name })) = (scalar, state.body.datums.get(i)) {
                state.body.datums[i] = Datum::Var {
                    name: name.clone(),
                    typname: crate::sql::types::cast::format_type_with_typmod(t, -1),
                    constant: false,
                    not_null: false,
                    default: None,
                    line: 0,
                };
            }
        }
        state.inputs = (0..def.args.len())
            .filter(|&i| def.args[i].is_input())
            .collect();
        state.outs = outs;
        Ok(state)
    }

    pub fn compile_do(code: &str) -> PgResult<State> {
        let body = compile::parenthesize_returns(code)?;
        let wrapped = format!("DO {}", dollar_quoted(&body));
        State::new(compile::compile(&wrapped, &body, 0, "inline_code_block")?)
    }
}

/// Unknown condition names in handlers are errors before anything runs, as at PostgreSQL's
/// CREATE FUNCTION.
fn check_conditions(b: &Block) -> PgResult<()> {
    fn stmts(list: &[Stmt]) -> PgResult<()> {
        for s in list {
            match &s.kind {
                StmtKind::Block(b) => check_conditions(b)?,
                StmtKind::If { arms, otherwise } => {
                    for (_, body) in arms {
                        stmts(body)?;
                    }
                    stmts(otherwise)?;
                }
                StmtKind::Case {
                    arms, otherwise, ..
                } => {
                    for (_, body) in arms {
                        stmts(body)?;
                    }
                    if let Some(o) = otherwise {
                        stmts(o)?;
                    }
                }
                StmtKind::Loop { body, .. }
                | StmtKind::While { body, .. }
                | StmtKind::ForInt { body, .. }
                | StmtKind::ForQuery { body, .. }
                | StmtKind::ForEach { body, .. }
                | StmtKind::ForCursor { body, .. } => stmts(body)?,
                _ => {}
            }
        }
        Ok(())
    }
    stmts(&b.body)?;
    if let Some(h) = &b.handlers {
        for (conds, body) in &h.arms {
            for c in conds {
                // (A written SQLSTATE is taken as it is, and made static only if raised.)
                if !c.eq_ignore_ascii_case("others") && !conditions::is_sqlstate(c) {
                    conditions::sqlstate_of(c)?;
                }
            }
            stmts(body)?;
        }
    }
    Ok(())
}

pub(super) struct Frame<'a> {
    pub(super) spi: &'a mut dyn Spi,
    pub(super) state: &'a mut State,
    pub(super) values: Vec<Value>,
    pub(super) records: Vec<Option<Record>>,
    /// ROW_COUNT of the last SQL statement.
    pub(super) row_count: u64,
    /// The errors being handled, innermost last (RAISE; and GET STACKED DIAGNOSTICS).
    pub(super) caught: Vec<PgError>,
    /// `PL/pgSQL function f(integer)`: the start of CONTEXT lines.
    pub(super) context: &'a str,
    /// Whether the error travelling out already names its statement.
    pub(super) placed: bool,
    /// What a trigger function's RETURN gave: Some(None) for NULL.
    pub(super) trigger_result: Option<Option<Record>>,
    /// A set-returning function's result so far.
    pub(super) set: Option<super::sets::SetResult>,
    /// The cursors the call opened, by portal name (closed when the call ends unless returned).
    pub(super) cursors: super::cursor::Cursors,
    /// COMMIT and ROLLBACK are allowed (a procedure or DO block in a non-atomic context, see
    /// `SessionCtx::set_nonatomic`); its CALLs pass that on.
    pub(super) nonatomic: bool,
}

impl<'a> Frame<'a> {
    pub(super) fn new(spi: &'a mut dyn Spi, state: &'a mut State, context: &'a str) -> Frame<'a> {
        let n = state.body.datums.len();
        Frame {
            spi,
            state,
            values: vec![Value::Null; n],
            records: vec![None; n],
            row_count: 0,
            caught: Vec::new(),
            context,
            placed: false,
            trigger_result: None,
            set: None,
            cursors: Default::default(),
            nonatomic: false,
        }
    }
}

/// Runs a compiled body with `args`; the result is cast to `returns` (void: NULL).
/// `may_end_transactions`: a procedure or DO block, which may COMMIT and ROLLBACK if its
/// caller allows it (`SessionCtx::set_nonatomic`).
pub fn execute(
    spi: &mut dyn Spi,
    state: &mut State,
    args: &[Value],
    returns: Type,
    context: &str,
    may_end_transactions: bool,
) -> PgResult<Value> {
    // The function's statements read with their own snapshots, not the caller's cursor's.
    let outer_snap = spi.swap_snapshot(None);
    // What the body calls is atomic unless the body passes its own permission on (CALL).
    let inherited = spi.set_nonatomic(false);
    let mut frame = Frame::new(spi, state, context);
    frame.nonatomic = may_end_transactions && inherited;
    let result = frame.run(args, returns);
    frame.end_cursors();
    frame.spi.set_nonatomic(inherited);
    frame.spi.swap_snapshot(outer_snap);
    result
}

/// Runs a compiled set-returning function with `args`: its rows, each of the columns `cols`.
pub fn execute_set(
    spi: &mut dyn Spi,
    state: &mut State,
    args: &[Value],
    cols: &[Type],
    context: &str,
) -> PgResult<Vec<Vec<Value>>> {
    let outer_snap = spi.swap_snapshot(None);
    let inherited = spi.set_nonatomic(false);
    let mut frame = Frame::new(spi, state, context);
    frame.set = Some(super::sets::SetResult::new(cols));
    let result = frame.run(args, Type::VOID);
    frame.end_cursors();
    frame.spi.set_nonatomic(inherited);
    frame.spi.swap_snapshot(outer_snap);
    result?;
    Ok(frame.set.take().map(|s| s.rows).unwrap_or_default())
}

impl Frame<'_> {
    fn run(&mut self, args: &[Value], returns: Type) -> PgResult<Value> {
        for (k, a) in args.iter().enumerate() {
            let Some(&i) = self.state.inputs.get(k) else {
                break;
            };
            self.var_type(i)?;
            self.values[i] = a.clone();
        }
        self.init_found();
        let block = Arc::clone(&self.state.body.block);
        let flow = self.block(&block).map_err(|e| {
            if self.placed {
                e
            } else {
                e.with_context(self.context.to_string())
            }
        })?;
        match flow {
            Flow::Return(v) => match v {
                _ if returns == Type::VOID => Ok(Value::Null),
                None if !self.state.outs.is_empty() => Ok(self.out_value()),
                Some((v, t)) => self.coerce(v, t, returns, -1).map_err(|e| {
                    e.with_context(format!(
                        "{} while casting return value to function's return type",
                        self.context
                    ))
                }),
                None => Ok(Value::Null),
            },
            _ if returns == Type::VOID => Ok(Value::Null),
            // With OUT parameters the end of the body returns them.
            _ if !self.state.outs.is_empty() => Ok(self.out_value()),
            _ => Err(PgError::new(
                code::FUNCTION_EXECUTED_NO_RETURN_STATEMENT,
                "control reached end of function without RETURN",
            )
            .with_context(self.context.to_string())),
        }
    }

    pub(super) fn init_found(&mut self) {
        let found = self.state.body.found;
        self.values[found] = Value::Bool(false);
        self.state.types[found] = Some((Type::BOOL, -1));
    }

    /// A variable's type, resolved at its first use (`%TYPE` and type names through the
    /// planner).
    pub(super) fn var_type(&mut self, dno: usize) -> PgResult<(Type, i32)> {
        if let Some(t) = self.state.types[dno] {
            return Ok(t);
        }
        let Datum::Var { typname, .. } = &self.state.body.datums[dno] else {
            return Err(PgError::internal("not a scalar variable"));
        };
        let typname = typname.clone();
        let t = if let Some(t) = Type::from_name(&typname) {
            (t, -1)
        } else if typname == "refcursor" {
            // A cursor variable holds its portal's name (threadgres has no refcursor type).
            (Type::TEXT, -1)
        } else if let Some(col) = typname
            .strip_suffix("%TYPE")
            .or_else(|| typname.strip_suffix("%type"))
        {
            // `table.column%TYPE`, or a variable's.
            let parts: Vec<&str> = col.rsplitn(2, '.').collect();
            if parts.len() == 2 {
                let plan =
                    self.plan_text(&format!("SELECT {} FROM {} LIMIT 0", parts[0], parts[1]))?;
                (plan.columns[0].ty, plan.columns[0].typmod)
            } else {
                let e = self
                    .state
                    .body
                    .datums
                    .iter()
                    .position(|d| matches!(d, Datum::Var { name, .. } if name == col))
                    .ok_or_else(|| {
                        PgError::new(
                            code::UNDEFINED_OBJECT,
                            format!("type \"{typname}\" does not exist"),
                        )
                    })?;
                self.var_type(e)?
            }
        } else {
            let plan = self.plan_text(&format!("SELECT NULL::{typname}"))?;
            // A domain is planned as its base type: keep the domain, whose checks an
            // assignment applies.
            match self.user_type_named(&typname) {
                Some(t) if t.is_domain() => (t, plan.columns[0].typmod),
                _ => (plan.columns[0].ty, plan.columns[0].typmod),
            }
        };
        self.state.types[dno] = Some(t);
        Ok(t)
    }

    /// Plans a statement that uses no variables (type lookups).
    fn plan_text(&mut self, text: &str) -> PgResult<Plan> {
        let node = crate::sql::parser::parse_node(text)?;
        self.plan_node(&node, &mut Vec::new(), None)
            .map(|(plan, _)| plan)
    }

    /// Plans a query, data change or CALL with the catalog as the next statement sees it,
    /// `types` as the types of `$1` .. `$n` and `vars` as their names; returns the plan and
    /// what running it needs.
    fn plan_node(
        &mut self,
        node: &N,
        types: &mut Vec<Type>,
        vars: Option<FuncParams>,
    ) -> PgResult<(Plan, Needs)> {
        let fmt = self.spi.fmt().clone();
        let plan = {
            let tables = self.spi.tables();
            let mut p = Planner::new(types, &fmt);
            p.tables = Some(tables);
            p.allow_params = true;
            if let Some(vars) = vars {
                p.set_variables(Arc::new(vars));
            }
            let r = match node {
                N::SelectStmt(_) => p.plan_query(node),
                N::InsertStmt(_) | N::UpdateStmt(_) | N::DeleteStmt(_) => p.plan_dml(node),
                N::CallStmt(c) => p.plan_call(c),
                _ => Err(PgError::internal("not a query")),
            };
            r.and_then(|plan| p.finish_params().map(|_| plan))
        };
        let needs = self.spi.take_needs();
        Ok((plan?, needs))
    }

    // ------------------------------------------------------------ statements

    pub(super) fn stmts(&mut self, list: &[Stmt]) -> PgResult<Flow> {
        for s in list {
            match self.stmt(s) {
                Ok(Flow::Next) => {}
                Ok(other) => return Ok(other),
                Err(mut e) => {
                    // A position in a statement of the body means nothing in the caller's text.
                    e.position = None;
                    if self.placed {
                        return Err(e);
                    }
                    self.placed = true;
                    return Err(e.with_context(format!(
                        "{} line {} at {}",
                        self.context,
                        s.line,
                        s.kind.describe()
                    )));
                }
            }
        }
        Ok(Flow::Next)
    }

    fn block(&mut self, b: &Block) -> PgResult<Flow> {
        self.init_decls(b)?;
        self.block_body(b)
    }

    /// Gives the block's variables their defaults; an error names the declaration's line.
    pub(super) fn init_decls(&mut self, b: &Block) -> PgResult<()> {
        for &d in &b.decls {
            if let Err(mut e) = self.init_decl(d) {
                e.position = None;
                if !self.placed {
                    self.placed = true;
                    let line = match &self.state.body.datums[d] {
                        Datum::Var { line, .. } if *line > 0 => *line,
                        _ => b.line,
                    };
                    e = e.with_context(format!(
                        "{} line {line} during statement block local variable initialization",
                        self.context
                    ));
                }
                return Err(e);
            }
        }
        Ok(())
    }

    /// A block's statements and exception handlers, its declarations made.
    pub(super) fn block_body(&mut self, b: &Block) -> PgResult<Flow> {
        let flow = match &b.handlers {
            None => self.stmts(&b.body)?,
            Some(h) => {
                let level = self.spi.sub_begin()?;
                match self.stmts(&b.body) {
                    Ok(flow) => {
                        self.spi.sub_end(level, true)?;
                        flow
                    }
                    Err(e) => {
                        self.spi.sub_end(level, false)?;
                        if e.severity == Severity::Fatal {
                            return Err(e);
                        }
                        let arm = h.arms.iter().find(|(conds, _)| {
                            conds.iter().any(|c| conditions::matches(c, e.code))
                        });
                        let Some((_, action)) = arm else {
                            return Err(e);
                        };
                        self.placed = false;
                        self.values[h.sqlstate] = Value::Text(e.code.to_string());
                        self.values[h.sqlerrm] = Value::Text(e.message.clone());
                        self.state.types[h.sqlstate] = Some((Type::TEXT, -1));
                        self.state.types[h.sqlerrm] = Some((Type::TEXT, -1));
                        self.caught.push(e);
                        let r = self.stmts(action);
                        self.caught.pop();
                        r?
                    }
                }
            }
        };
        Ok(match flow {
            Flow::Exit(Some(l)) if b.label.as_ref() == Some(&l) => Flow::Next,
            other => other,
        })
    }

    fn init_decl(&mut self, d: usize) -> PgResult<()> {
        match self.state.body.datums[d].clone() {
            Datum::Var {
                name,
                default,
                not_null,
                ..
            } => {
                let (ty, typmod) = self.var_type(d)?;
                let v = match &default {
                    Some(site) => {
                        let (v, t) = self.eval(site)?;
                        self.coerce(v, t, ty, typmod)?
                    }
                    None => Value::Null,
                };
                if not_null && v.is_null() {
                    return Err(PgError::new(
                        code::NULL_VALUE_NOT_ALLOWED,
                        format!(
                            "variable \"{name}\" must have a default value, since it's declared NOT NULL"
                        ),
                    ));
                }
                self.values[d] = v;
            }
            Datum::Rec { .. } => {
                if let Some(t) = self.state.body.rowtypes.get(&d).cloned() {
                    self.records[d] = Some(self.null_row_of(&t)?);
                    return Ok(());
                }
                let Some(named) = self.state.body.composites.get(&d).cloned() else {
                    self.records[d] = None;
                    return Ok(());
                };
                match self.null_row_of(&named.typname) {
                    Ok(row) => {
                        self.records[d] = Some(row);
                        if let Datum::Var {
                            default: Some(site),
                            ..
                        } = &named.as_var
                        {
                            let (v, t) = self.eval(site)?;
                            self.assign(d, v, t)?;
                        }
                    }
                    // Not a composite type: a scalar variable of it (for good: this state
                    // is the function's for the session).
                    Err(_)
                        if self
                            .plan_text(&format!("SELECT NULL::{}", named.typname))
                            .is_ok() =>
                    {
                        self.state.body.datums[d] = named.as_var;
                        self.state.body.composites.remove(&d);
                        self.state.types[d] = None;
                        return self.init_decl(d);
                    }
                    Err(_) => self.records[d] = None,
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// A `%ROWTYPE` variable's value when its block starts: the row type's fields, all NULL.
    fn null_row_of(&mut self, typname: &str) -> PgResult<Record> {
        let plan = match self.plan_text(&format!("SELECT * FROM {typname} LIMIT 0")) {
            Ok(p) => p,
            // A composite type that is not a table's.
            Err(_) => self
                .plan_text(&format!("SELECT (NULL::{typname}).*"))
                .map_err(|_| {
                    PgError::new(
                        code::UNDEFINED_TABLE,
                        format!("relation \"{typname}\" does not exist"),
                    )
                })?,
        };
        Ok(Record {
            names: plan.columns.iter().map(|c| c.name.clone()).collect(),
            types: plan.columns.iter().map(|c| c.ty).collect(),
            typmods: plan.columns.iter().map(|c| c.typmod).collect(),
            values: vec![Value::Null; plan.columns.len()],
            null: false,
        })
    }

    fn stmt(&mut self, s: &Stmt) -> PgResult<Flow> {
        match &s.kind {
            StmtKind::Block(b) => self.block(b),
            StmtKind::Assign { target, subs, expr } => {
                if subs.is_empty() {
                    let (v, t) = self.eval(expr)?;
                    self.assign(*target, v, t)?;
                } else {
                    self.assign_element(*target, subs, expr)?;
                }
                Ok(Flow::Next)
            }
            StmtKind::If { arms, otherwise } => {
                for (cond, body) in arms {
                    if self.eval_bool(cond)? {
                        return self.stmts(body);
                    }
                }
                self.stmts(otherwise)
            }
            StmtKind::Case {
                subject,
                arms,
                otherwise,
            } => {
                if let Some((site, dno)) = subject {
                    let (v, t) = self.eval(site)?;
                    self.state.types[*dno] = Some((t, -1));
                    self.values[*dno] = v;
                    // Its WHEN expressions were planned for the value's type.
                }
                for (cond, body) in arms {
                    if self.eval_bool(cond)? {
                        return self.stmts(body);
                    }
                }
                match otherwise {
                    Some(o) => self.stmts(o),
                    None => Err(PgError::new(code::CASE_NOT_FOUND, "case not found")
                        .with_hint("CASE statement is missing ELSE part.")),
                }
            }
            StmtKind::Loop { label, body } => self.looping(label, |f| f.stmts(body).map(Some)),
            StmtKind::While { label, cond, body } => self.looping(label, |f| {
                if !f.eval_bool(cond)? {
                    return Ok(None);
                }
                f.stmts(body).map(Some)
            }),
            StmtKind::ForInt {
                label,
                var,
                lower,
                upper,
                step,
                reverse,
                body,
            } => self.for_int(label, *var, lower, upper, step.as_ref(), *reverse, body),
            StmtKind::ForQuery {
                label,
                target,
                query,
                dynamic,
                body,
            } => self.for_query(label, target, query, dynamic.as_deref(), body),
            StmtKind::ForEach {
                label,
                target,
                array,
                slice,
                body,
            } => self.for_each(label, target, array, *slice, body),
            StmtKind::Exit {
                is_exit,
                label,
                cond,
            } => {
                if let Some(c) = cond {
                    if !self.eval_bool(c)? {
                        return Ok(Flow::Next);
                    }
                }
                Ok(if *is_exit {
                    Flow::Exit(label.clone())
                } else {
                    Flow::Continue(label.clone())
                })
            }
            StmtKind::Return(Some(site)) if self.state.trigger.is_some() => {
                self.trigger_return(site)
            }
            StmtKind::ReturnNext(expr) => self.return_next(expr.as_ref()),
            StmtKind::ReturnQuery { query, dynamic } => {
                self.return_query(query, dynamic.as_deref())
            }
            StmtKind::Return(expr) => {
                let v = match expr {
                    Some(site) => Some(self.eval(site)?),
                    None => None,
                };
                Ok(Flow::Return(v))
            }
            StmtKind::Raise {
                level,
                condname,
                message,
                params,
                options,
            } => self.raise(
                *level,
                condname.as_deref(),
                message.as_deref(),
                params,
                options,
            ),
            StmtKind::Assert { cond, message } => {
                let ok = self.eval(cond)?.0.as_bool();
                if ok != Some(true) {
                    let text = match message {
                        Some(m) => {
                            let (v, t) = self.eval(m)?;
                            if v.is_null() {
                                return Err(PgError::new(
                                    code::NULL_VALUE_NOT_ALLOWED,
                                    "assertion message cannot be null",
                                ));
                            }
                            io::to_text(&v, t, self.spi.fmt())
                        }
                        None => "assertion failed".into(),
                    };
                    return Err(PgError::new(code::ASSERT_FAILURE, text));
                }
                Ok(Flow::Next)
            }
            StmtKind::Call(stmt) => {
                let prev = self.spi.set_nonatomic(self.nonatomic);
                let r = self.sql(stmt, None, false);
                self.spi.set_nonatomic(prev);
                r?;
                Ok(Flow::Next)
            }
            StmtKind::EndTransaction { commit, chain } => {
                self.end_transaction(*commit, *chain)?;
                Ok(Flow::Next)
            }
            StmtKind::Sql { stmt, into, strict } => {
                self.sql(stmt, into.as_ref(), *strict)?;
                Ok(Flow::Next)
            }
            StmtKind::Perform(site) => {
                let (rows, _) = self.run_site(site)?;
                self.row_count = rows.len() as u64;
                self.set_found(!rows.is_empty());
                Ok(Flow::Next)
            }
            StmtKind::Dynamic {
                query,
                into,
                strict,
                params,
            } => {
                self.dynamic(query, into.as_ref(), *strict, params)?;
                Ok(Flow::Next)
            }
            StmtKind::GetDiag { stacked, items } => {
                for (kind, target) in items {
                    let v = self.diagnostic(*stacked, kind)?;
                    let t = match v {
                        Value::Int8(_) => Type::INT8,
                        _ => Type::TEXT,
                    };
                    self.assign(*target, v, t)?;
                }
                Ok(Flow::Next)
            }
            StmtKind::Open {
                curvar,
                query,
                dynamic,
                args,
            } => {
                self.open_cursor(*curvar, query.as_ref(), dynamic.as_ref(), args.as_ref())?;
                Ok(Flow::Next)
            }
            StmtKind::Fetch {
                target,
                curvar,
                direction,
                how_many,
                count,
                is_move,
            } => self.fetch(
                target.as_ref(),
                *curvar,
                *direction,
                *how_many,
                count.as_ref(),
                *is_move,
            ),
            StmtKind::Close { curvar } => self.close_cursor(*curvar),
            StmtKind::ForCursor {
                label,
                rec,
                curvar,
                args,
                body,
            } => self.for_cursor(label, *rec, *curvar, args.as_ref(), body),
            StmtKind::Null => Ok(Flow::Next),
        }
    }

    /// Runs `step` until it returns None (the loop's condition failed) or the loop is left.
    fn looping(
        &mut self,
        label: &Option<String>,
        mut step: impl FnMut(&mut Self) -> PgResult<Option<Flow>>,
    ) -> PgResult<Flow> {
        loop {
            self.spi.check_interrupts()?;
            let Some(flow) = step(self)? else {
                return Ok(Flow::Next);
            };
            if let Some(f) = self.after_iteration(label, flow) {
                return Ok(f);
            }
        }
    }

    /// What a loop does after its body ended with `flow`: None to go on.
    pub(super) fn after_iteration(&self, label: &Option<String>, flow: Flow) -> Option<Flow> {
        match flow {
            Flow::Next => None,
            Flow::Continue(None) => None,
            Flow::Continue(Some(l)) if label.as_ref() == Some(&l) => None,
            Flow::Exit(None) => Some(Flow::Next),
            Flow::Exit(Some(l)) if label.as_ref() == Some(&l) => Some(Flow::Next),
            other => Some(other),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn for_int(
        &mut self,
        label: &Option<String>,
        var: usize,
        lower: &Site,
        upper: &Site,
        step: Option<&Site>,
        reverse: bool,
        body: &[Stmt],
    ) -> PgResult<Flow> {
        self.state.types[var] = Some((Type::INT4, -1));
        let bound = |f: &mut Self, site: &Site, what: &str| -> PgResult<i64> {
            let (v, t) = f.eval(site)?;
            let v = f.coerce(v, t, Type::INT4, -1)?;
            v.as_i64().ok_or_else(|| {
                PgError::new(
                    code::NULL_VALUE_NOT_ALLOWED,
                    format!("{what} of FOR loop cannot be null"),
                )
            })
        };
        let lo = bound(self, lower, "lower bound")?;
        let hi = bound(self, upper, "upper bound")?;
        let by = match step {
            Some(s) => bound(self, s, "BY value")?,
            None => 1,
        };
        if by <= 0 {
            return Err(PgError::new(
                code::INVALID_PARAMETER_VALUE,
                "BY value of FOR loop must be greater than zero",
            ));
        }
        let mut i = lo;
        let mut found = false;
        let flow = loop {
            if (!reverse && i > hi) || (reverse && i < hi) {
                break Flow::Next;
            }
            self.spi.check_interrupts()?;
            found = true;
            self.values[var] = Value::Int4(i as i32);
            let flow = self.stmts(body)?;
            if let Some(f) = self.after_iteration(label, flow) {
                break f;
            }
            i = if reverse { i - by } else { i + by };
            if i < i32::MIN as i64 || i > i32::MAX as i64 {
                break Flow::Next;
            }
        };
        self.set_found(found);
        Ok(flow)
    }

    fn for_each(
        &mut self,
        label: &Option<String>,
        target: &Target,
        array: &Site,
        slice: i64,
        body: &[Stmt],
    ) -> PgResult<Flow> {
        if slice != 0 {
            return Err(PgError::feature_not_supported(
                "FOREACH ... SLICE is not supported yet",
            ));
        }
        let (v, t) = self.eval(array)?;
        let arr = match v {
            Value::Array(a) => a,
            Value::Null => {
                return Err(PgError::new(
                    code::NULL_VALUE_NOT_ALLOWED,
                    "FOREACH expression must not be null",
                ))
            }
            _ => {
                return Err(PgError::new(
                    code::DATATYPE_MISMATCH,
                    format!(
                        "FOREACH expression must yield an array, not type {}",
                        t.name()
                    ),
                ))
            }
        };
        let elem = arr.elem;
        for item in arr.items {
            self.spi.check_interrupts()?;
            match target {
                Target::Vars(vars) if vars.len() == 1 => self.assign(vars[0], item, elem)?,
                _ => {
                    return Err(PgError::feature_not_supported(
                        "FOREACH into a record or several variables is not supported yet",
                    ))
                }
            }
            let flow = self.stmts(body)?;
            if let Some(f) = self.after_iteration(label, flow) {
                return Ok(f);
            }
        }
        Ok(Flow::Next)
    }

    // ------------------------------------------------------------ SQL

    pub(super) fn set_found(&mut self, b: bool) {
        let f = self.state.body.found;
        self.values[f] = Value::Bool(b);
    }

    /// The slots `$1` .. `$n` a site sees: its variables in scope, then the fields of its
    /// assigned records.
    fn slots(&mut self, site: &Site, names: bool) -> PgResult<(FuncParams, Vec<Type>, Vec<Value>)> {
        let mut fp = FuncParams {
            func: String::new(),
            ..Default::default()
        };
        let mut types = Vec::new();
        let mut values = Vec::new();
        let mut records = Vec::new();
        for e in &site.scope.entries {
            match &self.state.body.datums[e.dno] {
                Datum::Var { .. } => {
                    let (t, _) = self.var_type(e.dno)?;
                    if names {
                        fp.names.push(e.name.clone());
                        fp.quals.push(e.labels.clone());
                        fp.bare.push(true);
                    }
                    types.push(t);
                    values.push(self.values[e.dno].clone());
                }
                Datum::Rec { .. } => records.push(e.clone()),
                _ => {}
            }
        }
        for e in records {
            if let Some(r) = &self.records[e.dno] {
                for (i, name) in r.names.iter().enumerate() {
                    if names {
                        fp.names.push(name.clone());
                        fp.quals.push(vec![e.name.clone()]);
                        fp.bare.push(false);
                    }
                    types.push(r.types[i]);
                    values.push(r.values[i].clone());
                }
            }
        }
        Ok((fp, types, values))
    }

    /// The plan of `site` (as `SELECT <text>` when `expr`) and the values of its parameters:
    /// the cached plan when it was made for this epoch and these types.
    pub(super) fn prepare(&mut self, site: &Site, expr: bool) -> PgResult<(Arc<Plan>, Vec<Value>)> {
        // The names are needed only to plan: a cached plan takes just the values.
        let (_, mut types, values) = self.slots(site, false)?;
        let epoch = self.spi.instance().catalog.epoch();
        let path = self.spi.get_setting("search_path", true)?;
        let env = transition_key(&*self.spi);
        if let Some(c) = &self.state.plans[site.id] {
            if c.epoch == epoch && c.types == types && c.path == path && c.env == env {
                let (plan, needs) = (c.plan.clone(), c.needs.clone());
                self.spi
                    .acquire(&needs)
                    .map_err(|e| in_query(e, site, expr))?;
                return Ok((plan, values));
            }
        }
        let text = if expr {
            format!("SELECT {}", site.text)
        } else {
            site.text.clone()
        };
        let tree = crate::sql::parser::parse_tree(&text).map_err(|e| in_query(e, site, expr))?;
        let node = match tree.stmts.as_slice() {
            [one] => one.stmt.as_ref().and_then(|s| s.node.clone()),
            _ => None,
        }
        .ok_or_else(|| {
            PgError::new(
                code::SYNTAX_ERROR,
                format!("query \"{}\" is not a single statement", site.text),
            )
        })?;
        let planned_types = types.clone();
        let (fp, _, _) = self.slots(site, true)?;
        let (plan, needs) = self
            .plan_node(&node, &mut types, Some(fp))
            .map_err(|e| in_query(e, site, expr))?;
        let plan = Arc::new(plan);
        if expr && plan.columns.len() != 1 {
            return Err(PgError::new(
                code::SYNTAX_ERROR,
                format!("query \"{}\" returned {} columns", text, plan.columns.len()),
            ));
        }
        self.spi
            .acquire(&needs)
            .map_err(|e| in_query(e, site, expr))?;
        self.state.plans[site.id] = Some(Cached {
            plan: plan.clone(),
            needs,
            epoch,
            types: planned_types,
            path,
            env,
        });
        Ok((plan, values))
    }

    /// Runs a plan to its end: its rows and the rows it wrote.
    pub(super) fn run_plan(
        &mut self,
        plan: &Plan,
        params: &[Value],
    ) -> PgResult<(Vec<Vec<Value>>, u64)> {
        self.spi.next_command();
        let mut cx = EvalCx {
            params,
            outer: Vec::new(),
            session: self.spi.as_ctx(),
        };
        let (rows, err, affected) = exec::run_plan_counted(plan, &mut cx);
        if let Some(e) = err {
            return Err(e);
        }
        let n = affected.unwrap_or(rows.len() as u64);
        Ok((rows, n))
    }

    /// Runs a site's query: its rows and the rows it wrote.
    pub(super) fn run_site(&mut self, site: &Site) -> PgResult<(Vec<Vec<Value>>, u64)> {
        let (plan, params) = self.prepare(site, false)?;
        (self.run_plan(&plan, &params)).map_err(|e| in_query(e, site, false))
    }

    /// Evaluates an expression site: its value and type (NULL without a row).
    pub(super) fn eval(&mut self, site: &Site) -> PgResult<(Value, Type)> {
        let (plan, params) = self.prepare(site, true)?;
        let ty = plan.columns[0].ty;
        let mut cx = EvalCx {
            params: &params,
            outer: Vec::new(),
            session: self.spi.as_ctx(),
        };
        // An expression over no table (the common case) is evaluated without an executor, as
        // PostgreSQL's PL/pgSQL evaluates its "simple expressions".
        if let crate::sql::plan::Node::Project { input, exprs } = &plan.node {
            if matches!(input.node, crate::sql::plan::Node::Result) && exprs.len() == 1 {
                let v = exprs[0].eval(&[], &mut cx).map_err(|e| {
                    if shown_in_errors(&exprs[0]) {
                        in_query(e, site, true)
                    } else {
                        e
                    }
                })?;
                return Ok((v, ty));
            }
        }
        let mut ex = exec::open(&*plan);
        let first = ex.next_row(&mut cx).map_err(|e| in_query(e, site, true))?;
        let second = match first {
            Some(_) => ex.next_row(&mut cx).map_err(|e| in_query(e, site, true))?,
            None => None,
        };
        if first.is_some() && second.is_some() {
            return Err(PgError::new(
                code::CARDINALITY_VIOLATION,
                format!("query \"SELECT {}\" returned more than one row", site.text),
            ));
        }
        let v = first
            .and_then(|r| r.into_iter().next())
            .unwrap_or(Value::Null);
        Ok((v, ty))
    }

    pub(super) fn eval_bool(&mut self, site: &Site) -> PgResult<bool> {
        let (v, t) = self.eval(site)?;
        if t != Type::BOOL && !v.is_null() {
            let v = self.coerce(v, t, Type::BOOL, -1)?;
            return Ok(v.as_bool() == Some(true));
        }
        Ok(v.as_bool() == Some(true))
    }

    pub(super) fn coerce(&self, v: Value, from: Type, to: Type, typmod: i32) -> PgResult<Value> {
        // A domain's value is held as its base type (its checks are the caller's).
        let (from, (to, typmod)) = match (from.base_type(), to.base()) {
            (f, (b, m)) if b != to => (f, (b, if typmod < 0 { m } else { typmod })),
            (f, _) => (f, (to, typmod)),
        };
        if v.is_null() || (from == to && typmod < 0) {
            return Ok(v);
        }
        match cast::cast(v.clone(), from, to, typmod, self.spi.fmt()) {
            Ok(v) => Ok(v),
            Err(e) if e.code == code::CANNOT_COERCE || e.code == code::DATATYPE_MISMATCH => {
                // PL/pgSQL converts through text where no cast applies.
                let s = io::to_text(&v, from, self.spi.fmt());
                io::from_text(&s, to, typmod, self.spi.fmt())
            }
            Err(e) => Err(e),
        }
    }

    /// The index of field `field` of record variable `rec` (which must be assigned).
    pub(super) fn rec_field(&self, rec: usize, field: &str) -> PgResult<usize> {
        let name = self.state.body.datums[rec].name();
        let Some(r) = &self.records[rec] else {
            return Err(not_assigned(name));
        };
        r.names.iter().position(|n| n == field).ok_or_else(|| {
            PgError::new(
                code::UNDEFINED_COLUMN,
                format!("record \"{name}\" has no field \"{field}\""),
            )
        })
    }

    pub(super) fn assign(&mut self, target: usize, v: Value, from: Type) -> PgResult<()> {
        match self.state.body.datums[target].clone() {
            Datum::Var {
                name,
                constant,
                not_null,
                ..
            } => {
                if constant {
                    return Err(PgError::new(
                        code::SYNTAX_ERROR,
                        format!("variable \"{name}\" is declared CONSTANT"),
                    ));
                }
                let (ty, typmod) = self.var_type(target)?;
                let v = self.coerce(v, from, ty, typmod)?;
                if ty.is_domain() {
                    self.check_domain(target, ty, &v)?;
                }
                if not_null && v.is_null() {
                    return Err(PgError::new(
                        code::NULL_VALUE_NOT_ALLOWED,
                        format!(
                            "null value cannot be assigned to variable \"{name}\" declared NOT NULL"
                        ),
                    ));
                }
                self.values[target] = v;
                Ok(())
            }
            Datum::Row { fields } => {
                let values = match v {
                    Value::Record(r) => r,
                    other => vec![other],
                };
                for (f, v) in fields.iter().zip(values) {
                    self.assign(*f, v, from)?;
                }
                Ok(())
            }
            Datum::RecField { rec, field } => {
                let i = self.rec_field(rec, &field)?;
                let r = self.records[rec].as_ref().expect("checked by rec_field");
                let v = self.coerce(v, from, r.types[i], r.typmods[i])?;
                let r = self.records[rec].as_mut().expect("checked above");
                r.values[i] = v;
                if r.null {
                    // The other fields stay NULL; the row is one now.
                    r.null = false;
                }
                Ok(())
            }
            Datum::Rec { name } => {
                // A whole row into a record of known structure (a composite type's or
                // %ROWTYPE's), field by field in order; NULL makes the fields NULL.
                let known = self.records[target].clone().filter(|_| {
                    self.state.body.rowtypes.contains_key(&target)
                        || self.state.body.composites.contains_key(&target)
                });
                let Some(shape) = known else {
                    // A plain `record` takes the structure of what is assigned: a composite
                    // type's fields, or an anonymous row's f1, f2 ... of its values' types.
                    let values = match v {
                        Value::Record(r) => r,
                        Value::Null => {
                            self.records[target] = None;
                            return Ok(());
                        }
                        _ => {
                            return Err(PgError::new(
                                code::DATATYPE_MISMATCH,
                                format!(
                                "cannot assign non-composite value to a record variable \"{name}\""
                            ),
                            ))
                        }
                    };
                    let typname = cast::format_type_with_typmod(from, -1);
                    let mut row = match from {
                        Type::RECORD => Record {
                            names: (1..=values.len()).map(|i| format!("f{i}")).collect(),
                            types: values.iter().map(io::value_type).collect(),
                            typmods: vec![-1; values.len()],
                            values: Vec::new(),
                            null: false,
                        },
                        _ => self.null_row_of(&typname)?,
                    };
                    if row.names.len() != values.len() {
                        return Err(PgError::new(
                            code::DATATYPE_MISMATCH,
                            "returned record type does not match expected record type",
                        ));
                    }
                    row.values = values;
                    row.null = false;
                    self.records[target] = Some(row);
                    return Ok(());
                };
                let values = match v {
                    Value::Record(r) => r,
                    Value::Null => vec![Value::Null; shape.names.len()],
                    _ => {
                        return Err(PgError::new(
                            code::DATATYPE_MISMATCH,
                            format!(
                                "cannot assign non-composite value to a record variable \"{name}\""
                            ),
                        ))
                    }
                };
                if values.len() != shape.names.len() {
                    return Err(PgError::new(
                        code::DATATYPE_MISMATCH,
                        "returned record type does not match expected record type",
                    ));
                }
                let mut row = shape;
                for (i, v) in values.into_iter().enumerate() {
                    let t = crate::sql::types::io::value_type(&v);
                    row.values[i] = self.coerce(v, t, row.types[i], row.typmods[i])?;
                }
                row.null = false;
                self.records[target] = Some(row);
                Ok(())
            }
        }
    }

    /// Puts a row of `plan` into `target` (missing columns: NULL; extra: ignored).
    pub(super) fn assign_row(
        &mut self,
        target: &Target,
        plan: &Plan,
        row: crate::sql::exec::Row,
    ) -> PgResult<()> {
        let values = row;
        match target {
            Target::Vars(vars) => {
                for (i, var) in vars.iter().enumerate() {
                    let (v, t) = match values.get(i) {
                        Some(v) => (v.clone(), plan.columns[i].ty),
                        None => (Value::Null, Type::UNKNOWN),
                    };
                    self.assign(*var, v, t)?;
                }
            }
            Target::Rec(r) => {
                self.records[*r] = Some(Record {
                    names: plan.columns.iter().map(|c| c.name.clone()).collect(),
                    types: plan.columns.iter().map(|c| c.ty).collect(),
                    typmods: plan.columns.iter().map(|c| c.typmod).collect(),
                    values,
                    null: false,
                });
            }
        }
        Ok(())
    }
}

/// An error raised while a body's SQL was planned or run, placed as PostgreSQL's SPI places
/// it: with a position, the position moves into the statement (fields p and q: psql prints
/// the statement as `QUERY:` with a caret); without one, a context line names the statement
/// (`SQL statement "..."`), the expression (`SQL expression "..."`) or the assignment
/// (`PL/pgSQL assignment "..."`). An expression was planned as `SELECT <text>`.
pub(super) fn in_query(e: PgError, site: &Site, expr: bool) -> PgError {
    const SELECT: i64 = "SELECT ".len() as i64;
    match (&site.assignment, expr) {
        (Some((whole, at)), true) => {
            query_error(e, "PL/pgSQL assignment", whole, *at as i64 - SELECT)
        }
        (None, true) => query_error(e, "SQL expression", &site.text, -SELECT),
        (_, false) => query_error(e, "SQL statement", &site.text, 0),
    }
}

/// Whether PostgreSQL names expression `e` in an error raised while evaluating it: when `e`
/// is not one of its "simple expressions" (a subquery runs through the executor, inside the
/// statement's error context), or when its planner would have evaluated `e` already (only
/// constants, operators and built-in functions: no variable, user or session function).
fn shown_in_errors(e: &crate::sql::plan::Expr) -> bool {
    use crate::sql::plan::Expr as E;
    let (mut subquery, mut varies) = (false, false);
    e.any(&mut |x| {
        subquery |= matches!(x, E::Subquery(..));
        varies |= matches!(
            x,
            E::Param(_) | E::UserCall(_) | E::Session { .. } | E::Column(_)
        );
        false
    });
    subquery || !varies
}

/// [`in_query`] for `query`, whose positions are `shift` characters after the error's.
pub(super) fn query_error(mut e: PgError, label: &str, query: &str, shift: i64) -> PgError {
    if let Some(p) = e.position.take() {
        let position = (i64::from(p) + shift).max(1) as u32;
        e.internal = Some(Box::new(crate::error::InternalQuery {
            position,
            query: query.to_string(),
        }));
        return e;
    }
    e.with_context(format!("{label} \"{query}\""))
}

/// PostgreSQL's error for a field of a record that holds no row yet.
pub(super) fn not_assigned(name: &str) -> PgError {
    PgError::new(
        code::OBJECT_NOT_IN_PREREQUISITE_STATE,
        format!("record \"{name}\" is not assigned yet"),
    )
    .with_detail("The tuple structure of a not-yet-assigned record is indeterminate.")
}
