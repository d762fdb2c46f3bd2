//! Times `Hub::publish` of one transaction notifying N channels with one listener on all of
//! them (the wide-NOTIFY commit path without the network): `cargo run --release --example
//! hub_publish -- 10000`.
use std::sync::Arc;
use std::time::Instant;
use threadgres::notify::{Hub, Listener, Wake};

struct NoWake;
impl Wake for NoWake {
    fn wake(&self) {}
}

fn main() {
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(10_000);
    let hub = Hub::new(100, 8 << 30);
    let l = Listener::new(1, Arc::new(NoWake));
    let channels: Vec<String> = (0..n).map(|i| format!("ch_{i}")).collect();
    for c in &channels {
        hub.listen(5, c, &l);
    }
    for round in 0..5 {
        let t = Instant::now();
        let notes: Vec<(&str, &str)> = channels.iter().map(|c| (c.as_str(), "")).collect();
        let out = hub.outbox(5, &notes);
        let queue = t.elapsed();
        let t = Instant::now();
        hub.check_capacity(&out).unwrap();
        hub.publish(out, 1);
        let publish = t.elapsed();
        let t = Instant::now();
        let mut out = Vec::new();
        hub.drain(&l, &mut out);
        let got: usize = out.iter().map(|d| d.notes().count()).sum();
        drop(out);
        println!(
            "round {round}: queue {queue:?}, publish {publish:?}, drain+drop {:?} ({got} entries)",
            t.elapsed()
        );
    }
}
