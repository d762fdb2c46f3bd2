//! The aggregates beyond count/sum/avg/min/max/bool_*/array_agg/string_agg: their names, the
//! argument types they accept and their result types, as PostgreSQL 15's pg_aggregate has
//! them. The accumulators are in `exec/aggregate/extra.rs`.
//!
//! * json_agg / jsonb_agg / json_object_agg / jsonb_object_agg (any argument types);
//! * var_pop / var_samp / variance / stddev_pop / stddev_samp / stddev: numeric for integer and
//!   numeric input, float8 for float4 / float8;
//! * bit_and / bit_or / bit_xor over int2 / int4 / int8 (their own type);
//! * corr / covar_pop / covar_samp / regr_*: two float8 arguments (Y, X), float8 (regr_count
//!   int8);
//! * the ordered-set aggregates percentile_cont / percentile_disc (a fraction or an array of
//!   fractions) and mode(), with WITHIN GROUP (ORDER BY ...);
//! * range_agg (a range or multirange, giving the multirange) and range_intersect_agg (a
//!   range or multirange, giving its own type).

use crate::error::{code, PgError, PgResult};
use crate::sql::types::Type;

use super::{loc, not_unique, undefined_function, AggFunc};

/// The spread aggregates (PostgreSQL's numeric_stddev_internal / float8_var_* family).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Spread {
    VarPop,
    VarSamp,
    StddevPop,
    StddevSamp,
}

/// The two-argument statistics (PostgreSQL's float8_regr_* final functions).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Regr {
    Corr,
    CovarPop,
    CovarSamp,
    Count,
    AvgX,
    AvgY,
    Sxx,
    Syy,
    Sxy,
    Slope,
    Intercept,
    R2,
}

/// The aggregate named `name`, among those this file adds.
pub(super) fn aggregate_func(name: &str) -> Option<AggFunc> {
    use AggFunc as F;
    Some(match name {
        "json_agg" => F::JsonAgg(false, false),
        "jsonb_agg" => F::JsonAgg(true, false),
        // The value's type is filled in once the arguments are bound.
        "json_object_agg" => F::JsonObjectAgg(false, Type::UNKNOWN),
        "jsonb_object_agg" => F::JsonObjectAgg(true, Type::UNKNOWN),
        "var_pop" => F::Spread(Spread::VarPop),
        "var_samp" | "variance" => F::Spread(Spread::VarSamp),
        "stddev_pop" => F::Spread(Spread::StddevPop),
        "stddev_samp" | "stddev" => F::Spread(Spread::StddevSamp),
        "bit_and" => F::BitAnd,
        "bit_or" => F::BitOr,
        "bit_xor" => F::BitXor,
        "corr" => F::Regr(Regr::Corr),
        "covar_pop" => F::Regr(Regr::CovarPop),
        "covar_samp" => F::Regr(Regr::CovarSamp),
        "regr_count" => F::Regr(Regr::Count),
        "regr_avgx" => F::Regr(Regr::AvgX),
        "regr_avgy" => F::Regr(Regr::AvgY),
        "regr_sxx" => F::Regr(Regr::Sxx),
        "regr_syy" => F::Regr(Regr::Syy),
        "regr_sxy" => F::Regr(Regr::Sxy),
        "regr_slope" => F::Regr(Regr::Slope),
        "regr_intercept" => F::Regr(Regr::Intercept),
        "regr_r2" => F::Regr(Regr::R2),
        // Whether the fraction is an array is decided once it is bound.
        "percentile_cont" => F::PercentileCont(false),
        "percentile_disc" => F::PercentileDisc(false),
        "mode" => F::Mode,
        "range_agg" => F::RangeAgg,
        "range_intersect_agg" => F::RangeIntersectAgg,
        _ => return None,
    })
}

impl AggFunc {
    /// Whether this is an ordered-set aggregate (WITHIN GROUP required).
    pub fn is_ordered_set(self) -> bool {
        matches!(
            self,
            AggFunc::PercentileCont(_) | AggFunc::PercentileDisc(_) | AggFunc::Mode
        )
    }

