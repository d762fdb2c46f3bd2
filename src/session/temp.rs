//! Temporary tables: each session's own schema `pg_temp_N` (N: the session's process id),
//! made in the running transaction by the first CREATE TEMP TABLE (or a table created in
//! `pg_temp`), looked in first by unqualified names (unless search_path places `pg_temp`
//! elsewhere), never by other sessions (their search paths do not name it), and emptied at
//! session end (with the schema itself) and by DISCARD TEMP / DISCARD ALL.
//!
//! ON COMMIT actions: DROP drops the table when the transaction that created it commits;
//! DELETE ROWS empties it (TRUNCATE's new empty version) at each commit where it holds any row
//! version. Both run at the start of `Core::commit`, inside the committing transaction, as
//! PostgreSQL's PreCommit_on_commit_actions does.
//!
//! Bounds: one entry per temporary table with an ON COMMIT action (`TempState::on_commit`),
//! removed when the table is dropped or its creating transaction ends.

use std::borrow::Cow;

use super::txn::TxState;
use super::Core;
use crate::catalog::RelKind;
use crate::error::{code, PgError, PgResult};
use crate::sql::ddl::{Ddl, OnCommit};
use crate::sql::engine;
use crate::sql::{self, Statement};

/// A session's temporary-table state.
#[derive(Default)]
pub(super) struct TempState {
    /// The temporary schema's name, once the session made it (it may have been rolled back
    /// since: then lookups in it find nothing and the next temporary table makes it again).
    pub(super) schema: Option<String>,
    /// Tables with an ON COMMIT action, by OID; DROP entries are the running transaction's.
    on_commit: Vec<(u32, OnCommit)>,
}

impl Core {
    fn temp_name(&self) -> String {
        format!("pg_temp_{}", self.shared.pid)
    }

    /// The session's temporary schema, made in the running transaction if it does not exist.
    pub(super) fn make_temp_schema(&mut self) -> PgResult<String> {
        let name = self.temp_name();
        let snap = self.catalog_snapshot();
        let catalog = &self.instance.catalog;
        if !sql::engine::schema_exists(catalog, &snap, &self.database, &name) {
            // PostgreSQL's InitTempTableNamespace: owned by the bootstrap superuser (the
            // session may use it through `sql::privs::SchemaInfo::temp`).
            let owner = crate::catalog::roles::BOOTSTRAP_SUPERUSER;
            let (cell, cid) = Core::writer(self, "CREATE TABLE")?;
            let snap = self.catalog_snapshot();
            let catalog = &self.instance.catalog;
            let oid = catalog.new_oid().map_err(|_| {
                PgError::new(code::PROGRAM_LIMIT_EXCEEDED, "object identifiers exhausted")
            })?;
            catalog
                .namespaces
                .create(oid, &self.database, &name, owner, &snap, &cell, cid)
                .map_err(|_| PgError::internal("temporary schema exists"))?;
            catalog.bump();
        }
        self.temp.schema = Some(name.clone());
        Ok(name)
    }

