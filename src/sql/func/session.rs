//! Functions whose result depends on the session or the instance: now(), current_user,
//! pg_backend_pid(), pg_notify(), set_config(), pg_sleep(), ... They are evaluated through
//! [`SessionCtx`], so the executor stays independent of the session's implementation.

use crate::error::{code, PgError, PgResult};
use crate::sql::expr::{SessionCtx, SessionFn};
use crate::sql::quote::{quote_ident, quote_literal};
use crate::sql::types::{datetime, io, Array, Type, Value};

/// Result type of each session function (given its argument types).
pub fn result_type(f: SessionFn) -> Type {
    use SessionFn::*;
    match f {
        Now | StatementTimestamp | ClockTimestamp | PostmasterStartTime => Type::TIMESTAMPTZ,
        LocalTimestamp => Type::TIMESTAMP,
        CurrentDate => Type::DATE,
        CurrentUser | SessionUser | CurrentDatabase | CurrentSchema | ClientEncoding => Type::NAME,
        CurrentSchemas => Type::NAME_ARRAY,
        GetUserById => Type::NAME,
        Version | CurrentSetting | SetConfig | Concat | ConcatWs | Format | FormatType
        | ObjDescription => Type::TEXT,
        ListeningChannels => Type::TEXT,
        BackendPid | InetClientPort | InetServerPort => Type::INT4,
        InetClientAddr | InetServerAddr => Type::INET,
        TxidCurrent => Type::INT8,
        CurrentXactId => Type::XID8,
        PgNotify | Sleep | AdvisoryUnlockAll => Type::VOID,
        NotificationQueueUsage => Type::FLOAT8,
        ReloadConf | CancelBackend | TerminateBackend | TableIsVisible | TypeIsVisible
        | HasPrivilege(_) => Type::BOOL,
        Nextval | Currval | Setval | Lastval | GetSerialSequence | SeqLastValue | SeqLogCnt
        | SeqIsCalled => crate::sql::sequence::result_type(f),
        Catalog(c) => super::catalog::result_type(c),
        Ssl(f) => super::ssl::result_type(f),
    }
}

