//! From a PL/pgSQL body to the statements [`super::run`] executes.
//!
//! PL/pgSQL's own grammar (pg_query's `parse_plpgsql`, PostgreSQL's pl_gram.y) gives the
//! statement tree as JSON, with the variables as a flat list of "datums" that statements name
//! by number. Two things the JSON leaves out are recovered here from the body's tokens:
//!
//! - **Which block declares which variable.** Datums are numbered in the order the grammar
//!   made them: the parameters, `found`, then, in source order, each block's declarations,
//!   each integer FOR loop's variable and each exception section's `sqlstate` / `sqlerrm`
//!   (rows, record fields and CASE variables come and go in between; they are never named by
//!   a declaration). The tokens say which names each DECLARE section declares (and which are
//!   ALIASes, which make no datum); walking the tree in source order with a cursor over the
//!   datums then gives every block its variables. Each name is checked against the datum it
//!   is matched with, so a mismatch is an error, never a wrong binding.
//! - **`RETURN x` of a plain variable**, which the grammar keeps as a variable number that
//!   the JSON omits: [`parenthesize_returns`] writes it `RETURN (x)` before parsing, which
//!   means the same.
//!
//! Each expression or statement becomes a [`Site`]: its SQL text and the variables in scope
//! there (innermost last), planned when it first runs.

use std::sync::Arc;

use serde_json::Value as J;

use crate::error::{code, PgError, PgResult};

/// The most datums (variables) one body may have: a bound on what a call allocates.
pub const MAX_DATUMS: usize = 10_000;

/// A variable or other datum of the body, by number.
#[derive(Debug, Clone)]
pub enum Datum {
    /// A scalar variable (also a parameter, `found`, a FOR loop's counter).
    Var {
        name: String,
        /// The type as PL/pgSQL's grammar wrote it (`int4`, `_text`, `t%rowtype`,
        /// `t.c%TYPE`), resolved when the function is compiled for a call.
        typname: String,
        constant: bool,
        not_null: bool,
        default: Option<Site>,
        /// The line of its declaration (an error in its default names it).
        line: u32,
    },
    /// A record variable: its fields are those of the last row assigned to it.
    Rec { name: String },
    /// A list of variables assigned together (an INTO list, a FOR loop's targets).
    Row { fields: Vec<usize> },
    /// `rec.field`.
    RecField { rec: usize, field: String },
}

impl Datum {
    pub fn name(&self) -> &str {
        match self {
            Datum::Var { name, .. } | Datum::Rec { name } => name,
            Datum::Row { .. } | Datum::RecField { .. } => "",
        }
    }
}

/// A place that runs SQL: an expression (`SELECT <text>`) or a statement, with the variables
/// visible there.
#[derive(Debug, Clone)]
pub struct Site {
    /// Index into the call's plan cache.
    pub id: usize,
    pub text: String,
    pub scope: Arc<Scope>,
    /// An assignment's right-hand side: the whole `target := expr` text and the character
    /// at which `text` starts in it (errors name the assignment, as PostgreSQL's do).
    pub assignment: Option<(String, usize)>,
}

/// Names in scope, outermost first: (datum, qualifying labels). Aliases add a name for an
/// existing datum.
#[derive(Debug, Clone, Default)]
pub struct Scope {
    pub entries: Vec<ScopeEntry>,
}

#[derive(Debug, Clone)]
pub struct ScopeEntry {
    pub name: String,
    pub dno: usize,
    pub labels: Vec<String>,
}

/// Where a FOR loop, SELECT INTO or FETCH puts a row.
#[derive(Debug, Clone)]
pub enum Target {
    /// Variables, one per column.
    Vars(Vec<usize>),
    /// A record variable.
    Rec(usize),
}

#[derive(Debug, Clone)]
pub struct Block {
    pub label: Option<String>,
    /// The datums to initialize when the block is entered (its declarations).
    pub decls: Vec<usize>,
    pub body: Vec<Stmt>,
    pub handlers: Option<Handlers>,
    pub line: u32,
}

#[derive(Debug, Clone)]
pub struct Handlers {
    pub sqlstate: usize,
    pub sqlerrm: usize,
    pub arms: Vec<(Vec<String>, Vec<Stmt>)>,
}

#[derive(Debug, Clone)]
pub struct RaiseOpt {
    pub kind: i64,
    pub expr: Site,
}

/// A subscript of an assignment's target: `[upper]`, or a slice `[lower:upper]` whose
/// bounds may be omitted.
#[derive(Debug, Clone)]
pub struct Subscript {
    pub lower: Option<Site>,
    pub upper: Option<Site>,
    pub slice: bool,
}

