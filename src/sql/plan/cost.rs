//! Estimates: how many rows each plan node returns, how wide they are and what producing them
//! costs, in PostgreSQL's units (costsize.c and selfuncs.c are the model), from the statistics
//! ANALYZE keeps (`engine::analyze`). EXPLAIN shows them; the join planner orders its inputs by
//! them.
//!
//! # Selectivity
//!
//! A condition over a table's columns passes a share of its rows:
//!
//! * `col = const`: the value's frequency when it is one of the most common values, else the
//!   rows left after those, spread over the other distinct values (PostgreSQL's var_eq_const);
//!   `col = $1` or `col = other.col` (a value not known when planning): one over the distinct
//!   values (var_eq_non_const);
//! * `col < const` (and `<=`, `>`, `>=`): the common values that pass plus the share of the
//!   histogram below the value, interpolated inside its bucket for numbers
//!   (ineq_histogram_selectivity); a column bounded on both sides: the two shares minus one
//!   (clauselist_selectivity's range pairing);
//! * IS NULL: the null fraction; AND multiplies, OR adds less the overlap, NOT complements;
//! * without statistics, PostgreSQL's defaults: 0.005 for an equality (1/200 distinct
//!   values; one row for a unique column), 1/3 for an inequality, 0.005 for a range, 0.005 for
//!   IS NULL.
//!
//! # Costs
//!
//! PostgreSQL's default cost constants (a sequential page 1.0, a random page 4.0, a row 0.01,
//! an index entry 0.005, an operator 0.0025). Rows live in memory here, not in 8 kB pages, so
//! a table's pages are what its rows would fill in PostgreSQL's pages (its tuple header,
//! alignment and line pointers around each row's average width): the costs keep PostgreSQL's
//! proportions between scans, joins and sorts of the same data, and need no walk over the
//! table while planning.
//!
//! # Bounds
//!
//! One pass over the plan tree (as deep as the planner made it) and over each condition; a
//! histogram is searched by bisection. No allocation beyond the recursion.

use std::cmp::Ordering;
use std::sync::Arc;

use super::index_path;
use super::{Expr, JoinKind, Node, Plan};
use crate::sql::engine::{self, analyze::ColumnStats, analyze::TableStatistics, Rel};
use crate::sql::types::{self, ops, Type, Value};

const SEQ_PAGE_COST: f64 = 1.0;
const RANDOM_PAGE_COST: f64 = 4.0;
const CPU_TUPLE_COST: f64 = 0.01;
const CPU_INDEX_TUPLE_COST: f64 = 0.005;
const CPU_OPERATOR_COST: f64 = 0.0025;
/// PostgreSQL's page size and what a page and a row take beside the values.
const PAGE: f64 = 8192.0;
const PAGE_HEADER: f64 = 24.0;
const TUPLE_HEADER: f64 = 24.0;
const LINE_POINTER: f64 = 4.0;

const DEFAULT_EQ_SEL: f64 = 0.005;
const DEFAULT_INEQ_SEL: f64 = 1.0 / 3.0;
const DEFAULT_RANGE_INEQ_SEL: f64 = 0.005;
const DEFAULT_NUM_DISTINCT: f64 = 200.0;
const DEFAULT_UNK_SEL: f64 = 0.005;
/// Rows assumed of a set-returning function or a node nothing is known about (PostgreSQL's
/// default for a function's rows).
const DEFAULT_ROWS: f64 = 1000.0;

/// What a plan node is expected to do.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Estimate {
    pub rows: f64,
    /// Average bytes of a row.
    pub width: f64,
    /// Cost until the first row, and until the last.
    pub startup: f64,
    pub total: f64,
}

impl Estimate {
    fn leaf(rows: f64, width: f64, total: f64) -> Estimate {
        Estimate {
            rows,
            width,
            startup: 0.0,
            total,
        }
    }
}

/// PostgreSQL's clamp_row_est: at least one row, whole rows.
fn clamp_rows(r: f64) -> f64 {
    if r.is_nan() || r <= 1.0 {
        1.0
    } else {
        r.round()
    }
}

/// A table with its statistics, for the conditions over its rows.
struct Table<'a> {
    rel: &'a Rel,
    stats: Option<Arc<TableStatistics>>,
    rows: f64,
}

