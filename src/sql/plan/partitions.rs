//! A partitioned table in a query: its scan is an Append of its leaf partitions' scans (a
//! chain of UNION ALL nodes, which EXPLAIN prints as one Append, as PostgreSQL flattens its
//! append relations), and a WHERE over it is pushed into each leaf's scan, leaves whose bound
//! cannot hold a row the WHERE's constants allow left out (plan-time partition pruning).
//!
//! Pruning reads conjuncts `key_column op constant` (=, <, <=, >, >=, BETWEEN's two halves),
//! `key_column IN (constants)` and `key_column IS NULL` against each leaf's own bound; a leaf
//! is kept unless its bound provably holds no row they allow (a default partition is always
//! kept; a key expression is not pruned on). The survivors' scans are named as PostgreSQL
//! names them: `p_1`, `p_2`, ... after the table's name in the query, or that name alone for
//! a single survivor.
//!
//! An UPDATE / DELETE target (and a scan whose statement names a system column) carries each
//! row's slot and its leaf's OID in two hidden columns ([`LEAF`]): the writer changes the row
//! in that leaf, and `tableoid` is that column. Its leaves are always numbered (`p_1` even
//! alone), and EXPLAIN lists them under the ModifyTable line, as PostgreSQL does.

use std::cmp::Ordering;
use std::sync::Arc;

use super::cost::Methods;
use super::index_path::{self, Cmp};
use super::{Column, Expr, Node, Plan, ScanRel, SetOpKind};
use crate::catalog::partition::Strategy;
use crate::catalog::IndexItem;
use crate::error::{code, PgError, PgResult};
use crate::sql::engine::Rel;
use crate::sql::partition::{self as part, Bound, Datum, Descriptor};
use crate::sql::types::{self, Value};

/// The leaf partitions under `rel`, in bound order, sub-partitioned ones expanded in place.
pub(super) fn leaves(
    tables: &super::modify::TableCx<'_>,
    rel: &Rel,
    depth: usize,
    out: &mut Vec<Arc<Rel>>,
) -> PgResult<()> {
    if depth > part::MAX_DEPTH {
        return Err(PgError::new(
            code::PROGRAM_LIMIT_EXCEEDED,
            "partition tree too deep",
        ));
    }
    let d = Descriptor::of(tables.catalog, &tables.snap, rel)?;
    for (c, _) in d.parts {
        tables.note_lock(c.oid, crate::txn::lock::LockMode::AccessShare);
        if c.partition_key().is_some() {
            leaves(tables, &c, depth + 1, out)?;
        } else {
            out.push(c);
        }
    }
    Ok(())
}

/// The name of the hidden column a partitioned table's scan carries its rows' leaf in (their
/// `tableoid`) when it carries their slots: a DML target's or a statement's naming a system
/// column. Its scope name (one NUL stripped) is [`LEAF_SCOPE`].
pub const LEAF: &str = "\u{0}\u{0}tableoid";
/// [`LEAF`] as a FROM scope shows it.
pub(super) const LEAF_SCOPE: &str = "\u{0}tableoid";

/// The scan of partitioned table `rel` referred to as `refname`: an Append of its leaves.
/// With `slots`, each leaf's rows carry their slot and then their leaf's OID in two hidden
/// columns (a projection over the leaf's scan, which EXPLAIN does not show), as PostgreSQL's
/// target rows carry ctid and tableoid; `target` names the leaves `p_1`, `p_2`, ... even
/// when there is one, as PostgreSQL names a DML target's.
pub(super) fn append_plan(
    columns: Vec<Column>,
    leaves: Vec<Arc<Rel>>,
    refname: &str,
    slots: bool,
    target: bool,
) -> Plan {
    let n = leaves.len();
    let mut columns = columns;
    if slots {
        columns.push(Column {
            name: super::modify::ROWID.to_string(),
            ty: types::Type::INT8,
            typmod: -1,
            origin: None,
        });
        columns.push(Column {
            name: LEAF.to_string(),
            ty: types::Type::OID,
            typmod: -1,
            origin: None,
        });
    }
    let scans: Vec<Plan> = leaves
        .into_iter()
        .enumerate()
        .map(|(i, leaf)| {
            let alias: Arc<str> = if n == 1 && !target {
                refname.into()
            } else {
                format!("{refname}_{}", i + 1).into()
            };
            let mut cols = super::modify::table_columns(&leaf);
            if slots {
                cols.push(columns[columns.len() - 2].clone());
            }
            let scan = Plan {
                columns: cols,
                node: Node::SeqScan {
                    rel: ScanRel {
                        alias: (*alias != *leaf.name.name).then_some(alias),
                        rel: leaf,
                    },
                    rowid: slots,
                },
            };
            if slots {
                leaf_slots(scan, columns.clone())
            } else {
                scan
            }
        })
        .collect();
    chain(columns, scans)
}

