//! Query texts that differ only in their numbers share one parse.
//!
//! Simple-protocol clients put values into the text: pgbench's tpcb-like sends
//! `UPDATE pgbench_accounts SET abalance = abalance + -2741 WHERE aid = 52342;` with new numbers
//! every time, so the cache of exact texts never hits and every statement pays PostgreSQL's
//! parser, the protobuf encoding of its tree and the decoding here (about a fifth of the server's
//! time in tpcb-like). This module lets such texts share the tree of the first one, the
//! *template*, with the numbers of each text put in where the analyzer reads them.
//!
//! **The shape.** [`shape`] scans a text the way PostgreSQL's lexer splits it (strings, quoted
//! names, dollar quotes and comments are skipped) and finds its integer literals: a run of digits
//! with no letter, digit, `_`, `$` or `.` against it. The key is the text with each such digit
//! replaced by `0` (an integer that fits int4, which the lexer makes an `Integer`) or `9` (a
//! larger one, which it makes a `Float`), so two texts with one key have their numbers at the
//! same places, of the same lengths and kinds, and everything else byte for byte equal: their
//! trees differ only in those numbers' values, and every location in the tree (error positions)
//! is the same.
//!
//! **Which node is which number.** The template's tree is walked once, completely, through the
//! `serde::Serialize` implementations the tree's types have (a visitor that outputs nothing), and
//! each `A_Const` is matched to its literal by its location (at the digits, or at a `-` before
//! them when the grammar folded a negation into the constant). What is kept is the *address* of
//! each matched constant in the template, which is shared and never changes: while a text of this
//! shape is analyzed (a [`Scope`] on the analyzing thread), `Planner::bind_const` asks
//! [`override_for`] with the constant it is binding and gets the text's own value. Constants
//! that are not the statement's own (a view's query, a column default, all parsed from other
//! texts) have other addresses and are never touched.
//!
//! **Safety net.** A number the analyzer reads directly instead of binding it as a value
//! (`ORDER BY 2`, `varchar(10)`, `SET x = 5`) would keep the template's value. So a text is
//! shaped only when every statement is a SELECT, INSERT, UPDATE or DELETE and every literal
//! matched exactly one constant; and after the analysis the scope checks that every literal of
//! the statement was bound. When one was not, the analysis is thrown away, the text is parsed on
//! its own, and the shape is marked so that its texts are parsed on their own from then on.
//!
//! Bounds: texts of at most `MAX_CACHED_TEXT` bytes, so at most half as many literals; the
//! shapes live in the parse cache's bounded LRU map beside the exact texts.

use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use pg_query::protobuf::{self, a_const::Val, node::Node as N};
use rustc_hash::FxHashMap;
use serde::ser::{self, Serialize};

use super::Parsed;

/// An integer literal of a text: its digits' byte range and whether it fits int4.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Lit {
    pub start: u32,
    pub len: u32,
}

fn ident_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'$' || b >= 0x80
}

/// Whether the digits (no sign) fit the lexer's int4.
fn fits_int4(digits: &[u8]) -> bool {
    let d = {
        let nz = digits
            .iter()
            .position(|&b| b != b'0')
            .unwrap_or(digits.len());
        &digits[nz..]
    };
    d.len() < 10 || (d.len() == 10 && d <= b"2147483647".as_slice())
}

