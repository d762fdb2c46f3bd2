//! GRANT / REVOKE of object privileges on tables, views, sequences and their columns, as
//! PostgreSQL 15's `catalog/aclchk.c` does them (ExecuteGrantStmt, ExecGrant_Relation,
//! ExecGrant_Attribute): the grantor is chosen as `select_best_grantor` chooses it (the owner
//! for the owner and superusers, else the role holding the grant options), what the grantor
//! cannot grant is dropped with PostgreSQL's warnings, and the ACLs are changed with
//! `catalog::acl::update` (REVOKE ... CASCADE / RESTRICT of dependent grants included).
//!
//! An ACL change writes a new version of the relation (as ALTER TABLE does), so it commits and
//! rolls back with the transaction, and prepared statements are planned again (and their
//! privileges checked against the new ACL). Schemas and databases: not yet (0A000), nor ALTER
//! DEFAULT PRIVILEGES.

use std::sync::Arc;

use pg_query::protobuf::{self, node::Node as N, GrantTargetType, ObjectType};

use super::role::Spec;
use super::{find_locked, replace, Ddl};
use crate::catalog::acl::{self, Acl, AclItem, ObjKind};
use crate::catalog::{Oid, RelKind};
use crate::error::{code, PgError, PgResult};
use crate::sql::engine::Rel;
use crate::sql::expr::SessionCtx;
use crate::sql::privs::denied;
use crate::txn::lock::LockMode;

const INVALID_GRANT_OPERATION: &str = "0LP01";
const WARNING_PRIVILEGE_NOT_GRANTED: &str = "01007";
const WARNING_PRIVILEGE_NOT_REVOKED: &str = "01006";

/// What a GRANT / REVOKE is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ObjType {
    /// ON [TABLE]: tables, views and (with a warning for other privileges) sequences.
    Table,
    Sequence,
}

/// An analyzed GRANT / REVOKE of object privileges.
#[derive(Debug, Clone)]
pub struct Grant {
    pub is_grant: bool,
    pub objtype: ObjType,
    /// (schema, name) of the named relations.
    pub objects: Vec<(String, String)>,
    /// ALL TABLES / SEQUENCES IN SCHEMA: the schemas.
    pub in_schemas: Vec<String>,
    /// None: ALL [PRIVILEGES].
    pub privileges: Option<u32>,
    /// Column privileges: (privilege bits, column names).
    pub columns: Vec<(u32, Vec<String>)>,
    pub grantees: Vec<Spec>,
    /// WITH GRANT OPTION, or REVOKE GRANT OPTION FOR.
    pub grant_option: bool,
    pub cascade: bool,
    pub grantor: Option<Spec>,
}

/// PostgreSQL's string_to_privilege.
fn privilege_bit(name: &str) -> PgResult<u32> {
    Ok(match name {
        "insert" => acl::INSERT,
        "select" => acl::SELECT,
        "update" => acl::UPDATE,
        "delete" => acl::DELETE,
        "truncate" => acl::TRUNCATE,
        "references" => acl::REFERENCES,
        "trigger" => acl::TRIGGER,
        "execute" => acl::EXECUTE,
        "usage" => acl::USAGE,
        "create" => acl::CREATE,
        "temporary" | "temp" => acl::CREATE_TEMP,
        "connect" => acl::CONNECT,
        "set" => 1 << 12,
        "alter system" => 1 << 13,
        "rule" => 0,
        _ => {
            return Err(PgError::new(
                code::SYNTAX_ERROR,
                format!("unrecognized privilege type \"{name}\""),
            ))
        }
    })
}

