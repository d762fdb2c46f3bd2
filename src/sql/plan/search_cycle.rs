//! SEARCH and CYCLE clauses of WITH RECURSIVE (PostgreSQL 14), rewritten as PostgreSQL's
//! rewriter does (rewriteSearchCycle.c):
//!
//! ```text
//! WITH RECURSIVE t(a, b) AS (init UNION [ALL] step)
//!   SEARCH BREADTH FIRST BY a SET seq          seq: ROW(depth, a), depth 0 in init, +1 per step
//!   SEARCH DEPTH FIRST BY a SET seq            seq: ARRAY[ROW(a)], each step appending ROW(a)
//!   CYCLE a SET mark [TO v DEFAULT d] USING path
//!                                              mark: d in init, in a step v if ROW(a) is already
//!                                              in path; path: like the depth-first seq; a step
//!                                              reads only the rows whose mark is not v
//! ```
//!
//! The columns come after the CTE's own, in that order. The recursive term sees the previous
//! run's extra columns in its work table by name but not in `*`, as in PostgreSQL.

use pg_query::protobuf::{self, node::Node as N};

use super::{code, common_type, loc, names_of, Planner, Scope};
use crate::error::{PgError, PgResult};
use crate::sql::plan::Expr;
use crate::sql::plan::{Column, Node, Plan};
use crate::sql::types::cast::CoercionContext;
use crate::sql::types::{Array, FormatCtx, Type, Value};

/// How the work table names a column that `*` must not expand (NUL cannot be in a name).
const HIDDEN: char = '\0';

/// A column's name as queries see it, and whether `*` skips it.
pub(super) fn visible_name(name: &str) -> (&str, bool) {
    match name.strip_prefix(HIDDEN) {
        Some(n) => (n, true),
        None => (name, false),
    }
}

struct Search {
    breadth_first: bool,
    /// Indexes of the BY columns.
    cols: Vec<usize>,
    column: String,
    location: i32,
}

struct Cycle {
    cols: Vec<usize>,
    mark_column: String,
    path_column: String,
    mark_type: Type,
    value: Expr,
    default: Expr,
    /// The mark value as written, for the recursive term's `WHERE mark <> value`.
    value_node: protobuf::Node,
}

pub(super) struct Clauses {
    search: Option<Search>,
    cycle: Option<Cycle>,
}

fn syntax(msg: String, location: i32) -> PgError {
    PgError::syntax(msg).at(loc(location))
}

/// Indexes of `names` among `cols`, for the errors PostgreSQL gives.
fn column_indexes(
    names: &[protobuf::Node],
    cols: &[Column],
    what: &str,
    location: i32,
) -> PgResult<Vec<usize>> {
    let mut out = Vec::new();
    for name in names_of(names) {
        let Some(i) = cols.iter().position(|c| c.name == name) else {
            return Err(syntax(
                format!("{what} column \"{name}\" not in WITH query column list"),
                location,
            ));
        };
        if out.contains(&i) {
            return Err(PgError::new(
                code::DUPLICATE_COLUMN,
                format!("{what} column \"{name}\" specified more than once"),
            )
            .at(loc(location)));
        }
        out.push(i);
    }
    Ok(out)
}

impl Clauses {
    /// Checks and binds the clauses of `c`, whose query is `init UNION [ALL] step` with
    /// `cols` its columns; None when it has neither.
    pub fn bind(
        p: &mut Planner,
        c: &protobuf::CommonTableExpr,
        cols: &[Column],
    ) -> PgResult<Option<Clauses>> {
        if c.search_clause.is_none() && c.cycle_clause.is_none() {
            return Ok(None);
        }
        let search = match &c.search_clause {
            Some(sc) => Some(Search {
                breadth_first: sc.search_breadth_first,
                cols: column_indexes(&sc.search_col_list, cols, "search", sc.location)?,
                column: sc.search_seq_column.clone(),
                location: sc.location,
            }),
            None => None,
        };
        let cycle = match &c.cycle_clause {
            Some(cc) => {
                let ccols = column_indexes(&cc.cycle_col_list, cols, "cycle", cc.location)?;
                if cc.cycle_mark_column == cc.cycle_path_column {
                    return Err(syntax(
                        "cycle mark column name and cycle path column name are the same".into(),
                        cc.location,
                    ));
                }
                let node_of = |n: &Option<Box<protobuf::Node>>| {
                    n.as_deref()
                        .cloned()
                        .ok_or_else(|| PgError::syntax("CYCLE clause without mark values"))
                };
                let (value_node, default_node) = (
                    node_of(&cc.cycle_mark_value)?,
                    node_of(&cc.cycle_mark_default)?,
                );
                let bind = |p: &mut Planner, n: &protobuf::Node| match &n.node {
                    Some(n) => p.bind(n, &Scope::default(), None),
                    None => Err(PgError::syntax("empty CYCLE mark value")),
                };
                let (value, vt) = bind(p, &value_node)?;
                let (default, dt) = bind(p, &default_node)?;
                let mut ty = common_type(&[vt, dt], "CYCLE", cc.location)?;
                if ty == Type::UNKNOWN {
                    ty = Type::TEXT;
                }
                let value = p.coerce(value, vt, ty, -1, CoercionContext::Implicit, -1)?;
                let default = p.coerce(default, dt, ty, -1, CoercionContext::Implicit, -1)?;
                Some(Cycle {
                    cols: ccols,
                    mark_column: cc.cycle_mark_column.clone(),
                    path_column: cc.cycle_path_column.clone(),
                    mark_type: ty,
                    value,
                    default,
                    value_node,
                })
            }
            None => None,
        };
        if let (Some(s), Some(c)) = (&search, &cycle) {
            let at = s.location;
            if s.column == c.mark_column {
                return Err(syntax(
                    "search sequence column name and cycle mark column name are the same".into(),
                    at,
                ));
            }
            if s.column == c.path_column {
                return Err(syntax(
                    "search sequence column name and cycle path column name are the same".into(),
                    at,
                ));
            }
        }
        Ok(Some(Clauses { search, cycle }))
    }

