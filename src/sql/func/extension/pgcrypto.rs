//! pgcrypto: hashes (digest), HMACs, password hashing (crypt, gen_salt) and random bytes.
//!
//! Hash algorithms: md5, sha1, sha224, sha256, sha384 and sha512, named in any case, as
//! PostgreSQL's pgcrypto without OpenSSL's extra digests. Password hashes: bcrypt (`$2a$`,
//! by the `bcrypt` crate) and md5-crypt (`$1$`, written here: it is a fixed recipe of MD5
//! rounds that no well-kept crate exposes on its own); the DES-based `des` and `xdes` hashes
//! are refused (0A000): they are obsolete and nothing new should use them. HMAC is written
//! here over the hash functions (the `hmac` crate needs one digest-trait version for all of
//! them, which the md5 crate here does not share).

use super::{ExtFunc, ExtSpec};
use crate::error::{code, PgError, PgResult};
use crate::sql::func::args::{bytes, int, text};
use crate::sql::func::ScalarFn;
use crate::sql::types::{FormatCtx, Type, Value};

const T: (&str, Type) = ("", Type::TEXT);
const B: (&str, Type) = ("", Type::BYTEA);

pub(super) const SPEC: ExtSpec = ExtSpec {
    name: "pgcrypto",
    version: "1.3",
    comment: "cryptographic functions",
    relocatable: true,
    types: &[],
    functions: &[
        ExtFunc::new("digest", &[T, T], Type::BYTEA, "pg_digest", 'i', true),
        ExtFunc::new("digest", &[B, T], Type::BYTEA, "pg_digest", 'i', true),
        ExtFunc::new("hmac", &[T, T, T], Type::BYTEA, "pg_hmac", 'i', true),
        ExtFunc::new("hmac", &[B, B, T], Type::BYTEA, "pg_hmac", 'i', true),
        ExtFunc::new("crypt", &[T, T], Type::TEXT, "pg_crypt", 'i', true),
        ExtFunc::new("gen_salt", &[T], Type::TEXT, "pg_gen_salt", 'v', true),
        ExtFunc::new(
            "gen_salt",
            &[T, ("", Type::INT4)],
            Type::TEXT,
            "pg_gen_salt_rounds",
            'v',
            true,
        ),
        ExtFunc::new(
            "gen_random_bytes",
            &[("", Type::INT4)],
            Type::BYTEA,
            "pg_random_bytes",
            'v',
            true,
        ),
        ExtFunc::new(
            "gen_random_uuid",
            &[],
            Type::UUID,
            "pg_random_uuid",
            'v',
            false,
        ),
    ],
};

pub(super) fn symbol(s: &str) -> Option<ScalarFn> {
    Some(match s {
        "pg_digest" => pg_digest,
        "pg_hmac" => pg_hmac,
        "pg_crypt" => pg_crypt,
        "pg_gen_salt" => |a, _| gen_salt(a, None),
        "pg_gen_salt_rounds" => |a, _| gen_salt(a, Some(int(&a[1])?)),
        "pg_random_bytes" => pg_random_bytes,
        "pg_random_uuid" => |_, _| {
            let mut b: [u8; 16] = rand::random();
            b[6] = (b[6] & 0x0f) | 0x40;
            b[8] = (b[8] & 0x3f) | 0x80;
            Ok(Value::Uuid(b))
        },
        _ => return None,
    })
}

/// A string or bytea argument's bytes.
fn data(v: &Value) -> PgResult<&[u8]> {
    match v {
        Value::Text(s) => Ok(s.as_bytes()),
        other => bytes(other),
    }
}

fn str_arg(v: &Value) -> PgResult<&str> {
    match v {
        Value::Text(s) => Ok(s),
        other => Err(crate::sql::func::args::bad_arg(other)),
    }
}

/// A hash function and its block size in bytes (for HMAC).
type Hash = (fn(&[u8]) -> Vec<u8>, usize);

fn hash_named(name: &str) -> PgResult<Hash> {
    fn h<D: sha2::Digest>(b: &[u8]) -> Vec<u8> {
        D::digest(b).to_vec()
    }
    fn md5(b: &[u8]) -> Vec<u8> {
        use md5::Digest;
        md5::Md5::digest(b).to_vec()
    }
    Ok(match name.to_ascii_lowercase().as_str() {
        "md5" => (md5, 64),
        "sha1" => (h::<sha1::Sha1>, 64),
        "sha224" => (h::<sha2::Sha224>, 64),
        "sha256" => (h::<sha2::Sha256>, 64),
        "sha384" => (h::<sha2::Sha384>, 128),
        "sha512" => (h::<sha2::Sha512>, 128),
        _ => {
            return Err(PgError::new(
                code::INVALID_PARAMETER_VALUE,
                format!("Cannot use \"{name}\": No such hash algorithm"),
            ))
        }
    })
}

