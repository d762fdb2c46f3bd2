//! Small statistics helpers (all values in milliseconds unless a name says otherwise).

use serde_json::{json, Value};

/// Percentile (nearest rank) of an already sorted slice; 0 for an empty slice.
pub fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

pub fn sort(v: &mut [f64]) {
    v.sort_by(|a, b| a.total_cmp(b));
}

/// min / mean / p50 / p90 / p99 / max of a sample, as JSON, with keys prefixed by `prefix`.
pub fn summary(prefix: &str, values: &mut [f64]) -> serde_json::Map<String, Value> {
    sort(values);
    let mut m = serde_json::Map::new();
    let mean = if values.is_empty() {
        0.0
    } else {
        values.iter().sum::<f64>() / values.len() as f64
    };
    m.insert(
        format!("{prefix}_min"),
        json!(values.first().copied().unwrap_or(0.0)),
    );
    m.insert(format!("{prefix}_mean"), json!(mean));
    m.insert(format!("{prefix}_p50"), json!(percentile(values, 50.0)));
    m.insert(format!("{prefix}_p90"), json!(percentile(values, 90.0)));
    m.insert(format!("{prefix}_p99"), json!(percentile(values, 99.0)));
    m.insert(
        format!("{prefix}_max"),
        json!(values.last().copied().unwrap_or(0.0)),
    );
    m
}

/// Bucket edges of the latency histogram of benchmark 5, in milliseconds.
pub const LATENCY_EDGES_MS: [f64; 5] = [0.01, 0.1, 1.0, 10.0, 100.0];

pub fn bucket_labels() -> Vec<String> {
    vec![
        "0-0.01".into(),
        "0.01-0.1".into(),
        "0.1-1".into(),
        "1-10".into(),
        "10-100".into(),
        ">100".into(),
    ]
}

/// Histogram with the buckets 0–0.01, 0.01–0.1, 0.1–1, 1–10, 10–100, >100 ms: count, share and
/// mean latency of each bucket.
pub fn latency_histogram(values_ms: &[f64]) -> Value {
    let mut counts = [0u64; 6];
    let mut sums = [0f64; 6];
    for &v in values_ms {
        let b = LATENCY_EDGES_MS
            .iter()
            .position(|&edge| v < edge)
            .unwrap_or(LATENCY_EDGES_MS.len());
        counts[b] += 1;
        sums[b] += v;
    }
    let total = values_ms.len().max(1) as f64;
    let buckets: Vec<Value> = bucket_labels()
        .into_iter()
        .enumerate()
        .map(|(i, label)| {
            json!({
                "bucket_ms": label,
                "count": counts[i],
                "pct": 100.0 * counts[i] as f64 / total,
                "avg_ms": if counts[i] > 0 { sums[i] / counts[i] as f64 } else { 0.0 },
            })
        })
        .collect();
    Value::Array(buckets)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentile_nearest_rank() {
        let v = [1.0, 2.0, 3.0, 4.0];
        assert_eq!(percentile(&v, 50.0), 2.0);
        assert_eq!(percentile(&v, 100.0), 4.0);
        assert_eq!(percentile(&v, 0.0), 1.0);
        assert_eq!(percentile(&[], 50.0), 0.0);
    }

    #[test]
    fn histogram_buckets() {
        let h = latency_histogram(&[0.005, 0.05, 0.5, 5.0, 50.0, 500.0, 0.01]);
        let counts: Vec<u64> = h
            .as_array()
            .unwrap()
            .iter()
            .map(|b| b["count"].as_u64().unwrap())
            .collect();
        assert_eq!(counts, vec![1, 2, 1, 1, 1, 1]);
    }
}
