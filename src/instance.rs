//! The instance: everything shared between sessions, in one `Sync` object.
//!
//! threadgres runs all sessions in one process, so "shared memory" is simply this struct behind
//! an `Arc`. Anything not reachable from here is private to one session's task and needs no
//! synchronization at all. Each field says how it is shared:
//!
//! * `config`, `started_at`: immutable after start.
//! * `parse_cache`: concurrent bounded cache (see `sql::parser`).
//! * `databases`: a small read-mostly map behind a read-biased lock; CREATE/DROP DATABASE write.
//! * `sessions`: concurrent map pid → [`SessionShared`], the cross-session face of a session
//!   (cancel key, interrupt flags, activity for pg_stat_activity, its wake-up).
//! * `notify`: the LISTEN/NOTIFY hub (see `notify`).
//! * `connections`: the admission counter enforcing `max_connections`.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::SystemTime;

use parking_lot::{Mutex, RwLock};
use tokio::sync::Notify;

use crate::config::Config;
use crate::error::{code, PgError, PgResult};
use crate::notify::Hub;
use crate::sql::parser::ParseCache;

/// What pg_stat_activity shows for one session.
#[derive(Clone, Debug, Default)]
pub struct Activity {
    pub datname: String,
    pub usename: String,
    pub application_name: String,
    pub client_addr: Option<SocketAddr>,
    pub backend_start: i64,
    pub xact_start: Option<i64>,
    pub query_start: Option<i64>,
    pub state_change: Option<i64>,
    pub state: &'static str,
    pub wait_event_type: Option<&'static str>,
    pub wait_event: Option<&'static str>,
    pub query: Arc<str>,
    /// The connection's TLS parameters (pg_stat_ssl); `None` for a plain connection.
    pub ssl: Option<crate::tls::SslInfo>,
}

/// A wait event as pg_stat_activity shows it: (wait_event_type, wait_event).
pub type WaitEvent = (&'static str, &'static str);

impl Activity {
    /// Shows what the session waits for (`None`: nothing).
    pub fn set_wait(&mut self, wait: Option<WaitEvent>) {
        self.wait_event_type = wait.map(|w| w.0);
        self.wait_event = wait.map(|w| w.1);
    }
}

/// The part of a session other sessions may see or poke.
pub struct SessionShared {
    pub pid: i32,
    pub secret: i32,
    /// Set by CancelRequest / pg_cancel_backend; cleared when the next statement starts.
    pub cancel: AtomicBool,
    /// Set by pg_terminate_backend and server shutdown.
    pub terminate: AtomicBool,
    /// Woken for notifications, cancel and terminate requests.
    pub wake: Notify,
    pub activity: Mutex<Activity>,
    /// Signalled (with `sleep_lock`) to interrupt a blocking sleep such as pg_sleep().
    pub sleep_cv: parking_lot::Condvar,
    pub sleep_lock: Mutex<()>,
}

impl SessionShared {
    pub fn interrupt(&self) {
        let _g = self.sleep_lock.lock();
        self.sleep_cv.notify_all();
        drop(_g);
        self.wake.notify_one();
    }
}

impl crate::notify::Wake for SessionShared {
    fn wake(&self) {
        self.wake.notify_one();
    }
}

