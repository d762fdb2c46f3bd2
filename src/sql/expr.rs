//! Bound expressions and their evaluation.
//!
//! The planner turns parse-tree expressions into [`Expr`]: names are resolved to column indexes,
//! operators and functions to function pointers, implicit casts are explicit nodes, and unknown
//! literals are already converted. Evaluation is a plain recursive walk over a row; anything that
//! needs the session (now(), pg_notify(), settings) goes through the [`SessionCtx`] trait, which
//! the session implements, so this module knows nothing about connections or transactions.

use std::cmp::Ordering;

use crate::error::{code, PgError, PgResult};
use crate::sql::exec::{row_bytes, Held, Row, MAX_RESULT_BYTES};
use crate::sql::func::ScalarFn;
use crate::sql::plan::Plan;
use crate::sql::types::ops::{BinFn, UnFn};
use crate::sql::types::{self, cast, io, Array, FormatCtx, Type, Value};

/// CREATE TEMP TABLE ... ON COMMIT (session/temp.rs runs the actions).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnCommit {
    /// No ON COMMIT clause.
    Noop,
    PreserveRows,
    DeleteRows,
    Drop,
}

/// What expression evaluation may ask of the session that runs it.
pub trait SessionCtx {
    fn pid(&self) -> i32;
    /// The current user's name (current_user: SET ROLE's role, else the session user).
    fn user(&self) -> &str;
    /// The session user's name (session_user).
    fn session_user(&self) -> &str {
        self.user()
    }
    /// Checks that `value` is valid for setting `name` (ALTER ROLE ... SET); returns the
    /// setting's canonical name.
    fn validate_setting(&mut self, name: &str, value: &str) -> PgResult<String> {
        let _ = value;
        Ok(name.to_string())
    }
    /// The current user's OID: the owner of what the session creates.
    fn role_oid(&self) -> u32 {
        crate::catalog::roles::BOOTSTRAP_SUPERUSER
    }
    fn database(&self) -> &str;
    fn fmt(&self) -> &FormatCtx;
    fn instance(&self) -> &crate::instance::Instance;
    /// Queues a notification in the current transaction (pg_notify / NOTIFY).
    fn notify(&mut self, channel: &str, payload: &str) -> PgResult<()>;
    fn listening_channels(&self) -> Vec<String>;
    fn get_setting(&self, name: &str, missing_ok: bool) -> PgResult<Option<String>>;
    fn set_setting(&mut self, name: &str, value: &str, is_local: bool) -> PgResult<String>;
    /// Fails with 57014 if the statement was cancelled or timed out.
    fn check_interrupts(&self) -> PgResult<()>;
    /// Whether a cancel or terminate request is waiting (two atomic loads): the executor asks
    /// before each row, so that a request made by the statement itself (pg_cancel_backend of
    /// its own pid) stops it after the row that made it, as PostgreSQL's per-tuple
    /// CHECK_FOR_INTERRUPTS does.
    fn interrupt_pending(&self) -> bool {
        false
    }
    /// Sleeps, interruptibly (pg_sleep).
    fn sleep(&self, seconds: f64) -> PgResult<()>;
    /// Start of the current transaction, µs since 2000-01-01 UTC (now()).
    fn transaction_timestamp(&self) -> i64;
    /// Start of the current statement (statement_timestamp()).
    fn statement_timestamp(&self) -> i64;
    /// Sends a NOTICE or WARNING to the client (after the current message).
    fn notice(&mut self, notice: PgError);
    /// The client's address and port (inet_client_addr()); None where there is no TCP peer.
    fn client_addr(&self) -> Option<std::net::SocketAddr>;
    /// The server's end of the connection (inet_server_addr()).
    fn server_addr(&self) -> Option<std::net::SocketAddr>;
    /// The current transaction's id, assigned on first use (txid_current()).
    fn current_xid(&mut self, func: &str) -> PgResult<u64>;
    /// The snapshot to read the catalog with: the newest commits and this transaction's own
    /// earlier commands (PostgreSQL's catalog snapshot).
    fn catalog_snapshot(&mut self) -> PgResult<crate::txn::Snapshot> {
        Err(PgError::feature_not_supported(
            "tables are not available here",
        ))
    }
    /// The snapshot of the running statement (READ COMMITTED) or transaction (REPEATABLE
    /// READ), taken at its first use.
    fn snapshot(&mut self) -> PgResult<crate::txn::Snapshot> {
        Err(PgError::feature_not_supported(
            "tables are not available here",
        ))
    }
    /// The transaction's (or current savepoint's) cell and the current command id, for a
    /// write; the first write of a transaction gives it its id. Fails in a read-only
    /// transaction (25006, naming `what`).
    fn writer(
        &mut self,
        what: &str,
    ) -> PgResult<(std::sync::Arc<crate::txn::TxnCell>, crate::txn::Cid)> {
        Err(PgError::feature_not_supported(format!(
            "{what} is not available here"
        )))
    }
    /// Takes relation lock `mode` on `rel` for the transaction, waiting while another holds a
    /// conflicting one (with `nowait`, the relation's name: fail with 55P03 instead). True when
    /// it waited (the schema may have changed meanwhile).
    /// Fails with 53200 when the server is past its memory bound (`memory.rs`); `written`:
    /// rows the statement wrote so far.
    fn check_memory(&mut self, written: u64) -> PgResult<()> {
        let _ = written;
        Ok(())
    }
    fn lock_relation(
        &mut self,
        rel: u32,
        mode: crate::txn::lock::LockMode,
        nowait: Option<&str>,
    ) -> PgResult<bool> {
        let _ = (rel, mode, nowait);
        Ok(false)
    }
    /// Waits until the transaction of `cell` ends (a row or key it holds is needed); fails on a
    /// deadlock (40P01), cancel or timeout.
    fn wait_for(&mut self, cell: &std::sync::Arc<crate::txn::TxnCell>) -> PgResult<()> {
        let _ = cell;
        Err(PgError::feature_not_supported(
            "waiting is not available here",
        ))
    }
    /// The running transaction's isolation level.
    fn isolation(&self) -> crate::txn::Isolation {
        crate::txn::Isolation::ReadCommitted
    }
    /// The schemas of search_path that exist, in order (where unqualified names are looked up
    /// and created).
    fn search_path(&self) -> Vec<String> {
        vec!["public".to_string()]
    }
    /// The session's schema of temporary tables, made in the running transaction when it does
    /// not exist yet.
    fn temp_schema(&mut self) -> PgResult<String> {
        Err(PgError::feature_not_supported(
            "temporary tables are not available here",
        ))
    }
    /// The name the session's temporary schema has (whether or not it exists yet).
    fn own_temp_schema(&self) -> Option<String> {
        None
    }
    /// Registers the ON COMMIT action of a temporary table just created.
    fn on_commit(&mut self, _oid: u32, _action: OnCommit) {}
    /// The session's sequence state (currval, lastval, cached values); None where there is no
    /// session to keep it.
    fn sequences(&mut self) -> Option<&mut crate::sql::sequence::SessionSequences> {
        None
    }
}

