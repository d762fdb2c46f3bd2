"""Deep input (issue 27): statements and values nested as deep as the client likes answer as
PostgreSQL 15 answers them (a result, or 54001 `stack depth limit exceeded` with its hint),
and never take the server down.

Each case is a differential scenario: the generated statements run on PostgreSQL 15 and on
the server under test, and the transcripts must be identical. The depths are chosen on both
sides of PostgreSQL's own limits at max_stack_depth = 2MB (found by bisection: 4,092 `+`
terms, 4,515 nested coalesce(), 7,271 UNION ALL branches, 14,543 nested JSON arrays, bison's
own limits for nested sub-selects and CASE), so that each passes or fails on both servers.
After every case the server must still answer.
"""
from __future__ import annotations

import pytest

import difftest
import pgwire


def plus(n: int) -> str:
    return "SELECT " + "+".join(["1"] * n)


def concat(n: int) -> str:
    return "SELECT length(" + "||".join(["'a'"] * n) + ")"


def coalesce(n: int) -> str:
    return "SELECT " + "coalesce(" * n + "1" + ",1)" * n


def exists(n: int) -> str:
    return "SELECT " + "EXISTS(SELECT " * n + "1" + ")" * n


def union(n: int) -> str:
    return "SELECT count(*) FROM (" + " UNION ALL ".join(["SELECT 1"] * n) + ") s"


def subselects(n: int) -> str:
    return "SELECT * FROM " + "(SELECT * FROM " * n + "(SELECT 1) s" + ") s" * n


def case(n: int) -> str:
    return "SELECT " + "CASE WHEN true THEN " * n + "1" + " END" * n


def rows(n: int) -> str:
    return "SELECT " + "ROW(" * n + "1" + ")" * n + " IS NULL"


def json_array(n: int, ty: str) -> str:
    return f"SELECT length(('" + "[" * n + "]" * n + f"'::{ty})::text)"


def json_object(n: int) -> str:
    return "SELECT length(('" + '{"a":' * n + "1" + "}" * n + "'::jsonb)::text)"


def int_array(n: int) -> str:
    return "SELECT '" + "{" * n + "1" + "}" * n + "'::int[]"


def array_ctor(n: int) -> str:
    # Over a function's column: PostgreSQL folds a constant one (and a one-row VALUES) when it
    # plans, threadgres when it runs.
    return "SELECT " + "ARRAY[" * n + "x" + "]" * n + " FROM generate_series(1, 1) x"


