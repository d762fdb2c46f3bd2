"""psql against both servers: the same invocations must print the same output
(stdout, stderr, exit status; pids normalized)."""

from __future__ import annotations

import pytest

from clientutil import differential, normalize_pids, pg_tool, run_tool

PSQL_FILE = r"""
SELECT 1 AS one, 'text' AS t, NULL AS n, 2.50 AS num;
SELECT x, x * x AS sq FROM generate_series(1, 4) x;
\echo after select
BEGIN;
SELECT 'in transaction';
COMMIT;
SELECT 1 / 0;
SELECT 'continues after error';
SET application_name = 'psql_file';
SHOW application_name;
LISTEN psql_chan;
NOTIFY psql_chan, 'hello from psql';
SELECT 1; SELECT 2;
COPY (SELECT x, 'row' || x FROM generate_series(1, 3) x) TO STDOUT;
COPY (SELECT 1 AS a, 'b,c' AS s) TO STDOUT WITH (FORMAT csv, HEADER);
;
PREPARE p(int) AS SELECT $1 * 2;
EXECUTE p(21);
DEALLOCATE p;
SELECT 'end' AS marker;
"""


def _psql(server, *args, input=None, cwd=None):
    r = run_tool(server, [pg_tool("psql"), "-X", "-v", "VERBOSITY=default", *args], input=input, cwd=cwd)
    return {"rc": r.returncode, "stdout": normalize_pids(r.stdout), "stderr": normalize_pids(r.stderr)}


@pytest.mark.parametrize("sql", [
    "SELECT 1 AS a, 'x' AS b",
    "SELECT 1; SELECT 2",
    "SELECT 1 AS a; SELECT 1/0; SELECT 3",
    "BEGIN; SELECT 'multi'; COMMIT",
    "SELECT now() IS NOT NULL, version() LIKE 'PostgreSQL 15%'",
    "SELEC 1",
    "SHOW DateStyle",
    "",
], ids=["select", "multi", "multi_error", "multi_tx", "functions", "syntax_error", "show", "empty"])
def test_psql_c(pg, server, sql):
    differential(pg, server, lambda s: _psql(s, "-c", sql), "psql -c output")


def test_psql_several_c(pg, server):
    differential(pg, server, lambda s: _psql(s, "-c", "SELECT 1 AS first", "-c", "SELECT 'second'",
                                             "-c", "SELECT 1/0", "-c", "SELECT 'fourth'"), "psql -c -c output")


def test_psql_unaligned_tuples_only(pg, server):
    differential(pg, server, lambda s: _psql(s, "-At", "-F", ",", "-c",
                                             "SELECT x, x::text || 'y', NULL FROM generate_series(1, 3) x"))


@pytest.mark.parametrize("on_error_stop", ["0", "1"])
def test_psql_f(pg, server, tmp_path, on_error_stop):
    f = tmp_path / "script.sql"
    f.write_text(PSQL_FILE)

    def observe(s):
        return _psql(s, "-v", f"ON_ERROR_STOP={on_error_stop}", "-f", "script.sql", cwd=tmp_path)
    ref = differential(pg, server, observe, "psql -f output")
    assert ref["rc"] == (3 if on_error_stop == "1" else 0)


def test_psql_stdin_single_transaction(pg, server):
    script = "SELECT 'a';\nSET LOCAL application_name = 'x';\nSHOW application_name;\n"
    differential(pg, server, lambda s: _psql(s, "-1", "-f", "-", input=script))


def test_psql_variables_and_gexec(pg, server):
    script = ("\\set n 3\nSELECT :n + 1 AS v \\gset\n\\echo :v\n"
              "SELECT 'SELECT ' || x || ' AS gen' FROM generate_series(1, 2) x \\gexec\n")
    differential(pg, server, lambda s: _psql(s, "-f", "-", input=script))


def test_psql_describe_shows_transition_tables(pg, server):
    """psql's \\d lists a trigger with its REFERENCING clause (pg_get_triggerdef)."""
    differential(pg, server, lambda s: _psql(
        s, "-q",
        "-c", "DROP TABLE IF EXISTS psql_tt",
        "-c", "CREATE OR REPLACE FUNCTION psql_tt_f() RETURNS trigger LANGUAGE plpgsql AS "
              "$$ BEGIN RETURN NULL; END $$",
        "-c", "CREATE TABLE psql_tt (a int PRIMARY KEY, b text)",
        "-c", "CREATE TRIGGER psql_tt_u AFTER UPDATE ON psql_tt REFERENCING OLD TABLE AS o "
              "NEW TABLE AS n FOR EACH STATEMENT EXECUTE FUNCTION psql_tt_f()",
        "-c", "\\d psql_tt",
        "-c", "DROP TABLE psql_tt",
        "-c", "DROP FUNCTION psql_tt_f()"), "psql \\d output")
