//! Bound expressions: the planner's output for every expression of a statement.
//!
//! The planner turns parse-tree expressions into [`Expr`]: names are resolved to column
//! indexes, operators and functions to function pointers, implicit casts are explicit nodes,
//! and unknown literals are already converted. The executor evaluates them
//! (`exec/eval.rs`); a subquery inside one holds its own [`Plan`].

use crate::sql::func::{ScalarFn, SessionFn};
use crate::sql::types::ops::{BinFn, UnFn};
use crate::sql::types::{Type, Value};

use super::Plan;

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
    /// A subscripted value, read or (with `assign`) replaced in its container.
    Subscript(Box<SubRef>),
    /// A call of a user-defined SQL function (`plan/user_func.rs`).
    UserCall(Box<UserCall>),
    /// A value converted to a domain (PostgreSQL's CoerceToDomain): the expression, already
    /// of the domain's base type, and the constraints it must pass. The checks are bound
    /// over a row of one column, the value (`VALUE`), so walks over expressions do not enter
    /// them.
    Domain(Box<Expr>, std::sync::Arc<DomainCoercion>),
    /// A system column of a table's row version (ctid, xmin, cmin, xmax, cmax): read from
    /// the version's slot, which the inner expression gives (the scan's hidden row id).
    System(Box<Expr>, SysColumn),
}

/// A subscripted value (PostgreSQL's SubscriptingRef, `plan/subscript.rs`): an element or a
/// slice of an array, a member of a jsonb document, a character of a name; with `assign`, the
/// container with that part replaced by the value (`UPDATE t SET a[2] = v`).
#[derive(Debug, Clone)]
pub struct SubRef {
    pub base: Expr,
    pub kind: SubKind,
    /// An array's element type (an empty array of it is what a NULL array is assigned into).
    pub elem: Type,
    /// (lower, upper) per subscript: `lower` is only set in a slice, and either bound of a
    /// slice may be omitted (`a[:2]`, `a[2:]`); an element's subscript is its `upper`.
    pub subs: Vec<(Option<Expr>, Option<Expr>)>,
    pub assign: Option<Expr>,
}

/// What a subscript selects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SubKind {
    Element,
    Slice,
    /// A jsonb path; `expect_array` when its first step is an integer (a NULL document
    /// assigned through it starts as an empty array rather than an empty object).
    Jsonb {
        expect_array: bool,
    },
    /// The n-th byte of a name, as a "char" (from 0).
    NameChar,
    /// An element of a fixed-length array (from 0): a point's coordinate, a box's or lseg's
    /// point.
    Fixed,
}

impl Expr {
    /// `array[idx]`: element `idx` of a one-dimensional array.
    pub fn element(array: Expr, idx: Expr) -> Expr {
        Expr::Subscript(Box::new(SubRef {
            base: array,
            kind: SubKind::Element,
            elem: Type::UNKNOWN,
            subs: vec![(None, Some(idx))],
            assign: None,
        }))
    }
}

impl SubRef {
    /// The expressions inside, the container first.
    fn children_mut(&mut self) -> impl Iterator<Item = &mut Expr> {
        std::iter::once(&mut self.base)
            .chain(
                self.subs
                    .iter_mut()
                    .flat_map(|(l, u)| l.iter_mut().chain(u.iter_mut())),
            )
            .chain(self.assign.iter_mut())
    }

    pub fn children(&self) -> impl Iterator<Item = &Expr> {
        std::iter::once(&self.base)
            .chain(self.subs.iter().flat_map(|(l, u)| l.iter().chain(u.iter())))
            .chain(self.assign.iter())
    }
}

/// Which system column, and the table whose heap holds the versions.
#[derive(Debug, Clone)]
pub struct SysColumn {
    pub kind: SysKind,
    pub rel: std::sync::Arc<crate::sql::engine::Rel>,
}

/// The system columns read from a version (tableoid is a constant per table).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SysKind {
    Ctid,
    Xmin,
    Cmin,
    Xmax,
    Cmax,
}

