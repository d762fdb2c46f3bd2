//! DDL of sequences: CREATE / ALTER / DROP SEQUENCE, the sequences of serial and identity
//! columns, TRUNCATE ... RESTART IDENTITY, and the sequences a DROP TABLE takes with it.
//!
//! A sequence is a catalog relation of kind 'S' with the three columns PostgreSQL shows in
//! `SELECT * FROM seq` (last_value, log_cnt, is_called); its options and counter live in the
//! relation's data (`catalog::sequence`). Creating, altering and dropping one are catalog writes
//! of the session's transaction, so they commit and roll back like any DDL; the counter does not
//! (see `catalog::sequence`). ALTER SEQUENCE keeps sharing the counter of the version it
//! replaces (values handed out meanwhile by other sessions are never handed out again), except
//! with RESTART, which starts a counter of its own, as PostgreSQL's new relfilenode does.

use std::sync::Arc;

use pg_query::protobuf::{self, node::Node as N};

use super::{catalog_error, creation_schema, find, notice, qual, replace_with_data, Ddl};
use crate::catalog::sequence::{OwnedBy, SeqOptions, SeqState, Sequence};
use crate::catalog::{ColumnDef, NewRelation, Oid, Persistence, RelKind};
use crate::error::{code, PgError, PgResult};
use crate::sql::context::SessionCtx;
use crate::sql::engine::{Rel, TableData};
use crate::sql::parser::str_of;
use crate::sql::plan::Planner;
use crate::sql::sequence::nextval_default;
use crate::sql::types::{FormatCtx, Type};

/// The options of CREATE / ALTER SEQUENCE or of an identity column, as written (None: not
/// given; for MINVALUE / MAXVALUE / RESTART, `Some(None)` is NO MINVALUE, NO MAXVALUE, RESTART
/// without a value).
#[derive(Debug, Clone, Default)]
pub struct SeqSpec {
    pub as_type: Option<Type>,
    pub increment: Option<i64>,
    pub start: Option<i64>,
    pub restart: Option<Option<i64>>,
    pub max: Option<Option<i64>>,
    pub min: Option<Option<i64>>,
    pub cache: Option<i64>,
    pub cycle: Option<bool>,
    /// OWNED BY: `["none"]` or the column's qualified name.
    pub owned_by: Option<Vec<String>>,
    /// SEQUENCE NAME of an identity column.
    pub sequence_name: Option<(String, String)>,
}

/// The sequence a column of CREATE TABLE gets: serial, or GENERATED ... AS IDENTITY.
#[derive(Debug, Clone)]
pub struct ColumnSeq {
    /// Position of the column in the statement's column list.
    pub column: usize,
    pub identity: bool,
    pub spec: SeqSpec,
    /// A contradiction in the column's definition, reported when the statement runs (as
    /// PostgreSQL's transformCreateStmt does), with the position of the clause that made it.
    pub conflict: Option<(Conflict, i32)>,
}

/// What contradicts a serial or identity column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Conflict {
    BothDefaultAndIdentity,
    MultipleIdentity,
    MultipleDefaults,
}

/// An analyzed sequence statement.
#[derive(Debug, Clone)]
pub enum SeqDdl {
    Create {
        schema: String,
        name: String,
        persistence: Persistence,
        if_not_exists: bool,
        spec: SeqSpec,
    },
    Alter {
        schema: String,
        name: String,
        missing_ok: bool,
        spec: SeqSpec,
    },
    Drop {
        names: Vec<(String, String)>,
        if_exists: bool,
        cascade: bool,
    },
    /// TRUNCATE ... RESTART IDENTITY: the truncate, then the owned sequences restarted.
    TruncateRestart(Box<Ddl>),
    /// A statement whose options are wrong: PostgreSQL reads them when it runs the statement
    /// (after Parse and Bind succeeded), so the error waits for execution here too.
    Invalid(PgError, &'static str),
}

impl SeqDdl {
    pub fn tag(&self) -> &'static str {
        match self {
            SeqDdl::Create { .. } => "CREATE SEQUENCE",
            SeqDdl::Alter { .. } => "ALTER SEQUENCE",
            SeqDdl::Drop { .. } => "DROP SEQUENCE",
            SeqDdl::TruncateRestart(d) => d.tag(),
            SeqDdl::Invalid(_, tag) => tag,
        }
    }
}

