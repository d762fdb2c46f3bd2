//! The protocol state machine: each frontend message, decoded from the read buffer, is handled
//! here synchronously and its answer appended to the output buffer. Simple Query (one implicit
//! transaction for its statements), the extended protocol (Parse, Bind, Describe, Execute, Sync,
//! Close; skip to Sync after an error), the statements both run (queries and EXECUTE here,
//! utility statements in `utility.rs`), error reporting and ReadyForQuery.

use std::borrow::Cow;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;

use bytes::{Buf, BytesMut};

use super::conn::CLIENT_READ;
use super::encoding;
use super::messages;
use super::results::{format_code, formats_from, write_row_description};
use super::running::{reads_as_fetched, Sink, Then};
use super::txn::TxState;
use super::utility::{show_column, text_col};
use super::{
    hash_str, now_ts, Portal, PortalRows, Prepared, Replan, ReplanSource, Session, MAX_PORTALS,
    MAX_PREPARED,
};
use crate::error::{code, PgError, PgResult};
use crate::sql::exec::EvalCx;
use crate::sql::plan::Column;
use crate::sql::types::{io, Type, Value};
use crate::sql::{self, Statement};
use crate::wire::backend::{self as be, TxStatus};
use crate::wire::frontend::{self as fe, Message};
use crate::wire::Format;

pub(super) enum Flow {
    Continue,
    Close,
}

/// What comes after one statement of a simple Query.
enum Next {
    /// The next statement.
    Go,
    /// The end of the Query (an error): the implicit commit, ReadyForQuery.
    Stop,
    /// Nothing now: the session closes, or COPY FROM STDIN goes on with the input.
    Leave,
}

impl Session {
    pub(super) fn fatal(&mut self, e: PgError) {
        messages::log_message(&self.core.settings, self.core.shared.pid, &e);
        be::error_or_notice_in(&mut self.out, &e, self.core.settings.client);
        self.closing = true;
        // As PostgreSQL's proc_exit: the open transaction rolls back (its rows and locks are
        // released) before the client reads the FATAL.
        self.core.abort();
    }

    /// Handles every whole message in `rbuf`.
    pub(super) fn process_input(&mut self, rbuf: &mut BytesMut) -> Flow {
        // A message converted from the client's encoding, when it is not UTF8.
        let mut conv = Vec::new();
        loop {
            let n = match fe::frame(rbuf, self.core.instance.config.max_message_size) {
                Ok(Some(n)) => n,
                Ok(None) => return Flow::Continue,
                Err(e) => {
                    self.fatal(e);
                    return Flow::Close;
                }
            };
            let msg = match encoding::decode(self.core.settings.client, &rbuf[..n], &mut conv) {
                Ok(m) => m,
                Err(e) => {
                    self.fatal(e);
                    return Flow::Close;
                }
            };
            let flow = self.guarded(|s| s.handle(msg));
            rbuf.advance(n);
            if let Flow::Close = flow {
                return Flow::Close;
            }
            if self.closing {
                return Flow::Close;
            }
            if self.running.is_some() || self.core.committing.is_some() {
                // The statement stopped in the middle, or a commit waits for its flush: the
                // socket loop resumes it (awaits it), and then the rest of the input.
                return Flow::Continue;
            }
        }
    }

    /// Runs `f` (the handling of one message, or the resumption of a statement), catching a
    /// panic: the session ends with FATAL XX000 and the server goes on.
    pub(super) fn guarded(&mut self, f: impl FnOnce(&mut Self) -> Flow) -> Flow {
        let _stack = crate::stack::enter(self.core.settings.max_stack_depth_kb);
        match std::panic::catch_unwind(AssertUnwindSafe(|| f(self))) {
            Ok(flow) => flow,
            Err(panic) => {
                let what = panic_message(&*panic);
                let statement = self.core.shared.activity.lock().query.clone();
                tracing::error!(
                    pid = self.core.shared.pid,
                    %statement,
                    "session panicked: {what}"
                );
                self.running = None;
                self.fatal(PgError::fatal(
                    code::INTERNAL_ERROR,
                    format!("internal error in session: {what}"),
                ));
                Flow::Close
            }
        }
    }

