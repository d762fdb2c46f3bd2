//! Index access paths beyond leading-column equality: ranges (`a > 5 AND a <= 10`, BETWEEN),
//! IN lists and `= ANY(array)`, row-value IN (`(a, b) IN ((1, 2), (3, 4))`), an equality
//! prefix followed by a range on the next column, an OR of ranges on that column (`k BETWEEN
//! 1 AND 5 OR k BETWEEN 90 AND 95`: the executor reads each, merged where they overlap), and
//! reads of an index in its order (for `ORDER BY ... LIMIT`, see [`use_index_order`]).
//!
//! `Filter(SeqScan)` becomes `IndexScan` (the old path: every leading column fixed by one
//! equality, the shape pgbench's `-S` runs) or `IndexRange` (everything else here); the
//! conjuncts an index path covers leave the filter and are kept in the path (EXPLAIN's
//! `Index Cond`).
//!
//! An index bound is only used where the index's order agrees exactly with the operator: the
//! comparison operators whose function compares as `engine::Key` does (`types::compare`); the
//! bpchar, regtype and timezone-dependent cross-type comparisons are left to the filter. The
//! executor checks each version it reaches against the entry's key (stale entries), and when
//! it could not use the keys exactly (too many IN combinations) it re-checks the covered
//! conjuncts on the row.

use super::cost::{Methods, DISABLE_COST};
use super::{Expr, Node, Plan, SortKey};
use crate::sql::engine::Rel;
use crate::sql::types::{ops, Type};

/// At most this many equality combinations (the product of IN lists) are probed one by one;
/// past it the executor reads the index range they span and re-checks the conditions.
pub const MAX_PROBES: usize = 10_000;

/// How an index column (or a run of them) is fixed.
#[derive(Debug, Clone)]
pub enum Fixed {
    /// `col = value`.
    Eq(Expr),
    /// `col IN (v1, v2, ...)`.
    In(Vec<Expr>),
    /// `col = ANY(array)`.
    Any(Expr),
    /// Row-value IN over this many consecutive index columns: one tuple per alternative, in
    /// index column order.
    Tuples(usize, Vec<Vec<Expr>>),
}

impl Fixed {
    fn width(&self) -> usize {
        match self {
            Fixed::Tuples(n, _) => *n,
            _ => 1,
        }
    }
}

/// One bound of a range: the value and whether it is included.
#[derive(Debug, Clone)]
pub struct RangeBound {
    pub value: Expr,
    pub inclusive: bool,
}

/// One alternative of an OR of ranges on one column (`k BETWEEN 1 AND 5 OR k > 90`): its
/// bounds, the tightest of each side used, like a path's own.
#[derive(Debug, Clone, Default)]
pub struct Span {
    pub lower: Vec<RangeBound>,
    pub upper: Vec<RangeBound>,
}

/// An index access path.
#[derive(Debug, Clone)]
pub struct IndexPath {
    /// Position in `rel.indexes`.
    pub index: usize,
    /// The leading key columns fixed, in order (each covers `width()` columns).
    pub fixed: Vec<Fixed>,
    /// Bounds on the key column after the fixed ones (the tightest of each side is used).
    pub lower: Vec<RangeBound>,
    pub upper: Vec<RangeBound>,
    /// An OR of ranges on the same column as `lower` and `upper` (one conjunct; PostgreSQL
    /// ORs bitmap index scans for it): the executor reads each alternative within those
    /// bounds, overlapping ones merged so that a row comes once. Empty: no such conjunct.
    pub spans: Vec<Span>,
    /// Read the index backwards (ORDER BY ... DESC).
    pub backward: bool,
    /// The conjuncts this path covers, over the table's row (EXPLAIN's Index Cond, and the
    /// re-check where the keys could not be used exactly).
    pub conds: Vec<Expr>,
    /// Comparisons on later key columns, which bound nothing: checked on each row the scan
    /// reads (PostgreSQL lists them in the Index Cond too).
    pub later: Vec<Expr>,
}

impl IndexPath {
    /// The number of leading key columns fixed.
    pub fn fixed_columns(&self) -> usize {
        self.fixed.iter().map(Fixed::width).sum()
    }
}

/// Comparison operators an index can serve.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Cmp {
    Eq,
    Lt,
    Le,
    Gt,
    Ge,
}

