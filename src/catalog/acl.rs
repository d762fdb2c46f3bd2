//! Access control lists: PostgreSQL's `aclitem[]` (utils/adt/acl.c) for tables, columns,
//! sequences, schemas and databases.
//!
//! An [`AclItem`] says that `grantee` (0: PUBLIC) holds `privs` (and grant options on
//! `goptions`) as granted by `grantor`. A missing ACL (`None`) means the object's defaults
//! ([`default_acl`]): the owner holds every privilege of the object's kind, and PUBLIC only what
//! the kind gives everybody (databases: CONNECT and TEMPORARY). Bits and letters are
//! PostgreSQL's (`ACL_INSERT` = 1 'a', `ACL_SELECT` = 2 'r', ...), so the text form is the same
//! as PostgreSQL's `aclitemout`: `alice=arw*/postgres`.
//!
//! Semantics follow acl.c: [`update`] is `aclupdate` (items matched by grantee *and* grantor;
//! revoking a grant option revokes what was granted with it, `recursive_revoke`), [`mask`] is
//! `aclmask` (direct grants and PUBLIC first, then roles the user has the privileges of).
//! Role membership is asked through a closure, so this module stays below the role catalog.
//!
//! # Bounds
//!
//! An ACL has one item per (grantee, grantor) pair; GRANT/REVOKE are the only writers, so its
//! size is bounded by the roles that exist squared, in practice a handful.

use super::Oid;
use serde::{Deserialize, Serialize};

/// Privilege bits (PostgreSQL's AclMode, `nodes/parsenodes.h`).
pub const INSERT: u32 = 1 << 0;
pub const SELECT: u32 = 1 << 1;
pub const UPDATE: u32 = 1 << 2;
pub const DELETE: u32 = 1 << 3;
pub const TRUNCATE: u32 = 1 << 4;
pub const REFERENCES: u32 = 1 << 5;
pub const TRIGGER: u32 = 1 << 6;
pub const EXECUTE: u32 = 1 << 7;
pub const USAGE: u32 = 1 << 8;
pub const CREATE: u32 = 1 << 9;
pub const CREATE_TEMP: u32 = 1 << 10;
pub const CONNECT: u32 = 1 << 11;

/// ACL_ALL_RIGHTS_STR: the letter of each bit, in bit order.
const LETTERS: &[u8] = b"arwdDxtXUCTcsA";

pub const ALL_RELATION: u32 = INSERT | SELECT | UPDATE | DELETE | TRUNCATE | REFERENCES | TRIGGER;
pub const ALL_SEQUENCE: u32 = USAGE | SELECT | UPDATE;
pub const ALL_COLUMN: u32 = INSERT | SELECT | UPDATE | REFERENCES;
pub const ALL_SCHEMA: u32 = USAGE | CREATE;
pub const ALL_DATABASE: u32 = CREATE | CREATE_TEMP | CONNECT;

/// The grantee standing for everybody (ACL_ID_PUBLIC).
pub const PUBLIC: Oid = 0;

/// What kind of object an ACL guards (for its defaults and its error texts).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ObjKind {
    Table,
    Sequence,
    Column,
    Schema,
    Database,
}

impl ObjKind {
    /// Every privilege the kind has.
    pub fn all(self) -> u32 {
        match self {
            ObjKind::Table => ALL_RELATION,
            ObjKind::Sequence => ALL_SEQUENCE,
            ObjKind::Column => ALL_COLUMN,
            ObjKind::Schema => ALL_SCHEMA,
            ObjKind::Database => ALL_DATABASE,
        }
    }
}

/// One `aclitem`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct AclItem {
    pub grantee: Oid,
    pub grantor: Oid,
    pub privs: u32,
    pub goptions: u32,
}

pub type Acl = Vec<AclItem>;

/// acldefault(): what a missing ACL means.
pub fn default_acl(kind: ObjKind, owner: Oid) -> Acl {
    let (world, own) = match kind {
        ObjKind::Column => (0, 0),
        ObjKind::Database => (CREATE_TEMP | CONNECT, ALL_DATABASE),
        k => (0, k.all()),
    };
    let mut acl = Vec::new();
    if world != 0 {
        acl.push(AclItem {
            grantee: PUBLIC,
            grantor: owner,
            privs: world,
            goptions: 0,
        });
    }
    if own != 0 {
        acl.push(AclItem {
            grantee: owner,
            grantor: owner,
            privs: own,
            // The owner's grant options are implicit (aclmask), not stored.
            goptions: 0,
        });
    }
    acl
}

