//! Evaluation of bound expressions ([`Expr`]) over a row.
//!
//! A plain recursive walk; anything that needs the session (now(), pg_notify(), settings)
//! goes through [`SessionCtx`], and a subquery runs its plan with this executor, as
//! PostgreSQL's executor evaluates its expressions and subplans.

use std::cmp::Ordering;

use crate::error::{code, PgError, PgResult};
use crate::sql::context::SessionCtx;
use crate::sql::exec::{row_bytes, Held, Row, MAX_RESULT_BYTES};
use crate::sql::plan::{Expr, Plan, SubqueryKind};
use crate::sql::types::ops::BinFn;
use crate::sql::types::{self, cast, io, Array, FormatCtx, Type, Value};

/// Evaluation state: parameters, enclosing rows for correlated subqueries, and the session.
pub struct EvalCx<'a> {
    pub params: &'a [Value],
    pub outer: Vec<Vec<Value>>,
    pub session: &'a mut dyn SessionCtx,
}

fn truthy(v: &Value) -> Option<bool> {
    match v {
        Value::Null => None,
        Value::Bool(b) => Some(*b),
        _ => None,
    }
}

impl Expr {
    /// An operand: a column or a constant without a call into [`Self::eval`], whose frame is
    /// large (every expression kind's locals); most operands are one of those two.
    #[inline(always)]
    fn eval_operand(&self, row: &[Value], cx: &mut EvalCx) -> PgResult<Value> {
        match self {
            Expr::Column(i) => Ok(row[*i].clone()),
            Expr::Const(v) => Ok(v.clone()),
            // A correlated subquery's filter compares each of its rows with the enclosing
            // row's columns (`h_c_id = c.c_id`): read them here too. A reference with no
            // enclosing row goes on to `eval`, which raises its error.
            Expr::Outer(level, i) => match cx
                .outer
                .len()
                .checked_sub(*level)
                .and_then(|l| cx.outer.get(l)?.get(*i))
            {
                Some(v) => Ok(v.clone()),
                None => self.eval(row, cx),
            },
            _ => self.eval(row, cx),
        }
    }

    /// A conjunct of an AND: a comparison of two operands (`h_c_id = c.c_id`, the most
    /// common kind in a scan's filter) is evaluated here, without a call into [`Self::eval`]
    /// and its large frame for each one of the rows a filter tests.
    #[inline(always)]
    fn eval_conjunct(&self, row: &[Value], cx: &mut EvalCx) -> PgResult<Value> {
        match self {
            Expr::Bin(f, a, b)
                if matches!(**a, Expr::Column(_) | Expr::Const(_) | Expr::Outer(..))
                    && matches!(**b, Expr::Column(_) | Expr::Const(_) | Expr::Outer(..)) =>
            {
                // The operands are compared where they are, not cloned.
                match (operand(a, row, &cx.outer), operand(b, row, &cx.outer)) {
                    (Some(x), Some(y)) if x.is_null() || y.is_null() => Ok(Value::Null),
                    (Some(x), Some(y)) => f(x, y, cx.session.fmt()),
                    // An outer reference without its row: eval raises the error.
                    _ => self.eval(row, cx),
                }
            }
            _ => self.eval(row, cx),
        }
    }

