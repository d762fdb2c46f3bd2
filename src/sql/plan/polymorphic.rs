//! Polymorphic signatures of user functions (PostgreSQL's parse_coerce.c rules): which
//! declarations CREATE FUNCTION accepts, and at a call the actual types the polymorphic
//! parameters and result take from the arguments.
//!
//! Family 1 (anyelement, anyarray, anynonarray, anyenum, anyrange, anymultirange) must agree
//! exactly: one element type, its array, the range over it and that range's multirange.
//! Family 2 (the anycompatible types) takes the common type of its arguments, to which they
//! are then converted. Unknown literals take their type from the others; family 1 arguments
//! that are all unknown cannot be resolved, family 2 ones become text.

use crate::error::{code, PgError, PgResult};
use crate::sql::types::cast::{self, CoercionContext};
use crate::sql::types::Type;

/// PostgreSQL's IsPolymorphicTypeFamily1.
pub fn family1(t: Type) -> bool {
    matches!(
        t,
        Type::ANYELEMENT
            | Type::ANYARRAY
            | Type::ANYNONARRAY
            | Type::ANYENUM
            | Type::ANYRANGE
            | Type::ANYMULTIRANGE
    )
}

/// PostgreSQL's IsPolymorphicTypeFamily2.
pub fn family2(t: Type) -> bool {
    matches!(
        t,
        Type::ANYCOMPATIBLE
            | Type::ANYCOMPATIBLEARRAY
            | Type::ANYCOMPATIBLENONARRAY
            | Type::ANYCOMPATIBLERANGE
            | Type::ANYCOMPATIBLEMULTIRANGE
    )
}

/// Why a result (or OUT parameter) of type `ret` cannot be deduced from inputs `inputs`
/// (the detail of CREATE FUNCTION's `cannot determine result data type`), or None.
pub fn unresolvable_result(ret: Type, inputs: &[Type]) -> Option<String> {
    let any = |f: &dyn Fn(Type) -> bool| inputs.iter().any(|t| f(*t));
    let name = ret.name();
    if matches!(ret, Type::ANYRANGE | Type::ANYMULTIRANGE) {
        return (!any(&|t| matches!(t, Type::ANYRANGE | Type::ANYMULTIRANGE))).then(|| {
            format!("A result of type {name} requires at least one input of type anyrange or anymultirange.")
        });
    }
    if matches!(
        ret,
        Type::ANYCOMPATIBLERANGE | Type::ANYCOMPATIBLEMULTIRANGE
    ) {
        return (!any(&|t| {
            matches!(
                t,
                Type::ANYCOMPATIBLERANGE | Type::ANYCOMPATIBLEMULTIRANGE
            )
        }))
        .then(|| {
            format!("A result of type {name} requires at least one input of type anycompatiblerange or anycompatiblemultirange.")
        });
    }
    if family1(ret) {
        return (!any(&family1)).then(|| {
            format!("A result of type {name} requires at least one input of type anyelement, anyarray, anynonarray, anyenum, anyrange, or anymultirange.")
        });
    }
    if family2(ret) {
        return (!any(&family2)).then(|| {
            format!("A result of type {name} requires at least one input of type anycompatible, anycompatiblearray, anycompatiblenonarray, anycompatiblerange, or anycompatiblemultirange.")
        });
    }
    None
}

/// The actual types a call gives the polymorphic types of a signature.
#[derive(Debug, Clone, Copy, Default)]
pub struct Resolved {
    elem: Option<Type>,
    range: Option<Type>,
    multirange: Option<Type>,
    compat: Option<Type>,
    compat_range: Option<Type>,
    compat_multirange: Option<Type>,
}

impl Resolved {
    /// The actual type of declared type `t` (a concrete type is itself; None: it cannot be
    /// determined).
    pub fn concrete(&self, t: Type) -> Option<Type> {
        match t {
            Type::ANYELEMENT | Type::ANYNONARRAY | Type::ANYENUM => self.elem,
            Type::ANYARRAY => self.elem.and_then(Type::array),
            Type::ANYRANGE => self.range,
            Type::ANYMULTIRANGE => self
                .multirange
                .or_else(|| self.range.and_then(Type::range_multirange)),
            Type::ANYCOMPATIBLE | Type::ANYCOMPATIBLENONARRAY => self.compat,
            Type::ANYCOMPATIBLEARRAY => self.compat.and_then(Type::array),
            Type::ANYCOMPATIBLERANGE => self.compat_range,
            Type::ANYCOMPATIBLEMULTIRANGE => self
                .compat_multirange
                .or_else(|| self.compat_range.and_then(Type::range_multirange)),
            t => Some(t),
        }
    }
}

