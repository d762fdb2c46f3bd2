//! User-defined functions where a set or a row is accepted: in FROM (`SELECT * FROM f(...)`,
//! a set-returning function or one whose OUT parameters make a row) and in the select list
//! (a set-returning function, as a ProjectSet).
//!
//! A row's columns come from the function's OUT parameters (RETURNS TABLE's columns are OUT
//! parameters too), else from the column definition list a function returning `record`
//! needs, else the result type is the one column. The executor materializes the function's
//! rows at the first pull (`exec/srf.rs`, `Srf::User`), as PostgreSQL's tuplestore, within
//! `WORK_MEM`.

use pg_query::protobuf::{self, node::Node as N};

use super::nodes::{Column, Node, Plan, Srf, SrfCall};
use super::scope::Scope;
use super::{loc, names_of, Planner};
use crate::error::{code, PgError, PgResult};
use crate::sql::plan::Expr;
use crate::sql::types::Type;

impl Planner<'_> {
    /// A call of a user set-returning function in the select list or FROM; None when `fc`
    /// calls no such function.
    pub(super) fn bind_user_srf(
        &mut self,
        fc: &protobuf::FuncCall,
        scope: &Scope,
    ) -> PgResult<Option<SrfCall>> {
        let names = names_of(&fc.funcname);
        if !self
            .user_functions(&names)
            .iter()
            .any(|f| f.def.returns_set)
        {
            return Ok(None);
        }
        let Some((e, t)) = self.bind_user_call(fc, &names, scope, None)? else {
            return Ok(None);
        };
        let Expr::UserCall(c) = &e else {
            return Ok(None);
        };
        if !c.returns_set {
            return Ok(None);
        }
        let cols = if t == Type::RECORD && !c.outs.is_empty() {
            c.outs.iter().map(|(_, t)| *t).collect()
        } else {
            vec![t]
        };
        Ok(Some(SrfCall {
            srf: Srf::User,
            out: t,
            args: vec![e],
            arg_types: cols,
        }))
    }

    /// A FROM item that calls a user function (`node` as `plan_range_function` bound it):
    /// its plan with the function's columns; None for any other function.
    pub(super) fn user_function_item(
        &mut self,
        node: &Node,
        ty: Type,
        rf: &protobuf::RangeFunction,
        alias_name: &str,
    ) -> PgResult<Option<Plan>> {
        let call = match node {
            Node::Function {
                srf: Srf::User,
                args,
                ..
            } => args.first(),
            Node::Function {
                srf: Srf::Scalar,
                scalar,
                ..
            } => scalar.as_ref(),
            _ => None,
        };
        let Some(Expr::UserCall(c)) = call else {
            return Ok(None);
        };
        let coldef_at = rf
            .coldeflist
            .first()
            .and_then(|n| match &n.node {
                Some(N::ColumnDef(d)) => Some(d.location),
                _ => None,
            })
            .unwrap_or(-1);
        let definition = |msg: &str, at: i32| PgError::new(code::SYNTAX_ERROR, msg).at(loc(at));
        let mut columns: Vec<Column> = if ty == Type::RECORD && !c.outs.is_empty() {
            if !rf.coldeflist.is_empty() {
                return Err(definition(
                    "a column definition list is redundant for a function with OUT parameters",
                    coldef_at,
                ));
            }
            c.outs
                .iter()
                .enumerate()
                .map(|(i, (name, t))| {
                    let name = if name.is_empty() {
                        format!("column{}", i + 1)
                    } else {
                        name.clone()
                    };
                    column(name, *t, -1)
                })
                .collect()
        } else if ty == Type::RECORD {
            if rf.coldeflist.is_empty() {
                let at = rf.functions.first().map_or(-1, |f| match &f.node {
                    Some(N::List(l)) => l.items.first().map_or(-1, |n| match &n.node {
                        Some(N::FuncCall(fc)) => fc.location,
                        _ => -1,
                    }),
                    _ => -1,
                });
                return Err(definition(
                    "a column definition list is required for functions returning \"record\"",
                    at,
                ));
            }
            let mut cols = Vec::new();
            for n in &rf.coldeflist {
                let Some(N::ColumnDef(d)) = &n.node else {
                    return Err(PgError::internal("unexpected column definition"));
                };
                let tn = d
                    .type_name
                    .as_ref()
                    .ok_or_else(|| PgError::syntax("column definition without a type"))?;
                let (t, typmod) = self.resolve_type_name(tn)?;
                cols.push(column(d.colname.clone(), t, typmod));
            }
            cols
        } else {
            if !rf.coldeflist.is_empty() {
                return Err(definition(
                    "a column definition list is only allowed for functions returning \"record\"",
                    coldef_at,
                ));
            }
            match self.composite_fields(ty) {
                // A table's or composite type's row: a column per field, as PostgreSQL
                // expands it (the executor spreads each record; a one-field type stays one
                // column of the type).
                Some(fields) if fields.len() > 1 => fields
                    .into_iter()
                    .map(|(name, t, typmod)| column(name, t.base_type(), typmod))
                    .collect(),
                _ => {
                    // A single OUT parameter names the column.
                    let name = match c.outs.as_slice() {
                        [(n, _)] if !n.is_empty() => n.clone(),
                        _ => alias_name.to_string(),
                    };
                    vec![column(name, ty, -1)]
                }
            }
        };
        let types: Vec<Type> = columns.iter().map(|c| c.ty).collect();
        let ordinality = rf.ordinality;
        if ordinality {
            columns.push(column("ordinality".into(), Type::INT8, -1));
        }
        Ok(Some(Plan {
            node: Node::Function {
                srf: Srf::User,
                args: vec![Expr::UserCall(c.clone())],
                arg_types: types,
                scalar: None,
                ordinality,
            },
            columns,
        }))
    }
}

fn column(name: String, ty: Type, typmod: i32) -> Column {
    Column {
        name,
        ty,
        typmod,
        origin: None,
    }
}

/// CALL of a procedure with OUT / INOUT parameters: the call as a function scan whose one row
/// has a column per parameter, which CALL returns to the client as PostgreSQL does; any other
/// CALL's plan unchanged.
pub(super) fn call_with_outputs(plan: Plan) -> Plan {
    let Node::Project { exprs, .. } = &plan.node else {
        return plan;
    };
    let Some(Expr::UserCall(c)) = exprs.first() else {
        return plan;
    };
    if c.outs.is_empty() {
        return plan;
    }
    let columns: Vec<Column> = c
        .outs
        .iter()
        .enumerate()
        .map(|(i, (n, t))| {
            let name = if n.is_empty() {
                format!("column{}", i + 1)
            } else {
                n.clone()
            };
            column(name, *t, -1)
        })
        .collect();
    Plan {
        node: Node::Function {
            srf: Srf::User,
            args: vec![Expr::UserCall(c.clone())],
            arg_types: columns.iter().map(|c| c.ty).collect(),
            scalar: None,
            ordinality: false,
        },
        columns,
    }
}

/// Whether a CALL's plan returns its procedure's OUT parameters as a row.
pub fn call_returns_row(plan: &Plan) -> bool {
    matches!(plan.node, Node::Function { .. })
}
