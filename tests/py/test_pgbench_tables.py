"""pgbench's own tables and built-in scripts, against both servers.

`pgbench -i` creates and fills pgbench_accounts / branches / tellers / history; the
built-in scripts (tpcb-like, simple-update, select-only) then run with several clients
in every query mode. Afterwards the money must add up, as it does in PostgreSQL: each
tpcb-like or simple-update transaction adds the same delta to one account (and, for
tpcb-like, to one teller and one branch) and writes one history row, so the balances
of accounts, tellers and branches and the sum of history deltas agree, and history has
one row per transaction. Concurrent clients update the same branch rows, so this also
checks that no update is lost while writers wait for each other.
"""

from __future__ import annotations

import re

import psycopg
import pytest

from clientutil import pg_tool, run_tool

MODES = ["simple", "extended", "prepared"]
CLIENTS, TXNS = 4, 40


def _init(server, cwd, steps="dtGvp"):
    r = run_tool(server, [pg_tool("pgbench"), "-i", "-s", "1", "-I", steps], timeout=300,
                 cwd=cwd)
    assert r.returncode == 0, r.stdout + r.stderr
    return r


def _run(server, builtin, mode, cwd):
    r = run_tool(server, [pg_tool("pgbench"), "-b", builtin, "-M", mode, "-c", str(CLIENTS),
                          "-j", "2", "-t", str(TXNS)], timeout=300, cwd=cwd)
    out = r.stdout + r.stderr
    assert r.returncode == 0, out
    m = re.search(r"number of transactions actually processed: (\d+)/(\d+)", out)
    assert m and m.group(1) == m.group(2) == str(CLIENTS * TXNS), out
    m = re.search(r"number of failed transactions: (\d+)", out)
    assert m and int(m.group(1)) == 0, out


def _sums(server):
    with psycopg.connect(server.dsn, autocommit=True) as c:
        one = lambda q: c.execute(q).fetchone()[0]  # noqa: E731
        return {
            "accounts": one("SELECT sum(abalance) FROM pgbench_accounts"),
            "tellers": one("SELECT sum(tbalance) FROM pgbench_tellers"),
            "branches": one("SELECT sum(bbalance) FROM pgbench_branches"),
            "history": one("SELECT coalesce(sum(delta), 0) FROM pgbench_history"),
            "history_rows": one("SELECT count(*) FROM pgbench_history"),
            "account_rows": one("SELECT count(*) FROM pgbench_accounts"),
        }


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("builtin", ["tpcb-like", "simple-update", "select-only"])
def test_pgbench_builtin_scripts_keep_the_balances(server, tmp_path, builtin, mode):
    _init(server, tmp_path)
    before = _sums(server)
    assert before["account_rows"] == 100_000
    assert before["history_rows"] == 0
    _run(server, builtin, mode, tmp_path)
    s = _sums(server)
    assert s["account_rows"] == 100_000
    if builtin == "select-only":
        assert s == before
        return
    assert s["history_rows"] == CLIENTS * TXNS, s
    assert s["accounts"] == s["history"], s
    if builtin == "tpcb-like":
        assert s["tellers"] == s["branches"] == s["history"], s


def test_pgbench_init_reports_the_steps(server, tmp_path):
    r = _init(server, tmp_path)
    out = r.stdout + r.stderr
    for step in ["dropping old tables", "creating tables", "generating data (server-side)",
                 "vacuuming", "creating primary keys", "done in"]:
        assert step in out, out


def test_pgbench_init_default_steps(server, tmp_path):
    """The default steps generate the data client-side with COPY FROM STDIN."""
    _init(server, tmp_path, steps="dtgvp")
    assert _sums(server)["account_rows"] == 100_000


def test_pgbench_init_foreign_keys(server, tmp_path):
    r = run_tool(server, [pg_tool("pgbench"), "-i", "-s", "1", "-I", "dtGvpf"], timeout=300,
                 cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr


@pytest.mark.parametrize("mode", ["simple", "prepared"])
def test_pgbench_tpcb_like_with_foreign_keys(server, tmp_path, mode):
    """tpcb-like runs with the foreign keys of `-i --foreign-keys` in place (each history
    insert checks and locks its account, teller and branch FOR KEY SHARE), and the balances
    still agree; the constraints are in pg_constraint."""
    _init(server, tmp_path, steps="dtGvpf")
    _run(server, "tpcb-like", mode, tmp_path)
    s = _sums(server)
    assert s["history_rows"] == CLIENTS * TXNS, s
    assert s["accounts"] == s["history"] == s["tellers"] == s["branches"], s
    with psycopg.connect(server.dsn, autocommit=True) as c:
        n = c.execute("SELECT count(*) FROM pg_constraint WHERE contype = 'f'").fetchone()[0]
        assert n == 5


def test_pgbench_partitions_fail_cleanly_or_work(server, tmp_path):
    """Partitioned accounts either work or fail with an error; the server stays up."""
    r = run_tool(server, [pg_tool("pgbench"), "-i", "-s", "1", "-I", "dtGvp", "--partitions", "2"],
                 timeout=300, cwd=tmp_path)
    if r.returncode != 0:
        assert "ERROR" in r.stdout + r.stderr
    with psycopg.connect(server.dsn, autocommit=True) as c:
        assert c.execute("SELECT 1").fetchone()[0] == 1
