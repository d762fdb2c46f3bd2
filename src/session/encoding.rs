//! The session's side of client encodings (`wire::encoding` has the names and the
//! conversions). A session's codec lives in its settings (`Settings::client`, set with
//! client_encoding, saved and restored with them by transactions), `None` for UTF8 and
//! SQL_ASCII: every hook below is one branch on that `Option`, so a UTF8 session pays nothing
//! else.
//!
//! What is converted, as PostgreSQL converts it:
//!
//! * in: the strings of Query, Parse, Bind (names), Describe, Execute, Close and CopyFail as the
//!   message is decoded ([`decode`]); Bind parameters in text format, and in binary format for
//!   the text types whose receive functions convert (`textrecv`: text, varchar, bpchar, name,
//!   json, jsonb, xml, unknown) ([`text_param`], [`binary_param`]); COPY FROM STDIN lines
//!   ([`text_in`]).
//! * out: DataRow values in text format, and in binary format for the same types
//!   ([`binary_out`]); COPY TO STDOUT text and CSV lines, and the text types of binary COPY;
//!   RowDescription column names; ErrorResponse and NoticeResponse fields;
//!   NotificationResponse; ParameterStatus. Command tags are ASCII.
//!
//! A value with a character the client's encoding lacks fails the statement with 22P05 (rows
//! before it are sent, the row is not); an error whose text cannot be converted is replaced by
//! that 22P05 error, as PostgreSQL's error reporting does; a notification ends the session
//! (FATAL), as in PostgreSQL.
//!
//! Known differences: a notice whose text cannot be converted becomes a WARNING with the 22P05
//! text (PostgreSQL fails the statement that raised it); the text elements inside binary
//! arrays and records are not converted; SQL_ASCII input must be UTF-8 everywhere, where
//! PostgreSQL's COPY FROM stores SQL_ASCII bytes unchecked (threadgres keeps all text UTF-8).

use std::borrow::Cow;

use bytes::BytesMut;

use crate::encoding::{self as enc, Client, Enc};
use crate::error::{code, PgError, PgResult};
use crate::sql::types::Type;
use crate::wire::frontend::{self as fe, Message};

/// client_encoding's canonical value for `value` and its codec. Unknown names are 22023, the
/// encodings threadgres cannot convert 0A000 with PostgreSQL's detail.
pub fn canonical(value: &str) -> PgResult<(&'static str, Client)> {
    let name = value.trim();
    let invalid = || {
        PgError::new(
            code::INVALID_PARAMETER_VALUE,
            format!("invalid value for parameter \"client_encoding\": \"{value}\""),
        )
    };
    let e = Enc::lookup(name).ok_or_else(invalid)?;
    match enc::codec(e) {
        Ok(c) => Ok((e.name(), c)),
        Err(_) => Err(PgError::new(
            code::FEATURE_NOT_SUPPORTED,
            format!("invalid value for parameter \"client_encoding\": \"{value}\""),
        )
        .with_detail(format!(
            "Conversion between {} and UTF8 is not supported.",
            e.name()
        ))),
    }
}

/// The error a start-up packet's unsupported client_encoding gets (FATAL in the caller).
pub fn startup_error(value: &str, e: PgError) -> PgError {
    match Enc::lookup(value.trim()).map(enc::codec) {
        Some(Err(conversion)) => conversion,
        _ => e,
    }
}

/// Decodes one framed message, converting its strings first when the client's encoding is
/// not UTF8 (`conv` holds the converted message). A conversion error makes the message
/// malformed: answered with the error like any other bad message.
pub(super) fn decode<'a>(
    client: Client,
    frame: &'a [u8],
    conv: &'a mut Vec<u8>,
) -> PgResult<Message<'a>> {
    if let Some(c) = client {
        match c.frame_to_utf8(frame, conv) {
            Ok(false) => {}
            Ok(true) => {
                let conv: &'a Vec<u8> = conv;
                return fe::decode(conv);
            }
            Err(error) => {
                return Ok(Message::Malformed {
                    ty: frame[0],
                    statement: None,
                    error,
                })
            }
        }
    }
    fe::decode(frame)
}

/// Client text (a Bind parameter in text format, a COPY line) as UTF-8.
pub(super) fn text_in(client: Client, bytes: &[u8]) -> PgResult<Cow<'_, str>> {
    match client {
        None => enc::utf8_in(bytes).map(Cow::Borrowed),
        Some(c) => c.to_utf8(bytes),
    }
}

/// Whether a type's binary form is its text (PostgreSQL's send/receive functions convert it).
fn binary_is_text(ty: Type) -> bool {
    matches!(
        ty,
        Type::TEXT | Type::VARCHAR | Type::BPCHAR | Type::NAME | Type::UNKNOWN | Type::JSON
    ) || ty.0 == 142
}

/// A Bind parameter in binary format, its text converted for the text types.
pub(super) fn binary_param(client: Client, bytes: &[u8], ty: Type) -> PgResult<Cow<'_, [u8]>> {
    let Some(c) = client else {
        return Ok(Cow::Borrowed(bytes));
    };
    if binary_is_text(ty) {
        return Ok(match c.to_utf8(bytes)? {
            Cow::Borrowed(_) => Cow::Borrowed(bytes),
            Cow::Owned(s) => Cow::Owned(s.into_bytes()),
        });
    }
    if ty == Type::JSONB && bytes.len() > 1 {
        if let Cow::Owned(s) = c.to_utf8(&bytes[1..])? {
            let mut v = Vec::with_capacity(s.len() + 1);
            v.push(bytes[0]);
            v.extend_from_slice(s.as_bytes());
            return Ok(Cow::Owned(v));
        }
    }
    Ok(Cow::Borrowed(bytes))
}

/// Appends text for the client (a DataRow value in text format).
#[inline]
pub(super) fn put_text(client: Client, out: &mut BytesMut, s: &str) -> PgResult<()> {
    match client {
        None => {
            out.extend_from_slice(s.as_bytes());
            Ok(())
        }
        Some(c) => c.from_utf8(s, out),
    }
}

/// Converts what the binary send of a value of type `ty` appended to `out` since `start`,
/// for the types whose binary form is text.
pub(super) fn binary_out(
    client: Client,
    out: &mut BytesMut,
    start: usize,
    ty: Type,
) -> PgResult<()> {
    let Some(c) = client else {
        return Ok(());
    };
    let from = match ty {
        _ if binary_is_text(ty) => start,
        Type::JSONB => start + 1,
        _ => return Ok(()),
    };
    if from >= out.len() || out[from..].is_ascii() {
        return Ok(());
    }
    let written = out.split_off(from);
    // Written by the server from a `&str`: UTF-8.
    let text =
        std::str::from_utf8(&written).map_err(|e| enc::invalid_utf8(&written, e.valid_up_to()))?;
    c.from_utf8(text, out)
}

/// A text (a COPY TO line) in the client's encoding.
pub(super) fn text_out(client: Client, s: &str) -> PgResult<Cow<'_, [u8]>> {
    match client {
        None => Ok(Cow::Borrowed(s.as_bytes())),
        Some(c) => {
            let mut v = Vec::with_capacity(s.len() + 8);
            c.from_utf8(s, &mut v)?;
            Ok(Cow::Owned(v))
        }
    }
}
