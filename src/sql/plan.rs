//! The planner: PostgreSQL parse trees → typed plans.
//!
//! Planning does what PostgreSQL's analyzer and planner do for a query with no tables yet:
//! resolve names against the FROM clause, type every expression, pick operators and functions by
//! PostgreSQL's overload rules (exact match, then implicit casts, preferring exact and preferred
//! types), convert unknown literals to their context's type, infer the types of parameters the
//! client left unspecified (OID 0), and arrange the relational operators:
//!
//! ```text
//!   FROM (values / functions / subqueries / virtual tables, joined)
//!     → WHERE (Filter) → GROUP BY + aggregates (Aggregate) → HAVING (Filter)
//!     → target list (Project, with hidden sort columns) → DISTINCT → ORDER BY (Sort)
//!     → LIMIT/OFFSET → drop hidden columns
//! ```
//!
//! Tables plug in later as another kind of FROM item; nothing above it changes.

pub mod modify;
mod with_modify;
pub use with_modify::has_modifying_ctes;

use std::collections::HashMap;

use pg_query::protobuf::{self, node::Node as N};

use crate::error::{code, PgError, PgResult};
use crate::sql::expr::Expr;
use crate::sql::func;
use crate::sql::privs;
use crate::sql::session_fn;
use crate::sql::types::cast::CoercionContext;
use crate::sql::types::{io, FormatCtx, Type, Value};

mod acl_fn;
mod aggregates;
mod grouping_sets;
mod whole_row;
pub use aggregates::{Regr, Spread};
pub mod explain;
pub mod index_path;
pub mod join;
pub mod lock_rows;
mod regclass;
mod regrole;
mod search_cycle;
mod table_expr;

mod coerce;
mod expr;
mod func_call;
mod names;
mod nodes;
mod operator;
mod scope;
mod virtual_table;

pub use coerce::common_type;
use expr::same_expr;
use func_call::{not_unique, undefined_function};
pub use names::{column_name_of, node_location, node_name};
pub use nodes::{
    AggCall, AggFunc, Column, Feed, Frame, FrameBound, JoinKind, ListFn, LockWait, Node, Plan,
    ScanRel, SetOpKind, SortKey, Srf, SrfCall, WinFunc, WindowCall, WorkTable,
};
use operator::ops_eq_any;
use scope::{Scope, ScopeCol};
use virtual_table::{guarded_catalog, virtual_table};
pub use virtual_table::{virtual_columns, virtual_relation, VirtualTable};

/// Aggregation context while binding a grouped query's target list, HAVING and ORDER BY.
struct AggCtx {
    input: Scope,
    group: Vec<Expr>,
    group_types: Vec<(Type, i32)>,
    aggs: Vec<AggCall>,
    /// GROUP BY ROLLUP / CUBE / GROUPING SETS (plan/grouping_sets.rs).
    gsets: Option<grouping_sets::Sets>,
}

/// The select list of a SELECT, `*` expanded.
struct Targets<'s> {
    /// Output name, expression and location of each target.
    list: Vec<(String, &'s protobuf::Node, i32)>,
    /// The targets a `*` expanded to: the scope column of each.
    star: HashMap<usize, usize>,
    /// The targets that call set-returning functions: the ProjectSet column holding the
    /// call's value, and its type.
    srf: HashMap<usize, (usize, Type)>,
}

/// The rows to lock of a SELECT ... FOR UPDATE: the tables, where the FROM row starts among
/// the projection's columns, the visible expressions, and the conditions to re-check.
type LockPlan = (Vec<lock_rows::LockTarget>, usize, Vec<Expr>, Option<Expr>);

pub struct Planner<'a> {
    /// Parameter types: given by the client, or UNKNOWN until the planner infers them.
    pub params: &'a mut Vec<Type>,
    pub fmt: &'a FormatCtx,
    /// Scopes of enclosing queries, innermost last (for correlated subqueries).
    outer: Vec<Scope>,
    ctes: Vec<(String, std::sync::Arc<Plan>)>,
    /// Which parameters the statement refers to.
    referenced: Vec<bool>,
    /// Whether `$n` may appear (not in a simple Query).
    pub allow_params: bool,
    /// PostgreSQL folds constant expressions when it plans, which for the extended protocol is
    /// at Bind, not Parse. With this set, a folding error is kept in `deferred` (and the
    /// expression left unfolded) so that the session can raise it at Bind/EXECUTE.
    pub defer_fold_errors: bool,
    pub deferred: Option<PgError>,
    /// What the query being planned has seen so far (see `PlanState`).
    state: PlanState,
    /// The catalog, where table names are resolved (None: no tables, as in PREPARE's types).
    pub tables: Option<modify::TableCx<'a>>,
    /// The views whose queries enclose this one, outermost first (a view met again is a
    /// recursive definition).
    expanding: Vec<u32>,
}

/// Planning state beyond scopes.
#[derive(Default)]
struct PlanState {
    /// The locking clauses of the SELECT whose FROM clause is being planned: its table
    /// references carry their rows' slots (plan/lock_rows.rs).
    lock: Option<lock_rows::FromLocks>,
    /// A set operation's leaf SELECT keeps unknown-typed outputs (`SELECT NULL UNION SELECT 1`)
    /// for the set operation to resolve, and reports where its targets are, for error
    /// positions (`target_locs`).
    keep_unknown: bool,
    target_locs: Vec<i32>,
    /// Where each unknown-typed string literal stands in the query, keyed by the address of
    /// its (non-empty) text, which stays put while the bound expression moves around: an
    /// error converting a literal points at the literal, wherever the conversion happens.
    lit_locs: HashMap<usize, i32>,
    /// Set by a FROM item that refers to the items before it (LATERAL).
    lateral: bool,
    /// Set for the statement's top SELECT: its whole-row targets of a table report the
    /// table's row type in RowDescription (plan/whole_row.rs).
    report_row_types: bool,
    /// How many times a recursive CTE's work table was referenced.
    worktable_refs: usize,
    /// The work tables of the recursive terms being planned: id, the number of subqueries in
    /// expressions (`sublinks`) around the definition, references so far (at most one).
    worktables: Vec<(usize, usize, usize)>,
    /// How many subqueries in expressions enclose what is being planned.
    sublinks: usize,
    /// The clause being bound, for "... are not allowed in WHERE" errors.
    clause: Option<&'static str>,
    /// How many statements (queries, INSERT / UPDATE / DELETE) enclose what is being planned:
    /// data-modifying WITH queries are allowed only at the top level.
    query_depth: usize,
    /// Window function calls of the SELECT being planned; None where they are not allowed.
    win: Option<WinCtx>,
    /// Binding the parts of a window call (where another one is an error).
    in_window: bool,
}

/// Window calls are bound while the target list is, before the width of the rows they extend
/// is known: they are referenced as `Column(WIN_BASE + k)` and renumbered afterwards.
const WIN_BASE: usize = usize::MAX / 2;

#[derive(Default)]
struct WinCtx {
    calls: Vec<WindowCall>,
    /// Result types of `calls`.
    types: Vec<Type>,
    /// The WINDOW clause: named window definitions.
    named: Vec<protobuf::WindowDef>,
}

fn loc(l: i32) -> Option<u32> {
    if l >= 0 {
        Some(l as u32 + 1)
    } else {
        None
    }
}

fn str_of(n: &protobuf::Node) -> Option<&str> {
    match n.node.as_ref()? {
        N::String(s) => Some(&s.sval),
        _ => None,
    }
}

fn names_of(nodes: &[protobuf::Node]) -> Vec<String> {
    nodes
        .iter()
        .filter_map(str_of)
        .map(str::to_string)
        .collect()
}

