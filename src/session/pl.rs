//! The session as PL/pgSQL's SPI (`sql::pl::Spi`): the catalog a body's statements are
//! planned with, their locks and privileges, sub-transactions for exception blocks, and the
//! session's cache of compiled functions.

use super::txn::TxState;
use super::Core;
use crate::error::PgResult;
use crate::sql;
use crate::sql::context::SessionCtx;
use crate::sql::pl::{Needs, PlCache, Spi};

impl Spi for Core {
    fn tables(&self) -> sql::plan::modify::TableCx<'_> {
        self.table_cx()
    }

    fn take_needs(&mut self) -> Needs {
        Needs {
            locks: std::mem::take(&mut *self.plan_locks.borrow_mut()),
            perms: self.plan_perms.take(),
        }
    }

    fn acquire(&mut self, needs: &Needs) -> PgResult<()> {
        if !needs.locks.is_empty() {
            self.lock_relations(&needs.locks)?;
        }
        self.check_perms(&needs.perms)
    }

    fn sub_begin(&mut self) -> PgResult<usize> {
        Ok(Core::sub_begin(self))
    }

    fn sub_end(&mut self, level: usize, commit: bool) -> PgResult<()> {
        Core::sub_end(self, level, commit);
        Ok(())
    }

    fn swap_snapshot(
        &mut self,
        snap: Option<crate::txn::Snapshot>,
    ) -> Option<crate::txn::Snapshot> {
        std::mem::replace(&mut self.portal_snap, snap)
    }

    fn swap_transitions(
        &mut self,
        env: Vec<sql::context::TransitionTable>,
    ) -> Vec<sql::context::TransitionTable> {
        std::mem::replace(&mut self.transitions, env)
    }

    fn pl_cache(&mut self) -> &mut PlCache {
        &mut self.pl_cache
    }

    fn as_ctx(&mut self) -> &mut dyn SessionCtx {
        self
    }

    /// The commit waits for its flush in place (under `block_in_place`, as CHECKPOINT does):
    /// the procedure's next statement must not run before its transaction's predecessor is
    /// durable and visible, and the call is a synchronous frame of the executor. The next
    /// transaction starts at once, with the current time as its start (now()), as
    /// PostgreSQL's does inside a procedure.
    fn end_transaction(&mut self, commit: bool, chain: bool) -> PgResult<()> {
        let chained = self.txn.as_ref().map(|t| sql::TxOptions {
            isolation: Some(t.isolation),
            read_only: Some(t.read_only),
            deferrable: Some(t.deferrable),
        });
        if commit {
            self.commit()?;
        } else {
            self.abort();
        }
        self.ensure_transaction(&sql::Statement::NoOp(""));
        self.tx = TxState::Implicit;
        self.txn_mut().start = super::now_ts();
        if let (true, Some(opts)) = (chain, chained) {
            self.apply_tx_options(&opts)?;
        }
        Ok(())
    }

    fn set_transaction(&mut self, opts: &sql::TxOptions) -> PgResult<()> {
        self.apply_tx_options(opts)
    }

    fn in_subtransaction(&self) -> bool {
        self.txn.as_ref().is_some_and(|t| t.in_savepoint())
    }

    fn pl_loops(&mut self) -> &mut Vec<sql::pl::ForLoop> {
        &mut self.pl_loops
    }
}
