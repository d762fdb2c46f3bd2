//! The operators of the geometric types point, lseg, box and circle (PostgreSQL's geo_ops.c), over
//! `types::geo`'s values: box comparisons (which compare areas, as PostgreSQL's do), the
//! position, overlap and containment tests with PostgreSQL's fuzzy comparisons, translation,
//! scaling and rotation by a point, intersection, centers and distances.

use super::mismatch;
use crate::error::{code, PgError, PgResult};
use crate::sql::types::geo::{
    box_of, box_value, circle_of, fp_eq, fp_ge, fp_gt, fp_le, fp_lt, fp_ne, lseg_of, point_of,
    point_value, Circle, GeoBox, Point,
};
use crate::sql::types::{FormatCtx, Value};

fn pt(v: &Value) -> PgResult<Point> {
    point_of(v).ok_or_else(|| mismatch(v))
}

fn bx(v: &Value) -> PgResult<GeoBox> {
    box_of(v).ok_or_else(|| mismatch(v))
}

/// Which test a box operator makes (the const parameter of [`box_test`]).
pub(super) const B_EQ: u8 = 0;
pub(super) const B_LT: u8 = 1;
pub(super) const B_LE: u8 = 2;
pub(super) const B_GT: u8 = 3;
pub(super) const B_GE: u8 = 4;
pub(super) const B_SAME: u8 = 5;
pub(super) const B_OVERLAP: u8 = 6;
pub(super) const B_CONTAIN: u8 = 7;
pub(super) const B_CONTAINED: u8 = 8;
pub(super) const B_LEFT: u8 = 9;
pub(super) const B_RIGHT: u8 = 10;
pub(super) const B_OVERLEFT: u8 = 11;
pub(super) const B_OVERRIGHT: u8 = 12;
pub(super) const B_BELOW: u8 = 13;
pub(super) const B_ABOVE: u8 = 14;
pub(super) const B_OVERBELOW: u8 = 15;
pub(super) const B_OVERABOVE: u8 = 16;
pub(super) const B_BELOW_EQ: u8 = 17;
pub(super) const B_ABOVE_EQ: u8 = 18;

/// box_contain_box: `a` holds all of `b`.
fn contains(a: &GeoBox, b: &GeoBox) -> bool {
    fp_ge(a.high.x, b.high.x)
        && fp_le(a.low.x, b.low.x)
        && fp_ge(a.high.y, b.high.y)
        && fp_le(a.low.y, b.low.y)
}

/// box_ov: the boxes share a point.
fn overlaps(a: &GeoBox, b: &GeoBox) -> bool {
    fp_le(a.low.x, b.high.x)
        && fp_le(b.low.x, a.high.x)
        && fp_le(a.low.y, b.high.y)
        && fp_le(b.low.y, a.high.y)
}

/// The box operators returning boolean (box_eq ... box_above_eq).
pub(super) fn box_test<const T: u8>(a: &Value, b: &Value, _: &FormatCtx) -> PgResult<Value> {
    let (a, b) = (bx(a)?, bx(b)?);
    let r = match T {
        B_EQ => fp_eq(a.area(), b.area()),
        B_LT => fp_lt(a.area(), b.area()),
        B_LE => fp_le(a.area(), b.area()),
        B_GT => fp_gt(a.area(), b.area()),
        B_GE => fp_ge(a.area(), b.area()),
        B_SAME => a.high.same(&b.high) && a.low.same(&b.low),
        B_OVERLAP => overlaps(&a, &b),
        B_CONTAIN => contains(&a, &b),
        B_CONTAINED => contains(&b, &a),
        B_LEFT => fp_lt(a.high.x, b.low.x),
        B_RIGHT => fp_gt(a.low.x, b.high.x),
        B_OVERLEFT => fp_le(a.high.x, b.high.x),
        B_OVERRIGHT => fp_ge(a.low.x, b.low.x),
        B_BELOW => fp_lt(a.high.y, b.low.y),
        B_ABOVE => fp_gt(a.low.y, b.high.y),
        B_OVERBELOW => fp_le(a.high.y, b.high.y),
        B_OVERABOVE => fp_ge(a.low.y, b.low.y),
        B_BELOW_EQ => fp_le(a.high.y, b.low.y),
        _ => fp_ge(a.low.y, b.high.y),
    };
    Ok(Value::Bool(r))
}

/// `box @> point` (box_contain_pt) and `point <@ box` (on_pb): exact, not fuzzy.
pub(super) fn box_holds_point<const POINT_FIRST: bool>(
    a: &Value,
    b: &Value,
    _: &FormatCtx,
) -> PgResult<Value> {
    let (b_, p) = if POINT_FIRST {
        (bx(b)?, pt(a)?)
    } else {
        (bx(a)?, pt(b)?)
    };
    Ok(Value::Bool(
        b_.high.x >= p.x && b_.low.x <= p.x && b_.high.y >= p.y && b_.low.y <= p.y,
    ))
}