impl<'a> Planner<'a> {
    pub fn new(params: &'a mut Vec<Type>, fmt: &'a FormatCtx) -> Planner<'a> {
        Planner {
            params,
            fmt,
            outer: Vec::new(),
            ctes: Vec::new(),
            referenced: Vec::new(),
            allow_params: true,
            defer_fold_errors: false,
            deferred: None,
            state: PlanState::default(),
            tables: None,
            expanding: Vec::new(),
        }
    }

    /// A parameter whose type nothing determined (never referenced, or only in a context such
    /// as `$1 IS NULL`) is an error, as in PostgreSQL. (`SELECT $1` resolves to text in the
    /// target list.)
    pub fn finish_params(&mut self) -> PgResult<()> {
        if let Some(i) = self.params.iter().position(|t| *t == Type::UNKNOWN) {
            return Err(PgError::new(
                code::INDETERMINATE_DATATYPE,
                format!("could not determine data type of parameter ${}", i + 1),
            ));
        }
        Ok(())
    }

    pub fn plan_query(&mut self, node: &N) -> PgResult<Plan> {
        match node {
            N::SelectStmt(s) => self.plan_select(s),
            other => Err(PgError::feature_not_supported(format!(
                "statement not supported as a query: {}",
                node_name(other)
            ))),
        }
    }

    pub fn plan_select(&mut self, s: &protobuf::SelectStmt) -> PgResult<Plan> {
        crate::stack::check()?;
        let saved_ctes = self.ctes.len();
        let top = self.state.query_depth == 0;
        self.state.query_depth += 1;
        let result = self.plan_select_in(s, top);
        self.state.query_depth -= 1;
        self.ctes.truncate(saved_ctes);
        result
    }

    fn plan_select_in(&mut self, s: &protobuf::SelectStmt, top: bool) -> PgResult<Plan> {
        let modifying = match &s.with_clause {
            Some(with) => self.plan_with(with, top)?,
            None => Vec::new(),
        };
        self.state.report_row_types = top;
        let body = self.plan_select_body(s)?;
        Ok(with_modify::run_with(body, modifying))
    }

    /// The queries of a WITH clause, in scope from here on (the caller takes them out of
    /// scope); returns its data-modifying ones, which only the top level may have.
    fn plan_with(
        &mut self,
        with: &protobuf::WithClause,
        top: bool,
    ) -> PgResult<Vec<std::sync::Arc<Plan>>> {
        let mut modifying = Vec::new();
        for cte in &with.ctes {
            let Some(N::CommonTableExpr(c)) = &cte.node else {
                continue;
            };
            let q = c
                .ctequery
                .as_ref()
                .and_then(|n| n.node.as_ref())
                .ok_or_else(|| PgError::syntax("empty WITH query"))?;
            if with.recursive {
                if let Some(plan) = self.plan_recursive_cte(c, q)? {
                    self.ctes
                        .push((c.ctename.clone(), std::sync::Arc::new(plan)));
                    continue;
                }
            }
            if c.search_clause.is_some() || c.cycle_clause.is_some() {
                return Err(PgError::syntax("WITH query is not recursive").at(loc(c.location)));
            }
            if let Some(plan) = self.plan_modifying_cte(c, q, top)? {
                modifying.push(plan.clone());
                self.ctes.push((c.ctename.clone(), plan));
                continue;
            }
            let mut plan = self.plan_query(q)?;
            let aliases = names_of(&c.aliascolnames);
            for (i, a) in aliases.into_iter().enumerate() {
                if let Some(col) = plan.columns.get_mut(i) {
                    col.name = a;
                }
            }
            self.ctes
                .push((c.ctename.clone(), std::sync::Arc::new(plan)));
        }
        Ok(modifying)
    }

    /// A CTE of WITH RECURSIVE that refers to itself: `init UNION [ALL] step`, where `step`
    /// reads the previous iteration's rows under the CTE's name. None if the query does not
    /// refer to itself (it is then an ordinary CTE).
    fn plan_recursive_cte(
        &mut self,
        c: &protobuf::CommonTableExpr,
        q: &N,
    ) -> PgResult<Option<Plan>> {
        let N::SelectStmt(s) = q else {
            return Ok(None);
        };
        let (Some(l), Some(r)) = (s.larg.as_ref(), s.rarg.as_ref()) else {
            return Ok(None);
        };
        if s.op != protobuf::SetOperation::SetopUnion as i32 {
            return Ok(None);
        }
        // Clauses PostgreSQL does not run on a recursive union (they would not end it).
        let at = |n: Option<&protobuf::Node>| {
            n.and_then(|n| n.node.as_ref()).map_or(-1, |n| match n {
                N::SortBy(sb) => sb
                    .node
                    .as_ref()
                    .and_then(|n| n.node.as_ref())
                    .map_or(-1, node_location),
                n => node_location(n),
            })
        };
        let refuse = |what: &str, location: i32| {
            Err(PgError::new(
                code::FEATURE_NOT_SUPPORTED,
                format!("{what} in a recursive query is not implemented"),
            )
            .at(loc(location)))
        };
        if !s.sort_clause.is_empty() {
            return refuse("ORDER BY", at(s.sort_clause.first()));
        }
        if s.limit_offset.is_some() {
            return refuse("OFFSET", at(s.limit_offset.as_deref()));
        }
        if s.limit_count.is_some() {
            return refuse("LIMIT", at(s.limit_count.as_deref()));
        }
        if !s.locking_clause.is_empty() {
            return refuse("FOR UPDATE/SHARE", -1);
        }
        self.state.keep_unknown = true;
        let init = self.plan_select(l);
        let init_locs = std::mem::take(&mut self.state.target_locs);
        let mut init = init?;
        for col in &mut init.columns {
            if col.ty == Type::UNKNOWN {
                col.ty = Type::TEXT;
            }
        }
        let aliases = names_of(&c.aliascolnames);
        if !aliases.is_empty() && aliases.len() != init.columns.len() {
            return Err(PgError::new(
                code::INVALID_COLUMN_REFERENCE,
                format!(
                    "WITH query \"{}\" has {} columns available but {} columns specified",
                    c.ctename,
                    init.columns.len(),
                    aliases.len()
                ),
            )
            .at(loc(c.location)));
        }
        for (col, a) in init.columns.iter_mut().zip(aliases) {
            col.name = a;
        }
        let clauses = search_cycle::Clauses::bind(self, c, &init.columns)?;
        // With SEARCH or CYCLE, the work table has the previous run's extra columns too, and
        // the recursive term reads them.
        let mut work_columns = init.columns.clone();
        let mut rewritten = None;
        if let Some(cl) = &clauses {
            work_columns.extend(cl.columns(true));
            rewritten = cl.rewrite_step(r, &c.ctename);
        }
        let work: WorkTable = Default::default();
        self.ctes.push((
            c.ctename.clone(),
            std::sync::Arc::new(Plan {
                node: Node::WorkTable(work.clone()),
                columns: work_columns,
            }),
        ));
        let refs_before = self.state.worktable_refs;
        self.state
            .worktables
            .push((work.id(), self.state.sublinks, 0));
        let step = self.plan_select(rewritten.as_ref().unwrap_or(r));
        self.state.worktables.pop();
        self.ctes.pop();
        let step = step?;
        if self.state.worktable_refs == refs_before {
            return Ok(None);
        }
        if let Some(cl) = &clauses {
            cl.check_sides(s)?;
        }
        if clauses.is_some() && rewritten.is_none() {
            return Err(PgError::feature_not_supported(format!(
                "with a SEARCH or CYCLE clause, the recursive reference to WITH query \"{}\" must be at the top level of its right-hand SELECT",
                c.ctename
            )));
        }
        let extra = clauses.as_ref().map_or(0, |cl| cl.columns(true).len());
        if step.columns.len() != init.columns.len() + extra {
            return Err(PgError::syntax(
                "each UNION query must have the same number of columns",
            ));
        }
        // The step's rows must have the non-recursive term's types.
        let mut exprs = Vec::new();
        let mut cast = false;
        for (i, (ic, sc)) in init.columns.iter().zip(&step.columns).enumerate() {
            let ty = common_type(&[ic.ty, sc.ty], "UNION", -1)?;
            if ty != ic.ty {
                return Err(PgError::new(
                    code::DATATYPE_MISMATCH,
                    format!(
                        "recursive query \"{}\" column {} has type {} in non-recursive term but type {} overall",
                        c.ctename,
                        i + 1,
                        ic.ty.name(),
                        ty.name()
                    ),
                )
                .with_hint("Cast the output of the non-recursive term to the correct type.")
                .at(loc(init_locs.get(i).copied().unwrap_or(-1))));
            }
            cast |= sc.ty != ic.ty;
            exprs.push(self.coerce(
                Expr::Column(i),
                sc.ty,
                ic.ty,
                -1,
                CoercionContext::Implicit,
                -1,
            )?);
        }
        let (init, step) = match &clauses {
            Some(cl) => {
                let own = init.columns.clone();
                (cl.wrap_init(init), cl.wrap_step(step, exprs, own))
            }
            None if cast => {
                let columns = init.columns.clone();
                (
                    init,
                    Plan {
                        node: Node::Project {
                            input: Box::new(step),
                            exprs,
                        },
                        columns,
                    },
                )
            }
            None => (init, step),
        };
        Ok(Some(Plan {
            columns: init.columns.clone(),
            node: Node::RecursiveUnion {
                init: Box::new(init),
                step: Box::new(step),
                all: s.all,
                work,
            },
        }))
    }

    fn plan_select_body(&mut self, s: &protobuf::SelectStmt) -> PgResult<Plan> {
        if s.into_clause.is_some() {
            return Err(PgError::feature_not_supported(
                "SELECT INTO is not supported yet",
            ));
        }
        let op = s.op;
        // Only a plain top SELECT reports table row types (not a set operation's sides).
        let report_row_types = std::mem::take(&mut self.state.report_row_types);
        let mut plan = if op != protobuf::SetOperation::SetopNone as i32 && op != 0 {
            let l = s
                .larg
                .as_ref()
                .ok_or_else(|| PgError::internal("set operation without left side"))?;
            let r = s
                .rarg
                .as_ref()
                .ok_or_else(|| PgError::internal("set operation without right side"))?;
            self.state.keep_unknown = true;
            let left = self.plan_select(l);
            let left_locs = std::mem::take(&mut self.state.target_locs);
            let left = left?;
            self.state.keep_unknown = true;
            let right = self.plan_select(r);
            let right_locs = std::mem::take(&mut self.state.target_locs);
            let right = right?;
            lock_rows::check_set_operation(s)?;
            let kind = match op {
                x if x == protobuf::SetOperation::SetopUnion as i32 => SetOpKind::Union,
                x if x == protobuf::SetOperation::SetopIntersect as i32 => SetOpKind::Intersect,
                _ => SetOpKind::Except,
            };
            self.plan_setop(kind, s.all, (left, left_locs), (right, right_locs))?
        } else if !s.values_lists.is_empty() {
            self.plan_values(&s.values_lists)?
        } else {
            self.state.report_row_types = report_row_types;
            return self.plan_simple_select(s);
        };
        // ORDER BY / LIMIT on a set operation or VALUES refer to output columns.
        if !s.sort_clause.is_empty() {
            let scope = Scope {
                cols: plan
                    .columns
                    .iter()
                    .map(|c| ScopeCol {
                        rel: String::new(),
                        name: c.name.clone(),
                        ty: c.ty,
                        typmod: c.typmod,
                        origin: None,
                        hidden: false,
                        qualified_only: false,
                    })
                    .collect(),
            };
            let mut keys = Vec::new();
            for sb in &s.sort_clause {
                let Some(N::SortBy(sb)) = &sb.node else {
                    continue;
                };
                let target = sb.node.as_ref().and_then(|n| n.node.as_ref());
                let expr = match target {
                    Some(N::AConst(c))
                        if matches!(c.val, Some(protobuf::a_const::Val::Ival(_))) =>
                    {
                        let Some(protobuf::a_const::Val::Ival(i)) = &c.val else {
                            unreachable!()
                        };
                        let i = i.ival;
                        if i < 1 || i as usize > plan.columns.len() {
                            return Err(PgError::new(
                                code::INVALID_COLUMN_REFERENCE,
                                format!("ORDER BY position {i} is not in select list"),
                            )
                            .at(loc(c.location)));
                        }
                        Expr::Column(i as usize - 1)
                    }
                    Some(n) => self.bind(n, &scope, None)?.0,
                    None => continue,
                };
                keys.push(sort_key(expr, sb));
            }
            plan = Plan {
                columns: plan.columns.clone(),
                node: Node::Sort {
                    input: Box::new(plan),
                    keys,
                },
            };
        }
        self.plan_limit(s, plan)
    }

    fn plan_limit(&mut self, s: &protobuf::SelectStmt, plan: Plan) -> PgResult<Plan> {
        if s.limit_count.is_none() && s.limit_offset.is_none() {
            return Ok(plan);
        }
        let empty = Scope::default();
        let mut bound = |n: &Option<Box<protobuf::Node>>| -> PgResult<Option<Expr>> {
            match n.as_ref().and_then(|n| n.node.as_ref()) {
                None => Ok(None),
                Some(N::AConst(c)) if c.isnull => Ok(None),
                Some(node) => {
                    let (e, t) = self.bind(node, &empty, None)?;
                    Ok(Some(self.coerce(
                        e,
                        t,
                        Type::INT8,
                        -1,
                        CoercionContext::Implicit,
                        -1,
                    )?))
                }
            }
        };
        let count = bound(&s.limit_count)?;
        let offset = bound(&s.limit_offset)?;
        Ok(Plan {
            columns: plan.columns.clone(),
            node: Node::Limit {
                input: Box::new(plan),
                offset,
                count,
            },
        })
    }

    fn plan_values(&mut self, lists: &[protobuf::Node]) -> PgResult<Plan> {
        let empty = Scope::default();
        let mut rows: Vec<Vec<(Expr, Type)>> = Vec::new();
        let mut width = None;
        for l in lists {
            let Some(N::List(items)) = &l.node else {
                continue;
            };
            let mut row = Vec::new();
            for item in &items.items {
                let n = item
                    .node
                    .as_ref()
                    .ok_or_else(|| PgError::syntax("empty VALUES item"))?;
                row.push(self.bind(n, &empty, None)?);
            }
            if let Some(w) = width {
                if w != row.len() {
                    return Err(PgError::syntax("VALUES lists must all be the same length"));
                }
            }
            width = Some(row.len());
            rows.push(row);
        }
        let width = width.unwrap_or(0);
        let mut columns = Vec::new();
        for c in 0..width {
            let types: Vec<Type> = rows.iter().map(|r| r[c].1).collect();
            let ty = common_type(&types, "VALUES", -1)?;
            columns.push(Column {
                name: format!("column{}", c + 1),
                ty,
                typmod: -1,
                origin: None,
            });
        }
        let mut out = Vec::new();
        for row in rows {
            let mut r = Vec::new();
            for (c, (e, t)) in row.into_iter().enumerate() {
                r.push(self.coerce(e, t, columns[c].ty, -1, CoercionContext::Implicit, -1)?);
            }
            out.push(r);
        }
        Ok(Plan {
            node: Node::Values(out),
            columns,
        })
    }

    fn plan_setop(
        &mut self,
        op: SetOpKind,
        all: bool,
        (left, left_locs): (Plan, Vec<i32>),
        (right, right_locs): (Plan, Vec<i32>),
    ) -> PgResult<Plan> {
        let word = match op {
            SetOpKind::Union => "UNION",
            SetOpKind::Intersect => "INTERSECT",
            SetOpKind::Except => "EXCEPT",
        };
        if left.columns.len() != right.columns.len() {
            return Err(PgError::syntax(format!(
                "each {word} query must have the same number of columns"
            ))
            .at(loc(right_locs.first().copied().unwrap_or(-1))));
        }
        let mut columns = Vec::new();
        let mut lexprs = Vec::new();
        let mut rexprs = Vec::new();
        let mut lcast = false;
        let mut rcast = false;
        for (i, (l, r)) in left.columns.iter().zip(&right.columns).enumerate() {
            let at = |locs: &Vec<i32>| locs.get(i).copied().unwrap_or(-1);
            let ty = common_type(&[l.ty, r.ty], word, at(&right_locs))?;
            // Unknown literals of a leaf are converted where they stand, so that bad input is
            // an error at plan time pointing at the literal.
            for (side, c, locs) in [(&left, l, &left_locs), (&right, r, &right_locs)] {
                if c.ty == Type::UNKNOWN {
                    if let Some(Expr::Const(Value::Text(s))) = output_expr(side, i) {
                        io::from_text(s, ty, -1, self.fmt).map_err(|e| e.at(loc(at(locs))))?;
                    }
                }
            }
            columns.push(Column {
                name: l.name.clone(),
                ty,
                typmod: if l.ty == r.ty && l.typmod == r.typmod {
                    l.typmod
                } else {
                    -1
                },
                origin: None,
            });
            lcast |= l.ty != ty;
            rcast |= r.ty != ty;
            lexprs.push(self.coerce(
                Expr::Column(i),
                l.ty,
                ty,
                -1,
                CoercionContext::Implicit,
                -1,
            )?);
            rexprs.push(self.coerce(
                Expr::Column(i),
                r.ty,
                ty,
                -1,
                CoercionContext::Implicit,
                -1,
            )?);
        }
        let wrap = |p: Plan, exprs: Vec<Expr>, needed: bool, columns: &Vec<Column>| {
            if needed {
                Plan {
                    node: Node::Project {
                        input: Box::new(p),
                        exprs,
                    },
                    columns: columns.clone(),
                }
            } else {
                p
            }
        };
        let left = wrap(left, lexprs, lcast, &columns);
        let right = wrap(right, rexprs, rcast, &columns);
        Ok(Plan {
            node: Node::SetOp {
                op,
                all,
                left: Box::new(left),
                right: Box::new(right),
            },
            columns,
        })
    }

    fn plan_simple_select(&mut self, s: &protobuf::SelectStmt) -> PgResult<Plan> {
        // A subquery has its own clauses and window calls.
        let win = self.state.win.take();
        let clause = self.state.clause.take();
        let in_window = std::mem::take(&mut self.state.in_window);
        let lock = self.state.lock.take();
        let r = self.plan_simple_select_inner(s);
        self.state.lock = lock;
        self.state.win = win;
        self.state.clause = clause;
        self.state.in_window = in_window;
        r
    }

    fn plan_simple_select_inner(&mut self, s: &protobuf::SelectStmt) -> PgResult<Plan> {
        let keep_unknown = std::mem::take(&mut self.state.keep_unknown);
        let report_row_types = std::mem::take(&mut self.state.report_row_types);
        // FOR UPDATE / SHARE: the scans of the locked tables carry each row's slot.
        self.state.lock = lock_rows::FromLocks::parse(s);
        // FROM
        let (mut plan, scope) = self.plan_from_list(s)?;
        let lock = self.state.lock.take().map(|l| l.found(&plan));
        let from_columns = plan.columns.clone();
        // WHERE
        let recheck;
        (plan, recheck) = self.plan_where(s, plan, &scope)?;
        plan = join::optimize(plan);
        // Targets (with * expansion)
        let mut targets = self.expand_targets(s, &scope)?;

        // Set-returning functions in the select list become a ProjectSet below the projection.
        let (mut plan, scope) = self.plan_target_srfs(&mut targets, plan, scope)?;

        // Aggregation?
        let has_aggs = !s.group_clause.is_empty()
            || s.having_clause.is_some()
            || targets.list.iter().any(|(_, n, _)| contains_aggregate(n))
            || s.sort_clause.iter().any(contains_aggregate);
        if let Some(pending) = &lock {
            pending.check(&lock_rows::Shape {
                distinct: !s.distinct_clause.is_empty(),
                group: !s.group_clause.is_empty(),
                having: s.having_clause.is_some(),
                aggregates: has_aggs,
                srfs: !targets.srf.is_empty(),
                ..Default::default()
            })?;
        }
        let mut agg_ctx = if has_aggs {
            Some(self.group_by_context(s, &targets.list, &scope, &plan)?)
        } else {
            None
        };

        // Window calls may appear in the target list and ORDER BY.
        let named_windows = s
            .window_clause
            .iter()
            .filter_map(|w| match &w.node {
                Some(N::WindowDef(d)) => Some((**d).clone()),
                _ => None,
            })
            .collect();
        self.state.win = Some(WinCtx {
            named: named_windows,
            ..Default::default()
        });

        // Bind targets (against the input scope or the aggregation context).
        let (mut exprs, mut columns) = self.bind_targets(
            &targets,
            &scope,
            &mut agg_ctx,
            keep_unknown,
            report_row_types,
        )?;
        let visible = exprs.len();

        // HAVING
        let having = self.bind_having(s, &scope, &mut agg_ctx)?;

        // ORDER BY: output column names/positions first, then expressions over the input.
        let sort_keys =
            self.bind_order_by(s, &scope, &mut agg_ctx, &mut exprs, &mut columns, visible)?;

        // DISTINCT ON expressions.
        let distinct_on =
            self.bind_distinct_on(s, &scope, &mut agg_ctx, &mut exprs, &mut columns, visible)?;

        if let Some(ctx) = agg_ctx {
            plan = plan_aggregate(plan, ctx, having);
        }

        // Window functions run over the (grouped) rows, before DISTINCT, ORDER BY and LIMIT.
        let has_windows;
        (plan, has_windows) = self.plan_windows(plan, &mut exprs);

        // FOR UPDATE: the FROM row rides along, hidden, for LockRows's re-check.
        let lock = match lock {
            Some(pending) => Some(self.finish_lock(
                pending,
                has_windows,
                recheck,
                &mut exprs,
                &mut columns,
                &from_columns,
            )?),
            None => None,
        };
        let total = exprs.len();
        plan = Plan {
            node: Node::Project {
                input: Box::new(plan),
                exprs,
            },
            columns: columns.clone(),
        };

        if distinct_on.is_some() || !s.distinct_clause.is_empty() {
            // DISTINCT ON keeps the first row of each group in ORDER BY order: sort first.
            if distinct_on.is_some() && !sort_keys.is_empty() {
                plan = Plan {
                    columns: plan.columns.clone(),
                    node: Node::Sort {
                        input: Box::new(plan),
                        keys: sort_keys.clone(),
                    },
                };
            }
            plan = Plan {
                columns: plan.columns.clone(),
                node: Node::Distinct {
                    input: Box::new(plan),
                    on: distinct_on.clone(),
                    width: visible,
                },
            };
        }
        if !sort_keys.is_empty() {
            plan = index_path::use_index_order(Plan {
                columns: plan.columns.clone(),
                node: Node::Sort {
                    input: Box::new(plan),
                    keys: sort_keys,
                },
            });
        }
        if let Some((targets, from, kept, recheck)) = lock {
            plan = lock_rows::lock_rows(plan, targets, from, kept, recheck);
        }
        plan = self.plan_limit(s, plan)?;
        if total > visible {
            columns.truncate(visible);
            plan = Plan {
                node: Node::Project {
                    input: Box::new(plan),
                    exprs: (0..visible).map(Expr::Column).collect(),
                },
                columns,
            };
        }
        Ok(plan)
    }

    /// The FROM list: its items joined left to right (a cross join, lateral where an item
    /// refers to the items before it); without FROM, one row of no columns.
    fn plan_from_list(&mut self, s: &protobuf::SelectStmt) -> PgResult<(Plan, Scope)> {
        Ok(if s.from_clause.is_empty() {
            (
                Plan {
                    node: Node::Result,
                    columns: Vec::new(),
                },
                Scope::default(),
            )
        } else {
            let mut acc: Option<(Plan, Scope)> = None;
            for item in &s.from_clause {
                let n = item
                    .node
                    .as_ref()
                    .ok_or_else(|| PgError::syntax("empty FROM item"))?;
                let left_scope = acc.as_ref().map(|(_, s)| s.clone());
                self.state.lateral = false;
                let (p, sc) = self.plan_from_item(n, left_scope.as_ref())?;
                let lateral = std::mem::take(&mut self.state.lateral);
                acc = Some(match acc {
                    None => (p, sc),
                    Some((lp, mut ls)) => {
                        ls.cols.extend(sc.cols);
                        let columns = lp.columns.iter().chain(&p.columns).cloned().collect();
                        (
                            Plan {
                                node: Node::Join {
                                    left: Box::new(lp),
                                    right: Box::new(p),
                                    kind: JoinKind::Inner,
                                    on: None,
                                    lateral,
                                },
                                columns,
                            },
                            ls,
                        )
                    }
                });
            }
            acc.expect("non-empty FROM")
        })
    }

    /// WHERE: a Filter over the FROM rows (an index scan where one applies); the condition is
    /// returned too, for FOR UPDATE's re-check.
    fn plan_where(
        &mut self,
        s: &protobuf::SelectStmt,
        mut plan: Plan,
        scope: &Scope,
    ) -> PgResult<(Plan, Option<Expr>)> {
        let mut recheck = None;
        if let Some(w) = s.where_clause.as_ref().and_then(|n| n.node.as_ref()) {
            self.state.clause = Some("WHERE");
            let (e, t) = self.bind(w, scope, None)?;
            self.state.clause = None;
            let pred = self.coerce_bool(e, t, "WHERE", w)?;
            recheck = Some(pred.clone());
            plan = modify::choose_index(Plan {
                columns: plan.columns.clone(),
                node: Node::Filter {
                    input: Box::new(plan),
                    pred,
                },
            });
        }
        Ok((plan, recheck))
    }

    /// The select list, `*` expanded to the columns in scope.
    fn expand_targets<'s>(
        &self,
        s: &'s protobuf::SelectStmt,
        scope: &Scope,
    ) -> PgResult<Targets<'s>> {
        let mut targets: Vec<(String, &protobuf::Node, i32)> = Vec::new();
        let mut star_cols: Vec<(usize, Option<usize>)> = Vec::new(); // (target idx, scope col)
        for t in &s.target_list {
            let Some(N::ResTarget(rt)) = &t.node else {
                continue;
            };
            let Some(val) = rt.val.as_ref() else { continue };
            if let Some(N::ColumnRef(cr)) = &val.node {
                let is_star = cr
                    .fields
                    .last()
                    .is_some_and(|f| matches!(f.node, Some(N::AStar(_))));
                if is_star {
                    let rel = if cr.fields.len() > 1 {
                        str_of(&cr.fields[0]).map(str::to_string)
                    } else {
                        None
                    };
                    let mut found = false;
                    for (i, c) in scope.cols.iter().enumerate() {
                        if c.hidden || (rel.is_none() && c.qualified_only) {
                            continue;
                        }
                        if rel.as_ref().is_none_or(|r| *r == c.rel) {
                            if let Some(cx) = &self.tables {
                                cx.mark(c.origin, privs::ColUse::Select);
                            }
                            star_cols.push((targets.len(), Some(i)));
                            targets.push((c.name.clone(), val, cr.location));
                            found = true;
                        }
                    }
                    if !found {
                        if let Some(r) = rel {
                            return Err(PgError::new(
                                code::UNDEFINED_TABLE,
                                format!("missing FROM-clause entry for table \"{r}\""),
                            )
                            .at(loc(cr.location)));
                        }
                        if s.from_clause.is_empty() {
                            return Err(PgError::syntax(
                                "SELECT * with no tables specified is not valid",
                            )
                            .at(loc(cr.location)));
                        }
                    }
                    continue;
                }
            }
            let name = if !rt.name.is_empty() {
                rt.name.clone()
            } else {
                column_name_of(val)
            };
            targets.push((name, val, rt.location));
        }
        let star_map: HashMap<usize, usize> = star_cols
            .into_iter()
            .filter_map(|(t, c)| c.map(|c| (t, c)))
            .collect();
        Ok(Targets {
            list: targets,
            star: star_map,
            srf: HashMap::new(),
        })
    }

    /// Set-returning functions in the select list become a ProjectSet below the projection;
    /// `targets.srf` records the column of each one's value.
    fn plan_target_srfs(
        &mut self,
        targets: &mut Targets<'_>,
        mut plan: Plan,
        mut scope: Scope,
    ) -> PgResult<(Plan, Scope)> {
        let Targets {
            list: targets,
            star: star_map,
            srf: srf_targets,
        } = targets;
        let mut srfs = Vec::new();
        for (i, (_, node, _)) in targets.iter().enumerate() {
            if star_map.contains_key(&i) {
                continue;
            }
            if let Some(N::FuncCall(fc)) = &node.node {
                if let Some(call) = self.bind_srf(fc, &scope)? {
                    srf_targets.insert(i, (scope.cols.len() + srfs.len(), call.out));
                    srfs.push(call);
                }
            }
        }
        if !srfs.is_empty() {
            let mut columns = plan.columns.clone();
            for (k, c) in srfs.iter().enumerate() {
                columns.push(Column {
                    name: format!("?srf{k}?"),
                    ty: c.out,
                    typmod: -1,
                    origin: None,
                });
                scope.cols.push(ScopeCol {
                    rel: "?srf?".into(),
                    name: format!("?srf{k}?"),
                    ty: c.out,
                    typmod: -1,
                    origin: None,
                    hidden: false,
                    qualified_only: false,
                });
            }
            plan = Plan {
                node: Node::ProjectSet {
                    input: Box::new(plan),
                    srfs,
                },
                columns,
            };
        }
        Ok((plan, scope))
    }

    /// GROUP BY (grouping sets included): the aggregation context that a grouped query's
    /// target list, HAVING and ORDER BY are bound in.
    fn group_by_context(
        &mut self,
        s: &protobuf::SelectStmt,
        targets: &[(String, &protobuf::Node, i32)],
        scope: &Scope,
        plan: &Plan,
    ) -> PgResult<AggCtx> {
        let mut group = Vec::new();
        let mut group_types = Vec::new();
        let expanded = grouping_sets::expand(&s.group_clause)?;
        let leaves: Vec<&protobuf::Node> = match &expanded {
            Some(x) => x.leaves.clone(),
            None => s.group_clause.iter().collect(),
        };
        // Each leaf's grouping key (one key per distinct expression with grouping sets).
        let mut leaf_pos = Vec::with_capacity(leaves.len());
        for g in leaves {
            let Some(gn) = g.node.as_ref() else { continue };
            // GROUP BY 1 / GROUP BY alias refer to the target list.
            let resolved: &protobuf::Node = match gn {
                N::AConst(c) => match &c.val {
                    Some(protobuf::a_const::Val::Ival(i)) => {
                        let i = i.ival as usize;
                        if i < 1 || i > targets.len() {
                            return Err(PgError::new(
                                code::INVALID_COLUMN_REFERENCE,
                                format!("GROUP BY position {i} is not in select list"),
                            )
                            .at(loc(c.location)));
                        }
                        targets[i - 1].1
                    }
                    _ => g,
                },
                N::ColumnRef(cr) if cr.fields.len() == 1 => {
                    let name = str_of(&cr.fields[0]).unwrap_or("");
                    if scope.cols.iter().any(|c| c.name == name) {
                        g
                    } else {
                        targets
                            .iter()
                            .find(|(n, _, _)| n == name)
                            .map(|(_, n, _)| *n)
                            .unwrap_or(g)
                    }
                }
                _ => g,
            };
            let rn = resolved.node.as_ref().expect("node");
            self.state.clause = Some("GROUP BY");
            let (e, t) = self.bind(rn, scope, None)?;
            self.state.clause = None;
            if expanded.is_some() {
                if let Some(p) = group.iter().position(|x| same_expr(x, &e)) {
                    leaf_pos.push(p);
                    continue;
                }
            }
            leaf_pos.push(group.len());
            group.push(e);
            group_types.push((t, -1));
        }
        let gsets = expanded.map(|x| {
            let sets: Vec<Vec<usize>> = x
                .sets
                .iter()
                .map(|s| s.iter().map(|l| leaf_pos[*l]).collect())
                .collect();
            // Several sets: the set number is one more grouping key.
            let set_pos = (sets.len() > 1).then_some(group.len());
            if set_pos.is_some() {
                group.push(Expr::Column(plan.columns.len()));
                group_types.push((Type::INT4, -1));
            }
            grouping_sets::Sets {
                sets,
                set_pos,
                set_col: plan.columns.len(),
            }
        });
        Ok(AggCtx {
            input: scope.clone(),
            group,
            group_types,
            aggs: Vec::new(),
            gsets,
        })
    }

    /// Binds the select list (against the input scope or the aggregation context): the
    /// projection's expressions and output columns.
    fn bind_targets(
        &mut self,
        targets: &Targets<'_>,
        scope: &Scope,
        agg_ctx: &mut Option<AggCtx>,
        keep_unknown: bool,
        report_row_types: bool,
    ) -> PgResult<(Vec<Expr>, Vec<Column>)> {
        let Targets {
            list: targets,
            star: star_map,
            srf: srf_targets,
        } = targets;
        let mut exprs = Vec::new();
        let mut columns = Vec::new();
        for (i, (name, node, _)) in targets.iter().enumerate() {
            let (e, t, typmod) = if let Some((ci, ty)) = srf_targets.get(&i) {
                if agg_ctx.is_some() {
                    return Err(PgError::feature_not_supported(
                        "set-returning functions together with aggregates are not supported yet",
                    ));
                }
                (Expr::Column(*ci), *ty, -1)
            } else if let Some(ci) = star_map.get(&i) {
                let c = &scope.cols[*ci];
                let e = match agg_ctx.as_mut() {
                    Some(ctx) => {
                        let col = Expr::Column(*ci);
                        match ctx.group.iter().position(|g| same_expr(g, &col)) {
                            Some(p) => Expr::Column(p),
                            None => {
                                return Err(PgError::new(
                                    code::GROUPING_ERROR,
                                    format!("column \"{}.{}\" must appear in the GROUP BY clause or be used in an aggregate function", c.rel, c.name),
                                ))
                            }
                        }
                    }
                    None => Expr::Column(*ci),
                };
                (e, c.ty, c.typmod)
            } else {
                let n = node.node.as_ref().expect("target");
                let (e, t) = self.bind(n, scope, agg_ctx.as_mut())?;
                let typmod = self.typmod_of_node(n);
                (e, t, typmod)
            };
            // `SELECT t FROM t`: the table's row type, as PostgreSQL reports it.
            let t = match (&e, &node.node) {
                (Expr::Row(_), Some(N::ColumnRef(cr))) if report_row_types && agg_ctx.is_none() => {
                    self.table_row_type(scope, &names_of(&cr.fields))
                        .unwrap_or(t)
                }
                _ => t,
            };
            // Unknown-typed targets resolve to text (a parameter in the target list too).
            if let Expr::Param(p) = &e {
                if self.params[*p] == Type::UNKNOWN {
                    self.params[*p] = Type::TEXT;
                }
            }
            let t = if t == Type::UNKNOWN && !keep_unknown {
                Type::TEXT
            } else {
                t
            };
            // A plain column reference reports where the column comes from (through grouping
            // too, as PostgreSQL does).
            let origin = match (&e, agg_ctx.as_ref()) {
                (Expr::Column(ci), None) => scope.cols.get(*ci).and_then(|c| c.origin),
                (Expr::Outer(depth, ci), _) => depth
                    .checked_sub(1)
                    .and_then(|d| self.outer.iter().rev().nth(d))
                    .and_then(|sc| sc.cols.get(*ci))
                    .and_then(|c| c.origin),
                (Expr::Column(p), Some(ctx)) => match ctx.group.get(*p) {
                    Some(Expr::Column(ci)) => ctx.input.cols.get(*ci).and_then(|c| c.origin),
                    _ => None,
                },
                _ => None,
            };
            // A column reference has its column's typmod (char(5) is 9 in RowDescription).
            let column_ref = matches!(node.node, Some(N::ColumnRef(_)));
            let typmod = if typmod >= 0 || !column_ref {
                typmod
            } else {
                let col = match (&e, agg_ctx.as_ref()) {
                    (Expr::Column(ci), None) => scope.cols.get(*ci),
                    (Expr::Outer(depth, ci), _) => depth
                        .checked_sub(1)
                        .and_then(|d| self.outer.iter().rev().nth(d))
                        .and_then(|sc| sc.cols.get(*ci)),
                    (Expr::Column(p), Some(ctx)) => match ctx.group.get(*p) {
                        Some(Expr::Column(ci)) => ctx.input.cols.get(*ci),
                        _ => None,
                    },
                    _ => None,
                };
                col.filter(|c| c.ty == t).map_or(-1, |c| c.typmod)
            };
            exprs.push(e);
            columns.push(Column {
                name: name.clone(),
                ty: t,
                typmod,
                origin,
            });
        }
        if keep_unknown {
            self.state.target_locs = targets
                .iter()
                .map(|(_, n, l)| match n.node.as_ref().map(node_location) {
                    Some(x) if x >= 0 => x,
                    _ => *l,
                })
                .collect();
        }
        Ok((exprs, columns))
    }

    /// HAVING, over the groups (window calls are not allowed in it).
    fn bind_having(
        &mut self,
        s: &protobuf::SelectStmt,
        scope: &Scope,
        agg_ctx: &mut Option<AggCtx>,
    ) -> PgResult<Option<Expr>> {
        let mut having = None;
        if let Some(h) = s.having_clause.as_ref().and_then(|n| n.node.as_ref()) {
            let win = self.state.win.take();
            self.state.clause = Some("HAVING");
            let r = self.bind(h, scope, agg_ctx.as_mut());
            self.state.clause = None;
            self.state.win = win;
            let (e, t) = r?;
            having = Some(self.coerce_bool(e, t, "HAVING", h)?);
        }
        Ok(having)
    }

    /// ORDER BY: output column names/positions first, then expressions over the input, which
    /// join the projection as hidden columns.
    fn bind_order_by(
        &mut self,
        s: &protobuf::SelectStmt,
        scope: &Scope,
        agg_ctx: &mut Option<AggCtx>,
        exprs: &mut Vec<Expr>,
        columns: &mut Vec<Column>,
        visible: usize,
    ) -> PgResult<Vec<SortKey>> {
        let mut sort_keys = Vec::new();
        for sb in &s.sort_clause {
            let Some(N::SortBy(sb)) = &sb.node else {
                continue;
            };
            let Some(n) = sb.node.as_ref().and_then(|n| n.node.as_ref()) else {
                continue;
            };
            let idx = match n {
                N::AConst(c) => match &c.val {
                    Some(protobuf::a_const::Val::Ival(i)) => {
                        let i = i.ival;
                        if i < 1 || i as usize > visible {
                            return Err(PgError::new(
                                code::INVALID_COLUMN_REFERENCE,
                                format!("ORDER BY position {i} is not in select list"),
                            )
                            .at(loc(c.location)));
                        }
                        Some(i as usize - 1)
                    }
                    _ => None,
                },
                N::ColumnRef(cr) if cr.fields.len() == 1 => {
                    let name = str_of(&cr.fields[0]).unwrap_or("");
                    let matches: Vec<usize> = columns[..visible]
                        .iter()
                        .enumerate()
                        .filter(|(_, c)| c.name == name)
                        .map(|(i, _)| i)
                        .collect();
                    if matches.len() > 1
                        && !matches
                            .iter()
                            .all(|&m| same_expr(&exprs[m], &exprs[matches[0]]))
                    {
                        return Err(PgError::new(
                            code::AMBIGUOUS_COLUMN,
                            format!("ORDER BY \"{name}\" is ambiguous"),
                        )
                        .at(loc(cr.location)));
                    }
                    matches.first().copied()
                }
                _ => None,
            };
            let idx = match idx {
                Some(i) => i,
                None => {
                    let (e, t) = self.bind(n, scope, agg_ctx.as_mut())?;
                    match exprs.iter().position(|x| same_expr(x, &e)) {
                        Some(p) => p,
                        None => {
                            if !s.distinct_clause.is_empty() {
                                return Err(PgError::new(
                                    code::INVALID_COLUMN_REFERENCE,
                                    "for SELECT DISTINCT, ORDER BY expressions must appear in select list",
                                )
                                .at(loc(sb.location)));
                            }
                            exprs.push(e);
                            columns.push(Column {
                                name: "?sort?".into(),
                                ty: t,
                                typmod: -1,
                                origin: None,
                            });
                            exprs.len() - 1
                        }
                    }
                }
            };
            sort_keys.push(sort_key(Expr::Column(idx), sb));
        }
        Ok(sort_keys)
    }

    /// DISTINCT ON expressions: output columns, or hidden columns added to the projection.
    fn bind_distinct_on(
        &mut self,
        s: &protobuf::SelectStmt,
        scope: &Scope,
        agg_ctx: &mut Option<AggCtx>,
        exprs: &mut Vec<Expr>,
        columns: &mut Vec<Column>,
        visible: usize,
    ) -> PgResult<Option<Vec<Expr>>> {
        let mut distinct_on = None;
        if !s.distinct_clause.is_empty() && s.distinct_clause.iter().any(|d| d.node.is_some()) {
            let mut keys = Vec::new();
            for d in &s.distinct_clause {
                let Some(n) = d.node.as_ref() else { continue };
                let idx = match n {
                    N::AConst(c) => match &c.val {
                        Some(protobuf::a_const::Val::Ival(i)) => Some(i.ival as usize - 1),
                        _ => None,
                    },
                    N::ColumnRef(cr) if cr.fields.len() == 1 => {
                        let name = str_of(&cr.fields[0]).unwrap_or("");
                        columns[..visible].iter().position(|c| c.name == name)
                    }
                    _ => None,
                };
                let idx = match idx {
                    Some(i) => i,
                    None => {
                        let (e, t) = self.bind(n, scope, agg_ctx.as_mut())?;
                        match exprs.iter().position(|x| same_expr(x, &e)) {
                            Some(p) => p,
                            None => {
                                exprs.push(e);
                                columns.push(Column {
                                    name: "?distinct?".into(),
                                    ty: t,
                                    typmod: -1,
                                    origin: None,
                                });
                                exprs.len() - 1
                            }
                        }
                    }
                };
                keys.push(Expr::Column(idx));
            }
            distinct_on = Some(keys);
        }
        Ok(distinct_on)
    }

    /// Window functions run over the (grouped) rows, before DISTINCT, ORDER BY and LIMIT: the
    /// Window node for the calls bound with the select list and ORDER BY, whose references
    /// (`WIN_BASE + k`) in `exprs` become its columns. Also whether there were any.
    fn plan_windows(&mut self, mut plan: Plan, exprs: &mut [Expr]) -> (Plan, bool) {
        let win = self.state.win.take().unwrap_or_default();
        let has_windows = !win.calls.is_empty();
        if !win.calls.is_empty() {
            let base = plan.columns.len();
            let renumber = &mut |e: &mut Expr| {
                if let Expr::Column(i) = e {
                    if *i >= WIN_BASE {
                        *i = *i - WIN_BASE + base;
                    }
                }
            };
            for e in exprs.iter_mut() {
                e.walk_mut(renumber);
            }
            let mut wcols = plan.columns.clone();
            for (k, t) in win.types.iter().enumerate() {
                wcols.push(Column {
                    name: format!("?window{k}?"),
                    ty: *t,
                    typmod: -1,
                    origin: None,
                });
            }
            plan = Plan {
                node: Node::Window {
                    input: Box::new(plan),
                    calls: win.calls,
                },
                columns: wcols,
            };
        }
        (plan, has_windows)
    }

    /// FOR UPDATE: the FROM row rides along, hidden, for LockRows's re-check; the locked
    /// tables are opened in ROW SHARE mode and need UPDATE privilege.
    fn finish_lock(
        &mut self,
        pending: lock_rows::Pending,
        has_windows: bool,
        recheck: Option<Expr>,
        exprs: &mut Vec<Expr>,
        columns: &mut Vec<Column>,
        from_columns: &[Column],
    ) -> PgResult<LockPlan> {
        pending.check(&lock_rows::Shape {
            windows: has_windows,
            ..Default::default()
        })?;
        let (targets, on, late) = pending.finish()?;
        if let Some(e) = late {
            self.fold(Err(e))?;
        }
        let from = exprs.len();
        let kept = exprs.clone();
        exprs.extend((0..from_columns.len()).map(Expr::Column));
        columns.extend(from_columns.iter().cloned());
        let mut conds: Vec<Expr> = recheck.into_iter().chain(on).collect();
        let recheck = match conds.len() {
            0 => None,
            1 => conds.pop(),
            _ => Some(Expr::And(conds)),
        };
        if let Some(cx) = &self.tables {
            // A locked table is opened in ROW SHARE mode instead of ACCESS SHARE.
            use crate::txn::lock::LockMode as M;
            for t in &targets {
                cx.locks
                    .borrow_mut()
                    .retain(|l| *l != (t.rel.oid, M::AccessShare));
                cx.note_lock(t.rel.oid, M::RowShare);
                // PostgreSQL 15's ACL_SELECT_FOR_UPDATE is UPDATE.
                cx.require(
                    &t.rel,
                    crate::catalog::acl::SELECT | crate::catalog::acl::UPDATE,
                );
            }
        }
        Ok((targets, from, kept, recheck))
    }

    fn typmod_of_node(&self, n: &N) -> i32 {
        match n {
            N::TypeCast(tc) => {
                if let Some(tn) = &tc.type_name {
                    if let Ok((_, m)) = self.resolve_type_name(tn) {
                        return m;
                    }
                }
                -1
            }
            // An array of elements that share a typmod has it too.
            N::AArrayExpr(a) => {
                let mods: Vec<i32> = a
                    .elements
                    .iter()
                    .map(|e| e.node.as_ref().map_or(-1, |n| self.typmod_of_node(n)))
                    .collect();
                match mods.first() {
                    Some(&m) if mods.iter().all(|x| *x == m) => m,
                    _ => -1,
                }
            }
            // CURRENT_TIME(p), CURRENT_TIMESTAMP(p), LOCALTIME(p), LOCALTIMESTAMP(p).
            N::SqlvalueFunction(f) if f.typmod >= 0 => f.typmod,
            _ => -1,
        }
    }

    /// Plans one FROM item. `left` is the scope of the items before it, which a LATERAL
    /// subquery or a function may refer to; doing so sets `self.state.lateral`.
    fn plan_from_item(&mut self, n: &N, left: Option<&Scope>) -> PgResult<(Plan, Scope)> {
        crate::stack::check()?;
        match n {
            N::RangeVar(rv) => self.plan_range_var(rv),
            N::RangeSubselect(rs) => self.plan_range_subselect(rs, left),
            N::RangeFunction(rf) => {
                if let (Some(l), Some(a)) = (self.state.lock.as_mut(), rf.alias.as_ref()) {
                    l.other(&a.aliasname, "a function");
                }
                self.plan_range_function(rf, left)
            }
            N::JoinExpr(j) => self.plan_join_expr(j, left),
            other => Err(PgError::feature_not_supported(format!(
                "FROM item not supported: {}",
                node_name(other)
            ))),
        }
    }

    /// A named FROM item: a WITH query, a table or view, or a virtual table.
    fn plan_range_var(&mut self, rv: &protobuf::RangeVar) -> PgResult<(Plan, Scope)> {
        let alias = rv.alias.as_ref();
        let relname = alias
            .map(|a| a.aliasname.clone())
            .unwrap_or_else(|| rv.relname.clone());
        // CTE?
        if rv.schemaname.is_empty() {
            if let Some((i, (_, p))) = self
                .ctes
                .iter()
                .enumerate()
                .rev()
                .find(|(_, (name, _))| *name == rv.relname)
            {
                if let Node::WorkTable(w) = &p.node {
                    // The executor runs an expression's subquery on its own, where the
                    // work table of the run it is part of is out of reach; PostgreSQL
                    // rejects the reference too.
                    let sublinks = self.state.sublinks;
                    let wt = self.state.worktables.iter_mut().find(|t| t.0 == w.id());
                    let misplaced = match wt {
                        Some(t) if t.1 < sublinks => Some("within a subquery"),
                        Some(t) if t.2 > 0 => Some("more than once"),
                        Some(t) => {
                            t.2 += 1;
                            None
                        }
                        None => None,
                    };
                    if let Some(how) = misplaced {
                        return Err(PgError::new(
                            code::INVALID_RECURSION,
                            format!(
                                "recursive reference to query \"{}\" must not appear {how}",
                                rv.relname
                            ),
                        )
                        .at(loc(rv.location)));
                    }
                    self.state.worktable_refs += 1;
                }
                with_modify::check_readable(p, rv)?;
                if let Some(l) = self.state.lock.as_mut() {
                    l.other(&relname, "a WITH query");
                }
                let plan = Plan {
                    columns: p.columns.clone(),
                    node: Node::Cte(i, p.clone()),
                };
                return self.scope_for(plan, &relname, alias);
            }
        }
        let Some(vt) = virtual_table(&rv.schemaname, &rv.relname) else {
            let rowid = self.state.lock.as_mut().is_some_and(|l| l.table(&relname));
            if let Some(plan) = self.plan_table_ref(rv, rowid)? {
                return self.scope_for(plan, &relname, alias);
            }
            return Err(modify::undefined_table(rv));
        };
        if let Some(l) = self.state.lock.as_mut() {
            l.applying(&relname); // PostgreSQL would lock catalog rows: nothing to lock here
        }
        if let (Some(t), Some((oid, kind, name))) = (self.tables.as_ref(), guarded_catalog(vt)) {
            // Checked with the statement's other privileges, before it runs.
            t.used.set(true);
            t.perms
                .require(privs::Target::Catalog(oid, kind, name), t.check_as, 2);
        }
        let plan = Plan {
            columns: virtual_columns(vt),
            node: Node::Virtual(vt),
        };
        self.scope_for(plan, &relname, alias)
    }

    /// A subquery in FROM, LATERAL or not.
    fn plan_range_subselect(
        &mut self,
        rs: &protobuf::RangeSubselect,
        left: Option<&Scope>,
    ) -> PgResult<(Plan, Scope)> {
        let q = rs
            .subquery
            .as_ref()
            .and_then(|n| n.node.as_ref())
            .ok_or_else(|| PgError::syntax("empty subquery"))?;
        let plan = match left {
            Some(ls) if rs.lateral => {
                self.outer.push(ls.clone());
                let plan = self.plan_query(q);
                self.outer.pop();
                self.state.lateral = true;
                plan?
            }
            _ => self.plan_query(q)?,
        };
        let name = rs
            .alias
            .as_ref()
            .map(|a| a.aliasname.clone())
            .unwrap_or_default();
        if let Some(l) = self.state.lock.as_mut() {
            l.subquery(&name);
        }
        self.scope_for(plan, &name, rs.alias.as_ref())
    }

    /// An explicit JOIN: its ON condition, or the equalities of USING / NATURAL.
    fn plan_join_expr(
        &mut self,
        j: &protobuf::JoinExpr,
        left: Option<&Scope>,
    ) -> PgResult<(Plan, Scope)> {
        let l = j
            .larg
            .as_ref()
            .and_then(|n| n.node.as_ref())
            .ok_or_else(|| PgError::syntax("bad join"))?;
        let r = j
            .rarg
            .as_ref()
            .and_then(|n| n.node.as_ref())
            .ok_or_else(|| PgError::syntax("bad join"))?;
        let (lp, ls) = self.plan_from_item(l, left)?;
        let left_lateral = std::mem::take(&mut self.state.lateral);
        // The right side may refer to the left one (LATERAL).
        let (rp, rs) = self.plan_from_item(r, Some(&ls))?;
        let lateral = std::mem::replace(&mut self.state.lateral, left_lateral);
        if lateral && matches!(kind_of(j.jointype), JoinKind::Right | JoinKind::Full) {
            return Err(PgError::new(
                code::INVALID_COLUMN_REFERENCE,
                "invalid reference to FROM-clause entry for table",
            ));
        }
        let left_width = ls.cols.len();
        let mut scope = ls.clone();
        scope.cols.extend(rs.cols.clone());
        let kind = kind_of(j.jointype);
        let mut conds = Vec::new();
        let mut using: Vec<String> = names_of(&j.using_clause);
        if j.is_natural {
            using = ls
                .cols
                .iter()
                .filter(|c| !c.qualified_only && !c.hidden && !c.name.starts_with('\0'))
                .filter(|c| {
                    rs.cols
                        .iter()
                        .any(|r| r.name == c.name && !r.qualified_only && !r.hidden)
                })
                .map(|c| c.name.clone())
                .collect();
        }
        let mut pairs = Vec::new();
        for name in &using {
            let li = ls.cols.iter().position(|c| &c.name == name && !c.qualified_only).ok_or_else(|| {
                PgError::new(
                    code::UNDEFINED_COLUMN,
                    format!("column \"{name}\" specified in USING clause does not exist in left table"),
                )
            })?;
            let ri = rs.cols.iter().position(|c| &c.name == name && !c.qualified_only).ok_or_else(|| {
                PgError::new(
                    code::UNDEFINED_COLUMN,
                    format!("column \"{name}\" specified in USING clause does not exist in right table"),
                )
            })?;
            let (e, _) = self.make_binop(
                "=",
                (Expr::Column(li), ls.cols[li].ty),
                (Expr::Column(left_width + ri), rs.cols[ri].ty),
                -1,
            )?;
            conds.push(e);
            pairs.push((li, ri));
            // The join condition reads both sides' columns.
            if let Some(cx) = &self.tables {
                cx.mark(ls.cols[li].origin, privs::ColUse::Select);
                cx.mark(rs.cols[ri].origin, privs::ColUse::Select);
            }
        }
        if let Some(q) = j.quals.as_ref().and_then(|n| n.node.as_ref()) {
            let (e, t) = self.bind(q, &scope, None)?;
            conds.push(self.coerce_bool(e, t, "JOIN/ON", q)?);
        }
        let on = match conds.len() {
            0 => None,
            1 => conds.pop(),
            _ => Some(Expr::And(conds)),
        };
        let columns = lp.columns.iter().chain(&rp.columns).cloned().collect();
        let mut plan = Plan {
            node: Node::Join {
                left: Box::new(lp),
                right: Box::new(rp),
                kind,
                on,
                lateral,
            },
            columns,
        };
        if !using.is_empty() {
            (plan, scope) = self.merge_using(plan, scope, &pairs, left_width, j)?;
        }
        if let Some(a) = &j.alias {
            if let Some(l) = self.state.lock.as_mut() {
                l.other(&a.aliasname, "a join");
            }
            return self.scope_for(plan, &a.aliasname, Some(a));
        }
        Ok((plan, scope))
    }

    /// A JOIN with USING (or NATURAL): as in PostgreSQL, its columns are the merged USING
    /// columns first (the left one's value for INNER and LEFT joins, the right one's for RIGHT,
    /// COALESCE of both for FULL, in their common type), then the left side's other columns,
    /// then the right side's. Each side's own USING columns stay reachable qualified (`a.id`,
    /// `a.*`) unless the join has an alias, which hides the sides' names.
    fn merge_using(
        &mut self,
        join: Plan,
        scope: Scope,
        pairs: &[(usize, usize)],
        left_width: usize,
        j: &protobuf::JoinExpr,
    ) -> PgResult<(Plan, Scope)> {
        let kind = kind_of(j.jointype);
        let aliased = j.alias.is_some();
        let using_alias = j.join_using_alias.as_ref().map(|a| a.aliasname.as_str());
        let mut exprs = Vec::new();
        let mut columns = Vec::new();
        let mut cols = Vec::new();
        let mut paired = vec![false; scope.cols.len()];
        for &(li, ri) in pairs {
            let (l, r) = (&scope.cols[li], &scope.cols[left_width + ri]);
            paired[li] = true;
            paired[left_width + ri] = true;
            let ty = if l.ty == r.ty {
                l.ty
            } else {
                common_type(&[l.ty, r.ty], "JOIN/USING", -1)?
            };
            let typmod = if l.typmod == r.typmod { l.typmod } else { -1 };
            let (lt, rt, name) = (l.ty, r.ty, l.name.clone());
            let rel = using_alias.map_or(String::new(), str::to_string);
            let (lo, ro) = (l.origin, r.origin);
            let le = self.coerce(Expr::Column(li), lt, ty, -1, CoercionContext::Implicit, -1)?;
            let re = self.coerce(
                Expr::Column(left_width + ri),
                rt,
                ty,
                -1,
                CoercionContext::Implicit,
                -1,
            )?;
            let (e, origin) = match kind {
                JoinKind::Inner | JoinKind::Left => (le, lo.filter(|_| lt == ty)),
                JoinKind::Right => (re, ro.filter(|_| rt == ty)),
                JoinKind::Full => (Expr::Coalesce(vec![le, re]), None),
            };
            exprs.push(e);
            columns.push(Column {
                name: name.clone(),
                ty,
                typmod,
                origin,
            });
            cols.push(ScopeCol {
                rel,
                name,
                ty,
                typmod,
                origin,
                hidden: false,
                qualified_only: false,
            });
        }
        for (i, c) in scope.cols.into_iter().enumerate() {
            if paired[i] && aliased {
                continue;
            }
            exprs.push(Expr::Column(i));
            columns.push(join.columns[i].clone());
            cols.push(ScopeCol {
                qualified_only: c.qualified_only || paired[i],
                ..c
            });
        }
        let plan = Plan {
            node: Node::Project {
                input: Box::new(join),
                exprs,
            },
            columns,
        };
        Ok((plan, Scope { cols }))
    }

    fn plan_range_function(
        &mut self,
        rf: &protobuf::RangeFunction,
        left: Option<&Scope>,
    ) -> PgResult<(Plan, Scope)> {
        // A function in FROM may always refer to the items before it (LATERAL is implied).
        if let Some(ls) = left {
            self.outer.push(ls.clone());
            let r = self.plan_range_function(rf, None);
            self.outer.pop();
            let (plan, scope) = r?;
            let outer_ref = |e: &Expr| matches!(e, Expr::Outer(..) | Expr::Subquery(..));
            if let Node::Function { args, scalar, .. } = &plan.node {
                if args
                    .iter()
                    .chain(scalar)
                    .any(|e| e.any(&mut |x| outer_ref(x)))
                {
                    self.state.lateral = true;
                }
            }
            return Ok((plan, scope));
        }
        if rf.is_rowsfrom || rf.functions.len() != 1 {
            return Err(PgError::feature_not_supported(
                "ROWS FROM and LATERAL functions are not supported yet",
            ));
        }
        // functions: [List [FuncCall, coldeflist]]
        let Some(N::List(pair)) = &rf.functions[0].node else {
            return Err(PgError::internal("unexpected function list"));
        };
        let Some(N::FuncCall(fc)) = pair.items.first().and_then(|n| n.node.as_ref()) else {
            return Err(PgError::feature_not_supported(
                "only function calls are supported in FROM",
            ));
        };
        if let Some(planned) = self.plan_aclexplode(fc, rf)? {
            return Ok(planned);
        }
        let name = names_of(&fc.funcname).last().cloned().unwrap_or_default();
        let alias_name = rf
            .alias
            .as_ref()
            .map(|a| a.aliasname.clone())
            .unwrap_or_else(|| name.clone());
        let empty = Scope::default();
        let (node, ty) = match self.bind_srf(fc, &empty)? {
            Some(call) => (
                Node::Function {
                    srf: call.srf,
                    args: call.args,
                    arg_types: call.arg_types,
                    scalar: None,
                    ordinality: rf.ordinality,
                },
                call.out,
            ),
            None => {
                // A scalar function in FROM yields one row.
                let (e, t) = self.bind(&N::FuncCall(fc.clone()), &empty, None)?;
                (
                    Node::Function {
                        srf: Srf::Scalar,
                        args: Vec::new(),
                        arg_types: Vec::new(),
                        scalar: Some(e),
                        ordinality: rf.ordinality,
                    },
                    if t == Type::UNKNOWN { Type::TEXT } else { t },
                )
            }
        };
        // jsonb_array_elements and the like name their column by their OUT parameter.
        let col_name = match &node {
            Node::Function {
                srf: Srf::List(ListFn::ArrayElements { .. }),
                ..
            } if rf.alias.is_none() => "value".to_string(),
            _ => alias_name.clone(),
        };
        let mut columns = match &node {
            // A function of several OUT parameters: one column each (exec spreads the record).
            Node::Function {
                srf: Srf::List(ListFn::Each { jsonb, text }),
                ..
            } => {
                let value = match (jsonb, text) {
                    (_, true) => Type::TEXT,
                    (true, false) => Type::JSONB,
                    (false, false) => Type::JSON,
                };
                [("key", Type::TEXT), ("value", value)]
                    .into_iter()
                    .map(|(n, ty)| Column {
                        name: n.into(),
                        ty,
                        typmod: -1,
                        origin: None,
                    })
                    .collect()
            }
            _ => vec![Column {
                name: col_name,
                ty,
                typmod: -1,
                origin: None,
            }],
        };
        if rf.ordinality {
            columns.push(Column {
                name: "ordinality".into(),
                ty: Type::INT8,
                typmod: -1,
                origin: None,
            });
        }
        self.scope_for(Plan { node, columns }, &alias_name, rf.alias.as_ref())
    }

    /// Binds a call of a set-returning function; None if `fc` is not one.
    fn bind_srf(&mut self, fc: &protobuf::FuncCall, scope: &Scope) -> PgResult<Option<SrfCall>> {
        let name = names_of(&fc.funcname).last().cloned().unwrap_or_default();
        let n = fc.args.len();
        let known = matches!(
            (name.as_str(), n),
            ("generate_series", 2 | 3)
                | ("unnest", 1)
                | ("generate_subscripts", 2)
                | ("pg_listening_channels", 0)
                | ("pg_partition_ancestors", 1)
        ) || ListFn::of(&name, n).is_some();
        if !known {
            return Ok(None);
        }
        let mut args = Vec::new();
        let mut types = Vec::new();
        for a in &fc.args {
            let (e, t) = self.bind(a.node.as_ref().expect("arg"), scope, None)?;
            args.push(e);
            types.push(t);
        }
        let coerce_all =
            |p: &mut Self, args: Vec<Expr>, types: &[Type], to: &[Type]| -> PgResult<Vec<Expr>> {
                let mut out = Vec::new();
                for (i, e) in args.into_iter().enumerate() {
                    out.push(p.coerce(
                        e,
                        types[i],
                        to[i],
                        -1,
                        CoercionContext::Implicit,
                        fc.location,
                    )?);
                }
                Ok(out)
            };
        let call = match name.as_str() {
            _ if ListFn::of(&name, n).is_some() => {
                let f = ListFn::of(&name, n).expect("checked");
                let (want, out) = f.signature(n);
                // An argument of another type: no such function (only unknown converts).
                if types.iter().zip(&want).any(|(t, w)| {
                    *t != *w
                        && *t != Type::UNKNOWN
                        && !(*w == Type::TEXT
                            && matches!(*t, Type::VARCHAR | Type::BPCHAR | Type::NAME))
                }) {
                    return Err(undefined_function(&name, &types, fc.location));
                }
                SrfCall {
                    srf: Srf::List(f),
                    out,
                    args: coerce_all(self, args, &types, &want)?,
                    arg_types: want,
                }
            }
            "generate_series" => {
                let all_int = types
                    .iter()
                    .all(|t| matches!(*t, Type::INT2 | Type::INT4 | Type::INT8 | Type::UNKNOWN));
                let any_ts = types
                    .iter()
                    .any(|t| matches!(*t, Type::TIMESTAMP | Type::TIMESTAMPTZ | Type::DATE));
                if any_ts && n == 3 {
                    let ts = if types.contains(&Type::TIMESTAMP) {
                        Type::TIMESTAMP
                    } else {
                        Type::TIMESTAMPTZ
                    };
                    let want = [ts, ts, Type::INTERVAL];
                    SrfCall {
                        srf: Srf::GenerateSeriesTimestamp,
                        out: ts,
                        args: coerce_all(self, args, &types, &want)?,
                        arg_types: want.to_vec(),
                    }
                } else if all_int {
                    // Only smallint or unknown arguments fit the int4, int8 and numeric
                    // variants equally well.
                    if !types.iter().any(|t| matches!(*t, Type::INT4 | Type::INT8)) {
                        return Err(not_unique(&name, &types, fc.location));
                    }
                    let ty = if types.contains(&Type::INT8) {
                        Type::INT8
                    } else {
                        Type::INT4
                    };
                    let want = [ty; 3];
                    SrfCall {
                        srf: Srf::GenerateSeriesInt,
                        out: ty,
                        args: coerce_all(self, args, &types, &want)?,
                        arg_types: want[..n].to_vec(),
                    }
                } else if types
                    .iter()
                    .all(|t| t.is_numeric_like() || *t == Type::UNKNOWN)
                {
                    let want = [Type::NUMERIC; 3];
                    SrfCall {
                        srf: Srf::GenerateSeriesNumeric,
                        out: Type::NUMERIC,
                        args: coerce_all(self, args, &types, &want)?,
                        arg_types: want[..n].to_vec(),
                    }
                } else {
                    return Err(undefined_function(&name, &types, fc.location));
                }
            }
            "unnest" => {
                // int2vector and oidvector too, as PostgreSQL's unnest(anyarray) takes them.
                let elem = types[0]
                    .subscript_elem()
                    .ok_or_else(|| undefined_function(&name, &types, fc.location))?;
                SrfCall {
                    srf: Srf::Unnest,
                    out: elem,
                    args,
                    arg_types: types,
                }
            }
            "generate_subscripts" => {
                let want = [types[0], Type::INT4];
                SrfCall {
                    srf: Srf::GenerateSubscripts,
                    out: Type::INT4,
                    args: coerce_all(self, args, &types, &want)?,
                    arg_types: want.to_vec(),
                }
            }
            "pg_partition_ancestors" => SrfCall {
                srf: Srf::PartitionAncestors,
                out: Type::REGCLASS,
                args: coerce_all(self, args, &types, &[Type::REGCLASS])?,
                arg_types: vec![Type::REGCLASS],
            },
            _ => SrfCall {
                srf: Srf::ListeningChannels,
                out: Type::TEXT,
                args,
                arg_types: types,
            },
        };
        Ok(Some(call))
    }

    /// The result of folding a constant expression: the value, or None when folding failed and
    /// the error is deferred (see `defer_fold_errors`).
    fn fold(&mut self, r: PgResult<Value>) -> PgResult<Option<Value>> {
        match r {
            Ok(v) => Ok(Some(v)),
            Err(e) if self.defer_fold_errors => {
                if self.deferred.is_none() {
                    self.deferred = Some(e);
                }
                Ok(None)
            }
            Err(e) => Err(e),
        }
    }

    /// In a grouped query, an expression equal to a GROUP BY key is that key's column of the
    /// Aggregate node's output (Some); a bare column of the input that is not one is an error.
    fn bind_group_key(&mut self, n: &N, ctx: &mut AggCtx) -> PgResult<Option<(Expr, Type)>> {
        if !ctx.group.is_empty() && !matches!(n, N::AConst(_)) && !contains_aggregate_node(n) {
            let mut probe = Planner {
                params: self.params,
                fmt: self.fmt,
                outer: self.outer.clone(),
                ctes: self.ctes.clone(),
                referenced: Vec::new(),
                allow_params: self.allow_params,
                defer_fold_errors: true,
                deferred: None,
                state: PlanState::default(),
                tables: self.tables.clone(),
                expanding: self.expanding.clone(),
            };
            if let Ok((e, t)) = probe.bind(n, &ctx.input, None) {
                if let Some(p) = ctx.group.iter().position(|g| same_expr(g, &e)) {
                    return Ok(Some((Expr::Column(p), t)));
                }
            }
        }
        if let N::ColumnRef(cr) = n {
            let fields = names_of(&cr.fields);
            if let Ok((Expr::Column(_), _)) = self.lookup_column(&ctx.input, &fields, cr.location) {
                let rel = ctx
                    .input
                    .cols
                    .iter()
                    .find(|c| Some(&c.name) == fields.last())
                    .map(|c| c.rel.clone())
                    .unwrap_or_default();
                let name = if rel.is_empty() {
                    fields.join(".")
                } else {
                    format!("{rel}.{}", fields.last().cloned().unwrap_or_default())
                };
                return Err(PgError::new(
                    code::GROUPING_ERROR,
                    format!("column \"{name}\" must appear in the GROUP BY clause or be used in an aggregate function"),
                )
                .at(loc(cr.location)));
            }
        }
        Ok(None)
    }

    /// Coerces an aggregate's arguments: the first to `first` (if given), the others (the
    /// string_agg delimiter) to text.
    fn coerce_agg_args(
        &mut self,
        args: Vec<(Expr, Type)>,
        targets: &[Option<Type>],
        location: i32,
    ) -> PgResult<Vec<Expr>> {
        let mut bound = Vec::new();
        for (i, (e, t)) in args.into_iter().enumerate() {
            // Arguments past the typed ones: string_agg's delimiter.
            let target = targets.get(i).copied().unwrap_or(Some(Type::TEXT));
            let target = target.unwrap_or(t);
            let target = if target == Type::UNKNOWN {
                Type::TEXT
            } else {
                target
            };
            bound.push(self.coerce(e, t, target, -1, CoercionContext::Implicit, location)?);
        }
        Ok(bound)
    }

    /// Binds `f(...) OVER (...)`. Arguments, PARTITION BY and ORDER BY are expressions over the
    /// rows the Window node reads (the grouped rows in a grouped query).
    fn bind_window(
        &mut self,
        fc: &protobuf::FuncCall,
        over: &protobuf::WindowDef,
        name: &str,
        scope: &Scope,
        agg: Option<&mut AggCtx>,
    ) -> PgResult<(Expr, Type)> {
        let Some(mut win) = self.state.win.take() else {
            let msg = if self.state.in_window {
                "window function calls cannot be nested".to_string()
            } else {
                let clause = self.state.clause.unwrap_or("this context");
                format!("window functions are not allowed in {clause}")
            };
            return Err(PgError::new(WINDOWING_ERROR, msg).at(loc(fc.location)));
        };
        // Nested window calls are an error: none are allowed while this one's parts bind.
        self.state.in_window = true;
        let r = self.bind_window_parts(fc, over, name, scope, agg, &win);
        self.state.in_window = false;
        let (call, ty) = match r {
            Ok(x) => x,
            Err(e) => {
                self.state.win = Some(win);
                return Err(e);
            }
        };
        win.calls.push(call);
        win.types.push(ty);
        let idx = WIN_BASE + win.calls.len() - 1;
        self.state.win = Some(win);
        Ok((Expr::Column(idx), ty))
    }

    fn bind_window_parts(
        &mut self,
        fc: &protobuf::FuncCall,
        over: &protobuf::WindowDef,
        name: &str,
        scope: &Scope,
        mut agg: Option<&mut AggCtx>,
        win: &WinCtx,
    ) -> PgResult<(WindowCall, Type)> {
        // The window: OVER name, or OVER (name ...) adding to a named window.
        let find = |n: &str| -> PgResult<&protobuf::WindowDef> {
            win.named.iter().find(|w| w.name == n).ok_or_else(|| {
                PgError::new(
                    code::UNDEFINED_OBJECT,
                    format!("window \"{n}\" does not exist"),
                )
                .at(loc(over.location))
            })
        };
        let (base, own) = if !over.name.is_empty() {
            (Some(find(&over.name)?), None)
        } else if !over.refname.is_empty() {
            (Some(find(&over.refname)?), Some(over))
        } else {
            (None, Some(over))
        };
        let partition_nodes = match (base, own) {
            (Some(b), _) => &b.partition_clause,
            (None, Some(o)) => &o.partition_clause,
            _ => unreachable!("a window has a definition"),
        };
        let order_nodes = match (own, base) {
            (Some(o), _) if !o.order_clause.is_empty() => &o.order_clause,
            (_, Some(b)) => &b.order_clause,
            (Some(o), None) => &o.order_clause,
            (None, None) => unreachable!("a window has a definition"),
        };
        let frame_def = match (own, base) {
            (Some(o), _) if o.frame_options & FRAMEOPTION_NONDEFAULT != 0 => o,
            (_, Some(b)) => b,
            (Some(o), None) => o,
            (None, None) => unreachable!("a window has a definition"),
        };
        if fc.agg_distinct {
            return Err(PgError::feature_not_supported(
                "DISTINCT is not implemented for window functions",
            )
            .at(loc(fc.location)));
        }
        if !fc.agg_order.is_empty() {
            return Err(PgError::feature_not_supported(
                "aggregate ORDER BY is not implemented for window functions",
            )
            .at(loc(fc.location)));
        }
        let mut args = Vec::new();
        for a in &fc.args {
            let an = a.node.as_ref().expect("arg");
            args.push(self.bind(an, scope, agg.as_deref_mut())?);
        }
        let mut partition = Vec::new();
        for p in partition_nodes {
            let pn = p.node.as_ref().expect("partition");
            partition.push(self.bind(pn, scope, agg.as_deref_mut())?.0);
        }
        let mut order = Vec::new();
        for o in order_nodes {
            let Some(N::SortBy(sb)) = &o.node else {
                continue;
            };
            let on = sb
                .node
                .as_ref()
                .and_then(|n| n.node.as_ref())
                .expect("order");
            let (e, _) = self.bind(on, scope, agg.as_deref_mut())?;
            order.push(sort_key(e, sb));
        }
        let frame = self.bind_frame(frame_def)?;
        let types: Vec<Type> = args.iter().map(|(_, t)| *t).collect();
        let wf = match (name, args.len()) {
            ("row_number", 0) => Some((WinFunc::RowNumber, Type::INT8)),
            ("rank", 0) => Some((WinFunc::Rank, Type::INT8)),
            ("dense_rank", 0) => Some((WinFunc::DenseRank, Type::INT8)),
            ("percent_rank", 0) => Some((WinFunc::PercentRank, Type::FLOAT8)),
            ("cume_dist", 0) => Some((WinFunc::CumeDist, Type::FLOAT8)),
            ("ntile", 1) => Some((WinFunc::Ntile, Type::INT4)),
            ("lag", 1..=3) => Some((WinFunc::Lag, types[0])),
            ("lead", 1..=3) => Some((WinFunc::Lead, types[0])),
            ("first_value", 1) => Some((WinFunc::FirstValue, types[0])),
            ("last_value", 1) => Some((WinFunc::LastValue, types[0])),
            ("nth_value", 2) => Some((WinFunc::NthValue, types[0])),
            _ => None,
        };
        if let Some((f, ty)) = wf {
            let ty = if ty == Type::UNKNOWN { Type::TEXT } else { ty };
            // Offsets and counts are integers; lag/lead's default has the value's type.
            let mut bound = Vec::new();
            for (i, (e, t)) in args.into_iter().enumerate() {
                let target = match (f, i) {
                    (WinFunc::Ntile, _) | (WinFunc::NthValue, 1) => Type::INT4,
                    (WinFunc::Lag | WinFunc::Lead, 1) => Type::INT4,
                    _ => ty,
                };
                bound.push(self.coerce(
                    e,
                    t,
                    target,
                    -1,
                    CoercionContext::Implicit,
                    fc.location,
                )?);
            }
            let call = WindowCall {
                func: Ok(f),
                args: bound,
                partition,
                order,
                frame,
            };
            return Ok((call, ty));
        }
        let Some(af) = aggregate_func(name, fc.agg_star) else {
            if func::lookup(name).is_empty() && session_fn::lookup(name, types.len()).is_none() {
                return Err(undefined_function(name, &types, fc.location));
            }
            return Err(PgError::new(
                code::WRONG_OBJECT_TYPE,
                format!(
                    "OVER specified, but {name} is not a window function nor an aggregate function"
                ),
            )
            .at(loc(fc.location)));
        };
        let sig = agg_types(af, &types, &[], name, fc.location)?;
        let (af, result, targets, arg_type) = (sig.func, sig.result, sig.args, sig.arg_type);
        let bound = self.coerce_agg_args(args, &targets, fc.location)?;
        let filter = match fc.agg_filter.as_ref().and_then(|n| n.node.as_ref()) {
            Some(f) => {
                let (e, t) = self.bind(f, scope, agg)?;
                Some(self.coerce_bool(e, t, "FILTER", f)?)
            }
            None => None,
        };
        let call = WindowCall {
            func: Err(AggCall {
                func: af,
                args: bound,
                arg_type,
                result,
                distinct: false,
                filter,
                order: Vec::new(),
            }),
            args: Vec::new(),
            partition,
            order,
            frame,
        };
        Ok((call, result))
    }

    /// The frame of a window definition (PostgreSQL's frameOptions bits).
    fn bind_frame(&mut self, w: &protobuf::WindowDef) -> PgResult<Frame> {
        let o = w.frame_options;
        if o & FRAMEOPTION_GROUPS != 0 {
            return Err(PgError::feature_not_supported(
                "GROUPS window frames are not supported yet",
            ));
        }
        if o & (FRAMEOPTION_EXCLUDE_CURRENT_ROW
            | FRAMEOPTION_EXCLUDE_GROUP
            | FRAMEOPTION_EXCLUDE_TIES)
            != 0
        {
            return Err(PgError::feature_not_supported(
                "frame exclusion is not supported yet",
            ));
        }
        let rows = o & FRAMEOPTION_ROWS != 0;
        let offsets = FRAMEOPTION_START_OFFSET_PRECEDING
            | FRAMEOPTION_END_OFFSET_PRECEDING
            | FRAMEOPTION_START_OFFSET_FOLLOWING
            | FRAMEOPTION_END_OFFSET_FOLLOWING;
        if !rows && o & offsets != 0 {
            return Err(PgError::feature_not_supported(
                "RANGE frames with offsets are not supported yet",
            ));
        }
        let offset = |p: &mut Self, n: &Option<Box<protobuf::Node>>| -> PgResult<Expr> {
            let node = n
                .as_ref()
                .and_then(|n| n.node.as_ref())
                .ok_or_else(|| PgError::syntax("frame offset missing"))?;
            let saved = p.state.clause.replace("window frame");
            let r = p.bind(node, &Scope::default(), None);
            p.state.clause = saved;
            let (e, t) = r?;
            p.coerce(
                e,
                t,
                Type::INT8,
                -1,
                CoercionContext::Implicit,
                node_location(node),
            )
        };
        let start = if o & FRAMEOPTION_START_CURRENT_ROW != 0 {
            FrameBound::CurrentRow
        } else if o & FRAMEOPTION_START_OFFSET_PRECEDING != 0 {
            FrameBound::Preceding(offset(self, &w.start_offset)?)
        } else if o & FRAMEOPTION_START_OFFSET_FOLLOWING != 0 {
            FrameBound::Following(offset(self, &w.start_offset)?)
        } else {
            FrameBound::UnboundedPreceding
        };
        let end = if o & FRAMEOPTION_END_UNBOUNDED_FOLLOWING != 0 {
            FrameBound::UnboundedFollowing
        } else if o & FRAMEOPTION_END_OFFSET_PRECEDING != 0 {
            FrameBound::Preceding(offset(self, &w.end_offset)?)
        } else if o & FRAMEOPTION_END_OFFSET_FOLLOWING != 0 {
            FrameBound::Following(offset(self, &w.end_offset)?)
        } else {
            FrameBound::CurrentRow
        };
        Ok(Frame { rows, start, end })
    }

    fn bind_aggregate(
        &mut self,
        af: AggFunc,
        fc: &protobuf::FuncCall,
        name: &str,
        agg: Option<&mut AggCtx>,
    ) -> PgResult<(Expr, Type)> {
        let Some(ctx) = agg else {
            let clause = self.state.clause.unwrap_or("this context");
            return Err(PgError::new(
                code::GROUPING_ERROR,
                format!("aggregate functions are not allowed in {clause}"),
            )
            .at(loc(fc.location)));
        };
        let input = ctx.input.clone();
        let mut args = Vec::new();
        for a in &fc.args {
            let an = a.node.as_ref().expect("arg");
            if contains_aggregate_node(an) {
                return Err(PgError::new(
                    code::GROUPING_ERROR,
                    "aggregate function calls cannot be nested",
                )
                .at(loc(node_location(an))));
            }
            args.push(self.bind(an, &input, None)?);
        }
        // json_agg of a whole row names its fields.
        let mut af = af;
        if let (AggFunc::JsonAgg(jb, _), [arg]) = (af, &fc.args[..]) {
            if let Some(row) = self.whole_row_arg(&input, arg)? {
                args[0] = (row.json(jb), if jb { Type::JSONB } else { Type::JSON });
                af = AggFunc::JsonAgg(jb, true);
            }
        }
        let mut order = Vec::new();
        let mut order_types = Vec::new();
        for o in &fc.agg_order {
            let Some(N::SortBy(sb)) = &o.node else {
                continue;
            };
            let on = sb
                .node
                .as_ref()
                .and_then(|n| n.node.as_ref())
                .expect("order");
            let (e, t) = self.bind(on, &input, None)?;
            order.push(sort_key(e, sb));
            order_types.push(t);
        }
        // Only an ordered-set aggregate's WITHIN GROUP keys are typed by the aggregate.
        let keys: &[Type] = if fc.agg_within_group {
            &order_types
        } else {
            &[]
        };
        let types: Vec<Type> = args.iter().map(|(_, t)| *t).collect();
        let sig = agg_types(af, &types, keys, name, fc.location)?;
        let (af, result, targets) = (sig.func, sig.result, sig.args);
        let (key_target, arg_type) = (sig.order, sig.arg_type);
        let bound = self.coerce_agg_args(args, &targets, fc.location)?;
        // PostgreSQL sorts a DISTINCT aggregate's input to find the duplicates, so without
        // ORDER BY the values still come in ascending order (string_agg(DISTINCT x, ',')).
        let order_matters = matches!(
            af,
            AggFunc::ArrayAgg
                | AggFunc::StringAgg
                | AggFunc::JsonAgg(..)
                | AggFunc::JsonObjectAgg(..)
        );
        if fc.agg_distinct && order.is_empty() && order_matters {
            if let Some(first) = bound.first() {
                order.push(SortKey {
                    expr: first.clone(),
                    desc: false,
                    nulls_first: false,
                });
            }
        }
        if let (Some(target), Some(k), Some(t)) = (key_target, order.first_mut(), keys.first()) {
            let e = std::mem::replace(&mut k.expr, Expr::Const(Value::Null));
            k.expr = self.coerce(e, *t, target, -1, CoercionContext::Implicit, fc.location)?;
        }
        let filter = match fc.agg_filter.as_ref().and_then(|n| n.node.as_ref()) {
            Some(f) => {
                let (e, t) = self.bind(f, &input, None)?;
                Some(self.coerce_bool(e, t, "FILTER", f)?)
            }
            None => None,
        };
        let call = AggCall {
            func: af,
            args: bound,
            arg_type,
            result,
            distinct: fc.agg_distinct,
            filter,
            order,
        };
        let idx = ctx.group.len() + ctx.aggs.len();
        ctx.aggs.push(call);
        Ok((Expr::Column(idx), result))
    }
}

