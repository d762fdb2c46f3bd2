//! Unit tests of text input and output: floats, bytea, arrays and records, integers and the
//! date/time types through `from_text` / `to_text`.

use super::*;

use crate::sql::types::{DateOrder, DateOutput, DateStyle};

fn ctx() -> FormatCtx {
    FormatCtx::default()
}

fn f8(f: f64) -> String {
    let mut s = String::new();
    write_float8(f, 1, &mut s);
    s
}

#[test]
fn float_output() {
    assert_eq!(f8(1e15), "1e+15");
    assert_eq!(f8(1e14), "100000000000000");
    assert_eq!(f8(123456789012345678.0), "1.2345678901234568e+17");
    assert_eq!(f8(0.0001), "0.0001");
    assert_eq!(f8(0.00001), "1e-05");
    assert_eq!(f8(1.5e-300), "1.5e-300");
    assert_eq!(f8(-0.0), "-0");
    assert_eq!(f8(0.1 + 0.2), "0.30000000000000004");
    assert_eq!(f8(1e15 + 0.3), "1.0000000000000002e+15");
    assert_eq!(f8(1.23e22), "1.2300000000000001e+22");
    assert_eq!(f8(5e-324), "5e-324");
    assert_eq!(f8(f64::MAX), "1.7976931348623157e+308");
    assert_eq!(f8(4.35 * 100.0), "434.99999999999994");
    assert_eq!(f8(f64::INFINITY), "Infinity");
    assert_eq!(f8(f64::NAN), "NaN");
    assert_eq!(f8(1500.0), "1500");
    assert_eq!(f8(-2.5), "-2.5");
    let mut s = String::new();
    write_float8(0.1 + 0.2, 0, &mut s);
    assert_eq!(s, "0.3");
    s.clear();
    write_float8(1e16, 0, &mut s);
    assert_eq!(s, "1e+16");
    let f4 = |f: f32| {
        let mut s = String::new();
        write_float4(f, 1, &mut s);
        s
    };
    assert_eq!(f4(0.1), "0.1");
    assert_eq!(f4(1e6), "1e+06");
    assert_eq!(f4(2.7182817), "2.7182817");
    assert_eq!(f4(100000.0), "100000");
    assert_eq!(f4(16777217.0), "1.6777216e+07");
    assert_eq!(f4(1e30), "1e+30");
    assert_eq!(f4(f32::MAX), "3.4028235e+38");
    assert_eq!(f4(1e-45), "1e-45");
}

#[test]
fn scalar_input() {
    let c = ctx();
    assert_eq!(
        from_text(" 42 ", Type::INT4, -1, &c).unwrap(),
        Value::Int4(42)
    );
    let e = from_text("99999999999", Type::INT4, -1, &c).unwrap_err();
    assert_eq!(e.code, "22003");
    assert_eq!(
        e.message,
        "value \"99999999999\" is out of range for type integer"
    );
    let e = from_text("x", Type::INT4, -1, &c).unwrap_err();
    assert_eq!(e.message, "invalid input syntax for type integer: \"x\"");
    for t in ["t", "TRUE", " yes ", "on", "1", "y"] {
        assert_eq!(
            from_text(t, Type::BOOL, -1, &c).unwrap(),
            Value::Bool(true),
            "{t}"
        );
    }
    for t in ["f", "False", "no", "off", "0", "of"] {
        assert_eq!(
            from_text(t, Type::BOOL, -1, &c).unwrap(),
            Value::Bool(false),
            "{t}"
        );
    }
    assert!(from_text("o", Type::BOOL, -1, &c).is_err());
    let e = from_text("1e400", Type::FLOAT8, -1, &c).unwrap_err();
    assert_eq!(
        e.message,
        "\"1e400\" is out of range for type double precision"
    );
    assert!(from_text("abc", Type::FLOAT8, -1, &c).is_err());
    assert_eq!(
        from_text("\\x0aFF", Type::BYTEA, -1, &c).unwrap(),
        Value::Bytea(vec![10, 255])
    );
    assert_eq!(
        from_text("a\\\\b\\001", Type::BYTEA, -1, &c).unwrap(),
        Value::Bytea(b"a\\b\x01".to_vec())
    );
    let u = from_text("{A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11}", Type::UUID, -1, &c).unwrap();
    assert_eq!(
        to_text(&u, Type::UUID, &c),
        "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"
    );
    assert_eq!(
        from_text("integer", Type::REGTYPE, -1, &c).unwrap(),
        Value::Oid(Type::INT4.0)
    );
    assert_eq!(
        from_text("nope", Type::REGTYPE, -1, &c)
            .unwrap_err()
            .message,
        "type \"nope\" does not exist"
    );
}

