//! The settings (GUCs) threadgres knows: one table of names, defaults, kinds and contexts, in
//! PostgreSQL's names and order.
//!
//! The table is read by the session's settings (`session/settings.rs`, which keeps each
//! session's values), by SHOW ALL and by pg_settings. It holds no state.

use crate::error::{code, PgError};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Bool,
    /// Integer, optionally with a time unit in which plain numbers are given ("ms", "s").
    Int(Option<&'static str>),
    Enum(&'static [&'static str]),
    Str,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Context {
    /// Anyone may change it.
    User,
    /// Shown but fixed (server_version, max_connections, ...).
    Internal,
    /// Fixed while the server runs (PostgreSQL: changed only in its configuration file).
    Sighup,
    /// Fixed until the server restarts.
    Postmaster,
}

/// PostgreSQL's error for SET / RESET of a setting a session cannot change.
pub fn cannot_change(g: &Guc) -> PgError {
    let why = match g.context {
        Sighup => " now",
        Postmaster => " without restarting the server",
        _ => "",
    };
    PgError::new(
        code::CANT_CHANGE_RUNTIME_PARAM,
        format!("parameter \"{}\" cannot be changed{why}", g.name),
    )
}

pub struct Guc {
    pub name: &'static str,
    pub default: &'static str,
    pub kind: Kind,
    pub context: Context,
    /// Sent as ParameterStatus at startup and whenever it changes.
    pub report: bool,
    pub desc: &'static str,
}

const fn g(
    name: &'static str,
    default: &'static str,
    kind: Kind,
    context: Context,
    report: bool,
    desc: &'static str,
) -> Guc {
    Guc {
        name,
        default,
        kind,
        context,
        report,
        desc,
    }
}

use Context::*;
use Kind::*;

const ISOLATIONS: &[&str] = &[
    "serializable",
    "repeatable read",
    "read committed",
    "read uncommitted",
];

