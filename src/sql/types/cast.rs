//! Type coercions: which casts exist in which context (PostgreSQL's pg_cast), performing them,
//! and type modifiers (`varchar(n)`, `numeric(p,s)`, `timestamp(p)`).
//!
//! Two entry points perform casts: [`cast`] for implicit and assignment casts (a too-long
//! `varchar(n)` value is an error, as on INSERT) and [`cast_explicit`] for `CAST(x AS t)` /
//! `x::t` (a too-long value is truncated). They are otherwise identical.

use super::datetime as dt;
use super::{io, Array, FormatCtx, Interval, Numeric, Type, Value};
use crate::error::{code, PgError, PgResult};

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum CoercionContext {
    Implicit,
    Assignment,
    Explicit,
}

use CoercionContext::*;

fn is_string(t: Type) -> bool {
    matches!(
        t,
        Type::TEXT | Type::VARCHAR | Type::BPCHAR | Type::NAME | Type::CHAR
    )
}

fn is_reg(t: Type) -> bool {
    matches!(
        t,
        Type::OID
            | Type::REGTYPE
            | Type::REGCLASS
            | Type::REGPROC
            | Type::REGNAMESPACE
            | Type::REGROLE
            | Type::REGPROCEDURE
    )
}

/// The weakest context in which `from` can be cast to `to` (None: no cast at all).
pub fn cast_context(from: Type, to: Type) -> Option<CoercionContext> {
    if from == to || from == Type::UNKNOWN {
        return Some(Implicit);
    }
    if to == Type::ANY {
        return Some(Implicit);
    }
    // A row becomes a composite type field by field (PostgreSQL's coerce_record_to_complex);
    // a composite value is a record. Two composite types have no cast between them.
    if from == Type::RECORD && to.is_composite() || from.is_composite() && to == Type::RECORD {
        return Some(Implicit);
    }
    if to == Type::ANYELEMENT {
        return Some(Implicit);
    }
    if to == Type::ANYARRAY {
        return if from.is_array() {
            Some(Implicit)
        } else {
            None
        };
    }
    if let (Some(fe), Some(te)) = (from.elem(), to.elem()) {
        return cast_context(fe, te);
    }
    // hstore's casts to json and jsonb (its CREATE CAST ... WITH FUNCTION hstore_to_json).
    if matches!(to, Type::JSON | Type::JSONB) && from.is_hstore() {
        return Some(Explicit);
    }
    // ... and from text[] (WITH FUNCTION hstore(text[])).
    if from == Type::TEXT_ARRAY && to.is_hstore() {
        return Some(Explicit);
    }
    if let Some(c) = citext_cast(from, to) {
        return Some(c);
    }
    let c = match (from, to) {
        // The catalogs' vectors are arrays underneath (binary-coercible in PostgreSQL).
        (Type::INT2VECTOR, Type::INT2_ARRAY) | (Type::OIDVECTOR, Type::OID_ARRAY) => Implicit,
        // A 64-bit transaction id to its low 32 bits (PostgreSQL's xid(xid8)).
        (Type::XID8, Type::XID) => Explicit,
        // Numbers.
        (Type::INT2, Type::INT4 | Type::INT8 | Type::FLOAT4 | Type::FLOAT8 | Type::NUMERIC) => {
            Implicit
        }
        (Type::INT4, Type::INT8 | Type::FLOAT4 | Type::FLOAT8 | Type::NUMERIC) => Implicit,
        (Type::INT8, Type::FLOAT4 | Type::FLOAT8 | Type::NUMERIC) => Implicit,
        (Type::INT4, Type::INT2) | (Type::INT8, Type::INT2 | Type::INT4) => Assignment,
        (Type::FLOAT4, Type::FLOAT8) => Implicit,
        (Type::FLOAT4, Type::INT2 | Type::INT4 | Type::INT8 | Type::NUMERIC) => Assignment,
        (Type::FLOAT8, Type::FLOAT4 | Type::INT2 | Type::INT4 | Type::INT8 | Type::NUMERIC) => {
            Assignment
        }
        (Type::NUMERIC, Type::FLOAT4 | Type::FLOAT8) => Implicit,
        (Type::NUMERIC, Type::INT2 | Type::INT4 | Type::INT8) => Assignment,
        // OIDs and reg* types.
        (Type::INT2 | Type::INT4 | Type::INT8, t) if is_reg(t) => Implicit,
        (f, Type::INT4 | Type::INT8) if is_reg(f) => Assignment,
        (f, t) if is_reg(f) && is_reg(t) => Implicit,
        // bool and "char".
        (Type::BOOL, Type::INT4) | (Type::INT4, Type::BOOL) => Explicit,
        (Type::INT4, Type::CHAR) | (Type::CHAR, Type::INT4) => Explicit,
        // Strings.
        (Type::TEXT | Type::VARCHAR | Type::BPCHAR, Type::TEXT | Type::VARCHAR | Type::BPCHAR) => {
            Implicit
        }
        (Type::TEXT | Type::VARCHAR | Type::BPCHAR, Type::NAME) => Implicit,
        (Type::NAME, Type::TEXT) => Implicit,
        (Type::NAME, Type::VARCHAR | Type::BPCHAR) => Assignment,
        (Type::CHAR, Type::TEXT) => Implicit,
        (Type::CHAR, Type::VARCHAR | Type::BPCHAR) => Assignment,
        (Type::TEXT | Type::VARCHAR | Type::BPCHAR, Type::CHAR) => Assignment,
        (Type::TEXT | Type::VARCHAR | Type::BPCHAR, Type::REGCLASS) => Implicit,
        // Date/time.
        (Type::DATE, Type::TIMESTAMP | Type::TIMESTAMPTZ) => Implicit,
        (Type::TIMESTAMP, Type::TIMESTAMPTZ) => Implicit,
        (Type::TIMESTAMPTZ, Type::TIMESTAMP) => Assignment,
        (Type::TIMESTAMP | Type::TIMESTAMPTZ, Type::DATE | Type::TIME) => Assignment,
        (Type::TIME, Type::INTERVAL | Type::TIMETZ) => Implicit,
        (Type::TIMETZ, Type::TIME) | (Type::TIMESTAMPTZ, Type::TIMETZ) => Assignment,
        // Networks: cidr is an inet; inet → cidr drops the host bits.
        (Type::CIDR, Type::INET) => Implicit,
        (Type::INET, Type::CIDR) => Assignment,
        (Type::INTERVAL, Type::TIME) => Assignment,
        // Geometry (pg_cast: box(point), point(box), point(lseg), lseg(box)).
        (Type::POINT, Type::BOX) => Assignment,
        (Type::BOX, Type::POINT | Type::LSEG) | (Type::LSEG | Type::CIRCLE, Type::POINT) => {
            Explicit
        }
        // JSON.
        (Type::JSON, Type::JSONB) | (Type::JSONB, Type::JSON) => Assignment,
        (Type::JSONB, Type::BOOL | Type::NUMERIC | Type::INT2 | Type::INT4 | Type::INT8) => {
            Explicit
        }
        (Type::JSONB, Type::FLOAT4 | Type::FLOAT8) => Explicit,
        // A range to its multirange type (PostgreSQL's cast through multirange(range)).
        (f, t) if f.range_multirange() == Some(t) => Explicit,
        // I/O conversion casts: anything to a string type by assignment, from a string
        // type explicitly.
        (_, t) if is_string(t) && t != Type::CHAR && from != Type::VOID => Assignment,
        (f, _) if is_string(f) && f != Type::CHAR && to != Type::VOID && to != Type::RECORD => {
            Explicit
        }
        _ => return None,
    };
    Some(c)
}