fn conflicting(d: &protobuf::DefElem) -> PgError {
    PgError::new(code::SYNTAX_ERROR, "conflicting or redundant options")
        .at((d.location >= 0).then(|| d.location as u32 + 1))
}

/// defGetInt64: an integer option's value.
fn int_arg(d: &protobuf::DefElem) -> PgResult<i64> {
    match d.arg.as_ref().and_then(|a| a.node.as_ref()) {
        Some(N::Integer(i)) => Ok(i.ival as i64),
        Some(N::Float(f)) => f.fval.parse::<i64>().map_err(|_| {
            PgError::new(
                code::INVALID_TEXT_REPRESENTATION,
                format!("invalid input syntax for type bigint: \"{}\"", f.fval),
            )
        }),
        _ => Err(PgError::new(
            code::SYNTAX_ERROR,
            format!("{} requires a numeric value", d.defname),
        )),
    }
}

/// Reads the DefElem list of CREATE / ALTER SEQUENCE or of an identity column.
pub fn parse_options(options: &[protobuf::Node], for_identity: bool) -> PgResult<SeqSpec> {
    let mut spec = SeqSpec::default();
    let mut params = Vec::new();
    let fmt = FormatCtx::default();
    for o in options {
        let Some(N::DefElem(d)) = o.node.as_ref() else {
            continue;
        };
        let arg = d.arg.as_ref().and_then(|a| a.node.as_ref());
        match d.defname.as_str() {
            "as" => {
                if spec.as_type.is_some() {
                    return Err(conflicting(d));
                }
                let Some(N::TypeName(tn)) = arg else {
                    return Err(PgError::syntax("AS requires a type name"));
                };
                let (ty, _) = Planner::new(&mut params, &fmt).resolve_type_name(tn)?;
                if !matches!(ty, Type::INT2 | Type::INT4 | Type::INT8) {
                    return Err(PgError::new(
                        code::INVALID_PARAMETER_VALUE,
                        if for_identity {
                            "identity column type must be smallint, integer, or bigint"
                        } else {
                            "sequence type must be smallint, integer, or bigint"
                        },
                    ));
                }
                spec.as_type = Some(ty);
            }
            "increment" => {
                if spec.increment.is_some() {
                    return Err(conflicting(d));
                }
                spec.increment = Some(int_arg(d)?);
            }
            "start" => {
                if spec.start.is_some() {
                    return Err(conflicting(d));
                }
                spec.start = Some(int_arg(d)?);
            }
            "restart" => {
                if spec.restart.is_some() {
                    return Err(conflicting(d));
                }
                spec.restart = Some(if arg.is_some() {
                    Some(int_arg(d)?)
                } else {
                    None
                });
            }
            "maxvalue" | "minvalue" => {
                let v = if arg.is_some() {
                    Some(int_arg(d)?)
                } else {
                    None
                };
                let slot = if d.defname == "maxvalue" {
                    &mut spec.max
                } else {
                    &mut spec.min
                };
                if slot.is_some() {
                    return Err(conflicting(d));
                }
                *slot = Some(v);
            }
            "cache" => {
                if spec.cache.is_some() {
                    return Err(conflicting(d));
                }
                spec.cache = Some(int_arg(d)?);
            }
            "cycle" => {
                if spec.cycle.is_some() {
                    return Err(conflicting(d));
                }
                spec.cycle = Some(match arg {
                    Some(N::Boolean(b)) => b.boolval,
                    Some(N::Integer(i)) => i.ival != 0,
                    _ => true,
                });
            }
            "owned_by" => {
                if spec.owned_by.is_some() {
                    return Err(conflicting(d));
                }
                let names = match arg {
                    Some(N::List(l)) => l
                        .items
                        .iter()
                        .filter_map(str_of)
                        .map(String::from)
                        .collect(),
                    _ => Vec::new(),
                };
                spec.owned_by = Some(names);
            }
            "sequence_name" if for_identity => {
                let names: Vec<String> = match arg {
                    Some(N::List(l)) => l
                        .items
                        .iter()
                        .filter_map(str_of)
                        .map(String::from)
                        .collect(),
                    _ => Vec::new(),
                };
                spec.sequence_name = match names.as_slice() {
                    [n] => Some((String::new(), n.clone())),
                    [s, n] | [_, s, n] => Some((s.clone(), n.clone())),
                    _ => None,
                };
            }
            "sequence_name" => {
                return Err(PgError::new(
                    code::SYNTAX_ERROR,
                    "invalid sequence option SEQUENCE NAME",
                )
                .at((d.location >= 0).then(|| d.location as u32 + 1)))
            }
            other => {
                return Err(PgError::new(
                    code::SYNTAX_ERROR,
                    format!("option \"{other}\" not recognized"),
                ))
            }
        }
    }
    Ok(spec)
}

