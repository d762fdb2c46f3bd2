//! COPY ... FROM STDIN: the copy-in sub-protocol.
//!
//! The statement answers CopyInResponse and the session enters copy-in mode: CopyData
//! messages are split into lines, each line into fields (text format: tab-separated with
//! backslash escapes and `\N` for NULL; CSV: quoted fields), and every [`BATCH`] rows are
//! inserted through the same `Modify` operator INSERT uses (so NOT NULL, CHECK and unique
//! indexes are checked the same way). CopyDone finishes with `COPY n`; CopyFail fails the
//! statement (57014). An error ends the statement at once, and the rest of the copy data is
//! discarded until CopyDone or CopyFail, as PostgreSQL does; in a simple Query the statements
//! after the COPY then run (or are skipped after an error) and ReadyForQuery follows.
//!
//! Binary format (`FORMAT binary`, what pgx's CopyFrom and psycopg's binary copy send):
//! PostgreSQL's file layout — the `PGCOPY\n\xff\r\n\0` signature, flags and a header
//! extension, then per row a 16-bit field count and per field a 32-bit length (-1: NULL) and
//! the value in the type's binary send format, ended by a field count of -1. A row may span
//! CopyData messages: the bytes of an unfinished row are held like an unfinished line.
//!
//! Bounds: an unfinished line is held until its newline arrives, at most the maximum message
//! size per CopyData plus one line; rows are inserted every [`BATCH`] rows, so memory does not
//! grow with the size of the copy. CSV fields with quoted newlines are not supported yet (the
//! row fails to parse with 22P04).
//!
//! Errors carry PostgreSQL's COPY context (`COPY t, line N...`, see [`context`]): the line
//! being read, or for an error raised while a batch is inserted, the line of the row it was
//! raised for (the `Feed` counts the rows it hands to the INSERT operator).

mod context;
mod pipe;

use std::borrow::Cow;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use super::txn::TxState;
use super::Session;
use crate::error::{code, PgError, PgResult};
use crate::sql::exec::copy_load::DirectLoad;
use crate::sql::parser::Parsed;
use crate::sql::plan::modify::CopyFrom;
use crate::sql::types::{cast, io, Type, Value};
use crate::sql::{CopyFormat, CopyOptions};
use crate::wire::backend as be;

/// Rows inserted at a time.
pub const BATCH: usize = 1000;

/// A COPY FROM STDIN in progress.
pub(super) struct CopyIn {
    target: Box<CopyFrom>,
    options: CopyOptions,
    /// Bytes of an unfinished line.
    partial: Vec<u8>,
    /// Parsed rows not inserted yet (full table rows; the left-out columns are filled with
    /// their defaults when the batch is inserted).
    rows: Vec<Vec<Value>>,
    /// A text or CSV copy into a table that qualifies: its rows are packed straight from
    /// their fields (`exec::copy_load`), and a line it does not take is inserted through the
    /// INSERT operator at once, keeping the rows in the data's order.
    direct: Option<DirectLoad>,
    /// The fields of a line, kept empty between lines (its allocation is reused).
    fields: Vec<Option<Cow<'static, str>>>,
    /// A direct load's data is read in chunks of whole lines ([`pipe`]): the chunk being
    /// gathered, a spare buffer for the next, and the helper thread converting the chunk
    /// before.
    pending: Vec<u8>,
    spare: Vec<u8>,
    pipe: Option<pipe::Pipe>,
    /// Rows inserted so far.
    count: u64,
    /// Lines seen (for the header and error context).
    line: u64,
    /// The line number and text of the rows in `rows` (for the context of an error raised
    /// while they are inserted).
    batch: context::BatchLines,
    /// Rows of the batch being inserted that the INSERT operator has read.
    handed: Arc<AtomicUsize>,
    /// The statement failed: the rest of the data is discarded.
    failed: bool,
    /// The end-of-data marker `\.` was seen (binary: the trailer).
    ended: bool,
    /// Binary format: the file header was read.
    header_done: bool,
    /// A simple Query: its text and the index of the statement after the COPY.
    pub(super) resume: Option<(Arc<Parsed>, usize)>,
}