fn pg_digest(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    let (hash, _) = hash_named(str_arg(&a[1])?)?;
    Ok(Value::Bytea(hash(data(&a[0])?)))
}

/// HMAC (RFC 2104): H((K ^ opad) || H((K ^ ipad) || message)).
fn hmac((hash, block): Hash, key: &[u8], message: &[u8]) -> Vec<u8> {
    let mut k = if key.len() > block {
        hash(key)
    } else {
        key.to_vec()
    };
    k.resize(block, 0);
    let mut inner: Vec<u8> = k.iter().map(|b| b ^ 0x36).collect();
    inner.extend_from_slice(message);
    let mut outer: Vec<u8> = k.iter().map(|b| b ^ 0x5c).collect();
    outer.extend_from_slice(&hash(&inner));
    hash(&outer)
}

fn pg_hmac(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    let h = hash_named(str_arg(&a[2])?)?;
    Ok(Value::Bytea(hmac(h, data(&a[1])?, data(&a[0])?)))
}

fn pg_random_bytes(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    let n = int(&a[0])?;
    if !(1..=1024).contains(&n) {
        return Err(PgError::new(
            code::EXTERNAL_ROUTINE_INVOCATION_EXCEPTION,
            "Length not in range",
        ));
    }
    Ok(Value::Bytea(
        (0..n).map(|_| rand::random::<u8>()).collect::<Vec<u8>>(),
    ))
}

fn invalid(msg: &str) -> PgError {
    PgError::new(code::INVALID_PARAMETER_VALUE, msg)
}

fn des_refused() -> PgError {
    PgError::feature_not_supported("DES-based password hashes (des, xdes) are not supported")
}

fn gen_salt(a: &[Value], rounds: Option<i64>) -> PgResult<Value> {
    let kind = str_arg(&a[0])?.to_ascii_lowercase();
    match kind.as_str() {
        "bf" => {
            let cost = rounds.unwrap_or(6);
            if !(4..=31).contains(&cost) {
                return Err(invalid("gen_salt: Incorrect number of rounds"));
            }
            let salt: [u8; 16] = rand::random();
            Ok(text(format!("$2a${cost:02}${}", bcrypt_b64(&salt))))
        }
        "md5" => {
            if rounds.is_some_and(|r| r != 1000) {
                return Err(invalid("gen_salt: Incorrect number of rounds"));
            }
            let salt: String = (0..8)
                .map(|_| ITOA64[rand::random::<u8>() as usize & 0x3f] as char)
                .collect();
            Ok(text(format!("$1${salt}")))
        }
        "des" | "xdes" => Err(des_refused()),
        _ => Err(invalid("gen_salt: Unknown salt algorithm")),
    }
}

fn pg_crypt(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    let pw = data(&a[0])?;
    let setting = str_arg(&a[1])?;
    if let Some(rest) = setting
        .strip_prefix("$2a$")
        .or_else(|| setting.strip_prefix("$2b$"))
        .or_else(|| setting.strip_prefix("$2x$"))
    {
        let cost: u32 = rest
            .get(..2)
            .and_then(|c| c.parse().ok())
            .filter(|c| (4..=31).contains(c))
            .ok_or_else(|| invalid("invalid salt"))?;
        let salt = rest
            .get(3..25)
            .filter(|_| rest.as_bytes().get(2) == Some(&b'$'))
            .and_then(bcrypt_b64_decode)
            .ok_or_else(|| invalid("invalid salt"))?;
        // bcrypt reads at most 72 bytes of the password, as crypt_blowfish does.
        let pw = &pw[..pw.len().min(72)];
        let parts = bcrypt::hash_with_salt(pw, cost, salt)
            .map_err(|e| PgError::internal(format!("bcrypt: {e}")))?;
        return Ok(text(parts.format_for_version(bcrypt::Version::TwoA)));
    }
    if let Some(rest) = setting.strip_prefix("$1$") {
        let salt = rest.split('$').next().unwrap_or("");
        let salt = &salt[..salt.len().min(8)];
        return Ok(text(md5_crypt(pw, salt.as_bytes())));
    }
    Err(des_refused())
}

