//! Expression binding (PostgreSQL's parse_expr.c): `bind` turns a parse-tree expression into a
//! typed `Expr` against a scope — constants, column and parameter references, casts, AND / OR /
//! NOT, NULL and boolean tests, CASE, COALESCE, GREATEST / LEAST, SQL value functions, ARRAY[],
//! ROW(), subscripts and subqueries in expressions — handing operators, function calls and
//! aggregates to their own files. `same_expr` compares bound expressions structurally (group
//! keys, ORDER BY and DISTINCT ON against the select list).

use pg_query::protobuf::{self, node::Node as N};

use super::agg::AggCtx;
use super::coerce::common_type;
use super::names::node_name;
use super::nodes::{Column, Node, Plan};
use super::scope::Scope;
use super::{loc, names_of, Planner};
use crate::error::{code, PgError, PgResult};
use crate::sql::func::SessionFn;
use crate::sql::plan::{Expr, SubqueryKind};
use crate::sql::types::cast::CoercionContext;
use crate::sql::types::{Numeric, Type, Value};

pub(super) fn same_expr(a: &Expr, b: &Expr) -> bool {
    match (a, b) {
        (Expr::Const(x), Expr::Const(y)) => x == y,
        (Expr::Param(x), Expr::Param(y)) => x == y,
        (Expr::Column(x), Expr::Column(y)) => x == y,
        (Expr::Outer(a1, b1), Expr::Outer(a2, b2)) => a1 == a2 && b1 == b2,
        (Expr::Bin(f1, l1, r1), Expr::Bin(f2, l2, r2)) => {
            std::ptr::fn_addr_eq(*f1, *f2) && same_expr(l1, l2) && same_expr(r1, r2)
        }
        (Expr::Un(f1, a1), Expr::Un(f2, a2)) => std::ptr::fn_addr_eq(*f1, *f2) && same_expr(a1, a2),
        (
            Expr::Func {
                f: f1, args: a1, ..
            },
            Expr::Func {
                f: f2, args: a2, ..
            },
        ) => std::ptr::fn_addr_eq(*f1, *f2) && same_exprs(a1, a2),
        (
            Expr::Cast {
                expr: e1, to: t1, ..
            },
            Expr::Cast {
                expr: e2, to: t2, ..
            },
        ) => t1 == t2 && same_expr(e1, e2),
        (
            Expr::Session {
                f: f1, args: a1, ..
            },
            Expr::Session {
                f: f2, args: a2, ..
            },
        ) => f1 == f2 && same_exprs(a1, a2),
        (Expr::And(a1), Expr::And(a2))
        | (Expr::Or(a1), Expr::Or(a2))
        | (Expr::Coalesce(a1), Expr::Coalesce(a2))
        | (Expr::Row(a1), Expr::Row(a2)) => same_exprs(a1, a2),
        (Expr::Not(a1), Expr::Not(a2)) => same_expr(a1, a2),
        (Expr::System(a1, s1), Expr::System(a2, s2)) => s1.kind == s2.kind && same_expr(a1, a2),
        (Expr::IsNull(a1, n1), Expr::IsNull(a2, n2)) => n1 == n2 && same_expr(a1, a2),
        (Expr::BoolTest(a1, v1, n1), Expr::BoolTest(a2, v2, n2)) => {
            v1 == v2 && n1 == n2 && same_expr(a1, a2)
        }
        (Expr::Distinct(f1, l1, r1, n1), Expr::Distinct(f2, l2, r2, n2)) => {
            std::ptr::fn_addr_eq(*f1, *f2) && n1 == n2 && same_expr(l1, l2) && same_expr(r1, r2)
        }
        (Expr::NullIf(f1, l1, r1), Expr::NullIf(f2, l2, r2)) => {
            std::ptr::fn_addr_eq(*f1, *f2) && same_expr(l1, l2) && same_expr(r1, r2)
        }
        (Expr::MinMax(a1, g1), Expr::MinMax(a2, g2)) => g1 == g2 && same_exprs(a1, a2),
        (
            Expr::Case {
                whens: w1,
                default: d1,
            },
            Expr::Case {
                whens: w2,
                default: d2,
            },
        ) => {
            w1.len() == w2.len()
                && w1
                    .iter()
                    .zip(w2)
                    .all(|((c1, r1), (c2, r2))| same_expr(c1, c2) && same_expr(r1, r2))
                && match (d1, d2) {
                    (None, None) => true,
                    (Some(x), Some(y)) => same_expr(x, y),
                    _ => false,
                }
        }
        (
            Expr::InList {
                expr: e1,
                list: l1,
                eq: q1,
                negated: n1,
            },
            Expr::InList {
                expr: e2,
                list: l2,
                eq: q2,
                negated: n2,
            },
        ) => std::ptr::fn_addr_eq(*q1, *q2) && n1 == n2 && same_expr(e1, e2) && same_exprs(l1, l2),
        (
            Expr::ArrayCmp {
                left: a1,
                right: b1,
                op: o1,
                all: x1,
            },
            Expr::ArrayCmp {
                left: a2,
                right: b2,
                op: o2,
                all: x2,
            },
        ) => std::ptr::fn_addr_eq(*o1, *o2) && x1 == x2 && same_expr(a1, a2) && same_expr(b1, b2),
        (Expr::Array(a1, t1), Expr::Array(a2, t2)) => t1 == t2 && same_exprs(a1, a2),
        (Expr::Subscript(s1), Expr::Subscript(s2)) => {
            s1.kind == s2.kind
                && s1.subs.len() == s2.subs.len()
                && s1.children().count() == s2.children().count()
                && s1
                    .children()
                    .zip(s2.children())
                    .all(|(x, y)| same_expr(x, y))
                && s1
                    .subs
                    .iter()
                    .zip(&s2.subs)
                    .all(|(a, b)| a.0.is_some() == b.0.is_some() && a.1.is_some() == b.1.is_some())
        }
        _ => false,
    }
}

