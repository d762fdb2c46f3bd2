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
use super::results::{format_code, formats_from, write_row_description};
use super::txn::TxState;
use super::utility::{show_column, text_col};
use super::{
    hash_str, now_ts, Portal, PortalRows, Prepared, Replan, ReplanSource, Session, MAX_PORTALS,
    MAX_PREPARED,
};
use crate::error::{code, PgError, PgResult};
use crate::sql::expr::EvalCx;
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

impl Session {
    pub(super) fn fatal(&mut self, e: PgError) {
        be::error_or_notice(&mut self.out, &e);
        self.closing = true;
    }

    /// Handles every whole message in `rbuf`.
    pub(super) fn process_input(&mut self, rbuf: &mut BytesMut) -> Flow {
        loop {
            let n = match fe::frame(rbuf, self.core.instance.config.max_message_size) {
                Ok(Some(n)) => n,
                Ok(None) => return Flow::Continue,
                Err(e) => {
                    self.fatal(e);
                    return Flow::Close;
                }
            };
            let msg = match fe::decode(&rbuf[..n]) {
                Ok(m) => m,
                Err(e) => {
                    self.fatal(e);
                    return Flow::Close;
                }
            };
            let flow = std::panic::catch_unwind(AssertUnwindSafe(|| self.handle(msg)));
            rbuf.advance(n);
            match flow {
                Ok(Flow::Continue) => {}
                Ok(Flow::Close) => return Flow::Close,
                Err(panic) => {
                    let what = panic
                        .downcast_ref::<&str>()
                        .map(|s| s.to_string())
                        .or_else(|| panic.downcast_ref::<String>().cloned())
                        .unwrap_or_else(|| "unknown".into());
                    tracing::error!(pid = self.core.shared.pid, "session panicked: {what}");
                    self.fatal(PgError::fatal(
                        code::INTERNAL_ERROR,
                        format!("internal error in session: {what}"),
                    ));
                    return Flow::Close;
                }
            }
            if self.closing {
                return Flow::Close;
            }
        }
    }

    fn handle(&mut self, msg: Message) -> Flow {
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
        for n in self.core.notices.drain(..) {
            be::error_or_notice(&mut self.out, &n);
        }
    }

