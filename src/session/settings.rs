//! Session settings (GUCs): SET / SHOW / RESET, startup parameters, ParameterStatus.
//!
//! Every setting threadgres knows is a row of `sql::guc::GUCS`: name, default, kind and whether changing
//! it is reported to the client with ParameterStatus. A session stores only the values that differ
//! from the default (an idle session with default settings holds an empty map), plus the typed
//! values on the hot path (the formatting context and statement_timeout) kept in sync.
//!
//! Transactional behaviour follows PostgreSQL: values set inside a transaction are undone if it
//! aborts; SET LOCAL lasts until the end of the transaction. The session implements that by
//! snapshotting [`Settings`] at transaction and savepoint starts. Every statement outside a
//! transaction block starts one, so the snapshot must not copy the map: the map is shared
//! behind an `Arc` and copied only when a setting changes while a snapshot holds it.

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::error::{code, PgError, PgResult};
use crate::sql::func::extension::pg_trgm;
use crate::sql::types::io::parse_bool;
use crate::sql::types::{
    datetime, DateOrder, DateOutput, DateStyle, FormatCtx, IntervalStyle, TimeZone,
};
use crate::txn::Isolation;

pub use crate::sql::guc::{all_names, display_name};
use crate::sql::guc::{cannot_change, find, parse_ms, Context::*, Kind::*, GUCS};

/// A session's settings.
#[derive(Clone, Debug, Default)]
pub struct Settings {
    /// Values differing from the defaults, by canonical (lower-case) name; custom `a.b`
    /// placeholders live here too. Shared with snapshots; copied on write.
    values: Arc<BTreeMap<String, String>>,
    pub fmt: FormatCtx,
    pub statement_timeout_ms: u64,
    /// The longest one wait for a relation or row lock may last (0: no limit).
    pub lock_timeout_ms: u64,
    pub idle_in_transaction_timeout_ms: u64,
    /// default_transaction_isolation, parsed: every statement outside a transaction block
    /// reads it, and a map lookup each time showed in profiles with many sessions.
    pub default_isolation: Isolation,
    /// default_transaction_read_only and default_transaction_deferrable, parsed likewise.
    pub default_read_only: bool,
    pub default_deferrable: bool,
    /// client_min_messages as the number of DEBUG levels the client asked for (debug2: 2),
    /// 0 for `log` and above: the protocol's own DEBUG messages (Parse, Bind) test this
    /// instead of looking the setting up for every message.
    pub client_debug: u8,
    /// client_connection_check_interval in ms (0: no checks).
    pub client_check_ms: u64,
    /// max_stack_depth in kB (see `crate::stack`): every message's handling starts with it.
    pub max_stack_depth_kb: usize,
    /// The conversion client_encoding asks for (`None`: UTF8 or SQL_ASCII; see
    /// `session::encoding`), kept here so that transactions restore it with the setting.
    pub client: crate::encoding::Client,
}

/// Instance-level values shown by read-only settings.
pub struct Fixed {
    pub max_connections: usize,
    pub max_notify_queue_size: u64,
    /// The role the session logged in as, and whether it is a superuser.
    pub user: String,
    pub superuser: bool,
    /// The server-level settings (ssl, data_directory, hba_file, ...).
    pub server: std::sync::Arc<crate::config::Shown>,
}

/// Who the session acts as is kept in the settings, as PostgreSQL keeps it in the `role` and
/// `session_authorization` settings, so that a transaction's abort and SET LOCAL's end restore
/// it with the rest. The value is `\0oid/t|f/name` (OID, superuser, name), made only by
/// `session::identity` after its checks: SQL text and start-up parameters cannot hold a NUL, so
/// a client cannot store one directly.
/// Settings only a superuser may change (PostgreSQL's PGC_SUSET among those threadgres has).
pub const SUPERUSER_SETTINGS: [&str; 1] = ["max_stack_depth"];

