//! Generated columns (`GENERATED ALWAYS AS (expr) STORED`): what a column definition may say
//! about one, and what its expression may be.
//!
//! A generated column is a [`ColumnDef`] with `generated` set and its expression in `default`
//! (PostgreSQL keeps it in pg_attrdef too, with pg_attribute.attgenerated = 's'). The value is
//! computed for every row written, after the row's other values and its BEFORE triggers
//! (`exec::table::complete_row`), from the expression bound over the row
//! (`Planner::bind_generation`); a value given for the column is refused where the statement is
//! planned (428C9), except DEFAULT.
//!
//! The expression is checked when the column is defined (CREATE TABLE, ADD COLUMN), in
//! PostgreSQL's order: what its parser refuses in this clause (subqueries, set-returning
//! functions, aggregates and window calls), the references PostgreSQL's
//! check_nested_generated refuses (another generated column or the column itself, a system
//! column other than tableoid, the whole row), the conversion to the column's type, and last
//! whether every function it calls is immutable (42P17).

use pg_query::protobuf::{self, node::Node as N, ConstrType};

use crate::catalog::ColumnDef;
use crate::error::{code, PgError, PgResult};
use crate::sql::context::SessionCtx;
use crate::sql::parser::deparse_expr;
use crate::sql::plan::{loc, Expr};

use super::NewColumn;

/// What the constraints of one column definition said so far: PostgreSQL's
/// transformColumnDefinition refuses a second generation clause at once and a default or
/// identity beside one at the end. It runs when the statement runs, so the error is kept
/// ([`NewColumn::error`]) rather than returned at analysis: over the extended protocol it
/// answers Execute, not Parse.
#[derive(Default)]
pub struct Seen {
    default: bool,
    identity: bool,
    generated: bool,
    error: Option<PgError>,
}

impl Seen {
    /// Notes constraint `k` of column `column` of table `table`.
    pub fn note(&mut self, k: &protobuf::Constraint, column: &str, table: &str) {
        match ConstrType::try_from(k.contype).unwrap_or(ConstrType::Undefined) {
            ConstrType::ConstrDefault => self.default = true,
            ConstrType::ConstrIdentity => self.identity = true,
            ConstrType::ConstrGenerated => {
                if self.generated && self.error.is_none() {
                    self.error = Some(
                        PgError::syntax(format!(
                            "multiple generation clauses specified for column \"{column}\" of table \"{table}\""
                        ))
                        .at(loc(k.location)),
                    );
                }
                self.generated = true;
            }
            _ => {}
        }
    }

    /// The first error: a second generation clause, else what cannot go together, at the
    /// last constraint (where PostgreSQL's loop over them left off).
    pub fn finish(
        self,
        column: &str,
        table: &str,
        last: Option<&protobuf::Constraint>,
    ) -> Option<PgError> {
        if self.error.is_some() {
            return self.error;
        }
        let with = match (self.generated, self.default, self.identity) {
            (true, true, _) => "default",
            (true, false, true) => "identity",
            _ => return None,
        };
        Some(
            PgError::syntax(format!(
                "both {with} and generation expression specified for column \"{column}\" of table \"{table}\""
            ))
            .at(last.and_then(|k| loc(k.location))),
        )
    }
}

/// Makes `col` a generated column with the expression of constraint `k`.
pub fn take(col: &mut NewColumn, k: &protobuf::Constraint) -> PgResult<()> {
    let e = k
        .raw_expr
        .as_ref()
        .and_then(|e| e.node.as_ref())
        .ok_or_else(|| PgError::syntax("generated column without an expression"))?;
    col.default = Some(deparse_expr(e)?);
    col.generated = true;
    col.written = Some(Box::new(e.clone()));
    Ok(())
}

/// Checks the generation expression of column `pos` of table `table` (whose columns are
/// `columns`, `pos` among them): the errors PostgreSQL gives when the column is defined.
/// `written` is the expression as the statement wrote it, whose errors point into the
/// statement (CREATE TABLE); without it (ALTER TABLE, LIKE) the stored text is checked and the
/// errors have no position, as PostgreSQL's ALTER TABLE reports them.
pub fn check(
    cx: &mut dyn SessionCtx,
    table: &str,
    columns: &[ColumnDef],
    pos: usize,
    written: Option<&N>,
) -> PgResult<()> {
    let Some(text) = columns[pos].default.as_deref() else {
        return Ok(());
    };
    let parsed;
    let n = match written {
        Some(n) => n,
        None => {
            parsed = crate::sql::plan::modify::parse_expr(text)?;
            &parsed
        }
    };
    let keep_position = written.is_some();
    let strip = |mut e: PgError| {
        if !keep_position {
            e.position = None;
        }
        e
    };
    let mutable = check_node(n, table, columns).map_err(strip)?;
    let e =
        super::function::with_planner(cx, None, |p| p.bind_generation(table, 0, columns, pos, n))
            .map_err(strip)?;
    if mutable || calls_mutable(cx, &e)? {
        return Err(PgError::new(
            code::INVALID_OBJECT_DEFINITION,
            "generation expression is not immutable",
        ));
    }
    Ok(())
}