    /// search_path as table names are looked up: the temporary schema first, or where
    /// `pg_temp` stands in it.
    pub(super) fn lookup_path(&self) -> Cow<'_, str> {
        let path = self.settings.get_str("search_path").unwrap_or("public");
        let Some(temp) = &self.temp.schema else {
            return Cow::Borrowed(path);
        };
        Cow::Owned(with_temp(path, temp))
    }

    pub(super) fn note_on_commit(&mut self, oid: u32, action: OnCommit) {
        if matches!(action, OnCommit::DeleteRows | OnCommit::Drop) {
            self.temp.on_commit.push((oid, action));
        }
    }

    /// The session's temporary tables (all, or those of `only`), as the command sees them.
    fn temp_tables(&self, only: Option<&[u32]>) -> Vec<std::sync::Arc<sql::engine::Rel>> {
        let Some(schema) = &self.temp.schema else {
            return Vec::new();
        };
        let snap = self.catalog_snapshot();
        self.instance
            .catalog
            .visible(&snap)
            .into_iter()
            .filter(|r| {
                r.name.database == self.database
                    && &r.name.schema == schema
                    && r.kind == RelKind::Table
                    && only.is_none_or(|o| o.contains(&r.oid))
            })
            .collect()
    }

    /// Runs `ddl` over the session's temporary tables in the running transaction, without the
    /// notices it would make.
    fn temp_ddl(&mut self, ddl: &Ddl) -> PgResult<()> {
        let notices = self.notices.len();
        self.next_command();
        self.txn_mut().ddl = true;
        let r = sql::ddl::execute(ddl, self);
        self.notices.truncate(notices);
        r.map(|_| ())
    }

    /// DROP TABLE ... CASCADE of the session's temporary tables (all, or those of `only`);
    /// dropping all of them drops the temporary views and sequences too.
    pub(super) fn drop_temp_tables(&mut self, only: Option<&[u32]>) -> PgResult<()> {
        let names: Vec<(String, String)> = self
            .temp_tables(only)
            .iter()
            .map(|r| (r.name.schema.clone(), r.name.name.clone()))
            .collect();
        if !names.is_empty() {
            self.temp_ddl(&Ddl::DropTables {
                names,
                if_exists: true,
                cascade: true,
            })?;
        }
        if only.is_none() {
            self.drop_temp_others()?;
        }
        Ok(())
    }

    /// The views and sequences left in the temporary schema (views first).
    fn drop_temp_others(&mut self) -> PgResult<()> {
        let Some(schema) = self.temp.schema.clone() else {
            return Ok(());
        };
        let snap = self.catalog_snapshot();
        let mut rest: Vec<_> = self
            .instance
            .catalog
            .visible(&snap)
            .into_iter()
            .filter(|r| {
                r.name.database == self.database
                    && r.name.schema == schema
                    && matches!(r.kind, RelKind::View | RelKind::Sequence)
            })
            .collect();
        if rest.is_empty() {
            return Ok(());
        }
        rest.sort_by_key(|r| r.kind != RelKind::View);
        self.next_command();
        self.txn_mut().ddl = true;
        for r in rest {
            sql::ddl::view::drop_relation(self, &r)?;
        }
        Ok(())
    }

    /// The ON COMMIT actions, at the start of a commit (see the module comment).
    pub(super) fn on_commit_actions(&mut self) -> PgResult<()> {
        if self.temp.on_commit.is_empty() || self.txn.is_none() || self.tx == TxState::Failed {
            return Ok(());
        }
        let drop: Vec<u32> = self
            .temp
            .on_commit
            .iter()
            .filter(|(_, a)| *a == OnCommit::Drop)
            .map(|(o, _)| *o)
            .collect();
        let delete: Vec<u32> = self
            .temp
            .on_commit
            .iter()
            .filter(|(_, a)| *a == OnCommit::DeleteRows)
            .map(|(o, _)| *o)
            .collect();
        if !drop.is_empty() {
            self.drop_temp_tables(Some(&drop))?;
        }
        if !delete.is_empty() {
            let names: Vec<(String, String)> = self
                .temp_tables(Some(&delete))
                .iter()
                .filter(|r| !engine::is_empty(r))
                .map(|r| (r.name.schema.clone(), r.name.name.clone()))
                .collect();
            if !names.is_empty() {
                self.temp_ddl(&Ddl::Truncate(names, false))?;
            }
        }
        Ok(())
    }

    /// After a transaction ended: its ON COMMIT DROP entries are done (the tables were dropped,
    /// or never existed for others); DELETE ROWS entries of dropped tables go.
    pub(super) fn after_transaction_temp(&mut self) {
        if self.temp.on_commit.is_empty() {
            return;
        }
        self.temp
            .on_commit
            .retain(|(_, a)| *a == OnCommit::DeleteRows);
        let live: Vec<u32> = self.temp_tables(None).iter().map(|r| r.oid).collect();
        self.temp.on_commit.retain(|(o, _)| live.contains(o));
    }

    /// Session end: the temporary tables and schema go, in a transaction of their own.
    pub(super) fn drop_temp_schema(&mut self) {
        let Some(schema) = self.temp.schema.clone() else {
            return;
        };
        self.temp.on_commit.clear();
        self.ensure_transaction(&Statement::DiscardAll);
        let result = self.drop_temp_tables(None).and_then(|()| {
            let snap = self.catalog_snapshot();
            let catalog = &self.instance.catalog;
            if let Some(ns) = catalog.namespaces.lookup(&self.database, &schema, &snap) {
                let (cell, cid) = Core::writer(self, "DROP SCHEMA")?;
                let catalog = &self.instance.catalog;
                catalog
                    .namespaces
                    .end(&ns, &cell, cid)
                    .map_err(|_| PgError::internal("temporary schema in use"))?;
                catalog.bump();
            }
            Ok(())
        });
        match result {
            Ok(()) => {
                let _ = self.commit();
            }
            Err(e) => {
                tracing::warn!("could not drop temporary schema {schema}: {}", e.message);
                self.abort();
            }
        }
        self.temp.schema = None;
    }
}

/// `path` with `pg_temp` replaced by `temp`, or `temp` first where it is not named.
fn with_temp(path: &str, temp: &str) -> String {
    let mut named = false;
    let parts: Vec<&str> = path
        .split(',')
        .map(|p| match p.trim() {
            "pg_temp" | "\"pg_temp\"" => {
                named = true;
                temp
            }
            p => p,
        })
        .collect();
    if named {
        parts.join(",")
    } else {
        format!("{temp},{path}")
    }
}

#[cfg(test)]
mod tests {
    use super::with_temp;

    #[test]
    fn temp_schema_in_path() {
        assert_eq!(with_temp("public", "pg_temp_7"), "pg_temp_7,public");
        assert_eq!(
            with_temp("\"$user\", public", "pg_temp_7"),
            "pg_temp_7,\"$user\", public"
        );
        assert_eq!(
            with_temp("public, pg_temp", "pg_temp_7"),
            "public,pg_temp_7"
        );
    }
}
