//! Results on the wire: the one place that writes RowDescription, DataRows in text or binary
//! format, and COPY TO STDOUT's data (text, CSV, binary), plus the format codes Bind and
//! Describe pass around. The statements that produce the rows, and their command tags, are in
//! `protocol.rs` and `utility.rs`.

use std::borrow::Cow;

use bytes::BytesMut;

use super::{encoding, Session};
use crate::encoding::Client;
use crate::error::{code, PgError, PgResult};
use crate::sql;
use crate::sql::exec::Row;
use crate::sql::plan::Column;
use crate::sql::types::{io, FormatCtx, Type, Value};
use crate::wire::backend::{self as be, FieldDescription};
use crate::wire::Format;

/// Result formats as Bind gives them: almost always none, or one for all columns, which are
/// kept without an allocation (Describe, Execute and the statement each take a copy).
pub(super) type Formats = Cow<'static, [Format]>;

pub(super) fn formats_from(f: &[Format]) -> Formats {
    match f {
        [] => Cow::Borrowed(&[]),
        [Format::Text] => Cow::Borrowed(&[Format::Text]),
        [Format::Binary] => Cow::Borrowed(&[Format::Binary]),
        more => Cow::Owned(more.to_vec()),
    }
}

pub(super) fn format_code(f: i16) -> PgResult<Format> {
    match f {
        0 => Ok(Format::Text),
        1 => Ok(Format::Binary),
        other => Err(PgError::new(
            code::INVALID_PARAMETER_VALUE,
            format!("unsupported format code: {other}"),
        )),
    }
}

fn format_of(formats: &[Format], i: usize) -> Format {
    match formats.len() {
        0 => Format::Text,
        1 => formats[0],
        _ => formats.get(i).copied().unwrap_or(Format::Text),
    }
}

/// Whether rows of `columns` sent in `formats` carry a regclass or regrole in binary. A user
/// relation's regclass, and a created role's regrole, is held by name (the types layer has no
/// catalog) and binary sends the OID, so the session resolves those values first
/// ([`resolve_regclass`]).
pub(super) fn binary_regclass(columns: &[Column], formats: &[Format]) -> bool {
    columns.iter().enumerate().any(|(i, c)| {
        matches!(c.ty, Type::REGCLASS | Type::REGROLE) && format_of(formats, i) == Format::Binary
    })
}

/// `row` with its regclass and regrole values held by name replaced by their OIDs.
pub(super) fn resolve_regclass(
    cx: &mut dyn crate::sql::context::SessionCtx,
    columns: &[Column],
    row: Row,
) -> PgResult<Row> {
    row.into_iter()
        .zip(columns)
        .map(|(v, c)| match (c.ty, &v) {
            (Type::REGCLASS, Value::Text(_)) => {
                sql::func::system::catalog::oid_of_regclass(cx, std::slice::from_ref(&v))
            }
            (Type::REGROLE, Value::Text(_)) => {
                sql::func::system::catalog::oid_of_regrole(cx, std::slice::from_ref(&v))
            }
            _ => Ok(v),
        })
        .collect()
}

/// One DataRow; `text` is scratch space for text-format values; `client` the client's
/// encoding (see `encoding.rs`). On an error nothing of the row is written.
pub(super) fn write_row(
    out: &mut BytesMut,
    fmt: &FormatCtx,
    columns: &[Column],
    formats: &[Format],
    row: &[Value],
    text: &mut String,
    client: Client,
) -> PgResult<()> {
    let at = be::data_row_begin(out, row.len());
    let r = write_values(out, fmt, columns, formats, row, text, client);
    match r {
        Ok(()) => be::data_row_end(out, at),
        // The message's type byte is just before its length.
        Err(_) => out.truncate(at - 1),
    }
    r
}

fn write_values(
    out: &mut BytesMut,
    fmt: &FormatCtx,
    columns: &[Column],
    formats: &[Format],
    row: &[Value],
    text: &mut String,
    client: Client,
) -> PgResult<()> {
    for (i, v) in row.iter().enumerate() {
        if v.is_null() {
            be::data_row_null(out);
            continue;
        }
        let ty = columns[i].ty;
        let vat = be::data_row_value_begin(out);
        match format_of(formats, i) {
            Format::Text => {
                text.clear();
                io::write_text(v, ty, fmt, text);
                encoding::put_text(client, out, text)?;
            }
            Format::Binary => {
                io::write_binary(v, ty, out)?;
                if client.is_some() {
                    encoding::binary_out(client, out, vat + 4, ty)?;
                }
            }
        }
        be::data_row_value_end(out, vat);
    }
    Ok(())
}

impl Session {
    pub(super) fn write_rows(
        &mut self,
        columns: &[Column],
        formats: &[Format],
        rows: &[Row],
    ) -> PgResult<()> {
        let mut text = String::new();
        let regclass = binary_regclass(columns, formats);
        for row in rows {
            let resolved;
            let row = if regclass {
                resolved = resolve_regclass(&mut self.core, columns, row.clone())?;
                &resolved
            } else {
                row
            };
            let (fmt, client) = (&self.core.settings.fmt, self.core.settings.client);
            write_row(&mut self.out, fmt, columns, formats, row, &mut text, client)?;
        }
        Ok(())
    }

