//! EXPLAIN's expression printer: column names, constants, operators and function calls,
//! index and TID conditions and sort keys as PostgreSQL's ruleutils prints them in plans.

use super::{is_var, Cx};
use crate::sql::plan::{Expr, Node, Plan, SortKey};
use crate::sql::quote::quote_ident;
use crate::sql::types::{cast, io, ops, FormatCtx, Type, Value};

/// The name of output column `i` of `p`.
pub(super) fn colname(p: &Plan, i: usize, cx: &Cx) -> String {
    if let Some((side, i)) = p.join_column(i) {
        return colname(side, i, cx);
    }
    match &p.node {
        Node::SeqScan { rel, .. }
        | Node::IndexScan { rel, .. }
        | Node::IndexRange { rel, .. }
        | Node::TidScan { rel, .. }
        | Node::BitmapHeapScan { rel, .. } => {
            let name = rel
                .columns
                .get(i)
                .map_or_else(|| "ctid".to_string(), |c| quote_ident(&c.name));
            if cx.qualify {
                format!("{}.{name}", quote_ident(rel.ref_name()))
            } else {
                name
            }
        }
        Node::Project { input, exprs } if !matches!(input.node, Node::Result) => match exprs.get(i)
        {
            Some(e) => expr(e, &cx.with(input)),
            None => "?".into(),
        },
        Node::Filter { input, .. }
        | Node::Sort { input, .. }
        | Node::Limit { input, .. }
        | Node::LockRows { input, .. }
        | Node::Distinct { input, .. } => colname(input, i, cx),
        Node::Aggregate { input, group, .. } if i < group.len() => expr(&group[i], &cx.with(input)),
        Node::Aggregate {
            input, group, aggs, ..
        } => match aggs.get(i - group.len()) {
            Some(a) => {
                use crate::sql::plan::AggFunc as F;
                let name = match a.func {
                    F::CountStar => return "count(*)".into(),
                    // PostgreSQL shows the column itself.
                    F::Dependent => return list(&a.args, &cx.with(input)),
                    F::Count => "count",
                    F::Sum => "sum",
                    F::Avg => "avg",
                    F::Min => "min",
                    F::Max => "max",
                    F::BoolAnd => "bool_and",
                    F::BoolOr => "bool_or",
                    F::ArrayAgg => "array_agg",
                    F::StringAgg => "string_agg",
                    f => f.extra_name(),
                };
                format!(
                    "{name}({}{})",
                    if a.distinct { "DISTINCT " } else { "" },
                    list(&a.args, &cx.with(input))
                )
            }
            None => "?".into(),
        },
        Node::Values(_) => {
            if cx.qualify {
                format!("\"*VALUES*\".column{}", i + 1)
            } else {
                format!("column{}", i + 1)
            }
        }
        _ => p
            .columns
            .get(i)
            .map_or_else(|| "?".into(), |c| quote_ident(&c.name)),
    }
}

pub(super) fn value_type(v: &Value) -> Type {
    match v {
        Value::Bool(_) => Type::BOOL,
        Value::Int2(_) => Type::INT2,
        Value::Int4(_) => Type::INT4,
        Value::Int8(_) => Type::INT8,
        Value::Float4(_) => Type::FLOAT4,
        Value::Float8(_) => Type::FLOAT8,
        Value::Numeric(_) => Type::NUMERIC,
        Value::Bytea(_) => Type::BYTEA,
        Value::Date(_) => Type::DATE,
        Value::Time(_) => Type::TIME,
        Value::TimeTz(..) => Type::TIMETZ,
        Value::Timestamp(_) => Type::TIMESTAMP,
        Value::TimestampTz(_) => Type::TIMESTAMPTZ,
        Value::Interval(_) => Type::INTERVAL,
        Value::Oid(_) => Type::OID,
        Value::Uuid(_) => Type::UUID,
        Value::Inet(_) => Type::INET,
        Value::Array(a) => a.elem.array().unwrap_or(Type::TEXT),
        // A range does not carry its type: the built-in range type of its bounds' type.
        Value::Range(r) => {
            let bound = if r.has_lower() { &r.lower } else { &r.upper };
            let sub = value_type(bound);
            crate::sql::types::range::BUILTIN
                .iter()
                .find(|(_, s, _)| *s == sub)
                .map_or(Type::TEXT, |(t, _, _)| *t)
        }
        // The same for a multirange, by its first range (the empty one: int4multirange).
        Value::Multirange(m) => match m.ranges.first() {
            Some(r) => value_type(&Value::Range(Box::new(r.clone())))
                .range_multirange()
                .unwrap_or(Type::TEXT),
            None => Type::INT4MULTIRANGE,
        },
        _ => Type::TEXT,
    }
}

