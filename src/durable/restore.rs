//! Reading back at start, before any session runs: the last checkpoint image, then the
//! write-ahead log after its redo point.
//!
//! 1. **The image** ([`load_image`]): its rows go into fresh heaps by storage number, written
//!    by one base transaction that commits at once; each row's slot in the server that wrote
//!    the image is remembered ([`SlotMap`]), because the log names rows by those slots. The
//!    catalog items are kept aside as the newest catalog.
//! 2. **The log** ([`replay`]), in two passes from the redo point, run at once ([`super::scan`]:
//!    the first reads ahead on its own thread). The first finds the end of the log and which
//!    transactions to apply: those whose commit record holds a CSN at or
//!    above the image's snapshot (those below are in the image already: claim R2 of
//!    `docs/wal-commit-path.md`), the sub-transactions' parents and the aborted
//!    (sub)transactions. The second applies, in log order, the records of the applied
//!    transactions that no abort voids (ROLLBACK TO, or a RELEASE into a level rolled back
//!    later): row changes through the engine's replay door, as writes of the image's committed
//!    transaction (an update replaces the row in place: only the newest versions are left, and
//!    nothing reads before replay ends), sequence counters (the last record wins), and the
//!    catalog a schema-changing commit logged, which replaces the newest catalog. Transactions
//!    without a commit record are skipped whole.
//! 3. **The catalog** ([`install`]) is written through the catalog's usual doors by one
//!    restoring transaction, with the heaps by storage number; index trees are built from
//!    the rows (indexes are not logged, `docs/wal-commit-path.md`); UNLOGGED tables are empty
//!    unless the image was written at a clean shutdown and nothing was replayed.
//!
//! Bounds: one row batch of the image and one record at a time; the slot maps hold one entry
//! per row of the image and per replayed insert (the tables' size), the transaction maps one
//! entry per transaction since the redo point.

// Fx: keys are slots, xids and storage numbers the log names, hashed once per record.
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::fs::File;
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use super::checkpoint::IMAGE_FILE;
use super::image::{CatalogImage, Header, ImageReader, Item, Kind, RelationImage};
use crate::catalog::sequence::{SeqState, Sequence};
use crate::catalog::{NewRelation, Oid, Persistence, RelKind};
use crate::sql::engine::log::{self as rowlog, SlotMap};
use crate::sql::engine::{SqlCatalog, TableData, ViewDef};
use crate::txn::log::{self as xlog, CommitRecord};
use crate::txn::{TxnCell, TxnManager, Xid};
use crate::wal::{Lsn, WalReader};

/// What a start read back, for the instance and its log line.
pub struct Restored {
    pub header: Header,
    pub databases: Vec<(String, u32)>,
    pub next_db_oid: i32,
    pub relations: u64,
    pub rows: u64,
    pub bytes: u64,
    pub seconds: f64,
    pub replayed: Replayed,
    /// Index trees built from the rows, and how long that took (part of `seconds`).
    pub indexes: u64,
    pub index_seconds: f64,
}

/// What replay did.
#[derive(Debug, Default, Clone, Copy)]
pub struct Replayed {
    /// Where the log ends (the next record goes there).
    pub end: u64,
    pub records: u64,
    pub bytes: u64,
    /// Transactions applied.
    pub commits: u64,
    pub seconds: f64,
    /// The largest transaction id the log names.
    pub max_xid: Xid,
}

/// The newest catalog during recovery.
struct Catalog {
    next_oid: Oid,
    next_db_oid: i32,
    /// Databases, roles, schemas, comments and functions.
    items: Vec<Item>,
    relations: std::collections::BTreeMap<Oid, RelationImage>,
}

impl Catalog {
    /// Applies what a schema-changing commit logged.
    fn apply(&mut self, c: CatalogImage) {
        self.next_oid = self.next_oid.max(c.next_oid);
        self.next_db_oid = self.next_db_oid.max(c.next_db_oid);
        self.items = c.items;
        for oid in c.dropped {
            self.relations.remove(&oid);
        }
        for r in c.relations {
            self.relations.insert(r.oid, r);
        }
    }
}

/// The state between the image and the catalog's installation.
pub struct Recovery {
    header: Header,
    /// The committed transaction that wrote the image's rows; replayed changes are its too.
    base: Arc<TxnCell>,
    /// The newest catalog: the image's, changed by each replayed schema-changing commit.
    catalog: Catalog,
    /// Tables' heaps by storage number.
    storages: HashMap<Oid, Arc<TableData>>,
    slots: HashMap<Oid, SlotMap>,
    /// Sequence counters from the log, by storage number.
    sequences: HashMap<Oid, SeqState>,
    /// Tables' statistics (encoded), by storage number: the image's, replaced by newer ones
    /// from the log.
    statistics: HashMap<Oid, Vec<u8>>,
    relations: u64,
    rows: u64,
    bytes: u64,
    started: Instant,
    replayed: Replayed,
}

