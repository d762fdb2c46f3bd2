//! has_table_privilege, has_column_privilege, has_any_column_privilege,
//! has_sequence_privilege, has_schema_privilege and has_database_privilege, in all of
//! PostgreSQL's signatures: the user by name or OID (or the current user), the object by name
//! or OID, and a comma-separated privilege list, each item optionally `WITH GRANT OPTION`
//! (utils/adt/acl.c). The answer is whether the user holds any of the listed privileges.
//! An object or role named by OID that does not exist gives NULL; by name, PostgreSQL's error.

use crate::catalog::acl::{self, ObjKind};
use crate::catalog::{Oid, RelKind};
use crate::error::{code, PgError, PgResult};
use crate::sql::context::SessionCtx;
use crate::sql::engine::Rel;
use crate::sql::func::session_fn::PrivFn;
use crate::sql::privs::{self, Who};
use crate::sql::types::{Type, Value};

/// An argument naming something: by name or by OID.
enum Ref {
    Name(String),
    Oid(u32),
}

fn arg_ref(v: &Value, ty: Type) -> Ref {
    match v {
        Value::Oid(o) => Ref::Oid(*o),
        Value::Text(s) if !matches!(ty, Type::OID) => Ref::Name(s.clone()),
        other => match other.as_i64() {
            Some(i) => Ref::Oid(i as u32),
            None => Ref::Name(other.as_str().unwrap_or_default().to_string()),
        },
    }
}

/// The privilege bits a list names, for the function's object kind (with grant options
/// shifted left by 16, as `acl::mask` takes them).
fn privilege_list(f: PrivFn, text: &str) -> PgResult<u32> {
    let mut bits = 0;
    for item in text.split(',') {
        let words: Vec<String> = item
            .split_whitespace()
            .map(str::to_ascii_uppercase)
            .collect();
        let (name, grant) = match words.as_slice() {
            [n] => (n.as_str(), false),
            [n, w, g, o] if w == "WITH" && g == "GRANT" && o == "OPTION" => (n.as_str(), true),
            _ => ("", false),
        };
        let bit = match (f, name) {
            (PrivFn::Table, "SELECT" | "INSERT" | "UPDATE" | "REFERENCES")
            | (PrivFn::Column | PrivFn::AnyColumn, "SELECT" | "INSERT" | "UPDATE" | "REFERENCES")
            | (PrivFn::Sequence, "SELECT" | "UPDATE")
            | (PrivFn::Table, "DELETE" | "TRUNCATE" | "TRIGGER") => match name {
                "SELECT" => acl::SELECT,
                "INSERT" => acl::INSERT,
                "UPDATE" => acl::UPDATE,
                "REFERENCES" => acl::REFERENCES,
                "DELETE" => acl::DELETE,
                "TRUNCATE" => acl::TRUNCATE,
                _ => acl::TRIGGER,
            },
            (PrivFn::Table, "RULE") => 0,
            (PrivFn::Sequence | PrivFn::Schema, "USAGE") => acl::USAGE,
            (PrivFn::Schema | PrivFn::Database, "CREATE") => acl::CREATE,
            (PrivFn::Database, "CONNECT") => acl::CONNECT,
            (PrivFn::Database, "TEMPORARY" | "TEMP") => acl::CREATE_TEMP,
            _ => {
                return Err(PgError::new(
                    code::INVALID_PARAMETER_VALUE,
                    format!("unrecognized privilege type: \"{}\"", item.trim()),
                ))
            }
        };
        bits |= if grant { bit << 16 } else { bit };
    }
    Ok(bits)
}

