//! Encoding of backend (server → client) messages into an output buffer.
//!
//! Each function appends one complete message. Lengths are patched in after the body is written,
//! so no message is built twice.

use bytes::{BufMut, BytesMut};

use crate::encoding::Client;
use crate::error::PgError;

/// Starts a message of type `ty`; returns the offset of its length field.
fn begin(out: &mut BytesMut, ty: u8) -> usize {
    out.put_u8(ty);
    let at = out.len();
    out.put_i32(0);
    at
}

fn finish(out: &mut BytesMut, at: usize) {
    let len = (out.len() - at) as i32;
    out[at..at + 4].copy_from_slice(&len.to_be_bytes());
}

fn put_cstr(out: &mut BytesMut, s: &str) {
    out.put_slice(s.as_bytes());
    out.put_u8(0);
}

/// A string in the client's encoding (`None`: UTF-8), NUL-terminated.
fn put_cstr_in(out: &mut BytesMut, s: &str, enc: Client) -> Result<(), PgError> {
    match enc {
        None => out.put_slice(s.as_bytes()),
        Some(c) => c.from_utf8(s, out)?,
    }
    out.put_u8(0);
    Ok(())
}

pub fn auth_ok(out: &mut BytesMut) {
    let at = begin(out, b'R');
    out.put_i32(0);
    finish(out, at);
}

pub fn auth_cleartext(out: &mut BytesMut) {
    let at = begin(out, b'R');
    out.put_i32(3);
    finish(out, at);
}

/// AuthenticationMD5Password with its 4-byte salt.
pub fn auth_md5(out: &mut BytesMut, salt: [u8; 4]) {
    let at = begin(out, b'R');
    out.put_i32(5);
    out.put_slice(&salt);
    finish(out, at);
}

pub fn auth_sasl(out: &mut BytesMut, mechanisms: &[&str]) {
    let at = begin(out, b'R');
    out.put_i32(10);
    for m in mechanisms {
        put_cstr(out, m);
    }
    out.put_u8(0);
    finish(out, at);
}

pub fn auth_sasl_continue(out: &mut BytesMut, data: &[u8]) {
    let at = begin(out, b'R');
    out.put_i32(11);
    out.put_slice(data);
    finish(out, at);
}

pub fn auth_sasl_final(out: &mut BytesMut, data: &[u8]) {
    let at = begin(out, b'R');
    out.put_i32(12);
    out.put_slice(data);
    finish(out, at);
}

/// NegotiateProtocolVersion: the newest version the server speaks and the protocol options
/// (`_pq_.*`) it did not recognize.
pub fn negotiate_protocol_version(out: &mut BytesMut, newest: i32, unrecognized: &[String]) {
    let at = begin(out, b'v');
    out.put_i32(newest);
    out.put_i32(unrecognized.len() as i32);
    for o in unrecognized {
        put_cstr(out, o);
    }
    finish(out, at);
}

pub fn parameter_status(out: &mut BytesMut, name: &str, value: &str) {
    parameter_status_in(out, name, value, None)
}

/// ParameterStatus in the client's encoding; characters it lacks become `?` (the values
/// PostgreSQL reports are ASCII; application_name is not checked here yet).
pub fn parameter_status_in(out: &mut BytesMut, name: &str, value: &str, enc: Client) {
    let at = begin(out, b'S');
    put_cstr(out, name);
    match enc {
        None => put_cstr(out, value),
        Some(c) => {
            c.from_utf8_lossy(value, out);
            out.put_u8(0);
        }
    }
    finish(out, at);
}

pub fn backend_key_data(out: &mut BytesMut, pid: i32, key: i32) {
    let at = begin(out, b'K');
    out.put_i32(pid);
    out.put_i32(key);
    finish(out, at);
}

/// Transaction status byte of ReadyForQuery.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TxStatus {
    Idle,
    InBlock,
    Failed,
}

pub fn ready_for_query(out: &mut BytesMut, status: TxStatus) {
    let at = begin(out, b'Z');
    out.put_u8(match status {
        TxStatus::Idle => b'I',
        TxStatus::InBlock => b'T',
        TxStatus::Failed => b'E',
    });
    finish(out, at);
}

/// One column of a RowDescription.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldDescription {
    pub name: String,
    pub table_oid: u32,
    pub column: i16,
    pub type_oid: u32,
    pub type_size: i16,
    pub type_modifier: i32,
    pub format: i16,
}

