//! Who a session acts as: the role it logged in as, SET SESSION AUTHORIZATION (the session
//! user) and SET ROLE (the current user), as PostgreSQL 15 has them.
//!
//! PostgreSQL keeps both as settings (`role`, `session_authorization`), so they are
//! transactional (a rolled-back SET ROLE is undone; SET LOCAL ROLE ends with the transaction)
//! and survive RESET ALL (both are GUC_NO_RESET_ALL). threadgres stores them in [`Settings`]
//! in a form only this module makes (`settings::IDENTITY_SETTINGS`), after checking the role
//! exists (22023 `role "x" does not exist`, the settings' error) and that the session may take
//! it: SET ROLE needs the session user to be a member of the role, directly or not (42501
//! `permission denied to set role "x"`), SET SESSION AUTHORIZATION needs the *authenticated*
//! user to be a superuser (42501 `permission denied to set session authorization`), and it
//! ends any SET ROLE. `is_superuser` follows the current role and, like
//! `session_authorization`, is reported with ParameterStatus when it changes.
//!
//! The role's OID and superuser flag are captured when it is set, as PostgreSQL captures them;
//! its name is read back from the catalog where SQL asks for it (`current_user`).

use super::settings::{encode_identity, Settings};
use super::Core;
use crate::catalog::roles::LoginRole;
use crate::error::{code, PgError, PgResult};

impl Core {
    /// SET / RESET / set_config() of `role` or `session_authorization`: None for any other
    /// setting.
    pub(super) fn set_identity(
        &mut self,
        name: &str,
        value: Option<&str>,
        local: bool,
    ) -> Option<PgResult<String>> {
        let name = match name {
            "role" => "role",
            "session_authorization" | "session authorization" => "session_authorization",
            _ => return None,
        };
        Some(self.set_identity_checked(name, value, local))
    }

    fn set_identity_checked(
        &mut self,
        name: &'static str,
        value: Option<&str>,
        local: bool,
    ) -> PgResult<String> {
        let snap = self.catalog_snapshot();
        let roles = &self.instance.catalog.roles;
        // None: back to the default (no SET ROLE; the login role as session user).
        let target = match value {
            None => None,
            Some(v) if name == "role" && v == "none" => None,
            Some(v) => {
                let r = roles.by_name(v, &snap).ok_or_else(|| {
                    PgError::new(
                        code::INVALID_PARAMETER_VALUE,
                        format!("role \"{v}\" does not exist"),
                    )
                })?;
                Some(r)
            }
        };
        if name == "role" {
            if let Some(r) = &target {
                let (session, session_super) = self.session_role();
                if !session_super && !roles.is_member(session, r.oid, false, &snap) {
                    return Err(PgError::new(
                        code::INSUFFICIENT_PRIVILEGE,
                        format!("permission denied to set role \"{}\"", r.def.name),
                    ));
                }
            }
        } else if target.as_ref().is_some_and(|r| r.oid != self.login_oid) && !self.login_superuser
        {
            return Err(PgError::new(
                code::INSUFFICIENT_PRIVILEGE,
                "permission denied to set session authorization",
            ));
        }
        if local && !matches!(self.tx, super::TxState::Block | super::TxState::Failed) {
            self.notices.push(PgError::warning(
                code::NO_ACTIVE_SQL_TRANSACTION,
                "SET LOCAL can only be used in transaction blocks",
            ));
            return self.show(name);
        }
        let value = target
            .as_ref()
            .map(|r| encode_identity(r.oid, r.def.superuser, &r.def.name))
            .unwrap_or_default();
        // SET SESSION AUTHORIZATION also ends SET ROLE (PostgreSQL's SetSessionUserId).
        let names: &[&str] = if name == "role" {
            &["role"]
        } else {
            &["session_authorization", "role"]
        };
        for n in names {
            let before = self.settings.identity_raw(n);
            let v = if *n == name {
                value.clone()
            } else {
                String::new()
            };
            self.settings.set(n, &v)?;
            self.remember_local(n, before, local);
        }
        self.settings_dirty = true;
        Ok(target.map_or_else(|| "none".to_string(), |r| r.def.name.clone()))
    }

