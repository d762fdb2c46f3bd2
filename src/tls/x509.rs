//! The few fields of a client's X.509 certificate that pg_stat_ssl shows: serial number,
//! subject and issuer, read from its DER encoding (rustls hands certificates over as DER and
//! parses no more of them than verification needs).
//!
//! Names print as PostgreSQL prints them (`X509_NAME_to_cstring`): `/CN=alice/O=Example`,
//! each attribute by OpenSSL's short name (a dotted OID for the rare ones not listed here),
//! values in RFC 2253's escaping. The reader never panics on malformed input: it answers
//! `None`, and pg_stat_ssl then shows NULL.

/// One DER element: (tag, contents, rest of the input).
fn element(input: &[u8]) -> Option<(u8, &[u8], &[u8])> {
    let (&tag, rest) = input.split_first()?;
    let (&first, rest) = rest.split_first()?;
    let (len, rest) = if first < 0x80 {
        (first as usize, rest)
    } else {
        let n = (first & 0x7f) as usize;
        // At most 4 length bytes (a certificate is far below 4 GiB); no indefinite lengths.
        if n == 0 || n > 4 || rest.len() < n {
            return None;
        }
        let len = rest[..n].iter().fold(0usize, |a, &b| (a << 8) | b as usize);
        (len, &rest[n..])
    };
    if rest.len() < len {
        return None;
    }
    Some((tag, &rest[..len], &rest[len..]))
}

const SEQUENCE: u8 = 0x30;
const SET: u8 = 0x31;
const INTEGER: u8 = 0x02;
const OID: u8 = 0x06;

/// What pg_stat_ssl shows of a client certificate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fields {
    /// The serial number in decimal.
    pub serial: String,
    pub subject: String,
    pub issuer: String,
    /// The subject's first commonName, unescaped (PostgreSQL's `peer_cn`, which host rules
    /// with `clientcert=verify-full` compare with the user name); `None` without one.
    pub common_name: Option<String>,
}

/// Reads the serial number, issuer and subject of a DER certificate.
pub fn fields(der: &[u8]) -> Option<Fields> {
    let (tag, cert, _) = element(der)?;
    if tag != SEQUENCE {
        return None;
    }
    let (tag, tbs, _) = element(cert)?;
    if tag != SEQUENCE {
        return None;
    }
    let (mut tag, mut value, mut rest) = element(tbs)?;
    if tag == 0xa0 {
        // [0] EXPLICIT version
        (tag, value, rest) = element(rest)?;
    }
    if tag != INTEGER {
        return None;
    }
    let serial = bigdecimal::num_bigint::BigInt::from_signed_bytes_be(value).to_string();
    let (_, _signature, rest) = element(rest)?;
    let (tag, issuer, rest) = element(rest)?;
    if tag != SEQUENCE {
        return None;
    }
    let (_, _validity, rest) = element(rest)?;
    let (tag, subject, _) = element(rest)?;
    if tag != SEQUENCE {
        return None;
    }
    Some(Fields {
        serial,
        subject: name(subject)?,
        issuer: name(issuer)?,
        common_name: common_name(subject),
    })
}

/// The value of a Name's first commonName attribute (OID 2.5.4.3).
fn common_name(mut rdns: &[u8]) -> Option<String> {
    while !rdns.is_empty() {
        let (_, mut set, rest) = element(rdns)?;
        rdns = rest;
        while !set.is_empty() {
            let (_, atv, rest) = element(set)?;
            set = rest;
            let (tag, oid, rest) = element(atv)?;
            if tag == OID && oid == [0x55, 0x04, 0x03] {
                let (tag, value, _) = element(rest)?;
                return string_value(tag, value);
            }
        }
    }
    None
}

/// A Name (SEQUENCE OF SET OF AttributeTypeAndValue) as `/type=value...`.
fn name(mut rdns: &[u8]) -> Option<String> {
    let mut out = String::new();
    while !rdns.is_empty() {
        let (tag, mut set, rest) = element(rdns)?;
        if tag != SET {
            return None;
        }
        rdns = rest;
        while !set.is_empty() {
            let (tag, atv, rest) = element(set)?;
            if tag != SEQUENCE {
                return None;
            }
            set = rest;
            let (tag, oid, rest) = element(atv)?;
            if tag != OID {
                return None;
            }
            let (tag, value, _) = element(rest)?;
            out.push('/');
            out.push_str(&short_name(oid));
            out.push('=');
            escape_into(&mut out, &string_value(tag, value)?);
        }
    }
    Some(out)
}

