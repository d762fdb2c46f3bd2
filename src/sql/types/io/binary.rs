//! The binary forms of values (the protocol's format code 1): output for DataRow and COPY
//! BINARY, input for Bind parameters and COPY FROM BINARY, as PostgreSQL's send/receive
//! functions define them. Counts a client sends never size an allocation beyond the bytes that
//! carry them.

use super::*;
// ---------------------------------------------------------------------------------------------
// Binary output
// ---------------------------------------------------------------------------------------------

fn wrong_value(ty: Type) -> PgError {
    PgError::internal(format!("value does not match type {}", ty.name()))
}

/// Appends PostgreSQL's binary (send) format of `v` as type `ty`.
pub fn write_binary(v: &Value, ty: Type, out: &mut BytesMut) -> PgResult<()> {
    crate::stack::check()?;
    if matches!(ty, Type::ACLITEM | Type::ACLITEM_ARRAY) {
        // aclitem has no send function in PostgreSQL.
        return Err(PgError::new(
            "42883",
            "no binary output function available for type aclitem",
        ));
    }
    match (v, ty) {
        (Value::Null, _) => return Err(PgError::internal("binary output of NULL")),
        (Value::Void, _) => {}
        (Value::Bool(b), _) => out.put_u8(*b as u8),
        (Value::Int2(i), Type::INT4) => out.put_i32(*i as i32),
        (Value::Int2(i), Type::INT8) => out.put_i64(*i as i64),
        (Value::Int2(i), _) => out.put_i16(*i),
        (Value::Int4(i), Type::INT8) => out.put_i64(*i as i64),
        (Value::Int4(i), Type::INT2) => out.put_i16(*i as i16),
        (
            Value::Int4(i),
            Type::OID
            | Type::REGTYPE
            | Type::REGCLASS
            | Type::REGNAMESPACE
            | Type::REGROLE
            | Type::REGPROCEDURE,
        ) => out.put_u32(*i as u32),
        (Value::Int4(i), _) => out.put_i32(*i),
        (Value::Int8(i), Type::INT4) => out.put_i32(*i as i32),
        (v @ Value::Int8(_), Type::PG_LSN) => out.put_u64(super::super::lsn::of(v).unwrap_or(0)),
        (v @ Value::Int8(_), Type::TID) => {
            let (block, offset) = super::super::tid::of(v).unwrap_or((0, 0));
            out.put_u32(block);
            out.put_u16(offset);
        }
        (Value::Int8(i), _) => out.put_i64(*i),
        (Value::Float4(f), Type::FLOAT8) => out.put_f64(*f as f64),
        (Value::Float4(f), _) => out.put_f32(*f),
        (Value::Float8(f), Type::FLOAT4) => out.put_f32(*f as f32),
        (Value::Float8(f), _) => out.put_f64(*f),
        (Value::Numeric(n), _) => write_numeric_binary(n, out),
        (Value::Text(s), Type::CHAR) => out.put_u8(s.as_bytes().first().copied().unwrap_or(0)),
        (Value::Text(s), Type::REGTYPE) => out.put_u32(parse_regtype(s)?.0),
        (Value::Text(s), Type::REGCLASS) => out.put_u32(regclass_oid(s).unwrap_or(0)),
        (Value::Text(s), Type::REGROLE) => {
            out.put_u32(crate::sql::catalog::fixed::role_oid(s).unwrap_or(0))
        }
        (Value::Text(s), Type::JSONB) => {
            out.put_u8(1);
            out.put_slice(s.as_bytes());
        }
        // hstore_send: the pair count, then each key and value with its length (-1: NULL).
        (Value::Text(s), t) if t.is_hstore() => {
            let pairs = crate::sql::types::hstore::pairs_of(s)?;
            out.put_i32(pairs.len() as i32);
            for (k, v) in &pairs {
                out.put_i32(k.len() as i32);
                out.put_slice(k.as_bytes());
                match v {
                    Some(v) => {
                        out.put_i32(v.len() as i32);
                        out.put_slice(v.as_bytes());
                    }
                    None => out.put_i32(-1),
                }
            }
        }
        // citext_send: its text, as it was written.
        (Value::Text(s) | Value::CiText(s), _) => out.put_slice(s.as_bytes()),
        (Value::Bytea(b), _) => out.put_slice(b),
        (Value::Date(d), _) => out.put_i32(*d),
        (Value::Time(t), _) => out.put_i64(*t),
        (Value::TimeTz(t, z), _) => {
            out.put_i64(*t);
            out.put_i32(*z);
        }
        (Value::Inet(v), _) => crate::sql::types::network::write_binary(v, ty == Type::CIDR, out),
        (Value::Timestamp(t), _) | (Value::TimestampTz(t), _) => out.put_i64(*t),
        (Value::Interval(iv), _) => {
            out.put_i64(iv.micros);
            out.put_i32(iv.days);
            out.put_i32(iv.months);
        }
        (Value::Oid(o), _) => out.put_u32(*o),
        (Value::Uuid(u), _) => out.put_slice(u),
        // An enum's binary form is its label's text (enum_send).
        (Value::Enum(o), _) => {
            let mut label = String::new();
            super::write_text(&Value::Enum(*o), ty, &FormatCtx::default(), &mut label);
            out.put_slice(label.as_bytes());
        }
        (Value::Array(a), _) => {
            let elem = ty.elem().unwrap_or(a.elem);
            // int2vector and oidvector always send their one dimension, even empty.
            let vector = matches!(ty.0, 22 | 30);
            let ndim = if a.items.is_empty() && !vector {
                0
            } else {
                a.dims.len()
            };
            out.put_i32(ndim as i32);
            out.put_i32(a.items.iter().any(Value::is_null) as i32);
            out.put_u32(elem.0);
            if ndim > 0 {
                for &(len, lb) in &a.dims {
                    out.put_i32(len);
                    out.put_i32(lb);
                }
            }
            for it in &a.items {
                write_binary_field(it, elem, out)?;
            }
        }
        (Value::Record(fields), _) => {
            super::record::write_record_binary(fields, ty, out, write_binary_field)?
        }
        (Value::Range(r), _) => super::write_range_binary(r, ty, out)?,
        (Value::Multirange(m), _) => super::write_multirange_binary(m, ty, out)?,
    }
    let _ = wrong_value;
    Ok(())
}

