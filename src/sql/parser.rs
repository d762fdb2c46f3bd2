//! SQL text → PostgreSQL's own parse tree, with a bounded cache of parsed texts.
//!
//! threadgres parses with PostgreSQL's real grammar through libpg_query (the `pg_query` crate), so
//! every statement a client sends is accepted or rejected exactly as PostgreSQL would, and syntax
//! errors carry PostgreSQL's message and cursor position. The crate's safe `parse` drops the cursor
//! position, so this module calls the same exported C entry point directly (the symbols are linked
//! in by the `pg_query` crate) and decodes the protobuf tree with the crate's generated types.
//!
//! Parsing costs 1–25 µs per statement (C parse, protobuf encode, Rust decode; measured by
//! `cargo run --release --example parse_cost`: `NOTIFY ch` 1.2 µs, `SELECT 1` 2.7 µs, a
//! three-line catalog join 23 µs), which is more than executing `NOTIFY ch` or `SELECT 1`. A
//! cache hit costs 25–50 ns. Clients repeat the same texts (pgbench sends one
//! text per script line per client; drivers re-send their statements), so parsed results are kept
//! in a cache keyed by the exact text, shared by all sessions. Bound: `parse_cache_entries` texts
//! of at most [`MAX_CACHED_TEXT`] bytes; when full, the cache evicts its least recently used entry
//! (scc's `HashCache`). Texts that fail to parse are not cached.

use std::ffi::{CStr, CString};
use std::os::raw::{c_char, c_int};
use std::sync::Arc;

use pg_query::protobuf::{self, node::Node as N};
use prost::Message;

use crate::error::{code, PgError, PgResult};

pub mod shape;

/// Longest text kept in the cache: long texts are rarely repeated verbatim (multi-row INSERTs).
pub const MAX_CACHED_TEXT: usize = 4096;

/// Identifiers longer than this many bytes are truncated (NAMEDATALEN - 1).
pub const MAX_IDENTIFIER_BYTES: usize = 63;

#[repr(C)]
struct PgQueryError {
    message: *mut c_char,
    funcname: *mut c_char,
    filename: *mut c_char,
    lineno: c_int,
    cursorpos: c_int,
    context: *mut c_char,
}

#[repr(C)]
struct PgQueryProtobuf {
    len: usize,
    data: *mut c_char,
}

#[repr(C)]
struct PgQueryProtobufParseResult {
    parse_tree: PgQueryProtobuf,
    stderr_buffer: *mut c_char,
    error: *mut PgQueryError,
}

unsafe extern "C" {
    fn pg_query_parse_protobuf_opts(
        input: *const c_char,
        opts: c_int,
    ) -> PgQueryProtobufParseResult;
    fn pg_query_free_protobuf_parse_result(result: PgQueryProtobufParseResult);
}

/// One statement of a query text.
#[derive(Debug)]
pub struct RawStatement {
    pub node: N,
    /// The statement read once, here, when its meaning is its text alone (see
    /// [`ChannelStmt`]): a query text served from the parse cache then runs without being
    /// analysed again.
    pub constant: Option<ChannelStmt>,
    /// Byte range of this statement in the text.
    pub location: usize,
    pub len: usize,
}

/// LISTEN, UNLISTEN and NOTIFY: statements whose meaning is their text alone, read when the
/// text is parsed (so once per cached text) and run from the cache without analysis. Names
/// are shared (`Arc`) so that running one from the cache copies nothing.
#[derive(Debug, Clone)]
pub enum ChannelStmt {
    Listen(Arc<str>),
    /// None: UNLISTEN *.
    Unlisten(Option<Arc<str>>),
    Notify {
        channel: Arc<str>,
        payload: Arc<str>,
    },
}

impl ChannelStmt {
    /// The statement of `node`, when it is one of the three.
    pub fn of(node: &N) -> Option<ChannelStmt> {
        Some(match node {
            N::ListenStmt(l) => ChannelStmt::Listen(Arc::from(l.conditionname.as_str())),
            N::UnlistenStmt(u) => ChannelStmt::Unlisten(
                (!u.conditionname.is_empty()).then(|| Arc::from(u.conditionname.as_str())),
            ),
            N::NotifyStmt(n) => ChannelStmt::Notify {
                channel: Arc::from(n.conditionname.as_str()),
                payload: Arc::from(n.payload.as_str()),
            },
            _ => return None,
        })
    }
}

