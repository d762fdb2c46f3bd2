//! Client affinity: a session moves to the shard that runs on its client's CPU.
//!
//! A shard (see `server`) is a thread, and the kernel places threads on cores as it sees fit;
//! a session is placed on a shard when it connects, before anything is known about where its
//! client runs. When the client runs on the same machine (a benchmark, an application server
//! beside its database, a connection pooler), each round trip is a wake-up from the client's
//! thread to the shard's and back. On the same core that wake-up is cheap, and the woken side
//! can run at once while the other waits for the answer. On another core it costs an
//! inter-processor interrupt each way, and both threads sleep and wake where one would have
//! been preempted and resumed.
//!
//! PostgreSQL gets the same-core pairing for free: a backend serves one client, and the
//! kernel's wake-affine placement pulls the two together. A shard serves many clients, which
//! the kernel spreads over the cores; it cannot bring all of them to one shard. Measured with
//! pgbench's LISTEN-only script at 4 clients on 2 cores (2 shards, 2 sessions each): when both
//! of a shard's clients ran on its core, 88k statements per second, PostgreSQL's rate in the
//! same minutes; when the kernel put one client of each shard on the other core, 62-68k, with
//! a third of all wake-ups crossing cores. Which of the two a run got was chance. Following the
//! client, the side-by-side runs at 2-32 clients went from 5 of 20 points at or above
//! PostgreSQL to 15 of 20.
//!
//! So the session goes to the client instead. Linux records, per socket, the CPU on which the
//! last packet was received (`SO_INCOMING_CPU`). Over loopback that is the CPU of the sending
//! thread; from a network card it is the CPU that handled the receive queue, which is where
//! the data is in cache. Every [`CHECK_EVERY`] while it answers, and no more often than every
//! [`CHECK_ANSWERS`] answers, a session compares that CPU with the one its shard's thread is
//! on, and each shard publishes the CPU it was last seen on. (The answer count keeps the check,
//! a `getsockopt` call, off the path of sessions that answer rarely: with 1000 pgbench clients
//! each session answers every 20 ms or so, so a time limit alone made every answer check, and
//! `getsockopt` was a third of the server's system calls.)
//! When [`STRIKES`] checks in a row name the same other shard, the session moves there at its
//! next idle point (its output written, its input empty): the socket leaves the old shard's
//! epoll set and joins the new one's, and the session's task continues on the new shard.
//! Nothing else about the session changes; notifications reach it through its own wake-up,
//! which does not care which thread waits on it.
//!
//! The limits, so that following cannot thrash or pile up:
//! - a session moves only to a shard with at most as many sessions as its own, so the counts
//!   of two shards never drift more than two apart through moves (a client machine whose
//!   network card delivers everything to one CPU cannot crowd one shard);
//! - after a move a session waits [`SETTLE`] before it checks again, so one that follows a
//!   wandering client moves at most a few times a second;
//! - where the shards' last seen CPUs do not name a single other shard on the client's CPU,
//!   nothing moves;
//! - a session that does not answer does not check: idle sessions cost nothing here.
//!
//! `--client-affinity off` keeps every session where it was placed.
//!
//! # Shards stay on their CPUs
//!
//! Following only works when each CPU has a shard. Left to the kernel, both shard threads of a
//! 2-core machine sometimes end up on one core (wake-affine placement pulls a woken thread to
//! its waker's core, and two threads that each sleep half the time look balanced to the load
//! balancer). Then no shard is on the other core, no session can follow its client there, and
//! every round trip of that core's clients crosses cores: pgbench's `SELECT 1` at 2 clients ran
//! at 31-37k instead of 100k, with 42 % of the machine idle, in 3 of 32 runs. So, unless
//! `--pin-shards off`, each shard's threads are bound to one CPU of the set the process may use
//! ([`allowed_cpus`], shard `i` on the `i`-th, round robin when there are more shards than
//! CPUs); the same 32 runs, pinned, were all fast. The price is that a shard cannot leave a core
//! that something else keeps busy; it still gets its fair share there, and its sessions can
//! follow their clients to other shards.
//!
//! # Invariants
//!
//! 1. [`choose`] names only another shard, last seen on the client's CPU, with at most as many
//!    sessions as the session's own shard; none when the client's CPU is unknown or is already
//!    its shard's.
//! 2. A session moves only after [`STRIKES`] checks in a row named the same shard
//!    ([`Follow::checked`]: any other outcome starts the count again).
//! 3. Checks are spaced: after the first, at least [`CHECK_ANSWERS`] answers and
//!    [`CHECK_EVERY`] apart ([`Follow::due`]), and [`SETTLE`] after a move ([`Follow::moved`]).
//!
//! # Concurrency
//!
//! This module keeps no shared state: a [`Follow`] belongs to its session, and the views it
//! chooses from are read by the caller from what each shard publishes (its CPU and session
//! count, Relaxed atomics in `server.rs`, written by the shard's own thread and by sessions as
//! they join and leave). A view may be out of date by the time the session moves; invariants 2
//! and 3 bound what that can cost to one move per [`SETTLE`].
//!
//! # Bounds
//!
//! One `getsockopt` and one `sched_getcpu` per check; a check reads one view per shard. A
//! session moves at most once per [`SETTLE`] (200 ms) plus [`STRIKES`] checks.

