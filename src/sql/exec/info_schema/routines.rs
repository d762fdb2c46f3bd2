//! information_schema.sequences, routines, parameters and triggers.
//!
//! sequences lists the sequences made by CREATE SEQUENCE and serial columns (an identity
//! column's sequence is internal to its column and left out, as PostgreSQL leaves it out),
//! to their owner or a holder of SELECT, UPDATE or USAGE. routines and parameters list the
//! functions and procedures CREATE FUNCTION / CREATE PROCEDURE made, to their owner or a
//! holder of EXECUTE (the built-in functions, which PostgreSQL also lists, are not rows
//! here); `specific_name` is the name with the OID appended, as nameconcatoid makes it.
//! triggers lists one row per event of each CREATE TRIGGER trigger (the internal triggers of
//! foreign keys are not listed, as in PostgreSQL), with the WHEN condition and the EXECUTE
//! FUNCTION clause cut out of pg_get_triggerdef's text the way PostgreSQL's view cuts them.

use crate::catalog::acl;
use crate::catalog::functions::Function;
use crate::catalog::RelKind;
use crate::sql::engine::Rel;
use crate::sql::exec::EvalCx;
use crate::sql::func::session_fn::CatalogFn;
use crate::sql::types::{Type, Value};
use crate::sync::Arc;

use super::super::catalog_rows::build;
use super::super::Row;
use super::columns::{numeric_precision, type_names};
use super::{cardinal, catalog_text, text, with_viewer, yes_no, Scope};

/// The views' OIDs in a fresh PostgreSQL 15 cluster.
pub(super) const SEQUENCES: u32 = 13386;
pub(super) const ROUTINES: u32 = 13377;
pub(super) const PARAMETERS: u32 = 13334;
pub(super) const TRIGGERS: u32 = 13440;

pub(super) fn sequences(cx: &mut EvalCx) -> Vec<Row> {
    let scope = Scope::new(cx);
    let shown: Vec<Arc<Rel>> = with_viewer(cx, |v| {
        let want = acl::SELECT | acl::UPDATE | acl::USAGE;
        scope
            .rels
            .iter()
            .filter(|r| r.kind == RelKind::Sequence && !v.other_temp(&r.name.schema))
            .filter(|r| {
                let identity = r
                    .data
                    .sequence
                    .as_ref()
                    .and_then(|s| s.owned_by)
                    .is_some_and(|o| o.identity);
                !identity && (v.owns(r.owner) || v.table_priv(r, want))
            })
            .cloned()
            .collect()
    })
    .unwrap_or_default();
    shown
        .iter()
        .filter_map(|r| {
            let o = r.data.sequence.as_ref()?.options;
            let n = |v: i64| text(&v.to_string());
            Some(build(SEQUENCES, |c| match c {
                "sequence_catalog" => text(&scope.db),
                "sequence_schema" => text(&r.name.schema),
                "sequence_name" => text(&r.name.name),
                "data_type" => text(&Type(o.type_oid).name()),
                "numeric_precision" => cardinal(numeric_precision(o.type_oid, -1)),
                "numeric_precision_radix" => Value::Int4(2),
                "numeric_scale" => Value::Int4(0),
                "start_value" => n(o.start),
                "minimum_value" => n(o.min),
                "maximum_value" => n(o.max),
                "increment" => n(o.increment),
                "cycle_option" => yes_no(o.cycle),
                _ => Value::Null,
            }))
        })
        .collect()
}

/// The user's functions and procedures it may see, each with whether it has its owner's
/// privileges (which show the source and the parameter defaults).
fn visible_functions(cx: &mut EvalCx, db: &str) -> Vec<(Arc<Function>, bool)> {
    let Ok(snap) = cx.session.catalog_snapshot() else {
        return Vec::new();
    };
    let funcs = cx
        .session
        .instance()
        .catalog
        .functions
        .visible(Some(db), &snap);
    with_viewer(cx, |v| {
        funcs
            .into_iter()
            .filter_map(|f| {
                let owner = v.owns(f.def.owner);
                // No ACL: PUBLIC's default EXECUTE (GRANT on functions keeps one).
                let exec = f.def.acl.as_ref().is_none_or(|a| {
                    acl::mask(a, v.who.role, f.def.owner, acl::EXECUTE, true, &|a, b| {
                        v.who.has_privs_of(a, b)
                    }) != 0
                });
                (owner || exec).then_some((f, owner))
            })
            .collect()
    })
    .unwrap_or_default()
}

