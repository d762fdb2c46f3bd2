//! The rows of pg_locks: the relation locks held or awaited (`txn::lock::LockTable::rows`),
//! and for each transaction holding one, its own virtual transaction id lock, as PostgreSQL
//! shows them.
//!
//! What PostgreSQL shows beside these is left out: transaction id locks (a waiter's
//! ShareLock on the holder's transactionid), tuple locks, and advisory locks. Row locks live
//! in the rows themselves, as in PostgreSQL, so they are not listed either. The virtual
//! transaction id is written `pid/xid` (PostgreSQL: backend id / local transaction id). A lock
//! is shown as taken by the fast path where PostgreSQL would take it so (a granted weak mode:
//! ACCESS SHARE, ROW SHARE, ROW EXCLUSIVE, on a relation nobody holds or awaits in a stronger
//! mode; PostgreSQL decides when the lock is taken, this when it is shown). `waitstart` is
//! NULL.

use std::collections::BTreeSet;

use crate::sql::expr::EvalCx;
use crate::sql::types::Value;
use crate::txn::lock::LockMode;

use super::catalog_rows::build;
use super::Row;

/// pg_locks's OID (a view in PostgreSQL 15).
pub(super) const OID: u32 = 12073;

pub(super) fn rows(cx: &mut EvalCx) -> Vec<Row> {
    let inst = cx.session.instance();
    let db = inst
        .database_oid(cx.session.database())
        .map_or(Value::Null, Value::Oid);
    let locks = inst.locks.rows();
    let mut out = Vec::with_capacity(locks.len() * 2);
    // One virtualxid row per transaction that holds a lock, ordered for a stable listing.
    let holders: BTreeSet<(i32, u64)> = locks
        .iter()
        .filter(|l| l.granted)
        .map(|l| (l.pid, l.xid))
        .collect();
    for (pid, xid) in holders {
        let vxid = format!("{pid}/{xid}");
        out.push(build(OID, |c| match c {
            "locktype" => Value::Text("virtualxid".into()),
            "virtualxid" | "virtualtransaction" => Value::Text(vxid.clone()),
            "pid" => Value::Int4(pid),
            "mode" => Value::Text("ExclusiveLock".into()),
            "granted" | "fastpath" => Value::Bool(true),
            _ => Value::Null,
        }));
    }
    let weak = |m: LockMode| {
        matches!(
            m,
            LockMode::AccessShare | LockMode::RowShare | LockMode::RowExclusive
        )
    };
    // PostgreSQL takes no fast-path lock on a relation someone holds or awaits strongly.
    let strong: BTreeSet<u32> = locks
        .iter()
        .filter(|l| !weak(l.mode))
        .map(|l| l.relation)
        .collect();
    for l in locks {
        let fastpath = l.granted && weak(l.mode) && !strong.contains(&l.relation);
        out.push(build(OID, |c| match c {
            "locktype" => Value::Text("relation".into()),
            "database" => db.clone(),
            "relation" => Value::Oid(l.relation),
            "virtualtransaction" => Value::Text(format!("{}/{}", l.pid, l.xid)),
            "pid" => Value::Int4(l.pid),
            "mode" => Value::Text(l.mode.name().into()),
            "granted" => Value::Bool(l.granted),
            "fastpath" => Value::Bool(fastpath),
            _ => Value::Null,
        }));
    }
    out
}