/// PostgreSQL's privilege_to_string.
fn privilege_name(bit: u32) -> &'static str {
    match bit {
        acl::INSERT => "INSERT",
        acl::SELECT => "SELECT",
        acl::UPDATE => "UPDATE",
        acl::DELETE => "DELETE",
        acl::TRUNCATE => "TRUNCATE",
        acl::REFERENCES => "REFERENCES",
        acl::TRIGGER => "TRIGGER",
        acl::EXECUTE => "EXECUTE",
        acl::USAGE => "USAGE",
        acl::CREATE => "CREATE",
        acl::CREATE_TEMP => "TEMP",
        acl::CONNECT => "CONNECT",
        4096 => "SET",
        8192 => "ALTER SYSTEM",
        _ => "???",
    }
}

fn str_of(n: &protobuf::Node) -> Option<&str> {
    match n.node.as_ref()? {
        N::String(s) => Some(&s.sval),
        _ => None,
    }
}

/// Decides what a GrantStmt (or ALTER DEFAULT PRIVILEGES) is; None for other statements.
pub fn analyze(node: &N) -> Option<PgResult<Ddl>> {
    match node {
        N::GrantStmt(g) => Some(analyze_grant(g).map(|g| Ddl::Grant(Box::new(g)))),
        N::AlterDefaultPrivilegesStmt(_) => Some(Err(PgError::feature_not_supported(
            "ALTER DEFAULT PRIVILEGES is not supported yet",
        ))),
        _ => None,
    }
}

fn analyze_grant(g: &protobuf::GrantStmt) -> PgResult<Grant> {
    let objtype = match ObjectType::try_from(g.objtype).unwrap_or(ObjectType::Undefined) {
        ObjectType::ObjectTable => ObjType::Table,
        ObjectType::ObjectSequence => ObjType::Sequence,
        ObjectType::ObjectSchema => {
            return Err(PgError::feature_not_supported(
                "GRANT / REVOKE on schemas is not supported yet",
            ))
        }
        ObjectType::ObjectDatabase => {
            return Err(PgError::feature_not_supported(
                "GRANT / REVOKE on databases is not supported yet",
            ))
        }
        _ => {
            return Err(PgError::feature_not_supported(
                "GRANT / REVOKE on this kind of object is not supported yet",
            ))
        }
    };
    let (all, word) = match objtype {
        ObjType::Table => (acl::ALL_RELATION | acl::ALL_SEQUENCE, "relation"),
        ObjType::Sequence => (acl::ALL_SEQUENCE, "sequence"),
    };
    let mut privileges = None;
    let mut columns = Vec::new();
    if !g.privileges.is_empty() {
        let mut bits = 0;
        for p in &g.privileges {
            let Some(N::AccessPriv(ap)) = p.node.as_ref() else {
                continue;
            };
            if !ap.cols.is_empty() {
                if objtype != ObjType::Table {
                    return Err(PgError::new(
                        INVALID_GRANT_OPERATION,
                        "column privileges are only valid for relations",
                    ));
                }
                let bit = privilege_bit(&ap.priv_name)?;
                let cols = ap.cols.iter().filter_map(str_of).map(String::from).collect();
                columns.push((bit, cols));
                continue;
            }
            let bit = privilege_bit(&ap.priv_name)?;
            if bit & !all != 0 {
                return Err(PgError::new(
                    INVALID_GRANT_OPERATION,
                    format!("invalid privilege type {} for {word}", privilege_name(bit)),
                ));
            }
            bits |= bit;
        }
        privileges = Some(bits);
    }
    let mut objects = Vec::new();
    let mut in_schemas = Vec::new();
    let all_in_schema = g.targtype == GrantTargetType::AclTargetAllInSchema as i32;
    for o in &g.objects {
        match o.node.as_ref() {
            Some(N::RangeVar(rv)) => objects.push((rv.schemaname.clone(), rv.relname.clone())),
            Some(N::String(s)) if all_in_schema => in_schemas.push(s.sval.clone()),
            _ => {}
        }
    }
    let grantees = g
        .grantees
        .iter()
        .filter_map(|n| match n.node.as_ref()? {
            N::RoleSpec(r) => Some(Spec::of(r)),
            _ => None,
        })
        .collect();
    Ok(Grant {
        is_grant: g.is_grant,
        objtype,
        objects,
        in_schemas,
        privileges,
        columns,
        grantees,
        grant_option: g.grant_option,
        cascade: g.behavior == protobuf::DropBehavior::DropCascade as i32,
        grantor: g.grantor.as_ref().map(Spec::of),
    })
}

