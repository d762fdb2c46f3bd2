//! Printing stored expressions, constraints and indexes the way PostgreSQL 15's ruleutils.c
//! prints them (pg_get_expr, pg_get_constraintdef, pg_get_indexdef in their "pretty" form, as
//! psql's `\d` asks for them).
//!
//! threadgres keeps a column default or a CHECK expression as the SQL text it was written
//! with; PostgreSQL keeps the analyzed tree and prints that. The difference shows in what
//! analysis adds: a string literal gets the type it was resolved to (`'x'::text`), an operand
//! converted implicitly shows the conversion (`price > 0::numeric`, `e::text ~~ 'x%'::text`),
//! `IN (...)` becomes `= ANY (ARRAY[...])`, `BETWEEN` two comparisons. So the text is parsed
//! again, typed with a small model of PostgreSQL's operator and function resolution (the
//! built-in operators on the built-in types; defaults and checks rarely go beyond them), and
//! printed with ruleutils' rules for casts, constants and parentheses. An expression outside
//! the model is printed as it was written.

use pg_query::protobuf::{self, node::Node as N};

use crate::sql::func;
use crate::sql::quote::simple_quote_literal;

pub mod function;
pub mod partition;
pub mod rule;
pub mod trigger;
pub mod viewdef;
use crate::sql::types::{cast::format_type_with_typmod, Type};

/// A column of the table an expression belongs to: (name, type, typmod).
pub type ColInfo<'a> = (&'a str, Type, i32);

/// An expression after analysis: what ruleutils would see.
#[derive(Debug, Clone)]
enum T {
    /// A literal with the type it was resolved to (UNKNOWN while unresolved).
    Const {
        lit: Lit,
        ty: Type,
    },
    Var {
        /// The relation's name in the query, where the column is printed qualified (views).
        qual: Option<String>,
        name: String,
        ty: Type,
    },
    /// A binary operator (`l op r`).
    Op {
        op: String,
        l: Box<T>,
        r: Box<T>,
        ty: Type,
    },
    Bool {
        op: BoolOp,
        args: Vec<T>,
    },
    NullTest {
        arg: Box<T>,
        not: bool,
    },
    Func {
        name: String,
        args: Vec<T>,
        ty: Type,
    },
    /// A type conversion; `implicit` ones are shown only where ruleutils shows them.
    Cast {
        arg: Box<T>,
        ty: Type,
        typmod: i32,
        implicit: bool,
    },
    /// CURRENT_DATE and friends, printed as their keyword.
    Keyword {
        text: &'static str,
        ty: Type,
    },
    /// `l op ANY (ARRAY[...])` (IN) or `l op ALL (ARRAY[...])` (NOT IN).
    AnyArray {
        op: String,
        l: Box<T>,
        items: Vec<T>,
        all: bool,
    },
}

#[derive(Debug, Clone)]
enum Lit {
    Int(i64),
    /// A numeric literal as written (`1.5`).
    Num(String),
    Str(String),
    Bool(bool),
    Null,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum BoolOp {
    And,
    Or,
    Not,
}

impl T {
    fn ty(&self) -> Type {
        match self {
            T::Const { ty, .. }
            | T::Var { ty, .. }
            | T::Op { ty, .. }
            | T::Func { ty, .. }
            | T::Cast { ty, .. }
            | T::Keyword { ty, .. } => *ty,
            T::Bool { .. } | T::NullTest { .. } | T::AnyArray { .. } => Type::BOOL,
        }
    }
}

/// Why an expression could not be modelled; the caller prints the text as written.
struct Unsupported;

type R<X> = Result<X, Unsupported>;

fn names(nodes: &[protobuf::Node]) -> Vec<String> {
    nodes
        .iter()
        .filter_map(|n| match &n.node {
            Some(N::String(s)) => Some(s.sval.clone()),
            _ => None,
        })
        .collect()
}

struct Typer<'a> {
    cols: &'a [ColInfo<'a>],
    /// The relations of a view's query, by the name the query gives them: column references
    /// resolve among them and print qualified (`viewdef`); empty for defaults and checks.
    rels: &'a [(String, Vec<ColInfo<'a>>)],
}

/// Integer types rank by width, then numeric, then the floats (PostgreSQL's implicit casts go
/// up this order).
fn numeric_rank(t: Type) -> Option<u8> {
    Some(match t {
        Type::INT2 => 0,
        Type::INT4 => 1,
        Type::INT8 => 2,
        Type::NUMERIC => 3,
        Type::FLOAT4 => 4,
        Type::FLOAT8 => 5,
        _ => return None,
    })
}

