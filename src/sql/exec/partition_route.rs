//! Where a row written to a partitioned table goes: down its partition tree, one level at a
//! time, to the leaf whose bound holds it (`sql::partition` says how a bound is matched); and
//! the check of a row written straight to a partition against its bound and its ancestors'
//! (PostgreSQL's partition constraint). One [`Router`] serves one statement: each level's
//! partitions are read from the catalog the first time a row reaches it and kept (at most
//! one descriptor per partitioned table of the tree, bounded by the tree).
//!
//! Also here: what UPDATE / DELETE of a partitioned table need (the leaf a target row came
//! from, PostgreSQL's row movement when an updated row leaves its partition), the leaf's
//! arbiter indexes of INSERT ... ON CONFLICT, and the rows of pg_partition_tree.

use std::collections::HashMap;
use std::sync::Arc;

use super::EvalCx;
use crate::catalog::partition::PartitionKey;
use crate::catalog::IndexItem;
use crate::error::{code, PgError, PgResult};
use crate::sql::engine::Rel;
use crate::sql::partition::{self as part, Descriptor};
use crate::sql::plan::Expr;
use crate::sql::types::Value;

#[derive(Default)]
pub(super) struct Router {
    /// Each partitioned table reached: its partitions and its key's expressions.
    levels: HashMap<u32, (Descriptor, Vec<Expr>)>,
}

fn level<'r>(
    levels: &'r mut HashMap<u32, (Descriptor, Vec<Expr>)>,
    rel: &Rel,
    cx: &mut EvalCx,
) -> PgResult<&'r (Descriptor, Vec<Expr>)> {
    match levels.entry(rel.oid) {
        std::collections::hash_map::Entry::Occupied(e) => Ok(e.into_mut()),
        std::collections::hash_map::Entry::Vacant(v) => {
            let key = rel.partition_key().ok_or_else(|| {
                PgError::internal("routing through a table that is not partitioned")
            })?;
            let snap = cx.session.catalog_snapshot()?;
            let desc = Descriptor::of(&cx.session.instance().catalog, &snap, rel)?;
            let exprs = part::key_exprs(key, &rel.columns)?;
            Ok(v.insert((desc, exprs)))
        }
    }
}

impl Router {
    /// The leaf partition of `root` (partitioned) that takes `row`.
    pub(super) fn route(
        &mut self,
        root: &Arc<Rel>,
        row: &[Value],
        cx: &mut EvalCx,
    ) -> PgResult<Arc<Rel>> {
        let mut rel = root.clone();
        for _ in 0..=part::MAX_DEPTH {
            let key = rel.partition_key().cloned().ok_or_else(|| {
                PgError::internal("routing through a table that is not partitioned")
            })?;
            let (desc, exprs) = level(&mut self.levels, &rel, cx)?;
            let k = key_of(&key, exprs, row, cx)?;
            let Some(i) = desc.find(&k) else {
                let names = crate::sql::ruleutils::partition::key_names(&key, &rel.columns);
                let detail = part::key_detail(&names, &k, &key.types, cx.session.fmt());
                return Err(part::no_partition(&rel, detail));
            };
            let next = desc.parts[i].0.clone();
            if next.partition_key().is_none() {
                return Ok(next);
            }
            rel = next;
        }
        Err(PgError::new(
            code::PROGRAM_LIMIT_EXCEEDED,
            "partition tree too deep",
        ))
    }
}

/// Checks a row written straight to partition `rel` against its bound (and, through its
/// parents, theirs): 23514 when it does not belong there.
pub(super) fn check_partition(
    rel: &Rel,
    row: &[Value],
    cx: &mut EvalCx,
    shown: impl Fn(&mut EvalCx) -> String,
) -> PgResult<()> {
    let mut cur: Option<Arc<Rel>> = None;
    for _ in 0..=part::MAX_DEPTH {
        let me: &Rel = cur.as_deref().unwrap_or(rel);
        let Some(of) = me.partition_of() else {
            return Ok(());
        };
        let bound = part::bound_values(&of.key, &of.bound)?;
        let exprs = part::key_exprs(&of.key, &me.columns)?;
        let k = key_of(&of.key, &exprs, row, cx)?;
        let fits = match bound {
            part::Bound::Default => {
                // The default partition takes what no sibling does.
                let parent = crate::sql::context::database_relation(cx.session, of.parent)?;
                match parent {
                    Some(p) => {
                        let snap = cx.session.catalog_snapshot()?;
                        let d = Descriptor::of(&cx.session.instance().catalog, &snap, &p)?;
                        !d.parts
                            .iter()
                            .any(|(_, b)| part::holds(b, &k, &of.key.types))
                    }
                    None => true,
                }
            }
            b => part::holds(&b, &k, &of.key.types),
        };
        if !fits {
            return Err(PgError::new(
                code::CHECK_VIOLATION,
                format!(
                    "new row for relation \"{}\" violates partition constraint",
                    rel.name.name
                ),
            )
            .with_detail(format!("Failing row contains {}.", shown(cx)))
            .with_table(&rel.name.schema, &rel.name.name));
        }
        cur = crate::sql::context::database_relation(cx.session, of.parent)?;
        if cur.is_none() {
            return Ok(());
        }
    }
    Ok(())
}

