"""EXPLAIN ANALYZE shows what was measured: per node time to the first row and in all, rows and
loops, and the statement's planning and execution time (issue 30). The same checks run on
PostgreSQL 15 and threadgres: times cannot be compared line by line, so these tests check the
format and that the numbers follow what the statement did (a node that sleeps shows at least
its sleep; the first row comes before the last), never how fast anything is.
"""

from __future__ import annotations

import re

import pytest

NODE = re.compile(
    r"^\s*(?:->\s+)?(?P<label>[A-Za-z][A-Za-z ]*?)(?: on \S+(?: \S+)?)?"
    r"\s+\(cost=[0-9.]+\.\.[0-9.]+ rows=\d+ width=\d+\)"
    r" \(actual time=(?P<first>\d+\.\d{3})\.\.(?P<total>\d+\.\d{3}) rows=(?P<rows>\d+) loops=(?P<loops>\d+)\)$"
)
SUMMARY = re.compile(r"^(Planning|Execution) Time: (\d+\.\d{3}) ms$")


def plan_lines(c, sql: str) -> list[str]:
    return [r[0] for r in c.simple(sql)]


def nodes(lines: list[str]) -> list[dict]:
    out = []
    for line in lines:
        m = NODE.match(line)
        if m:
            d = m.groupdict()
            out.append({"label": d["label"].strip(), "first": float(d["first"]), "total": float(d["total"]),
                        "rows": int(d["rows"]), "loops": int(d["loops"]), "line": line})
    return out


def summary(lines: list[str]) -> dict:
    return {m.group(1): float(m.group(2)) for m in map(SUMMARY.match, lines) if m}


@pytest.fixture
def conn(server):
    c = server.connect_raw()
    yield c
    c.close()


def test_sleeping_node_shows_its_sleep(conn):
    """Three rows each evaluated with a 20 ms sleep: the scan's first row took one sleep and the
    whole run all three, and the statement's execution time covers them."""
    lines = plan_lines(conn, "EXPLAIN ANALYZE SELECT pg_sleep(0.02) FROM generate_series(1, 3)")
    ns = nodes(lines)
    assert len(ns) == 1, lines
    n = ns[0]
    assert n["label"] == "Function Scan" and n["rows"] == 3 and n["loops"] == 1, n
    assert n["first"] >= 20.0, n
    assert n["total"] >= 60.0, n
    assert n["first"] < n["total"], n
    s = summary(lines)
    assert set(s) == {"Planning", "Execution"}, lines
    assert s["Execution"] >= n["total"], (s, n)
    # The times are measured: a longer sleep shows a longer time.
    longer = nodes(plan_lines(conn, "EXPLAIN ANALYZE SELECT pg_sleep(0.05) FROM generate_series(1, 3)"))[0]
    assert longer["total"] >= 150.0, longer


def test_scan_times_nest(conn):
    """A scan under an aggregate: the scan's first row comes before its last, and the aggregate,
    which returns only after reading all of the scan, takes at least the scan's time."""
    conn.simple("DROP TABLE IF EXISTS ea_big")
    conn.simple("CREATE TABLE ea_big AS SELECT g AS a, g % 10 AS b FROM generate_series(1, 50000) g")
    lines = plan_lines(conn, "EXPLAIN ANALYZE SELECT count(*) FROM ea_big WHERE b = 3")
    ns = nodes(lines)
    agg = next(n for n in ns if n["label"] == "Aggregate")
    scan = next(n for n in ns if n["label"] == "Seq Scan")
    assert scan["rows"] == 5000 and scan["loops"] == 1, scan
    assert "Rows Removed by Filter: 45000" in [l.strip() for l in lines], lines
    assert scan["first"] < scan["total"], scan
    assert agg["rows"] == 1 and agg["first"] >= scan["total"], (agg, scan)
    assert agg["first"] <= agg["total"], agg
    assert summary(lines)["Execution"] >= agg["total"]
    conn.simple("DROP TABLE ea_big")


