//! citext: the case-insensitive text type (its values, order and casts are
//! `sql::types::citext`), the functions its CREATE EXTENSION makes and its operators.
//!
//! The type's OID is given at CREATE EXTENSION, so the signatures here name it [`SELF_TYPE`]
//! (`ddl/extension.rs` puts the OID in). Its operators are bound by the planner where an
//! operand is of that type ([`operator`]): the comparisons where both sides are citext (or one
//! is an untyped literal), LIKE and the regular-expression matches where the left side is, as
//! PostgreSQL's citext script declares them. They reuse the built-in text operators: a
//! comparison of two `Value::CiText` already folds case (`ops::compare_values`), and LIKE /
//! `~` on citext are the built-in ILIKE / `~*`, which is what the script's texticlike and
//! texticregexeq do.
//!
//! The script's SQL functions over citext (regexp_match, regexp_replace,
//! regexp_split_to_array, strpos, replace, split_part, translate) are Rust functions here that
//! call the built-in ones as those SQL bodies do: the regular-expression functions with the
//! `i` flag added unless the caller's flags say `c`; strpos on both sides lower-cased; replace
//! and split_part through a case-insensitive regular expression of the quoted pattern;
//! translate twice, with the characters to replace lower-cased and upper-cased.
//!
//! The pattern comparisons (citext_pattern_lt ..., `~<~` ...) are the ordinary ones: both
//! compare the lower-case forms byte by byte under threadgres's C collation.
//!
//! regexp_matches and regexp_split_to_table over citext are set-returning and bound with the
//! other set-returning functions (`plan/from.rs`), which add the `i` flag the same way.
//!
//! Not built: the citext_pattern_ops operator class (CREATE INDEX ... citext_pattern_ops).
//!
//! # Bounds
//!
//! Every function is linear in its inputs (regular expressions as the built-in functions
//! bound them); none recurses.

use std::cmp::Ordering;

use super::{ExtFunc, ExtSpec, ExtType, SELF_TYPE};
use crate::error::{PgError, PgResult};
use crate::sql::func::args::{int, txt};
use crate::sql::func::ScalarFn;
use crate::sql::types::ops::{self, BinOp};
use crate::sql::types::{citext, FormatCtx, Type, Value};

const C: (&str, Type) = ("", SELF_TYPE);
const T: (&str, Type) = ("", Type::TEXT);

const fn f(
    name: &'static str,
    args: &'static [(&'static str, Type)],
    returns: Type,
    symbol: &'static str,
) -> ExtFunc {
    ExtFunc::new(name, args, returns, symbol, 'i', true)
}

