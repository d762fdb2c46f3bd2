"""SERIALIZABLE (serializable snapshot isolation) scenarios, differential against PostgreSQL 15.

Scenarios from PostgreSQL's isolation suite for SSI (src/test/isolation/specs: the specs'
tables and steps, with permutations whose outcome on PostgreSQL is deterministic, including
ones where everything commits), run with the runner of test_isolation_diff.py: each is run on
PostgreSQL 15 and on threadgres, and the observable outcomes (tags, rows, SQLSTATEs and
messages, blocking) must be the same.

Each scenario makes its own tables: `{t}` (which the runner drops) and `{t}_<name>` ones that
it drops itself at its end.
"""

from __future__ import annotations

import pytest

from test_isolation_diff import Runner, compare_with_pg

SSI: dict = {}
SER = "BEGIN ISOLATION LEVEL SERIALIZABLE"
SER_RO = "BEGIN ISOLATION LEVEL SERIALIZABLE READ ONLY"
SER_RO_DEF = "BEGIN ISOLATION LEVEL SERIALIZABLE, READ ONLY, DEFERRABLE"


def ssi(fn):
    SSI[fn.__name__] = fn
    return fn


def _tables(r, *stmts: str, extra: tuple[str, ...] = ()) -> None:
    """Drops and makes the scenario's tables (`{t}` and `{t}_<x>` for each x of `extra`)."""
    for x in extra:
        r.admin.execute(f"DROP TABLE IF EXISTS {r.t}_{x} CASCADE")
    r.setup(*stmts)
    r.extra = extra


def _run(server, name: str) -> list[str]:
    fn = SSI[name]
    r = Runner(server, "ssi_" + name, getattr(fn, "sessions", 3))
    r.extra = ()
    try:
        fn(r)
        return r.outcome()
    finally:
        for x in r.extra:
            try:
                r.admin.execute(f"DROP TABLE IF EXISTS {r.t}_{x} CASCADE")
            except Exception:
                pass
        r.close()


def _steps(r, steps, table: dict[str, tuple[str, str]]) -> None:
    for s in steps.split():
        session, sql = table[s]
        r.sql(session, sql)


# -- simple-write-skew.spec ------------------------------------------------------------------

SWS = {
    "b1": ("s1", SER),
    "b2": ("s2", SER),
    "rwx1": ("s1", "UPDATE {t} SET t = 'apple' WHERE t = 'pear'"),
    "c1": ("s1", "COMMIT"),
    "rwx2": ("s2", "UPDATE {t} SET t = 'pear' WHERE t = 'apple'"),
    "c2": ("s2", "COMMIT"),
    "all": ("s3", "SELECT * FROM {t} ORDER BY i"),
}


def _sws(r, perm: str) -> None:
    _tables(r, "CREATE TABLE {t} (i int PRIMARY KEY, t text)",
            "INSERT INTO {t} VALUES (5, 'apple'), (7, 'pear'), (11, 'banana')")
    _steps(r, "b1 b2 " + perm + " all", SWS)


@ssi
def simple_write_skew_serial(r):
    _sws(r, "rwx1 c1 rwx2 c2")


@ssi
def simple_write_skew_interleaved(r):
    _sws(r, "rwx1 rwx2 c1 c2")


@ssi
def simple_write_skew_second_commits_first(r):
    _sws(r, "rwx1 rwx2 c2 c1")


@ssi
def simple_write_skew_write_after_commit(r):
    _sws(r, "rwx2 c2 rwx1 c1")


# -- total-cash.spec --------------------------------------------------------------------------

TC = {
    "b1": ("s1", SER),
    "b2": ("s2", SER),
    "wx1": ("s1", "UPDATE {t} SET balance = balance - 200 WHERE accountid = 'checking'"),
    "rxy1": ("s1", "SELECT sum(balance) FROM {t}"),
    "c1": ("s1", "COMMIT"),
    "wy2": ("s2", "UPDATE {t} SET balance = balance - 200 WHERE accountid = 'savings'"),
    "rxy2": ("s2", "SELECT sum(balance) FROM {t}"),
    "c2": ("s2", "COMMIT"),
    "all": ("s3", "SELECT * FROM {t} ORDER BY accountid"),
}