impl CopyIn {
    pub(super) fn new(target: Box<CopyFrom>, options: CopyOptions) -> CopyIn {
        let direct = (options.format != CopyFormat::Binary)
            .then(|| DirectLoad::new(&target))
            .flatten();
        CopyIn {
            target,
            options,
            partial: Vec::new(),
            direct,
            fields: Vec::new(),
            pending: Vec::new(),
            spare: Vec::new(),
            pipe: None,
            rows: Vec::new(),
            count: 0,
            line: 0,
            batch: Default::default(),
            handed: Default::default(),
            failed: false,
            ended: false,
            header_done: false,
            resume: None,
        }
    }
}

fn bad_copy(msg: impl Into<String>) -> PgError {
    PgError::new(code::BAD_COPY_FILE_FORMAT, msg)
}

/// An empty vector of fields borrowing from another line, in the same allocation (once per
/// line: an in-place collect did the same at a few percent of a bulk load's time).
fn recycle<'b>(mut v: Vec<Option<Cow<'_, str>>>) -> Vec<Option<Cow<'b, str>>> {
    v.clear();
    let mut v = std::mem::ManuallyDrop::new(v);
    // SAFETY: the vector is empty and its element type differs from the new one only in a
    // lifetime (same size and alignment), so its allocation is a valid empty vector of either.
    unsafe { Vec::from_raw_parts(v.as_mut_ptr().cast(), 0, v.capacity()) }
}

/// Splits a text-format line into fields (None: NULL), undoing backslash escapes. A field
/// without a backslash is borrowed from the line (no copy: most fields of most files).
fn text_fields<'a>(line: &'a str, o: &CopyOptions, out: &mut Vec<Option<Cow<'a, str>>>) {
    out.clear();
    let delim = o.delimiter.chars().next().unwrap_or('\t');
    let mut push = |raw: &'a str, escaped: bool| {
        if raw == o.null {
            out.push(None);
        } else if !escaped {
            out.push(Some(Cow::Borrowed(raw)));
        } else {
            out.push(Some(Cow::Owned(unescape(raw))));
        }
    };
    if delim.is_ascii() {
        // An ASCII byte never occurs inside a multibyte character: split on bytes, noting
        // backslashes on the way (one pass; lines are short, where memchr's setup costs).
        let (d, bytes) = (delim as u8, line.as_bytes());
        let (mut start, mut escaped) = (0, false);
        for (i, &b) in bytes.iter().enumerate() {
            if b == d {
                push(&line[start..i], escaped);
                (start, escaped) = (i + 1, false);
            } else if b == b'\\' {
                escaped = true;
            }
        }
        push(&line[start..], escaped);
    } else {
        line.split(delim).for_each(|f| push(f, f.contains('\\')));
    }
}

/// A text-format field with its backslash escapes undone.
fn unescape(raw: &str) -> String {
    let mut s = String::with_capacity(raw.len());
    let mut it = raw.chars().peekable();
    while let Some(c) = it.next() {
        if c != '\\' {
            s.push(c);
            continue;
        }
        match it.next() {
            Some('t') => s.push('\t'),
            Some('n') => s.push('\n'),
            Some('r') => s.push('\r'),
            Some('b') => s.push('\u{8}'),
            Some('f') => s.push('\u{c}'),
            Some('v') => s.push('\u{b}'),
            Some(d @ '0'..='7') => {
                let mut v = d.to_digit(8).unwrap_or(0);
                for _ in 0..2 {
                    match it.peek().and_then(|c| c.to_digit(8)) {
                        Some(x) => {
                            v = v * 8 + x;
                            it.next();
                        }
                        None => break,
                    }
                }
                s.push(char::from_u32(v).unwrap_or('\u{fffd}'));
            }
            Some('x') => {
                let mut v = 0;
                let mut n = 0;
                while n < 2 {
                    match it.peek().and_then(|c| c.to_digit(16)) {
                        Some(x) => {
                            v = v * 16 + x;
                            it.next();
                            n += 1;
                        }
                        None => break,
                    }
                }
                if n == 0 {
                    s.push('x');
                } else {
                    s.push(char::from_u32(v).unwrap_or('\u{fffd}'));
                }
            }
            Some(other) => s.push(other),
            None => {}
        }
    }
    s
}

