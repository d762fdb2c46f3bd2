"""Materialized views (issue 31) across sessions and restarts.

The multi-session scenarios run with the runner of test_isolation_diff.py on PostgreSQL 15
and on threadgres, and the observable outcomes (tags, rows, SQLSTATEs and messages, which
steps blocked and what released them) must be the same: REFRESH ... CONCURRENTLY takes
EXCLUSIVE, so readers go on and see the old rows until it commits and the new ones after;
a plain REFRESH takes ACCESS EXCLUSIVE, so readers wait for it.

`test_concurrent_refresh_readers_never_see_a_mix` hammers one materialized view with readers
while it is refreshed over and over between two contents, on both servers: every read must be
one whole content. The restart tests (threadgres-only, in test_durable.py's style) check that
a materialized view, its rows, indexes, populated state and refreshes survive a clean restart
and a kill -9.
"""

from __future__ import annotations

import signal
import threading
import time

import psycopg
import pytest

import pgwire
from test_isolation_diff import Runner, compare_with_pg

MV: dict = {}


def mv_scenario(fn):
    MV[fn.__name__] = fn
    return fn


def _run(server, name: str) -> list[str]:
    fn = MV[name]
    r = Runner(server, "mv_" + name, 3)
    try:
        r.admin.execute(f"DROP MATERIALIZED VIEW IF EXISTS {r.t}_mv")
        r.setup(
            "CREATE TABLE {t} (id int PRIMARY KEY, value int)",
            "INSERT INTO {t} VALUES (1, 10), (2, 20)",
        )
        r.admin.execute(f"CREATE MATERIALIZED VIEW {r.t}_mv AS SELECT id, value FROM {r.t}")
        r.admin.execute(f"CREATE UNIQUE INDEX ON {r.t}_mv (id)")
        fn(r)
        return r.outcome()
    finally:
        try:
            r.admin.execute(f"DROP MATERIALIZED VIEW IF EXISTS {r.t}_mv")
        except Exception:
            pass
        r.close()


MVALL = "SELECT * FROM {t}_mv ORDER BY id"


@mv_scenario
def concurrent_refresh_lets_readers_through(r):
    """A reader during REFRESH CONCURRENTLY is not blocked and sees the old rows; after the
    commit it sees the new ones."""
    r.sql("s3", "UPDATE {t} SET value = 11 WHERE id = 1")
    r.sql("s3", "INSERT INTO {t} VALUES (3, 30)")
    r.sql("s3", "DELETE FROM {t} WHERE id = 2")
    r.sql("s1", "BEGIN")
    r.sql("s1", "REFRESH MATERIALIZED VIEW CONCURRENTLY {t}_mv")
    r.sql("s1", MVALL)
    r.sql("s2", MVALL)
    r.sql("s1", "COMMIT")
    r.sql("s2", MVALL)


@mv_scenario
def plain_refresh_blocks_readers(r):
    """A plain REFRESH takes ACCESS EXCLUSIVE: a reader waits for its commit, then reads the
    new rows."""
    r.sql("s3", "INSERT INTO {t} VALUES (3, 30)")
    r.sql("s1", "BEGIN")
    r.sql("s1", "REFRESH MATERIALIZED VIEW {t}_mv")
    r.sql("s2", MVALL)
    r.sql("s1", "COMMIT")
    r.wait_for("s2")
    r.sql("s3", MVALL)


@mv_scenario
def concurrent_refreshes_take_turns(r):
    """Two REFRESH CONCURRENTLY of one view: the second waits for the first (EXCLUSIVE
    conflicts with itself), then refreshes from what is committed then."""
    r.sql("s1", "BEGIN")
    r.sql("s1", "REFRESH MATERIALIZED VIEW CONCURRENTLY {t}_mv")
    r.sql("s3", "INSERT INTO {t} VALUES (3, 30)")
    r.sql("s2", "REFRESH MATERIALIZED VIEW CONCURRENTLY {t}_mv")
    r.sql("s1", "COMMIT")
    r.wait_for("s2")
    r.sql("s3", MVALL)


