//! The types of the system columns: `tid` (a row version's place, the `ctid` column), `xid`
//! (a 32-bit transaction id: `xmin`, `xmax`) and `cid` (a command id: `cmin`, `cmax`).
//!
//! A tid is held as `Value::Int8`: the block number in bits 16..48 and the offset in the low
//! 16, so the order of the values is PostgreSQL's tid order (block, then offset) and the
//! comparison operators, min/max and sorting work on the value alone; the type says how it
//! prints. xid and cid are `Value::Oid` (unsigned 32-bit, printed in decimal).
//!
//! threadgres has no pages: a row version lives in a heap slot (`storage::RowId`) that never
//! moves. The slot maps to a (block, offset) pair as if each block held [`PER_BLOCK`] versions
//! (PostgreSQL's most tuples per 8 kB page): slot `n` is `(n / 291, n % 291 + 1)`, so a fresh
//! table's first rows are `(0,1)`, `(0,2)`, ... as in PostgreSQL, and a ctid read from a row
//! finds it again (`WHERE ctid = '(0,1)'`) until an UPDATE moves the row to another slot or a
//! vacuum reuses a dead one. Slots past 291 * 2^32 have no tid (no table gets near that).

use super::Value;
use crate::error::{PgError, PgResult};

/// Versions per block in the slot → tid mapping (PostgreSQL's MaxHeapTuplesPerPage).
pub const PER_BLOCK: u64 = 291;

/// A tid value from its block and offset.
pub fn value(block: u32, offset: u16) -> Value {
    Value::Int8(((block as i64) << 16) | offset as i64)
}

/// The block and offset a tid value holds.
pub fn of(v: &Value) -> Option<(u32, u16)> {
    match v {
        Value::Int8(i) => Some(((*i >> 16) as u32, *i as u16)),
        _ => None,
    }
}

/// The tid of heap slot `slot` (None past the last block number).
pub fn of_slot(slot: u64) -> Option<Value> {
    let block = u32::try_from(slot / PER_BLOCK).ok()?;
    Some(value(block, (slot % PER_BLOCK + 1) as u16))
}

/// The heap slot a tid names, if any (offset 0 and offsets past a block's last name none).
pub fn slot_of(v: &Value) -> Option<u64> {
    let (block, offset) = of(v)?;
    let offset = u64::from(offset);
    (1..=PER_BLOCK)
        .contains(&offset)
        .then(|| u64::from(block) * PER_BLOCK + offset - 1)
}

/// The text form `(block,offset)`.
pub fn format(v: &Value, out: &mut String) {
    use std::fmt::Write;
    let (b, o) = of(v).unwrap_or((0, 0));
    let _ = write!(out, "({b},{o})");
}

/// Parses PostgreSQL's text form as its tidin reads it: the numbers follow the first `(` and
/// the first `,`; the block is read as strtoul does (leading spaces and a sign allowed; a
/// negative block within 32 bits wraps, as PostgreSQL accepts `(-1,0)`) and must end at the
/// `,`; the offset as strtol does, ending at `)`, within 0..=65535. Anything after the `)` is
/// ignored.
pub fn parse(s: &str) -> PgResult<Value> {
    let bad = || PgError::invalid_text("tid", s);
    let b = s.as_bytes();
    let mut coords = [0usize; 2];
    let mut n = 0;
    for (i, &c) in b.iter().enumerate() {
        if n == 2 || c == b')' {
            break;
        }
        if c == b',' || (c == b'(' && n == 0) {
            coords[n] = i + 1;
            n += 1;
        }
    }
    if n < 2 {
        return Err(bad());
    }
    let (block, end) = c_integer(&b[coords[0]..]).ok_or_else(bad)?;
    if b.get(coords[0] + end) != Some(&b',') {
        return Err(bad());
    }
    // strtoul reads `-n` as 2^64 - n; PostgreSQL keeps what fits 32 bits either way.
    let block = if (0..=u32::MAX as i128).contains(&block) {
        block as u32
    } else if (i32::MIN as i128..0).contains(&block) {
        block as i32 as u32
    } else {
        return Err(bad());
    };
    let (offset, end) = c_integer(&b[coords[1]..]).ok_or_else(bad)?;
    if b.get(coords[1] + end) != Some(&b')') || !(0..=u16::MAX as i128).contains(&offset) {
        return Err(bad());
    }
    Ok(value(block, offset as u16))
}

/// A decimal integer as C's strtol reads one: leading white space, a sign, digits (none: 0,
/// ending where it began). Returns the value and where the number ended; None past 2^64.
fn c_integer(b: &[u8]) -> Option<(i128, usize)> {
    let (neg, mut i) = c_sign(b);
    let start = i;
    let mut v: i128 = 0;
    while let Some(d) = b.get(i).filter(|c| c.is_ascii_digit()) {
        v = v * 10 + i128::from(d - b'0');
        if v > u64::MAX as i128 {
            return None;
        }
        i += 1;
    }
    if i == start {
        return Some((0, 0));
    }
    Some((if neg { -v } else { v }, i))
}

