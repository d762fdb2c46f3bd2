//! Calls of user-defined functions (CREATE FUNCTION ... LANGUAGE sql): finding the function
//! among its overloads (PostgreSQL's func_get_detail, for the functions of the catalog), its
//! arguments in declared order with named arguments and defaults, and its body planned for
//! the call.
//!
//! A SQL function's body is planned where the call is planned, with the declared argument
//! types as the types of `$1` .. `$n`, which a name of a parameter also reaches when no
//! column of that name is in scope (PostgreSQL's rule for SQL functions: columns win). The
//! body's tables resolve through the function's own `SET search_path` if it has one, else
//! the caller's. The call then evaluates the arguments and runs the planned statements
//! (`exec/user_func.rs`). A function met again while its own body is being planned
//! (recursion) is refused: planning at the call would not end.
//!
//! A polymorphic function (`polymorphic.rs`) is instantiated for each call: the actual types
//! its arguments give the polymorphic parameters and result replace them in a copy of its
//! definition ([`Function::instance`]), with which the body is planned or compiled. A VARIADIC
//! parameter gathers the trailing arguments into an array unless the call says VARIADIC.
//!
//! Candidates are the functions of the name in the schemas of search_path (the first schema
//! that has a signature wins it) or in the named schema. A call that fits a built-in
//! function exactly, or fits no user function, is left to the built-ins (pg_catalog comes
//! first in every search path).

use std::sync::Arc;

use pg_query::protobuf::{self, node::Node as N};

use super::agg::AggCtx;
use super::modify::TableCx;
use super::scope::Scope;
use super::{loc, polymorphic, Column, Expr, Node, Plan, Planner, SqlBody, UserBody, UserCall};
use crate::catalog::functions::{FuncArg, Function, FunctionDef};
use crate::error::{code, PgError, PgResult};
use crate::sql::types::cast::{self, CoercionContext};
use crate::sql::types::Type;

/// The names a routine's body may use for `$1` .. `$n`: a SQL function's parameters, or the
/// variables a PL/pgSQL statement sees (`sql::pl`). Names reach a parameter only where no
/// column of that name is in scope (columns win).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FuncParams {
    /// The routine's name, which qualifies every slot (`f.x`).
    pub func: String,
    /// Slot i's name (`$i+1`); empty for an unnamed parameter.
    pub names: Vec<String>,
    /// Slot i's other qualifiers (a PL/pgSQL block label, a record variable's name).
    pub quals: Vec<Vec<String>>,
    /// Whether slot i is reached by its bare name (a record's field is not: only `r.f`).
    pub bare: Vec<bool>,
}

impl FuncParams {
    /// The parameters of a SQL function: each reached bare or qualified by the function's name.
    pub fn of_function(func: &str, names: Vec<String>) -> FuncParams {
        let n = names.len();
        FuncParams {
            func: func.to_string(),
            names,
            quals: vec![Vec::new(); n],
            bare: vec![true; n],
        }
    }

    /// The slot `fields` names, the innermost (last) declaration first.
    pub fn lookup(&self, fields: &[String]) -> Option<usize> {
        let (qual, name) = match fields {
            [n] => (None, n),
            [q, n] => (Some(q), n),
            _ => return None,
        };
        (0..self.names.len()).rev().find(|&i| {
            !self.names[i].is_empty()
                && self.names[i] == *name
                && match qual {
                    None => self.bare[i],
                    Some(q) => {
                        (self.bare[i] && *q == self.func) || self.quals[i].iter().any(|x| x == q)
                    }
                }
        })
    }
}

/// The search_path a function's `SET search_path` gives its body, if it has one.
fn config_search_path(def: &FunctionDef) -> Option<&str> {
    def.config
        .iter()
        .find_map(|c| c.strip_prefix("search_path="))
}

