//! The table of the library's functions: each signature (name, argument types, whether the last
//! one repeats, result type, strictness) with the function that computes it. [`super::lookup`]
//! indexes it by name, keeping the table's order among a name's signatures; pg_proc lists its
//! names.

use super::{
    array::*, datetime::*, formatting::*, geo::*, inet::*, json::*, math::*, misc::*, regexp::*,
    string::*,
};
use super::{jsonb_set, FuncSig};
use crate::sql::types::Type;

macro_rules! sig {
    ($name:expr, [$($a:ident),*], $ret:ident, $f:expr) => {
        FuncSig { name: $name, args: &[$(Type::$a),*], variadic: false, ret: Type::$ret, strict: true, f: $f }
    };
}

/// Non-strict (called with NULL arguments).
macro_rules! sig_ns {
    ($name:expr, [$($a:ident),*], $ret:ident, $f:expr) => {
        FuncSig { name: $name, args: &[$(Type::$a),*], variadic: false, ret: Type::$ret, strict: false, f: $f }
    };
}

/// Variadic (last argument repeats), non-strict.
macro_rules! sig_var {
    ($name:expr, [$($a:ident),*], $ret:ident, $f:expr) => {
        FuncSig { name: $name, args: &[$(Type::$a),*], variadic: true, ret: Type::$ret, strict: false, f: $f }
    };
}

const TS: u32 = Type::TIMESTAMP.0;

const TSTZ: u32 = Type::TIMESTAMPTZ.0;

const DATE: u32 = Type::DATE.0;

const TIME: u32 = Type::TIME.0;

const TIMETZ_T: u32 = Type::TIMETZ.0;

const IVL: u32 = Type::INTERVAL.0;

const JSON_T: u32 = Type::JSON.0;

const JSONB_T: u32 = Type::JSONB.0;

const TEXT_T: u32 = Type::TEXT.0;

const ANYEL_T: u32 = Type::ANYELEMENT.0;

