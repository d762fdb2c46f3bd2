//! Server configuration: command-line flags, environment variables and an optional TOML file.
//!
//! Precedence, highest first: flag, environment variable (`THREADGRES_*`), config file
//! (`--config path`), built-in default. Flag names follow PostgreSQL's setting names where one
//! exists (`--port`, `--max-connections`, `--listen` for listen_addresses).

use std::net::IpAddr;
use std::path::PathBuf;

use clap::Parser;
use serde::Deserialize;

#[derive(Parser, Debug, Clone)]
#[command(
    name = "threadgres",
    version,
    about = "A PostgreSQL-compatible server built on threads"
)]
pub struct Args {
    /// TCP port to listen on.
    #[arg(long, short = 'p', env = "THREADGRES_PORT")]
    pub port: Option<u16>,
    /// Comma-separated addresses to listen on (listen_addresses).
    #[arg(long, env = "THREADGRES_LISTEN")]
    pub listen: Option<String>,
    /// Maximum number of concurrent client sessions.
    #[arg(long, env = "THREADGRES_MAX_CONNECTIONS")]
    pub max_connections: Option<usize>,
    /// Require this password (SCRAM-SHA-256) from every user. Without it, trust authentication.
    #[arg(long, env = "THREADGRES_PASSWORD")]
    pub password: Option<String>,
    /// Read the password from the first line of this file.
    #[arg(long, env = "THREADGRES_PASSWORD_FILE")]
    pub password_file: Option<PathBuf>,
    /// Log level: error, warn, info, debug, trace.
    #[arg(long, env = "THREADGRES_LOG_LEVEL")]
    pub log_level: Option<String>,
    /// Session shards, each a runtime with one worker thread (default: number of cores).
    #[arg(long, env = "THREADGRES_WORKER_THREADS")]
    pub worker_threads: Option<usize>,
    /// Upper bound on bytes held by pending notifications (max_notify_queue_size).
    #[arg(long, env = "THREADGRES_MAX_NOTIFY_QUEUE_SIZE")]
    pub max_notify_queue_size: Option<u64>,
    /// Upper bound on one frontend message, in bytes.
    #[arg(long, env = "THREADGRES_MAX_MESSAGE_SIZE")]
    pub max_message_size: Option<usize>,
    /// Microseconds a shard keeps polling after its sessions sent notifications, before it
    /// may sleep (0: never spin).
    #[arg(long, env = "THREADGRES_IDLE_SPIN_US")]
    pub idle_spin_us: Option<u64>,
    /// Whether shards raise their threads' CPU weight with the sessions they run: on or off
    /// (raising needs CAP_SYS_NICE or RLIMIT_NICE; without it shards keep the default).
    #[arg(long, env = "THREADGRES_SHARD_WEIGHT")]
    pub shard_weight: Option<String>,
    /// Whether a session moves to the shard on its client's CPU: on or off.
    #[arg(long, env = "THREADGRES_CLIENT_AFFINITY")]
    pub client_affinity: Option<String>,
    /// Whether each shard's threads are bound to one CPU of those the process may use: on or
    /// off.
    #[arg(long, env = "THREADGRES_PIN_SHARDS")]
    pub pin_shards: Option<String>,
    /// Memory the server may use (bytes, or with kB/MB/GB/TB); a statement that would write
    /// past it fails with 53200. Default: 80 % of the machine's (or cgroup's) memory.
    #[arg(long, env = "THREADGRES_MAX_MEMORY")]
    pub max_memory: Option<String>,
    /// Whether dead row versions are reclaimed in the background: on or off.
    #[arg(long, env = "THREADGRES_AUTOVACUUM")]
    pub autovacuum: Option<String>,
    /// Milliseconds between the background vacuum's rounds (autovacuum_naptime).
    #[arg(long, env = "THREADGRES_AUTOVACUUM_NAPTIME_MS")]
    pub autovacuum_naptime_ms: Option<u64>,
    /// Whether SSLRequests are answered with TLS: on or off (ssl).
    #[arg(long, env = "THREADGRES_SSL")]
    pub ssl: Option<String>,
    /// The server's certificate chain, PEM (ssl_cert_file). Without it and ssl_key_file, a
    /// self-signed pair in the data directory, made on the first start.
    #[arg(long, env = "THREADGRES_SSL_CERT_FILE")]
    pub ssl_cert_file: Option<PathBuf>,
    /// The certificate's private key, PEM, mode 0600 or stricter (ssl_key_file).
    #[arg(long, env = "THREADGRES_SSL_KEY_FILE")]
    pub ssl_key_file: Option<PathBuf>,
    /// Authorities whose certificates clients may present, PEM (ssl_ca_file): clients are
    /// asked for one (and need not send it).
    #[arg(long, env = "THREADGRES_SSL_CA_FILE")]
    pub ssl_ca_file: Option<PathBuf>,
    /// The data directory (data_directory; created and initialized if missing): the
    /// checkpoint image, the lock file, the self-signed TLS certificate. `-D` as PostgreSQL's.
    #[arg(
        short = 'D',
        long,
        visible_alias = "pgdata",
        env = "THREADGRES_DATA_DIR"
    )]
    pub data_dir: Option<PathBuf>,
    /// Host rules in pg_hba.conf's format (hba_file); without it, trust on loopback, or
    /// scram-sha-256 everywhere when a password is set.
    #[arg(long, env = "THREADGRES_HBA_FILE")]
    pub hba_file: Option<PathBuf>,
    /// Time allowed to complete client authentication (authentication_timeout): seconds, or
    /// with a unit (s, min), 1 s to 10 min.
    #[arg(long, env = "THREADGRES_AUTHENTICATION_TIMEOUT")]
    pub authentication_timeout: Option<String>,
    /// Time between automatic checkpoints (checkpoint_timeout): seconds, or with a unit (s,
    /// min, h), 1 s to 1 day (PostgreSQL's minimum is 30 s; shorter serves tests).
    #[arg(long, env = "THREADGRES_CHECKPOINT_TIMEOUT")]
    pub checkpoint_timeout: Option<String>,
    /// Flush the write-ahead log to disk at commit (fsync): on or off (off: a crash of the
    /// machine may lose or damage anything, as in PostgreSQL).
    #[arg(long, env = "THREADGRES_FSYNC")]
    pub fsync: Option<String>,
    /// Size of each WAL segment file (wal_segment_size; initdb's --wal-segsize), a power of two
    /// from 64kB to 1GB, with a unit (kB, MB, GB); fixed when the data directory is created.
    #[arg(long, env = "THREADGRES_WAL_SEGMENT_SIZE")]
    pub wal_segment_size: Option<String>,
    /// WAL kept for recycling (min_wal_size), with a unit; default 80MB.
    #[arg(long, env = "THREADGRES_MIN_WAL_SIZE")]
    pub min_wal_size: Option<String>,
    /// WAL kept at most after a checkpoint, and the amount after which one is started
    /// (max_wal_size), with a unit; default 1GB.
    #[arg(long, env = "THREADGRES_MAX_WAL_SIZE")]
    pub max_wal_size: Option<String>,
    /// The WAL ring in memory (wal_buffers), a power of two from 64kB up to the segment
    /// size; default 4MB.
    #[arg(long, env = "THREADGRES_WAL_BUFFERS")]
    pub wal_buffers: Option<String>,
    /// How long the WAL writer sleeps between flushes of asynchronous commits
    /// (wal_writer_delay), in ms (or with s); 1ms to 10s, default 200ms.
    #[arg(long, env = "THREADGRES_WAL_WRITER_DELAY")]
    pub wal_writer_delay: Option<String>,
    /// How long a requested flush waits for more commits to join it (commit_delay), in
    /// microseconds, 0 to 100000; default 0.
    #[arg(long, env = "THREADGRES_COMMIT_DELAY")]
    pub commit_delay: Option<String>,
    /// Optional TOML configuration file with the same settings (snake_case keys).
    #[arg(long, env = "THREADGRES_CONFIG")]
    pub config: Option<PathBuf>,
}

