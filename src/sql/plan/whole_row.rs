//! Whole-row references: a FROM item's name used as a value (`SELECT e FROM emp e`,
//! `count(e)`, `e IS NOT NULL`, `row_to_json(e)`, `json_agg(e)`), as PostgreSQL resolves a
//! name that is no column: the row of that FROM item's columns, in order, of type record.
//!
//! The value is a plain `Value::Record`, which carries no field names; the JSON conversions
//! that print names (row_to_json, to_json, to_jsonb, json_agg, jsonb_agg) are bound here with
//! the names and types as constant arguments instead.
//!
//! PostgreSQL types a table's whole row as the table's composite type (its own pg_type row,
//! `Catalog::row_type`); the top SELECT's RowDescription reports that OID for a whole-row
//! target of a table or view, elsewhere the row is `record` (2249), which is what PostgreSQL
//! reports for subqueries and VALUES. A FROM item is taken to be the table when its columns
//! are exactly the table's columns in order (a subquery selecting all of them, in order,
//! reports the table's type too).

use pg_query::protobuf::{self, node::Node as N};

use crate::error::PgResult;
use crate::sql::plan::Expr;
use crate::sql::types::{io, json, Array, FormatCtx, Type, Value};

use super::{names_of, Planner, Scope};

/// The columns of a whole row: the expression of each and its name and type.
pub(super) struct WholeRow {
    pub items: Vec<Expr>,
    pub cols: Vec<(String, Type)>,
}

impl WholeRow {
    pub fn expr(&self) -> Expr {
        Expr::Row(self.items.clone())
    }

    /// The row as JSON text (row_to_json / to_json; `jsonb`: to_jsonb's spacing).
    pub fn json(&self, jsonb: bool) -> Expr {
        let names = Value::Array(Box::new(Array::one_dim(
            Type::TEXT,
            self.cols
                .iter()
                .map(|(n, _)| Value::Text(n.clone()))
                .collect(),
        )));
        let types = Value::Array(Box::new(Array::one_dim(
            Type::OID,
            self.cols.iter().map(|(_, t)| Value::Oid(t.0)).collect(),
        )));
        Expr::Func {
            f: if jsonb {
                named_row_json::<true>
            } else {
                named_row_json::<false>
            },
            args: vec![Expr::Const(names), Expr::Const(types), self.expr()],
            strict: false,
        }
    }
}

