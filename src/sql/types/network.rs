//! The `inet` and `cidr` types: IPv4/IPv6 addresses with a netmask length.
//!
//! Input accepts exactly what PostgreSQL's `inet_in`/`cidr_in` accept (its forms predate
//! `std::net`: `cidr` takes classful abbreviations such as `10` or `192.168.1` and hex `0x0a`,
//! `inet` requires four IPv4 octets unless a mask length is given, IPv6 takes an embedded dotted
//! quad). Output follows PostgreSQL's printers: `/32` (`/128`) is omitted for inet host
//! addresses, IPv6 is compressed at the longest run of zero words (two words at least), and
//! `abbrev(cidr)` prints only the network part. The binary form is PostgreSQL's: family
//! (2 = IPv4, 3 = IPv6), mask length, is_cidr flag, address length, address bytes.

use crate::error::{code, PgError, PgResult};
use std::cmp::Ordering;
use std::fmt::Write;

/// PostgreSQL's family codes (PGSQL_AF_INET / PGSQL_AF_INET6), as sent in binary.
pub const AF_INET: u8 = 2;
pub const AF_INET6: u8 = 3;

/// One inet or cidr value; IPv4 addresses use the first 4 bytes of `addr`, the rest are zero.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Inet {
    pub family: u8,
    pub bits: u8,
    pub addr: [u8; 16],
}

impl Inet {
    pub fn is_v6(&self) -> bool {
        self.family == AF_INET6
    }

    pub fn max_bits(&self) -> u8 {
        if self.is_v6() {
            128
        } else {
            32
        }
    }

    pub fn addr_len(&self) -> usize {
        if self.is_v6() {
            16
        } else {
            4
        }
    }

    pub fn bytes(&self) -> &[u8] {
        &self.addr[..self.addr_len()]
    }

    pub fn from_ip(ip: std::net::IpAddr) -> Inet {
        let mut addr = [0u8; 16];
        match ip {
            std::net::IpAddr::V4(a) => {
                addr[..4].copy_from_slice(&a.octets());
                Inet {
                    family: AF_INET,
                    bits: 32,
                    addr,
                }
            }
            std::net::IpAddr::V6(a) => {
                // A v4-mapped peer on a dual-stack socket is reported as IPv6, as PostgreSQL does.
                addr.copy_from_slice(&a.octets());
                Inet {
                    family: AF_INET6,
                    bits: 128,
                    addr,
                }
            }
        }
    }

    /// Whether any bit to the right of the mask is set (not a valid cidr).
    pub fn has_host_bits(&self) -> bool {
        self.bytes()
            .iter()
            .enumerate()
            .any(|(i, b)| b & !mask_byte(self.bits, i) != 0)
    }

    /// The address with the host part cleared (or set, for `broadcast`).
    fn with_host(&self, set: bool) -> Inet {
        let mut r = *self;
        for i in 0..self.addr_len() {
            let m = mask_byte(self.bits, i);
            r.addr[i] = if set { r.addr[i] | !m } else { r.addr[i] & m };
        }
        r
    }

    pub fn network(&self) -> Inet {
        self.with_host(false)
    }

    pub fn broadcast(&self) -> Inet {
        self.with_host(true)
    }

    /// The netmask (`hostmask` when `host` is set) as a host address.
    pub fn mask(&self, host: bool) -> Inet {
        let mut r = Inet {
            family: self.family,
            bits: self.max_bits(),
            addr: [0; 16],
        };
        for i in 0..self.addr_len() {
            let m = mask_byte(self.bits, i);
            r.addr[i] = if host { !m } else { m };
        }
        r
    }
}

/// The netmask byte at index `i` for a mask of `bits` bits.
fn mask_byte(bits: u8, i: usize) -> u8 {
    let start = i * 8;
    let bits = bits as usize;
    if bits >= start + 8 {
        0xff
    } else if bits <= start {
        0
    } else {
        0xffu8 << (8 - (bits - start))
    }
}

