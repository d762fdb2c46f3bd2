//! The query rewriter for rules (PostgreSQL's rewriteHandler.c, by its behaviour): an
//! INSERT, UPDATE or DELETE on a relation with rules for its event becomes the rules' commands
//! and, unless an unconditional DO INSTEAD rule drops it, the original statement, planned as
//! one `Rules` node that runs them in order, each seeing the writes of those before it.
//!
//! NEW and OLD are range variables the commands read: a subquery over the original
//! statement's rows joined into each command (added to its FROM / USING list), so that a
//! command runs once for each row the original statement would write, where the rule's
//! condition holds. For INSERT, NEW is the statement's rows with the defaults of the columns
//! it leaves out; for DELETE, OLD is the rows its WHERE picks; for UPDATE, one subquery holds
//! both, and OLD and NEW are LATERAL projections of it. A conditional INSTEAD rule leaves the
//! original statement to the rows where its condition is not true. The original runs first for
//! INSERT and last for UPDATE and DELETE, as in PostgreSQL. NOTIFY runs once per statement.
//!
//! Recursion: the (relation, event) pairs being rewritten are kept; a command that would be
//! rewritten by the same pair again is PostgreSQL's "infinite recursion detected in rules"
//! (42P17).

use std::sync::Arc;

use pg_query::protobuf::{self, node::Node as N};

use super::{Node, Plan, Planner};
use crate::catalog::acl;
use crate::catalog::rules::{Event, RuleDef};
use crate::error::{code, PgError, PgResult};
use crate::sql::engine::Rel;
use crate::sql::parser::parse_node;
use crate::sql::quote::quote_literal;
use crate::sql::types::{cast::format_type_with_typmod, Type};

/// The most (relation, event) pairs one statement's rewriting may nest.
const MAX_DEPTH: usize = 100;

/// The statements a rewritten INSERT, UPDATE or DELETE runs, in order.
#[derive(Debug, Clone)]
pub struct RuleSeq {
    pub steps: Vec<Arc<Plan>>,
    /// The step whose count (and RETURNING rows) the statement reports; None: a count of 0.
    pub tag_step: Option<usize>,
    /// The original statement's command, which names the command tag.
    pub verb: &'static str,
}

fn node(n: N) -> protobuf::Node {
    protobuf::Node { node: Some(n) }
}

fn event_of(n: &N) -> Option<(Option<&protobuf::RangeVar>, Event)> {
    match n {
        N::InsertStmt(s) => Some((s.relation.as_ref(), Event::Insert)),
        N::UpdateStmt(s) => Some((s.relation.as_ref(), Event::Update)),
        N::DeleteStmt(s) => Some((s.relation.as_ref(), Event::Delete)),
        _ => None,
    }
}

fn verb(e: Event) -> &'static str {
    e.word()
}

/// The first target's expression of `SELECT <text>`.
fn parse_expr(text: &str) -> PgResult<protobuf::Node> {
    let N::SelectStmt(s) = parse_node(&format!("SELECT {text}"))? else {
        return Err(PgError::internal("an expression did not parse as one"));
    };
    match s.target_list.into_iter().next().and_then(|t| t.node) {
        Some(N::ResTarget(rt)) => rt
            .val
            .map(|v| *v)
            .ok_or_else(|| PgError::internal("an expression did not parse as one")),
        _ => Err(PgError::internal("an expression did not parse as one")),
    }
}

fn target(name: &str, val: protobuf::Node) -> protobuf::Node {
    node(N::ResTarget(Box::new(protobuf::ResTarget {
        name: name.to_string(),
        indirection: vec![],
        val: Some(Box::new(val)),
        location: -1,
    })))
}

fn column_ref(rel: &str, col: &str) -> protobuf::Node {
    let s = |v: &str| {
        node(N::String(protobuf::String {
            sval: v.to_string(),
        }))
    };
    node(N::ColumnRef(protobuf::ColumnRef {
        fields: vec![s(rel), s(col)],
        location: -1,
    }))
}

fn subselect(s: protobuf::SelectStmt, alias: &str, lateral: bool) -> protobuf::Node {
    node(N::RangeSubselect(Box::new(protobuf::RangeSubselect {
        lateral,
        subquery: Some(Box::new(node(N::SelectStmt(Box::new(s))))),
        alias: Some(protobuf::Alias {
            aliasname: alias.to_string(),
            colnames: vec![],
        }),
    })))
}