/// The parsed form of one query text: its statements and the notices the lexer raised.
#[derive(Debug, Default)]
pub struct Parsed {
    /// The text parsed, shared with whatever shows it (pg_stat_activity, prepared statements)
    /// so that starting a statement neither copies nor compares it.
    pub text: Arc<str>,
    /// Shared with the texts of the same shape (`shape.rs`).
    pub stmts: Arc<[RawStatement]>,
    pub notices: Vec<PgError>,
    /// For a text that shares another text's tree: its own numbers. Its statements must then
    /// be analyzed inside a [`shape::Scope`], never served from `RawStatement::constant`.
    pub literals: Option<Arc<shape::Bound>>,
}

/// The C parser's errors when a tree is deeper than its stack allows: reported as
/// PostgreSQL reports the same input.
fn too_deep_for_the_parser(message: &str) -> bool {
    message == "stack depth limit exceeded" || message.contains("nested too deeply")
}

/// Parses `text` with PostgreSQL's grammar into its parse tree.
///
/// The C parser checks its own stack (libpg_query sizes its max_stack_depth to the headroom
/// below this frame, at most 2 MB), which bounds the tree's depth; the Rust decoding of the
/// tree recurses as deep again, on a shard stack sized for it (`crate::stack`), and only
/// starts with that much room left on the thread. The statement's own budget
/// (max_stack_depth) is not asked: the decoding's depth is bounded already, and the analysis
/// that follows checks the budget at every level.
pub fn parse_tree(text: &str) -> PgResult<protobuf::ParseResult> {
    let input = CString::new(text).map_err(|_| {
        PgError::new(
            code::CHARACTER_NOT_IN_REPERTOIRE,
            "invalid byte sequence for encoding \"UTF8\": 0x00",
        )
    })?;
    crate::stack::check()?;
    // SAFETY: the input is a valid NUL-terminated string; the result is freed below, after its
    // buffers were copied out.
    let result = unsafe { pg_query_parse_protobuf_opts(input.as_ptr(), 0) };
    let parsed = unsafe {
        if !result.error.is_null() {
            let e = &*result.error;
            let message = CStr::from_ptr(e.message).to_string_lossy().into_owned();
            if too_deep_for_the_parser(&message) {
                Err(crate::stack::too_deep())
            } else {
                // The lexer's and grammar's errors are all syntax errors, except numeric
                // literals out of range.
                let code = if message.contains("out of range") && !message.contains("syntax error")
                {
                    code::NUMERIC_VALUE_OUT_OF_RANGE
                } else {
                    code::SYNTAX_ERROR
                };
                // The grammar's refusals that PostgreSQL reports with their own code and
                // without a position.
                let unplaced = message == "CREATE OR REPLACE CONSTRAINT TRIGGER is not supported";
                let code = if unplaced {
                    code::FEATURE_NOT_SUPPORTED
                } else {
                    code
                };
                let mut err = PgError::new(code, message);
                if e.cursorpos > 0 && !unplaced {
                    err.position = Some(e.cursorpos as u32);
                }
                Err(err)
            }
        } else if crate::stack::thread_remaining() < decode_stack(result.parse_tree.len) {
            Err(crate::stack::too_deep())
        } else {
            let data = std::slice::from_raw_parts(
                result.parse_tree.data as *const u8,
                result.parse_tree.len,
            );
            protobuf::ParseResult::decode(data)
                .map_err(|e| PgError::internal(format!("parse tree decode failed: {e}")))
        }
    };
    unsafe { pg_query_free_protobuf_parse_result(result) };
    parsed
}

/// Stack the Rust decoding of a tree of `len` protobuf bytes may need. The C encoder nests
/// at most 10,000 messages (libpg_query's PG_QUERY_PROTOBUF_MAX_DEPTH); decoding the deepest
/// trees the grammar gives took at most 17 MiB (coalesce() and ARRAY[] nested 4,995 deep;
/// `tests::the_deepest_trees_decode` runs them), about 1.7 KiB per message level, and a
/// level takes at least 2 bytes (tag and length), so a short text needs little.
fn decode_stack(len: usize) -> usize {
    len.saturating_mul(1024).min(24 << 20)
}

/// Parses a stored text holding one statement (a view's query, a default's expression) into
/// its statement's node.
pub fn parse_node(text: &str) -> PgResult<N> {
    parse_tree(text)?
        .stmts
        .into_iter()
        .next()
        .and_then(|s| s.stmt)
        .and_then(|s| s.node)
        .ok_or_else(|| PgError::internal("stored text holds no statement"))
}

