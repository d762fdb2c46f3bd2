//! Object privileges: what a statement needs (collected while it is planned) and whether the
//! current role has it, as PostgreSQL 15's ExecCheckRTPerms and aclchk.c decide.
//!
//! # Where the check runs
//!
//! PostgreSQL checks a statement's table privileges at executor start, with the role current
//! then. threadgres's planner records what each relation reference needs in a [`Collector`]
//! (one [`RelPerm`] per relation and checking role: the privileges, and the columns read,
//! inserted and updated), the session takes the list after analysis and [`check`]s it before
//! the statement runs, and a prepared statement keeps the list and checks it again at every
//! Bind / EXECUTE: a REVOKE (which writes a new relation version, so the statement is planned
//! again) or a SET ROLE between two executions is seen, as in PostgreSQL.
//!
//! Columns are marked where the planner resolves a column reference to a table column (its
//! `origin`), and for every column a `*` expands to. A view's query is planned with the view
//! owner as the checking role (`TableCx::check_as`), so its tables are checked as the owner's,
//! and the view itself as the current user's.
//!
//! # Cost
//!
//! A superuser's statements are checked with one comparison; an owner's, when the relation has
//! no ACL (no GRANT / REVOKE was ever run on it), with one more per relation. The collected list
//! has one entry per relation reference of the statement (bounded by the statement's size).

use std::cell::{Cell, RefCell};
use std::sync::Arc;

use super::engine::Rel;
use crate::catalog::acl::{self, Acl, ObjKind};
use crate::catalog::roles::Roles;
use crate::catalog::{Oid, RelKind};
use crate::error::{code, PgError, PgResult};
use crate::sql::context::SessionCtx;
use crate::txn::Snapshot;

/// pg_read_all_data and pg_write_all_data (PostgreSQL 14+).
const PG_READ_ALL_DATA: Oid = 6181;
const PG_WRITE_ALL_DATA: Oid = 6182;

/// What a statement reads or writes.
#[derive(Debug, Clone)]
pub enum Target {
    Rel(Arc<Rel>),
    /// A system catalog (owned by the bootstrap superuser): its OID, its kind's word and name.
    Catalog(Oid, &'static str, &'static str),
}

/// What one relation reference needs (PostgreSQL's RTEPermissionInfo).
#[derive(Debug, Clone)]
pub struct RelPerm {
    pub target: Target,
    /// The role checked: None for the current user, the owner for a view's tables.
    pub as_user: Option<Oid>,
    pub required: u32,
    /// Column numbers (1-based) read, inserted, updated.
    pub selected: Vec<i16>,
    pub inserted: Vec<i16>,
    pub updated: Vec<i16>,
}

impl RelPerm {
    fn oid(&self) -> Oid {
        match &self.target {
            Target::Rel(r) => r.oid,
            Target::Catalog(o, ..) => *o,
        }
    }
}

/// Which column list a mark goes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColUse {
    Select,
    Insert,
    Update,
}

/// What the statement being planned needs, filled by the planner.
#[derive(Default, Debug)]
pub struct Collector {
    rels: RefCell<Vec<RelPerm>>,
    /// While > 0, column references are not marked (CHECK constraints and defaults, which
    /// PostgreSQL does not check).
    suspended: Cell<u32>,
}

impl Collector {
    pub fn clear(&self) {
        self.rels.borrow_mut().clear();
        self.suspended.set(0);
    }

