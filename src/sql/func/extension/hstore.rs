//! hstore: the key/value type (its values and their text form are `sql::types::hstore`),
//! the functions its CREATE EXTENSION makes and its operators.
//!
//! The type's OID is given at CREATE EXTENSION, so the signatures here name it
//! [`SELF_TYPE`] (`ddl/extension.rs` puts the OID in), and the operators are bound by the
//! planner where the left operand is of that type ([`operator`]). A value is held as its
//! normal text; each function parses it into pairs, works on them and writes the normal
//! text back.
//!
//! Not built: the set-returning functions (skeys, svals, each), hstore(record),
//! populate_record and `#=`, the deprecated `@` and `~`, hashing functions and GiST / GIN
//! operator classes. A call of a function not built is "function
//! does not exist" (42883).
//!
//! # Bounds
//!
//! Every function is linear in its inputs' sizes (after sorting the keys it is given); none
//! recurses.

use std::cmp::Ordering;

use super::{ExtFunc, ExtSpec, ExtType, SELF_ARRAY, SELF_TYPE};
use crate::error::{code, PgError, PgResult};
use crate::sql::func::args::{arr, txt};
use crate::sql::func::ScalarFn;
use crate::sql::types::hstore::{self as hs, Pairs};
use crate::sql::types::ops::{BinOp, UnOp};
use crate::sql::types::{Array, FormatCtx, Type, Value};

const H: (&str, Type) = ("", SELF_TYPE);
const T: (&str, Type) = ("", Type::TEXT);
const TA: (&str, Type) = ("", Type::TEXT_ARRAY);

const fn f(
    name: &'static str,
    args: &'static [(&'static str, Type)],
    returns: Type,
    symbol: &'static str,
) -> ExtFunc {
    ExtFunc::new(name, args, returns, symbol, 'i', true)
}

pub(super) const SPEC: ExtSpec = ExtSpec {
    name: "hstore",
    version: "1.8",
    comment: "data type for storing sets of (key, value) pairs",
    relocatable: true,
    types: &[ExtType {
        name: "hstore",
        builtin: "hstore",
    }],
    functions: &[
        f("fetchval", &[H, T], Type::TEXT, "hstore_fetchval"),
        f(
            "slice_array",
            &[H, TA],
            Type::TEXT_ARRAY,
            "hstore_slice_to_array",
        ),
        f("slice", &[H, TA], SELF_TYPE, "hstore_slice_to_hstore"),
        f("isexists", &[H, T], Type::BOOL, "hstore_exists"),
        f("exist", &[H, T], Type::BOOL, "hstore_exists"),
        f("exists_any", &[H, TA], Type::BOOL, "hstore_exists_any"),
        f("exists_all", &[H, TA], Type::BOOL, "hstore_exists_all"),
        f("isdefined", &[H, T], Type::BOOL, "hstore_defined"),
        f("defined", &[H, T], Type::BOOL, "hstore_defined"),
        f("delete", &[H, T], SELF_TYPE, "hstore_delete"),
        f("delete", &[H, TA], SELF_TYPE, "hstore_delete_array"),
        f("delete", &[H, H], SELF_TYPE, "hstore_delete_hstore"),
        f("hs_concat", &[H, H], SELF_TYPE, "hstore_concat"),
        f("hs_contains", &[H, H], Type::BOOL, "hstore_contains"),
        f("hs_contained", &[H, H], Type::BOOL, "hstore_contained"),
        ExtFunc::new(
            "tconvert",
            &[T, T],
            SELF_TYPE,
            "hstore_from_text",
            'i',
            false,
        ),
        ExtFunc::new("hstore", &[T, T], SELF_TYPE, "hstore_from_text", 'i', false),
        ExtFunc::new(
            "hstore",
            &[TA, TA],
            SELF_TYPE,
            "hstore_from_arrays",
            'i',
            false,
        ),
        f("hstore", &[TA], SELF_TYPE, "hstore_from_array"),
        f("hstore_to_array", &[H], Type::TEXT_ARRAY, "hstore_to_array"),
        f(
            "hstore_to_matrix",
            &[H],
            Type::TEXT_ARRAY,
            "hstore_to_matrix",
        ),
        f("akeys", &[H], Type::TEXT_ARRAY, "hstore_akeys"),
        f("avals", &[H], Type::TEXT_ARRAY, "hstore_avals"),
        f("hstore_to_json", &[H], Type::JSON, "hstore_to_json"),
        f("hstore_to_jsonb", &[H], Type::JSONB, "hstore_to_jsonb"),
        f(
            "hstore_to_json_loose",
            &[H],
            Type::JSON,
            "hstore_to_json_loose",
        ),
        f(
            "hstore_to_jsonb_loose",
            &[H],
            Type::JSONB,
            "hstore_to_jsonb_loose",
        ),
        f("hstore_eq", &[H, H], Type::BOOL, "hstore_eq"),
        f("hstore_ne", &[H, H], Type::BOOL, "hstore_ne"),
        f("hstore_gt", &[H, H], Type::BOOL, "hstore_gt"),
        f("hstore_ge", &[H, H], Type::BOOL, "hstore_ge"),
        f("hstore_lt", &[H, H], Type::BOOL, "hstore_lt"),
        f("hstore_le", &[H, H], Type::BOOL, "hstore_le"),
        f("hstore_cmp", &[H, H], Type::INT4, "hstore_cmp"),
    ],
};

