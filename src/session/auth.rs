//! SCRAM-SHA-256 authentication (RFC 5802 / 7677), the server side, as PostgreSQL speaks it;
//! and the checks of the other password methods (a cleartext password against a SCRAM secret or
//! an MD5 hash, the MD5 challenge), and where the stored password and role memberships come
//! from for authentication.
//!
//! The server-wide password is turned into a SCRAM secret (salt, StoredKey, ServerKey) once at
//! start-up, so a connection costs two HMACs and a hash, not 4096 PBKDF2 rounds. Channel binding
//! is not offered (no TLS yet): clients send the `n,,` or `y,,` GS2 header.

use base64::engine::general_purpose::STANDARD as B64;
use base64::Engine;
use hmac::{Hmac, Mac};
use sha2::{Digest, Sha256};

use crate::catalog::password::Scram;
use crate::error::{code, PgError, PgResult};

fn hmac(key: &[u8], data: &[u8]) -> [u8; 32] {
    let mut m = <Hmac<Sha256> as Mac>::new_from_slice(key).expect("any key length");
    m.update(data);
    m.finalize().into_bytes().into()
}

/// The stored form of a password (its salt, iteration count and keys: what a role's
/// verifier in pg_authid holds, `catalog::password`). The salt and iteration count also let a
/// cleartext password (the `password` method) be checked against it.
#[derive(Clone)]
pub struct ScramSecret {
    salt: Vec<u8>,
    iterations: u32,
    stored_key: [u8; 32],
    server_key: [u8; 32],
}

impl ScramSecret {
    pub fn new(password: &str) -> ScramSecret {
        Self::from_scram(Scram::new(password))
    }

    fn from_scram(s: Scram) -> ScramSecret {
        ScramSecret {
            salt: s.salt,
            iterations: s.iterations,
            stored_key: s.stored_key,
            server_key: s.server_key,
        }
    }

    /// A role's stored verifier (`SCRAM-SHA-256$4096:salt$StoredKey:ServerKey`); None for
    /// anything else (an MD5 hash, garbage).
    pub fn from_verifier(text: &str) -> Option<ScramSecret> {
        Scram::parse(text).map(Self::from_scram)
    }

    /// A secret no password matches, for a user without one (no such role, no SCRAM verifier,
    /// an expired one): the exchange runs to its end and fails as a wrong password does
    /// (PostgreSQL's mock authentication), so that a client cannot tell which roles exist. The
    /// salt depends only on the user and this server, as PostgreSQL's mock salt does.
    pub fn mock(user: &str) -> ScramSecret {
        static NONCE: std::sync::OnceLock<[u8; 16]> = std::sync::OnceLock::new();
        let nonce = NONCE.get_or_init(rand::random);
        let mut h = Sha256::new();
        h.update(user.as_bytes());
        h.update(nonce);
        let salt: [u8; 32] = h.finalize().into();
        ScramSecret {
            salt: salt[..16].to_vec(),
            iterations: 4096,
            stored_key: rand::random(),
            server_key: rand::random(),
        }
    }

    /// Whether a cleartext password is the one this secret was made from (PostgreSQL's
    /// scram_verify_plain_password: derive the ServerKey with the stored salt and iterations).
    /// PostgreSQL normalizes the password with SASLprep first; here it is used as given, which
    /// is the same for ASCII passwords.
    pub fn verify_plain(&self, password: &str) -> bool {
        let mut salted = [0u8; 32];
        pbkdf2::pbkdf2_hmac::<Sha256>(
            password.as_bytes(),
            &self.salt,
            self.iterations,
            &mut salted,
        );
        hmac(&salted, b"Server Key") == self.server_key
    }

    /// PostgreSQL's text form of this secret.
    pub fn to_verifier(&self) -> String {
        Scram {
            iterations: self.iterations,
            salt: self.salt.clone(),
            stored_key: self.stored_key,
            server_key: self.server_key,
        }
        .to_text()
    }
}

