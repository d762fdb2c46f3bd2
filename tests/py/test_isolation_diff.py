"""Multi-session isolation scenarios, differential (issue 19: MVCC rows, row locks).

In the style of PostgreSQL's isolation tester and of hermitage
(github.com/ept/hermitage): a scenario is a sequence of (session, SQL) steps on
2-3 psycopg connections (autocommit on, explicit BEGIN). Each step runs in a
thread of its own; a step that has not finished after BLOCK_TIMEOUT is recorded
as blocked, and the scenario goes on with the next step (which is meant to
release it). After every step that finished, the blocked steps get
RELEASE_TIMEOUT to finish; the ones that did are recorded as unblocked at that
point, with their result. The observable outcome (each step's command tag and
rows or error SQLSTATE and message, which steps blocked and which step released
them) must be the same on PostgreSQL 15 and on the server under test.

As in the other *_diff tests, the "pg15" id runs each scenario twice on
PostgreSQL (a determinism check of the scenario), the "threadgres" id compares
PostgreSQL with threadgres.

Steps whose outcome is timing-dependent by nature (which of two deadlocked
transactions is chosen as the victim) are marked racy: they are recorded
without blocking information and their outcomes are compared as a sorted list.
Steps that surely block but whose release order is a race (two waiters for one
row: PostgreSQL wakes both and either may win) are marked racy="finish": their
blocking is recorded, their results are compared as a sorted list.
"""

from __future__ import annotations

import os
import threading
import time
from typing import Callable, Optional

import psycopg
import pytest

from clientutil import assert_same

BLOCK_TIMEOUT = float(os.environ.get("ISOLATION_BLOCK_TIMEOUT", "0.5"))
RELEASE_TIMEOUT = float(os.environ.get("ISOLATION_RELEASE_TIMEOUT", "0.5"))
SETTLE_TIMEOUT = 10.0

SCENARIOS: dict[str, Callable] = {}


def scenario(fn):
    SCENARIOS[fn.__name__] = fn
    return fn


def _connect(server):
    return psycopg.connect(server.conninfo, autocommit=True, prepare_threshold=None, connect_timeout=10)


def _run_sql(conn, sql: str) -> str:
    try:
        cur = conn.execute(sql)
        out = str(cur.statusmessage)
        if cur.description is not None:
            out += " " + repr([tuple(r) for r in cur.fetchall()])
        return out
    except psycopg.Error as e:
        diag = e.diag
        return f"ERROR {e.sqlstate}: {diag.message_primary}"


class _Step:
    def __init__(self, n: int, session: str, sql: str, racy: bool):
        self.n, self.session, self.sql, self.racy = n, session, sql, racy
        self.result: Optional[str] = None
        self.done = threading.Event()
        self.thread: Optional[threading.Thread] = None


class Runner:
    """Sessions s1..sN on one server, and the recorded outcome of the steps."""

    def __init__(self, server, table: str, sessions: int = 2):
        self.server = server
        self.t = table
        self.log: list[str] = []
        self.racy: list[str] = []
        self.n = 0
        self.pending: list[_Step] = []
        self.admin = _connect(server)
        self.admin.execute("SET statement_timeout = '20s'")
        self.conns = {f"s{i}": _connect(server) for i in range(1, sessions + 1)}

    # -- setup / teardown (not recorded) ----------------------------------------------------
    def setup(self, *stmts: str) -> None:
        self.admin.execute(f"DROP TABLE IF EXISTS {self.t}")
        for s in stmts:
            self.admin.execute(s.format(t=self.t))

    def close(self) -> None:
        for st in self.pending:
            try:
                self.conns[st.session].cancel()
            except Exception:
                pass
        for st in self.pending:
            if st.thread is not None:
                st.thread.join(5)
        for c in self.conns.values():
            try:
                c.close()
            except Exception:
                pass
        try:
            self.admin.execute(f"DROP TABLE IF EXISTS {self.t}")
        finally:
            self.admin.close()

    # -- steps ----------------------------------------------------------------------------
    def sql(self, session: str, sql: str, racy=False) -> None:
        """Run one step; record its result, or that it blocked."""
        sql = sql.format(t=self.t)
        self.n += 1
        busy = [p for p in self.pending if p.session == session]
        if busy:
            # Only when the server under test left a step blocked that PostgreSQL finished.
            self.log.append(f"#{self.n} {session}: {sql} -> (not sent: {session} still busy with #{busy[0].n})")
            return
        st = _Step(self.n, session, sql, racy)
        conn = self.conns[session]

        def work():
            st.result = _run_sql(conn, sql)
            st.done.set()

        st.thread = threading.Thread(target=work, daemon=True)
        st.thread.start()
        finished = st.done.wait(BLOCK_TIMEOUT)
        if racy == "finish" and finished:
            self.log.append(f"#{st.n} {session}: {sql} -> (did not block)")
            self.racy.append(st.result)
        elif racy == "finish":
            self.log.append(f"#{st.n} {session}: {sql} -> (blocked; result compared at the end)")
            self.pending.append(st)
        elif racy:
            self.log.append(f"#{st.n} {session}: {sql} -> (racy, compared at the end)")
            if finished:
                self.racy.append(st.result)
            else:
                self.pending.append(st)
        elif finished:
            self.log.append(f"#{st.n} {session}: {sql} -> {st.result}")
        else:
            self.log.append(f"#{st.n} {session}: {sql} -> (blocked)")
            self.pending.append(st)
        if finished:
            self._collect(RELEASE_TIMEOUT, after=st.n)

    def _collect(self, timeout: float, after: int) -> None:
        """Give each blocked step `timeout` to finish; record those that did."""
        still = []
        for p in self.pending:
            if p.done.wait(timeout):
                if p.racy:
                    self.racy.append(p.result)
                else:
                    self.log.append(f"   #{p.n} {p.session} unblocked after #{after} -> {p.result}")
            else:
                still.append(p)
        self.pending = still

    def wait_for(self, session: str) -> None:
        """Wait (bounded) until the blocked step of `session` has finished."""
        for p in self.pending:
            if p.session == session:
                p.done.wait(SETTLE_TIMEOUT)
        self._collect(0, after=self.n)

    def settle(self) -> None:
        """Wait (bounded) until every blocked step has finished."""
        self._collect(SETTLE_TIMEOUT, after=self.n)
        for p in self.pending:
            self.log.append(f"   #{p.n} {p.session} never finished")

    def outcome(self) -> list[str]:
        self.settle()
        out = list(self.log)
        if self.racy or any(p.racy for p in self.pending):
            out.append("racy steps (sorted): " + repr(sorted(self.racy)))
        return out


def run_scenario(server, name: str) -> list[str]:
    fn = SCENARIOS[name]
    table = "iso_" + name
    sessions = getattr(fn, "sessions", 3)
    r = Runner(server, table, sessions)
    try:
        r.setup("CREATE TABLE {t} (id int PRIMARY KEY, value int)", "INSERT INTO {t} VALUES (1, 10), (2, 20)")
        fn(r)
        return r.outcome()
    finally:
        r.close()


# ------------------------------------------------------------------------------------------
# Scenarios. Every one starts with {t} = (1, 10), (2, 20); s3 is an observer.
# ------------------------------------------------------------------------------------------

RR = "BEGIN ISOLATION LEVEL REPEATABLE READ"
SER = "BEGIN ISOLATION LEVEL SERIALIZABLE"
ALL = "SELECT * FROM {t} ORDER BY id"