fn is_int(t: Type) -> bool {
    matches!(t, Type::INT2 | Type::INT4 | Type::INT8)
}

/// Converts `t` to `to`: an unresolved literal takes the type, anything else gets an implicit
/// cast node.
/// A string literal resolved to a number or boolean type: PostgreSQL runs the type's input
/// function when it coerces the literal, so the stored constant is the value itself and is
/// printed as one (sysbench's `k INTEGER DEFAULT '0'` shows as `0`, `'-1'` as
/// `'-1'::integer`, `'1.50'` as numeric `1.50`). Other types keep the text: their output can
/// depend on session settings (DateStyle, TimeZone) that a stored expression does not see.
/// Text the input function rejects cannot have been stored; it is left as written.
fn resolved_literal(s: String, to: Type) -> Lit {
    use crate::sql::types::{io::from_text, FormatCtx, Value};
    let numeric_or_bool = [
        Type::INT2,
        Type::INT4,
        Type::INT8,
        Type::NUMERIC,
        Type::BOOL,
    ];
    if !numeric_or_bool.contains(&to) {
        return Lit::Str(s);
    }
    let ctx = FormatCtx::default();
    match from_text(&s, to, -1, &ctx) {
        Ok(Value::Int2(i)) => Lit::Int(i.into()),
        Ok(Value::Int4(i)) => Lit::Int(i.into()),
        Ok(Value::Int8(i)) => Lit::Int(i),
        Ok(Value::Bool(b)) => Lit::Bool(b),
        Ok(v @ Value::Numeric(_)) => {
            Lit::Num(crate::sql::types::io::to_text(&v, Type::NUMERIC, &ctx))
        }
        _ => Lit::Str(s),
    }
}

fn coerce(t: T, to: Type) -> T {
    if t.ty() == to {
        return t;
    }
    match t {
        T::Const {
            lit: Lit::Str(s),
            ty,
        } if ty == Type::UNKNOWN => T::Const {
            lit: resolved_literal(s, to),
            ty: to,
        },
        T::Const { lit, ty } if ty == Type::UNKNOWN => T::Const { lit, ty: to },
        other => T::Cast {
            arg: Box::new(other),
            ty: to,
            typmod: -1,
            implicit: true,
        },
    }
}

