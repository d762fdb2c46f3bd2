//! ALTER TABLE p ATTACH PARTITION t FOR VALUES ... and ALTER TABLE p DETACH PARTITION t.
//!
//! Attaching makes an existing table a partition: its columns must be the parent's (no column
//! the parent lacks, each of the parent's with the same type, NOT NULL where the parent's is,
//! and, in threadgres, in the parent's places, since a partition's rows are read as the
//! parent's), it must have the parent's CHECK constraints, and its bound must not overlap a
//! sibling's. Its rows (or its leaves' rows, when it is partitioned itself) must all fall in
//! the bound, and no row of the default partition may fall in it (PostgreSQL's validation
//! scans, with its errors). The parent's keys it lacks are added to it (PostgreSQL's
//! AttachPartitionEnsureIndexes, which makes the partition's copy of each parent index);
//! then its new version names its parent and bound (`catalog::partition`).
//!
//! Detaching writes a new version without the parent: the table keeps its rows, columns,
//! indexes and constraints and becomes a plain table (or a partitioned table of its own, if
//! it was one). Both are writes of the session's transaction, so a rollback undoes them.

use std::sync::Arc;

use pg_query::protobuf::{self, node::Node as N, AlterTableType as At};

use super::partition::{analyze_of, check_default_rows, check_overlap, resolve_bound, Of};
use super::*;
use crate::catalog::partition::{PartitionOf, Partitioning};
use crate::sql::partition::{self as part, Bound, Descriptor};

/// ATTACH (with its bound) or DETACH of partition `child` of `parent`.
#[derive(Debug, Clone)]
pub struct Attach {
    pub parent: (String, String),
    pub child: (String, String),
    /// The bound as written; None for DETACH.
    pub of: Option<Box<Of>>,
}

/// ALTER TABLE ... ATTACH / DETACH PARTITION (alone in its statement); None for other ALTER
/// TABLE statements.
pub fn analyze(a: &protobuf::AlterTableStmt) -> Option<PgResult<Attach>> {
    let [cmd] = a.cmds.as_slice() else {
        return None;
    };
    let Some(N::AlterTableCmd(c)) = cmd.node.as_ref() else {
        return None;
    };
    let sub = At::try_from(c.subtype).ok()?;
    if sub != At::AtAttachPartition && sub != At::AtDetachPartition {
        return None;
    }
    let Some(N::PartitionCmd(pc)) = c.def.as_ref().and_then(|d| d.node.as_ref()) else {
        return Some(Err(PgError::syntax(
            "ATTACH / DETACH PARTITION without a table",
        )));
    };
    let (Some(parent), Some(child)) = (a.relation.as_ref(), pc.name.as_ref()) else {
        return Some(Err(PgError::syntax(
            "ATTACH / DETACH PARTITION without a table",
        )));
    };
    if pc.concurrent {
        return Some(Err(PgError::feature_not_supported(
            "DETACH PARTITION CONCURRENTLY is not supported yet",
        )));
    }
    let of = match (sub, pc.bound.as_ref()) {
        (At::AtAttachPartition, Some(b)) => match analyze_of(parent, b, &[]) {
            Ok(of) => Some(Box::new(of)),
            Err(e) => return Some(Err(e)),
        },
        (At::AtAttachPartition, None) => {
            return Some(Err(PgError::syntax("ATTACH PARTITION without a bound")))
        }
        _ => None,
    };
    Some(Ok(Attach {
        parent: rel_name(parent),
        child: rel_name(child),
        of,
    }))
}

fn mismatch(msg: String) -> PgError {
    PgError::new(code::DATATYPE_MISMATCH, msg)
}

pub fn execute(cx: &mut dyn SessionCtx, a: &Attach) -> PgResult<()> {
    let Some(parent) = super::alter::relation(cx, &a.parent, false)? else {
        return Ok(());
    };
    let Some(child) = super::alter::relation(cx, &a.child, false)? else {
        return Ok(());
    };
    for r in [&parent, &child] {
        if r.kind != RelKind::Table {
            return Err(PgError::new(
                code::WRONG_OBJECT_TYPE,
                format!("\"{}\" is not a table", r.name.name),
            ));
        }
    }
    match &a.of {
        Some(of) => attach(cx, &parent, &child, of),
        None => detach(cx, &parent, &child),
    }
}