/// Compares the first `n` bits of two addresses.
fn bitncmp(a: &[u8], b: &[u8], n: usize) -> Ordering {
    let whole = n / 8;
    let c = a[..whole].cmp(&b[..whole]);
    if c != Ordering::Equal || n.is_multiple_of(8) {
        return c;
    }
    let m = 0xffu8 << (8 - n % 8);
    (a[whole] & m).cmp(&(b[whole] & m))
}

/// PostgreSQL's order: family, then the common network prefix, then mask length, then the
/// whole address.
pub fn compare(a: &Inet, b: &Inet) -> Ordering {
    if a.family != b.family {
        return a.family.cmp(&b.family);
    }
    let common = a.bits.min(b.bits) as usize;
    bitncmp(&a.addr, &b.addr, common)
        .then(a.bits.cmp(&b.bits))
        .then_with(|| bitncmp(&a.addr, &b.addr, a.max_bits() as usize))
}

/// `a << b` (strictly contained, `strict`) or `a <<= b`.
pub fn is_subnet(a: &Inet, b: &Inet, strict: bool) -> bool {
    a.family == b.family
        && (if strict {
            a.bits > b.bits
        } else {
            a.bits >= b.bits
        })
        && bitncmp(&a.addr, &b.addr, b.bits as usize) == Ordering::Equal
}

/// `a && b`: either contains the other.
pub fn overlaps(a: &Inet, b: &Inet) -> bool {
    a.family == b.family
        && bitncmp(&a.addr, &b.addr, a.bits.min(b.bits) as usize) == Ordering::Equal
}

// ---------------------------------------------------------------------------------------------
// Input
// ---------------------------------------------------------------------------------------------

/// Text input of inet (`cidr` false) or cidr.
pub fn parse(s: &str, cidr: bool) -> PgResult<Inet> {
    let tn = if cidr { "cidr" } else { "inet" };
    let bad = || {
        PgError::new(
            code::INVALID_TEXT_REPRESENTATION,
            format!("invalid input syntax for type {tn}: \"{s}\""),
        )
    };
    let mut addr = [0u8; 16];
    // Like PostgreSQL, a colon anywhere means IPv6.
    let (family, bits) = if s.contains(':') {
        (AF_INET6, parse_v6(s.as_bytes(), &mut addr).ok_or_else(bad)?)
    } else if cidr {
        (
            AF_INET,
            parse_v4_cidr(s.as_bytes(), &mut addr).ok_or_else(bad)?,
        )
    } else {
        (
            AF_INET,
            parse_v4_inet(s.as_bytes(), &mut addr).ok_or_else(bad)?,
        )
    };
    let v = Inet { family, bits, addr };
    if bits > v.max_bits() {
        return Err(bad());
    }
    if cidr && v.has_host_bits() {
        return Err(PgError::new(
            code::INVALID_TEXT_REPRESENTATION,
            format!("invalid cidr value: \"{s}\""),
        )
        .with_detail("Value has bits set to right of mask."));
    }
    Ok(v)
}

/// Reads decimal digits starting at `*i`; None if there are none or the value exceeds `max`.
fn read_decimal(b: &[u8], i: &mut usize, max: u32) -> Option<u32> {
    let start = *i;
    let mut v: u32 = 0;
    while *i < b.len() && b[*i].is_ascii_digit() {
        v = v * 10 + (b[*i] - b'0') as u32;
        if v > max {
            return None;
        }
        *i += 1;
    }
    (*i > start).then_some(v)
}

/// A `/bits` suffix for IPv4 (digits only, up to 32, nothing after it).
fn v4_suffix(b: &[u8], i: usize) -> Option<Option<u8>> {
    if i == b.len() {
        return Some(None);
    }
    if b[i] != b'/' || !b.get(i + 1).is_some_and(u8::is_ascii_digit) {
        return None;
    }
    let mut j = i + 1;
    // Large values are rejected either way; saturate instead of overflowing.
    let mut v: u32 = 0;
    while j < b.len() && b[j].is_ascii_digit() {
        v = (v * 10 + (b[j] - b'0') as u32).min(1000);
        j += 1;
    }
    if j != b.len() || v > 32 {
        return None;
    }
    Some(Some(v as u8))
}

