//! gin_trgm_ops: pg_trgm's GIN operator class, registered with the engine's class registry
//! (`engine::gin::register`) when the server starts.
//!
//! # Design
//!
//! A row's keys are the trigrams of its text (`pg_trgm::trigrams`), each an int4 as pg_trgm
//! stores them. A query's keys depend on the operator (PostgreSQL's strategy numbers):
//!
//! | operator | keys | rows selected |
//! |----------|------|---------------|
//! | `%`, `%>`, `%>>` (1, 7, 9) | the query's trigrams | those with at least the threshold's share of them |
//! | `~~`, `~~*` (3, 4) | the trigrams every match of the pattern has (`wildcard_trigrams`) | those with all of them |
//! | `~`, `~*` (5, 6) | the trigrams of the literal runs every match must contain | those with all of them |
//! | `=` (11) | the query's trigrams | those with all of them |
//!
//! A query with no key (a pattern of short words, `'%'`) selects every row, as PostgreSQL's
//! GIN_SEARCH_MODE_ALL does. The class is lossy: the executor rechecks the operator on every
//! row fetched, so a class answer only has to include every row the operator is true of.
//! The similarity bound holds because `similarity = c / (n_query + n_row - c) <= c / n_query`
//! (and likewise for the word similarities, whose denominator is the query's trigram count),
//! where `c` counts the shared trigrams: a row needs `c >= threshold * n_query`.
//!
//! Regular expressions get a conservative reading instead of PostgreSQL's NFA analysis: a
//! pattern with an alternation, a lookaround or embedded options selects every row; else the
//! runs of literal word characters outside optional pieces (`x*`, `x?`, `x{0,n}`, an optional
//! group) must occur in any match, and their trigrams (unpadded, as the run may sit inside a
//! longer word) are required. Fewer keys than PostgreSQL's in some cases, never a missed row.
//!
//! # Bounds
//!
//! Keys are linear in the text's length (one per trigram); the regular-expression reading is
//! one pass over the pattern, its group nesting bounded by the pattern's length and walked
//! without recursion.

use super::pg_trgm::{self, Trigram};
use crate::catalog::Oid;
use crate::error::PgResult;
use crate::sql::engine::gin::{self, GinOpclass, Match};
use crate::sql::engine::Key;
use crate::sql::types::ops::BinFn;
use crate::sql::types::{FormatCtx, Type, Value};

/// The class; registered once per process.
pub struct GinTrgmOps;

pub static GIN_TRGM_OPS: GinTrgmOps = GinTrgmOps;

/// Registers gin_trgm_ops with the engine (idempotent).
pub fn register() {
    gin::register(&GIN_TRGM_OPS);
}

fn key(t: &Trigram) -> Key {
    let v = (t[0] as i32) << 16 | (t[1] as i32) << 8 | t[2] as i32;
    Key(vec![Value::Int4(v)].into_boxed_slice())
}

fn text(v: &Value) -> &str {
    match v {
        Value::Text(s) => s,
        _ => "",
    }
}

/// All of `t`'s keys, or every row when there are none.
fn all_of(t: &[Trigram]) -> Match {
    if t.is_empty() {
        Match::Everything
    } else {
        Match::All(t.iter().map(key).collect())
    }
}

/// The rows that share at least `threshold` of the query's trigrams `t`: the least count `c`
/// with `(float4) c / (float4) n >= threshold`, as pg_trgm's consistent function compares.
fn similar_to(t: &[Trigram], threshold: f64) -> Match {
    let n = t.len();
    if n == 0 {
        return Match::Everything;
    }
    let Some(c) = (0..=n).find(|&c| (c as f32 / n as f32) as f64 >= threshold) else {
        return Match::Nothing;
    };
    if c == 0 {
        return Match::Everything;
    }
    Match::AtLeast(c, t.iter().map(key).collect())
}

