//! The plan: its nodes (`Node`) and output columns (`Column`), and what the nodes hold —
//! bound calls of set-returning functions, aggregates and window functions, sort keys, scanned
//! tables, join and set-operation kinds, a recursive CTE's work table, COPY FROM's row feed.
//!
//! These are the planner's output and the executor's input (exec/ matches on `Node`); nothing
//! here binds or resolves anything, so the types sit apart from the code that makes them.

use super::virtual_table::VirtualTable;
use super::{aggregates, explain, index_path, join, lock_rows, modify};
use crate::sql::types::{Type, Value};

mod expr;
pub use expr::{
    DomainCoercion, Expr, SqlBody, SubKind, SubRef, SubqueryKind, SysColumn, SysKind, UserBody,
    UserCall,
};

/// One output column of a plan.
#[derive(Debug, Clone)]
pub struct Column {
    pub name: String,
    pub ty: Type,
    pub typmod: i32,
    /// The catalog relation and attribute number a plain column reference comes from, for
    /// RowDescription (PostgreSQL reports them, through subqueries and CTEs too).
    pub origin: Option<(u32, i16)>,
}

#[derive(Debug, Clone)]
pub struct Plan {
    pub node: Node,
    pub columns: Vec<Column>,
}

impl Plan {
    /// For a join (nested loop or hash), the side output column `c` comes from and its
    /// position there (a join's row is its left side's columns, then its right side's).
    pub fn join_column(&self, c: usize) -> Option<(&Plan, usize)> {
        let (left, right) = match &self.node {
            Node::Join { left, right, .. } => (&**left, &**right),
            Node::HashJoin(j) => (&j.left, &j.right),
            _ => return None,
        };
        let lw = left.columns.len();
        Some(if c < lw { (left, c) } else { (right, c - lw) })
    }
}

/// Set-returning functions usable in FROM.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Srf {
    GenerateSeriesInt,
    GenerateSeriesNumeric,
    GenerateSeriesTimestamp,
    Unnest,
    ListeningChannels,
    GenerateSubscripts,
    /// pg_partition_ancestors(regclass): the relation and the partitioned tables above it.
    PartitionAncestors,
    /// pg_partition_tree(regclass): the relation and every partition below it, with each
    /// one's parent, whether it is a leaf, and its level (four columns).
    PartitionTree,
    /// pg_control_system() and its kin: one row of the control data (`func/system/control.rs`).
    Control(crate::sql::func::session_fn::ControlFn),
    /// A scalar function used in FROM: one row.
    Scalar,
    /// aclexplode(aclitem[]) in FROM: four columns per row (`plan/acl_fn.rs`).
    AclExplode,
    /// Rows computed at the first call (exec/srf/list.rs).
    List(ListFn),
    /// A user-defined function (SQL or PL/pgSQL): its call is the one argument, an
    /// `Expr::UserCall`, and the argument types are the result's column types. Its rows are
    /// materialized at the first pull, as PostgreSQL's tuplestore (bounded by `WORK_MEM`).
    User,
}

/// The set-returning functions of exec/srf/list.rs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListFn {
    ArrayElements {
        jsonb: bool,
        text: bool,
    },
    ObjectKeys {
        jsonb: bool,
    },
    /// json(b)_each[_text]: rows of (key, value), two columns in FROM, a record in the select
    /// list.
    Each {
        jsonb: bool,
        text: bool,
    },
    /// regexp_split_to_table and regexp_matches; `ci`: citext's versions, which add the `i`
    /// flag unless the flags say `c` (`func/extension/citext.rs`).
    RegexpSplit {
        ci: bool,
    },
    RegexpMatches {
        ci: bool,
    },
    /// pg_options_to_table(text[]): rows of (option_name, option_value), split at the first
    /// `=` of each `name=value` item (reloptions, fdw options).
    OptionsToTable,
}

