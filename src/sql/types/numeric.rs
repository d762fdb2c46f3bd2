//! PostgreSQL `numeric`: arbitrary precision decimal with a display scale, NaN and ±Infinity.
//!
//! A finite value is an integer mantissa and a non-negative display scale (`value = m / 10^scale`).
//! The scale is PostgreSQL's `dscale`: it is what the output function prints, so `1.50` keeps
//! two digits. Every operation picks its result scale the way PostgreSQL does (addition: the
//! larger input scale; multiplication: the sum; division: `select_div_scale`; the transcendental
//! functions: at least 16 significant digits), and rounds half away from zero.

use crate::error::{code, PgError, PgResult};
use bigdecimal::num_bigint::{BigInt, Sign};
use bigdecimal::BigDecimal;
use num_traits::{One, Signed, ToPrimitive, Zero};
use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};

/// Minimum number of significant digits of a division or transcendental result.
const MIN_SIG_DIGITS: i64 = 16;
/// Largest display scale an operation picks on its own.
pub const MAX_DISPLAY_SCALE: i64 = 1000;
/// Largest display scale a numeric can have at all.
pub const MAX_DSCALE: i64 = 16383;
/// Largest number of digits before the decimal point.
const MAX_INT_DIGITS: i64 = 131072;

#[derive(Clone, Debug)]
enum Repr {
    Finite { m: BigInt, scale: u32 },
    NaN,
    PosInf,
    NegInf,
}

/// A numeric value (see the module documentation).
#[derive(Clone, Debug)]
pub struct Numeric(Repr);

fn pow10(n: u32) -> BigInt {
    BigInt::from(10u32).pow(n)
}

/// Divides rounding half away from zero.
fn div_round(n: &BigInt, d: &BigInt) -> BigInt {
    let q = n / d;
    let r = n - &q * d;
    if (r.abs() * 2u32) >= d.abs() {
        if (n.sign() == Sign::Minus) != (d.sign() == Sign::Minus) {
            q - 1
        } else {
            q + 1
        }
    } else {
        q
    }
}

/// Number of decimal digits of |m| (0 has 1 digit).
fn ndigits(m: &BigInt) -> i64 {
    if m.is_zero() {
        return 1;
    }
    // bits * log10(2) is a close estimate; correct it exactly.
    let bits = m.bits() as f64;
    let mut est = (bits * std::f64::consts::LOG10_2).floor() as i64;
    if est < 1 {
        est = 1;
    }
    let a = m.abs();
    while est > 1 && pow10((est - 1) as u32) > a {
        est -= 1;
    }
    while pow10(est as u32) <= a {
        est += 1;
    }
    est
}

pub fn overflow_error() -> PgError {
    PgError::new(
        code::NUMERIC_VALUE_OUT_OF_RANGE,
        "value overflows numeric format",
    )
}

impl Numeric {
    pub fn nan() -> Numeric {
        Numeric(Repr::NaN)
    }
    pub fn infinity() -> Numeric {
        Numeric(Repr::PosInf)
    }
    pub fn neg_infinity() -> Numeric {
        Numeric(Repr::NegInf)
    }
    pub fn zero() -> Numeric {
        Numeric::from_i64(0)
    }

    /// Builds `m / 10^scale`.
    pub fn from_parts(m: BigInt, scale: u32) -> Numeric {
        Numeric(Repr::Finite { m, scale })
    }

    /// The mantissa and scale of a finite value.
    pub fn parts(&self) -> Option<(&BigInt, u32)> {
        match &self.0 {
            Repr::Finite { m, scale } => Some((m, *scale)),
            _ => None,
        }
    }

    pub fn from_i64(v: i64) -> Numeric {
        Numeric::from_parts(BigInt::from(v), 0)
    }

    pub fn from_i128(v: i128) -> Numeric {
        Numeric::from_parts(BigInt::from(v), 0)
    }

    /// PostgreSQL's float8 → numeric: the value printed with 15 significant digits.
    pub fn from_f64(v: f64) -> Numeric {
        Numeric::from_float_digits(v, 15)
    }

    /// PostgreSQL's float4 → numeric: the value printed with 6 significant digits.
    pub fn from_f32(v: f32) -> Numeric {
        Numeric::from_float_digits(v as f64, 6)
    }

    fn from_float_digits(v: f64, digits: usize) -> Numeric {
        if v.is_nan() {
            return Numeric::nan();
        }
        if v.is_infinite() {
            return if v > 0.0 {
                Numeric::infinity()
            } else {
                Numeric::neg_infinity()
            };
        }
        let s = format!("{:.*e}", digits - 1, v);
        let (mant, exp) = s.split_once('e').unwrap_or((&s, "0"));
        let exp: i64 = exp.parse().unwrap_or(0);
        let neg = mant.starts_with('-');
        let mant = mant.trim_start_matches('-');
        let (ip, fp) = mant.split_once('.').unwrap_or((mant, ""));
        let fp = fp.trim_end_matches('0');
        let digits_str = format!("{ip}{fp}");
        let mut m: BigInt = digits_str.parse().unwrap_or_default();
        // value = digits * 10^(exp - len(fp))
        let e = exp - fp.len() as i64;
        let scale = if e >= 0 {
            m *= pow10(e as u32);
            0
        } else {
            (-e) as u32
        };
        if neg {
            m = -m;
        }
        Numeric::from_parts(m, scale)
    }

    pub fn from_bigdecimal(d: &BigDecimal) -> Numeric {
        let (m, s) = d.as_bigint_and_exponent();
        if s >= 0 {
            Numeric::from_parts(m, s as u32)
        } else {
            Numeric::from_parts(m * pow10((-s) as u32), 0)
        }
    }

    /// The value as a BigDecimal (None for NaN and infinities).
    pub fn to_bigdecimal(&self) -> Option<BigDecimal> {
        self.parts()
            .map(|(m, s)| BigDecimal::new(m.clone(), s as i64))
    }

    pub fn is_nan(&self) -> bool {
        matches!(self.0, Repr::NaN)
    }
    pub fn is_infinite(&self) -> bool {
        matches!(self.0, Repr::PosInf | Repr::NegInf)
    }
    pub fn is_finite(&self) -> bool {
        matches!(self.0, Repr::Finite { .. })
    }
    pub fn is_zero(&self) -> bool {
        matches!(&self.0, Repr::Finite { m, .. } if m.is_zero())
    }
    pub fn is_negative(&self) -> bool {
        match &self.0 {
            Repr::Finite { m, .. } => m.is_negative(),
            Repr::NegInf => true,
            _ => false,
        }
    }

