//! The live schema: relations (tables, indexes), their columns and constraints, versioned like
//! rows.
//!
//! # Design
//!
//! PostgreSQL's DDL is transactional: a CREATE TABLE is invisible to others until its transaction
//! commits and disappears if it aborts; an ALTER TABLE is seen by its own transaction at once.
//! threadgres gets the same behaviour by treating each relation *version* as a row version: a
//! [`Relation`] is stamped with the transaction cell and command that created it, and, once
//! replaced (ALTER, RENAME) or dropped, with the one that ended it. A lookup uses the statement's
//! snapshot, exactly as a row read would, so no lock is needed to read the schema and a reader
//! never sees a half-made change.
//!
//! What a relation's columns *are* (types, default expressions) is described here in the terms
//! PostgreSQL's catalogs use: type OIDs, typmods, expression texts. The SQL layer turns them into
//! its own types and bound expressions and caches them per version. The data of a table is a type
//! parameter `D`, owned by the SQL layer's engine: the catalog keeps it and hands it out, and all
//! versions of one relation share it.
//!
//! Every change bumps [`Catalog::epoch`], which prepared statements compare to know when to plan
//! again (PostgreSQL's plan-cache invalidation, coarse-grained).
//!
//! # Invariants
//!
//! 1. For one name in one schema of one database, at most one version is visible to any
//!    snapshot: a DDL statement that creates a name checks, under the name's map entry, that no
//!    version of it is live or being created by a transaction in progress.
//! 2. All versions of a relation share its OID and its data.
//! 3. `epoch` only grows; it is bumped after a change is made and again when the changing
//!    transaction ends, so a plan made before either sees a different epoch.
//! 4. A version is ended by one transaction: `end` refuses (`Busy`) while a transaction in
//!    progress has ended it, and (`Exists`) once one has committed that; only an aborted end,
//!    or one of the same top transaction, may be written over.
//! 5. `vacuum` removes a version only when its creator aborted or its end committed before the
//!    horizon (`version_dead`), so no snapshot in use can still see it; it reports an OID gone
//!    (for the data, comments and row type to go with it) only when no version under any name
//!    still has that OID (a renamed relation keeps it).
//!
//! # Who touches what, and lock order
//!
//! The versions of a name live in one entry of `names` (scc's map): `create` holds that entry
//! while it checks invariant 1 and pushes the new version, and `vacuum` while it drops dead
//! versions; lookups read it under scc's shared access. A version's `ended` mutex is taken
//! alone by `end`, and inside an entry by `create`, `lookup`, `visible` and `vacuum` (through
//! `version_visible` / `version_dead`): the order is always map entry, then `ended`, never the
//! reverse, and never two `ended` mutexes at once. Namespaces, roles and comments keep their
//! own maps; `vacuum` visits them one after another, holding nothing of this one. `next_oid`,
//! `epoch` and `foreign_keys` are SeqCst counters.
//!
//! # Bounds
//!
//! OIDs of user objects start at 16384 (PostgreSQL's FirstNormalObjectId) and are 32-bit; past
//! 2^32 - 1 creation fails with 54000. A table has at most [`MAX_COLUMNS`] columns (PostgreSQL's
//! limit). A name's versions accumulate until vacuum removes the dead ones. `foreign_keys` only
//! grows: [`Catalog::may_have_foreign_keys`] stays true once any foreign key was made, a hint that
//! only saves work where none ever was.

use serde::{Deserialize, Serialize};
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::Arc;

use parking_lot::Mutex;

use crate::txn::{Cid, Snapshot, TxnCell, Xid};

/// The system columns PostgreSQL's tables have besides their own (PostgreSQL 15's, oid gone),
/// in attnum order: the name at index i has attnum -(i + 1).
pub const SYSTEM_COLUMNS: [&str; 6] = ["ctid", "xmin", "cmin", "xmax", "cmax", "tableoid"];

pub mod acl;
pub mod comments;
pub mod extensions;
pub mod functions;
mod namespace;
pub mod partition;
pub mod password;
pub mod roles;
pub mod rules;
pub mod sequence;
pub mod triggers;
pub mod types;
pub use namespace::{Namespace, Namespaces, DATABASE_KEY};

pub type Oid = u32;

/// PostgreSQL's MaxHeapAttributeNumber.
pub const MAX_COLUMNS: usize = 1600;
/// The first OID given to a user object.
pub const FIRST_USER_OID: Oid = 16384;

