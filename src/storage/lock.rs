//! Row lock strengths and the shared lockers of a row version.
//!
//! PostgreSQL has four row-lock strengths, weakest first: FOR KEY SHARE, FOR SHARE, FOR NO KEY
//! UPDATE, FOR UPDATE. An UPDATE that changes no key column (no column of a unique index) takes
//! NO KEY UPDATE on the old version; an UPDATE that changes one, and a DELETE, take UPDATE. Its
//! conflict table:
//!
//! | held \ requested | KEY SHARE | SHARE | NO KEY UPDATE | UPDATE |
//! |---|---|---|---|---|
//! | KEY SHARE     |   |   |   | X |
//! | SHARE         |   |   | X | X |
//! | NO KEY UPDATE |   | X | X | X |
//! | UPDATE        | X | X | X | X |
//!
//! # Where the locks live
//!
//! At most one *exclusive* holder (NO KEY UPDATE or UPDATE: they conflict with each other) sits
//! in the version's `xmax`, as before: the deleter, the updater, or a lock-only locker, with a
//! flag for its strength. The *shared* holders (KEY SHARE, SHARE), of which there may be many at
//! once, sit in a [`Lockers`] list kept in the version's slot, in place of PostgreSQL's
//! MultiXact. A KEY SHARE holder and a NO KEY UPDATE updater may coexist: the updater's new
//! version inherits the list's live KEY SHARE holders, so that a later key update or delete of
//! the new version still waits for them (PostgreSQL carries them in the new tuple's xmax).
//!
//! # Bound
//!
//! An entry whose transaction has ended (committed or aborted) no longer holds anything and is
//! dropped whenever the list is changed, and by vacuum's freeze. A transaction keeps at most one
//! entry per shared strength on a version (a request its transaction already holds at that
//! strength or stronger adds nothing), so a list holds at most 2 entries per transaction in
//! progress: at most twice the connection limit. Nothing is refused at the bound, which cannot
//! be passed.
//!
//! # Waits
//!
//! A request that conflicts with several holders waits for one of them (the first found); when
//! it ends the request is tried again and waits for the next, so each waiter records one holder
//! at a time and the deadlock check's chains stay chains (see `txn`). A cycle through a holder
//! other than the one waited for is found once the wait moves on to it.

use crate::sync::Arc;
use crate::txn::{Status, TxnCell};

/// A row lock's strength, weakest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum LockMode {
    KeyShare,
    Share,
    NoKeyUpdate,
    Update,
}

impl LockMode {
    /// PostgreSQL's conflict table (module comment).
    pub fn conflicts(self, other: LockMode) -> bool {
        use LockMode::*;
        match (self, other) {
            (KeyShare, Update) | (Update, KeyShare) => true,
            (KeyShare, _) | (_, KeyShare) => false,
            (Share, Share) => false,
            _ => true,
        }
    }

    /// Whether holders of this strength go in the shared list rather than in `xmax`.
    pub fn shared(self) -> bool {
        self <= LockMode::Share
    }
}

/// The shared lockers of one version (see the module comment for the bound).
pub(super) type Lockers = Vec<(Arc<TxnCell>, LockMode)>;

/// Drops the entries of transactions that ended.
pub(super) fn prune(list: &mut Lockers) {
    list.retain(|(c, _)| c.status() == Status::InProgress);
}

/// The first holder in `list`, of another transaction than `me` and still running, whose lock
/// conflicts with `mode`.
pub(super) fn conflicting(list: &Lockers, me: &TxnCell, mode: LockMode) -> Option<Arc<TxnCell>> {
    list.iter()
        .find(|(c, m)| {
            c.top() != me.top() && mode.conflicts(*m) && c.status() == Status::InProgress
        })
        .map(|(c, _)| c.clone())
}

/// Adds `cell`'s shared lock of strength `mode` (nothing if its transaction already holds one
/// at least as strong that is still live).
pub(super) fn add(list: &mut Lockers, cell: &Arc<TxnCell>, mode: LockMode) {
    prune(list);
    if list
        .iter()
        .any(|(c, m)| c.top() == cell.top() && *m >= mode)
    {
        return;
    }
    list.push((cell.clone(), mode));
}