fn and(a: Option<Box<protobuf::Node>>, b: protobuf::Node) -> Option<Box<protobuf::Node>> {
    Some(Box::new(match a {
        None => b,
        Some(a) => node(N::BoolExpr(Box::new(protobuf::BoolExpr {
            xpr: None,
            boolop: protobuf::BoolExprType::AndExpr as i32,
            args: vec![*a, b],
            location: -1,
        }))),
    }))
}

fn not_exists(s: protobuf::SelectStmt) -> protobuf::Node {
    let exists = node(N::SubLink(Box::new(protobuf::SubLink {
        xpr: None,
        sub_link_type: protobuf::SubLinkType::ExistsSublink as i32,
        sub_link_id: 0,
        testexpr: None,
        oper_name: vec![],
        subselect: Some(Box::new(node(N::SelectStmt(Box::new(s))))),
        location: -1,
    })));
    node(N::BoolExpr(Box::new(protobuf::BoolExpr {
        xpr: None,
        boolop: protobuf::BoolExprType::NotExpr as i32,
        args: vec![exists],
        location: -1,
    })))
}

fn select() -> protobuf::SelectStmt {
    protobuf::SelectStmt {
        limit_option: protobuf::LimitOption::Default as i32,
        op: protobuf::SetOperation::SetopNone as i32,
        ..Default::default()
    }
}

/// The type a column's value is cast to in NEW, where it has a name that parses (built-in
/// types); others keep the type of the expression.
fn type_text(c: &crate::catalog::ColumnDef) -> Option<String> {
    if c.domain.is_some() {
        return None;
    }
    let t = Type(c.type_oid);
    let e = t.elem().unwrap_or(t);
    if e.name().starts_with("type ") || e.0 >= 16384 {
        return None;
    }
    Some(format_type_with_typmod(t, c.typmod))
}

fn cast(e: protobuf::Node, c: &crate::catalog::ColumnDef) -> PgResult<protobuf::Node> {
    let Some(t) = type_text(c) else {
        return Ok(e);
    };
    let mut n = parse_expr(&format!("NULL::{t}"))?;
    if let Some(N::TypeCast(tc)) = n.node.as_mut() {
        tc.arg = Some(Box::new(e));
    }
    Ok(n)
}

/// A column's default as NEW shows it when the statement leaves it out: its default
/// expression, else NULL.
fn default_of(c: &crate::catalog::ColumnDef) -> PgResult<protobuf::Node> {
    match &c.default {
        Some(d) if !c.generated && c.identity.is_none() => cast(parse_expr(d)?, c),
        _ => cast(parse_expr("NULL")?, c),
    }
}

/// The relation's name as a FROM item, with the statement's alias (else its own name).
fn target_item(rel: &Rel, rv: &protobuf::RangeVar) -> (protobuf::Node, String) {
    let alias = rv
        .alias
        .as_ref()
        .map(|a| a.aliasname.clone())
        .unwrap_or_else(|| rel.name.name.clone());
    let mut r = rv.clone();
    r.schemaname = rel.name.schema.clone();
    r.relname = rel.name.name.clone();
    r.inh = true;
    r.alias = Some(protobuf::Alias {
        aliasname: alias.clone(),
        colnames: vec![],
    });
    (node(N::RangeVar(r)), alias)
}

/// `SELECT <alias>.c1 AS c1, ...` (one row, made of the enclosing query's columns): OLD
/// inside a condition's EXISTS.
fn columns_of(rel: &Rel, from: &str) -> protobuf::SelectStmt {
    let mut s = select();
    for (_, c) in rel.live_columns() {
        s.target_list
            .push(target(&c.name, column_ref(from, &c.name)));
    }
    s
}

/// What NEW and OLD are for one statement: the FROM items a rule's command gets, and the
/// EXISTS test of a rule's condition over the statement's own row.
struct Source {
    items: Vec<protobuf::Node>,
    /// For UPDATE and DELETE: the FROM items of OLD (and NEW) over the row the original
    /// statement is at, for a conditional INSTEAD rule's test.
    row_items: Vec<protobuf::Node>,
}