pub fn auth_failed(user: &str) -> PgError {
    PgError::fatal(
        code::INVALID_PASSWORD,
        format!("password authentication failed for user \"{user}\""),
    )
}

/// A user's stored password, as PostgreSQL keeps it in pg_authid.rolpassword.
#[derive(Clone)]
pub enum StoredPassword {
    Scram(ScramSecret),
    /// `md5` followed by 32 hex digits: md5(password || user name).
    Md5(String),
}

/// The stored password of `user` for authentication: its role's verifier, `None` when the role
/// does not exist, has none, or its VALID UNTIL has passed (PostgreSQL's get_role_password).
pub fn stored_password(instance: &crate::instance::Instance, user: &str) -> Option<StoredPassword> {
    let login = instance.login_role(user)?;
    if login
        .valid_until
        .is_some_and(|t| t <= crate::sql::types::datetime::now_timestamptz())
    {
        return None;
    }
    let text = login.password?;
    if text.len() == 35 && text.starts_with("md5") {
        return Some(StoredPassword::Md5(text));
    }
    ScramSecret::from_verifier(&text).map(StoredPassword::Scram)
}

/// Whether `user` is a member of `role` (directly or not, any membership: PostgreSQL's
/// is_member_of_role_nosuper), for host rules' `+role` and `samerole`; false when either role
/// does not exist. A role is a member of itself.
pub fn is_member(instance: &crate::instance::Instance, user: &str, role: &str) -> bool {
    let snap = crate::catalog::roles::Roles::latest(&instance.txns);
    let roles = &instance.catalog.roles;
    match (roles.by_name(user, &snap), roles.by_name(role, &snap)) {
        (Some(u), Some(r)) => roles.is_member(u.oid, r.oid, false, &snap),
        _ => false,
    }
}

