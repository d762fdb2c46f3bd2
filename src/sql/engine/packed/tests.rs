//! Round trips of packed rows and the order of compact keys, against the `Value` forms.

use std::cmp::Ordering;

use bigdecimal::num_bigint::BigInt;
use proptest::prelude::*;

use super::{PackedRow, RowPacker};
use crate::sql::engine::ikey::{IKey, ThinVals};
use crate::sql::engine::{cmp_slices, Key};
use crate::sql::types::network::Inet;
use crate::sql::types::numeric::Numeric;
use crate::sql::types::{Array, Interval, Type, Value};

fn scalar() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i16>().prop_map(Value::Int2),
        any::<i32>().prop_map(Value::Int4),
        any::<i64>().prop_map(Value::Int8),
        any::<u32>().prop_map(|b| Value::Float4(f32::from_bits(b))),
        any::<u64>().prop_map(|b| Value::Float8(f64::from_bits(b))),
        (any::<i128>(), 0u32..20000).prop_map(|(m, s)| Value::Numeric(Box::new(
            Numeric::from_parts(BigInt::from(m) * BigInt::from(m), s)
        ))),
        prop_oneof![
            Just(Numeric::nan()),
            Just(Numeric::infinity()),
            Just(Numeric::neg_infinity())
        ]
        .prop_map(|n| Value::Numeric(Box::new(n))),
        ".{0,200}".prop_map(Value::Text),
        ".{0,40}".prop_map(Value::CiText),
        // bpchar-like: a run of trailing spaces, stored as a count past SPACE_RUN_MIN.
        (".{0,12}", 0usize..100).prop_map(|(s, n)| Value::Text(s + &" ".repeat(n))),
        proptest::collection::vec(any::<u8>(), 0..300).prop_map(Value::Bytea),
        any::<i32>().prop_map(Value::Date),
        any::<i64>().prop_map(Value::Time),
        (any::<i64>(), any::<i32>()).prop_map(|(t, z)| Value::TimeTz(t, z)),
        any::<i64>().prop_map(Value::Timestamp),
        any::<i64>().prop_map(Value::TimestampTz),
        (any::<i32>(), any::<i32>(), any::<i64>()).prop_map(|(months, days, micros)| {
            Value::Interval(Interval {
                months,
                days,
                micros,
            })
        }),
        any::<u32>().prop_map(Value::Oid),
        any::<[u8; 16]>().prop_map(Value::Uuid),
        (any::<u8>(), any::<u8>(), any::<[u8; 16]>())
            .prop_map(|(family, bits, addr)| { Value::Inet(Inet { family, bits, addr }) }),
        Just(Value::Void),
    ]
}

fn value() -> impl Strategy<Value = Value> {
    scalar().prop_recursive(3, 24, 6, |inner| {
        prop_oneof![
            (
                any::<u32>(),
                proptest::collection::vec((any::<i32>(), any::<i32>()), 0..3),
                proptest::collection::vec(inner.clone(), 0..6)
            )
                .prop_map(|(elem, dims, items)| Value::Array(Box::new(Array {
                    elem: Type(elem),
                    dims,
                    items
                }))),
            proptest::collection::vec(inner, 0..6).prop_map(Value::Record),
        ]
    })
}

/// Exact equality: Debug shows every field (numerics their mantissa and scale); floats are
/// compared by their bits separately since Debug prints every NaN alike.
fn same(a: &[Value], b: &[Value]) -> bool {
    fn bits(v: &Value, out: &mut Vec<u64>) {
        match v {
            Value::Float4(f) => out.push(f.to_bits() as u64),
            Value::Float8(f) => out.push(f.to_bits()),
            Value::Array(a) => a.items.iter().for_each(|v| bits(v, out)),
            Value::Record(r) => r.iter().for_each(|v| bits(v, out)),
            _ => {}
        }
    }
    let (mut x, mut y) = (Vec::new(), Vec::new());
    a.iter().for_each(|v| bits(v, &mut x));
    b.iter().for_each(|v| bits(v, &mut y));
    format!("{a:?}") == format!("{b:?}") && x == y
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn rows_round_trip(row in proptest::collection::vec(value(), 0..12)) {
        let p = PackedRow::encode(&row);
        prop_assert!(same(&p.decode(), &row));
        let c = p.clone();
        prop_assert!(same(&c.decode(), &row));
        // Any columns, in any order, past the end too.
        let cols: Vec<usize> = (0..row.len() + 2).rev().collect();
        let got = p.columns(&cols);
        for (g, &c) in got.iter().zip(&cols) {
            let want = row.get(c).cloned().unwrap_or(Value::Null);
            prop_assert!(same(std::slice::from_ref(g), std::slice::from_ref(&want)));
        }
    }

    #[test]
    fn keys_round_trip(key in proptest::collection::vec(value(), 0..4)) {
        let k = IKey::of(&key);
        prop_assert!(same(&k.to_key().0, &key));
        let k = IKey::from_key(Key(key.clone().into()));
        prop_assert!(same(&k.to_key().0, &key));
        let cols: Vec<usize> = (0..key.len()).collect();
        prop_assert!(same(&IKey::of_columns(&key, &cols).to_key().0, &key));
    }

    /// A row packed value by value (COPY's direct path) is the row `encode` packs, padded
    /// text included.
    #[test]
    fn packer_packs_as_encode(row in proptest::collection::vec(value(), 0..8),
                              text in "[a-z ]{0,12}", pad in 0usize..20) {
        let mut p = RowPacker::default();
        p.push_text("stale", 3);
        p.clear();
        for v in &row {
            p.push(v);
        }
        p.push_text(&text, pad);
        let mut want = row.clone();
        want.push(Value::Text(format!("{text}{}", " ".repeat(pad))));
        let (got, enc) = (p.finish(), PackedRow::encode(&want));
        prop_assert_eq!(got.body(), enc.body());
        prop_assert!(same(&p.finish().decode(), &want));
    }

    /// Compact keys order exactly as the engine's keys, whatever their representations.
    #[test]
    fn key_order_is_the_engines(a in key(), b in key()) {
        let want = cmp_slices(&a, &b);
        let (ka, kb) = (IKey::of(&a), IKey::of(&b));
        prop_assert_eq!(ka.cmp(&kb), want);
        prop_assert_eq!(kb.cmp(&ka), want.reverse());
        // The general representation agrees with the inline ones.
        let (va, vb) = (IKey::Vals(ThinVals::from_slice(&a)), IKey::Vals(ThinVals::from_slice(&b)));
        prop_assert_eq!(va.cmp(&kb), want);
        prop_assert_eq!(ka.cmp(&vb), want);
        prop_assert_eq!(ka.cmp(&ka), Ordering::Equal);
    }
}

