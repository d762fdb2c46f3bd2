//! The CONTEXT of a COPY FROM error, as PostgreSQL 15's error context callback for COPY FROM
//! (copyfrom.c) writes it: the table's name (unqualified, unquoted) and the input line, with
//!
//! * `line N, column c: "value"` while a field is converted (`column c` alone in binary
//!   format, which never shows data);
//! * `line N: "line text"` while the line is valid: extra or missing data, a default that
//!   fails, NOT NULL and CHECK violations (PostgreSQL checks those per row, before the row
//!   goes to its multi-insert buffer);
//! * the bare `line N` where PostgreSQL's line buffer does not hold the row: a unique
//!   violation (found when the buffer of rows is flushed), a byte sequence invalid in the
//!   encoding (found while the line is read), CopyFail (the line being read).
//!
//! Foreign-key violations have none: PostgreSQL checks them after the COPY, outside it.
//! Data shown is cut to 100 bytes (at a character boundary) followed by `...`.
//!
//! Threadgres checks constraints when a batch of rows is inserted, so the text of the batch's
//! lines is kept until then ([`BatchLines`]): one buffer and one offset per row, reused from
//! batch to batch (no allocation per row), at most a batch's lines.

use std::borrow::Cow;

use crate::error::{code, PgError};

/// The most bytes of data an error context shows (PostgreSQL's MAX_COPY_DATA_DISPLAY).
const MAX_DISPLAY: usize = 100;

/// `s` cut to [`MAX_DISPLAY`] bytes at a character boundary, with `...` when cut.
fn limit(s: &str) -> Cow<'_, str> {
    if s.len() <= MAX_DISPLAY {
        return Cow::Borrowed(s);
    }
    let mut n = MAX_DISPLAY;
    while !s.is_char_boundary(n) {
        n -= 1;
    }
    Cow::Owned(format!("{}...", &s[..n]))
}

/// `COPY t, line N`.
pub(super) fn line(e: PgError, rel: &str, line: u64) -> PgError {
    e.with_context(format!("COPY {rel}, line {line}"))
}

/// `COPY t, line N: "text"`.
pub(super) fn line_text(e: PgError, rel: &str, line: u64, text: &str) -> PgError {
    e.with_context(format!("COPY {rel}, line {line}: \"{}\"", limit(text)))
}

/// `COPY t, line N, column c: "value"` (text formats; `null input` for a NULL), or
/// `COPY t, line N, column c` (binary: `value` None and `binary` set).
pub(super) fn column(
    e: PgError,
    rel: &str,
    line: u64,
    col: &str,
    value: Option<&str>,
    binary: bool,
) -> PgError {
    let ctx = match (binary, value) {
        (true, _) => format!("COPY {rel}, line {line}, column {col}"),
        (false, Some(v)) => format!("COPY {rel}, line {line}, column {col}: \"{}\"", limit(v)),
        (false, None) => format!("COPY {rel}, line {line}, column {col}: null input"),
    };
    e.with_context(ctx)
}

/// The lines of the rows parsed but not inserted yet (see the module comment).
#[derive(Default)]
pub(super) struct BatchLines {
    /// The line number of the batch's first row (rows are consecutive lines).
    pub(super) first: u64,
    /// The rows' line texts, one after another (text and CSV formats; empty for binary).
    text: String,
    /// Where each row's text ends in `text`.
    ends: Vec<usize>,
}

impl BatchLines {
    /// Keeps the text of the row just added.
    pub(super) fn push(&mut self, line: &str) {
        self.text.push_str(line);
        self.ends.push(self.text.len());
    }

    /// Forgets the batch's lines (keeping the buffers' capacity).
    pub(super) fn clear(&mut self) {
        self.text.clear();
        self.ends.clear();
    }

    fn get(&self, row: usize) -> Option<&str> {
        let end = *self.ends.get(row)?;
        let start = if row == 0 { 0 } else { self.ends[row - 1] };
        self.text.get(start..end)
    }

    /// The context of an error raised while the batch's row `row` (0-based) was inserted.
    pub(super) fn error(&self, e: PgError, rel: &str, row: usize) -> PgError {
        let n = self.first + row as u64;
        match e.code {
            code::FOREIGN_KEY_VIOLATION => e,
            // Found by the index insertion, after PostgreSQL's buffer flush.
            code::UNIQUE_VIOLATION => line(e, rel, n),
            _ => match self.get(row) {
                Some(text) => line_text(e, rel, n, text),
                None => line(e, rel, n),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limit_cuts_at_a_character_boundary() {
        assert_eq!(limit("abc"), "abc");
        let s = format!("1234567{}", "ü".repeat(80));
        let cut = limit(&s);
        assert_eq!(cut.len(), 7 + 46 * 2 + 3);
        assert!(cut.ends_with("ü..."));
        assert_eq!(limit(&"x".repeat(101)), format!("{}...", "x".repeat(100)));
    }

    #[test]
    fn batch_rows_are_found_by_index() {
        let mut b = BatchLines {
            first: 7,
            ..Default::default()
        };
        b.push("a\tb");
        b.push("");
        b.push("c");
        let e = || PgError::new(code::CHECK_VIOLATION, "x");
        assert_eq!(
            b.error(e(), "t", 2).context.as_deref(),
            Some("COPY t, line 9: \"c\"")
        );
        assert_eq!(
            b.error(e(), "t", 1).context.as_deref(),
            Some("COPY t, line 8: \"\"")
        );
        let u = PgError::new(code::UNIQUE_VIOLATION, "x");
        assert_eq!(
            b.error(u, "t", 0).context.as_deref(),
            Some("COPY t, line 7")
        );
        b.clear();
        assert_eq!(
            b.error(e(), "t", 0).context.as_deref(),
            Some("COPY t, line 7")
        );
    }
}
