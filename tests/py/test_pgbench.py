"""pgbench with custom scripts (-n -f) in the three query modes, against both servers.

pgbench's output contains timings, so instead of comparing it we check what
pgbench itself reports about correctness: exit status 0, every transaction
processed, none failed.
"""

from __future__ import annotations

import re

import pytest

from clientutil import differential, pg_tool, run_tool

SCRIPTS = {
    "select1": "SELECT 1;\n",
    "variables": "\\set x random(1, 1000)\n\\set y :x * 2\nSELECT :x::int + 1 AS a, :y::int8 AS b;\n",
    "transaction": "BEGIN;\nSELECT 1;\nSELECT now();\nEND;\n",
    "listen_fixed": "LISTEN channel_fixed;\n",
    "notify_fixed": "NOTIFY channel_fixed, 'payload';\n",
    "pg_notify": "\\set p random(1, 100)\nSELECT pg_notify('channel_' || :client_id, :p::text);\n",
    "listen_notify_self": "LISTEN self_chan;\nNOTIFY self_chan;\nUNLISTEN self_chan;\n",
    "series": "SELECT count(*), sum(x) FROM generate_series(1, 100) x;\n",
}

MODES = ["simple", "extended", "prepared"]
CLIENTS, TXNS = 2, 25


def _pgbench(server, script_path, mode, cwd):
    return run_tool(server, [pg_tool("pgbench"), "-n", "-f", script_path.name, "-M", mode,
                             "-c", str(CLIENTS), "-j", "1", "-t", str(TXNS), "--no-vacuum"],
                    timeout=120, cwd=cwd)


# The LISTEN/NOTIFY benchmark scripts. In -M simple pgbench substitutes the
# variable into the text (channel_0, channel_1, ...). In -M extended/prepared it
# replaces :client_id with $1, which inside an identifier is just part of the
# name ("channel_$1"), so pgbench binds one parameter to a statement that has
# none and PostgreSQL rejects it: the server under test must fail the same way.
# Likewise a compound command (\;) becomes a multi-statement Parse, which fails.
SIMPLE_ONLY_SCRIPTS = {
    "multi_statement": "SELECT 1 \\; SELECT 2;\n",
    "listen": "LISTEN channel_:client_id;\n",
    "notify": "NOTIFY channel_:client_id;\n",
    "listen_notify_tx": "BEGIN;\nLISTEN channel_:client_id;\nNOTIFY channel_:client_id;\nCOMMIT;\nUNLISTEN *;\n",
}


def _check_success(r, mode):
    out = r.stdout + r.stderr
    assert r.returncode == 0, f"pgbench exited with {r.returncode}:\n{out}"
    total = CLIENTS * TXNS
    m = re.search(r"number of transactions actually processed: (\d+)/(\d+)", out)
    assert m, out
    assert (int(m.group(1)), int(m.group(2))) == (total, total), out
    m = re.search(r"number of failed transactions: (\d+)", out)
    assert m and int(m.group(1)) == 0, out
    assert f"query mode: {mode}" in out, out


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("script", list(SIMPLE_ONLY_SCRIPTS))
def test_pgbench_simple_only_scripts(pg, server, tmp_path, script, mode):
    path = tmp_path / f"{script}.sql"
    path.write_text(SIMPLE_ONLY_SCRIPTS[script])
    if mode == "simple":
        _check_success(_pgbench(server, path, mode, tmp_path), mode)
        return

    def observe(s):
        r = _pgbench(s, path, mode, tmp_path)
        errors = sorted(set(l.split("ERROR:", 1)[-1].strip() for l in (r.stdout + r.stderr).splitlines()
                            if "ERROR:" in l))
        return {"rc": r.returncode, "errors": errors}
    differential(pg, server, observe, "pgbench outcome")


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("script", list(SCRIPTS))
def test_pgbench_custom_script(server, tmp_path, script, mode):
    path = tmp_path / f"{script}.sql"
    path.write_text(SCRIPTS[script])
    _check_success(_pgbench(server, path, mode, tmp_path), mode)


def test_pgbench_error_is_reported(server, tmp_path):
    """A failing statement must make pgbench fail (the server reports the error)."""
    path = tmp_path / "bad.sql"
    path.write_text("SELECT 1 / 0;\n")
    r = _pgbench(server, path, "extended", tmp_path)
    out = r.stdout + r.stderr
    assert r.returncode != 0, out
    assert "division by zero" in out, out