/// Runs a GRANT / REVOKE of object privileges.
pub fn execute(g: &Grant, cx: &mut dyn SessionCtx) -> PgResult<()> {
    let mut rels: Vec<Arc<Rel>> = Vec::new();
    for (schema, name) in &g.objects {
        let Some(r) = find_locked(cx, schema, name, LockMode::ShareUpdateExclusive)? else {
            return Err(PgError::new(
                code::UNDEFINED_TABLE,
                format!("relation \"{name}\" does not exist"),
            ));
        };
        rels.push(r);
    }
    for s in &g.in_schemas {
        let snap = cx.catalog_snapshot()?;
        let db = cx.database().to_string();
        if !super::schema::exists(cx, s)? {
            return Err(PgError::new(
                code::INVALID_SCHEMA_NAME,
                format!("schema \"{s}\" does not exist"),
            ));
        }
        let want = |k: RelKind| match g.objtype {
            ObjType::Table => matches!(k, RelKind::Table | RelKind::View),
            ObjType::Sequence => k == RelKind::Sequence,
        };
        let found: Vec<Arc<Rel>> = cx
            .instance()
            .catalog
            .visible(&snap)
            .into_iter()
            .filter(|r| r.name.database == db && r.name.schema == *s && want(r.kind))
            .collect();
        for r in found {
            if let Some(r) = find_locked(cx, s, &r.name.name, LockMode::ShareUpdateExclusive)? {
                rels.push(r);
            }
        }
    }
    let mut grantees = Vec::new();
    for spec in &g.grantees {
        grantees.push(match spec {
            Spec::Public => acl::PUBLIC,
            Spec::Name(n) => super::role::role_oid(cx, n)?,
            Spec::CurrentUser => cx.role_oid(),
            Spec::SessionUser => {
                let n = cx.session_user().to_string();
                super::role::role_oid(cx, &n)?
            }
        });
    }
    if let Some(spec) = &g.grantor {
        let oid = match spec {
            Spec::Name(n) => super::role::role_oid(cx, n)?,
            Spec::Public => super::role::role_oid(cx, "public")?,
            Spec::CurrentUser => cx.role_oid(),
            Spec::SessionUser => {
                let n = cx.session_user().to_string();
                super::role::role_oid(cx, &n)?
            }
        };
        if oid != cx.role_oid() {
            return Err(PgError::feature_not_supported("grantor must be current user"));
        }
    }
    for rel in rels {
        grant_relation(g, cx, &rel, &grantees)?;
    }
    Ok(())
}

/// The grant options `role` holds directly (PUBLIC's do not count) on `acl`, the owner holding
/// all (aclmask_direct).
fn direct_goptions(acl: &Acl, role: Oid, owner: Oid, want: u32) -> u32 {
    if role == owner {
        return want;
    }
    acl.iter()
        .filter(|a| a.grantee == role)
        .fold(0, |m, a| m | (a.goptions & want))
}

/// select_best_grantor: the role the change is recorded as made by, and the grant options it
/// holds of `privileges`.
fn best_grantor(
    cx: &mut dyn SessionCtx,
    privileges: u32,
    acl: &Acl,
    owner: Oid,
) -> PgResult<(Oid, u32)> {
    let me = cx.role_oid();
    if me == owner || super::role::is_superuser(cx)? {
        return Ok((owner, privileges));
    }
    let snap = cx.catalog_snapshot()?;
    let roles = &cx.instance().catalog.roles;
    // The current role first, then the roles whose privileges it has.
    let mut candidates = vec![me];
    candidates.extend(
        roles
            .visible(&snap)
            .iter()
            .map(|r| r.oid)
            .filter(|&o| o != me && roles.is_member(me, o, true, &snap)),
    );
    let mut best = (me, 0u32);
    for c in candidates {
        let got = direct_goptions(acl, c, owner, privileges);
        if got == privileges {
            return Ok((c, got));
        }
        if got.count_ones() > best.1.count_ones() {
            best = (c, got);
        }
    }
    Ok(best)
}