/// nameconcatoid: `name_oid`, the name cut so that the whole fits in 63 bytes.
fn specific_name(name: &str, oid: u32) -> String {
    let suffix = format!("_{oid}");
    let mut cut = 63usize.saturating_sub(suffix.len()).min(name.len());
    while !name.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{}{suffix}", &name[..cut])
}

pub(super) fn routines(cx: &mut EvalCx) -> Vec<Row> {
    let scope = Scope::new(cx);
    let funcs = visible_functions(cx, &scope.db);
    funcs
        .iter()
        .map(|(f, owner)| {
            let d = &f.def;
            let function = d.kind != 'p';
            // A procedure has no result type.
            let ret = function.then(|| type_names(d.returns));
            let ret_text = |s: &dyn Fn(&super::columns::TypeNames) -> String| {
                ret.as_ref().map_or(Value::Null, |t| Value::Text(s(t)))
            };
            build(ROUTINES, |c| match c {
                "specific_catalog" | "routine_catalog" => text(&scope.db),
                "specific_schema" | "routine_schema" => text(&d.schema),
                "specific_name" => text(&specific_name(&d.name, f.oid)),
                "routine_name" => text(&d.name),
                "routine_type" => text(if function { "FUNCTION" } else { "PROCEDURE" }),
                "data_type" => ret_text(&|t| t.data_type.clone()),
                "type_udt_catalog" if function => text(&scope.db),
                "type_udt_schema" => ret_text(&|t| t.udt_schema.clone()),
                "type_udt_name" => ret_text(&|t| t.udt_name.clone()),
                "dtd_identifier" if function => text("0"),
                "routine_body" => text(if d.language == "sql" {
                    "SQL"
                } else {
                    "EXTERNAL"
                }),
                // prosrc: empty for a body in SQL-standard form (BEGIN ATOMIC / RETURN).
                "routine_definition" if *owner => {
                    text(if d.sql_body { "" } else { d.body.as_str() })
                }
                "external_language" => text(&d.language.to_ascii_uppercase()),
                "parameter_style" => text("GENERAL"),
                "is_deterministic" => yes_no(d.volatility == 'i'),
                "sql_data_access" => text("MODIFIES"),
                "is_null_call" if function => yes_no(d.strict),
                "schema_level_routine" => yes_no(true),
                "max_dynamic_result_sets" => Value::Int4(0),
                "security_type" => text(if d.security_definer {
                    "DEFINER"
                } else {
                    "INVOKER"
                }),
                "as_locator" | "is_udt_dependent" => yes_no(false),
                _ => Value::Null,
            })
        })
        .collect()
}

pub(super) fn parameters(cx: &mut EvalCx) -> Vec<Row> {
    let scope = Scope::new(cx);
    let funcs = visible_functions(cx, &scope.db);
    let mut out = Vec::new();
    for (f, owner) in &funcs {
        for (i, a) in f.def.args.iter().enumerate() {
            let n = i as i32 + 1;
            let names = type_names(a.type_oid);
            out.push(build(PARAMETERS, |c| match c {
                "specific_catalog" | "udt_catalog" => text(&scope.db),
                "specific_schema" => text(&f.def.schema),
                "specific_name" => text(&specific_name(&f.def.name, f.oid)),
                "ordinal_position" => Value::Int4(n),
                "parameter_mode" => text(match a.mode {
                    'o' | 't' => "OUT",
                    'b' => "INOUT",
                    _ => "IN",
                }),
                "is_result" | "as_locator" => yes_no(false),
                "parameter_name" if !a.name.is_empty() => text(&a.name),
                "data_type" => text(&names.data_type),
                "udt_schema" => text(&names.udt_schema),
                "udt_name" => text(&names.udt_name),
                "dtd_identifier" => text(&n.to_string()),
                // pg_get_function_arg_default: an input parameter's default.
                "parameter_default" if *owner && a.is_input() => {
                    a.default.as_deref().map_or(Value::Null, text)
                }
                _ => Value::Null,
            }));
        }
    }
    out
}

