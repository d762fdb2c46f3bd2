//! The sequence functions (nextval, currval, setval, lastval, pg_get_serial_sequence), the
//! per-session state they keep, and the rows of `SELECT * FROM seq`, pg_sequence and
//! pg_sequences.
//!
//! # Design
//!
//! A sequence is a catalog relation of kind 'S' whose data carries a
//! [`catalog::sequence::Sequence`] (options and the shared, non-transactional counter). The
//! functions find it by name through the session's catalog snapshot, as PostgreSQL's regclass
//! input does, so a sequence created in the running transaction is usable at once and one
//! dropped by an uncommitted transaction still is.
//!
//! What is per session is PostgreSQL's SeqTable: for each sequence used, the value nextval last
//! returned (currval) and, with CACHE > 1, the values fetched ahead but not yet returned; and
//! which sequence nextval used last (lastval). None of it is transactional.
//!
//! # Bounds
//!
//! [`SessionSequences`] holds at most [`MAX_SESSION_SEQUENCES`] entries; past that the entries
//! of other sequences than the last used are forgotten (their currval then reads as undefined,
//! a difference from PostgreSQL only for a session that has used more sequences than that).

use std::collections::HashMap;
use std::sync::Arc;

use crate::catalog::sequence::{SeqError, Sequence};
use crate::catalog::{Oid, QualName, RelKind};
use crate::error::{code, PgError, PgResult};
use crate::sql::engine::{self, Rel};
use crate::sql::expr::{SessionCtx, SessionFn};
use crate::sql::types::{Type, Value};

/// Sequences remembered per session (see the module's Bounds).
pub const MAX_SESSION_SEQUENCES: usize = 65_536;

/// A session's state of one sequence (PostgreSQL's SeqTableData).
#[derive(Debug, Clone)]
struct Entry {
    /// Where the sequence was found (lastval finds it again by name).
    name: QualName,
    /// The storage the cached values came from.
    generation: u64,
    last_valid: bool,
    /// The value nextval last returned.
    last: i64,
    /// The last value fetched ahead; `last != cached` means values are cached.
    cached: i64,
    increment: i64,
}

/// What a session keeps of the sequences it used.
#[derive(Debug, Default)]
pub struct SessionSequences {
    entries: HashMap<Oid, Entry>,
    last_used: Option<Oid>,
}

impl SessionSequences {
    /// DISCARD SEQUENCES / DISCARD ALL.
    pub fn discard(&mut self) {
        self.entries.clear();
        self.last_used = None;
    }

    fn entry(&mut self, rel: &Rel, seq: &Sequence) -> &mut Entry {
        if self.entries.len() >= MAX_SESSION_SEQUENCES && !self.entries.contains_key(&rel.oid) {
            let keep = self.last_used;
            self.entries.retain(|o, _| Some(*o) == keep);
        }
        let e = self.entries.entry(rel.oid).or_insert_with(|| Entry {
            name: rel.name.clone(),
            generation: seq.generation,
            last_valid: false,
            last: 0,
            cached: 0,
            increment: seq.options.increment,
        });
        e.name = rel.name.clone();
        if e.generation != seq.generation {
            // The sequence was rewritten (ALTER SEQUENCE, RESTART): the values cached from the
            // old storage are not handed out; currval stays.
            e.generation = seq.generation;
            e.cached = e.last;
        }
        e
    }
}