/// restrict_and_check_grant: what of `privileges` the grantor may grant or revoke, with
/// PostgreSQL's warnings; an error when it holds no privilege at all on the object.
#[allow(clippy::too_many_arguments)]
fn restrict(
    cx: &mut dyn SessionCtx,
    is_grant: bool,
    avail: u32,
    all_privs: bool,
    privileges: u32,
    grantor: Oid,
    holds_any: bool,
    kind: &str,
    objname: &str,
    colname: Option<&str>,
) -> PgResult<u32> {
    let _ = grantor;
    if avail == 0 && !holds_any {
        return Err(match colname {
            Some(c) => PgError::new(
                code::INSUFFICIENT_PRIVILEGE,
                format!("permission denied for column {c} of relation {objname}"),
            ),
            None => denied(kind, objname),
        });
    }
    let this = privileges & avail;
    let what = match colname {
        Some(c) => format!("column \"{c}\" of relation \"{objname}\""),
        None => format!("\"{objname}\""),
    };
    let warn = |msg: String, sqlstate| PgError::warning(sqlstate, msg);
    if is_grant {
        if this == 0 {
            cx.notice(warn(
                format!("no privileges were granted for {what}"),
                WARNING_PRIVILEGE_NOT_GRANTED,
            ));
        } else if !all_privs && this != privileges {
            cx.notice(warn(
                format!("not all privileges were granted for {what}"),
                WARNING_PRIVILEGE_NOT_GRANTED,
            ));
        }
    } else if this == 0 {
        cx.notice(warn(
            format!("no privileges could be revoked for {what}"),
            WARNING_PRIVILEGE_NOT_REVOKED,
        ));
    } else if !all_privs && this != privileges {
        cx.notice(warn(
            format!("not all privileges could be revoked for {what}"),
            WARNING_PRIVILEGE_NOT_REVOKED,
        ));
    }
    Ok(this)
}

/// merge_acl_with_grant: applies the change to `acl` for each grantee.
#[allow(clippy::too_many_arguments)]
fn merge(
    acl: &mut Acl,
    g: &Grant,
    grantees: &[Oid],
    privileges: u32,
    grantor: Oid,
    owner: Oid,
    hp: &dyn Fn(Oid, Oid) -> bool,
) -> PgResult<()> {
    for &grantee in grantees {
        if g.is_grant && g.grant_option && grantee == acl::PUBLIC {
            return Err(PgError::new(
                INVALID_GRANT_OPERATION,
                "grant options can only be granted to roles",
            ));
        }
        let item = AclItem {
            grantee,
            grantor,
            privs: if g.is_grant || !g.grant_option {
                privileges
            } else {
                0
            },
            goptions: if !g.is_grant || g.grant_option {
                privileges
            } else {
                0
            },
        };
        acl::update(acl, item, g.is_grant, owner, g.cascade, hp).map_err(|_| {
            PgError::new(
                code::DEPENDENT_OBJECTS_STILL_EXIST,
                "dependent privileges exist",
            )
            .with_hint("Use CASCADE to revoke them too.")
        })?;
    }
    Ok(())
}