/// Splits a CSV line into fields: quoted fields may contain the delimiter and doubled quotes;
/// an unquoted field equal to the NULL string is NULL.
fn csv_fields(line: &str, o: &CopyOptions) -> PgResult<Vec<Option<String>>> {
    let delim = o.delimiter.chars().next().unwrap_or(',');
    let mut out = Vec::new();
    let mut chars = line.chars().peekable();
    loop {
        let mut s = String::new();
        let mut quoted = false;
        if chars.peek() == Some(&o.quote) {
            quoted = true;
            chars.next();
            loop {
                match chars.next() {
                    Some(c)
                        if c == o.escape
                            && chars.peek() == Some(&o.quote)
                            && o.escape != o.quote =>
                    {
                        s.push(chars.next().expect("peeked"));
                    }
                    Some(c) if c == o.quote => {
                        if chars.peek() == Some(&o.quote) && o.escape == o.quote {
                            s.push(chars.next().expect("peeked"));
                        } else {
                            break;
                        }
                    }
                    Some(c) => s.push(c),
                    None => return Err(bad_copy("unterminated CSV quoted field")),
                }
            }
        }
        while let Some(&c) = chars.peek() {
            if c == delim {
                break;
            }
            s.push(c);
            chars.next();
        }
        out.push(if !quoted && s == o.null {
            None
        } else {
            Some(s)
        });
        if chars.next().is_none() {
            break;
        }
    }
    Ok(out)
}

impl Session {
    /// Starts COPY FROM STDIN: CopyInResponse, then copy-in mode.
    pub(super) fn start_copy_in(&mut self, target: &CopyFrom, options: &CopyOptions) {
        be::copy_in_response(
            &mut self.out,
            options.format == CopyFormat::Binary,
            target.columns.len(),
        );
        self.copy_in = Some(Box::new(CopyIn::new(
            Box::new(target.clone()),
            options.clone(),
        )));
    }

    /// One CopyData message.
    pub(super) fn copy_data(&mut self, data: &[u8]) {
        let Some(mut c) = self.copy_in.take() else {
            return;
        };
        if !c.failed && !c.ended {
            // Most messages of a text copy start at a line's start (libpq sends what the
            // client gave it, usually whole lines): their lines are read in place.
            let r = if c.direct.is_some() {
                self.copy_chunked(&mut c, data)
            } else if c.partial.is_empty() && c.options.format != CopyFormat::Binary {
                self.copy_text(&mut c, data, false)
            } else {
                c.partial.extend_from_slice(data);
                self.copy_lines(&mut c, false)
            };
            if let Err(e) = r {
                c.failed = true;
                self.report_error(e);
            }
        }
        self.copy_in = Some(c);
    }

    /// A direct load's data: gathered into chunks of whole lines, each converted by the
    /// helper thread but the first (see [`pipe`]).
    fn copy_chunked(&mut self, c: &mut CopyIn, data: &[u8]) -> PgResult<()> {
        c.pending.extend_from_slice(data);
        // A big message makes several chunks, so that each wait for the helper stays short;
        // `start`: the bytes of `pending` already handed on.
        let mut start = 0;
        let mut r = Ok(());
        while c.pending.len() - start >= pipe::CHUNK && !c.ended && r.is_ok() {
            // Whole lines, up to 2 * CHUNK bytes unless one line is longer.
            let avail = &c.pending[start..];
            let head = &avail[..avail.len().min(2 * pipe::CHUNK)];
            let end = match memchr::memrchr(b'\n', head) {
                Some(nl) => nl + 1,
                None => match memchr::memchr(b'\n', &avail[head.len()..]) {
                    Some(nl) => head.len() + nl + 1,
                    // A line longer than CHUNK waits for its end.
                    None => break,
                },
            };
            let mut chunk = std::mem::take(&mut c.spare);
            chunk.clear();
            if start == 0 && avail.len() - end <= end {
                // The usual message: the few bytes after the cut move, not the chunk.
                chunk.extend_from_slice(&avail[end..]);
                c.pending.truncate(end);
                std::mem::swap(&mut chunk, &mut c.pending);
            } else {
                chunk.extend_from_slice(&avail[..end]);
                start += end;
            }
            r = self.copy_chunk(c, chunk);
        }
        c.pending.drain(..start);
        r
    }