#[derive(Deserialize, Default, Debug)]
#[serde(deny_unknown_fields)]
struct FileConfig {
    port: Option<u16>,
    listen: Option<String>,
    max_connections: Option<usize>,
    password: Option<String>,
    password_file: Option<PathBuf>,
    log_level: Option<String>,
    worker_threads: Option<usize>,
    max_notify_queue_size: Option<u64>,
    max_message_size: Option<usize>,
    idle_spin_us: Option<u64>,
    shard_weight: Option<String>,
    client_affinity: Option<String>,
    pin_shards: Option<String>,
    autovacuum: Option<String>,
    autovacuum_naptime_ms: Option<u64>,
    max_memory: Option<String>,
    ssl: Option<String>,
    ssl_cert_file: Option<PathBuf>,
    ssl_key_file: Option<PathBuf>,
    ssl_ca_file: Option<PathBuf>,
    data_dir: Option<PathBuf>,
    hba_file: Option<PathBuf>,
    authentication_timeout: Option<Seconds>,
    checkpoint_timeout: Option<Seconds>,
    fsync: Option<String>,
    wal_segment_size: Option<String>,
    min_wal_size: Option<String>,
    max_wal_size: Option<String>,
    wal_buffers: Option<String>,
    wal_writer_delay: Option<String>,
    commit_delay: Option<String>,
}

