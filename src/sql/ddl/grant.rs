//! GRANT / REVOKE of object privileges on tables, views, sequences and their columns, as
//! PostgreSQL 15's `catalog/aclchk.c` does them (ExecuteGrantStmt, ExecGrant_Relation,
//! ExecGrant_Attribute): the grantor is chosen as `select_best_grantor` chooses it (the owner
//! for the owner and superusers, else the role holding the grant options), what the grantor
//! cannot grant is dropped with PostgreSQL's warnings, and the ACLs are changed with
//! `catalog::acl::update` (REVOKE ... CASCADE / RESTRICT of dependent grants included).
//!
//! An ACL change writes a new version of the relation or schema (as ALTER TABLE does), so it
//! commits and rolls back with the transaction, and prepared statements are planned again (and
//! their privileges checked against the new ACL); a database's ACL is versioned the same way
//! (`Namespaces::database_acl`). Also here: ALTER ... OWNER TO (with
//! `aclnewowner`), the ownership and privilege checks DDL makes (`check_owner`, `check_any`,
//! `check_schema`, `check_references`, `check_create_schema`, `check_temp`) and the objects
//! whose ACLs name a role, for DROP ROLE. Not yet: ALTER DEFAULT PRIVILEGES (0A000).

use std::sync::Arc;

use pg_query::protobuf::{self, node::Node as N, GrantTargetType, ObjectType};

use super::role::Spec;
use super::{find_locked, replace, Ddl};
use crate::catalog::acl::{self, Acl, AclItem, ObjKind};
use crate::catalog::{Oid, RelKind, SYSTEM_COLUMNS};
use crate::error::{code, PgError, PgResult};
use crate::sql::context::SessionCtx;
use crate::sql::engine::Rel;
use crate::sql::parser::str_of;
use crate::sql::privs::denied;
pub use crate::sql::privs::{check_any, check_any_as};
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
    Schema,
    Database,
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
    /// An error found while analyzing, raised when the statement runs.
    pub fail: Option<PgError>,
}

impl Grant {
    fn failed(is_grant: bool) -> Grant {
        Grant {
            is_grant,
            objtype: ObjType::Table,
            objects: Vec::new(),
            in_schemas: Vec::new(),
            privileges: None,
            columns: Vec::new(),
            grantees: Vec::new(),
            grant_option: false,
            cascade: false,
            grantor: None,
            fail: None,
        }
    }
}

/// ALTER TABLE / VIEW / SEQUENCE / INDEX / SCHEMA ... OWNER TO.
#[derive(Debug, Clone)]
pub struct OwnerTo {
    pub target: OwnerTarget,
    pub owner: Spec,
    pub tag: &'static str,
}

