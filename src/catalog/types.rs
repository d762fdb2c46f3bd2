//! User-defined types (pg_type rows made by CREATE TYPE; enums only so far, with their pg_enum
//! labels), versioned like functions so that CREATE / ALTER / DROP TYPE commit and roll back
//! with their transaction.
//!
//! # Design
//!
//! A type is known by (database, schema, name); each entry of the map holds its versions, one
//! visible to any snapshot. ALTER TYPE (ADD VALUE, RENAME VALUE, RENAME TO, OWNER TO) ends the
//! visible version and makes a new one with the same OID, as PostgreSQL updates pg_type and
//! pg_enum rows in place.
//!
//! An enum *value* is held as the OID of its pg_enum row (`Value::Enum(label_oid)`), as
//! PostgreSQL stores it: a label's OID never changes, so stored rows stay valid across ADD
//! VALUE and RENAME VALUE. Values do not carry their type and the value functions (output,
//! comparison, casts) run without a catalog snapshot, so this module also keeps a
//! process-wide **label registry** ([`label`], [`enum_labels`], [`type_info`]): type OID -> its
//! versions, label OID -> type OID. The registry answers with the newest committed version
//! (the first one not aborted while none committed: a type created in a transaction in
//! progress is usable in it), so a change in progress is seen by no one until it commits and a
//! rolled-back ALTER TYPE leaves nothing behind. PostgreSQL differs in two corners: a
//! transaction sees its own RENAME VALUE at once, and a label its own ADD VALUE made is
//! refused as PostgreSQL refuses it (55P04) but also by other sessions while it is in
//! progress. Name resolution (which types exist, by snapshot) is exact.
//!
//! Sort order: each label has a float4 sort position (pg_enum.enumsortorder): the labels of
//! CREATE TYPE get 1, 2, 3 …, ADD VALUE at the end the last position + 1, ADD VALUE BEFORE /
//! AFTER the midpoint of its neighbours. When the midpoint is not representable, every label of
//! the type is renumbered 1, 2, 3 … in its current order (relative order never changes, so
//! stored rows and index trees, which compare by position, stay sorted).
//!
//! # Bounds
//!
//! A label is at most [`MAX_LABEL_LEN`] bytes (PostgreSQL's NAMEDATALEN - 1, 22023 beyond it);
//! an enum has at most [`MAX_LABELS`] labels (54000 beyond it; PostgreSQL has no practical
//! limit, this one keeps a version's label list — copied on each ALTER — small). One live
//! version per type plus dead ones until the catalog's vacuum; the registry keeps, per type,
//! the versions the map keeps plus always the newest one not aborted (values of a type dropped
//! in a committed transaction cannot be stored anywhere, but may still be in flight).
//! Registry entries are process-wide: two instances in one process (unit tests) must not make
//! enums with the same OIDs.

use std::sync::{Arc, OnceLock};

use parking_lot::Mutex;
use serde::{Deserialize, Serialize};

use super::{version_dead, version_visible, CatalogError, Oid};
use crate::txn::{Cid, Csn, Snapshot, Status, TxnCell};

/// PostgreSQL's NAMEDATALEN - 1: the longest label, in bytes.
pub const MAX_LABEL_LEN: usize = 63;
/// The most labels one enum holds here.
pub const MAX_LABELS: usize = 65_536;

/// One pg_enum row.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EnumLabel {
    pub oid: Oid,
    /// pg_enum.enumsortorder.
    pub sort: f32,
    pub name: String,
}

