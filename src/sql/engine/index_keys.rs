//! The keys of indexes over expressions or with a predicate (partial indexes).
//!
//! A plain index's key is some of the row's columns; an expression index's key must be
//! evaluated, and a partial index holds only the rows its predicate accepts. Evaluation belongs
//! to the executor, which sits above this door, so the engine asks through [`KeyExprs`]: the
//! SQL layer registers one compiler ([`register_compiler`]) that binds an index's stored texts
//! over the table's columns, and each table's data caches what it made per index OID (an
//! index's definition never changes; a rewrite of the table makes new data and a new cache).
//!
//! Every place the engine needs a key — the unique check, the entries of an insert or a
//! non-HOT update, the conflict check of ON CONFLICT, a build, vacuum's removal of entries —
//! goes through [`key_of`], so a row is in a partial index exactly when its predicate holds.
//!
//! # Bounds
//!
//! One compiled entry per expression index of a table, dropped with the table's data.

use std::sync::OnceLock;

use super::{Key, Rel, TableData};
use crate::catalog::{ColumnDef, IndexDef, Oid};
use crate::error::{PgError, PgResult};
use crate::sql::types::Value;
use crate::sync::Arc;

/// An expression or partial index's key, computed from a row.
pub trait KeyExprs: Send + Sync {
    /// The key of `row`, or None when the row is not in the index (the predicate is not true).
    fn key(&self, row: &[Value]) -> PgResult<Option<Key>>;
}

/// Binds an index's expressions and predicate over a table's columns.
pub type Compiler = fn(&[ColumnDef], &IndexDef) -> PgResult<Arc<dyn KeyExprs>>;

static COMPILER: OnceLock<Compiler> = OnceLock::new();

/// Sets the compiler of index expressions (the SQL layer's; the first one registered stays).
pub fn register_compiler(c: Compiler) {
    let _ = COMPILER.set(c);
}

impl TableData {
    /// The compiled key of expression or partial index `def` over a table of `columns`, made
    /// on first use.
    fn key_exprs(&self, columns: &[ColumnDef], def: &IndexDef) -> PgResult<Arc<dyn KeyExprs>> {
        if let Some((_, k)) = self.key_exprs.read().iter().find(|(o, _)| *o == def.oid) {
            return Ok(k.clone());
        }
        let compile = COMPILER.get().ok_or_else(|| {
            PgError::internal("index expressions cannot be evaluated: no compiler registered")
        })?;
        let k = compile(columns, def)?;
        let mut cache = self.key_exprs.write();
        if let Some((_, k)) = cache.iter().find(|(o, _)| *o == def.oid) {
            return Ok(k.clone());
        }
        cache.push((def.oid, k.clone()));
        Ok(k)
    }

    /// Forgets the compiled key of index `oid` (DROP INDEX).
    pub(super) fn forget_key_exprs(&self, oid: Oid) {
        self.key_exprs.write().retain(|(o, _)| *o != oid);
    }
}

/// The key of `row` in index `def` of `rel`; None when a partial index does not hold the row.
pub fn key_of(rel: &Rel, def: &IndexDef, row: &[Value]) -> PgResult<Option<Key>> {
    rel.data.key_in(&rel.columns, def, row)
}

impl TableData {
    /// [`key_of`] for this table's data, whose columns are `columns`.
    pub(super) fn key_in(
        &self,
        columns: &[ColumnDef],
        def: &IndexDef,
        row: &[Value],
    ) -> PgResult<Option<Key>> {
        match &def.exprs {
            None => Ok(Some(Key::of(row, &def.columns))),
            Some(_) => self.key_exprs(columns, def)?.key(row),
        }
    }
}