fn mismatch(msg: String) -> PgError {
    PgError::new(code::DATATYPE_MISMATCH, msg)
}

fn not_alike(decl: &str, a: Type, b: Type) -> PgError {
    mismatch(format!("arguments declared \"{decl}\" are not all alike")).with_detail(format!(
        "{} versus {}",
        a.name(),
        b.name()
    ))
}

fn inconsistent(decl: &str, with: &str, a: Type, b: Type) -> PgError {
    mismatch(format!(
        "argument declared {decl} is not consistent with argument declared {with}"
    ))
    .with_detail(format!("{} versus {}", a.name(), b.name()))
}

/// Records `t` as the type of a slot, or checks that it agrees with the one recorded.
fn agree(slot: &mut Option<Type>, t: Type, decl: &str) -> PgResult<()> {
    match *slot {
        Some(s) if s != t => Err(not_alike(decl, s, t)),
        _ => {
            *slot = Some(t);
            Ok(())
        }
    }
}

/// PostgreSQL's enforce_generic_type_consistency: the actual types of the polymorphic types
/// in `declared` given the argument types `actual` (unknown for a literal) and the declared
/// result `ret`. `strict` raises the error for family 1 arguments that are all unknown
/// (a call); without it that case resolves nothing (choosing among candidates).
pub fn resolve(declared: &[Type], actual: &[Type], ret: Type, strict: bool) -> PgResult<Resolved> {
    let mut r = Resolved::default();
    let (mut array, mut range, mut multirange) = (None, None, None);
    let (mut c_range, mut c_multirange) = (None, None);
    let mut compat_types: Vec<Type> = Vec::new();
    let have = |t: Type| ret == t || declared.contains(&t);
    let (nonarray, anyenum) = (have(Type::ANYNONARRAY), have(Type::ANYENUM));
    let c_nonarray = have(Type::ANYCOMPATIBLENONARRAY);
    let c_range_wanted = have(Type::ANYCOMPATIBLERANGE);
    let c_multirange_wanted = have(Type::ANYCOMPATIBLEMULTIRANGE);
    let (mut n_family1, mut n_family2) = (0, 0);
    for (&d, &a) in declared.iter().zip(actual) {
        if family1(d) {
            n_family1 += 1;
        }
        if family2(d) {
            n_family2 += 1;
        }
        if a == Type::UNKNOWN || !d.is_polymorphic() {
            continue;
        }
        match d {
            Type::ANYELEMENT | Type::ANYNONARRAY | Type::ANYENUM => {
                agree(&mut r.elem, a, "anyelement")?
            }
            Type::ANYARRAY => agree(&mut array, a, "anyarray")?,
            Type::ANYRANGE => agree(&mut range, a, "anyrange")?,
            Type::ANYMULTIRANGE => agree(&mut multirange, a, "anymultirange")?,
            Type::ANYCOMPATIBLE | Type::ANYCOMPATIBLENONARRAY => compat_types.push(a),
            Type::ANYCOMPATIBLEARRAY => {
                let e = a.elem().ok_or_else(|| {
                    mismatch(format!(
                        "argument declared anycompatiblearray is not an array but type {}",
                        a.name()
                    ))
                })?;
                compat_types.push(e);
            }
            Type::ANYCOMPATIBLERANGE => {
                let s = a.range_subtype().ok_or_else(|| {
                    mismatch(format!(
                        "argument declared anycompatiblerange is not a range type but type {}",
                        a.name()
                    ))
                })?;
                agree(&mut c_range, a, "anycompatiblerange")?;
                compat_types.push(s);
            }
            Type::ANYCOMPATIBLEMULTIRANGE => {
                let rt = a.multirange_range().ok_or_else(|| {
                    mismatch(format!(
                        "argument declared anycompatiblemultirange is not a multirange type but type {}",
                        a.name()
                    ))
                })?;
                agree(&mut c_multirange, a, "anycompatiblemultirange")?;
                match c_range {
                    Some(cr) if cr != rt => {
                        return Err(inconsistent(
                            "anycompatiblemultirange",
                            "anycompatiblerange",
                            a,
                            cr,
                        ))
                    }
                    _ => c_range = Some(rt),
                }
                if let Some(s) = rt.range_subtype() {
                    compat_types.push(s);
                }
            }
            _ => {}
        }
    }
    // Family 1: the range from the multirange, the element from the array and the range.
    if let Some(m) = multirange {
        let rt = m.multirange_range().ok_or_else(|| {
            mismatch(format!(
                "argument declared anymultirange is not a multirange type but type {}",
                m.name()
            ))
        })?;
        match range {
            Some(x) if x != rt => {
                return Err(inconsistent("anymultirange", "anyrange", m, x));
            }
            _ => range = Some(rt),
        }
        r.multirange = Some(m);
    }
    if let Some(a) = array {
        let e = a.elem().ok_or_else(|| {
            mismatch(format!(
                "argument declared anyarray is not an array but type {}",
                a.name()
            ))
        })?;
        match r.elem {
            Some(x) if x != e => return Err(inconsistent("anyarray", "anyelement", a, x)),
            _ => r.elem = Some(e),
        }
    }
    if let Some(rt) = range {
        let s = rt.range_subtype().ok_or_else(|| {
            mismatch(format!(
                "argument declared anyrange is not a range type but type {}",
                rt.name()
            ))
        })?;
        match r.elem {
            Some(x) if x != s => return Err(inconsistent("anyrange", "anyelement", rt, x)),
            _ => r.elem = Some(s),
        }
        r.range = Some(rt);
    }
    if n_family1 > 0 || family1(ret) {
        match r.elem {
            None if strict && n_family1 > 0 => {
                return Err(mismatch(
                    "could not determine polymorphic type because input has type unknown".into(),
                ))
            }
            None => {}
            Some(e) => {
                if nonarray && e.is_array() {
                    return Err(mismatch(format!(
                        "type matched to anynonarray is an array type: {}",
                        e.name()
                    )));
                }
                if anyenum && !e.is_enum() {
                    return Err(mismatch(format!(
                        "type matched to anyenum is not an enum type: {}",
                        e.name()
                    )));
                }
            }
        }
    }
    // Family 2: the common type of all its arguments.
    if n_family2 > 0 || family2(ret) {
        if compat_types.is_empty() {
            if n_family2 > 0 {
                r.compat = Some(Type::TEXT);
                for (wanted, what) in [
                    (c_range_wanted, "anycompatiblerange"),
                    (c_multirange_wanted, "anycompatiblemultirange"),
                ] {
                    if wanted && strict {
                        return Err(mismatch(format!(
                            "could not determine polymorphic type {what} because input has type unknown"
                        )));
                    }
                }
            }
        } else {
            let common = super::coerce::common_type(&compat_types, "", -1)
                .ok()
                .filter(|c| {
                    compat_types
                        .iter()
                        .all(|t| cast::can_coerce(*t, *c, CoercionContext::Implicit))
                })
                .ok_or_else(|| {
                    mismatch(
                        "arguments of anycompatible family cannot be cast to a common type".into(),
                    )
                })?;
            if let Some(cr) = c_range {
                if cr.range_subtype() != Some(common) {
                    return Err(mismatch(format!(
                        "anycompatiblerange type {} does not match anycompatible type {}",
                        cr.name(),
                        common.name()
                    )));
                }
            } else if c_range_wanted && strict {
                return Err(mismatch(
                    "could not determine polymorphic type anycompatiblerange because input has type unknown".into(),
                ));
            }
            let multirange_known =
                c_multirange.is_some() || c_range.and_then(Type::range_multirange).is_some();
            if c_multirange_wanted && strict && !multirange_known {
                return Err(mismatch(
                    "could not determine polymorphic type anycompatiblemultirange because input has type unknown".into(),
                ));
            }
            if c_nonarray && common.is_array() {
                return Err(mismatch(format!(
                    "type matched to anycompatiblenonarray is an array type: {}",
                    common.name()
                )));
            }
            r.compat = Some(common);
        }
        r.compat_range = c_range;
        r.compat_multirange = c_multirange;
    }
    Ok(r)
}

/// Whether argument type `actual` can be passed where `declared` (polymorphic) is, looked
/// at alone (the agreement between arguments is [`resolve`]'s).
pub fn shape_fits(declared: Type, actual: Type) -> bool {
    if actual == Type::UNKNOWN {
        return true;
    }
    match declared {
        Type::ANYARRAY | Type::ANYCOMPATIBLEARRAY => actual.is_array(),
        Type::ANYNONARRAY | Type::ANYCOMPATIBLENONARRAY => !actual.is_array(),
        Type::ANYENUM => actual.is_enum(),
        Type::ANYRANGE | Type::ANYCOMPATIBLERANGE => actual.is_range(),
        Type::ANYMULTIRANGE | Type::ANYCOMPATIBLEMULTIRANGE => actual.is_multirange(),
        _ => true,
    }
}
