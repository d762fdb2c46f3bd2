//! CREATE / ALTER / DROP ROLE (and USER, GROUP), ALTER ROLE ... RENAME TO / SET / RESET,
//! GRANT role TO role and REVOKE role FROM role, as PostgreSQL 15's `commands/user.c` does
//! them: the same permission rules (superusers may do anything; CREATEROLE may create, alter
//! and drop non-superusers; only superusers touch superuser, replication and bypassrls roles;
//! a role may change its own password), the same errors and notices.
//!
//! Roles and memberships are versioned catalog entries (`catalog::roles`), written as the
//! session's transaction: role DDL commits and rolls back with it, as in PostgreSQL. When
//! another transaction in progress changed the same role, the statement waits for it and
//! looks again.
//!
//! Not here: ALTER ROLE ALL / IN DATABASE ... SET (per-database settings: 0A000), GRANTED BY
//! another role than the current one.

use pg_query::protobuf::{self, node::Node as N, RoleSpecType};

use super::notice;
use crate::catalog::password;
use crate::catalog::roles::{Member, Role, RoleDef, BOOTSTRAP_SUPERUSER, PG_DATABASE_OWNER};
use crate::catalog::{CatalogError, RelKind, FIRST_USER_OID};
use crate::error::{code, PgError, PgResult};
use crate::sql::context::SessionCtx;
use crate::sql::privs::{does_not_exist, is_admin_of, lookup};
use crate::sql::types::{Type, Value};
use std::sync::Arc;

const RESERVED_NAME: &str = "42939";
const INVALID_GRANT_OPERATION: &str = "0LP01";
const FEATURE_NOT_SUPPORTED: &str = "0A000";

/// A role as a statement names it.
#[derive(Debug, Clone, PartialEq)]
pub enum Spec {
    Name(String),
    CurrentUser,
    SessionUser,
    Public,
}

impl Spec {
    pub fn of(r: &protobuf::RoleSpec) -> Spec {
        match RoleSpecType::try_from(r.roletype).unwrap_or(RoleSpecType::Undefined) {
            RoleSpecType::RolespecCurrentRole | RoleSpecType::RolespecCurrentUser => {
                Spec::CurrentUser
            }
            RoleSpecType::RolespecSessionUser => Spec::SessionUser,
            RoleSpecType::RolespecPublic => Spec::Public,
            _ => Spec::Name(r.rolename.clone()),
        }
    }

    fn of_node(n: &protobuf::Node) -> Option<Spec> {
        match n.node.as_ref()? {
            N::RoleSpec(r) => Some(Spec::of(r)),
            N::String(s) => Some(Spec::Name(s.sval.clone())),
            N::AccessPriv(p) => Some(Spec::Name(p.priv_name.clone())),
            _ => None,
        }
    }
}

/// The options of CREATE / ALTER ROLE; None: not given.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// PASSWORD 'x' (Some(Some)) or PASSWORD NULL (Some(None)).
    password: Option<Option<String>>,
    superuser: Option<bool>,
    createdb: Option<bool>,
    createrole: Option<bool>,
    inherit: Option<bool>,
    login: Option<bool>,
    replication: Option<bool>,
    bypassrls: Option<bool>,
    conn_limit: Option<i32>,
    valid_until: Option<String>,
    in_roles: Vec<Spec>,
    members: Vec<Spec>,
    admins: Vec<Spec>,
    sysid: bool,
}

/// What SET / RESET does to a role's settings.
#[derive(Debug, Clone)]
pub enum SetAction {
    Set(String, String),
    Reset(String),
    ResetAll,
}

#[derive(Debug, Clone)]
pub enum RoleDdl {
    Create {
        name: String,
        options: Options,
    },
    Alter {
        role: Spec,
        options: Options,
    },
    AlterSet {
        role: Spec,
        action: SetAction,
    },
    Rename {
        old: String,
        new: String,
    },
    Drop {
        roles: Vec<Spec>,
        missing_ok: bool,
    },
    /// A statement whose analysis failed: the error, raised when it runs.
    Fail(PgError),
    /// GRANT / REVOKE [ADMIN OPTION FOR] role TO / FROM role.
    Grant {
        grant: bool,
        roles: Vec<Spec>,
        grantees: Vec<Spec>,
        admin: bool,
    },
}

