//! Arithmetic operators over numbers and intervals: `+ - * / %` on the integer widths (with
//! PostgreSQL's overflow errors, checked at the result's width), floats (overflow and
//! underflow checks), numeric, the bit operators on integers, unary minus / plus / `@` / `~`,
//! `|/` and `||/`, `^` (power, with PostgreSQL's errors for a negative base or zero to a
//! negative power), and interval `+ - * /`.

use super::cmath;
use super::{
    f64_of, int_of, iv_of, mismatch, num_of, ADD, AND, DIV, MOD, MUL, OR, SHL, SHR, SUB, XOR,
};
use crate::error::{code, PgError, PgResult};
use crate::sql::types::datetime as dt;
use crate::sql::types::{FormatCtx, Value};

/// Integer result of width W (2, 4, 8 bytes) with PostgreSQL's overflow errors.
fn int_result<const W: u8>(r: i128) -> PgResult<Value> {
    match W {
        2 => i16::try_from(r)
            .map(Value::Int2)
            .map_err(|_| PgError::out_of_range("smallint")),
        4 => i32::try_from(r)
            .map(Value::Int4)
            .map_err(|_| PgError::out_of_range("integer")),
        _ => i64::try_from(r)
            .map(Value::Int8)
            .map_err(|_| PgError::out_of_range("bigint")),
    }
}

pub(super) fn int_arith<const OP: u8, const W: u8>(
    a: &Value,
    b: &Value,
    _: &FormatCtx,
) -> PgResult<Value> {
    let x = int_of(a)?;
    let y = int_of(b)?;
    let r = match OP {
        ADD => x + y,
        SUB => x - y,
        MUL => x * y,
        DIV => {
            if y == 0 {
                return Err(PgError::division_by_zero());
            }
            x / y
        }
        MOD => {
            if y == 0 {
                return Err(PgError::division_by_zero());
            }
            x % y
        }
        AND => x & y,
        OR => x | y,
        XOR => x ^ y,
        SHL | SHR => {
            let s = y as i64;
            match W {
                // int2 shifts happen in 32-bit arithmetic, then truncate.
                2 | 4 => {
                    let s = (s & 31) as u32;
                    let v = x as i32;
                    let r = if OP == SHL { v.wrapping_shl(s) } else { v >> s };
                    if W == 2 {
                        r as i16 as i128
                    } else {
                        r as i128
                    }
                }
                _ => {
                    let s = (s & 63) as u32;
                    let v = x as i64;
                    (if OP == SHL { v.wrapping_shl(s) } else { v >> s }) as i128
                }
            }
        }
        _ => unreachable!(),
    };
    int_result::<W>(r)
}

fn float_overflow() -> PgError {
    PgError::new(
        code::NUMERIC_VALUE_OUT_OF_RANGE,
        "value out of range: overflow",
    )
}

fn float_underflow() -> PgError {
    PgError::new(
        code::NUMERIC_VALUE_OUT_OF_RANGE,
        "value out of range: underflow",
    )
}

/// Float arithmetic with PostgreSQL's overflow/underflow checks; W = 4 for float4 results.
pub(super) fn float_arith<const OP: u8, const W: u8>(
    a: &Value,
    b: &Value,
    _: &FormatCtx,
) -> PgResult<Value> {
    let x = f64_of(a)?;
    let y = f64_of(b)?;
    let r = match OP {
        ADD => x + y,
        SUB => x - y,
        MUL => x * y,
        DIV => {
            if y == 0.0 && !x.is_nan() {
                return Err(PgError::division_by_zero());
            }
            x / y
        }
        _ => unreachable!(),
    };
    if W == 4 {
        let (xf, yf) = (x as f32, y as f32);
        let r = match OP {
            ADD => xf + yf,
            SUB => xf - yf,
            MUL => xf * yf,
            _ => xf / yf,
        };
        if r.is_infinite() && !xf.is_infinite() && !yf.is_infinite() {
            return Err(float_overflow());
        }
        if r == 0.0 && ((OP == MUL && xf != 0.0 && yf != 0.0) || (OP == DIV && xf != 0.0)) {
            return Err(float_underflow());
        }
        return Ok(Value::Float4(r));
    }
    if r.is_infinite() && !x.is_infinite() && !y.is_infinite() {
        return Err(float_overflow());
    }
    if r == 0.0
        && ((OP == MUL && x != 0.0 && y != 0.0) || (OP == DIV && x != 0.0 && !y.is_infinite()))
    {
        return Err(float_underflow());
    }
    Ok(Value::Float8(r))
}

pub(super) fn num_arith<const OP: u8>(a: &Value, b: &Value, _: &FormatCtx) -> PgResult<Value> {
    let x = num_of(a)?;
    let y = num_of(b)?;
    let r = match OP {
        ADD => x.add(&y)?,
        SUB => x.sub(&y)?,
        MUL => x.mul(&y)?,
        DIV => x.div(&y)?,
        MOD => x.rem(&y)?,
        _ => unreachable!(),
    };
    Ok(Value::Numeric(Box::new(r)))
}