/// One column of a table (pg_attribute, with its default from pg_attrdef).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ColumnDef {
    pub name: String,
    pub type_oid: Oid,
    pub typmod: i32,
    pub not_null: bool,
    /// The default expression as SQL text (pg_get_expr of adbin).
    pub default: Option<String>,
    /// GENERATED ALWAYS / BY DEFAULT AS IDENTITY: 'a' or 'd' (pg_attribute.attidentity).
    pub identity: Option<char>,
    /// GENERATED ALWAYS AS (expr) STORED (pg_attribute.attgenerated 's'): `default` then holds
    /// the generation expression (PostgreSQL keeps it in pg_attrdef too), computed for every
    /// row written rather than used when a value is missing.
    pub generated: bool,
    /// Dropped columns keep their place (attisdropped), as PostgreSQL's do.
    pub dropped: bool,
    /// The domain (or array of a domain) the column was declared with: `type_oid` and
    /// `typmod` are then its base type's, what values are held and computed as, and this is
    /// what pg_attribute.atttypid shows and what stored values are checked against.
    pub domain: Option<Oid>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum RelKind {
    Table,
    Index,
    Sequence,
    View,
    /// A materialized view: rows stored as a table's, a definition as a view's.
    MatView,
}

impl RelKind {
    /// pg_class.relkind.
    pub fn code(self) -> char {
        match self {
            RelKind::Table => 'r',
            RelKind::Index => 'i',
            RelKind::Sequence => 'S',
            RelKind::View => 'v',
            RelKind::MatView => 'm',
        }
    }

    /// Whether the relation stores rows of its own (a table or a materialized view): scanned,
    /// indexed, vacuumed, analyzed and kept in checkpoint images.
    pub fn has_rows(self) -> bool {
        matches!(self, RelKind::Table | RelKind::MatView)
    }
}

/// A view's definition (PostgreSQL's `_RETURN` rule): its query as SQL text, analyzed again
/// wherever the view is used, and what it reads (for DROP ... CASCADE and dependent-object
/// errors): each relation's OID with the positions of the columns the query names.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ViewDef {
    pub query: String,
    pub deps: Vec<(Oid, Vec<usize>)>,
    /// The schemas its unqualified names were resolved in when it was made (search_path then,
    /// or the schema CREATE SCHEMA was making): they resolve there again wherever it is used,
    /// as PostgreSQL's stored parse tree keeps what they named.
    pub search_path: String,
}

/// What a materialized view's version holds besides its rows: its definition and whether it
/// has been populated (pg_class.relispopulated). Kept in the catalog version rather than in the
/// shared data, so that a RENAME that rewrites the definition keeps the rows, and REFRESH ...
/// WITH [NO] DATA commits and rolls back with its transaction.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MatView {
    pub def: ViewDef,
    pub populated: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Persistence {
    Permanent,
    Unlogged,
    Temporary,
}

impl Persistence {
    /// pg_class.relpersistence.
    pub fn code(self) -> char {
        match self {
            Persistence::Permanent => 'p',
            Persistence::Unlogged => 'u',
            Persistence::Temporary => 't',
        }
    }
}

/// An index of a table (pg_index).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct IndexDef {
    pub oid: Oid,
    pub name: String,
    /// Positions of the indexed columns in the table's column list. For an index with
    /// expressions or a predicate ([`IndexDef::exprs`]), every column those read, in table order
    /// (what an update must change to need new entries, and what DROP COLUMN must not remove).
    pub columns: Vec<usize>,
    pub unique: bool,
    pub primary: bool,
    /// The key items and predicate of an expression or partial index; None for a plain index,
    /// whose key is `columns`.
    pub exprs: Option<Box<IndexExprs>>,
    /// USING hash (equality only) rather than btree.
    pub hash: bool,
    /// USING gin: the operator class of its one column, by name (`jsonb_ops`,
    /// `jsonb_path_ops`, `array_ops`; what it does is `sql::engine::gin`'s). An inverted index:
    /// each row has an entry per key its value holds, not one for the column.
    pub gin: Option<String>,
    /// INCLUDE: columns an entry carries besides its key (pg_index's attributes after
    /// indnkeyatts), as positions in the table's column list. They take no part in the key's
    /// order or uniqueness, so they need no operator class.
    pub include: Vec<usize>,
}