/// The key of `text` and its integer literals, or None when it has none. Skips what is not
/// code the way PostgreSQL's lexer does; where this scan and the lexer could disagree, the
/// template check in [`Shape::new`] finds no constant for the literal and the text is not shaped.
pub fn shape(text: &str) -> Option<(String, Vec<Lit>)> {
    let b = text.as_bytes();
    if !b.iter().any(u8::is_ascii_digit) {
        return None;
    }
    let mut key = b.to_vec();
    let mut lits = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        match c {
            b'\'' => {
                // A string: '' inside; a backslash escapes (E'...' strings; in a standard
                // string this can only make the scan skip too much, which is safe).
                i += 1;
                while i < b.len() {
                    if b[i] == b'\\' {
                        i += 2;
                    } else if b[i] == b'\'' {
                        if b.get(i + 1) == Some(&b'\'') {
                            i += 2;
                        } else {
                            break;
                        }
                    } else {
                        i += 1;
                    }
                }
                i += 1;
            }
            b'"' => {
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    i += 1;
                }
                i += 1;
            }
            b'-' if b.get(i + 1) == Some(&b'-') => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                let mut depth = 0;
                while i < b.len() {
                    if b[i] == b'/' && b.get(i + 1) == Some(&b'*') {
                        depth += 1;
                        i += 2;
                    } else if b[i] == b'*' && b.get(i + 1) == Some(&b'/') {
                        depth -= 1;
                        i += 2;
                        if depth == 0 {
                            break;
                        }
                    } else {
                        i += 1;
                    }
                }
            }
            b'$' if i == 0 || !ident_byte(b[i - 1]) => {
                // A dollar quote `$tag$ ... $tag$` (not a parameter `$1`).
                let tag_end = b[i + 1..]
                    .iter()
                    .position(|&x| !(x.is_ascii_alphabetic() || x == b'_' || x >= 0x80))
                    .map(|p| i + 1 + p);
                match tag_end {
                    Some(e) if b[e] == b'$' => {
                        let tag = &b[i..=e];
                        let body = e + 1;
                        match b[body..].windows(tag.len()).position(|w| w == tag) {
                            Some(p) => i = body + p + tag.len(),
                            None => i = b.len(),
                        }
                    }
                    _ => {
                        // `$1` and the like: the digits belong to the parameter.
                        i += 1;
                        while i < b.len() && ident_byte(b[i]) {
                            i += 1;
                        }
                    }
                }
            }
            _ if ident_byte(c) && !c.is_ascii_digit() => {
                while i < b.len() && ident_byte(b[i]) {
                    i += 1;
                }
            }
            _ if c.is_ascii_digit() => {
                let start = i;
                while i < b.len() && b[i].is_ascii_digit() {
                    i += 1;
                }
                let before = start.checked_sub(1).map(|p| b[p]);
                let after = b.get(i).copied();
                let joined = before.is_some_and(|x| ident_byte(x) || x == b'.')
                    || after.is_some_and(|x| ident_byte(x) || x == b'.');
                if joined {
                    // 1.5, 1e5, 0x1F, 1_000: kept as they are in the key.
                    while i < b.len() && (ident_byte(b[i]) || b[i] == b'.') {
                        i += 1;
                    }
                    continue;
                }
                let fill = if fits_int4(&b[start..i]) { b'0' } else { b'9' };
                key[start..i].fill(fill);
                lits.push(Lit {
                    start: start as u32,
                    len: (i - start) as u32,
                });
            }
            _ => i += 1,
        }
    }
    if lits.is_empty() {
        return None;
    }
    // Only ASCII digits were replaced by ASCII digits: still UTF-8.
    let key = String::from_utf8(key).ok()?;
    Some((key, lits))
}

/// A template: a parsed text and, for each of its constants that stands for a literal, which.
pub struct Shape {
    pub template: Arc<Parsed>,
    lits: Vec<Lit>,
    /// Address of a matched `A_Const`'s `location` field → (literal, negated).
    slots: FxHashMap<usize, (u32, bool)>,
    /// Set when an analysis did not bind every literal: texts of this shape are parsed alone.
    poisoned: AtomicBool,
}

impl std::fmt::Debug for Shape {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Shape").field("lits", &self.lits).finish()
    }
}