/// A length-prefixed field (-1 for NULL), as inside arrays and records.
fn write_binary_field(v: &Value, ty: Type, out: &mut BytesMut) -> PgResult<()> {
    if v.is_null() {
        out.put_i32(-1);
        return Ok(());
    }
    let at = out.len();
    out.put_i32(0);
    write_binary(v, ty, out)?;
    let len = (out.len() - at - 4) as i32;
    out[at..at + 4].copy_from_slice(&len.to_be_bytes());
    Ok(())
}

const NUMERIC_POS: u16 = 0x0000;
const NUMERIC_NEG: u16 = 0x4000;
const NUMERIC_NAN: u16 = 0xC000;
const NUMERIC_PINF: u16 = 0xD000;
const NUMERIC_NINF: u16 = 0xF000;

/// numeric_send: ndigits, weight, sign, dscale, then base-10000 digits.
fn write_numeric_binary(n: &Numeric, out: &mut BytesMut) {
    let Some((m, scale)) = n.parts() else {
        let sign = if n.is_nan() {
            NUMERIC_NAN
        } else if n.is_negative() {
            NUMERIC_NINF
        } else {
            NUMERIC_PINF
        };
        out.put_i16(0);
        out.put_i16(0);
        out.put_u16(sign);
        // PostgreSQL sends a display scale of 32 for the infinities (an artifact of its
        // packed header), 0 for NaN.
        out.put_u16(if n.is_nan() { 0 } else { 0x20 });
        return;
    };
    let neg = m.sign() == bigdecimal::num_bigint::Sign::Minus;
    let digits = m.magnitude().to_string();
    let scale = scale as usize;
    // Split into integer and fraction digit strings.
    let (ip, fp) = if digits.len() > scale {
        (
            digits[..digits.len() - scale].to_string(),
            digits[digits.len() - scale..].to_string(),
        )
    } else {
        (
            String::new(),
            format!("{}{}", "0".repeat(scale - digits.len()), digits),
        )
    };
    let ip = ip.trim_start_matches('0');
    // Pad the integer part on the left and the fraction on the right to multiples of 4.
    let ipad = (4 - ip.len() % 4) % 4;
    let ip = format!("{}{}", "0".repeat(ipad), ip);
    let fpad = (4 - fp.len() % 4) % 4;
    let fp = format!("{}{}", fp, "0".repeat(fpad));
    let mut groups: Vec<i16> = Vec::new();
    for c in ip.as_bytes().chunks(4) {
        groups.push(std::str::from_utf8(c).unwrap().parse().unwrap());
    }
    let int_groups = groups.len() as i32;
    for c in fp.as_bytes().chunks(4) {
        groups.push(std::str::from_utf8(c).unwrap().parse().unwrap());
    }
    let mut weight = int_groups - 1;
    // Strip leading and trailing zero groups.
    let mut start = 0;
    while start < groups.len() && groups[start] == 0 {
        start += 1;
        weight -= 1;
    }
    let mut end = groups.len();
    while end > start && groups[end - 1] == 0 {
        end -= 1;
    }
    let groups = &groups[start..end];
    if groups.is_empty() {
        weight = 0;
    }
    out.put_i16(groups.len() as i16);
    out.put_i16(weight as i16);
    out.put_u16(if neg && !groups.is_empty() {
        NUMERIC_NEG
    } else {
        NUMERIC_POS
    });
    out.put_u16(scale as u16);
    for g in groups {
        out.put_i16(*g);
    }
}