impl Typer<'_> {
    fn expr(&self, n: &N) -> R<T> {
        // Too deep to print: callers show the stored text instead.
        if crate::stack::exceeded() {
            return Err(Unsupported);
        }
        Ok(match n {
            N::AConst(c) => {
                use protobuf::a_const::Val;
                match &c.val {
                    _ if c.isnull => T::Const {
                        lit: Lit::Null,
                        ty: Type::UNKNOWN,
                    },
                    Some(Val::Ival(i)) => T::Const {
                        lit: Lit::Int(i.ival as i64),
                        ty: Type::INT4,
                    },
                    Some(Val::Fval(f)) => match f.fval.parse::<i64>() {
                        // Integers too wide for int4 are int8 (or numeric past int8).
                        Ok(i) => T::Const {
                            lit: Lit::Int(i),
                            ty: Type::INT8,
                        },
                        Err(_) => T::Const {
                            lit: Lit::Num(f.fval.clone()),
                            ty: Type::NUMERIC,
                        },
                    },
                    Some(Val::Sval(s)) => T::Const {
                        lit: Lit::Str(s.sval.clone()),
                        ty: Type::UNKNOWN,
                    },
                    Some(Val::Boolval(b)) => T::Const {
                        lit: Lit::Bool(b.boolval),
                        ty: Type::BOOL,
                    },
                    _ => return Err(Unsupported),
                }
            }
            N::ColumnRef(c) => {
                let ns = names(&c.fields);
                if !self.rels.is_empty() {
                    return self.qualified_var(&ns);
                }
                let [name] = ns.as_slice() else {
                    return Err(Unsupported);
                };
                let (_, ty, _) = self.cols.iter().find(|c| c.0 == name).ok_or(Unsupported)?;
                T::Var {
                    qual: None,
                    name: name.clone(),
                    ty: *ty,
                }
            }
            N::TypeCast(tc) => {
                let arg = self.expr(
                    tc.arg
                        .as_ref()
                        .and_then(|a| a.node.as_ref())
                        .ok_or(Unsupported)?,
                )?;
                let tn = tc.type_name.as_ref().ok_or(Unsupported)?;
                let mut params = Vec::new();
                let fmt = crate::sql::types::FormatCtx::default();
                let (ty, typmod) = crate::sql::plan::Planner::new(&mut params, &fmt)
                    .resolve_type_name(tn)
                    .map_err(|_| Unsupported)?;
                match arg {
                    // A literal cast is read in the type directly ('5'::bigint).
                    T::Const {
                        lit,
                        ty: Type::UNKNOWN,
                    } if typmod < 0 => T::Const { lit, ty },
                    arg => T::Cast {
                        arg: Box::new(arg),
                        ty,
                        typmod,
                        implicit: false,
                    },
                }
            }
            N::BoolExpr(b) => {
                let op = match b.boolop {
                    x if x == protobuf::BoolExprType::AndExpr as i32 => BoolOp::And,
                    x if x == protobuf::BoolExprType::OrExpr as i32 => BoolOp::Or,
                    _ => BoolOp::Not,
                };
                let mut args = Vec::new();
                for a in &b.args {
                    let t = self.expr(a.node.as_ref().ok_or(Unsupported)?)?;
                    args.push(coerce(t, Type::BOOL));
                }
                T::Bool { op, args }
            }
            N::NullTest(nt) => T::NullTest {
                arg: Box::new(
                    self.expr(
                        nt.arg
                            .as_ref()
                            .and_then(|a| a.node.as_ref())
                            .ok_or(Unsupported)?,
                    )?,
                ),
                not: nt.nulltesttype == protobuf::NullTestType::IsNotNull as i32,
            },
            N::SqlvalueFunction(f) => {
                use protobuf::SqlValueFunctionOp as O;
                let (text, ty) = match f.op {
                    x if x == O::SvfopCurrentDate as i32 => ("CURRENT_DATE", Type::DATE),
                    x if x == O::SvfopCurrentTimestamp as i32 => {
                        ("CURRENT_TIMESTAMP", Type::TIMESTAMPTZ)
                    }
                    x if x == O::SvfopLocaltimestamp as i32 => ("LOCALTIMESTAMP", Type::TIMESTAMP),
                    x if x == O::SvfopCurrentTime as i32 => ("CURRENT_TIME", Type::TIMETZ),
                    x if x == O::SvfopLocaltime as i32 => ("LOCALTIME", Type::TIME),
                    x if x == O::SvfopCurrentUser as i32 => ("CURRENT_USER", Type::NAME),
                    x if x == O::SvfopSessionUser as i32 => ("SESSION_USER", Type::NAME),
                    x if x == O::SvfopCurrentRole as i32 => ("CURRENT_ROLE", Type::NAME),
                    x if x == O::SvfopUser as i32 => ("USER", Type::NAME),
                    _ => return Err(Unsupported),
                };
                T::Keyword { text, ty }
            }
            N::FuncCall(fc) => self.func(fc)?,
            N::AExpr(a) => self.aexpr(a)?,
            _ => return Err(Unsupported),
        })
    }

    fn func(&self, fc: &protobuf::FuncCall) -> R<T> {
        if fc.agg_star && fc.args.is_empty() && !fc.agg_distinct && fc.over.is_none() {
            if let [name] = names(&fc.funcname).as_slice() {
                if name == "count" {
                    return Ok(T::Keyword {
                        text: "count(*)",
                        ty: Type::INT8,
                    });
                }
            }
        }
        if fc.agg_star || fc.agg_distinct || fc.over.is_some() || !fc.agg_order.is_empty() {
            return Err(Unsupported);
        }
        let ns = names(&fc.funcname);
        let name = ns.last().ok_or(Unsupported)?.clone();
        let mut args = Vec::new();
        for a in &fc.args {
            args.push(self.expr(a.node.as_ref().ok_or(Unsupported)?)?);
        }
        if let Some((sf, sig)) = func::session_fn::lookup(&name, args.len()) {
            let args = match sig {
                Some(want) => args
                    .into_iter()
                    .zip(want)
                    .map(|(a, w)| coerce(a, *w))
                    .collect(),
                None => args,
            };
            return Ok(T::Func {
                name,
                args,
                ty: func::session_fn::result_type(sf),
            });
        }
        // The signature whose arguments take these without conversion, else the first of
        // this arity that takes them with implicit conversions.
        let sigs: Vec<_> = func::lookup(&name)
            .iter()
            .filter(|s| s.args.len() == args.len() && !s.variadic)
            .collect();
        let fits = |s: &&&func::FuncSig, exact: bool| {
            s.args.iter().zip(&args).all(|(w, a)| {
                let t = a.ty();
                t == *w
                    || t == Type::UNKNOWN
                    || (!exact
                        && crate::sql::types::cast::cast_context(t, *w)
                            == Some(crate::sql::types::cast::CoercionContext::Implicit))
            })
        };
        let sig = sigs
            .iter()
            .find(|s| fits(s, true))
            .or_else(|| sigs.iter().find(|s| fits(s, false)))
            .ok_or(Unsupported)?;
        if sig
            .args
            .iter()
            .any(|t| matches!(*t, Type::ANY | Type::ANYELEMENT | Type::ANYARRAY))
        {
            return Err(Unsupported);
        }
        let args = args
            .into_iter()
            .zip(sig.args)
            .map(|(a, w)| coerce(a, *w))
            .collect();
        Ok(T::Func {
            name,
            args,
            ty: sig.ret,
        })
    }

    fn aexpr(&self, a: &protobuf::AExpr) -> R<T> {
        use protobuf::AExprKind as K;
        let side = |n: &Option<Box<protobuf::Node>>| -> R<T> {
            self.expr(
                n.as_ref()
                    .and_then(|x| x.node.as_ref())
                    .ok_or(Unsupported)?,
            )
        };
        let op = names(&a.name).last().cloned().unwrap_or_default();
        match a.kind {
            k if k == K::AexprOp as i32 => {
                if a.lexpr.is_none() {
                    return Err(Unsupported);
                }
                binop(&op, side(&a.lexpr)?, side(&a.rexpr)?)
            }
            k if k == K::AexprLike as i32 || k == K::AexprIlike as i32 => {
                let op = match (k == K::AexprLike as i32, op.as_str()) {
                    (true, "~~") => "~~",
                    (true, _) => "!~~",
                    (false, "~~*") => "~~*",
                    (false, _) => "!~~*",
                };
                binop(op, side(&a.lexpr)?, side(&a.rexpr)?)
            }
            k if k == K::AexprBetween as i32 || k == K::AexprNotBetween as i32 => {
                let l = side(&a.lexpr)?;
                let Some(N::List(bounds)) = a.rexpr.as_ref().and_then(|r| r.node.as_ref()) else {
                    return Err(Unsupported);
                };
                let [lo, hi] = bounds.items.as_slice() else {
                    return Err(Unsupported);
                };
                let lo = self.expr(lo.node.as_ref().ok_or(Unsupported)?)?;
                let hi = self.expr(hi.node.as_ref().ok_or(Unsupported)?)?;
                let not = k == K::AexprNotBetween as i32;
                let (o1, o2, op) = if not {
                    ("<", ">", BoolOp::Or)
                } else {
                    (">=", "<=", BoolOp::And)
                };
                Ok(T::Bool {
                    op,
                    args: vec![binop(o1, l.clone(), lo)?, binop(o2, l, hi)?],
                })
            }
            k if k == K::AexprIn as i32 => {
                let l = side(&a.lexpr)?;
                let Some(N::List(list)) = a.rexpr.as_ref().and_then(|r| r.node.as_ref()) else {
                    return Err(Unsupported);
                };
                let mut items = Vec::new();
                for it in &list.items {
                    items.push(self.expr(it.node.as_ref().ok_or(Unsupported)?)?);
                }
                // The common type of the left side and the items.
                let mut ty = l.ty();
                for it in &items {
                    ty = common(ty, it.ty()).ok_or(Unsupported)?;
                }
                if ty == Type::UNKNOWN {
                    ty = Type::TEXT;
                }
                let ty = operand_type(ty);
                let all = op == "<>";
                // One item is one comparison.
                if items.len() == 1 {
                    let item = items.pop().ok_or(Unsupported)?;
                    return binop(if all { "<>" } else { "=" }, l, item);
                }
                Ok(T::AnyArray {
                    op: if all { "<>".into() } else { "=".into() },
                    l: Box::new(coerce(l, ty)),
                    items: items.into_iter().map(|i| coerce(i, ty)).collect(),
                    all,
                })
            }
            _ => Err(Unsupported),
        }
    }
}