impl RoleDdl {
    pub fn tag(&self) -> &'static str {
        match self {
            RoleDdl::Create { .. } | RoleDdl::Fail(_) => "CREATE ROLE",
            RoleDdl::Alter { .. } | RoleDdl::AlterSet { .. } | RoleDdl::Rename { .. } => {
                "ALTER ROLE"
            }
            RoleDdl::Drop { .. } => "DROP ROLE",
            RoleDdl::Grant { grant: true, .. } => "GRANT ROLE",
            RoleDdl::Grant { grant: false, .. } => "REVOKE ROLE",
        }
    }
}

fn conflicting(location: i32) -> PgError {
    PgError::new(code::SYNTAX_ERROR, "conflicting or redundant options")
        .at(u32::try_from(location + 1).ok())
}

fn options(nodes: &[protobuf::Node]) -> PgResult<Options> {
    let mut o = Options::default();
    for n in nodes {
        let Some(N::DefElem(d)) = n.node.as_ref() else {
            continue;
        };
        let arg = d.arg.as_ref().and_then(|a| a.node.as_ref());
        let flag = || match arg {
            Some(N::Boolean(b)) => b.boolval,
            Some(N::Integer(i)) => i.ival != 0,
            _ => true,
        };
        let list = || -> Vec<Spec> {
            match arg {
                Some(N::List(l)) => l.items.iter().filter_map(Spec::of_node).collect(),
                _ => Vec::new(),
            }
        };
        macro_rules! once {
            ($field:expr, $value:expr) => {{
                if $field.is_some() {
                    return Err(conflicting(d.location));
                }
                $field = Some($value);
            }};
        }
        match d.defname.as_str() {
            "password" => once!(
                o.password,
                match arg {
                    Some(N::String(s)) => Some(s.sval.clone()),
                    _ => None,
                }
            ),
            "superuser" => once!(o.superuser, flag()),
            "createdb" => once!(o.createdb, flag()),
            "createrole" => once!(o.createrole, flag()),
            "inherit" => once!(o.inherit, flag()),
            "canlogin" => once!(o.login, flag()),
            "isreplication" => once!(o.replication, flag()),
            "bypassrls" => once!(o.bypassrls, flag()),
            "connectionlimit" => {
                let n = match arg {
                    Some(N::Integer(i)) => i.ival,
                    _ => 0,
                };
                once!(o.conn_limit, n);
                if n < -1 {
                    return Err(PgError::new(
                        code::INVALID_PARAMETER_VALUE,
                        format!("invalid connection limit: {n}"),
                    ));
                }
            }
            "validUntil" => once!(
                o.valid_until,
                match arg {
                    Some(N::String(s)) => s.sval.clone(),
                    _ => String::new(),
                }
            ),
            "addroleto" => o.in_roles = list(),
            "rolemembers" => o.members = list(),
            "adminmembers" => o.admins = list(),
            "sysid" => o.sysid = true,
            other => {
                return Err(PgError::syntax(format!(
                    "unrecognized role option \"{other}\""
                )))
            }
        }
    }
    Ok(o)
}

/// Decides whether a parse tree is role DDL. Errors in the options are kept for execution, as
/// PostgreSQL analyzes utility statements only when it runs them.
pub fn analyze(node: &N) -> Option<PgResult<RoleDdl>> {
    analyze_now(node).map(|r| Ok(r.unwrap_or_else(RoleDdl::Fail)))
}

