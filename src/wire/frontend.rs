//! Decoding of frontend (client → server) messages.

use bytes::{Buf, Bytes};

use super::{MAX_SMALL_MESSAGE_BYTES, PROTOCOL_V3};
use crate::error::{PgError, PgResult};

/// The first packet of a connection: it has no type byte.
#[derive(Debug, PartialEq, Eq)]
pub enum Startup {
    Ssl,
    GssEnc,
    Cancel {
        pid: i32,
        key: i32,
    },
    /// A StartupMessage of protocol 3.x; `minor` above 0 asks for a newer minor version,
    /// which the server answers with NegotiateProtocolVersion (it speaks 3.0).
    Startup {
        params: Vec<(String, String)>,
        minor: u16,
    },
}

/// Decoded regular messages, borrowed from the read buffer: decoding allocates only for the
/// parameter list of a Bind and the type list of a Parse, and the session advances past the
/// message once it has handled it.
#[derive(Debug, PartialEq, Eq)]
pub enum Message<'a> {
    Query(&'a str),
    Parse {
        name: &'a str,
        query: &'a str,
        param_types: Vec<u32>,
    },
    Bind {
        portal: &'a str,
        statement: &'a str,
        param_formats: Codes<'a>,
        params: Vec<Option<&'a [u8]>>,
        result_formats: Codes<'a>,
    },
    Describe {
        kind: u8,
        name: &'a str,
    },
    Execute {
        portal: &'a str,
        max_rows: i32,
    },
    Close {
        kind: u8,
        name: &'a str,
    },
    Sync,
    Flush,
    Terminate,
    CopyData(&'a [u8]),
    CopyDone,
    CopyFail(&'a str),
    /// 'p': password, SASLInitialResponse or SASLResponse; the auth exchange decodes it.
    Password(&'a [u8]),
    FunctionCall,
    /// A message with a valid frame but malformed contents. PostgreSQL reports these as an
    /// ERROR and the session continues. For Bind, the statement name if it could be read
    /// (PostgreSQL looks the statement up before reading the rest).
    Malformed {
        ty: u8,
        statement: Option<String>,
        error: PgError,
    },
}

/// A list of 16-bit format codes as they lie in a Bind message (big-endian, validated length).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Codes<'a>(&'a [u8]);

impl<'a> Codes<'a> {
    pub fn len(&self) -> usize {
        self.0.len() / 2
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The `i`-th code; panics when `i >= len()`, like a slice.
    pub fn get(&self, i: usize) -> i16 {
        i16::from_be_bytes([self.0[2 * i], self.0[2 * i + 1]])
    }

    pub fn iter(&self) -> impl Iterator<Item = i16> + 'a {
        self.0
            .chunks_exact(2)
            .map(|c| i16::from_be_bytes([c[0], c[1]]))
    }
}

/// A recoverable protocol error (ERROR 08P01): the frame was fine, its contents were not.
fn malformed(message: &str) -> PgError {
    PgError::new(crate::error::code::PROTOCOL_VIOLATION, message)
}

fn invalid_length() -> PgError {
    PgError::protocol_violation("invalid message length")
}

/// Checks whether `buf` starts with a whole startup packet (length-prefixed, no type byte);
/// returns its total length.
pub fn startup_frame(buf: &[u8], max: usize) -> PgResult<Option<usize>> {
    if buf.len() < 4 {
        return Ok(None);
    }
    let len = i32::from_be_bytes([buf[0], buf[1], buf[2], buf[3]]);
    // PostgreSQL's MAX_STARTUP_PACKET_LENGTH, checked from the length word before the rest is
    // read.
    if len < 8 || len as usize > max.min(10_000) {
        return Err(PgError::protocol_violation(
            "invalid length of startup packet",
        ));
    }
    let len = len as usize;
    Ok((buf.len() >= len).then_some(len))
}

pub fn decode_startup(packet: Bytes) -> PgResult<Startup> {
    // Anything wrong in the start-up packet ends the connection.
    decode_startup_inner(packet).map_err(|mut e| {
        e.severity = crate::error::Severity::Fatal;
        e
    })
}

fn decode_startup_inner(mut packet: Bytes) -> PgResult<Startup> {
    packet.advance(4);
    let code = packet.get_i32();
    match code {
        super::SSL_REQUEST_CODE => Ok(Startup::Ssl),
        super::GSSENC_REQUEST_CODE => Ok(Startup::GssEnc),
        super::CANCEL_REQUEST_CODE => {
            if packet.remaining() < 8 {
                return Err(invalid_length());
            }
            Ok(Startup::Cancel {
                pid: packet.get_i32(),
                key: packet.get_i32(),
            })
        }
        v if v >> 16 == PROTOCOL_V3 >> 16 => {
            let minor = (v & 0xffff) as u16;
            let mut params = Vec::new();
            let mut rest = &packet[..];
            loop {
                let name = get_cstr(&mut rest)?;
                if name.is_empty() {
                    break;
                }
                let value = get_cstr(&mut rest)?;
                params.push((name.to_string(), value.to_string()));
            }
            Ok(Startup::Startup { params, minor })
        }
        other => {
            let (major, minor) = (other >> 16, other & 0xffff);
            Err(PgError::fatal(
                crate::error::code::FEATURE_NOT_SUPPORTED,
                format!(
                    "unsupported frontend protocol {major}.{minor}: server supports 3.0 to 3.0"
                ),
            ))
        }
    }
}

/// Checks whether `buf` holds one whole typed message; returns its total length (type byte
/// included). Fails on a declared length that is impossible or above the limits.
pub fn frame(buf: &[u8], max: usize) -> PgResult<Option<usize>> {
    if buf.len() < 5 {
        return Ok(None);
    }
    let ty = buf[0];
    let len = i32::from_be_bytes([buf[1], buf[2], buf[3], buf[4]]);
    if len < 4 {
        return Err(invalid_length());
    }
    let len = len as usize;
    let limit = match ty {
        b'S' | b'H' | b'X' | b'c' | b'C' | b'D' | b'E' => MAX_SMALL_MESSAGE_BYTES,
        _ => max,
    };
    if len > limit {
        return Err(invalid_length());
    }
    Ok((buf.len() > len).then_some(len + 1))
}

/// Decodes one framed message (`frame` is exactly the length [`frame`] returned, type byte
/// included). Only an unknown message type is an error here (fatal); malformed contents become
/// [`Message::Malformed`].
pub fn decode(frame: &[u8]) -> PgResult<Message<'_>> {
    let ty = frame[0];
    let body = &frame[5..];
    match decode_body(ty, body) {
        Ok(m) => Ok(m),
        Err(e) if e.is_fatal() => Err(e),
        Err(error) => {
            let statement = if ty == b'B' {
                let mut b = body;
                get_cstr(&mut b)
                    .and_then(|_| get_cstr(&mut b))
                    .ok()
                    .map(str::to_string)
            } else {
                None
            };
            Ok(Message::Malformed {
                ty,
                statement,
                error,
            })
        }
    }
}

fn decode_body(ty: u8, mut msg: &[u8]) -> PgResult<Message<'_>> {
    let msg = &mut msg;
    let m = match ty {
        b'Q' => Message::Query(get_cstr(msg)?),
        b'P' => {
            let name = get_cstr(msg)?;
            let query = get_cstr(msg)?;
            let n = get_i16(msg)?;
            if n < 0 {
                return Err(invalid_length());
            }
            let mut param_types = Vec::with_capacity(n as usize);
            for _ in 0..n {
                param_types.push(get_i32(msg)? as u32);
            }
            Message::Parse {
                name,
                query,
                param_types,
            }
        }
        b'B' => {
            let portal = get_cstr(msg)?;
            let statement = get_cstr(msg)?;
            let param_formats = get_codes(msg)?;
            let np = get_count(msg)?;
            let mut params = Vec::with_capacity(np);
            for _ in 0..np {
                let len = get_i32(msg)?;
                if len == -1 {
                    params.push(None);
                } else if len < 0 || len as usize > msg.len() {
                    return Err(malformed("insufficient data left in message"));
                } else {
                    let (value, rest) = msg.split_at(len as usize);
                    *msg = rest;
                    params.push(Some(value));
                }
            }
            let result_formats = get_codes(msg)?;
            Message::Bind {
                portal,
                statement,
                param_formats,
                params,
                result_formats,
            }
        }
        b'D' => {
            let kind = get_u8(msg)?;
            let name = get_cstr(msg)?;
            Message::Describe { kind, name }
        }
        b'E' => {
            let portal = get_cstr(msg)?;
            let max_rows = get_i32(msg)?;
            Message::Execute { portal, max_rows }
        }
        b'C' => {
            let kind = get_u8(msg)?;
            let name = get_cstr(msg)?;
            Message::Close { kind, name }
        }
        b'S' => Message::Sync,
        b'H' => Message::Flush,
        b'X' => Message::Terminate,
        b'd' => return Ok(Message::CopyData(msg)),
        b'c' => Message::CopyDone,
        b'f' => Message::CopyFail(get_cstr(msg)?),
        b'p' => return Ok(Message::Password(msg)),
        b'F' => return Ok(Message::FunctionCall),
        other => {
            return Err(PgError::protocol_violation(format!(
                "invalid frontend message type {other}"
            )))
        }
    };
    if !msg.is_empty() {
        return Err(malformed("invalid message format"));
    }
    Ok(m)
}

/// Reads a NUL-terminated UTF-8 string and moves past it.
pub fn get_cstr<'a>(buf: &mut &'a [u8]) -> PgResult<&'a str> {
    let Some(end) = memchr::memchr(0, buf) else {
        return Err(malformed("invalid string in message"));
    };
    let s = &buf[..end];
    *buf = &buf[end + 1..];
    std::str::from_utf8(s).map_err(|e| crate::encoding::invalid_utf8(s, e.valid_up_to()))
}