    /// -1, 0 or 1 (NaN gives NaN in `sign()` of func/math.rs; here 0).
    pub fn signum(&self) -> i32 {
        match &self.0 {
            Repr::Finite { m, .. } => match m.sign() {
                Sign::Minus => -1,
                Sign::NoSign => 0,
                Sign::Plus => 1,
            },
            Repr::PosInf => 1,
            Repr::NegInf => -1,
            Repr::NaN => 0,
        }
    }

    /// The display scale (0 for the special values).
    pub fn scale(&self) -> u32 {
        match &self.0 {
            Repr::Finite { scale, .. } => *scale,
            _ => 0,
        }
    }

    /// PostgreSQL's numeric → float8 (through the decimal text, so correctly rounded).
    pub fn to_f64(&self) -> f64 {
        match &self.0 {
            Repr::NaN => f64::NAN,
            Repr::PosInf => f64::INFINITY,
            Repr::NegInf => f64::NEG_INFINITY,
            Repr::Finite { m, scale } => {
                if *scale == 0 {
                    if let Some(v) = m.to_i64() {
                        if v.unsigned_abs() < (1 << 53) {
                            return v as f64;
                        }
                    }
                }
                format!("{m}e-{scale}").parse().unwrap_or(f64::NAN)
            }
        }
    }

    /// Rounds to an integer half away from zero and converts it (`bigint out of range`).
    pub fn to_i64(&self) -> PgResult<i64> {
        self.to_int_checked("bigint", i64::MIN as i128, i64::MAX as i128)
            .map(|v| v as i64)
    }

    /// numeric → integer type named `type_name` (`integer`, `smallint`, `bigint`), with
    /// PostgreSQL's errors for NaN, infinity and out-of-range values.
    pub fn to_int_checked(&self, type_name: &str, min: i128, max: i128) -> PgResult<i128> {
        match &self.0 {
            Repr::NaN => Err(PgError::new(
                code::FEATURE_NOT_SUPPORTED,
                format!("cannot convert NaN to {type_name}"),
            )),
            Repr::PosInf | Repr::NegInf => Err(PgError::new(
                code::FEATURE_NOT_SUPPORTED,
                format!("cannot convert infinity to {type_name}"),
            )),
            Repr::Finite { .. } => {
                let r = self.round(0);
                let (m, _) = r.parts().unwrap();
                match m.to_i128() {
                    Some(v) if v >= min && v <= max => Ok(v),
                    _ => Err(PgError::out_of_range(type_name)),
                }
            }
        }
    }

    // ----- scale handling -----

    /// Rounds (half away from zero) to `s` decimal places; a negative `s` rounds to tens,
    /// hundreds, ... The result's display scale is max(s, 0).
    pub fn round(&self, s: i64) -> Numeric {
        self.rescale(s, true)
    }

    /// Truncates toward zero to `s` decimal places.
    pub fn trunc(&self, s: i64) -> Numeric {
        self.rescale(s, false)
    }

    fn rescale(&self, s: i64, round: bool) -> Numeric {
        let Repr::Finite { m, scale } = &self.0 else {
            return self.clone();
        };
        let s = s.clamp(-(MAX_INT_DIGITS + 1), MAX_DSCALE);
        let cur = *scale as i64;
        if s >= cur {
            return Numeric::from_parts(m * pow10((s - cur) as u32), s as u32);
        }
        let drop = (cur - s) as u32;
        let d = pow10(drop);
        let q = if round { div_round(m, &d) } else { m / &d };
        if s >= 0 {
            Numeric::from_parts(q, s as u32)
        } else {
            Numeric::from_parts(q * pow10((-s) as u32), 0)
        }
    }

    /// Changes the display scale without rounding when it only adds digits; rounds otherwise.
    pub fn with_scale(&self, s: u32) -> Numeric {
        self.round(s as i64)
    }

    /// The smallest scale that represents the value exactly (PostgreSQL's `min_scale`).
    pub fn min_scale(&self) -> u32 {
        let Repr::Finite { m, scale } = &self.0 else {
            return 0;
        };
        if m.is_zero() {
            return 0;
        }
        let mut s = *scale;
        let mut mm = m.clone();
        let ten = BigInt::from(10);
        while s > 0 {
            let r = &mm % &ten;
            if !r.is_zero() {
                break;
            }
            mm /= &ten;
            s -= 1;
        }
        s
    }

    /// Removes trailing fractional zeros (`trim_scale`).
    pub fn trim_scale(&self) -> Numeric {
        let s = self.min_scale();
        self.round(s as i64)
    }

    pub fn floor(&self) -> Numeric {
        let Repr::Finite { m, scale } = &self.0 else {
            return self.clone();
        };
        let d = pow10(*scale);
        let mut q = m / &d;
        if m.is_negative() && !(m % &d).is_zero() {
            q -= 1;
        }
        Numeric::from_parts(q, 0)
    }

    pub fn ceil(&self) -> Numeric {
        let Repr::Finite { m, scale } = &self.0 else {
            return self.clone();
        };
        let d = pow10(*scale);
        let mut q = m / &d;
        if m.is_positive() && !(m % &d).is_zero() {
            q += 1;
        }
        Numeric::from_parts(q, 0)
    }

    pub fn abs(&self) -> Numeric {
        match &self.0 {
            Repr::Finite { m, scale } => Numeric::from_parts(m.abs(), *scale),
            Repr::NegInf => Numeric::infinity(),
            _ => self.clone(),
        }
    }

    pub fn neg(&self) -> Numeric {
        match &self.0 {
            Repr::Finite { m, scale } => Numeric::from_parts(-m, *scale),
            Repr::NegInf => Numeric::infinity(),
            Repr::PosInf => Numeric::neg_infinity(),
            Repr::NaN => Numeric::nan(),
        }
    }

    /// Exponent of the most significant decimal digit (floor(log10(|x|))); None for zero.
    fn dweight(&self) -> Option<i64> {
        let (m, scale) = self.parts()?;
        if m.is_zero() {
            return None;
        }
        Some(ndigits(m) - 1 - scale as i64)
    }

    /// Digits before the decimal point (0 for |x| < 1).
    fn int_digits(&self) -> i64 {
        self.dweight().map(|w| (w + 1).max(0)).unwrap_or(0)
    }