/// Letters of `privs` with `*` after those in `goptions` (aclitemout's middle part).
pub fn letters(privs: u32, goptions: u32) -> String {
    let mut s = String::new();
    for (i, l) in LETTERS.iter().enumerate() {
        if privs & (1 << i) != 0 {
            s.push(*l as char);
            if goptions & (1 << i) != 0 {
                s.push('*');
            }
        }
    }
    s
}

/// A role name as aclitemout writes it (putid): quoted when it has anything but letters,
/// digits and underscores (or is empty), with quotes doubled.
fn putid(name: &str) -> String {
    let safe = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || !c.is_ascii());
    if safe {
        name.to_string()
    } else {
        format!("\"{}\"", name.replace('"', "\"\""))
    }
}

/// aclitemout: `grantee=privs/grantor`; PUBLIC is an empty grantee, a role that no longer
/// exists is written as its OID.
pub fn item_text(item: &AclItem, name: &dyn Fn(Oid) -> Option<String>) -> String {
    let who = |oid: Oid| name(oid).map_or_else(|| oid.to_string(), |n| putid(&n));
    let grantee = if item.grantee == PUBLIC {
        String::new()
    } else {
        who(item.grantee)
    };
    format!(
        "{grantee}={}/{}",
        letters(item.privs, item.goptions),
        who(item.grantor)
    )
}

/// Why an ACL change was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AclError {
    /// RESTRICT and privileges granted with the revoked grant option exist (2BP01).
    DependentPrivileges,
}

/// aclupdate: adds (`grant`) or removes `item`'s privileges and grant options of the item with
/// the same grantee and grantor. Removing a grant option the grantee holds from nobody else
/// also removes what the grantee granted with it (`cascade`), or fails (RESTRICT).
pub fn update(
    acl: &mut Acl,
    item: AclItem,
    grant: bool,
    owner: Oid,
    cascade: bool,
    has_privs_of: &dyn Fn(Oid, Oid) -> bool,
) -> Result<(), AclError> {
    let pos = acl
        .iter()
        .position(|a| a.grantee == item.grantee && a.grantor == item.grantor);
    let old_goptions = pos.map_or(0, |p| acl[p].goptions);
    match (pos, grant) {
        (Some(p), true) => {
            acl[p].privs |= item.privs | item.goptions;
            acl[p].goptions |= item.goptions;
        }
        (None, true) => {
            // An item with no rights is never kept (aclupdate removes it).
            if item.privs | item.goptions != 0 {
                acl.push(AclItem {
                    privs: item.privs | item.goptions,
                    ..item
                })
            }
        }
        (Some(p), false) => {
            acl[p].privs &= !item.privs;
            acl[p].goptions &= !(item.goptions | item.privs);
            if acl[p].privs == 0 && acl[p].goptions == 0 {
                acl.remove(p);
            }
        }
        (None, false) => {}
    }
    let new_goptions = acl
        .iter()
        .find(|a| a.grantee == item.grantee && a.grantor == item.grantor)
        .map_or(0, |a| a.goptions);
    let lost = old_goptions & !new_goptions;
    if lost != 0 {
        recursive_revoke(acl, item.grantee, lost, owner, cascade, has_privs_of)?;
    }
    Ok(())
}

/// acl.c's recursive_revoke: `grantee` lost the grant options `revoke`; what it granted with
/// them (and still holds from no other grantor) goes too.
fn recursive_revoke(
    acl: &mut Acl,
    grantee: Oid,
    revoke: u32,
    owner: Oid,
    cascade: bool,
    has_privs_of: &dyn Fn(Oid, Oid) -> bool,
) -> Result<(), AclError> {
    // The owner always has grant options.
    if grantee == owner {
        return Ok(());
    }
    let still = mask(acl, grantee, owner, revoke << 16, true, has_privs_of) >> 16;
    let revoke = revoke & !still;
    if revoke == 0 {
        return Ok(());
    }
    loop {
        let Some(a) = acl
            .iter()
            .find(|a| a.grantor == grantee && a.privs & revoke != 0)
            .copied()
        else {
            return Ok(());
        };
        if !cascade {
            return Err(AclError::DependentPrivileges);
        }
        update(
            acl,
            AclItem {
                grantee: a.grantee,
                grantor: a.grantor,
                privs: revoke,
                goptions: revoke,
            },
            false,
            owner,
            cascade,
            has_privs_of,
        )?;
    }
}