/// The key of `row` (a row of the partitioned table) under `key`: its columns' values, its
/// expressions evaluated.
pub fn key_of(
    key: &PartitionKey,
    exprs: &[crate::sql::plan::Expr],
    row: &[Value],
    cx: &mut super::EvalCx,
) -> PgResult<Vec<Value>> {
    let mut out = Vec::with_capacity(key.items.len());
    let mut e = exprs.iter();
    for item in &key.items {
        out.push(match item {
            IndexItem::Column(c) => row.get(*c).cloned().unwrap_or(Value::Null),
            IndexItem::Expr(_) => match e.next() {
                Some(x) => x.eval(row, cx)?,
                None => Value::Null,
            },
        });
    }
    Ok(out)
}

/// The leaves a partitioned UPDATE / DELETE target's input reads, by OID (its rows carry
/// their leaf's OID after their slot: `plan::partitions::LEAF`).
pub(super) fn target_leaves(input: &crate::sql::plan::Plan) -> HashMap<u32, Arc<Rel>> {
    crate::sql::plan::partitions::target_leaves(input)
        .into_iter()
        .map(|s| (s.rel.oid, s.rel.clone()))
        .collect()
}

/// The leaf a target row of a partitioned table came from.
pub(super) fn leaf_of(
    leaves: &HashMap<u32, Arc<Rel>>,
    row: &[Value],
    width: usize,
) -> PgResult<Arc<Rel>> {
    match row.get(width + 1) {
        Some(Value::Oid(o)) => leaves
            .get(o)
            .cloned()
            .ok_or_else(|| PgError::internal("target row from an unknown partition")),
        _ => Err(PgError::internal("target row without its partition")),
    }
}

/// Whether an updated row still belongs in `leaf`, the partition it was read from. An UPDATE
/// of a partitioned table moves a row that does not (`move_row`); an UPDATE naming the
/// partition itself fails with PostgreSQL's 23514 instead.
pub(super) fn still_fits(
    m: &crate::sql::plan::modify::Modify,
    leaf: &Rel,
    new: &[Value],
    cx: &mut EvalCx,
    shown: impl Fn(&mut EvalCx) -> String,
) -> PgResult<bool> {
    // The statement's own table's bound (when it is a partition) first: a row leaving it
    // fails, as PostgreSQL's does, whether or not the table is partitioned itself.
    if m.rel.partition_of().is_some() {
        check_partition(&m.rel, new, cx, &shown)?;
    }
    if m.rel.partition_key().is_some() {
        return match check_partition(leaf, new, cx, shown) {
            Ok(()) => Ok(true),
            Err(e) if e.code == code::CHECK_VIOLATION => Ok(false),
            Err(e) => Err(e),
        };
    }
    Ok(true)
}

/// PostgreSQL's cross-partition UPDATE: the row's partition for its new key found first (no
/// partition: 23514, nothing written), then the old version deleted from `leaf` and the new
/// row inserted into that partition. The delete's outcome when it did not happen (a
/// concurrent change: re-checked as any update's is), else the new version's slot and its
/// partition's OID.
#[allow(clippy::too_many_arguments)]
pub(super) fn move_row(
    m: &crate::sql::plan::modify::Modify,
    router: &mut Router,
    leaf: &Rel,
    id: crate::storage::RowId,
    new: &[Value],
    w: &crate::sql::engine::Writer<'_>,
    defer: &mut Vec<crate::sql::engine::Recheck>,
    cx: &mut EvalCx,
) -> PgResult<(
    Result<crate::sql::engine::Changed, crate::sql::engine::WriteError>,
    Option<u32>,
)> {
    use crate::sql::engine::{self, Changed, WriteError};
    let target = router.route(&m.rel, new, cx)?;
    match engine::delete(leaf, id, w, false) {
        Ok(Changed::Done(_)) => {}
        other => return Ok((other, None)),
    }
    match engine::insert(&target, new, w, Some(defer)) {
        Ok(nid) => Ok((Ok(Changed::Done(nid)), Some(target.oid))),
        Err(WriteError::Unique { index, key }) => {
            Err(super::table::unique_violation(&target, index, &key, cx))
        }
        // The old version is gone: waiting and trying again would lose the row.
        Err(WriteError::Wait(_)) => Err(super::table::serialization_failure()),
        Err(WriteError::Log(e)) => Err(e),
    }
}