fn analyze_now(node: &N) -> Option<PgResult<RoleDdl>> {
    Some(match node {
        N::CreateRoleStmt(c) => options(&c.options).map(|mut options| {
            // CREATE USER is CREATE ROLE with LOGIN unless NOLOGIN is given.
            if c.stmt_type == protobuf::RoleStmtType::RolestmtUser as i32 {
                options.login.get_or_insert(true);
            }
            RoleDdl::Create {
                name: c.role.clone(),
                options,
            }
        }),
        N::AlterRoleStmt(a) => {
            let role = a.role.as_ref().map_or(Spec::CurrentUser, Spec::of);
            // ALTER GROUP g ADD / DROP USER u: a grant or revoke.
            if let Some(members) = a.options.iter().find_map(|o| match o.node.as_ref() {
                Some(N::DefElem(d)) if d.defname == "rolemembers" => d.arg.as_ref(),
                _ => None,
            }) {
                let grantees = match members.node.as_ref() {
                    Some(N::List(l)) => l.items.iter().filter_map(Spec::of_node).collect(),
                    _ => Vec::new(),
                };
                return Some(Ok(RoleDdl::Grant {
                    grant: a.action >= 0,
                    roles: vec![role],
                    grantees,
                    admin: false,
                }));
            }
            options(&a.options).map(|options| RoleDdl::Alter { role, options })
        }
        N::AlterRoleSetStmt(a) => {
            let Some(role) = a.role.as_ref() else {
                return Some(Err(PgError::feature_not_supported(
                    "ALTER ROLE ALL ... SET is not supported",
                )));
            };
            if !a.database.is_empty() {
                return Some(Err(PgError::feature_not_supported(
                    "ALTER ROLE ... IN DATABASE is not supported",
                )));
            }
            let set = a.setstmt.as_ref()?;
            use protobuf::VariableSetKind as K;
            let name = set.name.to_ascii_lowercase();
            let action = match set.kind {
                k if k == K::VarSetValue as i32 => SetAction::Set(
                    name,
                    set.args
                        .iter()
                        .filter_map(crate::sql::parser::sval)
                        .collect::<Vec<_>>()
                        .join(", "),
                ),
                k if k == K::VarResetAll as i32 => SetAction::ResetAll,
                _ => SetAction::Reset(name),
            };
            Ok(RoleDdl::AlterSet {
                role: Spec::of(role),
                action,
            })
        }
        N::RenameStmt(r) if r.rename_type == protobuf::ObjectType::ObjectRole as i32 => {
            Ok(RoleDdl::Rename {
                old: r.subname.clone(),
                new: r.newname.clone(),
            })
        }
        N::DropRoleStmt(d) => Ok(RoleDdl::Drop {
            roles: d.roles.iter().filter_map(Spec::of_node).collect(),
            missing_ok: d.missing_ok,
        }),
        N::GrantRoleStmt(g) => {
            // WITH ADMIN OPTION is ("admin", true); REVOKE ADMIN OPTION FOR is ("admin",
            // false): for a revoke, its presence means only the option is revoked.
            let admin = g.opt.iter().any(|o| match o.node.as_ref() {
                Some(N::DefElem(d)) => {
                    d.defname == "admin"
                        && (!g.is_grant
                            || !matches!(
                                d.arg.as_ref().and_then(|a| a.node.as_ref()),
                                Some(N::Boolean(b)) if !b.boolval
                            ))
                }
                _ => false,
            });
            if let Some(other) = g.opt.iter().find_map(|o| match o.node.as_ref() {
                Some(N::DefElem(d)) if d.defname != "admin" => Some(d.defname.clone()),
                _ => None,
            }) {
                return Some(Err(PgError::syntax(format!(
                    "unrecognized role option \"{other}\""
                ))));
            }
            Ok(RoleDdl::Grant {
                grant: g.is_grant,
                roles: g.granted_roles.iter().filter_map(Spec::of_node).collect(),
                grantees: g.grantee_roles.iter().filter_map(Spec::of_node).collect(),
                admin,
            })
        }
        _ => return None,
    })
}

fn denied(msg: impl Into<String>) -> PgError {
    PgError::new(code::INSUFFICIENT_PRIVILEGE, msg)
}

fn reserved(name: &str) -> PgError {
    PgError::new(RESERVED_NAME, format!("role name \"{name}\" is reserved"))
        .with_detail("Role names starting with \"pg_\" are reserved.")
}

/// The role a spec names (CURRENT_USER: the current role, SESSION_USER: the session user).
fn resolve(cx: &mut dyn SessionCtx, spec: &Spec) -> PgResult<Option<Arc<Role>>> {
    let name = match spec {
        Spec::Name(n) => n.clone(),
        Spec::CurrentUser => cx.user().to_string(),
        Spec::SessionUser => cx.session_user().to_string(),
        Spec::Public => return Ok(None),
    };
    lookup(cx, &name)
}

fn resolve_existing(cx: &mut dyn SessionCtx, spec: &Spec) -> PgResult<Arc<Role>> {
    match resolve(cx, spec)? {
        Some(r) => Ok(r),
        None => Err(match spec {
            Spec::Name(n) => does_not_exist(n),
            Spec::Public => does_not_exist("public"),
            _ => does_not_exist(cx.user()),
        }),
    }
}

