//! pg_get_viewdef: a view's query printed as PostgreSQL 15's ruleutils.c prints it in its
//! pretty form (what psql's `\d+ view` shows under "View definition:").
//!
//! threadgres keeps a view's query as the SQL text it was written with (`engine::ViewDef`);
//! PostgreSQL prints its analyzed tree. So the text is parsed again and printed with
//! ruleutils' layout: the target list one item per line (`AS name` where the output name is
//! not the column's own), every column qualified by its relation's name in the query (in
//! PostgreSQL 15 a view's range table holds OLD and NEW too, so a column is always qualified),
//! `*` expanded, FROM items as ruleutils indents them, and the expressions typed and printed by
//! the parent module's model (implicit conversions shown, IN as `= ANY (ARRAY[...])`).
//!
//! The SELECTs modelled: one query level over tables and views (comma lists and JOIN ... ON),
//! with WHERE, GROUP BY, HAVING, DISTINCT, ORDER BY, LIMIT and OFFSET. An expression outside
//! the model is printed as written (pg_query's deparser), and a query outside it (set
//! operations, WITH, subqueries in FROM) as its text: a difference in spelling from
//! PostgreSQL, never in meaning. The non-pretty form (`pg_get_viewdef(v)`), which adds
//! parentheses, is printed the same way as the pretty one.

use pg_query::protobuf::{self, node::Node as N};

use super::{coerce, names, print, ColInfo, Typer, Unsupported, R, T};
use crate::catalog::RelKind;
use crate::sql::context::SessionCtx;
use crate::sql::engine::{self, Rel};
use crate::sql::quote::quote_ident;
use crate::sql::types::Type;
use crate::sync::Arc;

/// ruleutils' indentation steps (PRETTYINDENT_STD, PRETTYINDENT_JOIN); a clause keyword is
/// indented by STD less its own length, a JOIN by JOIN and one more.
const STD: usize = 8;
const JOIN: usize = 4;

/// The definition of `view` (a view or materialized view), or None where it is neither.
pub fn view_definition(s: &mut dyn SessionCtx, view: &Rel) -> Option<String> {
    if !matches!(view.kind, RelKind::View | RelKind::MatView) {
        return None;
    }
    let def = crate::sql::engine::view_def(view)?;
    let printed = crate::sql::parser::parse_node(&def.query)
        .ok()
        .and_then(|stmt| {
            let N::SelectStmt(sel) = &stmt else {
                return None;
            };
            Printer::new(s, &def.search_path).query(sel, view).ok()
        });
    Some(printed.unwrap_or_else(|| format!(" {};", def.query.trim().trim_end_matches(';'))))
}

/// One relation of the query's FROM clause.
struct FromRel {
    /// The name the query gives it (its alias, or its name).
    name: String,
    rel: Arc<Rel>,
}

struct Printer<'s> {
    s: &'s mut dyn SessionCtx,
    /// Where the view's unqualified names were resolved when it was made.
    search_path: Vec<String>,
    rels: Vec<FromRel>,
}

impl<'s> Printer<'s> {
    /// The relations planned so far, each with its live columns, for a [`Typer`].
    fn rel_columns(&self) -> Vec<(String, Vec<ColInfo<'_>>)> {
        self.rels
            .iter()
            .map(|r| {
                (
                    r.name.clone(),
                    r.rel
                        .live_columns()
                        .map(|(_, c)| (c.name.as_str(), Type(c.type_oid), c.typmod))
                        .collect(),
                )
            })
            .collect()
    }