/// A leaf's scan (its columns and slot) with its leaf's OID added after them (`columns`).
fn leaf_slots(scan: Plan, columns: Vec<Column>) -> Plan {
    let oid = match &scan.node {
        Node::SeqScan { rel, .. }
        | Node::IndexScan { rel, .. }
        | Node::IndexRange { rel, .. }
        | Node::TidScan { rel, .. }
        | Node::BitmapHeapScan { rel, .. } => rel.oid,
        _ => 0,
    };
    let width = scan.columns.len();
    let mut exprs: Vec<Expr> = (0..width).map(Expr::Column).collect();
    exprs.push(Expr::Const(Value::Oid(oid)));
    Plan {
        columns,
        node: Node::Project {
            input: Box::new(scan),
            exprs,
        },
    }
}

/// Whether `p` is a leaf's scan with its slot and OID added (`leaf_slots`).
fn is_leaf_slots(p: &Plan) -> bool {
    match &p.node {
        Node::Project { input, exprs } => {
            matches!(exprs.last(), Some(Expr::Const(Value::Oid(_))))
                && matches!(&input.node, Node::SeqScan { rel, rowid: true } if rel.partition_of().is_some())
        }
        _ => false,
    }
}

/// The scans of a DML target's leaves in `input` (through the Append, filters, projections
/// and the left side of joins), in order: for EXPLAIN's `Update on p1 p_1` lines.
pub(crate) fn target_leaves(p: &Plan) -> Vec<&ScanRel> {
    let mut out = Vec::new();
    fn walk<'a>(p: &'a Plan, out: &mut Vec<&'a ScanRel>) {
        match &p.node {
            Node::SetOp {
                op: SetOpKind::Union,
                all: true,
                left,
                right,
            } => {
                walk(left, out);
                walk(right, out);
            }
            Node::Project { input, exprs }
                if matches!(exprs.last(), Some(Expr::Const(Value::Oid(_)))) =>
            {
                if let Some(r) = scan_rel(input) {
                    out.push(r);
                }
            }
            Node::Filter { input, .. } | Node::Project { input, .. } => walk(input, out),
            Node::Join { left, .. } => walk(left, out),
            Node::HashJoin(j) => walk(&j.left, out),
            _ => {}
        }
    }
    walk(p, &mut out);
    out
}

fn scan_rel(p: &Plan) -> Option<&ScanRel> {
    match &p.node {
        Node::SeqScan { rel, rowid: true }
        | Node::IndexScan {
            rel, rowid: true, ..
        }
        | Node::IndexRange {
            rel, rowid: true, ..
        }
        | Node::TidScan {
            rel, rowid: true, ..
        }
        | Node::BitmapHeapScan {
            rel, rowid: true, ..
        } => Some(rel),
        Node::Filter { input, .. } => scan_rel(input),
        _ => None,
    }
}