/// inet IPv4: dotted decimal octets; fewer than four only with an explicit mask length that
/// does not reach past them.
fn parse_v4_inet(b: &[u8], dst: &mut [u8; 16]) -> Option<u8> {
    let mut n = 0;
    let mut i = 0;
    while i < b.len() && b[i].is_ascii_digit() {
        let v = read_decimal(b, &mut i, 255)?;
        if n == 4 {
            return None;
        }
        dst[n] = v as u8;
        n += 1;
        if i == b.len() || b[i] == b'/' {
            break;
        }
        if b[i] != b'.' {
            return None;
        }
        i += 1;
    }
    if n == 0 {
        return None;
    }
    let bits = match v4_suffix(b, i)? {
        Some(bits) => bits,
        None if n == 4 => 32,
        None => return None,
    };
    if bits as usize / 8 > n {
        return None;
    }
    Some(bits)
}

/// cidr IPv4: dotted decimal or `0x` hex, missing octets are zero, and without a mask length
/// the classful width (widened to the octets given).
fn parse_v4_cidr(b: &[u8], dst: &mut [u8; 16]) -> Option<u8> {
    let mut n = 0usize;
    let mut i;
    if b.len() >= 3 && b[0] == b'0' && (b[1] | 0x20) == b'x' && b[2].is_ascii_hexdigit() {
        i = 2;
        let mut nybbles = 0;
        while i < b.len() && b[i].is_ascii_hexdigit() {
            let d = (b[i] as char).to_digit(16)? as u8;
            if nybbles % 2 == 0 {
                if n == 4 {
                    return None;
                }
                dst[n] = d << 4;
                n += 1;
            } else {
                dst[n - 1] |= d;
            }
            nybbles += 1;
            i += 1;
        }
    } else if b.first().is_some_and(u8::is_ascii_digit) {
        i = 0;
        loop {
            let v = read_decimal(b, &mut i, 255)?;
            if n == 4 {
                return None;
            }
            dst[n] = v as u8;
            n += 1;
            if i == b.len() || b[i] == b'/' {
                break;
            }
            if b[i] != b'.' || !b.get(i + 1).is_some_and(u8::is_ascii_digit) {
                return None;
            }
            i += 1;
        }
    } else {
        return None;
    }
    let bits = match v4_suffix(b, i)? {
        Some(bits) => bits,
        None => {
            let first = dst[0];
            let mut bits = match first {
                240.. => 32,
                224.. => 8,
                192.. => 24,
                128.. => 16,
                _ => 8,
            };
            bits = bits.max(n as u8 * 8);
            // A bare class D network is 224/4.
            if bits == 8 && first == 224 {
                bits = 4;
            }
            bits
        }
    };
    Some(bits)
}

/// `/bits` after an IPv6 address: up to 128, no leading zeros.
fn v6_bits(b: &[u8]) -> Option<u8> {
    if b.is_empty() || (b.len() > 1 && b[0] == b'0') || !b.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let mut v: u32 = 0;
    for &c in b {
        v = v * 10 + (c - b'0') as u32;
        if v > 128 {
            return None;
        }
    }
    Some(v as u8)
}

/// A dotted quad at the end of an IPv6 address: decimal octets without leading zeros, at most
/// four (fewer are accepted and leave the rest zero, as in PostgreSQL), an optional `/bits`.
/// Returns the mask length given, if any.
fn v6_embedded_v4(b: &[u8], dst: &mut [u8]) -> Option<Option<u8>> {
    let mut n = 0usize;
    let mut val: u32 = 0;
    let mut digits = 0;
    for (k, &ch) in b.iter().enumerate() {
        if ch.is_ascii_digit() {
            if digits > 0 && val == 0 {
                return None;
            }
            digits += 1;
            val = val * 10 + (ch - b'0') as u32;
            if val > 255 {
                return None;
            }
            continue;
        }
        if ch == b'.' || ch == b'/' {
            if n > 3 {
                return None;
            }
            dst[n] = val as u8;
            n += 1;
            if ch == b'/' {
                return v6_bits(&b[k + 1..]).map(Some);
            }
            val = 0;
            digits = 0;
            continue;
        }
        return None;
    }
    if digits == 0 || n > 3 {
        return None;
    }
    dst[n] = val as u8;
    Some(None)
}