/// A constant as PostgreSQL's deparser writes it: integers and numerics bare (negative ones
/// quoted and cast), everything else quoted and cast to its type.
pub(super) fn constant(v: &Value, fmt: &FormatCtx) -> String {
    if v.is_null() {
        return "NULL".into();
    }
    let ty = value_type(v);
    let text = io::to_text(v, ty, fmt);
    match v {
        Value::Int4(n) if *n >= 0 => text,
        Value::Numeric(_) if !text.starts_with('-') && text != "NaN" => text,
        Value::Bool(b) => b.to_string(),
        // A citext value is the extension's type (its OID, one per database, is not needed to
        // name it).
        Value::CiText(s) => format!("'{}'::citext", s.replace('\'', "''")),
        _ => format!(
            "'{}'::{}",
            text.replace('\'', "''"),
            cast::format_type_with_typmod(ty, -1)
        ),
    }
}

/// An operand of binary operator `f` (its `left` one or its right one): a text constant
/// where the operator takes jsonb there is jsonb (stored as text, it would print as text), and
/// a bytes constant where it takes a geometric type is of that type (`types::geo`).
pub(super) fn operand(e: &Expr, f: &ops::BinFn, left: bool, cx: &Cx) -> String {
    if let Expr::Const(v @ (Value::Text(_) | Value::Bytea(_))) = e {
        // Only a function of the type's own: the generic comparisons serve every type.
        let mut sides = ops::binary_operators(op_name(f))
            .iter()
            .filter(|op| std::ptr::eq(op.f as *const (), *f as *const ()))
            .map(|op| if left { op.left } else { op.right });
        let first = sides.next();
        let own = match (v, first) {
            (Value::Text(_), Some(Type::JSONB)) => first,
            (Value::Bytea(_), Some(t)) if t.category() == 'G' => first,
            _ => None,
        };
        if let Some(t) = own.filter(|&t| sides.all(|s| s == t)) {
            let text = io::to_text(v, t, cx.fmt);
            return format!("'{}'::{}", text.replace('\'', "''"), t.name());
        }
    }
    expr(e, cx)
}

/// The name of binary operator `f`.
pub(super) fn op_name(f: &ops::BinFn) -> &'static str {
    if std::ptr::eq(*f as *const (), crate::sql::plan::ops_eq_any as *const ()) {
        return "=";
    }
    const NAMES: &[&str] = &[
        "=", "<>", "<", "<=", ">", ">=", "+", "-", "*", "/", "%", "^", "||", "~~", "!~~", "~~*",
        "!~~*", "~", "!~", "~*", "!~*", "&", "|", "#", "<<", ">>", "@>", "<@", "&&", "->", "->>",
        "#>", "#>>", "?", "?|", "?&", "~=", "&<", "&>", "<<|", "|>>", "&<|", "|&>", "<^", ">^",
        "?-", "?#", "<->",
    ];
    NAMES
        .iter()
        .find(|n| {
            ops::binary_operators(n)
                .iter()
                .any(|op| std::ptr::eq(op.f as *const (), *f as *const ()))
        })
        .copied()
        .or_else(|| ops::range_op_name(*f))
        .or_else(|| crate::sql::func::extension::pg_trgm::operator_name(*f))
        .or_else(|| crate::sql::func::extension::hstore::operator_name(*f))
        .or_else(|| crate::sql::func::extension::citext::operator_name(*f))
        .unwrap_or("?")
}

pub(super) fn list(items: &[Expr], cx: &Cx) -> String {
    items
        .iter()
        .map(|e| expr(e, cx))
        .collect::<Vec<_>>()
        .join(", ")
}

/// An array of constants as one constant (`'{1,2,3}'::integer[]`), or `ARRAY[...]`.
pub(super) fn array_of(items: &[Expr], cx: &Cx) -> String {
    let vals: Option<Vec<&Value>> = items
        .iter()
        .map(|e| match e {
            Expr::Const(v) => Some(v),
            _ => None,
        })
        .collect();
    match vals {
        Some(vals) if !vals.is_empty() => {
            let ty = vals
                .iter()
                .find(|v| !v.is_null())
                .map_or(Type::TEXT, |v| value_type(v));
            let arr = Value::Array(Box::new(crate::sql::types::Array::one_dim(
                ty,
                vals.into_iter().cloned().collect(),
            )));
            constant(&arr, cx.fmt)
        }
        _ => format!("ARRAY[{}]", list(items, cx)),
    }
}