fn type_bounds(t: Type) -> (i64, i64) {
    match t {
        Type::INT2 => (i16::MIN as i64, i16::MAX as i64),
        Type::INT4 => (i32::MIN as i64, i32::MAX as i64),
        _ => (i64::MIN, i64::MAX),
    }
}

fn type_name(t: Type) -> &'static str {
    match t {
        Type::INT2 => "smallint",
        Type::INT4 => "integer",
        _ => "bigint",
    }
}

fn invalid(msg: String) -> PgError {
    PgError::new(code::INVALID_PARAMETER_VALUE, msg)
}

/// PostgreSQL's init_params: the options and counter that `spec` makes, from scratch (`old`
/// None) or from a sequence's current ones. The bool says whether the counter restarts.
pub fn init_params(
    spec: &SeqSpec,
    old: Option<(SeqOptions, SeqState)>,
) -> PgResult<(SeqOptions, SeqState, bool)> {
    let is_init = old.is_none();
    let (mut o, mut st) = old.unwrap_or((
        SeqOptions {
            type_oid: Type::INT8.0,
            start: 1,
            increment: 1,
            min: 1,
            max: i64::MAX,
            cache: 1,
            cycle: false,
        },
        SeqState {
            last_value: 1,
            log_cnt: 0,
            is_called: false,
        },
    ));
    let changes = spec.as_type.is_some()
        || spec.increment.is_some()
        || spec.start.is_some()
        || spec.restart.is_some()
        || spec.max.is_some()
        || spec.min.is_some()
        || spec.cache.is_some()
        || spec.cycle.is_some();
    if is_init || changes {
        st.log_cnt = 0;
    }
    let (mut reset_max, mut reset_min) = (false, false);
    if let Some(t) = spec.as_type {
        if !is_init {
            let (lo, hi) = type_bounds(Type(o.type_oid));
            reset_max = o.max == hi;
            reset_min = o.min == lo;
        }
        o.type_oid = t.0;
    }
    let ty = Type(o.type_oid);
    let (lo, hi) = type_bounds(ty);
    if let Some(i) = spec.increment {
        if i == 0 {
            return Err(invalid("INCREMENT must not be zero".into()));
        }
        o.increment = i;
    }
    if let Some(c) = spec.cycle {
        o.cycle = c;
    }
    match spec.max {
        Some(Some(v)) => o.max = v,
        _ if is_init || spec.max.is_some() || reset_max => {
            o.max = if o.increment > 0 || reset_max { hi } else { -1 };
        }
        _ => {}
    }
    if o.max < lo || o.max > hi {
        return Err(invalid(format!(
            "MAXVALUE ({}) is out of range for sequence data type {}",
            o.max,
            type_name(ty)
        )));
    }
    match spec.min {
        Some(Some(v)) => o.min = v,
        _ if is_init || spec.min.is_some() || reset_min => {
            o.min = if o.increment < 0 || reset_min { lo } else { 1 };
        }
        _ => {}
    }
    if o.min < lo || o.min > hi {
        return Err(invalid(format!(
            "MINVALUE ({}) is out of range for sequence data type {}",
            o.min,
            type_name(ty)
        )));
    }
    if o.min >= o.max {
        return Err(invalid(format!(
            "MINVALUE ({}) must be less than MAXVALUE ({})",
            o.min, o.max
        )));
    }
    match spec.start {
        Some(v) => o.start = v,
        None if is_init => o.start = if o.increment > 0 { o.min } else { o.max },
        None => {}
    }
    if o.start < o.min {
        return Err(invalid(format!(
            "START value ({}) cannot be less than MINVALUE ({})",
            o.start, o.min
        )));
    }
    if o.start > o.max {
        return Err(invalid(format!(
            "START value ({}) cannot be greater than MAXVALUE ({})",
            o.start, o.max
        )));
    }
    let restart = spec.restart.is_some() || is_init;
    if let Some(r) = spec.restart {
        st.last_value = r.unwrap_or(o.start);
        st.is_called = false;
        st.log_cnt = 0;
    } else if is_init {
        st.last_value = o.start;
        st.is_called = false;
    }
    if st.last_value < o.min {
        return Err(invalid(format!(
            "RESTART value ({}) cannot be less than MINVALUE ({})",
            st.last_value, o.min
        )));
    }
    if st.last_value > o.max {
        return Err(invalid(format!(
            "RESTART value ({}) cannot be greater than MAXVALUE ({})",
            st.last_value, o.max
        )));
    }
    if let Some(c) = spec.cache {
        if c <= 0 {
            return Err(invalid(format!("CACHE ({c}) must be greater than zero")));
        }
        o.cache = c;
    }
    Ok((o, st, restart))
}