@scenario
def g0_dirty_write(r):
    """G0: writes of an uncommitted transaction are not overwritten; the second writer waits."""
    r.sql("s1", "BEGIN")
    r.sql("s2", "BEGIN")
    r.sql("s1", "UPDATE {t} SET value = 11 WHERE id = 1")
    r.sql("s2", "UPDATE {t} SET value = 12 WHERE id = 1")
    r.sql("s1", "UPDATE {t} SET value = 21 WHERE id = 2")
    r.sql("s1", "COMMIT")
    r.sql("s3", ALL)
    r.sql("s2", "UPDATE {t} SET value = 22 WHERE id = 2")
    r.sql("s2", "COMMIT")
    r.sql("s3", ALL)


@scenario
def g1a_aborted_read(r):
    """G1a: a rolled-back write is never seen."""
    r.sql("s1", "BEGIN")
    r.sql("s2", "BEGIN")
    r.sql("s1", "UPDATE {t} SET value = 101 WHERE id = 1")
    r.sql("s2", ALL)
    r.sql("s1", "ROLLBACK")
    r.sql("s2", ALL)
    r.sql("s2", "COMMIT")


@scenario
def g1b_intermediate_read(r):
    """G1b: an intermediate (later overwritten) value is never seen; the final one after commit."""
    r.sql("s1", "BEGIN")
    r.sql("s2", "BEGIN")
    r.sql("s1", "UPDATE {t} SET value = 101 WHERE id = 1")
    r.sql("s2", ALL)
    r.sql("s1", "UPDATE {t} SET value = 11 WHERE id = 1")
    r.sql("s1", "COMMIT")
    r.sql("s2", ALL)
    r.sql("s2", "COMMIT")


@scenario
def g1c_circular_information_flow(r):
    """G1c: two transactions do not see each other's uncommitted writes."""
    r.sql("s1", "BEGIN")
    r.sql("s2", "BEGIN")
    r.sql("s1", "UPDATE {t} SET value = 11 WHERE id = 1")
    r.sql("s2", "UPDATE {t} SET value = 22 WHERE id = 2")
    r.sql("s1", "SELECT * FROM {t} WHERE id = 2")
    r.sql("s2", "SELECT * FROM {t} WHERE id = 1")
    r.sql("s1", "COMMIT")
    r.sql("s2", "COMMIT")
    r.sql("s3", ALL)


@scenario
def otv_observed_transaction_vanishes(r):
    """OTV: once a committed transaction's writes are observed they stay (READ COMMITTED)."""
    r.sql("s1", "BEGIN")
    r.sql("s2", "BEGIN")
    r.sql("s3", "BEGIN")
    r.sql("s1", "UPDATE {t} SET value = 11 WHERE id = 1")
    r.sql("s1", "UPDATE {t} SET value = 19 WHERE id = 2")
    r.sql("s2", "UPDATE {t} SET value = 12 WHERE id = 1")
    r.sql("s1", "COMMIT")
    r.sql("s3", "SELECT * FROM {t} WHERE id = 1")
    r.sql("s2", "UPDATE {t} SET value = 18 WHERE id = 2")
    r.sql("s3", "SELECT * FROM {t} WHERE id = 2")
    r.sql("s2", "COMMIT")
    r.sql("s3", "SELECT * FROM {t} WHERE id = 2")
    r.sql("s3", "SELECT * FROM {t} WHERE id = 1")
    r.sql("s3", "COMMIT")


@scenario
def lost_update_read_committed(r):
    """P4 under READ COMMITTED: the second increment waits, then applies to the new version."""
    r.sql("s1", "BEGIN")
    r.sql("s2", "BEGIN")
    r.sql("s1", "SELECT value FROM {t} WHERE id = 1")
    r.sql("s2", "SELECT value FROM {t} WHERE id = 1")
    r.sql("s1", "UPDATE {t} SET value = value + 1 WHERE id = 1 RETURNING value")
    r.sql("s2", "UPDATE {t} SET value = value + 1 WHERE id = 1 RETURNING value")
    r.sql("s1", "COMMIT")
    r.sql("s2", "SELECT value FROM {t} WHERE id = 1")
    r.sql("s2", "COMMIT")
    r.sql("s3", ALL)


@scenario
def lost_update_read_committed_blind_write(r):
    """P4 (hermitage) under READ COMMITTED: blind writes; the second wins after waiting."""
    r.sql("s1", "BEGIN")
    r.sql("s2", "BEGIN")
    r.sql("s1", "SELECT * FROM {t} WHERE id = 1")
    r.sql("s2", "SELECT * FROM {t} WHERE id = 1")
    r.sql("s1", "UPDATE {t} SET value = 11 WHERE id = 1")
    r.sql("s2", "UPDATE {t} SET value = 11 WHERE id = 1")
    r.sql("s1", "COMMIT")
    r.sql("s2", "COMMIT")
    r.sql("s3", ALL)


@scenario
def lost_update_repeatable_read(r):
    """P4 under REPEATABLE READ: the second updater waits, then fails with 40001."""
    r.sql("s1", RR)
    r.sql("s2", RR)
    r.sql("s1", "SELECT value FROM {t} WHERE id = 1")
    r.sql("s2", "SELECT value FROM {t} WHERE id = 1")
    r.sql("s1", "UPDATE {t} SET value = value + 1 WHERE id = 1")
    r.sql("s2", "UPDATE {t} SET value = value + 1 WHERE id = 1")
    r.sql("s1", "COMMIT")
    r.sql("s2", "SELECT value FROM {t} WHERE id = 1")
    r.sql("s2", "ROLLBACK")
    r.sql("s3", ALL)


@scenario
def repeatable_read_update_after_holder_rollback(r):
    """REPEATABLE READ: when the holder rolls back, the waiting updater goes on."""
    r.sql("s1", RR)
    r.sql("s2", RR)
    r.sql("s2", "SELECT value FROM {t} WHERE id = 1")
    r.sql("s1", "UPDATE {t} SET value = value + 1 WHERE id = 1")
    r.sql("s2", "UPDATE {t} SET value = value + 5 WHERE id = 1")
    r.sql("s1", "ROLLBACK")
    r.sql("s2", "COMMIT")
    r.sql("s3", ALL)


@scenario
def repeatable_read_update_of_committed_row(r):
    """REPEATABLE READ: updating a row changed and committed after the snapshot fails with 40001
    without waiting; a row deleted after the snapshot likewise (concurrent delete)."""
    r.sql("s1", RR)
    r.sql("s1", ALL)
    r.sql("s2", "UPDATE {t} SET value = 12 WHERE id = 1")
    r.sql("s2", "DELETE FROM {t} WHERE id = 2")
    r.sql("s1", ALL)
    r.sql("s1", "UPDATE {t} SET value = 13 WHERE id = 1")
    r.sql("s1", "ROLLBACK")
    r.sql("s1", RR)
    r.sql("s1", "SELECT count(*) FROM {t}")
    r.sql("s2", "INSERT INTO {t} VALUES (2, 22)")
    r.sql("s1", "SELECT count(*) FROM {t}")
    r.sql("s2", "DELETE FROM {t} WHERE id = 2")
    r.sql("s1", "DELETE FROM {t} WHERE id = 2")
    r.sql("s1", "ROLLBACK")
    r.sql("s3", ALL)


