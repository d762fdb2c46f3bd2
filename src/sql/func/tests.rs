//! Unit tests of the function library, called through [`super::lookup`] as the planner finds
//! the functions.

use super::datetime::{f_timezone_ts, f_timezone_tstz};
use super::regexp::f_substring_regex;
use super::*;
use crate::sql::types::{io, Numeric};

fn c() -> FormatCtx {
    FormatCtx::default()
}

/// Calls the first signature of `name` whose arity matches.
fn call(name: &str, args: Vec<Value>) -> PgResult<Value> {
    let sig = lookup(name)
        .iter()
        .find(|s| s.args.len() == args.len() || s.variadic)
        .unwrap_or_else(|| panic!("no {name}/{}", args.len()));
    (sig.f)(&args, &c())
}

fn t(s: &str) -> Value {
    Value::Text(s.into())
}

fn show(v: PgResult<Value>, ty: Type) -> String {
    io::to_text(&v.unwrap(), ty, &c())
}

fn p(s: &str, ty: Type) -> Value {
    io::from_text(s, ty, -1, &c()).unwrap()
}

#[test]
fn strings() {
    assert_eq!(
        call("split_part", vec![t("a,b,c"), t(","), Value::Int4(-1)]).unwrap(),
        t("c")
    );
    assert_eq!(
        call("split_part", vec![t("a,b,c"), t(","), Value::Int4(5)]).unwrap(),
        t("")
    );
    assert_eq!(
        call("initcap", vec![t("hello wORLD-foo bar_baz")]).unwrap(),
        t("Hello World-Foo Bar_Baz")
    );
    assert_eq!(
        call("lpad", vec![t("hi"), Value::Int4(5), t("xy")]).unwrap(),
        t("xyxhi")
    );
    assert_eq!(
        call("rpad", vec![t("hello"), Value::Int4(3)]).unwrap(),
        t("hel")
    );
    assert_eq!(
        call("translate", vec![t("12345"), t("143"), t("ax")]).unwrap(),
        t("a2x5")
    );
    assert_eq!(
        call("to_hex", vec![Value::Int4(-1)]).unwrap(),
        t("ffffffff")
    );
    assert_eq!(
        call("left", vec![t("hello"), Value::Int4(-2)]).unwrap(),
        t("hel")
    );
    assert_eq!(
        call("right", vec![t("hello"), Value::Int4(2)]).unwrap(),
        t("lo")
    );
    assert_eq!(
        call("strpos", vec![t("hello"), t("ll")]).unwrap(),
        Value::Int4(3)
    );
    assert_eq!(
        call("substr", vec![t("hello"), Value::Int4(0), Value::Int4(3)]).unwrap(),
        t("he")
    );
    let e = call("substr", vec![t("hello"), Value::Int4(1), Value::Int4(-1)]).unwrap_err();
    assert_eq!(
        (e.code, e.message.as_str()),
        ("22011", "negative substring length not allowed")
    );
    assert_eq!(call("btrim", vec![t("xxhixx"), t("x")]).unwrap(), t("hi"));
    assert_eq!(
        call("md5", vec![t("abc")]).unwrap(),
        t("900150983cd24fb0d6963f7d28e17f72")
    );
    assert_eq!(call("quote_ident", vec![t("Foo")]).unwrap(), t("\"Foo\""));
    assert_eq!(
        call("quote_ident", vec![t("select")]).unwrap(),
        t("\"select\"")
    );
    assert_eq!(call("quote_ident", vec![t("_x1")]).unwrap(), t("_x1"));
    assert_eq!(
        call("quote_literal", vec![t("it's")]).unwrap(),
        t("'it''s'")
    );
    assert_eq!(
        call("quote_literal", vec![t("a\\b")]).unwrap(),
        t("E'a\\\\b'")
    );
    assert_eq!(
        call(
            "regexp_replace",
            vec![t("foobarbaz"), t("b(..)"), t("X\\1Y"), t("g")]
        )
        .unwrap(),
        t("fooXarYXazY")
    );
    assert_eq!(
        call("regexp_replace", vec![t("Hello"), t("l"), t("L")]).unwrap(),
        t("HeLlo")
    );
    assert_eq!(
        show(
            call("regexp_split_to_array", vec![t("a1b2c"), t("[0-9]")]),
            Type::TEXT_ARRAY
        ),
        "{a,b,c}"
    );
    assert_eq!(
        f_substring_regex(&[t("foobar"), t("o(.)a")], &c()).unwrap(),
        t("b")
    );
    assert_eq!(
        call("encode", vec![Value::Bytea(vec![0, 255, 65]), t("escape")]).unwrap(),
        t("\\000\\377A")
    );
    assert_eq!(
        call("encode", vec![Value::Bytea(b"hello".to_vec()), t("base64")]).unwrap(),
        t("aGVsbG8=")
    );
    assert_eq!(
        call("decode", vec![t("41 42"), t("hex")]).unwrap(),
        Value::Bytea(vec![0x41, 0x42])
    );
    assert_eq!(call("chr", vec![Value::Int4(0)]).unwrap_err().code, "54000");
    assert_eq!(
        show(
            call("string_to_array", vec![t("a,b,,c"), t(",")]),
            Type::TEXT_ARRAY
        ),
        "{a,b,\"\",c}"
    );
    assert_eq!(
        show(
            call("string_to_array", vec![t("abc"), Value::Null]),
            Type::TEXT_ARRAY
        ),
        "{a,b,c}"
    );
    let a = p("{1,NULL,3}", Type::INT4_ARRAY);
    assert_eq!(
        call("array_to_string", vec![a, t(","), t("*")]).unwrap(),
        t("1,*,3")
    );
}

