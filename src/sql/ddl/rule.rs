//! CREATE [OR REPLACE] RULE, DROP RULE, ALTER RULE ... RENAME and ALTER TABLE ... ENABLE /
//! DISABLE RULE. A rule is part of its relation's definition (`catalog::rules`), so each of
//! these writes a new version of the table or view under an ACCESS EXCLUSIVE lock (PostgreSQL's
//! for CREATE RULE), and DROP TABLE / DROP VIEW take its rules with it.
//!
//! The condition and the commands are kept as SQL text (deparsed from their parse trees);
//! `sql::plan::rules` applies them when a statement on the relation is planned. ON SELECT
//! rules are refused with PostgreSQL's errors: in PostgreSQL 15 they only make views.

use pg_query::protobuf::{self, node::Node as N};

use super::{catalog_error, find_locked, notice, replace};
use crate::catalog::rules::{Event, RuleDef, MAX_ACTIONS, MAX_RULES};
use crate::catalog::RelKind;
use crate::error::{code, PgError, PgResult};
use crate::sql::context::SessionCtx;
use crate::sql::engine::Rel;
use crate::sql::parser::{deparse_expr, names_of};
use crate::txn::lock::LockMode;

/// The name PostgreSQL gives a view's ON SELECT rule.
pub const VIEW_RULE: &str = "_RETURN";

#[derive(Debug, Clone)]
pub enum RuleDdl {
    Create(Box<protobuf::RuleStmt>),
    Drop {
        table: (String, String),
        name: String,
        if_exists: bool,
    },
    Rename {
        table: (String, String),
        name: String,
        new_name: String,
    },
    /// ALTER TABLE ... ENABLE / DISABLE RULE: (rule name, new ev_enabled).
    Enable {
        table: (String, String),
        changes: Vec<(String, char)>,
    },
}

impl RuleDdl {
    pub fn tag(&self) -> &'static str {
        match self {
            RuleDdl::Create(_) => "CREATE RULE",
            RuleDdl::Drop { .. } => "DROP RULE",
            RuleDdl::Rename { .. } => "ALTER RULE",
            RuleDdl::Enable { .. } => "ALTER TABLE",
        }
    }
}

fn rel_name(rv: Option<&protobuf::RangeVar>) -> (String, String) {
    rv.map(|r| (r.schemaname.clone(), r.relname.clone()))
        .unwrap_or_default()
}

/// The rule statements among parse trees.
pub fn analyze(node: &N) -> Option<PgResult<RuleDdl>> {
    use protobuf::AlterTableType as At;
    use protobuf::ObjectType as O;
    match node {
        N::RuleStmt(r) => Some(Ok(RuleDdl::Create(r.clone()))),
        N::DropStmt(d) if d.remove_type == O::ObjectRule as i32 => {
            let Some(N::List(l)) = d.objects.first().and_then(|o| o.node.as_ref()) else {
                return Some(Err(PgError::syntax("DROP RULE without a name")));
            };
            let mut names = names_of(&l.items);
            let name = names.pop().unwrap_or_default();
            let table = match names.as_slice() {
                [t] => (String::new(), t.clone()),
                [s, t] => (s.clone(), t.clone()),
                _ => return Some(Err(PgError::syntax("improper rule name"))),
            };
            Some(Ok(RuleDdl::Drop {
                table,
                name,
                if_exists: d.missing_ok,
            }))
        }
        N::RenameStmt(r) if r.rename_type == O::ObjectRule as i32 => Some(Ok(RuleDdl::Rename {
            table: rel_name(r.relation.as_ref()),
            name: r.subname.clone(),
            new_name: r.newname.clone(),
        })),
        N::AlterTableStmt(a) => {
            let mut changes = Vec::new();
            for cmd in &a.cmds {
                let Some(N::AlterTableCmd(c)) = cmd.node.as_ref() else {
                    return None;
                };
                let state = match At::try_from(c.subtype).ok()? {
                    At::AtEnableRule => 'O',
                    At::AtEnableAlwaysRule => 'A',
                    At::AtEnableReplicaRule => 'R',
                    At::AtDisableRule => 'D',
                    _ => return None,
                };
                changes.push((c.name.clone(), state));
            }
            if changes.is_empty() {
                return None;
            }
            Some(Ok(RuleDdl::Enable {
                table: rel_name(a.relation.as_ref()),
                changes,
            }))
        }
        _ => None,
    }
}