/// An expression as PostgreSQL's deparser (ruleutils) writes it in EXPLAIN.
pub(super) fn expr(e: &Expr, cx: &Cx) -> String {
    match e {
        Expr::Const(v) => constant(v, cx.fmt),
        Expr::Param(i) => format!("${}", i + 1),
        Expr::Column(i) => match cx.input {
            Some(p) => colname(p, *i, cx),
            None => "?".into(),
        },
        Expr::Outer(level, i) => match cx.outer.len().checked_sub(*level) {
            Some(k) => {
                let p = cx.outer[k];
                let ocx = Cx {
                    input: Some(p),
                    outer: cx.outer[..k].to_vec(),
                    qualify: cx.qualify_all,
                    ..cx.clone()
                };
                colname(p, *i, &ocx)
            }
            None => "?".into(),
        },
        // A comparison with ctid: its constant is a tid, which its value alone does not tell.
        Expr::Bin(..) if is_ctid_cond(e) => tid_cond(e, cx),
        Expr::Bin(f, a, b) => format!(
            "({} {} {})",
            operand(a, f, true, cx),
            op_name(f),
            operand(b, f, false, cx)
        ),
        Expr::Un(_, a) => format!("(- {})", expr(a, cx)),
        Expr::And(v) => format!(
            "({})",
            v.iter()
                .map(|x| expr(x, cx))
                .collect::<Vec<_>>()
                .join(" AND ")
        ),
        Expr::Or(v) => format!(
            "({})",
            v.iter()
                .map(|x| expr(x, cx))
                .collect::<Vec<_>>()
                .join(" OR ")
        ),
        Expr::Not(a) => format!("(NOT {})", expr(a, cx)),
        Expr::IsNull(a, neg) => format!(
            "({} IS {}NULL)",
            expr(a, cx),
            if *neg { "NOT " } else { "" }
        ),
        Expr::InList {
            expr: x,
            list: l,
            eq,
            negated,
        } => {
            let (op, q) = if *negated {
                ("<>", "ALL")
            } else {
                (op_name(eq), "ANY")
            };
            format!("({} {op} {q} ({}))", expr(x, cx), array_of(l, cx))
        }
        Expr::ArrayCmp {
            left,
            right,
            op,
            all,
        } => format!(
            "({} {} {} ({}))",
            expr(left, cx),
            op_name(op),
            if *all { "ALL" } else { "ANY" },
            expr(right, cx)
        ),
        Expr::Cast { expr: a, to, .. } => {
            format!(
                "({})::{}",
                expr(a, cx),
                cast::format_type_with_typmod(*to, -1)
            )
        }
        Expr::Row(v) => format!("ROW({})", list(v, cx)),
        Expr::Array(v, _) => array_of(v, cx),
        Expr::Coalesce(v) => format!("COALESCE({})", list(v, cx)),
        // PostgreSQL 15 names only the subplan, whatever its kind (ruleutils's T_SubPlan).
        Expr::Subquery(plan, _) => format!(
            "(SubPlan {})",
            cx.subplan_ids
                .get(&(&**plan as *const Plan as usize))
                .copied()
                .unwrap_or(0)
        ),
        Expr::UserCall(c) => format!("{}({})", c.name, list(&c.args, cx)),
        // The row id column prints as `ctid` (qualified where columns are): the other system
        // columns take its place.
        Expr::System(row, s) => {
            let id = expr(row, cx);
            match id.strip_suffix("ctid") {
                Some(q) => format!("{q}{}", s.kind.name()),
                None => s.kind.name().to_string(),
            }
        }
        Expr::Func { f, args, .. } => match crate::sql::func::name_of(*f) {
            Some(name) => format!("{name}({})", list(args, cx)),
            None => match range_call_name(*f, args) {
                Some((name, args)) => format!("{name}({})", list(args, cx)),
                None => "(...)".into(),
            },
        },
        _ => "(...)".into(),
    }
}

/// A range function's call as EXPLAIN shows it: its name and arguments (a constructor is
/// named as its type, whose OID is its last argument).
pub(super) fn range_call_name(
    f: crate::sql::func::ScalarFn,
    args: &[Expr],
) -> Option<(String, &[Expr])> {
    use crate::sql::func::{multirange, range};
    let ctors = [
        range::f_range_ctor as crate::sql::func::ScalarFn,
        multirange::f_multirange_ctor,
        multirange::f_multirange_ctor_array,
    ];
    if ctors.iter().any(|c| std::ptr::fn_addr_eq(f, *c)) {
        return match args.split_last() {
            Some((Expr::Const(Value::Oid(t)), rest)) => Some((Type(*t).name(), rest)),
            _ => None,
        };
    }
    range::name_of(f)
        .or_else(|| multirange::name_of(f))
        .map(|n| (n.to_string(), args))
}

