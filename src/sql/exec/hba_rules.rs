//! The rows of pg_hba_file_rules: each line of the host rules file as PostgreSQL 15 shows it
//! (the file as it is on disk now, like PostgreSQL's view, whatever rules are loaded).

use super::catalog_roles::text_array;
use super::Row;
use crate::error::{code, PgError, PgResult};
use crate::instance::Instance;
use crate::sql::types::Value;

fn text(s: Option<String>) -> Value {
    s.map(Value::Text).unwrap_or(Value::Null)
}

pub(super) fn rows(instance: &Instance) -> PgResult<Vec<Row>> {
    let parsed = instance
        .hba
        .view()
        .map_err(|e| PgError::new(code::UNDEFINED_FILE, e))?;
    Ok(parsed
        .lines
        .into_iter()
        .map(|l| {
            let line = Value::Int4(l.line as i32);
            let error = text(l.error);
            match l.rule {
                None => vec![
                    line,
                    Value::Null,
                    Value::Null,
                    Value::Null,
                    Value::Null,
                    Value::Null,
                    Value::Null,
                    Value::Null,
                    error,
                ],
                Some(r) => {
                    let (address, netmask) = r.address_columns();
                    let names = |t: &[crate::hba::Token]| {
                        t.iter().map(|t| t.text.clone()).collect::<Vec<String>>()
                    };
                    vec![
                        line,
                        Value::Text(r.conn.name().into()),
                        text_array(&names(&r.databases)),
                        text_array(&names(&r.users)),
                        text(address),
                        text(netmask),
                        Value::Text(r.method.name().into()),
                        text_array(&r.options),
                        error,
                    ]
                }
            }
        })
        .collect())
}