#[derive(Debug, Clone)]
pub enum StmtKind {
    Block(Block),
    Assign {
        target: usize,
        /// A variable or a record's field (`r.f`), and the subscripts after it (`x[i][j]`,
        /// `x[1:2]`).
        subs: Vec<Subscript>,
        expr: Site,
    },
    If {
        arms: Vec<(Site, Vec<Stmt>)>,
        otherwise: Vec<Stmt>,
    },
    Case {
        /// The CASE's value and the hidden variable it is kept in.
        subject: Option<(Site, usize)>,
        arms: Vec<(Site, Vec<Stmt>)>,
        otherwise: Option<Vec<Stmt>>,
    },
    Loop {
        label: Option<String>,
        body: Vec<Stmt>,
    },
    While {
        label: Option<String>,
        cond: Site,
        body: Vec<Stmt>,
    },
    ForInt {
        label: Option<String>,
        var: usize,
        lower: Site,
        upper: Site,
        step: Option<Site>,
        reverse: bool,
        body: Vec<Stmt>,
    },
    ForQuery {
        label: Option<String>,
        target: Target,
        query: Site,
        /// EXECUTE's USING parameters when the query is dynamic.
        dynamic: Option<Vec<Site>>,
        body: Vec<Stmt>,
    },
    ForEach {
        label: Option<String>,
        target: Target,
        array: Site,
        slice: i64,
        body: Vec<Stmt>,
    },
    Exit {
        is_exit: bool,
        label: Option<String>,
        cond: Option<Site>,
    },
    Return(Option<Site>),
    /// RETURN NEXT: a row of a set-returning function's result (without an expression: the
    /// OUT parameters).
    ReturnNext(Option<Site>),
    /// RETURN QUERY [EXECUTE ... USING]: a query's rows appended to the result.
    ReturnQuery {
        query: Site,
        /// EXECUTE's USING parameters when the query is dynamic.
        dynamic: Option<Vec<Site>>,
    },
    Raise {
        level: i64,
        condname: Option<String>,
        message: Option<String>,
        params: Vec<Site>,
        options: Vec<RaiseOpt>,
    },
    Assert {
        cond: Site,
        message: Option<Site>,
    },
    Sql {
        stmt: Site,
        into: Option<Target>,
        strict: bool,
    },
    Perform(Site),
    /// CALL (or DO): a statement whose INOUT arguments are assigned back.
    Call(Site),
    /// COMMIT or ROLLBACK [AND CHAIN] in a procedure or DO block (`run.rs`).
    EndTransaction {
        commit: bool,
        chain: bool,
    },
    Dynamic {
        query: Site,
        into: Option<Target>,
        strict: bool,
        params: Vec<Site>,
    },
    GetDiag {
        stacked: bool,
        items: Vec<(String, usize)>,
    },
    /// OPEN: a bound cursor (with `args`, a query of its arguments' values), or an unbound
    /// one FOR a query or FOR EXECUTE.
    Open {
        curvar: usize,
        query: Option<Site>,
        dynamic: Option<(Site, Vec<Site>)>,
        args: Option<Site>,
    },
    /// FETCH / MOVE: PostgreSQL's direction (0 forward, 1 backward, 2 absolute, 3 relative)
    /// and count (or the expression giving it).
    Fetch {
        target: Option<Target>,
        curvar: usize,
        direction: i64,
        how_many: i64,
        count: Option<Site>,
        is_move: bool,
    },
    Close {
        curvar: usize,
    },
    /// FOR rec IN cursor [(args)] LOOP.
    ForCursor {
        label: Option<String>,
        rec: usize,
        curvar: usize,
        args: Option<Site>,
        body: Vec<Stmt>,
    },
    Null,
}

/// A bound cursor's declaration: its query and its arguments' datums.
#[derive(Debug, Clone)]
pub struct CursorDecl {
    pub query: Site,
    pub args: Vec<usize>,
}

#[derive(Debug, Clone)]
pub struct Stmt {
    pub line: u32,
    pub kind: StmtKind,
}

impl StmtKind {
    /// PostgreSQL's name of the statement in an error's CONTEXT line.
    pub fn describe(&self) -> &'static str {
        match self {
            StmtKind::Block(_) => "statement block",
            StmtKind::Assign { .. } => "assignment",
            StmtKind::If { .. } => "IF",
            StmtKind::Case { .. } => "CASE",
            StmtKind::Loop { .. } => "LOOP",
            StmtKind::While { .. } => "WHILE",
            StmtKind::ForInt { .. } => "FOR with integer loop variable",
            StmtKind::ForQuery { dynamic: None, .. } => "FOR over SELECT rows",
            StmtKind::ForQuery { .. } => "FOR over EXECUTE statement",
            StmtKind::ForEach { .. } => "FOREACH over array",
            StmtKind::Exit { is_exit: true, .. } => "EXIT",
            StmtKind::Exit { .. } => "CONTINUE",
            StmtKind::Return(_) => "RETURN",
            StmtKind::ReturnNext(_) => "RETURN NEXT",
            StmtKind::ReturnQuery { .. } => "RETURN QUERY",
            StmtKind::Raise { .. } => "RAISE",
            StmtKind::Assert { .. } => "ASSERT",
            StmtKind::Sql { .. } => "SQL statement",
            StmtKind::Perform(_) => "PERFORM",
            StmtKind::Call(_) => "CALL",
            StmtKind::EndTransaction { commit: true, .. } => "COMMIT",
            StmtKind::EndTransaction { .. } => "ROLLBACK",
            StmtKind::Dynamic { .. } => "EXECUTE",
            StmtKind::GetDiag { .. } => "GET DIAGNOSTICS",
            StmtKind::Open { .. } => "OPEN",
            StmtKind::Fetch { is_move: false, .. } => "FETCH",
            StmtKind::Fetch { .. } => "MOVE",
            StmtKind::Close { .. } => "CLOSE",
            StmtKind::ForCursor { .. } => "FOR over cursor",
            StmtKind::Null => "NULL",
        }
    }
}

/// A compiled body.
#[derive(Debug)]
pub struct Body {
    pub datums: Vec<Datum>,
    /// How many datums are parameters (they come first).
    pub n_params: usize,
    pub found: usize,
    /// Shared, so that a call does not copy the statements.
    pub block: Arc<Block>,
    /// How many [`Site`]s there are (the size of a call's plan cache).
    pub sites: usize,
    /// The bound cursors' declarations, by their variables' datums.
    pub cursors: std::collections::HashMap<usize, CursorDecl>,
    /// `%ROWTYPE` variables (record datums) and the row type each was declared with.
    pub rowtypes: std::collections::HashMap<usize, String>,
    /// Record variables declared with a type's name, by datum number: PL/pgSQL's grammar
    /// (which has no catalog) takes any type it does not know for a composite one. Such a
    /// variable starts as that type's row of NULLs as the %ROWTYPE ones do; one whose type
    /// proves not to be composite (a domain, an enum, ...) becomes the scalar variable
    /// [`NamedDecl::as_var`] when its block starts; a name that is no type leaves it an
    /// unassigned record.
    pub composites: std::collections::HashMap<usize, NamedDecl>,
}

/// A record variable declared with a type's name ([`Body::composites`]).
#[derive(Debug, Clone)]
pub struct NamedDecl {
    pub typname: String,
    /// The declaration as a scalar variable (a [`Datum::Var`], its default included).
    pub as_var: Datum,
}