    fn handle(&mut self, msg: Message) -> Flow {
        // The socket loop awaits a deferred commit before more input is handled; should a path
        // come here first, the commit ends in place.
        self.core.finish_commit_blocking();
        if self.copy_in.is_some()
            && !matches!(
                msg,
                Message::CopyData(_)
                    | Message::CopyDone
                    | Message::CopyFail(_)
                    | Message::Flush
                    | Message::Sync
                    | Message::Terminate
            )
        {
            // PostgreSQL fails the COPY on any other message.
            self.copy_end(Some("unexpected message type during COPY from stdin"));
        }
        if self.skip_until_sync && !matches!(msg, Message::Sync | Message::Terminate) {
            return Flow::Continue;
        }
        match msg {
            Message::Query(text) => self.simple_query(text),
            Message::Parse {
                name,
                query,
                param_types,
            } => {
                self.debug_parse(name, query);
                let r = self.parse(name.to_string(), query, param_types);
                self.ext_result(r, be::parse_complete);
            }
            Message::Bind {
                portal,
                statement,
                param_formats,
                params,
                result_formats,
            } => {
                self.debug_bind(portal, statement);
                let r = self.bind(portal, statement, param_formats, params, result_formats);
                self.ext_result(r, be::bind_complete);
            }
            Message::Describe { kind, name } => {
                let r = self.describe(kind, name);
                self.ext_result(r, |_| {});
            }
            Message::Execute { portal, max_rows } => {
                let r = self.execute_portal(portal, max_rows);
                self.ext_result(r, |_| {});
            }
            Message::Malformed {
                ty,
                statement,
                error,
            } => {
                let error = match statement {
                    Some(st) if ty == b'B' => self.find_prepared(&st).err().unwrap_or(error),
                    _ => error,
                };
                if ty == b'Q' {
                    self.report_error(error);
                    self.ready();
                } else {
                    self.ext_result::<()>(Err(error), |_| {});
                }
            }
            Message::Close { kind, .. } if kind != b'S' && kind != b'P' => {
                let e = PgError::new(
                    code::PROTOCOL_VIOLATION,
                    format!("invalid CLOSE message subtype {kind}"),
                );
                self.ext_result::<()>(Err(e), |_| {});
            }
            Message::Close { kind, name } => {
                match kind {
                    b'S' => {
                        if name.is_empty() {
                            self.unnamed = None;
                        } else {
                            self.prepared.remove(name);
                        }
                    }
                    _ => {
                        self.portals.remove(name);
                    }
                }
                be::close_complete(&mut self.out);
            }
            Message::Sync => self.sync(),
            Message::Flush => {}
            Message::Terminate => return Flow::Close,
            Message::CopyData(d) => self.copy_data(d),
            Message::CopyDone => self.copy_end(None),
            Message::CopyFail(m) => self.copy_end(Some(m)),
            Message::Password(_) => {
                self.fatal(PgError::protocol_violation("unexpected password message"));
                return Flow::Close;
            }
            Message::FunctionCall => {
                let e = PgError::feature_not_supported("fastpath function calls are not supported");
                self.ext_result::<()>(Err(e), |_| {});
            }
        }
        if self.closing {
            Flow::Close
        } else {
            Flow::Continue
        }
    }

    /// Finishes an extended-protocol message: on success writes its completion message, on
    /// error reports it and skips to Sync.
    fn ext_result<T>(&mut self, r: PgResult<T>, ok: impl FnOnce(&mut BytesMut)) {
        self.flush_notices();
        match r {
            Ok(_) => ok(&mut self.out),
            Err(e) => {
                self.report_error(e);
                self.skip_until_sync = true;
            }
        }
    }

    pub(super) fn flush_notices(&mut self) {
        for n in std::mem::take(&mut self.core.notices) {
            self.send_notice(&n);
        }
    }

    /// Sends an error and moves the transaction to the failed state (or aborts an implicit one).
    pub(super) fn report_error(&mut self, e: PgError) {
        if e.is_fatal() {
            self.fatal(e);
            return;
        }
        messages::log_message(&self.core.settings, self.core.shared.pid, &e);
        be::error_or_notice_in(&mut self.out, &e, self.core.settings.client);
        match self.core.tx {
            TxState::Block => {
                self.core.tx = TxState::Failed;
                self.core.release_at_error();
            }
            TxState::Implicit => self.core.abort(),
            _ => {}
        }
        self.report_settings();
    }

    fn tx_status(&self) -> TxStatus {
        match self.core.tx {
            TxState::Idle | TxState::Implicit => TxStatus::Idle,
            TxState::Block => TxStatus::InBlock,
            TxState::Failed => TxStatus::Failed,
        }
    }

    /// ReadyForQuery, preceded by pending notifications when the session is idle.
    pub(super) fn ready(&mut self) {
        if self.core.committing.is_some() {
            // After the commit's end (`conn.rs`), with its notifications.
            self.ready_after_commit = true;
            return;
        }
        if self.closing {
            // A FATAL was sent (pg_terminate_backend of the session itself): the connection
            // closes after it, with nothing more.
            return;
        }
        if self.core.tx == TxState::Idle {
            self.deliver_notifications(usize::MAX);
            if self.closing {
                // A notification the client's encoding cannot carry: FATAL, nothing more.
                return;
            }
        }
        self.report_settings();
        let status = self.tx_status();
        be::ready_for_query(&mut self.out, status);
        let state = match self.core.tx {
            TxState::Idle | TxState::Implicit => "idle",
            TxState::Block => "idle in transaction",
            TxState::Failed => "idle in transaction (aborted)",
        };
        let mut a = self.core.shared.activity.lock();
        a.state = state;
        a.state_change = Some(now_ts());
        // What an idle session waits for; set here, under the lock taken anyway.
        a.set_wait(Some(CLIENT_READ));
        self.core.wait_shown = Some(CLIENT_READ);
        if self.core.tx == TxState::Idle {
            a.xact_start = None;
        }
    }

