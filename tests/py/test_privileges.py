"""Object privileges across connections (issue 18), the same on both servers: a role that logs
in is held to its privileges; a statement prepared while a privilege was held fails once another
session revokes it (PostgreSQL checks at every execution), and works again after a GRANT; a
role without CONNECT on the database is refused at login with FATAL 42501 and its DETAIL.
"""

from __future__ import annotations

import dataclasses

import psycopg
import pytest


def _as(s, user: str):
    return dataclasses.replace(s, user=user, password=None)


def _admin(s, *stmts):
    with psycopg.connect(s.conninfo, autocommit=True, connect_timeout=10) as c:
        for q in stmts:
            c.execute(q)


def _err(f):
    try:
        f()
    except psycopg.Error as e:
        return (e.sqlstate, str(e).splitlines()[0])
    return None


def test_login_role_is_checked(server):
    _admin(server, "DROP TABLE IF EXISTS pvm_t", "DROP ROLE IF EXISTS pvm_login",
           "CREATE ROLE pvm_login LOGIN", "CREATE TABLE pvm_t (a int, b int)",
           "INSERT INTO pvm_t VALUES (1, 2)")
    try:
        with psycopg.connect(_as(server, "pvm_login").conninfo, autocommit=True,
                             connect_timeout=10) as c:
            assert c.execute("SELECT current_user").fetchone() == ("pvm_login",)
            assert _err(lambda: c.execute("SELECT * FROM pvm_t")) == (
                "42501", "permission denied for table pvm_t")
            _admin(server, "GRANT SELECT (a) ON pvm_t TO pvm_login")
            assert c.execute("SELECT a FROM pvm_t").fetchall() == [(1,)]
            assert _err(lambda: c.execute("SELECT b FROM pvm_t")) == (
                "42501", "permission denied for table pvm_t")
            assert _err(lambda: c.execute("CREATE TABLE pvm_u (a int)")) == (
                "42501", "permission denied for schema public")
            assert _err(lambda: c.execute("DROP TABLE pvm_t")) == (
                "42501", "must be owner of table pvm_t")
            assert c.execute("SELECT has_table_privilege('pvm_t', 'select'), "
                             "has_column_privilege('pvm_t', 'a', 'select')").fetchone() == (False, True)
    finally:
        _admin(server, "DROP TABLE pvm_t", "DROP ROLE pvm_login")


@pytest.mark.parametrize("how", ["protocol", "sql"])
def test_prepared_statement_after_revoke(server, how):
    _admin(server, "DROP TABLE IF EXISTS pvm_p", "DROP ROLE IF EXISTS pvm_prep",
           "CREATE ROLE pvm_prep LOGIN", "CREATE TABLE pvm_p (a int)",
           "INSERT INTO pvm_p VALUES (7)", "GRANT SELECT, INSERT ON pvm_p TO pvm_prep")
    try:
        with psycopg.connect(_as(server, "pvm_prep").conninfo, autocommit=True,
                             connect_timeout=10) as c:
            if how == "protocol":
                def sel():
                    return c.execute("SELECT a FROM pvm_p", prepare=True).fetchall()

                def ins():
                    return c.execute("INSERT INTO pvm_p VALUES (%s)", (8,), prepare=True)
            else:
                c.execute("PREPARE pvm_s AS SELECT a FROM pvm_p")
                c.execute("PREPARE pvm_i AS INSERT INTO pvm_p VALUES (8)")

                def sel():
                    return c.execute("EXECUTE pvm_s").fetchall()

                def ins():
                    return c.execute("EXECUTE pvm_i")
            assert sel() == [(7,)]
            ins()
            assert sel() == [(7,), (8,)]
            _admin(server, "REVOKE SELECT, INSERT ON pvm_p FROM pvm_prep")
            denied = ("42501", "permission denied for table pvm_p")
            assert _err(sel) == denied
            assert _err(ins) == denied
            _admin(server, "GRANT SELECT ON pvm_p TO pvm_prep")
            assert sel() == [(7,), (8,)]
            assert _err(ins) == denied
    finally:
        _admin(server, "DROP TABLE pvm_p", "DROP ROLE pvm_prep")


def test_connect_privilege_at_login(server):
    with psycopg.connect(server.conninfo, connect_timeout=10) as c:
        db = c.info.dbname
    _admin(server, "DROP ROLE IF EXISTS pvm_conn", "CREATE ROLE pvm_conn LOGIN",
           f'REVOKE CONNECT ON DATABASE "{db}" FROM PUBLIC')
    try:
        with pytest.raises(psycopg.OperationalError) as e:
            psycopg.connect(_as(server, "pvm_conn").conninfo, connect_timeout=10).close()
        msg = str(e.value)
        assert f'FATAL:  permission denied for database "{db}"' in msg
        assert "User does not have CONNECT privilege." in msg
        _admin(server, f'GRANT CONNECT ON DATABASE "{db}" TO pvm_conn')
        with psycopg.connect(_as(server, "pvm_conn").conninfo, connect_timeout=10) as c:
            assert c.execute("SELECT current_user").fetchone() == ("pvm_conn",)
        _admin(server, f'REVOKE CONNECT ON DATABASE "{db}" FROM pvm_conn')
    finally:
        _admin(server, f'GRANT CONNECT ON DATABASE "{db}" TO PUBLIC', "DROP ROLE pvm_conn")
