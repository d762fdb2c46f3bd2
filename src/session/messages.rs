//! Message levels: which notices reach the client (client_min_messages) and which messages
//! go to the server log (log_min_messages), as PostgreSQL's elog.c decides.
//!
//! PostgreSQL numbers its levels DEBUG5 (10) .. DEBUG1 (14), LOG (15), INFO (17), NOTICE (18),
//! WARNING (19), ERROR (21), FATAL (22), PANIC (23). The client sees a message when its level is
//! at least client_min_messages, and always an INFO or an ERROR or worse (ERROR is not among
//! client_min_messages' values, so it is never filtered). The server log ranks LOG between ERROR
//! and FATAL (LOG messages are meant for the administrator), so `log_min_messages = warning`
//! writes LOG messages too. The server log here is `tracing`, whose own filter (`--log-level`)
//! applies after this one.

use super::settings::Settings;
use super::Session;
use crate::error::{PgError, Severity};
use crate::wire::backend as be;

const LOG: i32 = 15;
const INFO: i32 = 17;
const NOTICE: i32 = 18;
const WARNING: i32 = 19;
const ERROR: i32 = 21;
const FATAL: i32 = 22;
const PANIC: i32 = 23;

/// PostgreSQL's number for a severity.
fn elevel(s: Severity) -> i32 {
    match s {
        Severity::Debug(n) => 15 - i32::from(n.clamp(1, 5)),
        Severity::Log => LOG,
        Severity::Info => INFO,
        Severity::Notice => NOTICE,
        Severity::Warning => WARNING,
        Severity::Error => ERROR,
        Severity::Fatal => FATAL,
    }
}

/// The level a setting's value names (the values settings.rs accepts for client_min_messages
/// and log_min_messages, already lower-case and canonical).
fn level_of(value: &str) -> i32 {
    match value {
        "debug5" => 10,
        "debug4" => 11,
        "debug3" => 12,
        "debug2" | "debug" => 13,
        "debug1" => 14,
        "log" => LOG,
        "info" => INFO,
        "notice" => NOTICE,
        "warning" => WARNING,
        "error" => ERROR,
        "fatal" => FATAL,
        "panic" => PANIC,
        _ => NOTICE,
    }
}

/// Whether the client receives a message of severity `s` (elog.c's should_output_to_client).
pub(super) fn client_sees(settings: &Settings, s: Severity) -> bool {
    let level = elevel(s);
    if level >= ERROR || level == INFO {
        return true;
    }
    level >= level_of(settings.get_str("client_min_messages").unwrap_or("notice"))
}

/// elog.c's is_log_level_output: LOG ranks just below FATAL for the log.
fn log_rank(level: i32) -> i32 {
    match level {
        LOG => ERROR * 10 + 5,
        l => l * 10,
    }
}

/// Whether the server log records a message of severity `s`.
pub(super) fn log_sees(settings: &Settings, s: Severity) -> bool {
    let min = level_of(settings.get_str("log_min_messages").unwrap_or("warning"));
    log_rank(elevel(s)) >= log_rank(min)
}

/// Writes a message to the server log (tracing) when log_min_messages asks for it.
pub(super) fn log_message(settings: &Settings, pid: i32, e: &PgError) {
    if !log_sees(settings, e.severity) {
        return;
    }
    let sev = e.severity.as_str();
    let (code, msg) = (e.code, &e.message);
    match e.severity {
        Severity::Error | Severity::Fatal => tracing::error!(pid, "{sev}: {code}: {msg}"),
        Severity::Warning => tracing::warn!(pid, "{sev}: {code}: {msg}"),
        Severity::Debug(_) => tracing::debug!(pid, "{sev}: {code}: {msg}"),
        _ => tracing::info!(pid, "{sev}: {code}: {msg}"),
    }
}

impl Session {
    /// PostgreSQL's DEBUG2 messages for Parse and Bind (`parse <name>: <query>`, `bind <portal>
    /// to <statement>`), queued before the message's own answer.
    pub(super) fn debug_parse(&mut self, name: &str, query: &str) {
        if self.core.settings.client_debug >= 2 {
            let name = if name.is_empty() { "<unnamed>" } else { name };
            self.core.notices.push(PgError::debug(
                2,
                crate::error::code::SUCCESSFUL_COMPLETION,
                format!("parse {name}: {query}"),
            ));
        }
    }

    pub(super) fn debug_bind(&mut self, portal: &str, statement: &str) {
        if self.core.settings.client_debug >= 2 {
            let un = |s: &str| {
                if s.is_empty() {
                    "<unnamed>".to_string()
                } else {
                    s.to_string()
                }
            };
            self.core.notices.push(PgError::debug(
                2,
                crate::error::code::SUCCESSFUL_COMPLETION,
                format!("bind {} to {}", un(portal), un(statement)),
            ));
        }
    }

    /// Sends a notice (NOTICE, WARNING, INFO, LOG, DEBUG) if client_min_messages lets it
    /// through, and logs it if log_min_messages asks for it.
    pub(super) fn send_notice(&mut self, n: &PgError) {
        log_message(&self.core.settings, self.core.shared.pid, n);
        if client_sees(&self.core.settings, n.severity) {
            be::error_or_notice_in(&mut self.out, n, self.core.settings.client);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn client_levels_follow_elog() {
        let mut s = Settings::new();
        assert!(client_sees(&s, Severity::Notice));
        assert!(!client_sees(&s, Severity::Log));
        assert!(!client_sees(&s, Severity::Debug(1)));
        s.set("client_min_messages", "error").unwrap();
        assert!(!client_sees(&s, Severity::Warning));
        assert!(client_sees(&s, Severity::Info));
        assert!(client_sees(&s, Severity::Error));
        s.set("client_min_messages", "debug3").unwrap();
        assert!(client_sees(&s, Severity::Debug(3)));
        assert!(!client_sees(&s, Severity::Debug(4)));
        assert!(client_sees(&s, Severity::Log));
        s.set("client_min_messages", "log").unwrap();
        assert!(!client_sees(&s, Severity::Debug(1)));
        assert!(client_sees(&s, Severity::Log));
    }

    #[test]
    fn log_ranks_log_above_error() {
        let mut s = Settings::new();
        assert!(log_sees(&s, Severity::Log));
        assert!(log_sees(&s, Severity::Warning));
        assert!(!log_sees(&s, Severity::Notice));
        s.set("log_min_messages", "fatal").unwrap();
        assert!(!log_sees(&s, Severity::Log));
        assert!(!log_sees(&s, Severity::Error));
        s.set("log_min_messages", "error").unwrap();
        assert!(log_sees(&s, Severity::Log));
    }
}
