//! Text output and input of float4 and float8, as PostgreSQL 12 and later write and read them.
//!
//! Output with extra_float_digits > 0 (the default) is the shortest decimal that reads back as
//! the same float (worked out from the float's bit layout, with an exact check of decimals that
//! fall on the midpoint between two floats), printed with PostgreSQL's switch to exponent
//! notation; with 0 or less it is `%.{15+extra}g` (float8) or `%.{6+extra}g` (float4), and
//! infinities and NaN print as `Infinity`, `-Infinity`, `NaN`. Input takes blanks around,
//! decimal digits with a point and an exponent, and `NaN` / `Infinity` / `inf` with a sign in
//! any case; an infinite result or an underflow to zero of a number with a nonzero digit is
//! 22003, anything else unreadable 22P02.

use crate::error::{code, PgError, PgResult};
use std::fmt::Write;

/// float8 output: shortest exact representation when extra_float_digits > 0 (PostgreSQL 12+
/// default), otherwise `%.{15+extra}g`.
pub fn write_float8(f: f64, extra: i32, out: &mut String) {
    write_float(
        f,
        extra,
        15,
        out,
        |p| format!("{:.*e}", p, f),
        || shortest_f64(f),
    )
}

/// float4 output (6 significant digits base).
pub fn write_float4(f: f32, extra: i32, out: &mut String) {
    write_float(
        f as f64,
        extra,
        6,
        out,
        |p| format!("{:.*e}", p, f),
        || shortest_f32(f),
    )
}

/// `m * 2^e` of a finite non-negative float given its bit layout.
fn float_parts(bits: u64, mant_bits: u32, exp_bits: u32, exp_bias: i32) -> (u64, i32) {
    let mant = bits & ((1u64 << mant_bits) - 1);
    let exp = ((bits >> mant_bits) & ((1u64 << exp_bits) - 1)) as i32;
    if exp == 0 {
        (mant, 1 - exp_bias - mant_bits as i32)
    } else {
        (
            mant | (1u64 << mant_bits),
            exp - exp_bias - mant_bits as i32,
        )
    }
}

/// Whether the decimal `sci` (as produced by `{:e}`) equals (a + b) / 2 exactly, where a and b
/// are `m * 2^e` values.
fn decimal_is_midpoint(sci: &str, a: (u64, i32), b: (u64, i32)) -> bool {
    use bigdecimal::num_bigint::BigInt;
    let (mant, exp) = sci.split_once('e').unwrap_or((sci, "0"));
    let mant = mant.trim_start_matches('-');
    let (ip, fp) = mant.split_once('.').unwrap_or((mant, ""));
    let digits: String = format!("{ip}{fp}");
    let Ok(d) = digits.parse::<BigInt>() else {
        return false;
    };
    let k = exp.parse::<i32>().unwrap_or(0) - fp.len() as i32;
    let e = a.1.min(b.1);
    let s = BigInt::from(a.0) * (BigInt::from(1) << (a.1 - e) as usize)
        + BigInt::from(b.0) * (BigInt::from(1) << (b.1 - e) as usize);
    let ten = BigInt::from(10);
    // 2 * d * 10^k == s * 2^e
    let mut lhs = d * 2;
    let mut rhs = s;
    if k >= 0 {
        lhs *= ten.pow(k as u32);
    } else {
        rhs *= ten.pow((-k) as u32);
    }
    if e >= 0 {
        rhs <<= e as usize;
    } else {
        lhs <<= (-e) as usize;
    }
    lhs == rhs
}

/// Shortest decimal that reads back as `f` under any tie-breaking (bounds excluded) and, among
/// those, the closest, ties to even: PostgreSQL's (Ryu) output.
fn shortest_f64(f: f64) -> String {
    let a = f.abs();
    let parts = |x: f64| float_parts(x.to_bits(), 52, 11, 1023);
    shortest(
        format!("{f:e}"),
        17,
        parts(a),
        a.next_up().is_finite().then(|| parts(a.next_up())),
        (a > 0.0).then(|| parts(a.next_down())),
        |c| c.parse::<f64>().ok() == Some(f),
        |p| format!("{:.*e}", p, f),
    )
}

/// [`shortest_f64`] for float4.
fn shortest_f32(f: f32) -> String {
    let a = f.abs();
    let parts = |x: f32| float_parts(x.to_bits() as u64, 23, 8, 127);
    shortest(
        format!("{f:e}"),
        9,
        parts(a),
        a.next_up().is_finite().then(|| parts(a.next_up())),
        (a > 0.0).then(|| parts(a.next_down())),
        |c| c.parse::<f32>().ok() == Some(f),
        |p| format!("{:.*e}", p, f),
    )
}

