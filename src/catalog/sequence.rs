//! The state of one sequence: its options (pg_sequence) and its counter (the sequence relation's
//! one row: last_value, log_cnt, is_called), with PostgreSQL's nextval and setval arithmetic.
//!
//! # Design
//!
//! A [`Sequence`] is what PostgreSQL keeps in a sequence's relfilenode. Its options are fixed
//! for its life; CREATE SEQUENCE, ALTER SEQUENCE (any option but OWNED BY alone changes what
//! nextval does) and the RESTART of TRUNCATE ... RESTART IDENTITY each make a new `Sequence`
//! and hang it on a new catalog version of the relation, exactly as PostgreSQL writes a new
//! relfilenode: the change commits or rolls back with its transaction, and `generation` tells a
//! session that its cached values belong to a storage that was replaced.
//!
//! The counter itself is *not* transactional: a value handed out by nextval is gone whether the
//! transaction that took it commits or not, and concurrent sessions never get the same value.
//! It is one small mutex around three words (shared by the versions that ALTER SEQUENCE
//! without RESTART makes, so values other sessions take meanwhile are not handed out twice). An `AtomicI64` with a compare-and-swap loop would
//! do for nextval alone, but setval, RESTART and the log bookkeeping change `last_value`,
//! `is_called` and `log_cnt` together, and the critical section is a few arithmetic operations
//! (no allocation, no I/O, no other lock taken inside), so the mutex is as cheap as the CAS
//! loop when uncontended and simpler to get right.
//!
//! # The write-ahead log (not written yet)
//!
//! PostgreSQL does not log every nextval: when it logs, it logs the state as it will be
//! [`SEQ_LOG_VALS`] values ahead, and `log_cnt` counts down the values fetched since, so a crash
//! loses (skips) at most that many values. [`Sequence::fetch`] keeps the same `log_cnt`
//! arithmetic (it is visible in `SELECT * FROM seq`) and marks the one place where the WAL
//! will write that record; the commit of a transaction that used such a value must then wait
//! for the record to be flushed, as PostgreSQL's does.
//!
//! # Bounds
//!
//! One mutex and a few words per sequence; values are 64-bit with PostgreSQL's overflow rules.

use parking_lot::Mutex;
use serde::{Deserialize, Serialize};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use super::Oid;

/// Values logged ahead of the one handed out (PostgreSQL's SEQ_LOG_VALS).
pub const SEQ_LOG_VALS: i64 = 32;

/// A sequence's options (pg_sequence).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeqOptions {
    /// int2, int4 or int8 (pg_sequence.seqtypid).
    pub type_oid: Oid,
    pub start: i64,
    pub increment: i64,
    pub min: i64,
    pub max: i64,
    pub cache: i64,
    pub cycle: bool,
}

/// The sequence relation's row.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeqState {
    pub last_value: i64,
    pub log_cnt: i64,
    pub is_called: bool,
}

/// The column a sequence belongs to (OWNED BY, serial, identity): the table's OID and the
/// column's attribute number (1-based).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct OwnedBy {
    pub table: Oid,
    pub attnum: i16,
    /// An identity column's sequence (PostgreSQL's internal dependency), not a serial's.
    pub identity: bool,
}

/// Why nextval or setval refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SeqError {
    /// An ascending sequence without CYCLE is past its MAXVALUE (2200H).
    ReachedMax(i64),
    /// A descending sequence without CYCLE is past its MINVALUE (2200H).
    ReachedMin(i64),
    /// setval's value is outside MINVALUE..MAXVALUE (22003).
    OutOfBounds { value: i64, min: i64, max: i64 },
}

/// The resource manager of sequence records in the write-ahead log:
/// `[storage u32][last_value i64][is_called u8]`, not transactional (a counter never goes
/// back), applied by replay in log order (`durable::restore`).
pub const LOG_KIND: u8 = crate::wal::record::kind::FIRST_USER + 2;

/// A sequence record's payload for the storage numbered `storage`.
pub fn encode_log(storage: Oid, st: &SeqState) -> Vec<u8> {
    let mut p = Vec::with_capacity(13);
    p.extend_from_slice(&storage.to_le_bytes());
    p.extend_from_slice(&st.last_value.to_le_bytes());
    p.push(st.is_called as u8);
    p
}

/// Decodes a sequence record: (storage, last_value, is_called).
pub fn decode_log(p: &[u8]) -> Option<(Oid, i64, bool)> {
    Some((
        u32::from_le_bytes(p.get(0..4)?.try_into().ok()?),
        i64::from_le_bytes(p.get(4..12)?.try_into().ok()?),
        *p.get(12)? != 0,
    ))
}