/// The Aggregate node over the grouped query's input (grouping sets expanded), with HAVING
/// over it.
fn plan_aggregate(mut plan: Plan, ctx: AggCtx, having: Option<Expr>) -> Plan {
    let mut agg_columns: Vec<Column> = ctx
        .group_types
        .iter()
        .map(|(t, m)| Column {
            name: "?group?".into(),
            ty: *t,
            typmod: *m,
            origin: None,
        })
        .collect();
    agg_columns.extend(ctx.aggs.iter().map(|a| Column {
        name: "?agg?".into(),
        ty: a.result,
        typmod: -1,
        origin: None,
    }));
    let (input, group) = match &ctx.gsets {
        Some(gs) => gs.apply(plan, ctx.group),
        None => (plan, ctx.group),
    };
    let empty_sets = ctx
        .gsets
        .as_ref()
        .map_or_else(Vec::new, |gs| gs.empty_set_keys(group.len()));
    plan = Plan {
        node: Node::Aggregate {
            input: Box::new(input),
            group,
            aggs: ctx.aggs,
            empty_sets,
        },
        columns: agg_columns,
    };
    if let Some(pred) = having {
        plan = Plan {
            columns: plan.columns.clone(),
            node: Node::Filter {
                input: Box::new(plan),
                pred,
            },
        };
    }
    plan
}

