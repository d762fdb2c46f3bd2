//! SELECT ... FOR UPDATE / NO KEY UPDATE / SHARE / KEY SHARE [OF name, ...] [NOWAIT | SKIP
//! LOCKED]: which tables of the FROM clause get their rows locked, and where the `LockRows`
//! node goes.
//!
//! As in PostgreSQL, `LockRows` sits above the sort and below LIMIT / OFFSET: only the rows the
//! query returns (and those OFFSET passes over) are locked, so `ORDER BY id LIMIT 1 FOR UPDATE
//! SKIP LOCKED` takes one row, the first one not locked by others (a job queue). Each locked
//! table's scan carries its rows' slots (a hidden column after the table's columns); the
//! projection below the sort appends the whole FROM row as hidden columns, so that when a
//! row was updated by a transaction that committed meanwhile (READ COMMITTED), `LockRows` can
//! put the newest version in, re-check the WHERE clause (and the ON conditions of the inner
//! joins that lead the FROM row), and compute the projected columns again (PostgreSQL's
//! EvalPlanQual, restricted to the row's own table: the other tables' rows are kept as they
//! were read, and the rows are not sorted again, as in PostgreSQL).
//!
//! Errors follow PostgreSQL's `CheckSelectLocking` and `transformLockingClause` texts; they are
//! reported once the query is analyzed, as PostgreSQL reports them.

use std::sync::Arc;

use pg_query::protobuf::{self, node::Node as N};

use super::{loc, Expr, JoinKind, LockWait, Node, Plan};
use crate::error::{code, PgError, PgResult};
use crate::sql::engine::Rel;
use crate::storage::LockMode as RowLockMode;

/// What `LockRows` needs to lock and re-check its input's rows.
#[derive(Debug, Clone)]
pub struct LockSpec {
    /// The locked tables, in FROM order.
    pub targets: Vec<LockTarget>,
    /// Where the FROM row starts in an input row; the columns before it are `exprs`.
    pub from: usize,
    /// The projected columns, over the FROM row: computed again for a newer version.
    pub exprs: Vec<Expr>,
    /// The WHERE clause and leading inner joins' ON conditions, over the FROM row, re-checked
    /// on a row updated concurrently (READ COMMITTED).
    pub recheck: Option<Expr>,
}

/// One locked table of a FOR UPDATE query.
#[derive(Debug, Clone)]
pub struct LockTarget {
    pub rel: Arc<Rel>,
    /// The table's first column in the FROM row.
    pub base: usize,
    /// The column of the FROM row that holds the row's slot.
    pub rowid: usize,
    pub mode: RowLockMode,
    pub wait: LockWait,
}

struct Clause {
    /// OF names and their positions; empty: every table of the FROM clause.
    names: Vec<(String, i32)>,
    matched: Vec<bool>,
    wait: LockWait,
    mode: RowLockMode,
}

impl Clause {
    fn strength(&self) -> &'static str {
        strength(self.mode)
    }
}

fn strength(mode: RowLockMode) -> &'static str {
    match mode {
        RowLockMode::KeyShare => "FOR KEY SHARE",
        RowLockMode::Share => "FOR SHARE",
        RowLockMode::NoKeyUpdate => "FOR NO KEY UPDATE",
        RowLockMode::Update => "FOR UPDATE",
    }
}

/// The locking clauses of one SELECT while its FROM clause is planned.
pub(super) struct FromLocks {
    clauses: Vec<Clause>,
    /// Strength and wait policy of each table reference planned with its rows' slots, in
    /// planning order, which is the order of their columns in the FROM row.
    claimed: Vec<(RowLockMode, LockWait)>,
    /// The first error met, reported after analysis (as PostgreSQL does).
    error: Option<PgError>,
}

impl FromLocks {
    /// The locking clauses of `s` (None without any).
    pub(super) fn parse(s: &protobuf::SelectStmt) -> Option<FromLocks> {
        use protobuf::LockClauseStrength as S;
        use protobuf::LockWaitPolicy as W;
        if s.locking_clause.is_empty() {
            return None;
        }
        let mut error = None;
        let mut clauses = Vec::new();
        for c in &s.locking_clause {
            let Some(N::LockingClause(l)) = c.node.as_ref() else {
                continue;
            };
            let wait = match l.wait_policy {
                x if x == W::LockWaitError as i32 => LockWait::Error,
                x if x == W::LockWaitSkip as i32 => LockWait::Skip,
                _ => LockWait::Block,
            };
            let mode = match l.strength {
                x if x == S::LcsForkeyshare as i32 => RowLockMode::KeyShare,
                x if x == S::LcsForshare as i32 => RowLockMode::Share,
                x if x == S::LcsFornokeyupdate as i32 => RowLockMode::NoKeyUpdate,
                _ => RowLockMode::Update,
            };
            let mut names = Vec::new();
            for r in &l.locked_rels {
                let Some(N::RangeVar(rv)) = r.node.as_ref() else {
                    continue;
                };
                if !rv.schemaname.is_empty() || !rv.catalogname.is_empty() {
                    error.get_or_insert_with(|| {
                        PgError::new(
                            code::SYNTAX_ERROR,
                            format!("{} must specify unqualified relation names", strength(mode)),
                        )
                        .at(loc(rv.location))
                    });
                }
                names.push((rv.relname.clone(), rv.location));
            }
            clauses.push(Clause {
                matched: vec![false; names.len()],
                names,
                wait,
                mode,
            });
        }
        Some(FromLocks {
            clauses,
            claimed: Vec::new(),
            error,
        })
    }

