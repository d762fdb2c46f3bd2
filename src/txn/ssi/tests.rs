//! The conflict graph's rules on hand-made histories (no storage: targets stand for rows).

use super::*;

struct World {
    ssi: Arc<Ssi>,
    watermark: Arc<AtomicU64>,
}

impl World {
    fn new() -> World {
        let watermark = Arc::new(AtomicU64::new(10));
        World {
            ssi: Arc::new(Ssi::new(watermark.clone())),
            watermark,
        }
    }
    fn begin(&self) -> Arc<Xact> {
        let w = self.watermark.load(Ordering::SeqCst);
        self.ssi.begin(false, || w)
    }
    fn begin_read_only(&self) -> Arc<Xact> {
        let w = self.watermark.load(Ordering::SeqCst);
        self.ssi.begin(true, || w)
    }
    /// Commits `x`: pre-commit check, a CSN, then the end (as a session does).
    fn commit(&self, x: &Arc<Xact>, wrote: bool) -> PgResult<()> {
        if let Err(e) = self.ssi.precommit(x) {
            self.ssi.aborted(x);
            return Err(e);
        }
        let csn = self.watermark.fetch_add(1, Ordering::SeqCst);
        self.ssi.committed(x, wrote.then_some(csn));
        Ok(())
    }
    fn read(&self, x: &Arc<Xact>, row: u64) -> PgResult<()> {
        self.ssi.read_tuple(x, 1, row)
    }
    fn write(&self, x: &Arc<Xact>, row: u64) -> PgResult<()> {
        let t = Target::Tuple(1, row);
        self.ssi.write(
            x,
            &[t, Target::Page(1, row / PAGE_SLOTS), Target::Relation(1)],
            &[t],
        )
    }
}

fn reason(e: &crate::error::PgError) -> String {
    assert_eq!(e.code, "40001");
    e.detail.clone().unwrap_or_default()
}

#[test]
fn write_skew_fails_the_second_committer() {
    let w = World::new();
    let (a, b) = (w.begin(), w.begin());
    for x in [&a, &b] {
        w.read(x, 1).unwrap();
        w.read(x, 2).unwrap();
    }
    w.write(&a, 1).unwrap();
    w.write(&b, 2).unwrap();
    w.commit(&a, true).unwrap();
    let e = w.commit(&b, true).unwrap_err();
    assert_eq!(
        reason(&e),
        "Reason code: Canceled on identification as a pivot, during commit attempt."
    );
    assert_eq!(
        w.ssi.counts(),
        (0, 0),
        "nothing overlaps the committed one any more"
    );
}

#[test]
fn disjoint_reads_and_writes_commit() {
    let w = World::new();
    let (a, b) = (w.begin(), w.begin());
    w.read(&a, 1).unwrap();
    w.read(&b, 2).unwrap();
    w.write(&a, 1).unwrap();
    w.write(&b, 2).unwrap();
    w.commit(&a, true).unwrap();
    w.commit(&b, true).unwrap();
}

#[test]
fn one_rw_edge_alone_is_serializable() {
    // b reads what a writes, in either order of events: b -> a only; both commit.
    let w = World::new();
    let (a, b) = (w.begin(), w.begin());
    w.read(&b, 1).unwrap();
    w.write(&a, 1).unwrap();
    w.write(&a, 5).unwrap();
    w.read(&b, 5).unwrap();
    w.commit(&a, true).unwrap();
    w.commit(&b, false).unwrap();
}

#[test]
fn a_write_after_the_pivot_committed_fails_during_write() {
    // T1 -> T2 -> T3 with T3 committed first, then the last edge made by T2's write.
    let w = World::new();
    let (t1, t2, t3) = (w.begin(), w.begin(), w.begin());
    w.read(&t2, 3).unwrap();
    w.write(&t3, 3).unwrap();
    w.commit(&t3, true).unwrap();
    w.read(&t1, 2).unwrap();
    let e = w.write(&t2, 2);
    // t1 -> t2 -> t3, t3 committed first and t2 is the writer here: t2 fails at once.
    assert_eq!(
        reason(&e.unwrap_err()),
        "Reason code: Canceled on identification as a pivot, during write."
    );
}

#[test]
fn write_skew_after_the_first_commit_fails_the_second_writer() {
    let w = World::new();
    let (t1, t2) = (w.begin(), w.begin());
    w.read(&t2, 1).unwrap();
    w.read(&t1, 2).unwrap();
    w.write(&t1, 1).unwrap(); // t2 -> t1
    w.commit(&t1, true).unwrap();
    let e = w.write(&t2, 2).unwrap_err(); // t1 -> t2 -> t1, t1 committed first
    assert_eq!(
        reason(&e),
        "Reason code: Canceled on identification as a pivot, during write."
    );
}

