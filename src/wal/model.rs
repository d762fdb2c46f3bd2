//! Model-checked tests of reservation, copy and flush, run with
//! `cargo test --features shuttle --lib wal::model`.
//!
//! Shuttle runs the real [`WalBuffer`] (through the `sync` facade) under randomized and PCT
//! schedules, with a writer thread that hands the complete prefix to an in-memory sink. The ring
//! is one page and the records are large, so inserters wrap it, wait for space and copy in
//! pieces. Each test names what it rules out: a waiter released before its bytes were synced
//! (checked by every waiter when it wakes), the writer writing a range whose record is not
//! copied yet or a hole (the sink's bytes, which are written once and never rewritten, must
//! read as whole records, back to back, up to the end).

use super::record::{self, kind};
use super::*;
use crate::sync::{AtomicU64, Mutex, Ordering};
use shuttle::thread;

const START: u64 = 4096;
const RING: usize = 4096;

fn run(f: impl Fn() + Send + Sync + 'static) {
    crate::sync::model_run(50_000, 300, f)
}

/// An in-memory sink: bytes appended in order, `synced` = how far a sync covered.
struct MemSink {
    data: Vec<u8>,
    synced: std::sync::Arc<AtomicU64>,
}

impl Sink for MemSink {
    fn write(&mut self, lsn: u64, bytes: &[u8]) -> PgResult<()> {
        assert_eq!(lsn, START + self.data.len() as u64, "writes are in order");
        self.data.extend_from_slice(bytes);
        Ok(())
    }
    fn sync(&mut self) -> PgResult<()> {
        self.synced
            .store(START + self.data.len() as u64, Ordering::SeqCst);
        Ok(())
    }
}

/// The records the sink's bytes hold, back to back from `START`; panics on anything else.
fn parse(data: &[u8]) -> Vec<Record> {
    let mut out = Vec::new();
    let mut off = 0usize;
    while off < data.len() {
        let pos = START + off as u64;
        let h: [u8; record::HEADER_LEN] = data[off..off + record::HEADER_LEN].try_into().unwrap();
        let hd = record::parse_header(pos, &h).unwrap_or_else(|| panic!("no record at {pos}"));
        let payload = data[off + record::HEADER_LEN..off + hd.total_len].to_vec();
        assert_eq!(record::crc_of(&h, &payload), hd.crc, "record at {pos}");
        out.push(Record {
            lsn: pos,
            end: record::align(pos + hd.total_len as u64),
            xid: hd.xid,
            kind: hd.kind,
            info: hd.info,
            payload,
        });
        off = (record::align(pos + hd.total_len as u64) - START) as usize;
    }
    assert_eq!(off, data.len(), "the log ends at a record boundary");
    out
}

/// An inserter thread's body: gets the buffer and the synced position, returns its record's
/// end (0 for none).
type Inserter = Box<dyn FnOnce(Arc<WalBuffer>, std::sync::Arc<AtomicU64>) -> u64 + Send>;

/// Runs `inserters` (each returning its record ends, 0 for a dropped reservation) against a
/// writer until `total` bytes are written; returns the sink's bytes and the ends.
fn scenario(inserters: Vec<Inserter>, total: u64) -> (Vec<u8>, Vec<u64>) {
    let buf = Arc::new(WalBuffer::new(START, RING));
    let synced = std::sync::Arc::new(AtomicU64::new(START));
    let writer = {
        let (buf, synced) = (buf.clone(), synced.clone());
        thread::spawn(move || {
            let mut sink = MemSink {
                data: Vec::new(),
                synced,
            };
            while buf.write_lsn().0 < START + total {
                if !buf.write_step(&mut sink, true).unwrap() {
                    thread::yield_now();
                }
            }
            sink.data
        })
    };
    let hs: Vec<_> = inserters
        .into_iter()
        .map(|f| {
            let (buf, synced) = (buf.clone(), synced.clone());
            thread::spawn(move || f(buf, synced))
        })
        .collect();
    let ends = hs.into_iter().map(|h| h.join().unwrap()).collect();
    (writer.join().unwrap(), ends)
}

/// Inserts a record of `len` payload bytes and waits for it to be flushed; on release, every
/// byte up to its end must have been synced (invariant 5).
fn committer(xid: u64, len: usize) -> Inserter {
    Box::new(move |buf, synced| {
        let p = vec![xid as u8; len];
        let a = buf.insert_blocking(kind::FIRST_USER, 0, xid, &p).unwrap();
        buf.wait_flushed_blocking(a.end).unwrap();
        assert!(
            synced.load(Ordering::SeqCst) >= a.end.0,
            "released before its record was synced"
        );
        a.end.0
    })
}