    pub fn eval(&self, row: &[Value], cx: &mut EvalCx) -> PgResult<Value> {
        crate::stack::check()?;
        Ok(match self {
            Expr::Const(v) => v.clone(),
            Expr::Param(i) => cx.params.get(*i).cloned().unwrap_or(Value::Null),
            // A plan that reads past its input's row is a planner bug: an error for this
            // statement, not a panic that ends the session.
            Expr::Column(i) => match row.get(*i) {
                Some(v) => v.clone(),
                None => {
                    return Err(PgError::internal(format!(
                        "column {i} read from a row of {} columns",
                        row.len()
                    )))
                }
            },
            Expr::Outer(level, i) => {
                let n = cx.outer.len();
                match n.checked_sub(*level).and_then(|l| cx.outer.get(l)?.get(*i)) {
                    Some(v) => v.clone(),
                    // A WITH query that reads a column of the query around it, read from a
                    // sub-select evaluated once (as uncorrelated) without that query's row.
                    None => {
                        return Err(PgError::new(
                            code::FEATURE_NOT_SUPPORTED,
                            "a WITH query reading a column of an outer query cannot be read \
                             from an uncorrelated sub-select yet",
                        ))
                    }
                }
            }
            Expr::Bin(f, a, b) => {
                let a = a.eval_operand(row, cx)?;
                if a.is_null() {
                    return Ok(Value::Null);
                }
                let b = b.eval_operand(row, cx)?;
                if b.is_null() {
                    return Ok(Value::Null);
                }
                f(&a, &b, cx.session.fmt())?
            }
            Expr::Un(f, a) => {
                let a = a.eval(row, cx)?;
                if a.is_null() {
                    return Ok(Value::Null);
                }
                f(&a, cx.session.fmt())?
            }
            Expr::Func { f, args, strict } => {
                let mut vals = Vec::with_capacity(args.len());
                for a in args {
                    let v = a.eval(row, cx)?;
                    if *strict && v.is_null() {
                        return Ok(Value::Null);
                    }
                    vals.push(v);
                }
                f(&vals, cx.session.fmt())?
            }
            Expr::Session { f, args, arg_types } => {
                let mut vals = Vec::with_capacity(args.len());
                for a in args {
                    vals.push(a.eval(row, cx)?);
                }
                crate::sql::func::system::call(*f, &vals, arg_types, cx.session)?
            }
            Expr::Cast {
                explicit,
                expr,
                from,
                to,
                typmod,
            } => {
                let v = expr.eval(row, cx)?;
                if v.is_null() {
                    return Ok(Value::Null);
                }
                if *explicit {
                    cast::cast_explicit(v, *from, *to, *typmod, cx.session.fmt())?
                } else {
                    cast::cast(v, *from, *to, *typmod, cx.session.fmt())?
                }
            }
            Expr::And(items) => {
                let mut saw_null = false;
                for e in items {
                    match truthy(&e.eval_conjunct(row, cx)?) {
                        Some(false) => return Ok(Value::Bool(false)),
                        None => saw_null = true,
                        Some(true) => {}
                    }
                }
                if saw_null {
                    Value::Null
                } else {
                    Value::Bool(true)
                }
            }
            Expr::Or(items) => {
                let mut saw_null = false;
                for e in items {
                    match truthy(&e.eval(row, cx)?) {
                        Some(true) => return Ok(Value::Bool(true)),
                        None => saw_null = true,
                        Some(false) => {}
                    }
                }
                if saw_null {
                    Value::Null
                } else {
                    Value::Bool(false)
                }
            }
            Expr::Not(e) => match truthy(&e.eval(row, cx)?) {
                Some(b) => Value::Bool(!b),
                None => Value::Null,
            },
            Expr::IsNull(e, negated) => {
                let v = e.eval(row, cx)?;
                let null = match &v {
                    Value::Null => true,
                    // A row IS NULL when all fields are null; IS NOT NULL when none are.
                    Value::Record(fields) => {
                        if *negated {
                            return Ok(Value::Bool(fields.iter().all(|f| !f.is_null())));
                        }
                        fields.iter().all(|f| f.is_null())
                    }
                    _ => false,
                };
                Value::Bool(null != *negated)
            }
            Expr::BoolTest(e, want, negated) => {
                let v = truthy(&e.eval(row, cx)?);
                Value::Bool((v == *want) != *negated)
            }
            Expr::Distinct(eq, a, b, negated) => {
                let a = a.eval(row, cx)?;
                let b = b.eval(row, cx)?;
                let same = match (a.is_null(), b.is_null()) {
                    (true, true) => true,
                    (true, false) | (false, true) => false,
                    _ => eq(&a, &b, cx.session.fmt())? == Value::Bool(true),
                };
                // IS DISTINCT FROM is "not same"; negated form is IS NOT DISTINCT FROM.
                Value::Bool(same == *negated)
            }
            Expr::Case { whens, default } => {
                for (cond, result) in whens {
                    if truthy(&cond.eval(row, cx)?) == Some(true) {
                        return result.eval(row, cx);
                    }
                }
                match default {
                    Some(d) => d.eval(row, cx)?,
                    None => Value::Null,
                }
            }
            Expr::Coalesce(items) => {
                for e in items {
                    let v = e.eval(row, cx)?;
                    if !v.is_null() {
                        return Ok(v);
                    }
                }
                Value::Null
            }
            Expr::NullIf(eq, a, b) => {
                let a = a.eval(row, cx)?;
                let b = b.eval(row, cx)?;
                if !a.is_null()
                    && !b.is_null()
                    && eq(&a, &b, cx.session.fmt())? == Value::Bool(true)
                {
                    Value::Null
                } else {
                    a
                }
            }
            Expr::MinMax(items, greatest) => {
                let mut best = Value::Null;
                for e in items {
                    let v = e.eval(row, cx)?;
                    if v.is_null() {
                        continue;
                    }
                    if best.is_null() {
                        best = v;
                        continue;
                    }
                    let ord = types::compare(&v, &best);
                    if (*greatest && ord == Ordering::Greater)
                        || (!*greatest && ord == Ordering::Less)
                    {
                        best = v;
                    }
                }
                best
            }
            Expr::InList {
                expr,
                list,
                eq,
                negated,
            } => {
                let v = expr.eval(row, cx)?;
                if v.is_null() {
                    return Ok(Value::Null);
                }
                let mut saw_null = false;
                for e in list {
                    let item = e.eval(row, cx)?;
                    if item.is_null() {
                        saw_null = true;
                        continue;
                    }
                    match eq(&v, &item, cx.session.fmt())? {
                        Value::Bool(true) => return Ok(Value::Bool(!*negated)),
                        Value::Null => saw_null = true,
                        _ => {}
                    }
                }
                if saw_null {
                    Value::Null
                } else {
                    Value::Bool(*negated)
                }
            }
            Expr::ArrayCmp {
                left,
                right,
                op,
                all,
            } => {
                let l = left.eval(row, cx)?;
                let r = right.eval(row, cx)?;
                let Value::Array(arr) = r else {
                    return Ok(Value::Null);
                };
                let items: Vec<Value> = arr.items;
                quantified(&l, items.into_iter(), *op, *all, cx.session.fmt())?
            }
            Expr::Array(items, elem) => {
                let mut vals = Vec::with_capacity(items.len());
                let mut nested: Option<Vec<(i32, i32)>> = None;
                for e in items {
                    let v = e.eval(row, cx)?;
                    if let Value::Array(inner) = &v {
                        // ARRAY[ARRAY[..], ARRAY[..]] builds a multi-dimensional array.
                        nested = Some(inner.dims.clone());
                    }
                    vals.push(v);
                }
                if let Some(inner_dims) = nested {
                    let mut flat = Vec::new();
                    for v in vals {
                        match v {
                            Value::Array(a) => {
                                if a.dims != inner_dims {
                                    return Err(PgError::new(
                                        code::ARRAY_SUBSCRIPT_ERROR,
                                        "multidimensional arrays must have array expressions with matching dimensions",
                                    ));
                                }
                                flat.extend(a.items);
                            }
                            _ => {
                                return Err(PgError::new(
                                    code::ARRAY_SUBSCRIPT_ERROR,
                                    "multidimensional arrays must have array expressions with matching dimensions",
                                ))
                            }
                        }
                    }
                    if inner_dims.len() >= crate::sql::types::io::MAX_DIMS {
                        return Err(PgError::new(
                            code::PROGRAM_LIMIT_EXCEEDED,
                            format!(
                                "number of array dimensions ({}) exceeds the maximum allowed ({})",
                                inner_dims.len() + 1,
                                crate::sql::types::io::MAX_DIMS
                            ),
                        ));
                    }
                    let mut dims = vec![(items.len() as i32, 1)];
                    dims.extend(inner_dims);
                    Value::Array(Box::new(Array {
                        elem: *elem,
                        dims,
                        items: flat,
                    }))
                } else {
                    Value::Array(Box::new(Array::one_dim(*elem, vals)))
                }
            }
            Expr::Row(items) => {
                let mut vals = Vec::with_capacity(items.len());
                for e in items {
                    vals.push(e.eval(row, cx)?);
                }
                Value::Record(vals)
            }
            Expr::Subquery(plan, kind) => {
                cx.outer.push(row.to_vec());
                let result = eval_subquery(plan, kind, row, cx);
                cx.outer.pop();
                result?
            }
            Expr::UserCall(call) => {
                if call.returns_set {
                    return Err(PgError::new(
                        code::FEATURE_NOT_SUPPORTED,
                        "set-valued function called in context that cannot accept a set",
                    ));
                }
                let mut args = Vec::with_capacity(call.args.len());
                for a in &call.args {
                    args.push(a.eval(row, cx)?);
                }
                if call.strict && args.iter().any(Value::is_null) {
                    Value::Null
                } else {
                    super::user_func::call(call, &args, cx)?
                }
            }
            Expr::Domain(e, d) => {
                let v = e.eval(row, cx)?;
                check_domain(d, &v, cx)?;
                v
            }
            Expr::System(e, s) => system_column(&e.eval(row, cx)?, s),
            Expr::Subscript(s) => super::subscript::eval(s, row, cx)?,
        })
    }
}

