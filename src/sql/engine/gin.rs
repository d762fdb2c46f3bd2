//! GIN indexes: inverted indexes from the keys a value holds to the rows that hold them.
//!
//! # Design
//!
//! A GIN index is kept in the same tree as the other index kinds (`store::KeyTree`), but a row
//! has one entry per key its indexed value holds (an array's elements, a jsonb document's keys
//! and values) instead of one for the whole column. A key's posting list is the run of entries
//! with that key, which the tree keeps ordered by row; no separate posting structure is needed,
//! and insert, update, vacuum, the parallel build and the rebuild at restart are the ones the
//! other indexes use (the engine asks [`keys_of`] where it would ask `key_of`).
//!
//! What a key is and which rows a query needs is the operator class's business: an operator
//! class is a [`GinOpclass`] (extract the keys of a value; extract the keys of a query operand
//! with how they combine; name the operators it serves), looked up by name in a registry that
//! holds the built-in classes (`gin/jsonb.rs`: jsonb_ops and jsonb_path_ops; `gin/array.rs`:
//! array_ops) and any an extension registers ([`register`]: pg_trgm's gin_trgm_ops,
//! `sql/func/extension/trgm_gin.rs`, registered at start, usable where pg_trgm is installed).
//! A query's keys combine as all of them, any of them, or at least a number of them
//! (`Match::AtLeast`, trigram similarity: the candidates are the rows of the rarest keys that
//! any qualifying row must have one of, counted in the other keys' lists where those are not
//! much longer). The index is always lossy, as PostgreSQL's jsonb classes are: the executor rechecks
//! the query's condition on every row it fetches, so a class may map several values to one key
//! (jsonb keys are 64-bit hashes) and need not decide containment itself.
//!
//! # Invariants
//!
//! 1. A row whose indexed value is NULL has no entry (every GIN operator is strict).
//! 2. [`keys_of`] is a pure function of the value: the keys an insert entered are the keys
//!    vacuum removes for the same version (the HOT rule of `engine::update` keeps a chain's
//!    versions on one set of keys, as for the other indexes).
//! 3. A query's [`Match`] never leaves out a row for which the operator is true: where a class
//!    cannot tell from keys (an empty `@>` query, a NULL in a query array), it answers
//!    [`Match::Everything`], and the executor rechecks every row of the table.
//!
//! # Bounds
//!
//! A value's keys are de-duplicated and at most one per element, object key or scalar it
//! holds, so their number is bounded by the value's size (a jsonb document of 1,000,000 keys
//! makes about 2,000,000 entries, some 40 bytes each, when it is written: the statement's
//! memory check (`memory.rs`) sees them at its next row, as it sees the row itself). A query's
//! posting lists are read into one sorted list of rows, at most [`MAX_BITMAP`] of them; past
//! that the scan stops reading the index and rechecks every row of the table instead
//! (PostgreSQL's lossy bitmap past work_mem, taken to its end).

use std::sync::OnceLock;

use parking_lot::RwLock;

use super::{IKey, Key, Rel};
use crate::catalog::{IndexDef, Oid};
use crate::error::{code, PgError, PgResult};
use crate::sql::types::{FormatCtx, Type, Value};

mod array;
mod jsonb;

/// Row ids a bitmap index scan collects at most before it gives up on the index and the
/// heap scan rechecks the whole table (16 M rows: 128 MB of ids).
pub const MAX_BITMAP: usize = 1 << 24;

/// How the keys of a query decide which rows to fetch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Match {
    /// The rows that have every key.
    All(Vec<Key>),
    /// The rows that have at least one of the keys.
    Any(Vec<Key>),
    /// Every row of the table (the keys cannot narrow it down).
    Everything,
    /// No row.
    Nothing,
    /// The rows that have at least this many of the keys (pg_trgm's similarity operators:
    /// a row similar enough to the query shares a given share of its trigrams). The count is
    /// at least 1 and at most the number of keys.
    AtLeast(usize, Vec<Key>),
}

