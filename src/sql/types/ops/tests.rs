//! Unit tests of the operators: arithmetic overflow, comparisons across types, LIKE and
//! regular expressions, date/time arithmetic, arrays and jsonb.

use super::*;
use crate::sql::types::datetime as dt;
use crate::sql::types::io;
use std::cmp::Ordering;

fn c() -> FormatCtx {
    FormatCtx::default()
}

fn call(name: &str, l: Type, r: Type, a: Value, b: Value) -> PgResult<Value> {
    let op = find_binary(name, l, r).unwrap_or_else(|| panic!("no {name}({l:?},{r:?})"));
    (op.f)(&a, &b, &c())
}

fn txt(v: &Value, t: Type) -> String {
    io::to_text(v, t, &c())
}

fn parse(s: &str, t: Type) -> Value {
    io::from_text(s, t, -1, &c()).unwrap()
}

#[test]
fn ints() {
    let e = call(
        "+",
        Type::INT4,
        Type::INT4,
        Value::Int4(i32::MAX),
        Value::Int4(1),
    )
    .unwrap_err();
    assert_eq!(e.message, "integer out of range");
    let e = call(
        "/",
        Type::INT4,
        Type::INT4,
        Value::Int4(i32::MIN),
        Value::Int4(-1),
    )
    .unwrap_err();
    assert_eq!(e.message, "integer out of range");
    assert_eq!(
        call(
            "%",
            Type::INT4,
            Type::INT4,
            Value::Int4(i32::MIN),
            Value::Int4(-1)
        )
        .unwrap(),
        Value::Int4(0)
    );
    assert_eq!(
        call("/", Type::INT4, Type::INT4, Value::Int4(7), Value::Int4(-2)).unwrap(),
        Value::Int4(-3)
    );
    assert_eq!(
        call("%", Type::INT4, Type::INT4, Value::Int4(-7), Value::Int4(3)).unwrap(),
        Value::Int4(-1)
    );
    assert_eq!(
        call("/", Type::INT4, Type::INT4, Value::Int4(1), Value::Int4(0))
            .unwrap_err()
            .code,
        "22012"
    );
    assert_eq!(
        call(
            "<<",
            Type::INT2,
            Type::INT4,
            Value::Int2(1),
            Value::Int4(20)
        )
        .unwrap(),
        Value::Int2(0)
    );
    assert_eq!(
        call(
            "<<",
            Type::INT4,
            Type::INT4,
            Value::Int4(1),
            Value::Int4(33)
        )
        .unwrap(),
        Value::Int4(2)
    );
    assert_eq!(
        call(
            ">>",
            Type::INT4,
            Type::INT4,
            Value::Int4(-8),
            Value::Int4(1)
        )
        .unwrap(),
        Value::Int4(-4)
    );
    assert_eq!(
        call("#", Type::INT4, Type::INT4, Value::Int4(5), Value::Int4(3)).unwrap(),
        Value::Int4(6)
    );
    let e = call(
        "*",
        Type::INT8,
        Type::INT8,
        Value::Int8(i64::MAX),
        Value::Int8(2),
    )
    .unwrap_err();
    assert_eq!(e.message, "bigint out of range");
}

