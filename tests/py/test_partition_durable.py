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


# Row movement, deletes, ON CONFLICT, ATTACH and DETACH: the rows where they were moved to and
# the partitions' places read back the same after either restart, and work afterwards.
SETUP2 = [
    "CREATE TABLE r (id int PRIMARY KEY, v text) PARTITION BY RANGE (id)",
    "CREATE TABLE r1 PARTITION OF r FOR VALUES FROM (0) TO (100)",
    "CREATE TABLE r2 PARTITION OF r FOR VALUES FROM (100) TO (200)",
    "INSERT INTO r SELECT g, 'v' || g FROM generate_series(1, 10) g",
    "UPDATE r SET id = id + 100 WHERE id <= 3",
    "DELETE FROM r WHERE id = 10",
    "INSERT INTO r VALUES (5, 'up'), (150, 'new') ON CONFLICT (id) DO UPDATE SET v = excluded.v",
    "CREATE TABLE r3 (id int NOT NULL, v text)",
    "INSERT INTO r3 VALUES (200, 'a'), (250, 'b')",
    "ALTER TABLE r ATTACH PARTITION r3 FOR VALUES FROM (200) TO (300)",
    "ALTER TABLE r DETACH PARTITION r1",
]

CHECKS2 = [
    "SELECT tableoid::regclass, * FROM r ORDER BY id",
    "SELECT * FROM r1 ORDER BY id",
    "SELECT relname, relispartition, pg_get_expr(relpartbound, oid) FROM pg_class "
    "WHERE relname ~ '^r[0-9]?(_|$)' ORDER BY 1",
    "SELECT relid::text, parentrelid::text, isleaf, level FROM pg_partition_tree('r')",
    "SELECT pg_partition_root('r3')::text, pg_partition_root('r1')",
]


@TG
@pytest.mark.parametrize("how", ["clean", "kill9"])
def test_partition_changes_survive_a_restart(server, tg_dedicated, how):
    p = tg_dedicated()
    c = p.info.connect_raw()
    for q in SETUP2:
        c.simple(q)
    before = [c.simple(q) for q in CHECKS2]
    c.close()
    restart_by(p, how)
    c = p.info.connect_raw()
    after = [c.simple(q) for q in CHECKS2]
    assert after == before
    # Moving, upserting, attaching and detaching still work against what was read back.
    c.simple("UPDATE r SET id = 260 WHERE id = 101")
    assert c.simple("SELECT tableoid::regclass::text FROM r WHERE id = 260") == [("r3",)]
    c.simple("INSERT INTO r VALUES (260, 'x') ON CONFLICT (id) DO UPDATE SET v = 'again'")
    assert c.simple("SELECT v FROM r3 WHERE id = 260") == [("again",)]
    c.simple("ALTER TABLE r DETACH PARTITION r3")
    c.simple("ALTER TABLE r ATTACH PARTITION r1 FOR VALUES FROM (0) TO (100)")
    assert c.simple("SELECT count(*) FROM r WHERE id < 100") == [("6",)]
    c.close()
