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
//! Candidates are the functions of the name in the schemas of search_path (the first schema
//! that has a signature wins it) or in the named schema. A call that fits a built-in
//! function exactly, or fits no user function, is left to the built-ins (pg_catalog comes
//! first in every search path).

use std::sync::Arc;

use pg_query::protobuf::{self, node::Node as N};

use super::agg::AggCtx;
use super::modify::TableCx;
use super::scope::Scope;
use super::{loc, Column, Expr, Node, Plan, Planner, SqlBody, UserBody, UserCall};
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
        let mut best: Option<(Arc<Function>, Vec<Slot>, i32)> = None;
        let mut tie = false;
        for f in cands {
            if let Some((slots, score)) = fits(&f.def.args, &pos_types, &named_types) {
                match &best {
                    Some((_, _, s)) if *s > score => {}
                    Some((_, _, s)) if *s == score => tie = true,
                    _ => {
                        tie = false;
                        best = Some((f, slots, score));
                    }
                }
            }
        }
        let all_types: Vec<Type> = pos_types
            .iter()
            .copied()
            .chain(named_types.iter().map(|(_, t)| *t))
            .collect();
        let Some((f, slots, score)) = best else {
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
        let exact = score == 10 * slots.len() as i32;
        if names.len() == 1 && named.is_empty() && !exact && self.builtin_fits(&name, &pos_types) {
            return Ok(None);
        }
        if tie {
            return Err(super::not_unique(&names.join("."), &all_types, fc.location));
        }
        let is_call = self.call_at == Some(fc.location);
        if is_call && f.def.kind != 'p' {
            return Err(PgError::new(
                code::WRONG_OBJECT_TYPE,
                format!("{name}({}) is not a procedure", type_list(&f.def.args)),
            )
            .with_hint("To call a function, use SELECT.")
            .at(loc(fc.location)));
        }
        if f.def.kind == 'p' && !is_call {
            return Err(PgError::new(
                code::WRONG_OBJECT_TYPE,
                format!("{name}({}) is a procedure", type_list(&f.def.args)),
            )
            .with_hint("To call a procedure, use CALL.")
            .at(loc(fc.location)));
        }
        let mut pos = positional.into_iter();
        let mut named: Vec<Option<(String, Expr, Type)>> = named.into_iter().map(Some).collect();
        let mut args = Vec::with_capacity(slots.len());
        for (slot, param) in slots.iter().zip(f.def.args.iter().filter(|a| a.is_input())) {
            let want = Type(param.type_oid);
            let (e, t) = match slot {
                Slot::Positional => pos.next().expect("a positional argument per slot"),
                Slot::Named(i) => {
                    let (_, e, t) = named[*i].take().expect("each named argument once");
                    (e, t)
                }
                Slot::Default => self.bind_default(param, &f)?,
            };
            args.push(self.coerce(e, t, want, -1, CoercionContext::Implicit, fc.location)?);
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
    fn builtin_fits(&mut self, name: &str, types: &[Type]) -> bool {
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
        self.coerce(e, t, ty, -1, CoercionContext::Implicit, -1)
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
                // are (the executor checks them against the row expected).
                stmts.push(last);
                return Ok(Arc::new(SqlBody {
                    stmts,
                    writes,
                    returns_void,
                }));
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
                let cast = if from == Type::UNKNOWN
                    || cast::can_coerce(from, ret, CoercionContext::Assignment)
                {
                    self.coerce(
                        Expr::Column(0),
                        from,
                        ret,
                        -1,
                        CoercionContext::Assignment,
                        -1,
                    )
                    .ok()
                } else {
                    None
                };
                let Some(cast) = cast else {
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

    /// CALL: the procedure's call, planned as the query that runs it (a procedure is allowed
    /// at the call's place only).
    pub fn plan_call(&mut self, c: &protobuf::CallStmt) -> PgResult<Plan> {
        let (select, at) = call_as_select(c)?;
        self.call_at = Some(at);
        let plan = self.plan_query(&select)?;
        Ok(super::user_srf::call_with_outputs(plan))
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
#[derive(Debug, Clone, Copy)]
enum Slot {
    Positional,
    /// The named argument at this index.
    Named(usize),
    Default,
}

/// How well a call fits the parameters `args` (all modes): each input parameter's source and a
/// score (10 per exact type, less for casts), or None.
fn fits(args: &[FuncArg], positional: &[Type], named: &[(&str, Type)]) -> Option<(Vec<Slot>, i32)> {
    let inputs: Vec<&FuncArg> = args.iter().filter(|a| a.is_input()).collect();
    if positional.len() > inputs.len() {
        return None;
    }
    let mut slots = Vec::with_capacity(inputs.len());
    let mut score = 0;
    let mut used = 0;
    for (i, p) in inputs.iter().enumerate() {
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
        if let Some(t) = t {
            let want = Type(p.type_oid).base_type();
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
        } else {
            // A default counts as an exact match of nothing the caller wrote.
            score += 10;
        }
        slots.push(slot);
    }
    if used != named.len() {
        return None;
    }
    Some((slots, score))
}

/// CALL p(args) as the query `SELECT p(args)` that runs it, and the call's location (for
/// [`Planner::call_at`]).
fn call_as_select(c: &protobuf::CallStmt) -> PgResult<(N, i32)> {
    let fc = c
        .funccall
        .as_ref()
        .ok_or_else(|| PgError::syntax("CALL without a procedure"))?;
    let target = protobuf::Node {
        node: Some(N::ResTarget(Box::new(protobuf::ResTarget {
            val: Some(Box::new(protobuf::Node {
                node: Some(N::FuncCall(fc.clone())),
            })),
            ..Default::default()
        }))),
    };
    let select = protobuf::SelectStmt {
        target_list: vec![target],
        ..Default::default()
    };
    Ok((N::SelectStmt(Box::new(select)), fc.location))
}

/// `int, text` as PostgreSQL lists a function's argument types in messages.
pub fn type_list(args: &[FuncArg]) -> String {
    args.iter()
        .filter(|a| a.is_input())
        .map(|a| Type(a.type_oid).name())
        .collect::<Vec<_>>()
        .join(", ")
}