/// The signature of aggregate `af` over arguments of `types` (and WITHIN GROUP keys of `keys`).
fn agg_types(
    af: AggFunc,
    types: &[Type],
    keys: &[Type],
    name: &str,
    location: i32,
) -> PgResult<aggregates::Signature> {
    if let Some(s) = aggregates::signature(af, types, keys, name, location)? {
        return Ok(s);
    }
    let arg_type = types.first().copied().unwrap_or(Type::INT8);
    let (result, target) = agg_signature(af, arg_type, name, location)?;
    Ok(aggregates::Signature {
        func: af,
        result,
        args: vec![target],
        order: None,
        arg_type: target.unwrap_or(arg_type),
    })
}

/// An aggregate's result type and the type its (first) argument is coerced to (None: kept),
/// for an argument of type `arg_type`.
fn agg_signature(
    af: AggFunc,
    arg_type: Type,
    name: &str,
    location: i32,
) -> PgResult<(Type, Option<Type>)> {
    let fc_location = location;
    let (result, arg_target) = match af {
        AggFunc::CountStar | AggFunc::Count => (Type::INT8, None),
        AggFunc::Sum => match arg_type {
            Type::INT2 | Type::INT4 => (Type::INT8, None),
            Type::INT8 | Type::NUMERIC => (Type::NUMERIC, None),
            Type::FLOAT4 => (Type::FLOAT4, None),
            Type::FLOAT8 => (Type::FLOAT8, None),
            Type::INTERVAL => (Type::INTERVAL, None),
            Type::UNKNOWN => return Err(not_unique(name, &[arg_type], fc_location)),
            t => return Err(undefined_function(name, &[t], fc_location)),
        },
        AggFunc::Avg => match arg_type {
            Type::INT2 | Type::INT4 | Type::INT8 | Type::NUMERIC => (Type::NUMERIC, None),
            Type::FLOAT4 | Type::FLOAT8 => (Type::FLOAT8, None),
            Type::INTERVAL => (Type::INTERVAL, None),
            Type::UNKNOWN => return Err(not_unique(name, &[arg_type], fc_location)),
            t => return Err(undefined_function(name, &[t], fc_location)),
        },
        AggFunc::Min | AggFunc::Max => {
            let t = if arg_type == Type::UNKNOWN {
                Type::TEXT
            } else {
                arg_type
            };
            if t == Type::BOOL || t == Type::RECORD {
                return Err(undefined_function(name, &[t], fc_location));
            }
            // There is no max(varchar): the text version applies.
            let t = if t == Type::VARCHAR { Type::TEXT } else { t };
            (t, Some(t))
        }
        AggFunc::BoolAnd | AggFunc::BoolOr => (Type::BOOL, Some(Type::BOOL)),
        AggFunc::ArrayAgg => {
            let t = if arg_type == Type::UNKNOWN {
                Type::TEXT
            } else {
                arg_type
            };
            (t.array().unwrap_or(Type::TEXT_ARRAY), Some(t))
        }
        AggFunc::StringAgg => (Type::TEXT, Some(Type::TEXT)),
        _ => return Err(undefined_function(name, &[arg_type], fc_location)),
    };
    Ok((result, arg_target))
}