@scenario
def non_repeatable_read_committed(r):
    """READ COMMITTED: each statement sees what was committed before it began."""
    r.sql("s1", "BEGIN")
    r.sql("s1", "SELECT value FROM {t} WHERE id = 1")
    r.sql("s2", "UPDATE {t} SET value = 12 WHERE id = 1")
    r.sql("s1", "SELECT value FROM {t} WHERE id = 1")
    r.sql("s2", "BEGIN")
    r.sql("s2", "UPDATE {t} SET value = 13 WHERE id = 1")
    r.sql("s1", "SELECT value FROM {t} WHERE id = 1")
    r.sql("s2", "COMMIT")
    r.sql("s1", "SELECT value FROM {t} WHERE id = 1")
    r.sql("s1", "COMMIT")


@scenario
def non_repeatable_read_repeatable_read(r):
    """REPEATABLE READ: the transaction keeps the snapshot of its first statement."""
    r.sql("s1", RR)
    r.sql("s1", "SELECT value FROM {t} WHERE id = 1")
    r.sql("s2", "UPDATE {t} SET value = 12 WHERE id = 1")
    r.sql("s1", "SELECT value FROM {t} WHERE id = 1")
    r.sql("s1", "COMMIT")
    r.sql("s1", "SELECT value FROM {t} WHERE id = 1")


@scenario
def repeatable_read_snapshot_at_first_statement(r):
    """REPEATABLE READ: the snapshot is taken by the first statement, not by BEGIN."""
    r.sql("s1", RR)
    r.sql("s2", "UPDATE {t} SET value = 12 WHERE id = 1")
    r.sql("s1", ALL)
    r.sql("s2", "UPDATE {t} SET value = 13 WHERE id = 1")
    r.sql("s1", ALL)
    r.sql("s1", "COMMIT")


@scenario
def read_skew_read_committed(r):
    """G-single under READ COMMITTED: read skew is allowed."""
    r.sql("s1", "BEGIN")
    r.sql("s2", "BEGIN")
    r.sql("s1", "SELECT * FROM {t} WHERE id = 1")
    r.sql("s2", "SELECT * FROM {t} WHERE id = 1")
    r.sql("s2", "SELECT * FROM {t} WHERE id = 2")
    r.sql("s2", "UPDATE {t} SET value = 12 WHERE id = 1")
    r.sql("s2", "UPDATE {t} SET value = 18 WHERE id = 2")
    r.sql("s2", "COMMIT")
    r.sql("s1", "SELECT * FROM {t} WHERE id = 2")
    r.sql("s1", "SELECT sum(value) FROM {t}")
    r.sql("s1", "COMMIT")


@scenario
def read_skew_repeatable_read(r):
    """G-single under REPEATABLE READ: the transaction sees its snapshot; writing fails."""
    r.sql("s1", RR)
    r.sql("s2", RR)
    r.sql("s1", "SELECT * FROM {t} WHERE id = 1")
    r.sql("s2", "SELECT * FROM {t} WHERE id = 1")
    r.sql("s2", "SELECT * FROM {t} WHERE id = 2")
    r.sql("s2", "UPDATE {t} SET value = 12 WHERE id = 1")
    r.sql("s2", "UPDATE {t} SET value = 18 WHERE id = 2")
    r.sql("s2", "COMMIT")
    r.sql("s1", "SELECT * FROM {t} WHERE id = 2")
    r.sql("s1", "SELECT sum(value) FROM {t}")
    r.sql("s1", "UPDATE {t} SET value = 0 WHERE id = 2")
    r.sql("s1", "ROLLBACK")
    r.sql("s3", ALL)


@scenario
def phantom_read_committed(r):
    """READ COMMITTED: a row inserted and committed by another transaction appears."""
    r.sql("s1", "BEGIN")
    r.sql("s1", "SELECT * FROM {t} WHERE value % 3 = 0")
    r.sql("s2", "BEGIN")
    r.sql("s2", "INSERT INTO {t} VALUES (3, 30)")
    r.sql("s1", "SELECT * FROM {t} WHERE value % 3 = 0")
    r.sql("s2", "COMMIT")
    r.sql("s1", "SELECT * FROM {t} WHERE value % 3 = 0")
    r.sql("s1", "SELECT count(*) FROM {t}")
    r.sql("s1", "COMMIT")


@scenario
def phantom_repeatable_read(r):
    """PMP under REPEATABLE READ: no phantoms, not even by index lookup of the new key."""
    r.sql("s1", RR)
    r.sql("s2", RR)
    r.sql("s1", "SELECT * FROM {t} WHERE value = 30")
    r.sql("s2", "INSERT INTO {t} VALUES (3, 30)")
    r.sql("s2", "COMMIT")
    r.sql("s1", "SELECT * FROM {t} WHERE value % 3 = 0")
    r.sql("s1", "SELECT * FROM {t} WHERE id = 3")
    r.sql("s1", "SELECT count(*) FROM {t}")
    r.sql("s1", "COMMIT")
    r.sql("s1", "SELECT count(*) FROM {t}")


@scenario
def phantom_write_predicate_read_committed(r):
    """PMP-write under READ COMMITTED: the waiting DELETE re-checks its WHERE on the new version."""
    r.sql("s1", "BEGIN")
    r.sql("s2", "BEGIN")
    r.sql("s1", "UPDATE {t} SET value = value + 10")
    r.sql("s2", "SELECT * FROM {t} WHERE value = 20")
    r.sql("s2", "DELETE FROM {t} WHERE value = 20")
    r.sql("s1", "COMMIT")
    r.sql("s2", ALL)
    r.sql("s2", "COMMIT")


@scenario
def phantom_write_predicate_repeatable_read(r):
    """PMP-write under REPEATABLE READ: the waiting DELETE fails with 40001."""
    r.sql("s1", RR)
    r.sql("s2", RR)
    r.sql("s1", "UPDATE {t} SET value = value + 10")
    r.sql("s2", "SELECT * FROM {t} WHERE value = 20")
    r.sql("s2", "DELETE FROM {t} WHERE value = 20")
    r.sql("s1", "COMMIT")
    r.sql("s2", "ROLLBACK")
    r.sql("s3", ALL)


@scenario
def write_skew_repeatable_read(r):
    """G2-item under REPEATABLE READ: write skew is allowed, both commit."""
    r.sql("s1", RR)
    r.sql("s2", RR)
    r.sql("s1", "SELECT * FROM {t} WHERE id IN (1, 2) ORDER BY id")
    r.sql("s2", "SELECT * FROM {t} WHERE id IN (1, 2) ORDER BY id")
    r.sql("s1", "UPDATE {t} SET value = 11 WHERE id = 1")
    r.sql("s2", "UPDATE {t} SET value = 21 WHERE id = 2")
    r.sql("s1", "COMMIT")
    r.sql("s2", "COMMIT")
    r.sql("s3", ALL)


@scenario
def write_skew_serializable(r):
    """G2-item under SERIALIZABLE: PostgreSQL's SSI aborts the second committer (40001)."""
    r.sql("s1", SER)
    r.sql("s2", SER)
    r.sql("s1", "SELECT * FROM {t} WHERE id IN (1, 2) ORDER BY id")
    r.sql("s2", "SELECT * FROM {t} WHERE id IN (1, 2) ORDER BY id")
    r.sql("s1", "UPDATE {t} SET value = 11 WHERE id = 1")
    r.sql("s2", "UPDATE {t} SET value = 21 WHERE id = 2")
    r.sql("s1", "COMMIT")
    r.sql("s2", "COMMIT")
    r.sql("s3", ALL)


@scenario
def waiter_released_by_rollback(r):
    """A waiting updater goes on, over the old version, when the holder rolls back."""
    r.sql("s1", "BEGIN")
    r.sql("s1", "UPDATE {t} SET value = 11 WHERE id = 1")
    r.sql("s2", "UPDATE {t} SET value = value * 2 WHERE id = 1 RETURNING value")
    r.sql("s1", "ROLLBACK")
    r.sql("s3", ALL)