/// What an expression or partial index is made of, as SQL text over the table's columns
/// (PostgreSQL keeps node trees in pg_index.indexprs / indpred; the text is parsed and bound
/// again where the index is maintained or planned).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct IndexExprs {
    pub items: Vec<IndexItem>,
    /// WHERE: only rows for which it is true are in the index.
    pub predicate: Option<String>,
}

/// One item of an index key.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum IndexItem {
    /// A column's position in the table's column list.
    Column(usize),
    /// An expression (deparsed SQL text).
    Expr(String),
}

impl IndexDef {
    /// Whether the key is the columns themselves, on every row (no expression, no predicate,
    /// not an inverted index): the only kind the planner's column paths, foreign keys and ON CONFLICT's column lists
    /// use.
    pub fn plain(&self) -> bool {
        self.exprs.is_none() && self.gin.is_none()
    }

    /// The number of key items.
    pub fn width(&self) -> usize {
        match &self.exprs {
            None => self.columns.len(),
            Some(x) => x.items.len(),
        }
    }

    /// The number of attributes (pg_index.indnatts): the key items and the INCLUDE columns.
    pub fn natts(&self) -> usize {
        self.width() + self.include.len()
    }
}

/// What a constraint checks (pg_constraint.contype).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum ConstraintKind {
    PrimaryKey {
        index: Oid,
    },
    Unique {
        index: Oid,
    },
    /// The expression as SQL text.
    Check {
        expr: String,
    },
    ForeignKey {
        columns: Vec<usize>,
        ref_table: Oid,
        ref_columns: Vec<usize>,
        /// pg_constraint.confupdtype / confdeltype: a (no action), r, c, n, d.
        on_update: char,
        on_delete: char,
        /// MATCH FULL (pg_constraint.confmatchtype 'f'); else MATCH SIMPLE ('s').
        match_full: bool,
    },
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConstraintDef {
    pub oid: Oid,
    pub name: String,
    pub kind: ConstraintKind,
    /// DEFERRABLE (pg_constraint.condeferrable): SET CONSTRAINTS may move its check to commit.
    pub deferrable: bool,
    /// INITIALLY DEFERRED (pg_constraint.condeferred): checked at commit unless set otherwise.
    pub deferred: bool,
}

/// Where a relation lives by name.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct QualName {
    pub database: String,
    pub schema: String,
    pub name: String,
}

/// One version of a relation.
pub struct Relation<D> {
    pub oid: Oid,
    pub name: QualName,
    pub kind: RelKind,
    pub persistence: Persistence,
    pub columns: Vec<ColumnDef>,
    pub indexes: Vec<IndexDef>,
    pub constraints: Vec<ConstraintDef>,
    /// Triggers, in name order (the order they fire in).
    pub triggers: Vec<triggers::TriggerDef>,
    /// Rules, in name order (the order they apply in).
    pub rules: Vec<rules::RuleDef>,
    /// The owning role (pg_class.relowner).
    pub owner: Oid,
    /// pg_class.relacl: None until the first GRANT / REVOKE (the owner's defaults).
    pub acl: Option<acl::Acl>,
    /// pg_attribute.attacl of the columns that have one: (position, ACL), by position.
    pub column_acls: Vec<(usize, acl::Acl)>,
    /// For an index: the table it indexes (pg_index.indrelid).
    pub table: Option<Oid>,
    /// For a materialized view: its definition and whether it is populated.
    pub matview: Option<Box<MatView>>,
    /// A partitioned table's key, a partition's parent and bound (`partition.rs`).
    pub partition: Option<Box<partition::Partitioning>>,
    pub data: Arc<D>,
    created: Option<Arc<TxnCell>>,
    created_cid: Cid,
    ended: Mutex<Option<(Arc<TxnCell>, Cid)>>,
}

impl<D> std::fmt::Debug for Relation<D> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Relation({} {:?})", self.oid, self.name)
    }
}

/// Whether a catalog version (a relation, schema, role or comment) is the one `snap` sees: its
/// creation is visible (`created` None: there from the start) and its end, once replaced or
/// dropped, is not.
pub(crate) fn version_visible(
    snap: &Snapshot,
    created: Option<&TxnCell>,
    created_cid: Cid,
    ended: &Mutex<Option<(Arc<TxnCell>, Cid)>>,
) -> bool {
    snap.sees_write(created, created_cid)
        && match &*ended.lock() {
            None => true,
            Some((cell, cid)) => !snap.sees_write(Some(cell), *cid),
        }
}