    /// Sends ParameterStatus for reported settings whose value changed.
    fn report_settings(&mut self) {
        if !self.core.settings_dirty {
            return;
        }
        self.core.settings_dirty = false;
        let fixed = self.core.fixed();
        for (i, (name, value)) in self.core.settings.reported(&fixed).into_iter().enumerate() {
            let h = hash_str(&value);
            if self.reported[i] != h {
                self.reported[i] = h;
                be::parameter_status_in(&mut self.out, name, &value, self.core.settings.client);
                if name == "application_name" {
                    self.core.shared.activity.lock().application_name = value;
                }
            }
        }
    }

    // ------------------------------------------------------------ simple query

    fn simple_query(&mut self, text: &str) {
        let parsed = match self.core.instance.parse_cache.parse_simple(text) {
            Ok(p) => p,
            Err(e) => {
                self.core.begin_statement(&Arc::from(text));
                self.report_error(e);
                self.ready();
                return;
            }
        };
        for n in &parsed.notices {
            self.send_notice(n);
        }
        if parsed.stmts.is_empty() {
            be::empty_query(&mut self.out);
            self.ready();
            return;
        }
        self.simple_from(parsed, 0);
    }

    /// Runs the statements of a simple Query from `start` on, then ReadyForQuery; stops at a
    /// COPY FROM STDIN, which goes on here when its data has arrived, and at a statement that
    /// stopped in the middle (`running.rs`), which goes on in [`Self::simple_resume`].
    pub(super) fn simple_from(&mut self, parsed: Arc<crate::sql::parser::Parsed>, start: usize) {
        let count = parsed.stmts.len();
        for i in start..count {
            if self.core.committing.is_some() {
                // The statements after a COMMIT run once it is visible (`conn.rs`).
                self.after_commit = Some((parsed, i));
                return;
            }
            let raw = &parsed.stmts[i];
            // pg_stat_activity shows the whole query string, as PostgreSQL does.
            self.core.begin_statement(&parsed.text);
            self.checks_before_complete = i + 1 == count;
            self.core.multi_statement = count > 1;
            let r = match (&raw.constant, &parsed.literals) {
                (Some(c), None) => {
                    let stmt = crate::sql::Statement::Channel(c.clone());
                    self.run_statement(&stmt, Vec::new(), &[], false)
                }
                _ => self.run_simple(&parsed, i),
            };
            self.core.multi_statement = false;
            if r.is_ok() {
                if let Some(running) = self.running.as_mut() {
                    running.then = Then::Simple { parsed, index: i };
                    return;
                }
            }
            match self.simple_after(&parsed, i, r) {
                Next::Go => {}
                Next::Stop => break,
                Next::Leave => return,
            }
        }
        self.simple_end();
    }

    /// Statement `index` of a simple Query ended after it had stopped in the middle: what
    /// follows it, as in [`Self::simple_from`].
    pub(super) fn simple_resume(
        &mut self,
        parsed: Arc<crate::sql::parser::Parsed>,
        index: usize,
        r: PgResult<()>,
    ) {
        match self.simple_after(&parsed, index, r) {
            Next::Go => self.simple_from(parsed, index + 1),
            Next::Stop => self.simple_end(),
            Next::Leave => {}
        }
    }

    /// After statement `i` of a simple Query: its error, COPY FROM STDIN, the implicit commit.
    fn simple_after(
        &mut self,
        parsed: &Arc<crate::sql::parser::Parsed>,
        i: usize,
        r: PgResult<()>,
    ) -> Next {
        let count = parsed.stmts.len();
        self.flush_notices();
        if let Err(e) = r {
            self.report_error(e);
            return Next::Stop;
        }
        if self.closing {
            return Next::Leave;
        }
        if let Some(c) = self.copy_in.as_mut() {
            c.resume = Some((parsed.clone(), i + 1));
            return Next::Leave;
        }
        // A single statement outside a block commits by itself; several statements in one
        // Query form one implicit transaction that commits after the last.
        if self.core.tx == TxState::Implicit && (count == 1 || i == count - 1) {
            if let Err(e) = self.core.commit_deferred() {
                self.flush_notices();
                self.report_error(e);
                return Next::Stop;
            }
            self.flush_notices();
        }
        Next::Go
    }

    /// The end of a simple Query: the implicit transaction commits; ReadyForQuery.
    fn simple_end(&mut self) {
        if self.core.tx == TxState::Implicit {
            if let Err(e) = self.core.commit_deferred() {
                self.report_error(e);
            }
            self.flush_notices();
        }
        self.ready();
    }

