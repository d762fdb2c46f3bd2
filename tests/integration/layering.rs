//! The layers of `src/` and the one direction imports may take between them (written out in
//! docs/architecture.md): code may name its own layer and the layers below it, never one above.
//! This test reads every `crate::` and `super::` path in `src/` (tests excluded), maps both ends
//! to their units (a top-level module, or a module of `sql/` or `runtime/`), and fails on a path
//! that goes up.
//!
//! The imports that went up when the rule was written are listed in `DEBTS`, each to be removed
//! by a change that moves the code to where it belongs. The list only shrinks: a debt that no
//! longer occurs fails the test too, until it is deleted here.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The layers, lowest first. A unit may import from its own layer and from the layers before
/// it. Units: top-level modules of src/ (`lib` is the crate root's own items), `F::X` for the
/// modules of a folder of `SPLIT_FOLDERS` (`sql::plan`, `runtime::shards`), `F` for the items of
/// its mod.rs, and the modules of `NESTED_UNITS`, which sit in a layer of their own above their
/// parent's.
const LAYERS: &[(&str, &[&str])] = &[
    (
        "foundation",
        &[
            "lib", "error", "stack", "sync", "encoding", "memory", "cpus",
        ],
    ),
    (
        "threads and CPUs",
        &[
            "runtime::idle_spin",
            "runtime::client_affinity",
            "runtime::shard_weight",
            "runtime::shards",
        ],
    ),
    (
        "protocol, storage, transactions, notifications",
        &["wire", "hba", "txn", "storage", "catalog", "notify", "wal"],
    ),
    ("parsing", &["sql::parser"]),
    (
        "values and the built-in catalog",
        &["sql::types", "sql::catalog", "sql::quote", "sql::guc"],
    ),
    ("the storage door", &["sql::engine"]),
    (
        "durability: data directory, checkpoints, recovery",
        &["durable"],
    ),
    ("the instance", &["config", "tls", "instance"]),
    ("functions of values", &["sql::func"]),
    (
        "what a statement asks of its session: context, sequences, privileges",
        &["sql::context", "sql::sequence", "sql::privs"],
    ),
    (
        "analysis and planning: bound expressions and plans",
        &["sql::plan", "sql::partition", "sql::partition_hash"],
    ),
    ("deparsing", &["sql::ruleutils"]),
    ("system functions", &["sql::func::system"]),
    ("execution: plans and expressions evaluated", &["sql::exec"]),
    ("utility statements", &["sql::ddl"]),
    ("statements", &["sql", "sql::pl", "sql::fuzz_tests"]),
    ("sessions", &["session"]),
    (
        "the runtime",
        &["runtime", "runtime::server", "runtime::autovacuum", "main"],
    ),
];

/// Imports that go up, as they stood when this test was written (from, to). Each is a debt
/// of issue 28: move the code, then delete the line.
const DEBTS: &[(&str, &str)] = &[];

/// Modules below `sql::X` that are units of their own: the function library's system
/// functions print stored expressions and read the catalogs, so they sit above the planner and
/// the deparser, while the rest of the library sits below them.
const NESTED_UNITS: &[&str] = &["sql::func::system"];

/// Folders whose modules are units of their own, because they span layers: the SQL layer, and
/// the runtime, whose shards sit low (the instance and sessions use them) while the listener
/// and the background vacuum sit on top.
const SPLIT_FOLDERS: &[&str] = &["sql", "runtime"];

fn layer_of(unit: &str) -> Option<usize> {
    LAYERS.iter().position(|(_, units)| units.contains(&unit))
}

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The module path of a file: src/a/b.rs and src/a/b/mod.rs are `[a, b]`; lib.rs and main.rs
/// are the crate root.
fn module_of(file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(src()).unwrap().with_extension("");
    let mut parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if parts.last().is_some_and(|p| p == "mod") {
        parts.pop();
    }
    if parts == ["lib"] {
        parts.clear();
    }
    parts
}

/// Whether `path` (a module path) names a module with a file or folder of its own.
fn is_module(path: &[String]) -> bool {
    let base = path.iter().fold(src(), |p, s| p.join(s));
    base.with_extension("rs").is_file() || base.is_dir()
}

/// The unit a module path belongs to (see `LAYERS`).
fn unit_of(path: &[String]) -> String {
    if path.is_empty() || !is_module(&path[..1]) {
        return "lib".into();
    }
    for nested in NESTED_UNITS {
        let parts: Vec<&str> = nested.split("::").collect();
        if path.len() >= parts.len() && path.iter().zip(&parts).all(|(a, b)| a == b) {
            return nested.to_string();
        }
    }
    if SPLIT_FOLDERS.contains(&path[0].as_str()) && path.len() > 1 && is_module(&path[..2]) {
        return format!("{}::{}", path[0], path[1]);
    }
    path[0].clone()
}

/// The file's text without its test code: files of tests, and `#[cfg(test)]` items (a test
/// may set up what it needs from anywhere).
fn code_of(file: &Path) -> Option<String> {
    let name = file.file_name()?.to_string_lossy();
    if name == "tests.rs" || name.ends_with("_tests.rs") || name == "model.rs" {
        return None;
    }
    let text = std::fs::read_to_string(file).ok()?;
    let mut out = String::new();
    let mut skip_depth: Option<i64> = None;
    let mut depth = 0i64;
    let mut pending_cfg_test = false;
    for line in text.lines() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("//") {
            continue;
        }
        let cfg_test = trimmed.starts_with("#[cfg(")
            && trimmed.contains("test")
            && !trimmed.contains("not(test");
        if skip_depth.is_none() && cfg_test {
            pending_cfg_test = true;
            continue;
        }
        let opens = line.matches('{').count() as i64;
        let closes = line.matches('}').count() as i64;
        if pending_cfg_test && trimmed.starts_with("#[") {
            continue;
        }
        if pending_cfg_test {
            pending_cfg_test = false;
            if opens > closes {
                skip_depth = Some(depth);
            }
            depth += opens - closes;
            continue;
        }
        depth += opens - closes;
        if let Some(d) = skip_depth {
            if depth <= d {
                skip_depth = None;
            }
            continue;
        }
        out.push_str(line);
        out.push('\n');
    }
    Some(out)
}