    /// The clauses that apply to FROM item `name` (marking the OF names it matches).
    pub(super) fn applying(&mut self, name: &str) -> Vec<usize> {
        let mut out = Vec::new();
        for (i, c) in self.clauses.iter_mut().enumerate() {
            if c.names.is_empty() {
                out.push(i);
            }
            for (k, (n, _)) in c.names.iter().enumerate() {
                if n == name {
                    c.matched[k] = true;
                    if !out.contains(&i) {
                        out.push(i);
                    }
                }
            }
        }
        out
    }

    /// A table reference named `name` (its alias, or its name): whether its rows are locked.
    /// Several clauses for one table: the strongest strength and wait policy win (NOWAIT over
    /// SKIP LOCKED), as in PostgreSQL's applyLockingClause.
    pub(super) fn table(&mut self, name: &str) -> bool {
        let applying = self.applying(name);
        if applying.is_empty() {
            return false;
        }
        let rank = |w: LockWait| match w {
            LockWait::Block => 0,
            LockWait::Skip => 1,
            LockWait::Error => 2,
        };
        let mut mode = RowLockMode::KeyShare;
        let mut wait = LockWait::Block;
        for i in applying {
            let c = &self.clauses[i];
            mode = mode.max(c.mode);
            if rank(c.wait) > rank(wait) {
                wait = c.wait;
            }
        }
        self.claimed.push((mode, wait));
        true
    }

    /// A FROM item that is not a table (`what`: "a function", "a WITH query", "a join"): an
    /// error where an OF name names it, ignored otherwise (as PostgreSQL ignores it).
    pub(super) fn other(&mut self, name: &str, what: &str) {
        for c in &mut self.clauses {
            let s = strength(c.mode);
            for (k, (n, l)) in c.names.iter().enumerate() {
                if n == name {
                    c.matched[k] = true;
                    self.error.get_or_insert_with(|| {
                        PgError::new(
                            code::FEATURE_NOT_SUPPORTED,
                            format!("{s} cannot be applied to {what}"),
                        )
                        .at(loc(*l))
                    });
                }
            }
        }
    }

    /// A subquery in FROM: PostgreSQL locks its tables' rows; not supported here.
    pub(super) fn subquery(&mut self, name: &str) {
        if !self.applying(name).is_empty() {
            self.error.get_or_insert_with(|| {
                PgError::feature_not_supported(
                    "SELECT FOR UPDATE/SHARE over a subquery in FROM is not supported yet",
                )
            });
        }
    }

    /// After the FROM clause: the locked tables found in its plan, with the ON conditions to
    /// re-check. Errors wait for [`Pending::finish`].
    pub(super) fn found(self, from: &Plan) -> Pending {
        let mut walk = Walk::default();
        walk.visit(from, 0, false, true);
        let planner_error = walk.nullable.then(|| {
            PgError::feature_not_supported(format!(
                "{} cannot be applied to the nullable side of an outer join",
                strength(walk.nullable_mode(&self.claimed))
            ))
        });
        let targets = walk
            .scans
            .into_iter()
            .zip(self.claimed.iter())
            .map(|((rel, base, rowid), (mode, wait))| LockTarget {
                rel,
                base,
                rowid,
                mode: *mode,
                wait: *wait,
            })
            .collect();
        Pending {
            locks: self,
            targets,
            on: walk.on,
            planner_error,
        }
    }
}

/// A FOR UPDATE query between its FROM clause and its LockRows node.
pub(super) struct Pending {
    locks: FromLocks,
    targets: Vec<LockTarget>,
    on: Vec<Expr>,
    /// An error PostgreSQL's planner reports (at Bind, for the extended protocol), not its
    /// analysis.
    planner_error: Option<PgError>,
}