/// A duration in the TOML file: `30` or `"30s"`.
#[derive(Deserialize, Debug)]
#[serde(untagged)]
enum Seconds {
    Number(u64),
    Text(String),
}

impl Seconds {
    fn text(self) -> String {
        match self {
            Seconds::Number(n) => n.to_string(),
            Seconds::Text(t) => t,
        }
    }
}

/// The effective configuration of one server instance.
#[derive(Debug, Clone)]
pub struct Config {
    pub port: u16,
    pub listen: Vec<IpAddr>,
    pub max_connections: usize,
    pub password: Option<String>,
    pub log_level: String,
    pub worker_threads: usize,
    pub max_notify_queue_size: u64,
    pub max_message_size: usize,
    /// See `idle_spin`: how long after activity a shard keeps polling instead of sleeping.
    pub idle_spin_us: u64,
    /// See `shard_weight`: shards ask for the CPU weight of the sessions they run.
    pub shard_weight: bool,
    /// See `client_affinity`: sessions follow their clients' CPU to another shard.
    pub client_affinity: bool,
    /// See `client_affinity`: each shard's threads are bound to one allowed CPU.
    pub pin_shards: bool,
    /// Bound on the per-instance cache of parsed statement texts (entries).
    pub parse_cache_entries: usize,
    /// See `autovacuum`: dead row versions are reclaimed in the background.
    pub autovacuum: bool,
    pub autovacuum_naptime_ms: u64,
    /// See `memory`: the bound on the server's resident size, in bytes.
    pub max_memory: u64,
    /// See `tls`: SSLRequests are answered with TLS (once `tls` is loaded).
    pub ssl: bool,
    pub ssl_cert_file: Option<PathBuf>,
    pub ssl_key_file: Option<PathBuf>,
    pub ssl_ca_file: Option<PathBuf>,
    /// The server's own files; see [`DEFAULT_DATA_DIR`].
    pub data_dir: PathBuf,
    /// The certificate and key loaded at start (`tls::load`); `None`: SSLRequests are
    /// answered `N`, whatever `ssl` says (a server built without loading them, as in tests).
    pub tls: Option<crate::tls::Tls>,
    /// The host rules file (`None`: the default rules, see `hba::default_rules`).
    pub hba_file: Option<PathBuf>,
    /// The rules read from `hba_file` at start (`load_hba`); reloads replace
    /// the instance's copy, not this one.
    pub hba_rules: Option<crate::hba::Rules>,
    /// authentication_timeout, in seconds (PostgreSQL's default 60, range 1..600).
    pub authentication_timeout_s: u64,
    /// checkpoint_timeout, in seconds (PostgreSQL's default 300).
    pub checkpoint_timeout_s: u64,
    /// The write-ahead log's settings.
    pub wal: WalSettings,
}

