//! Read-ahead: after answering, a session tries its socket once before it goes back to waiting.
//!
//! tokio reads a socket only when its epoll driver has reported it readable, and it forgets
//! the readiness after a read that returned less than the buffer could hold (the socket is
//! probably drained; that saves a read that would fail). So after every short statement the
//! session's next read waits for the driver: the task returns to the shard's scheduler, which
//! calls `epoll_wait`, finds the socket readable, and polls the task again.
//!
//! With a client on the same core (see `client_affinity`) the next statement is almost always
//! there already. Writing the answer wakes the client, which preempts the shard, reads the
//! answer, sends its next statement and sleeps in `poll`; only then does the shard go on. For
//! that client the round through the scheduler and `epoll_wait` is pure overhead, paid on
//! every statement. So after writing an answer the session reads the socket directly, without
//! waiting (`recv` with `MSG_DONTWAIT`). When something came, it handles it at once; when
//! nothing did, it waits as before.
//!
//! A read that finds nothing costs a system call. A client across a network, or one that
//! thinks between statements, would pay it on every statement, so misses back off: after a
//! miss the session skips the next 1, 2, 4, ... up to [`MOST_SKIPPED`] chances, and a hit
//! starts over. Such a client pays one failed read per [`MOST_SKIPPED`] statements.
//!
//! A session that keeps finding input would never return to its scheduler (its write
//! completes at once too), so it would starve the other sessions of its shard and never see
//! its own wake-ups. So at most [`MOST_IN_A_ROW`] reads ahead follow one another; then the
//! session waits through the driver once, which yields the shard.

/// Most consecutive answers after which a read ahead is skipped following misses.
pub const MOST_SKIPPED: u32 = 64;

/// Most reads ahead in a row before the session waits through its scheduler once.
pub const MOST_IN_A_ROW: u32 = 32;

/// When to read ahead: the back-off after misses and the run length.
#[derive(Debug, Default)]
pub struct ReadAhead {
    /// Chances still to skip after the last miss.
    skip: u32,
    /// What the next miss makes the session skip.
    backoff: u32,
    /// Reads ahead since the session last waited through its scheduler.
    in_a_row: u32,
}

impl ReadAhead {
    /// Whether to read ahead now; a `false` means the session waits through the scheduler.
    pub fn due(&mut self) -> bool {
        if self.in_a_row >= MOST_IN_A_ROW {
            self.in_a_row = 0;
            return false;
        }
        if self.skip > 0 {
            self.skip -= 1;
            self.in_a_row = 0;
            return false;
        }
        true
    }

    /// The read ahead found input.
    pub fn hit(&mut self) {
        self.backoff = 0;
        self.in_a_row += 1;
    }

    /// The read ahead found nothing.
    pub fn miss(&mut self) {
        self.backoff = (self.backoff * 2).clamp(1, MOST_SKIPPED);
        self.skip = self.backoff;
        self.in_a_row = 0;
    }
}

/// What a read without waiting found.
#[derive(Debug, PartialEq, Eq)]
pub enum Got {
    /// This many bytes, appended to the buffer.
    Data(usize),
    /// Nothing yet.
    Nothing,
    /// The client closed the connection, or the socket failed.
    Closed,
}

/// Reads what the socket holds into `buf`'s spare capacity without waiting.
///
/// Written against the file descriptor because tokio's own `try_read` does not call the
/// kernel while its driver has not reported the socket readable, which is the very case here.
/// Bypassing tokio's readiness is safe: a read that tokio later thinks possible and that finds
/// nothing returns `WouldBlock`, which the session already treats as stale readiness.
#[cfg(unix)]
pub fn read_now(socket: &impl std::os::fd::AsRawFd, buf: &mut bytes::BytesMut) -> Got {
    let spare = buf.spare_capacity_mut();
    if spare.is_empty() {
        return Got::Nothing;
    }
    // SAFETY: `spare` is writable memory of `spare.len()` bytes owned by `buf`; the kernel
    // writes at most that many.
    let n = unsafe {
        libc::recv(
            socket.as_raw_fd(),
            spare.as_mut_ptr().cast(),
            spare.len(),
            libc::MSG_DONTWAIT,
        )
    };
    match n {
        0 => Got::Closed,
        n if n > 0 => {
            let n = n as usize;
            // SAFETY: the kernel initialized the first `n` bytes of the spare capacity.
            unsafe { buf.set_len(buf.len() + n) };
            Got::Data(n)
        }
        _ => match std::io::Error::last_os_error().kind() {
            std::io::ErrorKind::WouldBlock | std::io::ErrorKind::Interrupted => Got::Nothing,
            _ => Got::Closed,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn misses_back_off_and_a_hit_starts_over() {
        let mut r = ReadAhead::default();
        assert!(r.due());
        r.miss();
        assert!(!r.due(), "one chance skipped after the first miss");
        assert!(r.due());
        r.miss();
        assert!(!r.due() && !r.due(), "two after the second");
        assert!(r.due());
        for _ in 0..10 {
            r.miss();
            while !r.due() {}
        }
        r.miss();
        let mut skipped = 0;
        while !r.due() {
            skipped += 1;
        }
        assert_eq!(skipped, MOST_SKIPPED, "the back-off is bounded");
        r.hit();
        r.miss();
        assert!(!r.due());
        assert!(r.due(), "a hit starts the back-off over");
    }

    #[test]
    fn a_run_of_hits_is_bounded() {
        let mut r = ReadAhead::default();
        for _ in 0..MOST_IN_A_ROW {
            assert!(r.due());
            r.hit();
        }
        assert!(!r.due(), "waits through the scheduler once");
        assert!(r.due());
    }

    #[test]
    fn reads_what_is_there_without_waiting() {
        use std::io::Write;
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let mut client = std::net::TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        let (server, _) = listener.accept().unwrap();
        let mut buf = bytes::BytesMut::with_capacity(64);
        assert_eq!(read_now(&server, &mut buf), Got::Nothing);
        client.write_all(b"hello").unwrap();
        // Loopback delivers before write returns.
        assert_eq!(read_now(&server, &mut buf), Got::Data(5));
        assert_eq!(&buf[..], b"hello");
        let mut full = bytes::BytesMut::new();
        assert_eq!(
            read_now(&server, &mut full),
            Got::Nothing,
            "no room: no read"
        );
        drop(client);
        assert_eq!(read_now(&server, &mut buf), Got::Closed);
    }
}