fn take<const N: usize>(buf: &mut &[u8]) -> PgResult<[u8; N]> {
    if buf.len() < N {
        return Err(malformed("insufficient data left in message"));
    }
    let (head, rest) = buf.split_at(N);
    *buf = rest;
    Ok(head.try_into().expect("N bytes"))
}

fn get_u8(buf: &mut &[u8]) -> PgResult<u8> {
    take::<1>(buf).map(|b| b[0])
}

fn get_i16(buf: &mut &[u8]) -> PgResult<i16> {
    take::<2>(buf).map(i16::from_be_bytes)
}

pub fn get_i32(buf: &mut &[u8]) -> PgResult<i32> {
    take::<4>(buf).map(i32::from_be_bytes)
}

fn get_count(buf: &mut &[u8]) -> PgResult<usize> {
    let n = get_i16(buf)?;
    if n < 0 {
        return Err(malformed("invalid message format"));
    }
    Ok(n as usize)
}

/// A count followed by that many 16-bit format codes.
fn get_codes<'a>(buf: &mut &'a [u8]) -> PgResult<Codes<'a>> {
    let n = get_count(buf)?;
    if buf.len() < 2 * n {
        return Err(malformed("insufficient data left in message"));
    }
    let (codes, rest) = buf.split_at(2 * n);
    *buf = rest;
    Ok(Codes(codes))
}