/// The current role's attributes as the catalog has them now (PostgreSQL's superuser() and
/// have_createrole_privilege() read the catalog, not what was true at SET ROLE).
fn current(cx: &mut dyn SessionCtx) -> PgResult<RoleDef> {
    let snap = cx.catalog_snapshot()?;
    let oid = cx.role_oid();
    Ok(cx
        .instance()
        .catalog
        .roles
        .by_oid(oid, &snap)
        .map(|r| r.def.clone())
        .unwrap_or_else(|| RoleDef::new("")))
}

/// Whether the current role is a superuser.
pub fn is_superuser(cx: &mut dyn SessionCtx) -> PgResult<bool> {
    Ok(current(cx)?.superuser)
}

fn may_create_roles(def: &RoleDef) -> bool {
    def.superuser || def.createrole
}

/// Runs a role statement in the session's transaction; returns its command tag.
pub fn execute(d: &RoleDdl, cx: &mut dyn SessionCtx) -> PgResult<()> {
    match d {
        RoleDdl::Fail(e) => Err(e.clone()),
        RoleDdl::Create { name, options } => create(cx, name, options),
        RoleDdl::Alter { role, options } => alter(cx, role, options),
        RoleDdl::AlterSet { role, action } => alter_set(cx, role, action),
        RoleDdl::Rename { old, new } => rename(cx, old, new),
        RoleDdl::Drop { roles, missing_ok } => drop_roles(cx, roles, *missing_ok),
        RoleDdl::Grant {
            grant,
            roles,
            grantees,
            admin,
        } => {
            for r in roles {
                let role = resolve_existing(cx, r)?;
                let grantees = grantees
                    .iter()
                    .map(|g| resolve_existing(cx, g))
                    .collect::<PgResult<Vec<_>>>()?;
                if *grant {
                    add_members(cx, &role, &grantees, *admin)?;
                } else {
                    del_members(cx, &role, &grantees, *admin)?;
                }
            }
            Ok(())
        }
    }
}

fn valid_until(cx: &mut dyn SessionCtx, text: &str) -> PgResult<i64> {
    match crate::sql::types::cast::cast(
        Value::Text(text.to_string()),
        Type::TEXT,
        Type::TIMESTAMPTZ,
        -1,
        cx.fmt(),
    )? {
        Value::TimestampTz(t) => Ok(t),
        _ => Err(PgError::internal("VALID UNTIL is not a timestamp")),
    }
}

/// The stored form of a password under the session's password_encryption.
fn stored_password(cx: &mut dyn SessionCtx, role: &str, pw: &Option<String>) -> Option<String> {
    let method = cx
        .get_setting("password_encryption", true)
        .ok()
        .flatten()
        .unwrap_or_else(|| "scram-sha-256".to_string());
    pw.as_ref().map(|p| password::encrypt(p, role, &method))
}

/// Applies the attribute options to `def`.
fn apply(cx: &mut dyn SessionCtx, def: &mut RoleDef, o: &Options) -> PgResult<()> {
    let set = |field: &mut bool, v: Option<bool>| {
        if let Some(v) = v {
            *field = v;
        }
    };
    set(&mut def.superuser, o.superuser);
    set(&mut def.createdb, o.createdb);
    set(&mut def.createrole, o.createrole);
    set(&mut def.inherit, o.inherit);
    set(&mut def.login, o.login);
    set(&mut def.replication, o.replication);
    set(&mut def.bypassrls, o.bypassrls);
    if let Some(n) = o.conn_limit {
        def.conn_limit = n;
    }
    if let Some(v) = &o.valid_until {
        def.valid_until = Some(valid_until(cx, v)?);
    }
    if let Some(p) = &o.password {
        // An empty password is no password (PostgreSQL: "empty string is not a valid
        // password, clearing password", a NOTICE).
        if p.as_deref() == Some("") {
            cx.notice(notice(
                "empty string is not a valid password, clearing password".to_string(),
                code::SUCCESSFUL_COMPLETION,
            ));
            def.password = None;
        } else {
            let name = def.name.clone();
            def.password = stored_password(cx, &name, p);
        }
    }
    Ok(())
}

