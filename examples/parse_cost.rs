//! Measures what parsing costs per statement, uncached (libpg_query: C parse, protobuf encode,
//! Rust decode) and through the instance's parse cache (a hit):
//! `cargo run --release --example parse_cost`.
use std::time::Instant;
use threadgres::sql::parser::{parse_uncached, ParseCache};

fn main() {
    let texts = [
        "SELECT 1",
        "NOTIFY channel_7",
        "LISTEN channel_common",
        "SELECT pg_notify('thread_2', NULL)",
        "SELECT n.nspname, t.typname FROM pg_catalog.pg_type t JOIN pg_catalog.pg_namespace n \
         ON n.oid = t.typnamespace WHERE t.oid = $1",
    ];
    let cache = ParseCache::new(4096);
    let rounds = 20_000;
    println!("{:<60} {:>12} {:>12}", "statement", "uncached", "cache hit");
    for t in texts {
        parse_uncached(t).expect("parses");
        let start = Instant::now();
        for _ in 0..rounds {
            std::hint::black_box(parse_uncached(std::hint::black_box(t)).expect("parses"));
        }
        let uncached = start.elapsed() / rounds;
        cache.parse(t).expect("parses");
        let start = Instant::now();
        for _ in 0..rounds {
            std::hint::black_box(cache.parse(std::hint::black_box(t)).expect("parses"));
        }
        let hit = start.elapsed() / rounds;
        let shown: String = t.chars().take(58).collect();
        println!("{shown:<60} {uncached:>12.2?} {hit:>12.2?}");
    }
}