/// Evaluates one of the has_*_privilege functions.
pub fn call(f: PrivFn, args: &[Value], types: &[Type], cx: &mut dyn SessionCtx) -> PgResult<Value> {
    if args.iter().any(Value::is_null) {
        return Ok(Value::Null);
    }
    let n_obj = f.object_args();
    let with_user = args.len() == n_obj + 2;
    let snap = cx.catalog_snapshot()?;
    let user: Oid = if with_user {
        match arg_ref(&args[0], types[0]) {
            Ref::Oid(o) => o,
            Ref::Name(n) => crate::sql::privs::role_oid(cx, &n)?,
        }
    } else {
        cx.role_oid()
    };
    let obj = if with_user { 1 } else { 0 };
    let priv_text = args[args.len() - 1]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let object = arg_ref(&args[obj], types[obj]);
    let roles = &cx.instance().catalog.roles;
    let superuser = roles.by_oid(user, &snap).is_some_and(|r| r.def.superuser);
    match f {
        PrivFn::Table | PrivFn::Sequence | PrivFn::Column | PrivFn::AnyColumn => {
            // A system catalog: readable by everyone but the password catalogs.
            if let Some(oid) = catalog_oid(&object) {
                if f == PrivFn::Table || f == PrivFn::AnyColumn {
                    let bits = privilege_list(f, &priv_text)?;
                    let acl = privs::catalog_acl(oid);
                    let who = Who {
                        role: user,
                        superuser,
                        roles: &cx.instance().catalog.roles,
                        snap: &snap,
                    };
                    let owner = crate::catalog::roles::BOOTSTRAP_SUPERUSER;
                    return Ok(Value::Bool(each_bit(bits).any(|b| {
                        privs::acl_mask(&who, user, owner, Some(&acl), ObjKind::Table, b) != 0
                    })));
                }
            }
            let Some(rel) = relation(cx, object)? else {
                return Ok(Value::Null);
            };
            if f == PrivFn::Sequence && rel.kind != RelKind::Sequence {
                return Err(PgError::new(
                    code::WRONG_OBJECT_TYPE,
                    format!("\"{}\" is not a sequence", rel.name.name),
                ));
            }
            let column = if f == PrivFn::Column {
                match column_of(&rel, &args[obj + 1], types[obj + 1])? {
                    Some(c) => Some(c),
                    None => return Ok(Value::Null),
                }
            } else {
                None
            };
            let bits = privilege_list(f, &priv_text)?;
            let roles = &cx.instance().catalog.roles;
            let who = Who {
                role: user,
                superuser,
                roles,
                snap: &snap,
            };
            let any = |b: u32| each_bit(b).any(|b| privs::rel_mask(&who, user, &rel, b) != 0);
            let any_col = |c: i16, b: u32| {
                each_bit(b).any(|b| privs::column_mask(&who, user, &rel, c, b) != 0)
            };
            let ok = match f {
                PrivFn::Column => any(bits) || any_col(column.unwrap_or(0), bits),
                PrivFn::AnyColumn => {
                    any(bits) || rel.live_columns().any(|(i, _)| any_col(i as i16 + 1, bits))
                }
                _ => any(bits),
            };
            Ok(Value::Bool(ok))
        }
        PrivFn::Schema => {
            let db = cx.database().to_string();
            let name = match object {
                Ref::Name(n) => n,
                Ref::Oid(o) => {
                    let created = cx
                        .instance()
                        .catalog
                        .namespaces
                        .visible(&db, &snap)
                        .into_iter()
                        .find(|n| n.oid == o)
                        .map(|n| n.name.clone());
                    match created
                        .or_else(|| crate::sql::catalog::namespace_name(o).map(str::to_string))
                    {
                        Some(n) => n,
                        None => return Ok(Value::Null),
                    }
                }
            };
            let Some(info) = privs::schema_info(&cx.instance().catalog, &snap, &db, &name) else {
                return Err(PgError::new(
                    code::INVALID_SCHEMA_NAME,
                    format!("schema \"{name}\" does not exist"),
                ));
            };
            let bits = privilege_list(f, &priv_text)?;
            let who = Who {
                role: user,
                superuser,
                roles: &cx.instance().catalog.roles,
                snap: &snap,
            };
            Ok(Value::Bool(
                each_bit(bits).any(|b| privs::schema_mask(&who, user, &info, b) != 0),
            ))
        }
        PrivFn::Database => {
            let inst = cx.instance();
            let name = match object {
                Ref::Name(n) => {
                    if inst.database_oid(&n).is_none() {
                        return Err(PgError::new(
                            code::INVALID_CATALOG_NAME,
                            format!("database \"{n}\" does not exist"),
                        ));
                    }
                    n
                }
                Ref::Oid(o) => match inst.database_names().into_iter().find(|(_, d)| *d == o) {
                    Some((n, _)) => n,
                    None => return Ok(Value::Null),
                },
            };
            let bits = privilege_list(f, &priv_text)?;
            let acl = privs::database_acl(inst, &snap, &name);
            let who = Who {
                role: user,
                superuser,
                roles: &inst.catalog.roles,
                snap: &snap,
            };
            Ok(Value::Bool(each_bit(bits).any(|b| {
                privs::acl_mask(
                    &who,
                    user,
                    crate::catalog::roles::BOOTSTRAP_SUPERUSER,
                    Some(&acl),
                    ObjKind::Database,
                    b,
                ) != 0
            })))
        }
    }
}