/// Parses `text` with PostgreSQL's grammar.
pub fn parse_uncached(text: &str) -> PgResult<Parsed> {
    let parsed = parse_tree(text);
    let tree = parsed?;
    check_parameter_junk(text)?;
    check_generation_clause(text)?;
    let mut stmts = Vec::with_capacity(tree.stmts.len());
    for raw in tree.stmts {
        let Some(node) = raw.stmt.and_then(|n| n.node) else {
            continue;
        };
        stmts.push(RawStatement {
            constant: ChannelStmt::of(&node),
            node,
            location: raw.stmt_location as usize,
            len: if raw.stmt_len == 0 {
                text.len() - raw.stmt_location as usize
            } else {
                raw.stmt_len as usize
            },
        });
    }
    Ok(Parsed {
        text: Arc::from(text),
        stmts: stmts.into(),
        notices: truncation_notices(text),
        literals: None,
    })
}

/// PostgreSQL 15's grammar has only `GENERATED ALWAYS AS (expr) STORED` for generated
/// columns, where the parser here (a later one's) takes the expression alone or VIRTUAL too:
/// whatever follows the expression's parenthesis other than STORED is PostgreSQL 15's syntax
/// error there, and GENERATED BY DEFAULT its own error at BY. Only texts that contain
/// `generated` are scanned.
fn check_generation_clause(text: &str) -> PgResult<()> {
    use protobuf::Token as T;
    if !text.to_ascii_lowercase().contains("generated") {
        return Ok(());
    }
    let Ok(scan) = pg_query::scan(text) else {
        return Ok(());
    };
    let toks = &scan.tokens;
    let is = |i: usize, t: T| toks.get(i).is_some_and(|k| k.token == t as i32);
    let at = |i: usize| Some(toks[i].start as u32 + 1);
    for i in (0..toks.len()).filter(|&i| is(i, T::Generated)) {
        let (by_default, as_at) = if is(i + 1, T::Always) {
            (false, i + 2)
        } else if is(i + 1, T::By) && is(i + 2, T::Default) {
            (true, i + 3)
        } else {
            continue;
        };
        if !is(as_at, T::As) || !is(as_at + 1, T::Ascii40) {
            continue; // AS IDENTITY
        }
        // The parenthesis that closes the expression (bounded by the token count).
        let mut depth = 0usize;
        let mut close = None;
        for (j, k) in toks.iter().enumerate().skip(as_at + 1) {
            if k.token == T::Ascii40 as i32 {
                depth += 1;
            } else if k.token == T::Ascii41 as i32 {
                depth -= 1;
                if depth == 0 {
                    close = Some(j);
                    break;
                }
            }
        }
        let Some(close) = close else {
            continue;
        };
        let next = close + 1;
        if is(next, T::Stored) {
            if by_default {
                return Err(PgError::syntax(
                    "for a generated column, GENERATED ALWAYS must be specified",
                )
                .at(at(i + 1)));
            }
            continue;
        }
        return Err(match toks.get(next) {
            Some(k) => PgError::syntax(format!(
                "syntax error at or near \"{}\"",
                &text[k.start as usize..k.end as usize]
            ))
            .at(at(next)),
            None => PgError::syntax("syntax error at end of input").at(Some(text.len() as u32 + 1)),
        });
    }
    Ok(())
}

/// PostgreSQL 15's lexer rejects a parameter run together with a name (`$1x`) where the
/// grammar this parser uses would read `$1 AS x`. Only texts with a `$` followed by a digit
/// are scanned.
fn check_parameter_junk(text: &str) -> PgResult<()> {
    let b = text.as_bytes();
    if !b.windows(2).any(|w| w[0] == b'$' && w[1].is_ascii_digit()) {
        return Ok(());
    }
    let Ok(scan) = pg_query::scan(text) else {
        return Ok(());
    };
    for pair in scan.tokens.windows(2) {
        let (a, n) = (&pair[0], &pair[1]);
        if a.token == protobuf::Token::Param as i32
            && n.start == a.end
            && text[n.start as usize..].starts_with(|c: char| c.is_alphanumeric() || c == '_')
        {
            let junk_end = text[a.start as usize..]
                .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'))
                .map_or(text.len(), |e| a.start as usize + e);
            return Err(PgError::syntax(format!(
                "trailing junk after parameter at or near \"{}\"",
                &text[a.start as usize..junk_end]
            ))
            .with_position(text[..a.start as usize].chars().count() as u32 + 1));
        }
    }
    Ok(())
}

