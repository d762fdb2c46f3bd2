"""Multi-session sequence scenarios, differential (issue 19: sequences).

What one session cannot show: nextval is not transactional (a value taken by a transaction
that rolls back is gone, and another session never gets it), concurrent sessions never get the
same value and never wait for each other, setval is seen by other sessions at once, currval and
lastval belong to the session, a sequence created by an uncommitted transaction is invisible to
others. The steps run through test_isolation_diff.py's Runner (psycopg, autocommit, explicit
BEGIN), whose transcript (command tags, rows, errors, blocking) must be the same on PostgreSQL
15 and on threadgres.
"""

from __future__ import annotations

from typing import Callable

import pytest

from clientutil import assert_same
from test_isolation_diff import Runner

SCENARIOS: dict[str, Callable] = {}


def scenario(fn):
    SCENARIOS[fn.__name__] = fn
    return fn


SEQ = "sq_multi_s"


def run_scenario(server, name: str) -> list[str]:
    fn = SCENARIOS[name]
    r = Runner(server, "sq_multi_" + name, 3)
    try:
        r.admin.execute(f"DROP SEQUENCE IF EXISTS {SEQ}")
        r.admin.execute(f"DROP SEQUENCE IF EXISTS {SEQ}_new")
        r.setup(f"CREATE SEQUENCE {SEQ}", "CREATE TABLE {t} (id serial PRIMARY KEY, v text)")
        fn(r)
        return r.outcome()
    finally:
        for s in (SEQ, SEQ + "_new"):
            r.admin.execute(f"DROP SEQUENCE IF EXISTS {s}")
        r.close()


@scenario
def nextval_not_rolled_back(r):
    """A transaction's values are gone when it rolls back; the other session gets the next."""
    r.sql("s1", "BEGIN")
    r.sql("s1", f"SELECT nextval('{SEQ}')")
    r.sql("s2", "BEGIN")
    r.sql("s2", f"SELECT nextval('{SEQ}')")
    r.sql("s1", f"SELECT nextval('{SEQ}')")
    r.sql("s1", "ROLLBACK")
    r.sql("s2", "COMMIT")
    r.sql("s3", f"SELECT nextval('{SEQ}')")
    r.sql("s1", f"SELECT currval('{SEQ}'), lastval()")
    r.sql("s2", f"SELECT currval('{SEQ}'), lastval()")
    r.sql("s3", f"SELECT * FROM {SEQ}")


@scenario
def currval_is_per_session(r):
    """currval and lastval are defined only in the session that called nextval."""
    r.sql("s1", f"SELECT nextval('{SEQ}')")
    r.sql("s2", f"SELECT currval('{SEQ}')")
    r.sql("s2", "SELECT lastval()")
    r.sql("s2", f"SELECT nextval('{SEQ}')")
    r.sql("s1", f"SELECT currval('{SEQ}')")


@scenario
def setval_seen_at_once(r):
    """setval is not transactional: another session continues from it before the commit, and
    after a rollback."""
    r.sql("s1", "BEGIN")
    r.sql("s1", f"SELECT setval('{SEQ}', 50)")
    r.sql("s2", f"SELECT nextval('{SEQ}')")
    r.sql("s1", "ROLLBACK")
    r.sql("s2", f"SELECT nextval('{SEQ}')")
    r.sql("s1", f"SELECT currval('{SEQ}')")


@scenario
def serial_inserts_interleaved(r):
    """Two transactions inserting into a serial column take distinct ids without waiting; the
    rolled-back one leaves a gap."""
    r.sql("s1", "BEGIN")
    r.sql("s1", "INSERT INTO {t} (v) VALUES ('s1 a') RETURNING id")
    r.sql("s2", "BEGIN")
    r.sql("s2", "INSERT INTO {t} (v) VALUES ('s2 a') RETURNING id")
    r.sql("s1", "INSERT INTO {t} (v) VALUES ('s1 b') RETURNING id")
    r.sql("s2", "ROLLBACK")
    r.sql("s1", "COMMIT")
    r.sql("s3", "INSERT INTO {t} (v) VALUES ('s3') RETURNING id")
    r.sql("s3", "SELECT * FROM {t} ORDER BY id")


@scenario
def create_sequence_invisible_until_commit(r):
    """A sequence created by an uncommitted transaction does not exist for others; its
    creator uses it at once."""
    r.sql("s1", "BEGIN")
    r.sql("s1", f"CREATE SEQUENCE {SEQ}_new")
    r.sql("s1", f"SELECT nextval('{SEQ}_new')")
    r.sql("s2", f"SELECT nextval('{SEQ}_new')")
    r.sql("s1", "COMMIT")
    r.sql("s2", f"SELECT nextval('{SEQ}_new')")
    r.sql("s2", f"DROP SEQUENCE {SEQ}_new")


_reference: dict[str, list[str]] = {}


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_sequences_multi(pg, server, name):
    if name in _reference:
        ref = _reference[name]
    else:
        ref = _reference[name] = run_scenario(pg, name)
    got = run_scenario(server, name)
    assert_same("\n".join(ref), "\n".join(got), server.name, f"sequence scenario {name}")
