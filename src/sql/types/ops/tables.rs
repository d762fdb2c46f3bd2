//! The operator tables: for each operator name, the candidate signatures (left, right and
//! result type, as PostgreSQL's pg_operator rows) with the function that implements each.
//! `binary_operators` / `unary_operators` are what the planner resolves a call over, so a
//! signature missing here is an operator that does not exist; `find_binary` picks an exact
//! signature for callers that know the operand types. The small macros build rows; the
//! arithmetic and comparison tables are generated per type family by `arith_table!` and
//! `cmp_table!`.

use super::arith::{
    abs_float, abs_int, abs_num, f8_cbrt, f8_pow_op, f8_sqrt, float_arith, identity, int_arith,
    interval_arith, neg_float, neg_int, neg_interval, neg_num, not_int, num_arith, num_pow_op,
};
use super::array::{array_concat, array_contained_op, array_contains_op, array_overlap_op};
use super::datetime::{
    date_minus_date, date_minus_int, date_minus_interval, date_plus_int, date_plus_interval,
    date_plus_time, time_minus_interval, time_minus_time, time_plus_interval, timetz_interval,
    ts_minus_interval, ts_minus_ts, ts_plus_interval, tstz_minus_interval, tstz_plus_interval,
};
use super::geo::{
    box_center, box_distance, box_holds_point, box_intersect, box_point_op, box_test,
    circle_center, circle_distance, circle_test, lseg_center, point_distance, point_op, point_test,
    B_ABOVE, B_ABOVE_EQ, B_BELOW, B_BELOW_EQ, B_CONTAIN, B_CONTAINED, B_EQ, B_GE, B_GT, B_LE,
    B_LEFT, B_LT, B_OVERABOVE, B_OVERBELOW, B_OVERLAP, B_OVERLEFT, B_OVERRIGHT, B_RIGHT, B_SAME,
    C_NE, P_ABOVE, P_BELOW, P_HORIZ, P_LEFT, P_NE, P_RIGHT, P_SAME, P_VERT,
};
use super::inet::{inet_overlap, inet_subnet};
use super::json::{
    json_get, json_get_path, jsonb_concat, jsonb_contains_op, jsonb_delete, jsonb_exists,
};
use super::lsn::{lsn_minus_lsn, lsn_shift};
use super::order::{bpchar_cmp, cmp_op, regtype_cmp, tstz_cross_cmp, xid8_cmp, xid_int4_cmp};
use super::text::{bpchar_like_op, bytea_concat, like_op, regex_op, starts_with_op, text_concat};
use super::{
    BinFn, BinOp, UnOp, ADD, AND, DIV, EQ, GE, GT, LE, LT, MOD, MUL, NE, OR, SHL, SHR, SUB, XOR,
};
use crate::sql::types::Type;

// ---------------------------------------------------------------------------------------------
// Operator tables
// ---------------------------------------------------------------------------------------------

macro_rules! u {
    ($a:ident, $res:ident, $f:expr) => {
        UnOp {
            arg: Type::$a,
            result: Type::$res,
            f: $f,
        }
    };
}

/// The arithmetic operator table for `+ - * /` (same pattern for each).
macro_rules! arith_table {
    ($name:ident, $op:expr, [$($extra:expr),*]) => {
        static $name: &[BinOp] = &[
            b!(INT2, INT2, INT2, int_arith::<{ $op }, 2>),
            b!(INT4, INT4, INT4, int_arith::<{ $op }, 4>),
            b!(INT8, INT8, INT8, int_arith::<{ $op }, 8>),
            b!(INT2, INT4, INT4, int_arith::<{ $op }, 4>),
            b!(INT4, INT2, INT4, int_arith::<{ $op }, 4>),
            b!(INT2, INT8, INT8, int_arith::<{ $op }, 8>),
            b!(INT8, INT2, INT8, int_arith::<{ $op }, 8>),
            b!(INT4, INT8, INT8, int_arith::<{ $op }, 8>),
            b!(INT8, INT4, INT8, int_arith::<{ $op }, 8>),
            b!(FLOAT4, FLOAT4, FLOAT4, float_arith::<{ $op }, 4>),
            b!(FLOAT8, FLOAT8, FLOAT8, float_arith::<{ $op }, 8>),
            b!(FLOAT4, FLOAT8, FLOAT8, float_arith::<{ $op }, 8>),
            b!(FLOAT8, FLOAT4, FLOAT8, float_arith::<{ $op }, 8>),
            b!(NUMERIC, NUMERIC, NUMERIC, num_arith::<{ $op }>),
            $($extra),*
        ];
    };
}

