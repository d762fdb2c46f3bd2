//! What the planner does for sequences and identity columns: `SELECT * FROM seq`, the
//! identity rules of INSERT and UPDATE, and sequence functions' regclass literals read at
//! analysis. The sequences themselves and their functions are in `sql::sequence`.

use crate::error::{code, PgError, PgResult};
use crate::sql::engine::{self, Rel};
use crate::sql::func::SessionFn;
use crate::sql::plan::Expr;
use crate::sql::quote::parse_qualified;
use crate::sql::sequence::schema_known;
use crate::sql::types::{Type, Value};

/// `SELECT * FROM seq`: one row read from the counter when the plan runs (not when it is
/// made: a prepared statement reads the current values).
pub fn scan_plan(rel: &Rel) -> crate::sql::plan::Plan {
    use crate::sql::plan::{Column, Node, Plan};
    let name = Value::Text(format!(
        "{}.{}",
        crate::sql::quote::quote_ident(&rel.name.schema),
        crate::sql::quote::quote_ident(&rel.name.name)
    ));
    let field = |f: SessionFn| Expr::Session {
        f,
        args: vec![Expr::Const(name.clone())],
        arg_types: vec![Type::REGCLASS],
    };
    let columns = [
        ("last_value", Type::INT8),
        ("log_cnt", Type::INT8),
        ("is_called", Type::BOOL),
    ]
    .iter()
    .zip(1i16..)
    .map(|((n, t), attnum)| Column {
        name: n.to_string(),
        ty: *t,
        typmod: -1,
        origin: Some((rel.oid, attnum)),
    })
    .collect();
    Plan {
        columns,
        node: Node::Values(vec![vec![
            field(SessionFn::SeqLastValue),
            field(SessionFn::SeqLogCnt),
            field(SessionFn::SeqIsCalled),
        ]]),
    }
}

fn generated_always(name: &str) -> String {
    format!("Column \"{name}\" is an identity column defined as GENERATED ALWAYS.")
}

/// INSERT into identity columns (PostgreSQL's rewriteTargetListIA): a value for a GENERATED
/// ALWAYS column needs OVERRIDING SYSTEM VALUE (428C9 otherwise); OVERRIDING USER VALUE makes
/// every identity column take its sequence's next value instead of the one given. `input`
/// produces full table rows; `defaults` are the columns' bound defaults.
pub fn apply_identity(
    rel: &Rel,
    targets: &[usize],
    s: &pg_query::protobuf::InsertStmt,
    mut input: crate::sql::plan::Plan,
    defaults: &[Option<crate::sql::plan::Expr>],
) -> PgResult<crate::sql::plan::Plan> {
    use crate::sql::plan::Node;
    use pg_query::protobuf::{node::Node as N, OverridingKind};
    let over = s.r#override;
    let user = over == OverridingKind::OverridingUserValue as i32;
    let system = over == OverridingKind::OverridingSystemValue as i32;
    let values = match s.select_stmt.as_ref().and_then(|n| n.node.as_ref()) {
        Some(N::SelectStmt(sel)) if !sel.values_lists.is_empty() => Some(&sel.values_lists),
        _ => None,
    };
    for (k, &col) in targets.iter().enumerate() {
        let c = &rel.columns[col];
        // Every row must say DEFAULT there (a SELECT never does).
        let all_default = || {
            values.is_some_and(|rows| {
                rows.iter().all(|r| match r.node.as_ref() {
                    Some(N::List(l)) => l
                        .items
                        .get(k)
                        .is_none_or(|i| matches!(i.node, Some(N::SetToDefault(_)))),
                    _ => true,
                })
            }) || s.select_stmt.is_none()
        };
        // A generated column takes nothing but DEFAULT, whatever OVERRIDING says.
        if c.generated && !all_default() {
            return Err(PgError::new(
                code::GENERATED_ALWAYS,
                format!(
                    "cannot insert a non-DEFAULT value into column \"{}\"",
                    c.name
                ),
            )
            .with_detail(generated_column(&c.name)));
        }
        let Some(kind) = c.identity else {
            continue;
        };
        if kind == 'a' && !system && !user && !all_default() {
            return Err(PgError::new(
                code::GENERATED_ALWAYS,
                format!(
                    "cannot insert a non-DEFAULT value into column \"{}\"",
                    c.name
                ),
            )
            .with_detail(generated_always(&c.name))
            .with_hint("Use OVERRIDING SYSTEM VALUE to override."));
        }
        if user {
            let Some(d) = defaults.get(col).cloned().flatten() else {
                continue;
            };
            match &mut input.node {
                Node::Values(rows) => rows.iter_mut().for_each(|r| r[col] = d.clone()),
                Node::Project { exprs, .. } => exprs[col] = d,
                _ => {}
            }
        }
    }
    Ok(input)
}

fn generated_column(name: &str) -> String {
    format!("Column \"{name}\" is a generated column.")
}

/// UPDATE ... SET of a GENERATED ALWAYS identity column, or of a generated column, to
/// anything but DEFAULT: 428C9.
pub fn check_identity_update(rel: &Rel, col: usize) -> PgResult<()> {
    let c = &rel.columns[col];
    if c.generated {
        return Err(PgError::new(
            code::GENERATED_ALWAYS,
            format!("column \"{}\" can only be updated to DEFAULT", c.name),
        )
        .with_detail(generated_column(&c.name)));
    }
    if c.identity == Some('a') {
        return Err(PgError::new(
            code::GENERATED_ALWAYS,
            format!("column \"{}\" can only be updated to DEFAULT", c.name),
        )
        .with_detail(generated_always(&c.name)));
    }
    Ok(())
}

/// A sequence function's first argument written as a string literal is read as regclass when
/// the statement is analyzed, as PostgreSQL's parser does: an unknown name fails then, with the
/// literal's position.
pub fn check_regclass_literal(
    tables: Option<&crate::sql::plan::modify::TableCx<'_>>,
    f: SessionFn,
    arg: &pg_query::protobuf::Node,
) -> PgResult<()> {
    use pg_query::protobuf::{a_const::Val, node::Node as N};
    if !matches!(
        f,
        SessionFn::Nextval | SessionFn::Currval | SessionFn::Setval
    ) {
        return Ok(());
    }
    let (Some(cx), Some(N::AConst(c))) = (tables, arg.node.as_ref()) else {
        return Ok(());
    };
    let Some(Val::Sval(text)) = &c.val else {
        return Ok(());
    };
    let at = (c.location >= 0).then(|| c.location as u32 + 1);
    let parts = parse_qualified(&text.sval).map_err(|e| e.at(at))?;
    let (schema, name) = match parts.as_slice() {
        [n] => ("", n.as_str()),
        [s, n] => (s.as_str(), n.as_str()),
        _ => return Ok(()),
    };
    if !schema_known(cx.catalog, &cx.snap, cx.database, schema) {
        return Err(PgError::new(
            code::INVALID_SCHEMA_NAME,
            format!("schema \"{schema}\" does not exist"),
        )
        .at(at));
    }
    let found = engine::find_rel(
        cx.catalog,
        &cx.snap,
        cx.database,
        engine::search_schemas(&cx.search_path),
        schema,
        name,
    );
    // The plan depends on the schema either way: a later CREATE SEQUENCE makes it valid.
    cx.used.set(true);
    if found.is_none() {
        let full = if schema.is_empty() {
            name.to_string()
        } else {
            format!("{schema}.{name}")
        };
        return Err(PgError::new(
            code::UNDEFINED_TABLE,
            format!("relation \"{full}\" does not exist"),
        )
        .at(at));
    }
    Ok(())
}