impl<'a> Table<'a> {
    fn new(rel: &'a Rel) -> Table<'a> {
        let stats = engine::statistics(rel);
        // An analyzed table has the rows ANALYZE counted (pg_class.reltuples); a table never
        // analyzed, its row slots (live and dead versions alike).
        let rows = match &stats {
            Some(s) => s.rows,
            None => engine::versions(rel) as f64,
        };
        Table { rel, stats, rows }
    }

    fn column(&self, c: usize) -> Option<&ColumnStats> {
        self.stats.as_ref()?.columns.get(c)?.as_ref()
    }

    /// Distinct values of column `c` (PostgreSQL's get_variable_numdistinct): from the
    /// statistics, else every row for a column a one-column unique index covers, else 200.
    fn distinct(&self, c: usize) -> f64 {
        if let Some(s) = self.column(c) {
            let nd = if s.n_distinct < 0.0 {
                -s.n_distinct * self.rows
            } else {
                s.n_distinct
            };
            if nd > 0.0 {
                return nd.max(1.0);
            }
        }
        let unique = self
            .rel
            .indexes
            .iter()
            .any(|i| i.unique && i.exprs.is_none() && i.columns == [c]);
        if unique {
            return self.rows.max(1.0);
        }
        match self.rel.columns.get(c).map(|col| Type(col.type_oid)) {
            Some(Type::BOOL) => 2.0,
            _ => DEFAULT_NUM_DISTINCT,
        }
    }

    fn null_frac(&self, c: usize) -> f64 {
        self.column(c).map_or(0.0, |s| s.null_frac)
    }

    fn width(&self, c: usize) -> f64 {
        match self.column(c) {
            Some(s) => s.avg_width as f64,
            None => self
                .rel
                .columns
                .get(c)
                .map_or(32.0, |col| type_width(Type(col.type_oid), col.typmod)),
        }
    }

    fn row_width(&self) -> f64 {
        (0..self.rel.columns.len())
            .filter(|&c| !self.rel.columns[c].dropped)
            .map(|c| self.width(c))
            .sum()
    }

    /// The 8 kB pages the rows would fill in PostgreSQL (see the module's header): each row
    /// its 24-byte header and values, 8-byte aligned, and a 4-byte line pointer, in the page
    /// less its 24-byte header.
    fn pages(&self) -> f64 {
        let tuple = ((TUPLE_HEADER + self.row_width()) / 8.0).ceil() * 8.0 + LINE_POINTER;
        let per_page = ((PAGE - PAGE_HEADER) / tuple).floor().max(1.0);
        (self.rows / per_page).ceil().max(1.0)
    }
}

/// PostgreSQL's get_typavgwidth: a fixed-width type's size; a variable one's guess from its
/// declared maximum, else 32.
fn type_width(ty: Type, typmod: i32) -> f64 {
    match ty {
        Type::BOOL => 1.0,
        Type::INT2 => 2.0,
        Type::INT4 | Type::FLOAT4 | Type::DATE | Type::OID => 4.0,
        Type::INT8 | Type::FLOAT8 | Type::TIMESTAMP | Type::TIMESTAMPTZ | Type::TIME => 8.0,
        Type::UUID | Type::INTERVAL => 16.0,
        Type::VARCHAR | Type::BPCHAR if typmod > 4 => {
            let max = (typmod - 4) as f64;
            if ty == Type::BPCHAR || max <= 32.0 {
                max
            } else if max < 1000.0 {
                32.0 + (max - 32.0) / 2.0
            } else {
                32.0 + (1000.0 - 32.0) / 2.0
            }
        }
        _ => 32.0,
    }
}

/// A value as a number on a line, for interpolation inside a histogram bucket.
fn scalar(v: &Value) -> Option<f64> {
    Some(match v {
        Value::Int2(x) => *x as f64,
        Value::Int4(x) => *x as f64,
        Value::Int8(x) => *x as f64,
        Value::Float4(x) => *x as f64,
        Value::Float8(x) => *x,
        Value::Numeric(n) => n.to_string().parse().ok()?,
        Value::Date(x) => *x as f64,
        Value::Timestamp(x) | Value::TimestampTz(x) | Value::Time(x) => *x as f64,
        Value::Oid(x) => *x as f64,
        _ => return None,
    })
}

fn order(a: &Value, b: &Value) -> Ordering {
    match (scalar(a), scalar(b)) {
        (Some(x), Some(y)) => x.partial_cmp(&y).unwrap_or(Ordering::Equal),
        _ => types::compare(a, b),
    }
}

/// `op` of a comparison as seen from the column.
#[derive(Clone, Copy, PartialEq)]
enum Op {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

fn op_of(f: &ops::BinFn) -> Option<Op> {
    if let Some(c) = index_path::comparison_op(f) {
        return Some(match c {
            index_path::Cmp::Eq => Op::Eq,
            index_path::Cmp::Lt => Op::Lt,
            index_path::Cmp::Le => Op::Le,
            index_path::Cmp::Gt => Op::Gt,
            index_path::Cmp::Ge => Op::Ge,
        });
    }
    index_path::is_named(f, "<>").then_some(Op::Ne)
}

fn flip(op: Op) -> Op {
    match op {
        Op::Lt => Op::Gt,
        Op::Le => Op::Ge,
        Op::Gt => Op::Lt,
        Op::Ge => Op::Le,
        o => o,
    }
}

/// The other side of a comparison with a column: a value known when planning, or not.
enum Operand<'e> {
    Known(&'e Value),
    Unknown,
}

/// `col op x` either way round: the column, the operator seen from it, the other side.
fn comparison(e: &Expr) -> Option<(usize, Op, Operand<'_>)> {
    let Expr::Bin(f, l, r) = e else { return None };
    let op = op_of(f)?;
    fn side(x: &Expr) -> Option<Operand<'_>> {
        match x {
            Expr::Const(v) => Some(Operand::Known(v)),
            Expr::Column(_) => None,
            x if x.any(&mut |y| matches!(y, Expr::Column(_))) => None,
            _ => Some(Operand::Unknown),
        }
    }
    if let (Some(c), Some(v)) = (index_path::column_of(l), side(r)) {
        return Some((c, op, v));
    }
    if let (Some(c), Some(v)) = (index_path::column_of(r), side(l)) {
        return Some((c, flip(op), v));
    }
    None
}

/// The share of rows for which `col = v` (var_eq_const / var_eq_non_const).
fn eq_sel(t: &Table, c: usize, v: &Operand) -> f64 {
    let s = t.column(c);
    let nd = t.distinct(c);
    match v {
        Operand::Known(Value::Null) => 0.0,
        Operand::Known(v) => {
            let Some(s) = s else {
                return 1.0 / nd;
            };
            if let Some((_, f)) = s.mcv.iter().find(|(m, _)| order(m, v) == Ordering::Equal) {
                return *f;
            }
            let common: f64 = s.mcv.iter().map(|(_, f)| f).sum();
            let mut sel = (1.0 - common - s.null_frac).clamp(0.0, 1.0);
            let other = nd - s.mcv.len() as f64;
            if other > 1.0 {
                sel /= other;
            }
            match s.mcv.last() {
                Some((_, least)) if sel > *least => *least,
                _ => sel,
            }
        }
        Operand::Unknown => {
            let mut sel = (1.0 - t.null_frac(c)) / nd.max(1.0);
            if let Some((_, most)) = s.and_then(|s| s.mcv.first()) {
                sel = sel.min(*most);
            }
            sel
        }
    }
}

/// The share of rows for which `col op v` holds, for `<`, `<=`, `>`, `>=`; None where there
/// is nothing to go on (PostgreSQL's default then applies).
fn ineq_sel(t: &Table, c: usize, op: Op, v: &Operand) -> Option<f64> {
    let Operand::Known(v) = v else { return None };
    if v.is_null() {
        return Some(0.0);
    }
    let s = t.column(c)?;
    let below = matches!(op, Op::Lt | Op::Le);
    let passes = |x: &Value| {
        matches!(
            (order(x, v), op),
            (Ordering::Less, Op::Lt | Op::Le)
                | (Ordering::Greater, Op::Gt | Op::Ge)
                | (Ordering::Equal, Op::Le | Op::Ge)
        )
    };
    let common: f64 = s.mcv.iter().map(|(_, f)| f).sum();
    let mcv_sel: f64 = s
        .mcv
        .iter()
        .filter(|(m, _)| passes(m))
        .map(|(_, f)| f)
        .sum();
    let rest = (1.0 - common - s.null_frac).max(0.0);
    let h = &s.histogram;
    if h.len() < 2 {
        return (!s.mcv.is_empty()).then_some(mcv_sel);
    }
    // The share of the histogram's values below v.
    let n = h.len();
    let frac_below = if order(v, &h[0]) != Ordering::Greater {
        0.0
    } else if order(v, &h[n - 1]) != Ordering::Less {
        1.0
    } else {
        // h[i] < v <= h[i + 1]
        let i = h.partition_point(|b| order(b, v) == Ordering::Less) - 1;
        let within = match (scalar(&h[i]), scalar(&h[i + 1]), scalar(v)) {
            (Some(lo), Some(hi), Some(x)) if hi > lo => ((x - lo) / (hi - lo)).clamp(0.0, 1.0),
            _ => 0.5,
        };
        (i as f64 + within) / (n - 1) as f64
    };
    let hist = if below { frac_below } else { 1.0 - frac_below };
    Some((mcv_sel + hist * rest).clamp(0.0, 1.0))
}

/// The share of the rows of `t` (None: rows of no one table) for which `e` is true.
fn selectivity(t: Option<&Table>, e: &Expr) -> f64 {
    match e {
        Expr::Const(Value::Bool(true)) => 1.0,
        Expr::Const(_) => 0.0,
        Expr::And(v) => and_selectivity(t, v.iter()),
        Expr::Or(v) => v.iter().fold(0.0, |s, x| {
            let s2 = selectivity(t, x);
            s + s2 - s * s2
        }),
        Expr::Not(x) => 1.0 - selectivity(t, x),
        Expr::IsNull(x, negated) => {
            let nf = match (t, index_path::column_of(x)) {
                (Some(t), Some(c)) if t.column(c).is_some() => t.null_frac(c),
                _ => DEFAULT_UNK_SEL,
            };
            if *negated {
                1.0 - nf
            } else {
                nf
            }
        }
        Expr::InList {
            expr,
            list,
            negated,
            ..
        } => {
            let s = match (t, index_path::column_of(expr)) {
                (Some(t), Some(c)) => list
                    .iter()
                    .map(|x| match x {
                        Expr::Const(v) => eq_sel(t, c, &Operand::Known(v)),
                        _ => eq_sel(t, c, &Operand::Unknown),
                    })
                    .sum::<f64>()
                    .min(1.0),
                _ => (DEFAULT_EQ_SEL * list.len() as f64).min(1.0),
            };
            if *negated {
                1.0 - s
            } else {
                s
            }
        }
        Expr::ArrayCmp {
            left, right, all, ..
        } => {
            let items = match &**right {
                Expr::Const(Value::Array(a)) => a.items.len().max(1),
                Expr::Array(v, _) => v.len().max(1),
                _ => 10,
            };
            let one = match (t, index_path::column_of(left)) {
                (Some(t), Some(c)) => eq_sel(t, c, &Operand::Unknown),
                _ => DEFAULT_EQ_SEL,
            };
            if *all {
                one.powi(items as i32)
            } else {
                (one * items as f64).min(1.0)
            }
        }
        Expr::Bin(f, l, r) if containment_default(f).is_some() || gin_served(t, e) => {
            containment_sel(t, f, l, r)
        }
        Expr::Bin(..) => match (t, comparison(e)) {
            (Some(t), Some((c, op, v))) => match op {
                Op::Eq => eq_sel(t, c, &v),
                Op::Ne => (1.0 - eq_sel(t, c, &v) - t.null_frac(c)).clamp(0.0, 1.0),
                _ => ineq_sel(t, c, op, &v).unwrap_or(DEFAULT_INEQ_SEL),
            },
            (_, Some((_, Op::Eq, _))) => DEFAULT_EQ_SEL,
            (_, Some((_, Op::Ne, _))) => 1.0 - DEFAULT_EQ_SEL,
            (_, Some(_)) => DEFAULT_INEQ_SEL,
            // Columns on both sides, or an operator that is no comparison.
            _ => match e {
                Expr::Bin(f, ..) if op_of(f) == Some(Op::Eq) => DEFAULT_EQ_SEL,
                _ => DEFAULT_INEQ_SEL,
            },
        },
        Expr::Column(c) => match t {
            Some(t) => eq_sel(t, *c, &Operand::Known(&Value::Bool(true))),
            None => 0.5,
        },
        _ => DEFAULT_INEQ_SEL,
    }
}

/// PostgreSQL's default share of rows for the containment and existence operators of jsonb
/// (`@>`, `<@`, `?`, `?|`, `?&`: matchingsel's 0.010) and arrays (`@>`, `<@`, `&&`:
/// arraycontsel's 0.005); None for any other operator.
fn containment_default(f: &ops::BinFn) -> Option<f64> {
    ["@>", "<@", "&&", "?", "?|", "?&"].iter().find_map(|name| {
        let op = ops::binary_operators(name)
            .iter()
            .find(|op| op.f as usize == *f as usize)?;
        match op.left {
            Type::JSONB => Some(0.010),
            Type::ANYARRAY => Some(0.005),
            _ => None,
        }
    })
}

/// Whether a GIN index of the table serves `e` (pg_trgm's `%` and LIKE through
/// gin_trgm_ops): its selectivity is then counted in the index as for containment.
fn gin_served(t: Option<&Table>, e: &Expr) -> bool {
    t.is_some_and(|t| super::gin_path::served(t.rel, e).is_some())
}

/// The share of rows `col op value` passes for a containment or existence operator: with a
/// GIN index on the column that serves it and a constant operand, the entries of the query's
/// keys in the index (`gin::estimate_rows`, counting at most a quarter of the table per key);
/// else PostgreSQL's default.
fn containment_sel(t: Option<&Table>, f: &ops::BinFn, l: &Expr, r: &Expr) -> f64 {
    let default = containment_default(f).unwrap_or(DEFAULT_UNK_SEL);
    let (Some(t), Expr::Const(v)) = (t, r) else {
        return default;
    };
    if v.is_null() {
        return 0.0;
    }
    let e = Expr::Bin(*f, Box::new(l.clone()), Box::new(r.clone()));
    let Some((ix, op)) = super::gin_path::served(t.rel, &e) else {
        return default;
    };
    let def = &t.rel.indexes[ix];
    let Some(class) = engine::gin::class_of(def) else {
        return default;
    };
    // The session's thresholds do not reach the estimate: pg_trgm's defaults stand in.
    let Ok(m) = class.extract_query_in(op, v, &crate::sql::types::FormatCtx::default()) else {
        return default;
    };
    let rows = t.rows.max(1.0);
    let cap = (rows / 4.0).max(1000.0) as usize;
    match engine::gin::estimate_rows(t.rel, def.oid, &m, cap) {
        Some(n) => (n / rows).clamp(0.0, 1.0),
        None => 1.0,
    }
}

/// AND of `v`: the product, with `col > a AND col < b` on one column taken as one range.
fn and_selectivity<'e>(t: Option<&Table>, v: impl IntoIterator<Item = &'e Expr>) -> f64 {
    // (column, lower bound's share, upper bound's share, either one a default)
    let mut ranges: Vec<(usize, Option<f64>, Option<f64>, bool)> = Vec::new();
    let mut s = 1.0;
    for x in v {
        let bound = match (t, comparison(x)) {
            (Some(t), Some((c, op @ (Op::Lt | Op::Le | Op::Gt | Op::Ge), v))) => {
                let sel = ineq_sel(t, c, op, &v);
                Some((c, matches!(op, Op::Gt | Op::Ge), sel))
            }
            _ => None,
        };
        match bound {
            Some((c, lower, sel)) => {
                let default = sel.is_none();
                let sel = sel.unwrap_or(DEFAULT_INEQ_SEL);
                match ranges.iter_mut().find(|r| r.0 == c) {
                    Some(r) => {
                        let slot = if lower { &mut r.1 } else { &mut r.2 };
                        *slot = Some(slot.map_or(sel, |old: f64| old.min(sel)));
                        r.3 |= default;
                    }
                    None if lower => ranges.push((c, Some(sel), None, default)),
                    None => ranges.push((c, None, Some(sel), default)),
                }
            }
            None => s *= selectivity(t, x),
        }
    }
    for (c, lo, hi, default) in ranges {
        s *= match (lo, hi) {
            (Some(_), Some(_)) if default => DEFAULT_RANGE_INEQ_SEL,
            (Some(lo), Some(hi)) => {
                let nf = t.map_or(0.0, |t| t.null_frac(c));
                let r = lo + hi - 1.0 + nf;
                if r <= 0.0 {
                    // A range too narrow to measure: PostgreSQL's floor.
                    if r < -0.01 {
                        1e-4
                    } else {
                        (t.map_or(DEFAULT_RANGE_INEQ_SEL, |t| 1.0 / t.rows.max(1.0))).max(1e-10)
                    }
                } else {
                    r
                }
            }
            (Some(x), None) | (None, Some(x)) => x,
            (None, None) => 1.0,
        };
    }
    s.clamp(0.0, 1.0)
}

