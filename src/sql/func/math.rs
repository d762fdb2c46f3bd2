//! Numeric functions (PostgreSQL's float.c, numeric.c, int.c): abs, round, trunc, ceil, floor,
//! sign, sqrt, cbrt, power, exp, ln / log, mod, div, gcd / lcm, pi, degrees / radians, the
//! trigonometric functions in radians and in degrees, random() and setseed() with PostgreSQL's
//! generator, scale / min_scale / trim_scale, factorial and width_bucket.

use super::args::{
    bad_arg, float_overflow, float_underflow, flt, i4, int, invalid_param, num, numeric,
};
use crate::error::{code, PgError, PgResult};
use crate::sql::types::ops::cmath;
use crate::sql::types::{io, ops, FormatCtx, Numeric, Value};

pub(super) fn f_abs(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    Ok(match &a[0] {
        Value::Int2(v) => Value::Int2(
            v.checked_abs()
                .ok_or_else(|| PgError::out_of_range("smallint"))?,
        ),
        Value::Int4(v) => Value::Int4(
            v.checked_abs()
                .ok_or_else(|| PgError::out_of_range("integer"))?,
        ),
        Value::Int8(v) => Value::Int8(
            v.checked_abs()
                .ok_or_else(|| PgError::out_of_range("bigint"))?,
        ),
        Value::Float4(f) => Value::Float4(f.abs()),
        Value::Float8(f) => Value::Float8(f.abs()),
        Value::Numeric(n) => numeric(n.abs()),
        v => return Err(bad_arg(v)),
    })
}

pub(super) fn f_round(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    match &a[0] {
        Value::Float8(f) => Ok(Value::Float8(f.round_ties_even())),
        Value::Float4(f) => Ok(Value::Float8((*f as f64).round_ties_even())),
        v => {
            let s = if a.len() > 1 { int(&a[1])? } else { 0 };
            Ok(numeric(num(v)?.round(s)))
        }
    }
}

pub(super) fn f_trunc(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    match &a[0] {
        Value::Float8(f) => Ok(Value::Float8(f.trunc())),
        v => {
            let s = if a.len() > 1 { int(&a[1])? } else { 0 };
            Ok(numeric(num(v)?.trunc(s)))
        }
    }
}

pub(super) fn f_ceil(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    match &a[0] {
        Value::Float8(f) => Ok(Value::Float8(f.ceil())),
        v => Ok(numeric(num(v)?.ceil())),
    }
}

pub(super) fn f_floor(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    match &a[0] {
        Value::Float8(f) => Ok(Value::Float8(f.floor())),
        v => Ok(numeric(num(v)?.floor())),
    }
}

pub(super) fn f_sign(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    match &a[0] {
        Value::Float8(f) => Ok(Value::Float8(if f.is_nan() {
            f64::NAN
        } else if *f > 0.0 {
            1.0
        } else if *f < 0.0 {
            -1.0
        } else {
            0.0
        })),
        v => {
            let n = num(v)?;
            if n.is_nan() {
                return Ok(numeric(n));
            }
            Ok(numeric(Numeric::from_i64(n.signum() as i64)))
        }
    }
}

pub(super) fn f_sqrt(a: &[Value], ctx: &FormatCtx) -> PgResult<Value> {
    match &a[0] {
        Value::Numeric(n) => Ok(numeric(n.sqrt()?)),
        v => ops::f8_sqrt(&Value::Float8(flt(v)?), ctx),
    }
}

pub(super) fn f_cbrt(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    Ok(Value::Float8(cmath::cbrt(flt(&a[0])?)))
}

pub(super) fn f_power(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    match (&a[0], &a[1]) {
        (Value::Numeric(_), _) | (_, Value::Numeric(_)) => {
            Ok(numeric(num(&a[0])?.power(&num(&a[1])?)?))
        }
        _ => Ok(Value::Float8(ops::f8_pow(flt(&a[0])?, flt(&a[1])?)?)),
    }
}

