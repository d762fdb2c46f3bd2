//! The rows of pg_locks: the relation locks held or awaited (`txn::lock::LockTable::rows`),
//! and for each transaction holding one, its own virtual transaction id lock, its transaction
//! id lock when it writes, and the SHARE lock on the transaction id of the transaction whose
//! row it waits for (not granted), as PostgreSQL shows them.
//!
//! Advisory locks (`txn::advisory`) follow, one row per session and mode held or awaited, keyed
//! as PostgreSQL keys them (classid, objid, objsubid 1 for one bigint, 2 for two int4s).
//!
//! What PostgreSQL shows beside these is left out: tuple locks. Row locks
//! live in the rows themselves, as in PostgreSQL, so they are not listed either. The virtual
//! transaction id is written `pid/xid` (PostgreSQL: backend id / local transaction id). A lock
//! is shown as taken by the fast path where PostgreSQL would take it so (a granted weak mode:
//! ACCESS SHARE, ROW SHARE, ROW EXCLUSIVE, on a relation nobody holds or awaits in a stronger
//! mode; PostgreSQL decides when the lock is taken, this when it is shown). `waitstart` is
//! NULL.

use std::collections::BTreeSet;

use crate::sql::exec::EvalCx;
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
    // Each transaction that holds a relation lock, once, ordered for a stable listing.
    let mut holders: Vec<&crate::txn::lock::LockRow> = Vec::new();
    for l in locks.iter().filter(|l| l.granted) {
        if !holders.iter().any(|h| h.xid == l.xid) {
            holders.push(l);
        }
    }
    holders.sort_by_key(|h| (h.pid, h.xid));
    let relation_waiters: BTreeSet<u64> = locks
        .iter()
        .filter(|l| !l.granted)
        .map(|l| l.cell.top())
        .collect();
    let mut advisory = inst.locks.advisory.rows();
    advisory.sort_by_key(|a| (a.key, a.pid, !a.granted));
    // A session waiting for an advisory lock waits for a token, not a transaction id.
    let advisory_waiters: BTreeSet<i32> = advisory
        .iter()
        .filter(|a| !a.granted)
        .map(|a| a.pid)
        .collect();
    for h in holders {
        let vxid = format!("{}/{}", h.pid, h.xid);
        let row = |locktype: &str, xid: Option<u64>, mode: &str, granted: bool| {
            build(OID, |c| match c {
                "locktype" => Value::Text(locktype.into()),
                "virtualxid" if xid.is_none() => Value::Text(vxid.clone()),
                "transactionid" => xid.map_or(Value::Null, |x| Value::Oid(x as u32)),
                "virtualtransaction" => Value::Text(vxid.clone()),
                "pid" => Value::Int4(h.pid),
                "mode" => Value::Text(mode.into()),
                "granted" => Value::Bool(granted),
                "fastpath" => Value::Bool(xid.is_none()),
                _ => Value::Null,
            })
        };
        out.push(row("virtualxid", None, "ExclusiveLock", true));
        // A transaction that writes (it holds ROW EXCLUSIVE somewhere, or ACCESS EXCLUSIVE for
        // DDL) has a transaction id, which it holds exclusively until it ends.
        let writes = locks.iter().any(|l| {
            l.granted
                && l.xid == h.xid
                && matches!(l.mode, LockMode::RowExclusive | LockMode::AccessExclusive)
        });
        if writes {
            out.push(row("transactionid", Some(h.xid), "ExclusiveLock", true));
        }
        // A row-lock wait: for the holder's transaction id, in SHARE mode.
        if let Some(holder) = h.cell.waiting_for() {
            if !relation_waiters.contains(&h.cell.top()) && !advisory_waiters.contains(&h.pid) {
                out.push(row("transactionid", Some(holder.xid()), "ShareLock", false));
            }
        }
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
    for a in advisory {
        out.push(build(OID, |c| match c {
            "locktype" => Value::Text("advisory".into()),
            "database" => Value::Oid(a.key.database),
            "classid" => Value::Oid(a.key.classid),
            "objid" => Value::Oid(a.key.objid),
            "objsubid" => Value::Int2(a.key.objsubid as i16),
            "virtualtransaction" => Value::Text(format!("{}/0", a.pid)),
            "pid" => Value::Int4(a.pid),
            "mode" => Value::Text(a.mode.name().into()),
            "granted" => Value::Bool(a.granted),
            "fastpath" => Value::Bool(false),
            _ => Value::Null,
        }));
    }
    out
}