@scenario
def waiter_released_by_rollback_to_savepoint(r):
    """Row locks taken after a savepoint are released by ROLLBACK TO; earlier ones are kept."""
    r.sql("s1", "BEGIN")
    r.sql("s1", "UPDATE {t} SET value = 11 WHERE id = 1")
    r.sql("s1", "SAVEPOINT sp")
    r.sql("s1", "UPDATE {t} SET value = 21 WHERE id = 2")
    r.sql("s2", "UPDATE {t} SET value = value + 2 WHERE id = 2 RETURNING value")
    r.sql("s1", "ROLLBACK TO SAVEPOINT sp")
    r.sql("s3", "UPDATE {t} SET value = value + 3 WHERE id = 1")
    r.sql("s1", "COMMIT")
    r.sql("s3", ALL)


@scenario
def failed_transaction_releases_locks(r):
    """An error aborts the transaction at once: its row locks are released before ROLLBACK
    (inside a savepoint only the subtransaction's locks are)."""
    r.sql("s1", "BEGIN")
    r.sql("s1", "UPDATE {t} SET value = 11 WHERE id = 1")
    r.sql("s1", "SAVEPOINT sp")
    r.sql("s1", "UPDATE {t} SET value = 21 WHERE id = 2")
    r.sql("s1", "SELECT 1 / (value - 21) FROM {t} WHERE id = 2")
    r.sql("s2", "UPDATE {t} SET value = value + 2 WHERE id = 2")
    r.sql("s3", "UPDATE {t} SET value = value + 3 WHERE id = 1")
    r.sql("s1", "SELECT 1 / (value - 11) FROM {t} WHERE id = 1")
    r.sql("s1", "ROLLBACK TO SAVEPOINT sp")
    r.sql("s1", "RELEASE SAVEPOINT sp")
    r.sql("s1", "SELECT 1 / (value - 11) FROM {t} WHERE id = 1")
    r.sql("s2", ALL)
    r.sql("s1", "ROLLBACK")
    r.sql("s2", ALL)


@scenario
def chain_of_waiters(r):
    """Three updaters of one row: both later ones wait; which of them goes first when the
    holder commits is a race in PostgreSQL; all increments apply."""
    r.sql("s1", "BEGIN")
    r.sql("s2", "BEGIN")
    r.sql("s1", "UPDATE {t} SET value = value + 1 WHERE id = 1")
    r.sql("s2", "UPDATE {t} SET value = value + 10 WHERE id = 1", racy="finish")
    r.sql("s3", "UPDATE {t} SET value = value + 100 WHERE id = 1", racy="finish")
    r.sql("s1", "COMMIT")
    r.wait_for("s2")
    r.sql("s2", "COMMIT")
    r.settle()
    r.sql("s1", ALL)


@scenario
def deadlock(r):
    """Two transactions update two rows in opposite order: exactly one gets 40P01 (which one
    depends on timing) and the other goes on."""
    r.sql("s1", "BEGIN")
    r.sql("s2", "BEGIN")
    r.sql("s1", "UPDATE {t} SET value = 11 WHERE id = 1")
    r.sql("s2", "UPDATE {t} SET value = 22 WHERE id = 2")
    r.sql("s1", "UPDATE {t} SET value = 21 WHERE id = 2", racy=True)
    r.sql("s2", "UPDATE {t} SET value = 12 WHERE id = 1", racy=True)
    r.settle()
    r.sql("s1", "ROLLBACK")
    r.sql("s2", "ROLLBACK")
    r.sql("s3", ALL)


@scenario
def unique_insert_race_commit(r):
    """Two inserters of one key: the second waits, then 23505 when the first commits."""
    r.sql("s1", "BEGIN")
    r.sql("s1", "INSERT INTO {t} VALUES (3, 30)")
    r.sql("s2", "INSERT INTO {t} VALUES (3, 31)")
    r.sql("s1", "COMMIT")
    r.sql("s3", ALL)


@scenario
def unique_insert_race_rollback(r):
    """Two inserters of one key: the second waits, then succeeds when the first rolls back."""
    r.sql("s1", "BEGIN")
    r.sql("s1", "INSERT INTO {t} VALUES (3, 30)")
    r.sql("s2", "BEGIN")
    r.sql("s2", "INSERT INTO {t} VALUES (3, 31)")
    r.sql("s1", "ROLLBACK")
    r.sql("s2", "COMMIT")
    r.sql("s3", ALL)


@scenario
def unique_insert_vs_delete(r):
    """Inserting a key whose row is being deleted waits; it succeeds if the delete commits,
    23505 if it rolls back."""
    r.sql("s1", "BEGIN")
    r.sql("s1", "DELETE FROM {t} WHERE id = 1")
    r.sql("s2", "INSERT INTO {t} VALUES (1, 100)")
    r.sql("s1", "COMMIT")
    r.sql("s1", "BEGIN")
    r.sql("s1", "DELETE FROM {t} WHERE id = 2")
    r.sql("s2", "INSERT INTO {t} VALUES (2, 200)")
    r.sql("s1", "ROLLBACK")
    r.sql("s3", ALL)


@scenario
def unique_insert_vs_key_update(r):
    """Inserting the old or the new key of a row whose key is being updated waits for it."""
    r.sql("s1", "BEGIN")
    r.sql("s1", "UPDATE {t} SET id = 3 WHERE id = 1")
    r.sql("s2", "INSERT INTO {t} VALUES (3, 33)")
    r.sql("s1", "COMMIT")
    r.sql("s1", "BEGIN")
    r.sql("s1", "UPDATE {t} SET id = 4 WHERE id = 2")
    r.sql("s2", "INSERT INTO {t} VALUES (2, 22)")
    r.sql("s1", "COMMIT")
    r.sql("s3", ALL)


@scenario
def unique_insert_uncommitted_invisible(r):
    """An uncommitted insert is invisible to readers, who do not wait for it."""
    r.sql("s1", "BEGIN")
    r.sql("s1", "INSERT INTO {t} VALUES (3, 30)")
    r.sql("s2", "SELECT * FROM {t} WHERE id = 3")
    r.sql("s2", "SELECT count(*) FROM {t}")
    r.sql("s1", "SELECT count(*) FROM {t}")
    r.sql("s1", "COMMIT")
    r.sql("s2", "SELECT * FROM {t} WHERE id = 3")


@scenario
def delete_vs_update_read_committed(r):
    """READ COMMITTED: the updater waits for the deleter, then updates nothing (UPDATE 0)."""
    r.sql("s1", "BEGIN")
    r.sql("s1", "DELETE FROM {t} WHERE id = 1")
    r.sql("s2", "UPDATE {t} SET value = value + 1 WHERE id = 1")
    r.sql("s1", "COMMIT")
    r.sql("s3", ALL)


@scenario
def update_vs_delete_read_committed(r):
    """READ COMMITTED: the deleter waits for the updater, then deletes the new version."""
    r.sql("s1", "BEGIN")
    r.sql("s1", "UPDATE {t} SET value = 11 WHERE id = 1")
    r.sql("s2", "DELETE FROM {t} WHERE id = 1 RETURNING *")
    r.sql("s1", "COMMIT")
    r.sql("s3", ALL)


