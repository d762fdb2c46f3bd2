//! DDL over tables: CREATE TABLE, DROP TABLE, CREATE INDEX, DROP INDEX, TRUNCATE and the ALTER
//! TABLE forms that add keys.
//!
//! Analysis ([`analyze`]) turns the parse tree into a [`Ddl`] value with types resolved and
//! expressions kept as SQL text (what PostgreSQL's catalogs store, deparsed); execution
//! ([`execute`]) writes new relation versions into the catalog as the session's transaction, so
//! DDL commits and rolls back with it (see `catalog`). Every table change goes through the
//! catalog's `create` / `end`; what a transaction changed there is logged with its commit
//! (`durable::Durable::catalog_commit`). Indexes are in `index.rs`.

use std::borrow::Cow;
use std::sync::Arc;

pub mod create_as;

use pg_query::protobuf::{self, node::Node as N, ConstrType};

use super::context::SessionCtx;
use super::engine::{self, Rel, TableData};
use super::plan::Planner;
use super::types::{FormatCtx, Type};
use crate::catalog::{
    CatalogError, ColumnDef, ConstraintDef, ConstraintKind, NewRelation, Persistence, QualName,
    RelKind, MAX_COLUMNS,
};
use crate::error::{code, PgError, PgResult};
use crate::sql::parser::{deparse_expr, names_of, str_of};
use crate::txn::lock::LockMode;

pub mod sequence;

mod aggregate;
pub mod alter;
mod base_type;
pub mod comment;
pub mod composite;
mod create_table;
pub mod domain;
pub mod extension;
pub mod function;
pub mod generated;
pub mod grant;
pub mod like;
pub mod maintenance;
pub mod matview;
pub mod partition;
pub mod partition_attach;
pub mod range_type;
pub mod role;
pub mod rule;
pub mod schema;
pub mod trigger;
mod truncate;
pub mod user_type;
pub mod view;

pub(crate) mod foreign_key;
pub use foreign_key::FkSpec;
mod index;
use index::{add_indexes, build_index, create_index_relations, index_defs};
pub mod names;

/// A column of CREATE TABLE, types resolved.
#[derive(Debug, Clone)]
pub struct NewColumn {
    pub name: String,
    pub ty: Type,
    pub typmod: i32,
    pub not_null: bool,
    pub default: Option<String>,
    pub identity: Option<char>,
    /// GENERATED ALWAYS AS (expr) STORED: `default` is the generation expression.
    pub generated: bool,
    /// The generation expression as the statement wrote it, for errors that point into the
    /// statement (None when the column comes from elsewhere: LIKE).
    pub written: Option<Box<pg_query::protobuf::node::Node>>,
    /// An error PostgreSQL's transformation of the column definition raises when the statement
    /// runs (`generated::Seen`), kept from analysis.
    pub error: Option<PgError>,
    /// A type name the built-in types do not have, resolved against the catalog when the
    /// statement runs (a user-defined type; `ty` is unknown until then).
    pub pending_type: Option<Box<protobuf::TypeName>>,
}

/// A column's type at analysis, which has no catalog: a name that is not a built-in type
/// is kept for [`resolve_pending_type`] at execution. So is one whose modifiers are refused
/// (`text(10)`, `numeric(1.5)`): PostgreSQL resolves a utility statement's types only when it
/// runs, so over the extended protocol that error answers Execute, after ParseComplete.
pub(super) fn column_type(
    planner: &Planner,
    tn: &protobuf::TypeName,
) -> PgResult<(Type, i32, Option<Box<protobuf::TypeName>>)> {
    match planner.resolve_type_name(tn) {
        Ok((t, m)) => Ok((t, m, None)),
        Err(_) => Ok((Type::UNKNOWN, -1, Some(Box::new(tn.clone())))),
    }
}

/// How a column declared with type `ty` (typmod `typmod`) is stored: (type OID, typmod,
/// domain). A domain column holds its base type's values and remembers the domain.
pub(super) fn stored_type(
    ty: Type,
    typmod: i32,
) -> (crate::catalog::Oid, i32, Option<crate::catalog::Oid>) {
    let (base, base_mod) = ty.base();
    if base == ty {
        (ty.0, typmod, None)
    } else {
        (base.0, base_mod, Some(ty.0))
    }
}

/// A column may not have a polymorphic pseudo-type (nor "any").
pub(super) fn check_not_pseudo(name: &str, ty: Type) -> PgResult<()> {
    if ty.is_polymorphic() || ty == Type::ANY {
        return Err(PgError::new(
            code::INVALID_TABLE_DEFINITION,
            format!("column \"{name}\" has pseudo-type {}", ty.name()),
        ));
    }
    Ok(())
}

/// Resolves a column type kept by [`column_type`] against the catalog the session sees.
pub(super) fn resolve_pending_type(col: &mut NewColumn, cx: &mut dyn SessionCtx) -> PgResult<()> {
    if let Some(tn) = col.pending_type.take() {
        let (ty, typmod) = function::with_planner(cx, None, |pl| pl.resolve_type_name(&tn))?;
        col.ty = ty;
        col.typmod = typmod;
    }
    Ok(())
}

/// A key constraint or index: its name if given, and its columns by name.
#[derive(Debug, Clone)]
pub struct KeySpec {
    pub name: Option<String>,
    pub columns: Vec<String>,
    pub primary: bool,
    pub unique: bool,
    /// Where the constraint stands in the statement (-1: nowhere), for error positions.
    pub location: i32,
    /// CREATE INDEX over expressions or with WHERE (then `columns` is empty).
    pub exprs: Option<Box<IndexExprSpec>>,
    /// USING hash.
    pub hash: bool,
    /// USING gin, with its column's operator class (the default one resolved at CREATE
    /// INDEX: `gin::default_opclass`).
    pub gin: Option<String>,
    /// A PRIMARY KEY or UNIQUE constraint's DEFERRABLE and INITIALLY DEFERRED.
    pub deferrable: bool,
    pub deferred: bool,
    /// INCLUDE (...): the columns carried besides the key, by name.
    pub include: Vec<String>,
    /// ADD ... USING INDEX: the existing unique index the constraint takes over.
    pub using_index: Option<String>,
}

impl KeySpec {
    /// A partitioned table's plain key index `d` as the key a partition of it gets (made
    /// with a new partition, or added when one is attached), unnamed.
    pub fn of_parent(parent: &crate::sql::engine::Rel, d: &crate::catalog::IndexDef) -> KeySpec {
        let names = |cols: &[usize]| -> Vec<String> {
            cols.iter()
                .map(|&c| parent.columns[c].name.clone())
                .collect()
        };
        let k = parent.deferrable_key(d.oid);
        KeySpec {
            name: None,
            columns: names(&d.columns),
            primary: d.primary,
            unique: d.unique,
            location: -1,
            exprs: None,
            hash: false,
            gin: None,
            deferrable: k.is_some(),
            deferred: k.is_some_and(|k| k.deferred),
            include: names(&d.include),
            using_index: None,
        }
    }
}

