//! EXPLAIN: a plan's shape in PostgreSQL's text format, with PostgreSQL's node names.
//!
//! `EXPLAIN [ ( option [, ...] ) ] statement` and `EXPLAIN ANALYZE statement` plan the
//! statement and become an `Explain` node whose one column is `QUERY PLAN`; its operator
//! (exec/explain.rs) renders the lines here, after running the statement with every operator
//! counted when ANALYZE is on (a data-changing statement really changes rows, in the
//! statement's transaction).
//!
//! The shape follows PostgreSQL's: projections are not nodes, a filter is a `Filter:` line of
//! the node below it, a hash join's inner side sits under a `Hash` node, an index nested loop
//! is a `Nested Loop` whose inner `Index Scan` has an `Index Cond` naming the outer column.
//! Relations appear under their table names (not their aliases: the plan does not keep them).
//! An expression subquery is `(SubPlan N)` in the expression and a `SubPlan N` child of the
//! node that evaluates it (a folded projection's or filter's under the node they fold into),
//! numbered in PostgreSQL's planning order; threadgres runs every subquery per row, so an
//! uncorrelated one is a SubPlan too where PostgreSQL shows an InitPlan evaluated once.
//!
//! `(cost=... rows=... width=...)` are the planner's estimates (plan/cost.rs: PostgreSQL's cost
//! units and selectivities over ANALYZE's statistics); ANALYZE's `actual` figures are measured.

mod expr;

use std::fmt::Write;

use self::expr::*;
use super::{Expr, JoinKind, Node, Plan, SetOpKind};
use crate::sql::quote::quote_ident;
use crate::sql::types::FormatCtx;

/// An EXPLAIN statement: the plan to explain and the options.
#[derive(Debug, Clone)]
pub struct Explain {
    pub plan: Plan,
    pub analyze: bool,
    pub verbose: bool,
    pub costs: bool,
    pub timing: bool,
    pub summary: bool,
    /// How long planning the statement took (SUMMARY's Planning Time).
    pub planning: std::time::Duration,
    /// An error in the options, raised when the statement runs: PostgreSQL checks them in
    /// ExplainQuery, after the extended protocol's Describe has answered.
    pub error: Option<crate::error::PgError>,
}

/// What ANALYZE measured for a plan node, summed over its loops: rows returned, loops (times
/// started), time to each loop's first row and time in all (zero with TIMING off).
#[derive(Debug, Clone, Copy, Default)]
pub struct NodeStat {
    pub rows: u64,
    pub loops: u64,
    pub startup_ns: u64,
    pub total_ns: u64,
    /// A Sort's or hash join's peak bytes held, a hash join's buckets and its build time.
    pub mem_bytes: u64,
    pub buckets: u64,
    pub build_ns: u64,
}

/// ANALYZE's measurements by plan node.
pub type Stats<'a> = &'a dyn Fn(&Plan) -> Option<NodeStat>;

/// One displayed node.
struct Disp<'p> {
    label: String,
    props: Vec<String>,
    children: Vec<Disp<'p>>,
    /// The plan node whose counts are shown, and the one below a folded filter (for "Rows
    /// Removed by Filter").
    stat: Option<&'p Plan>,
    filtered_from: Option<&'p Plan>,
    /// An index-only scan: ANALYZE shows its heap fetches (every row: no visibility map).
    heap_fetches: bool,
    /// ANALYZE's lines of a Sort (its memory) or of a Hash (its hash join's table: the join's
    /// plan node, whose operator measured the build).
    sort_memory: bool,
    hash_of: Option<&'p Plan>,
    /// The plan node whose estimate is shown (a folded Filter's or Project's, not the scan's).
    shown: &'p Plan,
    /// A Sort's LIMIT, which bounds it.
    limited_by: Option<&'p Plan>,
    /// The width of the columns the node above reads, where PostgreSQL's node returns only
    /// those (the input of an Aggregate).
    width: Option<f64>,
    /// The subqueries of this node's expressions (and of the projections and filters folded
    /// into it), by number: PostgreSQL lists them under the node as `SubPlan N`.
    subplans: Vec<(usize, Disp<'p>)>,
}

impl<'p> Disp<'p> {
    fn new(label: impl Into<String>, p: &'p Plan) -> Disp<'p> {
        Disp {
            label: label.into(),
            props: Vec::new(),
            children: Vec::new(),
            stat: Some(p),
            filtered_from: None,
            heap_fetches: false,
            sort_memory: false,
            hash_of: None,
            shown: p,
            limited_by: None,
            width: None,
            subplans: Vec::new(),
        }
    }
}

/// How column references are named while deparsing: the plan whose output `Column(i)` is,
/// the plans of enclosing lateral joins for `Outer(n, i)`, and whether to qualify.
#[derive(Clone)]
struct Cx<'p> {
    input: Option<&'p Plan>,
    outer: Vec<&'p Plan>,
    qualify: bool,
    /// Whether the statement qualifies names (`qualify` is off for an index condition's own
    /// columns, which PostgreSQL writes bare).
    qualify_all: bool,
    fmt: &'p FormatCtx,
    /// The index scans (by address) whose consumers need only indexed columns: PostgreSQL
    /// shows them as Index Only Scans.
    index_only: &'p std::collections::HashSet<usize>,
    /// Each expression subquery's number (by the address of its plan): `(SubPlan N)`.
    subplan_ids: &'p std::collections::HashMap<usize, usize>,
}