@scenario
def delete_vs_delete_read_committed(r):
    """READ COMMITTED: the second deleter waits, then deletes nothing."""
    r.sql("s1", "BEGIN")
    r.sql("s1", "DELETE FROM {t} WHERE id = 1")
    r.sql("s2", "DELETE FROM {t} WHERE id = 1")
    r.sql("s1", "COMMIT")
    r.sql("s3", ALL)


@scenario
def update_recheck_where_read_committed(r):
    """READ COMMITTED: a waiting UPDATE re-evaluates its WHERE on the new version: the row
    that no longer matches is skipped, the one that still matches is updated."""
    r.sql("s1", "BEGIN")
    r.sql("s1", "UPDATE {t} SET value = value + 100 WHERE id = 1")
    r.sql("s2", "UPDATE {t} SET value = -1 WHERE value < 50 RETURNING id")
    r.sql("s1", "COMMIT")
    r.sql("s3", ALL)


@scenario
def update_recheck_key_changed_read_committed(r):
    """READ COMMITTED: a waiting UPDATE by key finds the key changed: UPDATE 0."""
    r.sql("s1", "BEGIN")
    r.sql("s1", "UPDATE {t} SET id = 5 WHERE id = 1")
    r.sql("s2", "UPDATE {t} SET value = 0 WHERE id = 1")
    r.sql("s1", "COMMIT")
    r.sql("s3", ALL)


@scenario
def update_different_rows_no_wait(r):
    """Writers of different rows do not wait for each other; readers never wait for writers."""
    r.sql("s1", "BEGIN")
    r.sql("s2", "BEGIN")
    r.sql("s1", "UPDATE {t} SET value = 11 WHERE id = 1")
    r.sql("s2", "UPDATE {t} SET value = 22 WHERE id = 2")
    r.sql("s3", ALL)
    r.sql("s2", "INSERT INTO {t} VALUES (3, 33)")
    r.sql("s1", "DELETE FROM {t} WHERE id = 1")
    r.sql("s3", ALL)
    r.sql("s1", "COMMIT")
    r.sql("s2", "COMMIT")
    r.sql("s3", ALL)


@scenario
def select_for_update_blocks_writer(r):
    """SELECT FOR UPDATE locks the row: an UPDATE of it waits until the locker commits."""
    r.sql("s1", "BEGIN")
    r.sql("s1", "SELECT * FROM {t} WHERE id = 1 FOR UPDATE")
    r.sql("s3", "UPDATE {t} SET value = value + 1 WHERE id = 2")
    r.sql("s2", "UPDATE {t} SET value = value + 1 WHERE id = 1")
    r.sql("s1", "COMMIT")
    r.sql("s3", ALL)


@scenario
def select_for_update_nowait(r):
    """FOR UPDATE NOWAIT on a locked row fails at once with 55P03."""
    r.sql("s1", "BEGIN")
    r.sql("s1", "UPDATE {t} SET value = 11 WHERE id = 1")
    r.sql("s2", "BEGIN")
    r.sql("s2", "SELECT * FROM {t} WHERE id = 1 FOR UPDATE NOWAIT")
    r.sql("s2", "ROLLBACK")
    r.sql("s2", "SELECT * FROM {t} WHERE id = 2 FOR UPDATE NOWAIT")
    r.sql("s1", "COMMIT")


@scenario
def select_for_update_skip_locked(r):
    """FOR UPDATE SKIP LOCKED returns only the rows not locked by others (a job queue)."""
    r.sql("s1", "BEGIN")
    r.sql("s1", "SELECT * FROM {t} ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED")
    r.sql("s2", "BEGIN")
    r.sql("s2", "SELECT * FROM {t} ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED")
    r.sql("s3", "SELECT * FROM {t} ORDER BY id FOR UPDATE SKIP LOCKED")
    r.sql("s1", "COMMIT")
    r.sql("s2", "COMMIT")


@scenario
def select_for_update_waits_and_sees_new_version(r):
    """READ COMMITTED: SELECT FOR UPDATE waits for a writer, then returns the new version
    (or nothing when the WHERE no longer matches)."""
    r.sql("s1", "BEGIN")
    r.sql("s1", "UPDATE {t} SET value = value + 100")
    r.sql("s2", "BEGIN")
    r.sql("s2", "SELECT * FROM {t} WHERE value < 50 ORDER BY id FOR UPDATE")
    r.sql("s1", "COMMIT")
    r.sql("s2", "COMMIT")


@scenario
def select_for_update_repeatable_read_conflict(r):
    """REPEATABLE READ: SELECT FOR UPDATE of a row updated after the snapshot: 40001."""
    r.sql("s1", RR)
    r.sql("s1", "SELECT * FROM {t} WHERE id = 1")
    r.sql("s2", "UPDATE {t} SET value = 12 WHERE id = 1")
    r.sql("s1", "SELECT * FROM {t} WHERE id = 1 FOR UPDATE")
    r.sql("s1", "ROLLBACK")


@scenario
def select_for_share(r):
    """FOR SHARE: two sharers do not wait for each other; a writer waits for both."""
    r.sql("s1", "BEGIN")
    r.sql("s2", "BEGIN")
    r.sql("s1", "SELECT * FROM {t} WHERE id = 1 FOR SHARE")
    r.sql("s2", "SELECT * FROM {t} WHERE id = 1 FOR SHARE")
    r.sql("s3", "UPDATE {t} SET value = 0 WHERE id = 1")
    r.sql("s1", "COMMIT")
    r.sql("s2", "COMMIT")
    r.sql("s1", ALL)


@scenario
def drop_table_waits_for_reader(r):
    """DROP TABLE waits for a transaction that has read the table; the reader keeps reading."""
    r.sql("s1", "BEGIN")
    r.sql("s1", "SELECT count(*) FROM {t}")
    r.sql("s2", "DROP TABLE {t}")
    r.sql("s1", "SELECT count(*) FROM {t}")
    r.sql("s1", "COMMIT")
    r.sql("s3", "SELECT count(*) FROM {t}")


# -- relation locks (txn/lock.rs) ----------------------------------------------------------


@scenario
def truncate_waits_for_writer_and_keeps_its_row(r):
    """TRUNCATE waits for a transaction that inserted; the row committed before it is gone after
    the TRUNCATE commits, and nothing inserted later is lost."""
    r.sql("s1", "BEGIN")
    r.sql("s1", "INSERT INTO {t} VALUES (3, 30)")
    r.sql("s2", "TRUNCATE {t}")
    r.sql("s1", "COMMIT")
    r.sql("s3", ALL)


@scenario
def insert_waits_for_uncommitted_truncate(r):
    """An INSERT waits for a TRUNCATE in progress, then goes into the truncated table."""
    r.sql("s1", "BEGIN")
    r.sql("s1", "TRUNCATE {t}")
    r.sql("s2", "INSERT INTO {t} VALUES (5, 50)")
    r.sql("s1", "COMMIT")
    r.wait_for("s2")
    r.sql("s3", ALL)


@scenario
def update_waits_for_uncommitted_truncate_rolled_back(r):
    r.sql("s1", "BEGIN")
    r.sql("s1", "TRUNCATE {t}")
    r.sql("s2", "UPDATE {t} SET value = value + 1 WHERE id = 1")
    r.sql("s1", "ROLLBACK")
    r.wait_for("s2")
    r.sql("s3", ALL)


