//! Stored passwords, as PostgreSQL stores them in pg_authid.rolpassword: a SCRAM-SHA-256
//! verifier `SCRAM-SHA-256$<iterations>:<salt>$<StoredKey>:<ServerKey>` (base64 parts;
//! PostgreSQL's default, password_encryption = scram-sha-256) or `md5` followed by the hex MD5
//! of password and role name (password_encryption = md5). A password given to CREATE / ALTER
//! ROLE that already has one of these forms is stored as is, as PostgreSQL does.
//!
//! Pure functions (no state): the catalog layer owns the format so that SQL (which stores
//! passwords) and authentication (which reads them, `session::auth`) agree on it.

use base64::engine::general_purpose::STANDARD as B64;
use base64::Engine;
use hmac::{Hmac, Mac};
use sha2::{Digest, Sha256};

/// PostgreSQL's SCRAM_DEFAULT_ITERATIONS.
pub const SCRAM_ITERATIONS: u32 = 4096;
/// PostgreSQL's SCRAM_DEFAULT_SALT_LEN.
const SALT_LEN: usize = 16;

fn hmac(key: &[u8], data: &[u8]) -> [u8; 32] {
    let mut m = <Hmac<Sha256> as Mac>::new_from_slice(key).expect("any key length");
    m.update(data);
    m.finalize().into_bytes().into()
}

/// The parts of a SCRAM-SHA-256 verifier.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scram {
    pub iterations: u32,
    pub salt: Vec<u8>,
    pub stored_key: [u8; 32],
    pub server_key: [u8; 32],
}

impl Scram {
    /// Derives the verifier of `password` with `salt` and `iterations` (RFC 5802's
    /// SaltedPassword, ClientKey, StoredKey, ServerKey).
    pub fn derive(password: &str, salt: &[u8], iterations: u32) -> Scram {
        let mut salted = [0u8; 32];
        pbkdf2::pbkdf2_hmac::<Sha256>(password.as_bytes(), salt, iterations, &mut salted);
        let client_key = hmac(&salted, b"Client Key");
        Scram {
            iterations,
            salt: salt.to_vec(),
            stored_key: Sha256::digest(client_key).into(),
            server_key: hmac(&salted, b"Server Key"),
        }
    }

    /// A new verifier of `password` with a random salt and PostgreSQL's iteration count.
    pub fn new(password: &str) -> Scram {
        let salt: [u8; SALT_LEN] = rand::random();
        Scram::derive(password, &salt, SCRAM_ITERATIONS)
    }

    /// Reads PostgreSQL's text form; None if `text` is not a well-formed verifier.
    pub fn parse(text: &str) -> Option<Scram> {
        let rest = text.strip_prefix("SCRAM-SHA-256$")?;
        let (iter_salt, keys) = rest.split_once('$')?;
        let (iterations, salt) = iter_salt.split_once(':')?;
        let (stored, server) = keys.split_once(':')?;
        let iterations: u32 = iterations.parse().ok().filter(|i| *i > 0)?;
        let salt = B64.decode(salt).ok()?;
        let stored_key = B64.decode(stored).ok()?.try_into().ok()?;
        let server_key = B64.decode(server).ok()?.try_into().ok()?;
        Some(Scram {
            iterations,
            salt,
            stored_key,
            server_key,
        })
    }

    /// PostgreSQL's text form.
    pub fn to_text(&self) -> String {
        format!(
            "SCRAM-SHA-256${}:{}${}:{}",
            self.iterations,
            B64.encode(&self.salt),
            B64.encode(self.stored_key),
            B64.encode(self.server_key)
        )
    }

    /// Whether `password` is the one this verifier was made from.
    pub fn verify(&self, password: &str) -> bool {
        let other = Scram::derive(password, &self.salt, self.iterations);
        other.stored_key == self.stored_key && other.server_key == self.server_key
    }
}

/// Whether `text` is an MD5 password hash as PostgreSQL stores it.
pub fn is_md5(text: &str) -> bool {
    text.len() == 35 && text.starts_with("md5") && text[3..].bytes().all(|b| b.is_ascii_hexdigit())
}

/// `md5` + hex MD5 of password followed by the role name (pg_md5_encrypt).
pub fn md5(password: &str, role: &str) -> String {
    use md5::Digest;
    let mut h = md5::Md5::new();
    h.update(password.as_bytes());
    h.update(role.as_bytes());
    let d = h.finalize();
    let mut s = String::from("md5");
    for b in d {
        s.push_str(&format!("{b:02x}"));
    }
    s
}

/// What CREATE / ALTER ROLE stores for `password` under `password_encryption` (`md5` or
/// `scram-sha-256`): an already-encrypted password as given, else its encryption.
pub fn encrypt(password: &str, role: &str, method: &str) -> String {
    if is_md5(password) || Scram::parse(password).is_some() {
        return password.to_string();
    }
    if method == "md5" {
        md5(password, role)
    } else {
        Scram::new(password).to_text()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verifier_round_trip() {
        let s = Scram::new("secret");
        let text = s.to_text();
        assert!(text.starts_with("SCRAM-SHA-256$4096:"));
        assert_eq!(Scram::parse(&text), Some(s.clone()));
        assert!(s.verify("secret"));
        assert!(!s.verify("Secret"));
        assert_eq!(encrypt(&text, "u", "md5"), text);
        // PostgreSQL: md5('abc' || 'r10').
        assert_eq!(md5("abc", "r10"), "md52941b8e4f5b0bb57607c5fc40083a204");
        assert!(Scram::parse("SCRAM-SHA-256$4096:abc").is_none());
    }
}
