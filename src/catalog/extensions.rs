//! Installed extensions (pg_extension rows made by CREATE EXTENSION), versioned like functions
//! so that CREATE / DROP EXTENSION commit and roll back with their transaction.
//!
//! # Design
//!
//! An extension is known by (database, name): PostgreSQL allows one installation of an
//! extension per database, whatever its schema. Its members are the functions its script made
//! (their OIDs, PostgreSQL's pg_depend rows of type 'e'): DROP EXTENSION drops them, and DROP
//! FUNCTION of a member is refused. The members themselves are ordinary functions of
//! `functions.rs`, created and ended in the same transaction as the extension.
//!
//! The extensions threadgres has are built in (`sql::func::extension` lists them and their
//! functions); plpgsql is installed in every database without a row here, as PostgreSQL's
//! template database has it.
//!
//! # Invariants
//!
//! 1. For one (database, name), at most one version is visible to any snapshot: `create`
//!    checks, under the map entry, that none is visible or being created or ended by another
//!    transaction in progress.
//! 2. `vacuum` removes a version only when its creator aborted or its end committed before the
//!    horizon.
//!
//! # Lock order
//!
//! `create` and `end` hold the name's map entry, then a version's `ended` mutex.
//!
//! # Bounds
//!
//! One live version per installed extension (a handful exist), plus dead versions until the
//! catalog's vacuum.

use std::sync::Arc;

use parking_lot::Mutex;
use serde::{Deserialize, Serialize};

use super::{version_dead, version_visible, CatalogError, Oid};
use crate::txn::{Cid, Csn, Snapshot, Status, TxnCell};

/// An extension as pg_extension describes it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExtensionDef {
    pub database: String,
    pub name: String,
    /// The schema its objects went to (pg_extension.extnamespace, by name).
    pub schema: String,
    pub owner: Oid,
    pub version: String,
    pub relocatable: bool,
    /// The OIDs of the functions it made.
    pub members: Vec<Oid>,
    /// The OIDs of the types it made (hstore), which DROP EXTENSION ends with it.
    pub types: Vec<Oid>,
}

/// One version of an installed extension.
pub struct Extension {
    pub oid: Oid,
    pub def: ExtensionDef,
    created: Arc<TxnCell>,
    created_cid: Cid,
    ended: Mutex<Option<(Arc<TxnCell>, Cid)>>,
}

impl Extension {
    pub fn visible(&self, snap: &Snapshot) -> bool {
        version_visible(snap, Some(&*self.created), self.created_cid, &self.ended)
    }
}

type Key = (String, String);

/// The installed extensions of every database.
#[derive(Default)]
pub struct Extensions {
    map: scc::HashMap<Key, Vec<Arc<Extension>>>,
}

/// Whether `c`, a cell of another top transaction, is still running for a writer.
fn running(c: &TxnCell, cell: &TxnCell) -> bool {
    c.top() != cell.top() && c.settled_status() == Status::InProgress
}

impl Extensions {
    /// Extension `name` of `database` as `snap` sees it.
    pub fn get(&self, database: &str, name: &str, snap: &Snapshot) -> Option<Arc<Extension>> {
        let key = (database.to_string(), name.to_string());
        self.map
            .read_sync(&key, |_, v| v.iter().find(|e| e.visible(snap)).cloned())
            .flatten()
    }

    /// Every extension of `database` (all databases: None) that `snap` sees, by OID.
    pub fn visible(&self, database: Option<&str>, snap: &Snapshot) -> Vec<Arc<Extension>> {
        let mut out = Vec::new();
        self.map.iter_sync(|k, v| {
            if database.is_none_or(|d| d == k.0) {
                out.extend(v.iter().filter(|e| e.visible(snap)).cloned());
            }
            true
        });
        out.sort_by_key(|e| e.oid);
        out
    }

    /// The extension of `database` that function `oid` belongs to, as `snap` sees it.
    pub fn owning(&self, database: &str, oid: Oid, snap: &Snapshot) -> Option<Arc<Extension>> {
        self.visible(Some(database), snap)
            .into_iter()
            .find(|e| e.def.members.contains(&oid))
    }

    /// Installs `def` as extension `oid`, a write of `cell` at `cid`: `Exists` when `snap`
    /// sees it installed, `Busy` while another transaction in progress installs or drops it.
    pub fn create(
        &self,
        oid: Oid,
        def: ExtensionDef,
        snap: &Snapshot,
        cell: &Arc<TxnCell>,
        cid: Cid,
    ) -> Result<(), CatalogError> {
        let entry = self
            .map
            .entry_sync((def.database.clone(), def.name.clone()));
        let mut versions = entry.or_default();
        for e in versions.get().iter() {
            if running(&e.created, cell) {
                return Err(CatalogError::Busy(e.created.clone()));
            }
            if let Some((c, _)) = &*e.ended.lock() {
                if running(c, cell) {
                    return Err(CatalogError::Busy(c.clone()));
                }
            }
        }
        if versions.get().iter().any(|e| e.visible(snap)) {
            return Err(CatalogError::Exists(None));
        }
        versions.get_mut().push(Arc::new(Extension {
            oid,
            def,
            created: cell.clone(),
            created_cid: cid,
            ended: Mutex::new(None),
        }));
        Ok(())
    }

    /// Ends the version of extension `name` that `snap` sees (DROP EXTENSION). False when
    /// `snap` sees none.
    pub fn end(
        &self,
        database: &str,
        name: &str,
        snap: &Snapshot,
        cell: &Arc<TxnCell>,
        cid: Cid,
    ) -> Result<bool, CatalogError> {
        let entry = self
            .map
            .entry_sync((database.to_string(), name.to_string()));
        let versions = entry.or_default();
        for e in versions.get().iter() {
            if let Some((c, _)) = &*e.ended.lock() {
                if running(c, cell) {
                    return Err(CatalogError::Busy(c.clone()));
                }
            }
        }
        // `visible` takes `ended` itself: look first, then stamp.
        let Some(live) = versions.get().iter().find(|e| e.visible(snap)) else {
            return Ok(false);
        };
        *live.ended.lock() = Some((cell.clone(), cid));
        Ok(true)
    }

    /// Puts back an extension read from a checkpoint image or the log, as created by `cell`.
    pub fn restore(&self, oid: Oid, def: ExtensionDef, cell: &Arc<TxnCell>) {
        let entry = self
            .map
            .entry_sync((def.database.clone(), def.name.clone()));
        entry.or_default().get_mut().push(Arc::new(Extension {
            oid,
            def,
            created: cell.clone(),
            created_cid: 0,
            ended: Mutex::new(None),
        }));
    }

    /// Forgets every extension of a dropped database.
    pub fn forget_database(&self, database: &str) {
        self.map.retain_sync(|k, _| k.0 != database);
    }

    /// Forgets versions nobody can see any more (invariant 2).
    pub fn vacuum(&self, horizon: Csn) {
        self.map.retain_sync(|_, versions| {
            versions.retain(|v| !version_dead(Some(&*v.created), &v.ended, horizon));
            !versions.is_empty()
        });
    }
}
