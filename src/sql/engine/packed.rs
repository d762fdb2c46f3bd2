//! Rows as the heap stores them: one allocation per row version, the values packed in bytes.
//!
//! A [`Value`] is a 32-byte enum and a text value a separate `String`, so a row kept as
//! `Box<[Value]>` costs one allocation for the slice plus one per text, bytea, numeric or array
//! value, and 32 bytes for a 4-byte integer. A [`PackedRow`] is a thin pointer (8 bytes in the
//! heap's slot) to `[varint body length][body]`, the body being the values one after another:
//! a tag byte ([`tag`]) and the value's bytes — fixed width, little-endian, for numbers, dates,
//! times, uuids; a varint length and the bytes for text and bytea; and a small self-describing
//! layout for numeric, interval, inet, arrays and records. Every `Value` round-trips exactly
//! (floats by their bits, numerics with their display scale; the tests check it with proptest).
//!
//! The format is self-describing (a tag per value), so storage needs no column types: a row
//! stays readable whatever ALTER TABLE did to its table's columns since it was written.
//!
//! Encoding and decoding happen only in the engine (`sql::engine`), the one door from SQL to
//! storage; the rest of the code sees rows as `Box<[Value]>` as before.

use std::ptr::NonNull;

use bigdecimal::num_bigint::BigInt;

use crate::sql::types::network::Inet;
use crate::sql::types::numeric::Numeric;
use crate::sql::types::{Array, Interval, Type, Value};

/// The tag byte of each value kind.
mod tag {
    pub const NULL: u8 = 0;
    pub const FALSE: u8 = 1;
    pub const TRUE: u8 = 2;
    pub const INT2: u8 = 3;
    pub const INT4: u8 = 4;
    pub const INT8: u8 = 5;
    pub const FLOAT4: u8 = 6;
    pub const FLOAT8: u8 = 7;
    pub const NUMERIC: u8 = 8;
    pub const TEXT: u8 = 9;
    pub const BYTEA: u8 = 10;
    pub const DATE: u8 = 11;
    pub const TIME: u8 = 12;
    pub const TIMETZ: u8 = 13;
    pub const TIMESTAMP: u8 = 14;
    pub const TIMESTAMPTZ: u8 = 15;
    pub const INTERVAL: u8 = 16;
    pub const OID: u8 = 17;
    pub const UUID: u8 = 18;
    pub const INET: u8 = 19;
    pub const ARRAY: u8 = 20;
    pub const RECORD: u8 = 21;
    pub const VOID: u8 = 22;
    /// Text ending in a run of [`super::SPACE_RUN_MIN`] or more spaces: the text before the
    /// run (length and bytes), then the run's length. bpchar values are padded to their
    /// declared length (pgbench's `filler char(84)` holds 84 spaces), and the run costs a
    /// varint instead of a byte each; decoding gives the same string back.
    pub const TEXT_SPACES: u8 = 23;
    /// An enum value: its pg_enum row's OID (4 bytes).
    pub const ENUM: u8 = 24;
    /// A range value: its flags byte, then its lower and upper bound values (NULL where it
    /// has none).
    pub const RANGE: u8 = 25;
    /// A multirange value: the number of ranges, then each as [`RANGE`]'s body (flags byte,
    /// lower and upper bound values).
    pub const MULTIRANGE: u8 = 26;
    /// A citext value (`types::citext`): length and bytes, as [`TEXT`].
    pub const CITEXT: u8 = 27;
}

/// The shortest run of trailing spaces a text value stores as a count.
const SPACE_RUN_MIN: usize = 8;
/// The longest run a stored row can hold: a value is at most 1 GB, as in PostgreSQL.
const MAX_SPACE_RUN: usize = 1 << 30;

/// Numeric kinds after a NUMERIC tag.
const NUM_FINITE: u8 = 0;
const NUM_NAN: u8 = 1;
const NUM_POS_INF: u8 = 2;
const NUM_NEG_INF: u8 = 3;

fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn varint_len(mut v: u64) -> usize {
    let mut n = 1;
    while v >= 0x80 {
        v >>= 7;
        n += 1;
    }
    n
}

fn put_bytes(out: &mut Vec<u8>, b: &[u8]) {
    put_varint(out, b.len() as u64);
    out.extend_from_slice(b);
}

