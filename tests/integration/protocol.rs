//! Message-layer tests on raw bytes against a real server on a loopback port, plus the
//! tokio-postgres client. Each test starts its own in-process server on a free port.

use std::io::{Read, Write};
use std::time::Duration;

use crate::common;

use common::{connect, login, message, read_msg, startup_packet, until_ready};
use threadgres::config::Config;
use threadgres::runtime::server::Server;

struct TestServer {
    port: u16,
    _rt: tokio::runtime::Runtime,
}

fn start(config: impl FnOnce(&mut Config)) -> TestServer {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let mut c = Config {
        port: 0,
        ..Config::default()
    };
    config(&mut c);
    let server = rt.block_on(Server::bind(c)).unwrap();
    let port = server.local_addrs()[0].port();
    rt.spawn(server.run(std::future::pending()));
    TestServer { port, _rt: rt }
}

fn field(body: &[u8], code: u8) -> Option<String> {
    let mut i = 0;
    while i < body.len() && body[i] != 0 {
        let c = body[i];
        let end = i + 1 + body[i + 1..].iter().position(|b| *b == 0)?;
        if c == code {
            return Some(String::from_utf8_lossy(&body[i + 1..end]).into_owned());
        }
        i = end + 1;
    }
    None
}

/// Sends a CancelRequest for the session whose BackendKeyData body is `key`.
fn send_cancel(port: u16, key: &[u8]) {
    let mut c = connect(port);
    let mut cancel = 16i32.to_be_bytes().to_vec();
    cancel.extend_from_slice(&80877102i32.to_be_bytes());
    cancel.extend_from_slice(key);
    c.write_all(&cancel).unwrap();
}

#[test]
fn startup_sequence_matches_postgres() {
    let srv = start(|_| {});
    let mut s = connect(srv.port);
    // SSLRequest is refused with a single 'N'.
    let mut ssl = 8i32.to_be_bytes().to_vec();
    ssl.extend_from_slice(&80877103i32.to_be_bytes());
    s.write_all(&ssl).unwrap();
    let mut n = [0u8; 1];
    s.read_exact(&mut n).unwrap();
    assert_eq!(&n, b"N");
    s.write_all(&startup_packet(&[
        ("user", "postgres"),
        ("database", "postgres"),
        ("client_encoding", "'utf-8'"),
        ("application_name", "rawtest"),
    ]))
    .unwrap();
    let msgs = until_ready(&mut s);
    assert_eq!(msgs[0].0, b'R');
    assert_eq!(msgs[0].1, 0i32.to_be_bytes());
    let statuses: Vec<_> = msgs.iter().filter(|m| m.0 == b'S').collect();
    assert_eq!(statuses.len(), 13);
    assert!(msgs.iter().any(|m| m.0 == b'K' && m.1.len() == 8));
    assert_eq!(msgs.last().unwrap(), &(b'Z', b"I".to_vec()));
}

#[test]
fn unknown_startup_parameter_is_fatal() {
    let srv = start(|_| {});
    let mut s = connect(srv.port);
    s.write_all(&startup_packet(&[
        ("user", "postgres"),
        ("nonsense_param", "1"),
    ]))
    .unwrap();
    // As PostgreSQL: authentication completes first (AuthenticationOk), then the FATAL.
    let (ty, body) = read_msg(&mut s).unwrap();
    assert_eq!((ty, body), (b'R', 0i32.to_be_bytes().to_vec()));
    let (ty, body) = read_msg(&mut s).unwrap();
    assert_eq!(ty, b'E');
    assert_eq!(field(&body, b'S').as_deref(), Some("FATAL"));
    assert_eq!(field(&body, b'C').as_deref(), Some("42704"));
    assert_eq!(
        field(&body, b'M').as_deref(),
        Some("unrecognized configuration parameter \"nonsense_param\"")
    );
    assert!(read_msg(&mut s).is_none(), "connection closes");
}

