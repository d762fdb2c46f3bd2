//! The in-process integration tests, in one test binary: each binary links the whole server
//! (with thin LTO in the release profile), so one binary instead of five saves CI minutes.
//! `client_affinity.rs` keeps a binary of its own: it pins threads by name, which every
//! in-process server of a binary shares.
//!
//! Run one group with `cargo test --release --test integration layering::`.

#[path = "../common/mod.rs"]
mod common;

mod layering;
mod notify_stress;
mod protocol;
mod shard_watchdog;
mod tls;