    fn new(s: &'s mut dyn SessionCtx, search_path: &str) -> Printer<'s> {
        Printer {
            s,
            search_path: engine::search_schemas(search_path)
                .map(str::to_string)
                .collect(),
            rels: Vec::new(),
        }
    }

    fn query(&mut self, sel: &protobuf::SelectStmt, view: &Rel) -> R<String> {
        if sel.with_clause.is_some()
            || sel.op != protobuf::SetOperation::SetopNone as i32
            || !sel.values_lists.is_empty()
            || !sel.window_clause.is_empty()
            || !sel.locking_clause.is_empty()
            || sel.into_clause.is_some()
        {
            return Err(Unsupported);
        }
        // FROM first: it gives the names the expressions refer to.
        let mut from = Vec::new();
        for item in &sel.from_clause {
            from.push(self.print_from_item(item.node.as_ref().ok_or(Unsupported)?)?);
        }
        let cols = self.rel_columns();
        let typer = Typer {
            cols: &[],
            rels: &cols,
        };
        // The target list, `*` expanded; the view's column names are the output names.
        let mut targets: Vec<(String, Option<&str>)> = Vec::new();
        for t in &sel.target_list {
            let Some(N::ResTarget(rt)) = t.node.as_ref() else {
                return Err(Unsupported);
            };
            let val = rt
                .val
                .as_ref()
                .and_then(|v| v.node.as_ref())
                .ok_or(Unsupported)?;
            if let N::ColumnRef(cr) = val {
                if matches!(
                    cr.fields.last().and_then(|f| f.node.as_ref()),
                    Some(N::AStar(_))
                ) {
                    let qual = names(&cr.fields).first().cloned();
                    for (rname, rcols) in &cols {
                        if qual.as_ref().is_some_and(|q| q != rname) {
                            continue;
                        }
                        for (c, _, _) in rcols {
                            targets.push((
                                format!("{}.{}", quote_ident(rname), quote_ident(c)),
                                Some(c),
                            ));
                        }
                    }
                    continue;
                }
            }
            let (text, var) = expr_text(&typer, val, Type::TEXT)?;
            targets.push((text, var));
        }
        let out_names: Vec<&str> = view.live_columns().map(|(_, c)| c.name.as_str()).collect();
        if out_names.len() != targets.len() {
            return Err(Unsupported);
        }
        let mut out = String::from(" SELECT ");
        if !sel.distinct_clause.is_empty() {
            if sel.distinct_clause.iter().any(|d| d.node.is_some()) {
                return Err(Unsupported); // DISTINCT ON
            }
            out.push_str("DISTINCT ");
        }
        for (i, ((text, var), name)) in targets.iter().zip(&out_names).enumerate() {
            if i > 0 {
                out.push_str(",\n    ");
            }
            out.push_str(text);
            if *var != Some(*name) {
                out.push_str(" AS ");
                out.push_str(&quote_ident(name));
            }
        }
        if !from.is_empty() {
            out.push_str(&format!("\n{:w$}FROM ", "", w = STD - 5));
            out.push_str(&from.join(",\n    "));
        }
        if let Some(w) = sel.where_clause.as_ref().and_then(|n| n.node.as_ref()) {
            out.push_str("\n  WHERE ");
            out.push_str(&expr_text(&typer, w, Type::BOOL)?.0);
        }
        if !sel.group_clause.is_empty() {
            let mut items = Vec::new();
            for g in &sel.group_clause {
                let n = g.node.as_ref().ok_or(Unsupported)?;
                items.push(output_ref(&typer, n, &targets, &out_names)?);
            }
            out.push_str("\n  GROUP BY ");
            out.push_str(&items.join(", "));
        }
        if let Some(h) = sel.having_clause.as_ref().and_then(|n| n.node.as_ref()) {
            out.push_str("\n HAVING ");
            out.push_str(&expr_text(&typer, h, Type::BOOL)?.0);
        }
        if !sel.sort_clause.is_empty() {
            let mut items = Vec::new();
            for sb in &sel.sort_clause {
                let Some(N::SortBy(sb)) = sb.node.as_ref() else {
                    return Err(Unsupported);
                };
                let n = sb
                    .node
                    .as_ref()
                    .and_then(|n| n.node.as_ref())
                    .ok_or(Unsupported)?;
                let mut item = output_ref(&typer, n, &targets, &out_names)?;
                use protobuf::{SortByDir as D, SortByNulls as Nl};
                let desc = sb.sortby_dir == D::SortbyDesc as i32;
                if sb.sortby_dir == D::SortbyUsing as i32 {
                    return Err(Unsupported);
                }
                if desc {
                    item.push_str(" DESC");
                }
                // NULLS FIRST is the default of DESC, NULLS LAST of ASC: printed otherwise.
                match sb.sortby_nulls {
                    x if x == Nl::SortbyNullsFirst as i32 && !desc => item.push_str(" NULLS FIRST"),
                    x if x == Nl::SortbyNullsLast as i32 && desc => item.push_str(" NULLS LAST"),
                    _ => {}
                }
                items.push(item);
            }
            out.push_str("\n  ORDER BY ");
            out.push_str(&items.join(", "));
        }
        if let Some(o) = sel.limit_offset.as_ref().and_then(|n| n.node.as_ref()) {
            out.push_str("\n OFFSET ");
            out.push_str(&expr_text(&typer, o, Type::INT8)?.0);
        }
        if let Some(l) = sel.limit_count.as_ref().and_then(|n| n.node.as_ref()) {
            if !matches!(l, N::AConst(c) if c.isnull) {
                out.push_str("\n LIMIT ");
                out.push_str(&expr_text(&typer, l, Type::INT8)?.0);
            }
        }
        out.push(';');
        Ok(out)
    }

    /// One FROM item as ruleutils prints it.
    fn print_from_item(&mut self, n: &N) -> R<String> {
        match n {
            N::RangeVar(rv) => {
                let snap = self.s.catalog_snapshot().map_err(|_| Unsupported)?;
                let rel = engine::find_rel(
                    &self.s.instance().catalog,
                    &snap,
                    self.s.database(),
                    self.search_path.iter().map(String::as_str),
                    &rv.schemaname,
                    &rv.relname,
                )
                .ok_or(Unsupported)?;
                if !matches!(rel.kind, RelKind::Table | RelKind::View | RelKind::MatView) {
                    return Err(Unsupported);
                }
                let alias = rv.alias.as_ref().map(|a| a.aliasname.clone());
                if rv.alias.as_ref().is_some_and(|a| !a.colnames.is_empty()) {
                    return Err(Unsupported);
                }
                let mut text = self.relation_name(&rel);
                if let Some(a) = &alias {
                    text.push(' ');
                    text.push_str(&quote_ident(a));
                }
                self.rels.push(FromRel {
                    name: alias.unwrap_or_else(|| rel.name.name.clone()),
                    rel,
                });
                Ok(text)
            }
            N::JoinExpr(j) => {
                if j.is_natural || !j.using_clause.is_empty() || j.alias.is_some() {
                    return Err(Unsupported);
                }
                let l = j
                    .larg
                    .as_ref()
                    .and_then(|n| n.node.as_ref())
                    .ok_or(Unsupported)?;
                let r = j
                    .rarg
                    .as_ref()
                    .and_then(|n| n.node.as_ref())
                    .ok_or(Unsupported)?;
                let left = self.print_from_item(l)?;
                let right = self.print_from_item(r)?;
                let right = if matches!(r, N::JoinExpr(_)) {
                    format!("({right})")
                } else {
                    right
                };
                use protobuf::JoinType as J;
                let kind = match j.jointype {
                    x if x == J::JoinInner as i32 => {
                        if j.quals.is_none() {
                            "CROSS JOIN"
                        } else {
                            "JOIN"
                        }
                    }
                    x if x == J::JoinLeft as i32 => "LEFT JOIN",
                    x if x == J::JoinRight as i32 => "RIGHT JOIN",
                    x if x == J::JoinFull as i32 => "FULL JOIN",
                    _ => return Err(Unsupported),
                };
                let mut text = format!("{left}\n{:w$}{kind} {right}", "", w = JOIN + 1);
                if let Some(q) = j.quals.as_ref().and_then(|n| n.node.as_ref()) {
                    // The ON condition sees the relations planned so far.
                    let cols = self.rel_columns();
                    let typer = Typer {
                        cols: &[],
                        rels: &cols,
                    };
                    text.push_str(" ON ");
                    text.push_str(&expr_text(&typer, q, Type::BOOL)?.0);
                }
                Ok(text)
            }
            _ => Err(Unsupported),
        }
    }

    /// A relation's name as ruleutils writes it: qualified unless the session's search_path
    /// finds it by its name alone.
    fn relation_name(&mut self, rel: &Rel) -> String {
        let name = quote_ident(&rel.name.name);
        let Ok(snap) = self.s.catalog_snapshot() else {
            return name;
        };
        let path = self.s.search_path();
        let found = engine::find_rel(
            &self.s.instance().catalog,
            &snap,
            self.s.database(),
            path.iter().map(String::as_str),
            "",
            &rel.name.name,
        );
        if found.is_some_and(|r| r.oid == rel.oid) {
            name
        } else {
            format!("{}.{name}", quote_ident(&rel.name.schema))
        }
    }
}

/// An expression printed as ruleutils prints it (`want`: the type an unknown literal takes,
/// or that the context converts to), with the column it is when it is a plain column
/// reference; as written where the model does not reach.
fn expr_text<'t>(typer: &Typer<'t>, n: &N, want: Type) -> R<(String, Option<&'t str>)> {
    match typer.expr(n) {
        Ok(t) => {
            let var = match &t {
                T::Var { name, .. } => typer
                    .rels
                    .iter()
                    .flat_map(|(_, c)| c.iter())
                    .find(|c| c.0 == name)
                    .map(|c| c.0),
                _ => None,
            };
            let t = match (&t, want) {
                // Only a literal takes the context's type; other expressions keep theirs.
                (T::Const { ty, .. }, _) if *ty == Type::UNKNOWN => coerce(t, want),
                (_, Type::BOOL) => coerce(t, Type::BOOL),
                _ => t,
            };
            Ok((print(&t, false), var))
        }
        Err(Unsupported) => crate::sql::parser::deparse_expr(n)
            .map(|s| (s, None))
            .map_err(|_| Unsupported),
    }
}

