//! A session: one client connection, run as one task.
//!
//! # Shape
//!
//! [`serve`] owns the socket for the whole life of the connection. It answers the start-up
//! packets (SSL/GSSENC refused with `N`, CancelRequest forwarded to the instance), authenticates,
//! and then runs one loop, in the style of mini-redis's connection handler:
//!
//! ```text
//!   loop {
//!       select! {
//!           socket readable      → read, then handle every whole message in the buffer
//!           session woken        → terminate? notifications to push while idle?
//!           idle-in-transaction timeout
//!       }
//!       flush the output buffer once
//!   }
//! ```
//!
//! Message handling is synchronous: a message is decoded, run, and its responses appended to the
//! output buffer; the buffer is written once per batch of input (so once per Sync, Flush or
//! simple Query as the protocol wants). Keeping handling synchronous is what lets a panic be
//! caught per message (the session ends with FATAL XX000, the server goes on) and keeps the task's
//! future small. A query that must wait for another transaction, has spent its budget of work,
//! or has filled the output stops in the middle instead (`running.rs`): the loop writes what it
//! has, awaits the other transaction (or lets the shard's other sessions run), and resumes it.
//! A durable commit stops the same way (`Core::commit_deferred`): its record is appended, input
//! handling stops, and the loop awaits the flush and the watermark before it ends the commit,
//! sends the answers (COMMIT, ReadyForQuery) and goes on with the input; a commit that
//! followed another waits, in the shard's loop, for the earlier one to become visible.
//! The one blocking call left, `pg_sleep`, runs under `block_in_place`, as do the rare waits of
//! paths that cannot stop in the middle (`wait.rs`), and the commits that are not the
//! protocol's own (COMMIT AND CHAIN, the temporary schema's cleanup, a schema-changing commit
//! while it writes its catalog record).
//!
//! # Private and shared
//!
//! Everything in [`Session`] is private to this task: settings, the transaction, prepared
//! statements, portals, the set of channels it listens on. What other sessions may touch is in
//! [`SessionShared`] (cancel/terminate flags, pg_stat_activity row, the wake-up) and, for
//! LISTEN/NOTIFY, in its `notify::Listener` (the inbox). An idle session owns no buffers: input and
//! output buffers are dropped when empty, and the listener exists only while it listens.
//!
//! # Files
//!
//! One concern a file, in the order a message meets them:
//!
//! * `conn.rs`: the socket loop above ([`serve`], `drive`, `Session::run`): moving to another
//!   shard, read-ahead, writing the output, notifications pushed while idle, the buffer pool.
//! * `startup.rs`: start-up packets, the StartupMessage's parameters, authentication (with
//!   `auth.rs`), `Session::start`.
//! * `protocol.rs`: the protocol state machine: `handle` for each message, simple Query,
//!   Parse/Bind/Describe/Execute/Sync/Close, queries and EXECUTE, error reporting, ReadyForQuery.
//! * `utility.rs`: the utility statements (SET/SHOW, BEGIN/COMMIT, LISTEN, PREPARE, cursors,
//!   ...): `run_utility`.
//! * `results.rs`: the one place that writes RowDescription, DataRows and COPY data.
//! * `running.rs`: a query stopped in the middle (a wait, a yield, a full output) and its
//!   resumption; `wait.rs`: awaiting another transaction, deadlock checks.
//! * `txn.rs`: transaction state, savepoints, commit and abort.
//! * `portals.rs`, `read_ahead.rs`, `settings.rs`: open portals, when to read ahead, settings.
//! * here: [`Session`] (the protocol state) and [`Core`] (the state expressions may use, through
//!   [`SessionCtx`]), statement start and query execution.

mod advisory;
pub mod auth;
mod authenticate;
mod conn;
mod copy_in;
mod deferred;
pub mod encoding;
mod identity;
mod messages;
mod pl;
mod portals;
mod privs;
mod protocol;
mod read_ahead;
mod results;
mod running;
pub mod settings;
mod socket;
mod startup;
mod temp;
mod two_phase;
mod txn;
mod utility;
mod wait;

