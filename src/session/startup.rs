//! Start-up: from accept to the first ReadyForQuery. SSLRequest is answered `S` and the TLS
//! handshake follows when TLS is configured (`socket.rs`, `crate::tls`), else `N`;
//! GSSENCRequest is answered `N`; CancelRequest goes to the instance; the StartupMessage's
//! parameters become the session's settings (`options=-c ...` too), the client authenticates
//! as the host rules say (`authenticate.rs`), and the session registers with the instance and
//! reports its settings and key. authentication_timeout bounds all of it (`conn::serve`).

use std::borrow::Cow;
use std::net::SocketAddr;
use std::sync::Arc;

use bytes::BytesMut;
use rustc_hash::FxHashMap;

use super::conn::CLIENT_READ;
use super::settings::Settings;
use super::socket::Conn;
use super::txn::TxState;
use super::{hash_str, now_ts, portals, read_ahead, Core, Session};
use crate::error::{code, PgError, PgResult, Severity};
use crate::instance::{Activity, Instance};
use crate::runtime::client_affinity::Follow;
use crate::sql::TxOptions;
use crate::wire::backend::{self as be, TxStatus};
use crate::wire::frontend::{self as fe, Startup};

/// Reads start-up packets until a StartupMessage. An SSLRequest is answered `S` and followed
/// by the TLS handshake when TLS is configured, else `N`; GSSENCRequest is answered `N`. As in
/// PostgreSQL's ProcessStartupPacket, a second SSLRequest (or a GSSENCRequest after TLS) is an
/// unsupported protocol version, and bytes that came along with a negotiation request, before
/// the answer, end the connection: they were not encrypted, and may have been injected by a
/// man in the middle.
pub(super) async fn read_startup(
    instance: &Instance,
    stream: &mut Conn,
    rbuf: &mut BytesMut,
) -> Option<(Vec<(String, String)>, u16)> {
    let (mut ssl_done, mut gss_done) = (false, false);
    loop {
        let n = loop {
            match fe::startup_frame(rbuf, instance.config.max_message_size) {
                Ok(Some(n)) => break n,
                Ok(None) => {}
                Err(e) => {
                    fail_startup(stream, e).await;
                    return None;
                }
            }
            rbuf.reserve(1024);
            match stream.read_buf(rbuf).await {
                Ok(0) | Err(_) => return None,
                Ok(_) => {}
            }
        };
        let packet = rbuf.split_to(n).freeze();
        match fe::decode_startup(packet) {
            Ok(Startup::Ssl) if !ssl_done => {
                let tls = instance.config.tls.as_ref();
                let answer: &[u8] = if tls.is_some() { b"S" } else { b"N" };
                if stream.write_all(answer).await.is_err() {
                    return None;
                }
                if let Some(tls) = tls {
                    // Bytes already read are not part of the handshake (PostgreSQL's OpenSSL
                    // reads the socket too): they are reported below, over TLS.
                    if let Err(e) = stream.start_tls(tls.config.clone()).await {
                        tracing::info!("could not accept SSL connection: {e}");
                        return None;
                    }
                }
                if !rbuf.is_empty() {
                    let e = unencrypted_data("SSL request");
                    fail_startup(stream, e).await;
                    return None;
                }
                ssl_done = true;
                gss_done = tls.is_some();
            }
            Ok(Startup::GssEnc) if !gss_done => {
                if stream.write_all(b"N").await.is_err() {
                    return None;
                }
                if !rbuf.is_empty() {
                    let e = unencrypted_data("GSSAPI encryption request");
                    fail_startup(stream, e).await;
                    return None;
                }
                ssl_done = false;
                gss_done = true;
            }
            Ok(request @ (Startup::Ssl | Startup::GssEnc)) => {
                // Not another negotiation: the request code read as a protocol version.
                let code = if request == Startup::Ssl {
                    crate::wire::SSL_REQUEST_CODE
                } else {
                    crate::wire::GSSENC_REQUEST_CODE
                };
                let e = PgError::fatal(
                    code::FEATURE_NOT_SUPPORTED,
                    format!(
                        "unsupported frontend protocol {}.{}: server supports 3.0 to 3.0",
                        code >> 16,
                        code & 0xffff
                    ),
                );
                fail_startup(stream, e).await;
                return None;
            }
            Ok(Startup::Cancel { pid, key }) => {
                instance.cancel(pid, key);
                return None;
            }
            Ok(Startup::Startup { params, minor }) => return Some((params, minor)),
            Err(e) => {
                fail_startup(stream, e).await;
                return None;
            }
        }
    }
}