// The array type stand-in is not used by hstore's signatures; named so the pairing is clear.
const _: Type = SELF_ARRAY;

pub(super) fn symbol(s: &str) -> Option<ScalarFn> {
    Some(match s {
        "hstore_fetchval" => |a, f| fetchval(&a[0], &a[1], f),
        "hstore_slice_to_array" => |a, f| slice_array(&a[0], &a[1], f),
        "hstore_slice_to_hstore" => slice,
        "hstore_exists" => |a, f| exists(&a[0], &a[1], f),
        "hstore_exists_any" => |a, f| exists_any(&a[0], &a[1], f),
        "hstore_exists_all" => |a, f| exists_all(&a[0], &a[1], f),
        "hstore_defined" => defined,
        "hstore_delete" => |a, f| delete(&a[0], &a[1], f),
        "hstore_delete_array" => |a, f| delete_array(&a[0], &a[1], f),
        "hstore_delete_hstore" => |a, f| delete_hstore(&a[0], &a[1], f),
        "hstore_concat" => |a, f| concat(&a[0], &a[1], f),
        "hstore_contains" => |a, f| contains(&a[0], &a[1], f),
        "hstore_contained" => |a, f| contains(&a[1], &a[0], f),
        "hstore_from_text" => from_text,
        "hstore_from_arrays" => from_arrays,
        "hstore_from_array" => from_array,
        "hstore_to_array" => to_array,
        "hstore_to_matrix" => to_matrix,
        "hstore_akeys" => |a, _| Ok(text_array(pairs(&a[0])?.into_iter().map(|p| Some(p.0)))),
        "hstore_avals" => |a, _| Ok(text_array(pairs(&a[0])?.into_iter().map(|p| p.1))),
        "hstore_to_json" => |a, _| Ok(Value::Text(hs::to_json(&pairs(&a[0])?))),
        "hstore_to_jsonb" => |a, _| to_jsonb(&a[0]),
        "hstore_to_json_loose" => |a, _| Ok(Value::Text(hs::to_json_loose(&pairs(&a[0])?))),
        "hstore_to_jsonb_loose" => |a, _| {
            let j = hs::to_json_loose(&pairs(&a[0])?);
            Ok(Value::Text(crate::sql::types::json::jsonb_in(&j)?))
        },
        "hstore_eq" => |a, f| cmp_op::<0>(&a[0], &a[1], f),
        "hstore_ne" => |a, f| cmp_op::<1>(&a[0], &a[1], f),
        "hstore_lt" => |a, f| cmp_op::<2>(&a[0], &a[1], f),
        "hstore_le" => |a, f| cmp_op::<3>(&a[0], &a[1], f),
        "hstore_gt" => |a, f| cmp_op::<4>(&a[0], &a[1], f),
        "hstore_ge" => |a, f| cmp_op::<5>(&a[0], &a[1], f),
        "hstore_cmp" => |a, _| {
            let o = hs::cmp(&pairs(&a[0])?, &pairs(&a[1])?);
            Ok(Value::Int4(o as i32))
        },
        _ => return None,
    })
}

// ---------------------------------------------------------------------------------------------
// Reading and making values
// ---------------------------------------------------------------------------------------------

fn pairs(v: &Value) -> PgResult<Pairs> {
    hs::pairs_of(txt(v)?)
}