pub(super) const SPEC: ExtSpec = ExtSpec {
    name: "citext",
    version: "1.6",
    comment: "data type for case-insensitive character strings",
    relocatable: true,
    types: &[ExtType {
        name: "citext",
        builtin: "citext",
    }],
    functions: &[
        f("citext", &[("", Type::BPCHAR)], SELF_TYPE, "rtrim1"),
        f("citext", &[("", Type::BOOL)], SELF_TYPE, "booltext"),
        f("citext", &[("", Type::INET)], SELF_TYPE, "network_show"),
        f("citext_eq", &[C, C], Type::BOOL, "citext_eq"),
        f("citext_ne", &[C, C], Type::BOOL, "citext_ne"),
        f("citext_lt", &[C, C], Type::BOOL, "citext_lt"),
        f("citext_le", &[C, C], Type::BOOL, "citext_le"),
        f("citext_gt", &[C, C], Type::BOOL, "citext_gt"),
        f("citext_ge", &[C, C], Type::BOOL, "citext_ge"),
        f("citext_cmp", &[C, C], Type::INT4, "citext_cmp"),
        f("citext_hash", &[C], Type::INT4, "citext_hash"),
        f("citext_smaller", &[C, C], SELF_TYPE, "citext_smaller"),
        f("citext_larger", &[C, C], SELF_TYPE, "citext_larger"),
        f("citext_pattern_lt", &[C, C], Type::BOOL, "citext_lt"),
        f("citext_pattern_le", &[C, C], Type::BOOL, "citext_le"),
        f("citext_pattern_gt", &[C, C], Type::BOOL, "citext_gt"),
        f("citext_pattern_ge", &[C, C], Type::BOOL, "citext_ge"),
        f("citext_pattern_cmp", &[C, C], Type::INT4, "citext_cmp"),
        f("texticlike", &[C, C], Type::BOOL, "texticlike"),
        f("texticnlike", &[C, C], Type::BOOL, "texticnlike"),
        f("texticregexeq", &[C, C], Type::BOOL, "texticregexeq"),
        f("texticregexne", &[C, C], Type::BOOL, "texticregexne"),
        f("texticlike", &[C, T], Type::BOOL, "texticlike"),
        f("texticnlike", &[C, T], Type::BOOL, "texticnlike"),
        f("texticregexeq", &[C, T], Type::BOOL, "texticregexeq"),
        f("texticregexne", &[C, T], Type::BOOL, "texticregexne"),
        f(
            "regexp_match",
            &[C, C],
            Type::TEXT_ARRAY,
            "citext_regexp_match",
        ),
        f(
            "regexp_match",
            &[C, C, T],
            Type::TEXT_ARRAY,
            "citext_regexp_match",
        ),
        f(
            "regexp_replace",
            &[C, C, T],
            Type::TEXT,
            "citext_regexp_replace",
        ),
        f(
            "regexp_replace",
            &[C, C, T, T],
            Type::TEXT,
            "citext_regexp_replace",
        ),
        f(
            "regexp_split_to_array",
            &[C, C],
            Type::TEXT_ARRAY,
            "citext_regexp_split_to_array",
        ),
        f(
            "regexp_split_to_array",
            &[C, C, T],
            Type::TEXT_ARRAY,
            "citext_regexp_split_to_array",
        ),
        f("strpos", &[C, C], Type::INT4, "citext_strpos"),
        f("replace", &[C, C, C], Type::TEXT, "citext_replace"),
        f(
            "split_part",
            &[C, C, ("", Type::INT4)],
            Type::TEXT,
            "citext_split_part",
        ),
        f("translate", &[C, C, T], Type::TEXT, "citext_translate"),
    ],
};

