"""COMMENT ON under concurrency (branch comments), compared with PostgreSQL 15 by the runner of
test_isolation_diff.py: a description is seen by others only once its transaction commits, and
a second COMMENT on the same table waits for the first (both take ShareUpdateExclusiveLock).
Each scenario starts with {t} = (1, 10), (2, 20); s3 is an observer."""

from __future__ import annotations

import pytest

from test_isolation_diff import scenario
from test_isolation_diff import test_isolation as _compare

_NAMES: list[str] = []

DESC = "SELECT obj_description('{t}'::regclass, 'pg_class'), col_description('{t}'::regclass, 2)"


def _comment_scenario(fn):
    _NAMES.append(fn.__name__)
    return scenario(fn)


@_comment_scenario
def comment_visible_after_commit(r):
    r.sql("s1", "BEGIN")
    r.sql("s1", "COMMENT ON TABLE {t} IS 'one'")
    r.sql("s1", "COMMENT ON COLUMN {t}.value IS 'v'")
    r.sql("s3", DESC)
    r.sql("s1", DESC)
    r.sql("s1", "COMMIT")
    r.sql("s3", DESC)


@_comment_scenario
def comment_second_waits(r):
    r.sql("s1", "BEGIN")
    r.sql("s1", "COMMENT ON TABLE {t} IS 'first'")
    r.sql("s2", "COMMENT ON TABLE {t} IS 'second'")
    r.sql("s3", DESC)
    r.sql("s1", "COMMIT")
    r.sql("s3", DESC)


@_comment_scenario
def comment_rolled_back(r):
    r.sql("s1", "COMMENT ON TABLE {t} IS 'kept'")
    r.sql("s1", "BEGIN")
    r.sql("s1", "COMMENT ON TABLE {t} IS NULL")
    r.sql("s3", DESC)
    r.sql("s1", "ROLLBACK")
    r.sql("s3", DESC)


@pytest.mark.parametrize("name", _NAMES)
def test_isolation_comments(pg, server, name):
    _compare(pg, server, name)