/// What the rest of the query has that FOR UPDATE does not allow (CheckSelectLocking).
#[derive(Default)]
pub(super) struct Shape {
    pub distinct: bool,
    pub group: bool,
    pub having: bool,
    pub aggregates: bool,
    pub windows: bool,
    pub srfs: bool,
}

impl Pending {
    /// What the query has that FOR UPDATE does not allow (checked where the planner knows it:
    /// PostgreSQL reports these before a grouping error).
    pub(super) fn check(&self, shape: &Shape) -> PgResult<()> {
        if let Some(first) = self.locks.clauses.first() {
            let s = first.strength();
            let not_allowed = [
                (shape.distinct, "DISTINCT clause"),
                (shape.group, "GROUP BY clause"),
                (shape.having, "HAVING clause"),
                (shape.aggregates, "aggregate functions"),
                (shape.windows, "window functions"),
                (shape.srfs, "set-returning functions in the target list"),
            ];
            if let Some((_, what)) = not_allowed.iter().find(|(b, _)| *b) {
                return Err(PgError::feature_not_supported(format!(
                    "{s} is not allowed with {what}"
                )));
            }
        }
        Ok(())
    }

    /// The error PostgreSQL's analysis reports for this query's OF names, if any; else the
    /// locked tables, the ON conditions to re-check, and an error of PostgreSQL's planner.
    #[allow(clippy::type_complexity)]
    pub(super) fn finish(self) -> PgResult<(Vec<LockTarget>, Vec<Expr>, Option<PgError>)> {
        for c in &self.locks.clauses {
            for (k, (n, l)) in c.names.iter().enumerate() {
                if !c.matched[k] {
                    return Err(PgError::new(
                        code::UNDEFINED_TABLE,
                        format!(
                            "relation \"{n}\" in {} clause not found in FROM clause",
                            c.strength()
                        ),
                    )
                    .at(loc(*l)));
                }
            }
        }
        if let Some(e) = self.locks.error {
            return Err(e);
        }
        Ok((self.targets, self.on, self.planner_error))
    }
}

/// "FOR UPDATE is not allowed with UNION/INTERSECT/EXCEPT" for a set operation with a
/// locking clause.
pub(super) fn check_set_operation(s: &protobuf::SelectStmt) -> PgResult<()> {
    match FromLocks::parse(s) {
        Some(l) => Err(PgError::feature_not_supported(format!(
            "{} is not allowed with UNION/INTERSECT/EXCEPT",
            l.clauses.first().map_or("FOR UPDATE", Clause::strength)
        ))),
        None => Ok(()),
    }
}

#[derive(Default)]
struct Walk {
    /// (table, first column, slot column) of each scan that carries slots, in column order.
    scans: Vec<(Arc<Rel>, usize, usize)>,
    on: Vec<Expr>,
    nullable: bool,
    nullable_at: usize,
}

impl Walk {
    /// `lead`: the node's columns start the FROM row, so its ON condition is over the FROM
    /// row's columns as they are.
    fn visit(&mut self, p: &Plan, base: usize, nullable: bool, lead: bool) {
        match &p.node {
            Node::SeqScan { rel, rowid: true } => {
                if nullable && !self.nullable {
                    self.nullable = true;
                    self.nullable_at = self.scans.len();
                }
                self.scans
                    .push((rel.rel.clone(), base, base + rel.columns.len()));
            }
            Node::Join {
                left,
                right,
                kind,
                on,
                ..
            } => {
                if lead && *kind == JoinKind::Inner {
                    if let Some(c) = on {
                        self.on.push(c.clone());
                    }
                }
                let lw = left.columns.len();
                let left_null = matches!(kind, JoinKind::Right | JoinKind::Full);
                let right_null = matches!(kind, JoinKind::Left | JoinKind::Full);
                self.visit(left, base, nullable || left_null, lead);
                self.visit(right, base + lw, nullable || right_null, false);
            }
            _ => {}
        }
    }

    fn nullable_mode(&self, claimed: &[(RowLockMode, LockWait)]) -> RowLockMode {
        claimed
            .get(self.nullable_at)
            .map_or(RowLockMode::Update, |c| c.0)
    }
}

/// Puts the LockRows node over `plan` (the sorted, projected rows; see the module comment).
pub(super) fn lock_rows(
    plan: Plan,
    targets: Vec<LockTarget>,
    from: usize,
    exprs: Vec<Expr>,
    recheck: Option<Expr>,
) -> Plan {
    Plan {
        columns: plan.columns.clone(),
        node: Node::LockRows {
            input: Box::new(plan),
            spec: Box::new(LockSpec {
                targets,
                from,
                exprs,
                recheck,
            }),
        },
    }
}
