//! Composite values' text and binary forms (PostgreSQL's record_in / record_out /
//! record_recv / record_send).
//!
//! Text: `(f1,f2,...)`, an empty field is NULL, a field with a quote, backslash, parenthesis,
//! comma or space (or an empty string) is written in double quotes with `"` and `\` doubled.
//! Input takes quotes and backslashes anywhere in a field, as PostgreSQL does. Binary: the
//! field count, then per field its type OID, length (-1: NULL) and binary form.
//!
//! The field types come from the composite type (`catalog::types::row_fields`); an anonymous
//! record's fields are printed by their values' own types. Nesting recurses through
//! `from_text` / `write_text` and is bounded by `crate::stack::check` at each level.

use bytes::{BufMut, BytesMut};

use super::{from_text, to_text, value_type};
use crate::catalog::types::{row_fields, RowFields};
use crate::error::{code, PgError, PgResult};
use crate::sql::types::{FormatCtx, Type, Value};

/// The declared type of each field of composite `ty` (None for `record` or a type whose
/// fields are not known here).
fn fields_of(ty: Type) -> Option<std::sync::Arc<RowFields>> {
    if ty == Type::RECORD {
        return None;
    }
    row_fields(ty.0)
}

/// Record output: `(1,"a b",,"")`; each field printed by its declared type when `ty` is a
/// composite type, else by its value's.
pub fn write_record(fields: &[Value], ty: Type, ctx: &FormatCtx, out: &mut String) {
    let declared = fields_of(ty);
    // A value stored before ALTER ... ADD ATTRIBUTE / ADD COLUMN has NULLs for the new fields.
    let width = declared
        .as_ref()
        .map_or(fields.len(), |d| d.fields.len().max(fields.len()));
    out.push('(');
    for i in 0..width {
        let v = fields.get(i).unwrap_or(&Value::Null);
        if i > 0 {
            out.push(',');
        }
        if v.is_null() {
            continue;
        }
        let fty = declared
            .as_ref()
            .and_then(|d| d.fields.get(i))
            .map_or_else(|| value_type(v), |f| Type(f.1));
        let s = to_text(v, fty, ctx);
        let needs = s.is_empty()
            || s.bytes().any(|c| {
                matches!(
                    c,
                    b'"' | b'\\' | b'(' | b')' | b',' | b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c
                )
            });
        if needs {
            out.push('"');
            for c in s.chars() {
                if c == '"' || c == '\\' {
                    out.push(c);
                }
                out.push(c);
            }
            out.push('"');
        } else {
            out.push_str(&s);
        }
    }
    out.push(')');
}

fn malformed(s: &str, detail: &str) -> PgError {
    PgError::new(
        code::INVALID_TEXT_REPRESENTATION,
        format!("malformed record literal: \"{s}\""),
    )
    .with_detail(detail.to_string())
}

/// Record input of composite type `ty` (record_in).
pub fn parse_record(s: &str, ty: Type, ctx: &FormatCtx) -> PgResult<Value> {
    crate::stack::check()?;
    let Some(def) = fields_of(ty) else {
        return Err(PgError::feature_not_supported(
            "input of anonymous composite types is not implemented",
        ));
    };
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() && b[i].is_ascii_whitespace() {
        i += 1;
    }
    if b.get(i) != Some(&b'(') {
        return Err(malformed(s, "Missing left parenthesis."));
    }
    i += 1;
    let mut values = Vec::with_capacity(def.fields.len());
    for (n, (_, fty, typmod)) in def.fields.iter().enumerate() {
        if n > 0 {
            if b.get(i) != Some(&b',') {
                return Err(malformed(s, "Too few columns."));
            }
            i += 1;
        }
        if matches!(b.get(i), Some(b',' | b')')) {
            values.push(Value::Null);
            continue;
        }
        // Bytes, so that a multibyte character passes through whole.
        let mut field: Vec<u8> = Vec::new();
        let mut quoted = false;
        loop {
            let Some(&c) = b.get(i) else {
                return Err(malformed(s, "Unexpected end of input."));
            };
            if !quoted && (c == b',' || c == b')') {
                break;
            }
            i += 1;
            match c {
                b'\\' => {
                    let Some(&next) = b.get(i) else {
                        return Err(malformed(s, "Unexpected end of input."));
                    };
                    field.push(next);
                    i += 1;
                }
                b'"' if !quoted => quoted = true,
                b'"' if b.get(i) == Some(&b'"') => {
                    field.push(b'"');
                    i += 1;
                }
                b'"' => quoted = false,
                _ => field.push(c),
            }
        }
        let text = String::from_utf8(field).map_err(|_| malformed(s, "Invalid UTF-8."))?;
        let (base, base_mod) = Type(*fty).base();
        let typmod = if *typmod >= 0 { *typmod } else { base_mod };
        values.push(from_text(&text, base, typmod, ctx)?);
    }
    if b.get(i) != Some(&b')') {
        return Err(malformed(s, "Too many columns."));
    }
    i += 1;
    while i < b.len() && b[i].is_ascii_whitespace() {
        i += 1;
    }
    if i < b.len() {
        return Err(malformed(s, "Junk after right parenthesis."));
    }
    Ok(Value::Record(values))
}

/// Binary record output: the field count, then each field's type OID, length and data. The
/// declared field types of composite `ty`; an anonymous record's by its values.
pub fn write_record_binary(
    fields: &[Value],
    ty: Type,
    out: &mut BytesMut,
    field: impl Fn(&Value, Type, &mut BytesMut) -> PgResult<()>,
) -> PgResult<()> {
    let declared = fields_of(ty);
    let width = declared
        .as_ref()
        .map_or(fields.len(), |d| d.fields.len().max(fields.len()));
    out.put_i32(width as i32);
    for i in 0..width {
        let f = fields.get(i).unwrap_or(&Value::Null);
        let (oid, t) = match declared.as_ref().and_then(|d| d.fields.get(i)) {
            // The declared OID is sent (a domain's too), the value written as its base type.
            Some(d) => (d.1, Type(d.1).base_type()),
            None => {
                let t = value_type(f);
                (
                    if t == Type::UNKNOWN {
                        Type::TEXT.0
                    } else {
                        t.0
                    },
                    t,
                )
            }
        };
        out.put_u32(oid);
        field(f, t, out)?;
    }
    Ok(())
}

/// The declared types of composite `ty`'s fields for binary input, checked against the count
/// sent (None for `record`: each field is read as the OID it comes with).
pub fn binary_field_types(ty: Type, count: usize) -> PgResult<Option<Vec<Type>>> {
    let Some(def) = fields_of(ty) else {
        return Ok(None);
    };
    if def.fields.len() != count {
        return Err(PgError::new(
            code::DATATYPE_MISMATCH,
            format!(
                "wrong number of columns: {count}, expected {}",
                def.fields.len()
            ),
        ));
    }
    Ok(Some(
        def.fields.iter().map(|f| Type(f.1).base_type()).collect(),
    ))
}
