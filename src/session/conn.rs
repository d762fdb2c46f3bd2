//! The socket loop. [`serve`] takes a connection through start-up (`startup.rs`) and spawns
//! [`drive`], which runs [`Session::run`] on the session's shard, and on another shard when the
//! session follows its client there (`client_affinity`). `run` waits on the socket, on the
//! session's wake-up and on the idle-in-transaction timer; hands what it read to the protocol
//! (`protocol.rs`); writes the output once per batch of input; reads ahead after an answer
//! (`read_ahead.rs`); and pushes notifications to the client while the session is idle. Input
//! and output buffers come from a small per-thread pool and go back to it between statements.

use std::net::SocketAddr;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use bytes::BytesMut;
use tokio::net::TcpStream;

use super::protocol::Flow;
use super::socket::Conn;
use super::startup::read_startup;
use super::txn::TxState;
use super::{read_ahead, Session};
use crate::error::{code, PgError};
use crate::instance::{Instance, WaitEvent};
use crate::runtime::shards::OnShard;
use crate::wire::backend as be;

/// A commit that wakes at most this many other sessions lets them run before its reply is
/// written; with more, the reply goes first (it would wait behind all of them otherwise).
const YIELD_TO_WOKEN: usize = 4;
/// ... and only when the commit had at most this many notifications.
pub(super) const YIELD_MAX_NOTES: usize = 16;

/// Output bytes of notifications encoded at a time while the session is idle.
const NOTIFY_CHUNK: usize = 64 * 1024;

/// Input and output buffers of sessions between statements. A session that has written its
/// answer and read all its input holds no buffer (idle connections must stay small), but
/// handing an 8 KiB buffer back to the allocator after every statement and taking a new one
/// for the next costs a malloc, a free and often a consolidation each time. So the buffers go
/// to a small pool per shard thread, and the next statement on that thread takes one back.
/// The pool holds at most [`buffers::POOLED`] buffers of at most [`buffers::LARGEST`] bytes;
/// others go back to the allocator.
mod buffers {
    use std::cell::RefCell;

    use bytes::BytesMut;

    pub const POOLED: usize = 32;
    pub const LARGEST: usize = 16 * 1024;

    thread_local! {
        static POOL: RefCell<Vec<BytesMut>> = const { RefCell::new(Vec::new()) };
    }

    /// An empty buffer, pooled when one is there.
    pub fn take() -> BytesMut {
        POOL.with(|p| p.borrow_mut().pop()).unwrap_or_default()
    }

    /// Returns a buffer to this thread's pool, or to the allocator.
    pub fn give(mut buf: BytesMut) {
        if buf.capacity() == 0 || buf.capacity() > LARGEST {
            return;
        }
        buf.clear();
        POOL.with(|p| {
            let mut p = p.borrow_mut();
            if p.len() < POOLED {
                p.push(buf);
            }
        });
    }
}

/// Serves one connection from accept to close, starting on the shard `on` names.
pub async fn serve(instance: Arc<Instance>, stream: TcpStream, addr: SocketAddr, on: OnShard) {
    let _ = stream.set_nodelay(true);
    let mut stream = Conn::plain(stream);
    let mut rbuf = BytesMut::new();
    // authentication_timeout bounds everything before the session starts: a client that sends
    // nothing, stalls in the middle of its start-up packet, its TLS handshake or the password
    // exchange, or waits for its turn after failed passwords. As in PostgreSQL the connection is then
    // closed without a message (PostgreSQL only logs "canceling authentication due to
    // timeout").
    let limit = std::time::Duration::from_secs(instance.config.authentication_timeout_s);
    let started = tokio::time::timeout(limit, async {
        let params = read_startup(&instance, &mut stream, &mut rbuf).await?;
        let slot = match instance.admit() {
            Ok(s) => s,
            Err(e) => {
                let mut out = BytesMut::new();
                be::error_or_notice(&mut out, &e);
                let _ = stream.write_all(&out).await;
                return None;
            }
        };
        let session = Session::start(&instance, &mut stream, &mut rbuf, params, addr).await?;
        Some((session, slot))
    })
    .await;
    let (mut session, slot) = match started {
        Ok(Some(started)) => started,
        Ok(None) => {
            stream.close_notify();
            return;
        }
        Err(_) => {
            tracing::info!(%addr, "canceling authentication due to timeout");
            stream.close_notify();
            return;
        }
    };
    // AuthenticationOk, the parameters, BackendKeyData and ReadyForQuery.
    if stream.write_all(&session.out).await.is_err() {
        session.core.end_session();
        return;
    }
    session.out = BytesMut::new();
    // A task of its own, so that the memory of the start-up states above goes when this task
    // ends instead of staying in every session's task for its whole life.
    tokio::spawn(drive(Live {
        session,
        stream,
        rbuf,
        on,
        slot,
    }));
}