impl Planner<'_> {
    /// `node` (INSERT, UPDATE or DELETE) as its target's rules rewrite it; None where no rule
    /// applies.
    pub(super) fn plan_rules(&mut self, stmt: &N) -> PgResult<Option<Plan>> {
        let Some((Some(rv), event)) = event_of(stmt) else {
            return Ok(None);
        };
        let Some(rel) = self
            .tables
            .as_ref()
            .and_then(|cx| cx.find(&rv.schemaname, &rv.relname))
        else {
            return Ok(None);
        };
        if self.rules_skip.take() == Some((rel.oid, event)) {
            return Ok(None);
        }
        let rules: Vec<&RuleDef> = rel
            .rules
            .iter()
            .filter(|r| r.event == event && r.fires())
            .collect();
        if rules.is_empty() {
            return Ok(None);
        }
        if self.rule_events.contains(&(rel.oid, event)) {
            return Err(PgError::new(
                code::INVALID_OBJECT_DEFINITION,
                format!(
                    "infinite recursion detected in rules for relation \"{}\"",
                    rel.name.name
                ),
            ));
        }
        if self.rule_events.len() >= MAX_DEPTH {
            return Err(PgError::new(
                code::STATEMENT_TOO_COMPLEX,
                "rules nest too deeply",
            ));
        }
        crate::stack::check()?;
        self.rule_events.push((rel.oid, event));
        let r = self.rewrite(stmt, rv, event, &rel, &rules);
        self.rule_events.pop();
        r.map(Some)
    }

    fn rewrite(
        &mut self,
        stmt: &N,
        rv: &protobuf::RangeVar,
        event: Event,
        rel: &Arc<Rel>,
        rules: &[&RuleDef],
    ) -> PgResult<Plan> {
        let (with, returning) = match stmt {
            N::InsertStmt(s) => {
                if s.on_conflict_clause.is_some() {
                    return Err(PgError::feature_not_supported(
                        "INSERT with ON CONFLICT clause cannot be used with table that has INSERT or UPDATE rules",
                    ));
                }
                (
                    s.with_clause.is_some(),
                    s.returning_clause
                        .as_ref()
                        .is_some_and(|r| !r.exprs.is_empty()),
                )
            }
            N::UpdateStmt(s) => (
                s.with_clause.is_some(),
                s.returning_clause
                    .as_ref()
                    .is_some_and(|r| !r.exprs.is_empty()),
            ),
            N::DeleteStmt(s) => (
                s.with_clause.is_some(),
                s.returning_clause
                    .as_ref()
                    .is_some_and(|r| !r.exprs.is_empty()),
            ),
            _ => unreachable!("event_of checked it"),
        };
        if with {
            return Err(PgError::feature_not_supported(
                "WITH cannot be used in a query that is rewritten by rules into multiple queries",
            ));
        }
        // The invoking role needs the statement's privilege on the relation itself; the
        // commands run with the rule owner's rights.
        if let Some(cx) = &self.tables {
            let bits = match event {
                Event::Insert => acl::INSERT,
                Event::Update => acl::UPDATE,
                Event::Delete => acl::DELETE,
                Event::Select => acl::SELECT,
            };
            cx.require(rel, bits);
        }
        let src = source(stmt, rel, rv)?;
        let mut actions: Vec<(protobuf::Node, bool)> = Vec::new();
        let mut dropped = false;
        let mut inverted = Vec::new();
        let mut returning_action = None;
        for r in rules {
            let qual = r.qual.as_deref().map(parse_expr).transpose()?;
            for a in &r.actions {
                let n = parse_node(a)?;
                if has_returning(&n) {
                    returning_action = Some(actions.len());
                }
                actions.push((attach(n, &src, qual.clone())?, r.instead));
            }
            match (r.instead, qual) {
                (true, None) => dropped = true,
                (true, Some(q)) => inverted.push(q),
                _ => {}
            }
        }
        if returning && (dropped || !inverted.is_empty()) && returning_action.is_none() {
            let w = verb(event);
            return Err(PgError::new(
                code::FEATURE_NOT_SUPPORTED,
                format!(
                    "cannot perform {w} RETURNING on relation \"{}\"",
                    rel.name.name
                ),
            )
            .with_hint(format!(
                "You need an unconditional ON {w} DO INSTEAD rule with a RETURNING clause."
            )));
        }
        let original = if dropped {
            None
        } else {
            Some(restrict(stmt, &src, rel, inverted)?)
        };
        let mut steps = Vec::new();
        let mut tag_step = None;
        // The rules' commands run as the rule's owner.
        let owner = rules.first().map(|r| r.owner);
        let saved_as = self.tables.as_ref().and_then(|cx| cx.check_as);
        let plan_action = |p: &mut Self, a: &protobuf::Node, ret: bool| -> PgResult<Plan> {
            if let (Some(cx), Some(o)) = (p.tables.as_mut(), owner) {
                cx.check_as = Some(o);
            }
            let r = p.plan_action(a, ret, stmt);
            if let Some(cx) = p.tables.as_mut() {
                cx.check_as = saved_as;
            }
            r
        };
        let original_first = event == Event::Insert;
        if let (Some(o), true) = (&original, original_first) {
            self.rules_skip = Some((rel.oid, event));
            steps.push(Arc::new(self.plan_dml(o)?));
            tag_step = Some(0);
        }
        for (i, (a, instead)) in actions.iter().enumerate() {
            let ret = returning && returning_action == Some(i);
            let p = plan_action(self, a, ret)?;
            if original.is_none() && *instead && same_command(a, event) {
                tag_step = Some(steps.len());
            }
            steps.push(Arc::new(p));
        }
        if let (Some(o), false) = (&original, original_first) {
            self.rules_skip = Some((rel.oid, event));
            tag_step = Some(steps.len());
            steps.push(Arc::new(self.plan_dml(o)?));
        }
        self.rules_skip = None;
        let columns = match tag_step {
            Some(i) if returning => steps[i].columns.clone(),
            _ => Vec::new(),
        };
        Ok(Plan {
            node: Node::Rules(Box::new(RuleSeq {
                steps,
                tag_step,
                verb: verb(event),
            })),
            columns,
        })
    }

    /// Plans one command of a rule. `ret`: it is the command whose RETURNING rows answer the
    /// original statement's RETURNING list, which is evaluated over them.
    fn plan_action(&mut self, a: &protobuf::Node, ret: bool, original: &N) -> PgResult<Plan> {
        let Some(n) = a.node.as_ref() else {
            return Err(PgError::internal("empty rule action"));
        };
        if ret {
            let q = returning_over(n, original)?;
            let depth = std::mem::take(&mut self.state.query_depth);
            let r = self.plan_query(&q);
            self.state.query_depth = depth;
            return r;
        }
        match n {
            N::InsertStmt(_) | N::UpdateStmt(_) | N::DeleteStmt(_) => {
                let mut p = self.plan_dml(n)?;
                // The statement reports only its own RETURNING rows.
                if let Node::Modify(m) = &mut p.node {
                    if m.returning.is_some() {
                        p.columns.clear();
                    }
                }
                Ok(p)
            }
            _ => self.plan_query(n),
        }
    }
}