/// aclmask: which of `want` (privilege bits, and grant-option bits shifted left by 16) `role`
/// holds under `acl`. With `all`, stops early only once every wanted bit is found; else at the
/// first. The owner (and roles with its privileges) always holds every grant option.
pub fn mask(
    acl: &Acl,
    role: Oid,
    owner: Oid,
    want: u32,
    all: bool,
    has_privs_of: &dyn Fn(Oid, Oid) -> bool,
) -> u32 {
    let done = |r: u32| if all { r == want } else { r != 0 };
    let mut result = 0;
    if want & 0xFFFF_0000 != 0 && has_privs_of(role, owner) {
        result = want & 0xFFFF_0000;
        if done(result) {
            return result;
        }
    }
    for a in acl {
        if a.grantee == PUBLIC || a.grantee == role {
            result |= (a.privs | (a.goptions << 16)) & want;
            if done(result) {
                return result;
            }
        }
    }
    for a in acl {
        if a.grantee != PUBLIC && a.grantee != role && has_privs_of(role, a.grantee) {
            result |= (a.privs | (a.goptions << 16)) & want;
            if done(result) {
                return result;
            }
        }
    }
    result
}

/// aclnewowner: the ACL after the owner changes from `old` to `new`: every item naming the old
/// owner as grantee or grantor names the new one, and items that then coincide are merged.
pub fn new_owner(acl: &Acl, old: Oid, new: Oid) -> Acl {
    let mut out: Acl = Vec::with_capacity(acl.len());
    for a in acl {
        let mut a = *a;
        if a.grantee == old {
            a.grantee = new;
        }
        if a.grantor == old {
            a.grantor = new;
        }
        match out
            .iter_mut()
            .find(|o| o.grantee == a.grantee && o.grantor == a.grantor)
        {
            Some(o) => {
                o.privs |= a.privs;
                o.goptions |= a.goptions;
            }
            None => out.push(a),
        }
    }
    out
}

#[cfg(all(test, not(feature = "shuttle")))]
mod tests {
    use super::*;

    fn names(o: Oid) -> Option<String> {
        match o {
            10 => Some("postgres".into()),
            20 => Some("alice".into()),
            30 => Some("Bob x".into()),
            _ => None,
        }
    }

    fn text(acl: &Acl) -> Vec<String> {
        acl.iter().map(|i| item_text(i, &names)).collect()
    }

    #[test]
    fn defaults_and_text() {
        assert_eq!(
            text(&default_acl(ObjKind::Table, 10)),
            ["postgres=arwdDxt/postgres"]
        );
        assert_eq!(
            text(&default_acl(ObjKind::Database, 10)),
            ["=Tc/postgres", "postgres=CTc/postgres"]
        );
        let i = AclItem {
            grantee: 30,
            grantor: 99,
            privs: SELECT | UPDATE,
            goptions: SELECT,
        };
        assert_eq!(item_text(&i, &names), "\"Bob x\"=r*w/99");
    }

    #[test]
    fn grant_revoke_cascade() {
        let no = |a: Oid, b: Oid| a == b;
        let mut acl = default_acl(ObjKind::Table, 10);
        let g = |grantee, grantor, p, o| AclItem {
            grantee,
            grantor,
            privs: p,
            goptions: o,
        };
        update(&mut acl, g(20, 10, SELECT, SELECT), true, 10, false, &no).unwrap();
        update(&mut acl, g(30, 20, SELECT, 0), true, 10, false, &no).unwrap();
        assert_eq!(
            text(&acl),
            [
                "postgres=arwdDxt/postgres",
                "alice=r*/postgres",
                "\"Bob x\"=r/alice"
            ]
        );
        let mut acl2 = acl.clone();
        assert_eq!(
            update(
                &mut acl.clone(),
                g(20, 10, 0, SELECT),
                false,
                10,
                false,
                &no
            ),
            Err(AclError::DependentPrivileges)
        );
        update(&mut acl2, g(20, 10, 0, SELECT), false, 10, true, &no).unwrap();
        assert_eq!(
            text(&acl2),
            ["postgres=arwdDxt/postgres", "alice=r/postgres"]
        );
        update(&mut acl, g(20, 10, SELECT, SELECT), false, 10, true, &no).unwrap();
        assert_eq!(text(&acl), ["postgres=arwdDxt/postgres"]);
        assert_eq!(mask(&acl, 20, 10, SELECT, true, &no), 0);
        assert_eq!(mask(&acl, 10, 10, ALL_RELATION, true, &no), ALL_RELATION);
    }
}