/// The casts to and from citext (`types::citext`): its script's CREATE CASTs (to text and
/// varchar implicit, to bpchar and from text, varchar, bpchar, boolean, inet by assignment) and
/// PostgreSQL's I/O conversion casts of a string-category type (to it by assignment, from it
/// to anything else explicitly, to the other string types by assignment).
fn citext_cast(from: Type, to: Type) -> Option<CoercionContext> {
    if from.is_citext() {
        if to == Type::VOID || to == Type::RECORD {
            return None;
        }
        return Some(match to {
            Type::TEXT | Type::VARCHAR => Implicit,
            // "char" is not of the string category in PostgreSQL: explicit only.
            t if is_string(t) && t != Type::CHAR => Assignment,
            _ => Explicit,
        });
    }
    if to.is_citext() && from != Type::VOID && from != Type::RECORD {
        return Some(Assignment);
    }
    None
}

/// Whether a value of type `from` can be coerced to `to` in context `ctx`.
pub fn can_coerce(from: Type, to: Type, ctx: CoercionContext) -> bool {
    // A domain converts as its base type does (its constraints are checked on the way).
    let (from, to) = (from.base_type(), to.base_type());
    from == to || cast_context(from, to).is_some_and(|c| c <= ctx)
}

/// Implicit or assignment cast of `v` from `from` to `to` with type modifier `typmod` (-1 for
/// none). NULL stays NULL. Too-long strings for `varchar(n)`/`char(n)` are an error.
pub fn cast(v: Value, from: Type, to: Type, typmod: i32, ctx: &FormatCtx) -> PgResult<Value> {
    cast_impl(v, from, to, typmod, ctx, false)
}

/// Explicit cast (`CAST(x AS t)`, `x::t`): like [`cast`], but too-long strings are truncated
/// to the declared length.
pub fn cast_explicit(
    v: Value,
    from: Type,
    to: Type,
    typmod: i32,
    ctx: &FormatCtx,
) -> PgResult<Value> {
    cast_impl(v, from, to, typmod, ctx, true)
}

fn cannot_cast(from: Type, to: Type) -> PgError {
    PgError::new(
        code::CANNOT_COERCE,
        format!("cannot cast type {} to {}", from.name(), to.name()),
    )
}

fn cast_impl(
    v: Value,
    from: Type,
    to: Type,
    typmod: i32,
    ctx: &FormatCtx,
    explicit: bool,
) -> PgResult<Value> {
    if v.is_null() {
        return Ok(Value::Null);
    }
    let v = convert(v, from, to, typmod, ctx)?;
    if typmod >= 0 {
        apply_typmod(v, to, typmod, explicit)
    } else {
        Ok(v)
    }
}

