//! Authentication of a starting session: the host rules (`crate::hba`) pick the method for the
//! client's address, user and database, and the method runs: trust, reject, or a password
//! exchange (scram-sha-256; md5, which is the MD5 challenge when the stored password is an MD5
//! hash and SCRAM otherwise, as in PostgreSQL 15; password, the cleartext password). `hostssl`
//! and `hostnossl` lines match on whether this connection uses TLS, and a line's `clientcert`
//! option asks for the client's certificate (verify-ca) and its CN (verify-full). Texts and
//! SQLSTATEs are PostgreSQL's. Password attempts take turns per client address after repeated
//! failures (`hba::auth_limit`).
//!
//! Before authentication completes a client can send nothing but the password message: any
//! other message type is FATAL 08P01 `expected ... response, got message type N` as soon as its
//! type byte arrives, and a password message longer than PostgreSQL's limit for them
//! ([`MAX_AUTH_MESSAGE`]) is refused from its header, before its body is read.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::{Buf, BytesMut};

use super::auth::{self, ScramSecret, StoredPassword};
use super::socket::Conn;
use crate::error::{code, PgError};
use crate::hba::{self, Method};
use crate::instance::Instance;
use crate::wire::backend as be;
use crate::wire::frontend as fe;

/// PostgreSQL's PG_MAX_AUTH_TOKEN_LENGTH: the longest password or SASL message (bytes).
pub const MAX_AUTH_MESSAGE: usize = 65_535;
/// Bound on the interfaces read for `samehost` / `samenet`.
const MAX_INTERFACES: usize = 1024;

/// `Err(None)`: close the connection without a message (the client left, or PostgreSQL would
/// close silently); `Err(Some(e))`: send the FATAL and close.
pub(super) type AuthResult = Result<(), Option<PgError>>;

/// Authenticates `user` for `database`. What must reach the client with AuthenticationOk (the
/// SASL final message) is left in `out`.
pub(super) async fn authenticate(
    instance: &Arc<Instance>,
    stream: &mut Conn,
    rbuf: &mut BytesMut,
    out: &mut BytesMut,
    addr: SocketAddr,
    user: &str,
    database: &str,
) -> AuthResult {
    let ip = addr.ip().to_canonical();
    let rules = instance.hba.current();
    let interfaces = if rules.needs_interfaces() {
        interfaces()
    } else {
        Vec::new()
    };
    // `hostssl` / `hostnossl` match on the connection's own state, and the refusals say it
    // as PostgreSQL 15's do.
    let ssl = stream.is_ssl();
    let encryption = if ssl {
        "SSL encryption"
    } else {
        "no encryption"
    };
    // The client's facts live in this block only: they borrow a closure that is not `Sync`.
    let found = {
        let member_of = |u: &str, r: &str| auth::is_member(instance, u, r);
        let client = hba::Client {
            addr: Some(ip),
            ssl,
            user,
            database,
            member_of: &member_of,
            interfaces: &interfaces,
        };
        rules.find(&client).map(|rule| {
            tracing::debug!(
                "connection matched pg_hba.conf line {}: \"{}\"",
                rule.line,
                rule.text
            );
            (rule.method, ClientCert::of(rule))
        })
    };
    let Some((method, clientcert)) = found else {
        return Err(Some(PgError::fatal(
            code::INVALID_AUTHORIZATION_SPECIFICATION,
            format!("no pg_hba.conf entry for host \"{ip}\", user \"{user}\", database \"{database}\", {encryption}"),
        )));
    };
    if clientcert != ClientCert::Off {
        require_client_certificate(instance, stream)?;
    }
    if method == Method::Reject {
        return Err(Some(PgError::fatal(
            code::INVALID_AUTHORIZATION_SPECIFICATION,
            format!("pg_hba.conf rejects connection for host \"{ip}\", user \"{user}\", database \"{database}\", {encryption}"),
        )));
    }
    let r = run_method(instance, stream, rbuf, out, ip, method, user).await;
    if r.is_ok() && matches!(clientcert, ClientCert::VerifyFull { .. }) {
        if let Err(e) = certificate_names_user(stream, method, user, clientcert) {
            // What the method had for the client (SCRAM's final message) goes first, as in
            // PostgreSQL, where it is sent before the certificate is compared.
            send(stream, out).await?;
            return Err(Some(e));
        }
    }
    r
}

/// The `clientcert` option of a `hostssl` line.
#[derive(Clone, Copy, PartialEq, Eq)]
enum ClientCert {
    Off,
    VerifyCa,
    /// `dn`: `clientname=DN` (compare the whole subject, which is not done here).
    VerifyFull {
        dn: bool,
    },
}

impl ClientCert {
    fn of(rule: &hba::Rule) -> ClientCert {
        match rule
            .options
            .iter()
            .find_map(|o| o.strip_prefix("clientcert="))
        {
            Some("verify-full") => ClientCert::VerifyFull {
                dn: rule.options.iter().any(|o| o == "clientname=DN"),
            },
            Some(_) => ClientCert::VerifyCa,
            None => ClientCert::Off,
        }
    }
}