/// A declaration of a DECLARE section, read from the tokens.
#[derive(Debug, Clone)]
enum Decl {
    /// A variable, and the type it names when that is a plain (possibly qualified) name:
    /// `r my_table` gives `my_table` (a record variable of a composite type), with the text of
    /// its default and its CONSTANT / NOT NULL.
    Var {
        name: String,
        ty: Option<String>,
        default: Option<String>,
        constant: bool,
        not_null: bool,
    },
    /// `name ALIAS FOR target` (`$n` or a name).
    Alias(String, String),
}

fn unsupported(what: &str) -> PgError {
    PgError::feature_not_supported(format!("{what} in PL/pgSQL is not supported yet"))
}

/// Folds an identifier as PostgreSQL's scanner does (quoted: as written).
fn ident(text: &str) -> String {
    match text.strip_prefix('"').and_then(|t| t.strip_suffix('"')) {
        Some(q) => q.replace("\"\"", "\""),
        None => text.to_lowercase(),
    }
}

/// The tokens of `body` that are not comments, as (text, start, end).
fn tokens(body: &str) -> PgResult<Vec<(String, usize, usize)>> {
    use pg_query::protobuf::Token;
    let scanned =
        pg_query::scan(body).map_err(|e| PgError::new(code::SYNTAX_ERROR, e.to_string()))?;
    Ok(scanned
        .tokens
        .iter()
        .filter(|t| t.token != Token::SqlComment as i32 && t.token != Token::CComment as i32)
        .filter_map(|t| {
            let (s, e) = (t.start as usize, t.end as usize);
            body.get(s..e).map(|x| (x.to_string(), s, e))
        })
        .collect())
}

/// `RETURN x;` and `RETURN NEXT x;` of a plain name written `RETURN (x);` (see the module
/// header).
pub fn parenthesize_returns(body: &str) -> PgResult<String> {
    let toks = tokens(body)?;
    let mut out = String::with_capacity(body.len() + 8);
    let mut copied = 0;
    let is_word = |t: &str| {
        let b = t.as_bytes();
        !b.is_empty()
            && (b[0].is_ascii_alphabetic() || b[0] == b'_' || b[0] == b'"' || b[0] >= 0x80)
    };
    let mut i = 0;
    while i < toks.len() {
        if toks[i].0.eq_ignore_ascii_case("return") {
            let mut j = i + 1;
            if toks
                .get(j)
                .is_some_and(|t| t.0.eq_ignore_ascii_case("next"))
            {
                j += 1;
            }
            // name ( . name )* ;
            let start = j;
            let mut k = j;
            while toks.get(k).is_some_and(|t| is_word(&t.0)) {
                k += 1;
                if toks.get(k).is_some_and(|t| t.0 == ".") {
                    k += 1;
                } else {
                    break;
                }
            }
            let simple = k > start
                && toks.get(k).is_some_and(|t| t.0 == ";")
                && !toks[start].0.eq_ignore_ascii_case("null")
                && !toks[start].0.eq_ignore_ascii_case("query");
            if simple {
                let (s, e) = (toks[start].1, toks[k - 1].2);
                out.push_str(&body[copied..s]);
                out.push('(');
                out.push_str(&body[s..e]);
                out.push(')');
                copied = e;
                i = k;
                continue;
            }
        }
        i += 1;
    }
    out.push_str(&body[copied..]);
    Ok(out)
}

/// The type a declaration's tokens after its name give when it is a plain name (`t`,
/// `schema.t`, after CONSTANT), followed by nothing, a default or NOT NULL; None for others
/// (`int[]`, `numeric(5,2)`, `CURSOR FOR ...`).
fn named_type(toks: &[&str]) -> Option<String> {
    let toks = match toks.first() {
        Some(c) if c.eq_ignore_ascii_case("constant") => &toks[1..],
        _ => toks,
    };
    let is_name = |t: &str| {
        let b = t.as_bytes();
        !b.is_empty()
            && (b[0].is_ascii_alphabetic() || b[0] == b'_' || b[0] == b'"' || b[0] >= 0x80)
    };
    let mut end = 0;
    while toks.get(end).is_some_and(|t| is_name(t)) {
        end += 1;
        if toks.get(end) == Some(&".") {
            end += 1;
        } else {
            break;
        }
    }
    let ends = match toks.get(end) {
        None => true,
        Some(t) => {
            *t == ":="
                || *t == "="
                || ["default", "not", "collate"]
                    .iter()
                    .any(|k| t.eq_ignore_ascii_case(k))
        }
    };
    (end > 0 && ends && toks[end - 1] != ".").then(|| toks[..end].concat())
}

/// The declarations of each block, in the order of the blocks' BEGINs.
fn declare_sections(body: &str) -> PgResult<Vec<Vec<Decl>>> {
    let toks = tokens(body)?;
    let mut sections = Vec::new();
    let mut current: Option<Vec<Decl>> = None;
    let mut stmt: Vec<(&str, usize, usize)> = Vec::new();
    for (t, start, end) in &toks {
        let lower = t.to_lowercase();
        if lower == "begin" {
            sections.push(current.take().unwrap_or_default());
            stmt.clear();
            continue;
        }
        if lower == "declare" {
            current.get_or_insert_with(Vec::new);
            stmt.clear();
            continue;
        }
        let Some(decls) = current.as_mut() else {
            continue;
        };
        if t == ";" {
            if let Some(name) = stmt.first() {
                let alias = stmt
                    .get(1)
                    .is_some_and(|s| s.0.eq_ignore_ascii_case("alias"));
                if alias {
                    let target = stmt.get(3).map(|s| s.0.to_string()).unwrap_or_default();
                    decls.push(Decl::Alias(ident(name.0), target));
                } else {
                    let words: Vec<&str> = stmt.iter().map(|t| t.0).collect();
                    let at = words
                        .iter()
                        .position(|w| *w == ":=" || *w == "=" || w.eq_ignore_ascii_case("default"));
                    let default = at
                        .filter(|&k| k + 1 < stmt.len())
                        .map(|k| body[stmt[k + 1].1..stmt[stmt.len() - 1].2].to_string());
                    let head = &words[..at.unwrap_or(words.len())];
                    decls.push(Decl::Var {
                        name: ident(name.0),
                        ty: named_type(&words[1..]),
                        default,
                        constant: head
                            .get(1)
                            .is_some_and(|w| w.eq_ignore_ascii_case("constant")),
                        not_null: head.windows(2).any(|w| {
                            w[0].eq_ignore_ascii_case("not") && w[1].eq_ignore_ascii_case("null")
                        }),
                    });
                }
            }
            stmt.clear();
        } else if !(stmt.is_empty() && t.starts_with("<<")) {
            stmt.push((t, *start, *end));
        }
    }
    Ok(sections)
}