pub const IDENTITY_SETTINGS: [&str; 2] = ["role", "session_authorization"];

/// Makes the stored form of an identity setting.
pub fn encode_identity(oid: u32, superuser: bool, name: &str) -> String {
    format!("\0{oid}/{}/{name}", if superuser { 't' } else { 'f' })
}

/// Reads the stored form of an identity setting: (OID, superuser, name).
pub fn decode_identity(v: &str) -> Option<(u32, bool, &str)> {
    let rest = v.strip_prefix('\0')?;
    let (oid, rest) = rest.split_once('/')?;
    let (sup, name) = rest.split_once('/')?;
    Some((oid.parse().ok()?, sup == "t", name))
}

/// A boolean setting's value: boolean input's spellings (prefixes of true/false/yes/no/off,
/// on, 1, 0), without the blanks around them that boolean input allows (PostgreSQL's
/// parse_bool).
fn guc_bool(v: &str) -> Option<bool> {
    if v.trim_matches(|c: char| c.is_ascii_whitespace()) != v {
        return None;
    }
    parse_bool(v)
}

/// A memory setting in kB (its unit): a plain number, or a number with kB, MB, GB or TB.
fn parse_kb(v: &str) -> Option<i64> {
    let v = v.trim().trim_matches('\'');
    let split = v
        .find(|c: char| !c.is_ascii_digit() && c != '.')
        .unwrap_or(v.len());
    let (num, unit) = v.split_at(split);
    let f: f64 = match unit.trim() {
        "B" => 1.0 / 1024.0,
        "" | "kB" => 1.0,
        "MB" => 1024.0,
        "GB" => 1024.0 * 1024.0,
        "TB" => 1024.0 * 1024.0 * 1024.0,
        _ => return None,
    };
    if !num.contains('.') && f >= 1.0 {
        return num.parse::<i64>().ok()?.checked_mul(f as i64);
    }
    // A fraction is rounded to whole kB, as PostgreSQL rounds to the setting's unit.
    let kb = (num.parse::<f64>().ok()? * f).round();
    (kb.is_finite() && kb.abs() < i64::MAX as f64).then_some(kb as i64)
}

/// SHOW's form of a memory setting given in kB.
fn format_kb(kb: i64) -> String {
    crate::memory::format_kb(kb)
}

fn format_ms(ms: i64) -> String {
    if ms == 0 {
        return "0".into();
    }
    for (unit, f) in [
        ("d", 86_400_000),
        ("h", 3_600_000),
        ("min", 60_000),
        ("s", 1000),
    ] {
        if ms % f == 0 {
            return format!("{}{}", ms / f, unit);
        }
    }
    format!("{ms}ms")
}

/// Which of pg_trgm's settings `name` is (an index into `FormatCtx::trgm`). They are known
/// whether or not the extension is installed: PostgreSQL knows them once its library is
/// loaded, which CREATE EXTENSION does, and keeps a SET of them made before as a placeholder.
fn trgm_setting(name: &str) -> Option<usize> {
    pg_trgm::SETTINGS
        .iter()
        .position(|s| s.eq_ignore_ascii_case(name))
}

/// A value of one of pg_trgm's settings: a real number from 0 to 1.
fn parse_trgm(name: &str, value: &str) -> PgResult<f64> {
    let v: f64 = value
        .trim()
        .parse()
        .ok()
        .filter(|v: &f64| !v.is_nan())
        .ok_or_else(|| invalid_value(name, value))?;
    if !(0.0..=1.0).contains(&v) {
        return Err(PgError::new(
            code::INVALID_PARAMETER_VALUE,
            format!(
                "{} is outside the valid range for parameter \"{name}\" (0 .. 1)",
                pg_trgm::format_g(v)
            ),
        ));
    }
    Ok(v)
}

fn invalid_value(name: &str, value: &str) -> PgError {
    PgError::new(
        code::INVALID_PARAMETER_VALUE,
        format!("invalid value for parameter \"{name}\": \"{value}\""),
    )
}