/// Splits a relation name as regclass input does: dot-separated identifiers, unquoted ones
/// folded to lower case, `""` inside quotes standing for one quote.
pub fn parse_qualified(s: &str) -> PgResult<Vec<String>> {
    let bad = || PgError::new(code::INVALID_NAME, "invalid name syntax");
    let mut parts = Vec::new();
    let mut chars = s.trim().chars().peekable();
    loop {
        let mut part = String::new();
        while chars.peek().is_some_and(|c| c.is_whitespace()) {
            chars.next();
        }
        if chars.peek() == Some(&'"') {
            chars.next();
            loop {
                match chars.next() {
                    Some('"') if chars.peek() == Some(&'"') => {
                        chars.next();
                        part.push('"');
                    }
                    Some('"') => break,
                    Some(c) => part.push(c),
                    None => return Err(bad()),
                }
            }
            if part.is_empty() {
                return Err(bad());
            }
        } else {
            while let Some(&c) = chars.peek() {
                if c == '.' || c.is_whitespace() {
                    break;
                }
                part.extend(c.to_lowercase());
                chars.next();
            }
            if part.is_empty() {
                return Err(bad());
            }
        }
        // PostgreSQL truncates identifiers to NAMEDATALEN - 1 bytes.
        while part.len() > 63 {
            part.pop();
        }
        parts.push(part);
        while chars.peek().is_some_and(|c| c.is_whitespace()) {
            chars.next();
        }
        match chars.next() {
            None => break,
            Some('.') => continue,
            Some(_) => return Err(bad()),
        }
    }
    Ok(parts)
}

/// The relation a regclass-like text names, through search_path; 42P01 when there is none.
pub fn find_named(cx: &mut dyn SessionCtx, text: &str) -> PgResult<Arc<Rel>> {
    let parts = parse_qualified(text)?;
    let (schema, name) = match parts.as_slice() {
        [n] => (String::new(), n.clone()),
        [s, n] => (s.clone(), n.clone()),
        [d, s, n] => {
            if d != cx.database() {
                return Err(PgError::new(
                    code::FEATURE_NOT_SUPPORTED,
                    format!("cross-database references are not implemented: {text}"),
                ));
            }
            (s.clone(), n.clone())
        }
        _ => {
            return Err(PgError::new(
                code::SYNTAX_ERROR,
                format!("improper relation name (too many dotted names): {text}"),
            ))
        }
    };
    if !schema.is_empty() && !matches!(schema.as_str(), "public" | "pg_catalog") {
        return Err(PgError::new(
            code::INVALID_SCHEMA_NAME,
            format!("schema \"{schema}\" does not exist"),
        ));
    }
    let snap = cx.catalog_snapshot()?;
    let path = cx.search_path();
    engine::find_rel(
        &cx.instance().catalog,
        &snap,
        cx.database(),
        path.iter().map(String::as_str),
        &schema,
        &name,
    )
    .ok_or_else(|| {
        let full = if schema.is_empty() {
            name.clone()
        } else {
            format!("{schema}.{name}")
        };
        PgError::new(
            code::UNDEFINED_TABLE,
            format!("relation \"{full}\" does not exist"),
        )
    })
}

/// The relation a regclass argument refers to (held by name, or an OID).
fn rel_of_arg(cx: &mut dyn SessionCtx, v: &Value) -> PgResult<Arc<Rel>> {
    match v {
        Value::Oid(o) => {
            let snap = cx.catalog_snapshot()?;
            let db = cx.database().to_string();
            cx.instance()
                .catalog
                .visible(&snap)
                .into_iter()
                .find(|r| r.oid == *o && r.name.database == db)
                .ok_or_else(|| {
                    PgError::new(
                        code::UNDEFINED_TABLE,
                        format!("could not open relation with OID {o}"),
                    )
                })
        }
        v => find_named(cx, v.as_str().unwrap_or_default()),
    }
}

/// The relation as a sequence; 42809 for another kind.
fn sequence_of(rel: &Rel) -> PgResult<&Sequence> {
    match (&rel.kind, rel.data.sequence.as_ref()) {
        (RelKind::Sequence, Some(s)) => Ok(s),
        _ => Err(PgError::new(
            code::WRONG_OBJECT_TYPE,
            format!("\"{}\" is not a sequence", rel.name.name),
        )),
    }
}

fn no_session() -> PgError {
    PgError::feature_not_supported("sequences are not available here")
}