use std::net::SocketAddr;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::BytesMut;
use rustc_hash::FxHashMap;

use crate::error::{code, PgError, PgResult};
use crate::instance::{Instance, SessionShared, WaitEvent};
use crate::notify::{self, Listener};
use crate::runtime::client_affinity::Follow;
use crate::sql::context::SessionCtx;
use crate::sql::exec::EvalCx;
use crate::sql::exec::{self, Row};
use crate::sql::types::{datetime, FormatCtx, Type, Value};
use crate::sql::{self, Statement, TxOptions};
pub use conn::serve;
use results::Formats;
use settings::{Fixed, Settings};
use txn::{TxState, Txn};

/// Upper bound on prepared statements per session; beyond it Parse fails with 54000.
pub const MAX_PREPARED: usize = 10_000;
/// Upper bound on open portals per session.
pub const MAX_PORTALS: usize = 10_000;

/// A prepared statement (named or unnamed).
struct Prepared {
    text: Arc<str>,
    stmt: Arc<Statement>,
    param_types: Vec<Type>,
    /// The error planning raises (constant folding); reported at Bind / EXECUTE.
    deferred: Option<PgError>,
    /// For a statement over tables: what to plan again when the schema changed since.
    replan: Option<Replan>,
}

/// A prepared statement's source and the catalog epoch its plan was made at. PostgreSQL plans a
/// prepared statement again when the tables it uses change; so does threadgres, whenever the
/// schema changed (`catalog::Catalog::epoch`).
struct Replan {
    source: ReplanSource,
    epoch: u64,
    /// The relation locks each run takes before it checks the epoch (a DDL it waited for
    /// changes the epoch, and the statement is planned again).
    locks: Vec<(u32, crate::txn::lock::LockMode)>,
    /// The privileges each run checks (`sql::privs`), with the role current then.
    perms: Vec<crate::sql::privs::RelPerm>,
}

enum ReplanSource {
    /// Parse: the parsed text from the parse cache (shared, no copy per Parse).
    Parsed(Arc<sql::parser::Parsed>),
    /// SQL PREPARE: the statement's node.
    Node(Box<pg_query::protobuf::node::Node>),
}

enum PortalRows {
    NotRun,
    Rows {
        rows: Vec<Row>,
        pos: usize,
    },
    /// A query read as it is fetched (`running.rs`).
    Open(Box<running::OpenQuery>),
    Done,
}

struct Portal {
    prepared: Arc<Prepared>,
    params: Vec<Value>,
    formats: Formats,
    rows: PortalRows,
    /// Cursors declared WITH HOLD survive the end of their transaction.
    hold: bool,
}