arith_table!(
    STAR,
    MUL,
    [
        b!(INTERVAL, FLOAT8, INTERVAL, interval_arith::<MUL>),
        b!(FLOAT8, INTERVAL, INTERVAL, interval_arith::<MUL>),
        b!(POINT, POINT, POINT, point_op::<MUL>),
        b!(BOX, POINT, BOX, box_point_op::<MUL>)
    ]
);
arith_table!(
    SLASH,
    DIV,
    [
        b!(INTERVAL, FLOAT8, INTERVAL, interval_arith::<DIV>),
        b!(POINT, POINT, POINT, point_op::<DIV>),
        b!(BOX, POINT, BOX, box_point_op::<DIV>)
    ]
);

static PLUS: &[BinOp] = &[
    b!(INT2, INT2, INT2, int_arith::<ADD, 2>),
    b!(INT4, INT4, INT4, int_arith::<ADD, 4>),
    b!(INT8, INT8, INT8, int_arith::<ADD, 8>),
    b!(INT2, INT4, INT4, int_arith::<ADD, 4>),
    b!(INT4, INT2, INT4, int_arith::<ADD, 4>),
    b!(INT2, INT8, INT8, int_arith::<ADD, 8>),
    b!(INT8, INT2, INT8, int_arith::<ADD, 8>),
    b!(INT4, INT8, INT8, int_arith::<ADD, 8>),
    b!(INT8, INT4, INT8, int_arith::<ADD, 8>),
    b!(FLOAT4, FLOAT4, FLOAT4, float_arith::<ADD, 4>),
    b!(FLOAT8, FLOAT8, FLOAT8, float_arith::<ADD, 8>),
    b!(FLOAT4, FLOAT8, FLOAT8, float_arith::<ADD, 8>),
    b!(FLOAT8, FLOAT4, FLOAT8, float_arith::<ADD, 8>),
    b!(NUMERIC, NUMERIC, NUMERIC, num_arith::<ADD>),
    b!(DATE, INT4, DATE, date_plus_int),
    b!(INT4, DATE, DATE, date_plus_int),
    b!(DATE, INTERVAL, TIMESTAMP, date_plus_interval),
    b!(INTERVAL, DATE, TIMESTAMP, date_plus_interval),
    b!(DATE, TIME, TIMESTAMP, date_plus_time),
    b!(TIME, DATE, TIMESTAMP, date_plus_time),
    b!(TIMESTAMP, INTERVAL, TIMESTAMP, ts_plus_interval),
    b!(INTERVAL, TIMESTAMP, TIMESTAMP, ts_plus_interval),
    b!(TIMESTAMPTZ, INTERVAL, TIMESTAMPTZ, tstz_plus_interval),
    b!(INTERVAL, TIMESTAMPTZ, TIMESTAMPTZ, tstz_plus_interval),
    b!(TIME, INTERVAL, TIME, time_plus_interval),
    b!(INTERVAL, TIME, TIME, time_plus_interval),
    b!(TIMETZ, INTERVAL, TIMETZ, timetz_interval::<ADD>),
    b!(INTERVAL, TIMETZ, TIMETZ, timetz_interval::<ADD>),
    b!(INTERVAL, INTERVAL, INTERVAL, interval_arith::<ADD>),
    b!(PG_LSN, NUMERIC, PG_LSN, lsn_shift::<ADD>),
    b!(NUMERIC, PG_LSN, PG_LSN, lsn_shift::<ADD>),
    b!(POINT, POINT, POINT, point_op::<ADD>),
    b!(BOX, POINT, BOX, box_point_op::<ADD>),
];

