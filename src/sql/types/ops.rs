//! Operators: the candidate signatures for each operator name (as in pg_operator), their
//! implementations, and the total order used for sorting and comparisons.
//!
//! The planner resolves an operator call PostgreSQL-style over [`binary_operators`] /
//! [`unary_operators`], casts the arguments to the chosen signature, and calls `f` with non-NULL
//! values (every operator here is strict). The functions are lenient about the exact variant
//! (an `int2` where `int4` is declared is fine), so resolution without every cast still works.

use super::datetime as dt;
use super::{io, json, Array, FormatCtx, Interval, Numeric, Type, Value};
use crate::error::{code, PgError, PgResult};
use std::cmp::Ordering;

pub type BinFn = fn(&Value, &Value, &FormatCtx) -> PgResult<Value>;
pub type UnFn = fn(&Value, &FormatCtx) -> PgResult<Value>;

pub struct BinOp {
    pub left: Type,
    pub right: Type,
    pub result: Type,
    pub f: BinFn,
}

pub struct UnOp {
    pub arg: Type,
    pub result: Type,
    pub f: UnFn,
}

/// The C library's math functions, which PostgreSQL uses, so float results match it to the
/// last bit (Rust's own implementations of some of them, e.g. cbrt, round differently). They are
/// looked up in the system libm at run time; Rust's versions are the fallback.
pub mod cmath {
    use std::ffi::{c_char, c_int, c_void, CStr};
    use std::sync::OnceLock;

    unsafe extern "C" {
        fn dlopen(filename: *const c_char, flag: c_int) -> *mut c_void;
        fn dlsym(handle: *mut c_void, symbol: *const c_char) -> *mut c_void;
    }

    type F1 = unsafe extern "C" fn(f64) -> f64;
    type F2 = unsafe extern "C" fn(f64, f64) -> f64;

    fn libm() -> Option<usize> {
        static H: OnceLock<Option<usize>> = OnceLock::new();
        *H.get_or_init(|| {
            const RTLD_NOW: c_int = 2;
            for name in [c"libm.so.6", c"libm.so"] {
                // SAFETY: dlopen with a valid NUL-terminated name.
                let h = unsafe { dlopen(name.as_ptr(), RTLD_NOW) };
                if !h.is_null() {
                    return Some(h as usize);
                }
            }
            None
        })
    }

    fn sym(name: &CStr) -> Option<*mut c_void> {
        let h = libm()?;
        // SAFETY: valid handle from dlopen and a NUL-terminated symbol name.
        let p = unsafe { dlsym(h as *mut c_void, name.as_ptr()) };
        (!p.is_null()).then_some(p)
    }

    macro_rules! f1 {
        ($($name:ident, $sym:expr, $fallback:expr;)*) => {
            $(pub fn $name(x: f64) -> f64 {
                static F: OnceLock<Option<usize>> = OnceLock::new();
                match *F.get_or_init(|| sym($sym).map(|p| p as usize)) {
                    // SAFETY: the symbol is libm's double -> double function of that name.
                    Some(p) => unsafe { std::mem::transmute::<usize, F1>(p)(x) },
                    None => $fallback(x),
                }
            })*
        };
    }

    f1! {
        cbrt, c"cbrt", f64::cbrt;
        exp, c"exp", f64::exp;
        ln, c"log", f64::ln;
        log10, c"log10", f64::log10;
        sin, c"sin", f64::sin;
        cos, c"cos", f64::cos;
        tan, c"tan", f64::tan;
        asin, c"asin", f64::asin;
        acos, c"acos", f64::acos;
        atan, c"atan", f64::atan;
        sinh, c"sinh", f64::sinh;
        cosh, c"cosh", f64::cosh;
        tanh, c"tanh", f64::tanh;
        asinh, c"asinh", f64::asinh;
        acosh, c"acosh", f64::acosh;
        atanh, c"atanh", f64::atanh;
    }

    fn f2(
        name: &CStr,
        cache: &OnceLock<Option<usize>>,
        x: f64,
        y: f64,
        fb: fn(f64, f64) -> f64,
    ) -> f64 {
        match *cache.get_or_init(|| sym(name).map(|p| p as usize)) {
            // SAFETY: the symbol is libm's (double, double) -> double function of that name.
            Some(p) => unsafe { std::mem::transmute::<usize, F2>(p)(x, y) },
            None => fb(x, y),
        }
    }

    pub fn pow(x: f64, y: f64) -> f64 {
        static F: OnceLock<Option<usize>> = OnceLock::new();
        f2(c"pow", &F, x, y, f64::powf)
    }

    pub fn atan2(y: f64, x: f64) -> f64 {
        static F: OnceLock<Option<usize>> = OnceLock::new();
        f2(c"atan2", &F, y, x, f64::atan2)
    }
}

// ---------------------------------------------------------------------------------------------
// Ordering
// ---------------------------------------------------------------------------------------------

fn variant_rank(v: &Value) -> u8 {
    match v {
        Value::Bool(_) => 1,
        Value::Int2(_) | Value::Int4(_) | Value::Int8(_) | Value::Oid(_) => 2,
        Value::Float4(_) | Value::Float8(_) => 2,
        Value::Numeric(_) => 2,
        Value::Text(_) => 3,
        Value::Bytea(_) => 4,
        Value::Date(_) | Value::Timestamp(_) | Value::TimestampTz(_) => 5,
        Value::Time(_) | Value::TimeTz(..) => 6,
        Value::Inet(_) => 8,
        Value::Interval(_) => 7,
        Value::Uuid(_) => 8,
        Value::Array(_) => 9,
        Value::Record(_) => 10,
        Value::Void => 11,
        Value::Null => 255,
    }
}

/// Float order as PostgreSQL's: NaN equals NaN and sorts above everything; -0 equals 0.
pub fn cmp_f64(a: f64, b: f64) -> Ordering {
    match (a.is_nan(), b.is_nan()) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Greater,
        (false, true) => Ordering::Less,
        _ => a.partial_cmp(&b).unwrap_or(Ordering::Equal),
    }
}

fn as_f64(v: &Value) -> Option<f64> {
    match v {
        Value::Float4(f) => Some(*f as f64),
        Value::Float8(f) => Some(*f),
        Value::Numeric(n) => Some(n.to_f64()),
        _ => v.as_i64().map(|i| i as f64),
    }
}

fn as_numeric(v: &Value) -> Option<Numeric> {
    match v {
        Value::Numeric(n) => Some((**n).clone()),
        Value::Float4(f) => Some(Numeric::from_f32(*f)),
        Value::Float8(f) => Some(Numeric::from_f64(*f)),
        _ => v.as_i64().map(Numeric::from_i64),
    }
}

/// Timestamp-like value as microseconds (dates at midnight, infinities at the ends).
fn as_ts(v: &Value) -> Option<i64> {
    match v {
        Value::Date(d) => Some(match *d {
            dt::DATE_NEG_INFINITY => i64::MIN,
            dt::DATE_POS_INFINITY => i64::MAX,
            d => d as i64 * dt::USECS_PER_DAY,
        }),
        Value::Timestamp(t) | Value::TimestampTz(t) => Some(*t),
        _ => None,
    }
}