impl Planner<'_> {
    /// The whole row that a one-name column reference means when no column has that name:
    /// the FROM item of that name here or in an enclosing query.
    pub(super) fn whole_row(&self, scope: &Scope, fields: &[String]) -> Option<WholeRow> {
        let [rel] = fields else {
            return None;
        };
        let scopes = std::iter::once((0, scope))
            .chain(self.outer.iter().rev().enumerate().map(|(d, s)| (d + 1, s)));
        for (depth, sc) in scopes {
            let mut row = WholeRow {
                items: Vec::new(),
                cols: Vec::new(),
            };
            for (i, c) in sc.cols.iter().enumerate() {
                if c.hidden || &c.rel != rel {
                    continue;
                }
                row.items.push(if depth == 0 {
                    Expr::Column(i)
                } else {
                    Expr::Outer(depth, i)
                });
                row.cols.push((c.name.clone(), c.ty));
            }
            if let (Some(g), false) = (&sc.grouped, row.items.is_empty()) {
                // A grouped query's row, read whole from its subquery: only if it has every
                // column (PostgreSQL names the first ungrouped one in an error).
                if let Expr::Outer(_, i) = row.items[row.items.len() - 1] {
                    if i >= g.dependent.end {
                        continue;
                    }
                }
                if row
                    .items
                    .iter()
                    .any(|e| matches!(e, Expr::Outer(_, i) if g.dependent.contains(i)))
                {
                    g.used.set(true);
                }
            }
            if !row.items.is_empty() {
                // The whole row reads every column: each needs SELECT, as in PostgreSQL.
                if let Some(cx) = &self.tables {
                    for c in sc.cols.iter().filter(|c| !c.hidden && &c.rel == rel) {
                        cx.mark(c.origin, crate::sql::privs::ColUse::Select);
                    }
                }
                return Some(row);
            }
        }
        self.record_variable(rel)
    }

    /// A PL/pgSQL record variable used as a whole row (`row_to_json(new)`): its fields'
    /// slots, which only its name qualifies.
    fn record_variable(&self, rel: &str) -> Option<WholeRow> {
        let fp = self.func_params.as_ref()?;
        let mut row = WholeRow {
            items: Vec::new(),
            cols: Vec::new(),
        };
        for i in 0..fp.names.len() {
            if !fp.bare[i] && fp.quals[i].iter().any(|q| q == rel) {
                row.items.push(Expr::Param(i));
                row.cols.push((fp.names[i].clone(), self.params[i]));
            }
        }
        (!row.items.is_empty()).then_some(row)
    }

    /// The row type of the table or view that FROM item `fields` (one name) is, if it is one.
    pub(super) fn table_row_type(&self, scope: &Scope, fields: &[String]) -> Option<Type> {
        let [rel] = fields else {
            return None;
        };
        let tables = self.tables.as_ref()?;
        let mut relid = None;
        let mut next = 1i16;
        for c in scope.cols.iter().filter(|c| !c.hidden && &c.rel == rel) {
            let (oid, attnum) = c.origin?;
            if *relid.get_or_insert(oid) != oid || attnum < next {
                return None;
            }
            next = attnum + 1;
        }
        let relid = relid?;
        // Every live column of the table, none left out.
        let table = tables
            .catalog
            .visible(&tables.snap)
            .into_iter()
            .find(|r| r.oid == relid)?;
        if table.live_columns().count() != scope.cols.iter().filter(|c| &c.rel == rel).count() {
            return None;
        }
        let ty = Type(tables.catalog.row_type(relid)?);
        // Noted so that the row's binary output sends its fields' declared types.
        self.note_table_row_type(&table, ty);
        Some(ty)
    }

    /// A function argument that is a whole-row reference (not a column of that name).
    pub(super) fn whole_row_arg(
        &self,
        scope: &Scope,
        arg: &protobuf::Node,
    ) -> PgResult<Option<WholeRow>> {
        let Some(N::ColumnRef(cr)) = &arg.node else {
            return Ok(None);
        };
        let fields = names_of(&cr.fields);
        // A column of that name wins (lookup_column tries columns first).
        let is_row = matches!(
            self.lookup_column(scope, &fields, cr.location),
            Ok((Expr::Row(_), _))
        );
        if fields.len() != 1 || !is_row {
            return Ok(None);
        }
        Ok(self.whole_row(scope, &fields))
    }
}

/// `named_row_json(names, type oids, record)`: the record as a JSON object with those field
/// names, each field converted by its type (row_to_json / to_jsonb of a whole row).
fn named_row_json<const JB: bool>(a: &[Value], ctx: &FormatCtx) -> PgResult<Value> {
    let (Value::Array(names), Value::Array(types)) = (&a[0], &a[1]) else {
        return Ok(Value::Null);
    };
    let Value::Record(fields) = &a[2] else {
        return Ok(Value::Null);
    };
    let mut s = String::from("{");
    for (i, v) in fields.iter().enumerate() {
        if i > 0 {
            s.push_str(if JB { ", " } else { "," });
        }
        let name = names.items.get(i).and_then(Value::as_str).unwrap_or("");
        json::write_string(name, &mut s);
        s.push_str(if JB { ": " } else { ":" });
        let ty = match types.items.get(i) {
            Some(Value::Oid(o)) => Type(*o),
            _ => io::value_type(v),
        };
        json::value_to_json(v, ty, ctx, JB, &mut s);
    }
    s.push('}');
    if JB {
        s = json::jsonb_in(&s)?;
    }
    Ok(Value::Text(s))
}
