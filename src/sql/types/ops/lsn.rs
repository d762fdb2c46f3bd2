//! pg_lsn operators (`types::lsn` holds the type): the distance between two positions, and a
//! position moved by a number of bytes.

use super::{num_of, ADD};
use crate::error::{PgError, PgResult};
use crate::sql::types::{lsn, FormatCtx, Value};

fn lsn_of(v: &Value) -> PgResult<u64> {
    lsn::of(v).ok_or_else(|| PgError::internal("pg_lsn operand of another type"))
}

pub(super) fn lsn_minus_lsn(a: &Value, b: &Value, _: &FormatCtx) -> PgResult<Value> {
    Ok(lsn::diff(lsn_of(a)?, lsn_of(b)?))
}

/// pg_lsn + numeric, numeric + pg_lsn (`OP` ADD), pg_lsn - numeric.
pub(super) fn lsn_shift<const OP: u8>(a: &Value, b: &Value, _: &FormatCtx) -> PgResult<Value> {
    let (pos, by) = match lsn::of(a) {
        Some(p) if !matches!(a, Value::Numeric(_)) => (p, num_of(b)?),
        _ => (lsn_of(b)?, num_of(a)?),
    };
    lsn::shift(pos, &by, OP == ADD)
}