/// An operator class of the GIN access method.
pub trait GinOpclass: Send + Sync {
    /// pg_opclass.opcname.
    fn name(&self) -> &'static str;
    /// pg_opclass's OID and its operator family's (pg_opfamily).
    fn oid(&self) -> Oid;
    fn family(&self) -> Oid;
    /// The family's name (pg_opfamily.opfname).
    fn family_name(&self) -> &'static str {
        self.name()
    }
    /// Whether it is the default class of the types it accepts (pg_opclass.opcdefault).
    fn is_default(&self) -> bool;
    /// pg_opclass.opcintype: the type it indexes (anyarray for array_ops).
    fn input_type(&self) -> Type;
    /// pg_opclass.opckeytype: what its keys are (0: the input type).
    fn key_type(&self) -> Type;
    /// Whether it indexes values of a column of type `ty`.
    fn accepts(&self, ty: Type) -> bool;
    /// The operators it serves, by name and right operand type, in strategy order.
    fn operators(&self) -> &'static [(&'static str, Type)];
    /// Adds the keys of `value` (never NULL) to `out` (duplicates allowed: the caller removes
    /// them).
    fn extract_value(&self, value: &Value, out: &mut Vec<Key>) -> PgResult<()>;
    /// The keys of query operand `query` (never NULL) for operator `op`, and how they combine.
    fn extract_query(&self, op: &str, query: &Value) -> PgResult<Match>;
    /// The same, for a session whose settings are `fmt` (pg_trgm's operators compare against
    /// its similarity thresholds); what the planner and executor call.
    fn extract_query_in(&self, op: &str, query: &Value, _fmt: &FormatCtx) -> PgResult<Match> {
        self.extract_query(op, query)
    }
    /// The extension whose CREATE EXTENSION makes it available in a database (None: built in).
    fn extension(&self) -> Option<&'static str> {
        None
    }
    /// The operator function `f` is, when it is an extension's operator this class serves
    /// (pg_trgm's `%`, which `types::ops` does not list), with its name.
    fn extension_operator(&self, _f: &crate::sql::types::ops::BinFn) -> Option<&'static str> {
        None
    }
}

/// Operator classes an extension added (`register`), after the built-in ones.
static EXTRA: OnceLock<RwLock<Vec<&'static dyn GinOpclass>>> = OnceLock::new();

/// Adds an operator class (an extension's; a name already known is ignored).
pub fn register(class: &'static dyn GinOpclass) {
    let builtin = classes_builtin();
    let extra = EXTRA.get_or_init(RwLock::default);
    // Looked up under the write lock itself (`find` would take the read lock: a deadlock).
    let mut v = extra.write();
    let known = |c: &&'static dyn GinOpclass| c.name() == class.name();
    if !builtin.iter().any(known) && !v.iter().any(known) {
        v.push(class);
    }
}

/// Every operator class: the built-in ones, then the registered ones.
pub fn classes() -> Vec<&'static dyn GinOpclass> {
    let mut v = classes_builtin();
    if let Some(extra) = EXTRA.get() {
        v.extend(extra.read().iter().copied());
    }
    v
}

/// The built-in operator classes.
fn classes_builtin() -> Vec<&'static dyn GinOpclass> {
    vec![&jsonb::JSONB_OPS, &jsonb::JSONB_PATH_OPS, &array::ARRAY_OPS]
}

/// The operator class named `name`.
pub fn find(name: &str) -> Option<&'static dyn GinOpclass> {
    classes().into_iter().find(|c| c.name() == name)
}

/// The class an index over a column of type `ty` gets without naming one; PostgreSQL's error
/// when there is none.
pub fn default_class(ty: Type, type_name: &str) -> PgResult<&'static dyn GinOpclass> {
    classes()
        .into_iter()
        .find(|c| c.is_default() && c.accepts(ty))
        .ok_or_else(|| {
            PgError::new(
                code::UNDEFINED_OBJECT,
                format!(
                    "data type {type_name} has no default operator class for access method \"gin\""
                ),
            )
            .with_hint(
                "You must specify an operator class for the index or define a default operator class for the data type.",
            )
        })
}

/// The class named `name` for a column of type `ty`, with PostgreSQL's errors.
pub fn named_class(name: &str, ty: Type, type_name: &str) -> PgResult<&'static dyn GinOpclass> {
    let c = find(name).ok_or_else(|| {
        PgError::new(
            code::UNDEFINED_OBJECT,
            format!("operator class \"{name}\" does not exist for access method \"gin\""),
        )
    })?;
    if !c.accepts(ty) {
        return Err(PgError::new(
            code::DATATYPE_MISMATCH,
            format!("operator class \"{name}\" does not accept data type {type_name}"),
        ));
    }
    Ok(c)
}

