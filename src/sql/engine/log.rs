//! Row changes in the write-ahead log: the records [`super::insert`], [`super::update`],
//! [`super::delete`], [`super::load`] and [`super::insert_packed`] append, and their replay.
//!
//! A record names a row by its table's storage number (pg_class.relfilenode) and the heap
//! slot the version has in the server that wrote it; it carries the new version's packed
//! body. Replay keeps, per storage, a map from those slots to the slots the rows get in the
//! recovering server ([`SlotMap`]): a slot is reused by vacuum only once nothing can see its
//! old content, so every record about a slot's old row precedes, in the log, the insert that
//! reuses it, and an insert simply overwrites the map's entry. Row locks are not logged (they
//! do not outlive a crash); temporary and UNLOGGED tables are not logged at all.
//!
//! Format (little-endian): `[storage u32][slot u64]` for a delete; an insert adds the body;
//! an update `[storage u32][old slot u64][new slot u64][body]`.

use super::packed::PackedRow;
use super::{Rel, TableData, WriteError};
use crate::catalog::Persistence;
use crate::storage::RowId;
use crate::sync::Arc;
use crate::txn::TxnCell;

/// The resource manager of row records.
pub const KIND: u8 = crate::wal::record::kind::FIRST_USER + 1;

pub mod info {
    pub const INSERT: u8 = 1;
    pub const UPDATE: u8 = 2;
    pub const DELETE: u8 = 3;
}

/// Whether writes to `rel` are logged: permanent tables only.
fn logged(rel: &Rel) -> bool {
    rel.persistence == Persistence::Permanent
}

/// A row record being made: its payload is built from the packed body before the body
/// moves into the heap, and the slots are filled in once the heap gave them.
pub(super) struct Pending {
    payload: Vec<u8>,
    info: u8,
}

impl Pending {
    fn new(rel: &Rel, cell: &TxnCell, info: u8, slots: usize, body: &[u8]) -> Option<Pending> {
        if !logged(rel) || !cell.has_log() {
            return None;
        }
        let mut payload = Vec::with_capacity(4 + 8 * slots + body.len());
        payload.extend_from_slice(&rel.data.storage_of(rel.oid).to_le_bytes());
        payload.resize(4 + 8 * slots, 0);
        payload.extend_from_slice(body);
        Some(Pending { payload, info })
    }

    /// An insert of `body` into `rel` (None: not logged).
    pub(super) fn insert(rel: &Rel, cell: &TxnCell, body: &[u8]) -> Option<Pending> {
        Pending::new(rel, cell, info::INSERT, 1, body)
    }

    /// An update of a version of `rel` to `body`.
    pub(super) fn update(rel: &Rel, cell: &TxnCell, body: &[u8]) -> Option<Pending> {
        Pending::new(rel, cell, info::UPDATE, 2, body)
    }

    /// A delete of a version of `rel`.
    pub(super) fn delete(rel: &Rel, cell: &TxnCell) -> Option<Pending> {
        Pending::new(rel, cell, info::DELETE, 1, &[])
    }

    /// Appends the record with the slots the heap gave (old, then new for an update).
    pub(super) fn append(mut self, cell: &TxnCell, slots: &[RowId]) -> Result<(), WriteError> {
        for (i, s) in slots.iter().enumerate() {
            self.payload[4 + 8 * i..12 + 8 * i].copy_from_slice(&s.to_le_bytes());
        }
        cell.log(KIND, self.info, &self.payload)
            .map(|_| ())
            .map_err(WriteError::Log)
    }
}

/// A decoded row record.
#[derive(Debug)]
pub enum RowRecord<'a> {
    Insert {
        storage: u32,
        slot: u64,
        body: &'a [u8],
    },
    Update {
        storage: u32,
        old: u64,
        new: u64,
        body: &'a [u8],
    },
    Delete {
        storage: u32,
        slot: u64,
    },
}

impl RowRecord<'_> {
    pub fn storage(&self) -> u32 {
        match self {
            RowRecord::Insert { storage, .. }
            | RowRecord::Update { storage, .. }
            | RowRecord::Delete { storage, .. } => *storage,
        }
    }
}

/// Decodes a row record's payload; None if it is malformed.
pub fn decode(info: u8, p: &[u8]) -> Option<RowRecord<'_>> {
    let u32_at = |at: usize| Some(u32::from_le_bytes(p.get(at..at + 4)?.try_into().ok()?));
    let u64_at = |at: usize| Some(u64::from_le_bytes(p.get(at..at + 8)?.try_into().ok()?));
    Some(match info {
        info::INSERT => RowRecord::Insert {
            storage: u32_at(0)?,
            slot: u64_at(4)?,
            body: p.get(12..)?,
        },
        info::UPDATE => RowRecord::Update {
            storage: u32_at(0)?,
            old: u64_at(4)?,
            new: u64_at(12)?,
            body: p.get(20..)?,
        },
        info::DELETE => RowRecord::Delete {
            storage: u32_at(0)?,
            slot: u64_at(4)?,
        },
        _ => return None,
    })
}

