//! Writing a checkpoint image: everything a snapshot sees, written while writers go on.
//!
//! The image is read at one snapshot, registered in the transaction manager's slots so that
//! vacuum keeps every version it sees until it is done: the catalog (roles, schemas,
//! relations, comments) and the rows of every permanent and unlogged table. Temporary tables
//! and the sessions' temporary schemas are not written. It goes to `checkpoint.tmp`, which is
//! synced and renamed over `checkpoint` (then the directory synced), so that a crash at any
//! moment leaves the previous image or the new one, whole.

use std::collections::HashSet;
use std::fs::File;
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use super::image::{self, CatalogImage, Header, ImageWriter, Item, Kind, RelationImage, ViewImage};
use crate::catalog::{Persistence, RelKind};
use crate::error::{io_error, PgResult};
use crate::sql::engine::{is_temp_schema, Rel, SqlCatalog};
use crate::sql::types::datetime::now_timestamptz;
use crate::txn::Snapshot;

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
    /// The image's redo point (where replay starts; WAL before it can go).
    pub redo: u64,
    /// The image's header (pg_control_checkpoint reports it).
    pub header: Header,
}

/// Where the log stood when an image's snapshot was taken (`Header`'s fields of the same
/// names); all zero for an instance without a log.
#[derive(Debug, Clone, Copy, Default)]
pub struct Cut {
    pub redo: u64,
    pub catalog_lsn: u64,
}

/// The catalog items `snap` sees (without rows): databases, roles, schemas, then relations
/// (tables, views and sequences before the indexes that share their tables' data), then
/// comments. Returns them with the tables, whose rows an image holds. `fresh_sequences`
/// makes each sequence's next value log its counter again (a checkpoint: the counter's last
/// log record may lie before the redo point).
pub fn catalog_items(
    catalog: &SqlCatalog,
    snap: &Snapshot,
    databases: &[(String, u32)],
    fresh_sequences: bool,
) -> (Vec<Item>, Vec<Arc<Rel>>) {
    let mut items = head_items(catalog, snap, databases);
    let mut rels = relations(catalog, snap, databases);
    for rel in &rels {
        items.push(Item::Relation(Box::new(relation_image(
            catalog,
            rel,
            fresh_sequences,
        ))));
    }
    items.extend(comment_items(catalog, snap));
    items.extend(function_items(catalog, snap, databases));
    items.extend(type_items(catalog, snap, databases));
    items.extend(extension_items(catalog, snap, databases));
    rels.retain(|r| r.kind.has_rows());
    (items, rels)
}

/// Databases, roles and schemas.
fn head_items(catalog: &SqlCatalog, snap: &Snapshot, databases: &[(String, u32)]) -> Vec<Item> {
    let mut items = Vec::new();
    let names: HashSet<&str> = databases.iter().map(|(n, _)| n.as_str()).collect();
    for (name, oid) in databases {
        items.push(Item::Database {
            name: name.clone(),
            oid: *oid,
        });
    }
    let roles = catalog
        .roles
        .visible(snap)
        .iter()
        .map(|r| (r.oid, r.def.clone()))
        .collect();
    let members = catalog
        .roles
        .members(snap)
        .iter()
        .map(|m| (m.role, m.member, m.grantor, m.admin))
        .collect();
    items.push(Item::Roles { roles, members });
    for (builtin, ns) in catalog.namespaces.all_visible(snap) {
        if is_temp_schema(&ns.name) || !names.contains(ns.database.as_str()) {
            continue;
        }
        items.push(Item::Namespace {
            builtin,
            oid: ns.oid,
            database: ns.database.clone(),
            name: ns.name.clone(),
            owner: ns.owner,
            acl: ns.acl.clone(),
        });
    }
    items
}

fn comment_items(catalog: &SqlCatalog, snap: &Snapshot) -> impl Iterator<Item = Item> {
    catalog
        .comments
        .visible(snap)
        .into_iter()
        .map(|(key, text)| Item::Comment { key, text })
}