pub struct Instance {
    pub config: Config,
    /// What SHOW says of the server-level settings (ssl, data_directory, ...).
    pub shown: Arc<crate::config::Shown>,
    pub started_at: SystemTime,
    pub parse_cache: ParseCache,
    databases: RwLock<HashMap<String, u32>>,
    next_db_oid: AtomicI32,
    pub sessions: scc::HashMap<i32, Arc<SessionShared>>,
    next_pid: AtomicI32,
    connections: AtomicUsize,
    pub notify: Hub,
    /// Commit order, snapshots and waits of transactions over tables.
    pub txns: crate::txn::TxnManager,
    /// The memory bound (`memory.rs`).
    pub memory: Arc<crate::memory::MemoryLimit>,
    /// COPY FROM helper threads running (`session::copy_in::pipe`: one per core at most).
    pub copy_helpers: Arc<AtomicUsize>,
    /// Relation locks (`txn::lock`).
    pub locks: crate::txn::lock::LockTable,
    /// The live schema: tables and indexes of every database, with their data.
    pub catalog: crate::sql::engine::SqlCatalog,
    /// Sessions that answered a client lately; decides idle spinning (see `idle_spin`).
    pub active_sessions: crate::runtime::idle_spin::ActiveSessions,
    pub shutting_down: AtomicBool,
    pub shutdown: Notify,
    /// Host rules (`hba`): which clients may connect and how they authenticate.
    pub hba: crate::hba::file::HostRules,
    /// Recent authentication failures per client address (`hba::auth_limit`).
    pub auth_limit: crate::hba::auth_limit::AuthLimiter,
    /// The data directory and checkpoints (`durable`); unset for an instance that lives in
    /// memory only (tests that start a server in-process).
    pub durable: std::sync::OnceLock<crate::durable::Durable>,
}

/// Admission ticket: holding one counts against max_connections.
pub struct ConnectionSlot {
    instance: Arc<Instance>,
}

impl Drop for ConnectionSlot {
    fn drop(&mut self) {
        self.instance.connections.fetch_sub(1, Ordering::AcqRel);
    }
}

impl Instance {
    /// A new transaction id, from the counter the transactions' cells take theirs from (so
    /// txid_current() answers what the rows' xmin shows).
    pub fn assign_xid(&self) -> u64 {
        self.txns.assign_xid()
    }

    pub fn new(config: Config) -> Arc<Instance> {
        let catalog = crate::sql::engine::SqlCatalog::new();
        // `--password` is the bootstrap superuser's password.
        if let Some(p) = config.password.as_deref() {
            catalog
                .roles
                .set_bootstrap_password(Some(crate::catalog::password::Scram::new(p).to_text()));
        }
        let mut dbs = HashMap::new();
        dbs.insert("postgres".to_string(), 5);
        dbs.insert("template1".to_string(), 1);
        dbs.insert("template0".to_string(), 4);
        Arc::new(Instance {
            hba: crate::hba::file::HostRules::new(
                config.hba_file.clone(),
                config.hba_rules.clone(),
                config.password.is_some(),
                config.tls.is_some(),
            ),
            auth_limit: Default::default(),
            parse_cache: ParseCache::new(config.parse_cache_entries),
            notify: Hub::new(config.max_connections + 16, config.max_notify_queue_size),
            txns: crate::txn::TxnManager::new(config.max_connections + 16),
            locks: Default::default(),
            memory: Arc::new(crate::memory::MemoryLimit::new(config.max_memory)),
            copy_helpers: Arc::default(),
            catalog,
            shown: Arc::new(config.shown()),
            config,
            started_at: SystemTime::now(),
            databases: RwLock::new(dbs),
            next_db_oid: AtomicI32::new(16384),
            sessions: scc::HashMap::new(),
            // Session ids look like PostgreSQL pids and never repeat within a server's life.
            next_pid: AtomicI32::new(1000 + (std::process::id() as i32 % 1000) * 100),
            connections: AtomicUsize::new(0),
            active_sessions: Default::default(),
            shutting_down: AtomicBool::new(false),
            shutdown: Notify::new(),
            durable: std::sync::OnceLock::new(),
        })
    }