static MINUS: &[BinOp] = &[
    b!(INT2, INT2, INT2, int_arith::<SUB, 2>),
    b!(INT4, INT4, INT4, int_arith::<SUB, 4>),
    b!(INT8, INT8, INT8, int_arith::<SUB, 8>),
    b!(INT2, INT4, INT4, int_arith::<SUB, 4>),
    b!(INT4, INT2, INT4, int_arith::<SUB, 4>),
    b!(INT2, INT8, INT8, int_arith::<SUB, 8>),
    b!(INT8, INT2, INT8, int_arith::<SUB, 8>),
    b!(INT4, INT8, INT8, int_arith::<SUB, 8>),
    b!(INT8, INT4, INT8, int_arith::<SUB, 8>),
    b!(FLOAT4, FLOAT4, FLOAT4, float_arith::<SUB, 4>),
    b!(FLOAT8, FLOAT8, FLOAT8, float_arith::<SUB, 8>),
    b!(FLOAT4, FLOAT8, FLOAT8, float_arith::<SUB, 8>),
    b!(FLOAT8, FLOAT4, FLOAT8, float_arith::<SUB, 8>),
    b!(NUMERIC, NUMERIC, NUMERIC, num_arith::<SUB>),
    b!(DATE, INT4, DATE, date_minus_int),
    b!(DATE, DATE, INT4, date_minus_date),
    b!(DATE, INTERVAL, TIMESTAMP, date_minus_interval),
    b!(TIMESTAMP, INTERVAL, TIMESTAMP, ts_minus_interval),
    b!(TIMESTAMP, TIMESTAMP, INTERVAL, ts_minus_ts),
    b!(TIMESTAMPTZ, INTERVAL, TIMESTAMPTZ, tstz_minus_interval),
    b!(TIMESTAMPTZ, TIMESTAMPTZ, INTERVAL, ts_minus_ts),
    b!(PG_LSN, PG_LSN, NUMERIC, lsn_minus_lsn),
    b!(PG_LSN, NUMERIC, PG_LSN, lsn_shift::<SUB>),
    b!(TIME, INTERVAL, TIME, time_minus_interval),
    b!(TIMETZ, INTERVAL, TIMETZ, timetz_interval::<SUB>),
    b!(TIME, TIME, INTERVAL, time_minus_time),
    b!(INTERVAL, INTERVAL, INTERVAL, interval_arith::<SUB>),
    b!(JSONB, TEXT, JSONB, jsonb_delete),
    b!(JSONB, INT4, JSONB, jsonb_delete),
    b!(JSONB, TEXT_ARRAY, JSONB, jsonb_delete),
    b!(POINT, POINT, POINT, point_op::<SUB>),
    b!(BOX, POINT, BOX, box_point_op::<SUB>),
];

static PERCENT: &[BinOp] = &[
    b!(INT2, INT2, INT2, int_arith::<MOD, 2>),
    b!(INT4, INT4, INT4, int_arith::<MOD, 4>),
    b!(INT8, INT8, INT8, int_arith::<MOD, 8>),
    b!(NUMERIC, NUMERIC, NUMERIC, num_arith::<MOD>),
];

static POW: &[BinOp] = &[
    b!(FLOAT8, FLOAT8, FLOAT8, f8_pow_op),
    b!(NUMERIC, NUMERIC, NUMERIC, num_pow_op),
];

macro_rules! bit_table {
    ($name:ident, $op:expr) => {
        static $name: &[BinOp] = &[
            b!(INT2, INT2, INT2, int_arith::<{ $op }, 2>),
            b!(INT4, INT4, INT4, int_arith::<{ $op }, 4>),
            b!(INT8, INT8, INT8, int_arith::<{ $op }, 8>),
        ];
    };
}

bit_table!(BIT_AND, AND);
bit_table!(BIT_OR, OR);
static BIT_XOR: &[BinOp] = &[
    b!(INT2, INT2, INT2, int_arith::<XOR, 2>),
    b!(INT4, INT4, INT4, int_arith::<XOR, 4>),
    b!(INT8, INT8, INT8, int_arith::<XOR, 8>),
    b!(BOX, BOX, BOX, box_intersect),
];

static SHIFT_L: &[BinOp] = &[
    b!(INET, INET, BOOL, inet_subnet::<false, true>),
    b!(BOX, BOX, BOOL, box_test::<B_LEFT>),
    b!(CIRCLE, CIRCLE, BOOL, circle_test::<B_LEFT>),
    b!(POINT, POINT, BOOL, point_test::<P_LEFT>),
    b!(INT2, INT4, INT2, int_arith::<SHL, 2>),
    b!(INT4, INT4, INT4, int_arith::<SHL, 4>),
    b!(INT8, INT4, INT8, int_arith::<SHL, 8>),
];

static SHIFT_R: &[BinOp] = &[
    b!(INET, INET, BOOL, inet_subnet::<true, true>),
    b!(BOX, BOX, BOOL, box_test::<B_RIGHT>),
    b!(CIRCLE, CIRCLE, BOOL, circle_test::<B_RIGHT>),
    b!(POINT, POINT, BOOL, point_test::<P_RIGHT>),
    b!(INT2, INT4, INT2, int_arith::<SHR, 2>),
    b!(INT4, INT4, INT4, int_arith::<SHR, 4>),
    b!(INT8, INT4, INT8, int_arith::<SHR, 8>),
];

