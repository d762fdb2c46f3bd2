//! A query statement in the middle of its run: suspended, not blocking its shard.
//!
//! A query (a simple Query's statement, an extended-protocol Execute, SQL `EXECUTE`) runs as an
//! open [`Executor`] that the session pulls rows from, writing each to the output as it comes.
//! The executor stops in three places where the session must let go of its shard thread:
//!
//! * `Step::Yield`: the run spent its budget of rows or time. Other sessions on the shard run,
//!   then this one continues where it stopped.
//! * `Step::Wait(cell)`: a row or key the statement must change is held by a transaction still in
//!   progress. The session awaits that transaction's end (`wait.rs`: with cancel, terminate,
//!   statement_timeout and the deadlock check every second), then the same operator tries the
//!   same row again.
//! * the output holds [`OUT_PAUSE`] bytes: they are written to the client (awaiting room in the
//!   socket) before more rows are made, so a large result never sits whole in memory.
//!
//! In each case the statement's state moves into [`Running`] (the open executor, its parameters
//! and formats, what follows it) and `process_input` returns; the socket loop (`conn.rs`) writes
//! the output, awaits what the statement waits for, and calls [`Session::resume`], which pulls
//! again and, when the statement ends, goes on with what follows it: the next statement of the
//! simple Query, or the end of the Execute message; then the rest of the input. Messages that
//! arrive meanwhile stay in the read buffer, as they would behind a busy backend in PostgreSQL.
//!
//! A portal that an Execute with a row limit reads (PostgreSQL's PORTAL_ONE_SELECT), and a
//! cursor of DECLARE, keep their open executor ([`OpenQuery`]) between Executes or FETCHes: rows
//! are made as they are fetched, and a query that never ends (`generate_series` without bounds,
//! a recursive CTE) can be read in parts. Such a query reads with the snapshot of the command
//! that opened it (its scans, and subqueries opened later, ask the session for a snapshot and get
//! this one), and the transaction keeps that snapshot published for vacuum until it ends. A query
//! that writes (INSERT ... RETURNING in a portal) still runs to its end at the first Execute, as
//! PostgreSQL's PORTAL_ONE_RETURNING does.
//!
//! Paths that cannot stop in the middle (a subquery inside an expression, FETCH, COPY, a
//! statement run by a function) pull their executor to the end and wait in place
//! (`Core::wait_for_transaction`, under `block_in_place`).

use std::sync::Arc;

use super::protocol::Flow;
use super::results::{
    binary_regclass, resolve_regclass, write_row, write_row_description, Formats,
};
use super::{Portal, PortalRows, Session};
use crate::error::{PgError, PgResult};
use crate::sql::exec::EvalCx;
use crate::sql::exec::{self, row_bytes, Executor, Held, Row, Step, MAX_RESULT_BYTES};
use crate::sql::parser::Parsed;
use crate::sql::plan::Plan;
use crate::sql::types::Value;
use crate::txn::{Snapshot, TxnCell};
use crate::wire::backend as be;

/// Output bytes after which a running query lets its rows be written before making more.
pub(super) const OUT_PAUSE: usize = 256 * 1024;

/// Where a running query's rows go.
pub(super) enum Sink {
    /// DataRows into the output, as they come.
    Wire,
    /// Into the portal, for an Execute with a row limit (PostgreSQL materializes such a portal's
    /// rows only in some cases; here always, bounded by [`MAX_RESULT_BYTES`]).
    Collect(Vec<Row>, Held),
    /// Held until the statement ends, then written (after a RowDescription when the flag is
    /// set); dropped if it fails. For what PostgreSQL runs to its end before sending anything
    /// (`sql::runs_before_output`: INSERT / UPDATE / DELETE ... RETURNING, data-modifying
    /// WITH queries).
    Hold(Vec<Row>, Held, bool),
    /// COPY TO STDOUT: each row as CopyData as it comes; CopyDone and `COPY n` at the end.
    Copy(Box<super::results::CopyOut>),
}

/// What follows the statement when it ends.
pub(super) enum Then {
    /// Not decided yet: the caller that started the statement fills it in.
    Caller,
    /// Statement `index` of a simple Query: the statements after it follow.
    Simple { parsed: Arc<Parsed>, index: usize },
    /// An Execute message: the portal goes back into the session.
    Execute {
        name: String,
        portal: Box<Portal>,
        max_rows: i32,
    },
}

/// The open executor of a portal or cursor read as it is fetched.
pub(super) struct OpenQuery {
    exec: Executor<Arc<Plan>>,
    params: Vec<Value>,
    snap: Snapshot,
}

