//! The texts PostgreSQL prints for a user-defined function: pg_get_function_arguments,
//! pg_get_function_identity_arguments, pg_get_function_result and pg_get_functiondef, from
//! its pg_proc description (`catalog::functions`), laid out as ruleutils.c lays them out.

use crate::catalog::functions::{FuncArg, FunctionDef};
use crate::sql::quote::quote_ident;
use crate::sql::types::Type;

/// The mode word before an argument; a procedure's IN arguments say IN too, as PostgreSQL
/// marks every mode of a procedure so that the list reads the same in DROP PROCEDURE.
fn mode_word(a: &FuncArg, procedure: bool) -> &'static str {
    match a.mode {
        'o' => "OUT ",
        'b' => "INOUT ",
        'v' => "VARIADIC ",
        'i' if procedure => "IN ",
        _ => "",
    }
}

fn one(a: &FuncArg, procedure: bool, defaults: bool) -> String {
    let mut s = mode_word(a, procedure).to_string();
    if !a.name.is_empty() {
        s.push_str(&quote_ident(&a.name));
        s.push(' ');
    }
    s.push_str(&Type(a.type_oid).name());
    if defaults {
        if let Some(d) = &a.default {
            s.push_str(" DEFAULT ");
            s.push_str(d);
        }
    }
    s
}

/// pg_get_function_arguments: every argument but a TABLE column, with modes, names and
/// defaults.
pub fn arguments(def: &FunctionDef) -> String {
    def.args
        .iter()
        .filter(|a| a.mode != 't')
        .map(|a| one(a, def.kind == 'p', true))
        .collect::<Vec<_>>()
        .join(", ")
}

/// pg_get_function_identity_arguments: the arguments that identify the function (a
/// procedure's OUT arguments too), without defaults.
pub fn identity_arguments(def: &FunctionDef) -> String {
    def.args
        .iter()
        .filter(|a| a.is_input() || (def.kind == 'p' && a.mode == 'o'))
        .map(|a| one(a, def.kind == 'p', false))
        .collect::<Vec<_>>()
        .join(", ")
}

/// pg_get_function_result: the result type, `SETOF t`, or `TABLE(...)`; None for a
/// procedure.
pub fn result(def: &FunctionDef) -> Option<String> {
    if def.kind == 'p' {
        return None;
    }
    let table: Vec<String> = def
        .args
        .iter()
        .filter(|a| a.mode == 't')
        .map(|a| format!("{} {}", quote_ident(&a.name), Type(a.type_oid).name()))
        .collect();
    if !table.is_empty() {
        return Some(format!("TABLE({})", table.join(", ")));
    }
    let t = if def.returns == 2279 {
        "trigger".to_string()
    } else {
        Type(def.returns).name()
    };
    Some(if def.returns_set {
        format!("SETOF {t}")
    } else {
        t
    })
}

/// A dollar quote whose opening (`$function`, a procedure's `$procedure`, else with a
/// suffix of x's) does not occur in `body`, as PostgreSQL chooses it.
fn dollar_quote(body: &str, procedure: bool) -> String {
    let mut tag = if procedure { "procedure" } else { "function" }.to_string();
    while body.contains(&format!("${tag}")) {
        tag.push('x');
    }
    format!("${tag}$")
}

/// pg_get_functiondef.
pub fn functiondef(def: &FunctionDef) -> String {
    let procedure = def.kind == 'p';
    let mut s = format!(
        "CREATE OR REPLACE {} {}.{}({})\n",
        if procedure { "PROCEDURE" } else { "FUNCTION" },
        quote_ident(&def.schema),
        quote_ident(&def.name),
        arguments(def)
    );
    if let Some(r) = result(def) {
        s.push_str(&format!(" RETURNS {r}\n"));
    }
    s.push_str(&format!(" LANGUAGE {}\n", def.language));
    let mut flags = String::new();
    match def.volatility {
        'i' => flags.push_str(" IMMUTABLE"),
        's' => flags.push_str(" STABLE"),
        _ => {}
    }
    if def.strict {
        flags.push_str(" STRICT");
    }
    if def.security_definer {
        flags.push_str(" SECURITY DEFINER");
    }
    if def.leakproof {
        flags.push_str(" LEAKPROOF");
    }
    match def.parallel {
        's' => flags.push_str(" PARALLEL SAFE"),
        'r' => flags.push_str(" PARALLEL RESTRICTED"),
        _ => {}
    }
    if def.cost != 100.0 {
        flags.push_str(&format!(" COST {}", def.cost));
    }
    if def.returns_set && def.rows != 0.0 && def.rows != 1000.0 {
        flags.push_str(&format!(" ROWS {}", def.rows));
    }
    if !flags.is_empty() {
        s.push_str(&flags);
        s.push('\n');
    }
    for c in &def.config {
        if let Some((name, value)) = c.split_once('=') {
            let shown = if name == "search_path" {
                value
                    .split(',')
                    .map(|v| crate::sql::quote::quote_literal(v.trim()))
                    .collect::<Vec<_>>()
                    .join(", ")
            } else {
                crate::sql::quote::quote_literal(value)
            };
            s.push_str(&format!(" SET {name} TO {shown}\n"));
        }
    }
    if def.sql_body {
        // An empty block (`BEGIN ATOMIC END`) prints no statement.
        if def.body.trim().is_empty() {
            s.push_str("BEGIN ATOMIC\nEND\n");
        } else {
            s.push_str(&format!("BEGIN ATOMIC\n {};\nEND\n", def.body));
        }
    } else {
        let q = dollar_quote(&def.body, procedure);
        s.push_str(&format!("AS {q}{}{q}\n", def.body));
    }
    s
}