/// Appends the packed form of `v` to `out`.
pub fn encode_value(v: &Value, out: &mut Vec<u8>) {
    match v {
        Value::Null => out.push(tag::NULL),
        Value::Bool(b) => out.push(if *b { tag::TRUE } else { tag::FALSE }),
        Value::Int2(i) => {
            out.push(tag::INT2);
            out.extend_from_slice(&i.to_le_bytes());
        }
        Value::Int4(i) => {
            out.push(tag::INT4);
            out.extend_from_slice(&i.to_le_bytes());
        }
        Value::Int8(i) => {
            out.push(tag::INT8);
            out.extend_from_slice(&i.to_le_bytes());
        }
        Value::Float4(f) => {
            out.push(tag::FLOAT4);
            out.extend_from_slice(&f.to_bits().to_le_bytes());
        }
        Value::Float8(f) => {
            out.push(tag::FLOAT8);
            out.extend_from_slice(&f.to_bits().to_le_bytes());
        }
        Value::Numeric(n) => {
            out.push(tag::NUMERIC);
            match n.parts() {
                Some((m, scale)) => {
                    out.push(NUM_FINITE);
                    put_varint(out, scale as u64);
                    put_bytes(out, &m.to_signed_bytes_le());
                }
                None if n.is_nan() => out.push(NUM_NAN),
                None if n.is_negative() => out.push(NUM_NEG_INF),
                None => out.push(NUM_POS_INF),
            }
        }
        Value::Text(s) => encode_text(s, 0, out),
        Value::CiText(s) => {
            out.push(tag::CITEXT);
            put_bytes(out, s.as_bytes());
        }
        Value::Bytea(b) => {
            out.push(tag::BYTEA);
            put_bytes(out, b);
        }
        Value::Date(d) => {
            out.push(tag::DATE);
            out.extend_from_slice(&d.to_le_bytes());
        }
        Value::Time(t) => {
            out.push(tag::TIME);
            out.extend_from_slice(&t.to_le_bytes());
        }
        Value::TimeTz(t, z) => {
            out.push(tag::TIMETZ);
            out.extend_from_slice(&t.to_le_bytes());
            out.extend_from_slice(&z.to_le_bytes());
        }
        Value::Timestamp(t) => {
            out.push(tag::TIMESTAMP);
            out.extend_from_slice(&t.to_le_bytes());
        }
        Value::TimestampTz(t) => {
            out.push(tag::TIMESTAMPTZ);
            out.extend_from_slice(&t.to_le_bytes());
        }
        Value::Interval(i) => {
            out.push(tag::INTERVAL);
            out.extend_from_slice(&i.months.to_le_bytes());
            out.extend_from_slice(&i.days.to_le_bytes());
            out.extend_from_slice(&i.micros.to_le_bytes());
        }
        Value::Oid(o) => {
            out.push(tag::OID);
            out.extend_from_slice(&o.to_le_bytes());
        }
        Value::Enum(o) => {
            out.push(tag::ENUM);
            out.extend_from_slice(&o.to_le_bytes());
        }
        Value::Uuid(u) => {
            out.push(tag::UUID);
            out.extend_from_slice(u);
        }
        Value::Inet(i) => {
            out.push(tag::INET);
            out.push(i.family);
            out.push(i.bits);
            out.extend_from_slice(&i.addr);
        }
        Value::Array(a) => {
            out.push(tag::ARRAY);
            out.extend_from_slice(&a.elem.0.to_le_bytes());
            put_varint(out, a.dims.len() as u64);
            for (len, lower) in &a.dims {
                out.extend_from_slice(&len.to_le_bytes());
                out.extend_from_slice(&lower.to_le_bytes());
            }
            put_varint(out, a.items.len() as u64);
            for v in &a.items {
                encode_value(v, out);
            }
        }
        Value::Record(vals) => {
            out.push(tag::RECORD);
            put_varint(out, vals.len() as u64);
            for v in vals {
                encode_value(v, out);
            }
        }
        Value::Void => out.push(tag::VOID),
        Value::Range(r) => {
            out.push(tag::RANGE);
            out.push(r.flags);
            encode_value(&r.lower, out);
            encode_value(&r.upper, out);
        }
        Value::Multirange(m) => {
            out.push(tag::MULTIRANGE);
            put_varint(out, m.ranges.len() as u64);
            for r in &m.ranges {
                out.push(r.flags);
                encode_value(&r.lower, out);
                encode_value(&r.upper, out);
            }
        }
    }
}