/// A GROUP BY or ORDER BY item: an output column by position or name prints as that target's
/// expression; anything else as an expression over the FROM clause.
fn output_ref(
    typer: &Typer<'_>,
    n: &N,
    targets: &[(String, Option<&str>)],
    out_names: &[&str],
) -> R<String> {
    match n {
        N::AConst(c) => {
            if let Some(protobuf::a_const::Val::Ival(i)) = &c.val {
                let i = usize::try_from(i.ival).map_err(|_| Unsupported)?;
                return targets
                    .get(i.wrapping_sub(1))
                    .map(|t| t.0.clone())
                    .ok_or(Unsupported);
            }
        }
        // A FROM column wins over an output name in GROUP BY; ORDER BY prefers the output
        // name, which is the same column in the common case.
        N::ColumnRef(cr) if cr.fields.len() == 1 && typer.expr(n).is_err() => {
            let name = names(&cr.fields).pop().unwrap_or_default();
            if let Some(i) = out_names.iter().position(|o| *o == name) {
                return Ok(targets[i].0.clone());
            }
        }
        _ => {}
    }
    expr_text(typer, n, Type::TEXT).map(|(s, _)| s)
}

impl Typer<'_> {
    /// A column reference among a view's relations: `name` (the one relation that has it) or
    /// `rel.name`.
    pub(super) fn qualified_var(&self, ns: &[String]) -> R<T> {
        let (rel, name) = match ns {
            [name] => {
                let mut found = self
                    .rels
                    .iter()
                    .filter(|(_, cols)| cols.iter().any(|c| c.0 == name));
                let (rel, _) = found.next().ok_or(Unsupported)?;
                if found.next().is_some() {
                    return Err(Unsupported); // ambiguous: the view could not have been made
                }
                (rel, name)
            }
            [rel, name] => (
                &self
                    .rels
                    .iter()
                    .find(|(r, _)| r == rel)
                    .ok_or(Unsupported)?
                    .0,
                name,
            ),
            _ => return Err(Unsupported),
        };
        let cols = &self
            .rels
            .iter()
            .find(|(r, _)| r == rel)
            .ok_or(Unsupported)?
            .1;
        let (_, ty, _) = cols.iter().find(|c| c.0 == name).ok_or(Unsupported)?;
        Ok(T::Var {
            qual: Some(rel.clone()),
            name: name.clone(),
            ty: *ty,
        })
    }
}