/// PostgreSQL's check before any method runs on a `clientcert` line: the server must have
/// authorities to verify with (ssl_ca_file), and the client must have presented a certificate
/// (rustls has verified any it presented: one that does not verify fails the handshake).
fn require_client_certificate(instance: &Instance, stream: &Conn) -> AuthResult {
    if instance.config.ssl_ca_file.is_none() || instance.config.tls.is_none() {
        return Err(Some(PgError::fatal(
            code::CONFIG_FILE_ERROR,
            "client certificates can only be checked if a root certificate store is available",
        )));
    }
    if stream.ssl_info().and_then(|i| i.client).is_none() {
        return Err(Some(PgError::fatal(
            code::INVALID_AUTHORIZATION_SPECIFICATION,
            "connection requires a valid client certificate",
        )));
    }
    Ok(())
}

/// `clientcert=verify-full`: the certificate's common name must be the user name
/// (PostgreSQL's CheckCertAuth without a user map). A line with `clientname=DN` is refused: the
/// DN in PostgreSQL's RFC 2253 form is not computed here, and refusing is the safe side. The
/// failure is the method's (PostgreSQL's auth_failed).
fn certificate_names_user(
    stream: &Conn,
    method: Method,
    user: &str,
    clientcert: ClientCert,
) -> Result<(), PgError> {
    let cn = stream
        .ssl_info()
        .and_then(|i| i.client)
        .and_then(|c| c.common_name);
    match cn.as_deref() {
        _ if clientcert == (ClientCert::VerifyFull { dn: true }) => tracing::info!(
            "certificate validation (clientcert=verify-full) failed for user \"{user}\": DN mismatch (clientname=DN is not supported)"
        ),
        Some(cn) if cn == user => return Ok(()),
        None | Some("") => tracing::info!(
            "certificate authentication failed for user \"{user}\": client certificate contains no user name"
        ),
        Some(_) => tracing::info!(
            "certificate validation (clientcert=verify-full) failed for user \"{user}\": CN mismatch"
        ),
    }
    Err(match method {
        Method::Md5 | Method::Password | Method::ScramSha256 => auth::auth_failed(user),
        Method::Trust => PgError::fatal(
            code::INVALID_AUTHORIZATION_SPECIFICATION,
            format!("\"trust\" authentication failed for user \"{user}\""),
        ),
        _ => PgError::fatal(
            code::INVALID_AUTHORIZATION_SPECIFICATION,
            format!("authentication failed for user \"{user}\": invalid authentication method"),
        ),
    })
}

/// Runs the line's method.
async fn run_method(
    instance: &Arc<Instance>,
    stream: &mut Conn,
    rbuf: &mut BytesMut,
    out: &mut BytesMut,
    ip: IpAddr,
    method: Method,
    user: &str,
) -> AuthResult {
    match method {
        Method::Trust => Ok(()),
        m @ (Method::Md5 | Method::Password | Method::ScramSha256) => {
            let wait = instance.auth_limit.turn(ip, Instant::now());
            if !wait.is_zero() {
                if wait >= Duration::from_secs(instance.config.authentication_timeout_s) {
                    tracing::warn!(%ip, "too many authentication failures: connection closed");
                    return Err(None);
                }
                tracing::info!(%ip, ?wait, "authentication failures: attempt delayed");
                tokio::time::sleep(wait).await;
            }
            let r = password(instance, stream, rbuf, out, m, user).await;
            if let Err(Some(e)) = &r {
                if e.code == code::INVALID_PASSWORD {
                    instance.auth_limit.failed(ip, Instant::now());
                }
            }
            r
        }
        // Reject is answered before; lines with other methods are `local` lines, which a TCP
        // client never matches.
        _ => Err(Some(PgError::fatal(
            code::INVALID_AUTHORIZATION_SPECIFICATION,
            format!("authentication failed for user \"{user}\": invalid authentication method"),
        ))),
    }
}

async fn send(stream: &mut Conn, out: &mut BytesMut) -> AuthResult {
    let r = stream.write_all(out).await;
    out.clear();
    r.map_err(|_| None)
}

/// The password methods (PostgreSQL's CheckPasswordAuth and CheckPWChallengeAuth).
async fn password(
    instance: &Arc<Instance>,
    stream: &mut Conn,
    rbuf: &mut BytesMut,
    out: &mut BytesMut,
    method: Method,
    user: &str,
) -> AuthResult {
    let stored = auth::stored_password(instance, user);
    let failed = || Err(Some(auth::auth_failed(user)));
    match (method, stored) {
        (Method::Password, stored) => {
            be::auth_cleartext(out);
            send(stream, out).await?;
            let pw = read_password_text(stream, rbuf).await?;
            match stored {
                Some(s) if auth::verify_plain(&s, user, &pw) => Ok(()),
                _ => failed(),
            }
        }
        (Method::Md5, Some(StoredPassword::Md5(hash))) => {
            let salt: [u8; 4] = rand::random();
            be::auth_md5(out, salt);
            send(stream, out).await?;
            let answer = read_password_text(stream, rbuf).await?;
            if auth::md5_verify(&hash, salt, &answer) {
                Ok(())
            } else {
                failed()
            }
        }
        (_, stored) => {
            // scram-sha-256, and md5 without an MD5 hash stored; a user without a SCRAM
            // secret goes through the exchange with a mock one and fails at its end.
            let secret = match stored {
                Some(StoredPassword::Scram(s)) => s,
                _ => ScramSecret::mock(user),
            };
            scram(stream, rbuf, out, &secret, user).await
        }
    }
}