    /// An instance on its data directory: locks it, initializes it on the first start (the
    /// bootstrap superuser's password from `--password` is stored then) or reads back what it
    /// holds, before any session runs. Errors are FATAL lines.
    pub fn open(config: Config) -> Result<Arc<Instance>, String> {
        let instance = Instance::new(config);
        let (durable, restored) = crate::durable::Durable::open(
            &instance.config.data_dir,
            instance.config.port,
            &instance.catalog,
            &instance.txns,
            |dir| instance.config.wal.options(dir),
        )?;
        let fresh = durable.fresh();
        let _ = instance.durable.set(durable);
        let recovered = restored.as_ref().is_some_and(|r| {
            r.header.kind != crate::durable::Kind::Shutdown || r.replayed.records > 0
        });
        if let Some(r) = restored {
            let h = &r.header;
            tracing::info!(
                "database system was {} at {}; restored {} relations and {} rows ({} bytes) in \
                 {:.3} s",
                match h.kind {
                    crate::durable::Kind::Shutdown => "shut down",
                    _ => "interrupted; last checkpoint",
                },
                chrono::DateTime::from_timestamp_micros(
                    h.written_at
                        + crate::sql::types::datetime::UNIX_TO_PG_SECS
                            * crate::sql::types::datetime::USECS_PER_SEC,
                )
                .map(|t| t.to_string())
                .unwrap_or_default(),
                r.relations,
                r.rows,
                r.bytes,
                r.seconds
            );
            let p = &r.replayed;
            if p.records > 0 {
                tracing::info!(
                    "redo done at {}: {} records ({} bytes of WAL from {}), {} transactions \
                     applied in {:.3} s ({:.1} MB/s)",
                    crate::wal::Lsn(p.end),
                    p.records,
                    p.bytes,
                    crate::wal::Lsn(h.redo),
                    p.commits,
                    p.seconds,
                    p.bytes as f64 / 1e6 / p.seconds.max(1e-9)
                );
            }
            if r.indexes > 0 {
                tracing::info!(
                    "rebuilt {} indexes from the rows in {:.3} s",
                    r.indexes,
                    r.index_seconds
                );
            }
            *instance.databases.write() = r.databases.iter().cloned().collect();
            instance
                .next_db_oid
                .fetch_max(r.next_db_oid, Ordering::SeqCst);
            instance.txns.advance_xid(h.next_xid);
            // The stored password wins over --password (ALTER ROLE changes it for good);
            // --password still sets one where the role has none.
            if let Some(p) = instance.config.password.as_deref() {
                let snap = crate::catalog::roles::Roles::latest(&instance.txns);
                let stored = instance
                    .catalog
                    .roles
                    .by_oid(crate::catalog::roles::BOOTSTRAP_SUPERUSER, &snap)
                    .and_then(|r| r.def.password.clone());
                if stored.is_none() {
                    instance.catalog.roles.set_bootstrap_password(Some(
                        crate::catalog::password::Scram::new(p).to_text(),
                    ));
                }
            }
        }
        instance.start_checkpointer();
        if recovered {
            // PostgreSQL's end-of-recovery checkpoint: the log after it names this server's
            // own row slots.
            instance
                .checkpoint(crate::durable::Kind::Recovery)
                .map_err(|e| format!("end-of-recovery checkpoint failed: {}", e.message))?;
        }
        if fresh {
            let w = instance
                .checkpoint(crate::durable::Kind::Initial)
                .map_err(|e| e.message.clone())?;
            if w.is_some() {
                tracing::info!(
                    "initialized data directory \"{}\"",
                    instance.config.data_dir.display()
                );
            }
        }
        Ok(instance)
    }

