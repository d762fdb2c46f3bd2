//! The checkpoint image's file format: a sequence of frames, each an [`Item`].
//!
//! A frame is `[u32 length][u32 CRC-32C of the payload][payload]`, little-endian, the payload an
//! [`Item`] encoded with postcard (serde's compact binary form). The first item is a
//! [`Header`], the last an [`Item::End`] with the counts written; a file that does not end so,
//! or a frame whose CRC does not match, is damaged and refused with the offset it was found
//! at. Rows travel in [`Item::Rows`] batches of at most [`ROWS_BATCH_BYTES`], so neither the
//! writer nor the reader holds more than one batch of a table in memory.

use std::io::{BufReader, BufWriter, Read, Write};

use serde::{Deserialize, Serialize};

use crate::catalog::acl::Acl;
use crate::catalog::extensions::ExtensionDef;
use crate::catalog::functions::FunctionDef;
use crate::catalog::roles::RoleDef;
use crate::catalog::sequence::{OwnedBy, SeqOptions, SeqState};
use crate::catalog::types::TypeDef;
use crate::catalog::{ColumnDef, ConstraintDef, IndexDef, Oid, Persistence, QualName, RelKind};

/// The bytes a file of this format starts with.
pub const MAGIC: &[u8; 8] = b"TGIMAGE2";
/// The largest batch of rows in one frame (a bigger row gets a frame of its own).
pub const ROWS_BATCH_BYTES: usize = 1 << 20;
/// The largest frame a reader accepts: a row is at most 1 GB, as in PostgreSQL, plus its
/// framing.
const MAX_FRAME: u32 = (1 << 30) + (1 << 20);

/// Why the image was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Kind {
    /// When the data directory was initialized.
    Initial,
    /// CHECKPOINT.
    Requested,
    /// At a clean shutdown: nothing happened after it, so UNLOGGED tables keep their rows.
    Shutdown,
    /// checkpoint_timeout after the last one, when something was committed since.
    Timed,
    /// At the end of crash recovery, before connections are accepted.
    Recovery,
    /// Half of max_wal_size written since the last one's redo point.
    Wal,
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
pub struct Header {
    pub kind: Kind,
    /// When it was written: microseconds since 2000-01-01 UTC.
    pub written_at: i64,
    /// The catalog's next OID, CREATE DATABASE's, and txid_current's next id.
    pub next_oid: Oid,
    pub next_db_oid: i32,
    pub next_xid: u64,
    /// Where replay starts: every record of a transaction the image does not hold lies at or
    /// after it (`durable` claim R1).
    pub redo: u64,
    /// The image's snapshot: commits with a CSN at or above it are replayed, those below are
    /// in the image.
    pub csn: u64,
    /// The insert position when the snapshot was taken: catalog records without a
    /// transaction (CREATE and DROP DATABASE) at or after it are replayed.
    pub catalog_lsn: u64,
}

/// What a schema-changing commit changed in the catalog, logged with that commit: the
/// databases, roles, schemas and comments whole ([`Item`]s: they are few), and of the
/// relations only those the transaction created or changed (their new versions) and those it
/// dropped, so that a record's size does not grow with the number of tables.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CatalogImage {
    pub next_oid: Oid,
    pub next_db_oid: i32,
    pub items: Vec<Item>,
    pub relations: Vec<RelationImage>,
    pub dropped: Vec<Oid>,
}