/// No waiter is released before its bytes are synced; the writer never writes an unfinished
/// range (what it wrote parses as whole records); records wrap the ring and copy in pieces.
#[test]
fn waiters_are_released_only_after_their_bytes_are_synced() {
    run(|| {
        let lens = [1500usize, 3000, 700];
        let total: u64 = lens.iter().map(|&l| record::space_for(l)).sum();
        let ins = lens
            .iter()
            .enumerate()
            .map(|(i, &l)| committer(i as u64 + 1, l))
            .collect();
        let (data, ends) = scenario(ins, total);
        let recs = parse(&data);
        assert_eq!(recs.len(), 3);
        let mut got: Vec<_> = recs.iter().map(|r| (r.end, r.xid)).collect();
        got.sort();
        let mut want: Vec<_> = ends.iter().zip(1..).map(|(&e, x)| (e, x)).collect();
        want.sort();
        assert_eq!(got, want);
        assert!(recs
            .iter()
            .all(|r| r.payload.iter().all(|&b| b == r.xid as u8)));
    });
}

/// A reservation dropped unfilled (a failing session), racing with other inserters and the
/// writer, becomes a void record: never a hole, never written before it is filled.
#[test]
fn a_dropped_reservation_never_becomes_a_hole() {
    run(|| {
        let dropped = record::space_for(2000);
        let total = dropped + record::space_for(900) + record::space_for(2500);
        let ins: Vec<Inserter> = vec![
            committer(1, 900),
            Box::new(|buf, _| {
                let r = buf.reserve(2000).unwrap();
                thread::yield_now();
                drop(r);
                0
            }),
            committer(2, 2500),
        ];
        let (data, _) = scenario(ins, total);
        let recs = parse(&data);
        let voids: Vec<_> = recs.iter().filter(|r| r.kind == kind::VOID).collect();
        assert_eq!(voids.len(), 1);
        assert_eq!(voids[0].end - voids[0].lsn, dropped);
        assert_eq!(recs.len(), 3);
    });
}

/// The complete prefix never passes an unfinished insertion: whenever the prefix computed by
/// the writer's rule covers part of a reservation, that reservation's record is whole in the
/// ring (checked on the ring itself, while the inserters run).
#[test]
fn the_complete_prefix_never_passes_an_unfinished_insertion() {
    run(|| {
        let buf = Arc::new(WalBuffer::new(START, 1 << 16));
        // Reservations made so far, as their owners see them.
        let claims = Arc::new(Mutex::new(Vec::<(u64, u64)>::new()));
        let hs: Vec<_> = (0..2)
            .map(|i| {
                let (buf, claims) = (buf.clone(), claims.clone());
                thread::spawn(move || {
                    let p = vec![i as u8; 100 + 50 * i as usize];
                    let r = buf.reserve(p.len()).unwrap();
                    let at = r.lsn().0;
                    claims.lock().push((at, at + record::space_for(p.len())));
                    thread::yield_now();
                    r.write_blocking(kind::FIRST_USER, 0, i, &p).unwrap();
                })
            })
            .collect();
        let checker = {
            let (buf, claims) = (buf.clone(), claims.clone());
            thread::spawn(move || {
                for _ in 0..6 {
                    let seen = claims.lock().clone();
                    let upto = buf.completed_upto();
                    for (s, e) in seen {
                        if upto > s {
                            let (a, b) = buf.ring_slices(s, e);
                            let bytes = [a, b].concat();
                            let h: [u8; record::HEADER_LEN] =
                                bytes[..record::HEADER_LEN].try_into().unwrap();
                            let hd = record::parse_header(s, &h).unwrap_or_else(|| {
                                panic!("prefix {upto} passes an unfinished insertion at {s}")
                            });
                            let payload = &bytes[record::HEADER_LEN..hd.total_len];
                            assert_eq!(record::crc_of(&h, payload), hd.crc, "record at {s}");
                        }
                    }
                    thread::yield_now();
                }
            })
        };
        for h in hs {
            h.join().unwrap();
        }
        checker.join().unwrap();
        assert_eq!(buf.completed_upto(), buf.insert_lsn().0);
    });
}

/// A failed sync releases every waiter with an error, and nothing is flushed after it.
#[test]
fn a_failed_sync_releases_every_waiter_with_an_error() {
    struct FailingSink;
    impl Sink for FailingSink {
        fn write(&mut self, _: u64, _: &[u8]) -> PgResult<()> {
            Ok(())
        }
        fn sync(&mut self) -> PgResult<()> {
            Err(PgError::fatal("58030", "could not fdatasync file"))
        }
    }
    run(|| {
        let buf = Arc::new(WalBuffer::new(START, RING));
        let writer = {
            let buf = buf.clone();
            thread::spawn(move || loop {
                match buf.write_step(&mut FailingSink, true) {
                    Ok(true) => {}
                    Ok(false) => thread::yield_now(),
                    Err(e) => {
                        buf.fail(e);
                        return;
                    }
                }
            })
        };
        let hs: Vec<_> = (0..2)
            .map(|i| {
                let buf = buf.clone();
                thread::spawn(move || {
                    let a = buf.insert_blocking(kind::FIRST_USER, 0, i, b"x").ok();
                    a.map(|a| buf.wait_flushed_blocking(a.end))
                })
            })
            .collect();
        for h in hs {
            if let Some(r) = h.join().unwrap() {
                assert!(r.is_err(), "no flush succeeds");
            }
        }
        writer.join().unwrap();
        assert_eq!(buf.flush_lsn().0, START);
    });
}