/// The functions of live databases (not those of temporary schemas).
fn function_items(catalog: &SqlCatalog, snap: &Snapshot, databases: &[(String, u32)]) -> Vec<Item> {
    let names: HashSet<&str> = databases.iter().map(|(n, _)| n.as_str()).collect();
    catalog
        .functions
        .visible(None, snap)
        .into_iter()
        .filter(|f| names.contains(f.def.database.as_str()) && !is_temp_schema(&f.def.schema))
        .map(|f| Item::Function {
            oid: f.oid,
            def: f.def.clone(),
        })
        .collect()
}

/// The user-defined types of live databases (not those of temporary schemas).
fn type_items(catalog: &SqlCatalog, snap: &Snapshot, databases: &[(String, u32)]) -> Vec<Item> {
    let names: HashSet<&str> = databases.iter().map(|(n, _)| n.as_str()).collect();
    catalog
        .types
        .visible(None, snap)
        .into_iter()
        .filter(|t| names.contains(t.def.database.as_str()) && !is_temp_schema(&t.def.schema))
        .map(|t| Item::Type {
            oid: t.oid,
            def: t.def.clone(),
        })
        .collect()
}

/// The installed extensions of live databases.
fn extension_items(
    catalog: &SqlCatalog,
    snap: &Snapshot,
    databases: &[(String, u32)],
) -> Vec<Item> {
    let names: HashSet<&str> = databases.iter().map(|(n, _)| n.as_str()).collect();
    catalog
        .extensions
        .visible(None, snap)
        .into_iter()
        .filter(|e| names.contains(e.def.database.as_str()))
        .map(|e| Item::Extension {
            oid: e.oid,
            def: e.def.clone(),
        })
        .collect()
}

/// The relations an image keeps (not temporary, in a live database), tables, views and
/// sequences before indexes.
fn relations(catalog: &SqlCatalog, snap: &Snapshot, databases: &[(String, u32)]) -> Vec<Arc<Rel>> {
    let names: HashSet<&str> = databases.iter().map(|(n, _)| n.as_str()).collect();
    let mut rels: Vec<_> = catalog
        .visible(snap)
        .into_iter()
        .filter(|r| {
            r.persistence != Persistence::Temporary && names.contains(r.name.database.as_str())
        })
        .collect();
    rels.sort_by_key(|r| (r.kind == RelKind::Index, r.oid));
    rels
}

/// What a schema-changing commit logs: the relation versions its transaction (`snap.top`,
/// 0 for none) made that `snap` (its own, seeing its changes) sees, the relations it ended
/// without making a new version, and the rest of the catalog whole.
pub fn catalog_image(
    catalog: &SqlCatalog,
    snap: &Snapshot,
    counters: &Counters,
) -> PgResult<Vec<u8>> {
    let names: HashSet<&str> = counters.databases.iter().map(|(n, _)| n.as_str()).collect();
    let (made, ended) = if snap.top == 0 {
        (Vec::new(), Vec::new())
    } else {
        catalog.written_by(snap.top, snap)
    };
    let kept = |r: &Arc<Rel>| {
        r.persistence != Persistence::Temporary && names.contains(r.name.database.as_str())
    };
    let live: HashSet<u32> = made.iter().map(|r| r.oid).collect();
    let changed = made
        .iter()
        .filter(|r| kept(r))
        .map(|r| relation_image(catalog, r, false))
        .collect();
    let mut dropped: Vec<u32> = ended.into_iter().filter(|o| !live.contains(o)).collect();
    dropped.sort_unstable();
    dropped.dedup();
    let mut items = head_items(catalog, snap, &counters.databases);
    items.extend(comment_items(catalog, snap));
    items.extend(function_items(catalog, snap, &counters.databases));
    items.extend(type_items(catalog, snap, &counters.databases));
    items.extend(extension_items(catalog, snap, &counters.databases));
    let image = CatalogImage {
        next_oid: catalog.peek_next_oid(),
        next_db_oid: counters.next_db_oid,
        items,
        relations: changed,
        dropped,
    };
    postcard::to_stdvec(&image)
        .map_err(|e| crate::error::PgError::internal(format!("could not encode the catalog: {e}")))
}

