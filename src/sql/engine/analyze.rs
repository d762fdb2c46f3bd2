//! ANALYZE: statistics of a table's columns, gathered as PostgreSQL's ANALYZE gathers them
//! (analyze.c, compute_scalar_stats), for the planner's estimates and for pg_stats.
//!
//! One pass over the rows the snapshot sees keeps a uniform sample of at most `SAMPLE_ROWS`
//! of them (reservoir sampling; a row is decoded only when it enters the sample) and counts
//! them all. A table that fits in the sample is read
//! whole, and then every figure is exact and the same as PostgreSQL's for the same rows in the
//! same order. Per column, over the sample:
//!
//! * `null_frac`: the share of NULLs; `avg_width`: the average stored width of the others;
//! * `n_distinct`: the distinct values in the sample if every one of them was seen twice or
//!   more (all of them are taken to be there), -1 × the non-null share if none repeats (a
//!   unique column), else Haas and Stokes's estimate from the values seen once; stored as a
//!   negative share of the rows when it exceeds a tenth of them (it grows with the table);
//! * the most common values (at most `TARGET`) with their frequencies: every value seen more
//!   than once when the whole table was read, else those more common than the rest by more
//!   than the sampling error (PostgreSQL's analyze_mcv_list);
//! * a histogram of at most `TARGET + 1` bounds over the other values, equally many rows
//!   between two bounds;
//! * `correlation` between the values' order and their order in the table, from -1 to 1.
//!
//! Bounds: the sample holds at most `SAMPLE_ROWS` rows; the pass over the table is one
//! statement's work (it is not yet cut into budget ticks: a table of a million rows holds its
//! shard for a few hundred milliseconds).

use std::cmp::Ordering;

use super::{Rel, Value};
use crate::sql::types::{self, Type};
use crate::storage::RowId;
use crate::txn::Snapshot;

/// PostgreSQL's default_statistics_target: entries in the most-common list and histogram bins.
pub const TARGET: usize = 100;
/// Rows sampled (300 × the target, as PostgreSQL).
pub const SAMPLE_ROWS: usize = 300 * TARGET;

/// What ANALYZE found for one column.
#[derive(Debug, Clone, PartialEq)]
pub struct ColumnStats {
    pub null_frac: f64,
    pub avg_width: i32,
    pub n_distinct: f64,
    /// Most common values, most common first, with the share of rows of each.
    pub mcv: Vec<(Value, f64)>,
    /// Histogram bounds, ascending (empty: no histogram).
    pub histogram: Vec<Value>,
    pub correlation: Option<f64>,
}

/// What ANALYZE found for a table.
#[derive(Debug, Clone, PartialEq)]
pub struct TableStatistics {
    /// Rows the snapshot saw (pg_class.reltuples).
    pub rows: f64,
    /// By column position; None for a dropped column.
    pub columns: Vec<Option<ColumnStats>>,
}

/// A small xorshift generator for the reservoir: uniform enough for sampling, no dependency.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

/// Samples `rel` through `snap` and computes its statistics.
pub fn analyze(rel: &Rel, snap: &Snapshot) -> TableStatistics {
    // (position in the table's order, row)
    let mut sample: Vec<(u64, Vec<Value>)> = Vec::new();
    let mut seen: u64 = 0;
    let seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0x9e37_79b9, |d| d.as_nanos() as u64)
        | 1;
    let mut rng = Rng(seed);
    let mut pos: RowId = 0;
    loop {
        // Rows are decoded only when they enter the sample: past the first SAMPLE_ROWS, a
        // table of n rows decodes about SAMPLE_ROWS × ln(n / SAMPLE_ROWS) more, not n.
        let next = super::scan_packed(rel, pos, 4096, snap, |_, packed| {
            if sample.len() < SAMPLE_ROWS {
                sample.push((seen, packed.decode()));
            } else {
                let k = rng.below(seen + 1) as usize;
                if k < SAMPLE_ROWS {
                    sample[k] = (seen, packed.decode());
                }
            }
            seen += 1;
            true
        });
        match next {
            Some(p) => pos = p,
            None => break,
        }
    }
    sample.sort_unstable_by_key(|(at, _)| *at);
    let rows: Vec<Vec<Value>> = sample.into_iter().map(|(_, r)| r).collect();
    let total = seen as f64;
    let columns = rel
        .columns
        .iter()
        .enumerate()
        .map(|(c, col)| {
            // An empty table has no statistics of its columns (PostgreSQL stores none).
            (!col.dropped && seen > 0).then(|| {
                let values: Vec<&Value> = rows.iter().map(|r| &r[c]).collect();
                column_stats(&values, Type(col.type_oid), total)
            })
        })
        .collect();
    TableStatistics {
        rows: total,
        columns,
    }
}