    fn check_range(self) -> PgResult<Numeric> {
        if self.scale() as i64 > MAX_DSCALE {
            return Err(overflow_error());
        }
        // A mantissa of b bits has at most floor(b·log10 2) + 1 digits: far from the limit
        // (every value an application meets) the exact count, which builds powers of ten, is
        // not needed.
        if let Repr::Finite { m, .. } = &self.0 {
            let most = (m.bits() as f64 * std::f64::consts::LOG10_2) as i64 + 1;
            if most - (self.scale() as i64) < MAX_INT_DIGITS {
                return Ok(self);
            }
        }
        if self.int_digits() > MAX_INT_DIGITS {
            return Err(overflow_error());
        }
        Ok(self)
    }

    /// Applies a `numeric(p,s)` typmod (`typmod` as stored: ((p << 16) | s) + 4; -1 for none).
    pub fn apply_typmod(&self, typmod: i32) -> PgResult<Numeric> {
        if typmod < 4 {
            return Ok(self.clone());
        }
        let t = typmod - 4;
        let precision = (t >> 16) & 0xffff;
        // The scale is an 11-bit signed field.
        let mut scale = t & 0x7ff;
        if scale & 0x400 != 0 {
            scale -= 0x800;
        }
        match &self.0 {
            Repr::NaN => return Ok(self.clone()),
            Repr::PosInf | Repr::NegInf => {
                return Err(PgError::new(
                    code::NUMERIC_VALUE_OUT_OF_RANGE,
                    "numeric field overflow",
                )
                .with_detail(format!(
                "A field with precision {precision}, scale {scale} cannot hold an infinite value."
            )))
            }
            _ => {}
        }
        let r = self.round(scale as i64);
        let maxdigits = (precision - scale) as i64;
        if !r.is_zero() && r.dweight().unwrap_or(0) >= maxdigits {
            let limit = if maxdigits != 0 {
                format!("10^{maxdigits}")
            } else {
                "1".to_string()
            };
            return Err(
                PgError::new(code::NUMERIC_VALUE_OUT_OF_RANGE, "numeric field overflow")
                    .with_detail(format!(
                        "A field with precision {precision}, scale {scale} must round to an absolute value less than {limit}."
                    )),
            );
        }
        Ok(r)
    }

    // ----- arithmetic -----

    fn align(a: &BigInt, sa: u32, b: &BigInt, sb: u32) -> (BigInt, BigInt, u32) {
        match sa.cmp(&sb) {
            Ordering::Equal => (a.clone(), b.clone(), sa),
            Ordering::Less => (a * pow10(sb - sa), b.clone(), sb),
            Ordering::Greater => (a.clone(), b * pow10(sa - sb), sa),
        }
    }

    pub fn add(&self, o: &Numeric) -> PgResult<Numeric> {
        use Repr::*;
        match (&self.0, &o.0) {
            (NaN, _) | (_, NaN) => Ok(Numeric::nan()),
            (PosInf, NegInf) | (NegInf, PosInf) => Ok(Numeric::nan()),
            (PosInf, _) | (_, PosInf) => Ok(Numeric::infinity()),
            (NegInf, _) | (_, NegInf) => Ok(Numeric::neg_infinity()),
            (Finite { m: a, scale: sa }, Finite { m: b, scale: sb }) if sa == sb => {
                // The common case (a sum over one column) adds the mantissas in place of
                // copies.
                Numeric::from_parts(a + b, *sa).check_range()
            }
            (Finite { m: a, scale: sa }, Finite { m: b, scale: sb }) => {
                let (a, b, s) = Numeric::align(a, *sa, b, *sb);
                Numeric::from_parts(a + b, s).check_range()
            }
        }
    }

    pub fn sub(&self, o: &Numeric) -> PgResult<Numeric> {
        self.add(&o.neg())
    }

    pub fn mul(&self, o: &Numeric) -> PgResult<Numeric> {
        use Repr::*;
        match (&self.0, &o.0) {
            (NaN, _) | (_, NaN) => Ok(Numeric::nan()),
            (Finite { m: a, scale: sa }, Finite { m: b, scale: sb }) => {
                let mut s = *sa as i64 + *sb as i64;
                let mut r = Numeric::from_parts(a * b, s as u32);
                if s > MAX_DSCALE {
                    s = MAX_DSCALE;
                    r = r.round(s);
                }
                r.check_range()
            }
            _ => {
                let sa = self.signum();
                let sb = o.signum();
                if sa == 0 || sb == 0 {
                    Ok(Numeric::nan())
                } else if sa * sb > 0 {
                    Ok(Numeric::infinity())
                } else {
                    Ok(Numeric::neg_infinity())
                }
            }
        }
    }

    /// PostgreSQL's choice of the scale of a quotient (select_div_scale): enough digits for 16
    /// significant digits, at least the scales of both inputs.
    pub fn div_scale(a: &Numeric, b: &Numeric) -> i64 {
        // Weight and first digit in base 10000, as PostgreSQL's internal representation.
        fn base_weight(x: &Numeric) -> (i64, i64) {
            let Some((m, scale)) = x.parts() else {
                return (0, 0);
            };
            if m.is_zero() {
                return (0, 0);
            }
            let nd = ndigits(m);
            let e = nd - 1 - scale as i64;
            let w = e.div_euclid(4);
            let lead = (e - 4 * w + 1) as usize; // 1..=4 leading decimal digits
            let mut s = m.magnitude().to_string();
            while s.len() < lead {
                s.push('0');
            }
            let first: i64 = s[..lead].parse().unwrap_or(0);
            (w, first)
        }
        let (w1, f1) = base_weight(a);
        let (w2, f2) = base_weight(b);
        let mut qweight = w1 - w2;
        if f1 <= f2 {
            qweight -= 1;
        }
        let rscale = MIN_SIG_DIGITS - qweight * 4;
        rscale
            .max(a.scale() as i64)
            .max(b.scale() as i64)
            .clamp(0, MAX_DISPLAY_SCALE)
    }

    pub fn div(&self, o: &Numeric) -> PgResult<Numeric> {
        if let Some(q) = self.div_special(o) {
            return q;
        }
        let s = Numeric::div_scale(self, o);
        self.div_rscale(o, s)
    }

    /// The quotient of a division where either side is NaN or infinite (PostgreSQL's rules,
    /// shared by `/` and `div`); None when both are finite.
    fn div_special(&self, o: &Numeric) -> Option<PgResult<Numeric>> {
        use Repr::*;
        Some(match (&self.0, &o.0) {
            (NaN, _) | (_, NaN) => Ok(Numeric::nan()),
            (PosInf | NegInf, PosInf | NegInf) => Ok(Numeric::nan()),
            (PosInf | NegInf, Finite { m, .. }) => {
                if m.is_zero() {
                    return Some(Err(PgError::division_by_zero()));
                }
                if (self.signum() > 0) == m.is_positive() {
                    Ok(Numeric::infinity())
                } else {
                    Ok(Numeric::neg_infinity())
                }
            }
            (Finite { .. }, PosInf | NegInf) => Ok(Numeric::zero()),
            (Finite { .. }, Finite { .. }) => return None,
        })
    }