/// Tells apart successive storages of sequences (PostgreSQL's relfilenode).
static GENERATION: AtomicU64 = AtomicU64::new(1);

/// One storage of a sequence: options, owner column and counter.
#[derive(Debug)]
pub struct Sequence {
    pub options: SeqOptions,
    pub owned_by: Option<OwnedBy>,
    /// Unique per storage; a session's cached values are dropped when it changes.
    pub generation: u64,
    /// Shared with the versions ALTER SEQUENCE makes without RESTART.
    state: Arc<Mutex<SeqState>>,
}

impl Sequence {
    pub fn new(options: SeqOptions, owned_by: Option<OwnedBy>, state: SeqState) -> Sequence {
        Sequence {
            options,
            owned_by,
            generation: GENERATION.fetch_add(1, Ordering::Relaxed),
            state: Arc::new(Mutex::new(state)),
        }
    }

    /// The storage ALTER SEQUENCE (without RESTART) makes: new options over the same counter,
    /// whose `log_cnt` is set (PostgreSQL resets it when an option changes).
    pub fn altered(
        &self,
        options: SeqOptions,
        owned_by: Option<OwnedBy>,
        log_cnt: i64,
    ) -> Sequence {
        self.state.lock().log_cnt = log_cnt;
        Sequence {
            options,
            owned_by,
            generation: GENERATION.fetch_add(1, Ordering::Relaxed),
            state: self.state.clone(),
        }
    }

    /// The counter as it stands (SELECT * FROM seq).
    pub fn state(&self) -> SeqState {
        *self.state.lock()
    }

    /// The counter for a checkpoint image: as it stands, and the next fetch logs it again
    /// (PostgreSQL logs the first nextval after a checkpoint: values handed out after the
    /// image may have been covered only by a record before its redo point).
    pub fn state_for_image(&self) -> SeqState {
        let mut st = self.state.lock();
        st.log_cnt = 0;
        *st
    }

    /// The next values for one nextval: the value to return and the last value fetched with
    /// it (equal unless CACHE > 1, when the caller keeps the values between them). PostgreSQL's
    /// nextval_internal, step for step, so last_value and log_cnt read as they do there.
    pub fn fetch(&self) -> Result<(i64, i64), SeqError> {
        self.fetch_logged(|_| Ok::<(), ()>(()))
            .unwrap_or_else(|()| unreachable!("no log"))
    }

    /// [`Sequence::fetch`] that calls `log` with the state to make durable, under the
    /// counter's lock and before the counter moves, when PostgreSQL would log it: values up
    /// to that state's are then handed out without a record, and a record appended under the
    /// lock lies in the log before every commit that could have used one of them. An error of
    /// `log` leaves the counter unchanged.
    pub fn fetch_logged<E>(
        &self,
        log_state: impl FnOnce(SeqState) -> Result<(), E>,
    ) -> Result<Result<(i64, i64), SeqError>, E> {
        let o = &self.options;
        let (incby, maxv, minv, cache) =
            (o.increment as i128, o.max as i128, o.min as i128, o.cache);
        let mut st = self.state.lock();
        let mut next = st.last_value as i128;
        let mut last = next;
        let mut result = next;
        let mut fetch = cache;
        let mut log = st.log_cnt;
        let mut rescnt = 0i64;
        if !st.is_called {
            // The first value is last_value itself.
            rescnt += 1;
            fetch -= 1;
        }
        let logging = log < fetch || !st.is_called;
        if logging {
            // The state SEQ_LOG_VALS values ahead is logged (below, once `next` is known).
            fetch += SEQ_LOG_VALS;
            log = fetch;
        }
        while fetch > 0 {
            if incby > 0 {
                if next + incby > maxv {
                    if rescnt > 0 {
                        break;
                    }
                    if !o.cycle {
                        return Ok(Err(SeqError::ReachedMax(o.max)));
                    }
                    next = minv;
                } else {
                    next += incby;
                }
            } else if next + incby < minv {
                if rescnt > 0 {
                    break;
                }
                if !o.cycle {
                    return Ok(Err(SeqError::ReachedMin(o.min)));
                }
                next = maxv;
            } else {
                next += incby;
            }
            fetch -= 1;
            if rescnt < cache {
                log -= 1;
                rescnt += 1;
                last = next;
                if rescnt == 1 {
                    result = next;
                }
            }
        }
        log -= fetch;
        if logging {
            log_state(SeqState {
                last_value: next as i64,
                log_cnt: 0,
                is_called: true,
            })?;
        }
        // The values computed lie within min..max, which are i64.
        *st = SeqState {
            last_value: last as i64,
            log_cnt: log.max(0),
            is_called: true,
        };
        Ok(Ok((result as i64, last as i64)))
    }