/// The class of GIN index `def` (None for another index kind, or a class no longer known).
pub fn class_of(def: &IndexDef) -> Option<&'static dyn GinOpclass> {
    def.gin.as_deref().and_then(find)
}

/// The keys of `row` in GIN index `def`, sorted and without duplicates, in the stored form
/// (none for a NULL value). A class that is not known (an extension's, not registered in
/// this process) fails.
pub fn keys_of(def: &IndexDef, row: &[Value]) -> PgResult<Vec<IKey>> {
    let name = def.gin.as_deref().unwrap_or_default();
    let class = find(name).ok_or_else(|| {
        PgError::new(
            code::UNDEFINED_OBJECT,
            format!("operator class \"{name}\" does not exist for access method \"gin\""),
        )
    })?;
    let value = def.columns.first().and_then(|&c| row.get(c));
    let Some(value) = value.filter(|v| !v.is_null()) else {
        return Ok(Vec::new());
    };
    let mut keys = Vec::new();
    class.extract_value(value, &mut keys)?;
    keys.sort_unstable();
    keys.dedup();
    Ok(keys.into_iter().map(IKey::from_key).collect())
}

/// Which operator of class `class` `f` is, for a column of type `col` (None: not one it
/// serves). Operators are told by their function, as the planner binds them.
pub fn served_operator(
    class: &dyn GinOpclass,
    f: &crate::sql::types::ops::BinFn,
    col: Type,
) -> Option<&'static str> {
    use crate::sql::types::ops;
    if !class.accepts(col) {
        return None;
    }
    if let Some(name) = class.extension_operator(f) {
        return Some(name);
    }
    class.operators().iter().find_map(|&(name, right)| {
        let found = ops::binary_operators(name).iter().any(|op| {
            op.f as usize == *f as usize
                && (op.left == col || (op.left == Type::ANYARRAY && col.is_array()))
                && (op.right == right || op.right == Type::ANYARRAY)
        });
        let eq = name == "=" && (ops::is_equality(f) || is_generic_eq(f));
        (found || eq).then_some(name)
    })
}

/// Whether `f` is the planner's generic equality (what `a = b` binds to for types without a
/// function of their own, arrays among them).
fn is_generic_eq(f: &crate::sql::types::ops::BinFn) -> bool {
    crate::sql::types::ops::binary_operators("=")
        .iter()
        .any(|op| op.f as usize == *f as usize)
}

/// The rows of GIN index `index` of `rel` that `m` selects, sorted and without duplicates;
/// None when they are every row (`Match::Everything`, or more than [`MAX_BITMAP`] of them):
/// the caller then reads the whole table.
pub fn bitmap(rel: &Rel, index: Oid, m: &Match) -> Option<Vec<crate::storage::RowId>> {
    let tree = rel.data.tree(index);
    let (keys, all) = match m {
        Match::Everything => return None,
        Match::Nothing => return Some(Vec::new()),
        Match::All(k) => (k, true),
        Match::Any(k) => (k, false),
        Match::AtLeast(n, k) => return at_least(&tree, *n, k),
    };
    if all {
        // The rarest key's rows (PostgreSQL's "rare && frequent"): the keys are counted with a
        // cap that grows eightfold until one stays under it, so a key every row has (`"id"`
        // in `{"id": 7}`) is never read whole; keys under the cap narrow the list further,
        // the others are left to the recheck.
        let mut cap = 64usize;
        loop {
            let counts: Vec<usize> = keys.iter().map(|k| count(&tree, k, cap)).collect();
            let min = counts.iter().copied().min().unwrap_or(0);
            if min < cap || cap >= MAX_BITMAP {
                if min >= MAX_BITMAP {
                    return None;
                }
                let mut acc: Option<Vec<crate::storage::RowId>> = None;
                let mut order: Vec<usize> = (0..keys.len()).filter(|&i| counts[i] < cap).collect();
                order.sort_by_key(|&i| counts[i]);
                for i in order {
                    let rows = tree.rows_of(&keys[i]);
                    acc = Some(match acc {
                        None => rows,
                        Some(mut a) => {
                            a.retain(|r| rows.binary_search(r).is_ok());
                            a
                        }
                    });
                    if acc.as_ref().is_some_and(Vec::is_empty) {
                        break;
                    }
                }
                return Some(acc.unwrap_or_default());
            }
            cap = cap.saturating_mul(8).min(MAX_BITMAP);
        }
    }
    let mut acc = Vec::new();
    for k in keys {
        if count(&tree, k, MAX_BITMAP - acc.len()) >= MAX_BITMAP - acc.len() {
            return None;
        }
        acc.extend(tree.rows_of(k));
    }
    acc.sort_unstable();
    acc.dedup();
    Some(acc)
}