impl Planner<'_> {
    /// pg_trgm's set_limit(real): set_config of pg_trgm.similarity_threshold to the value as
    /// float4 prints it, read back as float4, as pg_trgm sets and returns it.
    fn set_limit(&mut self, arg: Expr) -> PgResult<Expr> {
        use crate::sql::func::extension::pg_trgm::SETTINGS;
        use crate::sql::func::session_fn::SessionFn;
        use crate::sql::types::Value;
        let value = self.coerce(
            arg,
            Type::FLOAT4,
            Type::TEXT,
            -1,
            CoercionContext::Explicit,
            -1,
        )?;
        let set = Expr::Session {
            f: SessionFn::SetConfig,
            args: vec![
                Expr::Const(Value::Text(SETTINGS[0].to_string())),
                value,
                Expr::Const(Value::Bool(false)),
            ],
            arg_types: vec![Type::TEXT, Type::TEXT, Type::BOOL],
        };
        self.coerce(
            set,
            Type::TEXT,
            Type::FLOAT4,
            -1,
            CoercionContext::Explicit,
            -1,
        )
    }

    /// The user functions `names` may call (see the module comment), or none when no user
    /// function exists.
    pub(super) fn user_functions(&self, names: &[String]) -> Vec<Arc<Function>> {
        self.user_routines(names, false)
    }

    /// The user functions (`aggregates` false) or user aggregates of a name, the first of
    /// each signature along the search path.
    pub(super) fn user_routines(&self, names: &[String], aggregates: bool) -> Vec<Arc<Function>> {
        let Some(t) = self.tables.as_ref() else {
            return Vec::new();
        };
        if !t.catalog.functions.may_exist() {
            return Vec::new();
        }
        // A later CREATE FUNCTION may change what the call resolves to.
        t.used.set(true);
        let Some(name) = names.last() else {
            return Vec::new();
        };
        let schemas: Vec<&str> = match names {
            [_] => crate::sql::engine::search_schemas(&t.search_path).collect(),
            [schema, _] => vec![schema.as_str()],
            [db, schema, _] if db == t.database => vec![schema.as_str()],
            _ => Vec::new(),
        };
        let mut out: Vec<Arc<Function>> = Vec::new();
        for s in schemas {
            for f in t.catalog.functions.named(t.database, s, name, &t.snap) {
                if (f.def.kind == 'a') != aggregates {
                    continue;
                }
                let inputs = f.def.input_types();
                if !out.iter().any(|o| o.def.input_types() == inputs) {
                    out.push(f);
                }
            }
        }
        out
    }

    /// A call of a user function (None: no user function of the name fits; the built-ins
    /// are tried).
    pub(super) fn bind_user_call(
        &mut self,
        fc: &protobuf::FuncCall,
        names: &[String],
        scope: &Scope,
        mut agg: Option<&mut AggCtx>,
    ) -> PgResult<Option<(Expr, Type)>> {
        let cands = self.user_functions(names);
        if cands.is_empty() {
            return Ok(None);
        }
        // CALL's own call, which passes a procedure's OUT parameters too (`call.rs`).
        let is_call = self.call_at == Some(fc.location);
        let name = names.last().cloned().unwrap_or_default();
        let mut positional: Vec<(Expr, Type)> = Vec::new();
        let mut named: Vec<(String, Expr, Type)> = Vec::new();
        for a in &fc.args {
            match a.node.as_ref() {
                Some(N::NamedArgExpr(na)) => {
                    let arg = na
                        .arg
                        .as_ref()
                        .and_then(|n| n.node.as_ref())
                        .ok_or_else(|| PgError::syntax("named argument without a value"))?;
                    let (e, t) = self.bind(arg, scope, agg.as_deref_mut())?;
                    if named.iter().any(|(n, ..)| *n == na.name) {
                        return Err(PgError::new(
                            code::SYNTAX_ERROR,
                            format!("argument name \"{}\" used more than once", na.name),
                        )
                        .at(loc(na.location)));
                    }
                    named.push((na.name.clone(), e, t));
                }
                Some(n) => {
                    if !named.is_empty() {
                        return Err(PgError::new(
                            code::SYNTAX_ERROR,
                            "positional argument cannot follow named argument",
                        )
                        .at(loc(super::node_location(n))));
                    }
                    positional.push(self.bind(n, scope, agg.as_deref_mut())?);
                }
                None => return Err(PgError::syntax("empty argument")),
            }
        }
        let pos_types: Vec<Type> = positional.iter().map(|(_, t)| *t).collect();
        let named_types: Vec<(&str, Type)> =
            named.iter().map(|(n, _, t)| (n.as_str(), *t)).collect();
        let mut fitting: Vec<(Arc<Function>, Fit)> = Vec::new();
        for f in cands {
            let fit = fits(&f.def, &pos_types, &named_types, fc.func_variadic, is_call);
            if let Some(fit) = fit {
                fitting.push((f, fit));
            }
        }
        let top = fitting.iter().map(|(_, fit)| fit.score).max();
        let mut tie = fitting
            .iter()
            .filter(|(_, fit)| Some(fit.score) == top)
            .count()
            > 1;
        // Candidates whose parameters take the positional arguments as the same types are
        // ambiguous when one fills parameters with defaults (PostgreSQL's FuncnameGetCandidates).
        let positional_key =
            |fit: &Fit| fit.declared[..pos_types.len().min(fit.declared.len())].to_vec();
        let best_at = fitting.iter().position(|(_, fit)| Some(fit.score) == top);
        if let (Some(b), true) = (best_at, named.is_empty()) {
            let key = positional_key(&fitting[b].1);
            tie |= fitting.iter().enumerate().any(|(i, (_, fit))| {
                i != b
                    && positional_key(fit) == key
                    && (fit.slots.contains(&Slot::Default)
                        || fitting[b].1.slots.contains(&Slot::Default))
            });
        }
        let best = best_at.map(|b| fitting.swap_remove(b));
        let all_types: Vec<Type> = pos_types
            .iter()
            .copied()
            .chain(named_types.iter().map(|(_, t)| *t))
            .collect();
        let Some((f, fit)) = best else {
            if is_call {
                return Err(self.call_unmatched(&names.join("."), &pos_types, &named_types, fc));
            }
            if names.len() > 1 || !named.is_empty() {
                // PostgreSQL names a named argument's type `name => type`.
                let shown: Vec<String> = pos_types
                    .iter()
                    .map(|t| t.name())
                    .chain(
                        named_types
                            .iter()
                            .map(|(n, t)| format!("{n} => {}", t.name())),
                    )
                    .collect();
                return Err(PgError::new(
                    code::UNDEFINED_FUNCTION,
                    format!("function {}({}) does not exist", names.join("."), shown.join(", ")),
                )
                .with_hint(
                    "No function matches the given name and argument types. You might need to add explicit type casts.",
                )
                .at(loc(fc.location)));
            }
            return Ok(None);
        };
        let written = fit.slots.iter().filter(|s| **s != Slot::Default).count();
        let exact = fit.score == 10 * written as i32 && fit.gathered == 0;
        // PostgreSQL keeps the candidates with the most exact matches of typed arguments
        // first: a built-in function can match exactly only the arguments of built-in types,
        // so one that matches more arguments exactly (citext's regexp_match(citext, citext,
        // text) called with three citext values) is chosen over any built-in one.
        let builtin_typed = pos_types
            .iter()
            .filter(|t| **t != Type::UNKNOWN && t.0 < crate::catalog::FIRST_USER_OID)
            .count();
        let exact_typed = pos_types
            .iter()
            .zip(&fit.declared)
            .filter(|(t, d)| **t != Type::UNKNOWN && **t == d.base_type())
            .count();
        let exact = exact || fit.gathered == 0 && exact_typed > builtin_typed;
        // A procedure CALL names is not given up for a built-in function.
        let call_of_procedure = is_call && f.def.kind == 'p';
        if names.len() == 1
            && named.is_empty()
            && !exact
            && !call_of_procedure
            && self.builtin_fits(&name, &pos_types)
        {
            return Ok(None);
        }
        if tie {
            return Err(super::not_unique(&names.join("."), &all_types, fc.location));
        }
        // PostgreSQL names the call by its arguments' types in both errors.
        if is_call && f.def.kind != 'p' {
            let shown = super::call::call_signature(&name, &pos_types, &named_types);
            return Err(super::call::not_a_procedure(&shown, fc.location));
        }
        if f.def.kind == 'p' && !is_call {
            let shown = super::call::call_signature(&name, &pos_types, &named_types);
            return Err(
                PgError::new(code::WRONG_OBJECT_TYPE, format!("{shown} is a procedure"))
                    .with_hint("To call a procedure, use CALL.")
                    .at(loc(fc.location)),
            );
        }
        let mut pos = positional.into_iter();
        let mut named: Vec<Option<(String, Expr, Type)>> = named.into_iter().map(Some).collect();
        let mut bound = Vec::with_capacity(fit.slots.len());
        let inputs = call_params(&f.def, is_call);
        for (i, slot) in fit.slots.iter().enumerate() {
            bound.push(match slot {
                Slot::Positional => pos.next().expect("a positional argument per slot"),
                Slot::Named(i) => {
                    let (_, e, t) = named[*i].take().expect("each named argument once");
                    (e, t)
                }
                Slot::Default => self.bind_default(inputs[i.min(inputs.len() - 1)], &f)?,
            });
        }
        let out_slots: Vec<bool> = inputs.iter().map(|a| a.mode == 'o').collect();
        // A polymorphic function's actual types come from the arguments: its instance for
        // this call has them in place of the declared ones.
        let (resolved, f) = if is_polymorphic(&f.def) {
            let actual: Vec<Type> = bound.iter().map(|(_, t)| *t).collect();
            let (r, def) = instantiate(&f.def, &fit.declared, &actual)?;
            (r, Arc::new(Function::instance(&f, def)))
        } else {
            (polymorphic::Resolved::default(), f)
        };
        let mut args = Vec::with_capacity(bound.len());
        for (i, (((e, t), declared), slot)) in bound
            .into_iter()
            .zip(&fit.declared)
            .zip(&fit.slots)
            .enumerate()
        {
            // A procedure's OUT argument only selects the procedure: it is not passed.
            if out_slots.get(i).copied().unwrap_or(false) {
                continue;
            }
            let want = resolved.concrete(*declared).unwrap_or(*declared);
            // A default converts as CREATE FUNCTION checked it would.
            let context = if *slot == Slot::Default {
                CoercionContext::Assignment
            } else {
                CoercionContext::Implicit
            };
            args.push(self.coerce(e, t, want, -1, context, fc.location)?);
        }
        if fit.gathered > 0 {
            // The gathered arguments become the VARIADIC parameter's array.
            let elem = fit.declared.last().copied().unwrap_or(Type::TEXT);
            let elem = resolved.concrete(elem).unwrap_or(elem).base_type();
            let tail = args.split_off(args.len() - fit.gathered);
            args.push(Expr::Array(tail, elem));
        }
        let ret = Type(f.def.returns);
        if f.def.body == "set_limit" && f.def.language == "c" && args.len() == 1 {
            return Ok(Some((self.set_limit(args.remove(0))?, ret)));
        }
        if matches!(f.def.language.as_str(), "internal" | "c") {
            // An extension's function: its body is a symbol of `func::extension`.
            let func = crate::sql::func::extension::internal(&f.def.body).ok_or_else(|| {
                PgError::new(
                    code::UNDEFINED_FUNCTION,
                    format!("there is no built-in function named \"{}\"", f.def.body),
                )
            })?;
            // An immutable call on constants is computed now, its errors included, as
            // PostgreSQL folds it while planning.
            if f.def.volatility == 'i' && args.iter().all(Expr::is_const) {
                let vals: Vec<crate::sql::types::Value> = args
                    .iter()
                    .map(|e| match e {
                        Expr::Const(v) => v.clone(),
                        _ => unreachable!("all constant"),
                    })
                    .collect();
                if f.def.strict && vals.iter().any(|v| v.is_null()) {
                    return Ok(Some((Expr::Const(crate::sql::types::Value::Null), ret)));
                }
                if let Some(v) = self.fold(func(&vals, self.fmt))? {
                    return Ok(Some((Expr::Const(v), ret)));
                }
            }
            let call = Expr::Func {
                f: func,
                args,
                strict: f.def.strict,
            };
            return Ok(Some((call, ret)));
        }
        let body = if f.def.language == "plpgsql" {
            // Planned statement by statement when it runs (`sql::pl`), as PostgreSQL's PL/pgSQL.
            UserBody::PlPgSql(f.clone())
        } else {
            UserBody::Sql(self.plan_sql_function(f.oid, &f.def)?)
        };
        Ok(Some((
            Expr::UserCall(Box::new(UserCall {
                oid: f.oid,
                name: f.def.name.clone(),
                args,
                strict: f.def.strict,
                body,
                returns_set: f.def.returns_set,
                outs: f
                    .def
                    .args
                    .iter()
                    .filter(|a| a.is_output())
                    .map(|a| (a.name.clone(), Type(a.type_oid)))
                    .collect(),
            })),
            ret.base_type(),
        )))
    }

    /// Whether a built-in function of `name` takes these argument types.
    pub(super) fn builtin_fits(&mut self, name: &str, types: &[Type]) -> bool {
        crate::sql::func::session_fn::lookup(name, types.len()).is_some()
            || !crate::sql::func::lookup(name).is_empty()
                && self.resolve_function(name, types, -1).is_ok()
    }

    /// A parameter's default, bound as written at CREATE FUNCTION.
    fn bind_default(&mut self, param: &FuncArg, f: &Function) -> PgResult<(Expr, Type)> {
        let text = param.default.as_deref().unwrap_or("NULL");
        let node = crate::sql::parser::parse_node(&format!("SELECT {text}"))?;
        let target = match &node {
            N::SelectStmt(s) => s.target_list.first().and_then(|t| match t.node.as_ref() {
                Some(N::ResTarget(r)) => r.val.as_ref().and_then(|v| v.node.clone()),
                _ => None,
            }),
            _ => None,
        }
        .ok_or_else(|| {
            PgError::internal(format!(
                "the default of a parameter of {} is no expression",
                f.def.name
            ))
        })?;
        self.bind(&target, &Scope::default(), None)
    }

    /// A parameter's default expression at CREATE FUNCTION: it must convert to the
    /// parameter's type.
    pub fn bind_default_for(&mut self, n: &N, ty: Type) -> PgResult<()> {
        let (e, t) = self.bind(n, &Scope::default(), None)?;
        // PostgreSQL converts a default as it assigns a value (coerce_to_specific_type).
        self.coerce(e, t, ty, -1, CoercionContext::Assignment, -1)
            .map(|_| ())
            .map_err(|err| {
                if !matches!(err.code, code::DATATYPE_MISMATCH | code::CANNOT_COERCE) {
                    return err;
                }
                PgError::new(
                    code::DATATYPE_MISMATCH,
                    format!(
                        "argument of DEFAULT must be type {}, not type {}",
                        ty.name(),
                        t.name()
                    ),
                )
            })
    }

    /// The body of SQL function `f`, planned for calls with its declared argument types
    /// (also at CREATE FUNCTION, to check it).
    pub fn plan_sql_function(&mut self, oid: u32, def: &FunctionDef) -> PgResult<Arc<SqlBody>> {
        if def.language != "sql" {
            return Err(PgError::feature_not_supported(format!(
                "functions in language \"{}\" cannot be called yet",
                def.language
            )));
        }
        if self.expanding.contains(&oid) {
            return Err(PgError::feature_not_supported(format!(
                "SQL function \"{}\" calls itself, which is not supported yet",
                def.name
            )));
        }
        crate::stack::check()?;
        let tree = crate::sql::parser::parse_tree(&def.body)?;
        let inputs: Vec<&FuncArg> = def.args.iter().filter(|a| a.is_input()).collect();
        // A domain parameter's value is its base type's inside the body.
        let mut types: Vec<Type> = inputs
            .iter()
            .map(|a| Type(a.type_oid).base_type())
            .collect();
        let params = Arc::new(FuncParams::of_function(
            &def.name,
            inputs.iter().map(|a| a.name.clone()).collect(),
        ));
        let path = config_search_path(def);
        let mut stmts = Vec::new();
        let mut writes = Vec::new();
        let mut expanding = self.expanding.clone();
        expanding.push(oid);
        for raw in &tree.stmts {
            let Some(node) = raw.stmt.as_ref().and_then(|s| s.node.as_ref()) else {
                continue;
            };
            let mut inner = Planner::new(&mut types, self.fmt);
            inner.expanding = expanding.clone();
            inner.func_params = Some(params.clone());
            inner.tables = self.tables.as_ref().map(|t| TableCx {
                search_path: match path {
                    Some(p) => std::borrow::Cow::Owned(p.to_string()),
                    None => t.search_path.clone(),
                },
                // A SQL function's body sees no transition tables (PostgreSQL's SPI
                // registers them for the trigger function only).
                transitions: &[],
                ..t.clone()
            });
            // Positions in the body's text mean nothing in the calling statement's.
            let in_body = |mut e: PgError| {
                e.position = None;
                e.with_context(format!("SQL function \"{}\"", def.name))
            };
            let plan = match node {
                N::SelectStmt(_) => inner.plan_query(node).map_err(in_body)?,
                N::InsertStmt(_) | N::UpdateStmt(_) | N::DeleteStmt(_) => {
                    writes.push(true);
                    inner.plan_dml(node).map_err(in_body)?
                }
                _ if def.returns != Type::VOID.0 && raw == tree.stmts.last().expect("a statement") => {
                    return Err(PgError::new(
                        code::INVALID_FUNCTION_DEFINITION,
                        format!(
                            "return type mismatch in function declared to return {}",
                            Type(def.returns).name()
                        ),
                    )
                    .with_detail(
                        "Function's final statement must be SELECT or INSERT/UPDATE/DELETE RETURNING.",
                    ))
                }
                N::CallStmt(c) => {
                    // A procedure may write: later statements see what it did.
                    writes.push(true);
                    inner.plan_call(c).map_err(in_body)?
                }
                other => {
                    return Err(PgError::feature_not_supported(format!(
                        "{} in a SQL function is not supported yet",
                        super::node_name(other)
                    )))
                }
            };
            if writes.len() == stmts.len() {
                writes.push(false);
            }
            stmts.push(plan);
        }
        let ret = Type(def.returns);
        let returns_void = ret == Type::VOID;
        if !returns_void {
            let mismatch = |detail: String| {
                PgError::new(
                    code::INVALID_FUNCTION_DEFINITION,
                    format!(
                        "return type mismatch in function declared to return {}",
                        ret.name()
                    ),
                )
                .with_detail(detail)
            };
            let Some(last) = stmts.pop() else {
                return Err(mismatch(
                    "Function's final statement must be SELECT or INSERT/UPDATE/DELETE RETURNING."
                        .into(),
                ));
            };
            if !super::returns_rows(&last) {
                return Err(mismatch(
                    "Function's final statement must be SELECT or INSERT/UPDATE/DELETE RETURNING."
                        .into(),
                ));
            }
            if ret == Type::RECORD {
                // A row of OUT parameters or of a column definition list: its columns as they
                // are (the executor checks them against the row expected), but a column an
                // assignment cast takes to its OUT parameter's type is cast, as PostgreSQL
                // coerces the final statement to the OUT parameters' row.
                let outs: Vec<Type> = def
                    .args
                    .iter()
                    .filter(|a| a.is_output())
                    .map(|a| Type(a.type_oid).base_type())
                    .collect();
                let last = if outs.len() == last.columns.len()
                    && outs.iter().zip(&last.columns).any(|(t, c)| *t != c.ty)
                {
                    let cols: Vec<(Type, Type)> = outs
                        .iter()
                        .zip(&last.columns)
                        .map(|(t, c)| (c.ty, *t))
                        .collect();
                    let mut exprs = Vec::with_capacity(cols.len());
                    let mut columns = last.columns.clone();
                    for (i, (from, to)) in cols.into_iter().enumerate() {
                        match self.assign_result_column(i, from, to, -1) {
                            Some(e) if from != to => {
                                exprs.push(e);
                                columns[i].ty = to;
                                columns[i].typmod = -1;
                            }
                            _ => exprs.push(Expr::Column(i)),
                        }
                    }
                    Plan {
                        columns,
                        node: Node::Project {
                            input: Box::new(last),
                            exprs,
                        },
                    }
                } else {
                    last
                };
                stmts.push(last);
                return Ok(Arc::new(SqlBody {
                    stmts,
                    writes,
                    returns_void,
                }));
            }
            // A composite result from the final statement's columns, one per field (unless
            // it returns one column of the type itself), each assigned to its field's type.
            if let Some(fields) = self.composite_fields(ret) {
                if !(last.columns.len() == 1 && last.columns[0].ty == ret) {
                    if last.columns.len() != fields.len() {
                        return Err(mismatch(format!(
                            "Final statement returns too {} columns.",
                            if last.columns.len() > fields.len() {
                                "many"
                            } else {
                                "few"
                            }
                        )));
                    }
                    let mut exprs = Vec::with_capacity(fields.len());
                    for (i, ((_, want, typmod), col)) in
                        fields.iter().zip(&last.columns).enumerate()
                    {
                        let want = want.base_type();
                        let e = if col.ty == want && (*typmod < 0 || col.typmod == *typmod) {
                            Some(Expr::Column(i))
                        } else {
                            self.assign_result_column(i, col.ty, want, *typmod)
                        };
                        let Some(e) = e else {
                            return Err(mismatch(format!(
                                "Final statement returns {} instead of {} at column {}.",
                                col.ty.name(),
                                want.name(),
                                i + 1
                            )));
                        };
                        exprs.push(e);
                    }
                    stmts.push(Plan {
                        columns: vec![Column {
                            name: def.name.clone(),
                            ty: ret,
                            typmod: -1,
                            origin: None,
                        }],
                        node: Node::Project {
                            input: Box::new(last),
                            exprs: vec![Expr::Row(exprs)],
                        },
                    });
                    return Ok(Arc::new(SqlBody {
                        stmts,
                        writes,
                        returns_void,
                    }));
                }
            }
            if last.columns.len() != 1 {
                return Err(mismatch(
                    "Final statement must return exactly one column.".into(),
                ));
            }
            let from = last.columns[0].ty;
            let last = if from == ret {
                last
            } else {
                let Some(cast) = self.assign_result_column(0, from, ret, -1) else {
                    return Err(mismatch(format!("Actual return type is {}.", from.name())));
                };
                let mut col = last.columns[0].clone();
                col.ty = ret.base_type();
                col.typmod = -1;
                Plan {
                    columns: vec![Column {
                        origin: None,
                        ..col
                    }],
                    node: Node::Project {
                        input: Box::new(last),
                        exprs: vec![cast],
                    },
                }
            };
            stmts.push(last);
        }
        Ok(Arc::new(SqlBody {
            stmts,
            writes,
            returns_void,
        }))
    }

    /// Column `i` of a SQL function's final statement (of type `from`) as the result's type
    /// `to` by an assignment cast; None where no assignment cast exists.
    fn assign_result_column(
        &mut self,
        i: usize,
        from: Type,
        to: Type,
        typmod: i32,
    ) -> Option<Expr> {
        if from != Type::UNKNOWN && !cast::can_coerce(from, to, CoercionContext::Assignment) {
            return None;
        }
        self.coerce(
            Expr::Column(i),
            from,
            to,
            typmod,
            CoercionContext::Assignment,
            -1,
        )
        .ok()
    }

    /// Plans with a routine's names for `$1` .. `$n` (PL/pgSQL's variables).
    pub fn set_variables(&mut self, vars: Arc<FuncParams>) {
        self.func_params = Some(vars);
    }

    /// A name in a routine's body that is no column: one of its parameters or variables (`x`,
    /// `fname.x`, `label.x`, `rec.field`), as `$n`.
    pub(super) fn function_param(&mut self, fields: &[String]) -> Option<(Expr, Type)> {
        let i = self.func_params.as_ref()?.lookup(fields)?;
        if self.referenced.len() <= i {
            self.referenced.resize(i + 1, false);
        }
        self.referenced[i] = true;
        Some((Expr::Param(i), self.params[i]))
    }
}

