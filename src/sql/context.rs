//! What running a statement asks of the session that runs it.
//!
//! Evaluation (now(), pg_notify(), settings), the system functions, sequences, privilege checks
//! and DDL reach the session only through [`SessionCtx`], which the session implements, so none
//! of them knows about connections or transactions.

use crate::error::{PgError, PgResult};
use crate::sql::types::{FormatCtx, Value};

/// One deferred constraint check (`sql::exec::deferred` runs them): `table` is the table
/// written. For a foreign key, `referenced` tells a NO ACTION check of a referenced key (the
/// written table is the referenced one) from a referencing row's check; for a unique or
/// primary key, `key` is the key to check again (empty: every key of its index); for a
/// constraint trigger, `trigger` is the firing (and `key` is empty).
#[derive(Debug, Clone)]
pub struct DeferredEvent {
    pub table: u32,
    pub constraint: u32,
    pub referenced: bool,
    pub key: Box<[Value]>,
    pub trigger: Option<std::sync::Arc<DeferredTrigger>>,
}

/// A deferred constraint trigger's event (PostgreSQL's after-trigger event kept past the
/// statement): the trigger, its table and its function as the statement that queued it saw
/// them, which event, and the rows.
#[derive(Debug)]
pub struct DeferredTrigger {
    pub def: crate::catalog::triggers::TriggerDef,
    pub table: std::sync::Arc<crate::sql::engine::Rel>,
    pub function: std::sync::Arc<crate::catalog::functions::Function>,
    /// One of the tgtype event bits (INSERT, UPDATE, DELETE).
    pub event: i16,
    pub old: Option<Box<[Value]>>,
    pub new: Option<Box<[Value]>>,
}

/// One firing of a trigger (PostgreSQL's TriggerData): what the trigger function is told.
pub struct TriggerCall<'a> {
    pub def: &'a crate::catalog::triggers::TriggerDef,
    pub table: &'a crate::sql::engine::Rel,
    /// One of the tgtype event bits (INSERT, UPDATE, DELETE, TRUNCATE).
    pub event: i16,
    /// The row before the change (UPDATE, DELETE), full width.
    pub old: Option<&'a [Value]>,
    /// The row after it (INSERT, UPDATE), full width.
    pub new: Option<&'a [Value]>,
    /// The trigger's transition tables (REFERENCING OLD / NEW TABLE), which its function's
    /// statements read by name.
    pub transitions: &'a [TransitionTable],
}

/// A transition table of a firing trigger (PostgreSQL's ephemeral named relation): the rows
/// its statement changed (old or new versions, full width), read under `name` by the
/// statements of the trigger function while it runs. Shared, not copied, by every trigger of
/// the statement that reads it.
#[derive(Debug, Clone)]
pub struct TransitionTable {
    pub name: String,
    /// The table the rows are of (their columns).
    pub table: std::sync::Arc<crate::sql::engine::Rel>,
    pub rows: std::sync::Arc<Vec<Vec<Value>>>,
}

/// CREATE TEMP TABLE ... ON COMMIT (session/temp.rs runs the actions).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnCommit {
    /// No ON COMMIT clause.
    Noop,
    PreserveRows,
    DeleteRows,
    Drop,
}

