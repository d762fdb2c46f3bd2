//! PostgreSQL's system information functions over the catalogs, as psql's backslash commands
//! and drivers call them: pg_get_expr, pg_get_indexdef, pg_get_constraintdef,
//! pg_encoding_to_char, pg_size_pretty, pg_relation_size, col_description, shobj_description,
//! pg_has_role, ...
//!
//! They read the live schema through the session's catalog snapshot, so they are evaluated as
//! session functions ([`crate::sql::func::SessionFn::Catalog`]). The stored expressions they
//! print are kept as SQL text; `sql::ruleutils` prints them as PostgreSQL does.

use crate::catalog::roles::Role;
use crate::catalog::{ConstraintKind, IndexDef, IndexItem, RelKind};
use crate::error::{code, PgError, PgResult};
use crate::sql::catalog::{fixed, procs};
use crate::sql::context::{database_relation, database_relations, SessionCtx};
use crate::sql::engine::Rel;
use crate::sql::func::session_fn::CatalogFn;
use crate::sql::privs::{does_not_exist, is_admin_of};
use crate::sql::quote::quote_ident;
use crate::sql::ruleutils;
use crate::sql::types::{Numeric, Type, Value};
use crate::sync::Arc;

fn oid_arg(v: Option<&Value>) -> Option<u32> {
    match v? {
        Value::Oid(o) => Some(*o),
        v => v.as_i64().map(|i| i as u32),
    }
}

/// The relation with this OID in the session's database, as its catalog snapshot sees it.
fn relation(s: &mut dyn SessionCtx, oid: u32) -> Option<Arc<Rel>> {
    database_relation(s, oid).ok().flatten()
}

fn all_relations(s: &mut dyn SessionCtx) -> Vec<Arc<Rel>> {
    database_relations(s).unwrap_or_default()
}

/// The (name, type, typmod) of a table's live columns, for printing its expressions.
fn column_info(rel: &Rel) -> Vec<ruleutils::ColInfo<'_>> {
    rel.live_columns()
        .map(|(_, c)| (c.name.as_str(), Type(c.type_oid), c.typmod))
        .collect()
}

/// What pg_attrdef.adbin holds for a column default: the expression text with the column it
/// belongs to (PostgreSQL keeps a node tree there; only pg_get_expr reads it).
pub fn default_node(attnum: usize, text: &str) -> String {
    format!("{{DEFAULT :attnum {attnum} :expr {text}}}")
}

/// What pg_class.relpartbound holds for a partition: its bound as pg_get_expr prints it.
pub fn partbound_node(shown: &str) -> String {
    format!("{{PARTITIONBOUND :expr {shown}}}")
}

/// What pg_constraint.conbin holds for a CHECK constraint.
pub fn check_node(text: &str) -> String {
    format!("{{CHECK :expr {text}}}")
}

/// What pg_type.typdefaultbin holds for a domain's default (already deparsed).
pub fn domain_default_node(text: &str) -> String {
    format!("{{DOMAINDEFAULT :expr {text}}}")
}

/// pg_get_expr: prints a node made by [`default_node`], [`check_node`] or
/// [`domain_default_node`] (whose relation is pg_type).
fn get_expr(s: &mut dyn SessionCtx, node: &str, relid: u32, pretty: bool) -> Option<String> {
    if let Some(t) = node.strip_prefix("{PARTITIONBOUND :expr ") {
        return t.strip_suffix('}').map(str::to_string);
    }
    if relid == 1247 {
        let text = node.strip_prefix("{DOMAINDEFAULT :expr ")?;
        return text.strip_suffix('}').map(str::to_string);
    }
    let rel = relation(s, relid)?;
    let cols = column_info(&rel);
    let body = node.strip_suffix('}')?;
    if let Some(rest) = body.strip_prefix("{DEFAULT :attnum ") {
        let (num, text) = rest.split_once(" :expr ")?;
        let attnum: usize = num.parse().ok()?;
        let col = rel.columns.get(attnum.checked_sub(1)?)?;
        let ty = Type(col.type_oid);
        return Some(ruleutils::default_expr_in(text, ty, &cols, pretty));
    }
    let text = body.strip_prefix("{CHECK :expr ")?;
    Some(ruleutils::check_expr_in(text, &cols, pretty))
}