/// A user-defined type as pg_type (and pg_enum) describe it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TypeDef {
    pub database: String,
    pub schema: String,
    pub name: String,
    pub owner: Oid,
    /// The OID of its array type (`_name`).
    pub array_oid: Oid,
    /// The labels in sort order.
    pub labels: Vec<EnumLabel>,
    /// A domain (CREATE DOMAIN, typtype 'd'): its base type and constraints; None for an enum.
    pub domain: Option<DomainDef>,
    /// A composite type (CREATE TYPE ... AS (...), typtype 'c'): its attributes; None for an
    /// enum or a domain.
    pub composite: Option<CompositeDef>,
    /// A range type (CREATE TYPE ... AS RANGE, typtype 'r'): its pg_range row; None for the
    /// other kinds.
    pub range: Option<RangeDef>,
    /// A base type an extension makes (typtype 'b', hstore): the name of its built-in
    /// implementation (`sql::types::Type::builtin`); None for the other kinds.
    pub builtin: Option<String>,
    /// A base type made by CREATE TYPE name (INPUT = ..., OUTPUT = ...) (typtype 'b'), or a
    /// shell type (CREATE TYPE name;) until then; None for the other kinds.
    pub base: Option<BaseTypeDef>,
}

/// What pg_type says of a base type made by CREATE TYPE with I/O functions, or of a shell type
/// (typtype 'p', typisdefined false: a name for the I/O functions to mention before the full
/// CREATE TYPE). A full base type's values are those of the built-in type whose input function
/// its input function is (LANGUAGE internal 'int4in' makes an int4): [`TypeDef::domain`] names
/// that type and carries the DEFAULT, so the values are held, compared and printed as a
/// domain's over it are; only pg_type (this) tells the two apart.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BaseTypeDef {
    /// A shell: nothing below is defined yet.
    pub shell: bool,
    /// typsubscript, typinput, typoutput, typreceive, typsend, typmodin, typmodout,
    /// typanalyze: function OIDs (user functions or built-in ones), 0 for none.
    pub procs: [Oid; 8],
    /// typlen (INTERNALLENGTH; -1 VARIABLE).
    pub len: i16,
    pub by_value: bool,
    /// typalign and typstorage as pg_type's letters.
    pub align: char,
    pub storage: char,
    pub category: char,
    pub preferred: bool,
    pub delimiter: char,
    /// typelem (ELEMENT), 0 for none.
    pub element: Oid,
    /// typdefault: DEFAULT as written.
    pub default: Option<String>,
    /// Whether values take a collation (COLLATABLE).
    pub collatable: bool,
}

/// What a range type is over: pg_range's rngsubtype, rngmultitypid, rngsubdiff, and its
/// multirange's array type (PostgreSQL makes the multirange type with the range type).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RangeDef {
    pub subtype: Oid,
    pub multirange_oid: Oid,
    pub multirange_array_oid: Oid,
    pub multirange_name: String,
    /// SUBTYPE_DIFF: the function's name as given (regproc prints it), None without one.
    pub subtype_diff: Option<String>,
}

/// What a composite type is made of: the pg_class row (relkind 'c') that holds its attributes,
/// as PostgreSQL keeps them, and the attributes in order (dropped ones stay, as pg_attribute
/// keeps them, so that attribute numbers never change).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CompositeDef {
    /// pg_type.typrelid: the OID of its pg_class row.
    pub relid: Oid,
    pub attrs: Vec<CompositeAttr>,
}

/// One attribute of a composite type.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CompositeAttr {
    pub name: String,
    /// The declared type (a domain's OID for a domain attribute).
    pub type_oid: Oid,
    pub typmod: i32,
    /// COLLATE, when given.
    pub collation: Option<String>,
    pub dropped: bool,
}

impl CompositeDef {
    /// The attributes not dropped, with their positions among all.
    pub fn live(&self) -> impl Iterator<Item = (usize, &CompositeAttr)> {
        self.attrs.iter().enumerate().filter(|(_, a)| !a.dropped)
    }
}

/// The most attributes a composite type has (PostgreSQL's MaxHeapAttributeNumber).
pub const MAX_ATTRIBUTES: usize = 1600;

/// The deepest nesting of composite types inside composite types that input, output and
/// coercions follow (54001 beyond it).
pub const MAX_COMPOSITE_DEPTH: usize = 32;