#[derive(Debug, Clone)]
pub enum OwnerTarget {
    /// `kind`: the kind the statement names, with its word (None: ALTER TABLE, any kind).
    Rel {
        schema: String,
        name: String,
        kind: Option<(RelKind, &'static str)>,
        missing_ok: bool,
    },
    Schema(String),
}

pub(super) fn spec_oid(cx: &mut dyn SessionCtx, spec: &Spec) -> PgResult<Oid> {
    match spec {
        Spec::Name(n) => crate::sql::privs::role_oid(cx, n),
        Spec::Public => crate::sql::privs::role_oid(cx, "public"),
        Spec::CurrentUser => Ok(cx.role_oid()),
        Spec::SessionUser => {
            let n = cx.session_user().to_string();
            crate::sql::privs::role_oid(cx, &n)
        }
    }
}

/// The checks of ATExecChangeOwner / AlterSchemaOwner_internal for a non-superuser: the
/// current role must be able to become the new owner (be a member of it), and the new owner
/// needs CREATE on `schema` (None: the database, for a schema: not checked here).
pub(super) fn check_new_owner(
    cx: &mut dyn SessionCtx,
    new: Oid,
    schema: Option<&str>,
) -> PgResult<()> {
    if super::role::is_superuser(cx)? {
        return Ok(());
    }
    let snap = cx.catalog_snapshot()?;
    let me = cx.role_oid();
    let roles = &cx.instance().catalog.roles;
    if !roles.is_member(me, new, false, &snap) {
        let name = roles
            .by_oid(new, &snap)
            .map(|r| r.def.name.clone())
            .unwrap_or_default();
        return Err(PgError::new(
            code::INSUFFICIENT_PRIVILEGE,
            format!("must be member of role \"{name}\""),
        ));
    }
    if let Some(s) = schema {
        let db = cx.database().to_string();
        let catalog = &cx.instance().catalog;
        if let Some(info) = crate::sql::privs::schema_info(catalog, &snap, &db, s) {
            let superuser = roles.by_oid(new, &snap).is_some_and(|r| r.def.superuser);
            let who = crate::sql::privs::Who {
                role: new,
                superuser,
                roles,
                snap: &snap,
            };
            if crate::sql::privs::schema_mask(&who, new, &info, acl::CREATE) == 0 {
                return Err(denied("schema", s));
            }
        }
    }
    Ok(())
}

/// Runs an OWNER TO.
pub fn change_owner(o: &OwnerTo, cx: &mut dyn SessionCtx) -> PgResult<()> {
    match &o.target {
        OwnerTarget::Schema(name) => {
            let snap = cx.catalog_snapshot()?;
            let db = cx.database().to_string();
            let Some(info) =
                crate::sql::privs::schema_info(&cx.instance().catalog, &snap, &db, name)
            else {
                return Err(PgError::new(
                    code::INVALID_SCHEMA_NAME,
                    format!("schema \"{name}\" does not exist"),
                ));
            };
            let new = spec_oid(cx, &o.owner)?;
            if new == info.owner {
                return Ok(());
            }
            if !owns(cx, info.owner)? {
                return Err(crate::sql::privs::not_owner("schema", name));
            }
            check_new_owner(cx, new, None)?;
            let acl = info
                .acl
                .as_ref()
                .map(|a| acl::new_owner(a, info.owner, new));
            write_schema(cx, name, &info, new, acl)
        }
        OwnerTarget::Rel {
            schema,
            name,
            kind,
            missing_ok,
        } => {
            let Some(rel) = find_locked(cx, schema, name, LockMode::AccessExclusive)? else {
                if *missing_ok {
                    cx.notice(PgError::notice(
                        code::SUCCESSFUL_COMPLETION,
                        format!("relation \"{name}\" does not exist, skipping"),
                    ));
                    return Ok(());
                }
                return Err(PgError::new(
                    code::UNDEFINED_TABLE,
                    format!("relation \"{name}\" does not exist"),
                ));
            };
            check_owner(cx, &rel)?;
            if let Some((k, word)) = kind {
                if rel.kind != *k {
                    return Err(PgError::new(
                        code::WRONG_OBJECT_TYPE,
                        format!(
                            "\"{name}\" is not a{} {word}",
                            if *word == "index" { "n" } else { "" }
                        ),
                    ));
                }
            }
            let new = spec_oid(cx, &o.owner)?;
            if new == rel.owner {
                return Ok(());
            }
            check_new_owner(cx, new, Some(&rel.name.schema))?;
            set_rel_owner(cx, &rel, new)?;
            let indexes: Vec<String> = rel.indexes.iter().map(|i| i.name.clone()).collect();
            for i in indexes {
                if let Some(ir) = super::find(cx, &rel.name.schema, &i)? {
                    set_rel_owner(cx, &ir, new)?;
                }
            }
            if rel.kind == RelKind::Table {
                for s in crate::sql::sequence::owned_sequences(cx, &rel)? {
                    set_rel_owner(cx, &s, new)?;
                }
            }
            Ok(())
        }
    }
}

fn set_rel_owner(cx: &mut dyn SessionCtx, rel: &Arc<Rel>, new: Oid) -> PgResult<()> {
    let old = rel.owner;
    let acl = rel.acl.as_ref().map(|a| acl::new_owner(a, old, new));
    let cols: Vec<(usize, Acl)> = rel
        .column_acls
        .iter()
        .map(|(p, a)| (*p, acl::new_owner(a, old, new)))
        .collect();
    replace(cx, rel, |n| {
        n.owner = new;
        n.acl = acl;
        n.column_acls = cols;
    })?;
    Ok(())
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

/// Decides what a GrantStmt (or ALTER DEFAULT PRIVILEGES) is; None for other statements.
pub fn analyze(node: &N) -> Option<PgResult<Ddl>> {
    match node {
        // PostgreSQL analyzes GRANT when it runs it: errors wait for execution.
        N::GrantStmt(g) => Some(Ok(Ddl::Grant(Box::new(analyze_grant(g).unwrap_or_else(
            |e| Grant {
                fail: Some(e),
                ..Grant::failed(g.is_grant)
            },
        ))))),
        N::AlterDefaultPrivilegesStmt(_) => Some(Err(PgError::feature_not_supported(
            "ALTER DEFAULT PRIVILEGES is not supported yet",
        ))),
        N::AlterTableStmt(a) => {
            let [cmd] = a.cmds.as_slice() else {
                return None;
            };
            let Some(N::AlterTableCmd(c)) = cmd.node.as_ref() else {
                return None;
            };
            if c.subtype != protobuf::AlterTableType::AtChangeOwner as i32 {
                return None;
            }
            let kind = match ObjectType::try_from(a.objtype).ok()? {
                ObjectType::ObjectTable => None,
                ObjectType::ObjectView => Some((RelKind::View, "view")),
                ObjectType::ObjectMatview => Some((RelKind::MatView, "materialized view")),
                ObjectType::ObjectSequence => Some((RelKind::Sequence, "sequence")),
                ObjectType::ObjectIndex => Some((RelKind::Index, "index")),
                _ => return None,
            };
            let rv = a.relation.as_ref()?;
            Some(Ok(Ddl::Owner(Box::new(OwnerTo {
                target: OwnerTarget::Rel {
                    schema: rv.schemaname.clone(),
                    name: rv.relname.clone(),
                    kind,
                    missing_ok: a.missing_ok,
                },
                owner: c.newowner.as_ref().map_or(Spec::CurrentUser, Spec::of),
                tag: match kind {
                    None => "ALTER TABLE",
                    Some((RelKind::View, _)) => "ALTER VIEW",
                    Some((RelKind::MatView, _)) => "ALTER MATERIALIZED VIEW",
                    Some((RelKind::Sequence, _)) => "ALTER SEQUENCE",
                    Some(_) => "ALTER INDEX",
                },
            }))))
        }
        N::AlterOwnerStmt(o) if o.object_type == ObjectType::ObjectSchema as i32 => {
            let name = o.object.as_ref().and_then(|n| str_of(n))?.to_string();
            Some(Ok(Ddl::Owner(Box::new(OwnerTo {
                target: OwnerTarget::Schema(name),
                owner: o.newowner.as_ref().map_or(Spec::CurrentUser, Spec::of),
                tag: "ALTER SCHEMA",
            }))))
        }
        _ => None,
    }
}

fn analyze_grant(g: &protobuf::GrantStmt) -> PgResult<Grant> {
    let objtype = match ObjectType::try_from(g.objtype).unwrap_or(ObjectType::Undefined) {
        ObjectType::ObjectTable => ObjType::Table,
        ObjectType::ObjectSequence => ObjType::Sequence,
        ObjectType::ObjectSchema => ObjType::Schema,
        ObjectType::ObjectDatabase => ObjType::Database,
        _ => {
            return Err(PgError::feature_not_supported(
                "GRANT / REVOKE on this kind of object is not supported yet",
            ))
        }
    };
    let (all, word) = match objtype {
        ObjType::Table => (acl::ALL_RELATION | acl::ALL_SEQUENCE, "relation"),
        ObjType::Sequence => (acl::ALL_SEQUENCE, "sequence"),
        ObjType::Schema => (acl::ALL_SCHEMA, "schema"),
        ObjType::Database => (acl::ALL_DATABASE, "database"),
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
                let cols = ap
                    .cols
                    .iter()
                    .filter_map(str_of)
                    .map(String::from)
                    .collect();
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
            Some(N::String(s)) => objects.push((String::new(), s.sval.clone())),
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
        fail: None,
    })
}

/// Runs a GRANT / REVOKE of object privileges.
pub fn execute(g: &Grant, cx: &mut dyn SessionCtx) -> PgResult<()> {
    if let Some(e) = &g.fail {
        return Err(e.clone());
    }
    let mut rels: Vec<Arc<Rel>> = Vec::new();
    let mut schemas = Vec::new();
    let mut databases = Vec::new();
    for (schema, name) in &g.objects {
        if g.objtype == ObjType::Database {
            if cx.instance().database_oid(name).is_none() {
                return Err(PgError::new(
                    code::INVALID_CATALOG_NAME,
                    format!("database \"{name}\" does not exist"),
                ));
            }
            databases.push(name.clone());
            continue;
        }
        if g.objtype == ObjType::Schema {
            let snap = cx.catalog_snapshot()?;
            let db = cx.database().to_string();
            let catalog = &cx.instance().catalog;
            let Some(info) = crate::sql::privs::schema_info(catalog, &snap, &db, name) else {
                return Err(PgError::new(
                    code::INVALID_SCHEMA_NAME,
                    format!("schema \"{name}\" does not exist"),
                ));
            };
            schemas.push((name.clone(), info));
            continue;
        }
        // LookupExplicitNamespace: a qualified name needs USAGE on its schema.
        if !schema.is_empty() {
            check_schema(cx, schema, acl::USAGE)?;
        }
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
        check_schema(cx, s, acl::USAGE)?;
        let want = |k: RelKind| match g.objtype {
            ObjType::Table => matches!(k, RelKind::Table | RelKind::View | RelKind::MatView),
            ObjType::Sequence => k == RelKind::Sequence,
            ObjType::Schema | ObjType::Database => false,
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
            Spec::Name(n) => crate::sql::privs::role_oid(cx, n)?,
            Spec::CurrentUser => cx.role_oid(),
            Spec::SessionUser => {
                let n = cx.session_user().to_string();
                crate::sql::privs::role_oid(cx, &n)?
            }
        });
    }
    if let Some(spec) = &g.grantor {
        let oid = match spec {
            Spec::Name(n) => crate::sql::privs::role_oid(cx, n)?,
            Spec::Public => crate::sql::privs::role_oid(cx, "public")?,
            Spec::CurrentUser => cx.role_oid(),
            Spec::SessionUser => {
                let n = cx.session_user().to_string();
                crate::sql::privs::role_oid(cx, &n)?
            }
        };
        if oid != cx.role_oid() {
            return Err(PgError::feature_not_supported(
                "grantor must be current user",
            ));
        }
    }
    for rel in rels {
        grant_relation(g, cx, &rel, &grantees)?;
    }
    for (name, info) in schemas {
        grant_schema(g, cx, &name, &info, &grantees)?;
    }
    for name in databases {
        grant_database(g, cx, &name, &grantees)?;
    }
    Ok(())
}