/// Functions that read or change session state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SessionFn {
    /// pg_client_encoding()
    ClientEncoding,
    Now,
    StatementTimestamp,
    ClockTimestamp,
    CurrentDate,
    LocalTimestamp,
    CurrentUser,
    SessionUser,
    CurrentDatabase,
    CurrentSchema,
    CurrentSchemas,
    Version,
    BackendPid,
    /// pg_reload_conf(): reads the host rules again.
    ReloadConf,
    PgNotify,
    ListeningChannels,
    NotificationQueueUsage,
    Sleep,
    CurrentSetting,
    SetConfig,
    CancelBackend,
    TerminateBackend,
    AdvisoryUnlockAll,
    PostmasterStartTime,
    /// concat(any...): needs the argument types to print them.
    Concat,
    ConcatWs,
    /// format(text, any...)
    Format,
    TableIsVisible,
    TypeIsVisible,
    FormatType,
    /// has_table_privilege and its kin (`sql::func::privs`).
    HasPrivilege(crate::sql::func::privs::PrivFn),
    GetUserById,
    ObjDescription,
    InetClientAddr,
    InetClientPort,
    InetServerAddr,
    InetServerPort,
    TxidCurrent,
    CurrentXactId,
    // Sequences (`sql::sequence`).
    Nextval,
    Currval,
    Setval,
    Lastval,
    GetSerialSequence,
    /// The fields of a sequence's row, for `SELECT * FROM seq` (not callable by name).
    SeqLastValue,
    SeqLogCnt,
    SeqIsCalled,
    /// The system information functions over the catalogs (`sql::func::catalog`).
    Catalog(crate::sql::func::catalog::CatalogFn),
    /// pg_stat_ssl's information for the session itself (`sql::func::ssl`).
    Ssl(crate::sql::func::ssl::SslFn),
}