/// A record's fields converted to composite type `to`'s (each from the type its value has), as
/// PostgreSQL converts a ROW() to a composite type: the field counts must match.
fn record_to_composite(fields: &[Value], to: Type, ctx: &FormatCtx) -> PgResult<Value> {
    crate::stack::check()?;
    let Some(def) = crate::catalog::types::row_fields(to.0) else {
        return Err(cannot_cast(Type::RECORD, to));
    };
    if fields.len() != def.fields.len() {
        let few = fields.len() < def.fields.len();
        return Err(cannot_cast(Type::RECORD, to).with_detail(format!(
            "Input has too {} columns.",
            if few { "few" } else { "many" }
        )));
    }
    let mut out = Vec::with_capacity(fields.len());
    for (v, (_, fty, fmod)) in fields.iter().zip(&def.fields) {
        if v.is_null() {
            out.push(Value::Null);
            continue;
        }
        let (base, base_mod) = Type(*fty).base();
        let typmod = if *fmod >= 0 { *fmod } else { base_mod };
        let from = io::value_type(v);
        let from = if from == Type::UNKNOWN {
            Type::TEXT
        } else {
            from
        };
        if from != base && cast_context(from, base).is_none() {
            return Err(cannot_cast(Type::RECORD, to).with_detail(format!(
                "Cannot cast type {} to {} in column {}.",
                from.name(),
                base.name(),
                out.len() + 1
            )));
        }
        out.push(cast_impl(v.clone(), from, base, typmod, ctx, false)?);
    }
    Ok(Value::Record(out))
}

fn int_range(v: i64, to: Type) -> PgResult<Value> {
    match to {
        Type::INT2 => i16::try_from(v)
            .map(Value::Int2)
            .map_err(|_| PgError::out_of_range("smallint")),
        Type::INT4 => i32::try_from(v)
            .map(Value::Int4)
            .map_err(|_| PgError::out_of_range("integer")),
        _ => Ok(Value::Int8(v)),
    }
}

/// float → integer with rounding half to even (rint) and PostgreSQL's range errors.
pub fn float_to_int(f: f64, to: Type) -> PgResult<Value> {
    let name = match to {
        Type::INT2 => "smallint",
        Type::INT4 => "integer",
        _ => "bigint",
    };
    if f.is_nan() {
        return Err(PgError::out_of_range(name));
    }
    let r = f.round_ties_even();
    let (lo, hi) = match to {
        Type::INT2 => (i16::MIN as f64, i16::MAX as f64 + 1.0),
        Type::INT4 => (i32::MIN as f64, i32::MAX as f64 + 1.0),
        _ => (i64::MIN as f64, -(i64::MIN as f64)),
    };
    if r < lo || r >= hi {
        return Err(PgError::out_of_range(name));
    }
    int_range(r as i64, to)
}

/// float8 → float4 with PostgreSQL's overflow/underflow errors.
pub fn f64_to_f32(f: f64) -> PgResult<f32> {
    let r = f as f32;
    if r.is_infinite() && !f.is_infinite() {
        return Err(PgError::new(
            code::NUMERIC_VALUE_OUT_OF_RANGE,
            "value out of range: overflow",
        ));
    }
    if r == 0.0 && f != 0.0 {
        return Err(PgError::new(
            code::NUMERIC_VALUE_OUT_OF_RANGE,
            "value out of range: underflow",
        ));
    }
    Ok(r)
}

fn numeric_to_int(n: &Numeric, to: Type) -> PgResult<Value> {
    let (name, lo, hi) = match to {
        Type::INT2 => ("smallint", i16::MIN as i128, i16::MAX as i128),
        Type::INT4 => ("integer", i32::MIN as i128, i32::MAX as i128),
        _ => ("bigint", i64::MIN as i128, i64::MAX as i128),
    };
    let v = n.to_int_checked(name, lo, hi)? as i64;
    int_range(v, to)
}

/// Text form of a value for a cast to a string type (booleans become `true`/`false`, char(n)
/// loses its padding).
fn text_for_cast(v: &Value, from: Type, ctx: &FormatCtx) -> String {
    match (v, from) {
        (Value::Bool(b), _) => if *b { "true" } else { "false" }.to_string(),
        (Value::Text(s), Type::BPCHAR) => s.trim_end_matches(' ').to_string(),
        (Value::Text(s), _) => s.clone(),
        _ => io::to_text(v, from, ctx),
    }
}