fn detach(cx: &mut dyn SessionCtx, parent: &Rel, child: &Arc<Rel>) -> PgResult<()> {
    if child.partition_of().map(|p| p.parent) != Some(parent.oid) {
        return Err(PgError::new(
            code::UNDEFINED_TABLE,
            format!(
                "relation \"{}\" is not a partition of relation \"{}\"",
                child.name.name, parent.name.name
            ),
        ));
    }
    replace_with_data(cx, child, child.data.clone(), |n| {
        n.partition = n.partition.take().and_then(|p| {
            p.key.is_some().then(|| {
                Box::new(Partitioning {
                    key: p.key,
                    of: None,
                })
            })
        });
    })?;
    Ok(())
}

fn attach(cx: &mut dyn SessionCtx, parent: &Arc<Rel>, child: &Arc<Rel>, of: &Of) -> PgResult<()> {
    let Some(key) = parent.partition_key().cloned() else {
        return Err(PgError::new(
            code::INVALID_OBJECT_DEFINITION,
            format!("table \"{}\" is not partitioned", parent.name.name),
        ));
    };
    let (spec, bound) = resolve_bound(cx, of, parent, &key)?;
    if child.partition_of().is_some() {
        return Err(PgError::new(
            code::WRONG_OBJECT_TYPE,
            format!("\"{}\" is already a partition", child.name.name),
        ));
    }
    if child.oid == parent.oid
        || part::ancestors(cx, parent)?
            .iter()
            .any(|r| r.oid == child.oid)
    {
        return Err(
            PgError::new(code::DUPLICATE_TABLE, "circular inheritance not allowed").with_detail(
                format!(
                    "\"{}\" is already a child of \"{}\".",
                    parent.name.name, child.name.name
                ),
            ),
        );
    }
    let temp = |r: &Rel| r.persistence == crate::catalog::Persistence::Temporary;
    if temp(child) && !temp(parent) {
        return Err(PgError::new(
            code::WRONG_OBJECT_TYPE,
            format!(
                "cannot attach a temporary relation as partition of permanent relation \"{}\"",
                parent.name.name
            ),
        ));
    }
    if temp(parent) && !temp(child) {
        return Err(PgError::new(
            code::WRONG_OBJECT_TYPE,
            format!(
                "cannot attach a permanent relation as partition of temporary relation \"{}\"",
                parent.name.name
            ),
        ));
    }
    let live = |r: &Rel, name: &str| r.columns.iter().position(|c| !c.dropped && c.name == name);
    for c in child.columns.iter().filter(|c| !c.dropped) {
        if live(parent, &c.name).is_none() {
            return Err(mismatch(format!(
                "table \"{}\" contains column \"{}\" not found in parent \"{}\"",
                child.name.name, c.name, parent.name.name
            ))
            .with_detail("The new partition may contain only the columns present in parent."));
        }
    }
    let snap = cx.catalog_snapshot()?;
    let desc = Descriptor::of(&cx.instance().catalog, &snap, parent)?;
    if desc.parts.len() >= part::MAX_PARTITIONS {
        return Err(PgError::new(
            code::PROGRAM_LIMIT_EXCEEDED,
            format!(
                "table \"{}\" has the most partitions a table may have ({})",
                parent.name.name,
                part::MAX_PARTITIONS
            ),
        ));
    }
    check_overlap(&*cx, &child.name.name, of, &key, &bound, &desc)?;
    // PostgreSQL's MergeAttributesIntoExisting and MergeConstraintsIntoExisting.
    for p in parent.columns.iter().filter(|c| !c.dropped) {
        let Some(i) = live(child, &p.name) else {
            return Err(mismatch(format!(
                "child table is missing column \"{}\"",
                p.name
            )));
        };
        let c = &child.columns[i];
        if (c.type_oid, c.typmod, c.domain) != (p.type_oid, p.typmod, p.domain) {
            return Err(mismatch(format!(
                "child table \"{}\" has different type for column \"{}\"",
                child.name.name, p.name
            )));
        }
        if p.not_null && !c.not_null {
            return Err(mismatch(format!(
                "column \"{}\" in child table must be marked NOT NULL",
                p.name
            )));
        }
    }
    for k in &parent.constraints {
        if matches!(k.kind, ConstraintKind::Check { .. })
            && !child
                .constraints
                .iter()
                .any(|c| c.name == k.name && matches!(c.kind, ConstraintKind::Check { .. }))
        {
            return Err(mismatch(format!(
                "child table is missing constraint \"{}\"",
                k.name
            )));
        }
    }
    // A partition's rows are read as its parent's: the same columns in the same places.
    let same_places = child.columns.len() == parent.columns.len()
        && child
            .columns
            .iter()
            .zip(parent.columns.iter())
            .all(|(c, p)| !c.dropped && !p.dropped && c.name == p.name);
    if !same_places {
        return Err(PgError::feature_not_supported(
            "attaching a table whose columns are not in its parent's order is not supported yet",
        ));
    }
    let depth = part::ancestors(cx, parent)?.len() + 1 + subtree_depth(cx, child)?;
    part::check_depth(depth)?;
    check_rows(cx, parent, child, &key, &bound, &desc)?;
    let default = desc
        .parts
        .iter()
        .find(|(_, b)| *b == Bound::Default)
        .map(|(r, _)| r.clone());
    if let (Some(d), false) = (&default, bound == Bound::Default) {
        check_default_rows(cx, parent, d, &bound)?;
    }
    // The parent's keys the table lacks (PostgreSQL's AttachPartitionEnsureIndexes).
    let missing: Vec<super::alter::Cmd> = parent
        .indexes
        .iter()
        .filter(|d| d.plain() && !d.hash && (d.unique || d.primary))
        .filter(|d| {
            !child
                .indexes
                .iter()
                .any(|l| crate::sql::exec::partition_route::same_index(d, l))
        })
        .map(|d| super::alter::Cmd::AddKey {
            key: KeySpec {
                primary: d.primary && !child.indexes.iter().any(|l| l.primary),
                ..KeySpec::of_parent(parent, d)
            },
            column: None,
        })
        .collect();
    if !missing.is_empty() {
        super::alter::alter_table(cx, child, &missing)?;
    }
    let child = find(cx, &child.name.schema, &child.name.name)?
        .ok_or_else(|| PgError::internal("attached table went away"))?;
    let fmt = cx.fmt().clone();
    let place = PartitionOf {
        parent: parent.oid,
        bound: spec,
        shown: part::show_bound(&bound, &key, &fmt),
        key,
    };
    replace_with_data(cx, &child, child.data.clone(), |n| {
        let own = n.partition.take().and_then(|p| p.key);
        n.partition = Some(Box::new(Partitioning {
            key: own,
            of: Some(place),
        }));
    })?;
    Ok(())
}

