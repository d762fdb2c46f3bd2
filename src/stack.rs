//! The stack-depth guard: recursion whose depth a client controls ends in an error, never in a
//! crash of the process.
//!
//! One process serves every session, so a stack overflow on any thread (which Rust cannot catch:
//! the guard page's SIGSEGV aborts the process) would drop every session. Every recursive path
//! over client input (decoding and analysing parse trees, view expansion, planning, expression
//! evaluation, the executor's operator tree, the deparser, the text and binary forms of nested
//! values, JSON, jsonpath, regular expressions) calls [`check`] once per level, as PostgreSQL's
//! code calls `check_stack_depth()`.
//!
//! # Design
//!
//! A check compares the current stack pointer with two bounds, both kept per thread:
//!
//! 1. **The statement's budget** (`max_stack_depth`, PostgreSQL's setting, default 2MB): the
//!    session records where the handling of a client message began ([`enter`]) and the budget
//!    it may use below that point. threadgres's frames are larger than PostgreSQL's C frames
//!    for the same work (a parse node is decoded from protobuf, then analysed into a second
//!    tree; measured in docs/reliability.md), so the budget is `max_stack_depth ×`
//!    [`FRAME_RATIO`] bytes of this thread's stack: at the default, the same inputs pass as in
//!    PostgreSQL, and `SET max_stack_depth = '100kB'` cuts recursion about 20× shallower, as
//!    there.
//! 2. **The thread's own stack**: whatever the budget, a check fails once less than [`SLOP`]
//!    bytes are left above the thread's guard page. This covers threads that run no session
//!    (COPY's conversion helpers, index builders) and code that recurses before a session has
//!    entered.
//!
//! Shard threads get [`SHARD_STACK_BYTES`] of stack (virtual memory: pages are committed only
//! when a deep statement touches them): twice what the largest `max_stack_depth` allowed
//! ([`max_setting_kb`]) lets a statement use, plus the slop. The second half is for the walkers
//! that do not check: code that only reads a tree a checked recursion has built (the EXPLAIN
//! and rule printers, comparisons and copies of nested values, the planner's tree rewrites)
//! recurses as deep as that builder did, with frames no larger, so it finds at least as much
//! stack left below the budget as the builder used above it.
//!
//! # Invariants
//!
//! 1. `check` never fails on a thread with more than `SLOP` bytes left while no [`Entry`] is
//!    alive, and never lets a thread get nearer than `SLOP` to its guard page at a check.
//! 2. Entries nest: only the outermost sets the base, and the base is restored when an entry
//!    is dropped, so a statement run from inside another (a nested SQL call) shares the
//!    outer statement's budget.
//! 3. Between two checks, a path uses less than `SLOP` bytes of stack: recursive code checks
//!    at every level, and no single frame is that large.
//! 4. On a shard thread, the budget never exceeds half of the stack: a tree built by checked
//!    recursion can be walked once more, unchecked, to the same depth.
//!
//! # Bounds
//!
//! The budget is at most `max_setting_kb()` kB × `FRAME_RATIO`; the setting is refused above
//! that (22023, as PostgreSQL refuses a value above the platform's limit).

use std::cell::Cell;

use crate::error::{code, PgError, PgResult};

/// Stack of each shard thread (and of the threads its runtime starts to run blocking work).
pub const SHARD_STACK_BYTES: usize = 256 << 20;

/// Room a check always keeps below it: what code between two checks may use (PostgreSQL's
/// STACK_DEPTH_SLOP has the same value), including the C parser's own 512 kB slop.
pub const SLOP: usize = 1 << 20;

/// How many bytes of threadgres's stack one byte of `max_stack_depth` allows (see the module
/// header).
pub const FRAME_RATIO: usize = 16;

/// max_stack_depth's default, in kB (PostgreSQL's).
pub const DEFAULT_KB: usize = 2048;

/// The largest max_stack_depth a session may set, in kB: PostgreSQL's limit under the usual
/// 8 MB `ulimit -s` (8 MB less its 512 kB slop), which a shard thread's stack holds.
pub const fn max_setting_kb() -> usize {
    7680
}