/// The type an operand is compared or combined in: varchar has text's operators.
fn operand_type(t: Type) -> Type {
    match t {
        Type::VARCHAR => Type::TEXT,
        t => t,
    }
}

/// The common type of two operands (UNKNOWN takes the other's).
fn common(a: Type, b: Type) -> Option<Type> {
    if a == b {
        return Some(a);
    }
    if a == Type::UNKNOWN {
        return Some(b);
    }
    if b == Type::UNKNOWN {
        return Some(a);
    }
    match (numeric_rank(a), numeric_rank(b)) {
        (Some(x), Some(y)) => Some(if x >= y { a } else { b }),
        _ => {
            let (a, b) = (operand_type(a), operand_type(b));
            (a == b).then_some(a)
        }
    }
}

/// Resolves a binary operator over the built-in types as PostgreSQL would, adding the implicit
/// casts its operands need.
fn binop(op: &str, l: T, r: T) -> R<T> {
    let op = if op == "!=" { "<>" } else { op };
    let (lt, rt) = (l.ty(), r.ty());
    let cmp = matches!(op, "=" | "<>" | "<" | ">" | "<=" | ">=");
    let arith = matches!(op, "+" | "-" | "*" | "/" | "%");
    let like = matches!(op, "~~" | "!~~" | "~~*" | "!~~*");
    if like || op == "||" {
        // text operators: both sides as text (bpchar keeps its own LIKE).
        let lt2 = if lt == Type::BPCHAR && like {
            Type::BPCHAR
        } else {
            Type::TEXT
        };
        if !(matches!(operand_type(lt), Type::TEXT | Type::UNKNOWN) || lt == Type::BPCHAR)
            || !matches!(operand_type(rt), Type::TEXT | Type::UNKNOWN)
        {
            return Err(Unsupported);
        }
        return Ok(T::Op {
            op: op.to_string(),
            l: Box::new(coerce(l, lt2)),
            r: Box::new(coerce(r, Type::TEXT)),
            ty: if like { Type::BOOL } else { Type::TEXT },
        });
    }
    if !(cmp || arith) {
        return Err(Unsupported);
    }
    // Integer types have cross-type operators (int4 < int8), and so do the floats; other
    // mixes convert the lower-ranked side.
    let (lw, rw, ty) = match (numeric_rank(lt), numeric_rank(rt)) {
        // ... except `%`, which has one operator per integer type.
        (Some(_), Some(_)) if is_int(lt) && is_int(rt) && (op != "%" || lt == rt) => (
            lt,
            rt,
            if numeric_rank(lt) >= numeric_rank(rt) {
                lt
            } else {
                rt
            },
        ),
        (Some(_), Some(_))
            if matches!(lt, Type::FLOAT4 | Type::FLOAT8)
                && matches!(rt, Type::FLOAT4 | Type::FLOAT8) =>
        {
            (lt, rt, Type::FLOAT8)
        }
        _ => {
            let c = common(lt, rt).ok_or(Unsupported)?;
            let c = if c == Type::UNKNOWN {
                Type::TEXT
            } else {
                operand_type(c)
            };
            (c, c, c)
        }
    };
    Ok(T::Op {
        op: op.to_string(),
        l: Box::new(coerce(l, lw)),
        r: Box::new(coerce(r, rw)),
        ty: if cmp { Type::BOOL } else { ty },
    })
}