#[test]
fn missing_database_is_fatal_3d000() {
    let srv = start(|_| {});
    let mut s = connect(srv.port);
    s.write_all(&startup_packet(&[
        ("user", "postgres"),
        ("database", "nope"),
    ]))
    .unwrap();
    // As PostgreSQL: authentication completes first (AuthenticationOk), then the FATAL.
    let (ty, body) = read_msg(&mut s).unwrap();
    assert_eq!((ty, body), (b'R', 0i32.to_be_bytes().to_vec()));
    let (ty, body) = read_msg(&mut s).unwrap();
    assert_eq!(ty, b'E');
    assert_eq!(field(&body, b'C').as_deref(), Some("3D000"));
    assert_eq!(
        field(&body, b'M').as_deref(),
        Some("database \"nope\" does not exist")
    );
}

#[test]
fn malformed_messages_close_only_that_session() {
    let srv = start(|_| {});
    // Declared length below the header size.
    let (mut s, _) = login(srv.port);
    s.write_all(b"Q\0\0\0\x02").unwrap();
    let (ty, body) = read_msg(&mut s).unwrap();
    assert_eq!(ty, b'E');
    assert_eq!(field(&body, b'C').as_deref(), Some("08P01"));
    assert_eq!(field(&body, b'S').as_deref(), Some("FATAL"));
    assert!(read_msg(&mut s).is_none());

    // Oversized declared length: rejected before any of it is buffered.
    let (mut s, _) = login(srv.port);
    let mut big = vec![b'Q'];
    big.extend_from_slice(&(i32::MAX).to_be_bytes());
    s.write_all(&big).unwrap();
    let (ty, body) = read_msg(&mut s).unwrap();
    assert_eq!(ty, b'E');
    assert_eq!(field(&body, b'C').as_deref(), Some("08P01"));

    // A Bind whose parameter length points past the message end: the frame is intact, so as
    // in PostgreSQL this is an ERROR and the session goes on after Sync.
    let (mut s, _) = login(srv.port);
    s.write_all(&message(b'P', b"\0select 1\0\0\0")).unwrap();
    let mut bind = Vec::new();
    bind.extend_from_slice(b"\0\0");
    bind.extend_from_slice(&0i16.to_be_bytes());
    bind.extend_from_slice(&1i16.to_be_bytes());
    bind.extend_from_slice(&100i32.to_be_bytes());
    bind.extend_from_slice(b"ab");
    s.write_all(&message(b'B', &bind)).unwrap();
    s.write_all(&message(b'S', b"")).unwrap();
    let msgs = until_ready(&mut s);
    let types: Vec<u8> = msgs.iter().map(|m| m.0).collect();
    assert_eq!(types, b"1EZ");
    assert_eq!(field(&msgs[1].1, b'C').as_deref(), Some("08P01"));
    assert_eq!(field(&msgs[1].1, b'S').as_deref(), Some("ERROR"));

    // An unknown message type.
    let (mut s, _) = login(srv.port);
    s.write_all(&message(b'!', b"")).unwrap();
    let (ty, body) = read_msg(&mut s).unwrap();
    assert_eq!(ty, b'E');
    assert_eq!(field(&body, b'C').as_deref(), Some("08P01"));

    // The server still serves new sessions.
    let (mut s, msgs) = login(srv.port);
    assert_eq!(msgs.last().unwrap().0, b'Z');
    s.write_all(&message(b'Q', b"select 1\0")).unwrap();
    let msgs = until_ready(&mut s);
    let types: Vec<u8> = msgs.iter().map(|m| m.0).collect();
    assert_eq!(types, b"TDCZ");
}

#[test]
fn truncated_message_waits_for_the_rest() {
    let srv = start(|_| {});
    let (mut s, _) = login(srv.port);
    let m = message(b'Q', b"select 42\0");
    s.write_all(&m[..3]).unwrap();
    std::thread::sleep(Duration::from_millis(50));
    s.write_all(&m[3..]).unwrap();
    let msgs = until_ready(&mut s);
    let row = msgs.iter().find(|m| m.0 == b'D').unwrap();
    assert!(row.1.ends_with(b"42"));
}

