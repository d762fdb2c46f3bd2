//! Window functions (the window part of PostgreSQL's parse_agg.c): a call with OVER binds its
//! arguments, PARTITION BY, ORDER BY and frame (its own window definition or a named one of the
//! WINDOW clause) while the select list and ORDER BY are bound; it is referenced as a column
//! numbered from `WIN_BASE` until `plan_windows` puts the Window node over the (grouped) rows
//! and renumbers the references to its columns.

use pg_query::protobuf::{self, node::Node as N};

use super::agg::{agg_types, aggregate_func, AggCtx};
use super::clause::sort_key;
use super::func_call::undefined_function;
use super::names::node_location;
use super::nodes::{AggCall, Column, Frame, FrameBound, Node, Plan, WinFunc, WindowCall};
use super::scope::Scope;
use super::{loc, Planner};
use crate::error::{code, PgError, PgResult};
use crate::sql::func;
use crate::sql::func::session_fn;
use crate::sql::plan::Expr;
use crate::sql::types::cast::CoercionContext;
use crate::sql::types::Type;

/// Window calls are bound while the target list is, before the width of the rows they extend
/// is known: they are referenced as `Column(WIN_BASE + k)` and renumbered afterwards.
const WIN_BASE: usize = usize::MAX / 2;

#[derive(Default)]
pub(super) struct WinCtx {
    pub(super) calls: Vec<WindowCall>,
    /// Result types of `calls`.
    pub(super) types: Vec<Type>,
    /// The WINDOW clause: named window definitions.
    pub(super) named: Vec<protobuf::WindowDef>,
}

impl Planner<'_> {
    /// Window functions run over the (grouped) rows, before DISTINCT, ORDER BY and LIMIT: the
    /// Window node for the calls bound with the select list and ORDER BY, whose references
    /// (`WIN_BASE + k`) in `exprs` become its columns. Also whether there were any.
    pub(super) fn plan_windows(&mut self, mut plan: Plan, exprs: &mut [Expr]) -> (Plan, bool) {
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

    /// Binds `f(...) OVER (...)`. Arguments, PARTITION BY and ORDER BY are expressions over the
    /// rows the Window node reads (the grouped rows in a grouped query).
    pub(super) fn bind_window(
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
        // A window call in PARTITION BY or ORDER BY is PostgreSQL's "not allowed in window
        // definitions" (one in the arguments is a nested call).
        self.state.in_window = false;
        let saved = self.state.clause.replace("window definitions");
        let keys = self.bind_window_keys(partition_nodes, order_nodes, scope, agg.as_deref_mut());
        self.state.clause = saved;
        self.state.in_window = true;
        let (partition, order) = keys?;
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
        // A user aggregate (CREATE AGGREGATE) of the name runs as a built-in one does, over
        // the frame; without moving-aggregate support each frame is computed afresh, as
        // PostgreSQL does when a frame's start moves.
        let names = super::names_of(&fc.funcname);
        let user_aggs = if fc.agg_star {
            Vec::new()
        } else {
            self.user_routines(&names, true)
        };
        let mut user = None;
        let sig = if !user_aggs.is_empty() {
            let (u, sig) = self.bind_user_aggregate(&user_aggs, &types, name, fc.location)?;
            user = Some(std::sync::Arc::new(u));
            sig
        } else if let Some(af) = aggregate_func(name, fc.agg_star) {
            agg_types(af, &types, &[], name, fc.location)?
        } else {
            if func::lookup(name).is_empty()
                && session_fn::lookup(name, types.len()).is_none()
                && self.user_routines(&names, false).is_empty()
            {
                return Err(undefined_function(name, &types, fc.location));
            }
            return Err(not_window_function(name, fc.location));
        };
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
                user,
            }),
            args: Vec::new(),
            partition,
            order,
            frame,
        };
        Ok((call, result))
    }

    /// A window's PARTITION BY and ORDER BY, bound over the rows the Window node reads.
    fn bind_window_keys(
        &mut self,
        partition_nodes: &[protobuf::Node],
        order_nodes: &[protobuf::Node],
        scope: &Scope,
        mut agg: Option<&mut AggCtx>,
    ) -> PgResult<(Vec<Expr>, Vec<super::nodes::SortKey>)> {
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
        Ok((partition, order))
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

/// OVER on a function that is neither a window function nor an aggregate.
fn not_window_function(name: &str, location: i32) -> PgError {
    PgError::new(
        code::WRONG_OBJECT_TYPE,
        format!("OVER specified, but {name} is not a window function nor an aggregate function"),
    )
    .at(loc(location))
}