/// Whether a rule action (or statement) has a RETURNING list.
pub fn has_returning(n: &N) -> bool {
    match n {
        N::InsertStmt(s) => s
            .returning_clause
            .as_ref()
            .is_some_and(|r| !r.exprs.is_empty()),
        N::UpdateStmt(s) => s
            .returning_clause
            .as_ref()
            .is_some_and(|r| !r.exprs.is_empty()),
        N::DeleteStmt(s) => s
            .returning_clause
            .as_ref()
            .is_some_and(|r| !r.exprs.is_empty()),
        _ => false,
    }
}

fn same_command(a: &protobuf::Node, e: Event) -> bool {
    matches!(
        (a.node.as_ref(), e),
        (Some(N::InsertStmt(_)), Event::Insert)
            | (Some(N::UpdateStmt(_)), Event::Update)
            | (Some(N::DeleteStmt(_)), Event::Delete)
    ) || matches!(a.node.as_ref(), Some(N::SelectStmt(s)) if s.with_clause.is_some() && e != Event::Select)
}

/// `WITH "*returning*" AS (<command>) SELECT <original's RETURNING list> FROM "*returning*"
/// AS <relation's alias>`: the original's RETURNING list over the rows the rule's command
/// returned (which have the relation's columns).
fn returning_over(n: &N, original: &N) -> PgResult<N> {
    let (rv, list) = match original {
        N::InsertStmt(s) => (
            s.relation.as_ref(),
            s.returning_clause
                .as_ref()
                .map(|r| r.exprs.clone())
                .unwrap_or_default(),
        ),
        N::UpdateStmt(s) => (
            s.relation.as_ref(),
            s.returning_clause
                .as_ref()
                .map(|r| r.exprs.clone())
                .unwrap_or_default(),
        ),
        N::DeleteStmt(s) => (
            s.relation.as_ref(),
            s.returning_clause
                .as_ref()
                .map(|r| r.exprs.clone())
                .unwrap_or_default(),
        ),
        _ => return Err(PgError::internal("not an INSERT, UPDATE or DELETE")),
    };
    let alias = rv
        .map(|r| {
            r.alias
                .as_ref()
                .map(|a| a.aliasname.clone())
                .unwrap_or_else(|| r.relname.clone())
        })
        .unwrap_or_default();
    let cte = node(N::CommonTableExpr(Box::new(protobuf::CommonTableExpr {
        ctename: "*returning*".into(),
        ctequery: Some(Box::new(node(n.clone()))),
        ctematerialized: protobuf::CteMaterialize::Default as i32,
        location: -1,
        ..Default::default()
    })));
    let mut s = select();
    s.with_clause = Some(protobuf::WithClause {
        ctes: vec![cte],
        recursive: false,
        location: -1,
    });
    s.target_list = list;
    let mut r = protobuf::RangeVar {
        relname: "*returning*".into(),
        inh: true,
        relpersistence: "p".into(),
        location: -1,
        ..Default::default()
    };
    r.alias = Some(protobuf::Alias {
        aliasname: alias,
        colnames: vec![],
    });
    s.from_clause = vec![node(N::RangeVar(r))];
    Ok(N::SelectStmt(Box::new(s)))
}