fn parse_datestyle(v: &str, current: DateStyle) -> Option<DateStyle> {
    let mut ds = current;
    for part in v.split(',') {
        match part.trim().to_ascii_lowercase().as_str() {
            "iso" => ds.output = DateOutput::Iso,
            "postgres" => ds.output = DateOutput::Postgres,
            "sql" => ds.output = DateOutput::Sql,
            // German implies DMY unless the same value names an order (check_datestyle).
            "german" => {
                ds.output = DateOutput::German;
                if !v.split(',').any(|p| {
                    matches!(
                        p.trim().to_ascii_lowercase().as_str(),
                        "mdy" | "us" | "noneuropean" | "dmy" | "euro" | "european" | "ymd"
                    )
                }) {
                    ds.order = DateOrder::Dmy;
                }
            }
            "mdy" | "us" | "noneuropean" => ds.order = DateOrder::Mdy,
            "dmy" | "euro" | "european" => ds.order = DateOrder::Dmy,
            "ymd" => ds.order = DateOrder::Ymd,
            "" => {}
            _ => return None,
        }
    }
    Some(ds)
}

fn datestyle_text(ds: DateStyle) -> String {
    let out = match ds.output {
        DateOutput::Iso => "ISO",
        DateOutput::Postgres => "Postgres",
        DateOutput::Sql => "SQL",
        DateOutput::German => "German",
    };
    let order = match ds.order {
        DateOrder::Mdy => "MDY",
        DateOrder::Dmy => "DMY",
        DateOrder::Ymd => "YMD",
    };
    format!("{out}, {order}")
}

impl Settings {
    pub fn new() -> Settings {
        Settings {
            max_stack_depth_kb: crate::stack::DEFAULT_KB,
            client_check_ms: 1000,
            ..Settings::default()
        }
    }