fn rel_name(rv: &protobuf::RangeVar) -> (String, String) {
    (rv.schemaname.clone(), rv.relname.clone())
}

/// Decides what a sequence statement is; None for other statements.
pub fn analyze(node: &N) -> Option<PgResult<Ddl>> {
    let seq = |s: PgResult<SeqDdl>| {
        let tag = match node {
            N::CreateSeqStmt(_) => "CREATE SEQUENCE",
            _ => "ALTER SEQUENCE",
        };
        Ok(Ddl::Sequence(Box::new(
            s.unwrap_or_else(|e| SeqDdl::Invalid(e, tag)),
        )))
    };
    Some(match node {
        N::CreateSeqStmt(c) => seq((|| {
            let rv = c
                .sequence
                .as_ref()
                .ok_or_else(|| PgError::syntax("CREATE SEQUENCE without a name"))?;
            let persistence = match rv.relpersistence.as_str() {
                "t" => Persistence::Temporary,
                "u" => {
                    return Err(PgError::feature_not_supported(
                        "unlogged sequences are not supported yet",
                    ))
                }
                _ => Persistence::Permanent,
            };
            Ok(SeqDdl::Create {
                schema: rv.schemaname.clone(),
                name: rv.relname.clone(),
                persistence,
                if_not_exists: c.if_not_exists,
                spec: parse_options(&c.options, false)?,
            })
        })()),
        N::AlterSeqStmt(a) => seq((|| {
            let (schema, name) = a.sequence.as_ref().map(rel_name).unwrap_or_default();
            Ok(SeqDdl::Alter {
                schema,
                name,
                missing_ok: a.missing_ok,
                spec: parse_options(&a.options, a.for_identity)?,
            })
        })()),
        N::DropStmt(d) if d.remove_type == protobuf::ObjectType::ObjectSequence as i32 => {
            let names = d
                .objects
                .iter()
                .filter_map(|o| match o.node.as_ref()? {
                    N::List(l) => {
                        let parts: Vec<String> = l
                            .items
                            .iter()
                            .filter_map(str_of)
                            .map(String::from)
                            .collect();
                        match parts.as_slice() {
                            [t] => Some((String::new(), t.clone())),
                            [s, t] | [_, s, t] => Some((s.clone(), t.clone())),
                            _ => None,
                        }
                    }
                    _ => None,
                })
                .collect();
            seq(Ok(SeqDdl::Drop {
                names,
                if_exists: d.missing_ok,
                cascade: d.behavior == protobuf::DropBehavior::DropCascade as i32,
            }))
        }
        _ => return None,
    })
}

/// The serial pseudo-types: the integer type a serial column has.
pub fn serial_type(name: &str) -> Option<Type> {
    Some(match name {
        "serial" | "serial4" => Type::INT4,
        "bigserial" | "serial8" => Type::INT8,
        "smallserial" | "serial2" => Type::INT2,
        _ => return None,
    })
}

