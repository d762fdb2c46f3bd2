//! Join planning: WHERE and ON conditions pushed down to the side they are about, then a
//! method per join — index nested loop, hash join, or the plain nested loop.
//!
//! * A conjunct that refers to one side only moves into that side as a filter (where the join
//!   kind allows it: never into the side an outer join fills with NULLs, nor out of an outer
//!   join's ON into its preserved side), so a pushed-down `t.a = 5` can use an index.
//! * An equi-join (`l.x = r.y`, all four kinds) whose inner side is a table with an index on
//!   `y` (INNER and LEFT only) becomes a nested loop that probes the index for each outer row:
//!   a lateral join whose right side is an `IndexScan` keyed by the outer row
//!   (`Expr::Outer(1, x)`), PostgreSQL's parameterized inner index scan.
//! * Otherwise an equi-join becomes a `HashJoin` (exec/hash_join.rs) that hashes the inner
//!   side, keys of NULL never matching.
//! * Joins without an equality, lateral joins and joins with volatile or sub-query conditions
//!   stay nested loops.
//!
//! Equalities are only used as keys between columns of types whose values hash and compare
//! alike (`hashable`): the same type, or two integer types.

use super::cost::Methods;
use super::index_path::{self, row_independent};
use super::{Expr, JoinKind, Node, Plan};
use crate::sql::engine;
use crate::sql::types::Type;

/// A hash join: `right` is hashed on `right_keys`, `left` probes it with `left_keys`.
#[derive(Debug, Clone)]
pub struct HashJoin {
    pub left: Plan,
    pub right: Plan,
    pub kind: JoinKind,
    pub left_keys: Vec<usize>,
    /// Positions in the right side's rows.
    pub right_keys: Vec<usize>,
    /// The equalities the keys stand for, over the joined row (EXPLAIN's Hash Cond; each
    /// candidate pair is checked with the real operator).
    pub conds: Vec<Expr>,
    /// The rest of the join condition (Join Filter).
    pub on: Option<Expr>,
}

/// Types whose equal values compare equal under `types::compare` and hash alike in
/// exec/hash_join.rs.
fn hashable(a: Type, b: Type) -> bool {
    let ints = [Type::INT2, Type::INT4, Type::INT8];
    if ints.contains(&a) && ints.contains(&b) {
        return true;
    }
    a == b
        && [
            Type::FLOAT4,
            Type::FLOAT8,
            Type::NUMERIC,
            Type::TEXT,
            Type::VARCHAR,
            Type::NAME,
            Type::BOOL,
            Type::DATE,
            Type::TIME,
            Type::TIMESTAMP,
            Type::TIMESTAMPTZ,
            Type::UUID,
            Type::BYTEA,
            Type::OID,
        ]
        .contains(&a)
}

fn conjuncts(e: Expr, out: &mut Vec<Expr>) {
    match e {
        Expr::And(list) => list.into_iter().for_each(|x| conjuncts(x, out)),
        other => out.push(other),
    }
}

fn and_of(mut v: Vec<Expr>) -> Option<Expr> {
    match v.len() {
        0 => None,
        1 => v.pop(),
        _ => Some(Expr::And(v)),
    }
}

/// Which sides a conjunct refers to: (left, right); None when it cannot move (subqueries,
/// volatile functions).
fn sides(e: &Expr, lw: usize) -> Option<(bool, bool)> {
    if e.any(&mut |x| matches!(x, Expr::Subquery(..))) || !volatile_free(e) {
        return None;
    }
    let (mut l, mut r) = (false, false);
    e.any(&mut |x| {
        if let Expr::Column(c) = x {
            if *c < lw {
                l = true;
            } else {
                r = true;
            }
        }
        false
    });
    Some((l, r))
}

fn volatile_free(e: &Expr) -> bool {
    // row_independent also rejects columns; only volatility matters here.
    let mut clone = e.clone();
    clone.walk_mut(&mut |x| {
        if matches!(x, Expr::Column(_)) {
            *x = Expr::Const(crate::sql::types::Value::Null);
        }
    });
    row_independent(&clone)
}

