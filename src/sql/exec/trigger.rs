//! Firing triggers around the writes of INSERT, UPDATE and DELETE (`table.rs`'s ModifyOp),
//! as PostgreSQL's trigger.c does for a statement:
//!
//! ```text
//!   BEFORE STATEMENT ─▶ per row: BEFORE ROW (may change or skip it) ─▶ write ─▶ queue AFTER ROW
//!                    ─▶ at the statement's end: foreign-key checks, AFTER ROW events in the
//!                       order of their rows, AFTER STATEMENT
//! ```
//!
//! A constraint trigger (CREATE CONSTRAINT TRIGGER) is an AFTER ROW trigger: when it is
//! deferrable and its constraint deferred now (INITIALLY DEFERRED, or SET CONSTRAINTS), its
//! event goes to the session with its rows instead of firing (`defer`), and fires at commit
//! or SET CONSTRAINTS ... IMMEDIATE with the deferred key checks (`exec::deferred`).
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
//! # Transition tables
//!
//! When an AFTER trigger of the statement's table names transition tables (REFERENCING OLD /
//! NEW TABLE), every row the statement writes for that event is kept, whatever the triggers'
//! WHEN conditions (PostgreSQL's transition capture): the old versions for UPDATE and DELETE,
//! the new ones for INSERT and UPDATE, only those some trigger reads. INSERT ... ON CONFLICT
//! DO UPDATE keeps its inserted rows for the INSERT triggers and its updated ones for the
//! UPDATE triggers. At the statement's end the kept rows are frozen (shared, never copied)
//! and each trigger that names them gets them under its names, its row-level firings
//! included (each sees the whole statement's rows, as in PostgreSQL, whose row triggers with
//! transition tables fire after the last row is written). A statement that changed no row
//! still fires its statement triggers, with empty tables.
//!
//! # Bounds
//!
//! The AFTER ROW events of one statement hold their rows until the statement's end: at most
//! [`MAX_AFTER_EVENTS`], past which the statement fails with 54000; their memory also counts
//! against the server's bound through the writer's `check_memory`. The transition tables of a
//! statement hold at most [`WORK_MEM`] bytes (estimated) in all; past that the statement fails
//! with 54000 (PostgreSQL's tuplestore spills to disk past work_mem; there is no disk here).

use std::collections::VecDeque;
use std::sync::Arc;

use crate::catalog::triggers::Timing;
use crate::error::{code, PgError, PgResult};
use crate::sql::context::{DeferredEvent, DeferredTrigger, TransitionTable, TriggerCall};
use crate::sql::engine::{self, Changed, Rel, WriteError, Writer};
use crate::sql::exec::EvalCx;
use crate::sql::plan::trigger::{Planned, Triggers};
use crate::sql::types::Value;
use crate::storage::{LockMode, RowId};

use super::{row_bytes, Held, Row, WORK_MEM};

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

/// A frozen side of an event's rows, shared by the transition tables that read it.
type Rows = Arc<Vec<Row>>;

/// The rows one event of the statement wrote, for its triggers' transition tables: None
/// where no trigger reads that side.
struct Capture {
    event: i16,
    old: Option<Vec<Row>>,
    new: Option<Vec<Row>>,
}

