//! Utility statements: everything but queries and EXECUTE, run by the session itself because
//! they act on its own state: transaction control (BEGIN, COMMIT, ROLLBACK, SAVEPOINT ...;
//! the transaction itself is in `txn.rs`), settings (SET, SHOW, RESET, SET TRANSACTION),
//! LISTEN/UNLISTEN/NOTIFY, PREPARE/DEALLOCATE, DISCARD, cursors (DECLARE, FETCH, CLOSE),
//! CREATE/DROP DATABASE and COPY TO STDOUT.

use std::borrow::Cow;
use std::sync::Arc;

use super::results::write_row_description;
use super::settings::{self, Settings};
use super::txn::{ListenAction, TxState};
use super::{Core, Portal, PortalRows, Prepared, Session};
use crate::error::{code, PgError, PgResult};
use crate::sql::context::SessionCtx;
use crate::sql::exec::Row;
use crate::sql::parser::ChannelStmt;
use crate::sql::plan::Column;
use crate::sql::types::{Type, Value};
use crate::sql::{self, SetValue, Statement, TxOptions};
use crate::wire::backend as be;

impl Session {
    /// Runs a utility statement; returns its command tag (None when it wrote its own).
    pub(super) fn run_utility(&mut self, stmt: &Statement) -> PgResult<Option<Cow<'static, str>>> {
        // A constant tag for most statements: no allocation.
        let tag = Cow::Borrowed(sql::tag_of(stmt));
        match stmt {
            Statement::Query(_) | Statement::Execute { .. } => unreachable!("handled by caller"),
            Statement::Begin(opts, _) => match self.core.tx {
                TxState::Block | TxState::Failed => {
                    self.core.notices.push(PgError::warning(
                        code::ACTIVE_SQL_TRANSACTION,
                        "there is already a transaction in progress",
                    ));
                }
                _ => {
                    self.core.tx = TxState::Block;
                    self.core.apply_tx_options(opts)?;
                }
            },
            Statement::Commit { chain } | Statement::Rollback { chain } => {
                let is_commit = matches!(stmt, Statement::Commit { .. });
                // AND CHAIN starts the next transaction with the same characteristics.
                let chained = self.core.txn.as_ref().map(|t| TxOptions {
                    isolation: Some(t.isolation),
                    read_only: Some(t.read_only),
                    deferrable: Some(t.deferrable),
                });
                match self.core.tx {
                    TxState::Block => {
                        if is_commit && !*chain {
                            // Awaited by the socket loop (`Core::commit_deferred`).
                            self.core.commit_deferred()?;
                        } else if is_commit {
                            self.core.commit()?;
                        } else {
                            self.core.abort();
                        }
                    }
                    TxState::Failed => {
                        self.core.abort();
                        if is_commit {
                            self.close_transaction_portals();
                            return Ok(Some("ROLLBACK".into()));
                        }
                    }
                    _ => {
                        if *chain {
                            return Err(PgError::new(
                                code::NO_ACTIVE_SQL_TRANSACTION,
                                format!(
                                    "{} AND CHAIN can only be used in transaction blocks",
                                    if is_commit { "COMMIT" } else { "ROLLBACK" }
                                ),
                            ));
                        }
                        self.core.notices.push(PgError::warning(
                            code::NO_ACTIVE_SQL_TRANSACTION,
                            "there is no transaction in progress",
                        ));
                        // End the implicit transaction this statement runs in.
                        if is_commit {
                            self.core.commit()?;
                        } else {
                            self.core.abort();
                        }
                    }
                }
                self.close_transaction_portals();
                if *chain {
                    self.core.ensure_transaction(&Statement::NoOp(""));
                    self.core.tx = TxState::Block;
                    if let Some(opts) = chained {
                        self.core.apply_tx_options(&opts)?;
                    }
                }
            }
            Statement::Savepoint(name) => self.core.savepoint(name)?,
            Statement::Release(name) => self.core.release_savepoint(name)?,
            Statement::RollbackTo(name) => self.core.rollback_to_savepoint(name)?,
            Statement::PrepareTransaction => return self.core.prepare_transaction(),
            Statement::FinishPrepared { commit, gid } => {
                return Err(self.core.finish_prepared(*commit, gid))
            }
            Statement::Set { name, value, local } => {
                let text = match value {
                    SetValue::Default => None,
                    SetValue::Values(v) => Some(v.join(", ")),
                };
                self.core.set(name, text.as_deref(), *local)?;
            }
            Statement::SetTransaction(opts) => {
                if !matches!(self.core.tx, TxState::Block) {
                    self.core.notices.push(PgError::warning(
                        code::NO_ACTIVE_SQL_TRANSACTION,
                        "SET TRANSACTION can only be used in transaction blocks",
                    ));
                } else {
                    self.core.apply_tx_options(opts)?;
                }
            }
            Statement::SetSessionCharacteristics(opts) => {
                if let Some(i) = opts.isolation {
                    self.core
                        .set("default_transaction_isolation", Some(i.as_str()), false)?;
                }
                if let Some(r) = opts.read_only {
                    self.core.set(
                        "default_transaction_read_only",
                        Some(if r { "on" } else { "off" }),
                        false,
                    )?;
                }
                if let Some(d) = opts.deferrable {
                    self.core.set(
                        "default_transaction_deferrable",
                        Some(if d { "on" } else { "off" }),
                        false,
                    )?;
                }
                self.core.session_tx = opts.clone();
            }
            Statement::Reset(name) => {
                if name == "transaction_isolation" || name == "transaction isolation level" {
                    return Ok(Some(tag));
                }
                if let Some(r) = self.core.set_identity(name, None, false) {
                    r?;
                    return Ok(Some(tag));
                }
                let startup = self.core.startup_settings.clone();
                let (_, report) = self.core.settings.reset_to_startup(name, &startup)?;
                self.core.settings_dirty |= report;
            }
            Statement::ResetAll => {
                let startup = self.core.startup_settings.clone();
                self.core.settings.reset_all(&startup);
                self.core.settings_dirty = true;
            }
            Statement::Show(name) => {
                let (col, value) = if name == "all" {
                    let fixed = self.core.fixed();
                    let rows: Vec<Row> = settings::all_names()
                        .into_iter()
                        .filter_map(|(n, d)| {
                            self.core.settings.show(n, &fixed).ok().map(|v| {
                                vec![
                                    Value::Text(Settings::display_name(n).to_string()),
                                    Value::Text(v),
                                    Value::Text(d.to_string()),
                                ]
                            })
                        })
                        .collect();
                    let cols = vec![
                        text_col("name"),
                        text_col("setting"),
                        text_col("description"),
                    ];
                    write_row_description(&mut self.out, &cols, &[], self.core.settings.client)?;
                    self.write_rows(&cols, &[], &rows)?;
                    be::command_complete(&mut self.out, "SHOW");
                    return Ok(None);
                } else {
                    let v = self.core.show(name)?;
                    (show_column(name), v)
                };
                let cols = vec![text_col(&col)];
                let formats = std::mem::take(&mut self.utility_formats);
                if !self.described {
                    write_row_description(
                        &mut self.out,
                        &cols,
                        &formats,
                        self.core.settings.client,
                    )?;
                }
                self.write_rows(&cols, &formats, &[vec![Value::Text(value)]])?;
            }
            Statement::Channel(ChannelStmt::Listen(ch)) => {
                self.core
                    .txn_mut()
                    .listens
                    .push(ListenAction::Listen(ch.clone()));
            }
            Statement::Channel(ChannelStmt::Unlisten(ch)) => {
                // PostgreSQL does not even record UNLISTEN in a session that never listened.
                if !self.core.listening.is_empty() || self.core.txn_has_listens() {
                    let a = match ch {
                        Some(c) => ListenAction::Unlisten(c.clone()),
                        None => ListenAction::UnlistenAll,
                    };
                    self.core.txn_mut().listens.push(a);
                }
            }
            Statement::Channel(ChannelStmt::Notify { channel, payload }) => {
                self.core.notify(channel, payload)?;
            }
            Statement::Prepare { name, query, types } => {
                if self.prepared.contains_key(name) {
                    return Err(PgError::new(
                        code::DUPLICATE_PREPARED_STATEMENT,
                        format!("prepared statement \"{name}\" already exists"),
                    ));
                }
                let mut params: Vec<Type> =
                    sql::resolve_type_names(types, Some(self.core.table_cx()))?;
                let a = sql::analyze_in(
                    query,
                    &mut params,
                    &self.core.settings.fmt,
                    sql::Mode::Extended,
                    Some(&self.core.table_cx()),
                )?;
                let replan = self.core.tables_used.get().then(|| super::Replan {
                    source: super::ReplanSource::Node(query.clone()),
                    epoch: self.core.instance.catalog.epoch(),
                    locks: std::mem::take(&mut *self.core.plan_locks.borrow_mut()),
                    perms: self.core.plan_perms.take(),
                });
                self.add_prepared(
                    name.clone(),
                    Prepared {
                        text: Arc::from(""),
                        stmt: Arc::new(a.stmt),
                        param_types: params,
                        deferred: a.deferred,
                        replan,
                    },
                )?;
            }
            Statement::Deallocate(name) => match name {
                Some(n) => {
                    if self.prepared.remove(n).is_none() {
                        return Err(PgError::new(
                            code::INVALID_SQL_STATEMENT_NAME,
                            format!("prepared statement \"{n}\" does not exist"),
                        ));
                    }
                }
                None => self.prepared.clear(),
            },
            Statement::DiscardAll => {
                if matches!(self.core.tx, TxState::Block | TxState::Failed) {
                    return Err(PgError::new(
                        code::ACTIVE_SQL_TRANSACTION,
                        "DISCARD ALL cannot run inside a transaction block",
                    ));
                }
                self.portals.clear();
                self.prepared.clear();
                self.unnamed = None;
                // SET SESSION AUTHORIZATION DEFAULT, then RESET ALL (which keeps the role).
                if let Some(r) = self.core.set_identity("session_authorization", None, false) {
                    r?;
                }
                let startup = self.core.startup_settings.clone();
                self.core.settings.reset_all(&startup);
                self.core.settings_dirty = true;
                self.core.txn_mut().listens.push(ListenAction::UnlistenAll);
                self.core.sequences.discard();
                self.core.drop_temp_tables(None)?;
            }
            Statement::Discard(what) => {
                if *what == "DISCARD SEQUENCES" {
                    self.core.sequences.discard();
                }
                if *what == "DISCARD TEMP" {
                    self.core.drop_temp_tables(None)?;
                }
            }
            Statement::Declare { name, plan, hold } => {
                if !*hold && !matches!(self.core.tx, TxState::Block) {
                    return Err(PgError::new(
                        code::NO_ACTIVE_SQL_TRANSACTION,
                        "DECLARE CURSOR can only be used in transaction blocks",
                    ));
                }
                if self.portals.contains_key(name) {
                    return Err(PgError::new(
                        code::DUPLICATE_CURSOR,
                        format!("cursor \"{name}\" already exists"),
                    ));
                }
                // A cursor is read as it is fetched, with the snapshot of DECLARE; WITH HOLD
                // cursors (they outlive the transaction) and queries that write are run now.
                let rows = if !*hold && super::running::reads_as_fetched(plan) {
                    PortalRows::Open(Box::new(self.open_query(plan, Vec::new())?))
                } else {
                    PortalRows::Rows {
                        rows: self.core.run_query(plan, &[])?,
                        pos: 0,
                    }
                };
                let prepared = Arc::new(Prepared {
                    text: Arc::from(""),
                    stmt: Arc::new(Statement::Query(plan.clone())),
                    param_types: Vec::new(),
                    deferred: None,
                    replan: None,
                });
                self.portals.insert(
                    name.clone(),
                    Portal {
                        prepared,
                        params: Vec::new(),
                        formats: Cow::Borrowed(&[]),
                        rows,
                        hold: *hold,
                    },
                );
            }
            Statement::Fetch {
                name,
                count,
                is_move,
            } => {
                let portal = self.portals.get_mut(name).ok_or_else(|| {
                    PgError::new(
                        code::INVALID_CURSOR_NAME,
                        format!("cursor \"{name}\" does not exist"),
                    )
                })?;
                if let PortalRows::Open(_) = portal.rows {
                    let PortalRows::Open(mut open) =
                        std::mem::replace(&mut portal.rows, PortalRows::Done)
                    else {
                        unreachable!()
                    };
                    let n = count.map(|c| c.max(0) as usize).unwrap_or(usize::MAX);
                    let fetched = self.fetch_open(&mut open, n);
                    if let Some(p) = self.portals.get_mut(name) {
                        p.rows = PortalRows::Open(open);
                    }
                    let batch = fetched?;
                    let columns = match self.portals.get(name).map(|p| p.prepared.stmt.clone()) {
                        Some(stmt) => match &*stmt {
                            Statement::Query(p) => p.columns.clone(),
                            _ => Vec::new(),
                        },
                        None => Vec::new(),
                    };
                    let n = batch.len();
                    if !*is_move {
                        let formats = std::mem::take(&mut self.utility_formats);
                        if !self.described {
                            let client = self.core.settings.client;
                            write_row_description(&mut self.out, &columns, &formats, client)?;
                        }
                        self.write_rows(&columns, &formats, &batch)?;
                    }
                    return Ok(Some(Cow::Owned(format!(
                        "{} {n}",
                        if *is_move { "MOVE" } else { "FETCH" }
                    ))));
                }
                let columns = match &*portal.prepared.stmt {
                    Statement::Query(p) => p.columns.clone(),
                    _ => Vec::new(),
                };
                let batch: Vec<Row> = match &mut portal.rows {
                    PortalRows::Rows { rows, pos } => {
                        let n = count.map(|c| c.max(0) as usize).unwrap_or(usize::MAX);
                        let end = pos.saturating_add(n).min(rows.len());
                        let b = rows[*pos..end].to_vec();
                        *pos = end;
                        b
                    }
                    _ => Vec::new(),
                };
                let n = batch.len();
                if !*is_move {
                    let formats = std::mem::take(&mut self.utility_formats);
                    if !self.described {
                        write_row_description(
                            &mut self.out,
                            &columns,
                            &formats,
                            self.core.settings.client,
                        )?;
                    }
                    self.write_rows(&columns, &formats, &batch)?;
                }
                return Ok(Some(Cow::Owned(format!(
                    "{} {n}",
                    if *is_move { "MOVE" } else { "FETCH" }
                ))));
            }
            Statement::ClosePortal(name) => match name {
                Some(n) => {
                    if self.portals.remove(n).is_none() {
                        return Err(PgError::new(
                            code::INVALID_CURSOR_NAME,
                            format!("cursor \"{n}\" does not exist"),
                        ));
                    }
                }
                None => self.portals.clear(),
            },
            Statement::Ddl(d) => {
                if let sql::ddl::Ddl::Maintenance(m) = &**d {
                    if let Some(what) = m.outside_blocks_only() {
                        if matches!(self.core.tx, TxState::Block | TxState::Failed) {
                            return Err(PgError::new(
                                code::ACTIVE_SQL_TRANSACTION,
                                format!("{what} cannot run inside a transaction block"),
                            ));
                        }
                    }
                }
                if let sql::ddl::Ddl::Lock { .. } = **d {
                    if !matches!(self.core.tx, TxState::Block | TxState::Failed) {
                        return Err(PgError::new(
                            code::NO_ACTIVE_SQL_TRANSACTION,
                            "LOCK TABLE can only be used in transaction blocks",
                        ));
                    }
                } else {
                    self.core.next_command();
                    self.core.txn_mut().ddl = true;
                }
                return sql::ddl::run(d, &mut self.core).map(Some);
            }
            Statement::CreateDatabase(name) => {
                if matches!(self.core.tx, TxState::Block | TxState::Failed) {
                    return Err(PgError::new(
                        code::ACTIVE_SQL_TRANSACTION,
                        "CREATE DATABASE cannot run inside a transaction block",
                    ));
                }
                self.core.instance.create_database(name)?;
                // Logged with the catalog at the commit (`end_storage`).
                self.core.txn_mut().ddl = true;
            }
            Statement::DropDatabase { name, if_exists } => {
                if matches!(self.core.tx, TxState::Block | TxState::Failed) {
                    return Err(PgError::new(
                        code::ACTIVE_SQL_TRANSACTION,
                        "DROP DATABASE cannot run inside a transaction block",
                    ));
                }
                let me = self.core.database.clone();
                self.core.txn_mut().ddl = true;
                if !self.core.instance.drop_database(name, *if_exists, &me)? {
                    self.core.notices.push(PgError::notice(
                        code::SUCCESSFUL_COMPLETION,
                        format!("database \"{name}\" does not exist, skipping"),
                    ));
                }
            }
            Statement::CopyFrom { target, options } => {
                // As PostgreSQL, refused before the copy starts (a temporary table aside).
                let temp = target.rel.persistence == crate::catalog::Persistence::Temporary;
                if self.core.txn_mut().read_only && !temp {
                    return Err(PgError::new(
                        code::READ_ONLY_SQL_TRANSACTION,
                        "cannot execute COPY FROM in a read-only transaction",
                    ));
                }
                self.start_copy_in(target, options);
                return Ok(None);
            }
            Statement::CopyTo { .. } => {
                // Runs in `protocol::run_statement`, streamed.
                return Err(PgError::internal("COPY TO reached the utility path"));
            }
            Statement::NoOp(_) => {}
            Statement::Do(code) => {
                let nonatomic = self.core.may_end_transactions();
                let prev = self.core.set_nonatomic(nonatomic);
                // As PostgreSQL's, a DO block runs as a query: SET TRANSACTION inside is late.
                self.core.begin_query();
                let r = sql::pl::run_do(&mut self.core, code);
                self.core.set_nonatomic(prev);
                r?
            }
            Statement::Call(plan) => {
                let nonatomic = self.core.may_end_transactions();
                let prev = self.core.set_nonatomic(nonatomic);
                let rows = self.core.run_query(plan, &[]);
                self.core.set_nonatomic(prev);
                let rows = rows?;
                // A procedure's OUT parameters come back as a row.
                if sql::plan::call_returns_row(plan) {
                    let formats = std::mem::take(&mut self.utility_formats);
                    if !self.described {
                        let client = self.core.settings.client;
                        write_row_description(&mut self.out, &plan.columns, &formats, client)?;
                    }
                    self.write_rows(&plan.columns, &formats, &rows)?;
                }
            }
            Statement::SetConstraints { names, deferred } => {
                self.core.set_constraints(names.as_deref(), *deferred)?
            }
            Statement::Checkpoint => {
                let snap = self.core.catalog_snapshot();
                let allowed = self.core.current_role_is_superuser()
                    || crate::sql::privs::has_privs_of(
                        &self.core.instance.catalog.roles,
                        &snap,
                        self.core.current_role_oid(),
                        crate::catalog::roles::PG_CHECKPOINT,
                    );
                if !allowed {
                    return Err(PgError::new(
                        code::INSUFFICIENT_PRIVILEGE,
                        "must be superuser or have privileges of pg_checkpoint to do CHECKPOINT",
                    ));
                }
                // Written under block_in_place, as pg_sleep waits: the shard's other sessions
                // move to another worker meanwhile. The session shows PostgreSQL's wait event.
                self.core
                    .shared
                    .activity
                    .lock()
                    .set_wait(Some(("IPC", "CheckpointDone")));
                let instance = self.core.instance.clone();
                let done = tokio::task::block_in_place(|| {
                    instance.checkpoint(crate::durable::Kind::Requested)
                });
                self.core.shared.activity.lock().set_wait(None);
                done?;
            }
            Statement::Deferred(node) => {
                let mut params = Vec::new();
                let a = sql::analyze_in(
                    node,
                    &mut params,
                    &self.core.settings.fmt,
                    sql::Mode::Simple,
                    Some(&self.core.table_cx()),
                )?;
                self.core.check_perms(&self.core.plan_perms.take())?;
                return self.run_utility(&a.stmt);
            }
        }
        Ok(Some(tag))
    }

    /// Portals that are not WITH HOLD end with their transaction.
    fn close_transaction_portals(&mut self) {
        self.portals.retain(|_, p| p.hold);
    }
}

