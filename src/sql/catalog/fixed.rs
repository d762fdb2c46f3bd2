//! The rows of the catalogs whose contents are fixed in a fresh PostgreSQL 15 cluster and do
//! not change in threadgres (no DDL writes them yet): access methods, tablespaces, roles,
//! collations, the plpgsql extension, and the descriptions PostgreSQL ships for them.
//!
//! Values are PostgreSQL 15's (initdb with `-E UTF8 --locale=C.UTF-8`); of the collations only
//! the libc ones, since threadgres has no ICU.

use crate::sql::types::{Array, Type, Value};

use super::relation_by_oid;

/// The bootstrap superuser's OID; threadgres calls it `postgres`, as `initdb -U postgres` does.
pub const BOOTSTRAP_SUPERUSER: u32 = 10;
/// pg_namespace's OID of pg_catalog.
const PG_CATALOG: u32 = 11;
/// The plpgsql extension's OID in a fresh PostgreSQL 15 cluster.
const PLPGSQL_EXTENSION: u32 = 13559;

/// (oid, name, superuser): the bootstrap superuser and PostgreSQL 15's predefined roles.
pub const ROLES: &[(u32, &str, bool)] = &[
    (BOOTSTRAP_SUPERUSER, "postgres", true),
    (3373, "pg_monitor", false),
    (3374, "pg_read_all_settings", false),
    (3375, "pg_read_all_stats", false),
    (3377, "pg_stat_scan_tables", false),
    (4200, "pg_signal_backend", false),
    (4544, "pg_checkpoint", false),
    (4569, "pg_read_server_files", false),
    (4570, "pg_write_server_files", false),
    (4571, "pg_execute_server_program", false),
    (6171, "pg_database_owner", false),
    (6181, "pg_read_all_data", false),
    (6182, "pg_write_all_data", false),
];

/// A predefined role's (or the bootstrap superuser's) OID by name (regrole input).
pub fn role_oid(name: &str) -> Option<u32> {
    ROLES.iter().find(|r| r.1 == name).map(|r| r.0)
}

/// A role's name by OID (pg_get_userbyid).
pub fn role_name(oid: u32) -> Option<&'static str> {
    ROLES.iter().find(|r| r.0 == oid).map(|r| r.1)
}

/// (oid, name, handler, type) of the access methods.
const ACCESS_METHODS: &[(u32, &str, &str, char)] = &[
    (2, "heap", "heap_tableam_handler", 't'),
    (403, "btree", "bthandler", 'i'),
    (405, "hash", "hashhandler", 'i'),
    (783, "gist", "gisthandler", 'i'),
    (2742, "gin", "ginhandler", 'i'),
    (4000, "spgist", "spghandler", 'i'),
    (3580, "brin", "brinhandler", 'i'),
];

/// (oid, name, provider, encoding, collate/ctype) of the libc collations.
const COLLATIONS: &[(u32, &str, char, i32, Option<&str>)] = &[
    (100, "default", 'd', -1, None),
    (950, "C", 'c', -1, Some("C")),
    (951, "POSIX", 'c', -1, Some("POSIX")),
    (12340, "ucs_basic", 'c', 6, Some("C")),
    (12341, "C.utf8", 'c', 6, Some("C.utf8")),
];

/// A collation's name by OID.
pub fn collation_name(oid: u32) -> Option<&'static str> {
    COLLATIONS.iter().find(|c| c.0 == oid).map(|c| c.1)
}

/// (objoid, classoid, description) of pg_description's rows for the objects above.
const DESCRIPTIONS: &[(u32, u32, &str)] = &[
    (PLPGSQL_EXTENSION, 3079, "PL/pgSQL procedural language"),
    (99, 2615, "reserved schema for TOAST tables"),
    (PG_CATALOG, 2615, "system catalog schema"),
    (2200, 2615, "standard public schema"),
];

/// pg_description's fixed rows: (objoid, classoid, description).
pub fn descriptions() -> impl Iterator<Item = (u32, u32, &'static str)> {
    DESCRIPTIONS.iter().copied()
}

