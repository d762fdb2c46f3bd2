//! Subscripts and assignment paths (PostgreSQL's transformContainerSubscripts and
//! transformAssignmentIndirection).
//!
//! Reading: `a[i]`, `a[i][j]` (one subscript per dimension), a slice `a[1:2]` / `a[:2]` /
//! `a[2:]` (any `:` makes every subscript of the group a slice bound, a plain `[n]` there
//! meaning `[1:n]`), `j['key'][0]` of a jsonb, `name[i]`; a domain over an array is
//! subscripted as its base type. The result is a [`SubRef`] the executor evaluates
//! (`exec/subscript.rs`).
//!
//! Assigning: the target of `UPDATE t SET c.f[2].g = v` or `INSERT INTO t (a[1]) ...` is a path
//! of field names and subscript groups below a column. The new column value is built from the
//! inside out: at a field, the composite with that field replaced (`composite.rs`); at a
//! subscript group, the container with that element or slice replaced, its old part read for a
//! path that goes deeper. The value is coerced to the type at the end of the path.

use pg_query::protobuf::{self, node::Node as N};

use super::agg::AggCtx;
use super::{loc, node_location, Planner, Scope};
use crate::error::{code, PgError, PgResult};
use crate::sql::plan::{Expr, SubKind, SubRef};
use crate::sql::types::cast::{can_coerce, CoercionContext};
use crate::sql::types::subscript::{too_many_dims, MAX_DIMS};
use crate::sql::types::{Type, Value};

/// A subscript group bound, before it is read or assigned: the reference (without its
/// assignment), the type of what it selects, and the container's own type.
struct Bound {
    sub: SubRef,
    part: Type,
    part_typmod: i32,
}

/// The group of adjacent subscripts an indirection list starts with (none if it starts with
/// a field name).
pub(super) fn leading_subscripts(path: &[protobuf::Node]) -> Vec<&protobuf::AIndices> {
    path.iter()
        .map_while(|n| match &n.node {
            Some(N::AIndices(a)) => Some(a.as_ref()),
            _ => None,
        })
        .collect()
}

fn datatype_mismatch(msg: String, location: i32) -> PgError {
    PgError::new(code::DATATYPE_MISMATCH, msg).at(loc(location))
}

