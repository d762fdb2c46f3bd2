//! TLS set-up: the server's certificate and key, and what `pg_stat_ssl` shows of a session.
//!
//! With `ssl = on` (the default) the server answers an SSLRequest with `S` and runs the
//! handshake with rustls (`session/socket.rs` carries the connection). The certificate and key
//! come from `ssl_cert_file` / `ssl_key_file`; when neither is given, from `server.crt` /
//! `server.key` in the data directory, which the first start creates: a self-signed
//! certificate for `localhost`, `127.0.0.1`, `::1` and the machine's host name, so that
//! `sslmode=require` works out of the box (a client that verifies the server, `verify-ca` or
//! `verify-full`, needs a certificate from an authority it trusts, given with the two flags).
//!
//! Several servers may start at once on a fresh data directory: each writes its pair to
//! temporary files, and the first to hard-link its key as `server.key` (a link fails when the
//! name exists) renames its certificate into place; the others drop theirs and wait for it.
//! The key is written with mode 0600 from its creation, and, as PostgreSQL does, a key file
//! that others may read is refused.
//!
//! With `ssl_ca_file`, clients are asked for a certificate signed by one of its authorities,
//! as PostgreSQL asks: a client may send none, but one that does not verify fails the
//! handshake. pg_stat_ssl shows the certificate's subject, serial and issuer (`x509.rs`).
//!
//! Crypto comes from `ring` (rustls's other provider needs cmake and a longer build). TLS 1.2
//! and 1.3 are offered with rustls's safe defaults. Server-side session resumption keeps
//! rustls's default cache of 256 sessions.

use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use rustls::ServerConfig;

use crate::config::Config;
use crate::error::os_error_text;

mod x509;

/// The loaded TLS configuration and the files it came from (SHOW ssl_cert_file, ...).
#[derive(Debug, Clone)]
pub struct Tls {
    pub config: Arc<ServerConfig>,
    pub cert_file: PathBuf,
    pub key_file: PathBuf,
}

/// What pg_stat_ssl and the sslinfo functions show of a session's TLS connection.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SslInfo {
    /// OpenSSL's name of the protocol version ("TLSv1.3"), as PostgreSQL shows it.
    pub version: &'static str,
    /// OpenSSL's name of the cipher suite ("TLS_AES_256_GCM_SHA384").
    pub cipher: &'static str,
    /// Bits of the cipher's key.
    pub bits: i32,
    /// The client's certificate, when it sent one (only asked for with ssl_ca_file).
    pub client: Option<x509::Fields>,
}

pub use x509::Fields as ClientCert;

/// The ALPN protocol PostgreSQL 17's clients offer (direct SSL); older clients offer none,
/// which is accepted too.
const ALPN: &[u8] = b"postgresql";

/// How long a start waits for the certificate another start is writing.
const WAIT_FOR_OTHER_START: Duration = Duration::from_secs(5);

/// Loads the certificate and key that `config` names (generating the data directory's pair
/// when none is named); `None` when ssl is off. Errors are PostgreSQL's texts where it has
/// them, and keep the server from starting.
pub fn load(config: &Config) -> Result<Option<Tls>, String> {
    if !config.ssl {
        return Ok(None);
    }
    let (cert_file, key_file) = match (&config.ssl_cert_file, &config.ssl_key_file) {
        (Some(c), Some(k)) => (c.clone(), k.clone()),
        (None, None) => {
            let cert = config.data_dir.join("server.crt");
            let key = config.data_dir.join("server.key");
            ensure_self_signed(&cert, &key)?;
            (cert, key)
        }
        _ => {
            return Err(
                "ssl_cert_file and ssl_key_file must be given together (or neither, for a \
                 self-signed certificate in the data directory)"
                    .into(),
            )
        }
    };
    let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(&cert_file)
        .and_then(|it| it.collect::<Result<Vec<_>, _>>())
        .map_err(|e| {
            format!(
                "could not load server certificate file \"{}\": {}",
                cert_file.display(),
                pem_error(e)
            )
        })?;
    if certs.is_empty() {
        return Err(format!(
            "could not load server certificate file \"{}\": no certificate found",
            cert_file.display()
        ));
    }
    check_key_permissions(&key_file)?;
    let key = PrivateKeyDer::from_pem_file(&key_file).map_err(|e| {
        format!(
            "could not load private key file \"{}\": {}",
            key_file.display(),
            pem_error(e)
        )
    })?;
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let builder = ServerConfig::builder_with_provider(provider.clone())
        .with_safe_default_protocol_versions()
        .map_err(|e| format!("could not set up TLS: {e}"))?;
    let builder = match &config.ssl_ca_file {
        None => builder.with_no_client_auth(),
        Some(ca) => builder.with_client_cert_verifier(client_verifier(ca, provider)?),
    };
    let mut server = builder.with_single_cert(certs, key).map_err(|e| {
        format!(
            "could not load private key file \"{}\": {e}",
            key_file.display()
        )
    })?;
    server.alpn_protocols = vec![ALPN.to_vec()];
    Ok(Some(Tls {
        config: Arc::new(server),
        cert_file,
        key_file,
    }))
}

