//! Types and coercion (PostgreSQL's parse_coerce.c and parse_type.c): converting an expression
//! from one type to another by the cast rules of a context (implicit, assignment, explicit),
//! where unknown literals are read as the target type (their errors pointing at them) and
//! unknown parameters take it; the common type of a set of expressions (`common_type`, as
//! select_common_type); boolean conditions; and type names with their typmods.

use pg_query::protobuf::{self, node::Node as N};

use super::names::node_location;
use super::{loc, names_of, Planner};
use crate::error::{code, PgError, PgResult};
use crate::sql::plan::Expr;
use crate::sql::types::cast::{self, CoercionContext};
use crate::sql::types::{io, Type, Value};

/// The common type of a set of expressions (UNION, CASE, VALUES, COALESCE, ARRAY[]), following
/// PostgreSQL's select_common_type: unknowns defer to the others, within a category the
/// preferred type or the type every other can implicitly convert to wins.
pub fn common_type(types: &[Type], context: &str, location: i32) -> PgResult<Type> {
    let known: Vec<Type> = types
        .iter()
        .copied()
        .filter(|t| *t != Type::UNKNOWN)
        .collect();
    let Some(&first) = known.first() else {
        return Ok(Type::TEXT);
    };
    let mut best = first;
    for &t in &known[1..] {
        if t == best {
            continue;
        }
        if t.category() != best.category() {
            return Err(PgError::new(
                code::DATATYPE_MISMATCH,
                format!(
                    "{} types {} and {} cannot be matched",
                    context,
                    best.name(),
                    t.name()
                ),
            )
            .at(loc(location)));
        }
        // Move to `t` if only it can take the other's values, or if it is the preferred type.
        let only_t_wider = cast::can_coerce(best, t, CoercionContext::Implicit)
            && !cast::can_coerce(t, best, CoercionContext::Implicit);
        let t_preferred = !best.is_preferred()
            && t.is_preferred()
            && cast::can_coerce(best, t, CoercionContext::Implicit);
        if only_t_wider || t_preferred {
            best = t;
        }
    }
    // Text-like mixes (varchar, bpchar, name) resolve to text as PostgreSQL does.
    if best.category() == 'S' && known.iter().any(|t| *t != best) {
        best = Type::TEXT;
    }
    Ok(best)
}