impl<'p> Cx<'p> {
    fn with(&self, input: &'p Plan) -> Cx<'p> {
        Cx {
            input: Some(input),
            ..self.clone()
        }
    }
}

/// The width of the columns of `input` that an Aggregate's keys and aggregate calls read.
fn read_width(input: &Plan, group: &[Expr], aggs: &[super::AggCall]) -> f64 {
    let mut read = vec![false; input.columns.len()];
    let exprs = group.iter().chain(aggs.iter().flat_map(|a| {
        a.args
            .iter()
            .chain(&a.filter)
            .chain(a.order.iter().map(|k| &k.expr))
    }));
    for x in exprs {
        x.any(&mut |y| {
            if let Expr::Column(c) = y {
                if let Some(r) = read.get_mut(*c) {
                    *r = true;
                }
            }
            false
        });
    }
    (0..read.len())
        .filter(|&c| read[c])
        .map(|c| super::cost::column_width(input, c))
        .fold(0.0, |a, b| a + b)
}

/// Whether output column `c` of `p` is a table's column (or another input's) passed up
/// unchanged, PostgreSQL's Var, rather than an expression or an aggregate computed on the way.
fn is_var(p: &Plan, c: usize) -> bool {
    if let Some((side, c)) = p.join_column(c) {
        return is_var(side, c);
    }
    match &p.node {
        Node::Project { input, exprs } => match exprs.get(c) {
            Some(Expr::Column(i)) => is_var(input, *i),
            Some(Expr::Outer(..)) => true,
            _ => false,
        },
        Node::Aggregate {
            input, group, aggs, ..
        } => match c.checked_sub(group.len()) {
            None => matches!(&group[c], Expr::Column(i) if is_var(input, *i)),
            Some(a) => aggs
                .get(a)
                .is_some_and(|a| a.func == super::AggFunc::Dependent),
        },
        Node::Filter { input, .. }
        | Node::Sort { input, .. }
        | Node::Limit { input, .. }
        | Node::LockRows { input, .. }
        | Node::Distinct { input, .. } => is_var(input, c),
        Node::Window { input, .. } | Node::ProjectSet { input, .. } => {
            c < input.columns.len() && is_var(input, c)
        }
        _ => true,
    }
}

/// The base relations a plan reads, its subplans' included (PostgreSQL qualifies column names
/// when its range table, which holds the subqueries' relations too, has several).
fn relations(p: &Plan) -> usize {
    node_subqueries(p).into_iter().map(relations).sum::<usize>() + relations_here(p)
}

fn relations_here(p: &Plan) -> usize {
    match &p.node {
        Node::SeqScan { .. }
        | Node::IndexScan { .. }
        | Node::IndexRange { .. }
        | Node::TidScan { .. }
        | Node::BitmapHeapScan { .. }
        | Node::Values(_)
        | Node::Feed(_)
        | Node::Function { .. }
        | Node::Virtual(_)
        | Node::Transition(_)
        | Node::Cte(..)
        | Node::WorkTable(_) => 1,
        Node::Join { left, right, .. } => relations(left) + relations(right),
        Node::HashJoin(j) => relations(&j.left) + relations(&j.right),
        Node::SetOp { left, right, .. } => relations(left) + relations(right),
        Node::RecursiveUnion { init, step, .. } => relations(init) + relations(step),
        Node::Modify(m) => 1 + relations(&m.input).saturating_sub(1),
        Node::Project { input, .. }
        | Node::Filter { input, .. }
        | Node::Sort { input, .. }
        | Node::Limit { input, .. }
        | Node::LockRows { input, .. }
        | Node::Distinct { input, .. }
        | Node::Aggregate { input, .. }
        | Node::Window { input, .. }
        | Node::ProjectSet { input, .. } => relations(input),
        _ => 0,
    }
}

fn scan_name(rel: &crate::sql::engine::Rel, verbose: bool) -> String {
    if verbose {
        format!(
            "{}.{}",
            quote_ident(&rel.name.schema),
            quote_ident(&rel.name.name)
        )
    } else {
        quote_ident(&rel.name.name)
    }
}

/// A scanned table's name, followed by the alias the query gave it.
fn scan_label(rel: &super::ScanRel, verbose: bool) -> String {
    aliased(scan_name(rel, verbose), rel.alias.as_deref())
}

fn aliased(name: String, alias: Option<&str>) -> String {
    match alias {
        Some(a) => format!("{name} {}", quote_ident(a)),
        None => name,
    }
}

/// The alias of the table a data-changing statement's input scans (`UPDATE t AS x`).
fn target_alias(p: &Plan) -> Option<&str> {
    match &p.node {
        Node::SeqScan { rel, .. }
        | Node::IndexScan { rel, .. }
        | Node::IndexRange { rel, .. }
        | Node::TidScan { rel, .. }
        | Node::BitmapHeapScan { rel, .. } => rel.alias.as_deref(),
        Node::Filter { input, .. } | Node::Project { input, .. } => target_alias(input),
        Node::Join { left, .. } => target_alias(left),
        _ => None,
    }
}

/// The expressions a node evaluates itself (not its inputs'), in the order PostgreSQL
/// initializes them: a projection's target list, then its quals.
fn node_exprs(p: &Plan) -> Vec<&Expr> {
    let mut v: Vec<&Expr> = Vec::new();
    match &p.node {
        Node::Project { exprs, .. } => v.extend(exprs),
        Node::Filter { pred, .. } => v.push(pred),
        Node::Join { on, .. } => v.extend(on),
        Node::HashJoin(j) => v.extend(&j.on),
        Node::IndexScan { eq, .. } => v.extend(eq),
        Node::IndexRange { path, .. } => v.extend(path.conds.iter().chain(&path.later)),
        Node::TidScan { cond, .. } => v.push(cond),
        Node::BitmapHeapScan { recheck, .. } => v.extend(recheck),
        Node::Aggregate { group, aggs, .. } => {
            v.extend(group);
            for a in aggs {
                v.extend(&a.args);
                v.extend(&a.filter);
                v.extend(a.order.iter().map(|k| &k.expr));
            }
        }
        Node::Sort { keys, .. } => v.extend(keys.iter().map(|k| &k.expr)),
        Node::Distinct { on: Some(on), .. } => v.extend(on),
        Node::Limit { offset, count, .. } => v.extend(offset.iter().chain(count)),
        Node::Values(rows) => v.extend(rows.iter().flatten()),
        Node::Function { args, scalar, .. } => v.extend(args.iter().chain(scalar)),
        _ => {}
    }
    v
}

/// The plans a node reads rows from.
fn node_inputs(p: &Plan) -> Vec<&Plan> {
    match &p.node {
        Node::Join { left, right, .. } => vec![left, right],
        Node::HashJoin(j) => vec![&j.left, &j.right],
        Node::SetOp { left, right, .. } => vec![left, right],
        Node::RecursiveUnion { init, step, .. } => vec![init, step],
        Node::Modify(m) => vec![&m.input],
        Node::BitmapHeapScan { bitmap, .. } => vec![bitmap],
        Node::ModifyingCtes { ctes, input } => {
            let mut v: Vec<&Plan> = vec![input];
            v.extend(ctes.iter().map(|c| &**c));
            v
        }
        Node::Project { input, .. }
        | Node::Filter { input, .. }
        | Node::Sort { input, .. }
        | Node::Limit { input, .. }
        | Node::LockRows { input, .. }
        | Node::Distinct { input, .. }
        | Node::Aggregate { input, .. }
        | Node::Window { input, .. }
        | Node::ProjectSet { input, .. } => vec![input],
        _ => Vec::new(),
    }
}

/// The subquery plans in a node's own expressions (not those nested inside them).
fn node_subqueries(p: &Plan) -> Vec<&Plan> {
    let mut out = Vec::new();
    for x in node_exprs(p) {
        x.any(&mut |y| {
            if let Expr::Subquery(plan, _) = y {
                out.push(&**plan);
            }
            false
        });
    }
    out
}

/// Numbers the expression subqueries as PostgreSQL's planner does: in the order it plans
/// them (a query's target list before its quals: the plan's nodes top down), a subquery's own
/// subqueries before it (build_subplan numbers a subplan once its query is planned).
fn number_subplans(p: &Plan, ids: &mut std::collections::HashMap<usize, usize>) {
    for sub in node_subqueries(p) {
        number_subplans(sub, ids);
        let n = ids.len() + 1;
        ids.entry(sub as *const Plan as usize).or_insert(n);
    }
    for input in node_inputs(p) {
        number_subplans(input, ids);
    }
}

/// Calls `f` with every subplan of `p`, nested ones included.
fn for_each_subplan(p: &Plan, f: &mut dyn FnMut(&Plan)) {
    for sub in node_subqueries(p) {
        f(sub);
        for_each_subplan(sub, f);
    }
    for input in node_inputs(p) {
        for_each_subplan(input, f);
    }
}

/// A node's display with the subplans of its own expressions under it. Their references to
/// the row they are evaluated on (`Outer(1, i)`) name the columns of the node's input (of the
/// node itself for a join's condition, which sees both sides).
fn build<'p>(p: &'p Plan, cx: &Cx<'p>, e: &Explain) -> Disp<'p> {
    let mut d = build_node(p, cx, e);
    attach_subplans(&mut d, p, cx, e);
    d
}

/// Adds the subplans of `p`'s own expressions to `d`, the display `p` is shown in.
fn attach_subplans<'p>(d: &mut Disp<'p>, p: &'p Plan, cx: &Cx<'p>, e: &Explain) {
    let subs = node_subqueries(p);
    if subs.is_empty() {
        return;
    }
    let row = match node_inputs(p).as_slice() {
        [one] if !matches!(p.node, Node::Join { .. } | Node::HashJoin(_)) => *one,
        _ => p,
    };
    let mut scx = cx.clone();
    scx.input = None;
    scx.outer.push(row);
    let mine: Vec<(usize, Disp)> = subs
        .into_iter()
        .map(|sub| {
            let id = cx
                .subplan_ids
                .get(&(sub as *const Plan as usize))
                .copied()
                .unwrap_or(0);
            (id, build(sub, &scx, e))
        })
        .collect();
    // A projection folded into the node below shows its subplans before that node's (the
    // filter's): PostgreSQL initializes a node's target list before its quals.
    if matches!(p.node, Node::Project { .. }) {
        let below = std::mem::replace(&mut d.subplans, mine);
        d.subplans.extend(below);
    } else {
        d.subplans.extend(mine);
    }
}