fn has_outer(e: &Expr) -> bool {
    e.any(&mut |x| matches!(x, Expr::Outer(..)))
}

fn shift(mut e: Expr, by: usize) -> Expr {
    e.walk_mut(&mut |x| {
        if let Expr::Column(c) = x {
            *c -= by;
        }
    });
    e
}

/// `plan` with `conds` added as a filter (then an index chosen for it).
fn filtered(plan: Plan, conds: Vec<Expr>, m: Methods) -> Plan {
    index_path::choose(with_filter(plan, conds), m)
}

/// `plan` with `conds` added to its filter, no index chosen yet (a join's inner side may still
/// become an index probe keyed by the outer row, which can use the same index better).
fn with_filter(plan: Plan, conds: Vec<Expr>) -> Plan {
    let Some(pred) = and_of(conds) else {
        return plan;
    };
    let (input, pred) = match plan.node {
        Node::Filter { input, pred: old } => {
            let mut all = Vec::new();
            conjuncts(old, &mut all);
            conjuncts(pred, &mut all);
            (input, and_of(all).expect("not empty"))
        }
        node => (
            Box::new(Plan {
                node,
                columns: plan.columns.clone(),
            }),
            pred,
        ),
    };
    Plan {
        columns: plan.columns,
        node: Node::Filter { input, pred },
    }
}

/// Adds to `parts` (a WHERE's conjuncts) the `column = value` each implies through column
/// equalities (PostgreSQL's equivalence classes, for constants): `w_id = 1 AND c_w_id = w_id`
/// gives `c_w_id = 1`, which lets the scan of c's table use an index on c_w_id instead of
/// reading every row and joining. An equality of two columns that both get a value that way
/// says nothing more and is dropped, as PostgreSQL drops it (the sides then join without
/// keys: a nested loop over two lookups). Only the plain `=` of one type is followed: it is
/// transitive and strict (a NULL makes both conditions fail), so the result is unchanged.
fn derive_constants(parts: &mut Vec<Expr>, columns: &[super::Column]) {
    // Classes of columns joined by `=`, by union-find over column positions.
    let mut parent: Vec<usize> = (0..columns.len()).collect();
    fn root(p: &mut [usize], mut x: usize) -> usize {
        while p[x] != x {
            p[x] = p[p[x]];
            x = p[x];
        }
        x
    }
    let mut joined = false;
    for e in parts.iter() {
        if let Expr::Bin(f, a, b) = e {
            if let (Expr::Column(x), Expr::Column(y)) = (&**a, &**b) {
                if index_path::is_plain_equality(f)
                    && *x < columns.len()
                    && *y < columns.len()
                    && columns[*x].ty == columns[*y].ty
                {
                    let (rx, ry) = (root(&mut parent, *x), root(&mut parent, *y));
                    parent[rx] = ry;
                    joined = true;
                }
            }
        }
    }
    if !joined {
        return;
    }
    // The first `column = value` of each class, and the columns that already have one.
    let mut known: Vec<(usize, usize, Expr)> = Vec::new();
    let mut fixed = vec![false; columns.len()];
    // How many columns of each class (by root) have a value of their own.
    let mut given = vec![0usize; columns.len()];
    for e in parts.iter() {
        let Expr::Bin(f, a, b) = e else { continue };
        if !index_path::is_plain_equality(f) {
            continue;
        }
        let (c, v) = match (&**a, &**b) {
            (Expr::Column(c), v) if row_independent(v) => (*c, e),
            (v, Expr::Column(c)) if row_independent(v) => (*c, e),
            _ => continue,
        };
        if c >= columns.len() {
            continue;
        }
        let r = root(&mut parent, c);
        if !fixed[c] {
            given[r] += 1;
        }
        fixed[c] = true;
        if !known.iter().any(|(k, ..)| *k == r) {
            known.push((r, c, v.clone()));
        }
    }
    for (c, done) in fixed.iter_mut().enumerate() {
        if *done {
            continue;
        }
        let r = root(&mut parent, c);
        if let Some((_, from, e)) = known.iter().find(|(k, ..)| *k == r) {
            let mut derived = e.clone();
            derived.walk_mut(&mut |x| {
                if matches!(x, Expr::Column(k) if *k == *from) {
                    *x = Expr::Column(c);
                }
            });
            parts.push(derived);
            *done = true;
        }
    }
    parts.retain(|e| match e {
        Expr::Bin(f, a, b) => match (&**a, &**b) {
            (Expr::Column(x), Expr::Column(y)) => {
                !(index_path::is_plain_equality(f)
                    && *x < columns.len()
                    && *y < columns.len()
                    && columns[*x].ty == columns[*y].ty
                    && fixed[*x]
                    && fixed[*y]
                    // With two values given in one class, `x = y` may be what says they
                    // must agree.
                    && given[root(&mut parent, *x)] == 1)
            }
            _ => true,
        },
        _ => true,
    });
}