    /// Both sides of the UNION must be plain SELECTs (checked once the recursive term is
    /// planned, as PostgreSQL checks it after analysing the query).
    pub fn check_sides(&self, s: &protobuf::SelectStmt) -> PgResult<()> {
        if !is_simple(&s.larg) {
            return Err(PgError::feature_not_supported(
                "with a SEARCH or CYCLE clause, the left side of the UNION must be a SELECT",
            ));
        }
        if !is_simple(&s.rarg) {
            return Err(PgError::feature_not_supported(
                "with a SEARCH or CYCLE clause, the right side of the UNION must be a SELECT",
            ));
        }
        Ok(())
    }

    /// The columns the CTE gains; `hidden`: as its work table has them, out of reach of `*`.
    pub fn columns(&self, hidden: bool) -> Vec<Column> {
        let col = |name: &str, ty: Type| Column {
            name: if hidden {
                format!("{HIDDEN}{name}")
            } else {
                name.to_string()
            },
            ty,
            typmod: -1,
            origin: None,
        };
        let mut out = Vec::new();
        if let Some(s) = &self.search {
            let ty = if s.breadth_first {
                Type::RECORD
            } else {
                Type::RECORD_ARRAY
            };
            out.push(col(&s.column, ty));
        }
        if let Some(c) = &self.cycle {
            out.push(col(&c.mark_column, c.mark_type));
            out.push(col(&c.path_column, Type::RECORD_ARRAY));
        }
        out
    }

    /// The recursive term with the work table's extra columns added to its select list (and,
    /// with CYCLE, `WHERE mark <> value`), or None when its FROM clause does not name the CTE
    /// at its top level.
    pub fn rewrite_step(
        &self,
        step: &protobuf::SelectStmt,
        cte: &str,
    ) -> Option<protobuf::SelectStmt> {
        if step.op != protobuf::SetOperation::SetopNone as i32 && step.op != 0 {
            return None;
        }
        let rel = step.from_clause.iter().find_map(|n| cte_ref(n, cte))?;
        let mut step = step.clone();
        for extra in self.columns(false) {
            step.target_list
                .push(node(N::ResTarget(Box::new(protobuf::ResTarget {
                    val: Some(Box::new(column_ref(&rel, &extra.name))),
                    location: -1,
                    ..Default::default()
                }))));
        }
        if let Some(c) = &self.cycle {
            let unmarked = node(N::AExpr(Box::new(protobuf::AExpr {
                kind: protobuf::AExprKind::AexprOp as i32,
                name: vec![node(N::String(protobuf::String { sval: "<>".into() }))],
                lexpr: Some(Box::new(column_ref(&rel, &c.mark_column))),
                rexpr: Some(Box::new(c.value_node.clone())),
                location: -1,
                ..Default::default()
            })));
            step.where_clause = Some(Box::new(match step.where_clause.take() {
                None => unmarked,
                Some(w) => node(N::BoolExpr(Box::new(protobuf::BoolExpr {
                    boolop: protobuf::BoolExprType::AndExpr as i32,
                    args: vec![*w, unmarked],
                    location: -1,
                    ..Default::default()
                }))),
            }));
        }
        Some(step)
    }

    /// The non-recursive term with the extra columns' first values.
    pub fn wrap_init(&self, init: Plan) -> Plan {
        let n = init.columns.len();
        let mut exprs: Vec<Expr> = (0..n).map(Expr::Column).collect();
        let row = |cols: &[usize]| Expr::Row(cols.iter().map(|&i| Expr::Column(i)).collect());
        if let Some(s) = &self.search {
            exprs.push(if s.breadth_first {
                let mut fields = vec![Expr::Const(Value::Int8(0))];
                fields.extend(s.cols.iter().map(|&i| Expr::Column(i)));
                Expr::Row(fields)
            } else {
                Expr::Array(vec![row(&s.cols)], Type::RECORD)
            });
        }
        if let Some(c) = &self.cycle {
            exprs.push(c.default.clone());
            exprs.push(Expr::Array(vec![row(&c.cols)], Type::RECORD));
        }
        let mut columns = init.columns.clone();
        columns.extend(self.columns(false));
        Plan {
            node: Node::Project {
                input: Box::new(init),
                exprs,
            },
            columns,
        }
    }

