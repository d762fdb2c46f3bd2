//! citext, the case-insensitive text type of the citext extension: its values, their order and
//! their hash.
//!
//! # Design
//!
//! A citext value is held as [`Value::CiText`]: the string as it was written (output, casts to
//! text and every text function see it unchanged), compared, sorted and hashed by its
//! lower-case form ([`cmp`], [`hash`]), as PostgreSQL's citext_cmp and citext_hash compare
//! `lower()` of both sides.
//!
//! Values in threadgres do not carry their type, and everything that orders or groups values
//! (ORDER BY, DISTINCT, GROUP BY, set operations, hash joins, min / max, btree index keys,
//! UNIQUE checks and their key locks, foreign-key lookups, ON CONFLICT) goes through one total
//! order (`ops::compare_values`) and the hashes beside it. Holding citext as plain
//! `Value::Text` would leave each of those places to learn the column's type and fold the
//! value itself; a variant of its own makes all of them right at once, arrays and records of
//! citext included, at the cost of one more arm where values are written (text and binary
//! I/O, the stored row form: `engine/packed.rs` tag `CITEXT`).
//!
//! The type's OID is made by CREATE EXTENSION (`func/extension/citext.rs` lists its functions
//! and operators); `Type::is_citext` recognizes it. Casts (`cast.rs`): citext to text and
//! varchar implicitly, to bpchar by assignment; text, varchar, bpchar (blanks trimmed), name,
//! boolean and inet to citext by assignment, as the extension's script declares them. A cast
//! to text gives `Value::Text`, so `citext = text` compares as text (case-sensitively), as
//! PostgreSQL resolves it.
//!
//! Lower-casing is Rust's Unicode `to_lowercase`, the same as threadgres's `lower()` (PostgreSQL
//! folds with the database's LC_CTYPE; the harness's C.UTF-8 folds the same letters).
//!
//! # Bounds
//!
//! A comparison folds both strings into new ones (linear in their lengths, no recursion).

use std::cmp::Ordering;
use std::hash::{Hash, Hasher};

/// The lower-case form citext compares by.
pub fn fold(s: &str) -> String {
    s.to_lowercase()
}

/// citext_cmp: the order of the lower-case forms (bytewise, the C collation threadgres uses).
/// ASCII-only strings are compared without allocating.
pub fn cmp(a: &str, b: &str) -> Ordering {
    if a.is_ascii() && b.is_ascii() {
        let x = a.bytes().map(|c| c.to_ascii_lowercase());
        return x.cmp(b.bytes().map(|c| c.to_ascii_lowercase()));
    }
    fold(a).cmp(&fold(b))
}

/// Hashes the lower-case form, so that values [`cmp`] finds equal hash equally (always through
/// the folded string: hashers need not give the same result for the same bytes written in
/// other pieces).
pub fn hash<H: Hasher>(s: &str, h: &mut H) {
    fold(s).hash(h);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sql::types::{compare, Value};
    use std::hash::DefaultHasher;

    fn h(s: &str) -> u64 {
        let mut x = DefaultHasher::new();
        hash(s, &mut x);
        x.finish()
    }

    #[test]
    fn folds_case_in_order_and_hash() {
        assert_eq!(cmp("A@x", "a@X"), Ordering::Equal);
        assert_eq!(cmp("a", "B"), Ordering::Less);
        assert_eq!(cmp("ÄÖ", "äö"), Ordering::Equal);
        // The Kelvin sign folds to an ASCII k: the two paths agree.
        assert_eq!(cmp("\u{212A}", "K"), Ordering::Equal);
        assert_eq!(h("\u{212A}"), h("k"));
        assert_eq!(h("ABC"), h("abc"));
        let (a, b) = (Value::CiText("Abc".into()), Value::CiText("aBC".into()));
        assert_eq!(compare(&a, &b), Ordering::Equal);
        assert_eq!(compare(&a, &Value::CiText("abd".into())), Ordering::Less);
    }
}
