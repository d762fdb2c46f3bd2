//! Segment files: names, creation (zero-filled, ahead of need), recycling, and the writer's
//! file sink.

use std::fs::{File, OpenOptions};
use std::io;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use super::insert::Sink;
use crate::error::io_error;
use crate::error::{PgError, PgResult, Severity};

/// The timeline in every file name. A standby or point-in-time recovery that forks history
/// will number its timelines (the first 8 hex digits); until then there is one.
const TIMELINE: u32 = 1;

/// Injected faults, for tests: the next sync or write fails; while `no_space` is set, segment
/// creation fails as on a full disk.
#[derive(Default, Debug)]
pub struct Faults {
    pub fail_sync: std::sync::atomic::AtomicBool,
    pub fail_write: std::sync::atomic::AtomicBool,
    pub no_space: std::sync::atomic::AtomicBool,
}

impl Faults {
    fn take(flag: &std::sync::atomic::AtomicBool) -> bool {
        flag.swap(false, std::sync::atomic::Ordering::SeqCst)
    }
}

/// The file name of segment `segno`: timeline, then the segment number split as PostgreSQL
/// splits it (LSN bits 32.. and the segment within those 4 GiB), 8 hex digits each, so that a
/// log of 16 MiB segments has PostgreSQL's file names for the same positions.
pub fn file_name(segno: u64, seg_size: u64) -> String {
    let per = (1u64 << 32) / seg_size;
    format!("{TIMELINE:08X}{:08X}{:08X}", segno / per, segno % per)
}

/// The segment number a file name stands for, if it is a segment's name.
pub fn parse_name(name: &str, seg_size: u64) -> Option<u64> {
    if name.len() != 24 || !name.bytes().all(|b| matches!(b, b'0'..=b'9' | b'A'..=b'F')) {
        return None;
    }
    let hex = |r: std::ops::Range<usize>| u64::from_str_radix(&name[r], 16).ok();
    let per = (1u64 << 32) / seg_size;
    let (tli, hi, lo) = (hex(0..8)?, hex(8..16)?, hex(16..24)?);
    (tli == TIMELINE as u64 && lo < per).then_some(hi * per + lo)
}

/// The segment files of a log directory.
pub struct Segments {
    pub dir: PathBuf,
    pub seg_size: u64,
    fsync: bool,
    pub faults: std::sync::Arc<Faults>,
    /// A std mutex: file I/O never runs under the model checker.
    state: std::sync::Mutex<State>,
}

struct State {
    /// The first segment number with no file yet: files exist (contiguously) below it from the
    /// oldest kept segment.
    next: u64,
    /// The insert position at the last `remove_before`, to estimate how many segments a
    /// checkpoint cycle consumes.
    last_cycle_pos: u64,
}

fn fatal(mut e: PgError) -> PgError {
    e.severity = Severity::Fatal;
    e
}