/// The state expressions may use (implements [`SessionCtx`]), split from the protocol state so
/// that a plan borrowed from a prepared statement can run against it.
struct Core {
    instance: Arc<Instance>,
    shared: Arc<SessionShared>,
    /// The role the client logged in as (the authenticated user), its OID and superuser flag;
    /// SET ROLE and SET SESSION AUTHORIZATION are settings (`identity.rs`).
    user: String,
    login_oid: u32,
    login_superuser: bool,
    database: String,
    db_oid: u32,
    settings: Settings,
    startup_settings: Settings,
    session_tx: TxOptions,
    tx: TxState,
    txn: Option<Box<Txn>>,
    /// The last finished transaction's box, reused by the next (at most one is kept).
    spare_txn: Option<Box<Txn>>,
    /// A commit whose flush or publication the socket loop awaits (`Core::commit_deferred`).
    committing: Option<txn::Committing>,
    listening: FxHashMap<Arc<str>, u64>,
    listener: Option<Arc<Listener>>,
    /// The hub's sequence number read after this session last changed its registrations:
    /// deliveries from that point on were resolved against the current `listening` set and
    /// need no per-note check (`notify` invariant 6).
    listen_changed_at: u64,
    /// Other sessions' listeners reached by this session's commits since its output was last
    /// written, and whether one of those commits had more than [`conn::YIELD_MAX_NOTES`] notes.
    woke_others: usize,
    woke_with_long_delivery: bool,
    notices: Vec<PgError>,
    statement_start: i64,
    deadline: Option<Instant>,
    settings_dirty: bool,
    /// The wait event last written to `shared.activity` (saves taking its lock to write the
    /// same one again).
    wait_shown: Option<WaitEvent>,
    /// Both ends of the TCP connection (inet_client_addr(), inet_server_addr()).
    peer: SocketAddr,
    local: Option<SocketAddr>,
    /// Where this session publishes the snapshot it reads with (the vacuum horizon).
    snap_slot: Arc<crate::txn::SnapshotSlot>,
    /// Rows written by the last data-changing statement (its command tag).
    last_affected: Option<u64>,
    /// Set when the statement being analyzed resolved a table name (its plan must be made
    /// again after a schema change).
    tables_used: std::cell::Cell<bool>,
    /// While an open cursor or portal is read: its snapshot (`statement_snapshot` answers it).
    portal_snap: Option<crate::txn::Snapshot>,
    /// While a trigger function runs: its transition tables (`SessionCtx::transitions`), set
    /// and restored around each PL/pgSQL call (`Spi::swap_transitions`).
    transitions: Vec<sql::context::TransitionTable>,
    /// The relation locks the statement being analyzed needs (`TableCx::locks`).
    plan_locks: std::cell::RefCell<Vec<(u32, crate::txn::lock::LockMode)>>,
    /// The privileges the statement being analyzed needs (`sql::privs`).
    plan_perms: sql::privs::Collector,
    /// currval / lastval and cached sequence values (not transactional).
    sequences: sql::sequence::SessionSequences,
    /// Temporary tables: the session's schema and ON COMMIT actions (temp.rs).
    temp: temp::TempState,
    /// The client's socket (the TCP one under TLS; a session that moves shards keeps it), and
    /// when a running statement last checked that the client is still there
    /// (client_connection_check_interval).
    client_fd: std::os::fd::RawFd,
    client_checked: std::cell::Cell<Instant>,
    /// The advisory locks held and the one awaited (`advisory.rs`).
    advisory: advisory::AdvisoryHeld,
    /// Compiled PL/pgSQL functions and their plans (`sql::pl`).
    pl_cache: sql::pl::PlCache,
    /// The FOR loops over queries of the running PL/pgSQL calls (`sql::pl::Spi::pl_loops`).
    pl_loops: Vec<sql::pl::ForLoop>,
    /// The procedure or DO block about to be called may end transactions
    /// (`SessionCtx::set_nonatomic`).
    pl_nonatomic: bool,
    /// The statement running is one of several in a simple Query (PostgreSQL's implicit
    /// transaction block: a CALL there may not end transactions).
    pub(super) multi_statement: bool,
}

/// The command tag of a query that returned `n` rows (or wrote `affected`).
fn query_tag(plan: &sql::plan::Plan, n: usize, affected: Option<u64>) -> String {
    let verb = match &plan.node {
        sql::plan::Node::Modify(m) => m.verb(),
        sql::plan::Node::Rules(r) => r.verb,
        sql::plan::Node::Explain(_) => return "EXPLAIN".to_string(),
        _ => return format!("SELECT {n}"),
    };
    let k = affected.unwrap_or(0);
    match verb {
        "INSERT" => format!("INSERT 0 {k}"),
        v => format!("{v} {k}"),
    }
}