/// IPv6: hex groups, one `::`, an optional trailing dotted quad, an optional `/bits`.
fn parse_v6(src: &[u8], dst: &mut [u8; 16]) -> Option<u8> {
    let mut tmp = [0u8; 16];
    let mut tp = 0usize;
    let mut colonp: Option<usize> = None;
    let mut i = 0;
    if src.first() == Some(&b':') {
        if src.get(1) != Some(&b':') {
            return None;
        }
        i = 1;
    }
    let mut curtok = i;
    let mut saw_xdigit = false;
    let mut val: u32 = 0;
    let mut digits = 0;
    let mut bits: Option<u8> = None;
    while i < src.len() {
        let ch = src[i];
        i += 1;
        if let Some(d) = (ch as char).to_digit(16) {
            val = (val << 4) | d;
            digits += 1;
            if digits > 4 {
                return None;
            }
            saw_xdigit = true;
            continue;
        }
        if ch == b':' {
            curtok = i;
            if !saw_xdigit {
                if colonp.is_some() {
                    return None;
                }
                colonp = Some(tp);
                continue;
            } else if i == src.len() {
                return None;
            }
            if tp + 2 > 16 {
                return None;
            }
            tmp[tp] = (val >> 8) as u8;
            tmp[tp + 1] = val as u8;
            tp += 2;
            saw_xdigit = false;
            digits = 0;
            val = 0;
            continue;
        }
        if ch == b'.' && tp + 4 <= 16 {
            if let Some(b) = v6_embedded_v4(&src[curtok..], &mut tmp[tp..tp + 4]) {
                bits = b;
                tp += 4;
                saw_xdigit = false;
                break;
            }
        }
        if ch == b'/' {
            if let Some(b) = v6_bits(&src[i..]) {
                bits = Some(b);
                break;
            }
        }
        return None;
    }
    if saw_xdigit {
        if tp + 2 > 16 {
            return None;
        }
        tmp[tp] = (val >> 8) as u8;
        tmp[tp + 1] = val as u8;
        tp += 2;
    }
    if let Some(c) = colonp {
        if tp == 16 {
            return None;
        }
        // Move what followed `::` to the end; the gap becomes zeros.
        let n = tp - c;
        let tail: Vec<u8> = tmp[c..tp].to_vec();
        for b in &mut tmp[c..] {
            *b = 0;
        }
        tmp[16 - n..].copy_from_slice(&tail);
        tp = 16;
    }
    if tp != 16 {
        return None;
    }
    *dst = tmp;
    Some(bits.unwrap_or(128))
}

// ---------------------------------------------------------------------------------------------
// Output
// ---------------------------------------------------------------------------------------------

/// The address with `/bits` unless it equals the full length (PostgreSQL's inet_net_ntop).
fn write_addr(v: &Inet, bits: u8, out: &mut String) {
    if v.is_v6() {
        write_v6(&v.addr, out);
    } else {
        let a = &v.addr;
        let _ = write!(out, "{}.{}.{}.{}", a[0], a[1], a[2], a[3]);
    }
    if bits != v.max_bits() {
        let _ = write!(out, "/{bits}");
    }
}