    /// Sends an error and moves the transaction to the failed state (or aborts an implicit one).
    pub(super) fn report_error(&mut self, e: PgError) {
        if e.is_fatal() {
            self.fatal(e);
            return;
        }
        be::error_or_notice(&mut self.out, &e);
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
        if self.core.tx == TxState::Idle {
            self.deliver_notifications(usize::MAX);
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
                be::parameter_status(&mut self.out, name, &value);
                if name == "application_name" {
                    self.core.shared.activity.lock().application_name = value;
                }
            }
        }
    }

    // ------------------------------------------------------------ simple query

    fn simple_query(&mut self, text: &str) {
        let parsed = match self.core.instance.parse_cache.parse(text) {
            Ok(p) => p,
            Err(e) => {
                self.core.begin_statement(&Arc::from(text));
                self.report_error(e);
                self.ready();
                return;
            }
        };
        for n in &parsed.notices {
            be::error_or_notice(&mut self.out, n);
        }
        if parsed.stmts.is_empty() {
            be::empty_query(&mut self.out);
            self.ready();
            return;
        }
        self.simple_from(parsed, 0);
    }

    /// Runs the statements of a simple Query from `start` on, then ReadyForQuery; stops at a
    /// COPY FROM STDIN, which goes on here when its data has arrived.
    pub(super) fn simple_from(&mut self, parsed: Arc<crate::sql::parser::Parsed>, start: usize) {
        let count = parsed.stmts.len();
        for i in start..count {
            let raw = &parsed.stmts[i];
            // pg_stat_activity shows the whole query string, as PostgreSQL does.
            self.core.begin_statement(&parsed.text);
            let r = match &raw.constant {
                Some(stmt) => self.run_statement(stmt, &[], &[], None, false),
                None => self.run_simple(&raw.node, count > 1),
            };
            self.flush_notices();
            if let Err(e) = r {
                self.report_error(e);
                break;
            }
            if self.closing {
                return;
            }
            if let Some(c) = self.copy_in.as_mut() {
                c.resume = Some((parsed.clone(), i + 1));
                return;
            }
            // A single statement outside a block commits by itself; several statements in one
            // Query form one implicit transaction that commits after the last.
            if self.core.tx == TxState::Implicit && (count == 1 || i == count - 1) {
                if let Err(e) = self.core.commit() {
                    self.flush_notices();
                    self.report_error(e);
                    break;
                }
                self.flush_notices();
            }
        }
        if self.core.tx == TxState::Implicit {
            if let Err(e) = self.core.commit() {
                self.report_error(e);
            }
            self.flush_notices();
        }
        self.ready();
    }

    fn run_simple(&mut self, node: &pg_query::protobuf::node::Node, multi: bool) -> PgResult<()> {
        let mut params = Vec::new();
        let stmt = sql::analyze_in(
            node,
            &mut params,
            &self.core.settings.fmt,
            sql::Mode::Simple,
            Some(&self.core.table_cx()),
        );
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
        let _ = multi;
        self.run_statement(&stmt, &[], &[], None, false)
    }

    // ------------------------------------------------------------ statements

    /// Runs one statement; writes its rows (with a RowDescription when `describe`) and its
    /// CommandComplete. `max_rows` and `portal` are for extended-protocol Execute.
    fn run_statement(
        &mut self,
        stmt: &Statement,
        params: &[Value],
        formats: &[Format],
        _portal: Option<&str>,
        from_execute: bool,
    ) -> PgResult<()> {
        self.core.check_failed(stmt)?;
        self.core.ensure_transaction(stmt);
        match stmt {
            Statement::Query(plan) => {
                // PostgreSQL describes the result before running the query, so a query that
                // fails while running still sends its RowDescription first.
                let describe = !from_execute && sql::returns_rows(plan);
                let buffered = sql::runs_before_output(plan);
                if describe && !buffered {
                    write_row_description(&mut self.out, &plan.columns, formats);
                }
                // Rows made before an error are sent before it, as PostgreSQL streams them.
                let (rows, error) = self.core.run_query_partial(plan, params);
                self.flush_notices();
                if describe && buffered && error.is_none() {
                    write_row_description(&mut self.out, &plan.columns, formats);
                }
                let n = rows.len();
                self.write_rows(&plan.columns, formats, &rows)?;
                if let Some(e) = error {
                    return Err(e);
                }
                be::command_complete(
                    &mut self.out,
                    &super::query_tag(plan, n, self.core.last_affected),
                );
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
                        params,
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
                self.run_statement(&target.stmt, &values, formats, None, from_execute)
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
        let epoch = self.core.instance.catalog.epoch();
        if r.epoch == epoch {
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
                Statement::Commit { .. } | Statement::Rollback { .. } | Statement::RollbackTo(_)
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
                        let s = std::str::from_utf8(bytes).map_err(|_| {
                            PgError::new(
                                code::CHARACTER_NOT_IN_REPERTOIRE,
                                "invalid byte sequence for encoding \"UTF8\"",
                            )
                        })?;
                        io::from_text(s, ty, -1, &self.core.settings.fmt)?
                    }
                    Format::Binary => io::from_binary(bytes, ty).map_err(|mut e| {
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
            Some(cols) => write_row_description(&mut self.out, &cols, &formats),
            None => be::no_data(&mut self.out),
        }
        Ok(())
    }

    fn execute_portal(&mut self, name: &str, max_rows: i32) -> PgResult<()> {
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
        // The portal survives unless its transaction ended (COMMIT/ROLLBACK inside it).
        let ended_transaction = matches!(
            *portal.prepared.stmt,
            Statement::Commit { .. } | Statement::Rollback { .. }
        );
        if (self.core.tx != TxState::Idle || portal.hold) && !ended_transaction {
            self.portals.insert(name.to_string(), portal);
        }
        result
    }

    fn execute_portal_inner(&mut self, portal: &mut Portal, max_rows: i32) -> PgResult<()> {
        let stmt = portal.prepared.stmt.clone();
        match &*stmt {
            Statement::Query(plan) => {
                if let PortalRows::NotRun = portal.rows {
                    self.core.check_failed(&stmt)?;
                    self.core.ensure_transaction(&stmt);
                    let (rows, error) = self.core.run_query_partial(plan, &portal.params);
                    if let Some(e) = error {
                        let formats = portal.formats.clone();
                        self.write_rows(&plan.columns, &formats, &rows)?;
                        return Err(e);
                    }
                    portal.rows = PortalRows::Rows { rows, pos: 0 };
                }
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
                        let formats = portal.formats.clone();
                        let batch = batch.to_vec();
                        *pos = end;
                        // Like PostgreSQL, a portal that filled the row limit is suspended even
                        // if no rows remain; the next Execute completes it.
                        let done = end >= rows.len() && (max_rows <= 0 || n < limit);
                        self.write_rows(&plan.columns, &formats, &batch)?;
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
                    PortalRows::Done => {
                        be::command_complete(&mut self.out, "SELECT 0");
                    }
                    PortalRows::NotRun => unreachable!(),
                }
                Ok(())
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
                    &portal.params,
                    &portal.formats,
                    None,
                    true,
                )
            }
        }
    }

    fn sync(&mut self) {
        self.skip_until_sync = false;
        if self.core.tx == TxState::Implicit {
            if let Err(e) = self.core.commit() {
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
        }
        _ => false,
    }
}