    /// Finite division rounded to `rscale` digits.
    pub fn div_rscale(&self, o: &Numeric, rscale: i64) -> PgResult<Numeric> {
        let (Some((a, sa)), Some((b, sb))) = (self.parts(), o.parts()) else {
            return self.div(o);
        };
        if b.is_zero() {
            return Err(PgError::division_by_zero());
        }
        // a/10^sa / (b/10^sb) * 10^rscale = a * 10^(rscale + sb - sa) / b
        let e = rscale + sb as i64 - sa as i64;
        let (n, d) = if e >= 0 {
            (a * pow10(e as u32), b.clone())
        } else {
            (a.clone(), b * pow10((-e) as u32))
        };
        let q = div_round(&n, &d);
        if rscale >= 0 {
            Numeric::from_parts(q, rscale as u32).check_range()
        } else {
            Numeric::from_parts(q * pow10((-rscale) as u32), 0).check_range()
        }
    }

    /// Truncating integer division (`div(numeric, numeric)`).
    pub fn div_trunc(&self, o: &Numeric) -> PgResult<Numeric> {
        use Repr::*;
        if let Some(q) = self.div_special(o) {
            return q;
        }
        let (Finite { m: a, scale: sa }, Finite { m: b, scale: sb }) = (&self.0, &o.0) else {
            unreachable!("div_special answers unless both sides are finite")
        };
        if b.is_zero() {
            return Err(PgError::division_by_zero());
        }
        let (a, b, _) = Numeric::align(a, *sa, b, *sb);
        Ok(Numeric::from_parts(a / b, 0))
    }

    /// Remainder with the sign of the dividend; scale is the larger input scale.
    pub fn rem(&self, o: &Numeric) -> PgResult<Numeric> {
        use Repr::*;
        match (&self.0, &o.0) {
            (NaN, _) | (_, NaN) => Ok(Numeric::nan()),
            (PosInf | NegInf, Finite { m, .. }) => {
                if m.is_zero() {
                    Err(PgError::division_by_zero())
                } else {
                    Ok(Numeric::nan())
                }
            }
            (PosInf | NegInf, _) => Ok(Numeric::nan()),
            (Finite { .. }, PosInf | NegInf) => Ok(self.clone()),
            (Finite { m: a, scale: sa }, Finite { m: b, scale: sb }) => {
                if b.is_zero() {
                    return Err(PgError::division_by_zero());
                }
                let (a, b, s) = Numeric::align(a, *sa, b, *sb);
                Ok(Numeric::from_parts(a % b, s))
            }
        }
    }

    /// Total order: -Infinity < finite values < Infinity < NaN; NaN equals NaN.
    fn num_cmp(&self, o: &Numeric) -> Ordering {
        use Repr::*;
        fn rank(r: &Repr) -> i32 {
            match r {
                NegInf => 0,
                Finite { .. } => 1,
                PosInf => 2,
                NaN => 3,
            }
        }
        match (&self.0, &o.0) {
            (Finite { m: a, scale: sa }, Finite { m: b, scale: sb }) => {
                if sa == sb {
                    return a.cmp(b);
                }
                // Quick sign check before scaling.
                let (sa_sign, sb_sign) = (a.sign(), b.sign());
                if sa_sign != sb_sign {
                    let r = |s: Sign| match s {
                        Sign::Minus => -1,
                        Sign::NoSign => 0,
                        Sign::Plus => 1,
                    };
                    return r(sa_sign).cmp(&r(sb_sign));
                }
                let (a, b, _) = Numeric::align(a, *sa, b, *sb);
                a.cmp(&b)
            }
            (a, b) => rank(a).cmp(&rank(b)),
        }
    }

    /// PostgreSQL's avg(): sum / count with the division scale rule.
    pub fn avg_div(sum: &Numeric, count: i64) -> Numeric {
        sum.div(&Numeric::from_i64(count))
            .unwrap_or_else(|_| Numeric::nan())
    }

    // ----- input -----