// ----- unary -----

pub(super) fn neg_int<const W: u8>(a: &Value, _: &FormatCtx) -> PgResult<Value> {
    int_result::<W>(-int_of(a)?)
}

pub(super) fn abs_int<const W: u8>(a: &Value, _: &FormatCtx) -> PgResult<Value> {
    int_result::<W>(int_of(a)?.abs())
}

pub(super) fn not_int<const W: u8>(a: &Value, _: &FormatCtx) -> PgResult<Value> {
    int_result::<W>(!int_of(a)?)
}

pub(super) fn identity(a: &Value, _: &FormatCtx) -> PgResult<Value> {
    Ok(a.clone())
}

pub(super) fn neg_float(a: &Value, _: &FormatCtx) -> PgResult<Value> {
    Ok(match a {
        Value::Float4(f) => Value::Float4(-f),
        _ => Value::Float8(-f64_of(a)?),
    })
}

pub(super) fn abs_float(a: &Value, _: &FormatCtx) -> PgResult<Value> {
    Ok(match a {
        Value::Float4(f) => Value::Float4(f.abs()),
        _ => Value::Float8(f64_of(a)?.abs()),
    })
}

pub(super) fn neg_num(a: &Value, _: &FormatCtx) -> PgResult<Value> {
    Ok(Value::Numeric(Box::new(num_of(a)?.neg())))
}

pub(super) fn abs_num(a: &Value, _: &FormatCtx) -> PgResult<Value> {
    Ok(Value::Numeric(Box::new(num_of(a)?.abs())))
}

pub(super) fn neg_interval(a: &Value, _: &FormatCtx) -> PgResult<Value> {
    Ok(Value::Interval(dt::interval_neg(&iv_of(a)?)?))
}

/// float8 square root (`|/`).
pub fn f8_sqrt(a: &Value, _: &FormatCtx) -> PgResult<Value> {
    let x = f64_of(a)?;
    if x < 0.0 {
        return Err(PgError::new(
            code::INVALID_ARGUMENT_FOR_POWER_FUNCTION,
            "cannot take square root of a negative number",
        ));
    }
    Ok(Value::Float8(x.sqrt()))
}

/// float8 cube root (`||/`).
pub fn f8_cbrt(a: &Value, _: &FormatCtx) -> PgResult<Value> {
    Ok(Value::Float8(cmath::cbrt(f64_of(a)?)))
}

// ----- power -----

/// float8 power with PostgreSQL's errors.
pub fn f8_pow(x: f64, y: f64) -> PgResult<f64> {
    if x.is_nan() {
        return Ok(if y == 0.0 { 1.0 } else { f64::NAN });
    }
    if y.is_nan() {
        return Ok(if x == 1.0 { 1.0 } else { f64::NAN });
    }
    if x == 0.0 && y < 0.0 {
        return Err(PgError::new(
            code::INVALID_ARGUMENT_FOR_POWER_FUNCTION,
            "zero raised to a negative power is undefined",
        ));
    }
    if x < 0.0 && y.is_finite() && y.floor() != y {
        return Err(PgError::new(
            code::INVALID_ARGUMENT_FOR_POWER_FUNCTION,
            "a negative number raised to a non-integer power yields a complex result",
        ));
    }
    let r = cmath::pow(x, y);
    if r.is_infinite() && x.is_finite() && y.is_finite() {
        return Err(float_overflow());
    }
    if r == 0.0 && x != 0.0 && x.is_finite() && y.is_finite() {
        return Err(float_underflow());
    }
    Ok(r)
}

pub(super) fn f8_pow_op(a: &Value, b: &Value, _: &FormatCtx) -> PgResult<Value> {
    Ok(Value::Float8(f8_pow(f64_of(a)?, f64_of(b)?)?))
}

pub(super) fn num_pow_op(a: &Value, b: &Value, _: &FormatCtx) -> PgResult<Value> {
    Ok(Value::Numeric(Box::new(num_of(a)?.power(&num_of(b)?)?)))
}

pub(super) fn interval_arith<const OP: u8>(a: &Value, b: &Value, _: &FormatCtx) -> PgResult<Value> {
    Ok(Value::Interval(match OP {
        ADD => dt::interval_add(&iv_of(a)?, &iv_of(b)?)?,
        SUB => dt::interval_sub(&iv_of(a)?, &iv_of(b)?)?,
        MUL => match (a, b) {
            (Value::Interval(i), f) | (f, Value::Interval(i)) => dt::interval_mul(i, f64_of(f)?)?,
            _ => return Err(mismatch(a)),
        },
        _ => dt::interval_div(&iv_of(a)?, f64_of(b)?)?,
    }))
}
