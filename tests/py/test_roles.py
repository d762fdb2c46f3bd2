"""Roles at login (issue 18): connecting as created roles, a role that does not exist, NOLOGIN,
CONNECTION LIMIT, ALTER ROLE ... SET applied at login, ParameterStatus of is_superuser and
session_authorization after SET ROLE / SET SESSION AUTHORIZATION — the same on both servers
(trust authentication) — and passwords stored as SCRAM verifiers used for SCRAM logins on a
threadgres started with --password (its bootstrap superuser's password).
"""

from __future__ import annotations

import dataclasses
import time

import psycopg
import pytest


def _as(s, user: str, password: str | None = None):
    return dataclasses.replace(s, user=user, password=password)


def _fatal(e: Exception) -> str:
    msg = str(e)
    return msg[msg.find("FATAL"):].splitlines()[0] if "FATAL" in msg else msg


def _admin(s, *stmts):
    with psycopg.connect(s.conninfo, autocommit=True, connect_timeout=10) as c:
        for q in stmts:
            c.execute(q)


def _try(s, user, password=None):
    try:
        with psycopg.connect(_as(s, user, password).conninfo, connect_timeout=10) as c:
            return c.execute("SELECT current_user, session_user").fetchone()
    except psycopg.OperationalError as e:
        return _fatal(e)


def test_login_rules(server):
    _admin(server, "DROP ROLE IF EXISTS rl_in, rl_nologin, rl_limited",
           "CREATE ROLE rl_in LOGIN", "CREATE ROLE rl_nologin",
           "CREATE ROLE rl_limited LOGIN CONNECTION LIMIT 1")
    try:
        assert _try(server, "rl_in") == ("rl_in", "rl_in")
        assert _try(server, "rl_nosuch") == 'FATAL:  role "rl_nosuch" does not exist'
        assert _try(server, "rl_nologin") == 'FATAL:  role "rl_nologin" is not permitted to log in'
        with psycopg.connect(_as(server, "rl_limited").conninfo, connect_timeout=10):
            assert _try(server, "rl_limited") == 'FATAL:  too many connections for role "rl_limited"'
        # The closed session leaves the server a moment after the client's close (on both
        # servers): the slot comes back within a few seconds.
        deadline = time.monotonic() + 10
        while (got := _try(server, "rl_limited")) != ("rl_limited", "rl_limited"):
            assert got == 'FATAL:  too many connections for role "rl_limited"'
            assert time.monotonic() < deadline, "the connection slot did not come back"
            time.sleep(0.05)
    finally:
        _admin(server, "DROP ROLE rl_in, rl_nologin, rl_limited")


def test_role_settings_at_login(server):
    _admin(server, "DROP ROLE IF EXISTS rl_set", "CREATE ROLE rl_set LOGIN",
           "ALTER ROLE rl_set SET work_mem = '2MB'", "ALTER ROLE rl_set SET application_name = 'from_role'")
    try:
        with psycopg.connect(_as(server, "rl_set").conninfo, connect_timeout=10) as c:
            assert c.execute("SHOW work_mem").fetchone() == ("2MB",)
            assert c.execute("SHOW application_name").fetchone() == ("from_role",)
        with psycopg.connect(_as(server, "rl_set").conninfo + " application_name=mine", connect_timeout=10) as c:
            assert c.execute("SHOW application_name").fetchone() == ("mine",)
    finally:
        _admin(server, "DROP ROLE rl_set")


def test_parameter_status_follows_role(server):
    _admin(server, "DROP ROLE IF EXISTS rl_ps", "CREATE ROLE rl_ps")
    try:
        with psycopg.connect(server.conninfo, autocommit=True, connect_timeout=10) as c:
            ps = c.info.parameter_status
            seen = [(ps("is_superuser"), ps("session_authorization"))]
            c.execute("SET ROLE rl_ps")
            seen.append((ps("is_superuser"), ps("session_authorization")))
            c.execute("RESET ROLE")
            c.execute("SET SESSION AUTHORIZATION rl_ps")
            seen.append((ps("is_superuser"), ps("session_authorization")))
            c.execute("RESET SESSION AUTHORIZATION")
            seen.append((ps("is_superuser"), ps("session_authorization")))
        assert seen == [("on", "postgres"), ("off", "postgres"), ("off", "rl_ps"), ("on", "postgres")]
    finally:
        _admin(server, "DROP ROLE rl_ps")


def test_scram_passwords_of_roles(tg_scram):
    s = tg_scram
    _admin(s, "DROP ROLE IF EXISTS rl_pw, rl_nopw, rl_expired",
           "CREATE ROLE rl_pw LOGIN PASSWORD 'pw1'", "CREATE ROLE rl_nopw LOGIN",
           "CREATE ROLE rl_expired LOGIN PASSWORD 'pw2' VALID UNTIL '2001-01-01'")
    try:
        assert _try(s, "rl_pw", "pw1") == ("rl_pw", "rl_pw")
        failed = 'FATAL:  password authentication failed for user "{}"'
        assert _try(s, "rl_pw", "wrong") == failed.format("rl_pw")
        assert _try(s, "rl_nopw", "x") == failed.format("rl_nopw")
        assert _try(s, "rl_expired", "pw2") == failed.format("rl_expired")
        assert _try(s, "rl_nosuch", "x") == failed.format("rl_nosuch")
        # A new password takes effect at the next login; the bootstrap superuser keeps --password.
        _admin(s, "ALTER ROLE rl_pw PASSWORD 'pw3'")
        assert _try(s, "rl_pw", "pw3") == ("rl_pw", "rl_pw")
        assert _try(s, s.user, s.password) == (s.user, s.user)
        with psycopg.connect(s.conninfo, connect_timeout=10) as c:
            v = c.execute("SELECT rolpassword FROM pg_authid WHERE rolname = 'postgres'").fetchone()[0]
        assert v.startswith("SCRAM-SHA-256$4096:")
    finally:
        _admin(s, "DROP ROLE rl_pw, rl_nopw, rl_expired")
