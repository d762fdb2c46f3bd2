//! The PostgreSQL frontend/backend protocol, version 3.0, as bytes.
//!
//! This layer knows nothing about sessions or SQL. It turns bytes from the socket into
//! [`frontend::Message`] values and appends backend messages to an output buffer. It is written
//! here rather than taken from a generic protocol crate for three reasons the server depends on:
//!
//! * **Check, then parse.** [`frontend::frame`] looks only at the 5-byte header to decide whether
//!   a whole message is buffered; only then is it decoded, as slices borrowed from the one read
//!   buffer (nothing is copied or reference-counted, not even parameters or COPY data); the
//!   session moves past the message once it has handled it.
//! * **Writes are batched by the session.** Encoders in [`backend`] append to a `BytesMut` that
//!   the session flushes once per Sync, Flush or simple Query, never once per message.
//! * **Small when idle.** Neither side keeps a buffer while a connection waits for input: the
//!   session waits for readability and only then allocates (see `session::conn`).
//!
//! Limits: a message's declared length is checked against [`MAX_MESSAGE_BYTES`] (configurable per
//! server) before any of it is buffered; a message longer than its type allows, shorter than its
//! header, or with malformed fields is a protocol violation: the session sends FATAL 08P01 and
//! closes, and the server goes on.

pub mod backend;
pub mod frontend;

/// The default upper bound on one frontend message (header included), 64 MiB. PostgreSQL allows
/// up to 1 GiB; real clients' largest messages are multi-row INSERTs and COPY chunks of a few
/// hundred KiB, so a lower default keeps one misbehaving client from taking a gigabyte.
pub const MAX_MESSAGE_BYTES: usize = 64 * 1024 * 1024;

/// Messages that have no business being large (Sync, Flush, Terminate, Close, Describe,
/// Execute, CopyDone) are limited like PostgreSQL's "small message" class.
pub const MAX_SMALL_MESSAGE_BYTES: usize = 10_000;

/// Protocol version 3.0 in a StartupMessage.
pub const PROTOCOL_V3: i32 = 196608;
pub const SSL_REQUEST_CODE: i32 = 80877103;
pub const GSSENC_REQUEST_CODE: i32 = 80877104;
pub const CANCEL_REQUEST_CODE: i32 = 80877102;

/// A column format code: 0 text, 1 binary.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Format {
    #[default]
    Text,
    Binary,
}

impl Format {
    pub fn code(self) -> i16 {
        match self {
            Format::Text => 0,
            Format::Binary => 1,
        }
    }
}