/// The width PostgreSQL stores a value in: its type's length, or a variable-length value's
/// bytes and header (1 byte up to 126 bytes, else 4).
fn stored_width(v: &Value, ty: Type) -> usize {
    let varlena = |n: usize| if n < 127 { n + 1 } else { n + 4 };
    match v {
        Value::Bool(_) => 1,
        Value::Int2(_) => 2,
        Value::Int4(_) | Value::Float4(_) | Value::Date(_) | Value::Oid(_) => 4,
        Value::Int8(_)
        | Value::Float8(_)
        | Value::Time(_)
        | Value::Timestamp(_)
        | Value::TimestampTz(_) => 8,
        Value::TimeTz(..) => 12,
        Value::Interval(_) | Value::Uuid(_) => 16,
        Value::Numeric(n) => numeric_width(&n.to_string()),
        Value::Text(s) if ty == Type::NAME => s.len().max(64),
        Value::Text(s) => varlena(s.len()),
        Value::Bytea(b) => varlena(b.len()),
        other => {
            let mut buf = Vec::new();
            super::packed::encode_value(other, &mut buf);
            varlena(buf.len())
        }
    }
}

/// The bytes PostgreSQL stores a numeric in, from its text form: a 1-byte length, a 2-byte
/// header and 2 bytes per base-10000 digit between the first and the last non-zero one
/// (special values and zero have none).
fn numeric_width(text: &str) -> usize {
    let t = text.trim_start_matches('-');
    if !t.bytes().next().is_some_and(|b| b.is_ascii_digit()) {
        return 3;
    }
    let (int, frac) = t.split_once('.').unwrap_or((t, ""));
    let int = int.trim_start_matches('0');
    // Groups of four decimal digits on each side of the point, aligned on it.
    let lead = (4 - int.len() % 4) % 4;
    let mut digits: Vec<u8> = std::iter::repeat_n(b'0', lead).chain(int.bytes()).collect();
    digits.extend(frac.bytes());
    digits.extend(std::iter::repeat_n(b'0', (4 - frac.len() % 4) % 4));
    let groups: Vec<&[u8]> = digits.chunks(4).collect();
    let nonzero = |g: &&[u8]| g.iter().any(|&b| b != b'0');
    let ndigits = match (
        groups.iter().position(nonzero),
        groups.iter().rposition(nonzero),
    ) {
        (Some(first), Some(last)) => last - first + 1,
        _ => 0,
    };
    3 + 2 * ndigits
}