/// The expression that computes output column `i` of a plan, looking through the nodes that
/// pass columns on unchanged.
pub(super) fn output_expr(p: &Plan, i: usize) -> Option<&Expr> {
    match &p.node {
        Node::Project { input, exprs } => match exprs.get(i)? {
            Expr::Column(j) => output_expr(input, *j),
            e => Some(e),
        },
        Node::Sort { input, .. } | Node::Limit { input, .. } | Node::Distinct { input, .. } => {
            output_expr(input, i)
        }
        Node::Filter { input, .. } | Node::LockRows { input, .. } => output_expr(input, i),
        _ => None,
    }
}

/// SQLSTATEs not among the shared error codes.
const WINDOWING_ERROR: &str = "42P20";

// PostgreSQL's frameOptions bits (nodes/parsenodes.h).
const FRAMEOPTION_NONDEFAULT: i32 = 0x1;

const FRAMEOPTION_ROWS: i32 = 0x4;

const FRAMEOPTION_GROUPS: i32 = 0x8;

const FRAMEOPTION_END_UNBOUNDED_FOLLOWING: i32 = 0x100;

const FRAMEOPTION_START_CURRENT_ROW: i32 = 0x200;

const FRAMEOPTION_START_OFFSET_PRECEDING: i32 = 0x800;