/// The three columns of a sequence relation.
fn sequence_columns() -> Vec<ColumnDef> {
    [
        ("last_value", Type::INT8),
        ("log_cnt", Type::INT8),
        ("is_called", Type::BOOL),
    ]
    .into_iter()
    .map(|(n, t)| ColumnDef {
        name: n.to_string(),
        type_oid: t.0,
        typmod: -1,
        not_null: true,
        default: None,
        identity: None,
        generated: false,
        dropped: false,
        domain: None,
    })
    .collect()
}

/// Writes a new sequence relation (`oid` None: a new one).
fn create_relation(
    cx: &mut dyn SessionCtx,
    schema: &str,
    name: &str,
    persistence: Persistence,
    seq: Sequence,
) -> PgResult<Arc<Rel>> {
    let (cell, cid) = cx.writer("CREATE SEQUENCE")?;
    let snap = cx.catalog_snapshot()?;
    let rel = NewRelation {
        name: qual(cx, schema, name),
        kind: RelKind::Sequence,
        persistence,
        columns: sequence_columns(),
        indexes: vec![],
        constraints: vec![],
        owner: cx.role_oid(),
        acl: None,
        column_acls: vec![],
        triggers: vec![],
        rules: vec![],
        table: None,
        matview: None,
        partition: None,
        data: Arc::new(TableData::of_sequence(seq)),
    };
    cx.instance()
        .catalog
        .create(None, rel, &snap, &cell, cid)
        .map_err(|e| catalog_error(e, name))
}

/// Resolves OWNED BY `table.column` (None for OWNED BY NONE) for a sequence in `schema`.
fn owned_by(cx: &mut dyn SessionCtx, names: &[String], schema: &str) -> PgResult<Option<OwnedBy>> {
    let (tschema, table, column) = match names {
        [n] if n == "none" => return Ok(None),
        [_] => {
            return Err(PgError::new(code::SYNTAX_ERROR, "invalid OWNED BY option")
                .with_hint("Specify OWNED BY table.column or OWNED BY NONE."))
        }
        [t, c] => (String::new(), t.clone(), c.clone()),
        [s, t, c] | [_, s, t, c] => (s.clone(), t.clone(), c.clone()),
        _ => return Err(PgError::syntax("invalid OWNED BY option")),
    };
    let Some(t) = find(cx, &tschema, &table)? else {
        return Err(PgError::new(
            code::UNDEFINED_TABLE,
            format!("relation \"{table}\" does not exist"),
        ));
    };
    if t.kind != RelKind::Table {
        return Err(PgError::new(
            code::WRONG_OBJECT_TYPE,
            format!("sequence cannot be owned by relation \"{table}\""),
        )
        .with_detail(format!(
            "This operation is not supported for {}.",
            match t.kind {
                RelKind::Index => "indexes",
                RelKind::Sequence => "sequences",
                _ => "this kind of relation",
            }
        )));
    }
    if t.name.schema != schema {
        return Err(PgError::new(
            code::OBJECT_NOT_IN_PREREQUISITE_STATE,
            "sequence must be in same schema as table it is linked to",
        ));
    }
    let Some((pos, _)) = t.live_columns().find(|(_, c)| c.name == column) else {
        return Err(PgError::new(
            code::UNDEFINED_COLUMN,
            format!("column \"{column}\" of relation \"{table}\" does not exist"),
        ));
    };
    Ok(Some(OwnedBy {
        table: t.oid,
        attnum: pos as i16 + 1,
        identity: false,
    }))
}