/// nextval on a sequence already found.
pub fn nextval_rel(cx: &mut dyn SessionCtx, rel: &Rel) -> PgResult<i64> {
    let seq = sequence_of(rel)?;
    let state = cx.sequences().ok_or_else(no_session)?;
    let e = state.entry(rel, seq);
    if e.last != e.cached {
        e.last += e.increment;
        let v = e.last;
        state.last_used = Some(rel.oid);
        return Ok(v);
    }
    let (result, last) = seq.fetch().map_err(|err| seq_error(err, &rel.name.name))?;
    e.last = result;
    e.cached = last;
    e.increment = seq.options.increment;
    e.last_valid = true;
    state.last_used = Some(rel.oid);
    Ok(result)
}

fn seq_error(e: SeqError, name: &str) -> PgError {
    match e {
        SeqError::ReachedMax(m) => PgError::new(
            code::SEQUENCE_GENERATOR_LIMIT_EXCEEDED,
            format!("nextval: reached maximum value of sequence \"{name}\" ({m})"),
        ),
        SeqError::ReachedMin(m) => PgError::new(
            code::SEQUENCE_GENERATOR_LIMIT_EXCEEDED,
            format!("nextval: reached minimum value of sequence \"{name}\" ({m})"),
        ),
        SeqError::OutOfBounds { value, min, max } => PgError::new(
            code::NUMERIC_VALUE_OUT_OF_RANGE,
            format!(
                "setval: value {value} is out of bounds for sequence \"{name}\" ({min}..{max})"
            ),
        ),
    }
}

fn not_defined(msg: String) -> PgError {
    PgError::new(code::OBJECT_NOT_IN_PREREQUISITE_STATE, msg)
}

/// Result types of the sequence functions.
pub fn result_type(f: SessionFn) -> Type {
    match f {
        SessionFn::SeqIsCalled => Type::BOOL,
        SessionFn::GetSerialSequence => Type::TEXT,
        _ => Type::INT8,
    }
}

/// Evaluates a sequence function (strict: NULL in, NULL out).
pub fn call(f: SessionFn, args: &[Value], cx: &mut dyn SessionCtx) -> PgResult<Value> {
    if args.iter().any(Value::is_null) {
        return Ok(Value::Null);
    }
    Ok(match f {
        SessionFn::Nextval => {
            let rel = rel_of_arg(cx, &args[0])?;
            Value::Int8(nextval_rel(cx, &rel)?)
        }
        SessionFn::Currval => {
            let rel = rel_of_arg(cx, &args[0])?;
            let seq = sequence_of(&rel)?;
            let state = cx.sequences().ok_or_else(no_session)?;
            let e = state.entry(&rel, seq);
            if !e.last_valid {
                return Err(not_defined(format!(
                    "currval of sequence \"{}\" is not yet defined in this session",
                    rel.name.name
                )));
            }
            Value::Int8(e.last)
        }
        SessionFn::Setval => {
            let rel = rel_of_arg(cx, &args[0])?;
            let seq = sequence_of(&rel)?;
            let value = args[1].as_i64().unwrap_or(0);
            let is_called = args.get(2).and_then(Value::as_bool).unwrap_or(true);
            seq.set(value, is_called)
                .map_err(|e| seq_error(e, &rel.name.name))?;
            let state = cx.sequences().ok_or_else(no_session)?;
            let e = state.entry(&rel, seq);
            if is_called {
                e.last = value;
                e.last_valid = true;
            }
            e.cached = e.last;
            Value::Int8(value)
        }
        SessionFn::Lastval => {
            let undefined = || not_defined("lastval is not yet defined in this session".into());
            let state = cx.sequences().ok_or_else(no_session)?;
            let Some(oid) = state.last_used else {
                return Err(undefined());
            };
            let Some(e) = state.entries.get(&oid).cloned() else {
                return Err(undefined());
            };
            // The sequence may have been dropped since.
            let snap = cx.catalog_snapshot()?;
            match cx.instance().catalog.lookup(&e.name, &snap) {
                Some(r) if r.oid == oid => Value::Int8(e.last),
                _ => return Err(undefined()),
            }
        }
        SessionFn::GetSerialSequence => {
            let table = find_named(cx, args[0].as_str().unwrap_or_default())?;
            let column = args[1].as_str().unwrap_or_default();
            let Some(pos) = table
                .live_columns()
                .find(|(_, c)| c.name == column)
                .map(|(i, _)| i)
            else {
                return Err(PgError::new(
                    code::UNDEFINED_COLUMN,
                    format!(
                        "column \"{column}\" of relation \"{}\" does not exist",
                        table.name.name
                    ),
                ));
            };
            match owned_sequence(cx, &table, pos as i16 + 1)? {
                Some(s) => Value::Text(format!(
                    "{}.{}",
                    super::func::quote_ident(&s.name.schema),
                    super::func::quote_ident(&s.name.name)
                )),
                None => Value::Null,
            }
        }
        SessionFn::SeqLastValue | SessionFn::SeqLogCnt | SessionFn::SeqIsCalled => {
            let rel = rel_of_arg(cx, &args[0])?;
            let st = sequence_of(&rel)?.state();
            match f {
                SessionFn::SeqLastValue => Value::Int8(st.last_value),
                SessionFn::SeqLogCnt => Value::Int8(st.log_cnt),
                _ => Value::Bool(st.is_called),
            }
        }
        _ => unreachable!("not a sequence function"),
    })
}