/// ExecGrant_Database for one database.
fn grant_database(
    g: &Grant,
    cx: &mut dyn SessionCtx,
    name: &str,
    grantees: &[Oid],
) -> PgResult<()> {
    let owner = crate::catalog::roles::BOOTSTRAP_SUPERUSER;
    let all_privs = g.privileges.is_none();
    let this = g.privileges.unwrap_or(acl::ALL_DATABASE);
    let snap0 = cx.catalog_snapshot()?;
    let old = crate::sql::privs::database_acl(cx.instance(), &snap0, name);
    let (grantor, avail) = best_grantor(cx, this, &old, owner)?;
    let snap = cx.catalog_snapshot()?;
    let holds_any = avail != 0 || {
        let roles = &cx.instance().catalog.roles;
        let whole = acl::ALL_DATABASE | (acl::ALL_DATABASE << 16);
        acl::mask(&old, grantor, owner, whole, false, &|a, b| {
            crate::sql::privs::has_privs_of(roles, &snap, a, b)
        }) != 0
    };
    let this = restrict(
        cx, g.is_grant, avail, all_privs, this, holds_any, "database", name, None,
    )?;
    let mut acl = old;
    let inst = cx.instance();
    merge(&mut acl, g, grantees, this, grantor, owner, &|a, b| {
        crate::sql::privs::has_privs_of(&inst.catalog.roles, &snap, a, b)
    })?;
    let (cell, cid) = cx.writer("GRANT")?;
    let snap = cx.catalog_snapshot()?;
    let inst = cx.instance();
    let key = crate::catalog::DATABASE_KEY;
    let busy = |_| {
        PgError::new(
            code::OBJECT_IN_USE,
            format!("database \"{name}\" is being changed by another transaction"),
        )
    };
    if let Some(v) = inst.catalog.namespaces.database_acl(name, &snap) {
        inst.catalog.namespaces.end(&v, &cell, cid).map_err(busy)?;
    }
    let snap = cx.catalog_snapshot()?;
    let inst = cx.instance();
    let oid = inst.database_oid(name).unwrap_or(0);
    inst.catalog
        .namespaces
        .replace(true, oid, name, key, owner, Some(acl), &snap, &cell, cid)
        .map_err(busy)?;
    Ok(())
}