pub(super) fn f_exp(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    match &a[0] {
        Value::Numeric(n) => Ok(numeric(n.exp()?)),
        v => {
            let x = flt(v)?;
            if x.is_nan() {
                return Ok(Value::Float8(x));
            }
            if x.is_infinite() {
                return Ok(Value::Float8(if x > 0.0 { x } else { 0.0 }));
            }
            let r = cmath::exp(x);
            if r.is_infinite() {
                return Err(float_overflow());
            }
            if r == 0.0 {
                return Err(float_underflow());
            }
            Ok(Value::Float8(r))
        }
    }
}

fn log_domain(x: f64) -> PgResult<()> {
    if x == 0.0 {
        return Err(PgError::new(
            code::INVALID_ARGUMENT_FOR_LOG,
            "cannot take logarithm of zero",
        ));
    }
    if x < 0.0 {
        return Err(PgError::new(
            code::INVALID_ARGUMENT_FOR_LOG,
            "cannot take logarithm of a negative number",
        ));
    }
    Ok(())
}

pub(super) fn f_ln(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    match &a[0] {
        Value::Numeric(n) => Ok(numeric(n.ln()?)),
        v => {
            let x = flt(v)?;
            log_domain(x)?;
            Ok(Value::Float8(cmath::ln(x)))
        }
    }
}

pub(super) fn f_log10(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    match &a[0] {
        Value::Numeric(n) => Ok(numeric(Numeric::log(&Numeric::from_i64(10), n)?)),
        v => {
            let x = flt(v)?;
            log_domain(x)?;
            Ok(Value::Float8(cmath::log10(x)))
        }
    }
}

pub(super) fn f_log_base(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    Ok(numeric(Numeric::log(&num(&a[0])?, &num(&a[1])?)?))
}

pub(super) fn f_mod(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    match (&a[0], &a[1]) {
        (Value::Numeric(_), _) | (_, Value::Numeric(_)) => {
            Ok(numeric(num(&a[0])?.rem(&num(&a[1])?)?))
        }
        (x, y) => {
            let (p, q) = (int(x)?, int(y)?);
            if q == 0 {
                return Err(PgError::division_by_zero());
            }
            let r = if q == -1 { 0 } else { p % q };
            Ok(match x {
                Value::Int2(_) => Value::Int2(r as i16),
                Value::Int4(_) => Value::Int4(r as i32),
                _ => Value::Int8(r),
            })
        }
    }
}

pub(super) fn f_div(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    Ok(numeric(num(&a[0])?.div_trunc(&num(&a[1])?)?))
}

fn gcd_u128(mut a: u128, mut b: u128) -> u128 {
    while b != 0 {
        let t = a % b;
        a = b;
        b = t;
    }
    a
}

pub(super) fn f_gcd(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    match (&a[0], &a[1]) {
        (Value::Int4(x), Value::Int4(y)) => {
            let g = gcd_u128(x.unsigned_abs() as u128, y.unsigned_abs() as u128);
            i32::try_from(g)
                .map(Value::Int4)
                .map_err(|_| PgError::out_of_range("integer"))
        }
        (Value::Int8(x), Value::Int8(y)) => {
            let g = gcd_u128(x.unsigned_abs() as u128, y.unsigned_abs() as u128);
            i64::try_from(g)
                .map(Value::Int8)
                .map_err(|_| PgError::out_of_range("bigint"))
        }
        _ => Ok(numeric(num(&a[0])?.gcd(&num(&a[1])?))),
    }
}

pub(super) fn f_lcm(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    let lcm = |x: i128, y: i128| -> i128 {
        if x == 0 || y == 0 {
            return 0;
        }
        let g = gcd_u128(x.unsigned_abs(), y.unsigned_abs()) as i128;
        (x / g * y).abs()
    };
    match (&a[0], &a[1]) {
        (Value::Int4(x), Value::Int4(y)) => i32::try_from(lcm(*x as i128, *y as i128))
            .map(Value::Int4)
            .map_err(|_| PgError::out_of_range("integer")),
        (Value::Int8(x), Value::Int8(y)) => i64::try_from(lcm(*x as i128, *y as i128))
            .map(Value::Int8)
            .map_err(|_| PgError::out_of_range("bigint")),
        _ => {
            let (x, y) = (num(&a[0])?, num(&a[1])?);
            if x.is_zero() || y.is_zero() {
                return Ok(numeric(
                    Numeric::zero().round(x.scale().max(y.scale()) as i64),
                ));
            }
            let g = x.gcd(&y);
            Ok(numeric(
                x.div_trunc(&g)?
                    .mul(&y)?
                    .abs()
                    .round(x.scale().max(y.scale()) as i64),
            ))
        }
    }
}