/// Operators in `e`, for its cost per row (cpu_operator_cost each).
fn operators(e: &Expr) -> f64 {
    let mut n = 0.0;
    e.any(&mut |x| {
        n += match x {
            Expr::Bin(..)
            | Expr::Un(..)
            | Expr::Func { .. }
            | Expr::Distinct(..)
            | Expr::UserCall(_) => 1.0,
            // `x IN (...)` / `= ANY`: half the items compared on average, as PostgreSQL
            // counts them.
            Expr::InList { list, .. } => 0.5 * list.len() as f64,
            Expr::ArrayCmp { right, .. } => match &**right {
                Expr::Const(Value::Array(a)) => 0.5 * a.items.len() as f64,
                Expr::Array(v, _) => 0.5 * v.len() as f64,
                _ => 1.0,
            },
            _ => 0.0,
        };
        false
    });
    n
}

/// The table and column output column `c` of `p` comes from, through projections, filters,
/// sorts and joins.
fn origin(p: &Plan, c: usize) -> Option<(&Rel, usize)> {
    if let Some((side, c)) = p.join_column(c) {
        return origin(side, c);
    }
    match &p.node {
        Node::SeqScan { rel, .. }
        | Node::IndexScan { rel, .. }
        | Node::IndexRange { rel, .. }
        | Node::TidScan { rel, .. }
        | Node::BitmapHeapScan { rel, .. } => (c < rel.columns.len()).then_some((&*rel.rel, c)),
        Node::Project { input, exprs } => match exprs.get(c)? {
            Expr::Column(i) => origin(input, *i),
            e => index_path::column_of(e).and_then(|i| origin(input, i)),
        },
        Node::Filter { input, .. }
        | Node::Sort { input, .. }
        | Node::Limit { input, .. }
        | Node::LockRows { input, .. } => origin(input, c),
        _ => None,
    }
}