fn scan_rel_mut(p: &mut Plan) -> Option<&mut ScanRel> {
    match &mut p.node {
        Node::SeqScan { rel, rowid: true }
        | Node::IndexScan {
            rel, rowid: true, ..
        }
        | Node::IndexRange {
            rel, rowid: true, ..
        }
        | Node::TidScan {
            rel, rowid: true, ..
        }
        | Node::BitmapHeapScan {
            rel, rowid: true, ..
        } => Some(rel),
        Node::Filter { input, .. } => scan_rel_mut(input),
        _ => None,
    }
}

/// Names a DML target's leaf scans `refname_1`, `refname_2`, ... in order (after pruning),
/// as PostgreSQL names a target's partitions even when one is left.
pub(super) fn number_targets(p: &mut Plan, refname: &str) {
    fn walk(p: &mut Plan, refname: &str, n: &mut usize) {
        match &mut p.node {
            Node::SetOp {
                op: SetOpKind::Union,
                all: true,
                left,
                right,
            } => {
                walk(left, refname, n);
                walk(right, refname, n);
            }
            Node::Project { input, exprs }
                if matches!(exprs.last(), Some(Expr::Const(Value::Oid(_)))) =>
            {
                if let Some(r) = scan_rel_mut(input) {
                    *n += 1;
                    let name: Arc<str> = format!("{refname}_{n}").into();
                    r.alias = (*name != *r.rel.name.name).then_some(name);
                }
            }
            Node::Filter { input, .. } | Node::Project { input, .. } => walk(input, refname, n),
            Node::Join { left, .. } => walk(left, refname, n),
            Node::HashJoin(j) => walk(&mut j.left, refname, n),
            _ => {}
        }
    }
    walk(p, refname, &mut 0);
}

/// UNION ALL of `plans` (all with `columns`); no rows when there are none.
fn chain(columns: Vec<Column>, plans: Vec<Plan>) -> Plan {
    let mut it = plans.into_iter();
    let Some(mut acc) = it.next() else {
        return Plan {
            columns,
            node: Node::Values(Vec::new()),
        };
    };
    for p in it {
        acc = Plan {
            columns: columns.clone(),
            node: Node::SetOp {
                op: SetOpKind::Union,
                all: true,
                left: Box::new(acc),
                right: Box::new(p),
            },
        };
    }
    acc.columns = columns;
    acc
}

/// The scans of a UNION ALL chain whose every input is a scan of a partition.
fn partition_scans(p: Plan, out: &mut Vec<Plan>) -> Result<(), ()> {
    match p.node {
        Node::SetOp {
            op: SetOpKind::Union,
            all: true,
            left,
            right,
        } => {
            partition_scans(*left, out)?;
            partition_scans(*right, out)
        }
        Node::SeqScan {
            ref rel,
            rowid: false,
        } if rel.partition_of().is_some() => {
            out.push(p);
            Ok(())
        }
        _ if is_leaf_slots(&p) => {
            out.push(p);
            Ok(())
        }
        _ => Err(()),
    }
}

fn is_partition_append(p: &Plan) -> bool {
    (matches!(p.node, Node::SetOp { .. }) && is_partition_chain(p)) || is_leaf_slots(p)
}

fn is_partition_chain(p: &Plan) -> bool {
    match &p.node {
        Node::SetOp {
            op: SetOpKind::Union,
            all: true,
            left,
            right,
        } => is_partition_chain(left) && is_partition_chain(right),
        Node::SeqScan { rel, rowid: false } => rel.partition_of().is_some(),
        _ => is_leaf_slots(p),
    }
}

/// What the WHERE's conjuncts say of one column.
enum Cond {
    Cmp(Cmp, Value),
    In(Vec<Value>),
    IsNull,
}

