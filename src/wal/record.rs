//! The record format: a 32-byte header, the payload, padding to 8 bytes.
//!
//! ```text
//! offset size field
//!      0    4 total_len   header + payload, without the padding (little-endian, as every field)
//!      4    4 crc         CRC-32C of bytes 8..32 of the header, then the payload, then bytes 0..4
//!      8    8 lsn         the record's own position
//!     16    8 xid         the (sub)transaction that wrote it, 0 for none
//!     24    1 kind        the resource manager that can replay it ([`kind`])
//!     25    1 info        the resource manager's own flags
//!     26    6 reserved    zero (a future format version may use them)
//! ```
//!
//! The next record starts at `align8(lsn + total_len)`. The padding bytes are not covered by the
//! CRC and may hold anything. The own-LSN field is what lets the log live in recycled segment
//! files without page headers: bytes left over from a segment's earlier life carry the positions
//! they had then, never the one they are read at.

use crate::error::{PgError, PgResult};

pub const HEADER_LEN: usize = 32;
/// Records are placed at multiples of this.
pub const ALIGN: u64 = 8;
/// The largest record (header and payload), as PostgreSQL's `XLogRecordMaxSize`: bounds what a
/// reader must buffer before it can check a CRC.
pub const MAX_RECORD_LEN: usize = 1 << 30;

/// Resource-manager ids. The log itself knows only [`kind::VOID`]; the layers above define
/// theirs (heap, catalog, transaction, checkpoint, ...) at 16 and above.
pub mod kind {
    /// Filler written by a reservation dropped before its record was copied (a session that
    /// failed in between): carries nothing, and exists so that the range is not a hole.
    pub const VOID: u8 = 1;
    /// The first id free for the layers above.
    pub const FIRST_USER: u8 = 16;
}

/// One record as read back.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    pub lsn: u64,
    /// Where the next record starts.
    pub end: u64,
    pub xid: u64,
    pub kind: u8,
    pub info: u8,
    pub payload: Vec<u8>,
}

impl Record {
    pub fn is_void(&self) -> bool {
        self.kind == kind::VOID
    }
}

pub fn align(n: u64) -> u64 {
    (n + ALIGN - 1) & !(ALIGN - 1)
}

/// The space a record with `payload_len` bytes takes in the log.
pub fn space_for(payload_len: usize) -> u64 {
    align((HEADER_LEN + payload_len) as u64)
}

/// Checks a payload length before anything is reserved for it.
pub fn check_len(payload_len: usize) -> PgResult<()> {
    if payload_len > MAX_RECORD_LEN - HEADER_LEN {
        return Err(PgError::new(
            "54000",
            format!("WAL record would be too large: {payload_len} bytes"),
        ));
    }
    Ok(())
}

/// Builds the header of a record; `payload` is only read for the CRC.
pub fn header(lsn: u64, xid: u64, kind: u8, info: u8, payload: &[u8]) -> [u8; HEADER_LEN] {
    let mut h = [0u8; HEADER_LEN];
    h[0..4].copy_from_slice(&((HEADER_LEN + payload.len()) as u32).to_le_bytes());
    h[8..16].copy_from_slice(&lsn.to_le_bytes());
    h[16..24].copy_from_slice(&xid.to_le_bytes());
    h[24] = kind;
    h[25] = info;
    let crc = crc_of(&h, payload);
    h[4..8].copy_from_slice(&crc.to_le_bytes());
    h
}

/// The header of a void record of `space` bytes (a multiple of [`ALIGN`], at least
/// [`HEADER_LEN`]) whose payload is `space - HEADER_LEN` zero bytes.
pub fn void_header(lsn: u64, space: u64) -> [u8; HEADER_LEN] {
    let payload_len = space as usize - HEADER_LEN;
    let mut h = [0u8; HEADER_LEN];
    h[0..4].copy_from_slice(&(space as u32).to_le_bytes());
    h[8..16].copy_from_slice(&lsn.to_le_bytes());
    h[24] = kind::VOID;
    let mut crc = crc32c::crc32c(&h[8..]);
    crc = zeros_crc(crc, payload_len);
    crc = crc32c::crc32c_append(crc, &h[0..4]);
    h[4..8].copy_from_slice(&crc.to_le_bytes());
    h
}

fn zeros_crc(mut crc: u32, mut n: usize) -> u32 {
    const Z: [u8; 4096] = [0; 4096];
    while n > 0 {
        let k = n.min(Z.len());
        crc = crc32c::crc32c_append(crc, &Z[..k]);
        n -= k;
    }
    crc
}

/// The CRC of a header (without its crc field) and payload, in the format's order: header bytes
/// 8..32, the payload, then the length word. The order is part of the format; computing the
/// header's tail first lets a void record's CRC run over its zeros without building them.
pub fn crc_of(h: &[u8; HEADER_LEN], payload: &[u8]) -> u32 {
    let crc = crc32c::crc32c(&h[8..]);
    let crc = crc32c::crc32c_append(crc, payload);
    crc32c::crc32c_append(crc, &h[0..4])
}

/// What a header says, before the payload's CRC is checked.
#[derive(Clone, Copy, Debug)]
pub struct Header {
    pub total_len: usize,
    pub crc: u32,
    pub lsn: u64,
    pub xid: u64,
    pub kind: u8,
    pub info: u8,
}

/// Parses a header read at position `at`; `None` when it cannot be a record of this log there
/// (wrong own position, impossible length, unknown reserved bits, kind 0).
pub fn parse_header(at: u64, h: &[u8; HEADER_LEN]) -> Option<Header> {
    let u64_at = |i: usize| u64::from_le_bytes(h[i..i + 8].try_into().unwrap());
    let lsn = u64_at(8);
    let total_len = u32::from_le_bytes(h[0..4].try_into().unwrap()) as usize;
    if lsn != at
        || !(HEADER_LEN..=MAX_RECORD_LEN).contains(&total_len)
        || h[24] == 0
        || h[26..32].iter().any(|&b| b != 0)
    {
        return None;
    }
    Some(Header {
        total_len,
        crc: u32::from_le_bytes(h[4..8].try_into().unwrap()),
        lsn,
        xid: u64_at(16),
        kind: h[24],
        info: h[25],
    })
}

#[cfg(all(test, not(feature = "shuttle")))]
mod tests {
    use super::*;

    #[test]
    fn headers_check_out_and_stale_positions_do_not() {
        let h = header(4096, 7, kind::FIRST_USER, 3, b"hello");
        let p = parse_header(4096, &h).unwrap();
        assert_eq!((p.total_len, p.xid, p.kind, p.info), (37, 7, 16, 3));
        assert_eq!(p.crc, crc_of(&h, b"hello"));
        assert_ne!(p.crc, crc_of(&h, b"hellp"));
        assert!(
            parse_header(4096 + 8192, &h).is_none(),
            "read at another position"
        );
        assert!(parse_header(0, &[0; HEADER_LEN]).is_none());
        let v = void_header(8192, 64);
        let p = parse_header(8192, &v).unwrap();
        assert_eq!(p.crc, crc_of(&v, &[0; 32]));
        assert_eq!(space_for(5), 40);
        assert_eq!(space_for(0), 32);
    }
}