    /// Analyzes and runs statement `i` of a simple Query.
    fn run_simple(&mut self, parsed: &Arc<crate::sql::parser::Parsed>, i: usize) -> PgResult<()> {
        use crate::sql::parser::shape;
        let mut tries = 0;
        // The text parsed on its own, when sharing another text's tree did not work out.
        let mut alone: Option<crate::sql::parser::Parsed> = None;
        let stmt = loop {
            let mut params = Vec::new();
            let epoch = self.core.instance.catalog.epoch();
            let node = &alone.as_ref().map_or(&parsed.stmts, |p| &p.stmts)[i].node;
            let scope = match (&alone, &parsed.literals) {
                (None, Some(bound)) => shape::enter(bound, i),
                _ => None,
            };
            let stmt = sql::analyze_in(
                node,
                &mut params,
                &self.core.settings.fmt,
                sql::Mode::Simple,
                Some(&self.core.table_cx()),
            );
            if let Some(scope) = scope {
                if !scope.complete() {
                    // A number was read as something else than a value (`shape.rs`): this
                    // analysis used the template's; analyze the text's own tree instead.
                    if stmt.is_ok() {
                        scope.poison();
                    }
                    drop(scope);
                    self.core.plan_locks.borrow_mut().clear();
                    alone = Some(crate::sql::parser::parse_uncached(&parsed.text)?);
                    continue;
                }
            }
            let stmt = match stmt {
                Ok(a) => a.stmt,
                Err(e) => {
                    // Errors in a failed block are still 25P02 for non-transaction statements.
                    if self.core.tx == TxState::Failed {
                        return Err(PgError::in_failed_transaction());
                    }
                    return Err(e);
                }
            };
            // The tables' locks, as PostgreSQL takes them while it analyzes; a lock that had to
            // wait for DDL means the tables may have changed: analyze again (a few times at
            // most, as a DDL storm could go on forever).
            let locks = std::mem::take(&mut *self.core.plan_locks.borrow_mut());
            if locks.is_empty() || self.core.tx == TxState::Failed {
                break stmt;
            }
            self.core.ensure_transaction(&stmt);
            let waited = self.core.lock_relations(&locks)?;
            tries += 1;
            if !waited || self.core.instance.catalog.epoch() == epoch || tries >= 8 {
                break stmt;
            }
        };
        if self.core.tx != TxState::Failed {
            self.core.check_perms(&self.core.plan_perms.list())?;
        }
        self.run_statement(&stmt, Vec::new(), &[], false)
    }

    // ------------------------------------------------------------ statements

    /// Runs one statement; writes its rows (with a RowDescription when not `from_execute`) and
    /// its CommandComplete. A query may stop in the middle (`running.rs`): then it is in
    /// `self.running` when this returns Ok, and the caller says what follows it.
    fn run_statement(
        &mut self,
        stmt: &Statement,
        params: Vec<Value>,
        formats: &[Format],
        from_execute: bool,
    ) -> PgResult<()> {
        self.core.check_failed(stmt)?;
        self.core.ensure_transaction(stmt);
        match stmt {
            Statement::Query(plan) => {
                // PostgreSQL describes the result before running the query, so a query that
                // fails while running still sends its RowDescription first; except one that
                // it runs to its end before sending anything (`sql::runs_before_output`).
                let describe = !from_execute && sql::returns_rows(plan);
                if sql::runs_before_output(plan) {
                    let sink = Sink::Hold(Vec::new(), Default::default(), describe);
                    self.start_query(plan, params, formats_from(formats), sink)?;
                    return Ok(());
                }
                if describe {
                    write_row_description(
                        &mut self.out,
                        &plan.columns,
                        formats,
                        self.core.settings.client,
                    )?;
                }
                self.start_query(plan, params, formats_from(formats), Sink::Wire)?;
                Ok(())
            }
            Statement::Deferred(node) => {
                // Analyzed when it runs (a statement PostgreSQL plans at execution: COPY
                // through the extended protocol), then run as if it had come so.
                let mut types = Vec::new();
                let a = sql::analyze_in(
                    node,
                    &mut types,
                    &self.core.settings.fmt,
                    sql::Mode::Simple,
                    Some(&self.core.table_cx()),
                )?;
                let locks = std::mem::take(&mut *self.core.plan_locks.borrow_mut());
                if !locks.is_empty() {
                    self.core.lock_relations(&locks)?;
                }
                self.core.check_perms(&self.core.plan_perms.take())?;
                self.run_statement(&a.stmt, params, formats, from_execute)
            }
            Statement::CopyTo { plan, options } => {
                // Streamed like a query's rows (`running.rs`), as CopyData.
                let copy = self.copy_out_begin(&plan.columns, options)?;
                self.start_query(plan, params, formats_from(&[]), Sink::Copy(Box::new(copy)))?;
                Ok(())
            }
            Statement::Execute {
                name,
                params: exprs,
            } => {
                let target = self.prepared.get(name).cloned().ok_or_else(|| {
                    PgError::new(
                        code::INVALID_SQL_STATEMENT_NAME,
                        format!("prepared statement \"{name}\" does not exist"),
                    )
                })?;
                let target = self.revalidate(name, target)?;
                if let Some(e) = &target.deferred {
                    return Err(e.clone());
                }
                if !checks_at_bind(&target.stmt) {
                    if let Some(r) = &target.replan {
                        self.core.check_perms(&r.perms)?;
                    }
                }
                if exprs.len() != target.param_types.len() {
                    return Err(PgError::new(
                        code::SYNTAX_ERROR,
                        format!("wrong number of parameters for prepared statement \"{name}\""),
                    )
                    .with_detail(format!(
                        "Expected {} parameters but got {}.",
                        target.param_types.len(),
                        exprs.len()
                    )));
                }
                let mut values = Vec::new();
                for ((e, t, at), want) in exprs.iter().zip(&target.param_types) {
                    let at = (*at >= 0).then_some(*at as u32 + 1);
                    let mut cx = EvalCx {
                        params: &params,
                        outer: Vec::new(),
                        session: &mut self.core,
                    };
                    let v = e.eval(&[], &mut cx).map_err(|e| e.at(at))?;
                    let v = if *t == *want || v.is_null() {
                        v
                    } else {
                        crate::sql::types::cast::cast(v, *t, *want, -1, &self.core.settings.fmt)
                            .map_err(|e| e.at(at))?
                    };
                    values.push(v);
                }
                self.run_statement(&target.stmt, values, formats, from_execute)
            }
            other => {
                self.described = from_execute;
                self.utility_formats = formats_from(formats);
                let tag = self.run_utility(other);
                self.described = false;
                self.flush_notices();
                if let Some(tag) = tag? {
                    be::command_complete(&mut self.out, &tag);
                }
                Ok(())
            }
        }
    }