/// The search of [`shortest_f64`] and [`shortest_f32`]: from the digits of `first` (Rust's
/// shortest `{:e}`) up to `max_digits`, the first correctly rounded candidate that `reads_back`
/// and is not the exact midpoint between the float (`me`, as `m * 2^e`) and its finite
/// neighbours `up` / `down`; `fixed(p)` writes the float with `p` digits after the point.
fn shortest(
    first: String,
    max_digits: usize,
    me: (u64, i32),
    up: Option<(u64, i32)>,
    down: Option<(u64, i32)>,
    reads_back: impl Fn(&str) -> bool,
    fixed: impl Fn(usize) -> String,
) -> String {
    let start = first
        .split('e')
        .next()
        .map(|m| m.chars().filter(|c| c.is_ascii_digit()).count())
        .unwrap_or(1)
        .max(1);
    let ok = |c: &str| {
        reads_back(c)
            && !up.is_some_and(|u| decimal_is_midpoint(c, me, u))
            && !down.is_some_and(|d| decimal_is_midpoint(c, me, d))
    };
    for n in start..=max_digits {
        // The correctly rounded n-digit value (ties to even) is the closest candidate.
        let c = fixed(n - 1);
        if ok(&c) {
            return c;
        }
        if n == start && ok(&first) {
            return first;
        }
    }
    fixed(max_digits - 1)
}

fn write_float(
    f: f64,
    extra: i32,
    dig: i32,
    out: &mut String,
    fixed_prec: impl Fn(usize) -> String,
    shortest: impl Fn() -> String,
) {
    if f.is_nan() {
        return out.push_str("NaN");
    }
    if f.is_infinite() {
        return out.push_str(if f > 0.0 { "Infinity" } else { "-Infinity" });
    }
    if f == 0.0 {
        return out.push_str(if f.is_sign_negative() { "-0" } else { "0" });
    }
    let (sci, threshold, strip) = if extra > 0 {
        (shortest(), dig, false)
    } else {
        let p = (dig + extra).max(1);
        (fixed_prec((p - 1) as usize), p, true)
    };
    // sci is like "-1.2345e17" or "1e-5"
    let (mant, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let neg = mant.starts_with('-');
    let mant = mant.trim_start_matches('-');
    let mut digits: String = mant.chars().filter(|c| c.is_ascii_digit()).collect();
    if strip {
        while digits.len() > 1 && digits.ends_with('0') {
            digits.pop();
        }
    }
    if neg {
        out.push('-');
    }
    if exp < -4 || exp >= threshold {
        out.push_str(&digits[..1]);
        if digits.len() > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        let _ = write!(out, "e{}{:02}", if exp < 0 { '-' } else { '+' }, exp.abs());
    } else if exp < 0 {
        out.push_str("0.");
        for _ in 0..(-exp - 1) {
            out.push('0');
        }
        out.push_str(&digits);
    } else {
        let int_len = exp as usize + 1;
        if digits.len() <= int_len {
            out.push_str(&digits);
            for _ in digits.len()..int_len {
                out.push('0');
            }
        } else {
            out.push_str(&digits[..int_len]);
            out.push('.');
            out.push_str(&digits[int_len..]);
        }
    }
}

/// PostgreSQL's float8 input.
pub fn parse_float8(s: &str) -> PgResult<f64> {
    parse_float(s, "double precision").map(|(v, _)| v)
}

/// PostgreSQL's float4 input.
pub fn parse_float4(s: &str) -> PgResult<f32> {
    let t = s.trim_matches(|c: char| c.is_ascii_whitespace());
    let (v, special) = parse_float(s, "real")?;
    if special {
        return Ok(v as f32);
    }
    let f: f32 = t.parse().map_err(|_| PgError::invalid_text("real", s))?;
    if f.is_infinite() || (f == 0.0 && has_nonzero_digit(t)) {
        return Err(PgError::new(
            code::NUMERIC_VALUE_OUT_OF_RANGE,
            format!("\"{s}\" is out of range for type real"),
        ));
    }
    Ok(f)
}

fn has_nonzero_digit(t: &str) -> bool {
    let mant = t.split(['e', 'E']).next().unwrap_or("");
    mant.bytes().any(|c| (b'1'..=b'9').contains(&c))
}

/// Returns (value, is_special_literal).
fn parse_float(s: &str, type_name: &str) -> PgResult<(f64, bool)> {
    let t = s.trim_matches(|c: char| c.is_ascii_whitespace());
    let lower = t.to_ascii_lowercase();
    match lower.as_str() {
        "nan" | "+nan" | "-nan" => return Ok((f64::NAN, true)),
        "infinity" | "+infinity" | "inf" | "+inf" => return Ok((f64::INFINITY, true)),
        "-infinity" | "-inf" => return Ok((f64::NEG_INFINITY, true)),
        _ => {}
    }
    let valid = !t.is_empty()
        && t.bytes()
            .all(|c| c.is_ascii_digit() || matches!(c, b'.' | b'e' | b'E' | b'+' | b'-'))
        && t.bytes().any(|c| c.is_ascii_digit());
    if !valid {
        return Err(PgError::invalid_text(type_name, s));
    }
    let v: f64 = t.parse().map_err(|_| PgError::invalid_text(type_name, s))?;
    if v.is_infinite() || (v == 0.0 && has_nonzero_digit(t)) {
        return Err(PgError::new(
            code::NUMERIC_VALUE_OUT_OF_RANGE,
            format!("\"{s}\" is out of range for type {type_name}"),
        ));
    }
    Ok((v, false))
}