impl ListFn {
    pub(super) fn of(name: &str, n: usize) -> Option<ListFn> {
        let elements = |jsonb, text| Some(ListFn::ArrayElements { jsonb, text });
        match (name, n) {
            ("json_array_elements", 1) => elements(false, false),
            ("json_array_elements_text", 1) => elements(false, true),
            ("jsonb_array_elements", 1) => elements(true, false),
            ("jsonb_array_elements_text", 1) => elements(true, true),
            ("json_object_keys", 1) => Some(ListFn::ObjectKeys { jsonb: false }),
            ("jsonb_object_keys", 1) => Some(ListFn::ObjectKeys { jsonb: true }),
            ("json_each", 1) => Some(ListFn::Each {
                jsonb: false,
                text: false,
            }),
            ("json_each_text", 1) => Some(ListFn::Each {
                jsonb: false,
                text: true,
            }),
            ("jsonb_each", 1) => Some(ListFn::Each {
                jsonb: true,
                text: false,
            }),
            ("jsonb_each_text", 1) => Some(ListFn::Each {
                jsonb: true,
                text: true,
            }),
            ("regexp_split_to_table", 2 | 3) => Some(ListFn::RegexpSplit { ci: false }),
            ("regexp_matches", 2 | 3) => Some(ListFn::RegexpMatches { ci: false }),
            ("pg_options_to_table", 1) => Some(ListFn::OptionsToTable),
            _ => None,
        }
    }

    /// The argument types and the type of the rows.
    pub(super) fn signature(self, n: usize) -> (Vec<Type>, Type) {
        match self {
            ListFn::ArrayElements { jsonb, text } => {
                let j = if jsonb { Type::JSONB } else { Type::JSON };
                (vec![j], if text { Type::TEXT } else { j })
            }
            ListFn::ObjectKeys { jsonb } => (
                vec![if jsonb { Type::JSONB } else { Type::JSON }],
                Type::TEXT,
            ),
            ListFn::Each { jsonb, .. } => (
                vec![if jsonb { Type::JSONB } else { Type::JSON }],
                Type::RECORD,
            ),
            ListFn::RegexpSplit { .. } => (vec![Type::TEXT; n], Type::TEXT),
            ListFn::RegexpMatches { .. } => (vec![Type::TEXT; n], Type::TEXT_ARRAY),
            ListFn::OptionsToTable => (vec![Type::TEXT_ARRAY], Type::RECORD),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            ListFn::ArrayElements {
                jsonb: false,
                text: false,
            } => "json_array_elements",
            ListFn::ArrayElements {
                jsonb: false,
                text: true,
            } => "json_array_elements_text",
            ListFn::ArrayElements {
                jsonb: true,
                text: false,
            } => "jsonb_array_elements",
            ListFn::ArrayElements {
                jsonb: true,
                text: true,
            } => "jsonb_array_elements_text",
            ListFn::ObjectKeys { jsonb: false } => "json_object_keys",
            ListFn::ObjectKeys { jsonb: true } => "jsonb_object_keys",
            ListFn::Each { jsonb, text } => match (jsonb, text) {
                (false, false) => "json_each",
                (false, true) => "json_each_text",
                (true, false) => "jsonb_each",
                (true, true) => "jsonb_each_text",
            },
            ListFn::RegexpSplit { .. } => "regexp_split_to_table",
            ListFn::RegexpMatches { .. } => "regexp_matches",
            ListFn::OptionsToTable => "pg_options_to_table",
        }
    }
}

/// A bound call of a set-returning function.
#[derive(Debug, Clone)]
pub struct SrfCall {
    pub srf: Srf,
    pub out: Type,
    pub args: Vec<Expr>,
    pub arg_types: Vec<Type>,
}

/// Names the work table of a recursive CTE: its RecursiveUnion node and the WorkTable nodes of
/// its recursive term hold clones of one. The rows themselves live in the executor, keyed by
/// [`WorkTable::id`], so that one plan can be run by several executors at once.
#[derive(Debug, Clone, Default)]
pub struct WorkTable(std::sync::Arc<()>);