    /// PostgreSQL's numeric input function.
    pub fn parse(s: &str) -> PgResult<Numeric> {
        let bad = || PgError::invalid_text("numeric", s);
        let t = s.trim_matches(|c: char| c.is_ascii_whitespace());
        if t.is_empty() {
            return Err(bad());
        }
        let lower = t.to_ascii_lowercase();
        match lower.as_str() {
            "nan" => return Ok(Numeric::nan()),
            "infinity" | "+infinity" | "inf" | "+inf" => return Ok(Numeric::infinity()),
            "-infinity" | "-inf" => return Ok(Numeric::neg_infinity()),
            _ => {}
        }
        let b = t.as_bytes();
        let mut i = 0;
        let mut neg = false;
        if b[0] == b'+' || b[0] == b'-' {
            neg = b[0] == b'-';
            i = 1;
        }
        let mut digits = String::with_capacity(b.len());
        let mut frac = 0i64;
        let mut seen_point = false;
        let mut any_digit = false;
        while i < b.len() {
            let c = b[i];
            if c.is_ascii_digit() {
                digits.push(c as char);
                any_digit = true;
                if seen_point {
                    frac += 1;
                }
            } else if c == b'.' && !seen_point {
                seen_point = true;
            } else {
                break;
            }
            i += 1;
        }
        if !any_digit {
            return Err(bad());
        }
        let mut exp = 0i64;
        if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
            i += 1;
            let mut eneg = false;
            if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
                eneg = b[i] == b'-';
                i += 1;
            }
            let start = i;
            while i < b.len() && b[i].is_ascii_digit() {
                exp = exp.saturating_mul(10).saturating_add((b[i] - b'0') as i64);
                i += 1;
            }
            if i == start {
                return Err(bad());
            }
            if exp >= (i32::MAX / 2) as i64 {
                return Err(overflow_error());
            }
            if eneg {
                exp = -exp;
            }
        }
        if i != b.len() {
            return Err(bad());
        }
        // Past the limits before building a power of ten that large (PostgreSQL reads
        // `1e100000` but not `1e1000000` nor `1e-1000000`).
        let significant = digits.trim_start_matches('0').len() as i64;
        if (frac - exp).max(0) > MAX_DSCALE
            || (significant > 0 && significant - frac + exp > MAX_INT_DIGITS)
        {
            return Err(overflow_error());
        }
        let mut m: BigInt = digits.parse().map_err(|_| bad())?;
        if neg {
            m = -m;
        }
        // value = m * 10^(exp - frac)
        let e = exp - frac;
        let dscale = (frac - exp).max(0);
        let n = if e >= 0 {
            Numeric::from_parts(m * pow10(e as u32), 0)
        } else {
            Numeric::from_parts(m, (-e) as u32)
        };
        let n = if n.scale() as i64 != dscale {
            n.round(dscale)
        } else {
            n
        };
        n.check_range()
    }

    // ----- transcendental functions -----

    /// Fixed-point representation of a finite value with `p` decimals (truncated).
    fn fixed(&self, p: u32) -> BigInt {
        let (m, s) = self.parts().expect("finite");
        if p >= s {
            m * pow10(p - s)
        } else {
            m / pow10(s - p)
        }
    }

    /// Result of a fixed-point value with `p` decimals rounded to `rscale` decimals.
    fn from_fixed(v: &BigInt, p: u32, rscale: i64) -> Numeric {
        let rscale = rscale.max(0);
        if rscale as u32 >= p {
            return Numeric::from_parts(v * pow10(rscale as u32 - p), rscale as u32);
        }
        Numeric::from_parts(div_round(v, &pow10(p - rscale as u32)), rscale as u32)
    }

    /// Square root, with PostgreSQL's result scale.
    pub fn sqrt(&self) -> PgResult<Numeric> {
        match &self.0 {
            Repr::NaN | Repr::PosInf => return Ok(self.clone()),
            Repr::NegInf => return Err(neg_sqrt_error()),
            _ => {}
        }
        if self.is_negative() {
            return Err(neg_sqrt_error());
        }
        // Decimal weight of the result estimated from the base-10000 weight, as PostgreSQL.
        let w = self.base10000_weight();
        let sweight = (w + 1) * 4 / 2 - 1;
        let rscale = (MIN_SIG_DIGITS - sweight)
            .max(self.scale() as i64)
            .clamp(0, MAX_DISPLAY_SCALE);
        Ok(self.sqrt_rscale(rscale))
    }

    fn base10000_weight(&self) -> i64 {
        match self.dweight() {
            Some(e) => e.div_euclid(4),
            None => 0,
        }
    }

    /// Square root rounded to `rscale` decimals (self must be finite, non-negative).
    pub fn sqrt_rscale(&self, rscale: i64) -> Numeric {
        let (m, s) = self.parts().expect("finite");
        let k = 2 * (rscale + 1) - s as i64;
        let n = if k >= 0 {
            m * pow10(k as u32)
        } else {
            m / pow10((-k) as u32)
        };
        let y = n.sqrt();
        Numeric::from_fixed(&y, (rscale + 1) as u32, rscale)
    }

    /// Estimated decimal weight of ln(x) (x finite and positive), as PostgreSQL estimates it.
    fn ln_dweight(&self) -> i64 {
        let one = Numeric::from_i64(1);
        let lo = Numeric::from_parts(BigInt::from(9), 1);
        let hi = Numeric::from_parts(BigInt::from(11), 1);
        if self.cmp(&lo) != Ordering::Less && self.cmp(&hi) != Ordering::Greater {
            let d = self.sub(&one).unwrap_or_else(|_| Numeric::zero());
            return d.dweight().unwrap_or(0);
        }
        let ln = self.approx_ln();
        if ln == 0.0 {
            return 0;
        }
        ln.abs().log10() as i64
    }

    /// ln(x) in double precision, also for values far outside the f64 range.
    fn approx_ln(&self) -> f64 {
        let Some((m, s)) = self.parts() else {
            return f64::NAN;
        };
        let nd = ndigits(m);
        let keep = nd.min(17);
        let lead = m.abs() / pow10((nd - keep) as u32);
        let lead = lead.to_f64().unwrap_or(1.0);
        // |x| = lead * 10^(nd - keep - s)
        lead.ln() + ((nd - keep) as f64 - s as f64) * std::f64::consts::LN_10
    }

    /// Natural logarithm.
    pub fn ln(&self) -> PgResult<Numeric> {
        match &self.0 {
            Repr::NaN | Repr::PosInf => return Ok(self.clone()),
            Repr::NegInf => return Err(log_neg_error()),
            _ => {}
        }
        self.check_log_arg()?;
        let rscale = (MIN_SIG_DIGITS - self.ln_dweight())
            .max(self.scale() as i64)
            .clamp(0, MAX_DISPLAY_SCALE);
        Ok(self.ln_rscale(rscale))
    }

    fn check_log_arg(&self) -> PgResult<()> {
        if self.is_zero() {
            return Err(PgError::new(
                code::INVALID_ARGUMENT_FOR_LOG,
                "cannot take logarithm of zero",
            ));
        }
        if self.is_negative() {
            return Err(log_neg_error());
        }
        Ok(())
    }

    /// ln(self) (finite, positive) as fixed point with `p` decimals, accurate to a few units.
    fn ln_fixed(&self, p: u32) -> BigInt {
        // Bring x close to 1 by repeated square roots: ln x = 2^k ln(x^(1/2^k)).
        let approx = self.approx_ln().abs();
        let mut k = 0u32;
        let mut a = approx;
        while a > 0.01 {
            a /= 2.0;
            k += 1;
        }
        let guard = 10 + k / 3 + 2;
        let wp = p + guard;
        let one = pow10(wp);
        let mut x = self.fixed(wp);
        for _ in 0..k {
            // sqrt of a fixed-point number: sqrt(x * 10^wp)
            x = (&x * &one).sqrt();
        }
        // ln(x) = 2 atanh(z), z = (x - 1) / (x + 1)
        let z = div_round(&((&x - &one) * &one), &(&x + &one));
        let z2 = div_round(&(&z * &z), &one);
        let mut term = z.clone();
        let mut sum = z;
        let mut n = 1u32;
        loop {
            term = div_round(&(&term * &z2), &one);
            n += 2;
            let t = &term / BigInt::from(n);
            if t.is_zero() {
                break;
            }
            sum += t;
        }
        let r = sum * 2u32 * (BigInt::one() << k);
        div_round(&r, &pow10(guard))
    }

    fn ln_rscale(&self, rscale: i64) -> Numeric {
        let p = (rscale + 4) as u32;
        let v = self.ln_fixed(p);
        Numeric::from_fixed(&v, p, rscale)
    }

    /// Logarithm of `self` to base `base` (PostgreSQL's log(b, x)).
    pub fn log(base: &Numeric, x: &Numeric) -> PgResult<Numeric> {
        if base.is_nan() || x.is_nan() {
            return Ok(Numeric::nan());
        }
        if base.is_infinite() || x.is_infinite() {
            // PostgreSQL 14+: the limits of the finite case.
            if base.is_negative() || x.is_negative() {
                return Err(log_neg_error());
            }
            if base.is_zero() || x.is_zero() {
                return Err(PgError::new(
                    code::INVALID_ARGUMENT_FOR_LOG,
                    "cannot take logarithm of zero",
                ));
            }
            if base.is_infinite() && x.is_infinite() {
                return Ok(Numeric::nan());
            }
            if base.is_infinite() {
                return Ok(Numeric::zero());
            }
            // log(finite base, inf)
            let one = Numeric::from_i64(1);
            return Ok(match base.cmp(&one) {
                Ordering::Less => Numeric::neg_infinity(),
                Ordering::Greater => Numeric::infinity(),
                Ordering::Equal => return Err(PgError::division_by_zero()),
            });
        }
        base.check_log_arg()?;
        x.check_log_arg()?;
        let bw = base.ln_dweight();
        let xw = x.ln_dweight();
        let rscale = (MIN_SIG_DIGITS - (xw - bw))
            .max(base.scale() as i64)
            .max(x.scale() as i64)
            .clamp(0, MAX_DISPLAY_SCALE);
        // Both logarithms with enough digits for the quotient.
        let p = (rscale + 8 + bw.unsigned_abs() as i64 + xw.unsigned_abs() as i64) as u32;
        let lb = base.ln_fixed(p);
        if lb.is_zero() {
            return Err(PgError::division_by_zero());
        }
        let lx = x.ln_fixed(p);
        let q = div_round(&(lx * pow10(rscale as u32 + 2)), &lb);
        Ok(Numeric::from_fixed(&q, rscale as u32 + 2, rscale))
    }

    /// e^x.
    pub fn exp(&self) -> PgResult<Numeric> {
        match &self.0 {
            Repr::NaN | Repr::PosInf => return Ok(self.clone()),
            Repr::NegInf => return Ok(Numeric::zero()),
            _ => {}
        }
        let val = (self.to_f64() * std::f64::consts::LOG10_E).clamp(-2000.0, 2000.0);
        let rscale = (MIN_SIG_DIGITS - val as i64)
            .max(self.scale() as i64)
            .clamp(0, MAX_DISPLAY_SCALE);
        self.exp_rscale(rscale)
    }

    /// e^self rounded to `rscale` decimals.
    fn exp_rscale(&self, rscale: i64) -> PgResult<Numeric> {
        let x = self.to_f64();
        let w = x * std::f64::consts::LOG10_E;
        if w > MAX_INT_DIGITS as f64 {
            return Err(overflow_error());
        }
        if w < -(rscale as f64) - 2.0 {
            return Ok(Numeric::from_parts(BigInt::zero(), rscale as u32));
        }
        // Working precision: relative accuracy of rscale + weight + guard digits.
        let p = (rscale + w.max(0.0) as i64 + 12) as u32;
        let v = self.exp_fixed(p);
        Ok(Numeric::from_fixed(&v, p, rscale))
    }

    /// e^self in fixed point with `p` decimals (absolute accuracy of a few units).
    fn exp_fixed(&self, p: u32) -> BigInt {
        let neg = self.is_negative();
        let a = self.abs();
        let x = a.to_f64();
        // Halve until small, series, square back.
        let mut k = 0u32;
        let mut r = x;
        while r > 0.001 {
            r /= 2.0;
            k += 1;
        }
        let guard = 10 + k / 2;
        let wp = p + guard + (x * std::f64::consts::LOG10_E) as u32;
        let one = pow10(wp);
        let mut t = a.fixed(wp) >> k;
        if t.is_zero() && !a.is_zero() {
            t = a.fixed(wp) / (BigInt::one() << k);
        }
        // series
        let mut sum = &one + &t;
        let mut term = t.clone();
        let mut n = 1u32;
        loop {
            n += 1;
            term = div_round(&(&term * &t), &one) / BigInt::from(n);
            if term.is_zero() {
                break;
            }
            sum += &term;
        }
        for _ in 0..k {
            sum = div_round(&(&sum * &sum), &one);
        }
        if neg {
            // 1 / sum in fixed point
            sum = div_round(&(&one * &one), &sum);
        }
        div_round(&sum, &pow10(wp - p))
    }

    /// x ^ y with PostgreSQL's special cases and result scale.
    pub fn power(&self, y: &Numeric) -> PgResult<Numeric> {
        let x = self;
        let one = Numeric::from_i64(1);
        // Special values, following PostgreSQL 14+ (IEEE pow semantics).
        if x.is_nan() || y.is_nan() {
            if x.is_nan() && y.is_zero() {
                return Ok(one);
            }
            if y.is_nan() && x.cmp(&one) == Ordering::Equal {
                return Ok(one);
            }
            return Ok(Numeric::nan());
        }
        if x.is_zero() && y.is_negative() {
            return Err(PgError::new(
                code::INVALID_ARGUMENT_FOR_POWER_FUNCTION,
                "zero raised to a negative power is undefined",
            ));
        }
        let y_is_int = y.is_finite() && y.min_scale() == 0;
        if x.is_negative() && x.is_finite() && y.is_finite() && !y_is_int {
            return Err(PgError::new(
                code::INVALID_ARGUMENT_FOR_POWER_FUNCTION,
                "a negative number raised to a non-integer power yields a complex result",
            ));
        }
        if y.is_infinite() {
            if x.is_infinite() {
                return Ok(if y.is_negative() {
                    Numeric::zero()
                } else {
                    Numeric::infinity()
                });
            }
            let ax = x.abs();
            return Ok(match ax.cmp(&one) {
                Ordering::Equal => one,
                Ordering::Greater => {
                    if y.is_negative() {
                        Numeric::zero()
                    } else {
                        Numeric::infinity()
                    }
                }
                Ordering::Less => {
                    if y.is_negative() {
                        Numeric::infinity()
                    } else {
                        Numeric::zero()
                    }
                }
            });
        }
        if x.is_infinite() {
            if y.is_zero() {
                return Ok(one);
            }
            if y.is_negative() {
                return Ok(Numeric::zero());
            }
            if !x.is_negative() {
                return Ok(Numeric::infinity());
            }
            // -Infinity ^ y: sign depends on whether y is an odd integer.
            let odd = y_is_int && {
                let (m, s) = y.parts().unwrap();
                let i = m / pow10(s);
                (i % 2u32) != BigInt::zero()
            };
            return Ok(if odd {
                Numeric::neg_infinity()
            } else {
                Numeric::infinity()
            });
        }
        // Finite x, finite y.
        if y_is_int {
            let (m, s) = y.parts().unwrap();
            let yi = m / pow10(s);
            if let Some(e) = yi.to_i64() {
                if e.unsigned_abs() <= i32::MAX as u64 {
                    let rscale = MIN_SIG_DIGITS
                        .max(x.scale() as i64)
                        .clamp(0, MAX_DISPLAY_SCALE);
                    return x.power_int(e, rscale);
                }
            }
        }
        if x.is_zero() {
            return Ok(Numeric::from_parts(BigInt::zero(), MIN_SIG_DIGITS as u32));
        }
        if x.is_negative() {
            // Only an integral exponent gets here (a fractional one of a negative base failed
            // above), too large for power_int: |x|^y, negated for an odd y.
            let (m, s) = y.parts().unwrap();
            let odd = (m / pow10(s)) % 2u32 != BigInt::zero();
            let r = x.abs().power(y)?;
            return Ok(if odd { r.neg() } else { r });
        }
        let ln_num = x.approx_ln() * y.to_f64();
        if ln_num.abs() > MAX_DISPLAY_SCALE as f64 * 3.01 * 100.0 {
            if ln_num > 0.0 {
                return Err(overflow_error());
            }
            return Ok(Numeric::from_parts(
                BigInt::zero(),
                MAX_DISPLAY_SCALE as u32,
            ));
        }
        let val = ln_num * std::f64::consts::LOG10_E;
        let rscale = (MIN_SIG_DIGITS - val as i64)
            .max(x.scale() as i64)
            .max(y.scale() as i64)
            .clamp(0, MAX_DISPLAY_SCALE);
        if val > MAX_INT_DIGITS as f64 {
            return Err(overflow_error());
        }
        // ln(x) * y with enough digits that exp() is accurate to rscale decimals.
        let yw = y.dweight().unwrap_or(0).max(0) as u32;
        let p = (rscale + val.max(0.0) as i64 + 12) as u32 + yw;
        let lx = x.ln_fixed(p);
        let prod = lx * y.fixed(p);
        let prod = div_round(&prod, &pow10(p));
        let e = Numeric::from_parts(prod, p);
        let v = e.exp_fixed((rscale + 4) as u32);
        Ok(Numeric::from_fixed(&v, (rscale + 4) as u32, rscale))
    }

    fn power_int(&self, e: i64, rscale: i64) -> PgResult<Numeric> {
        if e == 0 {
            return Ok(Numeric::from_parts(pow10(rscale as u32), rscale as u32));
        }
        let approx_w = self.approx_ln() * std::f64::consts::LOG10_E * e as f64;
        if approx_w > MAX_INT_DIGITS as f64 + 1.0 {
            return Err(overflow_error());
        }
        let (m, s) = self.parts().unwrap();
        if e > 0 {
            let digits_needed = (s as f64) * e as f64;
            if digits_needed < 200_000.0 {
                let r = Numeric::from_parts(m.pow(e as u32), (s as u64 * e as u64) as u32);
                return r.round(rscale).check_range();
            }
        } else if approx_w < -(rscale as f64) - 2.0 {
            return Ok(Numeric::from_parts(BigInt::zero(), rscale as u32));
        } else {
            let ue = e.unsigned_abs() as u32;
            let (m, s) = (m.pow(ue), s as u64 * ue as u64);
            if s < 200_000 {
                let den = Numeric::from_parts(m, s as u32);
                return Numeric::from_i64(1).div_rscale(&den, rscale);
            }
        }
        // Fallback through exp(e * ln x).
        let neg = self.is_negative() && e % 2 != 0;
        let ax = self.abs();
        let p = (rscale + approx_w.max(0.0) as i64 + 12) as u32;
        let lx = ax.ln_fixed(p + 20);
        let prod = Numeric::from_parts(lx * BigInt::from(e), p + 20);
        let v = prod.exp_fixed(p);
        let r = Numeric::from_fixed(&v, p, rscale);
        Ok(if neg { r.neg() } else { r })
    }

    /// Greatest common divisor (`gcd(numeric, numeric)`): scale is the larger input scale.
    pub fn gcd(&self, o: &Numeric) -> Numeric {
        let (Some((a, sa)), Some((b, sb))) = (self.parts(), o.parts()) else {
            return Numeric::nan();
        };
        let (mut a, mut b, s) = Numeric::align(a, sa, b, sb);
        a = a.abs();
        b = b.abs();
        while !b.is_zero() {
            let t = &a % &b;
            a = b;
            b = t;
        }
        Numeric::from_parts(a, s)
    }
}

