//! LISTEN/NOTIFY stress test over real connections (tokio-postgres against an in-process
//! server): many sessions notify many channels in transactions while listeners listen on
//! overlapping channel subsets. Checked, for every listener:
//! * nothing lost: it receives every notification on its channels (all were committed after
//!   its LISTEN committed);
//! * nothing duplicated;
//! * commit order: each sender's transactions arrive in the order they committed, a
//!   transaction's notifications arrive together in issue order, and any two listeners see
//!   the notifications they share in the same relative order (one global commit order
//!   restricted to each listener's channels).

use std::collections::{HashMap, HashSet};
use std::time::Duration;

use futures_util::StreamExt;
use threadgres::config::Config;
use threadgres::runtime::server::Server;

const SENDERS: usize = 8;
const LISTENERS: usize = 6;
const CHANNELS: usize = 12;
const TXNS_PER_SENDER: usize = 60;

async fn listener(
    dsn: String,
    channels: Vec<usize>,
    ready: tokio::sync::mpsc::Sender<()>,
    expected: usize,
) -> Vec<(String, String)> {
    let (client, mut conn) = tokio_postgres::connect(&dsn, tokio_postgres::NoTls)
        .await
        .unwrap();
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    tokio::spawn(async move {
        let mut stream = Box::pin(futures_util::stream::poll_fn(move |cx| {
            conn.poll_message(cx)
        }));
        while let Some(Ok(m)) = stream.next().await {
            if let tokio_postgres::AsyncMessage::Notification(n) = m {
                let _ = tx.send((n.channel().to_string(), n.payload().to_string()));
            }
        }
    });
    let listen: String = channels.iter().map(|c| format!("LISTEN ch{c};")).collect();
    client.batch_execute(&listen).await.unwrap();
    ready.send(()).await.unwrap();
    let mut got = Vec::new();
    while got.len() < expected {
        match tokio::time::timeout(Duration::from_secs(20), rx.recv()).await {
            Ok(Some(n)) => got.push(n),
            _ => break,
        }
    }
    drop(client);
    got
}

#[test]
fn many_senders_many_listeners_commit_order() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let server = Server::bind(Config {
            port: 0,
            ..Config::default()
        })
        .await
        .unwrap();
        let port = server.local_addrs()[0].port();
        tokio::spawn(server.run(std::future::pending()));
        let dsn = format!("host=127.0.0.1 port={port} user=postgres dbname=postgres");

        // Each sender's transactions: notify 1..3 channels (deterministic pseudo-random).
        let mut plan: Vec<Vec<Vec<usize>>> = Vec::new();
        let mut seed = 12345u64;
        let mut rnd = |n: usize| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((seed >> 33) as usize) % n
        };
        for _ in 0..SENDERS {
            let mut txns = Vec::new();
            for _ in 0..TXNS_PER_SENDER {
                let k = 1 + rnd(3);
                let mut chans = Vec::new();
                while chans.len() < k {
                    let c = rnd(CHANNELS);
                    if !chans.contains(&c) {
                        chans.push(c);
                    }
                }
                txns.push(chans);
            }
            plan.push(txns);
        }
        let listener_channels: Vec<Vec<usize>> = (0..LISTENERS)
            .map(|l| (0..CHANNELS).filter(|c| (c + l) % 3 != 0).collect())
            .collect();
        let expected: Vec<usize> = listener_channels
            .iter()
            .map(|chs| {
                plan.iter()
                    .flatten()
                    .map(|t| t.iter().filter(|c| chs.contains(c)).count())
                    .sum()
            })
            .collect();

        let (ready_tx, mut ready_rx) = tokio::sync::mpsc::channel(LISTENERS);
        let mut listeners = Vec::new();
        for (l, chs) in listener_channels.iter().enumerate() {
            listeners.push(tokio::spawn(listener(
                dsn.clone(),
                chs.clone(),
                ready_tx.clone(),
                expected[l],
            )));
        }
        for _ in 0..LISTENERS {
            ready_rx.recv().await.unwrap();
        }

        let mut senders = Vec::new();
        for (s, txns) in plan.iter().enumerate() {
            let dsn = dsn.clone();
            let txns = txns.clone();
            senders.push(tokio::spawn(async move {
                let (client, conn) = tokio_postgres::connect(&dsn, tokio_postgres::NoTls)
                    .await
                    .unwrap();
                tokio::spawn(conn);
                for (t, chans) in txns.iter().enumerate() {
                    let mut sql = String::from("BEGIN;");
                    for (i, c) in chans.iter().enumerate() {
                        sql.push_str(&format!("NOTIFY ch{c}, '{s}:{t}:{i}';"));
                    }
                    sql.push_str("COMMIT;");
                    client.batch_execute(&sql).await.unwrap();
                }
            }));
        }
        for s in senders {
            s.await.unwrap();
        }
        let mut results = Vec::new();
        for l in listeners {
            results.push(l.await.unwrap());
        }

        let parse = |p: &str| -> (usize, usize, usize) {
            let v: Vec<usize> = p.split(':').map(|x| x.parse().unwrap()).collect();
            (v[0], v[1], v[2])
        };
        for (l, got) in results.iter().enumerate() {
            assert_eq!(got.len(), expected[l], "listener {l}: nothing lost");
            let unique: HashSet<&(String, String)> = got.iter().collect();
            assert_eq!(unique.len(), got.len(), "listener {l}: nothing duplicated");
            for (ch, _) in got {
                let c: usize = ch[2..].parse().unwrap();
                assert!(listener_channels[l].contains(&c), "only its own channels");
            }
            // Per sender: transactions in commit order, a transaction's entries in issue order.
            let mut last: HashMap<usize, (usize, usize)> = HashMap::new();
            for (_, p) in got {
                let (s, t, i) = parse(p);
                if let Some(&(lt, li)) = last.get(&s) {
                    assert!((t, i) > (lt, li), "listener {l}: sender {s} out of order");
                }
                last.insert(s, (t, i));
            }
        }
        // Any two listeners agree on the relative order of what they both received.
        let positions: Vec<HashMap<&str, usize>> = results
            .iter()
            .map(|got| {
                got.iter()
                    .enumerate()
                    .map(|(i, (_, p))| (p.as_str(), i))
                    .collect()
            })
            .collect();
        for a in 0..LISTENERS {
            for b in (a + 1)..LISTENERS {
                let mut common: Vec<(usize, usize)> = positions[a]
                    .iter()
                    .filter_map(|(p, &ia)| positions[b].get(p).map(|&ib| (ia, ib)))
                    .collect();
                common.sort();
                assert!(
                    common.windows(2).all(|w| w[0].1 < w[1].1),
                    "listeners {a} and {b} disagree on commit order"
                );
            }
        }
    });
}