impl Planner<'_> {
    /// `base[...]...` for a group of adjacent subscripts: the part they read and its type.
    pub(super) fn bind_subscripts(
        &mut self,
        base: Expr,
        ty: Type,
        subs: &[&protobuf::AIndices],
        scope: &Scope,
        agg: Option<&mut AggCtx>,
        location: i32,
    ) -> PgResult<(Expr, Type)> {
        let b = self.subscript_group(base, ty, -1, subs, scope, agg, location)?;
        Ok((Expr::Subscript(Box::new(b.sub)), b.part))
    }

    /// Binds one group of subscripts on `base` of type `ty`.
    #[allow(clippy::too_many_arguments)]
    fn subscript_group(
        &mut self,
        base: Expr,
        ty: Type,
        typmod: i32,
        subs: &[&protobuf::AIndices],
        scope: &Scope,
        mut agg: Option<&mut AggCtx>,
        location: i32,
    ) -> PgResult<Bound> {
        let container = ty.base_type();
        let slice = subs.iter().any(|s| s.is_slice);
        let node_of = |n: &Option<Box<protobuf::Node>>| n.as_deref().and_then(|n| n.node.clone());
        if container == Type::JSONB {
            let mut out = Vec::with_capacity(subs.len());
            let mut expect_array = false;
            for (k, s) in subs.iter().enumerate() {
                let Some(n) = node_of(&s.uidx).filter(|_| !slice) else {
                    let at = node_of(&s.uidx)
                        .or_else(|| node_of(&s.lidx))
                        .map(|n| node_location(&n))
                        .unwrap_or(location);
                    return Err(datatype_mismatch(
                        "jsonb subscript does not support slices".into(),
                        at,
                    ));
                };
                let (e, t) = self.bind(&n, scope, agg.as_deref_mut())?;
                let at = node_location(&n);
                let target = if t == Type::UNKNOWN {
                    Type::TEXT
                } else {
                    let int = can_coerce(t, Type::INT4, CoercionContext::Implicit);
                    let text = can_coerce(t, Type::TEXT, CoercionContext::Implicit);
                    match (int, text) {
                        (true, false) => Type::INT4,
                        (false, true) => Type::TEXT,
                        (true, true) => return Err(datatype_mismatch(
                            format!("subscript type {} is not supported", t.name()),
                            at,
                        )
                        .with_hint(
                            "jsonb subscript must be coercible to only one type, integer or text.",
                        )),
                        (false, false) => {
                            return Err(datatype_mismatch(
                                format!("subscript type {} is not supported", t.name()),
                                at,
                            )
                            .with_hint(
                                "jsonb subscript must be coercible to either integer or text.",
                            ))
                        }
                    }
                };
                if k == 0 && target == Type::INT4 {
                    expect_array = true;
                }
                let e = self.coerce(e, t, target, -1, CoercionContext::Implicit, at)?;
                out.push((None, Some(e)));
            }
            return Ok(Bound {
                sub: SubRef {
                    base,
                    kind: SubKind::Jsonb { expect_array },
                    elem: Type::UNKNOWN,
                    subs: out,
                    assign: None,
                },
                part: Type::JSONB,
                part_typmod: -1,
            });
        }
        let Some(elem) = container.subscript_elem() else {
            return Err(datatype_mismatch(
                format!(
                    "cannot subscript type {} because it does not support subscripting",
                    ty.name()
                ),
                location,
            ));
        };
        if subs.len() > MAX_DIMS {
            return Err(too_many_dims(subs.len()));
        }
        let mut out = Vec::with_capacity(subs.len());
        for s in subs {
            let upper = match node_of(&s.uidx) {
                Some(n) => Some(self.array_subscript(&n, scope, agg.as_deref_mut())?),
                None => None,
            };
            let lower = match node_of(&s.lidx) {
                Some(n) => Some(self.array_subscript(&n, scope, agg.as_deref_mut())?),
                // `[n]` among slice bounds is `[1:n]`.
                None if slice && !s.is_slice => Some(Expr::Const(Value::Int4(1))),
                None => None,
            };
            out.push((lower, upper));
        }
        let name = container == Type::NAME;
        if matches!(container, Type::POINT | Type::LSEG | Type::BOX) {
            if slice {
                return Err(PgError::feature_not_supported(
                    "slices of fixed-length arrays not implemented",
                )
                .at(loc(location)));
            }
            return Ok(Bound {
                sub: SubRef {
                    base,
                    kind: SubKind::Fixed,
                    elem,
                    subs: out,
                    assign: None,
                },
                part: elem,
                part_typmod: -1,
            });
        }
        let (kind, part, part_typmod) = if slice && !name {
            (SubKind::Slice, container, typmod)
        } else if name {
            (SubKind::NameChar, elem, -1)
        } else {
            (SubKind::Element, elem, typmod)
        };
        Ok(Bound {
            sub: SubRef {
                base,
                kind,
                elem,
                subs: out,
                assign: None,
            },
            part,
            part_typmod,
        })
    }

    /// An array subscript, as int4 (assignment coercion, as PostgreSQL's).
    fn array_subscript(
        &mut self,
        n: &N,
        scope: &Scope,
        agg: Option<&mut AggCtx>,
    ) -> PgResult<Expr> {
        let (e, t) = self.bind(n, scope, agg)?;
        let at = node_location(n);
        if !can_coerce(t, Type::INT4, CoercionContext::Assignment) && t != Type::UNKNOWN {
            return Err(datatype_mismatch(
                "array subscript must have type integer".into(),
                at,
            ));
        }
        self.coerce(e, t, Type::INT4, -1, CoercionContext::Assignment, at)
    }

    /// The new value of a column of type `ty` (typmod `typmod`) when `path` below it (field
    /// names and subscripts: `c.x[2].y`) is assigned `value`; `base` is the column's value so
    /// far (NULL for INSERT's, taken as a row of NULLs or an empty container).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn assign_path(
        &mut self,
        base: Expr,
        ty: Type,
        typmod: i32,
        column: &str,
        path: &[protobuf::Node],
        value: (Expr, Type),
        scope: &Scope,
        location: i32,
    ) -> PgResult<Expr> {
        crate::stack::check()?;
        let subs = leading_subscripts(path);
        if subs.is_empty() {
            return match path.first().and_then(|n| n.node.as_ref()) {
                None => self.assign_end(value, ty, typmod, column, false, location),
                Some(N::String(s)) => self.assign_field(
                    base,
                    ty,
                    column,
                    &s.sval,
                    &path[1..],
                    value,
                    scope,
                    location,
                ),
                Some(_) => Err(PgError::feature_not_supported(
                    "row expansion via \"*\" is not supported here",
                )
                .at(loc(location))),
            };
        }
        let mut b = self.subscript_group(base.clone(), ty, typmod, &subs, scope, None, location)?;
        let rest = &path[subs.len()..];
        let new = if rest.is_empty() {
            self.assign_end(value, b.part, b.part_typmod, column, true, location)?
        } else {
            let old = Expr::Subscript(Box::new(b.sub.clone()));
            self.assign_path(
                old,
                b.part,
                b.part_typmod,
                column,
                rest,
                value,
                scope,
                location,
            )?
        };
        if b.sub.kind == SubKind::NameChar {
            return Err(PgError::feature_not_supported(format!(
                "cannot assign to a character of column \"{column}\" of type name"
            ))
            .at(loc(location)));
        }
        b.sub.assign = Some(new);
        let e = Expr::Subscript(Box::new(b.sub));
        let container = ty.base_type();
        if container != ty {
            // A domain over an array: the new array must pass the domain's checks.
            return self.coerce(
                e,
                container,
                ty,
                typmod,
                CoercionContext::Assignment,
                location,
            );
        }
        Ok(e)
    }

    /// INSERT's value for target `k`, a path below its column (of declared type `col_ty`):
    /// the path assigned into what an earlier target of the same column built (`so_far`), or
    /// into NULL when it is the column's first.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn insert_path(
        &mut self,
        so_far: &Expr,
        k: usize,
        targets: &[usize],
        paths: &[(Vec<protobuf::Node>, i32)],
        col_ty: (Type, i32),
        column: &str,
        value: (Expr, Type),
    ) -> PgResult<Expr> {
        let col = targets[k];
        let earlier = paths[..k]
            .iter()
            .zip(targets)
            .any(|(p, t)| *t == col && !p.0.is_empty());
        let base = if earlier {
            so_far.clone()
        } else {
            Expr::Const(Value::Null)
        };
        let (path, at) = &paths[k];
        self.assign_path(
            base,
            col_ty.0,
            col_ty.1,
            column,
            path,
            value,
            &Scope::default(),
            *at,
        )
    }

    /// The value at the end of an assignment path, coerced to the type there.
    fn assign_end(
        &mut self,
        value: (Expr, Type),
        ty: Type,
        typmod: i32,
        name: &str,
        subscripted: bool,
        location: i32,
    ) -> PgResult<Expr> {
        let (e, t) = value;
        self.coerce(e, t, ty, typmod, CoercionContext::Assignment, location)
            .map_err(|err| {
                if err.code != code::CANNOT_COERCE && err.code != code::DATATYPE_MISMATCH {
                    return err;
                }
                let msg = if subscripted {
                    format!(
                        "subscripted assignment to \"{name}\" requires type {} but expression is of type {}",
                        ty.name(),
                        t.name()
                    )
                } else {
                    format!(
                        "subfield \"{name}\" is of type {} but expression is of type {}",
                        ty.name(),
                        t.name()
                    )
                };
                PgError::new(code::DATATYPE_MISMATCH, msg)
                    .with_hint("You will need to rewrite or cast the expression.")
                    .at(loc(location))
            })
    }
}
