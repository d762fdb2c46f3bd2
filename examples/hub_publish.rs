//! Times `Hub::publish` of one transaction notifying N channels with one listener on all of
//! them (the wide-NOTIFY commit path without the network): `cargo run --release --example
//! hub_publish -- 10000`.
use std::sync::Arc;
use std::time::Instant;
use threadgres::notify::{Hub, Listener, Pending, Wake};

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
    let pending: Vec<Pending> = (0..n)
        .map(|i| Pending {
            channel: format!("ch_{i}"),
            payload: String::new(),
        })
        .collect();
    for p in &pending {
        hub.listen(5, &p.channel, &l);
    }
    for round in 0..5 {
        let t = Instant::now();
        hub.check_capacity(&pending).unwrap();
        hub.publish(5, 1, pending.clone());
        let publish = t.elapsed();
        let t = Instant::now();
        let mut out = Vec::new();
        hub.drain(&l, &mut out);
        let got = out.len();
        drop(out);
        println!(
            "round {round}: publish {publish:?}, drain+drop {:?} ({got} entries)",
            t.elapsed()
        );
    }
}