def _tc(r, perm: str) -> None:
    _tables(r, "CREATE TABLE {t} (accountid text NOT NULL PRIMARY KEY, balance numeric NOT NULL)",
            "INSERT INTO {t} VALUES ('checking', 600), ('savings', 600)")
    _steps(r, "b1 b2 " + perm + " all", TC)


@ssi
def total_cash_serial(r):
    _tc(r, "wx1 rxy1 c1 wy2 rxy2 c2")


@ssi
def total_cash_interleaved(r):
    _tc(r, "wx1 wy2 rxy1 rxy2 c1 c2")


@ssi
def total_cash_read_after_other_commit(r):
    _tc(r, "wx1 rxy1 wy2 c1 rxy2 c2")


@ssi
def total_cash_both_read_then_commit(r):
    _tc(r, "wy2 wx1 rxy2 c2 rxy1 c1")


# -- referential-integrity.spec ---------------------------------------------------------------

RI = {
    "b1": ("s1", SER),
    "b2": ("s2", SER),
    "rx1": ("s1", "SELECT i FROM {t} WHERE i = 1 LIMIT 1"),
    "wy1": ("s1", "INSERT INTO {t}_b VALUES (1)"),
    "c1": ("s1", "COMMIT"),
    "rx2": ("s2", "SELECT i FROM {t} WHERE i = 1 LIMIT 1"),
    "ry2": ("s2", "SELECT a_id FROM {t}_b WHERE a_id = 1 LIMIT 1"),
    "wx2": ("s2", "DELETE FROM {t} WHERE i = 1"),
    "c2": ("s2", "COMMIT"),
    "all": ("s3", "SELECT (SELECT count(*) FROM {t}), (SELECT count(*) FROM {t}_b)"),
}


def _ri(r, perm: str) -> None:
    _tables(r, "CREATE TABLE {t} (i int PRIMARY KEY)", "CREATE TABLE {t}_b (a_id int)",
            "INSERT INTO {t} VALUES (1)", extra=("b",))
    _steps(r, "b1 b2 " + perm + " all", RI)


@ssi
def referential_integrity_serial(r):
    _ri(r, "rx1 wy1 c1 rx2 ry2 wx2 c2")


@ssi
def referential_integrity_interleaved(r):
    _ri(r, "rx1 rx2 ry2 wy1 wx2 c1 c2")


@ssi
def referential_integrity_delete_first(r):
    _ri(r, "rx2 ry2 rx1 wx2 c2 wy1 c1")


# -- read-only-anomaly(-2).spec ---------------------------------------------------------------

ROA = {
    "b1": ("s1", SER),
    "b2": ("s2", SER),
    "s1ry": ("s1", "SELECT balance FROM {t} WHERE id = 'Y'"),
    "s1wy": ("s1", "UPDATE {t} SET balance = 20 WHERE id = 'Y'"),
    "s1c": ("s1", "COMMIT"),
    "s1a": ("s1", "ROLLBACK"),
    "s2rx": ("s2", "SELECT balance FROM {t} WHERE id = 'X'"),
    "s2ry": ("s2", "SELECT balance FROM {t} WHERE id = 'Y'"),
    "s2wx": ("s2", "UPDATE {t} SET balance = -11 WHERE id = 'X'"),
    "s2c": ("s2", "COMMIT"),
    "s3r": ("s3", "SELECT id, balance FROM {t} WHERE id IN ('X', 'Y') ORDER BY id"),
    "s3c": ("s3", "COMMIT"),
}


def _roa(r, s3_begin: str, perm: str) -> None:
    _tables(r, "CREATE TABLE {t} (id text PRIMARY KEY, balance decimal NOT NULL)",
            "INSERT INTO {t} VALUES ('X', 0), ('Y', 0)")
    table = dict(ROA, b3=("s3", s3_begin))
    _steps(r, "b1 b2 b3 " + perm, table)
    r.sql("s3", "SELECT id, balance FROM {t} ORDER BY id")


@ssi
def read_only_anomaly_repeatable_read_observer(r):
    _roa(r, "BEGIN ISOLATION LEVEL REPEATABLE READ", "s2rx s2ry s1ry s1wy s1c s3r s3c s2wx s2c")


@ssi
def read_only_anomaly_2(r):
    _roa(r, SER_RO, "s2rx s2ry s1ry s1wy s1c s3r s2wx s2c s3c")