/// Session functions by SQL name: (function, argument types; `None` = any arguments).
pub fn lookup(name: &str, nargs: usize) -> Option<(SessionFn, Option<&'static [Type]>)> {
    use SessionFn::*;
    const T: Type = Type::TEXT;
    Some(match (name, nargs) {
        ("now", 0) | ("transaction_timestamp", 0) => (Now, Some(&[])),
        ("statement_timestamp", 0) => (StatementTimestamp, Some(&[])),
        ("clock_timestamp", 0) => (ClockTimestamp, Some(&[])),
        ("current_database", 0) | ("current_catalog", 0) => (CurrentDatabase, Some(&[])),
        ("current_schema", 0) => (CurrentSchema, Some(&[])),
        ("current_schemas", 1) => (CurrentSchemas, Some(&[Type::BOOL])),
        ("current_user", 0) | ("user", 0) | ("current_role", 0) => (CurrentUser, Some(&[])),
        ("session_user", 0) => (SessionUser, Some(&[])),
        ("version", 0) => (Version, Some(&[])),
        ("pg_client_encoding", 0) => (ClientEncoding, Some(&[])),
        ("pg_backend_pid", 0) => (BackendPid, Some(&[])),
        ("pg_reload_conf", 0) => (ReloadConf, Some(&[])),
        ("inet_client_addr", 0) => (InetClientAddr, Some(&[])),
        ("txid_current", 0) => (TxidCurrent, Some(&[])),
        ("pg_current_xact_id", 0) => (CurrentXactId, Some(&[])),
        ("inet_client_port", 0) => (InetClientPort, Some(&[])),
        ("inet_server_addr", 0) => (InetServerAddr, Some(&[])),
        ("inet_server_port", 0) => (InetServerPort, Some(&[])),
        ("pg_notify", 2) => (PgNotify, Some(&[T, T])),
        ("pg_listening_channels", 0) => (ListeningChannels, Some(&[])),
        ("pg_notification_queue_usage", 0) => (NotificationQueueUsage, Some(&[])),
        ("pg_sleep", 1) => (Sleep, Some(&[Type::FLOAT8])),
        ("current_setting", 1) => (CurrentSetting, Some(&[T])),
        ("current_setting", 2) => (CurrentSetting, Some(&[T, Type::BOOL])),
        ("set_config", 3) => (SetConfig, Some(&[T, T, Type::BOOL])),
        ("pg_cancel_backend", 1) => (CancelBackend, Some(&[Type::INT4])),
        ("pg_terminate_backend", 1) => (TerminateBackend, Some(&[Type::INT4])),
        ("pg_terminate_backend", 2) => (TerminateBackend, Some(&[Type::INT4, Type::INT8])),
        ("pg_advisory_unlock_all", 0) => (AdvisoryUnlockAll, Some(&[])),
        ("pg_postmaster_start_time", 0) => (PostmasterStartTime, Some(&[])),
        ("concat", _) => (Concat, None),
        ("concat_ws", n) if n >= 1 => (ConcatWs, None),
        ("format", n) if n >= 1 => (Format, None),
        ("pg_table_is_visible", 1) => (TableIsVisible, Some(&[Type::OID])),
        ("pg_type_is_visible", 1) => (TypeIsVisible, Some(&[Type::OID])),
        ("format_type", 2) => (FormatType, Some(&[Type::OID, Type::INT4])),
        ("pg_get_userbyid", 1) => (GetUserById, Some(&[Type::OID])),
        ("obj_description", 1) => (ObjDescription, Some(&[Type::OID])),
        ("obj_description", 2) => (ObjDescription, Some(&[Type::OID, Type::NAME])),
        (n, k)
            if super::privs::PrivFn::of(n).is_some_and(|f| {
                let obj = if f == super::privs::PrivFn::Column {
                    2
                } else {
                    1
                };
                k == obj + 1 || k == obj + 2
            }) =>
        {
            (
                HasPrivilege(super::privs::PrivFn::of(n).expect("checked")),
                None,
            )
        }
        ("nextval", 1) => (Nextval, Some(&[Type::REGCLASS])),
        ("currval", 1) => (Currval, Some(&[Type::REGCLASS])),
        ("setval", 2) => (Setval, Some(&[Type::REGCLASS, Type::INT8])),
        ("setval", 3) => (Setval, Some(&[Type::REGCLASS, Type::INT8, Type::BOOL])),
        ("lastval", 0) => (Lastval, Some(&[])),
        ("pg_get_serial_sequence", 2) => (GetSerialSequence, Some(&[T, T])),
        _ if name.starts_with("ssl_") => (Ssl(super::ssl::lookup(name, nargs)?), Some(&[])),
        _ => {
            let (f, sig) = super::catalog::lookup(name, nargs)?;
            (Catalog(f), Some(sig))
        }
    })
}

/// Whether the function may be evaluated once per statement at plan time. None of these are:
/// they read session state that may change between Parse and Execute.
pub fn is_volatile(_f: SessionFn) -> bool {
    true
}

pub fn version_string() -> String {
    format!(
        "PostgreSQL {} (threadgres {}) on x86_64-pc-linux-gnu, compiled by rustc, 64-bit",
        crate::SERVER_VERSION,
        env!("CARGO_PKG_VERSION")
    )
}

fn text_arg(v: &Value) -> Option<&str> {
    v.as_str()
}