pub fn execute(d: &RuleDdl, cx: &mut dyn SessionCtx) -> PgResult<()> {
    match d {
        RuleDdl::Create(r) => create(r, cx),
        RuleDdl::Drop {
            table,
            name,
            if_exists,
        } => drop_rule(cx, table, name, *if_exists),
        RuleDdl::Rename {
            table,
            name,
            new_name,
        } => {
            let t = rel_locked(cx, table)?;
            super::grant::check_owner(cx, &t)?;
            if name == VIEW_RULE && t.kind == RelKind::View {
                return Err(PgError::new(
                    code::FEATURE_NOT_SUPPORTED,
                    "renaming an ON SELECT rule is not allowed",
                ));
            }
            let i = position(&t, name)?;
            if t.rules.iter().any(|x| x.name == *new_name)
                || (new_name == VIEW_RULE && t.kind == RelKind::View)
            {
                return Err(exists(new_name, &t.name.name));
            }
            write(cx, &t, |list| list[i].name = new_name.clone())
        }
        RuleDdl::Enable { table, changes } => {
            let t = rel_locked(cx, table)?;
            super::grant::check_owner(cx, &t)?;
            let mut list = t.rules.clone();
            for (name, state) in changes {
                let i = position(&t, name)?;
                list[i].enabled = *state;
            }
            write(cx, &t, |l| *l = list)
        }
    }
}

/// The table or view a rule statement names, locked as PostgreSQL locks it.
fn rel_locked(cx: &mut dyn SessionCtx, table: &(String, String)) -> PgResult<std::sync::Arc<Rel>> {
    let t = find_locked(cx, &table.0, &table.1, LockMode::AccessExclusive)?.ok_or_else(|| {
        PgError::new(
            code::UNDEFINED_TABLE,
            format!("relation \"{}\" does not exist", table.1),
        )
    })?;
    check_kind(&t)?;
    Ok(t)
}

fn check_kind(t: &Rel) -> PgResult<()> {
    match t.kind {
        RelKind::Table | RelKind::View => Ok(()),
        RelKind::MatView => Err(PgError::new(
            code::FEATURE_NOT_SUPPORTED,
            "rules on materialized views are not supported",
        )),
        RelKind::Index => Err(PgError::new(
            code::WRONG_OBJECT_TYPE,
            format!("\"{}\" is an index", t.name.name),
        )),
        k => Err(PgError::new(
            code::WRONG_OBJECT_TYPE,
            format!("relation \"{}\" cannot have rules", t.name.name),
        )
        .with_detail(format!(
            "This operation is not supported for {}.",
            match k {
                RelKind::Index => "indexes",
                RelKind::Sequence => "sequences",
                _ => "this kind of relation",
            }
        ))),
    }
}

fn position(t: &Rel, name: &str) -> PgResult<usize> {
    t.rules.iter().position(|x| x.name == name).ok_or_else(|| {
        PgError::new(
            code::UNDEFINED_OBJECT,
            format!(
                "rule \"{name}\" for relation \"{}\" does not exist",
                t.name.name
            ),
        )
    })
}

fn exists(name: &str, table: &str) -> PgError {
    PgError::new(
        code::DUPLICATE_OBJECT,
        format!("rule \"{name}\" for relation \"{table}\" already exists"),
    )
}

/// Writes a new version of `t` with its rule list changed by `f`, kept in name order.
fn write(
    cx: &mut dyn SessionCtx,
    t: &std::sync::Arc<Rel>,
    f: impl FnOnce(&mut Vec<RuleDef>),
) -> PgResult<()> {
    replace(cx, t, |n| {
        f(&mut n.rules);
        n.rules.sort_by(|a, b| a.name.cmp(&b.name));
    })?;
    cx.instance().catalog.bump();
    Ok(())
}

fn drop_rule(
    cx: &mut dyn SessionCtx,
    table: &(String, String),
    name: &str,
    if_exists: bool,
) -> PgResult<()> {
    let found = find_locked(cx, &table.0, &table.1, LockMode::AccessExclusive)?;
    let t = match found {
        Some(t) => t,
        None if if_exists => {
            cx.notice(notice(
                format!("relation \"{}\" does not exist, skipping", table.1),
                code::SUCCESSFUL_COMPLETION,
            ));
            return Ok(());
        }
        None => {
            return Err(PgError::new(
                code::UNDEFINED_TABLE,
                format!("relation \"{}\" does not exist", table.1),
            ))
        }
    };
    if name == VIEW_RULE && t.kind == RelKind::View {
        let v = &t.name.name;
        return Err(PgError::new(
            code::DEPENDENT_OBJECTS_STILL_EXIST,
            format!("cannot drop rule _RETURN on view {v} because view {v} requires it"),
        )
        .with_hint(format!("You can drop view {v} instead.")));
    }
    if !t.rules.iter().any(|x| x.name == name) && if_exists {
        cx.notice(notice(
            format!(
                "rule \"{name}\" for relation \"{}\" does not exist, skipping",
                t.name.name
            ),
            code::SUCCESSFUL_COMPLETION,
        ));
        return Ok(());
    }
    let i = position(&t, name)?;
    super::grant::check_owner(cx, &t)?;
    write(cx, &t, |list| {
        list.remove(i);
    })
}

/// The SQL text of a statement's parse tree.
fn deparse_stmt(n: &N) -> PgResult<String> {
    n.deparse(Default::default())
        .map_err(|e| PgError::new(code::SYNTAX_ERROR, format!("cannot deparse: {e}")))
}