// ---------------------------------------------------------------------------------------------
// Binary input
// ---------------------------------------------------------------------------------------------

fn bad_binary() -> PgError {
    PgError::new(
        code::INVALID_BINARY_REPRESENTATION,
        "incorrect binary data format",
    )
}

fn insufficient() -> PgError {
    PgError::new(
        code::PROTOCOL_VIOLATION,
        "insufficient data left in message",
    )
}

struct Reader<'a> {
    b: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    /// Bytes not read yet: a count the client sends is never trusted for an allocation
    /// beyond what these bytes can hold.
    fn left(&self) -> usize {
        self.b.len() - self.pos
    }
    fn take(&mut self, n: usize) -> PgResult<&'a [u8]> {
        if self.b.len() - self.pos < n {
            return Err(insufficient());
        }
        let s = &self.b[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }
    fn i16(&mut self) -> PgResult<i16> {
        Ok(i16::from_be_bytes(self.take(2)?.try_into().unwrap()))
    }
    fn i32(&mut self) -> PgResult<i32> {
        Ok(i32::from_be_bytes(self.take(4)?.try_into().unwrap()))
    }
    fn u32(&mut self) -> PgResult<u32> {
        Ok(u32::from_be_bytes(self.take(4)?.try_into().unwrap()))
    }
    fn i64(&mut self) -> PgResult<i64> {
        Ok(i64::from_be_bytes(self.take(8)?.try_into().unwrap()))
    }
    fn done(&self) -> PgResult<()> {
        if self.pos != self.b.len() {
            return Err(bad_binary());
        }
        Ok(())
    }
}

fn utf8(b: &[u8]) -> PgResult<String> {
    match std::str::from_utf8(b) {
        Ok(s) => {
            if s.contains('\0') {
                return Err(PgError::new(
                    code::CHARACTER_NOT_IN_REPERTOIRE,
                    "invalid byte sequence for encoding \"UTF8\": 0x00",
                ));
            }
            Ok(s.to_string())
        }
        Err(e) => {
            let at = e.valid_up_to();
            let bad: Vec<String> = b[at..]
                .iter()
                .take(e.error_len().unwrap_or(1).max(1))
                .map(|c| format!("0x{c:02x}"))
                .collect();
            Err(PgError::new(
                code::CHARACTER_NOT_IN_REPERTOIRE,
                format!(
                    "invalid byte sequence for encoding \"UTF8\": {}",
                    bad.join(" ")
                ),
            ))
        }
    }
}