/// The alphabet of crypt's base-64 (md5-crypt).
const ITOA64: &[u8; 64] = b"./0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
/// bcrypt's base-64 alphabet (another order than crypt's).
const BF64: &[u8; 64] = b"./ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/// bcrypt's base-64 of a 16-byte salt: 22 characters, no padding.
fn bcrypt_b64(b: &[u8; 16]) -> String {
    let mut out = String::with_capacity(22);
    for chunk in b.chunks(3) {
        let v = chunk
            .iter()
            .enumerate()
            .fold(0u32, |v, (i, &x)| v | (x as u32) << (16 - 8 * i));
        let chars = chunk.len() + 1;
        for i in 0..chars {
            out.push(BF64[(v >> (18 - 6 * i) & 0x3f) as usize] as char);
        }
    }
    out
}

/// The 16 salt bytes of 22 bcrypt base-64 characters (the last one's low bits unused).
fn bcrypt_b64_decode(s: &str) -> Option<[u8; 16]> {
    let mut bits = 0u32;
    let mut n = 0;
    let mut out = Vec::with_capacity(17);
    for c in s.bytes() {
        let v = BF64.iter().position(|&x| x == c)? as u32;
        bits = bits << 6 | v;
        n += 6;
        if n >= 8 {
            n -= 8;
            out.push((bits >> n) as u8);
            bits &= (1 << n) - 1;
        }
    }
    out.truncate(16);
    out.try_into().ok()
}

/// md5-crypt (`$1$salt$hash`): 1,000 rounds of MD5 over the password, salt and previous
/// digest in a fixed pattern, then the digest in crypt's base-64, bytes in a fixed order.
fn md5_crypt(pw: &[u8], salt: &[u8]) -> String {
    use md5::Digest;
    let md5 = |parts: &[&[u8]]| -> [u8; 16] {
        let mut h = md5::Md5::new();
        for p in parts {
            h.update(p);
        }
        h.finalize().into()
    };
    let alt = md5(&[pw, salt, pw]);
    let mut h = md5::Md5::new();
    h.update(pw);
    h.update(b"$1$");
    h.update(salt);
    let mut left = pw.len();
    while left > 0 {
        h.update(&alt[..left.min(16)]);
        left = left.saturating_sub(16);
    }
    let mut i = pw.len();
    while i > 0 {
        if i & 1 == 1 {
            h.update([0u8]);
        } else {
            h.update(&pw[..1]);
        }
        i >>= 1;
    }
    let mut fin: [u8; 16] = h.finalize().into();
    for r in 0..1000 {
        let mut parts: Vec<&[u8]> = Vec::with_capacity(4);
        parts.push(if r & 1 == 1 { pw } else { &fin });
        if r % 3 != 0 {
            parts.push(salt);
        }
        if r % 7 != 0 {
            parts.push(pw);
        }
        parts.push(if r & 1 == 1 { &fin } else { pw });
        fin = md5(&parts);
    }
    let mut out = format!("$1${}$", String::from_utf8_lossy(salt));
    let mut put = |v: u32, n: usize| {
        let mut v = v;
        for _ in 0..n {
            out.push(ITOA64[(v & 0x3f) as usize] as char);
            v >>= 6;
        }
    };
    for (a, b, c) in [(0, 6, 12), (1, 7, 13), (2, 8, 14), (3, 9, 15), (4, 10, 5)] {
        put(
            (fin[a] as u32) << 16 | (fin[b] as u32) << 8 | fin[c] as u32,
            4,
        );
    }
    put(fin[11] as u32, 2);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bcrypt_salts_round_trip_through_their_base64() {
        for _ in 0..100 {
            let salt: [u8; 16] = rand::random();
            let s = bcrypt_b64(&salt);
            assert_eq!(s.len(), 22);
            assert_eq!(bcrypt_b64_decode(&s), Some(salt));
        }
        assert_eq!(bcrypt_b64_decode("short"), None);
        assert_eq!(bcrypt_b64_decode("!!!!!!!!!!!!!!!!!!!!!!"), None);
    }

    #[test]
    fn hmac_matches_rfc_4231_case_2() {
        let h = hash_named("sha256").unwrap();
        let mac = hmac(h, b"Jefe", b"what do ya want for nothing?");
        let hex: String = mac.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(
            hex,
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
    }
}