/// What expression evaluation may ask of the session that runs it.
pub trait SessionCtx {
    fn pid(&self) -> i32;
    /// The current user's name (current_user: SET ROLE's role, else the session user).
    fn user(&self) -> &str;
    /// The session user's name (session_user).
    fn session_user(&self) -> &str {
        self.user()
    }
    /// Checks that `value` is valid for setting `name` (ALTER ROLE ... SET); returns the
    /// setting's canonical name.
    fn validate_setting(&mut self, name: &str, value: &str) -> PgResult<String> {
        let _ = value;
        Ok(name.to_string())
    }
    /// The current user's OID: the owner of what the session creates.
    fn role_oid(&self) -> u32 {
        crate::catalog::roles::BOOTSTRAP_SUPERUSER
    }
    fn database(&self) -> &str;
    fn fmt(&self) -> &FormatCtx;
    fn instance(&self) -> &crate::instance::Instance;
    /// Queues a notification in the current transaction (pg_notify / NOTIFY).
    fn notify(&mut self, channel: &str, payload: &str) -> PgResult<()>;
    fn listening_channels(&self) -> Vec<String>;
    fn get_setting(&self, name: &str, missing_ok: bool) -> PgResult<Option<String>>;
    fn set_setting(&mut self, name: &str, value: &str, is_local: bool) -> PgResult<String>;
    /// Fails with 57014 if the statement was cancelled or timed out.
    fn check_interrupts(&self) -> PgResult<()>;
    /// Whether a cancel or terminate request is waiting (two atomic loads): the executor asks
    /// before each row, so that a request made by the statement itself (pg_cancel_backend of
    /// its own pid) stops it after the row that made it, as PostgreSQL's per-tuple
    /// CHECK_FOR_INTERRUPTS does.
    fn interrupt_pending(&self) -> bool {
        false
    }
    /// Sleeps, interruptibly (pg_sleep).
    fn sleep(&self, seconds: f64) -> PgResult<()>;
    /// Start of the current transaction, µs since 2000-01-01 UTC (now()).
    fn transaction_timestamp(&self) -> i64;
    /// Start of the current statement (statement_timestamp()).
    fn statement_timestamp(&self) -> i64;
    /// Sends a NOTICE or WARNING to the client (after the current message).
    fn notice(&mut self, notice: PgError);
    /// The client's address and port (inet_client_addr()); None where there is no TCP peer.
    fn client_addr(&self) -> Option<std::net::SocketAddr>;
    /// The server's end of the connection (inet_server_addr()).
    fn server_addr(&self) -> Option<std::net::SocketAddr>;
    /// The current transaction's id, assigned on first use (txid_current()).
    fn current_xid(&mut self, func: &str) -> PgResult<u64>;
    /// The snapshot to read the catalog with: the newest commits and this transaction's own
    /// earlier commands (PostgreSQL's catalog snapshot).
    fn catalog_snapshot(&mut self) -> PgResult<crate::txn::Snapshot> {
        Err(PgError::feature_not_supported(
            "tables are not available here",
        ))
    }
    /// The snapshot of the running statement (READ COMMITTED) or transaction (REPEATABLE
    /// READ), taken at its first use.
    fn snapshot(&mut self) -> PgResult<crate::txn::Snapshot> {
        Err(PgError::feature_not_supported(
            "tables are not available here",
        ))
    }
    /// The SERIALIZABLE transaction's SSI state, which its reads record into (None for any
    /// other isolation level). Called after [`SessionCtx::snapshot`].
    fn ssi(&mut self) -> Option<std::sync::Arc<crate::txn::ssi::Xact>> {
        None
    }
    /// The transaction's (or current savepoint's) cell and the current command id, for a
    /// write; the first write of a transaction gives it its id. Fails in a read-only
    /// transaction (25006, naming `what`).
    fn writer(
        &mut self,
        what: &str,
    ) -> PgResult<(std::sync::Arc<crate::txn::TxnCell>, crate::txn::Cid)> {
        Err(PgError::feature_not_supported(format!(
            "{what} is not available here"
        )))
    }
    /// Takes relation lock `mode` on `rel` for the transaction, waiting while another holds a
    /// conflicting one (with `nowait`, the relation's name: fail with 55P03 instead). True when
    /// it waited (the schema may have changed meanwhile).
    /// Fails with 53200 when the server is past its memory bound (`memory.rs`); `written`:
    /// rows the statement wrote so far.
    fn check_memory(&mut self, written: u64) -> PgResult<()> {
        let _ = written;
        Ok(())
    }
    fn lock_relation(
        &mut self,
        rel: u32,
        mode: crate::txn::lock::LockMode,
        nowait: Option<&str>,
    ) -> PgResult<bool> {
        let _ = (rel, mode, nowait);
        Ok(false)
    }
    /// Whether the checks of DEFERRABLE constraint `constraint` wait for the commit now:
    /// SET CONSTRAINTS of the transaction, else `initially` (INITIALLY DEFERRED).
    fn constraint_deferred(&self, constraint: u32, initially: bool) -> bool {
        let _ = (constraint, initially);
        false
    }
    /// Whether deferred checks of table `table` are kept for the commit (PostgreSQL's pending
    /// trigger events, which DDL on the table refuses to pass over).
    fn deferred_pending_on(&self, table: u32) -> bool {
        let _ = table;
        false
    }
    /// Keeps a deferred constraint check until the commit (or SET CONSTRAINTS ... IMMEDIATE).
    fn queue_deferred(&mut self, event: DeferredEvent) -> PgResult<()> {
        let _ = event;
        Err(PgError::feature_not_supported(
            "deferred constraints are not available here",
        ))
    }
    /// Starts the next command of the transaction (between the statements of a SQL function
    /// that writes): the writes so far become visible to what follows.
    fn next_command(&mut self) {}
    /// Sets whether the procedure or DO block about to be called may end transactions
    /// (PostgreSQL's non-atomic context: a top-level CALL or DO outside a transaction block, or
    /// a CALL from such a procedure); returns the previous value. Everything else (functions,
    /// triggers, SQL-language bodies) runs with it off.
    fn set_nonatomic(&mut self, _on: bool) -> bool {
        false
    }
    /// Whether the statement runs inside BEGIN ... COMMIT (PostgreSQL's
    /// PreventInTransactionBlock refuses some statements there).
    fn in_transaction_block(&self) -> bool {
        false
    }
    /// Runs a PL/pgSQL function with its arguments (`sql::pl`, through the session, which
    /// plans its statements).
    fn call_procedural(
        &mut self,
        f: &std::sync::Arc<crate::catalog::functions::Function>,
        _args: &[Value],
    ) -> PgResult<Value> {
        Err(PgError::feature_not_supported(format!(
            "function {}() in language \"{}\" cannot be called here",
            f.def.name, f.def.language
        )))
    }
    /// Runs set-returning PL/pgSQL function `f`: its rows, materialized, each of the columns
    /// `cols` (their types).
    fn call_procedural_set(
        &mut self,
        f: &std::sync::Arc<crate::catalog::functions::Function>,
        _args: &[Value],
        _cols: &[crate::sql::types::Type],
    ) -> PgResult<Vec<Vec<Value>>> {
        Err(PgError::feature_not_supported(format!(
            "function {}() in language \"{}\" cannot be called here",
            f.def.name, f.def.language
        )))
    }
    /// Runs trigger function `f` for one firing; returns the row it returned (None: NULL,
    /// which skips the row in a BEFORE ROW trigger).
    fn call_trigger(
        &mut self,
        f: &std::sync::Arc<crate::catalog::functions::Function>,
        call: &TriggerCall<'_>,
    ) -> PgResult<Option<Vec<Value>>> {
        let _ = call;
        Err(PgError::feature_not_supported(format!(
            "trigger function {}() cannot be called here",
            f.def.name
        )))
    }
    /// The transition tables the running trigger function reads (none outside one, and none
    /// in the functions it calls, as in PostgreSQL, whose are registered with the trigger
    /// function's SPI connection only).
    fn transitions(&self) -> &[TransitionTable] {
        &[]
    }
    /// Waits until the transaction of `cell` ends (a row or key it holds is needed); fails on a
    /// deadlock (40P01), cancel or timeout.
    fn wait_for(&mut self, cell: &std::sync::Arc<crate::txn::TxnCell>) -> PgResult<()> {
        let _ = cell;
        Err(PgError::feature_not_supported(
            "waiting is not available here",
        ))
    }
    /// Advisory locks (`txn::advisory`): asks for `mode` on `key` at transaction level (`xact`)
    /// or session level. With `wait`, a refusal lists the session as waiting: the caller
    /// awaits the returned token's end and asks again.
    fn advisory_acquire(
        &mut self,
        key: crate::txn::advisory::AdvisoryKey,
        mode: crate::txn::advisory::AdvisoryMode,
        xact: bool,
        wait: bool,
    ) -> PgResult<crate::txn::advisory::AdvisoryAcquired> {
        let _ = (key, mode, xact, wait);
        Err(PgError::feature_not_supported(
            "advisory locks are not available here",
        ))
    }
    /// [`SessionCtx::advisory_acquire`], waiting in place until granted (40P01, 55P03, 57014
    /// as other lock waits).
    fn advisory_lock(
        &mut self,
        key: crate::txn::advisory::AdvisoryKey,
        mode: crate::txn::advisory::AdvisoryMode,
        xact: bool,
    ) -> PgResult<()> {
        let _ = (key, mode, xact);
        Err(PgError::feature_not_supported(
            "advisory locks are not available here",
        ))
    }
    /// Releases one session-level hold; false (with PostgreSQL's warning) when none is held.
    fn advisory_unlock(
        &mut self,
        key: crate::txn::advisory::AdvisoryKey,
        mode: crate::txn::advisory::AdvisoryMode,
    ) -> bool {
        let _ = (key, mode);
        false
    }
    /// Releases every session-level advisory lock (pg_advisory_unlock_all).
    fn advisory_unlock_all(&mut self) {}
    /// The running transaction's isolation level.
    fn isolation(&self) -> crate::txn::Isolation {
        crate::txn::Isolation::ReadCommitted
    }
    /// The schemas of search_path that exist, in order (where unqualified names are looked up
    /// and created).
    fn search_path(&self) -> Vec<String> {
        vec!["public".to_string()]
    }
    /// The session's schema of temporary tables, made in the running transaction when it does
    /// not exist yet.
    fn temp_schema(&mut self) -> PgResult<String> {
        Err(PgError::feature_not_supported(
            "temporary tables are not available here",
        ))
    }
    /// The name the session's temporary schema has (whether or not it exists yet).
    fn own_temp_schema(&self) -> Option<String> {
        None
    }
    /// Registers the ON COMMIT action of a temporary table just created.
    fn on_commit(&mut self, _oid: u32, _action: OnCommit) {}
    /// The session's sequence state (currval, lastval, cached values); None where there is no
    /// session to keep it.
    fn sequences(&mut self) -> Option<&mut crate::sql::sequence::SessionSequences> {
        None
    }
}

/// The relations of the session's database that its catalog snapshot sees (the catalog holds
/// every database's).
pub fn database_relations(
    cx: &mut dyn SessionCtx,
) -> PgResult<Vec<std::sync::Arc<crate::sql::engine::Rel>>> {
    let snap = cx.catalog_snapshot()?;
    let db = cx.database().to_string();
    Ok(cx
        .instance()
        .catalog
        .visible(&snap)
        .into_iter()
        .filter(|r| r.name.database == db)
        .collect())
}

/// Relation `oid` of the session's database, when its catalog snapshot sees it.
pub fn database_relation(
    cx: &mut dyn SessionCtx,
    oid: u32,
) -> PgResult<Option<std::sync::Arc<crate::sql::engine::Rel>>> {
    Ok(database_relations(cx)?.into_iter().find(|r| r.oid == oid))
}
