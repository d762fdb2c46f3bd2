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
//!
//! This file holds the `Planner`, its state while it plans, and the entry points
//! (`plan_query`, `plan_select`). The work is split by concern, as PostgreSQL's analyzer is
//! (parse_clause.c, parse_expr.c, parse_func.c, ...); each file adds its part of
//! `impl Planner`:
//!
//! * `plan/nodes.rs`: the plan nodes and what they hold (the executor's input);
//! * `plan/select.rs`: the shape of a SELECT — set operations, VALUES, LIMIT, and the
//!   pipeline above for a simple SELECT;
//! * `plan/cte.rs`: WITH, and WITH RECURSIVE's work tables;
//! * `plan/from.rs`: FROM items — tables, subqueries, functions, joins;
//! * `plan/scope.rs`: the columns in scope and the lookup of column references;
//! * `plan/target.rs`: the select list — `*` expansion, set-returning functions, output
//!   columns;
//! * `plan/clause.rs`: WHERE, HAVING, ORDER BY, DISTINCT ON;
//! * `plan/agg.rs`: GROUP BY and aggregate calls; `plan/aggregates.rs`: the signatures of the
//!   aggregates beyond the basic ones; `plan/grouping_sets.rs`: ROLLUP, CUBE, GROUPING SETS;
//! * `plan/window.rs`: window calls and the Window node;
//! * `plan/expr.rs`: expression binding;
//! * `plan/operator.rs`: operator resolution and operator expressions;
//! * `plan/func_call.rs`: function calls and their resolution by overload rules;
//! * `plan/coerce.rs`: coercion, common types, type names;
//! * `plan/names.rs`: output column names, and node positions and names for errors;
//! * `plan/virtual_table.rs`: the catalogs and views computed from the instance's state;
//! * and the rest, by feature: DML (`modify`, `with_modify`), join methods (`join`), index
//!   paths (`index_path`), FOR UPDATE (`lock_rows`), EXPLAIN (`explain`), SEARCH / CYCLE
//!   (`search_cycle`), whole-row references (`whole_row`), `regclass` / `regrole` literals
//!   (`regclass`, `regrole`), table functions (`table_expr`, `acl_fn`).

pub mod modify;
pub mod rules;
mod with_modify;
pub use with_modify::has_modifying_ctes;

use std::collections::HashMap;

use pg_query::protobuf::{self, node::Node as N};

use crate::error::{code, PgError, PgResult};
use crate::sql::parser::{names_of, str_of};
use crate::sql::types::cast::CoercionContext;
use crate::sql::types::{FormatCtx, Type, Value};

mod acl_fn;
mod agg;
mod aggregates;
mod call;
mod clause;
mod coerce;
mod composite;
pub mod cost;
mod cte;
mod domain;
mod expr;
mod from;
mod func_call;
mod grouping_sets;
pub(crate) mod names;
mod nodes;
pub mod partial;
pub(crate) mod partitions;
pub use partial::conjunct_texts;
mod operator;
mod range;
mod scope;
mod select;
mod subscript;
mod target;
mod virtual_table;
mod whole_row;
mod window;
pub use aggregates::{Regr, Spread};
pub mod explain;
pub mod gin_path;
pub mod index_path;
pub mod join;
pub mod lock_rows;
pub mod polymorphic;
mod regclass;
mod regrole;
mod search_cycle;
pub mod sequence;
pub mod table_expr;
pub mod trigger;
mod user_agg;
mod user_func;
mod user_srf;
pub use user_func::{type_list, FuncParams};
pub use user_srf::call_returns_row;

pub use coerce::common_type;

/// Whether a query's result has rows (a RowDescription): INSERT / UPDATE / DELETE only with
/// RETURNING.
pub fn returns_rows(p: &Plan) -> bool {
    match &p.node {
        Node::Modify(m) => m.returning.is_some(),
        Node::Rules(_) => !p.columns.is_empty(),
        _ => true,
    }
}
pub use names::{column_name_of, node_location, node_name};
pub use nodes::{
    AggCall, AggFunc, Column, DomainCoercion, Expr, Feed, Frame, FrameBound, JoinKind, ListFn,
    LockWait, Node, Plan, ScanRel, SetOpKind, SortKey, SqlBody, Srf, SrfCall, SubKind, SubRef,
    SubqueryKind, SysColumn, SysKind, UserAgg, UserBody, UserCall, WinFunc, WindowCall, WorkTable,
};
pub use virtual_table::{virtual_columns, virtual_relation, VirtualTable};