fn md5_hex(parts: &[&[u8]]) -> String {
    use md5::Digest;
    let mut h = md5::Md5::new();
    for p in parts {
        h.update(p);
    }
    h.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

/// The MD5 form of a password as PostgreSQL stores it.
pub fn md5_stored(password: &str, user: &str) -> String {
    format!("md5{}", md5_hex(&[password.as_bytes(), user.as_bytes()]))
}

/// Checks the answer to AuthenticationMD5Password: `md5` + md5(hex of the stored hash || salt).
pub fn md5_verify(stored: &str, salt: [u8; 4], response: &str) -> bool {
    let Some(hash) = stored.strip_prefix("md5") else {
        return false;
    };
    response == format!("md5{}", md5_hex(&[hash.as_bytes(), &salt]))
}

/// Checks a cleartext password (the `password` method) against a stored password of either
/// kind (PostgreSQL's plain_crypt_verify).
pub fn verify_plain(stored: &StoredPassword, user: &str, password: &str) -> bool {
    match stored {
        StoredPassword::Scram(s) => s.verify_plain(password),
        StoredPassword::Md5(m) => *m == md5_stored(password, user),
    }
}

fn malformed(detail: &str) -> PgError {
    PgError::fatal(code::PROTOCOL_VIOLATION, "malformed SCRAM message")
        .with_detail(detail.to_string())
}

/// State between the server-first and client-final messages.
pub struct Exchange {
    client_first_bare: String,
    server_first: String,
    nonce: String,
}

/// Handles SASLInitialResponse; returns the exchange state and the server-first message.
pub fn server_first(secret: &ScramSecret, initial: &[u8]) -> PgResult<(Exchange, String)> {
    // SASLInitialResponse: mechanism\0, int32 length, data.
    let nul = initial
        .iter()
        .position(|b| *b == 0)
        .ok_or_else(|| malformed("missing mechanism"))?;
    let mech = std::str::from_utf8(&initial[..nul]).map_err(|_| malformed("mechanism"))?;
    if mech != "SCRAM-SHA-256" {
        return Err(PgError::fatal(
            code::PROTOCOL_VIOLATION,
            "client selected an invalid SASL authentication mechanism",
        ));
    }
    let rest = &initial[nul + 1..];
    if rest.len() < 4 {
        return Err(malformed("missing length"));
    }
    let data = std::str::from_utf8(&rest[4..]).map_err(|_| malformed("not UTF-8"))?;
    let bare = if let Some(b) = data
        .strip_prefix("n,,")
        .or_else(|| data.strip_prefix("y,,"))
    {
        b
    } else {
        return Err(malformed("unsupported channel binding"));
    };
    let client_nonce = bare
        .split(',')
        .find_map(|p| p.strip_prefix("r="))
        .ok_or_else(|| malformed("missing nonce"))?;
    let server_nonce: [u8; 18] = rand::random();
    let nonce = format!("{client_nonce}{}", B64.encode(server_nonce));
    let server_first = format!(
        "r={nonce},s={},i={}",
        B64.encode(&secret.salt),
        secret.iterations
    );
    Ok((
        Exchange {
            client_first_bare: bare.to_string(),
            server_first: server_first.clone(),
            nonce,
        },
        server_first,
    ))
}

/// Verifies the client-final message; returns the server-final message.
pub fn server_final(
    secret: &ScramSecret,
    ex: &Exchange,
    client_final: &[u8],
    user: &str,
) -> PgResult<String> {
    let text = std::str::from_utf8(client_final).map_err(|_| malformed("not UTF-8"))?;
    let (without_proof, proof) = text
        .rsplit_once(",p=")
        .ok_or_else(|| malformed("missing proof"))?;
    let nonce = without_proof
        .split(',')
        .find_map(|p| p.strip_prefix("r="))
        .ok_or_else(|| malformed("missing nonce"))?;
    if nonce != ex.nonce {
        return Err(malformed("nonce mismatch"));
    }
    let proof = B64.decode(proof).map_err(|_| malformed("proof"))?;
    if proof.len() != 32 {
        return Err(auth_failed(user));
    }
    let auth_message = format!(
        "{},{},{}",
        ex.client_first_bare, ex.server_first, without_proof
    );
    let client_signature = hmac(&secret.stored_key, auth_message.as_bytes());
    let client_key: Vec<u8> = proof
        .iter()
        .zip(client_signature)
        .map(|(a, b)| a ^ b)
        .collect();
    let stored: [u8; 32] = Sha256::digest(&client_key).into();
    if stored != secret.stored_key {
        return Err(auth_failed(user));
    }
    let server_signature = hmac(&secret.server_key, auth_message.as_bytes());
    Ok(format!("v={}", B64.encode(server_signature)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cleartext_and_md5_checks() {
        let s = ScramSecret::new("secret");
        assert!(s.verify_plain("secret"));
        assert!(!s.verify_plain("Secret"));
        assert!(!ScramSecret::mock("u").verify_plain("secret"));
        // PostgreSQL: SELECT 'md5' || md5('secret' || 'alice')
        let m = md5_stored("secret", "alice");
        assert_eq!(m, format!("md5{}", md5_hex(&[b"secretalice"])));
        assert!(verify_plain(
            &StoredPassword::Md5(m.clone()),
            "alice",
            "secret"
        ));
        assert!(!verify_plain(
            &StoredPassword::Md5(m.clone()),
            "bob",
            "secret"
        ));
        let salt = [1, 2, 3, 4];
        let answer = format!("md5{}", md5_hex(&[&m.as_bytes()[3..], &salt]));
        assert!(md5_verify(&m, salt, &answer));
        assert!(!md5_verify(&m, [4, 3, 2, 1], &answer));
        assert_eq!(ScramSecret::mock("u").salt, ScramSecret::mock("u").salt);
        assert_ne!(ScramSecret::mock("u").salt, ScramSecret::mock("v").salt);
    }
}
