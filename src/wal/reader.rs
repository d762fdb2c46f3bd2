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

/// A record read back in place: its payload borrows the reader's copy of the segment (or, for
/// a record that spans segments, the reader's scratch buffer) until the next read.
#[derive(Clone, Copy, Debug)]
pub struct RecordRef<'a> {
    pub lsn: u64,
    /// Where the next record starts.
    pub end: u64,
    pub xid: u64,
    pub kind: u8,
    pub info: u8,
    pub payload: &'a [u8],
}

impl RecordRef<'_> {
    pub fn to_owned(&self) -> Record {
        Record {
            lsn: self.lsn,
            end: self.end,
            xid: self.xid,
            kind: self.kind,
            info: self.info,
            payload: self.payload.to_vec(),
        }
    }
}

/// Where a located record's payload lies.
#[derive(Clone, Copy)]
enum Payload {
    /// In the cached segment, at this offset.
    Segment(usize),
    /// Copied into `scratch` (the record spans segments).
    Scratch,
}

/// A record found and checked, before its payload is borrowed.
#[derive(Clone, Copy)]
struct Located {
    hd: record::Header,
    lsn: u64,
    payload: Payload,
}

/// Reads records in order from the segment files of a directory.
pub struct WalReader {
    segs: Segments,
    pos: u64,
    /// Damage is only mid-log when a valid record lies at least this far past it: one write
    /// batch of the writer (at most a segment, since wal_buffers is at most a segment).
    window: u64,
    /// The segment last read, whole; its buffer is reused for the next one (a fresh 16 MB
    /// allocation per segment would fault every page in again).
    cache: Option<(u64, Vec<u8>)>,
    /// The payload of a record that spans two segments (at most MAX_RECORD_LEN).
    scratch: Vec<u8>,
    /// Records that end at or before this position were checked by an earlier scan of the
    /// same log (recovery's first pass): their CRC is not computed again.
    checked_to: u64,
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
            scratch: Vec::new(),
            checked_to: 0,
        })
    }

    /// Trusts the CRCs of the records before `end`: an earlier reader of this log checked
    /// them and nothing has written it since (recovery's second pass).
    pub fn checked_up_to(&mut self, end: Lsn) {
        self.checked_to = end.0;
    }

    /// Where the next record would start; after `next` returned `None`, the end of the log.
    pub fn position(&self) -> Lsn {
        Lsn(self.pos)
    }

    /// The next record (void records included), `None` at the end of the log, or an error
    /// naming the position of damage in the middle of the log.
    pub fn next_record(&mut self) -> PgResult<Option<Record>> {
        Ok(self.next_ref()?.map(|r| r.to_owned()))
    }

    /// [`WalReader::next_record`] without copying the payload.
    pub fn next_ref(&mut self) -> PgResult<Option<RecordRef<'_>>> {
        match self.locate(self.pos)? {
            Ok(loc) => {
                self.pos = record::align(loc.lsn + loc.hd.total_len as u64);
                Ok(Some(self.view(loc)))
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

    fn view(&self, loc: Located) -> RecordRef<'_> {
        let len = loc.hd.total_len - HEADER_LEN;
        let payload = match loc.payload {
            Payload::Segment(off) => &self.cached()[off..off + len],
            Payload::Scratch => &self.scratch[..len],
        };
        RecordRef {
            lsn: loc.lsn,
            end: record::align(loc.lsn + loc.hd.total_len as u64),
            xid: loc.hd.xid,
            kind: loc.hd.kind,
            info: loc.hd.info,
            payload,
        }
    }

    /// Makes segment `segno` the cached one; false when it has no file.
    fn load(&mut self, segno: u64) -> PgResult<bool> {
        if self.cache.as_ref().map(|c| c.0) == Some(segno) {
            return Ok(true);
        }
        let path = self.segs.path(segno);
        let mut f = match File::open(&path) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(false),
            Err(e) => {
                return Err(crate::error::io_error(
                    &e,
                    format!("could not open file \"{}\"", path.display()),
                ))
            }
        };
        let mut v = match self.cache.take() {
            Some((_, mut v)) => {
                v.clear();
                v
            }
            None => Vec::with_capacity(self.segs.seg_size as usize),
        };
        f.read_to_end(&mut v).map_err(|e| {
            crate::error::io_error(&e, format!("could not read file \"{}\"", path.display()))
        })?;
        self.cache = Some((segno, v));
        Ok(true)
    }

    /// The cached segment's bytes.
    fn cached(&self) -> &[u8] {
        self.cache.as_ref().map_or(&[][..], |c| c.1.as_slice())
    }

    /// Reads `out.len()` bytes at `pos`; false when part of them lies in no file.
    fn read(&mut self, mut pos: u64, out: &mut [u8]) -> PgResult<bool> {
        let seg = self.segs.seg_size;
        let mut done = 0;
        while done < out.len() {
            let (segno, off) = (pos / seg, (pos % seg) as usize);
            if !self.load(segno)? {
                return Ok(false);
            }
            let data = self.cached();
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

    /// Finds and checks the record at `pos`, or says why there is none. A record inside one
    /// segment (nearly all) is checked where it lies; one that spans segments is copied to
    /// `scratch` first.
    fn locate(&mut self, pos: u64) -> PgResult<Result<Located, &'static str>> {
        let seg = self.segs.seg_size;
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
        let at = pos + HEADER_LEN as u64;
        let len = hd.total_len - HEADER_LEN;
        let off = (at % seg) as usize;
        // The header was just read, so `at`'s segment is cached unless the header ended
        // exactly at a segment's end.
        let in_place =
            self.cache.as_ref().map(|c| c.0) == Some(at / seg) && off + len <= self.cached().len();
        let payload = if in_place {
            Payload::Segment(off)
        } else {
            let mut buf = std::mem::take(&mut self.scratch);
            buf.clear();
            buf.resize(len, 0);
            let whole = self.read(at, &mut buf)?;
            self.scratch = buf;
            if !whole {
                return Ok(Err("record cut short by a missing WAL file"));
            }
            Payload::Scratch
        };
        let loc = Located {
            hd,
            lsn: pos,
            payload,
        };
        let end = record::align(pos + hd.total_len as u64);
        if end > self.checked_to && record::crc_of(&h, self.view(loc).payload) != hd.crc {
            return Ok(Err("incorrect data checksum"));
        }
        Ok(Ok(loc))
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
                let hit = self.load(segno)? && {
                    let d = self.cached();
                    off + 16 <= d.len()
                        && u64::from_le_bytes(d[off + 8..off + 16].try_into().unwrap()) == pos
                };
                if hit && self.locate(pos)?.is_ok() {
                    return Ok(Some(pos));
                }
                pos += record::ALIGN;
            }
        }
        Ok(None)
    }
}
