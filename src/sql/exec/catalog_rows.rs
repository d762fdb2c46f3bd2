//! The rows of pg_class, pg_attribute, pg_index, pg_constraint, pg_depend, ... for the tables and indexes of
//! the live schema, as the statement's catalog snapshot sees them.
//!
//! Each row is built by column name against the static definition of its catalog (so the
//! column list is PostgreSQL 15's wherever it is declared); columns not filled in are NULL.

use crate::catalog::{ConstraintKind, RelKind};
use crate::sql::catalog as builtin;
use crate::sql::engine::Rel;
use crate::sql::exec::EvalCx;
use crate::sql::func::system::catalog::check_node;
use crate::sql::types::{Array, Type, Value};
use crate::sync::Arc;

use super::Row;

/// pg_namespace's OID of `public`.
const PUBLIC_OID: u32 = 2200;

pub(super) fn build(oid: u32, mut f: impl FnMut(&str) -> Value) -> Row {
    let rel = builtin::relation_by_oid(oid).expect("catalog relation");
    rel.columns.iter().map(|(name, _)| f(name)).collect()
}

pub(super) fn char_value(c: char) -> Value {
    // "char" 0 (no identity, not generated) reads as the empty string, as PostgreSQL's does.
    if c == '\0' {
        return Value::Text(String::new());
    }
    Value::Text(c.to_string())
}

fn int2vector(items: impl Iterator<Item = i16>) -> Value {
    Value::Array(Box::new(Array::vector(
        Type::INT2,
        items.map(Value::Int2).collect(),
    )))
}

fn oidvector(items: impl Iterator<Item = u32>) -> Value {
    Value::Array(Box::new(Array::vector(
        Type::OID,
        items.map(Value::Oid).collect(),
    )))
}

pub(super) fn visible_relations(cx: &mut EvalCx) -> Vec<Arc<Rel>> {
    let Ok(snap) = cx.session.catalog_snapshot() else {
        return Vec::new();
    };
    let db = cx.session.database().to_string();
    cx.session
        .instance()
        .catalog
        .visible(&snap)
        .into_iter()
        .filter(|r| r.name.database == db)
        .collect()
}

/// An `aclitem[]` value (NULL for a missing ACL), role names from `names`.
pub(super) fn acl_array(
    acl: Option<&crate::catalog::acl::Acl>,
    names: &std::collections::HashMap<u32, String>,
) -> Value {
    let Some(acl) = acl else {
        return Value::Null;
    };
    let name = |o: u32| names.get(&o).cloned();
    Value::Array(Box::new(Array::one_dim(
        Type::ACLITEM,
        acl.iter()
            .map(|i| Value::Text(crate::catalog::acl::item_text(i, &name)))
            .collect(),
    )))
}

/// Role names by OID, as the statement's catalog snapshot sees them.
pub(super) fn role_names(cx: &mut EvalCx) -> std::collections::HashMap<u32, String> {
    let Ok(snap) = cx.session.catalog_snapshot() else {
        return Default::default();
    };
    cx.session
        .instance()
        .catalog
        .roles
        .visible(&snap)
        .iter()
        .map(|r| (r.oid, r.def.name.clone()))
        .collect()
}

/// The schemas made by CREATE SCHEMA in the session's database: OID, name, owner OID.
pub(super) fn created_namespaces(cx: &mut EvalCx) -> Vec<(u32, String, u32)> {
    let Ok(snap) = cx.session.catalog_snapshot() else {
        return Vec::new();
    };
    let db = cx.session.database().to_string();
    cx.session
        .instance()
        .catalog
        .namespaces
        .visible(&db, &snap)
        .iter()
        .map(|n| (n.oid, n.name.clone(), n.owner))
        .collect()
}

/// The extensions the statement's catalog snapshot sees in the session's database.
pub(super) fn extensions(cx: &mut EvalCx) -> Vec<Arc<crate::catalog::extensions::Extension>> {
    let Ok(snap) = cx.session.catalog_snapshot() else {
        return Vec::new();
    };
    let db = cx.session.database().to_string();
    cx.session
        .instance()
        .catalog
        .extensions
        .visible(Some(&db), &snap)
}

/// A schema's OID by name: a built-in schema's or one of `created`'s (public for a name
/// neither has: the object's schema went away under it).
pub(super) fn schema_oid(created: &[(u32, String, u32)], name: &str) -> u32 {
    builtin::namespace_oid(name)
        .or_else(|| {
            created
                .iter()
                .find(|(_, n, _)| n == name)
                .map(|(o, _, _)| *o)
        })
        .unwrap_or(PUBLIC_OID)
}