/// A catalog change, waiting for a transaction in progress that holds the same entry.
fn retrying<T>(
    cx: &mut dyn SessionCtx,
    mut f: impl FnMut(&mut dyn SessionCtx) -> PgResult<Result<T, CatalogError>>,
    on_exists: impl Fn() -> PgError,
) -> PgResult<T> {
    loop {
        match f(cx)? {
            Ok(t) => return Ok(t),
            Err(CatalogError::Exists(Some(cell))) | Err(CatalogError::Busy(cell)) => {
                cx.wait_for(&cell)?
            }
            Err(CatalogError::Exists(None)) => return Err(on_exists()),
            Err(CatalogError::OidsExhausted) => {
                return Err(PgError::new(
                    code::PROGRAM_LIMIT_EXCEEDED,
                    "object identifiers exhausted",
                ))
            }
        }
    }
}

fn create(cx: &mut dyn SessionCtx, name: &str, o: &Options) -> PgResult<()> {
    if o.sysid {
        cx.notice(notice(
            "SYSID can no longer be specified".to_string(),
            code::SUCCESSFUL_COMPLETION,
        ));
    }
    let me = current(cx)?;
    if o.superuser == Some(true) {
        if !me.superuser {
            return Err(denied("must be superuser to create superusers"));
        }
    } else if o.replication == Some(true) {
        if !me.superuser {
            return Err(denied("must be superuser to create replication users"));
        }
    } else if o.bypassrls == Some(true) {
        if !me.superuser {
            return Err(denied("must be superuser to create bypassrls users"));
        }
    } else if !may_create_roles(&me) {
        return Err(denied("permission denied to create role"));
    }
    if name.starts_with("pg_") {
        return Err(reserved(name));
    }
    let mut def = RoleDef::new(name);
    apply(cx, &mut def, o)?;
    let exists = || {
        PgError::new(
            code::DUPLICATE_OBJECT,
            format!("role \"{name}\" already exists"),
        )
    };
    if lookup(cx, name)?.is_some() {
        return Err(exists());
    }
    let (cell, cid) = cx.writer("CREATE ROLE")?;
    let oid =
        cx.instance().catalog.new_oid().map_err(|_| {
            PgError::new(code::PROGRAM_LIMIT_EXCEEDED, "object identifiers exhausted")
        })?;
    let role = retrying(
        cx,
        |cx| {
            let snap = cx.catalog_snapshot()?;
            Ok(cx
                .instance()
                .catalog
                .roles
                .create(oid, def.clone(), &snap, &cell, cid))
        },
        exists,
    )?;
    // IN ROLE: the new role becomes a member; ROLE / USER: members of it; ADMIN: members
    // with the admin option.
    for r in &o.in_roles {
        let parent = resolve_existing(cx, r)?;
        add_members(cx, &parent, std::slice::from_ref(&role), false)?;
    }
    for (list, admin) in [(&o.admins, true), (&o.members, false)] {
        let members = list
            .iter()
            .map(|m| resolve_existing(cx, m))
            .collect::<PgResult<Vec<_>>>()?;
        add_members(cx, &role, &members, admin)?;
    }
    Ok(())
}

/// Replaces a role's version with `def` (ALTER, RENAME).
fn replace(cx: &mut dyn SessionCtx, old: &Arc<Role>, def: RoleDef) -> PgResult<()> {
    let (cell, cid) = cx.writer("ALTER ROLE")?;
    let roles = &cx.instance().catalog.roles;
    if let Err(e) = roles.end(old, &cell, cid) {
        return Err(match e {
            CatalogError::Busy(other) => {
                cx.wait_for(&other)?;
                PgError::new(
                    code::T_R_SERIALIZATION_FAILURE,
                    "tuple concurrently updated",
                )
            }
            _ => PgError::new(
                code::T_R_SERIALIZATION_FAILURE,
                "tuple concurrently updated",
            ),
        });
    }
    let snap = cx.catalog_snapshot()?;
    let name = def.name.clone();
    cx.instance()
        .catalog
        .roles
        .create(old.oid, def, &snap, &cell, cid)
        .map_err(|_| {
            PgError::new(
                code::DUPLICATE_OBJECT,
                format!("role \"{name}\" already exists"),
            )
        })?;
    Ok(())
}

