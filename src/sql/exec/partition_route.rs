//! Where a row written to a partitioned table goes: down its partition tree, one level at a
//! time, to the leaf whose bound holds it (`sql::partition` says how a bound is matched); and
//! the check of a row written straight to a partition against its bound and its ancestors'
//! (PostgreSQL's partition constraint). One [`Router`] serves one statement: each level's
//! partitions are read from the catalog the first time a row reaches it and kept (at most
//! one descriptor per partitioned table of the tree, bounded by the tree).

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