/// The items and predicate of CREATE INDEX over expressions or with WHERE.
#[derive(Debug, Clone)]
pub struct IndexExprSpec {
    /// Each key item: a column by name, or an expression (deparsed text) with the name
    /// PostgreSQL gives its index column (None: `expr`).
    pub items: Vec<KeyItemSpec>,
    pub predicate: Option<String>,
    /// The statement's nodes of the expressions (items in order, then the predicate), bound
    /// to check them with positions in the statement.
    pub nodes: Vec<N>,
}

#[derive(Debug, Clone)]
pub enum KeyItemSpec {
    Column(String),
    Expr(String, Option<String>),
}

/// A CHECK of CREATE TABLE: its name if given, its expression's text, and the one column it
/// refers to if it refers to exactly one (PostgreSQL names it after that column).
pub type Check = (Option<String>, String, Option<String>);

#[derive(Debug, Clone)]
pub struct CreateTable {
    pub schema: String,
    pub name: String,
    pub if_not_exists: bool,
    pub persistence: Persistence,
    pub columns: Vec<NewColumn>,
    pub keys: Vec<KeySpec>,
    /// CHECK constraints: name if given, expression text, and the one column the expression
    /// refers to (None for none or several), which names an unnamed check.
    pub checks: Vec<Check>,
    /// REFERENCES / FOREIGN KEY constraints.
    pub foreign_keys: Vec<FkSpec>,
    /// The serial and identity columns' sequences.
    pub sequences: Vec<sequence::ColumnSeq>,
    /// Where the table's name stands in the statement, for error positions.
    pub location: i32,
    /// What a temporary table's rows or the table itself become at commit.
    pub on_commit: OnCommit,
    /// LIKE clauses, expanded when the statement runs (like.rs).
    pub likes: Vec<like::Like>,
    /// Column descriptions to set once the table exists: (column, text) (LIKE INCLUDING
    /// COMMENTS).
    pub comments: Vec<(String, String)>,
    /// CREATE MATERIALIZED VIEW (through create_as.rs): the relation is one, with this
    /// definition.
    pub matview: Option<Box<crate::catalog::MatView>>,
    /// PARTITION BY (`partition.rs`).
    pub partition_by: Option<partition::Spec>,
    /// PARTITION OF parent FOR VALUES ...
    pub partition_of: Option<Box<partition::Of>>,
}

pub use crate::sql::context::OnCommit;

/// An analyzed DDL statement.
#[derive(Debug, Clone)]
pub enum Ddl {
    CreateTable(CreateTable),
    /// CREATE TABLE AS / SELECT INTO (run by [`run`], whose tag counts the rows).
    CreateTableAs(Box<create_as::CreateTableAs>),
    DropTables {
        names: Vec<(String, String)>,
        if_exists: bool,
        cascade: bool,
    },
    CreateIndex {
        table: (String, String),
        key: KeySpec,
        if_not_exists: bool,
    },
    DropIndexes {
        names: Vec<(String, String)>,
        if_exists: bool,
    },
    /// Tables, and whether CASCADE truncates the tables whose foreign keys reference them.
    Truncate(Vec<(String, String)>, bool),
    AddKey {
        table: (String, String),
        key: KeySpec,
    },
    /// ALTER TABLE ... ADD [CONSTRAINT name] FOREIGN KEY.
    AddForeignKey {
        table: (String, String),
        fk: FkSpec,
    },
    /// ALTER TABLE, RENAME, SET SCHEMA (alter.rs).
    Alter(alter::Alter),
    /// CREATE / DROP SCHEMA (schema.rs).
    Schema(schema::SchemaDdl),
    /// CREATE / ALTER / DROP ROLE, GRANT / REVOKE role (role.rs).
    Role(role::RoleDdl),
    /// GRANT / REVOKE of object privileges (grant.rs).
    Grant(Box<grant::Grant>),
    /// ALTER ... OWNER TO (grant.rs).
    Owner(Box<grant::OwnerTo>),
    /// CREATE / DROP VIEW (view.rs).
    View(view::ViewDdl),
    /// REFRESH / DROP MATERIALIZED VIEW (matview.rs).
    MatView(matview::MatViewDdl),
    /// COMMENT ON (comment.rs).
    Comment(comment::Comment),
    /// LOCK TABLE: the tables, the mode, NOWAIT.
    Lock {
        tables: Vec<(String, String)>,
        mode: LockMode,
        nowait: bool,
    },
    /// VACUUM, ANALYZE and REINDEX (`ddl::maintenance`).
    Maintenance(maintenance::Maintenance),
    /// CREATE / ALTER / DROP SEQUENCE, TRUNCATE ... RESTART IDENTITY (`ddl::sequence`).
    Sequence(Box<sequence::SeqDdl>),
    /// CREATE / DROP FUNCTION and PROCEDURE (`ddl::function`).
    Function(function::FunctionDdl),
    /// CREATE / DROP / ALTER TRIGGER, ALTER TABLE ... ENABLE / DISABLE TRIGGER
    /// (`ddl::trigger`).
    Trigger(trigger::TriggerDdl),
    /// CREATE / DROP / ALTER RULE (`ddl::rule`).
    Rule(rule::RuleDdl),
    /// CREATE / ALTER / DROP TYPE (`ddl::user_type`).
    Type(user_type::TypeDdl),
    /// CREATE / DROP EXTENSION (`ddl::extension`).
    Extension(extension::ExtensionDdl),
}

impl Ddl {
    /// The command tag.
    pub fn tag(&self) -> &'static str {
        match self {
            Ddl::CreateTable(_) => "CREATE TABLE",
            Ddl::CreateTableAs(c) => c.tag(),
            Ddl::DropTables { .. } => "DROP TABLE",
            Ddl::CreateIndex { .. } => "CREATE INDEX",
            Ddl::DropIndexes { .. } => "DROP INDEX",
            Ddl::Truncate(..) => "TRUNCATE TABLE",
            Ddl::AddKey { .. } | Ddl::AddForeignKey { .. } => "ALTER TABLE",
            Ddl::Alter(a) => a.tag(),
            Ddl::Schema(s) => s.tag(),
            Ddl::Role(r) => r.tag(),
            Ddl::Owner(o) => o.tag,
            Ddl::Grant(g) => {
                if g.is_grant {
                    "GRANT"
                } else {
                    "REVOKE"
                }
            }
            Ddl::View(v) => v.tag(),
            Ddl::MatView(m) => m.tag(),
            Ddl::Comment(_) => "COMMENT",
            Ddl::Function(f) => f.tag(),
            Ddl::Trigger(t) => t.tag(),
            Ddl::Rule(r) => r.tag(),
            Ddl::Type(t) => t.tag(),
            Ddl::Extension(e) => e.tag(),
            Ddl::Maintenance(m) => m.tag(),
            Ddl::Lock { .. } => "LOCK TABLE",
            Ddl::Sequence(s) => s.tag(),
        }
    }
}