/// `box # box` (box_intersect): the common part, NULL when they do not overlap.
pub(super) fn box_intersect(a: &Value, b: &Value, _: &FormatCtx) -> PgResult<Value> {
    let (a, b) = (bx(a)?, bx(b)?);
    if !overlaps(&a, &b) {
        return Ok(Value::Null);
    }
    Ok(box_value(GeoBox {
        high: Point {
            x: a.high.x.min(b.high.x),
            y: a.high.y.min(b.high.y),
        },
        low: Point {
            x: a.low.x.max(b.low.x),
            y: a.low.y.max(b.low.y),
        },
    }))
}

/// pg_hypot: the length of (x, y) without needless overflow, as PostgreSQL computes it.
pub fn hypot(x: f64, y: f64) -> f64 {
    if x.is_infinite() || y.is_infinite() {
        return f64::INFINITY;
    }
    if x.is_nan() || y.is_nan() {
        return f64::NAN;
    }
    let (mut x, mut y) = (x.abs(), y.abs());
    if x < y {
        std::mem::swap(&mut x, &mut y);
    }
    if y == 0.0 {
        return x;
    }
    let yx = y / x;
    x * (1.0 + yx * yx).sqrt()
}

fn distance(a: &Point, b: &Point) -> f64 {
    hypot(a.x - b.x, a.y - b.y)
}

/// `box <-> box` (box_distance): the distance between the centers.
pub(super) fn box_distance(a: &Value, b: &Value, _: &FormatCtx) -> PgResult<Value> {
    Ok(Value::Float8(distance(&bx(a)?.center(), &bx(b)?.center())))
}

/// `point <-> point`.
pub(super) fn point_distance(a: &Value, b: &Value, _: &FormatCtx) -> PgResult<Value> {
    Ok(Value::Float8(distance(&pt(a)?, &pt(b)?)))
}

/// Which test a point operator makes (the const parameter of [`point_test`]).
pub(super) const P_SAME: u8 = 0;
pub(super) const P_NE: u8 = 1;
pub(super) const P_LEFT: u8 = 2;
pub(super) const P_RIGHT: u8 = 3;
pub(super) const P_BELOW: u8 = 4;
pub(super) const P_ABOVE: u8 = 5;
pub(super) const P_HORIZ: u8 = 6;
pub(super) const P_VERT: u8 = 7;

pub(super) fn point_test<const T: u8>(a: &Value, b: &Value, _: &FormatCtx) -> PgResult<Value> {
    let (a, b) = (pt(a)?, pt(b)?);
    let r = match T {
        P_SAME => a.same(&b),
        P_NE => !a.same(&b),
        P_LEFT => fp_lt(a.x, b.x),
        P_RIGHT => fp_gt(a.x, b.x),
        P_BELOW => fp_lt(a.y, b.y),
        P_ABOVE => fp_gt(a.y, b.y),
        P_HORIZ => fp_eq(a.y, b.y),
        _ => fp_eq(a.x, b.x),
    };
    Ok(Value::Bool(r))
}

/// float8_pl / _mi / _mul / _div's overflow check: an infinite result of finite operands.
fn checked(r: f64, a: f64, b: f64) -> PgResult<f64> {
    if r.is_infinite() && a.is_finite() && b.is_finite() {
        return Err(PgError::new(
            code::NUMERIC_VALUE_OUT_OF_RANGE,
            "value out of range: overflow",
        ));
    }
    Ok(r)
}

/// Point arithmetic: `+` and `-` by coordinates, `*` and `/` as complex numbers (rotation and
/// scaling), with PostgreSQL's overflow and division-by-zero errors.
fn point_arith<const OP: u8>(a: &Point, b: &Point) -> PgResult<Point> {
    Ok(match OP {
        super::ADD => Point {
            x: checked(a.x + b.x, a.x, b.x)?,
            y: checked(a.y + b.y, a.y, b.y)?,
        },
        super::SUB => Point {
            x: checked(a.x - b.x, a.x, b.x)?,
            y: checked(a.y - b.y, a.y, b.y)?,
        },
        super::MUL => {
            let (xx, yy) = (checked(a.x * b.x, a.x, b.x)?, checked(a.y * b.y, a.y, b.y)?);
            let (xy, yx) = (checked(a.x * b.y, a.x, b.y)?, checked(a.y * b.x, a.y, b.x)?);
            Point {
                x: checked(xx - yy, xx, yy)?,
                y: checked(xy + yx, xy, yx)?,
            }
        }
        _ => {
            let (bxx, byy) = (checked(b.x * b.x, b.x, b.x)?, checked(b.y * b.y, b.y, b.y)?);
            let div = checked(bxx + byy, bxx, byy)?;
            if div == 0.0 {
                return Err(PgError::new(code::DIVISION_BY_ZERO, "division by zero"));
            }
            let (axbx, ayby) = (checked(a.x * b.x, a.x, b.x)?, checked(a.y * b.y, a.y, b.y)?);
            let (aybx, axby) = (checked(a.y * b.x, a.y, b.x)?, checked(a.x * b.y, a.x, b.y)?);
            let (nx, ny) = (
                checked(axbx + ayby, axbx, ayby)?,
                checked(aybx - axby, aybx, axby)?,
            );
            Point {
                x: checked(nx / div, nx, div)?,
                y: checked(ny / div, ny, div)?,
            }
        }
    })
}