    /// Loads a chunk of whole lines: hands it to the helper (the first chunk is read here),
    /// and inserts the chunk the helper had.
    fn copy_chunk(&mut self, c: &mut CopyIn, chunk: Vec<u8>) -> PgResult<()> {
        // The chunk before comes back; this one goes to the helper at once, to be converted
        // while the session inserts the rows of the one before.
        let before = match c.pipe.as_mut() {
            Some(p) => p.wait()?,
            None => None,
        };
        if c.pipe.is_none() && c.line > 0 {
            if let Some(d) = &c.direct {
                let format = pipe::LineFormat {
                    options: c.options.clone(),
                    client: self.core.settings.client,
                    fmt: self.core.settings.fmt.clone(),
                };
                c.pipe = pipe::Pipe::start(format, d.conv(), &self.core.instance.copy_helpers);
            }
        }
        let chunk = match c.pipe.as_mut() {
            // The first chunk (a header line, perhaps), or no helper to be had.
            None => Some(chunk),
            Some(p) => p.send(chunk).err(),
        };
        if let Some(done) = before {
            self.copy_done(c, done)?;
        }
        if let Some(chunk) = chunk {
            if !c.ended {
                let r = self.copy_text(c, &chunk, false);
                c.spare = chunk;
                return r;
            }
        }
        Ok(())
    }

    /// A chunk back from the helper: its rows inserted, then the rest of it read here.
    fn copy_done(&mut self, c: &mut CopyIn, mut done: pipe::Done) -> PgResult<()> {
        let rel = &c.target.rel.name.name;
        let Some(d) = c.direct.as_mut() else {
            return Err(PgError::internal("a COPY chunk came back without its load"));
        };
        d.begin(&mut self.core)
            .map_err(|e| context::line(e, rel, c.line + 1))?;
        if let Err((i, e)) = d.insert_batch(&mut done.batch) {
            return Err(context::line(e, rel, c.line + 1 + i as u64));
        }
        c.line += done.lines;
        c.count += done.lines;
        let r = match done.buf.get(done.consumed..) {
            Some(rest) if !rest.is_empty() => self.copy_text(c, rest, false),
            _ => Ok(()),
        };
        c.spare = done.buf;
        r
    }

    /// The end of a direct load's data: the helper's chunk, then the rest gathered.
    fn copy_chunked_end(&mut self, c: &mut CopyIn) -> PgResult<()> {
        let before = match c.pipe.take() {
            Some(mut p) => p.wait()?,
            None => None,
        };
        // Converted past the end marker: dropped.
        if let Some(done) = before.filter(|_| !c.ended) {
            self.copy_done(c, done)?;
        }
        if c.ended {
            return Ok(());
        }
        let rest = std::mem::take(&mut c.pending);
        self.copy_text(c, &rest, true)
    }

    /// Parses the complete lines held, and inserts whenever a batch is full.
    fn copy_lines(&mut self, c: &mut CopyIn, last: bool) -> PgResult<()> {
        if c.options.format == CopyFormat::Binary {
            return self.copy_binary(c, last);
        }
        let buf = std::mem::take(&mut c.partial);
        self.copy_text(c, &buf, last)
    }