#[test]
fn floats() {
    let e = call(
        "+",
        Type::FLOAT8,
        Type::FLOAT8,
        Value::Float8(1e308),
        Value::Float8(1e308),
    )
    .unwrap_err();
    assert_eq!(e.message, "value out of range: overflow");
    let e = call(
        "*",
        Type::FLOAT8,
        Type::FLOAT8,
        Value::Float8(1e-300),
        Value::Float8(1e-300),
    )
    .unwrap_err();
    assert_eq!(e.message, "value out of range: underflow");
    assert!(call(
        "/",
        Type::FLOAT8,
        Type::FLOAT8,
        Value::Float8(1.0),
        Value::Float8(0.0)
    )
    .is_err());
    let r = call(
        "/",
        Type::FLOAT8,
        Type::FLOAT8,
        Value::Float8(f64::NAN),
        Value::Float8(0.0),
    )
    .unwrap();
    assert_eq!(txt(&r, Type::FLOAT8), "NaN");
    assert_eq!(
        call(
            "=",
            Type::FLOAT8,
            Type::FLOAT8,
            Value::Float8(f64::NAN),
            Value::Float8(f64::NAN)
        )
        .unwrap(),
        Value::Bool(true)
    );
    assert_eq!(
        call(
            ">",
            Type::FLOAT8,
            Type::FLOAT8,
            Value::Float8(f64::NAN),
            Value::Float8(f64::INFINITY)
        )
        .unwrap(),
        Value::Bool(true)
    );
    assert!(f8_pow(0.0, -1.0).is_err());
    assert!(f8_pow(-8.0, 0.5).is_err());
    assert_eq!(f8_pow(2.0, 3.0).unwrap(), 8.0);
}

#[test]
fn strings() {
    assert!(like("abc", "a%", false).unwrap());
    assert!(like("a_c", "a\\_c", false).unwrap());
    assert!(!like("abc", "a\\_c", false).unwrap());
    assert!(like("ABC", "a%", true).unwrap());
    assert!(like("abcabc", "%b%c", false).unwrap());
    assert!(!like("abcabd", "%b%c", false).unwrap());
    assert!(like("", "%", false).unwrap());
    assert!(!like("x", "x\\", false).unwrap());
    assert!(like("xy", "x\\", false).is_err());
    assert!(like("héllo", "h_llo", false).unwrap());
    let r = call(
        "~",
        Type::TEXT,
        Type::TEXT,
        Value::Text("abc".into()),
        Value::Text("^a.c$".into()),
    );
    assert_eq!(r.unwrap(), Value::Bool(true));
    let e = call(
        "~",
        Type::TEXT,
        Type::TEXT,
        Value::Text("x".into()),
        Value::Text("(".into()),
    )
    .unwrap_err();
    assert_eq!(e.code, "2201B");
    let r = call(
        "=",
        Type::BPCHAR,
        Type::BPCHAR,
        Value::Text("a  ".into()),
        Value::Text("a".into()),
    );
    assert_eq!(r.unwrap(), Value::Bool(true));
    let r = call(
        "||",
        Type::TEXT,
        Type::ANYELEMENT,
        Value::Text("a".into()),
        Value::Bool(true),
    );
    assert_eq!(r.unwrap(), Value::Text("atrue".into()));
}

