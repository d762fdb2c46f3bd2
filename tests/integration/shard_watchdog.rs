//! A shard whose runtime stops while the server runs: the watchdog notices, the server stops
//! as on SIGTERM (its sessions on the other shards end, the port closes) and `run` says which
//! shard was lost, instead of leaving a port open that places connections on a dead shard.

use std::time::{Duration, Instant};

use crate::common;

use common::{login, read_msg};
use threadgres::config::Config;
use threadgres::runtime::server::{Server, Stopped};

#[test]
fn a_lost_shard_stops_the_server() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let mut server = rt
        .block_on(Server::bind(Config {
            port: 0,
            worker_threads: 2,
            ..Config::default()
        }))
        .unwrap();
    let port = server.local_addrs()[0].port();
    let shards = server.shards();
    let shard1 = server.detach_shard(1).expect("shard 1 runs");
    let run = rt.spawn(server.run(std::future::pending()));
    // Placement fills the emptier shard first, so the two sessions sit on different shards.
    let (mut a, _) = login(port);
    let (mut b, _) = login(port);
    assert_eq!(shards.sessions(), vec![1, 1], "one session per shard");

    drop(shard1);
    let stopped = rt
        .block_on(async { tokio::time::timeout(Duration::from_secs(30), run).await })
        .expect("the server stops by itself")
        .unwrap();
    assert_eq!(stopped, Stopped::ShardLost(1));

    // Both sessions have ended: the lost shard's with its runtime, the other with FATAL 57P01
    // (PostgreSQL's administrator shutdown) before its socket closed.
    let mut fatal = 0;
    for s in [&mut a, &mut b] {
        while let Some((ty, body)) = read_msg(s) {
            if ty == b'E' && String::from_utf8_lossy(&body).contains("57P01") {
                fatal += 1;
            }
        }
    }
    assert_eq!(fatal, 1, "the surviving shard's session was told why");
    // The accept loops are cancelled tasks; their listeners close when the runtime drops them.
    let deadline = Instant::now() + Duration::from_secs(10);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
        assert!(Instant::now() < deadline, "the port closes");
        std::thread::sleep(Duration::from_millis(50));
    }
}