/// A query stopped in the middle of its run (see the module comment).
pub(super) struct Running {
    exec: Executor<Arc<Plan>>,
    params: Vec<Value>,
    formats: Formats,
    sink: Sink,
    /// Rows made so far.
    rows: usize,
    /// Rows to make before the run stops (an Execute's row limit); `usize::MAX`: all.
    limit: usize,
    /// For an open portal's query: its snapshot (and the run goes back into the portal).
    snap: Option<Snapshot>,
    pub(super) then: Then,
    /// What the statement waits for; None when it only gave way (a yield or a full output).
    pub(super) wait: Option<Arc<TxnCell>>,
    /// An error met while waiting (cancel, timeout, deadlock): the statement ends with it.
    pub(super) failed: Option<PgError>,
}

/// How a pull ended.
enum Pulled {
    /// The statement ran to its end (with its error, if any).
    Ended(Option<PgError>),
    /// It stopped in the middle; `Running::wait` says what for.
    Stopped,
    /// It made the rows its limit asked for (an open portal's Execute).
    Filled,
}

/// Whether a portal's query can be read as it is fetched: it writes nothing (a query that
/// writes runs to its end at once, as in PostgreSQL). Unknown shapes are read at once.
pub(super) fn reads_as_fetched(plan: &Plan) -> bool {
    use crate::sql::plan::Node;
    match &plan.node {
        Node::Result
        | Node::SeqScan { .. }
        | Node::IndexScan { .. }
        | Node::IndexRange { .. }
        | Node::TidScan { .. }
        | Node::BitmapHeapScan { .. }
        | Node::Values(_)
        | Node::Function { .. }
        | Node::Virtual(_)
        | Node::Transition(_) => true,
        Node::ProjectSet { input, .. }
        | Node::Project { input, .. }
        | Node::Filter { input, .. }
        | Node::LockRows { input, .. }
        | Node::Aggregate { input, .. }
        | Node::Window { input, .. }
        | Node::Sort { input, .. }
        | Node::Distinct { input, .. }
        | Node::Limit { input, .. } => reads_as_fetched(input),
        Node::Join { left, right, .. } | Node::SetOp { left, right, .. } => {
            reads_as_fetched(left) && reads_as_fetched(right)
        }
        Node::HashJoin(j) => reads_as_fetched(&j.left) && reads_as_fetched(&j.right),
        Node::Cte(_, p) => reads_as_fetched(p),
        Node::RecursiveUnion { .. } | Node::WorkTable(_) => true,
        _ => false,
    }
}

impl Session {
    /// Runs a query that the session has begun (transaction ensured, command started): pulls
    /// its rows into `sink` until it ends or stops. When it ends, writes its CommandComplete
    /// (`Sink::Wire`) and returns its result; when it stops, keeps it in `self.running` (with
    /// `Then::Caller`, for the caller to fill in) and returns Ok.
    pub(super) fn start_query(
        &mut self,
        plan: &Arc<Plan>,
        params: Vec<Value>,
        formats: Formats,
        sink: Sink,
    ) -> PgResult<Option<Vec<Row>>> {
        self.core.begin_query();
        let mut r = Running {
            exec: exec::open(plan.clone()),
            params,
            formats,
            sink,
            rows: 0,
            limit: usize::MAX,
            snap: None,
            then: Then::Caller,
            wait: None,
            failed: None,
        };
        match self.pull(&mut r) {
            Pulled::Stopped => {
                self.running = Some(Box::new(r));
                Ok(None)
            }
            // No limit here: a run only ends or stops.
            Pulled::Ended(error) => self.end_query(r, error),
            Pulled::Filled => self.end_query(r, None),
        }
    }

    /// Opens a portal's query to be read as it is fetched: a new command, its snapshot kept.
    pub(super) fn open_query(
        &mut self,
        plan: &Arc<Plan>,
        params: Vec<Value>,
    ) -> PgResult<OpenQuery> {
        self.core.begin_query();
        let snap = self.core.cursor_snapshot()?;
        Ok(OpenQuery {
            exec: exec::open(plan.clone()),
            params,
            snap,
        })
    }

    /// An Execute of a portal with an open query: makes up to `max_rows` rows onto the wire,
    /// then PortalSuspended, or CommandComplete at the end (see [`Self::portal_outcome`]).
    pub(super) fn execute_open(
        &mut self,
        portal: &mut Portal,
        open: OpenQuery,
        max_rows: i32,
    ) -> PgResult<()> {
        let mut r = Running {
            exec: open.exec,
            params: open.params,
            formats: portal.formats.clone(),
            sink: Sink::Wire,
            rows: 0,
            limit: if max_rows <= 0 {
                usize::MAX
            } else {
                max_rows as usize
            },
            snap: Some(open.snap),
            then: Then::Caller,
            wait: None,
            failed: None,
        };
        let outcome = self.pull(&mut r);
        self.portal_outcome(portal, r, outcome)
    }