fn build_node<'p>(p: &'p Plan, cx: &Cx<'p>, e: &Explain) -> Disp<'p> {
    let here = cx.with(p);
    match &p.node {
        Node::Result => Disp::new("Result", p),
        // EXPLAIN shows the original statement's plan (no rules applied).
        Node::Rules(_) => Disp::new("Rules", p),
        Node::SeqScan { rel, .. } => {
            Disp::new(format!("Seq Scan on {}", scan_label(rel, e.verbose)), p)
        }
        Node::IndexScan { rel, index, eq, .. } => {
            let def = &rel.indexes[*index];
            let mut d = Disp::new(
                format!(
                    "{} using {} on {}",
                    scan_kind(p, cx),
                    quote_ident(&def.name),
                    scan_label(rel, e.verbose)
                ),
                p,
            );
            let bare = Cx {
                qualify: e.verbose,
                ..cx.clone()
            };
            let conds: Vec<String> = def
                .columns
                .iter()
                .zip(eq)
                .map(|(&c, v)| format!("({} = {})", colname(p, c, &bare), expr(v, cx)))
                .collect();
            if !conds.is_empty() {
                d.props.push(format!("Index Cond: {}", quals(&conds)));
            }
            d.heap_fetches = e.analyze && scan_kind(p, cx) == "Index Only Scan";
            d
        }
        Node::TidScan { rel, cond, .. } => {
            let mut d = Disp::new(format!("Tid Scan on {}", scan_label(rel, e.verbose)), p);
            let bare = Cx {
                qualify: e.verbose,
                ..here.clone()
            };
            d.props.push(format!("TID Cond: {}", tid_cond(cond, &bare)));
            d
        }
        Node::IndexRange { rel, path, .. } => {
            let def = &rel.indexes[path.index];
            let mut d = Disp::new(
                format!(
                    "{}{} using {} on {}",
                    scan_kind(p, cx),
                    if path.backward { " Backward" } else { "" },
                    quote_ident(&def.name),
                    scan_label(rel, e.verbose)
                ),
                p,
            );
            let bare = Cx {
                qualify: e.verbose,
                ..here.clone()
            };
            let conds: Vec<String> = path
                .conds
                .iter()
                .chain(&path.later)
                .map(|c| index_cond(c, &bare))
                .collect();
            if !conds.is_empty() {
                d.props.push(format!("Index Cond: {}", quals(&conds)));
            }
            d.heap_fetches = e.analyze && scan_kind(p, cx) == "Index Only Scan";
            d
        }
        Node::BitmapHeapScan {
            rel,
            bitmap,
            recheck,
            ..
        } => {
            let mut d = Disp::new(
                format!("Bitmap Heap Scan on {}", scan_label(rel, e.verbose)),
                p,
            );
            let bare = Cx {
                qualify: e.verbose,
                ..here.clone()
            };
            let conds: Vec<String> = recheck.iter().map(|c| expr(c, &bare)).collect();
            d.props.push(format!("Recheck Cond: {}", quals(&conds)));
            // The index scan's conditions are shown over this scan's row.
            d.children = vec![build(bitmap, &here, e)];
            d
        }
        Node::BitmapIndexScan { rel, index, conds } => {
            let def = &rel.indexes[*index];
            let mut d = Disp::new(
                format!("Bitmap Index Scan on {}", quote_ident(&def.name)),
                p,
            );
            // The conditions name the table's columns: shown as over the heap scan's row.
            let bare = Cx {
                qualify: e.verbose,
                ..cx.clone()
            };
            let conds: Vec<String> = conds.iter().map(|c| index_cond(c, &bare)).collect();
            d.props.push(format!("Index Cond: {}", quals(&conds)));
            d
        }
        Node::Project { input, .. } => match input.node {
            Node::Result => Disp::new("Result", p),
            _ => {
                let mut d = build(input, cx, e);
                d.stat = Some(p);
                d.shown = p;
                d
            }
        },
        Node::Filter { input, pred } => {
            // Filters stacked on one input (a derived table's WHERE under the outer query's,
            // perhaps with the derived table's projection between them) are one qual list in
            // PostgreSQL, which pulls the derived table up: one `Filter:` line, the lowest's
            // conditions first, and the rows removed counted from the node below them all.
            let mut filters = vec![(p, pred, &**input)];
            let mut skipped = Vec::new();
            let mut below = &**input;
            loop {
                match &below.node {
                    Node::Filter { input, pred } => {
                        filters.push((below, pred, &**input));
                        skipped.push(below);
                        below = input;
                    }
                    Node::Project { input, .. } if !matches!(input.node, Node::Result) => {
                        skipped.push(below);
                        below = input;
                    }
                    _ => break,
                }
            }
            let mut d = build(below, cx, e);
            for n in skipped.into_iter().rev() {
                attach_subplans(&mut d, n, cx, e);
            }
            // A scan's own filter names its columns bare (unless VERBOSE), as PostgreSQL's
            // show_scan_qual does; a filter over a join qualifies them.
            let scan = matches!(
                below.node,
                Node::SeqScan { .. }
                    | Node::IndexScan { .. }
                    | Node::IndexRange { .. }
                    | Node::TidScan { .. }
                    | Node::BitmapHeapScan { .. }
                    | Node::Values(_)
                    | Node::Function { .. }
                    | Node::Cte(..)
                    | Node::WorkTable(_)
                    | Node::Virtual(_)
                    | Node::Transition(_)
            );
            let stacked = filters.len() > 1;
            let conds: Vec<String> = filters
                .iter()
                .rev()
                .flat_map(|&(_, pred, input)| {
                    let fcx = Cx {
                        qualify: cx.qualify && (!scan || e.verbose),
                        ..cx.with(input)
                    };
                    match pred {
                        Expr::And(v) if stacked => v.iter().map(|x| expr(x, &fcx)).collect(),
                        pred => vec![expr(pred, &fcx)],
                    }
                })
                .collect();
            d.props.push(format!("Filter: {}", quals(&conds)));
            d.filtered_from = d.stat;
            d.stat = Some(p);
            d.shown = p;
            d
        }
        Node::Values(rows) if rows.len() == 1 => Disp::new("Result", p),
        // A Feed is never explained (COPY has no EXPLAIN).
        Node::Values(_) | Node::Feed(_) => Disp::new("Values Scan on \"*VALUES*\"", p),
        Node::Function { srf, .. } => {
            let alias = p.columns.first().map_or("?", |c| c.name.as_str());
            let name = match srf {
                super::Srf::GenerateSeriesInt
                | super::Srf::GenerateSeriesNumeric
                | super::Srf::GenerateSeriesTimestamp => "generate_series",
                super::Srf::Unnest => "unnest",
                super::Srf::ListeningChannels => "pg_listening_channels",
                super::Srf::GenerateSubscripts => "generate_subscripts",
                super::Srf::PartitionAncestors => "pg_partition_ancestors",
                super::Srf::AclExplode => "aclexplode",
                super::Srf::PartitionTree => "pg_partition_tree",
                super::Srf::Control(f) => f.name(),
                super::Srf::Scalar | super::Srf::User => alias,
                super::Srf::List(f) => f.name(),
            };
            let label = if alias == name {
                format!("Function Scan on {name}")
            } else {
                format!("Function Scan on {name} {}", quote_ident(alias))
            };
            Disp::new(label, p)
        }
        Node::Virtual(_) => Disp::new("Seq Scan on (system view)", p),
        // PostgreSQL 15 names no relation on this line.
        Node::Transition(_) => Disp::new("Named Tuplestore Scan", p),
        Node::Cte(i, _) => Disp::new(format!("CTE Scan on cte_{}", i + 1), p),
        Node::WorkTable(_) => Disp::new("WorkTable Scan", p),
        Node::RecursiveUnion { init, step, .. } => {
            let mut d = Disp::new("Recursive Union", p);
            d.children = vec![build(init, cx, e), build(step, cx, e)];
            d
        }
        Node::ProjectSet { input, .. } => {
            let mut d = Disp::new("ProjectSet", p);
            d.children = vec![build(input, cx, e)];
            d
        }
        Node::Modify(m) => {
            let verb = match m.verb() {
                "INSERT" => "Insert",
                "UPDATE" => "Update",
                _ => "Delete",
            };
            let leaves = match verb {
                "Insert" => Vec::new(),
                _ if m.rel.partition_key().is_some() => super::partitions::target_leaves(&m.input),
                _ => Vec::new(),
            };
            // A partitioned target's alias is its leaves' (`x_1`, `x_2`: x).
            let leaf_alias = leaves.first().map(|r| {
                let shown = r.ref_name();
                shown.rsplit_once('_').map_or(shown, |(b, _)| b)
            });
            let alias = match leaf_alias {
                Some(a) => (a != m.rel.name.name).then_some(a),
                None if m.rel.partition_key().is_some() && verb != "Insert" => None,
                None => target_alias(&m.input),
            };
            let target = aliased(scan_name(&m.rel, e.verbose), alias);
            let mut d = Disp::new(format!("{verb} on {target}"), p);
            // A partitioned target lists the leaves it writes, as PostgreSQL's ModifyTable.
            {
                for r in leaves {
                    d.props
                        .push(format!("{verb} on {}", scan_label(r, e.verbose)));
                }
            }
            d.children = vec![build(&m.input, cx, e)];
            d
        }
        Node::LockRows { input, .. } => {
            let mut d = Disp::new("LockRows", p);
            d.children = vec![build(input, cx, e)];
            d
        }
        Node::Join {
            left,
            right,
            kind,
            on,
            lateral,
        } => {
            let mut d = Disp::new(format!("Nested Loop{}", join_suffix(*kind)), p);
            if let Some(on) = on {
                d.props.push(format!("Join Filter: {}", expr(on, &here)));
            }
            let l = build(left, cx, e);
            let r = if *lateral {
                let mut inner = cx.clone();
                inner.outer.push(left);
                build(right, &inner, e)
            } else {
                build(right, cx, e)
            };
            d.children = vec![l, r];
            d
        }
        Node::HashJoin(j) => {
            let mut d = Disp::new(format!("Hash{}", join_suffix(j.kind)), p);
            let conds: Vec<String> = j
                .left_keys
                .iter()
                .zip(&j.right_keys)
                .map(|(&l, &r)| {
                    format!(
                        "({} = {})",
                        colname(&j.left, l, cx),
                        colname(&j.right, r, cx)
                    )
                })
                .collect();
            d.props.push(format!("Hash Cond: {}", quals(&conds)));
            if let Some(on) = &j.on {
                d.props.push(format!("Join Filter: {}", expr(on, &here)));
            }
            let l = build(&j.left, cx, e);
            let r = build(&j.right, cx, e);
            let mut hash = Disp::new("Hash", &j.right);
            hash.hash_of = Some(p);
            hash.children = vec![r];
            d.children = vec![l, hash];
            d
        }
        Node::Aggregate {
            input, group, aggs, ..
        } => {
            let mut d = if group.is_empty() {
                Disp::new("Aggregate", p)
            } else {
                let mut d = Disp::new("HashAggregate", p);
                d.props
                    .push(format!("Group Key: {}", list(group, &cx.with(input))));
                d
            };
            let mut child = build(input, cx, e);
            child.width = Some(read_width(input, group, aggs));
            d.children = vec![child];
            d
        }
        Node::Window { input, .. } => {
            let mut d = Disp::new("WindowAgg", p);
            d.children = vec![build(input, cx, e)];
            d
        }
        Node::Sort { input, keys } => {
            let mut d = Disp::new("Sort", p);
            d.props.push(format!(
                "Sort Key: {}",
                sort_keys(keys, input, &cx.with(input))
            ));
            d.sort_memory = true;
            let c = build(input, cx, e);
            d.children = vec![c];
            d
        }
        Node::Distinct { input, on, width } => {
            let mut d = match on {
                Some(_) => Disp::new("Unique", p),
                None => {
                    let mut d = Disp::new("HashAggregate", p);
                    let keys: Vec<String> = (0..*width).map(|i| colname(input, i, cx)).collect();
                    d.props.push(format!("Group Key: {}", keys.join(", ")));
                    d
                }
            };
            d.children = vec![build(input, cx, e)];
            d
        }
        Node::Limit { input, .. } => {
            let mut d = Disp::new("Limit", p);
            let mut c = build(input, cx, e);
            if matches!(input.node, Node::Sort { .. }) {
                c.limited_by = Some(p);
            }
            d.children = vec![c];
            d
        }
        Node::SetOp {
            op,
            all,
            left,
            right,
        } => {
            let mut append = Disp::new("Append", p);
            // Nested UNION ALLs (a partitioned table's leaves) are one Append, as
            // PostgreSQL flattens them.
            fn inputs<'p>(q: &'p Plan, out: &mut Vec<&'p Plan>) {
                match &q.node {
                    Node::SetOp {
                        op: SetOpKind::Union,
                        all: true,
                        left,
                        right,
                    } => {
                        inputs(left, out);
                        inputs(right, out);
                    }
                    _ => out.push(q),
                }
            }
            let mut flat = Vec::new();
            if (*op, *all) == (SetOpKind::Union, true) {
                inputs(left, &mut flat);
                inputs(right, &mut flat);
            } else {
                flat = vec![&**left, &**right];
            }
            append.children = flat.into_iter().map(|q| build(q, cx, e)).collect();
            match (op, all) {
                (SetOpKind::Union, true) => append,
                (SetOpKind::Union, false) => {
                    let mut d = Disp::new("HashAggregate", p);
                    let keys: Vec<String> =
                        (0..p.columns.len()).map(|i| colname(left, i, cx)).collect();
                    d.props.push(format!("Group Key: {}", keys.join(", ")));
                    append.stat = None;
                    d.children = vec![append];
                    d
                }
                (kind, all) => {
                    let name = if *kind == SetOpKind::Intersect {
                        "Intersect"
                    } else {
                        "Except"
                    };
                    let mut d = Disp::new(
                        format!("HashSetOp {name}{}", if *all { " All" } else { "" }),
                        p,
                    );
                    append.stat = None;
                    d.children = vec![append];
                    d
                }
            }
        }
        Node::ModifyingCtes { ctes, input } => {
            // PostgreSQL prints each as an init plan ("CTE name"); they follow the query here.
            let mut d = build(input, cx, e);
            for c in ctes {
                d.children.push(build(c, cx, e));
            }
            d
        }
        Node::Explain(_) => Disp::new("Result", p),
    }
}