    /// The list as collected (the simple-query path checks it in place, keeping the vector's
    /// allocation for the next statement).
    pub fn list(&self) -> std::cell::Ref<'_, Vec<RelPerm>> {
        self.rels.borrow()
    }

    pub fn take(&self) -> Vec<RelPerm> {
        std::mem::take(&mut *self.rels.borrow_mut())
    }

    fn entry<R>(
        &self,
        oid: Oid,
        as_user: Option<Oid>,
        f: impl FnOnce(&mut RelPerm) -> R,
    ) -> Option<R> {
        let mut rels = self.rels.borrow_mut();
        rels.iter_mut()
            .find(|p| p.oid() == oid && p.as_user == as_user)
            .map(f)
    }

    /// Records that `target` is referenced and needs `bits`.
    pub fn require(&self, target: Target, as_user: Option<Oid>, bits: u32) {
        let oid = match &target {
            Target::Rel(r) => r.oid,
            Target::Catalog(o, ..) => *o,
        };
        if self.entry(oid, as_user, |p| p.required |= bits).is_some() {
            return;
        }
        self.rels.borrow_mut().push(RelPerm {
            target,
            as_user,
            required: bits,
            selected: Vec::new(),
            inserted: Vec::new(),
            updated: Vec::new(),
        });
    }

    /// Marks column `attnum` of relation `oid` (if referenced) as read / inserted / updated.
    pub fn mark(&self, oid: Oid, as_user: Option<Oid>, attnum: i16, what: ColUse) {
        if what == ColUse::Select && self.suspended.get() > 0 {
            return;
        }
        self.entry(oid, as_user, |p| {
            let list = match what {
                ColUse::Select => {
                    p.required |= acl::SELECT;
                    &mut p.selected
                }
                ColUse::Insert => {
                    p.required |= acl::INSERT;
                    &mut p.inserted
                }
                ColUse::Update => {
                    p.required |= acl::UPDATE;
                    &mut p.updated
                }
            };
            if !list.contains(&attnum) {
                list.push(attnum);
            }
        });
    }

    /// Stops (true) or resumes (false) marking column reads.
    pub fn suspend(&self, on: bool) {
        let n = self.suspended.get();
        self.suspended
            .set(if on { n + 1 } else { n.saturating_sub(1) });
    }
}

/// Who is asking: the current role and whether it is a superuser, and the role catalog.
pub struct Who<'a> {
    pub role: Oid,
    pub superuser: bool,
    pub roles: &'a Roles,
    pub snap: &'a Snapshot,
}

impl Who<'_> {
    pub fn has_privs_of(&self, member: Oid, role: Oid) -> bool {
        has_privs_of(self.roles, self.snap, member, role)
    }

    fn is_superuser(&self, role: Oid) -> bool {
        if role == self.role {
            return self.superuser;
        }
        self.roles
            .by_oid(role, self.snap)
            .is_some_and(|r| r.def.superuser)
    }
}

/// PostgreSQL's has_privs_of_role, with pg_database_owner standing for the database's owner
/// (the bootstrap superuser: databases are not created by users yet).
pub fn has_privs_of(roles: &Roles, snap: &Snapshot, member: Oid, role: Oid) -> bool {
    if member == role {
        return true;
    }
    if role == crate::catalog::roles::PG_DATABASE_OWNER {
        return has_privs_of(
            roles,
            snap,
            member,
            crate::catalog::roles::BOOTSTRAP_SUPERUSER,
        );
    }
    roles.is_member(member, role, true, snap)
}

/// A schema as privileges see it.
#[derive(Debug, Clone)]
pub struct SchemaInfo {
    pub oid: Oid,
    pub owner: Oid,
    /// None: the owner's defaults.
    pub acl: Option<Acl>,
    pub builtin: bool,
    /// A session's temporary schema: every right of a schema for whoever may use it (only
    /// its own session can), as pg_namespace_aclmask grants them.
    pub temp: bool,
}

/// The schema `name` of `database` with its owner and ACL, as `snap` sees it.
pub fn schema_info(
    catalog: &super::engine::SqlCatalog,
    snap: &Snapshot,
    database: &str,
    name: &str,
) -> Option<SchemaInfo> {
    if let Some((oid, _, owner)) = super::catalog::NAMESPACES.iter().find(|n| n.1 == name) {
        let changed = catalog.namespaces.builtin_acl(database, name, snap);
        return Some(SchemaInfo {
            oid: *oid,
            owner: changed.as_ref().map_or(*owner, |n| n.owner),
            acl: match changed {
                Some(n) => n.acl.clone(),
                None => builtin_schema_acl(*oid),
            },
            builtin: true,
            temp: false,
        });
    }
    let n = catalog.namespaces.lookup(database, name, snap)?;
    Some(SchemaInfo {
        oid: n.oid,
        owner: n.owner,
        acl: n.acl.clone(),
        builtin: false,
        temp: super::engine::is_temp_schema(name),
    })
}