/// The column a CHECK expression refers to, if it refers to exactly one (PostgreSQL names an
/// unnamed check after it).
fn single_column(e: &N) -> Option<String> {
    let mut cols: Vec<String> = Vec::new();
    for (n, _, _, _) in e.nodes() {
        if let pg_query::NodeRef::ColumnRef(cr) = n {
            if let Some(name) = cr.fields.last().and_then(str_of) {
                if !cols.iter().any(|c| c == name) {
                    cols.push(name.to_string());
                }
            }
        }
    }
    match cols.as_slice() {
        [one] => Some(one.clone()),
        _ => None,
    }
}

fn rel_name(rv: &protobuf::RangeVar) -> (String, String) {
    (rv.schemaname.clone(), rv.relname.clone())
}

/// PostgreSQL's CheckTableNotInUse: DDL `what` (DROP TABLE, TRUNCATE, ALTER TABLE, CREATE
/// INDEX) refuses a table whose deferred checks this transaction still keeps (55006).
pub(super) fn check_not_pending(cx: &dyn SessionCtx, t: &Rel, what: &str) -> PgResult<()> {
    if cx.deferred_pending_on(t.oid) {
        return Err(PgError::new(
            code::OBJECT_IN_USE,
            format!(
                "cannot {what} \"{}\" because it has pending trigger events",
                t.name.name
            ),
        ));
    }
    Ok(())
}

fn key_of_constraint(c: &protobuf::Constraint, column: Option<&str>) -> KeySpec {
    let columns = match column {
        Some(col) => vec![col.to_string()],
        None => names_of(&c.keys),
    };
    KeySpec {
        name: (!c.conname.is_empty()).then(|| c.conname.clone()),
        columns,
        primary: c.contype == ConstrType::ConstrPrimary as i32,
        unique: true,
        location: c.location,
        exprs: None,
        hash: false,
        gin: None,
        deferrable: c.deferrable,
        deferred: c.initdeferred,
        include: names_of(&c.including),
        using_index: (!c.indexname.is_empty()).then(|| c.indexname.clone()),
    }
}

/// The name PostgreSQL gives the index column of an expression (FigureColname): a function's
/// name, a cast's operand's or type's; None for the others (`expr`).
pub(super) fn index_column_name(n: &N) -> Option<String> {
    match n {
        N::FuncCall(f) => names_of(&f.funcname).last().cloned(),
        N::ColumnRef(c) => c.fields.last().and_then(str_of).map(str::to_string),
        N::TypeCast(t) => t
            .arg
            .as_ref()
            .and_then(|a| a.node.as_ref())
            .and_then(index_column_name)
            .or_else(|| {
                t.type_name
                    .as_ref()
                    .and_then(|tn| names_of(&tn.names).last().cloned())
            }),
        _ => None,
    }
}

/// Decides what a DDL parse tree is; None for statements this module does not handle.
pub fn analyze(node: &N) -> Option<PgResult<Ddl>> {
    // Before alter.rs, which takes every other ALTER TABLE.
    if let Some(r) = rule::analyze(node) {
        return Some(r.map(Ddl::Rule));
    }
    if let Some(t) = trigger::analyze(node) {
        return Some(t.map(Ddl::Trigger));
    }
    if let Some(t) = user_type::analyze(node) {
        return Some(t.map(Ddl::Type));
    }
    if let Some(e) = extension::analyze(node) {
        return Some(e.map(Ddl::Extension));
    }
    if let Some(r) = role::analyze(node) {
        return Some(r.map(Ddl::Role));
    }
    if let Some(g) = grant::analyze(node) {
        return Some(g);
    }
    if let Some(d) = sequence::analyze(node) {
        return Some(d);
    }
    if let Some(a) = alter::analyze(node) {
        return Some(a.map(Ddl::Alter));
    }
    if let Some(s) = schema::analyze(node) {
        return Some(s.map(Ddl::Schema));
    }
    if let Some(v) = view::analyze(node) {
        return Some(v.map(Ddl::View));
    }
    if let Some(m) = matview::analyze(node) {
        return Some(m.map(Ddl::MatView));
    }
    if let Some(c) = comment::analyze(node) {
        return Some(c.map(Ddl::Comment));
    }
    if let Some(f) = function::analyze(node) {
        return Some(f.map(Ddl::Function));
    }

    Some(match node {
        N::CreateStmt(c) => analyze_create(c),
        N::LockStmt(l) => {
            let tables = l
                .relations
                .iter()
                .filter_map(|n| match n.node.as_ref()? {
                    N::RangeVar(rv) => Some(rel_name(rv)),
                    _ => None,
                })
                .collect();
            // PostgreSQL numbers the modes from 1 (AccessShareLock) to 8.
            let mode = match LockMode::ALL.get((l.mode as usize).wrapping_sub(1)) {
                Some(m) => *m,
                None => return Some(Err(PgError::internal("unknown lock mode"))),
            };
            Ok(Ddl::Lock {
                tables,
                mode,
                nowait: l.nowait,
            })
        }
        N::DropStmt(d)
            if d.remove_type == protobuf::ObjectType::ObjectTable as i32
                || d.remove_type == protobuf::ObjectType::ObjectIndex as i32 =>
        {
            let names = drop_names(d);
            if d.remove_type == protobuf::ObjectType::ObjectTable as i32 {
                Ok(Ddl::DropTables {
                    names,
                    if_exists: d.missing_ok,
                    cascade: d.behavior == protobuf::DropBehavior::DropCascade as i32,
                })
            } else {
                Ok(Ddl::DropIndexes {
                    names,
                    if_exists: d.missing_ok,
                })
            }
        }
        N::IndexStmt(i) => (|| {
            let table = i
                .relation
                .as_ref()
                .map(rel_name)
                .ok_or_else(|| PgError::syntax("CREATE INDEX without a table"))?;
            let mut items = Vec::new();
            let mut nodes = Vec::new();
            for p in &i.index_params {
                let Some(N::IndexElem(e)) = p.node.as_ref() else {
                    return Err(PgError::syntax("unexpected index element"));
                };
                let expr = e.expr.as_ref().and_then(|x| x.node.as_ref());
                items.push(match expr {
                    None => KeyItemSpec::Column(e.name.clone()),
                    // `(a)` is the column itself, as PostgreSQL makes of it.
                    Some(N::ColumnRef(c)) if c.fields.len() == 1 => match c.fields[0].node {
                        Some(N::String(ref s)) => KeyItemSpec::Column(s.sval.clone()),
                        _ => KeyItemSpec::Expr(deparse_expr(expr.expect("matched"))?, None),
                    },
                    Some(x) => {
                        nodes.push(x.clone());
                        KeyItemSpec::Expr(deparse_expr(x)?, index_column_name(x))
                    }
                });
            }
            let predicate = match i.where_clause.as_ref().and_then(|w| w.node.as_ref()) {
                Some(w) => {
                    nodes.push(w.clone());
                    Some(deparse_expr(w)?)
                }
                None => None,
            };
            let include = i
                .index_including_params
                .iter()
                .filter_map(|p| match p.node.as_ref() {
                    Some(N::IndexElem(e)) => Some(e.name.clone()),
                    _ => None,
                })
                .collect::<Vec<_>>();
            // Only btree (and GiST, SP-GiST, which threadgres does not have) carry INCLUDE
            // columns (hash and gin are refused when the index is made: `index::check_include`).
            if !include.is_empty() && i.access_method == "brin" {
                return Err(PgError::feature_not_supported(format!(
                    "access method \"{}\" does not support included columns",
                    i.access_method
                )));
            }
            let (hash, gin) = match i.access_method.as_str() {
                "" | "btree" => (false, None),
                "hash" => (true, None),
                // The operator class named for the (one) column; "" for the default.
                "gin" => (false, Some(index::gin_opclass(&i.index_params)?)),
                m => {
                    return Err(PgError::feature_not_supported(format!(
                        "access method \"{m}\" is not supported"
                    )))
                }
            };
            let plain =
                predicate.is_none() && items.iter().all(|it| matches!(it, KeyItemSpec::Column(_)));
            let (columns, exprs) = if plain {
                let cols = items
                    .into_iter()
                    .map(|it| match it {
                        KeyItemSpec::Column(c) => c,
                        KeyItemSpec::Expr(t, _) => t,
                    })
                    .collect();
                (cols, None)
            } else {
                (
                    Vec::new(),
                    Some(Box::new(IndexExprSpec {
                        items,
                        predicate,
                        nodes,
                    })),
                )
            };
            Ok(Ddl::CreateIndex {
                table,
                key: KeySpec {
                    name: (!i.idxname.is_empty()).then(|| i.idxname.clone()),
                    columns,
                    primary: i.primary,
                    unique: i.unique,
                    location: -1,
                    exprs,
                    hash,
                    gin,
                    deferrable: false,
                    deferred: false,
                    include,
                    using_index: None,
                },
                if_not_exists: i.if_not_exists,
            })
        })(),
        N::VacuumStmt(v) => Ok(Ddl::Maintenance(maintenance::parse_vacuum(v))),
        N::ReindexStmt(r) => maintenance::parse_reindex(r).map(Ddl::Maintenance),
        N::TruncateStmt(t) => {
            let d = Ddl::Truncate(
                t.relations
                    .iter()
                    .filter_map(|r| match r.node.as_ref()? {
                        N::RangeVar(rv) => Some(rel_name(rv)),
                        _ => None,
                    })
                    .collect(),
                t.behavior == protobuf::DropBehavior::DropCascade as i32,
            );
            Ok(match t.restart_seqs {
                true => Ddl::Sequence(Box::new(sequence::SeqDdl::TruncateRestart(Box::new(d)))),
                false => d,
            })
        }
        N::AlterTableStmt(a) => {
            let table = a.relation.as_ref().map(rel_name).unwrap_or_default();
            let mut keys = Vec::new();
            for cmd in &a.cmds {
                let Some(N::AlterTableCmd(c)) = cmd.node.as_ref() else {
                    continue;
                };
                if let Some(N::Constraint(k)) = c.def.as_ref().and_then(|d| d.node.as_ref()) {
                    if c.subtype == protobuf::AlterTableType::AtAddConstraint as i32
                        && k.contype == ConstrType::ConstrForeign as i32
                        && a.cmds.len() == 1
                    {
                        return Some(
                            foreign_key::spec(k, None).map(|fk| Ddl::AddForeignKey { table, fk }),
                        );
                    }
                }
                let constraint = match c.def.as_ref().and_then(|d| d.node.as_ref()) {
                    Some(N::Constraint(k))
                        if c.subtype == protobuf::AlterTableType::AtAddConstraint as i32
                            && (k.contype == ConstrType::ConstrPrimary as i32
                                || k.contype == ConstrType::ConstrUnique as i32) =>
                    {
                        k
                    }
                    _ => return None,
                };
                keys.push(key_of_constraint(constraint, None));
            }
            match keys.as_slice() {
                [k] => Ok(Ddl::AddKey {
                    table,
                    key: k.clone(),
                }),
                _ => return None,
            }
        }
        _ => return None,
    })
}