    /// Keeps what SET LOCAL restores at the end of the transaction (and what a session-level
    /// SET after a SET LOCAL keeps), as `Core::set` does for the other settings.
    fn remember_local(&mut self, name: &str, before: String, local: bool) {
        let now = self.settings.identity_raw(name);
        if let Some(txn) = self.txn.as_mut() {
            match txn.local_restore.iter_mut().find(|(n, _)| n == name) {
                Some(entry) if !local => entry.1 = now,
                Some(_) => {}
                None if local => txn.local_restore.push((name.to_string(), before)),
                None => {}
            }
        }
    }

    /// The session user: its OID and whether it is a superuser.
    pub(super) fn session_role(&self) -> (u32, bool) {
        self.settings
            .identity("session_authorization")
            .map_or((self.login_oid, self.login_superuser), |r| (r.0, r.1))
    }

    /// The current user's OID (SET ROLE's, else the session user's).
    pub(super) fn current_role_oid(&self) -> u32 {
        self.settings
            .identity("role")
            .map_or_else(|| self.session_role().0, |r| r.0)
    }

    /// Whether the current user is a superuser (as it was when it became the current user).
    pub(super) fn current_role_is_superuser(&self) -> bool {
        self.settings
            .identity("role")
            .map_or_else(|| self.session_role().1, |r| r.1)
    }

    /// The current user's name as the setting holds it.
    pub(super) fn current_role_name(&self) -> &str {
        current_name(&self.settings, &self.user)
    }

    /// The session user's name.
    pub(super) fn session_role_name(&self) -> &str {
        self.settings
            .identity("session_authorization")
            .map_or(self.user.as_str(), |r| r.2)
    }
}

fn current_name<'a>(s: &'a Settings, login: &'a str) -> &'a str {
    s.identity("role")
        .or_else(|| s.identity("session_authorization"))
        .map_or(login, |r| r.2)
}

/// The checks PostgreSQL's InitializeSessionUserId makes after authentication: the role
/// exists (FATAL 28000), may log in (28000), and is under its connection limit (53300;
/// superusers have none). The count is of the sessions already registered with that user
/// name, taken before this one registers: two logins racing for the last slot may both get
/// in, which PostgreSQL's count (taken after registering) would refuse to one of them.
pub(super) fn check_login(
    instance: &crate::instance::Instance,
    user: &str,
    login: Option<LoginRole>,
) -> PgResult<LoginRole> {
    let fatal = |sqlstate, msg: String| PgError::fatal(sqlstate, msg);
    let Some(login) = login.or_else(|| instance.login_role(user)) else {
        return Err(fatal(
            code::INVALID_AUTHORIZATION_SPECIFICATION,
            format!("role \"{user}\" does not exist"),
        ));
    };
    if !login.can_login {
        return Err(fatal(
            code::INVALID_AUTHORIZATION_SPECIFICATION,
            format!("role \"{user}\" is not permitted to log in"),
        ));
    }
    if login.conn_limit >= 0 && !login.superuser {
        let mut n = 0i64;
        instance.sessions.iter_sync(|_, s| {
            if s.activity.lock().usename == user {
                n += 1;
            }
            true
        });
        if n >= i64::from(login.conn_limit) {
            return Err(fatal(
                code::TOO_MANY_CONNECTIONS,
                format!("too many connections for role \"{user}\""),
            ));
        }
    }
    Ok(login)
}

/// ALTER ROLE ... SET values, applied at login where the start-up packet did not set the same
/// setting (the client's values win, as PostgreSQL's source priorities have it). A stored
/// value that no longer applies is skipped, as PostgreSQL only warns about it.
pub(super) fn apply_role_settings(
    settings: &mut Settings,
    login: &LoginRole,
    params: &[(String, String)],
) {
    for item in &login.config {
        let Some((name, value)) = item.split_once('=') else {
            continue;
        };
        if params.iter().any(|(n, _)| n.eq_ignore_ascii_case(name)) {
            continue;
        }
        let _ = settings.set(name, value);
    }
}