pub fn row_description(out: &mut BytesMut, fields: &[FieldDescription]) {
    row_description_in(out, fields, None).expect("UTF-8 needs no conversion")
}

/// RowDescription with the column names in the client's encoding; on a name it cannot
/// convert, nothing is written and the error (22P05) returned.
pub fn row_description_in(
    out: &mut BytesMut,
    fields: &[FieldDescription],
    enc: Client,
) -> Result<(), PgError> {
    let at = begin(out, b'T');
    out.put_i16(fields.len() as i16);
    for f in fields {
        if let Err(e) = put_cstr_in(out, &f.name, enc) {
            out.truncate(at - 1);
            return Err(e);
        }
        out.put_u32(f.table_oid);
        out.put_i16(f.column);
        out.put_u32(f.type_oid);
        out.put_i16(f.type_size);
        out.put_i32(f.type_modifier);
        out.put_i16(f.format);
    }
    finish(out, at);
    Ok(())
}

/// Starts a DataRow of `columns` values; append each with [`data_row_value`], then
/// [`data_row_end`].
pub fn data_row_begin(out: &mut BytesMut, columns: usize) -> usize {
    let at = begin(out, b'D');
    out.put_i16(columns as i16);
    at
}

/// Appends a NULL (`None`) or starts a value whose bytes the caller writes, then patches the
/// length with [`data_row_value_end`].
pub fn data_row_null(out: &mut BytesMut) {
    out.put_i32(-1);
}

pub fn data_row_value_begin(out: &mut BytesMut) -> usize {
    let at = out.len();
    out.put_i32(0);
    at
}

pub fn data_row_value_end(out: &mut BytesMut, at: usize) {
    let len = (out.len() - at - 4) as i32;
    out[at..at + 4].copy_from_slice(&len.to_be_bytes());
}

pub fn data_row_end(out: &mut BytesMut, at: usize) {
    finish(out, at);
}

pub fn command_complete(out: &mut BytesMut, tag: &str) {
    let at = begin(out, b'C');
    put_cstr(out, tag);
    finish(out, at);
}

pub fn empty_query(out: &mut BytesMut) {
    let at = begin(out, b'I');
    finish(out, at);
}

pub fn parse_complete(out: &mut BytesMut) {
    let at = begin(out, b'1');
    finish(out, at);
}

pub fn bind_complete(out: &mut BytesMut) {
    let at = begin(out, b'2');
    finish(out, at);
}

pub fn close_complete(out: &mut BytesMut) {
    let at = begin(out, b'3');
    finish(out, at);
}

pub fn no_data(out: &mut BytesMut) {
    let at = begin(out, b'n');
    finish(out, at);
}

pub fn portal_suspended(out: &mut BytesMut) {
    let at = begin(out, b's');
    finish(out, at);
}

pub fn parameter_description(out: &mut BytesMut, types: &[u32]) {
    let at = begin(out, b't');
    out.put_i16(types.len() as i16);
    for t in types {
        out.put_u32(*t);
    }
    finish(out, at);
}

pub fn notification(out: &mut BytesMut, pid: i32, channel: &str, payload: &str) {
    notification_in(out, pid, channel, payload, None).expect("UTF-8 needs no conversion")
}

/// NotificationResponse in the client's encoding; on a text it cannot convert, nothing is
/// written and the error returned (the session ends with it, FATAL, as PostgreSQL's does).
pub fn notification_in(
    out: &mut BytesMut,
    pid: i32,
    channel: &str,
    payload: &str,
    enc: Client,
) -> Result<(), PgError> {
    let at = begin(out, b'A');
    out.put_i32(pid);
    let r = put_cstr_in(out, channel, enc).and_then(|_| put_cstr_in(out, payload, enc));
    if r.is_err() {
        out.truncate(at - 1);
        return r;
    }
    finish(out, at);
    Ok(())
}

/// CopyInResponse: the server is ready for COPY FROM STDIN data.
pub fn copy_in_response(out: &mut BytesMut, binary: bool, columns: usize) {
    let at = begin(out, b'G');
    let f = if binary { 1 } else { 0 };
    out.put_i8(f);
    out.put_i16(columns as i16);
    for _ in 0..columns {
        out.put_i16(f as i16);
    }
    finish(out, at);
}