/// Whether no snapshot at or above `horizon` can see a catalog version: its creator aborted,
/// or a commit below the horizon ended it (the vacuum test of every versioned catalog map).
pub(crate) fn version_dead(
    created: Option<&TxnCell>,
    ended: &Mutex<Option<(Arc<TxnCell>, Cid)>>,
    horizon: crate::txn::Csn,
) -> bool {
    use crate::txn::Status;
    let aborted = created.is_some_and(|c| c.status() == Status::Aborted);
    let ended = matches!(
        ended.lock().as_ref().map(|(c, _)| c.status()),
        Some(Status::Committed(c)) if c < horizon
    );
    aborted || ended
}

impl<D> Relation<D> {
    /// The DEFERRABLE PRIMARY KEY or UNIQUE constraint that index `index` backs, if any: its
    /// unique check may wait for the end of the statement or the commit (pg_index.indimmediate
    /// is false).
    pub fn deferrable_key(&self, index: Oid) -> Option<&ConstraintDef> {
        self.constraints.iter().find(|c| {
            c.deferrable
                && matches!(c.kind, ConstraintKind::PrimaryKey { index: i }
                    | ConstraintKind::Unique { index: i } if i == index)
        })
    }

    /// Whether this version is the one `snap` sees.
    pub fn visible(&self, snap: &Snapshot) -> bool {
        version_visible(snap, self.created.as_deref(), self.created_cid, &self.ended)
    }

    /// The partition key of a partitioned table (pg_class.relkind 'p').
    pub fn partition_key(&self) -> Option<&partition::PartitionKey> {
        self.partition.as_ref()?.key.as_ref()
    }

    /// The parent and bound of a partition (pg_class.relispartition).
    pub fn partition_of(&self) -> Option<&partition::PartitionOf> {
        self.partition.as_ref()?.of.as_ref()
    }

    /// pg_class.relkind: a partitioned table is a table with a key.
    pub fn relkind(&self) -> char {
        if self.partition_key().is_some() {
            'p'
        } else {
            self.kind.code()
        }
    }

    /// The columns that are not dropped, with their positions.
    pub fn live_columns(&self) -> impl Iterator<Item = (usize, &ColumnDef)> {
        self.columns.iter().enumerate().filter(|(_, c)| !c.dropped)
    }
}

/// What a new relation version is made of.
pub struct NewRelation<D> {
    pub name: QualName,
    pub kind: RelKind,
    pub persistence: Persistence,
    pub columns: Vec<ColumnDef>,
    pub indexes: Vec<IndexDef>,
    pub constraints: Vec<ConstraintDef>,
    pub triggers: Vec<triggers::TriggerDef>,
    pub rules: Vec<rules::RuleDef>,
    pub owner: Oid,
    /// As [`Relation::acl`] and [`Relation::column_acls`].
    pub acl: Option<acl::Acl>,
    pub column_acls: Vec<(usize, acl::Acl)>,
    pub table: Option<Oid>,
    pub matview: Option<Box<MatView>>,
    pub partition: Option<Box<partition::Partitioning>>,
    pub data: Arc<D>,
}

/// Why a catalog change was refused.
#[derive(Debug, Clone)]
pub enum CatalogError {
    /// The name is taken by a visible relation, or by one a transaction in progress is creating
    /// (the caller may wait for that transaction, then try again).
    Exists(Option<Arc<TxnCell>>),
    /// Another transaction in progress changed or dropped this relation.
    Busy(Arc<TxnCell>),
    OidsExhausted,
}

/// The relations of every database.
pub struct Catalog<D> {
    next_oid: AtomicU32,
    epoch: AtomicU64,
    /// Relation versions ever created with a foreign key: while 0, a write need not look for
    /// constraints that reference its table (see [`Catalog::may_have_foreign_keys`]).
    foreign_keys: AtomicU64,
    names: scc::HashMap<QualName, Vec<Arc<Relation<D>>>>,
    /// The row type of each table and view (PostgreSQL's pg_class.reltype, a composite pg_type
    /// row; its array type is the OID before it): relation OID -> type OID. One entry per
    /// relation OID that has a version here, removed when the relation is vacuumed away.
    row_types: scc::HashMap<Oid, Oid>,
    /// Schemas made by CREATE SCHEMA.
    pub namespaces: Namespaces,
    /// Roles and memberships, shared by every database (`roles.rs`).
    pub roles: roles::Roles,
    /// Descriptions set by COMMENT ON (`comments.rs`).
    pub comments: comments::Comments,
    /// Functions and procedures made by CREATE FUNCTION / PROCEDURE (`functions.rs`).
    pub functions: functions::Functions,
    /// Types made by CREATE TYPE (`types.rs`).
    pub types: types::Types,
    /// Extensions installed by CREATE EXTENSION (`extensions.rs`).
    pub extensions: extensions::Extensions,
}