    pub(super) fn add_prepared(&mut self, name: String, p: Prepared) -> PgResult<()> {
        if self.prepared.len() >= MAX_PREPARED && !self.prepared.contains_key(&name) {
            return Err(PgError::new(
                code::PROGRAM_LIMIT_EXCEEDED,
                format!("too many prepared statements (at most {MAX_PREPARED} per session)"),
            ));
        }
        self.prepared.insert(name, Arc::new(p));
        Ok(())
    }

    // ------------------------------------------------------------ extended protocol

    fn parse(&mut self, name: String, query: &str, param_types: Vec<u32>) -> PgResult<()> {
        if !name.is_empty() && self.prepared.contains_key(&name) {
            return Err(PgError::new(
                code::DUPLICATE_PREPARED_STATEMENT,
                format!("prepared statement \"{name}\" already exists"),
            ));
        }
        let parsed = match self.core.instance.parse_cache.parse(query) {
            Ok(p) => p,
            Err(e) => {
                self.core.begin_statement(&Arc::from(query));
                return Err(e);
            }
        };
        self.core.begin_statement(&parsed.text);
        for n in &parsed.notices {
            self.core.notices.push(n.clone());
        }
        if parsed.stmts.len() > 1 {
            return Err(PgError::syntax(
                "cannot insert multiple commands into a prepared statement",
            ));
        }
        let mut types: Vec<Type> = param_types
            .iter()
            .map(|&o| if o == 0 { Type::UNKNOWN } else { Type(o) })
            .collect();
        let (stmt, deferred) = match parsed.stmts.first() {
            None => (Statement::NoOp(""), None),
            Some(raw) => {
                if self.core.tx == TxState::Failed && !is_tx_control(&raw.node) {
                    return Err(PgError::in_failed_transaction());
                }
                let a = sql::analyze_in(
                    &raw.node,
                    &mut types,
                    &self.core.settings.fmt,
                    sql::Mode::Extended,
                    Some(&self.core.table_cx()),
                )?;
                if let Statement::Show(n) = &a.stmt {
                    // PostgreSQL resolves the setting when it analyzes SHOW.
                    if n != "all" {
                        self.core.show(n)?;
                    }
                }
                (a.stmt, a.deferred)
            }
        };
        let replan = self.core.tables_used.get().then(|| Replan {
            source: ReplanSource::Parsed(parsed.clone()),
            epoch: self.core.instance.catalog.epoch(),
            locks: std::mem::take(&mut *self.core.plan_locks.borrow_mut()),
            perms: self.core.plan_perms.take(),
        });
        let p = Prepared {
            deferred,
            replan,
            text: parsed.text.clone(),
            stmt: Arc::new(stmt),
            param_types: types
                .into_iter()
                .map(|t| if t == Type::UNKNOWN { Type::TEXT } else { t })
                .collect(),
        };
        if name.is_empty() {
            self.unnamed = Some(Arc::new(p));
        } else {
            self.add_prepared(name, p)?;
        }
        Ok(())
    }

    fn find_prepared(&self, name: &str) -> PgResult<Arc<Prepared>> {
        let p = if name.is_empty() {
            self.unnamed.clone()
        } else {
            self.prepared.get(name).cloned()
        };
        p.ok_or_else(|| {
            PgError::new(
                code::INVALID_SQL_STATEMENT_NAME,
                if name.is_empty() {
                    "unnamed prepared statement does not exist".to_string()
                } else {
                    format!("prepared statement \"{name}\" does not exist")
                },
            )
        })
    }