pub(super) fn f_pi(_: &[Value], _: &FormatCtx) -> PgResult<Value> {
    Ok(Value::Float8(std::f64::consts::PI))
}

pub(super) fn f_degrees(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    Ok(Value::Float8(flt(&a[0])? / RADIANS_PER_DEGREE))
}

pub(super) fn f_radians(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    Ok(Value::Float8(flt(&a[0])? * RADIANS_PER_DEGREE))
}

fn trig_out_of_range() -> PgError {
    PgError::new(code::NUMERIC_VALUE_OUT_OF_RANGE, "input is out of range")
}

pub(super) fn f_trig<const K: u8>(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    let x = flt(&a[0])?;
    if x.is_nan() {
        return Ok(Value::Float8(x));
    }
    let r = match K {
        0 => {
            if x.is_infinite() {
                return Err(trig_out_of_range());
            }
            cmath::sin(x)
        }
        1 => {
            if x.is_infinite() {
                return Err(trig_out_of_range());
            }
            cmath::cos(x)
        }
        2 => {
            if x.is_infinite() {
                return Err(trig_out_of_range());
            }
            cmath::tan(x)
        }
        3 => {
            if !(-1.0..=1.0).contains(&x) {
                return Err(trig_out_of_range());
            }
            cmath::asin(x)
        }
        4 => {
            if !(-1.0..=1.0).contains(&x) {
                return Err(trig_out_of_range());
            }
            cmath::acos(x)
        }
        5 => cmath::atan(x),
        6 => {
            if x.is_infinite() {
                return Err(trig_out_of_range());
            }
            1.0 / cmath::tan(x)
        }
        7 => cmath::sinh(x),
        8 => cmath::cosh(x),
        9 => cmath::tanh(x),
        10 => cmath::asinh(x),
        11 => {
            if x < 1.0 {
                return Err(trig_out_of_range());
            }
            cmath::acosh(x)
        }
        _ => {
            if !(-1.0..=1.0).contains(&x) {
                return Err(trig_out_of_range());
            }
            cmath::atanh(x)
        }
    };
    Ok(Value::Float8(r))
}

const RADIANS_PER_DEGREE: f64 = 0.017_453_292_519_943_295;

/// Degree-based trigonometry computed from exact anchor angles (30, 45, 60 degrees) so that
/// sind(30) = 0.5 etc. come out exact, as PostgreSQL's do.
mod degtrig {
    use super::cmath;
    use super::RADIANS_PER_DEGREE as RPD;

    fn sin_30() -> f64 {
        cmath::sin(30.0 * RPD)
    }
    fn one_minus_cos_60() -> f64 {
        1.0 - cmath::cos(60.0 * RPD)
    }
    fn sin_0_to_30(x: f64) -> f64 {
        (cmath::sin(x * RPD) / sin_30()) / 2.0
    }
    fn cos_0_to_60(x: f64) -> f64 {
        1.0 - ((1.0 - cmath::cos(x * RPD)) / one_minus_cos_60()) / 2.0
    }
    pub fn sind_q1(x: f64) -> f64 {
        if x <= 30.0 {
            sin_0_to_30(x)
        } else {
            cos_0_to_60(90.0 - x)
        }
    }
    pub fn cosd_q1(x: f64) -> f64 {
        if x <= 60.0 {
            cos_0_to_60(x)
        } else {
            sin_0_to_30(90.0 - x)
        }
    }
    pub fn asind_q1(x: f64) -> f64 {
        if x <= 0.5 {
            (cmath::asin(x) / cmath::asin(0.5)) * 30.0
        } else {
            90.0 - (cmath::acos(x) / cmath::acos(0.5)) * 60.0
        }
    }
    pub fn acosd_q1(x: f64) -> f64 {
        if x <= 0.5 {
            90.0 - (cmath::asin(x) / cmath::asin(0.5)) * 30.0
        } else {
            (cmath::acos(x) / cmath::acos(0.5)) * 60.0
        }
    }
    pub fn tan_45() -> f64 {
        sind_q1(45.0) / cosd_q1(45.0)
    }
}