/// What a domain adds to its base type (pg_type.typbasetype, typtypmod, typnotnull,
/// typdefault, typndims and its pg_constraint rows).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DomainDef {
    /// The type it is over: built-in, an enum, an array, or another domain.
    pub base: Oid,
    pub typmod: i32,
    /// typndims: the array dimensions written in the base type's name (`int[][]` is 2).
    pub ndims: i32,
    pub not_null: bool,
    /// The DEFAULT expression as SQL text (typdefault as pg_get_expr prints it).
    pub default: Option<String>,
    /// COLLATE, when given (typcollation names it; the base type's otherwise).
    pub collation: Option<String>,
    /// CHECK constraints in creation order, each checked in name order as PostgreSQL does.
    pub checks: Vec<DomainCheck>,
}

/// One CHECK constraint of a domain (a pg_constraint row with contypid set).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DomainCheck {
    pub oid: Oid,
    pub name: String,
    /// The expression as SQL text, `VALUE` standing for the value checked.
    pub expr: String,
    /// convalidated: false for ADD CONSTRAINT ... NOT VALID until VALIDATE CONSTRAINT.
    pub validated: bool,
}

/// The longest chain of domains over domains followed (a bound on every walk down it; a chain
/// cannot be cyclic, as a domain's base exists before it).
pub const MAX_DOMAIN_DEPTH: usize = 64;

impl TypeDef {
    /// Whether this is an enum (none of the other kinds).
    pub fn is_enum(&self) -> bool {
        self.domain.is_none()
            && self.composite.is_none()
            && self.range.is_none()
            && self.builtin.is_none()
            && self.base.is_none()
    }

    /// Whether this is a shell type (CREATE TYPE name;).
    pub fn is_shell(&self) -> bool {
        self.base.as_ref().is_some_and(|b| b.shell)
    }

    /// The array type's name: `_name`, cut to 63 bytes as PostgreSQL's makeArrayTypeName
    /// does (it would then add more underscores on a clash; not done here).
    pub fn array_name(&self) -> String {
        let mut n = format!("_{}", self.name);
        while n.len() > MAX_LABEL_LEN {
            n.pop();
        }
        n
    }

    /// The label named `name`.
    pub fn label(&self, name: &str) -> Option<&EnumLabel> {
        self.labels.iter().find(|l| l.name == name)
    }
}

/// One version of a type.
pub struct UserType {
    pub oid: Oid,
    pub def: TypeDef,
    created: Option<Arc<TxnCell>>,
    created_cid: Cid,
    ended: Mutex<Option<(Arc<TxnCell>, Cid)>>,
}

impl std::fmt::Debug for UserType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "UserType({} {}.{})",
            self.oid, self.def.schema, self.def.name
        )
    }
}

impl UserType {
    pub fn visible(&self, snap: &Snapshot) -> bool {
        version_visible(snap, self.created.as_deref(), self.created_cid, &self.ended)
    }

    fn created_status(&self) -> Status {
        self.created
            .as_ref()
            .map_or(Status::Committed(0), |c| c.status())
    }

    fn aborted(&self) -> bool {
        self.created
            .as_ref()
            .is_some_and(|c| c.status() == Status::Aborted)
    }
}

type Key = (String, String, String);

/// The user-defined types of every database.
#[derive(Default)]
pub struct Types {
    map: scc::HashMap<Key, Vec<Arc<UserType>>>,
}

fn key_of(def: &TypeDef) -> Key {
    (def.database.clone(), def.schema.clone(), def.name.clone())
}

/// Whether `c`, a cell of another top transaction, is still running for a writer.
fn running(c: &TxnCell, cell: &TxnCell) -> bool {
    c.top() != cell.top() && c.settled_status() == Status::InProgress
}

impl Types {
    /// Type `schema.name` of `database` as `snap` sees it.
    pub fn named(
        &self,
        database: &str,
        schema: &str,
        name: &str,
        snap: &Snapshot,
    ) -> Option<Arc<UserType>> {
        let key = (database.to_string(), schema.to_string(), name.to_string());
        self.map
            .read_sync(&key, |_, v| v.iter().find(|t| t.visible(snap)).cloned())
            .flatten()
    }