fn conds_of(pred: &Expr) -> Vec<(usize, Cond)> {
    let parts: Vec<&Expr> = match pred {
        Expr::And(v) => v.iter().collect(),
        other => vec![other],
    };
    let mut out = Vec::new();
    for p in parts {
        match p {
            Expr::Bin(f, l, r) => {
                let Some(op) = index_path::comparison_op(f) else {
                    continue;
                };
                match (
                    index_path::column_of(l),
                    &**r,
                    index_path::column_of(r),
                    &**l,
                ) {
                    (Some(c), Expr::Const(v), _, _) if !v.is_null() => {
                        out.push((c, Cond::Cmp(op, v.clone())))
                    }
                    (_, _, Some(c), Expr::Const(v)) if !v.is_null() => {
                        out.push((c, Cond::Cmp(flip(op), v.clone())))
                    }
                    _ => {}
                }
            }
            Expr::InList {
                expr,
                list,
                negated: false,
                ..
            } => {
                if let Some(c) = index_path::column_of(expr) {
                    let vals: Option<Vec<Value>> = list
                        .iter()
                        .map(|e| match e {
                            Expr::Const(v) => Some(v.clone()),
                            _ => None,
                        })
                        .collect();
                    if let Some(v) = vals {
                        out.push((c, Cond::In(v)));
                    }
                }
            }
            Expr::IsNull(e, false) => {
                if let Some(c) = index_path::column_of(e) {
                    out.push((c, Cond::IsNull));
                }
            }
            _ => {}
        }
    }
    out
}

fn flip(c: Cmp) -> Cmp {
    match c {
        Cmp::Eq => Cmp::Eq,
        Cmp::Lt => Cmp::Gt,
        Cmp::Le => Cmp::Ge,
        Cmp::Gt => Cmp::Lt,
        Cmp::Ge => Cmp::Le,
    }
}

/// Whether `v` satisfies `cond`.
fn satisfies(v: &Value, cond: &Cond) -> bool {
    if v.is_null() {
        return matches!(cond, Cond::IsNull);
    }
    match cond {
        Cond::IsNull => false,
        Cond::In(list) => list
            .iter()
            .any(|x| !x.is_null() && types::compare(v, x) == Ordering::Equal),
        Cond::Cmp(op, x) => {
            let o = types::compare(v, x);
            match op {
                Cmp::Eq => o == Ordering::Equal,
                Cmp::Lt => o == Ordering::Less,
                Cmp::Le => o != Ordering::Greater,
                Cmp::Gt => o == Ordering::Greater,
                Cmp::Ge => o != Ordering::Less,
            }
        }
    }
}

/// Whether some value of range [lo, hi) (hi inclusive when `closed`) may satisfy `cond`.
fn range_may(lo: &Datum, hi: &Datum, closed: bool, cond: &Cond) -> bool {
    let above_lo = |v: &Value, strict: bool| match lo {
        Datum::Min => true,
        Datum::Max => false,
        Datum::Val(l) => {
            let o = types::compare(l, v);
            if strict {
                o == Ordering::Less
            } else {
                o != Ordering::Greater
            }
        }
    };
    let below_hi = |v: &Value| match hi {
        Datum::Max => true,
        Datum::Min => false,
        Datum::Val(h) => {
            let o = types::compare(v, h);
            o == Ordering::Less || (closed && o == Ordering::Equal)
        }
    };
    match cond {
        Cond::IsNull => false,
        Cond::Cmp(Cmp::Eq, v) => above_lo(v, false) && below_hi(v),
        Cond::In(list) => list
            .iter()
            .any(|v| !v.is_null() && above_lo(v, false) && below_hi(v)),
        Cond::Cmp(Cmp::Lt, v) => above_lo(v, true),
        Cond::Cmp(Cmp::Le, v) => above_lo(v, false),
        Cond::Cmp(Cmp::Gt | Cmp::Ge, v) => below_hi(v),
    }
}

