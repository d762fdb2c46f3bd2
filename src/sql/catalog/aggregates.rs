//! pg_aggregate: PostgreSQL 15's rows for the built-in aggregates threadgres implements, and
//! the names of their support functions (regproc output of aggtransfn, aggfinalfn, ...).
//!
//! The rows come from `pg_aggregate.tsv`, made by scripts/gen_pg_aggregate.py from a fresh
//! PostgreSQL 15 cluster for every aggregate name threadgres implements; a row is listed only
//! when pg_proc lists its aggregate (`procs::by_oid`: overloads over types threadgres lacks
//! are left out there), so that joins of the two catalogs agree. The support functions are
//! PostgreSQL's (`int4_avg_accum`, `numeric_avg`, ...): threadgres computes the aggregates its
//! own way, but a client reading the catalog sees what PostgreSQL shows. The file is parsed
//! once, on first use (about 150 rows).

use std::sync::OnceLock;

use crate::sql::types::Value;

/// pg_aggregate's support-function columns, in order.
pub const SUPPORT_COLUMNS: [&str; 8] = [
    "aggtransfn",
    "aggfinalfn",
    "aggcombinefn",
    "aggserialfn",
    "aggdeserialfn",
    "aggmtransfn",
    "aggminvtransfn",
    "aggmfinalfn",
];

/// One pg_aggregate row.
#[derive(Debug)]
pub struct Aggregate {
    pub fnoid: u32,
    pub kind: char,
    pub direct_args: i16,
    /// (OID, name) of each of `SUPPORT_COLUMNS` (0 and `-` for none).
    pub support: Vec<(u32, String)>,
    pub final_extra: bool,
    pub mfinal_extra: bool,
    pub final_modify: char,
    pub mfinal_modify: char,
    pub sortop: u32,
    pub transtype: u32,
    pub transspace: i32,
    pub mtranstype: u32,
    pub mtransspace: i32,
    pub initval: Option<String>,
    pub minitval: Option<String>,
}

fn parse(line: &str) -> Option<Aggregate> {
    let f: Vec<&str> = line.split('\t').collect();
    if f.len() != 3 + 2 * SUPPORT_COLUMNS.len() + 11 {
        return None;
    }
    let ch = |s: &str| s.chars().next().unwrap_or(' ');
    let text = |s: &str| (s != "\\N").then(|| s.to_string());
    let mut support = Vec::with_capacity(SUPPORT_COLUMNS.len());
    for i in 0..SUPPORT_COLUMNS.len() {
        support.push((f[3 + 2 * i].parse().ok()?, f[4 + 2 * i].to_string()));
    }
    let r = &f[3 + 2 * SUPPORT_COLUMNS.len()..];
    Some(Aggregate {
        fnoid: f[0].parse().ok()?,
        kind: ch(f[1]),
        direct_args: f[2].parse().ok()?,
        support,
        final_extra: r[0] == "t",
        mfinal_extra: r[1] == "t",
        final_modify: ch(r[2]),
        mfinal_modify: ch(r[3]),
        sortop: r[4].parse().ok()?,
        transtype: r[5].parse().ok()?,
        transspace: r[6].parse().ok()?,
        mtranstype: r[7].parse().ok()?,
        mtransspace: r[8].parse().ok()?,
        initval: text(r[9]),
        minitval: text(r[10]),
    })
}

/// Every row of the file, in aggfnoid order.
fn all() -> &'static [Aggregate] {
    static AGGS: OnceLock<Vec<Aggregate>> = OnceLock::new();
    AGGS.get_or_init(|| {
        include_str!("pg_aggregate.tsv")
            .lines()
            .filter(|l| !l.starts_with('#') && !l.is_empty())
            .filter_map(parse)
            .collect()
    })
}

/// The name of a built-in aggregate's support function (regproc output).
pub fn support_name(oid: u32) -> Option<&'static str> {
    all().iter().find_map(|a| {
        a.support
            .iter()
            .find(|s| s.0 == oid && oid != 0)
            .map(|s| s.1.as_str())
    })
}

/// The OID of a built-in aggregate's support function by name (regproc input).
pub fn support_oid(name: &str) -> Option<u32> {
    all().iter().find_map(|a| {
        a.support
            .iter()
            .find(|s| s.1 == name && s.0 != 0)
            .map(|s| s.0)
    })
}

/// pg_aggregate's OID.
pub const AGGREGATE_OID: u32 = 2600;

/// Aggregate `a`'s row of pg_aggregate, in its column order.
pub fn row_of(a: &Aggregate) -> Vec<Value> {
    super::fixed::build_row(AGGREGATE_OID, |c| {
        if let Some(i) = SUPPORT_COLUMNS.iter().position(|s| *s == c) {
            return Some(Value::Oid(a.support.get(i).map_or(0, |s| s.0)));
        }
        Some(match c {
            "aggfnoid" => Value::Oid(a.fnoid),
            "aggkind" => Value::Text(a.kind.to_string()),
            "aggnumdirectargs" => Value::Int2(a.direct_args),
            "aggfinalextra" => Value::Bool(a.final_extra),
            "aggmfinalextra" => Value::Bool(a.mfinal_extra),
            "aggfinalmodify" => Value::Text(a.final_modify.to_string()),
            "aggmfinalmodify" => Value::Text(a.mfinal_modify.to_string()),
            "aggsortop" => Value::Oid(a.sortop),
            "aggtranstype" => Value::Oid(a.transtype),
            "aggtransspace" => Value::Int4(a.transspace),
            "aggmtranstype" => Value::Oid(a.mtranstype),
            "aggmtransspace" => Value::Int4(a.mtransspace),
            "agginitval" => a.initval.clone().map_or(Value::Null, Value::Text),
            "aggminitval" => a.minitval.clone().map_or(Value::Null, Value::Text),
            _ => return None,
        })
    })
}

/// The rows of pg_aggregate for the built-in aggregates pg_proc lists.
pub fn rows() -> Vec<Vec<Value>> {
    all()
        .iter()
        .filter(|a| super::procs::by_oid(a.fnoid).is_some())
        .map(row_of)
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_row_parses_and_has_its_proc() {
        let lines = include_str!("pg_aggregate.tsv")
            .lines()
            .filter(|l| !l.starts_with('#') && !l.is_empty())
            .count();
        assert_eq!(super::all().len(), lines);
        assert!(super::rows().len() > 100);
        assert_eq!(super::support_name(1963), Some("int4_avg_accum"));
        assert_eq!(super::support_oid("int4_avg_accum"), Some(1963));
    }
}