CASES: dict[str, list[str]] = {
    "plus": [plus(60), plus(4000), plus(12000)],
    "concat": [concat(80), concat(4000), concat(12000)],
    "coalesce": [coalesce(60), coalesce(4400), coalesce(12000)],
    "exists": [exists(40), exists(1500)],
    "union": [union(1000), union(7000), union(12000)],
    "subselects": [subselects(1600), subselects(3000)],
    "case": [case(1900), case(2500)],
    "row": [rows(4000)],
    "json": [json_array(1000, "json"), json_array(14000, "json"), json_array(1000000, "json")],
    "jsonb": [json_array(1000, "jsonb"), json_object(13000), json_array(1000000, "jsonb"),
              "SELECT repeat('[', 3000000)::json IS NULL"],
    "arrays": [int_array(6), int_array(7), array_ctor(6), array_ctor(7),
               "SELECT (repeat('{', n) || '1' || repeat('}', n))::int[] IS NULL"
               " FROM (VALUES (3000000)) v(n)"],
    "max_stack_depth": [
        "SHOW max_stack_depth",
        "SET max_stack_depth = '100kB'",
        "SHOW max_stack_depth",
        plus(150),
        plus(4000),
        json_array(1000000, "jsonb"),
        "SET max_stack_depth = '1.5MB'",
        "SHOW max_stack_depth",
        "SET max_stack_depth = '50kB'",
        "SET max_stack_depth = '1GB'",
        "RESET max_stack_depth",
        "SHOW max_stack_depth",
        "CREATE ROLE deep_nosu LOGIN",
        "SET ROLE deep_nosu",
        "SET max_stack_depth = '1MB'",
        "RESET ROLE",
        "DROP ROLE deep_nosu",
    ],
    "views": (
        ["CREATE TABLE deep_v0 (a int)", "INSERT INTO deep_v0 VALUES (1)"]
        + [f"CREATE VIEW deep_v{i} AS SELECT * FROM deep_v{i - 1}" for i in range(1, 301)]
        + ["SELECT * FROM deep_v300", "SELECT count(*) FROM deep_v300 JOIN deep_v150 USING (a)",
           "SELECT pg_get_viewdef('deep_v300'::regclass)", "DROP TABLE deep_v0 CASCADE"]
    ),
    "recursive_view": [
        "CREATE TABLE rv_t1 (a int)",
        "CREATE VIEW rv_v2 AS SELECT * FROM rv_t1",
        "CREATE VIEW rv_v3 AS SELECT * FROM rv_v2",
        "CREATE OR REPLACE VIEW rv_v2 AS SELECT * FROM rv_v3",
        "SELECT * FROM rv_v2",
        "EXPLAIN (COSTS OFF) SELECT * FROM rv_v3",
        "SELECT * FROM rv_t1 WHERE a IN (SELECT a FROM rv_v3)",
        "SELECT pg_get_viewdef('rv_v2'::regclass)",
        "BEGIN", "LOCK TABLE rv_v2", "ROLLBACK",
        "BEGIN", "LOCK TABLE rv_t1, rv_v3 IN ACCESS SHARE MODE NOWAIT", "ROLLBACK",
        "DROP VIEW rv_v2 CASCADE",
        "DROP TABLE rv_t1",
    ],
    # LOCK on a view locks what it reads, views below it too, with the view owner's privileges.
    "lock_view": [
        "CREATE TABLE lv_t (a int)",
        "CREATE TABLE lv_u (a int)",
        "CREATE VIEW lv_v1 AS SELECT * FROM lv_t",
        "CREATE VIEW lv_v2 AS SELECT a FROM lv_v1 WHERE a IN (SELECT a FROM lv_u)",
        "BEGIN",
        "LOCK TABLE lv_v2 IN SHARE MODE",
        "SELECT c.relname, l.mode, l.granted FROM pg_locks l JOIN pg_class c ON c.oid = l.relation"
        " WHERE l.pid = pg_backend_pid() AND c.relname LIKE 'lv\\_%' ORDER BY 1, 2",
        "ROLLBACK",
        "CREATE ROLE lv_r",
        "GRANT SELECT ON lv_v1 TO lv_r",
        "SET ROLE lv_r",
        "BEGIN", "LOCK TABLE lv_v1 IN ACCESS SHARE MODE", "ROLLBACK",
        "BEGIN", "LOCK TABLE lv_v1 IN EXCLUSIVE MODE", "ROLLBACK",
        "BEGIN", "LOCK TABLE lv_v2 IN ACCESS SHARE MODE", "ROLLBACK",
        "RESET ROLE",
        "CREATE SEQUENCE lv_s",
        "LOCK TABLE lv_s",
        "DROP SEQUENCE lv_s",
        "DROP VIEW lv_v2, lv_v1",
        "DROP TABLE lv_t, lv_u",
        "DROP ROLE lv_r",
    ],
}


@pytest.mark.parametrize("name", list(CASES))
def test_deep_input(pg, server, name):
    def fn(sc: difftest.Scenario) -> None:
        s = sc.session("s1")
        for sql in CASES[name]:
            s.q(sql, show=difftest._short(sql, 60), timeout=180)
        # The session and the server go on.
        s.q("SELECT 1")

    difftest.run_differential(pg, server, fn, key=f"deep:{name}", timeout=180)
    with server.connect_raw() as c:
        assert pgwire.rows(c.query("SELECT 2")) == [("2",)]