/// The write-ahead log's server-level settings, with PostgreSQL's names (bytes and
/// microseconds here; SHOW gives them in PostgreSQL's units).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WalSettings {
    pub fsync: bool,
    pub wal_segment_size: u64,
    pub min_wal_size: u64,
    pub max_wal_size: u64,
    pub wal_buffers: u64,
    pub wal_writer_delay_ms: u64,
    pub commit_delay_us: u64,
}

impl Default for WalSettings {
    fn default() -> Self {
        WalSettings {
            fsync: true,
            wal_segment_size: 16 << 20,
            min_wal_size: 80 << 20,
            max_wal_size: 1 << 30,
            wal_buffers: 4 << 20,
            wal_writer_delay_ms: 200,
            commit_delay_us: 0,
        }
    }
}

impl WalSettings {
    /// The log's options for the directory `dir`.
    pub fn options(&self, dir: &std::path::Path) -> crate::wal::WalOptions {
        let mut o = crate::wal::WalOptions::new(dir);
        o.fsync = self.fsync;
        o.wal_segment_size = self.wal_segment_size;
        o.min_wal_size = self.min_wal_size.max(2 * self.wal_segment_size);
        o.max_wal_size = self.max_wal_size.max(2 * self.wal_segment_size);
        o.wal_buffers = (self.wal_buffers as usize).min(self.wal_segment_size as usize);
        o.wal_writer_delay = std::time::Duration::from_millis(self.wal_writer_delay_ms);
        o.commit_delay = std::time::Duration::from_micros(self.commit_delay_us);
        o
    }
}

/// The server-level settings SHOW and pg_settings show as text, made once at start (a
/// session's settings code takes them by reference count, not by copying paths).
#[derive(Debug, Default)]
pub struct Shown {
    /// ssl: on only when the certificate is loaded (SSLRequests are answered `S`).
    pub ssl: bool,
    pub ssl_cert_file: String,
    pub ssl_key_file: String,
    pub ssl_ca_file: String,
    pub data_directory: String,
    /// The host rules file (empty: the built-in rules).
    pub hba_file: String,
    pub authentication_timeout_s: u64,
    pub checkpoint_timeout_s: u64,
    pub wal: WalSettings,
}

impl Config {
    pub fn shown(&self) -> Shown {
        let file = |loaded: Option<&PathBuf>, given: &Option<PathBuf>, default: &str| {
            loaded
                .or(given.as_ref())
                .map_or_else(|| default.to_string(), |p| p.display().to_string())
        };
        Shown {
            ssl: self.tls.is_some(),
            ssl_cert_file: file(
                self.tls.as_ref().map(|t| &t.cert_file),
                &self.ssl_cert_file,
                "server.crt",
            ),
            ssl_key_file: file(
                self.tls.as_ref().map(|t| &t.key_file),
                &self.ssl_key_file,
                "server.key",
            ),
            ssl_ca_file: self
                .ssl_ca_file
                .as_ref()
                .map_or_else(String::new, |p| p.display().to_string()),
            data_directory: self.data_dir.display().to_string(),
            hba_file: self
                .hba_file
                .as_ref()
                .map_or_else(String::new, |p| p.display().to_string()),
            authentication_timeout_s: self.authentication_timeout_s,
            checkpoint_timeout_s: self.checkpoint_timeout_s,
            wal: self.wal,
        }
    }
}

/// The data directory when none is given: `threadgres-data` in the current directory, where
/// a user who starts the server from a project directory looks for it (PostgreSQL has no
/// default and requires `-D`; an invisible per-user location would surprise more).
pub const DEFAULT_DATA_DIR: &str = "threadgres-data";