/// The wait event of a session waiting for its client's next message.
pub(super) const CLIENT_READ: WaitEvent = ("Client", "ClientRead");

/// A started session with everything that goes with it when it moves to another shard.
struct Live {
    session: Session,
    stream: Conn,
    rbuf: BytesMut,
    on: OnShard,
    slot: crate::instance::ConnectionSlot,
}

/// Runs a started session on its shard until it ends, or until it follows its client to
/// another shard (see `client_affinity`): then its socket moves from this shard's driver to the
/// other's, and a new task there goes on. Boxed because it spawns itself.
fn drive(live: Live) -> std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send>> {
    Box::pin(async move {
        let Live {
            mut session,
            mut stream,
            rbuf,
            on,
            slot,
        } = live;
        let run = CatchPanic(session.run(&mut stream, rbuf, &on)).await;
        let to = match run.unwrap_or_else(|what| {
            // A panic outside a message's handling (which `guarded` catches): the session
            // still ends as any other does, so its transaction, locks, snapshot and
            // registrations go with it.
            tracing::error!("session task panicked: {what}");
            Exit::Ended
        }) {
            Exit::Ended => {
                stream.close_notify();
                session.core.end_session();
                return;
            }
            Exit::Move(to) => to,
        };
        tracing::debug!(
            pid = session.core.shared.pid,
            to,
            "session follows its client"
        );
        let (on, handle) = on.move_to(to);
        session.weight_epoch = u32::MAX;
        // The socket leaves this shard's driver and is registered with the other's from here;
        // the task spawned there holds only the session's own future.
        let (tcp, tls) = stream.into_parts();
        let moved = tcp.into_std().and_then(|std_stream| {
            let _context = handle.enter();
            TcpStream::from_std(std_stream)
        });
        match moved {
            Ok(tcp) => {
                handle.spawn(drive(Live {
                    session,
                    stream: Conn::from_parts(tcp, tls),
                    rbuf: BytesMut::new(),
                    on,
                    slot,
                }));
            }
            Err(e) => {
                tracing::warn!(pid = session.core.shared.pid, "session could not move: {e}");
                session.core.end_session();
            }
        }
    })
}

/// A future whose panics come back as `Err(message)` instead of unwinding out of the task
/// (tokio would catch them too, but drop the session without ending it).
struct CatchPanic<F>(F);

impl<F: std::future::Future> std::future::Future for CatchPanic<F> {
    type Output = Result<F::Output, String>;

    fn poll(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Self::Output> {
        // SAFETY: the inner future is never moved out of the pinned wrapper.
        let inner = unsafe { self.map_unchecked_mut(|s| &mut s.0) };
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| inner.poll(cx))) {
            Ok(std::task::Poll::Ready(v)) => std::task::Poll::Ready(Ok(v)),
            Ok(std::task::Poll::Pending) => std::task::Poll::Pending,
            Err(panic) => std::task::Poll::Ready(Err(super::protocol::panic_message(&*panic))),
        }
    }
}

/// Makes room in the read buffer, taking one from the pool when the session holds none.
fn room_to_read(rbuf: &mut BytesMut) {
    if rbuf.capacity() == 0 {
        *rbuf = buffers::take();
    }
    rbuf.reserve(8192);
}

/// How a session's run on one shard ended.
enum Exit {
    /// The connection closed or the session ended it.
    Ended,
    /// Go on on shard `.0`; the session has no input or output pending.
    Move(usize),
}