/// `point + point` ... `point / point`.
pub(super) fn point_op<const OP: u8>(a: &Value, b: &Value, _: &FormatCtx) -> PgResult<Value> {
    Ok(point_value(point_arith::<OP>(&pt(a)?, &pt(b)?)?))
}

/// `box + point` and `box - point` move both corners; `box * point` and `box / point` map
/// both corners and put the upper right first again (box_add ... box_div).
pub(super) fn box_point_op<const OP: u8>(a: &Value, b: &Value, _: &FormatCtx) -> PgResult<Value> {
    let (bx_, p) = (bx(a)?, pt(b)?);
    let (high, low) = (
        point_arith::<OP>(&bx_.high, &p)?,
        point_arith::<OP>(&bx_.low, &p)?,
    );
    Ok(box_value(if matches!(OP, super::ADD | super::SUB) {
        GeoBox { high, low }
    } else {
        GeoBox::new(high, low)
    }))
}

/// `@@ box` (box_center).
pub(super) fn box_center(a: &Value, _: &FormatCtx) -> PgResult<Value> {
    Ok(point_value(bx(a)?.center()))
}

/// `@@ lseg` (lseg_center).
pub(super) fn lseg_center(a: &Value, _: &FormatCtx) -> PgResult<Value> {
    Ok(point_value(lseg_of(a).ok_or_else(|| mismatch(a))?.center()))
}

fn circ(v: &Value) -> PgResult<Circle> {
    circle_of(v).ok_or_else(|| mismatch(v))
}

/// The circle operators returning boolean (circle_eq ... circle_overabove), by the same codes
/// as the box ones ([`B_EQ`] ...; [`C_NE`] for `<>`, which boxes lack).
pub(super) const C_NE: u8 = 19;

pub(super) fn circle_test<const T: u8>(a: &Value, b: &Value, _: &FormatCtx) -> PgResult<Value> {
    let (a, b) = (circ(a)?, circ(b)?);
    let (ca, cb) = (a.center, b.center);
    let (ra, rb) = (a.radius, b.radius);
    let r = match T {
        B_EQ => fp_eq(a.area(), b.area()),
        C_NE => fp_ne(a.area(), b.area()),
        B_LT => fp_lt(a.area(), b.area()),
        B_LE => fp_le(a.area(), b.area()),
        B_GT => fp_gt(a.area(), b.area()),
        B_GE => fp_ge(a.area(), b.area()),
        B_SAME => ((ra.is_nan() && rb.is_nan()) || fp_eq(ra, rb)) && ca.same(&cb),
        B_OVERLAP => fp_le(distance(&ca, &cb), ra + rb),
        B_CONTAIN => fp_le(distance(&ca, &cb) + rb, ra),
        B_CONTAINED => fp_le(distance(&ca, &cb) + ra, rb),
        B_LEFT => fp_lt(ca.x + ra, cb.x - rb),
        B_RIGHT => fp_gt(ca.x - ra, cb.x + rb),
        B_OVERLEFT => fp_le(ca.x + ra, cb.x + rb),
        B_OVERRIGHT => fp_ge(ca.x - ra, cb.x - rb),
        B_BELOW => fp_lt(ca.y + ra, cb.y - rb),
        B_ABOVE => fp_gt(ca.y - ra, cb.y + rb),
        B_OVERBELOW => fp_le(ca.y + ra, cb.y + rb),
        _ => fp_ge(ca.y - ra, cb.y - rb),
    };
    Ok(Value::Bool(r))
}

/// `circle <-> circle` (circle_distance): between the rims, 0 when they overlap.
pub(super) fn circle_distance(a: &Value, b: &Value, _: &FormatCtx) -> PgResult<Value> {
    let (a, b) = (circ(a)?, circ(b)?);
    let d = distance(&a.center, &b.center) - (a.radius + b.radius);
    Ok(Value::Float8(if d < 0.0 { 0.0 } else { d }))
}

/// `@@ circle` (circle_center).
pub(super) fn circle_center(a: &Value, _: &FormatCtx) -> PgResult<Value> {
    Ok(point_value(circ(a)?.center))
}
