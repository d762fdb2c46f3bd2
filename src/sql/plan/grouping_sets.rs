//! GROUP BY ROLLUP / CUBE / GROUPING SETS and GROUPING().
//!
//! Planned without a node of their own: the aggregate's input rows are repeated once per
//! grouping set (a ProjectSet of generate_series(1, number of sets) appends the set's number
//! to each row), the grouping expressions not in a row's set are masked to NULL, and the set
//! number is one more grouping key, so that each set's groups stay apart (a NULL of the data
//! and a NULL of "not grouped by this" are different groups, as in PostgreSQL). GROUPING(...)
//! reads the set number through a constant table of bit masks.
//!
//! Bounds: CUBE of at most 12 elements and at most 4096 grouping sets, PostgreSQL's limits
//! (with its errors), so the repeated input is at most 4096 times the input.
//!
//! With no input rows there are no groups, but PostgreSQL still returns one row for each empty
//! grouping set (the grand total of ROLLUP, CUBE's `()`): the aggregate is given those sets'
//! keys (every grouping key NULL, the set number set) to start from when its input is empty.

use pg_query::protobuf::{self, node::Node as N, GroupingSetKind};

use crate::error::{code, PgError, PgResult};
use crate::sql::plan::Expr;
use crate::sql::types::{Array, Type, Value};

use super::{Column, Node, Plan, Srf, SrfCall};

/// PostgreSQL's limit on the grouping sets of one query level.
const MAX_SETS: usize = 4096;
/// PostgreSQL's limit on the elements of one CUBE.
const MAX_CUBE: usize = 12;

/// A GROUP BY clause with grouping sets, before binding: every expression as it occurs, and
/// each set as indexes into that list.
pub(super) struct Expanded<'a> {
    pub leaves: Vec<&'a protobuf::Node>,
    pub sets: Vec<Vec<usize>>,
}

fn too_many() -> PgError {
    PgError::new(
        code::STATEMENT_TOO_COMPLEX,
        format!("too many grouping sets present (maximum {MAX_SETS})"),
    )
}

/// None when the clause has no ROLLUP / CUBE / GROUPING SETS / ().
pub(super) fn expand(clause: &[protobuf::Node]) -> PgResult<Option<Expanded<'_>>> {
    if !clause
        .iter()
        .any(|g| matches!(g.node, Some(N::GroupingSet(_))))
    {
        return Ok(None);
    }
    let mut x = Expanded {
        leaves: Vec::new(),
        sets: vec![Vec::new()],
    };
    // The clause's items combine as a cartesian product of their sets.
    for g in clause {
        let item = item_sets(g, &mut x.leaves)?;
        if x.sets.len().saturating_mul(item.len()) > MAX_SETS {
            return Err(too_many());
        }
        let mut next = Vec::with_capacity(x.sets.len() * item.len());
        for a in &x.sets {
            for b in &item {
                next.push(a.iter().chain(b).copied().collect());
            }
        }
        x.sets = next;
    }
    Ok(Some(x))
}

/// The expressions of one element of ROLLUP / CUBE: a parenthesized list is one unit.
fn unit<'a>(n: &'a protobuf::Node, leaves: &mut Vec<&'a protobuf::Node>) -> Vec<usize> {
    let items: Vec<&protobuf::Node> = match &n.node {
        Some(N::RowExpr(r))
            if r.row_format == protobuf::CoercionForm::CoerceImplicitCast as i32 =>
        {
            r.args.iter().collect()
        }
        _ => vec![n],
    };
    items
        .into_iter()
        .map(|e| {
            leaves.push(e);
            leaves.len() - 1
        })
        .collect()
}

/// The grouping sets one item of GROUP BY (or of GROUPING SETS) stands for.
fn item_sets<'a>(
    n: &'a protobuf::Node,
    leaves: &mut Vec<&'a protobuf::Node>,
) -> PgResult<Vec<Vec<usize>>> {
    let Some(N::GroupingSet(gs)) = &n.node else {
        return Ok(vec![unit(n, leaves)]);
    };
    let kind = GroupingSetKind::try_from(gs.kind).unwrap_or(GroupingSetKind::Undefined);
    Ok(match kind {
        GroupingSetKind::GroupingSetEmpty => vec![Vec::new()],
        GroupingSetKind::GroupingSetRollup => {
            let units: Vec<Vec<usize>> = gs.content.iter().map(|c| unit(c, leaves)).collect();
            (0..=units.len())
                .rev()
                .map(|k| units[..k].concat())
                .collect()
        }
        GroupingSetKind::GroupingSetCube => {
            if gs.content.len() > MAX_CUBE {
                return Err(PgError::new(
                    code::TOO_MANY_COLUMNS,
                    format!("CUBE is limited to {MAX_CUBE} elements"),
                )
                .at(super::loc(gs.location)));
            }
            let units: Vec<Vec<usize>> = gs.content.iter().map(|c| unit(c, leaves)).collect();
            // Every subset, the largest first.
            let mut masks: Vec<u32> = (0..1u32 << units.len()).collect();
            masks.sort_by_key(|m| std::cmp::Reverse(m.count_ones()));
            masks
                .into_iter()
                .map(|m| {
                    units
                        .iter()
                        .enumerate()
                        .filter(|(i, _)| m & (1 << i) != 0)
                        .flat_map(|(_, u)| u.iter().copied())
                        .collect()
                })
                .collect()
        }
        GroupingSetKind::GroupingSetSets => {
            let mut out = Vec::new();
            for c in &gs.content {
                out.extend(item_sets(c, leaves)?);
                if out.len() > MAX_SETS {
                    return Err(too_many());
                }
            }
            out
        }
        // A plain list (not written by users; the parser makes it inside others).
        _ => vec![gs.content.iter().flat_map(|c| unit(c, leaves)).collect()],
    })
}

