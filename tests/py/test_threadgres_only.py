"""Requirements of issue 2 that have no PostgreSQL 15 counterpart to compare with
(PG behaves differently by configuration or by design). All ids contain
"threadgres"; `-k pg15` skips them."""

from __future__ import annotations

import concurrent.futures
import os
import signal
import struct
import time

import pytest

import pgwire
import servers

TG = pytest.mark.parametrize("server", ["threadgres"], indirect=True)


@TG
def test_gssenc_request_answered_n(server):
    """PostgreSQL built with GSSAPI answers 'G'; threadgres has no GSS and must answer 'N'."""
    c = pgwire.Conn.raw(server.host, server.port)
    c.send(struct.pack("!ii", 8, pgwire.GSSENC_REQUEST_CODE))
    assert c.recv_byte() == b"N"
    msgs = c.startup()
    assert msgs[-1].type == "Z"
    assert c.simple("SELECT 1") == [("1",)]
    c.close()


def _connect_when_slot_free(info, timeout=10.0):
    """Connect, retrying while the server still counts an already closed connection (53300)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            return info.connect_raw()
        except pgwire.ServerError as e:
            assert e.fields.get("C") == "53300", e.fields
            assert time.monotonic() < deadline, "no connection slot became free within the timeout"
            time.sleep(0.05)


@TG
def test_max_connections(server, tg_dedicated):
    p = tg_dedicated("--max-connections", "3")
    # the start-up probe's connection may still be counted for a moment
    conns = [_connect_when_slot_free(p.info) for _ in range(3)]
    extra = pgwire.Conn.raw(p.info.host, p.info.port)
    msgs = extra.startup()
    err = [m for m in msgs if m.type == "E"]
    assert err, msgs
    assert (err[0].fields.get("S"), err[0].fields.get("C"), err[0].fields.get("M")) == \
        ("FATAL", "53300", "sorry, too many clients already")
    extra.close()
    conns.pop().close()
    c = _connect_when_slot_free(p.info)  # the freed slot is usable once the server has seen the close
    assert c.simple("SELECT 'slot reused'") == [("slot reused",)]
    for x in conns + [c]:
        x.close()


@TG
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_shutdown_signal_terminates_sessions(server, tg_dedicated, sig):
    p = tg_dedicated()
    idle = p.info.connect_raw()
    in_tx = p.info.connect_raw()
    in_tx.simple("BEGIN")
    os.kill(p.proc.pid, sig)
    for c in (idle, in_tx):
        msgs = c.read_until_closed(timeout=15)
        fatal = [m.fields for m in msgs if m.type == "E"]
        assert fatal and (fatal[-1].get("S"), fatal[-1].get("C"), fatal[-1].get("M")) == \
            ("FATAL", "57P01", "terminating connection due to administrator command"), msgs
    p.proc.wait(15)
    assert p.proc.returncode == 0


@TG
def test_many_idle_connections(server):
    """A few hundred concurrent sessions (PG15 here is limited to max_connections=100)."""
    n = 300

    def open_one(_):
        return server.connect_raw(timeout=30)
    with concurrent.futures.ThreadPoolExecutor(16) as ex:
        conns = list(ex.map(open_one, range(n)))
    try:
        pids = {c.pid for c in conns}
        assert len(pids) == n, "BackendKeyData pids must be unique"
        for c in conns[:: n // 10]:
            assert c.simple("SELECT pg_backend_pid()") == [(str(c.pid),)]
        with server.connect_raw() as mon:
            count = int(mon.simple("SELECT count(*) FROM pg_stat_activity")[0][0])
        assert count >= n
    finally:
        for c in conns:
            c.close()


@TG
def test_server_version_is_15(server):
    with server.connect_raw() as c:
        assert c.parameters["server_version"].startswith("15.")
        assert c.simple("SELECT version() LIKE 'PostgreSQL 15.%'") == [("t",)]
        assert int(c.simple("SHOW server_version_num")[0][0]) // 10000 == 15


@TG
@pytest.mark.parametrize("query", [
    "SELECT pg_sleep(600)",
    "SELECT count(*) FROM generate_series(1, 100000000000)",
    "SELECT count(*) FROM generate_series(1, 1000000) a, generate_series(1, 1000000) b",
], ids=["sleep", "scan", "join"])
def test_statement_of_a_gone_client_stops(server, query):
    """client_connection_check_interval is on by default here (1s; PostgreSQL's default is
    off): a statement whose client closed its socket stops within a few seconds (issue 27)."""
    with server.connect_raw() as mon:
        assert pgwire.rows(mon.query("SHOW client_connection_check_interval")) == [("1s",)]
        c = server.connect_raw()
        pid = int(pgwire.rows(c.query("SELECT pg_backend_pid()"))[0][0])
        c.send_query(query)
        time.sleep(0.5)
        active = f"SELECT count(*) FROM pg_stat_activity WHERE pid = {pid} AND state = 'active'"
        assert pgwire.rows(mon.query(active)) == [("1",)]
        c.close()
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if pgwire.rows(mon.query(f"SELECT count(*) FROM pg_stat_activity WHERE pid = {pid}")) == [("0",)]:
                break
            time.sleep(0.2)
        else:
            pytest.fail(f"session {pid} still there 10 s after its client left")


@TG
@pytest.mark.parametrize("ddl", [
    "CREATE TABLE gen_refused (a int, b int, CONSTRAINT x EXCLUDE USING btree (a WITH =))",
], ids=["exclusion"])
def test_what_is_not_built_is_refused_not_ignored(server, ddl):
    """An exclusion constraint that was accepted and ignored would give other rows and other
    errors than PostgreSQL: it is refused with 0A000, and nothing is created."""
    with server.connect_raw() as c:
        with pytest.raises(pgwire.ServerError) as e:
            c.simple(ddl)
        assert e.value.fields["C"] == "0A000"
        assert c.simple("SELECT count(*) FROM pg_class WHERE relname = 'gen_refused'") == [("0",)]
