//! Firing triggers around the writes of INSERT, UPDATE and DELETE (`table.rs`'s ModifyOp),
//! as PostgreSQL's trigger.c does for a statement:
//!
//! ```text
//!   BEFORE STATEMENT ─▶ per row: BEFORE ROW (may change or skip it) ─▶ write ─▶ queue AFTER ROW
//!                    ─▶ at the statement's end: foreign-key checks, AFTER ROW events in the
//!                       order of their rows, AFTER STATEMENT
//! ```
//!
//! A view is a target only through its INSTEAD OF ROW triggers (`instead_row`): each input
//! row goes to them instead of being written, between the view's BEFORE and AFTER STATEMENT
//! triggers, and counts (and is RETURNING's) when they return a row.
//!
//! Each trigger function runs through the session (`SessionCtx::call_trigger`) as a command
//! of its own, so what it writes is visible to the triggers after it and to the statements
//! after this one, not to the scan that feeds this statement.
//!
//! A BEFORE ROW trigger of UPDATE or DELETE runs once the row is locked (the writer locks it
//! first, as PostgreSQL's GetTupleForTrigger does), so a wait for another transaction never
//! makes it run twice for one row.
//!
//! # Bounds
//!
//! The AFTER ROW events of one statement hold their rows until the statement's end: at most
//! [`MAX_AFTER_EVENTS`], past which the statement fails with 54000; their memory also counts
//! against the server's bound through the writer's `check_memory`.

use std::collections::VecDeque;

use crate::catalog::triggers::Timing;
use crate::error::{code, PgError, PgResult};
use crate::sql::context::TriggerCall;
use crate::sql::engine::{self, Changed, Rel, WriteError, Writer};
use crate::sql::exec::EvalCx;
use crate::sql::plan::trigger::{Planned, Triggers};
use crate::sql::types::Value;
use crate::storage::{LockMode, RowId};

use super::Row;

/// The most AFTER ROW events one statement queues.
pub const MAX_AFTER_EVENTS: usize = 16 << 20;

/// One row's AFTER event.
struct AfterEvent {
    event: i16,
    old: Option<Row>,
    new: Option<Row>,
}

/// What a row's BEFORE triggers decided (`Firing::before_locked`).
pub(super) enum Before {
    /// Write the row: the new row for UPDATE (as the triggers left it), None for DELETE.
    Go(Option<Row>),
    /// A trigger returned NULL: the row is left alone.
    Skip,
    /// The row could not be locked: what locking it came to (a wait, a newer version, ...).
    NotLocked(Result<Changed, WriteError>),
}

/// The trigger state of one writing statement.
#[derive(Default)]
pub(super) struct Firing {
    /// BEFORE STATEMENT triggers have fired.
    started: bool,
    after: VecDeque<AfterEvent>,
    /// AFTER STATEMENT triggers have fired.
    finished: bool,
}

/// Whether a trigger's WHEN condition holds for these rows (no condition: it does).
fn when_holds(
    p: &Planned,
    rel: &Rel,
    old: Option<&[Value]>,
    new: Option<&[Value]>,
    cx: &mut EvalCx,
) -> PgResult<bool> {
    let Some(w) = &p.when else {
        return Ok(true);
    };
    let width = rel.columns.len();
    let mut row = Vec::with_capacity(2 * width);
    for r in [old, new] {
        match r {
            Some(r) => row.extend_from_slice(&r[..width]),
            None => row.extend(std::iter::repeat_n(Value::Null, width)),
        }
    }
    Ok(matches!(w.eval(&row, cx)?, Value::Bool(true)))
}

/// Whether an UPDATE trigger with a column list fires for a statement that sets `set`.
fn columns_match(p: &Planned, event: i16, set: &[usize]) -> bool {
    event != crate::catalog::triggers::UPDATE
        || p.def.columns.is_empty()
        || p.def.columns.iter().any(|c| set.contains(c))
}