/// Runs a sequence statement in the session's transaction.
pub fn execute(d: &SeqDdl, cx: &mut dyn SessionCtx) -> PgResult<()> {
    match d {
        SeqDdl::Invalid(e, _) => return Err(e.clone()),
        SeqDdl::Create {
            schema,
            name,
            persistence,
            if_not_exists,
            spec,
        } => {
            // CREATE TEMP SEQUENCE (or one in pg_temp) goes to the session's temporary schema.
            let temp = *persistence == Persistence::Temporary;
            let (schema, temp) = super::creation_schema_for(cx, schema, -1, temp)?;
            let persistence = &if temp {
                Persistence::Temporary
            } else {
                *persistence
            };
            if find(cx, &schema, name)?.is_some() {
                if *if_not_exists {
                    cx.notice(notice(
                        format!("relation \"{name}\" already exists, skipping"),
                        code::DUPLICATE_TABLE,
                    ));
                    return Ok(());
                }
                return Err(super::already_exists(name));
            }
            let (options, state, _) = init_params(spec, None)?;
            let owner = match &spec.owned_by {
                Some(names) => owned_by(cx, names, &schema)?,
                None => None,
            };
            create_relation(
                cx,
                &schema,
                name,
                *persistence,
                Sequence::new(options, owner, state),
            )?;
        }
        SeqDdl::Alter {
            schema,
            name,
            missing_ok,
            spec,
        } => {
            let rel = match find(cx, schema, name)? {
                Some(r) => r,
                None if *missing_ok => {
                    cx.notice(notice(
                        format!("relation \"{name}\" does not exist, skipping"),
                        code::SUCCESSFUL_COMPLETION,
                    ));
                    return Ok(());
                }
                None => {
                    return Err(PgError::new(
                        code::UNDEFINED_TABLE,
                        format!("relation \"{name}\" does not exist"),
                    ))
                }
            };
            let Some(old) = rel
                .data
                .sequence
                .as_ref()
                .filter(|_| rel.kind == RelKind::Sequence)
            else {
                return Err(PgError::new(
                    code::WRONG_OBJECT_TYPE,
                    format!("\"{name}\" is not a sequence"),
                ));
            };
            super::grant::check_owner(cx, &rel)?;
            let (options, state, restart) = init_params(spec, Some((old.options, old.state())))?;
            let mut owner = old.owned_by;
            if let Some(names) = &spec.owned_by {
                if let Some(o) = old.owned_by.filter(|o| o.identity) {
                    let table = table_name_of(cx, o.table)?;
                    return Err(PgError::feature_not_supported(
                        "cannot change ownership of identity sequence",
                    )
                    .with_detail(format!(
                        "Sequence \"{name}\" is linked to table \"{table}\"."
                    )));
                }
                owner = owned_by(cx, names, &rel.name.schema)?;
            }
            let seq = if restart {
                Sequence::new(options, owner, state)
            } else {
                old.altered(options, owner, state.log_cnt)
            };
            replace_with_data(cx, &rel, Arc::new(TableData::of_sequence(seq)), |_| {})?;
        }
        SeqDdl::Drop {
            names,
            if_exists,
            cascade,
        } => {
            let mut found = Vec::new();
            for (schema, name) in names {
                match find(cx, schema, name)? {
                    Some(r) if r.kind == RelKind::Sequence => {
                        super::grant::check_owner(cx, &r)?;
                        found.push(r)
                    }
                    Some(_) => {
                        return Err(PgError::new(
                            code::WRONG_OBJECT_TYPE,
                            format!("\"{name}\" is not a sequence"),
                        )
                        .with_hint("Use DROP TABLE to remove a table."))
                    }
                    None if *if_exists => cx.notice(notice(
                        format!("sequence \"{name}\" does not exist, skipping"),
                        code::SUCCESSFUL_COMPLETION,
                    )),
                    None => {
                        return Err(PgError::new(
                            code::UNDEFINED_TABLE,
                            format!("sequence \"{name}\" does not exist"),
                        ))
                    }
                }
            }
            for r in found {
                drop_sequence(cx, &r, *cascade)?;
            }
        }
        SeqDdl::TruncateRestart(inner) => {
            super::execute(inner, cx)?;
            let Ddl::Truncate(tables, _) = &**inner else {
                return Ok(());
            };
            for (schema, name) in tables {
                let Some(t) = find(cx, schema, name)? else {
                    continue;
                };
                for s in crate::sql::sequence::owned_sequences(cx, &t)? {
                    restart(cx, &s)?;
                }
            }
        }
    }
    Ok(())
}

/// A table's name by OID (for messages).
fn table_name_of(cx: &mut dyn SessionCtx, oid: Oid) -> PgResult<String> {
    let snap = cx.catalog_snapshot()?;
    Ok(cx
        .instance()
        .catalog
        .visible(&snap)
        .into_iter()
        .find(|r| r.oid == oid)
        .map(|r| r.name.name.clone())
        .unwrap_or_default())
}