    /// Plans a prepared statement over tables again if the schema changed since it was planned
    /// (PostgreSQL's plan invalidation): same parameters; a different result shape fails with
    /// 0A000 `cached plan must not change result type`, as in PostgreSQL.
    pub(super) fn revalidate(&mut self, name: &str, p: Arc<Prepared>) -> PgResult<Arc<Prepared>> {
        let Some(r) = &p.replan else {
            return Ok(p);
        };
        if self.core.tx != TxState::Failed && !r.locks.is_empty() {
            self.core.ensure_transaction(&p.stmt);
            self.core.lock_relations(&r.locks)?;
        }
        let epoch = self.core.instance.catalog.epoch();
        if r.epoch == epoch {
            if self.core.tx != TxState::Failed && checks_at_bind(&p.stmt) {
                self.core.check_perms(&r.perms)?;
            }
            return Ok(p);
        }
        let node = match &r.source {
            ReplanSource::Parsed(parsed) => match parsed.stmts.first() {
                Some(raw) => raw.node.clone(),
                None => return Ok(p),
            },
            ReplanSource::Node(n) => (**n).clone(),
        };
        let mut types = p.param_types.clone();
        let a = sql::analyze_in(
            &node,
            &mut types,
            &self.core.settings.fmt,
            sql::Mode::Extended,
            Some(&self.core.table_cx()),
        )?;
        let shape = |s: &Statement| match s {
            Statement::Query(plan) if sql::returns_rows(plan) => Some(
                plan.columns
                    .iter()
                    .map(|c| (c.ty, c.typmod))
                    .collect::<Vec<_>>(),
            ),
            _ => None,
        };
        if shape(&a.stmt) != shape(&p.stmt) {
            return Err(PgError::feature_not_supported(
                "cached plan must not change result type",
            ));
        }
        let locks = std::mem::take(&mut *self.core.plan_locks.borrow_mut());
        let perms = self.core.plan_perms.take();
        if self.core.tx != TxState::Failed && !locks.is_empty() {
            self.core.ensure_transaction(&a.stmt);
            self.core.lock_relations(&locks)?;
        }
        if self.core.tx != TxState::Failed && checks_at_bind(&a.stmt) {
            self.core.check_perms(&perms)?;
        }
        let fresh = Arc::new(Prepared {
            text: p.text.clone(),
            stmt: Arc::new(a.stmt),
            param_types: p.param_types.clone(),
            deferred: a.deferred,
            replan: Some(Replan {
                source: match &r.source {
                    ReplanSource::Parsed(x) => ReplanSource::Parsed(x.clone()),
                    ReplanSource::Node(n) => ReplanSource::Node(n.clone()),
                },
                epoch,
                locks,
                perms,
            }),
        });
        if name.is_empty() {
            self.unnamed = Some(fresh.clone());
        } else if let Some(slot) = self.prepared.get_mut(name) {
            *slot = fresh.clone();
        }
        Ok(fresh)
    }

    fn bind(
        &mut self,
        portal: &str,
        statement: &str,
        param_formats: fe::Codes<'_>,
        params: Vec<Option<&[u8]>>,
        result_formats: fe::Codes<'_>,
    ) -> PgResult<()> {
        let prepared = self.find_prepared(statement)?;
        let prepared = self.revalidate(statement, prepared)?;
        if let Some(e) = &prepared.deferred {
            if self.core.tx != TxState::Failed {
                return Err(e.clone());
            }
        }
        if self.core.tx == TxState::Failed
            && !matches!(
                *prepared.stmt,
                Statement::Commit { .. }
                    | Statement::Rollback { .. }
                    | Statement::RollbackTo(_)
                    | Statement::PrepareTransaction
            )
        {
            return Err(PgError::in_failed_transaction());
        }
        if params.len() != prepared.param_types.len() {
            return Err(PgError::new(
                code::PROTOCOL_VIOLATION,
                format!(
                    "bind message supplies {} parameters, but prepared statement \"{}\" requires {}",
                    params.len(),
                    statement,
                    prepared.param_types.len()
                ),
            ));
        }
        if param_formats.len() > 1 && param_formats.len() != params.len() {
            return Err(PgError::new(
                code::PROTOCOL_VIOLATION,
                format!(
                    "bind message has {} parameter formats but {} parameters",
                    param_formats.len(),
                    params.len()
                ),
            ));
        }
        let mut values = Vec::with_capacity(params.len());
        for (i, p) in params.into_iter().enumerate() {
            let ty = prepared.param_types[i];
            let fmt_code = match param_formats.len() {
                0 => 0,
                1 => param_formats.get(0),
                _ => param_formats.get(i),
            };
            let v = match p {
                None => Value::Null,
                Some(bytes) => match format_code(fmt_code)? {
                    Format::Text => {
                        let s = encoding::text_in(self.core.settings.client, bytes)?;
                        io::from_text(&s, ty, -1, &self.core.settings.fmt)?
                    }
                    Format::Binary => io::from_binary(
                        &encoding::binary_param(self.core.settings.client, bytes, ty)?,
                        ty,
                    )
                    .map_err(|mut e| {
                        if e.message == "incorrect binary data format" {
                            e.message =
                                format!("incorrect binary data format in bind parameter {}", i + 1);
                        }
                        e
                    })?,
                },
            };
            values.push(v);
        }
        let formats = match result_formats.len() {
            0 => Cow::Borrowed(&[][..]),
            1 => formats_from(&[format_code(result_formats.get(0))?]),
            _ => Cow::Owned(
                result_formats
                    .iter()
                    .map(format_code)
                    .collect::<PgResult<Vec<_>>>()?,
            ),
        };
        let columns = match &*prepared.stmt {
            Statement::Query(plan) => plan.columns.len(),
            Statement::Show(_) => 1,
            _ => 0,
        };
        if formats.len() > 1 && formats.len() != columns {
            return Err(PgError::new(
                code::PROTOCOL_VIOLATION,
                format!(
                    "bind message has {} result formats but query has {} columns",
                    formats.len(),
                    columns
                ),
            ));
        }
        if !portal.is_empty() && self.portals.contains_key(portal) {
            return Err(PgError::new(
                code::DUPLICATE_CURSOR,
                format!("cursor \"{portal}\" already exists"),
            ));
        }
        if self.portals.len() >= MAX_PORTALS && !self.portals.contains_key(portal) {
            return Err(PgError::new(
                code::PROGRAM_LIMIT_EXCEEDED,
                format!("too many open portals (at most {MAX_PORTALS} per session)"),
            ));
        }
        // A Bind starts the implicit transaction the portal lives in.
        self.core.ensure_transaction(&prepared.stmt);
        self.portals.insert(
            portal.to_string(),
            Portal {
                prepared,
                params: values,
                formats,
                rows: PortalRows::NotRun,
                hold: false,
            },
        );
        Ok(())
    }