    /// Normalizes and validates `value` for `name`; returns (canonical name, stored value).
    fn canonicalize(&self, name: &str, value: &str) -> PgResult<(String, String)> {
        let Some(g) = find(name) else {
            if let Some(i) = trgm_setting(name) {
                parse_trgm(pg_trgm::SETTINGS[i], value)?;
                return Ok((pg_trgm::SETTINGS[i].to_string(), value.trim().to_string()));
            }
            if name.contains('.') {
                return Ok((name.to_ascii_lowercase(), value.to_string()));
            }
            return Err(PgError::new(
                code::UNDEFINED_OBJECT,
                format!("unrecognized configuration parameter \"{name}\""),
            ));
        };
        if g.context != User {
            return Err(cannot_change(g));
        }
        let v = match g.kind {
            Bool => match guc_bool(value) {
                Some(true) => "on".to_string(),
                Some(false) => "off".to_string(),
                None => {
                    return Err(PgError::new(
                        code::INVALID_PARAMETER_VALUE,
                        format!("parameter \"{}\" requires a Boolean value", g.name),
                    ))
                }
            },
            Int(Some(unit)) => {
                let ms = parse_ms(value, unit).ok_or_else(|| {
                    PgError::new(
                        code::INVALID_PARAMETER_VALUE,
                        format!("invalid value for parameter \"{}\": \"{}\"", g.name, value),
                    )
                })?;
                if ms < 0 {
                    return Err(PgError::new(
                        code::INVALID_PARAMETER_VALUE,
                        format!("{ms} ms is outside the valid range for parameter \"{}\" (0 .. 2147483647)", g.name),
                    ));
                }
                ms.to_string()
            }
            Int(None) => {
                let n: i64 = value.trim().parse().map_err(|_| {
                    PgError::new(
                        code::INVALID_PARAMETER_VALUE,
                        format!("invalid value for parameter \"{}\": \"{}\"", g.name, value),
                    )
                    .with_hint("")
                    .without_hint()
                })?;
                if g.name == "extra_float_digits" && !(-15..=3).contains(&n) {
                    return Err(PgError::new(
                        code::INVALID_PARAMETER_VALUE,
                        format!("{n} is outside the valid range for parameter \"extra_float_digits\" (-15 .. 3)"),
                    ));
                }
                n.to_string()
            }
            Enum(allowed) => {
                let lower = hidden_enum_value(g.name, value.trim().to_ascii_lowercase());
                if !allowed.contains(&lower.as_str()) && !is_hidden_enum_value(g.name, &lower) {
                    return Err(PgError::new(
                        code::INVALID_PARAMETER_VALUE,
                        format!("invalid value for parameter \"{}\": \"{}\"", g.name, value),
                    )
                    .with_hint(format!("Available values: {}.", allowed.join(", "))));
                }
                lower
            }
            Str => match g.name {
                "client_encoding" => super::encoding::canonical(value)?.0.to_string(),
                "datestyle" => {
                    let ds = parse_datestyle(value, self.fmt.date_style).ok_or_else(|| {
                        let bad = value
                            .split(',')
                            .map(str::trim)
                            .find(|p| parse_datestyle(p, DateStyle::default()).is_none())
                            .unwrap_or(value);
                        invalid_value("DateStyle", value)
                            .with_detail(format!("Unrecognized key word: \"{bad}\"."))
                    })?;
                    datestyle_text(ds)
                }
                "timezone" => canonical_timezone(value)?,
                // SET quotes each name (sql::analyze); set_config() and start-up
                // parameters are kept as given, as PostgreSQL keeps them.
                "search_path" => value.to_string(),
                "work_mem" => {
                    let kb = parse_kb(value).ok_or_else(|| {
                        let e = invalid_value("work_mem", value);
                        if value.trim().starts_with(|c: char| c.is_ascii_digit()) {
                            e.with_hint("Valid units for this parameter are \"B\", \"kB\", \"MB\", \"GB\", and \"TB\".")
                        } else {
                            e
                        }
                    })?;
                    if !(64..=2_147_483_647).contains(&kb) {
                        return Err(PgError::new(
                            code::INVALID_PARAMETER_VALUE,
                            format!("{kb} kB is outside the valid range for parameter \"work_mem\" (64 .. 2147483647)"),
                        ));
                    }
                    format_kb(kb)
                }
                "max_stack_depth" => {
                    let kb =
                        parse_kb(value).ok_or_else(|| invalid_value("max_stack_depth", value))?;
                    if !(100..=2_147_483_647).contains(&kb) {
                        return Err(PgError::new(
                            code::INVALID_PARAMETER_VALUE,
                            format!("{kb} kB is outside the valid range for parameter \"max_stack_depth\" (100 .. 2147483647)"),
                        ));
                    }
                    let max = crate::stack::max_setting_kb() as i64;
                    if kb > max {
                        return Err(PgError::new(
                            code::INVALID_PARAMETER_VALUE,
                            format!("invalid value for parameter \"max_stack_depth\": {kb}"),
                        )
                        .with_detail(format!("\"max_stack_depth\" must not exceed {max}kB."))
                        .with_hint("Increase the platform's stack depth limit via \"ulimit -s\" or local equivalent."));
                    }
                    format_kb(kb)
                }
                _ => value.to_string(),
            },
        };
        Ok((g.name.to_string(), v))
    }