/// PostgreSQL's lexer truncates identifiers longer than 63 bytes and says so with a NOTICE; the
/// tree already holds the truncated names, the notices are produced here. A cheap pre-check keeps
/// the lexer scan off the path of ordinary statements.
fn truncation_notices(text: &str) -> Vec<PgError> {
    let mut run = 0usize;
    let mut long = false;
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || b == b'_' || b == b'$' || b >= 0x80 || b == b'"' {
            run += 1;
            if run > MAX_IDENTIFIER_BYTES {
                long = true;
                break;
            }
        } else if b != b' ' || run == 0 {
            run = 0;
        }
    }
    if !long {
        return Vec::new();
    }
    let Ok(scan) = pg_query::scan(text) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for t in scan.tokens {
        // IDENT tokens only (keywords are short).
        if t.token != protobuf::Token::Ident as i32 {
            continue;
        }
        let raw = &text[t.start as usize..t.end as usize];
        let ident = if let Some(inner) = raw.strip_prefix('"').and_then(|r| r.strip_suffix('"')) {
            inner.replace("\"\"", "\"")
        } else {
            raw.to_lowercase()
        };
        if ident.len() > MAX_IDENTIFIER_BYTES {
            let mut cut = MAX_IDENTIFIER_BYTES;
            while !ident.is_char_boundary(cut) {
                cut -= 1;
            }
            out.push(PgError::notice(
                code::NAME_TOO_LONG,
                format!(
                    "identifier \"{}\" will be truncated to \"{}\"",
                    ident,
                    &ident[..cut]
                ),
            ));
        }
    }
    out
}

/// The instance-wide parse cache.
pub struct ParseCache {
    // Keyed by the parsed text itself (`Parsed::text`), so an entry holds its text once.
    cache: scc::HashCache<Arc<str>, Arc<Parsed>>,
    /// Templates of simple-Query texts by their shape's key (`shape.rs`); same bound.
    shapes: scc::HashCache<Box<str>, Arc<shape::Shape>>,
}

impl ParseCache {
    pub fn new(entries: usize) -> ParseCache {
        let max = entries.max(64);
        ParseCache {
            cache: scc::HashCache::with_capacity(max / 2, max),
            shapes: scc::HashCache::with_capacity(max / 4, max),
        }
    }

    /// Parses `text`, answering from the cache when the same text was parsed before.
    pub fn parse(&self, text: &str) -> PgResult<Arc<Parsed>> {
        if text.len() <= MAX_CACHED_TEXT {
            if let Some(hit) = self.cache.read_sync(text, |_, v| v.clone()) {
                return Ok(hit);
            }
        }
        let parsed = Arc::new(parse_uncached(text)?);
        if text.len() <= MAX_CACHED_TEXT {
            let _ = self.cache.put_sync(parsed.text.clone(), parsed.clone());
        }
        Ok(parsed)
    }

    /// As [`Self::parse`], for a simple Query's text: a text that differs from one parsed
    /// before only in its numbers shares that text's tree (`shape.rs`).
    pub fn parse_simple(&self, text: &str) -> PgResult<Arc<Parsed>> {
        if text.len() > MAX_CACHED_TEXT {
            return self.parse(text);
        }
        if let Some(hit) = self.cache.read_sync(text, |_, v| v.clone()) {
            return Ok(hit);
        }
        let Some((key, lits)) = shape::shape(text) else {
            return self.parse(text);
        };
        if let Some(shape) = self.shapes.read_sync(key.as_str(), |_, v| v.clone()) {
            if shape.poisoned() {
                return self.parse(text);
            }
            let text: Arc<str> = Arc::from(text);
            return Ok(Arc::new(Parsed {
                text: text.clone(),
                stmts: shape.template.stmts.clone(),
                notices: shape.template.notices.clone(),
                literals: Some(Arc::new(shape::Bound {
                    shape: shape.clone(),
                    text,
                })),
            }));
        }
        let parsed = Arc::new(parse_uncached(text)?);
        if let Some(shape) = shape::Shape::new(parsed.clone(), lits) {
            let _ = self.shapes.put_sync(key.into_boxed_str(), Arc::new(shape));
        }
        let _ = self.cache.put_sync(parsed.text.clone(), parsed.clone());
        Ok(parsed)
    }
}