use std::time::{Duration, Instant};

/// How often an answering session compares its client's CPU with its shard's.
pub const CHECK_EVERY: Duration = Duration::from_millis(2);

/// Answers a session gives between two checks, at least. A session following a busy client
/// gives these in well under [`CHECK_EVERY`]; one that answers rarely gains little from moving
/// and checks only every this many answers.
pub const CHECK_ANSWERS: u32 = 16;

/// Consecutive checks that must name the same other shard before the session moves.
pub const STRIKES: u32 = 4;

/// How long a session stays where it moved before it checks again.
pub const SETTLE: Duration = Duration::from_millis(200);

/// A CPU number as the kernel reports it; negative when unknown.
pub type Cpu = i32;

/// What a session knows of a shard when it checks: the CPU its thread was last seen on, and
/// how many sessions it runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ShardView {
    pub cpu: Cpu,
    pub sessions: usize,
}

/// The shard a session on shard `here` would follow its client (on `client`) to, if any:
/// another shard last seen on the client's CPU, with at most as many sessions as `here`.
/// Where several qualify, the one with the fewest sessions. The views come as an iterator
/// (read twice), so that a check needs no copy of them.
pub fn choose<I>(here: usize, client: Cpu, shards: I) -> Option<usize>
where
    I: Iterator<Item = ShardView> + Clone,
{
    let mine = shards.clone().nth(here);
    debug_assert!(mine.is_some(), "shard {here} is not among the views");
    let mine = mine?;
    if client < 0 || mine.cpu == client {
        return None;
    }
    shards
        .enumerate()
        .filter(|&(i, s)| i != here && s.cpu == client && s.sessions <= mine.sessions)
        .min_by_key(|&(_, s)| s.sessions)
        .map(|(i, _)| i)
}

/// One session's following state: when it may check next, and which shard the last checks
/// named.
#[derive(Debug)]
pub struct Follow {
    next_check: Option<Instant>,
    /// Answers since the last check.
    answers: u32,
    wanted: Option<usize>,
    strikes: u32,
}

impl Default for Follow {
    fn default() -> Self {
        Follow::new()
    }
}

impl Follow {
    /// A fresh session checks at its first answer.
    pub fn new() -> Follow {
        Follow {
            next_check: None,
            answers: 0,
            wanted: None,
            strikes: 0,
        }
    }

    /// Counts an answer given at `now` and says whether a check is due: at the first answer,
    /// then once both [`CHECK_ANSWERS`] answers and the time set by the last check have passed.
    pub fn due(&mut self, now: Instant) -> bool {
        self.answers = self.answers.saturating_add(1);
        match self.next_check {
            None => true,
            Some(t) => self.answers >= CHECK_ANSWERS && now >= t,
        }
    }