struct Compiler<'a> {
    json_datums: &'a [J],
    datums: Vec<Datum>,
    /// The next datum a declaration, loop or exception section may take.
    cursor: usize,
    sections: std::vec::IntoIter<Vec<Decl>>,
    sites: usize,
    scope: Scope,
    /// Datums that are a bound cursor's arguments (declared with it, never by a DECLARE).
    cursor_args: std::collections::HashSet<usize>,
    cursors: std::collections::HashMap<usize, CursorDecl>,
    /// Record variables declared with a type's name ([`Body::composites`]).
    composites: std::collections::HashMap<usize, NamedDecl>,
}

fn obj<'a>(v: &'a J, kind: &str) -> Option<&'a J> {
    v.get(kind)
}

fn text(v: &J, key: &str) -> Option<String> {
    v.get(key).and_then(|x| x.as_str()).map(str::to_string)
}

fn int(v: &J, key: &str) -> i64 {
    v.get(key).and_then(|x| x.as_i64()).unwrap_or(0)
}

fn flag(v: &J, key: &str) -> bool {
    v.get(key).and_then(|x| x.as_bool()).unwrap_or(false)
}

/// The elements of array `key` of `v` (none when it is missing).
fn list<'a>(v: &'a J, key: &str) -> impl Iterator<Item = &'a J> {
    v.get(key).and_then(|l| l.as_array()).into_iter().flatten()
}

fn expr_text(v: &J) -> Option<String> {
    v.get("PLpgSQL_expr").and_then(|e| text(e, "query"))
}

fn malformed(what: &str) -> PgError {
    PgError::internal(format!("unexpected PL/pgSQL parse tree: {what}"))
}

