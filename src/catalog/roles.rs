//! Roles (pg_authid) and role memberships (pg_auth_members): the instance's one role catalog,
//! shared by every database, as PostgreSQL's shared catalogs are.
//!
//! # Transactions
//!
//! PostgreSQL's role DDL is transactional: CREATE ROLE is invisible to other sessions until it
//! commits, and a rolled-back DROP ROLE leaves the role in place. threadgres keeps roles the way
//! it keeps relations and schemas (see the module above): every [`Role`] and [`Member`] is a
//! *version* stamped with the transaction cell and command that created it and, once replaced
//! (ALTER ROLE, RENAME) or dropped (DROP ROLE, REVOKE), with the one that ended it. A lookup
//! reads with a snapshot, so a reader needs no lock on the versions' contents and never sees a
//! half-made change. Two transactions changing the same role: the second one's `end` meets the
//! first's in-progress stamp and gets [`CatalogError::Busy`] with its cell; the caller waits for
//! it and looks the role up again (PostgreSQL would fail with "tuple concurrently updated"
//! instead; waiting is the friendlier of the two and has no visible difference otherwise).
//!
//! The bootstrap superuser (`postgres`, OID 10, PostgreSQL's BOOTSTRAP_SUPERUSERID) and
//! PostgreSQL 15's predefined roles, with their OIDs and pg_monitor's memberships, exist from
//! the start (frozen versions, created by no transaction), exactly as initdb makes them.
//!
//! # Locking
//!
//! The versions live in two vectors, each behind a read-biased lock: a lookup takes the read
//! lock for a linear scan, DDL takes the write lock to check for a conflicting name and push a
//! new version (invariant: for one role name, at most one version is visible to any snapshot,
//! checked under the write lock as `Catalog::create` checks relation names). A version's end
//! stamp has its own small mutex, as relations' do. Logins read the catalog once per
//! connection; role DDL is rare. The scans are linear in the number of role versions: fine for
//! the hundreds of roles real installations have; a name index would be the change if many
//! thousands ever matter.
//!
//! # Bounds
//!
//! One version per role DDL statement (CREATE, each ALTER, RENAME) and per granted membership;
//! versions nobody can see any more are forgotten by [`Roles::vacuum`], called with the
//! catalog's vacuum. Role names are at most 63 bytes (NAMEDATALEN - 1; longer names are
//! truncated by the parser, as PostgreSQL's are). OIDs come from the catalog's counter.

use serde::{Deserialize, Serialize};
use std::sync::Arc;

use parking_lot::{Mutex, RwLock};

use crate::txn::{Cid, Csn, Snapshot, Status, TxnCell};

use super::{CatalogError, Oid};

/// PostgreSQL's BOOTSTRAP_SUPERUSERID: the superuser initdb creates.
pub const BOOTSTRAP_SUPERUSER: Oid = 10;
/// pg_monitor, which initdb makes a member of three other predefined roles.
const PG_MONITOR: Oid = 3373;

/// (oid, name) of PostgreSQL 15's predefined roles (pg_authid's initial rows).
pub const PREDEFINED: &[(Oid, &str)] = &[
    (PG_MONITOR, "pg_monitor"),
    (3374, "pg_read_all_settings"),
    (3375, "pg_read_all_stats"),
    (3377, "pg_stat_scan_tables"),
    (4200, "pg_signal_backend"),
    (4544, "pg_checkpoint"),
    (4569, "pg_read_server_files"),
    (4570, "pg_write_server_files"),
    (4571, "pg_execute_server_program"),
    (6171, "pg_database_owner"),
    (6181, "pg_read_all_data"),
    (6182, "pg_write_all_data"),
];

/// The predefined role whose members may run CHECKPOINT.
pub const PG_CHECKPOINT: Oid = 4544;

/// The predefined role no one can be a member of, which stands for a database's owner.
pub const PG_DATABASE_OWNER: Oid = 6171;

