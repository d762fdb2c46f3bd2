//! Name resolution (PostgreSQL's parse_relation.c): the columns a FROM clause puts in scope
//! (`Scope`, `ScopeCol`), the scope of one FROM item under its alias (`scope_for`), and the lookup
//! of a column reference — qualified or not, in this query or an enclosing one (an outer
//! reference), or a whole row — with PostgreSQL's errors for ambiguous and missing columns,
//! whose hint names the closest column names (`missing_column`, Levenshtein distance).
//!
//! System columns: `tableoid` is a constant per table. ctid, xmin, cmin, xmax and cmax are
//! read from the version's slot: a statement that names one (`mentions_system_column`, once
//! per statement) has its table scans carry their rows' slots in a hidden column, and the
//! reference becomes `Expr::System` over that column (NULL on an outer join's NULL side). A
//! view, subquery or function in FROM has no such column (42703, as in PostgreSQL).

use pg_query::protobuf;

use super::nodes::Plan;
use super::{loc, names_of, search_cycle, Planner};
use crate::error::{code, PgError, PgResult};
use crate::sql::plan::{Expr, SysColumn, SysKind};
use crate::sql::privs;
use crate::sql::types::Type;

#[derive(Clone, Debug)]
pub(super) struct ScopeCol {
    pub(super) rel: String,
    pub(super) name: String,
    pub(super) ty: Type,
    pub(super) typmod: i32,
    pub(super) origin: Option<(u32, i16)>,
    /// Found by name but not by `*`: a recursive CTE's SEARCH and CYCLE columns in its
    /// recursive term.
    pub(super) hidden: bool,
    /// One side's own column of a JOIN ... USING pair: found only qualified (`a.id`) and by
    /// `a.*`; unqualified `id` and `*` mean the merged column.
    pub(super) qualified_only: bool,
    /// Where the column is a table's own, named in FROM at this query level (PostgreSQL's
    /// RTE_RELATION): which table and column, for GROUP BY's functional dependency
    /// (`AggCtx::dependent_column`). None for subqueries, views, functions and the rest.
    pub(super) table: Option<TableCol>,
}

/// A column of a table named in FROM: the FROM item's name (unique within a query level), the
/// table, the column's position, and whether the column is in the table's primary key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct TableCol {
    pub(super) rel: String,
    pub(super) oid: u32,
    pub(super) pos: usize,
    pub(super) in_pk: bool,
}

impl TableCol {
    /// Whether `other` is a column of the same FROM item.
    pub(super) fn same_item(&self, other: &TableCol) -> bool {
        self.rel == other.rel && self.oid == other.oid
    }
}

#[derive(Clone, Debug, Default)]
pub(super) struct Scope {
    pub(super) cols: Vec<ScopeCol>,
    /// Set on the scope a grouped query's subqueries see it by (`AggCtx::outer_scope`): its
    /// columns are the Aggregate node's output row, then the columns it does not hold.
    pub(super) grouped: Option<GroupedOuter>,
}

/// A grouped query as its subqueries see it (their outer references read the Aggregate node's
/// output row, PostgreSQL's check_ungrouped_columns): `cols[..dependent.start]` are that row
/// (group keys that are plain columns under their names, the rest unnamed);
/// `cols[dependent.clone()]` are columns readable through GROUP BY's functional dependency,
/// whose hidden aggregates are added at those positions once a subquery reads one (`used`);
/// the columns from `dependent.end` on are ungrouped, and reading one is an error.
#[derive(Clone, Debug)]
pub(super) struct GroupedOuter {
    pub(super) dependent: std::ops::Range<usize>,
    /// The input columns that `cols[dependent]` are.
    pub(super) inputs: Vec<usize>,
    pub(super) used: std::cell::Cell<bool>,
}

impl GroupedOuter {
    /// Checks a subquery's reference to column `i` of the grouped scope `cols`.
    fn read(&self, cols: &[ScopeCol], i: usize, location: i32) -> PgResult<()> {
        if i >= self.dependent.end {
            let c = &cols[i];
            return Err(PgError::new(
                code::GROUPING_ERROR,
                format!(
                    "subquery uses ungrouped column \"{}.{}\" from outer query",
                    c.rel, c.name
                ),
            )
            .at(loc(location)));
        }
        if self.dependent.contains(&i) {
            self.used.set(true);
        }
        Ok(())
    }
}

