//! Names of parse-tree nodes: the output column name PostgreSQL gives an unnamed target
//! (`column_name_of`, FigureColname), the position a node carries for error messages
//! (`node_location`), and the word for a statement or FROM item in "not supported" errors
//! (`node_name`).

use pg_query::protobuf::{self, node::Node as N};

use super::{names_of, str_of};

/// The output column name PostgreSQL gives an unnamed target (FigureColname).
pub fn column_name_of(n: &protobuf::Node) -> String {
    figure_colname(n)
        .0
        .unwrap_or_else(|| "?column?".to_string())
}

/// PostgreSQL's FigureColnameInternal: a name and its strength. 2 is a real name (column,
/// function), 1 a fallback a cast's type name or "case"/"array"/"row" give, which an enclosing
/// cast may replace; 0 means no name.
fn figure_colname(n: &protobuf::Node) -> (Option<String>, u8) {
    let Some(node) = n.node.as_ref() else {
        return (None, 0);
    };
    let strong = |s: &str| (Some(s.to_string()), 2);
    match node {
        N::ColumnRef(cr) => match cr.fields.iter().rev().find_map(str_of) {
            Some(f) => strong(f),
            None => (None, 0),
        },
        N::AIndirection(i) => match i.indirection.iter().rev().find_map(str_of) {
            Some(f) => strong(f),
            None => i.arg.as_ref().map_or((None, 0), |a| figure_colname(a)),
        },
        N::FuncCall(fc) => match names_of(&fc.funcname).last() {
            Some(f) => strong(f),
            None => (None, 0),
        },
        N::AExpr(a) if a.kind == protobuf::AExprKind::AexprNullif as i32 => strong("nullif"),
        N::TypeCast(tc) => {
            let inner = tc.arg.as_ref().map_or((None, 0), |a| figure_colname(a));
            if inner.1 <= 1 {
                if let Some(last) = tc.type_name.as_ref().and_then(|t| names_of(&t.names).pop()) {
                    return (Some(last), 1);
                }
            }
            inner
        }
        N::CollateClause(c) => c.arg.as_ref().map_or((None, 0), |a| figure_colname(a)),
        N::GroupingFunc(_) => strong("grouping"),
        N::SubLink(sl) => {
            use protobuf::SubLinkType as S;
            match sl.sub_link_type {
                x if x == S::ExistsSublink as i32 => strong("exists"),
                x if x == S::ArraySublink as i32 => strong("array"),
                x if x == S::ExprSublink as i32 => {
                    // The subquery's single output column name.
                    match sl.subselect.as_ref().and_then(|s| s.node.as_ref()) {
                        Some(N::SelectStmt(s)) => {
                            let first = s.target_list.first().and_then(|t| match &t.node {
                                Some(N::ResTarget(rt)) if !rt.name.is_empty() => {
                                    Some(rt.name.clone())
                                }
                                Some(N::ResTarget(rt)) => {
                                    rt.val.as_ref().map(|v| column_name_of(v))
                                }
                                _ => None,
                            });
                            (Some(first.unwrap_or_else(|| "?column?".into())), 2)
                        }
                        _ => (None, 0),
                    }
                }
                _ => (None, 0),
            }
        }
        N::CaseExpr(c) => {
            let d = c
                .defresult
                .as_ref()
                .map_or((None, 0), |a| figure_colname(a));
            if d.1 <= 1 {
                (Some("case".into()), 1)
            } else {
                d
            }
        }
        // ARRAY[] and ROW() name their column like functions do.
        N::AArrayExpr(_) => strong("array"),
        N::RowExpr(_) => strong("row"),
        N::CoalesceExpr(_) => strong("coalesce"),
        N::MinMaxExpr(m) => {
            if m.op == protobuf::MinMaxOp::IsGreatest as i32 {
                strong("greatest")
            } else {
                strong("least")
            }
        }
        N::SqlvalueFunction(f) => {
            use protobuf::SqlValueFunctionOp as O;
            let name = match f.op {
                x if x == O::SvfopCurrentDate as i32 => "current_date",
                x if x == O::SvfopCurrentTime as i32 || x == O::SvfopCurrentTimeN as i32 => {
                    "current_time"
                }
                x if x == O::SvfopCurrentTimestamp as i32
                    || x == O::SvfopCurrentTimestampN as i32 =>
                {
                    "current_timestamp"
                }
                x if x == O::SvfopLocaltime as i32 || x == O::SvfopLocaltimeN as i32 => "localtime",
                x if x == O::SvfopLocaltimestamp as i32 || x == O::SvfopLocaltimestampN as i32 => {
                    "localtimestamp"
                }
                x if x == O::SvfopCurrentRole as i32 => "current_role",
                x if x == O::SvfopCurrentUser as i32 => "current_user",
                x if x == O::SvfopUser as i32 => "user",
                x if x == O::SvfopSessionUser as i32 => "session_user",
                x if x == O::SvfopCurrentCatalog as i32 => "current_catalog",
                x if x == O::SvfopCurrentSchema as i32 => "current_schema",
                _ => return (None, 0),
            };
            strong(name)
        }
        _ => (None, 0),
    }
}

pub fn node_location(n: &N) -> i32 {
    match n {
        N::AConst(c) => c.location,
        N::ColumnRef(c) => c.location,
        N::AExpr(a) => a.location,
        N::FuncCall(f) => f.location,
        N::TypeCast(t) => t.location,
        N::ParamRef(p) => p.location,
        N::BoolExpr(b) => b.location,
        N::RowExpr(r) => r.location,
        _ => -1,
    }
}

pub fn node_name(n: &N) -> &'static str {
    match n {
        N::InsertStmt(_) => "INSERT",
        N::UpdateStmt(_) => "UPDATE",
        N::DeleteStmt(_) => "DELETE",
        N::SelectStmt(_) => "SELECT",
        N::CreateStmt(_) => "CREATE TABLE",
        N::IndexStmt(_) => "CREATE INDEX",
        N::DropStmt(_) => "DROP",
        N::AlterTableStmt(_) => "ALTER TABLE",
        N::TruncateStmt(_) => "TRUNCATE",
        N::VacuumStmt(_) => "VACUUM",
        N::ExplainStmt(_) => "EXPLAIN",
        N::CreateFunctionStmt(_) => "CREATE FUNCTION",
        N::DoStmt(_) => "DO",
        N::CallStmt(_) => "CALL",
        N::CreateSchemaStmt(_) => "CREATE SCHEMA",
        N::ViewStmt(_) => "CREATE VIEW",
        N::CreateSeqStmt(_) => "CREATE SEQUENCE",
        N::CreateEnumStmt(_) | N::CompositeTypeStmt(_) | N::CreateRangeStmt(_) => "CREATE TYPE",
        N::GrantStmt(_) => "GRANT",
        N::CreateRoleStmt(_) => "CREATE ROLE",
        N::LockStmt(_) => "LOCK TABLE",
        N::MergeStmt(_) => "MERGE",
        N::CreateTableAsStmt(_) => "CREATE TABLE AS",
        N::CommentStmt(_) => "COMMENT",
        N::RangeVar(_) => "table reference",
        N::RangeTableSample(_) => "TABLESAMPLE",
        _ => "this statement",
    }
}