impl Cmp {
    /// The operator with its operands swapped (`5 < a` is `a > 5`).
    fn flip(self) -> Cmp {
        match self {
            Cmp::Eq => Cmp::Eq,
            Cmp::Lt => Cmp::Gt,
            Cmp::Le => Cmp::Ge,
            Cmp::Gt => Cmp::Lt,
            Cmp::Ge => Cmp::Le,
        }
    }
}

/// Whether `f` is operator table `table`'s generic comparison (the function it has for
/// `int4 op int4`, shared by the same-type comparisons of every type and the integer
/// cross-type ones), which orders values as `types::compare`, and so as the index does. The
/// other functions (bpchar's padding-insensitive one, regtype's, the timezone-dependent
/// date/timestamp/timestamptz ones) are left to the filter.
fn in_table(table: &[ops::BinOp], f: &ops::BinFn) -> bool {
    table.iter().any(|op| {
        std::ptr::eq(op.f as *const (), *f as *const ())
            && op.left == Type::INT4
            && op.right == Type::INT4
    })
}

fn cmp_of(f: &ops::BinFn) -> Option<Cmp> {
    if std::ptr::eq(*f as *const (), super::ops_eq_any as *const ()) {
        return Some(Cmp::Eq);
    }
    [
        ("=", Cmp::Eq),
        ("<", Cmp::Lt),
        ("<=", Cmp::Le),
        (">", Cmp::Gt),
        (">=", Cmp::Ge),
    ]
    .into_iter()
    .find(|(name, _)| in_table(ops::binary_operators(name), f))
    .map(|(_, c)| c)
}

/// The comparison `f` is, if it is one an index can serve (`=`, `<`, `<=`, `>`, `>=`).
pub(super) fn comparison_op(f: &ops::BinFn) -> Option<Cmp> {
    cmp_of(f)
}

/// Whether `f` is the operator named `name` (of any of its types).
pub(super) fn is_named(f: &ops::BinFn, name: &str) -> bool {
    in_table(ops::binary_operators(name), f)
}

/// Whether `f` is an `=` an index or a hash table can serve.
pub(super) fn is_equality(f: &ops::BinFn) -> bool {
    cmp_of(f) == Some(Cmp::Eq)
}

/// Whether `f` is the plain `=` of two values of one type (not `= ANY`), which is transitive:
/// `a = b AND b = 1` implies `a = 1`.
pub(super) fn is_plain_equality(f: &ops::BinFn) -> bool {
    in_table(ops::binary_operators("="), f)
}

/// Whether `e` can be evaluated once, before the scan: no columns of the row, no subqueries,
/// nothing volatile.
pub(super) fn row_independent(e: &Expr) -> bool {
    !e.any(&mut |x| matches!(x, Expr::Column(_) | Expr::Subquery(..)))
        && !e.any(&mut |x| {
            matches!(x, Expr::Session { f, .. } if crate::sql::func::session_fn::is_volatile(*f))
        })
}

/// The column `e` reads, where its values order as the column's: the column itself, or a
/// varchar column seen as text (`c_last = 'x'` compares `c_last::text`; varchar and text
/// values are the same strings, so the column's index serves the comparison).
pub(super) fn column_of(e: &Expr) -> Option<usize> {
    match e {
        Expr::Column(c) => Some(*c),
        Expr::Cast {
            expr,
            from: Type::VARCHAR,
            to: Type::TEXT,
            ..
        } => match &**expr {
            Expr::Column(c) => Some(*c),
            _ => None,
        },
        _ => None,
    }
}

/// `col op value` (either way round): (column, operator as seen from the column, value).
fn comparison(e: &Expr) -> Option<(usize, Cmp, &Expr)> {
    let Expr::Bin(f, l, r) = e else { return None };
    let op = cmp_of(f)?;
    if let (Some(c), true) = (column_of(l), row_independent(r)) {
        return Some((c, op, r));
    }
    if let (Some(c), true) = (column_of(r), row_independent(l)) {
        return Some((c, op.flip(), l));
    }
    None
}