impl Segments {
    pub fn new(dir: &Path, seg_size: u64, fsync: bool, faults: std::sync::Arc<Faults>) -> Self {
        Segments {
            dir: dir.to_path_buf(),
            seg_size,
            fsync,
            faults,
            state: std::sync::Mutex::new(State {
                next: 0,
                last_cycle_pos: 0,
            }),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub fn path(&self, segno: u64) -> PathBuf {
        self.dir.join(file_name(segno, self.seg_size))
    }

    /// The segment numbers with a file, ascending.
    pub fn list(&self) -> PgResult<Vec<u64>> {
        let rd = std::fs::read_dir(&self.dir).map_err(|e| {
            io_error(
                &e,
                format!("could not open directory \"{}\"", self.dir.display()),
            )
        })?;
        let mut v: Vec<u64> = rd
            .filter_map(|e| e.ok())
            .filter_map(|e| parse_name(e.file_name().to_str()?, self.seg_size))
            .collect();
        v.sort_unstable();
        Ok(v)
    }

    /// Files exist up to (not including) segment `next`.
    pub fn set_next(&self, next: u64, insert_pos: u64) {
        let mut s = self.lock();
        s.next = next;
        s.last_cycle_pos = insert_pos;
    }

    /// Creates segment files until the log may extend to `end`; returns the new allocated end.
    /// Serialized by the state lock: concurrent callers wait for one creation, then see it.
    pub fn extend(&self, end: u64) -> PgResult<u64> {
        let mut s = self.lock();
        while s.next * self.seg_size < end {
            self.create(s.next)?;
            s.next += 1;
        }
        Ok(s.next * self.seg_size)
    }

    /// Writes a zero-filled file under a temporary name, syncs it and renames it into place:
    /// a crash leaves either no segment or a whole one, and a full disk leaves no segment (the
    /// temporary file is removed) and costs nothing already written.
    fn create(&self, segno: u64) -> PgResult<()> {
        let tmp = self.dir.join(format!("xlogtemp.{}", std::process::id()));
        let fill = || -> io::Result<()> {
            if self
                .faults
                .no_space
                .load(std::sync::atomic::Ordering::SeqCst)
            {
                return Err(io::Error::from_raw_os_error(libc::ENOSPC));
            }
            let f = OpenOptions::new()
                .write(true)
                .create(true)
                .truncate(true)
                .open(&tmp)?;
            let zeros = vec![0u8; (self.seg_size as usize).min(1 << 20)];
            let mut off = 0;
            while off < self.seg_size {
                let n = zeros.len().min((self.seg_size - off) as usize);
                f.write_all_at(&zeros[..n], off)?;
                off += n as u64;
            }
            if self.fsync {
                f.sync_all()?;
            }
            Ok(())
        };
        if let Err(e) = fill() {
            let _ = std::fs::remove_file(&tmp);
            return Err(io_error(
                &e,
                format!("could not extend file \"{}\"", tmp.display()),
            ));
        }
        let path = self.path(segno);
        std::fs::rename(&tmp, &path).map_err(|e| {
            let _ = std::fs::remove_file(&tmp);
            io_error(
                &e,
                format!(
                    "could not rename file \"{}\" to \"{}\"",
                    tmp.display(),
                    path.display()
                ),
            )
        })?;
        self.sync_dir()
    }

    fn sync_dir(&self) -> PgResult<()> {
        if !self.fsync {
            return Ok(());
        }
        File::open(&self.dir)
            .and_then(|d| d.sync_all())
            .map_err(|e| {
                fatal(io_error(
                    &e,
                    format!("could not fsync file \"{}\"", self.dir.display()),
                ))
            })
    }

    /// Recycles or removes the segments wholly before `redo` (the checkpointer's redo point:
    /// recovery never reads before it). A segment is renamed to the next future name while the
    /// segments ahead of `insert_pos` are fewer than the last cycle consumed (at least
    /// `min_segs` in all are kept), never past `max_segs` files; otherwise it is deleted.
    /// Returns the new allocated end.
    pub fn remove_before(
        &self,
        redo: u64,
        insert_pos: u64,
        min_segs: u64,
        max_segs: u64,
    ) -> PgResult<u64> {
        let mut s = self.lock();
        let redo_seg = redo / self.seg_size;
        let insert_seg = insert_pos / self.seg_size;
        let old: Vec<u64> = self
            .list()?
            .into_iter()
            .filter(|&n| n < redo_seg && n < insert_seg)
            .collect();
        let consumed = (insert_pos.saturating_sub(s.last_cycle_pos)).div_ceil(self.seg_size);
        s.last_cycle_pos = insert_pos;
        let mut files = self.list()?.len() as u64;
        for segno in old {
            let ahead = s.next.saturating_sub(insert_seg + 1);
            let recycle = files <= max_segs && (files <= min_segs || ahead < consumed.max(1));
            let from = self.path(segno);
            if recycle {
                let to = self.path(s.next);
                std::fs::rename(&from, &to).map_err(|e| {
                    io_error(
                        &e,
                        format!(
                            "could not rename file \"{}\" to \"{}\"",
                            from.display(),
                            to.display()
                        ),
                    )
                })?;
                s.next += 1;
            } else {
                std::fs::remove_file(&from).map_err(|e| {
                    io_error(&e, format!("could not remove file \"{}\"", from.display()))
                })?;
                files -= 1;
            }
        }
        self.sync_dir()?;
        Ok(s.next * self.seg_size)
    }
}

/// The writer's sink: positioned writes into the segment files, `fdatasync` of the files
/// written since the last sync.
pub struct FileSink {
    segs: std::sync::Arc<Segments>,
    /// The files written since the last sync (one or two: a write batch is at most a segment).
    open: Vec<(u64, File)>,
}

impl FileSink {
    pub fn new(segs: std::sync::Arc<Segments>) -> FileSink {
        FileSink {
            segs,
            open: Vec::new(),
        }
    }

    fn file(&mut self, segno: u64) -> io::Result<&File> {
        if let Some(i) = self.open.iter().position(|(n, _)| *n == segno) {
            return Ok(&self.open[i].1);
        }
        let f = OpenOptions::new().write(true).open(self.segs.path(segno))?;
        self.open.push((segno, f));
        Ok(&self.open.last().unwrap().1)
    }
}

impl Sink for FileSink {
    fn write(&mut self, lsn: u64, mut bytes: &[u8]) -> PgResult<()> {
        let seg = self.segs.seg_size;
        let mut pos = lsn;
        while !bytes.is_empty() {
            let (segno, off) = (pos / seg, pos % seg);
            let n = bytes.len().min((seg - off) as usize);
            let faults = self.segs.faults.clone();
            let r = self.file(segno).and_then(|f| {
                if Faults::take(&faults.fail_write) {
                    return Err(io::Error::from_raw_os_error(libc::EIO));
                }
                f.write_all_at(&bytes[..n], off)
            });
            r.map_err(|e| {
                fatal(io_error(
                    &e,
                    format!(
                        "could not write to log file \"{}\" at offset {off}, length {n}",
                        file_name(segno, seg)
                    ),
                ))
            })?;
            bytes = &bytes[n..];
            pos += n as u64;
        }
        Ok(())
    }

    fn sync(&mut self) -> PgResult<()> {
        let seg = self.segs.seg_size;
        for (segno, f) in &self.open {
            let r = if Faults::take(&self.segs.faults.fail_sync) {
                Err(io::Error::from_raw_os_error(libc::EIO))
            } else {
                f.sync_data()
            };
            r.map_err(|e| {
                fatal(io_error(
                    &e,
                    format!("could not fdatasync file \"{}\"", file_name(*segno, seg)),
                ))
            })?;
        }
        // Keep only the newest file open: the next batch most likely continues in it.
        if self.open.len() > 1 {
            let last = self.open.pop().unwrap();
            self.open.clear();
            self.open.push(last);
        }
        Ok(())
    }
}

#[cfg(all(test, not(feature = "shuttle")))]
mod tests {
    use super::*;

    #[test]
    fn names_follow_postgresql() {
        let s16 = 16 << 20;
        assert_eq!(file_name(1, s16), "000000010000000000000001");
        assert_eq!(file_name(256, s16), "000000010000000100000000");
        assert_eq!(parse_name("000000010000000100000000", s16), Some(256));
        assert_eq!(parse_name("000000010000000000000100", s16), None);
        assert_eq!(parse_name("xlogtemp.12", s16), None);
        let small = 8192;
        let n = 3 * ((1 << 32) / small) + 5;
        assert_eq!(parse_name(&file_name(n, small), small), Some(n));
    }
}
