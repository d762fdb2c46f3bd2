//! Connection helpers shared by every subcommand.
//!
//! Every session is a plain tokio-postgres connection over a TCP socket that we open ourselves
//! (so that a source address can be chosen when many connections are needed). The connection
//! half is driven by its own task, which is also where asynchronous notifications arrive:
//! `Connection::poll_message` yields them as `AsyncMessage::Notification`. Each notification is
//! either stamped with the instant it was read off the socket and queued for the benchmark, or
//! counted on the spot by a [`Tally`] (for bursts, where a hand-off per message would cost more
//! than the delivery being measured).

use std::net::{IpAddr, SocketAddr};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::Poll;
use std::time::{Duration, Instant};

use futures_util::stream::{self, StreamExt};
use tokio::net::{TcpSocket, TcpStream};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio_postgres::tls::NoTlsStream;
use tokio_postgres::{AsyncMessage, Client, Config, Connection, NoTls, Notification};

pub type BoxError = Box<dyn std::error::Error + Send + Sync>;
pub type Res<T> = Result<T, BoxError>;

/// Where and as whom to connect.
#[derive(clap::Args, Clone, Debug)]
pub struct ConnOpts {
    /// Server address (an IP address; everything runs on 127.0.0.1).
    #[arg(long, default_value = "127.0.0.1")]
    pub host: String,
    /// Server port.
    #[arg(long, default_value_t = 5432)]
    pub port: u16,
    #[arg(long, default_value = "postgres")]
    pub user: String,
    #[arg(long, default_value = "postgres")]
    pub dbname: String,
    /// Upper bound on one connection attempt (TCP connect + startup + authentication).
    #[arg(long, default_value_t = 30.0)]
    pub connect_timeout_s: f64,
}

impl ConnOpts {
    pub fn addr(&self) -> Res<SocketAddr> {
        let ip: IpAddr = self
            .host
            .parse()
            .map_err(|e| format!("--host must be an IP address ({}): {e}", self.host))?;
        Ok(SocketAddr::new(ip, self.port))
    }

    pub fn config(&self) -> Config {
        let mut cfg = Config::new();
        cfg.user(&self.user)
            .dbname(&self.dbname)
            .application_name("tgbench");
        cfg
    }

    pub fn connect_timeout(&self) -> Duration {
        Duration::from_secs_f64(self.connect_timeout_s.max(0.001))
    }
}

/// A notification together with the instant its message was decoded by the connection task.
pub struct Received {
    pub at: Instant,
    pub note: Notification,
}

/// One client session: the query half, the notifications (if asked for), and the task that
/// drives the connection. The task returns the connection error, if the connection failed.
pub struct Session {
    pub client: Client,
    pub notes: Option<mpsc::UnboundedReceiver<Received>>,
    pub driver: JoinHandle<Option<String>>,
}

impl Session {
    /// Opens a session; with `notifications` the received notifications are delivered on
    /// `notes`, otherwise they are discarded.
    pub async fn open(opts: &ConnOpts, notifications: bool) -> Res<Session> {
        Session::open_from(opts, &opts.config(), opts.addr()?, None, notifications).await
    }

    pub async fn open_from(
        opts: &ConnOpts,
        cfg: &Config,
        addr: SocketAddr,
        source: Option<IpAddr>,
        notifications: bool,
    ) -> Res<Session> {
        if notifications {
            let (tx, rx) = mpsc::unbounded_channel();
            let mut s = Session::open_with(opts, cfg, addr, source, Sink::Queue(tx)).await?;
            s.notes = Some(rx);
            Ok(s)
        } else {
            Session::open_with(opts, cfg, addr, source, Sink::Discard).await
        }
    }

    /// Opens a session whose connection task hands notifications to `sink`.
    pub async fn open_with(
        opts: &ConnOpts,
        cfg: &Config,
        addr: SocketAddr,
        source: Option<IpAddr>,
        sink: Sink,
    ) -> Res<Session> {
        let (client, conn) = connect_raw(cfg, addr, source, opts.connect_timeout()).await?;
        let driver = spawn_driver(conn, sink);
        Ok(Session {
            client,
            notes: None,
            driver,
        })
    }

