//! pg_trgm: trigram similarity of text (show_trgm, similarity, word_similarity,
//! strict_word_similarity), the operators over them (`%`, `<%`, `%>`, `<<%`, `%>>`, `<->`,
//! `<<->`, `<->>`, `<<<->`, `<->>>`), and set_limit / show_limit.
//!
//! # Trigrams
//!
//! A string is split into words, maximal runs of alphanumeric characters (Unicode letters and
//! digits, as PostgreSQL's iswalnum gives them in a C.UTF-8 database); each word is lowered
//! and padded with two spaces before and one after, and every run of three characters of the
//! padded word is a trigram. A trigram of three one-byte characters is its three bytes; one
//! with a multibyte character is the low three bytes of PostgreSQL's legacy CRC-32 of its
//! bytes, as pg_trgm compacts it. Sets of trigrams are sorted by their bytes read as signed
//! chars (PostgreSQL 15 on x86 compares them so), which show_trgm's order shows.
//! [`trigrams`] (sorted, unique) and [`wildcard_trigrams`] (those any match of a LIKE pattern
//! must have) are what an index's operator class extracts; the similarity functions are
//! built on the unsorted form with word bounds, as pg_trgm's are.
//!
//! # Settings
//!
//! The operators compare against the session's pg_trgm.similarity_threshold,
//! word_similarity_threshold and strict_word_similarity_threshold, which reach the value
//! functions in [`FormatCtx::trgm`] (`session/settings.rs` keeps them). set_limit, which sets
//! one, is bound by the planner to set_config (`plan/user_func.rs`); its symbol here is never
//! called.
//!
//! # Bounds
//!
//! Work and memory are linear in the input's length (a few words per byte at most) but for
//! word_similarity's search of the best extent, which is quadratic in the number of trigrams
//! in the worst case, as PostgreSQL's is.

use super::{ExtFunc, ExtSpec};
use crate::error::{PgError, PgResult};
use crate::sql::func::args::txt;
use crate::sql::func::ScalarFn;
use crate::sql::types::ops::BinOp;
use crate::sql::types::{Array, FormatCtx, Type, Value};
use std::cmp::Ordering;

const T: (&str, Type) = ("", Type::TEXT);

const fn f(
    name: &'static str,
    args: &'static [(&'static str, Type)],
    returns: Type,
    symbol: &'static str,
    volatility: char,
) -> ExtFunc {
    ExtFunc::new(name, args, returns, symbol, volatility, true)
}

pub(super) const SPEC: ExtSpec = ExtSpec {
    name: "pg_trgm",
    version: "1.6",
    comment: "text similarity measurement and index searching based on trigrams",
    relocatable: true,
    types: &[],
    functions: &[
        f(
            "set_limit",
            &[("", Type::FLOAT4)],
            Type::FLOAT4,
            "set_limit",
            'v',
        ),
        f("show_limit", &[], Type::FLOAT4, "show_limit", 's'),
        f("show_trgm", &[T], Type::TEXT_ARRAY, "show_trgm", 'i'),
        f("similarity", &[T, T], Type::FLOAT4, "similarity", 'i'),
        f("similarity_op", &[T, T], Type::BOOL, "similarity_op", 's'),
        f(
            "similarity_dist",
            &[T, T],
            Type::FLOAT4,
            "similarity_dist",
            'i',
        ),
        f(
            "word_similarity",
            &[T, T],
            Type::FLOAT4,
            "word_similarity",
            'i',
        ),
        f(
            "word_similarity_op",
            &[T, T],
            Type::BOOL,
            "word_similarity_op",
            's',
        ),
        f(
            "word_similarity_commutator_op",
            &[T, T],
            Type::BOOL,
            "word_similarity_commutator_op",
            's',
        ),
        f(
            "word_similarity_dist_op",
            &[T, T],
            Type::FLOAT4,
            "word_similarity_dist_op",
            'i',
        ),
        f(
            "word_similarity_dist_commutator_op",
            &[T, T],
            Type::FLOAT4,
            "word_similarity_dist_commutator_op",
            'i',
        ),
        f(
            "strict_word_similarity",
            &[T, T],
            Type::FLOAT4,
            "strict_word_similarity",
            'i',
        ),
        f(
            "strict_word_similarity_op",
            &[T, T],
            Type::BOOL,
            "strict_word_similarity_op",
            's',
        ),
        f(
            "strict_word_similarity_commutator_op",
            &[T, T],
            Type::BOOL,
            "strict_word_similarity_commutator_op",
            's',
        ),
        f(
            "strict_word_similarity_dist_op",
            &[T, T],
            Type::FLOAT4,
            "strict_word_similarity_dist_op",
            'i',
        ),
        f(
            "strict_word_similarity_dist_commutator_op",
            &[T, T],
            Type::FLOAT4,
            "strict_word_similarity_dist_commutator_op",
            'i',
        ),
    ],
};

