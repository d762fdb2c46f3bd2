//! Schemas created by CREATE SCHEMA (pg_namespace rows beyond the built-in ones), versioned
//! like relations so that CREATE / DROP SCHEMA commit and roll back with their transaction.
//!
//! A schema version is stamped with the transaction cell and command that created it and,
//! once dropped, with the one that dropped it; a lookup uses the caller's snapshot (see the
//! module above). The built-in schemas (pg_catalog, public, information_schema, pg_toast) are
//! not kept here: they always exist.
//!
//! GRANT / REVOKE on a schema (and ALTER SCHEMA ... OWNER TO) write a new version with the
//! same OID. The built-in schemas' ACLs, once changed, are kept as versions of their own in
//! `builtin` (the schemas themselves stay built in), and so are databases' ACLs (GRANT ... ON
//! DATABASE), under [`DATABASE_KEY`].
//!
//! # Bounds
//!
//! One version per CREATE SCHEMA and per ACL or owner change; versions nobody can see any more are forgotten by
//! [`Namespaces::vacuum`], called with the catalog's.

use std::sync::Arc;

use parking_lot::Mutex;

use crate::txn::{Cid, Csn, Snapshot, Status, TxnCell};

use super::{CatalogError, Oid};

/// The key under which `Namespaces::builtin` keeps a database's ACL (pg_database.datacl).
pub const DATABASE_KEY: &str = "\u{0}database";

/// One version of a created schema.
#[derive(Debug)]
pub struct Namespace {
    pub oid: Oid,
    pub database: String,
    pub name: String,
    /// The owning role.
    pub owner: Oid,
    /// pg_namespace.nspacl; None: the owner's defaults.
    pub acl: Option<super::acl::Acl>,
    created: Arc<TxnCell>,
    created_cid: Cid,
    ended: Mutex<Option<(Arc<TxnCell>, Cid)>>,
}

impl Namespace {
    /// Whether this version is the one `snap` sees.
    pub fn visible(&self, snap: &Snapshot) -> bool {
        super::version_visible(snap, Some(&self.created), self.created_cid, &self.ended)
    }
}

/// The created schemas of every database, by (database, name).
#[derive(Default)]
pub struct Namespaces {
    names: scc::HashMap<(String, String), Vec<Arc<Namespace>>>,
    /// Changed ACLs of the built-in schemas, by (database, name).
    builtin: scc::HashMap<(String, String), Vec<Arc<Namespace>>>,
}

impl Namespaces {
    /// The version of schema `name` in `database` that `snap` sees.
    pub fn lookup(&self, database: &str, name: &str, snap: &Snapshot) -> Option<Arc<Namespace>> {
        self.names
            .read_sync(&(database.to_string(), name.to_string()), |_, v| {
                v.iter().rev().find(|n| n.visible(snap)).cloned()
            })?
    }

    /// Every schema of `database` that `snap` sees, in OID order.
    pub fn visible(&self, database: &str, snap: &Snapshot) -> Vec<Arc<Namespace>> {
        let mut out = Vec::new();
        self.names.iter_sync(|(db, _), v| {
            if db == database {
                out.extend(v.iter().filter(|n| n.visible(snap)).cloned());
            }
            true
        });
        out.sort_by_key(|n| n.oid);
        out
    }

    /// Creates schema `name` as a write of `cell` at `cid`: fails if `snap` sees one, or if a
    /// transaction in progress is creating one (the caller may wait for it and try again).
    #[allow(clippy::too_many_arguments)]
    pub fn create(
        &self,
        oid: Oid,
        database: &str,
        name: &str,
        owner: Oid,
        snap: &Snapshot,
        cell: &Arc<TxnCell>,
        cid: Cid,
    ) -> Result<Arc<Namespace>, CatalogError> {
        Self::create_in(
            &self.names,
            oid,
            database,
            name,
            (owner, None),
            snap,
            cell,
            cid,
        )
    }

    /// A new version of `old` (ended by the caller in the same command) with another owner or
    /// ACL; for a built-in schema (`builtin`), its first or next ACL version.
    #[allow(clippy::too_many_arguments)]
    pub fn replace(
        &self,
        builtin: bool,
        oid: Oid,
        database: &str,
        name: &str,
        owner: Oid,
        acl: Option<super::acl::Acl>,
        snap: &Snapshot,
        cell: &Arc<TxnCell>,
        cid: Cid,
    ) -> Result<Arc<Namespace>, CatalogError> {
        let map = if builtin { &self.builtin } else { &self.names };
        Self::create_in(map, oid, database, name, (owner, acl), snap, cell, cid)
    }

