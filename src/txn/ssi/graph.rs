//! The conflict graph's rules: when an rw-edge, a prepare or a commit completes a dangerous
//! structure T0 -> T1 -> T2 (T2 committed first), and whom to fail. The behaviour follows
//! PostgreSQL's `predicate.c` (`OnConflict_CheckForSerializationFailure`,
//! `PreCommit_CheckForSerializationFailure`, `ReleasePredicateLocks`' flags), with its error
//! texts; the sequence numbers are those described in `mod.rs`. Everything here runs under the
//! `graph` lock (invariant 2 of `mod.rs`).

use super::{Arc, Ordering, Ssi, Xact, ABORTED, COMMITTED, CONFLICT_OUT, DOOMED, EDGES, PREPARED};
use crate::error::{code, PgError, PgResult};

pub(super) const DURING_OUT: &str = "during conflict out checking";
pub(super) const DURING_IN: &str = "during conflict in checking";

/// A 40001 with PostgreSQL's message, DETAIL `Reason code: {reason}` and HINT.
pub fn serialization_failure(reason: &str) -> PgError {
    PgError::new(
        code::T_R_SERIALIZATION_FAILURE,
        "could not serialize access due to read/write dependencies among transactions",
    )
    .with_detail(format!("Reason code: {reason}"))
    .with_hint("The transaction might succeed if retried.")
}

/// A transaction someone else decided must die, at one of its checks.
pub(super) fn doomed_error(during: &str) -> PgError {
    serialization_failure(&format!("Canceled on identification as a pivot, {during}."))
}

impl Ssi {
    /// Adds the edge `reader` -> `writer` unless it completes a dangerous structure; then
    /// fails the running transaction (`me_writer`: it is the writer, else the reader) or dooms
    /// the writer.
    pub(super) fn flag(
        &self,
        reader: &Arc<Xact>,
        writer: &Arc<Xact>,
        me_writer: bool,
    ) -> PgResult<()> {
        let _g = self.graph.lock();
        if reader.has_out_to(writer) {
            return Ok(());
        }
        // Invariant 2: seen as having edges before their states are read.
        reader.set(EDGES);
        writer.set(EDGES);
        if reader.aborted() || writer.aborted() {
            return Ok(());
        }
        if dangerous(reader, writer) {
            if me_writer {
                return Err(serialization_failure(
                    "Canceled on identification as a pivot, during write.",
                ));
            }
            if writer.prepared() {
                return Err(serialization_failure(&format!(
                    "Canceled on conflict out to pivot {}, during read.",
                    writer.shown_xid()
                )));
            }
            writer.set(DOOMED);
        }
        reader.edges.lock().outs.push(writer.clone());
        writer.edges.lock().ins.push(reader.clone());
        Ok(())
    }

    /// The pre-commit check of a transaction that has edges (or got one while preparing).
    pub(super) fn precommit_locked(&self, me: &Arc<Xact>) -> PgResult<()> {
        let _g = self.graph.lock();
        if me.doomed() {
            return Err(doomed_error("during commit attempt"));
        }
        let ins = me.edges.lock().ins.clone();
        for near in ins {
            let n = near.flags();
            if n & (COMMITTED | DOOMED | ABORTED) != 0 {
                continue;
            }
            let fars = near.edges.lock().ins.clone();
            let pivot = fars.iter().any(|far| {
                let f = far.flags();
                Arc::ptr_eq(far, me) || f & (COMMITTED | super::READ_ONLY | DOOMED | ABORTED) == 0
            });
            if pivot {
                // The pivot dies, so that a retry of this one can make progress; a prepared
                // pivot can no longer be stopped (invariant 4), so this one dies instead.
                if n & PREPARED != 0 {
                    return Err(serialization_failure(
                        "Canceled on commit attempt with conflict in from prepared pivot.",
                    ));
                }
                near.set(DOOMED);
            }
        }
        if !me.prepared() {
            me.prepare_seq.store(self.watermark(), Ordering::SeqCst);
            me.set(PREPARED);
        }
        Ok(())
    }

    /// Marks a transaction with edges committed at sequence `seq`, first noting whether it has
    /// a conflict out to one that committed before it (PostgreSQL's SXACT_FLAG_CONFLICT_OUT).
    pub(super) fn mark_committed_locked(&self, me: &Arc<Xact>, seq: u64) {
        let _g = self.graph.lock();
        if !me.read_only() {
            let outs = me.edges.lock().outs.clone();
            let earliest = outs
                .iter()
                .filter(|t| t.committed())
                .map(|t| t.prepare_seq())
                .min();
            if let Some(e) = earliest {
                me.earliest_out.store(e, Ordering::SeqCst);
                me.set(CONFLICT_OUT);
            }
        }
        me.commit_seq.store(seq, Ordering::SeqCst);
        me.set(COMMITTED);
    }

    /// Removes an ended transaction's edges from its neighbours and from itself (breaks the
    /// reference cycles).
    pub(super) fn unlink(&self, x: &Arc<Xact>) {
        let _g = self.graph.lock();
        let Edges { ins, outs } = std::mem::take(&mut *x.edges.lock());
        for r in ins {
            r.edges.lock().outs.retain(|o| !Arc::ptr_eq(o, x));
        }
        for w in outs {
            w.edges.lock().ins.retain(|o| !Arc::ptr_eq(o, x));
        }
    }
}

use super::Edges;

/// Whether the edge `reader` -> `writer` completes a structure that may be an anomaly
/// (PostgreSQL's OnConflict_CheckForSerializationFailure).
pub(super) fn dangerous(reader: &Xact, writer: &Xact) -> bool {
    // reader -> writer -> T2, the writer committed after T2 (its conflict-out flag).
    if writer.committed() && writer.has(CONFLICT_OUT) {
        return true;
    }
    // The writer became a pivot with an out-conflict T2 that prepared first. No anomaly if the
    // reader or the writer committed before T2, or the reader is read-only and its snapshot
    // was taken before T2 committed.
    let outs = writer.edges.lock().outs.clone();
    for t2 in &outs {
        if !t2.prepared() || t2.aborted() {
            continue;
        }
        let p = t2.prepare_seq();
        if (!reader.committed() || p <= reader.commit_seq())
            && (!writer.committed() || p <= writer.commit_seq())
            && (!reader.read_only() || p <= reader.snap().saturating_sub(1))
        {
            return true;
        }
    }
    // The reader became a pivot with a prepared writer: T0 -> reader -> writer. No anomaly if
    // T0 committed before the writer prepared, or is read-only and overlaps the writer.
    if writer.prepared() && !reader.read_only() {
        let wp = writer.prepare_seq();
        let ins = reader.edges.lock().ins.clone();
        for t0 in &ins {
            if t0.doomed() || t0.aborted() {
                continue;
            }
            if (!t0.committed() || t0.commit_seq() >= wp)
                && (!t0.read_only() || t0.snap().saturating_sub(1) >= wp)
            {
                return true;
            }
        }
    }
    false
}