/// The (schema, name) pairs a DROP TABLE / INDEX / VIEW names.
fn drop_names(d: &protobuf::DropStmt) -> Vec<(String, String)> {
    d.objects
        .iter()
        .filter_map(|o| match o.node.as_ref()? {
            N::List(l) => {
                let parts = names_of(&l.items);
                match parts.as_slice() {
                    [t] => Some((String::new(), t.clone())),
                    [s, t] => Some((s.clone(), t.clone())),
                    [_, s, t] => Some((s.clone(), t.clone())),
                    _ => None,
                }
            }
            _ => None,
        })
        .collect()
}

/// A key, CHECK or foreign-key constraint of CREATE TABLE, on `column` or on the table: the
/// same for both places (the other kinds are the column's own).
/// A column's constraints with the timing clauses that follow one (DEFERRABLE, NOT DEFERRABLE,
/// INITIALLY DEFERRED / IMMEDIATE: separate nodes in a column definition) applied to it, with
/// PostgreSQL's errors for a misplaced or repeated clause.
pub(crate) fn column_constraints(nodes: &[protobuf::Node]) -> PgResult<Vec<protobuf::Constraint>> {
    let mut out: Vec<protobuf::Constraint> = Vec::new();
    // Whether the last constraint took a clause of each kind already.
    let (mut saw_deferrability, mut saw_initially) = (false, false);
    for n in nodes {
        let Some(N::Constraint(k)) = n.node.as_ref() else {
            continue;
        };
        let kind = ConstrType::try_from(k.contype).unwrap_or(ConstrType::Undefined);
        let clause = match kind {
            ConstrType::ConstrAttrDeferrable => "DEFERRABLE",
            ConstrType::ConstrAttrNotDeferrable => "NOT DEFERRABLE",
            ConstrType::ConstrAttrDeferred => "INITIALLY DEFERRED",
            ConstrType::ConstrAttrImmediate => "INITIALLY IMMEDIATE",
            _ => {
                out.push((**k).clone());
                saw_deferrability = false;
                saw_initially = false;
                continue;
            }
        };
        let at = |e: PgError| e.at((k.location >= 0).then(|| k.location as u32 + 1));
        let last = out.last_mut().filter(|l| {
            matches!(
                ConstrType::try_from(l.contype).unwrap_or(ConstrType::Undefined),
                ConstrType::ConstrPrimary
                    | ConstrType::ConstrUnique
                    | ConstrType::ConstrExclusion
                    | ConstrType::ConstrForeign
            )
        });
        let Some(last) = last else {
            return Err(at(PgError::syntax(format!("misplaced {clause} clause"))));
        };
        let deferrability = matches!(
            kind,
            ConstrType::ConstrAttrDeferrable | ConstrType::ConstrAttrNotDeferrable
        );
        if deferrability && saw_deferrability {
            return Err(at(PgError::syntax(
                "multiple DEFERRABLE/NOT DEFERRABLE clauses not allowed",
            )));
        }
        if !deferrability && saw_initially {
            return Err(at(PgError::syntax(
                "multiple INITIALLY IMMEDIATE/DEFERRED clauses not allowed",
            )));
        }
        let must_be_deferrable = || {
            at(PgError::syntax(
                "constraint declared INITIALLY DEFERRED must be DEFERRABLE",
            ))
        };
        match kind {
            ConstrType::ConstrAttrDeferrable => last.deferrable = true,
            ConstrType::ConstrAttrNotDeferrable => {
                last.deferrable = false;
                if saw_initially && last.initdeferred {
                    return Err(must_be_deferrable());
                }
            }
            ConstrType::ConstrAttrDeferred => {
                last.initdeferred = true;
                // INITIALLY DEFERRED alone implies DEFERRABLE.
                if !saw_deferrability {
                    last.deferrable = true;
                } else if !last.deferrable {
                    return Err(must_be_deferrable());
                }
            }
            _ => last.initdeferred = false,
        }
        saw_deferrability |= deferrability;
        saw_initially |= !deferrability;
    }
    Ok(out)
}