fn alter(cx: &mut dyn SessionCtx, spec: &Spec, o: &Options) -> PgResult<()> {
    if *spec == Spec::Public {
        return Err(does_not_exist("public"));
    }
    let role = resolve_existing(cx, spec)?;
    if role.def.name.starts_with("pg_") {
        return Err(PgError::new(
            RESERVED_NAME,
            format!("role name \"{}\" is reserved", role.def.name),
        )
        .with_detail("Cannot alter reserved roles."));
    }
    let me = current(cx)?;
    if role.def.superuser || o.superuser.is_some() {
        if !me.superuser {
            return Err(denied(
                "must be superuser to alter superuser roles or change superuser attribute",
            ));
        }
    } else if role.def.replication || o.replication.is_some() {
        if !me.superuser {
            return Err(denied(
                "must be superuser to alter replication roles or change replication attribute",
            ));
        }
    } else if o.bypassrls.is_some() {
        if !me.superuser {
            return Err(denied("must be superuser to change bypassrls attribute"));
        }
    } else if !may_create_roles(&me) {
        // Without CREATEROLE a role may only change its own password.
        let only_password = o.inherit.is_none()
            && o.createrole.is_none()
            && o.createdb.is_none()
            && o.login.is_none()
            && o.conn_limit.is_none()
            && o.valid_until.is_none()
            && o.password.is_some();
        if !(only_password && role.oid == cx.role_oid()) {
            return Err(denied("permission denied"));
        }
    }
    let mut def = role.def.clone();
    apply(cx, &mut def, o)?;
    replace(cx, &role, def)
}

fn alter_set(cx: &mut dyn SessionCtx, spec: &Spec, action: &SetAction) -> PgResult<()> {
    let role = resolve_existing(cx, spec)?;
    let me = current(cx)?;
    if role.def.superuser {
        if !me.superuser {
            return Err(denied("must be superuser to alter superusers"));
        }
    } else if !may_create_roles(&me) && role.oid != cx.role_oid() {
        return Err(denied("permission denied"));
    }
    let mut def = role.def.clone();
    let key = |item: &str| item.split_once('=').map_or(item, |(k, _)| k).to_string();
    match action {
        SetAction::Set(name, value) => {
            let name = cx.validate_setting(name, value)?;
            let item = format!("{name}={value}");
            match def.config.iter_mut().find(|i| key(i) == name) {
                Some(slot) => *slot = item,
                None => def.config.push(item),
            }
        }
        SetAction::Reset(name) => def.config.retain(|i| key(i) != *name),
        SetAction::ResetAll => def.config.clear(),
    }
    replace(cx, &role, def)
}

fn rename(cx: &mut dyn SessionCtx, old: &str, new: &str) -> PgResult<()> {
    let role = lookup(cx, old)?.ok_or_else(|| does_not_exist(old))?;
    let session = lookup_session_oid(cx)?;
    if role.oid == session {
        return Err(PgError::new(
            FEATURE_NOT_SUPPORTED,
            "session user cannot be renamed",
        ));
    }
    if role.oid == cx.role_oid() {
        return Err(PgError::new(
            FEATURE_NOT_SUPPORTED,
            "current user cannot be renamed",
        ));
    }
    if old.starts_with("pg_") {
        return Err(reserved(old));
    }
    if new.starts_with("pg_") {
        return Err(reserved(new));
    }
    if lookup(cx, new)?.is_some() {
        return Err(PgError::new(
            code::DUPLICATE_OBJECT,
            format!("role \"{new}\" already exists"),
        ));
    }
    let me = current(cx)?;
    if role.def.superuser {
        if !me.superuser {
            return Err(denied("must be superuser to rename superusers"));
        }
    } else if !may_create_roles(&me) {
        return Err(denied("permission denied to rename role"));
    }
    let mut def = role.def.clone();
    def.name = new.to_string();
    if def.password.as_deref().is_some_and(password::is_md5) {
        def.password = None;
        cx.notice(notice(
            "MD5 password cleared because of role rename".to_string(),
            code::SUCCESSFUL_COMPLETION,
        ));
    }
    replace(cx, &role, def)
}

fn lookup_session_oid(cx: &mut dyn SessionCtx) -> PgResult<u32> {
    let name = cx.session_user().to_string();
    Ok(lookup(cx, &name)?.map_or(0, |r| r.oid))
}