/// Where a declared input parameter's value comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Slot {
    Positional,
    /// The named argument at this index.
    Named(usize),
    Default,
}

/// How a call fits a function.
struct Fit {
    /// Each argument's source, in the order of the parameters (the arguments a VARIADIC
    /// parameter gathers last, each a slot).
    slots: Vec<Slot>,
    /// 10 per exact type, less for casts.
    score: i32,
    /// Each slot's declared type (the element type for the gathered arguments).
    declared: Vec<Type>,
    /// How many trailing arguments the VARIADIC parameter gathers into its array.
    gathered: usize,
}

/// The type each argument gathered by a VARIADIC parameter of type `t` is declared with.
fn variadic_elem(t: Type) -> Type {
    match t {
        Type::ANYARRAY => Type::ANYELEMENT,
        Type::ANYCOMPATIBLEARRAY => Type::ANYCOMPATIBLE,
        t => t.elem().unwrap_or(t),
    }
}

/// How well a call fits function `def` (None: not at all). Without the VARIADIC keyword
/// (`variadic_kw`) a VARIADIC parameter gathers the trailing positional arguments, at least
/// one, as PostgreSQL expands a variadic candidate.
fn fits(
    def: &FunctionDef,
    positional: &[Type],
    named: &[(&str, Type)],
    variadic_kw: bool,
    with_outs: bool,
) -> Option<Fit> {
    let inputs = call_params(def, with_outs);
    let is_variadic = inputs.last().is_some_and(|a| a.mode == 'v');
    if variadic_kw && (!is_variadic || positional.len() != inputs.len()) {
        return None;
    }
    // Fewer arguments leave the VARIADIC parameter to its default.
    let gathered = if is_variadic && !variadic_kw && positional.len() >= inputs.len() {
        if !named.is_empty() {
            return None;
        }
        positional.len() + 1 - inputs.len()
    } else {
        0
    };
    if gathered == 0 && positional.len() > inputs.len() {
        return None;
    }
    // The parameters as the call sees them: the VARIADIC one once per gathered argument.
    let mut params: Vec<(&FuncArg, Type)> = inputs.iter().map(|a| (*a, Type(a.type_oid))).collect();
    if gathered > 0 {
        let (last, t) = params.pop()?;
        params.extend(std::iter::repeat_n((last, variadic_elem(t)), gathered));
    }
    // The polymorphic parameters and their arguments' types, which must agree.
    let mut poly: (Vec<Type>, Vec<Type>) = (Vec::new(), Vec::new());
    let mut slots = Vec::with_capacity(params.len());
    let mut score = 0;
    let mut used = 0;
    for (i, (p, declared)) in params.iter().enumerate() {
        let (slot, t) = if i < positional.len() {
            (Slot::Positional, Some(positional[i]))
        } else if let Some(j) = named.iter().position(|(n, _)| *n == p.name) {
            used += 1;
            (Slot::Named(j), Some(named[j].1))
        } else if p.default.is_some() {
            (Slot::Default, None)
        } else {
            return None;
        };
        let declared = *declared;
        if let (Some(t), true) = (t, declared.is_polymorphic()) {
            // No exact match (PostgreSQL counts none for a polymorphic parameter).
            if !polymorphic::shape_fits(declared, t) {
                return None;
            }
            poly.0.push(declared);
            poly.1.push(t);
        } else if let Some(t) = t {
            let want = declared.base_type();
            if t == want {
                score += 10;
            } else if t == Type::UNKNOWN {
                if want.category() == 'S' {
                    score += 2;
                }
            } else if cast::can_coerce(t, want, CoercionContext::Implicit) {
                if want.is_preferred() {
                    score += 1;
                }
            } else {
                return None;
            }
        }
        // A default scores nothing: the candidates are compared on what the caller wrote.
        slots.push(slot);
    }
    if used != named.len() {
        return None;
    }
    if !poly.0.is_empty() {
        polymorphic::resolve(&poly.0, &poly.1, Type(def.returns), false).ok()?;
    }
    Some(Fit {
        slots,
        score,
        declared: params.iter().map(|(_, t)| *t).collect(),
        gathered,
    })
}