/// The text of a `String` node (a part of a qualified name, a field of a column reference);
/// None for any other node.
pub fn str_of(n: &protobuf::Node) -> Option<&str> {
    match n.node.as_ref()? {
        N::String(s) => Some(&s.sval),
        _ => None,
    }
}

/// `SELECT <n>`: an expression as the one target of a bare SELECT, for code that analyses or
/// prints an expression by way of a query.
pub fn select_of(n: &N) -> protobuf::SelectStmt {
    protobuf::SelectStmt {
        target_list: vec![protobuf::Node {
            node: Some(N::ResTarget(Box::new(protobuf::ResTarget {
                val: Some(Box::new(protobuf::Node {
                    node: Some(n.clone()),
                })),
                ..Default::default()
            }))),
        }],
        limit_option: protobuf::LimitOption::Default as i32,
        op: protobuf::SetOperation::SetopNone as i32,
        ..Default::default()
    }
}

/// SQL text of an expression, as PostgreSQL's deparser would print it.
pub fn deparse_expr(n: &N) -> PgResult<String> {
    let select = select_of(n);
    let text = N::SelectStmt(Box::new(select))
        .deparse(Default::default())
        .map_err(|e| PgError::new(code::SYNTAX_ERROR, format!("cannot deparse: {e}")))?;
    Ok(text.strip_prefix("SELECT ").unwrap_or(&text).to_string())
}

/// Most parameters one statement may have (PostgreSQL's limit is 65535 in Bind).
pub const MAX_PARAMS: usize = 65_535;

/// The text of a constant or name node as a setting's value reads it (a string, a number, a
/// boolean as on/off, through casts).
pub fn sval(n: &protobuf::Node) -> Option<String> {
    match n.node.as_ref()? {
        N::String(s) => Some(s.sval.clone()),
        N::AConst(c) => match &c.val {
            Some(protobuf::a_const::Val::Sval(s)) => Some(s.sval.clone()),
            Some(protobuf::a_const::Val::Ival(i)) => Some(i.ival.to_string()),
            Some(protobuf::a_const::Val::Fval(f)) => Some(f.fval.clone()),
            Some(protobuf::a_const::Val::Boolval(b)) => {
                Some(if b.boolval { "on" } else { "off" }.to_string())
            }
            _ => None,
        },
        N::TypeCast(tc) => tc.arg.as_ref().and_then(|a| sval(a)),
        _ => None,
    }
}

/// The strings of a name list (`schema.name`, a column list), skipping other nodes.
pub fn names_of(nodes: &[protobuf::Node]) -> Vec<String> {
    nodes
        .iter()
        .filter_map(str_of)
        .map(str::to_string)
        .collect()
}

/// Identifiers in an expression's text that are not function names or qualified names' tails:
/// (start, end, name as PostgreSQL folds it). Used to find and rename a column's references in
/// a stored CHECK expression, and by information_schema to find the columns a CHECK reads.
pub(crate) fn identifiers(text: &str) -> Vec<(usize, usize, String)> {
    identifier_tokens(text, false)
}