fn value(p: &[(String, Option<String>)]) -> Value {
    Value::Text(hs::to_text(p))
}

/// The value of `key` among normalized pairs (binary search in hstore's order).
fn find<'p>(p: &'p [(String, Option<String>)], key: &str) -> Option<&'p Option<String>> {
    p.binary_search_by(|(k, _)| hs::cmp_keys(k, key))
        .ok()
        .map(|i| &p[i].1)
}

fn text_array(items: impl Iterator<Item = Option<String>>) -> Value {
    let items = items.map(|v| v.map_or(Value::Null, Value::Text)).collect();
    Value::Array(Box::new(Array::one_dim(Type::TEXT, items)))
}

/// The text elements of an array argument (NULL elements as None), in order.
fn keys_of(v: &Value) -> PgResult<Vec<Option<String>>> {
    Ok(arr(v)?
        .items
        .iter()
        .map(|i| i.as_str().map(str::to_string))
        .collect())
}

// ---------------------------------------------------------------------------------------------
// The functions
// ---------------------------------------------------------------------------------------------

fn fetchval(h: &Value, k: &Value, _f: &FormatCtx) -> PgResult<Value> {
    let p = pairs(h)?;
    Ok(match find(&p, txt(k)?) {
        Some(Some(v)) => Value::Text(v.clone()),
        _ => Value::Null,
    })
}

fn slice_array(h: &Value, keys: &Value, _f: &FormatCtx) -> PgResult<Value> {
    let p = pairs(h)?;
    let a = arr(keys)?;
    let items = a
        .items
        .iter()
        .map(|k| match k.as_str().and_then(|k| find(&p, k)) {
            Some(Some(v)) => Value::Text(v.clone()),
            _ => Value::Null,
        })
        .collect();
    // The result has the shape of the keys' array.
    Ok(Value::Array(Box::new(Array {
        elem: Type::TEXT,
        dims: a.dims.clone(),
        items,
    })))
}

fn slice(a: &[Value], _f: &FormatCtx) -> PgResult<Value> {
    let p = pairs(&a[0])?;
    let mut out: Pairs = Vec::new();
    for k in keys_of(&a[1])?.into_iter().flatten() {
        if let Some(v) = find(&p, &k) {
            out.push((k, v.clone()));
        }
    }
    Ok(value(&hs::normalize(out)))
}

fn exists(h: &Value, k: &Value, _f: &FormatCtx) -> PgResult<Value> {
    Ok(Value::Bool(find(&pairs(h)?, txt(k)?).is_some()))
}

fn exists_any(h: &Value, keys: &Value, _f: &FormatCtx) -> PgResult<Value> {
    let p = pairs(h)?;
    let keys = keys_of(keys)?;
    Ok(Value::Bool(
        keys.iter().flatten().any(|k| find(&p, k).is_some()),
    ))
}

fn exists_all(h: &Value, keys: &Value, _f: &FormatCtx) -> PgResult<Value> {
    let p = pairs(h)?;
    let keys = keys_of(keys)?;
    Ok(Value::Bool(
        keys.iter().flatten().all(|k| find(&p, k).is_some()),
    ))
}

fn defined(a: &[Value], _f: &FormatCtx) -> PgResult<Value> {
    let p = pairs(&a[0])?;
    Ok(Value::Bool(matches!(find(&p, txt(&a[1])?), Some(Some(_)))))
}

fn delete(h: &Value, k: &Value, _f: &FormatCtx) -> PgResult<Value> {
    let k = txt(k)?;
    let mut p = pairs(h)?;
    p.retain(|(key, _)| key != k);
    Ok(value(&p))
}

fn delete_array(h: &Value, keys: &Value, _f: &FormatCtx) -> PgResult<Value> {
    let keys: Vec<String> = keys_of(keys)?.into_iter().flatten().collect();
    let mut p = pairs(h)?;
    p.retain(|(key, _)| !keys.contains(key));
    Ok(value(&p))
}

fn delete_hstore(h: &Value, other: &Value, _f: &FormatCtx) -> PgResult<Value> {
    let o = pairs(other)?;
    let mut p = pairs(h)?;
    // A pair goes when the other has the same key with the same value (NULL equal to NULL).
    p.retain(|(k, v)| find(&o, k) != Some(v));
    Ok(value(&p))
}

