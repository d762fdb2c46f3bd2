//! The runtime: the threads sessions run on, and what runs beside them.
//!
//! Design: sessions are tasks on *shards*, one single-worker tokio runtime per core
//! (`shards.rs`; why shards rather than one work-stealing runtime: `server.rs`). The listener
//! (`server.rs`) builds the shards, accepts connections and places each on the shard with the
//! fewest sessions; a session may later follow its client to the shard on the client's CPU
//! (`client_affinity.rs`). Each shard keeps polling for a moment after activity instead of
//! sleeping (`idle_spin.rs`) and asks the kernel for the CPU weight of the sessions it runs
//! (`shard_weight.rs`). Beside the sessions, one thread vacuums the tables and the catalog
//! (`autovacuum.rs`).
//!
//! Layers (docs/architecture.md, tests/integration/layering.rs): the files are two layers, not one. The
//! shards and their helpers (`shards`, `client_affinity`, `idle_spin`, `shard_weight`) sit
//! just above the foundation, so the instance and the sessions may use them; `server` and
//! `autovacuum` start sessions and vacuum tables, so they sit on top of everything.
//!
//! Invariants, lock order and bounds are each file's: `shards.rs` (a shard's session count),
//! `client_affinity.rs` (when a session may move), `idle_spin.rs` (spinning only where it
//! takes no core from anyone), `autovacuum.rs` (never below the oldest snapshot in use).

pub mod autovacuum;
pub mod client_affinity;
pub mod idle_spin;
pub mod server;
pub mod shard_weight;
pub mod shards;
