//! A session's connection: the TCP socket, and beside it the rustls state when the client
//! asked for TLS.
//!
//! The socket loop (`conn.rs`) keeps working on the TCP socket itself (readiness, `try_write`,
//! reads without waiting, the socket's CPU for client affinity, moving between shards), so TLS
//! is not a stream wrapped around it but a state the reads and writes pass through:
//!
//! * read: socket → [`rustls::ServerConnection::read_tls`] → `process_new_packets` (decrypt)
//!   → plaintext appended to the session's read buffer;
//! * write: the session's output → rustls's writer (encrypt into its send buffer) →
//!   `write_tls` → socket.
//!
//! Without TLS every method is the plain socket call behind one branch on `tls`, with no
//! extra copy. With TLS the plaintext is copied once each way (out of rustls's buffer on
//! reads, into its records on writes).
//!
//! Buffers: rustls reads the socket 4 KiB at a time into a buffer that holds at most one
//! record being assembled (16 KiB plus overhead; 64 KiB for a handshake message), and keeps
//! the plaintext it decrypted, which is moved to the read buffer right after each read (rustls
//! refuses to buffer more than 16 KiB of it). Outgoing, rustls's send buffer is bounded by
//! [`SEND_BUFFER_LIMIT`]: a write that finds it full hands over what fits and flushes records
//! to the socket before it takes more. The rustls state is boxed and moves with the socket
//! when the session changes shards. Measured: an idle TLS session holds about 20 KiB more than
//! a plain one (rustls's state, keys and read buffer); 400 idle sessions, debug build.

use std::io::{self, Read, Write};
use std::os::fd::{AsRawFd, RawFd};

use bytes::BytesMut;
use rustls::ServerConnection;
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;

use super::read_ahead::{self, Got};
use crate::tls::SslInfo;

/// Bound on encrypted output rustls keeps before the socket takes it (bytes).
pub const SEND_BUFFER_LIMIT: usize = 64 * 1024;

/// A client connection, plain or TLS.
pub struct Conn {
    tcp: TcpStream,
    tls: Option<Box<ServerConnection>>,
}

/// Socket reads and writes through tokio's readiness (a `WouldBlock` clears it), for rustls.
struct Tokio<'a>(&'a TcpStream);

impl Read for Tokio<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.0.try_read(buf)
    }
}

impl Write for Tokio<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.try_write(buf)
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Socket reads without waiting and without tokio's readiness (the read ahead's, see
/// `read_ahead::read_now`), for rustls.
struct Now<'a>(&'a TcpStream);

impl Read for Now<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        // SAFETY: `buf` is writable memory of `buf.len()` bytes; the kernel writes at most
        // that many.
        let n = unsafe {
            libc::recv(
                self.0.as_raw_fd(),
                buf.as_mut_ptr().cast(),
                buf.len(),
                libc::MSG_DONTWAIT,
            )
        };
        if n >= 0 {
            return Ok(n as usize);
        }
        match io::Error::last_os_error() {
            e if e.kind() == io::ErrorKind::Interrupted => Err(io::ErrorKind::WouldBlock.into()),
            e => Err(e),
        }
    }
}

impl AsRawFd for Conn {
    fn as_raw_fd(&self) -> RawFd {
        self.tcp.as_raw_fd()
    }
}

impl Conn {
    pub fn plain(tcp: TcpStream) -> Conn {
        Conn { tcp, tls: None }
    }

    /// Whether the connection is encrypted (for host rules: hostssl / hostnossl).
    #[allow(dead_code)] // host rules are the first user; until they land, only the tests
    pub fn is_ssl(&self) -> bool {
        self.tls.is_some()
    }

    /// What the handshake negotiated (pg_stat_ssl); `None` for a plain connection.
    pub fn ssl_info(&self) -> Option<SslInfo> {
        self.tls.as_deref().map(crate::tls::ssl_info)
    }

    pub fn tcp(&self) -> &TcpStream {
        &self.tcp
    }