/// What a role is (one pg_authid row without its OID).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoleDef {
    pub name: String,
    pub superuser: bool,
    pub inherit: bool,
    pub createrole: bool,
    pub createdb: bool,
    pub login: bool,
    pub replication: bool,
    pub bypassrls: bool,
    /// -1: no limit.
    pub conn_limit: i32,
    /// The stored password: a SCRAM-SHA-256 verifier (`SCRAM-SHA-256$iterations:salt$StoredKey:
    /// ServerKey`) or `md5` followed by 32 hex digits.
    pub password: Option<String>,
    /// timestamptz, µs since 2000-01-01 UTC (i64::MAX: infinity).
    pub valid_until: Option<i64>,
    /// ALTER ROLE ... SET: `name=value` items (pg_db_role_setting for all databases).
    pub config: Vec<String>,
}

impl RoleDef {
    /// A role as CREATE ROLE makes it without options (NOLOGIN; CREATE USER adds LOGIN).
    pub fn new(name: &str) -> RoleDef {
        RoleDef {
            name: name.to_string(),
            superuser: false,
            inherit: true,
            createrole: false,
            createdb: false,
            login: false,
            replication: false,
            bypassrls: false,
            conn_limit: -1,
            password: None,
            valid_until: None,
            config: Vec::new(),
        }
    }
}

/// Who may see or change a version: the creating and the ending transaction.
#[derive(Debug)]
struct Stamp {
    created: Option<(Arc<TxnCell>, Cid)>,
    ended: Mutex<Option<(Arc<TxnCell>, Cid)>>,
}

impl Stamp {
    fn new(cell: Option<(&Arc<TxnCell>, Cid)>) -> Stamp {
        Stamp {
            created: cell.map(|(c, cid)| (c.clone(), cid)),
            ended: Mutex::new(None),
        }
    }

    fn visible(&self, snap: &Snapshot) -> bool {
        let (cell, cid) = match &self.created {
            Some((c, cid)) => (Some(&**c), *cid),
            None => (None, 0),
        };
        super::version_visible(snap, cell, cid, &self.ended)
    }

    /// Created by a transaction other than `cell`'s that is still running, and not ended: it
    /// may commit.
    fn pending_for(&self, cell: &TxnCell) -> Option<Arc<TxnCell>> {
        let (c, _) = self.created.as_ref()?;
        (c.top() != cell.top()
            && c.settled_status() == Status::InProgress
            && self.ended.lock().is_none())
        .then(|| c.clone())
    }

    fn end(&self, cell: &Arc<TxnCell>, cid: Cid) -> Result<(), CatalogError> {
        let mut ended = self.ended.lock();
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

    /// Whether no snapshot can see this version any more.
    fn dead(&self, horizon: Csn) -> bool {
        let created = self.created.as_ref().map(|(c, _)| &**c);
        super::version_dead(created, &self.ended, horizon)
    }
}

/// One version of a role.
#[derive(Debug)]
pub struct Role {
    pub oid: Oid,
    pub def: RoleDef,
    stamp: Stamp,
}

/// One version of a membership: `member` is a member of `role` (pg_auth_members).
#[derive(Debug)]
pub struct Member {
    pub role: Oid,
    pub member: Oid,
    pub grantor: Oid,
    pub admin: bool,
    stamp: Stamp,
}

/// What a login needs to know about its role (the interface to authentication).
#[derive(Debug, Clone)]
pub struct LoginRole {
    pub oid: Oid,
    pub name: String,
    pub can_login: bool,
    pub superuser: bool,
    /// The stored password verifier, as in [`RoleDef::password`].
    pub password: Option<String>,
    pub valid_until: Option<i64>,
    pub conn_limit: i32,
    /// `name=value` settings applied at login (ALTER ROLE ... SET).
    pub config: Vec<String>,
}

/// The role catalog.
pub struct Roles {
    roles: RwLock<Vec<Arc<Role>>>,
    members: RwLock<Vec<Arc<Member>>>,
}

impl Default for Roles {
    fn default() -> Self {
        let mut roles = vec![Arc::new(Role {
            oid: BOOTSTRAP_SUPERUSER,
            def: RoleDef {
                superuser: true,
                createrole: true,
                createdb: true,
                login: true,
                replication: true,
                bypassrls: true,
                ..RoleDef::new("postgres")
            },
            stamp: Stamp::new(None),
        })];
        roles.extend(PREDEFINED.iter().map(|(oid, name)| {
            Arc::new(Role {
                oid: *oid,
                def: RoleDef::new(name),
                stamp: Stamp::new(None),
            })
        }));
        let members = [3374, 3375, 3377]
            .into_iter()
            .map(|role| {
                Arc::new(Member {
                    role,
                    member: PG_MONITOR,
                    grantor: BOOTSTRAP_SUPERUSER,
                    admin: false,
                    stamp: Stamp::new(None),
                })
            })
            .collect();
        Roles {
            roles: RwLock::new(roles),
            members: RwLock::new(members),
        }
    }
}

impl Roles {
    /// Sets the bootstrap superuser's stored password (the server's `--password`), before any
    /// session starts: its version stays frozen.
    pub fn set_bootstrap_password(&self, verifier: Option<String>) {
        let mut roles = self.roles.write();
        if let Some(r) = roles.iter_mut().find(|r| r.oid == BOOTSTRAP_SUPERUSER) {
            let mut def = r.def.clone();
            def.password = verifier;
            *r = Arc::new(Role {
                oid: r.oid,
                def,
                stamp: Stamp::new(None),
            });
        }
    }