struct Session {
    core: Core,
    unnamed: Option<Arc<Prepared>>,
    // Fx: looked up by every Bind, Describe and Execute; the keys are this session's own names,
    // so a hostile client can only slow itself down.
    prepared: FxHashMap<String, Arc<Prepared>>,
    portals: portals::Portals<Portal>,
    skip_until_sync: bool,
    reported: [u64; 16],
    out: BytesMut,
    closing: bool,
    /// Set while a utility statement runs from Execute: its RowDescription was sent by Describe.
    described: bool,
    /// The statement running is the last of a simple Query: in an implicit transaction its
    /// deferred constraint checks run before its CommandComplete, as PostgreSQL commits the
    /// transaction before it sends that.
    checks_before_complete: bool,
    /// Result formats of the utility statement being executed (SHOW, FETCH).
    utility_formats: Formats,
    /// Notifications for this session are held back until an earlier commit finishes
    /// publishing (shown in pg_stat_activity as wait event IPC / NotifyCommitOrder).
    notify_held: bool,
    /// Deliveries taken from the inbox and not yet fully written out, and the position of the
    /// next note to send (delivery, note). While idle, notifications go out in chunks of
    /// [`conn::NOTIFY_CHUNK`] bytes so that the client can read the first while the rest are
    /// encoded, and the output buffer stays bounded. Empty once everything is encoded.
    backlog: Vec<notify::Delivery>,
    backlog_at: (usize, usize),
    /// The output holds another session's notifications: an answer from this client (to that
    /// one) is likely soon, so the shard spins after writing it (see `idle_spin`). So does a
    /// commit that woke other sessions; a session notifying itself does not spin.
    spin_after_write: bool,
    /// The `ActiveSessions` epoch of this session's last answer (kept by `answered`).
    answered_epoch: u32,
    /// The shard weight's epoch of this session's last answer (kept by `ShardWeight`).
    weight_epoch: u32,
    /// Whether this session should follow its client to another shard (see `client_affinity`).
    follow: Follow,
    /// When to try the socket right after an answer (see `read_ahead`).
    read_ahead: read_ahead::ReadAhead,
    /// COPY FROM STDIN in progress (copy-in mode).
    /// Boxed: it is taken out and put back per CopyData message (one per row from libpq's
    /// PQputline), a pointer's move instead of the whole state's.
    copy_in: Option<Box<copy_in::CopyIn>>,
    /// A query stopped in the middle of its run (`running.rs`), resumed by the socket loop.
    running: Option<Box<running::Running>>,
    /// The statements of a simple Query that follow a commit still being awaited (the socket
    /// loop runs them once it is visible).
    after_commit: Option<(Arc<crate::sql::parser::Parsed>, usize)>,
    /// ReadyForQuery waits for the commit being awaited (a notification this session sent
    /// itself is delivered before it, as PostgreSQL does).
    ready_after_commit: bool,
}

fn hash_str(s: &str) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    s.hash(&mut h);
    h.finish()
}

fn now_ts() -> i64 {
    datetime::now_timestamptz()
}

impl Core {
    fn fixed(&self) -> Fixed {
        Fixed {
            max_connections: self.instance.config.max_connections,
            max_notify_queue_size: self.instance.config.max_notify_queue_size,
            user: self.user.clone(),
            server: self.instance.shown.clone(),
            superuser: self.login_superuser,
        }
    }

    fn begin_statement(&mut self, text: &Arc<str>) {
        self.shared.cancel.store(false, Ordering::SeqCst);
        let now = now_ts();
        self.statement_start = now;
        self.deadline = match self.settings.statement_timeout_ms {
            0 => None,
            ms => Some(Instant::now() + Duration::from_millis(ms)),
        };
        let mut a = self.shared.activity.lock();
        a.state = "active";
        a.query_start = Some(now);
        a.state_change = Some(now);
        // The text comes shared from the parse cache or the prepared statement: a pointer
        // compare, and at most a reference count, per statement.
        if !Arc::ptr_eq(&a.query, text) {
            a.query = text.clone();
        }
        a.set_wait(None);
        self.wait_shown = None;
        if a.xact_start.is_none() {
            a.xact_start = Some(now);
        }
    }

    /// The evaluation context of a query; running one fixes the transaction's isolation level
    /// and starts a new command.
    fn query_cx<'a>(&'a mut self, params: &'a [Value]) -> EvalCx<'a> {
        self.begin_query();
        EvalCx {
            params,
            outer: Vec::new(),
            session: self,
        }
    }

    /// A query starts: it fixes the transaction's isolation level and starts a new command.
    fn begin_query(&mut self) {
        self.next_command();
        if let Some(t) = self.txn.as_mut() {
            t.snapshot_taken = true;
        }
    }