/// The settings threadgres knows, in PostgreSQL's names. Order is SHOW ALL's order.
pub const GUCS: &[Guc] = &[
    g("application_name", "", Str, User, true, "Sets the application name to be reported in statistics and logs."),
    g("authentication_timeout", "", Int(Some("s")), Sighup, false, "Sets the maximum allowed time to complete client authentication."),
    g("check_function_bodies", "on", Bool, User, false, "Check routine bodies during CREATE FUNCTION and CREATE PROCEDURE."),
    g("checkpoint_timeout", "", Int(Some("s")), Sighup, false, "Sets the maximum time between automatic WAL checkpoints."),
    g("client_encoding", "UTF8", Str, User, true, "Sets the client's character set encoding."),
    // On by default here, unlike PostgreSQL (0): a session task notices its socket closing
    // at the cost of a peek per interval, so a statement whose client left stops.
    g("client_connection_check_interval", "1000", Int(Some("ms")), User, false, "Sets the time interval between checks for disconnection while running queries."),
    g("client_min_messages", "notice", Enum(&["debug5", "debug4", "debug3", "debug2", "debug1", "log", "notice", "warning", "error"]), User, false, "Sets the message levels that are sent to the client."),
    g("commit_delay", "0", Str, Sighup, false, "Sets the delay in microseconds between transaction commit and flushing WAL to disk."),
    g("data_directory", "", Str, Postmaster, false, "Sets the server's data directory."),
    g("datestyle", "ISO, MDY", Str, User, true, "Sets the display format for date and time values."),
    // Accepted for the scripts pg_dump writes: threadgres has one table access method and no
    // tablespaces, so only "heap" and "" mean anything.
    g("default_table_access_method", "heap", Str, User, false, "Sets the default table access method for new tables."),
    g("default_tablespace", "", Str, User, false, "Sets the default tablespace to create tables and indexes in."),
    g("default_transaction_deferrable", "off", Bool, User, false, "Sets the default deferrable status of new transactions."),
    g("default_transaction_isolation", "read committed", Enum(ISOLATIONS), User, false, "Sets the transaction isolation level of each new transaction."),
    g("default_transaction_read_only", "off", Bool, User, true, "Sets the default read-only status of new transactions."),
    // Planner method switches: accepted and shown as PostgreSQL's; threadgres's planner has no
    // costs to weigh, so they change nothing (tests set them on both servers to make
    // PostgreSQL's plans for small tables take the shapes threadgres's rules give).
    g("enable_async_append", "on", Bool, User, false, "Enables the planner's use of async append plans."),
    g("enable_bitmapscan", "on", Bool, User, false, "Enables the planner's use of bitmap-scan plans."),
    g("enable_gathermerge", "on", Bool, User, false, "Enables the planner's use of gather merge plans."),
    g("enable_hashagg", "on", Bool, User, false, "Enables the planner's use of hashed aggregation plans."),
    g("enable_hashjoin", "on", Bool, User, false, "Enables the planner's use of hash join plans."),
    g("enable_incremental_sort", "on", Bool, User, false, "Enables the planner's use of incremental sort steps."),
    g("enable_indexonlyscan", "on", Bool, User, false, "Enables the planner's use of index-only-scan plans."),
    g("enable_indexscan", "on", Bool, User, false, "Enables the planner's use of index-scan plans."),
    g("enable_material", "on", Bool, User, false, "Enables the planner's use of materialization."),
    g("enable_memoize", "on", Bool, User, false, "Enables the planner's use of memoization."),
    g("enable_mergejoin", "on", Bool, User, false, "Enables the planner's use of merge join plans."),
    g("enable_nestloop", "on", Bool, User, false, "Enables the planner's use of nested-loop join plans."),
    g("enable_parallel_append", "on", Bool, User, false, "Enables the planner's use of parallel append plans."),
    g("enable_parallel_hash", "on", Bool, User, false, "Enables the planner's use of parallel hash plans."),
    g("enable_partition_pruning", "on", Bool, User, false, "Enables plan-time and execution-time partition pruning."),
    g("enable_partitionwise_aggregate", "off", Bool, User, false, "Enables partitionwise aggregation and grouping."),
    g("enable_partitionwise_join", "off", Bool, User, false, "Enables partitionwise join."),
    g("enable_seqscan", "on", Bool, User, false, "Enables the planner's use of sequential-scan plans."),
    g("enable_sort", "on", Bool, User, false, "Enables the planner's use of explicit sort steps."),
    g("enable_tidscan", "on", Bool, User, false, "Enables the planner's use of TID scan plans."),
    g("extra_float_digits", "1", Int(None), User, false, "Sets the number of digits displayed for floating-point values."),
    g("fsync", "on", Bool, Sighup, false, "Forces synchronization of updates to disk."),
    // GIN indexes here have no pending list and read every posting list whole (engine/gin.rs):
    // both are accepted and shown, and change nothing.
    g("gin_fuzzy_search_limit", "0", Int(None), User, false, "Sets the maximum allowed result for exact search by GIN."),
    g("gin_pending_list_limit", "4MB", Str, User, false, "Sets the maximum size of the pending list for GIN index."),
    g("hba_file", "", Str, Postmaster, false, "Sets the server's \"hba\" configuration file."),
    g("idle_in_transaction_session_timeout", "0", Int(Some("ms")), User, false, "Sets the maximum allowed idle time between queries, when in a transaction."),
    g("idle_session_timeout", "0", Int(Some("ms")), User, false, "Sets the maximum allowed idle time between queries, when not in a transaction."),
    g("in_hot_standby", "off", Bool, Internal, true, "Shows whether hot standby is currently active."),
    g("integer_datetimes", "on", Bool, Internal, true, "Shows whether datetimes are integer based."),
    g("intervalstyle", "postgres", Enum(&["postgres", "postgres_verbose", "sql_standard", "iso_8601"]), User, true, "Sets the display format for interval values."),
    g("is_superuser", "on", Bool, Internal, true, "Shows whether the current user is a superuser."),
    g("jit", "off", Bool, User, false, "Allow JIT compilation."),
    g("lc_messages", "C", Str, User, false, "Sets the language in which messages are displayed."),
    g("lc_monetary", "C", Str, User, false, "Sets the locale for formatting monetary amounts."),
    g("lc_numeric", "C", Str, User, false, "Sets the locale for formatting numbers."),
    g("lc_time", "C", Str, User, false, "Sets the locale for formatting date and time values."),
    g("lock_timeout", "0", Int(Some("ms")), User, false, "Sets the maximum allowed duration of any wait for a lock."),
    g("log_min_messages", "warning", Enum(&["debug5", "debug4", "debug3", "debug2", "debug1", "info", "notice", "warning", "error", "log", "fatal", "panic"]), User, false, "Sets the message levels that are logged."),
    g("max_connections", "", Int(None), Postmaster, false, "Sets the maximum number of concurrent connections."),
    g("max_stack_depth", "2MB", Str, User, false, "Sets the maximum stack depth, in kilobytes."),
    g("max_wal_size", "1GB", Str, Sighup, false, "Sets the WAL size that triggers a checkpoint."),
    g("min_wal_size", "80MB", Str, Sighup, false, "Sets the minimum size to shrink the WAL to."),
    g("max_prepared_transactions", "0", Int(None), Postmaster, false, "Sets the maximum number of simultaneously prepared transactions."),
    g("max_identifier_length", "63", Int(None), Internal, false, "Shows the maximum identifier length."),
    g("max_notify_queue_size", "", Int(None), Internal, false, "Sets the maximum size of the NOTIFY queue, in bytes."),
    g("password_encryption", "scram-sha-256", Enum(&["md5", "scram-sha-256"]), User, false, "Chooses the algorithm for encrypting passwords."),
    // No row-level security policies exist here, so off changes nothing (pg_dump sets it).
    g("row_security", "on", Bool, User, false, "Enable row security."),
    g("search_path", "\"$user\", public", Str, User, false, "Sets the schema search order for names that are not schema-qualified."),
    g("server_encoding", "UTF8", Str, Internal, true, "Shows the server (database) character set encoding."),
    g("server_version", crate::SERVER_VERSION, Str, Internal, true, "Shows the server version."),
    g("server_version_num", crate::SERVER_VERSION_NUM, Int(None), Internal, false, "Shows the server version as an integer."),
    g("session_authorization", "", Str, Internal, true, "Sets the session user name."),
    g("ssl", "off", Bool, Sighup, false, "Enables SSL connections."),
    g("ssl_ca_file", "", Str, Sighup, false, "Location of the SSL certificate authority file."),
    g("ssl_cert_file", "server.crt", Str, Sighup, false, "Location of the SSL server certificate file."),
    g("ssl_key_file", "server.key", Str, Sighup, false, "Location of the SSL server private key file."),
    g("standard_conforming_strings", "on", Bool, User, true, "Causes '...' strings to treat backslashes literally."),
    g("statement_timeout", "0", Int(Some("ms")), User, false, "Sets the maximum allowed duration of any statement."),
    // Scans never share a position here; pg_dump turns it off.
    g("synchronize_seqscans", "on", Bool, User, false, "Enable synchronized sequential scans."),
    g("synchronous_commit", "on", Enum(&["local", "remote_write", "remote_apply", "on", "off"]), User, false, "Sets the current transaction's synchronization level."),
    g("timezone", "Etc/UTC", Str, User, true, "Sets the time zone for displaying and interpreting time stamps."),
    g("trace_notify", "off", Bool, User, false, "Generates debugging output for LISTEN and NOTIFY."),
    g("transaction_deferrable", "off", Bool, User, false, "Whether to defer a read-only serializable transaction until it can be executed with no possible serialization failures."),
    g("transaction_isolation", "read committed", Enum(ISOLATIONS), User, false, "Sets the current transaction's isolation level."),
    g("transaction_read_only", "off", Bool, User, false, "Sets the current transaction's read-only status."),
    g("xmloption", "content", Enum(&["content", "document"]), User, false, "Sets whether XML data in implicit parsing and serialization operations is to be considered as documents or content fragments."),
    g("wal_buffers", "4MB", Str, Postmaster, false, "Sets the number of disk-page buffers in shared memory for WAL."),
    g("wal_segment_size", "16MB", Str, Internal, false, "Shows the size of write ahead log segments."),
    g("wal_writer_delay", "200ms", Str, Sighup, false, "Time between WAL flushes performed in the WAL writer."),
    g("work_mem", "4MB", Str, User, false, "Sets the maximum memory to be used for query workspaces."),
];