@ssi
def read_only_anomaly_2_observer_after(r):
    _roa(r, SER_RO, "s2rx s2ry s1ry s1wy s1c s2wx s2c s3r s3c")


# -- read-only-anomaly-3.spec: DEFERRABLE waits for a safe snapshot ------------------------------

@ssi
def read_only_anomaly_3_deferrable(r):
    """The observer's first snapshot (after s1 committed, while s2 runs) is unsafe: s2 commits
    with a conflict out to s1. It blocks until s2 ends, then reads with a new snapshot."""
    _roa(r, SER_RO_DEF, "s2rx s2ry s1ry s1wy s1c s3r s2wx s2c s3c")


@ssi
def deferrable_safe_after_wait(r):
    """A writer without conflicts: the observer waits for it, then keeps its first snapshot
    (it does not see the writer's commit)."""
    _roa(r, SER_RO_DEF, "s1ry s3r s1wy s1c s3c")


@ssi
def deferrable_writer_rolls_back(r):
    _roa(r, SER_RO_DEF, "s1ry s3r s1wy s1a s3c")


@ssi
def deferrable_without_writers(r):
    """Only read-only and not-yet-started serializable transactions beside it: no wait."""
    _roa(r, SER_RO_DEF, "s3r s1ry s1c s3c")


# -- receipt-report.spec ----------------------------------------------------------------------

RR = {
    "b1": ("s1", SER),
    "b2": ("s2", SER),
    "b3": ("s3", SER_RO),
    "rxwy1": ("s1", "INSERT INTO {t}_receipt VALUES (3, (SELECT deposit_date FROM {t} WHERE k = 'receipt'), 4.00)"),
    "c1": ("s1", "COMMIT"),
    "wx2": ("s2", "UPDATE {t} SET deposit_date = DATE '1999-12-23' WHERE k = 'receipt'"),
    "c2": ("s2", "COMMIT"),
    "rx3": ("s3", "SELECT * FROM {t} WHERE k = 'receipt'"),
    "ry3": ("s3", "SELECT * FROM {t}_receipt WHERE deposit_date = DATE '1999-12-22' ORDER BY receipt_no"),
    "c3": ("s3", "COMMIT"),
}


def _rr(r, perm: str) -> None:
    _tables(r, "CREATE TABLE {t} (k text NOT NULL PRIMARY KEY, deposit_date date NOT NULL)",
            "INSERT INTO {t} VALUES ('receipt', DATE '1999-12-22')",
            "CREATE TABLE {t}_receipt (receipt_no int NOT NULL PRIMARY KEY, deposit_date date NOT NULL, amount numeric(13,2))",
            "INSERT INTO {t}_receipt VALUES (1, DATE '1999-12-22', 1.00), (2, DATE '1999-12-22', 2.00)",
            extra=("receipt",))
    _steps(r, "b1 b2 b3 " + perm, RR)


@ssi
def receipt_report_anomaly(r):
    _rr(r, "rxwy1 wx2 c2 rx3 ry3 c3 c1")


@ssi
def receipt_report_serial(r):
    _rr(r, "rxwy1 c1 wx2 c2 rx3 ry3 c3")


@ssi
def receipt_report_report_first(r):
    _rr(r, "rx3 ry3 c3 rxwy1 wx2 c2 c1")


@ssi
def receipt_report_pivot_commits_last(r):
    _rr(r, "wx2 rxwy1 c2 rx3 ry3 c1 c3")


# -- classroom-scheduling.spec ----------------------------------------------------------------

CS = {
    "b1": ("s1", SER),
    "b2": ("s2", SER),
    "rx1": ("s1", "SELECT count(*) FROM {t} WHERE room_id = '101' AND start_time < TIMESTAMP WITH TIME ZONE '2010-04-01 13:00' AND end_time > TIMESTAMP WITH TIME ZONE '2010-04-01 12:00'"),
    "wy1": ("s1", "INSERT INTO {t} VALUES ('101', TIMESTAMP WITH TIME ZONE '2010-04-01 12:00', TIMESTAMP WITH TIME ZONE '2010-04-01 13:00', 'Carol')"),
    "c1": ("s1", "COMMIT"),
    "ry2": ("s2", "SELECT count(*) FROM {t} WHERE room_id = '101' AND start_time < TIMESTAMP WITH TIME ZONE '2010-04-01 13:30' AND end_time > TIMESTAMP WITH TIME ZONE '2010-04-01 13:00'"),
    "wx2": ("s2", "UPDATE {t} SET start_time = TIMESTAMP WITH TIME ZONE '2010-04-01 13:30', end_time = TIMESTAMP WITH TIME ZONE '2010-04-01 14:30' WHERE room_id = '101' AND start_time = TIMESTAMP WITH TIME ZONE '2010-04-01 10:00'"),
    "c2": ("s2", "COMMIT"),
}