    /// The columns a statement returns, for Describe; None for statements without rows.
    fn result_columns(&self, stmt: &Statement) -> PgResult<Option<Vec<Column>>> {
        Ok(match stmt {
            Statement::Query(plan) if !sql::returns_rows(plan) => None,
            Statement::Query(plan) => Some(plan.columns.clone()),
            Statement::Call(plan) if sql::plan::call_returns_row(plan) => {
                Some(plan.columns.clone())
            }
            Statement::Show(n) => {
                if n != "all" {
                    // PostgreSQL checks the name when it describes the result.
                    self.core.show(n)?;
                    Some(vec![text_col(&show_column(n))])
                } else {
                    Some(vec![
                        text_col("name"),
                        text_col("setting"),
                        text_col("description"),
                    ])
                }
            }
            Statement::Execute { name, .. } => match self.prepared.get(name) {
                Some(p) => self.result_columns(&p.stmt)?,
                None => None,
            },
            Statement::Fetch {
                name,
                is_move: false,
                ..
            } => match self.portals.get(name).map(|p| p.prepared.stmt.clone()) {
                Some(stmt) => self.result_columns(&stmt)?,
                None => None,
            },
            _ => None,
        })
    }

    fn describe(&mut self, kind: u8, name: &str) -> PgResult<()> {
        let (stmt, formats) = match kind {
            b'S' => {
                let p = self.find_prepared(name)?;
                let oids: Vec<u32> = p.param_types.iter().map(|t| t.0).collect();
                be::parameter_description(&mut self.out, &oids);
                (p.stmt.clone(), Cow::Borrowed(&[][..]))
            }
            b'P' => {
                let portal = self.portals.get(name).ok_or_else(|| {
                    PgError::new(
                        code::INVALID_CURSOR_NAME,
                        format!("portal \"{name}\" does not exist"),
                    )
                })?;
                (portal.prepared.stmt.clone(), portal.formats.clone())
            }
            _ => {
                return Err(PgError::new(
                    code::PROTOCOL_VIOLATION,
                    format!("invalid DESCRIBE message subtype {kind}"),
                ))
            }
        };
        match self.result_columns(&stmt)? {
            Some(cols) => {
                write_row_description(&mut self.out, &cols, &formats, self.core.settings.client)?
            }
            None => be::no_data(&mut self.out),
        }
        Ok(())
    }

    fn execute_portal(&mut self, name: &str, max_rows: i32) -> PgResult<()> {
        // Execute's CommandComplete comes before the commit at Sync.
        self.checks_before_complete = false;
        let Some(mut portal) = self.portals.remove(name) else {
            return Err(PgError::new(
                code::INVALID_CURSOR_NAME,
                format!("portal \"{name}\" does not exist"),
            ));
        };
        if !portal.prepared.text.is_empty() {
            self.core.begin_statement(&portal.prepared.text);
        }
        let result = self.execute_portal_inner(&mut portal, max_rows);
        if result.is_ok() {
            if let Some(running) = self.running.as_mut() {
                running.then = Then::Execute {
                    name: name.to_string(),
                    portal: Box::new(portal),
                    max_rows,
                };
                return Ok(());
            }
        }
        self.keep_portal(name.to_string(), portal);
        result
    }

    /// An Execute whose statement stopped in the middle has ended: the portal goes back, and
    /// the message is answered as [`Self::execute_portal`] would have.
    pub(super) fn execute_portal_end(&mut self, name: String, portal: Portal, r: PgResult<()>) {
        self.keep_portal(name, portal);
        self.ext_result(r, |_| {});
    }

    /// The portal survives an Execute unless its transaction ended (COMMIT/ROLLBACK inside it).
    fn keep_portal(&mut self, name: String, portal: Portal) {
        let ended_transaction = matches!(
            *portal.prepared.stmt,
            Statement::Commit { .. } | Statement::Rollback { .. }
        );
        if (self.core.tx != TxState::Idle || portal.hold) && !ended_transaction {
            self.portals.insert(name, portal);
        }
    }