/// Where a C number (strtol, strtoul) starts: past leading white space (C's isspace) and an
/// optional sign; whether the sign was `-`.
fn c_sign(b: &[u8]) -> (bool, usize) {
    let mut i = 0;
    while i < b.len() && matches!(b[i], b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c) {
        i += 1;
    }
    match b.get(i) {
        Some(b'-') => (true, i + 1),
        Some(b'+') => (false, i + 1),
        _ => (false, i),
    }
}

/// xid and cid input: PostgreSQL 15's xidin and cidin read the text with strtoul and check
/// nothing (`'abc'::xid` is 0, `'-1'::xid` is 4294967295); the value is kept modulo 2^32.
pub fn parse_xid(s: &str) -> Value {
    Value::Oid(strtoul(s) as u32)
}

/// xid8 input: strtoul as for xid, all 64 bits kept (held as `Value::Int8`, its bits the
/// unsigned id: it prints and compares unsigned).
pub fn parse_xid8(s: &str) -> Value {
    Value::Int8(strtoul(s) as i64)
}

/// C's strtoul with base 0 on a 64-bit machine, errors ignored as PostgreSQL 15's xidin does.
fn strtoul(s: &str) -> u64 {
    let b = s.as_bytes();
    let (neg, i) = c_sign(b);
    // strtoul with base 0: 0x... is hexadecimal, 0... octal.
    let (radix, digits) = match (b.get(i), b.get(i + 1)) {
        (Some(b'0'), Some(b'x' | b'X')) if b.get(i + 2).is_some_and(u8::is_ascii_hexdigit) => {
            (16, &b[i + 2..])
        }
        (Some(b'0'), _) => (8, &b[i..]),
        _ => (10, &b[i..]),
    };
    let mut v: u64 = 0;
    for &c in digits {
        let Some(d) = (c as char).to_digit(radix) else {
            break;
        };
        // Past 2^64 strtoul answers ULONG_MAX.
        v = v
            .checked_mul(radix as u64)
            .and_then(|x| x.checked_add(d as u64))
            .unwrap_or(u64::MAX);
    }
    if neg {
        v.wrapping_neg()
    } else {
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(s: &str) -> Result<String, String> {
        parse(s)
            .map(|v| {
                let mut o = String::new();
                format(&v, &mut o);
                o
            })
            .map_err(|e| e.message.clone())
    }

    #[test]
    fn tid_text_form_as_postgresql_reads_it() {
        assert_eq!(text("(0,1)").unwrap(), "(0,1)");
        assert_eq!(text("(-1,0)").unwrap(), "(4294967295,0)");
        assert_eq!(text("(4294967295,65535)").unwrap(), "(4294967295,65535)");
        assert_eq!(text(" ( 3, 4)x").unwrap(), "(3,4)");
        assert!(text("( 3 ,4)").is_err());
        assert_eq!(text("(,1)").unwrap(), "(0,1)");
        assert!(text("(4294967296,1)").is_err());
        assert!(text("(1,65536)").is_err());
        assert!(text("(0,-1)").is_err());
        assert!(text("(0)").is_err());
        assert!(text("0,1").is_err());
    }

    #[test]
    fn slots_map_to_tids_and_back() {
        for slot in [0, 1, 290, 291, 292, 1_000_000] {
            let v = of_slot(slot).unwrap();
            assert_eq!(slot_of(&v), Some(slot));
        }
        assert_eq!(of(&of_slot(0).unwrap()), Some((0, 1)));
        assert_eq!(of(&of_slot(291).unwrap()), Some((1, 1)));
        assert_eq!(slot_of(&value(0, 0)), None);
        assert_eq!(slot_of(&value(0, 292)), None);
        // Ordered as (block, offset).
        assert!(
            matches!((value(1, 0), value(0, 65535)), (Value::Int8(a), Value::Int8(b)) if a > b)
        );
    }

    #[test]
    fn xid_input_is_strtoul() {
        assert!(matches!(parse_xid("42"), Value::Oid(42)));
        assert!(matches!(parse_xid("-1"), Value::Oid(u32::MAX)));
        assert!(matches!(parse_xid("0x10"), Value::Oid(16)));
        assert!(matches!(parse_xid("010"), Value::Oid(8)));
        assert!(matches!(parse_xid("abc"), Value::Oid(0)));
        assert!(matches!(parse_xid("4294967296"), Value::Oid(0)));
        assert!(matches!(parse_xid8("-1"), Value::Int8(-1)));
        assert!(matches!(parse_xid8("0x10"), Value::Int8(16)));
    }
}
