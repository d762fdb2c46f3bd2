//! Row storage: multi-versioned rows in memory and ordered indexes over them.
//!
//! # What is stored, and what this layer does not know
//!
//! A table is a [`Heap`] of row versions and any number of [`Index`]es. This layer knows rows
//! only as a type parameter `R` and keys as an ordered type `K`: the SQL layer decides what a row
//! and a key are (values, column types, collations); storage decides where versions live, which
//! of them a [`crate::txn::Snapshot`] sees, and when they can be reclaimed. It knows no SQL.
//!
//! # Versions (PostgreSQL's heap, in memory)
//!
//! Every INSERT writes a version stamped with its writer's transaction cell (`xmin`) and command
//! id; DELETE stamps `xmax`; UPDATE stamps `xmax` and writes a new version in another slot,
//! linked from the old one. Visibility is PostgreSQL's rule with commit sequence numbers in place
//! of snapshots' transaction lists: a version is visible when its writer committed below the
//! snapshot (or is the reader's own earlier command) and its deleter did not.
//!
//! An update that changes no indexed column is *HOT*: the new version is reached from the index
//! entries of the chain's root and no index is touched (PostgreSQL's heap-only tuples, without
//! the same-page condition since there are no pages).
//!
//! # Invariants
//!
//! 1. A slot's `RowId` never changes meaning while any snapshot that could have seen its old
//!    content is in use: freed slots are reused only once the vacuum horizon passed their
//!    release (see [`Heap::vacuum`]).
//! 2. A version's `xmax` is set only by a transaction that saw the version created and found no
//!    other live changer (`Change::Wait` otherwise): two transactions never both delete or
//!    update one version. This is the row lock of PostgreSQL's heap; shared row locks (KEY
//!    SHARE, SHARE) are kept beside it in a short list per version (`lock.rs`).
//! 3. An index entry points at a chain root; every version of a HOT chain has the same key in
//!    every index. A lookup visits the chain and re-checks the key of the version it returns.
//! 4. Nothing here waits: a conflict is returned as `Change::Wait(cell)`, and the session awaits
//!    that transaction's end (`TxnCell::wait_end`) without holding any lock of this module.
//!
//! # Lock order
//!
//! One slot mutex at a time; a unique index's key lock may be held while slot mutexes are taken
//! one by one, never the other way round. No lock is held across a wait.
//!
//! # Bounds
//!
//! A heap holds at most 2^32 slots per table in practice (boxcar's bucket layout); the memory of
//! all tables is bounded by the instance's memory limit, checked by the layer above before it
//! writes. A version chain is walked at most 1,000,000 links (it cannot be longer than the
//! updates of a row since the last vacuum).

mod heap;
mod index;
mod lock;

pub use heap::{Change, Header, Heap, Probe, VacuumStats};
pub use index::{Entry, Index, STRIPES};
pub use lock::LockMode;

/// A slot in a heap: stable for the life of the version stored there.
pub type RowId = u64;

#[cfg(all(test, feature = "shuttle"))]
mod lock_model;
#[cfg(all(test, not(feature = "shuttle")))]
mod lock_tests;
#[cfg(all(test, not(feature = "shuttle")))]
mod tests;