fn column_list(rel: &Rel, cols: &[usize]) -> String {
    cols.iter()
        .map(|&c| {
            rel.columns
                .get(c)
                .map_or_else(String::new, |c| quote_ident(&c.name))
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// The schema-qualified name PostgreSQL prints for a relation in a definition.
fn qualified(rel: &Rel) -> String {
    format!(
        "{}.{}",
        quote_ident(&rel.name.schema),
        quote_ident(&rel.name.name)
    )
}

/// pg_get_indexdef(index [, column, pretty]).
fn get_indexdef(s: &mut dyn SessionCtx, oid: u32, column: i64, pretty: bool) -> Option<String> {
    let idx = relation(s, oid)?;
    if idx.kind != RelKind::Index {
        return None;
    }
    let def = idx.indexes.first()?;
    let table = relation(s, idx.table?)?;
    if column > 0 {
        let i = usize::try_from(column - 1).ok()?;
        // The INCLUDE columns are numbered after the key's.
        let name = |c: usize| Some(quote_ident(&table.columns.get(c)?.name));
        return match def.exprs.as_deref() {
            None => name(*def.columns.iter().chain(&def.include).nth(i)?),
            Some(x) if i >= x.items.len() => name(*def.include.get(i - x.items.len())?),
            Some(x) => match x.items.get(i)? {
                IndexItem::Column(c) => Some(quote_ident(&table.columns.get(*c)?.name)),
                IndexItem::Expr(t) => {
                    Some(ruleutils::index_expr_in(t, &column_info(&table), pretty))
                }
            },
        };
    }
    Some(index_definition_in(&idx, def, &table, pretty))
}

/// The key items of index `def` of `table` as pg_get_indexdef prints them (pretty or not): a
/// column's name, an expression (in parentheses unless it looks like a function call).
pub fn index_columns(def: &IndexDef, table: &Rel, pretty: bool) -> Vec<String> {
    let name = |c: usize| {
        table
            .columns
            .get(c)
            .map_or_else(String::new, |c| quote_ident(&c.name))
    };
    match def.exprs.as_deref() {
        None => def
            .columns
            .iter()
            .map(|&c| {
                // A GIN index's class is named where it is not the column type's default.
                match crate::sql::engine::gin::class_of(def) {
                    Some(class) if !class.is_default() => format!("{} {}", name(c), class.name()),
                    _ => name(c),
                }
            })
            .collect(),
        Some(x) => {
            let cols = column_info(table);
            x.items
                .iter()
                .map(|it| match it {
                    IndexItem::Column(c) => name(*c),
                    IndexItem::Expr(t) => ruleutils::index_expr_in(t, &cols, pretty),
                })
                .collect()
        }
    }
}

/// pg_get_indexdef's whole-index form (also pg_indexes.indexdef): `def` is `idx`'s definition,
/// `table` the table it indexes.
pub fn index_definition(idx: &Rel, def: &IndexDef, table: &Rel) -> String {
    index_definition_in(idx, def, table, false)
}

fn index_definition_in(idx: &Rel, def: &IndexDef, table: &Rel, pretty: bool) -> String {
    let mut out = format!(
        "CREATE {}INDEX {} ON {} USING {} ({})",
        if def.unique { "UNIQUE " } else { "" },
        quote_ident(&idx.name.name),
        // The pretty form names the table bare where the search path finds it.
        if pretty && table.name.schema == "public" {
            quote_ident(&table.name.name)
        } else {
            qualified(table)
        },
        if def.hash {
            "hash"
        } else if def.gin.is_some() {
            "gin"
        } else {
            "btree"
        },
        index_columns(def, table, pretty).join(", ")
    );
    if !def.include.is_empty() {
        out.push_str(&format!(" INCLUDE ({})", column_list(table, &def.include)));
    }
    if let Some(p) = def.exprs.as_ref().and_then(|x| x.predicate.as_deref()) {
        let cols = column_info(table);
        out.push_str(" WHERE ");
        out.push_str(&ruleutils::check_expr_in(p, &cols, pretty));
    }
    out
}

/// pg_get_constraintdef(constraint [, pretty]): only a CHECK's expression prints differently
/// in the two forms.
/// A domain's CHECK constraint as pg_get_constraintdef prints it: `CHECK (VALUE > 0)`.
fn domain_constraintdef(s: &mut dyn SessionCtx, oid: u32, pretty: bool) -> Option<String> {
    let snap = s.catalog_snapshot().ok()?;
    let db = s.database().to_string();
    let types = s.instance().catalog.types.visible(Some(&db), &snap);
    types.iter().find_map(|t| {
        let d = t.def.domain.as_ref()?;
        let k = d.checks.iter().find(|k| k.oid == oid)?;
        let (base, typmod) = Type(t.oid).base();
        let cols = [("value", base, typmod)];
        let text = value_keyword(&ruleutils::check_expr_in(&k.expr, &cols, pretty));
        let invalid = if k.validated { "" } else { " NOT VALID" };
        Some(format!("CHECK ({text}){invalid}"))
    })
}

/// `value` written as the keyword VALUE outside quoted literals and identifiers, as
/// ruleutils prints a CoerceToDomainValue.
fn value_keyword(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
    let mut quote: Option<char> = None;
    let mut prev: Option<char> = None;
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        if quote.is_none()
            && rest.starts_with("value")
            && !word(prev)
            && !word(rest[5..].chars().next())
        {
            out.push_str("VALUE");
            prev = Some('e');
            rest = &rest[5..];
            continue;
        }
        match quote {
            Some(q) if c == q => quote = None,
            None if c == '\'' || c == '"' => quote = Some(c),
            _ => {}
        }
        out.push(c);
        prev = Some(c);
        rest = &rest[c.len_utf8()..];
    }
    out
}

fn get_constraintdef(s: &mut dyn SessionCtx, oid: u32, pretty: bool) -> Option<String> {
    if oid >= crate::catalog::FIRST_USER_OID {
        if let Some(d) = domain_constraintdef(s, oid, pretty) {
            return Some(d);
        }
    }
    let rels = all_relations(s);
    // A constraint trigger's constraint: PostgreSQL prints TRIGGER and its timing.
    if let Some(k) = rels
        .iter()
        .flat_map(|r| r.triggers.iter().filter_map(|t| t.constraint))
        .find(|k| k.oid == oid)
    {
        let mut out = "TRIGGER".to_string();
        if k.deferrable {
            out.push_str(" DEFERRABLE");
        }
        if k.initially_deferred {
            out.push_str(" INITIALLY DEFERRED");
        }
        return Some(out);
    }
    let (rel, k) = rels
        .iter()
        .filter(|r| r.kind == RelKind::Table)
        .find_map(|r| r.constraints.iter().find(|k| k.oid == oid).map(|k| (r, k)))?;
    let mut out = match &k.kind {
        ConstraintKind::PrimaryKey { index } | ConstraintKind::Unique { index } => {
            let def = rel.indexes.iter().find(|d| d.oid == *index)?;
            let mut out = format!(
                "{} ({})",
                if matches!(k.kind, ConstraintKind::PrimaryKey { .. }) {
                    "PRIMARY KEY"
                } else {
                    "UNIQUE"
                },
                column_list(rel, &def.columns)
            );
            if !def.include.is_empty() {
                out.push_str(&format!(" INCLUDE ({})", column_list(rel, &def.include)));
            }
            out
        }
        ConstraintKind::Check { expr } => {
            let cols = column_info(rel);
            format!("CHECK ({})", ruleutils::check_expr_in(expr, &cols, pretty))
        }
        ConstraintKind::ForeignKey {
            columns,
            ref_table,
            ref_columns,
            on_update,
            on_delete,
            match_full,
        } => {
            let target = rels.iter().find(|r| r.oid == *ref_table)?;
            // The referenced table is qualified only where the search path would not find it.
            let visible = matches!(
                table_is_visible(s, &[Value::Oid(target.oid)]),
                Value::Bool(true)
            );
            let mut out = format!(
                "FOREIGN KEY ({}) REFERENCES {}({})",
                column_list(rel, columns),
                if visible {
                    quote_ident(&target.name.name)
                } else {
                    qualified(target)
                },
                column_list(target, ref_columns)
            );
            if *match_full {
                out.push_str(" MATCH FULL");
            }
            for (what, action) in [("UPDATE", on_update), ("DELETE", on_delete)] {
                let a = match action {
                    'r' => "RESTRICT",
                    'c' => "CASCADE",
                    'n' => "SET NULL",
                    'd' => "SET DEFAULT",
                    _ => continue,
                };
                out.push_str(&format!(" ON {what} {a}"));
            }
            out
        }
    };
    // The timing clauses follow every kind of constraint, as PostgreSQL prints them.
    if k.deferrable {
        out.push_str(" DEFERRABLE");
    }
    if k.deferred {
        out.push_str(" INITIALLY DEFERRED");
    }
    Some(out)
}

/// pg_size_pretty: bytes below 10 kB, then kB, MB, GB, TB, PB, each rounded half away from
/// zero from one more bit of precision, as PostgreSQL 15 does. Divisions truncate toward
/// zero (not shifts) so that a negative size prints as its positive counterpart.
pub fn size_pretty(size: i128) -> String {
    const LIMIT: i128 = 10 * 1024;
    const LIMIT2: i128 = LIMIT * 2 - 1;
    if size.abs() < LIMIT {
        return format!("{size} bytes");
    }
    let half_rounded = |x: i128| (x + if x < 0 { -1 } else { 1 }) / 2;
    // One extra bit kept for rounding.
    let mut size = size / (1 << 9);
    for unit in ["kB", "MB", "GB", "TB"] {
        if size.abs() < LIMIT2 {
            return format!("{} {unit}", half_rounded(size));
        }
        size /= 1 << 10;
    }
    format!("{} PB", half_rounded(size))
}

/// pg_size_pretty(numeric): below 10 kB the value as it is (`10.5 bytes`); past that the
/// integer steps of [`size_pretty`], in numeric arithmetic where the value is too large for
/// them.
fn size_pretty_numeric(n: &Numeric) -> PgResult<String> {
    if !n.is_finite() {
        return Ok(format!("{n} bytes"));
    }
    if n.abs() < Numeric::from_i64(10 * 1024) {
        return Ok(format!("{n} bytes"));
    }
    if let Ok(i) = n
        .trunc(0)
        .to_int_checked("numeric", i128::MIN / 2, i128::MAX / 2)
    {
        return Ok(size_pretty(i));
    }
    let int = |i: i64| Numeric::from_i64(i);
    let half_rounded = |x: &Numeric| -> PgResult<Numeric> {
        let one = int(if x.is_negative() { -1 } else { 1 });
        x.add(&one)?.div_trunc(&int(2))
    };
    let mut size = n.div_trunc(&int(1 << 9))?;
    for unit in ["kB", "MB", "GB", "TB"] {
        if size.abs() < int(20 * 1024 - 1) {
            return Ok(format!("{} {unit}", half_rounded(&size)?));
        }
        size = size.div_trunc(&int(1 << 10))?;
    }
    Ok(format!("{} PB", half_rounded(&size)?))
}

pub fn call(f: CatalogFn, args: &[Value], s: &mut dyn SessionCtx) -> PgResult<Value> {
    use CatalogFn::*;
    let text = |o: Option<String>| o.map_or(Value::Null, Value::Text);
    Ok(match f {
        EncodingToChar => Value::Text(
            args.first()
                .and_then(Value::as_i64)
                .and_then(|i| crate::encoding::NAMES.get(usize::try_from(i).ok()?))
                .copied()
                .unwrap_or("")
                .to_string(),
        ),
        CharToEncoding => {
            let name = args.first().and_then(Value::as_str).unwrap_or("");
            let norm = |n: &str| n.replace(['_', '-'], "").to_ascii_uppercase();
            Value::Int4(
                crate::encoding::NAMES
                    .iter()
                    .position(|e| norm(e) == norm(name))
                    .map_or(-1, |i| i as i32),
            )
        }
        GetExpr => match (args.first().and_then(Value::as_str), oid_arg(args.get(1))) {
            (Some(node), Some(relid)) => {
                let node = node.to_string();
                let pretty = matches!(args.get(2), Some(Value::Bool(true)));
                text(get_expr(s, &node, relid, pretty))
            }
            _ => Value::Null,
        },
        MyTempSchema => {
            let snap = s.catalog_snapshot()?;
            let own = s.own_temp_schema();
            let ns = own.and_then(|n| {
                s.instance()
                    .catalog
                    .namespaces
                    .lookup(s.database(), &n, &snap)
            });
            Value::Oid(ns.map_or(0, |n| n.oid))
        }
        IsOtherTempSchema => {
            let Some(oid) = oid_arg(args.first()) else {
                return Ok(Value::Null);
            };
            let snap = s.catalog_snapshot()?;
            let own = s.own_temp_schema();
            let db = s.database().to_string();
            let other = s
                .instance()
                .catalog
                .namespaces
                .visible(&db, &snap)
                .into_iter()
                .any(|n| {
                    n.oid == oid
                        && crate::sql::engine::is_temp_schema(&n.name)
                        && own.as_deref() != Some(n.name.as_str())
                });
            Value::Bool(other)
        }
        ViewDef => match oid_arg(args.first()).and_then(|o| relation(s, o)) {
            Some(rel) => text(ruleutils::viewdef::view_definition(s, &rel)),
            None => Value::Null,
        },
        GetIndexDef => match oid_arg(args.first()) {
            Some(oid) => {
                let col = args.get(1).and_then(Value::as_i64).unwrap_or(0);
                let pretty = matches!(args.get(2), Some(Value::Bool(true)));
                text(get_indexdef(s, oid, col, pretty))
            }
            None => Value::Null,
        },
        GetConstraintDef => match oid_arg(args.first()) {
            Some(oid) => {
                let pretty = matches!(args.get(1), Some(Value::Bool(true)));
                text(get_constraintdef(s, oid, pretty))
            }
            None => Value::Null,
        },
        ColDescription => match (oid_arg(args.first()), args.get(1).and_then(Value::as_i64)) {
            (Some(oid), Some(n)) => match i32::try_from(n) {
                Ok(n) => text(crate::sql::func::system::comments::description(
                    s,
                    Some(1259),
                    oid,
                    n,
                )?),
                Err(_) => Value::Null,
            },
            _ => Value::Null,
        },
        StatisticsObjDefColumns => Value::Null,
        PartKeyDef => match oid_arg(args.first()).and_then(|o| relation(s, o)) {
            Some(rel) => text(crate::sql::ruleutils::partition::keydef(&rel)),
            None => Value::Null,
        },
        PartitionConstraintDef => match oid_arg(args.first()).and_then(|o| relation(s, o)) {
            Some(rel) => {
                let parent = rel.partition_of().and_then(|p| relation(s, p.parent));
                text(parent.and_then(|p| crate::sql::ruleutils::partition::constraintdef(&rel, &p)))
            }
            None => Value::Null,
        },
        PartitionRoot => {
            match oid_arg(Some(&oid_of_regclass(s, args)?)).and_then(|o| relation(s, o)) {
                // NULL for a relation in no partition tree, as PostgreSQL's.
                Some(rel) if rel.partition_of().is_some() || rel.partition_key().is_some() => {
                    let above = crate::sql::partition::ancestors(s, &rel)?;
                    let root = above.last().map_or(rel.oid, |a| a.oid);
                    regclass_of_oid(s, &[Value::Oid(root)])
                }
                _ => Value::Null,
            }
        }
        TriggerDef => match oid_arg(args.first()) {
            Some(oid) => {
                let pretty = matches!(args.get(1), Some(Value::Bool(true)));
                text(get_triggerdef(s, oid, pretty)?)
            }
            None => Value::Null,
        },
        RuleDef => match oid_arg(args.first()) {
            Some(oid) => {
                let pretty = matches!(args.get(1), Some(Value::Bool(true)));
                text(get_ruledef(s, oid, pretty))
            }
            None => Value::Null,
        },
        RegclassOfOid => regclass_of_oid(s, args),
        OidOfRegclass => oid_of_regclass(s, args)?,
        RegroleOfOid => regrole_of_oid(s, args),
        OidOfRegrole => oid_of_regrole(s, args)?,
        ToRegrole => to_regrole(s, args)?,
        ShobjDescription => {
            let oid = oid_arg(args.first());
            let class = args.get(1).and_then(Value::as_str).unwrap_or("");
            let name = s
                .instance()
                .database_names()
                .into_iter()
                .find(|(_, o)| Some(*o) == oid)
                .map(|(n, _)| n);
            match (class, name, oid) {
                ("pg_database", Some(n), _) => {
                    text(fixed::database_description(&n).map(str::to_string))
                }
                ("pg_authid", _, Some(o)) => text(crate::sql::func::system::comments::description(
                    s,
                    Some(1260),
                    o,
                    0,
                )?),
                _ => Value::Null,
            }
        }
        RelationSize(what) => relation_size(s, what, args)?,
        DatabaseSize => database_size(s, args.first())?,
        SizePretty => match args.first() {
            Some(Value::Numeric(n)) => Value::Text(size_pretty_numeric(n)?),
            Some(v) => match v.as_i64() {
                Some(i) => Value::Text(size_pretty(i as i128)),
                None => Value::Null,
            },
            None => Value::Null,
        },
        HasRole => has_role(s, args)?,
        AclDefault => super::privs::acldefault(s, args)?,
        FunctionIsVisible => match args.first().and_then(Value::as_i64) {
            Some(oid) => Value::Bool(function_is_visible(s, oid as u32)?),
            None => Value::Null,
        },
        StatisticsObjIsVisible => Value::Bool(true),
        TablespaceLocation => Value::Text(String::new()),
        DatabaseEncoding => Value::Text("UTF8".into()),
        FunctionSqlBody => {
            let Some(o) = oid_arg(args.first()) else {
                return Ok(Value::Null);
            };
            let snap = s.catalog_snapshot()?;
            match s.instance().catalog.functions.by_oid(o, &snap) {
                Some(u) if u.def.sql_body => {
                    Value::Text(format!("BEGIN ATOMIC\n {};\nEND", u.def.body))
                }
                _ => Value::Null,
            }
        }
        FunctionArguments | FunctionResult | FunctionIdentityArguments | FunctionDef => {
            let oid = oid_arg(args.first());
            let Some(p) = oid.and_then(procs::by_oid) else {
                let Some(o) = oid else {
                    return Ok(Value::Null);
                };
                let snap = s.catalog_snapshot()?;
                let Some(u) = s.instance().catalog.functions.by_oid(o, &snap) else {
                    return Ok(Value::Null);
                };
                use crate::sql::ruleutils::function as rf;
                return Ok(match f {
                    FunctionArguments => Value::Text(rf::arguments(&u.def)),
                    FunctionResult => rf::result(&u.def).map_or(Value::Null, Value::Text),
                    FunctionIdentityArguments => Value::Text(rf::identity_arguments(&u.def)),
                    _ => Value::Text(rf::functiondef(&u.def)),
                });
            };
            Value::Text(match f {
                FunctionArguments => p.arguments.clone(),
                FunctionResult => p.result.clone(),
                FunctionIdentityArguments => p.identity.clone(),
                _ => procs::functiondef(p).map_err(|m| PgError::new(code::WRONG_OBJECT_TYPE, m))?,
            })
        }
        RelationIsPublishable => Value::Bool(
            oid_arg(args.first())
                .and_then(|o| relation(s, o))
                .is_some_and(|r| r.kind == RelKind::Table),
        ),
    })
}

/// pg_get_ruledef of rule `oid` (None: no such rule).
fn get_ruledef(s: &mut dyn SessionCtx, oid: u32, pretty: bool) -> Option<String> {
    let rels = all_relations(s);
    let (rel, r) = rels
        .iter()
        .find_map(|x| x.rules.iter().find(|r| r.oid == oid).map(|r| (x, r)))?;
    let path = s.search_path();
    let quote = crate::sql::quote::quote_ident;
    let table = if pretty && path.iter().any(|p| *p == rel.name.schema) {
        quote(&rel.name.name)
    } else {
        format!("{}.{}", quote(&rel.name.schema), quote(&rel.name.name))
    };
    Some(crate::sql::ruleutils::rule::ruledef(r, &table, pretty))
}

/// pg_get_triggerdef of trigger `oid` (None: no such trigger).
fn get_triggerdef(s: &mut dyn SessionCtx, oid: u32, pretty: bool) -> PgResult<Option<String>> {
    let rels = all_relations(s);
    let Some((rel, t)) = rels
        .iter()
        .find_map(|r| r.triggers.iter().find(|t| t.oid == oid).map(|t| (r, t)))
    else {
        return Ok(None);
    };
    let path = s.search_path();
    let on_path = |schema: &str| path.iter().any(|p| p == schema);
    let quote = crate::sql::quote::quote_ident;
    let table = if pretty && on_path(&rel.name.schema) {
        quote(&rel.name.name)
    } else {
        format!("{}.{}", quote(&rel.name.schema), quote(&rel.name.name))
    };
    let snap = s.catalog_snapshot()?;
    let function = match s.instance().catalog.functions.by_oid(t.function, &snap) {
        Some(f) if on_path(&f.def.schema) => quote(&f.def.name),
        Some(f) => format!("{}.{}", quote(&f.def.schema), quote(&f.def.name)),
        None => format!("\"{}\"", t.function),
    };
    let columns: Vec<String> = rel.columns.iter().map(|c| c.name.clone()).collect();
    // A constraint trigger's FROM table, qualified where the search path would not find it.
    let from = t
        .constraint
        .and_then(|k| rels.iter().find(|r| r.oid == k.from_table))
        .map(|r| {
            let visible = matches!(table_is_visible(s, &[Value::Oid(r.oid)]), Value::Bool(true));
            if visible {
                quote(&r.name.name)
            } else {
                format!("{}.{}", quote(&r.name.schema), quote(&r.name.name))
            }
        });
    Ok(Some(crate::sql::ruleutils::trigger::triggerdef(
        t,
        &table,
        &columns,
        &function,
        from.as_deref(),
        pretty,
    )))
}

/// pg_table_is_visible: whether the relation is found by its unqualified name, i.e. its schema
/// is on search_path and no schema before it there has a relation of that name (PostgreSQL's
/// RelationIsVisible). The built-in catalogs are in pg_catalog, which is always searched; an
/// unknown OID gives NULL, as in PostgreSQL.
pub fn table_is_visible(s: &mut dyn SessionCtx, args: &[Value]) -> Value {
    let Some(oid) = oid_arg(args.first()) else {
        return Value::Null;
    };
    let rels = all_relations(s);
    let Some(rel) = rels.iter().find(|r| r.oid == oid) else {
        // A composite type's pg_class row is visible as its type is.
        if let Some(ty) = composite_of_relid(s, oid) {
            return type_is_visible(s, &[Value::Oid(ty)]);
        }
        return if crate::sql::catalog::relation_by_oid(oid).is_some() {
            Value::Bool(true)
        } else {
            Value::Null
        };
    };
    let first = s.search_path().into_iter().find(|schema| {
        rels.iter()
            .any(|r| r.name.schema == *schema && r.name.name == rel.name.name)
    });
    Value::Bool(first.is_some_and(|schema| schema == rel.name.schema))
}

/// The composite type whose pg_class row is `relid`.
fn composite_of_relid(s: &mut dyn SessionCtx, relid: u32) -> Option<u32> {
    let snap = s.catalog_snapshot().ok()?;
    let db = s.database().to_string();
    s.instance()
        .catalog
        .types
        .visible(Some(&db), &snap)
        .into_iter()
        .find(|t| t.def.composite.as_ref().is_some_and(|c| c.relid == relid))
        .map(|t| t.oid)
}

/// pg_type_is_visible: a user-defined type (or its array type) is visible when the first
/// schema of search_path that has a type of its name is its own; other types are built-ins
/// (pg_catalog, always searched first) or row types, shown as visible.
pub fn type_is_visible(s: &mut dyn SessionCtx, args: &[Value]) -> Value {
    let Some(oid) = oid_arg(args.first()) else {
        return Value::Null;
    };
    let Ok(snap) = s.catalog_snapshot() else {
        return Value::Null;
    };
    let Some(t) = s.instance().catalog.types.by_oid(oid, &snap) else {
        return Value::Bool(true);
    };
    let db = s.database().to_string();
    let first = s.search_path().into_iter().find(|schema| {
        s.instance()
            .catalog
            .types
            .named(&db, schema, &t.def.name, &snap)
            .is_some()
    });
    Value::Bool(first.is_some_and(|schema| schema == t.def.schema))
}

/// The regclass value of an OID: a user relation's name as regclassout prints it (quoted where
/// needed, qualified where search_path would not find it); any other OID stays an OID (the
/// built-in catalogs print their names from it, unknown ones their number).
pub(crate) fn regclass_of_oid(s: &mut dyn SessionCtx, args: &[Value]) -> Value {
    let Some(oid) = oid_arg(args.first()) else {
        return Value::Null;
    };
    let Some(rel) = relation(s, oid) else {
        return Value::Oid(oid);
    };
    let name = quote_ident(&rel.name.name);
    Value::Text(match table_is_visible(s, args) {
        Value::Bool(true) => name,
        _ => format!("{}.{name}", quote_ident(&rel.name.schema)),
    })
}

/// The OID of a regclass value: held as an OID already, or by name (a user relation, looked
/// up as regclass input does: through search_path unless qualified).
pub(crate) fn oid_of_regclass(s: &mut dyn SessionCtx, args: &[Value]) -> PgResult<Value> {
    let text = match args.first() {
        Some(Value::Text(t)) => t.clone(),
        Some(Value::Null) | None => return Ok(Value::Null),
        Some(v) => return Ok(oid_arg(Some(v)).map_or(Value::Null, Value::Oid)),
    };
    if let Some(oid) = crate::sql::catalog::regclass_oid(&text) {
        return Ok(Value::Oid(oid));
    }
    if let Ok(oid) = text.trim().parse::<u32>() {
        return Ok(Value::Oid(oid));
    }
    let parts = crate::sql::quote::parse_qualified(&text)?;
    let (schema, name) = match parts.as_slice() {
        [n] => ("", n.as_str()),
        [sch, n] => (sch.as_str(), n.as_str()),
        _ => ("", ""),
    };
    let snap = s.catalog_snapshot()?;
    let path = s.search_path();
    crate::sql::engine::find_rel(
        &s.instance().catalog,
        &snap,
        s.database(),
        path.iter().map(String::as_str),
        schema,
        name,
    )
    .map(|r| Value::Oid(r.oid))
    .ok_or_else(|| {
        PgError::new(
            code::UNDEFINED_TABLE,
            format!("relation \"{}\" does not exist", text.trim()),
        )
    })
}

/// `oid::regrole`: a predefined role (or an OID no role has) stays an OID, which regroleout
/// prints; a role made by CREATE ROLE becomes its name as regroleout prints it.
fn regrole_of_oid(s: &mut dyn SessionCtx, args: &[Value]) -> Value {
    let Some(oid) = oid_arg(args.first()) else {
        return Value::Null;
    };
    if fixed::role_name(oid).is_some() {
        return Value::Oid(oid);
    }
    let Ok(snap) = s.catalog_snapshot() else {
        return Value::Oid(oid);
    };
    match s.instance().catalog.roles.by_oid(oid, &snap) {
        Some(role) => Value::Text(quote_ident(&role.def.name)),
        None => Value::Oid(oid),
    }
}

/// The OID of a regrole value: held as an OID already, or by its role's name (42704 where
/// the role is gone, as PostgreSQL's regrolein would say reading the name again).
pub(crate) fn oid_of_regrole(s: &mut dyn SessionCtx, args: &[Value]) -> PgResult<Value> {
    let text = match args.first() {
        Some(Value::Text(t)) => t.clone(),
        Some(Value::Null) | None => return Ok(Value::Null),
        Some(v) => return Ok(oid_arg(Some(v)).map_or(Value::Null, Value::Oid)),
    };
    let parts = crate::sql::quote::parse_qualified(&text)?;
    let name = parts.first().map_or("", String::as_str);
    let snap = s.catalog_snapshot()?;
    match s.instance().catalog.roles.by_name(name, &snap) {
        Some(role) => Ok(Value::Oid(role.oid)),
        None => Err(PgError::new(
            code::UNDEFINED_OBJECT,
            format!("role \"{name}\" does not exist"),
        )),
    }
}

/// to_regrole: as regrolein (42602 for a name that is not one identifier), with NULL in place
/// of the error for a name no role has.
fn to_regrole(s: &mut dyn SessionCtx, args: &[Value]) -> PgResult<Value> {
    let Some(text) = args.first().and_then(Value::as_str) else {
        return Ok(Value::Null);
    };
    let bad = || PgError::new(code::INVALID_NAME, "invalid name syntax");
    let parts = crate::sql::quote::parse_qualified(text).map_err(|_| bad())?;
    let [name] = parts.as_slice() else {
        return Err(bad());
    };
    let snap = s.catalog_snapshot()?;
    Ok(match s.instance().catalog.roles.by_name(name, &snap) {
        Some(role) if fixed::role_name(role.oid).is_some() => Value::Oid(role.oid),
        Some(_) => Value::Text(quote_ident(name)),
        None => Value::Null,
    })
}

/// pg_get_userbyid: a role's name, or PostgreSQL's placeholder for an unknown OID.
pub fn user_by_id(oid: u32) -> String {
    fixed::role_name(oid).map_or_else(|| format!("unknown (OID={oid})"), str::to_string)
}

/// A role argument of pg_has_role: a name (42704 if there is none) or an OID (None if there is
/// none: the function then returns NULL, as PostgreSQL's _id variants do).
fn role_arg(cx: &mut dyn SessionCtx, v: &Value) -> PgResult<Option<Arc<Role>>> {
    let snap = cx.catalog_snapshot()?;
    let roles = &cx.instance().catalog.roles;
    match v {
        Value::Oid(o) => Ok(roles.by_oid(*o, &snap)),
        Value::Text(name) => roles
            .by_name(name, &snap)
            .map(Some)
            .ok_or_else(|| does_not_exist(name)),
        other => Ok(other.as_i64().and_then(|o| roles.by_oid(o as u32, &snap))),
    }
}

/// pg_has_role([user,] role, privilege): MEMBER (SET ROLE allowed), USAGE (privileges held
/// without SET ROLE), each optionally WITH ADMIN / GRANT OPTION, comma-separated.
pub fn has_role(cx: &mut dyn SessionCtx, args: &[Value]) -> PgResult<Value> {
    if args.iter().any(|a| matches!(a, Value::Null)) {
        return Ok(Value::Null);
    }
    let (user, role, mode) = match args {
        [role, mode] => {
            let me = cx.role_oid();
            (Value::Oid(me), role, mode)
        }
        [user, role, mode] => (user.clone(), role, mode),
        _ => return Ok(Value::Null),
    };
    let mode = match mode {
        Value::Text(t) => t.clone(),
        _ => String::new(),
    };
    let (Some(user), Some(role)) = (role_arg(cx, &user)?, role_arg(cx, role)?) else {
        return Ok(Value::Null);
    };
    let snap = cx.catalog_snapshot()?;
    let mut ok = false;
    for part in mode.split(',') {
        let p = part.trim().to_ascii_lowercase();
        let p = p.split_whitespace().collect::<Vec<_>>().join(" ");
        let roles = &cx.instance().catalog.roles;
        ok |= match p.as_str() {
            "member" => user.def.superuser || roles.is_member(user.oid, role.oid, false, &snap),
            "usage" => user.def.superuser || roles.is_member(user.oid, role.oid, true, &snap),
            "member with admin option"
            | "member with grant option"
            | "usage with admin option"
            | "usage with grant option" => is_admin_of(cx, user.oid, role.oid)?,
            _ => {
                return Err(PgError::new(
                    code::INVALID_PARAMETER_VALUE,
                    format!("unrecognized privilege type: \"{}\"", part.trim()),
                ))
            }
        };
    }
    Ok(Value::Bool(ok))
}

/// pg_relation_size and its kin: rows live in memory, so a size is the memory the relation's
/// row versions (dead ones until vacuum) or index entries take (`engine::heap_bytes`,
/// `engine::index_bytes`); a relation the snapshot does not see is NULL, as in PostgreSQL.
fn relation_size(
    s: &mut dyn SessionCtx,
    what: crate::sql::func::session_fn::SizeOf,
    args: &[Value],
) -> PgResult<Value> {
    use crate::sql::func::session_fn::SizeOf;
    if let Some(fork) = args.get(1).and_then(Value::as_str) {
        match fork {
            "main" => {}
            "fsm" | "vm" | "init" => return Ok(Value::Int8(0)),
            _ => {
                return Err(
                    PgError::new(code::INVALID_PARAMETER_VALUE, "invalid fork name")
                        .with_hint("Valid fork names are \"main\", \"fsm\", \"vm\", and \"init\"."),
                )
            }
        }
    }
    // A regclass argument may still be a name (regclass's input runs here).
    let Some(oid) = oid_arg(Some(&oid_of_regclass(s, &args[..args.len().min(1)])?)) else {
        return Ok(Value::Null);
    };
    let rels = database_relations(s)?;
    if let Some(r) = rels
        .iter()
        .find(|r| r.oid == oid && r.kind != RelKind::Index)
    {
        if !r.kind.has_rows() {
            return Ok(Value::Int8(0));
        }
        let heap = crate::sql::engine::heap_bytes(r);
        let indexes = || -> u64 {
            r.indexes
                .iter()
                .map(|i| crate::sql::engine::index_bytes(r, i.oid))
                .sum()
        };
        return Ok(Value::Int8(match what {
            SizeOf::Relation | SizeOf::Table => heap,
            SizeOf::Indexes => indexes(),
            SizeOf::Total => heap + indexes(),
        } as i64));
    }
    // An index: measured through its table.
    for r in &rels {
        if r.indexes.iter().any(|i| i.oid == oid) {
            return Ok(Value::Int8(match what {
                SizeOf::Relation | SizeOf::Table | SizeOf::Total => {
                    crate::sql::engine::index_bytes(r, oid) as i64
                }
                SizeOf::Indexes => 0,
            }));
        }
    }
    Ok(Value::Null)
}

/// pg_database_size(name): the memory of every table and index of the database;
/// pg_tablespace_size(oid): of every database (there is one tablespace).
fn database_size(s: &mut dyn SessionCtx, arg: Option<&Value>) -> PgResult<Value> {
    let database = match arg {
        None | Some(Value::Null) => return Ok(Value::Null),
        Some(Value::Text(n)) => {
            if !s.instance().database_names().iter().any(|(d, _)| d == n) {
                return Err(PgError::new(
                    code::INVALID_CATALOG_NAME,
                    format!("database \"{n}\" does not exist"),
                ));
            }
            Some(n.clone())
        }
        Some(_) => None,
    };
    let snap = s.catalog_snapshot()?;
    let total: u64 = s
        .instance()
        .catalog
        .visible(&snap)
        .into_iter()
        .filter(|r| r.kind.has_rows())
        .filter(|r| database.as_ref().is_none_or(|d| *d == r.name.database))
        .map(|r| {
            crate::sql::engine::heap_bytes(&r)
                + r.indexes
                    .iter()
                    .map(|i| crate::sql::engine::index_bytes(&r, i.oid))
                    .sum::<u64>()
        })
        .sum();
    Ok(Value::Int8(total as i64))
}

/// pg_function_is_visible: a built-in function is; a created one when its schema is in the
/// search path and no function of the same name and argument types comes before it there
/// (pg_catalog, searched first, holds the built-ins).
fn function_is_visible(s: &mut dyn SessionCtx, oid: u32) -> PgResult<bool> {
    let snap = s.catalog_snapshot()?;
    let db = s.database().to_string();
    let catalog = &s.instance().catalog;
    let Some(f) = catalog.functions.by_oid(oid, &snap) else {
        return Ok(true);
    };
    let inputs: Vec<Type> = f.def.input_types().into_iter().map(Type).collect();
    let builtin = crate::sql::func::lookup(&f.def.name)
        .iter()
        .any(|sig| !sig.variadic && sig.args == inputs.as_slice());
    if builtin {
        return Ok(false);
    }
    for schema in s.search_path() {
        if schema == f.def.schema {
            return Ok(true);
        }
        let shadowed = catalog
            .functions
            .named(&db, &schema, &f.def.name, &snap)
            .iter()
            .any(|g| g.def.input_types() == f.def.input_types());
        if shadowed {
            return Ok(false);
        }
    }
    Ok(false)
}

#[cfg(test)]
mod tests {
    use super::size_pretty;

    #[test]
    fn sizes_as_postgres_prints_them() {
        assert_eq!(size_pretty(0), "0 bytes");
        assert_eq!(size_pretty(8192), "8192 bytes");
        assert_eq!(size_pretty(10 * 1024), "10 kB");
        assert_eq!(size_pretty(7_700_000), "7520 kB");
        assert_eq!(size_pretty(123_456_789), "118 MB");
        assert_eq!(size_pretty(-20_000), "-20 kB");
    }
}
