//! pg_control_system(), pg_control_checkpoint(), pg_control_init() and pg_control_recovery():
//! what PostgreSQL reads from its control file, here from the data directory (`durable`).
//!
//! The checkpoint is the last image written or read back: its redo point, the position at
//! which its snapshot was taken (threadgres writes no checkpoint record, so that position
//! stands for checkpoint_lsn: every commit before it is in the image), its time and counters.
//! What threadgres has no notion of reads as PostgreSQL reads on a system that never used it:
//! one timeline, no multixacts, no commit timestamps, no recovery or backup in progress, and
//! no full-page images (the log holds rows, and images are replaced whole). The oldest xid is
//! the first normal one, since nothing is frozen or truncated; the oldest transaction running
//! at the checkpoint is not kept with the image, so it reads NULL. pg_control_init's sizes are
//! PostgreSQL 15's build constants, which clients that compute with them expect (threadgres
//! keeps no pages), except the WAL segment size and the limits threadgres shares with it.

use crate::error::{code, PgError, PgResult};
use crate::sql::context::SessionCtx;
use crate::sql::func::session_fn::ControlFn;
use crate::sql::types::{lsn, Value};

/// PostgreSQL 15's control file and catalog versions (PG_CONTROL_VERSION,
/// CATALOG_VERSION_NO): threadgres's catalogs are PostgreSQL 15's.
const CONTROL_VERSION: i32 = 1300;
const CATALOG_VERSION: i32 = 202_209_061;
/// The first normal transaction id (below it are the bootstrap and frozen ids).
const FIRST_NORMAL_XID: u32 = 3;

/// The one row of `f`.
pub fn row(f: ControlFn, s: &dyn SessionCtx) -> PgResult<Vec<Value>> {
    let durable = s.instance().durable.get().ok_or_else(|| {
        PgError::new(
            code::OBJECT_NOT_IN_PREREQUISITE_STATE,
            "control data is not available: the server runs without a data directory",
        )
    })?;
    let c = durable.control();
    // PostgreSQL keeps these times in whole seconds.
    let seconds = |us: i64| Value::TimestampTz(us - us.rem_euclid(1_000_000));
    let time = |h: Option<crate::durable::image::Header>| match h {
        Some(h) => seconds(h.written_at),
        None => Value::Null,
    };
    Ok(match f {
        ControlFn::System => vec![
            Value::Int4(CONTROL_VERSION),
            Value::Int4(CATALOG_VERSION),
            Value::Int8(c.system_identifier as i64),
            time(c.last_image),
        ],
        ControlFn::Checkpoint => {
            let Some(h) = c.last_image else {
                return Ok(vec![Value::Null; f.columns().len()]);
            };
            let seg = c.wal_segment_size.max(1);
            vec![
                lsn::value(h.catalog_lsn),
                lsn::value(h.redo),
                Value::Text(crate::wal::file_name(h.redo / seg, seg)),
                Value::Int4(1),
                Value::Int4(1),
                Value::Bool(false),
                Value::Text(format!("{}:{}", h.next_xid >> 32, h.next_xid & 0xFFFF_FFFF)),
                Value::Oid(h.next_oid),
                Value::Oid(1),
                Value::Oid(0),
                Value::Oid(FIRST_NORMAL_XID),
                Value::Oid(1),
                Value::Null,
                Value::Oid(1),
                Value::Oid(1),
                Value::Oid(0),
                Value::Oid(0),
                seconds(h.written_at),
            ]
        }
        ControlFn::Init => vec![
            Value::Int4(8),
            Value::Int4(8192),
            Value::Int4(131_072),
            Value::Int4(8192),
            Value::Int4(c.wal_segment_size.min(i32::MAX as u64) as i32),
            Value::Int4(crate::sql::parser::MAX_IDENTIFIER_BYTES as i32 + 1),
            Value::Int4(32),
            Value::Int4(1996),
            Value::Int4(2048),
            Value::Bool(true),
            Value::Int4(0),
        ],
        ControlFn::Recovery => vec![
            lsn::value(0),
            Value::Int4(0),
            lsn::value(0),
            lsn::value(0),
            Value::Bool(false),
        ],
    })
}