fn scan_kind(p: &Plan, cx: &Cx) -> &'static str {
    if cx.index_only.contains(&(p as *const Plan as usize)) {
        "Index Only Scan"
    } else {
        "Index Scan"
    }
}

/// Marks `need`'s columns of `e`. A subquery's references to the row are its `Outer`
/// columns: every column any of them names is marked (whatever its level, which may count
/// more than the subquery reads, never less).
fn mark(e: &Expr, need: &mut [bool]) {
    e.any(&mut |x| {
        match x {
            Expr::Column(c) => {
                if let Some(n) = need.get_mut(*c) {
                    *n = true;
                }
            }
            Expr::Subquery(plan, _) => mark_outer(plan, need),
            _ => {}
        }
        false
    });
}

/// Marks the columns that `Outer` references anywhere in `p` (its subqueries included) name.
fn mark_outer(p: &Plan, need: &mut [bool]) {
    for x in node_exprs(p) {
        x.any(&mut |y| {
            match y {
                Expr::Outer(_, c) => {
                    if let Some(n) = need.get_mut(*c) {
                        *n = true;
                    }
                }
                Expr::Subquery(plan, _) => mark_outer(plan, need),
                _ => {}
            }
            false
        });
    }
    for input in node_inputs(p) {
        mark_outer(input, need);
    }
}