    /// What an open portal's run came to: stopped (kept in `self.running`), its limit filled
    /// (the query goes back into the portal; PortalSuspended), or ended.
    fn portal_outcome(&mut self, portal: &mut Portal, r: Running, outcome: Pulled) -> PgResult<()> {
        match outcome {
            Pulled::Stopped => {
                self.running = Some(Box::new(r));
                Ok(())
            }
            Pulled::Filled => {
                self.flush_notices();
                portal.rows = PortalRows::Open(Box::new(OpenQuery {
                    exec: r.exec,
                    params: r.params,
                    snap: r.snap.expect("an open portal's run has its snapshot"),
                }));
                be::portal_suspended(&mut self.out);
                Ok(())
            }
            Pulled::Ended(error) => {
                portal.rows = PortalRows::Done;
                self.end_query(r, error).map(|_| ())
            }
        }
    }

    /// FETCH: up to `n` rows of a cursor's open query (FETCH runs inside a utility statement,
    /// which cannot stop in the middle: a wait here happens in place, `wait.rs`).
    pub(super) fn fetch_open(&mut self, open: &mut OpenQuery, n: usize) -> PgResult<Vec<Row>> {
        let mut rows = Vec::new();
        let mut held = Held::default();
        self.core.portal_snap = Some(open.snap);
        let mut cx = EvalCx {
            params: &open.params,
            outer: Vec::new(),
            session: &mut self.core,
        };
        let result = (|| {
            while rows.len() < n {
                match open.exec.next_row(&mut cx)? {
                    Some(row) => {
                        held.add(row_bytes(&row), MAX_RESULT_BYTES, "query result")?;
                        rows.push(row);
                    }
                    None => break,
                }
            }
            Ok(())
        })();
        self.core.portal_snap = None;
        result.map(|_| rows)
    }

    /// Pulls rows until the statement ends or must stop.
    fn pull(&mut self, r: &mut Running) -> Pulled {
        if let Some(e) = r.failed.take() {
            return Pulled::Ended(Some(e));
        }
        r.wait = None;
        if r.rows >= r.limit {
            return Pulled::Filled;
        }
        self.core.portal_snap = r.snap;
        let outcome = self.pull_rows(r);
        self.core.portal_snap = None;
        outcome
    }

    fn pull_rows(&mut self, r: &mut Running) -> Pulled {
        let Session { core, out, .. } = self;
        let plan = r.exec.plan().clone();
        let columns = &plan.columns;
        let mut text = String::new();
        let regclass = binary_regclass(columns, &r.formats);
        loop {
            let step = r.exec.next(&mut EvalCx {
                params: &r.params,
                outer: Vec::new(),
                session: &mut *core,
            });
            match step {
                Ok(Step::Row(row)) => {
                    r.rows += 1;
                    let row = if regclass {
                        match resolve_regclass(&mut *core, columns, row) {
                            Ok(row) => row,
                            Err(e) => return Pulled::Ended(Some(e)),
                        }
                    } else {
                        row
                    };
                    match &mut r.sink {
                        Sink::Wire => {
                            if !core.notices.is_empty() {
                                // A notice raised while making this row goes before it.
                                for n in core.notices.drain(..) {
                                    be::error_or_notice_in(out, &n, core.settings.client);
                                }
                            }
                            let fmt = &core.settings.fmt;
                            if let Err(e) = write_row(
                                out,
                                fmt,
                                columns,
                                &r.formats,
                                &row,
                                &mut text,
                                core.settings.client,
                            ) {
                                return Pulled::Ended(Some(e));
                            }
                            if r.rows >= r.limit {
                                return Pulled::Filled;
                            }
                            if out.len() >= OUT_PAUSE {
                                return Pulled::Stopped;
                            }
                        }
                        Sink::Copy(copy) => {
                            let (fmt, client) = (&core.settings.fmt, core.settings.client);
                            if let Err(e) = copy.row(out, &row, fmt, client) {
                                return Pulled::Ended(Some(e));
                            }
                            if out.len() >= OUT_PAUSE {
                                return Pulled::Stopped;
                            }
                        }
                        Sink::Collect(rows, held) | Sink::Hold(rows, held, _) => {
                            if let Err(e) =
                                held.add(row_bytes(&row), MAX_RESULT_BYTES, "query result")
                            {
                                // Past the bound the rows are dropped: they are what it is about.
                                rows.clear();
                                return Pulled::Ended(Some(e));
                            }
                            rows.push(row);
                        }
                    }
                }
                Ok(Step::Done) => return Pulled::Ended(None),
                Ok(Step::Yield) => return Pulled::Stopped,
                Ok(Step::Wait(cell)) => {
                    r.wait = Some(cell);
                    return Pulled::Stopped;
                }
                Err(e) => return Pulled::Ended(Some(e)),
            }
        }
    }

