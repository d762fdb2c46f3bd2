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

use crate::catalog::acl;
use crate::catalog::sequence::{SeqError, SeqState, Sequence};
use crate::catalog::{Oid, QualName, RelKind};
use crate::error::{code, PgError, PgResult};
use crate::sql::context::SessionCtx;
use crate::sql::engine::{self, Rel};
use crate::sql::func::SessionFn;
use crate::sql::quote::parse_qualified;
use crate::sql::types::Value;

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
    /// Names already resolved (the regclass text of a serial default, looked up for every
    /// row), valid while the catalog's epoch and search_path stay as they were: any catalog
    /// change, including another transaction's DDL becoming visible, bumps the epoch.
    resolved: HashMap<String, Arc<Rel>>,
    resolved_at: (u64, Vec<String>),
}

/// Names kept in [`SessionSequences`]'s resolution cache (cleared when full).
const MAX_RESOLVED: usize = 64;

impl SessionSequences {
    /// DISCARD SEQUENCES / DISCARD ALL.
    pub fn discard(&mut self) {
        self.entries.clear();
        self.last_used = None;
        self.resolved.clear();
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

/// Whether a schema named in a sequence's regclass text exists (none named: yes). `pg_temp`
/// is the session's temporary schema, looked up through search_path.
pub fn schema_known(
    catalog: &engine::SqlCatalog,
    snap: &crate::txn::Snapshot,
    database: &str,
    schema: &str,
) -> bool {
    schema.is_empty()
        || matches!(schema, "pg_catalog" | "pg_temp")
        || engine::schema_exists(catalog, snap, database, schema)
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
    let snap = cx.catalog_snapshot()?;
    if !schema_known(&cx.instance().catalog, &snap, cx.database(), &schema) {
        return Err(PgError::new(
            code::INVALID_SCHEMA_NAME,
            format!("schema \"{schema}\" does not exist"),
        ));
    }
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
        v => {
            let text = v.as_str().unwrap_or_default();
            let epoch = cx.instance().catalog.epoch();
            let path = cx.search_path();
            if let Some(state) = cx.sequences() {
                if state.resolved_at.0 == epoch && state.resolved_at.1 == path {
                    if let Some(r) = state.resolved.get(text) {
                        return Ok(r.clone());
                    }
                } else {
                    state.resolved.clear();
                    state.resolved_at = (epoch, path);
                }
            }
            let rel = find_named(cx, text)?;
            if let Some(state) = cx.sequences() {
                if state.resolved.len() >= MAX_RESOLVED {
                    state.resolved.clear();
                }
                if state.resolved_at.0 == epoch {
                    state.resolved.insert(text.to_string(), rel.clone());
                }
            }
            Ok(rel)
        }
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
    // A read-only transaction may not take values (25006). PostgreSQL also gives the
    // transaction an id here, so that its commit waits for the sequence's WAL record.
    cx.current_xid("nextval")?;
    let wal = cx.instance().txns.wal().cloned();
    let state = cx.sequences().ok_or_else(no_session)?;
    let e = state.entry(rel, seq);
    if e.last != e.cached {
        e.last += e.increment;
        let v = e.last;
        state.last_used = Some(rel.oid);
        return Ok(v);
    }
    let (result, last) = seq
        .fetch_logged(|st| log_state(wal.as_ref(), rel, st))?
        .map_err(|err| seq_error(err, &rel.name.name))?;
    e.last = result;
    e.cached = last;
    e.increment = seq.options.increment;
    e.last_valid = true;
    state.last_used = Some(rel.oid);
    Ok(result)
}

/// Appends a sequence's counter state to the log (a permanent sequence on an instance with
/// one), called under the counter's lock.
fn log_state(wal: Option<&Arc<crate::wal::Wal>>, rel: &Rel, st: SeqState) -> PgResult<()> {
    if rel.persistence != crate::catalog::Persistence::Permanent {
        return Ok(());
    }
    let Some(wal) = wal else {
        return Ok(());
    };
    let p = crate::catalog::sequence::encode_log(rel.data.storage_of(rel.oid), &st);
    wal.insert_blocking(crate::catalog::sequence::LOG_KIND, 0, 0, &p)
        .map(|_| ())
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

/// PostgreSQL's checks of the sequence functions: nextval needs USAGE or UPDATE, currval
/// SELECT or USAGE, setval UPDATE (42501 `permission denied for sequence s`). The owner of a
/// sequence nobody granted anything on passes at once.
fn seq_priv(cx: &mut dyn SessionCtx, rel: &Rel, bits: u32) -> PgResult<()> {
    if rel.acl.is_none() && cx.role_oid() == rel.owner {
        return Ok(());
    }
    crate::sql::privs::check_any(cx, rel, bits)
}

/// Evaluates a sequence function (strict: NULL in, NULL out).
pub fn call(f: SessionFn, args: &[Value], cx: &mut dyn SessionCtx) -> PgResult<Value> {
    if args.iter().any(Value::is_null) {
        return Ok(Value::Null);
    }
    Ok(match f {
        SessionFn::Nextval => {
            let rel = rel_of_arg(cx, &args[0])?;
            seq_priv(cx, &rel, acl::USAGE | acl::UPDATE)?;
            Value::Int8(nextval_rel(cx, &rel)?)
        }
        SessionFn::Currval => {
            let rel = rel_of_arg(cx, &args[0])?;
            let seq = sequence_of(&rel)?;
            seq_priv(cx, &rel, acl::SELECT | acl::USAGE)?;
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
            seq_priv(cx, &rel, acl::UPDATE)?;
            let value = args[1].as_i64().unwrap_or(0);
            let is_called = args.get(2).and_then(Value::as_bool).unwrap_or(true);
            cx.current_xid("setval")?;
            let wal = cx.instance().txns.wal().cloned();
            seq.set_logged(value, is_called, |st| log_state(wal.as_ref(), &rel, st))?
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
                // The session's temporary schema is written `pg_temp`, as PostgreSQL does.
                Some(s) => Value::Text(format!(
                    "{}.{}",
                    if cx.own_temp_schema().as_deref() == Some(s.name.schema.as_str()) {
                        "pg_temp".into()
                    } else {
                        super::func::quote_ident(&s.name.schema)
                    },
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
    // A temporary schema comes first in its session's search path, the only one to use it.
    if schema.is_empty() || schema == "public" || super::engine::is_temp_schema(schema) {
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

/// The rows of pg_sequence (2224) and pg_sequences (12048) for the sequences among `rels`.
pub fn catalog_rows(
    oid: u32,
    rels: &[Arc<Rel>],
    owner_name: &dyn Fn(u32) -> String,
) -> Vec<Vec<Value>> {
    let Some(def) = crate::sql::catalog::relation_by_oid(oid) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for r in rels.iter().filter(|r| r.kind == RelKind::Sequence) {
        let Some(s) = r.data.sequence.as_ref() else {
            continue;
        };
        let o = &s.options;
        let st = s.state();
        let row = def
            .columns
            .iter()
            .map(|(c, _)| match *c {
                "seqrelid" => Value::Oid(r.oid),
                "seqtypid" | "data_type" => Value::Oid(o.type_oid),
                "seqstart" | "start_value" => Value::Int8(o.start),
                "seqincrement" | "increment_by" => Value::Int8(o.increment),
                "seqmax" | "max_value" => Value::Int8(o.max),
                "seqmin" | "min_value" => Value::Int8(o.min),
                "seqcache" | "cache_size" => Value::Int8(o.cache),
                "seqcycle" | "cycle" => Value::Bool(o.cycle),
                "schemaname" => Value::Text(r.name.schema.clone()),
                "sequencename" => Value::Text(r.name.name.clone()),
                "sequenceowner" => Value::Text(owner_name(r.owner)),
                // pg_sequence_last_value: NULL until the first nextval.
                "last_value" if st.is_called => Value::Int8(st.last_value),
                _ => Value::Null,
            })
            .collect();
        out.push(row);
    }
    out
}