fn call(
    p: &Planned,
    rel: &Rel,
    event: i16,
    old: Option<&[Value]>,
    new: Option<&[Value]>,
    cx: &mut EvalCx,
) -> PgResult<Option<Row>> {
    let call = TriggerCall {
        def: &p.def,
        table: rel,
        event,
        old,
        new,
    };
    cx.session.call_trigger(&p.function, &call)
}

impl Firing {
    /// Fires the BEFORE STATEMENT triggers of `events` once per statement.
    pub(super) fn start(
        &mut self,
        t: &Triggers,
        rel: &Rel,
        events: &[i16],
        set: &[usize],
        cx: &mut EvalCx,
    ) -> PgResult<()> {
        if self.started {
            return Ok(());
        }
        self.started = true;
        statement_level(t, rel, Timing::Before, events, set, cx)
    }

    /// Fires the BEFORE ROW triggers of `event`: the row to write (each trigger gets what
    /// the one before returned), or None when one returned NULL (the row is skipped). For
    /// DELETE, `new` is None and a row that goes on is returned as `old`.
    pub(super) fn before_row(
        t: &Triggers,
        rel: &Rel,
        event: i16,
        set: &[usize],
        old: Option<&[Value]>,
        new: Option<Row>,
        cx: &mut EvalCx,
    ) -> PgResult<Option<Row>> {
        let mut new = new;
        for p in t.at(Timing::Before, true, event) {
            // Generated columns are computed after the BEFORE triggers: each one sees them
            // NULL in NEW, whatever the one before set (PostgreSQL's PL/pgSQL does the same).
            if let Some(n) = new.as_mut() {
                for (i, c) in rel.columns.iter().enumerate() {
                    if c.generated {
                        n[i] = Value::Null;
                    }
                }
            }
            if !columns_match(p, event, set) || !when_holds(p, rel, old, new.as_deref(), cx)? {
                continue;
            }
            match call(p, rel, event, old, new.as_deref(), cx)? {
                None => return Ok(None),
                Some(r) if new.is_some() => new = Some(r),
                Some(_) => {}
            }
        }
        Ok(Some(match new {
            Some(n) => n,
            None => old.map(<[Value]>::to_vec).unwrap_or_default(),
        }))
    }

    /// For UPDATE (`new` Some) and DELETE: when the statement has BEFORE ROW triggers of
    /// `event`, locks row `id` with `mode` and fires them on it (PostgreSQL's
    /// GetTupleForTrigger), so that a lock wait never runs them twice.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn before_locked(
        t: Option<&Triggers>,
        rel: &Rel,
        id: RowId,
        w: &Writer<'_>,
        mode: LockMode,
        event: i16,
        set: &[usize],
        old: &[Value],
        new: Option<Row>,
        cx: &mut EvalCx,
    ) -> PgResult<Before> {
        let Some(t) = t.filter(|t| t.any(Timing::Before, true, event)) else {
            return Ok(Before::Go(new));
        };
        match engine::lock(rel, id, w, mode) {
            Ok(Changed::Done(_)) => {}
            other => return Ok(Before::NotLocked(other)),
        }
        let is_update = new.is_some();
        Ok(
            match Firing::before_row(t, rel, event, set, Some(old), new, cx)? {
                None => Before::Skip,
                Some(r) if is_update => Before::Go(Some(r)),
                Some(_) => Before::Go(None),
            },
        )
    }

    /// Queues a written row's AFTER ROW event, when some trigger takes it.
    pub(super) fn after_row(
        &mut self,
        t: &Triggers,
        event: i16,
        old: Option<&[Value]>,
        new: Option<&[Value]>,
    ) -> PgResult<()> {
        if !t.any(Timing::After, true, event) {
            return Ok(());
        }
        if self.after.len() >= MAX_AFTER_EVENTS {
            return Err(PgError::new(
                code::PROGRAM_LIMIT_EXCEEDED,
                format!(
                    "too many AFTER trigger events in one statement (at most {MAX_AFTER_EVENTS})"
                ),
            ));
        }
        self.after.push_back(AfterEvent {
            event,
            old: old.map(<[Value]>::to_vec),
            new: new.map(<[Value]>::to_vec),
        });
        Ok(())
    }

    /// At the statement's end: the queued AFTER ROW events, then the AFTER STATEMENT
    /// triggers of `events`.
    pub(super) fn finish(
        &mut self,
        t: &Triggers,
        rel: &Rel,
        events: &[i16],
        set: &[usize],
        cx: &mut EvalCx,
    ) -> PgResult<()> {
        while let Some(ev) = self.after.pop_front() {
            let (old, new) = (ev.old.as_deref(), ev.new.as_deref());
            for p in t.at(Timing::After, true, ev.event) {
                if columns_match(p, ev.event, set) && when_holds(p, rel, old, new, cx)? {
                    call(p, rel, ev.event, old, new, cx)?;
                }
            }
        }
        if self.finished {
            return Ok(());
        }
        self.finished = true;
        statement_level(t, rel, Timing::After, events, set, cx)
    }
}

