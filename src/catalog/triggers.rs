//! Triggers of a table (pg_trigger): what CREATE TRIGGER defined, kept in the table's
//! relation version like its constraints, so that a trigger is created, renamed, enabled,
//! disabled and dropped with the transaction that did it (a new version of the table), is
//! dropped with its table, and is kept wherever the table's definition is (checkpoint images,
//! schema commit records).
//!
//! The kind of a trigger is pg_trigger's `tgtype` bit set, kept as PostgreSQL keeps it so that
//! the catalog shows it as it is: when it fires (BEFORE, AFTER, INSTEAD OF), for which events
//! (INSERT, UPDATE, DELETE, TRUNCATE) and at which level (each row or the statement).
//!
//! A constraint trigger (CREATE CONSTRAINT TRIGGER) is an AFTER ROW trigger with a
//! [`TriggerConstraint`]: SET CONSTRAINTS names it, and when deferred its events wait for the
//! commit.
//!
//! Bounds: a table has at most [`MAX_TRIGGERS`] triggers; a trigger at most [`MAX_ARGS`]
//! arguments (CREATE TRIGGER refuses more, 54000).

use serde::{Deserialize, Serialize};

use super::Oid;

/// The most triggers one table may have.
pub const MAX_TRIGGERS: usize = 1000;
/// The most arguments one trigger may pass to its function.
pub const MAX_ARGS: usize = 100;

/// pg_trigger.tgtype bits.
pub const ROW: i16 = 1 << 0;
pub const BEFORE: i16 = 1 << 1;
pub const INSERT: i16 = 1 << 2;
pub const DELETE: i16 = 1 << 3;
pub const UPDATE: i16 = 1 << 4;
pub const TRUNCATE: i16 = 1 << 5;
pub const INSTEAD: i16 = 1 << 6;

/// When a trigger fires relative to its event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Timing {
    Before,
    After,
    InsteadOf,
}

impl Timing {
    /// TG_WHEN's text.
    pub fn word(self) -> &'static str {
        match self {
            Timing::Before => "BEFORE",
            Timing::After => "AFTER",
            Timing::InsteadOf => "INSTEAD OF",
        }
    }
}

/// A trigger as pg_trigger describes it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TriggerDef {
    pub oid: Oid,
    pub name: String,
    /// The function it calls (pg_trigger.tgfoid).
    pub function: Oid,
    /// pg_trigger.tgtype: the bits above.
    pub tgtype: i16,
    /// pg_trigger.tgenabled: 'O' (origin and local), 'D' disabled, 'R' replica, 'A' always.
    pub enabled: char,
    /// UPDATE OF: positions of the columns (pg_trigger.tgattr); empty for any column.
    pub columns: Vec<usize>,
    /// WHEN: the condition as SQL text over OLD and NEW (pg_trigger.tgqual, as text).
    pub when: Option<String>,
    /// The arguments written after the function's name (pg_trigger.tgargs), as strings.
    pub args: Vec<String>,
    /// REFERENCING OLD TABLE AS: the name the function reads the changed rows' old versions
    /// under (pg_trigger.tgoldtable; AFTER UPDATE / DELETE triggers of tables only).
    pub old_table: Option<String>,
    /// REFERENCING NEW TABLE AS: the name of the new versions (pg_trigger.tgnewtable; AFTER
    /// INSERT / UPDATE).
    pub new_table: Option<String>,
    /// CREATE CONSTRAINT TRIGGER: its constraint (None for an ordinary trigger).
    pub constraint: Option<TriggerConstraint>,
}

/// What makes a trigger a constraint trigger: the pg_constraint row (contype 't', named as the
/// trigger) that pg_trigger.tgconstraint points to, and when it fires. It is always AFTER ...
/// FOR EACH ROW; a deferred one fires at commit or at SET CONSTRAINTS ... IMMEDIATE, as the
/// deferred checks of foreign keys do (the session keeps both).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct TriggerConstraint {
    /// pg_constraint.oid (pg_trigger.tgconstraint).
    pub oid: Oid,
    /// DEFERRABLE (pg_trigger.tgdeferrable, pg_constraint.condeferrable).
    pub deferrable: bool,
    /// INITIALLY DEFERRED (tginitdeferred, condeferred).
    pub initially_deferred: bool,
    /// FROM: the table it is said to reference (pg_trigger.tgconstrrelid; 0 for none).
    pub from_table: Oid,
}

impl TriggerDef {
    pub fn row(&self) -> bool {
        self.tgtype & ROW != 0
    }

    pub fn timing(&self) -> Timing {
        if self.tgtype & BEFORE != 0 {
            Timing::Before
        } else if self.tgtype & INSTEAD != 0 {
            Timing::InsteadOf
        } else {
            Timing::After
        }
    }

    /// Whether it fires for an event (one of INSERT, UPDATE, DELETE, TRUNCATE).
    pub fn on(&self, event: i16) -> bool {
        self.tgtype & event != 0
    }

    /// Whether it reads transition tables (REFERENCING OLD / NEW TABLE).
    pub fn has_transitions(&self) -> bool {
        self.old_table.is_some() || self.new_table.is_some()
    }

    /// Whether it fires in a session (session_replication_role = origin, the only role
    /// here): all but the disabled ones and those for replicas.
    pub fn fires(&self) -> bool {
        matches!(self.enabled, 'O' | 'A')
    }
}

/// TG_OP's text for one event bit.
pub fn event_word(event: i16) -> &'static str {
    match event {
        INSERT => "INSERT",
        UPDATE => "UPDATE",
        DELETE => "DELETE",
        _ => "TRUNCATE",
    }
}