// Invariant 4: the largest budget, twice, and the slop fit in a shard's stack.
const _: () = assert!(2 * max_setting_kb() * 1024 * FRAME_RATIO + 2 * SLOP <= SHARD_STACK_BYTES);

thread_local! {
    /// The lowest stack address a check lets this thread reach: the larger of the current
    /// entry's `base - budget` and the thread's own bound (0: not computed yet). One
    /// thread-local read per check.
    static LIMIT: Cell<usize> = const { Cell::new(0) };
    /// Where the outermost entry began (0: none).
    static BASE: Cell<usize> = const { Cell::new(0) };
    /// max_stack_depth of the current entry, in kB, for the error's hint.
    static SETTING_KB: Cell<usize> = const { Cell::new(DEFAULT_KB) };
    /// [`thread_bound`], looked up once per thread (0: not yet).
    static BOUND: Cell<usize> = const { Cell::new(0) };
}

/// An address in the current frame: the stack grows down on every platform threadgres builds
/// for, so a smaller address is deeper.
#[inline(always)]
fn stack_pointer() -> usize {
    let marker = 0u8;
    std::hint::black_box(&marker) as *const u8 as usize
}

/// The lowest address this thread's stack may reach at a check: SLOP above its guard page (1
/// where the stack cannot be told: the thread bound then never fails).
fn thread_bound() -> usize {
    let b = BOUND.with(Cell::get);
    if b != 0 {
        return b;
    }
    let b = lookup_thread_bound();
    BOUND.with(|c| c.set(b));
    b
}

#[cold]
fn lookup_thread_bound() -> usize {
    #[cfg(target_os = "linux")]
    // SAFETY: pthread_getattr_np fills `attr` for the calling thread, which is destroyed
    // after the reads; the out-pointers are valid locals.
    unsafe {
        let mut attr: libc::pthread_attr_t = std::mem::zeroed();
        if libc::pthread_getattr_np(libc::pthread_self(), &mut attr) == 0 {
            let mut addr: *mut libc::c_void = std::ptr::null_mut();
            let mut size: libc::size_t = 0;
            let mut guard: libc::size_t = 0;
            let ok = libc::pthread_attr_getstack(&attr, &mut addr, &mut size) == 0;
            libc::pthread_attr_getguardsize(&attr, &mut guard);
            libc::pthread_attr_destroy(&mut attr);
            if ok && !addr.is_null() {
                return addr as usize + guard + SLOP;
            }
        }
    }
    1
}

/// This thread's limit, computed on first use.
#[inline]
fn limit() -> usize {
    let l = LIMIT.with(Cell::get);
    if l != 0 {
        return l;
    }
    init_limit()
}

#[cold]
fn init_limit() -> usize {
    let l = thread_bound();
    LIMIT.with(|c| c.set(l));
    l
}

/// The bytes of stack the current thread has above its slop, whatever the statement's budget
/// (usize::MAX when its stack cannot be told): for code whose depth is bounded by other means
/// and that only must not overflow the thread.
pub fn thread_remaining() -> usize {
    let b = thread_bound();
    if b == 1 {
        return usize::MAX;
    }
    stack_pointer().saturating_sub(b)
}

/// PostgreSQL's error when the stack depth limit is reached.
#[cold]
pub fn too_deep() -> PgError {
    let kb = SETTING_KB.with(Cell::get);
    PgError::new(code::STATEMENT_TOO_COMPLEX, "stack depth limit exceeded").with_hint(format!(
        "Increase the configuration parameter \"max_stack_depth\" (currently {kb}kB), after \
         ensuring the platform's stack depth limit is adequate."
    ))
}

/// Fails with 54001 when the current statement has used its stack budget, or the thread is
/// near the end of its stack. Called once per level of every recursion over client input.
#[inline]
pub fn check() -> PgResult<()> {
    if exceeded() {
        return Err(too_deep());
    }
    Ok(())
}