    /// Records the outcome of a check made at `now` (the shard [`choose`] named, or none) and
    /// says whether the session should move there.
    pub fn checked(&mut self, now: Instant, choice: Option<usize>) -> Option<usize> {
        self.next_check = Some(now + CHECK_EVERY);
        self.answers = 0;
        match choice {
            None => {
                self.wanted = None;
                self.strikes = 0;
                None
            }
            Some(t) if self.wanted == Some(t) => {
                self.strikes += 1;
                (self.strikes >= STRIKES).then_some(t)
            }
            Some(t) => {
                self.wanted = Some(t);
                self.strikes = 1;
                (STRIKES <= 1).then_some(t)
            }
        }
    }

    /// The session moved at `now`: it starts over, after [`SETTLE`].
    pub fn moved(&mut self, now: Instant) {
        *self = Follow {
            next_check: Some(now + SETTLE),
            answers: 0,
            wanted: None,
            strikes: 0,
        };
    }
}

/// The CPU the calling thread runs on now.
#[cfg(target_os = "linux")]
pub fn current_cpu() -> Cpu {
    // SAFETY: sched_getcpu takes no arguments and only reads the thread's CPU.
    unsafe { libc::sched_getcpu() }
}

#[cfg(not(target_os = "linux"))]
pub fn current_cpu() -> Cpu {
    -1
}

/// The CPUs this process may run on (its affinity mask at start), in increasing order; empty
/// when unknown.
pub fn allowed_cpus() -> Vec<usize> {
    crate::cpus::process_cpus().to_vec()
}

/// The CPU shard `shard` is bound to: the shards take the allowed CPUs in turn.
pub fn shard_cpu(shard: usize, allowed: &[usize]) -> Option<usize> {
    (!allowed.is_empty()).then(|| allowed[shard % allowed.len()])
}

/// Binds the calling thread to `cpu`.
pub fn pin_current_thread(cpu: usize) -> std::io::Result<()> {
    crate::cpus::bind_current_thread(cpu)
}

/// The CPU that received the socket's last packet (`SO_INCOMING_CPU`); -1 when unknown.
#[cfg(target_os = "linux")]
pub fn incoming_cpu(socket: &impl std::os::fd::AsRawFd) -> Cpu {
    let mut cpu: libc::c_int = -1;
    let mut len = std::mem::size_of::<libc::c_int>() as libc::socklen_t;
    // SAFETY: the option value is a c_int, and `cpu` and `len` describe exactly that buffer.
    let rc = unsafe {
        libc::getsockopt(
            socket.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_INCOMING_CPU,
            &mut cpu as *mut libc::c_int as *mut libc::c_void,
            &mut len,
        )
    };
    if rc == 0 {
        cpu
    } else {
        -1
    }
}

