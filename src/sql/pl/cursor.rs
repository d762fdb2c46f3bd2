//! PL/pgSQL's cursors: OPEN (bound, with arguments, FOR a query, FOR EXECUTE), FETCH and MOVE
//! in every direction, CLOSE, and FOR over a cursor.
//!
//! A cursor variable holds its portal's name (a bound cursor's is its own name until
//! assigned, an unbound one gets `<unnamed portal N>` at OPEN). The portal's rows are read at
//! its first FETCH or MOVE with the snapshot taken at OPEN and kept, bounded by [`WORK_MEM`]
//! (54000 past it), so that FETCH can move both ways as PostgreSQL's scrollable cursors do. Portals live as long as
//! the call that opened them; returning one to SQL (`FETCH ALL FROM "name"` after the call) is
//! not supported yet.

use std::collections::HashMap;

use super::compile::{Datum, Site, Stmt, Target};
use super::run::{Flow, Frame};
use crate::error::{code, PgError, PgResult};
use crate::sql::exec::{self, row_bytes, EvalCx, Held, WORK_MEM};
use crate::sql::plan::Plan;
use crate::sql::types::{io, Type, Value};

/// An open cursor: its query's plan, parameters and snapshot, its rows once read (at the
/// first FETCH or MOVE, so that the query's errors come there, as in PostgreSQL) and its
/// position (0: before the first row, `rows.len() + 1`: after the last).
struct Portal {
    plan: std::sync::Arc<Plan>,
    params: Vec<Value>,
    snap: Option<crate::txn::Snapshot>,
    rows: Option<Vec<Vec<Value>>>,
    pos: usize,
    /// A FOR loop over the cursor is running: a transaction end in the procedure keeps it.
    pinned: bool,
}

/// The cursors a call opened, by portal name.
#[derive(Default)]
pub(super) struct Cursors {
    open: HashMap<String, Portal>,
    /// The number of the next `<unnamed portal N>`.
    unnamed: u64,
}

fn missing(name: &str) -> PgError {
    PgError::new(
        code::INVALID_CURSOR_NAME,
        format!("cursor \"{name}\" does not exist"),
    )
}

