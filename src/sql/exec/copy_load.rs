//! COPY FROM's direct load: rows packed straight from their text fields.
//!
//! A bulk load usually goes into a table with nothing to check per row but its NOT NULL
//! columns: no index yet (pgbench and pg_dump add the keys after the data), no CHECK, no
//! foreign key, and no default to evaluate (every column is in the data, or defaults to NULL).
//! For such a table the INSERT operator's work per row is mostly overhead: a vector of
//! `Value`s, a `String` per text field, `character(n)` padding that storage strips again
//! (`packed::TEXT_SPACES`), the checks, then packing. [`DirectLoad`] converts each field and
//! packs it at once into a buffer reused from row to row, and inserts the packed row with
//! `engine::insert_packed`, the heap insertion INSERT ends in. `pgbench -i`'s 1M rows of
//! accounts go in at about twice the rate.
//!
//! It decides no outcome of its own: a line it cannot take as it is (a field that does not
//! convert, a NULL in a NOT NULL column, a value longer than its column allows, which may be
//! an error or trailing spaces to cut) goes through the INSERT operator like every row of a
//! table that does not qualify, so the row stored, or the error and its context, are the
//! ones the operator gives. The caller inserts that row before packing the next line, so rows
//! are stored in the order of the data whichever path they take.
//!
//! The conversion is a [`RowConv`] of its own, which another thread can run: a big copy's
//! lines are converted and packed on a helper thread (`session::copy_in::pipe`) into a
//! [`Batch`] while the session inserts the batch before.
//!
//! Bounds: one row's packed bytes are held (the buffer shrinks back after a row over 64 KiB);
//! a batch holds the rows of the lines it is given.

use std::borrow::Cow;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;

use crate::catalog::{ConstraintKind, RelKind};
use crate::error::{PgError, PgResult};
use crate::memory::MemoryLimit;
use crate::sql::context::SessionCtx;
use crate::sql::engine::{self, PackedRow, Rel, RowPacker};
use crate::sql::plan::modify::CopyFrom;
use crate::sql::types::{io, FormatCtx, Type, Value};
use crate::txn::{Cid, TxnCell};

/// How a column's text becomes its stored value.
#[derive(Clone)]
enum Conv {
    /// Stored as given (text, and varchar / bpchar without a length).
    Text,
    /// `character varying(n)`: as given when at most n characters.
    VarChar(usize),
    /// `character(n)`: padded to n characters when at most n.
    BpChar(usize),
    /// smallint, integer, bigint: their input function without the dispatch on the type.
    Int(Type),
    /// Any other type: its input function.
    Input(Type, i32),
}

/// A table column in the packed row.
#[derive(Clone)]
struct Column {
    /// The data's field for it; None: NULL (a dropped column, or one the data leaves out and
    /// whose default is NULL).
    field: Option<usize>,
    conv: Conv,
    not_null: bool,
}

/// Converts a line's fields into a packed row of the table (any thread may run one).
#[derive(Clone)]
pub struct RowConv {
    columns: Arc<[Column]>,
    /// Fields a line has.
    fields: usize,
    packer: RowPacker,
}

/// Rows packed by a [`RowConv`], to insert in order.
pub type Batch = Vec<PackedRow>;