// Used here, and reached as `super::...` from the files above.
use agg::AggCtx;
use expr::same_expr;
use func_call::{not_unique, undefined_function};
use operator::ops_eq_any;
use scope::{Scope, ScopeCol};
use select::output_expr;
use window::WinCtx;

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
    /// Whether an unpopulated materialized view may be named: where the query will not run
    /// (EXPLAIN without ANALYZE, CREATE ... WITH NO DATA, a view's definition), as PostgreSQL
    /// checks scannability only when its executor starts for real.
    pub scan_unpopulated: bool,
    /// Whether the checks PostgreSQL's executor start makes (a materialized view scanned
    /// unpopulated, or changed) are kept in `deferred` rather than raised: set for a view's
    /// query planned inside a statement that defers its folding errors.
    pub defer_exec_checks: bool,
    /// CALL: the location of the procedure's call (`user_func.rs` allows a procedure there and
    /// only there).
    pub call_at: Option<i32>,
    pub deferred: Option<PgError>,
    /// What the query being planned has seen so far (see `PlanState`).
    state: PlanState,
    /// The catalog, where table names are resolved (None: no tables, as in PREPARE's types).
    pub tables: Option<modify::TableCx<'a>>,
    /// The views whose queries enclose this one, outermost first (a view met again is a
    /// recursive definition).
    expanding: Vec<u32>,
    /// The parameters of the SQL function whose body is being planned (`user_func.rs`).
    func_params: Option<std::sync::Arc<user_func::FuncParams>>,
    /// The (relation, event) pairs whose rules are being applied (`rules.rs`).
    rule_events: Vec<(u32, crate::catalog::rules::Event)>,
    /// The original statement of a rewrite, planned without its relation's rules again.
    rules_skip: Option<(u32, crate::catalog::rules::Event)>,
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
    /// The typmod of each field selection's field (`(v).c` of a numeric(6,2) field), keyed by
    /// the address of its parse node, for RowDescription (`plan/composite.rs`).
    field_typmods: HashMap<usize, i32>,
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
    /// The statement names a system column (ctid, xmin, ...): its table scans carry their
    /// rows' slots, which those columns are read from (`scope.rs`). Decided once per
    /// statement from its parse tree, so that queries without one pay nothing.
    sys_cols: bool,
    /// The tables whose scans carry slots for system columns, by OID (`scope.rs` finds the
    /// heap to read there).
    sys_rels: Vec<std::sync::Arc<crate::sql::engine::Rel>>,
    /// The statement names `tableoid`: a partitioned table's scan then carries each row's
    /// leaf (`partitions::LEAF`), which its tableoid is.
    tableoid: bool,
    /// The event (tgtype bit) of the INSERT / UPDATE / DELETE whose target is being planned:
    /// a view with an INSTEAD OF trigger for it is then a target (`plan/modify.rs`).
    target_event: i16,
}

pub fn loc(l: i32) -> Option<u32> {
    if l >= 0 {
        Some(l as u32 + 1)
    } else {
        None
    }
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
            scan_unpopulated: false,
            defer_exec_checks: false,
            call_at: None,
            deferred: None,
            state: PlanState::default(),
            tables: None,
            expanding: Vec::new(),
            func_params: None,
            rule_events: Vec::new(),
            rules_skip: None,
        }
    }

    /// The session's planner method switches (the defaults without a catalog).
    fn methods(&self) -> cost::Methods {
        self.tables.as_ref().map(|t| t.methods).unwrap_or_default()
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
        if top {
            self.note_system_columns(s);
        }
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

    /// Notes whether statement `n` names a system column (`PlanState::sys_cols`).
    pub(super) fn note_system_columns(&mut self, stmt: &impl prost::Message) {
        if !self.state.sys_cols {
            self.state.sys_cols = scope::mentions_system_column(stmt);
        }
        if !self.state.tableoid {
            self.state.tableoid = scope::mentions_tableoid(stmt);
        }
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
}