/// Finds the index scans whose consumers need only indexed columns (`need`: which output
/// columns of `p` are used above it). Nodes not looked into keep their scans plain.
fn needs(p: &Plan, need: Vec<bool>, out: &mut std::collections::HashSet<usize>) {
    let all = |q: &Plan| vec![true; q.columns.len()];
    match &p.node {
        Node::IndexScan {
            rel,
            index,
            rowid: false,
            ..
        } => {
            let cols = &rel.indexes[*index].columns;
            if rel.indexes[*index].plain()
                && need
                    .iter()
                    .enumerate()
                    .all(|(i, n)| !n || cols.contains(&i))
            {
                out.insert(p as *const Plan as usize);
            }
        }
        Node::IndexRange {
            rel,
            path,
            rowid: false,
        } => {
            let cols = &rel.indexes[path.index].columns;
            if rel.indexes[path.index].plain()
                && need
                    .iter()
                    .enumerate()
                    .all(|(i, n)| !n || cols.contains(&i))
            {
                out.insert(p as *const Plan as usize);
            }
        }
        Node::Project { input, exprs } => {
            let mut n = vec![false; input.columns.len()];
            for (i, e) in exprs.iter().enumerate() {
                if need.get(i).copied().unwrap_or(true) {
                    mark(e, &mut n);
                }
            }
            needs(input, n, out);
        }
        Node::Filter { input, pred } => {
            let mut n = need;
            n.resize(input.columns.len(), true);
            mark(pred, &mut n);
            needs(input, n, out);
        }
        Node::Sort { input, keys } => {
            let mut n = need;
            n.resize(input.columns.len(), true);
            keys.iter().for_each(|k| mark(&k.expr, &mut n));
            needs(input, n, out);
        }
        Node::Limit { input, .. } => {
            let mut n = need;
            n.resize(input.columns.len(), true);
            needs(input, n, out);
        }
        Node::Aggregate {
            input, group, aggs, ..
        } => {
            let mut n = vec![false; input.columns.len()];
            group.iter().for_each(|g| mark(g, &mut n));
            for a in aggs {
                a.args.iter().for_each(|x| mark(x, &mut n));
                if let Some(f) = &a.filter {
                    mark(f, &mut n);
                }
                a.order.iter().for_each(|k| mark(&k.expr, &mut n));
            }
            needs(input, n, out);
        }
        Node::Join {
            left,
            right,
            on,
            lateral,
            ..
        } => {
            let lw = left.columns.len();
            let mut n = need;
            n.resize(p.columns.len(), true);
            if let Some(on) = on {
                mark(on, &mut n);
            }
            if *lateral {
                // The right side reads the left row through outer references.
                n[..lw].iter_mut().for_each(|x| *x = true);
            }
            needs(left, n[..lw].to_vec(), out);
            needs(right, n[lw..].to_vec(), out);
        }
        Node::HashJoin(j) => {
            let lw = j.left.columns.len();
            let mut n = need;
            n.resize(p.columns.len(), true);
            j.conds
                .iter()
                .chain(j.on.as_ref())
                .for_each(|c| mark(c, &mut n));
            needs(&j.left, n[..lw].to_vec(), out);
            needs(&j.right, n[lw..].to_vec(), out);
        }
        Node::Modify(m) => needs(&m.input, all(&m.input), out),
        Node::LockRows { input, .. } | Node::Distinct { input, .. } => {
            needs(input, all(input), out)
        }
        _ => {}
    }
}