impl RowConv {
    /// Packs a line's fields (None: NULL). False when the line must go through the INSERT
    /// operator instead (see the module documentation).
    pub fn pack(&mut self, fields: &[Option<Cow<'_, str>>], fmt: &FormatCtx) -> bool {
        if fields.len() != self.fields {
            return false;
        }
        self.packer.clear();
        for c in self.columns.iter() {
            let Some(Some(s)) = c.field.map(|f| &fields[f]) else {
                if c.not_null {
                    return false;
                }
                self.packer.push(&Value::Null);
                continue;
            };
            match c.conv {
                Conv::Text => self.packer.push_text(s, 0),
                Conv::VarChar(max) => {
                    if s.len() > max && s.chars().count() > max {
                        return false;
                    }
                    self.packer.push_text(s, 0);
                }
                Conv::BpChar(len) => {
                    let n = if s.is_ascii() {
                        s.len()
                    } else {
                        s.chars().count()
                    };
                    if n > len {
                        return false;
                    }
                    self.packer.push_text(s, len - n);
                }
                Conv::Int(ty) => {
                    let v = match ty {
                        Type::INT2 => io::parse_int(s, i16::MIN.into(), i16::MAX.into(), "")
                            .map(|v| Value::Int2(v as i16)),
                        Type::INT4 => io::parse_int(s, i32::MIN.into(), i32::MAX.into(), "")
                            .map(|v| Value::Int4(v as i32)),
                        _ => io::parse_int(s, i64::MIN, i64::MAX, "").map(Value::Int8),
                    };
                    // An error is the INSERT operator's to report.
                    match v {
                        Ok(v) => self.packer.push(&v),
                        Err(_) => return false,
                    }
                }
                Conv::Input(ty, typmod) => match io::from_text(s, ty, typmod, fmt) {
                    Ok(v) => self.packer.push(&v),
                    Err(_) => return false,
                },
            }
        }
        true
    }

    /// The row [`pack`](Self::pack) packed last.
    pub fn row(&self) -> PackedRow {
        self.packer.finish()
    }
}

/// The transaction's cell and command, and the server's memory bound.
struct Writer {
    cell: crate::sync::Arc<TxnCell>,
    cid: Cid,
    memory: Arc<MemoryLimit>,
}

/// A COPY FROM into a table that needs no per-row work but conversion (see the module
/// documentation).
pub struct DirectLoad {
    rel: Arc<Rel>,
    conv: RowConv,
    /// What the rows are written as, asked of the session once ([`begin`](Self::begin)).
    writer: Option<Writer>,
    /// Rows inserted.
    written: u64,
    /// Rows inserted and not yet added to the table's counters (added when the load ends,
    /// whichever way: the rows are garbage for vacuum to find if it failed).
    uncounted: u64,
}

impl DirectLoad {
    /// The direct load of `t`, when its table qualifies.
    pub fn new(t: &CopyFrom) -> Option<DirectLoad> {
        let rel = &t.rel;
        let plain = rel.kind == RelKind::Table
            && rel.data.view.is_none()
            && rel.indexes.is_empty()
            && t.checks.is_empty()
            && t.generated.is_empty()
            && t.domains.is_empty()
            && t.triggers.is_none()
            && !rel
                .constraints
                .iter()
                .any(|c| matches!(c.kind, ConstraintKind::ForeignKey { .. }));
        if !plain {
            return None;
        }
        let mut columns = Vec::with_capacity(rel.columns.len());
        for (i, cd) in rel.columns.iter().enumerate() {
            let field = t.columns.iter().position(|&c| c == i);
            if field.is_none() && t.defaults.get(i).is_some_and(Option::is_some) {
                return None;
            }
            let ty = Type(cd.type_oid);
            let len = (cd.typmod - 4).max(0) as usize;
            let conv = match ty {
                Type::TEXT => Conv::Text,
                Type::VARCHAR | Type::BPCHAR if cd.typmod < 0 => Conv::Text,
                Type::VARCHAR => Conv::VarChar(len),
                Type::BPCHAR => Conv::BpChar(len),
                Type::INT2 | Type::INT4 | Type::INT8 => Conv::Int(ty),
                _ => Conv::Input(ty, cd.typmod),
            };
            columns.push(Column {
                field,
                conv,
                not_null: cd.not_null && !cd.dropped,
            });
        }
        Some(DirectLoad {
            rel: rel.clone(),
            conv: RowConv {
                columns: columns.into(),
                fields: t.columns.len(),
                packer: RowPacker::default(),
            },
            writer: None,
            written: 0,
            uncounted: 0,
        })
    }

    /// The conversion, for another thread to pack rows with.
    pub fn conv(&self) -> RowConv {
        self.conv.clone()
    }

    /// Packs a line's fields (see [`RowConv::pack`]).
    pub fn pack(&mut self, fields: &[Option<Cow<'_, str>>], fmt: &FormatCtx) -> bool {
        self.conv.pack(fields, fmt)
    }

    /// Takes what the rows are written as, before the first insert: the transaction's writer
    /// (its first write gives the transaction its cell), then, as the INSERT operator, the
    /// snapshot that names it (a REPEATABLE READ transaction's snapshot is taken by its first
    /// statement). Only the first call asks the session.
    pub fn begin(&mut self, cx: &mut dyn SessionCtx) -> PgResult<()> {
        if self.writer.is_none() {
            let (cell, cid) = cx.writer("INSERT")?;
            cx.snapshot()?;
            let memory = cx.instance().memory.clone();
            self.writer = Some(Writer { cell, cid, memory });
        }
        Ok(())
    }

    /// Inserts the row [`pack`](Self::pack) packed last, within the server's memory bound
    /// (53200 past it, the row not inserted).
    pub fn insert(&mut self) -> PgResult<()> {
        let row = self.conv.row();
        self.insert_row(row)
    }

    /// Inserts a batch's rows in order (the batch is left empty); on an error, the index of
    /// the row it was raised for (the rows before it are inserted).
    pub fn insert_batch(&mut self, batch: &mut Batch) -> Result<(), (usize, PgError)> {
        for (i, row) in batch.drain(..).enumerate() {
            self.insert_row(row).map_err(|e| (i, e))?;
        }
        Ok(())
    }

    fn insert_row(&mut self, row: PackedRow) -> PgResult<()> {
        let Some(w) = self.writer.as_ref() else {
            return Err(PgError::internal("a direct load inserted before it began"));
        };
        w.memory.check(self.written)?;
        engine::insert_packed(&self.rel, row, &w.cell, w.cid).map_err(engine::write_failed)?;
        self.written += 1;
        self.uncounted += 1;
        Ok(())
    }
}

impl Drop for DirectLoad {
    /// Adds the rows to the table's counters (background vacuum, statistics), once.
    fn drop(&mut self) {
        if self.uncounted > 0 {
            let data = &self.rel.data;
            data.changes.fetch_add(self.uncounted, Relaxed);
            data.mod_since_analyze.fetch_add(self.uncounted, Relaxed);
            data.stats.inserted.fetch_add(self.uncounted, Relaxed);
        }
    }
}