    /// Parses the complete lines of `buf` (held bytes, or a message), keeping the rest of an
    /// unfinished line, and inserts whenever a batch is full.
    fn copy_text(&mut self, c: &mut CopyIn, buf: &[u8], last: bool) -> PgResult<()> {
        let mut start = 0;
        while let Some(nl) = memchr::memchr(b'\n', &buf[start..]) {
            let end = start + nl;
            // With its newline, which a conversion error lists after a partial character.
            self.copy_line(c, &buf[start..=end])?;
            start = end + 1;
            if c.ended {
                return Ok(());
            }
        }
        if last && start < buf.len() {
            self.copy_line(c, &buf[start..])?;
        } else {
            c.partial = buf[start..].to_vec();
        }
        if c.rows.len() >= BATCH || (last && !c.rows.is_empty()) {
            self.copy_flush(c)?;
        }
        Ok(())
    }

    fn copy_line(&mut self, c: &mut CopyIn, bytes: &[u8]) -> PgResult<()> {
        c.line += 1;
        let rel = &c.target.rel.name.name;
        let text = super::encoding::text_in(self.core.settings.client, bytes)
            .map_err(|e| context::line(e, rel, c.line))?;
        let line = text.strip_suffix('\n').unwrap_or(&text);
        let line = line.strip_suffix('\r').unwrap_or(line);
        if c.line == 1 && c.options.header {
            return Ok(());
        }
        if line == "\\." {
            c.ended = true;
            return Ok(());
        }
        let mut fields = recycle(std::mem::take(&mut c.fields));
        match c.options.format {
            CopyFormat::Csv => fields.extend(
                csv_fields(line, &c.options)
                    .map_err(|e| context::line_text(e, rel, c.line, line))?
                    .into_iter()
                    .map(|f| f.map(Cow::Owned)),
            ),
            _ => text_fields(line, &c.options, &mut fields),
        }
        let t = &c.target;
        if fields.len() > t.columns.len() {
            let e = bad_copy("extra data after last expected column");
            return Err(context::line_text(e, rel, c.line, line));
        }
        if let Some(d) = c.direct.as_mut() {
            if d.pack(&fields, &self.core.settings.fmt) {
                c.fields = recycle(fields);
                d.begin(&mut self.core)
                    .and_then(|()| d.insert())
                    .map_err(|e| context::line(e, rel, c.line))?;
                c.count += 1;
                return Ok(());
            }
        }
        let mut row = vec![Value::Null; t.rel.columns.len()];
        for (i, &col) in t.columns.iter().enumerate() {
            let cd = &t.rel.columns[col];
            // As PostgreSQL, the fields there are are converted before a missing one is
            // reported (an empty line: its one empty field fails to convert first).
            let Some(f) = fields.get(i) else {
                let e = bad_copy(format!("missing data for column \"{}\"", cd.name));
                return Err(context::line_text(e, rel, c.line, line));
            };
            if let Some(text) = f {
                row[col] =
                    io::from_text(text, Type(cd.type_oid), cd.typmod, &self.core.settings.fmt)
                        .map_err(|e| {
                            context::column(e, rel, c.line, &cd.name, Some(text), false)
                        })?;
            }
            // A domain's constraints, checked as its input function checks them (the
            // insert checks them again).
            if let Some((_, d)) = t.domains.iter().find(|(k, _)| *k == col) {
                let mut ecx = crate::sql::exec::EvalCx {
                    params: &[],
                    outer: Vec::new(),
                    session: &mut self.core,
                };
                crate::sql::exec::check_domain(d, &row[col], &mut ecx)
                    .map_err(|e| context::column(e, rel, c.line, &cd.name, f.as_deref(), false))?;
            }
        }
        if c.rows.is_empty() {
            c.batch.first = c.line;
        }
        c.fields = recycle(fields);
        c.rows.push(row);
        c.batch.push(line);
        // Beside a direct load, at once: the rows stay in the data's order.
        if c.rows.len() >= BATCH || c.direct.is_some() {
            self.copy_flush(c)?;
        }
        Ok(())
    }