/// The ACLs initdb gives the built-in schemas: pg_catalog and information_schema are usable
/// by everyone, public (owned by pg_database_owner) too.
pub fn builtin_schema_acl(oid: Oid) -> Option<Acl> {
    let owner = match oid {
        11 | 13207 => crate::catalog::roles::BOOTSTRAP_SUPERUSER,
        2200 => crate::catalog::roles::PG_DATABASE_OWNER,
        _ => return None,
    };
    Some(vec![
        acl::AclItem {
            grantee: owner,
            grantor: owner,
            privs: acl::USAGE | acl::CREATE,
            goptions: 0,
        },
        acl::AclItem {
            grantee: acl::PUBLIC,
            grantor: owner,
            privs: acl::USAGE,
            goptions: 0,
        },
    ])
}

/// The ACL of database `name`: granted, or the defaults (template databases: CONNECT for
/// the owner only, as initdb leaves them).
pub fn database_acl(inst: &crate::instance::Instance, snap: &Snapshot, name: &str) -> Acl {
    if let Some(a) = inst
        .catalog
        .namespaces
        .database_acl(name, snap)
        .and_then(|n| n.acl.clone())
    {
        return a;
    }
    let owner = crate::catalog::roles::BOOTSTRAP_SUPERUSER;
    if name == "template0" || name == "template1" {
        return vec![
            acl::AclItem {
                grantee: acl::PUBLIC,
                grantor: owner,
                privs: acl::CONNECT,
                goptions: 0,
            },
            acl::AclItem {
                grantee: owner,
                grantor: owner,
                privs: acl::ALL_DATABASE,
                goptions: 0,
            },
        ];
    }
    acl::default_acl(ObjKind::Database, owner)
}

/// pg_namespace_aclmask: which of `want` `role` holds on schema `s`.
pub fn schema_mask(who: &Who<'_>, role: Oid, s: &SchemaInfo, want: u32) -> u32 {
    if s.temp {
        return want & acl::ALL_SCHEMA;
    }
    acl_mask(who, role, s.owner, s.acl.as_ref(), ObjKind::Schema, want)
}

/// The ACL kind of a relation.
pub fn rel_obj_kind(kind: RelKind) -> ObjKind {
    match kind {
        RelKind::Sequence => ObjKind::Sequence,
        _ => ObjKind::Table,
    }
}

/// The word aclcheck_error uses for a relation kind.
pub fn rel_kind_word(kind: RelKind) -> &'static str {
    match kind {
        RelKind::Sequence => "sequence",
        RelKind::View => "view",
        RelKind::Index => "index",
        RelKind::Table => "table",
        RelKind::MatView => "materialized view",
    }
}

/// 42501 `permission denied for <kind> <name>`.
pub fn denied(kind: &str, name: &str) -> PgError {
    PgError::new(
        code::INSUFFICIENT_PRIVILEGE,
        format!("permission denied for {kind} {name}"),
    )
}

/// 42501 `must be owner of <kind> <name>`.
pub fn not_owner(kind: &str, name: &str) -> PgError {
    PgError::new(
        code::INSUFFICIENT_PRIVILEGE,
        format!("must be owner of {kind} {name}"),
    )
}

/// The ACL of a system catalog: readable by everyone except those that hold passwords.
pub fn catalog_acl(oid: Oid) -> Acl {
    let mut acl = acl::default_acl(ObjKind::Table, crate::catalog::roles::BOOTSTRAP_SUPERUSER);
    // pg_authid, pg_shadow, pg_user_mapping, pg_statistic, pg_subscription keep no PUBLIC.
    if !matches!(oid, 1260 | 12005 | 1418 | 2619 | 6100) {
        acl.push(acl::AclItem {
            grantee: acl::PUBLIC,
            grantor: crate::catalog::roles::BOOTSTRAP_SUPERUSER,
            privs: acl::SELECT,
            goptions: 0,
        });
    }
    acl
}

