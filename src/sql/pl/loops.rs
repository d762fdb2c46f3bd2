//! FOR loops over queries and transaction control in procedures (COMMIT / ROLLBACK [AND
//! CHAIN], see "Transaction control" in `mod.rs`). A loop's reader is kept by the session
//! (`Spi::pl_loops`) rather than on the interpreter's stack, so that a transaction end in the
//! loop's body, or in a procedure the body calls, can read every running loop to its end
//! first, with the loop's own snapshot.

use std::sync::Arc;

use super::compile::{Site, Stmt, Target};
use super::run::{query_error, Flow, Frame};
use super::Spi;
use crate::error::{code, PgError, PgResult};
use crate::sql::exec::{self, EvalCx};
use crate::sql::plan::Plan;
use crate::sql::types::Value;

/// A FOR loop over a query: reading as it goes, or, after a transaction ended under it, its
/// remaining rows (within [`exec::WORK_MEM`]).
pub enum ForLoop {
    Reading {
        ex: Box<exec::Executor<Arc<Plan>>>,
        params: Vec<Value>,
        snap: crate::txn::Snapshot,
    },
    Read(std::collections::VecDeque<Vec<Value>>),
}

impl ForLoop {
    fn next(&mut self, spi: &mut dyn Spi) -> PgResult<Option<Vec<Value>>> {
        match self {
            ForLoop::Read(rows) => Ok(rows.pop_front()),
            ForLoop::Reading { ex, params, snap } => {
                let prev = spi.swap_snapshot(Some(*snap));
                let row = ex.next_row(&mut EvalCx {
                    params,
                    outer: Vec::new(),
                    session: spi.as_ctx(),
                });
                spi.swap_snapshot(prev);
                row
            }
        }
    }

    /// Reads the rest of the rows now, while the loop's snapshot is still the transaction's.
    fn read_rest(&mut self, spi: &mut dyn Spi) -> PgResult<()> {
        if matches!(self, ForLoop::Read(_)) {
            return Ok(());
        }
        let mut rows = std::collections::VecDeque::new();
        let mut held = exec::Held::default();
        while let Some(row) = self.next(spi)? {
            held.add(
                exec::row_bytes(&row),
                exec::WORK_MEM,
                "A PL/pgSQL FOR loop's rows",
            )?;
            rows.push_back(row);
        }
        *self = ForLoop::Read(rows);
        Ok(())
    }
}

impl Frame<'_> {
    pub(super) fn for_query(
        &mut self,
        label: &Option<String>,
        target: &Target,
        query: &Site,
        dynamic: Option<&[Site]>,
        body: &[Stmt],
    ) -> PgResult<Flow> {
        let (plan, params, text) = self.prepare_query(query, dynamic)?;
        if !crate::sql::plan::returns_rows(&plan) {
            return Err(PgError::new(
                code::SYNTAX_ERROR,
                "cannot open a query that returns no rows as a FOR loop",
            ));
        }
        self.spi.next_command();
        let snap = self.spi.snapshot()?;
        // The loop's reader is kept by the session while the body runs, so that a COMMIT
        // in the body (or in a procedure it calls) can read the rest first.
        let depth = self.spi.pl_loops().len();
        self.spi.pl_loops().push(ForLoop::Reading {
            ex: Box::new(exec::open(plan.clone())),
            params,
            snap,
        });
        let flow = self.for_query_rows(label, target, &plan, &text, body);
        self.spi.pl_loops().truncate(depth);
        flow
    }

    fn for_query_rows(
        &mut self,
        label: &Option<String>,
        target: &Target,
        plan: &Plan,
        text: &str,
        body: &[Stmt],
    ) -> PgResult<Flow> {
        let mut found = false;
        let mut count = 0u64;
        let flow = loop {
            let row = (self.loop_row()).map_err(|e| query_error(e, "SQL statement", text, 0))?;
            let Some(row) = row else {
                break Flow::Next;
            };
            self.spi.check_interrupts()?;
            found = true;
            count += 1;
            self.assign_row(target, plan, row)?;
            let flow = self.stmts(body)?;
            if let Some(f) = self.after_iteration(label, flow) {
                break f;
            }
        };
        self.row_count = count;
        self.set_found(found);
        Ok(flow)
    }

    /// The next row of the innermost FOR loop over a query.
    fn loop_row(&mut self) -> PgResult<Option<Vec<Value>>> {
        let mut l = self.spi.pl_loops().pop().expect("a FOR loop is running");
        let row = l.next(self.spi);
        self.spi.pl_loops().push(l);
        row
    }

    /// COMMIT or ROLLBACK [AND CHAIN] in a procedure: allowed only in a non-atomic call and
    /// outside exception blocks, as in PostgreSQL. The running FOR loops over queries read
    /// their remaining rows first, with their own snapshots (which belong to the ending
    /// transaction), as PostgreSQL makes them holdable; other cursors close.
    pub(super) fn end_transaction(&mut self, commit: bool, chain: bool) -> PgResult<()> {
        if !self.nonatomic {
            return Err(PgError::new(
                code::INVALID_TRANSACTION_TERMINATION,
                "invalid transaction termination",
            ));
        }
        if self.spi.in_subtransaction() {
            let what = if commit { "commit" } else { "roll back" };
            return Err(PgError::new(
                code::INVALID_TRANSACTION_TERMINATION,
                format!("cannot {what} while a subtransaction is active"),
            ));
        }
        let mut loops = std::mem::take(self.spi.pl_loops());
        let read = loops.iter_mut().try_for_each(|l| l.read_rest(self.spi));
        *self.spi.pl_loops() = loops;
        read?;
        self.end_transaction_cursors();
        self.spi.end_transaction(commit, chain)
    }
}
