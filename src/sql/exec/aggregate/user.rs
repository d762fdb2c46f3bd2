//! The state of a user aggregate (CREATE AGGREGATE) in one group: its transition function
//! is called per input row as PostgreSQL's advance_transition_function calls it, and its
//! final function once at the end.

use std::cmp::Ordering;

use crate::error::{PgError, PgResult};
use crate::sql::exec::EvalCx;
use crate::sql::plan::{AggCall, UserAgg};
use crate::sql::types::Value;

#[derive(Clone)]
pub(crate) struct UserState {
    /// Whether the initial state has been set (it is evaluated at the first use).
    started: bool,
    /// A strict transition function without INITCOND: no input has been taken yet, and the
    /// first non-null one becomes the state.
    no_value: bool,
    state: Value,
    /// With ORDER BY in the call: the (sort keys, arguments) of each input, run at the end.
    pending: Vec<(Vec<Value>, Vec<Value>)>,
}

impl Default for UserState {
    fn default() -> Self {
        UserState {
            started: false,
            no_value: false,
            state: Value::Null,
            pending: Vec::new(),
        }
    }
}

fn spec(a: &AggCall) -> PgResult<&UserAgg> {
    a.user
        .as_deref()
        .ok_or_else(|| PgError::internal("a user aggregate without its functions"))
}

fn start(s: &mut UserState, u: &UserAgg, cx: &mut EvalCx) -> PgResult<()> {
    if !s.started {
        s.started = true;
        match &u.init {
            Some(e) => s.state = e.eval(&[], cx)?,
            None => {
                s.state = Value::Null;
                s.no_value = u.strict;
            }
        }
    }
    Ok(())
}

fn step(s: &mut UserState, u: &UserAgg, args: Vec<Value>, cx: &mut EvalCx) -> PgResult<()> {
    if u.strict {
        if args.iter().any(Value::is_null) {
            return Ok(());
        }
        if s.no_value {
            s.no_value = false;
            s.state = args.into_iter().next().unwrap_or(Value::Null);
            return Ok(());
        }
        if s.state.is_null() {
            return Ok(());
        }
    }
    let mut row = Vec::with_capacity(args.len() + 1);
    row.push(std::mem::replace(&mut s.state, Value::Null));
    row.extend(args);
    s.state = u.trans.eval(&row, cx)?;
    Ok(())
}

/// Adds one input row (its arguments and ORDER BY keys) to the group's state.
pub(crate) fn update(
    s: &mut UserState,
    a: &AggCall,
    args: Vec<Value>,
    order: Vec<Value>,
    cx: &mut EvalCx,
) -> PgResult<()> {
    let u = spec(a)?;
    if !a.order.is_empty() {
        s.pending.push((order, args));
        return Ok(());
    }
    start(s, u, cx)?;
    step(s, u, args, cx)
}

/// The aggregate's value for the group.
pub(crate) fn finish(mut s: UserState, a: &AggCall, cx: &mut EvalCx) -> PgResult<Value> {
    let u = spec(a)?;
    start(&mut s, u, cx)?;
    let mut pending = std::mem::take(&mut s.pending);
    if !pending.is_empty() {
        pending.sort_by(|x, y| {
            for (i, k) in a.order.iter().enumerate() {
                let o = super::extra::sort_cmp(&x.0[i], &y.0[i], k.desc, k.nulls_first);
                if o != Ordering::Equal {
                    return o;
                }
            }
            Ordering::Equal
        });
        for (_, args) in pending {
            step(&mut s, u, args, cx)?;
        }
    }
    let Some(fin) = &u.fin else {
        return Ok(s.state);
    };
    if u.fin_strict && s.state.is_null() {
        return Ok(Value::Null);
    }
    // FINALFUNC_EXTRA's arguments are NULLs after the state.
    let mut row = vec![s.state];
    row.resize(a.args.len() + 1, Value::Null);
    fin.eval(&row, cx)
}
