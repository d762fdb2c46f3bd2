//! CREATE [OR REPLACE] TRIGGER, DROP TRIGGER, ALTER TRIGGER ... RENAME and ALTER TABLE ...
//! ENABLE / DISABLE TRIGGER. A trigger is part of its table's definition
//! (`catalog::triggers`), so each of these writes a new version of the table, as ALTER TABLE
//! does, under a SHARE ROW EXCLUSIVE lock (PostgreSQL's for CREATE TRIGGER) or the ALTER
//! TABLE lock.
//!
//! CREATE checks what PostgreSQL's CreateTrigger checks, with its errors: the table kind
//! against the timing, the function (it must return trigger), the UPDATE OF columns, and the
//! WHEN condition, which is bound over OLD and NEW as the statements that fire it will bind
//! it. A view may have INSTEAD OF ... FOR EACH ROW triggers (which make it a target of INSERT,
//! UPDATE and DELETE: `plan/trigger.rs`, `exec/trigger.rs`) and statement-level BEFORE /
//! AFTER ones. An AFTER trigger of a table may name transition tables (REFERENCING OLD /
//! NEW TABLE AS, kept in `TriggerDef`; `exec/trigger.rs` collects their rows). A constraint
//! trigger (CREATE CONSTRAINT TRIGGER) gets a constraint OID and its deferral
//! (`triggers::TriggerConstraint`); the grammar already limits it to AFTER ... FOR EACH ROW
//! without OR REPLACE, and OR REPLACE of an ordinary trigger may not replace one.

use pg_query::protobuf::{self, node::Node as N};

use super::{catalog_error, find_locked, notice, replace, table_locked};
use crate::catalog::triggers::{self, TriggerDef, MAX_ARGS, MAX_TRIGGERS};
use crate::catalog::RelKind;
use crate::error::{code, PgError, PgResult};
use crate::sql::context::SessionCtx;
use crate::sql::engine::Rel;
use crate::sql::parser::{deparse_expr, names_of};
use crate::txn::lock::LockMode;

/// pg_type.oid of the pseudo-type trigger.
const TRIGGER: u32 = 2279;

#[derive(Debug, Clone)]
pub enum TriggerDdl {
    Create(Box<protobuf::CreateTrigStmt>),
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
    /// ALTER TABLE ... ENABLE / DISABLE TRIGGER: (trigger name, or None for ALL / USER,
    /// and the new tgenabled).
    Enable {
        table: (String, String),
        changes: Vec<(Option<String>, char)>,
    },
}

impl TriggerDdl {
    pub fn tag(&self) -> &'static str {
        match self {
            TriggerDdl::Create(_) => "CREATE TRIGGER",
            TriggerDdl::Drop { .. } => "DROP TRIGGER",
            TriggerDdl::Rename { .. } => "ALTER TRIGGER",
            TriggerDdl::Enable { .. } => "ALTER TABLE",
        }
    }
}

fn rel_name(rv: Option<&protobuf::RangeVar>) -> (String, String) {
    rv.map(|r| (r.schemaname.clone(), r.relname.clone()))
        .unwrap_or_default()
}