    /// Sets a value (already validated by `canonicalize`) and updates the typed copies.
    fn store(&mut self, name: String, value: String) {
        match name.as_str() {
            "datestyle" => {
                if let Some(ds) = parse_datestyle(&value, self.fmt.date_style) {
                    self.fmt.date_style = ds;
                }
            }
            "timezone" => {
                if let Some(tz) = datetime::parse_timezone(&value) {
                    self.fmt.time_zone = tz;
                }
            }
            "extra_float_digits" => self.fmt.extra_float_digits = value.parse().unwrap_or(1),
            "intervalstyle" => {
                self.fmt.interval_style = match value.as_str() {
                    "postgres_verbose" => IntervalStyle::PostgresVerbose,
                    "sql_standard" => IntervalStyle::SqlStandard,
                    "iso_8601" => IntervalStyle::Iso8601,
                    _ => IntervalStyle::Postgres,
                }
            }
            n if trgm_setting(n).is_some() => {
                let i = trgm_setting(n).unwrap_or(0);
                self.fmt.trgm[i] = value.trim().parse().unwrap_or(pg_trgm::DEFAULTS[i]);
            }
            "statement_timeout" => self.statement_timeout_ms = value.parse().unwrap_or(0),
            "client_connection_check_interval" => self.client_check_ms = value.parse().unwrap_or(0),
            "max_stack_depth" => {
                self.max_stack_depth_kb =
                    parse_kb(&value).map_or(crate::stack::DEFAULT_KB, |kb| kb as usize)
            }
            "lock_timeout" => self.lock_timeout_ms = value.parse().unwrap_or(0),
            "default_transaction_isolation" => {
                self.default_isolation = Isolation::parse(&value).unwrap_or_default()
            }
            "default_transaction_read_only" => self.default_read_only = value == "on",
            "default_transaction_deferrable" => self.default_deferrable = value == "on",
            "idle_in_transaction_session_timeout" => {
                self.idle_in_transaction_timeout_ms = value.parse().unwrap_or(0)
            }
            "client_min_messages" => {
                self.client_debug = value
                    .strip_prefix("debug")
                    .and_then(|n| n.parse::<u8>().ok())
                    .unwrap_or(0)
            }
            _ => {}
        }
        let default = find(&name).map(|g| g.default);
        if default == Some(value.as_str()) {
            if self.values.contains_key(&name) {
                Arc::make_mut(&mut self.values).remove(&name);
            }
        } else if self.values.get(&name) != Some(&value) {
            Arc::make_mut(&mut self.values).insert(name, value);
        }
    }

    /// SET name = value. Returns the canonical name and whether it is reported to the client.
    pub fn set(&mut self, name: &str, value: &str) -> PgResult<(String, bool)> {
        if IDENTITY_SETTINGS.contains(&name)
            && (value.is_empty() || decode_identity(value).is_some())
        {
            // The stored form (see IDENTITY_SETTINGS), or empty: back to the login role.
            let values = Arc::make_mut(&mut self.values);
            if value.is_empty() {
                values.remove(name);
            } else {
                values.insert(name.to_string(), value.to_string());
            }
            return Ok((name.to_string(), true));
        }
        let (n, v) = self.canonicalize(name, value)?;
        let report = find(&n).is_some_and(|g| g.report);
        if n == "client_encoding" {
            self.client = super::encoding::canonical(&v)?.1;
        }
        self.store(n.clone(), v);
        Ok((n, report))
    }

    /// Applies a startup parameter (or `-c name=value` from `options`).
    pub fn set_startup(&mut self, name: &str, value: &str) -> PgResult<()> {
        self.set(name, value).map(|_| ()).map_err(|e| {
            if name.eq_ignore_ascii_case("client_encoding") {
                super::encoding::startup_error(value, e)
            } else {
                e
            }
        })
    }

    /// RESET name (and SET name TO DEFAULT) in a session: back to the value the start-up
    /// packet gave, if it gave one (PostgreSQL's reset value), else to the default.
    pub fn reset_to_startup(&mut self, name: &str, startup: &Settings) -> PgResult<(String, bool)> {
        let key = find(name).map_or_else(|| name.to_ascii_lowercase(), |g| g.name.to_string());
        match startup.values.get(&key) {
            Some(v) if find(&key).is_some() => self.set(&key, &v.clone()),
            _ => self.reset(name),
        }
    }