/// Per storage: the slot a row had in the server that logged it → its slot here.
///
/// Logged slots are dense (a heap hands out slots from 0 and vacuum reuses them), so the map is
/// a vector indexed by slot: replay does one of these per record, and a hash map's inserts and
/// rehashes were a quarter of recovery's time. A slot far past the vector (more than doubling
/// it, beyond the first million) goes to a hash map instead, so that a damaged or unusual log
/// cannot make the vector huge: the vector never exceeds twice the slots it maps plus a
/// million entries.
pub struct SlotMap {
    dense: Vec<RowId>,
    sparse: rustc_hash::FxHashMap<u64, RowId>,
    /// The smallest slot in `sparse` (u64::MAX when empty): once the vector reaches it, the
    /// entries it covers move over (each entry moves at most once).
    sparse_min: u64,
}

impl Default for SlotMap {
    fn default() -> SlotMap {
        SlotMap {
            dense: Vec::new(),
            sparse: Default::default(),
            sparse_min: u64::MAX,
        }
    }
}

impl SlotMap {
    /// Marks an unmapped entry of `dense` (no heap has 2^64 slots).
    const NONE: RowId = RowId::MAX;
    /// Slots below this always go to the vector.
    const DENSE_FLOOR: u64 = 1 << 20;

    pub fn get(&self, slot: u64) -> Option<RowId> {
        match self.dense.get(slot as usize) {
            Some(&id) if id != Self::NONE => Some(id),
            Some(_) => None,
            None => self.sparse.get(&slot).copied(),
        }
    }

    pub fn insert(&mut self, slot: u64, id: RowId) {
        let n = self.dense.len() as u64;
        if slot < n {
            self.dense[slot as usize] = id;
        } else if slot < Self::DENSE_FLOOR.max(2 * n) && id != Self::NONE {
            self.dense.resize(slot as usize + 1, Self::NONE);
            if slot >= self.sparse_min {
                let covered: Vec<(u64, RowId)> = (self.sparse.iter())
                    .filter(|(&s, _)| s <= slot)
                    .map(|(&s, &i)| (s, i))
                    .collect();
                for (s, i) in covered {
                    self.sparse.remove(&s);
                    self.dense[s as usize] = i;
                }
                self.sparse_min = self.sparse.keys().copied().min().unwrap_or(u64::MAX);
            }
            self.dense[slot as usize] = id;
        } else {
            self.sparse.insert(slot, id);
            self.sparse_min = self.sparse_min.min(slot);
        }
    }
}

impl TableData {
    /// Applies a row record of a committed transaction during recovery, as a write of `cell`
    /// (the committed restoring transaction): inserts add a row, updates replace the row in
    /// place and deletes empty its slot ([`crate::storage::Heap::replace`]). Errors name what
    /// did not match (a record about a slot the map does not know): the log and the image
    /// disagree.
    pub fn replay(
        &self,
        rec: &RowRecord<'_>,
        slots: &mut SlotMap,
        cell: &Arc<TxnCell>,
    ) -> Result<(), String> {
        let heap = &self.heap.0;
        let here = |slots: &SlotMap, s: u64| {
            slots
                .get(s)
                .ok_or_else(|| format!("no row at logged slot {s}"))
        };
        match *rec {
            RowRecord::Insert { slot, body, .. } => {
                let id = heap.insert(PackedRow::from_body(body), cell, 0);
                slots.insert(slot, id);
            }
            RowRecord::Update { old, new, body, .. } => {
                let at = here(slots, old)?;
                if !heap.replace(at, PackedRow::from_body(body), cell) {
                    return Err(format!("update of logged slot {old}: no row there"));
                }
                slots.insert(new, at);
            }
            RowRecord::Delete { slot, .. } => {
                let at = here(slots, slot)?;
                if !heap.remove(at) {
                    return Err(format!("delete of logged slot {slot}: no row there"));
                }
            }
        }
        Ok(())
    }
}

#[cfg(all(test, not(feature = "shuttle")))]
mod tests {
    use super::SlotMap;

    #[test]
    fn slot_map_keeps_dense_and_far_slots_and_moves_them_when_covered() {
        let mut m = SlotMap::default();
        for s in 0..1000 {
            m.insert(s, s + 7);
        }
        let far = 5 << 20;
        m.insert(far, 1);
        m.insert(far + 3, 2);
        assert!(
            m.dense.len() < 2 << 20,
            "a far slot does not grow the vector"
        );
        assert_eq!(
            (m.get(5), m.get(far), m.get(far + 3), m.get(far + 1)),
            (Some(12), Some(1), Some(2), None)
        );
        // Growing the vector slot by slot up to the far ones moves them over.
        for s in 1000..=far + 1 {
            m.insert(s, s);
        }
        assert!(m.sparse.len() == 1 && m.get(far) == Some(far) && m.get(far + 3) == Some(2));
        m.insert(far + 2, 9);
        m.insert(far + 3, 4);
        assert!(m.sparse.is_empty() && m.sparse_min == u64::MAX);
        assert_eq!(
            (m.get(far + 2), m.get(far + 3), m.get(u64::MAX)),
            (Some(9), Some(4), None)
        );
    }
}