/// An angle in degrees brought into [0, 90] for an odd function (sine, tangent), as
/// PostgreSQL's dsind and dtand do: the angle, the sign the result takes so far, and whether
/// the angle was folded past 90°.
fn reduce_odd(x: f64) -> (f64, f64, bool) {
    let mut arg = x % 360.0;
    let mut sign = 1.0;
    if arg < 0.0 {
        arg = -arg;
        sign = -sign;
    }
    if arg > 180.0 {
        arg = 360.0 - arg;
        sign = -sign;
    }
    let folded = arg > 90.0;
    if folded {
        arg = 180.0 - arg;
    }
    (arg, sign, folded)
}

/// Degree-based trig functions (sind, cosd, tand, cotd, asind, acosd, atand).
pub(super) fn f_trigd<const K: u8>(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    use degtrig::*;
    let x = flt(&a[0])?;
    if x.is_nan() {
        return Ok(Value::Float8(x));
    }
    let r = match K {
        0 => {
            // sind
            if x.is_infinite() {
                return Err(trig_out_of_range());
            }
            let (arg, sign, _) = reduce_odd(x);
            sign * sind_q1(arg)
        }
        1 => {
            // cosd
            if x.is_infinite() {
                return Err(trig_out_of_range());
            }
            let mut arg = (x % 360.0).abs();
            let mut sign = 1.0;
            if arg > 180.0 {
                arg = 360.0 - arg;
            }
            if arg > 90.0 {
                arg = 180.0 - arg;
                sign = -sign;
            }
            sign * cosd_q1(arg)
        }
        2 | 6 => {
            // tand, cotd
            if x.is_infinite() {
                return Err(trig_out_of_range());
            }
            // Past 90° tangent changes sign where sine does not.
            let (arg, mut sign, folded) = reduce_odd(x);
            if folded {
                sign = -sign;
            }
            let t = if K == 2 {
                sind_q1(arg) / cosd_q1(arg)
            } else {
                cosd_q1(arg) / sind_q1(arg)
            };
            let r = sign * (t / tan_45());
            if r == 0.0 {
                0.0
            } else {
                r
            }
        }
        3 => {
            if !(-1.0..=1.0).contains(&x) {
                return Err(trig_out_of_range());
            }
            if x >= 0.0 {
                asind_q1(x)
            } else {
                -asind_q1(-x)
            }
        }
        4 => {
            if !(-1.0..=1.0).contains(&x) {
                return Err(trig_out_of_range());
            }
            if x >= 0.0 {
                acosd_q1(x)
            } else {
                90.0 + asind_q1(-x)
            }
        }
        _ => (cmath::atan(x) / cmath::atan(1.0)) * 45.0,
    };
    Ok(Value::Float8(r))
}

pub(super) fn f_atan2(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    Ok(Value::Float8(cmath::atan2(flt(&a[0])?, flt(&a[1])?)))
}

pub(super) fn f_atan2d(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    let (y, x) = (flt(&a[0])?, flt(&a[1])?);
    if y.is_nan() || x.is_nan() {
        return Ok(Value::Float8(f64::NAN));
    }
    Ok(Value::Float8(
        (cmath::atan2(y, x) / cmath::atan(1.0)) * 45.0,
    ))
}

thread_local! {
    /// State of random(): xoroshiro128**, seeded like PostgreSQL's so setseed() reproduces
    /// PostgreSQL's sequences. Per worker thread (sessions do not own their generator).
    static PRNG: std::cell::Cell<Option<(u64, u64)>> = const { std::cell::Cell::new(None) };
}

