//! Planning of INSERT ... ON CONFLICT: which unique indexes arbitrate (PostgreSQL's
//! `infer_arbiter_indexes`) and what DO UPDATE sets.
//!
//! The conflict target is parsed the way PostgreSQL's parse analysis does it (column names
//! resolved against the target, a named constraint looked up), then matched against the
//! table's unique indexes the way its planner does: an index arbitrates when its columns are
//! exactly the named set (in any order). The matching error (42P10) belongs to planning, after
//! the SET list and RETURNING were analyzed, so it is handed back to be raised then.
//!
//! DO UPDATE's SET and WHERE see two rows side by side: the existing row under the target's
//! name (or alias) and the proposed one under `excluded`; the executor evaluates them over the
//! existing row's columns followed by the proposed row's.

use pg_query::protobuf::{self, node::Node as N};

use super::super::{loc, Expr, Planner, Scope, ScopeCol};
use super::ModifyKind;
use crate::catalog::{ConstraintKind, IndexItem};
use crate::error::{code, PgError, PgResult};
use crate::sql::engine::Rel;

/// What INSERT does with a proposed row that conflicts.
#[derive(Debug, Clone)]
pub enum ConflictAction {
    /// DO NOTHING: the row is skipped.
    Nothing,
    /// DO UPDATE: `sets` (column, expression) and `pred` (the WHERE), both over the existing
    /// row followed by the proposed (excluded) one.
    Update {
        sets: Vec<(usize, Expr)>,
        pred: Option<Expr>,
    },
}

/// The ON CONFLICT clause of an INSERT, planned.
#[derive(Debug, Clone)]
pub struct OnConflict {
    /// Positions (in the relation's `indexes`) of the unique indexes whose conflicts take the
    /// action; every unique index for DO NOTHING without a target. A conflict in any other
    /// unique index is an error (23505) as for a plain INSERT.
    pub arbiters: Vec<usize>,
    pub action: ConflictAction,
}

/// PostgreSQL's error for `excluded` in RETURNING (it is in the query, but out of reach there).
pub(super) fn excluded_in_returning(e: PgError, kind: &ModifyKind) -> PgError {
    if !matches!(kind, ModifyKind::Upsert(_))
        || e.code != code::UNDEFINED_TABLE
        || e.message != "missing FROM-clause entry for table \"excluded\""
    {
        return e;
    }
    let position = e.position;
    let mut e = PgError::new(
        code::UNDEFINED_TABLE,
        "invalid reference to FROM-clause entry for table \"excluded\"",
    )
    .with_hint(
        "There is an entry for table \"excluded\", but it cannot be referenced from this part of the query.",
    );
    e.position = position;
    e
}

/// The conflict target as parse analysis leaves it.
enum Target {
    /// No target (DO NOTHING only): every unique index.
    Any,
    /// The items named (a column position, or an expression's deparsed text) and the WHERE
    /// clause's text, matched against each unique index's items and predicate.
    Columns(Vec<IndexItem>, Option<String>),
    /// ON CONSTRAINT: the constraint's index OID, or None for a constraint without one.
    Constraint(Option<u32>),
}