/// The rows of `tree` that have at least `n` of `keys` (`Match::AtLeast`); None past
/// [`MAX_BITMAP`] entries.
///
/// A row with `n` of the `k` keys has one of any `k - n + 1` of them, so the rows of the
/// `k - n + 1` rarest keys are the candidates; each candidate is then counted in the posting
/// lists of the other keys that are not much longer than the candidates (a key that most rows
/// have is left to the recheck, which is what PostgreSQL's "rare && frequent" does too).
fn at_least(tree: &super::KeyTree, n: usize, keys: &[Key]) -> Option<Vec<crate::storage::RowId>> {
    let k = keys.len();
    if n == 0 || k == 0 {
        return None;
    }
    let n = n.min(k);
    let rare = k - n + 1;
    // Counted with a cap that grows eightfold until `rare` keys stay under it, so that a key
    // most rows have is not read whole to be counted (a count at the cap is "at least").
    let (counts, cap) = rare_counts(tree, keys, rare, MAX_BITMAP);
    let mut order: Vec<usize> = (0..k).collect();
    order.sort_by_key(|&i| counts[i]);
    let base: usize = order[..rare].iter().map(|&i| counts[i]).sum();
    if base >= MAX_BITMAP || counts[order[rare - 1]] >= cap {
        return None;
    }
    // Each candidate with the number of keys it was found under.
    let mut hits: Vec<(crate::storage::RowId, u32)> = Vec::with_capacity(base);
    for &i in &order[..rare] {
        hits.extend(tree.rows_of(&keys[i]).into_iter().map(|r| (r, 1)));
    }
    hits.sort_unstable_by_key(|h| h.0);
    hits.dedup_by(|b, a| {
        if a.0 == b.0 {
            a.1 += b.1;
            true
        } else {
            false
        }
    });
    // The other keys, counted where reading them costs at most a few times the candidates.
    let mut checked = rare;
    for &i in &order[rare..] {
        if counts[i] >= cap || counts[i] > hits.len().saturating_mul(8).max(1024) {
            break;
        }
        checked += 1;
        for r in tree.rows_of(&keys[i]) {
            if let Ok(p) = hits.binary_search_by_key(&r, |h| h.0) {
                hits[p].1 += 1;
            }
        }
    }
    // A row needs `n` hits among the keys counted, less those it may have among the others.
    let need = n.saturating_sub(k - checked).max(1) as u32;
    Some(
        hits.into_iter()
            .filter(|h| h.1 >= need)
            .map(|h| h.0)
            .collect(),
    )
}

/// The entries of each of `keys`, counted with a cap that grows eightfold (up to `limit`)
/// until `rare` of them stay under it, so that a key most rows have is not read whole; a
/// count at the cap returned means "at least". Only the keys that reached a cap are counted
/// again with the next one.
fn rare_counts(
    tree: &super::KeyTree,
    keys: &[Key],
    rare: usize,
    limit: usize,
) -> (Vec<usize>, usize) {
    let mut cap = 64usize.min(limit.max(1));
    let mut counts: Vec<usize> = keys.iter().map(|key| count(tree, key, cap)).collect();
    while counts.iter().filter(|&&c| c < cap).count() < rare && cap < limit {
        let next = cap.saturating_mul(8).min(limit);
        for (c, key) in counts.iter_mut().zip(keys) {
            if *c >= cap {
                *c = count(tree, key, next);
            }
        }
        cap = next;
    }
    (counts, cap)
}