impl<D> Default for Catalog<D> {
    fn default() -> Self {
        Catalog {
            next_oid: AtomicU32::new(FIRST_USER_OID),
            epoch: AtomicU64::new(1),
            foreign_keys: AtomicU64::new(0),
            names: scc::HashMap::new(),
            row_types: scc::HashMap::new(),
            namespaces: Namespaces::default(),
            roles: roles::Roles::default(),
            comments: comments::Comments::default(),
            functions: functions::Functions::default(),
            types: types::Types::default(),
            extensions: extensions::Extensions::default(),
        }
    }
}

impl<D> Catalog<D> {
    pub fn new() -> Catalog<D> {
        Catalog::default()
    }

    /// Changes whenever the schema may have changed (invariant 3).
    pub fn epoch(&self) -> u64 {
        self.epoch.load(Ordering::SeqCst)
    }

    /// Whether any foreign key was ever created (never reset: a cheap "no" for the common case
    /// of a schema without them).
    pub fn may_have_foreign_keys(&self) -> bool {
        self.foreign_keys.load(Ordering::SeqCst) != 0
    }

    /// Marks the schema changed (also called when a transaction that changed it ends).
    pub fn bump(&self) {
        self.epoch.fetch_add(1, Ordering::SeqCst);
    }

    /// A new OID for a relation, index or constraint.
    pub fn new_oid(&self) -> Result<Oid, CatalogError> {
        let oid = self.next_oid.fetch_add(1, Ordering::SeqCst);
        if oid == Oid::MAX {
            return Err(CatalogError::OidsExhausted);
        }
        Ok(oid)
    }

    /// The OID the next `new_oid` gives (for a checkpoint's image).
    pub fn peek_next_oid(&self) -> Oid {
        self.next_oid.load(Ordering::SeqCst)
    }

    /// Makes `new_oid` give nothing below `next` (a checkpoint's counter read back at start).
    pub fn restore_next_oid(&self, next: Oid) {
        self.next_oid.fetch_max(next, Ordering::SeqCst);
    }

    /// Records the row type of relation `relid` before its first version is made, so that
    /// `create` keeps it rather than numbering a new one (a checkpoint's image read back).
    pub fn restore_row_type(&self, relid: Oid, row_type: Oid) {
        let _ = self.row_types.insert_sync(relid, row_type);
    }

    /// The row type OID of a table or view (pg_class.reltype); its array type is one less.
    pub fn row_type(&self, relid: Oid) -> Option<Oid> {
        self.row_types.read_sync(&relid, |_, t| *t)
    }

    /// The version of `name` that `snap` sees.
    pub fn lookup(&self, name: &QualName, snap: &Snapshot) -> Option<Arc<Relation<D>>> {
        self.names.read_sync(name, |_, versions| {
            versions.iter().rev().find(|r| r.visible(snap)).cloned()
        })?
    }

    /// Every relation version `snap` sees (for pg_class and friends), in OID order.
    pub fn visible(&self, snap: &Snapshot) -> Vec<Arc<Relation<D>>> {
        let mut out = Vec::new();
        self.names.iter_sync(|_, versions| {
            out.extend(versions.iter().filter(|r| r.visible(snap)).cloned());
            true
        });
        out.sort_by_key(|r| r.oid);
        out
    }

    /// The relation versions transaction `top` created (`.0`, those `snap` sees: not rolled
    /// back) and the OIDs of relations it ended a version of (`.1`), for the catalog record
    /// of its commit. One pass over the versions, without sorting.
    pub fn written_by(&self, top: Xid, snap: &Snapshot) -> (Vec<Arc<Relation<D>>>, Vec<Oid>) {
        let (mut made, mut ended) = (Vec::new(), Vec::new());
        self.names.iter_sync(|_, versions| {
            for r in versions {
                if r.created.as_ref().is_some_and(|c| c.top() == top) && r.visible(snap) {
                    made.push(r.clone());
                }
                if r.ended.lock().as_ref().is_some_and(|(c, _)| c.top() == top) {
                    ended.push(r.oid);
                }
            }
            true
        });
        (made, ended)
    }