#[test]
fn prng_matches_postgres() {
    call("setseed", vec![Value::Float8(0.5)]).unwrap();
    let r: Vec<f64> = (0..3).map(|_| random_double()).collect();
    assert_eq!(
        r,
        vec![0.9851677175347999, 0.825301858027981, 0.12974610012450416]
    );
    call("setseed", vec![Value::Float8(-1.0)]).unwrap();
    assert_eq!(random_double(), 0.725656831544149);
    assert!(call("setseed", vec![Value::Float8(2.0)]).is_err());
}

#[test]
fn math() {
    assert_eq!(
        call("cbrt", vec![Value::Float8(27.0)]).unwrap(),
        Value::Float8(3.0000000000000004)
    );
    let n = |s: &str| Value::Numeric(Box::new(Numeric::parse(s).unwrap()));
    assert_eq!(show(call("round", vec![n("2.5")]), Type::NUMERIC), "3");
    assert_eq!(
        show(
            call("round", vec![n("1234.5678"), Value::Int4(-2)]),
            Type::NUMERIC
        ),
        "1200"
    );
    assert_eq!(
        call("round", vec![Value::Float8(2.5)]).unwrap(),
        Value::Float8(2.0)
    );
    assert_eq!(
        show(
            call("trunc", vec![n("1.99"), Value::Int4(1)]),
            Type::NUMERIC
        ),
        "1.9"
    );
    assert_eq!(
        show(call("sqrt", vec![n("2")]), Type::NUMERIC),
        "1.414213562373095"
    );
    let e = call("sqrt", vec![Value::Float8(-1.0)]).unwrap_err();
    assert_eq!(e.code, "2201F");
    let e = call("ln", vec![Value::Float8(0.0)]).unwrap_err();
    assert_eq!(
        (e.code, e.message.as_str()),
        ("2201E", "cannot take logarithm of zero")
    );
    assert_eq!(
        call("mod", vec![Value::Int4(-7), Value::Int4(3)]).unwrap(),
        Value::Int4(-1)
    );
    assert_eq!(
        call("gcd", vec![Value::Int4(12), Value::Int4(-18)]).unwrap(),
        Value::Int4(6)
    );
    assert_eq!(
        call("lcm", vec![Value::Int4(4), Value::Int4(6)]).unwrap(),
        Value::Int4(12)
    );
    assert_eq!(
        call(
            "width_bucket",
            vec![
                Value::Float8(5.35),
                Value::Float8(0.024),
                Value::Float8(10.06),
                Value::Int4(5)
            ]
        )
        .unwrap(),
        Value::Int4(3)
    );
    assert!(call("exp", vec![Value::Float8(1000.0)]).is_err());
}