/// Distinct values of output column `c` of `p` (200 where its origin is not known).
fn distinct_of(p: &Plan, c: usize) -> f64 {
    match origin(p, c) {
        Some((rel, col)) => Table::new(rel).distinct(col),
        None => DEFAULT_NUM_DISTINCT,
    }
}

/// The share of joined rows an equality between left column `l` and right column `r`
/// passes (eqjoinsel without the common-value matching): one over the larger number of
/// distinct values.
fn eqjoin_sel(left: &Plan, l: usize, right: &Plan, r: usize) -> f64 {
    1.0 / distinct_of(left, l).max(distinct_of(right, r)).max(1.0)
}

/// The share of a join's rows for which `on` (over the joined row) is true.
fn join_selectivity(left: &Plan, right: &Plan, on: &Expr) -> f64 {
    let lw = left.columns.len();
    match on {
        Expr::And(v) => v.iter().map(|x| join_selectivity(left, right, x)).product(),
        Expr::Bin(f, a, b) if op_of(f) == Some(Op::Eq) => {
            match (index_path::column_of(a), index_path::column_of(b)) {
                (Some(x), Some(y)) if (x < lw) != (y < lw) => {
                    let (l, r) = if x < lw { (x, y - lw) } else { (y, x - lw) };
                    eqjoin_sel(left, l, right, r)
                }
                _ => DEFAULT_EQ_SEL,
            }
        }
        e => selectivity(None, e),
    }
}