    /// The end of a query: its count for the command tag, its notices, and its CommandComplete
    /// (rows on the wire) or its rows (collected).
    fn end_query(&mut self, r: Running, error: Option<PgError>) -> PgResult<Option<Vec<Row>>> {
        self.core.last_affected = r.exec.affected();
        // The last statement of an implicit transaction: a deferred check that fails ends the
        // statement with its error instead of its CommandComplete (PostgreSQL commits first).
        let error = match error {
            None if self.checks_before_complete
                && self.core.tx == super::txn::TxState::Implicit
                && !matches!(r.sink, Sink::Collect(..)) =>
            {
                self.core.fire_deferred(None).err()
            }
            e => e,
        };
        self.flush_notices();
        match r.sink {
            Sink::Wire => {
                if let Some(e) = error {
                    return Err(e);
                }
                let tag = super::query_tag(r.exec.plan(), r.rows, self.core.last_affected);
                be::command_complete(&mut self.out, &tag);
                Ok(None)
            }
            Sink::Copy(mut copy) => {
                // The rows before an error went out before it, as PostgreSQL streams them.
                if let Some(e) = error {
                    return Err(e);
                }
                copy.end(&mut self.out);
                be::command_complete(&mut self.out, &format!("COPY {}", r.rows));
                Ok(None)
            }
            Sink::Hold(rows, _, describe) => {
                if let Some(e) = error {
                    return Err(e);
                }
                if describe {
                    let client = self.core.settings.client;
                    write_row_description(&mut self.out, r.exec.columns(), &r.formats, client)?;
                }
                self.write_rows(r.exec.columns(), &r.formats, &rows)?;
                let tag = super::query_tag(r.exec.plan(), r.rows, self.core.last_affected);
                be::command_complete(&mut self.out, &tag);
                Ok(None)
            }
            Sink::Collect(rows, _) => match error {
                // The rows before the error go out before it, as PostgreSQL streams them
                // (unless it runs the statement to its end first).
                Some(e) => {
                    if !crate::sql::runs_before_output(r.exec.plan()) {
                        self.write_rows(r.exec.columns(), &r.formats, &rows)?;
                    }
                    Err(e)
                }
                None => Ok(Some(rows)),
            },
        }
    }

    /// Goes on with the suspended statement (the socket loop calls this when what it waited
    /// for happened), and, when it ends, with what follows it and the rest of the input.
    pub(super) fn resume(&mut self, rbuf: &mut bytes::BytesMut) -> Flow {
        let Some(mut r) = self.running.take() else {
            return Flow::Continue;
        };
        let outcome = self.pull(&mut r);
        if let Pulled::Stopped = outcome {
            self.running = Some(r);
            return Flow::Continue;
        }
        if r.snap.is_some() {
            // An open portal's Execute.
            if let Then::Execute {
                name,
                mut portal,
                max_rows: _,
            } = std::mem::replace(&mut r.then, Then::Caller)
            {
                let result = self.portal_outcome(&mut portal, *r, outcome);
                match self.running.as_mut() {
                    Some(again) => {
                        again.then = Then::Execute {
                            name,
                            portal,
                            max_rows: 0,
                        }
                    }
                    None => self.execute_portal_end(name, *portal, result),
                }
            }
            return self.after_resume(rbuf);
        }
        match outcome {
            Pulled::Stopped | Pulled::Filled => {}
            Pulled::Ended(error) => {
                let then = std::mem::replace(&mut r.then, Then::Caller);
                let result = self.end_query(*r, error);
                match then {
                    Then::Caller => {
                        // Every caller fills in `then` before it returns (an internal error).
                        self.report_error(PgError::internal(
                            "a suspended statement lost its place",
                        ));
                        self.ready();
                    }
                    Then::Simple { parsed, index } => {
                        self.simple_resume(parsed, index, result.map(|_| ()))
                    }
                    Then::Execute {
                        name,
                        mut portal,
                        max_rows,
                    } => {
                        let result = match result {
                            Ok(Some(rows)) => {
                                portal.rows = PortalRows::Rows { rows, pos: 0 };
                                self.write_portal_batch(&mut portal, max_rows)
                            }
                            Ok(None) => Ok(()),
                            Err(e) => Err(e),
                        };
                        self.execute_portal_end(name, *portal, result);
                    }
                }
            }
        }
        self.after_resume(rbuf)
    }

    fn after_resume(&mut self, rbuf: &mut bytes::BytesMut) -> Flow {
        if self.closing {
            return Flow::Close;
        }
        if self.running.is_some() {
            return Flow::Continue;
        }
        self.process_input(rbuf)
    }
}
