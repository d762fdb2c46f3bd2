//! Reading a rules file and its `@file` includes from disk: the only I/O of host rules. Both
//! are bounded by [`MAX_FILE_BYTES`](super::MAX_FILE_BYTES).

use std::io::Read;
use std::path::{Path, PathBuf};

use super::{parse, Parsed, Rules};

use crate::error::os_error_text;

/// Reads at most `MAX_FILE_BYTES` of a file; a longer file is an error.
fn read_bounded(path: &Path) -> std::io::Result<String> {
    let f = std::fs::File::open(path)?;
    let mut buf = Vec::new();
    f.take(super::MAX_FILE_BYTES as u64 + 1)
        .read_to_end(&mut buf)?;
    if buf.len() > super::MAX_FILE_BYTES {
        return Err(std::io::Error::other(format!(
            "file is larger than {} bytes",
            super::MAX_FILE_BYTES
        )));
    }
    Ok(String::from_utf8_lossy(&buf).into_owned())
}

/// Reads and parses the file at `path` line by line (what pg_hba_file_rules shows). Fails
/// only when the file itself cannot be read, with PostgreSQL's text.
pub fn read(path: &Path, ssl: bool) -> Result<Parsed, String> {
    let text = read_bounded(path).map_err(|e| {
        format!(
            "could not open configuration file \"{}\": {}",
            path.display(),
            os_error_text(&e)
        )
    })?;
    let dir: PathBuf = path.parent().map(Path::to_path_buf).unwrap_or_default();
    let include = |name: &str| -> Result<String, String> {
        // Relative names are relative to the directory of the rules file, as in PostgreSQL.
        let full = if Path::new(name).is_absolute() {
            PathBuf::from(name)
        } else {
            dir.join(name)
        };
        read_bounded(&full).map_err(|e| {
            format!(
                "could not open secondary authentication file \"@{name}\" as \"{}\": {}",
                full.display(),
                os_error_text(&e)
            )
        })
    };
    Ok(parse(&text, ssl, &include))
}

/// Loads the rules of `path` as PostgreSQL's load_hba does: any error fails the whole file.
/// The error text names the line as PostgreSQL's log context does. Warnings of lines that load
/// anyway are logged.
pub fn load(path: &Path, ssl: bool) -> Result<Rules, String> {
    let parsed = read(path, ssl)?;
    for l in parsed.warnings() {
        tracing::warn!(
            "{} (line {} of configuration file \"{}\")",
            l.error.as_deref().unwrap_or(""),
            l.line,
            path.display()
        );
    }
    parsed
        .rules(&path.display().to_string())
        .map_err(|e| match e.line {
            0 => e.message,
            n => format!(
                "{} (line {n} of configuration file \"{}\")",
                e.message,
                path.display()
            ),
        })
}

/// The rules in force in a running server, and where they come from. Sessions take the current
/// rules (an `Arc`, so a reload never waits for them); a reload swaps them whole, or keeps them
/// when the file is bad.
pub struct HostRules {
    path: Option<PathBuf>,
    password: bool,
    /// Whether the server answers SSLRequests with TLS: without it `hostssl` lines carry
    /// PostgreSQL's warning (and never match, as no connection is encrypted).
    ssl: bool,
    current: parking_lot::RwLock<std::sync::Arc<Rules>>,
}

impl HostRules {
    /// The rules read at start (`initial`, from the config) or the default rules; `ssl`: the
    /// server has TLS (its certificate is loaded).
    pub fn new(
        path: Option<PathBuf>,
        initial: Option<Rules>,
        password: bool,
        ssl: bool,
    ) -> HostRules {
        let rules = initial.unwrap_or_else(|| {
            super::default_rules(password)
                .rules("")
                .expect("the default rules parse")
        });
        HostRules {
            path,
            password,
            ssl,
            current: parking_lot::RwLock::new(std::sync::Arc::new(rules)),
        }
    }

    pub fn current(&self) -> std::sync::Arc<Rules> {
        self.current.read().clone()
    }

    /// Reads the file again (SIGHUP, pg_reload_conf()). A bad file is logged and the rules in
    /// force stay, as PostgreSQL's "pg_hba.conf was not reloaded".
    pub fn reload(&self) {
        let Some(path) = &self.path else {
            return;
        };
        match load(path, self.ssl) {
            Ok(rules) => {
                *self.current.write() = std::sync::Arc::new(rules);
                tracing::info!("host rules reloaded from \"{}\"", path.display());
            }
            Err(e) => {
                tracing::warn!("{e}");
                tracing::warn!("pg_hba.conf was not reloaded");
            }
        }
    }

    /// What pg_hba_file_rules shows: the file as it is now on disk (as in PostgreSQL, which
    /// reads it for the view, whatever is loaded), or the default rules when there is no file.
    pub fn view(&self) -> Result<Parsed, String> {
        match &self.path {
            Some(path) => read(path, self.ssl),
            None => Ok(super::default_rules(self.password)),
        }
    }
}