    /// CopyOutResponse and the header; the returned state writes the rows ([`CopyOut::row`])
    /// and the end ([`CopyOut::end`]).
    pub(super) fn copy_out_begin(
        &mut self,
        columns: &[Column],
        options: &sql::CopyOptions,
    ) -> PgResult<CopyOut> {
        let client = self.core.settings.client;
        let binary = options.format == sql::CopyFormat::Binary;
        be::copy_out_response(&mut self.out, binary, columns.len());
        // Binary COPY: the header travels with the first row (or the trailer), as
        // PostgreSQL sends it.
        let mut pending = BytesMut::new();
        if binary {
            // PGCOPY signature, flags, header extension length.
            pending.extend_from_slice(b"PGCOPY\n\xff\r\n\0");
            pending.extend_from_slice(&0i32.to_be_bytes());
            pending.extend_from_slice(&0i32.to_be_bytes());
        } else if options.header && options.format == sql::CopyFormat::Csv {
            let names: Vec<String> = columns
                .iter()
                .map(|c| csv_field(&c.name, options, false))
                .collect();
            let header = format!("{}\n", names.join(&options.delimiter));
            be::copy_data(&mut self.out, &encoding::text_out(client, &header)?);
        }
        Ok(CopyOut {
            columns: columns.to_vec(),
            options: options.clone(),
            pending,
            line: String::new(),
        })
    }
}

/// A COPY TO STDOUT in progress: its columns and options, and for binary format the header
/// not yet sent (it goes out with the first row).
pub(super) struct CopyOut {
    columns: Vec<Column>,
    options: sql::CopyOptions,
    pending: BytesMut,
    line: String,
}

impl CopyOut {
    /// One row as CopyData.
    pub(super) fn row(
        &mut self,
        out: &mut BytesMut,
        row: &[crate::sql::types::Value],
        fmt: &FormatCtx,
        client: Client,
    ) -> PgResult<()> {
        let (columns, options) = (&self.columns, &self.options);
        if options.format == sql::CopyFormat::Binary {
            let mut buf = std::mem::take(&mut self.pending);
            buf.extend_from_slice(&(row.len() as i16).to_be_bytes());
            for (i, v) in row.iter().enumerate() {
                if v.is_null() {
                    buf.extend_from_slice(&(-1i32).to_be_bytes());
                    continue;
                }
                let at = buf.len();
                buf.extend_from_slice(&0i32.to_be_bytes());
                io::write_binary(v, columns[i].ty, &mut buf)?;
                encoding::binary_out(client, &mut buf, at + 4, columns[i].ty)?;
                let len = (buf.len() - at - 4) as i32;
                buf[at..at + 4].copy_from_slice(&len.to_be_bytes());
            }
            be::copy_data(out, &buf);
            return Ok(());
        }
        let line = &mut self.line;
        line.clear();
        for (i, v) in row.iter().enumerate() {
            if i > 0 {
                line.push_str(&options.delimiter);
            }
            if v.is_null() {
                line.push_str(&options.null);
                continue;
            }
            let t = io::to_text(v, columns[i].ty, fmt);
            if options.format == sql::CopyFormat::Csv {
                let forced =
                    options.force_quote_all || options.force_quote.contains(&columns[i].name);
                line.push_str(&csv_field(&t, options, forced));
            } else {
                line.push_str(&copy_text_escape(&t));
            }
        }
        line.push('\n');
        be::copy_data(out, &encoding::text_out(client, line)?);
        Ok(())
    }

    /// The binary trailer, then CopyDone.
    pub(super) fn end(&mut self, out: &mut BytesMut) {
        if self.options.format == sql::CopyFormat::Binary {
            self.pending.extend_from_slice(&(-1i16).to_be_bytes());
            be::copy_data(out, &self.pending);
        }
        be::copy_done(out);
    }
}

/// RowDescription, its names in the client's encoding (`client`); a name it cannot carry is
/// the statement's error (22P05), as in PostgreSQL.
pub(super) fn write_row_description(
    out: &mut BytesMut,
    columns: &[Column],
    formats: &[Format],
    client: Client,
) -> PgResult<()> {
    let fields: Vec<FieldDescription> = columns
        .iter()
        .enumerate()
        .map(|(i, c)| FieldDescription {
            name: c.name.clone(),
            table_oid: c.origin.map_or(0, |o| o.0),
            column: c.origin.map_or(0, |o| o.1),
            type_oid: c.ty.0,
            type_size: c.ty.typlen(),
            type_modifier: c.typmod,
            format: format_of(formats, i).code(),
        })
        .collect();
    be::row_description_in(out, &fields, client)
}

/// One CSV field: quoted when forced, empty (to tell it from NULL), or containing the
/// delimiter, the quote, or a line break; quotes and escapes inside are escaped.
fn csv_field(s: &str, o: &sql::CopyOptions, forced: bool) -> String {
    let needs = forced
        || s.is_empty()
        || s.contains(o.delimiter.as_str())
        || s.contains(o.quote)
        || s.contains(['\n', '\r'])
        || s == "\\.";
    if !needs {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len() + 2);
    out.push(o.quote);
    for c in s.chars() {
        if c == o.quote || c == o.escape {
            out.push(o.escape);
        }
        out.push(c);
    }
    out.push(o.quote);
    out
}

fn copy_text_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            other => out.push(other),
        }
    }
    out
}