@scenario
def lock_table_nowait_and_modes(r):
    """LOCK TABLE: SHARE lets readers and other SHARE lockers in, keeps writers out; NOWAIT
    fails at once with 55P03; outside a block it is an error."""
    r.sql("s1", "LOCK TABLE {t}")
    r.sql("s1", "BEGIN")
    r.sql("s1", "LOCK TABLE {t} IN SHARE MODE")
    r.sql("s2", "BEGIN")
    r.sql("s2", "LOCK TABLE {t} IN SHARE MODE")
    r.sql("s2", "SELECT count(*) FROM {t}")
    r.sql("s2", "LOCK TABLE {t} IN ROW EXCLUSIVE MODE NOWAIT")
    r.sql("s2", "ROLLBACK")
    r.sql("s3", "INSERT INTO {t} VALUES (9, 90)")
    r.sql("s1", "COMMIT")
    r.wait_for("s3")
    r.sql("s2", "BEGIN")
    r.sql("s2", "LOCK TABLE {t} IN ACCESS EXCLUSIVE MODE")
    r.sql("s1", "LOCK TABLE {t} IN ACCESS SHARE MODE NOWAIT")
    r.sql("s1", "ROLLBACK")
    r.sql("s2", "COMMIT")
    r.sql("s3", ALL)


@scenario
def create_index_waits_for_writer_not_reader(r):
    r.sql("s1", "BEGIN")
    r.sql("s1", "SELECT count(*) FROM {t}")
    r.sql("s2", "CREATE INDEX ON {t} (value)")
    r.sql("s1", "INSERT INTO {t} VALUES (4, 40)")
    r.sql("s1", "COMMIT")
    r.sql("s3", "SELECT * FROM {t} WHERE value = 40")


@scenario
def readers_queue_behind_waiting_drop(r):
    """A waiting DROP TABLE keeps later readers out until it is done (PostgreSQL's lock queue);
    the reader then finds no table."""
    r.sql("s1", "BEGIN")
    r.sql("s1", "SELECT count(*) FROM {t}")
    r.sql("s2", "DROP TABLE {t}")
    r.sql("s3", "SELECT count(*) FROM {t}")
    r.sql("s1", "COMMIT")
    r.wait_for("s2")
    r.wait_for("s3")


# ------------------------------------------------------------------------------------------

_reference: dict[str, list[str]] = {}


def compare_with_pg(pg, server, name, run, reference: dict[str, list[str]]):
    """Runs scenario `name` with `run` on PostgreSQL 15 (once per test session, kept in
    `reference`) and on `server`, and asserts the same outcome."""
    if name in reference:
        ref = reference[name]
    else:
        ref = reference[name] = run(pg, name)
    bad = [l for l in ref if "never finished" in l or "(not sent:" in l]
    if bad:
        pytest.fail("scenario problem: on PostgreSQL 15 a step never finished:\n" + "\n".join(ref), pytrace=False)
    got = run(server, name)
    assert_same("\n".join(ref), "\n".join(got), server.name, f"isolation scenario {name}")


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_isolation(pg, server, name):
    compare_with_pg(pg, server, name, run_scenario, _reference)


# ------------------------------------------------------------------------------------------
# INSERT ... ON CONFLICT under concurrency (issue 19, upsert). Registered in SCENARIOS like the
# others, but run by their own test below: test_isolation's parameter list was fixed above.
# ------------------------------------------------------------------------------------------

UPSERT = "INSERT INTO {t} VALUES ({k}, {v}) ON CONFLICT (id) DO UPDATE SET value = {t}.value + excluded.value RETURNING *"
_UPSERT_SCENARIOS: list[str] = []


def upsert_scenario(fn):
    _UPSERT_SCENARIOS.append(fn.__name__)
    return scenario(fn)


@upsert_scenario
def upsert_waits_for_inserter_then_updates(r):
    """A concurrent inserter of the key: the upsert waits for it, then updates its row."""
    r.sql("s1", "BEGIN")
    r.sql("s1", "INSERT INTO {t} VALUES (3, 30)")
    r.sql("s2", UPSERT.format(t="{t}", k=3, v=1))
    r.sql("s1", "COMMIT")
    r.sql("s3", ALL)


@upsert_scenario
def upsert_waits_for_inserter_then_inserts(r):
    """A concurrent inserter of the key that rolls back: the upsert inserts its own row."""
    r.sql("s1", "BEGIN")
    r.sql("s1", "INSERT INTO {t} VALUES (3, 30)")
    r.sql("s2", UPSERT.format(t="{t}", k=3, v=1))
    r.sql("s1", "ROLLBACK")
    r.sql("s3", ALL)


@upsert_scenario
def upsert_do_nothing_waits_for_inserter(r):
    """DO NOTHING waits for a concurrent inserter of the key: skips after its commit, inserts
    after its rollback."""
    r.sql("s1", "BEGIN")
    r.sql("s1", "INSERT INTO {t} VALUES (3, 30)")
    r.sql("s2", "INSERT INTO {t} VALUES (3, 31), (4, 41) ON CONFLICT DO NOTHING RETURNING *")
    r.sql("s1", "COMMIT")
    r.sql("s1", "BEGIN")
    r.sql("s1", "INSERT INTO {t} VALUES (5, 50)")
    r.sql("s2", "INSERT INTO {t} VALUES (5, 51) ON CONFLICT (id) DO NOTHING RETURNING *")
    r.sql("s1", "ROLLBACK")
    r.sql("s3", ALL)


@upsert_scenario
def upsert_waits_for_row_lock(r):
    """DO UPDATE locks the existing row as UPDATE does: it waits for a concurrent updater and
    then updates the newest version (READ COMMITTED); a row deleted meanwhile is inserted."""
    r.sql("s1", "BEGIN")
    r.sql("s1", "UPDATE {t} SET value = 11 WHERE id = 1")
    r.sql("s1", "DELETE FROM {t} WHERE id = 2")
    r.sql("s2", "BEGIN")
    r.sql("s2", UPSERT.format(t="{t}", k=1, v=100))
    r.sql("s1", "COMMIT")
    r.sql("s2", UPSERT.format(t="{t}", k=2, v=200))
    r.sql("s3", "UPDATE {t} SET value = 0 WHERE id = 1")
    r.sql("s2", "COMMIT")
    r.sql("s3", ALL)


@upsert_scenario
def upsert_do_nothing_waits_for_deleter(r):
    """DO NOTHING with a concurrent deleter of the conflicting row: waits, then inserts."""
    r.sql("s1", "BEGIN")
    r.sql("s1", "DELETE FROM {t} WHERE id = 1")
    r.sql("s2", "INSERT INTO {t} VALUES (1, 100) ON CONFLICT DO NOTHING RETURNING *")
    r.sql("s1", "COMMIT")
    r.sql("s3", ALL)


@upsert_scenario
def upsert_repeatable_read_invisible_conflict(r):
    """REPEATABLE READ: a conflicting row committed after the snapshot is a serialization
    failure, for DO NOTHING and DO UPDATE alike; a row of the snapshot is updated."""
    r.sql("s1", RR)
    r.sql("s1", ALL)
    r.sql("s2", "INSERT INTO {t} VALUES (3, 30)")
    r.sql("s1", "INSERT INTO {t} VALUES (3, 31) ON CONFLICT DO NOTHING")
    r.sql("s1", "ROLLBACK")
    r.sql("s1", RR)
    r.sql("s1", ALL)
    r.sql("s2", "INSERT INTO {t} VALUES (4, 40)")
    r.sql("s1", UPSERT.format(t="{t}", k=4, v=1))
    r.sql("s1", "ROLLBACK")
    r.sql("s1", RR)
    r.sql("s1", UPSERT.format(t="{t}", k=1, v=1))
    r.sql("s1", "INSERT INTO {t} VALUES (1, 0) ON CONFLICT DO NOTHING")
    r.sql("s1", "COMMIT")
    r.sql("s3", ALL)