/// One column's statistics over the sampled values `values` (in table order) of a table of
/// `total` rows.
fn column_stats(values: &[&Value], ty: Type, total: f64) -> ColumnStats {
    let samplerows = values.len();
    let mut nonnull: Vec<(usize, &Value)> = values
        .iter()
        .filter(|v| !matches!(v, Value::Null))
        .copied()
        .enumerate()
        .collect();
    let null_cnt = samplerows - nonnull.len();
    if nonnull.is_empty() {
        return ColumnStats {
            null_frac: if samplerows == 0 { 0.0 } else { 1.0 },
            avg_width: 0,
            n_distinct: 0.0,
            mcv: Vec::new(),
            histogram: Vec::new(),
            correlation: None,
        };
    }
    let null_frac = null_cnt as f64 / samplerows as f64;
    let width: usize = nonnull.iter().map(|(_, v)| stored_width(v, ty)).sum();
    let avg_width = (width as f64 / nonnull.len() as f64) as i32;
    // Sorted by value, ties in table order (PostgreSQL's compare_scalars).
    nonnull.sort_by(|a, b| types::compare(a.1, b.1).then(a.0.cmp(&b.0)));
    let n = nonnull.len();
    // Runs of equal values: (first index in `nonnull`, count).
    let mut runs: Vec<(usize, usize)> = Vec::new();
    for (i, (_, v)) in nonnull.iter().enumerate() {
        match runs.last_mut() {
            Some((start, cnt)) if types::compare(nonnull[*start].1, v) == Ordering::Equal => {
                *cnt += 1
            }
            _ => runs.push((i, 1)),
        }
    }
    let ndistinct = runs.len();
    let nmultiple = runs.iter().filter(|(_, c)| *c > 1).count();
    let mut n_distinct = if nmultiple == 0 {
        -(1.0 - null_frac)
    } else if nmultiple == ndistinct {
        ndistinct as f64
    } else {
        let f1 = (ndistinct - nmultiple) as f64;
        let d = ndistinct as f64;
        let nn = n as f64;
        let big_n = total * (1.0 - null_frac);
        let mut est = if big_n > 0.0 {
            (nn * d) / ((nn - f1) + f1 * nn / big_n)
        } else {
            0.0
        };
        if est < d {
            est = d;
        }
        if est > big_n {
            est = big_n;
        }
        (est + 0.5).floor()
    };
    if n_distinct > 0.1 * total {
        n_distinct = -(n_distinct / total);
    }
    // Candidates for the most common values: those seen more than once, most common first
    // (ties in value order).
    let mut track: Vec<(usize, usize)> = runs.iter().copied().filter(|(_, c)| *c > 1).collect();
    track.sort_by_key(|t| std::cmp::Reverse(t.1));
    track.truncate(TARGET);
    let whole_table = samplerows as f64 >= total;
    let keep = if track.len() == ndistinct && n_distinct > 0.0 && track.len() <= TARGET {
        track.len()
    } else {
        mcv_count(
            &track,
            n_distinct,
            null_frac,
            samplerows,
            total,
            whole_table,
        )
    };
    track.truncate(keep);
    let mcv: Vec<(Value, f64)> = track
        .iter()
        .map(|(start, cnt)| (nonnull[*start].1.clone(), *cnt as f64 / samplerows as f64))
        .collect();
    // The histogram, over the values not in the list.
    let mut histogram = Vec::new();
    if keep < ndistinct {
        let in_mcv = |i: usize| {
            track
                .iter()
                .any(|(start, cnt)| i >= *start && i < start + cnt)
        };
        let rest: Vec<&Value> = (0..n)
            .filter(|&i| !in_mcv(i))
            .map(|i| nonnull[i].1)
            .collect();
        let num_hist = (ndistinct - keep).min(TARGET + 1);
        if num_hist >= 2 {
            let nvals = rest.len();
            for i in 0..num_hist {
                histogram.push(rest[i * (nvals - 1) / (num_hist - 1)].clone());
            }
        }
    }
    // Correlation of the sorted order with the table order (positions among the non-null
    // values).
    let correlation = (n > 1).then(|| {
        let nf = n as f64;
        let xy: f64 = nonnull
            .iter()
            .enumerate()
            .map(|(rank, (at, _))| rank as f64 * *at as f64)
            .sum();
        let xsum = (nf - 1.0) * nf / 2.0;
        let x2sum = (nf - 1.0) * nf * (2.0 * nf - 1.0) / 6.0;
        (nf * xy - xsum * xsum) / (nf * x2sum - xsum * xsum)
    });
    ColumnStats {
        null_frac,
        avg_width,
        n_distinct,
        mcv,
        histogram,
        correlation,
    }
}

/// How many of the candidates `track` (most common first: (start, count)) stay in the most
/// common list: all when the whole table was sampled, else those whose count is above what a
/// value of the rest would show plus twice the sampling error (PostgreSQL's
/// analyze_mcv_list).
fn mcv_count(
    track: &[(usize, usize)],
    n_distinct: f64,
    null_frac: f64,
    samplerows: usize,
    total: f64,
    whole_table: bool,
) -> usize {
    let mut num = track.len();
    if whole_table || num == 0 {
        return num;
    }
    let ndistinct_table = if n_distinct < 0.0 {
        -n_distinct * total
    } else {
        n_distinct
    };
    let n = samplerows as f64;
    let mut sumcount: f64 = track[..num - 1].iter().map(|t| t.1 as f64).sum();
    while num > 0 {
        let mut selec = (1.0 - sumcount / n - null_frac).clamp(0.0, 1.0);
        let other = ndistinct_table - (num - 1) as f64;
        if other > 1.0 {
            selec /= other;
        }
        let count = track[num - 1].1 as f64;
        let k = total * count / n;
        let variance = n * k * (total - k) * (total - n) / (total * total * (total - 1.0));
        if count > selec * n + 2.0 * variance.max(0.0).sqrt() + 0.5 {
            break;
        }
        num -= 1;
        if num == 0 {
            break;
        }
        sumcount -= track[num - 1].1 as f64;
    }
    num
}

/// The resource manager of statistics records in the write-ahead log: `[storage u32]` and
/// [`TableStatistics::encode`]'s bytes, written by each ANALYZE of a permanent table, not
/// transactional (the newest wins at replay, as PostgreSQL's pg_statistic rows are simply
/// replaced), and kept in checkpoint images, so that a restart does not leave the planner
/// without statistics until the background vacuum analyzes again.
pub const LOG_KIND: u8 = crate::wal::record::kind::FIRST_USER + 3;

/// The largest encoded statistics kept for one table (its values are at most 201 per column,
/// but a value may be wide): bigger ones are not logged, and after a restart the table has
/// none until it is analyzed again.
pub const MAX_ENCODED: usize = 16 << 20;

/// Reads the little-endian fields of an encoded [`TableStatistics`].
struct Fields<'a>(&'a [u8]);

