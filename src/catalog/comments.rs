//! Descriptions set by COMMENT ON (pg_description and, for roles, pg_shdescription), versioned
//! like relations so that a COMMENT commits and rolls back with its transaction.
//!
//! A description is keyed as PostgreSQL keys it: (classoid, objoid, objsubid), where classoid
//! is the catalog holding the object (pg_class 1259, pg_namespace 2615, pg_constraint 2606,
//! pg_authid 1260) and objsubid a column's attnum (0 for the object itself). Each COMMENT ends
//! the version its snapshot sees and, unless the new text is NULL or empty, adds a new one.
//!
//! Descriptions are not ended when their object is dropped: OIDs are never reused, so the
//! readers (pg_description's rows, obj_description) show only those whose object the same
//! snapshot sees, and a dropped object's description disappears with it and comes back if the
//! DROP rolls back, as PostgreSQL's would.
//!
//! # Bounds
//!
//! At most one live version per (object, column) that has a description, plus versions nobody
//! can see any more until [`Comments::vacuum`] (called with the catalog's) forgets them; the
//! entries of relations that are gone entirely are forgotten there too ([`Comments::forget`]).

use std::sync::Arc;

use parking_lot::Mutex;

use crate::txn::{Cid, Csn, Snapshot, Status, TxnCell};

use super::{CatalogError, Oid};

/// (classoid, objoid, objsubid), as pg_description's key.
pub type CommentKey = (Oid, Oid, i32);

/// One version of one description.
#[derive(Debug)]
struct Version {
    text: String,
    created: Arc<TxnCell>,
    created_cid: Cid,
    ended: Mutex<Option<(Arc<TxnCell>, Cid)>>,
}

impl Version {
    fn visible(&self, snap: &Snapshot) -> bool {
        super::version_visible(snap, Some(&self.created), self.created_cid, &self.ended)
    }
}

/// The descriptions of every database (object OIDs are unique across databases).
#[derive(Default)]
pub struct Comments {
    map: scc::HashMap<CommentKey, Vec<Arc<Version>>>,
}

impl Comments {
    /// The description of `key` that `snap` sees.
    pub fn get(&self, key: CommentKey, snap: &Snapshot) -> Option<String> {
        self.map
            .read_sync(&key, |_, v| {
                v.iter()
                    .rev()
                    .find(|c| c.visible(snap))
                    .map(|c| c.text.clone())
            })
            .flatten()
    }

    /// Every description `snap` sees, in key order.
    pub fn visible(&self, snap: &Snapshot) -> Vec<(CommentKey, String)> {
        let mut out = Vec::new();
        self.map.iter_sync(|k, v| {
            if let Some(c) = v.iter().rev().find(|c| c.visible(snap)) {
                out.push((*k, c.text.clone()));
            }
            true
        });
        out.sort_by_key(|(k, _)| (k.1, k.0, k.2));
        out
    }

    /// Sets the description of `key` as a write of `cell` at `cid` (an empty text is kept as
    /// a version too: it hides a description the caller has from elsewhere). Fails with `Busy`
    /// while another transaction in progress has changed it.
    pub fn set(
        &self,
        key: CommentKey,
        text: &str,
        snap: &Snapshot,
        cell: &Arc<TxnCell>,
        cid: Cid,
    ) -> Result<(), CatalogError> {
        let entry = self.map.entry_sync(key);
        let mut versions = entry.or_default();
        for v in versions.get().iter() {
            // Made or ended by someone still running: the caller fails (PostgreSQL would wait
            // on the row and then fail with "tuple concurrently updated").
            let running = |c: &Arc<TxnCell>| {
                c.top() != cell.top() && c.settled_status() == Status::InProgress
            };
            if running(&v.created) {
                return Err(CatalogError::Busy(v.created.clone()));
            }
            if let Some((other, _)) = &*v.ended.lock() {
                if running(other) {
                    return Err(CatalogError::Busy(other.clone()));
                }
            }
        }
        for v in versions.get().iter() {
            if v.visible(snap) {
                *v.ended.lock() = Some((cell.clone(), cid));
            }
        }
        versions.get_mut().push(Arc::new(Version {
            text: text.to_string(),
            created: cell.clone(),
            created_cid: cid,
            ended: Mutex::new(None),
        }));
        Ok(())
    }

    /// Forgets the descriptions of relations whose every version is gone (their columns' too).
    pub fn forget(&self, relations: &[Oid]) {
        if relations.is_empty() {
            return;
        }
        self.map
            .retain_sync(|k, _| !(k.0 == 1259 && relations.contains(&k.1)));
    }

    /// Forgets versions created by aborted transactions or ended by commits below `horizon`.
    pub fn vacuum(&self, horizon: Csn) {
        self.map.retain_sync(|_, versions| {
            versions.retain(|v| !super::version_dead(Some(&v.created), &v.ended, horizon));
            !versions.is_empty()
        });
    }
}
