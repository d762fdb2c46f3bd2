//! Hash joins (plan/join.rs): the right (inner) side is read into a hash table on its key
//! columns, then each left row looks up its key and is joined with the rows found, each pair
//! checked with the join's equalities and the rest of its condition.
//!
//! A key with a NULL never matches: such a right row goes into no bucket (it is kept only for a
//! RIGHT or FULL join, which returns it with NULLs), such a left row finds nothing. As in
//! PostgreSQL, the inner side is only read once the outer side has a row (or when the join
//! must return unmatched inner rows). The table holds at most `WORK_MEM` bytes (estimated);
//! past that the statement fails with 54000 naming "Hash", like the other operators that hold
//! rows (PostgreSQL would spill to disk).

use std::collections::HashMap;
use std::hash::{Hash, Hasher};

use crate::error::PgResult;
use crate::sql::exec::EvalCx;
use crate::sql::plan::join::HashJoin as Spec;
use crate::sql::plan::{JoinKind, Node, Plan};
use crate::sql::types::{self, Value};

use super::bounds::{row_bytes, Held};
use super::explain::NodeInstr;
use super::{Budget, Operator, Row, Step};

/// A key of the hash table: values equal under `types::compare` hash alike (the planner only
/// joins on types for which that holds: one type, or integers of any width).
struct HKey(Vec<Value>);

impl PartialEq for HKey {
    fn eq(&self, o: &Self) -> bool {
        self.0.len() == o.0.len()
            && self
                .0
                .iter()
                .zip(&o.0)
                .all(|(a, b)| types::compare(a, b).is_eq())
    }
}

impl Eq for HKey {}

impl Hash for HKey {
    fn hash<H: Hasher>(&self, h: &mut H) {
        for v in &self.0 {
            hash_value(v, h);
        }
    }
}

fn hash_value<H: Hasher>(v: &Value, h: &mut H) {
    match v {
        Value::Int2(_) | Value::Int4(_) | Value::Int8(_) => v.as_i64().hash(h),
        Value::Float4(x) => float_bits(*x as f64).hash(h),
        Value::Float8(x) => float_bits(*x).hash(h),
        Value::Numeric(n) => n.hash(h),
        Value::Text(s) => s.hash(h),
        Value::CiText(s) => crate::sql::types::citext::hash(s, h),
        Value::Bytea(b) => b.hash(h),
        Value::Bool(b) => b.hash(h),
        Value::Date(d) => d.hash(h),
        Value::Time(t) | Value::Timestamp(t) | Value::TimestampTz(t) => t.hash(h),
        Value::Uuid(u) => u.hash(h),
        Value::Enum(o) => o.hash(h),
        Value::Oid(o) => o.hash(h),
        // A range by its flags and bounds (its bounds are scalars: no deep recursion).
        Value::Range(r) => {
            r.flags.hash(h);
            hash_value(&r.lower, h);
            hash_value(&r.upper, h);
        }
        Value::Multirange(m) => {
            m.ranges.len().hash(h);
            for r in &m.ranges {
                r.flags.hash(h);
                hash_value(&r.lower, h);
                hash_value(&r.upper, h);
            }
        }
        // Other types are not hashed by the planner's choice; equal anyway.
        _ => 0u8.hash(h),
    }
}

/// Bits of a float with the values that compare equal made one (0 and -0, every NaN).
fn float_bits(x: f64) -> u64 {
    if x == 0.0 {
        0
    } else if x.is_nan() {
        u64::MAX
    } else {
        x.to_bits()
    }
}

enum Phase {
    /// Pull the first left row, then build.
    Start,
    /// Read the right side into the table.
    Build,
    /// Pull the next left row.
    Left,
    /// Join the current left row with the candidates of its key.
    Probe,
    /// RIGHT and FULL joins: the right rows no left row matched.
    Unmatched(usize),
    Done,
}

pub(super) struct HashJoin {
    left: Box<dyn Operator>,
    right: Box<dyn Operator>,
    phase: Phase,
    rows: Vec<Row>,
    matched: Vec<bool>,
    table: HashMap<HKey, Vec<u32>>,
    held: Held,
    current: Row,
    /// The current left row's key (None: NULL, no candidates) and the next candidate.
    key: Option<HKey>,
    pos: usize,
    left_matched: bool,
    /// The first left row, pulled before the build.
    first: Option<Row>,
    /// Under EXPLAIN ANALYZE: where the table's size and build time are reported, and when
    /// the build's current stretch began (timed per call, not per row).
    instr: Option<NodeInstr>,
    build_from: Option<std::time::Instant>,
}

impl HashJoin {
    pub(super) fn new(
        left: Box<dyn Operator>,
        right: Box<dyn Operator>,
        instr: Option<NodeInstr>,
    ) -> HashJoin {
        HashJoin {
            left,
            right,
            phase: Phase::Start,
            rows: Vec::new(),
            matched: Vec::new(),
            table: HashMap::new(),
            held: Held::default(),
            current: Vec::new(),
            key: None,
            pos: 0,
            left_matched: false,
            first: None,
            instr,
            build_from: None,
        }
    }

    /// The build's clock: started when the build starts or resumes, stopped when it ends or
    /// the call returns.
    fn build_clock(&mut self, on: bool) {
        let Some(i) = self.instr.as_ref().filter(|i| i.timing) else {
            return;
        };
        match (on, self.build_from.take()) {
            (true, _) => self.build_from = Some(std::time::Instant::now()),
            (false, Some(t)) => i.stat.add_build(t.elapsed()),
            (false, None) => {}
        }
    }

