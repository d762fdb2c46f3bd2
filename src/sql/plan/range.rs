//! Binding the range operators and functions, which are polymorphic over every range type
//! (PostgreSQL's `anyrange` with `anyelement` for its subtype).
//!
//! PostgreSQL's rules, reduced to what the range signatures need: both range operands of one
//! range type; an operand of unknown type (a literal) takes the other side's range type, so
//! `r @> '[1,2)'` reads the literal as a range (and `r @> '3'` is a malformed range literal,
//! as in PostgreSQL); the element forms of `@>` and `<@` want exactly the subtype (or a
//! literal, read as the subtype). Anything else is not a range operator and falls to the
//! general resolution, which reports that the operator does not exist.
//!
//! The functions (`func/range.rs`) are bound here too: the function forms of the operators
//! (`range_contains(a, b)` ...), the accessors (lower, upper, isempty,
//! lower_inc ...) over a range-typed argument — an unknown literal goes to the text function
//! `lower(text)` as in PostgreSQL — range_merge, and the constructors named as the range
//! types are (built-in and CREATE TYPE ... AS RANGE), whose bounds are cast implicitly to the
//! subtype and whose type is passed as a last constant argument.

use super::func_call::undefined_function;
use super::Planner;
use crate::error::PgResult;
use crate::sql::func;
use crate::sql::plan::Expr;
use crate::sql::types::cast::{self, CoercionContext};
use crate::sql::types::{ops, Type, Value};