/// IPv6 text: the longest run (of at least two) zero words becomes `::`, the first on ties;
/// IPv4-compatible and IPv4-mapped addresses end in a dotted quad.
fn write_v6(a: &[u8; 16], out: &mut String) {
    let words: Vec<u16> = (0..8)
        .map(|i| u16::from_be_bytes([a[2 * i], a[2 * i + 1]]))
        .collect();
    let (mut best, mut cur): ((i32, i32), (i32, i32)) = ((-1, 0), (-1, 0));
    for (i, &w) in words.iter().enumerate() {
        if w == 0 {
            if cur.0 == -1 {
                cur = (i as i32, 1);
            } else {
                cur.1 += 1;
            }
        } else if cur.0 != -1 {
            if best.0 == -1 || cur.1 > best.1 {
                best = cur;
            }
            cur.0 = -1;
        }
    }
    if cur.0 != -1 && (best.0 == -1 || cur.1 > best.1) {
        best = cur;
    }
    if best.0 != -1 && best.1 < 2 {
        best.0 = -1;
    }
    for i in 0..8i32 {
        if best.0 != -1 && i >= best.0 && i < best.0 + best.1 {
            if i == best.0 {
                out.push(':');
            }
            continue;
        }
        if i != 0 {
            out.push(':');
        }
        if i == 6 && best.0 == 0 && (best.1 == 6 || (best.1 == 5 && words[5] == 0xffff)) {
            let _ = write!(out, "{}.{}.{}.{}", a[12], a[13], a[14], a[15]);
            return;
        }
        let _ = write!(out, "{:x}", words[i as usize]);
    }
    if best.0 != -1 && best.0 + best.1 == 8 {
        out.push(':');
    }
}

/// inet (`cidr` false) or cidr output.
pub fn format(v: &Inet, cidr: bool, out: &mut String) {
    write_addr(v, v.bits, out);
    if cidr && v.bits == v.max_bits() {
        let _ = write!(out, "/{}", v.bits);
    }
}

/// `host()`: the address alone.
pub fn host(v: &Inet) -> String {
    let mut s = String::new();
    write_addr(v, v.max_bits(), &mut s);
    s
}

/// `text()` and the cast to text: the address with its mask length, always.
pub fn show(v: &Inet) -> String {
    let mut s = host(v);
    let _ = write!(s, "/{}", v.bits);
    s
}

/// `abbrev(cidr)`: only the octets (IPv4) or words (IPv6) the mask covers.
pub fn abbrev_cidr(v: &Inet) -> String {
    let mut out = String::new();
    let bits = v.bits as usize;
    if !v.is_v6() {
        if bits == 0 {
            out.push('0');
        }
        let whole = bits / 8;
        let parts: Vec<String> = v.addr[..whole].iter().map(u8::to_string).collect();
        out.push_str(&parts.join("."));
        if !bits.is_multiple_of(8) {
            if !out.is_empty() {
                out.push('.');
            }
            let m = 0xffu8 << (8 - bits % 8);
            let _ = write!(out, "{}", v.addr[whole] & m);
        }
        let _ = write!(out, "/{bits}");
        return out;
    }
    if bits == 0 {
        out.push_str("::/0");
        return out;
    }
    let s = v.network().addr;
    let words = bits.div_ceil(16).max(2);
    let word = |p: usize| (s[2 * p] as u16) << 8 | s[2 * p + 1] as u16;
    // Longest run of zero words among those shown (the first on ties).
    let (mut zs, mut zl, mut ts, mut tl) = (0usize, 0usize, 0usize, 0usize);
    for p in 0..words {
        if word(p) == 0 {
            if tl == 0 {
                ts = p;
            }
            tl += 1;
        } else if tl > 0 && zl < tl {
            zs = ts;
            zl = tl;
            tl = 0;
        }
    }
    if tl > 0 && zl < tl {
        zs = ts;
        zl = tl;
    }
    let is_v4 = zl != words
        && zs == 0
        && (zl == 6
            || (zl == 5 && s[10] == 0xff && s[11] == 0xff)
            || (zl == 7 && s[14] != 0 && s[15] != 1));
    for p in 0..words {
        if zl != 0 && p >= zs && p < zs + zl {
            if p == zs {
                out.push(':');
            }
            if p == words - 1 {
                out.push(':');
            }
            continue;
        }
        if is_v4 && p > 5 {
            out.push(if p == 6 { ':' } else { '.' });
            let _ = write!(out, "{}", s[2 * p]);
            if p != 7 || bits > 120 {
                let _ = write!(out, ".{}", s[2 * p + 1]);
            }
        } else {
            if !out.is_empty() {
                out.push(':');
            }
            let _ = write!(out, "{:x}", word(p));
        }
    }
    let _ = write!(out, "/{bits}");
    out
}