/// The settings the operators read, by their index in [`FormatCtx::trgm`].
pub const SETTINGS: [&str; 3] = [
    "pg_trgm.similarity_threshold",
    "pg_trgm.word_similarity_threshold",
    "pg_trgm.strict_word_similarity_threshold",
];

/// Their defaults.
pub use crate::sql::types::TRGM_DEFAULTS as DEFAULTS;

pub(super) fn symbol(s: &str) -> Option<ScalarFn> {
    Some(match s {
        // Bound to set_config by the planner; a call here is a planner bug, not a crash.
        "set_limit" => |_, _| Err(PgError::internal("set_limit is bound by the planner")),
        "show_limit" => |_, f| Ok(Value::Float4(f.trgm[0] as f32)),
        "show_trgm" => show_trgm,
        "similarity" => |a, _| Ok(Value::Float4(similarity(txt(&a[0])?, txt(&a[1])?))),
        "similarity_op" => |a, f| sim_op(&a[0], &a[1], f),
        "similarity_dist" => |a, f| sim_dist(&a[0], &a[1], f),
        "word_similarity" => |a, _| word_fn(&a[0], &a[1], 0),
        "word_similarity_op" => |a, f| word_op(&a[0], &a[1], f),
        "word_similarity_commutator_op" => |a, f| word_op(&a[1], &a[0], f),
        "word_similarity_dist_op" => |a, f| word_dist(&a[0], &a[1], f),
        "word_similarity_dist_commutator_op" => |a, f| word_dist(&a[1], &a[0], f),
        "strict_word_similarity" => |a, _| word_fn(&a[0], &a[1], STRICT),
        "strict_word_similarity_op" => |a, f| strict_op(&a[0], &a[1], f),
        "strict_word_similarity_commutator_op" => |a, f| strict_op(&a[1], &a[0], f),
        "strict_word_similarity_dist_op" => |a, f| strict_dist(&a[0], &a[1], f),
        "strict_word_similarity_dist_commutator_op" => |a, f| strict_dist(&a[1], &a[0], f),
        _ => return None,
    })
}

// ---------------------------------------------------------------------------------------------
// The operators, bound by the planner where pg_trgm is installed
// ---------------------------------------------------------------------------------------------

fn sim_op(a: &Value, b: &Value, f: &FormatCtx) -> PgResult<Value> {
    let s = similarity(txt(a)?, txt(b)?);
    Ok(Value::Bool(s as f64 >= f.trgm[0]))
}

fn sim_dist(a: &Value, b: &Value, _f: &FormatCtx) -> PgResult<Value> {
    let s = similarity(txt(a)?, txt(b)?);
    Ok(Value::Float4((1.0 - s as f64) as f32))
}

fn word_fn(a: &Value, b: &Value, flags: u8) -> PgResult<Value> {
    Ok(Value::Float4(word_similarity(txt(a)?, txt(b)?, flags, 0.0)))
}

fn word_op(a: &Value, b: &Value, f: &FormatCtx) -> PgResult<Value> {
    let s = word_similarity(txt(a)?, txt(b)?, CHECK_ONLY, f.trgm[1]);
    Ok(Value::Bool(s as f64 >= f.trgm[1]))
}

fn word_dist(a: &Value, b: &Value, _f: &FormatCtx) -> PgResult<Value> {
    let s = word_similarity(txt(a)?, txt(b)?, 0, 0.0);
    Ok(Value::Float4((1.0 - s as f64) as f32))
}

fn strict_op(a: &Value, b: &Value, f: &FormatCtx) -> PgResult<Value> {
    let s = word_similarity(txt(a)?, txt(b)?, CHECK_ONLY | STRICT, f.trgm[2]);
    Ok(Value::Bool(s as f64 >= f.trgm[2]))
}