/// The system column `tableoid` of a table or catalog named in FROM (pg_dump reads it from
/// every catalog): the relation's OID, NULL where an outer join found no row — told by a
/// column that is never NULL in a stored row (a primary key column, or a catalog's first
/// column). The other system columns (ctid, xmin, ...) are read from the row's slot
/// (`Planner::system_column`).
fn table_oid_column(
    scope: &Scope,
    outer: &[Scope],
    fields: &[String],
    location: i32,
) -> PgResult<Option<Expr>> {
    let (rel, name) = match fields {
        [name] => (None, name),
        [rel, name] | [_, rel, name] => (Some(rel.as_str()), name),
        _ => return Ok(None),
    };
    if name != "tableoid" {
        return Ok(None);
    }
    let scopes = std::iter::once(scope).chain(outer.iter().rev());
    for (depth, sc) in scopes.enumerate() {
        if sc.grouped.is_some() {
            continue; // a grouped query's row holds no such column
        }
        // A partitioned table's rows carry their leaf's OID.
        let mut leaf = sc.cols.iter().enumerate().filter(|(_, c)| {
            c.name == super::partitions::LEAF_SCOPE && rel.is_none_or(|r| r == c.rel)
        });
        if let (Some((i, c)), None) = (leaf.next(), leaf.next()) {
            let alone = rel.is_some() || sc.cols.iter().all(|o| o.hidden || o.rel == c.rel);
            if alone {
                return Ok(Some(if depth == 0 {
                    Expr::Column(i)
                } else {
                    Expr::Outer(depth, i)
                }));
            }
        }
        let mut found: Option<(u32, Option<usize>, &str)> = None;
        for (i, c) in sc.cols.iter().enumerate() {
            // (A JOIN ... USING's merged columns belong to no table.)
            if rel.is_some_and(|r| r != c.rel) || c.hidden || c.rel.is_empty() {
                continue;
            }
            let Some((oid, not_null)) = relation_column(sc, i) else {
                continue;
            };
            match &mut found {
                Some((o, _, r)) if *o == oid && *r == c.rel => {}
                // Two tables' system columns: PostgreSQL finds neither.
                Some((_, _, first)) => {
                    return Err(PgError::new(
                        code::UNDEFINED_COLUMN,
                        format!("column \"{name}\" does not exist"),
                    )
                    .with_hint(format!(
                        "There is a column named \"{name}\" in table \"{first}\", but it cannot be referenced from this part of the query."
                    ))
                    .at(loc(location)))
                }
                None => found = Some((oid, None, &c.rel)),
            }
            if let Some((_, nn, _)) = &mut found {
                if not_null && nn.is_none() {
                    *nn = Some(i);
                }
            }
        }
        let Some((oid, not_null, _)) = found else {
            continue;
        };
        let value = Expr::Const(crate::sql::types::Value::Oid(oid));
        let Some(i) = not_null else {
            return Ok(Some(value));
        };
        let col = if depth == 0 {
            Expr::Column(i)
        } else {
            Expr::Outer(depth, i)
        };
        return Ok(Some(Expr::Case {
            whens: vec![(
                Expr::IsNull(Box::new(col), false),
                Expr::Const(crate::sql::types::Value::Null),
            )],
            default: Some(Box::new(value)),
        }));
    }
    Ok(None)
}

/// Whether a scope column is the hidden row id a table scan carries (FOR UPDATE, a DML
/// target, or system columns; see `modify::ROWID`, which a FROM scope shows with one NUL
/// stripped).
fn is_rowid(c: &ScopeCol) -> bool {
    c.name.starts_with('\0') && c.name.trim_start_matches('\0') == "rowid"
}