impl WorkTable {
    pub fn id(&self) -> usize {
        std::sync::Arc::as_ptr(&self.0) as usize
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AggFunc {
    CountStar,
    Count,
    Sum,
    Avg,
    Min,
    Max,
    BoolAnd,
    BoolOr,
    ArrayAgg,
    StringAgg,
    // The rest: plan/aggregates.rs (names, types), exec/aggregate/extra.rs (accumulators).
    /// (jsonb, the argument is a whole row converted by whole_row.rs)
    JsonAgg(bool, bool),
    /// (jsonb, the value's type); the key's type is `AggCall::arg_type`.
    JsonObjectAgg(bool, Type),
    Spread(aggregates::Spread),
    BitAnd,
    BitOr,
    BitXor,
    Regr(aggregates::Regr),
    /// (an array of fractions)
    PercentileCont(bool),
    PercentileDisc(bool),
    Mode,
    /// range_agg over ranges or multiranges: their union as a multirange.
    RangeAgg,
    /// range_intersect_agg over ranges or multiranges: their intersection.
    RangeIntersectAgg,
    /// A column used ungrouped because it depends on the grouped primary key (plan/agg.rs):
    /// its value, the same in every row of the group. Never written by users.
    Dependent,
    /// An aggregate made by CREATE AGGREGATE: `AggCall::user` says what it runs.
    User,
}

/// A user aggregate's calls, bound for one call site (plan/user_agg.rs).
#[derive(Debug, Clone)]
pub struct UserAgg {
    pub name: String,
    /// The transition function's call over a row of the state, then the arguments.
    pub trans: Expr,
    /// Whether the transition function is strict: NULL inputs are skipped, and the first
    /// non-null input becomes a NULL initial state.
    pub strict: bool,
    /// The initial state (INITCOND converted to the state's type); None: NULL.
    pub init: Option<Expr>,
    /// The final function's call over a row of the state (then one NULL per argument).
    pub fin: Option<Expr>,
    pub fin_strict: bool,
}

#[derive(Debug, Clone)]
pub struct AggCall {
    pub func: AggFunc,
    pub args: Vec<Expr>,
    pub arg_type: Type,
    pub result: Type,
    pub distinct: bool,
    pub filter: Option<Expr>,
    pub order: Vec<SortKey>,
    /// Set for `AggFunc::User`.
    pub user: Option<std::sync::Arc<UserAgg>>,
}

/// Functions that only exist as window functions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WinFunc {
    RowNumber,
    Rank,
    DenseRank,
    PercentRank,
    CumeDist,
    Ntile,
    Lag,
    Lead,
    FirstValue,
    LastValue,
    NthValue,
}

/// One end of a window frame.
#[derive(Debug, Clone)]
pub enum FrameBound {
    UnboundedPreceding,
    /// `n PRECEDING` (ROWS mode; the offset is evaluated once per partition).
    Preceding(Expr),
    CurrentRow,
    Following(Expr),
    UnboundedFollowing,
}

/// A window frame: ROWS (physical rows) or RANGE (the current row and its peers).
#[derive(Debug, Clone)]
pub struct Frame {
    pub rows: bool,
    pub start: FrameBound,
    pub end: FrameBound,
}

/// A window function call: a window function or an aggregate over a window.
#[derive(Debug, Clone)]
pub struct WindowCall {
    pub func: Result<WinFunc, AggCall>,
    pub args: Vec<Expr>,
    pub partition: Vec<Expr>,
    pub order: Vec<SortKey>,
    pub frame: Frame,
}

#[derive(Debug, Clone)]
pub struct SortKey {
    pub expr: Expr,
    pub desc: bool,
    pub nulls_first: bool,
}

/// The table a scan reads, with the name the query gave it (`FROM t AS x`: EXPLAIN prints
/// `Seq Scan on t x` and qualifies its columns with `x`). It dereferences to the table, so a
/// scan's `rel` reads as the relation everywhere else.
#[derive(Debug, Clone)]
pub struct ScanRel {
    pub rel: std::sync::Arc<crate::sql::engine::Rel>,
    /// The alias, where the query gave one that differs from the table's name.
    pub alias: Option<std::sync::Arc<str>>,
}

impl ScanRel {
    /// The name the query refers to the table by.
    pub fn ref_name(&self) -> &str {
        self.alias.as_deref().unwrap_or(&self.rel.name.name)
    }
}

impl std::ops::Deref for ScanRel {
    type Target = std::sync::Arc<crate::sql::engine::Rel>;
    fn deref(&self) -> &Self::Target {
        &self.rel
    }
}

impl From<std::sync::Arc<crate::sql::engine::Rel>> for ScanRel {
    fn from(rel: std::sync::Arc<crate::sql::engine::Rel>) -> ScanRel {
        ScanRel { rel, alias: None }
    }
}

/// What FOR UPDATE does with a row another transaction holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LockWait {
    Block,
    /// NOWAIT: 55P03.
    Error,
    /// SKIP LOCKED.
    Skip,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JoinKind {
    Inner,
    Left,
    Right,
    Full,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SetOpKind {
    Union,
    Intersect,
    Except,
}

#[derive(Debug, Clone)]
pub enum Node {
    /// One row with no columns (SELECT without FROM).
    Result,
    /// A table's rows that the statement's snapshot sees, in slot order; with `rowid`, each
    /// row's slot follows its columns (for UPDATE / DELETE / FOR UPDATE).
    SeqScan {
        rel: ScanRel,
        rowid: bool,
    },
    /// The rows whose leading key columns of index `index` (of `rel.indexes`) equal `eq`.
    IndexScan {
        rel: ScanRel,
        rowid: bool,
        index: usize,
        eq: Vec<Expr>,
    },
    /// Other index scans (ranges, IN lists, row-value IN, reads in index order, backwards for
    /// DESC): see `plan/index_path.rs`.
    IndexRange {
        rel: ScanRel,
        rowid: bool,
        path: Box<index_path::IndexPath>,
    },
    /// The versions in the slots a condition on `ctid` names (PostgreSQL's Tid Scan): `cond`
    /// is that condition over the scan's row, as written (EXPLAIN's TID Cond); `tids` give
    /// the tids wanted, each one tid or (with `array`) an array of them, evaluated once at
    /// the first pull. A ctid names one version: no chain is followed.
    TidScan {
        rel: ScanRel,
        rowid: bool,
        cond: Expr,
        tids: Vec<Expr>,
        array: bool,
    },
    /// The rows whose chain roots `bitmap` (a `BitmapIndexScan`) yields, read in slot order,
    /// each version the snapshot sees checked against `recheck` (GIN indexes are lossy:
    /// `plan/gin_path.rs`).
    BitmapHeapScan {
        rel: ScanRel,
        rowid: bool,
        bitmap: Box<Plan>,
        recheck: Vec<Expr>,
    },
    /// The chain roots GIN index `index` (of `rel.indexes`) gives for `conds`, each `column
    /// op operand` with an operand that reads no column: one row (the root, int8) per root,
    /// read whole before the heap scan above starts.
    BitmapIndexScan {
        rel: ScanRel,
        index: usize,
        conds: Vec<Expr>,
    },
    /// INSERT / UPDATE / DELETE: writes what its input produces; yields the RETURNING rows.
    Modify(Box<modify::Modify>),
    /// A top-level WITH with data-modifying statements: the rows of `input`, with each of
    /// `ctes` (a `Modify`, read through `Cte` nodes) run exactly once, to its end, whether or
    /// not `input` reads all of its rows (see `exec::modify_cte`).
    ModifyingCtes {
        ctes: Vec<std::sync::Arc<Plan>>,
        input: Box<Plan>,
    },
    /// An INSERT / UPDATE / DELETE rewritten by rules: its statements, run in order
    /// (`plan/rules.rs`, `exec/rules.rs`).
    Rules(Box<super::rules::RuleSeq>),
    /// SELECT ... FOR UPDATE / SHARE: locks the rows of the tables in `spec` that each input
    /// row was made from (plan/lock_rows.rs), above the sort and below LIMIT.
    LockRows {
        input: Box<Plan>,
        spec: Box<lock_rows::LockSpec>,
    },
    Values(Vec<Vec<Expr>>),
    /// Rows made outside the planner (a batch of COPY FROM), handed to the operator without a
    /// copy (see [`Feed`]).
    Feed(Feed),
    Function {
        srf: Srf,
        args: Vec<Expr>,
        arg_types: Vec<Type>,
        scalar: Option<Expr>,
        ordinality: bool,
    },
    Virtual(VirtualTable),
    /// A transition table of the trigger whose function runs the statement (REFERENCING OLD /
    /// NEW TABLE AS this name), found by name in the session when the scan starts
    /// (PostgreSQL's Named Tuplestore Scan).
    Transition(String),
    /// Set-returning functions in the select list: each input row yields as many rows as the
    /// longest function result, the input columns repeated, shorter results padded with NULL.
    ProjectSet {
        input: Box<Plan>,
        srfs: Vec<SrfCall>,
    },
    /// A materialized CTE, referenced by index into the statement's CTE list.
    Cte(usize, std::sync::Arc<Plan>),
    /// WITH RECURSIVE: the rows of `init`, then those of `step` run again and again over the
    /// rows its previous run produced (`work`, which `step` reads through a WorkTable node)
    /// until it produces none. Without `all`, rows already produced are dropped.
    RecursiveUnion {
        init: Box<Plan>,
        step: Box<Plan>,
        all: bool,
        work: WorkTable,
    },
    /// The recursive term's view of its CTE: the rows of the previous iteration.
    WorkTable(WorkTable),
    Project {
        input: Box<Plan>,
        exprs: Vec<Expr>,
    },
    Filter {
        input: Box<Plan>,
        pred: Expr,
    },
    /// A nested-loop join. A lateral join runs `right` once per left row, with the left row as
    /// the innermost outer row (`Expr::Outer(1, _)` inside `right`).
    Join {
        left: Box<Plan>,
        right: Box<Plan>,
        kind: JoinKind,
        on: Option<Expr>,
        lateral: bool,
    },
    /// A hash join (plan/join.rs).
    HashJoin(Box<join::HashJoin>),
    /// EXPLAIN [ANALYZE] of a plan: the lines of QUERY PLAN (plan/explain.rs).
    Explain(Box<explain::Explain>),
    Aggregate {
        input: Box<Plan>,
        group: Vec<Expr>,
        aggs: Vec<AggCall>,
        /// The group keys of the empty grouping sets (ROLLUP's grand total, `()`): with no
        /// input rows each still gives one row, as PostgreSQL's does. Empty without grouping
        /// sets (no GROUP BY is one group anyway).
        empty_sets: Vec<Vec<Value>>,
    },
    /// Window functions: each input row with one value per call appended. Rows come out in
    /// the order of the last call's partition and order keys.
    Window {
        input: Box<Plan>,
        calls: Vec<WindowCall>,
    },
    Sort {
        input: Box<Plan>,
        keys: Vec<SortKey>,
    },
    /// DISTINCT over the first `width` columns, or DISTINCT ON the given expressions.
    Distinct {
        input: Box<Plan>,
        on: Option<Vec<Expr>>,
        width: usize,
    },
    Limit {
        input: Box<Plan>,
        offset: Option<Expr>,
        count: Option<Expr>,
    },
    SetOp {
        op: SetOpKind,
        all: bool,
        left: Box<Plan>,
        right: Box<Plan>,
    },
}

/// The rows of a [`Node::Feed`]: full table rows, taken (not copied) by the one operator that
/// reads them, with the `defaults` of the columns the rows leave out evaluated per row as
/// INSERT evaluates them (a `nextval` per row). A plan holding a feed is run once: a second
/// run finds it empty.
#[derive(Clone, Default)]
pub struct Feed {
    pub rows: std::sync::Arc<parking_lot::Mutex<Vec<Vec<crate::sql::types::Value>>>>,
    pub defaults: Vec<(usize, Expr)>,
    /// How many rows the operator has handed out (stored as each one is, before its defaults
    /// are evaluated): after an error, the row it was raised for is the last one handed out,
    /// which COPY FROM names in the error's context.
    pub handed: std::sync::Arc<std::sync::atomic::AtomicUsize>,
}

impl Feed {
    pub fn new(rows: Vec<Vec<crate::sql::types::Value>>, defaults: Vec<(usize, Expr)>) -> Feed {
        Feed {
            rows: std::sync::Arc::new(parking_lot::Mutex::new(rows)),
            defaults,
            handed: Default::default(),
        }
    }

    /// How many rows are still to be read.
    pub fn len(&self) -> usize {
        self.rows.lock().len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl std::fmt::Debug for Feed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Feed({} rows)", self.len())
    }
}