fn strict_dist(a: &Value, b: &Value, _f: &FormatCtx) -> PgResult<Value> {
    let s = word_similarity(txt(a)?, txt(b)?, STRICT, 0.0);
    Ok(Value::Float4((1.0 - s as f64) as f32))
}

macro_rules! op {
    ($res:ident, $f:expr) => {
        BinOp {
            left: Type::TEXT,
            right: Type::TEXT,
            result: Type::$res,
            f: $f,
        }
    };
}

static OPERATORS: &[(&str, BinOp)] = &[
    ("%", op!(BOOL, sim_op)),
    ("<%", op!(BOOL, |a, b, f| word_op(a, b, f))),
    ("%>", op!(BOOL, |a, b, f| word_op(b, a, f))),
    ("<<%", op!(BOOL, |a, b, f| strict_op(a, b, f))),
    ("%>>", op!(BOOL, |a, b, f| strict_op(b, a, f))),
    ("<->", op!(FLOAT4, sim_dist)),
    ("<<->", op!(FLOAT4, |a, b, f| word_dist(a, b, f))),
    ("<->>", op!(FLOAT4, |a, b, f| word_dist(b, a, f))),
    ("<<<->", op!(FLOAT4, |a, b, f| strict_dist(a, b, f))),
    ("<->>>", op!(FLOAT4, |a, b, f| strict_dist(b, a, f))),
];

/// pg_trgm's operator `name` (over text, text), for the planner to bind where the extension
/// is installed.
pub fn operator(name: &str) -> Option<&'static BinOp> {
    OPERATORS.iter().find(|(n, _)| *n == name).map(|(_, o)| o)
}

/// The name of one of pg_trgm's operators, by its function (EXPLAIN's output).
pub fn operator_name(f: crate::sql::types::ops::BinFn) -> Option<&'static str> {
    OPERATORS
        .iter()
        .find(|(_, o)| std::ptr::fn_addr_eq(o.f, f))
        .map(|(n, _)| *n)
}

// ---------------------------------------------------------------------------------------------
// Trigrams
// ---------------------------------------------------------------------------------------------

/// One trigram: three bytes, as pg_trgm keeps them.
pub type Trigram = [u8; 3];

/// pg_trgm's order of trigrams: bytes compared as signed chars.
pub fn cmp_trigram(a: &Trigram, b: &Trigram) -> Ordering {
    let s = |t: &Trigram| [t[0] as i8, t[1] as i8, t[2] as i8];
    s(a).cmp(&s(b))
}

/// PostgreSQL's legacy CRC-32 table: the reflected table of polynomial 0xEDB88320.
const CRC_TABLE: [u32; 256] = {
    let mut t = [0u32; 256];
    let mut i = 0;
    while i < 256 {
        let mut c = i as u32;
        let mut k = 0;
        while k < 8 {
            c = if c & 1 != 0 {
                0xEDB8_8320 ^ (c >> 1)
            } else {
                c >> 1
            };
            k += 1;
        }
        t[i] = c;
        i += 1;
    }
    t
};

/// Three characters as a trigram: their bytes, or the low three bytes of PostgreSQL's legacy
/// CRC-32 (its reflected table driven the unreflected way) when one is multibyte.
fn compact(bytes: &[u8]) -> Trigram {
    if let [a, b, c] = bytes {
        return [*a, *b, *c];
    }
    let mut crc: u32 = 0xFFFF_FFFF;
    for &b in bytes {
        let i = ((crc >> 24) as u8 ^ b) as usize;
        crc = CRC_TABLE[i] ^ (crc << 8);
    }
    crc ^= 0xFFFF_FFFF;
    let le = crc.to_le_bytes();
    [le[0], le[1], le[2]]
}

pub(super) fn is_word_char(c: char) -> bool {
    c.is_alphanumeric()
}

/// One character lowered, one for one as towlower does it.
pub(super) fn lower(c: char) -> char {
    if c.is_ascii() {
        return c.to_ascii_lowercase();
    }
    c.to_lowercase().next().unwrap_or(c)
}

/// Appends the trigrams of one padded word (its characters) to `out`.
fn word_trigrams(padded: &[char], out: &mut Vec<Trigram>) {
    let mut buf = [0u8; 12];
    for w in padded.windows(3) {
        let mut n = 0;
        for c in w {
            n += c.encode_utf8(&mut buf[n..]).len();
        }
        out.push(compact(&buf[..n]));
    }
}