    /// The SQL name of one of the aggregates this file adds (EXPLAIN's output names).
    pub fn extra_name(self) -> &'static str {
        use AggFunc as F;
        match self {
            F::JsonAgg(false, _) => "json_agg",
            F::JsonAgg(true, _) => "jsonb_agg",
            F::JsonObjectAgg(false, _) => "json_object_agg",
            F::JsonObjectAgg(true, _) => "jsonb_object_agg",
            F::Spread(Spread::VarPop) => "var_pop",
            F::Spread(Spread::VarSamp) => "var_samp",
            F::Spread(Spread::StddevPop) => "stddev_pop",
            F::Spread(Spread::StddevSamp) => "stddev_samp",
            F::BitAnd => "bit_and",
            F::BitOr => "bit_or",
            F::BitXor => "bit_xor",
            F::Regr(r) => match r {
                Regr::Corr => "corr",
                Regr::CovarPop => "covar_pop",
                Regr::CovarSamp => "covar_samp",
                Regr::Count => "regr_count",
                Regr::AvgX => "regr_avgx",
                Regr::AvgY => "regr_avgy",
                Regr::Sxx => "regr_sxx",
                Regr::Syy => "regr_syy",
                Regr::Sxy => "regr_sxy",
                Regr::Slope => "regr_slope",
                Regr::Intercept => "regr_intercept",
                Regr::R2 => "regr_r2",
            },
            F::PercentileCont(_) => "percentile_cont",
            F::PercentileDisc(_) => "percentile_disc",
            F::Mode => "mode",
            F::RangeAgg => "range_agg",
            F::RangeIntersectAgg => "range_intersect_agg",
            _ => "?",
        }
    }
}

/// PostgreSQL's checks of WITHIN GROUP against the kind of aggregate (parse_func.c).
pub(super) fn check_within_group(
    af: AggFunc,
    within_group: bool,
    has_over: bool,
    name: &str,
    location: i32,
) -> PgResult<()> {
    if af.is_ordered_set() && has_over {
        return Err(PgError::new(
            code::FEATURE_NOT_SUPPORTED,
            format!("OVER is not supported for ordered-set aggregate {name}"),
        )
        .at(loc(location)));
    }
    if within_group && !af.is_ordered_set() {
        return Err(PgError::new(
            code::WRONG_OBJECT_TYPE,
            format!("{name} is not an ordered-set aggregate, so it cannot have WITHIN GROUP"),
        )
        .at(loc(location)));
    }
    Ok(())
}

/// What binding one of this file's aggregates needs: the aggregate (with the types it keeps
/// filled in), its result type, the type each argument is coerced to (None: kept), the type
/// the (first) WITHIN GROUP key is coerced to, and the type the accumulator sees as
/// `AggCall::arg_type`.
pub(super) struct Signature {
    pub func: AggFunc,
    pub result: Type,
    pub args: Vec<Option<Type>>,
    pub order: Option<Type>,
    pub arg_type: Type,
}

/// Types that convert implicitly to float8 (and so to the regr_* and percentile arguments).
fn to_float8(t: Type) -> bool {
    matches!(
        t,
        Type::INT2
            | Type::INT4
            | Type::INT8
            | Type::NUMERIC
            | Type::FLOAT4
            | Type::FLOAT8
            | Type::UNKNOWN
    )
}