/// Whether `e` compares ctid with something else (`tid_cond` shows it).
pub(super) fn is_ctid_cond(e: &Expr) -> bool {
    let ctid =
        |x: &Expr| matches!(x, Expr::System(_, s) if s.kind == crate::sql::plan::SysKind::Ctid);
    matches!(e, Expr::Bin(_, l, r) if ctid(l) != ctid(r))
}

/// A Tid Scan's condition: its tid constants are shown as tids (`'(0,1)'::tid`), which
/// their values alone do not tell (a tid is held as an integer).
pub(super) fn tid_cond(c: &Expr, cx: &Cx) -> String {
    // A constant, seen through the cast that made it a tid (or tid[]).
    fn constant_of(e: &Expr) -> Option<&Value> {
        match e {
            Expr::Const(v) => Some(v),
            Expr::Cast { expr, .. } => constant_of(expr),
            _ => None,
        }
    }
    let tid_list = |items: &[Expr]| {
        let texts: Vec<String> = items
            .iter()
            .map(|i| match constant_of(i) {
                Some(Value::Null) => "NULL".to_string(),
                Some(v) => format!("\"{}\"", io::to_text(v, Type::TID, cx.fmt)),
                None => "?".to_string(),
            })
            .collect();
        format!("'{{{}}}'::tid[]", texts.join(","))
    };
    let tid = |v: &Expr| match (constant_of(v), v) {
        (Some(a @ Value::Array(_)), _) => format!(
            "'{}'::tid[]",
            io::to_text(a, Type::TID_ARRAY, cx.fmt).replace('\'', "''")
        ),
        (Some(v), _) => format!("'{}'::tid", io::to_text(v, Type::TID, cx.fmt)),
        // An array of constants, folded as PostgreSQL folds it.
        (None, Expr::Array(items, _)) if items.iter().all(|i| constant_of(i).is_some()) => {
            tid_list(items)
        }
        (None, other) => expr(other, cx),
    };
    match c {
        Expr::Bin(f, l, r) if matches!(**l, Expr::System(..)) => {
            format!("({} {} {})", expr(l, cx), op_name(f), tid(r))
        }
        Expr::Bin(f, l, r) => format!("({} {} {})", tid(l), op_name(f), expr(r, cx)),
        Expr::ArrayCmp {
            left, right, op, ..
        } => format!("({} {} ANY ({}))", expr(left, cx), op_name(op), tid(right)),
        Expr::InList { expr: x, list, .. } if list.iter().all(|i| constant_of(i).is_some()) => {
            format!("({} = ANY ({}))", expr(x, cx), tid_list(list))
        }
        Expr::InList { expr: x, list, .. } => format!(
            "({} = ANY (ARRAY[{}]))",
            expr(x, cx),
            list.iter().map(tid).collect::<Vec<_>>().join(", ")
        ),
        Expr::Or(v) => format!(
            "({})",
            v.iter()
                .map(|x| tid_cond(x, cx))
                .collect::<Vec<_>>()
                .join(" OR ")
        ),
        other => expr(other, cx),
    }
}

/// An index condition, the indexed column first (`5 < a` is shown as `(a > 5)`).
pub(super) fn index_cond(c: &Expr, cx: &Cx) -> String {
    if let Expr::Bin(f, l, r) = c {
        if let (false, Expr::Column(_)) = (matches!(**l, Expr::Column(_)), &**r) {
            let op = match op_name(f) {
                "<" => ">",
                "<=" => ">=",
                ">" => "<",
                ">=" => "<=",
                other => other,
            };
            return format!("({} {op} {})", expr(r, cx), expr(l, cx));
        }
    }
    expr(c, cx)
}

/// Conditions as one qualifier line's text: PostgreSQL ANDs a list of quals.
pub(super) fn quals(conds: &[String]) -> String {
    match conds {
        [one] => one.clone(),
        many => format!("({})", many.join(" AND ")),
    }
}

pub(super) fn sort_keys(keys: &[SortKey], input: &Plan, cx: &Cx) -> String {
    keys.iter()
        .map(|k| {
            let mut s = expr(&k.expr, cx);
            // PostgreSQL's sort key is a column of the node below; one that this computes (not
            // a table's column passed up) is printed in parentheses.
            let plain = matches!(k.expr, Expr::Column(c) if is_var(input, c));
            if !plain {
                s = format!("({s})");
            }
            if k.desc {
                s.push_str(" DESC");
                if !k.nulls_first {
                    s.push_str(" NULLS LAST");
                }
            } else if k.nulls_first {
                s.push_str(" NULLS FIRST");
            }
            s
        })
        .collect::<Vec<_>>()
        .join(", ")
}