    fn execute_portal_inner(&mut self, portal: &mut Portal, max_rows: i32) -> PgResult<()> {
        let stmt = portal.prepared.stmt.clone();
        match &*stmt {
            Statement::Query(plan) => {
                if let PortalRows::NotRun = portal.rows {
                    self.core.check_failed(&stmt)?;
                    if !checks_at_bind(&stmt) {
                        // A statement that writes starts its executor at Execute.
                        if let Some(r) = &portal.prepared.replan {
                            self.core.check_perms(&r.perms)?;
                        }
                    }
                    self.core.ensure_transaction(&stmt);
                    let params = std::mem::take(&mut portal.params);
                    if max_rows <= 0 {
                        // All rows at once: straight to the wire, as a simple query's.
                        portal.rows = PortalRows::Done;
                        let sink = if sql::runs_before_output(plan) {
                            Sink::Hold(Vec::new(), Default::default(), false)
                        } else {
                            Sink::Wire
                        };
                        self.start_query(plan, params, portal.formats.clone(), sink)?;
                        return Ok(());
                    }
                    if reads_as_fetched(plan) {
                        let open = self.open_query(plan, params)?;
                        return self.execute_open(portal, open, max_rows);
                    }
                    let sink = Sink::Collect(Vec::new(), Default::default());
                    match self.start_query(plan, params, portal.formats.clone(), sink)? {
                        Some(rows) => portal.rows = PortalRows::Rows { rows, pos: 0 },
                        None => return Ok(()),
                    }
                }
                if let PortalRows::Open(_) = portal.rows {
                    let PortalRows::Open(open) =
                        std::mem::replace(&mut portal.rows, PortalRows::Done)
                    else {
                        unreachable!()
                    };
                    return self.execute_open(portal, *open, max_rows);
                }
                self.write_portal_batch(portal, max_rows)
            }
            Statement::NoOp("") => {
                be::empty_query(&mut self.out);
                Ok(())
            }
            _ => {
                if let PortalRows::Done = portal.rows {
                    // Re-executing a utility portal does nothing, as in PostgreSQL.
                    return Ok(());
                }
                portal.rows = PortalRows::Done;
                // The portal was taken out of the session: borrowing it borrows nothing of self.
                self.run_statement(
                    &portal.prepared.stmt,
                    portal.params.clone(),
                    &portal.formats,
                    true,
                )
            }
        }
    }

    /// Writes the next `max_rows` rows of a portal whose rows are made (all when `max_rows` is
    /// 0), then CommandComplete or PortalSuspended.
    pub(super) fn write_portal_batch(
        &mut self,
        portal: &mut Portal,
        max_rows: i32,
    ) -> PgResult<()> {
        let Statement::Query(plan) = &*portal.prepared.stmt else {
            return Ok(());
        };
        match &mut portal.rows {
            PortalRows::Rows { rows, pos } => {
                let limit = if max_rows <= 0 {
                    usize::MAX
                } else {
                    max_rows as usize
                };
                let end = pos.saturating_add(limit).min(rows.len());
                let batch = &rows[*pos..end];
                let n = batch.len();
                *pos = end;
                // Like PostgreSQL, a portal that filled the row limit is suspended even if no
                // rows remain; the next Execute completes it.
                let done = end >= rows.len() && (max_rows <= 0 || n < limit);
                let formats = portal.formats.clone();
                self.write_rows(&plan.columns, &formats, batch)?;
                if done {
                    be::command_complete(
                        &mut self.out,
                        &super::query_tag(plan, n, self.core.last_affected),
                    );
                    portal.rows = PortalRows::Done;
                } else {
                    be::portal_suspended(&mut self.out);
                }
            }
            PortalRows::Done | PortalRows::NotRun | PortalRows::Open(_) => {
                be::command_complete(&mut self.out, "SELECT 0");
            }
        }
        Ok(())
    }

    fn sync(&mut self) {
        self.skip_until_sync = false;
        if self.core.tx == TxState::Implicit {
            if let Err(e) = self.core.commit_deferred() {
                self.flush_notices();
                self.report_error(e);
            }
        }
        self.flush_notices();
        if self.core.tx == TxState::Idle {
            self.portals.retain(|_, p| p.hold);
        }
        self.ready();
    }
}

fn is_tx_control(node: &pg_query::protobuf::node::Node) -> bool {
    use pg_query::protobuf::{node::Node as N, TransactionStmtKind as T};
    match node {
        N::TransactionStmt(t) => {
            t.kind == T::TransStmtCommit as i32
                || t.kind == T::TransStmtRollback as i32
                || t.kind == T::TransStmtRollbackTo as i32
                || t.kind == T::TransStmtPrepare as i32
        }
        _ => false,
    }
}

/// Whether a prepared statement's privileges are checked at Bind (PostgreSQL starts the
/// executor of a plain query there, PORTAL_ONE_SELECT) or at Execute (statements that write:
/// their portal runs the executor only when executed).
fn checks_at_bind(stmt: &Statement) -> bool {
    match stmt {
        Statement::Query(plan) => !sql::runs_before_output(plan),
        _ => true,
    }
}

/// The text a panic was raised with.
pub(super) fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown".into())
}