fn neg_sqrt_error() -> PgError {
    PgError::new(
        code::INVALID_ARGUMENT_FOR_POWER_FUNCTION,
        "cannot take square root of a negative number",
    )
}

fn log_neg_error() -> PgError {
    PgError::new(
        code::INVALID_ARGUMENT_FOR_LOG,
        "cannot take logarithm of a negative number",
    )
}

impl PartialEq for Numeric {
    fn eq(&self, other: &Numeric) -> bool {
        self.num_cmp(other) == Ordering::Equal
    }
}

impl Eq for Numeric {}

impl PartialOrd for Numeric {
    fn partial_cmp(&self, other: &Numeric) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Numeric {
    fn cmp(&self, other: &Numeric) -> Ordering {
        self.num_cmp(other)
    }
}

impl Hash for Numeric {
    /// Equal values (1.5 and 1.50) hash alike.
    fn hash<H: Hasher>(&self, state: &mut H) {
        match &self.0 {
            Repr::Finite { .. } => {
                let t = self.trim_scale();
                let (m, s) = t.parts().unwrap();
                0u8.hash(state);
                m.hash(state);
                s.hash(state);
            }
            Repr::NaN => 1u8.hash(state),
            Repr::PosInf => 2u8.hash(state),
            Repr::NegInf => 3u8.hash(state),
        }
    }
}

impl fmt::Display for Numeric {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            Repr::NaN => f.write_str("NaN"),
            Repr::PosInf => f.write_str("Infinity"),
            Repr::NegInf => f.write_str("-Infinity"),
            Repr::Finite { m, scale } => {
                let digits = m.magnitude().to_string();
                if m.is_negative() {
                    f.write_str("-")?;
                }
                let scale = *scale as usize;
                if scale == 0 {
                    return f.write_str(&digits);
                }
                if digits.len() > scale {
                    let (i, fr) = digits.split_at(digits.len() - scale);
                    write!(f, "{i}.{fr}")
                } else {
                    f.write_str("0.")?;
                    for _ in 0..(scale - digits.len()) {
                        f.write_str("0")?;
                    }
                    f.write_str(&digits)
                }
            }
        }
    }
}