/// The trigger state of one writing statement.
#[derive(Default)]
pub(super) struct Firing {
    /// BEFORE STATEMENT triggers have fired.
    started: bool,
    after: VecDeque<AfterEvent>,
    /// AFTER STATEMENT triggers have fired.
    finished: bool,
    /// Per event met so far, the rows kept for transition tables.
    captured: Vec<Capture>,
    /// Their bytes, against [`WORK_MEM`].
    held: Held,
    /// At the statement's end: each trigger's transition tables, by trigger OID.
    frozen: Vec<(u32, Vec<TransitionTable>)>,
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
    transitions: &[TransitionTable],
    cx: &mut EvalCx,
) -> PgResult<Option<Row>> {
    let call = TriggerCall {
        def: &p.def,
        table: rel,
        event,
        old,
        new,
        transitions,
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
        self.statement_level(t, rel, Timing::Before, events, set, cx)
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
            match call(p, rel, event, old, new.as_deref(), &[], cx)? {
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

    /// Queues a written row's AFTER ROW event, when some trigger takes it, and keeps its
    /// versions for the transition tables that read them.
    pub(super) fn after_row(
        &mut self,
        t: &Triggers,
        event: i16,
        old: Option<&[Value]>,
        new: Option<&[Value]>,
    ) -> PgResult<()> {
        self.capture(t, event, old, new)?;
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

    /// Keeps a written row's versions for the transition tables of `event` (the first row of
    /// an event finds out which sides its triggers read).
    fn capture(
        &mut self,
        t: &Triggers,
        event: i16,
        old: Option<&[Value]>,
        new: Option<&[Value]>,
    ) -> PgResult<()> {
        let i = match self.captured.iter().position(|c| c.event == event) {
            Some(i) => i,
            None => {
                let reading = || t.items.iter().filter(move |p| p.def.on(event));
                self.captured.push(Capture {
                    event,
                    old: reading().any(|p| p.def.old_table.is_some()).then(Vec::new),
                    new: reading().any(|p| p.def.new_table.is_some()).then(Vec::new),
                });
                self.captured.len() - 1
            }
        };
        let c = &mut self.captured[i];
        for (kept, row) in [(&mut c.old, old), (&mut c.new, new)] {
            if let (Some(kept), Some(row)) = (kept, row) {
                self.held
                    .add(row_bytes(row), WORK_MEM, "Transition table storage")?;
                kept.push(row.to_vec());
            }
        }
        Ok(())
    }

    /// Freezes the kept rows into each transition-table trigger's tables (once, at the
    /// statement's end: later writes of the statement, if any, are not seen).
    fn freeze(&mut self, t: &Triggers, rel: &Arc<Rel>, events: &[i16]) {
        if !self.frozen.is_empty() || !t.items.iter().any(|p| p.def.has_transitions()) {
            return;
        }
        // Per event: its old rows, its new rows.
        let mut shared: Vec<(i16, Rows, Rows)> = Vec::new();
        for &e in events {
            let c = self.captured.iter_mut().find(|c| c.event == e);
            let (old, new) = match c {
                Some(c) => (c.old.take(), c.new.take()),
                None => (None, None),
            };
            // A statement that wrote no row of this event still hands its triggers tables,
            // empty ones.
            shared.push((
                e,
                Arc::new(old.unwrap_or_default()),
                Arc::new(new.unwrap_or_default()),
            ));
        }
        for p in t.items.iter().filter(|p| p.def.has_transitions()) {
            let Some((_, old, new)) = shared.iter().find(|(e, _, _)| p.def.on(*e)) else {
                continue;
            };
            let mut tables = Vec::new();
            for (name, rows) in [(&p.def.old_table, old), (&p.def.new_table, new)] {
                if let Some(name) = name {
                    tables.push(TransitionTable {
                        name: name.clone(),
                        table: rel.clone(),
                        rows: rows.clone(),
                    });
                }
            }
            self.frozen.push((p.def.oid, tables));
        }
        self.captured.clear();
        self.held = Held::default();
    }

    /// The transition tables `p` reads (none when it names none).
    fn tables_of(&self, p: &Planned) -> &[TransitionTable] {
        self.frozen
            .iter()
            .find(|(oid, _)| *oid == p.def.oid)
            .map_or(&[], |(_, t)| t.as_slice())
    }

    /// At the statement's end: the queued AFTER ROW events, then the AFTER STATEMENT
    /// triggers of `events`.
    pub(super) fn finish(
        &mut self,
        t: &Triggers,
        rel: &Arc<Rel>,
        events: &[i16],
        set: &[usize],
        cx: &mut EvalCx,
    ) -> PgResult<()> {
        self.freeze(t, rel, events);
        while let Some(ev) = self.after.pop_front() {
            let (old, new) = (ev.old.as_deref(), ev.new.as_deref());
            for p in t.at(Timing::After, true, ev.event) {
                if !columns_match(p, ev.event, set) || !when_holds(p, rel, old, new, cx)? {
                    continue;
                }
                if !defer(p, rel, &ev, cx)? {
                    call(p, rel, ev.event, old, new, self.tables_of(p), cx)?;
                }
            }
        }
        if self.finished {
            return Ok(());
        }
        self.finished = true;
        // PostgreSQL fires them in the reverse order of the BEFORE ones: INSERT ... ON
        // CONFLICT DO UPDATE's UPDATE triggers before its INSERT ones.
        let reversed: Vec<i16> = events.iter().rev().copied().collect();
        self.statement_level(t, rel, Timing::After, &reversed, set, cx)
    }

    /// Fires the statement-level triggers of `timing` for `events`.
    fn statement_level(
        &self,
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
                    call(p, rel, e, None, None, self.tables_of(p), cx)?;
                }
            }
        }
        Ok(())
    }
}

/// A deferrable constraint trigger whose constraint is deferred now (INITIALLY DEFERRED or
/// SET CONSTRAINTS): its event is handed to the session, which fires it at commit or SET
/// CONSTRAINTS ... IMMEDIATE (`exec::deferred`); true when it was.
fn defer(p: &Planned, rel: &Arc<Rel>, ev: &AfterEvent, cx: &mut EvalCx) -> PgResult<bool> {
    let Some(k) = p.def.constraint.filter(|k| k.deferrable) else {
        return Ok(false);
    };
    if !cx.session.constraint_deferred(k.oid, k.initially_deferred) {
        return Ok(false);
    }
    let trigger = DeferredTrigger {
        def: p.def.clone(),
        table: rel.clone(),
        function: p.function.clone(),
        event: ev.event,
        old: ev.old.clone().map(Vec::into_boxed_slice),
        new: ev.new.clone().map(Vec::into_boxed_slice),
    };
    cx.session.queue_deferred(DeferredEvent {
        table: rel.oid,
        constraint: k.oid,
        referenced: false,
        key: Box::new([]),
        trigger: Some(Arc::new(trigger)),
    })?;
    Ok(true)
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
        match call(p, &m.rel, event, old.as_deref(), new.as_deref(), &[], cx)? {
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