fn join_suffix(kind: JoinKind) -> &'static str {
    match kind {
        JoinKind::Inner => " Join",
        JoinKind::Left => " Left Join",
        JoinKind::Right => " Right Join",
        JoinKind::Full => " Full Join",
    }
}

fn fix_nested_loop_label(d: &mut Disp) {
    // PostgreSQL names an inner nested loop just "Nested Loop".
    if d.label == "Nested Loop Join" {
        d.label = "Nested Loop".into();
    }
    for c in &mut d.children {
        fix_nested_loop_label(c);
    }
    for (_, c) in &mut d.subplans {
        fix_nested_loop_label(c);
    }
}

fn write(d: &Disp, depth_col: usize, e: &Explain, stats: Option<Stats>, out: &mut Vec<String>) {
    let mut line = String::new();
    if depth_col > 0 {
        line.push_str(&" ".repeat(depth_col - 4));
        line.push_str("->  ");
    }
    line.push_str(&d.label);
    if e.costs {
        let est = match d.limited_by {
            Some(limit) => super::cost::estimate_limited_sort(d.shown, limit),
            None => super::cost::estimate(d.shown),
        };
        // A Hash node returns nothing until its table is built: all its cost is startup.
        let startup = if d.hash_of.is_some() {
            est.total
        } else {
            est.startup
        };
        let _ = write!(
            line,
            "  (cost={startup:.2}..{:.2} rows={:.0} width={:.0})",
            est.total,
            est.rows,
            d.width.unwrap_or(est.width)
        );
    }
    let count = |p: Option<&Plan>| p.and_then(|p| stats.and_then(|s| s(p)));
    let mut removed = None;
    if e.analyze {
        match count(d.stat) {
            Some(st) if st.loops > 0 => {
                // PostgreSQL shows per-loop averages.
                let loops = st.loops as f64;
                let per = st.rows as f64 / loops;
                if e.timing {
                    let ms = |ns: u64| ns as f64 / 1e6 / loops;
                    // A Hash returns no rows: its time is its join's build, first to last.
                    let (first, total) = match count(d.hash_of) {
                        Some(j) => (j.build_ns, j.build_ns),
                        None => (st.startup_ns, st.total_ns),
                    };
                    let _ = write!(
                        line,
                        " (actual time={:.3}..{:.3} rows={per:.0} loops={})",
                        ms(first),
                        ms(total),
                        st.loops
                    );
                } else {
                    let _ = write!(line, " (actual rows={per:.0} loops={})", st.loops);
                }
                if let Some(below) = count(d.filtered_from) {
                    let gone = below.rows.saturating_sub(st.rows);
                    if gone > 0 {
                        removed = Some(gone as f64 / loops);
                    }
                }
            }
            _ => line.push_str(" (never executed)"),
        }
    }
    out.push(line);
    let pad = " ".repeat(depth_col + 2);
    for p in &d.props {
        // The analyze-only lines come after the filter's count, as in PostgreSQL.
        out.push(format!("{pad}{p}"));
        if p.starts_with("Filter: ") {
            if let Some(n) = removed {
                out.push(format!("{pad}Rows Removed by Filter: {n:.0}"));
            }
        }
    }
    let ran = |p: Option<&Plan>| count(p).filter(|s| s.loops > 0);
    if d.sort_memory && e.analyze {
        if let Some(st) = ran(d.stat) {
            out.push(format!(
                "{pad}Sort Method: quicksort  Memory: {}kB",
                kb(st.mem_bytes)
            ));
        }
    }
    if let (Some(j), true) = (ran(d.hash_of), e.analyze) {
        out.push(format!(
            "{pad}Buckets: {}  Batches: 1  Memory Usage: {}kB",
            j.buckets,
            kb(j.mem_bytes)
        ));
    }
    if d.heap_fetches {
        // PostgreSQL 15 prints the fetches of all loops together (ntuples2 is not divided
        // by nloops as the row counts are).
        if let Some(st) = count(d.filtered_from.or(d.stat)) {
            out.push(format!("{pad}Heap Fetches: {}", st.rows));
        }
    }
    for c in &d.children {
        write(c, depth_col + 6, e, stats, out);
    }
    for (id, sub) in &d.subplans {
        out.push(format!("{pad}SubPlan {id}"));
        write(sub, depth_col + 8, e, stats, out);
    }
}