/// Groups of `group` over the rows of `input` (estimate_num_groups): the product of the keys'
/// distinct values, never more than the rows.
fn groups(input: &Plan, group: &[Expr], rows: f64) -> f64 {
    let product: f64 = group
        .iter()
        .map(|g| match index_path::column_of(g) {
            Some(c) => distinct_of(input, c),
            None => DEFAULT_NUM_DISTINCT,
        })
        .product();
    clamp_rows(product.min(rows))
}

fn width_of(p: &Plan) -> f64 {
    (0..p.columns.len()).map(|c| column_width(p, c)).sum()
}

/// Whether PostgreSQL's aggregate has a final function (its transition state is not the
/// result): averages, the spread and regression statistics, sums kept as numeric, and the
/// aggregates that collect values.
fn has_final_function(a: &super::AggCall) -> bool {
    use super::AggFunc as F;
    match a.func {
        F::Avg | F::Spread(_) | F::Regr(_) | F::ArrayAgg | F::StringAgg => true,
        F::JsonAgg(..) | F::JsonObjectAgg(..) => true,
        F::PercentileCont(_) | F::PercentileDisc(_) | F::Mode => true,
        F::Sum => matches!(a.arg_type, Type::NUMERIC | Type::INT8),
        _ => false,
    }
}

/// The average width of output column `c` of `p`: its table column's (from the statistics),
/// else its type's.
pub fn column_width(p: &Plan, c: usize) -> f64 {
    match origin(p, c) {
        Some((rel, col)) => Table::new(rel).width(col),
        None => type_width(p.columns[c].ty, p.columns[c].typmod),
    }
}

/// The pages an index of `t` takes: its keys and an entry header per row.
fn index_pages(t: &Table, index: usize) -> f64 {
    let def = &t.rel.indexes[index];
    let key_width: f64 = def.columns.iter().map(|&c| t.width(c)).sum::<f64>() + 16.0;
    (t.rows * key_width / PAGE).ceil().max(1.0)
}

/// An index scan's costs (genericcostestimate and cost_index, simplified): the index
/// entries it reads, a random page per heap row fetched (fewer when the table is stored in
/// the index's order: the column's correlation), and each row's CPU.
fn index_cost(t: &Table, index: usize, sel: f64, quals: f64, width: f64) -> Estimate {
    let entries = (sel * t.rows).max(1.0);
    let def = &t.rel.indexes[index];
    let index_pages = index_pages(t, index);
    let pages_read = (sel * index_pages).ceil().max(1.0);
    // Descending the tree: log2(entries) comparisons and a page per level.
    let descent = (t.rows.max(2.0).log2()).ceil() * CPU_OPERATOR_COST
        + (index_pages.log(256.0).ceil() + 1.0) * 50.0 * CPU_OPERATOR_COST;
    let index_cost = pages_read * RANDOM_PAGE_COST
        + entries * (CPU_INDEX_TUPLE_COST + quals * CPU_OPERATOR_COST);
    let heap_pages = t.pages();
    let fetched = entries.min(heap_pages);
    let max_io = fetched * RANDOM_PAGE_COST;
    let min_io = RANDOM_PAGE_COST + ((sel * heap_pages).ceil() - 1.0).max(0.0) * SEQ_PAGE_COST;
    let corr = def
        .columns
        .first()
        .and_then(|&c| t.column(c))
        .and_then(|s| s.correlation)
        .unwrap_or(0.0);
    let io = max_io + corr * corr * (min_io - max_io);
    let rows = clamp_rows(entries);
    Estimate {
        rows,
        width,
        startup: descent,
        total: descent + index_cost + io + rows * CPU_TUPLE_COST,
    }
}