fn concat(a: &Value, b: &Value, _f: &FormatCtx) -> PgResult<Value> {
    // The right side's pairs win: given first, they stay when the keys are made unique.
    let mut p = pairs(b)?;
    p.extend(pairs(a)?);
    Ok(value(&hs::normalize(p)))
}

fn contains(a: &Value, b: &Value, _f: &FormatCtx) -> PgResult<Value> {
    let (pa, pb) = (pairs(a)?, pairs(b)?);
    Ok(Value::Bool(pb.iter().all(|(k, v)| find(&pa, k) == Some(v))))
}

fn null_key() -> PgError {
    PgError::new(
        code::NULL_VALUE_NOT_ALLOWED,
        "null value not allowed for hstore key",
    )
}

fn subscript_error(msg: &str) -> PgError {
    PgError::new(code::ARRAY_SUBSCRIPT_ERROR, msg)
}

/// hstore(text, text): NULL for a NULL key, a NULL value kept.
fn from_text(a: &[Value], _f: &FormatCtx) -> PgResult<Value> {
    if a[0].is_null() {
        return Ok(Value::Null);
    }
    let k = txt(&a[0])?.to_string();
    hs::check_len(&k, true)?;
    let v = a[1].as_str().map(str::to_string);
    if let Some(v) = &v {
        hs::check_len(v, false)?;
    }
    Ok(value(&[(k, v)]))
}

/// hstore(keys text[], values text[]): NULL keys refused, NULL values array: all NULL.
fn from_arrays(a: &[Value], _f: &FormatCtx) -> PgResult<Value> {
    if a[0].is_null() {
        return Ok(Value::Null);
    }
    let ka = arr(&a[0])?;
    if ka.dims.len() > 1 {
        return Err(subscript_error("wrong number of array subscripts"));
    }
    let vals: Option<&Array> = if a[1].is_null() {
        None
    } else {
        let va = arr(&a[1])?;
        if va.dims.len() > 1 {
            return Err(subscript_error("wrong number of array subscripts"));
        }
        if (!ka.dims.is_empty() || !va.dims.is_empty()) && ka.dims != va.dims {
            return Err(subscript_error("arrays must have same bounds"));
        }
        Some(va)
    };
    let mut p = Vec::with_capacity(ka.items.len());
    for (i, k) in ka.items.iter().enumerate() {
        let k = k.as_str().ok_or_else(null_key)?.to_string();
        hs::check_len(&k, true)?;
        let v = vals
            .and_then(|va| va.items.get(i))
            .and_then(|v| v.as_str())
            .map(str::to_string);
        if let Some(v) = &v {
            hs::check_len(v, false)?;
        }
        p.push((k, v));
    }
    Ok(value(&hs::normalize(p)))
}

/// hstore(text[]): alternating keys and values, or a two-column matrix of them.
fn from_array(a: &[Value], _f: &FormatCtx) -> PgResult<Value> {
    Ok(value(&hs::from_text_array(arr(&a[0])?)?))
}

fn to_array(a: &[Value], _f: &FormatCtx) -> PgResult<Value> {
    let p = pairs(&a[0])?;
    Ok(text_array(p.into_iter().flat_map(|(k, v)| [Some(k), v])))
}

fn to_matrix(a: &[Value], _f: &FormatCtx) -> PgResult<Value> {
    let p = pairs(&a[0])?;
    let n = p.len() as i32;
    let items: Vec<Value> = p
        .into_iter()
        .flat_map(|(k, v)| [Value::Text(k), v.map_or(Value::Null, Value::Text)])
        .collect();
    // An empty hstore gives an empty array (no dimensions), as PostgreSQL's does.
    let dims = if n == 0 { vec![] } else { vec![(n, 1), (2, 1)] };
    Ok(Value::Array(Box::new(Array {
        elem: Type::TEXT,
        dims,
        items,
    })))
}

fn to_jsonb(h: &Value) -> PgResult<Value> {
    Ok(Value::Text(crate::sql::types::json::jsonb_in(
        &hs::to_json(&pairs(h)?),
    )?))
}

/// The comparison operators and functions: PostgreSQL's hstore_cmp.
fn cmp_op<const OP: u8>(a: &Value, b: &Value, _f: &FormatCtx) -> PgResult<Value> {
    let o = hs::cmp(&pairs(a)?, &pairs(b)?);
    Ok(Value::Bool(match OP {
        0 => o == Ordering::Equal,
        1 => o != Ordering::Equal,
        2 => o == Ordering::Less,
        3 => o != Ordering::Greater,
        4 => o == Ordering::Greater,
        _ => o != Ordering::Less,
    }))
}

