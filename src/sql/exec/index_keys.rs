//! The executor's side of expression and partial indexes: their stored texts bound over the
//! table's columns and evaluated on a row ([`KeyExprs`] for the engine, which asks through
//! the compiler registered by [`register`]), and the checks CREATE INDEX makes of them.
//!
//! An index expression must be immutable (PostgreSQL refuses anything else with 42P17), so it
//! never needs the session that runs the statement: it is evaluated with [`Detached`], a
//! session of default settings that belongs to no connection. Only built-in functions marked
//! immutable are accepted, which never reach the session.

use std::sync::OnceLock;

use pg_query::protobuf::node::Node as N;

use crate::catalog::{ColumnDef, IndexDef, IndexItem};
use crate::config::Config;
use crate::error::{code, PgError, PgResult};
use crate::instance::Instance;
use crate::sql::context::SessionCtx;
use crate::sql::engine::{self, Key, KeyExprs, Rel};
use crate::sql::exec::eval::{text_of, EvalCx};
use crate::sql::func::system::catalog::index_columns;
use crate::sql::plan::{modify::parse_expr, partial::bind_index_text, Expr};
use crate::sql::types::{FormatCtx, Type, Value};
use crate::sync::Arc;

/// Registers [`compile`] with the engine (idempotent; the server calls it before restoring a
/// data directory, statements before they run).
pub fn register() {
    engine::register_compiler(compile);
    // Extensions' GIN operator classes, which indexes of every database may name.
    crate::sql::func::extension::trgm_gin::register();
}

/// An index's items and predicate, bound.
struct Compiled {
    items: Vec<Expr>,
    predicate: Option<Expr>,
}

impl KeyExprs for Compiled {
    fn key(&self, row: &[Value]) -> PgResult<Option<Key>> {
        let mut s = Detached::default();
        let mut cx = EvalCx {
            params: &[],
            outer: Vec::new(),
            session: &mut s,
        };
        if let Some(p) = &self.predicate {
            if !matches!(p.eval(row, &mut cx)?, Value::Bool(true)) {
                return Ok(None);
            }
        }
        let mut vals = Vec::with_capacity(self.items.len());
        for e in &self.items {
            vals.push(e.eval(row, &mut cx)?);
        }
        Ok(Some(Key(vals.into_boxed_slice())))
    }
}

/// Binds `text` over a row of `columns`: the expression and its type.
pub fn bind(columns: &[ColumnDef], text: &str, what: &str) -> PgResult<(Expr, Type)> {
    bind_node(columns, &parse_expr(text)?, what)
}

/// [`bind`] of a parsed expression (CREATE INDEX's own, whose errors point into it).
pub fn bind_node(columns: &[ColumnDef], n: &N, what: &str) -> PgResult<(Expr, Type)> {
    check_node(n, what)?;
    let (e, t) = bind_index_text(columns, n, what == "index predicate")?;
    check_bound(&e)?;
    Ok((e, t))
}

/// Whether the key of `row` in index `def` of `rel` begins with `prefix` (an index scan's
/// check of the version an entry leads to, which may have moved to another key; a row no
/// longer in a partial index has none).
pub fn key_starts_with(rel: &Rel, def: &IndexDef, row: &[Value], prefix: &[Value]) -> bool {
    match def.exprs {
        None => def
            .columns
            .iter()
            .zip(prefix)
            .all(|(&c, v)| engine::same_value(&row[c], v)),
        Some(_) => matches!(
            engine::key_of(rel, def, row),
            Ok(Some(k)) if k.0.iter().zip(prefix).all(|(a, b)| engine::same_value(a, b))
        ),
    }
}

/// `Key (items)=(values)` of a unique violation's DETAIL: the index's items as
/// pg_get_indexdef_columns prints them (pretty), the values as text.
pub fn key_text(table: &Rel, def: &IndexDef, key: &Key, fmt: &FormatCtx) -> String {
    let names = index_columns(def, table, true);
    let types: Vec<Type> = match def.exprs.as_deref() {
        None => def
            .columns
            .iter()
            .map(|&c| {
                table
                    .columns
                    .get(c)
                    .map_or(Type::TEXT, |c| Type(c.type_oid))
            })
            .collect(),
        Some(x) => x
            .items
            .iter()
            .map(|it| match it {
                IndexItem::Column(c) => table
                    .columns
                    .get(*c)
                    .map_or(Type::TEXT, |c| Type(c.type_oid)),
                IndexItem::Expr(t) => {
                    bind(&table.columns, t, "index expression").map_or(Type::TEXT, |(_, ty)| ty)
                }
            })
            .collect(),
    };
    let vals: Vec<String> = key
        .0
        .iter()
        .zip(types)
        .map(|(v, t)| {
            if v.is_null() {
                "null".to_string()
            } else {
                text_of(v, t, fmt)
            }
        })
        .collect();
    format!("Key ({})=({})", names.join(", "), vals.join(", "))
}

/// The engine's compiler: `def`'s items and predicate bound over `columns`.
fn compile(columns: &[ColumnDef], def: &IndexDef) -> PgResult<Arc<dyn KeyExprs>> {
    let x = def
        .exprs
        .as_ref()
        .ok_or_else(|| PgError::internal("a plain index has no expressions"))?;
    let mut items = Vec::with_capacity(x.items.len());
    for it in &x.items {
        items.push(match it {
            IndexItem::Column(c) => Expr::Column(*c),
            IndexItem::Expr(t) => bind(columns, t, "index expression")?.0,
        });
    }
    let predicate = match &x.predicate {
        Some(t) => Some(bind(columns, t, "index predicate")?.0),
        None => None,
    };
    Ok(Arc::new(Compiled { items, predicate }))
}

