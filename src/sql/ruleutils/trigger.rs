//! pg_get_triggerdef: the CREATE TRIGGER statement of a trigger, laid out as ruleutils.c lays
//! it out (psql's `\d` prints it under "Triggers:").

use crate::catalog::triggers::{self, TriggerDef};
use crate::sql::quote::{quote_ident, quote_literal};

/// The statement; `table`, `function` and a constraint trigger's FROM table (`from`) are
/// already qualified as they should print.
pub fn triggerdef(
    t: &TriggerDef,
    table: &str,
    columns: &[String],
    function: &str,
    from: Option<&str>,
    pretty: bool,
) -> String {
    let mut s = format!(
        "CREATE {}TRIGGER {} {} ",
        if t.constraint.is_some() {
            "CONSTRAINT "
        } else {
            ""
        },
        quote_ident(&t.name),
        t.timing().word()
    );
    let mut events = Vec::new();
    for e in [
        triggers::INSERT,
        triggers::DELETE,
        triggers::UPDATE,
        triggers::TRUNCATE,
    ] {
        if !t.on(e) {
            continue;
        }
        let mut w = triggers::event_word(e).to_string();
        if e == triggers::UPDATE && !t.columns.is_empty() {
            let cols: Vec<String> = t
                .columns
                .iter()
                .map(|&c| quote_ident(columns.get(c).map_or("?", String::as_str)))
                .collect();
            w.push_str(" OF ");
            w.push_str(&cols.join(", "));
        }
        events.push(w);
    }
    s.push_str(&events.join(" OR "));
    s.push_str(" ON ");
    s.push_str(table);
    if t.has_transitions() {
        s.push_str(" REFERENCING");
        if let Some(n) = &t.old_table {
            s.push_str(&format!(" OLD TABLE AS {}", quote_ident(n)));
        }
        if let Some(n) = &t.new_table {
            s.push_str(&format!(" NEW TABLE AS {}", quote_ident(n)));
        }
    }
    // A constraint trigger's FROM and timing, always spelled out as ruleutils.c does.
    if let Some(k) = &t.constraint {
        if let Some(f) = from {
            s.push_str(&format!(" FROM {f}"));
        }
        s.push_str(if k.deferrable {
            " DEFERRABLE INITIALLY "
        } else {
            " NOT DEFERRABLE INITIALLY "
        });
        s.push_str(if k.initially_deferred {
            "DEFERRED"
        } else {
            "IMMEDIATE"
        });
    }
    s.push_str(if t.row() {
        " FOR EACH ROW"
    } else {
        " FOR EACH STATEMENT"
    });
    if let Some(w) = &t.when {
        if pretty {
            s.push_str(&format!(" WHEN ({w})"));
        } else {
            s.push_str(&format!(" WHEN (({w}))"));
        }
    }
    let args: Vec<String> = t.args.iter().map(|a| quote_literal(a)).collect();
    s.push_str(&format!(
        " EXECUTE FUNCTION {function}({})",
        args.join(", ")
    ));
    s
}
