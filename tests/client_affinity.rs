//! Sessions follow their client's CPU to another shard (see `client_affinity`), and keep their
//! transaction, their LISTENs and their notifications on the way.
//!
//! A test binary of its own: it pins threads by their names, `tg-shard-N`, which every
//! in-process server in a binary shares.

#![cfg(target_os = "linux")]

use std::io::Write;
use std::net::TcpStream;
use std::sync::Arc;
use std::time::{Duration, Instant};

mod common;

use common::{message, until_ready};
use threadgres::config::Config;
use threadgres::runtime::server::Server;
use threadgres::runtime::shards::Shards;

/// Pins thread `tid` (0: the calling thread) to `cpu`; false where the kernel refuses.
fn pin(tid: i32, cpu: usize) -> bool {
    // SAFETY: the set is a plain bit mask owned here, and its size is passed with it.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(cpu, &mut set);
        libc::sched_setaffinity(tid, std::mem::size_of::<libc::cpu_set_t>(), &set) == 0
    }
}

/// This process's threads named `name` that are not in `old`, waiting (bounded) for one: a
/// new thread names itself once it runs.
fn new_thread_named(name: &str, old: &[i32]) -> i32 {
    let t0 = Instant::now();
    loop {
        let found: Vec<i32> = threads_named(name)
            .into_iter()
            .filter(|t| !old.contains(t))
            .collect();
        match found[..] {
            [t] => return t,
            [] if t0.elapsed() < Duration::from_secs(5) => {
                std::thread::sleep(Duration::from_millis(5))
            }
            _ => panic!("threads named {name}: {found:?}"),
        }
    }
}

/// This process's threads named `name`.
fn threads_named(name: &str) -> Vec<i32> {
    std::fs::read_dir("/proc/self/task")
        .unwrap()
        .filter_map(|e| {
            let e = e.ok()?;
            let comm = std::fs::read_to_string(e.path().join("comm")).ok()?;
            (comm.trim() == name).then(|| e.file_name().to_str()?.parse().ok())?
        })
        .collect()
}

/// Sends a simple query and returns its messages up to ReadyForQuery.
fn query(s: &mut TcpStream, sql: &str) -> Vec<(u8, Vec<u8>)> {
    let mut body = sql.as_bytes().to_vec();
    body.push(0);
    s.write_all(&message(b'Q', &body)).unwrap();
    until_ready(s)
}

fn login(port: u16) -> TcpStream {
    common::login(port).0
}

struct Running {
    port: u16,
    shards: Arc<Shards>,
    _rt: tokio::runtime::Runtime,
}

fn start(affinity: bool) -> Running {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let server = rt
        .block_on(Server::bind(Config {
            port: 0,
            worker_threads: 2,
            client_affinity: affinity,
            ..Config::default()
        }))
        .unwrap();
    let port = server.local_addrs()[0].port();
    let shards = server.shards();
    rt.spawn(server.run(std::future::pending()));
    Running {
        port,
        shards,
        _rt: rt,
    }
}

/// Round trips on both sessions until the shards' session counts read `want`, or `limit`.
fn exercise(srv: &Running, a: &mut TcpStream, b: &mut TcpStream, want: &[usize], limit: Duration) {
    let t0 = Instant::now();
    while srv.shards.sessions() != want && t0.elapsed() < limit {
        query(a, "select 1");
        query(b, "select 1");
    }
}

#[test]
fn sessions_follow_their_client_to_its_cpu() {
    if std::thread::available_parallelism().map_or(1, |n| n.get()) < 2 {
        eprintln!("skipped: needs two CPUs");
        return;
    }
    let srv = start(true);
    let s0 = new_thread_named("tg-shard-0", &[]);
    let s1 = new_thread_named("tg-shard-1", &[]);
    // Shard 0 on CPU 0, shard 1 and the client on CPU 1.
    if !(pin(s0, 0) && pin(s1, 1) && pin(0, 1)) {
        eprintln!("skipped: the kernel refused to pin threads");
        return;
    }
    let mut a = login(srv.port);
    let mut b = login(srv.port);
    assert_eq!(srv.shards.sessions(), [1, 1], "placed one per shard");
    // Both listen and both are in a transaction, so the one that moves has both.
    for s in [&mut a, &mut b] {
        query(s, "listen moved");
        let r = query(s, "begin; select 1");
        assert_eq!(r.last().unwrap().1, b"T");
    }

    exercise(&srv, &mut a, &mut b, &[0, 2], Duration::from_secs(5));
    assert_eq!(
        srv.shards.sessions(),
        [0, 2],
        "the session on CPU 0's shard followed its client to CPU 1's"
    );

    // The open transactions came along, and so did the LISTENs: each session hears b's
    // NOTIFY when its own transaction ends.
    let r = query(&mut b, "notify moved, 'along'; commit");
    assert_eq!(r.last().unwrap().1, b"I");
    for (name, s) in [("b", &mut b), ("a", &mut a)] {
        let mut r = if name == "a" {
            query(s, "commit")
        } else {
            r.clone()
        };
        if !r.iter().any(|m| m.0 == b'A') {
            r = query(s, "select 1");
        }
        let note = r.iter().find(|m| m.0 == b'A');
        let note = note.unwrap_or_else(|| panic!("{name} heard nothing: {r:?}"));
        assert!(note.1.ends_with(b"moved\0along\0"), "{:?}", note.1);
    }

    // Closing a moved session counts it off the shard it moved to.
    a.write_all(&message(b'X', b"")).unwrap();
    let t0 = Instant::now();
    while srv.shards.sessions() != [0, 1] && t0.elapsed() < Duration::from_secs(5) {
        std::thread::sleep(Duration::from_millis(10));
    }
    assert_eq!(srv.shards.sessions(), [0, 1]);
    drop(srv);

    // Off: sessions stay where they were placed.
    let srv = start(false);
    // The first server's shard threads may not have exited yet.
    let s0 = new_thread_named("tg-shard-0", &[s0]);
    let s1 = new_thread_named("tg-shard-1", &[s1]);
    assert!(pin(s0, 0) && pin(s1, 1));
    let mut a = login(srv.port);
    let mut b = login(srv.port);
    exercise(&srv, &mut a, &mut b, &[0, 2], Duration::from_millis(300));
    assert_eq!(srv.shards.sessions(), [1, 1]);
}
