//! The session's side of object privileges (`sql::privs`): checking what an analyzed
//! statement needs against the current role, before it runs and again at each execution of a
//! prepared statement (PostgreSQL checks at executor start).

use super::Core;
use crate::error::{PgError, PgResult};
use crate::sql::privs::{self, RelPerm, Who};

impl Core {
    /// Fails with 42501 if the current role may not do what `perms` lists.
    pub(super) fn check_perms(&self, perms: &[RelPerm]) -> PgResult<()> {
        let superuser = self.current_role_is_superuser();
        // The common case costs one pass over a short list: a superuser is only checked where
        // a view's owner stands in for it.
        if perms.is_empty() || (superuser && perms.iter().all(|p| p.as_user.is_none())) {
            return Ok(());
        }
        let snap = self.catalog_snapshot();
        let who = Who {
            role: self.current_role_oid(),
            superuser,
            roles: &self.instance.catalog.roles,
            snap: &snap,
        };
        privs::check(perms, &who)
    }
}

/// PostgreSQL's CheckMyDatabase: a role that is not a superuser needs CONNECT on the database
/// (FATAL 42501 `permission denied for database "d"`).
pub(super) fn check_connect(
    instance: &crate::instance::Instance,
    login: &crate::catalog::roles::LoginRole,
    database: &str,
) -> PgResult<()> {
    if login.superuser {
        return Ok(());
    }
    let snap = crate::catalog::roles::Roles::latest(&instance.txns);
    let acl = privs::database_acl(instance, &snap, database);
    let who = Who {
        role: login.oid,
        superuser: false,
        roles: &instance.catalog.roles,
        snap: &snap,
    };
    let got = privs::acl_mask(
        &who,
        login.oid,
        crate::catalog::roles::BOOTSTRAP_SUPERUSER,
        Some(&acl),
        crate::catalog::acl::ObjKind::Database,
        crate::catalog::acl::CONNECT,
    );
    if got != 0 {
        return Ok(());
    }
    Err(PgError::fatal(
        crate::error::code::INSUFFICIENT_PRIVILEGE,
        format!("permission denied for database \"{database}\""),
    )
    .with_detail("User does not have CONNECT privilege."))
}