/// The trigrams of `s` in the order of its words, unsorted and with repeats, and for each
/// whether it begins (1) or ends (2) a word (pg_trgm's generate_trgm_only).
fn trigrams_with_bounds(s: &str) -> (Vec<Trigram>, Vec<u8>) {
    let mut out = Vec::new();
    let mut bounds = Vec::new();
    let mut word: Vec<char> = Vec::new();
    let mut chars = s.chars().peekable();
    loop {
        while chars.peek().is_some_and(|c| !is_word_char(*c)) {
            chars.next();
        }
        if chars.peek().is_none() {
            break;
        }
        word.clear();
        word.extend([' ', ' ']);
        while let Some(c) = chars.peek().copied().filter(|c| is_word_char(*c)) {
            word.push(lower(c));
            chars.next();
        }
        word.push(' ');
        let first = out.len();
        word_trigrams(&word, &mut out);
        bounds.resize(out.len(), 0);
        bounds[first] |= BOUND_LEFT;
        let last = out.len() - 1;
        bounds[last] |= BOUND_RIGHT;
    }
    (out, bounds)
}

const BOUND_LEFT: u8 = 1;
const BOUND_RIGHT: u8 = 2;

fn sort_unique(mut t: Vec<Trigram>) -> Vec<Trigram> {
    t.sort_by(cmp_trigram);
    t.dedup();
    t
}

/// The set of trigrams of `s`, sorted in pg_trgm's order without repeats (generate_trgm).
pub fn trigrams(s: &str) -> Vec<Trigram> {
    sort_unique(trigrams_with_bounds(s).0)
}

/// The trigrams of runs of (lowered) word characters that may sit inside longer words: each
/// run unpadded, sorted in pg_trgm's order without repeats (gin_trgm_ops's regular
/// expressions).
pub(super) fn run_trigrams(runs: &[Vec<char>]) -> Vec<Trigram> {
    let mut out = Vec::new();
    for r in runs {
        word_trigrams(r, &mut out);
    }
    sort_unique(out)
}

/// The trigrams every string matching LIKE pattern `p` (backslash escapes) has: those of its
/// words, a word next to a wildcard left unpadded on that side (generate_wildcard_trgm).
pub fn wildcard_trigrams(p: &str) -> Vec<Trigram> {
    let mut out = Vec::new();
    let chars: Vec<char> = p.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        // Find the first word character, remembering a wildcard just before it. Each part
        // starts where the last one stopped (at its wildcard, which then leads this one).
        let mut escape = false;
        let mut leading_wild = false;
        while i < chars.len() {
            let c = chars[i];
            if escape {
                if is_word_char(c) {
                    break;
                }
                escape = false;
                leading_wild = false;
            } else if c == '\\' {
                escape = true;
            } else if c == '%' || c == '_' {
                leading_wild = true;
            } else if is_word_char(c) {
                break;
            } else {
                leading_wild = false;
            }
            i += 1;
        }
        if i >= chars.len() {
            break;
        }
        let mut word: Vec<char> = Vec::new();
        if !leading_wild {
            word.extend([' ', ' ']);
        }
        let mut trailing_wild = false;
        while i < chars.len() {
            let c = chars[i];
            if escape {
                if is_word_char(c) {
                    word.push(lower(c));
                } else {
                    // Stop at the escape character, so that the next part starts from it.
                    i -= 1;
                    break;
                }
                escape = false;
            } else if c == '\\' {
                escape = true;
            } else if c == '%' || c == '_' {
                trailing_wild = true;
                break;
            } else if is_word_char(c) {
                word.push(lower(c));
            } else {
                break;
            }
            i += 1;
        }
        if !trailing_wild {
            word.push(' ');
        }
        word_trigrams(&word, &mut out);
    }
    sort_unique(out)
}

/// pg_trgm's CALCSML: the share of common trigrams, in float4.
fn calc_sml(count: usize, len1: usize, len2: usize) -> f32 {
    count as f32 / (len1 + len2 - count) as f32
}