/// pg_class_aclmask: which of `want` `role` holds on relation `rel`.
pub fn rel_mask(who: &Who<'_>, role: Oid, rel: &Rel, want: u32) -> u32 {
    acl_mask(
        who,
        role,
        rel.owner,
        rel.acl.as_ref(),
        rel_obj_kind(rel.kind),
        want,
    )
}

/// aclmask over `acl` (None: the kind's defaults for `owner`), with the superuser and
/// predefined-role rules of pg_class_aclmask.
pub fn acl_mask(
    who: &Who<'_>,
    role: Oid,
    owner: Oid,
    acl: Option<&Acl>,
    kind: ObjKind,
    want: u32,
) -> u32 {
    if who.is_superuser(role) {
        return want;
    }
    let hp = |a, b| who.has_privs_of(a, b);
    let mut got = match acl {
        // The fast path for an owner of an object nobody granted anything on.
        None if role == owner => want & (kind.all() | (kind.all() << 16)),
        None => acl::mask(&acl::default_acl(kind, owner), role, owner, want, true, &hp),
        Some(a) => acl::mask(a, role, owner, want, true, &hp),
    };
    if got != want && matches!(kind, ObjKind::Table | ObjKind::Sequence | ObjKind::Schema) {
        let read = if kind == ObjKind::Schema {
            acl::USAGE
        } else {
            acl::SELECT
        };
        if want & read != 0 && hp(role, PG_READ_ALL_DATA) {
            got |= read;
        }
        let write = if kind == ObjKind::Schema {
            acl::USAGE
        } else {
            acl::INSERT | acl::UPDATE | acl::DELETE
        };
        if want & write != 0 && hp(role, PG_WRITE_ALL_DATA) {
            got |= want & write;
        }
    }
    got
}

/// What `role` holds of `want` on column `attnum` (1-based) of `rel`, from the column's own
/// ACL only.
pub fn column_mask(who: &Who<'_>, role: Oid, rel: &Rel, attnum: i16, want: u32) -> u32 {
    if who.is_superuser(role) {
        return want;
    }
    let pos = (attnum - 1) as usize;
    match rel.column_acls.iter().find(|(p, _)| *p == pos) {
        Some((_, a)) => acl::mask(a, role, rel.owner, want, true, &|a, b| {
            who.has_privs_of(a, b)
        }),
        None => 0,
    }
}

/// ExecCheckRTPerms: fails with PostgreSQL's error for the first relation whose needs the
/// current role (or the view owner checked in its place) does not meet.
pub fn check(perms: &[RelPerm], who: &Who<'_>) -> PgResult<()> {
    for p in perms {
        let role = p.as_user.unwrap_or(who.role);
        if role == who.role && who.superuser {
            continue;
        }
        match &p.target {
            Target::Catalog(oid, kind, name) => {
                let acl = catalog_acl(*oid);
                let have = acl_mask(
                    who,
                    role,
                    crate::catalog::roles::BOOTSTRAP_SUPERUSER,
                    Some(&acl),
                    ObjKind::Table,
                    p.required,
                );
                if have != p.required {
                    return Err(denied(kind, name));
                }
            }
            Target::Rel(rel) => check_rel(who, role, rel, p)?,
        }
    }
    Ok(())
}