    /// setval(seq, value, is_called).
    pub fn set(&self, value: i64, is_called: bool) -> Result<(), SeqError> {
        self.set_logged(value, is_called, |_| Ok::<(), ()>(()))
            .unwrap_or_else(|()| unreachable!("no log"))
    }

    /// [`Sequence::set`] that logs the new state under the counter's lock first.
    pub fn set_logged<E>(
        &self,
        value: i64,
        is_called: bool,
        log_state: impl FnOnce(SeqState) -> Result<(), E>,
    ) -> Result<Result<(), SeqError>, E> {
        let o = &self.options;
        if value < o.min || value > o.max {
            return Ok(Err(SeqError::OutOfBounds {
                value,
                min: o.min,
                max: o.max,
            }));
        }
        // setval is logged at once, whatever log_cnt was.
        let mut st = self.state.lock();
        let new = SeqState {
            last_value: value,
            log_cnt: 0,
            is_called,
        };
        log_state(new)?;
        *st = new;
        Ok(Ok(()))
    }
}

#[cfg(all(test, not(feature = "shuttle")))]
mod tests {
    use super::*;

    fn seq(min: i64, max: i64, inc: i64, cache: i64, cycle: bool) -> Sequence {
        let start = if inc > 0 { min } else { max };
        Sequence::new(
            SeqOptions {
                type_oid: 20,
                start,
                increment: inc,
                min,
                max,
                cache,
                cycle,
            },
            None,
            SeqState {
                last_value: start,
                log_cnt: 0,
                is_called: false,
            },
        )
    }

    #[test]
    fn counts_and_logs_ahead() {
        let s = seq(1, 100, 1, 1, false);
        assert_eq!(s.fetch(), Ok((1, 1)));
        assert_eq!(s.state().log_cnt, 32);
        assert_eq!(s.fetch(), Ok((2, 2)));
        assert_eq!(s.state().log_cnt, 31);
        assert!(s.state().is_called);
    }

    #[test]
    fn bounds_and_cycle() {
        let s = seq(1, 3, 1, 1, false);
        for i in 1..=3 {
            assert_eq!(s.fetch().unwrap().0, i);
        }
        assert_eq!(s.fetch(), Err(SeqError::ReachedMax(3)));
        let c = seq(1, 2, 1, 1, true);
        let got: Vec<i64> = (0..5).map(|_| c.fetch().unwrap().0).collect();
        assert_eq!(got, vec![1, 2, 1, 2, 1]);
        let d = seq(-3, -1, -1, 1, false);
        let got: Vec<i64> = (0..3).map(|_| d.fetch().unwrap().0).collect();
        assert_eq!(got, vec![-1, -2, -3]);
        assert_eq!(d.fetch(), Err(SeqError::ReachedMin(-3)));
        let big = seq(1, i64::MAX, i64::MAX / 2, 1, false);
        assert!(big.fetch().is_ok() && big.fetch().is_ok() && big.fetch().is_ok());
        assert_eq!(big.fetch(), Err(SeqError::ReachedMax(i64::MAX)));
    }

    #[test]
    fn cache_fetches_ahead() {
        let s = seq(1, 100, 1, 10, false);
        assert_eq!(s.fetch(), Ok((1, 10)));
        assert_eq!(s.state().last_value, 10);
        assert_eq!(s.fetch(), Ok((11, 20)));
    }

    #[test]
    fn setval() {
        let s = seq(1, 100, 1, 1, false);
        s.set(50, true).unwrap();
        assert_eq!(s.fetch().unwrap().0, 51);
        s.set(7, false).unwrap();
        assert_eq!(s.fetch().unwrap().0, 7);
        assert!(matches!(s.set(0, true), Err(SeqError::OutOfBounds { .. })));
    }

    #[test]
    fn concurrent_sessions_never_share_a_value() {
        let s = std::sync::Arc::new(seq(1, i64::MAX, 1, 1, false));
        let handles: Vec<_> = (0..4)
            .map(|_| {
                let s = s.clone();
                std::thread::spawn(move || {
                    (0..1000).map(|_| s.fetch().unwrap().0).collect::<Vec<_>>()
                })
            })
            .collect();
        let mut all: Vec<i64> = handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect();
        all.sort_unstable();
        all.dedup();
        assert_eq!(all.len(), 4000);
    }
}