def _cs(r, perm: str) -> None:
    _tables(r, "CREATE TABLE {t} (room_id varchar NOT NULL, start_time timestamp with time zone NOT NULL, end_time timestamp with time zone NOT NULL, description varchar NOT NULL, CONSTRAINT {t}_pkey PRIMARY KEY (room_id, start_time))",
            "INSERT INTO {t} VALUES ('101', TIMESTAMP WITH TIME ZONE '2010-04-01 10:00', TIMESTAMP WITH TIME ZONE '2010-04-01 11:00', 'Bob')")
    _steps(r, "b1 b2 " + perm, CS)
    r.sql("s3", "SELECT room_id, description FROM {t} ORDER BY description")


@ssi
def classroom_scheduling_serial(r):
    _cs(r, "rx1 wy1 c1 ry2 wx2 c2")


@ssi
def classroom_scheduling_interleaved(r):
    _cs(r, "rx1 ry2 wy1 wx2 c1 c2")


@ssi
def classroom_scheduling_second_commits_first(r):
    _cs(r, "ry2 wx2 rx1 wy1 c2 c1")


# -- temporal-range-integrity.spec ------------------------------------------------------------

TRI = {
    "b1": ("s1", SER),
    "b2": ("s2", SER),
    "rx1": ("s1", "SELECT count(*) FROM {t} WHERE statute_cite = '123.45(1)a' AND eff_date <= DATE '2009-05-15' AND (exp_date IS NULL OR exp_date > DATE '2009-05-15')"),
    "wy1": ("s1", "INSERT INTO {t}_offense VALUES (1, 2, '123.45(1)a', DATE '2009-05-15')"),
    "c1": ("s1", "COMMIT"),
    "ry2": ("s2", "SELECT count(*) FROM {t}_offense WHERE statute_cite = '123.45(1)a' AND offense_date >= DATE '2008-01-01'"),
    "wx2": ("s2", "DELETE FROM {t} WHERE statute_cite = '123.45(1)a' AND eff_date = DATE '2008-01-01'"),
    "c2": ("s2", "COMMIT"),
}


def _tri(r, perm: str) -> None:
    _tables(r, "CREATE TABLE {t} (statute_cite text NOT NULL, eff_date date NOT NULL, exp_date date, CONSTRAINT {t}_pkey PRIMARY KEY (statute_cite, eff_date))",
            "INSERT INTO {t} VALUES ('123.45(1)a', DATE '2008-01-01', NULL)",
            "CREATE TABLE {t}_offense (offense_no int NOT NULL, charge_no int NOT NULL, statute_cite text NOT NULL, offense_date date NOT NULL, CONSTRAINT {t}_offense_pkey PRIMARY KEY (offense_no, charge_no))",
            "INSERT INTO {t}_offense VALUES (1, 1, '123.45(1)a', DATE '2009-05-15')",
            extra=("offense",))
    _steps(r, "b1 b2 " + perm, TRI)


@ssi
def temporal_range_integrity_serial(r):
    _tri(r, "rx1 wy1 c1 ry2 wx2 c2")


@ssi
def temporal_range_integrity_interleaved(r):
    _tri(r, "rx1 ry2 wy1 wx2 c1 c2")


@ssi
def temporal_range_integrity_delete_first(r):
    _tri(r, "ry2 wx2 rx1 wy1 c2 c1")


# -- project-manager.spec ---------------------------------------------------------------------

PM = {
    "b1": ("s1", SER),
    "b2": ("s2", SER),
    "rx1": ("s1", "SELECT count(*) FROM {t} WHERE person_id = 1 AND is_project_manager"),
    "wy1": ("s1", "INSERT INTO {t}_project VALUES (101, 'Build Great Wall', 1)"),
    "c1": ("s1", "COMMIT"),
    "ry2": ("s2", "SELECT count(*) FROM {t}_project WHERE project_manager = 1"),
    "wx2": ("s2", "UPDATE {t} SET is_project_manager = false WHERE person_id = 1"),
    "c2": ("s2", "COMMIT"),
}