/// hstore_recv: the pair count, then each key and value with its length (-1: a NULL value; a
/// NULL key is refused). The count is checked against the bytes left before anything is
/// allocated for it.
fn read_hstore_binary(r: &mut Reader) -> PgResult<Value> {
    use crate::sql::types::hstore;
    let n = r.i32()?;
    if n < 0 || n as usize > r.left() / 8 {
        return Err(PgError::new(
            code::PROGRAM_LIMIT_EXCEEDED,
            format!(
                "number of pairs ({n}) exceeds the maximum allowed ({})",
                0x3FFF_FFFF / 32
            ),
        ));
    }
    let mut pairs = Vec::with_capacity(n as usize);
    for _ in 0..n {
        let len = r.i32()?;
        if len < 0 {
            return Err(PgError::new(
                code::NULL_VALUE_NOT_ALLOWED,
                "null value not allowed for hstore key",
            ));
        }
        let key = utf8(r.take(len as usize)?)?;
        hstore::check_len(&key, true)?;
        let len = r.i32()?;
        let val = if len < 0 {
            None
        } else {
            let v = utf8(r.take(len as usize)?)?;
            hstore::check_len(&v, false)?;
            Some(v)
        };
        pairs.push((key, val));
    }
    Ok(Value::Text(hstore::to_text(&hstore::normalize(pairs))))
}