fn check_rel(who: &Who<'_>, role: Oid, rel: &Rel, p: &RelPerm) -> PgResult<()> {
    if rel.acl.is_none() && role == rel.owner {
        return Ok(());
    }
    let have = rel_mask(who, role, rel, p.required);
    let remaining = p.required & !have;
    if remaining == 0 {
        return Ok(());
    }
    let fail = || denied(rel_kind_word(rel.kind), &rel.name.name);
    if remaining & !(acl::SELECT | acl::INSERT | acl::UPDATE) != 0 {
        return Err(fail());
    }
    let live: Vec<i16> = rel.live_columns().map(|(i, _)| i as i16 + 1).collect();
    let all_cols = |bit: u32, cols: &[i16]| -> bool {
        if cols.is_empty() {
            // No column named: any column with the privilege will do.
            return live
                .iter()
                .any(|c| column_mask(who, role, rel, *c, bit) != 0);
        }
        cols.iter()
            .all(|c| column_mask(who, role, rel, *c, bit) != 0)
    };
    for (bit, cols) in [
        (acl::SELECT, &p.selected),
        (acl::INSERT, &p.inserted),
        (acl::UPDATE, &p.updated),
    ] {
        if remaining & bit != 0 && !all_cols(bit, cols) {
            return Err(fail());
        }
    }
    Ok(())
}

/// Whether the current role holds any of `bits` on `rel` (pg_class_aclcheck with
/// ACLMASK_ANY); 42501 `permission denied for table t` if not.
pub fn check_any(cx: &mut dyn SessionCtx, rel: &Rel, bits: u32) -> PgResult<()> {
    let role = cx.role_oid();
    check_any_as(cx, rel, bits, role)
}

/// `check_any` for `role` instead of the current role (a view's owner, whose privileges the
/// relations under the view are used with).
pub fn check_any_as(cx: &mut dyn SessionCtx, rel: &Rel, bits: u32, role: Oid) -> PgResult<()> {
    let snap = cx.catalog_snapshot()?;
    let roles = &cx.instance().catalog.roles;
    let superuser = roles.by_oid(role, &snap).is_some_and(|r| r.def.superuser);
    let who = Who {
        role,
        superuser,
        roles,
        snap: &snap,
    };
    if (0..16)
        .map(|b| 1u32 << b)
        .filter(|b| bits & b != 0)
        .any(|b| rel_mask(&who, role, rel, b) != 0)
    {
        return Ok(());
    }
    Err(denied(rel_kind_word(rel.kind), &rel.name.name))
}

// Roles as the session's catalog snapshot sees them (DDL, the system functions and the
// privilege checks all read them).

pub fn does_not_exist(name: &str) -> PgError {
    PgError::new(
        code::UNDEFINED_OBJECT,
        format!("role \"{name}\" does not exist"),
    )
}

/// The role `name` as the session's catalog snapshot sees it.
pub fn lookup(
    cx: &mut dyn SessionCtx,
    name: &str,
) -> PgResult<Option<std::sync::Arc<crate::catalog::roles::Role>>> {
    let snap = cx.catalog_snapshot()?;
    Ok(cx.instance().catalog.roles.by_name(name, &snap))
}

/// The OID of role `name`; 42704 if there is none.
pub fn role_oid(cx: &mut dyn SessionCtx, name: &str) -> PgResult<u32> {
    lookup(cx, name)?
        .map(|r| r.oid)
        .ok_or_else(|| does_not_exist(name))
}

/// pg_get_userbyid: the role's name, or `unknown (OID=n)`.
pub fn name_by_oid(cx: &mut dyn SessionCtx, oid: u32) -> String {
    let Ok(snap) = cx.catalog_snapshot() else {
        return format!("unknown (OID={oid})");
    };
    cx.instance()
        .catalog
        .roles
        .by_oid(oid, &snap)
        .map_or_else(|| format!("unknown (OID={oid})"), |r| r.def.name.clone())
}

/// Whether `member` holds the admin option on `role`, directly or through roles it is a
/// member of (PostgreSQL's is_admin_of_role; superusers always do).
pub fn is_admin_of(cx: &mut dyn SessionCtx, member: u32, role: u32) -> PgResult<bool> {
    let snap = cx.catalog_snapshot()?;
    let roles = &cx.instance().catalog.roles;
    if roles.by_oid(member, &snap).is_some_and(|r| r.def.superuser) {
        return Ok(true);
    }
    Ok(roles
        .members(&snap)
        .iter()
        .any(|m| m.role == role && m.admin && roles.is_member(member, m.member, false, &snap)))
}
