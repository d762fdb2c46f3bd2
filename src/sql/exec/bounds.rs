//! What one run may spend: work between yields ([`Budget`]) and memory per operator ([`Held`]).

use std::mem::size_of;
use std::time::{Duration, Instant};

use crate::error::{code, PgError, PgResult};
use crate::sql::types::{Array, Numeric, Value};

use super::Row;

/// Ticks (rows produced or replayed) a run may take before it yields.
pub const BUDGET_ROWS: u32 = 1024;
/// Time a run may take before it yields.
pub const BUDGET_TIME: Duration = Duration::from_millis(1);
/// The clock is read once per this many ticks, so that fast rows do not pay for it.
const CLOCK_EVERY: u32 = 64;
/// Bytes (estimated) one operator may hold.
pub const WORK_MEM: usize = 256 << 20;
/// Bytes (estimated) of result rows materialized for the session.
pub const MAX_RESULT_BYTES: usize = 1 << 30;

/// The work a run may do before it yields, and the memory each of its operators may hold.
pub struct Budget {
    used: u32,
    /// Ticks below this need no check at all.
    next_check: u32,
    rows: u32,
    time: Duration,
    /// When the clock was first read in this budget (not at the start: reading it costs, and a
    /// statement that produces one row never needs it).
    started: Option<Instant>,
    spent: bool,
    pub(super) work_mem: usize,
}

impl Default for Budget {
    fn default() -> Self {
        Budget::new(BUDGET_ROWS, BUDGET_TIME, WORK_MEM)
    }
}

impl Budget {
    /// A budget of `rows` ticks (at least 1) or `time`, whichever is spent first, and
    /// `work_mem` bytes per operator.
    pub fn new(rows: u32, time: Duration, work_mem: usize) -> Budget {
        let rows = rows.max(1);
        Budget {
            used: 0,
            next_check: CLOCK_EVERY.min(rows),
            rows,
            time,
            started: None,
            spent: false,
            work_mem,
        }
    }

    /// Takes one tick; true when the budget was already spent, and the caller must yield before
    /// doing the work. The first tick after a reset is always granted, so every call makes
    /// progress.
    #[inline]
    pub fn tick(&mut self) -> bool {
        if self.used < self.next_check {
            self.used += 1;
            return false;
        }
        self.check()
    }

    #[cold]
    fn check(&mut self) -> bool {
        if self.spent || self.used >= self.rows {
            self.spent = true;
            return true;
        }
        let now = Instant::now();
        match self.started {
            None => self.started = Some(now),
            Some(s) if now.duration_since(s) >= self.time => {
                self.spent = true;
                return true;
            }
            Some(_) => {}
        }
        self.used += 1;
        self.next_check = (self.used + CLOCK_EVERY).min(self.rows);
        false
    }

    /// A fresh budget, after a yield.
    pub fn reset(&mut self) {
        *self = Budget::new(self.rows, self.time, self.work_mem);
    }
}

/// Bytes an operator holds, against a bound.
#[derive(Default)]
pub(crate) struct Held {
    bytes: usize,
}

impl Held {
    /// Counts `bytes` more; fails with 54000 past `limit`. `what` names the holder in the error.
    #[inline]
    pub fn add(&mut self, bytes: usize, limit: usize, what: &str) -> PgResult<()> {
        self.bytes = self.bytes.saturating_add(bytes);
        if self.bytes > limit {
            return Err(over_limit(limit, what));
        }
        Ok(())
    }

    pub fn sub(&mut self, bytes: usize) {
        self.bytes = self.bytes.saturating_sub(bytes);
    }

    /// The bytes counted now (EXPLAIN ANALYZE's memory figures).
    pub fn bytes(&self) -> usize {
        self.bytes
    }
}

#[cold]
fn over_limit(limit: usize, what: &str) -> PgError {
    PgError::new(
        code::PROGRAM_LIMIT_EXCEEDED,
        format!("{what} exceeds the memory limit of {}", show_bytes(limit)),
    )
    .with_detail(
        "The executor holds at most this much in one sort, hash, aggregate or materialized \
         CTE, and has no disk to spill to.",
    )
}

fn show_bytes(n: usize) -> String {
    if n >= 1 << 20 && n.is_multiple_of(1 << 20) {
        format!("{} MB", n >> 20)
    } else if n >= 1 << 10 && n.is_multiple_of(1 << 10) {
        format!("{} kB", n >> 10)
    } else {
        format!("{n} bytes")
    }
}

/// Estimated bytes of a row: its vector (with an allocator's overhead) and its values.
#[inline]
pub(crate) fn row_bytes(row: &[Value]) -> usize {
    size_of::<Row>() + 16 + values_bytes(row)
}

pub(super) fn values_bytes(values: &[Value]) -> usize {
    values.iter().map(value_bytes).sum()
}

fn value_bytes(v: &Value) -> usize {
    size_of::<Value>()
        + match v {
            Value::Text(s) => s.capacity(),
            Value::Bytea(b) => b.capacity(),
            // A boxed big integer and scale: a rough figure is enough here.
            Value::Numeric(_) => size_of::<Numeric>() + 16,
            Value::Array(a) => size_of::<Array>() + a.dims.capacity() * 8 + values_bytes(&a.items),
            Value::Record(fields) => values_bytes(fields),
            Value::Range(r) => value_bytes(&r.lower) + value_bytes(&r.upper),
            Value::Multirange(m) => m
                .ranges
                .iter()
                .map(|r| {
                    size_of::<crate::sql::types::Range>()
                        + value_bytes(&r.lower)
                        + value_bytes(&r.upper)
                })
                .sum(),
            _ => 0,
        }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn budget_grants_the_first_tick_and_refuses_past_its_rows() {
        let mut b = Budget::new(3, Duration::from_secs(60), WORK_MEM);
        assert!(!b.tick() && !b.tick() && !b.tick());
        assert!(b.tick());
        assert!(b.tick(), "a spent budget stays spent");
        b.reset();
        assert!(!b.tick());
        let mut one = Budget::new(0, Duration::from_secs(60), WORK_MEM);
        assert!(!one.tick());
        assert!(one.tick());
    }

    #[test]
    fn budget_runs_out_in_time() {
        let mut b = Budget::new(u32::MAX, Duration::ZERO, WORK_MEM);
        let mut n = 0;
        while !b.tick() {
            n += 1;
            assert!(n < 1000);
        }
        // The clock is first read at the 64th tick, and the next read finds the time spent.
        assert_eq!(n, 2 * CLOCK_EVERY as usize + 1);
    }

    #[test]
    fn held_fails_past_its_limit() {
        let mut h = Held::default();
        h.add(600, 1024, "Sort").unwrap();
        let e = h.add(600, 1024, "Sort").unwrap_err();
        assert_eq!(e.code, "54000");
        assert_eq!(e.message, "Sort exceeds the memory limit of 1 kB");
        h.sub(600);
        h.add(400, 1024, "Sort").unwrap();
    }
}
