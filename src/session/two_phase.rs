//! Two-phase commit as PostgreSQL runs it with `max_prepared_transactions = 0` (its default,
//! and threadgres's only setting): PREPARE TRANSACTION ends the transaction and fails, COMMIT /
//! ROLLBACK PREPARED find nothing.

use std::borrow::Cow;

use super::txn::TxState;
use super::Core;
use crate::error::{code, PgError, PgResult};

impl Core {
    /// PREPARE TRANSACTION: PostgreSQL ends the transaction block first (xact.c's
    /// PrepareTransactionBlock), so a failed block is simply rolled back (tag ROLLBACK), no
    /// block at all gives the WARNING of a COMMIT without one, and a live block is rolled back
    /// by the 55000 error raised while preparing: in every case the session is idle after it.
    pub(super) fn prepare_transaction(&mut self) -> PgResult<Option<Cow<'static, str>>> {
        match self.tx {
            TxState::Block => {
                self.abort();
                Err(PgError::new(
                    code::OBJECT_NOT_IN_PREREQUISITE_STATE,
                    "prepared transactions are disabled",
                )
                .with_hint("Set max_prepared_transactions to a nonzero value."))
            }
            TxState::Failed => {
                self.abort();
                Ok(Some(Cow::Borrowed("ROLLBACK")))
            }
            TxState::Idle | TxState::Implicit => {
                self.notices.push(PgError::warning(
                    code::NO_ACTIVE_SQL_TRANSACTION,
                    "there is no transaction in progress",
                ));
                Ok(Some(Cow::Borrowed("ROLLBACK")))
            }
        }
    }

    /// COMMIT PREPARED / ROLLBACK PREPARED: refused in a transaction block, and otherwise there
    /// is no such prepared transaction.
    pub(super) fn finish_prepared(&self, commit: bool, gid: &str) -> PgError {
        if matches!(self.tx, TxState::Block | TxState::Failed) {
            let what = if commit {
                "COMMIT PREPARED"
            } else {
                "ROLLBACK PREPARED"
            };
            return PgError::new(
                code::ACTIVE_SQL_TRANSACTION,
                format!("{what} cannot run inside a transaction block"),
            );
        }
        PgError::new(
            code::UNDEFINED_OBJECT,
            format!("prepared transaction with identifier \"{gid}\" does not exist"),
        )
    }
}