impl Recovery {
    /// The image's redo point.
    pub fn redo(&self) -> Lsn {
        Lsn(self.header.redo)
    }

    pub fn header(&self) -> &Header {
        &self.header
    }
}

fn failed(what: String) -> String {
    format!("could not restore the checkpoint image: {what}")
}

/// Reads the image in `dir`; None when the directory has no image yet.
pub fn load_image(dir: &Path, txns: &TxnManager) -> Result<Option<Recovery>, String> {
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
    // This server's commits come after every commit the image and the log know of.
    txns.advance_csn(header.csn);
    let base = txns.begin_frozen();
    let mut items = Vec::new();
    let mut rels = std::collections::BTreeMap::new();
    let mut unlogged = HashSet::default();
    let mut storages: HashMap<Oid, Arc<TableData>> = HashMap::default();
    let mut slots: HashMap<Oid, SlotMap> = HashMap::default();
    let mut statistics: HashMap<Oid, Vec<u8>> = HashMap::default();
    let (mut relations, mut rows) = (0u64, 0u64);
    loop {
        match r.next_item()? {
            Item::Header(_) => return Err(failed("a second header".into())),
            Item::Rows {
                storage,
                rows: batch,
            } => {
                rows += batch.len() as u64;
                if unlogged.contains(&storage) && !keep_unlogged {
                    continue;
                }
                let data = storages
                    .entry(storage)
                    .or_insert_with(|| Arc::new(TableData::new()));
                let map = slots.entry(storage).or_default();
                for (slot, body) in &batch {
                    let here = data.heap.restore_row(body, &base);
                    // A shutdown image's slots are where a restore puts its rows.
                    debug_assert!(
                        !keep_unlogged || here == *slot,
                        "slot {slot} restored at {here}"
                    );
                    map.insert(*slot, here);
                }
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
                if want_rows != rows {
                    return Err(failed(format!("{rows} rows read, {want_rows} written")));
                }
                break;
            }
            Item::Statistics { storage, stats } => {
                statistics.insert(storage, stats);
            }
            Item::Relation(img) => {
                relations += 1;
                if img.persistence == Persistence::Unlogged {
                    unlogged.insert(img.storage);
                }
                rels.insert(img.oid, *img);
            }
            item => items.push(item),
        }
    }
    txns.commit(&base);
    Ok(Some(Recovery {
        base,
        catalog: Catalog {
            next_oid: header.next_oid,
            next_db_oid: header.next_db_oid,
            items,
            relations: rels,
        },
        header,
        storages,
        slots,
        sequences: HashMap::default(),
        statistics,
        relations,
        rows,
        bytes: r.offset,
        started,
        replayed: Replayed::default(),
    }))
}

/// Replays the log in `wal_dir` (segments of `seg` bytes) from the image's redo point: the
/// scan ([`super::scan`]) reads ahead on its own thread while this one applies, in log order,
/// the records of committed transactions (not of their aborted sub-transactions), as writes of
/// the restoring transaction, which committed with the image: replay leaves only the newest
/// versions.
pub fn replay(
    rec: &mut Recovery,
    wal_dir: &Path,
    seg: u64,
    txns: &TxnManager,
) -> Result<(), String> {
    let started = Instant::now();
    let from = Lsn(rec.header.redo.max(seg));
    let image_csn = rec.header.csn;
    let (tx, rx) = std::sync::mpsc::sync_channel(super::scan::SCAN_AHEAD);
    let mut fates = super::scan::Fates::new(rx, from);
    let (records, commits, end) = std::thread::scope(|s| {
        let scanner = std::thread::Builder::new()
            .name("wal scan".into())
            .spawn_scoped(s, || super::scan::scan(wal_dir, seg, from, image_csn, tx))
            .map_err(|e| format!("could not start the log scan: {e}"))?;
        let applied = apply(rec, wal_dir, seg, from, &mut fates);
        // An error here leaves the scan blocked on a full channel: dropping the receiver ends it.
        drop(fates);
        let _ = scanner.join();
        applied
    })?;
    txns.advance_csn(end.max_csn + 1);
    rec.replayed = Replayed {
        end: end.end,
        records,
        bytes: end.end.saturating_sub(from.0),
        commits,
        seconds: started.elapsed().as_secs_f64(),
        max_xid: end.max_xid,
    };
    Ok(())
}

