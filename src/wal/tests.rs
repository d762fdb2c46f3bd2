//! Tests of the log on real files (small segments and rings so that records cross segment
//! boundaries and wrap the ring). The interleavings are checked in `model.rs`.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use super::*;
use crate::wal::record::kind;

const K: u8 = kind::FIRST_USER;

struct TempDir(PathBuf);

impl TempDir {
    fn new(tag: &str) -> TempDir {
        static N: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
        let n = N.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        let p =
            std::env::temp_dir().join(format!("threadgres-wal-{tag}-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).unwrap();
        TempDir(p)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn opts(dir: &Path, seg: u64, ring: usize) -> WalOptions {
    let mut o = WalOptions::new(dir);
    o.wal_segment_size = seg;
    o.wal_buffers = ring;
    o.min_wal_size = 4 * seg;
    o.max_wal_size = 8 * seg;
    o.wal_writer_delay = Duration::from_millis(5);
    o
}

/// A payload whose bytes say who wrote it.
fn payload(thread: usize, i: usize, len: usize) -> Vec<u8> {
    (0..len).map(|j| (thread * 31 + i * 7 + j) as u8).collect()
}

/// Every record from the start of the log, void records left out, and where the log ends.
fn read_all(dir: &Path, seg: u64, from: Lsn) -> PgResult<(Vec<Record>, Lsn)> {
    let mut r = WalReader::open(dir, seg, from)?;
    let mut v = Vec::new();
    while let Some(rec) = r.next_record()? {
        if !rec.is_void() {
            v.push(rec);
        }
    }
    Ok((v, r.position()))
}

#[test]
fn concurrent_inserts_read_back_in_lsn_order() {
    let d = TempDir::new("concurrent");
    let (seg, ring) = (64 << 10, 16 << 10);
    let wal = Arc::new(Wal::open(opts(&d.0, seg, ring), None).unwrap());
    let threads = 4;
    let hs: Vec<_> = (0..threads)
        .map(|t| {
            let wal = wal.clone();
            std::thread::spawn(move || {
                let mut mine = Vec::new();
                for i in 0..300 {
                    // Mostly small records, some larger than the ring (copied in pieces).
                    let len = if i % 97 == 13 {
                        20_000
                    } else {
                        (i * 37 + t) % 700
                    };
                    let p = payload(t, i, len);
                    let a = wal
                        .insert_blocking(K, t as u8, (t * 1000 + i) as u64, &p)
                        .unwrap();
                    if i % 50 == 0 {
                        wal.wait_flushed_blocking(a.end).unwrap();
                        assert!(wal.flush_lsn() >= a.end);
                    }
                    mine.push((a.lsn.0, (t * 1000 + i) as u64, p));
                }
                mine
            })
        })
        .collect();
    let mut expected: Vec<_> = hs.into_iter().flat_map(|h| h.join().unwrap()).collect();
    expected.sort_by_key(|e| e.0);
    let end = wal.insert_lsn();
    wal.wait_flushed_blocking(end).unwrap();
    let stats = wal.stats();
    assert_eq!(stats.records, threads as u64 * 300);
    assert!(stats.syncs >= 1 && stats.writes >= stats.syncs);
    assert!(
        stats.buffers_full > 0,
        "records larger than the ring waited for it"
    );
    drop(wal);

    let (got, at) = read_all(&d.0, seg, first_lsn(seg)).unwrap();
    assert_eq!(at, end, "the log ends where insertion ended");
    assert_eq!(got.len(), expected.len());
    for (g, (lsn, xid, p)) in got.iter().zip(&expected) {
        assert_eq!((g.lsn, g.xid, &g.payload), (*lsn, *xid, p));
    }
}

#[test]
fn async_inserters_share_one_thread_and_a_small_ring() {
    let d = TempDir::new("async");
    let seg = 16 << 10;
    let wal = Arc::new(Wal::open(opts(&d.0, seg, 4096), None).unwrap());
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let local = tokio::task::LocalSet::new();
    let results = local.block_on(&rt, async {
        let tasks: Vec<_> = (0..8)
            .map(|t| {
                let wal = wal.clone();
                tokio::task::spawn_local(async move {
                    let mut mine = Vec::new();
                    for i in 0..40 {
                        let p = payload(t, i, 1000 + i * 13);
                        let a = wal.insert(K, 0, t as u64, &p).await.unwrap();
                        wal.wait_flushed(a.end).await.unwrap();
                        mine.push((a.lsn.0, p));
                    }
                    mine
                })
            })
            .collect();
        let mut all = Vec::new();
        for t in tasks {
            all.extend(t.await.unwrap());
        }
        all
    });
    let mut expected = results;
    expected.sort_by_key(|e| e.0);
    drop(wal);
    let (got, _) = read_all(&d.0, seg, first_lsn(seg)).unwrap();
    let got: Vec<_> = got.into_iter().map(|r| (r.lsn, r.payload)).collect();
    assert_eq!(got, expected);
}

/// Writes a small log; returns its directory, its records and its end.
fn small_log(tag: &str, seg: u64, n: usize) -> (TempDir, Vec<Record>, Lsn) {
    let d = TempDir::new(tag);
    let wal = Wal::open(opts(&d.0, seg, 4096), None).unwrap();
    for i in 0..n {
        let len = [0, 5, 100, 333, 1500, 64][i % 6] + i;
        wal.insert_blocking(K, 0, i as u64, &payload(0, i, len))
            .unwrap();
    }
    let end = wal.insert_lsn();
    wal.wait_flushed_blocking(end).unwrap();
    drop(wal);
    let (recs, at) = read_all(&d.0, seg, first_lsn(seg)).unwrap();
    assert_eq!((recs.len(), at), (n, end));
    (d, recs, end)
}

/// The log's bytes, segment by segment.
fn load(dir: &Path, seg: u64) -> Vec<(u64, Vec<u8>)> {
    let s = segment::Segments::new(dir, seg, false, Default::default());
    s.list()
        .unwrap()
        .into_iter()
        .map(|n| (n, std::fs::read(s.path(n)).unwrap()))
        .collect()
}

fn store(dir: &Path, seg: u64, files: &[(u64, Vec<u8>)]) {
    for e in std::fs::read_dir(dir).unwrap() {
        std::fs::remove_file(e.unwrap().path()).unwrap();
    }
    for (n, bytes) in files {
        std::fs::write(dir.join(file_name(*n, seg)), bytes).unwrap();
    }
}

/// The files as a crash at `cut` could leave them: nothing at or after `cut` reached the disk.
/// `stale`: what lies there instead is the old content of a recycled segment (the previous
/// segment's bytes), else zeros.
fn cut_at(files: &[(u64, Vec<u8>)], seg: u64, cut: u64, stale: bool) -> Vec<(u64, Vec<u8>)> {
    files
        .iter()
        .map(|(n, bytes)| {
            let mut b = bytes.clone();
            for (off, byte) in b.iter_mut().enumerate() {
                let pos = n * seg + off as u64;
                if pos >= cut {
                    *byte = if stale && *n > 1 {
                        files.iter().find(|f| f.0 == n - 1).map_or(0, |f| f.1[off])
                    } else {
                        0
                    };
                }
            }
            (*n, b)
        })
        .collect()
}

#[test]
fn a_cut_at_any_boundary_or_inside_a_record_reads_as_the_prefix_before_it() {
    let seg = 4096;
    let (d, recs, end) = small_log("cut", seg, 30);
    let files = load(&d.0, seg);
    assert!(files.len() >= 4, "records cross several segments");
    let mut cuts = vec![end.0];
    for r in &recs {
        let len = r.end - r.lsn;
        for off in [0, 1, 8, 16, 31, 32, 33, len / 2, len - 1] {
            cuts.push(r.lsn + off);
        }
    }
    let scratch = TempDir::new("cut-scratch");
    for &cut in &cuts {
        for stale in [false, true] {
            let image = cut_at(&files, seg, cut, stale);
            store(&scratch.0, seg, &image);
            let (got, at) = read_all(&scratch.0, seg, first_lsn(seg))
                .unwrap_or_else(|e| panic!("cut at {} (stale {stale}): {e:?}", Lsn(cut)));
            // Whole = every byte of the record (header and payload) survived the cut: a cut
            // inside a record that only drops bytes equal to what replaces them (trailing
            // zeros) leaves it whole.
            let byte = |f: &[(u64, Vec<u8>)], pos: u64| {
                f.iter().find(|x| x.0 == pos / seg).unwrap().1[(pos % seg) as usize]
            };
            let whole: Vec<_> = recs
                .iter()
                .take_while(|r| {
                    let data_end = r.lsn + (record::HEADER_LEN + r.payload.len()) as u64;
                    r.end <= cut || (r.lsn..data_end).all(|p| byte(&image, p) == byte(&files, p))
                })
                .cloned()
                .collect();
            assert_eq!(got, whole, "cut at {}", Lsn(cut));
            assert_eq!(at.0, whole.last().map_or(first_lsn(seg).0, |r| r.end));
        }
    }
    // A missing later segment file is a cut too.
    let last = files.last().unwrap().0;
    store(&scratch.0, seg, &files[..files.len() - 1]);
    let (got, _) = read_all(&scratch.0, seg, first_lsn(seg)).unwrap();
    assert!(got.iter().all(|r| r.end <= last * seg));
}

#[test]
fn damage_in_the_middle_of_the_log_is_an_error_naming_its_position() {
    let seg = 4096;
    let (d, recs, _) = small_log("damage", seg, 60);
    let files = load(&d.0, seg);
    let scratch = TempDir::new("damage-scratch");
    let victim = &recs[3];
    for flip in [victim.lsn + 40, victim.lsn + 2, victim.lsn + 9] {
        let mut f = files.clone();
        let (n, off) = (flip / seg, (flip % seg) as usize);
        f.iter_mut().find(|x| x.0 == n).unwrap().1[off] ^= 0x20;
        store(&scratch.0, seg, &f);
        let e = read_all(&scratch.0, seg, first_lsn(seg)).unwrap_err();
        assert_eq!(e.code, "XX001");
        assert!(e.is_fatal());
        assert!(
            e.message
                .ends_with(&format!("in record at {}", Lsn(victim.lsn))),
            "{}",
            e.message
        );
    }
    // Damage within the last segment's worth of the log looks like a torn tail (a limit).
    let late = &recs[recs.len() - 2];
    let mut f = files.clone();
    let p = late.lsn + 40;
    f.iter_mut().find(|x| x.0 == p / seg).unwrap().1[(p % seg) as usize] ^= 1;
    store(&scratch.0, seg, &f);
    let (got, at) = read_all(&scratch.0, seg, first_lsn(seg)).unwrap();
    assert_eq!((got.len(), at.0), (recs.len() - 2, late.lsn));
}

#[test]
fn a_reservation_dropped_by_a_panic_becomes_a_void_record() {
    let d = TempDir::new("void");
    let seg = 8192;
    let wal = Wal::open(opts(&d.0, seg, 4096), None).unwrap();
    let a = wal.insert_blocking(K, 0, 1, b"before").unwrap();
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let _res = wal.reserve(5000).unwrap();
        panic!("the session fails between reserving and copying");
    }));
    assert!(r.is_err());
    // A dropped insertion future finishes its copy (a record larger than the ring).
    let big = payload(1, 1, 9000);
    {
        let mut fut = std::pin::pin!(wal.insert(K, 0, 2, &big));
        let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
        let _ = fut.as_mut().poll(&mut cx);
    }
    let c = wal.insert_blocking(K, 0, 3, b"after").unwrap();
    wal.wait_flushed_blocking(c.end).unwrap();
    assert_eq!(wal.stats().void_records, 1);
    drop(wal);
    let mut r = WalReader::open(&d.0, seg, first_lsn(seg)).unwrap();
    let mut kinds = Vec::new();
    while let Some(rec) = r.next_record().unwrap() {
        kinds.push((rec.kind, rec.xid, rec.payload.len()));
    }
    assert_eq!(
        kinds,
        vec![(K, 1, 6), (kind::VOID, 0, 5000), (K, 2, 9000), (K, 3, 5)]
    );
    assert_eq!(r.position(), c.end);
    assert_eq!(a.lsn, first_lsn(seg));
}

use std::future::Future;

#[test]
fn recycled_segments_keep_the_log_readable() {
    let d = TempDir::new("recycle");
    let seg = 4096;
    let o = opts(&d.0, seg, 4096);
    let wal = Wal::open(o.clone(), None).unwrap();
    let mut all = Vec::new();
    let mut redo = Lsn::INVALID;
    for round in 0..4 {
        for i in 0..40 {
            let p = payload(round, i, 200 + i);
            let a = wal
                .insert_blocking(K, 0, (round * 100 + i) as u64, &p)
                .unwrap();
            all.push((a.lsn, p));
        }
        wal.wait_flushed_blocking(wal.insert_lsn()).unwrap();
        // A checkpoint: its redo point is the position of the round's 30th record.
        redo = all[all.len() - 10].0;
        wal.remove_before(redo).unwrap();
        let files = wal.segs.list().unwrap();
        assert!(files.len() as u64 <= o.max_wal_size / seg + 1, "{files:?}");
        assert!(
            files[0] <= redo.0 / seg,
            "nothing at or after the redo point goes"
        );
        assert!(
            *files.last().unwrap() > wal.insert_lsn().0 / seg,
            "pre-allocated ahead"
        );
    }
    let end = wal.insert_lsn();
    drop(wal);
    let (got, at) = read_all(&d.0, seg, redo).unwrap();
    assert_eq!(at, end);
    let want: Vec<_> = all.into_iter().filter(|(l, _)| *l >= redo).collect();
    let got: Vec<_> = got.into_iter().map(|r| (Lsn(r.lsn), r.payload)).collect();
    assert_eq!(got, want);
}

#[test]
fn a_log_resumed_at_its_end_continues_and_reads_whole() {
    let seg = 4096;
    let (d, recs, end) = small_log("resume", seg, 20);
    let o = opts(&d.0, seg, 4096);
    assert!(
        Wal::open(o.clone(), None).is_err(),
        "a new log needs an empty directory"
    );
    let wal = Wal::open(o, Some(end)).unwrap();
    assert_eq!(wal.insert_lsn(), end);
    let a = wal.insert_blocking(K, 0, 99, b"second run").unwrap();
    wal.wait_flushed_blocking(a.end).unwrap();
    drop(wal);
    let (got, at) = read_all(&d.0, seg, first_lsn(seg)).unwrap();
    assert_eq!(got.len(), recs.len() + 1);
    assert_eq!(
        (got.last().unwrap().payload.as_slice(), at),
        (&b"second run"[..], a.end)
    );
}

#[test]
fn a_full_disk_fails_the_inserter_that_needs_a_segment_and_nothing_else() {
    let d = TempDir::new("enospc");
    let seg = 4096;
    let wal = Wal::open(opts(&d.0, seg, 4096), None).unwrap();
    let mut ok = Vec::new();
    wal.faults()
        .no_space
        .store(true, std::sync::atomic::Ordering::SeqCst);
    let err = loop {
        match wal.insert_blocking(K, 0, ok.len() as u64, &[7u8; 300]) {
            Ok(a) => ok.push(a),
            Err(e) => break e,
        }
        assert!(ok.len() < 100, "the disk never filled");
    };
    assert_eq!(err.code, "53100");
    assert!(
        err.message.starts_with("could not extend file \"")
            && err.message.ends_with("\": No space left on device"),
        "{}",
        err.message
    );
    assert!(!wal.is_failed(), "a full disk is not fatal");
    let last = ok.last().unwrap().end;
    wal.wait_flushed_blocking(last).unwrap();
    // No temporary file is left behind.
    assert!(std::fs::read_dir(&d.0).unwrap().all(|e| !e
        .unwrap()
        .file_name()
        .to_string_lossy()
        .starts_with("xlogtemp")));
    wal.faults()
        .no_space
        .store(false, std::sync::atomic::Ordering::SeqCst);
    let after = wal.insert_blocking(K, 0, 1000, b"space again").unwrap();
    wal.wait_flushed_blocking(after.end).unwrap();
    drop(wal);
    let (got, _) = read_all(&d.0, seg, first_lsn(seg)).unwrap();
    assert_eq!(got.len(), ok.len() + 1);
    assert_eq!(got.last().unwrap().payload, b"space again");
}

#[test]
fn a_failed_sync_fails_the_log_for_good_and_wakes_every_waiter() {
    for write in [false, true] {
        let d = TempDir::new("fsync");
        let seg = 8192;
        let wal = Arc::new(Wal::open(opts(&d.0, seg, 4096), None).unwrap());
        let a = wal.insert_blocking(K, 0, 1, b"durable").unwrap();
        wal.wait_flushed_blocking(a.end).unwrap();
        let flag = if write {
            &wal.faults().fail_write
        } else {
            &wal.faults().fail_sync
        };
        flag.store(true, std::sync::atomic::Ordering::SeqCst);
        let b = wal.insert_blocking(K, 0, 2, b"lost").unwrap();
        let waiters: Vec<_> = (0..3)
            .map(|_| {
                let wal = wal.clone();
                std::thread::spawn(move || wal.wait_flushed_blocking(b.end))
            })
            .collect();
        for w in waiters {
            let e = w.join().unwrap().unwrap_err();
            assert!(e.is_fatal());
            let what = if write {
                "could not write to log file"
            } else {
                "could not fdatasync file"
            };
            assert!(e.message.starts_with(what), "{}", e.message);
        }
        assert!(wal.is_failed());
        assert!(wal.flush_lsn() < b.end);
        assert!(wal.insert_blocking(K, 0, 3, b"no").is_err());
        assert!(wal.wait_flushed_blocking(b.end).is_err());
        // What was flushed before the failure stays flushed.
        wal.wait_flushed_blocking(a.end).unwrap();
        assert!(wal.shutdown().is_err());
    }
}

#[test]
fn options_are_checked() {
    let d = TempDir::new("opts");
    let mut o = opts(&d.0, 4096, 8192);
    assert!(
        Wal::open(o.clone(), None).is_err(),
        "wal_buffers above a segment"
    );
    o.wal_buffers = 4096;
    o.wal_segment_size = 5000;
    assert!(Wal::open(o, None).is_err());
}

#[test]
fn a_resumed_log_is_never_followed_by_records_of_its_previous_run() {
    let d = TempDir::new("stale-tail");
    let seg = 8192;
    let o = opts(&d.0, seg, 4096);
    let wal = Wal::open(o.clone(), None).unwrap();
    let a = wal.insert_blocking(K, 0, 1, &[1; 100]).unwrap();
    let b = wal.insert_blocking(K, 0, 2, &[2; 100]).unwrap();
    let c = wal.insert_blocking(K, 0, 3, &[3; 100]).unwrap();
    wal.wait_flushed_blocking(c.end).unwrap();
    drop(wal);
    // A crash tore B while C's page reached the disk (unsynced writes persist in any order).
    let path = d.0.join(file_name(b.lsn.0 / seg, seg));
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[(b.lsn.0 % seg) as usize + 50] ^= 0xff;
    std::fs::write(&path, &bytes).unwrap();
    let (got, end) = read_all(&d.0, seg, first_lsn(seg)).unwrap();
    assert_eq!(
        (got.len(), end),
        (1, b.lsn),
        "a torn tail, since C lies within a batch"
    );
    // The second run writes a record of B's size at B's place: C would now follow it.
    let wal = Wal::open(o, Some(end)).unwrap();
    let b2 = wal.insert_blocking(K, 0, 4, &[4; 100]).unwrap();
    assert_eq!(b2.end, c.lsn);
    wal.wait_flushed_blocking(b2.end).unwrap();
    drop(wal);
    let (got, end) = read_all(&d.0, seg, first_lsn(seg)).unwrap();
    let xids: Vec<_> = got.iter().map(|r| r.xid).collect();
    assert_eq!(
        (xids, end),
        (vec![1, 4], b2.end),
        "C of the first run is gone"
    );
    assert_eq!(a.lsn, first_lsn(seg));
}
