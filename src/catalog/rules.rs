//! Rules of a table or view (pg_rewrite): what CREATE RULE defined, kept in the relation's
//! version like its triggers, so that a rule is created, renamed, enabled, disabled and
//! dropped with the transaction that did it, is dropped with its relation, and is kept
//! wherever the relation's definition is (checkpoint images).
//!
//! The condition and the actions are kept as SQL text over NEW and OLD, parsed again when a
//! statement the rule applies to is planned (`sql::plan::rules`).
//!
//! Bounds: a relation has at most [`MAX_RULES`] rules, a rule at most [`MAX_ACTIONS`] actions.

use serde::{Deserialize, Serialize};

use super::Oid;

/// The most rules one relation may have.
pub const MAX_RULES: usize = 1000;
/// The most commands one rule's action may have.
pub const MAX_ACTIONS: usize = 100;

/// pg_rewrite.ev_type: the event a rule is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Event {
    Select,
    Update,
    Insert,
    Delete,
}

impl Event {
    /// pg_rewrite.ev_type's character.
    pub fn code(self) -> char {
        match self {
            Event::Select => '1',
            Event::Update => '2',
            Event::Insert => '3',
            Event::Delete => '4',
        }
    }

    pub fn word(self) -> &'static str {
        match self {
            Event::Select => "SELECT",
            Event::Update => "UPDATE",
            Event::Insert => "INSERT",
            Event::Delete => "DELETE",
        }
    }
}

/// A rule as pg_rewrite describes it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RuleDef {
    pub oid: Oid,
    pub name: String,
    pub event: Event,
    /// DO INSTEAD (pg_rewrite.is_instead).
    pub instead: bool,
    /// pg_rewrite.ev_enabled: 'O' (origin and local), 'D' disabled, 'R' replica, 'A' always.
    pub enabled: char,
    /// WHERE: the condition as SQL text over NEW and OLD.
    pub qual: Option<String>,
    /// The commands, as SQL text; none for DO NOTHING.
    pub actions: Vec<String>,
    /// The owner whose rights the actions run with (the relation's, as PostgreSQL's).
    pub owner: Oid,
}

impl RuleDef {
    /// Whether it applies in a session (session_replication_role = origin, the only role).
    pub fn fires(&self) -> bool {
        matches!(self.enabled, 'O' | 'A')
    }
}
