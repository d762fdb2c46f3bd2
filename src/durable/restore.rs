//! Reading a checkpoint image back at start, before any session runs.
//!
//! Roles are put back whole as frozen versions; everything else is written through the
//! catalog's and the engine's usual doors by one restoring transaction, which commits before
//! the server accepts connections: schemas, relations (keeping their OIDs and row types),
//! rows, comments. Index trees are then built from the rows (indexes are not in the image).
//! UNLOGGED tables get their rows back only from a shutdown image: after a crash they are
//! empty, as in PostgreSQL.

use std::collections::HashMap;
use std::fs::File;
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use super::checkpoint::IMAGE_FILE;
use super::image::{Header, ImageReader, Item, Kind, RelationImage};
use crate::catalog::sequence::Sequence;
use crate::catalog::{NewRelation, Persistence, RelKind};
use crate::sql::engine::{SqlCatalog, TableData, ViewDef};
use crate::txn::TxnManager;

/// What the image held besides the catalog, for the instance.
pub struct Restored {
    pub header: Header,
    pub databases: Vec<(String, u32)>,
    pub relations: u64,
    pub rows: u64,
    pub bytes: u64,
    pub seconds: f64,
}

/// Reads the image in `dir` into `catalog` (empty, as a new instance has it). None when the
/// directory has no image yet.
pub fn restore(
    dir: &Path,
    catalog: &SqlCatalog,
    txns: &TxnManager,
) -> Result<Option<Restored>, String> {
    let path = dir.join(IMAGE_FILE);
    let file = match File::open(&path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(format!("could not open file \"{}\": {e}", path.display())),
    };
    let started = Instant::now();
    let mut r = ImageReader::new(file)?;
    let Item::Header(header) = r.next_item()? else {
        return Err("checkpoint image damaged: it does not start with its header".into());
    };
    let keep_unlogged = header.kind == Kind::Shutdown;
    let cell = txns.begin(0);
    let slot = txns.register();
    let snap = txns.snapshot(&slot, cell.top(), 0);
    let mut databases = Vec::new();
    let mut data: HashMap<u32, (Arc<TableData>, Persistence)> = HashMap::new();
    let mut indexes: Vec<(Arc<TableData>, Vec<crate::catalog::IndexDef>)> = Vec::new();
    let (mut relations, mut rows) = (0u64, 0u64);
    let failed = |what: String| format!("could not restore the checkpoint image: {what}");
    loop {
        match r.next_item()? {
            Item::Header(_) => return Err(failed("a second header".into())),
            Item::Database { name, oid } => databases.push((name, oid)),
            Item::Roles { roles, members } => catalog.roles.restore(roles, members),
            Item::Namespace {
                builtin,
                oid,
                database,
                name,
                owner,
                acl,
            } => {
                catalog
                    .namespaces
                    .replace(builtin, oid, &database, &name, owner, acl, &snap, &cell, 0)
                    .map_err(|e| failed(format!("schema \"{name}\": {e:?}")))?;
            }
            Item::Relation(img) => {
                relations += 1;
                let d = relation_data(&img, &data).map_err(failed)?;
                if matches!(img.kind, RelKind::Table | RelKind::Sequence) && img.storage != img.oid
                {
                    d.set_storage(img.storage);
                }
                if img.kind == RelKind::Table && !img.indexes.is_empty() {
                    indexes.push((d.clone(), img.indexes.clone()));
                }
                data.insert(img.oid, (d.clone(), img.persistence));
                if let Some(t) = img.row_type {
                    catalog.restore_row_type(img.oid, t);
                }
                let name = img.name.name.clone();
                let oid = img.oid;
                let img = *img;
                let rel = NewRelation {
                    name: img.name,
                    kind: img.kind,
                    persistence: img.persistence,
                    columns: img.columns,
                    indexes: img.indexes,
                    constraints: img.constraints,
                    owner: img.owner,
                    acl: img.acl,
                    column_acls: img.column_acls,
                    table: img.table,
                    data: d,
                };
                catalog
                    .create(Some(oid), rel, &snap, &cell, 0)
                    .map_err(|e| failed(format!("relation \"{name}\": {e:?}")))?;
            }
            Item::Rows { oid, rows: batch } => {
                let (d, persistence) = data
                    .get(&oid)
                    .ok_or_else(|| failed(format!("rows of unknown relation {oid}")))?;
                if *persistence == Persistence::Unlogged && !keep_unlogged {
                    continue;
                }
                for body in &batch {
                    d.heap.restore_row(body, &cell);
                }
                rows += batch.len() as u64;
            }
            Item::Comment { key, text } => {
                catalog
                    .comments
                    .set(key, &text, &snap, &cell, 0)
                    .map_err(|e| failed(format!("comment: {e:?}")))?;
            }
            Item::End {
                relations: want_rels,
                rows: want_rows,
            } => {
                if want_rels != relations {
                    return Err(failed(format!(
                        "{relations} relations read, {want_rels} written"
                    )));
                }
                // Unlogged tables' rows skipped after a crash are counted as written.
                if !keep_unlogged || want_rows == rows {
                    break;
                }
                return Err(failed(format!("{rows} rows read, {want_rows} written")));
            }
        }
    }
    for (d, defs) in &indexes {
        d.rebuild_indexes(defs);
    }
    catalog.restore_next_oid(header.next_oid);
    txns.unregister(&slot);
    txns.commit(&cell);
    Ok(Some(Restored {
        header,
        databases,
        relations,
        rows,
        bytes: r.offset,
        seconds: started.elapsed().as_secs_f64(),
    }))
}

/// The data a relation version gets: a table's new heap, a sequence's counter, a view's
/// definition, or (an index) its table's.
fn relation_data(
    img: &RelationImage,
    data: &HashMap<u32, (Arc<TableData>, Persistence)>,
) -> Result<Arc<TableData>, String> {
    Ok(match img.kind {
        RelKind::Table => Arc::new(TableData::new()),
        RelKind::Index => {
            let table = img
                .table
                .and_then(|t| data.get(&t))
                .ok_or_else(|| format!("index \"{}\" without its table", img.name.name))?;
            table.0.clone()
        }
        RelKind::Sequence => {
            let s = img
                .sequence
                .as_ref()
                .ok_or_else(|| format!("sequence \"{}\" without its state", img.name.name))?;
            Arc::new(TableData::of_sequence(Sequence::new(
                s.options, s.owned_by, s.state,
            )))
        }
        RelKind::View => {
            let v = img
                .view
                .as_ref()
                .ok_or_else(|| format!("view \"{}\" without its query", img.name.name))?;
            Arc::new(TableData::of_view(ViewDef {
                query: v.query.clone(),
                deps: v.deps.clone(),
                search_path: v.search_path.clone(),
            }))
        }
    })
}