fn drop_roles(cx: &mut dyn SessionCtx, specs: &[Spec], missing_ok: bool) -> PgResult<()> {
    let me = current(cx)?;
    if !may_create_roles(&me) {
        return Err(denied("permission denied to drop role"));
    }
    for spec in specs {
        let Spec::Name(name) = spec else {
            return Err(PgError::new(
                code::INVALID_PARAMETER_VALUE,
                "cannot use special role specifier in DROP ROLE",
            ));
        };
        let Some(role) = lookup(cx, name)? else {
            if missing_ok {
                cx.notice(notice(
                    format!("role \"{name}\" does not exist, skipping"),
                    code::SUCCESSFUL_COMPLETION,
                ));
                continue;
            }
            return Err(does_not_exist(name));
        };
        if role.oid == cx.role_oid() {
            return Err(PgError::new(
                code::OBJECT_IN_USE,
                "current user cannot be dropped",
            ));
        }
        if role.oid == lookup_session_oid(cx)? {
            return Err(PgError::new(
                code::OBJECT_IN_USE,
                "session user cannot be dropped",
            ));
        }
        if role.oid < FIRST_USER_OID {
            return Err(PgError::new(
                code::DEPENDENT_OBJECTS_STILL_EXIST,
                format!("cannot drop role {name} because it is required by the database system"),
            ));
        }
        if role.def.superuser && !me.superuser {
            return Err(denied("must be superuser to drop superusers"));
        }
        let owned = owned_objects(cx, role.oid)?;
        if !owned.is_empty() {
            return Err(PgError::new(
                code::DEPENDENT_OBJECTS_STILL_EXIST,
                format!("role \"{name}\" cannot be dropped because some objects depend on it"),
            )
            .with_detail(owned.join("\n")));
        }
        let (cell, cid) = cx.writer("DROP ROLE")?;
        let snap = cx.catalog_snapshot()?;
        let roles = &cx.instance().catalog.roles;
        let memberships: Vec<Arc<Member>> = roles
            .members(&snap)
            .into_iter()
            .filter(|m| m.role == role.oid || m.member == role.oid)
            .collect();
        let mut busy = roles.end(&role, &cell, cid).err();
        for m in &memberships {
            if busy.is_none() {
                busy = roles.end_member(m, &cell, cid).err();
            }
        }
        if let Some(e) = busy {
            if let CatalogError::Busy(other) = e {
                cx.wait_for(&other)?;
            }
            return Err(PgError::new(
                code::T_R_SERIALIZATION_FAILURE,
                "tuple concurrently updated",
            ));
        }
    }
    Ok(())
}

/// What role `oid` owns in the session's database, as DROP ROLE's DETAIL lists it.
fn owned_objects(cx: &mut dyn SessionCtx, oid: u32) -> PgResult<Vec<String>> {
    let snap = cx.catalog_snapshot()?;
    let db = cx.database().to_string();
    let catalog = &cx.instance().catalog;
    let mut out: Vec<(u32, String)> = catalog
        .namespaces
        .visible(&db, &snap)
        .iter()
        .filter(|n| n.owner == oid)
        .map(|n| (n.oid, format!("owner of schema {}", n.name)))
        .collect();
    for r in catalog.visible(&snap) {
        if r.name.database != db || r.owner != oid || r.kind == RelKind::Index {
            continue;
        }
        let kind = match r.kind {
            RelKind::Table => "table",
            RelKind::Sequence => "sequence",
            RelKind::View => "view",
            RelKind::Index => "index",
            RelKind::MatView => "materialized view",
        };
        let name = if r.name.schema == "public" {
            r.name.name.clone()
        } else {
            format!("{}.{}", r.name.schema, r.name.name)
        };
        out.push((r.oid, format!("owner of {kind} {name}")));
    }
    // Privileges granted to or by the role (pg_shdepend's ACL entries), after what it owns
    // of the same object, columns after their table.
    let mut out: Vec<(u32, i32, String)> = out.into_iter().map(|(o, s)| (o, 0, s)).collect();
    out.extend(super::grant::acl_dependents(cx, oid)?);
    out.sort_by_key(|(o, sub, _)| (*o, *sub));
    Ok(out.into_iter().map(|(_, _, s)| s).collect())
}