    /// Every type of `database` (all: None) that `snap` sees, by OID.
    pub fn visible(&self, database: Option<&str>, snap: &Snapshot) -> Vec<Arc<UserType>> {
        let mut out = Vec::new();
        self.map.iter_sync(|k, v| {
            if database.is_none_or(|d| d == k.0) {
                out.extend(v.iter().filter(|t| t.visible(snap)).cloned());
            }
            true
        });
        out.sort_by_key(|t| t.oid);
        out
    }

    /// Type `oid` (or the type whose array type is `oid`) as `snap` sees it.
    pub fn by_oid(&self, oid: Oid, snap: &Snapshot) -> Option<Arc<UserType>> {
        let mut found = None;
        self.map.iter_sync(|_, v| {
            found = v
                .iter()
                .find(|t| (t.oid == oid || t.def.array_oid == oid) && t.visible(snap))
                .cloned();
            found.is_none()
        });
        found
    }

    /// Makes `def` a version of type `oid` as a write of `cell` at `cid`: a new type (any
    /// visible version under the name is `Exists`), or with `replace` the next version of the
    /// visible type `oid` under this name. Another transaction's change in progress is `Busy`.
    pub fn create(
        &self,
        oid: Oid,
        def: TypeDef,
        replace: bool,
        snap: &Snapshot,
        cell: &Arc<TxnCell>,
        cid: Cid,
    ) -> Result<(), CatalogError> {
        let entry = self.map.entry_sync(key_of(&def));
        let mut versions = entry.or_default();
        for t in versions.get().iter() {
            if let Some(c) = &t.created {
                if running(c, cell) {
                    return Err(CatalogError::Busy(c.clone()));
                }
            }
            if let Some((c, _)) = &*t.ended.lock() {
                if running(c, cell) {
                    return Err(CatalogError::Busy(c.clone()));
                }
            }
        }
        let live: Vec<Arc<UserType>> = versions
            .get()
            .iter()
            .filter(|t| t.visible(snap))
            .cloned()
            .collect();
        if let Some(old) = live.first() {
            if !replace || old.oid != oid {
                return Err(CatalogError::Exists(None));
            }
            *old.ended.lock() = Some((cell.clone(), cid));
        }
        let t = Arc::new(UserType {
            oid,
            def,
            created: Some(cell.clone()),
            created_cid: cid,
            ended: Mutex::new(None),
        });
        register(&t);
        versions.get_mut().push(t);
        Ok(())
    }

    /// Ends the version of type `oid` that `snap` sees (DROP TYPE, or the old name of RENAME
    /// TO) as a write of `cell` at `cid`. False when `snap` sees none.
    pub fn end(
        &self,
        oid: Oid,
        snap: &Snapshot,
        cell: &Arc<TxnCell>,
        cid: Cid,
    ) -> Result<bool, CatalogError> {
        let Some(t) = self.by_oid(oid, snap) else {
            return Ok(false);
        };
        let entry = self.map.entry_sync(key_of(&t.def));
        let versions = entry.or_default();
        for v in versions.get().iter().filter(|v| v.oid == oid) {
            if let Some((c, _)) = &*v.ended.lock() {
                if running(c, cell) {
                    return Err(CatalogError::Busy(c.clone()));
                }
            }
        }
        for v in versions.get().iter().filter(|v| v.oid == oid) {
            if v.visible(snap) {
                *v.ended.lock() = Some((cell.clone(), cid));
            }
        }
        Ok(true)
    }

    /// Puts back a type read from a checkpoint image or the log, as created by `cell`.
    pub fn restore(&self, oid: Oid, def: TypeDef, cell: &Arc<TxnCell>) {
        let entry = self.map.entry_sync(key_of(&def));
        let mut versions = entry.or_default();
        let t = Arc::new(UserType {
            oid,
            def,
            created: Some(cell.clone()),
            created_cid: 0,
            ended: Mutex::new(None),
        });
        register(&t);
        versions.get_mut().push(t);
    }

