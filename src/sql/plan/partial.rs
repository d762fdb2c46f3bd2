//! Expression and partial indexes as the planner sees them: their stored texts bound over the
//! table's columns (also the executor's, which evaluates them), and whether a query's
//! conjuncts imply an index's predicate.

use pg_query::protobuf::node::Node as N;

use super::expr::same_expr;
use super::modify::parse_expr;
use super::{Expr, Planner};
use crate::catalog::{ColumnDef, IndexDef, IndexItem};
use crate::error::PgResult;
use crate::sql::engine::Rel;
use crate::sql::types::{FormatCtx, Type};

/// The top-level conjuncts of `n` (its AND's arguments, nested ANDs flattened), each deparsed.
pub fn conjunct_texts(n: &N) -> Vec<String> {
    let mut out = Vec::new();
    conjuncts_of(n, &mut out);
    out
}

fn conjuncts_of(n: &N, out: &mut Vec<String>) {
    if let N::BoolExpr(b) = n {
        if b.boolop == pg_query::protobuf::BoolExprType::AndExpr as i32 {
            for a in &b.args {
                if let Some(a) = a.node.as_ref() {
                    conjuncts_of(a, out);
                }
            }
            return;
        }
    }
    if let Ok(t) = crate::sql::parser::deparse_expr(n) {
        out.push(t);
    }
}

/// An index expression (or, with `predicate`, an index's WHERE as a boolean) bound over a row
/// of `columns`, with its type.
pub fn bind_index_text(columns: &[ColumnDef], n: &N, predicate: bool) -> PgResult<(Expr, Type)> {
    let mut params = Vec::new();
    let fmt = FormatCtx::default();
    let mut p = Planner::new(&mut params, &fmt);
    if predicate {
        Ok((p.bind_predicate(columns, n)?, Type::BOOL))
    } else {
        p.bind_over_columns("", columns, n)
    }
}

/// How an expression or partial index sees a query's conjuncts.
pub struct IndexView {
    /// The key items as column positions: a column item its own, expression item `k` the
    /// position `ncols + k` past the table's columns.
    pub columns: Vec<usize>,
    /// The conjuncts with each occurrence of an item's expression replaced by its position.
    pub parts: Vec<Expr>,
    /// The type of expression item `k` at `k` (a column item's slot holds its column's type).
    pub types: Vec<Type>,
    /// The conjuncts (positions in `parts`) that are conjuncts of the predicate: every row
    /// the index holds satisfies them.
    pub implied: Vec<usize>,
}

/// The view of `parts` (a query's conjuncts over `rel`'s row) through index `def`; None when
/// the index cannot serve them: its predicate is not implied, or it does not bind.
pub fn index_view(rel: &Rel, def: &IndexDef, parts: &[Expr]) -> Option<IndexView> {
    let x = def.exprs.as_deref()?;
    let mut implied_parts = Vec::new();
    if let Some(p) = &x.predicate {
        let n = parse_expr(p).ok()?;
        let (pred, _) = bind_index_text(&rel.columns, &n, true).ok()?;
        let mut need = Vec::new();
        flatten_and(pred, &mut need);
        if !need.iter().all(|c| implied(c, parts)) {
            return None;
        }
        implied_parts = (0..parts.len())
            .filter(|&k| need.iter().any(|c| same_expr(&parts[k], c)))
            .collect();
    }
    let ncols = rel.columns.len();
    let mut columns = Vec::with_capacity(x.items.len());
    let mut types = Vec::with_capacity(x.items.len());
    let mut exprs = Vec::new();
    for (k, it) in x.items.iter().enumerate() {
        match it {
            IndexItem::Column(c) => {
                columns.push(*c);
                types.push(Type(rel.columns.get(*c)?.type_oid));
            }
            IndexItem::Expr(t) => {
                let n = parse_expr(t).ok()?;
                let (e, ty) = bind_index_text(&rel.columns, &n, false).ok()?;
                columns.push(ncols + k);
                types.push(ty);
                exprs.push((ncols + k, e));
            }
        }
    }
    let parts = parts
        .iter()
        .map(|p| {
            let mut p = p.clone();
            p.walk_mut(&mut |e| {
                if let Some((c, _)) = exprs.iter().find(|(_, x)| same_expr(e, x)) {
                    *e = Expr::Column(*c);
                }
            });
            p
        })
        .collect();
    Some(IndexView {
        columns,
        parts,
        types,
        implied: implied_parts,
    })
}

fn flatten_and(e: Expr, out: &mut Vec<Expr>) {
    match e {
        Expr::And(list) => list.into_iter().for_each(|x| flatten_and(x, out)),
        other => out.push(other),
    }
}

/// Whether the conjuncts `parts` imply `c`, one conjunct of an index predicate: `c` is among
/// them, or `c` is `col IS NOT NULL` and a strict operator compares `col` in one of them (a
/// comparison with NULL is never true).
fn implied(c: &Expr, parts: &[Expr]) -> bool {
    if parts.iter().any(|p| same_expr(p, c)) {
        return true;
    }
    if let Expr::IsNull(arg, true) = c {
        if let Expr::Column(col) = **arg {
            return parts.iter().any(|p| match p {
                Expr::Bin(_, a, b) => {
                    matches!(**a, Expr::Column(x) if x == col)
                        || matches!(**b, Expr::Column(x) if x == col)
                }
                _ => false,
            });
        }
    }
    false
}