fn convert(v: Value, from: Type, to: Type, typmod: i32, ctx: &FormatCtx) -> PgResult<Value> {
    if from == to || to == Type::ANY || to == Type::ANYELEMENT || to == Type::ANYARRAY {
        return Ok(v);
    }
    // regtype values may be held by name (pg_typeof); resolve to the OID first.
    let v = match (from, v) {
        (Type::REGTYPE, Value::Text(s)) if !is_string(to) => Value::Oid(io::parse_regtype(&s)?.0),
        // regclass values are held by name too; only catalog relations have OIDs.
        (Type::REGCLASS, Value::Text(s)) if !is_string(to) => match s.trim() {
            "-" => Value::Oid(0),
            n => Value::Oid(io::regclass_oid(n).ok_or_else(|| {
                PgError::new(
                    code::UNDEFINED_TABLE,
                    format!("relation \"{n}\" does not exist"),
                )
            })?),
        },
        // A regrole held by name: a role made by CREATE ROLE, whose OID only the catalog knows
        // (the planner folds or looks these up first, `plan/regrole.rs`).
        (Type::REGROLE, Value::Text(s)) if !is_string(to) => Value::Oid(
            crate::sql::catalog::fixed::role_oid(s.trim()).ok_or_else(|| {
                PgError::new(
                    code::UNDEFINED_OBJECT,
                    format!("role \"{}\" does not exist", s.trim()),
                )
            })?,
        ),
        (_, v) => v,
    };
    if let (true, Value::Text(s)) = (matches!(to, Type::JSON | Type::JSONB), &v) {
        if from.is_hstore() {
            return Ok(Value::Text(super::hstore::cast_to_json(
                s,
                to == Type::JSONB,
            )?));
        }
    }
    if let Some(r) = super::geo::cast(&v, from, to) {
        return Ok(r);
    }
    // citext to another type: as text (its value as written); to citext: converted to text,
    // then held as citext.
    if from.is_citext() {
        let v = match v {
            Value::CiText(s) => Value::Text(s),
            v => v,
        };
        return convert(v, Type::TEXT, to, typmod, ctx);
    }
    if to.is_citext() {
        return Ok(match convert(v, from, Type::TEXT, -1, ctx)? {
            Value::Text(s) | Value::CiText(s) => Value::CiText(s),
            other => other,
        });
    }
    if let (true, Value::Array(a)) = (from == Type::TEXT_ARRAY && to.is_hstore(), &v) {
        let p = super::hstore::from_text_array(a)?;
        return Ok(Value::Text(super::hstore::to_text(&p)));
    }
    if let (true, Value::Record(fields)) = (from == Type::RECORD && to.is_composite(), &v) {
        return record_to_composite(fields, to, ctx);
    }
    if to == Type::RECORD && from.is_composite() {
        return Ok(v);
    }
    if let Value::Range(r) = &v {
        if to.is_multirange() {
            let m = super::multirange::make(vec![(**r).clone()])?;
            return Ok(Value::Multirange(Box::new(m)));
        }
    }
    // Arrays: element by element.
    if let Some(te) = to.elem() {
        if let Value::Array(a) = v {
            let fe = from.elem().unwrap_or(a.elem);
            let Array { dims, items, .. } = *a;
            let mut out = Vec::with_capacity(items.len());
            for it in items {
                out.push(if it.is_null() {
                    Value::Null
                } else {
                    convert(it, fe, te, typmod, ctx)?
                });
            }
            return Ok(Value::Array(Box::new(Array {
                elem: te,
                dims,
                items: out,
            })));
        }
    }
    if from == Type::UNKNOWN || (is_string(from) && !is_string(to)) {
        let s = match &v {
            Value::Text(s) => s.as_str(),
            _ => return convert_io(v, from, to, typmod, ctx),
        };
        return match to {
            Type::REGCLASS => Ok(Value::Text(s.to_string())),
            _ => io::from_text(s, to, -1, ctx),
        };
    }
    if is_string(to) {
        // inet/cidr → text, varchar, bpchar go through text(inet), which always shows the mask.
        let s = match &v {
            Value::Inet(i) if matches!(to, Type::TEXT | Type::VARCHAR | Type::BPCHAR) => {
                super::network::show(i)
            }
            _ => text_for_cast(&v, from, ctx),
        };
        return Ok(Value::Text(match to {
            Type::NAME => io::truncate_bytes(&s, 63).to_string(),
            Type::CHAR => {
                if let Value::Int4(i) = v {
                    // int4 → "char": the byte with that value.
                    let b = i as u8;
                    if b == 0 {
                        String::new()
                    } else {
                        (b as char).to_string()
                    }
                } else {
                    s.chars().next().map(String::from).unwrap_or_default()
                }
            }
            _ => s,
        }));
    }
    let r = match (&v, to) {
        // Integers.
        (Value::Int2(_) | Value::Int4(_) | Value::Int8(_), _) if !is_reg(from) => {
            let i = v.as_i64().unwrap();
            match to {
                Type::INT2 | Type::INT4 | Type::INT8 => int_range(i, to)?,
                Type::FLOAT4 => Value::Float4(i as f32),
                Type::FLOAT8 => Value::Float8(i as f64),
                Type::NUMERIC => Value::Numeric(Box::new(Numeric::from_i64(i))),
                Type::BOOL => Value::Bool(i != 0),
                Type::OID
                | Type::REGTYPE
                | Type::REGCLASS
                | Type::REGPROC
                | Type::REGNAMESPACE
                | Type::REGROLE
                | Type::REGPROCEDURE => {
                    if from == Type::INT8 && !(0..=u32::MAX as i64).contains(&i) {
                        return Err(PgError::out_of_range("OID"));
                    }
                    Value::Oid(i as u32)
                }
                _ => return convert_io(v, from, to, typmod, ctx),
            }
        }
        (Value::Float4(f), _) => {
            let f = *f as f64;
            match to {
                Type::INT2 | Type::INT4 | Type::INT8 => float_to_int(f, to)?,
                Type::FLOAT8 => Value::Float8(f),
                Type::NUMERIC => Value::Numeric(Box::new(Numeric::from_f32(f as f32))),
                _ => return convert_io(v, from, to, typmod, ctx),
            }
        }
        (Value::Float8(f), _) => match to {
            Type::INT2 | Type::INT4 | Type::INT8 => float_to_int(*f, to)?,
            Type::FLOAT4 => Value::Float4(f64_to_f32(*f)?),
            Type::NUMERIC => Value::Numeric(Box::new(Numeric::from_f64(*f))),
            _ => return convert_io(v, from, to, typmod, ctx),
        },
        (Value::Numeric(n), _) => match to {
            Type::INT2 | Type::INT4 | Type::INT8 => numeric_to_int(n, to)?,
            Type::FLOAT8 => Value::Float8(n.to_f64()),
            Type::FLOAT4 => {
                let f = n.to_f64();
                if f.is_finite() && (f as f32).is_infinite() {
                    return Err(PgError::new(
                        code::NUMERIC_VALUE_OUT_OF_RANGE,
                        format!("\"{n}\" is out of range for type real"),
                    ));
                }
                Value::Float4(f as f32)
            }
            _ => return convert_io(v, from, to, typmod, ctx),
        },
        (Value::Bool(b), Type::INT4) => Value::Int4(*b as i32),
        (Value::Oid(o), _) => match to {
            Type::INT4 => Value::Int4(*o as i32),
            Type::INT8 => Value::Int8(*o as i64),
            Type::OID
            | Type::REGTYPE
            | Type::REGCLASS
            | Type::REGPROC
            | Type::REGNAMESPACE
            | Type::REGROLE
            | Type::REGPROCEDURE => Value::Oid(*o),
            _ => return convert_io(v, from, to, typmod, ctx),
        },
        (Value::Int4(i), _) if is_reg(from) => match to {
            Type::INT8 => Value::Int8(*i as u32 as i64),
            Type::INT4 => Value::Int4(*i),
            _ => Value::Oid(*i as u32),
        },
        // Date/time.
        (Value::Date(d), Type::TIMESTAMP) => Value::Timestamp(dt::date_to_ts(*d)?),
        (Value::Date(d), Type::TIMESTAMPTZ) => {
            let local = dt::date_to_ts(*d)?;
            Value::TimestampTz(dt::local_to_tstz(local, &ctx.time_zone))
        }
        (Value::Timestamp(t), Type::TIMESTAMPTZ) => {
            Value::TimestampTz(dt::local_to_tstz(*t, &ctx.time_zone))
        }
        (Value::Timestamp(t), Type::DATE) => Value::Date(dt::ts_to_date(*t)),
        (Value::Timestamp(t), Type::TIME) => {
            if !dt::is_finite_ts(*t) {
                return Err(dt::ts_out_of_range());
            }
            Value::Time(t.rem_euclid(dt::USECS_PER_DAY))
        }
        (Value::TimestampTz(t), Type::TIMESTAMP) => {
            Value::Timestamp(dt::tstz_to_local(*t, &ctx.time_zone))
        }
        (Value::TimestampTz(t), Type::DATE) => {
            Value::Date(dt::ts_to_date(dt::tstz_to_local(*t, &ctx.time_zone)))
        }
        (Value::TimestampTz(t), Type::TIME) => {
            if !dt::is_finite_ts(*t) {
                return Err(dt::ts_out_of_range());
            }
            Value::Time(dt::tstz_to_local(*t, &ctx.time_zone).rem_euclid(dt::USECS_PER_DAY))
        }
        (Value::Time(t), Type::INTERVAL) => Value::Interval(Interval {
            months: 0,
            days: 0,
            micros: *t,
        }),
        (Value::Interval(iv), Type::TIME) => Value::Time(iv.micros.rem_euclid(dt::USECS_PER_DAY)),
        // time → timetz takes the session zone's offset today.
        (Value::Time(t), Type::TIMETZ) => {
            let today = dt::tstz_to_local(dt::now_timestamptz(), &ctx.time_zone)
                .div_euclid(dt::USECS_PER_DAY);
            let off = dt::local_offset(&ctx.time_zone, today * dt::USECS_PER_DAY + *t);
            Value::TimeTz(*t, -off)
        }
        (Value::TimeTz(t, _), Type::TIME) => Value::Time(*t),
        (Value::TimestampTz(t), Type::TIMETZ) => {
            // PostgreSQL returns NULL for infinite timestamps here.
            if !dt::is_finite_ts(*t) {
                return Ok(Value::Null);
            }
            let off = dt::utc_offset_at(&ctx.time_zone, *t);
            let local = *t + off as i64 * dt::USECS_PER_SEC;
            Value::TimeTz(local.rem_euclid(dt::USECS_PER_DAY), -off)
        }
        (Value::Inet(i), Type::CIDR) => Value::Inet(i.network()),
        (Value::Inet(i), Type::INET) => Value::Inet(*i),
        // JSON.
        (Value::Text(s), Type::JSON | Type::JSONB) => io::from_text(s, to, -1, ctx)?,
        (Value::Text(s), _) if from == Type::JSONB => {
            let t = s.trim();
            match to {
                Type::BOOL => match t {
                    "true" => Value::Bool(true),
                    "false" => Value::Bool(false),
                    _ => return Err(jsonb_cast_error(t, "boolean")),
                },
                Type::NUMERIC
                | Type::INT2
                | Type::INT4
                | Type::INT8
                | Type::FLOAT4
                | Type::FLOAT8 => {
                    let n = Numeric::parse(t).map_err(|_| jsonb_cast_error(t, &to.name()))?;
                    convert(Value::Numeric(Box::new(n)), Type::NUMERIC, to, typmod, ctx)?
                }
                _ => return convert_io(v, from, to, typmod, ctx),
            }
        }
        _ => return convert_io(v, from, to, typmod, ctx),
    };
    Ok(r)
}