/// Comparison table for one operator: same-type comparisons for every type plus the cross-type
/// families PostgreSQL has (integers of different widths, float4/float8, date/timestamp/
/// timestamptz, text/name).
macro_rules! cmp_table {
    ($name:ident, $op:expr) => {
        cmp_table!($name, $op, []);
    };
    // `$extra`: signatures only this comparison has (xid has = and <> but no ordering).
    ($name:ident, $op:expr, [$($extra:expr),*]) => {
        static $name: &[BinOp] = &[
            b!(BOOL, BOOL, BOOL, cmp_op::<{ $op }>),
            b!(INT2, INT2, BOOL, cmp_op::<{ $op }>),
            b!(INT4, INT4, BOOL, cmp_op::<{ $op }>),
            b!(INT8, INT8, BOOL, cmp_op::<{ $op }>),
            b!(INT2, INT4, BOOL, cmp_op::<{ $op }>),
            b!(INT4, INT2, BOOL, cmp_op::<{ $op }>),
            b!(INT2, INT8, BOOL, cmp_op::<{ $op }>),
            b!(INT8, INT2, BOOL, cmp_op::<{ $op }>),
            b!(INT4, INT8, BOOL, cmp_op::<{ $op }>),
            b!(INT8, INT4, BOOL, cmp_op::<{ $op }>),
            b!(FLOAT4, FLOAT4, BOOL, cmp_op::<{ $op }>),
            b!(FLOAT8, FLOAT8, BOOL, cmp_op::<{ $op }>),
            b!(FLOAT4, FLOAT8, BOOL, cmp_op::<{ $op }>),
            b!(FLOAT8, FLOAT4, BOOL, cmp_op::<{ $op }>),
            b!(NUMERIC, NUMERIC, BOOL, cmp_op::<{ $op }>),
            b!(TEXT, TEXT, BOOL, cmp_op::<{ $op }>),
            b!(BPCHAR, BPCHAR, BOOL, bpchar_cmp::<{ $op }>),
            b!(NAME, NAME, BOOL, cmp_op::<{ $op }>),
            b!(NAME, TEXT, BOOL, cmp_op::<{ $op }>),
            b!(TEXT, NAME, BOOL, cmp_op::<{ $op }>),
            b!(CHAR, CHAR, BOOL, cmp_op::<{ $op }>),
            b!(BYTEA, BYTEA, BOOL, cmp_op::<{ $op }>),
            b!(DATE, DATE, BOOL, cmp_op::<{ $op }>),
            b!(TIME, TIME, BOOL, cmp_op::<{ $op }>),
            b!(TIMETZ, TIMETZ, BOOL, cmp_op::<{ $op }>),
            b!(INET, INET, BOOL, cmp_op::<{ $op }>),
            b!(TIMESTAMP, TIMESTAMP, BOOL, cmp_op::<{ $op }>),
            b!(TIMESTAMPTZ, TIMESTAMPTZ, BOOL, cmp_op::<{ $op }>),
            b!(DATE, TIMESTAMP, BOOL, cmp_op::<{ $op }>),
            b!(TIMESTAMP, DATE, BOOL, cmp_op::<{ $op }>),
            b!(DATE, TIMESTAMPTZ, BOOL, tstz_cross_cmp::<{ $op }>),
            b!(TIMESTAMPTZ, DATE, BOOL, tstz_cross_cmp::<{ $op }>),
            b!(TIMESTAMP, TIMESTAMPTZ, BOOL, tstz_cross_cmp::<{ $op }>),
            b!(TIMESTAMPTZ, TIMESTAMP, BOOL, tstz_cross_cmp::<{ $op }>),
            b!(INTERVAL, INTERVAL, BOOL, cmp_op::<{ $op }>),
            b!(OID, OID, BOOL, cmp_op::<{ $op }>),
            b!(REGTYPE, REGTYPE, BOOL, regtype_cmp::<{ $op }>),
            b!(UUID, UUID, BOOL, cmp_op::<{ $op }>),
            b!(PG_LSN, PG_LSN, BOOL, cmp_op::<{ $op }>),
            b!(TID, TID, BOOL, cmp_op::<{ $op }>),
            b!(XID8, XID8, BOOL, xid8_cmp::<{ $op }>),
            b!(JSONB, JSONB, BOOL, cmp_op::<{ $op }>),
            b!(ANYARRAY, ANYARRAY, BOOL, cmp_op::<{ $op }>),
            b!(RECORD, RECORD, BOOL, cmp_op::<{ $op }>),
            $($extra,)*
        ];
    };
}