fn splitmix64(x: &mut u64) -> u64 {
    *x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *x;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn prng_seed(seed: u64) -> (u64, u64) {
    let mut x = seed;
    let a = splitmix64(&mut x);
    let b = splitmix64(&mut x);
    if a == 0 && b == 0 {
        (1, 0)
    } else {
        (a, b)
    }
}

/// The next random double in [0, 1), as PostgreSQL's pg_prng_double.
pub fn random_double() -> f64 {
    PRNG.with(|cell| {
        let (s0, mut s1) = cell.get().unwrap_or_else(|| prng_seed(rand::random()));
        let val = s0.wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        s1 ^= s0;
        let n0 = s0.rotate_left(24) ^ s1 ^ (s1 << 16);
        let n1 = s1.rotate_left(37);
        cell.set(Some((n0, n1)));
        (val >> 12) as f64 * (2.0f64).powi(-52)
    })
}

pub(super) fn f_random(_: &[Value], _: &FormatCtx) -> PgResult<Value> {
    Ok(Value::Float8(random_double()))
}

pub(super) fn f_setseed(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    let seed = flt(&a[0])?;
    if !(-1.0..=1.0).contains(&seed) {
        let mut g = String::new();
        io::write_float8(seed, -9, &mut g);
        return Err(invalid_param(format!(
            "setseed parameter {g} is out of allowed range [-1,1]"
        )));
    }
    let iseed = (seed * ((1u64 << 52) - 1) as f64) as i64;
    PRNG.with(|cell| cell.set(Some(prng_seed(iseed as u64))));
    Ok(Value::Void)
}

pub(super) fn f_scale(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    let n = num(&a[0])?;
    if !n.is_finite() {
        return Ok(Value::Null);
    }
    Ok(Value::Int4(n.scale() as i32))
}

pub(super) fn f_min_scale(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    let n = num(&a[0])?;
    if !n.is_finite() {
        return Ok(Value::Null);
    }
    Ok(Value::Int4(n.min_scale() as i32))
}

pub(super) fn f_trim_scale(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    Ok(numeric(num(&a[0])?.trim_scale()))
}

pub(super) fn f_factorial(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    let n = int(&a[0])?;
    if n < 0 {
        return Err(PgError::new(
            code::INVALID_PARAMETER_VALUE,
            "factorial of a negative number is undefined",
        ));
    }
    if n > 32177 {
        return Err(crate::sql::types::numeric::overflow_error());
    }
    let mut r = Numeric::from_i64(1);
    for i in 2..=n {
        r = r.mul(&Numeric::from_i64(i))?;
    }
    Ok(numeric(r))
}

pub(super) fn f_width_bucket(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    let count = int(&a[3])?;
    if count <= 0 {
        return Err(PgError::new(
            code::INVALID_ARGUMENT_FOR_WIDTH_BUCKET_FUNCTION,
            "count must be greater than zero",
        ));
    }
    let (op, lo, hi) = (flt(&a[0])?, flt(&a[1])?, flt(&a[2])?);
    if op.is_nan() || lo.is_nan() || hi.is_nan() {
        return Err(PgError::new(
            code::INVALID_ARGUMENT_FOR_WIDTH_BUCKET_FUNCTION,
            "operand, lower bound, and upper bound cannot be NaN",
        ));
    }
    if lo.is_infinite() || hi.is_infinite() {
        return Err(PgError::new(
            code::INVALID_ARGUMENT_FOR_WIDTH_BUCKET_FUNCTION,
            "lower and upper bounds must be finite",
        ));
    }
    if lo == hi {
        return Err(PgError::new(
            code::INVALID_ARGUMENT_FOR_WIDTH_BUCKET_FUNCTION,
            "lower bound cannot equal upper bound",
        ));
    }
    let r = if lo < hi {
        if op < lo {
            0
        } else if op >= hi {
            count + 1
        } else {
            ((op - lo) / (hi - lo) * count as f64) as i64 + 1
        }
    } else if op > lo {
        0
    } else if op <= hi {
        count + 1
    } else {
        ((lo - op) / (lo - hi) * count as f64) as i64 + 1
    };
    i4(r)
}