#[test]
fn empty_queries() {
    let srv = start(|_| {});
    let (mut s, _) = login(srv.port);
    for q in ["", ";", "-- ping"] {
        let mut body = q.as_bytes().to_vec();
        body.push(0);
        s.write_all(&message(b'Q', &body)).unwrap();
        let types: Vec<u8> = until_ready(&mut s).iter().map(|m| m.0).collect();
        assert_eq!(types, b"IZ", "query {q:?}");
    }
}

#[test]
fn too_many_connections() {
    let srv = start(|c| c.max_connections = 2);
    let (_a, _) = login(srv.port);
    let (_b, _) = login(srv.port);
    let mut c = connect(srv.port);
    c.write_all(&startup_packet(&[("user", "postgres")]))
        .unwrap();
    let (ty, body) = read_msg(&mut c).unwrap();
    assert_eq!(ty, b'E');
    assert_eq!(field(&body, b'C').as_deref(), Some("53300"));
    assert_eq!(
        field(&body, b'M').as_deref(),
        Some("sorry, too many clients already")
    );
}

#[test]
fn cancel_request_cancels_running_statement() {
    let srv = start(|_| {});
    let (mut s, msgs) = login(srv.port);
    let key = msgs.iter().find(|m| m.0 == b'K').unwrap().1.clone();
    s.write_all(&message(b'Q', b"select pg_sleep(30)\0"))
        .unwrap();
    std::thread::sleep(Duration::from_millis(200));
    send_cancel(srv.port, &key);
    let msgs = until_ready(&mut s);
    let err = msgs.iter().find(|m| m.0 == b'E').expect("error");
    assert_eq!(field(&err.1, b'C').as_deref(), Some("57014"));
    assert_eq!(
        field(&err.1, b'M').as_deref(),
        Some("canceling statement due to user request")
    );
    // The session is still usable.
    s.write_all(&message(b'Q', b"select 1\0")).unwrap();
    assert_eq!(until_ready(&mut s).last().unwrap().1, b"I");
}

/// On a single shard, a session blocked in pg_sleep leaves the shard to its other sessions
/// (block_in_place hands the shard's scheduler to another thread): they log in and query while
/// it sleeps, and a cancel still reaches it.
#[test]
fn sleeping_session_does_not_stall_its_shard() {
    let srv = start(|c| c.worker_threads = 1);
    let (mut sleeper, msgs) = login(srv.port);
    let key = msgs.iter().find(|m| m.0 == b'K').unwrap().1.clone();
    sleeper
        .write_all(&message(b'Q', b"select pg_sleep(30)\0"))
        .unwrap();
    std::thread::sleep(Duration::from_millis(100));
    for _ in 0..4 {
        let (mut s, msgs) = login(srv.port);
        assert_eq!(msgs.last().map(|m| m.0), Some(b'Z'), "login completes");
        s.write_all(&message(b'Q', b"select 1\0")).unwrap();
        let reply = until_ready(&mut s);
        assert!(
            reply.iter().any(|m| m.0 == b'D'),
            "query answered: {reply:?}"
        );
    }
    send_cancel(srv.port, &key);
    let msgs = until_ready(&mut sleeper);
    let err = msgs.iter().find(|m| m.0 == b'E').expect("error");
    assert_eq!(field(&err.1, b'C').as_deref(), Some("57014"));
}

#[test]
fn statement_timeout() {
    let srv = start(|_| {});
    let (mut s, _) = login(srv.port);
    s.write_all(&message(
        b'Q',
        b"set statement_timeout = 100; select pg_sleep(10)\0",
    ))
    .unwrap();
    let msgs = until_ready(&mut s);
    let err = msgs.iter().find(|m| m.0 == b'E').expect("error");
    assert_eq!(field(&err.1, b'C').as_deref(), Some("57014"));
    assert_eq!(
        field(&err.1, b'M').as_deref(),
        Some("canceling statement due to statement timeout")
    );
}

