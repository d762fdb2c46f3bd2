//! Raw protocol helpers shared by the test binaries that speak to a server on a loopback port.

// Each test binary compiles this module and uses a part of it.
#![allow(dead_code)]

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

pub fn connect(port: u16) -> TcpStream {
    let s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    s
}

pub fn startup_packet(params: &[(&str, &str)]) -> Vec<u8> {
    let mut body = Vec::new();
    body.extend_from_slice(&196608i32.to_be_bytes());
    for (k, v) in params {
        body.extend_from_slice(k.as_bytes());
        body.push(0);
        body.extend_from_slice(v.as_bytes());
        body.push(0);
    }
    body.push(0);
    let mut p = ((body.len() + 4) as i32).to_be_bytes().to_vec();
    p.extend(body);
    p
}

pub fn message(ty: u8, body: &[u8]) -> Vec<u8> {
    let mut m = vec![ty];
    m.extend_from_slice(&((body.len() + 4) as i32).to_be_bytes());
    m.extend_from_slice(body);
    m
}

/// Reads one backend message: (type, body). None at EOF.
pub fn read_msg(s: &mut TcpStream) -> Option<(u8, Vec<u8>)> {
    let mut head = [0u8; 5];
    s.read_exact(&mut head).ok()?;
    let len = i32::from_be_bytes([head[1], head[2], head[3], head[4]]) as usize;
    let mut body = vec![0u8; len - 4];
    s.read_exact(&mut body).ok()?;
    Some((head[0], body))
}

/// Reads messages until ReadyForQuery (inclusive) or EOF.
pub fn until_ready(s: &mut TcpStream) -> Vec<(u8, Vec<u8>)> {
    let mut out = Vec::new();
    while let Some(m) = read_msg(s) {
        let done = m.0 == b'Z';
        out.push(m);
        if done {
            break;
        }
    }
    out
}

pub fn login(port: u16) -> (TcpStream, Vec<(u8, Vec<u8>)>) {
    let mut s = connect(port);
    s.write_all(&startup_packet(&[
        ("user", "postgres"),
        ("database", "postgres"),
    ]))
    .unwrap();
    let msgs = until_ready(&mut s);
    (s, msgs)
}