impl Default for Config {
    fn default() -> Self {
        Config {
            port: 5433,
            listen: vec![IpAddr::from([127, 0, 0, 1])],
            max_connections: 10_000,
            password: None,
            log_level: "info".into(),
            worker_threads: std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(2),
            // PostgreSQL's default queue: 1,048,576 pages of 8 KiB = 8 GiB.
            max_notify_queue_size: 8 << 30,
            max_message_size: crate::wire::MAX_MESSAGE_BYTES,
            idle_spin_us: 100,
            shard_weight: true,
            client_affinity: true,
            pin_shards: true,
            parse_cache_entries: 4096,
            autovacuum: true,
            // PostgreSQL waits 60 s between rounds, but prunes update chains whenever it reads
            // a page; here only vacuum shortens them, and a lookup walks a row's chain from its
            // root: a hot row updated thousands of times a second (pgbench's branches) must be
            // vacuumed often. Measured with tpcb-like at 8 clients: 6.3k tps without the
            // background vacuum, 12.7-14.4k with 1 s rounds, 14.9-15.1k with 50 ms rounds.
            autovacuum_naptime_ms: 50,
            max_memory: crate::memory::default_limit(),
            ssl: true,
            ssl_cert_file: None,
            ssl_key_file: None,
            ssl_ca_file: None,
            data_dir: PathBuf::from(DEFAULT_DATA_DIR),
            tls: None,
            hba_file: None,
            hba_rules: None,
            authentication_timeout_s: 60,
            checkpoint_timeout_s: 300,
            wal: WalSettings::default(),
        }
    }
}