/// Cuts pg_get_triggerdef's text as PostgreSQL's view does: the WHEN condition (inside its
/// parentheses) and the text from `EXECUTE FUNCTION` on.
fn trigger_parts(def: &str) -> (Option<String>, String) {
    const EXEC: &str = "EXECUTE FUNCTION";
    let chars: Vec<char> = def.chars().collect();
    let tail: String = chars.iter().skip(47).collect();
    let statement = match tail.find(EXEC) {
        Some(p) => tail[p..].to_string(),
        None => chars.iter().skip(46).collect(),
    };
    let when = def.rfind(&format!(") {EXEC}")).and_then(|end| {
        let start = def[..end].rfind(" WHEN (")?;
        (def[..start].chars().count() >= 35).then(|| def[start + 7..end].to_string())
    });
    (when, statement)
}

pub(super) fn triggers(cx: &mut EvalCx) -> Vec<Row> {
    let scope = Scope::new(cx);
    let shown: Vec<(Arc<Rel>, bool)> = with_viewer(cx, |v| {
        scope
            .rels
            .iter()
            .filter(|r| !r.triggers.is_empty() && !v.other_temp(&r.name.schema))
            .filter(|r| v.sees_constraints(r))
            .map(|r| (r.clone(), v.owns(r.owner)))
            .collect()
    })
    .unwrap_or_default();
    let mut out = Vec::new();
    for (r, owner) in &shown {
        for t in &r.triggers {
            let def = match catalog_text(cx, CatalogFn::TriggerDef, &[Value::Oid(t.oid)]) {
                Value::Text(s) => s,
                _ => String::new(),
            };
            let (when, statement) = trigger_parts(&def);
            // ROW (1); BEFORE (2) or INSTEAD OF (64) against AFTER.
            let (row, timing) = (t.tgtype & 1, t.tgtype & 66);
            for (bit, event) in [(4, "INSERT"), (8, "DELETE"), (16, "UPDATE")] {
                if t.tgtype & bit == 0 {
                    continue;
                }
                // rank() among the table's triggers of the same event, level and timing, by
                // name (r.triggers is in name order).
                let order = 1 + r
                    .triggers
                    .iter()
                    .filter(|o| {
                        o.tgtype & bit != 0
                            && o.tgtype & 1 == row
                            && o.tgtype & 66 == timing
                            && o.name < t.name
                    })
                    .count();
                out.push(build(TRIGGERS, |c| match c {
                    "trigger_catalog" | "event_object_catalog" => text(&scope.db),
                    "trigger_schema" | "event_object_schema" => text(&r.name.schema),
                    "trigger_name" => text(&t.name),
                    "event_manipulation" => text(event),
                    "event_object_table" => text(&r.name.name),
                    "action_order" => Value::Int4(order as i32),
                    "action_condition" if *owner => when.as_deref().map_or(Value::Null, text),
                    "action_statement" => text(&statement),
                    "action_orientation" => text(if row == 1 { "ROW" } else { "STATEMENT" }),
                    "action_reference_old_table" => {
                        t.old_table.as_deref().map_or(Value::Null, text)
                    }
                    "action_reference_new_table" => {
                        t.new_table.as_deref().map_or(Value::Null, text)
                    }
                    "action_timing" => text(match timing {
                        2 => "BEFORE",
                        64 => "INSTEAD OF",
                        _ => "AFTER",
                    }),
                    _ => Value::Null,
                }));
            }
        }
    }
    out
}