/// Appends the packed form of the text `s` followed by `pad` spaces (the same bytes as
/// `encode_value` gives that text, without building it).
fn encode_text(s: &str, pad: usize, out: &mut Vec<u8>) {
    let b = s.as_bytes();
    let trailing = b.iter().rev().take_while(|&&c| c == b' ').count();
    let run = trailing + pad;
    if run >= SPACE_RUN_MIN {
        out.push(tag::TEXT_SPACES);
        put_bytes(out, &b[..b.len() - trailing]);
        put_varint(out, run as u64);
    } else {
        out.push(tag::TEXT);
        put_varint(out, (b.len() + pad) as u64);
        out.extend_from_slice(b);
        out.resize(out.len() + pad, b' ');
    }
}

/// A row packed one value at a time into a buffer kept from row to row (COPY FROM's direct
/// path): text values go in without a `String` each, and `character(n)` padding without
/// being written out. [`finish`](Self::finish) gives the same row `PackedRow::encode` gives
/// the values.
#[derive(Clone, Default)]
pub struct RowPacker {
    body: Vec<u8>,
}

impl RowPacker {
    /// Starts a new row.
    pub fn clear(&mut self) {
        if self.body.capacity() > SCRATCH_KEEP {
            self.body = Vec::new();
        }
        self.body.clear();
    }

    pub fn push(&mut self, v: &Value) {
        encode_value(v, &mut self.body);
    }

    /// A text value: `s` followed by `pad` spaces.
    pub fn push_text(&mut self, s: &str, pad: usize) {
        encode_text(s, pad, &mut self.body);
    }

    /// The row packed so far.
    pub fn finish(&self) -> PackedRow {
        PackedRow::from_body(&self.body)
    }
}