def test_loops_average_per_loop(conn):
    """An inner side started once per outer row shows its loops and per-loop averages: rows
    per loop (210 rows over 20 loops: 10.5, printed as PostgreSQL rounds it), and times no
    larger than the whole statement's."""
    conn.simple("DROP TABLE IF EXISTS ea_o")
    conn.simple("CREATE TABLE ea_o (id int PRIMARY KEY, v int)")
    conn.simple("INSERT INTO ea_o SELECT g, g FROM generate_series(1, 20) g")
    lines = plan_lines(
        conn,
        "EXPLAIN ANALYZE SELECT * FROM ea_o o, LATERAL (SELECT count(*) FROM generate_series(1, o.v)) s")
    ns = nodes(lines)
    assert [n["label"] for n in ns] == ["Nested Loop", "Seq Scan", "Aggregate", "Function Scan"], lines
    assert [(n["rows"], n["loops"]) for n in ns] == [(20, 1), (20, 1), (1, 20), (10, 20)], lines
    total = summary(lines)["Execution"]
    for n in ns:
        assert n["first"] <= n["total"], n
        assert n["total"] * n["loops"] <= total + 1.0, (n, total)
    conn.simple("DROP TABLE ea_o")


def test_timing_off_and_summary_off(conn):
    """TIMING OFF prints rows and loops only; SUMMARY OFF drops the time lines; COSTS OFF the
    estimates; SUMMARY ON without ANALYZE prints the planning time alone."""
    lines = plan_lines(conn, "EXPLAIN (ANALYZE, TIMING OFF) SELECT * FROM generate_series(1, 4)")
    assert re.fullmatch(r"Function Scan on generate_series  \(cost=[0-9.]+ rows=\d+ width=4\) "
                        r"\(actual rows=4 loops=1\)".replace("[0-9.]+", r"[0-9.]+\.\.[0-9.]+"),
                        lines[0]), lines
    assert set(summary(lines)) == {"Planning", "Execution"}, lines
    lines = plan_lines(conn, "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT * FROM generate_series(1, 4)")
    assert lines == ["Function Scan on generate_series (actual rows=4 loops=1)"], lines
    lines = plan_lines(conn, "EXPLAIN (ANALYZE, COSTS OFF, SUMMARY OFF) SELECT * FROM generate_series(1, 4)")
    assert len(lines) == 1 and re.fullmatch(
        r"Function Scan on generate_series \(actual time=\d+\.\d{3}\.\.\d+\.\d{3} rows=4 loops=1\)",
        lines[0]), lines
    lines = plan_lines(conn, "EXPLAIN (SUMMARY ON, COSTS OFF) SELECT 1")
    assert lines[0] == "Result" and len(lines) == 2 and SUMMARY.match(lines[1]).group(1) == "Planning", lines


def test_sort_and_hash_memory_are_measured(conn):
    """A Sort's memory and a Hash's buckets and memory grow with what they hold."""
    conn.simple("DROP TABLE IF EXISTS ea_h")
    conn.simple("CREATE TABLE ea_h AS SELECT g AS a, repeat('x', 100) AS t FROM generate_series(1, 20000) g")
    conn.simple("SET work_mem = '64MB'")
    conn.simple("SET enable_mergejoin = off")

    def sort_kb(n):
        lines = plan_lines(conn, f"EXPLAIN (ANALYZE, COSTS OFF) SELECT * FROM (SELECT * FROM ea_h LIMIT {n}) s ORDER BY t, a")
        kb = [int(m.group(1)) for m in (re.search(r"Sort Method: \S+  Memory: (\d+)kB", l) for l in lines) if m]
        assert len(kb) == 1, lines
        return kb[0]

    small, large = sort_kb(100), sort_kb(20000)
    assert 0 < small < large and large >= 2000, (small, large)

    def hash_figures(n):
        lines = plan_lines(conn, "EXPLAIN (ANALYZE, COSTS OFF) SELECT count(*) FROM ea_h x JOIN "
                                 f"(SELECT * FROM ea_h LIMIT {n}) y ON x.a = y.a")
        got = [m.groups() for m in (re.search(r"Buckets: (\d+)  Batches: \d+  Memory Usage: (\d+)kB", l)
                                     for l in lines) if m]
        assert len(got) == 1, lines
        return int(got[0][0]), int(got[0][1])

    (b1, m1), (b2, m2) = hash_figures(100), hash_figures(20000)
    assert b1 < b2 and m1 < m2 and b2 >= 16384, (b1, m1, b2, m2)
    conn.simple("DROP TABLE ea_h")