    /// Replaces the whole role catalog with frozen versions (visible to every snapshot): a
    /// checkpoint's image read back at start, before any session runs. `members` are (role,
    /// member, grantor, admin).
    pub fn restore(&self, roles: Vec<(Oid, RoleDef)>, members: Vec<(Oid, Oid, Oid, bool)>) {
        *self.roles.write() = roles
            .into_iter()
            .map(|(oid, def)| {
                Arc::new(Role {
                    oid,
                    def,
                    stamp: Stamp::new(None),
                })
            })
            .collect();
        *self.members.write() = members
            .into_iter()
            .map(|(role, member, grantor, admin)| {
                Arc::new(Member {
                    role,
                    member,
                    grantor,
                    admin,
                    stamp: Stamp::new(None),
                })
            })
            .collect();
    }

    /// The newest committed state, for logins (which run in no transaction).
    pub fn latest(txns: &crate::txn::TxnManager) -> Snapshot {
        Snapshot {
            csn: txns.visible(),
            top: 0,
            cid: 0,
        }
    }

    /// The version of role `name` that `snap` sees.
    pub fn by_name(&self, name: &str, snap: &Snapshot) -> Option<Arc<Role>> {
        self.roles
            .read()
            .iter()
            .rev()
            .find(|r| r.def.name == name && r.stamp.visible(snap))
            .cloned()
    }

    /// The version of role `oid` that `snap` sees.
    pub fn by_oid(&self, oid: Oid, snap: &Snapshot) -> Option<Arc<Role>> {
        self.roles
            .read()
            .iter()
            .rev()
            .find(|r| r.oid == oid && r.stamp.visible(snap))
            .cloned()
    }

    /// Every role `snap` sees, in OID order.
    pub fn visible(&self, snap: &Snapshot) -> Vec<Arc<Role>> {
        let mut out: Vec<_> = self
            .roles
            .read()
            .iter()
            .filter(|r| r.stamp.visible(snap))
            .cloned()
            .collect();
        out.sort_by_key(|r| r.oid);
        out
    }

    /// The login view of role `name` with the newest commits (`snap`).
    pub fn login(&self, name: &str, snap: &Snapshot) -> Option<LoginRole> {
        let r = self.by_name(name, snap)?;
        Some(LoginRole {
            oid: r.oid,
            name: r.def.name.clone(),
            can_login: r.def.login,
            superuser: r.def.superuser,
            password: r.def.password.clone(),
            valid_until: r.def.valid_until,
            conn_limit: r.def.conn_limit,
            config: r.def.config.clone(),
        })
    }

    /// Creates a role version (a new role, or with `def` replacing an ended version of `oid`)
    /// as a write of `cell` at `cid`. Fails if `snap` sees a role of that name or a transaction
    /// in progress is creating one (the caller may wait for it and try again).
    pub fn create(
        &self,
        oid: Oid,
        def: RoleDef,
        snap: &Snapshot,
        cell: &Arc<TxnCell>,
        cid: Cid,
    ) -> Result<Arc<Role>, CatalogError> {
        let mut roles = self.roles.write();
        for v in roles.iter().filter(|r| r.def.name == def.name) {
            if v.stamp.visible(snap) {
                return Err(CatalogError::Exists(None));
            }
            if let Some(c) = v.stamp.pending_for(cell) {
                return Err(CatalogError::Exists(Some(c)));
            }
        }
        let r = Arc::new(Role {
            oid,
            def,
            stamp: Stamp::new(Some((cell, cid))),
        });
        roles.push(r.clone());
        Ok(r)
    }

