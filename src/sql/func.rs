//! The scalar function library: PostgreSQL's built-in functions with their signatures, results
//! and errors.
//!
//! [`lookup`] returns every candidate signature of a (lower-case, unqualified) name; the planner
//! resolves overloads over them. Arguments arrive already cast to the chosen signature's types
//! (polymorphic `anyelement`/`anyarray`/`"any"` arguments as they are). Strict functions are
//! never called with a NULL argument.
//!
//! Functions that need session state (now(), current_user, ...) and the ones whose behavior
//! depends on argument types the signature cannot express (concat, format, pg_typeof) live in
//! the registry [`session_fn`]; EXTRACT is available both as `extract(text, x)` here and as
//! [`extract_field`] for callers that know the type.
//!
//! The library is a folder of files by family of functions, as PostgreSQL's `utils/adt` is:
//!
//! | file | holds |
//! |------|-------|
//! | `func.rs` (this file) | [`FuncSig`], [`lookup`] over the table, [`names`], [`is_volatile`] |
//! | `func/table.rs` | the table: every signature with the function that computes it |
//! | `func/args.rs` | helpers the families share: reading arguments, building results, errors |
//! | `func/string.rs` | strings and bytea: length, substr, trim, pad, md5/sha, encode/decode, convert, concat, quote_* |
//! | `func/regexp.rs` | regular expressions: substring(FROM pattern), SIMILAR TO, regexp_* |
//! | `func/math.rs` | numbers: abs, round, power, exp/ln, gcd/lcm, trigonometry, random/setseed, width_bucket |
//! | `func/datetime.rs` | date/time: EXTRACT/date_part, date_trunc, age, make_*, justify_*, timezone(), OVERLAPS |
//! | `func/formatting.rs` | to_char, to_number, to_date, to_timestamp(text, text) |
//! | `func/array.rs` | arrays: array_length/dims, array_position(s), array_append/cat/remove/replace, string_to_array, array_to_string |
//! | `func/json.rs` | JSON: to_json[b], json[b]_build_*, json[b]_typeof, extract_path, jsonb_pretty, jsonb_strip_nulls |
//! | `func/jsonb_set.rs` | jsonb_set and jsonb_insert |
//! | `func/geo.rs` | geometry: area, center, width, height, diagonal, bound_box, point(...), box(...), lseg(...) |
//! | `func/inet.rs` | inet and cidr: host, masklen, network, broadcast, set_masklen, ... |
//! | `func/range.rs` | ranges: the constructors, lower/upper, isempty, lower_inc ..., range_merge (bound by the planner, `plan/range.rs`) |
//! | `func/multirange.rs` | multiranges: the constructors, multirange(range), lower/upper ... over the span, range_merge |
//! | `func/misc.rs` | to_regtype, num_nulls/num_nonnulls, gen_random_uuid, format_type, text(x), pg_is_in_recovery |
//! | `func/tests.rs` | unit tests through [`lookup`] |
//!
//! The functions evaluated through the session ([`SessionFn`], with
//! [`crate::sql::context::SessionCtx`]) are not in the table. The planner finds them in the
//! registry `func/session_fn.rs` (names, argument and result types); their bodies are in the
//! subfolder `func/system/`, a layer above the planner and the deparser (see
//! docs/architecture.md), because they print stored expressions and read the catalogs:
//!
//! | file | holds |
//! |------|-------|
//! | `func/session_fn.rs` | the registry: [`SessionFn`] and its families' names, signatures and result types |
//! | `func/system/mod.rs` | the session's and the instance's functions: now(), current_user, pg_backend_pid(), set_config(), format(), ...; it dispatches to the three below |
//! | `func/system/catalog.rs` | system information over the catalogs: pg_get_expr, pg_get_indexdef, pg_get_constraintdef, pg_relation_size, col_description, pg_has_role, regclass/regrole lookups, ... |
//! | `func/system/privs.rs` | has_*_privilege, and aclexplode's rows |
//! | `func/system/ssl.rs` | pg_stat_ssl and the sslinfo functions |
//!
//! Quoting names and literals (quote_ident, quote_literal, format's `%I` / `%L`) is done by
//! [`crate::sql::quote`], which the deparser and the catalog functions share.

pub mod enums;
pub mod extension;
pub mod multirange;
pub mod range;
pub mod session_fn;
pub mod system;

mod args;
mod array;
mod datetime;
mod formatting;
mod geo;
mod inet;
mod json;
pub mod jsonb_set;
mod math;
mod misc;
mod regexp;
mod string;
mod table;
#[cfg(test)]
mod tests;

/// The planner's path to [`crate::sql::quote::quote_ident`].
pub use crate::sql::quote::quote_ident;
pub use datetime::{extract_field, zone_for_at_time_zone};
pub use json::f_json_build_typed;
pub use math::random_double;
pub use regexp::similar_to_regex;
pub use session_fn::SessionFn;

use crate::error::PgResult;
use crate::sql::types::{FormatCtx, Type, Value};
use std::collections::HashMap;
use std::sync::OnceLock;
use table::FUNCS;

pub type ScalarFn = fn(&[Value], &FormatCtx) -> PgResult<Value>;

#[derive(Clone, Copy)]
pub struct FuncSig {
    pub name: &'static str,
    pub args: &'static [Type],
    /// The last argument repeats.
    pub variadic: bool,
    pub ret: Type,
    /// NULL in → NULL out without calling `f`.
    pub strict: bool,
    pub f: ScalarFn,
}

/// Every candidate signature for function `name` (lower case, no schema).
pub fn lookup(name: &str) -> &'static [FuncSig] {
    static INDEX: OnceLock<HashMap<&'static str, Vec<FuncSig>>> = OnceLock::new();
    let idx = INDEX.get_or_init(|| {
        let mut m: HashMap<&'static str, Vec<FuncSig>> = HashMap::new();
        for s in FUNCS {
            m.entry(s.name).or_default().push(*s);
        }
        m
    });
    idx.get(name).map(|v| v.as_slice()).unwrap_or(&[])
}

/// The name of the library function `f` is (EXPLAIN prints calls by it); None for a function
/// made elsewhere.
pub fn name_of(f: ScalarFn) -> Option<&'static str> {
    FUNCS
        .iter()
        .find(|s| std::ptr::fn_addr_eq(s.f, f))
        .map(|s| s.name)
}

/// The names of the functions in this library (pg_proc lists them).
pub fn names() -> impl Iterator<Item = &'static str> {
    FUNCS.iter().map(|s| s.name)
}

/// Whether a function's result can differ between calls with the same arguments, or is
/// otherwise not folded while planning: the conversions between encodings are stable in
/// PostgreSQL (they depend on the conversions installed), so their errors come at run time,
/// after the RowDescription.
pub fn is_volatile(name: &str) -> bool {
    matches!(
        name,
        "random"
            | "gen_random_uuid"
            | "uuid_generate_v4"
            | "clock_timestamp"
            | "timeofday"
            | "convert"
            | "convert_to"
            | "convert_from"
    )
}