/// What one conjunct says about index columns.
enum Qual<'e> {
    Cmp(usize, Cmp, &'e Expr),
    In(usize, &'e [Expr]),
    Any(usize, &'e Expr),
    /// Row-value IN: the columns, and one value per column for each alternative.
    Rows(Vec<usize>, Vec<Vec<&'e Expr>>),
    /// An OR of ranges on one column: each alternative's comparisons.
    Spans(usize, Vec<Vec<(Cmp, &'e Expr)>>),
}

/// An OR whose alternatives each compare one and the same column with row-independent
/// values (`k BETWEEN $1 AND $2 OR k BETWEEN $3 AND $4`, sysbench's select_random_ranges).
fn spans_of(alts: &[Expr]) -> Option<Qual<'_>> {
    let mut col = None;
    let mut spans = Vec::with_capacity(alts.len());
    for alt in alts {
        let parts: Vec<&Expr> = match alt {
            Expr::And(v) => v.iter().collect(),
            other => vec![other],
        };
        let mut span = Vec::with_capacity(parts.len());
        for p in parts {
            let (c, op, v) = comparison(p)?;
            if *col.get_or_insert(c) != c {
                return None;
            }
            span.push((op, v));
        }
        spans.push(span);
    }
    Some(Qual::Spans(col?, spans))
}

fn qual_of(e: &Expr) -> Option<Qual<'_>> {
    if let Some((c, op, v)) = comparison(e) {
        return Some(Qual::Cmp(c, op, v));
    }
    match e {
        Expr::InList {
            expr,
            list,
            eq,
            negated: false,
        } => match column_of(expr) {
            Some(c) if cmp_of(eq) == Some(Cmp::Eq) && list.iter().all(row_independent) => {
                Some(Qual::In(c, list))
            }
            _ => None,
        },
        Expr::ArrayCmp {
            left,
            right,
            op,
            all: false,
        } => match column_of(left) {
            Some(c) if cmp_of(op) == Some(Cmp::Eq) && row_independent(right) => {
                Some(Qual::Any(c, right))
            }
            _ => None,
        },
        Expr::Or(alts) if !alts.is_empty() => rows_of(alts).or_else(|| spans_of(alts)),
        _ => None,
    }
}

/// Row-value IN written out: an OR of alternatives that each fix the same columns by
/// equalities (`(a = 1 AND b = 2) OR (a = 3 AND b = 4)`).
fn rows_of(alts: &[Expr]) -> Option<Qual<'_>> {
    let mut cols: Option<Vec<usize>> = None;
    let mut rows = Vec::with_capacity(alts.len());
    for alt in alts {
        let parts: Vec<&Expr> = match alt {
            Expr::And(v) => v.iter().collect(),
            other => vec![other],
        };
        let mut these = Vec::with_capacity(parts.len());
        let mut vals = Vec::with_capacity(parts.len());
        for p in parts {
            let (c, Cmp::Eq, v) = comparison(p)? else {
                return None;
            };
            these.push(c);
            vals.push(v);
        }
        match &cols {
            None => cols = Some(these),
            Some(cs) if *cs == these => {}
            Some(_) => return None,
        }
        rows.push(vals);
    }
    let cols = cols?;
    // Each column once.
    let mut sorted = cols.clone();
    sorted.sort_unstable();
    sorted.dedup();
    (sorted.len() == cols.len()).then_some(Qual::Rows(cols, rows))
}

/// The best path of `rel`'s indexes for conjuncts `parts`, if any index column is constrained:
/// the path and which conjuncts it covers. `scalar_only` asks for a path the old `IndexScan`
/// can run (equalities only).
pub(super) fn best_path(rel: &Rel, parts: &[Expr]) -> Option<(IndexPath, Vec<usize>)> {
    let mut best: Option<(IndexPath, Vec<usize>, Score)> = None;
    for c in paths(rel, parts) {
        // The first of equally good paths (the lower index position) is kept.
        if best.as_ref().is_none_or(|b| c.2 > b.2) {
            best = Some(c);
        }
    }
    best.map(|(p, u, _)| (p, u))
}

/// How well a path uses its index, without statistics: (whole unique key fixed by
/// equalities, columns fixed, a range on the next one, later key columns compared).
type Score = (bool, usize, bool, usize);

/// Each index's path for `parts` (an index that none of them constrains has none), with the
/// conjuncts it uses and its score.
fn paths(rel: &Rel, parts: &[Expr]) -> Vec<(IndexPath, Vec<usize>, Score)> {
    let ncols = rel.columns.len();
    let plain_quals: Vec<Option<Qual>> = parts.iter().map(qual_of).collect();
    let mut out = Vec::new();
    for (ix, def) in rel.indexes.iter().enumerate() {
        // An expression or partial index sees the conjuncts rewritten over its items (see
        // `partial::index_view`); a plain one, as they are.
        let view = if def.plain() {
            None
        } else {
            match super::partial::index_view(rel, def, parts) {
                Some(v) => Some(v),
                None => continue,
            }
        };
        let view_quals: Vec<Option<Qual>>;
        let (columns, quals, item_types): (&[usize], &[Option<Qual>], &[Type]) = match &view {
            None => (&def.columns, &plain_quals, &[]),
            Some(v) => {
                view_quals = v.parts.iter().map(qual_of).collect();
                (&v.columns, &view_quals, &v.types)
            }
        };
        // Range bounds on a bpchar column would order by bytes: leave those to the filter.
        let usable = |c: usize| match c.checked_sub(ncols) {
            None => rel.columns[c].type_oid != Type::BPCHAR.0,
            Some(k) => item_types.get(k).is_some_and(|t| *t != Type::BPCHAR),
        };
        let mut fixed = Vec::new();
        let mut used = Vec::new();
        let mut pos = 0;
        'cols: while pos < columns.len() {
            let col = columns[pos];
            if !usable(col) {
                break;
            }
            // A single equality first, then IN lists, then row-value IN starting here.
            for (k, q) in quals.iter().enumerate() {
                if let Some(Qual::Cmp(c, Cmp::Eq, v)) = q {
                    if *c == col {
                        fixed.push(Fixed::Eq((*v).clone()));
                        used.push(k);
                        pos += 1;
                        continue 'cols;
                    }
                }
            }
            for (k, q) in quals.iter().enumerate() {
                match q {
                    Some(Qual::In(c, list)) if *c == col => {
                        fixed.push(Fixed::In(list.to_vec()));
                    }
                    Some(Qual::Any(c, arr)) if *c == col => {
                        fixed.push(Fixed::Any((*arr).clone()));
                    }
                    Some(Qual::Rows(cols, rows)) => {
                        let n = cols.len();
                        let span = &columns[pos..(pos + n).min(columns.len())];
                        if span.len() != n || !span.iter().all(|c| cols.contains(c)) {
                            continue;
                        }
                        if !span.iter().all(|&c| usable(c)) {
                            continue;
                        }
                        // Each alternative's values in index column order.
                        let order: Vec<usize> = span
                            .iter()
                            .map(|c| cols.iter().position(|x| x == c).expect("contained"))
                            .collect();
                        let tuples = rows
                            .iter()
                            .map(|r| order.iter().map(|&i| r[i].clone()).collect())
                            .collect();
                        fixed.push(Fixed::Tuples(n, tuples));
                        used.push(k);
                        pos += n;
                        continue 'cols;
                    }
                    _ => continue,
                }
                used.push(k);
                pos += 1;
                continue 'cols;
            }
            break;
        }
        let mut lower = Vec::new();
        let mut upper = Vec::new();
        let mut spans = Vec::new();
        if pos < columns.len() && usable(columns[pos]) {
            let col = columns[pos];
            for (k, q) in quals.iter().enumerate() {
                let Some(Qual::Cmp(c, op, v)) = q else {
                    continue;
                };
                if *c != col {
                    continue;
                }
                let b = |inclusive| RangeBound {
                    value: (*v).clone(),
                    inclusive,
                };
                match op {
                    Cmp::Gt => lower.push(b(false)),
                    Cmp::Ge => lower.push(b(true)),
                    Cmp::Lt => upper.push(b(false)),
                    Cmp::Le => upper.push(b(true)),
                    Cmp::Eq => continue,
                }
                used.push(k);
            }
            // One OR of ranges on the column (a second one stays in the filter).
            let or = quals.iter().enumerate().find_map(|(k, q)| match q {
                Some(Qual::Spans(c, alts)) if *c == col => Some((k, alts)),
                _ => None,
            });
            if let Some((k, alts)) = or {
                spans = alts.iter().map(|a| span(a)).collect();
                used.push(k);
            }
        }
        if used.is_empty() {
            continue;
        }
        // A hash index answers equality of its whole key only.
        let ranged = !lower.is_empty() || !upper.is_empty() || !spans.is_empty();
        if def.hash && (pos < columns.len() || ranged) {
            continue;
        }
        // Comparisons on the key columns after the bounded ones.
        let mut later = Vec::new();
        let after = pos + usize::from(ranged);
        for (k, q) in quals.iter().enumerate() {
            if let Some(Qual::Cmp(c, _, _)) = q {
                if !def.hash
                    && columns.get(after..).is_some_and(|cs| cs.contains(c))
                    && usable(*c)
                    && !used.contains(&k)
                {
                    later.push(k);
                }
            }
        }
        let eq_only = fixed.iter().all(|f| matches!(f, Fixed::Eq(_)));
        let full_unique = def.unique && eq_only && pos == columns.len();
        let score = (full_unique, pos, ranged, later.len());
        used.sort_unstable();
        let conds = used.iter().map(|&k| parts[k].clone()).collect();
        let later_conds = later.iter().map(|&k| parts[k].clone()).collect();
        used.extend(later);
        // A conjunct that is one of the predicate's holds for every row the index has.
        if let Some(v) = &view {
            used.extend(
                v.implied
                    .iter()
                    .filter(|k| !used.contains(k))
                    .collect::<Vec<_>>(),
            );
        }
        out.push((
            IndexPath {
                index: ix,
                fixed,
                lower,
                upper,
                spans,
                backward: false,
                conds,
                later: later_conds,
            },
            used,
            score,
        ));
    }
    out
}

/// One alternative of an OR of ranges as bounds (an equality bounds both sides).
fn span(alt: &[(Cmp, &Expr)]) -> Span {
    let mut s = Span::default();
    for (op, v) in alt {
        let b = |inclusive| RangeBound {
            value: (*v).clone(),
            inclusive,
        };
        match op {
            Cmp::Gt => s.lower.push(b(false)),
            Cmp::Ge => s.lower.push(b(true)),
            Cmp::Lt => s.upper.push(b(false)),
            Cmp::Le => s.upper.push(b(true)),
            Cmp::Eq => {
                s.lower.push(b(true));
                s.upper.push(b(true));
            }
        }
    }
    s
}

fn conjuncts(e: Expr, out: &mut Vec<Expr>) {
    match e {
        Expr::And(list) => {
            for x in list {
                conjuncts(x, out);
            }
        }
        other => out.push(other),
    }
}

fn and_of(mut rest: Vec<Expr>) -> Option<Expr> {
    match rest.len() {
        0 => None,
        1 => rest.pop(),
        _ => Some(Expr::And(rest)),
    }
}

/// The tids a TID scan of a table whose row id is column `rowid` can read for conjunct `e`
/// (`ctid = x`, `ctid = ANY (array)`, `ctid IN (...)`, with `x` not depending on the row):
/// the expressions giving them, and whether each gives an array of tids.
fn tid_condition(e: &Expr, rowid: usize) -> Option<(Vec<Expr>, bool)> {
    let is_ctid = |x: &Expr| {
        matches!(x, Expr::System(c, s)
            if s.kind == super::SysKind::Ctid && matches!(**c, Expr::Column(i) if i == rowid))
    };
    let outside = |x: &Expr| {
        !x.any(&mut |y| matches!(y, Expr::Column(_) | Expr::Subquery(..) | Expr::System(..)))
    };
    match e {
        Expr::Bin(f, l, r) if is_equality(f) => {
            if is_ctid(l) && outside(r) {
                Some((vec![(**r).clone()], false))
            } else if is_ctid(r) && outside(l) {
                Some((vec![(**l).clone()], false))
            } else {
                None
            }
        }
        Expr::ArrayCmp {
            left,
            right,
            op,
            all: false,
        } if is_equality(op) && is_ctid(left) && outside(right) => {
            Some((vec![(**right).clone()], true))
        }
        Expr::InList {
            expr,
            list,
            negated: false,
            ..
        } if is_ctid(expr) && list.iter().all(outside) => Some((list.clone(), false)),
        // `ctid = a OR ctid = b ...`: the tids of each (all single tids, or all arrays).
        Expr::Or(v) => {
            let mut tids = Vec::new();
            let mut kind = None;
            for x in v {
                let (t, array) = tid_condition(x, rowid)?;
                if kind.replace(array).is_some_and(|k| k != array) {
                    return None;
                }
                tids.extend(t);
            }
            Some((tids, kind?))
        }
        _ => None,
    }
}

/// Turns `Filter(SeqScan)` into an index scan when conjuncts of the filter constrain an
/// index's leading columns; the conjuncts the index does not cover stay as a filter. On a
/// table that ANALYZE measured at [`MIN_ROWS_FOR_COSTS`] rows or more, the cheapest of the
/// sequential scan and each index's path by the cost model (plan/cost.rs, PostgreSQL's
/// units), as PostgreSQL chooses; otherwise the best-shaped path (`best_path`), whose index is
/// quick on a small table whatever it holds.
pub(super) fn choose(plan: Plan, m: Methods) -> Plan {
    // A filter over a partitioned table's Append goes into its leaves (partitions.rs).
    let plan = match super::partitions::push_down(plan, m) {
        Ok(p) => return p,
        Err(p) => *p,
    };
    choose_with(plan, Some(m))
}

/// `choose` for one leaf of a partitioned table's Append (the filter already pushed down).
pub(super) fn choose_leaf(plan: Plan, m: Methods) -> Plan {
    choose_with(plan, Some(m))
}

/// `choose`; by the paths' shape alone, without method switches, when `m` is None.
fn choose_with(plan: Plan, m: Option<Methods>) -> Plan {
    let gin = m.is_some();
    let Plan { node, columns } = plan;
    let Node::Filter { input, pred } = node else {
        return Plan { node, columns };
    };
    let Node::SeqScan { rel, rowid } = &input.node else {
        return Plan {
            node: Node::Filter { input, pred },
            columns,
        };
    };
    let (rel, rowid) = (rel.clone(), *rowid);
    let mut parts = Vec::new();
    conjuncts(pred.clone(), &mut parts);
    // A condition on ctid names the rows' slots: a Tid Scan reads just those, whatever else
    // is possible (PostgreSQL's TID path costs a page per tid, below any other).
    if rowid {
        let found = parts.iter().enumerate().find_map(|(k, p)| {
            tid_condition(p, rel.columns.len()).map(|(tids, array)| (k, tids, array))
        });
        if let Some((k, tids, array)) = found {
            let cond = parts.remove(k);
            let scan = Plan {
                columns: columns.clone(),
                node: Node::TidScan {
                    rel,
                    rowid,
                    cond,
                    tids,
                    array,
                },
            };
            return match and_of(parts) {
                None => scan,
                Some(pred) => Plan {
                    columns,
                    node: Node::Filter {
                        input: Box::new(scan),
                        pred,
                    },
                },
            };
        }
    }
    let measured = m.is_some()
        && crate::sql::engine::statistics(&rel).is_some_and(|s| s.rows >= MIN_ROWS_FOR_COSTS);
    let m = m.unwrap_or_default();
    let candidates: Vec<(IndexPath, Vec<usize>)> = if measured {
        paths(&rel, &parts)
            .into_iter()
            .map(|(p, u, _)| (p, u))
            .collect()
    } else {
        best_path(&rel, &parts).into_iter().collect()
    };
    let mut best = Plan {
        node: Node::Filter { input, pred },
        columns,
    };
    // Switched off, a method costs DISABLE_COST more, so it is used only where nothing else
    // is possible (as in PostgreSQL); without costs, the index wins unless switched off.
    let off = |on: bool| if on { 0.0 } else { DISABLE_COST };
    let mut best_cost = if measured {
        super::cost::estimate(&best).total + off(m.seqscan)
    } else {
        // Without costs: any index path (0) before the table (1).
        1.0 + off(m.seqscan)
    };
    for (path, used) in candidates {
        let scan = Plan {
            columns: best.columns.clone(),
            node: scan_node(&rel, rowid, path),
        };
        let candidate = filtered(scan, &parts, &used, &best.columns);
        let cost = if measured {
            super::cost::estimate(&candidate).total
        } else {
            0.0
        } + off(m.indexscan);
        if cost < best_cost {
            (best, best_cost) = (candidate, cost);
        }
    }
    // GIN indexes (`gin_path`): always chosen by cost, as PostgreSQL chooses its bitmap
    // scans, even where the other paths follow rules; only against the sequential scan.
    if gin
        && matches!(&best.node, Node::Filter { input, .. } if matches!(input.node, Node::SeqScan { .. }))
    {
        let seq_cost = super::cost::estimate(&best).total + off(m.seqscan);
        let mut best_cost = seq_cost;
        for (scan, used) in super::gin_path::candidates(&rel, rowid, &parts, &best.columns) {
            let candidate = filtered(scan, &parts, &used, &best.columns);
            let cost = super::cost::estimate(&candidate).total + off(m.bitmapscan);
            if cost < best_cost {
                (best, best_cost) = (candidate, cost);
            }
        }
    }
    best
}

/// `scan` under a Filter of the conjuncts of `parts` it does not serve (`used`: those it does).
fn filtered(scan: Plan, parts: &[Expr], used: &[usize], columns: &[super::Column]) -> Plan {
    let rest: Vec<Expr> = (parts.iter().enumerate())
        .filter(|(k, _)| !used.contains(k))
        .map(|(_, p)| p.clone())
        .collect();
    match and_of(rest) {
        None => scan,
        Some(pred) => Plan {
            columns: columns.to_vec(),
            node: Node::Filter {
                input: Box::new(scan),
                pred,
            },
        },
    }
}

/// The scan node of `path`: the plain `IndexScan` when every key column it fixes is fixed by
/// one equality and there is no range, else an `IndexRange`.
pub(super) fn scan_node(rel: &super::ScanRel, rowid: bool, path: IndexPath) -> Node {
    let simple = path.lower.is_empty()
        && path.upper.is_empty()
        && path.spans.is_empty()
        && path.later.is_empty()
        && path.fixed.iter().all(|f| matches!(f, Fixed::Eq(_)))
        // IndexScan's key is columns of the row; an expression index's path keeps its
        // conjuncts (EXPLAIN's Index Cond) in IndexRange.
        && rel.indexes[path.index].plain()
        // EXPLAIN shows an IndexScan's key as `column = value`: a condition on a column seen
        // through a cast keeps its own text in IndexRange.
        && path.conds.iter().all(|c| {
            matches!(c, Expr::Bin(_, l, r)
                if matches!(**l, Expr::Column(_)) || matches!(**r, Expr::Column(_)))
        });
    if simple {
        Node::IndexScan {
            rel: rel.clone(),
            rowid,
            index: path.index,
            eq: path
                .fixed
                .into_iter()
                .map(|f| match f {
                    Fixed::Eq(e) => e,
                    _ => unreachable!("equalities only"),
                })
                .collect(),
        }
    } else {
        Node::IndexRange {
            rel: rel.clone(),
            rowid,
            path: Box::new(path),
        }
    }
}

/// Tables smaller than this keep their best-shaped index path: either way is quick there, and
/// their plans do not change with each automatic ANALYZE.
const MIN_ROWS_FOR_COSTS: f64 = 1000.0;

/// `ORDER BY` served by an index: `Sort(Project(scan))`, where the sort keys are columns of
/// one table's scan in the order of an index (after the columns a WHERE equality fixes), all
/// ascending with NULLs last or all descending with NULLs first, becomes
/// `Project(scan in index order)` — with a LIMIT above, only the rows wanted are read.
pub(super) fn use_index_order(plan: Plan) -> Plan {
    let Plan { node, columns } = plan;
    let Node::Sort { input, keys } = node else {
        return Plan { node, columns };
    };
    match ordered(&input, &keys) {
        Some(p) => p,
        None => Plan {
            node: Node::Sort { input, keys },
            columns,
        },
    }
}

fn ordered(input: &Plan, keys: &[SortKey]) -> Option<Plan> {
    let Node::Project {
        input: below,
        exprs,
    } = &input.node
    else {
        return None;
    };
    // The filter (if any) and the scan under it.
    let (filter, scan) = match &below.node {
        Node::Filter { input, pred } => (Some(pred), &**input),
        _ => (None, &**below),
    };
    // A sequential scan that the costs chose over an index path may still be read in that
    // index's order, which saves the sort (and with a LIMIT reads only the rows wanted, what
    // PostgreSQL finds by costing the ordered path under the limit).
    if filter.is_some() && matches!(scan.node, Node::SeqScan { .. }) {
        let shaped = choose_with((**below).clone(), None);
        if !matches!(&shaped.node, Node::Filter { input, .. } if matches!(input.node, Node::SeqScan { .. }))
        {
            let p = Plan {
                columns: input.columns.clone(),
                node: Node::Project {
                    input: Box::new(shaped),
                    exprs: exprs.clone(),
                },
            };
            if let Some(o) = ordered(&p, keys) {
                return Some(o);
            }
        }
    }
    let backward = keys[0].desc;
    if keys
        .iter()
        .any(|k| k.desc != backward || k.nulls_first != backward)
    {
        return None;
    }
    // Sort keys as table columns.
    let mut cols = Vec::with_capacity(keys.len());
    for k in keys {
        let Expr::Column(i) = &k.expr else {
            return None;
        };
        let Some(Expr::Column(c)) = exprs.get(*i) else {
            return None;
        };
        cols.push(*c);
    }
    let new_scan = match &scan.node {
        Node::SeqScan { rel, rowid } => {
            let ix = rel.indexes.iter().position(|d| {
                d.plain() && d.columns.len() >= cols.len() && d.columns[..cols.len()] == cols[..]
            })?;
            if cols
                .iter()
                .any(|&c| rel.columns[c].type_oid == Type::BPCHAR.0)
            {
                return None;
            }
            Node::IndexRange {
                rel: rel.clone(),
                rowid: *rowid,
                path: Box::new(IndexPath {
                    index: ix,
                    fixed: Vec::new(),
                    lower: Vec::new(),
                    upper: Vec::new(),
                    spans: Vec::new(),
                    backward,
                    conds: Vec::new(),
                    later: Vec::new(),
                }),
            }
        }
        Node::IndexScan {
            rel,
            rowid,
            index,
            eq,
        } => {
            // The scan's index, or another whose leading columns are the same fixed ones and
            // then the sort columns (`WHERE a = 3 ORDER BY b` reads an index on (a, b)).
            let n = eq.len();
            let fixed_cols = &rel.indexes[*index].columns[..n];
            let value_of = |c: usize| -> Option<Expr> {
                Some(eq[fixed_cols.iter().position(|&x| x == c)?].clone())
            };
            let candidates = std::iter::once(*index).chain(0..rel.indexes.len());
            let ix = candidates.into_iter().find(|&ix| {
                let cols_ix = &rel.indexes[ix].columns;
                rel.indexes[ix].plain()
                    && cols_ix.len() >= n
                    && cols_ix[..n].iter().all(|c| fixed_cols.contains(c))
                    && follows(cols_ix, n, &cols)
                    && !cols
                        .iter()
                        .any(|&c| rel.columns[c].type_oid == Type::BPCHAR.0)
            })?;
            let ix_cols = &rel.indexes[ix].columns[..n];
            let fixed: Vec<Fixed> = ix_cols
                .iter()
                .map(|&c| value_of(c).map(Fixed::Eq))
                .collect::<Option<_>>()?;
            let conds = ix_cols
                .iter()
                .zip(&fixed)
                .map(|(&c, f)| {
                    let Fixed::Eq(v) = f else {
                        unreachable!("equalities")
                    };
                    Expr::Bin(
                        super::ops_eq_any,
                        Box::new(Expr::Column(c)),
                        Box::new(v.clone()),
                    )
                })
                .collect();
            Node::IndexRange {
                rel: rel.clone(),
                rowid: *rowid,
                path: Box::new(IndexPath {
                    index: ix,
                    fixed,
                    lower: Vec::new(),
                    upper: Vec::new(),
                    spans: Vec::new(),
                    backward,
                    conds,
                    later: Vec::new(),
                }),
            }
        }
        Node::IndexRange { rel, rowid, path } => {
            let def = &rel.indexes[path.index];
            // Only single equalities keep the later columns in order.
            if !def.plain()
                || !path.fixed.iter().all(|f| matches!(f, Fixed::Eq(_)))
                || !follows(&def.columns, path.fixed.len(), &cols)
            {
                return None;
            }
            let mut p = (**path).clone();
            p.backward = backward;
            Node::IndexRange {
                rel: rel.clone(),
                rowid: *rowid,
                path: Box::new(p),
            }
        }
        _ => return None,
    };
    let scan = Plan {
        columns: scan.columns.clone(),
        node: new_scan,
    };
    let below = match filter {
        Some(pred) => Plan {
            columns: below.columns.clone(),
            node: Node::Filter {
                input: Box::new(scan),
                pred: pred.clone(),
            },
        },
        None => scan,
    };
    Some(Plan {
        columns: input.columns.clone(),
        node: Node::Project {
            input: Box::new(below),
            exprs: exprs.clone(),
        },
    })
}

/// Whether sort columns `cols` follow the index's order given its first `fixed` columns are
/// fixed by equalities: each sort column is either fixed or the next index column.
fn follows(index_cols: &[usize], fixed: usize, cols: &[usize]) -> bool {
    let mut next = fixed;
    for c in cols {
        if index_cols[..fixed.min(index_cols.len())].contains(c) {
            continue;
        }
        if index_cols.get(next) != Some(c) {
            return false;
        }
        next += 1;
    }
    true
}