/// Plans the joins of a FROM clause and its WHERE: `plan` is the FROM tree, with the WHERE
/// filter over it if there is one.
pub(super) fn optimize(plan: Plan, m: Methods) -> Plan {
    let Plan { node, columns } = plan;
    match node {
        Node::Filter { input, pred } if matches!(input.node, Node::Join { .. }) => {
            let Node::Join {
                left,
                right,
                kind,
                on,
                lateral,
            } = input.node
            else {
                unreachable!("matched above")
            };
            let lw = left.columns.len();
            let mut parts = Vec::new();
            conjuncts(pred, &mut parts);
            // An inner join's ON says what its WHERE would: one list, so that constants flow
            // through the equalities of both.
            let on = match (kind, on) {
                (JoinKind::Inner, Some(on)) => {
                    conjuncts(on, &mut parts);
                    None
                }
                (_, on) => on,
            };
            derive_constants(&mut parts, &input.columns);
            let (mut to_left, mut to_right, mut to_on, mut rest) =
                (Vec::new(), Vec::new(), Vec::new(), Vec::new());
            for p in parts {
                match sides(&p, lw) {
                    Some((_, false)) if matches!(kind, JoinKind::Inner | JoinKind::Left) => {
                        to_left.push(p)
                    }
                    Some((false, true))
                        if matches!(kind, JoinKind::Inner | JoinKind::Right)
                            && !(lateral && has_outer(&p)) =>
                    {
                        to_right.push(shift(p, lw))
                    }
                    Some(_) if kind == JoinKind::Inner => to_on.push(p),
                    _ => rest.push(p),
                }
            }
            let mut on_parts = Vec::new();
            if let Some(on) = on {
                conjuncts(on, &mut on_parts);
            }
            on_parts.extend(to_on);
            let join = join(
                with_filter(*left, to_left),
                with_filter(*right, to_right),
                kind,
                and_of(on_parts),
                lateral,
                input.columns,
                m,
            );
            match and_of(rest) {
                None => join,
                Some(pred) => Plan {
                    columns,
                    node: Node::Filter {
                        input: Box::new(join),
                        pred,
                    },
                },
            }
        }
        Node::Join {
            left,
            right,
            kind: JoinKind::Inner,
            on: Some(on),
            lateral,
        } => optimize(
            Plan {
                columns: columns.clone(),
                node: Node::Filter {
                    input: Box::new(Plan {
                        columns,
                        node: Node::Join {
                            left,
                            right,
                            kind: JoinKind::Inner,
                            on: None,
                            lateral,
                        },
                    }),
                    pred: on,
                },
            },
            m,
        ),
        Node::Join {
            left,
            right,
            kind,
            on,
            lateral,
        } => join(*left, *right, kind, on, lateral, columns, m),
        node => Plan { node, columns },
    }
}