    /// The build is done: the table's figures for EXPLAIN ANALYZE.
    fn built(&mut self) {
        self.build_clock(false);
        if let Some(i) = &self.instr {
            i.stat.note_memory(self.held.bytes());
            i.stat.note_buckets(buckets(self.table.capacity()));
        }
    }

    fn key_of(row: &[Value], cols: &[usize]) -> Option<HKey> {
        let vals: Vec<Value> = cols.iter().map(|&c| row[c].clone()).collect();
        (!vals.iter().any(Value::is_null)).then_some(HKey(vals))
    }

    fn start_probe(&mut self, spec: &Spec, l: Row) {
        self.key = Self::key_of(&l, &spec.left_keys);
        self.current = l;
        self.pos = 0;
        self.left_matched = false;
        self.phase = Phase::Probe;
    }
}

fn keeps_left(kind: JoinKind) -> bool {
    matches!(kind, JoinKind::Left | JoinKind::Full)
}

fn keeps_right(kind: JoinKind) -> bool {
    matches!(kind, JoinKind::Right | JoinKind::Full)
}

/// The buckets of a std `HashMap` that holds `capacity` entries: a power of two with one in
/// eight kept free (hashbrown's layout; small tables are full powers of two).
fn buckets(capacity: usize) -> usize {
    if capacity < 8 {
        (capacity + 1).next_power_of_two()
    } else {
        (capacity * 8 / 7).next_power_of_two()
    }
}

impl Operator for HashJoin {
    fn next(&mut self, plan: &Plan, cx: &mut EvalCx, b: &mut Budget) -> PgResult<Step> {
        if matches!(self.phase, Phase::Build) {
            self.build_clock(true);
        }
        let step = self.step(plan, cx, b);
        self.build_clock(false);
        step
    }
}

impl HashJoin {
    fn step(&mut self, plan: &Plan, cx: &mut EvalCx, b: &mut Budget) -> PgResult<Step> {
        let Node::HashJoin(spec) = &plan.node else {
            unreachable!("HashJoin opened from another node")
        };
        loop {
            match self.phase {
                Phase::Start => match self.left.next(&spec.left, cx, b)? {
                    Step::Row(l) => {
                        self.first = Some(l);
                        self.phase = Phase::Build;
                        self.build_clock(true);
                    }
                    Step::Done if keeps_right(spec.kind) => {
                        self.phase = Phase::Build;
                        self.build_clock(true);
                    }
                    Step::Done => {
                        self.phase = Phase::Done;
                        return Ok(Step::Done);
                    }
                    other => return Ok(other),
                },
                Phase::Build => match self.right.next(&spec.right, cx, b)? {
                    Step::Row(r) => {
                        self.held.add(row_bytes(&r), b.work_mem, "Hash")?;
                        let i = self.rows.len() as u32;
                        if let Some(k) = Self::key_of(&r, &spec.right_keys) {
                            self.table.entry(k).or_default().push(i);
                        } else if !keeps_right(spec.kind) {
                            // Never matched, never returned.
                            continue;
                        }
                        self.rows.push(r);
                        self.matched.push(false);
                    }
                    Step::Done => {
                        self.built();
                        match self.first.take() {
                            Some(l) => self.start_probe(spec, l),
                            None => self.phase = Phase::Unmatched(0),
                        }
                    }
                    other => return Ok(other),
                },
                Phase::Left => match self.left.next(&spec.left, cx, b)? {
                    Step::Row(l) => self.start_probe(spec, l),
                    Step::Done if keeps_right(spec.kind) => self.phase = Phase::Unmatched(0),
                    Step::Done => {
                        self.phase = Phase::Done;
                        return Ok(Step::Done);
                    }
                    other => return Ok(other),
                },
                Phase::Probe => {
                    let cand = self
                        .key
                        .as_ref()
                        .and_then(|k| self.table.get(k))
                        .and_then(|v| v.get(self.pos))
                        .copied();
                    let Some(i) = cand else {
                        self.phase = Phase::Left;
                        if !self.left_matched && keeps_left(spec.kind) {
                            let mut row = std::mem::take(&mut self.current);
                            row.extend(std::iter::repeat_n(Value::Null, spec.right.columns.len()));
                            return Ok(Step::Row(row));
                        }
                        continue;
                    };
                    if b.tick() {
                        return Ok(Step::Yield);
                    }
                    self.pos += 1;
                    let r = &self.rows[i as usize];
                    let mut row = Vec::with_capacity(self.current.len() + r.len());
                    row.extend_from_slice(&self.current);
                    row.extend_from_slice(r);
                    let mut ok = true;
                    for c in spec.conds.iter().chain(spec.on.as_ref()) {
                        if c.eval(&row, cx)? != Value::Bool(true) {
                            ok = false;
                            break;
                        }
                    }
                    if ok {
                        self.left_matched = true;
                        self.matched[i as usize] = true;
                        return Ok(Step::Row(row));
                    }
                }
                Phase::Unmatched(i) => {
                    let Some(j) = (i..self.rows.len()).find(|&j| !self.matched[j]) else {
                        self.phase = Phase::Done;
                        return Ok(Step::Done);
                    };
                    if b.tick() {
                        return Ok(Step::Yield);
                    }
                    self.phase = Phase::Unmatched(j + 1);
                    let mut row: Row =
                        std::iter::repeat_n(Value::Null, spec.left.columns.len()).collect();
                    row.extend(std::mem::take(&mut self.rows[j]));
                    return Ok(Step::Row(row));
                }
                Phase::Done => return Ok(Step::Done),
            }
        }
    }
}
