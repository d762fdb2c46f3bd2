//! The geometric types point, lseg, box and circle (PostgreSQL's geo_ops.c): their values, text and
//! binary forms, and the fuzzy comparisons PostgreSQL's geometric operators use.
//!
//! A value is held as `Value::Bytea` of its binary form (PostgreSQL's typsend layout: big-endian
//! float8 coordinates, x before y; a box's upper-right corner first, an lseg's points in order),
//! so storage, checkpoint images, the log and the binary protocol carry it unchanged with no
//! new value kind; the type says how it prints and which operators apply, as it does for
//! pg_lsn. None of these types has a btree operator class, as in PostgreSQL, so the bytes are
//! never ordered by anything that means an order of geometries.
//!
//! Text input follows PostgreSQL's path_decode / pair_decode: `(x,y)` or `x,y` for a point;
//! two points, optionally in one more pair of parentheses (`((1,2),(3,4))`), or the old form
//! `(x1,y1,x2,y2)` for a box (and an lseg, which also takes `[...]`). Blanks are allowed around
//! every number and delimiter; anything else is 22P02 `invalid input syntax for type box: "..."`.
//! A box's corners are reordered so that the first is the upper right, as box_in does. A
//! circle is `<(x,y),r>` (circle_in's other forms are read too); its radius is never negative.

use super::io::write_float8;
use super::{FormatCtx, Type, Value};
use crate::error::{code, PgError, PgResult};

/// PostgreSQL's EPSILON for the fuzzy comparisons of geometric values.
const EPSILON: f64 = 1.0e-06;

/// A point.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Point {
    pub x: f64,
    pub y: f64,
}

/// A box: `high` is the upper-right corner, `low` the lower-left (box_in's order).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GeoBox {
    pub high: Point,
    pub low: Point,
}

/// A line segment between two points.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Lseg {
    pub p: [Point; 2],
}

// ---------------------------------------------------------------------------------------------
// Fuzzy comparisons (geo_decls.h's FPeq ... FPge)
// ---------------------------------------------------------------------------------------------

pub fn fp_eq(a: f64, b: f64) -> bool {
    a == b || (a - b).abs() <= EPSILON
}
pub fn fp_ne(a: f64, b: f64) -> bool {
    a != b && (a - b).abs() > EPSILON
}
pub fn fp_lt(a: f64, b: f64) -> bool {
    a + EPSILON < b
}
pub fn fp_le(a: f64, b: f64) -> bool {
    a <= b + EPSILON
}
pub fn fp_gt(a: f64, b: f64) -> bool {
    a > b + EPSILON
}
pub fn fp_ge(a: f64, b: f64) -> bool {
    a + EPSILON >= b
}

/// float8_lt: NaN sorts above every number.
fn f8_lt(a: f64, b: f64) -> bool {
    if a.is_nan() {
        false
    } else if b.is_nan() {
        true
    } else {
        a < b
    }
}

impl Point {
    /// point_eq's test (also `~=` of points): fuzzy equality of both coordinates, and two NaN
    /// coordinates count as equal.
    pub fn same(&self, o: &Point) -> bool {
        let eq = |a: f64, b: f64| (a.is_nan() && b.is_nan()) || fp_eq(a, b);
        eq(self.x, o.x) && eq(self.y, o.y)
    }
}

impl GeoBox {
    /// A box from two corners in any order (box_construct).
    pub fn new(a: Point, b: Point) -> GeoBox {
        let mut bx = GeoBox { high: a, low: b };
        bx.normalize();
        bx
    }

    /// Puts the upper-right corner first.
    fn normalize(&mut self) {
        if f8_lt(self.high.x, self.low.x) {
            std::mem::swap(&mut self.high.x, &mut self.low.x);
        }
        if f8_lt(self.high.y, self.low.y) {
            std::mem::swap(&mut self.high.y, &mut self.low.y);
        }
    }

    pub fn width(&self) -> f64 {
        self.high.x - self.low.x
    }
    pub fn height(&self) -> f64 {
        self.high.y - self.low.y
    }
    pub fn area(&self) -> f64 {
        self.width() * self.height()
    }
    pub fn center(&self) -> Point {
        Point {
            x: (self.high.x + self.low.x) / 2.0,
            y: (self.high.y + self.low.y) / 2.0,
        }
    }
    /// A box of one point (box(point)).
    pub fn of_point(p: Point) -> GeoBox {
        GeoBox { high: p, low: p }
    }
    /// From the upper-right corner to the lower-left one (diagonal(box), lseg(box)).
    pub fn diagonal(&self) -> Lseg {
        Lseg {
            p: [self.high, self.low],
        }
    }
}

