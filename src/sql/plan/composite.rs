//! Composite types in expressions: the fields of a composite type (CREATE TYPE ... AS, or a
//! table's row type), field selection `(expr).field`, and `(expr).*` in a select list.
//!
//! A composite value is a `Value::Record` of its live fields in order; the planner knows the
//! fields from the type. An anonymous record has no fields the planner knows, except where the
//! expression is in sight: `(ROW(a, b)).f1` (fields `f1`, `f2` ...) and `(t).col` of a FROM
//! item `t` (its columns), which select the member directly.

use pg_query::protobuf::{self, node::Node as N};

use super::agg::AggCtx;
use super::{loc, Planner, Scope};
use crate::catalog::types::{note_row_type, RowFields};
use crate::catalog::RelKind;
use crate::error::{code, PgError, PgResult};
use crate::sql::parser::str_of;
use crate::sql::plan::Expr;
use crate::sql::types::{FormatCtx, Type, Value};

/// The fields of a row whose members the planner sees: name, type of each.
type Members = Vec<(String, Type)>;

impl Planner<'_> {
    /// The live fields of composite type `ty` (name, declared type, typmod); None for any
    /// other type. A table's row type is looked up with the statement's snapshot and noted
    /// for the value functions (`catalog::types::note_row_type`).
    pub(super) fn composite_fields(&self, ty: Type) -> Option<Vec<(String, Type, i32)>> {
        if ty.0 < crate::catalog::FIRST_USER_OID || ty == Type::RECORD {
            return None;
        }
        if let Some(t) = crate::catalog::types::composite_info(ty.0) {
            let c = t.def.composite.as_ref()?;
            return Some(
                c.live()
                    .map(|(_, a)| (a.name.clone(), Type(a.type_oid), a.typmod))
                    .collect(),
            );
        }
        let tables = self.tables.as_ref()?;
        let rel = tables.catalog.visible(&tables.snap).into_iter().find(|r| {
            matches!(r.kind, RelKind::Table | RelKind::View | RelKind::MatView)
                && tables.catalog.row_type(r.oid) == Some(ty.0)
        })?;
        Some(self.note_table_row_type(&rel, ty))
    }

    /// Table `rel`'s columns as the fields of its row type `ty`, noted for value functions.
    pub(super) fn note_table_row_type(
        &self,
        rel: &crate::sql::engine::Rel,
        ty: Type,
    ) -> Vec<(String, Type, i32)> {
        let fields: Vec<(String, Type, i32)> = rel
            .live_columns()
            .map(|(_, c)| {
                let declared = c.domain.unwrap_or(c.type_oid);
                let typmod = if c.domain.is_some() { -1 } else { c.typmod };
                (c.name.clone(), Type(declared), typmod)
            })
            .collect();
        note_row_type(
            ty.0,
            RowFields {
                schema: rel.name.schema.clone(),
                name: rel.name.name.clone(),
                fields: fields
                    .iter()
                    .map(|(n, t, m)| (n.clone(), t.0, *m))
                    .collect(),
            },
        );
        fields
    }

    /// The row type of table, view or materialized view `schema.name` (a type name that no
    /// type has), and its array type with `array`.
    pub(super) fn table_row_type_named(&self, schema: &str, name: &str) -> Option<Type> {
        let tables = self.tables.as_ref()?;
        let rel = tables.find(schema, name)?;
        if !matches!(rel.kind, RelKind::Table | RelKind::View | RelKind::MatView) {
            return None;
        }
        let ty = Type(tables.catalog.row_type(rel.oid)?);
        self.note_table_row_type(&rel, ty);
        Some(ty)
    }

    /// The members of `(arg).field`'s argument when the planner sees them: a ROW() (fields
    /// `f1`, `f2` ...) or a FROM item's whole row.
    fn visible_members(
        &mut self,
        arg: &protobuf::Node,
        scope: &Scope,
        mut agg: Option<&mut AggCtx>,
    ) -> PgResult<Option<(Expr, Type, Members)>> {
        match &arg.node {
            Some(N::RowExpr(r)) => {
                let mut items = Vec::with_capacity(r.args.len());
                let mut members = Vec::with_capacity(r.args.len());
                for (i, a) in r.args.iter().enumerate() {
                    let n = a.node.as_ref().expect("row member");
                    let (e, t) = self.bind(n, scope, agg.as_deref_mut())?;
                    let t = if t == Type::UNKNOWN { Type::TEXT } else { t };
                    items.push(e);
                    members.push((format!("f{}", i + 1), t));
                }
                Ok(Some((Expr::Row(items), Type::RECORD, members)))
            }
            Some(N::ColumnRef(_)) if agg.is_none() => {
                let Some(row) = self.whole_row_arg(scope, arg)? else {
                    return Ok(None);
                };
                let ty = match &arg.node {
                    Some(N::ColumnRef(cr)) => {
                        self.table_row_type(scope, &crate::sql::parser::names_of(&cr.fields))
                    }
                    _ => None,
                };
                Ok(Some((
                    row.expr(),
                    ty.unwrap_or(Type::RECORD),
                    row.cols.clone(),
                )))
            }
            _ => Ok(None),
        }
    }

    /// `(arg).a.b ...` from the field names in `path` (the first already known to be one).
    pub(super) fn bind_field_path(
        &mut self,
        arg: &protobuf::Node,
        path: &[protobuf::Node],
        scope: &Scope,
        mut agg: Option<&mut AggCtx>,
        location: i32,
    ) -> PgResult<(Expr, Type)> {
        let (mut e, mut t, mut members) =
            match self.visible_members(arg, scope, agg.as_deref_mut())? {
                Some((e, t, m)) => (e, t, Some(m)),
                None => {
                    let n = arg.node.as_ref().expect("arg");
                    let (e, t) = self.bind(n, scope, agg)?;
                    (e, t, None)
                }
            };
        for step in path {
            let Some(name) = str_of(step) else {
                return Err(PgError::feature_not_supported(
                    "array subscripts after field selection are not supported yet",
                )
                .at(loc(location)));
            };
            let typmod;
            (e, t, typmod) = self.select_field(e, t, members.take(), name, location)?;
            self.state
                .field_typmods
                .insert(path.as_ptr() as usize, typmod);
        }
        Ok((e, t))
    }

    /// Field `name` of `e` (of type `t`; `members` when the planner sees its fields).
    pub(super) fn select_field(
        &mut self,
        e: Expr,
        t: Type,
        members: Option<Members>,
        name: &str,
        location: i32,
    ) -> PgResult<(Expr, Type, i32)> {
        let fields: Vec<(String, Type, i32)> = match members {
            Some(m) => m.into_iter().map(|(n, t)| (n, t, -1)).collect(),
            None => match self.composite_fields(t) {
                Some(f) => f,
                None if t == Type::RECORD => {
                    return Err(PgError::new(
                        code::UNDEFINED_COLUMN,
                        format!("could not identify column \"{name}\" in record data type"),
                    )
                    .at(loc(location)))
                }
                None => {
                    return Err(PgError::new(
                        code::WRONG_OBJECT_TYPE,
                        format!(
                        "column notation .{name} applied to type {}, which is not a composite type",
                        t.name()
                    ),
                    )
                    .at(loc(location)))
                }
            },
        };
        let Some(idx) = fields.iter().position(|(n, _, _)| n == name) else {
            if t == Type::RECORD {
                return Err(PgError::new(
                    code::UNDEFINED_COLUMN,
                    format!("could not identify column \"{name}\" in record data type"),
                )
                .at(loc(location)));
            }
            return Err(PgError::new(
                code::UNDEFINED_COLUMN,
                format!("column \"{name}\" not found in data type {}", t.name()),
            )
            .at(loc(location)));
        };
        let (fty, fmod) = fields[idx].1.base();
        let fmod = if fields[idx].2 >= 0 {
            fields[idx].2
        } else {
            fmod
        };
        if let Expr::Row(items) = &e {
            if items.len() == fields.len() {
                return Ok((items[idx].clone(), fty, fmod));
            }
        }
        let e = Expr::Func {
            f: field_select,
            args: vec![e, Expr::Const(Value::Int4(idx as i32))],
            strict: true,
        };
        Ok((e, fty, fmod))
    }

    /// The field names of `(arg).*` in a select list (the targets it expands to).
    pub(super) fn star_fields(
        &mut self,
        arg: &protobuf::Node,
        scope: &Scope,
        location: i32,
    ) -> PgResult<Vec<String>> {
        if let Some((_, _, m)) = self.visible_members(arg, scope, None)? {
            return Ok(m.into_iter().map(|(n, _)| n).collect());
        }
        let (_, t) = self.bind(arg.node.as_ref().expect("arg"), scope, None)?;
        match self.composite_fields(t) {
            Some(f) => Ok(f.into_iter().map(|(n, _, _)| n).collect()),
            None if t == Type::RECORD => Err(PgError::new(
                code::FEATURE_NOT_SUPPORTED,
                "record type has not been registered",
            )
            .at(loc(location))),
            None => Err(PgError::new(
                code::WRONG_OBJECT_TYPE,
                format!("type {} is not composite", t.name()),
            )
            .at(loc(location))),
        }
    }

    /// A select list with each `(expr).*` replaced by `(expr).f` for each of its fields; None
    /// when it has none.
    pub(super) fn expand_field_stars(
        &mut self,
        s: &protobuf::SelectStmt,
        scope: &Scope,
    ) -> PgResult<Option<protobuf::SelectStmt>> {
        let is_star = |n: &protobuf::Node| -> bool {
            matches!(&n.node, Some(N::ResTarget(rt)) if matches!(
                rt.val.as_ref().and_then(|v| v.node.as_ref()),
                Some(N::AIndirection(ind)) if ind.indirection.last()
                    .is_some_and(|l| matches!(l.node, Some(N::AStar(_))))
            ))
        };
        if !s.target_list.iter().any(is_star) {
            return Ok(None);
        }
        let mut out = s.clone();
        out.target_list.clear();
        for t in &s.target_list {
            if !is_star(t) {
                out.target_list.push(t.clone());
                continue;
            }
            let Some(N::ResTarget(rt)) = &t.node else {
                continue;
            };
            let Some(N::AIndirection(ind)) = rt.val.as_ref().and_then(|v| v.node.as_ref()) else {
                continue;
            };
            let path = &ind.indirection[..ind.indirection.len() - 1];
            // The row whose fields are listed: the argument with the path before the star.
            let arg = if path.is_empty() {
                ind.arg.as_deref().cloned().unwrap_or_default()
            } else {
                protobuf::Node {
                    node: Some(N::AIndirection(Box::new(protobuf::AIndirection {
                        arg: ind.arg.clone(),
                        indirection: path.to_vec(),
                    }))),
                }
            };
            for name in self.star_fields(&arg, scope, rt.location)? {
                let mut ind2 = (**ind).clone();
                let last = ind2.indirection.len() - 1;
                ind2.indirection[last] = protobuf::Node {
                    node: Some(N::String(protobuf::String { sval: name.clone() })),
                };
                out.target_list.push(protobuf::Node {
                    node: Some(N::ResTarget(Box::new(protobuf::ResTarget {
                        name,
                        indirection: Vec::new(),
                        val: Some(Box::new(protobuf::Node {
                            node: Some(N::AIndirection(Box::new(ind2))),
                        })),
                        location: rt.location,
                    }))),
                });
            }
        }
        Ok(Some(out))
    }
}