#[cfg(test)]
mod tests {
    use super::*;
    use bytes::BytesMut;

    fn msg(ty: u8, body: &[u8]) -> BytesMut {
        let mut b = BytesMut::new();
        b.extend_from_slice(&[ty]);
        b.extend_from_slice(&((body.len() + 4) as i32).to_be_bytes());
        b.extend_from_slice(body);
        b
    }

    #[test]
    fn frames_only_whole_messages() {
        let m = msg(b'Q', b"select 1\0");
        for cut in 0..m.len() {
            assert_eq!(frame(&m[..cut], 1 << 20).unwrap(), None, "cut at {cut}");
        }
        assert_eq!(frame(&m, 1 << 20).unwrap(), Some(m.len()));
    }

    #[test]
    fn decodes_query() {
        let m = msg(b'Q', b"select 1\0");
        let n = frame(&m, 1 << 20).unwrap().unwrap();
        assert_eq!(n, m.len());
        assert_eq!(decode(&m[..n]).unwrap(), Message::Query("select 1"));
    }

    #[test]
    fn rejects_bad_lengths() {
        let mut m = BytesMut::from(&b"Q\0\0\0\x02"[..]);
        assert!(frame(&m, 1 << 20).is_err());
        m = msg(b'S', &[0u8; 20_000]);
        assert!(frame(&m, 1 << 20).is_err());
        m = msg(b'Q', &[b'a'; 2000]);
        assert!(frame(&m, 1000).is_err());
    }