impl Lseg {
    /// The middle of the segment (point(lseg), `@@ lseg`).
    pub fn center(&self) -> Point {
        Point {
            x: (self.p[0].x + self.p[1].x) / 2.0,
            y: (self.p[0].y + self.p[1].y) / 2.0,
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Values
// ---------------------------------------------------------------------------------------------

fn push_f64s(out: &mut Vec<u8>, fs: &[f64]) {
    for f in fs {
        out.extend_from_slice(&f.to_be_bytes());
    }
}

fn f64s<const N: usize>(v: &Value) -> Option<[f64; N]> {
    let Value::Bytea(b) = v else { return None };
    if b.len() != N * 8 {
        return None;
    }
    let mut out = [0.0; N];
    for (i, c) in b.chunks_exact(8).enumerate() {
        out[i] = f64::from_be_bytes(c.try_into().ok()?);
    }
    Some(out)
}

pub fn point_value(p: Point) -> Value {
    let mut b = Vec::with_capacity(16);
    push_f64s(&mut b, &[p.x, p.y]);
    Value::Bytea(b)
}

pub fn point_of(v: &Value) -> Option<Point> {
    let [x, y] = f64s::<2>(v)?;
    Some(Point { x, y })
}

pub fn box_value(bx: GeoBox) -> Value {
    let mut b = Vec::with_capacity(32);
    push_f64s(&mut b, &[bx.high.x, bx.high.y, bx.low.x, bx.low.y]);
    Value::Bytea(b)
}

pub fn box_of(v: &Value) -> Option<GeoBox> {
    let [hx, hy, lx, ly] = f64s::<4>(v)?;
    Some(GeoBox {
        high: Point { x: hx, y: hy },
        low: Point { x: lx, y: ly },
    })
}

pub fn lseg_value(l: Lseg) -> Value {
    let mut b = Vec::with_capacity(32);
    push_f64s(&mut b, &[l.p[0].x, l.p[0].y, l.p[1].x, l.p[1].y]);
    Value::Bytea(b)
}

pub fn lseg_of(v: &Value) -> Option<Lseg> {
    let [a, b, c, d] = f64s::<4>(v)?;
    Some(Lseg {
        p: [Point { x: a, y: b }, Point { x: c, y: d }],
    })
}

/// A value received in binary form (point_recv, box_recv, lseg_recv): `n` float8s; a box's
/// corners are reordered as box_recv does.
pub fn from_binary(bytes: &[u8], n: usize, is_box: bool) -> PgResult<Value> {
    if bytes.len() != n * 8 {
        return Err(PgError::new(
            code::INVALID_BINARY_REPRESENTATION,
            "insufficient data left in message",
        ));
    }
    let v = Value::Bytea(bytes.to_vec());
    if is_box {
        let mut bx = box_of(&v).expect("32 bytes");
        bx.normalize();
        return Ok(box_value(bx));
    }
    Ok(v)
}

// ---------------------------------------------------------------------------------------------
// Text output (path_encode)
// ---------------------------------------------------------------------------------------------

fn write_point(p: &Point, ctx: &FormatCtx, out: &mut String) {
    out.push('(');
    write_float8(p.x, ctx.extra_float_digits, out);
    out.push(',');
    write_float8(p.y, ctx.extra_float_digits, out);
    out.push(')');
}

/// `(x,y)`.
pub fn format_point(v: &Value, ctx: &FormatCtx, out: &mut String) {
    if let Some(p) = point_of(v) {
        write_point(&p, ctx, out);
    }
}

/// `(high.x,high.y),(low.x,low.y)`.
pub fn format_box(v: &Value, ctx: &FormatCtx, out: &mut String) {
    if let Some(b) = box_of(v) {
        write_point(&b.high, ctx, out);
        out.push(',');
        write_point(&b.low, ctx, out);
    }
}

/// `[(x1,y1),(x2,y2)]`.
pub fn format_lseg(v: &Value, ctx: &FormatCtx, out: &mut String) {
    if let Some(l) = lseg_of(v) {
        out.push('[');
        write_point(&l.p[0], ctx, out);
        out.push(',');
        write_point(&l.p[1], ctx, out);
        out.push(']');
    }
}

// ---------------------------------------------------------------------------------------------
// Text input (path_decode, pair_decode, float8in_internal)
// ---------------------------------------------------------------------------------------------

/// A cursor over one input string, with the type name and the whole input for its errors.
struct Decoder<'a> {
    s: &'a [u8],
    i: usize,
    type_name: &'static str,
    orig: &'a str,
}

impl Decoder<'_> {
    fn bad(&self) -> PgError {
        PgError::invalid_text(self.type_name, self.orig)
    }
    fn peek(&self) -> u8 {
        self.s.get(self.i).copied().unwrap_or(0)
    }
    fn blanks(&mut self) {
        while self.peek().is_ascii_whitespace() {
            self.i += 1;
        }
    }

    /// float8in_internal with an end pointer: blanks, a number as strtod reads it (or NaN /
    /// Infinity / inf with a sign, in any case), blanks.
    fn float(&mut self) -> PgResult<f64> {
        self.blanks();
        let start = self.i;
        let rest = &self.s[start..];
        let lower: Vec<u8> = rest.iter().take(9).map(u8::to_ascii_lowercase).collect();
        let (sign, body) = match lower.first() {
            Some(b'+') => (1.0, &lower[1..]),
            Some(b'-') => (-1.0, &lower[1..]),
            _ => (1.0, &lower[..]),
        };
        let signed = usize::from(body.len() != lower.len());
        let special = if body.starts_with(b"infinity") {
            Some((sign * f64::INFINITY, signed + 8))
        } else if body.starts_with(b"inf") {
            Some((sign * f64::INFINITY, signed + 3))
        } else if body.starts_with(b"nan") {
            Some((f64::NAN, signed + 3))
        } else {
            None
        };
        if let Some((v, len)) = special {
            self.i += len;
            self.blanks();
            return Ok(v);
        }
        let mut j = start;
        if matches!(self.s.get(j), Some(b'+' | b'-')) {
            j += 1;
        }
        let digits = |j: &mut usize| {
            let from = *j;
            while self.s.get(*j).is_some_and(u8::is_ascii_digit) {
                *j += 1;
            }
            *j - from
        };
        let mut n = digits(&mut j);
        if self.s.get(j) == Some(&b'.') {
            j += 1;
            n += digits(&mut j);
        }
        if n == 0 {
            return Err(self.bad());
        }
        if matches!(self.s.get(j), Some(b'e' | b'E')) {
            let mut k = j + 1;
            if matches!(self.s.get(k), Some(b'+' | b'-')) {
                k += 1;
            }
            if digits(&mut k) > 0 {
                j = k;
            }
        }
        let text = std::str::from_utf8(&self.s[start..j]).map_err(|_| self.bad())?;
        let v: f64 = text.parse().map_err(|_| self.bad())?;
        let mantissa = text.split(['e', 'E']).next().unwrap_or("");
        if v.is_infinite() || (v == 0.0 && mantissa.bytes().any(|c| (b'1'..=b'9').contains(&c))) {
            return Err(PgError::new(
                code::NUMERIC_VALUE_OUT_OF_RANGE,
                format!("\"{text}\" is out of range for type double precision"),
            ));
        }
        self.i = j;
        self.blanks();
        Ok(v)
    }

    /// pair_decode: `x,y` or `(x,y)` and the blanks after a closing parenthesis.
    fn pair(&mut self) -> PgResult<Point> {
        self.blanks();
        let delim = self.peek() == b'(';
        if delim {
            self.i += 1;
        }
        let x = self.float()?;
        if self.peek() != b',' {
            return Err(self.bad());
        }
        self.i += 1;
        let y = self.float()?;
        if delim {
            if self.peek() != b')' {
                return Err(self.bad());
            }
            self.i += 1;
            self.blanks();
        }
        Ok(Point { x, y })
    }

    /// path_decode of `n` points, up to the end of the input. `open`: `[...]` is allowed.
    fn path(&mut self, n: usize, open: bool) -> PgResult<Vec<Point>> {
        self.blanks();
        let mut depth = 0;
        let is_open = self.peek() == b'[';
        if is_open {
            if !open {
                return Err(self.bad());
            }
            depth += 1;
            self.i += 1;
        } else if self.peek() == b'(' {
            let mut cp = self.i + 1;
            while self.s.get(cp).is_some_and(u8::is_ascii_whitespace) {
                cp += 1;
            }
            let only_paren = !self.s[self.i + 1..].contains(&b'(');
            if self.s.get(cp) == Some(&b'(') || only_paren {
                depth += 1;
                self.i = cp;
            }
        }
        let mut pts = Vec::with_capacity(n);
        for _ in 0..n {
            pts.push(self.pair()?);
            if self.peek() == b',' {
                self.i += 1;
            }
        }
        while depth > 0 {
            let c = self.peek();
            if c == b')' || (c == b']' && is_open && depth == 1) {
                depth -= 1;
                self.i += 1;
                self.blanks();
            } else {
                return Err(self.bad());
            }
        }
        if self.i != self.s.len() {
            return Err(self.bad());
        }
        Ok(pts)
    }
}

fn decoder<'a>(s: &'a str, type_name: &'static str) -> Decoder<'a> {
    Decoder {
        s: s.as_bytes(),
        i: 0,
        type_name,
        orig: s,
    }
}

/// point_in.
pub fn parse_point(s: &str) -> PgResult<Value> {
    let mut d = decoder(s, "point");
    let p = d.pair()?;
    if d.i != d.s.len() {
        return Err(d.bad());
    }
    Ok(point_value(p))
}

/// box_in.
pub fn parse_box(s: &str) -> PgResult<Value> {
    let pts = decoder(s, "box").path(2, false)?;
    Ok(box_value(GeoBox::new(pts[0], pts[1])))
}

/// lseg_in.
pub fn parse_lseg(s: &str) -> PgResult<Value> {
    let pts = decoder(s, "lseg").path(2, true)?;
    Ok(lseg_value(Lseg {
        p: [pts[0], pts[1]],
    }))
}

// ---------------------------------------------------------------------------------------------
// Circles
// ---------------------------------------------------------------------------------------------

/// A circle: its center and radius (never negative; NaN is allowed, as in PostgreSQL).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Circle {
    pub center: Point,
    pub radius: f64,
}