    /// The background checkpointer: every checkpoint_timeout, an image when something was
    /// committed since the last one (PostgreSQL skips an idle system's timed checkpoints too).
    /// It holds the instance weakly and ends at shutdown, which writes the last image itself.
    fn start_checkpointer(self: &Arc<Self>) {
        let weak = Arc::downgrade(self);
        let every = std::time::Duration::from_secs(self.config.checkpoint_timeout_s);
        let spawned = std::thread::Builder::new()
            .name("checkpointer".into())
            .spawn(move || {
                let mut last = weak.upgrade().map(|i| i.txns.visible());
                let mut due = std::time::Instant::now() + every;
                // After a failed image (a full disk, an I/O error), the next try waits: 1 s,
                // doubling to checkpoint_timeout, so that a disk that stays full is not filled
                // and emptied four times a second (PostgreSQL's checkpointer also sleeps after
                // an error).
                let mut backoff = std::time::Duration::ZERO;
                let mut not_before = std::time::Instant::now();
                loop {
                    // Short naps, so that shutdown is noticed within a quarter second.
                    std::thread::sleep(std::time::Duration::from_millis(250).min(every));
                    let Some(instance) = weak.upgrade() else {
                        return;
                    };
                    if instance.shutting_down.load(Ordering::SeqCst) {
                        return;
                    }
                    let written = instance.durable.get().map_or(0, |d| d.wal_since_redo());
                    // Half of max_wal_size written since the last image's redo point starts
                    // one (PostgreSQL starts one when max_wal_size would be passed before the
                    // next could finish; half leaves the next as much room).
                    if std::time::Instant::now() < not_before {
                        continue;
                    }
                    let kind = if written >= instance.config.wal.max_wal_size / 2 {
                        crate::durable::Kind::Wal
                    } else if std::time::Instant::now() >= due {
                        crate::durable::Kind::Timed
                    } else {
                        continue;
                    };
                    due = std::time::Instant::now() + every;
                    let now = instance.txns.visible();
                    if last == Some(now) && kind == crate::durable::Kind::Timed {
                        continue;
                    }
                    match instance.checkpoint(kind) {
                        Ok(_) => {
                            last = Some(now);
                            backoff = std::time::Duration::ZERO;
                        }
                        Err(e) => {
                            tracing::error!("checkpoint failed: {}", e.message);
                            backoff = (backoff * 2)
                                .max(std::time::Duration::from_secs(1))
                                .min(every.max(std::time::Duration::from_secs(1)));
                            not_before = std::time::Instant::now() + backoff;
                        }
                    }
                }
            });
        if let Err(e) = spawned {
            tracing::error!("could not start the checkpointer: {e}");
        }
    }

    /// Writes a checkpoint image (CHECKPOINT, shutdown); None for an instance without a data
    /// directory.
    pub fn checkpoint(
        &self,
        kind: crate::durable::Kind,
    ) -> PgResult<Option<crate::durable::Written>> {
        let Some(d) = self.durable.get() else {
            return Ok(None);
        };
        let w = d.checkpoint(&self.catalog, &self.txns, || self.durable_counters(), kind)?;
        tracing::info!(
            "checkpoint complete ({kind:?}): wrote {} relations, {} rows, {} bytes; total={:.3} s",
            w.relations,
            w.rows,
            w.bytes,
            w.seconds
        );
        Ok(Some(w))
    }

    /// The end of a clean shutdown, once sessions are gone: a shutdown image, then the data
    /// directory is released.
    pub fn shutdown_checkpoint(&self) -> Result<(), String> {
        let r = self
            .checkpoint(crate::durable::Kind::Shutdown)
            .map_err(|e| e.message.clone());
        if let Some(d) = self.durable.get() {
            // Released even when the image failed: the previous one is whole (invariant 1).
            d.close();
        }
        r.map(|_| ())
    }

    /// The role catalog's login view of role `name` (the interface to authentication):
    /// what the newest commits say about it, None if there is no such role.
    pub fn login_role(&self, name: &str) -> Option<crate::catalog::roles::LoginRole> {
        let snap = crate::catalog::roles::Roles::latest(&self.txns);
        self.catalog.roles.login(name, &snap)
    }

    /// Takes a connection slot, or fails with PostgreSQL's error when max_connections are in use.
    pub fn admit(self: &Arc<Self>) -> PgResult<ConnectionSlot> {
        let n = self.connections.fetch_add(1, Ordering::AcqRel);
        let slot = ConnectionSlot {
            instance: self.clone(),
        };
        if n >= self.config.max_connections {
            return Err(PgError::fatal(
                code::TOO_MANY_CONNECTIONS,
                "sorry, too many clients already",
            ));
        }
        Ok(slot)
    }

    pub fn connection_count(&self) -> usize {
        self.connections.load(Ordering::Relaxed)
    }

    pub fn register_session(&self, activity: Activity) -> Arc<SessionShared> {
        let pid = self.next_pid.fetch_add(1, Ordering::Relaxed);
        let shared = Arc::new(SessionShared {
            pid,
            secret: rand::random::<i32>(),
            cancel: AtomicBool::new(false),
            terminate: AtomicBool::new(false),
            wake: Notify::new(),
            activity: Mutex::new(activity),
            sleep_cv: parking_lot::Condvar::new(),
            sleep_lock: Mutex::new(()),
        });
        let _ = self.sessions.insert_sync(pid, shared.clone());
        shared
    }