@mv_scenario
def rolled_back_refresh_keeps_the_old_rows(r):
    """A REFRESH (either kind) rolled back leaves the rows and populated state it found; a
    REFRESH WITH NO DATA that commits leaves the view unpopulated for everyone."""
    r.sql("s3", "INSERT INTO {t} VALUES (3, 30)")
    r.sql("s1", "BEGIN")
    r.sql("s1", "REFRESH MATERIALIZED VIEW {t}_mv")
    r.sql("s1", MVALL)
    r.sql("s1", "ROLLBACK")
    r.sql("s2", MVALL)
    r.sql("s1", "BEGIN")
    r.sql("s1", "REFRESH MATERIALIZED VIEW CONCURRENTLY {t}_mv")
    r.sql("s1", "ROLLBACK")
    r.sql("s2", MVALL)
    r.sql("s1", "REFRESH MATERIALIZED VIEW {t}_mv WITH NO DATA")
    r.sql("s2", MVALL)
    r.sql("s2", "SELECT relispopulated FROM pg_class WHERE relname = '{t}_mv'")


@mv_scenario
def repeatable_read_reader_keeps_its_snapshot(r):
    """A REPEATABLE READ reader that read the view before a REFRESH CONCURRENTLY committed
    keeps seeing the old rows; a new transaction sees the new ones."""
    r.sql("s2", "BEGIN ISOLATION LEVEL REPEATABLE READ")
    r.sql("s2", MVALL)
    r.sql("s3", "UPDATE {t} SET value = 99 WHERE id = 2")
    r.sql("s1", "REFRESH MATERIALIZED VIEW CONCURRENTLY {t}_mv")
    r.sql("s2", MVALL)
    r.sql("s2", "COMMIT")
    r.sql("s2", MVALL)


_reference: dict[str, list[str]] = {}


@pytest.mark.parametrize("name", list(MV))
def test_matview_sessions(pg, server, name):
    compare_with_pg(pg, server, name, _run, _reference)


def _connect(server):
    return psycopg.connect(server.conninfo, autocommit=True, prepare_threshold=None, connect_timeout=10)


@pytest.mark.parametrize("server", ["pg15", "threadgres"], indirect=True)
def test_concurrent_refresh_readers_never_see_a_mix(server):
    """While one session refreshes a view concurrently, over and over, between two contents
    that share some rows and differ in others, readers only ever see one whole content."""
    admin = _connect(server)
    admin.execute("DROP MATERIALIZED VIEW IF EXISTS mix_mv")
    admin.execute("DROP TABLE IF EXISTS mix")
    admin.execute("CREATE TABLE mix (id int PRIMARY KEY, v int)")
    admin.execute("INSERT INTO mix SELECT g, g FROM generate_series(1, 200) g")
    admin.execute("CREATE MATERIALIZED VIEW mix_mv AS SELECT id, v FROM mix")
    admin.execute("CREATE UNIQUE INDEX ON mix_mv (id)")
    a = sorted((i, i) for i in range(1, 201))
    # B: the even rows changed, rows 150.. gone, rows 201..260 new.
    b = sorted([(i, i if i % 2 else -i) for i in range(1, 150)] + [(i, i) for i in range(201, 261)])
    stop = threading.Event()
    seen: list = []
    errors: list = []

    def refresher():
        c = _connect(server)
        try:
            flip = True
            while not stop.is_set():
                with c.transaction():
                    if flip:
                        c.execute("UPDATE mix SET v = -id WHERE id % 2 = 0")
                        c.execute("DELETE FROM mix WHERE id >= 150")
                        c.execute("INSERT INTO mix SELECT g, g FROM generate_series(201, 260) g")
                    else:
                        c.execute("DELETE FROM mix")
                        c.execute("INSERT INTO mix SELECT g, g FROM generate_series(1, 200) g")
                c.execute("REFRESH MATERIALIZED VIEW CONCURRENTLY mix_mv")
                flip = not flip
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(repr(e))
        finally:
            c.close()

    def reader():
        c = _connect(server)
        try:
            while not stop.is_set():
                rows = sorted(tuple(r) for r in c.execute("SELECT id, v FROM mix_mv").fetchall())
                seen.append(rows == a or rows == b)
                if rows != a and rows != b:
                    errors.append(f"a mixed read of {len(rows)} rows")
                    return
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(repr(e))
        finally:
            c.close()

    threads = [threading.Thread(target=refresher)] + [threading.Thread(target=reader) for _ in range(3)]
    for t in threads:
        t.start()
    time.sleep(4)
    stop.set()
    for t in threads:
        t.join(30)
    try:
        assert not errors, errors
        assert len(seen) > 20, f"only {len(seen)} reads"
        # Both contents were seen: the refreshes did happen while the readers read.
        final = sorted(tuple(r) for r in admin.execute("SELECT id, v FROM mix_mv").fetchall())
        assert final in (a, b)
    finally:
        admin.execute("DROP MATERIALIZED VIEW IF EXISTS mix_mv")
        admin.execute("DROP TABLE IF EXISTS mix")
        admin.close()