    /// Forgets every type of a dropped database.
    pub fn forget_database(&self, database: &str) {
        self.map.retain_sync(|k, _| k.0 != database);
    }

    /// Forgets every type (a restore replaces the catalog).
    pub fn clear(&self) {
        self.map.clear_sync();
    }

    /// Forgets versions nobody can see any more, here and in the registry.
    pub fn vacuum(&self, horizon: Csn) {
        self.map.retain_sync(|_, versions| {
            versions.retain(|v| !version_dead(v.created.as_deref(), &v.ended, horizon));
            !versions.is_empty()
        });
        registry().types.retain_sync(|_, versions| {
            let newest = versions.iter().rposition(|v| !v.aborted());
            let mut i = 0;
            versions.retain(|v| {
                let keep =
                    Some(i) == newest || !version_dead(v.created.as_deref(), &v.ended, horizon);
                i += 1;
                keep
            });
            !versions.is_empty()
        });
    }
}

// ---------------------------------------------------------------------------------------------
// The label registry
// ---------------------------------------------------------------------------------------------

#[derive(Default)]
struct Registry {
    /// Type OID (and array type OID) -> the type's versions, oldest first.
    types: scc::HashMap<Oid, Vec<Arc<UserType>>>,
    /// Label OID -> type OID (a label belongs to one type for ever).
    labels: scc::HashMap<Oid, Oid>,
    /// Array type OID -> element type OID.
    arrays: scc::HashMap<Oid, Oid>,
    /// Table row type OID -> its fields, as last looked up by a planner.
    row_types: scc::HashMap<Oid, Arc<RowFields>>,
    /// Multirange type OID -> the range type it was made with.
    multiranges: scc::HashMap<Oid, Oid>,
}

fn registry() -> &'static Registry {
    static R: OnceLock<Registry> = OnceLock::new();
    R.get_or_init(Registry::default)
}

fn register(t: &Arc<UserType>) {
    let r = registry();
    for l in &t.def.labels {
        let _ = r.labels.insert_sync(l.oid, t.oid);
    }
    if t.def.array_oid != 0 {
        let _ = r.arrays.insert_sync(t.def.array_oid, t.oid);
    }
    if let Some(rg) = &t.def.range {
        let _ = r.multiranges.insert_sync(rg.multirange_oid, t.oid);
        let _ = r
            .arrays
            .insert_sync(rg.multirange_array_oid, rg.multirange_oid);
    }
    r.types
        .entry_sync(t.oid)
        .or_default()
        .get_mut()
        .push(t.clone());
}

/// The version of type `oid` value functions go by: the newest whose creator committed, or
/// while there is none (a type created by a transaction in progress), the oldest not
/// aborted. So a change in progress (ALTER TYPE) is not seen by other sessions, nor — a
/// small difference from PostgreSQL — by its own before it commits.
fn current(oid: Oid) -> Option<Arc<UserType>> {
    registry()
        .types
        .read_sync(&oid, |_, v| {
            let committed = v
                .iter()
                .rev()
                .find(|t| matches!(t.created_status(), Status::Committed(_)));
            // Without a committed version, the one CREATE TYPE made: labels its transaction
            // added since are refused until it commits, as PostgreSQL 15 refuses them.
            committed
                .or_else(|| v.iter().find(|t| !t.aborted()))
                .cloned()
        })
        .flatten()
}

/// A label of type `oid` that only a version in progress (ALTER TYPE ... ADD VALUE not yet
/// committed) has.
pub fn label_in_progress(oid: Oid, name: &str) -> bool {
    registry()
        .types
        .read_sync(&oid, |_, v| {
            v.iter()
                .any(|t| t.created_status() == Status::InProgress && t.def.label(name).is_some())
        })
        .unwrap_or(false)
}

/// Label `label` in the newest version of its type that has it (a label made by a version in
/// progress).
fn label_anywhere(ty: Oid, label: Oid) -> Option<EnumLabel> {
    registry()
        .types
        .read_sync(&ty, |_, v| {
            v.iter()
                .rev()
                .filter(|t| !t.aborted())
                .find_map(|t| t.def.labels.iter().find(|l| l.oid == label).cloned())
        })
        .flatten()
}