cmp_table!(
    CMP_EQ,
    EQ,
    [
        b!(XID, XID, BOOL, cmp_op::<{ EQ }>),
        b!(XID, INT4, BOOL, xid_int4_cmp::<{ EQ }>),
        b!(CID, CID, BOOL, cmp_op::<{ EQ }>),
        b!(BOX, BOX, BOOL, box_test::<B_EQ>),
        b!(CIRCLE, CIRCLE, BOOL, circle_test::<B_EQ>)
    ]
);
cmp_table!(
    CMP_NE,
    NE,
    [
        b!(XID, XID, BOOL, cmp_op::<{ NE }>),
        b!(XID, INT4, BOOL, xid_int4_cmp::<{ NE }>),
        b!(POINT, POINT, BOOL, point_test::<P_NE>),
        b!(CIRCLE, CIRCLE, BOOL, circle_test::<C_NE>)
    ]
);
// Boxes compare by their areas (box_lt ...); they have no `<>`.
cmp_table!(
    CMP_LT,
    LT,
    [
        b!(BOX, BOX, BOOL, box_test::<B_LT>),
        b!(CIRCLE, CIRCLE, BOOL, circle_test::<B_LT>)
    ]
);
cmp_table!(
    CMP_LE,
    LE,
    [
        b!(BOX, BOX, BOOL, box_test::<B_LE>),
        b!(CIRCLE, CIRCLE, BOOL, circle_test::<B_LE>)
    ]
);
cmp_table!(
    CMP_GT,
    GT,
    [
        b!(BOX, BOX, BOOL, box_test::<B_GT>),
        b!(CIRCLE, CIRCLE, BOOL, circle_test::<B_GT>)
    ]
);
cmp_table!(
    CMP_GE,
    GE,
    [
        b!(BOX, BOX, BOOL, box_test::<B_GE>),
        b!(CIRCLE, CIRCLE, BOOL, circle_test::<B_GE>)
    ]
);

static JSON_GET: &[BinOp] = &[
    b!(JSONB, TEXT, JSONB, json_get::<true, false>),
    b!(JSONB, INT4, JSONB, json_get::<true, false>),
    b!(JSON, TEXT, JSON, json_get::<false, false>),
    b!(JSON, INT4, JSON, json_get::<false, false>),
];
static JSON_GET_TEXT: &[BinOp] = &[
    b!(JSONB, TEXT, TEXT, json_get::<true, true>),
    b!(JSONB, INT4, TEXT, json_get::<true, true>),
    b!(JSON, TEXT, TEXT, json_get::<false, true>),
    b!(JSON, INT4, TEXT, json_get::<false, true>),
];
static JSON_PATH: &[BinOp] = &[
    b!(JSONB, TEXT_ARRAY, JSONB, json_get_path::<true, false>),
    b!(JSON, TEXT_ARRAY, JSON, json_get_path::<false, false>),
];
static JSON_PATH_TEXT: &[BinOp] = &[
    b!(JSONB, TEXT_ARRAY, TEXT, json_get_path::<true, true>),
    b!(JSON, TEXT_ARRAY, TEXT, json_get_path::<false, true>),
];
static JSONB_EXISTS: &[BinOp] = &[b!(JSONB, TEXT, BOOL, jsonb_exists::<0>)];
static JSONB_EXISTS_ANY: &[BinOp] = &[
    b!(JSONB, TEXT_ARRAY, BOOL, jsonb_exists::<1>),
    b!(POINT, POINT, BOOL, point_test::<P_VERT>),
];
static JSONB_EXISTS_ALL: &[BinOp] = &[b!(JSONB, TEXT_ARRAY, BOOL, jsonb_exists::<2>)];