/// Asks clients for a certificate signed by an authority of `ca_file`, and lets those that
/// send none in (PostgreSQL's ssl_ca_file: host rules decide whether one is required).
fn client_verifier(
    ca_file: &Path,
    provider: Arc<rustls::crypto::CryptoProvider>,
) -> Result<Arc<dyn rustls::server::danger::ClientCertVerifier>, String> {
    let err = |e: String| {
        format!(
            "could not load root certificate file \"{}\": {e}",
            ca_file.display()
        )
    };
    let certs = CertificateDer::pem_file_iter(ca_file)
        .and_then(|it| it.collect::<Result<Vec<_>, _>>())
        .map_err(|e| err(pem_error(e)))?;
    let mut roots = rustls::RootCertStore::empty();
    for c in certs {
        roots.add(c).map_err(|e| err(e.to_string()))?;
    }
    if roots.is_empty() {
        return Err(err("no certificate found".into()));
    }
    rustls::server::WebPkiClientVerifier::builder_with_provider(Arc::new(roots), provider)
        .allow_unauthenticated()
        .build()
        .map_err(|e| err(e.to_string()))
}

fn pem_error(e: rustls::pki_types::pem::Error) -> String {
    match e {
        rustls::pki_types::pem::Error::Io(e) => os_error_text(&e),
        rustls::pki_types::pem::Error::NoItemsFound => "no PEM data found".into(),
        other => format!("{other:?}"),
    }
}

/// PostgreSQL's check (be-secure-common.c): a key file must not be readable by others.
#[cfg(unix)]
fn check_key_permissions(key_file: &Path) -> Result<(), String> {
    use std::os::unix::fs::MetadataExt;
    let meta = std::fs::metadata(key_file).map_err(|e| {
        format!(
            "could not access private key file \"{}\": {}",
            key_file.display(),
            os_error_text(&e)
        )
    })?;
    if !meta.is_file() {
        return Err(format!(
            "private key file \"{}\" is not a regular file",
            key_file.display()
        ));
    }
    let mode = meta.mode();
    let too_open = if meta.uid() == 0 {
        mode & 0o037 != 0
    } else {
        mode & 0o077 != 0
    };
    if too_open {
        return Err(format!(
            "private key file \"{}\" has group or world access; file must have permissions \
             u=rw (0600) or less if owned by the database user, or permissions u=rw,g=r (0640) \
             or less if owned by root",
            key_file.display()
        ));
    }
    Ok(())
}

#[cfg(not(unix))]
fn check_key_permissions(_key_file: &Path) -> Result<(), String> {
    Ok(())
}