/// Checks that the current role may change the members of `role` (AddRoleMems / DelRoleMems).
fn check_membership_change(cx: &mut dyn SessionCtx, role: &Role) -> PgResult<()> {
    let me = current(cx)?;
    let me_oid = cx.role_oid();
    if role.def.superuser {
        if !me.superuser {
            return Err(denied("must be superuser to alter superusers"));
        }
    } else if !may_create_roles(&me) && !is_admin_of(cx, me_oid, role.oid)? {
        return Err(denied(format!(
            "must have admin option on role \"{}\"",
            role.def.name
        )));
    }
    Ok(())
}

fn add_members(
    cx: &mut dyn SessionCtx,
    role: &Role,
    members: &[Arc<Role>],
    admin: bool,
) -> PgResult<()> {
    if members.is_empty() {
        return Ok(());
    }
    check_membership_change(cx, role)?;
    if role.oid == PG_DATABASE_OWNER {
        return Err(PgError::new(
            code::INTERNAL_ERROR,
            format!("role \"{}\" cannot have explicit members", role.def.name),
        ));
    }
    let grantor = cx.role_oid();
    for m in members {
        if m.oid == PG_DATABASE_OWNER {
            return Err(PgError::new(
                code::INTERNAL_ERROR,
                format!("role \"{}\" cannot be a member of any role", m.def.name),
            ));
        }
        let snap = cx.catalog_snapshot()?;
        let roles = &cx.instance().catalog.roles;
        // A grant that would make a loop (including a role into itself).
        if roles.is_member(role.oid, m.oid, false, &snap) {
            return Err(PgError::new(
                INVALID_GRANT_OPERATION,
                format!(
                    "role \"{}\" is a member of role \"{}\"",
                    role.def.name, m.def.name
                ),
            ));
        }
        let existing = roles
            .members(&snap)
            .into_iter()
            .find(|e| e.role == role.oid && e.member == m.oid);
        if let Some(e) = &existing {
            if !admin || e.admin {
                cx.notice(notice(
                    format!(
                        "role \"{}\" is already a member of role \"{}\"",
                        m.def.name, role.def.name
                    ),
                    code::SUCCESSFUL_COMPLETION,
                ));
                continue;
            }
        }
        let (cell, cid) = cx.writer("GRANT")?;
        if let Some(e) = &existing {
            end_member(cx, e, &cell, cid)?;
        }
        let g = existing.as_ref().map_or(grantor, |e| e.grantor);
        cx.instance()
            .catalog
            .roles
            .add_member(role.oid, m.oid, g, admin, &cell, cid);
    }
    Ok(())
}

fn end_member(
    cx: &mut dyn SessionCtx,
    m: &Member,
    cell: &Arc<crate::txn::TxnCell>,
    cid: crate::txn::Cid,
) -> PgResult<()> {
    match cx.instance().catalog.roles.end_member(m, cell, cid) {
        Ok(()) => Ok(()),
        Err(e) => {
            if let CatalogError::Busy(other) = e {
                cx.wait_for(&other)?;
            }
            Err(PgError::new(
                code::T_R_SERIALIZATION_FAILURE,
                "tuple concurrently updated",
            ))
        }
    }
}

fn del_members(
    cx: &mut dyn SessionCtx,
    role: &Role,
    members: &[Arc<Role>],
    admin_only: bool,
) -> PgResult<()> {
    check_membership_change(cx, role)?;
    for m in members {
        let snap = cx.catalog_snapshot()?;
        let existing = cx
            .instance()
            .catalog
            .roles
            .members(&snap)
            .into_iter()
            .find(|e| e.role == role.oid && e.member == m.oid);
        let Some(e) = existing else {
            cx.notice(PgError::warning(
                code::WARNING,
                format!(
                    "role \"{}\" is not a member of role \"{}\"",
                    m.def.name, role.def.name
                ),
            ));
            continue;
        };
        let (cell, cid) = cx.writer("REVOKE")?;
        end_member(cx, &e, &cell, cid)?;
        if admin_only {
            cx.instance()
                .catalog
                .roles
                .add_member(e.role, e.member, e.grantor, false, &cell, cid);
        }
    }
    Ok(())
}

/// Whether `oid` is the bootstrap superuser (used where only it may act).
pub fn is_bootstrap(oid: u32) -> bool {
    oid == BOOTSTRAP_SUPERUSER
}