/// ExecGrant_Namespace for one schema.
fn grant_schema(
    g: &Grant,
    cx: &mut dyn SessionCtx,
    name: &str,
    info: &crate::sql::privs::SchemaInfo,
    grantees: &[Oid],
) -> PgResult<()> {
    let owner = info.owner;
    let all_privs = g.privileges.is_none();
    let this = g.privileges.unwrap_or(acl::ALL_SCHEMA);
    let old = info
        .acl
        .clone()
        .unwrap_or_else(|| acl::default_acl(ObjKind::Schema, owner));
    let (grantor, avail) = best_grantor(cx, this, &old, owner)?;
    let snap = cx.catalog_snapshot()?;
    let holds_any = avail != 0 || {
        let roles = &cx.instance().catalog.roles;
        let whole = acl::ALL_SCHEMA | (acl::ALL_SCHEMA << 16);
        acl::mask(&old, grantor, owner, whole, false, &|a, b| {
            crate::sql::privs::has_privs_of(roles, &snap, a, b)
        }) != 0
    };
    let this = restrict(
        cx, g.is_grant, avail, all_privs, this, holds_any, "schema", name, None,
    )?;
    let mut acl = old;
    {
        let roles = &cx.instance().catalog.roles;
        merge(&mut acl, g, grantees, this, grantor, owner, &|a, b| {
            crate::sql::privs::has_privs_of(roles, &snap, a, b)
        })?;
    }
    if Some(&acl) == info.acl.as_ref() {
        return Ok(());
    }
    write_schema(cx, name, info, owner, Some(acl))
}