/// How a subquery is used inside an expression.
#[derive(Debug, Clone)]
pub enum SubqueryKind {
    Scalar,
    Exists,
    /// `x op ANY (subquery)` / `x op ALL (subquery)`.
    Quantified {
        test: Box<Expr>,
        op: BinFn,
        all: bool,
    },
    Array,
}

#[derive(Debug, Clone)]
pub enum Expr {
    Const(Value),
    Param(usize),
    Column(usize),
    /// A column of an enclosing query's row: (levels up, index).
    Outer(usize, usize),
    Bin(BinFn, Box<Expr>, Box<Expr>),
    Un(UnFn, Box<Expr>),
    Func {
        f: ScalarFn,
        args: Vec<Expr>,
        strict: bool,
    },
    Session {
        f: SessionFn,
        args: Vec<Expr>,
        arg_types: Vec<Type>,
    },
    Cast {
        /// Explicit casts truncate to a length typmod instead of failing.
        explicit: bool,
        expr: Box<Expr>,
        from: Type,
        to: Type,
        typmod: i32,
    },
    And(Vec<Expr>),
    Or(Vec<Expr>),
    Not(Box<Expr>),
    IsNull(Box<Expr>, bool),
    /// IS [NOT] TRUE / FALSE / UNKNOWN: (expr, expected value or None for unknown, negated).
    BoolTest(Box<Expr>, Option<bool>, bool),
    /// IS [NOT] DISTINCT FROM, with the equality operator.
    Distinct(BinFn, Box<Expr>, Box<Expr>, bool),
    Case {
        whens: Vec<(Expr, Expr)>,
        default: Option<Box<Expr>>,
    },
    Coalesce(Vec<Expr>),
    NullIf(BinFn, Box<Expr>, Box<Expr>),
    /// GREATEST (true) / LEAST (false).
    MinMax(Vec<Expr>, bool),
    InList {
        expr: Box<Expr>,
        list: Vec<Expr>,
        eq: BinFn,
        negated: bool,
    },
    /// `x op ANY/ALL (array)`.
    ArrayCmp {
        left: Box<Expr>,
        right: Box<Expr>,
        op: BinFn,
        all: bool,
    },
    Array(Vec<Expr>, Type),
    Row(Vec<Expr>),
    Subquery(Box<Plan>, SubqueryKind),
    /// array[idx] (1-based, NULL when out of range).
    Subscript(Box<Expr>, Box<Expr>),
}

/// Evaluation state: parameters, enclosing rows for correlated subqueries, and the session.
pub struct EvalCx<'a> {
    pub params: &'a [Value],
    pub outer: Vec<Vec<Value>>,
    pub session: &'a mut dyn SessionCtx,
}

fn truthy(v: &Value) -> Option<bool> {
    match v {
        Value::Null => None,
        Value::Bool(b) => Some(*b),
        _ => None,
    }
}

impl Expr {
    pub fn is_const(&self) -> bool {
        matches!(self, Expr::Const(_))
    }