    fn malformed_code(m: Message) -> (&'static str, bool) {
        match m {
            Message::Malformed { error, .. } => (error.code, error.is_fatal()),
            other => panic!("expected Malformed, got {other:?}"),
        }
    }

    #[test]
    fn rejects_unterminated_string_and_trailing_bytes() {
        let m = msg(b'Q', b"select 1");
        let n = frame(&m, 1 << 20).unwrap().unwrap();
        assert_eq!(malformed_code(decode(&m[..n]).unwrap()), ("08P01", false));
        let m = msg(b'E', b"\0\0\0\0\0extra");
        let n = frame(&m, 1 << 20).unwrap().unwrap();
        assert_eq!(malformed_code(decode(&m[..n]).unwrap()), ("08P01", false));
        // An unknown message type is fatal.
        let m = msg(b'!', b"");
        let n = frame(&m, 1 << 20).unwrap().unwrap();
        assert!(decode(&m[..n]).unwrap_err().is_fatal());
    }

    #[test]
    fn decodes_bind_with_null_and_truncation() {
        let mut body = Vec::new();
        body.extend_from_slice(b"p\0s\0");
        body.extend_from_slice(&1i16.to_be_bytes());
        body.extend_from_slice(&1i16.to_be_bytes());
        body.extend_from_slice(&2i16.to_be_bytes());
        body.extend_from_slice(&(-1i32).to_be_bytes());
        body.extend_from_slice(&4i32.to_be_bytes());
        body.extend_from_slice(&7i32.to_be_bytes());
        body.extend_from_slice(&0i16.to_be_bytes());
        let m = msg(b'B', &body);
        let n = frame(&m, 1 << 20).unwrap().unwrap();
        match decode(&m[..n]).unwrap() {
            Message::Bind { params, .. } => {
                assert_eq!(params[0], None);
                assert_eq!(params[1], Some(&7i32.to_be_bytes()[..]));
            }
            other => panic!("{other:?}"),
        }
        // Parameter length pointing past the end of the message.
        let mut bad = body.clone();
        bad.truncate(body.len() - 6);
        let m = msg(b'B', &bad);
        let n = frame(&m, 1 << 20).unwrap().unwrap();
        match decode(&m[..n]).unwrap() {
            Message::Malformed {
                ty: b'B',
                statement,
                error,
            } => {
                assert_eq!(statement.as_deref(), Some("s"));
                assert_eq!(error.code, "08P01");
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn decodes_startup_variants() {
        let mut p = Vec::new();
        p.extend_from_slice(&0i32.to_be_bytes());
        p.extend_from_slice(&PROTOCOL_V3.to_be_bytes());
        p.extend_from_slice(b"user\0bob\0database\0db\0\0");
        let len = p.len() as i32;
        p[..4].copy_from_slice(&len.to_be_bytes());
        assert_eq!(startup_frame(&p, 1 << 20).unwrap(), Some(p.len()));
        match decode_startup(Bytes::from(p)).unwrap() {
            Startup::Startup { params, minor } => {
                assert_eq!(params.len(), 2);
                assert_eq!(minor, 0);
            }
            other => panic!("{other:?}"),
        }
        let mut ssl = Vec::new();
        ssl.extend_from_slice(&8i32.to_be_bytes());
        ssl.extend_from_slice(&super::super::SSL_REQUEST_CODE.to_be_bytes());
        assert_eq!(decode_startup(Bytes::from(ssl)).unwrap(), Startup::Ssl);
    }
}