impl Shape {
    /// The shape of a freshly parsed text, or None when it cannot share its tree (see the
    /// module header).
    pub fn new(template: Arc<Parsed>, lits: Vec<Lit>) -> Option<Shape> {
        if template.stmts.is_empty()
            || !template.stmts.iter().all(|s| {
                matches!(
                    s.node,
                    N::SelectStmt(_) | N::InsertStmt(_) | N::UpdateStmt(_) | N::DeleteStmt(_)
                )
            })
        {
            return None;
        }
        let mut walker = Walker::default();
        for s in template.stmts.iter() {
            s.node.serialize(&mut walker).ok()?;
        }
        let text = template.text.as_bytes();
        let mut slots = FxHashMap::default();
        let mut matched = vec![0u32; lits.len()];
        for (addr, location) in walker.consts {
            let Ok(mut at) = usize::try_from(location) else {
                continue;
            };
            let negated = text.get(at) == Some(&b'-');
            if negated {
                at += 1;
                while text.get(at).is_some_and(|c| c.is_ascii_whitespace()) {
                    at += 1;
                }
            }
            let Ok(k) = lits.binary_search_by_key(&(at as u32), |l| l.start) else {
                continue;
            };
            matched[k] += 1;
            slots.insert(addr, (k as u32, negated));
        }
        if matched.iter().any(|&m| m != 1) {
            return None;
        }
        Some(Shape {
            template,
            lits,
            slots,
            poisoned: AtomicBool::new(false),
        })
    }

    pub fn poisoned(&self) -> bool {
        self.poisoned.load(Ordering::Relaxed)
    }
}

/// The numbers of one text of a shape.
#[derive(Debug)]
pub struct Bound {
    pub shape: Arc<Shape>,
    /// The text the numbers are read from (same literal places as the template's).
    pub text: Arc<str>,
}

impl Bound {
    fn value(&self, k: usize, negated: bool) -> Val {
        let l = self.shape.lits[k];
        let digits = &self.text[l.start as usize..(l.start + l.len) as usize];
        if fits_int4(digits.as_bytes()) {
            let v: i64 = digits.parse().unwrap_or(0);
            let v = if negated { -v } else { v };
            Val::Ival(protobuf::Integer { ival: v as i32 })
        } else {
            let fval = if negated {
                format!("-{digits}")
            } else {
                digits.to_string()
            };
            Val::Fval(protobuf::Float { fval })
        }
    }
}

struct Active {
    bound: Arc<Bound>,
    /// Literals of the statement being analyzed, and whether each was bound.
    first: usize,
    bound_flags: Vec<bool>,
}

thread_local! {
    static ACTIVE: RefCell<Option<Active>> = const { RefCell::new(None) };
}

/// While alive, constants of `bound`'s template bind to `bound`'s numbers on this thread.
pub struct Scope {
    bound: Arc<Bound>,
}

/// Enters the scope for statement `index` of `bound`'s text (None when it has no literal).
pub fn enter(bound: &Arc<Bound>, index: usize) -> Option<Scope> {
    let stmt = bound.shape.template.stmts.get(index)?;
    let (lo, hi) = (stmt.location as u32, (stmt.location + stmt.len) as u32);
    let lits = &bound.shape.lits;
    let first = lits.partition_point(|l| l.start < lo);
    let end = lits.partition_point(|l| l.start < hi);
    if first == end {
        return None;
    }
    ACTIVE.with(|a| {
        *a.borrow_mut() = Some(Active {
            bound: bound.clone(),
            first,
            bound_flags: vec![false; end - first],
        })
    });
    Some(Scope {
        bound: bound.clone(),
    })
}

impl Scope {
    /// Whether every literal of the statement was bound as a value since the scope began.
    pub fn complete(&self) -> bool {
        ACTIVE.with(|a| {
            a.borrow()
                .as_ref()
                .is_some_and(|a| a.bound_flags.iter().all(|&f| f))
        })
    }

    /// Marks the shape: its texts are parsed alone from now on.
    pub fn poison(&self) {
        self.bound.shape.poisoned.store(true, Ordering::Relaxed);
    }
}

impl Drop for Scope {
    fn drop(&mut self) {
        ACTIVE.with(|a| *a.borrow_mut() = None);
    }
}