async fn scram(
    stream: &mut Conn,
    rbuf: &mut BytesMut,
    out: &mut BytesMut,
    secret: &ScramSecret,
    user: &str,
) -> AuthResult {
    be::auth_sasl(out, &["SCRAM-SHA-256"]);
    send(stream, out).await?;
    let first = read_auth_message(stream, rbuf, "SASL").await?;
    let (ex, server_first) = auth::server_first(secret, &first).map_err(Some)?;
    be::auth_sasl_continue(out, server_first.as_bytes());
    send(stream, out).await?;
    let fin = read_auth_message(stream, rbuf, "SASL").await?;
    let server_final = auth::server_final(secret, &ex, &fin, user).map_err(Some)?;
    be::auth_sasl_final(out, server_final.as_bytes());
    Ok(())
}

/// Reads the body of the next message, which must be a password message ('p'): any other type
/// fails at its first byte, a length over [`MAX_AUTH_MESSAGE`] at its header.
async fn read_auth_message(
    stream: &mut Conn,
    rbuf: &mut BytesMut,
    expected: &str,
) -> Result<Vec<u8>, Option<PgError>> {
    loop {
        if let Some(&ty) = rbuf.first() {
            if ty != b'p' {
                return Err(Some(PgError::protocol_violation(format!(
                    "expected {expected} response, got message type {ty}"
                ))));
            }
        }
        if let Some(n) = fe::frame(rbuf, MAX_AUTH_MESSAGE).map_err(Some)? {
            let body = rbuf[5..n].to_vec();
            rbuf.advance(n);
            return Ok(body);
        }
        rbuf.reserve(1024);
        match stream.read_buf(rbuf).await {
            Ok(0) | Err(_) => return Err(None),
            Ok(_) => {}
        }
    }
}

/// A password message holding one string (cleartext password, MD5 answer), checked as
/// PostgreSQL's recv_password_packet checks it.
async fn read_password_text(
    stream: &mut Conn,
    rbuf: &mut BytesMut,
) -> Result<String, Option<PgError>> {
    let body = read_auth_message(stream, rbuf, "password").await?;
    let text_len = body.iter().position(|b| *b == 0).unwrap_or(body.len());
    if text_len + 1 != body.len() {
        return Err(Some(PgError::protocol_violation(
            "invalid password packet size",
        )));
    }
    if text_len == 0 {
        return Err(Some(PgError::fatal(
            code::INVALID_PASSWORD,
            "empty password returned by client",
        )));
    }
    Ok(String::from_utf8_lossy(&body[..text_len]).into_owned())
}

/// The server's interface addresses and netmasks (getifaddrs), for `samehost` / `samenet`.
fn interfaces() -> Vec<(IpAddr, IpAddr)> {
    let mut out = Vec::new();
    let mut head: *mut libc::ifaddrs = std::ptr::null_mut();
    // SAFETY: getifaddrs fills `head` with a list that stays valid until freeifaddrs; each
    // sockaddr is read according to its family.
    unsafe {
        if libc::getifaddrs(&mut head) != 0 {
            return out;
        }
        let mut p = head;
        while !p.is_null() && out.len() < MAX_INTERFACES {
            let ifa = &*p;
            if let (Some(a), Some(m)) = (sockaddr_ip(ifa.ifa_addr), sockaddr_ip(ifa.ifa_netmask)) {
                out.push((a, m));
            }
            p = ifa.ifa_next;
        }
        libc::freeifaddrs(head);
    }
    out
}

/// SAFETY: `sa` is null or points to a sockaddr of the family it names.
unsafe fn sockaddr_ip(sa: *const libc::sockaddr) -> Option<IpAddr> {
    if sa.is_null() {
        return None;
    }
    match (*sa).sa_family as i32 {
        libc::AF_INET => {
            let sin = &*(sa as *const libc::sockaddr_in);
            Some(IpAddr::V4(Ipv4Addr::from(u32::from_be(
                sin.sin_addr.s_addr,
            ))))
        }
        libc::AF_INET6 => {
            let sin6 = &*(sa as *const libc::sockaddr_in6);
            Some(IpAddr::V6(Ipv6Addr::from(sin6.sin6_addr.s6_addr)))
        }
        _ => None,
    }
}