/// The trigger statements among parse trees.
pub fn analyze(node: &N) -> Option<PgResult<TriggerDdl>> {
    use protobuf::AlterTableType as At;
    use protobuf::ObjectType as O;
    match node {
        N::CreateTrigStmt(c) => Some(Ok(TriggerDdl::Create(c.clone()))),
        N::DropStmt(d) if d.remove_type == O::ObjectTrigger as i32 => {
            let Some(N::List(l)) = d.objects.first().and_then(|o| o.node.as_ref()) else {
                return Some(Err(PgError::syntax("DROP TRIGGER without a name")));
            };
            let mut names = names_of(&l.items);
            let name = names.pop().unwrap_or_default();
            let table = match names.as_slice() {
                [t] => (String::new(), t.clone()),
                [s, t] => (s.clone(), t.clone()),
                _ => return Some(Err(PgError::syntax("improper trigger name"))),
            };
            Some(Ok(TriggerDdl::Drop {
                table,
                name,
                if_exists: d.missing_ok,
            }))
        }
        N::RenameStmt(r) if r.rename_type == O::ObjectTrigger as i32 => {
            Some(Ok(TriggerDdl::Rename {
                table: rel_name(r.relation.as_ref()),
                name: r.subname.clone(),
                new_name: r.newname.clone(),
            }))
        }
        N::AlterTableStmt(a) => {
            let mut changes = Vec::new();
            for cmd in &a.cmds {
                let Some(N::AlterTableCmd(c)) = cmd.node.as_ref() else {
                    return None;
                };
                let name = Some(c.name.clone());
                let change = match At::try_from(c.subtype).ok()? {
                    At::AtEnableTrig => (name, 'O'),
                    At::AtEnableAlwaysTrig => (name, 'A'),
                    At::AtEnableReplicaTrig => (name, 'R'),
                    At::AtDisableTrig => (name, 'D'),
                    At::AtEnableTrigAll | At::AtEnableTrigUser => (None, 'O'),
                    At::AtDisableTrigAll | At::AtDisableTrigUser => (None, 'D'),
                    _ => return None,
                };
                changes.push(change);
            }
            if changes.is_empty() {
                return None;
            }
            Some(Ok(TriggerDdl::Enable {
                table: rel_name(a.relation.as_ref()),
                changes,
            }))
        }
        _ => None,
    }
}

pub fn execute(d: &TriggerDdl, cx: &mut dyn SessionCtx) -> PgResult<()> {
    match d {
        TriggerDdl::Create(c) => create(c, cx),
        TriggerDdl::Drop {
            table,
            name,
            if_exists,
        } => drop_trigger(cx, table, name, *if_exists),
        TriggerDdl::Rename {
            table,
            name,
            new_name,
        } => {
            let t = table_locked(cx, &table.0, &table.1, LockMode::AccessExclusive)?;
            super::grant::check_owner(cx, &t)?;
            let i = position(&t, name)?;
            if new_name != name && t.triggers.iter().any(|x| x.name == *new_name) {
                return Err(exists(new_name, &t.name.name));
            }
            write(cx, &t, |list| list[i].name = new_name.clone())
        }
        TriggerDdl::Enable { table, changes } => {
            let t = table_locked(cx, &table.0, &table.1, LockMode::ShareRowExclusive)?;
            super::grant::check_owner(cx, &t)?;
            let mut list = t.triggers.clone();
            for (name, state) in changes {
                match name {
                    Some(n) => {
                        let i = position(&t, n)?;
                        list[i].enabled = *state;
                    }
                    None => list.iter_mut().for_each(|x| x.enabled = *state),
                }
            }
            write(cx, &t, |l| *l = list)
        }
    }
}

fn position(t: &Rel, name: &str) -> PgResult<usize> {
    t.triggers
        .iter()
        .position(|x| x.name == name)
        .ok_or_else(|| {
            PgError::new(
                code::UNDEFINED_OBJECT,
                format!(
                    "trigger \"{name}\" for table \"{}\" does not exist",
                    t.name.name
                ),
            )
        })
}

fn exists(name: &str, table: &str) -> PgError {
    PgError::new(
        code::DUPLICATE_OBJECT,
        format!("trigger \"{name}\" for relation \"{table}\" already exists"),
    )
}

/// Writes a new version of `t` with its trigger list changed by `f`, kept in name order.
fn write(
    cx: &mut dyn SessionCtx,
    t: &std::sync::Arc<Rel>,
    f: impl FnOnce(&mut Vec<TriggerDef>),
) -> PgResult<()> {
    replace(cx, t, |n| {
        f(&mut n.triggers);
        n.triggers.sort_by(|a, b| a.name.cmp(&b.name));
    })?;
    cx.instance().catalog.bump();
    Ok(())
}

