"""An index built over many rows, against PostgreSQL 15.

Threadgres builds an index over 100,000 rows or more with several threads, each filling its own
key range in its own tree (storage/index.rs); with 250,000 rows and two or more cores the range
boundary falls near the middle key. Lookups, range scans in both directions, LIMITs, later
inserts and deletes, and unique checks must not notice the boundary: every query here is
compared with PostgreSQL's answer."""

from __future__ import annotations

import psycopg

from clientutil import differential

N = 250_000

QUERIES = [
    "SELECT count(*), sum(id) FROM big WHERE id BETWEEN 124000 AND 126000",
    "SELECT id FROM big WHERE id > 124995 ORDER BY id LIMIT 10",
    "SELECT id FROM big WHERE id < 125006 ORDER BY id DESC LIMIT 10",
    "SELECT id FROM big WHERE id >= 62400 AND id < 187600 ORDER BY id DESC LIMIT 5 OFFSET 62597",
    "SELECT id, v FROM big WHERE id IN (1, 124999, 125000, 125001, 125002, 250000, 250001) ORDER BY id",
    "SELECT count(*) FROM big WHERE v >= 0",
    "SELECT min(id), max(id) FROM big",
    "SELECT id FROM big ORDER BY id DESC LIMIT 3",
    "SELECT id FROM big ORDER BY id LIMIT 3",
]


def _observe(s):
    out = []
    with psycopg.connect(s.conninfo, connect_timeout=10, autocommit=True) as conn:
        cur = conn.cursor()
        cur.execute("DROP TABLE IF EXISTS big")
        cur.execute("CREATE TABLE big (id int NOT NULL, v int)")
        cur.execute(f"INSERT INTO big SELECT g, g % 7 FROM generate_series(1, {N}) g")
        cur.execute("ALTER TABLE big ADD PRIMARY KEY (id)")
        for q in QUERIES:
            out.append(cur.execute(q).fetchall())
        # Writes after the build, on both sides of the boundary and past both ends.
        cur.execute("DELETE FROM big WHERE id IN (125000, 125001, 3)")
        cur.execute("INSERT INTO big VALUES (125001, -1), (0, -1), (250001, -1), (3, -1)")
        cur.execute("UPDATE big SET id = 125000 WHERE id = 124999")
        for q in QUERIES:
            out.append(cur.execute(q).fetchall())
        for q in ["INSERT INTO big VALUES (125002, 0)", "INSERT INTO big VALUES (1, 0)",
                  "UPDATE big SET id = 250000 WHERE id = 250001"]:
            try:
                cur.execute(q)
                out.append("ok")
            except psycopg.Error as e:
                out.append((e.diag.sqlstate, e.diag.message_primary, e.diag.message_detail))
        cur.execute("VACUUM big")
        for q in QUERIES:
            out.append(cur.execute(q).fetchall())
        cur.execute("DROP TABLE big")
    return out


def test_index_built_in_ranges_answers_as_one(pg, server):
    differential(pg, server, _observe)