/// The signature of `af` called with `types` (and, for an ordered-set aggregate, WITHIN GROUP
/// keys of `order` types); None for the aggregates plan/agg.rs types itself.
pub(super) fn signature(
    af: AggFunc,
    types: &[Type],
    order: &[Type],
    name: &str,
    location: i32,
) -> PgResult<Option<Signature>> {
    use AggFunc as F;
    // PostgreSQL lists the direct arguments and then the ordered ones in its errors.
    let all: Vec<Type> = types.iter().chain(order).copied().collect();
    let undefined = || undefined_function(name, &all, location);
    // json_agg, percentile_disc and mode take anyelement: an untyped literal has no type.
    let polymorphic = |t: Type| -> PgResult<Type> {
        if t == Type::UNKNOWN {
            return Err(PgError::new(
                code::DATATYPE_MISMATCH,
                "could not determine polymorphic type because input has type unknown",
            ));
        }
        Ok(t)
    };
    let first = types.first().copied().unwrap_or(Type::UNKNOWN);
    let sig = |func, result, args, arg_type| Signature {
        func,
        result,
        args,
        order: None,
        arg_type,
    };
    Ok(Some(match af {
        F::JsonAgg(jb, _) => {
            if types.len() != 1 {
                return Err(undefined());
            }
            let t = polymorphic(first)?;
            let result = if jb { Type::JSONB } else { Type::JSON };
            sig(af, result, vec![Some(t)], t)
        }
        F::JsonObjectAgg(jb, _) => {
            if types.len() != 2 {
                return Err(undefined());
            }
            let known = |t: Type| if t == Type::UNKNOWN { Type::TEXT } else { t };
            let (k, v) = (known(types[0]), known(types[1]));
            let result = if jb { Type::JSONB } else { Type::JSON };
            sig(F::JsonObjectAgg(jb, v), result, vec![Some(k), Some(v)], k)
        }
        F::Spread(_) => {
            if types.len() != 1 {
                return Err(undefined());
            }
            match first {
                Type::INT2 | Type::INT4 | Type::INT8 | Type::NUMERIC => {
                    sig(af, Type::NUMERIC, vec![None], first)
                }
                Type::FLOAT4 | Type::FLOAT8 => sig(af, Type::FLOAT8, vec![None], first),
                // float8 is the preferred type of the numeric candidates.
                Type::UNKNOWN => sig(af, Type::FLOAT8, vec![Some(Type::FLOAT8)], Type::FLOAT8),
                _ => return Err(undefined()),
            }
        }
        F::BitAnd | F::BitOr | F::BitXor => {
            if types.len() != 1 {
                return Err(undefined());
            }
            match first {
                Type::INT2 | Type::INT4 | Type::INT8 => sig(af, first, vec![None], first),
                Type::UNKNOWN => return Err(not_unique(name, types, location)),
                _ => return Err(undefined()),
            }
        }
        F::Regr(r) => {
            if types.len() != 2 || !types.iter().all(|t| to_float8(*t)) {
                return Err(undefined());
            }
            let result = if r == Regr::Count {
                Type::INT8
            } else {
                Type::FLOAT8
            };
            sig(
                af,
                result,
                vec![Some(Type::FLOAT8), Some(Type::FLOAT8)],
                Type::FLOAT8,
            )
        }
        F::PercentileCont(_) | F::PercentileDisc(_) => {
            if types.len() != 1 || order.len() != 1 {
                return Err(undefined());
            }
            // An array of anything that converts to float8 converts to float8[].
            let multi = match first {
                t if t.elem().is_some_and(to_float8) => true,
                t if to_float8(t) => false,
                _ => return Err(undefined()),
            };
            let cont = matches!(af, F::PercentileCont(_));
            let key = match order[0] {
                // float8 or interval: PostgreSQL cannot choose.
                Type::UNKNOWN if cont => return Err(not_unique(name, &all, location)),
                t => polymorphic(t)?,
            };
            // percentile_cont interpolates: float8 only here (PostgreSQL also has interval).
            if cont && !to_float8(key) {
                return Err(undefined());
            }
            let elem = if cont { Type::FLOAT8 } else { key };
            let result = if multi {
                elem.array().ok_or_else(undefined)?
            } else {
                elem
            };
            let func = if cont {
                F::PercentileCont(multi)
            } else {
                F::PercentileDisc(multi)
            };
            let frac = if multi {
                Type::FLOAT8_ARRAY
            } else {
                Type::FLOAT8
            };
            Signature {
                func,
                result,
                args: vec![Some(frac)],
                order: Some(elem),
                arg_type: elem,
            }
        }
        F::Mode => {
            if !types.is_empty() || order.len() != 1 {
                return Err(undefined());
            }
            let key = polymorphic(order[0])?;
            Signature {
                func: af,
                result: key,
                args: Vec::new(),
                order: Some(key),
                arg_type: key,
            }
        }
        F::RangeAgg | F::RangeIntersectAgg => {
            let t = first.base_type();
            if types.len() != 1 || !(t.is_range() || t.is_multirange()) {
                return Err(undefined());
            }
            let result = match af {
                F::RangeAgg => t.range_multirange().unwrap_or(t),
                _ => t,
            };
            sig(af, result, vec![None], t)
        }
        _ => return Ok(None),
    }))
}
