//! Index keys as the trees store them: common keys inline, the rest in one thin allocation.
//!
//! The engine's [`Key`](super::Key) is a `Box<[Value]>`: 16 bytes in a tree entry plus a
//! 32-byte-per-column allocation, for an integer key of 4 bytes. An [`IKey`] is 16 bytes and
//! keeps one integer, date, time, timestamp or boolean column, or two or three int4 columns,
//! inline (no allocation: pgbench's keys, most primary keys, and TPC-C's composite keys such
//! as (warehouse, district, customer)); any other key is a [`ThinVals`], one allocation holding
//! its length and values.
//!
//! Order and equality are exactly the engine's key order (`cmp_slices`: column by column,
//! NULLs last, then the shorter key first): two keys of the same inline kind compare directly
//! (the same result as comparing their values, which the tests check), anything else compares
//! the values the keys stand for. So a tree mixing representations (a probe key of another
//! integer width, a prefix of a two-column key) is ordered as before.

use std::alloc::{self, Layout};
use std::cmp::Ordering;
use std::ptr::NonNull;

use super::{cmp_slices, Key};
use crate::sql::types::Value;

/// Which integer type an inline integer key came from (integers compare by value whatever
/// their width, as `types::compare` does, so the kind matters only to give the value back).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IntKind {
    I2,
    I4,
    I8,
    Oid,
}

/// A key as stored in a tree (see the module documentation).
#[derive(Clone, Debug)]
pub enum IKey {
    /// One NULL column.
    Null,
    Bool(bool),
    Int(IntKind, i64),
    Date(i32),
    Time(i64),
    Ts(i64),
    Tstz(i64),
    /// Two non-null int4 columns.
    Int4x2(i32, i32),
    /// Three non-null int4 columns (still 16 bytes: the tag, then three 4-byte fields).
    Int4x3(i32, i32, i32),
    /// Any other key.
    Vals(ThinVals),
}

impl IKey {
    /// The stored form of a key's values.
    pub fn of(vals: &[Value]) -> IKey {
        Self::inline(vals).unwrap_or_else(|| IKey::Vals(ThinVals::from_slice(vals)))
    }

    /// The stored form of an owned key (moves the values when they are not inline).
    pub fn from_key(k: Key) -> IKey {
        Self::inline(&k.0).unwrap_or_else(|| IKey::Vals(ThinVals::new(k.0.into_vec())))
    }

    /// The stored key of `row` for an index over `columns` (no allocation for inline keys).
    pub fn of_columns(row: &[Value], columns: &[usize]) -> IKey {
        let col = |c: usize| row.get(c).cloned().unwrap_or(Value::Null);
        match *columns {
            [c] => Self::of(std::slice::from_ref(&col(c))),
            [a, b] => Self::of(&[col(a), col(b)]),
            [a, b, c] => Self::of(&[col(a), col(b), col(c)]),
            _ => IKey::Vals(ThinVals::new(columns.iter().map(|&c| col(c)).collect())),
        }
    }

    fn inline(vals: &[Value]) -> Option<IKey> {
        Some(match vals {
            [v] => match *v {
                Value::Null => IKey::Null,
                Value::Bool(b) => IKey::Bool(b),
                Value::Int2(i) => IKey::Int(IntKind::I2, i as i64),
                Value::Int4(i) => IKey::Int(IntKind::I4, i as i64),
                Value::Int8(i) => IKey::Int(IntKind::I8, i),
                Value::Oid(i) => IKey::Int(IntKind::Oid, i as i64),
                Value::Date(d) => IKey::Date(d),
                Value::Time(t) => IKey::Time(t),
                Value::Timestamp(t) => IKey::Ts(t),
                Value::TimestampTz(t) => IKey::Tstz(t),
                _ => return None,
            },
            [Value::Int4(a), Value::Int4(b)] => IKey::Int4x2(*a, *b),
            [Value::Int4(a), Value::Int4(b), Value::Int4(c)] => IKey::Int4x3(*a, *b, *c),
            _ => return None,
        })
    }

    /// Runs `f` on the values this key stands for (inline keys build them on the stack).
    pub fn with_values<T>(&self, f: impl FnOnce(&[Value]) -> T) -> T {
        let v = match *self {
            IKey::Null => Value::Null,
            IKey::Bool(b) => Value::Bool(b),
            IKey::Int(k, i) => match k {
                IntKind::I2 => Value::Int2(i as i16),
                IntKind::I4 => Value::Int4(i as i32),
                IntKind::I8 => Value::Int8(i),
                IntKind::Oid => Value::Oid(i as u32),
            },
            IKey::Date(d) => Value::Date(d),
            IKey::Time(t) => Value::Time(t),
            IKey::Ts(t) => Value::Timestamp(t),
            IKey::Tstz(t) => Value::TimestampTz(t),
            IKey::Int4x2(a, b) => return f(&[Value::Int4(a), Value::Int4(b)]),
            IKey::Int4x3(a, b, c) => return f(&[Value::Int4(a), Value::Int4(b), Value::Int4(c)]),
            IKey::Vals(ref v) => return f(v.as_slice()),
        };
        f(std::slice::from_ref(&v))
    }