/// The names PostgreSQL shows in mixed case (SHOW ALL, ParameterStatus).
pub fn display_name(name: &str) -> &str {
    match name {
        "datestyle" => "DateStyle",
        "intervalstyle" => "IntervalStyle",
        "timezone" => "TimeZone",
        other => other,
    }
}

pub fn find(name: &str) -> Option<&'static Guc> {
    // Without allocating: SHOW and current_setting() look names up on every call.
    let name = [
        ("transaction isolation level", "transaction_isolation"),
        ("time zone", "timezone"),
        ("session authorization", "session_authorization"),
    ]
    .iter()
    .find(|(alias, _)| alias.eq_ignore_ascii_case(name))
    .map_or(name, |(_, canonical)| canonical);
    GUCS.iter().find(|g| g.name.eq_ignore_ascii_case(name))
}

/// What pg_settings shows of a setting besides its name and texts, as PostgreSQL's view does.
pub struct SettingRow {
    /// The value in the setting's base unit (a time setting shown as `5min` is `300` in s).
    pub setting: String,
    pub unit: Option<&'static str>,
    pub context: &'static str,
    pub vartype: &'static str,
}

/// pg_settings' columns of `g`, whose SHOW value is `shown`.
pub fn setting_row(g: &Guc, shown: &str) -> SettingRow {
    let unit = match g.kind {
        Int(u) => u,
        _ => None,
    };
    // SHOW prints a time with a unit (`5min`); pg_settings gives it in the setting's unit.
    let in_unit = |u: &str| Some(parse_ms(shown, u)? / if u == "s" { 1000 } else { 1 });
    let setting = match unit.and_then(in_unit) {
        Some(n) => n.to_string(),
        None => shown.to_string(),
    };
    SettingRow {
        setting,
        unit,
        context: match g.context {
            User => "user",
            Internal => "internal",
            Sighup => "sighup",
            Postmaster => "postmaster",
        },
        vartype: match g.kind {
            Bool => "bool",
            Int(_) => "integer",
            Enum(_) => "enum",
            Str => "string",
        },
    }
}

/// A time setting's value in ms: a number in the setting's `unit` (ms or s), or a number with
/// one of PostgreSQL's time units (us, ms, s, min, h, d), rounded to whole ms.
pub fn parse_ms(v: &str, unit: &str) -> Option<i64> {
    let v = v.trim();
    let split = v
        .find(|c: char| !(c.is_ascii_digit() || c == '-' || c == '.'))
        .unwrap_or(v.len());
    let (num, suffix) = v.split_at(split);
    let n: f64 = num.parse().ok()?;
    let factor = match suffix.trim() {
        "" => {
            if unit == "s" {
                1000.0
            } else {
                1.0
            }
        }
        "us" => 0.001,
        "ms" => 1.0,
        "s" => 1000.0,
        "min" => 60_000.0,
        "h" => 3_600_000.0,
        "d" => 86_400_000.0,
        _ => return None,
    };
    Some((n * factor).round() as i64)
}

/// Names and descriptions for pg_settings / SHOW ALL.
pub fn all_names() -> Vec<(&'static str, &'static str)> {
    GUCS.iter().map(|g| (g.name, g.desc)).collect()
}
