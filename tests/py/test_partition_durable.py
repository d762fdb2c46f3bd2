"""Partitioned tables across restarts: a partitioned table's key, its partitions' bounds and
the rows routed into them read back the same after a clean restart (the shutdown image) and
after kill -9 (the write-ahead log replayed onto the last checkpoint). threadgres-only, as
test_durable.py: each test starts its own server on its own data directory.
"""

from __future__ import annotations

import pytest

from test_durable import restart_by

TG = pytest.mark.parametrize("server", ["threadgres"], indirect=True)

SETUP = [
    "CREATE TABLE m (id int, d date NOT NULL, v text) PARTITION BY RANGE (d)",
    "CREATE TABLE m_2020 PARTITION OF m FOR VALUES FROM ('2020-01-01') TO ('2021-01-01')",
    "CREATE TABLE m_rest PARTITION OF m DEFAULT",
    "CREATE TABLE l (k text, n int) PARTITION BY LIST (k)",
    "CREATE TABLE l_ab PARTITION OF l FOR VALUES IN ('a', 'b') PARTITION BY HASH (n)",
    "CREATE TABLE l_ab0 PARTITION OF l_ab FOR VALUES WITH (MODULUS 2, REMAINDER 0)",
    "CREATE TABLE l_ab1 PARTITION OF l_ab FOR VALUES WITH (MODULUS 2, REMAINDER 1)",
    "INSERT INTO m VALUES (1, '2020-05-05', 'x'), (2, '2022-01-01', 'y')",
    "INSERT INTO l SELECT CASE WHEN g % 2 = 0 THEN 'a' ELSE 'b' END, g FROM generate_series(1, 20) g",
]

CHECKS = [
    "SELECT relname, relkind, relispartition, pg_get_expr(relpartbound, oid) FROM pg_class "
    "WHERE relname ~ '^(m|l)(_|$)' ORDER BY 1",
    "SELECT pg_get_partkeydef('m'::regclass), pg_get_partkeydef('l_ab'::regclass)",
    "SELECT * FROM m ORDER BY id",
    "SELECT * FROM m_rest",
    "SELECT count(*), sum(n) FROM l_ab0",
    "SELECT count(*), sum(n) FROM l_ab1",
]


@TG
@pytest.mark.parametrize("how", ["clean", "kill9"])
def test_partitioned_tables_survive_a_restart(server, tg_dedicated, how):
    p = tg_dedicated()
    c = p.info.connect_raw()
    for q in SETUP:
        c.simple(q)
    before = [c.simple(q) for q in CHECKS]
    c.close()
    restart_by(p, how)
    c = p.info.connect_raw()
    after = [c.simple(q) for q in CHECKS]
    assert after == before
    # Routing still works against the bounds read back.
    c.simple("INSERT INTO m VALUES (3, '2020-07-07', 'z')")
    assert c.simple("SELECT count(*) FROM m_2020") == [("2",)]
    c.close()
