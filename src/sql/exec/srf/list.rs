//! Set-returning functions whose rows are computed at their first call (each bounded by the
//! size of its input value): json(b)_array_elements[_text], json(b)_object_keys,
//! regexp_split_to_table and regexp_matches.

use crate::error::{code, PgError, PgResult};
use crate::sql::func;
use crate::sql::plan::ListFn;
use crate::sql::types::{json, ops, Array, FormatCtx, Type, Value};

fn invalid(msg: String) -> PgError {
    PgError::new(code::INVALID_PARAMETER_VALUE, msg)
}

fn text_arg(v: &Value) -> &str {
    v.as_str().unwrap_or("")
}

/// A scalar function of the function library (`sql::func`) by name and argument count.
fn call(name: &str, args: &[Value], fmt: &FormatCtx) -> PgResult<Value> {
    let sig = func::lookup(name)
        .iter()
        .find(|s| s.args.len() == args.len())
        .ok_or_else(|| PgError::internal(format!("{name} missing")))?;
    (sig.f)(args, fmt)
}

/// The rows of one call (the arguments are not NULL: the caller returns no rows then).
pub(super) fn rows(f: ListFn, vals: &[Value], fmt: &FormatCtx) -> PgResult<Vec<Value>> {
    if let ListFn::RegexpSplit { ci: true } | ListFn::RegexpMatches { ci: true } = f {
        // citext's versions: the flags made case-insensitive unless they say `c`.
        let flags = vals.get(2).map(text_arg).unwrap_or("");
        let flags = if flags.contains('c') {
            flags.to_string()
        } else {
            format!("{flags}i")
        };
        let vals = [vals[0].clone(), vals[1].clone(), Value::Text(flags)];
        let plain = match f {
            ListFn::RegexpSplit { .. } => ListFn::RegexpSplit { ci: false },
            _ => ListFn::RegexpMatches { ci: false },
        };
        return rows(plain, &vals, fmt);
    }
    match f {
        ListFn::ArrayElements { jsonb, text } => {
            let src = text_arg(&vals[0]);
            let root = json::parse(src, jsonb)?;
            let name = format!(
                "{}_array_elements{}",
                if jsonb { "jsonb" } else { "json" },
                if text { "_text" } else { "" }
            );
            let json::Json::Array(items) = &root.v else {
                return Err(match (jsonb, &root.v) {
                    (true, json::Json::Object(_)) => {
                        invalid("cannot extract elements from an object".into())
                    }
                    (true, _) => invalid("cannot extract elements from a scalar".into()),
                    (false, json::Json::Object(_)) => {
                        invalid(format!("cannot call {name} on a non-array"))
                    }
                    (false, _) => invalid(format!("cannot call {name} on a scalar")),
                });
            };
            Ok(items
                .iter()
                .map(|n| {
                    if text {
                        json::node_as_text(src, n, jsonb)
                    } else {
                        Value::Text(json::node_text(src, n, jsonb))
                    }
                })
                .collect())
        }
        ListFn::ObjectKeys { jsonb } => {
            // jsonb keeps its keys sorted and unique.
            let normalized;
            let src = if jsonb {
                normalized = json::jsonb_in(text_arg(&vals[0]))?;
                normalized.as_str()
            } else {
                text_arg(&vals[0])
            };
            let root = json::parse(src, jsonb)?;
            let name = if jsonb {
                "jsonb_object_keys"
            } else {
                "json_object_keys"
            };
            match &root.v {
                json::Json::Object(fields) => {
                    Ok(fields.iter().map(|(k, _)| Value::Text(k.clone())).collect())
                }
                json::Json::Array(_) => Err(invalid(format!("cannot call {name} on an array"))),
                _ => Err(invalid(format!("cannot call {name} on a scalar"))),
            }
        }
        ListFn::Each { jsonb, text } => {
            // jsonb's pairs come in its canonical order, its duplicate keys removed.
            let normalized;
            let src = if jsonb {
                normalized = json::jsonb_in(text_arg(&vals[0]))?;
                normalized.as_str()
            } else {
                text_arg(&vals[0])
            };
            let root = json::parse(src, jsonb)?;
            let fields = match (&root.v, jsonb) {
                (json::Json::Object(fields), _) => fields,
                (_, true) => {
                    let name = if text {
                        "jsonb_each_text"
                    } else {
                        "jsonb_each"
                    };
                    return Err(invalid(format!("cannot call {name} on a non-object")));
                }
                (json::Json::Array(_), false) => {
                    return Err(invalid("cannot deconstruct an array as an object".into()))
                }
                (_, false) => return Err(invalid("cannot deconstruct a scalar".into())),
            };
            Ok(fields
                .iter()
                .map(|(k, n)| {
                    let v = if text {
                        json::node_as_text(src, n, jsonb)
                    } else {
                        Value::Text(json::node_text(src, n, jsonb))
                    };
                    Value::Record(vec![Value::Text(k.clone()), v])
                })
                .collect())
        }
        ListFn::OptionsToTable => {
            let Value::Array(a) = &vals[0] else {
                return Ok(Vec::new());
            };
            Ok(a.items
                .iter()
                .filter_map(|v| v.as_str())
                .map(|item| {
                    let (name, value) = match item.split_once('=') {
                        Some((n, v)) => (n, Value::Text(v.to_string())),
                        None => (item, Value::Null),
                    };
                    Value::Record(vec![Value::Text(name.to_string()), value])
                })
                .collect())
        }
        ListFn::RegexpSplit { .. } => match call("regexp_split_to_array", vals, fmt)? {
            Value::Array(a) => Ok(a.items),
            _ => Ok(Vec::new()),
        },
        ListFn::RegexpMatches { .. } => {
            let flags = vals.get(2).map(text_arg).unwrap_or("");
            if !flags.contains('g') {
                // One row, or none when nothing matches.
                return Ok(match call("regexp_match", vals, fmt)? {
                    Value::Null => Vec::new(),
                    v => vec![v],
                });
            }
            // The other flags are checked as regexp_match checks them.
            let rest: String = flags.chars().filter(|c| *c != 'g').collect();
            let probe = [vals[0].clone(), vals[1].clone(), Value::Text(rest.clone())];
            call("regexp_match", &probe, fmt)?;
            let re = ops::compile_regex(text_arg(&vals[1]), rest.contains('i'))?;
            let mut out = Vec::new();
            for c in re.captures_iter(text_arg(&vals[0])) {
                let items: Vec<Value> = if c.len() > 1 {
                    (1..c.len())
                        .map(|i| {
                            c.get(i)
                                .map(|m| Value::Text(m.as_str().to_string()))
                                .unwrap_or(Value::Null)
                        })
                        .collect()
                } else {
                    c.get(0)
                        .map(|m| vec![Value::Text(m.as_str().to_string())])
                        .unwrap_or_default()
                };
                out.push(Value::Array(Box::new(Array::one_dim(Type::TEXT, items))));
            }
            Ok(out)
        }
    }
}