pub fn copy_out_response(out: &mut BytesMut, binary: bool, columns: usize) {
    let at = begin(out, b'H');
    let f = if binary { 1 } else { 0 };
    out.put_i8(f);
    out.put_i16(columns as i16);
    for _ in 0..columns {
        out.put_i16(f as i16);
    }
    finish(out, at);
}

pub fn copy_data(out: &mut BytesMut, data: &[u8]) {
    let at = begin(out, b'd');
    out.put_slice(data);
    finish(out, at);
}

pub fn copy_done(out: &mut BytesMut) {
    let at = begin(out, b'c');
    finish(out, at);
}

/// ErrorResponse ('E') or NoticeResponse ('N') depending on severity.
pub fn error_or_notice(out: &mut BytesMut, e: &PgError) {
    error_or_notice_in(out, e, None)
}

/// ErrorResponse or NoticeResponse with its texts in the client's encoding. A text it cannot
/// convert replaces the message by that conversion's error (22P05), as PostgreSQL's error
/// reporting does: an ERROR or FATAL keeps its severity; a notice becomes a WARNING (where
/// PostgreSQL fails the statement that raised it).
pub fn error_or_notice_in(out: &mut BytesMut, e: &PgError, enc: Client) {
    use crate::error::Severity;
    let start = out.len();
    if let Err(mut conversion) = write_error(out, e, enc) {
        out.truncate(start);
        conversion.severity = match e.severity {
            Severity::Error | Severity::Fatal => e.severity,
            _ => Severity::Warning,
        };
        let _ = write_error(out, &conversion, None);
    }
}

fn write_error(out: &mut BytesMut, e: &PgError, enc: Client) -> Result<(), PgError> {
    use crate::error::Severity;
    let ty = match e.severity {
        Severity::Error | Severity::Fatal => b'E',
        _ => b'N',
    };
    let at = begin(out, ty);
    out.put_u8(b'S');
    put_cstr(out, e.severity.as_str());
    out.put_u8(b'V');
    put_cstr(out, e.severity.as_str());
    out.put_u8(b'C');
    put_cstr(out, e.code);
    out.put_u8(b'M');
    put_cstr_in(out, &e.message, enc)?;
    if let Some(d) = &e.detail {
        out.put_u8(b'D');
        put_cstr_in(out, d, enc)?;
    }
    if let Some(h) = &e.hint {
        out.put_u8(b'H');
        put_cstr_in(out, h, enc)?;
    }
    if let Some(p) = e.position {
        out.put_u8(b'P');
        put_cstr(out, &p.to_string());
    }
    if let Some(i) = &e.internal {
        out.put_u8(b'p');
        put_cstr(out, &i.position.to_string());
        out.put_u8(b'q');
        put_cstr_in(out, &i.query, enc)?;
    }
    if let Some(w) = &e.context {
        out.put_u8(b'W');
        put_cstr_in(out, w, enc)?;
    }
    if let Some(o) = &e.objects {
        for (tag, v) in [
            (b's', &o.schema),
            (b't', &o.table),
            (b'c', &o.column),
            (b'd', &o.datatype),
            (b'n', &o.constraint),
        ] {
            if let Some(v) = v {
                out.put_u8(tag);
                put_cstr_in(out, v, enc)?;
            }
        }
    }
    out.put_u8(0);
    finish(out, at);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ready_for_query_bytes() {
        let mut b = BytesMut::new();
        ready_for_query(&mut b, TxStatus::InBlock);
        assert_eq!(&b[..], b"Z\0\0\0\x05T");
    }

    #[test]
    fn error_fields() {
        let mut b = BytesMut::new();
        error_or_notice(&mut b, &PgError::syntax("x").with_position(3));
        assert_eq!(b[0], b'E');
        let body = &b[5..];
        assert_eq!(
            body,
            b"SERROR\0VERROR\0C42601\0Mx\0P3\0\0".as_slice(),
            "{body:?}"
        );
        let len = i32::from_be_bytes([b[1], b[2], b[3], b[4]]) as usize;
        assert_eq!(len, b.len() - 1);
    }

    #[test]
    fn data_row_layout() {
        let mut b = BytesMut::new();
        let at = data_row_begin(&mut b, 2);
        data_row_null(&mut b);
        let v = data_row_value_begin(&mut b);
        b.extend_from_slice(b"42");
        data_row_value_end(&mut b, v);
        data_row_end(&mut b, at);
        assert_eq!(&b[..], b"D\0\0\0\x10\0\x02\xff\xff\xff\xff\0\0\0\x0242");
    }
}
