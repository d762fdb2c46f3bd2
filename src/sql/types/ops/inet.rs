//! inet / cidr operators: containment (`<<`, `<<=`, `>>`, `>>=`) and overlap (`&&`), over
//! `types::network`'s addresses.

use super::mismatch;
use crate::error::PgResult;
use crate::sql::types::{FormatCtx, Value};

fn inet_of(v: &Value) -> PgResult<&crate::sql::types::network::Inet> {
    match v {
        Value::Inet(i) => Ok(i),
        _ => Err(mismatch(v)),
    }
}

/// `<<`, `<<=` (`SUPER` false) and `>>`, `>>=` (`SUPER` true) on networks.
pub(super) fn inet_subnet<const SUPER: bool, const STRICT: bool>(
    a: &Value,
    b: &Value,
    _: &FormatCtx,
) -> PgResult<Value> {
    let (x, y) = (inet_of(a)?, inet_of(b)?);
    let (inner, outer) = if SUPER { (y, x) } else { (x, y) };
    Ok(Value::Bool(crate::sql::types::network::is_subnet(
        inner, outer, STRICT,
    )))
}

pub(super) fn inet_overlap(a: &Value, b: &Value, _: &FormatCtx) -> PgResult<Value> {
    Ok(Value::Bool(crate::sql::types::network::overlaps(
        inet_of(a)?,
        inet_of(b)?,
    )))
}