impl Config {
    pub fn from_args(args: Args) -> Result<Config, String> {
        let file: FileConfig = match &args.config {
            Some(path) => {
                let text = std::fs::read_to_string(path)
                    .map_err(|e| format!("cannot read config file {}: {e}", path.display()))?;
                toml::from_str(&text)
                    .map_err(|e| format!("invalid config file {}: {e}", path.display()))?
            }
            None => FileConfig::default(),
        };
        let mut c = Config::default();
        if let Some(p) = args.port.or(file.port) {
            c.port = p;
        }
        if let Some(l) = args.listen.or(file.listen) {
            c.listen = parse_listen(&l)?;
        }
        if let Some(m) = args.max_connections.or(file.max_connections) {
            if m == 0 {
                return Err("max_connections must be at least 1".into());
            }
            c.max_connections = m;
        }
        c.password = args.password.or(file.password);
        if let Some(path) = args.password_file.or(file.password_file) {
            let text = std::fs::read_to_string(&path)
                .map_err(|e| format!("cannot read password file {}: {e}", path.display()))?;
            c.password = Some(text.lines().next().unwrap_or("").to_string());
        }
        if let Some(l) = args.log_level.or(file.log_level) {
            c.log_level = l;
        }
        if let Some(w) = args.worker_threads.or(file.worker_threads) {
            // A shard is a thread: bounded like every other resource.
            c.worker_threads = w.clamp(1, 256);
        }
        if let Some(q) = args.max_notify_queue_size.or(file.max_notify_queue_size) {
            // PostgreSQL's minimum is 64 pages of 8 KiB.
            c.max_notify_queue_size = q.max(64 * 8192);
        }
        if let Some(m) = args.max_message_size.or(file.max_message_size) {
            c.max_message_size = m.max(crate::wire::MAX_SMALL_MESSAGE_BYTES);
        }
        if let Some(us) = args.idle_spin_us.or(file.idle_spin_us) {
            // A bound: spinning longer than a millisecond only burns CPU.
            c.idle_spin_us = us.min(1000);
        }
        c.shard_weight = on_off(
            "shard_weight",
            args.shard_weight.or(file.shard_weight),
            c.shard_weight,
        )?;
        c.client_affinity = on_off(
            "client_affinity",
            args.client_affinity.or(file.client_affinity),
            c.client_affinity,
        )?;
        c.pin_shards = on_off(
            "pin_shards",
            args.pin_shards.or(file.pin_shards),
            c.pin_shards,
        )?;
        c.autovacuum = on_off(
            "autovacuum",
            args.autovacuum.or(file.autovacuum),
            c.autovacuum,
        )?;
        if let Some(m) = args.max_memory.or(file.max_memory) {
            c.max_memory = crate::memory::parse_size(&m)
                .ok_or_else(|| format!("invalid max_memory: {m} (a size such as 4GB)"))?;
        }
        if let Some(ms) = args.autovacuum_naptime_ms.or(file.autovacuum_naptime_ms) {
            // PostgreSQL's bounds: 1 s .. 24 days; shorter naps are allowed here (tests).
            c.autovacuum_naptime_ms = ms.clamp(10, 24 * 86_400_000);
        }
        c.ssl = on_off("ssl", args.ssl.or(file.ssl), c.ssl)?;
        c.ssl_cert_file = args.ssl_cert_file.or(file.ssl_cert_file);
        c.ssl_key_file = args.ssl_key_file.or(file.ssl_key_file);
        c.ssl_ca_file = args.ssl_ca_file.or(file.ssl_ca_file);
        if let Some(d) = args.data_dir.or(file.data_dir) {
            c.data_dir = d;
        }
        if let Some(t) = args
            .authentication_timeout
            .or(file.authentication_timeout.map(Seconds::text))
        {
            c.authentication_timeout_s = parse_seconds(&t)
                .filter(|s| (1..=600).contains(s))
                .ok_or_else(|| {
                    format!("invalid authentication_timeout \"{t}\": use 1s to 10min")
                })?;
        }
        if let Some(t) = args
            .checkpoint_timeout
            .or(file.checkpoint_timeout.map(Seconds::text))
        {
            c.checkpoint_timeout_s = parse_seconds(&t)
                .filter(|s| (1..=86_400).contains(s))
                .ok_or_else(|| format!("invalid checkpoint_timeout \"{t}\": use 1s to 1d"))?;
        }
        c.hba_file = args.hba_file.or(file.hba_file);
        c.wal = wal_settings(&wal_given(
            args.fsync.or(file.fsync),
            args.wal_segment_size.or(file.wal_segment_size),
            args.min_wal_size.or(file.min_wal_size),
            args.max_wal_size.or(file.max_wal_size),
            args.wal_buffers.or(file.wal_buffers),
            args.wal_writer_delay.or(file.wal_writer_delay),
            args.commit_delay.or(file.commit_delay),
        ))?;
        Ok(c)
    }

    /// Reads the host rules file, if one is given, into `hba_rules`. Called at start once
    /// logging is set up, so that the warnings of lines that load anyway are seen (`hostssl`
    /// with ssl off), and before anything is written to disk. `ssl` is whether the server will
    /// have TLS: a certificate that then fails to load stops the start. A bad file refuses the
    /// start, as PostgreSQL's "could not load pg_hba.conf".
    pub fn load_hba(&mut self) -> Result<(), String> {
        if let Some(path) = &self.hba_file {
            let rules = crate::hba::file::load(path, self.ssl)
                .map_err(|e| format!("{e}; could not load pg_hba.conf"))?;
            self.hba_rules = Some(rules);
        }
        Ok(())
    }

    /// Creates the data directory if it is missing (mode 0700, as PostgreSQL wants its own),
    /// and makes its path absolute so that what SHOW data_directory says does not depend on
    /// the current directory.
    pub fn create_data_dir(&mut self) -> Result<(), String> {
        let dir = &self.data_dir;
        if !dir.is_dir() {
            let mut b = std::fs::DirBuilder::new();
            b.recursive(true);
            #[cfg(unix)]
            {
                use std::os::unix::fs::DirBuilderExt;
                b.mode(0o700);
            }
            b.create(dir).map_err(|e| {
                format!("could not create data directory \"{}\": {e}", dir.display())
            })?;
        }
        self.data_dir = std::fs::canonicalize(dir)
            .map_err(|e| format!("could not access data directory \"{}\": {e}", dir.display()))?;
        Ok(())
    }
}