def _pm(r, perm: str) -> None:
    _tables(r, "CREATE TABLE {t} (person_id int NOT NULL PRIMARY KEY, name text NOT NULL, is_project_manager bool NOT NULL)",
            "INSERT INTO {t} VALUES (1, 'Robert Haas', true)",
            "CREATE TABLE {t}_project (project_no int NOT NULL PRIMARY KEY, description text NOT NULL, project_manager int NOT NULL)",
            "CREATE INDEX ON {t}_project (project_manager)",
            extra=("project",))
    _steps(r, "b1 b2 " + perm, PM)


@ssi
def project_manager_serial(r):
    _pm(r, "rx1 wy1 c1 ry2 wx2 c2")


@ssi
def project_manager_interleaved(r):
    _pm(r, "rx1 ry2 wy1 wx2 c1 c2")


@ssi
def project_manager_update_first(r):
    _pm(r, "ry2 wx2 rx1 wy1 c2 c1")


# -- two-ids.spec (three transactions: a chain of two rw-edges) -------------------------------

TI = {
    "b1": ("s1", SER),
    "b2": ("s2", SER),
    "b3": ("s3", SER),
    "wx1": ("s1", "UPDATE {t} SET id = id + 1"),
    "c1": ("s1", "COMMIT"),
    "rxwy2": ("s2", "UPDATE {t}_d2 SET id = (SELECT id + 1 FROM {t})"),
    "c2": ("s2", "COMMIT"),
    "ry3": ("s3", "SELECT id FROM {t}_d2"),
    "c3": ("s3", "COMMIT"),
}


def _ti(r, perm: str) -> None:
    _tables(r, "CREATE TABLE {t} (id int NOT NULL)", "CREATE TABLE {t}_d2 (id int NOT NULL)",
            "INSERT INTO {t} VALUES (1)", "INSERT INTO {t}_d2 VALUES (1)", extra=("d2",))
    _steps(r, "b1 b2 b3 " + perm, TI)


@ssi
def two_ids_serial(r):
    _ti(r, "wx1 c1 rxwy2 c2 ry3 c3")


@ssi
def two_ids_pivot_fails(r):
    _ti(r, "wx1 rxwy2 c1 ry3 c2 c3")


@ssi
def two_ids_reader_last(r):
    _ti(r, "wx1 rxwy2 ry3 c1 c2 c3")


@ssi
def two_ids_first_commits_late(r):
    _ti(r, "rxwy2 wx1 ry3 c2 c3 c1")


# -- predicate-lock-hot-tuple.spec: a HOT update by a non-serializable transaction between
# the reads keeps the SIREAD locks of the old version effective ------------------------------

@ssi
def predicate_lock_hot_tuple(r):
    _tables(r, "CREATE TABLE {t} (i int PRIMARY KEY, t text)",
            "INSERT INTO {t} VALUES (5, 'apple'), (7, 'pear'), (11, 'banana')")
    r.sql("s1", SER)
    r.sql("s2", SER)
    r.sql("s2", "SELECT * FROM {t} WHERE i IN (5, 7) ORDER BY 1 DESC")
    r.sql("s3", "UPDATE {t} SET t = 'apple_xact3' WHERE i = 5")
    r.sql("s1", "SELECT * FROM {t} WHERE i IN (5, 7) ORDER BY 1")
    r.sql("s1", "UPDATE {t} SET t = 'pear_xact1' WHERE i = 7")
    r.sql("s2", "UPDATE {t} SET t = 'apple_xact2' WHERE i = 5")
    r.sql("s1", "COMMIT")
    r.sql("s2", "COMMIT")
    r.sql("s3", "SELECT * FROM {t} ORDER BY i")


# -- a concurrent update under SERIALIZABLE stays REPEATABLE READ's 40001 ---------------------