/// An OR of ranges read from one index (`index_path::Span`), costed as PostgreSQL costs the
/// plan it makes for that shape (a BitmapOr of index scans under a bitmap heap scan,
/// cost_bitmap_heap_scan simplified): each range descends the tree; the rows' pages are
/// fetched once each (Mackert and Lohman's estimate of the pages that many rows touch), at a
/// cost per page between a random and a sequential read as the share of the table read grows;
/// each row re-checks the conditions.
fn or_cost(t: &Table, index: usize, ranges: f64, sel: f64, quals: f64) -> Estimate {
    let one = index_cost(t, index, sel, 0.0, t.row_width());
    let entries = (sel * t.rows).max(1.0);
    let index_pages = index_pages(t, index);
    let index_io = (sel * index_pages).ceil().max(ranges) * RANDOM_PAGE_COST
        + entries * CPU_INDEX_TUPLE_COST
        + ranges * one.startup;
    let heap_pages = t.pages();
    let heap_io = heap_fetch_cost(heap_pages, entries);
    let rows = clamp_rows(entries);
    Estimate {
        rows,
        width: t.row_width(),
        startup: index_io,
        total: index_io + heap_io + rows * (CPU_TUPLE_COST + quals * CPU_OPERATOR_COST),
    }
}

/// Reading `entries` rows spread over a table of `heap_pages` pages: the pages they touch
/// (Mackert and Lohman), each between a random and a sequential read as the share of the
/// table read grows.
fn heap_fetch_cost(heap_pages: f64, entries: f64) -> f64 {
    let fetched = (2.0 * heap_pages * entries / (2.0 * heap_pages + entries))
        .min(heap_pages)
        .ceil();
    let per_page = if fetched >= 2.0 {
        RANDOM_PAGE_COST - (RANDOM_PAGE_COST - SEQ_PAGE_COST) * (fetched / heap_pages).sqrt()
    } else {
        RANDOM_PAGE_COST
    };
    fetched * per_page
}

/// A GIN index scan's cost (ginCostEstimate simplified): each search key descends the entry
/// tree, then the posting entries of the rows selected are read, a random page per page of
/// them (8 bytes an entry), all before the first row comes (a bitmap is built whole).
fn gin_index_cost(t: &Table, sel: f64, searches: f64) -> Estimate {
    let entries = (sel * t.rows).max(1.0);
    let descent = searches.max(1.0)
        * ((t.rows.max(2.0).log2()).ceil() * CPU_OPERATOR_COST + 50.0 * CPU_OPERATOR_COST);
    let pages = (entries * 8.0 / PAGE).ceil().max(1.0);
    let total = descent + pages * RANDOM_PAGE_COST + entries * CPU_INDEX_TUPLE_COST;
    Estimate {
        rows: clamp_rows(entries),
        width: 0.0,
        startup: total,
        total,
    }
}

/// A bitmap heap scan's cost (cost_bitmap_heap_scan simplified, as [`or_cost`]): the bitmap
/// first, then the pages its rows touch (Mackert and Lohman), each between a random and a
/// sequential read as the share of the table read grows, and each row's recheck.
fn bitmap_heap_cost(t: &Table, bitmap: f64, sel: f64, quals: f64) -> Estimate {
    let entries = (sel * t.rows).max(1.0);
    let heap_pages = t.pages();
    let heap_io = heap_fetch_cost(heap_pages, entries);
    let rows = clamp_rows(entries);
    Estimate {
        rows,
        width: t.row_width(),
        startup: bitmap,
        total: bitmap + heap_io + entries * (CPU_TUPLE_COST + quals * CPU_OPERATOR_COST),
    }
}

/// The planner's method switches (PostgreSQL's enable_seqscan, enable_indexscan): a method
/// switched off is still used where nothing else can do the work, its cost raised by
/// [`DISABLE_COST`] as PostgreSQL raises it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Methods {
    pub seqscan: bool,
    pub indexscan: bool,
    /// enable_bitmapscan (the GIN paths' bitmap heap scans).
    pub bitmapscan: bool,
}

impl Default for Methods {
    fn default() -> Self {
        Methods {
            seqscan: true,
            indexscan: true,
            bitmapscan: true,
        }
    }
}

/// What a switched-off method's plan costs more (PostgreSQL's disable_cost).
pub const DISABLE_COST: f64 = 1.0e10;