    /// Applies `f` to every expression inside this one, then to this one (subquery plans are
    /// not entered).
    pub fn walk_mut(&mut self, f: &mut dyn FnMut(&mut Expr)) {
        match self {
            Expr::Const(_) | Expr::Param(_) | Expr::Column(_) | Expr::Outer(..) => {}
            Expr::Bin(_, a, b)
            | Expr::Distinct(_, a, b, _)
            | Expr::NullIf(_, a, b)
            | Expr::Subscript(a, b) => {
                a.walk_mut(f);
                b.walk_mut(f);
            }
            Expr::ArrayCmp { left, right, .. } => {
                left.walk_mut(f);
                right.walk_mut(f);
            }
            Expr::Un(_, a)
            | Expr::Not(a)
            | Expr::IsNull(a, _)
            | Expr::BoolTest(a, ..)
            | Expr::Cast { expr: a, .. } => a.walk_mut(f),
            Expr::Func { args: v, .. }
            | Expr::Session { args: v, .. }
            | Expr::And(v)
            | Expr::Or(v)
            | Expr::Coalesce(v)
            | Expr::MinMax(v, _)
            | Expr::Array(v, _)
            | Expr::Row(v) => v.iter_mut().for_each(|e| e.walk_mut(f)),
            Expr::InList { expr, list, .. } => {
                expr.walk_mut(f);
                list.iter_mut().for_each(|e| e.walk_mut(f));
            }
            Expr::Case { whens, default } => {
                for (c, r) in whens {
                    c.walk_mut(f);
                    r.walk_mut(f);
                }
                if let Some(d) = default {
                    d.walk_mut(f);
                }
            }
            Expr::Subquery(_, kind) => {
                if let SubqueryKind::Quantified { test, .. } = kind {
                    test.walk_mut(f);
                }
            }
        }
        f(self);
    }

    /// Whether `f` holds for this expression or any expression inside it (subquery plans are
    /// not entered: `f` sees the Subquery node itself).
    pub fn any(&self, f: &mut dyn FnMut(&Expr) -> bool) -> bool {
        if f(self) {
            return true;
        }
        let list = |v: &[Expr], f: &mut dyn FnMut(&Expr) -> bool| v.iter().any(|e| e.any(f));
        match self {
            Expr::Const(_) | Expr::Param(_) | Expr::Column(_) | Expr::Outer(..) => false,
            Expr::Bin(_, a, b)
            | Expr::Distinct(_, a, b, _)
            | Expr::NullIf(_, a, b)
            | Expr::Subscript(a, b) => a.any(f) || b.any(f),
            Expr::ArrayCmp { left, right, .. } => left.any(f) || right.any(f),
            Expr::Un(_, a)
            | Expr::Not(a)
            | Expr::IsNull(a, _)
            | Expr::BoolTest(a, ..)
            | Expr::Cast { expr: a, .. } => a.any(f),
            Expr::Func { args, .. } | Expr::Session { args, .. } => list(args, f),
            Expr::And(v) | Expr::Or(v) | Expr::Coalesce(v) | Expr::MinMax(v, _) => list(v, f),
            Expr::Array(v, _) | Expr::Row(v) => list(v, f),
            Expr::InList { expr, list: l, .. } => expr.any(f) || list(l, f),
            Expr::Case { whens, default } => {
                whens.iter().any(|(c, r)| c.any(f) || r.any(f))
                    || default.as_ref().is_some_and(|d| d.any(f))
            }
            Expr::Subquery(_, kind) => match kind {
                SubqueryKind::Quantified { test, .. } => test.any(f),
                _ => false,
            },
        }
    }

    /// An operand: a column or a constant without a call into [`Self::eval`], whose frame is
    /// large (every expression kind's locals); most operands are one of those two.
    #[inline(always)]
    fn eval_operand(&self, row: &[Value], cx: &mut EvalCx) -> PgResult<Value> {
        match self {
            Expr::Column(i) => Ok(row[*i].clone()),
            Expr::Const(v) => Ok(v.clone()),
            _ => self.eval(row, cx),
        }
    }