fn key_or_check(
    k: &protobuf::Constraint,
    column: Option<&str>,
    keys: &mut Vec<KeySpec>,
    checks: &mut Vec<Check>,
    fks: &mut Vec<FkSpec>,
) -> PgResult<()> {
    match ConstrType::try_from(k.contype).unwrap_or(ConstrType::Undefined) {
        ConstrType::ConstrPrimary | ConstrType::ConstrUnique => {
            keys.push(key_of_constraint(k, column))
        }
        ConstrType::ConstrCheck => {
            if let Some(e) = k.raw_expr.as_ref().and_then(|e| e.node.as_ref()) {
                checks.push((
                    (!k.conname.is_empty()).then(|| k.conname.clone()),
                    deparse_expr(e)?,
                    single_column(e),
                ));
            }
        }
        ConstrType::ConstrForeign => fks.push(foreign_key::spec(k, column)?),
        // Refused rather than passed over: a table without them would give other answers.
        ConstrType::ConstrExclusion => {
            return Err(PgError::feature_not_supported(
                "exclusion constraints are not supported yet",
            ))
        }
        _ => {}
    }
    Ok(())
}

fn analyze_create(c: &protobuf::CreateStmt) -> PgResult<Ddl> {
    let rv = c
        .relation
        .as_ref()
        .ok_or_else(|| PgError::syntax("CREATE TABLE without a name"))?;
    let partition_by = match &c.partspec {
        Some(ps) => Some(partition::analyze_spec(ps)?),
        None => None,
    };
    let partition_of = match (
        &c.partbound,
        c.inh_relations.first().and_then(|n| n.node.as_ref()),
    ) {
        (Some(b), Some(N::RangeVar(parent))) => {
            Some(Box::new(partition::analyze_of(parent, b, &c.table_elts)?))
        }
        _ => None,
    };
    if !c.inh_relations.is_empty() && partition_of.is_none() {
        return Err(PgError::feature_not_supported(
            "table inheritance is not supported",
        ));
    }
    if c.of_typename.is_some() {
        return Err(PgError::feature_not_supported(
            "typed tables are not supported",
        ));
    }
    let persistence = match rv.relpersistence.as_str() {
        "t" => Persistence::Temporary,
        "u" => Persistence::Unlogged,
        _ => Persistence::Permanent,
    };
    let mut params = Vec::new();
    let fmt = FormatCtx::default();
    let planner = Planner::new(&mut params, &fmt);
    let mut columns = Vec::new();
    let mut keys = Vec::new();
    let mut checks = Vec::new();
    let mut fks = Vec::new();
    let mut sequences = Vec::new();
    let mut likes = Vec::new();
    for elt in &c.table_elts {
        match elt.node.as_ref() {
            // A partition's column options (`a WITH OPTIONS NOT NULL`): read by analyze_of.
            Some(N::ColumnDef(cd)) if partition_of.is_some() && cd.type_name.is_none() => {}
            Some(N::ColumnDef(cd)) => {
                let tn = cd
                    .type_name
                    .as_ref()
                    .ok_or_else(|| PgError::syntax("column without a type"))?;
                let tname = names_of(&tn.names).last().cloned().unwrap_or_default();
                let serial = sequence::serial_type(&tname).filter(|_| tn.array_bounds.is_empty());
                let mut pending = None;
                let (ty, typmod) = match serial {
                    Some(t) => {
                        sequence::serial_column(columns.len(), &mut sequences);
                        (t, -1)
                    }
                    None => {
                        let (t, m, p) = column_type(&planner, tn)?;
                        pending = p;
                        (t, m)
                    }
                };
                let mut col = NewColumn {
                    name: cd.colname.clone(),
                    ty,
                    typmod,
                    pending_type: pending,
                    not_null: cd.is_not_null,
                    default: None,
                    identity: None,
                    generated: false,
                    written: None,
                    error: None,
                };
                if let Some(d) = cd.raw_default.as_ref().and_then(|d| d.node.as_ref()) {
                    col.default = Some(deparse_expr(d)?);
                }
                let constraints = column_constraints(&cd.constraints)?;
                let mut seen = generated::Seen::default();
                for k in &constraints {
                    seen.note(k, &cd.colname, &rv.relname);
                    match ConstrType::try_from(k.contype).unwrap_or(ConstrType::Undefined) {
                        ConstrType::ConstrNotnull => col.not_null = true,
                        ConstrType::ConstrNull => col.not_null = false,
                        ConstrType::ConstrDefault => {
                            sequence::default_given(&mut sequences, columns.len(), k.location);
                            if let Some(e) = k.raw_expr.as_ref().and_then(|e| e.node.as_ref()) {
                                col.default = Some(deparse_expr(e)?);
                            }
                        }
                        ConstrType::ConstrIdentity => {
                            sequence::identity_column(&mut col, k, columns.len(), &mut sequences)?
                        }
                        ConstrType::ConstrGenerated => generated::take(&mut col, k)?,
                        _ => key_or_check(k, Some(&cd.colname), &mut keys, &mut checks, &mut fks)?,
                    }
                }
                col.error = seen.finish(&cd.colname, &rv.relname, constraints.last());
                columns.push(col);
            }
            Some(N::Constraint(k)) => key_or_check(k, None, &mut keys, &mut checks, &mut fks)?,
            Some(N::TableLikeClause(l)) => likes.push(like::analyze(l, columns.len())),
            _ => {}
        }
    }
    Ok(Ddl::CreateTable(CreateTable {
        schema: rv.schemaname.clone(),
        name: rv.relname.clone(),
        if_not_exists: c.if_not_exists,
        persistence,
        columns,
        keys,
        checks,
        foreign_keys: fks,
        sequences,
        location: rv.location,
        on_commit: on_commit(c.oncommit),
        likes,
        comments: Vec::new(),
        matview: None,
        partition_by,
        partition_of,
    }))
}