#[test]
fn extended_protocol_pipeline_and_error_skip() {
    let srv = start(|_| {});
    let (mut s, _) = login(srv.port);
    let mut out = Vec::new();
    // Parse "s1" with an untyped parameter, Describe it, bind/execute with a row limit.
    let mut parse = b"s1\0select generate_series(1, $1)\0".to_vec();
    parse.extend_from_slice(&1i16.to_be_bytes());
    parse.extend_from_slice(&0i32.to_be_bytes());
    out.extend(message(b'P', &parse));
    out.extend(message(b'D', b"Ss1\0"));
    let mut bind = b"\0s1\0".to_vec();
    bind.extend_from_slice(&0i16.to_be_bytes());
    bind.extend_from_slice(&1i16.to_be_bytes());
    bind.extend_from_slice(&1i32.to_be_bytes());
    bind.extend_from_slice(b"5");
    bind.extend_from_slice(&0i16.to_be_bytes());
    out.extend(message(b'B', &bind));
    let mut exec = b"\0".to_vec();
    exec.extend_from_slice(&2i32.to_be_bytes());
    out.extend(message(b'E', &exec));
    out.extend(message(b'E', &exec));
    out.extend(message(b'S', b""));
    s.write_all(&out).unwrap();
    let types: Vec<u8> = until_ready(&mut s).iter().map(|m| m.0).collect();
    // ParseComplete, ParameterDescription, RowDescription, BindComplete, 2 rows, suspended,
    // 2 rows, suspended, ReadyForQuery.
    assert_eq!(types, b"1tT2DDsDDsZ");

    // An error skips everything up to Sync. A constant expression that fails is planned (and
    // fails) at Bind, as in PostgreSQL.
    let mut out = Vec::new();
    out.extend(message(b'P', b"\0select 1/0\0\0\0"));
    out.extend(message(b'B', b"\0\0\0\0\0\0\0\0"));
    out.extend(message(b'E', b"\0\0\0\0\0"));
    out.extend(message(b'P', b"\0select 1\0\0\0"));
    out.extend(message(b'S', b""));
    s.write_all(&out).unwrap();
    let msgs = until_ready(&mut s);
    let types: Vec<u8> = msgs.iter().map(|m| m.0).collect();
    assert_eq!(types, b"1EZ");
    let err = &msgs[1].1;
    assert_eq!(field(err, b'C').as_deref(), Some("22012"));
}

#[test]
fn tokio_postgres_client_and_notifications() {
    let srv = start(|_| {});
    let port = srv.port;
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async move {
        use futures_util::StreamExt;
        let dsn = format!("host=127.0.0.1 port={port} user=postgres dbname=postgres");
        let (client, mut conn) = tokio_postgres::connect(&dsn, tokio_postgres::NoTls)
            .await
            .unwrap();
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        let stream = futures_util::stream::poll_fn(move |cx| conn.poll_message(cx));
        tokio::spawn(async move {
            let mut stream = Box::pin(stream);
            while let Some(Ok(m)) = stream.next().await {
                if let tokio_postgres::AsyncMessage::Notification(n) = m {
                    let _ = tx.send(n);
                }
            }
        });
        let row = client
            .query_one("select $1::int4 + 1, $2::text || 'x'", &[&41i32, &"a"])
            .await
            .unwrap();
        assert_eq!(row.get::<_, i32>(0), 42);
        assert_eq!(row.get::<_, String>(1), "ax");
        let stmt = client.prepare("select $1::int8 * 2").await.unwrap();
        for i in 0..3i64 {
            let r = client.query_one(&stmt, &[&i]).await.unwrap();
            assert_eq!(r.get::<_, i64>(0), i * 2);
        }
        client.batch_execute("LISTEN chan").await.unwrap();
        let (other, oconn) = tokio_postgres::connect(&dsn, tokio_postgres::NoTls)
            .await
            .unwrap();
        tokio::spawn(oconn);
        other.batch_execute("NOTIFY chan, 'hello'").await.unwrap();
        let n = tokio::time::timeout(Duration::from_secs(10), rx.recv())
            .await
            .expect("notification arrives while idle")
            .unwrap();
        assert_eq!(n.channel(), "chan");
        assert_eq!(n.payload(), "hello");
        let other_pid: i32 = other
            .query_one("select pg_backend_pid()", &[])
            .await
            .unwrap()
            .get(0);
        assert_eq!(n.process_id(), other_pid);
    });
}