impl Frame<'_> {
    /// Closes the cursors the call opened.
    pub(super) fn end_cursors(&mut self) {
        self.cursors.open.clear();
    }

    /// At a COMMIT or ROLLBACK in the procedure: closes the call's cursors, as PostgreSQL
    /// does, except those a FOR loop is reading (already read, so the transaction their
    /// snapshot belongs to may end).
    pub(super) fn end_transaction_cursors(&mut self) {
        self.cursors
            .open
            .retain(|_, p| p.pinned && p.rows.is_some());
    }

    /// The portal name cursor variable `curvar` holds (None: NULL).
    fn portal_name(&mut self, curvar: usize) -> Option<String> {
        match &self.values[curvar] {
            Value::Null => None,
            v => Some(io::to_text(v, Type::TEXT, self.spi.fmt())),
        }
    }

    fn null_cursor(&self, curvar: usize) -> PgError {
        PgError::new(
            code::NULL_VALUE_NOT_ALLOWED,
            format!(
                "cursor variable \"{}\" is null",
                self.state.body.datums[curvar].name()
            ),
        )
    }

    /// OPEN: plans the cursor's query, reads its rows and names its portal.
    pub(super) fn open_cursor(
        &mut self,
        curvar: usize,
        query: Option<&Site>,
        dynamic: Option<&(Site, Vec<Site>)>,
        args: Option<&Site>,
    ) -> PgResult<String> {
        let name = match self.portal_name(curvar) {
            Some(n) => n,
            None => {
                self.cursors.unnamed += 1;
                format!("<unnamed portal {}>", self.cursors.unnamed)
            }
        };
        if self.cursors.open.contains_key(&name) {
            return Err(PgError::new(
                code::DUPLICATE_CURSOR,
                format!("cursor \"{name}\" already in use"),
            ));
        }
        let (plan, params) = match (query, dynamic) {
            (Some(q), _) => self.prepare(q, false)?,
            (None, Some((q, using))) => {
                let (plan, params, _) = self.prepare_query(q, Some(using))?;
                (plan, params)
            }
            (None, None) => {
                let Some(decl) = self.state.body.cursors.get(&curvar).cloned() else {
                    return Err(PgError::internal("OPEN of a cursor without a query"));
                };
                if let Some(a) = args {
                    // The arguments' values, in order, into the argument variables.
                    let (plan, params) = self.prepare(a, false)?;
                    let (rows, _) = self.run_plan(&plan, &params)?;
                    let row = rows.into_iter().next().unwrap_or_default();
                    for (i, (&var, v)) in decl.args.iter().zip(row).enumerate() {
                        let t = plan.columns.get(i).map_or(Type::UNKNOWN, |c| c.ty);
                        self.assign(var, v, t)?;
                    }
                }
                self.prepare(&decl.query, false)?
            }
        };
        if !crate::sql::plan::returns_rows(&plan) {
            // PostgreSQL names the command (INSERT, UPDATE, DELETE) that has no rows to read.
            let text = query.map(|q| q.text.as_str()).unwrap_or_default();
            let tag = text
                .split_whitespace()
                .next()
                .unwrap_or("this")
                .to_uppercase();
            return Err(PgError::new(
                "42P11",
                format!("cannot open {tag} query as cursor"),
            ));
        }
        // The cursor reads what the transaction saw when it was opened.
        self.spi.next_command();
        let snap = Some(self.spi.snapshot()?);
        if self.values[curvar].is_null() {
            self.values[curvar] = Value::Text(name.clone());
        }
        self.cursors.open.insert(
            name.clone(),
            Portal {
                plan,
                params,
                snap,
                rows: None,
                pos: 0,
                pinned: false,
            },
        );
        Ok(name)
    }

    /// Reads portal `name`'s rows if not read yet, with its snapshot, within [`WORK_MEM`].
    fn portal(&mut self, name: &str) -> PgResult<&mut Portal> {
        let p = self
            .cursors
            .open
            .get_mut(name)
            .ok_or_else(|| missing(name))?;
        if p.rows.is_none() {
            let (plan, params, snap) = (p.plan.clone(), std::mem::take(&mut p.params), p.snap);
            let prev = self.spi.swap_snapshot(snap);
            let rows = self.read_all(&plan, &params);
            self.spi.swap_snapshot(prev);
            let rows = rows?;
            let p = self
                .cursors
                .open
                .get_mut(name)
                .ok_or_else(|| missing(name))?;
            p.rows = Some(rows);
        }
        self.cursors.open.get_mut(name).ok_or_else(|| missing(name))
    }

    fn read_all(
        &mut self,
        plan: &std::sync::Arc<Plan>,
        params: &[Value],
    ) -> PgResult<Vec<Vec<Value>>> {
        let mut ex = exec::open(plan.clone());
        let mut rows = Vec::new();
        let mut held = Held::default();
        loop {
            let row = {
                let mut cx = EvalCx {
                    params,
                    outer: Vec::new(),
                    session: self.spi.as_ctx(),
                };
                ex.next_row(&mut cx)?
            };
            let Some(row) = row else { break };
            held.add(row_bytes(&row), WORK_MEM, "A PL/pgSQL cursor's rows")?;
            rows.push(row);
        }
        Ok(rows)
    }

    /// FETCH [direction] FROM c INTO target, or MOVE.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn fetch(
        &mut self,
        target: Option<&Target>,
        curvar: usize,
        direction: i64,
        how_many: i64,
        count: Option<&Site>,
        is_move: bool,
    ) -> PgResult<Flow> {
        let name = self
            .portal_name(curvar)
            .ok_or_else(|| self.null_cursor(curvar))?;
        let mut n = how_many;
        if let Some(c) = count {
            let (v, t) = self.eval(c)?;
            let v = self.coerce(v, t, Type::INT8, -1)?;
            n = v.as_i64().ok_or_else(|| {
                PgError::new(
                    code::NULL_VALUE_NOT_ALLOWED,
                    "relative or absolute cursor position is null",
                )
            })?;
        }
        let portal = self.portal(&name)?;
        let rows = portal.rows.as_deref().unwrap_or_default();
        let len = rows.len() as i64;
        let pos = portal.pos as i64;
        // The position the command moves to, and how many rows it passes onto.
        let (new, moved) = match direction {
            // FORWARD n (ALL is i64::MAX)
            0 => {
                let new = pos.saturating_add(n).min(len + 1);
                (new, (new.min(len) - pos).max(0))
            }
            // BACKWARD n
            1 => {
                let new = (pos - n.min(pos)).max(0);
                (new, (pos.min(len + 1) - new.max(1)).max(0))
            }
            // ABSOLUTE n
            2 => {
                let new = if n >= 0 {
                    n.min(len + 1)
                } else {
                    (len + 1 + n).max(0)
                };
                (new, i64::from(new >= 1 && new <= len))
            }
            // RELATIVE n
            _ => {
                let new = (pos + n).clamp(0, len + 1);
                (new, i64::from(new >= 1 && new <= len))
            }
        };
        let row = (new >= 1 && new <= len).then(|| rows[new as usize - 1].clone());
        portal.pos = new as usize;
        let plan = portal.plan.clone();
        if is_move {
            let moved = if matches!(direction, 0 | 1) {
                moved
            } else {
                i64::from(row.is_some())
            };
            self.row_count = moved as u64;
            self.set_found(moved > 0);
            return Ok(Flow::Next);
        }
        let found = row.is_some();
        if let Some(t) = target {
            let row = row.unwrap_or_else(|| vec![Value::Null; plan.columns.len()]);
            self.assign_row(t, &plan, row)?;
        }
        self.row_count = u64::from(found);
        self.set_found(found);
        Ok(Flow::Next)
    }

    /// CLOSE c.
    pub(super) fn close_cursor(&mut self, curvar: usize) -> PgResult<Flow> {
        let name = self
            .portal_name(curvar)
            .ok_or_else(|| self.null_cursor(curvar))?;
        self.cursors
            .open
            .remove(&name)
            .ok_or_else(|| missing(&name))?;
        Ok(Flow::Next)
    }

    /// FOR rec IN c [(args)] LOOP: opens the bound cursor, runs the body per row, closes it.
    pub(super) fn for_cursor(
        &mut self,
        label: &Option<String>,
        rec: usize,
        curvar: usize,
        args: Option<&Site>,
        body: &[Stmt],
    ) -> PgResult<Flow> {
        if !matches!(self.state.body.datums[rec], Datum::Rec { .. }) {
            return Err(PgError::internal("FOR over a cursor without a record"));
        }
        let name = self.open_cursor(curvar, None, None, args)?;
        if let Some(p) = self.cursors.open.get_mut(&name) {
            p.pinned = true;
        }
        let target = Target::Rec(rec);
        let mut found = false;
        let result = loop {
            let portal = match self.portal(&name) {
                Ok(p) => p,
                Err(e) => break Err(e),
            };
            let next = portal
                .rows
                .as_ref()
                .and_then(|r| r.get(portal.pos))
                .cloned();
            let Some(row) = next else {
                break Ok(Flow::Next);
            };
            portal.pos += 1;
            let plan = portal.plan.clone();
            if let Err(e) = self.spi.check_interrupts() {
                break Err(e);
            }
            found = true;
            if let Err(e) = self.assign_row(&target, &plan, row) {
                break Err(e);
            }
            match self.stmts(body) {
                Ok(flow) => {
                    if let Some(f) = self.after_iteration(label, flow) {
                        break Ok(f);
                    }
                }
                Err(e) => break Err(e),
            }
        };
        self.cursors.open.remove(&name);
        self.set_found(found);
        result
    }
}