/// Decodes PostgreSQL's binary (receive) format of type `ty`.
pub fn from_binary(b: &[u8], ty: Type) -> PgResult<Value> {
    crate::stack::check()?;
    let mut r = Reader { b, pos: 0 };
    if let Some(elem) = ty.elem() {
        return read_array_binary(&mut r, elem);
    }
    let v = match ty {
        Type::BOOL => {
            let v = r.take(1)?[0];
            Value::Bool(v != 0)
        }
        Type::INT2 => Value::Int2(r.i16()?),
        Type::INT4 => Value::Int4(r.i32()?),
        Type::INT8 => Value::Int8(r.i64()?),
        Type::PG_LSN => super::super::lsn::value(r.i64()? as u64),
        Type::TID => {
            let block = r.u32()?;
            let offset = r.i16()? as u16;
            super::super::tid::value(block, offset)
        }
        Type::XID | Type::CID => Value::Oid(r.u32()?),
        Type::OID
        | Type::REGTYPE
        | Type::REGCLASS
        | Type::REGPROC
        | Type::REGNAMESPACE
        | Type::REGROLE
        | Type::REGPROCEDURE => Value::Oid(r.u32()?),
        Type::FLOAT4 => Value::Float4(f32::from_bits(r.u32()?)),
        Type::FLOAT8 => Value::Float8(f64::from_bits(r.i64()? as u64)),
        Type::NUMERIC => Value::Numeric(Box::new(read_numeric_binary(&mut r)?)),
        Type::BYTEA => {
            r.pos = b.len();
            Value::Bytea(b.to_vec())
        }
        Type::CHAR => {
            r.pos = b.len();
            Value::Text(
                b.first()
                    .map(|&c| (c as char).to_string())
                    .unwrap_or_default(),
            )
        }
        t if t.is_range() => return super::read_range_binary(b, t),
        t if t.is_multirange() => return super::read_multirange_binary(b, t),
        t if t.is_hstore() => read_hstore_binary(&mut r)?,
        // citext_recv: the text.
        t if t.is_citext() => {
            r.pos = b.len();
            Value::CiText(utf8(b)?)
        }
        // enum_recv: the label's text.
        t if t.is_enum() => {
            r.pos = b.len();
            super::enum_in(&utf8(b)?, t)?
        }
        Type::JSONB => {
            let ver = r.take(1)?[0];
            if ver != 1 {
                return Err(PgError::new(
                    code::INVALID_BINARY_REPRESENTATION,
                    format!("unsupported jsonb version number {ver}"),
                ));
            }
            r.pos = b.len();
            Value::Text(crate::sql::types::json::jsonb_in(&utf8(&b[1..])?)?)
        }
        Type::DATE => {
            let d = r.i32()?;
            if dt::is_finite_date(d) && !dt::date_in_range(d as i64) {
                return Err(dt::date_out_of_range());
            }
            Value::Date(d)
        }
        Type::TIME => {
            let t = r.i64()?;
            if !(0..=dt::USECS_PER_DAY).contains(&t) {
                return Err(PgError::new(
                    code::DATETIME_FIELD_OVERFLOW,
                    "time out of range",
                ));
            }
            Value::Time(t)
        }
        Type::TIMETZ => {
            let t = r.i64()?;
            let z = r.i32()?;
            if !(0..=dt::USECS_PER_DAY).contains(&t) {
                return Err(PgError::new(
                    code::DATETIME_FIELD_OVERFLOW,
                    "time out of range",
                ));
            }
            // PostgreSQL's TZDISP_LIMIT: 16 hours, exclusive.
            if z.abs() >= 16 * 3600 {
                return Err(PgError::new(
                    code::INVALID_TIME_ZONE_DISPLACEMENT_VALUE,
                    "time zone displacement out of range",
                ));
            }
            Value::TimeTz(t, z)
        }
        Type::INET | Type::CIDR => {
            r.pos = b.len();
            Value::Inet(crate::sql::types::network::read_binary(
                b,
                ty == Type::CIDR,
            )?)
        }
        Type::TIMESTAMP | Type::TIMESTAMPTZ => {
            let t = r.i64()?;
            if dt::is_finite_ts(t) && !dt::ts_in_range(t) {
                return Err(dt::ts_out_of_range());
            }
            if ty == Type::TIMESTAMP {
                Value::Timestamp(t)
            } else {
                Value::TimestampTz(t)
            }
        }
        Type::INTERVAL => {
            let micros = r.i64()?;
            let days = r.i32()?;
            let months = r.i32()?;
            Value::Interval(Interval {
                months,
                days,
                micros,
            })
        }
        Type::UUID => Value::Uuid(r.take(16)?.try_into().unwrap()),
        Type::POINT => crate::sql::types::geo::from_binary(r.take(16)?, 2, false)?,
        Type::LSEG => crate::sql::types::geo::from_binary(r.take(32)?, 4, false)?,
        Type::BOX => crate::sql::types::geo::from_binary(r.take(32)?, 4, true)?,
        Type::CIRCLE => crate::sql::types::geo::circle_from_binary(r.take(24)?)?,
        Type::VOID => Value::Void,
        t if t == Type::RECORD || t.is_composite() => {
            let n = r.i32()?;
            if n < 0 {
                return Err(bad_binary());
            }
            let declared = super::record::binary_field_types(t, n as usize)?;
            // Each field takes at least 8 bytes (type and length).
            let mut fields = Vec::with_capacity((n as usize).min(r.left() / 8));
            for k in 0..n as usize {
                let oid = r.u32()?;
                let len = r.i32()?;
                let fty = declared.as_ref().map_or(Type(oid), |d| d[k]);
                if len < 0 {
                    fields.push(Value::Null);
                } else {
                    let data = r.take(len as usize)?;
                    fields.push(from_binary(data, fty)?);
                }
            }
            Value::Record(fields)
        }
        _ => {
            r.pos = b.len();
            Value::Text(utf8(b)?)
        }
    };
    r.done()?;
    Ok(v)
}