    fn run_query_partial(
        &mut self,
        plan: &sql::plan::Plan,
        params: &[Value],
    ) -> (Vec<Row>, Option<PgError>) {
        let (mut rows, err, affected) = exec::run_plan_counted(plan, &mut self.query_cx(params));
        self.last_affected = affected;
        if err.is_some() && sql::runs_before_output(plan) {
            rows.clear();
        }
        (rows, err)
    }

    /// The catalog as the statement being analyzed sees it.
    fn table_cx(&self) -> sql::plan::modify::TableCx<'_> {
        let snap = self.catalog_snapshot();
        self.tables_used.set(false);
        self.plan_locks.borrow_mut().clear();
        self.plan_perms.clear();
        sql::plan::modify::TableCx {
            catalog: &self.instance.catalog,
            snap,
            database: &self.database,
            search_path: self.lookup_path(),
            used: &self.tables_used,
            locks: &self.plan_locks,
            superuser: self.current_role_is_superuser(),
            role: self.current_role_oid(),
            perms: &self.plan_perms,
            check_as: None,
            transitions: &self.transitions,
            methods: sql::plan::cost::Methods {
                seqscan: self.settings.get_str("enable_seqscan") != Some("off"),
                indexscan: self.settings.get_str("enable_indexscan") != Some("off"),
                bitmapscan: self.settings.get_str("enable_bitmapscan") != Some("off"),
            },
        }
    }

    fn run_query(&mut self, plan: &sql::plan::Plan, params: &[Value]) -> PgResult<Vec<Row>> {
        exec::run_plan(plan, &mut self.query_cx(params))
    }
}