/// The value `c` stands for in the text being analyzed, when `c` is one of its template's
/// literal constants.
pub fn override_for(c: &protobuf::AConst) -> Option<Val> {
    ACTIVE.with(|a| {
        let mut a = a.borrow_mut();
        let a = a.as_mut()?;
        let addr = &c.location as *const i32 as usize;
        let &(k, negated) = a.bound.shape.slots.get(&addr)?;
        let k = k as usize;
        if let Some(f) = k
            .checked_sub(a.first)
            .and_then(|j| a.bound_flags.get_mut(j))
        {
            *f = true;
        }
        Some(a.bound.value(k, negated))
    })
}

// ------------------------------------------------------------------ the tree walk

/// A serializer that writes nothing and records, for every `A_Const` of the tree, the address
/// of its `location` field and the location.
#[derive(Default)]
struct Walker {
    consts: Vec<(usize, i32)>,
}

#[derive(Debug)]
struct WalkError;

impl std::fmt::Display for WalkError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("walk error")
    }
}

impl std::error::Error for WalkError {}

impl ser::Error for WalkError {
    fn custom<T: std::fmt::Display>(_: T) -> Self {
        WalkError
    }
}

/// Reads an i32 serialized through the walker (the `location` field).
struct I32Probe(Option<i32>);

macro_rules! ignore_scalars {
    ($($f:ident: $t:ty),*) => {
        $(fn $f(self, _: $t) -> Result<(), WalkError> { Ok(()) })*
    };
}

/// The values without content (None, `()`, unit structs and variants), which both serializers
/// pass over.
macro_rules! ignore_units {
    () => {
        fn serialize_none(self) -> Result<(), WalkError> {
            Ok(())
        }
        fn serialize_unit(self) -> Result<(), WalkError> {
            Ok(())
        }
        fn serialize_unit_struct(self, _: &'static str) -> Result<(), WalkError> {
            Ok(())
        }
        fn serialize_unit_variant(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
        ) -> Result<(), WalkError> {
            Ok(())
        }
    };
}