/// Checks `v` against a domain's constraints (each element of an array of a domain), with
/// PostgreSQL's errors: 23502 for NULL in a NOT NULL domain, 23514 for a CHECK that is false.
pub fn check_domain(
    d: &crate::sql::plan::DomainCoercion,
    v: &Value,
    cx: &mut EvalCx,
) -> PgResult<()> {
    if d.elements {
        if let Value::Array(a) = v {
            for item in &a.items {
                check_domain_value(d, item, cx)?;
            }
        }
        return Ok(());
    }
    check_domain_value(d, v, cx)
}

fn check_domain_value(
    d: &crate::sql::plan::DomainCoercion,
    v: &Value,
    cx: &mut EvalCx,
) -> PgResult<()> {
    if d.not_null && v.is_null() {
        return Err(PgError::new(
            code::NOT_NULL_VIOLATION,
            format!("domain {} does not allow null values", d.name),
        )
        .with_datatype(&d.schema, &d.typname));
    }
    if d.checks.is_empty() {
        return Ok(());
    }
    let row = [v.clone()];
    for (name, pred) in &d.checks {
        if let Value::Bool(false) = pred.eval(&row, cx)? {
            return Err(PgError::new(
                code::CHECK_VIOLATION,
                format!(
                    "value for domain {} violates check constraint \"{name}\"",
                    d.name
                ),
            )
            .with_datatype(&d.schema, &d.typname)
            .with_constraint(name));
        }
    }
    Ok(())
}