/// The WAL settings as given (name, value), in a fixed order.
type WalGiven = [(&'static str, Option<String>); 7];

fn wal_given(
    fsync: Option<String>,
    seg: Option<String>,
    min: Option<String>,
    max: Option<String>,
    buffers: Option<String>,
    delay: Option<String>,
    commit_delay: Option<String>,
) -> WalGiven {
    [
        ("fsync", fsync),
        ("wal_segment_size", seg),
        ("min_wal_size", min),
        ("max_wal_size", max),
        ("wal_buffers", buffers),
        ("wal_writer_delay", delay),
        ("commit_delay", commit_delay),
    ]
}

/// Parses and checks the WAL settings (PostgreSQL's ranges, but segments from 64kB, which
/// tests use; PostgreSQL's smallest is 1MB).
fn wal_settings(given: &WalGiven) -> Result<WalSettings, String> {
    let mut w = WalSettings::default();
    let size = |name: &str, v: &str, min: u64, max: u64| {
        crate::memory::parse_size(v)
            .filter(|n| (min..=max).contains(n))
            .ok_or_else(|| {
                format!(
                    "invalid {name} \"{v}\": use {} to {}",
                    crate::memory::format_kb((min >> 10) as i64),
                    crate::memory::format_kb((max >> 10) as i64)
                )
            })
    };
    for (name, value) in given {
        let Some(v) = value else { continue };
        match *name {
            "fsync" => w.fsync = on_off("fsync", Some(v.clone()), true)?,
            "wal_segment_size" => {
                w.wal_segment_size = size(name, v, 64 << 10, 1 << 30)?;
                if !w.wal_segment_size.is_power_of_two() {
                    return Err(format!(
                        "invalid wal_segment_size \"{v}\": not a power of two"
                    ));
                }
            }
            "min_wal_size" => w.min_wal_size = size(name, v, 128 << 10, 1 << 40)?,
            "max_wal_size" => w.max_wal_size = size(name, v, 128 << 10, 1 << 40)?,
            "wal_buffers" => {
                w.wal_buffers = size(name, v, 64 << 10, 1 << 30)?;
                if !w.wal_buffers.is_power_of_two() {
                    return Err(format!("invalid wal_buffers \"{v}\": not a power of two"));
                }
            }
            "wal_writer_delay" => {
                let t = v.trim();
                let ms = match t.strip_suffix("ms") {
                    Some(n) => n.trim().parse().ok(),
                    None => parse_seconds(t)
                        .map(|s| s * 1000)
                        .filter(|_| t.ends_with('s'))
                        .or_else(|| t.parse().ok()),
                };
                w.wal_writer_delay_ms = ms
                    .filter(|n| (1..=10_000).contains(n))
                    .ok_or_else(|| format!("invalid wal_writer_delay \"{v}\": use 1ms to 10s"))?;
            }
            "commit_delay" => {
                w.commit_delay_us = v
                    .trim()
                    .parse()
                    .ok()
                    .filter(|n| *n <= 100_000)
                    .ok_or_else(|| format!("invalid commit_delay \"{v}\": use 0 to 100000"))?;
            }
            _ => {}
        }
    }
    // As PostgreSQL caps it: the ring is at most one segment.
    w.wal_buffers = w.wal_buffers.min(w.wal_segment_size);
    Ok(w)
}

/// Seconds, plain or with PostgreSQL's units s, min, h.
fn parse_seconds(v: &str) -> Option<u64> {
    let v = v.trim();
    let split = v.find(|c: char| !c.is_ascii_digit()).unwrap_or(v.len());
    let n: u64 = v[..split].parse().ok()?;
    let factor = match v[split..].trim() {
        "" | "s" => 1,
        "min" => 60,
        "h" => 3600,
        "d" => 86_400,
        _ => return None,
    };
    n.checked_mul(factor)
}

/// An on/off switch, spelled as PostgreSQL spells booleans; `default` when not given.
fn on_off(name: &str, value: Option<String>, default: bool) -> Result<bool, String> {
    match value {
        None => Ok(default),
        Some(v) => crate::sql::types::io::parse_bool(&v)
            .ok_or_else(|| format!("invalid {name} \"{v}\": use on or off")),
    }
}

fn parse_listen(s: &str) -> Result<Vec<IpAddr>, String> {
    let mut out = Vec::new();
    for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let addr = match part {
            "*" => IpAddr::from([0, 0, 0, 0]),
            "localhost" => IpAddr::from([127, 0, 0, 1]),
            other => other
                .parse()
                .map_err(|_| format!("invalid listen address \"{other}\""))?,
        };
        out.push(addr);
    }
    if out.is_empty() {
        return Err("no listen address given".into());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(args: &[&str]) -> Result<Config, String> {
        Config::from_args(Args::parse_from(
            std::iter::once("threadgres").chain(args.iter().copied()),
        ))
    }

    #[test]
    fn shard_weight_takes_postgres_booleans_and_rejects_the_rest() {
        assert!(config(&[]).unwrap().shard_weight, "on by default");
        assert!(!config(&["--shard-weight", "off"]).unwrap().shard_weight);
        assert!(!config(&["--shard-weight", "FALSE"]).unwrap().shard_weight);
        assert!(config(&["--shard-weight", "on"]).unwrap().shard_weight);
        let err = config(&["--shard-weight", "sometimes"]).unwrap_err();
        assert_eq!(err, "invalid shard_weight \"sometimes\": use on or off");
    }

    #[test]
    fn client_affinity_is_on_by_default_and_takes_postgres_booleans() {
        assert!(config(&[]).unwrap().client_affinity);
        assert!(
            !config(&["--client-affinity", "off"])
                .unwrap()
                .client_affinity
        );
        assert!(!config(&["--client-affinity", "0"]).unwrap().client_affinity);
        assert!(
            config(&["--client-affinity", "yes"])
                .unwrap()
                .client_affinity
        );
        let err = config(&["--client-affinity", "maybe"]).unwrap_err();
        assert_eq!(err, "invalid client_affinity \"maybe\": use on or off");
    }

    #[test]
    fn pin_shards_is_on_by_default_and_takes_postgres_booleans() {
        assert!(config(&[]).unwrap().pin_shards);
        assert!(!config(&["--pin-shards", "off"]).unwrap().pin_shards);
        assert!(config(&["--pin-shards", "true"]).unwrap().pin_shards);
        let err = config(&["--pin-shards", "2"]).unwrap_err();
        assert_eq!(err, "invalid pin_shards \"2\": use on or off");
    }

    #[test]
    fn authentication_timeout_takes_seconds_or_units_within_postgres_range() {
        assert_eq!(config(&[]).unwrap().authentication_timeout_s, 60);
        let t =
            |v: &str| config(&["--authentication-timeout", v]).map(|c| c.authentication_timeout_s);
        assert_eq!(t("5"), Ok(5));
        assert_eq!(t("30s"), Ok(30));
        assert_eq!(t("2min"), Ok(120));
        assert!(t("0").is_err());
        assert!(t("11min").is_err());
        assert!(t("soon").is_err());
        let toml: FileConfig = toml::from_str("authentication_timeout = 30").unwrap();
        assert_eq!(
            toml.authentication_timeout.map(Seconds::text).as_deref(),
            Some("30")
        );
    }

    #[test]
    fn limits_are_clamped() {
        let c = config(&["--worker-threads", "100000", "--idle-spin-us", "5000"]).unwrap();
        assert_eq!(c.worker_threads, 256);
        assert_eq!(c.idle_spin_us, 1000);
        assert_eq!(
            config(&["--worker-threads", "0"]).unwrap().worker_threads,
            1
        );
    }
}
