//! Quoting identifiers and string literals as PostgreSQL writes them into SQL text: for
//! quote_ident / quote_literal and format('%I' / '%L'), and wherever a name or a string is
//! printed back as SQL (pg_get_viewdef and the other deparsing functions, regclass and regrole
//! output, SET search_path); and reading such a name back (`parse_qualified`, as regclass
//! input does). It depends on nothing in the SQL layer, so the types layer, the deparser and
//! the function library can all use it.

use crate::error::{code, PgError, PgResult};

/// PostgreSQL 15's keywords that are not UNRESERVED_KEYWORD (parser/kwlist.h): the reserved, the
/// column-name and the type-or-function-name keywords, which quote_identifier quotes.
const RESERVED: &[&str] = &[
    "all",
    "analyse",
    "analyze",
    "and",
    "any",
    "array",
    "as",
    "asc",
    "asymmetric",
    "authorization",
    "binary",
    "both",
    "case",
    "cast",
    "check",
    "collate",
    "collation",
    "column",
    "concurrently",
    "constraint",
    "create",
    "cross",
    "current_catalog",
    "current_date",
    "current_role",
    "current_schema",
    "current_time",
    "current_timestamp",
    "current_user",
    "default",
    "deferrable",
    "desc",
    "distinct",
    "do",
    "else",
    "end",
    "except",
    "false",
    "fetch",
    "for",
    "foreign",
    "freeze",
    "from",
    "full",
    "grant",
    "group",
    "having",
    "ilike",
    "in",
    "initially",
    "inner",
    "intersect",
    "into",
    "is",
    "isnull",
    "join",
    "lateral",
    "leading",
    "left",
    "like",
    "limit",
    "localtime",
    "localtimestamp",
    "natural",
    "not",
    "notnull",
    "null",
    "offset",
    "on",
    "only",
    "or",
    "order",
    "outer",
    "overlaps",
    "placing",
    "primary",
    "references",
    "returning",
    "right",
    "select",
    "session_user",
    "similar",
    "some",
    "symmetric",
    "system_user",
    "table",
    "tablesample",
    "then",
    "to",
    "trailing",
    "true",
    "union",
    "unique",
    "user",
    "using",
    "variadic",
    "verbose",
    "when",
    "where",
    "window",
    "with",
    "between",
    "bigint",
    "bit",
    "boolean",
    "char",
    "character",
    "coalesce",
    "dec",
    "decimal",
    "exists",
    "extract",
    "float",
    "greatest",
    "grouping",
    "inout",
    "int",
    "integer",
    "interval",
    "least",
    "national",
    "nchar",
    "none",
    "normalize",
    "nullif",
    "numeric",
    "out",
    "overlay",
    "position",
    "precision",
    "real",
    "row",
    "setof",
    "smallint",
    "substring",
    "time",
    "timestamp",
    "treat",
    "trim",
    "values",
    "varchar",
    "xmlattributes",
    "xmlconcat",
    "xmlelement",
    "xmlexists",
    "xmlforest",
    "xmlnamespaces",
    "xmlparse",
    "xmlpi",
    "xmlroot",
    "xmlserialize",
    "xmltable",
];

/// PostgreSQL's quote_identifier (ruleutils.c): the name as it is when it is a lower-case letter
/// or underscore followed by lower-case letters, digits and underscores, and not a keyword that
/// [`RESERVED`] lists; otherwise in double quotes, with double quotes doubled.
pub fn quote_ident(s: &str) -> String {
    let safe = !s.is_empty()
        && s.chars()
            .next()
            .is_some_and(|c| c.is_ascii_lowercase() || c == '_')
        && s.chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
        && !RESERVED.contains(&s);
    if safe {
        return s.to_string();
    }
    format!("\"{}\"", s.replace('"', "\"\""))
}

/// PostgreSQL's quote_literal (quote.c): single quotes and backslashes doubled, in the E''
/// form when the string has a backslash.
pub fn quote_literal(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    if s.contains('\\') {
        out.push('E');
    }
    out.push('\'');
    for c in s.chars() {
        if c == '\'' || c == '\\' {
            out.push(c);
        }
        out.push(c);
    }
    out.push('\'');
    out
}

/// PostgreSQL's simple_quote_literal (ruleutils.c), as the deparser writes string constants:
/// single quotes doubled, never the E'' form (standard_conforming_strings is on).
pub fn simple_quote_literal(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}

/// Splits a relation name as regclass input does: dot-separated identifiers, unquoted ones
/// folded to lower case, `""` inside quotes standing for one quote.
pub fn parse_qualified(s: &str) -> PgResult<Vec<String>> {
    let bad = || PgError::new(code::INVALID_NAME, "invalid name syntax");
    let mut parts = Vec::new();
    let mut chars = s.trim().chars().peekable();
    loop {
        let mut part = String::new();
        while chars.peek().is_some_and(|c| c.is_whitespace()) {
            chars.next();
        }
        if chars.peek() == Some(&'"') {
            chars.next();
            loop {
                match chars.next() {
                    Some('"') if chars.peek() == Some(&'"') => {
                        chars.next();
                        part.push('"');
                    }
                    Some('"') => break,
                    Some(c) => part.push(c),
                    None => return Err(bad()),
                }
            }
            if part.is_empty() {
                return Err(bad());
            }
        } else {
            while let Some(&c) = chars.peek() {
                if c == '.' || c.is_whitespace() {
                    break;
                }
                part.extend(c.to_lowercase());
                chars.next();
            }
            if part.is_empty() {
                return Err(bad());
            }
        }
        // PostgreSQL truncates identifiers to NAMEDATALEN - 1 bytes.
        while part.len() > 63 {
            part.pop();
        }
        parts.push(part);
        while chars.peek().is_some_and(|c| c.is_whitespace()) {
            chars.next();
        }
        match chars.next() {
            None => break,
            Some('.') => continue,
            Some(_) => return Err(bad()),
        }
    }
    Ok(parts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers() {
        assert_eq!(quote_ident("abc_1"), "abc_1");
        assert_eq!(quote_ident("_x"), "_x");
        assert_eq!(quote_ident("Abc"), "\"Abc\"");
        assert_eq!(quote_ident("1a"), "\"1a\"");
        assert_eq!(quote_ident(""), "\"\"");
        assert_eq!(quote_ident("a$b"), "\"a$b\"");
        assert_eq!(quote_ident("a\"b"), "\"a\"\"b\"");
        // Reserved, column-name and type/function-name keywords are quoted; unreserved ones
        // are not.
        assert_eq!(quote_ident("select"), "\"select\"");
        assert_eq!(quote_ident("int"), "\"int\"");
        assert_eq!(quote_ident("left"), "\"left\"");
        assert_eq!(quote_ident("name"), "name");
        assert_eq!(quote_ident("json"), "json");
    }

    #[test]
    fn literals() {
        assert_eq!(quote_literal("it's"), "'it''s'");
        assert_eq!(quote_literal("a\\b"), "E'a\\\\b'");
        assert_eq!(simple_quote_literal("it's"), "'it''s'");
        assert_eq!(simple_quote_literal("a\\b"), "'a\\b'");
    }
}