impl GinOpclass for GinTrgmOps {
    fn name(&self) -> &'static str {
        "gin_trgm_ops"
    }
    // PostgreSQL gives an extension's class an OID at CREATE EXTENSION; threadgres's classes
    // are built in, with fixed OIDs outside the ranges of both catalogs.
    fn oid(&self) -> Oid {
        8790
    }
    fn family(&self) -> Oid {
        8791
    }
    fn is_default(&self) -> bool {
        false
    }
    fn input_type(&self) -> Type {
        Type::TEXT
    }
    fn key_type(&self) -> Type {
        Type::INT4
    }
    fn accepts(&self, ty: Type) -> bool {
        matches!(ty, Type::TEXT | Type::VARCHAR)
    }
    fn operators(&self) -> &'static [(&'static str, Type)] {
        &[
            ("~~", Type::TEXT),
            ("~~*", Type::TEXT),
            ("~", Type::TEXT),
            ("~*", Type::TEXT),
            ("=", Type::TEXT),
        ]
    }
    fn extension(&self) -> Option<&'static str> {
        Some("pg_trgm")
    }
    fn extension_operator(&self, f: &BinFn) -> Option<&'static str> {
        pg_trgm::operator_name(*f).filter(|n| matches!(*n, "%" | "%>" | "%>>"))
    }
    fn extract_value(&self, value: &Value, out: &mut Vec<Key>) -> PgResult<()> {
        out.extend(pg_trgm::trigrams(text(value)).iter().map(key));
        Ok(())
    }
    fn extract_query(&self, op: &str, query: &Value) -> PgResult<Match> {
        self.extract_query_in(op, query, &FormatCtx::default())
    }
    fn extract_query_in(&self, op: &str, query: &Value, fmt: &FormatCtx) -> PgResult<Match> {
        let q = text(query);
        Ok(match op {
            "%" => similar_to(&pg_trgm::trigrams(q), fmt.trgm[0]),
            "%>" => similar_to(&pg_trgm::trigrams(q), fmt.trgm[1]),
            "%>>" => similar_to(&pg_trgm::trigrams(q), fmt.trgm[2]),
            "~~" | "~~*" => all_of(&pg_trgm::wildcard_trigrams(q)),
            "~" | "~*" => match regex_runs(q) {
                Some(runs) => all_of(&pg_trgm::run_trigrams(&runs)),
                None => Match::Everything,
            },
            "=" => all_of(&pg_trgm::trigrams(q)),
            _ => Match::Everything,
        })
    }
}

/// The runs of literal word characters every match of regular expression `p` contains
/// (lowered); None when the pattern is past this reading (see the module comment).
fn regex_runs(p: &str) -> Option<Vec<Vec<char>>> {
    let c: Vec<char> = p.chars().collect();
    if p.starts_with("***") {
        return None;
    }
    let mut runs: Vec<Vec<char>> = Vec::new();
    let mut run: Vec<char> = Vec::new();
    let end_run = |run: &mut Vec<char>, runs: &mut Vec<Vec<char>>| {
        if run.len() >= 3 {
            runs.push(std::mem::take(run));
        }
        run.clear();
    };
    let mut i = 0;
    while i < c.len() {
        match c[i] {
            '|' => return None,
            '[' => {
                end_run(&mut run, &mut runs);
                i = bracket_end(&c, i)?;
                continue;
            }
            '(' => {
                end_run(&mut run, &mut runs);
                let inner = if c.get(i + 1) == Some(&'?') {
                    if c.get(i + 2) != Some(&':') {
                        return None; // lookaround or embedded options
                    }
                    i + 3
                } else {
                    i + 1
                };
                let close = group_end(&c, i)?;
                match quantifier(&c, close + 1)? {
                    // An optional group: nothing in it is required.
                    (true, next) => i = next,
                    // Its contents are read in line; the parentheses end runs.
                    (false, _) => i = inner,
                }
                continue;
            }
            ')' => {
                end_run(&mut run, &mut runs);
                let (_, next) = quantifier(&c, i + 1)?;
                i = next;
                continue;
            }
            '\\' => {
                // A class, a back reference or a character given by code: not read.
                end_run(&mut run, &mut runs);
                i += 1;
                if c.get(i).is_some_and(|x| x.is_alphanumeric()) {
                    while c.get(i).is_some_and(|x| x.is_alphanumeric()) {
                        i += 1;
                    }
                } else {
                    i += 1;
                }
                let (_, next) = quantifier(&c, i)?;
                i = next;
                continue;
            }
            '*' | '+' | '?' | '{' => {
                // A quantifier after something not a literal (handled below): skip it.
                let (_, next) = quantifier(&c, i)?;
                i = next.max(i + 1);
                continue;
            }
            ch => {
                let (optional, next) = quantifier(&c, i + 1)?;
                let quantified = next > i + 1;
                if pg_trgm::is_word_char(ch) && !optional {
                    run.push(pg_trgm::lower(ch));
                } else if !optional && !pg_trgm::is_word_char(ch) {
                    end_run(&mut run, &mut runs);
                }
                if optional || quantified {
                    // What follows a repeated or optional character is another run.
                    end_run(&mut run, &mut runs);
                }
                i = next;
            }
        }
    }
    end_run(&mut run, &mut runs);
    Some(runs)
}