    /// Ends a role version (DROP ROLE, or the old side of ALTER ROLE); fails with `Busy` if
    /// another transaction in progress ended it.
    pub fn end(&self, role: &Role, cell: &Arc<TxnCell>, cid: Cid) -> Result<(), CatalogError> {
        role.stamp.end(cell, cid)
    }

    /// The memberships `snap` sees.
    pub fn members(&self, snap: &Snapshot) -> Vec<Arc<Member>> {
        self.members
            .read()
            .iter()
            .filter(|m| m.stamp.visible(snap))
            .cloned()
            .collect()
    }

    /// Records that `member` is a member of `role` (GRANT role TO member).
    #[allow(clippy::too_many_arguments)]
    pub fn add_member(
        &self,
        role: Oid,
        member: Oid,
        grantor: Oid,
        admin: bool,
        cell: &Arc<TxnCell>,
        cid: Cid,
    ) -> Arc<Member> {
        let m = Arc::new(Member {
            role,
            member,
            grantor,
            admin,
            stamp: Stamp::new(Some((cell, cid))),
        });
        self.members.write().push(m.clone());
        m
    }

    /// Ends a membership version (REVOKE, DROP ROLE of either side, or the old side of a
    /// changed admin option).
    pub fn end_member(
        &self,
        m: &Member,
        cell: &Arc<TxnCell>,
        cid: Cid,
    ) -> Result<(), CatalogError> {
        m.stamp.end(cell, cid)
    }

    /// Whether `member` is `role` or a member of it, directly or through other roles. With
    /// `inherit_only`, memberships are followed only through roles that inherit (the
    /// privileges `member` has without SET ROLE, PostgreSQL's has_privs_of_role); without,
    /// every membership counts (is_member_of_role: what SET ROLE allows).
    pub fn is_member(&self, member: Oid, role: Oid, inherit_only: bool, snap: &Snapshot) -> bool {
        if member == role {
            return true;
        }
        let members = self.members(snap);
        let mut seen = vec![member];
        let mut todo = vec![member];
        while let Some(m) = todo.pop() {
            if inherit_only && !self.by_oid(m, snap).is_some_and(|r| r.def.inherit) {
                continue;
            }
            for e in members.iter().filter(|e| e.member == m) {
                if e.role == role {
                    return true;
                }
                if !seen.contains(&e.role) {
                    seen.push(e.role);
                    todo.push(e.role);
                }
            }
        }
        false
    }

    /// Forgets versions created by aborted transactions or ended by commits below `horizon`.
    pub fn vacuum(&self, horizon: Csn) {
        self.roles.write().retain(|r| !r.stamp.dead(horizon));
        self.members.write().retain(|m| !m.stamp.dead(horizon));
    }
}

#[cfg(all(test, not(feature = "shuttle")))]
mod tests {
    use super::*;
    use crate::txn::TxnManager;

    #[test]
    fn bootstrap_and_transactions() {
        let m = TxnManager::new(4);
        let slot = m.register();
        let roles = Roles::default();
        let now = m.snapshot(&slot, 0, 0);
        assert_eq!(roles.by_name("postgres", &now).unwrap().oid, 10);
        assert!(roles.by_name("pg_monitor", &now).is_some());
        assert!(roles.is_member(PG_MONITOR, 3374, true, &now));
        let t = m.begin(1);
        let own = m.snapshot(&slot, t.top(), 1);
        roles
            .create(16384, RoleDef::new("alice"), &own, &t, 0)
            .unwrap();
        assert!(roles.by_name("alice", &own).is_some());
        assert!(roles.by_name("alice", &m.snapshot(&slot, 0, 0)).is_none());
        let t2 = m.begin(2);
        let s2 = m.snapshot(&slot, t2.top(), 0);
        assert!(matches!(
            roles.create(16385, RoleDef::new("alice"), &s2, &t2, 0),
            Err(CatalogError::Exists(Some(_)))
        ));
        m.abort(&t, &[]);
        assert!(roles.by_name("alice", &own).is_none());
        roles.vacuum(m.horizon());
        assert_eq!(roles.visible(&m.snapshot(&slot, 0, 0)).len(), 13);
    }
}
