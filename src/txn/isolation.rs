//! Transaction isolation levels, as SQL names them (BEGIN ISOLATION LEVEL, the
//! `transaction_isolation` setting): what a transaction's snapshots and its writes' conflicts
//! follow.

/// The levels in increasing strength; `Ord` follows that order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
pub enum Isolation {
    ReadUncommitted,
    #[default]
    ReadCommitted,
    RepeatableRead,
    Serializable,
}

impl Isolation {
    pub fn as_str(self) -> &'static str {
        match self {
            Isolation::ReadUncommitted => "read uncommitted",
            Isolation::ReadCommitted => "read committed",
            Isolation::RepeatableRead => "repeatable read",
            Isolation::Serializable => "serializable",
        }
    }

    pub fn parse(s: &str) -> Option<Isolation> {
        [
            Isolation::ReadUncommitted,
            Isolation::ReadCommitted,
            Isolation::RepeatableRead,
            Isolation::Serializable,
        ]
        .into_iter()
        .find(|i| i.as_str().eq_ignore_ascii_case(s))
    }
}