/// The columns (table, column position) whose default calls nextval on `seq`.
fn dependent_defaults(cx: &mut dyn SessionCtx, seq: &Rel) -> PgResult<Vec<(Arc<Rel>, usize)>> {
    let text = nextval_default(&seq.name.schema, &seq.name.name);
    let snap = cx.catalog_snapshot()?;
    let mut out = Vec::new();
    for r in cx.instance().catalog.visible(&snap) {
        if r.kind != RelKind::Table || r.name.database != seq.name.database {
            continue;
        }
        for (i, c) in r.live_columns() {
            if c.identity.is_none() && c.default.as_deref() == Some(text.as_str()) {
                out.push((r.clone(), i));
            }
        }
    }
    Ok(out)
}

/// DROP SEQUENCE of one sequence: refused while an identity column owns it or (without
/// CASCADE) a column default uses it; CASCADE removes such defaults.
fn drop_sequence(cx: &mut dyn SessionCtx, seq: &Arc<Rel>, cascade: bool) -> PgResult<()> {
    let name = seq.name.name.clone();
    if let Some(o) = seq
        .data
        .sequence
        .as_ref()
        .and_then(|s| s.owned_by)
        .filter(|o| o.identity)
    {
        let snap = cx.catalog_snapshot()?;
        let table = cx
            .instance()
            .catalog
            .visible(&snap)
            .into_iter()
            .find(|r| r.oid == o.table);
        if let Some(t) = table {
            let col = t
                .columns
                .get(o.attnum as usize - 1)
                .map(|c| c.name.clone())
                .unwrap_or_default();
            return Err(PgError::new(
                code::DEPENDENT_OBJECTS_STILL_EXIST,
                format!(
                    "cannot drop sequence {name} because column {col} of table {} requires it",
                    t.name.name
                ),
            )
            .with_hint(format!(
                "You can drop column {col} of table {} instead.",
                t.name.name
            )));
        }
    }
    let deps = dependent_defaults(cx, seq)?;
    if !deps.is_empty() {
        let lines: Vec<String> = deps
            .iter()
            .map(|(t, i)| {
                format!(
                    "default value for column {} of table {}",
                    t.columns[*i].name, t.name.name
                )
            })
            .collect();
        super::refuse_or_cascade(cx, &format!("sequence {name}"), &lines, cascade)?;
        for (t, i) in deps {
            // The newest version of the table (an earlier default of it may have gone already).
            let t = find(cx, &t.name.schema, &t.name.name)?.unwrap_or(t);
            super::replace(cx, &t, |n| n.columns[i].default = None)?;
        }
    }
    let (cell, cid) = cx.writer("DROP SEQUENCE")?;
    cx.instance()
        .catalog
        .end(seq, &cell, cid)
        .map_err(|e| catalog_error(e, &name))
}

/// Ends the sequences owned by the columns of a table being dropped.
pub fn drop_owned(cx: &mut dyn SessionCtx, table: &Rel) -> PgResult<()> {
    let owned = crate::sql::sequence::owned_sequences(cx, table)?;
    if owned.is_empty() {
        return Ok(());
    }
    let (cell, cid) = cx.writer("DROP TABLE")?;
    for s in owned {
        cx.instance()
            .catalog
            .end(&s, &cell, cid)
            .map_err(|e| catalog_error(e, &s.name.name))?;
    }
    Ok(())
}

/// RESTART of a sequence as a new storage (transactional, as PostgreSQL's ResetSequence).
fn restart(cx: &mut dyn SessionCtx, seq: &Arc<Rel>) -> PgResult<()> {
    let Some(old) = seq.data.sequence.as_ref() else {
        return Ok(());
    };
    let fresh = Sequence::new(
        old.options,
        old.owned_by,
        SeqState {
            last_value: old.options.start,
            log_cnt: 0,
            is_called: false,
        },
    );
    replace_with_data(cx, seq, Arc::new(TableData::of_sequence(fresh)), |_| {})?;
    Ok(())
}

