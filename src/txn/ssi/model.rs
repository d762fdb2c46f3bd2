//! Model checks of the graph's concurrency (invariant 2 of `mod.rs`), run with
//! `cargo test --features shuttle --lib txn::ssi`: shuttle runs the real `Ssi` code through the
//! `sync` facade under random and PCT schedules.

use super::*;
use shuttle::thread;

/// Write skew: each of two transactions writes what the other read (the edge into itself is
/// added by its own write), then commits. Whatever the interleaving, they never both commit:
/// a prepare without the lock and an edge added under it always meet (invariant 2).
#[test]
fn write_skew_never_commits_twice() {
    crate::sync::model_run(20_000, 300, || {
        let watermark = Arc::new(AtomicU64::new(10));
        let ssi = Arc::new(Ssi::new(watermark.clone()));
        let a = ssi.begin(false, || 10);
        let b = ssi.begin(false, || 10);
        let run = |me: Arc<Xact>, other: Arc<Xact>| {
            let ssi = ssi.clone();
            let watermark = watermark.clone();
            thread::spawn(move || {
                ssi.flag(&other, &me, true)?;
                ssi.precommit(&me)?;
                let csn = watermark.fetch_add(1, Ordering::SeqCst);
                ssi.committed(&me, Some(csn));
                Ok::<(), crate::error::PgError>(())
            })
        };
        let ta = run(a.clone(), b.clone());
        let tb = run(b.clone(), a.clone());
        let (ra, rb) = (ta.join().unwrap(), tb.join().unwrap());
        assert!(
            ra.is_err() || rb.is_err(),
            "both sides of a write skew committed"
        );
    });
}