pub(super) static FUNCS: &[FuncSig] = &[
    // ----- strings -----
    sig!("length", [TEXT], INT4, f_length),
    sig!("textlen", [TEXT], INT4, f_length),
    sig!("like_escape", [TEXT, TEXT], TEXT, f_like_escape),
    sig!("length", [BYTEA], INT4, f_length),
    sig!("length", [BYTEA, NAME], INT4, f_length_in_encoding),
    sig!("char_length", [TEXT], INT4, f_length),
    sig!("character_length", [TEXT], INT4, f_length),
    sig!("length", [BPCHAR], INT4, f_bpchar_length),
    sig!("char_length", [BPCHAR], INT4, f_bpchar_length),
    sig!("character_length", [BPCHAR], INT4, f_bpchar_length),
    sig!("octet_length", [BPCHAR], INT4, f_octet_length),
    sig!("octet_length", [TEXT], INT4, f_octet_length),
    sig!("octet_length", [BYTEA], INT4, f_octet_length),
    sig!("bit_length", [TEXT], INT4, f_bit_length),
    sig!("bit_length", [BYTEA], INT4, f_bit_length),
    sig!("get_byte", [BYTEA, INT4], INT4, f_get_byte),
    sig!("set_byte", [BYTEA, INT4, INT4], BYTEA, f_set_byte),
    sig!("get_bit", [BYTEA, INT8], INT4, f_get_bit),
    sig!("lower", [TEXT], TEXT, f_lower),
    sig!("upper", [TEXT], TEXT, f_upper),
    sig!("initcap", [TEXT], TEXT, f_initcap),
    sig!("substr", [TEXT, INT4], TEXT, f_substr),
    sig!("substr", [TEXT, INT4, INT4], TEXT, f_substr),
    sig!("substr", [BYTEA, INT4], BYTEA, f_substr),
    sig!("substr", [BYTEA, INT4, INT4], BYTEA, f_substr),
    sig!("substring", [TEXT, INT4], TEXT, f_substr),
    sig!("substring", [TEXT, INT4, INT4], TEXT, f_substr),
    sig!("substring", [BYTEA, INT4], BYTEA, f_substr),
    sig!("substring", [BYTEA, INT4, INT4], BYTEA, f_substr),
    sig!("substring", [TEXT, TEXT], TEXT, f_substring_regex),
    sig!("substring", [TEXT, TEXT, TEXT], TEXT, f_substring_similar),
    sig!("similar_to_escape", [TEXT], TEXT, f_similar_to_escape),
    sig!("similar_to_escape", [TEXT, TEXT], TEXT, f_similar_to_escape),
    sig_ns!("similar_escape", [TEXT, TEXT], TEXT, f_similar_escape),
    sig!("strpos", [TEXT, TEXT], INT4, f_position),
    sig!("position", [TEXT, TEXT], INT4, f_position),
    sig!("position", [BYTEA, BYTEA], INT4, f_position),
    sig!("replace", [TEXT, TEXT, TEXT], TEXT, f_replace),
    sig!("btrim", [TEXT], TEXT, trim_args::<true, true>),
    sig!("btrim", [TEXT, TEXT], TEXT, trim_args::<true, true>),
    sig!("btrim", [BYTEA, BYTEA], BYTEA, trim_args::<true, true>),
    sig!("ltrim", [TEXT], TEXT, trim_args::<true, false>),
    sig!("ltrim", [TEXT, TEXT], TEXT, trim_args::<true, false>),
    sig!("ltrim", [BYTEA, BYTEA], BYTEA, trim_args::<true, false>),
    sig!("rtrim", [TEXT], TEXT, trim_args::<false, true>),
    sig!("rtrim", [TEXT, TEXT], TEXT, trim_args::<false, true>),
    sig!("rtrim", [BYTEA, BYTEA], BYTEA, trim_args::<false, true>),
    sig!("lpad", [TEXT, INT4], TEXT, pad::<true>),
    sig!("lpad", [TEXT, INT4, TEXT], TEXT, pad::<true>),
    sig!("rpad", [TEXT, INT4], TEXT, pad::<false>),
    sig!("rpad", [TEXT, INT4, TEXT], TEXT, pad::<false>),
    sig_var!("concat", [ANY], TEXT, f_concat),
    sig_var!("concat_ws", [TEXT, ANY], TEXT, f_concat_ws),
    sig!("left", [TEXT, INT4], TEXT, f_left),
    sig!("right", [TEXT, INT4], TEXT, f_right),
    sig!("repeat", [TEXT, INT4], TEXT, f_repeat),
    sig!("reverse", [TEXT], TEXT, f_reverse),
    sig!("split_part", [TEXT, TEXT, INT4], TEXT, f_split_part),
    sig!("starts_with", [TEXT, TEXT], BOOL, f_starts_with),
    sig!("md5", [TEXT], TEXT, f_md5),
    sig!("md5", [BYTEA], TEXT, f_md5),
    sig!("sha224", [BYTEA], BYTEA, f_sha::<224>),
    sig!("sha256", [BYTEA], BYTEA, f_sha::<256>),
    sig!("sha384", [BYTEA], BYTEA, f_sha::<384>),
    sig!("sha512", [BYTEA], BYTEA, f_sha::<512>),
    sig!("chr", [INT4], TEXT, f_chr),
    sig!("ascii", [TEXT], INT4, f_ascii),
    sig!("to_hex", [INT4], TEXT, f_to_hex),
    sig!("to_hex", [INT8], TEXT, f_to_hex),
    sig!("pg_size_bytes", [TEXT], INT8, f_pg_size_bytes),
    sig!("quote_ident", [TEXT], TEXT, f_quote_ident),
    sig!("quote_literal", [TEXT], TEXT, f_quote_literal),
    sig!("quote_literal", [ANYELEMENT], TEXT, f_quote_literal),
    sig_ns!("quote_nullable", [TEXT], TEXT, f_quote_nullable),
    sig_ns!("quote_nullable", [ANYELEMENT], TEXT, f_quote_nullable),
    sig!("regexp_replace", [TEXT, TEXT, TEXT], TEXT, f_regexp_replace),
    sig!(
        "regexp_replace",
        [TEXT, TEXT, TEXT, TEXT],
        TEXT,
        f_regexp_replace
    ),
    sig!("regexp_match", [TEXT, TEXT], TEXT_ARRAY, f_regexp_match),
    sig!(
        "regexp_match",
        [TEXT, TEXT, TEXT],
        TEXT_ARRAY,
        f_regexp_match
    ),
    sig!(
        "regexp_split_to_array",
        [TEXT, TEXT],
        TEXT_ARRAY,
        f_regexp_split_to_array
    ),
    sig!(
        "regexp_split_to_array",
        [TEXT, TEXT, TEXT],
        TEXT_ARRAY,
        f_regexp_split_to_array
    ),
    sig!("regexp_count", [TEXT, TEXT], INT4, f_regexp_count),
    sig!("regexp_like", [TEXT, TEXT], BOOL, f_regexp_like),
    sig!("regexp_like", [TEXT, TEXT, TEXT], BOOL, f_regexp_like),
    sig!("translate", [TEXT, TEXT, TEXT], TEXT, f_translate),
    sig!("overlay", [TEXT, TEXT, INT4], TEXT, f_overlay),
    sig!("overlay", [TEXT, TEXT, INT4, INT4], TEXT, f_overlay),
    sig!("encode", [BYTEA, TEXT], TEXT, f_encode),
    sig!("decode", [TEXT, TEXT], BYTEA, f_decode),
    sig!("convert_from", [BYTEA, NAME], TEXT, f_convert_from),
    sig!("convert_to", [TEXT, NAME], BYTEA, f_convert_to),
    sig!("convert", [BYTEA, NAME, NAME], BYTEA, f_convert),
    // ----- geometry -----
    sig!("area", [BOX], FLOAT8, f_box_area),
    sig!("width", [BOX], FLOAT8, f_box_width),
    sig!("height", [BOX], FLOAT8, f_box_height),
    sig!("center", [BOX], POINT, f_box_center),
    sig!("diagonal", [BOX], LSEG, f_box_diagonal),
    sig!("bound_box", [BOX, BOX], BOX, f_bound_box),
    sig!("box", [POINT, POINT], BOX, f_points_box),
    sig!("box", [POINT], BOX, f_point_box),
    sig!("point", [FLOAT8, FLOAT8], POINT, f_point),
    sig!("point", [BOX], POINT, f_box_center),
    sig!("point", [LSEG], POINT, f_lseg_center),
    sig!("lseg", [POINT, POINT], LSEG, f_lseg),
    sig!("lseg", [BOX], LSEG, f_box_diagonal),
    sig!("area", [CIRCLE], FLOAT8, f_circle_area),
    sig!("center", [CIRCLE], POINT, f_circle_center),
    sig!("point", [CIRCLE], POINT, f_circle_center),
    sig!("radius", [CIRCLE], FLOAT8, f_circle_radius),
    sig!("diameter", [CIRCLE], FLOAT8, f_circle_diameter),
    sig!("circle", [POINT, FLOAT8], CIRCLE, f_circle),
    sig!("text", [INET], TEXT, f_inet_text),
    sig!("text", [ANYELEMENT], TEXT, f_bool_cast_text),
    sig!("pg_is_in_recovery", [], BOOL, f_false),
    // ----- network addresses -----
    sig!("host", [INET], TEXT, f_inet_host),
    sig!("masklen", [INET], INT4, f_inet_masklen),
    sig!("family", [INET], INT4, f_inet_family),
    sig!("abbrev", [INET], TEXT, f_inet_abbrev),
    sig!("abbrev", [CIDR], TEXT, f_cidr_abbrev),
    sig!("network", [INET], CIDR, f_inet_network),
    sig!("broadcast", [INET], INET, f_inet_broadcast),
    sig!("netmask", [INET], INET, f_inet_netmask::<false>),
    sig!("hostmask", [INET], INET, f_inet_netmask::<true>),
    sig!("set_masklen", [INET, INT4], INET, f_set_masklen::<false>),
    sig!("set_masklen", [CIDR, INT4], CIDR, f_set_masklen::<true>),
    sig!("inet_same_family", [INET, INET], BOOL, f_inet_same_family),
    sig_ns!(
        "string_to_array",
        [TEXT, TEXT],
        TEXT_ARRAY,
        f_string_to_array
    ),
    sig_ns!(
        "string_to_array",
        [TEXT, TEXT, TEXT],
        TEXT_ARRAY,
        f_string_to_array
    ),
    sig!("array_to_string", [ANYARRAY, TEXT], TEXT, f_array_to_string),
    sig_ns!(
        "array_to_string",
        [ANYARRAY, TEXT, TEXT],
        TEXT,
        f_array_to_string_ns
    ),
    // ----- math -----
    sig!("abs", [INT2], INT2, f_abs),
    sig!("abs", [INT4], INT4, f_abs),
    sig!("abs", [INT8], INT8, f_abs),
    sig!("abs", [FLOAT4], FLOAT4, f_abs),
    sig!("abs", [FLOAT8], FLOAT8, f_abs),
    sig!("abs", [NUMERIC], NUMERIC, f_abs),
    sig!("round", [FLOAT8], FLOAT8, f_round),
    sig!("round", [NUMERIC], NUMERIC, f_round),
    sig!("round", [NUMERIC, INT4], NUMERIC, f_round),
    sig!("trunc", [FLOAT8], FLOAT8, f_trunc),
    sig!("trunc", [NUMERIC], NUMERIC, f_trunc),
    sig!("trunc", [NUMERIC, INT4], NUMERIC, f_trunc),
    sig!("ceil", [FLOAT8], FLOAT8, f_ceil),
    sig!("ceil", [NUMERIC], NUMERIC, f_ceil),
    sig!("ceiling", [FLOAT8], FLOAT8, f_ceil),
    sig!("ceiling", [NUMERIC], NUMERIC, f_ceil),
    sig!("floor", [FLOAT8], FLOAT8, f_floor),
    sig!("floor", [NUMERIC], NUMERIC, f_floor),
    sig!("sign", [FLOAT8], FLOAT8, f_sign),
    sig!("sign", [NUMERIC], NUMERIC, f_sign),
    sig!("sqrt", [FLOAT8], FLOAT8, f_sqrt),
    sig!("sqrt", [NUMERIC], NUMERIC, f_sqrt),
    sig!("cbrt", [FLOAT8], FLOAT8, f_cbrt),
    sig!("power", [FLOAT8, FLOAT8], FLOAT8, f_power),
    sig!("power", [NUMERIC, NUMERIC], NUMERIC, f_power),
    sig!("pow", [FLOAT8, FLOAT8], FLOAT8, f_power),
    sig!("pow", [NUMERIC, NUMERIC], NUMERIC, f_power),
    sig!("exp", [FLOAT8], FLOAT8, f_exp),
    sig!("exp", [NUMERIC], NUMERIC, f_exp),
    sig!("ln", [FLOAT8], FLOAT8, f_ln),
    sig!("ln", [NUMERIC], NUMERIC, f_ln),
    sig!("log", [FLOAT8], FLOAT8, f_log10),
    sig!("log", [NUMERIC], NUMERIC, f_log10),
    sig!("log", [NUMERIC, NUMERIC], NUMERIC, f_log_base),
    sig!("log10", [FLOAT8], FLOAT8, f_log10),
    sig!("log10", [NUMERIC], NUMERIC, f_log10),
    sig!("mod", [INT2, INT2], INT2, f_mod),
    sig!("mod", [INT4, INT4], INT4, f_mod),
    sig!("mod", [INT8, INT8], INT8, f_mod),
    sig!("mod", [NUMERIC, NUMERIC], NUMERIC, f_mod),
    sig!("div", [NUMERIC, NUMERIC], NUMERIC, f_div),
    sig!("gcd", [INT4, INT4], INT4, f_gcd),
    sig!("gcd", [INT8, INT8], INT8, f_gcd),
    sig!("gcd", [NUMERIC, NUMERIC], NUMERIC, f_gcd),
    sig!("lcm", [INT4, INT4], INT4, f_lcm),
    sig!("lcm", [INT8, INT8], INT8, f_lcm),
    sig!("lcm", [NUMERIC, NUMERIC], NUMERIC, f_lcm),
    sig!("pi", [], FLOAT8, f_pi),
    sig!("degrees", [FLOAT8], FLOAT8, f_degrees),
    sig!("radians", [FLOAT8], FLOAT8, f_radians),
    sig!("sin", [FLOAT8], FLOAT8, f_trig::<0>),
    sig!("cos", [FLOAT8], FLOAT8, f_trig::<1>),
    sig!("tan", [FLOAT8], FLOAT8, f_trig::<2>),
    sig!("asin", [FLOAT8], FLOAT8, f_trig::<3>),
    sig!("acos", [FLOAT8], FLOAT8, f_trig::<4>),
    sig!("atan", [FLOAT8], FLOAT8, f_trig::<5>),
    sig!("cot", [FLOAT8], FLOAT8, f_trig::<6>),
    sig!("sinh", [FLOAT8], FLOAT8, f_trig::<7>),
    sig!("cosh", [FLOAT8], FLOAT8, f_trig::<8>),
    sig!("tanh", [FLOAT8], FLOAT8, f_trig::<9>),
    sig!("asinh", [FLOAT8], FLOAT8, f_trig::<10>),
    sig!("acosh", [FLOAT8], FLOAT8, f_trig::<11>),
    sig!("atanh", [FLOAT8], FLOAT8, f_trig::<12>),
    sig!("sind", [FLOAT8], FLOAT8, f_trigd::<0>),
    sig!("cosd", [FLOAT8], FLOAT8, f_trigd::<1>),
    sig!("tand", [FLOAT8], FLOAT8, f_trigd::<2>),
    sig!("asind", [FLOAT8], FLOAT8, f_trigd::<3>),
    sig!("acosd", [FLOAT8], FLOAT8, f_trigd::<4>),
    sig!("atand", [FLOAT8], FLOAT8, f_trigd::<5>),
    sig!("cotd", [FLOAT8], FLOAT8, f_trigd::<6>),
    sig!("atan2", [FLOAT8, FLOAT8], FLOAT8, f_atan2),
    sig!("atan2d", [FLOAT8, FLOAT8], FLOAT8, f_atan2d),
    sig!("random", [], FLOAT8, f_random),
    sig!("setseed", [FLOAT8], VOID, f_setseed),
    sig!("timeofday", [], TEXT, f_timeofday),
    sig!(
        "overlaps",
        [TIMESTAMPTZ, TIMESTAMPTZ, TIMESTAMPTZ, TIMESTAMPTZ],
        BOOL,
        f_overlaps
    ),
    sig!(
        "overlaps",
        [TIMESTAMP, TIMESTAMP, TIMESTAMP, TIMESTAMP],
        BOOL,
        f_overlaps
    ),
    sig!(
        "overlaps",
        [TIMESTAMPTZ, INTERVAL, TIMESTAMPTZ, INTERVAL],
        BOOL,
        f_overlaps
    ),
    sig!(
        "overlaps",
        [TIMESTAMP, INTERVAL, TIMESTAMP, INTERVAL],
        BOOL,
        f_overlaps
    ),
    sig!("overlaps", [TIME, TIME, TIME, TIME], BOOL, f_overlaps),
    sig!(
        "overlaps",
        [TIME, INTERVAL, TIME, INTERVAL],
        BOOL,
        f_overlaps
    ),
    sig!("scale", [NUMERIC], INT4, f_scale),
    sig!("min_scale", [NUMERIC], INT4, f_min_scale),
    sig!("trim_scale", [NUMERIC], NUMERIC, f_trim_scale),
    sig!("factorial", [INT8], NUMERIC, f_factorial),
    sig!(
        "width_bucket",
        [FLOAT8, FLOAT8, FLOAT8, INT4],
        INT4,
        f_width_bucket
    ),
    sig!(
        "width_bucket",
        [NUMERIC, NUMERIC, NUMERIC, INT4],
        INT4,
        f_width_bucket
    ),
    // ----- date/time -----
    sig!("date_trunc", [TEXT, TIMESTAMP], TIMESTAMP, f_date_trunc),
    sig!("date_trunc", [TEXT, TIMESTAMPTZ], TIMESTAMPTZ, f_date_trunc),
    sig!(
        "date_trunc",
        [TEXT, TIMESTAMPTZ, TEXT],
        TIMESTAMPTZ,
        f_date_trunc
    ),
    sig!("date_trunc", [TEXT, INTERVAL], INTERVAL, f_date_trunc),
    sig!("date_part", [TEXT, TIMESTAMP], FLOAT8, date_part_as::<TS>),
    sig!(
        "date_part",
        [TEXT, TIMESTAMPTZ],
        FLOAT8,
        date_part_as::<TSTZ>
    ),
    sig!("date_part", [TEXT, DATE], FLOAT8, date_part_as::<DATE>),
    sig!("date_part", [TEXT, TIME], FLOAT8, date_part_as::<TIME>),
    sig!(
        "date_part",
        [TEXT, TIMETZ],
        FLOAT8,
        date_part_as::<TIMETZ_T>
    ),
    sig!("date_part", [TEXT, INTERVAL], FLOAT8, date_part_as::<IVL>),
    sig!("extract", [TEXT, TIMESTAMP], NUMERIC, extract_as::<TS>),
    sig!("extract", [TEXT, TIMESTAMPTZ], NUMERIC, extract_as::<TSTZ>),
    sig!("extract", [TEXT, DATE], NUMERIC, extract_as::<DATE>),
    sig!("extract", [TEXT, TIME], NUMERIC, extract_as::<TIME>),
    sig!("extract", [TEXT, TIMETZ], NUMERIC, extract_as::<TIMETZ_T>),
    sig!("extract", [TEXT, INTERVAL], NUMERIC, extract_as::<IVL>),
    sig!("age", [TIMESTAMP, TIMESTAMP], INTERVAL, f_age),
    sig!("age", [TIMESTAMPTZ, TIMESTAMPTZ], INTERVAL, f_age),
    sig!("age", [TIMESTAMP], INTERVAL, f_age),
    sig!("age", [TIMESTAMPTZ], INTERVAL, f_age),
    sig!("make_date", [INT4, INT4, INT4], DATE, f_make_date),
    sig!("make_time", [INT4, INT4, FLOAT8], TIME, f_make_time),
    sig!(
        "make_timestamp",
        [INT4, INT4, INT4, INT4, INT4, FLOAT8],
        TIMESTAMP,
        f_make_timestamp
    ),
    sig!(
        "make_timestamptz",
        [INT4, INT4, INT4, INT4, INT4, FLOAT8],
        TIMESTAMPTZ,
        f_make_timestamptz
    ),
    sig!(
        "make_timestamptz",
        [INT4, INT4, INT4, INT4, INT4, FLOAT8, TEXT],
        TIMESTAMPTZ,
        f_make_timestamptz
    ),
    sig!("make_interval", [], INTERVAL, f_make_interval),
    sig!("make_interval", [INT4], INTERVAL, f_make_interval),
    sig!("make_interval", [INT4, INT4], INTERVAL, f_make_interval),
    sig!(
        "make_interval",
        [INT4, INT4, INT4],
        INTERVAL,
        f_make_interval
    ),
    sig!(
        "make_interval",
        [INT4, INT4, INT4, INT4],
        INTERVAL,
        f_make_interval
    ),
    sig!(
        "make_interval",
        [INT4, INT4, INT4, INT4, INT4],
        INTERVAL,
        f_make_interval
    ),
    sig!(
        "make_interval",
        [INT4, INT4, INT4, INT4, INT4, INT4],
        INTERVAL,
        f_make_interval
    ),
    sig!(
        "make_interval",
        [INT4, INT4, INT4, INT4, INT4, INT4, FLOAT8],
        INTERVAL,
        f_make_interval
    ),
    sig!("to_timestamp", [FLOAT8], TIMESTAMPTZ, f_to_timestamp_float),
    sig!(
        "to_timestamp",
        [TEXT, TEXT],
        TIMESTAMPTZ,
        f_to_timestamp_fmt
    ),
    sig!("to_date", [TEXT, TEXT], DATE, f_to_date),
    sig!("to_number", [TEXT, TEXT], NUMERIC, f_to_number),
    sig!("to_char", [TIMESTAMP, TEXT], TEXT, f_to_char),
    sig!("to_char", [TIMESTAMPTZ, TEXT], TEXT, f_to_char),
    sig!("to_char", [INTERVAL, TEXT], TEXT, f_to_char),
    sig!("to_char", [INT4, TEXT], TEXT, f_to_char),
    sig!("to_char", [INT8, TEXT], TEXT, f_to_char),
    sig!("to_char", [FLOAT4, TEXT], TEXT, f_to_char),
    sig!("to_char", [FLOAT8, TEXT], TEXT, f_to_char),
    sig!("to_char", [NUMERIC, TEXT], TEXT, f_to_char),
    sig!("isfinite", [DATE], BOOL, f_isfinite),
    sig!("isfinite", [TIMESTAMP], BOOL, f_isfinite),
    sig!("isfinite", [TIMESTAMPTZ], BOOL, f_isfinite),
    sig!("isfinite", [INTERVAL], BOOL, f_isfinite),
    sig!("justify_days", [INTERVAL], INTERVAL, f_justify::<0>),
    sig!("justify_hours", [INTERVAL], INTERVAL, f_justify::<1>),
    sig!("justify_interval", [INTERVAL], INTERVAL, f_justify::<2>),
    sig!("timezone", [TEXT, TIMESTAMPTZ], TIMESTAMP, f_timezone_tstz),
    sig!("timezone", [TEXT, TIMETZ], TIMETZ, f_timezone_timetz),
    sig!("timezone", [INTERVAL, TIMETZ], TIMETZ, f_timezone_timetz),
    sig!("timezone", [TEXT, TIMESTAMP], TIMESTAMPTZ, f_timezone_ts),
    sig!(
        "timezone",
        [INTERVAL, TIMESTAMPTZ],
        TIMESTAMP,
        f_timezone_tstz
    ),
    sig!(
        "timezone",
        [INTERVAL, TIMESTAMP],
        TIMESTAMPTZ,
        f_timezone_ts
    ),
    // ----- arrays -----
    sig!("array_length", [ANYARRAY, INT4], INT4, f_array_length),
    sig!("array_lower", [ANYARRAY, INT4], INT4, f_array_lower),
    sig!("array_upper", [ANYARRAY, INT4], INT4, f_array_upper),
    sig!("cardinality", [ANYARRAY], INT4, f_cardinality),
    sig!("array_ndims", [ANYARRAY], INT4, f_array_ndims),
    sig!("array_dims", [ANYARRAY], TEXT, f_array_dims),
    sig_ns!(
        "array_position",
        [ANYARRAY, ANYELEMENT],
        INT4,
        f_array_position
    ),
    sig_ns!(
        "array_position",
        [ANYARRAY, ANYELEMENT, INT4],
        INT4,
        f_array_position
    ),
    sig_ns!(
        "array_positions",
        [ANYARRAY, ANYELEMENT],
        INT4_ARRAY,
        f_array_positions
    ),
    sig_ns!(
        "array_append",
        [ANYARRAY, ANYELEMENT],
        ANYARRAY,
        f_array_append
    ),
    sig_ns!(
        "array_prepend",
        [ANYELEMENT, ANYARRAY],
        ANYARRAY,
        f_array_prepend
    ),
    sig_ns!("array_cat", [ANYARRAY, ANYARRAY], ANYARRAY, f_array_cat),
    sig_ns!(
        "array_remove",
        [ANYARRAY, ANYELEMENT],
        ANYARRAY,
        f_array_remove
    ),
    sig_ns!(
        "array_replace",
        [ANYARRAY, ANYELEMENT, ANYELEMENT],
        ANYARRAY,
        f_array_replace
    ),
    sig!("trim_array", [ANYARRAY, INT4], ANYARRAY, f_trim_array),
    // ----- json -----
    sig!("to_json", [JSON], JSON, f_to_json::<false, JSON_T>),
    sig!("to_json", [JSONB], JSON, f_to_json::<false, JSONB_T>),
    sig!("to_json", [TEXT], JSON, f_to_json::<false, TEXT_T>),
    sig!("to_json", [ANYELEMENT], JSON, f_to_json::<false, ANYEL_T>),
    sig!("to_jsonb", [JSON], JSONB, f_to_json::<true, JSON_T>),
    sig!("to_jsonb", [JSONB], JSONB, f_to_json::<true, JSONB_T>),
    sig!("to_jsonb", [TEXT], JSONB, f_to_json::<true, TEXT_T>),
    sig!("to_jsonb", [ANYELEMENT], JSONB, f_to_json::<true, ANYEL_T>),
    sig!("row_to_json", [RECORD], JSON, f_to_json::<false, ANYEL_T>),
    sig!(
        "array_to_json",
        [ANYARRAY],
        JSON,
        f_to_json::<false, ANYEL_T>
    ),
    sig_var!(
        "json_build_object",
        [ANY],
        JSON,
        f_json_build_object::<false>
    ),
    sig_var!(
        "jsonb_build_object",
        [ANY],
        JSONB,
        f_json_build_object::<true>
    ),
    sig!("json_build_object", [], JSON, f_json_build_object::<false>),
    sig!("jsonb_build_object", [], JSONB, f_json_build_object::<true>),
    sig_var!("json_build_array", [ANY], JSON, f_json_build_array::<false>),
    sig_var!(
        "jsonb_build_array",
        [ANY],
        JSONB,
        f_json_build_array::<true>
    ),
    sig!("json_build_array", [], JSON, f_json_build_array::<false>),
    sig!("jsonb_build_array", [], JSONB, f_json_build_array::<true>),
    sig!("json_typeof", [JSON], TEXT, f_json_typeof::<false>),
    sig!("jsonb_typeof", [JSONB], TEXT, f_json_typeof::<true>),
    sig!(
        "json_array_length",
        [JSON],
        INT4,
        f_json_array_length::<false>
    ),
    sig!(
        "jsonb_array_length",
        [JSONB],
        INT4,
        f_json_array_length::<true>
    ),
    sig!("jsonb_pretty", [JSONB], TEXT, f_jsonb_pretty),
    sig!("jsonb_strip_nulls", [JSONB], JSONB, f_jsonb_strip_nulls),
    sig!(
        "jsonb_set",
        [JSONB, TEXT_ARRAY, JSONB],
        JSONB,
        jsonb_set::f_jsonb_set
    ),
    sig!(
        "jsonb_set",
        [JSONB, TEXT_ARRAY, JSONB, BOOL],
        JSONB,
        jsonb_set::f_jsonb_set
    ),
    sig!(
        "jsonb_insert",
        [JSONB, TEXT_ARRAY, JSONB],
        JSONB,
        jsonb_set::f_jsonb_insert
    ),
    sig!(
        "jsonb_insert",
        [JSONB, TEXT_ARRAY, JSONB, BOOL],
        JSONB,
        jsonb_set::f_jsonb_insert
    ),
    sig_var!(
        "json_extract_path",
        [JSON, TEXT],
        JSON,
        f_json_extract_path::<false, false>
    ),
    sig_var!(
        "json_extract_path_text",
        [JSON, TEXT],
        TEXT,
        f_json_extract_path::<false, true>
    ),
    sig_var!(
        "jsonb_extract_path",
        [JSONB, TEXT],
        JSONB,
        f_json_extract_path::<true, false>
    ),
    sig_var!(
        "jsonb_extract_path_text",
        [JSONB, TEXT],
        TEXT,
        f_json_extract_path::<true, true>
    ),
    // ----- misc -----
    sig!("to_regtype", [TEXT], REGTYPE, f_to_regtype),
    sig_var!("num_nulls", [ANY], INT4, f_num_nulls),
    sig_var!("num_nonnulls", [ANY], INT4, f_num_nonnulls),
    sig!("gen_random_uuid", [], UUID, f_gen_random_uuid),
    sig_ns!("format_type", [OID, INT4], TEXT, f_format_type),
];