/// Bytes in kB, rounded up, as PostgreSQL prints memory.
fn kb(bytes: u64) -> u64 {
    bytes.div_ceil(1024)
}

/// The lines of EXPLAIN for `e` (with ANALYZE's counts from `stats`).
pub fn render(e: &Explain, fmt: &FormatCtx, stats: Option<Stats>) -> Vec<String> {
    let qualify = e.verbose || relations(&e.plan) > 1;
    let mut index_only = std::collections::HashSet::new();
    needs(&e.plan, vec![true; e.plan.columns.len()], &mut index_only);
    let mut subplan_ids = std::collections::HashMap::new();
    number_subplans(&e.plan, &mut subplan_ids);
    // A subplan's result is all it returns: its scans are index-only by what it reads.
    for_each_subplan(&e.plan, &mut |sub| {
        needs(sub, vec![true; sub.columns.len()], &mut index_only)
    });
    let cx = Cx {
        input: None,
        outer: Vec::new(),
        qualify,
        qualify_all: qualify,
        fmt,
        index_only: &index_only,
        subplan_ids: &subplan_ids,
    };
    let mut d = build(&e.plan, &cx, e);
    fix_nested_loop_label(&mut d);
    let mut out = Vec::new();
    write(&d, 0, e, stats, &mut out);
    out
}