static CONCAT: &[BinOp] = &[
    b!(JSONB, JSONB, JSONB, jsonb_concat),
    b!(TEXT, TEXT, TEXT, text_concat),
    b!(TEXT, ANYELEMENT, TEXT, text_concat),
    b!(ANYELEMENT, TEXT, TEXT, text_concat),
    b!(BYTEA, BYTEA, BYTEA, bytea_concat),
    b!(ANYARRAY, ANYARRAY, ANYARRAY, array_concat),
    b!(ANYARRAY, ANYELEMENT, ANYARRAY, array_concat),
    b!(ANYELEMENT, ANYARRAY, ANYARRAY, array_concat),
];

pub(super) static LIKE: &[BinOp] = &[
    b!(TEXT, TEXT, BOOL, like_op::<false, false>),
    b!(BPCHAR, TEXT, BOOL, bpchar_like_op::<false, false>),
    b!(NAME, TEXT, BOOL, like_op::<false, false>),
    b!(BYTEA, BYTEA, BOOL, like_op::<false, false>),
];
static NOT_LIKE: &[BinOp] = &[
    b!(TEXT, TEXT, BOOL, like_op::<true, false>),
    b!(BPCHAR, TEXT, BOOL, bpchar_like_op::<true, false>),
    b!(NAME, TEXT, BOOL, like_op::<true, false>),
    b!(BYTEA, BYTEA, BOOL, like_op::<true, false>),
];
static ILIKE: &[BinOp] = &[
    b!(TEXT, TEXT, BOOL, like_op::<false, true>),
    b!(BPCHAR, TEXT, BOOL, bpchar_like_op::<false, true>),
    b!(NAME, TEXT, BOOL, like_op::<false, true>),
];
static NOT_ILIKE: &[BinOp] = &[
    b!(TEXT, TEXT, BOOL, like_op::<true, true>),
    b!(BPCHAR, TEXT, BOOL, bpchar_like_op::<true, true>),
    b!(NAME, TEXT, BOOL, like_op::<true, true>),
];
static RE_MATCH: &[BinOp] = &[
    b!(TEXT, TEXT, BOOL, regex_op::<false, false>),
    b!(NAME, TEXT, BOOL, regex_op::<false, false>),
];
static RE_NOT_MATCH: &[BinOp] = &[
    b!(TEXT, TEXT, BOOL, regex_op::<true, false>),
    b!(NAME, TEXT, BOOL, regex_op::<true, false>),
];
static RE_IMATCH: &[BinOp] = &[
    b!(TEXT, TEXT, BOOL, regex_op::<false, true>),
    b!(NAME, TEXT, BOOL, regex_op::<false, true>),
];
static RE_NOT_IMATCH: &[BinOp] = &[
    b!(TEXT, TEXT, BOOL, regex_op::<true, true>),
    b!(NAME, TEXT, BOOL, regex_op::<true, true>),
];
// The pattern comparisons (text_pattern_ops, bpchar_pattern_ops): byte by byte, which is
// what the ordinary comparisons already do under threadgres's C collation.
static PATTERN_LT: &[BinOp] = &[
    b!(TEXT, TEXT, BOOL, cmp_op::<{ LT }>),
    b!(BPCHAR, BPCHAR, BOOL, bpchar_cmp::<{ LT }>),
];
static PATTERN_LE: &[BinOp] = &[
    b!(TEXT, TEXT, BOOL, cmp_op::<{ LE }>),
    b!(BPCHAR, BPCHAR, BOOL, bpchar_cmp::<{ LE }>),
];
static PATTERN_GE: &[BinOp] = &[
    b!(TEXT, TEXT, BOOL, cmp_op::<{ GE }>),
    b!(BPCHAR, BPCHAR, BOOL, bpchar_cmp::<{ GE }>),
];
static PATTERN_GT: &[BinOp] = &[
    b!(TEXT, TEXT, BOOL, cmp_op::<{ GT }>),
    b!(BPCHAR, BPCHAR, BOOL, bpchar_cmp::<{ GT }>),
];
static STARTS_WITH: &[BinOp] = &[b!(TEXT, TEXT, BOOL, starts_with_op)];
static CONTAINS: &[BinOp] = &[
    b!(JSONB, JSONB, BOOL, jsonb_contains_op::<false>),
    b!(ANYARRAY, ANYARRAY, BOOL, array_contains_op),
    b!(BOX, BOX, BOOL, box_test::<B_CONTAIN>),
    b!(CIRCLE, CIRCLE, BOOL, circle_test::<B_CONTAIN>),
    b!(BOX, POINT, BOOL, box_holds_point::<false>),
];
static CONTAINED: &[BinOp] = &[
    b!(JSONB, JSONB, BOOL, jsonb_contains_op::<true>),
    b!(ANYARRAY, ANYARRAY, BOOL, array_contained_op),
    b!(BOX, BOX, BOOL, box_test::<B_CONTAINED>),
    b!(CIRCLE, CIRCLE, BOOL, circle_test::<B_CONTAINED>),
    b!(POINT, BOX, BOOL, box_holds_point::<true>),
];
static OVERLAP: &[BinOp] = &[
    b!(ANYARRAY, ANYARRAY, BOOL, array_overlap_op),
    b!(INET, INET, BOOL, inet_overlap),
    b!(BOX, BOX, BOOL, box_test::<B_OVERLAP>),
    b!(CIRCLE, CIRCLE, BOOL, circle_test::<B_OVERLAP>),
];