    /// The parts that move to another shard: the socket leaves this shard's driver as a std
    /// socket, the TLS state goes as it is.
    pub fn into_parts(self) -> (TcpStream, Option<Box<ServerConnection>>) {
        (self.tcp, self.tls)
    }

    pub fn from_parts(tcp: TcpStream, tls: Option<Box<ServerConnection>>) -> Conn {
        Conn { tcp, tls }
    }

    /// Runs the TLS handshake after the `S` answer to an SSLRequest. On failure the
    /// connection is unusable (the caller closes it; rustls has queued its alert, which is
    /// sent if the socket takes it).
    pub async fn start_tls(
        &mut self,
        config: std::sync::Arc<rustls::ServerConfig>,
    ) -> io::Result<()> {
        let mut tls = Box::new(ServerConnection::new(config).map_err(io::Error::other)?);
        tls.set_buffer_limit(Some(SEND_BUFFER_LIMIT));
        let tcp = &self.tcp;
        while tls.is_handshaking() {
            flush_tls(tcp, &mut tls).await?;
            if !tls.is_handshaking() {
                break;
            }
            tcp.readable().await?;
            match tls.read_tls(&mut Tokio(tcp)) {
                Ok(0) => return Err(io::ErrorKind::UnexpectedEof.into()),
                Ok(_) => {}
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => continue,
                Err(e) => return Err(e),
            }
            if let Err(e) = tls.process_new_packets() {
                let _ = flush_now(tcp, &mut tls);
                return Err(io::Error::new(io::ErrorKind::InvalidData, e));
            }
        }
        // The server's last handshake messages (and TLS 1.3 session tickets).
        flush_tls(tcp, &mut tls).await?;
        self.tls = Some(tls);
        Ok(())
    }

    /// Writes all of `buf` (and any TLS records still pending), waiting for the socket.
    pub async fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        let Some(tls) = self.tls.as_deref_mut() else {
            return self.tcp.write_all(buf).await;
        };
        let tcp = &self.tcp;
        let mut done = 0;
        loop {
            done += tls.writer().write(&buf[done..])?;
            flush_tls(tcp, tls).await?;
            if done == buf.len() {
                return Ok(());
            }
        }
    }

    /// Writes what the socket takes now; the bytes of `buf` taken. With TLS, "taken" means
    /// encrypted: records may still wait in rustls's buffer ([`Conn::pending`]), and the
    /// caller finishes with [`Conn::write_all`] (of the rest, or of nothing).
    pub fn try_write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let Some(tls) = self.tls.as_deref_mut() else {
            return self.tcp.try_write(buf);
        };
        let mut done = 0;
        loop {
            done += tls.writer().write(&buf[done..])?;
            if !flush_now(&self.tcp, tls)? || done == buf.len() {
                return Ok(done);
            }
        }
    }

    /// Whether encrypted output waits for the socket.
    pub fn pending(&self) -> bool {
        self.tls.as_deref().is_some_and(|t| t.wants_write())
    }

    /// Before the connection closes: tells a TLS client that the end is intended
    /// (close_notify, as OpenSSL's shutdown in PostgreSQL does), if the socket takes it now.
    pub fn close_notify(&mut self) {
        if let Some(tls) = self.tls.as_deref_mut() {
            tls.send_close_notify();
            let _ = flush_now(&self.tcp, tls);
        }
    }

    /// Waits until the socket has something to read.
    pub async fn readable(&self) -> io::Result<()> {
        self.tcp.readable().await
    }

    /// Reads after [`Conn::readable`]: `Some(Ok(n))` with `n` bytes appended to `rbuf`
    /// (0: the client closed the connection), `None` when there was nothing after all (stale
    /// readiness, or part of a TLS record).
    pub async fn read_ready(&mut self, rbuf: &mut BytesMut) -> Option<io::Result<usize>> {
        match self.tls.as_deref_mut() {
            None => {
                // A read through `AsyncRead` (not `try_read_buf`) tells tokio that a short
                // read drained the socket, which saves the extra read that would otherwise
                // end in WouldBlock after every message.
                let tcp = &mut self.tcp;
                std::future::poll_fn(|cx| {
                    match tokio_util::io::poll_read_buf(std::pin::Pin::new(&mut *tcp), cx, rbuf) {
                        std::task::Poll::Pending => std::task::Poll::Ready(None),
                        std::task::Poll::Ready(r) => std::task::Poll::Ready(Some(r)),
                    }
                })
                .await
            }
            Some(tls) => read_tls(&mut Tokio(&self.tcp), &self.tcp, tls, rbuf),
        }
    }

    /// Reads what has arrived without waiting (the read ahead, see `read_ahead.rs`).
    pub fn read_now(&mut self, rbuf: &mut BytesMut) -> Got {
        match self.tls.as_deref_mut() {
            None => read_ahead::read_now(&self.tcp, rbuf),
            Some(tls) => match read_tls(&mut Now(&self.tcp), &self.tcp, tls, rbuf) {
                Some(Ok(0)) | Some(Err(_)) => Got::Closed,
                Some(Ok(n)) => Got::Data(n),
                None => Got::Nothing,
            },
        }
    }

    /// Waits for and reads at least one byte (start-up); 0 when the client closed.
    pub async fn read_buf(&mut self, rbuf: &mut BytesMut) -> io::Result<usize> {
        if self.tls.is_none() {
            return tokio::io::AsyncReadExt::read_buf(&mut self.tcp, rbuf).await;
        }
        loop {
            // Plaintext may be waiting in rustls already (the start-up message sent along
            // with the handshake's last flight): try before waiting.
            if let Some(r) = self.read_ready(rbuf).await {
                return r;
            }
            self.tcp.readable().await?;
        }
    }
}