/// A cursor over packed values. Every read checks the bounds: a malformed buffer (which only a
/// bug could make) yields `None`, never a panic.
struct Reader<'a> {
    b: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let end = self.pos.checked_add(n)?;
        let s = self.b.get(self.pos..end)?;
        self.pos = end;
        Some(s)
    }

    fn array<const N: usize>(&mut self) -> Option<[u8; N]> {
        self.take(N)?.try_into().ok()
    }

    fn u8(&mut self) -> Option<u8> {
        Some(self.array::<1>()?[0])
    }

    fn varint(&mut self) -> Option<u64> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.u8()?;
            v |= ((b & 0x7f) as u64) << shift;
            if b & 0x80 == 0 {
                return Some(v);
            }
        }
        None
    }

    fn len(&mut self) -> Option<usize> {
        usize::try_from(self.varint()?).ok()
    }

    fn bytes(&mut self) -> Option<&'a [u8]> {
        let n = self.len()?;
        self.take(n)
    }

    fn i32(&mut self) -> Option<i32> {
        Some(i32::from_le_bytes(self.array()?))
    }

    fn i64(&mut self) -> Option<i64> {
        Some(i64::from_le_bytes(self.array()?))
    }

    fn at_end(&self) -> bool {
        self.pos >= self.b.len()
    }

    /// Fixed payload size of a tag, or None for the variable-length kinds.
    fn fixed_size(t: u8) -> Option<usize> {
        Some(match t {
            tag::NULL | tag::FALSE | tag::TRUE | tag::VOID => 0,
            tag::INT2 => 2,
            tag::INT4 | tag::FLOAT4 | tag::DATE | tag::OID | tag::ENUM => 4,
            tag::INT8 | tag::FLOAT8 | tag::TIME | tag::TIMESTAMP | tag::TIMESTAMPTZ => 8,
            tag::TIMETZ => 12,
            tag::INTERVAL | tag::UUID => 16,
            tag::INET => 18,
            _ => return None,
        })
    }

    /// Steps over one value without building it.
    fn skip(&mut self) -> Option<()> {
        let t = self.u8()?;
        if let Some(n) = Self::fixed_size(t) {
            self.take(n)?;
            return Some(());
        }
        match t {
            tag::TEXT | tag::BYTEA | tag::CITEXT => {
                self.bytes()?;
            }
            tag::TEXT_SPACES => {
                self.bytes()?;
                self.varint()?;
            }
            tag::NUMERIC => {
                if self.u8()? == NUM_FINITE {
                    self.varint()?;
                    self.bytes()?;
                }
            }
            tag::ARRAY => {
                self.take(4)?;
                let dims = self.len()?;
                self.take(dims.checked_mul(8)?)?;
                for _ in 0..self.len()? {
                    self.skip()?;
                }
            }
            tag::RECORD => {
                for _ in 0..self.len()? {
                    self.skip()?;
                }
            }
            tag::RANGE => {
                self.u8()?;
                self.skip()?;
                self.skip()?;
            }
            _ => return None,
        }
        Some(())
    }

    fn value(&mut self) -> Option<Value> {
        Some(match self.u8()? {
            tag::NULL => Value::Null,
            tag::FALSE => Value::Bool(false),
            tag::TRUE => Value::Bool(true),
            tag::INT2 => Value::Int2(i16::from_le_bytes(self.array()?)),
            tag::INT4 => Value::Int4(self.i32()?),
            tag::INT8 => Value::Int8(self.i64()?),
            tag::FLOAT4 => Value::Float4(f32::from_bits(u32::from_le_bytes(self.array()?))),
            tag::FLOAT8 => Value::Float8(f64::from_bits(u64::from_le_bytes(self.array()?))),
            tag::NUMERIC => Value::Numeric(Box::new(match self.u8()? {
                NUM_FINITE => {
                    let scale = u32::try_from(self.varint()?).ok()?;
                    Numeric::from_parts(BigInt::from_signed_bytes_le(self.bytes()?), scale)
                }
                NUM_NAN => Numeric::nan(),
                NUM_POS_INF => Numeric::infinity(),
                NUM_NEG_INF => Numeric::neg_infinity(),
                _ => return None,
            })),
            // Written from a String, so valid UTF-8; checked anyway (it is cheap) rather than
            // trusted with unsafe code.
            tag::TEXT => Value::Text(std::str::from_utf8(self.bytes()?).ok()?.to_owned()),
            tag::CITEXT => Value::CiText(std::str::from_utf8(self.bytes()?).ok()?.to_owned()),
            tag::TEXT_SPACES => {
                let head = std::str::from_utf8(self.bytes()?).ok()?;
                let run = self.len()?;
                // A run longer than any value could be is a malformed row, not an allocation.
                if run > MAX_SPACE_RUN {
                    return None;
                }
                let mut s = String::with_capacity(head.len() + run);
                s.push_str(head);
                s.extend(std::iter::repeat_n(' ', run));
                Value::Text(s)
            }
            tag::BYTEA => Value::Bytea(self.bytes()?.to_vec()),
            tag::DATE => Value::Date(self.i32()?),
            tag::TIME => Value::Time(self.i64()?),
            tag::TIMETZ => Value::TimeTz(self.i64()?, self.i32()?),
            tag::TIMESTAMP => Value::Timestamp(self.i64()?),
            tag::TIMESTAMPTZ => Value::TimestampTz(self.i64()?),
            tag::INTERVAL => Value::Interval(Interval {
                months: self.i32()?,
                days: self.i32()?,
                micros: self.i64()?,
            }),
            tag::OID => Value::Oid(u32::from_le_bytes(self.array()?)),
            tag::UUID => Value::Uuid(self.array()?),
            tag::ENUM => Value::Enum(u32::from_le_bytes(self.array()?)),
            tag::RANGE => {
                let flags = self.u8()?;
                let lower = self.value()?;
                let upper = self.value()?;
                Value::Range(Box::new(crate::sql::types::Range {
                    lower,
                    upper,
                    flags,
                }))
            }
            tag::MULTIRANGE => {
                let n = self.len()?;
                // Each range takes at least three bytes: a bad count allocates no more.
                let mut ranges = Vec::with_capacity(n.min(self.b.len() / 3));
                for _ in 0..n {
                    let flags = self.u8()?;
                    let lower = self.value()?;
                    let upper = self.value()?;
                    ranges.push(crate::sql::types::Range {
                        lower,
                        upper,
                        flags,
                    });
                }
                Value::Multirange(Box::new(crate::sql::types::Multirange { ranges }))
            }
            tag::INET => Value::Inet(Inet {
                family: self.u8()?,
                bits: self.u8()?,
                addr: self.array()?,
            }),
            tag::ARRAY => {
                let elem = Type(u32::from_le_bytes(self.array()?));
                let n = self.len()?;
                // Capacities are bounded by the bytes left, so a corrupt count cannot make a
                // huge allocation.
                let mut dims = Vec::with_capacity(n.min(self.b.len()));
                for _ in 0..n {
                    dims.push((self.i32()?, self.i32()?));
                }
                let n = self.len()?;
                let mut items = Vec::with_capacity(n.min(self.b.len()));
                for _ in 0..n {
                    items.push(self.value()?);
                }
                Value::Array(Box::new(Array { elem, dims, items }))
            }
            tag::RECORD => {
                let n = self.len()?;
                let mut vals = Vec::with_capacity(n.min(self.b.len()));
                for _ in 0..n {
                    vals.push(self.value()?);
                }
                Value::Record(vals)
            }
            tag::VOID => Value::Void,
            _ => return None,
        })
    }
}