/// pg_extension: plpgsql (every database has it) and the extensions CREATE EXTENSION
/// installed.
fn extension_rows(cx: &mut EvalCx) -> Vec<Row> {
    let mut out = builtin::fixed::rows(3079).unwrap_or_default();
    let installed = extensions(cx);
    if installed.is_empty() {
        return out;
    }
    let spaces = created_namespaces(cx);
    out.extend(installed.iter().map(|e| {
        build(3079, |c| match c {
            "oid" => Value::Oid(e.oid),
            "extname" => Value::Text(e.def.name.clone()),
            "extowner" => Value::Oid(e.def.owner),
            "extnamespace" => Value::Oid(schema_oid(&spaces, &e.def.schema)),
            "extrelocatable" => Value::Bool(e.def.relocatable),
            "extversion" => Value::Text(e.def.version.clone()),
            _ => Value::Null,
        })
    }));
    out
}

/// The unique index of table `ref_table` a foreign key referencing its `ref_columns` rests on
/// (pg_constraint.conindid), among `rels`.
pub(super) fn fk_index<'a>(
    rels: &'a [Arc<Rel>],
    ref_table: u32,
    ref_columns: &[usize],
) -> Option<&'a crate::catalog::IndexDef> {
    let parent = rels.iter().find(|p| p.oid == ref_table)?;
    let (i, _) = super::foreign_key::unique_index_for(parent, ref_columns)?;
    parent.indexes.get(i)
}

/// pg_constraint.conkey: the positions (0-based) of the columns a primary key, unique
/// constraint or foreign key constrains, in key order; none for a CHECK.
pub(super) fn constraint_columns(r: &Rel, k: &crate::catalog::ConstraintDef) -> Vec<usize> {
    match &k.kind {
        ConstraintKind::PrimaryKey { index } | ConstraintKind::Unique { index } => r
            .indexes
            .iter()
            .find(|d| d.oid == *index)
            .map(|d| d.columns.clone())
            .unwrap_or_default(),
        ConstraintKind::ForeignKey { columns, .. } => columns.clone(),
        ConstraintKind::Check { .. } => Vec::new(),
    }
}

/// pg_available_extensions and pg_available_extension_versions: the built-in extensions,
/// one version each, with what the session's database has installed.
fn available_extension_rows(oid: u32, cx: &mut EvalCx) -> Vec<Row> {
    use crate::sql::func::extension::{EXTENSIONS, PLPGSQL};
    let installed = extensions(cx);
    let installed_version = |name: &str| {
        if name == PLPGSQL.name {
            return Some(PLPGSQL.version.to_string());
        }
        installed
            .iter()
            .find(|e| e.def.name == name)
            .map(|e| e.def.version.clone())
    };
    let text = |s: &str| Value::Text(s.to_string());
    EXTENSIONS
        .iter()
        .map(|e| {
            let version = installed_version(e.name);
            build(oid, |c| match c {
                "name" => text(e.name),
                "default_version" | "version" => text(e.version),
                "installed_version" => version.clone().map_or(Value::Null, Value::Text),
                "installed" => Value::Bool(version.is_some()),
                // As PostgreSQL 15 marks these three.
                "superuser" | "trusted" => Value::Bool(true),
                "relocatable" => Value::Bool(e.relocatable),
                "schema" if !e.relocatable => text("pg_catalog"),
                "comment" => text(e.comment),
                _ => Value::Null,
            })
        })
        .collect()
}