/// The estimate of `p`.
pub fn estimate(p: &Plan) -> Estimate {
    match &p.node {
        Node::Result => Estimate::leaf(1.0, width_of(p), CPU_TUPLE_COST),
        Node::SeqScan { rel, .. } => {
            let t = Table::new(rel);
            let rows = clamp_rows(t.rows);
            Estimate::leaf(
                rows,
                t.row_width(),
                t.pages() * SEQ_PAGE_COST + t.rows * CPU_TUPLE_COST,
            )
        }
        // One random page and one tuple per tid, as PostgreSQL's cost_tidscan.
        Node::TidScan {
            rel, tids, array, ..
        } => {
            let t = Table::new(rel);
            let n = if *array { 10.0 } else { tids.len() as f64 };
            Estimate::leaf(
                clamp_rows(n),
                t.row_width(),
                n * (RANDOM_PAGE_COST + CPU_TUPLE_COST),
            )
        }
        Node::IndexScan { rel, index, eq, .. } => {
            let t = Table::new(rel);
            let def = &rel.indexes[*index];
            let sel: f64 = def
                .columns
                .iter()
                .zip(eq)
                .map(|(&c, v)| match v {
                    Expr::Const(v) => eq_sel(&t, c, &Operand::Known(v)),
                    _ => eq_sel(&t, c, &Operand::Unknown),
                })
                .product();
            // A unique index fixed in all its columns finds one row at most.
            let sel = if def.unique && eq.len() == def.width() {
                sel.min(1.0 / t.rows.max(1.0))
            } else {
                sel
            };
            index_cost(&t, *index, sel, eq.len() as f64, t.row_width())
        }
        Node::IndexRange { rel, path, .. } => {
            let t = Table::new(rel);
            let conds = || path.conds.iter().chain(&path.later);
            let sel = and_selectivity(Some(&t), conds());
            let quals: f64 = conds().map(operators).sum();
            if path.spans.is_empty() {
                index_cost(&t, path.index, sel, quals, t.row_width())
            } else {
                or_cost(&t, path.index, path.spans.len() as f64, sel, quals)
            }
        }
        Node::BitmapIndexScan { rel, conds, .. } => {
            let t = Table::new(rel);
            let sel = and_selectivity(Some(&t), conds.iter());
            gin_index_cost(&t, sel, conds.len() as f64)
        }
        Node::BitmapHeapScan {
            rel,
            bitmap,
            recheck,
            ..
        } => {
            let t = Table::new(rel);
            let sel = and_selectivity(Some(&t), recheck.iter());
            let quals: f64 = recheck.iter().map(operators).sum();
            bitmap_heap_cost(&t, estimate(bitmap).total, sel, quals)
        }
        Node::Filter { input, pred } => {
            let below = estimate(input);
            let sel = match scanned_table(input) {
                Some(rel) => selectivity(Some(&Table::new(rel)), pred),
                None => selectivity(None, pred),
            };
            Estimate {
                rows: clamp_rows(below.rows * sel),
                width: below.width,
                startup: below.startup,
                total: below.total + below.rows * operators(pred) * CPU_OPERATOR_COST,
            }
        }
        Node::Project { input, exprs } => {
            let below = estimate(input);
            Estimate {
                width: width_of(p),
                total: below.total
                    + below.rows * exprs.iter().map(operators).sum::<f64>() * CPU_OPERATOR_COST,
                ..below
            }
        }
        Node::Values(rows) => {
            let n = rows.len() as f64;
            Estimate::leaf(
                n,
                width_of(p),
                n * CPU_OPERATOR_COST * p.columns.len() as f64,
            )
        }
        Node::Feed(f) => Estimate::leaf(f.len() as f64, width_of(p), 0.0),
        Node::Function { .. } => Estimate::leaf(
            DEFAULT_ROWS,
            width_of(p),
            DEFAULT_ROWS * (CPU_OPERATOR_COST + CPU_TUPLE_COST),
        ),
        Node::Modify(m) => {
            let below = estimate(&m.input);
            Estimate {
                rows: 0.0,
                width: 0.0,
                ..below
            }
        }
        Node::LockRows { input, .. } => {
            let below = estimate(input);
            Estimate {
                total: below.total + below.rows * CPU_TUPLE_COST,
                ..below
            }
        }
        Node::Join {
            left,
            right,
            kind,
            on,
            ..
        } => {
            let l = estimate(left);
            let r = estimate(right);
            let sel = on
                .as_ref()
                .map_or(1.0, |on| join_selectivity(left, right, on));
            let inner = clamp_rows(l.rows * r.rows * sel);
            let rows = join_rows(*kind, inner, l.rows, r.rows);
            let per_pair = on.as_ref().map_or(0.0, operators) * CPU_OPERATOR_COST;
            Estimate {
                rows,
                width: l.width + r.width,
                startup: l.startup + r.startup,
                total: l.total
                    + l.rows * r.total
                    + l.rows * r.rows * per_pair
                    + rows * CPU_TUPLE_COST,
            }
        }
        Node::HashJoin(j) => {
            let l = estimate(&j.left);
            let r = estimate(&j.right);
            let mut sel: f64 = j
                .left_keys
                .iter()
                .zip(&j.right_keys)
                .map(|(&a, &b)| eqjoin_sel(&j.left, a, &j.right, b))
                .product();
            if let Some(on) = &j.on {
                sel *= join_selectivity(&j.left, &j.right, on);
            }
            let inner = clamp_rows(l.rows * r.rows * sel);
            let rows = join_rows(j.kind, inner, l.rows, r.rows);
            let keys = j.left_keys.len() as f64;
            let startup = r.total + r.rows * (keys * CPU_OPERATOR_COST + CPU_TUPLE_COST);
            Estimate {
                rows,
                width: l.width + r.width,
                startup: startup + l.startup,
                // Hashing each outer row, then comparing it with half a bucket's rows.
                total: startup
                    + l.total
                    + l.rows * keys * CPU_OPERATOR_COST
                    + 0.5 * l.rows * (r.rows * sel).max(1.0) * keys * CPU_OPERATOR_COST
                    + rows * CPU_TUPLE_COST,
            }
        }
        Node::Aggregate {
            input, group, aggs, ..
        } => {
            let below = estimate(input);
            let per_row = (aggs.len() as f64 + group.len() as f64) * CPU_OPERATOR_COST;
            let startup = below.total + below.rows * per_row;
            let rows = if group.is_empty() {
                1.0
            } else {
                groups(input, group, below.rows)
            };
            // Each group's final functions (PostgreSQL counts one operator per aggregate
            // that has one).
            let finals = aggs.iter().filter(|a| has_final_function(a)).count() as f64;
            Estimate {
                rows,
                width: width_of(p),
                startup,
                total: startup + rows * (CPU_TUPLE_COST + finals * CPU_OPERATOR_COST),
            }
        }
        Node::Sort { .. } => sort(p, None),
        Node::Distinct { input, on, width } => {
            let below = estimate(input);
            let rows = match on {
                Some(keys) => groups(input, keys, below.rows),
                None => {
                    let keys: Vec<Expr> = (0..*width).map(Expr::Column).collect();
                    groups(input, &keys, below.rows)
                }
            };
            match on {
                // Unique over its sorted input: one comparison per row.
                Some(_) => Estimate {
                    rows,
                    total: below.total + below.rows * CPU_OPERATOR_COST,
                    ..below
                },
                // Hashed (EXPLAIN's HashAggregate): every input row hashed before the first
                // group comes out.
                None => {
                    let startup = below.total + below.rows * *width as f64 * CPU_OPERATOR_COST;
                    Estimate {
                        rows,
                        width: below.width,
                        startup,
                        total: startup + rows * CPU_TUPLE_COST,
                    }
                }
            }
        }
        Node::Limit {
            input,
            count,
            offset,
        } => {
            let below = match &input.node {
                Node::Sort { .. } => estimate_limited_sort(input, p),
                _ => estimate(input),
            };
            let (skip, rows) = limit_rows(count, offset, below.rows);
            let span = below.total - below.startup;
            let share = |n: f64| {
                if below.rows > 0.0 {
                    n / below.rows
                } else {
                    0.0
                }
            };
            Estimate {
                rows,
                width: below.width,
                startup: below.startup + span * share(skip),
                total: below.startup + span * share(skip + rows).min(1.0),
            }
        }
        Node::SetOp { left, right, .. } => {
            let l = estimate(left);
            let r = estimate(right);
            Estimate {
                rows: l.rows + r.rows,
                width: l.width.max(r.width),
                startup: l.startup,
                total: l.total + r.total,
            }
        }
        Node::Window { input, .. } | Node::ProjectSet { input, .. } => {
            let below = estimate(input);
            Estimate {
                width: width_of(p),
                total: below.total + below.rows * CPU_OPERATOR_COST,
                ..below
            }
        }
        Node::RecursiveUnion { init, .. } => {
            let i = estimate(init);
            Estimate {
                rows: clamp_rows(i.rows * 10.0),
                total: i.total * 10.0,
                ..i
            }
        }
        _ => Estimate::leaf(DEFAULT_ROWS, width_of(p), DEFAULT_ROWS * CPU_TUPLE_COST),
    }
}