/// Whether a statement may name a system column read from row versions (ctid, xmin, cmin,
/// xmax, cmax): its table scans then carry their rows' slots (`PlanState::sys_cols`). Looks
/// for the names in the statement's encoded parse tree, where every identifier is stored as
/// its bytes: no walk over each kind of node can miss one, and a false hit (a string
/// constant, a longer name) costs only a hidden column. Once per statement.
pub(super) fn mentions_system_column(stmt: &impl prost::Message) -> bool {
    const NAMES: [&[u8; 4]; 5] = [b"ctid", b"xmin", b"cmin", b"xmax", b"cmax"];
    stmt.encode_to_vec()
        .windows(4)
        .any(|w| NAMES.iter().any(|n| w == *n))
}

/// Whether a statement may name `tableoid` (as [`mentions_system_column`] looks): a
/// partitioned table's scan then carries its rows' leaves (`partitions::LEAF`).
pub(super) fn mentions_tableoid(stmt: &impl prost::Message) -> bool {
    stmt.encode_to_vec().windows(8).any(|w| w == b"tableoid")
}

/// Where a select-list `tableoid` comes from, as RowDescription reports it: its relation and
/// attribute number -6 (PostgreSQL's TableOidAttributeNumber).
pub(super) fn table_oid_origin(node: &protobuf::Node, e: &Expr) -> Option<(u32, i16)> {
    let Some(protobuf::node::Node::ColumnRef(cr)) = node.node.as_ref() else {
        return None;
    };
    let last = cr.fields.last().and_then(crate::sql::parser::str_of)?;
    if last != "tableoid" {
        return None;
    }
    let value = match e {
        Expr::Const(v) => v,
        Expr::Case {
            default: Some(d), ..
        } => match &**d {
            Expr::Const(v) => v,
            _ => return None,
        },
        _ => return None,
    };
    match value {
        crate::sql::types::Value::Oid(o) => Some((*o, -6)),
        _ => None,
    }
}

/// Whether column `i` of a scope is a column of a table or catalog named in FROM (not of a
/// view, subquery or function): that relation's OID, and whether the column is never NULL in
/// its rows.
fn relation_column(sc: &Scope, i: usize) -> Option<(u32, bool)> {
    let c = &sc.cols[i];
    if let Some(t) = &c.table {
        return Some((t.oid, t.in_pk));
    }
    let (oid, attnum) = c.origin?;
    let rel = crate::sql::catalog::relation_by_oid(oid)?;
    // A catalog's own columns, in order, all of them under one FROM name (a subquery or view
    // over a catalog passes the origins of only some).
    let same: Vec<&ScopeCol> = sc.cols.iter().filter(|o| o.rel == c.rel).collect();
    let whole = same.len() == rel.columns.len()
        && same
            .iter()
            .zip(1i16..)
            .all(|(o, n)| o.origin == Some((oid, n)));
    whole.then_some((oid, attnum == 1))
}