impl Core {
    /// Whether a CALL or DO run now may COMMIT and ROLLBACK (PostgreSQL's non-atomic
    /// context): outside a transaction block, and not one of several statements of a simple
    /// Query (which form an implicit block).
    fn may_end_transactions(&self) -> bool {
        self.tx == TxState::Implicit && !self.multi_statement
    }

    pub(super) fn set(&mut self, name: &str, value: Option<&str>, local: bool) -> PgResult<String> {
        let lname = name.to_ascii_lowercase();
        if let Some(r) = self.set_identity(&lname, value, local) {
            return r;
        }
        if super::settings::SUPERUSER_SETTINGS.contains(&lname.as_str())
            && !self.current_role_is_superuser()
        {
            return Err(PgError::new(
                code::INSUFFICIENT_PRIVILEGE,
                format!("permission denied to set parameter \"{lname}\""),
            ));
        }
        // Transaction-scoped settings.
        if lname == "transaction_isolation"
            || lname == "transaction_read_only"
            || lname == "transaction_deferrable"
        {
            if let Some(v) = value {
                if lname == "transaction_isolation" {
                    let iso = sql::Isolation::parse(v).ok_or_else(|| {
                        PgError::new(
                            code::INVALID_PARAMETER_VALUE,
                            format!(
                                "invalid value for parameter \"transaction_isolation\": \"{v}\""
                            ),
                        )
                        .with_hint(
                            "Available values: serializable, repeatable read, read committed, read uncommitted.",
                        )
                    })?;
                    self.apply_tx_options(&TxOptions {
                        isolation: Some(iso),
                        ..Default::default()
                    })?;
                } else {
                    let on = matches!(v.to_ascii_lowercase().as_str(), "on" | "true" | "1" | "yes");
                    if lname == "transaction_read_only" {
                        self.txn_mut().read_only = on;
                    } else {
                        self.apply_tx_options(&TxOptions {
                            deferrable: Some(on),
                            ..Default::default()
                        })?;
                    }
                }
            }
            return Ok(value.unwrap_or("").to_string());
        }
        if local && !matches!(self.tx, TxState::Block | TxState::Failed) {
            self.notices.push(PgError::warning(
                code::NO_ACTIVE_SQL_TRANSACTION,
                "SET LOCAL can only be used in transaction blocks",
            ));
            return self.show(name);
        }
        let before = self.settings.show(name, &self.fixed()).ok();
        let (canonical, report) = match value {
            Some(v) => self.settings.set(name, v)?,
            None => {
                let startup = self.startup_settings.clone();
                self.settings.reset_to_startup(name, &startup)?
            }
        };
        self.settings_dirty |= report;
        let now = self.show(&canonical)?;
        if let Some(txn) = self.txn.as_mut() {
            match txn.local_restore.iter_mut().find(|(n, _)| *n == canonical) {
                // A session-level SET after SET LOCAL becomes the value kept at commit.
                Some(entry) if !local => entry.1 = now.clone(),
                Some(_) => {}
                None if local => {
                    txn.local_restore
                        .push((canonical.clone(), before.unwrap_or_default()));
                }
                None => {}
            }
        }
        Ok(now)
    }