    pub fn eval(&self, row: &[Value], cx: &mut EvalCx) -> PgResult<Value> {
        crate::stack::check()?;
        Ok(match self {
            Expr::Const(v) => v.clone(),
            Expr::Param(i) => cx.params.get(*i).cloned().unwrap_or(Value::Null),
            Expr::Column(i) => row[*i].clone(),
            Expr::Outer(level, i) => {
                let n = cx.outer.len();
                match n.checked_sub(*level).and_then(|l| cx.outer.get(l)?.get(*i)) {
                    Some(v) => v.clone(),
                    // A WITH query that reads a column of the query around it, read from a
                    // sub-select evaluated once (as uncorrelated) without that query's row.
                    None => {
                        return Err(PgError::new(
                            code::FEATURE_NOT_SUPPORTED,
                            "a WITH query reading a column of an outer query cannot be read \
                             from an uncorrelated sub-select yet",
                        ))
                    }
                }
            }
            Expr::Bin(f, a, b) => {
                let a = a.eval_operand(row, cx)?;
                if a.is_null() {
                    return Ok(Value::Null);
                }
                let b = b.eval_operand(row, cx)?;
                if b.is_null() {
                    return Ok(Value::Null);
                }
                f(&a, &b, cx.session.fmt())?
            }
            Expr::Un(f, a) => {
                let a = a.eval(row, cx)?;
                if a.is_null() {
                    return Ok(Value::Null);
                }
                f(&a, cx.session.fmt())?
            }
            Expr::Func { f, args, strict } => {
                let mut vals = Vec::with_capacity(args.len());
                for a in args {
                    let v = a.eval(row, cx)?;
                    if *strict && v.is_null() {
                        return Ok(Value::Null);
                    }
                    vals.push(v);
                }
                f(&vals, cx.session.fmt())?
            }
            Expr::Session { f, args, arg_types } => {
                let mut vals = Vec::with_capacity(args.len());
                for a in args {
                    vals.push(a.eval(row, cx)?);
                }
                crate::sql::func::session::call(*f, &vals, arg_types, cx.session)?
            }
            Expr::Cast {
                explicit,
                expr,
                from,
                to,
                typmod,
            } => {
                let v = expr.eval(row, cx)?;
                if v.is_null() {
                    return Ok(Value::Null);
                }
                if *explicit {
                    cast::cast_explicit(v, *from, *to, *typmod, cx.session.fmt())?
                } else {
                    cast::cast(v, *from, *to, *typmod, cx.session.fmt())?
                }
            }
            Expr::And(items) => {
                let mut saw_null = false;
                for e in items {
                    match truthy(&e.eval(row, cx)?) {
                        Some(false) => return Ok(Value::Bool(false)),
                        None => saw_null = true,
                        Some(true) => {}
                    }
                }
                if saw_null {
                    Value::Null
                } else {
                    Value::Bool(true)
                }
            }
            Expr::Or(items) => {
                let mut saw_null = false;
                for e in items {
                    match truthy(&e.eval(row, cx)?) {
                        Some(true) => return Ok(Value::Bool(true)),
                        None => saw_null = true,
                        Some(false) => {}
                    }
                }
                if saw_null {
                    Value::Null
                } else {
                    Value::Bool(false)
                }
            }
            Expr::Not(e) => match truthy(&e.eval(row, cx)?) {
                Some(b) => Value::Bool(!b),
                None => Value::Null,
            },
            Expr::IsNull(e, negated) => {
                let v = e.eval(row, cx)?;
                let null = match &v {
                    Value::Null => true,
                    // A row IS NULL when all fields are null; IS NOT NULL when none are.
                    Value::Record(fields) => {
                        if *negated {
                            return Ok(Value::Bool(fields.iter().all(|f| !f.is_null())));
                        }
                        fields.iter().all(|f| f.is_null())
                    }
                    _ => false,
                };
                Value::Bool(null != *negated)
            }
            Expr::BoolTest(e, want, negated) => {
                let v = truthy(&e.eval(row, cx)?);
                Value::Bool((v == *want) != *negated)
            }
            Expr::Distinct(eq, a, b, negated) => {
                let a = a.eval(row, cx)?;
                let b = b.eval(row, cx)?;
                let same = match (a.is_null(), b.is_null()) {
                    (true, true) => true,
                    (true, false) | (false, true) => false,
                    _ => eq(&a, &b, cx.session.fmt())? == Value::Bool(true),
                };
                // IS DISTINCT FROM is "not same"; negated form is IS NOT DISTINCT FROM.
                Value::Bool(same == *negated)
            }
            Expr::Case { whens, default } => {
                for (cond, result) in whens {
                    if truthy(&cond.eval(row, cx)?) == Some(true) {
                        return result.eval(row, cx);
                    }
                }
                match default {
                    Some(d) => d.eval(row, cx)?,
                    None => Value::Null,
                }
            }
            Expr::Coalesce(items) => {
                for e in items {
                    let v = e.eval(row, cx)?;
                    if !v.is_null() {
                        return Ok(v);
                    }
                }
                Value::Null
            }
            Expr::NullIf(eq, a, b) => {
                let a = a.eval(row, cx)?;
                let b = b.eval(row, cx)?;
                if !a.is_null()
                    && !b.is_null()
                    && eq(&a, &b, cx.session.fmt())? == Value::Bool(true)
                {
                    Value::Null
                } else {
                    a
                }
            }
            Expr::MinMax(items, greatest) => {
                let mut best = Value::Null;
                for e in items {
                    let v = e.eval(row, cx)?;
                    if v.is_null() {
                        continue;
                    }
                    if best.is_null() {
                        best = v;
                        continue;
                    }
                    let ord = types::compare(&v, &best);
                    if (*greatest && ord == Ordering::Greater)
                        || (!*greatest && ord == Ordering::Less)
                    {
                        best = v;
                    }
                }
                best
            }
            Expr::InList {
                expr,
                list,
                eq,
                negated,
            } => {
                let v = expr.eval(row, cx)?;
                if v.is_null() {
                    return Ok(Value::Null);
                }
                let mut saw_null = false;
                for e in list {
                    let item = e.eval(row, cx)?;
                    if item.is_null() {
                        saw_null = true;
                        continue;
                    }
                    match eq(&v, &item, cx.session.fmt())? {
                        Value::Bool(true) => return Ok(Value::Bool(!*negated)),
                        Value::Null => saw_null = true,
                        _ => {}
                    }
                }
                if saw_null {
                    Value::Null
                } else {
                    Value::Bool(*negated)
                }
            }
            Expr::ArrayCmp {
                left,
                right,
                op,
                all,
            } => {
                let l = left.eval(row, cx)?;
                let r = right.eval(row, cx)?;
                let Value::Array(arr) = r else {
                    return Ok(Value::Null);
                };
                let items: Vec<Value> = arr.items;
                quantified(&l, items.into_iter(), *op, *all, cx.session.fmt())?
            }
            Expr::Array(items, elem) => {
                let mut vals = Vec::with_capacity(items.len());
                let mut nested: Option<Vec<(i32, i32)>> = None;
                for e in items {
                    let v = e.eval(row, cx)?;
                    if let Value::Array(inner) = &v {
                        // ARRAY[ARRAY[..], ARRAY[..]] builds a multi-dimensional array.
                        nested = Some(inner.dims.clone());
                    }
                    vals.push(v);
                }
                if let Some(inner_dims) = nested {
                    let mut flat = Vec::new();
                    for v in vals {
                        match v {
                            Value::Array(a) => {
                                if a.dims != inner_dims {
                                    return Err(PgError::new(
                                        code::ARRAY_SUBSCRIPT_ERROR,
                                        "multidimensional arrays must have array expressions with matching dimensions",
                                    ));
                                }
                                flat.extend(a.items);
                            }
                            _ => {
                                return Err(PgError::new(
                                    code::ARRAY_SUBSCRIPT_ERROR,
                                    "multidimensional arrays must have array expressions with matching dimensions",
                                ))
                            }
                        }
                    }
                    if inner_dims.len() >= crate::sql::types::io::MAX_DIMS {
                        return Err(PgError::new(
                            code::PROGRAM_LIMIT_EXCEEDED,
                            format!(
                                "number of array dimensions ({}) exceeds the maximum allowed ({})",
                                inner_dims.len() + 1,
                                crate::sql::types::io::MAX_DIMS
                            ),
                        ));
                    }
                    let mut dims = vec![(items.len() as i32, 1)];
                    dims.extend(inner_dims);
                    Value::Array(Box::new(Array {
                        elem: *elem,
                        dims,
                        items: flat,
                    }))
                } else {
                    Value::Array(Box::new(Array::one_dim(*elem, vals)))
                }
            }
            Expr::Row(items) => {
                let mut vals = Vec::with_capacity(items.len());
                for e in items {
                    vals.push(e.eval(row, cx)?);
                }
                Value::Record(vals)
            }
            Expr::Subquery(plan, kind) => {
                cx.outer.push(row.to_vec());
                let result = eval_subquery(plan, kind, row, cx);
                cx.outer.pop();
                result?
            }
            Expr::Subscript(arr, idx) => {
                let a = arr.eval(row, cx)?;
                let i = idx.eval(row, cx)?;
                match (a, i.as_i64()) {
                    (Value::Array(a), Some(i)) => {
                        let lower = a.dims.first().map(|d| d.1 as i64).unwrap_or(1);
                        let pos = i - lower;
                        if a.dims.len() == 1 && pos >= 0 && (pos as usize) < a.items.len() {
                            a.items[pos as usize].clone()
                        } else {
                            Value::Null
                        }
                    }
                    _ => Value::Null,
                }
            }
        })
    }
}

