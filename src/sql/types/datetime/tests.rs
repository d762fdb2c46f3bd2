//! Unit tests of date/time input, output, time zones, intervals and arithmetic.

use super::*;
use crate::sql::types::{DateStyle, FormatCtx, Interval, IntervalStyle};

fn ctx() -> FormatCtx {
    FormatCtx::default()
}

fn ts(s: &str) -> String {
    let v = parse_timestamp(s, false, &ctx()).unwrap();
    let mut o = String::new();
    format_timestamp(v, DateStyle::default(), &mut o);
    o
}

fn tstz(s: &str, tz: &str) -> String {
    let mut c = ctx();
    c.time_zone = parse_timezone(tz).unwrap();
    let v = parse_timestamp(s, true, &c).unwrap();
    let mut o = String::new();
    format_timestamptz(v, &c, &mut o);
    o
}

fn iv(s: &str, style: IntervalStyle) -> String {
    let v = parse_interval(s, style).unwrap();
    let mut o = String::new();
    format_interval(&v, style, &mut o);
    o
}

#[test]
fn julian() {
    assert_eq!(date2j(2000, 1, 1), POSTGRES_EPOCH_JDATE);
    assert_eq!(date2j(1970, 1, 1), UNIX_EPOCH_JDATE);
    assert_eq!(date2j(-4713, 11, 24), 0);
    for j in [0, 1, 100_000, 2_451_545, 2_451_604, 5_000_000, 109_203_488] {
        let (y, m, d) = j2date(j);
        assert_eq!(date2j(y, m as i64, d as i64), j);
    }
}

#[test]
fn timestamps() {
    assert_eq!(ts("2020-01-02 03:04:05.120"), "2020-01-02 03:04:05.12");
    assert_eq!(ts("2020-01-02T03:04:05Z"), "2020-01-02 03:04:05");
    assert_eq!(ts("epoch"), "1970-01-01 00:00:00");
    assert_eq!(ts("2020-01-02 03:04:05 UTC"), "2020-01-02 03:04:05");
    assert_eq!(ts("2020-01-02 3:04 pm"), "2020-01-02 15:04:00");
    assert_eq!(ts("2020-01-02 12:00 am"), "2020-01-02 00:00:00");
    assert_eq!(ts("20200102T030405"), "2020-01-02 03:04:05");
    assert_eq!(ts("2020-01-02 24:00:00"), "2020-01-03 00:00:00");
    assert_eq!(ts("Jan 2, 2020"), "2020-01-02 00:00:00");
    assert_eq!(ts("01/02/2020"), "2020-01-02 00:00:00");
    assert_eq!(ts("2-Jan-2020"), "2020-01-02 00:00:00");
    assert_eq!(ts("0001-01-01 BC"), "0001-01-01 00:00:00 BC");
    assert_eq!(
        ts("2020-01-02 03:04:05.1234567"),
        "2020-01-02 03:04:05.123457"
    );
    assert_eq!(ts("infinity"), "infinity");
    assert!(parse_timestamp("2020-13-01", false, &ctx()).is_err());
    assert!(parse_timestamp("2020-02-30", false, &ctx()).is_err());
    assert!(parse_timestamp("garbage", false, &ctx()).is_err());
    assert!(parse_timestamp("2020-01-02 25:00", false, &ctx()).is_err());
    let e = parse_timestamp("2020-01-02 03:04:05 xyz", false, &ctx()).unwrap_err();
    assert_eq!(e.code, "22007");
    assert_eq!(
        e.message,
        "invalid input syntax for type timestamp: \"2020-01-02 03:04:05 xyz\""
    );
}

#[test]
fn timestamptz() {
    assert_eq!(
        tstz("2020-01-02 03:04:05+05:30", "UTC"),
        "2020-01-01 21:34:05+00"
    );
    assert_eq!(
        tstz("2020-01-02 03:04:05+00", "Asia/Kolkata"),
        "2020-01-02 08:34:05+05:30"
    );
    assert_eq!(
        tstz("2020-01-02 03:04:05+00", "+05"),
        "2020-01-02 08:04:05+05"
    );
    assert_eq!(
        tstz("2020-01-02 03:04:05+00", "-3:30"),
        "2020-01-02 06:34:05+03:30"
    );
    assert_eq!(
        tstz("2020-07-02 03:04:05+00", "america/new_york"),
        "2020-07-01 23:04:05-04"
    );
    assert_eq!(
        tstz("2020-07-02 03:04:05+00", "UTC+5"),
        "2020-07-01 22:04:05-05"
    );
    assert_eq!(
        tstz("2020-11-01 01:30 America/New_York", "UTC"),
        "2020-11-01 06:30:00+00"
    );
    assert_eq!(
        tstz("2020-03-08 02:30 America/New_York", "UTC"),
        "2020-03-08 07:30:00+00"
    );
    assert_eq!(
        tstz("Thu Jan 02 03:04:05 2020 PST", "UTC"),
        "2020-01-02 11:04:05+00"
    );
    assert_eq!(
        tstz("2020-01-02 03:04:05-0800", "UTC"),
        "2020-01-02 11:04:05+00"
    );
    assert_eq!(timezone_name(&parse_timezone("+05").unwrap()), "<+05>-05");
    assert_eq!(timezone_name(&parse_timezone("utc").unwrap()), "UTC");
    assert_eq!(
        timezone_name(&parse_timezone("america/new_york").unwrap()),
        "America/New_York"
    );
    assert!(parse_timezone("nonexist").is_none());
}