/// Writes a new version of schema `name` with `owner` and `acl`.
pub fn write_schema(
    cx: &mut dyn SessionCtx,
    name: &str,
    info: &crate::sql::privs::SchemaInfo,
    owner: Oid,
    acl: Option<Acl>,
) -> PgResult<()> {
    let (cell, cid) = cx.writer("GRANT")?;
    let snap = cx.catalog_snapshot()?;
    let db = cx.database().to_string();
    let catalog = &cx.instance().catalog;
    let busy = |_| {
        PgError::new(
            code::OBJECT_IN_USE,
            format!("schema \"{name}\" is being changed by another transaction"),
        )
    };
    let old = if info.builtin {
        catalog.namespaces.builtin_acl(&db, name, &snap)
    } else {
        catalog.namespaces.lookup(&db, name, &snap)
    };
    if let Some(old) = old {
        catalog.namespaces.end(&old, &cell, cid).map_err(busy)?;
    }
    let snap = cx.catalog_snapshot()?;
    let catalog = &cx.instance().catalog;
    catalog
        .namespaces
        .replace(
            info.builtin,
            info.oid,
            &db,
            name,
            owner,
            acl,
            &snap,
            &cell,
            cid,
        )
        .map_err(busy)?;
    catalog.bump();
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
    holds_any: bool,
    kind: &str,
    objname: &str,
    colname: Option<&str>,
) -> PgResult<u32> {
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
    let mut this = g
        .privileges
        .unwrap_or(if all_privs { kind.all() } else { 0 });
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
    // Positions: user columns from 0, system columns (which hold no ACL here but are
    // revoked from, with PostgreSQL's warnings) below 0.
    let mut col_privs: Vec<(i64, u32)> = Vec::new();
    let mut add_col = |pos: i64, bits: u32| match col_privs.iter_mut().find(|(p, _)| *p == pos) {
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
            let Some(pos) = rel
                .live_columns()
                .find(|(_, d)| d.name == *c)
                .map(|(i, _)| i)
            else {
                return Err(PgError::new(
                    code::UNDEFINED_COLUMN,
                    format!("column \"{c}\" of relation \"{name}\" does not exist"),
                ));
            };
            add_col(pos as i64, bit);
        }
    }
    if !g.is_grant && this & acl::ALL_COLUMN != 0 {
        if rel.kind != RelKind::View {
            for pos in -(SYSTEM_COLUMNS.len() as i64)..0 {
                add_col(pos, this & acl::ALL_COLUMN);
            }
        }
        let live: Vec<usize> = rel.live_columns().map(|(i, _)| i).collect();
        for pos in live {
            add_col(pos as i64, this & acl::ALL_COLUMN);
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
            cx, g.is_grant, avail, all_privs, this, holds_any, word, &name, None,
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
            .find(|(p, _)| *p as i64 == pos)
            .map(|(_, a)| a.clone())
            .unwrap_or_default();
        // The grantor is chosen over the table's and the column's ACLs together.
        let mut merged = rel
            .acl
            .clone()
            .unwrap_or_else(|| acl::default_acl(kind, owner));
        merged.extend(old_col.iter().copied());
        let (grantor, avail) = best_grantor(cx, bits, &merged, owner)?;
        // pg_aclmask of a column: the table's privileges or the column's.
        let holds_any = avail != 0 || {
            let roles = &cx.instance().catalog.roles;
            let whole = acl::ALL_COLUMN | (acl::ALL_COLUMN << 16);
            let table = rel
                .acl
                .clone()
                .unwrap_or_else(|| acl::default_acl(kind, owner));
            let hp = |a, b| hp_owned(roles, a, b);
            acl::mask(&old_col, grantor, owner, whole, false, &hp) != 0
                || acl::mask(&table, grantor, owner, whole, false, &hp) != 0
        };
        let colname = if pos < 0 {
            SYSTEM_COLUMNS[(-pos - 1) as usize].to_string()
        } else {
            rel.columns[pos as usize].name.clone()
        };
        let this = restrict(
            cx,
            g.is_grant,
            avail,
            false,
            bits,
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
        if pos < 0 {
            continue;
        }
        let pos = pos as usize;
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
    Ok(cx
        .instance()
        .catalog
        .roles
        .is_member(me, owner, true, &snap))
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

/// 42501 `permission denied for schema s` unless the current role holds one of `bits` on
/// schema `name` (a schema that does not exist passes: its lookup fails elsewhere).
pub fn check_schema(cx: &mut dyn SessionCtx, name: &str, bits: u32) -> PgResult<()> {
    if super::role::is_superuser(cx)? {
        return Ok(());
    }
    let snap = cx.catalog_snapshot()?;
    let db = cx.database().to_string();
    let catalog = &cx.instance().catalog;
    let Some(info) = crate::sql::privs::schema_info(catalog, &snap, &db, name) else {
        return Ok(());
    };
    let who = crate::sql::privs::Who {
        role: cx.role_oid(),
        superuser: false,
        roles: &catalog.roles,
        snap: &snap,
    };
    if crate::sql::privs::schema_mask(&who, who.role, &info, bits) != 0 {
        return Ok(());
    }
    Err(denied("schema", name))
}

/// checkFkeyPermissions: a foreign key needs REFERENCES on the referenced table, or on each
/// of its referenced columns (42501 `permission denied for table t`).
pub fn check_references(cx: &mut dyn SessionCtx, rel: &Rel, columns: &[usize]) -> PgResult<()> {
    if rel.acl.is_none() && cx.role_oid() == rel.owner {
        return Ok(());
    }
    let snap = cx.catalog_snapshot()?;
    let superuser = super::role::is_superuser(cx)?;
    let who = crate::sql::privs::Who {
        role: cx.role_oid(),
        superuser,
        roles: &cx.instance().catalog.roles,
        snap: &snap,
    };
    let role = who.role;
    if crate::sql::privs::rel_mask(&who, role, rel, acl::REFERENCES) != 0
        || columns.iter().all(|c| {
            crate::sql::privs::column_mask(&who, role, rel, *c as i16 + 1, acl::REFERENCES) != 0
        })
    {
        return Ok(());
    }
    Err(denied(
        crate::sql::privs::rel_kind_word(rel.kind),
        &rel.name.name,
    ))
}

/// The objects of the session's database (and the databases) whose ACLs name role `oid` as
/// grantee or grantor, as DROP ROLE's DETAIL lists them: (object OID, column number or 0,
/// text).
pub fn acl_dependents(cx: &mut dyn SessionCtx, oid: Oid) -> PgResult<Vec<(u32, i32, String)>> {
    let names = |acl: &Acl| acl.iter().any(|a| a.grantee == oid || a.grantor == oid);
    let snap = cx.catalog_snapshot()?;
    let db = cx.database().to_string();
    let catalog = &cx.instance().catalog;
    let mut out = Vec::new();
    for n in catalog.namespaces.visible(&db, &snap) {
        if n.owner != oid && n.acl.as_ref().is_some_and(names) {
            out.push((n.oid, 0, format!("privileges for schema {}", n.name)));
        }
    }
    for (_, name, _) in crate::sql::catalog::NAMESPACES {
        if let Some(n) = catalog.namespaces.builtin_acl(&db, name, &snap) {
            if n.owner != oid && n.acl.as_ref().is_some_and(names) {
                out.push((n.oid, 0, format!("privileges for schema {name}")));
            }
        }
    }
    for r in catalog.visible(&snap) {
        if r.name.database != db || r.owner == oid {
            continue;
        }
        let word = crate::sql::privs::rel_kind_word(r.kind);
        let shown = if r.name.schema == "public" {
            r.name.name.clone()
        } else {
            format!("{}.{}", r.name.schema, r.name.name)
        };
        if r.acl.as_ref().is_some_and(names) {
            out.push((r.oid, 0, format!("privileges for {word} {shown}")));
        }
        for (pos, a) in &r.column_acls {
            if names(a) {
                out.push((
                    r.oid,
                    *pos as i32 + 1,
                    format!(
                        "privileges for column {} of {word} {shown}",
                        r.columns[*pos].name
                    ),
                ));
            }
        }
    }
    let inst = cx.instance();
    for (name, doid) in inst.database_names() {
        if let Some(v) = inst.catalog.namespaces.database_acl(&name, &snap) {
            if v.acl.as_ref().is_some_and(names) {
                out.push((doid, 0, format!("privileges for database {name}")));
            }
        }
    }
    Ok(out)
}

/// CreateSchemaCommand's checks: CREATE on the database (42501 `permission denied for database
/// d`), and, for AUTHORIZATION of another role, membership in it.
pub fn check_create_schema(cx: &mut dyn SessionCtx, owner: Oid) -> PgResult<()> {
    if super::role::is_superuser(cx)? {
        return Ok(());
    }
    if database_mask(cx, acl::CREATE)? == 0 {
        return Err(denied("database", cx.database()));
    }
    let snap = cx.catalog_snapshot()?;
    let me = cx.role_oid();
    let inst = cx.instance();
    if owner != me && !inst.catalog.roles.is_member(me, owner, false, &snap) {
        let name = inst
            .catalog
            .roles
            .by_oid(owner, &snap)
            .map(|r| r.def.name.clone())
            .unwrap_or_default();
        return Err(PgError::new(
            code::INSUFFICIENT_PRIVILEGE,
            format!("must be member of role \"{name}\""),
        ));
    }
    Ok(())
}

/// InitTempTableNamespace's check: TEMPORARY on the database (42501 `permission denied to
/// create temporary tables in database "d"`). PostgreSQL checks when the session first makes
/// its temporary schema; threadgres at each temporary relation it creates.
pub fn check_temp(cx: &mut dyn SessionCtx) -> PgResult<()> {
    if super::role::is_superuser(cx)? || database_mask(cx, acl::CREATE_TEMP)? != 0 {
        return Ok(());
    }
    Err(PgError::new(
        code::INSUFFICIENT_PRIVILEGE,
        format!(
            "permission denied to create temporary tables in database \"{}\"",
            cx.database()
        ),
    ))
}

/// Which of `want` the current role holds on the session's database (a non-superuser: the
/// database belongs to the bootstrap superuser).
fn database_mask(cx: &mut dyn SessionCtx, want: u32) -> PgResult<u32> {
    let snap = cx.catalog_snapshot()?;
    let me = cx.role_oid();
    let inst = cx.instance();
    let acl = crate::sql::privs::database_acl(inst, &snap, cx.database());
    let who = crate::sql::privs::Who {
        role: me,
        superuser: false,
        roles: &inst.catalog.roles,
        snap: &snap,
    };
    let bootstrap = crate::catalog::roles::BOOTSTRAP_SUPERUSER;
    Ok(crate::sql::privs::acl_mask(
        &who,
        me,
        bootstrap,
        Some(&acl),
        ObjKind::Database,
        want,
    ))
}