impl Session {
    async fn run(&mut self, stream: &mut Conn, mut rbuf: BytesMut, on: &OnShard) -> Exit {
        // Messages that arrived with the start-up packet.
        if !rbuf.is_empty() && matches!(self.process_input(&mut rbuf), Flow::Close) {
            let _ = stream.write_all(&self.out).await;
            return Exit::Ended;
        }
        loop {
            if self.core.committing.is_some() {
                // A commit waits for its flush: nothing it answered is sent before it is
                // durable and visible.
                if let Flow::Close = self.await_commit(&mut rbuf).await {
                    self.closing = true;
                }
                continue;
            }
            let woke = std::mem::take(&mut self.core.woke_others);
            let long = std::mem::take(&mut self.core.woke_with_long_delivery);
            if woke > 0 && woke <= YIELD_TO_WOKEN && !long {
                // A commit just woke a few listening sessions. Their notification is usually
                // what another client waits for (a reply to this client rarely is), so let them
                // run first on this thread, where the wake put them, before this session's
                // own write.
                tokio::task::yield_now().await;
            }
            let answered = !self.out.is_empty();
            if answered {
                // Almost every answer fits the socket's buffer at once; ClientWrite is shown
                // (as in PostgreSQL) only while a write waits for room.
                let written = match stream.try_write(&self.out) {
                    Ok(n) => n,
                    Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => 0,
                    Err(_) => return Exit::Ended,
                };
                // (With TLS, encrypted records may still wait for the socket.)
                if written < self.out.len() || stream.pending() {
                    self.set_wait(Some(("Client", "ClientWrite")));
                    if stream.write_all(&self.out[written..]).await.is_err() {
                        return Exit::Ended;
                    }
                }
                // The next message (from this client, or from one that answers the
                // notifications that just went out) is likely to follow shortly: keep the
                // shard awake for it, where that takes no core from anyone (see `idle_spin`).
                let notified = std::mem::take(&mut self.spin_after_write) || woke > 0;
                // One clock read for both gauges below.
                let now = std::time::Instant::now();
                let spinner = &on.shard().spinner;
                if spinner.enabled() {
                    // Every answer counts in the gauge, whether or not it decides this one.
                    let active = &self.core.instance.active_sessions;
                    let spare = active.answered(now, &mut self.answered_epoch);
                    if notified || spare {
                        spinner.touch();
                    }
                }
                on.shard()
                    .weight
                    .answered(now, &mut self.weight_epoch, notified);
                // Idle sessions keep no output buffer.
                buffers::give(std::mem::take(&mut self.out));
                if !self.closing
                    && self.backlog.is_empty()
                    && rbuf.is_empty()
                    && self.running.is_none()
                {
                    if let Some(to) = on.follow(&mut self.follow, now, &*stream) {
                        self.follow.moved(now);
                        buffers::give(rbuf);
                        return Exit::Move(to);
                    }
                }
            }
            if self.closing {
                return Exit::Ended;
            }
            if self.running.is_some() {
                // A statement stopped in the middle (see `running.rs`): its output so far is
                // written; await what it needs, then go on with it and the rest of the input.
                if !self.await_running(stream.tcp()).await {
                    return Exit::Ended;
                }
                if self.out.capacity() == 0 {
                    self.out = buffers::take();
                }
                if let Flow::Close = self.guarded(|s| s.resume(&mut rbuf)) {
                    self.closing = true;
                }
                continue;
            }
            if !self.backlog.is_empty() {
                // The rest of a long run of notifications, before reading the next query.
                self.deliver_notifications(NOTIFY_CHUNK);
                continue;
            }
            if answered
                && self.read_ahead.due()
                && !self.core.shared.terminate.load(Ordering::SeqCst)
            {
                // The client's next statement is often there already (see `read_ahead`).
                room_to_read(&mut rbuf);
                match stream.read_now(&mut rbuf) {
                    read_ahead::Got::Data(_) => {
                        self.read_ahead.hit();
                        self.take_input(&mut rbuf);
                        continue;
                    }
                    read_ahead::Got::Nothing => self.read_ahead.miss(),
                    read_ahead::Got::Closed => return Exit::Ended,
                }
            }
            if rbuf.is_empty() {
                buffers::give(std::mem::take(&mut rbuf));
            }
            self.set_wait(Some(if self.notify_held {
                ("IPC", "NotifyCommitOrder")
            } else {
                CLIENT_READ
            }));
            let idle_timeout = match self.core.tx {
                TxState::Block | TxState::Failed
                    if self.core.settings.idle_in_transaction_timeout_ms > 0 =>
                {
                    Some(Duration::from_millis(
                        self.core.settings.idle_in_transaction_timeout_ms,
                    ))
                }
                _ => None,
            };
            let shared = self.core.shared.clone();
            tokio::select! {
                _ = shared.wake.notified() => {
                    if self.core.shared.terminate.load(Ordering::SeqCst) {
                        self.fatal(PgError::admin_shutdown());
                        continue;
                    }
                    if self.core.tx == TxState::Idle {
                        self.deliver_notifications(NOTIFY_CHUNK);
                    }
                }
                r = stream.readable() => {
                    if r.is_err() {
                        return Exit::Ended;
                    }
                    // The buffers are only taken once there is something to read, so that an
                    // idle session holds none.
                    room_to_read(&mut rbuf);
                    let read = stream.read_ready(&mut rbuf).await;
                    match read {
                        Some(Ok(0)) => return Exit::Ended,
                        Some(Ok(_)) => self.take_input(&mut rbuf),
                        // Readiness was stale: back to waiting.
                        None => {}
                        Some(Err(_)) => return Exit::Ended,
                    }
                }
                _ = async {
                    match idle_timeout {
                        Some(d) => tokio::time::sleep(d).await,
                        None => std::future::pending::<()>().await,
                    }
                } => {
                    self.fatal(PgError::fatal(
                        code::IDLE_IN_TRANSACTION_SESSION_TIMEOUT,
                        "terminating connection due to idle-in-transaction timeout",
                    ));
                }
            }
        }
    }