/// Total order of two non-NULL values of the same (or comparable) type. Integers of any width,
/// numeric and floats compare by value; text compares bytewise (C collation); arrays and
/// records element by element with NULL last. NULL sorts after everything.
pub fn compare_values(a: &Value, b: &Value) -> Ordering {
    use Value::*;
    match (a, b) {
        (Null, Null) => Ordering::Equal,
        (Null, _) => Ordering::Greater,
        (_, Null) => Ordering::Less,
        (Bool(x), Bool(y)) => x.cmp(y),
        (Int2(x), Int2(y)) => x.cmp(y),
        (Int4(x), Int4(y)) => x.cmp(y),
        (Int8(x), Int8(y)) => x.cmp(y),
        (Float8(x), Float8(y)) => cmp_f64(*x, *y),
        (Float4(x), Float4(y)) => cmp_f64(*x as f64, *y as f64),
        (Numeric(x), Numeric(y)) => x.as_ref().cmp(y.as_ref()),
        (Text(x), Text(y)) => x.as_bytes().cmp(y.as_bytes()),
        (Bytea(x), Bytea(y)) => x.cmp(y),
        (Date(x), Date(y)) => x.cmp(y),
        (Time(x), Time(y)) => x.cmp(y),
        (TimeTz(a, za), TimeTz(b, zb)) => dt::timetz_cmp((*a, *za), (*b, *zb)),
        (Inet(x), Inet(y)) => super::network::compare(x, y),
        (Timestamp(x), Timestamp(y)) => x.cmp(y),
        (TimestampTz(x), TimestampTz(y)) => x.cmp(y),
        (Interval(x), Interval(y)) => x.sort_key().cmp(&y.sort_key()),
        (Oid(x), Oid(y)) => x.cmp(y),
        (Uuid(x), Uuid(y)) => x.cmp(y),
        (Array(x), Array(y)) => compare_arrays(x, y),
        (Record(x), Record(y)) => compare_records(x, y),
        (Void, Void) => Ordering::Equal,
        // Cross-type comparisons.
        (Float4(_) | Float8(_), _) | (_, Float4(_) | Float8(_))
            if as_f64(a).is_some() && as_f64(b).is_some() =>
        {
            cmp_f64(as_f64(a).unwrap(), as_f64(b).unwrap())
        }
        (Numeric(_), _) | (_, Numeric(_)) if as_numeric(a).is_some() && as_numeric(b).is_some() => {
            as_numeric(a).unwrap().cmp(&as_numeric(b).unwrap())
        }
        _ if a.as_i64().is_some() && b.as_i64().is_some() => {
            a.as_i64().unwrap().cmp(&b.as_i64().unwrap())
        }
        _ if as_ts(a).is_some() && as_ts(b).is_some() => as_ts(a).unwrap().cmp(&as_ts(b).unwrap()),
        _ => variant_rank(a).cmp(&variant_rank(b)),
    }
}

fn compare_arrays(x: &Array, y: &Array) -> Ordering {
    for (a, b) in x.items.iter().zip(y.items.iter()) {
        let c = compare_values(a, b);
        if c != Ordering::Equal {
            return c;
        }
    }
    x.items
        .len()
        .cmp(&y.items.len())
        .then_with(|| x.dims.len().cmp(&y.dims.len()))
        .then_with(|| {
            for (a, b) in x.dims.iter().zip(y.dims.iter()) {
                let c = a.0.cmp(&b.0).then(a.1.cmp(&b.1));
                if c != Ordering::Equal {
                    return c;
                }
            }
            Ordering::Equal
        })
}

fn compare_records(x: &[Value], y: &[Value]) -> Ordering {
    for (a, b) in x.iter().zip(y.iter()) {
        let c = compare_values(a, b);
        if c != Ordering::Equal {
            return c;
        }
    }
    x.len().cmp(&y.len())
}

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

const ADD: u8 = 0;
const SUB: u8 = 1;
const MUL: u8 = 2;
const DIV: u8 = 3;
const MOD: u8 = 4;
const AND: u8 = 5;
const OR: u8 = 6;
const XOR: u8 = 7;
const SHL: u8 = 8;
const SHR: u8 = 9;

const EQ: u8 = 0;
const NE: u8 = 1;
const LT: u8 = 2;
const LE: u8 = 3;
const GT: u8 = 4;
const GE: u8 = 5;

fn mismatch(a: &Value) -> PgError {
    PgError::internal(format!("unexpected operand {a:?}"))
}

fn int_of(v: &Value) -> PgResult<i128> {
    v.as_i64().map(|i| i as i128).ok_or_else(|| mismatch(v))
}

fn f64_of(v: &Value) -> PgResult<f64> {
    as_f64(v).ok_or_else(|| mismatch(v))
}

fn num_of(v: &Value) -> PgResult<Numeric> {
    as_numeric(v).ok_or_else(|| mismatch(v))
}

fn text_of(v: &Value) -> PgResult<&str> {
    v.as_str().ok_or_else(|| mismatch(v))
}

fn iv_of(v: &Value) -> PgResult<Interval> {
    match v {
        Value::Interval(i) => Ok(*i),
        Value::Time(t) => Ok(Interval {
            months: 0,
            days: 0,
            micros: *t,
        }),
        _ => Err(mismatch(v)),
    }
}

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