fn jsonb_cast_error(t: &str, target: &str) -> PgError {
    let kind = match t.chars().next() {
        Some('"') => "string",
        Some('{') => "object",
        Some('[') => "array",
        Some('t') | Some('f') => "boolean",
        Some('n') => "null",
        _ => "numeric",
    };
    PgError::new(
        code::INVALID_PARAMETER_VALUE,
        format!("cannot cast jsonb {kind} to type {target}"),
    )
}

/// Conversion through the text form (PostgreSQL's CoerceViaIO), when a cast path exists.
fn convert_io(v: Value, from: Type, to: Type, typmod: i32, ctx: &FormatCtx) -> PgResult<Value> {
    if cast_context(from, to).is_none() && !(from == Type::RECORD && is_string(to)) {
        return Err(cannot_cast(from, to));
    }
    let s = text_for_cast(&v, from, ctx);
    if is_string(to) {
        return Ok(Value::Text(s));
    }
    io::from_text(&s, to, typmod, ctx)
}

fn count_chars_over(s: &str, max: usize) -> Option<usize> {
    // Byte index where the (max+1)-th character starts, if any.
    s.char_indices().nth(max).map(|(i, _)| i)
}

/// Applies a type modifier to a value already of type `ty`. `explicit` selects truncation
/// instead of an error for too-long strings.
pub fn apply_typmod(v: Value, ty: Type, typmod: i32, explicit: bool) -> PgResult<Value> {
    if typmod < 0 || v.is_null() {
        return Ok(v);
    }
    if let Some(elem) = ty.elem() {
        return match v {
            Value::Array(a) => {
                let Array { dims, items, .. } = *a;
                let mut out = Vec::with_capacity(items.len());
                for it in items {
                    out.push(apply_typmod(it, elem, typmod, explicit)?);
                }
                Ok(Value::Array(Box::new(Array {
                    elem,
                    dims,
                    items: out,
                })))
            }
            other => Ok(other),
        };
    }
    match (ty, v) {
        (Type::VARCHAR, Value::Text(s)) => {
            let max = (typmod - 4).max(0) as usize;
            match count_chars_over(&s, max) {
                None => Ok(Value::Text(s)),
                Some(cut) => {
                    if explicit || s[cut..].bytes().all(|c| c == b' ') {
                        Ok(Value::Text(s[..cut].to_string()))
                    } else {
                        Err(PgError::new(
                            code::STRING_DATA_RIGHT_TRUNCATION,
                            format!("value too long for type character varying({max})"),
                        ))
                    }
                }
            }
        }
        (Type::BPCHAR, Value::Text(s)) => {
            let len = (typmod - 4).max(0) as usize;
            match count_chars_over(&s, len) {
                None => {
                    let n = s.chars().count();
                    let mut s = s;
                    // One allocation for the padding (a char(84) filler is mostly spaces),
                    // written a slice at a time rather than a char at a time.
                    const SPACES: &str = "                                ";
                    let mut pad = len.saturating_sub(n);
                    s.reserve_exact(pad);
                    while pad > 0 {
                        let k = pad.min(SPACES.len());
                        s.push_str(&SPACES[..k]);
                        pad -= k;
                    }
                    Ok(Value::Text(s))
                }
                Some(cut) => {
                    if explicit || s[cut..].bytes().all(|c| c == b' ') {
                        Ok(Value::Text(s[..cut].to_string()))
                    } else {
                        Err(PgError::new(
                            code::STRING_DATA_RIGHT_TRUNCATION,
                            format!("value too long for type character({len})"),
                        ))
                    }
                }
            }
        }
        (Type::NUMERIC, Value::Numeric(n)) => Ok(Value::Numeric(Box::new(n.apply_typmod(typmod)?))),
        (Type::TIMESTAMP, Value::Timestamp(t)) => Ok(Value::Timestamp(round_usecs(t, typmod)?)),
        (Type::TIMESTAMPTZ, Value::TimestampTz(t)) => {
            Ok(Value::TimestampTz(round_usecs(t, typmod)?))
        }
        (Type::TIME, Value::Time(t)) => Ok(Value::Time(round_usecs(t, typmod)?)),
        (Type::TIMETZ, Value::TimeTz(t, z)) => Ok(Value::TimeTz(round_usecs(t, typmod)?, z)),
        (Type::INTERVAL, Value::Interval(mut iv)) => {
            let prec = typmod & 0xffff;
            if prec != 0xffff {
                iv.micros = round_usecs(iv.micros, prec)?;
            }
            Ok(Value::Interval(iv))
        }
        (_, v) => Ok(v),
    }
}