#[test]
fn notify_queue_full_warns_then_fails_and_drains() {
    // The smallest queue PostgreSQL allows (64 pages of 8 KiB).
    let srv = start(|c| c.max_notify_queue_size = 64 * 8192);
    let (mut listener, msgs) = login(srv.port);
    let key = msgs.iter().find(|m| m.0 == b'K').unwrap().1.clone();
    let listener_pid = i32::from_be_bytes([key[0], key[1], key[2], key[3]]);
    // LISTEN commits first; then the listener sits in a transaction and reads nothing.
    listener.write_all(&message(b'Q', b"LISTEN c\0")).unwrap();
    until_ready(&mut listener);
    listener.write_all(&message(b'Q', b"BEGIN\0")).unwrap();
    assert_eq!(until_ready(&mut listener).last().unwrap().1, b"T");

    let (mut notifier, _) = login(srv.port);
    let payload = "x".repeat(7000);
    let (mut accepted, mut warned, mut failed) = (0, false, false);
    for i in 0..200 {
        let q = format!("NOTIFY c, '{i}{payload}'\0");
        notifier.write_all(&message(b'Q', q.as_bytes())).unwrap();
        let msgs = until_ready(&mut notifier);
        if let Some(n) = msgs.iter().find(|m| m.0 == b'N') {
            assert_eq!(field(&n.1, b'C').as_deref(), Some("01000"));
            assert!(field(&n.1, b'M').unwrap().starts_with("NOTIFY queue is "));
            // The listener stuck in its transaction is named as the one holding the queue.
            assert!(field(&n.1, b'D')
                .unwrap()
                .contains(&format!("PID {listener_pid}")));
            warned = true;
        }
        if let Some(e) = msgs.iter().find(|m| m.0 == b'E') {
            assert_eq!(field(&e.1, b'C').as_deref(), Some("54000"));
            assert_eq!(
                field(&e.1, b'M').as_deref(),
                Some("too many notifications in the NOTIFY queue")
            );
            failed = true;
            break;
        }
        accepted += 1;
    }
    assert!(warned, "a warning at 50% full");
    assert!(failed, "an error when full");
    assert!(
        accepted > 30 && accepted < 80,
        "accepted {accepted} (warned {warned})"
    );

    // Ending the listener's transaction delivers everything that was accepted, in order.
    listener.write_all(&message(b'Q', b"COMMIT\0")).unwrap();
    let msgs = until_ready(&mut listener);
    let notes: Vec<&Vec<u8>> = msgs.iter().filter(|m| m.0 == b'A').map(|m| &m.1).collect();
    assert_eq!(notes.len(), accepted);
    for (i, body) in notes.iter().enumerate() {
        let text = String::from_utf8_lossy(&body[4..]);
        assert!(
            text.starts_with(&format!("c\0{i}x")),
            "notification {i} in order"
        );
    }
    // And the queue is empty again.
    notifier
        .write_all(&message(b'Q', b"SELECT pg_notification_queue_usage()\0"))
        .unwrap();
    let msgs = until_ready(&mut notifier);
    let row = msgs.iter().find(|m| m.0 == b'D').unwrap();
    assert!(row.1.ends_with(b"0"), "usage back to 0");
}