/// A relation version as the image keeps it: its catalog entry, and what its data holds
/// besides rows (a view's definition, a sequence's counter).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RelationImage {
    pub oid: Oid,
    pub name: QualName,
    pub kind: RelKind,
    pub persistence: Persistence,
    pub columns: Vec<ColumnDef>,
    pub indexes: Vec<IndexDef>,
    pub constraints: Vec<ConstraintDef>,
    pub owner: Oid,
    pub acl: Option<Acl>,
    pub column_acls: Vec<(usize, Acl)>,
    pub triggers: Vec<crate::catalog::triggers::TriggerDef>,
    pub rules: Vec<crate::catalog::rules::RuleDef>,
    pub table: Option<Oid>,
    /// pg_class.reltype of a table or view.
    pub row_type: Option<Oid>,
    /// The storage's number (pg_class.relfilenode of a table or sequence).
    pub storage: Oid,
    pub view: Option<ViewImage>,
    pub sequence: Option<SequenceImage>,
    /// A materialized view's definition and populated flag (its rows are a table's).
    pub matview: Option<Box<crate::catalog::MatView>>,
    /// A partitioned table's key, a partition's parent and bound.
    pub partition: Option<Box<crate::catalog::partition::Partitioning>>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ViewImage {
    pub query: String,
    pub deps: Vec<(Oid, Vec<usize>)>,
    pub search_path: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SequenceImage {
    pub options: SeqOptions,
    pub owned_by: Option<OwnedBy>,
    pub state: SeqState,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum Item {
    Header(Header),
    Database {
        name: String,
        oid: u32,
    },
    /// The whole role catalog: roles (OID, definition) and memberships (role, member, grantor,
    /// admin option).
    Roles {
        roles: Vec<(Oid, RoleDef)>,
        members: Vec<(Oid, Oid, Oid, bool)>,
    },
    /// A created schema (`builtin` false), or a changed ACL of a built-in schema or of a
    /// database (`builtin` true; see `catalog::Namespaces`).
    Namespace {
        builtin: bool,
        oid: Oid,
        database: String,
        name: String,
        owner: Oid,
        acl: Option<Acl>,
    },
    Relation(Box<RelationImage>),
    /// Packed row bodies of the table storage numbered `storage`, each with the slot it has
    /// there (what later log records name it by).
    Rows {
        storage: Oid,
        rows: Vec<(u64, Vec<u8>)>,
    },
    Comment {
        key: (Oid, Oid, i32),
        text: String,
    },
    End {
        relations: u64,
        rows: u64,
    },
    /// A function or procedure (CREATE FUNCTION), kept whole as comments are.
    Function {
        oid: Oid,
        def: FunctionDef,
    },
    /// A user-defined type (CREATE TYPE ... AS ENUM) with its labels, kept whole as
    /// functions are.
    Type {
        oid: Oid,
        def: TypeDef,
    },
    /// An installed extension (CREATE EXTENSION); its functions are `Function` items.
    Extension {
        oid: Oid,
        def: ExtensionDef,
    },
    /// What the last ANALYZE of the table storage numbered `storage` found, encoded as its
    /// log record carries it (`sql::engine::analyze::TableStatistics::encode`).
    Statistics {
        storage: Oid,
        stats: Vec<u8>,
    },
}

/// Writes frames to a file, counting bytes.
pub struct ImageWriter<W: Write> {
    out: BufWriter<W>,
    pub bytes: u64,
}

impl<W: Write> ImageWriter<W> {
    pub fn new(out: W) -> std::io::Result<ImageWriter<W>> {
        let mut out = BufWriter::with_capacity(1 << 20, out);
        out.write_all(MAGIC)?;
        Ok(ImageWriter {
            out,
            bytes: MAGIC.len() as u64,
        })
    }

    pub fn put(&mut self, item: &Item) -> std::io::Result<()> {
        let payload = postcard::to_stdvec(item)
            .map_err(|e| std::io::Error::other(format!("could not encode an image item: {e}")))?;
        let len = u32::try_from(payload.len())
            .ok()
            .filter(|&n| n <= MAX_FRAME)
            .ok_or_else(|| std::io::Error::other("image item too large"))?;
        self.out.write_all(&len.to_le_bytes())?;
        self.out
            .write_all(&crc32c::crc32c(&payload).to_le_bytes())?;
        self.out.write_all(&payload)?;
        self.bytes += 8 + payload.len() as u64;
        Ok(())
    }

    /// Flushes and hands back the file (the caller syncs it).
    pub fn finish(self) -> std::io::Result<W> {
        self.out.into_inner().map_err(|e| e.into_error())
    }
}

/// Reads frames back, checking each.
pub struct ImageReader<R: Read> {
    input: BufReader<R>,
    pub offset: u64,
}

impl<R: Read> ImageReader<R> {
    pub fn new(input: R) -> Result<ImageReader<R>, String> {
        let mut input = BufReader::with_capacity(1 << 20, input);
        let mut magic = [0u8; 8];
        input
            .read_exact(&mut magic)
            .map_err(|e| format!("could not read the checkpoint image's start: {e}"))?;
        if &magic != MAGIC {
            return Err("the checkpoint image does not start as one".to_string());
        }
        Ok(ImageReader {
            input,
            offset: MAGIC.len() as u64,
        })
    }

    /// The next item; an error names the offset of the damaged frame.
    pub fn next_item(&mut self) -> Result<Item, String> {
        let at = self.offset;
        let damaged = |what: &str| format!("checkpoint image damaged at offset {at}: {what}");
        let mut head = [0u8; 8];
        self.input
            .read_exact(&mut head)
            .map_err(|_| damaged("it ends before its last item"))?;
        let len = u32::from_le_bytes(head[..4].try_into().expect("4 bytes"));
        let crc = u32::from_le_bytes(head[4..].try_into().expect("4 bytes"));
        if len > MAX_FRAME {
            return Err(damaged("impossible frame length"));
        }
        let mut payload = vec![0u8; len as usize];
        self.input
            .read_exact(&mut payload)
            .map_err(|_| damaged("it ends inside an item"))?;
        if crc32c::crc32c(&payload) != crc {
            return Err(damaged("checksum mismatch"));
        }
        self.offset += 8 + len as u64;
        postcard::from_bytes(&payload).map_err(|e| damaged(&format!("undecodable item: {e}")))
    }
}

#[cfg(all(test, not(feature = "shuttle")))]
mod tests {
    use super::*;

    fn items() -> Vec<Item> {
        vec![
            Item::Database {
                name: "db".into(),
                oid: 16390,
            },
            Item::Rows {
                storage: 16384,
                rows: vec![(0, vec![4, 1, 0, 0, 0]), (7, vec![])],
            },
            Item::End {
                relations: 1,
                rows: 2,
            },
        ]
    }

    fn written() -> Vec<u8> {
        let mut w = ImageWriter::new(Vec::new()).unwrap();
        for i in items() {
            w.put(&i).unwrap();
        }
        let n = w.bytes;
        let out = w.finish().unwrap();
        assert_eq!(out.len() as u64, n, "the byte count is what was written");
        out
    }

    #[test]
    fn frames_round_trip() {
        let bytes = written();
        let mut r = ImageReader::new(&bytes[..]).unwrap();
        for want in items() {
            let got = r.next_item().unwrap();
            assert_eq!(format!("{got:?}"), format!("{want:?}"));
        }
        assert_eq!(r.offset, bytes.len() as u64);
        assert!(r
            .next_item()
            .unwrap_err()
            .contains("ends before its last item"));
    }

    #[test]
    fn damage_is_found_where_it_is() {
        let good = written();
        for at in MAGIC.len()..good.len() {
            let mut bad = good.clone();
            bad[at] ^= 0x55;
            let mut r = ImageReader::new(&bad[..]).unwrap();
            let err = (0..3).find_map(|_| r.next_item().err());
            let err = err.expect("a flipped byte is always found");
            assert!(
                err.starts_with("checkpoint image damaged at offset"),
                "{err}"
            );
        }
        for cut in MAGIC.len()..good.len() {
            let mut r = ImageReader::new(&good[..cut]).unwrap();
            assert!((0..3).any(|_| r.next_item().is_err()), "cut at {cut}");
        }
        assert!(ImageReader::new(&b"NOTANIMG"[..]).is_err());
    }
}