impl ser::Serializer for &mut I32Probe {
    type Ok = ();
    type Error = WalkError;
    type SerializeSeq = ser::Impossible<(), WalkError>;
    type SerializeTuple = ser::Impossible<(), WalkError>;
    type SerializeTupleStruct = ser::Impossible<(), WalkError>;
    type SerializeTupleVariant = ser::Impossible<(), WalkError>;
    type SerializeMap = ser::Impossible<(), WalkError>;
    type SerializeStruct = ser::Impossible<(), WalkError>;
    type SerializeStructVariant = ser::Impossible<(), WalkError>;
    fn serialize_i32(self, v: i32) -> Result<(), WalkError> {
        self.0 = Some(v);
        Ok(())
    }
    ignore_scalars!(serialize_bool: bool, serialize_i8: i8, serialize_i16: i16, serialize_i64: i64,
        serialize_u8: u8, serialize_u16: u16, serialize_u32: u32, serialize_u64: u64,
        serialize_f32: f32, serialize_f64: f64, serialize_char: char, serialize_str: &str,
        serialize_bytes: &[u8]);
    ignore_units!();
    fn serialize_some<T: ?Sized + Serialize>(self, _: &T) -> Result<(), WalkError> {
        Err(WalkError)
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: &T,
    ) -> Result<(), WalkError> {
        Err(WalkError)
    }
    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<(), WalkError> {
        Err(WalkError)
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq, WalkError> {
        Err(WalkError)
    }
    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple, WalkError> {
        Err(WalkError)
    }
    fn serialize_tuple_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleStruct, WalkError> {
        Err(WalkError)
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant, WalkError> {
        Err(WalkError)
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap, WalkError> {
        Err(WalkError)
    }
    fn serialize_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStruct, WalkError> {
        Err(WalkError)
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant, WalkError> {
        Err(WalkError)
    }
}

impl<'a> Walker {
    /// The walker inside a compound value that is not an A_Const.
    fn nested(&'a mut self) -> Nested<'a> {
        Nested {
            w: self,
            is_const: false,
        }
    }
}

impl<'a> ser::Serializer for &'a mut Walker {
    type Ok = ();
    type Error = WalkError;
    type SerializeSeq = Nested<'a>;
    type SerializeTuple = Nested<'a>;
    type SerializeTupleStruct = Nested<'a>;
    type SerializeTupleVariant = Nested<'a>;
    type SerializeMap = Nested<'a>;
    type SerializeStruct = Nested<'a>;
    type SerializeStructVariant = Nested<'a>;
    ignore_scalars!(serialize_bool: bool, serialize_i8: i8, serialize_i16: i16, serialize_i32: i32,
        serialize_i64: i64, serialize_u8: u8, serialize_u16: u16, serialize_u32: u32,
        serialize_u64: u64, serialize_f32: f32, serialize_f64: f64, serialize_char: char,
        serialize_str: &str, serialize_bytes: &[u8]);
    ignore_units!();
    fn serialize_some<T: ?Sized + Serialize>(self, v: &T) -> Result<(), WalkError> {
        v.serialize(self)
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        v: &T,
    ) -> Result<(), WalkError> {
        v.serialize(self)
    }
    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        v: &T,
    ) -> Result<(), WalkError> {
        v.serialize(self)
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Nested<'a>, WalkError> {
        Ok(self.nested())
    }
    fn serialize_tuple(self, _: usize) -> Result<Nested<'a>, WalkError> {
        Ok(self.nested())
    }
    fn serialize_tuple_struct(self, _: &'static str, _: usize) -> Result<Nested<'a>, WalkError> {
        Ok(self.nested())
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Nested<'a>, WalkError> {
        Ok(self.nested())
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Nested<'a>, WalkError> {
        Ok(self.nested())
    }
    fn serialize_struct(self, name: &'static str, _: usize) -> Result<Nested<'a>, WalkError> {
        Ok(Nested {
            w: self,
            is_const: name == "AConst",
        })
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Nested<'a>, WalkError> {
        Ok(self.nested())
    }
}

/// The walker inside a compound value.
struct Nested<'a> {
    w: &'a mut Walker,
    is_const: bool,
}

impl Nested<'_> {
    fn element<T: ?Sized + Serialize>(&mut self, v: &T) -> Result<(), WalkError> {
        // Too deep to walk: the text gets no shape and is analysed on its own.
        if crate::stack::exceeded() {
            return Err(WalkError);
        }
        v.serialize(&mut *self.w)
    }
}

/// The compound kinds whose parts are visited alike: each part walked, nothing at the end.
macro_rules! visit_parts {
    ($($trait:ident::$method:ident),*) => {
        $(impl ser::$trait for Nested<'_> {
            type Ok = ();
            type Error = WalkError;
            fn $method<T: ?Sized + Serialize>(&mut self, v: &T) -> Result<(), WalkError> {
                self.element(v)
            }
            fn end(self) -> Result<(), WalkError> {
                Ok(())
            }
        })*
    };
}

visit_parts!(
    SerializeSeq::serialize_element,
    SerializeTuple::serialize_element,
    SerializeTupleStruct::serialize_field,
    SerializeTupleVariant::serialize_field
);

impl ser::SerializeMap for Nested<'_> {
    type Ok = ();
    type Error = WalkError;
    fn serialize_key<T: ?Sized + Serialize>(&mut self, k: &T) -> Result<(), WalkError> {
        self.element(k)
    }
    fn serialize_value<T: ?Sized + Serialize>(&mut self, v: &T) -> Result<(), WalkError> {
        self.element(v)
    }
    fn end(self) -> Result<(), WalkError> {
        Ok(())
    }
}