impl<'a> Fields<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let (head, rest) = (self.0.get(..n)?, self.0.get(n..)?);
        self.0 = rest;
        Some(head)
    }
    fn u8(&mut self) -> Option<u8> {
        Some(self.take(1)?[0])
    }
    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }
    fn f64(&mut self) -> Option<f64> {
        Some(f64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }
}

impl TableStatistics {
    /// The statistics as bytes: `[rows f64][columns u32]`, then per column a 0 (none) or a 1
    /// and `[null_frac f64][avg_width i32][n_distinct f64][has correlation u8][correlation
    /// f64][mcv count u32][histogram count u32][frequencies f64 × mcv count][values length
    /// u32][values]`, the values (common ones, then the histogram's) packed as a row is.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::new();
        out.extend_from_slice(&self.rows.to_le_bytes());
        out.extend_from_slice(&(self.columns.len() as u32).to_le_bytes());
        let mut values = Vec::new();
        for c in &self.columns {
            let Some(c) = c else {
                out.push(0);
                continue;
            };
            out.push(1);
            out.extend_from_slice(&c.null_frac.to_le_bytes());
            out.extend_from_slice(&c.avg_width.to_le_bytes());
            out.extend_from_slice(&c.n_distinct.to_le_bytes());
            out.push(c.correlation.is_some() as u8);
            out.extend_from_slice(&c.correlation.unwrap_or(0.0).to_le_bytes());
            out.extend_from_slice(&(c.mcv.len() as u32).to_le_bytes());
            out.extend_from_slice(&(c.histogram.len() as u32).to_le_bytes());
            for (_, f) in &c.mcv {
                out.extend_from_slice(&f.to_le_bytes());
            }
            values.clear();
            for v in c.mcv.iter().map(|(v, _)| v).chain(&c.histogram) {
                super::packed::encode_value(v, &mut values);
            }
            out.extend_from_slice(&(values.len() as u32).to_le_bytes());
            out.extend_from_slice(&values);
        }
        out
    }

    /// Reads what [`TableStatistics::encode`] wrote; None for bytes it did not write.
    pub fn decode(bytes: &[u8]) -> Option<TableStatistics> {
        let mut f = Fields(bytes);
        let rows = f.f64()?;
        let n = f.u32()? as usize;
        // Every column takes at least a byte: a damaged count cannot allocate much.
        let mut columns = Vec::with_capacity(n.min(bytes.len()));
        for _ in 0..n {
            if f.u8()? == 0 {
                columns.push(None);
                continue;
            }
            let null_frac = f.f64()?;
            let avg_width = i32::from_le_bytes(f.take(4)?.try_into().ok()?);
            let n_distinct = f.f64()?;
            let has_corr = f.u8()? != 0;
            let corr = f.f64()?;
            let (nmcv, nhist) = (f.u32()? as usize, f.u32()? as usize);
            let freqs = (0..nmcv).map(|_| f.f64()).collect::<Option<Vec<f64>>>()?;
            let len = f.u32()? as usize;
            let mut values = super::packed::PackedRow::from_body(f.take(len)?).decode();
            if values.len() != nmcv + nhist {
                return None;
            }
            let histogram = values.split_off(nmcv);
            columns.push(Some(ColumnStats {
                null_frac,
                avg_width,
                n_distinct,
                mcv: values.into_iter().zip(freqs).collect(),
                histogram,
                correlation: has_corr.then_some(corr),
            }));
        }
        f.0.is_empty().then_some(TableStatistics { rows, columns })
    }
}

#[cfg(all(test, not(feature = "shuttle")))]
mod tests {
    use super::*;

    #[test]
    fn statistics_read_back_as_written() {
        let values: Vec<Value> = (0..500)
            .map(|i| match i % 7 {
                0 => Value::Null,
                1 | 2 => Value::Text("common".into()),
                _ => Value::Text(format!("v{i}")),
            })
            .collect();
        let refs: Vec<&Value> = values.iter().collect();
        let stats = TableStatistics {
            rows: 500.0,
            columns: vec![
                Some(column_stats(&refs, Type::TEXT, 500.0)),
                None,
                Some(column_stats(
                    &[&Value::Int4(1), &Value::Int4(2)],
                    Type::INT4,
                    2.0,
                )),
            ],
        };
        assert!(!stats.columns[0].as_ref().unwrap().mcv.is_empty());
        assert!(!stats.columns[0].as_ref().unwrap().histogram.is_empty());
        let bytes = stats.encode();
        assert_eq!(TableStatistics::decode(&bytes), Some(stats));
        // Cut short or with bytes left over: refused, not misread.
        assert_eq!(TableStatistics::decode(&bytes[..bytes.len() - 1]), None);
        let mut longer = bytes.clone();
        longer.push(0);
        assert_eq!(TableStatistics::decode(&longer), None);
    }
}