impl Planner<'_> {
    /// ON CONFLICT of an INSERT into `rel`, whose row `scope` names. Returns the plan and the
    /// error of the arbiter matching, which PostgreSQL raises when it plans (after RETURNING).
    pub(super) fn plan_on_conflict(
        &mut self,
        rel: &Rel,
        oc: &protobuf::OnConflictClause,
        scope: &Scope,
    ) -> PgResult<(OnConflict, Option<PgError>)> {
        use protobuf::OnConflictAction as A;
        let update = oc.action == A::OnconflictUpdate as i32;
        let target = match oc.infer.as_deref() {
            None if update => {
                return Err(PgError::syntax(
                    "ON CONFLICT DO UPDATE requires inference specification or constraint name",
                )
                .with_hint("For example, ON CONFLICT (column_name).")
                .at(loc(oc.location)))
            }
            None => Target::Any,
            Some(infer) if !infer.conname.is_empty() => {
                let c = rel
                    .constraints
                    .iter()
                    .find(|c| c.name == infer.conname)
                    .ok_or_else(|| {
                        PgError::new(
                            code::UNDEFINED_OBJECT,
                            format!(
                                "constraint \"{}\" for table \"{}\" does not exist",
                                infer.conname, rel.name.name
                            ),
                        )
                    })?;
                Target::Constraint(match c.kind {
                    ConstraintKind::PrimaryKey { index } | ConstraintKind::Unique { index } => {
                        Some(index)
                    }
                    _ => None,
                })
            }
            Some(infer) => {
                let mut cols = Vec::new();
                for el in &infer.index_elems {
                    let Some(N::IndexElem(ie)) = el.node.as_ref() else {
                        continue;
                    };
                    match ie.expr.as_ref().and_then(|e| e.node.as_ref()) {
                        // `(a)` is the column itself.
                        Some(N::ColumnRef(c))
                            if c.fields.len() == 1
                                && rel.live_columns().any(|(_, col)| {
                                    Some(col.name.as_str())
                                        == c.fields[0].node.as_ref().and_then(|f| match f {
                                            N::String(s) => Some(s.sval.as_str()),
                                            _ => None,
                                        })
                                }) =>
                        {
                            let Some(N::String(name)) = c.fields[0].node.as_ref() else {
                                continue;
                            };
                            let col = rel
                                .live_columns()
                                .find(|(_, col)| col.name == name.sval)
                                .map(|(i, _)| i)
                                .expect("matched");
                            cols.push(IndexItem::Column(col));
                        }
                        Some(e) => {
                            // Bound for its errors; matched by its text against the indexes'.
                            self.bind(e, &target_only(scope, rel), None)?;
                            cols.push(IndexItem::Expr(crate::sql::parser::deparse_expr(e)?));
                        }
                        None => {
                            let col = rel
                                .live_columns()
                                .find(|(_, c)| c.name == ie.name)
                                .map(|(i, _)| i)
                                .ok_or_else(|| {
                                    PgError::new(
                                        code::UNDEFINED_COLUMN,
                                        format!("column \"{}\" does not exist", ie.name),
                                    )
                                    .at(loc(infer.location))
                                })?;
                            // The inferred arbiter's columns are read (SELECT privilege).
                            if let Some(cx) = &self.tables {
                                cx.mark(
                                    Some((rel.oid, col as i16 + 1)),
                                    crate::sql::privs::ColUse::Select,
                                );
                            }
                            cols.push(IndexItem::Column(col));
                        }
                    }
                }
                let mut pred = None;
                if let Some(w) = infer.where_clause.as_ref().and_then(|w| w.node.as_ref()) {
                    // A partial index qualifies when its predicate is this clause or among its
                    // conjuncts (PostgreSQL proves implication; the literal match covers what
                    // applications write); an index without one always does.
                    let (e, t) = self.bind(w, &target_only(scope, rel), None)?;
                    self.coerce_bool(e, t, "WHERE", w)?;
                    pred = Some(crate::sql::parser::deparse_expr(w)?);
                }
                Target::Columns(cols, pred)
            }
        };
        let action = if update {
            let mut both = scope.clone();
            // EXCLUDED needs no privilege (PostgreSQL's exclRte has none to check).
            both.cols.extend(scope.cols.iter().map(|c| ScopeCol {
                rel: "excluded".to_string(),
                origin: None,
                table: None,
                ..c.clone()
            }));
            let sets = self.bind_sets(rel, &oc.target_list, &both)?;
            let pred = match oc.where_clause.as_ref().and_then(|w| w.node.as_ref()) {
                Some(w) => {
                    self.state.clause = Some("WHERE");
                    let r = self.bind(w, &both, None);
                    self.state.clause = None;
                    let (e, t) = r?;
                    Some(self.coerce_bool(e, t, "WHERE", w)?)
                }
                None => None,
            };
            ConflictAction::Update { sets, pred }
        } else {
            ConflictAction::Nothing
        };
        let unique = || {
            rel.indexes
                .iter()
                .enumerate()
                .filter(|(_, d)| d.unique)
                .map(|(i, _)| i)
        };
        let (arbiters, err): (Vec<usize>, _) = match target {
            Target::Any => (unique().collect(), None),
            Target::Constraint(Some(oid)) => (
                unique().filter(|&i| rel.indexes[i].oid == oid).collect(),
                None,
            ),
            Target::Constraint(None) => (
                Vec::new(),
                Some(PgError::new(
                    code::WRONG_OBJECT_TYPE,
                    "constraint in ON CONFLICT clause has no associated index",
                )),
            ),
            Target::Columns(cols, pred) => {
                let mut want = cols;
                want.sort_by(item_order);
                want.dedup();
                let found: Vec<usize> = unique()
                    .filter(|&i| {
                        let d = &rel.indexes[i];
                        let (mut have, ipred) = match d.exprs.as_deref() {
                            None => (
                                d.columns.iter().map(|&c| IndexItem::Column(c)).collect(),
                                None,
                            ),
                            Some(x) => (x.items.clone(), x.predicate.as_deref()),
                        };
                        have.sort_by(item_order);
                        have.dedup();
                        have == want && ipred.is_none_or(|p| implied(pred.as_deref(), p))
                    })
                    .collect();
                let err = found.is_empty().then(|| {
                    PgError::new(
                        code::INVALID_COLUMN_REFERENCE,
                        "there is no unique or exclusion constraint matching the ON CONFLICT specification",
                    )
                });
                (found, err)
            }
        };
        Ok((OnConflict { arbiters, action }, err))
    }
}

/// A total order of index items, to compare them as sets.
fn item_order(a: &IndexItem, b: &IndexItem) -> std::cmp::Ordering {
    match (a, b) {
        (IndexItem::Column(x), IndexItem::Column(y)) => x.cmp(y),
        (IndexItem::Column(_), IndexItem::Expr(_)) => std::cmp::Ordering::Less,
        (IndexItem::Expr(_), IndexItem::Column(_)) => std::cmp::Ordering::Greater,
        (IndexItem::Expr(x), IndexItem::Expr(y)) => x.cmp(y),
    }
}

/// Whether the conflict target's WHERE (deparsed) implies a partial index's predicate: the
/// same text, or each of the predicate's conjuncts among the clause's.
fn implied(clause: Option<&str>, predicate: &str) -> bool {
    let Some(clause) = clause else {
        return false;
    };
    let conjuncts = |t: &str| -> Vec<String> {
        match crate::sql::plan::modify::parse_expr(t) {
            Ok(n) => super::super::conjunct_texts(&n),
            Err(_) => vec![t.to_string()],
        }
    };
    let have = conjuncts(clause);
    conjuncts(predicate).iter().all(|p| have.contains(p))
}

/// The scope of the target alone (the conflict target's columns and predicate see no
/// `excluded`).
fn target_only(scope: &Scope, rel: &Rel) -> Scope {
    Scope {
        cols: scope.cols[..rel.columns.len().min(scope.cols.len())].to_vec(),
        grouped: None,
    }
}