pub(super) fn symbol(s: &str) -> Option<ScalarFn> {
    Some(match s {
        "rtrim1" => |a, _| Ok(Value::CiText(txt(&a[0])?.trim_end_matches(' ').to_string())),
        "booltext" => |a, _| {
            let b = matches!(a[0], Value::Bool(true));
            Ok(Value::CiText(if b { "true" } else { "false" }.to_string()))
        },
        "network_show" => |a, _| match &a[0] {
            Value::Inet(i) => Ok(Value::CiText(crate::sql::types::network::show(i))),
            other => Ok(Value::CiText(txt(other)?.to_string())),
        },
        "citext_eq" => |a, _| cmp_is(a, |o| o.is_eq()),
        "citext_ne" => |a, _| cmp_is(a, |o| o.is_ne()),
        "citext_lt" => |a, _| cmp_is(a, |o| o.is_lt()),
        "citext_le" => |a, _| cmp_is(a, |o| o.is_le()),
        "citext_gt" => |a, _| cmp_is(a, |o| o.is_gt()),
        "citext_ge" => |a, _| cmp_is(a, |o| o.is_ge()),
        "citext_cmp" => |a, _| Ok(Value::Int4(cmp(a)? as i32)),
        "citext_hash" => |a, _| {
            // PostgreSQL's hash_any of the lower-case bytes: the low 32 bits of the extended
            // hash with seed 0.
            let h = crate::sql::types::lookup3::hash_bytes(citext::fold(txt(&a[0])?).as_bytes(), 0);
            Ok(Value::Int4(h as u32 as i32))
        },
        // As the C functions: the left one only when strictly smaller (larger).
        "citext_smaller" => |a, _| Ok(if cmp(a)?.is_lt() { &a[0] } else { &a[1] }.clone()),
        "citext_larger" => |a, _| Ok(if cmp(a)?.is_gt() { &a[0] } else { &a[1] }.clone()),
        "texticlike" => |a, f| builtin_op("~~*", &a[0], &a[1], f),
        "texticnlike" => |a, f| builtin_op("!~~*", &a[0], &a[1], f),
        "texticregexeq" => |a, f| builtin_op("~*", &a[0], &a[1], f),
        "texticregexne" => |a, f| builtin_op("!~*", &a[0], &a[1], f),
        "citext_regexp_match" => {
            |a, f| crate::sql::func::regexp::f_regexp_match(&with_flags(a, 2, "")?, f)
        }
        "citext_regexp_replace" => {
            |a, f| crate::sql::func::regexp::f_regexp_replace(&with_flags(a, 3, "")?, f)
        }
        "citext_regexp_split_to_array" => {
            |a, f| crate::sql::func::regexp::f_regexp_split_to_array(&with_flags(a, 2, "")?, f)
        }
        "citext_strpos" => |a, f| {
            let lower = |v: &Value| -> PgResult<Value> { Ok(Value::Text(citext::fold(txt(v)?))) };
            crate::sql::func::string::f_position(&[lower(&a[0])?, lower(&a[1])?], f)
        },
        "citext_replace" => |a, f| {
            let args = [
                plain(&a[0])?,
                Value::Text(quote_pattern(txt(&a[1])?)),
                plain(&a[2])?,
                Value::Text("gi".to_string()),
            ];
            crate::sql::func::regexp::f_regexp_replace(&args, f)
        },
        "citext_split_part" => |a, f| {
            let args = [
                plain(&a[0])?,
                Value::Text(quote_pattern(txt(&a[1])?)),
                Value::Text("i".to_string()),
            ];
            let parts = crate::sql::func::regexp::f_regexp_split_to_array(&args, f)?;
            // The script's `(...)[$3]`: NULL past either end.
            let n = int(&a[2])?;
            Ok(match parts {
                Value::Array(arr) if n >= 1 => arr
                    .items
                    .get((n - 1) as usize)
                    .cloned()
                    .unwrap_or(Value::Null),
                _ => Value::Null,
            })
        },
        "citext_translate" => |a, f| {
            let from = txt(&a[1])?;
            let once = crate::sql::func::string::f_translate(
                &[
                    plain(&a[0])?,
                    Value::Text(from.to_lowercase()),
                    a[2].clone(),
                ],
                f,
            )?;
            crate::sql::func::string::f_translate(
                &[once, Value::Text(from.to_uppercase()), a[2].clone()],
                f,
            )
        },
        _ => return None,
    })
}

/// A citext argument as text (the script's `$1::pg_catalog.text`).
fn plain(v: &Value) -> PgResult<Value> {
    Ok(Value::Text(txt(v)?.to_string()))
}

fn cmp(a: &[Value]) -> PgResult<Ordering> {
    Ok(citext::cmp(txt(&a[0])?, txt(&a[1])?))
}

fn cmp_is(a: &[Value], want: fn(Ordering) -> bool) -> PgResult<Value> {
    Ok(Value::Bool(want(cmp(a)?)))
}

/// The built-in text operator `name` (over text, text) applied to `a` and `b`.
fn builtin_op(name: &str, a: &Value, b: &Value, f: &FormatCtx) -> PgResult<Value> {
    let op = text_operator(name)
        .ok_or_else(|| PgError::internal(format!("no built-in operator {name} over text")))?;
    (op.f)(a, b, f)
}

/// The arguments of a regular-expression function with its flags (at `at`, `given` when the
/// call has none) made case-insensitive, as the script's `CASE WHEN strpos($3, 'c') = 0 THEN
/// $3 || 'i' ELSE $3 END` does.
fn with_flags(a: &[Value], at: usize, given: &str) -> PgResult<Vec<Value>> {
    let mut out: Vec<Value> = a.iter().take(at).map(plain).collect::<PgResult<_>>()?;
    let flags = match a.get(at) {
        Some(v) => txt(v)?,
        None => given,
    };
    let flags = if flags.contains('c') {
        flags.to_string()
    } else {
        format!("{flags}i")
    };
    out.push(Value::Text(flags));
    Ok(out)
}