/// NEW and OLD for statement `stmt` on `rel`.
fn source(stmt: &N, rel: &Rel, rv: &protobuf::RangeVar) -> PgResult<Source> {
    match stmt {
        N::InsertStmt(s) => Ok(Source {
            items: vec![subselect(insert_rows(s, rel)?, "new", false)],
            row_items: vec![],
        }),
        N::DeleteStmt(s) => {
            let (item, alias) = target_item(rel, rv);
            let mut q = columns_of(rel, &alias);
            q.from_clause = std::iter::once(item)
                .chain(s.using_clause.iter().cloned())
                .collect();
            q.where_clause = s.where_clause.clone();
            Ok(Source {
                items: vec![subselect(q, "old", false)],
                row_items: vec![subselect(columns_of(rel, &alias), "old", false)],
            })
        }
        N::UpdateStmt(s) => {
            let (item, alias) = target_item(rel, rv);
            let set = set_exprs(s, rel)?;
            let mut q = select();
            let mut old = select();
            let mut new = select();
            let mut row_new = select();
            for (k, (i, c)) in rel.live_columns().enumerate() {
                let o = format!("o{k}");
                let n = format!("n{k}");
                let value = match set.iter().find(|(p, _)| *p == i) {
                    Some((_, e)) => cast(e.clone(), c)?,
                    None => column_ref(&alias, &c.name),
                };
                q.target_list.push(target(&o, column_ref(&alias, &c.name)));
                q.target_list.push(target(&n, value.clone()));
                old.target_list
                    .push(target(&c.name, column_ref("*rule*", &o)));
                new.target_list
                    .push(target(&c.name, column_ref("*rule*", &n)));
                row_new.target_list.push(target(&c.name, value));
            }
            q.from_clause = std::iter::once(item)
                .chain(s.from_clause.iter().cloned())
                .collect();
            q.where_clause = s.where_clause.clone();
            Ok(Source {
                items: vec![
                    subselect(q, "*rule*", false),
                    subselect(old, "old", true),
                    subselect(new, "new", true),
                ],
                row_items: vec![
                    subselect(columns_of(rel, &alias), "old", false),
                    subselect(row_new, "new", false),
                ],
            })
        }
        _ => Err(PgError::internal("not an INSERT, UPDATE or DELETE")),
    }
}

/// The SET list of an UPDATE: (column position, expression), DEFAULT as the column's default.
fn set_exprs(s: &protobuf::UpdateStmt, rel: &Rel) -> PgResult<Vec<(usize, protobuf::Node)>> {
    let mut out = Vec::new();
    for t in &s.target_list {
        let Some(N::ResTarget(rt)) = t.node.as_ref() else {
            continue;
        };
        if !rt.indirection.is_empty()
            || matches!(
                rt.val.as_deref().and_then(|v| v.node.as_ref()),
                Some(N::MultiAssignRef(_))
            )
        {
            return Err(PgError::feature_not_supported(
                "this form of UPDATE on a relation with rules is not supported yet",
            ));
        }
        let Some((i, c)) = rel.live_columns().find(|(_, c)| c.name == rt.name) else {
            return Err(PgError::new(
                code::UNDEFINED_COLUMN,
                format!(
                    "column \"{}\" of relation \"{}\" does not exist",
                    rt.name, rel.name.name
                ),
            ));
        };
        let v = match rt.val.as_deref() {
            Some(protobuf::Node {
                node: Some(N::SetToDefault(_)),
            })
            | None => default_of(c)?,
            Some(v) => v.clone(),
        };
        out.push((i, v));
    }
    Ok(out)
}