/// The module paths a text names through `crate::` and `super::` (each path cut at its first
/// two segments below the root, which is all `unit_of` needs; a group `crate::{a, b}` names
/// each member).
fn paths_in(text: &str, module: &[String]) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let bytes = text.as_bytes();
    let word = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let mut i = 0;
    while i < bytes.len() {
        let at_word_start = i == 0 || !word(bytes[i - 1]);
        let root = if at_word_start && text[i..].starts_with("crate::") {
            Some((Vec::new(), i + "crate::".len()))
        } else if at_word_start && text[i..].starts_with("super::") {
            let mut base = module.to_vec();
            let mut j = i;
            while text[j..].starts_with("super::") {
                base.pop();
                j += "super::".len();
            }
            Some((base, j))
        } else {
            None
        };
        let Some((base, mut j)) = root else {
            i += 1;
            continue;
        };
        let segments = |j: &mut usize| {
            let mut segs = Vec::new();
            loop {
                let start = *j;
                while *j < bytes.len() && word(bytes[*j]) {
                    *j += 1;
                }
                if *j == start {
                    break;
                }
                segs.push(text[start..*j].to_string());
                if text[*j..].starts_with("::") && *j + 2 < bytes.len() && word(bytes[*j + 2]) {
                    *j += 2;
                } else {
                    break;
                }
            }
            segs
        };
        let mut prefix = base;
        let named = segments(&mut j);
        let glob = named.is_empty() && !text[j..].starts_with('{');
        prefix.extend(named);
        if text[j..].starts_with("::{") {
            j += 2;
        }
        if text[j..].starts_with('{') {
            // crate::x::{a::b, c}: each member at the group's top level.
            let mut level = 0;
            let mut member_start = true;
            while j < bytes.len() {
                match bytes[j] {
                    b'{' => {
                        level += 1;
                        j += 1;
                        member_start = level == 1;
                    }
                    b'}' => {
                        level -= 1;
                        j += 1;
                        if level == 0 {
                            break;
                        }
                    }
                    b',' => {
                        j += 1;
                        member_start = level == 1;
                    }
                    c if member_start && word(c) => {
                        let mut p = prefix.clone();
                        p.extend(segments(&mut j));
                        out.push(p);
                        member_start = false;
                    }
                    _ => j += 1,
                }
            }
        } else if !glob {
            out.push(prefix);
        }
        i = j.max(i + 1);
    }
    out
}

/// Every import between units: (from, to) → the files that make it.
fn imports() -> BTreeMap<(String, String), BTreeSet<String>> {
    let mut files = Vec::new();
    rust_files(&src(), &mut files);
    let mut out: BTreeMap<(String, String), BTreeSet<String>> = BTreeMap::new();
    for file in files {
        let Some(code) = code_of(&file) else {
            continue;
        };
        let module = module_of(&file);
        let from = unit_of(&module);
        for path in paths_in(&code, &module) {
            let to = unit_of(&path);
            if to != from {
                let shown = file.strip_prefix(src()).unwrap().display().to_string();
                out.entry((from.clone(), to)).or_default().insert(shown);
            }
        }
    }
    out
}

#[test]
fn every_unit_has_a_layer() {
    let mut missing = BTreeSet::new();
    for (from, to) in imports().keys() {
        for unit in [from, to] {
            if layer_of(unit).is_none() {
                missing.insert(unit.clone());
            }
        }
    }
    assert!(
        missing.is_empty(),
        "units with no layer in tests/integration/layering.rs (add them to LAYERS and to \
         docs/architecture.md): {missing:?}"
    );
}

#[test]
fn imports_never_go_up() {
    let debts: BTreeSet<(String, String)> = DEBTS
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
    let mut up = Vec::new();
    let mut seen = BTreeSet::new();
    for ((from, to), files) in imports() {
        let (Some(lf), Some(lt)) = (layer_of(&from), layer_of(&to)) else {
            continue;
        };
        if lt > lf {
            seen.insert((from.clone(), to.clone()));
            if !debts.contains(&(from.clone(), to.clone())) {
                up.push(format!(
                    "{from} ({}) imports {to} ({}) in {files:?}",
                    LAYERS[lf].0, LAYERS[lt].0
                ));
            }
        }
    }
    assert!(
        up.is_empty(),
        "imports against the layers (docs/architecture.md):\n{}",
        up.join("\n")
    );
    let paid: Vec<_> = debts.difference(&seen).collect();
    assert!(
        paid.is_empty(),
        "these imports no longer go up: delete them from DEBTS in tests/integration/layering.rs: {paid:?}"
    );
}

#[test]
fn the_reader_sees_what_the_test_sees() {
    // The path reader on the forms src/ uses.
    let m: Vec<String> = vec!["sql".into(), "plan".into(), "join".into()];
    let found = paths_in(
        "use crate::sql::{exec::EvalCx, types};\nlet x = super::super::engine::Rel;\nuse super::Planner;\nuse crate::sql::func::{system::call, lookup};",
        &m,
    );
    let units: Vec<String> = found.iter().map(|p| unit_of(p)).collect();
    assert_eq!(
        units,
        vec![
            "sql::exec",
            "sql::types",
            "sql::engine",
            "sql::plan",
            "sql::func::system",
            "sql::func"
        ]
    );
}