fn read_numeric_binary(r: &mut Reader) -> PgResult<Numeric> {
    let ndigits = r.i16()?;
    let weight = r.i16()? as i64;
    let sign = r.i16()? as u16;
    let dscale = r.i16()? as u16;
    if ndigits < 0 {
        return Err(PgError::new(
            code::INVALID_BINARY_REPRESENTATION,
            "invalid length in external \"numeric\" value",
        ));
    }
    match sign {
        NUMERIC_POS | NUMERIC_NEG => {}
        NUMERIC_NAN => return Ok(Numeric::nan()),
        NUMERIC_PINF => return Ok(Numeric::infinity()),
        NUMERIC_NINF => return Ok(Numeric::neg_infinity()),
        _ => {
            return Err(PgError::new(
                code::INVALID_BINARY_REPRESENTATION,
                "invalid sign in external \"numeric\" value",
            ))
        }
    }
    if dscale & 0xC000 != 0 {
        return Err(PgError::new(
            code::INVALID_BINARY_REPRESENTATION,
            "invalid scale in external \"numeric\" value",
        ));
    }
    use bigdecimal::num_bigint::BigInt;
    let mut m = BigInt::from(0);
    for _ in 0..ndigits {
        let d = r.i16()?;
        if !(0..10000).contains(&d) {
            return Err(PgError::new(
                code::INVALID_BINARY_REPRESENTATION,
                "invalid digit in external \"numeric\" value",
            ));
        }
        m = m * 10000 + d;
    }
    // value = m * 10000^(weight - ndigits + 1)
    let exp4 = weight - ndigits as i64 + 1;
    let ten = BigInt::from(10);
    let n = if exp4 >= 0 {
        Numeric::from_parts(m * ten.pow((exp4 * 4) as u32), 0)
    } else {
        Numeric::from_parts(m, (-exp4 * 4) as u32)
    };
    let n = if sign == NUMERIC_NEG { n.neg() } else { n };
    // Round to the declared display scale (PostgreSQL trims/pads the same way).
    Ok(n.round(dscale as i64))
}

fn read_array_binary(r: &mut Reader, elem: Type) -> PgResult<Value> {
    let ndim = r.i32()?;
    let flags = r.i32()?;
    let elem_oid = r.u32()?;
    if !(0..=6).contains(&ndim) {
        return Err(PgError::new(
            code::INVALID_BINARY_REPRESENTATION,
            format!("invalid number of dimensions: {ndim}"),
        ));
    }
    if flags != 0 && flags != 1 {
        return Err(PgError::new(
            code::INVALID_BINARY_REPRESENTATION,
            "invalid array flags",
        ));
    }
    if elem_oid != elem.0 {
        return Err(PgError::new(
            code::DATATYPE_MISMATCH,
            format!(
                "binary data has array element type {} ({}) instead of expected {} ({})",
                elem_oid,
                regtype_name(elem_oid),
                elem.0,
                elem.name()
            ),
        ));
    }
    let mut dims = Vec::with_capacity(ndim as usize);
    let mut total: i64 = 1;
    for _ in 0..ndim {
        let len = r.i32()?;
        let lb = r.i32()?;
        if len < 0 {
            return Err(bad_binary());
        }
        total *= len as i64;
        dims.push((len, lb));
    }
    if ndim == 0 {
        total = 0;
    }
    if total > 100_000_000 {
        return Err(PgError::new(
            code::PROGRAM_LIMIT_EXCEEDED,
            "array size exceeds the maximum allowed",
        ));
    }
    // Each element takes at least its 4-byte length.
    let mut items = Vec::with_capacity((total as usize).min(r.left() / 4));
    for _ in 0..total {
        let len = r.i32()?;
        if len == -1 {
            items.push(Value::Null);
        } else if len < -1 {
            return Err(bad_binary());
        } else {
            let data = r.take(len as usize)?;
            items.push(from_binary(data, elem)?);
        }
    }
    r.done()?;
    if total == 0 {
        dims.clear();
    }
    Ok(Value::Array(Box::new(Array { elem, dims, items })))
}