    /// RESET name.
    pub fn reset(&mut self, name: &str) -> PgResult<(String, bool)> {
        match find(name) {
            Some(g) if g.context != User => Err(cannot_change(g)),
            Some(g) => {
                let value = g.default.to_string();
                self.store(g.name.to_string(), value);
                if g.name == "client_encoding" {
                    self.client = None;
                }
                if g.name == "datestyle" {
                    self.fmt.date_style = DateStyle::default();
                }
                Ok((g.name.to_string(), g.report))
            }
            None if name.contains('.') => {
                if let Some(i) = trgm_setting(name) {
                    self.fmt.trgm[i] = pg_trgm::DEFAULTS[i];
                }
                let lower = name.to_ascii_lowercase();
                if self.values.contains_key(&lower) {
                    Arc::make_mut(&mut self.values).remove(&lower);
                }
                Ok((name.to_string(), false))
            }
            None => Err(PgError::new(
                code::UNDEFINED_OBJECT,
                format!("unrecognized configuration parameter \"{name}\""),
            )),
        }
    }

    /// RESET ALL: back to defaults, keeping values PostgreSQL keeps (none for user settings
    /// here besides those set at startup, which `startup` restores).
    pub fn reset_all(&mut self, startup: &Settings) -> Vec<String> {
        let before = self.clone();
        *self = startup.clone();
        // SET ROLE and SET SESSION AUTHORIZATION survive RESET ALL (GUC_NO_RESET_ALL).
        for name in IDENTITY_SETTINGS {
            let _ = self.set(name, &before.identity_raw(name));
        }
        GUCS.iter()
            .filter(|g| g.report && before.get_raw(g.name) != self.get_raw(g.name))
            .map(|g| g.name.to_string())
            .collect()
    }

    fn get_raw(&self, name: &str) -> Option<String> {
        self.get_str(name).map(str::to_string)
    }

    /// The stored value of a setting by canonical name, or its default; `show` without the
    /// copy and without the display rules of the few settings that have them.
    pub fn get_str(&self, name: &str) -> Option<&str> {
        self.values
            .get(name)
            .map(String::as_str)
            .or_else(|| find(name).map(|g| g.default))
    }

    /// The stored identity setting `name` (see [`IDENTITY_SETTINGS`]): (OID, superuser, name).
    pub fn identity(&self, name: &str) -> Option<(u32, bool, &str)> {
        self.values.get(name).and_then(|v| decode_identity(v))
    }

    /// The raw stored value of an identity setting ("" when not set), for SET LOCAL's restore.
    pub fn identity_raw(&self, name: &str) -> String {
        self.values.get(name).cloned().unwrap_or_default()
    }