/// Whether leaf index `l` is the partition's copy of the partitioned table's index `p`: the
/// same key and kind (a partition's columns are its parent's, in the same places).
pub fn same_index(p: &crate::catalog::IndexDef, l: &crate::catalog::IndexDef) -> bool {
    p.columns == l.columns
        && p.unique == l.unique
        && p.exprs == l.exprs
        && p.hash == l.hash
        && p.gin == l.gin
}

/// The arbiter indexes of an INSERT ... ON CONFLICT into partitioned `root` as positions in
/// `leaf`'s indexes, where its row was routed: each the leaf's copy of the root's arbiter.
pub(super) fn leaf_arbiters(root: &Rel, leaf: &Rel, arbiters: &[usize]) -> PgResult<Vec<usize>> {
    arbiters
        .iter()
        .map(|&i| {
            let p = &root.indexes[i];
            leaf.indexes
                .iter()
                .position(|l| same_index(p, l))
                .ok_or_else(|| {
                    PgError::new(
                        code::INVALID_COLUMN_REFERENCE,
                        "there is no unique or exclusion constraint matching the ON CONFLICT specification",
                    )
                })
        })
        .collect()
}

/// ON CONFLICT DO UPDATE of a partitioned table may not move the row to another partition
/// (PostgreSQL's error).
pub(super) fn upsert_stays(leaf: &Rel, new: &[Value], cx: &mut EvalCx) -> PgResult<()> {
    match check_partition(leaf, new, cx, |_| String::new()) {
        Err(e) if e.code == code::CHECK_VIOLATION => Err(PgError::feature_not_supported(
            "invalid ON UPDATE specification",
        )
        .with_detail(
            "The result tuple would appear in a different partition than the original tuple.",
        )),
        other => other,
    }
}

/// The rows of pg_partition_tree(`oid`): the relation (level 0, its own parent), then the
/// partitions below it level by level, each level's in OID order (PostgreSQL's
/// find_all_inheritors). Nothing for a relation in no partition tree. Bounded by the tree
/// (at most `MAX_PARTITIONS` per table, `MAX_DEPTH` levels).
pub(super) fn tree_rows(
    s: &mut dyn crate::sql::context::SessionCtx,
    oid: Option<u32>,
) -> PgResult<Vec<Vec<Value>>> {
    let Some(oid) = oid else {
        return Ok(Vec::new());
    };
    let rels = crate::sql::context::database_relations(s)?;
    let Some(top) = rels.iter().find(|r| r.oid == oid) else {
        return Ok(Vec::new());
    };
    if top.partition_of().is_none() && top.partition_key().is_none() {
        return Ok(Vec::new());
    }
    let show = |s: &mut dyn crate::sql::context::SessionCtx, o: u32| {
        crate::sql::func::system::catalog::regclass_of_oid(s, &[Value::Oid(o)])
    };
    let mut row = |r: &Rel, level: i32| {
        vec![
            show(s, r.oid),
            r.partition_of().map_or(Value::Null, |p| show(s, p.parent)),
            Value::Bool(r.partition_key().is_none()),
            Value::Int4(level),
        ]
    };
    let mut out = vec![row(top, 0)];
    let mut level: Vec<&Arc<Rel>> = vec![top];
    for depth in 1..=part::MAX_DEPTH as i32 {
        let mut next: Vec<&Arc<Rel>> = rels
            .iter()
            .filter(|r| {
                r.partition_of()
                    .is_some_and(|p| level.iter().any(|l| l.oid == p.parent))
            })
            .collect();
        if next.is_empty() {
            break;
        }
        next.sort_by_key(|r| r.oid);
        out.extend(next.iter().map(|r| row(r, depth)));
        level = next;
    }
    Ok(out)
}