@upsert_scenario
def upsert_repeatable_read_waits_then_fails(r):
    """REPEATABLE READ: the upsert waits for a concurrent inserter; after its commit, 40001;
    and for a concurrent updater of the existing row likewise."""
    r.sql("s1", "BEGIN")
    r.sql("s1", "INSERT INTO {t} VALUES (3, 30)")
    r.sql("s2", RR)
    r.sql("s2", ALL)
    r.sql("s2", UPSERT.format(t="{t}", k=3, v=1))
    r.sql("s1", "COMMIT")
    r.sql("s2", "ROLLBACK")
    r.sql("s1", "BEGIN")
    r.sql("s1", "UPDATE {t} SET value = 11 WHERE id = 1")
    r.sql("s2", RR)
    r.sql("s2", ALL)
    r.sql("s2", UPSERT.format(t="{t}", k=1, v=1))
    r.sql("s1", "COMMIT")
    r.sql("s2", "ROLLBACK")
    r.sql("s3", ALL)


@pytest.mark.parametrize("name", _UPSERT_SCENARIOS)
def test_isolation_upsert(pg, server, name):
    test_isolation(pg, server, name)


# ==========================================================================================
# Shared row locks and foreign keys (branch fk). Registered in SCENARIOS after
# test_isolation's parameter list was made, so they run under test_isolation_locks_fk below.
# A scenario with a child table creates it itself and drops it at its end (the runner drops
# only the parent).
# ==========================================================================================

_FK_NAMES: list[str] = []
FK_CHILD = "id int PRIMARY KEY, p int REFERENCES {t}"


def fk_scenario(fn):
    _FK_NAMES.append(fn.__name__)
    return scenario(fn)


def _child(r, columns: str) -> None:
    r.admin.execute(f"DROP TABLE IF EXISTS {r.t}_c")
    r.admin.execute(f"CREATE TABLE {r.t}_c ({columns.format(t=r.t)})")


def _drop_child(r) -> None:
    r.settle()
    r.admin.execute(f"DROP TABLE IF EXISTS {r.t}_c")


@fk_scenario
def share_locks_coexist(r):
    """FOR SHARE and FOR KEY SHARE holders do not wait for each other; NOWAIT of a stronger
    lock fails with 55P03."""
    r.sql("s1", "BEGIN")
    r.sql("s2", "BEGIN")
    r.sql("s1", "SELECT * FROM {t} WHERE id = 1 FOR SHARE")
    r.sql("s2", "SELECT * FROM {t} WHERE id = 1 FOR SHARE")
    r.sql("s3", "SELECT * FROM {t} WHERE id = 1 FOR KEY SHARE")
    r.sql("s3", "SELECT * FROM {t} WHERE id = 1 FOR UPDATE NOWAIT")
    r.sql("s3", "SELECT * FROM {t} WHERE id = 1 FOR NO KEY UPDATE NOWAIT")
    r.sql("s3", "SELECT * FROM {t} WHERE id = 1 FOR SHARE NOWAIT")
    r.sql("s1", "COMMIT")
    r.sql("s2", "COMMIT")
    r.sql("s3", "SELECT * FROM {t} WHERE id = 1 FOR UPDATE NOWAIT")


@fk_scenario
def key_share_vs_non_key_update(r):
    """FOR KEY SHARE lets an update of a non-key column through, but not a key update or a
    delete, also of the version that update wrote."""
    r.sql("s1", "BEGIN")
    r.sql("s1", "SELECT * FROM {t} WHERE id = 1 FOR KEY SHARE")
    r.sql("s2", "UPDATE {t} SET value = 11 WHERE id = 1")
    r.sql("s2", "UPDATE {t} SET id = 3 WHERE id = 1")
    r.sql("s1", "COMMIT")
    r.sql("s3", ALL)


@fk_scenario
def key_share_vs_delete(r):
    r.sql("s1", "BEGIN")
    r.sql("s1", "SELECT * FROM {t} WHERE id = 2 FOR KEY SHARE")
    r.sql("s2", "DELETE FROM {t} WHERE id = 2")
    r.sql("s1", "ROLLBACK")
    r.sql("s3", ALL)


@fk_scenario
def share_vs_update_waits(r):
    r.sql("s1", "BEGIN")
    r.sql("s1", "SELECT * FROM {t} WHERE id = 1 FOR SHARE")
    r.sql("s2", "UPDATE {t} SET value = 0 WHERE id = 1")
    r.sql("s1", "COMMIT")
    r.sql("s3", ALL)


@fk_scenario
def no_key_update_vs_key_share(r):
    """FOR NO KEY UPDATE admits FOR KEY SHARE but not FOR SHARE."""
    r.sql("s1", "BEGIN")
    r.sql("s1", "SELECT * FROM {t} WHERE id = 1 FOR NO KEY UPDATE")
    r.sql("s2", "BEGIN")
    r.sql("s2", "SELECT * FROM {t} WHERE id = 1 FOR KEY SHARE")
    r.sql("s3", "SELECT * FROM {t} WHERE id = 1 FOR SHARE NOWAIT")
    r.sql("s3", "SELECT * FROM {t} WHERE id = 1 FOR SHARE")
    r.sql("s1", "COMMIT")
    r.sql("s2", "COMMIT")


@fk_scenario
def share_lock_upgrade_waits_for_other_sharer(r):
    """A FOR SHARE holder that asks for FOR UPDATE waits for the other sharer."""
    r.sql("s1", "BEGIN")
    r.sql("s2", "BEGIN")
    r.sql("s1", "SELECT * FROM {t} WHERE id = 1 FOR SHARE")
    r.sql("s2", "SELECT * FROM {t} WHERE id = 1 FOR SHARE")
    r.sql("s1", "SELECT * FROM {t} WHERE id = 1 FOR UPDATE")
    r.sql("s2", "COMMIT")
    r.sql("s1", "COMMIT")


@fk_scenario
def share_lock_upgrade_deadlock(r):
    """Two FOR SHARE holders that both ask for FOR UPDATE deadlock: one gets 40P01 (which
    one depends on timing), the other goes on."""
    r.sql("s1", "BEGIN")
    r.sql("s2", "BEGIN")
    r.sql("s1", "SELECT * FROM {t} WHERE id = 1 FOR SHARE")
    r.sql("s2", "SELECT * FROM {t} WHERE id = 1 FOR SHARE")
    r.sql("s1", "SELECT * FROM {t} WHERE id = 1 FOR UPDATE", racy=True)
    r.sql("s2", "SELECT * FROM {t} WHERE id = 1 FOR UPDATE", racy=True)
    r.settle()
    r.sql("s1", "ROLLBACK")
    r.sql("s2", "ROLLBACK")


@fk_scenario
def fk_deadlock_through_key_share(r):
    """Each transaction inserts a row referencing the parent the other then deletes: the
    deletes wait for the other's KEY SHARE lock, and one gets 40P01."""
    _child(r, FK_CHILD)
    r.sql("s1", "BEGIN")
    r.sql("s2", "BEGIN")
    r.sql("s1", "INSERT INTO {t}_c VALUES (1, 1)")
    r.sql("s2", "INSERT INTO {t}_c VALUES (2, 2)")
    r.sql("s1", "DELETE FROM {t} WHERE id = 2", racy=True)
    r.sql("s2", "DELETE FROM {t} WHERE id = 1", racy=True)
    r.settle()
    r.sql("s1", "ROLLBACK")
    r.sql("s2", "ROLLBACK")
    _drop_child(r)



