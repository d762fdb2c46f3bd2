//! pg_range's rows: the built-in range types' (`sql::catalog::RANGES`) and those CREATE TYPE
//! ... AS RANGE made that the session's snapshot sees.

use crate::sql::exec::EvalCx;
use crate::sql::types::Value;

use super::Row;

/// pg_range's OID.
const PG_RANGE: u32 = 3541;

/// The default btree operator class of a subtype (pg_range.rngsubopc), for the subtypes a
/// range can be made over here; 0 for another.
fn default_opclass(subtype: u32) -> u32 {
    match subtype {
        16 => 424,
        17 => 428,
        18 => 429,
        19 => 1986,
        20 => 1980,
        21 => 1979,
        23 => 1978,
        25 | 1043 => 3126,
        26 => 1989,
        700 => 1970,
        701 => 1971,
        869 | 650 => 3123,
        1042 => 426,
        1082 => 3122,
        1083 => 1996,
        1114 => 3128,
        1184 => 3127,
        1186 => 1982,
        1266 => 2041,
        1700 => 3125,
        2950 => 2968,
        _ => 0,
    }
}

pub(super) fn range_rows(cx: &mut EvalCx) -> Vec<Row> {
    let mut out = Vec::new();
    for &(typ, sub, multi, opc, canonical, diff) in crate::sql::catalog::RANGES {
        out.push(row(typ, sub, multi, 0, opc, canonical, diff));
    }
    for t in super::catalog_types::user_types(cx) {
        let Some(r) = &t.def.range else { continue };
        let sub = crate::sql::types::Type(r.subtype);
        // A range over a collatable subtype has the default collation.
        let collation = if sub.base_type().category() == 'S' {
            100
        } else {
            0
        };
        let diff = r
            .subtype_diff
            .as_deref()
            .and_then(crate::sql::catalog::proc_oid)
            .unwrap_or(0);
        out.push(row(
            t.oid,
            r.subtype,
            r.multirange_oid,
            collation,
            default_opclass(r.subtype),
            0,
            diff,
        ));
    }
    out
}

fn row(typ: u32, sub: u32, multi: u32, coll: u32, opc: u32, canonical: u32, diff: u32) -> Row {
    super::catalog_rows::build(PG_RANGE, |c| match c {
        "rngtypid" => Value::Oid(typ),
        "rngsubtype" => Value::Oid(sub),
        "rngmultitypid" => Value::Oid(multi),
        "rngcollation" => Value::Oid(coll),
        "rngsubopc" => Value::Oid(opc),
        "rngcanonical" => Value::Oid(canonical),
        "rngsubdiff" => Value::Oid(diff),
        _ => Value::Null,
    })
}