#[test]
fn read_only_reader_that_overlaps_the_first_committer_is_not_a_pivot_end() {
    // T0 (read-only) -> T1 -> T2, T2 commits first but T0's snapshot was taken before: T0
    // can appear to run first (PostgreSQL's read-only optimisation); nobody fails.
    let w = World::new();
    let (t0, t1, t2) = (w.begin_read_only(), w.begin(), w.begin());
    w.read(&t1, 3).unwrap();
    w.write(&t2, 3).unwrap(); // t1 -> t2
    w.commit(&t2, true).unwrap();
    w.read(&t0, 4).unwrap();
    w.write(&t1, 4).unwrap(); // t0 -> t1
    w.commit(&t1, true).unwrap();
    w.commit(&t0, false).unwrap();
}

#[test]
fn aborted_transactions_leave_nothing() {
    let w = World::new();
    let (a, b) = (w.begin(), w.begin());
    w.read(&a, 1).unwrap();
    w.write(&b, 1).unwrap();
    w.ssi.aborted(&a);
    w.commit(&b, true).unwrap();
    assert_eq!(w.ssi.counts(), (0, 0));
    assert!(w.ssi.readers.is_empty() && w.ssi.writers.is_empty());
}

#[test]
fn tuple_locks_promote_to_a_page_then_the_relation() {
    let w = World::new();
    let a = w.begin();
    for row in 0..3 {
        w.read(&a, row).unwrap();
    }
    assert!(a.local.lock().held.contains(&Target::Page(1, 0)));
    for page in 1..40 {
        w.read(&a, page * PAGE_SLOTS).unwrap();
    }
    assert!(a.local.lock().held.contains(&Target::Relation(1)));
    let n = a.local.lock().held.len();
    w.read(&a, 99 * PAGE_SLOTS).unwrap();
    assert_eq!(a.local.lock().held.len(), n, "covered by the relation lock");
}

#[test]
fn committed_transactions_stay_while_an_overlapping_one_runs() {
    let w = World::new();
    let old = w.begin();
    let a = w.begin();
    w.read(&a, 1).unwrap();
    w.commit(&a, false).unwrap();
    assert_eq!(w.ssi.counts(), (1, 1));
    w.ssi.aborted(&old);
    assert_eq!(w.ssi.counts(), (0, 0));
}

/// read-only-anomaly-3's history: the deferrable observer's snapshot, taken after s1
/// committed and while s2 ran, is unsafe once s2 commits with its conflict out to s1; a
/// snapshot taken after s2 is safe at once.
#[test]
fn deferrable_snapshot_is_unsafe_after_a_pivot_commits() {
    let w = World::new();
    let (s1, s2) = (w.begin(), w.begin());
    w.read(&s2, 1).unwrap(); // X
    w.read(&s2, 2).unwrap(); // Y
    w.read(&s1, 2).unwrap();
    w.write(&s1, 2).unwrap(); // s2 -> s1
    w.commit(&s1, true).unwrap();
    let ro = w.begin_read_only();
    let writers = w.ssi.concurrent_writers(&ro);
    assert_eq!(
        writers.len(),
        1,
        "s2 runs beside the snapshot; s1 committed before it"
    );
    assert_eq!(
        Ssi::snapshot_safety(&ro, &writers),
        None,
        "s2 may still commit"
    );
    w.write(&s2, 1).unwrap();
    w.commit(&s2, true).unwrap();
    assert_eq!(Ssi::snapshot_safety(&ro, &writers), Some(false));
    w.ssi.aborted(&ro);
    let again = w.begin_read_only();
    let writers = w.ssi.concurrent_writers(&again);
    assert!(writers.is_empty());
    assert_eq!(Ssi::snapshot_safety(&again, &writers), Some(true));
}

/// A writer without a conflict out, or one that rolls back, leaves the snapshot safe.
#[test]
fn deferrable_snapshot_is_safe_when_writers_end_without_conflicts() {
    let w = World::new();
    let (a, b, reader) = (w.begin(), w.begin(), w.begin_read_only());
    w.read(&a, 1).unwrap();
    w.read(&b, 2).unwrap();
    let ro = w.begin_read_only();
    let writers = w.ssi.concurrent_writers(&ro);
    assert_eq!(writers.len(), 2, "the read-only one is not waited for");
    w.write(&a, 1).unwrap();
    w.commit(&a, true).unwrap();
    assert_eq!(Ssi::snapshot_safety(&ro, &writers), None);
    w.ssi.aborted(&b);
    assert_eq!(Ssi::snapshot_safety(&ro, &writers), Some(true));
    w.commit(&reader, false).unwrap();
}