    /// Parses the whole binary rows held (see the module comment), inserting by batches.
    fn copy_binary(&mut self, c: &mut CopyIn, last: bool) -> PgResult<()> {
        const SIGNATURE: &[u8] = b"PGCOPY\n\xff\r\n\0";
        let buf = std::mem::take(&mut c.partial);
        let mut at = 0;
        let be_i32 = |b: &[u8]| i32::from_be_bytes([b[0], b[1], b[2], b[3]]);
        if !c.header_done {
            if buf.len() < SIGNATURE.len() + 8 {
                if last {
                    return Err(bad_copy("COPY file signature not recognized"));
                }
                c.partial = buf;
                return Ok(());
            }
            if &buf[..SIGNATURE.len()] != SIGNATURE {
                return Err(bad_copy("COPY file signature not recognized"));
            }
            at = SIGNATURE.len();
            let flags = be_i32(&buf[at..]);
            if flags & (1 << 16) != 0 {
                return Err(bad_copy("invalid COPY file header (WITH OIDS)"));
            }
            // Bits 17..31 are critical flags no version defines.
            if (flags as u32) >> 17 != 0 {
                return Err(bad_copy("unrecognized critical flags in COPY file header"));
            }
            let ext = be_i32(&buf[at + 4..]);
            if ext < 0 {
                return Err(bad_copy("invalid COPY file header (missing length)"));
            }
            if buf.len() < at + 8 + ext as usize {
                if last {
                    return Err(bad_copy("invalid COPY file header (wrong length)"));
                }
                c.partial = buf;
                return Ok(());
            }
            at += 8 + ext as usize;
            c.header_done = true;
        }
        let t = c.target.clone();
        // A whole row at a time; an unfinished one waits for more data.
        while let Some(head) = buf.get(at..at + 2) {
            let count = i16::from_be_bytes([head[0], head[1]]);
            if count == -1 {
                c.ended = true;
                at = buf.len();
                break;
            }
            let mut end = at + 2;
            let mut fields: Vec<Option<(usize, usize)>> = Vec::with_capacity(count.max(0) as usize);
            let mut whole = true;
            for _ in 0..count.max(0) {
                let Some(len) = buf.get(end..end + 4) else {
                    whole = false;
                    break;
                };
                let len = be_i32(len);
                end += 4;
                if len == -1 {
                    fields.push(None);
                    continue;
                }
                if len < 0 {
                    let e = bad_copy("invalid field size");
                    let rel = &t.rel.name.name;
                    return Err(match t.columns.get(fields.len()) {
                        Some(&col) => {
                            let name = &t.rel.columns[col].name;
                            context::column(e, rel, c.line + 1, name, None, true)
                        }
                        None => context::line(e, rel, c.line + 1),
                    });
                }
                if buf.len() < end + len as usize {
                    whole = false;
                    break;
                }
                fields.push(Some((end, end + len as usize)));
                end += len as usize;
            }
            if !whole {
                break;
            }
            c.line += 1;
            if count as usize != t.columns.len() {
                let e = bad_copy(format!(
                    "row field count is {count}, expected {}",
                    t.columns.len()
                ));
                return Err(context::line(e, &t.rel.name.name, c.line));
            }
            let mut row = vec![Value::Null; t.rel.columns.len()];
            for (f, &col) in fields.into_iter().zip(&t.columns) {
                let cd = &t.rel.columns[col];
                row[col] = match f {
                    None => Value::Null,
                    Some((s, e)) => {
                        let ty = Type(cd.type_oid);
                        let client = self.core.settings.client;
                        super::encoding::binary_param(client, &buf[s..e], ty)
                            .and_then(|v| io::from_binary(&v, ty))
                            // As PostgreSQL's receive functions, with the column's typmod
                            // (character(n) padded or too long, numeric scale ...).
                            .and_then(|v| cast::apply_typmod(v, ty, cd.typmod, false))
                            .map_err(|e| {
                                context::column(e, &t.rel.name.name, c.line, &cd.name, None, true)
                            })?
                    }
                };
            }
            if c.rows.is_empty() {
                c.batch.first = c.line;
            }
            c.rows.push(row);
            at = end;
            if c.rows.len() >= BATCH {
                self.copy_flush(c)?;
            }
        }
        if last && at < buf.len() && !c.ended {
            let e = bad_copy("unexpected EOF in COPY data");
            return Err(context::line(e, &t.rel.name.name, c.line + 1));
        }
        c.partial = buf[at..].to_vec();
        if last && !c.rows.is_empty() {
            self.copy_flush(c)?;
        }
        Ok(())
    }

