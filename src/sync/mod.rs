//! The synchronization facade.
//!
//! Concurrent code that other sessions can observe in the middle of an operation (the
//! notification hub's sequence, ring and inboxes) takes its atomics, mutexes and `Arc` from here
//! instead of `std`. In a normal build these are `std`'s (with `parking_lot`-style non-poisoning
//! mutexes); built with `--features shuttle`, they are shuttle's model-checked versions, so the
//! tests in `notify::model` explore thread interleavings of the real code, not of a copy.

#[cfg(not(feature = "shuttle"))]
mod imp {
    pub use std::sync::atomic::{
        AtomicBool, AtomicI64, AtomicU32, AtomicU64, AtomicUsize, Ordering,
    };
    pub use std::sync::Arc;

    pub type MutexGuard<'a, T> = parking_lot::MutexGuard<'a, T>;

    /// A mutex that does not poison: a panicking session must not wedge the others.
    #[derive(Default, Debug)]
    pub struct Mutex<T>(parking_lot::Mutex<T>);

    impl<T> Mutex<T> {
        pub fn new(v: T) -> Self {
            Mutex(parking_lot::Mutex::new(v))
        }
        pub fn lock(&self) -> MutexGuard<'_, T> {
            self.0.lock()
        }
    }

    pub fn yield_now() {
        std::thread::yield_now()
    }
}

#[cfg(feature = "shuttle")]
mod imp {
    pub use shuttle::sync::atomic::{
        AtomicBool, AtomicI64, AtomicU32, AtomicU64, AtomicUsize, Ordering,
    };
    pub use shuttle::sync::Arc;

    pub type MutexGuard<'a, T> = shuttle::sync::MutexGuard<'a, T>;

    #[derive(Default, Debug)]
    pub struct Mutex<T>(shuttle::sync::Mutex<T>);

    impl<T> Mutex<T> {
        pub fn new(v: T) -> Self {
            Mutex(shuttle::sync::Mutex::new(v))
        }
        pub fn lock(&self) -> MutexGuard<'_, T> {
            // A panic under the model checker is a test failure anyway.
            self.0.lock().unwrap_or_else(|e| e.into_inner())
        }
    }

    pub fn yield_now() {
        shuttle::thread::yield_now()
    }
}

pub use imp::*;

/// Runs a model test on the real code under shuttle's random and PCT (depth 3) schedulers,
/// `iterations` schedules each; a schedule that takes more than `max_steps` steps fails (a
/// livelock). The model tests of every concurrent module run through this.
#[cfg(all(test, feature = "shuttle"))]
pub fn model_run(max_steps: usize, iterations: usize, f: impl Fn() + Send + Sync + 'static) {
    use shuttle::scheduler::{PctScheduler, RandomScheduler};
    use shuttle::{Config, MaxSteps, Runner};
    let config = || {
        let mut c = Config::new();
        c.max_steps = MaxSteps::FailAfter(max_steps);
        c
    };
    let f = std::sync::Arc::new(f);
    let g = f.clone();
    Runner::new(RandomScheduler::new(iterations), config()).run(move || g());
    Runner::new(PctScheduler::new(3, iterations), config()).run(move || f());
}