/// The sequence owned by column `attnum` of `table` (serial or identity), if any.
pub fn owned_sequence(
    cx: &mut dyn SessionCtx,
    table: &Rel,
    attnum: i16,
) -> PgResult<Option<Arc<Rel>>> {
    Ok(owned_sequences(cx, table)?.into_iter().find(|s| {
        s.data
            .sequence
            .as_ref()
            .and_then(|q| q.owned_by)
            .is_some_and(|o| o.attnum == attnum)
    }))
}

/// Every sequence owned by a column of `table`.
pub fn owned_sequences(cx: &mut dyn SessionCtx, table: &Rel) -> PgResult<Vec<Arc<Rel>>> {
    let snap = cx.catalog_snapshot()?;
    Ok(cx
        .instance()
        .catalog
        .visible(&snap)
        .into_iter()
        .filter(|r| {
            r.kind == RelKind::Sequence
                && r.name.database == table.name.database
                && r.data
                    .sequence
                    .as_ref()
                    .and_then(|s| s.owned_by)
                    .is_some_and(|o| o.table == table.oid)
        })
        .collect())
}

/// The text a relation is named by in a regclass argument (quoted where needed).
pub fn regclass_text(schema: &str, name: &str) -> String {
    let n = super::func::quote_ident(name);
    if schema.is_empty() || schema == "public" {
        n
    } else {
        format!("{}.{n}", super::func::quote_ident(schema))
    }
}

/// `nextval('name'::regclass)` as PostgreSQL deparses a serial column's default.
pub fn nextval_default(schema: &str, name: &str) -> String {
    let text = regclass_text(schema, name).replace('\'', "''");
    format!("nextval('{text}'::regclass)")
}

/// `SELECT * FROM seq`: one row read from the counter when the plan runs (not when it is
/// made: a prepared statement reads the current values).
pub fn scan_plan(rel: &Rel) -> crate::sql::plan::Plan {
    use crate::sql::expr::Expr;
    use crate::sql::plan::{Column, Node, Plan};
    let name = Value::Text(format!(
        "{}.{}",
        super::func::quote_ident(&rel.name.schema),
        super::func::quote_ident(&rel.name.name)
    ));
    let field = |f: SessionFn| Expr::Session {
        f,
        args: vec![Expr::Const(name.clone())],
        arg_types: vec![Type::REGCLASS],
    };
    let columns = [
        ("last_value", Type::INT8),
        ("log_cnt", Type::INT8),
        ("is_called", Type::BOOL),
    ]
    .iter()
    .zip(1i16..)
    .map(|((n, t), attnum)| Column {
        name: n.to_string(),
        ty: *t,
        typmod: -1,
        origin: Some((rel.oid, attnum)),
    })
    .collect();
    Plan {
        columns,
        node: Node::Values(vec![vec![
            field(SessionFn::SeqLastValue),
            field(SessionFn::SeqLogCnt),
            field(SessionFn::SeqIsCalled),
        ]]),
    }
}