/// The ON COMMIT clause (checked when the table is created: only for temporary tables).
fn on_commit(action: i32) -> OnCommit {
    use protobuf::OnCommitAction as A;
    match action {
        x if x == A::OncommitDeleteRows as i32 => OnCommit::DeleteRows,
        x if x == A::OncommitDrop as i32 => OnCommit::Drop,
        x if x == A::OncommitPreserveRows as i32 => OnCommit::PreserveRows,
        _ => OnCommit::Noop,
    }
}

pub use crate::catalog::SYSTEM_COLUMNS;

/// A table's column may not take a system column's name (CREATE TABLE, ADD COLUMN, RENAME).
fn check_system_column_name(name: &str) -> PgResult<()> {
    if SYSTEM_COLUMNS.contains(&name) {
        return Err(PgError::new(
            code::DUPLICATE_COLUMN,
            format!("column name \"{name}\" conflicts with a system column name"),
        ));
    }
    Ok(())
}

/// PostgreSQL's SQLSTATE for a table definition it refuses.
const INVALID_TABLE_DEFINITION: &str = "42P16";

fn already_exists(name: &str) -> PgError {
    PgError::new(
        code::DUPLICATE_TABLE,
        format!("relation \"{name}\" already exists"),
    )
}

/// What PostgreSQL's RangeVarGetRelidExtended reports at DEBUG1 when a relation named with
/// IF EXISTS is missing (before the NOTICE that says it is skipped).
fn missing_relation_debug(schema: &str, name: &str) -> PgError {
    let what = match schema {
        "" => format!("relation \"{name}\" does not exist"),
        s => format!("relation \"{s}.{name}\" does not exist"),
    };
    PgError::debug(1, code::UNDEFINED_TABLE, what)
}

/// 2BP01 for a DROP of `what` ("type mood", "table t") without CASCADE while `lines` ("x
/// depends on ...") depend on it.
fn dependents_exist(what: &str, lines: &[String]) -> PgError {
    PgError::new(
        code::DEPENDENT_OBJECTS_STILL_EXIST,
        format!("cannot drop {what} because other objects depend on it"),
    )
    .with_detail(lines.join("\n"))
    .with_hint("Use DROP ... CASCADE to drop the dependent objects too.")
}

/// The usual answer to dropping `object` ("sequence s", "table t") that `dependents` need:
/// without CASCADE the 2BP01 error, each dependent "... depends on <object>"; with it the
/// "drop cascades to ..." NOTICE (the caller then drops them).
fn refuse_or_cascade(
    cx: &mut dyn SessionCtx,
    object: &str,
    dependents: &[String],
    cascade: bool,
) -> PgResult<()> {
    if !cascade {
        let detail: Vec<String> = dependents
            .iter()
            .map(|d| format!("{d} depends on {object}"))
            .collect();
        return Err(dependents_exist(object, &detail));
    }
    let drops: Vec<String> = dependents
        .iter()
        .map(|d| format!("drop cascades to {d}"))
        .collect();
    cx.notice(cascade_notice(drops.len(), &drops));
    Ok(())
}

/// The NOTICE of a DROP ... CASCADE that takes `count` objects with it: the one line of
/// `drops` ("drop cascades to ..."), or the count with the lines as its detail (`drops` may
/// be cut shorter than `count`).
fn cascade_notice(count: usize, drops: &[String]) -> PgError {
    match drops {
        [one] if count == 1 => notice(one.clone(), code::SUCCESSFUL_COMPLETION),
        _ => notice(
            format!("drop cascades to {count} other objects"),
            code::SUCCESSFUL_COMPLETION,
        )
        .with_detail(drops.join("\n")),
    }
}

fn notice(msg: String, sqlstate: &'static str) -> PgError {
    PgError::notice(sqlstate, msg)
}

/// The schema a new object goes to: the named one, or the first of search_path that exists;
/// the current role needs CREATE on it (42501 `permission denied for schema s`).
/// `location`: where the object's name stands, for the error's position.
fn creation_schema(cx: &mut dyn SessionCtx, schema: &str, location: i32) -> PgResult<String> {
    creation_schema_for(cx, schema, location, false).map(|(s, _)| s)
}

/// The schema a relation is created in, and whether it is the session's temporary schema
/// (`temp`: CREATE TEMP; a relation created in `pg_temp` is temporary too). Non-temporary
/// relations go to the first schema of search_path that is not the temporary one, and need
/// CREATE on it.
pub(super) fn creation_schema_for(
    cx: &mut dyn SessionCtx,
    schema: &str,
    location: i32,
    temp: bool,
) -> PgResult<(String, bool)> {
    if temp || schema == "pg_temp" {
        grant::check_temp(cx).map_err(|e| e.at((location >= 0).then(|| location as u32 + 1)))?;
    }
    let (s, is_temp) = creation_schema_resolved(cx, schema, location, temp)?;
    if !is_temp {
        grant::check_schema(cx, &s, crate::catalog::acl::CREATE)
            .map_err(|e| e.at((location >= 0).then(|| location as u32 + 1)))?;
    }
    Ok((s, is_temp))
}

fn creation_schema_resolved(
    cx: &mut dyn SessionCtx,
    schema: &str,
    location: i32,
    temp: bool,
) -> PgResult<(String, bool)> {
    let own = cx.own_temp_schema();
    if schema == "pg_temp" || (temp && schema.is_empty()) || own.as_deref() == Some(schema) {
        return Ok((cx.temp_schema()?, true));
    }
    if engine::is_temp_schema(schema) {
        return Err(PgError::new(
            INVALID_TABLE_DEFINITION,
            "cannot create relations in temporary schemas of other sessions",
        )
        .at((location >= 0).then(|| location as u32 + 1)));
    }
    if temp {
        return Err(PgError::new(
            INVALID_TABLE_DEFINITION,
            "cannot create temporary relation in non-temporary schema",
        )
        .at((location >= 0).then(|| location as u32 + 1)));
    }
    if schema.is_empty() {
        return cx
            .search_path()
            .into_iter()
            .find(|s| !engine::is_temp_schema(s))
            .map(|s| (s, false))
            .ok_or_else(|| {
                PgError::new(
                    code::INVALID_SCHEMA_NAME,
                    "no schema has been selected to create in",
                )
            });
    }
    let snap = cx.catalog_snapshot()?;
    if engine::schema_exists(&cx.instance().catalog, &snap, cx.database(), schema) {
        Ok((schema.to_string(), false))
    } else {
        Err(PgError::new(
            code::INVALID_SCHEMA_NAME,
            format!("schema \"{schema}\" does not exist"),
        )
        .at((location >= 0).then(|| location as u32 + 1)))
    }
}

fn qual(cx: &dyn SessionCtx, schema: &str, name: &str) -> QualName {
    QualName {
        database: cx.database().to_string(),
        schema: schema.to_string(),
        name: name.to_string(),
    }
}

