//! Reading the log back: the recovery scan.
//!
//! [`WalReader`] yields the records from a position onwards, checking each one's own position,
//! length and CRC, until the end of the log. How the end is told apart from damage in the middle
//! is the subject of the `wal` module header ("Reading back").

use std::fs::File;
use std::io::Read;
use std::path::Path;

use super::record::{self, Record, HEADER_LEN};
use super::segment::Segments;
use super::Lsn;
use crate::error::{PgError, PgResult};

const DATA_CORRUPTED: &str = "XX001";

/// Reads records in order from the segment files of a directory.
pub struct WalReader {
    segs: Segments,
    pos: u64,
    /// Damage is only mid-log when a valid record lies at least this far past it: one write
    /// batch of the writer (at most a segment, since wal_buffers is at most a segment).
    window: u64,
    /// The segment last read, whole.
    cache: Option<(u64, Vec<u8>)>,
}

impl WalReader {
    /// A reader of the log in `dir` (segments of `wal_segment_size` bytes) from `from`, which
    /// must be a record's position (a redo point, or the start of the log).
    pub fn open(dir: &Path, wal_segment_size: u64, from: Lsn) -> PgResult<WalReader> {
        let segs = Segments::new(dir, wal_segment_size, false, Default::default());
        Ok(WalReader {
            segs,
            pos: from.0,
            window: wal_segment_size,
            cache: None,
        })
    }

    /// Where the next record would start; after `next` returned `None`, the end of the log.
    pub fn position(&self) -> Lsn {
        Lsn(self.pos)
    }

    /// The next record (void records included), `None` at the end of the log, or an error
    /// naming the position of damage in the middle of the log.
    pub fn next_record(&mut self) -> PgResult<Option<Record>> {
        match self.record_at(self.pos)? {
            Ok(r) => {
                self.pos = r.end;
                Ok(Some(r))
            }
            Err(why) => match self.find_valid(self.pos + self.window)? {
                None => Ok(None),
                Some(later) => Err(PgError::fatal(
                    DATA_CORRUPTED,
                    format!("{why} in record at {}", Lsn(self.pos)),
                )
                .with_detail(format!(
                    "Valid WAL records follow at {}: the log is damaged, not torn at its end.",
                    Lsn(later)
                ))),
            },
        }
    }

    /// The whole segment `segno`, or `None` when it has no file.
    fn segment(&mut self, segno: u64) -> PgResult<Option<&[u8]>> {
        if self.cache.as_ref().map(|c| c.0) != Some(segno) {
            let path = self.segs.path(segno);
            let mut f = match File::open(&path) {
                Ok(f) => f,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
                Err(e) => {
                    return Err(crate::error::io_error(
                        &e,
                        format!("could not open file \"{}\"", path.display()),
                    ))
                }
            };
            let mut v = Vec::with_capacity(self.segs.seg_size as usize);
            f.read_to_end(&mut v).map_err(|e| {
                crate::error::io_error(&e, format!("could not read file \"{}\"", path.display()))
            })?;
            self.cache = Some((segno, v));
        }
        Ok(self.cache.as_ref().map(|c| c.1.as_slice()))
    }

    /// Reads `out.len()` bytes at `pos`; false when part of them lies in no file.
    fn read(&mut self, mut pos: u64, out: &mut [u8]) -> PgResult<bool> {
        let seg = self.segs.seg_size;
        let mut done = 0;
        while done < out.len() {
            let (segno, off) = (pos / seg, (pos % seg) as usize);
            let Some(data) = self.segment(segno)? else {
                return Ok(false);
            };
            if off >= data.len() {
                return Ok(false);
            }
            let n = (out.len() - done).min(data.len() - off);
            out[done..done + n].copy_from_slice(&data[off..off + n]);
            done += n;
            pos += n as u64;
        }
        Ok(true)
    }

    /// The record at `pos`, or why there is none.
    fn record_at(&mut self, pos: u64) -> PgResult<Result<Record, &'static str>> {
        let mut h = [0u8; HEADER_LEN];
        if !self.read(pos, &mut h)? {
            return Ok(Err("missing WAL file"));
        }
        let Some(hd) = record::parse_header(pos, &h) else {
            return Ok(Err(if h.iter().all(|&b| b == 0) {
                "zero record header"
            } else {
                "invalid record header"
            }));
        };
        let mut payload = vec![0u8; hd.total_len - HEADER_LEN];
        if !self.read(pos + HEADER_LEN as u64, &mut payload)? {
            return Ok(Err("record cut short by a missing WAL file"));
        }
        if record::crc_of(&h, &payload) != hd.crc {
            return Ok(Err("incorrect data checksum"));
        }
        Ok(Ok(Record {
            lsn: pos,
            end: record::align(pos + hd.total_len as u64),
            xid: hd.xid,
            kind: hd.kind,
            info: hd.info,
            payload,
        }))
    }

    /// The first position at or after `from` where a valid record of this log starts, looking
    /// through every segment file that exists from there on.
    fn find_valid(&mut self, from: u64) -> PgResult<Option<u64>> {
        let seg = self.segs.seg_size;
        let files = self.segs.list()?;
        let mut pos = record::align(from);
        for segno in files.into_iter().filter(|&n| n >= from / seg) {
            pos = pos.max(segno * seg);
            while pos < (segno + 1) * seg {
                // Cheap filter first: the own-position field must name this position.
                let off = (pos % seg) as usize;
                let hit = match self.segment(segno)? {
                    Some(d) if off + 16 <= d.len() => {
                        u64::from_le_bytes(d[off + 8..off + 16].try_into().unwrap()) == pos
                    }
                    _ => false,
                };
                if hit && self.record_at(pos)?.is_ok() {
                    return Ok(Some(pos));
                }
                pos += record::ALIGN;
            }
        }
        Ok(None)
    }
}
