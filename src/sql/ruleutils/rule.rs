//! pg_get_ruledef: the CREATE RULE statement of a rule, laid out as ruleutils.c lays it out
//! (psql's `\d` prints it under "Rules:", pg_rules shows it). The condition and the commands
//! are printed from the text kept (`catalog::rules`), not from an analyzed tree.

use crate::catalog::rules::RuleDef;
use crate::sql::quote::quote_ident;

/// The statement; `table` is already qualified as it should print.
pub fn ruledef(r: &RuleDef, table: &str, pretty: bool) -> String {
    let mut s = format!("CREATE RULE {} AS", quote_ident(&r.name));
    s.push_str(if pretty { "\n    ON " } else { " ON " });
    s.push_str(r.event.word());
    s.push_str(" TO ");
    s.push_str(table);
    if let Some(q) = &r.qual {
        if pretty {
            s.push_str("\n  ");
        }
        s.push_str(" WHERE ");
        s.push_str(q);
    }
    s.push_str(" DO ");
    if r.instead {
        s.push_str("INSTEAD ");
    }
    match r.actions.as_slice() {
        [] => s.push_str("NOTHING;"),
        [one] => {
            s.push_str(one);
            s.push(';');
        }
        many => {
            s.push('(');
            for a in many {
                s.push_str(a);
                s.push_str(if pretty { ";\n" } else { "; " });
            }
            s.push_str(");");
        }
    }
    s
}