impl Circle {
    /// circle_ar: pi r².
    pub fn area(&self) -> f64 {
        self.radius * self.radius * std::f64::consts::PI
    }
}

pub fn circle_value(c: Circle) -> Value {
    let mut b = Vec::with_capacity(24);
    push_f64s(&mut b, &[c.center.x, c.center.y, c.radius]);
    Value::Bytea(b)
}

pub fn circle_of(v: &Value) -> Option<Circle> {
    let [x, y, radius] = f64s::<3>(v)?;
    Some(Circle {
        center: Point { x, y },
        radius,
    })
}

/// circle_recv: a negative radius is refused.
pub fn circle_from_binary(bytes: &[u8]) -> PgResult<Value> {
    let v = from_binary(bytes, 3, false)?;
    if circle_of(&v).is_some_and(|c| c.radius < 0.0) {
        return Err(PgError::new(
            code::INVALID_BINARY_REPRESENTATION,
            "invalid radius in external \"circle\" value",
        ));
    }
    Ok(v)
}

/// `<(x,y),r>`.
pub fn format_circle(v: &Value, ctx: &FormatCtx, out: &mut String) {
    if let Some(c) = circle_of(v) {
        out.push('<');
        write_point(&c.center, ctx, out);
        out.push(',');
        write_float8(c.radius, ctx.extra_float_digits, out);
        out.push('>');
    }
}