impl SessionCtx for Core {
    fn set_nonatomic(&mut self, on: bool) -> bool {
        std::mem::replace(&mut self.pl_nonatomic, on)
    }
    fn in_transaction_block(&self) -> bool {
        matches!(self.tx, txn::TxState::Block | txn::TxState::Failed)
    }
    fn call_procedural(
        &mut self,
        f: &Arc<crate::catalog::functions::Function>,
        args: &[Value],
    ) -> PgResult<Value> {
        sql::pl::call(self, f, args)
    }
    fn call_procedural_set(
        &mut self,
        f: &Arc<crate::catalog::functions::Function>,
        args: &[Value],
        cols: &[sql::types::Type],
    ) -> PgResult<Vec<Vec<Value>>> {
        sql::pl::call_set(self, f, args, cols)
    }
    fn call_trigger(
        &mut self,
        f: &Arc<crate::catalog::functions::Function>,
        call: &sql::context::TriggerCall<'_>,
    ) -> PgResult<Option<Vec<Value>>> {
        sql::pl::call_trigger(self, f, call)
    }
    fn sequences(&mut self) -> Option<&mut sql::sequence::SessionSequences> {
        Some(&mut self.sequences)
    }
    fn transitions(&self) -> &[sql::context::TransitionTable] {
        &self.transitions
    }
    fn current_xid(&mut self, func: &str) -> PgResult<u64> {
        let instance = self.instance.clone();
        let txn = self.txn_mut();
        if let Some(x) = txn.xid {
            return Ok(x);
        }
        if txn.read_only {
            return Err(PgError::new(
                code::READ_ONLY_SQL_TRANSACTION,
                format!("cannot execute {func}() in a read-only transaction"),
            ));
        }
        // A transaction that already has its cell (it wrote or locked) answers the cell's id:
        // the one its rows' xmin shows.
        if let Some(c) = &txn.cell {
            txn.xid = Some(c.top());
            return Ok(c.top());
        }
        let x = instance.assign_xid();
        txn.xid = Some(x);
        Ok(x)
    }
    fn client_addr(&self) -> Option<SocketAddr> {
        Some(self.peer)
    }
    fn server_addr(&self) -> Option<SocketAddr> {
        self.local
    }
    fn pid(&self) -> i32 {
        self.shared.pid
    }
    fn user(&self) -> &str {
        self.current_role_name()
    }
    fn session_user(&self) -> &str {
        self.session_role_name()
    }
    fn role_oid(&self) -> u32 {
        self.current_role_oid()
    }
    fn validate_setting(&mut self, name: &str, value: &str) -> PgResult<String> {
        Settings::new().set(name, value).map(|(n, _)| n)
    }
    fn database(&self) -> &str {
        &self.database
    }
    fn fmt(&self) -> &FormatCtx {
        &self.settings.fmt
    }
    fn instance(&self) -> &Instance {
        &self.instance
    }
    fn notify(&mut self, channel: &str, payload: &str) -> PgResult<()> {
        notify::check_notify_args(channel, payload)?;
        self.txn_mut();
        let txn = self.txn.as_mut().expect("transaction");
        self.instance
            .notify
            .queue(&mut txn.outbox, channel, payload)?;
        Ok(())
    }
    fn listening_channels(&self) -> Vec<String> {
        self.listening.keys().map(|c| c.to_string()).collect()
    }
    fn get_setting(&self, name: &str, missing_ok: bool) -> PgResult<Option<String>> {
        match self.show(name) {
            Ok(v) => Ok(Some(v)),
            Err(_) if missing_ok => Ok(None),
            Err(e) => Err(e),
        }
    }
    fn set_setting(&mut self, name: &str, value: &str, is_local: bool) -> PgResult<String> {
        self.set(name, Some(value), is_local)
    }
    fn check_interrupts(&self) -> PgResult<()> {
        if self.shared.terminate.load(Ordering::SeqCst) {
            return Err(PgError::admin_shutdown());
        }
        if self.shared.cancel.swap(false, Ordering::SeqCst) {
            return Err(PgError::query_canceled());
        }
        if let Some(d) = self.deadline {
            if Instant::now() >= d {
                return Err(PgError::statement_timeout());
            }
        }
        if self.settings.client_check_ms > 0 {
            let now = Instant::now();
            let every = Duration::from_millis(self.settings.client_check_ms);
            if now >= self.client_checked.get() + every {
                self.client_checked.set(now);
                if wait::fd_client_gone(self.client_fd) {
                    return Err(PgError::fatal(
                        code::CONNECTION_FAILURE,
                        "connection to client lost",
                    ));
                }
            }
        }
        Ok(())
    }
    fn interrupt_pending(&self) -> bool {
        self.shared.cancel.load(Ordering::Relaxed) || self.shared.terminate.load(Ordering::Relaxed)
    }
    fn sleep(&self, seconds: f64) -> PgResult<()> {
        // Also catches NaN: pg_sleep(NaN) returns at once.
        if seconds.is_nan() || seconds <= 0.0 {
            return self.check_interrupts();
        }
        let end = Instant::now() + Duration::from_secs_f64(seconds.min(1e9));
        {
            let mut a = self.shared.activity.lock();
            a.set_wait(Some(("Timeout", "PgSleep")));
        }
        let result = tokio::task::block_in_place(|| {
            let mut guard = self.shared.sleep_lock.lock();
            loop {
                self.check_interrupts()?;
                let now = Instant::now();
                let mut until = end;
                if let Some(d) = self.deadline {
                    until = until.min(d);
                }
                if self.settings.client_check_ms > 0 {
                    // Wake for the next check that the client is still there.
                    until = until.min(now + Duration::from_millis(self.settings.client_check_ms));
                }
                if now >= end {
                    return Ok(());
                }
                if now >= until {
                    continue;
                }
                self.shared.sleep_cv.wait_for(&mut guard, until - now);
            }
        });
        self.shared.activity.lock().set_wait(None);
        result
    }
    fn transaction_timestamp(&self) -> i64 {
        self.txn
            .as_ref()
            .map(|t| t.start)
            .unwrap_or(self.statement_start)
    }
    fn statement_timestamp(&self) -> i64 {
        self.statement_start
    }
    fn notice(&mut self, notice: PgError) {
        self.notices.push(notice);
    }
    fn catalog_snapshot(&mut self) -> PgResult<crate::txn::Snapshot> {
        Ok(Core::catalog_snapshot(self))
    }
    fn snapshot(&mut self) -> PgResult<crate::txn::Snapshot> {
        self.statement_snapshot()
    }
    fn ssi(&mut self) -> Option<Arc<crate::txn::ssi::Xact>> {
        self.txn.as_ref().and_then(|t| t.ssi.clone())
    }
    fn check_memory(&mut self, written: u64) -> PgResult<()> {
        self.instance.memory.check(written)
    }
    fn lock_relation(
        &mut self,
        rel: u32,
        mode: crate::txn::lock::LockMode,
        nowait: Option<&str>,
    ) -> PgResult<bool> {
        self.lock_relation_as(rel, mode, nowait)
    }
    fn writer(&mut self, what: &str) -> PgResult<(Arc<crate::txn::TxnCell>, crate::txn::Cid)> {
        Core::writer(self, what)
    }
    fn isolation(&self) -> sql::Isolation {
        self.txn
            .as_ref()
            .map_or(sql::Isolation::ReadCommitted, |t| t.isolation)
    }
    fn search_path(&self) -> Vec<String> {
        let path = self.lookup_path();
        // "$user" names the schema called like the user, where there is one.
        let snap = Core::catalog_snapshot(self);
        let catalog = &self.instance.catalog;
        path.split(',')
            .map(|p| match p.trim() {
                "$user" | "\"$user\"" => self.user.as_str(),
                p => p,
            })
            .flat_map(sql::engine::search_schemas)
            .filter(|s| sql::engine::schema_exists(catalog, &snap, &self.database, s))
            .map(str::to_string)
            .collect()
    }
    fn constraint_deferred(&self, constraint: u32, initially: bool) -> bool {
        self.constraint_deferred_now(constraint, initially)
    }
    fn queue_deferred(&mut self, event: crate::sql::exec::deferred::DeferredEvent) -> PgResult<()> {
        self.keep_deferred(event)
    }
    fn deferred_pending_on(&self, table: u32) -> bool {
        self.deferred_pending(table)
    }
    fn wait_for(&mut self, cell: &Arc<crate::txn::TxnCell>) -> PgResult<()> {
        // A statement stopped at an advisory lock by a caller that cannot stop (`run_plan`)
        // waits here, as the advisory lock (wait event and all).
        if self.advisory.is_waiting() {
            let r = self.wait_for_transaction_as(cell, ("Lock", "advisory"));
            if r.is_err() {
                self.advisory_stop_waiting();
            }
            return r;
        }
        self.wait_for_transaction(cell)
    }
    fn advisory_acquire(
        &mut self,
        key: crate::txn::advisory::AdvisoryKey,
        mode: crate::txn::advisory::AdvisoryMode,
        xact: bool,
        wait: bool,
    ) -> PgResult<crate::txn::advisory::AdvisoryAcquired> {
        self.acquire_advisory(key, mode, xact, wait)
    }
    fn advisory_lock(
        &mut self,
        key: crate::txn::advisory::AdvisoryKey,
        mode: crate::txn::advisory::AdvisoryMode,
        xact: bool,
    ) -> PgResult<()> {
        self.advisory_lock_waiting(key, mode, xact)
    }
    fn advisory_unlock(
        &mut self,
        key: crate::txn::advisory::AdvisoryKey,
        mode: crate::txn::advisory::AdvisoryMode,
    ) -> bool {
        self.unlock_advisory(key, mode)
    }
    fn advisory_unlock_all(&mut self) {
        self.advisory_release_level(false);
    }
    fn temp_schema(&mut self) -> PgResult<String> {
        self.make_temp_schema()
    }
    fn own_temp_schema(&self) -> Option<String> {
        Some(format!("pg_temp_{}", self.shared.pid))
    }
    fn on_commit(&mut self, oid: u32, action: sql::ddl::OnCommit) {
        self.note_on_commit(oid, action)
    }
    fn next_command(&mut self) {
        Core::next_command(self)
    }
}