/// One round of TLS input: reads the socket (through `io`) until it gives plaintext, ends, or
/// has nothing more, decrypting as it goes; the plaintext goes to `rbuf`. What `read_ready`
/// returns.
fn read_tls(
    io: &mut dyn Read,
    tcp: &TcpStream,
    tls: &mut ServerConnection,
    rbuf: &mut BytesMut,
) -> Option<io::Result<usize>> {
    loop {
        let (eof, blocked) = match tls.read_tls(io) {
            Ok(0) => (true, false),
            Ok(_) => (false, false),
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => (false, true),
            Err(e) => return Some(Err(e)),
        };
        let state = match tls.process_new_packets() {
            Ok(s) => s,
            Err(e) => {
                // rustls has queued an alert for the client; send it if the socket takes it.
                let _ = flush_now(tcp, tls);
                return Some(Err(io::Error::new(io::ErrorKind::InvalidData, e)));
            }
        };
        let n = state.plaintext_bytes_to_read();
        let closed = state.peer_has_closed();
        if n > 0 {
            let at = rbuf.len();
            rbuf.resize(at + n, 0);
            if let Err(e) = tls.reader().read_exact(&mut rbuf[at..]) {
                rbuf.truncate(at);
                return Some(Err(e));
            }
        }
        // Post-handshake messages (a key update) may want an answer.
        if tls.wants_write() {
            if let Err(e) = flush_now(tcp, tls) {
                return Some(Err(e));
            }
        }
        if n > 0 {
            return Some(Ok(n));
        }
        if eof || closed {
            return Some(Ok(0));
        }
        if blocked {
            return None;
        }
    }
}

/// Writes pending TLS records while the socket takes them; false when it stopped taking them.
fn flush_now(tcp: &TcpStream, tls: &mut ServerConnection) -> io::Result<bool> {
    while tls.wants_write() {
        match tls.write_tls(&mut Tokio(tcp)) {
            Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
            Ok(_) => {}
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(false),
            Err(e) => return Err(e),
        }
    }
    Ok(true)
}

/// Writes all pending TLS records, waiting for the socket.
async fn flush_tls(tcp: &TcpStream, tls: &mut ServerConnection) -> io::Result<()> {
    while !flush_now(tcp, tls)? {
        tcp.writable().await?;
    }
    Ok(())
}