# ------------------------------------------------------------------------------------------
# Restarts (threadgres-only; PostgreSQL's behaviour is that nothing committed changes).
# ------------------------------------------------------------------------------------------

TG = pytest.mark.parametrize("server", ["threadgres"], indirect=True)

SETUP = [
    "CREATE SCHEMA rep",
    "CREATE TABLE rep.src (id int PRIMARY KEY, g text, n numeric)",
    "INSERT INTO rep.src SELECT i, 'g' || (i % 5), i * 1.5 FROM generate_series(1, 500) i",
    "CREATE MATERIALIZED VIEW rep.totals (grp, total) AS SELECT g, sum(n) FROM rep.src GROUP BY g",
    "CREATE UNIQUE INDEX totals_grp ON rep.totals (grp)",
    "CREATE MATERIALIZED VIEW later AS SELECT id, n FROM rep.src WHERE id <= 10 WITH NO DATA",
    "CREATE MATERIALIZED VIEW big AS SELECT id, g FROM rep.src",
    "CREATE INDEX big_g ON big (g)",
    "CHECKPOINT",
    # After the checkpoint: only the log has these.
    "INSERT INTO rep.src SELECT i, 'h', 1 FROM generate_series(501, 600) i",
    "REFRESH MATERIALIZED VIEW CONCURRENTLY rep.totals",
    "REFRESH MATERIALIZED VIEW big",
    "BEGIN",
    "REFRESH MATERIALIZED VIEW big WITH NO DATA",
    "ROLLBACK",
    "CREATE MATERIALIZED VIEW gone AS SELECT 1 AS x",
    "DROP MATERIALIZED VIEW gone",
    "ALTER MATERIALIZED VIEW big RENAME TO big2",
    "GRANT SELECT ON big2 TO PUBLIC",
    "COMMENT ON MATERIALIZED VIEW rep.totals IS 'per group'",
]

CHECKS = [
    "SELECT * FROM rep.totals ORDER BY grp",
    "SELECT count(*), sum(id) FROM big2",
    "SELECT id FROM big2 WHERE g = 'h' ORDER BY id LIMIT 3",
    "EXPLAIN (COSTS OFF) SELECT * FROM rep.totals WHERE grp = 'g3'",
    "SELECT schemaname, matviewname, hasindexes, ispopulated, definition FROM pg_matviews ORDER BY 2",
    "SELECT relname, relkind, relispopulated, relacl FROM pg_class WHERE relkind = 'm' ORDER BY 1",
    "SELECT obj_description('rep.totals'::regclass)",
]


def _snapshot(info) -> list:
    c = info.connect_raw()
    try:
        return [(q, c.simple(q)) for q in CHECKS]
    finally:
        c.close()


@TG
@pytest.mark.parametrize("how", ["clean", "kill9"])
def test_restart_keeps_materialized_views(server, tg_dedicated, how):
    """A materialized view, its rows, indexes, definition, populated state and the refreshes
    after the last checkpoint come back after a clean restart and after a kill -9 (the log
    replays a REFRESH's new storage and a concurrent refresh's row changes)."""
    p = tg_dedicated()
    c = p.info.connect_raw()
    for q in SETUP:
        c.simple(q)
    with pytest.raises(pgwire.ServerError) as e:
        c.simple("SELECT * FROM later")
    assert e.value.fields["C"] == "55000"
    c.close()
    before = _snapshot(p.info)
    if how == "clean":
        p.restart()
    else:
        p.proc.send_signal(signal.SIGKILL)
        p.proc.wait(10)
        p.start()
    after = _snapshot(p.info)
    for (q, a), (_, b) in zip(before, after):
        assert a == b, q
    c = p.info.connect_raw()
    # Still unpopulated, still refreshable; the unique index still refuses duplicates in a
    # concurrent refresh's new data.
    with pytest.raises(pgwire.ServerError) as e:
        c.simple("SELECT * FROM later")
    assert e.value.fields["C"] == "55000"
    c.simple("REFRESH MATERIALIZED VIEW later")
    assert c.simple("SELECT count(*) FROM later") == [("10",)]
    c.simple("UPDATE rep.src SET g = 'g1' WHERE g = 'h'")
    c.simple("REFRESH MATERIALIZED VIEW CONCURRENTLY rep.totals")
    assert c.simple("SELECT count(*) FROM rep.totals") == [("5",)]
    with pytest.raises(pgwire.ServerError) as e:
        c.simple("INSERT INTO big2 VALUES (1, 'x')")
    assert e.value.fields["C"] == "42809"
    c.close()
