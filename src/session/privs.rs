//! The session's side of object privileges (`sql::privs`): checking what an analyzed
//! statement needs against the current role, before it runs and again at each execution of a
//! prepared statement (PostgreSQL checks at executor start).

use super::Core;
use crate::error::PgResult;
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