/// The grouping sets of a planned aggregation, as positions in its grouping keys.
#[derive(Debug, Clone)]
pub(super) struct Sets {
    pub sets: Vec<Vec<usize>>,
    /// Where the set number is among the grouping keys (the last one); None with one set,
    /// which is plain grouping.
    pub set_pos: Option<usize>,
    /// The input column the set number is appended as.
    pub set_col: usize,
}

impl Sets {
    /// GROUPING(args) given the grouping key position of each argument: bit (n-1-i) set when
    /// argument i is not grouped in the row's set.
    pub fn grouping(&self, positions: &[usize]) -> Expr {
        let mask = |set: &Vec<usize>| {
            positions
                .iter()
                .fold(0i32, |acc, p| (acc << 1) | i32::from(!set.contains(p)))
        };
        match self.set_pos {
            None => Expr::Const(Value::Int4(self.sets.first().map(mask).unwrap_or(0))),
            Some(pos) => Expr::element(
                Expr::Const(Value::Array(Box::new(Array::one_dim(
                    Type::INT4,
                    self.sets.iter().map(|s| Value::Int4(mask(s))).collect(),
                )))),
                Expr::Column(pos),
            ),
        }
    }

    /// The group keys (of `width` keys) of the empty grouping sets, for an empty input.
    pub fn empty_set_keys(&self, width: usize) -> Vec<Vec<Value>> {
        let Some(pos) = self.set_pos else {
            return Vec::new(); // one set: plain grouping (an empty one is no GROUP BY)
        };
        self.sets
            .iter()
            .enumerate()
            .filter(|(_, s)| s.is_empty())
            .map(|(i, _)| {
                let mut key = vec![Value::Null; width];
                key[pos] = Value::Int4(i as i32 + 1);
                key
            })
            .collect()
    }

    /// The aggregation's input (each row repeated per set, the set number appended) and its
    /// grouping keys (those not in a row's set NULL).
    pub fn apply(&self, input: Plan, group: Vec<Expr>) -> (Plan, Vec<Expr>) {
        let Some(pos) = self.set_pos else {
            return (input, group);
        };
        let n = self.sets.len() as i32;
        let mut columns = input.columns.clone();
        columns.push(Column {
            name: "?set?".into(),
            ty: Type::INT4,
            typmod: -1,
            origin: None,
        });
        let plan = Plan {
            node: Node::ProjectSet {
                input: Box::new(input),
                srfs: vec![SrfCall {
                    srf: Srf::GenerateSeriesInt,
                    out: Type::INT4,
                    args: vec![Expr::Const(Value::Int4(1)), Expr::Const(Value::Int4(n))],
                    arg_types: vec![Type::INT4, Type::INT4],
                }],
            },
            columns,
        };
        let set = Expr::Column(self.set_col);
        let group = group
            .into_iter()
            .enumerate()
            .map(|(i, e)| {
                if i == pos {
                    return set.clone();
                }
                let member = Array::one_dim(
                    Type::BOOL,
                    self.sets
                        .iter()
                        .map(|s| Value::Bool(s.contains(&i)))
                        .collect(),
                );
                Expr::Case {
                    whens: vec![(
                        Expr::element(Expr::Const(Value::Array(Box::new(member))), set.clone()),
                        e,
                    )],
                    default: None,
                }
            })
            .collect();
        (plan, group)
    }
}

impl super::Planner<'_> {
    /// GROUPING(args): each argument must be one of the query level's grouping expressions.
    pub(super) fn bind_grouping(
        &mut self,
        gf: &protobuf::GroupingFunc,
        agg: Option<&mut super::AggCtx>,
    ) -> PgResult<(Expr, Type)> {
        let not_grouping = || {
            PgError::new(
                code::GROUPING_ERROR,
                "arguments to GROUPING must be grouping expressions of the associated query level",
            )
        };
        if gf.args.len() > 31 {
            return Err(PgError::new(
                code::TOO_MANY_ARGUMENTS,
                "GROUPING must have fewer than 32 arguments",
            )
            .at(super::loc(gf.location)));
        }
        let Some(ctx) = agg else {
            return Err(match self.state.clause {
                Some(clause) => PgError::new(
                    code::GROUPING_ERROR,
                    format!("grouping operations are not allowed in {clause}"),
                ),
                // Where PostgreSQL points: the first argument.
                None => not_grouping().at(super::loc(
                    gf.args
                        .first()
                        .and_then(|a| a.node.as_ref())
                        .map_or(gf.location, super::node_location),
                )),
            }
            .at(super::loc(gf.location)));
        };
        let input = ctx.input.clone();
        let mut positions = Vec::with_capacity(gf.args.len());
        for a in &gf.args {
            let Some(an) = a.node.as_ref() else {
                return Err(not_grouping());
            };
            let (e, _) = self.bind(an, &input, None)?;
            let keys = ctx
                .gsets
                .as_ref()
                .and_then(|g| g.set_pos)
                .unwrap_or(ctx.group.len());
            match ctx.group[..keys]
                .iter()
                .position(|g| super::same_expr(g, &e))
            {
                Some(p) => positions.push(p),
                None => return Err(not_grouping().at(super::loc(super::node_location(an)))),
            }
        }
        let e = match &ctx.gsets {
            Some(gs) => gs.grouping(&positions),
            None => Expr::Const(Value::Int4(0)),
        };
        Ok((e, Type::INT4))
    }
}