/// PostgreSQL's FATAL for bytes that arrived with a negotiation request.
fn unencrypted_data(what: &str) -> PgError {
    PgError::fatal(
        code::PROTOCOL_VIOLATION,
        format!("received unencrypted data after {what}"),
    )
    .with_detail(
        "This could be either a client-software bug or evidence of an attempted \
         man-in-the-middle attack.",
    )
}

/// A FATAL after authentication: what is pending in `out` (SASL final), AuthenticationOk, then
/// the error.
async fn fail_after_auth(stream: &mut Conn, mut out: BytesMut, e: PgError) -> Option<Session> {
    be::auth_ok(&mut out);
    be::error_or_notice(&mut out, &e);
    let _ = stream.write_all(&out).await;
    None
}

async fn fail_startup(stream: &mut Conn, e: PgError) -> Option<Session> {
    let mut out = BytesMut::new();
    be::error_or_notice(&mut out, &e);
    let _ = stream.write_all(&out).await;
    None
}

impl Session {
    pub(super) async fn start(
        instance: &Arc<Instance>,
        stream: &mut Conn,
        rbuf: &mut BytesMut,
        (params, minor): (Vec<(String, String)>, u16),
        addr: SocketAddr,
    ) -> Option<Session> {
        let mut user = None;
        let mut database = None;
        let mut settings = Settings::new();
        let mut application_name = String::new();
        let mut out = BytesMut::new();
        let mut deferred: Option<PgError> = None;
        let unrecognized: Vec<String> = params
            .iter()
            .filter(|(n, _)| n.starts_with("_pq_."))
            .map(|(n, _)| n.clone())
            .collect();
        if minor > 0 || !unrecognized.is_empty() {
            be::negotiate_protocol_version(&mut out, crate::wire::PROTOCOL_V3, &unrecognized);
        }
        for (name, value) in params.iter().filter(|(n, _)| !n.starts_with("_pq_.")) {
            let lname = name.to_ascii_lowercase();
            let r = match lname.as_str() {
                "user" => {
                    user = Some(value.clone());
                    Ok(())
                }
                "database" => {
                    database = Some(value.clone());
                    Ok(())
                }
                "replication" => Err(PgError::fatal(
                    code::FEATURE_NOT_SUPPORTED,
                    "replication connections are not supported",
                )),
                "options" => apply_options(&mut settings, value),
                "application_name" => {
                    application_name = value.clone();
                    settings.set_startup(name, value)
                }
                _ => settings.set_startup(name, value),
            };
            if let Err(mut e) = r {
                e.severity = Severity::Fatal;
                if lname == "replication" {
                    return fail_startup(stream, e).await;
                }
                // PostgreSQL applies the start-up parameters after authentication: a client
                // that cannot authenticate learns nothing from them. The first error wins.
                deferred.get_or_insert(e);
            }
        }
        let Some(user) = user.filter(|u| !u.is_empty()) else {
            return fail_startup(
                stream,
                PgError::fatal(
                    code::INVALID_AUTHORIZATION_SPECIFICATION,
                    "no PostgreSQL user name specified in startup packet",
                ),
            )
            .await;
        };
        let database = database
            .filter(|d| !d.is_empty())
            .unwrap_or_else(|| user.clone());

        // Authentication: the host rules decide how (`authenticate.rs`); the role's stored
        // verifier is the secret (a role that does not exist, has no verifier or whose VALID
        // UNTIL has passed goes through the exchange and fails it, as in PostgreSQL).
        match super::authenticate::authenticate(
            instance, stream, rbuf, &mut out, addr, &user, &database,
        )
        .await
        {
            Ok(()) => {}
            Err(None) => return None,
            Err(Some(e)) => return fail_startup(stream, e).await,
        }
        let login = instance.login_role(&user);
        // Authenticated: from here on the client may learn whether its role may log in, whether
        // the database exists (in that order, as PostgreSQL's InitPostgres checks them) and
        // what was wrong with its parameters, each after AuthenticationOk.
        let login = match super::identity::check_login(instance, &user, login) {
            Ok(l) => l,
            Err(e) => return fail_after_auth(stream, out, e).await,
        };
        super::identity::apply_role_settings(&mut settings, &login, &params);
        let Some(db_oid) = instance.database_oid(&database) else {
            let e = PgError::fatal(
                code::INVALID_CATALOG_NAME,
                format!("database \"{database}\" does not exist"),
            );
            return fail_after_auth(stream, out, e).await;
        };
        if let Err(e) = super::privs::check_connect(instance, &login, &database) {
            return fail_after_auth(stream, out, e).await;
        }
        if let Some(e) = deferred {
            return fail_after_auth(stream, out, e).await;
        }
        let shared = instance.register_session(Activity {
            datname: database.clone(),
            usename: user.clone(),
            application_name,
            client_addr: Some(addr),
            backend_start: now_ts(),
            state: "idle",
            wait_event_type: Some(CLIENT_READ.0),
            wait_event: Some(CLIENT_READ.1),
            query: Arc::from(""),
            ssl: stream.ssl_info(),
            ..Default::default()
        });
        let core = Core {
            instance: instance.clone(),
            shared,
            user,
            login_oid: login.oid,
            login_superuser: login.superuser,
            database,
            db_oid,
            startup_settings: settings.clone(),
            settings,
            session_tx: TxOptions::default(),
            tx: TxState::Idle,
            txn: None,
            spare_txn: None,
            committing: None,
            listening: Default::default(),
            listen_changed_at: 0,
            woke_others: 0,
            woke_with_long_delivery: false,
            listener: None,
            notices: Vec::new(),
            statement_start: 0,
            deadline: None,
            settings_dirty: false,
            wait_shown: Some(CLIENT_READ),
            peer: addr,
            local: stream.tcp().local_addr().ok(),
            snap_slot: instance.txns.register(),
            last_affected: None,
            tables_used: std::cell::Cell::new(false),
            plan_locks: Default::default(),
            plan_perms: Default::default(),
            portal_snap: None,
            transitions: Vec::new(),
            sequences: Default::default(),
            temp: Default::default(),
            client_fd: std::os::fd::AsRawFd::as_raw_fd(stream.tcp()),
            client_checked: std::cell::Cell::new(std::time::Instant::now()),
            advisory: Default::default(),
            pl_cache: Default::default(),
            pl_loops: Vec::new(),
            pl_nonatomic: false,
            multi_statement: false,
        };
        let mut s = Session {
            core,
            unnamed: None,
            prepared: FxHashMap::default(),
            portals: portals::Portals::default(),
            skip_until_sync: false,
            reported: [0; 16],
            out,
            closing: false,
            described: false,
            checks_before_complete: false,
            utility_formats: Cow::Borrowed(&[]),
            notify_held: false,
            backlog: Vec::new(),
            backlog_at: (0, 0),
            spin_after_write: false,
            answered_epoch: u32::MAX,
            weight_epoch: u32::MAX,
            follow: Follow::new(),
            read_ahead: read_ahead::ReadAhead::default(),
            copy_in: None,
            running: None,
            after_commit: None,
            ready_after_commit: false,
        };
        be::auth_ok(&mut s.out);
        let fixed = s.core.fixed();
        for (i, (name, value)) in s.core.settings.reported(&fixed).into_iter().enumerate() {
            be::parameter_status_in(&mut s.out, name, &value, s.core.settings.client);
            s.reported[i] = hash_str(&value);
        }
        be::backend_key_data(&mut s.out, s.core.shared.pid, s.core.shared.secret);
        be::ready_for_query(&mut s.out, TxStatus::Idle);
        // The caller writes `s.out`: outside authentication_timeout, so that a timeout cannot
        // drop a registered session without ending it.
        Some(s)
    }
}

/// `options=-c a=b -c c=d` (also `--a=b`) from the start-up packet.
fn apply_options(settings: &mut Settings, options: &str) -> PgResult<()> {
    let mut words = options.split_whitespace();
    while let Some(w) = words.next() {
        let assignment = if w == "-c" {
            words.next().unwrap_or("").to_string()
        } else if let Some(rest) = w.strip_prefix("-c") {
            rest.to_string()
        } else if let Some(rest) = w.strip_prefix("--") {
            rest.to_string()
        } else {
            return Err(PgError::fatal(
                code::SYNTAX_ERROR,
                format!("invalid command-line argument for server process: {w}"),
            )
            .with_hint("Try \"postgres --help\" for more information."));
        };
        let Some((name, value)) = assignment.split_once('=') else {
            return Err(PgError::fatal(
                code::SYNTAX_ERROR,
                format!("-c {assignment} requires a value"),
            ));
        };
        settings.set_startup(&name.replace('-', "_"), value)?;
    }
    Ok(())
}