// ---------------------------------------------------------------------------------------------
// Binary
// ---------------------------------------------------------------------------------------------

pub fn write_binary(v: &Inet, cidr: bool, out: &mut bytes::BytesMut) {
    use bytes::BufMut;
    out.put_u8(v.family);
    out.put_u8(v.bits);
    out.put_u8(cidr as u8);
    out.put_u8(v.addr_len() as u8);
    out.put_slice(v.bytes());
}

pub fn read_binary(b: &[u8], cidr: bool) -> PgResult<Inet> {
    let tn = if cidr { "cidr" } else { "inet" };
    let err = |m: String| PgError::new(code::INVALID_BINARY_REPRESENTATION, m);
    let short = || err("insufficient data left in message".into());
    if b.len() < 4 {
        return Err(short());
    }
    let family = b[0];
    if family != AF_INET && family != AF_INET6 {
        return Err(err(format!(
            "invalid address family in external \"{tn}\" value"
        )));
    }
    let mut v = Inet {
        family,
        bits: b[1],
        addr: [0; 16],
    };
    if v.bits > v.max_bits() {
        return Err(err(format!("invalid bits in external \"{tn}\" value")));
    }
    // b[2] is the sender's is_cidr flag; PostgreSQL ignores it.
    if b[3] as usize != v.addr_len() {
        return Err(err(format!("invalid length in external \"{tn}\" value")));
    }
    let n = v.addr_len();
    if b.len() < 4 + n {
        return Err(short());
    }
    if b.len() > 4 + n {
        return Err(err("incorrect binary data format".into()));
    }
    v.addr[..n].copy_from_slice(&b[4..4 + n]);
    if cidr && v.has_host_bits() {
        return Err(err("invalid external \"cidr\" value".into())
            .with_detail("Value has bits set to right of mask."));
    }
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inet(s: &str) -> String {
        let mut o = String::new();
        format(&parse(s, false).unwrap(), false, &mut o);
        o
    }

    fn cidr(s: &str) -> String {
        let mut o = String::new();
        format(&parse(s, true).unwrap(), true, &mut o);
        o
    }

    #[test]
    fn text_forms() {
        assert_eq!(inet("192.168.1.5"), "192.168.1.5");
        assert_eq!(inet("192.168.1.5/24"), "192.168.1.5/24");
        assert_eq!(inet("10/8"), "10.0.0.0/8");
        assert!(parse("10.1.2", false).is_err());
        assert_eq!(cidr("10"), "10.0.0.0/8");
        assert_eq!(cidr("192.168.1"), "192.168.1.0/24");
        assert_eq!(cidr("0x0a"), "10.0.0.0/8");
        assert!(parse("192.168.1.5/24", true).is_err());
        assert_eq!(inet("::1"), "::1");
        assert_eq!(inet("2001:db8:0:0:1:0:0:1"), "2001:db8::1:0:0:1");
        assert_eq!(inet("::ffff:1.2.3.4"), "::ffff:1.2.3.4");
        assert_eq!(inet("::1.2.3.4/120"), "::1.2.3.4/120");
        assert_eq!(cidr("::/0"), "::/0");
        assert!(parse("1::2::3", false).is_err());
        assert!(parse("::1/129", false).is_err());
        assert!(parse("1.2.3.4/33", false).is_err());
        assert!(parse("", false).is_err());
        assert!(parse(" 1.2.3.4", false).is_err());
    }

    #[test]
    fn functions() {
        let v = parse("192.168.1.5/24", false).unwrap();
        assert_eq!(host(&v), "192.168.1.5");
        assert_eq!(show(&v), "192.168.1.5/24");
        let mut o = String::new();
        format(&v.broadcast(), false, &mut o);
        assert_eq!(o, "192.168.1.255/24");
        assert_eq!(abbrev_cidr(&parse("10.1.0.0/16", true).unwrap()), "10.1/16");
        assert_eq!(
            compare(&parse("10.0.0.0/8", false).unwrap(), &v),
            Ordering::Less
        );
    }
}