pub fn call(
    f: SessionFn,
    args: &[Value],
    arg_types: &[Type],
    s: &mut dyn SessionCtx,
) -> PgResult<Value> {
    use SessionFn::*;
    Ok(match f {
        Nextval | Currval | Setval | Lastval | GetSerialSequence | SeqLastValue | SeqLogCnt
        | SeqIsCalled => return crate::sql::sequence::call(f, args, s),
        Now => Value::TimestampTz(s.transaction_timestamp()),
        StatementTimestamp => Value::TimestampTz(s.statement_timestamp()),
        ClockTimestamp => Value::TimestampTz(datetime::now_timestamptz()),
        PostmasterStartTime => {
            let since = s
                .instance()
                .started_at
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_micros() as i64)
                .unwrap_or(0);
            Value::TimestampTz(since - 946_684_800_000_000)
        }
        LocalTimestamp | CurrentDate => {
            let ts = Value::TimestampTz(s.transaction_timestamp());
            let to = if f == CurrentDate {
                Type::DATE
            } else {
                Type::TIMESTAMP
            };
            crate::sql::types::cast::cast(ts, Type::TIMESTAMPTZ, to, -1, s.fmt())?
        }
        CurrentUser => Value::Text(s.user().to_string()),
        SessionUser => Value::Text(s.session_user().to_string()),
        CurrentDatabase => Value::Text(s.database().to_string()),
        CurrentSchema | CurrentSchemas => {
            // The schemas of search_path that exist (pg_catalog, public, information_schema);
            // "$user" names a schema only if one is called like the user, which none is.
            let path = s
                .get_setting("search_path", true)?
                .unwrap_or_else(|| "public".into());
            let created = s.search_path();
            let existing: Vec<String> = path
                .split(',')
                .map(|p| match p.trim() {
                    "$user" | "\"$user\"" => s.user().to_string(),
                    p => p.trim_matches('"').to_string(),
                })
                .filter(|p| {
                    matches!(p.as_str(), "pg_catalog" | "public" | "information_schema")
                        || created.contains(p)
                })
                .collect();
            if f == CurrentSchema {
                match existing.first() {
                    Some(first) => Value::Text(first.clone()),
                    None => Value::Null,
                }
            } else {
                let with_implicit = args.first().and_then(Value::as_bool).unwrap_or(false);
                let mut items = Vec::new();
                if with_implicit && !existing.iter().any(|e| e == "pg_catalog") {
                    items.push(Value::Text("pg_catalog".into()));
                }
                items.extend(existing.into_iter().map(Value::Text));
                Value::Array(Box::new(Array::one_dim(Type::NAME, items)))
            }
        }
        Version => Value::Text(version_string()),
        ClientEncoding => match s.get_setting("client_encoding", false)? {
            Some(v) => Value::Text(v),
            None => Value::Null,
        },
        BackendPid => Value::Int4(s.pid()),
        ReloadConf => {
            // PostgreSQL signals the postmaster and returns at once; here the rules are read
            // before the function returns.
            s.instance().hba.reload();
            Value::Bool(true)
        }
        PgNotify => {
            let channel = text_arg(&args[0]).unwrap_or("");
            let payload = text_arg(&args[1]).unwrap_or("");
            s.notify(channel, payload)?;
            Value::Void
        }
        ListeningChannels => unreachable!("set-returning; planned as a function scan"),
        NotificationQueueUsage => Value::Float8(s.instance().notify.usage()),
        Sleep => {
            if let Some(secs) = args.first().and_then(|v| match v {
                Value::Float8(f) => Some(*f),
                _ => None,
            }) {
                s.sleep(secs)?;
            }
            Value::Void
        }
        CurrentSetting => {
            let Some(name) = args.first().and_then(text_arg) else {
                return Ok(Value::Null);
            };
            let missing_ok = args.get(1).and_then(Value::as_bool).unwrap_or(false);
            match s.get_setting(name, missing_ok)? {
                Some(v) => Value::Text(v),
                None => Value::Null,
            }
        }
        SetConfig => {
            let Some(name) = args.first().and_then(text_arg) else {
                return Err(PgError::new(
                    code::NULL_VALUE_NOT_ALLOWED,
                    "SET requires parameter name",
                ));
            };
            let value = args.get(1).and_then(text_arg).unwrap_or("");
            let local = args.get(2).and_then(Value::as_bool).unwrap_or(false);
            Value::Text(s.set_setting(name, value, local)?)
        }
        CancelBackend | TerminateBackend => {
            let Some(pid) = args.first().and_then(Value::as_i64) else {
                return Ok(Value::Null);
            };
            // pg_terminate_backend(pid, timeout): waits up to timeout ms for the backend to
            // end. For the calling session itself that wait ends at once, in its own FATAL.
            let timeout = args.get(1).and_then(Value::as_i64).unwrap_or(0);
            if timeout < 0 {
                return Err(PgError::new(
                    code::NUMERIC_VALUE_OUT_OF_RANGE,
                    "\"timeout\" must not be negative",
                ));
            }
            let own = pid == i64::from(s.pid());
            if own && f == TerminateBackend && timeout > 0 {
                return Err(PgError::admin_shutdown());
            }
            let inst = s.instance();
            match inst.session(pid as i32) {
                Some(target) => {
                    if f == CancelBackend {
                        target
                            .cancel
                            .store(true, std::sync::atomic::Ordering::SeqCst);
                    } else {
                        target
                            .terminate
                            .store(true, std::sync::atomic::Ordering::SeqCst);
                    }
                    target.interrupt();
                    Value::Bool(true)
                }
                None => {
                    s.notice(PgError::warning(
                        code::WARNING,
                        format!("PID {pid} is not a PostgreSQL backend process"),
                    ));
                    Value::Bool(false)
                }
            }
        }
        AdvisoryUnlockAll => Value::Void,
        Concat | ConcatWs | Format => {
            let fmt = s.fmt().clone();
            let text = |i: usize| -> Option<String> {
                let v = &args[i];
                if v.is_null() {
                    None
                } else {
                    Some(io::to_text(v, arg_types[i], &fmt))
                }
            };
            match f {
                Concat => Value::Text((0..args.len()).filter_map(text).collect()),
                ConcatWs => {
                    let Some(sep) = text(0) else {
                        return Ok(Value::Null);
                    };
                    let parts: Vec<String> = (1..args.len()).filter_map(text).collect();
                    Value::Text(parts.join(&sep))
                }
                _ => {
                    let Some(pattern) = text(0) else {
                        return Ok(Value::Null);
                    };
                    format_fn(&pattern, args, arg_types, &fmt)?
                }
            }
        }
        TableIsVisible => super::catalog::table_is_visible(s, args),
        // Every type is a built-in in pg_catalog.
        TypeIsVisible => Value::Bool(true),
        HasPrivilege(p) => return super::privs::call(p, args, arg_types, s),
        FormatType => {
            let oid = match args.first() {
                Some(Value::Oid(o)) => Some(*o),
                Some(v) => v.as_i64().map(|o| o as u32),
                None => None,
            };
            // format_type(oid, NULL) names the type; with a typmod, as a column shows it.
            match (oid, args.get(1).and_then(Value::as_i64)) {
                (None, _) => Value::Null,
                (Some(o), None) => Value::Text(Type(o).name()),
                (Some(o), Some(m)) => Value::Text(
                    crate::sql::types::cast::format_type_with_typmod(Type(o), m as i32),
                ),
            }
        }
        GetUserById => match args.first() {
            Some(Value::Oid(o)) => Value::Text(crate::sql::ddl::role::name_by_oid(s, *o)),
            _ => Value::Null,
        },
        ObjDescription => {
            let oid = match args.first() {
                Some(Value::Oid(o)) => *o,
                _ => return Ok(Value::Null),
            };
            // obj_description(oid) matches any catalog; a catalog name that is none matches
            // nothing (PostgreSQL's subquery gives NULL).
            let class = match args.get(1) {
                None => None,
                Some(c) => match c.as_str().and_then(crate::sql::catalog::regclass_oid) {
                    Some(o) => Some(o),
                    None => return Ok(Value::Null),
                },
            };
            match crate::sql::ddl::comment::description(s, class, oid, 0)? {
                Some(d) => Value::Text(d),
                None => Value::Null,
            }
        }
        Catalog(c) => super::catalog::call(c, args, s)?,
        Ssl(f) => super::ssl::call(f, s)?,
        TxidCurrent => Value::Int8(s.current_xid("txid_current")? as i64),
        CurrentXactId => Value::Int8(s.current_xid("pg_current_xact_id")? as i64),
        InetClientAddr | InetServerAddr | InetClientPort | InetServerPort => {
            let a = if matches!(f, InetClientAddr | InetClientPort) {
                s.client_addr()
            } else {
                s.server_addr()
            };
            match (a, f) {
                (None, _) => Value::Null,
                (Some(a), InetClientAddr | InetServerAddr) => {
                    Value::Inet(crate::sql::types::network::Inet::from_ip(a.ip()))
                }
                (Some(a), _) => Value::Int4(a.port() as i32),
            }
        }
    })
}

