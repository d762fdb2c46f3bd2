//! Authentication failures rate-limited per client address.
//!
//! PostgreSQL has this as an extension (auth_delay: a sleep after each failed attempt). Here
//! the delay comes before the next attempt instead, and attempts from one address take turns:
//! after [`FREE_FAILURES`] password failures from an address within [`WINDOW`], each new
//! password attempt from it waits for its own turn, [`SPACING`] after the previous turn or the
//! last failure (doubling with every further failure, up to 8 s), before the server asks for
//! the password. So one address gets about one guess per turn however many connections it
//! opens, and other addresses are not slowed at all. The wait is a timer (`tokio::time::sleep`
//! in the session's task), never a blocked thread; a turn further away than
//! authentication_timeout is not waited for: the connection is closed at once without a
//! message, as the timeout would close it. What the client sees is otherwise PostgreSQL's: the
//! same messages, only later. Only password methods (scram-sha-256, md5, password) are
//! limited; a failure is a wrong password (28P01), and the count forgets failures older than
//! [`WINDOW`]. A success changes nothing (one valid account must not reset the count for
//! guesses at another).
//!
//! IPv6 clients are counted by their /64 network (one host can use a whole /64). The table is
//! bounded at [`MAX_ENTRIES`] addresses: when it is full, entries idle for a window are
//! dropped, and if none are, failures of new addresses are counted together in one shared
//! entry, so a flood of addresses slows itself down rather than growing the table.

use std::collections::HashMap;
use std::net::IpAddr;
use std::time::{Duration, Instant};

use parking_lot::Mutex;

/// Failures from one address within [`WINDOW`] before attempts are spaced out.
pub const FREE_FAILURES: u32 = 5;
/// How long a failure counts.
pub const WINDOW: Duration = Duration::from_secs(60);
/// The spacing of attempts once limited (doubled for each failure beyond the free ones,
/// at most 8 times this).
pub const SPACING: Duration = Duration::from_secs(1);
/// Bound on tracked addresses.
pub const MAX_ENTRIES: usize = 16_384;

/// The shared entry for addresses that found the table full.
const OVERFLOW: u128 = u128::MAX;

#[derive(Clone, Copy)]
struct Entry {
    failures: u32,
    last_failure: Instant,
    /// The earliest time the next attempt may go ahead.
    next_turn: Instant,
}

#[derive(Default)]
pub struct AuthLimiter {
    table: Mutex<HashMap<u128, Entry>>,
}

/// An IPv4 address as itself (in the IPv4-mapped range), an IPv6 one by its /64.
fn key(ip: IpAddr) -> u128 {
    match ip {
        IpAddr::V4(v4) => u128::from(v4.to_ipv6_mapped()),
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => u128::from(v4.to_ipv6_mapped()),
            None => u128::from(v6) & !((1u128 << 64) - 1),
        },
    }
}

impl AuthLimiter {
    /// How long an attempt from `ip` starting at `now` must wait for its turn (zero when the
    /// address is not limited). Taking the turn moves the next one on.
    pub fn turn(&self, ip: IpAddr, now: Instant) -> Duration {
        let mut table = self.table.lock();
        let k = key(ip);
        let k = if table.contains_key(&k) { k } else { OVERFLOW };
        let Some(e) = table.get_mut(&k) else {
            return Duration::ZERO;
        };
        if e.failures < FREE_FAILURES || now.duration_since(e.last_failure) > WINDOW {
            return Duration::ZERO;
        }
        let spacing = SPACING * (1u32 << (e.failures - FREE_FAILURES).min(3));
        let turn = now.max(e.next_turn).max(e.last_failure + spacing);
        e.next_turn = turn + spacing;
        turn - now
    }

    /// Records a failed password attempt from `ip`.
    pub fn failed(&self, ip: IpAddr, now: Instant) {
        let mut table = self.table.lock();
        let mut k = key(ip);
        if !table.contains_key(&k) && table.len() >= MAX_ENTRIES {
            table.retain(|_, e| now.duration_since(e.last_failure) <= WINDOW);
            if table.len() >= MAX_ENTRIES {
                k = OVERFLOW;
            }
        }
        let e = table.entry(k).or_insert(Entry {
            failures: 0,
            last_failure: now,
            next_turn: now,
        });
        if now.duration_since(e.last_failure) > WINDOW {
            e.failures = 0;
        }
        e.failures = e.failures.saturating_add(1);
        e.last_failure = now;
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.table.lock().len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn turns_are_spaced_after_the_free_failures_and_other_addresses_go_on() {
        let l = AuthLimiter::default();
        let t0 = Instant::now();
        let a = ip("10.0.0.1");
        for i in 0..FREE_FAILURES {
            assert_eq!(l.turn(a, t0), Duration::ZERO, "attempt {i}");
            l.failed(a, t0);
        }
        // the sixth attempt waits one spacing after the last failure; parallel ones queue
        assert_eq!(l.turn(a, t0), SPACING);
        assert_eq!(l.turn(a, t0), 2 * SPACING);
        assert_eq!(l.turn(ip("10.0.0.2"), t0), Duration::ZERO);
        assert_eq!(
            l.turn(ip("::ffff:10.0.0.1"), t0),
            3 * SPACING,
            "same address"
        );
        // failures beyond the free ones double the spacing
        l.failed(a, t0);
        let later = t0 + 10 * SPACING;
        assert_eq!(l.turn(a, later), Duration::ZERO);
        assert_eq!(l.turn(a, later), 2 * SPACING);
        // forgotten after the window
        assert_eq!(l.turn(a, t0 + WINDOW + SPACING), Duration::ZERO);
    }

    #[test]
    fn ipv6_counts_by_network_and_the_table_is_bounded() {
        let l = AuthLimiter::default();
        let t0 = Instant::now();
        for _ in 0..FREE_FAILURES {
            l.failed(ip("2001:db8::1"), t0);
        }
        assert!(l.turn(ip("2001:db8::ffff"), t0) > Duration::ZERO);
        assert_eq!(l.turn(ip("2001:db8:0:1::1"), t0), Duration::ZERO);
        for i in 0..(MAX_ENTRIES as u32 + 100) {
            l.failed(IpAddr::from(std::net::Ipv4Addr::from(0x0b00_0000 + i)), t0);
        }
        assert!(l.len() <= MAX_ENTRIES + 1);
        // the shared entry took the overflow's failures: new addresses are limited together
        assert!(l.turn(ip("12.0.0.1"), t0) > Duration::ZERO);
        // after a window the table makes room again
        let later = t0 + WINDOW + SPACING;
        l.failed(ip("12.0.0.2"), later);
        assert!(l.len() <= 2, "{}", l.len());
    }
}