impl Planner<'_> {
    pub(super) fn coerce_bool(&mut self, e: Expr, t: Type, clause: &str, n: &N) -> PgResult<Expr> {
        if t == Type::BOOL {
            return Ok(e);
        }
        if t == Type::UNKNOWN {
            return self.coerce(e, t, Type::BOOL, -1, CoercionContext::Implicit, -1);
        }
        Err(PgError::new(
            code::DATATYPE_MISMATCH,
            format!(
                "argument of {clause} must be type boolean, not type {}",
                t.name()
            ),
        )
        .at(loc(node_location(n))))
    }

    /// Converts `e` of type `from` to `to`. Unknown literals are parsed now (so their errors
    /// point at them); unknown parameters take the target type.
    pub fn coerce(
        &mut self,
        e: Expr,
        from: Type,
        to: Type,
        typmod: i32,
        ctx: CoercionContext,
        location: i32,
    ) -> PgResult<Expr> {
        // A value is held as its domain's base type; a domain target is that conversion and
        // the domain's constraints (`plan/domain.rs`).
        let from = from.base_type();
        if to.0 >= crate::catalog::FIRST_USER_OID && to.base_type() != to {
            return self.coerce_to_domain(e, from, to, ctx, location);
        }
        if from == to && typmod < 0 {
            return Ok(e);
        }
        if let (Expr::Row(items), Type::RECORD) = (&e, from) {
            // A ROW() of the wrong width for a composite type fails here, at the cast.
            if let Some(fields) = self.composite_fields(to) {
                if items.len() != fields.len() {
                    let few = items.len() < fields.len();
                    return Err(PgError::new(
                        code::CANNOT_COERCE,
                        format!("cannot cast type record to {}", to.name()),
                    )
                    .with_detail(format!(
                        "Input has too {} columns.",
                        if few { "few" } else { "many" }
                    ))
                    .at(loc(location)));
                }
            }
        }
        if from == Type::UNKNOWN {
            match e {
                Expr::Const(Value::Text(s)) => {
                    // The literal is read without the typmod (only interval's input needs it),
                    // its errors pointing at it; the typmod is applied as a separate length
                    // coercion, folded like any constant: an explicit cast truncates
                    // (`'abcdef'::varchar(3)`), assignment rejects over-long values, and such
                    // errors come at plan time without a position, as in PostgreSQL.
                    let interval = to == Type::INTERVAL || to.elem() == Some(Type::INTERVAL);
                    let input_mod = if interval { typmod } else { -1 };
                    let at = self
                        .state
                        .lit_locs
                        .get(&(s.as_ptr() as usize))
                        .copied()
                        .filter(|_| !s.is_empty())
                        .unwrap_or(location);
                    if to == Type::REGCLASS {
                        if let Some(e) = self.regclass_literal(&s, at)? {
                            return Ok(e);
                        }
                    }
                    if to == Type::REGPROC {
                        if let Some(e) = self.regproc_literal(&s, at)? {
                            return Ok(e);
                        }
                    }
                    if to == Type::REGROLE {
                        if let Some(e) = self.regrole_literal(&s, at)? {
                            return Ok(e);
                        }
                    }
                    let v = io::from_text(&s, to, input_mod, self.fmt)
                        .map_err(|err| err.at(loc(at)))?;
                    if typmod < 0 || interval {
                        return Ok(Expr::Const(v));
                    }
                    let explicit = ctx == CoercionContext::Explicit;
                    let r = cast::apply_typmod(v.clone(), to, typmod, explicit);
                    return Ok(match self.fold(r)? {
                        Some(v) => Expr::Const(v),
                        None => Expr::Cast {
                            explicit,
                            expr: Box::new(Expr::Const(v)),
                            from: to,
                            to,
                            typmod,
                        },
                    });
                }
                Expr::Const(Value::Null) => return Ok(Expr::Const(Value::Null)),
                Expr::Param(i) => {
                    if self.params[i] == Type::UNKNOWN {
                        self.params[i] = to;
                        if typmod >= 0 {
                            return Ok(Expr::Cast {
                                explicit: ctx == CoercionContext::Explicit,
                                expr: Box::new(Expr::Param(i)),
                                from: to,
                                to,
                                typmod,
                            });
                        }
                        return Ok(Expr::Param(i));
                    }
                    let pt = self.params[i];
                    return self.coerce(Expr::Param(i), pt, to, typmod, ctx, location);
                }
                other => {
                    return Ok(Expr::Cast {
                        explicit: false,
                        expr: Box::new(other),
                        from: Type::TEXT,
                        to,
                        typmod,
                    })
                }
            }
        }
        if from == to && typmod >= 0 && !e.is_const() {
            return Ok(Expr::Cast {
                explicit: ctx == CoercionContext::Explicit,
                expr: Box::new(e),
                from,
                to,
                typmod,
            });
        }
        if !cast::can_coerce(from, to, ctx) {
            let msg = match ctx {
                CoercionContext::Explicit => {
                    format!("cannot cast type {} to {}", from.name(), to.name())
                }
                _ => format!("cannot cast type {} to {}", from.name(), to.name()),
            };
            return Err(PgError::new(code::CANNOT_COERCE, msg).at(loc(location)));
        }
        if ctx == CoercionContext::Explicit
            && to == Type::REGCLASS
            && matches!(from, Type::OID | Type::INT4 | Type::INT8)
        {
            return Ok(super::regclass::regclass_of_oid_expr(e, from));
        }
        if let Some(e) = self.regrole_cast(&e, from, to, ctx)? {
            return self.coerce(e.0, e.1, to, typmod, ctx, location);
        }
        if from == Type::REGCLASS && to == Type::OID {
            if let Expr::Const(Value::Text(t)) = &e {
                if let Some(oid) = self.regclass_const_oid(t)? {
                    return Ok(oid);
                }
            }
        }
        if from == Type::REGCLASS && to == Type::OID && !e.is_const() {
            return Ok(super::regclass::oid_of_regclass_expr(e));
        }
        if let Expr::Const(v) = &e {
            // Fold casts of constants so that errors surface at plan time with a position.
            let v = if ctx == CoercionContext::Explicit {
                cast::cast_explicit(v.clone(), from, to, typmod, self.fmt)
            } else {
                cast::cast(v.clone(), from, to, typmod, self.fmt)
            };
            // PostgreSQL folds constant casts while planning: errors come before any result.
            if let Some(v) = self.fold(v)? {
                return Ok(Expr::Const(v));
            }
        }
        Ok(Expr::Cast {
            explicit: ctx == CoercionContext::Explicit,
            expr: Box::new(e),
            from,
            to,
            typmod,
        })
    }

    pub fn resolve_type_name(&self, tn: &protobuf::TypeName) -> PgResult<(Type, i32)> {
        let names = names_of(&tn.names);
        if let Some(t) = self.user_type(&names) {
            let mut ty = t;
            if !tn.array_bounds.is_empty() {
                ty = ty.array().unwrap_or(ty);
            }
            return Ok((ty, -1));
        }
        // Built-in types live in pg_catalog; another schema either does not exist or has
        // none.
        if let [schema, name] = names.as_slice() {
            let user_schema = self
                .tables
                .as_ref()
                .is_some_and(|t| t.schema_exists(schema));
            if user_schema && schema != "pg_catalog" {
                let mut shown = names.join(".");
                if !tn.array_bounds.is_empty() {
                    shown.push_str("[]");
                }
                let _ = name;
                return Err(PgError::new(
                    code::UNDEFINED_OBJECT,
                    format!("type \"{shown}\" does not exist"),
                )
                .at(loc(tn.location)));
            }
            if schema != "pg_catalog" && schema != "public" && schema != "information_schema" {
                return Err(PgError::new(
                    code::INVALID_SCHEMA_NAME,
                    format!("schema \"{schema}\" does not exist"),
                )
                .at(loc(tn.location)));
            }
        }
        let name = names.last().cloned().unwrap_or_default();
        let mut ty = Type::from_name(&name)
            .filter(|_| names.len() == 1 || names[0] == "pg_catalog")
            .ok_or_else(|| {
                let mut shown = names.join(".");
                if !tn.array_bounds.is_empty() {
                    shown.push_str("[]");
                }
                PgError::new(
                    code::UNDEFINED_OBJECT,
                    format!("type \"{shown}\" does not exist"),
                )
                .at(loc(tn.location))
            })?;
        let mods = typmod_args(ty, tn)?;
        let mut typmod = if mods.is_empty() {
            -1
        } else {
            cast::typmod_of(ty, &mods).map_err(|e| e.at(loc(tn.location)))?
        };
        // char without length is char(1).
        if ty == Type::BPCHAR && mods.is_empty() && name == "bpchar" {
            typmod = -1;
        } else if ty == Type::BPCHAR && mods.is_empty() {
            typmod = cast::typmod_of(ty, &[1]).unwrap_or(-1);
        }
        if !tn.array_bounds.is_empty() {
            ty = ty.array().ok_or_else(|| {
                PgError::new(
                    code::UNDEFINED_OBJECT,
                    format!("type \"{name}[]\" does not exist"),
                )
            })?;
            typmod = -1;
        }
        Ok((ty, typmod))
    }

    /// A user-defined type named by `names` (`name`, `schema.name`, `_name` for its array
    /// type); built-in names come first, as pg_catalog is first on every search path.
    pub(super) fn user_type(&self, names: &[String]) -> Option<Type> {
        let tables = self.tables.as_ref()?;
        let (schema, name) = match names {
            [n] if Type::from_name(n).is_none() => ("", n.as_str()),
            [s, n] if s != "pg_catalog" => (s.as_str(), n.as_str()),
            [_, s, n] if s != "pg_catalog" => (s.as_str(), n.as_str()),
            _ => return None,
        };
        if let Some(t) = tables.find_type(schema, name) {
            return Some(Type(t.oid));
        }
        if let Some(t) = tables.find_multirange_type(schema, name) {
            return Some(t);
        }
        // A table's row type has the table's name.
        if let Some(t) = self.table_row_type_named(schema, name) {
            return Some(t);
        }
        let elem = name.strip_prefix('_')?;
        if let Some(t) = tables.find_type(schema, elem) {
            return Some(Type(t.def.array_oid));
        }
        self.table_row_type_named(schema, elem)
            .and_then(|t| t.array())
    }
}