    pub fn take_notes(&mut self) -> mpsc::UnboundedReceiver<Received> {
        self.notes
            .take()
            .expect("session was opened without notifications")
    }
}

/// TCP connect (optionally from a given source address) plus the PostgreSQL startup, bounded
/// by `limit`.
pub async fn connect_raw(
    cfg: &Config,
    addr: SocketAddr,
    source: Option<IpAddr>,
    limit: Duration,
) -> Res<(Client, Connection<TcpStream, NoTlsStream>)> {
    let attempt = async {
        let sock = if addr.is_ipv4() {
            TcpSocket::new_v4()?
        } else {
            TcpSocket::new_v6()?
        };
        if let Some(ip) = source {
            sock.bind(SocketAddr::new(ip, 0))?;
        }
        let stream = sock.connect(addr).await?;
        stream.set_nodelay(true)?;
        let pair = cfg.connect_raw(stream, NoTls).await?;
        Ok::<_, BoxError>(pair)
    };
    match tokio::time::timeout(limit, attempt).await {
        Ok(r) => r,
        Err(_) => Err(format!("connection attempt took longer than {limit:?}").into()),
    }
}

/// Where a connection task puts the notifications it reads.
pub enum Sink {
    Discard,
    /// Each notification, stamped, to a queue the benchmark reads.
    Queue(mpsc::UnboundedSender<Received>),
    /// Counted in the connection task itself (see [`Tally`]).
    Tally(Arc<Tally>),
}

/// Drives a connection until it ends, handing notifications to `sink`.
pub fn spawn_driver(
    mut conn: Connection<TcpStream, NoTlsStream>,
    sink: Sink,
) -> JoinHandle<Option<String>> {
    // The connection is polled in place rather than through a `Stream` adapter: each message
    // comes back as a `Poll<Option<Result<AsyncMessage, _>>>` of several hundred bytes (a
    // notice carries a whole `DbError`), and every adapter layer copies it once more. With a
    // burst of 10,000 notifications those copies were a quarter of the reading thread's time.
    tokio::spawn(std::future::poll_fn(move |cx| loop {
        match conn.poll_message(cx) {
            Poll::Ready(Some(Ok(AsyncMessage::Notification(note)))) => match &sink {
                Sink::Discard => {}
                Sink::Queue(tx) => {
                    let _ = tx.send(Received {
                        at: Instant::now(),
                        note,
                    });
                }
                Sink::Tally(t) => t.record(note.payload()),
            },
            Poll::Ready(Some(Ok(_))) => {} // notices and future message kinds
            Poll::Ready(Some(Err(e))) => return Poll::Ready(Some(e.to_string())),
            Poll::Ready(None) => return Poll::Ready(None),
            Poll::Pending => return Poll::Pending,
        }
    }))
}

/// Counts one expected burst of notifications (those whose payload is a given burst number)
/// inside the connection task, noting when the first and the last arrived. A burst of 10,000
/// costs no hand-off per notification: a queue to another task wakes that task for nearly every
/// message when it keeps up, which on two cores costs more than the server's whole delivery.
///
/// The per-notification path takes no lock (a lock and a string comparison per message were a
/// few percent of the reading thread): the burst number and the count are atomics, and only the
/// first and the last notification of a burst touch the mutex that holds their instants.
/// `expect` must be called while no burst is being counted (the benchmark waits for each burst
/// to complete before it starts the next).
pub struct Tally {
    /// Burst number being counted; `NO_BURST` before the first `expect`.
    burst: AtomicU64,
    want: AtomicUsize,
    got: AtomicUsize,
    times: std::sync::Mutex<(Option<Instant>, Option<Instant>)>,
    done: tokio::sync::Notify,
}