/// get_const_expr: a constant of type `ty`.
fn const_text(lit: &Lit, ty: Type) -> String {
    let label = |body: String| format!("{body}::{}", format_type_with_typmod(ty, -1));
    match lit {
        Lit::Null => {
            if ty == Type::UNKNOWN {
                "NULL".into()
            } else {
                label("NULL".into())
            }
        }
        Lit::Bool(b) => if *b { "true" } else { "false" }.into(),
        Lit::Int(i) if ty == Type::INT4 => {
            if *i < 0 {
                label(format!("'{i}'"))
            } else {
                i.to_string()
            }
        }
        Lit::Int(_) | Lit::Num(_) if ty == Type::NUMERIC => {
            let s = match lit {
                Lit::Int(i) => i.to_string(),
                Lit::Num(n) => n.clone(),
                _ => unreachable!(),
            };
            // The constant is the numeric value, printed by numeric_out (`1e3` is 1000).
            let ctx = crate::sql::types::FormatCtx::default();
            let s = crate::sql::types::io::from_text(&s, Type::NUMERIC, -1, &ctx)
                .map(|v| crate::sql::types::io::to_text(&v, Type::NUMERIC, &ctx))
                .unwrap_or(s);
            // get_const_expr: only a value that reads back as a numeric literal by itself (a
            // digit first, and a point) goes bare; `5` would read as an integer and `-1.5` as
            // an operator, so they are quoted and labelled, as NaN is.
            if s.starts_with(|c: char| c.is_ascii_digit()) && s.contains(['e', 'E', '.']) {
                s
            } else {
                label(format!("'{s}'"))
            }
        }
        Lit::Int(i) => label(format!("'{i}'")),
        Lit::Num(n) => label(format!("'{n}'")),
        Lit::Str(s) if ty == Type::UNKNOWN => simple_quote_literal(s),
        Lit::Str(s) => label(simple_quote_literal(s)),
    }
}