/// Rounds microseconds to `prec` fractional digits (half away from zero).
fn round_usecs(t: i64, prec: i32) -> PgResult<i64> {
    if !(0..6).contains(&prec) || t == i64::MIN || t == i64::MAX {
        return Ok(t);
    }
    let scale = 10i64.pow(6 - prec as u32);
    let half = scale / 2;
    Ok(if t >= 0 {
        (t + half) / scale * scale
    } else {
        -((-t + half) / scale * scale)
    })
}

/// Whether a type has a modifier input function (pg_type.typmodin): only these accept
/// modifiers in a type name; the list matches `typmod_of`'s cases.
pub fn takes_typmod(ty: Type) -> bool {
    matches!(
        ty.elem().unwrap_or(ty),
        Type::VARCHAR
            | Type::BPCHAR
            | Type::NUMERIC
            | Type::TIMESTAMP
            | Type::TIMESTAMPTZ
            | Type::TIME
            | Type::TIMETZ
            | Type::INTERVAL
    )
}

/// Builds the stored type modifier from the modifiers written in SQL: `varchar(10)` → 14,
/// `numeric(10,2)` → ((10 << 16) | 2) + 4, `timestamp(3)` → 3, `interval(2)` → full range
/// with precision 2. No modifiers gives -1.
pub fn typmod_of(ty: Type, args: &[i32]) -> PgResult<i32> {
    if args.is_empty() {
        return Ok(-1);
    }
    let invalid = |m: String| PgError::new(code::INVALID_PARAMETER_VALUE, m);
    let ty = ty.elem().unwrap_or(ty);
    match ty {
        Type::VARCHAR | Type::BPCHAR => {
            let tn = if ty == Type::VARCHAR {
                "varchar"
            } else {
                "char"
            };
            if args.len() != 1 {
                return Err(invalid("invalid type modifier".into()));
            }
            let n = args[0];
            if n < 1 {
                return Err(invalid(format!("length for type {tn} must be at least 1")));
            }
            if n > 10_485_760 {
                return Err(invalid(format!(
                    "length for type {tn} cannot exceed 10485760"
                )));
            }
            Ok(n + 4)
        }
        Type::NUMERIC => {
            if args.len() > 2 {
                return Err(invalid("invalid NUMERIC type modifier".into()));
            }
            let p = args[0];
            let s = args.get(1).copied().unwrap_or(0);
            if !(1..=1000).contains(&p) {
                return Err(invalid(format!(
                    "NUMERIC precision {p} must be between 1 and 1000"
                )));
            }
            if !(-1000..=1000).contains(&s) {
                return Err(invalid(format!(
                    "NUMERIC scale {s} must be between -1000 and 1000"
                )));
            }
            Ok(((p << 16) | (s & 0x7ff)) + 4)
        }
        Type::TIMESTAMP | Type::TIMESTAMPTZ | Type::TIME | Type::TIMETZ => {
            let name = if matches!(ty, Type::TIME | Type::TIMETZ) {
                "TIME"
            } else {
                "TIMESTAMP"
            };
            let suffix = if matches!(ty, Type::TIMESTAMPTZ | Type::TIMETZ) {
                " WITH TIME ZONE"
            } else {
                ""
            };
            if args.len() != 1 {
                return Err(invalid("invalid type modifier".into()));
            }
            let p = args[0];
            if p < 0 {
                return Err(invalid(format!(
                    "{name}({p}){suffix} precision must not be negative"
                )));
            }
            Ok(p.min(6))
        }
        Type::INTERVAL => {
            let p = args[args.len() - 1];
            if p < 0 {
                return Err(invalid(format!(
                    "INTERVAL({p}) precision must not be negative"
                )));
            }
            Ok((0x7fff << 16) | p.min(6))
        }
        _ => Err(PgError::new(
            code::SYNTAX_ERROR,
            format!("type modifier is not allowed for type \"{}\"", ty.typname()),
        )),
    }
}

