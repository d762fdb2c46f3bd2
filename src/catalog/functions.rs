//! User-defined functions and procedures (pg_proc), versioned like relations so that a CREATE
//! FUNCTION commits and rolls back with its transaction.
//!
//! # Design
//!
//! A function is known by its schema, name and input argument types (PostgreSQL's identity of
//! a pg_proc row: `proname`, `pronamespace`, `proargtypes`); overloads of one name share one
//! entry of the map, keyed by (database, schema, name), each overload a list of versions. A
//! version is stamped with the transaction cell and command that created it and, once
//! replaced (CREATE OR REPLACE, ALTER FUNCTION) or dropped, with the one that ended it, and a
//! lookup at a snapshot sees at most one version per signature, as a row read would. CREATE OR
//! REPLACE keeps the OID, as PostgreSQL updates the pg_proc row in place.
//!
//! What a function *is* ([`FunctionDef`]) is described in the terms of PostgreSQL's catalog:
//! type OIDs, argument modes as pg_proc's letters, the body as its source text. The SQL layer
//! plans bodies; this module only keeps them.
//!
//! # Invariants
//!
//! 1. For one signature in one schema of one database, at most one version is visible to any
//!    snapshot: `create` checks, under the name's map entry, that no version of the signature
//!    is visible or being created or ended by another transaction in progress.
//! 2. All versions of one function share its OID.
//! 3. `vacuum` removes a version only when its creator aborted or its end committed before the
//!    horizon, so no snapshot in use can still see it.
//!
//! # Lock order
//!
//! `create` and `end` hold the name's map entry, then (one at a time) a version's `ended`
//! mutex; readers take `ended` under scc's shared access. Nothing else is held meanwhile.
//!
//! # Bounds
//!
//! One live version per function, plus dead versions until the catalog's vacuum; a function
//! has at most [`MAX_ARGS`] arguments (PostgreSQL's FUNC_MAX_ARGS, 54023 beyond it, checked by
//! the SQL layer).

use std::sync::Arc;

use parking_lot::Mutex;
use serde::{Deserialize, Serialize};

use super::{acl, version_dead, version_visible, CatalogError, Oid};
use crate::txn::{Cid, Csn, Snapshot, Status, TxnCell};

/// PostgreSQL's FUNC_MAX_ARGS.
pub const MAX_ARGS: usize = 100;

/// One parameter (an element of pg_proc's proallargtypes / proargmodes / proargnames).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FuncArg {
    /// Empty when unnamed.
    pub name: String,
    pub type_oid: Oid,
    /// pg_proc.proargmodes: 'i' IN, 'o' OUT, 'b' INOUT, 'v' VARIADIC, 't' TABLE.
    pub mode: char,
    /// The default expression as SQL text (an element of proargdefaults).
    pub default: Option<String>,
}

impl FuncArg {
    /// Whether a call passes this parameter (IN, INOUT, VARIADIC).
    pub fn is_input(&self) -> bool {
        matches!(self.mode, 'i' | 'b' | 'v')
    }

    /// Whether the function returns this parameter (OUT, INOUT, TABLE).
    pub fn is_output(&self) -> bool {
        matches!(self.mode, 'o' | 'b' | 't')
    }
}

/// A function or procedure as pg_proc describes it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FunctionDef {
    pub database: String,
    pub schema: String,
    pub name: String,
    /// pg_proc.prokind: 'f' function, 'p' procedure.
    pub kind: char,
    pub args: Vec<FuncArg>,
    /// pg_proc.prorettype (void for a procedure without OUT parameters, record for several
    /// OUT parameters).
    pub returns: Oid,
    pub returns_set: bool,
    /// pg_language.lanname: sql or plpgsql.
    pub language: String,
    /// pg_proc.prosrc: the body as written.
    pub body: String,
    /// Whether the body was a BEGIN ATOMIC block or a RETURN statement (prosqlbody).
    pub sql_body: bool,
    /// pg_proc.provolatile: 'i', 's' or 'v'.
    pub volatility: char,
    pub strict: bool,
    pub security_definer: bool,
    pub leakproof: bool,
    /// pg_proc.proparallel: 's', 'r' or 'u'.
    pub parallel: char,
    pub cost: f32,
    pub rows: f32,
    /// pg_proc.proconfig: `name=value` settings applied while the function runs.
    pub config: Vec<String>,
    pub owner: Oid,
    /// pg_proc.proacl: None until the first GRANT / REVOKE (the defaults: EXECUTE to PUBLIC).
    pub acl: Option<acl::Acl>,
}