/// Rows of catalog `oid` from the live schema; None for catalogs that stay empty.
pub(super) fn rows(oid: u32, cx: &mut EvalCx) -> Option<Vec<Row>> {
    if oid == 1255 {
        return Some(super::catalog_procs::rows(cx));
    }
    if oid == builtin::aggregates::AGGREGATE_OID {
        return Some(super::catalog_procs::aggregate_rows(cx));
    }
    if oid == 3501 {
        return Some(super::catalog_types::enum_rows(cx));
    }
    if oid == 3541 {
        return Some(super::catalog_ranges::range_rows(cx));
    }
    if oid == 3079 {
        return Some(extension_rows(cx));
    }
    if matches!(oid, 12081 | 12085) {
        return Some(available_extension_rows(oid, cx));
    }
    if let Some(rows) = super::catalog_roles::rows(oid, cx) {
        return Some(rows);
    }
    if let Some(rows) = super::catalog_views::rows(oid, cx) {
        return Some(rows);
    }
    if let Some(rows) = super::info_schema::rows(oid, cx) {
        return Some(rows);
    }
    if oid == super::catalog_stats::PG_STATS {
        return Some(super::catalog_stats::rows(cx));
    }
    let created = if matches!(oid, 1259 | 2606) {
        created_namespaces(cx)
    } else {
        Vec::new()
    };
    let nsp = |schema: &str| schema_oid(&created, schema);
    let names = if matches!(oid, 1259 | 1249) {
        role_names(cx)
    } else {
        Default::default()
    };
    let acl_value = |acl: Option<&crate::catalog::acl::Acl>| acl_array(acl, &names);
    // A composite type's pg_class row and attributes come from the type store.
    let composite_rows = if matches!(oid, 1259 | 1249) {
        super::catalog_types::composite_relation_rows(oid, cx)
    } else {
        Vec::new()
    };
    let mut rels = || visible_relations(cx);
    Some(match oid {
        // pg_class
        1259 => {
            let rels = rels();
            // A foreign key makes triggers on both of its tables (psql then lists its
            // "Foreign-key constraints" and "Referenced by").
            let fk_tables: std::collections::HashSet<u32> = rels
                .iter()
                .flat_map(|r| {
                    r.constraints.iter().filter_map(|k| match &k.kind {
                        ConstraintKind::ForeignKey { ref_table, .. } => Some([r.oid, *ref_table]),
                        _ => None,
                    })
                })
                .flatten()
                .collect();
            let catalog = &cx.session.instance().catalog;
            let parents: std::collections::HashSet<u32> = rels
                .iter()
                .filter_map(|r| r.partition_of().map(|p| p.parent))
                .collect();
            rels.iter()
                .map(|r| {
                    let partitioned = r.partition_key().is_some();
                    build(1259, |c| match c {
                        "oid" => Value::Oid(r.oid),
                        "relfilenode" => Value::Oid(match r.kind {
                            _ if partitioned => 0,
                            RelKind::View => 0,
                            RelKind::Index => r.oid,
                            _ => r.data.storage_of(r.oid),
                        }),
                        "relname" => Value::Text(r.name.name.clone()),
                        "relnamespace" => Value::Oid(nsp(&r.name.schema)),
                        "reltype" => Value::Oid(catalog.row_type(r.oid).unwrap_or(0)),
                        "reloftype" | "reltablespace" | "reltoastrelid" | "relrewrite" => {
                            Value::Oid(0)
                        }
                        "relowner" => Value::Oid(r.owner),
                        "relacl" => acl_value(r.acl.as_ref()),
                        "relam" => Value::Oid(match r.kind {
                            _ if partitioned => 0,
                            RelKind::Table | RelKind::MatView => 2,
                            // pg_am: hash 405, gin 2742, btree 403.
                            RelKind::Index => match r.indexes.first() {
                                Some(d) if d.hash => 405,
                                Some(d) if d.gin.is_some() => 2742,
                                _ => 403,
                            },
                            _ => 0,
                        }),
                        "relpages" | "relallvisible" => Value::Int4(0),
                        "reltuples" => Value::Float4(
                            crate::sql::engine::statistics(r).map_or(-1.0, |s| s.rows as f32),
                        ),
                        "relhasindex" => Value::Bool(!r.indexes.is_empty() && r.kind.has_rows()),
                        "relhastriggers" => {
                            Value::Bool(fk_tables.contains(&r.oid) || !r.triggers.is_empty())
                        }
                        // A view has its _RETURN rule.
                        "relhasrules" => {
                            Value::Bool(!r.rules.is_empty() || r.kind == RelKind::View)
                        }
                        "relhassubclass" => Value::Bool(parents.contains(&r.oid)),
                        "relispartition" => Value::Bool(r.partition_of().is_some()),
                        "relpartbound" => match r.partition_of() {
                            Some(p) => Value::Text(
                                crate::sql::func::system::catalog::partbound_node(&p.shown),
                            ),
                            None => Value::Null,
                        },
                        "relisshared" | "relrowsecurity" | "relforcerowsecurity" => {
                            Value::Bool(false)
                        }
                        "relispopulated" => {
                            Value::Bool(r.matview.as_ref().is_none_or(|m| m.populated))
                        }
                        "relpersistence" => char_value(r.persistence.code()),
                        "relkind" => char_value(r.relkind()),
                        "relnatts" => Value::Int2(r.columns.len() as i16),
                        "relchecks" => Value::Int2(
                            r.constraints
                                .iter()
                                .filter(|c| matches!(c.kind, ConstraintKind::Check { .. }))
                                .count() as i16,
                        ),
                        "relreplident" => char_value(if r.kind.has_rows() { 'd' } else { 'n' }),
                        _ => Value::Null,
                    })
                })
                .chain(composite_rows)
                .collect()
        }
        // pg_attribute
        1249 => {
            let mut out = Vec::new();
            for r in rels() {
                // An index's attributes are copies of its table's columns without their
                // constraints: PostgreSQL's never have attnotnull, a default or an identity.
                let index = r.kind == RelKind::Index;
                for (i, col) in r.columns.iter().enumerate() {
                    let ty = Type(col.type_oid);
                    out.push(build(1249, |c| match c {
                        "attrelid" => Value::Oid(r.oid),
                        "attacl" => {
                            acl_value(r.column_acls.iter().find(|(p, _)| *p == i).map(|(_, a)| a))
                        }
                        "attname" => Value::Text(if col.dropped {
                            format!("........pg.dropped.{}........", i + 1)
                        } else {
                            col.name.clone()
                        }),
                        "atttypid" => Value::Oid(if col.dropped {
                            0
                        } else {
                            col.domain.unwrap_or(col.type_oid)
                        }),
                        "attstattarget" => Value::Int4(-1),
                        "attlen" => Value::Int2(ty.typlen()),
                        "attnum" => Value::Int2(i as i16 + 1),
                        "attndims" | "attcacheoff" | "attinhcount" => Value::Int4(0),
                        "atttypmod" => {
                            Value::Int4(if col.domain.is_some() { -1 } else { col.typmod })
                        }
                        "attbyval" => Value::Bool((1..=8).contains(&ty.typlen())),
                        "attalign" => char_value(
                            builtin::align_and_storage(col.type_oid).map_or('i', |a| a.0),
                        ),
                        "attstorage" => char_value(
                            builtin::align_and_storage(col.type_oid)
                                .map_or(if ty.typlen() > 0 { 'p' } else { 'x' }, |a| a.1),
                        ),
                        "attcompression" => char_value('\0'),
                        "attgenerated" => {
                            char_value(if col.generated && !index { 's' } else { '\0' })
                        }
                        "attnotnull" => Value::Bool(col.not_null && !index),
                        "atthasdef" => Value::Bool(has_default(col) && !index),
                        "atthasmissing" => Value::Bool(false),
                        "attidentity" => {
                            char_value(col.identity.filter(|_| !index).unwrap_or('\0'))
                        }
                        "attisdropped" => Value::Bool(col.dropped),
                        "attislocal" => Value::Bool(true),
                        "attcollation" => {
                            Value::Oid(if matches!(ty, Type::TEXT | Type::VARCHAR | Type::BPCHAR) {
                                100
                            } else {
                                0
                            })
                        }
                        _ => Value::Null,
                    }));
                }
                if r.kind.has_rows() {
                    out.extend(system_attributes(r.oid));
                }
            }
            out.extend(composite_rows);
            out
        }
        // pg_index
        2610 => {
            let rels = rels();
            rels.iter()
                .filter(|r| r.kind == RelKind::Index)
                .map(|r| {
                    let def = &r.indexes[0];
                    // A DEFERRABLE key's index checks uniqueness later than the insertion.
                    let immediate = rels
                        .iter()
                        .find(|t| Some(t.oid) == r.table)
                        .is_none_or(|t| t.deferrable_key(def.oid).is_none());
                    build(2610, |c| match c {
                        "indexrelid" => Value::Oid(r.oid),
                        "indrelid" => Value::Oid(r.table.unwrap_or(0)),
                        "indnatts" => Value::Int2(def.natts() as i16),
                        "indnkeyatts" => Value::Int2(def.width() as i16),
                        "indisunique" => Value::Bool(def.unique),
                        "indisprimary" => Value::Bool(def.primary),
                        "indnullsnotdistinct"
                        | "indisexclusion"
                        | "indisclustered"
                        | "indcheckxmin"
                        | "indisreplident" => Value::Bool(false),
                        "indimmediate" => Value::Bool(immediate),
                        "indisvalid" | "indisready" | "indislive" => Value::Bool(true),
                        // 0 for an expression item, as PostgreSQL's indkey has.
                        // The INCLUDE columns follow the key's.
                        "indkey" => {
                            let include = def.include.iter().map(|&c| c as i16 + 1);
                            match def.exprs.as_deref() {
                                None => int2vector(
                                    def.columns.iter().map(|&c| c as i16 + 1).chain(include),
                                ),
                                Some(x) => int2vector(
                                    x.items
                                        .iter()
                                        .map(|it| match it {
                                            crate::catalog::IndexItem::Column(c) => *c as i16 + 1,
                                            crate::catalog::IndexItem::Expr(_) => 0,
                                        })
                                        .chain(include),
                                ),
                            }
                        }
                        "indoption" => int2vector((0..def.width()).map(|_| 0)),
                        // The key items' default operator classes (0 where none is listed,
                        // as for GIN's); INCLUDE columns have none.
                        "indclass" => {
                            let strategy = if def.hash {
                                crate::catalog::partition::Strategy::Hash
                            } else {
                                crate::catalog::partition::Strategy::Range
                            };
                            oidvector(r.columns.iter().take(def.width()).map(|c| match def.gin {
                                Some(_) => 0,
                                None => crate::sql::partition::opclass_of(c.type_oid, strategy),
                            }))
                        }
                        // PostgreSQL keeps node trees here; the texts stand for them (NULL for a
                        // plain index, as there), and pg_get_expr prints the predicate.
                        "indexprs" => match def.exprs.as_deref() {
                            Some(x)
                                if x.items
                                    .iter()
                                    .any(|i| matches!(i, crate::catalog::IndexItem::Expr(_))) =>
                            {
                                Value::Text(format!(
                                    "({})",
                                    x.items
                                        .iter()
                                        .filter_map(|i| match i {
                                            crate::catalog::IndexItem::Expr(t) =>
                                                Some(check_node(t)),
                                            crate::catalog::IndexItem::Column(_) => None,
                                        })
                                        .collect::<Vec<_>>()
                                        .join(" ")
                                ))
                            }
                            _ => Value::Null,
                        },
                        "indpred" => {
                            match def.exprs.as_ref().and_then(|x| x.predicate.as_deref()) {
                                Some(p) => Value::Text(check_node(p)),
                                None => Value::Null,
                            }
                        }
                        _ => Value::Null,
                    })
                })
                .collect()
        }
        // pg_inherits: each partition under its parent.
        2611 => rels()
            .iter()
            .filter_map(|r| {
                let p = r.partition_of()?;
                Some(build(2611, |c| match c {
                    "inhrelid" => Value::Oid(r.oid),
                    "inhparent" => Value::Oid(p.parent),
                    "inhseqno" => Value::Int4(1),
                    "inhdetachpending" => Value::Bool(false),
                    _ => Value::Null,
                }))
            })
            .collect(),
        // pg_partitioned_table
        3350 => {
            let rels = rels();
            rels.iter()
                .filter_map(|r| {
                    let key = r.partition_key()?;
                    let default = rels
                        .iter()
                        .find(|c| {
                            c.partition_of().is_some_and(|p| {
                                p.parent == r.oid
                                    && p.bound == crate::catalog::partition::BoundSpec::Default
                            })
                        })
                        .map_or(0, |c| c.oid);
                    let exprs: Vec<String> = key
                        .items
                        .iter()
                        .filter_map(|i| match i {
                            crate::catalog::IndexItem::Expr(t) => Some(check_node(t)),
                            crate::catalog::IndexItem::Column(_) => None,
                        })
                        .collect();
                    Some(build(3350, |c| match c {
                        "partrelid" => Value::Oid(r.oid),
                        "partstrat" => char_value(key.strategy.code()),
                        "partnatts" => Value::Int2(key.items.len() as i16),
                        "partdefid" => Value::Oid(default),
                        "partattrs" => int2vector(key.items.iter().map(|it| match it {
                            crate::catalog::IndexItem::Column(c) => *c as i16 + 1,
                            crate::catalog::IndexItem::Expr(_) => 0,
                        })),
                        "partclass" => oidvector(
                            key.types
                                .iter()
                                .map(|t| crate::sql::partition::opclass_of(t.0, key.strategy)),
                        ),
                        "partcollation" => oidvector(key.types.iter().map(|t| match Type(t.0) {
                            Type::TEXT | Type::VARCHAR | Type::BPCHAR => 100,
                            _ => 0,
                        })),
                        "partexprs" if !exprs.is_empty() => {
                            Value::Text(format!("({})", exprs.join(" ")))
                        }
                        _ => Value::Null,
                    }))
                })
                .collect()
        }
        // pg_rewrite: the rules made by CREATE RULE (views' _RETURN rules are not rows
        // here). The trees are PostgreSQL's internal format: the text is shown instead.
        2618 => {
            let mut out = Vec::new();
            for r in rels().iter() {
                for rule in &r.rules {
                    out.push(build(2618, |c| match c {
                        "oid" => Value::Oid(rule.oid),
                        "rulename" => Value::Text(rule.name.clone()),
                        "ev_class" => Value::Oid(r.oid),
                        "ev_type" => char_value(rule.event.code()),
                        "ev_enabled" => char_value(rule.enabled),
                        "is_instead" => Value::Bool(rule.instead),
                        "ev_qual" => Value::Text(rule.qual.clone().unwrap_or_else(|| "<>".into())),
                        "ev_action" => Value::Text(format!("({})", rule.actions.join("; "))),
                        _ => Value::Null,
                    }));
                }
            }
            out
        }
        // pg_trigger: the triggers made by CREATE TRIGGER (those of foreign keys are not
        // rows here).
        2620 => {
            let mut out = Vec::new();
            for r in rels()
                .iter()
                .filter(|r| matches!(r.kind, RelKind::Table | RelKind::View))
            {
                for t in &r.triggers {
                    let args: Vec<u8> = t
                        .args
                        .iter()
                        .flat_map(|a| a.bytes().chain(std::iter::once(0)))
                        .collect();
                    out.push(build(2620, |c| match c {
                        "oid" => Value::Oid(t.oid),
                        "tgrelid" => Value::Oid(r.oid),
                        "tgconstraint" => Value::Oid(t.constraint.map_or(0, |k| k.oid)),
                        "tgconstrrelid" => Value::Oid(t.constraint.map_or(0, |k| k.from_table)),
                        "tgdeferrable" => Value::Bool(t.constraint.is_some_and(|k| k.deferrable)),
                        "tginitdeferred" => {
                            Value::Bool(t.constraint.is_some_and(|k| k.initially_deferred))
                        }
                        "tgparentid" | "tgconstrindid" => Value::Oid(0),
                        "tgname" => Value::Text(t.name.clone()),
                        "tgfoid" => Value::Oid(t.function),
                        "tgtype" => Value::Int2(t.tgtype),
                        "tgenabled" => char_value(t.enabled),
                        "tgisinternal" => Value::Bool(false),
                        "tgnargs" => Value::Int2(t.args.len() as i16),
                        "tgattr" => Value::Array(Box::new(Array::vector(
                            Type::INT2,
                            t.columns
                                .iter()
                                .map(|&c| Value::Int2(c as i16 + 1))
                                .collect(),
                        ))),
                        "tgargs" => Value::Bytea(args.clone()),
                        "tgqual" => t.when.clone().map_or(Value::Null, Value::Text),
                        "tgoldtable" => t.old_table.clone().map_or(Value::Null, Value::Text),
                        "tgnewtable" => t.new_table.clone().map_or(Value::Null, Value::Text),
                        _ => Value::Null,
                    }));
                }
            }
            out
        }
        // pg_constraint
        2606 => {
            let mut out = Vec::new();
            let all = rels();
            for r in all.iter().filter(|r| r.kind == RelKind::Table) {
                for k in &r.constraints {
                    let (contype, index) = match &k.kind {
                        ConstraintKind::PrimaryKey { index } => ('p', *index),
                        ConstraintKind::Unique { index } => ('u', *index),
                        ConstraintKind::Check { .. } => ('c', 0),
                        ConstraintKind::ForeignKey { .. } => ('f', 0),
                    };
                    let cols: Vec<i16> = constraint_columns(r, k)
                        .into_iter()
                        .map(|c| c as i16 + 1)
                        .collect();
                    // A foreign key's referenced side (PostgreSQL's conindid is the referenced
                    // table's unique index).
                    let (index, fk) = match &k.kind {
                        ConstraintKind::ForeignKey {
                            ref_table,
                            ref_columns,
                            on_update,
                            on_delete,
                            match_full,
                            ..
                        } => {
                            let index =
                                fk_index(&all, *ref_table, ref_columns).map_or(0, |d| d.oid);
                            let keys: Vec<i16> =
                                ref_columns.iter().map(|&c| c as i16 + 1).collect();
                            let m = if *match_full { 'f' } else { 's' };
                            (index, Some((*ref_table, keys, *on_update, *on_delete, m)))
                        }
                        _ => (index, None),
                    };
                    out.push(build(2606, |c| match c {
                        "oid" => Value::Oid(k.oid),
                        "conname" => Value::Text(k.name.clone()),
                        "connamespace" => Value::Oid(nsp(&r.name.schema)),
                        "contype" => char_value(contype),
                        "condeferrable" => Value::Bool(k.deferrable),
                        "condeferred" => Value::Bool(k.deferred),
                        "convalidated" | "conislocal" | "connoinherit" => {
                            Value::Bool(c != "connoinherit")
                        }
                        "conrelid" => Value::Oid(r.oid),
                        "confrelid" => Value::Oid(fk.as_ref().map_or(0, |f| f.0)),
                        "contypid" | "conparentid" => Value::Oid(0),
                        "conindid" => Value::Oid(index),
                        "confupdtype" => char_value(fk.as_ref().map_or(' ', |f| f.2)),
                        "confdeltype" => char_value(fk.as_ref().map_or(' ', |f| f.3)),
                        "confmatchtype" => char_value(fk.as_ref().map_or(' ', |f| f.4)),
                        "confkey" if fk.is_some() => {
                            let keys = fk.as_ref().map(|f| f.1.clone()).unwrap_or_default();
                            Value::Array(Box::new(Array::one_dim(
                                Type::INT2,
                                keys.into_iter().map(Value::Int2).collect(),
                            )))
                        }
                        "coninhcount" => Value::Int4(0),
                        "conbin" => match &k.kind {
                            ConstraintKind::Check { expr } => Value::Text(check_node(expr)),
                            _ => Value::Null,
                        },
                        "conkey" if !cols.is_empty() => Value::Array(Box::new(Array::one_dim(
                            Type::INT2,
                            cols.iter().map(|&c| Value::Int2(c)).collect(),
                        ))),
                        _ => Value::Null,
                    }));
                }
                // Constraint triggers' constraints (contype 't', named as their triggers).
                for (t, k) in r.triggers.iter().filter_map(|t| Some((t, t.constraint?))) {
                    out.push(build(2606, |c| match c {
                        "oid" => Value::Oid(k.oid),
                        "conname" => Value::Text(t.name.clone()),
                        "connamespace" => Value::Oid(nsp(&r.name.schema)),
                        "contype" => char_value('t'),
                        "condeferrable" => Value::Bool(k.deferrable),
                        "condeferred" => Value::Bool(k.initially_deferred),
                        "convalidated" | "conislocal" | "connoinherit" => Value::Bool(true),
                        "conrelid" => Value::Oid(r.oid),
                        "contypid" | "conindid" | "conparentid" | "confrelid" => Value::Oid(0),
                        "confupdtype" | "confdeltype" | "confmatchtype" => char_value(' '),
                        "coninhcount" => Value::Int4(0),
                        _ => Value::Null,
                    }));
                }
            }
            out.extend(super::catalog_types::domain_constraint_rows(cx));
            out
        }
        // pg_stat_wal: the log's counters since the server started (no full-page images:
        // the log is logical). The times are measured always, as with track_wal_io_timing.
        12293 => {
            let instance = cx.session.instance();
            let Some(wal) = instance.txns.wal() else {
                return Some(Vec::new());
            };
            let st = wal.stats();
            let started = Value::TimestampTz(
                instance
                    .started_at
                    .duration_since(std::time::UNIX_EPOCH)
                    .map(|d| d.as_micros() as i64)
                    .unwrap_or(0)
                    - crate::sql::types::datetime::UNIX_TO_PG_SECS
                        * crate::sql::types::datetime::USECS_PER_SEC,
            );
            vec![build(12293, |c| match c {
                "wal_records" => Value::Int8(st.records as i64),
                "wal_fpi" => Value::Int8(0),
                "wal_bytes" => Value::Numeric(Box::new(
                    crate::sql::types::numeric::Numeric::from_i64(st.bytes as i64),
                )),
                "wal_buffers_full" => Value::Int8(st.buffers_full as i64),
                "wal_write" => Value::Int8(st.writes as i64),
                "wal_sync" => Value::Int8(st.syncs as i64),
                "wal_write_time" => Value::Float8(st.write_time_us as f64 / 1000.0),
                "wal_sync_time" => Value::Float8(st.sync_time_us as f64 / 1000.0),
                "stats_reset" => started.clone(),
                _ => Value::Null,
            })]
        }
        // pg_stat_user_tables: what is counted; scans are not counted (NULL).
        12299 => rels()
            .iter()
            .filter(|r| r.kind.has_rows())
            .map(|r| {
                use std::sync::atomic::Ordering::Relaxed;
                let s = &r.data.stats;
                let n = |a: &std::sync::atomic::AtomicU64| Value::Int8(a.load(Relaxed) as i64);
                let at = |a: &std::sync::atomic::AtomicI64| match a.load(Relaxed) {
                    0 => Value::Null,
                    t => Value::TimestampTz(t),
                };
                let (ins, del) = (s.inserted.load(Relaxed), s.deleted.load(Relaxed));
                build(12299, |c| match c {
                    "relid" => Value::Oid(r.oid),
                    "schemaname" => Value::Text(r.name.schema.clone()),
                    "relname" => Value::Text(r.name.name.clone()),
                    "n_tup_ins" => n(&s.inserted),
                    "n_tup_upd" => n(&s.updated),
                    "n_tup_del" => n(&s.deleted),
                    // Estimates, as PostgreSQL's are.
                    "n_live_tup" => Value::Int8(ins.saturating_sub(del) as i64),
                    "n_dead_tup" => n(&r.data.changes),
                    "n_mod_since_analyze" => n(&r.data.mod_since_analyze),
                    "last_analyze" => at(&s.last_analyze),
                    "last_autoanalyze" => at(&s.last_autoanalyze),
                    "analyze_count" => n(&s.analyzes),
                    "autoanalyze_count" => n(&s.autoanalyzes),
                    "last_vacuum" => at(&s.last_vacuum),
                    "last_autovacuum" => at(&s.last_autovacuum),
                    "vacuum_count" => n(&s.vacuums),
                    "autovacuum_count" => n(&s.autovacuums),
                    _ => Value::Null,
                })
            })
            .collect(),
        // pg_sequence, pg_sequences
        2224 | 12048 => {
            let rels = rels();
            let names = role_names(cx);
            let name = |o: u32| names.get(&o).cloned().unwrap_or_default();
            crate::sql::sequence::catalog_rows(oid, &rels, &name)
        }
        2608 => super::catalog_depend::depend_rows(cx),
        2604 => super::catalog_depend::attrdef_rows(cx),
        // pg_description, pg_shdescription: COMMENT ON's and the fixed ones (ddl/comment.rs)
        2609 | 2396 => description_rows(oid, cx),
        super::pg_locks::OID => super::pg_locks::rows(cx),
        // pg_stat_ssl
        12249 => crate::sql::func::system::ssl::stat_ssl_rows(cx.session.instance()),
        // pg_opclass, pg_opfamily: the GIN operator classes (`engine::gin`), each its own
        // family as in PostgreSQL.
        2616 | 2753 => crate::sql::engine::gin::classes()
            .into_iter()
            .map(|k| {
                build(oid, |c| match c {
                    "oid" => Value::Oid(if oid == 2616 { k.oid() } else { k.family() }),
                    "opcmethod" | "opfmethod" => Value::Oid(2742),
                    "opcname" => Value::Text(k.name().into()),
                    "opfname" => Value::Text(k.family_name().into()),
                    "opcnamespace" | "opfnamespace" => Value::Oid(11), // pg_catalog
                    "opcowner" | "opfowner" => Value::Oid(builtin::fixed::BOOTSTRAP_SUPERUSER),
                    "opcfamily" => Value::Oid(k.family()),
                    "opcintype" => Value::Oid(k.input_type().0),
                    "opcdefault" => Value::Bool(k.is_default()),
                    "opckeytype" => Value::Oid(k.key_type().0),
                    _ => Value::Null,
                })
            })
            .collect(),
        _ => return builtin::fixed::rows(oid),
    })
}