const FRAMEOPTION_END_OFFSET_PRECEDING: i32 = 0x1000;

const FRAMEOPTION_START_OFFSET_FOLLOWING: i32 = 0x2000;

const FRAMEOPTION_END_OFFSET_FOLLOWING: i32 = 0x4000;

const FRAMEOPTION_EXCLUDE_CURRENT_ROW: i32 = 0x8000;

const FRAMEOPTION_EXCLUDE_GROUP: i32 = 0x10000;

const FRAMEOPTION_EXCLUDE_TIES: i32 = 0x20000;

fn kind_of(jointype: i32) -> JoinKind {
    match jointype {
        x if x == protobuf::JoinType::JoinLeft as i32 => JoinKind::Left,
        x if x == protobuf::JoinType::JoinRight as i32 => JoinKind::Right,
        x if x == protobuf::JoinType::JoinFull as i32 => JoinKind::Full,
        _ => JoinKind::Inner,
    }
}

fn sort_key(expr: Expr, sb: &protobuf::SortBy) -> SortKey {
    let desc = sb.sortby_dir == protobuf::SortByDir::SortbyDesc as i32;
    let nulls_first = match sb.sortby_nulls {
        x if x == protobuf::SortByNulls::SortbyNullsFirst as i32 => true,
        x if x == protobuf::SortByNulls::SortbyNullsLast as i32 => false,
        // NULLs sort as larger than everything: last ascending, first descending.
        _ => desc,
    };
    SortKey {
        expr,
        desc,
        nulls_first,
    }
}