/// How many levels of partitions lie below `rel` (0 for a plain table).
fn subtree_depth(cx: &mut dyn SessionCtx, rel: &Arc<Rel>) -> PgResult<usize> {
    let snap = cx.catalog_snapshot()?;
    let catalog = &cx.instance().catalog;
    let mut level = vec![rel.clone()];
    let mut depth = 0;
    while depth <= part::MAX_DEPTH {
        let next: Vec<Arc<Rel>> = level
            .iter()
            .filter(|r| r.partition_key().is_some())
            .flat_map(|r| part::children(catalog, &snap, r))
            .collect();
        if next.is_empty() {
            break;
        }
        depth += 1;
        level = next;
    }
    Ok(depth)
}

/// Every row of the table being attached (of its leaves, when it is partitioned) must fall in
/// its bound: a default partition's, in no sibling's (PostgreSQL's validation scan).
fn check_rows(
    cx: &mut dyn SessionCtx,
    parent: &Rel,
    child: &Arc<Rel>,
    key: &crate::catalog::partition::PartitionKey,
    bound: &Bound,
    desc: &Descriptor,
) -> PgResult<()> {
    let exprs = part::key_exprs(key, &parent.columns)?;
    let snap = cx.catalog_snapshot()?;
    for leaf in part::leaves(&cx.instance().catalog, &snap, child) {
        let violates = |k: &[crate::sql::types::Value]| match bound {
            Bound::Default => desc
                .parts
                .iter()
                .any(|(_, b)| part::holds(b, k, &key.types)),
            b => !part::holds(b, k, &key.types),
        };
        if super::partition::any_row_key(cx, &leaf, key, &exprs, violates)? {
            return Err(PgError::new(
                code::CHECK_VIOLATION,
                format!(
                    "partition constraint of relation \"{}\" is violated by some row",
                    leaf.name.name
                ),
            )
            .with_table(&leaf.name.schema, &leaf.name.name));
        }
    }
    Ok(())
}