    /// SHOW / current_setting(): the displayed value.
    pub fn show(&self, name: &str, fixed: &Fixed) -> PgResult<String> {
        if name.eq_ignore_ascii_case("role") {
            return Ok(self.identity("role").map_or("none", |r| r.2).to_string());
        }
        let Some(g) = find(name) else {
            if let Some(i) = trgm_setting(name) {
                return Ok(pg_trgm::format_g(self.fmt.trgm[i]));
            }
            let lower = name.to_ascii_lowercase();
            if let Some(v) = self.values.get(&lower) {
                return Ok(v.clone());
            }
            return Err(PgError::new(
                code::UNDEFINED_OBJECT,
                format!("unrecognized configuration parameter \"{name}\""),
            ));
        };
        let raw = self.get_raw(g.name).unwrap_or_default();
        Ok(match g.name {
            "max_connections" => fixed.max_connections.to_string(),
            "max_notify_queue_size" => fixed.max_notify_queue_size.to_string(),
            "session_authorization" => self
                .identity("session_authorization")
                .map_or_else(|| fixed.user.clone(), |r| r.2.to_string()),
            // Of the current role (SET ROLE, else the session user), as PostgreSQL sets it.
            "is_superuser" => {
                let sup = self
                    .identity("role")
                    .or_else(|| self.identity("session_authorization"))
                    .map_or(fixed.superuser, |r| r.1);
                if sup { "on" } else { "off" }.to_string()
            }
            "ssl" => if fixed.server.ssl { "on" } else { "off" }.to_string(),
            "ssl_cert_file" => fixed.server.ssl_cert_file.clone(),
            "ssl_key_file" => fixed.server.ssl_key_file.clone(),
            "ssl_ca_file" => fixed.server.ssl_ca_file.clone(),
            "data_directory" => fixed.server.data_directory.clone(),
            "hba_file" => fixed.server.hba_file.clone(),
            "authentication_timeout" => {
                format_ms(fixed.server.authentication_timeout_s as i64 * 1000)
            }
            "checkpoint_timeout" => format_ms(fixed.server.checkpoint_timeout_s as i64 * 1000),
            "fsync" => if fixed.server.wal.fsync { "on" } else { "off" }.to_string(),
            "wal_segment_size" => format_kb((fixed.server.wal.wal_segment_size >> 10) as i64),
            "min_wal_size" => format_kb((fixed.server.wal.min_wal_size >> 10) as i64),
            "max_wal_size" => format_kb((fixed.server.wal.max_wal_size >> 10) as i64),
            "wal_buffers" => format_kb((fixed.server.wal.wal_buffers >> 10) as i64),
            "wal_writer_delay" => format_ms(fixed.server.wal.wal_writer_delay_ms as i64),
            "commit_delay" => fixed.server.wal.commit_delay_us.to_string(),
            _ => match g.kind {
                Int(Some(_)) => format_ms(raw.parse().unwrap_or(0)),
                _ => raw,
            },
        })
    }

    /// Display name for ParameterStatus / SHOW ALL.
    pub fn display_name(name: &str) -> &str {
        display_name(name)
    }

    /// The (name, value) pairs sent as ParameterStatus after authentication, in PostgreSQL's
    /// set of 13.
    pub fn reported(&self, fixed: &Fixed) -> Vec<(&'static str, String)> {
        GUCS.iter()
            .filter(|g| g.report)
            .map(|g| {
                (
                    display_name(g.name),
                    self.show(g.name, fixed).unwrap_or_default(),
                )
            })
            .collect()
    }
}

/// The values PostgreSQL accepts but does not list in the hint: `debug` stands for `debug2`,
/// and client_min_messages takes `info` (which changes nothing: INFO always reaches the client).
fn hidden_enum_value(name: &str, lower: String) -> String {
    match (name, lower.as_str()) {
        ("client_min_messages" | "log_min_messages", "debug") => "debug2".to_string(),
        _ => lower,
    }
}

fn is_hidden_enum_value(name: &str, lower: &str) -> bool {
    name == "client_min_messages" && lower == "info"
}

trait HintExt {
    fn without_hint(self) -> Self;
}

impl HintExt for PgError {
    fn without_hint(mut self) -> Self {
        self.hint = None;
        self
    }
}

/// TimeZone as PostgreSQL shows it after SET.
fn canonical_timezone(value: &str) -> PgResult<String> {
    let v = value.trim();
    // SET TIME ZONE INTERVAL '...': an offset east of Greenwich.
    if let Some(text) = interval_zone_text(v) {
        let i = datetime::parse_interval(text, IntervalStyle::Postgres)
            .map_err(|_| invalid_value("TimeZone", value))?;
        if i.months != 0 {
            return Err(invalid_value("TimeZone", value)
                .with_detail("Cannot specify months in time zone interval."));
        }
        if i.days != 0 {
            return Err(invalid_value("TimeZone", value)
                .with_detail("Cannot specify days in time zone interval."));
        }
        let east =
            i32::try_from(i.micros / 1_000_000).map_err(|_| invalid_value("TimeZone", value))?;
        return Ok(datetime::timezone_name(&TimeZone::Fixed(east)));
    }
    let tz = datetime::parse_timezone(v).ok_or_else(|| invalid_value("TimeZone", value))?;
    Ok(match tz {
        // A POSIX spec is shown as written, a bare number as <+05>-05, a zone name in its
        // canonical spelling.
        TimeZone::Fixed(_) if v.parse::<f64>().is_err() => v.to_string(),
        _ => datetime::timezone_name(&tz),
    })
}