fn quantified(
    left: &Value,
    items: impl Iterator<Item = Value>,
    op: BinFn,
    all: bool,
    fmt: &FormatCtx,
) -> PgResult<Value> {
    if left.is_null() {
        // NULL op ANY(empty) is false; NULL op ALL(empty) is true.
        let mut items = items.peekable();
        if items.peek().is_none() {
            return Ok(Value::Bool(all));
        }
        return Ok(Value::Null);
    }
    let mut saw_null = false;
    for item in items {
        if item.is_null() {
            saw_null = true;
            continue;
        }
        match op(left, &item, fmt)? {
            Value::Bool(true) if !all => return Ok(Value::Bool(true)),
            Value::Bool(false) if all => return Ok(Value::Bool(false)),
            Value::Null => saw_null = true,
            _ => {}
        }
    }
    if saw_null {
        Ok(Value::Null)
    } else {
        Ok(Value::Bool(all))
    }
}

/// An operand read in place: a column of the row, a constant, or an enclosing row's column
/// (None when that row is missing).
#[inline(always)]
fn operand<'v>(e: &'v Expr, row: &'v [Value], outer: &'v [Vec<Value>]) -> Option<&'v Value> {
    match e {
        Expr::Column(i) => row.get(*i),
        Expr::Const(v) => Some(v),
        Expr::Outer(level, i) => outer.get(outer.len().checked_sub(*level)?)?.get(*i),
        _ => None,
    }
}