/// `field_select(record, index)`: field `index` of a composite value (NULL past its end: a
/// value stored before ALTER TYPE ... ADD ATTRIBUTE).
fn field_select(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    let (Value::Record(fields), Some(i)) = (&a[0], a[1].as_i64()) else {
        return Ok(Value::Null);
    };
    Ok(fields.get(i as usize).cloned().unwrap_or(Value::Null))
}

impl Planner<'_> {
    /// The new value of a composite `base` (of type `ty`, the value of `column` or of a
    /// field or element on its path) when its field `name`, or `rest` below it, is assigned
    /// `value`: `base` with that field replaced, a NULL `base` taken as a row of NULLs, as
    /// PostgreSQL's FieldStore does (`subscript.rs` walks the path).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn assign_field(
        &mut self,
        base: Expr,
        ty: Type,
        column: &str,
        name: &str,
        rest: &[protobuf::Node],
        value: (Expr, Type),
        scope: &Scope,
        location: i32,
    ) -> PgResult<Expr> {
        let Some(fields) = self.composite_fields(ty) else {
            return Err(PgError::new(
                code::DATATYPE_MISMATCH,
                format!(
                    "cannot assign to field \"{name}\" of column \"{column}\" because its type {} is not a composite type",
                    ty.name()
                ),
            )
            .at(loc(location)));
        };
        let Some(idx) = fields.iter().position(|(n, _, _)| n == name) else {
            return Err(PgError::new(
                code::UNDEFINED_COLUMN,
                format!(
                    "cannot assign to field \"{name}\" of column \"{column}\" because there is no such column in data type {}",
                    ty.name()
                ),
            )
            .at(loc(location)));
        };
        let (fty, fmod) = (fields[idx].1, fields[idx].2);
        let inner = Expr::Func {
            f: field_select,
            args: vec![base.clone(), Expr::Const(Value::Int4(idx as i32))],
            strict: true,
        };
        let new = self.assign_path(inner, fty, fmod, name, rest, value, scope, location)?;
        Ok(Expr::Func {
            f: field_store,
            args: vec![
                base,
                Expr::Const(Value::Int4(idx as i32)),
                new,
                Expr::Const(Value::Int4(fields.len() as i32)),
            ],
            strict: false,
        })
    }
}

/// `field_store(record, index, value, width)`: the record with field `index` set (a NULL
/// record is a row of `width` NULLs).
fn field_store(a: &[Value], _: &FormatCtx) -> PgResult<Value> {
    let width = a[3].as_i64().unwrap_or(0).max(0) as usize;
    let mut fields = match &a[0] {
        Value::Record(f) => f.clone(),
        _ => vec![Value::Null; width],
    };
    if fields.len() < width {
        fields.resize(width, Value::Null);
    }
    if let Some(slot) = a[1].as_i64().and_then(|i| fields.get_mut(i as usize)) {
        *slot = a[2].clone();
    }
    Ok(Value::Record(fields))
}