impl FunctionDef {
    /// The types of the parameters a call passes (pg_proc.proargtypes): the identity of the
    /// function within its schema, with its name.
    pub fn input_types(&self) -> Vec<Oid> {
        self.args
            .iter()
            .filter(|a| a.is_input())
            .map(|a| a.type_oid)
            .collect()
    }
}

/// One version of a function.
pub struct Function {
    pub oid: Oid,
    pub def: FunctionDef,
    created: Option<Arc<TxnCell>>,
    created_cid: Cid,
    ended: Mutex<Option<(Arc<TxnCell>, Cid)>>,
    /// For a polymorphic function's instance (its types resolved for one call): the
    /// function as declared.
    pub generic: Option<Arc<Function>>,
}

impl std::fmt::Debug for Function {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Function({} {}.{})",
            self.oid, self.def.schema, self.def.name
        )
    }
}

impl Function {
    /// Polymorphic function `f` with the actual types of one call in `def` (not in the
    /// catalog: the body is planned or compiled with them).
    pub fn instance(f: &Arc<Function>, def: FunctionDef) -> Function {
        Function {
            oid: f.oid,
            def,
            created: f.created.clone(),
            created_cid: f.created_cid,
            ended: Mutex::new(None),
            generic: Some(f.clone()),
        }
    }

    /// The function as declared (itself unless it is an instance of a polymorphic one).
    pub fn declared(&self) -> &Function {
        self.generic.as_deref().unwrap_or(self)
    }

    pub fn visible(&self, snap: &Snapshot) -> bool {
        version_visible(snap, self.created.as_deref(), self.created_cid, &self.ended)
    }
}

type Key = (String, String, String);

/// The functions of every database.
#[derive(Default)]
pub struct Functions {
    map: scc::HashMap<Key, Vec<Arc<Function>>>,
    /// Versions ever made: while 0, a call need not look here (a hint that only grows).
    made: std::sync::atomic::AtomicU64,
}

fn key_of(def: &FunctionDef) -> Key {
    (def.database.clone(), def.schema.clone(), def.name.clone())
}

/// Whether `c`, a cell of another top transaction, is still running for a writer (txn
/// invariant 7: a commit the watermark has not passed counts as running).
fn running(c: &TxnCell, cell: &TxnCell) -> bool {
    c.top() != cell.top() && c.settled_status() == Status::InProgress
}

impl Functions {
    /// Whether any function may exist (false only while none was ever made).
    pub fn may_exist(&self) -> bool {
        self.made.load(std::sync::atomic::Ordering::SeqCst) > 0
    }

    /// The overloads of `schema.name` in `database` that `snap` sees.
    pub fn named(
        &self,
        database: &str,
        schema: &str,
        name: &str,
        snap: &Snapshot,
    ) -> Vec<Arc<Function>> {
        let key = (database.to_string(), schema.to_string(), name.to_string());
        self.map
            .read_sync(&key, |_, v| {
                v.iter().filter(|f| f.visible(snap)).cloned().collect()
            })
            .unwrap_or_default()
    }

    /// Every function of `database` (all databases: None) that `snap` sees, by OID.
    pub fn visible(&self, database: Option<&str>, snap: &Snapshot) -> Vec<Arc<Function>> {
        let mut out = Vec::new();
        self.map.iter_sync(|k, v| {
            if database.is_none_or(|d| d == k.0) {
                out.extend(v.iter().filter(|f| f.visible(snap)).cloned());
            }
            true
        });
        out.sort_by_key(|f| f.oid);
        out
    }

