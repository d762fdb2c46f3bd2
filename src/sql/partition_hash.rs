//! The hash a row's key has under PARTITION BY HASH, computed as PostgreSQL 15 computes it, so
//! that a row lands in the partition it would land in there (pg_dump output and
//! `satisfies_hash_partition` agree): each non-NULL key value is hashed with its type's
//! extended hash function under PostgreSQL's fixed partition seed, and the hashes are combined
//! in key order. The hash functions are Bob Jenkins' lookup3 with a 64-bit seed
//! (`types::lookup3`), as PostgreSQL's `hash_bytes_extended` / `hash_bytes_uint32_extended`
//! use it.
//!
//! Types whose hashing is done here: integers, oid, bool, "char", text / varchar / name,
//! bpchar (trailing spaces ignored), bytea, date, time, timestamp(tz), float4 / float8 and
//! uuid. [`supported`] says which, and CREATE TABLE ... PARTITION BY HASH refuses a key of
//! another type (0A000) rather than place rows where PostgreSQL would not.

use crate::sql::types::lookup3::{hash_bytes, hash_u32};
use crate::sql::types::{Type, Value};

/// PostgreSQL's HASH_PARTITION_SEED.
const SEED: u64 = 0x7A5B_2236_7996_DCFD;

fn hash_i64(v: i64, seed: u64) -> u64 {
    // hashint8extended: the high half folded into the low one, so that equal values of int2,
    // int4 and int8 hash alike.
    let lo = v as u32;
    let hi = (v >> 32) as u32;
    hash_u32(if v >= 0 { lo ^ hi } else { lo ^ !hi }, seed)
}

fn hash_f64(v: f64, seed: u64) -> u64 {
    if v == 0.0 {
        return seed;
    }
    let v = if v.is_nan() { f64::NAN } else { v };
    hash_bytes(&v.to_ne_bytes(), seed)
}

/// Whether hash partitioning by a key of type `ty` is done as PostgreSQL does it.
pub fn supported(ty: Type) -> bool {
    matches!(
        ty,
        Type::INT2
            | Type::INT4
            | Type::INT8
            | Type::OID
            | Type::BOOL
            | Type::TEXT
            | Type::VARCHAR
            | Type::BPCHAR
            | Type::NAME
            | Type::BYTEA
            | Type::DATE
            | Type::TIME
            | Type::TIMESTAMP
            | Type::TIMESTAMPTZ
            | Type::FLOAT4
            | Type::FLOAT8
            | Type::UUID
    )
}

/// The extended hash of one non-NULL value of type `ty`.
fn hash_value(v: &Value, ty: Type, seed: u64) -> u64 {
    match v {
        Value::Int2(x) => hash_u32(i32::from(*x) as u32, seed),
        Value::Int4(x) | Value::Date(x) => hash_u32(*x as u32, seed),
        Value::Int8(x) | Value::Time(x) | Value::Timestamp(x) | Value::TimestampTz(x) => {
            hash_i64(*x, seed)
        }
        Value::Oid(x) => hash_u32(*x, seed),
        Value::Bool(x) => hash_u32(u32::from(*x), seed),
        Value::Float4(x) => hash_f64(f64::from(*x), seed),
        Value::Float8(x) => hash_f64(*x, seed),
        Value::Text(s) if ty == Type::BPCHAR => {
            hash_bytes(s.trim_end_matches(' ').as_bytes(), seed)
        }
        Value::Text(s) => hash_bytes(s.as_bytes(), seed),
        Value::Bytea(b) => hash_bytes(b, seed),
        Value::Uuid(u) => hash_bytes(u, seed),
        _ => 0,
    }
}

/// The row hash of a key (NULLs skipped), combined as PostgreSQL's hash_combine64.
pub fn row_hash(key: &[Value], types: &[(u32, i32)]) -> u64 {
    let mut h: u64 = 0;
    for (v, ty) in key.iter().zip(types) {
        if v.is_null() {
            continue;
        }
        let x = hash_value(v, Type(ty.0), SEED);
        h ^= x
            .wrapping_add(0x49a0_f4dd_15e5_a8e3)
            .wrapping_add(h << 54)
            .wrapping_add(h >> 7);
    }
    h
}