/// similarity(a, b): common trigrams over all trigrams of the two.
pub fn similarity(a: &str, b: &str) -> f32 {
    let (t1, t2) = (trigrams(a), trigrams(b));
    if t1.is_empty() || t2.is_empty() {
        return 0.0;
    }
    let (mut i, mut j, mut count) = (0, 0, 0);
    while i < t1.len() && j < t2.len() {
        match cmp_trigram(&t1[i], &t2[j]) {
            Ordering::Less => i += 1,
            Ordering::Greater => j += 1,
            Ordering::Equal => {
                i += 1;
                j += 1;
                count += 1;
            }
        }
    }
    calc_sml(count, t1.len(), t2.len())
}

/// Stop as soon as the similarity reaches the threshold (the operators).
const CHECK_ONLY: u8 = 1;
/// Extents begin and end at word bounds (strict_word_similarity).
const STRICT: u8 = 2;

/// word_similarity(a, b) (and the strict form): the greatest similarity of `a`'s trigrams to
/// an extent of `b`'s, as pg_trgm's calc_word_similarity computes it.
fn word_similarity(a: &str, b: &str, flags: u8, threshold: f64) -> f32 {
    let (t1, _) = trigrams_with_bounds(a);
    let (t2, bounds) = trigrams_with_bounds(b);
    let len2 = t2.len();
    // Positional trigrams: a's without position (-1), b's with theirs, sorted by trigram
    // then position.
    let mut pos: Vec<(Trigram, i64)> = t1.iter().map(|t| (*t, -1)).collect();
    pos.extend(t2.iter().enumerate().map(|(i, t)| (*t, i as i64)));
    pos.sort_by(|x, y| cmp_trigram(&x.0, &y.0).then(x.1.cmp(&y.1)));
    if pos.is_empty() {
        return 0.0;
    }
    let len = pos.len();
    let mut trg2indexes = vec![0usize; len2];
    let mut found = vec![false; len];
    let mut ulen1 = 0;
    let mut j = 0;
    for i in 0..len {
        if i > 0 && pos[i - 1].0 != pos[i].0 {
            if found[j] {
                ulen1 += 1;
            }
            j += 1;
        }
        if pos[i].1 >= 0 {
            trg2indexes[pos[i].1 as usize] = j;
        } else {
            found[j] = true;
        }
    }
    if found[j] {
        ulen1 += 1;
    }
    iterate_word_similarity(&trg2indexes, &found, ulen1, flags, &bounds, threshold)
}

/// pg_trgm's iterate_word_similarity: slides the extent's upper bound over b's trigrams and
/// tries each lower bound for the best similarity.
fn iterate_word_similarity(
    trg2indexes: &[usize],
    found: &[bool],
    ulen1: usize,
    flags: u8,
    bounds: &[u8],
    threshold: f64,
) -> f32 {
    let strict = flags & STRICT != 0;
    let check_only = flags & CHECK_ONLY != 0;
    let mut lastpos: Vec<i64> = vec![-1; found.len()];
    let (mut ulen2, mut count) = (0usize, 0usize);
    let mut lower: i64 = if strict { 0 } else { -1 };
    let mut smlr_max = 0.0f32;
    for i in 0..trg2indexes.len() {
        let trgindex = trg2indexes[i];
        if lower >= 0 || found[trgindex] {
            if lastpos[trgindex] < 0 {
                ulen2 += 1;
                if found[trgindex] {
                    count += 1;
                }
            }
            lastpos[trgindex] = i as i64;
        }
        let at_upper = if strict {
            bounds[i] & BOUND_RIGHT != 0
        } else {
            found[trgindex]
        };
        if !at_upper {
            continue;
        }
        let upper = i as i64;
        if lower == -1 {
            lower = upper;
            ulen2 = 1;
        }
        let mut smlr_cur = calc_sml(count, ulen1, ulen2);
        let (mut tmp_count, mut tmp_ulen2) = (count, ulen2);
        let prev_lower = lower;
        let mut tmp_lower = lower;
        while tmp_lower <= upper {
            let t = tmp_lower as usize;
            if !strict || bounds[t] & BOUND_LEFT != 0 {
                let smlr_tmp = calc_sml(tmp_count, ulen1, tmp_ulen2);
                if smlr_tmp > smlr_cur {
                    smlr_cur = smlr_tmp;
                    ulen2 = tmp_ulen2;
                    lower = tmp_lower;
                    count = tmp_count;
                }
                if check_only && smlr_cur as f64 >= threshold {
                    break;
                }
            }
            let tmp_trgindex = trg2indexes[t];
            if lastpos[tmp_trgindex] == tmp_lower {
                tmp_ulen2 -= 1;
                if found[tmp_trgindex] {
                    tmp_count -= 1;
                }
            }
            tmp_lower += 1;
        }
        smlr_max = smlr_max.max(smlr_cur);
        if check_only && smlr_max as f64 >= threshold {
            break;
        }
        for t in prev_lower..lower {
            let tmp_trgindex = trg2indexes[t as usize];
            if lastpos[tmp_trgindex] == t {
                lastpos[tmp_trgindex] = -1;
            }
        }
    }
    smlr_max
}