/// NEW for an INSERT: a SELECT of one row per row inserted, with the relation's columns.
fn insert_rows(s: &protobuf::InsertStmt, rel: &Rel) -> PgResult<protobuf::SelectStmt> {
    let cols: Vec<(usize, &crate::catalog::ColumnDef)> = rel.live_columns().collect();
    // Which live column each position of the statement's rows fills.
    let mut targets: Vec<usize> = Vec::new();
    if s.cols.is_empty() {
        targets.extend(cols.iter().map(|(i, _)| *i));
    } else {
        for c in &s.cols {
            let Some(N::ResTarget(rt)) = c.node.as_ref() else {
                continue;
            };
            if !rt.indirection.is_empty() {
                return Err(PgError::feature_not_supported(
                    "INSERT into subscripts or fields of a relation with rules is not supported yet",
                ));
            }
            let Some((i, _)) = cols.iter().find(|(_, c)| c.name == rt.name) else {
                return Err(PgError::new(
                    code::UNDEFINED_COLUMN,
                    format!(
                        "column \"{}\" of relation \"{}\" does not exist",
                        rt.name, rel.name.name
                    ),
                ));
            };
            targets.push(*i);
        }
    }
    let mut out = select();
    // The rows may give fewer columns than the relation has (the rest take defaults).
    if let Some(N::SelectStmt(v)) = s.select_stmt.as_deref().and_then(|n| n.node.as_ref()) {
        let simple = v.op == protobuf::SetOperation::SetopNone as i32;
        let width = match v.values_lists.first().and_then(|l| l.node.as_ref()) {
            Some(N::List(l)) => l.items.len(),
            _ if simple && !v.target_list.iter().any(is_star) => v.target_list.len(),
            _ => targets.len(),
        };
        targets.truncate(width);
    }
    // The expression of each target position, for one row.
    let row_of = |vals: Vec<protobuf::Node>| -> PgResult<Vec<protobuf::Node>> {
        let mut r = Vec::new();
        for (i, c) in &cols {
            let v = match targets.iter().position(|t| t == i) {
                Some(k) => match vals.get(k) {
                    Some(protobuf::Node {
                        node: Some(N::SetToDefault(_)),
                    }) => default_of(c)?,
                    Some(v) => cast(v.clone(), c)?,
                    None => default_of(c)?,
                },
                None => default_of(c)?,
            };
            r.push(target(&c.name, v));
        }
        Ok(r)
    };
    let values = |n: &protobuf::Node| -> Vec<protobuf::Node> {
        match n.node.as_ref() {
            Some(N::List(l)) => l.items.clone(),
            _ => vec![],
        }
    };
    match s.select_stmt.as_deref().and_then(|n| n.node.as_ref()) {
        None => out.target_list = row_of(vec![])?,
        Some(N::SelectStmt(v)) if v.values_lists.len() == 1 => {
            out.target_list = row_of(values(&v.values_lists[0]))?
        }
        Some(N::SelectStmt(v)) => {
            // Rows from a query (or a VALUES list of many rows, DEFAULT filled in per row).
            let mut q = (**v).clone();
            let mut has_default = false;
            for l in &mut q.values_lists {
                if let Some(N::List(list)) = l.node.as_mut() {
                    for (k, item) in list.items.iter_mut().enumerate() {
                        if matches!(item.node, Some(N::SetToDefault(_))) {
                            has_default = true;
                            let at = targets.get(k).copied().unwrap_or(usize::MAX);
                            match cols.iter().find(|(i, _)| *i == at) {
                                Some((_, c)) => *item = default_of(c)?,
                                None => *item = parse_expr("NULL")?,
                            }
                        }
                    }
                }
            }
            let _ = has_default;
            let names: Vec<protobuf::Node> = (0..targets.len())
                .map(|k| {
                    node(N::String(protobuf::String {
                        sval: format!("c{k}"),
                    }))
                })
                .collect();
            let item = node(N::RangeSubselect(Box::new(protobuf::RangeSubselect {
                lateral: false,
                subquery: Some(Box::new(node(N::SelectStmt(Box::new(q))))),
                alias: Some(protobuf::Alias {
                    aliasname: "*SELECT*".into(),
                    colnames: names,
                }),
            })));
            let refs = (0..targets.len())
                .map(|k| column_ref("*SELECT*", &format!("c{k}")))
                .collect();
            out.target_list = row_of(refs)?;
            out.from_clause = vec![item];
        }
        Some(_) => return Err(PgError::internal("INSERT without a row source")),
    }
    Ok(out)
}

