//! TRUNCATE: each table gets a new version with empty storage (its old rows stay for the
//! snapshots that see the old version, and come back if the transaction aborts), after the
//! foreign-key checks or CASCADE, with the tables' TRUNCATE triggers around it.

use std::sync::Arc;

use super::{find_locked, foreign_key, grant, replace_with_data, trigger};
use crate::catalog::triggers::Timing;
use crate::catalog::RelKind;
use crate::error::{code, PgError, PgResult};
use crate::sql::context::SessionCtx;
use crate::sql::engine::TableData;
use crate::txn::lock::LockMode;

/// TRUNCATE of `names`; with `cascade`, also the tables whose foreign keys reference them.
pub(super) fn execute(
    cx: &mut dyn SessionCtx,
    names: &[(String, String)],
    cascade: bool,
) -> PgResult<()> {
    let mut tables = Vec::new();
    for (schema, name) in names {
        match find_locked(cx, schema, name, LockMode::AccessExclusive)? {
            Some(r) if r.kind == RelKind::Table => {
                grant::check_any(cx, &r, crate::catalog::acl::TRUNCATE)?;
                super::check_not_pending(cx, &r, "TRUNCATE")?;
                tables.push(r)
            }
            Some(_) => {
                return Err(PgError::new(
                    code::WRONG_OBJECT_TYPE,
                    format!("\"{name}\" is not a table"),
                ))
            }
            None => {
                return Err(PgError::new(
                    code::UNDEFINED_TABLE,
                    format!("relation \"{name}\" does not exist"),
                ))
            }
        }
    }
    // A partitioned table's partitions are truncated with it (all levels).
    let mut i = 0;
    while i < tables.len() {
        if tables[i].partition_key().is_some() {
            let snap = cx.catalog_snapshot()?;
            let kids = crate::sql::partition::children(&cx.instance().catalog, &snap, &tables[i]);
            for c in kids {
                if !tables.iter().any(|t| t.oid == c.oid) {
                    super::check_not_pending(cx, &c, "TRUNCATE")?;
                    tables.push(c);
                }
            }
        }
        i += 1;
    }
    if cascade {
        let named = tables.len();
        foreign_key::cascade_truncate(cx, &mut tables)?;
        // The referencing tables TRUNCATE reaches need the privilege too.
        for t in &tables[named..] {
            grant::check_any(cx, t, crate::catalog::acl::TRUNCATE)?;
        }
    }
    foreign_key::before_truncate(cx, &tables)?;
    for t in &tables {
        trigger::fire_truncate(cx, t, Timing::Before)?;
    }
    for t in &tables {
        // A new version with empty data: the old rows stay for snapshots that see the
        // old version, and come back if this transaction aborts.
        replace_with_data(cx, t, Arc::new(TableData::new()), |_| {})?;
    }
    for t in &tables {
        trigger::fire_truncate(cx, t, Timing::After)?;
    }
    Ok(())
}