/// Makes sure the data directory's certificate and key exist, creating a self-signed pair on
/// the first start (see the module comment for concurrent starts).
fn ensure_self_signed(cert: &Path, key: &Path) -> Result<(), String> {
    if cert.exists() && key.exists() {
        return Ok(());
    }
    if !key.exists() {
        let dir = key.parent().unwrap_or(Path::new("."));
        let (cert_pem, key_pem) = self_signed_pair()?;
        let tag = format!("{}.{}", std::process::id(), rand::random::<u32>());
        let tmp_key = dir.join(format!(".server.key.{tag}"));
        let tmp_cert = dir.join(format!(".server.crt.{tag}"));
        let written = write_new(&tmp_key, key_pem.as_bytes(), 0o600)
            .and_then(|()| write_new(&tmp_cert, cert_pem.as_bytes(), 0o644));
        if let Err(e) = written {
            let _ = std::fs::remove_file(&tmp_key);
            let _ = std::fs::remove_file(&tmp_cert);
            return Err(format!(
                "could not write a self-signed certificate in \"{}\": {}",
                dir.display(),
                os_error_text(&e)
            ));
        }
        let won = std::fs::hard_link(&tmp_key, key);
        let _ = std::fs::remove_file(&tmp_key);
        match won {
            Ok(()) => {
                let moved = std::fs::rename(&tmp_cert, cert);
                if let Err(e) = moved {
                    let _ = std::fs::remove_file(&tmp_cert);
                    return Err(format!(
                        "could not write \"{}\": {}",
                        cert.display(),
                        os_error_text(&e)
                    ));
                }
                tracing::info!(
                    "created a self-signed certificate {} with key {}",
                    cert.display(),
                    key.display()
                );
                return Ok(());
            }
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                // Another start won; its certificate follows its key.
                let _ = std::fs::remove_file(&tmp_cert);
            }
            Err(e) => {
                let _ = std::fs::remove_file(&tmp_cert);
                return Err(format!(
                    "could not write \"{}\": {}",
                    key.display(),
                    os_error_text(&e)
                ));
            }
        }
    }
    let deadline = std::time::Instant::now() + WAIT_FOR_OTHER_START;
    while !cert.exists() {
        if std::time::Instant::now() >= deadline {
            return Err(format!(
                "private key file \"{}\" exists but certificate file \"{}\" does not: remove the \
                 key to have a new self-signed pair made, or give ssl_cert_file and ssl_key_file",
                key.display(),
                cert.display()
            ));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    Ok(())
}

/// Creates `path` (which must not exist) with `mode` from the start, and writes `data`.
fn write_new(path: &Path, data: &[u8], mode: u32) -> io::Result<()> {
    use std::io::Write;
    let mut opts = std::fs::OpenOptions::new();
    opts.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        opts.mode(mode);
    }
    #[cfg(not(unix))]
    let _ = mode;
    let mut f = opts.open(path)?;
    f.write_all(data)?;
    f.sync_all()
}

/// A self-signed certificate (PEM) and its key (PKCS#8 PEM), ECDSA P-256, valid from a day
/// ago for ten years, for the names a local client uses.
fn self_signed_pair() -> Result<(String, String), String> {
    use chrono::Datelike;
    let mut names = vec![
        "localhost".to_string(),
        "127.0.0.1".to_string(),
        "::1".to_string(),
    ];
    if let Some(host) = host_name().filter(|h| !names.contains(h)) {
        names.push(host);
    }
    let err = |e: rcgen::Error| format!("could not create a self-signed certificate: {e}");
    let mut params = rcgen::CertificateParams::new(names).map_err(err)?;
    let mut dn = rcgen::DistinguishedName::new();
    dn.push(rcgen::DnType::CommonName, "localhost");
    dn.push(rcgen::DnType::OrganizationName, "threadgres self-signed");
    params.distinguished_name = dn;
    let yesterday = chrono::Utc::now() - chrono::Duration::days(1);
    let (y, m, d) = (
        yesterday.year(),
        yesterday.month() as u8,
        yesterday.day() as u8,
    );
    params.not_before = rcgen::date_time_ymd(y, m, d);
    // February 29th ten years on does not exist: the 28th.
    params.not_after = rcgen::date_time_ymd(y + 10, m, d.min(28));
    let key = rcgen::KeyPair::generate().map_err(err)?;
    let cert = params.self_signed(&key).map_err(err)?;
    Ok((cert.pem(), key.serialize_pem()))
}

/// The machine's host name (for the certificate's names), if it has one.
fn host_name() -> Option<String> {
    let mut buf = [0u8; 256];
    // SAFETY: gethostname writes at most `buf.len()` bytes into the local buffer.
    let r = unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len()) };
    if r != 0 {
        return None;
    }
    let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
    let name = std::str::from_utf8(&buf[..end]).ok()?.trim().to_string();
    (!name.is_empty()).then_some(name)
}