    /// Function `oid` as `snap` sees it.
    pub fn by_oid(&self, oid: Oid, snap: &Snapshot) -> Option<Arc<Function>> {
        let mut found = None;
        self.map.iter_sync(|_, v| {
            found = v.iter().find(|f| f.oid == oid && f.visible(snap)).cloned();
            found.is_none()
        });
        found
    }

    /// Makes `def` a new version of function `oid` as a write of `cell` at `cid`. With
    /// `replace`, the visible version of the same signature (which must have `oid`) is ended;
    /// without, any visible one is `Exists`. Another transaction's creation or end in progress
    /// is `Busy` (invariant 1).
    pub fn create(
        &self,
        oid: Oid,
        def: FunctionDef,
        replace: bool,
        snap: &Snapshot,
        cell: &Arc<TxnCell>,
        cid: Cid,
    ) -> Result<(), CatalogError> {
        let inputs = def.input_types();
        let entry = self.map.entry_sync(key_of(&def));
        let mut versions = entry.or_default();
        let same: Vec<&Arc<Function>> = versions
            .get()
            .iter()
            .filter(|f| f.def.input_types() == inputs)
            .collect();
        for f in &same {
            if let Some(c) = &f.created {
                if running(c, cell) {
                    return Err(CatalogError::Busy(c.clone()));
                }
            }
            if let Some((c, _)) = &*f.ended.lock() {
                if running(c, cell) {
                    return Err(CatalogError::Busy(c.clone()));
                }
            }
        }
        let live: Vec<&Arc<Function>> = same.into_iter().filter(|f| f.visible(snap)).collect();
        if let Some(old) = live.first() {
            if !replace || old.oid != oid {
                return Err(CatalogError::Exists(None));
            }
            *old.ended.lock() = Some((cell.clone(), cid));
        }
        self.made.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        name_for_output(oid, &def);
        versions.get_mut().push(Arc::new(Function {
            oid,
            def,
            created: Some(cell.clone()),
            created_cid: cid,
            ended: Mutex::new(None),
            generic: None,
        }));
        Ok(())
    }

    /// Ends the version of function `oid` that `snap` sees (DROP FUNCTION) as a write of
    /// `cell` at `cid`. False when `snap` sees none.
    pub fn end(
        &self,
        oid: Oid,
        snap: &Snapshot,
        cell: &Arc<TxnCell>,
        cid: Cid,
    ) -> Result<bool, CatalogError> {
        let Some(f) = self.by_oid(oid, snap) else {
            return Ok(false);
        };
        let entry = self.map.entry_sync(key_of(&f.def));
        let versions = entry.or_default();
        for v in versions.get().iter().filter(|v| v.oid == oid) {
            if let Some((c, _)) = &*v.ended.lock() {
                if running(c, cell) {
                    return Err(CatalogError::Busy(c.clone()));
                }
            }
        }
        // `visible` takes `ended` itself: look first, then stamp.
        for v in versions.get().iter().filter(|v| v.oid == oid) {
            if v.visible(snap) {
                *v.ended.lock() = Some((cell.clone(), cid));
            }
        }
        Ok(true)
    }

    /// Puts back a function read from a checkpoint image or the log, as created by `cell`
    /// (the restore's transaction).
    pub fn restore(&self, oid: Oid, def: FunctionDef, cell: &Arc<TxnCell>) {
        let entry = self.map.entry_sync(key_of(&def));
        let mut versions = entry.or_default();
        self.made.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        name_for_output(oid, &def);
        versions.get_mut().push(Arc::new(Function {
            oid,
            def,
            created: Some(cell.clone()),
            created_cid: 0,
            ended: Mutex::new(None),
            generic: None,
        }));
    }

    /// Forgets every function of a dropped database.
    pub fn forget_database(&self, database: &str) {
        self.map.retain_sync(|k, _| k.0 != database);
    }