    /// Whether a relation version `snap` sees satisfies `f`, without collecting them: `f` is
    /// asked first, visibility only for a version it accepts (for a cheap `f` over many
    /// relations, as the search for a constraint name in a schema).
    pub fn any_visible(&self, snap: &Snapshot, mut f: impl FnMut(&Relation<D>) -> bool) -> bool {
        !self
            .names
            .iter_sync(|_, versions| !versions.iter().any(|r| f(r) && r.visible(snap)))
    }

    /// Creates a relation (a new OID when `oid` is None, else a new version of that relation)
    /// as a write of `cell` at command `cid`, seen by `snap`'s owner (invariant 1).
    pub fn create(
        &self,
        oid: Option<Oid>,
        rel: NewRelation<D>,
        snap: &Snapshot,
        cell: &Arc<TxnCell>,
        cid: Cid,
    ) -> Result<Arc<Relation<D>>, CatalogError> {
        let oid = match oid {
            Some(o) => o,
            None => self.new_oid()?,
        };
        // A new table or view gets its array type and row type OIDs after its own (as
        // PostgreSQL numbers them); a new version keeps them.
        let row_type = if matches!(rel.kind, RelKind::Table | RelKind::View | RelKind::MatView)
            && self.row_type(oid).is_none()
        {
            let _array = self.new_oid()?;
            Some(self.new_oid()?)
        } else {
            None
        };
        let entry = self.names.entry_sync(rel.name.clone());
        let mut versions = entry.or_default();
        for v in versions.get().iter() {
            if v.visible(snap) {
                return Err(CatalogError::Exists(None));
            }
            // Created by someone still running (and not ended): they may commit it.
            if let Some(c) = &v.created {
                if c.top() != cell.top()
                    && c.settled_status() == crate::txn::Status::InProgress
                    && v.ended.lock().is_none()
                {
                    return Err(CatalogError::Exists(Some(c.clone())));
                }
            }
        }
        if rel
            .constraints
            .iter()
            .any(|c| matches!(c.kind, ConstraintKind::ForeignKey { .. }))
        {
            self.foreign_keys.fetch_add(1, Ordering::SeqCst);
        }
        let r = Arc::new(Relation {
            oid,
            name: rel.name,
            kind: rel.kind,
            persistence: rel.persistence,
            columns: rel.columns,
            indexes: rel.indexes,
            constraints: rel.constraints,
            triggers: rel.triggers,
            rules: rel.rules,
            owner: rel.owner,
            acl: rel.acl,
            column_acls: rel.column_acls,
            table: rel.table,
            matview: rel.matview,
            partition: rel.partition,
            data: rel.data,
            created: Some(cell.clone()),
            created_cid: cid,
            ended: Mutex::new(None),
        });
        versions.get_mut().push(r.clone());
        drop(versions);
        if let Some(t) = row_type {
            let _ = self.row_types.insert_sync(oid, t);
        }
        self.bump();
        Ok(r)
    }

    /// Ends a version (DROP, or the old side of an ALTER). Fails if another transaction in
    /// progress already ended it.
    pub fn end(
        &self,
        rel: &Relation<D>,
        cell: &Arc<TxnCell>,
        cid: Cid,
    ) -> Result<(), CatalogError> {
        {
            let mut ended = rel.ended.lock();
            if let Some((other, _)) = &*ended {
                match other.settled_status() {
                    crate::txn::Status::Aborted => {}
                    _ if other.top() == cell.top() => {}
                    crate::txn::Status::InProgress => {
                        return Err(CatalogError::Busy(other.clone()))
                    }
                    crate::txn::Status::Committed(_) => return Err(CatalogError::Exists(None)),
                }
            }
            *ended = Some((cell.clone(), cid));
        }
        self.bump();
        Ok(())
    }