/// What value functions need of a type: its definition as last changed (see the module
/// comment). None for an OID no enum ever had.
pub fn type_info(oid: Oid) -> Option<Arc<UserType>> {
    if oid < super::FIRST_USER_OID {
        return None;
    }
    current(oid)
}

/// The element type of user array type `oid`.
pub fn array_elem(oid: Oid) -> Option<Oid> {
    if oid < super::FIRST_USER_OID {
        return None;
    }
    registry().arrays.read_sync(&oid, |_, e| *e)
}

/// The array type of user type `oid`.
pub fn array_of(oid: Oid) -> Option<Oid> {
    if oid < super::FIRST_USER_OID {
        return None;
    }
    if let Some(range) = registry().multiranges.read_sync(&oid, |_, r| *r) {
        return current(range).and_then(|t| t.def.range.as_ref().map(|r| r.multirange_array_oid));
    }
    match current(oid) {
        // A shell type has no array type yet.
        Some(t) => (t.def.array_oid != 0).then_some(t.def.array_oid),
        None => registry().row_types.contains_sync(&oid).then(|| oid - 1),
    }
}

/// Label `oid`: its type, sort position and name. None for a label never made.
pub fn label(oid: Oid) -> Option<(Oid, f32, String)> {
    let ty = registry().labels.read_sync(&oid, |_, t| *t)?;
    let t = current(ty)?;
    match t.def.labels.iter().find(|l| l.oid == oid) {
        Some(l) => Some((ty, l.sort, l.name.clone())),
        None => label_anywhere(ty, oid).map(|l| (ty, l.sort, l.name)),
    }
}

/// The sort position of label `oid` (NaN for an unknown label, which sorts last).
pub fn label_sort(oid: Oid) -> f32 {
    let sort = || {
        let ty = registry().labels.read_sync(&oid, |_, t| *t)?;
        let t = current(ty)?;
        match t.def.labels.iter().find(|l| l.oid == oid) {
            Some(l) => Some(l.sort),
            None => label_anywhere(ty, oid).map(|l| l.sort),
        }
    };
    sort().unwrap_or(f32::NAN)
}

/// The subtype of range type `oid` (None for any other type).
pub fn range_subtype(oid: Oid) -> Option<Oid> {
    type_info(oid).and_then(|t| t.def.range.as_ref().map(|r| r.subtype))
}

/// The range type of user multirange type `oid` (None for any other type).
pub fn multirange_range(oid: Oid) -> Option<Oid> {
    if oid < super::FIRST_USER_OID {
        return None;
    }
    let range = registry().multiranges.read_sync(&oid, |_, r| *r)?;
    current(range).and_then(|t| t.def.range.as_ref().map(|_| range))
}

/// The multirange type of user range type `oid` (None for any other type).
pub fn range_multirange(oid: Oid) -> Option<Oid> {
    type_info(oid).and_then(|t| t.def.range.as_ref().map(|r| r.multirange_oid))
}

/// The (schema, name) of multirange type `oid`, which CREATE TYPE ... AS RANGE made with its
/// range type.
pub fn multirange_name(oid: Oid) -> Option<(String, String)> {
    if oid < super::FIRST_USER_OID {
        return None;
    }
    let range = registry().multiranges.read_sync(&oid, |_, r| *r)?;
    let t = current(range)?;
    let name = t.def.range.as_ref()?.multirange_name.clone();
    Some((t.def.schema.clone(), name))
}

/// The labels of enum `oid`, in sort order.
pub fn enum_labels(oid: Oid) -> Option<Vec<EnumLabel>> {
    type_info(oid)
        .filter(|t| t.def.is_enum())
        .map(|t| t.def.labels.clone())
}