/// Fires the statement-level triggers of `timing` for `events`.
fn statement_level(
    t: &Triggers,
    rel: &Rel,
    timing: Timing,
    events: &[i16],
    set: &[usize],
    cx: &mut EvalCx,
) -> PgResult<()> {
    for &e in events {
        for p in t.at(timing, false, e) {
            if columns_match(p, e, set) && when_holds(p, rel, None, None, cx)? {
                call(p, rel, e, None, None, cx)?;
            }
        }
    }
    Ok(())
}

/// Whether a statement over `t` for `events` fires any AFTER trigger (its RETURNING rows are
/// then held until they have run).
pub(super) fn has_after(t: &Triggers, events: &[i16]) -> bool {
    events
        .iter()
        .any(|&e| t.any(Timing::After, true, e) || t.any(Timing::After, false, e))
}

/// One input row of an INSERT / UPDATE / DELETE whose target is a view with INSTEAD OF
/// triggers (PostgreSQL's ExecIR*Triggers): the view's triggers for the event run in name
/// order, each given what the one before returned as NEW; one returning NULL skips the row.
/// The row RETURNING reads (the returned NEW, or the view's OLD row for DELETE, then the rest
/// of the input), or None when the row was skipped (it does not count).
pub(super) fn instead_row(
    m: &crate::sql::plan::modify::Modify,
    row: Row,
    cx: &mut EvalCx,
) -> PgResult<Option<Row>> {
    use crate::catalog::triggers::{DELETE, INSERT, UPDATE};
    use crate::sql::plan::modify::ModifyKind;
    let width = m.rel.columns.len();
    let (event, old, mut new) = match &m.kind {
        ModifyKind::Insert => (INSERT, None, Some(row[..width.min(row.len())].to_vec())),
        ModifyKind::Update { sets } => {
            let old = row[..width].to_vec();
            let mut new = old.clone();
            for (c, e) in sets {
                new[*c] = e.eval(&row, cx)?;
            }
            (UPDATE, Some(old), Some(new))
        }
        ModifyKind::Delete => (DELETE, Some(row[..width].to_vec()), None),
        ModifyKind::Upsert(_) => {
            return Err(PgError::feature_not_supported(
                "ON CONFLICT is not supported on a view",
            ))
        }
    };
    let Some(t) = &m.triggers else {
        return Err(PgError::internal(
            "a view target without its INSTEAD OF trigger",
        ));
    };
    for p in t.at(Timing::InsteadOf, true, event) {
        if !p.def.fires() {
            continue;
        }
        match call(p, &m.rel, event, old.as_deref(), new.as_deref(), cx)? {
            None => return Ok(None),
            Some(r) if new.is_some() => new = Some(r),
            Some(_) => {}
        }
    }
    let mut out = match new.or(old) {
        Some(r) => r,
        None => return Ok(None),
    };
    out.truncate(width);
    out.resize(width, Value::Null);
    match row.get(width..) {
        Some(rest) if !rest.is_empty() => out.extend_from_slice(rest),
        // INSERT's RETURNING may read system columns through a slot after the row: a view's
        // row has none.
        _ => out.push(Value::Null),
    }
    Ok(Some(out))
}