    /// Every version `snap` sees in every database: created schemas (false) and changed ACLs
    /// of built-in schemas and databases (true), for a checkpoint's image.
    pub fn all_visible(&self, snap: &Snapshot) -> Vec<(bool, Arc<Namespace>)> {
        let mut out = Vec::new();
        for (builtin, map) in [(false, &self.names), (true, &self.builtin)] {
            map.iter_sync(|_, v| {
                out.extend(
                    v.iter()
                        .filter(|n| n.visible(snap))
                        .map(|n| (builtin, n.clone())),
                );
                true
            });
        }
        out
    }

    /// The version of database `database`'s changed ACL that `snap` sees, if any: kept beside
    /// the built-in schemas' under a key no schema name can be.
    pub fn database_acl(&self, database: &str, snap: &Snapshot) -> Option<Arc<Namespace>> {
        self.builtin_acl(database, DATABASE_KEY, snap)
    }

    /// Forgets the schemas and ACL versions of a dropped database (DROP DATABASE is not
    /// transactional).
    pub fn forget_database(&self, database: &str) {
        self.names.retain_sync(|(db, _), _| db != database);
        self.builtin.retain_sync(|(db, _), _| db != database);
    }

    /// The version of built-in schema `name`'s changed ACL that `snap` sees, if any.
    pub fn builtin_acl(
        &self,
        database: &str,
        name: &str,
        snap: &Snapshot,
    ) -> Option<Arc<Namespace>> {
        self.builtin
            .read_sync(&(database.to_string(), name.to_string()), |_, v| {
                v.iter().rev().find(|n| n.visible(snap)).cloned()
            })?
    }

    #[allow(clippy::too_many_arguments)]
    fn create_in(
        map: &scc::HashMap<(String, String), Vec<Arc<Namespace>>>,
        oid: Oid,
        database: &str,
        name: &str,
        (owner, acl): (Oid, Option<super::acl::Acl>),
        snap: &Snapshot,
        cell: &Arc<TxnCell>,
        cid: Cid,
    ) -> Result<Arc<Namespace>, CatalogError> {
        let entry = map.entry_sync((database.to_string(), name.to_string()));
        let mut versions = entry.or_default();
        for v in versions.get().iter() {
            if v.visible(snap) {
                return Err(CatalogError::Exists(None));
            }
            if v.created.top() != cell.top()
                && v.created.settled_status() == Status::InProgress
                && v.ended.lock().is_none()
            {
                return Err(CatalogError::Exists(Some(v.created.clone())));
            }
        }
        let n = Arc::new(Namespace {
            oid,
            database: database.to_string(),
            name: name.to_string(),
            owner,
            acl,
            created: cell.clone(),
            created_cid: cid,
            ended: Mutex::new(None),
        });
        versions.get_mut().push(n.clone());
        Ok(n)
    }

    /// Drops a version; fails if another transaction in progress dropped it already.
    pub fn end(&self, ns: &Namespace, cell: &Arc<TxnCell>, cid: Cid) -> Result<(), CatalogError> {
        let mut ended = ns.ended.lock();
        if let Some((other, _)) = &*ended {
            match other.settled_status() {
                Status::Aborted => {}
                _ if other.top() == cell.top() => {}
                Status::InProgress => return Err(CatalogError::Busy(other.clone())),
                Status::Committed(_) => return Err(CatalogError::Exists(None)),
            }
        }
        *ended = Some((cell.clone(), cid));
        Ok(())
    }

    /// Forgets versions created by aborted transactions or dropped by commits below `horizon`.
    pub fn vacuum(&self, horizon: Csn) {
        Self::vacuum_map(&self.names, horizon);
        Self::vacuum_map(&self.builtin, horizon);
    }

    fn vacuum_map(map: &scc::HashMap<(String, String), Vec<Arc<Namespace>>>, horizon: Csn) {
        map.retain_sync(|_, versions| {
            versions.retain(|v| !super::version_dead(Some(&v.created), &v.ended, horizon));
            !versions.is_empty()
        });
    }
}