/// One join, its sides planned first: ON conjuncts pushed down where allowed, then a method.
fn join(
    left: Plan,
    right: Plan,
    kind: JoinKind,
    on: Option<Expr>,
    lateral: bool,
    columns: Vec<super::Column>,
    m: Methods,
) -> Plan {
    let left = optimize(left, m);
    let right = optimize(right, m);
    let lw = left.columns.len();
    let mut parts = Vec::new();
    if let Some(on) = on {
        conjuncts(on, &mut parts);
    }
    let (mut to_left, mut to_right, mut rest) = (Vec::new(), Vec::new(), Vec::new());
    for p in parts {
        match sides(&p, lw) {
            // A condition on neither side (a constant) stays.
            Some((true, false)) if matches!(kind, JoinKind::Inner | JoinKind::Right) => {
                to_left.push(p)
            }
            Some((false, true))
                if matches!(kind, JoinKind::Inner | JoinKind::Left)
                    && !(lateral && has_outer(&p)) =>
            {
                to_right.push(shift(p, lw))
            }
            _ => rest.push(p),
        }
    }
    let left = filtered(left, to_left, m);
    let right = with_filter(right, to_right);
    if lateral {
        return nested(
            left,
            index_path::choose(right, m),
            kind,
            and_of(rest),
            lateral,
            columns,
        );
    }
    // Equi-join keys: (conjunct, left column, right column).
    let mut keys: Vec<(usize, usize, usize)> = Vec::new();
    for (k, p) in rest.iter().enumerate() {
        let Expr::Bin(f, a, b) = p else { continue };
        if !index_path::is_equality(f) {
            continue;
        }
        let (l, r) = match (&**a, &**b) {
            (Expr::Column(x), Expr::Column(y)) if *x < lw && *y >= lw => (*x, *y - lw),
            (Expr::Column(y), Expr::Column(x)) if *x < lw && *y >= lw => (*x, *y - lw),
            _ => continue,
        };
        if hashable(left.columns[l].ty, right.columns[r].ty) {
            keys.push((k, l, r));
        }
    }
    // An index probe per outer row when the outer side is small beside the inner table (or
    // there is no equality to hash on).
    if matches!(kind, JoinKind::Inner | JoinKind::Left) {
        if let Some((probe, used)) = index_probe(&right, &rest, lw) {
            if keys.is_empty() || est(&left) * 4.0 <= est(&right).max(table_rows(&right)) {
                let rest = rest
                    .into_iter()
                    .enumerate()
                    .filter(|(k, _)| !used.contains(k))
                    .map(|(_, p)| p)
                    .collect();
                return nested(left, probe, kind, and_of(rest), true, columns);
            }
        }
    }
    let right = index_path::choose(right, m);
    if keys.is_empty() {
        return nested(left, right, kind, and_of(rest), lateral, columns);
    }
    let mut conds = Vec::new();
    let mut others = Vec::new();
    for (k, p) in rest.into_iter().enumerate() {
        if keys.iter().any(|(i, ..)| *i == k) {
            conds.push(p);
        } else {
            others.push(p);
        }
    }
    let left_keys: Vec<usize> = keys.iter().map(|k| k.1).collect();
    let right_keys: Vec<usize> = keys.iter().map(|k| k.2).collect();
    // PostgreSQL weighs costs; without statistics, swap only for a clearly smaller left side.
    if est(&left) * 4.0 >= est(&right) {
        return Plan {
            columns,
            node: Node::HashJoin(Box::new(HashJoin {
                left,
                right,
                kind,
                left_keys,
                right_keys,
                conds,
                on: and_of(others),
            })),
        };
    }
    // The smaller side is the one hashed: swap the sides, and put the columns back in order
    // above the join.
    let rw = right.columns.len();
    let remap = |mut e: Expr| {
        e.walk_mut(&mut |x| {
            if let Expr::Column(c) = x {
                *c = if *c < lw { *c + rw } else { *c - lw };
            }
        });
        e
    };
    let kind = match kind {
        JoinKind::Left => JoinKind::Right,
        JoinKind::Right => JoinKind::Left,
        k => k,
    };
    let swapped_columns = right.columns.iter().chain(&left.columns).cloned().collect();
    let join = Plan {
        columns: swapped_columns,
        node: Node::HashJoin(Box::new(HashJoin {
            left: right,
            right: left,
            kind,
            left_keys: right_keys,
            right_keys: left_keys,
            conds: conds.into_iter().map(remap).collect(),
            on: and_of(others).map(remap),
        })),
    };
    Plan {
        columns,
        node: Node::Project {
            input: Box::new(join),
            exprs: (rw..rw + lw).chain(0..rw).map(Expr::Column).collect(),
        },
    }
}