    /// Forgets every relation, schema and description of a dropped database at once (DROP
    /// DATABASE is not transactional, and no session is connected to it: the caller checked),
    /// so that a database made later under the same name starts empty. Returns the relations
    /// forgotten (their data goes with them).
    pub fn forget_database(&self, database: &str) -> Vec<Oid> {
        let mut gone = Vec::new();
        self.names.retain_sync(|name, versions| {
            if name.database != database {
                return true;
            }
            gone.extend(versions.iter().map(|v| v.oid));
            false
        });
        gone.sort_unstable();
        gone.dedup();
        self.namespaces.forget_database(database);
        self.functions.forget_database(database);
        self.types.forget_database(database);
        self.extensions.forget_database(database);
        self.comments.forget(&gone);
        for o in &gone {
            self.row_types.remove_sync(o);
        }
        self.bump();
        gone
    }

    /// Forgets versions nobody can see any more: created by aborted transactions, or ended by
    /// commits below `horizon`. Returns the relations whose every version is gone (their data
    /// can be dropped).
    pub fn vacuum(&self, horizon: crate::txn::Csn) -> Vec<Oid> {
        self.namespaces.vacuum(horizon);
        self.roles.vacuum(horizon);
        let mut gone = Vec::new();
        self.names.retain_sync(|_, versions| {
            versions.retain(|v| {
                let dead = version_dead(v.created.as_deref(), &v.ended, horizon);
                if dead {
                    gone.push(v.oid);
                }
                !dead
            });
            !versions.is_empty()
        });
        // An OID still present under another name (renamed) is not gone.
        let mut live = std::collections::HashSet::new();
        self.names.iter_sync(|_, versions| {
            live.extend(versions.iter().map(|v| v.oid));
            true
        });
        gone.retain(|o| !live.contains(o));
        gone.sort_unstable();
        gone.dedup();
        self.comments.vacuum(horizon);
        self.comments.forget(&gone);
        self.functions.vacuum(horizon);
        self.types.vacuum(horizon);
        self.extensions.vacuum(horizon);
        for o in &gone {
            self.row_types.remove_sync(o);
        }
        gone
    }
}

#[cfg(all(test, not(feature = "shuttle")))]
mod tests {
    use super::*;
    use crate::txn::TxnManager;

    fn name(n: &str) -> QualName {
        QualName {
            database: "postgres".into(),
            schema: "public".into(),
            name: n.into(),
        }
    }

    fn table(n: &str) -> NewRelation<()> {
        NewRelation {
            name: name(n),
            kind: RelKind::Table,
            persistence: Persistence::Permanent,
            columns: vec![],
            indexes: vec![],
            constraints: vec![],
            owner: roles::BOOTSTRAP_SUPERUSER,
            acl: None,
            column_acls: vec![],
            triggers: vec![],
            rules: vec![],
            table: None,
            matview: None,
            partition: None,
            data: Arc::new(()),
        }
    }

    #[test]
    fn ddl_is_transactional() {
        let m = TxnManager::new(4);
        let slot = m.register();
        let cat: Catalog<()> = Catalog::new();
        let t = m.begin(1);
        let own = m.snapshot(&slot, t.top(), 1);
        let r = cat.create(None, table("t"), &own, &t, 0).unwrap();
        assert!(r.oid >= FIRST_USER_OID);
        assert!(
            cat.lookup(&name("t"), &own).is_some(),
            "own DDL, next command"
        );
        let other = m.snapshot(&slot, 0, 0);
        assert!(cat.lookup(&name("t"), &other).is_none(), "uncommitted DDL");
        let t2 = m.begin(2);
        let snap2 = m.snapshot(&slot, t2.top(), 0);
        assert!(matches!(
            cat.create(None, table("t"), &snap2, &t2, 0),
            Err(CatalogError::Exists(Some(_)))
        ));
        m.abort(&t, &[]);
        assert!(cat.create(None, table("t"), &snap2, &t2, 0).is_ok());
        m.commit(&t2);
        let after = m.snapshot(&slot, 0, 0);
        let r = cat.lookup(&name("t"), &after).unwrap();
        assert_eq!(
            cat.vacuum(m.horizon()).len(),
            1,
            "the aborted version is forgotten"
        );
        let t3 = m.begin(3);
        cat.end(&r, &t3, 0).unwrap();
        assert!(cat.lookup(&name("t"), &m.snapshot(&slot, 0, 0)).is_some());
        m.commit(&t3);
        assert!(cat.lookup(&name("t"), &m.snapshot(&slot, 0, 0)).is_none());
        slot.clear();
        assert_eq!(cat.vacuum(m.horizon()), vec![r.oid]);
    }
}