fn description_rows(oid: u32, cx: &mut EvalCx) -> Vec<Row> {
    let shared = oid == 2396;
    let Ok(rows) = crate::sql::func::system::comments::descriptions(cx.session, shared) else {
        return Vec::new();
    };
    let mut out: Vec<Row> = Vec::new();
    if shared {
        // The databases' descriptions PostgreSQL ships (pg_database's classoid 1262).
        for (name, o) in cx.session.instance().database_names() {
            if let Some(d) = builtin::fixed::database_description(&name) {
                out.push(build(oid, |c| match c {
                    "objoid" => Value::Oid(o),
                    "classoid" => Value::Oid(1262),
                    "description" => Value::Text(d.to_string()),
                    _ => Value::Null,
                }));
            }
        }
    }
    out.extend(rows.into_iter().map(|((class, o, sub), d)| {
        build(oid, |c| match c {
            "objoid" => Value::Oid(o),
            "classoid" => Value::Oid(class),
            "objsubid" => Value::Int4(sub),
            "description" => Value::Text(d.clone()),
            _ => Value::Null,
        })
    }));
    out
}

/// Whether a column has a default in pg_attrdef: PostgreSQL stores none for `DEFAULT NULL`.
/// Whether pg_attribute shows a default for the column (an identity column's nextval is
/// internal, not a default; `DEFAULT NULL` is none).
/// A generation expression is always there, NULL or not.
pub(super) fn has_default(col: &crate::catalog::ColumnDef) -> bool {
    (col.generated && col.default.is_some())
        || col.identity.is_none()
            && col
                .default
                .as_deref()
                .is_some_and(|d| !crate::sql::ruleutils::is_null_default(d))
}