impl Compiler<'_> {
    fn datum(&self, j: &J) -> PgResult<Datum> {
        if let Some(v) = obj(j, "PLpgSQL_var") {
            let typname = v
                .get("datatype")
                .and_then(|d| d.get("PLpgSQL_type"))
                .and_then(|t| text(t, "typname"))
                .unwrap_or_else(|| "unknown".into());
            return Ok(Datum::Var {
                name: text(v, "refname").unwrap_or_default(),
                typname,
                constant: flag(v, "isconst"),
                not_null: flag(v, "notnull"),
                default: None,
                line: int(v, "lineno") as u32,
            });
        }
        if let Some(r) = obj(j, "PLpgSQL_rec") {
            return Ok(Datum::Rec {
                name: text(r, "refname").unwrap_or_default(),
            });
        }
        if let Some(r) = obj(j, "PLpgSQL_row") {
            let fields = r
                .get("fields")
                .and_then(|f| f.as_array())
                .map(|f| {
                    f.iter()
                        .map(|x| int(x, "varno") as usize)
                        .collect::<Vec<_>>()
                })
                .unwrap_or_default();
            return Ok(Datum::Row { fields });
        }
        if let Some(r) = obj(j, "PLpgSQL_recfield") {
            return Ok(Datum::RecField {
                rec: int(r, "recparentno") as usize,
                field: text(r, "fieldname").unwrap_or_default(),
            });
        }
        Err(malformed("datum"))
    }

    fn site(&mut self, text: String) -> Site {
        let id = self.sites;
        self.sites += 1;
        Site {
            id,
            text,
            scope: Arc::new(self.scope.clone()),
            assignment: None,
        }
    }

    /// The subscripts of an assignment's target, from its tokens after the name: `[i]`,
    /// `[i][j]`, `[a:b]` (either bound may be omitted); anything else is not supported.
    fn subscripts(
        &mut self,
        text: &str,
        toks: &[(String, usize, usize)],
    ) -> PgResult<Vec<Subscript>> {
        let mut out = Vec::new();
        let mut i = 0;
        while i < toks.len() {
            if toks[i].0 != "[" {
                return Err(unsupported("assignment to an element"));
            }
            let open = toks[i].2;
            let mut depth = 0usize;
            let mut colon = None;
            let mut close = None;
            for (k, t) in toks.iter().enumerate().skip(i + 1) {
                match t.0.as_str() {
                    "[" | "(" => depth += 1,
                    ")" => depth = depth.saturating_sub(1),
                    "]" if depth == 0 => {
                        close = Some(k);
                        break;
                    }
                    "]" => depth -= 1,
                    ":" if depth == 0 && colon.is_none() => colon = Some(t.1),
                    _ => {}
                }
            }
            let close = close.ok_or_else(|| unsupported("assignment to an element"))?;
            let end = toks[close].1;
            let mut part = |a: usize, b: usize| {
                let t = text[a..b].trim();
                (!t.is_empty()).then(|| self.site(t.to_string()))
            };
            out.push(match colon {
                Some(c) => Subscript {
                    lower: part(open, c),
                    upper: part(c + 1, end),
                    slice: true,
                },
                None => Subscript {
                    lower: None,
                    upper: part(open, end),
                    slice: false,
                },
            });
            i = close + 1;
        }
        Ok(out)
    }

    fn expr(&mut self, v: Option<&J>) -> PgResult<Site> {
        let t = v
            .and_then(expr_text)
            .ok_or_else(|| malformed("expression"))?;
        Ok(self.site(t))
    }

    fn opt_expr(&mut self, v: Option<&J>) -> Option<Site> {
        let t = v.and_then(expr_text)?;
        Some(self.site(t))
    }

    /// Takes the next datum a declaration or loop makes, checking its name.
    fn take(&mut self, name: &str) -> PgResult<usize> {
        while self.cursor < self.datums.len() {
            let d = &self.datums[self.cursor];
            let skip = matches!(d, Datum::Row { .. } | Datum::RecField { .. })
                || d.name().starts_with("__Case__Variable_")
                || self.cursor_args.contains(&self.cursor);
            if !skip {
                break;
            }
            self.cursor += 1;
        }
        let i = self.cursor;
        match self.datums.get(i) {
            Some(d) if d.name() == name => {
                self.cursor += 1;
                Ok(i)
            }
            _ => Err(PgError::feature_not_supported(format!(
                "could not match the declaration of \"{name}\" with PL/pgSQL's variables"
            ))),
        }
    }

    /// A bound cursor's query (`c CURSOR (a int) FOR SELECT ...`), planned with its
    /// arguments in scope.
    fn cursor_decl(&mut self, dno: usize) -> PgResult<()> {
        let Some(v) = self.json_datums[dno].get("PLpgSQL_var") else {
            return Ok(());
        };
        let Some(q) = v.get("cursor_explicit_expr") else {
            return Ok(());
        };
        let args = match v.get("cursor_explicit_argrow").and_then(|r| r.as_i64()) {
            Some(r) if r >= 0 => match self.datums.get(r as usize) {
                Some(Datum::Row { fields }) => fields.clone(),
                _ => Vec::new(),
            },
            _ => Vec::new(),
        };
        let saved = self.scope.entries.len();
        for &a in &args {
            let name = self.datums[a].name().to_string();
            self.push_scope(name, a, None);
        }
        let query = self.expr(Some(q))?;
        self.scope.entries.truncate(saved);
        self.cursors.insert(dno, CursorDecl { query, args });
        // A bound cursor's portal is named as its variable unless assigned (PostgreSQL 15).
        if let Datum::Var {
            name,
            default: default @ None,
            ..
        } = &self.datums[dno]
        {
            let text = format!("'{}'", name.replace('\'', "''"));
            let _ = default;
            let site = self.site(text);
            if let Datum::Var { default, .. } = &mut self.datums[dno] {
                *default = Some(site);
            }
        }
        Ok(())
    }

    /// A bound cursor's arguments at OPEN or FOR: the query of their values (the grammar
    /// gives the list of expressions).
    fn cursor_args(&mut self, v: &J) -> Option<Site> {
        let t = v.get("argquery").and_then(expr_text)?;
        Some(self.site(format!("SELECT {t}")))
    }

    fn push_scope(&mut self, name: String, dno: usize, label: Option<&String>) {
        self.scope.entries.push(ScopeEntry {
            name,
            dno,
            labels: label.into_iter().cloned().collect(),
        });
    }

    fn stmts(&mut self, v: Option<&J>) -> PgResult<Vec<Stmt>> {
        let mut out = Vec::new();
        if let Some(list) = v.and_then(|l| l.as_array()) {
            for s in list {
                out.push(self.stmt(s)?);
            }
        }
        Ok(out)
    }

    fn target(&self, v: Option<&J>) -> PgResult<Target> {
        let v = v.ok_or_else(|| malformed("target"))?;
        if let Some(r) = obj(v, "PLpgSQL_rec") {
            return Ok(Target::Rec(int(r, "dno") as usize));
        }
        if let Some(r) = obj(v, "PLpgSQL_row") {
            let fields = r
                .get("fields")
                .and_then(|f| f.as_array())
                .map(|f| f.iter().map(|x| int(x, "varno") as usize).collect())
                .unwrap_or_default();
            return Ok(Target::Vars(fields));
        }
        if let Some(var) = obj(v, "PLpgSQL_var") {
            // A scalar loop variable is dumped whole; find it by name in scope.
            let name = text(var, "refname").unwrap_or_default();
            if let Some(e) = self.scope.entries.iter().rev().find(|e| e.name == name) {
                return Ok(Target::Vars(vec![e.dno]));
            }
        }
        Err(malformed("target"))
    }

    /// A statement's INTO target, if it has one.
    fn target_of_into(&self, v: &J) -> PgResult<Option<Target>> {
        if flag(v, "into") {
            Ok(Some(self.target(v.get("target"))?))
        } else {
            Ok(None)
        }
    }

    /// A block; `written` is false for the block PL/pgSQL's compiler wraps around a labelled
    /// or excepting body to add its final RETURN, which has no BEGIN of its own.
    fn block(&mut self, b: &J, written: bool) -> PgResult<Block> {
        let label = text(b, "label");
        let line = int(b, "lineno") as u32;
        let saved = self.scope.entries.len();
        let decls_named = if written {
            self.sections.next().unwrap_or_default()
        } else {
            Vec::new()
        };
        let mut decls = Vec::new();
        for d in decls_named {
            match d {
                Decl::Var {
                    name,
                    ty,
                    default,
                    constant,
                    not_null,
                } => {
                    let dno = self.take(&name)?;
                    // A record variable declared with a type's name rather than `record`.
                    if let (Datum::Rec { .. }, Some(ty)) = (&self.datums[dno], ty) {
                        if !ty.eq_ignore_ascii_case("record") {
                            let default = default.map(|d| self.site(d));
                            let line = int(
                                self.json_datums[dno].get("PLpgSQL_rec").unwrap_or(&J::Null),
                                "lineno",
                            ) as u32;
                            let as_var = Datum::Var {
                                name: name.clone(),
                                typname: ty.clone(),
                                constant,
                                not_null,
                                default,
                                line,
                            };
                            self.composites.insert(
                                dno,
                                NamedDecl {
                                    typname: ty,
                                    as_var,
                                },
                            );
                        }
                    }
                    // A default is evaluated with the names declared before it.
                    if let Some(def) = self.json_datums[dno]
                        .get("PLpgSQL_var")
                        .and_then(|v| v.get("default_val"))
                    {
                        let site = self.expr(Some(def))?;
                        if let Datum::Var { default, .. } = &mut self.datums[dno] {
                            *default = Some(site);
                        }
                    }
                    self.cursor_decl(dno)?;
                    decls.push(dno);
                    self.push_scope(name, dno, label.as_ref());
                }
                Decl::Alias(name, target) => {
                    let dno = if let Some(n) = target.strip_prefix('$') {
                        n.parse::<usize>().ok().filter(|n| *n >= 1).map(|n| n - 1)
                    } else {
                        let t = ident(&target);
                        self.scope
                            .entries
                            .iter()
                            .rev()
                            .find(|e| e.name == t)
                            .map(|e| e.dno)
                    };
                    let dno = dno.ok_or_else(|| {
                        PgError::new(
                            code::SYNTAX_ERROR,
                            format!("variable \"{target}\" does not exist"),
                        )
                    })?;
                    self.push_scope(name, dno, label.as_ref());
                }
            }
        }
        let body = self.stmts(b.get("body"))?;
        let handlers = match b
            .get("exceptions")
            .and_then(|e| e.get("PLpgSQL_exception_block"))
        {
            None => None,
            Some(ex) => {
                let sqlstate = self.take("sqlstate")?;
                let sqlerrm = self.take("sqlerrm")?;
                let inner = self.scope.entries.len();
                self.push_scope("sqlstate".into(), sqlstate, label.as_ref());
                self.push_scope("sqlerrm".into(), sqlerrm, label.as_ref());
                let mut arms = Vec::new();
                for e in list(ex, "exc_list") {
                    let e = e
                        .get("PLpgSQL_exception")
                        .ok_or_else(|| malformed("handler"))?;
                    let conds = list(e, "conditions")
                        .filter_map(|c| {
                            c.get("PLpgSQL_condition").and_then(|c| text(c, "condname"))
                        })
                        .collect();
                    let action = self.stmts(e.get("action"))?;
                    arms.push((conds, action));
                }
                self.scope.entries.truncate(inner);
                Some(Handlers {
                    sqlstate,
                    sqlerrm,
                    arms,
                })
            }
        };
        self.scope.entries.truncate(saved);
        Ok(Block {
            label,
            decls,
            body,
            handlers,
            line,
        })
    }

    fn stmt(&mut self, s: &J) -> PgResult<Stmt> {
        crate::stack::check()?;
        let (kind, v) = s
            .as_object()
            .and_then(|o| o.iter().next())
            .ok_or_else(|| malformed("statement"))?;
        let line = int(v, "lineno") as u32;
        let label = text(v, "label");
        let kind = match kind.as_str() {
            "PLpgSQL_stmt_block" => StmtKind::Block(self.block(v, true)?),
            "PLpgSQL_stmt_assign" => {
                // The text is `target := expr` (or `=`): the expression is what follows.
                let text = v
                    .get("expr")
                    .and_then(expr_text)
                    .ok_or_else(|| malformed("assignment"))?;
                let toks = tokens(&text)?;
                let at = toks
                    .iter()
                    .find(|t| t.0 == ":=" || t.0 == "=")
                    .map(|t| t.2)
                    .ok_or_else(|| malformed("assignment"))?;
                let target = int(v, "varno") as usize;
                let field = matches!(self.datums.get(target), Some(Datum::RecField { .. }));
                let before = toks
                    .iter()
                    .take_while(|t| t.0 != ":=" && t.0 != "=")
                    .count();
                // `x` or `rec.field` (the grammar made a field datum for the latter), then
                // any subscripts.
                let name_len = if field { 3 } else { 1 };
                if before < name_len {
                    return Err(unsupported("assignment to an element"));
                }
                let subs = self.subscripts(&text, &toks[name_len..before])?;
                let rhs = text[at..].trim_start();
                let mut expr = self.site(rhs.trim_end().to_string());
                let start = text[..text.len() - rhs.len()].chars().count();
                expr.assignment = Some((text.clone(), start));
                if !matches!(
                    self.datums.get(target),
                    Some(Datum::Var { .. } | Datum::RecField { .. } | Datum::Rec { .. })
                ) {
                    return Err(unsupported("assignment to a whole record or an element"));
                }
                StmtKind::Assign { target, subs, expr }
            }
            "PLpgSQL_stmt_if" => {
                let mut arms = vec![(self.expr(v.get("cond"))?, self.stmts(v.get("then_body"))?)];
                for e in list(v, "elsif_list") {
                    let e = e
                        .get("PLpgSQL_if_elsif")
                        .ok_or_else(|| malformed("ELSIF"))?;
                    arms.push((self.expr(e.get("cond"))?, self.stmts(e.get("stmts"))?));
                }
                StmtKind::If {
                    arms,
                    otherwise: self.stmts(v.get("else_body"))?,
                }
            }
            "PLpgSQL_stmt_case" => {
                let subject = match v.get("t_expr") {
                    Some(t) => {
                        let site = self.expr(Some(t))?;
                        let dno = int(v, "t_varno") as usize;
                        Some((site, dno))
                    }
                    None => None,
                };
                let saved = self.scope.entries.len();
                if let Some((_, dno)) = &subject {
                    let name = self
                        .datums
                        .get(*dno)
                        .map(|d| d.name().to_string())
                        .unwrap_or_default();
                    self.push_scope(name, *dno, None);
                }
                let mut arms = Vec::new();
                for w in list(v, "case_when_list") {
                    let w = w
                        .get("PLpgSQL_case_when")
                        .ok_or_else(|| malformed("WHEN"))?;
                    arms.push((self.expr(w.get("expr"))?, self.stmts(w.get("stmts"))?));
                }
                self.scope.entries.truncate(saved);
                let otherwise = if flag(v, "have_else") {
                    Some(self.stmts(v.get("else_stmts"))?)
                } else {
                    None
                };
                StmtKind::Case {
                    subject,
                    arms,
                    otherwise,
                }
            }
            "PLpgSQL_stmt_loop" => StmtKind::Loop {
                body: self.stmts(v.get("body"))?,
                label,
            },
            "PLpgSQL_stmt_while" => StmtKind::While {
                cond: self.expr(v.get("cond"))?,
                body: self.stmts(v.get("body"))?,
                label,
            },
            "PLpgSQL_stmt_fori" => {
                let lower = self.expr(v.get("lower"))?;
                let upper = self.expr(v.get("upper"))?;
                let step = self.opt_expr(v.get("step"));
                let name = v
                    .get("var")
                    .and_then(|x| x.get("PLpgSQL_var"))
                    .and_then(|x| text(x, "refname"))
                    .ok_or_else(|| malformed("FOR variable"))?;
                let var = self.take(&name)?;
                let saved = self.scope.entries.len();
                self.push_scope(name, var, label.as_ref());
                let body = self.stmts(v.get("body"))?;
                self.scope.entries.truncate(saved);
                StmtKind::ForInt {
                    label,
                    var,
                    lower,
                    upper,
                    step,
                    reverse: flag(v, "reverse"),
                    body,
                }
            }
            "PLpgSQL_stmt_fors" | "PLpgSQL_stmt_dynfors" => {
                let target = self.target(v.get("var"))?;
                let query = self.expr(v.get("query"))?;
                let dynamic = if kind == "PLpgSQL_stmt_dynfors" {
                    Some(self.expr_list(v.get("params"))?)
                } else {
                    None
                };
                StmtKind::ForQuery {
                    label,
                    target,
                    query,
                    dynamic,
                    body: self.stmts(v.get("body"))?,
                }
            }
            "PLpgSQL_stmt_foreach_a" => {
                let varno = int(v, "varno") as usize;
                let target = match self.datums.get(varno) {
                    Some(Datum::Rec { .. }) => Target::Rec(varno),
                    Some(Datum::Row { fields }) => Target::Vars(fields.clone()),
                    _ => Target::Vars(vec![varno]),
                };
                StmtKind::ForEach {
                    label,
                    target,
                    array: self.expr(v.get("expr"))?,
                    slice: int(v, "slice"),
                    body: self.stmts(v.get("body"))?,
                }
            }
            "PLpgSQL_stmt_exit" => StmtKind::Exit {
                is_exit: flag(v, "is_exit"),
                label,
                cond: self.opt_expr(v.get("cond")),
            },
            "PLpgSQL_stmt_return" => StmtKind::Return(self.opt_expr(v.get("expr"))),
            "PLpgSQL_stmt_raise" => {
                let params = self.expr_list(v.get("params"))?;
                let mut options = Vec::new();
                for o in list(v, "options") {
                    let o = o
                        .get("PLpgSQL_raise_option")
                        .ok_or_else(|| malformed("RAISE option"))?;
                    options.push(RaiseOpt {
                        kind: int(o, "opt_type"),
                        expr: self.expr(o.get("expr"))?,
                    });
                }
                StmtKind::Raise {
                    level: int(v, "elog_level"),
                    condname: text(v, "condname"),
                    message: text(v, "message"),
                    params,
                    options,
                }
            }
            "PLpgSQL_stmt_assert" => StmtKind::Assert {
                cond: self.expr(v.get("cond"))?,
                message: self.opt_expr(v.get("message")),
            },
            "PLpgSQL_stmt_execsql" => {
                let stmt = self.expr(v.get("sqlstmt"))?;
                let into = self.target_of_into(v)?;
                StmtKind::Sql {
                    stmt,
                    into,
                    strict: flag(v, "strict"),
                }
            }
            "PLpgSQL_stmt_perform" => StmtKind::Perform(self.expr(v.get("expr"))?),
            "PLpgSQL_stmt_dynexecute" => {
                let query = self.expr(v.get("query"))?;
                let into = self.target_of_into(v)?;
                StmtKind::Dynamic {
                    query,
                    into,
                    strict: flag(v, "strict"),
                    params: self.expr_list(v.get("params"))?,
                }
            }
            "PLpgSQL_stmt_getdiag" => {
                let items = list(v, "diag_items")
                    .filter_map(|i| i.get("PLpgSQL_diag_item"))
                    .map(|i| {
                        (
                            text(i, "kind").unwrap_or_default(),
                            int(i, "target") as usize,
                        )
                    })
                    .collect();
                StmtKind::GetDiag {
                    stacked: flag(v, "is_stacked"),
                    items,
                }
            }
            "PLpgSQL_stmt_return_next" => StmtKind::ReturnNext(self.opt_expr(v.get("expr"))),
            "PLpgSQL_stmt_return_query" => match v.get("dynquery") {
                Some(q) => StmtKind::ReturnQuery {
                    query: self.expr(Some(q))?,
                    dynamic: Some(self.expr_list(v.get("params"))?),
                },
                None => StmtKind::ReturnQuery {
                    query: self.expr(v.get("query"))?,
                    dynamic: None,
                },
            },
            "PLpgSQL_stmt_call" => StmtKind::Call(self.expr(v.get("expr"))?),
            "PLpgSQL_stmt_commit" => StmtKind::EndTransaction {
                commit: true,
                chain: flag(v, "chain"),
            },
            "PLpgSQL_stmt_rollback" => StmtKind::EndTransaction {
                commit: false,
                chain: flag(v, "chain"),
            },
            "PLpgSQL_stmt_open" => {
                let dynamic = match v.get("dynquery") {
                    Some(q) => Some((self.expr(Some(q))?, self.expr_list(v.get("params"))?)),
                    None => None,
                };
                StmtKind::Open {
                    curvar: int(v, "curvar") as usize,
                    query: self.opt_expr(v.get("query")),
                    dynamic,
                    args: self.cursor_args(v),
                }
            }
            "PLpgSQL_stmt_fetch" => StmtKind::Fetch {
                target: match v.get("target") {
                    Some(_) => Some(self.target(v.get("target"))?),
                    None => None,
                },
                curvar: int(v, "curvar") as usize,
                direction: int(v, "direction"),
                how_many: v.get("how_many").and_then(|x| x.as_i64()).unwrap_or(0),
                count: self.opt_expr(v.get("expr")),
                is_move: flag(v, "is_move"),
            },
            "PLpgSQL_stmt_close" => StmtKind::Close {
                curvar: int(v, "curvar") as usize,
            },
            "PLpgSQL_stmt_forc" => {
                let args = self.cursor_args(v);
                let name = v
                    .get("var")
                    .and_then(|x| x.get("PLpgSQL_rec"))
                    .and_then(|x| text(x, "refname"))
                    .ok_or_else(|| malformed("FOR cursor variable"))?;
                let rec = self.take(&name)?;
                let saved = self.scope.entries.len();
                self.push_scope(name, rec, label.as_ref());
                let body = self.stmts(v.get("body"))?;
                self.scope.entries.truncate(saved);
                StmtKind::ForCursor {
                    label,
                    rec,
                    curvar: int(v, "curvar") as usize,
                    args,
                    body,
                }
            }
            other => {
                return Err(unsupported(
                    other.strip_prefix("PLpgSQL_stmt_").unwrap_or(other),
                ))
            }
        };
        Ok(Stmt { line, kind })
    }

    fn expr_list(&mut self, v: Option<&J>) -> PgResult<Vec<Site>> {
        let mut out = Vec::new();
        for e in v.and_then(|l| l.as_array()).into_iter().flatten() {
            out.push(self.expr(Some(e))?);
        }
        Ok(out)
    }
}