fn is_star(t: &protobuf::Node) -> bool {
    let Some(N::ResTarget(rt)) = t.node.as_ref() else {
        return false;
    };
    matches!(rt.val.as_deref().and_then(|v| v.node.as_ref()),
        Some(N::ColumnRef(c)) if c.fields.last().is_some_and(|f| matches!(f.node, Some(N::AStar(_)))))
}

/// A rule's command with NEW and OLD joined in and the rule's condition added.
fn attach(n: N, src: &Source, qual: Option<protobuf::Node>) -> PgResult<protobuf::Node> {
    let items = || src.items.iter().cloned();
    Ok(node(match n {
        N::NotifyStmt(ns) => {
            // Once per statement, through the statement NOTIFY's path (pg_notify).
            let text = format!(
                "SELECT pg_catalog.pg_notify({}, {})",
                quote_literal(&ns.conditionname),
                quote_literal(&ns.payload)
            );
            parse_node(&text)?
        }
        N::UpdateStmt(mut u) => {
            u.from_clause = items().chain(lateral(u.from_clause)).collect();
            if let Some(q) = qual {
                u.where_clause = and(u.where_clause.take(), q);
            }
            N::UpdateStmt(u)
        }
        N::DeleteStmt(mut d) => {
            d.using_clause = items().chain(lateral(d.using_clause)).collect();
            if let Some(q) = qual {
                d.where_clause = and(d.where_clause.take(), q);
            }
            N::DeleteStmt(d)
        }
        N::SelectStmt(s) => N::SelectStmt(Box::new(join_select(*s, src, qual))),
        N::InsertStmt(mut i) => {
            let rows = match i.select_stmt.take().and_then(|n| n.node) {
                Some(N::SelectStmt(v)) if v.values_lists.len() == 1 => {
                    let mut s = select();
                    if let Some(N::List(l)) = v.values_lists[0].node.clone() {
                        s.target_list = l.items.into_iter().map(|e| target("", e)).collect();
                    }
                    s.from_clause = items().collect();
                    if let Some(q) = qual {
                        s.where_clause = Some(Box::new(q));
                    }
                    s
                }
                Some(N::SelectStmt(v)) => join_select(*v, src, qual),
                None => {
                    return Err(PgError::feature_not_supported(
                        "DEFAULT VALUES in a rule's INSERT is not supported yet",
                    ))
                }
                Some(_) => return Err(PgError::internal("INSERT without a row source")),
            };
            i.select_stmt = Some(Box::new(node(N::SelectStmt(Box::new(rows)))));
            N::InsertStmt(i)
        }
        other => other,
    }))
}

/// A command's own FROM items, after NEW and OLD: subqueries and functions made LATERAL, so
/// that they may read NEW and OLD as PostgreSQL's rule actions may anywhere.
fn lateral(items: Vec<protobuf::Node>) -> impl Iterator<Item = protobuf::Node> {
    items.into_iter().map(|mut n| {
        match n.node.as_mut() {
            Some(N::RangeSubselect(r)) => r.lateral = true,
            Some(N::RangeFunction(f)) => f.lateral = true,
            _ => {}
        }
        n
    })
}

/// A query of a rule's command joined with NEW / OLD: their items added to its FROM list
/// (after a wrapping where it is a set operation or a VALUES list).
fn join_select(
    s: protobuf::SelectStmt,
    src: &Source,
    qual: Option<protobuf::Node>,
) -> protobuf::SelectStmt {
    let simple = s.op == protobuf::SetOperation::SetopNone as i32 && s.values_lists.is_empty();
    let mut s = if simple {
        s
    } else {
        let mut w = select();
        w.target_list = vec![node(N::ResTarget(Box::new(protobuf::ResTarget {
            val: Some(Box::new(node(N::ColumnRef(protobuf::ColumnRef {
                fields: vec![
                    node(N::String(protobuf::String {
                        sval: "*SELECT*".into(),
                    })),
                    node(N::AStar(protobuf::AStar {})),
                ],
                location: -1,
            })))),
            location: -1,
            ..Default::default()
        })))];
        w.from_clause = vec![subselect(s, "*SELECT*", true)];
        w
    };
    let mut from: Vec<protobuf::Node> = src.items.clone();
    from.extend(lateral(std::mem::take(&mut s.from_clause)));
    s.from_clause = from;
    if let Some(q) = qual {
        s.where_clause = and(s.where_clause.take(), q);
    }
    s
}