/// The identifiers of a statement's or expression's text that are not function names, with
/// or without the tails of qualified names (`s.t`, `t.c`).
pub(crate) fn identifier_tokens(text: &str, tails: bool) -> Vec<(usize, usize, String)> {
    use protobuf::{KeywordKind as K, Token as T};
    let Ok(scan) = pg_query::scan(text) else {
        return Vec::new();
    };
    let toks = &scan.tokens;
    let mut out = Vec::new();
    for (i, tk) in toks.iter().enumerate() {
        let is_ident = tk.token == T::Ident as i32
            || tk.keyword_kind == K::UnreservedKeyword as i32
            || tk.keyword_kind == K::ColNameKeyword as i32;
        if !is_ident {
            continue;
        }
        let call = toks
            .get(i + 1)
            .is_some_and(|n| n.token == T::Ascii40 as i32);
        let qualified_tail = !tails && i > 0 && toks[i - 1].token == T::Ascii46 as i32;
        if call || qualified_tail {
            continue;
        }
        let (s, e) = (tk.start as usize, tk.end as usize);
        let Some(raw) = text.get(s..e) else { continue };
        let name = match raw.strip_prefix('"').and_then(|r| r.strip_suffix('"')) {
            Some(q) => q.replace("\"\"", "\""),
            None => raw.to_lowercase(),
        };
        out.push((s, e, name));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs `f` on a thread with a shard's stack.
    fn on_shard_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
        std::thread::Builder::new()
            .stack_size(crate::stack::SHARD_STACK_BYTES)
            .spawn(f)
            .unwrap()
            .join()
            .unwrap()
    }

    #[test]
    fn the_deepest_trees_decode() {
        // The deepest of each shape the C parser still encodes (found by bisection): each
        // decodes within `decode_stack`, and one level more is PostgreSQL's 54001.
        type Shape = (&'static str, fn(usize) -> String, usize);
        let shapes: [Shape; 5] = [
            (
                "coalesce",
                |n| format!("SELECT {}1{}", "coalesce(".repeat(n), ",1)".repeat(n)),
                4995,
            ),
            (
                "array",
                |n| format!("SELECT {}1{}", "ARRAY[".repeat(n), "]".repeat(n)),
                4995,
            ),
            (
                "plus",
                |n| format!("SELECT {}", vec!["1"; n].join("+")),
                4996,
            ),
            (
                "exists",
                |n| format!("SELECT {}1{}", "EXISTS(SELECT ".repeat(n), ")".repeat(n)),
                1665,
            ),
            ("union", |n| vec!["SELECT 1"; n].join(" UNION ALL "), 9992),
        ];
        for (name, make, deepest) in shapes {
            let text = make(deepest);
            let ok = on_shard_stack(move || parse_tree(&text).map(|t| t.stmts.len()));
            assert_eq!(ok, Ok(1), "{name}");
            let text = make(deepest + 1);
            let err = on_shard_stack(move || parse_tree(&text).unwrap_err());
            assert_eq!(err.code, "54001", "{name}: {}", err.message);
            assert_eq!(err.message, "stack depth limit exceeded");
        }
    }

    #[test]
    fn syntax_errors_have_positions() {
        let e = parse_uncached("selec 1").unwrap_err();
        assert_eq!(e.code, "42601");
        assert_eq!(e.message, "syntax error at or near \"selec\"");
        assert_eq!(e.position, Some(1));
        let e = parse_uncached("select 1 from").unwrap_err();
        assert_eq!(e.message, "syntax error at end of input");
        assert_eq!(e.position, Some(14));
    }

    #[test]
    fn generation_clauses_take_postgresql_15s_grammar() {
        let ok = "create table t (a int, b int generated always as ((a + 1) * 2) stored, \
                  c int generated always as identity)";
        assert!(parse_uncached(ok).is_ok());
        let e = parse_uncached("create table t (a int, b int generated always as (a) virtual)")
            .unwrap_err();
        assert_eq!(e.message, "syntax error at or near \"virtual\"");
        assert_eq!(e.position, Some(54));
        let e =
            parse_uncached("create table t (a int, b int generated always as (a))").unwrap_err();
        assert_eq!(e.message, "syntax error at or near \")\"");
        let e = parse_uncached("create table t (a int, b int generated always as (a)").unwrap_err();
        assert_eq!(e.message, "syntax error at end of input");
        let e = parse_uncached("create table t (a int, b int generated by default as (a) stored)")
            .unwrap_err();
        assert_eq!(
            e.message,
            "for a generated column, GENERATED ALWAYS must be specified"
        );
        assert_eq!(e.position, Some(40));
    }

    #[test]
    fn empty_texts_have_no_statements() {
        for t in ["", ";", "-- ping", "  ;  ; "] {
            assert!(parse_uncached(t).unwrap().stmts.is_empty(), "{t:?}");
        }
    }

    #[test]
    fn splits_statements() {
        let p =
            parse_uncached("SELECT pg_advisory_unlock_all(); CLOSE ALL; UNLISTEN *; RESET ALL;")
                .unwrap();
        assert_eq!(p.stmts.len(), 4);
    }

    #[test]
    fn long_identifiers_raise_notice() {
        let long = "a".repeat(70);
        let p = parse_uncached(&format!("listen {long}")).unwrap();
        assert_eq!(p.notices.len(), 1);
        assert_eq!(p.notices[0].code, "42622");
        match &p.stmts[0].node {
            N::ListenStmt(l) => assert_eq!(l.conditionname.len(), 63),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn cache_returns_same_tree() {
        let c = ParseCache::new(100);
        let a = c.parse("select 1").unwrap();
        let b = c.parse("select 1").unwrap();
        assert!(Arc::ptr_eq(&a, &b));
    }
}
