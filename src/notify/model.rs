//! Model-checked tests of the hub's concurrent core, run with
//! `cargo test --features shuttle --lib notify::model`.
//!
//! Shuttle runs each test body many times under randomized (and PCT) schedules of the real
//! `Hub` code, built on the `sync` facade's shuttle primitives. The listener only reads its inbox
//! after a wake-up, so a lost wake-up shows up as a test that cannot finish (bounded by
//! `MaxSteps::FailAfter`), reordering as a failed order assertion, and a use after reclaim as a
//! wrong byte count or a dangling entry.

use super::*;
use shuttle::thread;

struct FlagWake(AtomicBool);

impl Wake for FlagWake {
    fn wake(&self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

fn run(f: impl Fn() + Send + Sync + 'static) {
    crate::sync::model_run(20_000, 300, f)
}

/// Receives `expected` entries, sleeping (yielding) until woken each time.
fn receive(hub: &Hub, l: &Listener, w: &FlagWake, expected: usize) -> Vec<(u64, String)> {
    let mut got = Vec::new();
    while got.len() < expected {
        if w.0.swap(false, Ordering::SeqCst) {
            let mut batch = Vec::new();
            hub.drain(l, &mut batch);
            got.extend(
                batch
                    .iter()
                    .flat_map(|d| d.notes().map(move |n| (d.seq, n.payload.to_string()))),
            );
        } else {
            thread::yield_now();
        }
    }
    got
}

#[test]
fn commit_order_across_channels_without_lost_wakeups() {
    run(|| {
        let hub = Arc::new(Hub::new(4, 1 << 20));
        let w = Arc::new(FlagWake(AtomicBool::new(false)));
        let l = Listener::new(1, w.clone());
        hub.listen(0, "a", &l);
        hub.listen(0, "b", &l);
        let h1 = {
            let hub = hub.clone();
            thread::spawn(move || hub.publish(hub.outbox(0, &[("a", "a1"), ("a", "a2")]), 10))
        };
        let h2 = {
            let hub = hub.clone();
            thread::spawn(move || hub.publish(hub.outbox(0, &[("b", "b1")]), 11))
        };
        let got = receive(&hub, &l, &w, 3);
        h1.join().unwrap();
        h2.join().unwrap();
        // Delivered in sequence (commit) order, each transaction's entries in issue order.
        assert!(got.windows(2).all(|p| p[0].0 <= p[1].0), "{got:?}");
        let a1 = got.iter().position(|g| g.1 == "a1").unwrap();
        let a2 = got.iter().position(|g| g.1 == "a2").unwrap();
        assert!(a1 < a2);
        // Every byte accounted for is released once entries are gone.
        drop(got);
        assert_eq!(hub.stats().queue_bytes, 0);
    });
}

#[test]
fn two_listeners_agree_on_order() {
    run(|| {
        let hub = Arc::new(Hub::new(4, 1 << 20));
        let w1 = Arc::new(FlagWake(AtomicBool::new(false)));
        let w2 = Arc::new(FlagWake(AtomicBool::new(false)));
        let l1 = Listener::new(1, w1.clone());
        let l2 = Listener::new(2, w2.clone());
        for l in [&l1, &l2] {
            hub.listen(0, "x", l);
            hub.listen(0, "y", l);
        }
        let hs: Vec<_> = [("x", "p1"), ("y", "p2"), ("x", "p3")]
            .into_iter()
            .map(|(c, p)| {
                let hub = hub.clone();
                thread::spawn(move || hub.publish(hub.outbox(0, &[(c, p)]), 9))
            })
            .collect();
        let r1 = {
            let (hub, l1, w1) = (hub.clone(), l1.clone(), w1.clone());
            thread::spawn(move || receive(&hub, &l1, &w1, 3))
        };
        let got2 = receive(&hub, &l2, &w2, 3);
        let got1 = r1.join().unwrap();
        for h in hs {
            h.join().unwrap();
        }
        let names = |g: &Vec<(u64, String)>| g.iter().map(|x| x.1.clone()).collect::<Vec<_>>();
        assert_eq!(
            names(&got1),
            names(&got2),
            "same commit order for every listener"
        );
    });
}

#[test]
fn listen_during_publish_sees_a_suffix() {
    run(|| {
        let hub = Arc::new(Hub::new(4, 1 << 20));
        let w = Arc::new(FlagWake(AtomicBool::new(false)));
        let l = Listener::new(1, w.clone());
        let publisher = {
            let hub = hub.clone();
            thread::spawn(move || {
                hub.publish(hub.outbox(0, &[("c", "1")]), 9);
                hub.publish(hub.outbox(0, &[("c", "2")]), 9);
            })
        };
        let from = hub.listen(0, "c", &l);
        publisher.join().unwrap();
        let mut batch = Vec::new();
        hub.drain(&l, &mut batch);
        let kept: Vec<String> = batch
            .iter()
            .filter(|d| d.seq >= from)
            .flat_map(|d| d.notes())
            .map(|n| n.payload.to_string())
            .collect();
        // Whatever the interleaving, the listener sees a suffix of the commit order, and
        // everything committed after its LISTEN.
        let all = ["1", "2"];
        let start = all.len() - kept.len();
        assert_eq!(kept, all[start..].to_vec());
        if from == 0 {
            assert_eq!(kept.len(), 2);
        }
    });
}

#[test]
fn listen_between_queue_and_commit_is_not_missed() {
    run(|| {
        let hub = Arc::new(Hub::new(4, 1 << 20));
        let w = Arc::new(FlagWake(AtomicBool::new(false)));
        let l = Listener::new(1, w.clone());
        // Resolved while nobody listens: the commit must notice the LISTEN that follows.
        let out = hub.outbox(0, &[("c", "1")]);
        let publisher = {
            let hub = hub.clone();
            thread::spawn(move || hub.publish(out, 9))
        };
        let from = hub.listen(0, "c", &l);
        publisher.join().unwrap();
        let mut batch = Vec::new();
        hub.drain(&l, &mut batch);
        let kept = batch
            .iter()
            .filter(|d| d.seq >= from)
            .flat_map(|d| d.notes())
            .count();
        // The commit took sequence number 0: a LISTEN that read `from == 0` came first.
        assert_eq!(kept, usize::from(from == 0));
        drop(batch);
        drop(l);
        assert_eq!(hub.stats().queue_bytes, 0);
    });
}

#[test]
fn unlisten_between_queue_and_commit_releases_everything() {
    run(|| {
        let hub = Arc::new(Hub::new(4, 1 << 20));
        let w = Arc::new(FlagWake(AtomicBool::new(false)));
        let l = Listener::new(1, w.clone());
        hub.listen(0, "c", &l);
        let out = hub.outbox(0, &[("c", "1"), ("c", "2")]);
        let publisher = {
            let hub = hub.clone();
            thread::spawn(move || hub.publish(out, 9))
        };
        hub.unlisten(0, "c", &l);
        publisher.join().unwrap();
        // Whether or not the entry reached the inbox, the listener going away releases it.
        drop(l);
        assert_eq!(hub.stats().queue_bytes, 0);
    });
}