/// Writes an image of what `snap` sees into `dir` (the caller registered the snapshot and
/// read `cut` before it).
pub fn write(
    dir: &Path,
    catalog: &SqlCatalog,
    snap: &Snapshot,
    cut: Cut,
    counters: Counters,
    kind: Kind,
) -> PgResult<Written> {
    let started = Instant::now();
    let snap = *snap;
    let result = (|| {
        let tmp = dir.join(format!("{IMAGE_FILE}.tmp"));
        let file = File::create(&tmp)
            .map_err(|e| io_error(&e, format!("could not create file \"{}\"", tmp.display())))?;
        let io = |e: std::io::Error| {
            io_error(&e, format!("could not write to file \"{}\"", tmp.display()))
        };
        let mut w = ImageWriter::new(file).map_err(io)?;
        let header = Header {
            kind,
            written_at: now_timestamptz(),
            next_oid: catalog.peek_next_oid(),
            next_db_oid: counters.next_db_oid,
            next_xid: counters.next_xid,
            redo: cut.redo,
            csn: snap.csn,
            catalog_lsn: cut.catalog_lsn,
        };
        w.put(&Item::Header(header)).map_err(io)?;
        let (items, tables) = catalog_items(catalog, &snap, &counters.databases, true);
        let mut relations = 0u64;
        for item in &items {
            relations += matches!(item, Item::Relation(_)) as u64;
            w.put(item).map_err(io)?;
        }
        let mut rows = 0u64;
        // A shutdown image numbers each table's rows 0, 1, ... as a restore places them: the
        // next server logs its changes by those slots without writing an image of its own
        // first (no log follows a shutdown image but that server's). Other images keep the
        // slots the log after their redo point names.
        let ranks = kind == Kind::Shutdown;
        for rel in &tables {
            let storage = rel.data.storage_of(rel.oid);
            let mut batch: Vec<(u64, Vec<u8>)> = Vec::new();
            let mut size = 0usize;
            let mut failed = None;
            let mut rank = 0u64;
            rel.data.heap.image_rows(&snap, |slot, body| {
                if failed.is_some() {
                    return;
                }
                rows += 1;
                size += body.len() + 8;
                batch.push((if ranks { rank } else { slot }, body.to_vec()));
                rank += 1;
                if size >= image::ROWS_BATCH_BYTES {
                    let rows = std::mem::take(&mut batch);
                    size = 0;
                    if let Err(e) = w.put(&Item::Rows { storage, rows }) {
                        failed = Some(e);
                    }
                }
            });
            if let Some(e) = failed {
                return Err(io(e));
            }
            if !batch.is_empty() {
                w.put(&Item::Rows {
                    storage,
                    rows: batch,
                })
                .map_err(io)?;
            }
            if let Some(found) = crate::sql::engine::statistics(rel) {
                let stats = found.encode();
                if rel.persistence == Persistence::Permanent
                    && stats.len() <= crate::sql::engine::analyze::MAX_ENCODED
                {
                    w.put(&Item::Statistics { storage, stats }).map_err(io)?;
                }
            }
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
            redo: cut.redo,
            header,
        })
    })();
    if result.is_err() {
        // A failed image (a full disk, an I/O error) leaves the previous one in place; the
        // partial file goes, so that it holds no space.
        let _ = std::fs::remove_file(dir.join(format!("{IMAGE_FILE}.tmp")));
    }
    result
}

fn relation_image(catalog: &SqlCatalog, rel: &Rel, fresh_sequences: bool) -> RelationImage {
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
        triggers: rel.triggers.clone(),
        rules: rel.rules.clone(),
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
            state: if fresh_sequences {
                s.state_for_image()
            } else {
                s.state()
            },
        }),
        matview: rel.matview.clone(),
        partition: rel.partition.clone(),
    }
}