/// After the atom ending before `i`: whether a quantifier there lets it be absent, and the
/// position after the quantifier (`i` when there is none). None for a malformed bound.
fn quantifier(c: &[char], i: usize) -> Option<(bool, usize)> {
    let lazy = |j: usize| if c.get(j) == Some(&'?') { j + 1 } else { j };
    Some(match c.get(i) {
        Some('*') | Some('?') => (true, lazy(i + 1)),
        Some('+') => (false, lazy(i + 1)),
        Some('{') => {
            let close = (i + 1..c.len()).find(|&j| c[j] == '}')?;
            let body: String = c[i + 1..close].iter().collect();
            let low = body.split(',').next().unwrap_or("");
            if low.is_empty() || !body.chars().all(|x| x.is_ascii_digit() || x == ',') {
                return None;
            }
            (low.parse::<u32>().ok()? == 0, lazy(close + 1))
        }
        _ => (false, i),
    })
}

/// The position after the bracket expression opening at `i`.
fn bracket_end(c: &[char], i: usize) -> Option<usize> {
    let mut j = i + 1;
    if c.get(j) == Some(&'^') {
        j += 1;
    }
    if c.get(j) == Some(&']') {
        j += 1;
    }
    while j < c.len() {
        match c[j] {
            ']' => return Some(j + 1),
            '[' if matches!(c.get(j + 1), Some(':' | '=' | '.')) => {
                let delim = c[j + 1];
                j += 2;
                while j + 1 < c.len() && !(c[j] == delim && c[j + 1] == ']') {
                    j += 1;
                }
                j += 2;
            }
            '\\' => j += 2,
            _ => j += 1,
        }
    }
    None
}

/// The position of the parenthesis closing the group opening at `i`.
fn group_end(c: &[char], i: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut j = i;
    while j < c.len() {
        match c[j] {
            '\\' => j += 1,
            '[' => {
                j = bracket_end(c, j)?;
                continue;
            }
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    return Some(j);
                }
            }
            _ => {}
        }
        j += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn runs(p: &str) -> Option<Vec<String>> {
        regex_runs(p).map(|r| r.into_iter().map(|w| w.into_iter().collect()).collect())
    }

    #[test]
    fn regex_runs_are_what_every_match_contains() {
        assert_eq!(runs("abc"), Some(vec!["abc".into()]));
        assert_eq!(runs("^Foo.*bar$"), Some(vec!["foo".into(), "bar".into()]));
        assert_eq!(runs("abcd?e"), Some(vec!["abc".into()]));
        assert_eq!(runs("abcd+efg"), Some(vec!["abcd".into(), "efg".into()]));
        assert_eq!(runs("(xyz)?abc"), Some(vec!["abc".into()]));
        assert_eq!(runs("(xyz)+abc"), Some(vec!["xyz".into(), "abc".into()]));
        assert_eq!(runs("\\x41bcd"), Some(vec![]));
        assert_eq!(runs("[abc]def{0,2}ghi"), Some(vec!["ghi".into()]));
        assert_eq!(runs("abc|def"), None);
        assert_eq!(runs("(?=abc)"), None);
        assert_eq!(runs("ab{"), None);
    }

    #[test]
    fn similarity_needs_the_thresholds_share() {
        let t = pg_trgm::trigrams("word");
        let Match::AtLeast(n, k) = similar_to(&t, 0.3f32 as f64) else {
            panic!()
        };
        assert_eq!(k.len(), 5);
        assert_eq!(n, 2);
        assert_eq!(similar_to(&[], 0.3), Match::Everything);
        assert_eq!(similar_to(&t, 0.0), Match::Everything);
        assert_eq!(similar_to(&t, 1.5), Match::Nothing);
    }
}