/// Whether a [`check`] here would fail (for paths that report the error their own way).
#[inline]
pub fn exceeded() -> bool {
    stack_pointer() < limit()
}

/// While alive, [`check`] measures from here (or from the outer entry's base, when one is
/// alive on this thread) against a budget of `max_stack_depth_kb`.
pub struct Entry {
    outer: (usize, usize, usize),
}

/// Starts the handling of one client message (or the resumption of a statement) with the
/// session's max_stack_depth.
pub fn enter(max_stack_depth_kb: usize) -> Entry {
    let outer = (
        LIMIT.with(Cell::get),
        BASE.with(Cell::get),
        SETTING_KB.with(Cell::get),
    );
    let base = if outer.1 == 0 {
        let sp = stack_pointer();
        BASE.with(|b| b.set(sp));
        sp
    } else {
        outer.1
    };
    let budget = max_stack_depth_kb.saturating_mul(1024 * FRAME_RATIO);
    let bound = thread_bound();
    LIMIT.with(|l| l.set(base.saturating_sub(budget).max(bound).max(1)));
    SETTING_KB.with(|s| s.set(max_stack_depth_kb));
    Entry { outer }
}

impl Drop for Entry {
    fn drop(&mut self) {
        let (limit, base, kb) = self.outer;
        LIMIT.with(|l| l.set(limit));
        BASE.with(|b| b.set(base));
        SETTING_KB.with(|s| s.set(kb));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Recurses with frames of a few hundred bytes (as analysis code has) until a check
    /// fails; returns how far below its first frame it got.
    fn descend(top: usize) -> usize {
        if exceeded() {
            return top - stack_pointer();
        }
        let pad = std::hint::black_box([0u8; 256]);
        descend(top) + pad[0] as usize
    }

    fn on_thread<T: Send + 'static>(stack: usize, f: impl FnOnce() -> T + Send + 'static) -> T {
        std::thread::Builder::new()
            .stack_size(stack)
            .spawn(f)
            .unwrap()
            .join()
            .unwrap()
    }

    #[test]
    fn without_an_entry_the_thread_stack_bounds_recursion() {
        // 4 MiB of stack, no entry: the check fails SLOP above the guard page, and the
        // thread survives to report it.
        let (used, err) = on_thread(4 << 20, || (descend(stack_pointer()), check().is_ok()));
        assert!(
            used > (4 << 20) - 2 * SLOP && used < (4 << 20) - SLOP,
            "{used}"
        );
        assert!(err, "the check passes again once the recursion unwound");
    }

    #[test]
    fn the_setting_bounds_a_statement() {
        for kb in [100, 2048, max_setting_kb()] {
            let used = on_thread(SHARD_STACK_BYTES, move || {
                let _e = enter(kb);
                let e = {
                    let used = descend(stack_pointer());
                    (used, too_deep())
                };
                (e.0, e.1.hint.clone().unwrap())
            });
            let budget = kb * 1024 * FRAME_RATIO;
            assert!(used.0.abs_diff(budget) < 8192, "{kb}: {}", used.0);
            assert!(used.1.contains(&format!("currently {kb}kB")), "{}", used.1);
        }
    }

    #[test]
    fn entries_nest_and_restore() {
        on_thread(SHARD_STACK_BYTES, || {
            let before = limit();
            {
                let _a = enter(100);
                let base = BASE.with(Cell::get);
                let a_limit = limit();
                {
                    let _b = enter(200);
                    assert_eq!(BASE.with(Cell::get), base, "the outer entry's base stays");
                    assert_eq!(SETTING_KB.with(Cell::get), 200);
                    assert_eq!(limit(), base - 200 * 1024 * FRAME_RATIO);
                }
                assert_eq!(SETTING_KB.with(Cell::get), 100);
                assert_eq!(limit(), a_limit);
            }
            assert_eq!(BASE.with(Cell::get), 0);
            assert_eq!(limit(), before);
            assert!(check().is_ok());
        });
    }
}