// The other position tests of boxes and points (geo_ops.c).
static SAME_AS: &[BinOp] = &[
    b!(BOX, BOX, BOOL, box_test::<B_SAME>),
    b!(CIRCLE, CIRCLE, BOOL, circle_test::<B_SAME>),
    b!(POINT, POINT, BOOL, point_test::<P_SAME>),
];
static OVERLEFT: &[BinOp] = &[
    b!(BOX, BOX, BOOL, box_test::<B_OVERLEFT>),
    b!(CIRCLE, CIRCLE, BOOL, circle_test::<B_OVERLEFT>),
];
static OVERRIGHT: &[BinOp] = &[
    b!(BOX, BOX, BOOL, box_test::<B_OVERRIGHT>),
    b!(CIRCLE, CIRCLE, BOOL, circle_test::<B_OVERRIGHT>),
];
static BELOW: &[BinOp] = &[
    b!(BOX, BOX, BOOL, box_test::<B_BELOW>),
    b!(CIRCLE, CIRCLE, BOOL, circle_test::<B_BELOW>),
    b!(POINT, POINT, BOOL, point_test::<P_BELOW>),
];
static ABOVE: &[BinOp] = &[
    b!(BOX, BOX, BOOL, box_test::<B_ABOVE>),
    b!(CIRCLE, CIRCLE, BOOL, circle_test::<B_ABOVE>),
    b!(POINT, POINT, BOOL, point_test::<P_ABOVE>),
];
static OVERBELOW: &[BinOp] = &[
    b!(BOX, BOX, BOOL, box_test::<B_OVERBELOW>),
    b!(CIRCLE, CIRCLE, BOOL, circle_test::<B_OVERBELOW>),
];
static OVERABOVE: &[BinOp] = &[
    b!(BOX, BOX, BOOL, box_test::<B_OVERABOVE>),
    b!(CIRCLE, CIRCLE, BOOL, circle_test::<B_OVERABOVE>),
];
static BELOW_EQ: &[BinOp] = &[
    b!(BOX, BOX, BOOL, box_test::<B_BELOW_EQ>),
    b!(POINT, POINT, BOOL, point_test::<P_BELOW>),
];
static ABOVE_EQ: &[BinOp] = &[
    b!(BOX, BOX, BOOL, box_test::<B_ABOVE_EQ>),
    b!(POINT, POINT, BOOL, point_test::<P_ABOVE>),
];
static INTERSECTS: &[BinOp] = &[b!(BOX, BOX, BOOL, box_test::<B_OVERLAP>)];
static HORIZONTAL: &[BinOp] = &[b!(POINT, POINT, BOOL, point_test::<P_HORIZ>)];
static DISTANCE: &[BinOp] = &[
    b!(BOX, BOX, FLOAT8, box_distance),
    b!(CIRCLE, CIRCLE, FLOAT8, circle_distance),
    b!(POINT, POINT, FLOAT8, point_distance),
];
static SUBNET_EQ: &[BinOp] = &[b!(INET, INET, BOOL, inet_subnet::<false, false>)];
static SUPERNET_EQ: &[BinOp] = &[b!(INET, INET, BOOL, inet_subnet::<true, false>)];

/// Whether `f` is one of the `=` operators (an index can serve it).
pub fn is_equality(f: &BinFn) -> bool {
    CMP_EQ.iter().any(|op| op.f as usize == *f as usize)
}

