//! Functions over the geometric types (PostgreSQL's geo_ops.c): area, center, height, width,
//! diagonal and bound_box of boxes, area, center, radius and diameter of circles, and the
//! constructors and conversions point(x, y), point(box | lseg | circle), box(point, point),
//! box(point), lseg(point, point), lseg(box), circle(point, radius).

use super::args::bad_arg;
use crate::error::PgResult;
use crate::sql::types::geo::{
    box_of, box_value, circle_of, circle_value, lseg_of, lseg_value, point_of, point_value, Circle,
    GeoBox, Lseg, Point,
};
use crate::sql::types::{FormatCtx, Value};

fn bx(v: &Value) -> PgResult<GeoBox> {
    box_of(v).ok_or_else(|| bad_arg(v))
}

fn pt(v: &Value) -> PgResult<Point> {
    point_of(v).ok_or_else(|| bad_arg(v))
}

fn f8(v: &Value) -> PgResult<f64> {
    match v {
        Value::Float8(f) => Ok(*f),
        _ => Err(bad_arg(v)),
    }
}

pub(super) fn f_box_area(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    Ok(Value::Float8(bx(&a[0])?.area()))
}

pub(super) fn f_box_width(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    Ok(Value::Float8(bx(&a[0])?.width()))
}

pub(super) fn f_box_height(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    Ok(Value::Float8(bx(&a[0])?.height()))
}

/// center(box) and point(box).
pub(super) fn f_box_center(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    Ok(point_value(bx(&a[0])?.center()))
}

/// diagonal(box) and lseg(box): from the upper-right corner to the lower-left one.
pub(super) fn f_box_diagonal(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    Ok(lseg_value(bx(&a[0])?.diagonal()))
}

/// bound_box(box, box): the smallest box holding both.
pub(super) fn f_bound_box(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    let (x, y) = (bx(&a[0])?, bx(&a[1])?);
    Ok(box_value(GeoBox {
        high: Point {
            x: x.high.x.max(y.high.x),
            y: x.high.y.max(y.high.y),
        },
        low: Point {
            x: x.low.x.min(y.low.x),
            y: x.low.y.min(y.low.y),
        },
    }))
}

/// box(point, point): the corners in any order.
pub(super) fn f_points_box(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    Ok(box_value(GeoBox::new(pt(&a[0])?, pt(&a[1])?)))
}

/// box(point): a box of one point.
pub(super) fn f_point_box(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    Ok(box_value(GeoBox::of_point(pt(&a[0])?)))
}

/// point(float8, float8).
pub(super) fn f_point(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    Ok(point_value(Point {
        x: f8(&a[0])?,
        y: f8(&a[1])?,
    }))
}

/// point(lseg): the middle of the segment.
pub(super) fn f_lseg_center(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    Ok(point_value(
        lseg_of(&a[0]).ok_or_else(|| bad_arg(&a[0]))?.center(),
    ))
}

/// lseg(point, point).
pub(super) fn f_lseg(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    Ok(lseg_value(Lseg {
        p: [pt(&a[0])?, pt(&a[1])?],
    }))
}

fn circ(v: &Value) -> PgResult<Circle> {
    circle_of(v).ok_or_else(|| bad_arg(v))
}

pub(super) fn f_circle_area(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    Ok(Value::Float8(circ(&a[0])?.area()))
}

/// center(circle) and point(circle).
pub(super) fn f_circle_center(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    Ok(point_value(circ(&a[0])?.center))
}

pub(super) fn f_circle_radius(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    Ok(Value::Float8(circ(&a[0])?.radius))
}

pub(super) fn f_circle_diameter(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    Ok(Value::Float8(circ(&a[0])?.radius * 2.0))
}

/// circle(point, radius) (cr_circle).
pub(super) fn f_circle(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    Ok(circle_value(Circle {
        center: pt(&a[0])?,
        radius: f8(&a[1])?,
    }))
}