/// Domain `oid` as value functions see it (see [`type_info`]); None for any other type.
pub fn domain_info(oid: Oid) -> Option<Arc<UserType>> {
    type_info(oid).filter(|t| t.def.domain.is_some())
}

/// Composite type `oid` as value functions see it (see [`type_info`]); None for any other
/// type (a table's row type included: those are not kept here).
pub fn composite_info(oid: Oid) -> Option<Arc<UserType>> {
    type_info(oid).filter(|t| t.def.composite.is_some())
}

/// The fields of a composite type as value functions need them: its schema and name, and
/// each live attribute's name, declared type and typmod.
#[derive(Debug, Clone, PartialEq)]
pub struct RowFields {
    pub schema: String,
    pub name: String,
    pub fields: Vec<(String, Oid, i32)>,
}

/// Composite type `oid`'s fields: a type made by CREATE TYPE ... AS, or a table's row type the
/// planner has noted ([`note_row_type`]). None for any other type.
pub fn row_fields(oid: Oid) -> Option<Arc<RowFields>> {
    if oid < super::FIRST_USER_OID {
        return None;
    }
    if let Some(t) = composite_info(oid) {
        let c = t.def.composite.as_ref()?;
        return Some(Arc::new(RowFields {
            schema: t.def.schema.clone(),
            name: t.def.name.clone(),
            fields: c
                .live()
                .map(|(_, a)| (a.name.clone(), a.type_oid, a.typmod))
                .collect(),
        }));
    }
    registry().row_types.read_sync(&oid, |_, f| f.clone())
}

/// Records what the planner found a table's row type `oid` to be (its columns, as its snapshot
/// sees them), for the value functions that run without a snapshot (record input, output and
/// binary send, a type's name). Replaced at each lookup, so it follows ALTER TABLE; bound: one
/// entry per row type ever looked up (a dropped table's entry is harmless and small).
pub fn note_row_type(oid: Oid, fields: RowFields) {
    let r = registry();
    if r.row_types.read_sync(&oid, |_, f| **f == fields) == Some(true) {
        return;
    }
    let _ = r.row_types.upsert_sync(oid, Arc::new(fields));
    // A table's array type is its row type's OID less one (`Catalog::row_type`).
    let _ = r.arrays.insert_sync(oid - 1, oid);
}

/// The type at the bottom of domain `oid`'s chain and the typmod the nearest domain with one
/// gives it; None when `oid` is not a domain.
pub fn domain_base(oid: Oid) -> Option<(Oid, i32)> {
    let mut t = domain_info(oid)?;
    let mut typmod = -1;
    for _ in 0..MAX_DOMAIN_DEPTH {
        let d = t.def.domain.as_ref()?;
        if typmod < 0 {
            typmod = d.typmod;
        }
        match domain_info(d.base) {
            Some(next) => t = next,
            None => return Some((d.base, typmod)),
        }
    }
    None
}

/// A live type named `name` (in `schema`, or any), for regtype input, which has no snapshot:
/// the newest version not aborted and not dropped by a committed transaction. The lowest OID
/// wins when several schemas have one. Bound: one pass over the registry.
pub fn find_by_name(schema: Option<&str>, name: &str) -> Option<Oid> {
    find_type_by_name(schema, name).or_else(|| {
        // `_name`: the array type of `name`.
        let t = find_type_by_name(schema, name.strip_prefix('_')?)?;
        type_info(t).map(|t| t.def.array_oid)
    })
}

fn find_type_by_name(schema: Option<&str>, name: &str) -> Option<Oid> {
    let mut best: Option<Oid> = None;
    registry().types.iter_sync(|oid, versions| {
        let Some(t) = versions.iter().rev().find(|t| !t.aborted()) else {
            return true;
        };
        let dropped = matches!(
            t.ended.lock().as_ref().map(|(c, _)| c.status()),
            Some(Status::Committed(_))
        );
        let named = t.def.name == name && schema.is_none_or(|s| s == t.def.schema);
        if named && !dropped && best.is_none_or(|b| *oid < b) {
            best = Some(*oid);
        }
        true
    });
    best
}