/// The parameters a call's arguments fill: the input ones, and with `with_outs` (CALL, as
/// PostgreSQL matches a CALL's arguments with every parameter) the OUT ones too, in order.
fn call_params(def: &FunctionDef, with_outs: bool) -> Vec<&FuncArg> {
    def.args
        .iter()
        .filter(|a| a.is_input() || (with_outs && a.mode == 'o'))
        .collect()
}

/// Whether a function's signature has a polymorphic type.
fn is_polymorphic(def: &FunctionDef) -> bool {
    Type(def.returns).is_polymorphic() || def.args.iter().any(|a| Type(a.type_oid).is_polymorphic())
}

/// What a call with arguments of types `actual` (for parameters declared `declared`, as
/// [`Fit::declared`]) resolves the polymorphic types of `def` to (PostgreSQL's errors where
/// it cannot), and `def` with them in place of the polymorphic types.
fn instantiate(
    def: &FunctionDef,
    declared: &[Type],
    actual: &[Type],
) -> PgResult<(polymorphic::Resolved, FunctionDef)> {
    let r = polymorphic::resolve(declared, actual, Type(def.returns), true)?;
    let concrete = |t: Type| {
        r.concrete(t).ok_or_else(|| {
            PgError::new(
                code::DATATYPE_MISMATCH,
                format!("could not determine polymorphic type {}", t.name()),
            )
        })
    };
    let mut out = def.clone();
    for a in &mut out.args {
        a.type_oid = concrete(Type(a.type_oid))?.0;
    }
    out.returns = concrete(Type(def.returns))?.0;
    Ok((r, out))
}

/// `int, text` as PostgreSQL lists a function's argument types in messages.
pub fn type_list(args: &[FuncArg]) -> String {
    args.iter()
        .filter(|a| a.is_input())
        .map(|a| Type(a.type_oid).name())
        .collect::<Vec<_>>()
        .join(", ")
}