#[test]
fn intervals() {
    let p = IntervalStyle::Postgres;
    assert_eq!(
        iv("1 year 2 mons 3 days 04:05:06", p),
        "1 year 2 mons 3 days 04:05:06"
    );
    assert_eq!(iv("-1 days", p), "-1 days");
    assert_eq!(iv("1 day -01:00", p), "1 day -01:00:00");
    assert_eq!(iv("1.5 days", p), "1 day 12:00:00");
    assert_eq!(iv("01:02:03.456", p), "01:02:03.456");
    assert_eq!(iv("P1Y2M3DT4H5M6S", p), "1 year 2 mons 3 days 04:05:06");
    assert_eq!(iv("1 mon -1 day", p), "1 mon -1 days");
    assert_eq!(iv("1 week", p), "7 days");
    assert_eq!(iv("@ 1 hour ago", p), "-01:00:00");
    assert_eq!(iv("0", p), "00:00:00");
    assert_eq!(iv("1.5 months", p), "1 mon 15 days");
    assert_eq!(iv("1 h 30 m", p), "01:30:00");
    assert_eq!(iv("90 min", p), "01:30:00");
    assert_eq!(iv("2 days 48 hours", p), "2 days 48:00:00");
    assert_eq!(iv("1 day 2", p), "1 day 00:00:02");
    assert_eq!(iv("-1 day 1 hour", p), "-1 days +01:00:00");
    assert_eq!(iv("-1 year 2 mons", p), "-10 mons");
    assert!(parse_interval("xyz", p).is_err());
    assert!(parse_interval("1 2 3", p).is_err());
    let i = IntervalStyle::Iso8601;
    assert_eq!(iv("1 year 2 mons 3 days 04:05:06.5", i), "P1Y2M3DT4H5M6.5S");
    assert_eq!(iv("-1 day", i), "P-1D");
    assert_eq!(iv("0", i), "PT0S");
    assert_eq!(
        iv("1 year -2 mons 3 days -04:05:06.5", i),
        "P10M3DT-4H-5M-6.5S"
    );
    let s = IntervalStyle::SqlStandard;
    assert_eq!(
        iv("1 year 2 mons 3 days 04:05:06.5", s),
        "+1-2 +3 +4:05:06.5"
    );
    assert_eq!(iv("-1 day", s), "-1 0:00:00");
    assert_eq!(iv("1 year -2 mons", s), "0-10");
    assert_eq!(iv("0", s), "0");
    assert_eq!(iv("-1 year -2 mons", s), "-1-2");
    assert_eq!(iv("-1 day 1 hour", s), "-1 1:00:00");
    assert_eq!(iv("1 day -1 hour", s), "+0-0 +1 -1:00:00");
    let v = IntervalStyle::PostgresVerbose;
    assert_eq!(
        iv("1 year 2 mons 3 days 04:05:06.5", v),
        "@ 1 year 2 mons 3 days 4 hours 5 mins 6.5 secs"
    );
    assert_eq!(iv("-1 day -2 hours", v), "@ 1 day 2 hours ago");
    assert_eq!(iv("0", v), "@ 0");
    assert_eq!(iv("-1 day 1 hour", v), "@ 1 day -1 hours ago");
    assert_eq!(iv("1 sec", v), "@ 1 sec");
}

#[test]
fn interval_arith() {
    let p = |s: &str| parse_interval(s, IntervalStyle::Postgres).unwrap();
    let f = |i: Interval| {
        let mut o = String::new();
        format_interval(&i, IntervalStyle::Postgres, &mut o);
        o
    };
    assert_eq!(f(interval_mul(&p("1 day"), 1.5).unwrap()), "1 day 12:00:00");
    assert_eq!(f(interval_div(&p("1 month"), 3.0).unwrap()), "10 days");
    assert_eq!(
        f(interval_div(&p("1 year"), 7.0).unwrap()),
        "1 mon 21 days 10:17:08.5344"
    );
    assert_eq!(
        f(interval_mul(&p("10 seconds"), 0.333).unwrap()),
        "00:00:03.33"
    );
    assert_eq!(
        f(interval_mul(&p("1 mon"), 0.3333).unwrap()),
        "9 days 23:58:33.6"
    );
}