/// circle_in: `<(x,y),r>`, `((x,y),r)`, `(x,y),r` or `x,y,r`, blanks anywhere between.
pub fn parse_circle(s: &str) -> PgResult<Value> {
    let mut d = decoder(s, "circle");
    d.blanks();
    let mut depth = 0;
    if d.peek() == b'<' {
        depth += 1;
        d.i += 1;
    } else if d.peek() == b'(' {
        let mut cp = d.i + 1;
        while d.s.get(cp).is_some_and(u8::is_ascii_whitespace) {
            cp += 1;
        }
        if d.s.get(cp) == Some(&b'(') {
            depth += 1;
            d.i = cp;
        }
    }
    let center = d.pair()?;
    if d.peek() == b',' {
        d.i += 1;
    }
    let radius = d.float()?;
    if radius < 0.0 {
        return Err(d.bad());
    }
    while depth > 0 {
        let c = d.peek();
        if c == b')' || (c == b'>' && depth == 1) {
            depth -= 1;
            d.i += 1;
            d.blanks();
        } else {
            return Err(d.bad());
        }
    }
    if d.i != d.s.len() {
        return Err(d.bad());
    }
    Ok(circle_value(Circle { center, radius }))
}

/// The casts between geometric types (pg_cast's box(point), point(box), point(lseg),
/// lseg(box), point(circle)); None for any other pair.
pub fn cast(v: &Value, from: Type, to: Type) -> Option<Value> {
    Some(match (from, to) {
        (Type::POINT, Type::BOX) => box_value(GeoBox::of_point(point_of(v)?)),
        (Type::BOX, Type::POINT) => point_value(box_of(v)?.center()),
        (Type::BOX, Type::LSEG) => lseg_value(box_of(v)?.diagonal()),
        (Type::LSEG, Type::POINT) => point_value(lseg_of(v)?.center()),
        (Type::CIRCLE, Type::POINT) => point_value(circle_of(v)?.center),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(v: &Value, f: fn(&Value, &FormatCtx, &mut String)) -> String {
        let mut s = String::new();
        f(v, &FormatCtx::default(), &mut s);
        s
    }

    #[test]
    fn box_input_forms_and_corner_order() {
        for s in [
            "(2.0,2.0,0.0,0.0)",
            "(1.0,1.0,3.0,3.0)",
            "((-8, 2), (-2, -10))",
            "(2.5, 2.5, 2.5,3.5)",
            "(3.0, 3.0,3.0,3.0)",
            " ( 1 , 2 ) , ( 3 , 4 ) ",
            "4,4,4,4",
        ] {
            assert!(parse_box(s).is_ok(), "{s}");
        }
        let b = parse_box("((-8, 2), (-2, -10))").unwrap();
        assert_eq!(text(&b, format_box), "(-2,2),(-8,-10)");
        assert_eq!(
            text(&parse_box("4,4,4,4").unwrap(), format_box),
            "(4,4),(4,4)"
        );
        for s in [
            "(2.3, 4.5)",
            "[1, 2, 3, 4)",
            "(1, 2, 3, 4]",
            "(1, 2, 3, 4) x",
            "asdfasdf(ad",
            "",
            "(1,2),(3,4),(5,6)",
        ] {
            let e = parse_box(s).unwrap_err();
            assert_eq!(e.code, code::INVALID_TEXT_REPRESENTATION, "{s}");
        }
    }

    #[test]
    fn point_and_lseg_forms() {
        assert_eq!(
            text(&parse_point(" ( 1.5 , -2 ) ").unwrap(), format_point),
            "(1.5,-2)"
        );
        assert_eq!(
            text(&parse_point("1e300,-inf").unwrap(), format_point),
            "(1e+300,-Infinity)"
        );
        assert!(parse_point("(1,2").is_err());
        assert!(parse_point("1e400,0").is_err());
        assert_eq!(
            text(&parse_lseg("[(1,2),(3,4)]").unwrap(), format_lseg),
            "[(1,2),(3,4)]"
        );
        // path_decode closes `[` with `)` too, as PostgreSQL does; an unclosed one is refused.
        assert!(parse_lseg("[(1,2),(3,4))").is_ok());
        assert!(parse_lseg("[(1,2),(3,4)").is_err());
    }

    #[test]
    fn circle_forms() {
        for s in [
            "<(5,1),3>",
            "((1,2),100)",
            " 1 , 3 , 5 ",
            " ( ( 1 , 2 ) , 3 ) ",
            " ( 100 , 200 ) , 10 ",
            "<(3,5),NaN>",
        ] {
            assert!(parse_circle(s).is_ok(), "{s}");
        }
        assert_eq!(
            text(&parse_circle(" 1 , 3 , 5 ").unwrap(), format_circle),
            "<(1,3),5>"
        );
        for s in [
            "<(-100,0),-100>",
            "<(100,200),10",
            "<(100,200),10> x",
            "1abc,3,5",
            "(3,(1,2),3)",
        ] {
            assert!(parse_circle(s).is_err(), "{s}");
        }
    }

    #[test]
    fn binary_box_is_normalized_and_short_input_refused() {
        let mut raw = Vec::new();
        push_f64s(&mut raw, &[0.0, 0.0, 1.0, 1.0]);
        let b = box_of(&from_binary(&raw, 4, true).unwrap()).unwrap();
        assert_eq!(b.high, Point { x: 1.0, y: 1.0 });
        assert!(from_binary(&raw[..31], 4, true).is_err());
    }
}