// ---------------------------------------------------------------------------------------------
// The operators
// ---------------------------------------------------------------------------------------------

/// What an operator's right operand is.
#[derive(Clone, Copy, PartialEq)]
pub enum Right {
    Text,
    TextArray,
    Hstore,
}

macro_rules! op {
    ($r:ident, $res:expr, $f:expr) => {
        (
            Right::$r,
            BinOp {
                left: SELF_TYPE,
                right: SELF_TYPE,
                result: $res,
                f: $f,
            },
        )
    };
}

static OPERATORS: &[(&str, (Right, BinOp))] = &[
    ("->", op!(Text, Type::TEXT, fetchval)),
    ("->", op!(TextArray, Type::TEXT_ARRAY, slice_array)),
    ("?", op!(Text, Type::BOOL, exists)),
    ("?|", op!(TextArray, Type::BOOL, exists_any)),
    ("?&", op!(TextArray, Type::BOOL, exists_all)),
    ("@>", op!(Hstore, Type::BOOL, contains)),
    ("<@", op!(Hstore, Type::BOOL, |a, b, f| contains(b, a, f))),
    ("||", op!(Hstore, SELF_TYPE, concat)),
    ("-", op!(Text, SELF_TYPE, delete)),
    ("-", op!(TextArray, SELF_TYPE, delete_array)),
    ("-", op!(Hstore, SELF_TYPE, delete_hstore)),
    ("=", op!(Hstore, Type::BOOL, cmp_op::<0>)),
    ("<>", op!(Hstore, Type::BOOL, cmp_op::<1>)),
    ("#<#", op!(Hstore, Type::BOOL, cmp_op::<2>)),
    ("#<=#", op!(Hstore, Type::BOOL, cmp_op::<3>)),
    ("#>#", op!(Hstore, Type::BOOL, cmp_op::<4>)),
    ("#>=#", op!(Hstore, Type::BOOL, cmp_op::<5>)),
];

/// hstore's operator `name` for a right operand of type `right` (its text and text[]
/// operands taken by category; an unknown one as PostgreSQL resolves it: hstore where the
/// operator has an hstore form, else text, else text[]): the operator and the right side's
/// type.
pub fn operator(name: &str, right: Type) -> Option<(&'static BinOp, Right)> {
    let forms = || OPERATORS.iter().filter(|(n, _)| *n == name).map(|(_, f)| f);
    let want = |r: Right| forms().find(|(k, _)| *k == r).map(|(k, o)| (o, *k));
    let stringy = |t: Type| t.base_type().category() == 'S';
    if right == Type::UNKNOWN {
        // PostgreSQL tries the unknown side as the known side's type first, then text.
        return want(Right::Hstore)
            .or_else(|| want(Right::Text))
            .or_else(|| forms().next().map(|(k, o)| (o, *k)));
    }
    if right.base_type().is_hstore() {
        return want(Right::Hstore);
    }
    if stringy(right) {
        return want(Right::Text);
    }
    if right.base_type().elem().is_some_and(stringy) {
        return want(Right::TextArray);
    }
    None
}

/// hstore's prefix operators: `%%` (hstore_to_array) and `%#` (hstore_to_matrix).
static PREFIX: &[(&str, UnOp)] = &[
    (
        "%%",
        UnOp {
            arg: SELF_TYPE,
            result: Type::TEXT_ARRAY,
            f: |v, f| to_array(std::slice::from_ref(v), f),
        },
    ),
    (
        "%#",
        UnOp {
            arg: SELF_TYPE,
            result: Type::TEXT_ARRAY,
            f: |v, f| to_matrix(std::slice::from_ref(v), f),
        },
    ),
];

/// hstore's prefix operator `name`, for the planner to bind over an hstore.
pub fn prefix_operator(name: &str) -> Option<&'static UnOp> {
    PREFIX.iter().find(|(n, _)| *n == name).map(|(_, o)| o)
}

/// The name of one of hstore's operators, by its function (EXPLAIN's output).
pub fn operator_name(f: crate::sql::types::ops::BinFn) -> Option<&'static str> {
    OPERATORS
        .iter()
        .find(|(_, (_, o))| std::ptr::fn_addr_eq(o.f, f))
        .map(|(n, _)| *n)
}