/// Whether the function's outermost block is the body's own (see [`Compiler::block`]): the
/// added one holds just the body's block and a bare RETURN, and has no label or handlers.
fn written(action: &J) -> bool {
    let body = action.get("body").and_then(|b| b.as_array());
    let added = action.get("label").is_none()
        && action.get("exceptions").is_none()
        && body.is_some_and(|b| {
            b.len() == 2
                && b[0].get("PLpgSQL_stmt_block").is_some_and(|inner| {
                    inner.get("label").is_some() || inner.get("exceptions").is_some()
                })
                && b[1]
                    .get("PLpgSQL_stmt_return")
                    .is_some_and(|r| r.get("expr").is_none())
        });
    !added
}

/// Compiles `wrapped` (a CREATE FUNCTION or DO statement whose body is `body`, already passed
/// through [`parenthesize_returns`]); `label` qualifies the parameters (the function's name).
pub fn compile(wrapped: &str, body: &str, n_params: usize, label: &str) -> PgResult<Body> {
    let (rewritten, rowtype_vars) = crate::sql::ddl::function::rowtype_decls(body);
    let wrapped_rewritten;
    let (wrapped, body) = if rowtype_vars.is_empty() {
        (wrapped, body)
    } else {
        wrapped_rewritten = wrapped.replacen(body, &rewritten, 1);
        (wrapped_rewritten.as_str(), rewritten.as_str())
    };
    let tree = pg_query::parse_plpgsql(wrapped)
        .map_err(|e| crate::sql::ddl::function::plpgsql_grammar_error(&e.to_string()))?;
    let f = tree
        .as_array()
        .and_then(|a| a.first())
        .and_then(|f| f.get("PLpgSQL_function"))
        .ok_or_else(|| malformed("function"))?;
    let json_datums: Vec<J> = f
        .get("datums")
        .and_then(|d| d.as_array())
        .cloned()
        .unwrap_or_default();
    if json_datums.len() > MAX_DATUMS {
        return Err(PgError::new(
            code::PROGRAM_LIMIT_EXCEEDED,
            format!("a PL/pgSQL body may have at most {MAX_DATUMS} variables"),
        ));
    }
    let mut c = Compiler {
        json_datums: &json_datums,
        datums: Vec::new(),
        cursor: 0,
        sections: declare_sections(body)?.into_iter(),
        sites: 0,
        scope: Scope::default(),
        cursor_args: Default::default(),
        cursors: Default::default(),
        composites: Default::default(),
    };
    for d in &json_datums {
        let d = c.datum(d)?;
        c.datums.push(d);
    }
    for d in &json_datums {
        if let Some(row) = d
            .get("PLpgSQL_var")
            .filter(|v| v.get("cursor_explicit_expr").is_some())
            .map(|v| int(v, "cursor_explicit_argrow"))
            .filter(|r| *r >= 0)
        {
            if let Some(Datum::Row { fields }) = c.datums.get(row as usize) {
                c.cursor_args.extend(fields.iter().copied());
            }
        }
    }
    let found = c
        .datums
        .iter()
        .position(|d| d.name() == "found")
        .ok_or_else(|| malformed("no FOUND variable"))?;
    if found < n_params {
        return Err(malformed("parameters"));
    }
    for i in 0..n_params {
        let name = c.datums[i].name().to_string();
        c.scope.entries.push(ScopeEntry {
            name,
            dno: i,
            labels: vec![label.to_string()],
        });
    }
    c.scope.entries.push(ScopeEntry {
        name: "found".into(),
        dno: found,
        labels: vec![label.to_string()],
    });
    c.cursor = found + 1;
    let action = f
        .get("action")
        .and_then(|a| a.get("PLpgSQL_stmt_block"))
        .ok_or_else(|| malformed("body"))?;
    let block = c.block(action, written(action))?;
    // The %ROWTYPE variables, matched in declaration order with the record datums (those
    // declared with a composite type's name were noted by `block`).
    let mut rowtypes = std::collections::HashMap::new();
    let mut pending = rowtype_vars.into_iter().peekable();
    for (dno, d) in c.datums.iter().enumerate() {
        if let (Datum::Rec { name }, Some((want, _))) = (d, pending.peek()) {
            if name == want {
                let (_, ty) = pending.next().expect("peeked");
                rowtypes.insert(dno, ty);
            }
        }
    }
    Ok(Body {
        datums: c.datums,
        n_params,
        found,
        block: Arc::new(block),
        sites: c.sites,
        cursors: c.cursors,
        rowtypes,
        composites: c.composites,
    })
}