/// ruleutils' isSimpleNode: whether `t` needs no parentheses as an argument of `parent`.
fn is_simple(t: &T, parent: &T) -> bool {
    match t {
        T::Const { .. } | T::Var { .. } | T::Func { .. } | T::Keyword { .. } => true,
        T::Cast { .. } => true,
        T::Op { op, .. } => {
            if let T::Op { op: pop, l, .. } = parent {
                let lo = |o: &str| matches!(o, "+" | "-");
                let hi = |o: &str| matches!(o, "*" | "/" | "%");
                if !(lo(op) || hi(op)) || !(lo(pop) || hi(pop)) {
                    return false;
                }
                if hi(op) && lo(pop) {
                    return true;
                }
                if lo(op) && hi(pop) {
                    return false;
                }
                // Same priority: only the left operand goes without parentheses.
                return std::ptr::eq(l.as_ref(), t);
            }
            matches!(parent, T::Bool { .. })
        }
        T::NullTest { .. } => matches!(parent, T::Bool { .. }),
        // A ScalarArrayOpExpr is not among isSimpleNode's cases: always parenthesized.
        T::AnyArray { .. } => false,
        T::Bool { op, .. } => match parent {
            T::Bool { op: pop, .. } => match op {
                BoolOp::Not | BoolOp::And => matches!(pop, BoolOp::And | BoolOp::Or),
                BoolOp::Or => *pop == BoolOp::Or,
            },
            _ => false,
        },
    }
}

/// get_rule_expr_paren: in pretty mode an argument is parenthesized where it is not simple;
/// otherwise never, since every node that could need them prints its own.
fn paren_in(t: &T, show_implicit: bool, parent: &T, pretty: bool) -> String {
    let s = print_in(t, show_implicit, pretty);
    if !pretty || is_simple(t, parent) {
        s
    } else {
        format!("({s})")
    }
}

/// get_rule_expr in pretty mode.
fn print(t: &T, show_implicit: bool) -> String {
    print_in(t, show_implicit, true)
}