/// pg_attribute's rows of a relation's system columns (attnum -1 .. -6, as PostgreSQL lists
/// them for every relation with rows; clients read `attnum > 0` for the user's columns).
fn system_attributes(rel: u32) -> impl Iterator<Item = Row> {
    const COLUMNS: [(&str, Type, char); 6] = [
        ("ctid", Type::TID, 's'),
        ("xmin", Type::XID, 'i'),
        ("cmin", Type::CID, 'i'),
        ("xmax", Type::XID, 'i'),
        ("cmax", Type::CID, 'i'),
        ("tableoid", Type::OID, 'i'),
    ];
    COLUMNS
        .iter()
        .zip(1i16..)
        .map(move |(&(name, ty, align), n)| {
            build(1249, |c| match c {
                "attrelid" => Value::Oid(rel),
                "attname" => Value::Text(name.to_string()),
                "atttypid" => Value::Oid(ty.0),
                "attstattarget" | "attndims" | "attinhcount" => Value::Int4(0),
                "attlen" => Value::Int2(ty.typlen()),
                "attnum" => Value::Int2(-n),
                "attcacheoff" | "atttypmod" => Value::Int4(-1),
                "attbyval" => Value::Bool(ty != Type::TID),
                "attalign" => char_value(align),
                "attstorage" => char_value('p'),
                "attcompression" | "attgenerated" | "attidentity" => char_value('\0'),
                "attnotnull" | "attislocal" => Value::Bool(true),
                "atthasdef" | "atthasmissing" | "attisdropped" => Value::Bool(false),
                "attcollation" => Value::Oid(0),
                _ => Value::Null,
            })
        })
}