#[test]
fn datetime_ops() {
    let d = parse("2020-01-31", Type::DATE);
    let r = call("+", Type::DATE, Type::INT4, d.clone(), Value::Int4(1)).unwrap();
    assert_eq!(txt(&r, Type::DATE), "2020-02-01");
    let r = call(
        "+",
        Type::DATE,
        Type::INTERVAL,
        d.clone(),
        parse("1 month", Type::INTERVAL),
    )
    .unwrap();
    assert_eq!(txt(&r, Type::TIMESTAMP), "2020-02-29 00:00:00");
    let r = call(
        "-",
        Type::DATE,
        Type::DATE,
        parse("2020-03-01", Type::DATE),
        parse("2020-01-01", Type::DATE),
    )
    .unwrap();
    assert_eq!(r, Value::Int4(60));
    let r = call(
        "-",
        Type::TIMESTAMP,
        Type::TIMESTAMP,
        parse("2020-01-31 10:00", Type::TIMESTAMP),
        parse("2020-01-01", Type::TIMESTAMP),
    )
    .unwrap();
    assert_eq!(txt(&r, Type::INTERVAL), "30 days 10:00:00");
    let r = call(
        "-",
        Type::TIME,
        Type::TIME,
        parse("10:00", Type::TIME),
        parse("08:30", Type::TIME),
    )
    .unwrap();
    assert_eq!(txt(&r, Type::INTERVAL), "01:30:00");
    let r = call(
        "-",
        Type::INTERVAL,
        Type::INTERVAL,
        parse("1 day", Type::INTERVAL),
        parse("25 hours", Type::INTERVAL),
    )
    .unwrap();
    assert_eq!(txt(&r, Type::INTERVAL), "1 day -25:00:00");
    let mut ctx = c();
    ctx.time_zone = dt::parse_timezone("America/New_York").unwrap();
    let t = io::from_text("2020-03-07 12:00", Type::TIMESTAMPTZ, -1, &ctx).unwrap();
    let op = find_binary("+", Type::TIMESTAMPTZ, Type::INTERVAL).unwrap();
    let r = (op.f)(&t, &parse("1 day", Type::INTERVAL), &ctx).unwrap();
    assert_eq!(
        io::to_text(&r, Type::TIMESTAMPTZ, &ctx),
        "2020-03-08 12:00:00-04"
    );
    let r = (op.f)(&t, &parse("24 hours", Type::INTERVAL), &ctx).unwrap();
    assert_eq!(
        io::to_text(&r, Type::TIMESTAMPTZ, &ctx),
        "2020-03-08 13:00:00-04"
    );
    let e = call(
        "+",
        Type::DATE,
        Type::INT4,
        parse("5874897-12-31", Type::DATE),
        Value::Int4(1),
    )
    .unwrap_err();
    assert_eq!(e.message, "date out of range");
}

#[test]
fn arrays() {
    let a = |s: &str| parse(s, Type::INT4_ARRAY);
    let eq = |x: &str, y: &str| compare_values(&a(x), &a(y));
    assert_eq!(eq("{1,2}", "{1,2}"), Ordering::Equal);
    assert_eq!(eq("{1,2}", "{1,2,3}"), Ordering::Less);
    assert_eq!(eq("{2}", "{1,5}"), Ordering::Greater);
    assert_eq!(eq("{1,NULL}", "{1,NULL}"), Ordering::Equal);
    let r = call(
        "||",
        Type::ANYARRAY,
        Type::ANYELEMENT,
        a("{1,2}"),
        Value::Int4(3),
    )
    .unwrap();
    assert_eq!(txt(&r, Type::INT4_ARRAY), "{1,2,3}");
    let r = call(
        "||",
        Type::ANYELEMENT,
        Type::ANYARRAY,
        Value::Int4(0),
        a("{1}"),
    )
    .unwrap();
    assert_eq!(txt(&r, Type::INT4_ARRAY), "{0,1}");
    let r = call(
        "||",
        Type::ANYARRAY,
        Type::ANYARRAY,
        a("{{1,2}}"),
        a("{3,4}"),
    )
    .unwrap();
    assert_eq!(txt(&r, Type::INT4_ARRAY), "{{1,2},{3,4}}");
    let r = call("@>", Type::ANYARRAY, Type::ANYARRAY, a("{1,2}"), a("{2}")).unwrap();
    assert_eq!(r, Value::Bool(true));
    let r = call("&&", Type::ANYARRAY, Type::ANYARRAY, a("{1}"), a("{2,3}")).unwrap();
    assert_eq!(r, Value::Bool(false));
}

#[test]
fn cross_compare() {
    assert_eq!(
        compare_values(&Value::Int2(3), &Value::Int8(3)),
        Ordering::Equal
    );
    let n = Value::Numeric(Box::new(Numeric::parse("2.5").unwrap()));
    assert_eq!(compare_values(&Value::Int4(3), &n), Ordering::Greater);
    assert_eq!(compare_values(&Value::Float8(2.5), &n), Ordering::Equal);
    assert_eq!(
        compare_values(&Value::Text("a".into()), &Value::Text("B".into())),
        Ordering::Greater
    );
}