/// PostgreSQL's checks of an ON SELECT rule (DefineQueryRewrite), which in version 15 only
/// a view's own `_RETURN` rule passes; converting a table into a view is not supported.
fn check_select_rule(r: &protobuf::RuleStmt, t: &Rel) -> PgResult<()> {
    let def = |m: &str| PgError::new(code::FEATURE_NOT_SUPPORTED, m.to_string());
    // DO NOTHING is one action (a "nothing" query), which is not a SELECT.
    if r.actions.len() > 1 {
        return Err(def(
            "multiple actions for rules on SELECT are not implemented",
        ));
    }
    let select = r
        .actions
        .first()
        .is_some_and(|a| matches!(a.node, Some(N::SelectStmt(_))));
    if !r.instead || !select {
        return Err(def("rules on SELECT must have action INSTEAD SELECT"));
    }
    if r.where_clause.is_some() {
        return Err(def(
            "event qualifications are not implemented for rules on SELECT",
        ));
    }
    if t.kind == RelKind::View {
        return Err(PgError::new(
            code::OBJECT_NOT_IN_PREREQUISITE_STATE,
            format!("\"{}\" is already a view", t.name.name),
        ));
    }
    if r.rulename != VIEW_RULE && !r.rulename.starts_with("_RET") {
        return Err(PgError::new(
            code::INVALID_OBJECT_DEFINITION,
            format!(
                "view rule for \"{}\" must be named \"{VIEW_RULE}\"",
                t.name.name
            ),
        ));
    }
    Err(PgError::feature_not_supported(format!(
        "converting table \"{}\" into a view is not supported",
        t.name.name
    )))
}

fn create(r: &protobuf::RuleStmt, cx: &mut dyn SessionCtx) -> PgResult<()> {
    use protobuf::CmdType as C;
    let t = rel_locked(cx, &rel_name(r.relation.as_ref()))?;
    super::grant::check_owner(cx, &t)?;
    let event = match C::try_from(r.event).unwrap_or(C::Undefined) {
        C::CmdSelect => return check_select_rule(r, &t),
        C::CmdUpdate => Event::Update,
        C::CmdInsert => Event::Insert,
        C::CmdDelete => Event::Delete,
        _ => return Err(PgError::syntax("unknown rule event")),
    };
    if r.rulename == VIEW_RULE {
        return Err(PgError::new(
            code::INVALID_OBJECT_DEFINITION,
            format!(
                "non-view rule for \"{}\" must not be named \"{VIEW_RULE}\"",
                t.name.name
            ),
        ));
    }
    if r.actions.len() > MAX_ACTIONS {
        return Err(PgError::new(
            code::PROGRAM_LIMIT_EXCEEDED,
            format!("a rule can have at most {MAX_ACTIONS} commands"),
        ));
    }
    let mut actions = Vec::with_capacity(r.actions.len());
    let mut returning = 0;
    for a in &r.actions {
        let Some(n) = a.node.as_ref() else { continue };
        if r.where_clause.is_some() && matches!(n, N::NotifyStmt(_)) {
            return Err(PgError::new(
                code::INVALID_OBJECT_DEFINITION,
                "rules with WHERE conditions can only have SELECT, INSERT, UPDATE, or DELETE actions",
            ));
        }
        if crate::sql::plan::rules::has_returning(n) {
            returning += 1;
            if returning > 1 {
                return Err(PgError::new(
                    code::FEATURE_NOT_SUPPORTED,
                    "cannot have multiple RETURNING lists in a rule",
                ));
            }
            if r.where_clause.is_some() {
                return Err(PgError::new(
                    code::FEATURE_NOT_SUPPORTED,
                    "RETURNING lists are not supported in conditional rules",
                ));
            }
            if !r.instead {
                return Err(PgError::new(
                    code::FEATURE_NOT_SUPPORTED,
                    "RETURNING lists are not supported in non-INSTEAD rules",
                ));
            }
        }
        crate::sql::plan::rules::check_refs(n, event)?;
        actions.push(deparse_stmt(n)?);
    }
    let qual = match r.where_clause.as_ref().and_then(|w| w.node.as_ref()) {
        Some(w) => {
            crate::sql::plan::rules::check_refs(w, event)?;
            Some(deparse_expr(w)?)
        }
        None => None,
    };
    let name = &t.name.name;
    let existing = t.rules.iter().position(|x| x.name == r.rulename);
    if existing.is_some() && !r.replace {
        return Err(exists(&r.rulename, name));
    }
    if existing.is_none() && t.rules.len() >= MAX_RULES {
        return Err(PgError::new(
            code::PROGRAM_LIMIT_EXCEEDED,
            format!("a relation can have at most {MAX_RULES} rules"),
        ));
    }
    let oid = match existing {
        Some(i) => t.rules[i].oid,
        None => cx
            .instance()
            .catalog
            .new_oid()
            .map_err(|e| catalog_error(e, name))?,
    };
    let def = RuleDef {
        oid,
        name: r.rulename.clone(),
        event,
        instead: r.instead,
        enabled: 'O',
        qual,
        actions,
        owner: t.owner,
    };
    write(cx, &t, |list| match existing {
        Some(i) => list[i] = def,
        None => list.push(def),
    })
}
