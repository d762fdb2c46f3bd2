//! TLS end to end in-process: a server with the self-signed certificate of a fresh data
//! directory, and a rustls client that trusts exactly that certificate (so the certificate's
//! names and the handshake are checked together). The Python suite (tests/py/test_tls.py)
//! covers real clients and the comparisons with PostgreSQL.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::Arc;
use std::time::Duration;

use crate::common;

use common::{message, startup_packet};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName};
use threadgres::config::Config;
use threadgres::runtime::server::Server;

type Tls = rustls::StreamOwned<rustls::ClientConnection, TcpStream>;

struct TestServer {
    port: u16,
    cert: std::path::PathBuf,
    _rt: tokio::runtime::Runtime,
}

fn start(name: &str) -> TestServer {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let dir = std::env::temp_dir().join(format!(
        "threadgres-tls-it-{name}-{}-{}",
        std::process::id(),
        rand::random::<u32>()
    ));
    let mut c = Config {
        port: 0,
        data_dir: dir,
        ..Config::default()
    };
    c.create_data_dir().unwrap();
    c.tls = threadgres::tls::load(&c).unwrap();
    let cert = c.tls.as_ref().unwrap().cert_file.clone();
    let server = rt.block_on(Server::bind(c)).unwrap();
    let port = server.local_addrs()[0].port();
    rt.spawn(server.run(std::future::pending()));
    TestServer {
        port,
        cert,
        _rt: rt,
    }
}

/// SSLRequest, 'S', and a handshake that verifies the server as `host`.
fn tls_connect(srv: &TestServer, host: &str) -> std::io::Result<Tls> {
    let mut tcp = TcpStream::connect(("127.0.0.1", srv.port))?;
    tcp.set_read_timeout(Some(Duration::from_secs(10)))?;
    let mut req = 8i32.to_be_bytes().to_vec();
    req.extend_from_slice(&80877103i32.to_be_bytes());
    tcp.write_all(&req)?;
    let mut answer = [0u8; 1];
    tcp.read_exact(&mut answer)?;
    assert_eq!(&answer, b"S");
    let mut roots = rustls::RootCertStore::empty();
    for c in CertificateDer::pem_file_iter(&srv.cert).unwrap() {
        roots.add(c.unwrap()).unwrap();
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(roots)
        .with_no_client_auth();
    let name = ServerName::try_from(host.to_string()).unwrap();
    let conn = rustls::ClientConnection::new(Arc::new(config), name).unwrap();
    let mut tls = rustls::StreamOwned::new(conn, tcp);
    // Drive the handshake to its end (errors surface here).
    while tls.conn.is_handshaking() {
        tls.conn.complete_io(&mut tls.sock)?;
    }
    Ok(tls)
}

fn read_msg(s: &mut Tls) -> Option<(u8, Vec<u8>)> {
    let mut head = [0u8; 5];
    s.read_exact(&mut head).ok()?;
    let len = i32::from_be_bytes([head[1], head[2], head[3], head[4]]) as usize;
    let mut body = vec![0u8; len - 4];
    s.read_exact(&mut body).ok()?;
    Some((head[0], body))
}

fn until_ready(s: &mut Tls) -> Vec<(u8, Vec<u8>)> {
    let mut out = Vec::new();
    while let Some(m) = read_msg(s) {
        let done = m.0 == b'Z';
        out.push(m);
        if done {
            break;
        }
    }
    out
}

fn query(s: &mut Tls, sql: &str) -> Vec<(u8, Vec<u8>)> {
    let mut body = sql.as_bytes().to_vec();
    body.push(0);
    s.write_all(&message(b'Q', &body)).unwrap();
    until_ready(s)
}

/// The first column of each DataRow, as text.
fn first_values(msgs: &[(u8, Vec<u8>)]) -> Vec<String> {
    msgs.iter()
        .filter(|(t, _)| *t == b'D')
        .map(|(_, b)| {
            let len = i32::from_be_bytes([b[2], b[3], b[4], b[5]]) as usize;
            String::from_utf8_lossy(&b[6..6 + len]).into_owned()
        })
        .collect()
}

#[test]
fn a_session_runs_inside_tls_with_the_self_signed_certificate() {
    let srv = start("session");
    for host in ["localhost", "127.0.0.1"] {
        let mut s = tls_connect(&srv, host).unwrap();
        s.write_all(&startup_packet(&[
            ("user", "postgres"),
            ("database", "postgres"),
        ]))
        .unwrap();
        let msgs = until_ready(&mut s);
        assert!(msgs.iter().any(|(t, _)| *t == b'R'), "{msgs:?}");
        let got = query(
            &mut s,
            "SELECT ssl_is_used()::text || ' ' || ssl_version() || ' ' || \
             (SELECT bits FROM pg_stat_ssl WHERE pid = pg_backend_pid())",
        );
        assert_eq!(first_values(&got), vec!["true TLSv1.3 256".to_string()]);
        // An answer far larger than rustls's send buffer.
        let got = query(&mut s, "SELECT repeat('x', 3000000)");
        assert_eq!(first_values(&got)[0].len(), 3_000_000);
        // And a query text larger than one TLS record.
        let long = format!("SELECT length('{}')", "y".repeat(100_000));
        assert_eq!(
            first_values(&query(&mut s, &long)),
            vec!["100000".to_string()]
        );
        s.write_all(&message(b'X', &[])).unwrap();
    }
}

#[test]
fn a_name_the_certificate_does_not_carry_fails_verification() {
    let srv = start("names");
    let err = match tls_connect(&srv, "db.example.com") {
        Ok(_) => panic!("handshake succeeded"),
        Err(e) => e,
    };
    assert!(err.to_string().contains("not valid for name"), "{err}");
}
