//! fuzzystrmatch: edit distance (levenshtein, with or without operation costs) and Soundex
//! (soundex, text_soundex, difference).
//!
//! Levenshtein counts characters, not bytes, and refuses strings over 255 characters as
//! PostgreSQL does (its work is the product of the lengths). Soundex reads ASCII letters only:
//! other characters are skipped before the first letter and break runs of equal codes after
//! it, as PostgreSQL's byte-wise isalpha gives in a UTF-8 database. The metaphone functions
//! and levenshtein_less_equal (whose answer past the bound is whatever PostgreSQL's
//! algorithm stops at) are not built.

use super::{ExtFunc, ExtSpec};
use crate::error::{code, PgError, PgResult};
use crate::sql::func::args::{int, text, txt};
use crate::sql::func::ScalarFn;
use crate::sql::types::{FormatCtx, Type, Value};

const T: (&str, Type) = ("", Type::TEXT);
const I: (&str, Type) = ("", Type::INT4);

/// An immutable, strict function, as all of fuzzystrmatch's are.
const fn f(
    name: &'static str,
    args: &'static [(&'static str, Type)],
    returns: Type,
    symbol: &'static str,
) -> ExtFunc {
    ExtFunc::new(name, args, returns, symbol, 'i', true)
}

pub(super) const SPEC: ExtSpec = ExtSpec {
    name: "fuzzystrmatch",
    version: "1.1",
    comment: "determine similarities and distance between strings",
    relocatable: true,
    types: &[],
    functions: &[
        f("levenshtein", &[T, T], Type::INT4, "levenshtein"),
        f(
            "levenshtein",
            &[T, T, I, I, I],
            Type::INT4,
            "levenshtein_with_costs",
        ),
        f("soundex", &[T], Type::TEXT, "soundex"),
        f("text_soundex", &[T], Type::TEXT, "soundex"),
        f("difference", &[T, T], Type::INT4, "difference"),
    ],
};

pub(super) fn symbol(s: &str) -> Option<ScalarFn> {
    Some(match s {
        "levenshtein" => |a, _| levenshtein_of(a, (1, 1, 1)),
        "levenshtein_with_costs" => levenshtein_with_costs,
        "soundex" => |a, _| Ok(text(soundex(txt(&a[0])?))),
        "difference" => difference,
        _ => return None,
    })
}

/// PostgreSQL's bound on each argument of levenshtein, in characters.
const MAX_LEVENSHTEIN_CHARS: usize = 255;

fn cost(v: &Value) -> PgResult<i64> {
    int(v)
}

fn levenshtein_with_costs(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    levenshtein_of(a, (cost(&a[2])?, cost(&a[3])?, cost(&a[4])?))
}

/// The cheapest edit of the first string into the second, each insertion, deletion and
/// substitution costing as given.
fn levenshtein_of(a: &[Value], (ins, del, sub): (i64, i64, i64)) -> PgResult<Value> {
    let s: Vec<char> = txt(&a[0])?.chars().collect();
    let t: Vec<char> = txt(&a[1])?.chars().collect();
    if s.len() > MAX_LEVENSHTEIN_CHARS || t.len() > MAX_LEVENSHTEIN_CHARS {
        return Err(PgError::new(
            code::INVALID_PARAMETER_VALUE,
            format!(
                "levenshtein argument exceeds maximum length of {MAX_LEVENSHTEIN_CHARS} characters"
            ),
        ));
    }
    // One row of the distance table at a time.
    let mut prev: Vec<i64> = (0..=t.len() as i64).map(|j| j * ins).collect();
    let mut cur = vec![0i64; t.len() + 1];
    for (i, sc) in s.iter().enumerate() {
        cur[0] = (i as i64 + 1) * del;
        for (j, tc) in t.iter().enumerate() {
            let replace = prev[j] + if sc == tc { 0 } else { sub };
            cur[j + 1] = replace.min(prev[j + 1] + del).min(cur[j] + ins);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    Ok(Value::Int4(prev[t.len()] as i32))
}

/// Soundex codes of A..Z.
const CODES: &[u8; 26] = b"01230120022455012623010202";

/// A letter's code; any other byte stands for itself.
fn code_of(b: u8) -> u8 {
    if b.is_ascii_alphabetic() {
        CODES[(b.to_ascii_uppercase() - b'A') as usize]
    } else {
        b
    }
}

/// The four-character Soundex code: the first letter, then the codes of the following
/// letters that differ from the byte before them, zeros left out, padded with zeros; empty
/// when the string has no letter.
fn soundex(s: &str) -> String {
    let b = s.as_bytes();
    let Some(first) = b.iter().position(|c| c.is_ascii_alphabetic()) else {
        return String::new();
    };
    let mut out = vec![b[first].to_ascii_uppercase()];
    for i in first + 1..b.len() {
        if out.len() == 4 {
            break;
        }
        let c = code_of(b[i]);
        if b[i].is_ascii_alphabetic() && c != code_of(b[i - 1]) && c != b'0' {
            out.push(c);
        }
    }
    out.resize(4, b'0');
    String::from_utf8(out).unwrap_or_default()
}

/// How many of the four Soundex characters of the two strings agree.
fn difference(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    let (x, y) = (soundex(txt(&a[0])?), soundex(txt(&a[1])?));
    let same = x.bytes().zip(y.bytes()).filter(|(p, q)| p == q).count();
    Ok(Value::Int4(same as i32))
}
