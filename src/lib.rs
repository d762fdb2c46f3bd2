//! threadgres: a PostgreSQL-compatible server that runs every session as a lightweight task.
//!
//! The modules follow the data path of a query (see `docs/architecture.md`):
//!
//! ```text
//!   runtime (accept) → session (one task per connection) → wire (protocol bytes)
//!                        │
//!                        ├→ sql (parser → analyze/plan → exec, types)
//!                        │     └→ txn (commit order, snapshots, waits) + storage (versions, indexes)
//!                        └→ notify (LISTEN/NOTIFY hub)        instance: everything shared
//! ```

pub mod catalog;
pub mod config;
pub mod cpus;
pub mod durable;
pub mod encoding;
pub mod error;
pub mod hba;
pub mod instance;
pub mod memory;
pub mod notify;
pub mod runtime;
pub mod session;
pub mod sql;
pub mod stack;
pub mod storage;
pub mod sync;
pub mod tls;
pub mod txn;
pub mod wal;
pub mod wire;

/// mimalloc for every allocation: statements allocate and free many small values from every
/// shard thread, and glibc's malloc (arena locks, consolidation) took about a fifth of the
/// server's CPU under TPC-C.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// The PostgreSQL version threadgres presents to clients (server_version).
pub const SERVER_VERSION: &str = "15.18";
/// server_version_num for [`SERVER_VERSION`].
pub const SERVER_VERSION_NUM: &str = "150018";
