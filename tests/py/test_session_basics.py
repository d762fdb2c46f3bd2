"""Invariants every server must satisfy, checked on both sides (not message diffs)."""

from __future__ import annotations

from clientutil import differential


def test_backend_key_data_matches_pg_backend_pid(server):
    conns = [server.connect_raw() for _ in range(5)]
    try:
        for c in conns:
            assert c.pid is not None and c.secret is not None
            assert c.simple("SELECT pg_backend_pid()") == [(str(c.pid),)]
        assert len({c.pid for c in conns}) == len(conns)
        with server.connect_raw() as mon:
            listed = {int(r[0]) for r in mon.simple("SELECT pid FROM pg_stat_activity WHERE pid IS NOT NULL")}
        assert {c.pid for c in conns} <= listed
    finally:
        for c in conns:
            c.close()


def test_startup_parameter_set(server, pg):
    """The 13 ParameterStatus values PostgreSQL 15 reports, with the same values
    except server_version (any 15.x)."""
    with pg.connect_raw() as ref, server.connect_raw() as got:
        assert set(got.parameters) == set(ref.parameters)
        for k, v in ref.parameters.items():
            if k == "server_version":
                assert got.parameters[k].startswith("15."), got.parameters[k]
            else:
                assert got.parameters[k] == v, (k, got.parameters[k], v)
        types = [m.type for m in got.startup_messages]
        assert types[-2:] == ["K", "Z"] and set(types[:-2]) == {"S"}, types


def test_notification_pid_is_backend_key_pid(server):
    with server.connect_raw() as listener, server.connect_raw() as notifier:
        listener.simple("LISTEN pidcheck")
        notifier.simple("NOTIFY pidcheck, 'x'")
        m = listener.recv(timeout=10)
        assert m.type == "A" and m.fields == (notifier.pid, "pidcheck", "x")


def test_pg_stat_activity_rows(pg, server):
    q = ("SELECT datname, usename, application_name, client_addr, state, query, wait_event_type, "
         "backend_start IS NOT NULL, query_start IS NOT NULL, xact_start IS NOT NULL "
         "FROM pg_stat_activity WHERE pid = ")

    def observe(s):
        with s.connect_raw(params={"application_name": "activity_probe"}) as c, s.connect_raw() as other:
            own = c.simple(q + "pg_backend_pid()")
            other.simple("BEGIN")
            other.simple("SELECT 'idle in tx'")
            in_tx = c.simple(q + str(other.pid))
            other.simple("COMMIT")
            idle = c.simple(q + str(other.pid))
            return own, in_tx, idle
    ref = differential(pg, server, observe)
    assert ref[1][0][4] == "idle in transaction"