/// Whether leaf `rel` may hold a row `conds` allow (by its own bound).
fn may_hold(rel: &Rel, conds: &[(usize, Cond)]) -> bool {
    let Some(of) = rel.partition_of() else {
        return true;
    };
    let key = &of.key;
    let Ok(bound) = part::bound_values(key, &of.bound) else {
        return true;
    };
    let col = |i: usize| match key.items.get(i) {
        Some(IndexItem::Column(c)) => Some(*c),
        _ => None,
    };
    match &bound {
        Bound::Default => true,
        Bound::List(vals) => {
            let Some(c) = col(0) else { return true };
            let mine: Vec<&Cond> = conds.iter().filter(|x| x.0 == c).map(|x| &x.1).collect();
            mine.is_empty() || vals.iter().any(|v| mine.iter().all(|k| satisfies(v, k)))
        }
        Bound::Range { from, to } => {
            let Some(c) = col(0) else { return true };
            let closed = key.items.len() > 1;
            conds
                .iter()
                .filter(|x| x.0 == c)
                .all(|(_, k)| range_may(&from[0], &to[0], closed, k))
        }
        Bound::Hash { .. } => {
            if key.strategy != Strategy::Hash {
                return true;
            }
            let mut values = Vec::new();
            for i in 0..key.items.len() {
                let Some(c) = col(i) else { return true };
                match conds.iter().find(|x| x.0 == c) {
                    Some((_, Cond::Cmp(Cmp::Eq, v))) => values.push(v.clone()),
                    Some((_, Cond::IsNull)) => values.push(Value::Null),
                    _ => return true,
                }
            }
            part::holds(&bound, &values, &key.types)
        }
    }
}

/// `Filter(Append of partition scans)`: the filter pushed into each leaf that may hold a
/// row it allows, each then given its access path; Err(plan) unchanged for other plans (boxed:
/// a plan is large).
pub(super) fn push_down(plan: Plan, m: Methods) -> Result<Plan, Box<Plan>> {
    let Plan { node, columns } = plan;
    let Node::Filter { input, pred } = node else {
        return Err(Box::new(Plan { node, columns }));
    };
    if !is_partition_append(&input) {
        return Err(Box::new(Plan {
            node: Node::Filter { input, pred },
            columns,
        }));
    }
    let mut scans = Vec::new();
    let _ = partition_scans(*input, &mut scans);
    let conds = conds_of(&pred);
    let kept: Vec<Plan> = scans
        .into_iter()
        .filter(|s| match scan_of(s) {
            Some(rel) => may_hold(rel, &conds),
            None => true,
        })
        .collect();
    // Named again among the survivors, as PostgreSQL numbers the partitions it keeps.
    let n = kept.len();
    let kept = kept.into_iter().enumerate().map(|(i, mut s)| {
        if let Some(rel) = scan_of_mut(&mut s) {
            let shown = rel.ref_name().to_string();
            let base = shown
                .rsplit_once('_')
                .filter(|(_, k)| k.parse::<usize>().is_ok())
                .map_or(shown.as_str(), |(b, _)| b)
                .to_string();
            let name: Arc<str> = if n == 1 {
                base.into()
            } else {
                format!("{base}_{}", i + 1).into()
            };
            rel.alias = (*name != *rel.rel.name.name).then_some(name);
        }
        if is_leaf_slots(&s) {
            return filter_slots(s, &pred, m);
        }
        let filter = Plan {
            columns: s.columns.clone(),
            node: Node::Filter {
                input: Box::new(s),
                pred: pred.clone(),
            },
        };
        index_path::choose_leaf(filter, m)
    });
    Ok(chain(columns, kept.collect()))
}

/// The leaf table a partition scan of an Append reads.
fn scan_of(p: &Plan) -> Option<&ScanRel> {
    match &p.node {
        Node::SeqScan { rel, .. } => Some(rel),
        Node::Project { input, .. } => scan_of(input),
        _ => None,
    }
}

fn scan_of_mut(p: &mut Plan) -> Option<&mut ScanRel> {
    match &mut p.node {
        Node::SeqScan { rel, .. } => Some(rel),
        Node::Project { input, .. } => scan_of_mut(input),
        _ => None,
    }
}