    pub fn unregister_session(&self, pid: i32) {
        self.sessions.remove_sync(&pid);
    }

    pub fn session(&self, pid: i32) -> Option<Arc<SessionShared>> {
        self.sessions.read_sync(&pid, |_, s| s.clone())
    }

    /// Handles a CancelRequest: cancels the running statement of the session with that key.
    pub fn cancel(&self, pid: i32, secret: i32) {
        if let Some(s) = self.session(pid) {
            if s.secret == secret {
                s.cancel.store(true, Ordering::SeqCst);
                s.interrupt();
            }
        }
    }

    pub fn database_oid(&self, name: &str) -> Option<u32> {
        self.databases.read().get(name).copied()
    }

    /// What a checkpoint or a catalog record holds besides the catalog.
    pub fn durable_counters(&self) -> crate::durable::Counters {
        crate::durable::Counters {
            databases: self.database_names(),
            next_db_oid: self.next_db_oid.load(Ordering::SeqCst),
            next_xid: self.txns.next_xid(),
        }
    }

    pub fn database_names(&self) -> Vec<(String, u32)> {
        let mut v: Vec<_> = self
            .databases
            .read()
            .iter()
            .map(|(k, v)| (k.clone(), *v))
            .collect();
        v.sort_by_key(|(_, o)| *o);
        v
    }

    pub fn create_database(&self, name: &str) -> PgResult<()> {
        let mut dbs = self.databases.write();
        if dbs.contains_key(name) {
            return Err(PgError::new(
                code::DUPLICATE_DATABASE,
                format!("database \"{name}\" already exists"),
            ));
        }
        let oid = self.next_db_oid.fetch_add(1, Ordering::Relaxed) as u32;
        dbs.insert(name.to_string(), oid);
        Ok(())
    }

    pub fn drop_database(&self, name: &str, if_exists: bool, current: &str) -> PgResult<bool> {
        if name == current {
            return Err(PgError::new(
                code::OBJECT_IN_USE,
                "cannot drop the currently open database",
            ));
        }
        if name == "template1" || name == "template0" {
            return Err(PgError::new(
                code::WRONG_OBJECT_TYPE,
                "cannot drop a template database",
            ));
        }
        let mut in_use = 0;
        self.sessions.iter_sync(|_, s| {
            if s.activity.lock().datname == name {
                in_use += 1;
            }
            true
        });
        if in_use > 0 {
            return Err(PgError::new(
                code::OBJECT_IN_USE,
                format!("database \"{name}\" is being accessed by other users"),
            )
            .with_detail(if in_use == 1 {
                "There is 1 other session using the database.".to_string()
            } else {
                format!("There are {in_use} other sessions using the database.")
            }));
        }
        // The lock is held while the objects go, so that a CREATE DATABASE of the same name
        // cannot meet them.
        let mut dbs = self.databases.write();
        if dbs.remove(name).is_none() {
            if if_exists {
                return Ok(false);
            }
            return Err(PgError::new(
                code::INVALID_CATALOG_NAME,
                format!("database \"{name}\" does not exist"),
            ));
        }
        // Its objects and ACL versions (GRANT ... ON DATABASE) go with it.
        self.catalog.forget_database(name);
        Ok(true)
    }

    /// Snapshot of all sessions' activity rows, ordered by pid.
    pub fn activity_snapshot(&self) -> Vec<(i32, Activity)> {
        let mut rows = Vec::new();
        self.sessions.iter_sync(|pid, s| {
            rows.push((*pid, s.activity.lock().clone()));
            true
        });
        rows.sort_by_key(|(p, _)| *p);
        rows
    }

    /// Starts shutdown: every session is told to terminate.
    pub fn begin_shutdown(&self) {
        self.shutting_down.store(true, Ordering::SeqCst);
        self.sessions.iter_sync(|_, s| {
            s.terminate.store(true, Ordering::SeqCst);
            s.interrupt();
            true
        });
        self.shutdown.notify_waiters();
    }
}