/// The original statement limited to the rows where no conditional INSTEAD rule's condition
/// is true (PostgreSQL adds each such condition inverted, IS NOT TRUE).
fn restrict(stmt: &N, src: &Source, rel: &Rel, quals: Vec<protobuf::Node>) -> PgResult<N> {
    if quals.is_empty() {
        return Ok(stmt.clone());
    }
    let mut test = None;
    for q in quals {
        let t = match stmt {
            // NEW is the statement's FROM item: the condition reads it directly.
            N::InsertStmt(_) => node(N::BooleanTest(Box::new(protobuf::BooleanTest {
                xpr: None,
                arg: Some(Box::new(q)),
                booltesttype: protobuf::BoolTestType::IsNotTrue as i32,
                location: -1,
            }))),
            _ => {
                let mut s = select();
                s.from_clause = src.row_items.clone();
                s.where_clause = Some(Box::new(q));
                not_exists(s)
            }
        };
        test = and(test, t);
    }
    Ok(match stmt {
        N::InsertStmt(i) => {
            // The rows of NEW, every column given.
            let mut i = i.clone();
            let mut s = select();
            s.target_list = vec![target(
                "",
                node(N::ColumnRef(protobuf::ColumnRef {
                    fields: vec![
                        node(N::String(protobuf::String { sval: "new".into() })),
                        node(N::AStar(protobuf::AStar {})),
                    ],
                    location: -1,
                })),
            )];
            s.from_clause = src.items.clone();
            s.where_clause = test;
            i.cols = rel
                .live_columns()
                .map(|(_, c)| {
                    node(N::ResTarget(Box::new(protobuf::ResTarget {
                        name: c.name.clone(),
                        location: -1,
                        ..Default::default()
                    })))
                })
                .collect();
            i.select_stmt = Some(Box::new(node(N::SelectStmt(Box::new(s)))));
            N::InsertStmt(i)
        }
        N::UpdateStmt(u) => {
            let mut u = u.clone();
            if let Some(t) = test {
                u.where_clause = and(u.where_clause.take(), *t);
            }
            N::UpdateStmt(u)
        }
        N::DeleteStmt(d) => {
            let mut d = d.clone();
            if let Some(t) = test {
                d.where_clause = and(d.where_clause.take(), *t);
            }
            N::DeleteStmt(d)
        }
        _ => return Err(PgError::internal("not an INSERT, UPDATE or DELETE")),
    })
}

/// PostgreSQL's checks of a rule's use of OLD and NEW: an ON INSERT rule has no OLD, an ON
/// DELETE rule no NEW (42P17).
pub fn check_refs(n: &N, event: Event) -> PgResult<()> {
    let bad = match event {
        Event::Insert => "old",
        Event::Delete => "new",
        _ => return Ok(()),
    };
    let Ok(v) = serde_json::to_value(n) else {
        return Ok(());
    };
    if refers_to(&v, bad, 0) {
        let which = if bad == "old" { "INSERT" } else { "DELETE" };
        return Err(PgError::new(
            code::INVALID_OBJECT_DEFINITION,
            format!("ON {which} rule cannot use {}", bad.to_ascii_uppercase()),
        ));
    }
    Ok(())
}

/// Whether a parse tree (as JSON) has a column reference `name.column`.
fn refers_to(v: &serde_json::Value, name: &str, depth: usize) -> bool {
    use serde_json::Value as J;
    if depth > 1000 {
        return false;
    }
    match v {
        J::Object(m) => {
            if let Some(J::Object(c)) = m.get("ColumnRef") {
                if let Some(J::Array(f)) = c.get("fields") {
                    let first = f
                        .first()
                        .and_then(|x| x.pointer("/node/String/sval"))
                        .and_then(|x| x.as_str());
                    if f.len() >= 2 && first == Some(name) {
                        return true;
                    }
                }
            }
            m.values().any(|x| refers_to(x, name, depth + 1))
        }
        J::Array(a) => a.iter().any(|x| refers_to(x, name, depth + 1)),
        _ => false,
    }
}