/// A filter over a leaf's scan with its slot and OID (`leaf_slots`): pushed under the
/// projection (the leaf's OID a constant there), the scan then given its access path; left
/// above it when a subquery in it could read the OID column.
fn filter_slots(s: Plan, pred: &Expr, m: Methods) -> Plan {
    let Plan { node, columns } = s;
    let Node::Project { input, exprs } = node else {
        unreachable!("checked by is_leaf_slots")
    };
    let width = input.columns.len();
    let oid = exprs.last().cloned().unwrap_or(Expr::Const(Value::Null));
    let subquery = pred.any(&mut |x| matches!(x, Expr::Subquery(..)));
    if subquery {
        let proj = Plan {
            columns: columns.clone(),
            node: Node::Project { input, exprs },
        };
        return Plan {
            columns,
            node: Node::Filter {
                input: Box::new(proj),
                pred: pred.clone(),
            },
        };
    }
    let mut pred = pred.clone();
    pred.walk_mut(&mut |x| {
        if matches!(x, Expr::Column(c) if *c == width) {
            *x = oid.clone();
        }
    });
    let filter = Plan {
        columns: input.columns.clone(),
        node: Node::Filter { input, pred },
    };
    let scan = index_path::choose_leaf(filter, m);
    Plan {
        columns,
        node: Node::Project {
            input: Box::new(scan),
            exprs,
        },
    }
}

/// `oid = oid` for the leaf test of [`Planner::leaf_system_column`].
fn oid_eq(a: &Value, b: &Value, _: &crate::sql::types::FormatCtx) -> PgResult<Value> {
    if a.is_null() || b.is_null() {
        return Ok(Value::Null);
    }
    Ok(Value::Bool(types::compare(a, b) == Ordering::Equal))
}

impl super::Planner<'_> {
    /// System column `kind` (xmin, cmin, xmax, cmax) of a partitioned table's row, whose
    /// `slot` is in the heap of the leaf whose OID is `leaf`: one arm per leaf.
    pub(super) fn leaf_system_column(
        &self,
        table: &Arc<Rel>,
        kind: super::SysKind,
        slot: Expr,
        leaf: Expr,
    ) -> PgResult<Expr> {
        let mut leaves = Vec::new();
        if let Some(tables) = self.tables.as_ref() {
            self::leaves(tables, table, 0, &mut leaves)?;
        }
        let whens = leaves
            .into_iter()
            .map(|l| {
                let test = Expr::Bin(
                    oid_eq,
                    Box::new(leaf.clone()),
                    Box::new(Expr::Const(Value::Oid(l.oid))),
                );
                let e = Expr::System(Box::new(slot.clone()), super::SysColumn { kind, rel: l });
                (test, e)
            })
            .collect();
        Ok(Expr::Case {
            whens,
            default: None,
        })
    }
}

impl super::Planner<'_> {
    /// `pg_partition_tree(arg)` in FROM: four columns (relid, parentrelid, isleaf, level) per
    /// relation of the tree (`exec::partition_route::tree_rows`); None for another function.
    pub(super) fn plan_partition_tree(
        &mut self,
        fc: &pg_query::protobuf::FuncCall,
        rf: &pg_query::protobuf::RangeFunction,
    ) -> PgResult<Option<(Plan, super::Scope)>> {
        let name = super::names_of(&fc.funcname)
            .last()
            .cloned()
            .unwrap_or_default();
        if name != "pg_partition_tree" || fc.args.len() != 1 {
            return Ok(None);
        }
        let Some(arg) = fc.args[0].node.as_ref() else {
            return Ok(None);
        };
        let (e, t) = self.bind(arg, &super::Scope::default(), None)?;
        let e = self.coerce(
            e,
            t,
            types::Type::REGCLASS,
            -1,
            super::CoercionContext::Implicit,
            super::node_location(arg),
        )?;
        let columns = [
            ("relid", types::Type::REGCLASS),
            ("parentrelid", types::Type::REGCLASS),
            ("isleaf", types::Type::BOOL),
            ("level", types::Type::INT4),
        ];
        self.system_srf_item(
            super::Srf::PartitionTree,
            vec![e],
            vec![types::Type::REGCLASS],
            &columns,
            rf,
            &name,
        )
        .map(Some)
    }
}