impl SysKind {
    pub fn of(name: &str) -> Option<SysKind> {
        Some(match name {
            "ctid" => SysKind::Ctid,
            "xmin" => SysKind::Xmin,
            "cmin" => SysKind::Cmin,
            "xmax" => SysKind::Xmax,
            "cmax" => SysKind::Cmax,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            SysKind::Ctid => "ctid",
            SysKind::Xmin => "xmin",
            SysKind::Cmin => "cmin",
            SysKind::Xmax => "xmax",
            SysKind::Cmax => "cmax",
        }
    }

    /// PostgreSQL's attribute number of the column (pg_attribute.attnum, RowDescription).
    pub fn attnum(self) -> i16 {
        match self {
            SysKind::Ctid => -1,
            SysKind::Xmin => -2,
            SysKind::Cmin => -3,
            SysKind::Xmax => -4,
            SysKind::Cmax => -5,
        }
    }

    pub fn ty(self) -> Type {
        match self {
            SysKind::Ctid => Type::TID,
            SysKind::Xmin | SysKind::Xmax => Type::XID,
            SysKind::Cmin | SysKind::Cmax => Type::CID,
        }
    }
}

/// The constraints of a domain, bound for one conversion to it (`plan/domain.rs`).
#[derive(Debug)]
pub struct DomainCoercion {
    /// For an array of a domain: each element is checked (the array itself may be NULL).
    pub elements: bool,
    /// The domain's schema and its name as format_type prints it, for the errors.
    pub schema: String,
    pub name: String,
    pub typname: String,
    /// NOT NULL on the domain or a domain under it.
    pub not_null: bool,
    /// (constraint name, predicate over `[value]`), those of the domains under it first.
    pub checks: Vec<(String, Expr)>,
}

/// A call of a user-defined function: its arguments (coerced to the declared types, defaults
/// filled in) and its body, planned for them.
#[derive(Debug, Clone)]
pub struct UserCall {
    pub oid: u32,
    pub name: String,
    pub args: Vec<Expr>,
    pub strict: bool,
    pub body: UserBody,
    /// Whether the function returns a set (SETOF, RETURNS TABLE): callable only where a set
    /// is accepted (FROM, the select list).
    pub returns_set: bool,
    /// The OUT / INOUT / TABLE parameters' names and types (empty without any): the columns
    /// of a row the function returns.
    pub outs: Vec<(String, crate::sql::types::Type)>,
}

/// What runs when a user function is called.
#[derive(Debug, Clone)]
pub enum UserBody {
    /// A SQL function's statements, planned with the call.
    Sql(std::sync::Arc<SqlBody>),
    /// A PL/pgSQL function: compiled and planned statement by statement when it runs
    /// (`sql::pl`), through the session.
    PlPgSql(std::sync::Arc<crate::catalog::functions::Function>),
}

/// The statements of a SQL function's body, planned with the arguments as parameters `$1` ..
/// `$n`: each runs to its end in order, and the first column of the last one's first row is
/// the result (NULL without a row; nothing for a function returning void).
#[derive(Debug)]
pub struct SqlBody {
    pub stmts: Vec<Plan>,
    /// Which statements change data (INSERT / UPDATE / DELETE).
    pub writes: Vec<bool>,
    pub returns_void: bool,
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
            Expr::Bin(_, a, b) | Expr::Distinct(_, a, b, _) | Expr::NullIf(_, a, b) => {
                a.walk_mut(f);
                b.walk_mut(f);
            }
            Expr::Subscript(s) => s.children_mut().for_each(|e| e.walk_mut(f)),
            Expr::ArrayCmp { left, right, .. } => {
                left.walk_mut(f);
                right.walk_mut(f);
            }
            Expr::Un(_, a)
            | Expr::Domain(a, _)
            | Expr::System(a, _)
            | Expr::Not(a)
            | Expr::IsNull(a, _)
            | Expr::BoolTest(a, ..)
            | Expr::Cast { expr: a, .. } => a.walk_mut(f),
            Expr::UserCall(c) => c.args.iter_mut().for_each(|e| e.walk_mut(f)),
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
    /// The expressions `f` sees live as long as this one (EXPLAIN keeps the subquery plans
    /// it finds).
    pub fn any<'a>(&'a self, f: &mut dyn FnMut(&'a Expr) -> bool) -> bool {
        if f(self) {
            return true;
        }
        let list = |v: &'a [Expr], f: &mut dyn FnMut(&'a Expr) -> bool| v.iter().any(|e| e.any(f));
        match self {
            Expr::Const(_) | Expr::Param(_) | Expr::Column(_) | Expr::Outer(..) => false,
            Expr::Bin(_, a, b) | Expr::Distinct(_, a, b, _) | Expr::NullIf(_, a, b) => {
                a.any(f) || b.any(f)
            }
            Expr::Subscript(s) => s.children().any(|e| e.any(f)),
            Expr::ArrayCmp { left, right, .. } => left.any(f) || right.any(f),
            Expr::Un(_, a)
            | Expr::Domain(a, _)
            | Expr::System(a, _)
            | Expr::Not(a)
            | Expr::IsNull(a, _)
            | Expr::BoolTest(a, ..)
            | Expr::Cast { expr: a, .. } => a.any(f),
            Expr::Func { args, .. } | Expr::Session { args, .. } => list(args, f),
            Expr::UserCall(c) => list(&c.args, f),
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
}