/// The script's `regexp_replace(p, '([^a-zA-Z_0-9])', E'\\\\\\1', 'g')`: `p` matched
/// literally. Its ASCII punctuation is escaped with a backslash (the script escapes every
/// character but letters, digits and `_`; an escaped space or non-ASCII letter matches itself
/// there, and unescaped here, which the regular-expression library requires; so are `<` and
/// `>`, which it reads escaped as word boundaries).
fn quote_pattern(p: &str) -> String {
    let mut out = String::with_capacity(p.len() * 2);
    for c in p.chars() {
        if c.is_ascii_punctuation() && !matches!(c, '_' | '<' | '>') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// The built-in operator `name` over (text, text).
fn text_operator(name: &str) -> Option<&'static BinOp> {
    ops::binary_operators(name)
        .iter()
        .find(|o| o.left == Type::TEXT && o.right == Type::TEXT)
}

/// The operator `name` over operands of types `left` and `right`, where one of them is a
/// citext type: the operator and the types its operands are coerced to. None leaves the
/// operator to the built-in ones (citext casts to text implicitly: `citext = text` compares
/// as text, as PostgreSQL resolves it).
pub fn operator(name: &str, left: Type, right: Type) -> Option<(&'static BinOp, Type, Type)> {
    let ci = |t: Type| t.base_type().is_citext();
    match name {
        // The comparisons, and the pattern comparisons of citext_pattern_ops (byte order of
        // the lower-case forms, which is the order of the ordinary ones here).
        "=" | "<>" | "<" | "<=" | ">" | ">=" | "~<~" | "~<=~" | "~>=~" | "~>~" => {
            let (l, r) = (left.base_type(), right.base_type());
            let t = match (ci(left), ci(right)) {
                (true, true) if l == r => l,
                (true, false) if right == Type::UNKNOWN => l,
                (false, true) if left == Type::UNKNOWN => r,
                _ => return None,
            };
            Some((text_operator(name)?, t, t))
        }
        // texticlike / texticregexeq: case-insensitive, over (citext, citext) and
        // (citext, text).
        "~~" | "~~*" | "!~~" | "!~~*" | "~" | "~*" | "!~" | "!~*" if ci(left) => {
            let op = MATCH_OPS.iter().find(|(n, _)| *n == name).map(|(_, o)| o)?;
            let l = left.base_type();
            let r = if right == Type::UNKNOWN || ci(right) {
                l
            } else if right.base_type().category() == 'S' {
                Type::TEXT
            } else {
                return None;
            };
            Some((op, l, r))
        }
        _ => None,
    }
}

/// texticlike (`~~`, `~~*`) and texticregexeq (`~`, `~*`) and their negations: the built-in
/// ILIKE / `~*` (and negations) over text, each operator a function of its own so that
/// EXPLAIN names it as written ([`operator_name`]).
fn ci_match<const K: usize>(a: &Value, b: &Value, f: &FormatCtx) -> PgResult<Value> {
    const BUILTIN: [&str; 8] = ["~~*", "~~*", "!~~*", "!~~*", "~*", "~*", "!~*", "!~*"];
    // black_box keeps K in each copy's code, so that no two copies are folded into one
    // function (their addresses name them).
    builtin_op(BUILTIN[std::hint::black_box(K)], a, b, f)
}

const fn ci_op(f: crate::sql::types::ops::BinFn) -> BinOp {
    BinOp {
        left: SELF_TYPE,
        right: SELF_TYPE,
        result: Type::BOOL,
        f,
    }
}

static MATCH_OPS: [(&str, BinOp); 8] = [
    ("~~", ci_op(ci_match::<0>)),
    ("~~*", ci_op(ci_match::<1>)),
    ("!~~", ci_op(ci_match::<2>)),
    ("!~~*", ci_op(ci_match::<3>)),
    ("~", ci_op(ci_match::<4>)),
    ("~*", ci_op(ci_match::<5>)),
    ("!~", ci_op(ci_match::<6>)),
    ("!~*", ci_op(ci_match::<7>)),
];

/// The name of one of citext's matching operators, for EXPLAIN.
pub fn operator_name(f: crate::sql::types::ops::BinFn) -> Option<&'static str> {
    MATCH_OPS
        .iter()
        .find(|(_, o)| std::ptr::fn_addr_eq(o.f, f))
        .map(|(n, _)| *n)
}
