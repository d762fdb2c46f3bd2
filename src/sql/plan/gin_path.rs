//! GIN access paths: `Filter(SeqScan)` whose conjuncts include `col op operand` for an
//! operator a GIN index on `col` serves (`engine::gin`) becomes
//! `BitmapHeapScan(BitmapIndexScan)`, PostgreSQL's plan for a GIN index: the index scan
//! collects the chain roots the conditions' keys select, the heap scan fetches them in slot
//! order and rechecks the conditions on each visible version (the index is lossy), the other
//! conjuncts staying in a filter above.
//!
//! An operand must read no column of the row (a constant, a parameter, an expression over
//! them): it is evaluated once, when the index scan starts. Every usable conjunct on one
//! index goes into that index's scan (PostgreSQL's `Index Cond: (a AND b)`); where two GIN
//! indexes could serve, the cheaper is taken (no BitmapAnd: the other's conjuncts stay in
//! the filter). The choice against the sequential scan is by cost (`cost.rs`), whose
//! selectivity for these operators counts the query's keys in the index itself.

use super::{Column, Expr, Node, Plan, ScanRel};
use crate::sql::engine::gin;
use crate::sql::types::Type;

/// For a conjunct over `rel`'s row: the GIN index (position in `rel.indexes`) and operator
/// name it can be served with, the column first. None when no index serves it.
pub fn served(rel: &crate::sql::engine::Rel, e: &Expr) -> Option<(usize, &'static str)> {
    let Expr::Bin(f, l, r) = e else {
        return None;
    };
    let Expr::Column(c) = **l else {
        return None;
    };
    if reads_row(r) {
        return None;
    }
    let ty = Type(rel.columns.get(c)?.type_oid);
    rel.indexes.iter().enumerate().find_map(|(i, d)| {
        let class = gin::class_of(d)?;
        if d.columns.first() != Some(&c) {
            return None;
        }
        gin::served_operator(class, f, ty).map(|op| (i, op))
    })
}

/// Whether `e` reads a column of the row, an enclosing query's row or a subquery.
fn reads_row(e: &Expr) -> bool {
    e.any(&mut |x| matches!(x, Expr::Column(_) | Expr::Outer(..) | Expr::Subquery(..)))
}

/// The bitmap scan of each GIN index some of `parts` use, with the positions of the parts
/// it covers.
pub(super) fn candidates(
    rel: &ScanRel,
    rowid: bool,
    parts: &[Expr],
    columns: &[Column],
) -> Vec<(Plan, Vec<usize>)> {
    let mut by_index: Vec<(usize, Vec<usize>)> = Vec::new();
    for (k, p) in parts.iter().enumerate() {
        if let Some((ix, _)) = served(&rel.rel, p) {
            match by_index.iter_mut().find(|(i, _)| *i == ix) {
                Some((_, used)) => used.push(k),
                None => by_index.push((ix, vec![k])),
            }
        }
    }
    by_index
        .into_iter()
        .map(|(index, used)| {
            let conds: Vec<Expr> = used.iter().map(|&k| parts[k].clone()).collect();
            let bitmap = Plan {
                node: Node::BitmapIndexScan {
                    rel: rel.clone(),
                    index,
                    conds: conds.clone(),
                },
                columns: Vec::new(),
            };
            let scan = Plan {
                node: Node::BitmapHeapScan {
                    rel: rel.clone(),
                    rowid,
                    bitmap: Box::new(bitmap),
                    recheck: conds,
                },
                columns: columns.to_vec(),
            };
            (scan, used)
        })
        .collect()
}