/// What a finished handshake negotiated, in OpenSSL's names (pg_stat_ssl shows those).
pub fn ssl_info(conn: &rustls::ServerConnection) -> SslInfo {
    use rustls::{CipherSuite as C, ProtocolVersion as V};
    let version = match conn.protocol_version() {
        Some(V::TLSv1_3) => "TLSv1.3",
        Some(V::TLSv1_2) => "TLSv1.2",
        _ => "unknown",
    };
    let (cipher, bits) = match conn.negotiated_cipher_suite().map(|s| s.suite()) {
        Some(C::TLS13_AES_256_GCM_SHA384) => ("TLS_AES_256_GCM_SHA384", 256),
        Some(C::TLS13_AES_128_GCM_SHA256) => ("TLS_AES_128_GCM_SHA256", 128),
        Some(C::TLS13_CHACHA20_POLY1305_SHA256) => ("TLS_CHACHA20_POLY1305_SHA256", 256),
        Some(C::TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384) => ("ECDHE-ECDSA-AES256-GCM-SHA384", 256),
        Some(C::TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256) => ("ECDHE-ECDSA-AES128-GCM-SHA256", 128),
        Some(C::TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256) => {
            ("ECDHE-ECDSA-CHACHA20-POLY1305", 256)
        }
        Some(C::TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384) => ("ECDHE-RSA-AES256-GCM-SHA384", 256),
        Some(C::TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256) => ("ECDHE-RSA-AES128-GCM-SHA256", 128),
        Some(C::TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256) => {
            ("ECDHE-RSA-CHACHA20-POLY1305", 256)
        }
        _ => ("unknown", 0),
    };
    let client = conn
        .peer_certificates()
        .and_then(|chain| chain.first())
        .and_then(|leaf| x509::fields(leaf));
    SslInfo {
        version,
        cipher,
        bits,
        client,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(dir: &Path) -> Config {
        Config {
            data_dir: dir.to_path_buf(),
            ..Config::default()
        }
    }

    fn tempdir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!(
            "threadgres-tls-{name}-{}-{}",
            std::process::id(),
            rand::random::<u32>()
        ));
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn the_first_start_makes_a_pair_and_later_starts_reuse_it() {
        let dir = tempdir("reuse");
        let first = load(&config(&dir)).unwrap().unwrap();
        assert_eq!(first.cert_file, dir.join("server.crt"));
        let cert = std::fs::read(dir.join("server.crt")).unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(dir.join("server.key"))
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        load(&config(&dir)).unwrap().unwrap();
        assert_eq!(std::fs::read(dir.join("server.crt")).unwrap(), cert);
        let leftovers: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(leftovers.len(), 2, "no temporary files left: {leftovers:?}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn concurrent_first_starts_agree_on_one_pair() {
        let dir = tempdir("race");
        let threads: Vec<_> = (0..4)
            .map(|_| {
                let c = config(&dir);
                std::thread::spawn(move || load(&c).map(|t| t.is_some()))
            })
            .collect();
        for t in threads {
            assert_eq!(t.join().unwrap(), Ok(true));
        }
        // The pair on disk matches: loading checks the key against the certificate.
        load(&config(&dir)).unwrap().unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn missing_and_open_files_are_refused_with_postgres_texts() {
        let dir = tempdir("errors");
        let mut c = config(&dir);
        c.ssl_cert_file = Some(dir.join("nope.crt"));
        c.ssl_key_file = Some(dir.join("nope.key"));
        let e = load(&c).unwrap_err();
        assert!(
            e.starts_with("could not load server certificate file")
                && e.ends_with("No such file or directory"),
            "{e}"
        );
        load(&config(&dir)).unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let key = dir.join("server.key");
            std::fs::set_permissions(&key, std::fs::Permissions::from_mode(0o644)).unwrap();
            let e = load(&config(&dir)).unwrap_err();
            assert!(e.contains("has group or world access"), "{e}");
        }
        c.ssl_key_file = None;
        assert!(load(&c).unwrap_err().contains("must be given together"));
        c.ssl = false;
        assert!(load(&c).unwrap().is_none());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