#[test]
fn extract() {
    let ts = p("2020-01-02 03:04:05.5", Type::TIMESTAMPTZ);
    let e = |f: &str, v: &Value, ty: Type| {
        io::to_text(&extract_field(f, v, ty, &c()).unwrap(), Type::NUMERIC, &c())
    };
    assert_eq!(e("epoch", &ts, Type::TIMESTAMPTZ), "1577934245.500000");
    assert_eq!(e("year", &p("2020-05-06", Type::DATE), Type::DATE), "2020");
    assert_eq!(
        e("second", &p("10:11:12.5", Type::TIME), Type::TIME),
        "12.500000"
    );
    assert_eq!(e("dow", &p("2020-01-05", Type::DATE), Type::DATE), "0");
    assert_eq!(e("isodow", &p("2020-01-05", Type::DATE), Type::DATE), "7");
    assert_eq!(e("doy", &p("2020-02-01", Type::DATE), Type::DATE), "32");
    assert_eq!(e("week", &p("2021-01-01", Type::DATE), Type::DATE), "53");
    assert_eq!(e("century", &p("2000-01-01", Type::DATE), Type::DATE), "20");
    assert_eq!(
        e("millennium", &p("2001-01-01", Type::DATE), Type::DATE),
        "3"
    );
    assert_eq!(e("decade", &p("2019-01-01", Type::DATE), Type::DATE), "201");
    assert_eq!(
        e("julian", &p("2020-01-01", Type::DATE), Type::DATE),
        "2458850"
    );
    assert_eq!(
        e("isoyear", &p("2021-01-01", Type::DATE), Type::DATE),
        "2020"
    );
    assert_eq!(
        e("milliseconds", &p("10:11:12.5", Type::TIME), Type::TIME),
        "12500.000"
    );
    assert_eq!(
        e(
            "microseconds",
            &p("2020-01-01 00:00:01.25", Type::TIMESTAMP),
            Type::TIMESTAMP
        ),
        "1250000"
    );
    assert_eq!(
        e("epoch", &p("1 day 2 hours", Type::INTERVAL), Type::INTERVAL),
        "93600.000000"
    );
    assert_eq!(
        e("epoch", &p("1 year", Type::INTERVAL), Type::INTERVAL),
        "31557600.000000"
    );
    assert_eq!(
        e("month", &p("14 months", Type::INTERVAL), Type::INTERVAL),
        "2"
    );
    assert_eq!(
        e("hour", &p("-25 hours", Type::INTERVAL), Type::INTERVAL),
        "-25"
    );
    assert_eq!(
        e("epoch", &p("2020-01-01", Type::DATE), Type::DATE),
        "1577836800"
    );
    assert_eq!(
        e("year", &p("infinity", Type::TIMESTAMP), Type::TIMESTAMP),
        "Infinity"
    );
    let err = extract_field("hour", &p("2020-01-01", Type::DATE), Type::DATE, &c()).unwrap_err();
    assert_eq!(
        (err.code, err.message.as_str()),
        ("0A000", "unit \"hour\" not supported for type date")
    );
    let err = extract_field("foo", &p("2020-01-01", Type::DATE), Type::DATE, &c()).unwrap_err();
    assert_eq!(err.message, "unit \"foo\" not recognized for type date");
}

