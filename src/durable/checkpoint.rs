//! Writing a checkpoint image: everything a snapshot sees, written while writers go on.
//!
//! The image is read at one snapshot, registered in the transaction manager's slots so that
//! vacuum keeps every version it sees until it is done: the catalog (roles, schemas,
//! relations, comments) and the rows of every permanent and unlogged table. Temporary tables
//! and the sessions' temporary schemas are not written. It goes to `checkpoint.tmp`, which is
//! synced and renamed over `checkpoint` (then the directory synced), so that a crash at any
//! moment leaves the previous image or the new one, whole.

use std::fs::File;
use std::path::Path;
use std::time::Instant;

use super::image::{self, Header, ImageWriter, Item, Kind, RelationImage, ViewImage};
use crate::catalog::{Persistence, RelKind};
use crate::error::{io_error, PgResult};
use crate::sql::engine::{is_temp_schema, Rel, SqlCatalog};
use crate::sql::types::datetime::now_timestamptz;
use crate::txn::TxnManager;

/// The image's file name in the data directory.
pub const IMAGE_FILE: &str = "checkpoint";

/// What a checkpoint must know besides the catalog.
pub struct Counters {
    pub databases: Vec<(String, u32)>,
    pub next_db_oid: i32,
    pub next_xid: u64,
}

/// What a checkpoint wrote.
#[derive(Debug, Clone, Copy)]
pub struct Written {
    pub relations: u64,
    pub rows: u64,
    pub bytes: u64,
    pub seconds: f64,
}

/// Writes an image of what the newest snapshot sees into `dir`.
pub fn write(
    dir: &Path,
    catalog: &SqlCatalog,
    txns: &TxnManager,
    counters: Counters,
    kind: Kind,
) -> PgResult<Written> {
    let started = Instant::now();
    let slot = txns.register();
    let snap = txns.snapshot(&slot, 0, 0);
    let result = (|| {
        let tmp = dir.join(format!("{IMAGE_FILE}.tmp"));
        let file = File::create(&tmp)
            .map_err(|e| io_error(&e, format!("could not create file \"{}\"", tmp.display())))?;
        let io = |e: std::io::Error| {
            io_error(&e, format!("could not write to file \"{}\"", tmp.display()))
        };
        let mut w = ImageWriter::new(file).map_err(io)?;
        w.put(&Item::Header(Header {
            kind,
            written_at: now_timestamptz(),
            next_oid: catalog.peek_next_oid(),
            next_db_oid: counters.next_db_oid,
            next_xid: counters.next_xid,
        }))
        .map_err(io)?;
        let databases: std::collections::HashSet<&str> =
            counters.databases.iter().map(|(n, _)| n.as_str()).collect();
        for (name, oid) in &counters.databases {
            w.put(&Item::Database {
                name: name.clone(),
                oid: *oid,
            })
            .map_err(io)?;
        }
        let roles = catalog
            .roles
            .visible(&snap)
            .iter()
            .map(|r| (r.oid, r.def.clone()))
            .collect();
        let members = catalog
            .roles
            .members(&snap)
            .iter()
            .map(|m| (m.role, m.member, m.grantor, m.admin))
            .collect();
        w.put(&Item::Roles { roles, members }).map_err(io)?;
        for (builtin, ns) in catalog.namespaces.all_visible(&snap) {
            if is_temp_schema(&ns.name) || !databases.contains(ns.database.as_str()) {
                continue;
            }
            w.put(&Item::Namespace {
                builtin,
                oid: ns.oid,
                database: ns.database.clone(),
                name: ns.name.clone(),
                owner: ns.owner,
                acl: ns.acl.clone(),
            })
            .map_err(io)?;
        }
        // Tables, views and sequences before the indexes that share their tables' data.
        let mut rels: Vec<_> = catalog
            .visible(&snap)
            .into_iter()
            .filter(|r| {
                r.persistence != Persistence::Temporary
                    && databases.contains(r.name.database.as_str())
            })
            .collect();
        rels.sort_by_key(|r| (r.kind == RelKind::Index, r.oid));
        let (mut rows, mut relations) = (0u64, 0u64);
        for rel in &rels {
            w.put(&Item::Relation(Box::new(relation_image(catalog, rel))))
                .map_err(io)?;
            relations += 1;
            if rel.kind != RelKind::Table {
                continue;
            }
            let mut batch: Vec<Vec<u8>> = Vec::new();
            let mut size = 0usize;
            let mut failed = None;
            rel.data.heap.image_rows(&snap, |body| {
                if failed.is_some() {
                    return;
                }
                rows += 1;
                size += body.len();
                batch.push(body.to_vec());
                if size >= image::ROWS_BATCH_BYTES {
                    let rows = std::mem::take(&mut batch);
                    size = 0;
                    if let Err(e) = w.put(&Item::Rows { oid: rel.oid, rows }) {
                        failed = Some(e);
                    }
                }
            });
            if let Some(e) = failed {
                return Err(io(e));
            }
            if !batch.is_empty() {
                w.put(&Item::Rows {
                    oid: rel.oid,
                    rows: batch,
                })
                .map_err(io)?;
            }
        }
        for (key, text) in catalog.comments.visible(&snap) {
            w.put(&Item::Comment { key, text }).map_err(io)?;
        }
        w.put(&Item::End { relations, rows }).map_err(io)?;
        let bytes = w.bytes;
        let file = w.finish().map_err(io)?;
        file.sync_all().map_err(io)?;
        drop(file);
        super::datadir::install(dir, IMAGE_FILE)?;
        Ok(Written {
            relations,
            rows,
            bytes,
            seconds: started.elapsed().as_secs_f64(),
        })
    })();
    txns.unregister(&slot);
    if result.is_err() {
        // A failed image (a full disk, an I/O error) leaves the previous one in place; the
        // partial file goes, so that it holds no space.
        let _ = std::fs::remove_file(dir.join(format!("{IMAGE_FILE}.tmp")));
    }
    result
}

fn relation_image(catalog: &SqlCatalog, rel: &Rel) -> RelationImage {
    RelationImage {
        oid: rel.oid,
        name: rel.name.clone(),
        kind: rel.kind,
        persistence: rel.persistence,
        columns: rel.columns.clone(),
        indexes: rel.indexes.clone(),
        constraints: rel.constraints.clone(),
        owner: rel.owner,
        acl: rel.acl.clone(),
        column_acls: rel.column_acls.clone(),
        table: rel.table,
        row_type: catalog.row_type(rel.oid),
        storage: rel.data.storage_of(rel.oid),
        view: rel.data.view.as_ref().map(|v| ViewImage {
            query: v.query.clone(),
            deps: v.deps.clone(),
            search_path: v.search_path.clone(),
        }),
        sequence: rel.data.sequence.as_ref().map(|s| image::SequenceImage {
            options: s.options,
            owned_by: s.owned_by,
            state: s.state(),
        }),
    }
}