/// `t.*` (names, then a final star) as the reference `t` to a whole row.
fn star_row(cr: &protobuf::ColumnRef) -> Option<protobuf::ColumnRef> {
    let (last, names) = cr.fields.split_last()?;
    if !matches!(last.node, Some(N::AStar(_)))
        || names.is_empty()
        || names.iter().any(|f| !matches!(f.node, Some(N::String(_))))
    {
        return None;
    }
    Some(protobuf::ColumnRef {
        fields: names.to_vec(),
        location: cr.location,
    })
}

fn same_exprs(a: &[Expr], b: &[Expr]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same_expr(x, y))
}

impl Planner<'_> {
    /// Binds an expression. With `agg`, the expression is in a grouped query: group keys and
    /// aggregate calls become columns of the Aggregate node's output.
    pub(super) fn bind(
        &mut self,
        n: &N,
        scope: &Scope,
        mut agg: Option<&mut AggCtx>,
    ) -> PgResult<(Expr, Type)> {
        crate::stack::check()?;
        if let Some(ctx) = agg.as_deref_mut() {
            if let Some(bound) = self.bind_group_key(n, ctx)? {
                return Ok(bound);
            }
        }
        match n {
            N::GroupingFunc(gf) => self.bind_grouping(gf, agg),
            N::AConst(c) => Ok(self.bind_const(c)),
            N::ColumnRef(cr) => {
                let fields = names_of(&cr.fields);
                if let Some(row) = star_row(cr) {
                    // `t.*` outside a select list, ROW() or VALUES: the whole row `t`.
                    return self.bind(&N::ColumnRef(row), scope, agg);
                }
                if cr
                    .fields
                    .iter()
                    .any(|f| matches!(f.node, Some(N::AStar(_))))
                {
                    return Err(PgError::feature_not_supported(
                        "row expansion with * is only supported in the select list",
                    ));
                }
                match self.lookup_column(scope, &fields, cr.location) {
                    Err(e)
                        if e.code == code::UNDEFINED_COLUMN
                            || (e.code == code::UNDEFINED_TABLE && fields.len() == 2) =>
                    {
                        self.function_param(&fields).ok_or(e)
                    }
                    r => r,
                }
            }
            N::ParamRef(p) => self.bind_param(p),
            N::TypeCast(tc) => self.bind_type_cast(tc, scope, agg),
            N::AExpr(a) => self.bind_aexpr(a, scope, agg),
            N::BoolExpr(b) => self.bind_bool_expr(b, scope, agg),
            N::NullTest(nt) => {
                let an = nt.arg.as_ref().and_then(|n| n.node.as_ref()).expect("arg");
                let (e, _) = self.bind(an, scope, agg)?;
                let negated = nt.nulltesttype == protobuf::NullTestType::IsNotNull as i32;
                Ok((Expr::IsNull(Box::new(e), negated), Type::BOOL))
            }
            N::BooleanTest(bt) => {
                let an = bt.arg.as_ref().and_then(|n| n.node.as_ref()).expect("arg");
                let (e, t) = self.bind(an, scope, agg)?;
                let e = self.coerce_bool(e, t, "IS TRUE", an)?;
                use protobuf::BoolTestType as B;
                let (want, neg) = match bt.booltesttype {
                    x if x == B::IsTrue as i32 => (Some(true), false),
                    x if x == B::IsNotTrue as i32 => (Some(true), true),
                    x if x == B::IsFalse as i32 => (Some(false), false),
                    x if x == B::IsNotFalse as i32 => (Some(false), true),
                    x if x == B::IsUnknown as i32 => (None, false),
                    _ => (None, true),
                };
                Ok((Expr::BoolTest(Box::new(e), want, neg), Type::BOOL))
            }
            N::CaseExpr(c) => self.bind_case(c, scope, agg),
            N::CoalesceExpr(c) => {
                let mut items = Vec::new();
                for a in &c.args {
                    items.push(self.bind(
                        a.node.as_ref().expect("arg"),
                        scope,
                        agg.as_deref_mut(),
                    )?);
                }
                let types: Vec<Type> = items.iter().map(|(_, t)| *t).collect();
                let ty = common_type(&types, "COALESCE", c.location)?;
                let mut out = Vec::new();
                for (e, t) in items {
                    out.push(self.coerce(e, t, ty, -1, CoercionContext::Implicit, c.location)?);
                }
                Ok((Expr::Coalesce(out), ty))
            }
            N::MinMaxExpr(m) => {
                let mut items = Vec::new();
                for a in &m.args {
                    items.push(self.bind(
                        a.node.as_ref().expect("arg"),
                        scope,
                        agg.as_deref_mut(),
                    )?);
                }
                let types: Vec<Type> = items.iter().map(|(_, t)| *t).collect();
                let word = if m.op == protobuf::MinMaxOp::IsGreatest as i32 {
                    "GREATEST"
                } else {
                    "LEAST"
                };
                let ty = common_type(&types, word, m.location)?;
                let mut out = Vec::new();
                for (e, t) in items {
                    out.push(self.coerce(e, t, ty, -1, CoercionContext::Implicit, m.location)?);
                }
                Ok((Expr::MinMax(out, word == "GREATEST"), ty))
            }
            N::SqlvalueFunction(f) => self.bind_sql_value_function(f),
            N::FuncCall(fc) => self.bind_func(fc, scope, agg),
            N::SubLink(sl) => self.bind_sublink(sl, scope, agg),
            N::AArrayExpr(a) => self.bind_array_expr(a, scope, agg),
            N::RowExpr(r) => {
                let mut items = Vec::new();
                for a in &r.args {
                    let n = a.node.as_ref().expect("arg");
                    let star = match n {
                        N::ColumnRef(cr) => star_row(cr).map(|r| (r, cr.location)),
                        _ => None,
                    };
                    let (e, t) = match &star {
                        Some((row, _)) => {
                            self.bind(&N::ColumnRef(row.clone()), scope, agg.as_deref_mut())?
                        }
                        None => self.bind(n, scope, agg.as_deref_mut())?,
                    };
                    // ROW(t.*): the fields of `t`, each an item.
                    match (star, e) {
                        (Some(_), Expr::Row(fields)) => items.extend(fields),
                        (Some((_, at)), e) => match self.composite_fields(t) {
                            Some(fields) => {
                                for (name, _, _) in fields {
                                    items.push(self.select_field(e.clone(), t, None, &name, at)?.0);
                                }
                            }
                            None => items.push(e),
                        },
                        (None, e) => items.push(e),
                    }
                }
                Ok((Expr::Row(items), Type::RECORD))
            }
            N::AIndirection(ind) => self.bind_indirection(ind, scope, agg),
            N::CollateClause(c) => {
                let an = c.arg.as_ref().and_then(|n| n.node.as_ref()).expect("arg");
                self.bind(an, scope, agg)
            }
            other => Err(PgError::feature_not_supported(format!(
                "expression not supported: {}",
                node_name(other)
            ))),
        }
    }

    /// A parameter reference `$n`: its type as given, or UNKNOWN until a context infers it.
    fn bind_param(&mut self, p: &protobuf::ParamRef) -> PgResult<(Expr, Type)> {
        let i = p.number as usize;
        if i == 0 || !self.allow_params {
            return Err(PgError::new(
                code::UNDEFINED_PARAMETER,
                format!("there is no parameter ${i}"),
            )
            .at(loc(p.location)));
        }
        if i > crate::sql::parser::MAX_PARAMS {
            return Err(PgError::new(
                code::UNDEFINED_PARAMETER,
                format!("there is no parameter ${i}"),
            )
            .at(loc(p.location)));
        }
        if self.func_params.is_some() && self.params.len() < i {
            // A SQL function's body has exactly the function's parameters.
            return Err(PgError::new(
                code::UNDEFINED_PARAMETER,
                format!("there is no parameter ${i}"),
            )
            .at(loc(p.location)));
        }
        if self.params.len() < i {
            self.params.resize(i, Type::UNKNOWN);
        }
        if self.referenced.len() < i {
            self.referenced.resize(i, false);
        }
        self.referenced[i - 1] = true;
        Ok((Expr::Param(i - 1), self.params[i - 1]))
    }

    /// `expr::type` and CAST(expr AS type).
    fn bind_type_cast(
        &mut self,
        tc: &protobuf::TypeCast,
        scope: &Scope,
        agg: Option<&mut AggCtx>,
    ) -> PgResult<(Expr, Type)> {
        let arg = tc
            .arg
            .as_ref()
            .and_then(|n| n.node.as_ref())
            .ok_or_else(|| PgError::syntax("bad cast"))?;
        let tn = tc
            .type_name
            .as_ref()
            .ok_or_else(|| PgError::syntax("bad cast"))?;
        let (to, typmod) = self.resolve_type_name(tn)?;
        // ARRAY[]::t[] takes its type from the cast.
        if let (N::AArrayExpr(a), Some(elem), false) = (arg, to.elem(), to.is_domain()) {
            if a.elements.is_empty() {
                let empty = crate::sql::types::Array::one_dim(elem.base_type(), Vec::new());
                return Ok((Expr::Const(Value::Array(Box::new(empty))), to.base_type()));
            }
        }
        // '...'::interval etc: a literal is read directly as the target type.
        let (e, from) = self.bind(arg, scope, agg)?;
        // A cast of a typed value to a polymorphic type leaves it as it is.
        if to.is_polymorphic() && from != Type::UNKNOWN {
            return Ok((e, from));
        }
        // Errors reading a literal point at the literal, others at the cast.
        let at = match arg {
            N::AConst(c) => c.location,
            _ => tc.location,
        };
        let e = self
            .coerce(e, from, to, typmod, CoercionContext::Explicit, at)
            .map_err(|mut e| {
                // "cannot cast type" is about the cast itself, literal or not.
                if e.code == code::CANNOT_COERCE {
                    e.position = loc(tc.location);
                }
                e
            })?;
        Ok((e, to.base_type()))
    }

    /// AND, OR and NOT.
    fn bind_bool_expr(
        &mut self,
        b: &protobuf::BoolExpr,
        scope: &Scope,
        mut agg: Option<&mut AggCtx>,
    ) -> PgResult<(Expr, Type)> {
        let mut args = Vec::new();
        let word = match b.boolop {
            x if x == protobuf::BoolExprType::AndExpr as i32 => "AND",
            x if x == protobuf::BoolExprType::OrExpr as i32 => "OR",
            _ => "NOT",
        };
        for a in &b.args {
            let an = a.node.as_ref().expect("arg");
            let (e, t) = self.bind(an, scope, agg.as_deref_mut())?;
            args.push(self.coerce_bool(e, t, word, an)?);
        }
        // eval_const_expressions: a constant TRUE decides an OR, a constant FALSE an
        // AND, and the other arguments are dropped unevaluated (volatile or not).
        let decided = |v: bool| {
            args.iter()
                .any(|a| matches!(a, Expr::Const(Value::Bool(b)) if *b == v))
        };
        let e = match word {
            "AND" if decided(false) => Expr::Const(Value::Bool(false)),
            "OR" if decided(true) => Expr::Const(Value::Bool(true)),
            "AND" => Expr::And(args),
            "OR" => Expr::Or(args),
            _ => Expr::Not(Box::new(args.pop().expect("NOT arg"))),
        };
        Ok((e, Type::BOOL))
    }

    /// CURRENT_DATE, CURRENT_TIMESTAMP(p), CURRENT_USER and the other SQL value functions.
    fn bind_sql_value_function(
        &mut self,
        f: &protobuf::SqlValueFunction,
    ) -> PgResult<(Expr, Type)> {
        use protobuf::SqlValueFunctionOp as O;
        let (sf, ty) = match f.op {
            x if x == O::SvfopCurrentDate as i32 => (SessionFn::CurrentDate, Type::DATE),
            x if x == O::SvfopCurrentTimestamp as i32 || x == O::SvfopCurrentTimestampN as i32 => {
                (SessionFn::Now, Type::TIMESTAMPTZ)
            }
            x if x == O::SvfopLocaltimestamp as i32 || x == O::SvfopLocaltimestampN as i32 => {
                (SessionFn::LocalTimestamp, Type::TIMESTAMP)
            }
            x if x == O::SvfopCurrentRole as i32
                || x == O::SvfopCurrentUser as i32
                || x == O::SvfopUser as i32 =>
            {
                (SessionFn::CurrentUser, Type::NAME)
            }
            x if x == O::SvfopSessionUser as i32 => (SessionFn::SessionUser, Type::NAME),
            x if x == O::SvfopCurrentCatalog as i32 => (SessionFn::CurrentDatabase, Type::NAME),
            x if x == O::SvfopCurrentSchema as i32 => (SessionFn::CurrentSchema, Type::NAME),
            // LOCALTIME is the time of day of LOCALTIMESTAMP.
            x if x == O::SvfopLocaltime as i32 || x == O::SvfopLocaltimeN as i32 => {
                (SessionFn::LocalTimestamp, Type::TIME)
            }
            // CURRENT_TIME is the time of day of CURRENT_TIMESTAMP, with its zone.
            x if x == O::SvfopCurrentTime as i32 || x == O::SvfopCurrentTimeN as i32 => {
                (SessionFn::Now, Type::TIMETZ)
            }
            _ => {
                return Err(PgError::feature_not_supported(
                    "this SQL value function is not supported yet",
                ))
            }
        };
        let from = match ty {
            Type::TIME => Type::TIMESTAMP,
            Type::TIMETZ => Type::TIMESTAMPTZ,
            _ => ty,
        };
        let e = Expr::Session {
            f: sf,
            args: Vec::new(),
            arg_types: Vec::new(),
        };
        // CURRENT_TIMESTAMP(p) and the like round to a precision.
        let typmod = if f.typmod >= 0 { f.typmod } else { -1 };
        if from != ty || typmod >= 0 {
            let e = self.coerce(e, from, ty, typmod, CoercionContext::Explicit, -1)?;
            return Ok((e, ty));
        }
        Ok((e, ty))
    }

    /// ARRAY[...]: the elements in their common type.
    fn bind_array_expr(
        &mut self,
        a: &protobuf::AArrayExpr,
        scope: &Scope,
        mut agg: Option<&mut AggCtx>,
    ) -> PgResult<(Expr, Type)> {
        let mut items = Vec::new();
        for e in &a.elements {
            items.push(self.bind(e.node.as_ref().expect("elem"), scope, agg.as_deref_mut())?);
        }
        let types: Vec<Type> = items.iter().map(|(_, t)| *t).collect();
        if types.is_empty() {
            return Err(PgError::new(
                code::INDETERMINATE_DATATYPE,
                "cannot determine type of empty array",
            )
            .with_hint("Explicitly cast to the desired type, for example ARRAY[]::integer[].")
            .at(loc(a.location)));
        }
        let ty = common_type(&types, "ARRAY", a.location)?;
        let (elem, arr) = if ty.is_array() {
            (ty.elem().expect("elem"), ty)
        } else {
            (
                ty,
                ty.array().ok_or_else(|| {
                    PgError::new(
                        code::UNDEFINED_OBJECT,
                        format!("could not find array type for data type {}", ty.name()),
                    )
                })?,
            )
        };
        let mut out = Vec::new();
        for (e, t) in items {
            out.push(self.coerce(e, t, ty, -1, CoercionContext::Implicit, a.location)?);
        }
        Ok((Expr::Array(out, elem), arr))
    }

    /// Field selection and subscripts: `(r).a.b`, `a[i][j]` (not slices).
    fn bind_indirection(
        &mut self,
        ind: &protobuf::AIndirection,
        scope: &Scope,
        mut agg: Option<&mut AggCtx>,
    ) -> PgResult<(Expr, Type)> {
        if ind
            .indirection
            .iter()
            .any(|i| matches!(i.node, Some(N::AStar(_))))
        {
            return Err(PgError::syntax(
                "row expansion via \"*\" is not supported here",
            ));
        }
        // Field selection first: `(row).a.b`, then any subscripts after it.
        let fields = ind
            .indirection
            .iter()
            .take_while(|i| matches!(i.node, Some(N::String(_))))
            .count();
        let arg = ind.arg.as_deref().expect("arg");
        let (mut e, mut t) = if fields > 0 {
            self.bind_field_path(
                arg,
                &ind.indirection[..fields],
                scope,
                agg.as_deref_mut(),
                match arg.node.as_ref() {
                    // A cast's error position is its operand's (PostgreSQL's exprLocation).
                    Some(N::TypeCast(tc)) => tc
                        .arg
                        .as_deref()
                        .and_then(|a| a.node.as_ref())
                        .map(super::node_location)
                        .filter(|l| *l >= 0)
                        .unwrap_or(tc.location),
                    Some(n) => super::node_location(n),
                    None => -1,
                },
            )?
        } else {
            self.bind(arg.node.as_ref().expect("arg"), scope, agg.as_deref_mut())?
        };
        // Then groups of adjacent subscripts, and field selections after them.
        let location = super::node_location(arg.node.as_ref().expect("arg"));
        let mut rest = &ind.indirection[fields..];
        while let Some(first) = rest.first() {
            if let Some(N::String(name)) = &first.node {
                (e, t, _) = self.select_field(e, t, None, &name.sval, location)?;
                rest = &rest[1..];
                continue;
            }
            let subs = super::subscript::leading_subscripts(rest);
            if subs.is_empty() {
                return Err(PgError::syntax("bad indirection"));
            }
            rest = &rest[subs.len()..];
            (e, t) = self.bind_subscripts(e, t, &subs, scope, agg.as_deref_mut(), location)?;
        }
        Ok((e, t))
    }

    /// An unknown-typed string literal, its location remembered (see `PlanState::lit_locs`).
    fn literal(&mut self, s: String, location: i32) -> Expr {
        if !s.is_empty() {
            self.state.lit_locs.insert(s.as_ptr() as usize, location);
        }
        Expr::Const(Value::Text(s))
    }

    fn bind_const(&mut self, c: &protobuf::AConst) -> (Expr, Type) {
        use protobuf::a_const::Val;
        if let Some(val) = crate::sql::parser::shape::override_for(c) {
            // A number of a text that shares this tree (`parser/shape.rs`): its own value.
            return self.bind_const(&protobuf::AConst {
                isnull: false,
                location: c.location,
                val: Some(val),
            });
        }
        if c.isnull {
            return (Expr::Const(Value::Null), Type::UNKNOWN);
        }
        match &c.val {
            Some(Val::Ival(i)) => (Expr::Const(Value::Int4(i.ival)), Type::INT4),
            Some(Val::Fval(f)) => {
                let s = &f.fval;
                // An integer too large for the lexer's int4 (or negated into range, as
                // -2147483648) is int4 if it fits, else int8, as PostgreSQL's make_const does.
                if !s.contains(['.', 'e', 'E']) {
                    if let Ok(v) = s.parse::<i64>() {
                        if let Ok(v) = i32::try_from(v) {
                            return (Expr::Const(Value::Int4(v)), Type::INT4);
                        }
                        return (Expr::Const(Value::Int8(v)), Type::INT8);
                    }
                }
                match Numeric::parse(s) {
                    Ok(n) => (Expr::Const(Value::Numeric(Box::new(n))), Type::NUMERIC),
                    Err(_) => (Expr::Const(Value::Text(s.clone())), Type::UNKNOWN),
                }
            }
            Some(Val::Boolval(b)) => (Expr::Const(Value::Bool(b.boolval)), Type::BOOL),
            Some(Val::Sval(s)) => (self.literal(s.sval.clone(), c.location), Type::UNKNOWN),
            Some(Val::Bsval(b)) => (self.literal(b.bsval.clone(), c.location), Type::UNKNOWN),
            None => (Expr::Const(Value::Null), Type::UNKNOWN),
        }
    }

    fn bind_case(
        &mut self,
        c: &protobuf::CaseExpr,
        scope: &Scope,
        mut agg: Option<&mut AggCtx>,
    ) -> PgResult<(Expr, Type)> {
        let operand = match c.arg.as_ref().and_then(|n| n.node.as_ref()) {
            Some(n) => Some(self.bind(n, scope, agg.as_deref_mut())?),
            None => None,
        };
        let mut conds = Vec::new();
        let mut results = Vec::new();
        for w in &c.args {
            let Some(N::CaseWhen(cw)) = &w.node else {
                continue;
            };
            let cn = cw
                .expr
                .as_ref()
                .and_then(|n| n.node.as_ref())
                .expect("when");
            let cond = match &operand {
                Some(op) => {
                    let v = self.bind(cn, scope, agg.as_deref_mut())?;
                    self.make_binop("=", op.clone(), v, cw.location)?.0
                }
                None => {
                    let (e, t) = self.bind(cn, scope, agg.as_deref_mut())?;
                    self.coerce_bool(e, t, "CASE/WHEN", cn)?
                }
            };
            conds.push(cond);
            let rn = cw
                .result
                .as_ref()
                .and_then(|n| n.node.as_ref())
                .expect("then");
            results.push(self.bind(rn, scope, agg.as_deref_mut())?);
        }
        let default = match c.defresult.as_ref().and_then(|n| n.node.as_ref()) {
            Some(n) => Some(self.bind(n, scope, agg)?),
            None => None,
        };
        let mut types: Vec<Type> = results.iter().map(|(_, t)| *t).collect();
        if let Some((_, t)) = &default {
            types.push(*t);
        }
        let ty = common_type(&types, "CASE", c.location)?;
        let mut whens = Vec::new();
        for (cond, (e, t)) in conds.into_iter().zip(results) {
            whens.push((
                cond,
                self.coerce(e, t, ty, -1, CoercionContext::Implicit, c.location)?,
            ));
        }
        let default = match default {
            Some((e, t)) => Some(Box::new(self.coerce(
                e,
                t,
                ty,
                -1,
                CoercionContext::Implicit,
                c.location,
            )?)),
            None => None,
        };
        Ok((Expr::Case { whens, default }, ty))
    }

    fn bind_sublink(
        &mut self,
        sl: &protobuf::SubLink,
        scope: &Scope,
        mut agg: Option<&mut AggCtx>,
    ) -> PgResult<(Expr, Type)> {
        use protobuf::SubLinkType as S;
        let q = sl
            .subselect
            .as_ref()
            .and_then(|n| n.node.as_ref())
            .ok_or_else(|| PgError::syntax("empty subquery"))?;
        let test = match sl.testexpr.as_ref().and_then(|n| n.node.as_ref()) {
            Some(t) => Some(self.bind(t, scope, agg.as_deref_mut())?),
            None => None,
        };
        // In a grouped query the subquery runs once per group: its outer references read the
        // group's row.
        self.outer.push(match agg.as_deref() {
            Some(ctx) => ctx.outer_scope(),
            None => scope.clone(),
        });
        self.state.sublinks += 1;
        let plan = self.plan_query(q);
        self.state.sublinks -= 1;
        let seen = self.outer.pop().expect("the scope pushed above");
        let plan = plan?;
        if let Some(ctx) = agg {
            ctx.add_read_dependents(&seen);
        }
        let kind = sl.sub_link_type;
        if kind == S::ExistsSublink as i32 {
            return Ok((
                Expr::Subquery(Box::new(plan), SubqueryKind::Exists),
                Type::BOOL,
            ));
        }
        if kind == S::ExprSublink as i32 || kind == S::ArraySublink as i32 {
            if plan.columns.len() != 1 {
                return Err(
                    PgError::syntax("subquery must return only one column").at(loc(sl.location))
                );
            }
            let t = plan.columns[0].ty;
            if kind == S::ArraySublink as i32 {
                let at = t.array().unwrap_or(Type::TEXT_ARRAY);
                return Ok((Expr::Subquery(Box::new(plan), SubqueryKind::Array), at));
            }
            return Ok((Expr::Subquery(Box::new(plan), SubqueryKind::Scalar), t));
        }
        if kind == S::AnySublink as i32 || kind == S::AllSublink as i32 {
            let (te, tt) = test.ok_or_else(|| PgError::syntax("missing test expression"))?;
            if plan.columns.len() != 1 {
                return Err(PgError::syntax("subquery has too many columns").at(loc(sl.location)));
            }
            let name = names_of(&sl.oper_name)
                .last()
                .cloned()
                .unwrap_or_else(|| "=".into());
            let ct = plan.columns[0].ty;
            let (op, lt, rt) = self.resolve_binop(&name, tt, ct, sl.location)?;
            let te = self.coerce(te, tt, lt, -1, CoercionContext::Implicit, sl.location)?;
            let mut plan = plan;
            if rt != ct {
                let e = self.coerce(
                    Expr::Column(0),
                    ct,
                    rt,
                    -1,
                    CoercionContext::Implicit,
                    sl.location,
                )?;
                plan = Plan {
                    columns: vec![Column {
                        name: plan.columns[0].name.clone(),
                        ty: rt,
                        typmod: -1,
                        origin: None,
                    }],
                    node: Node::Project {
                        input: Box::new(plan),
                        exprs: vec![e],
                    },
                };
            }
            return Ok((
                Expr::Subquery(
                    Box::new(plan),
                    SubqueryKind::Quantified {
                        test: Box::new(te),
                        op: op.f,
                        all: kind == S::AllSublink as i32,
                    },
                ),
                Type::BOOL,
            ));
        }
        Err(PgError::feature_not_supported(
            "this kind of subquery is not supported yet",
        ))
    }
}