    /// Forgets every function (a restore replaces the catalog).
    pub fn clear(&self) {
        self.map.clear_sync();
    }

    /// Forgets versions nobody can see any more (invariant 3).
    pub fn vacuum(&self, horizon: Csn) {
        self.map.retain_sync(|_, versions| {
            versions.retain(|v| !version_dead(v.created.as_deref(), &v.ended, horizon));
            !versions.is_empty()
        });
    }
}

/// The names regproc output prints for the OIDs of user functions: (schema, name) as last
/// created or renamed. Value output has no catalog snapshot at hand (as for user types,
/// `types::type_info`), so the newest name made is printed, whatever its transaction's fate;
/// OIDs are never reused, so a name is never another function's. One entry per function
/// OID ever made, dropped with nothing (a few dozen bytes each).
fn output_names() -> &'static scc::HashMap<Oid, (String, String)> {
    static NAMES: std::sync::OnceLock<scc::HashMap<Oid, (String, String)>> =
        std::sync::OnceLock::new();
    NAMES.get_or_init(scc::HashMap::default)
}

fn name_for_output(oid: Oid, def: &FunctionDef) {
    let v = (def.schema.clone(), def.name.clone());
    output_names().upsert_sync(oid, v);
}

/// Schema and name of user function `oid` for regproc output (see `output_names`).
pub fn output_name(oid: Oid) -> Option<(String, String)> {
    if oid < super::FIRST_USER_OID {
        return None;
    }
    output_names().read_sync(&oid, |_, v| v.clone())
}

/// What CREATE AGGREGATE says of an aggregate (pg_aggregate's row). A user aggregate is a
/// function of kind 'a' whose `body` holds this, as JSON, so that it is checkpointed and
/// restored with the functions without a new image format.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AggSpec {
    /// The transition function's (qualified) name; it takes the state, then the arguments.
    pub sfunc: Vec<String>,
    /// The state's type (pg_aggregate.aggtranstype).
    pub stype: Oid,
    /// The initial state as text (None: NULL).
    pub initcond: Option<String>,
    pub finalfunc: Option<Vec<String>>,
    /// FINALFUNC_EXTRA: the final function also takes one NULL per argument.
    pub final_extra: bool,
    /// FINALFUNC_MODIFY: 'r' READ_ONLY (None: the default), 's' SHAREABLE, 'w' READ_WRITE
    /// (pg_aggregate.aggfinalmodify; the final function gets a copy of the state here anyway).
    #[serde(default)]
    pub final_modify: Option<char>,
    /// COMBINEFUNC, SERIALFUNC, DESERIALFUNC: for partial aggregation, which never happens
    /// here; kept for pg_aggregate.
    #[serde(default)]
    pub combinefunc: Option<Vec<String>>,
    #[serde(default)]
    pub serialfunc: Option<Vec<String>>,
    #[serde(default)]
    pub deserialfunc: Option<Vec<String>>,
    /// Moving-aggregate support (MSTYPE ...), checked as PostgreSQL checks it and kept for
    /// pg_aggregate. Never called: a window frame whose start moves is computed afresh.
    #[serde(default)]
    pub moving: Option<Box<MovingSpec>>,
}

/// An aggregate's moving-aggregate support functions (pg_aggregate.aggm*). The fields added
/// since the first aggregates were kept default to None, so older definitions still read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MovingSpec {
    pub msfunc: Vec<String>,
    pub minvfunc: Vec<String>,
    pub mstype: Oid,
    pub mfinalfunc: Option<Vec<String>>,
    pub mfinal_extra: bool,
    pub mfinal_modify: Option<char>,
    pub minitcond: Option<String>,
}

impl FunctionDef {
    /// The aggregate this function is (None unless prokind is 'a').
    pub fn aggregate(&self) -> Option<AggSpec> {
        if self.kind != 'a' {
            return None;
        }
        serde_json::from_str(&self.body).ok()
    }
}