#[test]
fn arrays() {
    let c = ctx();
    let rt = |s: &str, t: Type| {
        let v = from_text(s, t, -1, &c).unwrap();
        to_text(&v, t, &c)
    };
    assert_eq!(
        rt(
            "{\"a b\",NULL,\"\",\"null\",\"x\\\\y\",\"q\\\"\"}",
            Type::TEXT_ARRAY
        ),
        "{\"a b\",NULL,\"\",\"null\",\"x\\\\y\",\"q\\\"\"}"
    );
    assert_eq!(rt("{{1,2},{3,4}}", Type::INT4_ARRAY), "{{1,2},{3,4}}");
    assert_eq!(rt("[0:1]={5,6}", Type::INT4_ARRAY), "[0:1]={5,6}");
    assert_eq!(rt("{}", Type::INT4_ARRAY), "{}");
    assert_eq!(rt(" { 1 , 2 } ", Type::INT4_ARRAY), "{1,2}");
    assert_eq!(rt("{a b  c}", Type::TEXT_ARRAY), "{\"a b  c\"}");
    assert_eq!(rt("{\" a \"}", Type::TEXT_ARRAY), "{\" a \"}");
    let err = |s: &str| {
        from_text(s, Type::INT4_ARRAY, -1, &c)
            .unwrap_err()
            .detail
            .clone()
            .unwrap_or_default()
    };
    assert_eq!(err("{1,2"), "Unexpected end of input.");
    assert_eq!(err("{1,{2}}"), "Unexpected \"{\" character.");
    assert_eq!(
        err("1,2"),
        "Array value must start with \"{\" or dimension information."
    );
    assert_eq!(err("{1,2}x"), "Junk after closing right brace.");
    assert_eq!(
        err("{{1,2},{3}}"),
        "Multidimensional arrays must have sub-arrays with matching dimensions."
    );
    assert_eq!(err("{1,,2}"), "Unexpected \",\" character.");
    assert_eq!(err("{{}}"), "Unexpected \"}\" character.");
    assert_eq!(
        err("[1:2]={1}"),
        "Specified array dimensions do not match array contents."
    );
    let rec = Value::Record(vec![
        Value::Int4(1),
        Value::Text("a b".into()),
        Value::Null,
        Value::Text("".into()),
    ]);
    assert_eq!(to_text(&rec, Type::RECORD, &c), "(1,\"a b\",,\"\")");
}

#[test]
fn date_styles() {
    let mut c = ctx();
    let ts = from_text("2020-01-02 03:04:05.5", Type::TIMESTAMPTZ, -1, &c).unwrap();
    assert_eq!(
        to_text(&ts, Type::TIMESTAMPTZ, &c),
        "2020-01-02 03:04:05.5+00"
    );
    c.date_style = DateStyle {
        output: DateOutput::Postgres,
        order: DateOrder::Mdy,
    };
    assert_eq!(
        to_text(&ts, Type::TIMESTAMPTZ, &c),
        "Thu Jan 02 03:04:05.5 2020 UTC"
    );
    c.date_style.output = DateOutput::Sql;
    assert_eq!(
        to_text(&ts, Type::TIMESTAMPTZ, &c),
        "01/02/2020 03:04:05.5 UTC"
    );
    c.date_style.output = DateOutput::German;
    assert_eq!(
        to_text(&ts, Type::TIMESTAMPTZ, &c),
        "02.01.2020 03:04:05.5 UTC"
    );
}

#[test]
fn binary_round_trips() {
    let c = ctx();
    let cases: Vec<(&str, Type)> = vec![
        ("t", Type::BOOL),
        ("-12", Type::INT2),
        ("123456", Type::INT4),
        ("-9223372036854775808", Type::INT8),
        ("1.5", Type::FLOAT4),
        ("-2.25e100", Type::FLOAT8),
        ("0", Type::NUMERIC),
        ("1.50", Type::NUMERIC),
        ("-12345678.000123", Type::NUMERIC),
        ("0.0001", Type::NUMERIC),
        ("100000000", Type::NUMERIC),
        ("NaN", Type::NUMERIC),
        ("-Infinity", Type::NUMERIC),
        ("héllo", Type::TEXT),
        ("\\x00ff", Type::BYTEA),
        ("2020-01-02", Type::DATE),
        ("2020-01-02 03:04:05.123456", Type::TIMESTAMP),
        ("2020-01-02 03:04:05+02", Type::TIMESTAMPTZ),
        ("1 year 2 mons 3 days 04:05:06.7", Type::INTERVAL),
        ("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", Type::UUID),
        ("{1,NULL,3}", Type::INT4_ARRAY),
        ("{{a,b},{c,d}}", Type::TEXT_ARRAY),
        ("{}", Type::INT8_ARRAY),
        ("[0:1]={1.5,2}", Type::NUMERIC_ARRAY),
    ];
    for (s, t) in cases {
        let v = from_text(s, t, -1, &c).unwrap();
        let mut b = BytesMut::new();
        write_binary(&v, t, &mut b).unwrap();
        let back = from_binary(&b, t).unwrap();
        assert_eq!(to_text(&back, t, &c), to_text(&v, t, &c), "{s}");
    }
    // numeric wire format of 1.50: 1 digit group [1], then 5000 for .50
    let mut b = BytesMut::new();
    write_binary(
        &from_text("1.50", Type::NUMERIC, -1, &c).unwrap(),
        Type::NUMERIC,
        &mut b,
    )
    .unwrap();
    assert_eq!(&b[..], &[0, 2, 0, 0, 0, 0, 0, 2, 0, 1, 0x13, 0x88]);
    assert!(from_binary(&[0, 0, 1], Type::INT4).is_err());
    assert_eq!(
        from_binary(&[0, 0, 0, 1, 0], Type::INT4).unwrap_err().code,
        "22P03"
    );
}