/// What PostgreSQL refuses in an index expression or predicate before typing it.
fn check_node(n: &N, what: &str) -> PgResult<()> {
    let mut err = None;
    walk(n, &mut |n| {
        if err.is_some() {
            return;
        }
        match n {
            N::SubLink(l) => {
                err = Some(
                    PgError::new(
                        code::FEATURE_NOT_SUPPORTED,
                        format!("cannot use subquery in {what}"),
                    )
                    .at((l.location >= 0).then(|| l.location as u32 + 1)),
                )
            }
            N::FuncCall(f) => {
                let name = f
                    .funcname
                    .last()
                    .and_then(crate::sql::parser::str_of)
                    .unwrap_or_default()
                    .to_lowercase();
                let mut procs = crate::sql::catalog::procs::named(&name).peekable();
                if procs.peek().is_some() {
                    let procs: Vec<_> = procs.collect();
                    if procs.iter().any(|p| p.kind == 'a' || p.kind == 'w') {
                        err = Some(PgError::new(
                            code::GROUPING_ERROR,
                            format!("aggregate functions are not allowed in {what}s"),
                        ));
                    } else if procs.iter().all(|p| p.volatile != 'i') {
                        err = Some(not_immutable(what));
                    }
                }
            }
            _ => {}
        }
    });
    err.map_or(Ok(()), Err)
}

fn not_immutable(what: &str) -> PgError {
    PgError::new(
        code::INVALID_OBJECT_DEFINITION,
        format!("functions in {what} must be marked IMMUTABLE"),
    )
}

/// What is left after binding that an index cannot evaluate without a session.
fn check_bound(e: &Expr) -> PgResult<()> {
    let bad = e.any(&mut |e| {
        matches!(
            e,
            Expr::Session { .. }
                | Expr::Subquery(..)
                | Expr::UserCall(_)
                | Expr::Param(_)
                | Expr::Outer(..)
        )
    });
    if bad {
        return Err(PgError::new(
            code::FEATURE_NOT_SUPPORTED,
            "this expression is not supported in an index yet",
        ));
    }
    Ok(())
}

/// Calls `f` on `n` and every expression node below it (the kinds an index expression is made
/// of; a subquery is not entered: `f` sees the SubLink).
pub(crate) fn walk(n: &N, f: &mut dyn FnMut(&N)) {
    use pg_query::protobuf::Node;
    f(n);
    let mut go = |c: &Node| {
        if let Some(n) = c.node.as_ref() {
            walk(n, f)
        }
    };
    match n {
        N::FuncCall(fc) => fc.args.iter().for_each(go),
        N::AExpr(a) => a.lexpr.iter().chain(a.rexpr.iter()).for_each(|c| go(c)),
        N::BoolExpr(b) => b.args.iter().for_each(go),
        N::TypeCast(t) => t.arg.iter().for_each(|c| go(c)),
        N::NullTest(t) => t.arg.iter().for_each(|c| go(c)),
        N::BooleanTest(t) => t.arg.iter().for_each(|c| go(c)),
        N::CaseExpr(c) => {
            c.arg.iter().for_each(|x| go(x));
            c.args.iter().for_each(&mut go);
            c.defresult.iter().for_each(|x| go(x));
        }
        N::CaseWhen(w) => w.expr.iter().chain(w.result.iter()).for_each(|c| go(c)),
        N::CoalesceExpr(c) => c.args.iter().for_each(go),
        N::MinMaxExpr(m) => m.args.iter().for_each(go),
        N::List(l) => l.items.iter().for_each(go),
        N::AArrayExpr(a) => a.elements.iter().for_each(go),
        N::RowExpr(r) => r.args.iter().for_each(go),
        N::AIndirection(i) => i.arg.iter().for_each(|c| go(c)),
        N::CollateClause(c) => c.arg.iter().for_each(|x| go(x)),
        _ => {}
    }
}

/// The session an index expression is evaluated in: default settings, no connection.
#[derive(Default)]
struct Detached {
    fmt: FormatCtx,
}

/// An instance of nobody's, for the session methods an immutable expression never calls.
fn detached_instance() -> &'static Instance {
    static I: OnceLock<Arc<Instance>> = OnceLock::new();
    I.get_or_init(|| Instance::new(Config::default()))
}

impl SessionCtx for Detached {
    fn pid(&self) -> i32 {
        0
    }
    fn user(&self) -> &str {
        ""
    }
    fn database(&self) -> &str {
        ""
    }
    fn fmt(&self) -> &FormatCtx {
        &self.fmt
    }
    fn instance(&self) -> &Instance {
        detached_instance()
    }
    fn notify(&mut self, _: &str, _: &str) -> PgResult<()> {
        Err(not_immutable("index expression"))
    }
    fn listening_channels(&self) -> Vec<String> {
        Vec::new()
    }
    fn get_setting(&self, _: &str, _: bool) -> PgResult<Option<String>> {
        Err(not_immutable("index expression"))
    }
    fn set_setting(&mut self, _: &str, _: &str, _: bool) -> PgResult<String> {
        Err(not_immutable("index expression"))
    }
    fn check_interrupts(&self) -> PgResult<()> {
        Ok(())
    }
    fn sleep(&self, _: f64) -> PgResult<()> {
        Err(not_immutable("index expression"))
    }
    fn transaction_timestamp(&self) -> i64 {
        0
    }
    fn statement_timestamp(&self) -> i64 {
        0
    }
    fn notice(&mut self, _: PgError) {}
    fn client_addr(&self) -> Option<std::net::SocketAddr> {
        None
    }
    fn server_addr(&self) -> Option<std::net::SocketAddr> {
        None
    }
    fn current_xid(&mut self, _: &str) -> PgResult<u64> {
        Err(not_immutable("index expression"))
    }
}