    pub(super) fn show(&self, name: &str) -> PgResult<String> {
        let lname = name.to_ascii_lowercase();
        match lname.as_str() {
            "transaction isolation level" | "transaction_isolation" => Ok(self
                .txn
                .as_ref()
                .map(|t| t.isolation.as_str().to_string())
                .unwrap_or_else(|| {
                    self.settings
                        .show("default_transaction_isolation", &self.fixed())
                        .unwrap_or_else(|_| "read committed".into())
                })),
            "transaction_read_only" => Ok(if self.txn.as_ref().is_some_and(|t| t.read_only) {
                "on".into()
            } else {
                "off".into()
            }),
            "transaction_deferrable" => Ok(if self.txn.as_ref().is_some_and(|t| t.deferrable) {
                "on".into()
            } else {
                "off".into()
            }),
            _ => self.settings.show(name, &self.fixed()),
        }
    }
}

/// The column name SHOW reports (PostgreSQL's spelling of the setting).
pub(super) fn show_column(name: &str) -> String {
    match name {
        "transaction isolation level" | "transaction_isolation" => "transaction_isolation".into(),
        "time zone" => "TimeZone".into(),
        "session authorization" => "session_authorization".into(),
        other => Settings::display_name(other).to_string(),
    }
}

pub(super) fn text_col(name: &str) -> Column {
    Column {
        name: name.to_string(),
        ty: Type::TEXT,
        typmod: -1,
        origin: None,
    }
}