    /// The engine's form of this key.
    pub fn to_key(&self) -> Key {
        self.with_values(|v| Key(v.into()))
    }
}

impl Ord for IKey {
    /// Inlined for the common integer key (tree searches compare keys a few dozen times per
    /// lookup or insert); the other kinds in [`IKey::cmp_other`].
    #[inline]
    fn cmp(&self, o: &Self) -> Ordering {
        match (self, o) {
            (IKey::Int(_, a), IKey::Int(_, b)) => a.cmp(b),
            _ => self.cmp_other(o),
        }
    }
}

impl IKey {
    #[inline(never)]
    fn cmp_other(&self, o: &Self) -> Ordering {
        use IKey::*;
        match (self, o) {
            (Int(_, a), Int(_, b)) => a.cmp(b),
            (Int4x2(a1, a2), Int4x2(b1, b2)) => (a1, a2).cmp(&(b1, b2)),
            (Int4x3(a1, a2, a3), Int4x3(b1, b2, b3)) => (a1, a2, a3).cmp(&(b1, b2, b3)),
            (Null, Null) => Ordering::Equal,
            (Bool(a), Bool(b)) => a.cmp(b),
            (Date(a), Date(b)) => a.cmp(b),
            (Time(a), Time(b)) => a.cmp(b),
            (Ts(a), Ts(b)) => a.cmp(b),
            (Tstz(a), Tstz(b)) => a.cmp(b),
            (Vals(a), Vals(b)) => cmp_slices(a.as_slice(), b.as_slice()),
            _ => self.with_values(|a| o.with_values(|b| cmp_slices(a, b))),
        }
    }
}

impl PartialOrd for IKey {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}

impl PartialEq for IKey {
    fn eq(&self, o: &Self) -> bool {
        self.cmp(o) == Ordering::Equal
    }
}

impl Eq for IKey {}

// A tree entry holds one key: growing past 16 bytes would grow every index.
const _: () = assert!(std::mem::size_of::<IKey>() == 16);

/// Values behind a thin pointer: one allocation holding the count and the values, 8 bytes
/// where a `Box<[Value]>` takes 16 (a tree entry holds one per key that is not inline).
pub struct ThinVals(NonNull<usize>);

// SAFETY: ThinVals owns its values exclusively, like a Box<[Value]>, and Value is Send + Sync.
unsafe impl Send for ThinVals {}
unsafe impl Sync for ThinVals {}

/// The allocation's layout for `n` values and the values' offset in it.
fn layout(n: usize) -> (Layout, usize) {
    // A key has at most 32 columns (INDEX_MAX_KEYS), far from any size overflow.
    Layout::new::<usize>()
        .extend(Layout::array::<Value>(n).expect("key size fits"))
        .expect("key size fits")
}

impl ThinVals {
    /// Moves `vals` into a thin allocation.
    pub fn new(vals: Vec<Value>) -> ThinVals {
        let n = vals.len();
        let mut it = vals.into_iter();
        Self::build(n, || it.next().unwrap_or(Value::Null))
    }

    /// Copies `vals` into a thin allocation.
    pub fn from_slice(vals: &[Value]) -> ThinVals {
        let mut it = vals.iter();
        Self::build(vals.len(), || it.next().cloned().unwrap_or(Value::Null))
    }

    /// An allocation of `n` values, made by `next`.
    fn build(n: usize, mut next: impl FnMut() -> Value) -> ThinVals {
        let (lay, off) = layout(n);
        // SAFETY: `lay` has a non-zero size (it holds the count); exactly `n` values are
        // written before the count is set and the pointer used. (Were `next` to panic, the
        // allocation would leak, never be freed with a wrong layout.)
        unsafe {
            let p = alloc::alloc(lay);
            let Some(p) = NonNull::new(p) else {
                alloc::handle_alloc_error(lay)
            };
            let vals = p.as_ptr().add(off).cast::<Value>();
            for i in 0..n {
                vals.add(i).write(next());
            }
            let head = p.cast::<usize>();
            head.as_ptr().write(n);
            ThinVals(head)
        }
    }

    pub fn as_slice(&self) -> &[Value] {
        // SAFETY: the allocation holds the count and that many initialized values, and lives
        // as long as `self`.
        unsafe {
            let n = *self.0.as_ptr();
            let (_, off) = layout(n);
            let vals = self.0.as_ptr().cast::<u8>().add(off).cast::<Value>();
            std::slice::from_raw_parts(vals, n)
        }
    }
}

impl Drop for ThinVals {
    fn drop(&mut self) {
        // SAFETY: as in `as_slice`; the values are dropped once and the memory freed with the
        // layout it was allocated with (`layout` of the recorded count).
        unsafe {
            let n = *self.0.as_ptr();
            let (lay, off) = layout(n);
            let vals = self.0.as_ptr().cast::<u8>().add(off).cast::<Value>();
            std::ptr::drop_in_place(std::ptr::slice_from_raw_parts_mut(vals, n));
            alloc::dealloc(self.0.as_ptr().cast(), lay);
        }
    }
}

impl Clone for ThinVals {
    fn clone(&self) -> Self {
        ThinVals::from_slice(self.as_slice())
    }
}

impl std::fmt::Debug for ThinVals {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.as_slice().fmt(f)
    }
}