/// format(): %s, %I, %L and %% with optional argument positions `%2$s`.
fn format_fn(
    pattern: &str,
    args: &[Value],
    types: &[Type],
    fmt: &crate::sql::types::FormatCtx,
) -> PgResult<Value> {
    let mut out = String::new();
    let mut chars = pattern.chars().peekable();
    let mut next_arg = 1usize;
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        let mut spec = String::new();
        while let Some(&d) = chars.peek() {
            if d.is_ascii_digit() || d == '$' || d == '-' {
                spec.push(d);
                chars.next();
            } else {
                break;
            }
        }
        let Some(kind) = chars.next() else {
            return Err(PgError::new(
                code::INVALID_PARAMETER_VALUE,
                "unterminated format() type specifier",
            )
            .with_hint("For a single \"%\" use \"%%\"."));
        };
        if kind == '%' {
            out.push('%');
            continue;
        }
        // %[position$][-][width]type
        let (position, rest) = match spec.find('$') {
            Some(i) => (
                Some(spec[..i].parse::<usize>().unwrap_or(0)),
                &spec[i + 1..],
            ),
            None => (None, spec.as_str()),
        };
        let left_align = rest.starts_with('-');
        let width: usize = rest.trim_start_matches('-').parse().unwrap_or(0);
        let idx = match position {
            Some(p) => p,
            None => {
                let i = next_arg;
                next_arg += 1;
                i
            }
        };
        if idx == 0 || idx >= args.len() {
            return Err(PgError::new(
                code::INVALID_PARAMETER_VALUE,
                "too few arguments for format()",
            ));
        }
        if position.is_some() {
            next_arg = idx + 1;
        }
        let start = out.len();
        let v = &args[idx];
        let text = if v.is_null() {
            None
        } else {
            Some(io::to_text(v, types[idx], fmt))
        };
        match kind {
            's' => out.push_str(text.as_deref().unwrap_or("")),
            'I' => {
                let Some(t) = text else {
                    return Err(PgError::new(
                        code::NULL_VALUE_NOT_ALLOWED,
                        "null values cannot be formatted as an SQL identifier",
                    ));
                };
                out.push_str(&quote_ident(&t));
            }
            'L' => match text {
                None => out.push_str("NULL"),
                Some(t) => out.push_str(&quote_literal(&t)),
            },
            other => {
                return Err(PgError::new(
                    code::INVALID_PARAMETER_VALUE,
                    format!("unrecognized format() type specifier \"{other}\""),
                )
                .with_hint("For a single \"%\" use \"%%\"."))
            }
        }
        // Pad to the width, in characters.
        let len = out[start..].chars().count();
        if len < width {
            let pad = " ".repeat(width - len);
            if left_align {
                out.push_str(&pad);
            } else {
                out.insert_str(start, &pad);
            }
        }
    }
    Ok(Value::Text(out))
}