/// Runs a subquery as far as its kind needs: EXISTS stops at the first row, a scalar subquery
/// at the second (an error), ANY/ALL at the row that decides it; an array subquery reads all.
fn eval_subquery(
    plan: &Plan,
    kind: &SubqueryKind,
    row: &[Value],
    cx: &mut EvalCx,
) -> PgResult<Value> {
    let mut exec =
        super::explain::open_counted(plan).unwrap_or_else(|| crate::sql::exec::open(plan));
    let first = |r: Row| r.into_iter().next().unwrap_or(Value::Null);
    Ok(match kind {
        SubqueryKind::Scalar => match exec.next_row(cx)? {
            None => Value::Null,
            Some(r) => {
                if exec.next_row(cx)?.is_some() {
                    return Err(PgError::new(
                        code::CARDINALITY_VIOLATION,
                        "more than one row returned by a subquery used as an expression",
                    ));
                }
                first(r)
            }
        },
        SubqueryKind::Exists => Value::Bool(exec.next_row(cx)?.is_some()),
        SubqueryKind::Quantified { test, op, all } => {
            let mut next = exec.next_row(cx)?;
            // The left operand is evaluated in the enclosing query's scope.
            cx.outer.pop();
            let left = test.eval(row, cx);
            cx.outer.push(row.to_vec());
            let left = left?;
            if left.is_null() {
                // NULL op ANY(empty) is false; NULL op ALL(empty) is true.
                return Ok(if next.is_none() {
                    Value::Bool(*all)
                } else {
                    Value::Null
                });
            }
            let mut saw_null = false;
            while let Some(r) = next {
                let item = first(r);
                if item.is_null() {
                    saw_null = true;
                } else {
                    match op(&left, &item, cx.session.fmt())? {
                        Value::Bool(true) if !*all => return Ok(Value::Bool(true)),
                        Value::Bool(false) if *all => return Ok(Value::Bool(false)),
                        Value::Null => saw_null = true,
                        _ => {}
                    }
                }
                next = exec.next_row(cx)?;
            }
            if saw_null {
                Value::Null
            } else {
                Value::Bool(*all)
            }
        }
        SubqueryKind::Array => {
            let mut held = Held::default();
            let elem = plan.columns.first().map(|c| c.ty).unwrap_or(Type::TEXT);
            let mut items = Vec::new();
            while let Some(r) = exec.next_row(cx)? {
                held.add(row_bytes(&r), MAX_RESULT_BYTES, "ARRAY subquery")?;
                items.push(first(r));
            }
            Value::Array(Box::new(Array::one_dim(elem, items)))
        }
    })
}

/// Text form of a value for functions that print arbitrary arguments (concat, format).
pub fn text_of(v: &Value, ty: Type, fmt: &FormatCtx) -> String {
    io::to_text(v, ty, fmt)
}

/// A system column of the version in the slot `slot` holds (NULL where there is no row: the
/// NULL side of an outer join, or a slot no longer holding a version).
fn system_column(slot: &Value, s: &crate::sql::plan::SysColumn) -> Value {
    use crate::sql::plan::SysKind;
    let Value::Int8(id) = slot else {
        return Value::Null;
    };
    let id = *id as u64;
    if s.kind == SysKind::Ctid {
        return crate::sql::types::tid::of_slot(id).unwrap_or(Value::Null);
    }
    let Some(h) = s.rel.data.heap.header(id) else {
        return Value::Null;
    };
    // PostgreSQL's xid is 32 bits: the low 32 of threadgres's 64-bit ids.
    Value::Oid(match s.kind {
        SysKind::Xmin => h.xmin as u32,
        SysKind::Xmax => h.xmax as u32,
        SysKind::Cmin => h.cmin,
        SysKind::Cmax | SysKind::Ctid => h.cmax,
    })
}