fn aggregate_func(name: &str, star: bool) -> Option<AggFunc> {
    Some(match name {
        "count" if star => AggFunc::CountStar,
        "count" => AggFunc::Count,
        "sum" => AggFunc::Sum,
        "avg" => AggFunc::Avg,
        "min" => AggFunc::Min,
        "max" => AggFunc::Max,
        "bool_and" | "every" => AggFunc::BoolAnd,
        "bool_or" => AggFunc::BoolOr,
        "array_agg" => AggFunc::ArrayAgg,
        "string_agg" => AggFunc::StringAgg,
        _ => return aggregates::aggregate_func(name),
    })
}

fn contains_aggregate(n: &protobuf::Node) -> bool {
    n.node.as_ref().is_some_and(contains_aggregate_node)
}

/// Whether an expression contains an aggregate call at this query level (not inside a
/// subquery).
fn contains_aggregate_node(n: &N) -> bool {
    let any = |v: &[protobuf::Node]| v.iter().any(contains_aggregate);
    let opt = |o: &Option<Box<protobuf::Node>>| o.as_ref().is_some_and(|b| contains_aggregate(b));
    match n {
        N::FuncCall(fc) => {
            let name = names_of(&fc.funcname).last().cloned().unwrap_or_default();
            (fc.over.is_none() && aggregate_func(&name, fc.agg_star).is_some()) || any(&fc.args)
        }
        N::ResTarget(rt) => opt(&rt.val),
        N::SortBy(sb) => opt(&sb.node),
        N::AExpr(a) => opt(&a.lexpr) || opt(&a.rexpr),
        N::BoolExpr(b) => any(&b.args),
        N::TypeCast(tc) => opt(&tc.arg),
        N::NullTest(t) => opt(&t.arg),
        N::BooleanTest(t) => opt(&t.arg),
        N::CaseExpr(c) => opt(&c.arg) || any(&c.args) || opt(&c.defresult),
        N::CaseWhen(w) => opt(&w.expr) || opt(&w.result),
        N::CoalesceExpr(c) => any(&c.args),
        N::MinMaxExpr(m) => any(&m.args),
        N::List(l) => any(&l.items),
        N::AArrayExpr(a) => any(&a.elements),
        N::RowExpr(r) => any(&r.args),
        N::AIndirection(i) => opt(&i.arg),
        N::CollateClause(c) => opt(&c.arg),
        _ => false,
    }
}