#[test]
fn datetime() {
    let ts = |s: &str| p(s, Type::TIMESTAMP);
    let tr = |u: &str, s: &str| show(call("date_trunc", vec![t(u), ts(s)]), Type::TIMESTAMP);
    assert_eq!(tr("week", "2020-01-02 10:00"), "2019-12-30 00:00:00");
    assert_eq!(tr("quarter", "2020-05-02"), "2020-04-01 00:00:00");
    assert_eq!(tr("decade", "2020-05-02"), "2020-01-01 00:00:00");
    assert_eq!(tr("century", "2020-05-02"), "2001-01-01 00:00:00");
    assert_eq!(
        tr("milliseconds", "2020-01-01 00:00:00.123456"),
        "2020-01-01 00:00:00.123"
    );
    let iv = p("1 day 2:03:04", Type::INTERVAL);
    assert_eq!(
        show(call("date_trunc", vec![t("hour"), iv]), Type::INTERVAL),
        "1 day 02:00:00"
    );
    let age = |a: &str, b: &str| show(call("age", vec![ts(a), ts(b)]), Type::INTERVAL);
    assert_eq!(age("2020-03-01", "2020-01-31"), "1 mon 1 day");
    assert_eq!(age("2020-01-31", "2020-03-01"), "-1 mons -1 days");
    assert_eq!(age("2021-02-28", "2020-02-29"), "11 mons 28 days");
    assert_eq!(
        age("2020-05-15 10:00", "2019-12-20 12:30"),
        "4 mons 25 days 21:30:00"
    );
    let e = call(
        "make_date",
        vec![Value::Int4(2020), Value::Int4(2), Value::Int4(30)],
    )
    .unwrap_err();
    assert_eq!(e.message, "date field value out of range: 2020-02-30");
    assert_eq!(
        show(
            call(
                "make_date",
                vec![Value::Int4(-1), Value::Int4(1), Value::Int4(1)]
            ),
            Type::DATE
        ),
        "0001-01-01 BC"
    );
    let mi = lookup("make_interval")
        .iter()
        .find(|s| s.args.len() == 7)
        .unwrap();
    let r = (mi.f)(
        &[1, 2, 3, 4, 5, 6]
            .map(Value::Int4)
            .into_iter()
            .chain([Value::Float8(7.5)])
            .collect::<Vec<_>>(),
        &c(),
    );
    assert_eq!(show(r, Type::INTERVAL), "1 year 2 mons 25 days 05:06:07.5");
    let tz = p("2020-01-01 00:00+00", Type::TIMESTAMPTZ);
    let r = f_timezone_tstz(&[t("+05"), tz.clone()], &c());
    assert_eq!(show(r, Type::TIMESTAMP), "2019-12-31 19:00:00");
    let r = f_timezone_tstz(&[t("EST"), tz.clone()], &c());
    assert_eq!(show(r, Type::TIMESTAMP), "2019-12-31 19:00:00");
    let r = f_timezone_ts(&[t("America/New_York"), ts("2020-01-01 00:00")], &c());
    assert_eq!(show(r, Type::TIMESTAMPTZ), "2020-01-01 05:00:00+00");
    assert!(f_timezone_tstz(&[t("nowhere"), tz], &c()).is_err());
}

#[test]
fn arrays() {
    let a = |s: &str| p(s, Type::INT4_ARRAY);
    assert_eq!(
        call("array_dims", vec![a("{{1,2},{3,4}}")]).unwrap(),
        t("[1:2][1:2]")
    );
    assert_eq!(
        call("array_position", vec![a("{1,2,3,2}"), Value::Int4(2)]).unwrap(),
        Value::Int4(2)
    );
    assert_eq!(
        show(
            call("array_positions", vec![a("{1,2,3,2}"), Value::Int4(2)]),
            Type::INT4_ARRAY
        ),
        "{2,4}"
    );
    assert_eq!(
        show(
            call("array_remove", vec![a("{1,2,NULL,2}"), Value::Int4(2)]),
            Type::INT4_ARRAY
        ),
        "{1,NULL}"
    );
    assert_eq!(
        call("cardinality", vec![a("{{1,2},{3,4}}")]).unwrap(),
        Value::Int4(4)
    );
    assert_eq!(call("array_ndims", vec![a("{}")]).unwrap(), Value::Null);
    assert_eq!(
        call("array_length", vec![a("{}"), Value::Int4(1)]).unwrap(),
        Value::Null
    );
    assert_eq!(
        show(
            call("array_append", vec![Value::Null, Value::Int4(1)]),
            Type::INT4_ARRAY
        ),
        "{1}"
    );
}