/// A join's rows: the pairs that pass, and an outer join's unmatched rows at least.
fn join_rows(kind: JoinKind, inner: f64, left: f64, right: f64) -> f64 {
    match kind {
        JoinKind::Inner => inner,
        JoinKind::Left => inner.max(left),
        JoinKind::Right => inner.max(right),
        JoinKind::Full => inner.max(left).max(right),
    }
}

/// A Sort's estimate (cost_sort): N log2 N comparisons before the first row, or, under a
/// LIMIT of `bound` rows much fewer than N, the bounded heap's N log2 (2 × bound).
fn sort(p: &Plan, bound: Option<f64>) -> Estimate {
    let Node::Sort { input, .. } = &p.node else {
        return estimate(p);
    };
    let below = estimate(input);
    let n = below.rows.max(2.0);
    let compare = 2.0 * CPU_OPERATOR_COST;
    let work = match bound {
        Some(b) if 2.0 * b < n => n * (2.0 * b).max(2.0).log2(),
        _ => n * n.log2(),
    };
    let startup = below.total + compare * work;
    Estimate {
        startup,
        total: startup + CPU_OPERATOR_COST * below.rows,
        ..below
    }
}

/// The rows a LIMIT keeps: its count (10 % of the input when not known while planning) after
/// its offset, both as constants.
fn limit_rows(count: &Option<Expr>, offset: &Option<Expr>, input_rows: f64) -> (f64, f64) {
    let number = |e: &Option<Expr>| match e {
        Some(Expr::Const(v)) => scalar(v),
        _ => None,
    };
    let skip = number(offset).unwrap_or(0.0).max(0.0);
    let take = number(count).unwrap_or(input_rows * 0.1).max(0.0);
    (skip, clamp_rows(take.min((input_rows - skip).max(0.0))))
}

/// The estimate of the Sort `sort` read by the LIMIT `limit` (EXPLAIN shows the Sort bounded).
pub fn estimate_limited_sort(sort_plan: &Plan, limit: &Plan) -> Estimate {
    let (Node::Limit { count, offset, .. }, Node::Sort { input, .. }) =
        (&limit.node, &sort_plan.node)
    else {
        return estimate(sort_plan);
    };
    let (skip, rows) = limit_rows(count, offset, estimate(input).rows);
    sort(sort_plan, count.is_some().then_some(skip + rows))
}

/// The table `p` reads its rows from, where it is one table's scan (a filter's conditions are
/// over that table's columns).
fn scanned_table(p: &Plan) -> Option<&Rel> {
    match &p.node {
        Node::SeqScan { rel, .. }
        | Node::IndexScan { rel, .. }
        | Node::IndexRange { rel, .. }
        | Node::TidScan { rel, .. }
        | Node::BitmapHeapScan { rel, .. } => Some(&*rel.rel),
        Node::Filter { input, .. } => scanned_table(input),
        _ => None,
    }
}