/// The entries of `key` in `tree`, counted up to `cap`.
fn count(tree: &super::KeyTree, key: &Key, cap: usize) -> usize {
    let mut n = 0usize;
    tree.scan(
        std::ops::Bound::Included(key),
        std::ops::Bound::Included(key),
        None,
        cap,
        |_, _| {
            n += 1;
            true
        },
    );
    n
}

/// About how many rows of GIN index `index` of `rel` `m` selects, for the planner: the
/// entries of the rarest key for `Match::All`, of all keys for `Match::Any` (dead entries
/// counted too); None for `Match::Everything`. Each key's entries are counted up to `cap`,
/// so planning reads at most `cap` entries per key.
pub fn estimate_rows(rel: &Rel, index: Oid, m: &Match, cap: usize) -> Option<f64> {
    let tree = rel.data.tree(index);
    match m {
        Match::Everything => None,
        Match::Nothing => Some(0.0),
        Match::All(keys) => {
            // The rarest key, found with a cap that grows as in `bitmap`.
            let mut c = 64usize.min(cap.max(1));
            loop {
                let min = keys.iter().map(|k| count(&tree, k, c)).min().unwrap_or(0);
                if min < c || c >= cap {
                    return Some(min as f64);
                }
                c = c.saturating_mul(8).min(cap);
            }
        }
        Match::Any(keys) => Some(keys.iter().map(|k| count(&tree, k, cap) as f64).sum()),
        // Such a row has one of any `k - n + 1` of the keys: the rarest ones bound them.
        Match::AtLeast(n, keys) => {
            let rare = keys.len() + 1 - (*n).clamp(1, keys.len().max(1));
            let (mut counts, _) = rare_counts(&tree, keys, rare, cap);
            counts.sort_unstable();
            Some(counts.iter().take(rare).map(|&c| c as f64).sum())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(s: &str) -> Value {
        Value::Text(s.to_string())
    }

    fn def(class: &str) -> IndexDef {
        IndexDef {
            oid: 1,
            name: "i".into(),
            columns: vec![0],
            unique: false,
            primary: false,
            exprs: None,
            hash: false,
            gin: Some(class.into()),
            include: vec![],
        }
    }

    #[test]
    fn jsonb_keys_are_sorted_and_distinct_and_null_has_none() {
        let d = def("jsonb_ops");
        let k = keys_of(&d, &[text(r#"{"a": 1, "b": [1, "a"], "c": {"a": 1.0}}"#)]).unwrap();
        let mut sorted = k.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(k.len(), sorted.len());
        // Keys a, b, c; number 1 (1.0 the same); the array's string "a" is the key "a".
        assert_eq!(k.len(), 4);
        assert!(keys_of(&d, &[Value::Null]).unwrap().is_empty());
    }

    #[test]
    fn a_query_matches_only_what_the_document_keys_allow() {
        let d = def("jsonb_path_ops");
        let row = keys_of(&d, &[text(r#"{"a": {"b": 1}, "c": "x"}"#)]).unwrap();
        let q = jsonb::JSONB_PATH_OPS
            .extract_query("@>", &text(r#"{"a": {"b": 1}}"#))
            .unwrap();
        let Match::All(keys) = q else { panic!() };
        assert!(keys.iter().all(|k| row.contains(&IKey::of(&k.0))));
        let q = jsonb::JSONB_PATH_OPS
            .extract_query("@>", &text(r#"{"b": 1}"#))
            .unwrap();
        let Match::All(keys) = q else { panic!() };
        assert!(!keys.iter().all(|k| row.contains(&IKey::of(&k.0))));
        assert_eq!(
            jsonb::JSONB_PATH_OPS
                .extract_query("@>", &text("{}"))
                .unwrap(),
            Match::Everything
        );
    }

    #[test]
    fn classes_are_found_by_name_and_type() {
        assert!(default_class(Type::JSONB, "jsonb").unwrap().name() == "jsonb_ops");
        assert!(default_class(Type::INT4_ARRAY, "integer[]").unwrap().name() == "array_ops");
        let e = default_class(Type::INT4, "integer").err().unwrap();
        assert_eq!(e.code, code::UNDEFINED_OBJECT);
        assert!(named_class("jsonb_path_ops", Type::INT4_ARRAY, "integer[]").is_err());
        assert!(named_class("nope", Type::JSONB, "jsonb").is_err());
    }
}