/// ExecGrant_Relation for one relation.
fn grant_relation(
    g: &Grant,
    cx: &mut dyn SessionCtx,
    rel: &Arc<Rel>,
    grantees: &[Oid],
) -> PgResult<()> {
    let name = rel.name.name.clone();
    if rel.kind == RelKind::Index {
        return Err(PgError::new(
            code::WRONG_OBJECT_TYPE,
            format!("\"{name}\" is an index"),
        ));
    }
    let is_seq = rel.kind == RelKind::Sequence;
    if g.objtype == ObjType::Sequence && !is_seq {
        return Err(PgError::new(
            code::WRONG_OBJECT_TYPE,
            format!("\"{name}\" is not a sequence"),
        ));
    }
    let kind = if is_seq {
        ObjKind::Sequence
    } else {
        ObjKind::Table
    };
    let all_privs = g.privileges.is_none();
    let mut this = g.privileges.unwrap_or(if all_privs { kind.all() } else { 0 });
    if g.objtype == ObjType::Table {
        if is_seq {
            if this & !acl::ALL_SEQUENCE != 0 {
                cx.notice(PgError::warning(
                    INVALID_GRANT_OPERATION,
                    format!(
                        "sequence \"{name}\" only supports USAGE, SELECT, and UPDATE privileges"
                    ),
                ));
                this &= acl::ALL_SEQUENCE;
            }
        } else if this & !acl::ALL_RELATION != 0 {
            return Err(PgError::new(
                INVALID_GRANT_OPERATION,
                "invalid privilege type USAGE for table",
            ));
        }
    }
    // Column privileges: named ones, and on REVOKE of table privileges, every column's.
    let mut col_privs: Vec<(usize, u32)> = Vec::new();
    let mut add_col = |pos: usize, bits: u32| match col_privs.iter_mut().find(|(p, _)| *p == pos) {
        Some((_, b)) => *b |= bits,
        None => col_privs.push((pos, bits)),
    };
    for (bit, cols) in &g.columns {
        let mut bit = *bit;
        if bit & !acl::ALL_COLUMN != 0 {
            return Err(PgError::new(
                INVALID_GRANT_OPERATION,
                format!("invalid privilege type {} for column", privilege_name(bit)),
            ));
        }
        if is_seq && bit & !acl::SELECT != 0 {
            cx.notice(PgError::warning(
                INVALID_GRANT_OPERATION,
                format!("sequence \"{name}\" only supports SELECT column privileges"),
            ));
            bit &= acl::SELECT;
        }
        for c in cols {
            let Some(pos) = rel.live_columns().find(|(_, d)| d.name == *c).map(|(i, _)| i) else {
                return Err(PgError::new(
                    code::UNDEFINED_COLUMN,
                    format!("column \"{c}\" of relation \"{name}\" does not exist"),
                ));
            };
            add_col(pos, bit);
        }
    }
    if !g.is_grant && this & acl::ALL_COLUMN != 0 {
        let live: Vec<usize> = rel.live_columns().map(|(i, _)| i).collect();
        for pos in live {
            add_col(pos, this & acl::ALL_COLUMN);
        }
    }
    let hp_owned = {
        let snap = cx.catalog_snapshot()?;
        move |roles: &crate::catalog::roles::Roles, a: Oid, b: Oid| {
            a == b || roles.is_member(a, b, true, &snap)
        }
    };
    let owner = rel.owner;
    let mut new_acl = rel.acl.clone();
    let mut new_cols = rel.column_acls.clone();
    let word = if is_seq { "sequence" } else { "table" };
    if this != 0 || all_privs {
        let old = rel
            .acl
            .clone()
            .unwrap_or_else(|| acl::default_acl(kind, owner));
        let (grantor, avail) = best_grantor(cx, this, &old, owner)?;
        let holds_any = avail != 0 || {
            let roles = &cx.instance().catalog.roles;
            let whole = kind.all() | (kind.all() << 16);
            acl::mask(&old, grantor, owner, whole, false, &|a, b| {
                hp_owned(roles, a, b)
            }) != 0
        };
        let this = restrict(
            cx, g.is_grant, avail, all_privs, this, grantor, holds_any, word, &name, None,
        )?;
        let mut acl = old;
        let roles = &cx.instance().catalog.roles;
        merge(&mut acl, g, grantees, this, grantor, owner, &|a, b| {
            hp_owned(roles, a, b)
        })?;
        new_acl = Some(acl);
    }
    col_privs.sort_by_key(|(p, _)| *p);
    for (pos, bits) in col_privs {
        let old_col: Acl = new_cols
            .iter()
            .find(|(p, _)| *p == pos)
            .map(|(_, a)| a.clone())
            .unwrap_or_default();
        // The grantor is chosen over the table's and the column's ACLs together.
        let mut merged = rel
            .acl
            .clone()
            .unwrap_or_else(|| acl::default_acl(kind, owner));
        merged.extend(old_col.iter().copied());
        let (grantor, avail) = best_grantor(cx, bits, &merged, owner)?;
        let holds_any = avail != 0 || {
            let roles = &cx.instance().catalog.roles;
            let whole = acl::ALL_COLUMN | (acl::ALL_COLUMN << 16);
            acl::mask(&old_col, grantor, owner, whole, false, &|a, b| {
                hp_owned(roles, a, b)
            }) != 0
        };
        let colname = rel.columns[pos].name.clone();
        let this = restrict(
            cx,
            g.is_grant,
            avail,
            false,
            bits,
            grantor,
            holds_any,
            "column",
            &name,
            Some(&colname),
        )?;
        let mut acl = old_col;
        let roles = &cx.instance().catalog.roles;
        merge(&mut acl, g, grantees, this, grantor, owner, &|a, b| {
            hp_owned(roles, a, b)
        })?;
        new_cols.retain(|(p, _)| *p != pos);
        if !acl.is_empty() {
            new_cols.push((pos, acl));
            new_cols.sort_by_key(|(p, _)| *p);
        }
    }
    if new_acl == rel.acl && new_cols == rel.column_acls {
        return Ok(());
    }
    replace(cx, rel, |n| {
        n.acl = new_acl;
        n.column_acls = new_cols;
    })?;
    Ok(())
}