/// The single bits of `bits` (privileges and grant options).
fn each_bit(bits: u32) -> impl Iterator<Item = u32> {
    (0..32).map(|i| 1u32 << i).filter(move |b| bits & b != 0)
}

/// The OID of a system catalog an argument names (by a name without a schema or with
/// pg_catalog, or by OID).
fn catalog_oid(r: &Ref) -> Option<Oid> {
    match r {
        Ref::Name(n) => {
            let n = n.strip_prefix("pg_catalog.").unwrap_or(n);
            crate::sql::catalog::relation(n).map(|r| r.oid)
        }
        Ref::Oid(o) => crate::sql::catalog::relation_by_oid(*o).map(|r| r.oid),
    }
}

fn relation(cx: &mut dyn SessionCtx, r: Ref) -> PgResult<Option<std::sync::Arc<Rel>>> {
    match r {
        Ref::Name(n) => crate::sql::sequence::find_named(cx, &n).map(Some),
        Ref::Oid(o) => crate::sql::context::database_relation(cx, o),
    }
}

/// The column a has_column_privilege argument names: a name (42703 if the table has none) or
/// a number (None if there is no such live column).
fn column_of(rel: &Rel, v: &Value, ty: Type) -> PgResult<Option<i16>> {
    match v {
        Value::Text(name) if !matches!(ty, Type::INT2 | Type::INT4 | Type::INT8) => {
            crate::sql::plan::modify::target_column(rel, name, None).map(|i| Some(i as i16 + 1))
        }
        other => {
            let n = other.as_i64().unwrap_or(0);
            Ok(rel
                .live_columns()
                .find(|(i, _)| *i as i64 + 1 == n)
                .map(|(i, _)| i as i16 + 1))
        }
    }
}

/// acldefault(kind, owner): the ACL a missing one stands for (utils/adt/acl.c), for the object
/// kinds PostgreSQL abbreviates as c, r, s, d, n, f, l, L, t, F, S, T.
pub fn acldefault(cx: &mut dyn SessionCtx, args: &[Value]) -> PgResult<Value> {
    let (Some(kind), Some(owner)) = (args.first(), args.get(1)) else {
        return Ok(Value::Null);
    };
    if kind.is_null() || owner.is_null() {
        return Ok(Value::Null);
    }
    let kind = kind.as_str().and_then(|s| s.chars().next()).unwrap_or('\0');
    let owner = match owner {
        Value::Oid(o) => *o,
        v => v.as_i64().unwrap_or(0) as u32,
    };
    // (PUBLIC's default, the owner's)
    let (world, own) = match kind {
        'c' => (0, 0),
        'r' => (0, acl::ALL_RELATION),
        's' => (0, acl::ALL_SEQUENCE),
        'd' => (acl::CREATE_TEMP | acl::CONNECT, acl::ALL_DATABASE),
        'f' => (acl::EXECUTE, acl::EXECUTE),
        'l' | 'T' => (acl::USAGE, acl::USAGE),
        'L' => (0, acl::SELECT | acl::UPDATE),
        'n' => (0, acl::ALL_SCHEMA),
        't' => (0, acl::CREATE),
        'F' | 'S' => (0, acl::USAGE),
        other => {
            return Err(PgError::new(
                code::INTERNAL_ERROR,
                format!("unrecognized object type abbreviation: {other}"),
            ))
        }
    };
    let mut items = Vec::new();
    if world != 0 {
        items.push(acl::AclItem {
            grantee: acl::PUBLIC,
            grantor: owner,
            privs: world,
            goptions: 0,
        });
    }
    if own != 0 {
        items.push(acl::AclItem {
            grantee: owner,
            grantor: owner,
            privs: own,
            goptions: 0,
        });
    }
    let snap = cx.catalog_snapshot()?;
    let roles = &cx.instance().catalog.roles;
    let name = |o: Oid| roles.by_oid(o, &snap).map(|r| r.def.name.clone());
    Ok(Value::Array(Box::new(crate::sql::types::Array::one_dim(
        Type::ACLITEM,
        items
            .iter()
            .map(|i| Value::Text(acl::item_text(i, &name)))
            .collect(),
    ))))
}