const NO_BURST: u64 = u64::MAX;

impl Default for Tally {
    fn default() -> Tally {
        Tally {
            burst: AtomicU64::new(NO_BURST),
            want: AtomicUsize::new(0),
            got: AtomicUsize::new(0),
            times: std::sync::Mutex::new((None, None)),
            done: tokio::sync::Notify::new(),
        }
    }
}

impl Tally {
    /// Starts counting notifications whose payload is `burst` (in decimal); `want` of them
    /// complete the burst.
    pub fn expect(&self, burst: u64, want: usize) {
        assert!(burst != NO_BURST, "burst number {NO_BURST} is reserved");
        *self.times.lock().expect("tally lock") = (None, None);
        self.got.store(0, Ordering::Relaxed);
        self.want.store(want, Ordering::Relaxed);
        // Publishes the reset above to the connection task, which reads `burst` first.
        self.burst.store(burst, Ordering::Release);
    }

    fn record(&self, payload: &str) {
        let burst = self.burst.load(Ordering::Acquire);
        if burst == NO_BURST || payload.parse::<u64>() != Ok(burst) {
            return;
        }
        let want = self.want.load(Ordering::Relaxed);
        // Only this connection's task counts, so a load and a store suffice.
        let got = self.got.load(Ordering::Relaxed);
        if got >= want {
            return;
        }
        self.got.store(got + 1, Ordering::Relaxed);
        if got == 0 || got + 1 == want {
            let now = Instant::now();
            let mut times = self.times.lock().expect("tally lock");
            if got == 0 {
                times.0 = Some(now);
            }
            if got + 1 == want {
                times.1 = Some(now);
                drop(times);
                self.done.notify_one();
            }
        }
    }

    /// Waits until the burst is complete; returns when its first and its last notification
    /// were read, or how many had arrived when `deadline` passed.
    pub async fn wait(&self, deadline: Instant) -> Result<(Instant, Instant), usize> {
        loop {
            let notified = self.done.notified();
            if let (Some(first), Some(last)) = *self.times.lock().expect("tally lock") {
                return Ok((first, last));
            }
            if Instant::now() >= deadline {
                return Err(self.got.load(Ordering::Relaxed));
            }
            let _ = tokio::time::timeout_at(deadline.into(), notified).await;
        }
    }
}

/// Opens `n` sessions with at most `concurrency` connection attempts in flight; `setup(i)`
/// may name one statement (sent with the simple protocol) that session `i` runs once opened.
/// Returns the sessions in index order, or the first error.
pub async fn open_many<F>(
    opts: &ConnOpts,
    n: usize,
    concurrency: usize,
    notifications: bool,
    setup: F,
) -> Res<Vec<Session>>
where
    F: Fn(usize) -> Option<String>,
{
    let cfg = opts.config();
    let addr = opts.addr()?;
    open_indexed(n, concurrency, |i| {
        let stmt = setup(i);
        let cfg = &cfg;
        async move {
            let s = Session::open_from(opts, cfg, addr, None, notifications).await?;
            if let Some(stmt) = stmt {
                s.client.simple_query(&stmt).await?;
            }
            Ok(s)
        }
    })
    .await
}

/// Opens one session per tally, each counting its notifications into it (see [`Tally`]), with
/// at most `concurrency` connection attempts in flight. Returns them in the tallies' order.
pub async fn open_tallied(
    opts: &ConnOpts,
    tallies: &[Arc<Tally>],
    concurrency: usize,
) -> Res<Vec<Session>> {
    let cfg = opts.config();
    let addr = opts.addr()?;
    open_indexed(tallies.len(), concurrency, |i| {
        Session::open_with(opts, &cfg, addr, None, Sink::Tally(tallies[i].clone()))
    })
    .await
}