/// Whether the current role has the privileges of `owner` (or is a superuser): PostgreSQL's
/// object ownership test (pg_class_ownercheck and friends).
pub fn owns(cx: &mut dyn SessionCtx, owner: Oid) -> PgResult<bool> {
    let me = cx.role_oid();
    if me == owner || super::role::is_superuser(cx)? {
        return Ok(true);
    }
    let snap = cx.catalog_snapshot()?;
    Ok(cx.instance().catalog.roles.is_member(me, owner, true, &snap))
}

/// 42501 `must be owner of table t` (view, sequence, index) unless the current role owns `rel`.
pub fn check_owner(cx: &mut dyn SessionCtx, rel: &Rel) -> PgResult<()> {
    if owns(cx, rel.owner)? {
        return Ok(());
    }
    Err(crate::sql::privs::not_owner(
        crate::sql::privs::rel_kind_word(rel.kind),
        &rel.name.name,
    ))
}

/// Whether the current role holds any of `bits` on `rel` (pg_class_aclcheck with
/// ACLMASK_ANY); 42501 `permission denied for table t` if not.
pub fn check_any(cx: &mut dyn SessionCtx, rel: &Rel, bits: u32) -> PgResult<()> {
    let snap = cx.catalog_snapshot()?;
    let superuser = super::role::is_superuser(cx)?;
    let who = crate::sql::privs::Who {
        role: cx.role_oid(),
        superuser,
        roles: &cx.instance().catalog.roles,
        snap: &snap,
    };
    let role = who.role;
    if (0..16)
        .map(|b| 1u32 << b)
        .filter(|b| bits & b != 0)
        .any(|b| crate::sql::privs::rel_mask(&who, role, rel, b) != 0)
    {
        return Ok(());
    }
    Err(denied(
        crate::sql::privs::rel_kind_word(rel.kind),
        &rel.name.name,
    ))
}