@fk_scenario
def fk_insert_child_vs_delete_parent(r):
    """The referencing insert locks the parent FOR KEY SHARE: the delete waits, then fails."""
    _child(r, FK_CHILD)
    r.sql("s1", "BEGIN")
    r.sql("s1", "INSERT INTO {t}_c VALUES (1, 1)")
    r.sql("s2", "DELETE FROM {t} WHERE id = 1")
    r.sql("s1", "COMMIT")
    r.sql("s3", ALL)
    _drop_child(r)


@fk_scenario
def fk_delete_parent_vs_insert_child(r):
    """A referencing insert waits for the delete of its parent, then fails."""
    _child(r, FK_CHILD)
    r.sql("s1", "BEGIN")
    r.sql("s1", "DELETE FROM {t} WHERE id = 2")
    r.sql("s2", "INSERT INTO {t}_c VALUES (1, 2)")
    r.sql("s1", "COMMIT")
    r.sql("s3", "SELECT * FROM {t}_c ORDER BY id")
    _drop_child(r)


@fk_scenario
def fk_delete_parent_rolled_back(r):
    _child(r, FK_CHILD)
    r.sql("s1", "BEGIN")
    r.sql("s1", "DELETE FROM {t} WHERE id = 2")
    r.sql("s2", "INSERT INTO {t}_c VALUES (1, 2)")
    r.sql("s1", "ROLLBACK")
    r.sql("s3", "SELECT * FROM {t}_c ORDER BY id")
    _drop_child(r)


@fk_scenario
def fk_children_share_the_parent_and_allow_non_key_updates(r):
    """Two referencing inserts of one parent do not wait for each other, nor does an update
    of the parent's non-key column; a key update does."""
    _child(r, FK_CHILD)
    r.sql("s1", "BEGIN")
    r.sql("s2", "BEGIN")
    r.sql("s1", "INSERT INTO {t}_c VALUES (1, 1)")
    r.sql("s2", "INSERT INTO {t}_c VALUES (2, 1)")
    r.sql("s3", "UPDATE {t} SET value = 11 WHERE id = 1")
    r.sql("s3", "UPDATE {t} SET id = 5 WHERE id = 1")
    r.sql("s1", "COMMIT")
    r.sql("s2", "COMMIT")
    r.sql("s1", ALL)
    _drop_child(r)


@fk_scenario
def fk_cascade_waits_for_child_insert(r):
    """ON DELETE CASCADE deletes a referencing row committed while the delete waited."""
    _child(r, "id int PRIMARY KEY, p int REFERENCES {t} ON DELETE CASCADE")
    r.sql("s1", "BEGIN")
    r.sql("s1", "INSERT INTO {t}_c VALUES (1, 1)")
    r.sql("s2", "DELETE FROM {t} WHERE id = 1")
    r.sql("s1", "COMMIT")
    r.sql("s3", "SELECT * FROM {t}_c ORDER BY id")
    _drop_child(r)


@fk_scenario
def fk_repeatable_read_parent_deleted(r):
    _child(r, FK_CHILD)
    r.sql("s1", "BEGIN ISOLATION LEVEL REPEATABLE READ")
    r.sql("s1", "SELECT count(*) FROM {t}")
    r.sql("s2", "DELETE FROM {t} WHERE id = 2")
    r.sql("s1", "INSERT INTO {t}_c VALUES (1, 2)")
    r.sql("s1", "ROLLBACK")
    _drop_child(r)


FK_DEFERRED = "id int PRIMARY KEY, p int REFERENCES {t} DEFERRABLE INITIALLY DEFERRED"


@fk_scenario
def fk_deferred_check_waits_at_commit(r):
    """A deferred check locks the referenced row at COMMIT: it waits for a delete in progress
    and fails once it commits; the delete's own deferred NO ACTION check saw no referencing
    row (the insert had not committed)."""
    _child(r, FK_DEFERRED)
    r.sql("s1", "BEGIN")
    r.sql("s1", "INSERT INTO {t}_c VALUES (1, 1)")
    r.sql("s2", "BEGIN")
    r.sql("s2", "DELETE FROM {t} WHERE id = 1")
    r.sql("s1", "COMMIT")
    r.sql("s2", "COMMIT")
    r.sql("s3", "SELECT * FROM {t}_c ORDER BY id")
    _drop_child(r)


@fk_scenario
def fk_deferred_sees_a_later_commit(r):
    """In READ COMMITTED a deferred check at COMMIT sees a referenced row committed after the
    referencing row was written."""
    _child(r, FK_DEFERRED)
    r.sql("s1", "BEGIN")
    r.sql("s1", "INSERT INTO {t}_c VALUES (1, 9)")
    r.sql("s2", "INSERT INTO {t} (id, value) VALUES (9, 90)")
    r.sql("s1", "COMMIT")
    r.sql("s3", "SELECT * FROM {t}_c ORDER BY id")
    r.sql("s3", "DELETE FROM {t}_c")
    r.sql("s3", "DELETE FROM {t} WHERE id = 9")
    _drop_child(r)


@pytest.mark.parametrize("name", _FK_NAMES)
def test_isolation_locks_fk(pg, server, name):
    test_isolation(pg, server, name)


# DEFERRABLE unique keys (issue 31): a writer of a key another transaction holds uncommitted
# does not wait at the insert; the recheck at the end of its statement (or at its commit, when
# the constraint is deferred) waits for that transaction, then fails if it committed.
DU_CHILD = "i int UNIQUE DEFERRABLE, t text"
_DU_NAMES: list[str] = []


def du_scenario(fn):
    _DU_NAMES.append(fn.__name__)
    return scenario(fn)


@du_scenario
def deferrable_unique_recheck_waits_for_a_commit(r):
    _child(r, DU_CHILD)
    r.sql("s1", "BEGIN")
    r.sql("s1", "INSERT INTO {t}_c VALUES (1, 'a')")
    r.sql("s2", "INSERT INTO {t}_c VALUES (1, 'b')")
    r.sql("s1", "COMMIT")
    r.sql("s3", "SELECT * FROM {t}_c ORDER BY t")
    _drop_child(r)


@du_scenario
def deferrable_unique_recheck_waits_for_a_rollback(r):
    _child(r, DU_CHILD)
    r.sql("s1", "BEGIN")
    r.sql("s1", "INSERT INTO {t}_c VALUES (1, 'a')")
    r.sql("s2", "INSERT INTO {t}_c VALUES (1, 'b'), (2, 'c')")
    r.sql("s1", "ROLLBACK")
    r.sql("s3", "SELECT * FROM {t}_c ORDER BY t")
    _drop_child(r)


@du_scenario
def deferrable_unique_deferred_recheck_waits_at_commit(r):
    _child(r, DU_CHILD)
    r.sql("s1", "BEGIN")
    r.sql("s2", "BEGIN")
    r.sql("s2", "SET CONSTRAINTS ALL DEFERRED")
    r.sql("s1", "INSERT INTO {t}_c VALUES (1, 'a')")
    r.sql("s2", "INSERT INTO {t}_c VALUES (1, 'b')")
    r.sql("s2", "COMMIT")
    r.sql("s1", "COMMIT")
    r.sql("s3", "SELECT * FROM {t}_c ORDER BY t")
    _drop_child(r)


@pytest.mark.parametrize("name", _DU_NAMES)
def test_isolation_deferrable_unique(pg, server, name):
    test_isolation(pg, server, name)