fn int_arith<const OP: u8, const W: u8>(a: &Value, b: &Value, _: &FormatCtx) -> PgResult<Value> {
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
fn float_arith<const OP: u8, const W: u8>(a: &Value, b: &Value, _: &FormatCtx) -> PgResult<Value> {
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

fn num_arith<const OP: u8>(a: &Value, b: &Value, _: &FormatCtx) -> PgResult<Value> {
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

fn cmp_result<const OP: u8>(o: Ordering) -> Value {
    Value::Bool(match OP {
        EQ => o == Ordering::Equal,
        NE => o != Ordering::Equal,
        LT => o == Ordering::Less,
        LE => o != Ordering::Greater,
        GT => o == Ordering::Greater,
        _ => o != Ordering::Less,
    })
}

fn cmp_op<const OP: u8>(a: &Value, b: &Value, _: &FormatCtx) -> PgResult<Value> {
    Ok(cmp_result::<OP>(compare_values(a, b)))
}

/// char(n) comparison: trailing spaces are insignificant.
fn bpchar_cmp<const OP: u8>(a: &Value, b: &Value, _: &FormatCtx) -> PgResult<Value> {
    let x = text_of(a)?.trim_end_matches(' ');
    let y = text_of(b)?.trim_end_matches(' ');
    Ok(cmp_result::<OP>(x.as_bytes().cmp(y.as_bytes())))
}

/// regtype comparison: values may be OIDs or type names.
fn regtype_cmp<const OP: u8>(a: &Value, b: &Value, _: &FormatCtx) -> PgResult<Value> {
    let oid = |v: &Value| -> PgResult<u32> {
        match v {
            Value::Text(s) => Ok(io::parse_regtype(s)?.0),
            other => other
                .as_i64()
                .map(|i| i as u32)
                .ok_or_else(|| mismatch(other)),
        }
    };
    Ok(cmp_result::<OP>(oid(a)?.cmp(&oid(b)?)))
}

/// Comparisons that mix timestamp without time zone (or date) with timestamptz: the local
/// value is interpreted in the session time zone.
fn tstz_cross_cmp<const OP: u8>(a: &Value, b: &Value, ctx: &FormatCtx) -> PgResult<Value> {
    let conv = |v: &Value| -> PgResult<i64> {
        match v {
            Value::TimestampTz(t) => Ok(*t),
            _ => {
                let local = as_ts(v).ok_or_else(|| mismatch(v))?;
                Ok(dt::local_to_tstz(local, &ctx.time_zone))
            }
        }
    };
    Ok(cmp_result::<OP>(conv(a)?.cmp(&conv(b)?)))
}

// ----- unary -----

fn neg_int<const W: u8>(a: &Value, _: &FormatCtx) -> PgResult<Value> {
    int_result::<W>(-int_of(a)?)
}

fn abs_int<const W: u8>(a: &Value, _: &FormatCtx) -> PgResult<Value> {
    int_result::<W>(int_of(a)?.abs())
}

fn not_int<const W: u8>(a: &Value, _: &FormatCtx) -> PgResult<Value> {
    int_result::<W>(!int_of(a)?)
}

fn identity(a: &Value, _: &FormatCtx) -> PgResult<Value> {
    Ok(a.clone())
}

fn neg_float(a: &Value, _: &FormatCtx) -> PgResult<Value> {
    Ok(match a {
        Value::Float4(f) => Value::Float4(-f),
        _ => Value::Float8(-f64_of(a)?),
    })
}

fn abs_float(a: &Value, _: &FormatCtx) -> PgResult<Value> {
    Ok(match a {
        Value::Float4(f) => Value::Float4(f.abs()),
        _ => Value::Float8(f64_of(a)?.abs()),
    })
}

fn neg_num(a: &Value, _: &FormatCtx) -> PgResult<Value> {
    Ok(Value::Numeric(Box::new(num_of(a)?.neg())))
}

fn abs_num(a: &Value, _: &FormatCtx) -> PgResult<Value> {
    Ok(Value::Numeric(Box::new(num_of(a)?.abs())))
}

fn neg_interval(a: &Value, _: &FormatCtx) -> PgResult<Value> {
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

fn f8_pow_op(a: &Value, b: &Value, _: &FormatCtx) -> PgResult<Value> {
    Ok(Value::Float8(f8_pow(f64_of(a)?, f64_of(b)?)?))
}

fn num_pow_op(a: &Value, b: &Value, _: &FormatCtx) -> PgResult<Value> {
    Ok(Value::Numeric(Box::new(num_of(a)?.power(&num_of(b)?)?)))
}

// ----- strings -----

/// Text of a value for `||` with a non-text operand (the value cast to text).
fn any_text(v: &Value, ctx: &FormatCtx) -> String {
    match v {
        Value::Text(s) => s.clone(),
        Value::Bool(b) => if *b { "true" } else { "false" }.to_string(),
        // `anynonarray || text` casts to text, and inet's cast to text shows the mask.
        Value::Inet(i) => super::network::show(i),
        _ => io::to_text(v, io::value_type(v), ctx),
    }
}

fn text_concat(a: &Value, b: &Value, ctx: &FormatCtx) -> PgResult<Value> {
    let mut s = any_text(a, ctx);
    s.push_str(&any_text(b, ctx));
    Ok(Value::Text(s))
}

fn bytea_concat(a: &Value, b: &Value, _: &FormatCtx) -> PgResult<Value> {
    match (a, b) {
        (Value::Bytea(x), Value::Bytea(y)) => {
            let mut v = x.clone();
            v.extend_from_slice(y);
            Ok(Value::Bytea(v))
        }
        _ => Err(mismatch(a)),
    }
}

/// LIKE matching over any element type, with `\` as the escape character.
fn like_match<T: PartialEq + Copy>(text: &[T], pat: &[T], pct: T, us: T, esc: T) -> PgResult<bool> {
    // Iterative matcher with backtracking to the last '%'.
    let (mut t, mut p) = (0usize, 0usize);
    let mut star: Option<(usize, usize)> = None;
    loop {
        if p < pat.len() {
            let c = pat[p];
            if c == pct {
                // Collapse consecutive %.
                while p < pat.len() && pat[p] == pct {
                    p += 1;
                }
                if p == pat.len() {
                    return Ok(true);
                }
                star = Some((p, t));
                continue;
            }
            if t < text.len() {
                if c == us {
                    t += 1;
                    p += 1;
                    continue;
                }
                let (lit, adv) = if c == esc {
                    if p + 1 >= pat.len() {
                        return Err(PgError::new(
                            code::INVALID_ESCAPE_SEQUENCE,
                            "LIKE pattern must not end with escape character",
                        ));
                    }
                    (pat[p + 1], 2)
                } else {
                    (c, 1)
                };
                if text[t] == lit {
                    t += 1;
                    p += adv;
                    continue;
                }
            }
        } else if t == text.len() {
            return Ok(true);
        }
        // Mismatch: backtrack.
        match star {
            Some((sp, st)) if st < text.len() => {
                star = Some((sp, st + 1));
                p = sp;
                t = st + 1;
            }
            _ => return Ok(false),
        }
    }
}

/// `text LIKE pattern` (case-sensitive) / ILIKE.
pub fn like(text: &str, pat: &str, case_insensitive: bool) -> PgResult<bool> {
    if case_insensitive {
        let t: Vec<char> = text.to_lowercase().chars().collect();
        let p: Vec<char> = pat.to_lowercase().chars().collect();
        like_match(&t, &p, '%', '_', '\\')
    } else if text.is_ascii() && pat.is_ascii() {
        like_match(text.as_bytes(), pat.as_bytes(), b'%', b'_', b'\\')
    } else {
        let t: Vec<char> = text.chars().collect();
        let p: Vec<char> = pat.chars().collect();
        like_match(&t, &p, '%', '_', '\\')
    }
}

/// LIKE with an explicit ESCAPE character (None = no escape).
pub fn like_escape(text: &str, pat: &str, esc: Option<char>, ci: bool) -> PgResult<bool> {
    let (t, p): (Vec<char>, Vec<char>) = if ci {
        (
            text.to_lowercase().chars().collect(),
            pat.to_lowercase().chars().collect(),
        )
    } else {
        (text.chars().collect(), pat.chars().collect())
    };
    // '\u{0}' never occurs in text, so it disables escaping.
    like_match(&t, &p, '%', '_', esc.unwrap_or('\u{0}'))
}

fn like_op<const NEG: bool, const CI: bool>(
    a: &Value,
    b: &Value,
    _: &FormatCtx,
) -> PgResult<Value> {
    let r = match (a, b) {
        (Value::Bytea(x), Value::Bytea(y)) => like_match(x, y, b'%', b'_', b'\\')?,
        _ => like(text_of(a)?.trim_end_matches(|_| false), text_of(b)?, CI)?,
    };
    Ok(Value::Bool(r != NEG))
}

fn bpchar_like_op<const NEG: bool, const CI: bool>(
    a: &Value,
    b: &Value,
    _: &FormatCtx,
) -> PgResult<Value> {
    let r = like(text_of(a)?.trim_end_matches(' '), text_of(b)?, CI)?;
    Ok(Value::Bool(r != NEG))
}

thread_local! {
    static REGEX_CACHE: std::cell::RefCell<std::collections::HashMap<(String, bool), regex::Regex>> =
        std::cell::RefCell::new(std::collections::HashMap::new());
}

/// Compiles (with a per-thread cache) a PostgreSQL regular expression.
pub fn compile_regex(pat: &str, case_insensitive: bool) -> PgResult<regex::Regex> {
    let key = (pat.to_string(), case_insensitive);
    if let Some(r) = REGEX_CACHE.with(|c| c.borrow().get(&key).cloned()) {
        return Ok(r);
    }
    let translated = translate_regex(pat);
    let r = regex::RegexBuilder::new(&translated)
        .case_insensitive(case_insensitive)
        .build()
        .map_err(|e| {
            let msg = match e {
                regex::Error::Syntax(s) => {
                    let last = s
                        .lines()
                        .rev()
                        .find(|l| l.starts_with("error:"))
                        .unwrap_or("");
                    spencer_message(last.trim_start_matches("error: "))
                }
                regex::Error::CompiledTooBig(_) => "regular expression is too complex".into(),
                _ => "invalid regular expression".into(),
            };
            PgError::new(
                code::INVALID_REGULAR_EXPRESSION,
                format!("invalid regular expression: {msg}"),
            )
        })?;
    REGEX_CACHE.with(|c| {
        let mut c = c.borrow_mut();
        if c.len() > 256 {
            c.clear();
        }
        c.insert(key, r.clone());
    });
    Ok(r)
}

/// The regex crate's error in the wording of PostgreSQL's (Spencer) regex library.
fn spencer_message(m: &str) -> String {
    if m.contains("unclosed group") || m.contains("unopened group") {
        "parentheses () not balanced".to_string()
    } else if m.contains("unclosed character class") {
        "brackets [] not balanced".to_string()
    } else if m.contains("repetition operator missing expression") {
        "quantifier operand invalid".to_string()
    } else if m.contains("invalid character class range") {
        "invalid character range".to_string()
    } else if m.contains("escape sequence") || m.contains("unrecognized escape") {
        "invalid escape \\ sequence".to_string()
    } else if m.contains("repetition") || m.contains("decimal") {
        "invalid repetition count(s)".to_string()
    } else {
        m.to_string()
    }
}

/// Translates the PostgreSQL ARE features the regex crate spells differently.
fn translate_regex(p: &str) -> String {
    let mut out = String::with_capacity(p.len());
    let mut chars = p.chars().peekable();
    let mut in_bracket = false;
    while let Some(c) = chars.next() {
        if in_bracket {
            out.push(c);
            if c == ']' {
                in_bracket = false;
            } else if c == '[' && chars.peek() == Some(&':') {
                // POSIX class inside brackets: copy through to ":]"
                for d in chars.by_ref() {
                    out.push(d);
                    if d == ']' {
                        break;
                    }
                }
            } else if c == '\\' {
                if let Some(d) = chars.next() {
                    out.push(d);
                }
            }
            continue;
        }
        match c {
            '\\' => match chars.next() {
                Some('m') => out.push_str(r"\b(?=\w)"),
                Some('M') => out.push_str(r"\b(?<=\w)"),
                Some('y') => out.push_str(r"\b"),
                Some('Y') => out.push_str(r"\B"),
                Some('A') => out.push_str(r"\A"),
                Some('Z') => out.push_str(r"\z"),
                Some(d) => {
                    out.push('\\');
                    out.push(d);
                }
                None => out.push('\\'),
            },
            '[' => {
                in_bracket = true;
                out.push('[');
                if chars.peek() == Some(&'^') {
                    out.push(chars.next().unwrap());
                }
                if chars.peek() == Some(&']') {
                    chars.next();
                    out.push_str(r"\]");
                }
            }
            _ => out.push(c),
        }
    }
    // The regex crate has no look-around; replace the \m / \M approximations.
    out.replace(r"\b(?=\w)", r"\b").replace(r"\b(?<=\w)", r"\b")
}

fn regex_op<const NEG: bool, const CI: bool>(
    a: &Value,
    b: &Value,
    _: &FormatCtx,
) -> PgResult<Value> {
    let re = compile_regex(text_of(b)?, CI)?;
    Ok(Value::Bool(re.is_match(text_of(a)?) != NEG))
}

fn starts_with_op(a: &Value, b: &Value, _: &FormatCtx) -> PgResult<Value> {
    Ok(Value::Bool(text_of(a)?.starts_with(text_of(b)?)))
}

// ----- date/time -----

fn date_of(v: &Value) -> PgResult<i32> {
    match v {
        Value::Date(d) => Ok(*d),
        _ => Err(mismatch(v)),
    }
}

fn date_plus_int(a: &Value, b: &Value, _: &FormatCtx) -> PgResult<Value> {
    let (d, n) = match (a, b) {
        (Value::Date(d), n) | (n, Value::Date(d)) => (*d, int_of(n)?),
        _ => return Err(mismatch(a)),
    };
    date_add_days(d, n)
}

fn date_add_days(d: i32, n: i128) -> PgResult<Value> {
    if !dt::is_finite_date(d) {
        return Ok(Value::Date(d));
    }
    let r = d as i128 + n;
    if r < i32::MIN as i128 || r > i32::MAX as i128 || !dt::date_in_range(r as i64) {
        return Err(dt::date_out_of_range());
    }
    Ok(Value::Date(r as i32))
}

fn date_minus_int(a: &Value, b: &Value, _: &FormatCtx) -> PgResult<Value> {
    date_add_days(date_of(a)?, -int_of(b)?)
}

fn date_minus_date(a: &Value, b: &Value, _: &FormatCtx) -> PgResult<Value> {
    let (x, y) = (date_of(a)?, date_of(b)?);
    if !dt::is_finite_date(x) || !dt::is_finite_date(y) {
        return Err(PgError::new(
            code::DATETIME_FIELD_OVERFLOW,
            "cannot subtract infinite dates",
        ));
    }
    Ok(Value::Int4(x - y))
}

fn date_plus_interval(a: &Value, b: &Value, _: &FormatCtx) -> PgResult<Value> {
    let (d, iv) = match (a, b) {
        (Value::Date(d), Value::Interval(i)) | (Value::Interval(i), Value::Date(d)) => (*d, *i),
        _ => return Err(mismatch(a)),
    };
    let ts = dt::date_to_ts(d)?;
    Ok(Value::Timestamp(dt::timestamp_add_interval(ts, &iv)?))
}

fn date_minus_interval(a: &Value, b: &Value, _: &FormatCtx) -> PgResult<Value> {
    let ts = dt::date_to_ts(date_of(a)?)?;
    let iv = dt::interval_neg(&iv_of(b)?)?;
    Ok(Value::Timestamp(dt::timestamp_add_interval(ts, &iv)?))
}

fn date_plus_time(a: &Value, b: &Value, _: &FormatCtx) -> PgResult<Value> {
    let (d, t) = match (a, b) {
        (Value::Date(d), Value::Time(t)) | (Value::Time(t), Value::Date(d)) => (*d, *t),
        _ => return Err(mismatch(a)),
    };
    let ts = dt::date_to_ts(d)?;
    if !dt::is_finite_ts(ts) {
        return Ok(Value::Timestamp(ts));
    }
    let r = ts + t;
    if !dt::ts_in_range(r) {
        return Err(dt::ts_out_of_range());
    }
    Ok(Value::Timestamp(r))
}

fn ts_of(v: &Value) -> PgResult<i64> {
    match v {
        Value::Timestamp(t) | Value::TimestampTz(t) => Ok(*t),
        Value::Date(_) => as_ts(v).ok_or_else(|| mismatch(v)),
        _ => Err(mismatch(v)),
    }
}

fn ts_plus_interval(a: &Value, b: &Value, _: &FormatCtx) -> PgResult<Value> {
    let (t, iv) = match (a, b) {
        (Value::Interval(i), t) => (ts_of(t)?, *i),
        (t, i) => (ts_of(t)?, iv_of(i)?),
    };
    Ok(Value::Timestamp(dt::timestamp_add_interval(t, &iv)?))
}

fn ts_minus_interval(a: &Value, b: &Value, _: &FormatCtx) -> PgResult<Value> {
    let iv = dt::interval_neg(&iv_of(b)?)?;
    Ok(Value::Timestamp(dt::timestamp_add_interval(
        ts_of(a)?,
        &iv,
    )?))
}

fn ts_minus_ts(a: &Value, b: &Value, _: &FormatCtx) -> PgResult<Value> {
    Ok(Value::Interval(dt::timestamp_diff(ts_of(a)?, ts_of(b)?)?))
}

fn tstz_plus_interval(a: &Value, b: &Value, ctx: &FormatCtx) -> PgResult<Value> {
    let (t, iv) = match (a, b) {
        (Value::Interval(i), t) => (ts_of(t)?, *i),
        (t, i) => (ts_of(t)?, iv_of(i)?),
    };
    Ok(Value::TimestampTz(dt::timestamptz_add_interval(
        t,
        &iv,
        &ctx.time_zone,
    )?))
}

fn tstz_minus_interval(a: &Value, b: &Value, ctx: &FormatCtx) -> PgResult<Value> {
    let iv = dt::interval_neg(&iv_of(b)?)?;
    Ok(Value::TimestampTz(dt::timestamptz_add_interval(
        ts_of(a)?,
        &iv,
        &ctx.time_zone,
    )?))
}

fn time_of(v: &Value) -> PgResult<i64> {
    match v {
        Value::Time(t) => Ok(*t),
        _ => Err(mismatch(v)),
    }
}

fn time_plus_interval(a: &Value, b: &Value, _: &FormatCtx) -> PgResult<Value> {
    let (t, iv) = match (a, b) {
        (Value::Time(t), Value::Interval(i)) | (Value::Interval(i), Value::Time(t)) => (*t, *i),
        _ => return Err(mismatch(a)),
    };
    Ok(Value::Time((t + iv.micros).rem_euclid(dt::USECS_PER_DAY)))
}

fn time_minus_interval(a: &Value, b: &Value, _: &FormatCtx) -> PgResult<Value> {
    let t = time_of(a)?;
    let iv = iv_of(b)?;
    Ok(Value::Time((t - iv.micros).rem_euclid(dt::USECS_PER_DAY)))
}

fn time_minus_time(a: &Value, b: &Value, _: &FormatCtx) -> PgResult<Value> {
    Ok(Value::Interval(Interval {
        months: 0,
        days: 0,
        micros: time_of(a)? - time_of(b)?,
    }))
}

/// timetz ± interval: the time part wraps around midnight, the zone stays.
fn timetz_interval<const OP: u8>(a: &Value, b: &Value, _: &FormatCtx) -> PgResult<Value> {
    let ((t, z), iv) = match (a, b) {
        (Value::TimeTz(t, z), Value::Interval(i)) | (Value::Interval(i), Value::TimeTz(t, z)) => {
            ((*t, *z), *i)
        }
        _ => return Err(mismatch(a)),
    };
    let d = if OP == SUB { -iv.micros } else { iv.micros };
    Ok(Value::TimeTz(
        (t as i128 + d as i128).rem_euclid(dt::USECS_PER_DAY as i128) as i64,
        z,
    ))
}

fn inet_of(v: &Value) -> PgResult<&super::network::Inet> {
    match v {
        Value::Inet(i) => Ok(i),
        _ => Err(mismatch(v)),
    }
}

/// `<<`, `<<=` (`SUPER` false) and `>>`, `>>=` (`SUPER` true) on networks.
fn inet_subnet<const SUPER: bool, const STRICT: bool>(
    a: &Value,
    b: &Value,
    _: &FormatCtx,
) -> PgResult<Value> {
    let (x, y) = (inet_of(a)?, inet_of(b)?);
    let (inner, outer) = if SUPER { (y, x) } else { (x, y) };
    Ok(Value::Bool(super::network::is_subnet(inner, outer, STRICT)))
}

fn inet_overlap(a: &Value, b: &Value, _: &FormatCtx) -> PgResult<Value> {
    Ok(Value::Bool(super::network::overlaps(
        inet_of(a)?,
        inet_of(b)?,
    )))
}

fn interval_arith<const OP: u8>(a: &Value, b: &Value, _: &FormatCtx) -> PgResult<Value> {
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

// ----- arrays -----

fn arr_of(v: &Value) -> PgResult<&Array> {
    match v {
        Value::Array(a) => Ok(a),
        _ => Err(mismatch(v)),
    }
}

/// array || array, array || element, element || array (PostgreSQL's array_cat /
/// array_append / array_prepend).
fn array_concat(a: &Value, b: &Value, _: &FormatCtx) -> PgResult<Value> {
    match (a, b) {
        (Value::Array(x), Value::Array(y)) => array_cat(x, y).map(|r| Value::Array(Box::new(r))),
        (Value::Array(x), e) => Ok(Value::Array(Box::new(array_append(x, e.clone())?))),
        (e, Value::Array(y)) => Ok(Value::Array(Box::new(array_prepend(e.clone(), y)?))),
        (Value::Null, Value::Null) => Ok(Value::Null),
        _ => Err(mismatch(a)),
    }
}

pub fn array_append(a: &Array, e: Value) -> PgResult<Array> {
    if a.dims.len() > 1 {
        return Err(PgError::new(
            code::DATA_EXCEPTION,
            "argument must be empty or one-dimensional array",
        ));
    }
    let mut r = a.clone();
    r.items.push(e);
    if r.dims.is_empty() {
        r.dims = vec![(1, 1)];
    } else {
        r.dims[0].0 += 1;
    }
    Ok(r)
}

pub fn array_prepend(e: Value, a: &Array) -> PgResult<Array> {
    if a.dims.len() > 1 {
        return Err(PgError::new(
            code::DATA_EXCEPTION,
            "argument must be empty or one-dimensional array",
        ));
    }
    let mut r = a.clone();
    r.items.insert(0, e);
    if r.dims.is_empty() {
        r.dims = vec![(1, 1)];
    } else {
        r.dims[0].0 += 1;
    }
    Ok(r)
}

pub fn array_cat(x: &Array, y: &Array) -> PgResult<Array> {
    if x.items.is_empty() {
        return Ok(Array {
            elem: if y.items.is_empty() { x.elem } else { y.elem },
            ..y.clone()
        });
    }
    if y.items.is_empty() {
        return Ok(x.clone());
    }
    let (nx, ny) = (x.dims.len(), y.dims.len());
    let incompatible = || {
        PgError::new(
            code::ARRAY_SUBSCRIPT_ERROR,
            "cannot concatenate incompatible arrays",
        )
    };
    if nx == ny {
        if x.dims[1..]
            .iter()
            .map(|d| d.0)
            .ne(y.dims[1..].iter().map(|d| d.0))
        {
            return Err(incompatible().with_detail(
                "Arrays with differing element dimensions are not compatible for concatenation.",
            ));
        }
        let mut r = x.clone();
        r.dims[0].0 += y.dims[0].0;
        r.items.extend(y.items.iter().cloned());
        return Ok(r);
    }
    if nx == ny + 1 {
        if x.dims[1..]
            .iter()
            .map(|d| d.0)
            .ne(y.dims.iter().map(|d| d.0))
        {
            return Err(incompatible().with_detail(
                "Arrays with differing dimensions are not compatible for concatenation.",
            ));
        }
        let mut r = x.clone();
        r.dims[0].0 += 1;
        r.items.extend(y.items.iter().cloned());
        return Ok(r);
    }
    if ny == nx + 1 {
        if y.dims[1..]
            .iter()
            .map(|d| d.0)
            .ne(x.dims.iter().map(|d| d.0))
        {
            return Err(incompatible().with_detail(
                "Arrays with differing dimensions are not compatible for concatenation.",
            ));
        }
        let mut r = y.clone();
        r.dims[0].0 += 1;
        let mut items = x.items.clone();
        items.extend(y.items.iter().cloned());
        r.items = items;
        return Ok(r);
    }
    Err(incompatible().with_detail(format!(
        "Arrays of {nx} and {ny} dimensions are not compatible for concatenation."
    )))
}

fn array_contains(a: &Array, b: &Array) -> bool {
    b.items.iter().all(|x| {
        !x.is_null()
            && a.items
                .iter()
                .any(|y| !y.is_null() && compare_values(x, y) == Ordering::Equal)
    })
}

fn array_contains_op(a: &Value, b: &Value, _: &FormatCtx) -> PgResult<Value> {
    Ok(Value::Bool(array_contains(arr_of(a)?, arr_of(b)?)))
}

fn array_contained_op(a: &Value, b: &Value, _: &FormatCtx) -> PgResult<Value> {
    Ok(Value::Bool(array_contains(arr_of(b)?, arr_of(a)?)))
}

fn array_overlap_op(a: &Value, b: &Value, _: &FormatCtx) -> PgResult<Value> {
    let (x, y) = (arr_of(a)?, arr_of(b)?);
    Ok(Value::Bool(x.items.iter().any(|p| {
        !p.is_null()
            && y.items
                .iter()
                .any(|q| !q.is_null() && compare_values(p, q) == Ordering::Equal)
    })))
}

// ----- json / jsonb -----

fn json_text_value(s: String, jb: bool) -> Value {
    let _ = jb;
    Value::Text(s)
}

/// `->` (AS_TEXT = false) and `->>` for json (JB = false) and jsonb.
fn json_get<const JB: bool, const AS_TEXT: bool>(
    a: &Value,
    b: &Value,
    _: &FormatCtx,
) -> PgResult<Value> {
    let src = text_of(a)?;
    let n = json::parse(src, JB)?;
    // A jsonb scalar behaves as a one-element array for integer subscripts.
    if JB
        && !matches!(n.v, json::Json::Array(_) | json::Json::Object(_))
        && matches!(b.as_i64(), Some(0) | Some(-1))
    {
        return Ok(if AS_TEXT {
            json::node_as_text(src, &n, JB)
        } else {
            Value::Text(json::node_text(src, &n, JB))
        });
    }
    Ok(match json::get(&n, b) {
        None => Value::Null,
        Some(m) => {
            if AS_TEXT {
                json::node_as_text(src, m, JB)
            } else {
                json_text_value(json::node_text(src, m, JB), JB)
            }
        }
    })
}

/// `#>` and `#>>`.
fn json_get_path<const JB: bool, const AS_TEXT: bool>(
    a: &Value,
    b: &Value,
    _: &FormatCtx,
) -> PgResult<Value> {
    let src = text_of(a)?;
    let n = json::parse(src, JB)?;
    let path = arr_of(b)?;
    Ok(match json::get_path(&n, &path.items) {
        None => Value::Null,
        Some(m) => {
            if AS_TEXT {
                json::node_as_text(src, m, JB)
            } else {
                Value::Text(json::node_text(src, m, JB))
            }
        }
    })
}

fn jsonb_contains_op<const REV: bool>(a: &Value, b: &Value, _: &FormatCtx) -> PgResult<Value> {
    let x = json::parse(text_of(a)?, true)?;
    let y = json::parse(text_of(b)?, true)?;
    Ok(Value::Bool(if REV {
        json::contains(&y.v, &x.v)
    } else {
        json::contains(&x.v, &y.v)
    }))
}

fn jsonb_has_key(n: &json::Node, k: &str) -> bool {
    match &n.v {
        json::Json::Object(f) => f.iter().any(|(fk, _)| fk == k),
        json::Json::Array(items) => items
            .iter()
            .any(|i| matches!(&i.v, json::Json::String(s) if s == k)),
        json::Json::String(s) => s == k,
        _ => false,
    }
}

/// `?` (K = 0), `?|` (K = 1), `?&` (K = 2).
fn jsonb_exists<const K: u8>(a: &Value, b: &Value, _: &FormatCtx) -> PgResult<Value> {
    let n = json::parse(text_of(a)?, true)?;
    Ok(Value::Bool(match K {
        0 => jsonb_has_key(&n, text_of(b)?),
        1 => arr_of(b)?
            .items
            .iter()
            .any(|k| k.as_str().is_some_and(|k| jsonb_has_key(&n, k))),
        _ => arr_of(b)?
            .items
            .iter()
            .all(|k| k.as_str().is_some_and(|k| jsonb_has_key(&n, k))),
    }))
}

fn jsonb_out(v: json::Json) -> PgResult<Value> {
    let mut s = String::new();
    json::write_jsonb(&json::normalize(v)?, &mut s);
    Ok(Value::Text(s))
}

/// jsonb || jsonb: objects merge (right wins), arrays concatenate, scalars become arrays.
fn jsonb_concat(a: &Value, b: &Value, _: &FormatCtx) -> PgResult<Value> {
    use json::{Json, Node};
    let x = json::parse(text_of(a)?, true)?;
    let y = json::parse(text_of(b)?, true)?;
    let as_items = |n: Node| -> Vec<Node> {
        match n.v {
            Json::Array(items) => items,
            other => vec![Node {
                v: other,
                span: (0, 0),
            }],
        }
    };
    let r = match (x.v, y.v) {
        (Json::Object(mut f1), Json::Object(f2)) => {
            f1.extend(f2);
            Json::Object(f1)
        }
        (xv, yv) => {
            let mut items = as_items(Node {
                v: xv,
                span: (0, 0),
            });
            items.extend(as_items(Node {
                v: yv,
                span: (0, 0),
            }));
            Json::Array(items)
        }
    };
    jsonb_out(r)
}

/// jsonb - text / jsonb - int / jsonb - text[].
fn jsonb_delete(a: &Value, b: &Value, _: &FormatCtx) -> PgResult<Value> {
    use json::Json;
    let x = json::parse(text_of(a)?, true)?;
    let r = match (x.v, b) {
        (Json::Object(f), Value::Text(k)) => {
            Json::Object(f.into_iter().filter(|(fk, _)| fk != k).collect())
        }
        (Json::Object(f), Value::Array(keys)) => Json::Object(
            f.into_iter()
                .filter(|(fk, _)| !keys.items.iter().any(|k| k.as_str() == Some(fk)))
                .collect(),
        ),
        (Json::Array(items), Value::Text(k)) => Json::Array(
            items
                .into_iter()
                .filter(|i| !matches!(&i.v, Json::String(s) if s == k))
                .collect(),
        ),
        (Json::Array(mut items), k) if k.as_i64().is_some() => {
            let i = k.as_i64().unwrap();
            let idx = if i < 0 { items.len() as i64 + i } else { i };
            if idx >= 0 && (idx as usize) < items.len() {
                items.remove(idx as usize);
            }
            Json::Array(items)
        }
        (Json::Object(_), _) => {
            return Err(PgError::new(
                code::INVALID_PARAMETER_VALUE,
                "cannot delete from object using integer index",
            ))
        }
        _ => {
            return Err(PgError::new(
                code::INVALID_PARAMETER_VALUE,
                "cannot delete from scalar",
            ))
        }
    };
    jsonb_out(r)
}

// ---------------------------------------------------------------------------------------------
// Operator tables
// ---------------------------------------------------------------------------------------------

macro_rules! b {
    ($l:ident, $r:ident, $res:ident, $f:expr) => {
        BinOp {
            left: Type::$l,
            right: Type::$r,
            result: Type::$res,
            f: $f,
        }
    };
}

macro_rules! u {
    ($a:ident, $res:ident, $f:expr) => {
        UnOp {
            arg: Type::$a,
            result: Type::$res,
            f: $f,
        }
    };
}

/// The arithmetic operator table for `+ - * /` (same pattern for each).
macro_rules! arith_table {
    ($name:ident, $op:expr, [$($extra:expr),*]) => {
        static $name: &[BinOp] = &[
            b!(INT2, INT2, INT2, int_arith::<{ $op }, 2>),
            b!(INT4, INT4, INT4, int_arith::<{ $op }, 4>),
            b!(INT8, INT8, INT8, int_arith::<{ $op }, 8>),
            b!(INT2, INT4, INT4, int_arith::<{ $op }, 4>),
            b!(INT4, INT2, INT4, int_arith::<{ $op }, 4>),
            b!(INT2, INT8, INT8, int_arith::<{ $op }, 8>),
            b!(INT8, INT2, INT8, int_arith::<{ $op }, 8>),
            b!(INT4, INT8, INT8, int_arith::<{ $op }, 8>),
            b!(INT8, INT4, INT8, int_arith::<{ $op }, 8>),
            b!(FLOAT4, FLOAT4, FLOAT4, float_arith::<{ $op }, 4>),
            b!(FLOAT8, FLOAT8, FLOAT8, float_arith::<{ $op }, 8>),
            b!(FLOAT4, FLOAT8, FLOAT8, float_arith::<{ $op }, 8>),
            b!(FLOAT8, FLOAT4, FLOAT8, float_arith::<{ $op }, 8>),
            b!(NUMERIC, NUMERIC, NUMERIC, num_arith::<{ $op }>),
            $($extra),*
        ];
    };
}

arith_table!(
    STAR,
    MUL,
    [
        b!(INTERVAL, FLOAT8, INTERVAL, interval_arith::<MUL>),
        b!(FLOAT8, INTERVAL, INTERVAL, interval_arith::<MUL>)
    ]
);
arith_table!(
    SLASH,
    DIV,
    [b!(INTERVAL, FLOAT8, INTERVAL, interval_arith::<DIV>)]
);

static PLUS: &[BinOp] = &[
    b!(INT2, INT2, INT2, int_arith::<ADD, 2>),
    b!(INT4, INT4, INT4, int_arith::<ADD, 4>),
    b!(INT8, INT8, INT8, int_arith::<ADD, 8>),
    b!(INT2, INT4, INT4, int_arith::<ADD, 4>),
    b!(INT4, INT2, INT4, int_arith::<ADD, 4>),
    b!(INT2, INT8, INT8, int_arith::<ADD, 8>),
    b!(INT8, INT2, INT8, int_arith::<ADD, 8>),
    b!(INT4, INT8, INT8, int_arith::<ADD, 8>),
    b!(INT8, INT4, INT8, int_arith::<ADD, 8>),
    b!(FLOAT4, FLOAT4, FLOAT4, float_arith::<ADD, 4>),
    b!(FLOAT8, FLOAT8, FLOAT8, float_arith::<ADD, 8>),
    b!(FLOAT4, FLOAT8, FLOAT8, float_arith::<ADD, 8>),
    b!(FLOAT8, FLOAT4, FLOAT8, float_arith::<ADD, 8>),
    b!(NUMERIC, NUMERIC, NUMERIC, num_arith::<ADD>),
    b!(DATE, INT4, DATE, date_plus_int),
    b!(INT4, DATE, DATE, date_plus_int),
    b!(DATE, INTERVAL, TIMESTAMP, date_plus_interval),
    b!(INTERVAL, DATE, TIMESTAMP, date_plus_interval),
    b!(DATE, TIME, TIMESTAMP, date_plus_time),
    b!(TIME, DATE, TIMESTAMP, date_plus_time),
    b!(TIMESTAMP, INTERVAL, TIMESTAMP, ts_plus_interval),
    b!(INTERVAL, TIMESTAMP, TIMESTAMP, ts_plus_interval),
    b!(TIMESTAMPTZ, INTERVAL, TIMESTAMPTZ, tstz_plus_interval),
    b!(INTERVAL, TIMESTAMPTZ, TIMESTAMPTZ, tstz_plus_interval),
    b!(TIME, INTERVAL, TIME, time_plus_interval),
    b!(INTERVAL, TIME, TIME, time_plus_interval),
    b!(TIMETZ, INTERVAL, TIMETZ, timetz_interval::<ADD>),
    b!(INTERVAL, TIMETZ, TIMETZ, timetz_interval::<ADD>),
    b!(INTERVAL, INTERVAL, INTERVAL, interval_arith::<ADD>),
];

static MINUS: &[BinOp] = &[
    b!(INT2, INT2, INT2, int_arith::<SUB, 2>),
    b!(INT4, INT4, INT4, int_arith::<SUB, 4>),
    b!(INT8, INT8, INT8, int_arith::<SUB, 8>),
    b!(INT2, INT4, INT4, int_arith::<SUB, 4>),
    b!(INT4, INT2, INT4, int_arith::<SUB, 4>),
    b!(INT2, INT8, INT8, int_arith::<SUB, 8>),
    b!(INT8, INT2, INT8, int_arith::<SUB, 8>),
    b!(INT4, INT8, INT8, int_arith::<SUB, 8>),
    b!(INT8, INT4, INT8, int_arith::<SUB, 8>),
    b!(FLOAT4, FLOAT4, FLOAT4, float_arith::<SUB, 4>),
    b!(FLOAT8, FLOAT8, FLOAT8, float_arith::<SUB, 8>),
    b!(FLOAT4, FLOAT8, FLOAT8, float_arith::<SUB, 8>),
    b!(FLOAT8, FLOAT4, FLOAT8, float_arith::<SUB, 8>),
    b!(NUMERIC, NUMERIC, NUMERIC, num_arith::<SUB>),
    b!(DATE, INT4, DATE, date_minus_int),
    b!(DATE, DATE, INT4, date_minus_date),
    b!(DATE, INTERVAL, TIMESTAMP, date_minus_interval),
    b!(TIMESTAMP, INTERVAL, TIMESTAMP, ts_minus_interval),
    b!(TIMESTAMP, TIMESTAMP, INTERVAL, ts_minus_ts),
    b!(TIMESTAMPTZ, INTERVAL, TIMESTAMPTZ, tstz_minus_interval),
    b!(TIMESTAMPTZ, TIMESTAMPTZ, INTERVAL, ts_minus_ts),
    b!(TIME, INTERVAL, TIME, time_minus_interval),
    b!(TIMETZ, INTERVAL, TIMETZ, timetz_interval::<SUB>),
    b!(TIME, TIME, INTERVAL, time_minus_time),
    b!(INTERVAL, INTERVAL, INTERVAL, interval_arith::<SUB>),
    b!(JSONB, TEXT, JSONB, jsonb_delete),
    b!(JSONB, INT4, JSONB, jsonb_delete),
    b!(JSONB, TEXT_ARRAY, JSONB, jsonb_delete),
];

static PERCENT: &[BinOp] = &[
    b!(INT2, INT2, INT2, int_arith::<MOD, 2>),
    b!(INT4, INT4, INT4, int_arith::<MOD, 4>),
    b!(INT8, INT8, INT8, int_arith::<MOD, 8>),
    b!(NUMERIC, NUMERIC, NUMERIC, num_arith::<MOD>),
];

static POW: &[BinOp] = &[
    b!(FLOAT8, FLOAT8, FLOAT8, f8_pow_op),
    b!(NUMERIC, NUMERIC, NUMERIC, num_pow_op),
];

macro_rules! bit_table {
    ($name:ident, $op:expr) => {
        static $name: &[BinOp] = &[
            b!(INT2, INT2, INT2, int_arith::<{ $op }, 2>),
            b!(INT4, INT4, INT4, int_arith::<{ $op }, 4>),
            b!(INT8, INT8, INT8, int_arith::<{ $op }, 8>),
        ];
    };
}

bit_table!(BIT_AND, AND);
bit_table!(BIT_OR, OR);
bit_table!(BIT_XOR, XOR);

static SHIFT_L: &[BinOp] = &[
    b!(INET, INET, BOOL, inet_subnet::<false, true>),
    b!(INT2, INT4, INT2, int_arith::<SHL, 2>),
    b!(INT4, INT4, INT4, int_arith::<SHL, 4>),
    b!(INT8, INT4, INT8, int_arith::<SHL, 8>),
];

static SHIFT_R: &[BinOp] = &[
    b!(INET, INET, BOOL, inet_subnet::<true, true>),
    b!(INT2, INT4, INT2, int_arith::<SHR, 2>),
    b!(INT4, INT4, INT4, int_arith::<SHR, 4>),
    b!(INT8, INT4, INT8, int_arith::<SHR, 8>),
];

/// Comparison table for one operator: same-type comparisons for every type plus the cross-type
/// families PostgreSQL has (integers of different widths, float4/float8, date/timestamp/
/// timestamptz, text/name).
macro_rules! cmp_table {
    ($name:ident, $op:expr) => {
        cmp_table!($name, $op, []);
    };
    // `$extra`: signatures only this comparison has (xid has = and <> but no ordering).
    ($name:ident, $op:expr, [$($extra:expr),*]) => {
        static $name: &[BinOp] = &[
            b!(BOOL, BOOL, BOOL, cmp_op::<{ $op }>),
            b!(INT2, INT2, BOOL, cmp_op::<{ $op }>),
            b!(INT4, INT4, BOOL, cmp_op::<{ $op }>),
            b!(INT8, INT8, BOOL, cmp_op::<{ $op }>),
            b!(INT2, INT4, BOOL, cmp_op::<{ $op }>),
            b!(INT4, INT2, BOOL, cmp_op::<{ $op }>),
            b!(INT2, INT8, BOOL, cmp_op::<{ $op }>),
            b!(INT8, INT2, BOOL, cmp_op::<{ $op }>),
            b!(INT4, INT8, BOOL, cmp_op::<{ $op }>),
            b!(INT8, INT4, BOOL, cmp_op::<{ $op }>),
            b!(FLOAT4, FLOAT4, BOOL, cmp_op::<{ $op }>),
            b!(FLOAT8, FLOAT8, BOOL, cmp_op::<{ $op }>),
            b!(FLOAT4, FLOAT8, BOOL, cmp_op::<{ $op }>),
            b!(FLOAT8, FLOAT4, BOOL, cmp_op::<{ $op }>),
            b!(NUMERIC, NUMERIC, BOOL, cmp_op::<{ $op }>),
            b!(TEXT, TEXT, BOOL, cmp_op::<{ $op }>),
            b!(BPCHAR, BPCHAR, BOOL, bpchar_cmp::<{ $op }>),
            b!(NAME, NAME, BOOL, cmp_op::<{ $op }>),
            b!(NAME, TEXT, BOOL, cmp_op::<{ $op }>),
            b!(TEXT, NAME, BOOL, cmp_op::<{ $op }>),
            b!(CHAR, CHAR, BOOL, cmp_op::<{ $op }>),
            b!(BYTEA, BYTEA, BOOL, cmp_op::<{ $op }>),
            b!(DATE, DATE, BOOL, cmp_op::<{ $op }>),
            b!(TIME, TIME, BOOL, cmp_op::<{ $op }>),
            b!(TIMETZ, TIMETZ, BOOL, cmp_op::<{ $op }>),
            b!(INET, INET, BOOL, cmp_op::<{ $op }>),
            b!(TIMESTAMP, TIMESTAMP, BOOL, cmp_op::<{ $op }>),
            b!(TIMESTAMPTZ, TIMESTAMPTZ, BOOL, cmp_op::<{ $op }>),
            b!(DATE, TIMESTAMP, BOOL, cmp_op::<{ $op }>),
            b!(TIMESTAMP, DATE, BOOL, cmp_op::<{ $op }>),
            b!(DATE, TIMESTAMPTZ, BOOL, tstz_cross_cmp::<{ $op }>),
            b!(TIMESTAMPTZ, DATE, BOOL, tstz_cross_cmp::<{ $op }>),
            b!(TIMESTAMP, TIMESTAMPTZ, BOOL, tstz_cross_cmp::<{ $op }>),
            b!(TIMESTAMPTZ, TIMESTAMP, BOOL, tstz_cross_cmp::<{ $op }>),
            b!(INTERVAL, INTERVAL, BOOL, cmp_op::<{ $op }>),
            b!(OID, OID, BOOL, cmp_op::<{ $op }>),
            b!(REGTYPE, REGTYPE, BOOL, regtype_cmp::<{ $op }>),
            b!(UUID, UUID, BOOL, cmp_op::<{ $op }>),
            b!(JSONB, JSONB, BOOL, cmp_op::<{ $op }>),
            b!(ANYARRAY, ANYARRAY, BOOL, cmp_op::<{ $op }>),
            b!(RECORD, RECORD, BOOL, cmp_op::<{ $op }>),
            $($extra,)*
        ];
    };
}

cmp_table!(CMP_EQ, EQ, [b!(XID, XID, BOOL, cmp_op::<{ EQ }>)]);
cmp_table!(CMP_NE, NE, [b!(XID, XID, BOOL, cmp_op::<{ NE }>)]);
cmp_table!(CMP_LT, LT);
cmp_table!(CMP_LE, LE);
cmp_table!(CMP_GT, GT);
cmp_table!(CMP_GE, GE);

static JSON_GET: &[BinOp] = &[
    b!(JSONB, TEXT, JSONB, json_get::<true, false>),
    b!(JSONB, INT4, JSONB, json_get::<true, false>),
    b!(JSON, TEXT, JSON, json_get::<false, false>),
    b!(JSON, INT4, JSON, json_get::<false, false>),
];
static JSON_GET_TEXT: &[BinOp] = &[
    b!(JSONB, TEXT, TEXT, json_get::<true, true>),
    b!(JSONB, INT4, TEXT, json_get::<true, true>),
    b!(JSON, TEXT, TEXT, json_get::<false, true>),
    b!(JSON, INT4, TEXT, json_get::<false, true>),
];
static JSON_PATH: &[BinOp] = &[
    b!(JSONB, TEXT_ARRAY, JSONB, json_get_path::<true, false>),
    b!(JSON, TEXT_ARRAY, JSON, json_get_path::<false, false>),
];
static JSON_PATH_TEXT: &[BinOp] = &[
    b!(JSONB, TEXT_ARRAY, TEXT, json_get_path::<true, true>),
    b!(JSON, TEXT_ARRAY, TEXT, json_get_path::<false, true>),
];
static JSONB_EXISTS: &[BinOp] = &[b!(JSONB, TEXT, BOOL, jsonb_exists::<0>)];
static JSONB_EXISTS_ANY: &[BinOp] = &[b!(JSONB, TEXT_ARRAY, BOOL, jsonb_exists::<1>)];
static JSONB_EXISTS_ALL: &[BinOp] = &[b!(JSONB, TEXT_ARRAY, BOOL, jsonb_exists::<2>)];

static CONCAT: &[BinOp] = &[
    b!(JSONB, JSONB, JSONB, jsonb_concat),
    b!(TEXT, TEXT, TEXT, text_concat),
    b!(TEXT, ANYELEMENT, TEXT, text_concat),
    b!(ANYELEMENT, TEXT, TEXT, text_concat),
    b!(BYTEA, BYTEA, BYTEA, bytea_concat),
    b!(ANYARRAY, ANYARRAY, ANYARRAY, array_concat),
    b!(ANYARRAY, ANYELEMENT, ANYARRAY, array_concat),
    b!(ANYELEMENT, ANYARRAY, ANYARRAY, array_concat),
];

static LIKE: &[BinOp] = &[
    b!(TEXT, TEXT, BOOL, like_op::<false, false>),
    b!(BPCHAR, TEXT, BOOL, bpchar_like_op::<false, false>),
    b!(NAME, TEXT, BOOL, like_op::<false, false>),
    b!(BYTEA, BYTEA, BOOL, like_op::<false, false>),
];
static NOT_LIKE: &[BinOp] = &[
    b!(TEXT, TEXT, BOOL, like_op::<true, false>),
    b!(BPCHAR, TEXT, BOOL, bpchar_like_op::<true, false>),
    b!(NAME, TEXT, BOOL, like_op::<true, false>),
    b!(BYTEA, BYTEA, BOOL, like_op::<true, false>),
];
static ILIKE: &[BinOp] = &[
    b!(TEXT, TEXT, BOOL, like_op::<false, true>),
    b!(BPCHAR, TEXT, BOOL, bpchar_like_op::<false, true>),
    b!(NAME, TEXT, BOOL, like_op::<false, true>),
];
static NOT_ILIKE: &[BinOp] = &[
    b!(TEXT, TEXT, BOOL, like_op::<true, true>),
    b!(BPCHAR, TEXT, BOOL, bpchar_like_op::<true, true>),
    b!(NAME, TEXT, BOOL, like_op::<true, true>),
];
static RE_MATCH: &[BinOp] = &[
    b!(TEXT, TEXT, BOOL, regex_op::<false, false>),
    b!(NAME, TEXT, BOOL, regex_op::<false, false>),
];
static RE_NOT_MATCH: &[BinOp] = &[
    b!(TEXT, TEXT, BOOL, regex_op::<true, false>),
    b!(NAME, TEXT, BOOL, regex_op::<true, false>),
];
static RE_IMATCH: &[BinOp] = &[
    b!(TEXT, TEXT, BOOL, regex_op::<false, true>),
    b!(NAME, TEXT, BOOL, regex_op::<false, true>),
];
static RE_NOT_IMATCH: &[BinOp] = &[
    b!(TEXT, TEXT, BOOL, regex_op::<true, true>),
    b!(NAME, TEXT, BOOL, regex_op::<true, true>),
];
static STARTS_WITH: &[BinOp] = &[b!(TEXT, TEXT, BOOL, starts_with_op)];
static CONTAINS: &[BinOp] = &[
    b!(JSONB, JSONB, BOOL, jsonb_contains_op::<false>),
    b!(ANYARRAY, ANYARRAY, BOOL, array_contains_op),
];
static CONTAINED: &[BinOp] = &[
    b!(JSONB, JSONB, BOOL, jsonb_contains_op::<true>),
    b!(ANYARRAY, ANYARRAY, BOOL, array_contained_op),
];
static OVERLAP: &[BinOp] = &[
    b!(ANYARRAY, ANYARRAY, BOOL, array_overlap_op),
    b!(INET, INET, BOOL, inet_overlap),
];
static SUBNET_EQ: &[BinOp] = &[b!(INET, INET, BOOL, inet_subnet::<false, false>)];
static SUPERNET_EQ: &[BinOp] = &[b!(INET, INET, BOOL, inet_subnet::<true, false>)];

/// Whether `f` is one of the `=` operators (an index can serve it).
pub fn is_equality(f: &BinFn) -> bool {
    CMP_EQ.iter().any(|op| op.f as usize == *f as usize)
}

/// Every candidate signature of binary operator `name`.
pub fn binary_operators(name: &str) -> &'static [BinOp] {
    match name {
        "+" => PLUS,
        "-" => MINUS,
        "*" => STAR,
        "/" => SLASH,
        "%" => PERCENT,
        "^" => POW,
        "&" => BIT_AND,
        "|" => BIT_OR,
        "#" => BIT_XOR,
        "<<" => SHIFT_L,
        ">>" => SHIFT_R,
        "=" => CMP_EQ,
        "<>" | "!=" => CMP_NE,
        "<" => CMP_LT,
        "<=" => CMP_LE,
        ">" => CMP_GT,
        ">=" => CMP_GE,
        "||" => CONCAT,
        "~~" => LIKE,
        "!~~" => NOT_LIKE,
        "~~*" => ILIKE,
        "!~~*" => NOT_ILIKE,
        "~" => RE_MATCH,
        "!~" => RE_NOT_MATCH,
        "~*" => RE_IMATCH,
        "!~*" => RE_NOT_IMATCH,
        "^@" => STARTS_WITH,
        "@>" => CONTAINS,
        "<@" => CONTAINED,
        "&&" => OVERLAP,
        "<<=" => SUBNET_EQ,
        ">>=" => SUPERNET_EQ,
        "->" => JSON_GET,
        "->>" => JSON_GET_TEXT,
        "#>" => JSON_PATH,
        "#>>" => JSON_PATH_TEXT,
        "?" => JSONB_EXISTS,
        "?|" => JSONB_EXISTS_ANY,
        "?&" => JSONB_EXISTS_ALL,
        _ => &[],
    }
}

static UMINUS: &[UnOp] = &[
    u!(INT2, INT2, neg_int::<2>),
    u!(INT4, INT4, neg_int::<4>),
    u!(INT8, INT8, neg_int::<8>),
    u!(FLOAT4, FLOAT4, neg_float),
    u!(FLOAT8, FLOAT8, neg_float),
    u!(NUMERIC, NUMERIC, neg_num),
    u!(INTERVAL, INTERVAL, neg_interval),
];

static UPLUS: &[UnOp] = &[
    u!(INT2, INT2, identity),
    u!(INT4, INT4, identity),
    u!(INT8, INT8, identity),
    u!(FLOAT4, FLOAT4, identity),
    u!(FLOAT8, FLOAT8, identity),
    u!(NUMERIC, NUMERIC, identity),
];

static UABS: &[UnOp] = &[
    u!(INT2, INT2, abs_int::<2>),
    u!(INT4, INT4, abs_int::<4>),
    u!(INT8, INT8, abs_int::<8>),
    u!(FLOAT4, FLOAT4, abs_float),
    u!(FLOAT8, FLOAT8, abs_float),
    u!(NUMERIC, NUMERIC, abs_num),
];

static UNOT: &[UnOp] = &[
    u!(INT2, INT2, not_int::<2>),
    u!(INT4, INT4, not_int::<4>),
    u!(INT8, INT8, not_int::<8>),
];

static USQRT: &[UnOp] = &[u!(FLOAT8, FLOAT8, f8_sqrt)];
static UCBRT: &[UnOp] = &[u!(FLOAT8, FLOAT8, f8_cbrt)];

/// Every candidate signature of prefix operator `name`.
pub fn unary_operators(name: &str) -> &'static [UnOp] {
    match name {
        "-" => UMINUS,
        "+" => UPLUS,
        "@" => UABS,
        "~" => UNOT,
        "|/" => USQRT,
        "||/" => UCBRT,
        _ => &[],
    }
}

/// Convenience for callers that already know the operand types: finds the exact signature.
pub fn find_binary(name: &str, left: Type, right: Type) -> Option<&'static BinOp> {
    binary_operators(name)
        .iter()
        .find(|o| o.left == left && o.right == right)
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