/// The text of a directory string (UTF8String, PrintableString, IA5String, T61String,
/// BMPString, UniversalString).
fn string_value(tag: u8, v: &[u8]) -> Option<String> {
    match tag {
        // UTF8String, PrintableString, IA5String, VisibleString, NumericString
        0x0c | 0x13 | 0x16 | 0x1a | 0x12 => Some(String::from_utf8_lossy(v).into_owned()),
        // T61String: OpenSSL prints its bytes as Latin-1.
        0x14 => Some(v.iter().map(|&b| b as char).collect()),
        // BMPString: UTF-16BE.
        0x1e => {
            let units: Vec<u16> = v
                .chunks_exact(2)
                .map(|c| u16::from_be_bytes([c[0], c[1]]))
                .collect();
            Some(String::from_utf16_lossy(&units))
        }
        // UniversalString: UTF-32BE.
        0x1c => Some(
            v.chunks_exact(4)
                .map(|c| {
                    char::from_u32(u32::from_be_bytes([c[0], c[1], c[2], c[3]]))
                        .unwrap_or('\u{fffd}')
                })
                .collect(),
        ),
        _ => None,
    }
}

/// RFC 2253 escaping, as OpenSSL's ASN1_STRFLGS_RFC2253 (without ESC_MSB) does it.
fn escape_into(out: &mut String, s: &str) {
    let n = s.chars().count();
    for (i, c) in s.chars().enumerate() {
        let special = matches!(c, ',' | '+' | '"' | '\\' | '<' | '>' | ';')
            || (i == 0 && (c == '#' || c == ' '))
            || (i + 1 == n && c == ' ');
        if special {
            out.push('\\');
        }
        if (c as u32) < 0x20 || c as u32 == 0x7f {
            out.push_str(&format!("\\{:02X}", c as u32));
        } else {
            out.push(c);
        }
    }
}

/// OpenSSL's short name of an attribute type, or the dotted OID.
fn short_name(oid: &[u8]) -> String {
    const NAMES: &[(&[u8], &str)] = &[
        (&[0x55, 0x04, 0x03], "CN"),
        (&[0x55, 0x04, 0x04], "SN"),
        (&[0x55, 0x04, 0x05], "serialNumber"),
        (&[0x55, 0x04, 0x06], "C"),
        (&[0x55, 0x04, 0x07], "L"),
        (&[0x55, 0x04, 0x08], "ST"),
        (&[0x55, 0x04, 0x09], "street"),
        (&[0x55, 0x04, 0x0a], "O"),
        (&[0x55, 0x04, 0x0b], "OU"),
        (&[0x55, 0x04, 0x0c], "title"),
        (&[0x55, 0x04, 0x2a], "GN"),
        (&[0x55, 0x04, 0x2b], "initials"),
        (&[0x55, 0x04, 0x2e], "dnQualifier"),
        (&[0x55, 0x04, 0x41], "pseudonym"),
        (
            &[0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x09, 0x01],
            "emailAddress",
        ),
        (
            &[0x09, 0x92, 0x26, 0x89, 0x93, 0xf2, 0x2c, 0x64, 0x01, 0x19],
            "DC",
        ),
        (
            &[0x09, 0x92, 0x26, 0x89, 0x93, 0xf2, 0x2c, 0x64, 0x01, 0x01],
            "UID",
        ),
    ];
    if let Some((_, n)) = NAMES.iter().find(|(o, _)| *o == oid) {
        return n.to_string();
    }
    // Dotted form: the first byte holds two arcs, then base-128 arcs.
    let mut arcs: Vec<u64> = Vec::new();
    let mut acc: u64 = 0;
    for &b in oid {
        acc = (acc << 7) | u64::from(b & 0x7f);
        if b & 0x80 == 0 {
            if arcs.is_empty() {
                let first = acc.min(80) / 40;
                arcs.push(first);
                arcs.push(acc - first * 40);
            } else {
                arcs.push(acc);
            }
            acc = 0;
        }
    }
    arcs.iter()
        .map(u64::to_string)
        .collect::<Vec<_>>()
        .join(".")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_serial_subject_and_issuer_of_a_generated_certificate() {
        let mut params = rcgen::CertificateParams::new(vec!["x".to_string()]).unwrap();
        let mut dn = rcgen::DistinguishedName::new();
        dn.push(rcgen::DnType::CommonName, "alice, \"the\" user");
        dn.push(rcgen::DnType::OrganizationName, "Example");
        params.distinguished_name = dn;
        params.serial_number = Some(rcgen::SerialNumber::from_slice(&[0x01, 0x02, 0x03]));
        let key = rcgen::KeyPair::generate().unwrap();
        let cert = params.self_signed(&key).unwrap();
        let f = fields(cert.der()).unwrap();
        assert_eq!(f.serial, "66051");
        assert_eq!(f.subject, "/CN=alice\\, \\\"the\\\" user/O=Example");
        assert_eq!(f.common_name.as_deref(), Some("alice, \"the\" user"));
        assert_eq!(f.issuer, f.subject);
    }

    #[test]
    fn malformed_input_reads_as_nothing() {
        assert_eq!(fields(&[]), None);
        assert_eq!(fields(&[0x30, 0x84, 0xff, 0xff, 0xff, 0xff]), None);
        assert_eq!(fields(&[0x30, 0x03, 0x30, 0x01]), None);
        assert_eq!(short_name(&[0x2b, 0x06, 0x01]), "1.3.6.1");
    }
}