/// Finds a relation by possibly qualified name, through search_path.
pub fn find(cx: &mut dyn SessionCtx, schema: &str, name: &str) -> PgResult<Option<Arc<Rel>>> {
    let snap = cx.catalog_snapshot()?;
    let path = cx.search_path();
    Ok(engine::find_rel(
        &cx.instance().catalog,
        &snap,
        cx.database(),
        path.iter().map(String::as_str),
        schema,
        name,
    ))
}

fn catalog_error(e: CatalogError, name: &str) -> PgError {
    match e {
        CatalogError::Exists(_) => already_exists(name),
        CatalogError::Busy(_) => PgError::new(
            code::OBJECT_IN_USE,
            format!("relation \"{name}\" is being changed by another transaction"),
        ),
        CatalogError::OidsExhausted => {
            PgError::new(code::PROGRAM_LIMIT_EXCEEDED, "object identifiers exhausted")
        }
    }
}

/// Runs a DDL statement as part of the session's transaction. Returns the command tag, which
/// for CREATE TABLE AS counts the rows (`SELECT n`).
pub fn run(ddl: &Ddl, cx: &mut dyn SessionCtx) -> PgResult<Cow<'static, str>> {
    match ddl {
        Ddl::CreateTableAs(c) => create_as::execute(c, cx),
        _ => execute(ddl, cx).map(Cow::Borrowed),
    }
}

/// Runs a DDL statement as part of the session's transaction. Returns the command tag.
pub fn execute(ddl: &Ddl, cx: &mut dyn SessionCtx) -> PgResult<&'static str> {
    match ddl {
        Ddl::Sequence(s) => sequence::execute(s, cx)?,
        Ddl::Role(r) => role::execute(r, cx)?,
        Ddl::Comment(c) => comment::execute(c, cx)?,
        Ddl::Function(f) => function::execute(f, cx)?,
        Ddl::Trigger(t) => trigger::execute(t, cx)?,
        Ddl::Rule(r) => rule::execute(r, cx)?,
        Ddl::Type(t) => user_type::execute(t, cx)?,
        Ddl::Extension(e) => extension::execute(e, cx)?,
        Ddl::Grant(g) => grant::execute(g, cx)?,
        Ddl::Owner(o) => grant::change_owner(o, cx)?,
        Ddl::CreateTable(ct) => create_table::create_table(ct, cx)?,
        Ddl::CreateTableAs(c) => {
            create_as::execute(c, cx)?;
        }
        Ddl::DropTables {
            names,
            if_exists,
            cascade,
        } => {
            let mut found = Vec::new();
            for (schema, name) in names {
                match find_locked(cx, schema, name, LockMode::AccessExclusive)? {
                    Some(r) if r.kind == RelKind::Table => {
                        grant::check_owner(cx, &r)?;
                        found.push(r)
                    }
                    Some(r) => return Err(view::wrong_kind(name, r.kind, "a table", "TABLE")),
                    None if *if_exists => {
                        cx.notice(missing_relation_debug(schema, name));
                        cx.notice(notice(
                            format!("table \"{name}\" does not exist, skipping"),
                            code::SUCCESSFUL_COMPLETION,
                        ))
                    }
                    None => {
                        return Err(PgError::new(
                            code::UNDEFINED_TABLE,
                            format!("table \"{name}\" does not exist"),
                        ))
                    }
                }
            }
            partition::add_partitions(cx, &mut found)?;
            view::drop_dependents(cx, &found, *cascade)?;
            foreign_key::before_drop(cx, &found, *cascade)?;
            for r in &found {
                check_not_pending(cx, r, "DROP TABLE")?;
            }
            let (cell, cid) = cx.writer("DROP TABLE")?;
            for r in found {
                let catalog = &cx.instance().catalog;
                catalog
                    .end(&r, &cell, cid)
                    .map_err(|e| catalog_error(e, &r.name.name))?;
                for i in &r.indexes {
                    if let Some(ir) = find(cx, &r.name.schema, &i.name)? {
                        cx.instance()
                            .catalog
                            .end(&ir, &cell, cid)
                            .map_err(|e| catalog_error(e, &i.name))?;
                    }
                }
                sequence::drop_owned(cx, &r)?;
            }
        }
        Ddl::DropIndexes { names, if_exists } => {
            for (schema, name) in names {
                let found = find_locked(cx, schema, name, LockMode::AccessExclusive)?;
                if let Some(r) = found.as_ref().filter(|r| r.kind.has_rows()) {
                    return Err(view::wrong_kind(name, r.kind, "an index", "INDEX"));
                }
                let Some(ir) = found.filter(|r| r.kind == RelKind::Index) else {
                    if *if_exists {
                        cx.notice(missing_relation_debug(schema, name));
                        cx.notice(notice(
                            format!("index \"{name}\" does not exist, skipping"),
                            code::SUCCESSFUL_COMPLETION,
                        ));
                        continue;
                    }
                    return Err(PgError::new(
                        code::UNDEFINED_OBJECT,
                        format!("index \"{name}\" does not exist"),
                    ));
                };
                grant::check_owner(cx, &ir)?;
                let def = &ir.indexes[0];
                let snap = cx.catalog_snapshot()?;
                let table = cx
                    .instance()
                    .catalog
                    .visible(&snap)
                    .into_iter()
                    .find(|r| Some(r.oid) == ir.table);
                let (cell, cid) = cx.writer("DROP INDEX")?;
                if let Some(t) = table {
                    if def.primary || t.constraints.iter().any(|c| matches!(c.kind, ConstraintKind::Unique { index } if index == def.oid)) {
                        return Err(PgError::new(
                            code::DEPENDENT_OBJECTS_STILL_EXIST,
                            format!(
                                "cannot drop index {name} because constraint {name} on table {} requires it",
                                t.name.name
                            ),
                        )
                        .with_hint(format!(
                            "You can drop constraint {name} on table {} instead.",
                            t.name.name
                        )));
                    }
                    replace(cx, &t, |n| n.indexes.retain(|i| i.oid != def.oid))?;
                }
                cx.instance()
                    .catalog
                    .end(&ir, &cell, cid)
                    .map_err(|e| catalog_error(e, name))?;
            }
        }
        Ddl::Truncate(names, cascade) => truncate::execute(cx, names, *cascade)?,
        Ddl::CreateIndex {
            table,
            key,
            if_not_exists,
        } => {
            // An index may be made on a materialized view as on a table.
            let t = match find_locked(cx, &table.0, &table.1, LockMode::Share)? {
                Some(r) if r.kind == RelKind::MatView => r,
                _ => table_locked(cx, &table.0, &table.1, LockMode::Share)?,
            };
            grant::check_owner(cx, &t)?;
            index::check_include(key)?;
            if key.hash {
                let width = key
                    .exprs
                    .as_ref()
                    .map_or(key.columns.len(), |x| x.items.len());
                if width > 1 {
                    return Err(PgError::feature_not_supported(
                        "access method \"hash\" does not support multicolumn indexes",
                    ));
                }
                if key.unique {
                    return Err(PgError::feature_not_supported(
                        "access method \"hash\" does not support unique indexes",
                    ));
                }
            }
            check_not_pending(cx, &t, "CREATE INDEX")?;
            let key = &index::gin_key(cx, &t, key)?;
            // DefineIndex: the index goes into the table's schema, which needs CREATE.
            grant::check_schema(cx, &t.name.schema, crate::catalog::acl::CREATE)?;
            if let Some(n) = &key.name {
                if find(cx, &t.name.schema, n)?.is_some() {
                    if *if_not_exists {
                        cx.notice(notice(
                            format!("relation \"{n}\" already exists, skipping"),
                            code::DUPLICATE_TABLE,
                        ));
                        return Ok(ddl.tag());
                    }
                    return Err(already_exists(n));
                }
            }
            add_indexes(cx, &t, std::slice::from_ref(key), false)?;
        }
        Ddl::AddKey { table, key } => {
            let t = table_for_alter(cx, &table.0, &table.1)?;
            grant::check_owner(cx, &t)?;
            grant::check_schema(cx, &t.name.schema, crate::catalog::acl::CREATE)?;
            check_not_pending(cx, &t, "ALTER TABLE")?;
            add_indexes(cx, &t, std::slice::from_ref(key), true)?;
        }
        Ddl::AddForeignKey { table, fk } => {
            // PostgreSQL's ShareRowExclusiveLock: writers wait, readers go on.
            let t = table_locked(cx, &table.0, &table.1, LockMode::ShareRowExclusive)?;
            grant::check_owner(cx, &t)?;
            check_not_pending(cx, &t, "ALTER TABLE")?;
            foreign_key::add(cx, &t, fk)?;
        }
        Ddl::Lock {
            tables,
            mode,
            nowait,
        } => {
            for (schema, name) in tables {
                let Some(r) = find(cx, schema, name)? else {
                    return Err(PgError::new(
                        code::UNDEFINED_TABLE,
                        format!("relation \"{name}\" does not exist"),
                    ));
                };
                if r.kind == RelKind::MatView {
                    return Err(PgError::new(
                        code::WRONG_OBJECT_TYPE,
                        format!("cannot lock relation \"{name}\""),
                    )
                    .with_detail("This operation is not supported for materialized views."));
                }
                if !matches!(r.kind, RelKind::Table | RelKind::View) {
                    return Err(PgError::new(
                        code::WRONG_OBJECT_TYPE,
                        format!("\"{name}\" is not a table or view"),
                    ));
                }
                grant::check_any(cx, &r, view::lock_privileges(*mode))?;
                cx.lock_relation(r.oid, *mode, nowait.then_some(name.as_str()))?;
                if r.kind == RelKind::View {
                    view::lock_view(cx, &r, *mode, *nowait)?;
                }
            }
        }
        Ddl::Alter(a) => alter::execute(a, cx)?,
        Ddl::Schema(s) => schema::execute(s, cx)?,
        Ddl::View(v) => view::execute(v, cx)?,
        Ddl::MatView(m) => matview::execute(m, cx)?,
        Ddl::Maintenance(m) => maintenance::execute(m, cx)?,
    }
    Ok(ddl.tag())
}