/// The interval text of a `SET TIME ZONE INTERVAL '...'` value (passed on as `INTERVAL '...'`).
fn interval_zone_text(v: &str) -> Option<&str> {
    let head = v.get(..8)?;
    if !head.eq_ignore_ascii_case("interval") {
        return None;
    }
    v[8..].trim().strip_prefix('\'')?.strip_suffix('\'')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixed() -> Fixed {
        Fixed {
            max_connections: 100,
            max_notify_queue_size: 1,
            user: "u".into(),
            server: Default::default(),
            superuser: true,
        }
    }

    #[test]
    fn the_parsed_default_isolation_follows_set_and_reset() {
        let mut s = Settings::new();
        assert_eq!(s.default_isolation, Isolation::ReadCommitted);
        s.set("default_transaction_isolation", "SERIALIZABLE")
            .unwrap();
        assert_eq!(s.default_isolation, Isolation::Serializable);
        let snapshot = s.clone();
        s.set("Default_Transaction_Isolation", "repeatable read")
            .unwrap();
        assert_eq!(s.default_isolation, Isolation::RepeatableRead);
        s.reset("default_transaction_isolation").unwrap();
        assert_eq!(s.default_isolation, Isolation::ReadCommitted);
        assert_eq!(snapshot.default_isolation, Isolation::Serializable);
        assert!(s.set("default_transaction_isolation", "sometimes").is_err());
        assert_eq!(s.default_isolation, Isolation::ReadCommitted);
    }

    #[test]
    fn reports_thirteen_parameters() {
        let s = Settings::new();
        let r = s.reported(&fixed());
        assert_eq!(r.len(), 13, "{r:?}");
        assert!(r
            .iter()
            .any(|(n, v)| *n == "server_version" && v.starts_with("15.")));
        assert!(r.iter().any(|(n, v)| *n == "DateStyle" && v == "ISO, MDY"));
    }

    #[test]
    fn units_and_booleans() {
        let mut s = Settings::new();
        s.set("statement_timeout", "5000").unwrap();
        assert_eq!(s.show("statement_timeout", &fixed()).unwrap(), "5s");
        assert_eq!(s.statement_timeout_ms, 5000);
        s.set("statement_timeout", "1min").unwrap();
        assert_eq!(s.show("statement_timeout", &fixed()).unwrap(), "1min");
        assert!(s.set("standard_conforming_strings", "maybe").is_err());
        assert_eq!(s.set("server_version", "1").unwrap_err().code, "55P02");
        assert_eq!(s.set("nope", "1").unwrap_err().code, "42704");
        s.set("my.custom", "x").unwrap();
        assert_eq!(s.show("my.custom", &fixed()).unwrap(), "x");
    }

    #[test]
    fn client_encoding_variants() {
        let mut s = Settings::new();
        for v in ["'utf-8'", "UTF8", "utf8", "unicode"] {
            s.set("client_encoding", v).unwrap();
        }
        assert!(s.client.is_none());
        s.set("client_encoding", "latin-1").unwrap();
        assert_eq!(s.get_str("client_encoding"), Some("LATIN1"));
        assert!(s.client.is_some());
        assert_eq!(s.set("client_encoding", "bogus").unwrap_err().code, "22023");
        assert_eq!(
            s.set("client_encoding", "mule_internal").unwrap_err().code,
            "0A000"
        );
        s.reset("client_encoding").unwrap();
        assert!(s.client.is_none());
    }
}