/// The rows the planner expects of a plan (plan/cost.rs).
fn est(p: &Plan) -> f64 {
    super::cost::estimate(p).rows
}

/// The row slots of the table a side scans (0 when it is not a table).
fn table_rows(p: &Plan) -> f64 {
    match &p.node {
        Node::SeqScan { rel, .. } => engine::versions(rel) as f64,
        Node::Filter { input, .. } => table_rows(input),
        _ => 0.0,
    }
}

fn nested(
    left: Plan,
    right: Plan,
    kind: JoinKind,
    on: Option<Expr>,
    lateral: bool,
    columns: Vec<super::Column>,
) -> Plan {
    Plan {
        columns,
        node: Node::Join {
            left: Box::new(left),
            right: Box::new(right),
            kind,
            on,
            lateral,
        },
    }
}

/// The right side as an index scan keyed by the outer row, when it is a table (with a filter
/// of its own, perhaps) with an index that join conjuncts of `rest` (over the joined row; the
/// left side is `lw` columns wide) constrain with the outer row's values: the new right side
/// (a lateral one, reading the outer row as `Outer(1, _)`) and the conjuncts of `rest` its
/// index covers. Its own filter's conjuncts may use the index too; the others stay its filter.
fn index_probe(right: &Plan, rest: &[Expr], lw: usize) -> Option<(Plan, Vec<usize>)> {
    let (scan, filter) = match &right.node {
        Node::SeqScan { .. } => (right, None),
        Node::Filter { input, pred } if matches!(input.node, Node::SeqScan { .. }) => {
            (&**input, Some(pred))
        }
        _ => return None,
    };
    let Node::SeqScan { rel, rowid } = &scan.node else {
        return None;
    };
    // The probe runs inside the join's lateral side, one outer level deeper: a filter's
    // references to enclosing queries (a correlated subquery's `o_d_id = outer.c_d_id`) move
    // one level out, so that they can key the index beside the join's own columns. A subquery
    // in the filter would need its own references moved too: such a side is not probed.
    if filter.is_some_and(|f| f.any(&mut |x| matches!(x, Expr::Subquery(..)))) {
        return None;
    }
    let mut parts = Vec::new();
    if let Some(f) = filter {
        let mut f = f.clone();
        f.walk_mut(&mut |x| {
            if let Expr::Outer(level, _) = x {
                *level += 1;
            }
        });
        conjuncts(f, &mut parts);
    }
    let own = parts.len();
    // Join conjuncts as the inner side sees them: left columns are the outer row.
    let mut from_rest = Vec::new();
    for (k, p) in rest.iter().enumerate() {
        if sides(p, lw) != Some((true, true)) {
            continue;
        }
        let mut e = p.clone();
        e.walk_mut(&mut |x| match x {
            Expr::Column(c) => {
                *x = if *c < lw {
                    Expr::Outer(1, *c)
                } else {
                    Expr::Column(*c - lw)
                };
            }
            // An enclosing query's column, one level further out inside the probe.
            Expr::Outer(level, _) => *level += 1,
            _ => {}
        });
        parts.push(e);
        from_rest.push(k);
    }
    let (path, used) = index_path::best_path(rel, &parts)?;
    if !used.iter().any(|&u| u >= own) {
        return None;
    }
    let probe = Plan {
        columns: scan.columns.clone(),
        node: index_path::scan_node(rel, *rowid, path),
    };
    let left_over: Vec<Expr> = parts[..own]
        .iter()
        .enumerate()
        .filter(|(k, _)| !used.contains(k))
        .map(|(_, p)| p.clone())
        .collect();
    let probe = match and_of(left_over) {
        Some(pred) => Plan {
            columns: right.columns.clone(),
            node: Node::Filter {
                input: Box::new(probe),
                pred,
            },
        },
        None => probe,
    };
    let covered = used
        .into_iter()
        .filter(|&u| u >= own)
        .map(|u| from_rest[u - own])
        .collect();
    Some((probe, covered))
}