fn quantified(
    left: &Value,
    items: impl Iterator<Item = Value>,
    op: BinFn,
    all: bool,
    fmt: &FormatCtx,
) -> PgResult<Value> {
    if left.is_null() {
        // NULL op ANY(empty) is false; NULL op ALL(empty) is true.
        let mut items = items.peekable();
        if items.peek().is_none() {
            return Ok(Value::Bool(all));
        }
        return Ok(Value::Null);
    }
    let mut saw_null = false;
    for item in items {
        if item.is_null() {
            saw_null = true;
            continue;
        }
        match op(left, &item, fmt)? {
            Value::Bool(true) if !all => return Ok(Value::Bool(true)),
            Value::Bool(false) if all => return Ok(Value::Bool(false)),
            Value::Null => saw_null = true,
            _ => {}
        }
    }
    if saw_null {
        Ok(Value::Null)
    } else {
        Ok(Value::Bool(all))
    }
}

/// Runs a subquery as far as its kind needs: EXISTS stops at the first row, a scalar subquery
/// at the second (an error), ANY/ALL at the row that decides it; an array subquery reads all.
fn eval_subquery(
    plan: &Plan,
    kind: &SubqueryKind,
    row: &[Value],
    cx: &mut EvalCx,
) -> PgResult<Value> {
    let mut exec = crate::sql::exec::open(plan);
    let first = |r: Row| r.into_iter().next().unwrap_or(Value::Null);
    Ok(match kind {
        SubqueryKind::Scalar => match exec.next_row(cx)? {
            None => Value::Null,
            Some(r) => {
                if exec.next_row(cx)?.is_some() {
                    return Err(PgError::new(
                        code::CARDINALITY_VIOLATION,
                        "more than one row returned by a subquery used as an expression",
                    ));
                }
                first(r)
            }
        },
        SubqueryKind::Exists => Value::Bool(exec.next_row(cx)?.is_some()),
        SubqueryKind::Quantified { test, op, all } => {
            let mut next = exec.next_row(cx)?;
            // The left operand is evaluated in the enclosing query's scope.
            cx.outer.pop();
            let left = test.eval(row, cx);
            cx.outer.push(row.to_vec());
            let left = left?;
            if left.is_null() {
                // NULL op ANY(empty) is false; NULL op ALL(empty) is true.
                return Ok(if next.is_none() {
                    Value::Bool(*all)
                } else {
                    Value::Null
                });
            }
            let mut saw_null = false;
            while let Some(r) = next {
                let item = first(r);
                if item.is_null() {
                    saw_null = true;
                } else {
                    match op(&left, &item, cx.session.fmt())? {
                        Value::Bool(true) if !*all => return Ok(Value::Bool(true)),
                        Value::Bool(false) if *all => return Ok(Value::Bool(false)),
                        Value::Null => saw_null = true,
                        _ => {}
                    }
                }
                next = exec.next_row(cx)?;
            }
            if saw_null {
                Value::Null
            } else {
                Value::Bool(*all)
            }
        }
        SubqueryKind::Array => {
            let mut held = Held::default();
            let elem = plan.columns.first().map(|c| c.ty).unwrap_or(Type::TEXT);
            let mut items = Vec::new();
            while let Some(r) = exec.next_row(cx)? {
                held.add(row_bytes(&r), MAX_RESULT_BYTES, "ARRAY subquery")?;
                items.push(first(r));
            }
            Value::Array(Box::new(Array::one_dim(elem, items)))
        }
    })
}

/// Text form of a value for functions that print arbitrary arguments (concat, format).
pub fn text_of(v: &Value, ty: Type, fmt: &FormatCtx) -> String {
    io::to_text(v, ty, fmt)
}