fn drop_trigger(
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
    if !t.triggers.iter().any(|x| x.name == name) && if_exists {
        cx.notice(notice(
            format!(
                "trigger \"{name}\" for relation \"{}\" does not exist, skipping",
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

/// The trigger function `names` names (no arguments), which must return trigger.
fn function_of(cx: &mut dyn SessionCtx, names: &[String]) -> PgResult<u32> {
    let (schema, name) = match names {
        [n] => (String::new(), n.clone()),
        [s, n] | [_, s, n] => (s.clone(), n.clone()),
        _ => return Err(PgError::syntax("improper function name")),
    };
    let snap = cx.catalog_snapshot()?;
    let schemas = if schema.is_empty() {
        cx.search_path()
    } else {
        vec![schema]
    };
    let catalog = &cx.instance().catalog;
    for s in &schemas {
        let found = catalog.functions.named(cx.database(), s, &name, &snap);
        if let Some(f) = found.iter().find(|f| f.def.input_types().is_empty()) {
            if f.def.returns != TRIGGER {
                return Err(PgError::new(
                    code::INVALID_OBJECT_DEFINITION,
                    format!("function {name} must return type trigger"),
                ));
            }
            return Ok(f.oid);
        }
    }
    Err(PgError::new(
        code::UNDEFINED_FUNCTION,
        format!("function {}() does not exist", names.join(".")),
    ))
}

/// Whether `n` reads `old.x` / `new.x` (by the qualifier's name), and where first.
fn reads(n: &N, which: &str) -> Option<i32> {
    n.nodes().into_iter().find_map(|(x, _, _, _)| match x {
        pg_query::NodeRef::ColumnRef(cr) if cr.fields.len() >= 2 => {
            match cr.fields[0].node.as_ref() {
                Some(N::String(s)) if s.sval == which => Some(cr.location),
                _ => None,
            }
        }
        _ => None,
    })
}

/// A BEFORE trigger's WHEN may not read NEW's generated columns (computed after it runs),
/// by name or through the whole row.
fn new_generated(n: &N, columns: &[crate::catalog::ColumnDef]) -> PgResult<()> {
    let err = |at: i32, detail: String| {
        PgError::new(
            code::INVALID_OBJECT_DEFINITION,
            "BEFORE trigger's WHEN condition cannot reference NEW generated columns",
        )
        .with_detail(detail)
        .at(crate::sql::plan::loc(at))
    };
    for (x, _, _, _) in n.nodes() {
        let pg_query::NodeRef::ColumnRef(cr) = x else {
            continue;
        };
        if !matches!(cr.fields.first().and_then(|f| f.node.as_ref()), Some(N::String(s)) if s.sval == "new")
        {
            continue;
        }
        match cr.fields.get(1).and_then(|f| f.node.as_ref()) {
            Some(N::String(s))
                if columns
                    .iter()
                    .any(|c| c.generated && !c.dropped && c.name == s.sval) =>
            {
                return Err(err(
                    cr.location,
                    format!("Column \"{}\" is a generated column.", s.sval),
                ));
            }
            Some(N::AStar(_)) if columns.iter().any(|c| c.generated && !c.dropped) => {
                return Err(err(
                    cr.location,
                    "A whole-row reference is used and the table contains generated columns."
                        .to_string(),
                ));
            }
            _ => {}
        }
    }
    Ok(())
}

fn has_sublink(n: &N) -> Option<i32> {
    n.nodes().into_iter().find_map(|(x, _, _, _)| match x {
        pg_query::NodeRef::SubLink(s) => Some(s.location),
        _ => None,
    })
}

fn create(c: &protobuf::CreateTrigStmt, cx: &mut dyn SessionCtx) -> PgResult<()> {
    let table = rel_name(c.relation.as_ref());
    let Some(t) = find_locked(cx, &table.0, &table.1, LockMode::ShareRowExclusive)? else {
        return Err(PgError::new(
            code::UNDEFINED_TABLE,
            format!("relation \"{}\" does not exist", table.1),
        ));
    };
    let name = &t.name.name;
    let instead = c.timing & triggers::INSTEAD as i32 != 0;
    match t.kind {
        RelKind::Table if instead => {
            return Err(
                PgError::new(code::WRONG_OBJECT_TYPE, format!("\"{name}\" is a table"))
                    .with_detail("Tables cannot have INSTEAD OF triggers."),
            )
        }
        RelKind::Table if c.row && !c.transition_rels.is_empty() && t.partition_key().is_some() => {
            return Err(PgError::feature_not_supported(format!(
                "\"{name}\" is a partitioned table"
            ))
            .with_detail(
                "ROW triggers with transition tables are not supported on partitioned tables.",
            ))
        }
        RelKind::Table => {}
        RelKind::View if !instead && c.row => {
            return Err(
                PgError::new(code::WRONG_OBJECT_TYPE, format!("\"{name}\" is a view"))
                    .with_detail("Views cannot have row-level BEFORE or AFTER triggers."),
            )
        }
        RelKind::View if c.events as i16 & triggers::TRUNCATE != 0 => {
            return Err(
                PgError::new(code::WRONG_OBJECT_TYPE, format!("\"{name}\" is a view"))
                    .with_detail("Views cannot have TRUNCATE triggers."),
            )
        }
        RelKind::View => {}
        _ => {
            return Err(PgError::new(
                code::WRONG_OBJECT_TYPE,
                format!("relation \"{name}\" cannot have triggers"),
            )
            .with_detail(format!(
                "This operation is not supported for {}.",
                kind_word(t.kind)
            )))
        }
    }
    super::grant::check_owner(cx, &t)?;
    let events = c.events as i16;
    if events & triggers::TRUNCATE != 0 && c.row {
        return Err(PgError::feature_not_supported(
            "TRUNCATE FOR EACH ROW triggers are not supported",
        ));
    }
    if instead {
        if !c.row {
            return Err(PgError::feature_not_supported(
                "INSTEAD OF triggers must be FOR EACH ROW",
            ));
        }
        if c.when_clause.is_some() {
            return Err(PgError::feature_not_supported(
                "INSTEAD OF triggers cannot have WHEN conditions",
            ));
        }
        if !c.columns.is_empty() {
            return Err(PgError::feature_not_supported(
                "INSTEAD OF triggers cannot have column lists",
            ));
        }
    }
    // A constraint trigger's FROM table (the grammar allows only AFTER ... FOR EACH ROW, and
    // no OR REPLACE, for CREATE CONSTRAINT TRIGGER).
    let from_table = match c.constrrel.as_ref() {
        Some(rv) if c.isconstraint => {
            let (schema, rname) = rel_name(Some(rv));
            match find_locked(cx, &schema, &rname, LockMode::AccessShare)? {
                Some(r) => r.oid,
                None => {
                    return Err(PgError::new(
                        code::UNDEFINED_TABLE,
                        format!("relation \"{rname}\" does not exist"),
                    ))
                }
            }
        }
        _ => 0,
    };
    let (old_table, new_table) = transition_checks(c, &t, events)?;
    // UPDATE OF's columns.
    let mut columns = Vec::new();
    for col in names_of(&c.columns) {
        let Some(i) = t
            .live_columns()
            .find(|(_, cd)| cd.name == col)
            .map(|(i, _)| i)
        else {
            return Err(PgError::new(
                code::UNDEFINED_COLUMN,
                format!("column \"{col}\" of relation \"{name}\" does not exist"),
            ));
        };
        if columns.contains(&i) {
            return Err(PgError::new(
                code::DUPLICATE_COLUMN,
                format!("column \"{col}\" specified more than once"),
            ));
        }
        columns.push(i);
    }
    // WHEN: what it may read, then bound as the statements will bind it.
    let when = match c.when_clause.as_ref().and_then(|w| w.node.as_ref()) {
        None => None,
        Some(w) => {
            let bad = |at: i32, msg: &str| {
                PgError::new(code::INVALID_OBJECT_DEFINITION, msg.to_string())
                    .at(crate::sql::plan::loc(at))
            };
            if let Some(at) = has_sublink(w) {
                return Err(PgError::feature_not_supported(
                    "cannot use subquery in trigger WHEN condition",
                )
                .at(crate::sql::plan::loc(at)));
            }
            if !c.row {
                if let Some(at) = reads(w, "old").or_else(|| reads(w, "new")) {
                    return Err(bad(
                        at,
                        "statement trigger's WHEN condition cannot reference column values",
                    ));
                }
            }
            if events & triggers::INSERT != 0 {
                if let Some(at) = reads(w, "old") {
                    return Err(bad(
                        at,
                        "INSERT trigger's WHEN condition cannot reference OLD values",
                    ));
                }
            }
            if events & triggers::DELETE != 0 {
                if let Some(at) = reads(w, "new") {
                    return Err(bad(
                        at,
                        "DELETE trigger's WHEN condition cannot reference NEW values",
                    ));
                }
            }
            if c.timing & triggers::BEFORE as i32 != 0 {
                new_generated(w, &t.columns)?;
            }
            let text = deparse_expr(w)?;
            super::function::with_planner(cx, None, |p| p.bind_when_node(&t.columns, w))?;
            Some(text)
        }
    };
    let function = function_of(cx, &names_of(&c.funcname))?;
    let args: Vec<String> = c
        .args
        .iter()
        .filter_map(|a| match a.node.as_ref()? {
            N::String(s) => Some(s.sval.clone()),
            N::Integer(i) => Some(i.ival.to_string()),
            N::Float(f) => Some(f.fval.clone()),
            _ => None,
        })
        .collect();
    if args.len() > MAX_ARGS {
        return Err(PgError::new(
            code::PROGRAM_LIMIT_EXCEEDED,
            format!("a trigger can pass at most {MAX_ARGS} arguments"),
        ));
    }
    let existing = t.triggers.iter().position(|x| x.name == c.trigname);
    if existing.is_some() && !c.replace {
        return Err(exists(&c.trigname, name));
    }
    // OR REPLACE may not replace a constraint trigger (its constraint and pending events).
    if existing.is_some_and(|i| t.triggers[i].constraint.is_some()) {
        return Err(PgError::new(
            code::DUPLICATE_OBJECT,
            format!(
                "trigger \"{}\" for relation \"{name}\" is a constraint trigger",
                c.trigname
            ),
        ));
    }
    if existing.is_none() && t.triggers.len() >= MAX_TRIGGERS {
        return Err(PgError::new(
            code::PROGRAM_LIMIT_EXCEEDED,
            format!("a table can have at most {MAX_TRIGGERS} triggers"),
        ));
    }
    let oid = match existing {
        Some(i) => t.triggers[i].oid,
        None => cx
            .instance()
            .catalog
            .new_oid()
            .map_err(|e| catalog_error(e, name))?,
    };
    let constraint = if c.isconstraint {
        Some(triggers::TriggerConstraint {
            oid: cx
                .instance()
                .catalog
                .new_oid()
                .map_err(|e| catalog_error(e, name))?,
            deferrable: c.deferrable,
            initially_deferred: c.initdeferred,
            from_table,
        })
    } else {
        None
    };
    let def = TriggerDef {
        oid,
        name: c.trigname.clone(),
        function,
        tgtype: (c.row as i16) | (c.timing as i16) | events,
        enabled: 'O',
        columns,
        when,
        args,
        old_table,
        new_table,
        constraint,
    };
    write(cx, &t, |list| match existing {
        Some(i) => list[i] = def,
        None => list.push(def),
    })
}

/// Before DROP FUNCTION of `function` (shown as `shown`): the triggers that call it stop
/// the drop (2BP01), or, with CASCADE, are dropped with it.
pub(super) fn drop_function_triggers(
    cx: &mut dyn SessionCtx,
    function: u32,
    shown: &str,
    cascade: bool,
) -> PgResult<()> {
    let snap = cx.catalog_snapshot()?;
    let database = cx.database().to_string();
    let users: Vec<std::sync::Arc<Rel>> = cx
        .instance()
        .catalog
        .visible(&snap)
        .into_iter()
        .filter(|r| {
            r.name.database == database && r.triggers.iter().any(|t| t.function == function)
        })
        .collect();
    if users.is_empty() {
        return Ok(());
    }
    let mut lines = Vec::new();
    for r in &users {
        for t in r.triggers.iter().filter(|t| t.function == function) {
            let kind = if r.kind == RelKind::View {
                "view"
            } else {
                "table"
            };
            lines.push(format!("trigger {} on {kind} {}", t.name, r.name.name));
        }
    }
    super::refuse_or_cascade(cx, &format!("function {shown}"), &lines, cascade)?;
    for r in users {
        let t = table_locked(cx, &r.name.schema, &r.name.name, LockMode::AccessExclusive)?;
        write(cx, &t, |list| list.retain(|x| x.function != function))?;
    }
    Ok(())
}

/// Fires `t`'s TRUNCATE triggers of `timing` (statement level: TRUNCATE has no rows).
pub(super) fn fire_truncate(
    cx: &mut dyn SessionCtx,
    t: &Rel,
    timing: crate::catalog::triggers::Timing,
) -> PgResult<()> {
    for def in t
        .triggers
        .iter()
        .filter(|d| d.fires() && d.on(triggers::TRUNCATE) && d.timing() == timing)
    {
        let snap = cx.catalog_snapshot()?;
        let f = cx
            .instance()
            .catalog
            .functions
            .by_oid(def.function, &snap)
            .ok_or_else(|| {
                PgError::new(
                    code::UNDEFINED_FUNCTION,
                    format!("function with OID {} does not exist", def.function),
                )
            })?;
        let call = crate::sql::context::TriggerCall {
            def,
            table: t,
            event: triggers::TRUNCATE,
            old: None,
            new: None,
            transitions: &[],
        };
        cx.next_command();
        cx.call_trigger(&f, &call)?;
    }
    Ok(())
}

/// PostgreSQL's checks of a REFERENCING clause, in its order: the OLD TABLE and NEW TABLE
/// names it gives.
fn transition_checks(
    c: &protobuf::CreateTrigStmt,
    t: &Rel,
    events: i16,
) -> PgResult<(Option<String>, Option<String>)> {
    let bad = |msg: &str| PgError::new(code::INVALID_OBJECT_DEFINITION, msg.to_string());
    let (mut new_name, mut old_name): (Option<&str>, Option<&str>) = (None, None);
    for n in &c.transition_rels {
        let Some(N::TriggerTransition(tt)) = n.node.as_ref() else {
            continue;
        };
        if !tt.is_table {
            return Err(PgError::feature_not_supported(
                "ROW variable naming in the REFERENCING clause is not supported",
            )
            .with_hint("Use OLD TABLE or NEW TABLE for naming transition tables."));
        }
        if t.kind == RelKind::View {
            return Err(PgError::new(
                code::WRONG_OBJECT_TYPE,
                format!("\"{}\" is a view", t.name.name),
            )
            .with_detail("Triggers on views cannot have transition tables."));
        }
        // A partition's row trigger would need its rows in the parent's shape (PostgreSQL
        // refuses it too); there are no inheritance children here.
        if c.row && t.partition_of().is_some() {
            return Err(PgError::feature_not_supported(
                "ROW triggers with transition tables are not supported on partitions",
            ));
        }
        if c.timing as i16 & (triggers::BEFORE | triggers::INSTEAD) != 0 {
            return Err(bad(
                "transition table name can only be specified for an AFTER trigger",
            ));
        }
        if events & triggers::TRUNCATE != 0 {
            return Err(PgError::feature_not_supported(
                "TRUNCATE triggers with transition tables are not supported",
            ));
        }
        if (events & (triggers::INSERT | triggers::UPDATE | triggers::DELETE)).count_ones() != 1 {
            return Err(PgError::feature_not_supported(
                "transition tables cannot be specified for triggers with more than one event",
            ));
        }
        if !c.columns.is_empty() {
            return Err(PgError::feature_not_supported(
                "transition tables cannot be specified for triggers with column lists",
            ));
        }
        if tt.is_new {
            if events & (triggers::INSERT | triggers::UPDATE) == 0 {
                return Err(bad(
                    "NEW TABLE can only be specified for an INSERT or UPDATE trigger",
                ));
            }
            if new_name.is_some() {
                return Err(bad("NEW TABLE cannot be specified multiple times"));
            }
            new_name = Some(&tt.name);
        } else {
            if events & (triggers::DELETE | triggers::UPDATE) == 0 {
                return Err(bad(
                    "OLD TABLE can only be specified for a DELETE or UPDATE trigger",
                ));
            }
            if old_name.is_some() {
                return Err(bad("OLD TABLE cannot be specified multiple times"));
            }
            old_name = Some(&tt.name);
        }
    }
    if new_name.is_some() && new_name == old_name {
        return Err(bad("OLD TABLE name and NEW TABLE name cannot be the same"));
    }
    Ok((old_name.map(str::to_string), new_name.map(str::to_string)))
}

fn kind_word(k: RelKind) -> &'static str {
    match k {
        RelKind::Index => "indexes",
        RelKind::Sequence => "sequences",
        RelKind::MatView => "materialized views",
        _ => "this relation kind",
    }
}