/// Capacity of the encoding buffer kept between rows, per thread: rows are packed into it and
/// then copied into an allocation of their exact size (one allocation per row); a buffer grown
/// past this by a big row is freed after that row.
const SCRATCH_KEEP: usize = 64 * 1024;

thread_local! {
    static SCRATCH: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// A row version's values, packed (see the module documentation). Immutable once made.
pub struct PackedRow(NonNull<u8>);

// SAFETY: a PackedRow owns its bytes exclusively (like a Box<[u8]>) and never changes them.
unsafe impl Send for PackedRow {}
unsafe impl Sync for PackedRow {}

impl PackedRow {
    /// Where its bytes start (for a prefetch hint; see `Heap::prefetch`).
    pub fn as_ptr(&self) -> *const u8 {
        self.0.as_ptr()
    }

    /// Packs `vals`.
    pub fn encode(vals: &[Value]) -> PackedRow {
        SCRATCH.with(|scratch| match scratch.try_borrow_mut() {
            Ok(mut body) => {
                body.clear();
                let row = Self::encode_with(vals, &mut body);
                if body.capacity() > SCRATCH_KEEP {
                    *body = Vec::new();
                }
                row
            }
            // Not reentered in practice (encoding calls nothing outside this module).
            Err(_) => Self::encode_with(vals, &mut Vec::new()),
        })
    }

    fn encode_with(vals: &[Value], body: &mut Vec<u8>) -> PackedRow {
        for v in vals {
            encode_value(v, body);
        }
        Self::from_body(body)
    }

    /// The row whose packed values are `body` (as [`PackedRow::body`] gave them).
    pub fn from_body(body: &[u8]) -> PackedRow {
        let mut all = Vec::with_capacity(varint_len(body.len() as u64) + body.len());
        put_varint(&mut all, body.len() as u64);
        all.extend_from_slice(body);
        // Capacity equals length, so this does not reallocate; never empty (the header is at
        // least one byte), so the pointer is a real allocation.
        let b: Box<[u8]> = all.into_boxed_slice();
        let p = Box::into_raw(b) as *mut u8;
        PackedRow(NonNull::new(p).expect("Box::into_raw is never null"))
    }

    /// The bytes the row's allocation holds (header and body).
    pub fn allocated(&self) -> usize {
        let (h, n) = self.sizes();
        h + n
    }

    /// The header's length and the body's.
    fn sizes(&self) -> (usize, usize) {
        let mut v = 0usize;
        let mut i = 0;
        loop {
            // SAFETY: byte i of the header exists: byte i-1 had its continuation bit set, and
            // `encode` wrote a complete varint at the start of the allocation.
            let b = unsafe { *self.0.as_ptr().add(i) };
            v |= ((b & 0x7f) as usize) << (7 * i);
            i += 1;
            if b & 0x80 == 0 {
                return (i, v);
            }
        }
    }

    /// The packed values.
    pub fn body(&self) -> &[u8] {
        let (h, n) = self.sizes();
        // SAFETY: the allocation is `h + n` bytes, initialized by `encode`, and lives as long
        // as `self`.
        unsafe { std::slice::from_raw_parts(self.0.as_ptr().add(h), n) }
    }

    /// Bytes this row's allocation holds (header and body).
    pub fn size(&self) -> usize {
        let (h, n) = self.sizes();
        h + n
    }

    /// Appends the row's values to `out`.
    pub fn decode_into(&self, out: &mut Vec<Value>) {
        let mut r = Reader {
            b: self.body(),
            pos: 0,
        };
        while !r.at_end() {
            match r.value() {
                Some(v) => out.push(v),
                None => {
                    debug_assert!(false, "malformed packed row");
                    return;
                }
            }
        }
    }

    /// How many values the row holds (a walk over the bytes, building nothing).
    pub fn count(&self) -> usize {
        let mut r = Reader {
            b: self.body(),
            pos: 0,
        };
        let mut n = 0;
        while !r.at_end() && r.skip().is_some() {
            n += 1;
        }
        n
    }

    /// The row's values in a vector with room for `spare` more (allocated once).
    pub fn decode_with_spare(&self, spare: usize) -> Vec<Value> {
        let mut out = Vec::with_capacity(self.count() + spare);
        self.decode_into(&mut out);
        out
    }

    /// The row's values.
    pub fn decode(&self) -> Vec<Value> {
        let mut out = Vec::new();
        self.decode_into(&mut out);
        out
    }

    /// The value of column `col`, the ones before it skipped without being built (NULL past
    /// the row's end): a one-column index key, with no allocation for a fixed-width value.
    pub fn column(&self, col: usize) -> Value {
        let mut r = Reader {
            b: self.body(),
            pos: 0,
        };
        for _ in 0..col {
            if r.at_end() {
                return Value::Null;
            }
            if r.skip().is_none() {
                debug_assert!(false, "malformed packed row");
                return Value::Null;
            }
        }
        if r.at_end() {
            return Value::Null;
        }
        r.value().unwrap_or_else(|| {
            debug_assert!(false, "malformed packed row");
            Value::Null
        })
    }

    /// Decodes the columns `want` marks into their places in `out` (as wide as `want`), the
    /// others skipped without being built, stopping after the last one wanted: what a scan's
    /// filter reads, before it decides whether the whole row is worth decoding. A column past
    /// the row's end reads as NULL.
    pub fn decode_marked(&self, want: &[bool], out: &mut [Value]) {
        let last = want.iter().rposition(|&w| w).map_or(0, |l| l + 1);
        let mut r = Reader {
            b: self.body(),
            pos: 0,
        };
        for c in 0..last {
            if r.at_end() {
                for (o, _) in out[c..last]
                    .iter_mut()
                    .zip(&want[c..last])
                    .filter(|(_, &w)| w)
                {
                    *o = Value::Null;
                }
                return;
            }
            if want[c] {
                out[c] = r.value().unwrap_or_else(|| {
                    debug_assert!(false, "malformed packed row");
                    Value::Null
                });
            } else if r.skip().is_none() {
                debug_assert!(false, "malformed packed row");
                return;
            }
        }
    }

    /// The values of columns `cols` (in that order), the others skipped without being built:
    /// an index key. A column past the row's end reads as NULL.
    pub fn columns(&self, cols: &[usize]) -> Vec<Value> {
        let mut out = vec![Value::Null; cols.len()];
        let want = cols.iter().copied().max().map_or(0, |m| m + 1);
        let mut r = Reader {
            b: self.body(),
            pos: 0,
        };
        for c in 0..want {
            if r.at_end() {
                break;
            }
            let ok = if cols.contains(&c) {
                r.value().map(|v| {
                    for (o, _) in out.iter_mut().zip(cols).filter(|(_, &k)| k == c) {
                        *o = v.clone();
                    }
                })
            } else {
                r.skip()
            };
            if ok.is_none() {
                debug_assert!(false, "malformed packed row");
                break;
            }
        }
        out
    }
}

impl Drop for PackedRow {
    fn drop(&mut self) {
        let len = self.size();
        // SAFETY: the pointer came from `Box::<[u8]>::into_raw` of exactly `len` bytes (the
        // header records the body's length) and is dropped once.
        unsafe {
            drop(Box::from_raw(std::ptr::slice_from_raw_parts_mut(
                self.0.as_ptr(),
                len,
            )));
        }
    }
}

impl Clone for PackedRow {
    fn clone(&self) -> Self {
        let len = self.size();
        // SAFETY: see `body`; the whole allocation is `len` initialized bytes.
        let all = unsafe { std::slice::from_raw_parts(self.0.as_ptr(), len) };
        let b: Box<[u8]> = all.into();
        PackedRow(NonNull::new(Box::into_raw(b) as *mut u8).expect("non-null"))
    }
}

impl std::fmt::Debug for PackedRow {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.decode()).finish()
    }
}

#[cfg(test)]
mod tests;