/// PostgreSQL's `format_type(oid, typmod)`: `character varying(10)`, `numeric(10,2)`,
/// `timestamp(3) without time zone`, `bpchar` for char without a length, arrays with `[]`.
pub fn format_type_with_typmod(ty: Type, typmod: i32) -> String {
    if let Some(e) = ty.elem() {
        return format!("{}[]", format_type_with_typmod(e, typmod));
    }
    if typmod < 0 {
        return match ty {
            Type::BPCHAR => "bpchar".to_string(),
            _ => ty.name(),
        };
    }
    match ty {
        Type::VARCHAR => format!("character varying({})", typmod - 4),
        Type::BPCHAR => format!("character({})", typmod - 4),
        Type::NUMERIC => {
            let t = typmod - 4;
            let p = (t >> 16) & 0xffff;
            let mut s = t & 0x7ff;
            if s & 0x400 != 0 {
                s -= 0x800;
            }
            format!("numeric({p},{s})")
        }
        Type::TIMESTAMP => format!("timestamp({typmod}) without time zone"),
        Type::TIMESTAMPTZ => format!("timestamp({typmod}) with time zone"),
        Type::TIME => format!("time({typmod}) without time zone"),
        Type::TIMETZ => format!("time({typmod}) with time zone"),
        Type::INTERVAL => {
            let p = typmod & 0xffff;
            if p == 0xffff {
                "interval".to_string()
            } else {
                format!("interval({p})")
            }
        }
        _ => ty.name(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c() -> FormatCtx {
        FormatCtx::default()
    }

    fn t(s: &str) -> Value {
        Value::Text(s.to_string())
    }

    #[test]
    fn contexts() {
        assert!(can_coerce(Type::INT2, Type::INT8, Implicit));
        assert!(can_coerce(Type::INT4, Type::NUMERIC, Implicit));
        assert!(can_coerce(Type::NUMERIC, Type::FLOAT8, Implicit));
        assert!(!can_coerce(Type::FLOAT8, Type::INT4, Implicit));
        assert!(can_coerce(Type::FLOAT8, Type::INT4, Assignment));
        assert!(can_coerce(Type::INT4, Type::TEXT, Assignment));
        assert!(!can_coerce(Type::INT4, Type::TEXT, Implicit));
        assert!(can_coerce(Type::TEXT, Type::INT4, Explicit));
        assert!(!can_coerce(Type::TEXT, Type::INT4, Assignment));
        assert!(can_coerce(Type::UNKNOWN, Type::DATE, Implicit));
        assert!(can_coerce(Type::INT4_ARRAY, Type::INT8_ARRAY, Implicit));
        assert!(can_coerce(Type::DATE, Type::TIMESTAMPTZ, Implicit));
        assert!(!can_coerce(Type::BOOL, Type::INT4, Assignment));
        assert!(can_coerce(Type::BOOL, Type::INT4, Explicit));
        assert!(!can_coerce(Type::DATE, Type::INT4, Explicit));
    }

    #[test]
    fn strings() {
        let vc = typmod_of(Type::VARCHAR, &[2]).unwrap();
        assert_eq!(vc, 6);
        let e = cast(t("abc"), Type::TEXT, Type::VARCHAR, vc, &c()).unwrap_err();
        assert_eq!(e.message, "value too long for type character varying(2)");
        assert_eq!(e.code, "22001");
        assert_eq!(
            cast_explicit(t("abc"), Type::TEXT, Type::VARCHAR, vc, &c()).unwrap(),
            t("ab")
        );
        assert_eq!(
            cast(t("ab   "), Type::TEXT, Type::VARCHAR, vc, &c()).unwrap(),
            t("ab")
        );
        let bp = typmod_of(Type::BPCHAR, &[4]).unwrap();
        assert_eq!(
            cast(t("ab"), Type::TEXT, Type::BPCHAR, bp, &c()).unwrap(),
            t("ab  ")
        );
        assert_eq!(
            cast(t("ab  "), Type::BPCHAR, Type::TEXT, -1, &c()).unwrap(),
            t("ab")
        );
        assert_eq!(
            cast(Value::Bool(true), Type::BOOL, Type::TEXT, -1, &c()).unwrap(),
            t("true")
        );
        assert_eq!(
            cast_explicit(Value::Int4(65), Type::INT4, Type::CHAR, -1, &c()).unwrap(),
            t("A")
        );
    }

    #[test]
    fn numbers() {
        let e = cast(Value::Int4(70000), Type::INT4, Type::INT2, -1, &c()).unwrap_err();
        assert_eq!(e.message, "smallint out of range");
        assert_eq!(
            cast(Value::Float8(2.5), Type::FLOAT8, Type::INT4, -1, &c()).unwrap(),
            Value::Int4(2)
        );
        assert_eq!(
            cast(Value::Float8(3.5), Type::FLOAT8, Type::INT4, -1, &c()).unwrap(),
            Value::Int4(4)
        );
        assert!(cast(Value::Float8(f64::NAN), Type::FLOAT8, Type::INT4, -1, &c()).is_err());
        let e = cast(Value::Float8(1e300), Type::FLOAT8, Type::FLOAT4, -1, &c()).unwrap_err();
        assert_eq!(e.message, "value out of range: overflow");
        let n = cast(
            t("1.5"),
            Type::TEXT,
            Type::NUMERIC,
            typmod_of(Type::NUMERIC, &[3, 0]).unwrap(),
            &c(),
        )
        .unwrap();
        assert_eq!(io::to_text(&n, Type::NUMERIC, &c()), "2");
        let e = cast(Value::Int8(10_000_000_000), Type::INT8, Type::OID, -1, &c()).unwrap_err();
        assert_eq!(e.message, "OID out of range");
        assert_eq!(
            cast(Value::Int4(-1), Type::INT4, Type::OID, -1, &c()).unwrap(),
            Value::Oid(u32::MAX)
        );
        let a = io::from_text("{1.5,2.5}", Type::FLOAT8_ARRAY, -1, &c()).unwrap();
        let b = cast(a, Type::FLOAT8_ARRAY, Type::INT4_ARRAY, -1, &c()).unwrap();
        assert_eq!(io::to_text(&b, Type::INT4_ARRAY, &c()), "{2,2}");
    }

    #[test]
    fn typmods() {
        assert_eq!(typmod_of(Type::NUMERIC, &[10, 2]).unwrap(), 655366);
        assert_eq!(
            format_type_with_typmod(Type::NUMERIC, 655366),
            "numeric(10,2)"
        );
        assert_eq!(
            format_type_with_typmod(Type::VARCHAR, 14),
            "character varying(10)"
        );
        assert_eq!(
            format_type_with_typmod(Type::VARCHAR_ARRAY, 14),
            "character varying(10)[]"
        );
        assert_eq!(
            format_type_with_typmod(Type::TIMESTAMP, 3),
            "timestamp(3) without time zone"
        );
        assert_eq!(
            format_type_with_typmod(Type::INTERVAL, 2147418114),
            "interval(2)"
        );
        assert_eq!(format_type_with_typmod(Type::BPCHAR, -1), "bpchar");
        assert_eq!(
            typmod_of(Type::VARCHAR, &[0]).unwrap_err().message,
            "length for type varchar must be at least 1"
        );
        assert_eq!(
            typmod_of(Type::NUMERIC, &[1001]).unwrap_err().message,
            "NUMERIC precision 1001 must be between 1 and 1000"
        );
        let ts = io::from_text("2020-01-02 03:04:05.555555", Type::TIMESTAMP, 2, &c()).unwrap();
        assert_eq!(
            io::to_text(&ts, Type::TIMESTAMP, &c()),
            "2020-01-02 03:04:05.56"
        );
    }
}