impl ser::SerializeStruct for Nested<'_> {
    type Ok = ();
    type Error = WalkError;
    fn serialize_field<T: ?Sized + Serialize>(
        &mut self,
        key: &'static str,
        v: &T,
    ) -> Result<(), WalkError> {
        if self.is_const && key == "location" {
            let mut probe = I32Probe(None);
            v.serialize(&mut probe)?;
            let location = probe.0.ok_or(WalkError)?;
            self.w
                .consts
                .push((v as *const T as *const () as usize, location));
            return Ok(());
        }
        self.element(v)
    }
    fn end(self) -> Result<(), WalkError> {
        Ok(())
    }
}

impl ser::SerializeStructVariant for Nested<'_> {
    type Ok = ();
    type Error = WalkError;
    fn serialize_field<T: ?Sized + Serialize>(
        &mut self,
        _: &'static str,
        v: &T,
    ) -> Result<(), WalkError> {
        self.element(v)
    }
    fn end(self) -> Result<(), WalkError> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(t: &str) -> Option<String> {
        shape(t).map(|(k, _)| k)
    }

    #[test]
    fn keys_hide_numbers_only() {
        assert_eq!(
            key("UPDATE t SET a = a + -2741 WHERE aid = 52342;").as_deref(),
            Some("UPDATE t SET a = a + -0000 WHERE aid = 00000;")
        );
        assert_eq!(key("SELECT 1.5, t1.c2, $1, 1e5, x").as_deref(), None);
        assert_eq!(
            key("SELECT '5', \"c7\", 3 -- 4\n, /* 6 /* 7 */ */ 8, $$9$$, $q$ 1 $q$").as_deref(),
            Some("SELECT '5', \"c7\", 0 -- 4\n, /* 6 /* 7 */ */ 0, $$9$$, $q$ 1 $q$")
        );
        assert_eq!(
            key("SELECT 2147483647, 2147483648, 0000000000002").as_deref(),
            Some("SELECT 0000000000, 9999999999, 0000000000000")
        );
    }

    fn bound_values(template: &str, text: &str) -> Option<Vec<(String, String)>> {
        let (k1, lits) = shape(template)?;
        let (k2, _) = shape(text)?;
        assert_eq!(k1, k2);
        let parsed = Arc::new(super::super::parse_uncached(template).unwrap());
        let shape = Arc::new(Shape::new(parsed.clone(), lits)?);
        let b = Arc::new(Bound {
            shape: shape.clone(),
            text: Arc::from(text),
        });
        let mut out = Vec::new();
        let mut walker = Walker::default();
        parsed.stmts[0].node.serialize(&mut walker).unwrap();
        let _scope = enter(&b, 0)?;
        for (addr, loc) in walker.consts {
            // SAFETY (test): the address is an A_Const's location field in the live template.
            let c = unsafe {
                &*((addr - std::mem::offset_of!(protobuf::AConst, location))
                    as *const protobuf::AConst)
            };
            assert_eq!(c.location, loc);
            let v = override_for(c).map(|v| format!("{v:?}"));
            out.push((format!("{:?}", c.val), v.unwrap_or_default()));
        }
        Some(out)
    }

    #[test]
    fn negated_and_large_numbers_take_the_new_values() {
        let v = bound_values(
            "SELECT -5, - 7, 3, 2147483648, -2147483648, 'x'",
            "SELECT -6, - 8, 4, 3000000000, -3000000000, 'x'",
        )
        .unwrap();
        let news: Vec<&str> = v.iter().map(|(_, n)| n.as_str()).collect();
        assert_eq!(
            news,
            [
                "Ival(Integer { ival: -6 })",
                "Ival(Integer { ival: -8 })",
                "Ival(Integer { ival: 4 })",
                "Fval(Float { fval: \"3000000000\" })",
                "Fval(Float { fval: \"-3000000000\" })",
                "",
            ]
        );
    }

    #[test]
    fn utility_statements_are_not_shaped() {
        assert!(bound_values("SET extra_float_digits = 3", "SET extra_float_digits = 2").is_none());
    }
}
