//! RAISE and GET DIAGNOSTICS: messages and errors a body raises, and what it reads back
//! about the last statement or the error being handled.

use super::compile::{self, Site};
use super::conditions;
use super::run::{Flow, Frame};
use crate::error::{code, PgError, PgResult, Severity};
use crate::sql::types::{io, Value};

impl Frame<'_> {
    pub(super) fn raise(
        &mut self,
        level: i64,
        condname: Option<&str>,
        message: Option<&str>,
        params: &[Site],
        options: &[compile::RaiseOpt],
    ) -> PgResult<Flow> {
        if condname.is_none() && message.is_none() && options.is_empty() {
            // RAISE; re-raises the error being handled.
            return match self.caught.last() {
                Some(e) => {
                    self.placed = true;
                    Err(e.clone())
                }
                None => Err(PgError::new(
                    "0Z002",
                    "RAISE without parameters cannot be used outside an exception handler",
                )),
            };
        }
        let mut sqlstate: Option<&'static str> = None;
        let mut cond_text: Option<String> = None;
        if let Some(c) = condname {
            sqlstate = Some(conditions::sqlstate_of(c)?);
            cond_text = Some(c.to_string());
        }
        let mut text = match message {
            Some(m) => {
                let mut out = String::new();
                let mut values = params.iter();
                let mut chars = m.chars().peekable();
                while let Some(ch) = chars.next() {
                    if ch == '%' {
                        if chars.peek() == Some(&'%') {
                            chars.next();
                            out.push('%');
                            continue;
                        }
                        match values.next() {
                            Some(site) => {
                                let (v, t) = self.eval(site)?;
                                if v.is_null() {
                                    out.push_str("<NULL>");
                                } else {
                                    out.push_str(&io::to_text(&v, t, self.spi.fmt()));
                                }
                            }
                            None => out.push('%'),
                        }
                    } else {
                        out.push(ch);
                    }
                }
                Some(out)
            }
            None => None,
        };
        let (mut detail, mut hint) = (None, None);
        let mut objects = crate::error::ErrorObjects::default();
        for opt in options {
            let (v, t) = self.eval(&opt.expr)?;
            if v.is_null() {
                return Err(PgError::new(
                    code::NULL_VALUE_NOT_ALLOWED,
                    "RAISE statement option cannot be null",
                ));
            }
            let s = io::to_text(&v, t, self.spi.fmt());
            let dup = |what: &str| {
                PgError::new(
                    code::SYNTAX_ERROR,
                    format!("RAISE option already specified: {what}"),
                )
            };
            match opt.kind {
                0 => {
                    if sqlstate.is_some() {
                        return Err(dup("ERRCODE"));
                    }
                    sqlstate = Some(conditions::sqlstate_of(&s)?);
                    cond_text = Some(s);
                }
                1 => {
                    if text.is_some() {
                        return Err(dup("MESSAGE"));
                    }
                    text = Some(s);
                }
                2 => {
                    if detail.is_some() {
                        return Err(dup("DETAIL"));
                    }
                    detail = Some(s);
                }
                3 => {
                    if hint.is_some() {
                        return Err(dup("HINT"));
                    }
                    hint = Some(s);
                }
                4 => objects.column = Some(s),
                5 => objects.constraint = Some(s),
                6 => objects.datatype = Some(s),
                7 => objects.table = Some(s),
                _ => objects.schema = Some(s),
            }
        }
        let is_error = level >= 21;
        let sqlstate = sqlstate.unwrap_or(if is_error { "P0001" } else { "00000" });
        let text = text.or(cond_text).unwrap_or_else(|| sqlstate.to_string());
        let mut e = PgError::new(sqlstate, text);
        e.severity = match level {
            21.. => Severity::Error,
            19 | 20 => Severity::Warning,
            18 => Severity::Notice,
            17 => Severity::Info,
            15 | 16 => Severity::Log,
            _ => Severity::Debug(1),
        };
        e.detail = detail;
        e.hint = hint;
        if objects != crate::error::ErrorObjects::default() {
            e.objects = Some(Box::new(objects));
        }
        if is_error {
            return Err(e);
        }
        if sqlstate == "00000" && e.severity == Severity::Warning {
            e.code = code::WARNING;
        }
        self.spi.notice(e);
        Ok(Flow::Next)
    }

    pub(super) fn diagnostic(&mut self, stacked: bool, kind: &str) -> PgResult<Value> {
        if !stacked {
            return Ok(match kind {
                "ROW_COUNT" => Value::Int8(self.row_count as i64),
                "PG_CONTEXT" => Value::Text(self.context.to_string()),
                other => {
                    return Err(PgError::feature_not_supported(format!(
                        "GET DIAGNOSTICS {other} is not supported yet"
                    )))
                }
            });
        }
        let Some(e) = self.caught.last() else {
            return Err(PgError::new(
                "0Z002",
                "GET STACKED DIAGNOSTICS cannot be used outside an exception handler",
            ));
        };
        let obj = |f: fn(&crate::error::ErrorObjects) -> &Option<String>| {
            e.objects
                .as_ref()
                .and_then(|o| f(o).clone())
                .unwrap_or_default()
        };
        Ok(Value::Text(match kind {
            "RETURNED_SQLSTATE" => e.code.to_string(),
            "MESSAGE_TEXT" => e.message.clone(),
            "PG_EXCEPTION_DETAIL" => e.detail.clone().unwrap_or_default(),
            "PG_EXCEPTION_HINT" => e.hint.clone().unwrap_or_default(),
            "PG_EXCEPTION_CONTEXT" => e.context.clone().unwrap_or_default(),
            "COLUMN_NAME" => obj(|o| &o.column),
            "CONSTRAINT_NAME" => obj(|o| &o.constraint),
            "PG_DATATYPE_NAME" => obj(|o| &o.datatype),
            "TABLE_NAME" => obj(|o| &o.table),
            "SCHEMA_NAME" => obj(|o| &o.schema),
            other => {
                return Err(PgError::feature_not_supported(format!(
                    "GET STACKED DIAGNOSTICS {other} is not supported yet"
                )))
            }
        }))
    }
}
