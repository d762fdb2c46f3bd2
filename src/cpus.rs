//! The CPUs the process may run on, and binding threads to them.
//!
//! Shard threads are bound to one CPU each (see `client_affinity`). A thread's CPU count as the
//! standard library reports it (`available_parallelism`) follows the calling thread's affinity
//! mask, so asked from a shard it says 1, and a thread spawned there inherits the binding: the
//! helpers of a parallel index build would all share the shard's core. So the process's mask is
//! recorded once, before any thread is bound ([`process_cpus`], called by the server at start),
//! and helper threads spread themselves over it again ([`unbind_current_thread`]).
//!
//! This module imports nothing from the crate: storage and the SQL engine use it.
//!
//! # Invariants
//!
//! 1. The process's mask is read once (a `OnceLock`): every later answer is that first reading,
//!    whatever threads have been bound since. The server asks before it binds a shard
//!    (`client_affinity::allowed_cpus` in `server.rs`); a first call from a bound thread would
//!    record that thread's CPU alone.
//! 2. `bind` sets no affinity when a CPU is outside the kernel's set size (`CPU_SETSIZE`): it
//!    returns EINVAL before the system call.
//! 3. `unbind_current_thread` never narrows a thread's mask: it binds to the recorded process
//!    mask, or leaves the thread alone when that is unknown (empty).
//!
//! # Concurrency and bounds
//!
//! No locks; the mask is initialised once, by whichever thread asks first, and read-only after.
//! At most `CPU_SETSIZE` (1024 on Linux) CPUs are seen. Outside Linux the mask is unknown,
//! binding does nothing and [`count`] falls back to `available_parallelism`.

use std::sync::OnceLock;

static PROCESS: OnceLock<Vec<usize>> = OnceLock::new();

/// The CPUs the process may use, in increasing order, as the mask was at the first call (the
/// server makes it before binding its shards); empty when unknown.
pub fn process_cpus() -> &'static [usize] {
    PROCESS.get_or_init(thread_mask)
}

/// How many threads can run at once: the process's CPUs (at least 1).
pub fn count() -> usize {
    match process_cpus().len() {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
        n => n,
    }
}

/// The calling thread's affinity mask, in increasing order; empty when unknown.
#[cfg(target_os = "linux")]
pub fn thread_mask() -> Vec<usize> {
    // SAFETY: cpu_set_t is plain bits; zeroed is the empty set.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    // SAFETY: the size passed is the size of `set`, which the kernel fills.
    let rc =
        unsafe { libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) };
    if rc != 0 {
        return Vec::new();
    }
    (0..libc::CPU_SETSIZE as usize)
        // SAFETY: `cpu` is below CPU_SETSIZE, the number of bits in `set`.
        .filter(|&cpu| unsafe { libc::CPU_ISSET(cpu, &set) })
        .collect()
}

#[cfg(not(target_os = "linux"))]
pub fn thread_mask() -> Vec<usize> {
    Vec::new()
}

/// Binds the calling thread to the CPUs in `cpus`.
#[cfg(target_os = "linux")]
fn bind(cpus: &[usize]) -> std::io::Result<()> {
    // SAFETY: cpu_set_t is plain bits; zeroed is the empty set.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    for &cpu in cpus {
        if cpu >= libc::CPU_SETSIZE as usize {
            return Err(std::io::Error::from_raw_os_error(libc::EINVAL));
        }
        // SAFETY: `cpu` is below CPU_SETSIZE (checked above), and CPU_SET checks nothing itself.
        unsafe { libc::CPU_SET(cpu, &mut set) };
    }
    // SAFETY: the size passed is the size of `set`; thread 0 is the calling thread.
    let rc = unsafe { libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) };
    if rc == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

#[cfg(not(target_os = "linux"))]
fn bind(_cpus: &[usize]) -> std::io::Result<()> {
    Ok(())
}

/// Binds the calling thread to `cpu`.
pub fn bind_current_thread(cpu: usize) -> std::io::Result<()> {
    bind(&[cpu])
}

/// Lets the calling thread run on every CPU of the process again (a helper spawned by a bound
/// shard thread). Where the kernel refuses, the thread stays where it was: slower, not wrong.
pub fn unbind_current_thread() {
    let all = process_cpus();
    if !all.is_empty() {
        let _ = bind(all);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_helper_of_a_bound_thread_gets_every_cpu_back() {
        let all = process_cpus().to_vec();
        if all.len() < 2 {
            return; // nothing to spread over on this machine
        }
        std::thread::spawn(move || {
            bind_current_thread(all[0]).expect("bind");
            assert_eq!(thread_mask(), vec![all[0]]);
            // As a parallel build's helper: spawned by the bound thread, it inherits the mask.
            let helper = std::thread::spawn(|| {
                unbind_current_thread();
                thread_mask()
            });
            assert_eq!(helper.join().expect("helper"), all);
            assert_eq!(count(), all.len());
        })
        .join()
        .expect("bound thread");
    }
}