    /// The recursive term's rows, `own` being its own columns (coerced to the CTE's types):
    /// those, then the extra columns computed from them and from the previous run's values,
    /// which `step` returns after its own columns.
    pub fn wrap_step(&self, step: Plan, own: Vec<Expr>, columns: Vec<Column>) -> Plan {
        let n = own.len();
        let args = |prev: usize, cols: &[usize]| {
            let mut a = vec![Expr::Column(prev)];
            a.extend(cols.iter().map(|&i| own[i].clone()));
            a
        };
        let mut exprs = own.clone();
        let mut prev = n;
        if let Some(s) = &self.search {
            exprs.push(Expr::Func {
                f: if s.breadth_first {
                    next_breadth_first
                } else {
                    append_row
                },
                args: args(prev, &s.cols),
                strict: false,
            });
            prev += 1;
        }
        if let Some(c) = &self.cycle {
            // The previous mark (at `prev`) only filtered the rows in the step's WHERE.
            let path = prev + 1;
            exprs.push(Expr::Case {
                whens: vec![(
                    Expr::Func {
                        f: path_contains,
                        args: args(path, &c.cols),
                        strict: false,
                    },
                    c.value.clone(),
                )],
                default: Some(Box::new(c.default.clone())),
            });
            exprs.push(Expr::Func {
                f: append_row,
                args: args(path, &c.cols),
                strict: false,
            });
        }
        let mut columns = columns;
        columns.extend(self.columns(false));
        Plan {
            node: Node::Project {
                input: Box::new(step),
                exprs,
            },
            columns,
        }
    }
}

fn is_simple(side: &Option<Box<protobuf::SelectStmt>>) -> bool {
    side.as_ref()
        .is_some_and(|q| q.op == protobuf::SetOperation::SetopNone as i32 || q.op == 0)
}

fn node(n: N) -> protobuf::Node {
    protobuf::Node { node: Some(n) }
}

fn column_ref(rel: &str, name: &str) -> protobuf::Node {
    let field = |s: &str| node(N::String(protobuf::String { sval: s.into() }));
    node(N::ColumnRef(protobuf::ColumnRef {
        fields: vec![field(rel), field(name)],
        location: -1,
    }))
}

/// The name under which a FROM item, or a join at its top level, reads the CTE `cte`.
fn cte_ref(n: &protobuf::Node, cte: &str) -> Option<String> {
    match &n.node {
        Some(N::RangeVar(rv)) if rv.schemaname.is_empty() && rv.relname == cte => Some(
            rv.alias
                .as_ref()
                .map_or_else(|| rv.relname.clone(), |a| a.aliasname.clone()),
        ),
        Some(N::JoinExpr(j)) => j
            .larg
            .as_deref()
            .and_then(|l| cte_ref(l, cte))
            .or_else(|| j.rarg.as_deref().and_then(|r| cte_ref(r, cte))),
        _ => None,
    }
}

/// `ROW(depth + 1, cols...)` from the previous `ROW(depth, ...)` and the new row's columns.
fn next_breadth_first(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    let depth = match a.first() {
        Some(Value::Record(f)) => f.first().and_then(Value::as_i64).unwrap_or(0),
        _ => 0,
    };
    let mut fields = vec![Value::Int8(depth + 1)];
    fields.extend_from_slice(&a[1..]);
    Ok(Value::Record(fields))
}

/// The previous array of rows with `ROW(cols...)` appended.
fn append_row(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    let mut items = match a.first() {
        Some(Value::Array(arr)) => arr.items.clone(),
        _ => Vec::new(),
    };
    items.push(Value::Record(a[1..].to_vec()));
    Ok(Value::Array(Box::new(Array::one_dim(Type::RECORD, items))))
}

/// Whether `ROW(cols...)` is in the path. Rows compare as PostgreSQL's record equality does:
/// field by field, NULL equal to NULL.
fn path_contains(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    let Some(Value::Array(path)) = a.first() else {
        return Ok(Value::Bool(false));
    };
    let row = &a[1..];
    let found = path.items.iter().any(|item| match item {
        Value::Record(f) => {
            f.len() == row.len()
                && f.iter().zip(row).all(|(x, y)| {
                    x.is_null() && y.is_null()
                        || (!x.is_null()
                            && !y.is_null()
                            && crate::sql::types::compare(x, y) == std::cmp::Ordering::Equal)
                })
        }
        _ => false,
    });
    Ok(Value::Bool(found))
}