/// show_trgm(text): the trigrams as text, a compacted one as `0x` and six hex digits.
fn show_trgm(a: &[Value], _f: &FormatCtx) -> PgResult<Value> {
    let printable = |b: u8| b.is_ascii_alphanumeric() || b == b' ';
    let items = trigrams(txt(&a[0])?)
        .into_iter()
        .map(|t| {
            Value::Text(if t.iter().all(|&b| printable(b)) {
                String::from_utf8_lossy(&t).into_owned()
            } else {
                format!(
                    "0x{:06x}",
                    (t[0] as u32) << 16 | (t[1] as u32) << 8 | t[2] as u32
                )
            })
        })
        .collect();
    Ok(Value::Array(Box::new(Array::one_dim(Type::TEXT, items))))
}

/// A real setting as PostgreSQL's SHOW prints it: C's `%g` (six significant digits).
pub fn format_g(v: f64) -> String {
    if v == 0.0 {
        return "0".into();
    }
    if !v.is_finite() {
        return v.to_string();
    }
    let exp = v.abs().log10().floor() as i32;
    let trim = |s: String| -> String {
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s
        }
    };
    // Rounding to six digits may carry into the next power of ten.
    let sci = format!("{v:.5e}");
    let (mant, e) = sci.split_once('e').unwrap_or((&sci, "0"));
    let e: i32 = e.parse().unwrap_or(exp);
    if !(-4..6).contains(&e) {
        let sign = if e < 0 { '-' } else { '+' };
        return format!("{}e{sign}{:02}", trim(mant.to_string()), e.abs());
    }
    let decimals = (5 - e).max(0) as usize;
    trim(format!("{v:.decimals$}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shown(s: &str) -> Vec<String> {
        let Value::Array(a) = show_trgm(&[Value::Text(s.into())], &FormatCtx::default()).unwrap()
        else {
            panic!()
        };
        a.items
            .iter()
            .map(|v| v.as_str().unwrap().to_string())
            .collect()
    }

    #[test]
    fn trigrams_of_words() {
        // PostgreSQL 15: {"  a","  b"," a "," b ","a b"...} for 'a b' is {"  a","  b"," a "," b "}.
        assert_eq!(shown("a b"), ["  a", "  b", " a ", " b "]);
        assert_eq!(
            shown("Cat"),
            ["  c", " ca", "at ", "cat"],
            "lowered and padded"
        );
        assert!(shown("").is_empty());
        assert!(shown("!!").is_empty());
    }

    #[test]
    fn multibyte_trigrams_are_compacted_as_postgresql_does() {
        // As PostgreSQL 15 shows them in a UTF8 database.
        assert_eq!(
            shown("ñandú"),
            ["0x927af7", "0xb00338", "0x00a9f5", "0x12522c", "0x304ab5", "and"]
        );
        assert_eq!(shown("İx"), ["  i", " ix", "ix "]);
    }

    #[test]
    fn similarity_of_words() {
        assert_eq!(similarity("word", "word"), 1.0);
        assert_eq!(similarity("", "word"), 0.0);
        // 'word' and 'two words': 4 trigrams in common of 5 + 10 - 4 (PostgreSQL 15 shows
        // 0.36363637).
        assert_eq!(similarity("word", "two words"), 4.0f32 / 11.0f32);
    }

    #[test]
    fn format_g_as_c() {
        assert_eq!(format_g(DEFAULTS[0]), "0.3");
        assert_eq!(format_g(0.5), "0.5");
        assert_eq!(format_g(1.0), "1");
        assert_eq!(format_g(0.123456789), "0.123457");
        assert_eq!(format_g(0.00001), "1e-05");
    }
}
