//! Functions whose result depends on the session or the instance: now(), current_user,
//! pg_backend_pid(), pg_notify(), set_config(), pg_sleep(), ... They are evaluated through
//! [`SessionCtx`], so the executor stays independent of the session's implementation.

pub mod catalog;
pub mod comments;
pub mod control;
pub mod privs;
pub mod ssl;

use crate::error::{code, PgError, PgResult};
use crate::sql::context::SessionCtx;
use crate::sql::func::session_fn::{AdvisoryFn, AdvisoryOp};
use crate::sql::func::SessionFn;
use crate::sql::quote::{quote_ident, quote_literal};
use crate::sql::types::{datetime, io, lsn, Array, Type, Value};
use crate::txn::advisory::{AdvisoryAcquired, AdvisoryKey, AdvisoryMode};

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

/// The lock an advisory lock function's arguments name, in the session's database (None when
/// one is NULL: the functions are strict).
pub fn advisory_key(args: &[Value], s: &dyn SessionCtx) -> Option<AdvisoryKey> {
    let db = s.instance().database_oid(s.database()).unwrap_or(0);
    match args {
        [k] => Some(AdvisoryKey::one(db, k.as_i64()?)),
        [a, b] => Some(AdvisoryKey::two(db, a.as_i64()? as i32, b.as_i64()? as i32)),
        _ => None,
    }
}

/// The mode an advisory lock function takes or releases.
pub fn advisory_mode(f: AdvisoryFn) -> AdvisoryMode {
    if f.shared {
        AdvisoryMode::Share
    } else {
        AdvisoryMode::Exclusive
    }
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
            Value::TimestampTz(since - datetime::UNIX_TO_PG_SECS * datetime::USECS_PER_SEC)
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
        AdvisoryUnlockAll => {
            s.advisory_unlock_all();
            Value::Void
        }
        Advisory(a) => {
            let Some(key) = advisory_key(args, s) else {
                return Ok(Value::Null); // strict
            };
            let mode = advisory_mode(a);
            match a.op {
                AdvisoryOp::Lock => {
                    s.advisory_lock(key, mode, a.xact)?;
                    Value::Void
                }
                AdvisoryOp::TryLock => Value::Bool(matches!(
                    s.advisory_acquire(key, mode, a.xact, false)?,
                    AdvisoryAcquired::Granted
                )),
                AdvisoryOp::Unlock => Value::Bool(s.advisory_unlock(key, mode)),
            }
        }
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
        TableIsVisible => catalog::table_is_visible(s, args),
        TypeIsVisible => catalog::type_is_visible(s, args),
        HasPrivilege(p) => return privs::call(p, args, arg_types, s),
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
            Some(Value::Oid(o)) => Value::Text(crate::sql::privs::name_by_oid(s, *o)),
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
            match crate::sql::func::system::comments::description(s, class, oid, 0)? {
                Some(d) => Value::Text(d),
                None => Value::Null,
            }
        }
        Catalog(c) => catalog::call(c, args, s)?,
        Ssl(f) => ssl::call(f, s)?,
        TxidCurrent => Value::Int8(s.current_xid("txid_current")? as i64),
        WalLsn(pos) => {
            use crate::sql::func::session_fn::WalPos;
            let b = instance_wal(s)?.buffer();
            let at = match pos {
                WalPos::Insert => b.insert_lsn(),
                WalPos::Write => b.write_lsn(),
                WalPos::Flush => b.flush_lsn(),
            };
            lsn::value(at.0)
        }
        WalLsnDiff => match (lsn::of(&args[0]), lsn::of(&args[1])) {
            (Some(a), Some(b)) => lsn::diff(a, b),
            _ => Value::Null,
        },
        WalFileName => match lsn::of(&args[0]) {
            // The segment holding the byte before the position, as PostgreSQL names it (a
            // position at a segment's start names the segment that ends there).
            Some(at) => {
                let seg = instance_wal(s)?.options().wal_segment_size;
                Value::Text(crate::wal::file_name(at.saturating_sub(1) / seg, seg))
            }
            None => Value::Null,
        },
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

/// The instance's write-ahead log, or the error for a server without a data directory.
fn instance_wal(s: &dyn SessionCtx) -> PgResult<&std::sync::Arc<crate::wal::Wal>> {
    s.instance().txns.wal().ok_or_else(|| {
        PgError::new(
            code::OBJECT_NOT_IN_PREREQUISITE_STATE,
            "WAL is not available: the server runs without a data directory",
        )
    })
}