    /// Inserts the parsed rows through the INSERT operator.
    fn copy_flush(&mut self, c: &mut CopyIn) -> PgResult<()> {
        let rows = std::mem::take(&mut c.rows);
        c.handed.store(0, Ordering::Relaxed);
        let plan = c.target.insert_plan(rows, c.handed.clone());
        let (_, error) = self.core.run_query_partial(&plan, &[]);
        if let Some(e) = error {
            // The row the error was raised for is the last one the operator read.
            let row = c.handed.load(Ordering::Relaxed).saturating_sub(1);
            return Err(c.batch.error(e, &c.target.rel.name.name, row));
        }
        c.batch.clear();
        c.count += self.core.last_affected.unwrap_or(0);
        Ok(())
    }

    /// CopyDone (`Ok`) or CopyFail (`Err(message)`): finishes the statement and, for a simple
    /// Query, runs the statements after it.
    pub(super) fn copy_end(&mut self, fail: Option<&str>) {
        let Some(mut c) = self.copy_in.take() else {
            return;
        };
        if !c.failed {
            let r = match fail {
                // The context names the line PostgreSQL was reading.
                Some(m) => Err(context::line(
                    PgError::new(code::QUERY_CANCELED, format!("COPY from stdin failed: {m}")),
                    &c.target.rel.name.name,
                    c.line + 1,
                )),
                None if c.direct.is_some() => self.copy_chunked_end(&mut c),
                None => self.copy_lines(&mut c, true),
            };
            self.flush_notices();
            match r {
                Ok(()) => be::command_complete(&mut self.out, &format!("COPY {}", c.count)),
                Err(e) => {
                    c.failed = true;
                    self.report_error(e);
                }
            }
        }
        match c.resume {
            Some((parsed, next)) => {
                if c.failed {
                    if self.core.tx == TxState::Implicit {
                        self.core.abort();
                    }
                    self.ready();
                } else {
                    self.simple_from(parsed, next);
                }
            }
            // Extended protocol: an error skips to Sync, as after any failed Execute.
            None => {
                if c.failed {
                    self.skip_until_sync = true;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(csv: bool) -> CopyOptions {
        CopyOptions {
            format: if csv {
                CopyFormat::Csv
            } else {
                CopyFormat::Text
            },
            header: false,
            delimiter: if csv { ",".into() } else { "\t".into() },
            null: if csv { String::new() } else { "\\N".into() },
            quote: '"',
            escape: '"',
            force_quote_all: false,
            force_quote: Vec::new(),
        }
    }

    #[test]
    fn text_fields_undo_escapes_and_nulls() {
        let mut f = Vec::new();
        text_fields("1\ta\\tb\\\\c\t\\N\t\\101\\x41", &opts(false), &mut f);
        assert!(
            matches!(f[0], Some(Cow::Borrowed(_))),
            "no copy without a backslash"
        );
        let f: Vec<Option<String>> = f.into_iter().map(|x| x.map(Cow::into_owned)).collect();
        assert_eq!(
            f,
            vec![
                Some("1".into()),
                Some("a\tb\\c".into()),
                None,
                Some("AA".into())
            ]
        );
    }

    #[test]
    fn recycled_fields_keep_their_allocation() {
        let line = String::from("1\t2\t3");
        let mut f = Vec::with_capacity(8);
        text_fields(&line, &opts(false), &mut f);
        let cap = f.capacity();
        let kept: Vec<Option<Cow<'static, str>>> = recycle(f);
        assert!(kept.is_empty());
        assert_eq!(kept.capacity(), cap);
    }

    #[test]
    fn csv_fields_handle_quotes() {
        let f = csv_fields("1,\"a,b\",,\"say \"\"hi\"\"\",\"\"", &opts(true)).unwrap();
        assert_eq!(
            f,
            vec![
                Some("1".into()),
                Some("a,b".into()),
                None,
                Some("say \"hi\"".into()),
                Some("".into())
            ]
        );
    }
}
