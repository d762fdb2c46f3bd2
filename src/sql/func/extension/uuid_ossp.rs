//! uuid-ossp: UUIDs of RFC 4122's versions 1, 3, 4 and 5, and its well-known namespaces.
//!
//! Version 1 needs a node id; PostgreSQL's uuid-ossp takes the host's MAC address, which a
//! process cannot portably read, so this uses one random node id per process with the
//! multicast bit set, as RFC 4122 (section 4.5) prescribes for hosts without one. A clock
//! sequence is drawn once per process; timestamps are made strictly increasing within the
//! process, so two calls in the same 100 ns never give the same UUID.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

use super::{ExtFunc, ExtSpec};
use crate::error::PgResult;
use crate::sql::func::args::{bytes, txt};
use crate::sql::func::ScalarFn;
use crate::sql::types::{FormatCtx, Type, Value};

/// A strict function returning uuid whose symbol is its name.
const fn f(name: &'static str, args: &'static [(&'static str, Type)], volatility: char) -> ExtFunc {
    ExtFunc::new(name, args, Type::UUID, name, volatility, true)
}

const NAMED: &[(&str, Type)] = &[("namespace", Type::UUID), ("name", Type::TEXT)];

pub(super) const SPEC: ExtSpec = ExtSpec {
    name: "uuid-ossp",
    version: "1.1",
    comment: "generate universally unique identifiers (UUIDs)",
    relocatable: true,
    types: &[],
    functions: &[
        f("uuid_nil", &[], 'i'),
        f("uuid_ns_dns", &[], 'i'),
        f("uuid_ns_url", &[], 'i'),
        f("uuid_ns_oid", &[], 'i'),
        f("uuid_ns_x500", &[], 'i'),
        f("uuid_generate_v1", &[], 'v'),
        f("uuid_generate_v1mc", &[], 'v'),
        f("uuid_generate_v3", NAMED, 'i'),
        f("uuid_generate_v4", &[], 'v'),
        f("uuid_generate_v5", NAMED, 'i'),
    ],
};

pub(super) fn symbol(s: &str) -> Option<ScalarFn> {
    Some(match s {
        "uuid_nil" => |_, _| Ok(Value::Uuid([0; 16])),
        "uuid_ns_dns" => |_, _| Ok(namespace(0x10)),
        "uuid_ns_url" => |_, _| Ok(namespace(0x11)),
        "uuid_ns_oid" => |_, _| Ok(namespace(0x12)),
        "uuid_ns_x500" => |_, _| Ok(namespace(0x14)),
        "uuid_generate_v1" => |_, _| Ok(time_based(node())),
        "uuid_generate_v1mc" => |_, _| {
            let mut n: [u8; 6] = rand::random();
            n[0] |= 0x01;
            Ok(time_based(n))
        },
        "uuid_generate_v3" => v3,
        "uuid_generate_v4" => |_, _| {
            let b: [u8; 16] = rand::random();
            Ok(Value::Uuid(versioned(b, 4)))
        },
        "uuid_generate_v5" => v5,
        _ => return None,
    })
}

/// RFC 4122's namespaces (appendix C): 6ba7b8XX-9dad-11d1-80b4-00c04fd430c8.
fn namespace(last: u8) -> Value {
    Value::Uuid([
        0x6b, 0xa7, 0xb8, last, 0x9d, 0xad, 0x11, 0xd1, 0x80, 0xb4, 0x00, 0xc0, 0x4f, 0xd4, 0x30,
        0xc8,
    ])
}

/// `b` with the version nibble and the RFC 4122 variant bits set.
fn versioned(mut b: [u8; 16], version: u8) -> [u8; 16] {
    b[6] = (b[6] & 0x0f) | (version << 4);
    b[8] = (b[8] & 0x3f) | 0x80;
    b
}

fn uuid_bytes(v: &Value) -> [u8; 16] {
    match v {
        Value::Uuid(b) => *b,
        _ => [0; 16],
    }
}

/// The namespace's bytes, then the name's.
fn named_input(a: &[Value]) -> PgResult<Vec<u8>> {
    let mut input = uuid_bytes(&a[0]).to_vec();
    input.extend_from_slice(txt(&a[1]).map(str::as_bytes).or_else(|_| bytes(&a[1]))?);
    Ok(input)
}

fn v3(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    use md5::Digest;
    let d = md5::Md5::digest(named_input(a)?);
    let mut b = [0u8; 16];
    b.copy_from_slice(&d[..16]);
    Ok(Value::Uuid(versioned(b, 3)))
}

fn v5(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    use sha1::Digest;
    let d = sha1::Sha1::digest(named_input(a)?);
    let mut b = [0u8; 16];
    b.copy_from_slice(&d[..16]);
    Ok(Value::Uuid(versioned(b, 5)))
}

/// This process's node id for version 1 (random, multicast bit set).
fn node() -> [u8; 6] {
    static NODE: OnceLock<[u8; 6]> = OnceLock::new();
    *NODE.get_or_init(|| {
        let mut n: [u8; 6] = rand::random();
        n[0] |= 0x01;
        n
    })
}

/// A version 1 UUID: 100 ns intervals since 1582-10-15, the clock sequence, `node`.
fn time_based(node: [u8; 6]) -> Value {
    // 100 ns intervals between 1582-10-15 and 1970-01-01.
    const GREGORIAN_OFFSET: u64 = 0x01b2_1dd2_1381_4000;
    static LAST: AtomicU64 = AtomicU64::new(0);
    static CLOCK_SEQ: OnceLock<u16> = OnceLock::new();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| (d.as_nanos() / 100) as u64)
        + GREGORIAN_OFFSET;
    // Strictly increasing within the process.
    let mut prev = LAST.load(Ordering::Relaxed);
    let ts = loop {
        let ts = now.max(prev + 1);
        match LAST.compare_exchange_weak(prev, ts, Ordering::Relaxed, Ordering::Relaxed) {
            Ok(_) => break ts,
            Err(p) => prev = p,
        }
    };
    let seq = *CLOCK_SEQ.get_or_init(|| rand::random::<u16>() & 0x3fff);
    let mut b = [0u8; 16];
    b[0..4].copy_from_slice(&((ts & 0xffff_ffff) as u32).to_be_bytes());
    b[4..6].copy_from_slice(&(((ts >> 32) & 0xffff) as u16).to_be_bytes());
    b[6..8].copy_from_slice(&(((ts >> 48) & 0x0fff) as u16 | 0x1000).to_be_bytes());
    b[8] = ((seq >> 8) as u8 & 0x3f) | 0x80;
    b[9] = seq as u8;
    b[10..16].copy_from_slice(&node);
    Value::Uuid(b)
}