/// Levenshtein distance between two names, byte-wise with unit costs (PostgreSQL's
/// varstr_levenshtein as its fuzzy column matching calls it).
fn levenshtein(a: &str, b: &str) -> usize {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, ca) in a.iter().enumerate() {
        cur[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != cb);
            cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

impl Planner<'_> {
    pub(super) fn scope_for(
        &self,
        mut plan: Plan,
        rel: &str,
        alias: Option<&protobuf::Alias>,
    ) -> PgResult<(Plan, Scope)> {
        if let Some(a) = alias {
            let names = names_of(&a.colnames);
            if names.len() > plan.columns.len() {
                return Err(PgError::new(
                    code::INVALID_COLUMN_REFERENCE,
                    format!(
                        "table \"{}\" has {} columns available but {} columns specified",
                        a.aliasname,
                        plan.columns.len(),
                        names.len()
                    ),
                ));
            }
            for (i, name) in names.into_iter().enumerate() {
                if let Some(c) = plan.columns.get_mut(i) {
                    c.name = name;
                }
            }
        }
        let scope = Scope {
            cols: plan
                .columns
                .iter()
                .map(|c| {
                    let (name, hidden) = search_cycle::visible_name(&c.name);
                    ScopeCol {
                        rel: rel.to_string(),
                        name: name.to_string(),
                        ty: c.ty,
                        typmod: c.typmod,
                        origin: c.origin,
                        hidden,
                        qualified_only: false,
                        table: None,
                    }
                })
                .collect(),
            grouped: None,
        };
        Ok((plan, scope))
    }

    pub(super) fn lookup_column(
        &self,
        scope: &Scope,
        fields: &[String],
        location: i32,
    ) -> PgResult<(Expr, Type)> {
        let find = |sc: &Scope| -> PgResult<Option<usize>> {
            let (rel, name) = match fields {
                [name] => (None, name),
                [rel, name] => (Some(rel), name),
                [_, rel, name] => (Some(rel), name),
                _ => return Ok(None),
            };
            let hits: Vec<usize> = sc
                .cols
                .iter()
                .enumerate()
                .filter(|(_, c)| {
                    &c.name == name
                        && match rel {
                            None => !c.qualified_only,
                            Some(r) => *r == c.rel,
                        }
                })
                .map(|(i, _)| i)
                .collect();
            if hits.len() > 1 {
                return Err(PgError::new(
                    code::AMBIGUOUS_COLUMN,
                    format!("column reference \"{name}\" is ambiguous"),
                )
                .at(loc(location)));
            }
            Ok(hits.first().copied())
        };
        if let Some(i) = find(scope)? {
            let c = &scope.cols[i];
            if let Some(cx) = &self.tables {
                cx.mark(c.origin, privs::ColUse::Select);
            }
            return Ok((Expr::Column(i), c.ty));
        }
        for (depth, sc) in self.outer.iter().rev().enumerate() {
            if let Some(i) = find(sc)? {
                if let Some(g) = &sc.grouped {
                    g.read(&sc.cols, i, location)?;
                }
                if let Some(cx) = &self.tables {
                    cx.mark(sc.cols[i].origin, privs::ColUse::Select);
                }
                return Ok((Expr::Outer(depth + 1, i), sc.cols[i].ty));
            }
        }
        if let Some(e) = table_oid_column(scope, &self.outer, fields, location)? {
            return Ok((e, Type::OID));
        }
        if let Some(r) = self.system_column(scope, fields, location)? {
            return Ok(r);
        }
        if let Some(row) = self.whole_row(scope, fields) {
            return Ok((row.expr(), Type::RECORD));
        }
        match fields {
            [_, _, _, _] => Err(PgError::feature_not_supported(format!(
                "cross-database references are not implemented: {}",
                fields.join(".")
            ))
            .at(loc(location))),
            [_, _, _, _, _, ..] => Err(PgError::syntax(format!(
                "improper qualified name (too many dotted names): {}",
                fields.join(".")
            ))
            .at(loc(location))),
            [rel, name] if !scope.cols.iter().any(|c| &c.rel == rel) => Err(PgError::new(
                code::UNDEFINED_TABLE,
                format!("missing FROM-clause entry for table \"{rel}\""),
            )
            .at(loc(location))
            .with_detail(String::new())
            .strip_empty_detail()
            .named(name)),
            _ => Err(self.missing_column(scope, fields).at(loc(location))),
        }
    }

    /// A system column read from row versions (ctid, xmin, cmin, xmax, cmax) of a table named
    /// in FROM whose scan carries its rows' slots (`PlanState::sys_cols`), in this query or
    /// an enclosing one. None where the name is no such column here (a view, a subquery: then
    /// it does not exist, as in PostgreSQL).
    fn system_column(
        &self,
        scope: &Scope,
        fields: &[String],
        location: i32,
    ) -> PgResult<Option<(Expr, Type)>> {
        let (rel, name) = match fields {
            [name] => (None, name),
            [rel, name] | [_, rel, name] => (Some(rel.as_str()), name),
            _ => return Ok(None),
        };
        let Some(kind) = SysKind::of(name) else {
            return Ok(None);
        };
        let scopes = std::iter::once(scope).chain(self.outer.iter().rev());
        for (depth, sc) in scopes.enumerate() {
            if sc.grouped.is_some() {
                continue; // a grouped query's row holds no such column
            }
            let mut hits = sc
                .cols
                .iter()
                .enumerate()
                .filter(|(_, c)| is_rowid(c) && rel.is_none_or(|r| r == c.rel));
            let Some((i, c)) = hits.next() else {
                continue;
            };
            if hits.next().is_some() {
                return Err(PgError::new(
                    code::AMBIGUOUS_COLUMN,
                    format!("column reference \"{name}\" is ambiguous"),
                )
                .at(loc(location)));
            }
            let oid = sc
                .cols
                .iter()
                .find(|o| o.rel == c.rel && o.origin.is_some())
                .and_then(|o| o.origin)
                .map(|(oid, _)| oid);
            let Some(table) =
                oid.and_then(|oid| self.state.sys_rels.iter().find(|r| r.oid == oid).cloned())
            else {
                continue;
            };
            let col = if depth == 0 {
                Expr::Column(i)
            } else {
                Expr::Outer(depth, i)
            };
            if table.partition_key().is_some() && kind != SysKind::Ctid {
                // A partitioned table's row is read in its leaf's heap: the leaf's OID follows
                // the slot (`partitions::LEAF`).
                let leaf = match &col {
                    Expr::Outer(d, i) => Expr::Outer(*d, i + 1),
                    Expr::Column(i) => Expr::Column(i + 1),
                    other => other.clone(),
                };
                let e = self.leaf_system_column(&table, kind, col, leaf)?;
                return Ok(Some((e, kind.ty())));
            }
            let e = Expr::System(Box::new(col), SysColumn { kind, rel: table });
            return Ok(Some((e, kind.ty())));
        }
        Ok(None)
    }

    /// PostgreSQL's errorMissingColumn: the error for a column found nowhere, with a hint
    /// naming the closest column names (Levenshtein distance) of the tables in scope.
    fn missing_column(&self, scope: &Scope, fields: &[String]) -> PgError {
        let (rel, name) = match fields {
            [name] => (None, name),
            [rel, name] | [_, rel, name] => (Some(rel), name),
            _ => {
                return PgError::new(
                    code::UNDEFINED_COLUMN,
                    format!("column \"{}\" does not exist", fields.join(".")),
                )
            }
        };
        let message = match rel {
            Some(r) => format!("column {r}.{name} does not exist"),
            None => format!("column \"{name}\" does not exist"),
        };
        let err = PgError::new(code::UNDEFINED_COLUMN, message);
        const MAX_FUZZY_DISTANCE: usize = 3;
        let mut distance = MAX_FUZZY_DISTANCE + 1;
        let mut first: Option<&ScopeCol> = None;
        let mut second: Option<&ScopeCol> = None;
        let scopes = std::iter::once(scope).chain(self.outer.iter().rev());
        for sc in scopes {
            for c in &sc.cols {
                if c.hidden || c.rel.is_empty() || c.name.starts_with('\0') {
                    continue;
                }
                let penalty = rel.map_or(0, |r| levenshtein(r, &c.rel));
                if penalty > distance {
                    continue;
                }
                let d = levenshtein(&c.name, name);
                if d > name.len() / 2 {
                    continue;
                }
                let d = d + penalty;
                if d < distance {
                    distance = d;
                    first = Some(c);
                    second = None;
                } else if d == distance {
                    if second.is_some() {
                        first = None;
                        second = None;
                        distance = d.saturating_sub(1);
                    } else if first.is_some() {
                        second = Some(c);
                    } else if distance <= MAX_FUZZY_DISTANCE {
                        first = Some(c);
                    }
                }
            }
        }
        match (first, second) {
            (Some(a), None) => err.with_hint(format!(
                "Perhaps you meant to reference the column \"{}.{}\".",
                a.rel, a.name
            )),
            (Some(a), Some(b)) => err.with_hint(format!(
                "Perhaps you meant to reference the column \"{}.{}\" or the column \"{}.{}\".",
                a.rel, a.name, b.rel, b.name
            )),
            _ => err,
        }
    }
}

trait ErrExt {
    fn strip_empty_detail(self) -> Self;
    fn named(self, name: &str) -> Self;
}

impl ErrExt for PgError {
    fn strip_empty_detail(mut self) -> Self {
        if self.detail.as_deref() == Some("") {
            self.detail = None;
        }
        self
    }
    fn named(self, _name: &str) -> Self {
        self
    }
}