/// Creates the sequences of a new table's serial and identity columns (the table's OID is
/// chosen by the caller, and so are the names of those without SEQUENCE NAME, one for each of
/// `seqs`: names.rs), and gives each column its nextval default.
#[allow(clippy::too_many_arguments)]
pub fn create_column_sequences(
    cx: &mut dyn SessionCtx,
    schema: &str,
    table: &str,
    table_oid: Oid,
    persistence: Persistence,
    seqs: &[ColumnSeq],
    names: &[Option<String>],
    columns: &mut [ColumnDef],
) -> PgResult<()> {
    for (cs, chosen) in seqs.iter().zip(names) {
        let col = &columns[cs.column];
        if let Some((c, at)) = cs.conflict {
            let what = match c {
                Conflict::BothDefaultAndIdentity => "both default and identity specified",
                Conflict::MultipleIdentity => "multiple identity specifications",
                Conflict::MultipleDefaults => "multiple default values specified",
            };
            return Err(PgError::new(
                code::SYNTAX_ERROR,
                format!("{what} for column \"{}\" of table \"{table}\"", col.name),
            )
            .at((at >= 0).then(|| at as u32 + 1)));
        }
        if !matches!(Type(col.type_oid), Type::INT2 | Type::INT4 | Type::INT8) {
            return Err(PgError::new(
                code::INVALID_PARAMETER_VALUE,
                "identity column type must be smallint, integer, or bigint",
            ));
        }
        let mut spec = cs.spec.clone();
        if spec.as_type.is_none() {
            spec.as_type = Some(Type(col.type_oid));
        }
        let (options, state, _) = init_params(&spec, None)?;
        let (sschema, name) = match &spec.sequence_name {
            Some((s, n)) => (creation_schema(cx, s, -1)?, n.clone()),
            None => match chosen {
                Some(n) => (schema.to_string(), n.clone()),
                None => (
                    schema.to_string(),
                    super::names::sequence(cx, schema, table, &col.name)?,
                ),
            },
        };
        if find(cx, &sschema, &name)?.is_some() {
            return Err(super::already_exists(&name));
        }
        let owner = OwnedBy {
            table: table_oid,
            attnum: cs.column as i16 + 1,
            identity: cs.identity,
        };
        create_relation(
            cx,
            &sschema,
            &name,
            persistence,
            Sequence::new(options, Some(owner), state),
        )?;
        let col = &mut columns[cs.column];
        col.default = Some(nextval_default(&sschema, &name));
        col.not_null = true;
    }
    Ok(())
}

/// GENERATED ALWAYS | BY DEFAULT AS IDENTITY [(options)] on a column of CREATE TABLE.
pub fn identity_column(
    col: &mut super::NewColumn,
    k: &protobuf::Constraint,
    position: usize,
    seqs: &mut Vec<ColumnSeq>,
) -> PgResult<()> {
    let spec = parse_options(&k.options, true)?;
    let earlier = seqs.iter().position(|s| s.column == position);
    let conflict = match earlier.map(|i| seqs[i].identity) {
        Some(true) => Some((Conflict::MultipleIdentity, k.location)),
        // serial: its default is the sequence's; no position, as in PostgreSQL.
        Some(false) => Some((Conflict::BothDefaultAndIdentity, -1)),
        None if col.default.is_some() => Some((Conflict::BothDefaultAndIdentity, k.location)),
        None => None,
    };
    if let Some(i) = earlier {
        if seqs[i].conflict.is_none() {
            seqs[i].conflict = conflict;
        }
        return Ok(());
    }
    col.identity = Some(if k.generated_when == "a" { 'a' } else { 'd' });
    col.not_null = true;
    seqs.push(ColumnSeq {
        column: position,
        identity: true,
        spec,
        conflict,
    });
    Ok(())
}

/// A serial column of CREATE TABLE (its sequence and default are made when the table is).
pub fn serial_column(position: usize, seqs: &mut Vec<ColumnSeq>) {
    seqs.push(ColumnSeq {
        column: position,
        identity: false,
        spec: SeqSpec::default(),
        conflict: None,
    });
}

/// A DEFAULT clause on a column of CREATE TABLE: a contradiction if the column is serial or
/// an identity.
pub fn default_given(seqs: &mut [ColumnSeq], position: usize, location: i32) {
    if let Some(s) = seqs.iter_mut().find(|s| s.column == position) {
        if s.conflict.is_none() {
            s.conflict = Some(if s.identity {
                (Conflict::BothDefaultAndIdentity, location)
            } else {
                (Conflict::MultipleDefaults, -1)
            });
        }
    }
}