@ssi
def serializable_concurrent_update(r):
    _tables(r, "CREATE TABLE {t} (id int PRIMARY KEY, value int)", "INSERT INTO {t} VALUES (1, 10), (2, 20)")
    r.sql("s1", SER)
    r.sql("s2", SER)
    r.sql("s1", "SELECT value FROM {t} WHERE id = 1")
    r.sql("s2", "SELECT value FROM {t} WHERE id = 1")
    r.sql("s1", "UPDATE {t} SET value = value + 1 WHERE id = 1")
    r.sql("s2", "UPDATE {t} SET value = value + 1 WHERE id = 1")
    r.sql("s1", "COMMIT")
    r.sql("s2", "ROLLBACK")
    r.sql("s3", "SELECT * FROM {t} ORDER BY id")


@ssi
def serializable_phantom_insert(r):
    """A predicate read (count over a range) and a concurrent insert into that range, both
    ways: the second committer fails."""
    _tables(r, "CREATE TABLE {t} (id int PRIMARY KEY, value int)", "INSERT INTO {t} VALUES (1, 10), (2, 20)")
    r.sql("s1", SER)
    r.sql("s2", SER)
    r.sql("s1", "SELECT count(*) FROM {t} WHERE id BETWEEN 1 AND 10")
    r.sql("s2", "SELECT count(*) FROM {t} WHERE id BETWEEN 1 AND 10")
    r.sql("s1", "INSERT INTO {t} VALUES (3, 30)")
    r.sql("s2", "INSERT INTO {t} VALUES (4, 40)")
    r.sql("s1", "COMMIT")
    r.sql("s2", "COMMIT")
    r.sql("s3", "SELECT * FROM {t} ORDER BY id")


@ssi
def serializable_read_only_commits(r):
    """Read-only serializable transactions beside writers: nothing fails."""
    _tables(r, "CREATE TABLE {t} (id int PRIMARY KEY, value int)", "INSERT INTO {t} VALUES (1, 10), (2, 20)")
    r.sql("s1", SER)
    r.sql("s2", SER_RO)
    r.sql("s2", "SELECT * FROM {t} ORDER BY id")
    r.sql("s1", "UPDATE {t} SET value = 11 WHERE id = 1")
    r.sql("s1", "COMMIT")
    r.sql("s2", "SELECT * FROM {t} ORDER BY id")
    r.sql("s2", "COMMIT")


@ssi
def serializable_beside_repeatable_read(r):
    """Write skew between a SERIALIZABLE and a REPEATABLE READ transaction: only serializable
    transactions are checked against each other, so both commit (as on PostgreSQL)."""
    _tables(r, "CREATE TABLE {t} (id int PRIMARY KEY, value int)", "INSERT INTO {t} VALUES (1, 10), (2, 20)")
    r.sql("s1", SER)
    r.sql("s2", "BEGIN ISOLATION LEVEL REPEATABLE READ")
    r.sql("s1", "SELECT sum(value) FROM {t}")
    r.sql("s2", "SELECT sum(value) FROM {t}")
    r.sql("s1", "UPDATE {t} SET value = 0 WHERE id = 1")
    r.sql("s2", "UPDATE {t} SET value = 0 WHERE id = 2")
    r.sql("s1", "COMMIT")
    r.sql("s2", "COMMIT")
    r.sql("s3", "SELECT * FROM {t} ORDER BY id")


@ssi
def serializable_doomed_pivot_fails_at_its_next_read(r):
    """The first committer of a write skew dooms the other, which fails at its next read."""
    _tables(r, "CREATE TABLE {t} (id int PRIMARY KEY, value int)", "INSERT INTO {t} VALUES (1, 10), (2, 20)")
    r.sql("s1", SER)
    r.sql("s2", SER)
    r.sql("s1", "SELECT sum(value) FROM {t}")
    r.sql("s2", "SELECT sum(value) FROM {t}")
    r.sql("s1", "UPDATE {t} SET value = 0 WHERE id = 1")
    r.sql("s2", "UPDATE {t} SET value = 0 WHERE id = 2")
    r.sql("s1", "COMMIT")
    r.sql("s2", "SELECT * FROM {t} ORDER BY id")
    r.sql("s2", "ROLLBACK")
    r.sql("s3", "SELECT * FROM {t} ORDER BY id")


_reference: dict[str, list[str]] = {}


@pytest.mark.parametrize("name", list(SSI))
def test_isolation_ssi(pg, server, name):
    compare_with_pg(pg, server, name, _run, _reference)
