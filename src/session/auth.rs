//! SCRAM-SHA-256 authentication (RFC 5802 / 7677), the server side, as PostgreSQL speaks it.
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
/// verifier in pg_authid holds, `catalog::password`).
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

fn auth_failed(user: &str) -> PgError {
    PgError::fatal(
        code::INVALID_PASSWORD,
        format!("password authentication failed for user \"{user}\""),
    )
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