/// Every candidate signature of binary operator `name`.
pub fn binary_operators(name: &str) -> &'static [BinOp] {
    match name {
        "+" => PLUS,
        "-" => MINUS,
        "*" => STAR,
        "/" => SLASH,
        "%" => PERCENT,
        "^" => POW,
        "&" => BIT_AND,
        "|" => BIT_OR,
        "#" => BIT_XOR,
        "<<" => SHIFT_L,
        ">>" => SHIFT_R,
        "=" => CMP_EQ,
        "<>" | "!=" => CMP_NE,
        "<" => CMP_LT,
        "<=" => CMP_LE,
        ">" => CMP_GT,
        ">=" => CMP_GE,
        "||" => CONCAT,
        "~~" => LIKE,
        "!~~" => NOT_LIKE,
        "~~*" => ILIKE,
        "!~~*" => NOT_ILIKE,
        "~" => RE_MATCH,
        "!~" => RE_NOT_MATCH,
        "~*" => RE_IMATCH,
        "!~*" => RE_NOT_IMATCH,
        "^@" => STARTS_WITH,
        "~<~" => PATTERN_LT,
        "~<=~" => PATTERN_LE,
        "~>=~" => PATTERN_GE,
        "~>~" => PATTERN_GT,
        "@>" => CONTAINS,
        "<@" => CONTAINED,
        "&&" => OVERLAP,
        "<<=" => SUBNET_EQ,
        ">>=" => SUPERNET_EQ,
        "->" => JSON_GET,
        "->>" => JSON_GET_TEXT,
        "#>" => JSON_PATH,
        "#>>" => JSON_PATH_TEXT,
        "?" => JSONB_EXISTS,
        "?|" => JSONB_EXISTS_ANY,
        "?&" => JSONB_EXISTS_ALL,
        "~=" => SAME_AS,
        "&<" => OVERLEFT,
        "&>" => OVERRIGHT,
        "<<|" => BELOW,
        "|>>" => ABOVE,
        "&<|" => OVERBELOW,
        "|&>" => OVERABOVE,
        "<^" => BELOW_EQ,
        ">^" => ABOVE_EQ,
        "?-" => HORIZONTAL,
        "?#" => INTERSECTS,
        "<->" => DISTANCE,
        _ => &[],
    }
}

static UMINUS: &[UnOp] = &[
    u!(INT2, INT2, neg_int::<2>),
    u!(INT4, INT4, neg_int::<4>),
    u!(INT8, INT8, neg_int::<8>),
    u!(FLOAT4, FLOAT4, neg_float),
    u!(FLOAT8, FLOAT8, neg_float),
    u!(NUMERIC, NUMERIC, neg_num),
    u!(INTERVAL, INTERVAL, neg_interval),
];

static UPLUS: &[UnOp] = &[
    u!(INT2, INT2, identity),
    u!(INT4, INT4, identity),
    u!(INT8, INT8, identity),
    u!(FLOAT4, FLOAT4, identity),
    u!(FLOAT8, FLOAT8, identity),
    u!(NUMERIC, NUMERIC, identity),
];

static UABS: &[UnOp] = &[
    u!(INT2, INT2, abs_int::<2>),
    u!(INT4, INT4, abs_int::<4>),
    u!(INT8, INT8, abs_int::<8>),
    u!(FLOAT4, FLOAT4, abs_float),
    u!(FLOAT8, FLOAT8, abs_float),
    u!(NUMERIC, NUMERIC, abs_num),
];

static UNOT: &[UnOp] = &[
    u!(INT2, INT2, not_int::<2>),
    u!(INT4, INT4, not_int::<4>),
    u!(INT8, INT8, not_int::<8>),
];

static UCENTER: &[UnOp] = &[
    u!(BOX, POINT, box_center),
    u!(LSEG, POINT, lseg_center),
    u!(CIRCLE, POINT, circle_center),
];

static USQRT: &[UnOp] = &[u!(FLOAT8, FLOAT8, f8_sqrt)];
static UCBRT: &[UnOp] = &[u!(FLOAT8, FLOAT8, f8_cbrt)];

/// Every candidate signature of prefix operator `name`.
pub fn unary_operators(name: &str) -> &'static [UnOp] {
    match name {
        "-" => UMINUS,
        "+" => UPLUS,
        "@" => UABS,
        "~" => UNOT,
        "|/" => USQRT,
        "||/" => UCBRT,
        "@@" => UCENTER,
        _ => &[],
    }
}

/// Convenience for callers that already know the operand types: finds the exact signature.
pub fn find_binary(name: &str, left: Type, right: Type) -> Option<&'static BinOp> {
    binary_operators(name)
        .iter()
        .find(|o| o.left == left && o.right == right)
}
