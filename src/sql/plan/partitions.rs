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

/// The scan of partitioned table `rel` referred to as `refname`: an Append of its leaves.
pub(super) fn append_plan(columns: Vec<Column>, leaves: Vec<Arc<Rel>>, refname: &str) -> Plan {
    let n = leaves.len();
    let scans: Vec<Plan> = leaves
        .into_iter()
        .enumerate()
        .map(|(i, leaf)| {
            let alias: Arc<str> = if n == 1 {
                refname.into()
            } else {
                format!("{refname}_{}", i + 1).into()
            };
            Plan {
                columns: super::modify::table_columns(&leaf),
                node: Node::SeqScan {
                    rel: ScanRel {
                        alias: (*alias != *leaf.name.name).then_some(alias),
                        rel: leaf,
                    },
                    rowid: false,
                },
            }
        })
        .collect();
    chain(columns, scans)
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
        _ => Err(()),
    }
}

fn is_partition_append(p: &Plan) -> bool {
    matches!(p.node, Node::SetOp { .. }) && is_partition_chain(p)
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
        _ => false,
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
        .filter(|s| match &s.node {
            Node::SeqScan { rel, .. } => may_hold(rel, &conds),
            _ => true,
        })
        .collect();
    // Named again among the survivors, as PostgreSQL numbers the partitions it keeps.
    let n = kept.len();
    let kept = kept.into_iter().enumerate().map(|(i, mut s)| {
        if let Node::SeqScan { rel, .. } = &mut s.node {
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