/// Finds a relation and takes lock `mode` on it; when the lock had to wait (for another
/// transaction's DDL, perhaps on this very relation), finds it again, as it is now.
pub fn find_locked(
    cx: &mut dyn SessionCtx,
    schema: &str,
    name: &str,
    mode: LockMode,
) -> PgResult<Option<Arc<Rel>>> {
    let mut tries = 0;
    loop {
        let Some(r) = find(cx, schema, name)? else {
            return Ok(None);
        };
        let rel = r.table.unwrap_or(r.oid);
        if !cx.lock_relation(rel, mode, None)? {
            return Ok(Some(r));
        }
        tries += 1;
        match find(cx, schema, name)? {
            Some(now) if now.oid == r.oid || tries >= 8 => return Ok(Some(now)),
            Some(_) => {}
            None => return Ok(None),
        }
    }
}

fn table_for_alter(cx: &mut dyn SessionCtx, schema: &str, name: &str) -> PgResult<Arc<Rel>> {
    table_locked(cx, schema, name, LockMode::AccessExclusive)
}

pub(super) fn table_locked(
    cx: &mut dyn SessionCtx,
    schema: &str,
    name: &str,
    mode: LockMode,
) -> PgResult<Arc<Rel>> {
    match find_locked(cx, schema, name, mode)? {
        Some(r) if r.kind == RelKind::Table => Ok(r),
        Some(_) => Err(PgError::new(
            code::WRONG_OBJECT_TYPE,
            format!("\"{name}\" is not a table"),
        )),
        None => Err(PgError::new(
            code::UNDEFINED_TABLE,
            format!("relation \"{name}\" does not exist"),
        )),
    }
}

/// Writes a new version of `t` changed by `f` (same data) and ends the old one.
fn replace(
    cx: &mut dyn SessionCtx,
    t: &Arc<Rel>,
    f: impl FnOnce(&mut NewRelation<TableData>),
) -> PgResult<Arc<Rel>> {
    replace_with_data(cx, t, t.data.clone(), f)
}

fn replace_with_data(
    cx: &mut dyn SessionCtx,
    t: &Arc<Rel>,
    data: Arc<TableData>,
    f: impl FnOnce(&mut NewRelation<TableData>),
) -> PgResult<Arc<Rel>> {
    let (cell, cid) = cx.writer("ALTER TABLE")?;
    let mut n = NewRelation {
        name: t.name.clone(),
        kind: t.kind,
        persistence: t.persistence,
        columns: t.columns.clone(),
        indexes: t.indexes.clone(),
        constraints: t.constraints.clone(),
        owner: t.owner,
        acl: t.acl.clone(),
        column_acls: t.column_acls.clone(),
        triggers: t.triggers.clone(),
        rules: t.rules.clone(),
        table: t.table,
        matview: t.matview.clone(),
        partition: t.partition.clone(),
        data,
    };
    f(&mut n);
    let catalog = &cx.instance().catalog;
    let owns_storage = matches!(
        n.kind,
        RelKind::Table | RelKind::MatView | RelKind::Sequence
    );
    if !Arc::ptr_eq(&n.data, &t.data) && owns_storage {
        // A new storage (TRUNCATE, a rewrite, RESTART of a sequence) gets a new number. An
        // index relation shares its table's data: numbering it here would renumber the
        // table's storage after its rows were logged under the number it had (they were lost
        // at recovery after a rewrite of an indexed table).
        let number = catalog
            .new_oid()
            .map_err(|e| catalog_error(e, &t.name.name))?;
        n.data.set_storage(number);
    }
    catalog
        .end(t, &cell, cid)
        .map_err(|e| catalog_error(e, &t.name.name))?;
    let snap = cx.catalog_snapshot()?;
    cx.instance()
        .catalog
        .create(Some(t.oid), n, &snap, &cell, cid)
        .map_err(|e| catalog_error(e, &t.name.name))
}
