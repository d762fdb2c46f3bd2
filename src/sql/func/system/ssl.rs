//! What a session can learn about TLS connections: the `pg_stat_ssl` view and the functions of
//! PostgreSQL's `sslinfo` extension.
//!
//! In PostgreSQL the functions exist only after `CREATE EXTENSION sslinfo`; threadgres has no
//! extensions yet, so they always exist (a script that creates the extension first fails at
//! that statement today). Client certificates are asked for only with ssl_ca_file; without
//! one, the functions about it answer false or NULL, as PostgreSQL's do.

use crate::error::PgResult;
use crate::instance::Instance;
use crate::sql::context::SessionCtx;
use crate::sql::func::session_fn::SslFn;
use crate::sql::types::Value;
use crate::tls::SslInfo;

/// The session's own TLS parameters, from its pg_stat_activity row.
fn own(s: &dyn SessionCtx) -> Option<SslInfo> {
    let shared = s.instance().session(s.pid())?;
    let ssl = shared.activity.lock().ssl.clone();
    ssl
}

pub fn call(f: SslFn, s: &mut dyn SessionCtx) -> PgResult<Value> {
    let info = own(s);
    let client = info.as_ref().and_then(|i| i.client.as_ref());
    Ok(match (f, &info) {
        (SslFn::IsUsed, i) => Value::Bool(i.is_some()),
        (SslFn::ClientCertPresent, _) => Value::Bool(client.is_some()),
        (SslFn::Version, Some(i)) => Value::Text(i.version.to_string()),
        (SslFn::Cipher, Some(i)) => Value::Text(i.cipher.to_string()),
        (SslFn::ClientSerial, _) => client.map_or(Ok(Value::Null), serial)?,
        (SslFn::ClientDn, _) => client.map_or(Value::Null, |c| Value::Text(c.subject.clone())),
        (SslFn::IssuerDn, _) => client.map_or(Value::Null, |c| Value::Text(c.issuer.clone())),
        _ => Value::Null,
    })
}

fn serial(c: &crate::tls::ClientCert) -> PgResult<Value> {
    Ok(Value::Numeric(Box::new(
        crate::sql::types::numeric::Numeric::parse(&c.serial)?,
    )))
}

/// pg_stat_ssl: one row per session, as PostgreSQL 15's view (pid, ssl, version, cipher,
/// bits, client_dn, client_serial, issuer_dn).
pub fn stat_ssl_rows(inst: &Instance) -> Vec<Vec<Value>> {
    inst.activity_snapshot()
        .into_iter()
        .map(|(pid, a)| {
            let mut row = vec![Value::Int4(pid), Value::Bool(a.ssl.is_some())];
            match &a.ssl {
                Some(i) => row.extend([
                    Value::Text(i.version.to_string()),
                    Value::Text(i.cipher.to_string()),
                    Value::Int4(i.bits),
                ]),
                None => row.extend([Value::Null, Value::Null, Value::Null]),
            }
            // client_dn, client_serial, issuer_dn: NULL without a client certificate.
            match a.ssl.as_ref().and_then(|i| i.client.as_ref()) {
                Some(c) => row.extend([
                    Value::Text(c.subject.clone()),
                    serial(c).unwrap_or(Value::Null),
                    Value::Text(c.issuer.clone()),
                ]),
                None => row.extend([Value::Null, Value::Null, Value::Null]),
            }
            row
        })
        .collect()
}