/// Runs `open(i)` for i in 0..n, at most `concurrency` at a time; the sessions in index order,
/// or the first error.
async fn open_indexed<F, Fut>(n: usize, concurrency: usize, open: F) -> Res<Vec<Session>>
where
    F: Fn(usize) -> Fut,
    Fut: std::future::Future<Output = Res<Session>>,
{
    let jobs = (0..n).map(|i| {
        let job = open(i);
        async move { job.await.map(|s| (i, s)) }
    });
    let mut results: Vec<(usize, Session)> = Vec::with_capacity(n);
    let mut pending = stream::iter(jobs).buffer_unordered(concurrency.max(1));
    while let Some(r) = pending.next().await {
        results.push(r?);
    }
    results.sort_by_key(|(i, _)| *i);
    Ok(results.into_iter().map(|(_, s)| s).collect())
}

/// Whether the server accepts several statements in one simple Query message.
pub async fn supports_multi_statement(client: &Client) -> bool {
    match client.simple_query("SELECT 1; SELECT 2").await {
        Ok(msgs) => {
            msgs.iter()
                .filter(|m| matches!(m, tokio_postgres::SimpleQueryMessage::Row(_)))
                .count()
                == 2
        }
        Err(_) => false,
    }
}

/// Runs statements (each ending in ';') with the simple protocol, `batch` per Query message.
pub async fn run_statements(client: &Client, stmts: &[String], batch: usize) -> Res<()> {
    for chunk in stmts.chunks(batch.max(1)) {
        client.simple_query(&chunk.concat()).await?;
    }
    Ok(())
}

/// Receives the next notification, waiting at most `limit`.
pub async fn recv_within(
    rx: &mut mpsc::UnboundedReceiver<Received>,
    limit: Duration,
) -> Res<Received> {
    // Already queued: no timer to arm (a burst of notifications is read at memory speed).
    match rx.try_recv() {
        Ok(r) => Ok(r),
        Err(_) => recv_waiting(rx, limit).await,
    }
}

async fn recv_waiting(
    rx: &mut mpsc::UnboundedReceiver<Received>,
    limit: Duration,
) -> Res<Received> {
    match tokio::time::timeout(limit, rx.recv()).await {
        Ok(Some(r)) => Ok(r),
        Ok(None) => Err("connection closed while waiting for a notification".into()),
        Err(_) => Err(format!("no notification arrived within {limit:?}").into()),
    }
}

/// Closes sessions: drops the clients (which makes the server side see a Terminate) and waits,
/// bounded, for the connection tasks to end.
pub async fn close_all(sessions: Vec<Session>) {
    let mut drivers = Vec::with_capacity(sessions.len());
    for s in sessions {
        drop(s.client);
        drivers.push(s.driver);
    }
    let deadline = Instant::now() + Duration::from_secs(10);
    for d in drivers {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            d.abort();
            continue;
        }
        let _ = tokio::time::timeout(left, d).await;
    }
}

pub fn secs(d: Duration) -> f64 {
    d.as_secs_f64()
}

pub fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// A current-thread runtime on an OS thread of its own. Connections opened inside it are read
/// there, so that (say) a listener reading thousands of notifications does not delay, on a
/// shared thread, the reply another session of the same benchmark is timing: in real use they
/// are separate client processes.
pub struct SideRuntime {
    handle: tokio::runtime::Handle,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl SideRuntime {
    pub fn new(name: &str) -> Res<SideRuntime> {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        let handle = rt.handle().clone();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let thread = std::thread::Builder::new()
            .name(name.to_string())
            .spawn(move || {
                rt.block_on(async {
                    let _ = stopped.await;
                });
            })?;
        Ok(SideRuntime {
            handle,
            stop: Some(stop),
            thread: Some(thread),
        })
    }

    /// Runs `fut` on the side thread and waits for its result.
    pub async fn run<F, T>(&self, fut: F) -> Res<T>
    where
        F: std::future::Future<Output = Res<T>> + Send + 'static,
        T: Send + 'static,
    {
        self.handle.spawn(fut).await?
    }
}

impl Drop for SideRuntime {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}