#[cfg(not(target_os = "linux"))]
pub fn incoming_cpu<T>(_socket: &T) -> Cpu {
    -1
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view(list: &[(Cpu, usize)]) -> Vec<ShardView> {
        list.iter()
            .map(|&(cpu, sessions)| ShardView { cpu, sessions })
            .collect()
    }

    fn pick(here: usize, client: Cpu, shards: &[ShardView]) -> Option<usize> {
        choose(here, client, shards.iter().copied())
    }

    #[test]
    fn follows_to_the_shard_on_the_clients_cpu() {
        let shards = view(&[(0, 2), (1, 2)]);
        assert_eq!(pick(0, 1, &shards), Some(1));
        assert_eq!(pick(1, 0, &shards), Some(0));
        assert_eq!(pick(0, 0, &shards), None, "already there");
        assert_eq!(pick(0, -1, &shards), None, "client CPU unknown");
        assert_eq!(pick(0, 3, &shards), None, "no shard on the client's CPU");
    }

    #[test]
    fn never_to_a_shard_with_more_sessions() {
        // Moving from 2 to 3 would make it 1 against 4.
        assert_eq!(pick(0, 1, &view(&[(0, 2), (1, 3)])), None);
        // Equal counts may move: they end at most two apart, and the reverse move evens them.
        assert_eq!(pick(0, 1, &view(&[(0, 3), (1, 3)])), Some(1));
        // Among several on that CPU, the emptiest.
        assert_eq!(pick(0, 1, &view(&[(0, 5), (1, 4), (1, 2)])), Some(2));
    }

    #[test]
    fn the_same_shard_must_be_named_strikes_times_in_a_row() {
        let t0 = Instant::now();
        let mut f = Follow::new();
        assert!(f.due(t0));
        let mut now = t0;
        for _ in 1..STRIKES {
            assert_eq!(f.checked(now, Some(1)), None);
            answer_until_due(&mut f, now);
            assert!(!f.due(now), "the next check waits CHECK_EVERY");
            now += CHECK_EVERY;
            assert!(f.due(now));
        }
        // Another answer (or none) in between starts the count again.
        assert_eq!(f.checked(now, Some(2)), None);
        assert_eq!(f.checked(now, None), None);
        for _ in 1..STRIKES {
            assert_eq!(f.checked(now, Some(1)), None);
        }
        assert_eq!(f.checked(now, Some(1)), Some(1));
        f.moved(now);
        answer_until_due(&mut f, now);
        assert!(!f.due(now + CHECK_EVERY));
        assert!(f.due(now + SETTLE));
        assert_eq!(
            f.checked(now + SETTLE, Some(0)),
            None,
            "counting starts over"
        );
    }

    /// Gives answers at `now` until the answer count alone would allow a check.
    fn answer_until_due(f: &mut Follow, now: Instant) {
        for _ in 1..CHECK_ANSWERS {
            f.due(now);
        }
    }

    #[test]
    fn a_session_that_answers_rarely_checks_every_check_answers_answers() {
        let t0 = Instant::now();
        let mut f = Follow::new();
        assert!(f.due(t0), "the first answer checks");
        assert_eq!(f.checked(t0, None), None);
        // Each answer long after the last: time alone would allow a check every time.
        let mut now = t0;
        let mut checks = 0;
        for _ in 0..10 * CHECK_ANSWERS {
            now += SETTLE;
            if f.due(now) {
                checks += 1;
                f.checked(now, None);
            }
        }
        assert_eq!(checks, 10);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn the_kernel_reports_the_cpus() {
        use std::io::Write;
        let cpus = std::thread::available_parallelism().map_or(1, |n| n.get()) as Cpu;
        let here = current_cpu();
        assert!((0..cpus.max(here + 1)).contains(&here), "{here}");
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let mut client = std::net::TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        let (server, _) = listener.accept().unwrap();
        client.write_all(b"x").unwrap();
        let mut buf = [0u8; 1];
        std::io::Read::read_exact(&mut &server, &mut buf).unwrap();
        // Over loopback, the CPU that sent it (the thread may have moved since: any CPU).
        let got = incoming_cpu(&server);
        assert!(got >= 0, "SO_INCOMING_CPU answered {got}");
    }

    #[test]
    fn shards_take_the_allowed_cpus_in_turn() {
        assert_eq!(shard_cpu(0, &[2, 5]), Some(2));
        assert_eq!(shard_cpu(1, &[2, 5]), Some(5));
        assert_eq!(shard_cpu(2, &[2, 5]), Some(2), "more shards than CPUs");
        assert_eq!(shard_cpu(0, &[]), None, "mask unknown: not pinned");
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_pinned_thread_runs_on_its_cpu_only() {
        let allowed = allowed_cpus();
        assert!(!allowed.is_empty());
        let cpu = *allowed.last().unwrap();
        let (mask, ran_on) = std::thread::spawn(move || {
            pin_current_thread(cpu).unwrap();
            (crate::cpus::thread_mask(), current_cpu())
        })
        .join()
        .unwrap();
        assert_eq!(mask, vec![cpu]);
        assert_eq!(ran_on, cpu as Cpu);
        assert!(pin_current_thread(libc::CPU_SETSIZE as usize).is_err());
        assert_eq!(
            crate::cpus::thread_mask(),
            allowed,
            "other threads keep their mask"
        );
    }
}