/// get_rule_expr, in pretty mode (PRETTYFLAG_PAREN: parentheses only where needed) or not
/// (every operator, boolean, null test, ANY/ALL and shown cast wraps itself in parentheses,
/// as pg_get_constraintdef(oid) and pg_get_expr(expr, rel) print).
fn print_in(t: &T, show_implicit: bool, pretty: bool) -> String {
    let wrap = |s: String| if pretty { s } else { format!("({s})") };
    let arg = |a: &T, implicit: bool| paren_in(a, implicit, t, pretty);
    match t {
        T::Const { lit, ty } => const_text(lit, *ty),
        T::Var {
            qual: Some(q),
            name,
            ..
        } => format!(
            "{}.{}",
            crate::sql::quote::quote_ident(q),
            crate::sql::quote::quote_ident(name)
        ),
        T::Var { name, .. } => crate::sql::quote::quote_ident(name),
        T::Keyword { text, .. } => text.to_string(),
        T::Cast {
            arg: a,
            implicit: true,
            ..
            // A hidden conversion still parents its argument (isSimpleNode: an operator
            // under a cast is parenthesized, `(2 * 3 - 1)` as a numeric default).
        } if !show_implicit => arg(a, false),
        T::Cast {
            arg: a, ty, typmod, ..
        } => {
            format!(
                "{}::{}",
                wrap(arg(a, false)),
                format_type_with_typmod(*ty, *typmod)
            )
        }
        T::Op { op, l, r, .. } => wrap(format!("{} {op} {}", arg(l, true), arg(r, true))),
        T::Bool { op, args } => wrap(match op {
            BoolOp::Not => format!("NOT {}", arg(&args[0], false)),
            BoolOp::And | BoolOp::Or => args
                .iter()
                .map(|a| arg(a, false))
                .collect::<Vec<_>>()
                .join(if *op == BoolOp::And { " AND " } else { " OR " }),
        }),
        T::NullTest { arg: a, not } => wrap(format!(
            "{} IS {}NULL",
            arg(a, true),
            if *not { "NOT " } else { "" }
        )),
        T::Func { name, args, .. } => format!(
            "{}({})",
            name,
            args.iter()
                .map(|a| print_in(a, true, pretty))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        T::AnyArray { op, l, items, all } => wrap(format!(
            "{} {op} {} (ARRAY[{}])",
            arg(l, true),
            if *all { "ALL" } else { "ANY" },
            items
                .iter()
                .map(|a| print_in(a, true, pretty))
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
}

/// Whether a stored default is a bare NULL (PostgreSQL stores no default for it).
pub fn is_null_default(text: &str) -> bool {
    matches!(
        crate::sql::plan::modify::parse_expr(text),
        Ok(N::AConst(c)) if c.isnull
    )
}

/// pg_get_expr of a column default: analyzed for a column of type `ty`, the conversion to it
/// not shown.
pub fn default_expr(text: &str, ty: Type, cols: &[ColInfo<'_>]) -> String {
    default_expr_in(text, ty, cols, true)
}

/// pg_get_expr of a column default, in pretty form or not (`print_in`).
pub fn default_expr_in(text: &str, ty: Type, cols: &[ColInfo<'_>], pretty: bool) -> String {
    let typer = Typer { cols, rels: &[] };
    crate::sql::plan::modify::parse_expr(text)
        .ok()
        .and_then(|n| typer.expr(&n).ok())
        .map(|t| print_in(&coerce(t, ty), false, pretty))
        .unwrap_or_else(|| text.to_string())
}

/// The expression of a CHECK constraint, analyzed over the table's columns (pretty form).
pub fn check_expr(text: &str, cols: &[ColInfo<'_>]) -> String {
    check_expr_in(text, cols, true)
}

/// The expression of a CHECK constraint, in pretty form or not (`print_in`).
pub fn check_expr_in(text: &str, cols: &[ColInfo<'_>], pretty: bool) -> String {
    let typer = Typer { cols, rels: &[] };
    crate::sql::plan::modify::parse_expr(text)
        .ok()
        .and_then(|n| typer.expr(&n).ok())
        .map(|t| print_in(&coerce(t, Type::BOOL), false, pretty))
        .unwrap_or_else(|| text.to_string())
}

/// Whether an index expression prints as a function call (ruleutils' looks_like_function: no
/// parentheses of its own around it in pg_get_indexdef).
pub fn looks_like_function(text: &str) -> bool {
    matches!(
        crate::sql::plan::modify::parse_expr(text),
        Ok(N::FuncCall(_) | N::CoalesceExpr(_) | N::MinMaxExpr(_) | N::SqlvalueFunction(_))
    )
}

/// An index's expression column as pg_get_indexdef prints it: the expression, in parentheses
/// unless it prints as a function call (ruleutils' looks_like_function). An expression outside
/// the model is printed as written, in parentheses.
pub fn index_expr_in(text: &str, cols: &[ColInfo<'_>], pretty: bool) -> String {
    let typer = Typer { cols, rels: &[] };
    let printed = crate::sql::plan::modify::parse_expr(text)
        .ok()
        .and_then(|n| typer.expr(&n).ok())
        .map(|t| print_in(&t, false, pretty))
        .unwrap_or_else(|| text.to_string());
    if looks_like_function(text) {
        printed
    } else {
        format!("({printed})")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const COLS: &[ColInfo<'static>] = &[
        ("a", Type::INT4, -1),
        ("b", Type::NUMERIC, -1),
        ("d", Type::TEXT, -1),
        ("e", Type::VARCHAR, 14),
        ("f", Type::INT8, -1),
        ("h", Type::BOOL, -1),
        ("k", Type::FLOAT8, -1),
        ("o", Type::INT2, -1),
    ];

    #[test]
    fn defaults_as_postgres_prints_them() {
        let d = |s: &str, t: Type| default_expr(s, t, COLS);
        assert_eq!(d("0", Type::INT4), "0");
        assert_eq!(d("0", Type::NUMERIC), "0");
        assert_eq!(d("1.5", Type::NUMERIC), "1.5");
        assert_eq!(d("'x'", Type::TEXT), "'x'::text");
        assert_eq!(d("'y'", Type::VARCHAR), "'y'::character varying");
        assert_eq!(d("'ab'", Type::BPCHAR), "'ab'::bpchar");
        assert_eq!(d("-5", Type::INT4), "'-5'::integer");
        assert_eq!(d("-1.5", Type::NUMERIC), "'-1.5'::numeric");
        assert_eq!(d("true", Type::BOOL), "true");
        assert_eq!(d("now()", Type::TIMESTAMPTZ), "now()");
        assert_eq!(d("CURRENT_DATE", Type::DATE), "CURRENT_DATE");
        assert_eq!(d("1 + 2", Type::INT4), "1 + 2");
        assert_eq!(d("(2 * 3)", Type::INT4), "2 * 3");
        assert_eq!(d("'a' || 'b'", Type::TEXT), "'a'::text || 'b'::text");
        assert_eq!(d("upper('x')", Type::TEXT), "upper('x'::text)");
        // A string literal coerced to a number or boolean is that value (sysbench's
        // `DEFAULT '0'`).
        assert_eq!(d("'0'", Type::INT4), "0");
        assert_eq!(d("' 7 '", Type::INT4), "7");
        assert_eq!(d("'-1'", Type::INT4), "'-1'::integer");
        assert_eq!(d("'12'", Type::INT8), "'12'::bigint");
        assert_eq!(d("'5'", Type::NUMERIC), "'5'::numeric");
        assert_eq!(d("'1.50'", Type::NUMERIC), "1.50");
        assert_eq!(d("'NaN'", Type::NUMERIC), "'NaN'::numeric");
        assert_eq!(d("'yes'", Type::BOOL), "true");
        assert_eq!(
            d("99999999999999999999", Type::NUMERIC),
            "'99999999999999999999'::numeric"
        );
    }

    #[test]
    fn checks_as_postgres_prints_them() {
        let c = |s: &str| check_expr(s, COLS);
        assert_eq!(c("a > 0 and b < 10"), "a > 0 AND b < 10::numeric");
        assert_eq!(c("d <> ''"), "d <> ''::text");
        assert_eq!(c("a > '12'"), "a > 12");
        assert_eq!(c("b > '12'"), "b > '12'::numeric");
        assert_eq!(c("a between 1 and 5"), "a >= 1 AND a <= 5");
        assert_eq!(c("d in ('a','b')"), "d = ANY (ARRAY['a'::text, 'b'::text])");
        assert_eq!(c("f is not null"), "f IS NOT NULL");
        assert_eq!(c("k > 0.5"), "k > 0.5::double precision");
        assert_eq!(c("a + o > f"), "(a + o) > f");
        assert_eq!(c("length(d) < 5"), "length(d) < 5");
        assert_eq!(c("not h"), "NOT h");
        assert_eq!(c("e like 'x%'"), "e::text ~~ 'x%'::text");
        assert_eq!(c("d not in ('z')"), "d <> 'z'::text");
        assert_eq!(
            c("a::bigint * 2 - 1 > o % 3"),
            "(a::bigint * 2 - 1) > (o::integer % 3)"
        );
    }

    #[test]
    fn checks_as_postgres_prints_them_not_pretty() {
        let c = |s: &str| check_expr_in(s, COLS, false);
        assert_eq!(c("a > 0 and b < 10"), "((a > 0) AND (b < (10)::numeric))");
        assert_eq!(c("not h"), "(NOT h)");
        assert_eq!(c("h"), "h");
        assert_eq!(c("length(e) < 5"), "(length((e)::text) < 5)");
        assert_eq!(
            c("d in ('a','b')"),
            "(d = ANY (ARRAY['a'::text, 'b'::text]))"
        );
        assert_eq!(c("a > -5"), "(a > '-5'::integer)");
        assert_eq!(
            c("a::bigint * 2 - 1 > o % 3"),
            "((((a)::bigint * 2) - 1) > ((o)::integer % 3))"
        );
    }
}