/// The applying pass: (records read, transactions applied, the scan's totals).
fn apply(
    rec: &mut Recovery,
    wal_dir: &Path,
    seg: u64,
    from: Lsn,
    fates: &mut super::scan::Fates,
) -> Result<(u64, u64, super::scan::ScanEnd), String> {
    let err = |e: crate::error::PgError| e.message.clone();
    let mut reader = WalReader::open(wal_dir, seg, from).map_err(err)?;
    let (mut records, mut commits) = (0u64, 0u64);
    loop {
        // Read only what the scan has passed (scan invariant 1): its CRCs are checked, and
        // the torn end of the log is never reached.
        while reader.position().0 >= fates.upto {
            if !fates.receive()? {
                break;
            }
        }
        if let Some(e) = fates.end {
            if reader.position().0 >= e.end {
                return Ok((records, commits, e));
            }
        }
        reader.checked_up_to(Lsn(fates.upto));
        let Some(r) = reader.next_ref().map_err(err)? else {
            return Err(format!(
                "the log ends at {} before its scanned end",
                reader.position()
            ));
        };
        records += 1;
        let at = Lsn(r.lsn);
        match r.kind {
            rowlog::KIND => {
                if !fates.applies(r.xid)? {
                    continue;
                }
                let row = rowlog::decode(r.info, r.payload)
                    .ok_or_else(|| format!("malformed row record at {at}"))?;
                let storage = row.storage();
                let data = rec
                    .storages
                    .entry(storage)
                    .or_insert_with(|| Arc::new(TableData::new()));
                data.replay(&row, rec.slots.entry(storage).or_default(), &rec.base)
                    .map_err(|e| format!("could not replay the record at {at}: {e}"))?;
            }
            crate::catalog::sequence::LOG_KIND => {
                let (storage, last_value, is_called) =
                    crate::catalog::sequence::decode_log(r.payload)
                        .ok_or_else(|| format!("malformed sequence record at {at}"))?;
                rec.sequences.insert(
                    storage,
                    SeqState {
                        last_value,
                        log_cnt: 0,
                        is_called,
                    },
                );
            }
            crate::sql::engine::analyze::LOG_KIND => {
                let storage = r
                    .payload
                    .get(..4)
                    .and_then(|b| b.try_into().ok())
                    .map(u32::from_le_bytes)
                    .ok_or_else(|| format!("malformed statistics record at {at}"))?;
                rec.statistics.insert(storage, r.payload[4..].to_vec());
            }
            xlog::KIND if r.info == xlog::info::COMMIT => {
                let applied = if r.xid == 0 {
                    r.lsn >= rec.header.catalog_lsn
                } else {
                    fates.commit_applies(r.xid)
                };
                if !applied {
                    continue;
                }
                if r.xid != 0 {
                    commits += 1;
                }
                let c = CommitRecord::decode(r.payload)
                    .ok_or_else(|| format!("malformed commit record at {at}"))?;
                if let Some(bytes) = c.catalog {
                    let image: CatalogImage = postcard::from_bytes(&bytes)
                        .map_err(|e| format!("malformed catalog at {at}: {e}"))?;
                    rec.catalog.apply(image);
                }
            }
            _ => {}
        }
    }
}