/// The modifiers written after a type name, as PostgreSQL's typenameTypeMod reads them: a type
/// that takes none refuses any (`text(10)`, and sysbench's MySQL-only `KEY xid (id)`, a column
/// `key` of type `xid(id)`), then each must be a constant or a bare identifier, and the
/// type's modifier input reads each as an integer (`numeric('12', 3)` is numeric(12,3),
/// `numeric(1.5)` an invalid integer). Every error points at the type name.
fn typmod_args(ty: Type, tn: &protobuf::TypeName) -> PgResult<Vec<i32>> {
    use protobuf::a_const::Val;
    if tn.typmods.is_empty() {
        return Ok(Vec::new());
    }
    let at = |e: PgError| e.at(loc(tn.location));
    if !cast::takes_typmod(ty) {
        return Err(at(PgError::new(
            code::SYNTAX_ERROR,
            format!("type modifier is not allowed for type \"{}\"", ty.typname()),
        )));
    }
    let mut texts = Vec::with_capacity(tn.typmods.len());
    for m in &tn.typmods {
        let text = match &m.node {
            Some(N::AConst(c)) => match &c.val {
                Some(Val::Ival(i)) => Some(i.ival.to_string()),
                Some(Val::Fval(f)) => Some(f.fval.clone()),
                Some(Val::Sval(s)) => Some(s.sval.clone()),
                _ => None,
            },
            Some(N::ColumnRef(c)) if c.fields.len() == 1 => match &c.fields[0].node {
                Some(N::String(s)) => Some(s.sval.clone()),
                _ => None,
            },
            _ => None,
        };
        texts.push(text.ok_or_else(|| {
            at(PgError::new(
                code::SYNTAX_ERROR,
                "type modifiers must be simple constants or identifiers",
            ))
        })?);
    }
    texts
        .iter()
        .map(|t| {
            crate::sql::types::io::parse_int(t, i32::MIN.into(), i32::MAX.into(), "integer")
                .map(|v| v as i32)
                .map_err(at)
        })
        .collect()
}
