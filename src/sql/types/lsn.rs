//! pg_lsn: a position in the write-ahead log, `XXXXXXXX/XXXXXXXX` (the high and low 32 bits in
//! hexadecimal). Held as `Value::Int8`, the unsigned position with its top bit flipped, so that
//! the signed order of the values is the unsigned order of the positions (comparisons, indexes
//! and min/max work on the value alone); the type says how it prints.

use super::numeric::Numeric;
use super::Value;
use crate::error::{code, PgError, PgResult};

/// Parses PostgreSQL's form: 1 to 8 hex digits, `/`, 1 to 8 hex digits, nothing around them.
pub fn parse(s: &str) -> PgResult<u64> {
    let bad = || PgError::invalid_text("pg_lsn", s);
    let (hi, lo) = s.split_once('/').ok_or_else(bad)?;
    let part = |p: &str| {
        if p.is_empty() || p.len() > 8 || !p.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(bad());
        }
        u64::from_str_radix(p, 16).map_err(|_| bad())
    };
    Ok((part(hi)? << 32) | part(lo)?)
}

/// The text form.
pub fn format(lsn: u64, out: &mut String) {
    use std::fmt::Write;
    let _ = write!(out, "{:X}/{:X}", lsn >> 32, lsn & 0xFFFF_FFFF);
}

/// A pg_lsn value.
pub fn value(lsn: u64) -> Value {
    Value::Int8((lsn ^ SIGN) as i64)
}

const SIGN: u64 = 1 << 63;

/// The position a pg_lsn value holds.
pub fn of(v: &Value) -> Option<u64> {
    match v {
        Value::Int8(i) => Some(*i as u64 ^ SIGN),
        _ => None,
    }
}

/// pg_lsn - pg_lsn: the distance in bytes (numeric, negative when `a` is before `b`).
pub fn diff(a: u64, b: u64) -> Value {
    Value::Numeric(Box::new(Numeric::from_i128(a as i128 - b as i128)))
}

/// pg_lsn ± numeric (rounded to a whole byte), with PostgreSQL's errors for NaN and for a
/// result outside 0 ..= 2^64 - 1.
pub fn shift(lsn: u64, by: &Numeric, add: bool) -> PgResult<Value> {
    if by.is_nan() {
        return Err(PgError::new(
            code::FEATURE_NOT_SUPPORTED,
            if add {
                "cannot add NaN to pg_lsn"
            } else {
                "cannot subtract NaN from pg_lsn"
            },
        ));
    }
    let base = Numeric::from_i128(lsn as i128);
    let r = if add { base.add(by)? } else { base.sub(by)? };
    let v = r
        .to_int_checked("pg_lsn", 0, u64::MAX as i128)
        .map_err(|_| PgError::new(code::INVALID_PARAMETER_VALUE, "pg_lsn out of range"))?;
    Ok(value(v as u64))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_form_round_trips_and_rejects_what_postgresql_rejects() {
        let mut s = String::new();
        format(parse("16/B374D848").unwrap(), &mut s);
        assert_eq!(s, "16/B374D848");
        assert_eq!(parse("ffffffff/ffffffff").unwrap(), u64::MAX);
        assert_eq!(parse("0/0").unwrap(), 0);
        for bad in [
            "x",
            " 1/2",
            "1/2 ",
            "100000000/0",
            "/1",
            "1/",
            "1//2",
            "g/1",
        ] {
            assert!(parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn values_order_as_positions() {
        let lo = value(parse("1/0").unwrap());
        let hi = value(parse("FFFFFFFF/FFFFFFFF").unwrap());
        assert!(matches!((&lo, &hi), (Value::Int8(a), Value::Int8(b)) if a < b));
        assert_eq!(of(&hi), Some(u64::MAX));
    }

    #[test]
    fn arithmetic_rounds_and_stays_in_range() {
        let n = |s: &str| Numeric::parse(s).unwrap();
        assert_eq!(
            of(&shift(0x1_0000_0002, &n("1.5"), true).unwrap()),
            Some(0x1_0000_0004)
        );
        assert!(shift(u64::MAX, &n("1"), true).is_err());
        assert!(shift(0, &n("1"), false).is_err());
        assert!(shift(0, &n("NaN"), false).is_err());
    }
}