/// Puts the newest catalog in place over the heaps read back; the tables' indexes are built.
pub fn install(rec: Recovery, catalog: &SqlCatalog, txns: &TxnManager) -> Result<Restored, String> {
    let Recovery {
        header,
        catalog: image,
        mut storages,
        sequences,
        statistics,
        relations,
        rows,
        bytes,
        started,
        replayed,
        ..
    } = rec;
    // A clean shutdown's UNLOGGED rows survive only if nothing happened after it.
    let keep_unlogged = header.kind == Kind::Shutdown && replayed.records == 0;
    let cell = txns.begin(0);
    let slot = txns.register();
    let snap = txns.snapshot(&slot, cell.top(), 0);
    let mut databases = Vec::new();
    let mut data: HashMap<u32, Arc<TableData>> = HashMap::default();
    type Indexes = (
        Arc<TableData>,
        Vec<crate::catalog::ColumnDef>,
        Vec<crate::catalog::IndexDef>,
    );
    let mut indexes: Vec<Indexes> = Vec::new();
    // Schemas before relations, comments after them; tables, views and sequences before the
    // indexes that share their tables' data; nothing of a database dropped since.
    let live: HashSet<String> = image
        .items
        .iter()
        .filter_map(|i| match i {
            Item::Database { name, .. } => Some(name.clone()),
            _ => None,
        })
        .collect();
    let mut rels: Vec<RelationImage> = image
        .relations
        .into_values()
        .filter(|r| live.contains(&r.name.database))
        .collect();
    rels.sort_by_key(|r| (r.kind == RelKind::Index, r.oid));
    let (comments, head): (Vec<Item>, Vec<Item>) = image
        .items
        .into_iter()
        .partition(|i| matches!(i, Item::Comment { .. }));
    let ordered = head
        .into_iter()
        .chain(rels.into_iter().map(|r| Item::Relation(Box::new(r))))
        .chain(comments);
    for item in ordered {
        match item {
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
                let d = relation_data(&img, &data, &mut storages, &sequences, keep_unlogged)
                    .map_err(failed)?;
                if matches!(
                    img.kind,
                    RelKind::Table | RelKind::MatView | RelKind::Sequence
                ) && img.storage != img.oid
                {
                    d.set_storage(img.storage);
                }
                if matches!(img.kind, RelKind::Table | RelKind::MatView) {
                    restore_statistics(&img, &d, &statistics);
                }
                if img.kind.has_rows() && !img.indexes.is_empty() {
                    indexes.push((d.clone(), img.columns.clone(), img.indexes.clone()));
                }
                data.insert(img.oid, d.clone());
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
                    triggers: img.triggers,
                    rules: img.rules,
                    table: img.table,
                    matview: img.matview,
                    partition: img.partition,
                    data: d,
                };
                catalog
                    .create(Some(oid), rel, &snap, &cell, 0)
                    .map_err(|e| failed(format!("relation \"{name}\": {e:?}")))?;
            }
            Item::Function { oid, def } => {
                if live.contains(&def.database) {
                    catalog.functions.restore(oid, def, &cell);
                }
            }
            Item::Type { oid, def } => {
                if live.contains(&def.database) {
                    catalog.types.restore(oid, def, &cell);
                }
            }
            Item::Extension { oid, def } => {
                if live.contains(&def.database) {
                    catalog.extensions.restore(oid, def, &cell);
                }
            }
            Item::Comment { key, text } => {
                catalog
                    .comments
                    .set(key, &text, &snap, &cell, 0)
                    .map_err(|e| failed(format!("comment: {e:?}")))?;
            }
            Item::Header(_) | Item::Rows { .. } | Item::End { .. } | Item::Statistics { .. } => {
                return Err(failed("an image item out of place in the catalog".into()))
            }
        }
    }
    // Indexes are not logged: every tree is built from the rows here (the time is logged).
    let building = Instant::now();
    let mut built = 0u64;
    for (d, columns, defs) in &indexes {
        d.rebuild_indexes(columns, defs)
            .map_err(|e| failed(format!("rebuilding an index: {}", e.message)))?;
        built += defs.len() as u64;
    }
    let index_seconds = building.elapsed().as_secs_f64();
    catalog.restore_next_oid(header.next_oid.max(image.next_oid));
    txns.unregister(&slot);
    txns.commit(&cell);
    Ok(Restored {
        next_db_oid: header.next_db_oid.max(image.next_db_oid),
        header,
        databases,
        relations,
        rows,
        bytes,
        seconds: started.elapsed().as_secs_f64(),
        replayed,
        indexes: built,
        index_seconds,
    })
}

/// Gives a table the statistics its storage had; statistics that do not read back (or do not
/// fit the table's columns) are dropped with a warning: the table is analyzed again later.
fn restore_statistics(img: &RelationImage, data: &TableData, stats: &HashMap<Oid, Vec<u8>>) {
    let Some(bytes) = stats.get(&img.storage) else {
        return;
    };
    match crate::sql::engine::analyze::TableStatistics::decode(bytes) {
        Some(found) if found.columns.len() <= img.columns.len() => {
            *data.analyzed.write() = Some(Arc::new(found));
        }
        _ => tracing::warn!(
            table = %img.name.name,
            "statistics in the checkpoint image or the log do not read back; dropped"
        ),
    }
}

/// The data a relation version gets: a table's heap (by storage number, empty if none was
/// read back), a sequence's counter (the log's newest, else the image's), a view's
/// definition, or (an index) its table's.
fn relation_data(
    img: &RelationImage,
    data: &HashMap<u32, Arc<TableData>>,
    storages: &mut HashMap<Oid, Arc<TableData>>,
    sequences: &HashMap<Oid, SeqState>,
    keep_unlogged: bool,
) -> Result<Arc<TableData>, String> {
    Ok(match img.kind {
        RelKind::Table | RelKind::MatView => {
            let kept = storages.remove(&img.storage);
            match kept {
                Some(d) if img.persistence != Persistence::Unlogged || keep_unlogged => d,
                _ => Arc::new(TableData::new()),
            }
        }
        RelKind::Index => img
            .table
            .and_then(|t| data.get(&t))
            .cloned()
            .ok_or_else(|| format!("index \"{}\" without its table", img.name.name))?,
        RelKind::Sequence => {
            let s = img
                .sequence
                .as_ref()
                .ok_or_else(|| format!("sequence \"{}\" without its state", img.name.name))?;
            let mut state = sequences.get(&img.storage).copied().unwrap_or(s.state);
            // The next value logs the counter again (this server's log starts empty of it).
            state.log_cnt = 0;
            Arc::new(TableData::of_sequence(Sequence::new(
                s.options, s.owned_by, state,
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