/// The options of an EXPLAIN statement.
pub fn options(list: &[pg_query::protobuf::Node]) -> crate::error::PgResult<[bool; 5]> {
    use crate::error::{code, PgError};
    use pg_query::protobuf::node::Node as N;
    // analyze, verbose, costs, timing, summary
    let mut analyze = false;
    let mut verbose = false;
    let mut costs = true;
    let mut timing: Option<bool> = None;
    let mut summary: Option<bool> = None;
    for o in list {
        let Some(N::DefElem(d)) = &o.node else {
            continue;
        };
        let arg = d.arg.as_ref().and_then(|a| a.node.as_ref());
        let text = match arg {
            None => None,
            Some(N::String(s)) => Some(s.sval.clone()),
            Some(N::AConst(c)) => match &c.val {
                Some(pg_query::protobuf::a_const::Val::Sval(s)) => Some(s.sval.clone()),
                Some(pg_query::protobuf::a_const::Val::Ival(i)) => Some(i.ival.to_string()),
                Some(pg_query::protobuf::a_const::Val::Boolval(b)) => {
                    Some(if b.boolval { "true" } else { "false" }.into())
                }
                _ => None,
            },
            Some(_) => None,
        };
        let flag = |name: &str| -> crate::error::PgResult<bool> {
            match text.as_deref().map(str::to_ascii_lowercase).as_deref() {
                None | Some("true") | Some("on") | Some("1") => Ok(true),
                Some("false") | Some("off") | Some("0") => Ok(false),
                Some(_) => Err(PgError::new(
                    code::SYNTAX_ERROR,
                    format!("{name} requires a Boolean value"),
                )),
            }
        };
        match d.defname.as_str() {
            "analyze" => analyze = flag("analyze")?,
            "verbose" => verbose = flag("verbose")?,
            "costs" => costs = flag("costs")?,
            "timing" => timing = Some(flag("timing")?),
            "summary" => summary = Some(flag("summary")?),
            "buffers" | "settings" | "wal" => {
                flag(&d.defname)?;
            }
            "format" => {
                let f = text.unwrap_or_default().to_ascii_lowercase();
                if f != "text" {
                    if ["json", "xml", "yaml"].contains(&f.as_str()) {
                        return Err(PgError::feature_not_supported(format!(
                            "EXPLAIN format {} is not supported yet",
                            f.to_uppercase()
                        )));
                    }
                    return Err(PgError::new(
                        code::INVALID_PARAMETER_VALUE,
                        format!("unrecognized value for EXPLAIN option \"format\": \"{f}\""),
                    )
                    .at(super::loc(d.location)));
                }
            }
            other => {
                return Err(PgError::new(
                    code::SYNTAX_ERROR,
                    format!("unrecognized EXPLAIN option \"{other}\""),
                )
                .at(super::loc(d.location)))
            }
        }
    }
    if timing == Some(true) && !analyze {
        return Err(PgError::new(
            code::INVALID_PARAMETER_VALUE,
            "EXPLAIN option TIMING requires ANALYZE",
        ));
    }
    Ok([
        analyze,
        verbose,
        costs,
        timing.unwrap_or(analyze),
        summary.unwrap_or(analyze),
    ])
}