impl Planner<'_> {
    /// The range operator `name` over `left` and `right` with the types its operands are
    /// cast to; None when the operands are not a range operator's.
    pub(super) fn resolve_range_binop(
        &self,
        name: &str,
        left: Type,
        right: Type,
    ) -> Option<(&'static ops::BinOp, Type, Type)> {
        let (left, right) = (left.base_type(), right.base_type());
        let (lr, rr) = (left.is_range(), right.is_range());
        let cands = ops::range_operators(name);
        let find = |l: Type, r: Type| cands.iter().find(|o| o.left == l && o.right == r);
        let (lm, rm) = (left.is_multirange(), right.is_multirange());
        if lm || rm {
            let m = Type::ANYMULTIRANGE;
            let range_of = |t: Type| t.multirange_range();
            return match (lm, rm) {
                (true, true) if left == right => find(m, m).map(|o| (o, left, right)),
                (true, false) if right == Type::UNKNOWN => find(m, m).map(|o| (o, left, left)),
                (false, true) if left == Type::UNKNOWN => find(m, m).map(|o| (o, right, right)),
                (true, false) if range_of(left) == Some(right) => {
                    find(m, Type::ANYRANGE).map(|o| (o, left, right))
                }
                (false, true) if range_of(right) == Some(left) => {
                    find(Type::ANYRANGE, m).map(|o| (o, left, right))
                }
                (true, false) if range_of(left).and_then(subtype_of) == Some(right) => {
                    find(m, Type::ANYELEMENT).map(|o| (o, left, right))
                }
                (false, true) if range_of(right).and_then(subtype_of) == Some(left) => {
                    find(Type::ANYELEMENT, m).map(|o| (o, left, right))
                }
                _ => None,
            };
        }
        if !lr && !rr {
            return None;
        }
        let both = find(Type::ANYRANGE, Type::ANYRANGE);
        match (lr, rr) {
            (true, true) if left == right => both.map(|o| (o, left, right)),
            (true, false) if right == Type::UNKNOWN => both.map(|o| (o, left, left)),
            (false, true) if left == Type::UNKNOWN => both.map(|o| (o, right, right)),
            (true, false) if subtype_of(left) == Some(right) => {
                find(Type::ANYRANGE, Type::ANYELEMENT).map(|o| (o, left, right))
            }
            (false, true) if subtype_of(right) == Some(left) => {
                find(Type::ANYELEMENT, Type::ANYRANGE).map(|o| (o, left, right))
            }
            _ => None,
        }
    }

    /// A call of a range function or constructor; None when `name` over these arguments is
    /// not one (the arguments are left as they were).
    pub(super) fn bind_range_call(
        &mut self,
        names: &[String],
        args: &mut Vec<(Expr, Type)>,
        variadic: bool,
        location: i32,
    ) -> PgResult<Option<(Expr, Type)>> {
        let name = names.last().map_or("", String::as_str);
        let types: Vec<Type> = args.iter().map(|(_, t)| t.base_type()).collect();
        if let Some(call) = self.bind_multirange_call(names, &types, args, variadic, location)? {
            return Ok(Some(call));
        }
        if let (Some((f, gives_subtype)), [t]) = (func::range::accessor(name), types.as_slice()) {
            let Some(sub) = t.range_subtype() else {
                return Ok(None);
            };
            // A bound of a range over a domain is typed as the domain's base type, as
            // PostgreSQL resolves anyelement from the range.
            let ret = if gives_subtype {
                sub.base_type()
            } else {
                Type::BOOL
            };
            let args = std::mem::take(args).into_iter().map(|(e, _)| e).collect();
            return Ok(Some((self.range_call(f, args, true)?, ret)));
        }
        if let (Some(op), [l, r]) = (operator_of(name), types.as_slice()) {
            if self.resolve_range_binop(op, *l, *r).is_none() {
                return Ok(None);
            }
            let mut two = std::mem::take(args).into_iter();
            let (Some(a), Some(b)) = (two.next(), two.next()) else {
                return Ok(None);
            };
            return self.make_binop(op, a, b, location).map(Some);
        }
        if name == "range_merge" && types.len() == 2 {
            let ty = if types[0] == Type::UNKNOWN {
                types[1]
            } else {
                types[0]
            };
            if !ty.is_range() || types.iter().any(|t| *t != ty && *t != Type::UNKNOWN) {
                return Ok(None);
            }
            let mut out = Vec::new();
            for (e, t) in std::mem::take(args) {
                out.push(self.coerce(e, t, ty, -1, CoercionContext::Implicit, location)?);
            }
            return Ok(Some((
                self.range_call(func::range::f_range_merge, out, true)?,
                ty,
            )));
        }
        let Some(ty) = self.range_type_named(names) else {
            return Ok(None);
        };
        let sub = ty.range_subtype().unwrap_or(Type::UNKNOWN);
        let fits = matches!(types.len(), 2 | 3)
            && types.iter().enumerate().all(|(i, t)| {
                let want = if i < 2 { sub } else { Type::TEXT };
                *t == want
                    || *t == Type::UNKNOWN
                    || cast::can_coerce(*t, want, CoercionContext::Implicit)
            });
        if !fits {
            return Err(undefined_function(name, &types, location));
        }
        let mut out = Vec::new();
        for (i, (e, t)) in std::mem::take(args).into_iter().enumerate() {
            let want = if i < 2 { sub } else { Type::TEXT };
            out.push(self.coerce(e, t, want, -1, CoercionContext::Implicit, location)?);
        }
        out.push(Expr::Const(Value::Oid(ty.0)));
        Ok(Some((
            self.range_call(func::range::f_range_ctor, out, false)?,
            ty,
        )))
    }

    /// A call of a multirange function or constructor (see `bind_range_call`).
    fn bind_multirange_call(
        &mut self,
        names: &[String],
        types: &[Type],
        args: &mut Vec<(Expr, Type)>,
        variadic: bool,
        location: i32,
    ) -> PgResult<Option<(Expr, Type)>> {
        use func::multirange as m;
        let name = names.last().map_or("", String::as_str);
        let one_multirange = match types {
            [t] => t.multirange_range().map(|r| (*t, r)),
            _ => None,
        };
        let take = |args: &mut Vec<(Expr, Type)>| -> Vec<Expr> {
            std::mem::take(args).into_iter().map(|(e, _)| e).collect()
        };
        if let Some((_, rty)) = one_multirange {
            if let Some((f, gives_subtype)) = m::accessor(name) {
                let ret = if gives_subtype {
                    subtype_of(rty).unwrap_or(Type::UNKNOWN)
                } else {
                    Type::BOOL
                };
                let call = self.range_call(f, take(args), true)?;
                return Ok(Some((call, ret)));
            }
            if name == "range_merge" {
                let call = self.range_call(m::f_range_merge, take(args), true)?;
                return Ok(Some((call, rty)));
            }
        }
        if let (&[t], "multirange") = (types, name) {
            let Some(mty) = t.range_multirange() else {
                return Ok(None);
            };
            let mut a = take(args);
            a.push(Expr::Const(Value::Oid(mty.0)));
            return Ok(Some((self.range_call(m::f_multirange_ctor, a, true)?, mty)));
        }
        let Some(mty) = self.multirange_type_named(names) else {
            return Ok(None);
        };
        let rty = mty.multirange_range().unwrap_or(Type::UNKNOWN);
        // `int4multirange(VARIADIC a)`: the ranges in an array.
        if variadic {
            let arr = rty.array().unwrap_or(Type::UNKNOWN);
            let [t] = types else {
                return Err(undefined_function(name, types, location));
            };
            if *t != arr && *t != Type::UNKNOWN {
                return Err(undefined_function(name, types, location));
            }
            let mut out = Vec::new();
            for (e, t) in std::mem::take(args) {
                out.push(self.coerce(e, t, arr, -1, CoercionContext::Implicit, location)?);
            }
            out.push(Expr::Const(Value::Oid(mty.0)));
            let call = self.range_call(m::f_multirange_ctor_array, out, true)?;
            return Ok(Some((call, mty)));
        }
        let fits = types.iter().all(|t| {
            *t == rty || *t == Type::UNKNOWN || cast::can_coerce(*t, rty, CoercionContext::Implicit)
        });
        if !fits {
            return Err(undefined_function(name, types, location));
        }
        let mut out = Vec::new();
        for (e, t) in std::mem::take(args) {
            out.push(self.coerce(e, t, rty, -1, CoercionContext::Implicit, location)?);
        }
        // One argument: the strict constructor (NULL gives NULL); more: a NULL member is an
        // error, as for PostgreSQL's variadic one.
        let strict = out.len() == 1;
        out.push(Expr::Const(Value::Oid(mty.0)));
        Ok(Some((
            self.range_call(m::f_multirange_ctor, out, strict)?,
            mty,
        )))
    }

    /// The multirange type a constructor call `names(...)` makes (as `range_type_named`).
    pub(super) fn multirange_type_named(&self, names: &[String]) -> Option<Type> {
        let (schema, name) = match names {
            [n] => ("", n.as_str()),
            [.., s, n] if s != "pg_catalog" => (s.as_str(), n.as_str()),
            [.., n] => return Type::from_name(n).filter(|t| t.is_multirange()),
            [] => return None,
        };
        if let Some(t) = Type::from_name(name) {
            return t.is_multirange().then_some(t);
        }
        self.tables.as_ref()?.find_multirange_type(schema, name)
    }

    /// The range type a constructor call `names(...)` makes: a built-in range type's name or
    /// a range type CREATE TYPE made (found on the search path, or in the schema named).
    pub(super) fn range_type_named(&self, names: &[String]) -> Option<Type> {
        let (schema, name) = match names {
            [n] => ("", n.as_str()),
            [.., s, n] if s != "pg_catalog" => (s.as_str(), n.as_str()),
            [.., n] => return Type::from_name(n).filter(|t| t.is_range()),
            [] => return None,
        };
        if let Some(t) = Type::from_name(name) {
            return t.is_range().then_some(t);
        }
        // Only the type store: a function call must not look tables up by its name.
        let t = self.tables.as_ref()?.find_type(schema, name)?;
        t.def.range.is_some().then_some(Type(t.oid))
    }

    /// A call of `f`, folded when every argument is a constant (the range functions are
    /// immutable, as in PostgreSQL, whose errors then come before any row description).
    fn range_call(&mut self, f: func::ScalarFn, args: Vec<Expr>, strict: bool) -> PgResult<Expr> {
        if args.iter().all(|a| matches!(a, Expr::Const(_))) {
            let vals: Vec<Value> = args
                .iter()
                .map(|a| match a {
                    Expr::Const(v) => v.clone(),
                    _ => Value::Null,
                })
                .collect();
            if strict && vals.iter().any(Value::is_null) {
                return Ok(Expr::Const(Value::Null));
            }
            if let Some(v) = self.fold(f(&vals, self.fmt))? {
                return Ok(Expr::Const(v));
            }
        }
        Ok(Expr::Func { f, args, strict })
    }
}