/// PostgreSQL's names of the privilege bits, in bit order (aclexplode's privilege_type).
pub(crate) const PRIVILEGE_NAMES: [&str; 14] = [
    "INSERT",
    "SELECT",
    "UPDATE",
    "DELETE",
    "TRUNCATE",
    "REFERENCES",
    "TRIGGER",
    "EXECUTE",
    "USAGE",
    "CREATE",
    "TEMPORARY",
    "CONNECT",
    "SET",
    "ALTER SYSTEM",
];

/// aclexplode's rows for an `aclitem[]` value: (grantor, grantee, privilege_type,
/// is_grantable) for each privilege of each item, in item and bit order.
pub fn explode(cx: &mut dyn SessionCtx, v: &Value) -> PgResult<Vec<Vec<Value>>> {
    let Value::Array(a) = v else {
        return Ok(Vec::new());
    };
    let snap = cx.catalog_snapshot()?;
    let roles = &cx.instance().catalog.roles;
    let oid_of = |name: &str| -> PgResult<Oid> {
        if name.is_empty() {
            return Ok(acl::PUBLIC);
        }
        if let Some(r) = roles.by_name(name, &snap) {
            return Ok(r.oid);
        }
        // A role that no longer exists is written as its OID.
        name.parse().map_err(|_| {
            PgError::new(
                code::UNDEFINED_OBJECT,
                format!("role \"{name}\" does not exist"),
            )
        })
    };
    let mut rows = Vec::new();
    for item in &a.items {
        let Some(text) = item.as_str() else {
            continue;
        };
        let (grantee, privs, grantor) = parse_item(text)?;
        let (grantee, grantor) = (oid_of(&grantee)?, oid_of(&grantor)?);
        let mut chars = privs.chars().peekable();
        while let Some(c) = chars.next() {
            let grantable = chars.peek() == Some(&'*');
            if grantable {
                chars.next();
            }
            let Some(bit) = "arwdDxtXUCTcsA".find(c) else {
                continue;
            };
            rows.push(vec![
                Value::Oid(grantor),
                Value::Oid(grantee),
                Value::Text(PRIVILEGE_NAMES[bit].to_string()),
                Value::Bool(grantable),
            ]);
        }
    }
    Ok(rows)
}

/// Splits an aclitem's text `grantee=privs/grantor` (names possibly double-quoted).
fn parse_item(text: &str) -> PgResult<(String, String, String)> {
    let bad = || {
        PgError::new(
            code::INVALID_TEXT_REPRESENTATION,
            format!("invalid input syntax for type aclitem: \"{text}\""),
        )
    };
    fn name(s: &str) -> (String, &str) {
        if let Some(rest) = s.strip_prefix('"') {
            let mut out = String::new();
            let mut it = rest.char_indices();
            while let Some((i, c)) = it.next() {
                if c == '"' {
                    if rest[i + 1..].starts_with('"') {
                        out.push('"');
                        it.next();
                        continue;
                    }
                    return (out, &rest[i + 1..]);
                }
                out.push(c);
            }
            (out, "")
        } else {
            let end = s.find(['=', '/']).unwrap_or(s.len());
            (s[..end].to_string(), &s[end..])
        }
    }
    let (grantee, rest) = name(text);
    let rest = rest.strip_prefix('=').ok_or_else(bad)?;
    let slash = rest.find('/').ok_or_else(bad)?;
    let privs = rest[..slash].to_string();
    let (grantor, _) = name(&rest[slash + 1..]);
    Ok((grantee, privs, grantor))
}

#[cfg(all(test, not(feature = "shuttle")))]
mod tests {
    use super::*;

    #[test]
    fn aclitem_text_is_split() {
        let p = |t: &str| parse_item(t).unwrap();
        assert_eq!(
            p("alice=r*w/postgres"),
            ("alice".into(), "r*w".into(), "postgres".into())
        );
        assert_eq!(p("=U/postgres"), ("".into(), "U".into(), "postgres".into()));
        assert_eq!(
            p("\"a \"\"b\"\"=c\"=arw/\"x/y\""),
            ("a \"b\"=c".into(), "arw".into(), "x/y".into())
        );
        assert!(parse_item("nonsense").is_err());
        assert_eq!(
            privilege_list(PrivFn::Table, "select, UPDATE with grant option").unwrap(),
            acl::SELECT | (acl::UPDATE << 16)
        );
        assert!(privilege_list(PrivFn::Schema, "select").is_err());
    }
}