/// The refusals made on the parse tree; Ok(true) when it calls a built-in function that is
/// not immutable (reported after binding, as PostgreSQL checks that last).
fn check_node(n: &N, table: &str, columns: &[ColumnDef]) -> PgResult<bool> {
    let mut err = None;
    let mut mutable = false;
    let at = |l: i32| loc(l);
    crate::sql::exec::index_keys::walk(n, &mut |n| {
        if err.is_some() {
            return;
        }
        match n {
            N::SubLink(l) => {
                err = Some(
                    PgError::new(
                        code::FEATURE_NOT_SUPPORTED,
                        "cannot use subquery in column generation expression",
                    )
                    .at(at(l.location)),
                )
            }
            N::FuncCall(f) => {
                let name = f
                    .funcname
                    .last()
                    .and_then(crate::sql::parser::str_of)
                    .unwrap_or_default()
                    .to_lowercase();
                let procs: Vec<_> = crate::sql::catalog::procs::named(&name).collect();
                if procs.is_empty() || f.over.is_some() {
                    return;
                }
                if procs.iter().all(|p| p.retset) {
                    err = Some(
                        PgError::new(
                            code::FEATURE_NOT_SUPPORTED,
                            "set-returning functions are not allowed in column generation expressions",
                        )
                        .at(at(f.location)),
                    );
                } else if procs.iter().all(|p| p.volatile != 'i') {
                    mutable = true;
                }
            }
            N::ColumnRef(c) => err = column_ref_error(c, table, columns),
            _ => {}
        }
    });
    err.map_or(Ok(mutable), Err)
}

/// A reference the generation expression may not make (check_nested_generated).
fn column_ref_error(
    c: &protobuf::ColumnRef,
    table: &str,
    columns: &[ColumnDef],
) -> Option<PgError> {
    let fields: Vec<Option<&str>> = c
        .fields
        .iter()
        .map(|f| match f.node.as_ref() {
            Some(N::String(s)) => Some(s.sval.as_str()),
            _ => None, // `*`
        })
        .collect();
    let name = match fields.as_slice() {
        [Some(n)] => *n,
        [Some(t), Some(n)] if *t == table => *n,
        [Some(t), None] if *t == table => return Some(whole_row(c.location)),
        _ => return None,
    };
    match columns.iter().find(|col| !col.dropped && col.name == name) {
        Some(col) if col.generated => Some(
            PgError::new(
                code::INVALID_OBJECT_DEFINITION,
                format!("cannot use generated column \"{name}\" in column generation expression"),
            )
            .with_detail("A generated column cannot reference another generated column.")
            .at(loc(c.location)),
        ),
        Some(_) => None,
        None if name == table && fields.len() == 1 => Some(whole_row(c.location)),
        // A system column other than tableoid (which stays the same for the row's life).
        None if super::SYSTEM_COLUMNS.contains(&name) && name != "tableoid" => Some(
            PgError::new(
                code::INVALID_COLUMN_REFERENCE,
                format!("cannot use system column \"{name}\" in column generation expression"),
            )
            .at(loc(c.location)),
        ),
        None => None,
    }
}

fn whole_row(location: i32) -> PgError {
    PgError::new(
        code::INVALID_OBJECT_DEFINITION,
        "cannot use whole-row variable in column generation expression",
    )
    .with_detail("This would cause the generated column to depend on its own value.")
    .at(loc(location))
}

/// Whether the bound expression calls something that is not immutable: a function that
/// reads the session, or a user's function not marked IMMUTABLE.
fn calls_mutable(cx: &mut dyn SessionCtx, e: &Expr) -> PgResult<bool> {
    let snap = cx.catalog_snapshot()?;
    let functions = &cx.instance().catalog.functions;
    Ok(e.any(&mut |x| match x {
        Expr::Session { .. } | Expr::Subquery(..) => true,
        Expr::UserCall(c) => functions
            .by_oid(c.oid, &snap)
            .is_none_or(|f| f.def.volatility != 'i'),
        _ => false,
    }))
}

/// The generated columns of `columns` whose expression reads column `name` (for DROP COLUMN
/// and ALTER COLUMN TYPE, which PostgreSQL finds through pg_depend).
pub fn readers<'a>(columns: &'a [ColumnDef], name: &str) -> Vec<&'a ColumnDef> {
    columns
        .iter()
        .filter(|c| c.generated && !c.dropped)
        .filter(|c| {
            c.default.as_deref().is_some_and(|t| {
                crate::sql::parser::identifiers(t)
                    .iter()
                    .any(|(_, _, n)| n == name)
            })
        })
        .collect()
}