    /// Awaits a deferred commit (`Core::commit_deferred`): its flush, then the watermark
    /// (earlier commits, of this shard's sessions too, publish meanwhile); then ends it and goes
    /// on with what followed it: ReadyForQuery, the rest of the simple Query, the rest of the
    /// input.
    async fn await_commit(&mut self, rbuf: &mut BytesMut) -> Flow {
        if let Some((wal, end)) = self.core.committing_flush() {
            let before = self.core.wait_shown;
            self.set_wait(Some(("IO", "WALSync")));
            if let Err(e) = wal.wait_flushed(end).await {
                crate::wal::panic_on_flush_failure(&e);
            }
            self.set_wait(before);
        }
        self.core.publish_committing();
        while !self.core.committing_settled() {
            tokio::task::yield_now().await;
        }
        self.guarded(|s| {
            s.core.finish_commit();
            s.flush_notices();
            if std::mem::take(&mut s.ready_after_commit) {
                s.ready();
            }
            if let Some((parsed, i)) = s.after_commit.take() {
                s.simple_from(parsed, i);
            }
            if s.closing {
                return Flow::Close;
            }
            if s.running.is_some() || s.core.committing.is_some() {
                return Flow::Continue;
            }
            s.process_input(rbuf)
        })
    }

    /// Handles what was just read; the output buffer is taken only now that there is input.
    fn take_input(&mut self, rbuf: &mut BytesMut) {
        if self.out.capacity() == 0 {
            self.out = buffers::take();
        }
        if let Flow::Close = self.process_input(rbuf) {
            self.closing = true;
        }
    }

    /// Shows the wait event in pg_stat_activity; takes the activity lock only when it changes.
    pub(super) fn set_wait(&mut self, wait: Option<WaitEvent>) {
        if self.core.wait_shown == wait {
            return;
        }
        self.core.wait_shown = wait;
        let mut a = self.core.shared.activity.lock();
        a.set_wait(wait);
    }

    /// Encodes pending notifications into the output until it holds `limit` bytes; what is
    /// left stays in `backlog` for another call.
    pub(super) fn deliver_notifications(&mut self, limit: usize) {
        let Some(listener) = &self.core.listener else {
            self.backlog.clear();
            return;
        };
        if self.backlog.is_empty() {
            self.core.instance.notify.drain(listener, &mut self.backlog);
            self.backlog_at = (0, 0);
            self.notify_held = listener.pending() > 0;
        }
        let mut sent = 0;
        let (mut di, mut ni) = self.backlog_at;
        let mut more = false;
        'deliveries: while di < self.backlog.len() {
            let d = &self.backlog[di];
            let pid = d.sender_pid();
            // Deliveries resolved before this session's last LISTEN/UNLISTEN may hold channels
            // it no longer listens to, or entries from before a LISTEN's commit: check those.
            let check = d.seq < self.core.listen_changed_at;
            while ni < d.len() {
                let note = d.note(ni);
                ni += 1;
                if check
                    && !matches!(self.core.listening.get(note.channel), Some(&from) if d.seq >= from)
                {
                    continue;
                }
                let client = self.core.settings.client;
                if let Err(mut e) =
                    be::notification_in(&mut self.out, pid, note.channel, note.payload, client)
                {
                    // As PostgreSQL: a notification the client's encoding cannot carry ends
                    // the session.
                    e.severity = crate::error::Severity::Fatal;
                    self.backlog.clear();
                    self.fatal(e);
                    return;
                }
                sent += 1;
                // Another client's notification: this client may well answer it.
                self.spin_after_write |= pid != self.core.shared.pid;
                if self.out.len() >= limit && (ni < d.len() || di + 1 < self.backlog.len()) {
                    more = true;
                    break 'deliveries;
                }
            }
            di += 1;
            ni = 0;
        }
        if more {
            self.backlog_at = (di, ni);
        } else {
            self.backlog.clear();
        }
        if sent > 0 {
            self.core.instance.notify.count_delivered(sent);
        }
    }
}