impl From<i64> for Numeric {
    fn from(v: i64) -> Numeric {
        Numeric::from_i64(v)
    }
}

impl From<i32> for Numeric {
    fn from(v: i32) -> Numeric {
        Numeric::from_i64(v as i64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn n(s: &str) -> Numeric {
        Numeric::parse(s).unwrap()
    }

    #[test]
    fn parse_and_display() {
        assert_eq!(n("1.50").to_string(), "1.50");
        assert_eq!(n("  -0.00 ").to_string(), "0.00");
        assert_eq!(n(".5").to_string(), "0.5");
        assert_eq!(n("5.").to_string(), "5");
        assert_eq!(n("1.50e1").to_string(), "15.0");
        assert_eq!(n("1.5e-3").to_string(), "0.0015");
        assert_eq!(n("1e3").to_string(), "1000");
        assert_eq!(n("-Infinity").to_string(), "-Infinity");
        assert_eq!(n("nan").to_string(), "NaN");
        assert!(Numeric::parse("1.5e").is_err());
        assert!(Numeric::parse("abc").is_err());
        assert!(Numeric::parse("").is_err());
    }

    #[test]
    fn division_scale() {
        let d = |a: &str, b: &str| n(a).div(&n(b)).unwrap().to_string();
        assert_eq!(d("1", "3"), "0.33333333333333333333");
        assert_eq!(d("10", "4"), "2.5000000000000000");
        assert_eq!(d("1000000", "7"), "142857.142857142857");
        assert_eq!(d("0.001", "7"), "0.00014285714285714286");
        assert_eq!(
            Numeric::avg_div(&n("6"), 3).to_string(),
            "2.0000000000000000"
        );
        assert!(n("1").div(&n("0")).is_err());
    }

    #[test]
    fn arithmetic() {
        assert_eq!(n("1.50").mul(&n("2.25")).unwrap().to_string(), "3.3750");
        assert_eq!(n("7.5").rem(&n("2")).unwrap().to_string(), "1.5");
        assert_eq!(n("2.5").round(0).to_string(), "3");
        assert_eq!(n("-2.5").round(0).to_string(), "-3");
        assert_eq!(n("1234.5678").round(-2).to_string(), "1200");
        assert_eq!(n("1.99").trunc(1).to_string(), "1.9");
        assert_eq!(n("inf").mul(&n("0")).unwrap().to_string(), "NaN");
        assert_eq!(n("2.5").to_i64().unwrap(), 3);
        assert_eq!(n("-2.5").to_i64().unwrap(), -3);
    }

    #[test]
    fn float_conversion() {
        assert_eq!(Numeric::from_f64(0.1).to_string(), "0.1");
        assert_eq!(Numeric::from_f64(1e20).to_string(), "100000000000000000000");
        assert_eq!(Numeric::from_f64(1.5e-5).to_string(), "0.000015");
        assert_eq!(
            Numeric::from_f64(1.0 / 3.0).to_string(),
            "0.333333333333333"
        );
        assert_eq!(Numeric::from_f32(0.1).to_string(), "0.1");
    }

    #[test]
    fn typmod() {
        let tm = |p: i32, s: i32| ((p << 16) | (s & 0x7ff)) + 4;
        let e = n("12345.678").apply_typmod(tm(5, 2)).unwrap_err();
        assert_eq!(
            e.detail.as_deref(),
            Some(
                "A field with precision 5, scale 2 must round to an absolute value less than 10^3."
            )
        );
        assert!(n("99.995").apply_typmod(tm(4, 2)).is_err());
        assert_eq!(
            n("1234567").apply_typmod(tm(5, -2)).unwrap().to_string(),
            "1234600"
        );
        assert_eq!(n("1.5").apply_typmod(tm(5, 2)).unwrap().to_string(), "1.50");
    }

    #[test]
    fn transcendental() {
        assert_eq!(n("2").sqrt().unwrap().to_string(), "1.414213562373095");
        assert_eq!(n("100").sqrt().unwrap().to_string(), "10.000000000000000");
        assert_eq!(
            n("0.0001").sqrt().unwrap().to_string(),
            "0.01000000000000000"
        );
        assert_eq!(
            n("2.000000000000000000000000").sqrt().unwrap().to_string(),
            "1.414213562373095048801689"
        );
        assert_eq!(n("1").exp().unwrap().to_string(), "2.7182818284590452");
        assert_eq!(n("10").exp().unwrap().to_string(), "22026.465794806717");
        assert_eq!(
            n("-100").exp().unwrap().to_string(),
            "0.00000000000000000000000000000000000000000003720075976020836"
        );
        assert_eq!(n("2").ln().unwrap().to_string(), "0.6931471805599453");
        assert_eq!(
            n("10000000").ln().unwrap().to_string(),
            "16.118095650958320"
        );
        assert_eq!(
            n("1.0000001").ln().unwrap().to_string(),
            "0.00000009999999500000033"
        );
        assert_eq!(
            Numeric::log(&n("10"), &n("100")).unwrap().to_string(),
            "2.0000000000000000"
        );
        assert_eq!(
            Numeric::log(&n("2"), &n("8")).unwrap().to_string(),
            "3.0000000000000000"
        );
        let p = |a: &str, b: &str| n(a).power(&n(b)).unwrap().to_string();
        assert_eq!(p("2", "10"), "1024.0000000000000000");
        assert_eq!(p("2", "0.5"), "1.4142135623730950");
        assert_eq!(p("2", "-2"), "0.2500000000000000");
        assert_eq!(p("1.123456789012345678", "2"), "1.262155156777930193");
        assert_eq!(p("2.5", "1.5"), "3.9528470752104742");
        assert_eq!(p("100", "0.5"), "10.000000000000000");
        assert_eq!(p("-2", "3"), "-8.0000000000000000");
        assert_eq!(p("1.0000001", "10000000"), "2.7182816925449663");
        assert!(n("0").power(&n("-1")).is_err());
        assert!(n("-2").power(&n("0.5")).is_err());
    }
}