/// Composite int4 keys (the inline two- and three-column forms, and prefixes of them, as a
/// probe meets stored keys).
fn int4_key() -> impl Strategy<Value = Vec<Value>> {
    proptest::collection::vec(
        prop_oneof![(-2i32..2), any::<i32>()].prop_map(Value::Int4),
        1..5,
    )
}

proptest! {
    #[test]
    fn int4_key_order_is_the_engines(a in int4_key(), b in int4_key()) {
        let want = cmp_slices(&a, &b);
        let (ka, kb) = (IKey::of(&a), IKey::of(&b));
        prop_assert_eq!(ka.cmp(&kb), want);
        prop_assert_eq!(kb.cmp(&ka), want.reverse());
        prop_assert!(same(&ka.to_key().0, &a));
    }
}

/// Keys of the kinds an index holds: integers of every width (mixed, as a probe of another
/// width meets stored keys), dates, times, NULLs, texts; one to three columns.
fn key() -> impl Strategy<Value = Vec<Value>> {
    let col = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        (-3i16..3).prop_map(Value::Int2),
        prop_oneof![(-3i32..3), any::<i32>()].prop_map(Value::Int4),
        prop_oneof![(-3i64..3), any::<i64>()].prop_map(Value::Int8),
        (0u32..3).prop_map(Value::Oid),
        (-3i32..3).prop_map(Value::Date),
        (-3i64..3).prop_map(Value::Time),
        (-3i64..3).prop_map(Value::Timestamp),
        (-3i64..3).prop_map(Value::TimestampTz),
        "[ab]{0,2}".prop_map(Value::Text),
        (-3i32..3).prop_map(|i| Value::Float8(i as f64)),
    ];
    proptest::collection::vec(col, 1..4)
}

#[test]
fn accounts_row_fits_a_32_byte_chunk() {
    // pgbench_accounts: int4, int4, int4, char(84).
    let row = [
        Value::Int4(1_000_000),
        Value::Int4(10),
        Value::Int4(0),
        Value::Text(" ".repeat(84)),
    ];
    // The filler's 84 spaces are stored as a count: 1 header byte, 3 × 5 for the integers,
    // 3 for the text (tag, empty head, run length).
    let packed = PackedRow::encode(&row);
    assert_eq!(packed.size(), 19);
    assert_eq!(packed.decode(), row.to_vec());
}

#[test]
fn trailing_spaces_round_trip_at_every_run_length() {
    for head in ["", "x", "héllo ", " a"] {
        for run in 0..40 {
            let v = Value::Text(format!("{head}{}", " ".repeat(run)));
            let row = [v.clone(), Value::Int4(7)];
            let packed = PackedRow::encode(&row);
            assert_eq!(packed.decode(), row.to_vec(), "{head:?} + {run} spaces");
            assert_eq!(
                packed.column(1),
                Value::Int4(7),
                "skip over {head:?} + {run}"
            );
        }
    }
}

#[test]
fn key_and_row_pointers_are_thin() {
    assert_eq!(std::mem::size_of::<PackedRow>(), 8);
    assert_eq!(std::mem::size_of::<Option<PackedRow>>(), 8);
    assert_eq!(std::mem::size_of::<IKey>(), 16);
    // An index tree's sentinel lives in IKey's tag (storage::index).
    assert_eq!(
        crate::storage::Index::<IKey>::SLOT_BYTES,
        std::mem::size_of::<crate::storage::Entry<IKey>>()
    );
}