/// The operator a range function is the function of (`range_contains(a, b)` is `a @> b`).
fn operator_of(name: &str) -> Option<&'static str> {
    Some(match name {
        "range_eq" => "=",
        "range_ne" => "<>",
        "range_lt" => "<",
        "range_le" => "<=",
        "range_gt" => ">",
        "range_ge" => ">=",
        "range_contains" | "range_contains_elem" => "@>",
        "range_contained_by" | "elem_contained_by_range" => "<@",
        "range_overlaps" => "&&",
        "range_before" => "<<",
        "range_after" => ">>",
        "range_overleft" => "&<",
        "range_overright" => "&>",
        "range_adjacent" => "-|-",
        "range_union" => "+",
        "range_intersect" => "*",
        "range_minus" => "-",
        "multirange_eq" => "=",
        "multirange_ne" => "<>",
        "multirange_lt" => "<",
        "multirange_le" => "<=",
        "multirange_gt" => ">",
        "multirange_ge" => ">=",
        "multirange_contains_elem"
        | "multirange_contains_range"
        | "multirange_contains_multirange"
        | "range_contains_multirange" => "@>",
        "elem_contained_by_multirange"
        | "range_contained_by_multirange"
        | "multirange_contained_by_range"
        | "multirange_contained_by_multirange" => "<@",
        "range_overlaps_multirange"
        | "multirange_overlaps_range"
        | "multirange_overlaps_multirange" => "&&",
        "range_before_multirange" | "multirange_before_range" | "multirange_before_multirange" => {
            "<<"
        }
        "range_after_multirange" | "multirange_after_range" | "multirange_after_multirange" => ">>",
        "range_overleft_multirange"
        | "multirange_overleft_range"
        | "multirange_overleft_multirange" => "&<",
        "range_overright_multirange"
        | "multirange_overright_range"
        | "multirange_overright_multirange" => "&>",
        "range_adjacent_multirange"
        | "multirange_adjacent_range"
        | "multirange_adjacent_multirange" => "-|-",
        "multirange_union" => "+",
        "multirange_intersect" => "*",
        "multirange_minus" => "-",
        _ => return None,
    })
}

/// The subtype of range type `t` as values are held (a domain subtype's base type).
fn subtype_of(t: Type) -> Option<Type> {
    t.range_subtype().map(Type::base_type)
}