/// The description PostgreSQL 15 ships for a database of a fresh cluster (pg_shdescription).
pub fn database_description(name: &str) -> Option<&'static str> {
    match name {
        "postgres" => Some("default administrative connection database"),
        "template0" => Some("unmodifiable empty database"),
        "template1" => Some("default template for new databases"),
        _ => None,
    }
}

/// The description of an object from pg_description's fixed rows (obj_description).
pub fn description(objoid: u32, classoid: u32) -> Option<&'static str> {
    DESCRIPTIONS
        .iter()
        .find(|d| d.0 == objoid && d.1 == classoid)
        .map(|d| d.2)
}

/// Builds one row of catalog `oid` by column name; columns `f` leaves out are NULL.
pub fn build_row(oid: u32, mut f: impl FnMut(&str) -> Option<Value>) -> Vec<Value> {
    let rel = relation_by_oid(oid).expect("catalog relation");
    rel.columns
        .iter()
        .map(|(name, _)| f(name).unwrap_or(Value::Null))
        .collect()
}

fn text(s: &str) -> Value {
    Value::Text(s.to_string())
}

fn ch(c: char) -> Value {
    Value::Text(c.to_string())
}

/// The rows of catalog `oid` if it is one of the fixed catalogs.
pub fn rows(oid: u32) -> Option<Vec<Vec<Value>>> {
    Some(match oid {
        // pg_am
        2601 => ACCESS_METHODS
            .iter()
            .map(|(o, name, handler, kind)| {
                build_row(oid, |c| match c {
                    "oid" => Some(Value::Oid(*o)),
                    "amname" => Some(text(name)),
                    "amhandler" => Some(text(handler)),
                    "amtype" => Some(ch(*kind)),
                    _ => None,
                })
            })
            .collect(),
        // pg_init_privs: the built-in schemas' ACLs as initdb leaves them, so that pg_dump
        // writes GRANTs only for what was changed since.
        3394 => [PG_CATALOG, 2200]
            .iter()
            .map(|&o| {
                build_row(oid, |c| match c {
                    "objoid" => Some(Value::Oid(o)),
                    "classoid" => Some(Value::Oid(2615)),
                    "objsubid" => Some(Value::Int4(0)),
                    "privtype" => Some(ch('i')),
                    "initprivs" => Some(namespace_acl(o)),
                    _ => None,
                })
            })
            .collect(),
        // pg_tablespace
        1213 => [(1663, "pg_default"), (1664, "pg_global")]
            .iter()
            .map(|(o, name)| {
                build_row(oid, |c| match c {
                    "oid" => Some(Value::Oid(*o)),
                    "spcname" => Some(text(name)),
                    "spcowner" => Some(Value::Oid(BOOTSTRAP_SUPERUSER)),
                    _ => None,
                })
            })
            .collect(),
        // pg_authid, pg_roles, pg_user
        1260 | 12000 | 12014 => ROLES
            .iter()
            .filter(|r| oid != 12014 || r.0 == BOOTSTRAP_SUPERUSER)
            .map(|(o, name, sup)| {
                build_row(oid, |c| match c {
                    "oid" | "usesysid" => Some(Value::Oid(*o)),
                    "rolname" | "usename" => Some(text(name)),
                    "rolinherit" => Some(Value::Bool(true)),
                    "rolsuper" | "rolcreaterole" | "rolcreatedb" | "rolcanlogin"
                    | "rolreplication" | "rolbypassrls" | "usecreatedb" | "usesuper"
                    | "userepl" | "usebypassrls" => Some(Value::Bool(*sup)),
                    "rolconnlimit" => Some(Value::Int4(-1)),
                    "rolpassword" if oid == 12000 => Some(text("********")),
                    "passwd" => Some(text("********")),
                    _ => None,
                })
            })
            .collect(),
        // pg_proc
        1255 => super::procs::rows(),
        // pg_aggregate
        2600 => super::aggregates::rows(),
        // pg_operator
        2617 => super::operators::rows(),
        // pg_auth_members: pg_monitor's memberships, as initdb grants them
        1261 => [3374, 3375, 3377]
            .iter()
            .map(|role| {
                build_row(oid, |c| match c {
                    "roleid" => Some(Value::Oid(*role)),
                    "member" => Some(Value::Oid(3373)),
                    "grantor" => Some(Value::Oid(BOOTSTRAP_SUPERUSER)),
                    "admin_option" => Some(Value::Bool(false)),
                    _ => None,
                })
            })
            .collect(),
        // pg_language: PostgreSQL 15's rows (plpgsql's OIDs as a fresh cluster has them)
        2612 => [
            (12, "internal", false, false, 0, 0, 2246),
            (13, "c", false, false, 0, 0, 2247),
            (14, "sql", false, true, 0, 0, 2248),
            (13563, "plpgsql", true, true, 13560, 13561, 13562),
        ]
        .iter()
        .map(|(o, name, pl, trusted, call, inline, validator)| {
            build_row(oid, |c| match c {
                "oid" => Some(Value::Oid(*o)),
                "lanname" => Some(text(name)),
                "lanowner" => Some(Value::Oid(BOOTSTRAP_SUPERUSER)),
                "lanispl" => Some(Value::Bool(*pl)),
                "lanpltrusted" => Some(Value::Bool(*trusted)),
                "lanplcallfoid" => Some(Value::Oid(*call)),
                "laninline" => Some(Value::Oid(*inline)),
                "lanvalidator" => Some(Value::Oid(*validator)),
                _ => None,
            })
        })
        .collect(),
        // pg_collation
        3456 => COLLATIONS
            .iter()
            .map(|(o, name, provider, enc, locale)| {
                build_row(oid, |c| match c {
                    "oid" => Some(Value::Oid(*o)),
                    "collname" => Some(text(name)),
                    "collnamespace" => Some(Value::Oid(PG_CATALOG)),
                    "collowner" => Some(Value::Oid(BOOTSTRAP_SUPERUSER)),
                    "collprovider" => Some(ch(*provider)),
                    "collisdeterministic" => Some(Value::Bool(true)),
                    "collencoding" => Some(Value::Int4(*enc)),
                    "collcollate" | "collctype" => locale.map(text),
                    _ => None,
                })
            })
            .collect(),
        // pg_extension
        3079 => vec![build_row(oid, |c| match c {
            "oid" => Some(Value::Oid(PLPGSQL_EXTENSION)),
            "extname" => Some(text("plpgsql")),
            "extowner" => Some(Value::Oid(BOOTSTRAP_SUPERUSER)),
            "extnamespace" => Some(Value::Oid(PG_CATALOG)),
            "extrelocatable" => Some(Value::Bool(false)),
            "extversion" => Some(text("1.0")),
            _ => None,
        })],
        _ => return None,
    })
}

/// pg_database.datacl of a database: the template databases allow CONNECT to the owner only
/// (`=c/postgres`, `postgres=CTc/postgres`), others have the default (NULL).
pub fn database_acl(name: &str) -> Value {
    if name == "template0" || name == "template1" {
        Value::Array(Box::new(Array::one_dim(
            Type::ACLITEM,
            vec![text("=c/postgres"), text("postgres=CTc/postgres")],
        )))
    } else {
        Value::Null
    }
}

/// pg_namespace.nspacl of the built-in schemas.
pub fn namespace_acl(oid: u32) -> Value {
    let items: &[&str] = match oid {
        PG_CATALOG | 13207 => &["postgres=UC/postgres", "=U/postgres"],
        2200 => &[
            "pg_database_owner=UC/pg_database_owner",
            "=U/pg_database_owner",
        ],
        _ => return Value::Null,
    };
    Value::Array(Box::new(Array::one_dim(
        Type::ACLITEM,
        items.iter().map(|i| text(i)).collect(),
    )))
}
